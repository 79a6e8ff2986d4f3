/* SPDX-License-Identifier: GPL-2.0 */
/*
 * ToPA (Table of Physical Addresses) builder for Intel PT output: pure
 * table logic, no register access. It builds the tables for an AUX ring
 * made of physically contiguous chunks, translates between AUX offsets and
 * the hardware's (table, entry, offset) output position, and places the
 * STOP and INT markers. It compiles both in the kernel and natively (the
 * unit test tests/unit/topa.c), so it uses only the types below and gets
 * memory through struct tb_topa_alloc.
 *
 * Layout, multi-entry ToPA: each table is one 4 KiB page of up to
 * TB_TOPA_ENTRIES entries. Every chunk is one entry (SIZE = its order); the
 * last entry of a table is an END link to the next table, and the last
 * table's END links back to the first, closing the ring.
 *
 * Layout, single-entry ToPA (CPUs without topa_multiple_entries): one
 * table per chunk, holding that chunk's entry and an END link back to the
 * same table, as the SDM requires; the driver moves OUTPUT_BASE from table
 * to table itself, so every region carries INT|STOP.
 */
#ifndef _TRACEBUF_TOPA_H
#define _TRACEBUF_TOPA_H

/* Natively, tests/unit/shim/linux/types.h provides the kernel's types. */
#include <linux/types.h>

#define TB_TOPA_TABLE_BYTES	4096
#define TB_TOPA_ENTRIES		(TB_TOPA_TABLE_BYTES / 8)

/* One physically contiguous piece of the AUX ring: 2^order 4 KiB pages. */
struct tb_topa_chunk {
	u64 phys;
	unsigned int order;
};

/* One output region: where it sits in the tables and in the AUX ring. */
struct tb_topa_region {
	u32 table;		/* index into tb_topa.tables */
	u32 index;		/* entry index in that table */
	u64 offset;		/* AUX offset of the region's first byte */
	u64 size;		/* bytes: 4096 << order */
};

struct tb_topa_table {
	u64 *ent;		/* the table, TB_TOPA_TABLE_BYTES, aligned */
	u64 phys;
};

struct tb_topa {
	struct tb_topa_table *tables;
	unsigned int nr_tables;
	struct tb_topa_region *regions;	/* in AUX order */
	unsigned int nr_regions;
	u64 size;			/* AUX bytes: sum of the regions */
	bool single;			/* single-entry ToPA layout */
	int stop_region;		/* region carrying STOP, or -1 */
	int int_region;			/* region carrying INT, or -1 */
};

/* Memory for the builder (kernel: pages and kvmalloc; tests: malloc). */
struct tb_topa_alloc {
	/* A zeroed, 4 KiB aligned table; its physical address in *phys. */
	void *(*table_alloc)(void *ctx, u64 *phys);
	void (*table_free)(void *ctx, void *table);
	void *(*array_alloc)(void *ctx, size_t bytes);	/* zeroed */
	void (*array_free)(void *ctx, void *p);
	void *ctx;
};

/*
 * Build tables for the chunks, in order. Returns 0, -EINVAL (no chunks, an
 * order above TB_TOPA_MAX_SIZE, a misaligned chunk) or -ENOMEM. On error
 * nothing is left allocated.
 */
int tb_topa_build(struct tb_topa *t, const struct tb_topa_chunk *chunks,
		  unsigned int nr, bool single, const struct tb_topa_alloc *a);
void tb_topa_free(struct tb_topa *t, const struct tb_topa_alloc *a);

/* The region holding AUX offset off (off < t->size). */
int tb_topa_region_of(const struct tb_topa *t, u64 off);

/*
 * AUX offset -> the values to program: OUTPUT_BASE (table physical
 * address) and OUTPUT_MASK_PTRS (0x7f | entry << 7 | offset << 32).
 */
void tb_topa_pos(const struct tb_topa *t, u64 off, u64 *base, u64 *mask);

/*
 * OUTPUT_BASE and OUTPUT_MASK_PTRS as read back -> AUX offset. An offset
 * equal to the region size (a full region the hardware has not yet left),
 * or offset 0 on a table's END entry (not yet followed), maps to the next
 * region's start. Returns 0, or -EINVAL if base is not
 * one of our tables or the entry/offset is out of range.
 */
int tb_topa_offset(const struct tb_topa *t, u64 base, u64 mask, u64 *off);

/* Is OUTPUT_BASE base one of our tables (the output is in our pages)? */
bool tb_topa_owns(const struct tb_topa *t, u64 base);

/*
 * Clear any previous STOP/INT markers, then put STOP on region stop_region
 * and INT on region int_region (-1: none). Single-entry layout: every
 * region keeps INT|STOP and this only records the values.
 */
void tb_topa_set_markers(struct tb_topa *t, int stop_region, int int_region);

#endif /* _TRACEBUF_TOPA_H */
