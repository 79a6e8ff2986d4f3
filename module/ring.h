/* SPDX-License-Identifier: GPL-2.0 */
/*
 * The data ring: a lock-free, multi-producer, NMI-safe record ring shared
 * with userspace. The writer API below is what every producer (backends,
 * user markers, tests-only producers) uses; it is exported for modules,
 * its single-record reserve and its commit inline here.
 */
#ifndef _TRACEBUF_RING_H
#define _TRACEBUF_RING_H

#include <linux/atomic.h>
#include <linux/irq_work.h>
#include <linux/lockdep.h>
#include <linux/math.h>
#include <linux/smp.h>
#include <linux/timekeeping.h>
#include <linux/types.h>
#include <linux/wait.h>
#include <tracebuf.h>

struct fasync_struct;
struct tb_session;

/* Who may need a wakeup (tb_ring_waiters() in ring.c). */
enum tb_waiters {
	TB_WAIT_NONE,		/* nobody: no wakeup is ever useful */
	TB_WAIT_LEVEL,		/* sleepers in poll/select/read, level epoll */
	TB_WAIT_EDGE,		/* SIGIO or edge-triggered epoll too */
};

/*
 * What the ring asks of its owner (session.c), so that this lower layer
 * never calls up into it: wake the consumers.
 */
struct tb_ring_ops {
	void (*wake)(struct tb_session *s, int band);	/* hardirq context */
};

/*
 * Where the owner's consumers wait, which every commit reads to know
 * whether anyone may need a wakeup (tb_ring_waiters(): loads, not a call
 * per record): sleepers in poll, select, level-triggered epoll and read()
 * are on @wq, SIGIO owners on *@fasync, and *@edge is set once an
 * edge-triggered epoll polled. The owner keeps them for the ring's life.
 */
struct tb_ring_waitq {
	wait_queue_head_t *wq;
	struct fasync_struct **fasync;
	bool *edge;
};

struct tb_ring {
	struct tb_session *s;		/* owner, opaque here; outlives the ring */
	const struct tb_ring_ops *ops;
	struct tb_ring_waitq waitq;	/* the owner's, see above */
	struct tracebuf_ctl *ctl;	/* the control page, kernel view */
	void *data;			/* data pages mapped twice (vmap) */
	u64 size;			/* data bytes, 2^n pages */
	u64 mask;			/* size - 1 */
	u64 watermark;			/* wake at this many unread bytes */
	u32 wakeup_events;		/* wake every N records (0: off) */
	/* Set once the consumer owns data_tail (writable mmap). */
	bool honour_tail;
	bool no_time;			/* TRACEBUF_SETUP_F_NO_TIME: time is 0 */
	bool compact;			/* TRACEBUF_SETUP_F_COMPACT: struct tracebuf_crec */
	u32 prefix;			/* bytes of a record's prefix in this format */
	/* sizeof(struct tracebuf_record) - prefix: where a writer's view starts */
	u32 shift;
	u32 lost_size;			/* bytes of a LOST record in this format */
	/*
	 * The kernel's copy of ctl->flags (TRACEBUF_CTL_F_*): changed from
	 * process and IRQ context, so by cmpxchg, and never read back from
	 * the user-writable page.
	 */
	atomic_t flags;

	/*
	 * Written by writers on every record: the reservation head (every
	 * byte below it belongs to a writer) and the commit count. Their
	 * own cache line: a consumer's stores (tail, wake_at) do not take it
	 * away from the writers on every record.
	 */
	atomic64_t head ____cacheline_aligned;
	atomic64_t written;		/* committed records, LOST excluded */
	/* Records that did not fit and are not yet in a LOST record. */
	atomic64_t lost_pending;
	atomic64_t lost_total;		/* every record that did not fit */
	atomic_t events;		/* committed records, for every-N */
	/* End of the latest every-N record: ready until the tail passes it. */
	atomic64_t n_mark;

	/*
	 * Written by the consumer's side (read(), poll, a writer that found
	 * the ring full), read by writers. Last consumer tail that passed
	 * validation (or read()'s tail).
	 */
	atomic64_t tail ____cacheline_aligned;
	/*
	 * The wakeup arm (tb_ring_wakeup()): a writer may wake the consumer
	 * only while the tail is at or past it. A consumer about to sleep
	 * sets it to its tail; the writer that wakes moves it ahead.
	 */
	atomic64_t wake_at;
	atomic64_t wakeups;

	struct irq_work wakeup_work;	/* NMI-safe path to wake_up/SIGIO */

	struct page *ctl_page;
	struct page **pages;		/* nr_pages data pages */
	unsigned int nr_pages;
};

/*
 * A reservation, from tracebuf_reserve() to commit or discard. The writer
 * keeps its own copy of what it needs after commit: the record itself may
 * be in pages the consumer can write.
 *
 * rec is the record as the standard layout has it (struct tracebuf_record
 * and the typed records built on it), whatever the ring's format: the
 * writer writes only the fields after the prefix, and the ring writes the
 * prefix. In a compact ring (TRACEBUF_SETUP_F_COMPACT) the record starts
 * with the 8-byte struct tracebuf_crec, so rec points rb->shift (16) bytes
 * before it: the fields after its prefix fall right after the compact
 * prefix, and its own prefix must not be touched.
 */
struct tracebuf_wr {
	struct tracebuf_record *rec;	/* the standard view, see above */
	u64 pos;			/* stream position of the record */
	u32 size;			/* bytes of each record in the ring */
	u32 count;			/* records reserved: 1, or a batch's */
	u16 flags;			/* rec->hdr.flags */
};

/* ring.c */
struct tb_ring *tb_ring_alloc(struct tb_session *s, const struct tb_ring_ops *ops,
			      const struct tb_ring_waitq *waitq, u64 size, int node,
			      u64 watermark, u32 wakeup_events, u32 setup_flags);
void tb_ring_free(struct tb_ring *rb);
bool tb_ring_readable(struct tb_ring *rb);
bool tb_ring_arm(struct tb_ring *rb);
ssize_t tb_ring_read(struct tb_ring *rb, char __user *buf, size_t len);
void tb_ring_kick(struct tb_ring *rb);
void tb_ring_flags(struct tb_ring *rb, u32 set, u32 clear);

/*
 * The writer API, for any context including NMI: tracebuf_reserve() and
 * tracebuf_commit() below, and these.
 */
u32 tracebuf_reserve_batch(struct tb_ring *rb, u16 type, u32 size, u32 n,
			   struct tracebuf_wr *wr);
void tracebuf_discard(struct tb_ring *rb, struct tracebuf_wr *wr);

/* For tests-only producers: the ring of an open /dev/tracebuf file. */
struct tb_ring *tracebuf_ring_get(int fd);
void tracebuf_ring_put(struct tb_ring *rb);

/*
 * The writer's fast paths, inline in every writer: a record costs no call
 * into the module (a call and its return are a good part of a record's
 * cost), only the atomic operations and stores it needs. What they do not
 * handle is out of line (ring.c): a ring that looks full or owes a LOST
 * record, every-N counting, a wakeup, a discard.
 */
int tb_reserve_one_slow(struct tb_ring *rb, u16 type, u32 size, struct tracebuf_wr *wr);
void tb_ring_count_events(struct tb_ring *rb, struct tracebuf_wr *wr);
void tb_ring_wakeup(struct tb_ring *rb, enum tb_waiters w);
void tb_commit_discarded(struct tb_ring *rb);

/* The commit word of the record at p, in the ring's format. */
static inline u32 *tb_commit_word(struct tb_ring *rb, void *p)
{
	return rb->compact ? &((struct tracebuf_crec *)p)->commit :
			     &((struct tracebuf_record *)p)->commit;
}

/* The prefix of the record at p, in the ring's format. */
static __always_inline void tb_rec_init(struct tb_ring *rb, void *p, u16 type,
					u32 size, u16 flags)
{
	struct tracebuf_record *rec = p;
	struct tracebuf_crec *c = p;

	if (rb->compact) {
		c->size = size;
		c->type = flags & TRACEBUF_REC_F_DISCARD ? TRACEBUF_CREC_SKIP : type;
		return;
	}
	rec->hdr.size = size;
	rec->hdr.type = type;
	rec->hdr.flags = flags;
	rec->cpu = raw_smp_processor_id();
	/* NMI-safe CLOCK_MONOTONIC, unless SETUP asked for no time. */
	rec->time = rb->no_time ? 0 : ktime_get_mono_fast_ns();
}

static __always_inline void tb_rec_commit(struct tb_ring *rb, void *p, u64 pos)
{
	/* (B), pairs with (C) */
	smp_store_release(tb_commit_word(rb, p), tracebuf_commit_tag(pos));
}

/*
 * The size in the ring of a record a writer asks for (standard layout,
 * struct tracebuf_record included), or 0 if the ring can never hold it
 * with room for a LOST record.
 */
static __always_inline u32 tb_rec_size(struct tb_ring *rb, u32 size)
{
	u32 max = rb->compact ? TRACEBUF_CREC_SIZE_MAX : U32_MAX & ~7U;

	if (size < sizeof(struct tracebuf_record) || size > U32_MAX - 7)
		return 0;
	size = round_up(size, 8) - rb->shift;
	return size <= max && size + rb->lost_size <= rb->size ? size : 0;
}

/* A reservation of k records of size bytes at pos, their prefixes written. */
static __always_inline void tb_wr_init(struct tb_ring *rb, struct tracebuf_wr *wr,
				       u64 pos, u16 type, u32 size, u32 k)
{
	void *p = rb->data + (pos & rb->mask);
	u32 i;

	wr->pos = pos;
	wr->rec = p - rb->shift;	/* the standard view (above) */
	wr->size = size;
	wr->flags = 0;
	wr->count = k;
	for (i = 0; i < k; i++)
		tb_rec_init(rb, p + i * size, type, size, 0);
}

/*
 * Who may need a wakeup, from the owner's wait state (struct
 * tb_ring_waitq), read in place: a commit pays loads, not a call. No
 * barrier of its own: the caller's (W) (tracebuf_commit()) or
 * tb_ring_kick()'s smp_mb() is the one wq_has_sleeper() would add,
 * pairing with the sleeper's set_current_state() and with tb_ring_arm().
 */
static __always_inline enum tb_waiters tb_ring_waiters(struct tb_ring *rb)
{
	if (READ_ONCE(*rb->waitq.fasync) || READ_ONCE(*rb->waitq.edge))
		return TB_WAIT_EDGE;
	/* No smp_mb() of its own: the caller's (W) orders it (see above). */
	return waitqueue_active(rb->waitq.wq) ? TB_WAIT_LEVEL : TB_WAIT_NONE;
}

/*
 * After a commit: tb_publish() of the commit count, starting from @v (what
 * the commit's atomic returned: no load), and of the head (E), in one
 * loop: store both, re-read both, again until neither moved.
 */
static __always_inline void tb_ring_publish_commit(struct tb_ring *rb, s64 v)
{
	struct tracebuf_ctl *ctl = rb->ctl;
	s64 h = atomic64_read(&rb->head), nv, nh;

	for (;;) {
		WRITE_ONCE(ctl->records_written, v);
		WRITE_ONCE(ctl->data_head, h);	/* (E) */
		/*
		 * (Q) The stores before the re-reads (a store may pass a later
		 * load, even on x86): pairs with the full barrier between the
		 * last writer's change of written or head (its (W), its
		 * reservation's cmpxchg) and its stores here. Either this
		 * writer re-reads that change, or that writer's stores land
		 * after these (ring.c: Q).
		 */
		smp_mb();
		nv = atomic64_read(&rb->written);
		nh = atomic64_read(&rb->head);
		if (nv == v && nh == h)
			return;
		v = nv;
		h = nh;
	}
}

/**
 * tracebuf_reserve - reserve room for one record
 * @rb: the ring
 * @type: enum tracebuf_rec_type
 * @size: record size in bytes, struct tracebuf_record included
 * @wr: filled with the record and its position
 *
 * The record's prefix (header, CPU, time) is filled in; the caller writes
 * the rest in place and calls tracebuf_commit() or tracebuf_discard().
 * Callable in any context, NMI included, but never preemptible: from here
 * to the commit the reservation holds back the consumer and every writer
 * behind it, so the caller keeps preemption off until it commits (lockdep
 * kernels check). Returns 0, -EINVAL for a size
 * the ring can never hold, or -ENOSPC when the ring is full: then the
 * record is counted as lost and reported by the next LOST record.
 */
static __always_inline int tracebuf_reserve(struct tb_ring *rb, u16 type, u32 size,
					    struct tracebuf_wr *wr)
{
	u64 head, tail;
	u32 rsize;

	/* Until tracebuf_commit(): see above. */
	lockdep_assert_preemption_disabled();
	rsize = tb_rec_size(rb, size);
	if (unlikely(!rsize))
		return -EINVAL;
	/*
	 * One record: tb_ring_reserve() without the batch's arithmetic.
	 * (A) through rb->tail: pairs with tb_ring_tail()'s cmpxchg.
	 */
	tail = atomic64_read_acquire(&rb->tail);
	head = atomic64_read(&rb->head);
	do {
		/*
		 * Full by the kernel's tail (or head - tail is beyond the
		 * ring: true too), or a LOST record to write first: the
		 * general path, which refreshes the tail.
		 */
		if (unlikely(head - tail > rb->size - rsize ||
			     atomic64_read(&rb->lost_pending)))
			return tb_reserve_one_slow(rb, type, rsize, wr);
	} while (!atomic64_try_cmpxchg(&rb->head, &head, head + rsize));
	tb_wr_init(rb, wr, head, type, rsize, 1);
	return 0;
}

/**
 * tracebuf_commit - make reserved records visible to the consumer
 * @rb: the ring
 * @wr: the reservation (one record, or a batch's wr->count records)
 */
static __always_inline void tracebuf_commit(struct tb_ring *rb, struct tracebuf_wr *wr)
{
	void *p = (void *)wr->rec + rb->shift;
	u32 i, n = wr->count, size = wr->size;
	enum tb_waiters w;

	for (i = 0; i < n; i++)
		tb_rec_commit(rb, p + i * size, wr->pos + (u64)i * size);
	if (unlikely(wr->flags & TRACEBUF_REC_F_DISCARD)) {
		tb_commit_discarded(rb);
		return;
	}
	if (rb->wakeup_events)
		tb_ring_count_events(rb, wr);
	/*
	 * (W) The count, with a fully ordered atomic (a value-returning RMW:
	 * Documentation/atomic_t.txt): the commit (B) and n_mark before
	 * tb_ring_waiters()' and tb_ring_wakeup()'s loads of the wait queue
	 * and wake_at; pairs with (P) in tb_ring_arm(): either the arming
	 * consumer sees this record, or this writer sees it armed. One atomic
	 * operation for the count and the barrier, which is also the count's
	 * change before its publication that (Q) pairs with.
	 */
	tb_ring_publish_commit(rb, atomic64_add_return(n, &rb->written));
	w = tb_ring_waiters(rb);
	if (w != TB_WAIT_NONE)
		tb_ring_wakeup(rb, w);
}

#endif /* _TRACEBUF_RING_H */
