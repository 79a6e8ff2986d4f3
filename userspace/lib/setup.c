/* SPDX-License-Identifier: (LGPL-2.1 OR MIT) */
/*
 * Opening, configuring and closing a tracebuf session.
 */
#include <errno.h>
#include <fcntl.h>
#include <stdint.h>
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

#if defined(__LP64__)
/* Growing the struct would break code built against the previous header. */
_Static_assert(sizeof(struct tracebuf_session) == 88, "struct tracebuf_session changed size");
#endif

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

/*
 * Remember which backend and CPU the session traces, so that
 * tracebuf_set_drv_config() can list the backend's keys when it explains
 * an error. For a CPU set: its first CPU (the kernel accepted the set, so
 * it is readable and not empty).
 */
static void tb_note_setup(struct tracebuf_session *s, const struct tracebuf_setup *req)
{
	const char *b = req->backend;
	size_t n = strnlen(b, sizeof(req->backend));
	const uint64_t *words;
	uint32_t i;

	if (n == 0 || (n == 4 && !memcmp(b, TRACEBUF_BACKEND_AUTO, 4)))
		s->setup_backend = TB_SETUP_BACKEND_AUTO;
	else if (n == 8 && !memcmp(b, "intel_pt", 8))
		s->setup_backend = TRACEBUF_BACKEND_INTEL_PT;
	else if (n == 9 && !memcmp(b, "coresight", 9))
		s->setup_backend = TRACEBUF_BACKEND_CORESIGHT;
	else
		s->setup_backend = TB_SETUP_BACKEND_UNKNOWN;

	s->setup_cpu = 0;
	if (req->target == TRACEBUF_TARGET_CPU) {
		s->setup_cpu = req->cpu;
	} else if (req->target == TRACEBUF_TARGET_CPUSET && req->cpuset_ptr) {
		words = (const uint64_t *)(uintptr_t)req->cpuset_ptr;
		for (i = 0; i < req->cpuset_size / 8; i++) {
			if (words[i]) {
				s->setup_cpu = 64 * i + (uint32_t)__builtin_ctzll(words[i]);
				break;
			}
		}
	}
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
	tb_note_setup(s, &req);
	return 0;
}
