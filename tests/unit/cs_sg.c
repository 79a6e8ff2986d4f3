// SPDX-License-Identifier: GPL-2.0
/*
 * The TMC-ETR scatter-gather table builder (module/cs_sg.c), natively:
 * entry encoding, LINK/LAST placement, offset translation both ways,
 * rotation, and bad input.
 */
#include <errno.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "../../module/cs_sg.h"
#include "check.h"

static unsigned int tables_live;

static void *t_alloc(void *ctx, u64 *phys)
{
	void *p = aligned_alloc(4096, 4096);

	(void)ctx;
	if (!p)
		return NULL;
	memset(p, 0, 4096);
	/* A fake physical address the entries can hold (40 bits). */
	*phys = (u64)(0x8000000000ULL - 0x100000000ULL) + ((uintptr_t)p & 0xfffff000ULL);
	tables_live++;
	return p;
}

static void t_free(void *ctx, void *table)
{
	(void)ctx;
	tables_live--;
	free(table);
}

static void *a_alloc(void *ctx, size_t bytes)
{
	(void)ctx;
	return calloc(1, bytes);
}

static void a_free(void *ctx, void *p)
{
	(void)ctx;
	free(p);
}

static const struct tb_sg_alloc alloc = {
	.table_alloc = t_alloc, .table_free = t_free,
	.array_alloc = a_alloc, .array_free = a_free,
};

static u64 ent_pa(u32 e)
{
	return (u64)(e >> 4) << 12;
}

/* Walk the tables as the ETR does: data granule PAs in order. */
static unsigned int walk(const struct tb_sg *t, u64 *pas, unsigned int max)
{
	unsigned int tab = 0, i = 0, n = 0;

	for (;;) {
		u32 e = t->tables[tab].ent[i];

		switch (e & 3) {
		case 3:	/* LINK */
			CHECK_EQ(i, 1023);
			CHECK(tab + 1 < t->nr_tables);
			CHECK_EQ(ent_pa(e), t->tables[tab + 1].phys & ~0xfffULL);
			tab++;
			i = 0;
			continue;
		case 2:
		case 1:
			if (n >= max)
				return n + 1;
			pas[n++] = ent_pa(e);
			if ((e & 3) == 1)
				return n;
			i++;
			CHECK(i < 1024);
			if (i >= 1024)
				return n;
			continue;
		default:
			CHECK(!"invalid entry");
			return n;
		}
	}
}

static void test_layout(unsigned int nchunks, u64 chunk_size)
{
	struct tb_sg_chunk *c = calloc(nchunks, sizeof(*c));
	u64 total = nchunks * chunk_size, g = total / 4096, *pas = calloc(g + 2, 8), off;
	struct tb_sg t;
	unsigned int i, n;

	/* Chunks in reverse physical order, so sorting matters. */
	for (i = 0; i < nchunks; i++)
		c[i].phys = 0x40000000ULL + (u64)(nchunks - 1 - i) * chunk_size * 2, c[i].size = chunk_size;
	CHECK_EQ(tb_sg_build(&t, c, nchunks, &alloc), 0);
	CHECK_EQ(t.size, total);
	CHECK_EQ(t.nr_entries, g);
	CHECK_EQ(t.nr_tables, g <= 1024 ? 1 : 1 + (g - 1024 + 1022) / 1023);
	n = walk(&t, pas, g + 1);
	CHECK_EQ(n, g);
	for (i = 0; i < n && i < g; i++) {
		u64 want = c[i * 4096 / chunk_size].phys + (i * 4096ULL) % chunk_size;

		CHECK_EQ(pas[i], want);
		CHECK_EQ(tb_sg_offset(&t, want + 123, &off), 0);
		CHECK_EQ(off, i * 4096ULL + 123);
		CHECK_EQ(tb_sg_phys(&t, i * 4096ULL + 5), want + 5);
	}
	CHECK_EQ(tb_sg_offset(&t, 0x1000, &off), -ERANGE);
	CHECK_EQ(tb_sg_offset(&t, 0x40000000ULL + total * 2, &off), -ERANGE);

	/* Rotation: the walk starts at the given granule and wraps. */
	tb_sg_rotate(&t, (g / 3) * 4096ULL, 0);
	n = walk(&t, pas, g + 1);
	CHECK_EQ(n, g);
	for (i = 0; i < n && i < g; i++)
		CHECK_EQ(pas[i], tb_sg_phys(&t, ((g / 3 + i) % g) * 4096ULL));
	/* A shorter buffer: LAST after len bytes, then back to the start. */
	if (g > 2) {
		tb_sg_rotate(&t, (g / 2) * 4096ULL, (g - 2) * 4096ULL);
		n = walk(&t, pas, g + 1);
		CHECK_EQ(n, g - 2);
		for (i = 0; i < n && i < g; i++)
			CHECK_EQ(pas[i], tb_sg_phys(&t, ((g / 2 + i) % g) * 4096ULL));
	}
	tb_sg_rotate(&t, 0, t.size);
	n = walk(&t, pas, g + 1);
	CHECK_EQ(pas[0], tb_sg_phys(&t, 0));
	tb_sg_free(&t, &alloc);
	CHECK_EQ(tables_live, 0);
	free(c);
	free(pas);
}

int main(void)
{
	struct tb_sg_chunk bad[2] = { { 0x1000, 4096 }, { 0x2000, 4096 } };
	struct tb_sg t;

	test_layout(1, 4096);		/* one granule: LAST only */
	test_layout(4, 16384);
	test_layout(1, 1024 * 4096ULL);	/* exactly one table */
	test_layout(2, 1024 * 4096ULL);	/* a LINK */
	test_layout(64, 65536);		/* 1024 granules, 64 chunks */
	test_layout(8, 4 << 20);	/* 8192 granules: 9 tables */

	CHECK_EQ(tb_sg_build(&t, bad, 0, &alloc), -EINVAL);
	bad[1].size = 100;
	CHECK_EQ(tb_sg_build(&t, bad, 2, &alloc), -EINVAL);
	bad[1].size = 4096;
	bad[1].phys = 0x2001;
	CHECK_EQ(tb_sg_build(&t, bad, 2, &alloc), -EINVAL);
	bad[1].phys = 1ULL << 40;
	CHECK_EQ(tb_sg_build(&t, bad, 2, &alloc), -EINVAL);
	CHECK_EQ(tables_live, 0);
	return check_done();
}
