/* SPDX-License-Identifier: (LGPL-2.1 OR MIT) */
/*
 * Mapping the control page and the data ring. Consuming records is inline
 * in libtracebuf.h (tracebuf_peek, tracebuf_advance).
 */
#include <errno.h>
#include <stdint.h>
#include <sys/mman.h>
#include <unistd.h>

#include "lib.h"

#define TRACEBUF_MAP_ALL	(TRACEBUF_MAP_READONLY)

static void tb_clear_ring(struct tracebuf_session *s)
{
	s->ctl = NULL;
	s->data = NULL;
	s->data_size = 0;
	s->map_len = 0;
	s->tail = 0;
	s->map_flags = 0;
	s->ring_err = 0;
}

/* What the module accepts: 2^n pages, n >= 0, at most the maximum. */
static int tb_valid_data_size(uint64_t data_size, uint64_t page_size)
{
	return data_size >= page_size && data_size <= TRACEBUF_DATA_SIZE_MAX &&
	       !(data_size & (data_size - 1)) && !(data_size % page_size);
}

int tracebuf_map(struct tracebuf_session *s, uint64_t data_size, unsigned int flags)
{
	long page_size = sysconf(_SC_PAGESIZE);
	const struct tracebuf_ctl *ctl;
	int prot = PROT_READ;
	size_t len;
	void *p;

	if (!s || (flags & ~TRACEBUF_MAP_ALL) || page_size <= 0)
		return -EINVAL;
	if (!tb_valid_data_size(data_size, (uint64_t)page_size))
		return -EINVAL;
	if (s->fd < 0)
		return -EBADF;
	if (s->ctl)
		return -EBUSY;
	/* Fits: data_size <= 1 GiB, so 2 GiB + a page even on 32 bits. */
	len = (size_t)page_size + 2 * (size_t)data_size;

	if (!(flags & TRACEBUF_MAP_READONLY))
		prot |= PROT_WRITE;
	p = mmap(NULL, len, prot, MAP_SHARED, s->fd, 0);
	if (p == MAP_FAILED)
		return -errno;

	/* Constant since the ring was created: no ordering needed. */
	ctl = p;
	if (ctl->abi_version != TRACEBUF_ABI_VERSION || ctl->data_size != data_size ||
	    ctl->data_offset != (uint64_t)page_size) {
		munmap(p, len);
		return -EPROTO;
	}

	s->ctl = p;
	s->data = (unsigned char *)p + page_size;
	s->data_size = data_size;
	s->map_len = len;
	s->tail = tracebuf_smp_load_acquire(&s->ctl->data_tail);
	s->map_flags = flags;
	s->ring_err = 0;
	return 0;
}

void tracebuf_unmap(struct tracebuf_session *s)
{
	if (!s || !s->ctl)
		return;
	/* The AUX area first: the kernel stops the hardware before freeing it. */
	tracebuf_unmap_aux(s);
	/* Fails only for arguments we made ourselves; nothing to retry. */
	munmap(s->ctl, s->map_len);
	tb_clear_ring(s);
}
