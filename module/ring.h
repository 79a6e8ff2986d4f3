/* SPDX-License-Identifier: GPL-2.0 */
/*
 * The data ring: a lock-free, multi-producer, NMI-safe record ring shared
 * with userspace. The writer API below is what every producer (backends,
 * user markers, tests-only producers) uses; it is exported for modules.
 */
#ifndef _TRACEBUF_RING_H
#define _TRACEBUF_RING_H

#include <linux/atomic.h>
#include <linux/irq_work.h>
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

/* The writer API, for any context including NMI. */
int tracebuf_reserve(struct tb_ring *rb, u16 type, u32 size,
		     struct tracebuf_wr *wr);
u32 tracebuf_reserve_batch(struct tb_ring *rb, u16 type, u32 size, u32 n,
			   struct tracebuf_wr *wr);
void tracebuf_commit(struct tb_ring *rb, struct tracebuf_wr *wr);
void tracebuf_discard(struct tb_ring *rb, struct tracebuf_wr *wr);

/* For tests-only producers: the ring of an open /dev/tracebuf file. */
struct tb_ring *tracebuf_ring_get(int fd);
void tracebuf_ring_put(struct tb_ring *rb);

#endif /* _TRACEBUF_RING_H */
