// SPDX-License-Identifier: GPL-2.0
/*
 * The AUX ring, as a mechanism: allocating and freeing its pages, and
 * publishing what the hardware wrote. The policy around it (the mapping
 * at ctl->aux_offset and its lifetime) is session.c's; this file calls
 * nothing above itself but the data ring.
 *
 * Barriers (the data ring's A-E protocol, in module/ring.c, carries over):
 *
 *   kernel (traced CPU)                 consumer
 *   stop or drain the hardware          h = LOAD_ACQUIRE(aux_head)   (G)
 *   commit the AUX record               read AUX bytes [tail, h)
 *   STORE_RELEASE(aux_head)       (F)   STORE_RELEASE(aux_tail)      (H)
 *   t = LOAD_ACQUIRE(aux_tail)    (I)
 *   program STOP/INT up to t + size
 *
 * F pairs with G: the consumer sees the hardware's bytes and the record.
 * H pairs with I: the hardware is let into space only after the consumer's
 * loads of it are done. Stopping the hardware (WRMSR clearing TraceEn,
 * which serialises and flushes its buffers) comes before F.
 */
#include <linux/gfp.h>
#include <linux/log2.h>
#include <linux/mm.h>
#include <linux/slab.h>
#include <linux/vmalloc.h>

#include "internal.h"
#include "aux.h"
#include "ring.h"

/* Largest chunk we ask the page allocator for: 1 MiB. */
#define TB_AUX_MAX_ORDER	8

void tb_aux_free(struct tb_aux *aux)
{
	unsigned int i;

	if (!aux)
		return;
	for (i = 0; i < aux->nr_pages; i++)
		__free_page(aux->pages[i]);
	kvfree(aux->pages);
	kvfree(aux->chunks);
	kfree(aux);
}

/*
 * Zeroed pages on the traced CPU's node, high order first, falling back to
 * smaller orders; each chunk is split so every page can be mapped alone.
 * contiguous: one chunk, at most 2^TB_AUX_MAX_ORDER pages, or NULL.
 */
struct tb_aux *tb_aux_alloc(struct tb_session *s, u64 size, bool snapshot,
			    bool contiguous)
{
	unsigned int n = size >> PAGE_SHIFT, max_order;
	struct tb_aux *aux;

	aux = kzalloc(sizeof(*aux), GFP_KERNEL);
	if (!aux)
		return NULL;
	aux->pages = kvcalloc(n, sizeof(*aux->pages), GFP_KERNEL);
	aux->chunks = kvcalloc(n, sizeof(*aux->chunks), GFP_KERNEL);
	if (!aux->pages || !aux->chunks)
		goto fail;
	/*
	 * No-overwrite mode places STOP at chunk boundaries: keep at least
	 * eight chunks so a stalled consumer blocks at most an eighth.
	 */
	max_order = min_t(unsigned int, TB_AUX_MAX_ORDER, ilog2(n));
	if (contiguous) {
		/* One chunk (n is a power of two), at most 2^TB_AUX_MAX_ORDER pages. */
		if (ilog2(n) > TB_AUX_MAX_ORDER)
			goto fail;
	} else if (!snapshot) {
		max_order = min_t(unsigned int, max_order, n >= 8 ? ilog2(n / 8) : 0);
	}
	while (aux->nr_pages < n) {
		unsigned int order = min_t(unsigned int, max_order,
					   ilog2(n - aux->nr_pages));
		struct page *page;
		unsigned int i;

		for (;;) {
			/* __GFP_ACCOUNT: the memory cgroup sees it. */
			page = alloc_pages_node(s->node, GFP_KERNEL_ACCOUNT | __GFP_ZERO |
						(order ? __GFP_NOWARN | __GFP_NORETRY : 0),
						order);
			if (page || !order || contiguous)
				break;
			order--;
		}
		if (!page)
			goto fail;
		if (order)
			split_page(page, order);
		aux->chunks[aux->nr_chunks].page = page;
		aux->chunks[aux->nr_chunks++].order = order;
		for (i = 0; i < (1U << order); i++)
			aux->pages[aux->nr_pages++] = page + i;
	}
	aux->s = s;
	aux->size = size;
	aux->mask = size - 1;
	aux->snapshot = snapshot;
	return aux;
fail:
	tb_aux_free(aux);
	return NULL;
}

/* The consumer's aux_tail, validated (I). Under s->trace_lock. */
u64 tb_aux_tail(struct tb_aux *aux)
{
	u64 t;

	if (aux->snapshot)
		return tb_aux_head(aux) - aux->size;	/* nothing is protected */
	t = smp_load_acquire(&aux->s->ring->ctl->aux_tail);	/* (I), pairs with (H) */
	/* Backwards or past the head: keep the last good value. */
	if (t - aux->tail <= tb_aux_head(aux) - aux->tail)
		aux->tail = t;
	return aux->tail;
}

/* Bytes the hardware may write without touching unread data. */
u64 tb_aux_free_bytes(struct tb_aux *aux)
{
	return aux->size - (tb_aux_head(aux) - tb_aux_tail(aux));
}

/* The kernel padded bytes of a span the hardware left early. */
void tb_aux_count_padding(struct tb_aux *aux, u64 bytes)
{
	struct tb_session *s = aux->s;

	s->aux_padding += bytes;
	WRITE_ONCE(s->ring->ctl->aux_padding, s->aux_padding);
}

/*
 * The hardware wrote up to new_head (free-running) and is stopped or
 * drained. Write the AUX record, then move aux_head. Under s->trace_lock.
 * A span that does not fit in the data ring is counted there as a lost
 * record; aux_head still moves, so the AUX bytes stay readable.
 */
void tb_aux_publish(struct tb_aux *aux, u64 new_head, u64 flags)
{
	struct tb_session *s = aux->s;
	struct tb_ring *rb = s->ring;
	struct tracebuf_ctl *ctl = rb->ctl;
	u64 start = s->aux_head, size = new_head - s->aux_head;
	struct tracebuf_rec_aux *rec;
	struct tracebuf_wr wr;

	if (aux->snapshot) {
		aux->snap_written += size;
		size = min(aux->snap_written, aux->size);
		start = new_head - size;
		flags |= TRACEBUF_AUX_F_OVERWRITE;
		aux->snap_written = 0;
	}
	if (!size && !(flags & ~TRACEBUF_AUX_F_OVERWRITE))
		return;
	if (!tracebuf_reserve(rb, TRACEBUF_REC_AUX, sizeof(*rec), &wr)) {
		rec = (struct tracebuf_rec_aux *)wr.rec;
		rec->aux_offset = start;
		rec->aux_size = size;
		rec->flags = flags;
		tracebuf_commit(rb, &wr);
	}
	WRITE_ONCE(s->aux_head, new_head);	/* for poll: tb_aux_ready() */
	s->aux_published += size;
	WRITE_ONCE(ctl->aux_published, s->aux_published);
	if (flags & TRACEBUF_AUX_F_TRUNCATED)
		WRITE_ONCE(ctl->aux_truncations, ++s->aux_truncations);
	if (flags & TRACEBUF_AUX_F_COLLISION)
		WRITE_ONCE(ctl->aux_collisions, ++s->aux_collisions);
	smp_store_release(&ctl->aux_head, new_head);	/* (F), pairs with (G) */
	if (tb_aux_ready(s))
		tb_ring_kick(rb);
}

/* Unread AUX bytes at or above the AUX watermark (from the control page). */
bool tb_aux_ready(struct tb_session *s)
{
	/* Pairs with the release in tb_session_create_ring(). */
	struct tb_ring *rb = smp_load_acquire(&s->ring);
	u64 head, tail, wm = READ_ONCE(s->aux_watermark);

	if (!rb || !wm)
		return false;
	head = READ_ONCE(s->aux_head);		/* the kernel's, not the page's */
	tail = READ_ONCE(rb->ctl->aux_tail);
	/* A tail beyond the head (garbage) reads as nothing unread. */
	return (s64)(head - tail) >= (s64)wm;
}
