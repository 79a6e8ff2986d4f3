/* SPDX-License-Identifier: (LGPL-2.1 OR MIT) */
/*
 * Internal header of libtracebuf. The library is built with
 * -fvisibility=hidden: only what the public header declares gets default
 * visibility, and libtracebuf.map then picks the exported set from that.
 */
#ifndef LIBTRACEBUF_LIB_H
#define LIBTRACEBUF_LIB_H

#pragma GCC visibility push(default)
#include "libtracebuf.h"
#pragma GCC visibility pop

/*
 * struct tracebuf_session.setup_backend: the backend tracebuf_setup()
 * named, for the key table behind tracebuf_set_drv_config()'s messages.
 * An enum tracebuf_backend_id, or one of these.
 */
#define TB_SETUP_BACKEND_UNKNOWN	0	/* not set up, "none", or a name we do not know */
#define TB_SETUP_BACKEND_AUTO		0xffff	/* "auto" or "": the kernel's first backend */

/* Clear the AUX fields of a session (after munmap, or never mapped). */
void tb_clear_aux(struct tracebuf_session *s);

#endif /* LIBTRACEBUF_LIB_H */
