/* SPDX-License-Identifier: GPL-2.0 */
/*
 * The AUX ring: pages the trace hardware writes into, mapped once into the
 * consumer at ctl->aux_offset, and the head/tail protocol around them.
 */
#ifndef _TRACEBUF_AUX_H
#define _TRACEBUF_AUX_H

#include <linux/mm_types.h>
#include <linux/types.h>

#include "internal.h"

struct tb_session;

/* 2^order physically contiguous pages of the AUX ring, in ring order. */
struct tb_aux_chunk {
	struct page *page;
	unsigned int order;
};

struct tb_aux {
	struct tb_session *s;
	struct page **pages;		/* nr_pages order-0 pages, ring order */
	unsigned int nr_pages;
	struct tb_aux_chunk *chunks;
	unsigned int nr_chunks;
	u64 size;			/* bytes, 2^n pages */
	u64 mask;			/* size - 1 */
	unsigned long pgoff;		/* mmap offset, in pages */
	bool snapshot;			/* read-only mapping: wrap freely */
	u64 watermark;			/* wake/restart at this many bytes */
	void *priv;			/* the backend's output tables */
	unsigned int table_pages;	/* pages those take: set by setup_aux */
	int mmap_count;			/* VMAs of the AUX area; under s->lock */

	/*
	 * Hardware-side state: touched only under s->trace_lock, by whoever
	 * drains (the traced CPU with interrupts off). The published head is
	 * s->aux_head (tb_aux_head()).
	 */
	u64 tail;			/* last aux_tail that passed validation */
	u64 snap_written;		/* snapshot: bytes written since last publish */
};

struct tb_aux *tb_aux_alloc(struct tb_session *s, u64 size, bool snapshot,
			    bool contiguous);
void tb_aux_free(struct tb_aux *aux);
u64 tb_aux_tail(struct tb_aux *aux);
u64 tb_aux_free_bytes(struct tb_aux *aux);
void tb_aux_publish(struct tb_aux *aux, u64 new_head, u64 flags);
void tb_aux_count_padding(struct tb_aux *aux, u64 bytes);
bool tb_aux_ready(struct tb_session *s);

/* Every AUX byte below this position is the consumer's (published). */
static inline u64 tb_aux_head(const struct tb_aux *aux)
{
	return aux->s->aux_head;
}

#endif /* _TRACEBUF_AUX_H */
