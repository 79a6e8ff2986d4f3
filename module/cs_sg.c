// SPDX-License-Identifier: GPL-2.0
/*
 * TMC-ETR scatter-gather table builder (see cs_sg.h). Pure logic. The
 * AUX size is a power of two.
 */
#ifdef __KERNEL__
#include <linux/errno.h>
#include <linux/sort.h>
#else
#include <errno.h>
#include <stdlib.h>
#endif
#include "cs_sg.h"

static u32 tb_sg_entry(u64 pa, u32 type)
{
	return (u32)((pa >> TB_SG_PAGE_SHIFT) << TB_SG_ENTRY_ADDR_SHIFT) | type;
}

static int tb_sg_span_cmp(const void *a, const void *b)
{
	const struct tb_sg_span *x = a, *y = b;

	return x->phys < y->phys ? -1 : x->phys > y->phys;
}

void tb_sg_free(struct tb_sg *t, const struct tb_sg_alloc *a)
{
	unsigned int i;

	if (t->tables) {
		for (i = 0; i < t->nr_tables; i++)
			if (t->tables[i].ent)
				a->table_free(a->ctx, t->tables[i].ent);
		a->array_free(a->ctx, t->tables);
	}
	if (t->spans)
		a->array_free(a->ctx, t->spans);
	if (t->order)
		a->array_free(a->ctx, t->order);
	t->tables = NULL;
	t->spans = NULL;
	t->order = NULL;
	t->nr_tables = 0;
	t->nr_spans = 0;
}

int tb_sg_build(struct tb_sg *t, const struct tb_sg_chunk *chunks,
		unsigned int nr, const struct tb_sg_alloc *a)
{
	u64 entries = 0, off = 0, g, done = 0;
	unsigned int i, tab = 0, idx = 0;

	t->tables = NULL;
	t->spans = NULL;
	t->order = NULL;
	t->nr_tables = 0;
	t->nr_spans = 0;
	if (!nr)
		return -EINVAL;
	for (i = 0; i < nr; i++) {
		if (!chunks[i].size || chunks[i].size % TB_SG_GRANULE ||
		    chunks[i].phys % TB_SG_GRANULE ||
		    chunks[i].phys + chunks[i].size - 1 > TB_SG_MAX_PA ||
		    chunks[i].phys + chunks[i].size < chunks[i].phys)
			return -EINVAL;
		entries += chunks[i].size / TB_SG_GRANULE;
	}
	/* Each table page holds 1023 data entries and a LINK; the last 1024. */
	t->nr_tables = entries <= TB_SG_TABLE_ENTRIES ? 1 :
		1 + (unsigned int)((entries - TB_SG_TABLE_ENTRIES +
				    TB_SG_TABLE_ENTRIES - 2) / (TB_SG_TABLE_ENTRIES - 1));
	t->tables = a->array_alloc(a->ctx, t->nr_tables * sizeof(*t->tables));
	t->spans = a->array_alloc(a->ctx, nr * sizeof(*t->spans));
	t->order = a->array_alloc(a->ctx, nr * sizeof(*t->order));
	if (!t->tables || !t->spans || !t->order)
		goto nomem;
	for (i = 0; i < t->nr_tables; i++) {
		t->tables[i].ent = a->table_alloc(a->ctx, &t->tables[i].phys);
		if (!t->tables[i].ent)
			goto nomem;
	}
	t->nr_spans = nr;
	t->size = entries * TB_SG_GRANULE;
	t->nr_entries = entries;
	for (i = 0; i < nr; i++) {
		t->order[i].phys = chunks[i].phys;
		t->order[i].size = chunks[i].size;
		t->order[i].offset = off;
		t->spans[i] = t->order[i];
		for (g = 0; g < chunks[i].size; g += TB_SG_GRANULE) {
			if (idx == TB_SG_TABLE_ENTRIES - 1 && tab + 1 < t->nr_tables) {
				t->tables[tab].ent[idx] =
					tb_sg_entry(t->tables[tab + 1].phys, TB_SG_ENTRY_LINK);
				tab++;
				idx = 0;
			}
			done++;
			t->tables[tab].ent[idx++] =
				tb_sg_entry(chunks[i].phys + g, done == entries ?
					    TB_SG_ENTRY_LAST : TB_SG_ENTRY_NORMAL);
		}
		off += chunks[i].size;
	}
#ifdef __KERNEL__
	sort(t->spans, nr, sizeof(*t->spans), tb_sg_span_cmp, NULL);
#else
	qsort(t->spans, nr, sizeof(*t->spans), tb_sg_span_cmp);
#endif
	return 0;
nomem:
	tb_sg_free(t, a);
	return -ENOMEM;
}

int tb_sg_offset(const struct tb_sg *t, u64 pa, u64 *off)
{
	unsigned int lo = 0, hi = t->nr_spans;

	while (lo < hi) {
		unsigned int mid = lo + (hi - lo) / 2;
		const struct tb_sg_span *sp = &t->spans[mid];

		if (pa < sp->phys) {
			hi = mid;
		} else if (pa - sp->phys >= sp->size) {
			lo = mid + 1;
		} else {
			*off = sp->offset + (pa - sp->phys);
			return 0;
		}
	}
	/* The end of the last granule is where the ETR wraps to the start. */
	return -ERANGE;
}

/* Data entry i: table pages but the last hold 1023 entries and a LINK. */
static u32 *tb_sg_slot(const struct tb_sg *t, u64 i)
{
	u64 tab = i / (TB_SG_TABLE_ENTRIES - 1);

	if (tab >= t->nr_tables)
		tab = t->nr_tables - 1;
	return &t->tables[tab].ent[i - tab * (TB_SG_TABLE_ENTRIES - 1)];
}

/* The chunk (in AUX order) holding AUX offset off (< size). */
static unsigned int tb_sg_chunk_of(const struct tb_sg *t, u64 off)
{
	unsigned int lo = 0, hi = t->nr_spans;

	while (hi - lo > 1) {
		unsigned int mid = lo + (hi - lo) / 2;

		if (t->order[mid].offset <= off)
			lo = mid;
		else
			hi = mid;
	}
	return lo;
}

void tb_sg_rotate(struct tb_sg *t, u64 first, u64 len)
{
	unsigned int c = tb_sg_chunk_of(t, first & (t->size - 1));
	u64 in = (first & (t->size - 1)) - t->order[c].offset, i;
	u64 last = (len ? len / TB_SG_GRANULE : t->nr_entries) - 1;

	for (i = 0; i < t->nr_entries; i++) {
		*tb_sg_slot(t, i) = tb_sg_entry(t->order[c].phys + in,
						i == last || i + 1 == t->nr_entries ?
						TB_SG_ENTRY_LAST : TB_SG_ENTRY_NORMAL);
		in += TB_SG_GRANULE;
		if (in == t->order[c].size) {
			in = 0;
			c = c + 1 == t->nr_spans ? 0 : c + 1;
		}
	}
}

u64 tb_sg_phys(const struct tb_sg *t, u64 off)
{
	unsigned int c = tb_sg_chunk_of(t, off);

	return t->order[c].phys + (off - t->order[c].offset);
}
