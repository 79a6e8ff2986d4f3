/* SPDX-License-Identifier: GPL-2.0 */
/*
 * Declarations shared by the files of tracebuf.ko. Nothing here is ABI:
 * the ABI is include/uapi/tracebuf.h.
 */
#ifndef _TRACEBUF_INTERNAL_H
#define _TRACEBUF_INTERNAL_H

#include <linux/types.h>
#include <linux/mutex.h>
#include <tracebuf.h>

#include "compat.h"

#define TB_NAME "tracebuf"

/*
 * One open file of /dev/tracebuf. It owns whatever the session sets up and
 * is freed at release; the file reference keeps it alive for every ioctl.
 */
struct tb_session {
	struct mutex lock;	/* serialises ioctls on this session */
};

/* info.c */
long tb_ioctl_get_info(struct tb_session *s, void __user *arg);

#endif /* _TRACEBUF_INTERNAL_H */
