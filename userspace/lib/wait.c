/* SPDX-License-Identifier: (LGPL-2.1 OR MIT) */
/*
 * Waiting for records: poll(2), and SIGIO delivery.
 */
#include <errno.h>
#include <fcntl.h>
#include <poll.h>
#include <signal.h>
#include <unistd.h>

#include "lib.h"

int tracebuf_wait(struct tracebuf_session *s, int timeout_ms)
{
	struct pollfd pfd;
	int ret;

	if (!s)
		return -EINVAL;
	if (s->fd < 0)
		return -EBADF;

	pfd.fd = s->fd;
	pfd.events = POLLIN;
	pfd.revents = 0;
	ret = poll(&pfd, 1, timeout_ms);
	if (ret < 0)
		return -errno;
	if (ret == 0)
		return 0;
	/*
	 * The end of the session first: a consumer told "ready" forever by
	 * a ring it cannot drain (read-only mapping) would never learn it.
	 * Records may still be in the ring after -EPIPE or -EIO.
	 */
	if (pfd.revents & POLLNVAL)
		return -EBADF;
	if (pfd.revents & POLLERR)
		return -EIO;
	if (pfd.revents & POLLHUP)
		return -EPIPE;
	return 1;
}

int tracebuf_sigio_enable(struct tracebuf_session *s, int signo, pid_t owner_tid)
{
	struct f_owner_ex owner;
	int fl;

	if (!s || signo < 0 || owner_tid < 0)
		return -EINVAL;
	if (s->fd < 0)
		return -EBADF;

	if (owner_tid > 0) {
		owner.type = F_OWNER_TID;
		owner.pid = owner_tid;
	} else {
		owner.type = F_OWNER_PID;
		owner.pid = getpid();
	}
	if (fcntl(s->fd, F_SETOWN_EX, &owner) < 0)
		return -errno;
	/*
	 * Always a non-zero F_SETSIG: with 0 the kernel sends a plain SIGIO
	 * without si_code (POLL_IN, POLL_HUP), si_band or si_fd.
	 */
	if (fcntl(s->fd, F_SETSIG, signo ? signo : SIGIO) < 0)
		return -errno;
	/* Last, so that no signal goes anywhere before the owner is set. */
	fl = fcntl(s->fd, F_GETFL);
	if (fl < 0 || fcntl(s->fd, F_SETFL, fl | O_ASYNC) < 0)
		return -errno;
	return 0;
}

int tracebuf_sigio_disable(struct tracebuf_session *s)
{
	int fl;

	if (!s)
		return -EINVAL;
	if (s->fd < 0)
		return -EBADF;

	fl = fcntl(s->fd, F_GETFL);
	if (fl < 0 || fcntl(s->fd, F_SETFL, fl & ~O_ASYNC) < 0)
		return -errno;
	return 0;
}
