/* SPDX-License-Identifier: GPL-2.0 */
/*
 * The group/poll helper of libtracebuf (tracebuf_group_new(3)) against
 * sessions whose rings are built in memory the way the module lays them
 * out (a control page, the data pages mapped twice, an AUX area), with
 * this file as the producer. The session's fd is an eventfd (written to
 * wake the poll), or a pipe end that reports POLLERR or POLLHUP.
 *
 * Checked: every record reaches on_record in ring order (LOST, CONFIG,
 * an unknown type) and every AUX record on_span, with its flags, its
 * bytes in one or two parts (a span that wraps), gap_bytes (a jump in
 * aux_offset), lost_bytes and lost_at_least (LOST AUX_OVERRUN before it),
 * stream_offset; aux_tail handed back after each span; an AUX record
 * ahead of aux_head left in the ring until aux_head moves; a callback's
 * error stops the poll and leaves its record for the next call; POLLERR,
 * POLLHUP and a corrupt ring reported once (on_event, or the errno), the
 * session out of the poll but still consumed; other fds; the argument
 * and option checks.
 */
#include <errno.h>
#include <stdint.h>
#include <stdio.h>
#include <string.h>
#include <sys/eventfd.h>
#include <sys/mman.h>
#include <unistd.h>

#include <libtracebuf.h>

#include "check.h"

#define AUX_SIZE	4096

struct fake {
	unsigned char *base;		/* control page + 2 * size */
	size_t page, size, len;
	struct tracebuf_ctl *ctl;
	unsigned char *data;
	uint64_t head;			/* producer position */
	unsigned char aux[AUX_SIZE] __attribute__((aligned(64)));
	struct tracebuf_session s;
};

static struct fake F, G;

static int fake_create(struct fake *r, size_t pages)
{
	int fd;

	r->page = (size_t)sysconf(_SC_PAGESIZE);
	r->size = pages * r->page;
	r->len = r->page + 2 * r->size;
	r->base = mmap(NULL, r->len, PROT_NONE, MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
	if (r->base == MAP_FAILED)
		return -1;
	if (mmap(r->base, r->page, PROT_READ | PROT_WRITE,
		 MAP_FIXED | MAP_SHARED | MAP_ANONYMOUS, -1, 0) == MAP_FAILED)
		return -1;
	fd = memfd_create("tracebuf-ring", MFD_CLOEXEC);
	if (fd < 0 || ftruncate(fd, (off_t)r->size) < 0)
		return -1;
	if (mmap(r->base + r->page, r->size, PROT_READ | PROT_WRITE,
		 MAP_FIXED | MAP_SHARED, fd, 0) == MAP_FAILED ||
	    mmap(r->base + r->page + r->size, r->size, PROT_READ | PROT_WRITE,
		 MAP_FIXED | MAP_SHARED, fd, 0) == MAP_FAILED)
		return -1;
	close(fd);
	r->ctl = (struct tracebuf_ctl *)(void *)r->base;
	r->data = r->base + r->page;
	return 0;
}

/* An empty ring and AUX area, a session on it as tracebuf_map/_map_aux leave it. */
static void fake_reset(struct fake *r, int fd, unsigned int aux_flags, uint64_t aux_pos)
{
	memset(r->ctl, 0, r->page);
	memset(r->data, 0, r->size);
	r->ctl->abi_version = TRACEBUF_ABI_VERSION;
	r->ctl->data_offset = r->page;
	r->ctl->data_size = r->size;
	r->ctl->aux_head = aux_pos;
	r->ctl->aux_tail = aux_pos;
	r->head = 0;
	memset(&r->s, 0, sizeof(r->s));
	r->s.fd = fd;
	r->s.ctl = r->ctl;
	r->s.data = r->data;
	r->s.data_size = r->size;
	r->s.aux = r->aux;
	r->s.aux_size = AUX_SIZE;
	r->s.aux_tail = aux_pos;
	r->s.aux_flags = (uint16_t)aux_flags;
}

/* A committed record of 'size' bytes (written through the first copy). */
static void *produce(struct fake *r, uint16_t type, size_t size)
{
	static unsigned char tmp[512];
	struct tracebuf_record *rec = (void *)tmp;

	size = (size + 7) & ~(size_t)7;
	memset(tmp, 0, size);
	rec->hdr.size = (uint32_t)size;
	rec->hdr.type = type;
	rec->time = r->head;
	return rec;
}

static void commit(struct fake *r, const void *rec_)
{
	const struct tracebuf_record *rec = rec_;
	const unsigned char *p = rec_;
	uint64_t pos = r->head;
	size_t i;

	for (i = 0; i < rec->hdr.size; i++)
		if (i < offsetof(struct tracebuf_record, commit) ||
		    i >= offsetof(struct tracebuf_record, commit) + 4)
			r->data[(pos + i) & (r->size - 1)] = p[i];
	__atomic_store_n((uint32_t *)(void *)(r->data + ((pos + offsetof(struct tracebuf_record,
			 commit)) & (r->size - 1))), tracebuf_commit_tag(pos), __ATOMIC_RELEASE);
	r->head += rec->hdr.size;
	__atomic_store_n(&r->ctl->data_head, r->head, __ATOMIC_RELEASE);
}

static void lost(struct fake *r, uint32_t reason, uint64_t count, uint32_t flags)
{
	struct tracebuf_rec_lost *l = produce(r, TRACEBUF_REC_LOST, sizeof(*l));

	l->reason = reason;
	l->count = count;
	l->flags = flags;
	commit(r, l);
}

/* An AUX record for [off, off + size); aux_head moved to its end when publish. */
static void span(struct fake *r, uint64_t off, uint64_t size, uint64_t flags, int publish)
{
	struct tracebuf_rec_aux *a = produce(r, TRACEBUF_REC_AUX, sizeof(*a));
	uint64_t i;

	for (i = 0; i < size; i++)
		r->aux[(off + i) & (AUX_SIZE - 1)] = (unsigned char)(off + i);
	a->aux_offset = off;
	a->aux_size = size;
	a->flags = flags;
	commit(r, a);
	if (publish)
		__atomic_store_n(&r->ctl->aux_head, off + size, __ATOMIC_RELEASE);
}

/* ---- what the callbacks saw ---------------------------------------------- */

struct seen {
	unsigned int records, spans, events, calls;
	uint16_t types[32];
	struct tracebuf_span sp[16];
	unsigned char bytes[16][64];
	uint64_t aux_tail_at[16];	/* ctl->aux_tail when on_span ran */
	unsigned int ev[8];
	int fail_at;			/* the call number that returns -ENOSPC (from 1) */
	struct tracebuf_group *g;	/* to try an add from a callback */
	int add_ret;
};

static struct seen S;
static const struct tracebuf_group_ops ops;

static int on_record(void *ctx, struct tracebuf_session *s, const struct tracebuf_record *r)
{
	struct seen *v = ctx;

	CHECK(s == &F.s || s == &G.s);
	if (++v->calls == (unsigned int)v->fail_at)
		return -ENOSPC;
	if (v->records < 32)
		v->types[v->records] = r->hdr.type;
	v->records++;
	if (v->g)
		v->add_ret = tracebuf_group_add(v->g, &G.s, &ops, v);
	return 0;
}

static int on_span(void *ctx, struct tracebuf_session *s, const struct tracebuf_span *sp)
{
	struct seen *v = ctx;
	unsigned int i, n = 0;

	if (++v->calls == (unsigned int)v->fail_at)
		return -ENOSPC;
	if (v->spans < 16) {
		v->sp[v->spans] = *sp;
		for (i = 0; i < sp->nr_parts; i++) {
			memcpy(v->bytes[v->spans] + n, sp->part[i],
			       sp->part_len[i] < 64 - n ? sp->part_len[i] : 64 - n);
			n += (unsigned int)sp->part_len[i];
		}
		CHECK_EQ(n, sp->size);
		v->aux_tail_at[v->spans] = s->ctl->aux_tail;
	}
	v->spans++;
	return 0;
}

static int on_event(void *ctx, struct tracebuf_session *s, unsigned int events)
{
	struct seen *v = ctx;

	(void)s;
	if (v->events < 8)
		v->ev[v->events] = events;
	v->events++;
	return 0;
}

static const struct tracebuf_group_ops ops = {
	.sz = sizeof(ops), .on_record = on_record, .on_span = on_span, .on_event = on_event,
};

static void wake(int efd)
{
	uint64_t one = 1;

	CHECK(write(efd, &one, sizeof(one)) == sizeof(one));
}

static void drain_efd(int efd)
{
	uint64_t v;

	CHECK(read(efd, &v, sizeof(v)) == sizeof(v));
}

static void test_records(void)
{
	struct tracebuf_group *g;
	int efd = eventfd(0, EFD_CLOEXEC | EFD_NONBLOCK);
	struct tracebuf_rec_config *c;

	fake_reset(&F, efd, 0, 4000);	/* the AUX position near the end: a span wraps */
	memset(&S, 0, sizeof(S));
	CHECK_EQ(tracebuf_group_new(NULL, &g), 0);
	CHECK(tracebuf_group_epoll_fd(g) >= 0);
	CHECK_EQ(tracebuf_group_add(g, &F.s, &ops, &S), 0);
	CHECK_EQ(tracebuf_group_add(g, &F.s, &ops, &S), -EEXIST);

	/* Nothing yet: the poll times out. */
	CHECK_EQ(tracebuf_group_poll(g, 0), 0);

	c = produce(&F, TRACEBUF_REC_CONFIG, sizeof(*c) + 8);
	c->len = 8;
	commit(&F, c);
	span(&F, 4000, 128, 0, 1);				/* wraps: 96 + 32 bytes */
	lost(&F, TRACEBUF_LOST_RING_FULL, 3, 0);
	lost(&F, TRACEBUF_LOST_AUX_OVERRUN, 500, TRACEBUF_LOST_F_AT_LEAST);
	span(&F, 4164, 40, TRACEBUF_AUX_F_TRUNCATED, 1);	/* 36 bytes without a record */
	commit(&F, produce(&F, 0x7f33, 40));			/* unknown type */
	span(&F, 4204, 0, TRACEBUF_AUX_F_COLLISION, 1);

	/* Below the watermark nothing wakes the poll: */
	CHECK_EQ(tracebuf_group_poll(g, 0), 0);
	wake(efd);
	CHECK_EQ(tracebuf_group_poll(g, 1000), 7);
	drain_efd(efd);
	CHECK_EQ(S.records, 4);
	CHECK(S.types[0] == TRACEBUF_REC_CONFIG && S.types[1] == TRACEBUF_REC_LOST &&
	      S.types[2] == TRACEBUF_REC_LOST && S.types[3] == 0x7f33);
	CHECK_EQ(S.spans, 3);
	CHECK_EQ(S.sp[0].offset, 4000);
	CHECK_EQ(S.sp[0].size, 128);
	CHECK_EQ(S.sp[0].nr_parts, 2);
	CHECK_EQ(S.sp[0].part_len[0], 96);
	CHECK_EQ(S.sp[0].part_len[1], 32);
	CHECK(S.sp[0].part[1] == F.aux);
	CHECK_EQ(S.sp[0].gap_bytes, 0);
	CHECK_EQ(S.sp[0].lost_bytes, 0);
	CHECK_EQ(S.sp[0].stream_offset, 0);
	CHECK(S.bytes[0][0] == (unsigned char)4000 && S.bytes[0][63] == (unsigned char)4063);
	CHECK_EQ(S.aux_tail_at[0], 4000);	/* released after the callback, not before */
	CHECK_EQ(S.sp[1].flags, TRACEBUF_AUX_F_TRUNCATED);
	CHECK_EQ(S.sp[1].gap_bytes, 36);
	CHECK_EQ(S.sp[1].lost_bytes, 536);
	CHECK_EQ(S.sp[1].lost_at_least, 1);
	CHECK_EQ(S.sp[1].stream_offset, 128);
	CHECK_EQ(S.sp[1].nr_parts, 1);
	CHECK_EQ(S.aux_tail_at[1], 4128);
	CHECK(S.bytes[1][0] == (unsigned char)4164);
	CHECK(S.sp[1].rec && S.sp[1].rec->aux_offset == 4164);
	CHECK_EQ(S.sp[2].flags, TRACEBUF_AUX_F_COLLISION);
	CHECK_EQ(S.sp[2].nr_parts, 0);
	CHECK_EQ(S.sp[2].lost_bytes, 0);
	CHECK_EQ(S.sp[2].lost_at_least, 0);
	CHECK_EQ(S.sp[2].stream_offset, 168);
	CHECK_EQ(F.ctl->aux_tail, 4204);
	CHECK_EQ(F.ctl->data_tail, F.head);
	CHECK_EQ(S.events, 0);

	/*
	 * An AUX record committed before aux_head moved: left in the ring,
	 * and consumed by a later poll once aux_head is there, with no wakeup.
	 */
	memset(&S, 0, sizeof(S));
	span(&F, 4204, 16, 0, 0);
	lost(&F, TRACEBUF_LOST_RING_FULL, 1, 0);
	CHECK_EQ(tracebuf_group_consume(g), 0);
	CHECK_EQ(S.spans, 0);
	CHECK_EQ(S.records, 0);
	CHECK_EQ(tracebuf_group_poll(g, 0), 0);
	__atomic_store_n(&F.ctl->aux_head, 4220, __ATOMIC_RELEASE);
	CHECK_EQ(tracebuf_group_poll(g, 5000), 2);	/* 1 ms at most: no wakeup needed */
	CHECK_EQ(S.spans, 1);
	CHECK_EQ(S.records, 1);

	/* A callback's error: returned, its record handed out again next time. */
	memset(&S, 0, sizeof(S));
	lost(&F, TRACEBUF_LOST_RING_FULL, 1, 0);
	span(&F, 4220, 8, 0, 1);
	lost(&F, TRACEBUF_LOST_RING_FULL, 2, 0);
	S.fail_at = 2;				/* the span */
	CHECK_EQ(tracebuf_group_consume(g), -ENOSPC);
	CHECK_EQ(S.records, 1);
	CHECK_EQ(S.spans, 0);
	CHECK_EQ(F.ctl->aux_tail, 4220);	/* not released */
	CHECK_EQ(tracebuf_group_consume_session(g, &F.s), 2);
	CHECK_EQ(S.spans, 1);
	CHECK_EQ(S.records, 2);
	CHECK_EQ(F.ctl->aux_tail, 4228);
	CHECK_EQ(tracebuf_group_consume_session(g, &G.s), -ENOENT);

	/* From a callback, the group cannot grow or be consumed. */
	memset(&S, 0, sizeof(S));
	fake_reset(&G, efd, 0, 0);
	S.g = g;
	lost(&F, TRACEBUF_LOST_RING_FULL, 1, 0);
	CHECK_EQ(tracebuf_group_consume(g), 1);
	CHECK_EQ(S.add_ret, -EBUSY);
	tracebuf_group_free(g);
	close(efd);
}

static int fd_calls, fd_ret;

static int on_fd(void *ctx, int fd, unsigned int events)
{
	uint64_t v;

	CHECK(ctx == &fd_calls);
	CHECK_EQ(events, 0);
	CHECK(read(fd, &v, sizeof(v)) == sizeof(v));
	fd_calls++;
	return fd_ret;
}

/* POLLERR, POLLHUP and a corrupt ring; other fds; AUX records to on_record. */
static void test_events(void)
{
	static const struct tracebuf_group_ops rec_only = {
		.sz = sizeof(rec_only), .on_record = on_record,
	};
	struct tracebuf_group *g;
	int perr[2], phup[2], efd = eventfd(0, EFD_CLOEXEC | EFD_NONBLOCK);
	struct seen T;

	CHECK(pipe(perr) == 0 && pipe(phup) == 0);
	close(perr[0]);		/* the write end now reports POLLERR */
	close(phup[1]);		/* the read end reports POLLHUP */
	fake_reset(&F, perr[1], 0, 0);
	fake_reset(&G, phup[0], 0, 0);
	memset(&S, 0, sizeof(S));
	memset(&T, 0, sizeof(T));
	CHECK_EQ(tracebuf_group_new(NULL, &g), 0);
	CHECK_EQ(tracebuf_group_add(g, &F.s, &ops, &S), 0);
	CHECK_EQ(tracebuf_group_add(g, &G.s, &ops, &T), 0);
	CHECK_EQ(tracebuf_group_add_fd(g, efd, on_fd, &fd_calls), 0);
	CHECK_EQ(tracebuf_group_add_fd(g, efd, on_fd, &fd_calls), -EEXIST);

	/* Records in the rings are consumed before the event is told. */
	lost(&F, TRACEBUF_LOST_RING_FULL, 1, 0);
	span(&G, 0, 8, 0, 1);
	CHECK_EQ(tracebuf_group_poll(g, 1000), 2);
	CHECK_EQ(S.records, 1);
	CHECK_EQ(S.events, 1);
	CHECK_EQ(S.ev[0], TRACEBUF_EV_ERROR);
	CHECK_EQ(T.spans, 1);
	CHECK_EQ(T.events, 1);
	CHECK_EQ(T.ev[0], TRACEBUF_EV_HANGUP);
	/* Once each: out of the poll, but still consumed. */
	CHECK_EQ(tracebuf_group_poll(g, 0), 0);
	CHECK_EQ(S.events, 1);
	CHECK_EQ(T.events, 1);
	lost(&F, TRACEBUF_LOST_RING_FULL, 1, 0);
	CHECK_EQ(tracebuf_group_consume(g), 1);
	CHECK_EQ(S.records, 2);

	/* Another fd: its callback, and its error stops the poll. */
	wake(efd);
	CHECK_EQ(tracebuf_group_poll(g, 1000), 0);
	CHECK_EQ(fd_calls, 1);
	fd_ret = -EINTR;
	wake(efd);
	CHECK_EQ(tracebuf_group_poll(g, 1000), -EINTR);
	CHECK_EQ(fd_calls, 2);
	fd_ret = 0;

	/* A corrupt ring: told once, nothing more consumed. */
	{
		struct tracebuf_record *r = produce(&G, TRACEBUF_REC_LOST, 32);

		r->hdr.size = 12;	/* not a multiple of 8 */
		commit(&G, r);
		CHECK_EQ(tracebuf_group_consume(g), 0);
		CHECK_EQ(T.events, 2);
		CHECK_EQ(T.ev[1], TRACEBUF_EV_CORRUPT);
		CHECK_EQ(tracebuf_group_consume(g), 0);
		CHECK_EQ(T.events, 2);
	}
	tracebuf_group_free(g);

	/* Without on_event: the errno, once. */
	fake_reset(&F, perr[1], 0, 0);
	fake_reset(&G, phup[0], 0, 0);
	CHECK_EQ(tracebuf_group_new(NULL, &g), 0);
	CHECK_EQ(tracebuf_group_add(g, &F.s, &rec_only, &S), 0);
	CHECK_EQ(tracebuf_group_poll(g, 1000), -EIO);
	CHECK_EQ(tracebuf_group_poll(g, 0), 0);
	CHECK_EQ(tracebuf_group_add(g, &G.s, &rec_only, &T), 0);
	CHECK_EQ(tracebuf_group_poll(g, 1000), -EPIPE);
	CHECK_EQ(tracebuf_group_poll(g, 0), 0);
	{
		struct tracebuf_record *r = produce(&G, TRACEBUF_REC_LOST, 32);

		r->hdr.size = 8;
		commit(&G, r);
		CHECK_EQ(tracebuf_group_consume(g), -EBADMSG);
		CHECK_EQ(tracebuf_group_consume(g), 0);
	}
	/* No on_span: AUX records to on_record, the span released after it. */
	memset(&S, 0, sizeof(S));
	span(&F, 0, 16, 0, 1);
	CHECK_EQ(tracebuf_group_consume_session(g, &F.s), 1);
	CHECK_EQ(S.records, 1);
	CHECK_EQ(S.types[0], TRACEBUF_REC_AUX);
	CHECK_EQ(F.ctl->aux_tail, 16);
	/* An AUX record larger than the AUX area: the ring cannot be trusted. */
	span(&F, 16, AUX_SIZE + 8, 0, 1);
	CHECK_EQ(tracebuf_group_consume_session(g, &F.s), -EBADMSG);
	CHECK_EQ(tracebuf_ring_error(&F.s), -EBADMSG);
	tracebuf_group_free(g);

	/* Snapshot mode (read-only AUX): spans overlap, no gap; aux_tail not stored. */
	fake_reset(&F, efd, TRACEBUF_MAP_READONLY, 0);
	memset(&S, 0, sizeof(S));
	CHECK_EQ(tracebuf_group_new(NULL, &g), 0);
	CHECK_EQ(tracebuf_group_add(g, &F.s, &ops, &S), 0);
	span(&F, 1000, 64, TRACEBUF_AUX_F_OVERWRITE, 1);
	span(&F, 3000, 64, TRACEBUF_AUX_F_OVERWRITE, 1);
	CHECK_EQ(tracebuf_group_consume(g), 2);
	CHECK_EQ(S.sp[0].gap_bytes, 0);
	CHECK_EQ(S.sp[1].gap_bytes, 0);
	CHECK_EQ(S.sp[1].stream_offset, 64);
	CHECK_EQ(F.ctl->aux_tail, 0);
	CHECK_EQ(F.s.aux_tail, 3064);
	tracebuf_group_free(g);

	/* A session without AUX mapping (backend "none"): AUX records to on_record. */
	fake_reset(&F, efd, 0, 0);
	F.s.aux = NULL;
	F.s.aux_size = 0;
	memset(&S, 0, sizeof(S));
	CHECK_EQ(tracebuf_group_new(NULL, &g), 0);
	CHECK_EQ(tracebuf_group_add(g, &F.s, &ops, &S), 0);
	span(&F, 0, 64, 0, 0);
	CHECK_EQ(tracebuf_group_consume(g), 1);
	CHECK_EQ(S.records, 1);
	CHECK_EQ(S.spans, 0);
	tracebuf_group_free(g);
	close(perr[1]);
	close(phup[0]);
	close(efd);
}

static void test_args(void)
{
	struct tracebuf_group *g = (void *)1;
	struct tracebuf_session closed = TRACEBUF_SESSION_INIT, unmapped = TRACEBUF_SESSION_INIT;
	struct tracebuf_group_ops noop = { .sz = sizeof(noop) };
	struct {
		struct tracebuf_group_opts o;
		uint64_t more;
	} big = { { .sz = sizeof(big) }, 1 };
	struct tracebuf_group_opts tiny = { .sz = 2 };
	struct {
		struct tracebuf_group_ops o;
		uint64_t more;
	} bigops = { { .sz = sizeof(bigops), .on_record = on_record }, 0 };
	struct tracebuf_group_ops oldops = { .sz = offsetof(struct tracebuf_group_ops, on_span),
					     .on_record = on_record, .on_span = on_span };
	int efd = eventfd(0, EFD_CLOEXEC);

	CHECK_EQ(tracebuf_group_new(NULL, NULL), -EINVAL);
	CHECK_EQ(tracebuf_group_new(&big.o, &g), -E2BIG);
	CHECK(g == NULL);
	CHECK_EQ(tracebuf_group_new(&tiny, &g), -EINVAL);
	big.more = 0;
	CHECK_EQ(tracebuf_group_new(&big.o, &g), 0);
	CHECK_EQ(tracebuf_group_add(NULL, &F.s, &ops, NULL), -EINVAL);
	CHECK_EQ(tracebuf_group_add(g, NULL, &ops, NULL), -EINVAL);
	CHECK_EQ(tracebuf_group_add(g, &F.s, NULL, NULL), -EINVAL);
	CHECK_EQ(tracebuf_group_add(g, &F.s, &noop, NULL), -EINVAL);	/* no on_record */
	CHECK_EQ(tracebuf_group_add(g, &closed, &ops, NULL), -EBADF);
	unmapped.fd = efd;
	CHECK_EQ(tracebuf_group_add(g, &unmapped, &ops, NULL), -ENXIO);
	bigops.more = 3;
	CHECK_EQ(tracebuf_group_add(g, &F.s, &bigops.o, NULL), -E2BIG);
	bigops.more = 0;
	fake_reset(&F, efd, 0, 0);
	/* An older caller's ops without on_span: AUX records go to on_record. */
	memset(&S, 0, sizeof(S));
	CHECK_EQ(tracebuf_group_add(g, &F.s, &oldops, &S), 0);
	span(&F, 0, 8, 0, 1);
	CHECK_EQ(tracebuf_group_consume(g), 1);
	CHECK_EQ(S.records, 1);
	CHECK_EQ(S.spans, 0);
	CHECK_EQ(tracebuf_group_add_fd(g, -1, on_fd, NULL), -EBADF);
	CHECK_EQ(tracebuf_group_add_fd(g, efd, NULL, NULL), -EINVAL);
	CHECK_EQ(tracebuf_group_poll(NULL, 0), -EINVAL);
	CHECK_EQ(tracebuf_group_consume(NULL), -EINVAL);
	CHECK_EQ(tracebuf_group_consume_session(g, NULL), -EINVAL);
	CHECK_EQ(tracebuf_group_epoll_fd(NULL), -EINVAL);
	tracebuf_group_free(g);
	tracebuf_group_free(NULL);
	close(efd);
}

int main(void)
{
	if (fake_create(&F, 1) || fake_create(&G, 1)) {
		perror("fake ring");
		return 2;
	}
	test_records();
	test_events();
	test_args();
	return check_done();
}
