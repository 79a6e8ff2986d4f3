/* SPDX-License-Identifier: (LGPL-2.1 OR MIT) */
/*
 * Opening, configuring and closing a tracebuf session.
 */
#include <errno.h>
#include <fcntl.h>
#include <stdlib.h>
#include <string.h>
#include <sys/ioctl.h>
#include <unistd.h>

#include "lib.h"

#define TRACEBUF_OPEN_ALL	(TRACEBUF_OPEN_NONBLOCK)

/*
 * TRACEBUF_DEVICE in the environment lets tests and containers point the
 * library at another node. secure_getenv: a privileged caller is not
 * redirected by whoever set its environment.
 */
static const char *tb_device_path(void)
{
	const char *path = secure_getenv("TRACEBUF_DEVICE");

	return path && *path ? path : TRACEBUF_DEVICE;
}

int tracebuf_open(struct tracebuf_session *s, unsigned int flags)
{
	int oflags = O_RDWR | O_CLOEXEC;
	int fd;

	if (!s)
		return -EINVAL;
	/* Leave a closed session behind on every failure: close is safe. */
	memset(s, 0, sizeof(*s));
	s->fd = -1;
	if (flags & ~TRACEBUF_OPEN_ALL)
		return -EINVAL;

	if (flags & TRACEBUF_OPEN_NONBLOCK)
		oflags |= O_NONBLOCK;
	fd = open(tb_device_path(), oflags);
	if (fd < 0)
		return -errno;

	s->fd = fd;
	s->flags = flags;
	return 0;
}

void tracebuf_close(struct tracebuf_session *s)
{
	if (!s)
		return;
	tracebuf_unmap(s);
	if (s->fd < 0)
		return;
	/* close() releases the fd even when it fails: never retry it. */
	close(s->fd);
	s->fd = -1;
}

int tracebuf_setup(struct tracebuf_session *s, const struct tracebuf_setup *setup)
{
	struct tracebuf_setup req;

	if (!s || !setup)
		return -EINVAL;
	if (s->fd < 0)
		return -EBADF;

	/* A copy: the caller's struct stays const, and 'size' is ours to set. */
	req = *setup;
	req.size = sizeof(req);
	if (ioctl(s->fd, TRACEBUF_IOC_SETUP, &req) < 0)
		return -errno;
	return 0;
}
