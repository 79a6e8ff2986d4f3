/* SPDX-License-Identifier: GPL-2.0 */
/*
 * The ToPA builder (module/topa.c), built natively against the stand-ins
 * in shim/. Tables come from a fake allocator whose "physical" address is
 * the virtual one, so END links can be followed the way the hardware does.
 * Chunks are never touched, so their physical addresses are made up.
 */
#include <errno.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "../../module/pt_hw.h"
#include "../../module/topa.h"

#include "check.h"

/* ---- fake allocator: counts calls, fails the Nth one on request ---- */

struct fake_alloc {
	unsigned int calls;	/* allocations attempted */
	unsigned int fail_at;	/* 1-based call to fail, 0: never */
	int table_only;		/* fail_at counts table_alloc calls only */
	unsigned int table_calls;
	unsigned int bad_phys_at;	/* table_alloc call given a bad phys */
	long live;		/* allocations not yet freed */
};

static int fake_should_fail(struct fake_alloc *f, int is_table)
{
	unsigned int n;

	f->calls++;
	if (is_table)
		f->table_calls++;
	n = f->table_only ? (is_table ? f->table_calls : 0) : f->calls;
	return f->fail_at && n == f->fail_at;
}

static void *fake_table_alloc(void *ctx, u64 *phys)
{
	struct fake_alloc *f = ctx;
	void *p;

	if (fake_should_fail(f, 1))
		return NULL;
	p = aligned_alloc(TB_TOPA_TABLE_BYTES, TB_TOPA_TABLE_BYTES);
	if (!p)
		return NULL;
	memset(p, 0, TB_TOPA_TABLE_BYTES);
	*phys = (uintptr_t)p;
	if (f->bad_phys_at && f->table_calls == f->bad_phys_at)
		*phys |= 1ULL << 60;	/* not representable in an entry */
	f->live++;
	return p;
}

static void fake_table_free(void *ctx, void *table)
{
	struct fake_alloc *f = ctx;

	CHECK(table != NULL);
	f->live--;
	free(table);
}

static void *fake_array_alloc(void *ctx, size_t bytes)
{
	struct fake_alloc *f = ctx;
	void *p;

	if (fake_should_fail(f, 0))
		return NULL;
	p = calloc(1, bytes ? bytes : 1);
	if (p)
		f->live++;
	return p;
}

static void fake_array_free(void *ctx, void *p)
{
	struct fake_alloc *f = ctx;

	CHECK(p != NULL);
	f->live--;
	free(p);
}

static struct fake_alloc fa;
static const struct tb_topa_alloc alloc = {
	.table_alloc = fake_table_alloc,
	.table_free = fake_table_free,
	.array_alloc = fake_array_alloc,
	.array_free = fake_array_free,
	.ctx = &fa,
};

static void fake_reset(void)
{
	memset(&fa, 0, sizeof(fa));
}

/* ---- helpers ---- */

#define REGION_BITS	(TB_TOPA_BASE | TB_TOPA_SIZE)

static u64 *ent_of(const struct tb_topa *t, unsigned int r)
{
	return &t->tables[t->regions[r].table].ent[t->regions[r].index];
}

static int is_zeroed(const struct tb_topa *t)
{
	static const struct tb_topa zero;

	return !memcmp(t, &zero, sizeof(zero));
}

/* nr chunks of mixed orders (order_of(i)), each aligned to its size. */
static struct tb_topa_chunk *make_chunks(unsigned int nr,
					 unsigned int (*order_of)(unsigned int))
{
	struct tb_topa_chunk *c = calloc(nr, sizeof(*c));
	u64 phys = 1ULL << 40;
	unsigned int i;

	if (!c)
		abort();
	for (i = 0; i < nr; i++) {
		u64 sz;

		c[i].order = order_of(i);
		sz = 4096ULL << c[i].order;
		phys = (phys + sz - 1) & ~(sz - 1);
		c[i].phys = phys;
		/* leave holes so consecutive chunks are not contiguous */
		phys += sz + 4096;
	}
	return c;
}

static unsigned int order_mixed(unsigned int i)
{
	static const unsigned int o[] = { 0, 3, 1, 0, 2, 5, 0, 1, 15, 4 };

	return o[i % (sizeof(o) / sizeof(o[0]))];
}

static unsigned int order_small(unsigned int i)
{
	return (i * 7) % 3;
}

static unsigned int order_zero(unsigned int i)
{
	(void)i;
	return 0;
}

static const struct tb_topa_table *table_by_phys(const struct tb_topa *t,
						 u64 phys)
{
	unsigned int k;

	for (k = 0; k < t->nr_tables; k++)
		if (t->tables[k].phys == phys)
			return &t->tables[k];
	return NULL;
}

/* Region entries, offsets and sizes match the chunks. */
static void check_regions(const struct tb_topa *t,
			  const struct tb_topa_chunk *c, unsigned int nr)
{
	u64 off = 0;
	unsigned int i;

	CHECK_EQ(t->nr_regions, nr);
	for (i = 0; i < nr; i++) {
		const struct tb_topa_region *r = &t->regions[i];
		u64 e = *ent_of(t, i);

		CHECK(r->table < t->nr_tables);
		CHECK_EQ(r->offset, off);
		CHECK_EQ(r->size, 4096ULL << c[i].order);
		CHECK_EQ(e & TB_TOPA_BASE, c[i].phys);
		CHECK_EQ((e & TB_TOPA_SIZE) >> TB_TOPA_SIZE_SHIFT, c[i].order);
		CHECK(!(e & TB_TOPA_END));
		if (t->single)
			CHECK_EQ(e & (TB_TOPA_INT | TB_TOPA_STOP),
				 TB_TOPA_INT | TB_TOPA_STOP);
		off += r->size;
	}
	CHECK_EQ(t->size, off);
}

/*
 * Multi layout: walk the tables as the hardware does, from table 0 entry 0,
 * following END links; after nr regions it must be back at the start.
 */
static void check_multi_chain(const struct tb_topa *t,
			      const struct tb_topa_chunk *c, unsigned int nr)
{
	const u64 *tab = t->tables[0].ent;
	unsigned int idx = 0, seen = 0, ends = 0, steps = 0, k;

	CHECK_EQ(t->nr_tables, (nr + TB_TOPA_ENTRIES - 2) / (TB_TOPA_ENTRIES - 1));
	while (seen < nr && steps++ < 4 * nr + 16) {
		u64 e;

		if (idx >= TB_TOPA_ENTRIES) {
			CHECK(!"ran off the end of a table");
			return;
		}
		e = tab[idx];
		if (e & TB_TOPA_END) {
			const struct tb_topa_table *next =
				table_by_phys(t, e & TB_TOPA_BASE);

			CHECK(next != NULL);
			if (!next)
				return;
			CHECK_EQ(e & ~(TB_TOPA_BASE | TB_TOPA_END), 0);
			tab = next->ent;
			idx = 0;
			ends++;
			continue;
		}
		CHECK_EQ(e & REGION_BITS, (c[seen].phys & TB_TOPA_BASE) |
			 ((u64)c[seen].order << TB_TOPA_SIZE_SHIFT));
		seen++;
		idx++;
	}
	CHECK_EQ(seen, nr);
	/* the next entry is the END closing the ring, back to table 0 */
	CHECK(idx < TB_TOPA_ENTRIES);
	if (idx < TB_TOPA_ENTRIES) {
		CHECK(tab[idx] & TB_TOPA_END);
		CHECK_EQ(tab[idx] & TB_TOPA_BASE, t->tables[0].phys);
	}
	CHECK_EQ(ends + 1, t->nr_tables);
	CHECK(tab == t->tables[t->nr_tables - 1].ent);

	/* every table: full but the last, END right after its regions, then 0 */
	for (k = 0; k < t->nr_tables; k++) {
		unsigned int n = k + 1 < t->nr_tables ? TB_TOPA_ENTRIES - 1 :
			nr - k * (TB_TOPA_ENTRIES - 1);
		unsigned int i;

		for (i = 0; i < n; i++)
			CHECK(!(t->tables[k].ent[i] & TB_TOPA_END));
		CHECK(t->tables[k].ent[n] & TB_TOPA_END);
		CHECK_EQ(t->tables[k].ent[n] & TB_TOPA_BASE,
			 t->tables[(k + 1) % t->nr_tables].phys);
		for (i = n + 1; i < TB_TOPA_ENTRIES; i++)
			CHECK_EQ(t->tables[k].ent[i], 0);
	}
}

static void check_single_tables(const struct tb_topa *t, unsigned int nr)
{
	unsigned int k, i;

	CHECK_EQ(t->nr_tables, nr);
	for (k = 0; k < t->nr_tables; k++) {
		const u64 *e = t->tables[k].ent;

		CHECK_EQ(t->regions[k].table, k);
		CHECK_EQ(t->regions[k].index, 0);
		CHECK(!(e[0] & TB_TOPA_END));
		CHECK_EQ(e[0] & (TB_TOPA_INT | TB_TOPA_STOP),
			 TB_TOPA_INT | TB_TOPA_STOP);
		CHECK_EQ(e[1], t->tables[k].phys | TB_TOPA_END);
		for (i = 2; i < TB_TOPA_ENTRIES; i++)
			CHECK_EQ(e[i], 0);
	}
}

static void check_roundtrip(const struct tb_topa *t, u64 off)
{
	u64 base, mask, back = ~0ULL;
	int r = tb_topa_region_of(t, off);

	CHECK(r >= 0 && (unsigned int)r < t->nr_regions);
	if (r < 0)
		return;
	CHECK(t->regions[r].offset <= off);
	CHECK(off - t->regions[r].offset < t->regions[r].size);

	tb_topa_pos(t, off, &base, &mask);
	CHECK_EQ(base, t->tables[t->regions[r].table].phys);
	CHECK_EQ(mask & TB_RTIT_MASK_LOWBITS, TB_RTIT_MASK_LOWBITS);
	CHECK_EQ((mask & TB_RTIT_MASK_TABLE_OFF) >> TB_RTIT_MASK_TABLE_OFF_SHIFT,
		 t->regions[r].index);
	CHECK_EQ(mask >> TB_RTIT_MASK_OUTPUT_OFF_SHIFT,
		 off - t->regions[r].offset);
	CHECK_EQ(tb_topa_offset(t, base, mask, &back), 0);
	CHECK_EQ(back, off);
	CHECK(tb_topa_owns(t, base));
	CHECK(!tb_topa_owns(t, 0x1000));
}

static u64 make_mask(u64 index, u64 out)
{
	return TB_RTIT_MASK_LOWBITS | (index << TB_RTIT_MASK_TABLE_OFF_SHIFT) |
	       (out << TB_RTIT_MASK_OUTPUT_OFF_SHIFT);
}

static void check_positions(const struct tb_topa *t)
{
	unsigned int i;
	u64 x = 12345;

	for (i = 0; i < t->nr_regions; i++) {
		const struct tb_topa_region *r = &t->regions[i];
		u64 base = t->tables[r->table].phys, off = ~0ULL;
		u64 next = i + 1 < t->nr_regions ? t->regions[i + 1].offset : 0;

		check_roundtrip(t, r->offset);
		check_roundtrip(t, r->offset + 1);
		check_roundtrip(t, r->offset + r->size / 2);
		check_roundtrip(t, r->offset + r->size - 1);

		/* a full region not yet left: the next one's start */
		CHECK_EQ(tb_topa_offset(t, base, make_mask(r->index, r->size),
					&off), 0);
		CHECK_EQ(off, next);
		/* past the region */
		off = 7;
		CHECK_EQ(tb_topa_offset(t, base,
					make_mask(r->index, r->size + 1), &off),
			 -EINVAL);
		CHECK_EQ(off, 7);
		CHECK_EQ(tb_topa_offset(t, base,
					make_mask(r->index, 0xffffffffULL), &off),
			 -EINVAL);
	}
	/* pseudo-random offsets */
	for (i = 0; i < 2000; i++) {
		x = x * 6364136223846793005ULL + 1442695040888963407ULL;
		check_roundtrip(t, (x >> 11) % t->size);
	}
	CHECK_EQ(tb_topa_region_of(t, 0), 0);
	CHECK_EQ(tb_topa_region_of(t, t->size - 1), t->nr_regions - 1);
}

static void check_bad_positions(const struct tb_topa *t)
{
	unsigned int k;
	u64 off = 7;

	/* not one of our tables */
	CHECK_EQ(tb_topa_offset(t, 0, make_mask(0, 0), &off), -EINVAL);
	CHECK_EQ(tb_topa_offset(t, t->tables[0].phys + 8, make_mask(0, 0),
				&off), -EINVAL);
	CHECK_EQ(tb_topa_offset(t, t->tables[0].phys + 4096, make_mask(0, 0),
				&off), -EINVAL);
	CHECK_EQ(off, 7);

	for (k = 0; k < t->nr_tables; k++) {
		u64 base = t->tables[k].phys;
		unsigned int n = 0;

		while (n < TB_TOPA_ENTRIES && !(t->tables[k].ent[n] & TB_TOPA_END))
			n++;
		CHECK(n < TB_TOPA_ENTRIES);
		/*
		 * On the END entry, offset 0 (not yet followed): the region
		 * after this table's last, as perf's pt_update_head() counts
		 * it; any other offset there, past it, the largest index: bad.
		 */
		{
			unsigned int next = (t->single ? k : k * (TB_TOPA_ENTRIES - 1)) + n;
			u64 want = next < t->nr_regions ? t->regions[next].offset : 0;
			u64 got = 7;

			CHECK_EQ(tb_topa_offset(t, base, make_mask(n, 0), &got), 0);
			CHECK_EQ(got, want);
			CHECK_EQ(got, (t->regions[next - 1].offset +
				       t->regions[next - 1].size) % t->size);
		}
		CHECK_EQ(tb_topa_offset(t, base, make_mask(n, 1), &off), -EINVAL);
		CHECK_EQ(tb_topa_offset(t, base, make_mask(n + 1, 0), &off),
			 -EINVAL);
		CHECK_EQ(tb_topa_offset(t, base, make_mask(TB_TOPA_ENTRIES, 0),
					&off), -EINVAL);
		CHECK_EQ(tb_topa_offset(t, base, make_mask(0x1ffffff, 0), &off),
			 -EINVAL);
		CHECK_EQ(off, 7);
		/* the last region entry is fine */
		CHECK_EQ(tb_topa_offset(t, base, make_mask(n - 1, 0), &off), 0);
		off = 7;
	}
	/* out of range AUX offset */
	CHECK_EQ(tb_topa_region_of(t, t->size), -EINVAL);
}

/* Exactly the expected STOP/INT bits over every entry of every table. */
static void check_marker_bits(const struct tb_topa *t, int stop, int intr,
			      const u64 *orig)
{
	unsigned int k, i, nstop = 0, nint = 0, r;

	for (k = 0; k < t->nr_tables; k++) {
		for (i = 0; i < TB_TOPA_ENTRIES; i++) {
			u64 e = t->tables[k].ent[i];

			nstop += !!(e & TB_TOPA_STOP);
			nint += !!(e & TB_TOPA_INT);
		}
	}
	CHECK_EQ(nstop, stop >= 0);
	CHECK_EQ(nint, intr >= 0);
	CHECK_EQ(t->stop_region, stop);
	CHECK_EQ(t->int_region, intr);
	for (r = 0; r < t->nr_regions; r++) {
		u64 want = orig[r];

		if ((int)r == stop)
			want |= TB_TOPA_STOP;
		if ((int)r == intr)
			want |= TB_TOPA_INT;
		CHECK_EQ(*ent_of(t, r), want);
	}
}

/* ---- tests ---- */

static void test_multi(unsigned int nr, unsigned int (*order_of)(unsigned int))
{
	struct tb_topa_chunk *c = make_chunks(nr, order_of);
	struct tb_topa t;

	fake_reset();
	CHECK_EQ(tb_topa_build(&t, c, nr, false, &alloc), 0);
	CHECK(!t.single);
	CHECK_EQ(t.stop_region, -1);
	CHECK_EQ(t.int_region, -1);
	check_regions(&t, c, nr);
	check_multi_chain(&t, c, nr);
	check_positions(&t);
	check_bad_positions(&t);
	tb_topa_free(&t, &alloc);
	CHECK(is_zeroed(&t));
	CHECK_EQ(fa.live, 0);
	free(c);
}

static void test_single(unsigned int nr)
{
	struct tb_topa_chunk *c = make_chunks(nr, order_mixed);
	struct tb_topa t;
	unsigned int k;

	fake_reset();
	CHECK_EQ(tb_topa_build(&t, c, nr, true, &alloc), 0);
	CHECK(t.single);
	check_regions(&t, c, nr);
	check_single_tables(&t, nr);
	check_positions(&t);
	check_bad_positions(&t);

	/* markers are only recorded: every region keeps INT|STOP */
	tb_topa_set_markers(&t, 1 % nr, 0);
	CHECK_EQ(t.stop_region, (int)(1 % nr));
	CHECK_EQ(t.int_region, 0);
	check_single_tables(&t, nr);
	tb_topa_set_markers(&t, -1, -1);
	CHECK_EQ(t.stop_region, -1);
	CHECK_EQ(t.int_region, -1);
	check_single_tables(&t, nr);
	for (k = 0; k < nr; k++)
		CHECK_EQ(*ent_of(&t, k) & REGION_BITS,
			 c[k].phys | ((u64)c[k].order << TB_TOPA_SIZE_SHIFT));

	tb_topa_free(&t, &alloc);
	CHECK(is_zeroed(&t));
	CHECK_EQ(fa.live, 0);
	free(c);
}

static void test_markers(void)
{
	static const int moves[][2] = {
		{ 5, 3 }, { 5, 3 }, { 700, 10 }, { 10, 10 }, { 1199, 0 },
		{ -1, 600 }, { 600, -1 }, { -1, -1 }, { 0, 0 }, { 511, 510 },
		{ 1021, 1022 }, { 3, 1199 }, { 1199, 1199 }, { 42, 43 },
	};
	const unsigned int nr = 1200;
	struct tb_topa_chunk *c = make_chunks(nr, order_small);
	struct tb_topa t;
	u64 *orig = calloc(nr, sizeof(*orig));
	unsigned int i, r;

	fake_reset();
	CHECK_EQ(tb_topa_build(&t, c, nr, false, &alloc), 0);
	CHECK_EQ(t.nr_tables, 3);
	for (r = 0; r < nr; r++)
		orig[r] = *ent_of(&t, r);
	check_marker_bits(&t, -1, -1, orig);

	for (i = 0; i < sizeof(moves) / sizeof(moves[0]); i++) {
		tb_topa_set_markers(&t, moves[i][0], moves[i][1]);
		check_marker_bits(&t, moves[i][0], moves[i][1], orig);
		/* END links untouched */
		check_multi_chain(&t, c, nr);
	}
	/* out-of-range regions mean none */
	tb_topa_set_markers(&t, (int)nr, -5);
	check_marker_bits(&t, -1, -1, orig);
	tb_topa_set_markers(&t, 7, (int)nr + 3);
	check_marker_bits(&t, 7, -1, orig);

	tb_topa_free(&t, &alloc);
	CHECK_EQ(fa.live, 0);
	free(orig);
	free(c);
}

static void test_einval(void)
{
	struct tb_topa_chunk c[3] = {
		{ .phys = 0x100000, .order = 0 },
		{ .phys = 0x200000, .order = 4 },
		{ .phys = 0x400000, .order = 2 },
	};
	struct tb_topa t;
	int single;

	for (single = 0; single < 2; single++) {
		fake_reset();
		memset(&t, 0xa5, sizeof(t));
		CHECK_EQ(tb_topa_build(&t, c, 0, single, &alloc), -EINVAL);
		CHECK_EQ(tb_topa_build(&t, NULL, 0, single, &alloc), -EINVAL);

		c[1].order = TB_TOPA_MAX_SIZE + 1;
		c[1].phys = 0;
		CHECK_EQ(tb_topa_build(&t, c, 3, single, &alloc), -EINVAL);
		c[1].order = 64;
		CHECK_EQ(tb_topa_build(&t, c, 3, single, &alloc), -EINVAL);
		c[1].order = TB_TOPA_MAX_SIZE;
		c[1].phys = 1ULL << 27;		/* 128 MiB aligned: fine */
		CHECK_EQ(tb_topa_build(&t, c, 3, single, &alloc), 0);
		tb_topa_free(&t, &alloc);

		c[1].phys = 1ULL << 26;		/* only 64 MiB aligned */
		CHECK_EQ(tb_topa_build(&t, c, 3, single, &alloc), -EINVAL);
		c[1].order = 4;
		c[1].phys = 0x208000;		/* 32 KiB, needs 64 KiB */
		CHECK_EQ(tb_topa_build(&t, c, 3, single, &alloc), -EINVAL);
		c[1].phys = 0x200000;
		c[2].phys = 0x400800;		/* not even page aligned */
		CHECK_EQ(tb_topa_build(&t, c, 3, single, &alloc), -EINVAL);
		c[2].phys = 1ULL << 52;		/* beyond 52 address bits */
		CHECK_EQ(tb_topa_build(&t, c, 3, single, &alloc), -EINVAL);
		c[2].phys = 0x400000;
		CHECK(is_zeroed(&t));
		CHECK_EQ(fa.live, 0);
		CHECK_EQ(fa.calls, 2 + 3 * single + 1 * !single);
	}
}

static void test_alloc_failure(unsigned int nr, bool single, int table_only)
{
	struct tb_topa_chunk *c = make_chunks(nr, order_mixed);
	struct tb_topa t;
	unsigned int total, n;

	/* a clean build, to learn how many allocations it makes */
	fake_reset();
	CHECK_EQ(tb_topa_build(&t, c, nr, single, &alloc), 0);
	total = table_only ? fa.table_calls : fa.calls;
	tb_topa_free(&t, &alloc);
	CHECK_EQ(fa.live, 0);
	CHECK(total >= 1);

	for (n = 1; n <= total; n++) {
		fake_reset();
		fa.fail_at = n;
		fa.table_only = table_only;
		CHECK_EQ(tb_topa_build(&t, c, nr, single, &alloc), -ENOMEM);
		CHECK_EQ(fa.live, 0);
		CHECK(is_zeroed(&t));
		/* freeing the wreck again is harmless */
		tb_topa_free(&t, &alloc);
		CHECK_EQ(fa.live, 0);
	}
	free(c);
}

/* An allocator handing out an unusable phys: refused, nothing leaks. */
static void test_bad_table_phys(void)
{
	struct tb_topa_chunk *c = make_chunks(1200, order_small);
	struct tb_topa t;

	fake_reset();
	fa.bad_phys_at = 2;
	CHECK_EQ(tb_topa_build(&t, c, 1200, false, &alloc), -EINVAL);
	CHECK_EQ(fa.live, 0);
	CHECK(is_zeroed(&t));
	free(c);
}

static void test_free_zeroed(void)
{
	struct tb_topa t;

	fake_reset();
	memset(&t, 0, sizeof(t));
	tb_topa_free(&t, &alloc);
	CHECK(is_zeroed(&t));
	tb_topa_set_markers(&t, 0, 0);		/* no regions: no-op */
	CHECK_EQ(tb_topa_region_of(&t, 0), -EINVAL);
	{
		u64 off = 9;

		CHECK_EQ(tb_topa_offset(&t, 0, make_mask(0, 0), &off), -EINVAL);
		CHECK_EQ(off, 9);
	}
	CHECK_EQ(fa.calls, 0);
}

int main(void)
{
	test_multi(1, order_zero);
	test_multi(2, order_mixed);
	test_multi(37, order_mixed);
	test_multi(TB_TOPA_ENTRIES - 2, order_small);
	test_multi(TB_TOPA_ENTRIES - 1, order_small);	/* exactly one table */
	test_multi(TB_TOPA_ENTRIES, order_small);	/* 511 + 1 */
	test_multi(1200, order_mixed);			/* three tables */
	test_multi(3 * (TB_TOPA_ENTRIES - 1), order_zero);
	test_single(1);
	test_single(2);
	test_single(25);
	test_markers();
	test_einval();
	test_alloc_failure(1, false, 0);
	test_alloc_failure(1200, false, 0);
	test_alloc_failure(1200, false, 1);
	test_alloc_failure(9, true, 0);
	test_alloc_failure(9, true, 1);
	test_bad_table_phys();
	test_free_zeroed();
	return check_done();
}
