/* SPDX-License-Identifier: (LGPL-2.1 OR MIT) */
/*
 * TRACEBUF_IOC_GET_INFO: module version, ABI and trace backends.
 */
#include <errno.h>
#include <stdint.h>
#include <string.h>
#include <sys/ioctl.h>

#include "lib.h"

int tracebuf_get_info(struct tracebuf_session *s, struct tracebuf_info *info,
		      struct tracebuf_backend_desc *backends,
		      unsigned int max_backends)
{
	if (!s || !info || (!backends && max_backends))
		return -EINVAL;
	if (s->fd < 0)
		return -EBADF;

	/* The kernel rejects non-zero reserved fields and unknown tail bytes. */
	memset(info, 0, sizeof(*info));
	info->size = sizeof(*info);
	info->backends_max = max_backends;
	info->backend_desc_size = sizeof(*backends);
	info->backends_ptr = (uint64_t)(uintptr_t)backends;

	if (ioctl(s->fd, TRACEBUF_IOC_GET_INFO, info) < 0)
		return -errno;
	return 0;
}
