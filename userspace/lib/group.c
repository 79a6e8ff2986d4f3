/* SPDX-License-Identifier: (LGPL-2.1 OR MIT) */
/*
 * A group of sessions consumed together (tracebuf_group_new(3)), in the
 * shape of libbpf's ring_buffer__new/__add/__poll/__consume: one epoll
 * instance inside, a callback per record and per AUX span, the span's
 * bytes straight from the AUX mapping (no copy) and released to the
 * hardware once the callback returned. Consuming uses the inline ring
 * iterator of libtracebuf.h (tracebuf_peek, tracebuf_advance,
 * tracebuf_aux_head, tracebuf_aux_release); nothing else reads the rings.
 */
#include <errno.h>
#include <limits.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>
#include <sys/epoll.h>
#include <unistd.h>

#include "lib.h"

/* An AUX record ahead of aux_head: try again within this many ms. */
#define TB_PENDING_MS	1

struct tb_member {
	struct tracebuf_session *s;	/* NULL: a plain fd (tracebuf_group_add_fd) */
	int fd;
	struct tracebuf_group_ops ops;
	void *ctx;
	int (*fd_fn)(void *ctx, int fd, unsigned int events);
	unsigned int events;		/* TRACEBUF_EV_* seen (each reported once) */
	int in_epoll;
	int pending;			/* an AUX record waits for its aux_head */
	uint64_t stream;		/* AUX bytes delivered so far */
	uint64_t lost;			/* LOST AUX_OVERRUN bytes since the last span */
	unsigned int lost_at_least;
};

struct tracebuf_group {
	int epfd;
	struct tb_member *m;
	unsigned int nr, cap;
	int busy;			/* in poll or consume: members stay put */
};

int tb_opts_check(const void *opts, size_t known)
{
	const unsigned char *p = opts;
	size_t sz, i;

	if (!opts)
		return 0;
	memcpy(&sz, opts, sizeof(sz));
	if (sz < sizeof(size_t))
		return -EINVAL;
	for (i = known; i < sz; i++)
		if (p[i])
			return -E2BIG;
	return 0;
}

int tracebuf_group_new(const struct tracebuf_group_opts *opts, struct tracebuf_group **group)
{
	struct tracebuf_group *g;
	int ret;

	if (!group)
		return -EINVAL;
	*group = NULL;
	ret = tb_opts_check(opts, sizeof(*opts));
	if (ret)
		return ret;
	g = calloc(1, sizeof(*g));
	if (!g)
		return -ENOMEM;
	g->epfd = epoll_create1(EPOLL_CLOEXEC);
	if (g->epfd < 0) {
		ret = -errno;
		free(g);
		return ret;
	}
	*group = g;
	return 0;
}

void tracebuf_group_free(struct tracebuf_group *g)
{
	if (!g)
		return;
	/* The sessions and fds are the caller's: they stay open. */
	close(g->epfd);
	free(g->m);
	free(g);
}

int tracebuf_group_epoll_fd(const struct tracebuf_group *g)
{
	return g ? g->epfd : -EINVAL;
}

/* A new member, watched for 'events'; its index, or a negative errno. */
static int tb_add(struct tracebuf_group *g, int fd, uint32_t events)
{
	struct epoll_event ev;
	unsigned int i;

	if (g->busy)
		return -EBUSY;		/* from a callback: the array would move */
	if (g->nr == UINT_MAX / 2)
		return -ENOSPC;
	for (i = 0; i < g->nr; i++)
		if (g->m[i].fd == fd)
			return -EEXIST;
	if (g->nr == g->cap) {
		unsigned int cap = g->cap ? g->cap * 2 : 8;
		struct tb_member *m = realloc(g->m, cap * sizeof(*m));

		if (!m)
			return -ENOMEM;
		g->m = m;
		g->cap = cap;
	}
	memset(&ev, 0, sizeof(ev));
	ev.events = events;
	ev.data.u64 = g->nr;	/* an index: the array moves when it grows */
	if (epoll_ctl(g->epfd, EPOLL_CTL_ADD, fd, &ev))
		return -errno;
	memset(&g->m[g->nr], 0, sizeof(g->m[g->nr]));
	g->m[g->nr].fd = fd;
	g->m[g->nr].in_epoll = 1;
	return (int)g->nr++;
}

int tracebuf_group_add(struct tracebuf_group *g, struct tracebuf_session *s,
		       const struct tracebuf_group_ops *ops, void *ctx)
{
	struct tb_member *m;
	int ret, i;

	if (!g || !s || !ops)
		return -EINVAL;
	ret = tb_opts_check(ops, sizeof(*ops));
	if (ret)
		return ret;
	if (!TB_OPT(ops, on_record, NULL))
		return -EINVAL;
	if (s->fd < 0)
		return -EBADF;
	if (!s->ctl)
		return -ENXIO;		/* nothing to consume: map it first */
	/* Callbacks get struct tracebuf_record: not compact records. */
	if (s->ctl->flags & TRACEBUF_CTL_F_COMPACT)
		return -EPROTONOSUPPORT;
	i = tb_add(g, s->fd, EPOLLIN);
	if (i < 0)
		return i;
	m = &g->m[i];
	m->s = s;
	m->ops.sz = sizeof(m->ops);
	m->ops.on_record = TB_OPT(ops, on_record, NULL);
	m->ops.on_span = TB_OPT(ops, on_span, NULL);
	m->ops.on_event = TB_OPT(ops, on_event, NULL);
	m->ctx = ctx;
	return 0;
}

int tracebuf_group_add_fd(struct tracebuf_group *g, int fd,
			  int (*fn)(void *ctx, int fd, unsigned int events), void *ctx)
{
	int i;

	if (!g || !fn)
		return -EINVAL;
	if (fd < 0)
		return -EBADF;
	i = tb_add(g, fd, EPOLLIN);
	if (i < 0)
		return i;
	g->m[i].fd_fn = fn;
	g->m[i].ctx = ctx;
	return 0;
}

/*
 * Report events not reported yet: on_event, or the errno when there is no
 * callback. A session that hung up or stopped on an error leaves epoll (it
 * would be ready forever) but is still consumed by tracebuf_group_consume().
 */
static int tb_event(struct tracebuf_group *g, struct tb_member *m, unsigned int ev)
{
	ev &= ~m->events;
	if (!ev)
		return 0;
	m->events |= ev;
	if ((ev & (TRACEBUF_EV_ERROR | TRACEBUF_EV_HANGUP)) && m->in_epoll) {
		/* Fails only if the fd is no longer registered: nothing to undo. */
		epoll_ctl(g->epfd, EPOLL_CTL_DEL, m->fd, NULL);
		m->in_epoll = 0;
	}
	if (m->ops.on_event)
		return m->ops.on_event(m->ctx, m->s, ev);
	if (ev & TRACEBUF_EV_CORRUPT)
		return -EBADMSG;
	if (ev & TRACEBUF_EV_ERROR)
		return -EIO;
	return -EPIPE;
}

/* The span of AUX record a, straight from the mapping. */
static void tb_span(struct tb_member *m, const struct tracebuf_rec_aux *a,
		    struct tracebuf_span *sp)
{
	struct tracebuf_session *s = m->s;
	uint64_t off = a->aux_offset & (s->aux_size - 1);

	memset(sp, 0, sizeof(*sp));
	sp->rec = a;
	sp->offset = a->aux_offset;
	sp->size = a->aux_size;
	sp->flags = a->flags;
	/* Bytes published with no record (it did not fit): lost. */
	if (!(s->aux_flags & TRACEBUF_MAP_READONLY) && (int64_t)(a->aux_offset - s->aux_tail) > 0)
		sp->gap_bytes = a->aux_offset - s->aux_tail;
	sp->lost_bytes = sp->gap_bytes + m->lost;
	sp->lost_at_least = m->lost_at_least;
	sp->stream_offset = m->stream;
	if (!a->aux_size)
		return;
	sp->nr_parts = 1;
	sp->part[0] = tracebuf_aux_ptr(s, a->aux_offset);
	sp->part_len[0] = (size_t)a->aux_size;
	if (off + a->aux_size > s->aux_size) {
		sp->part_len[0] = (size_t)(s->aux_size - off);
		sp->part[1] = tracebuf_aux_ptr(s, 0);
		sp->part_len[1] = (size_t)(a->aux_size - sp->part_len[0]);
		sp->nr_parts = 2;
	}
}

/*
 * Every committed record of one session. The number consumed, or a
 * callback's negative return (that record stays unconsumed), or the
 * errno of an event without on_event.
 */
static int tb_consume(struct tracebuf_group *g, struct tb_member *m)
{
	struct tracebuf_session *s = m->s;
	const struct tracebuf_record *r;
	int n = 0, ret;

	m->pending = 0;
	if (m->events & TRACEBUF_EV_CORRUPT)
		return 0;
	while ((r = tracebuf_peek(s)) != NULL) {
		const struct tracebuf_rec_aux *a = tracebuf_as_aux(r);
		const struct tracebuf_rec_lost *l = tracebuf_as_lost(r);

		if (a && s->aux) {
			struct tracebuf_span sp;
			uint64_t end = a->aux_offset + a->aux_size;

			/* The record is committed just before aux_head moves. */
			if ((int64_t)(tracebuf_aux_head(s) - end) < 0) {
				m->pending = 1;
				break;
			}
			/* More than the ring holds: the ring cannot be trusted. */
			if (a->aux_size > s->aux_size) {
				s->ring_err = -EBADMSG;
				break;
			}
			if (m->ops.on_span) {
				tb_span(m, a, &sp);
				ret = m->ops.on_span(m->ctx, s, &sp);
			} else {
				ret = m->ops.on_record(m->ctx, s, r);
			}
			if (ret < 0)
				return ret;
			m->stream += a->aux_size;
			m->lost = 0;
			m->lost_at_least = 0;
			tracebuf_advance(s, r);
			/* Read: the hardware may have it back. */
			tracebuf_aux_release(s, end);
		} else {
			ret = m->ops.on_record(m->ctx, s, r);
			if (ret < 0)
				return ret;
			if (l && l->reason == TRACEBUF_LOST_AUX_OVERRUN) {
				m->lost += l->count;
				if (l->flags & TRACEBUF_LOST_F_AT_LEAST)
					m->lost_at_least = 1;
			}
			tracebuf_advance(s, r);
		}
		if (n < INT_MAX)
			n++;
	}
	if (tracebuf_ring_error(s)) {
		ret = tb_event(g, m, TRACEBUF_EV_CORRUPT);
		if (ret < 0)
			return ret;
	}
	return n;
}

static int tb_add_count(int total, int n)
{
	return n > INT_MAX - total ? INT_MAX : total + n;
}

int tracebuf_group_consume_session(struct tracebuf_group *g, struct tracebuf_session *s)
{
	unsigned int i;
	int ret = -ENOENT;

	if (!g || !s)
		return -EINVAL;
	if (g->busy)
		return -EBUSY;
	g->busy = 1;
	for (i = 0; i < g->nr; i++) {
		if (g->m[i].s == s) {
			ret = tb_consume(g, &g->m[i]);
			break;
		}
	}
	g->busy = 0;
	return ret;
}

static int tb_consume_all(struct tracebuf_group *g)
{
	unsigned int i;
	int total = 0, n;

	for (i = 0; i < g->nr; i++) {
		if (!g->m[i].s)
			continue;
		n = tb_consume(g, &g->m[i]);
		if (n < 0)
			return n;
		total = tb_add_count(total, n);
	}
	return total;
}

int tracebuf_group_consume(struct tracebuf_group *g)
{
	int ret;

	if (!g)
		return -EINVAL;
	if (g->busy)
		return -EBUSY;
	g->busy = 1;
	ret = tb_consume_all(g);
	g->busy = 0;
	return ret;
}

static int tb_poll(struct tracebuf_group *g, int timeout_ms);

int tracebuf_group_poll(struct tracebuf_group *g, int timeout_ms)
{
	int ret;

	if (!g)
		return -EINVAL;
	if (g->busy)
		return -EBUSY;
	g->busy = 1;
	ret = tb_poll(g, timeout_ms);
	g->busy = 0;
	return ret;
}

static int tb_poll(struct tracebuf_group *g, int timeout_ms)
{
	struct epoll_event ev[64];
	unsigned int i, pending = 0;
	int n, k, total = 0, ret;

	for (i = 0; i < g->nr; i++)
		pending |= (unsigned int)g->m[i].pending;
	if (pending && (timeout_ms < 0 || timeout_ms > TB_PENDING_MS))
		timeout_ms = TB_PENDING_MS;
	n = epoll_wait(g->epfd, ev, 64, timeout_ms);
	if (n < 0)
		return -errno;
	for (k = 0; k < n; k++) {
		struct tb_member *m;
		unsigned int events = 0;

		if (ev[k].data.u64 >= g->nr)
			continue;
		m = &g->m[ev[k].data.u64];
		if (ev[k].events & EPOLLERR)
			events |= TRACEBUF_EV_ERROR;
		if (ev[k].events & EPOLLHUP)
			events |= TRACEBUF_EV_HANGUP;
		if (!m->s) {
			ret = m->fd_fn(m->ctx, m->fd, events);
			if (ret < 0)
				return ret;
			continue;
		}
		/* Records may still be in the ring after POLLERR or POLLHUP. */
		ret = tb_consume(g, m);
		if (ret < 0)
			return ret;
		total = tb_add_count(total, ret);
		if (events) {
			ret = tb_event(g, m, events);
			if (ret < 0)
				return ret;
		}
	}
	/* Sessions whose AUX record waited for aux_head, whatever woke us. */
	for (i = 0; pending && i < g->nr; i++) {
		if (!g->m[i].pending)
			continue;
		ret = tb_consume(g, &g->m[i]);
		if (ret < 0)
			return ret;
		total = tb_add_count(total, ret);
	}
	return total;
}
