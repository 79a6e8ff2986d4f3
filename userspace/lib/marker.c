/* SPDX-License-Identifier: (LGPL-2.1 OR MIT) */
/*
 * Writing USER markers into the data ring, and read(2) for consumers that
 * do not map the ring.
 */
#include <errno.h>
#include <stdint.h>
#include <string.h>
#include <sys/ioctl.h>
#include <unistd.h>

#include "lib.h"

int tracebuf_user_marker(struct tracebuf_session *s, uint64_t cookie,
			 const void *data, uint32_t len)
{
	struct tracebuf_user_marker m;

	if (!s || (!data && len) || len > TRACEBUF_USER_MARKER_MAX)
		return -EINVAL;
	if (s->fd < 0)
		return -EBADF;

	memset(&m, 0, sizeof(m));
	m.size = sizeof(m);
	m.cookie = cookie;
	m.data_ptr = (uint64_t)(uintptr_t)data;
	m.len = len;
	if (ioctl(s->fd, TRACEBUF_IOC_USER_MARKER, &m) < 0)
		return -errno;
	return 0;
}

ssize_t tracebuf_read(struct tracebuf_session *s, void *buf, size_t len)
{
	ssize_t n;

	if (!s || (!buf && len))
		return -EINVAL;
	if (s->fd < 0)
		return -EBADF;

	n = read(s->fd, buf, len);
	return n < 0 ? -errno : n;
}
