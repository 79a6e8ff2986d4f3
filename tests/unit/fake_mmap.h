/* SPDX-License-Identifier: GPL-2.0 */
#ifndef TB_UNIT_FAKE_MMAP_H
#define TB_UNIT_FAKE_MMAP_H

#include <stddef.h>
#include <sys/types.h>

#include <tracebuf.h>

/* State of the fake mmap()/munmap() (fake_mmap.c); tests set and inspect it. */
struct fake_mmap {
	int emulate;		/* 0: pass through; 1: play the module's mmap */
	int err;		/* emulate: fail with this errno */
	struct tracebuf_ctl ctl; /* emulate: control page to present */

	unsigned int calls;	/* mmap() calls seen */
	void *last_addr;	/* their arguments, and what was returned */
	size_t last_len;
	int last_prot, last_flags, last_fd;
	off_t last_off;
	void *last_ret;

	unsigned int munmap_calls;
	void *munmap_addr;
	size_t munmap_len;
};

extern struct fake_mmap fake_mmap;

#endif /* TB_UNIT_FAKE_MMAP_H */
