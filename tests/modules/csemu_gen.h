/* SPDX-License-Identifier: GPL-2.0 */
/*
 * csemu_gen.h - ETMv4 instruction trace generator and CoreSight TMC
 * formatter.
 *
 * Freestanding: usable in the CoreSight emulator module
 * (tb_csemu, tests/modules/csemu_*.c) and natively in userspace (tests/unit/csgen.c,
 * tests/host/cscheck.c, built with tests/unit/shim for <linux/types.h>).
 * Only <linux/types.h> (and, outside the kernel, the compiler's <stdbool.h>
 * and <stddef.h>); everything static inline; no floating point, no 64-bit
 * division.
 *
 * ETMv4 packets (IHI0064; encodings as OpenCSD's trc_pkt_proc_etmv4i.cpp
 * parses them), all instruction addresses A64 (IS0), non-secure, AArch64:
 *
 *   A-sync        00 x 11, 80
 *   Trace Info    01, PLCTL, INFO [, CYCT]: PLCTL 01 (INFO only) or 09
 *                 (INFO + CYCT); INFO bit 0 = cycle counting, CYCT = the
 *                 TRCCCCTLR threshold (continuation bytes: 7 bits each,
 *                 bit 7 = more)
 *   Timestamp     02 (03 with a cycle count) + 1..8 continuation bytes of
 *                 the low-order bits that changed [+ cycle count, 1..3]
 *   Trace On      04
 *   Exception     06, (TYPE << 1) | 1: type in [5:1], E1:E0 = 01 (the
 *                 preferred return address follows in an address packet)
 *   Cycle count   0e + count - threshold (F1), 1x (F3: count - threshold
 *                 in [1:0]); only with TRCIDR0.COMMOPT = 1 (no commit field)
 *   Context       81, INFO: EL [1:0], SF bit 4, NS bit 5, VMID present bit 6,
 *                 CID present bit 7; then VMID (TRCIDR2.VMIDSIZE bytes, ETMv4.1
 *                 or later) and CONTEXTIDR (4 bytes)
 *   Address       9d + 8 (64-bit), 9a + 4 (32-bit: low half, high half as the
 *                 last address), 95 + 1 or 2 (short: bits [8:2] or [16:2]),
 *                 90..92 (exact match of address history entry 0..2);
 *                 85 / 82: 64-bit / 32-bit address with context (the context
 *                 packet's INFO, VMID and CID after the address)
 *   Atoms         F1 f6/f7, F2 d8-db, F3 f8-ff, F4 dc-df, F5 d5-d7/f5,
 *                 F6 c0-d4/e0-f4 (all formats are used)
 *
 * The address history (three entries, for compression and exact matches)
 * is cleared by Trace Info, so the first address after a sync is a full
 * 64-bit one.
 *
 * The synthetic program. Code runs in "blocks" of up to 16 instructions, in
 * four 4 GiB regions: user program text and shared libraries at EL0, kernel
 * text and modules/vmalloc at EL1 (CSGEN_*_BASE). A block is entered by an
 * indirect branch (BR/BLR), an exception or an exception return, and left
 * the same way: blocks branch to new blocks, call new blocks (BLR, with the
 * return address pushed), return to the caller (RET), take exceptions to
 * EL1 handler blocks (SVC, trap, data abort, IRQ; nested at most twice) and
 * return from them (ERET, now and then to another task: a new CONTEXTIDR
 * value and a new block). Conditional and direct branches inside a block are
 * atoms; with branch broadcasting (TRCCONFIGR.BB) every taken branch is
 * followed by its address packet (so only the newest atom of a packet is E).
 *
 * Sequence scheme. Every new block gets the entry address
 *   region base + (seq << 6)        (CSGEN_SLOT_SHIFT)
 * where seq is the generator's next sequence number; if the block is traced,
 * seq then increments (modulo 2^26, CSGEN_SEQ_MASK). Execution elsewhere in
 * a block, the resume points of returns, exception returns and periodic
 * syncs, and exception return addresses are at entry + 4 * (1..15): so an
 * address packet carrying a region address whose low 6 bits are zero is a
 * block entry ("marker", csgen_marker()), emitted exactly once per traced
 * block, in order, and the markers of one trace unit are 0, 1, 2, ... with
 * nothing lost or repeated, across csgen_stop/csgen_start too. The caller
 * may read g->seq (the next one), g->blocks (markers written) and g->bytes.
 *
 * Filtering decides per block, on its entry address and exception level:
 * a block is traced unless TRCVICTLR.EXLEVEL_NS excludes its EL (bit 20 + EL),
 * or it is in an exclude range (TRCVIIECTLR[19:16], pairs 0..3), or include
 * ranges are selected (TRCVIIECTLR[3:0]) and it is in none of them. A range
 * pair n is acvr[2n] <= address <= acvr[2n + 1], and matches only at an EL
 * that neither comparator's TRCACATR.EXLEVEL_NS excludes (csgen_in_ranges():
 * tb_csemu's follow mode decides per instruction with the same functions,
 * and its start/stop logic with csgen_ss_step()). Trace stops after the
 * taken branch (or the exception packet) that leaves the last traced block
 * and restarts with Trace On, Context and the address where tracing resumes.
 *
 * Output per call:
 *   csgen_start  A-sync, Trace Info, [Timestamp], then, if the block the
 *                program branches to is traced: Trace On, Context, Address
 *                (a 64-bit one: the history is clear)
 *   csgen_step   up to CSGEN_STEP_BLOCKS blocks, while CSGEN_STEP_MIN bytes
 *                are left; per traced block:
 *                [A-sync, Trace Info, [Timestamp], address with context:
 *                 when 2^TRCSYNCPR bytes have passed since the last sync]
 *                [Timestamp: TRCTSCTLR != 0 and ts_interval cycles passed]
 *                atoms [cycle counts] [BB addresses], then the transition:
 *                the taken branch's atom [cycle count] or the exception
 *                packet and its return address, then the target's
 *                [Context] Address; the decoder's return stack supplies the
 *                target of a RET that matches it (TRCCONFIGR.RS; depth
 *                CSGEN_RS_DEPTH, cleared by Trace Info and Trace On), so
 *                those have no address packet; where tracing resumes after
 *                filtered code: [A-sync, Trace Info, [Timestamp] if due],
 *                Trace On, Context, Address
 *   csgen_stop   the last atoms of the current block, if it is traced
 * The random choices come from a xorshift32 seeded by csgen_init's
 * arguments: the same calls give the same bytes.
 *
 * The TMC formatter (IHI0029 D4, as OpenCSD's trc_frame_deformatter.cpp
 * unpacks it): 16-byte frames; bytes 0, 2, ..., 14 are an ID change (bit 0
 * set, ID in [7:1]) or data (bit 0 clear, the data's bit 0 in byte 15 bit
 * n/2); odd bytes are data; byte 15 bit n/2 of an ID change at byte n says
 * the byte after it still belongs to the previous ID. Every frame here
 * starts with an ID change (a decoder that starts at any frame knows the
 * source at once); a flush completes the frame with trace ID 0 (the null
 * source, ignored by decoders). Frames are written in memory order with no
 * frame syncs, as a TMC in circular-buffer or software FIFO mode writes them.
 */
#ifndef TB_CSEMU_GEN_H
#define TB_CSEMU_GEN_H

#include <linux/types.h>
#ifndef __KERNEL__
#include <stdbool.h>
#include <stddef.h>
#endif

/*
 * ID registers of a Cortex-A72-like ETMv4.2 for snapshots and the emulated
 * TRCIDRn: 64-bit timestamps, COMMOPT 1, return stack, cycle counting,
 * branch broadcast, 4 events, no data/conditional/Q trace (TRCIDR0); Arm
 * ETMv4.2 (TRCIDR1); 64-bit instruction addresses, 32-bit CONTEXTIDR and
 * VMID, 12-bit cycle counter (TRCIDR2); CCITMIN 4 (TRCIDR3); 4 address
 * comparator pairs (TRCIDR4); 7-bit trace IDs (TRCIDR5); no speculation
 * (TRCIDR8 = 0).
 */
#define CSGEN_IDR0		0x28000ea1u
#define CSGEN_IDR1		0x4100f421u
#define CSGEN_IDR2		0x20001088u
#define CSGEN_IDR3		0x0d7b0004u
#define CSGEN_IDR4		0x11170004u
#define CSGEN_IDR5		0x28c7081eu
#define CSGEN_IDR6		0x00000000u
#define CSGEN_IDR7		0x00000000u
#define CSGEN_IDR8		0x00000000u
#define CSGEN_IDR9		0x00000000u
#define CSGEN_IDR10		0x00000000u
#define CSGEN_IDR11		0x00000000u
#define CSGEN_IDR12		0x00000000u
#define CSGEN_IDR13		0x00000000u
#define CSGEN_AUTHSTATUS	0x000000ccu	/* non-invasive debug enabled */

/* TRCIDR fields used. */
#define CSGEN_IDR0_BB		0x00000020u
#define CSGEN_IDR0_CCI		0x00000080u
#define CSGEN_IDR0_RETSTACK	0x00000200u
#define CSGEN_IDR0_COMMOPT	0x20000000u

/* TRCCONFIGR bits. */
#define CSGEN_CONFIGR_BB	0x00000008u
#define CSGEN_CONFIGR_CCI	0x00000010u
#define CSGEN_CONFIGR_CID	0x00000040u
#define CSGEN_CONFIGR_VMID	0x00000080u
#define CSGEN_CONFIGR_TS	0x00000800u
#define CSGEN_CONFIGR_RS	0x00001000u

/* TRCVICTLR.EXLEVEL_NS: bit CSGEN_VICTLR_EXLEVEL_NS_SHIFT + EL excludes EL. */
#define CSGEN_VICTLR_EXLEVEL_NS_SHIFT	20
#define CSGEN_VICTLR_EXCL_EL0	0x00100000u
#define CSGEN_VICTLR_EXCL_EL1	0x00200000u

/* TRCVIIECTLR: include range pairs [3:0], exclude [19:16] (4 pairs, TRCIDR4). */
#define CSGEN_NR_RANGES		4
#define CSGEN_VIIECTLR_EXCL_SHIFT	16

/* TRCACATRn.EXLEVEL_NS: bit CSGEN_ACATR_EXLEVEL_NS_SHIFT + EL, no match at EL. */
#define CSGEN_ACATR_EXLEVEL_NS_SHIFT	12

/* Where the synthetic program lives: four 4 GiB regions. */
#define CSGEN_REGION_USER	0	/* EL0: program text */
#define CSGEN_REGION_ULIB	1	/* EL0: shared libraries */
#define CSGEN_REGION_KERN	2	/* EL1: kernel text */
#define CSGEN_REGION_KMOD	3	/* EL1: modules, vmalloc */
#define CSGEN_NR_REGIONS	4
#define CSGEN_USER_BASE		0x0000aaaa00000000ULL
#define CSGEN_ULIB_BASE		0x0000ffff00000000ULL
#define CSGEN_KERN_BASE		0xffff800000000000ULL
#define CSGEN_KMOD_BASE		0xffff800100000000ULL
#define CSGEN_REGION_SIZE	0x100000000ULL

/* Block entries ("markers"): region base + (seq << CSGEN_SLOT_SHIFT). */
#define CSGEN_SLOT_SHIFT	6
#define CSGEN_SEQ_MASK		0x03ffffffu	/* sequence numbers wrap at 2^26 */

/* Exception types (ETMv4 exception packet, ARMv8-A). */
#define CSGEN_EXC_CALL		0x2	/* SVC */
#define CSGEN_EXC_TRAP		0x3
#define CSGEN_EXC_DATA_FAULT	0xc
#define CSGEN_EXC_IRQ		0xe

/*
 * Buffer sizes. csgen_start and csgen_stop write at most CSGEN_START_MAX
 * bytes (and do nothing with a smaller buffer); csgen_step runs blocks while
 * at least CSGEN_STEP_MIN bytes are left (one block writes at most
 * CSGEN_BLOCK_MAX), up to CSGEN_STEP_BLOCKS of them.
 */
#define CSGEN_ASYNC_SIZE	12
#define CSGEN_TINFO_MAX		5	/* header, PLCTL, INFO, 2-byte CYCT */
#define CSGEN_TS_MAX		12	/* header, 8 TS bytes, 3 count bytes */
#define CSGEN_CTXT_MAX		10	/* header, INFO, 4 VMID, 4 CID bytes */
#define CSGEN_ADDR_MAX		9
#define CSGEN_CTXT_ADDR_MAX	(CSGEN_CTXT_MAX + CSGEN_ADDR_MAX)	/* 81 + 9d; 85: 18 */
#define CSGEN_CC_MAX		3	/* counts below 2^14 */
#define CSGEN_SYNC_MAX		(CSGEN_ASYNC_SIZE + CSGEN_TINFO_MAX + CSGEN_TS_MAX)
#define CSGEN_BODY_ATOMS	3	/* atom packets per block body, at most */
/* [sync, context, address | timestamp] body, exception, address, context, address */
#define CSGEN_BLOCK_MAX		(CSGEN_SYNC_MAX + CSGEN_CTXT_ADDR_MAX + CSGEN_TS_MAX + \
				 CSGEN_BODY_ATOMS * (1 + CSGEN_CC_MAX + CSGEN_ADDR_MAX) + \
				 2 + CSGEN_ADDR_MAX + CSGEN_CTXT_ADDR_MAX)
#define CSGEN_START_MAX		64
#define CSGEN_STEP_MIN		160
#define CSGEN_STEP_BLOCKS	16

#define CSGEN_STACK_DEPTH	12	/* call and exception frames */
#define CSGEN_RS_DEPTH		4	/* the trace unit's return stack */
#define CSGEN_TS_BASE		0x0000001000000000ULL	/* timestamp at cycle 0 */

struct csgen_cfg {		/* what the ETM was programmed with */
	u32 configr;		/* TRCCONFIGR: BB, CCI, CID, VMID, TS, RS */
	u32 victlr;		/* TRCVICTLR: EXLEVEL_NS exclude bits [23:20] */
	u32 viiectlr;		/* TRCVIIECTLR include [3:0], exclude [19:16] */
	u64 acvr[8];		/* TRCACVRn: pair n is acvr[2n]..acvr[2n + 1] */
	u64 acatr[8];		/* TRCACATRn: EXLEVEL_NS [15:12] (0: every EL) */
	u32 ccctlr;		/* TRCCCCTLR threshold [11:0] */
	u32 syncpr;		/* TRCSYNCPR: sync every 2^syncpr bytes, 0 never */
	u32 tsctlr;		/* TRCTSCTLR: != 0 periodic timestamps */
	u32 ts_interval;	/* cycles between them (0: only at syncs) */
	u32 trcidr0, trcidr2;	/* field sizes and options */
	u32 contextid, vmid;	/* CONTEXTIDR (of task 0), VMID */
};

enum { CSGEN_FRAME_CALL = 1, CSGEN_FRAME_EXC = 2 };

struct csgen_frame {		/* where a RET or ERET returns to */
	u64 slot;
	u8 pos;
	u8 el;
	u8 kind;
};

struct csgen {
	struct csgen_cfg cfg;
	/* read-only for the caller */
	u32 seq;		/* sequence number of the next traced block */
	u64 blocks;		/* traced blocks (markers written) since init */
	u64 bytes;		/* bytes written since init */
	bool enabled;		/* between csgen_start and csgen_stop */
	/* private: the synthetic program */
	u32 rng;
	u32 cpu;
	u64 slot;		/* entry address of the current block */
	u8 pos;			/* instruction in it, 1..15 */
	u8 el;
	bool traced;		/* ViewInst active in the current block */
	u32 task;		/* CONTEXTIDR = cfg.contextid + task */
	u32 depth, exc_depth;
	struct csgen_frame stack[CSGEN_STACK_DEPTH];
	u64 cycles;
	/* private: trace unit state */
	u64 hist[3];		/* address history */
	u64 rs[CSGEN_RS_DEPTH];	/* return stack, rs[rs_n - 1] the top */
	u32 rs_n;
	bool ctx_valid;		/* a context was output since the last sync */
	u8 ctx_el;
	u32 ctx_cid;
	bool ts_valid;
	u64 ts_last;
	u64 ts_cycles;		/* cycles at the last timestamp */
	u64 cc_cycles;		/* cycles at the last cycle count */
	u32 since_sync;		/* bytes */
	u32 sync_period;
	/* private: from cfg */
	bool bb, cci, cc_pkts, cid_en, vmid_en, ts_en, rs_en;
	u8 cid_bytes, vmid_bytes;
	u32 cc_thresh, cc_max;
};

/* ---- regions and markers ---- */

static inline u64 csgen_region_base(unsigned int region)
{
	switch (region) {
	case CSGEN_REGION_USER:
		return CSGEN_USER_BASE;
	case CSGEN_REGION_ULIB:
		return CSGEN_ULIB_BASE;
	case CSGEN_REGION_KERN:
		return CSGEN_KERN_BASE;
	default:
		return CSGEN_KMOD_BASE;
	}
}

/* The region addr is in, or -1. */
static inline int csgen_region(u64 addr)
{
	unsigned int r;

	for (r = 0; r < CSGEN_NR_REGIONS; r++)
		if (addr - csgen_region_base(r) < CSGEN_REGION_SIZE)
			return (int)r;
	return -1;
}

/*
 * If addr is a block entry (a marker), its region; *seq is the block's
 * sequence number. Otherwise -1.
 */
static inline int csgen_marker(u64 addr, u32 *seq)
{
	int r = csgen_region(addr);
	u64 off;

	if (r < 0)
		return -1;
	off = addr - csgen_region_base((unsigned int)r);
	if (off & ((1u << CSGEN_SLOT_SHIFT) - 1))
		return -1;
	*seq = (u32)(off >> CSGEN_SLOT_SHIFT);
	return r;
}

/* A configuration with the default ID registers, tracing everything. */
static inline void csgen_cfg_default(struct csgen_cfg *cfg)
{
	u8 *p = (u8 *)cfg;
	size_t i;

	for (i = 0; i < sizeof(*cfg); i++)
		p[i] = 0;
	cfg->syncpr = 12;
	cfg->ccctlr = 0x100;
	cfg->trcidr0 = CSGEN_IDR0;
	cfg->trcidr2 = CSGEN_IDR2;
}

/* ---- packet encoders: each returns the number of bytes written ---- */

/* A continuation field: 7 bits per byte, bit 7 set on all but the last. */
static inline unsigned int csgen_enc_cont(u8 *buf, u32 v)
{
	unsigned int n = 0;

	do {
		buf[n] = (u8)(v & 0x7f);
		v >>= 7;
		if (v)
			buf[n] |= 0x80;
		n++;
	} while (v);
	return n;
}

static inline unsigned int csgen_enc_async(u8 *buf)
{
	unsigned int i;

	for (i = 0; i < CSGEN_ASYNC_SIZE - 1; i++)
		buf[i] = 0;
	buf[CSGEN_ASYNC_SIZE - 1] = 0x80;
	return CSGEN_ASYNC_SIZE;
}

static inline unsigned int csgen_enc_tinfo(u8 *buf, bool cci, u32 threshold)
{
	buf[0] = 0x01;
	if (!cci) {
		buf[1] = 0x01;			/* INFO section only */
		buf[2] = 0x00;
		return 3;
	}
	buf[1] = 0x09;				/* INFO and CYCT sections */
	buf[2] = 0x01;				/* cycle counting enabled */
	return 3 + csgen_enc_cont(buf + 3, threshold & 0xfff);
}

/* Timestamp: the low 7 * groups bits of ts, [cycle count]. */
static inline unsigned int csgen_enc_ts(u8 *buf, u64 ts, unsigned int groups,
					bool cc, u32 count)
{
	unsigned int n = 1, i;

	buf[0] = cc ? 0x03 : 0x02;
	for (i = 0; i < groups; i++) {
		buf[n] = (u8)((ts >> (7 * i)) & 0x7f);
		if (i + 1 < groups)
			buf[n] |= 0x80;
		n++;
	}
	if (cc)
		n += csgen_enc_cont(buf + n, count);
	return n;
}

static inline unsigned int csgen_enc_exception(u8 *buf, unsigned int type)
{
	buf[0] = 0x06;
	buf[1] = (u8)(((type & 0x1f) << 1) | 0x01);
	return 2;
}

/* Address payloads, IS0: bits [8:2] and [15:9] in 7-bit bytes, then bytes. */
static inline unsigned int csgen_enc_addr_payload(u8 *buf, u64 addr,
						  unsigned int bytes)
{
	unsigned int i;

	buf[0] = (u8)((addr >> 2) & 0x7f);
	buf[1] = (u8)((addr >> 9) & 0x7f);
	for (i = 2; i < bytes; i++)
		buf[i] = (u8)(addr >> (8 * i));
	return bytes;
}

static inline unsigned int csgen_enc_short_addr(u8 *buf, u64 addr, bool two)
{
	buf[0] = 0x95;
	if (!two) {
		buf[1] = (u8)((addr >> 2) & 0x7f);
		return 2;
	}
	buf[1] = (u8)(0x80 | ((addr >> 2) & 0x7f));
	buf[2] = (u8)(addr >> 9);
	return 3;
}

/* ---- the generator ---- */

static inline u32 csgen_rand(struct csgen *g)
{
	u32 x = g->rng;

	x ^= x << 13;
	x ^= x >> 17;
	x ^= x << 5;
	g->rng = x;
	return x;
}

static inline void csgen_init(struct csgen *g, u32 seed, u32 cpu)
{
	u8 *p = (u8 *)g;
	size_t i;

	for (i = 0; i < sizeof(*g); i++)
		p[i] = 0;
	g->cpu = cpu;
	g->rng = (seed * 0x9e3779b9u) ^ (cpu * 0x85ebca6bu) ^ 0x2545f491u;
	if (!g->rng)
		g->rng = 1;
	for (i = 0; i < 8; i++)
		csgen_rand(g);
	g->slot = CSGEN_USER_BASE;
	g->pos = 1;
}

/*
 * Does address comparator n take part at exception level el? Not where its
 * TRCACATRn.EXLEVEL_NS bit for el is set (IHI0064, TRCACATRn: the
 * comparator never matches in an EL it excludes).
 */
static inline bool csgen_ac_el(const struct csgen_cfg *c, unsigned int n, u32 el)
{
	return !((c->acatr[n] >> (CSGEN_ACATR_EXLEVEL_NS_SHIFT + el)) & 1);
}

/* Single address comparator n matches the instruction at addr, at el. */
static inline bool csgen_ac_match(const struct csgen_cfg *c, unsigned int n, u64 addr,
				  u32 el)
{
	return n < 2 * CSGEN_NR_RANGES && csgen_ac_el(c, n, el) && addr == c->acvr[n];
}

/*
 * ViewInst's start/stop logic (IHI0064, "ViewInst start/stop control")
 * for the instruction at addr, at exception level el, with TRCVISSCTLR
 * vissctlr (START [15:0], STOP [31:16], one bit per single address
 * comparator): *started is the logic's state before the instruction
 * (TRCVICTLR.SSSTATUS at the enable) and after it. The instruction at a
 * start point is traced (started from it on), the one at a stop point
 * too (stopped after it). Returns whether the logic lets the instruction
 * be traced; *both: it is both a start and a stop point (the callers do
 * not model that).
 */
static inline bool csgen_ss_step(const struct csgen_cfg *c, u32 vissctlr, bool *started,
				 u64 addr, u32 el, bool *both)
{
	bool start = false, stop = false, active;
	unsigned int k;

	for (k = 0; k < 2 * CSGEN_NR_RANGES; k++) {
		if (((vissctlr >> k) & 1) && csgen_ac_match(c, k, addr, el))
			start = true;
		if (((vissctlr >> (16 + k)) & 1) && csgen_ac_match(c, k, addr, el))
			stop = true;
	}
	*both = start && stop;
	if (start)
		*started = true;
	active = *started;
	if (stop)
		*started = false;
	return active;
}

/*
 * Is addr, at exception level el, in one of the range pairs selected in
 * pairs? Pair n: acvr[2n] <= addr <= acvr[2n + 1] (IHI0064, address range
 * comparators; a pair whose low address is above its high one matches
 * nothing), at an EL neither comparator's TRCACATR excludes (where the two
 * differ, the stricter of them).
 */
static inline bool csgen_in_ranges(const struct csgen *g, u64 addr, u32 pairs, u32 el)
{
	const struct csgen_cfg *c = &g->cfg;
	unsigned int i;

	for (i = 0; i < CSGEN_NR_RANGES; i++)
		if ((pairs >> i) & 1 && addr >= c->acvr[2 * i] && addr <= c->acvr[2 * i + 1] &&
		    csgen_ac_el(c, 2 * i, el) && csgen_ac_el(c, 2 * i + 1, el))
			return true;
	return false;
}

/*
 * ViewInst's exception-level and include/exclude parts for an instruction
 * (or a block) at addr, at exception level el (IHI0064, the ViewInst
 * function: TRCVICTLR.EXLEVEL_NS, TRCVIIECTLR: with no include range
 * selected everything not excluded is included).
 */
static inline bool csgen_is_traced(const struct csgen *g, u64 addr, u32 el)
{
	u32 inc = g->cfg.viiectlr & 0xf;
	u32 exc = (g->cfg.viiectlr >> CSGEN_VIIECTLR_EXCL_SHIFT) & 0xf;

	if ((g->cfg.victlr >> (CSGEN_VICTLR_EXLEVEL_NS_SHIFT + el)) & 1)
		return false;
	if (exc && csgen_in_ranges(g, addr, exc, el))
		return false;
	return !inc || csgen_in_ranges(g, addr, inc, el);
}

static inline void csgen_derive(struct csgen *g)
{
	const struct csgen_cfg *c = &g->cfg;
	u32 cidsize = (c->trcidr2 >> 5) & 0x1f;
	u32 vmidsize = (c->trcidr2 >> 10) & 0x1f;
	u32 tssize = (c->trcidr0 >> 24) & 0x1f;
	u32 ccbits = 12 + ((c->trcidr2 >> 25) & 0xf);
	u32 period = c->syncpr & 0x1f;

	g->bb = (c->configr & CSGEN_CONFIGR_BB) && (c->trcidr0 & CSGEN_IDR0_BB);
	g->cci = (c->configr & CSGEN_CONFIGR_CCI) && (c->trcidr0 & CSGEN_IDR0_CCI);
	g->cc_pkts = g->cci && (c->trcidr0 & CSGEN_IDR0_COMMOPT);
	g->rs_en = (c->configr & CSGEN_CONFIGR_RS) &&
		   (c->trcidr0 & CSGEN_IDR0_RETSTACK);
	g->ts_en = (c->configr & CSGEN_CONFIGR_TS) && (tssize == 6 || tssize == 8);
	g->cid_bytes = cidsize == 4 ? 4 : 0;
	g->vmid_bytes = vmidsize == 1 ? 1 : vmidsize == 2 ? 2 : vmidsize == 4 ? 4 : 0;
	g->cid_en = (c->configr & CSGEN_CONFIGR_CID) && g->cid_bytes;
	g->vmid_en = (c->configr & CSGEN_CONFIGR_VMID) && g->vmid_bytes;
	g->cc_thresh = c->ccctlr & 0xfff;
	g->cc_max = ccbits >= 14 ? 0x3fff : (1u << ccbits) - 1;
	if (period && period < 8)
		period = 8;
	if (period > 20)
		period = 20;
	g->sync_period = period ? 1u << period : 0;
}

static inline u32 csgen_cid(const struct csgen *g)
{
	return g->cfg.contextid + g->task;
}

/* Context INFO byte, VMID, CID: the part shared by 81 and 85/82 packets. */
static inline unsigned int csgen_ctx_payload(struct csgen *g, u8 *buf)
{
	unsigned int n = 1, i;
	u32 cid = csgen_cid(g);

	buf[0] = (u8)(g->el | 0x30 | (g->vmid_en ? 0x40 : 0) |
		      (g->cid_en ? 0x80 : 0));
	for (i = 0; g->vmid_en && i < g->vmid_bytes; i++)
		buf[n++] = (u8)(g->cfg.vmid >> (8 * i));
	for (i = 0; g->cid_en && i < g->cid_bytes; i++)
		buf[n++] = (u8)(cid >> (8 * i));
	g->ctx_valid = true;
	g->ctx_el = g->el;
	g->ctx_cid = cid;
	return n;
}

static inline bool csgen_ctx_changed(const struct csgen *g)
{
	return !g->ctx_valid || g->ctx_el != g->el ||
	       (g->cid_en && g->ctx_cid != csgen_cid(g));
}

static inline void csgen_hist_push(struct csgen *g, u64 addr)
{
	g->hist[2] = g->hist[1];
	g->hist[1] = g->hist[0];
	g->hist[0] = addr;
}

/*
 * An address packet for addr, [with the context], as compact as the
 * address history allows or now and then less so, as hardware may.
 */
static inline unsigned int csgen_addr(struct csgen *g, u8 *buf, u64 addr,
				      bool ctx)
{
	u32 r = csgen_rand(g);
	u64 diff = addr ^ g->hist[0];
	unsigned int n, i;

	if (ctx) {
		if (!(diff >> 32) && (r & 1)) {
			buf[0] = 0x82;
			n = 1 + csgen_enc_addr_payload(buf + 1, addr, 4);
		} else {
			buf[0] = 0x85;
			n = 1 + csgen_enc_addr_payload(buf + 1, addr, 8);
		}
		n += csgen_ctx_payload(g, buf + n);
		csgen_hist_push(g, addr);
		return n;
	}
	for (i = 0; i < 3 && (r & 0x30); i++) {
		if (g->hist[i] == addr) {
			buf[0] = (u8)(0x90 + i);
			csgen_hist_push(g, addr);
			return 1;
		}
	}
	if (!(diff >> 9) && (r & 0xc0)) {
		n = csgen_enc_short_addr(buf, addr, (r >> 8) & 1);
	} else if (!(diff >> 17) && (r & 0xc0)) {
		n = csgen_enc_short_addr(buf, addr, true);
	} else if (!(diff >> 32) && (r & 0x300)) {
		buf[0] = 0x9a;
		n = 1 + csgen_enc_addr_payload(buf + 1, addr, 4);
	} else {
		buf[0] = 0x9d;
		n = 1 + csgen_enc_addr_payload(buf + 1, addr, 8);
	}
	csgen_hist_push(g, addr);
	return n;
}

/* [Context] Address: the context if it changed (or force), maybe combined. */
static inline unsigned int csgen_ctx_addr(struct csgen *g, u8 *buf, u64 addr,
					  bool force)
{
	unsigned int n;

	if (!force && !csgen_ctx_changed(g))
		return csgen_addr(g, buf, addr, false);
	if (csgen_rand(g) & 1)
		return csgen_addr(g, buf, addr, true);
	buf[0] = 0x81;
	n = 1 + csgen_ctx_payload(g, buf + 1);
	return n + csgen_addr(g, buf + n, addr, false);
}

/* Timestamp now, compressed against the last one unless after a sync. */
static inline unsigned int csgen_ts(struct csgen *g, u8 *buf)
{
	u64 ts = CSGEN_TS_BASE + g->cycles;
	unsigned int full = 1, k = 1;
	u64 count = g->cycles - g->cc_cycles;

	while (full < 8 && (ts >> (7 * full)))
		full++;
	if (g->ts_valid)
		while (k < full && (ts >> (7 * k)) != (g->ts_last >> (7 * k)))
			k++;
	else
		k = full;
	if (count > g->cc_max)
		count = g->cc_max;
	g->ts_valid = true;
	g->ts_last = ts;
	g->ts_cycles = g->cycles;
	if (g->cci)
		g->cc_cycles = g->cycles;
	return csgen_enc_ts(buf, ts, k, g->cci, (u32)count);
}

/* A-sync, Trace Info, [Timestamp]: clears the decoder's history. */
static inline unsigned int csgen_sync(struct csgen *g, u8 *buf)
{
	unsigned int n;

	n = csgen_enc_async(buf);
	n += csgen_enc_tinfo(buf + n, g->cci, g->cc_thresh);
	g->hist[0] = 0;
	g->hist[1] = 0;
	g->hist[2] = 0;
	g->rs_n = 0;
	g->ctx_valid = false;
	g->ts_valid = false;
	g->since_sync = 0;
	if (g->ts_en)
		n += csgen_ts(g, buf + n);
	return n;
}

static inline bool csgen_sync_due(const struct csgen *g)
{
	return g->sync_period && g->since_sync >= g->sync_period;
}

/* Cycle count packet (F1 or F3), count >= threshold. */
static inline unsigned int csgen_cc(struct csgen *g, u8 *buf)
{
	u32 r = csgen_rand(g);
	u32 d = (r >> 4) & 0x3ff;

	if (d > g->cc_max - g->cc_thresh)
		d = g->cc_max - g->cc_thresh;
	g->cc_cycles = g->cycles;
	if ((r & 1) && d > 3)
		d &= 3;
	if (d <= 3 && (r & 2)) {
		buf[0] = (u8)(0x10 | d);
		return 1;
	}
	buf[0] = 0x0e;
	return 1 + csgen_enc_cont(buf + 1, d);
}

/*
 * One atom packet of a random format. With last_e its newest atom is E:
 * the taken branch that ends a block. *taken says whether the newest is E.
 * With branch broadcasting every taken branch has its address packet, so
 * only the newest atom may be E.
 */
static inline unsigned int csgen_atoms(struct csgen *g, u8 *buf, bool last_e,
				       bool *taken)
{
	static const u8 f5[4] = { 0xd5, 0xd6, 0xd7, 0xf5 };	/* N N E E */
	u32 r = csgen_rand(g);
	u32 b = r >> 8;

	if (g->bb) {
		*taken = last_e || (b & 1);
		switch (r & 3) {
		case 0:				/* F1: E or N */
			buf[0] = (u8)(0xf6 | *taken);
			break;
		case 1:				/* F2: NE or NN */
			buf[0] = (u8)(0xd8 | (*taken ? 2 : 0));
			break;
		case 2:				/* F3: NNE or NNN */
			buf[0] = (u8)(0xf8 | (*taken ? 4 : 0));
			break;
		default:			/* F1 E, F4 NNNN, F5 NNNNN */
			buf[0] = *taken ? 0xf7 : (b & 2) ? 0xdd : 0xd5;
			break;
		}
		return 1;
	}
	switch (r & 7) {
	case 0:					/* F1: 1 atom */
		buf[0] = (u8)(0xf6 | (last_e ? 1 : (b & 1)));
		*taken = buf[0] & 1;
		break;
	case 1:					/* F2: 2 atoms, newest bit 1 */
		buf[0] = (u8)(0xd8 | (b & 3) | (last_e ? 2 : 0));
		*taken = buf[0] & 2;
		break;
	case 2:					/* F3: 3 atoms, newest bit 2 */
		buf[0] = (u8)(0xf8 | (b & 7) | (last_e ? 4 : 0));
		*taken = buf[0] & 4;
		break;
	case 3:					/* F4: EEEN NNNN ENEN NENE */
		buf[0] = (u8)(0xdc | (last_e ? (b & 2) : (b & 3)));
		*taken = !(buf[0] & 1);
		break;
	case 4:					/* F5: 5 atoms */
		buf[0] = f5[last_e ? 2 + (b & 1) : (b & 3)];
		*taken = buf[0] == 0xd7 || buf[0] == 0xf5;
		break;
	default:				/* F6: 3..23 E, then E or N */
		buf[0] = (u8)(0xc0 | ((b >> 5) % 21));
		if (!last_e && (b & 1))
			buf[0] |= 0x20;
		*taken = !(buf[0] & 0x20);
		break;
	}
	return 1;
}

/* The inside of a traced block: atoms, [cycle counts], [BB addresses]. */
static inline unsigned int csgen_body(struct csgen *g, u8 *buf)
{
	unsigned int n = 0, k, i;
	bool taken;

	k = csgen_rand(g) % (CSGEN_BODY_ATOMS + 1);
	for (i = 0; i < k; i++) {
		n += csgen_atoms(g, buf + n, false, &taken);
		if (g->cc_pkts && (csgen_rand(g) & 1))
			n += csgen_cc(g, buf + n);
		if (g->bb && taken) {
			g->pos = (u8)(1 + csgen_rand(g) % 15);
			n += csgen_addr(g, buf + n, g->slot + 4 * g->pos, false);
		}
	}
	return n;
}

/* A new block at exception level el: enter it, and number it if traced. */
static inline void csgen_new_block(struct csgen *g, u8 el)
{
	u32 r = csgen_rand(g);
	unsigned int region;

	if (el)
		region = (r & 3) ? CSGEN_REGION_KERN : CSGEN_REGION_KMOD;
	else
		region = (r & 3) ? CSGEN_REGION_USER : CSGEN_REGION_ULIB;
	g->el = el;
	g->slot = csgen_region_base(region) +
		  ((u64)(g->seq & CSGEN_SEQ_MASK) << CSGEN_SLOT_SHIFT);
	g->pos = (u8)(1 + (r >> 8) % 15);
	g->traced = csgen_is_traced(g, g->slot, el);
	if (g->traced) {
		g->seq = (g->seq + 1) & CSGEN_SEQ_MASK;
		g->blocks++;
	}
}

/* Leaving a block by a taken branch: its atom, [cycle count]. */
static inline unsigned int csgen_leave(struct csgen *g, u8 *buf)
{
	unsigned int n;
	bool taken;

	if (!g->traced)
		return 0;
	n = csgen_atoms(g, buf, true, &taken);
	if (g->cc_pkts && (csgen_rand(g) & 1))
		n += csgen_cc(g, buf + n);
	return n;
}

/* Arriving at addr in the (now) current block: trace continues or restarts. */
static inline unsigned int csgen_enter(struct csgen *g, u8 *buf, u64 addr,
				       bool was_traced)
{
	unsigned int n = 0;

	if (!g->traced)
		return 0;
	if (was_traced)
		return csgen_ctx_addr(g, buf, addr, false);
	if (csgen_sync_due(g))
		n += csgen_sync(g, buf);
	buf[n++] = 0x04;			/* Trace On */
	g->rs_n = 0;
	return n + csgen_ctx_addr(g, buf + n, addr, true);
}

static inline void csgen_rs_push(struct csgen *g, u64 addr)
{
	unsigned int i;

	if (g->rs_n == CSGEN_RS_DEPTH) {
		for (i = 1; i < CSGEN_RS_DEPTH; i++)
			g->rs[i - 1] = g->rs[i];
		g->rs_n--;
	}
	g->rs[g->rs_n++] = addr;
}

static inline struct csgen_frame *csgen_push(struct csgen *g, u8 kind)
{
	struct csgen_frame *f = &g->stack[g->depth++];

	f->slot = g->slot;
	f->pos = g->pos;
	f->el = g->el;
	f->kind = kind;
	return f;
}

/* Resume in the frame f returns to. */
static inline u64 csgen_resume(struct csgen *g, const struct csgen_frame *f)
{
	g->slot = f->slot;
	g->pos = f->pos;
	g->el = f->el;
	g->traced = csgen_is_traced(g, g->slot, g->el);
	return g->slot + 4 * g->pos;
}

static inline unsigned int csgen_exception(struct csgen *g, u8 *buf, u32 r)
{
	static const u8 el0_types[4] = {
		CSGEN_EXC_CALL, CSGEN_EXC_TRAP, CSGEN_EXC_DATA_FAULT, CSGEN_EXC_IRQ,
	};
	bool was = g->traced;
	unsigned int n = 0, type;

	type = g->el ? ((r & 1) ? CSGEN_EXC_IRQ : CSGEN_EXC_DATA_FAULT) :
		       el0_types[r & 3];
	csgen_push(g, CSGEN_FRAME_EXC);
	g->exc_depth++;
	if (was) {
		n = csgen_enc_exception(buf, type);
		n += csgen_addr(g, buf + n, g->slot + 4 * g->pos, false);
	}
	csgen_new_block(g, 1);
	return n + csgen_enter(g, buf + n, g->slot, was);
}

static inline unsigned int csgen_eret(struct csgen *g, u8 *buf, u32 r)
{
	bool was = g->traced;
	const struct csgen_frame *f;
	unsigned int n;
	u64 addr;

	n = csgen_leave(g, buf);
	f = &g->stack[--g->depth];
	g->exc_depth--;
	if (f->el == 0 && g->exc_depth == 0 && (r & 3) == 0) {
		/* scheduled: back to EL0 in another task */
		g->depth = 0;
		g->task++;
		csgen_new_block(g, 0);
		return n + csgen_enter(g, buf + n, g->slot, was);
	}
	addr = csgen_resume(g, f);
	return n + csgen_enter(g, buf + n, addr, was);
}

static inline unsigned int csgen_ret(struct csgen *g, u8 *buf)
{
	bool was = g->traced;
	unsigned int n;
	u64 addr;

	n = csgen_leave(g, buf);
	addr = csgen_resume(g, &g->stack[--g->depth]);
	if (was && g->rs_en && g->rs_n && g->rs[g->rs_n - 1] == addr) {
		/* the decoder's return stack knows the target */
		g->rs_n--;
		if (g->traced)
			return n;
	}
	return n + csgen_enter(g, buf + n, addr, was);
}

/* BR or BLR to a new block at the same exception level. */
static inline unsigned int csgen_branch(struct csgen *g, u8 *buf, bool call)
{
	bool was = g->traced;
	unsigned int n;

	n = csgen_leave(g, buf);
	if (call) {
		csgen_push(g, CSGEN_FRAME_CALL);
		if (was && g->rs_en)
			csgen_rs_push(g, g->slot + 4 * g->pos);
	}
	csgen_new_block(g, g->el);
	return n + csgen_enter(g, buf + n, g->slot, was);
}

/* How the current block ends. */
static inline unsigned int csgen_transition(struct csgen *g, u8 *buf)
{
	u32 r = csgen_rand(g);
	u8 top = g->depth ? g->stack[g->depth - 1].kind : 0;

	if (top == CSGEN_FRAME_EXC && (r & 3) == 0)
		return csgen_eret(g, buf, r >> 16);
	if (top == CSGEN_FRAME_CALL && (r & 3) == 1)
		return csgen_ret(g, buf);
	if (g->depth < CSGEN_STACK_DEPTH) {
		if (g->exc_depth < 2 && ((r >> 4) & 7) == 0)
			return csgen_exception(g, buf, r >> 16);
		if (((r >> 8) & 3) == 0)
			return csgen_branch(g, buf, true);
	}
	return csgen_branch(g, buf, false);
}

/* One block of the program: at most CSGEN_BLOCK_MAX bytes. */
static inline unsigned int csgen_block(struct csgen *g, u8 *buf)
{
	unsigned int n = 0;

	g->cycles += 16 + (csgen_rand(g) & 0xff);
	if (g->traced) {
		if (csgen_sync_due(g)) {
			n += csgen_sync(g, buf);
			n += csgen_ctx_addr(g, buf + n, g->slot + 4 * g->pos,
					    true);
		} else if (g->ts_en && g->cfg.tsctlr && g->cfg.ts_interval &&
			   g->cycles - g->ts_cycles >= g->cfg.ts_interval) {
			n += csgen_ts(g, buf + n);
		}
		n += csgen_body(g, buf + n);
	}
	return n + csgen_transition(g, buf + n);
}

static inline void csgen_count(struct csgen *g, unsigned int n)
{
	g->bytes += n;
	if (g->sync_period && g->since_sync < g->sync_period)
		g->since_sync += n;
}

/*
 * The trace unit is enabled with cfg: A-sync, Trace Info, [Timestamp]; the
 * program branches to a new block, and if that is traced: Trace On,
 * Context, its address. Returns the bytes written (0 if max is less than
 * CSGEN_START_MAX; then nothing changes).
 */
static inline size_t csgen_start(struct csgen *g, const struct csgen_cfg *cfg,
				 u8 *buf, size_t max)
{
	unsigned int n;

	if (max < CSGEN_START_MAX)
		return 0;
	g->cfg = *cfg;
	csgen_derive(g);
	g->enabled = true;
	n = csgen_sync(g, buf);
	csgen_new_block(g, g->el);
	if (g->traced) {
		buf[n++] = 0x04;		/* Trace On */
		n += csgen_ctx_addr(g, buf + n, g->slot, true);
	}
	csgen_count(g, n);
	return n;
}

/*
 * The program ran on: up to CSGEN_STEP_BLOCKS blocks, while at least
 * CSGEN_STEP_MIN bytes of buf are left. Writes whole packets; returns the
 * bytes written, 0 if disabled or max < CSGEN_STEP_MIN. The program
 * advances whenever max >= CSGEN_STEP_MIN, even if nothing it ran was
 * traced (then 0 bytes).
 */
static inline size_t csgen_step(struct csgen *g, u8 *buf, size_t max)
{
	unsigned int i, k;
	size_t n = 0;

	if (!g->enabled)
		return 0;
	for (i = 0; i < CSGEN_STEP_BLOCKS && max - n >= CSGEN_STEP_MIN; i++) {
		k = csgen_block(g, buf + n);
		csgen_count(g, k);
		n += k;
	}
	return n;
}

/*
 * The trace unit is disabled: the last atoms of the current block if it is
 * traced. At most CSGEN_START_MAX bytes (none if max is less).
 */
static inline size_t csgen_stop(struct csgen *g, u8 *buf, size_t max)
{
	unsigned int n = 0;
	bool taken;

	if (!g->enabled)
		return 0;
	g->enabled = false;
	if (!g->traced || max < CSGEN_START_MAX)
		return 0;
	g->cycles += 8;
	n = csgen_atoms(g, buf, false, &taken);
	if (g->cc_pkts && (csgen_rand(g) & 1))
		n += csgen_cc(g, buf + n);
	csgen_count(g, n);
	return n;
}

/* ---- the TMC formatter ---- */

#define CSFMT_FRAME_SIZE	16
/* Bytes csfmt_push may write for len bytes of input (whole frames). */
#define CSFMT_OUT_MAX(len)	((((len) >> 3) + 2) * CSFMT_FRAME_SIZE)

struct csfmt {
	u8 frame[CSFMT_FRAME_SIZE];	/* the frame being filled */
	u8 pos;				/* next byte of it, 0..14 */
	u8 id;				/* the ID the next byte belongs to */
};

static inline void csfmt_clear(struct csfmt *f)
{
	unsigned int i;

	for (i = 0; i < CSFMT_FRAME_SIZE; i++)
		f->frame[i] = 0;
	f->pos = 0;
}

static inline void csfmt_init(struct csfmt *f)
{
	csfmt_clear(f);
	f->id = 0;
}

/* Complete frame: copy it out. */
static inline size_t csfmt_out(struct csfmt *f, u8 *out)
{
	unsigned int i;

	for (i = 0; i < CSFMT_FRAME_SIZE; i++)
		out[i] = f->frame[i];
	csfmt_clear(f);
	return CSFMT_FRAME_SIZE;
}

static inline void csfmt_put_data(struct csfmt *f, u8 b)
{
	if (f->pos & 1) {
		f->frame[f->pos] = b;
	} else {
		f->frame[f->pos] = b & 0xfe;
		f->frame[15] |= (u8)((b & 1) << (f->pos / 2));
	}
	f->pos++;
}

/*
 * Change to id before the next byte. At an even position: the ID byte;
 * at an odd one, the data byte before it moves up one, the ID takes its
 * place, flagged "the next byte is still the previous ID's".
 */
static inline void csfmt_put_id(struct csfmt *f, u8 id)
{
	u8 p = f->pos, prev;

	if (p & 1) {
		prev = f->frame[p - 1] | ((f->frame[15] >> ((p - 1) / 2)) & 1);
		f->frame[p] = prev;
		f->frame[p - 1] = (u8)((id << 1) | 1);
		f->frame[15] |= (u8)(1 << ((p - 1) / 2));
	} else {
		f->frame[p] = (u8)((id << 1) | 1);
	}
	f->pos++;
	f->id = id;
}

/*
 * Append len bytes of trace ID id (0x01..0x6f). Completed frames go to out
 * (which must hold CSFMT_OUT_MAX(len) bytes); returns the bytes written
 * there, a multiple of 16.
 */
static inline size_t csfmt_push(struct csfmt *f, u8 id, const u8 *data,
				size_t len, u8 *out)
{
	size_t i, n = 0;

	id &= 0x7f;
	for (i = 0; i < len; i++) {
		if (f->pos == 0 || f->id != id) {
			csfmt_put_id(f, id);
			if (f->pos == CSFMT_FRAME_SIZE - 1) {
				n += csfmt_out(f, out + n);
				csfmt_put_id(f, id);
			}
		}
		csfmt_put_data(f, data[i]);
		if (f->pos == CSFMT_FRAME_SIZE - 1)
			n += csfmt_out(f, out + n);
	}
	return n;
}

/*
 * Flush: complete a partial frame with trace ID 0 (ignored by decoders).
 * Returns 16, or 0 if no frame was started.
 */
static inline size_t csfmt_flush(struct csfmt *f, u8 *out)
{
	if (f->pos == 0)
		return 0;
	csfmt_put_id(f, 0);
	while (f->pos < CSFMT_FRAME_SIZE - 1)
		csfmt_put_data(f, 0);
	return csfmt_out(f, out);
}

/* A frame that carries nothing: ID 0 and zero bytes. */
static inline void csfmt_pad_frame(u8 out[16])
{
	unsigned int i;

	out[0] = 0x01;
	for (i = 1; i < CSFMT_FRAME_SIZE; i++)
		out[i] = 0;
}

#endif /* TB_CSEMU_GEN_H */
