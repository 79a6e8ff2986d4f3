// SPDX-License-Identifier: GPL-2.0
/*
 * The data ring: records from any number of writers, in any context (task,
 * softirq, hardirq, NMI), on any CPU, at once, without a lock.
 *
 * Layout. One control page (struct tracebuf_ctl) and 2^n data pages. The
 * data pages are vmap()ed twice back to back, and userspace maps them the
 * same way, so a record that crosses the end of the ring is still
 * contiguous for writer and reader alike; records are never split.
 *
 * Positions are free-running u64 byte counts; the offset in the ring is
 * pos & mask. rb->head is the reservation head: a writer owns
 * [old head, new head) after one successful cmpxchg. The consumer owns
 * ctl->data_tail; every byte in [tail, head) is a record being written or
 * committed, never free.
 *
 * Barrier protocol (every barrier below names its letter):
 *
 *   writer                                consumer
 *   t = LOAD_ACQUIRE(data_tail)     (A)   h = LOAD_ACQUIRE(data_head)
 *   if (head + size - t <= ring size)     c = LOAD_ACQUIRE(rec->commit) (C)
 *     cmpxchg(head, head + size)          if (c != tag(tail)) stop
 *     STORE record fields                 LOAD record
 *     STORE_RELEASE(rec->commit, tag) (B) STORE_RELEASE(data_tail)      (D)
 *     STORE(data_head)                (E)
 *
 * A pairs with D: the writer reuses space only after the consumer's loads
 * of it are done. B pairs with C: a consumer that sees the commit tag sees
 * the whole record. E is only a hint of how far to look (its partner is
 * the consumer's acquire of data_head, which orders nothing the protocol
 * relies on): the commit tag, a hash of the record's position, is what
 * tells a committed record from an uncommitted one or from the stale bytes
 * of an earlier lap. A consumer therefore stops at the first uncommitted
 * record even when data_head is already past it.
 *
 * Q, writers among themselves: the control page's counters (data_head,
 * records_written, records_lost, wakeups, flags) are published by a loop
 * that stores the kernel's value, re-reads it and stores again until it
 * did not move, so that the last store carries the last value. Q is a
 * full barrier between the store and the re-read; it pairs with the full
 * barrier every writer has between its change of the value (a fully
 * ordered atomic) and its own publication. Without either, a writer's
 * older value could land after another writer's whole loop and stay
 * (tools/memory-model/litmus-tests/R+fencembonceonces.litmus).
 *
 * read(2), the one consumer inside the kernel, trusts no byte it did not
 * see committed: it zeroes what it consumed before it gives the space
 * back (D), so stale payload (a user marker's, say) can never carry a
 * valid commit tag into the next lap, and it checks every size against
 * the reservation head anyway. An mmap consumer owns its pages; the kernel
 * never reads a record there.
 *
 * No silent loss: a writer that does not fit fails at once, and the loss
 * is counted (lost_total, lost_pending). The next writer that fits
 * reserves room for a LOST record in the same cmpxchg and claims the
 * pending count with xchg, so each lost record is reported exactly once:
 * records produced = records delivered + records lost.
 *
 * Wakeups go through irq_work, so NMI writers never touch a wait queue;
 * tb_ring_wakeup() says when a commit wakes.
 */
#include <linux/fs.h>
#include <linux/mm.h>
#include <linux/sched.h>
#include <linux/signal.h>
#include <linux/slab.h>
#include <linux/time.h>
#include <linux/timekeeping.h>
#include <linux/uaccess.h>
#include <linux/vmalloc.h>

#include "ring.h"

static_assert(sizeof(struct tracebuf_rec_lost) - sizeof(struct tracebuf_record) ==
	      sizeof(struct tracebuf_crec_lost) - sizeof(struct tracebuf_crec));

/*
 * Publish a kernel counter into the user-visible control page, starting
 * from @v, read from @src or returned by the atomic that changed it.
 * Concurrent publishers may store out of order; the loop makes the last
 * store carry the latest value, so the page converges once writers stop.
 * That needs (Q) below, and a full barrier between every change of @src
 * and its publication (a fully ordered atomic, or smp_mb()): see
 * tb_ring_publish_commit() in ring.h.
 */
static void tb_publish(atomic64_t *src, __u64 *dst, s64 v)
{
	s64 nv;

	for (;;) {
		WRITE_ONCE(*dst, v);
		smp_mb();	/* (Q), pairs with the full barrier after a change of @src */
		nv = atomic64_read(src);
		if (nv == v)
			return;
		v = nv;
	}
}

/*
 * The consumer's tail as the control page has it, validated against the
 * last good one (@cached): a value that is misaligned, moves backwards or
 * lies beyond @head is ignored and @cached returned. Nothing else in the
 * control page is ever read.
 */
static u64 tb_ring_tail_check(struct tb_ring *rb, u64 head, u64 cached)
{
	u64 t;

	if (!READ_ONCE(rb->honour_tail))
		return cached;
	t = smp_load_acquire(&rb->ctl->data_tail);	/* (A), pairs with the consumer's (D) */
	if ((t & 7) || t - cached > head - cached)
		return cached;
	return t;
}

/*
 * The consumer's tail, validated, and remembered in rb->tail: the kernel's
 * last good tail, which only ever moves forward. Writers check their
 * space against rb->tail and come here only when the ring looks full with
 * it (tb_ring_reserve()), so a record costs neither a load of the
 * consumer's cache line nor an update of rb->tail.
 */
static u64 tb_ring_tail(struct tb_ring *rb, u64 head)
{
	/* Pairs with the cmpxchg below and tb_ring_read()'s release. */
	u64 cached = atomic64_read_acquire(&rb->tail);
	u64 t = tb_ring_tail_check(rb, head, cached);

	/* Fully ordered: passes (A) on to writers that read rb->tail with acquire. */
	if (t != cached)
		atomic64_cmpxchg(&rb->tail, cached, t);
	return t;
}

/*
 * Readiness, for poll, read and the writers alike: the record at the tail
 * is committed (so a woken consumer always finds something to read), and
 * either the unread bytes reach the watermark or an every-N record is not
 * yet consumed. Level-triggered: it holds until the consumer moves its
 * tail. The commit word is read from a page an mmap consumer may write:
 * a scribbled word only makes that consumer's own poll wrong.
 */
static bool tb_ring_readable_at(struct tb_ring *rb, u64 head, u64 tail)
{
	u32 *commit = tb_commit_word(rb, rb->data + (tail & rb->mask));

	if (head == tail)
		return false;
	if (head - tail < rb->watermark &&
	    (s64)(atomic64_read(&rb->n_mark) - tail) <= 0)
		return false;
	return smp_load_acquire(commit) == tracebuf_commit_tag(tail);	/* (C) */
}

bool tb_ring_readable(struct tb_ring *rb)
{
	u64 head = atomic64_read(&rb->head);

	return tb_ring_readable_at(rb, head, tb_ring_tail(rb, head));
}

/* How far ahead a level-mode wakeup disarms: beyond any tail for 2^62 bytes. */
#define TB_DISARMED	BIT_ULL(62)

/*
 * The wakeup policy, the only place that decides whether a commit wakes.
 *
 * A wakeup is worth its cost (an irq_work, a wait-queue walk, an epoll
 * callback, a signal) only when it ends a sleep. So a writer wakes only
 * when the ring is readable (tb_ring_readable_at()) and armed: the tail is
 * at or past wake_at. Waking moves wake_at ahead with a cmpxchg, so of
 * several writers that find the ring ready one wakes, and the others see
 * it disarmed. Who re-arms depends on who waits:
 *
 *  - poll, select, level-triggered epoll and blocking read re-arm in
 *    tb_ring_arm(), when they find the ring not readable and are about to
 *    sleep; the wakeup disarms for good (TB_DISARMED). A consumer that
 *    never sleeps is never woken, however fast records come.
 *  - SIGIO and edge-triggered epoll are not seen sleeping: the consumer
 *    drains and sleeps without asking us. The wakeup then arms again once
 *    the tail passes the head it was sent at, so the next one needs the
 *    readiness to come back after that: at most one per data_watermark
 *    bytes or per wakeup_events records.
 *
 * This is BPF's ring buffer idea (kernel/bpf/ringbuf.c,
 * bpf_ringbuf_commit(): wake only when the consumer has caught up with the
 * committed record) made exact for sleepers, and perf's watermark and
 * wakeup_events (kernel/events/ring_buffer.c) kept as the readiness.
 */
void tb_ring_wakeup(struct tb_ring *rb, enum tb_waiters w)
{
	u64 head, tail, at;

	/*
	 * @w is tb_ring_waiters(), not TB_WAIT_NONE. The caller's (W)
	 * (tracebuf_commit()) has ordered the commit (B) and n_mark before
	 * the loads of the wait queue and wake_at. Out of line: a commit
	 * nobody waits for does not save the registers this needs.
	 */
	at = atomic64_read(&rb->wake_at);
	head = atomic64_read(&rb->head);
	/* Level mode, disarmed: no valid tail (at most the head) reaches it. */
	if (w != TB_WAIT_EDGE && (s64)(at - head) > 0)
		return;
	/* The consumer's tail as it is now, without updating rb->tail. */
	tail = tb_ring_tail_check(rb, head, atomic64_read_acquire(&rb->tail));
	do {
		/*
		 * Armed: the tail reached wake_at. In edge mode a wake_at past
		 * the head is a level-mode disarm from before SIGIO or EPOLLET
		 * came: armed too.
		 */
		if ((s64)(tail - at) < 0 &&
		    (w != TB_WAIT_EDGE || (s64)(at - head) <= 0))
			return;
		if (!tb_ring_readable_at(rb, head, tail))
			return;
	} while (!atomic64_try_cmpxchg(&rb->wake_at, &at,
				       w == TB_WAIT_EDGE ? head : tail + TB_DISARMED));
	irq_work_queue(&rb->wakeup_work);
}
EXPORT_SYMBOL_GPL(tb_ring_wakeup);

/*
 * A consumer about to sleep (poll, blocking read): readable now? If not,
 * arm the wakeup. Called after the consumer is on the wait queue.
 */
bool tb_ring_arm(struct tb_ring *rb)
{
	u64 head = atomic64_read(&rb->head);
	u64 tail = tb_ring_tail(rb, head);

	if (tb_ring_readable_at(rb, head, tail))
		return true;
	atomic64_set(&rb->wake_at, tail);
	/* (P) The arm before the re-check; pairs with (W) in tracebuf_commit(). */
	smp_mb();
	return tb_ring_readable(rb);
}

static void tb_ring_wakeup_work(struct irq_work *work)
{
	struct tb_ring *rb = container_of(work, struct tb_ring, wakeup_work);

	/* Fully ordered, for (Q): the count before its publication. */
	tb_publish(&rb->wakeups, &rb->ctl->wakeups, atomic64_inc_return(&rb->wakeups));
	rb->ops->wake(rb->s, POLL_IN);
}

/* Set and clear control-page flags, from any context. */
void tb_ring_flags(struct tb_ring *rb, u32 set, u32 clear)
{
	int old = atomic_read(&rb->flags), v;

	while (!atomic_try_cmpxchg(&rb->flags, &old, (old & ~clear) | set))
		;
	/* As tb_publish(): the last store carries the latest value. */
	do {
		v = atomic_read(&rb->flags);
		WRITE_ONCE(rb->ctl->flags, v);
		smp_mb();	/* (Q), pairs with the full barrier of the cmpxchg above */
	} while (atomic_read(&rb->flags) != v);
}

/*
 * Something other than a record (AUX data, an error) may have made the
 * session ready: wake the consumer, through the same NMI-safe irq_work.
 */
void tb_ring_kick(struct tb_ring *rb)
{
	/*
	 * What made it ready before the wait-queue check; pairs with the
	 * sleeper's set_current_state().
	 */
	smp_mb();
	if (tb_ring_waiters(rb) != TB_WAIT_NONE)
		irq_work_queue(&rb->wakeup_work);
}

/* Move the every-N mark forward to end (never backwards). */
static void tb_ring_mark(struct tb_ring *rb, u64 end)
{
	s64 old = atomic64_read(&rb->n_mark);

	while ((s64)(end - old) > 0 && !atomic64_try_cmpxchg(&rb->n_mark, &old, end))
		;
}

/*
 * The head, after a discard: its change was the reservation's cmpxchg,
 * fully ordered, as (Q) needs.
 */
static void tb_ring_publish_head(struct tb_ring *rb)
{
	tb_publish(&rb->head, &rb->ctl->data_head, atomic64_read(&rb->head));	/* (E) */
}

/* Count n records that did not fit: the next LOST record reports them. */
static void tb_ring_lose(struct tb_ring *rb, u32 n)
{
	atomic64_add(n, &rb->lost_pending);
	/* Fully ordered, for (Q): the count before its publication. */
	tb_publish(&rb->lost_total, &rb->ctl->records_lost,
		   atomic64_add_return(n, &rb->lost_total));
}

/* Free bytes between head and tail; 0 rather than a wrapped difference. */
static u64 tb_ring_room(struct tb_ring *rb, u64 head, u64 tail)
{
	u64 used = head - tail;

	return used < rb->size ? rb->size - used : 0;
}

/*
 * Reserve up to n records of size bytes in one cmpxchg of the head, after
 * a LOST record if losses are pending. Returns how many fit (0..n); the
 * rest are counted lost. *pos is the first record's position.
 *
 * The space check uses rb->tail, the last tail the kernel validated, and
 * reads the consumer's only when that one says the ring is full: a tail
 * that lags only makes the ring look fuller, and the refresh makes it
 * exact before anything is counted lost.
 */
static u32 tb_ring_reserve(struct tb_ring *rb, u32 size, u32 n, u64 *pos)
{
	/* (A) through rb->tail: pairs with tb_ring_tail()'s cmpxchg. */
	u64 tail = atomic64_read_acquire(&rb->tail);
	u64 head = atomic64_read(&rb->head);
	u64 need, room, lost;
	u32 k;

	do {
		lost = atomic64_read(&rb->lost_pending);
		need = lost ? rb->lost_size : 0;
		room = tb_ring_room(rb, head, tail);
		if (unlikely(room < need + size)) {
			tail = tb_ring_tail(rb, head);
			room = tb_ring_room(rb, head, tail);
			if (room < need + size) {
				tb_ring_lose(rb, n);
				return 0;
			}
		}
		k = n == 1 ? 1 : min_t(u64, n, div_u64(room - need, size));
	} while (!atomic64_try_cmpxchg(&rb->head, &head, head + need + (u64)k * size));
	if (unlikely(k < n))
		tb_ring_lose(rb, n - k);

	if (unlikely(lost)) {
		void *p = rb->data + (head & rb->mask);
		/* The standard view: its fields after the prefix (see ring.h). */
		struct tracebuf_rec_lost *l = p - rb->shift;
		/* Claim what is pending now; another writer may have got it. */
		u64 c = atomic64_xchg(&rb->lost_pending, 0);

		tb_rec_init(rb, p, TRACEBUF_REC_LOST, rb->lost_size,
			    c ? 0 : TRACEBUF_REC_F_DISCARD);
		l->count = c;
		l->reason = TRACEBUF_LOST_RING_FULL;
		l->flags = 0;
		tb_rec_commit(rb, p, head);
		head += rb->lost_size;
	}
	*pos = head;
	return k;
}

/* tracebuf_reserve() on a ring that looks full or owes a LOST record. */
int tb_reserve_one_slow(struct tb_ring *rb, u16 type, u32 size, struct tracebuf_wr *wr)
{
	u64 pos;

	if (!tb_ring_reserve(rb, size, 1, &pos))
		return -ENOSPC;
	tb_wr_init(rb, wr, pos, type, size, 1);
	return 0;
}
EXPORT_SYMBOL_GPL(tb_reserve_one_slow);

/**
 * tracebuf_reserve_batch - reserve room for several records at once
 * @rb: the ring
 * @type: enum tracebuf_rec_type of every record
 * @size: bytes of each record, struct tracebuf_record included
 * @n: records wanted
 * @wr: filled with the first record, its position and the count
 *
 * For a writer that has many records to write at once: one atomic
 * operation on the shared head for all of them instead of one each. The
 * records are back to back, wr->size bytes apart (record i at
 * (void *)wr->rec + i * wr->size), each contiguous, prefixes filled in.
 * Returns how many were reserved (wr->count), possibly fewer than n when
 * the ring is nearly full: the rest are counted lost, as by
 * tracebuf_reserve(). 0 (all n lost, or a size the ring can never hold)
 * leaves nothing to commit. The same context rules as tracebuf_reserve();
 * tracebuf_commit() commits them all.
 */
u32 tracebuf_reserve_batch(struct tb_ring *rb, u16 type, u32 size, u32 n,
			   struct tracebuf_wr *wr)
{
	u32 k;
	u64 pos;

	/* Until tracebuf_commit(): see tracebuf_reserve(). */
	lockdep_assert_preemption_disabled();
	size = tb_rec_size(rb, size);
	if (!size || !n)
		return 0;
	k = tb_ring_reserve(rb, size, n, &pos);
	tb_wr_init(rb, wr, pos, type, size, k);
	return k;
}
EXPORT_SYMBOL_GPL(tracebuf_reserve_batch);

/* The every-N mark, for k records ending at end: each N-th is a mark. */
void tb_ring_count_events(struct tb_ring *rb, struct tracebuf_wr *wr)
{
	u32 n = rb->wakeup_events, k = wr->count;
	u32 after = atomic_add_return(k, &rb->events);
	u32 last = after - after % n;	/* the latest multiple of n */

	/* The last N-th record among these k: mark its end. */
	if (after - last < k)
		tb_ring_mark(rb, wr->pos + (u64)(k - (after - last)) * wr->size);
}
EXPORT_SYMBOL_GPL(tb_ring_count_events);

/* tracebuf_commit() of a discard, which counts nothing. */
void tb_commit_discarded(struct tb_ring *rb)
{
	enum tb_waiters w;

	/*
	 * (W) as in tracebuf_commit(), without a count to carry it: the (Q)
	 * smp_mb() in tb_publish(), after the commit (B) and before the
	 * loads of tb_ring_waiters() and tb_ring_wakeup().
	 */
	tb_ring_publish_head(rb);
	w = tb_ring_waiters(rb);
	if (w != TB_WAIT_NONE)
		tb_ring_wakeup(rb, w);
}
EXPORT_SYMBOL_GPL(tb_commit_discarded);

/**
 * tracebuf_discard - give a reservation back
 * @rb: the ring
 * @wr: the reservation
 *
 * The space is consumed as a record the reader skips; it is neither
 * written nor lost.
 */
void tracebuf_discard(struct tb_ring *rb, struct tracebuf_wr *wr)
{
	void *p = (void *)wr->rec + rb->shift;
	u32 i;

	wr->flags |= TRACEBUF_REC_F_DISCARD;
	for (i = 0; i < wr->count; i++) {
		struct tracebuf_record *rec = p + i * wr->size;

		/* Compact: type TRACEBUF_CREC_SKIP; standard: the type stays. */
		if (rb->compact)
			((struct tracebuf_crec *)rec)->type = TRACEBUF_CREC_SKIP;
		else
			rec->hdr.flags = wr->flags;
	}
	tracebuf_commit(rb, wr);
}
EXPORT_SYMBOL_GPL(tracebuf_discard);

/*
 * read(2): copy whole committed records and consume them. The caller
 * serialises readers (one tail owner).
 */
ssize_t tb_ring_read(struct tb_ring *rb, char __user *buf, size_t len)
{
	u64 tail = atomic64_read(&rb->tail);
	size_t done = 0;

	for (;;) {
		u64 head = atomic64_read(&rb->head);
		struct tracebuf_record *rec;
		struct tracebuf_crec *c;
		bool skip;
		u32 size;

		if (tail == head)
			break;
		rec = rb->data + (tail & rb->mask);
		c = (struct tracebuf_crec *)rec;
		/* (C) */
		if (smp_load_acquire(tb_commit_word(rb, rec)) != tracebuf_commit_tag(tail))
			break;
		if (rb->compact) {
			size = READ_ONCE(c->size);
			skip = READ_ONCE(c->type) == TRACEBUF_CREC_SKIP;
		} else {
			size = READ_ONCE(rec->hdr.size);
			skip = READ_ONCE(rec->hdr.flags) & TRACEBUF_REC_F_DISCARD;
		}
		/* Never past the reservations, never past the double map. */
		if (size < rb->prefix || size & 7 || size > head - tail)
			return done ? done : -EIO;
		if (!skip) {
			if (size > len - done) {
				if (!done)
					return -EINVAL;
				break;
			}
			if (copy_to_user(buf + done, rec, size))
				return done ? done : -EFAULT;
			done += size;
		}
		/* No stale byte may look committed in the next lap. */
		memset(rec, 0, size);
		tail += size;
		/* (D): the loads above are done before writers reuse the space. */
		atomic64_set_release(&rb->tail, tail);
		WRITE_ONCE(rb->ctl->data_tail, tail);
	}
	return done;
}

struct tb_ring *tb_ring_alloc(struct tb_session *s, const struct tb_ring_ops *ops,
			      const struct tb_ring_waitq *waitq, u64 size, int node,
			      u64 watermark, u32 wakeup_events, u32 setup_flags)
{
	unsigned int i, n = size >> PAGE_SHIFT;
	struct page **map;
	struct tb_ring *rb;

	rb = kzalloc_node(sizeof(*rb), GFP_KERNEL, node);
	if (!rb)
		return NULL;
	rb->s = s;
	rb->ops = ops;
	rb->waitq = *waitq;
	rb->size = size;
	rb->mask = size - 1;
	rb->watermark = watermark ? watermark : size / 2;
	rb->wakeup_events = wakeup_events;
	rb->no_time = setup_flags & TRACEBUF_SETUP_F_NO_TIME;
	rb->compact = setup_flags & TRACEBUF_SETUP_F_COMPACT;
	rb->prefix = rb->compact ? sizeof(struct tracebuf_crec) : sizeof(struct tracebuf_record);
	rb->shift = sizeof(struct tracebuf_record) - rb->prefix;
	rb->lost_size = sizeof(struct tracebuf_rec_lost) - rb->shift;
	init_irq_work(&rb->wakeup_work, tb_ring_wakeup_work);

	/* __GFP_ACCOUNT: the memory cgroup sees what a session pins. */
	rb->ctl_page = alloc_pages_node(node, GFP_KERNEL_ACCOUNT | __GFP_ZERO, 0);
	rb->pages = kvcalloc(n, sizeof(*rb->pages), GFP_KERNEL);
	map = kvcalloc(2 * n, sizeof(*map), GFP_KERNEL);
	if (!rb->ctl_page || !rb->pages || !map)
		goto fail;
	for (i = 0; i < n; i++) {
		rb->pages[i] = alloc_pages_node(node, GFP_KERNEL_ACCOUNT | __GFP_ZERO, 0);
		if (!rb->pages[i])
			goto fail;
		rb->nr_pages++;
		map[i] = rb->pages[i];
		map[i + n] = rb->pages[i];
	}
	rb->data = vmap(map, 2 * n, VM_MAP, PAGE_KERNEL);
	if (!rb->data)
		goto fail;
	kvfree(map);

	rb->ctl = page_address(rb->ctl_page);
	rb->ctl->abi_version = TRACEBUF_ABI_VERSION;
	rb->ctl->ctl_size = sizeof(*rb->ctl);
	rb->ctl->page_size = PAGE_SIZE;
	rb->ctl->data_offset = PAGE_SIZE;
	rb->ctl->data_size = size;
	rb->ctl->clock_id = CLOCK_MONOTONIC;
	if (rb->compact)
		tb_ring_flags(rb, TRACEBUF_CTL_F_COMPACT, 0);
	return rb;
fail:
	kvfree(map);
	tb_ring_free(rb);
	return NULL;
}

void tb_ring_free(struct tb_ring *rb)
{
	unsigned int i;

	if (!rb)
		return;
	irq_work_sync(&rb->wakeup_work);
	if (rb->data)
		vunmap(rb->data);
	for (i = 0; i < rb->nr_pages; i++)
		__free_page(rb->pages[i]);
	kvfree(rb->pages);
	if (rb->ctl_page)
		__free_page(rb->ctl_page);
	kfree(rb);
}
