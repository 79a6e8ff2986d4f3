// SPDX-License-Identifier: GPL-2.0
/*
 * ToPA table builder: see topa.h. Pure table logic, shared by the module
 * and the host unit test (tests/unit/topa.c), so it uses nothing beyond
 * <linux/types.h>, <linux/bits.h>, <linux/errno.h> and <linux/string.h>.
 */
#include <linux/bits.h>
#include <linux/errno.h>
#include <linux/string.h>
#include <linux/types.h>

#include "pt_hw.h"
#include "topa.h"

/* Region entries per table in the multi-entry layout: the rest is the END. */
#define TB_TOPA_REGIONS_PER_TABLE	(TB_TOPA_ENTRIES - 1)

static u64 tb_topa_region_entry(u64 phys, unsigned int order)
{
	return (phys & TB_TOPA_BASE) |
	       (((u64)order << TB_TOPA_SIZE_SHIFT) & TB_TOPA_SIZE);
}

static u64 tb_topa_end_entry(u64 next_table_phys)
{
	return (next_table_phys & TB_TOPA_BASE) | TB_TOPA_END;
}

/* The regions table k holds: [*first, *first + return value). */
static unsigned int tb_topa_table_regions(const struct tb_topa *t,
					  unsigned int k, unsigned int *first)
{
	unsigned int left;

	if (t->single) {
		*first = k;
		return 1;
	}
	*first = k * TB_TOPA_REGIONS_PER_TABLE;
	left = t->nr_regions - *first;
	return left < TB_TOPA_REGIONS_PER_TABLE ? left :
						  TB_TOPA_REGIONS_PER_TABLE;
}

static u64 *tb_topa_region_ent(const struct tb_topa *t, int r)
{
	const struct tb_topa_region *reg = &t->regions[r];

	return &t->tables[reg->table].ent[reg->index];
}

static int tb_topa_check_chunks(const struct tb_topa_chunk *chunks,
				unsigned int nr)
{
	unsigned int i;

	if (!chunks || !nr)
		return -EINVAL;
	for (i = 0; i < nr; i++) {
		u64 align;

		if (chunks[i].order > TB_TOPA_MAX_SIZE)
			return -EINVAL;
		align = (u64)TB_TOPA_TABLE_BYTES << chunks[i].order;
		if (chunks[i].phys & (align - 1))
			return -EINVAL;
		if (chunks[i].phys & ~TB_TOPA_BASE)
			return -EINVAL;	/* beyond 52 physical address bits */
	}
	return 0;
}

static void tb_topa_fill(struct tb_topa *t, const struct tb_topa_chunk *chunks)
{
	unsigned int k, i;

	for (k = 0; k < t->nr_tables; k++) {
		struct tb_topa_table *tab = &t->tables[k];
		unsigned int first, n;
		u64 next;

		n = tb_topa_table_regions(t, k, &first);
		for (i = 0; i < n; i++) {
			const struct tb_topa_chunk *c = &chunks[first + i];
			u64 ent = tb_topa_region_entry(c->phys, c->order);

			if (t->single)
				ent |= TB_TOPA_INT | TB_TOPA_STOP;
			tab->ent[i] = ent;
		}
		/* Single: back to this table. Multi: on to the next, in a ring. */
		if (t->single)
			next = tab->phys;
		else
			next = t->tables[k + 1 < t->nr_tables ? k + 1 : 0].phys;
		tab->ent[n] = tb_topa_end_entry(next);
	}
}

int tb_topa_build(struct tb_topa *t, const struct tb_topa_chunk *chunks,
		  unsigned int nr, bool single, const struct tb_topa_alloc *a)
{
	unsigned int k, i;
	u64 off = 0;
	int ret;

	memset(t, 0, sizeof(*t));
	t->stop_region = -1;
	t->int_region = -1;

	ret = tb_topa_check_chunks(chunks, nr);
	if (ret)
		goto err;

	t->single = single;
	if (single)
		t->nr_tables = nr;
	else
		t->nr_tables = nr / TB_TOPA_REGIONS_PER_TABLE +
			       !!(nr % TB_TOPA_REGIONS_PER_TABLE);

	t->regions = a->array_alloc(a->ctx, sizeof(*t->regions) * nr);
	if (!t->regions)
		goto nomem;
	t->nr_regions = nr;

	t->tables = a->array_alloc(a->ctx, sizeof(*t->tables) * t->nr_tables);
	if (!t->tables)
		goto nomem;

	for (k = 0; k < t->nr_tables; k++) {
		struct tb_topa_table *tab = &t->tables[k];

		tab->ent = a->table_alloc(a->ctx, &tab->phys);
		if (!tab->ent)
			goto nomem;
		if (tab->phys & ~TB_TOPA_BASE) {
			ret = -EINVAL;	/* the allocator broke its contract */
			goto err;
		}
	}

	for (i = 0; i < nr; i++) {
		struct tb_topa_region *reg = &t->regions[i];

		if (single) {
			reg->table = i;
			reg->index = 0;
		} else {
			reg->table = i / TB_TOPA_REGIONS_PER_TABLE;
			reg->index = i % TB_TOPA_REGIONS_PER_TABLE;
		}
		reg->offset = off;
		reg->size = (u64)TB_TOPA_TABLE_BYTES << chunks[i].order;
		off += reg->size;
	}
	t->size = off;

	tb_topa_fill(t, chunks);
	return 0;

nomem:
	ret = -ENOMEM;
err:
	tb_topa_free(t, a);
	return ret;
}

void tb_topa_free(struct tb_topa *t, const struct tb_topa_alloc *a)
{
	unsigned int k;

	if (t->tables) {
		for (k = 0; k < t->nr_tables; k++) {
			if (t->tables[k].ent)
				a->table_free(a->ctx, t->tables[k].ent);
		}
		a->array_free(a->ctx, t->tables);
	}
	if (t->regions)
		a->array_free(a->ctx, t->regions);
	memset(t, 0, sizeof(*t));
}

/* Returns -EINVAL when off is not below t->size. */
int tb_topa_region_of(const struct tb_topa *t, u64 off)
{
	unsigned int lo = 0, hi = t->nr_regions;

	if (off >= t->size)
		return -EINVAL;

	/* The last region whose offset is <= off: in [lo, hi). */
	while (hi - lo > 1) {
		unsigned int mid = lo + (hi - lo) / 2;

		if (t->regions[mid].offset <= off)
			lo = mid;
		else
			hi = mid;
	}
	return lo;
}

/* An off outside the ring (a caller bug) gives the start of the ring. */
void tb_topa_pos(const struct tb_topa *t, u64 off, u64 *base, u64 *mask)
{
	const struct tb_topa_region *reg;
	int r;

	*base = 0;
	*mask = TB_RTIT_MASK_LOWBITS;
	if (!t->nr_regions)
		return;

	r = tb_topa_region_of(t, off);
	if (r < 0) {
		r = 0;
		off = 0;
	}
	reg = &t->regions[r];
	*base = t->tables[reg->table].phys;
	*mask = TB_RTIT_MASK_LOWBITS |
		((u64)reg->index << TB_RTIT_MASK_TABLE_OFF_SHIFT) |
		((off - reg->offset) << TB_RTIT_MASK_OUTPUT_OFF_SHIFT);
}

bool tb_topa_owns(const struct tb_topa *t, u64 base)
{
	unsigned int k;

	for (k = 0; k < t->nr_tables; k++)
		if (t->tables[k].phys == (base & ~(u64)(TB_TOPA_TABLE_BYTES - 1)))
			return true;
	return false;
}

int tb_topa_offset(const struct tb_topa *t, u64 base, u64 mask, u64 *off)
{
	u64 index = (mask & TB_RTIT_MASK_TABLE_OFF) >>
		    TB_RTIT_MASK_TABLE_OFF_SHIFT;
	u64 out = mask >> TB_RTIT_MASK_OUTPUT_OFF_SHIFT;
	const struct tb_topa_region *reg;
	unsigned int k, first, n;

	for (k = 0; k < t->nr_tables; k++) {
		if (t->tables[k].phys == base)
			break;
	}
	if (k == t->nr_tables)
		return -EINVAL;

	n = tb_topa_table_regions(t, k, &first);
	if (index == n && !out) {
		/*
		 * On the END entry, not yet followed (the SDM does not say
		 * when it is read; perf's pt_update_head() counts it as the
		 * end of the table): the next table's first region. In the
		 * single-entry layout END links back to this table, but its
		 * region carries STOP, so the hardware never gets there.
		 */
		*off = first + n < t->nr_regions ? t->regions[first + n].offset : 0;
		return 0;
	}
	if (index >= n)
		return -EINVAL;	/* past the END entry */

	reg = &t->regions[first + index];
	if (out > reg->size)
		return -EINVAL;
	if (out < reg->size)
		*off = reg->offset + out;
	else if (first + index + 1 < t->nr_regions)
		*off = reg[1].offset;
	else
		*off = 0;
	return 0;
}

void tb_topa_set_markers(struct tb_topa *t, int stop_region, int int_region)
{
	int nr = t->nr_regions;

	if (stop_region < 0 || stop_region >= nr)
		stop_region = -1;
	if (int_region < 0 || int_region >= nr)
		int_region = -1;

	if (!t->single) {
		if (t->stop_region >= 0 && t->stop_region < nr)
			*tb_topa_region_ent(t, t->stop_region) &= ~TB_TOPA_STOP;
		if (t->int_region >= 0 && t->int_region < nr)
			*tb_topa_region_ent(t, t->int_region) &= ~TB_TOPA_INT;
		if (stop_region >= 0)
			*tb_topa_region_ent(t, stop_region) |= TB_TOPA_STOP;
		if (int_region >= 0)
			*tb_topa_region_ent(t, int_region) |= TB_TOPA_INT;
	}
	t->stop_region = stop_region;
	t->int_region = int_region;
}
