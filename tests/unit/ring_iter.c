/* SPDX-License-Identifier: GPL-2.0 */
/*
 * The inline ring consumer of libtracebuf.h (tracebuf_peek, tracebuf_advance,
 * tracebuf_unread, tracebuf_ring_error, and tracebuf_peek_compact,
 * tracebuf_advance_compact for compact rings) against a ring built in memory the
 * way the module lays it out: a control page, then the data pages mapped
 * twice back to back (a memfd mapped into one reservation). No kernel
 * module: the session's ring fields point at the fake mapping directly, and
 * this file plays the producer.
 *
 * The producer writes every byte through the first copy of the data pages,
 * wrapping by hand, so a consumer that reads a wrapped record contiguously
 * sees it only through the second copy.
 */
#include <errno.h>
#include <stdint.h>
#include <string.h>
#include <sys/mman.h>
#include <unistd.h>

#include <libtracebuf.h>

#include "check.h"

struct fake_ring {
	unsigned char *base;		/* control page + 2 * size */
	size_t page, size, len;
	struct tracebuf_ctl *ctl;
	unsigned char *data;
	uint64_t head;			/* producer position */
	struct tracebuf_session s;
};

static struct fake_ring ring;

static int ring_create(struct fake_ring *r, size_t pages)
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

/*
 * An empty ring whose head and tail are at 'pos' (free-running: any lap),
 * its data pages filled with 'fill' (stale bytes of earlier laps), and a
 * session mapped onto it as tracebuf_map() would leave it.
 */
static void ring_reset(struct fake_ring *r, uint64_t pos, unsigned int map_flags,
		       int fill)
{
	memset(r->ctl, 0, r->page);
	memset(r->data, fill, r->size);
	r->ctl->abi_version = TRACEBUF_ABI_VERSION;
	r->ctl->ctl_size = sizeof(struct tracebuf_ctl);
	r->ctl->page_size = (uint32_t)r->page;
	r->ctl->flags = map_flags & TRACEBUF_MAP_READONLY ? TRACEBUF_CTL_F_READONLY : 0;
	r->ctl->data_offset = r->page;
	r->ctl->data_size = r->size;
	r->ctl->data_head = pos;
	r->ctl->data_tail = pos;
	r->head = pos;

	memset(&r->s, 0, sizeof(r->s));
	r->s.fd = -1;
	r->s.ctl = r->ctl;
	r->s.data = r->data;
	r->s.data_size = r->size;
	r->s.tail = pos;
	r->s.map_flags = map_flags;
}

/* Write bytes at a stream position through the first copy only. */
static void ring_write(struct fake_ring *r, uint64_t pos, const void *src, size_t n)
{
	const unsigned char *p = src;
	size_t i;

	for (i = 0; i < n; i++)
		r->data[(pos + i) & (r->size - 1)] = p[i];
}

static uint32_t *commit_word(struct fake_ring *r, uint64_t pos)
{
	return (uint32_t *)(void *)(r->data + ((pos + offsetof(struct tracebuf_record, commit)) &
					       (r->size - 1)));
}

static void commit_as(struct fake_ring *r, uint64_t pos, uint32_t value)
{
	__atomic_store_n(commit_word(r, pos), value, __ATOMIC_RELEASE);
}

static void commit(struct fake_ring *r, uint64_t pos)
{
	commit_as(r, pos, tracebuf_commit_tag(pos));
}

static unsigned char pattern(uint64_t seq, size_t i)
{
	return (unsigned char)(seq * 31 + i);
}

/*
 * Reserve 'reserve' bytes at the head and write a TEST record there whose
 * header says 'hdr_size' (== reserve unless a test lies), then commit it
 * when asked. The payload after struct tracebuf_rec_test is pattern(seq).
 * Returns the record's position.
 */
static uint64_t produce_raw(struct fake_ring *r, uint32_t reserve, uint32_t hdr_size,
			    uint16_t flags, uint64_t seq, int do_commit)
{
	static unsigned char buf[1 << 16];
	struct tracebuf_rec_test t;
	uint64_t pos = r->head;
	size_t i;

	memset(&t, 0, sizeof(t));
	t.r.hdr.size = hdr_size;
	t.r.hdr.type = TRACEBUF_REC_TEST;
	t.r.hdr.flags = flags;
	t.r.cpu = 1;
	t.r.time = 1000 + seq;
	t.seq = seq;
	t.producer = 7;
	t.context = TRACEBUF_CTX_TASK;
	/* Reserved, not yet committed: the module writes commit last. */
	t.r.commit = 0;
	memcpy(buf, &t, sizeof(t) < reserve ? sizeof(t) : reserve);
	for (i = sizeof(t); i < reserve && i < sizeof(buf); i++)
		buf[i] = pattern(seq, i);
	r->head += reserve;
	__atomic_store_n(&r->ctl->data_head, r->head, __ATOMIC_RELEASE);
	ring_write(r, pos, buf, reserve);
	if (do_commit)
		commit(r, pos);
	return pos;
}

static uint64_t produce(struct fake_ring *r, uint32_t size, uint16_t flags, uint64_t seq)
{
	return produce_raw(r, size, size, flags, seq, 1);
}

/* The record at 'pos', read contiguously from where peek must return it. */
static void expect_rec(struct fake_ring *r, const struct tracebuf_record *rec,
		       uint64_t pos, uint32_t size, uint64_t seq)
{
	const struct tracebuf_rec_test *t = (const void *)rec;
	const unsigned char *p = (const void *)rec;
	unsigned int bad = 0;
	size_t i;

	CHECK(rec != NULL);
	if (!rec)
		return;
	CHECK(p == r->data + (pos & (r->size - 1)));
	CHECK_EQ(rec->hdr.size, size);
	CHECK_EQ(rec->hdr.type, TRACEBUF_REC_TEST);
	CHECK_EQ(rec->commit, tracebuf_commit_tag(pos));
	CHECK_EQ(rec->time, 1000 + seq);
	CHECK_EQ(t->seq, seq);
	CHECK_EQ(t->producer, 7);
	for (i = sizeof(*t); i < size; i++)
		bad += p[i] != pattern(seq, i);
	CHECK_EQ(bad, 0);
}

static void check_unmapped(void)
{
	struct tracebuf_session s;

	memset(&s, 0, sizeof(s));
	s.fd = -1;
	CHECK(tracebuf_peek(&s) == NULL);
	CHECK_EQ(tracebuf_unread(&s), 0);
	CHECK_EQ(tracebuf_ring_error(&s), 0);
}

static void check_empty(uint64_t pos)
{
	struct fake_ring *r = &ring;

	ring_reset(r, pos, 0, 0);
	CHECK(tracebuf_peek(&r->s) == NULL);
	CHECK_EQ(tracebuf_unread(&r->s), 0);
	CHECK_EQ(tracebuf_ring_error(&r->s), 0);
	CHECK_EQ(r->ctl->data_tail, pos);
	/*
	 * A committed record at the tail, but data_head says nothing was
	 * reserved there: the head decides, the bytes are not looked at.
	 */
	produce(r, 64, 0, 1);
	r->ctl->data_head = pos;
	CHECK(tracebuf_peek(&r->s) == NULL);
	CHECK_EQ(tracebuf_unread(&r->s), 0);
	CHECK_EQ(tracebuf_ring_error(&r->s), 0);

	/*
	 * data_head is a hint the module may publish late or, for a moment,
	 * behind an earlier value: behind the tail, unread() is 0, not a
	 * wrapped difference, and the commit word still decides.
	 */
	ring_reset(r, pos + 4096, 0, 0);
	r->ctl->data_head = pos + 4096 - 64;
	CHECK_EQ(tracebuf_unread(&r->s), 0);
	CHECK(tracebuf_peek(&r->s) == NULL);
	CHECK_EQ(tracebuf_ring_error(&r->s), 0);
}

static void check_in_order(uint64_t pos0)
{
	struct fake_ring *r = &ring;
	static const uint32_t sizes[] = { 40, 56, 128, 24 + 16 + 8 };
	uint64_t pos[4];
	const struct tracebuf_record *rec;
	uint64_t total = 0;
	unsigned int i;

	ring_reset(r, pos0, 0, 0xa5);
	for (i = 0; i < 4; i++) {
		pos[i] = produce(r, sizes[i], 0, 10 + i);
		total += sizes[i];
	}
	CHECK_EQ(tracebuf_unread(&r->s), total);
	for (i = 0; i < 4; i++) {
		rec = tracebuf_peek(&r->s);
		expect_rec(r, rec, pos[i], sizes[i], 10 + i);
		/* Peeking does not consume. */
		CHECK(tracebuf_peek(&r->s) == rec);
		CHECK_EQ(r->ctl->data_tail, pos[i]);
		if (!rec)
			return;
		tracebuf_advance(&r->s, rec);
		total -= sizes[i];
		CHECK_EQ(r->s.tail, pos[i] + sizes[i]);
		CHECK_EQ(r->ctl->data_tail, pos[i] + sizes[i]);
		CHECK_EQ(tracebuf_unread(&r->s), total);
	}
	CHECK(tracebuf_peek(&r->s) == NULL);
	CHECK_EQ(tracebuf_ring_error(&r->s), 0);

	/* More records after the consumer caught up. */
	pos[0] = produce(r, 48, 0, 20);
	expect_rec(r, tracebuf_peek(&r->s), pos[0], 48, 20);
}

/* A record that starts 'before_end' bytes before the end of the ring. */
static void check_wrap(uint64_t lap, uint32_t before_end, uint32_t size)
{
	struct fake_ring *r = &ring;
	uint64_t start = lap * r->size + r->size - before_end;
	const struct tracebuf_record *rec;
	uint64_t pos;

	ring_reset(r, start, 0, 0x5a);
	pos = produce(r, size, 0, 30);
	CHECK_EQ(pos, start);
	rec = tracebuf_peek(&r->s);
	expect_rec(r, rec, pos, size, 30);
	if (!rec)
		return;
	tracebuf_advance(&r->s, rec);
	CHECK_EQ(r->ctl->data_tail, pos + size);
	/* The next record starts in the first copy. */
	pos = produce(r, 64, 0, 31);
	rec = tracebuf_peek(&r->s);
	expect_rec(r, rec, pos, 64, 31);
	CHECK((const unsigned char *)rec < r->data + r->size);
}

static void check_uncommitted(void)
{
	struct fake_ring *r = &ring;
	uint64_t lap = 3 * (uint64_t)r->size;
	const struct tracebuf_record *rec;
	uint64_t p1, p2, p3;

	ring_reset(r, lap + 64, 0, 0);
	p1 = produce(r, 48, 0, 40);
	p2 = produce_raw(r, 72, 72, 0, 41, 0);
	p3 = produce(r, 40, 0, 42);

	rec = tracebuf_peek(&r->s);
	expect_rec(r, rec, p1, 48, 40);
	if (!rec)
		return;
	tracebuf_advance(&r->s, rec);

	/* Not written yet: commit word zero. p3 is committed but comes later. */
	CHECK(tracebuf_peek(&r->s) == NULL);
	CHECK_EQ(tracebuf_unread(&r->s), 72 + 40);
	/* The tag this slot had one lap earlier: stale, not committed. */
	commit_as(r, p2, tracebuf_commit_tag(p2 - r->size));
	CHECK(tracebuf_peek(&r->s) == NULL);
	/* Two laps earlier, and the tag of the record after it. */
	commit_as(r, p2, tracebuf_commit_tag(p2 - 2 * r->size));
	CHECK(tracebuf_peek(&r->s) == NULL);
	commit_as(r, p2, tracebuf_commit_tag(p3));
	CHECK(tracebuf_peek(&r->s) == NULL);
	/* Stale garbage in the header does not count until committed. */
	ring_write(r, p2, "\x03\x00\x00\x00", 4);
	CHECK(tracebuf_peek(&r->s) == NULL);
	CHECK_EQ(tracebuf_ring_error(&r->s), 0);
	CHECK_EQ(r->s.tail, p2);
	CHECK_EQ(r->ctl->data_tail, p2);

	/* The module finishes the record: now it is visible, then p3. */
	ring_write(r, p2, "\x48\x00\x00\x00", 4);
	commit(r, p2);
	rec = tracebuf_peek(&r->s);
	expect_rec(r, rec, p2, 72, 41);
	if (!rec)
		return;
	tracebuf_advance(&r->s, rec);
	rec = tracebuf_peek(&r->s);
	expect_rec(r, rec, p3, 40, 42);
}

static void check_discard(unsigned int map_flags)
{
	struct fake_ring *r = &ring;
	int ro = !!(map_flags & TRACEBUF_MAP_READONLY);
	const struct tracebuf_record *rec;
	uint64_t pa, pd, pf, start = 4096 + 8;

	ring_reset(r, start, map_flags, 0);
	pa = produce(r, 40, 0, 50);
	produce(r, 64, TRACEBUF_REC_F_DISCARD, 51);
	produce(r, 24, TRACEBUF_REC_F_DISCARD, 52);
	pd = produce(r, 48, 0, 53);

	rec = tracebuf_peek(&r->s);
	expect_rec(r, rec, pa, 40, 50);
	if (!rec)
		return;
	tracebuf_advance(&r->s, rec);
	rec = tracebuf_peek(&r->s);
	expect_rec(r, rec, pd, 48, 53);
	/* The discarded records were consumed, and their space handed back. */
	CHECK_EQ(r->s.tail, pd);
	CHECK_EQ(r->ctl->data_tail, ro ? start : pd);
	if (!rec)
		return;
	tracebuf_advance(&r->s, rec);

	/* Discarded, then one not committed yet: stop behind the discard. */
	produce(r, 32, TRACEBUF_REC_F_DISCARD, 54);
	pf = produce_raw(r, 40, 40, 0, 55, 0);
	CHECK(tracebuf_peek(&r->s) == NULL);
	CHECK_EQ(r->s.tail, pf);
	CHECK_EQ(r->ctl->data_tail, ro ? start : pf);
	CHECK_EQ(tracebuf_unread(&r->s), 40);
	commit(r, pf);
	expect_rec(r, tracebuf_peek(&r->s), pf, 40, 55);

	/* Only discarded records: the ring reads as empty. */
	ring_reset(r, start, map_flags, 0);
	produce(r, 24, TRACEBUF_REC_F_DISCARD, 56);
	produce(r, 40, TRACEBUF_REC_F_DISCARD, 57);
	CHECK(tracebuf_peek(&r->s) == NULL);
	CHECK_EQ(tracebuf_unread(&r->s), 0);
	CHECK_EQ(r->ctl->data_tail, ro ? start : start + 64);
	CHECK_EQ(tracebuf_ring_error(&r->s), 0);
}

/*
 * A committed record with a size that cannot be right: NULL, the sticky
 * error, and nothing consumed. 'reserve' is what the producer reserved,
 * 'hdr_size' what the header claims; 'head' if not 0 corrupts data_head.
 */
static void check_bogus(uint32_t reserve, uint32_t hdr_size, uint16_t flags, uint64_t head)
{
	struct fake_ring *r = &ring;
	const struct tracebuf_record *rec;
	uint64_t p0, p1, start = 2 * (uint64_t)r->size + 128;

	fprintf(stderr, "bogus: reserve %u, size %u, flags %u, head +%llu\n",
		reserve, hdr_size, flags, (unsigned long long)head);
	ring_reset(r, start, 0, 0);
	p0 = produce(r, 40, 0, 60);
	p1 = produce_raw(r, reserve, hdr_size, flags, 61, 1);
	if (head)
		r->ctl->data_head = start + head;

	rec = tracebuf_peek(&r->s);
	expect_rec(r, rec, p0, 40, 60);
	if (!rec)
		return;
	tracebuf_advance(&r->s, rec);
	CHECK_EQ(tracebuf_ring_error(&r->s), 0);

	CHECK(tracebuf_peek(&r->s) == NULL);
	CHECK_EQ(tracebuf_ring_error(&r->s), -EBADMSG);
	CHECK_EQ(r->s.tail, p1);
	CHECK_EQ(r->ctl->data_tail, p1);

	/* Sticky: a correct size afterwards does not resume the consumer. */
	ring_write(r, p1, &reserve, 4);
	produce(r, 40, 0, 62);
	CHECK(tracebuf_peek(&r->s) == NULL);
	CHECK_EQ(tracebuf_ring_error(&r->s), -EBADMSG);
}

static void check_readonly(void)
{
	struct fake_ring *r = &ring;
	const struct tracebuf_record *rec;
	uint64_t start = 5 * (uint64_t)r->size - 24, pos[3];
	unsigned int i, n = 0;

	ring_reset(r, start, TRACEBUF_MAP_READONLY, 0);
	for (i = 0; i < 3; i++)
		pos[i] = produce(r, 64, 0, 70 + i);
	/* A tail the module would never see move. */
	while ((rec = tracebuf_peek(&r->s)) != NULL && n < 3) {
		expect_rec(r, rec, pos[n], 64, 70 + n);
		tracebuf_advance(&r->s, rec);
		n++;
	}
	CHECK_EQ(n, 3);
	CHECK(rec == NULL);
	CHECK_EQ(r->s.tail, start + 3 * 64);
	CHECK_EQ(tracebuf_unread(&r->s), 0);
	CHECK_EQ(r->ctl->data_tail, start);
	check_discard(TRACEBUF_MAP_READONLY);
}

/*
 * A compact record (TRACEBUF_SETUP_F_COMPACT) at the head: a USER record
 * with len bytes of pattern(seq) after struct tracebuf_crec_user, or with
 * type TRACEBUF_CREC_SKIP; hdr_size what its prefix says.
 */
static uint64_t produce_compact(struct fake_ring *r, uint32_t reserve, uint32_t hdr_size,
				uint16_t type, uint64_t seq, int do_commit)
{
	static unsigned char buf[1 << 16];
	struct tracebuf_crec_user u;
	uint64_t pos = r->head;
	size_t i;

	memset(&u, 0, sizeof(u));
	u.r.size = (uint16_t)hdr_size;
	u.r.type = type;
	u.cookie = seq;
	u.len = reserve - (uint32_t)sizeof(u);
	memcpy(buf, &u, sizeof(u));
	for (i = sizeof(u); i < reserve; i++)
		buf[i] = pattern(seq, i);
	r->head += reserve;
	__atomic_store_n(&r->ctl->data_head, r->head, __ATOMIC_RELEASE);
	ring_write(r, pos, buf, reserve);
	if (do_commit)
		__atomic_store_n((uint32_t *)(void *)(r->data + ((pos + 4) & (r->size - 1))),
				 tracebuf_commit_tag(pos), __ATOMIC_RELEASE);
	return pos;
}

static void check_compact(uint64_t pos0)
{
	struct fake_ring *r = &ring;
	static const uint32_t sizes[] = { 24, 32, 24, 200, 8 };
	uint64_t pos[5];
	const struct tracebuf_crec *c;
	const struct tracebuf_crec_user *u;
	unsigned int i, bad;
	size_t j;

	/* In order, across the end of the ring, a SKIP record passed over. */
	ring_reset(r, pos0, 0, 0x5a);
	r->ctl->flags |= TRACEBUF_CTL_F_COMPACT;
	for (i = 0; i < 5; i++)
		pos[i] = produce_compact(r, sizes[i], sizes[i],
					 i == 2 || i == 4 ? TRACEBUF_CREC_SKIP : TRACEBUF_REC_USER,
					 i, 1);
	for (i = 0; i < 5; i++) {
		if (i == 2 || i == 4)
			continue;
		c = tracebuf_peek_compact(&r->s);
		CHECK(c != NULL);
		if (!c)
			return;
		CHECK((const unsigned char *)c == r->data + (pos[i] & (r->size - 1)));
		CHECK_EQ(c->size, sizes[i]);
		u = tracebuf_cas_user(c);
		CHECK(u != NULL && tracebuf_cas_lost(c) == NULL);
		if (!u)
			return;
		CHECK_EQ(u->cookie, i);
		CHECK_EQ(u->len, sizes[i] - sizeof(*u));
		for (bad = 0, j = sizeof(*u); j < sizes[i]; j++)
			bad += ((const unsigned char *)c)[j] != pattern(i, j);
		CHECK_EQ(bad, 0);
		CHECK(tracebuf_peek_compact(&r->s) == c);
		tracebuf_advance_compact(&r->s, c);
		CHECK_EQ(r->ctl->data_tail, pos[i] + sizes[i]);
	}
	/* The SKIP record at the end is consumed too. */
	CHECK(tracebuf_peek_compact(&r->s) == NULL);
	CHECK_EQ(r->ctl->data_tail, pos[4] + 8);
	CHECK_EQ(tracebuf_ring_error(&r->s), 0);

	/* Not committed (a stale tag): not yet. */
	produce_compact(r, 24, 24, TRACEBUF_REC_USER, 9, 0);
	CHECK(tracebuf_peek_compact(&r->s) == NULL);
	CHECK_EQ(tracebuf_ring_error(&r->s), 0);

	/* Sizes that cannot be trusted: the ring error, sticky. */
	for (i = 0; i < 4; i++) {
		static const uint32_t hs[] = { 20, 0, 4, 32 };

		ring_reset(r, pos0, 0, 0);
		r->ctl->flags |= TRACEBUF_CTL_F_COMPACT;
		produce_compact(r, 24, hs[i], i == 3 ? TRACEBUF_CREC_SKIP : TRACEBUF_REC_USER,
				1, 1);
		CHECK(tracebuf_peek_compact(&r->s) == NULL);
		CHECK_EQ(tracebuf_ring_error(&r->s), -EBADMSG);
		CHECK_EQ(r->ctl->data_tail, pos0);
	}

	/* Each iterator refuses the other format. */
	ring_reset(r, pos0, 0, 0);
	r->ctl->flags |= TRACEBUF_CTL_F_COMPACT;
	produce_compact(r, 24, 24, TRACEBUF_REC_USER, 1, 1);
	CHECK(tracebuf_peek(&r->s) == NULL);
	CHECK_EQ(tracebuf_ring_error(&r->s), -EPROTO);
	ring_reset(r, pos0, 0, 0);
	produce(r, 64, 0, 1);
	CHECK(tracebuf_peek_compact(&r->s) == NULL);
	CHECK_EQ(tracebuf_ring_error(&r->s), -EPROTO);
	CHECK_EQ(r->ctl->data_tail, pos0);
}

int main(void)
{
	uint32_t big;

	if (ring_create(&ring, 2) < 0) {
		perror("fake ring");
		return 1;
	}
	big = (uint32_t)ring.size;

	check_unmapped();
	check_empty(0);
	check_empty(1ULL << 40);
	check_in_order(0);
	check_in_order(7 * (uint64_t)ring.size + 200);
	check_in_order((1ULL << 40) - 64);
	check_wrap(0, 16, 200);		/* header before the end, payload after */
	check_wrap(1, 8, 96);		/* the commit word is the first of the ring */
	check_wrap(2, 40, 40);		/* ends exactly at the end */
	check_wrap(3, 48, big);		/* as large as the ring */
	check_uncommitted();
	check_discard(0);
	check_bogus(48, 44, 0, 0);		/* not a multiple of 8 */
	check_bogus(48, 16, 0, 0);		/* smaller than the prefix */
	check_bogus(48, 0, 0, 0);		/* zero */
	check_bogus(48, 56, 0, 0);		/* beyond data_head */
	check_bogus(48, 44, TRACEBUF_REC_F_DISCARD, 0);	/* discarded, still checked */
	/* Larger than the ring, with data_head (corrupt) far enough. */
	check_bogus(48, big + 8, 0, 3 * (uint64_t)big);
	check_readonly();
	check_compact(0);
	check_compact(5 * (uint64_t)ring.size - 40);	/* the 200-byte record wraps */
	return check_done();
}
