/* SPDX-License-Identifier: GPL-2.0 */
/*
 * The trace-backend registry. A backend (Intel PT, CoreSight) lives in one
 * file of its own and is listed once in backend.c; tb_backends_init() probes
 * each and keeps those whose hardware is present.
 */
#ifndef _TRACEBUF_BACKEND_H
#define _TRACEBUF_BACKEND_H

#include <linux/types.h>
#include <tracebuf.h>

struct tb_backend {
	const char *name;		/* as in GET_INFO and SETUP */
	u32 id;				/* enum tracebuf_backend_id */
	/* Returns 0 when the hardware (or its emulator) is present. */
	int (*probe)(struct tb_backend *b);
	void (*remove)(struct tb_backend *b);
	/* Filled by probe: */
	u32 flags;			/* TRACEBUF_BACKEND_F_* */
	u32 nr_cpus;
	u32 caps_size;
};

int tb_backends_init(void);
void tb_backends_exit(void);
unsigned int tb_backend_count(void);
const struct tb_backend *tb_backend_get(unsigned int idx);

#endif /* _TRACEBUF_BACKEND_H */
