// SPDX-License-Identifier: GPL-2.0
/*
 * The AUX ring: allocation, the mapping at ctl->aux_offset, and publishing
 * what the hardware wrote.
 *
 * Lifetime. The AUX area is created by its first mmap (under s->lock) and
 * counted by its VMAs (aux->mmap_count, under s->lock: vm_ops open/close).
 * When the last AUX VMA goes away the core stops the hardware on every CPU
 * (tb_trace_disable: synchronous IPIs, drain timer cancelled) and only
 * then frees the backend's tables and the pages. It can then be mapped
 * again, with any valid offset and size.
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
#include "backend.h"
#include "ring.h"

/* Largest chunk we ask the page allocator for: 1 MiB. */
#define TB_AUX_MAX_ORDER	8

static void tb_aux_free(struct tb_aux *aux)
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
 */
static struct tb_aux *tb_aux_alloc(struct tb_session *s, u64 size, bool snapshot)
{
	unsigned int n = size >> PAGE_SHIFT, max_order;
	bool contiguous = false;
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
	if (s->backend->aux_contiguous && s->backend->aux_contiguous(s)) {
		/* One chunk (n is a power of two), at most 2^TB_AUX_MAX_ORDER pages. */
		if (ilog2(n) > TB_AUX_MAX_ORDER)
			goto fail;
		contiguous = true;
	} else if (!snapshot) {
		max_order = min_t(unsigned int, max_order, n >= 8 ? ilog2(n / 8) : 0);
	}
	while (aux->nr_pages < n) {
		unsigned int order = min_t(unsigned int, max_order,
					   ilog2(n - aux->nr_pages));
		struct page *page;
		unsigned int i;

		for (;;) {
			page = alloc_pages_node(s->node, GFP_KERNEL | __GFP_ZERO |
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

/* Under s->lock: the last AUX VMA is gone. */
static void tb_aux_destroy(struct tb_session *s)
{
	struct tb_aux *aux = s->aux;
	unsigned long flags;

	tb_trace_disable(s);	/* every CPU stopped, timer and works idle */
	spin_lock_irqsave(&s->trace_lock, flags);
	s->aux = NULL;		/* no drain can start: nothing is active */
	spin_unlock_irqrestore(&s->trace_lock, flags);
	WRITE_ONCE(s->aux_watermark, 0);
	tb_ring_flags(s->ring, 0, TRACEBUF_CTL_F_AUX_SNAPSHOT);
	if (s->backend->free_aux)
		s->backend->free_aux(aux);
	tb_aux_free(aux);
}

static void tb_aux_vm_open(struct vm_area_struct *vma)
{
	struct tb_session *s = vma->vm_file->private_data;

	mutex_lock(&s->lock);
	s->aux->mmap_count++;
	mutex_unlock(&s->lock);
}

static void tb_aux_vm_close(struct vm_area_struct *vma)
{
	struct tb_session *s = vma->vm_file->private_data;

	mutex_lock(&s->lock);
	if (!--s->aux->mmap_count)
		tb_aux_destroy(s);
	mutex_unlock(&s->lock);
}

static int tb_aux_vm_may_split(struct vm_area_struct *vma, unsigned long addr)
{
	return -EINVAL;		/* partial munmap: all or nothing */
}

static const struct vm_operations_struct tb_aux_vm_ops = {
	.open		= tb_aux_vm_open,
	.close		= tb_aux_vm_close,
	.may_split	= tb_aux_vm_may_split,
};

int tb_aux_mmap(struct tb_session *s, struct vm_area_struct *vma)
{
	unsigned long len = vma->vm_end - vma->vm_start;
	bool snapshot = !(vma->vm_flags & VM_WRITE);
	struct tracebuf_ctl *ctl;
	struct tb_aux *aux;
	u64 off, size;
	unsigned int i;
	int ret;

	mutex_lock(&s->lock);
	ret = -ENXIO;
	if (!s->ring || atomic_read(&s->consumer) != TB_CONSUMER_MMAP)
		goto out;
	ret = -ENODEV;
	if (!s->backend)
		goto out;
	ctl = s->ring->ctl;
	/* Read once: the control page is the user's to scribble on. */
	off = READ_ONCE(ctl->aux_offset);
	size = READ_ONCE(ctl->aux_size);
	ret = -EINVAL;
	if (off != (u64)vma->vm_pgoff << PAGE_SHIFT || off & ~PAGE_MASK ||
	    off < PAGE_SIZE + 2 * s->ring->size || size != len ||
	    size < PAGE_SIZE || size > TRACEBUF_AUX_SIZE_MAX ||
	    !is_power_of_2(size))
		goto out;
	aux = s->aux;
	if (aux && (aux->pgoff != vma->vm_pgoff || aux->size != size ||
		    aux->snapshot != snapshot))
		goto out;
	if (!aux) {
		/* A watermark the ring can never reach: -EINVAL. */
		if (s->setup.aux_watermark > size)
			goto out;
		ret = -ENOMEM;
		aux = tb_aux_alloc(s, size, snapshot);
		if (!aux)
			goto out;
		aux->pgoff = vma->vm_pgoff;
		aux->watermark = s->setup.aux_watermark ?: size / 2;
		ret = s->backend->setup_aux(s, aux);
		if (ret) {
			tb_aux_free(aux);
			goto out;
		}
		/* Positions run on from where a previous AUX area ended. */
		aux->tail = s->aux_head;
		WRITE_ONCE(ctl->aux_tail, s->aux_head);
		WRITE_ONCE(ctl->aux_head, s->aux_head);
		/* Snapshot mode has no AUX watermark: nothing is consumed. */
		WRITE_ONCE(s->aux_watermark, snapshot ? 0 : aux->watermark);
		if (snapshot)
			tb_ring_flags(s->ring, TRACEBUF_CTL_F_AUX_SNAPSHOT, 0);
		s->aux = aux;
	}

	tb_vm_flags_set(vma, VM_DONTCOPY | VM_DONTEXPAND | VM_DONTDUMP);
	tb_vm_flags_clear(vma, VM_MAYEXEC);
	if (snapshot)
		tb_vm_flags_clear(vma, VM_MAYWRITE);
	ret = 0;
	for (i = 0; !ret && i < aux->nr_pages; i++)
		ret = vm_insert_page(vma, vma->vm_start + i * PAGE_SIZE,
				     aux->pages[i]);
	if (ret) {
		/* mmap fails: no VMA, so no close; drop a fresh area now. */
		if (!aux->mmap_count) {
			s->backend->free_aux(aux);
			s->aux = NULL;
			tb_aux_free(aux);
		}
		goto out;
	}
	aux->mmap_count++;
	vma->vm_ops = &tb_aux_vm_ops;
out:
	mutex_unlock(&s->lock);
	return ret;
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
