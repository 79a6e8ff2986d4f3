/* SPDX-License-Identifier: GPL-2.0 */
/*
 * TMC-ETR scatter-gather tables built from the AUX pages: pure table
 * logic, no register access. It compiles in the kernel and natively (the
 * unit test tests/unit/cs_sg.c), so it uses only <linux/types.h> and gets
 * memory through struct tb_sg_alloc.
 *
 * Layout (ARM DDI0461 / coresight-tmc-etr.c): 4 KiB table pages of 1024
 * 32-bit entries. Data granules are 4 KiB whatever the CPU page size: an
 * AUX chunk of 2^order CPU pages gives (2^order * page size) / 4 KiB
 * NORMAL entries, in AUX order, so the ETR's buffer offset equals the
 * AUX offset. The last entry of every table page but the last is a LINK
 * to the next table page; the final data granule is LAST, after which
 * the ETR wraps to the first entry. RSZ is the buffer's length: the
 * AUX size, or less (tb_sg_rotate()).
 *
 * The ETR reports its write pointer (RWP) as a physical address;
 * tb_sg_offset() turns it back into an AUX offset by a binary search
 * over the chunks sorted by physical address.
 */
#ifndef _TRACEBUF_CS_SG_H
#define _TRACEBUF_CS_SG_H

#include <linux/bits.h>
#include <linux/types.h>

/*
 * The entry format: 32-bit entries, PA[39:12] in bits 31:4, the type in
 * bits 1:0. NORMAL points at a data granule, LINK at the next table
 * page, LAST at the final data granule (after it the ETR wraps to the
 * first entry).
 */
#define TB_SG_PAGE_SHIFT	12
#define TB_SG_GRANULE		BIT(TB_SG_PAGE_SHIFT)	/* data granule and table page */
#define TB_SG_TABLE_ENTRIES	(TB_SG_GRANULE / 4)
#define TB_SG_ENTRY_ADDR_SHIFT	4
#define TB_SG_ENTRY_TYPE	GENMASK(1, 0)
#define TB_SG_ENTRY_LAST	0x1
#define TB_SG_ENTRY_NORMAL	0x2
#define TB_SG_ENTRY_LINK	0x3
#define TB_SG_MAX_PA		(BIT_ULL(40) - 1)

/* One physically contiguous piece of the AUX ring, in AUX order. */
struct tb_sg_chunk {
	u64 phys;
	u64 size;		/* bytes, a multiple of TB_SG_GRANULE */
};

struct tb_sg_table_page {
	u32 *ent;		/* TB_SG_TABLE_ENTRIES entries, 4 KiB aligned */
	u64 phys;
};

/* A chunk as tb_sg_offset() searches it. */
struct tb_sg_span {
	u64 phys;
	u64 size;
	u64 offset;		/* AUX offset of its first byte */
};

struct tb_sg {
	struct tb_sg_table_page *tables;
	unsigned int nr_tables;
	struct tb_sg_span *spans;	/* sorted by phys */
	struct tb_sg_span *order;	/* the same, in AUX order */
	unsigned int nr_spans;
	u64 size;			/* data bytes */
	u64 nr_entries;			/* data entries (granules) */
};

struct tb_sg_alloc {
	void *ctx;
	/* A zeroed, 4 KiB aligned table page and its physical address. */
	void *(*table_alloc)(void *ctx, u64 *phys);
	void (*table_free)(void *ctx, void *table);
	void *(*array_alloc)(void *ctx, size_t bytes);	/* zeroed */
	void (*array_free)(void *ctx, void *p);
};

/*
 * Build the tables for chunks[nr] (every phys 4 KiB aligned and below
 * 2^40, every size a non-zero multiple of 4 KiB). 0, -EINVAL, -ENOMEM.
 */
int tb_sg_build(struct tb_sg *t, const struct tb_sg_chunk *chunks,
		unsigned int nr, const struct tb_sg_alloc *a);
void tb_sg_free(struct tb_sg *t, const struct tb_sg_alloc *a);

/* The physical address of the first table page (the ETR's DBA). */
static inline u64 tb_sg_base(const struct tb_sg *t)
{
	return t->tables[0].phys;
}

/* AUX offset of physical address pa: 0, or -ERANGE if not in the ring. */
int tb_sg_offset(const struct tb_sg *t, u64 pa, u64 *off);

/*
 * Rewrite the data entries so that the ETR's buffer starts at AUX offset
 * first (granule aligned) and runs on around the ring: entry i holds the
 * granule at AUX offset (first + 4 KiB * i) mod size. LINKs stay.
 * len (a multiple of 4 KiB, at most size; 0: size) is the buffer's
 * length: the entry of its last granule is LAST, so the ETR wraps to
 * first after len bytes (whether it wraps at LAST or at RSZ, which the
 * caller sets to len too); the entries after it are never reached.
 * O(entries): it runs with interrupts off at every sink restart.
 * Buffer offset o is then AUX offset (first + o) mod size.
 */
void tb_sg_rotate(struct tb_sg *t, u64 first, u64 len);

/* Physical address of AUX offset off (< size); O(log chunks). */
u64 tb_sg_phys(const struct tb_sg *t, u64 off);

#endif /* _TRACEBUF_CS_SG_H */
