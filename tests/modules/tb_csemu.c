// SPDX-License-Identifier: GPL-2.0
/*
 * tb_csemu - tests-only module: a register-level ARM CoreSight emulator.
 *
 * There is no CoreSight in the test guests (QEMU), so this module
 * registers a struct tb_cs_platform with tracebuf (module/cs_hw.h): its
 * accessors dispatch on the component's base, an opaque cookie pointing
 * at one of our register files, and the real backend (cs_etm.c,
 * cs_tmc.c, coresight.c) runs against them unchanged. The model:
 *
 *  - Every component (ARM IHI0029): software lock (LAR/LSR, locked after
 *    reset; writes to anything but LAR while locked are ignored), claim
 *    tags (two implemented), AUTHSTATUS, DEVARCH, DEVTYPE, PIDR/CIDR.
 *  - One ETMv4 per possible CPU (ARM IHI0064): TRCIDR0..13 (csemu_gen.h's
 *    defaults adjusted by the feature parameters), the OS lock (OSLM
 *    0b010, memory-mapped TRCOSLAR, set after reset), TRCPRGCTLR,
 *    TRCSTATR (IDLE/PMSTABLE lag two reads behind EN), TRCPDCR.PU, and
 *    every programming register in 0x008..0x7ff stored as written;
 *    address comparators beyond nr_ranges pairs are RAZ/WI.
 *  - TMC sinks (ARM DDI0461) in circular-buffer mode, as the CoreSight
 *    SoC-600 TMC (PIDR part 0x9e8/0x9e9/0x9ea): RRP, RWP and STS.Full are
 *    kept across the Disabled state, so capture starts at RWP as
 *    programmed. ETR: flat (AXICTL.ScatterGather=0, [DBA, DBA + RSZ * 4))
 *    or scatter-gather (DBA = first table page, 4 KiB pages, entries
 *    NORMAL/LAST/LINK); RWP/RWPHI read the PA of the next byte. ETF/ETB:
 *    sram_kb of internal SRAM, RRP/RWP byte addresses into it, RRD reads
 *    the word at RRP (0xffffffff once RRP reaches RWP). States Disabled
 *    (CTL.TraceCaptEn=0), Running, Stopped (FFCR.FlushMan with
 *    FFCR.StopOnFl: the formatter is flushed, STS.TMCReady=1).
 *    FFCR.FlushMan reads 1 for two reads of FFCR/FFSR/STS after it is
 *    set, and TMCReady waits for that too. A bad memory address or table
 *    entry sets STS.MemErr and stops capture (cleared at the next
 *    TraceCaptEn 0->1).
 *  - Generation: a pinned hard hrtimer per online CPU. Every period_us,
 *    an enabled ETM whose sink is Running runs csgen_step() for about
 *    rate bytes; the bytes go through the sink's formatter (csfmt_push
 *    with the ETM's TRCTRACEIDR) into the sink's memory. TRCPRGCTLR.EN
 *    0->1 emits csgen_start(), 1->0 csgen_stop(), in the register write
 *    (which may come from any CPU). An ETM whose sink is not Running
 *    stalls: its program does not advance and start/stop bytes wait in a
 *    small pending buffer until the sink runs again.
 *
 * Misuse is recorded, never WARNed: every violation counts (per
 * component and in total) and each kind is printed once with pr_warn.
 * The ETMs also log the operations that matter to the architecture's
 * programming sequence (etmN/ops) and check their order:
 *   enable:  unlock, [oslock_clear], claim, prg0, idle1, config, pu, en,
 *            idle0, lock
 *   disable: unlock, pu_clear, en_clear, pmstable1, disclaim, lock
 * Sinks must be capturing before an ETM feeding them is enabled and may
 * only be stopped or disabled once those ETMs are off, and disabled only
 * once stopped (TMCReady). A CPU may only go offline with its ETM off
 * (checked once it is dead).
 *
 * Locking: one raw spinlock per sink (IRQs off) protects the sink and
 * the ETMs feeding it; the accessors take it and never sleep, so they
 * may run in any context but NMI.
 *
 * Deviations and choices:
 *  - Writes go through the CPU caches (phys_to_virt): the sinks' platform
 *    devices are marked DMA coherent. Bus addresses are physical ones.
 *  - A TRCPRGCTLR.EN 0->1 that breaks a rule (no PU, bad trace ID, sink
 *    not capturing) is counted but still enables the unit.
 *  - CTL.TraceCaptEn 1->0 while Running (not stopped first, so not
 *    TMCReady: on silicon writes may still be in flight) is a violation;
 *    the formatter's partial frame is dropped (sinkN/stats discarded).
 *  - The ETR checks every page it reads a table entry from or writes
 *    trace to: one the kernel has freed (no reference left) or freed and
 *    reused (a page table, slab, LRU or anonymous page: never a driver's
 *    AUX or table page) is a violation, and capture stops with MemErr
 *    instead of writing. This is the tests' oracle for DMA after free,
 *    not hardware behaviour (csemu_pa_freed()).
 *  - TRCVISSCTLR (ViewInst start/stop) is stored but not modelled: the
 *    generator filters on TRCVICTLR and TRCVIIECTLR only.
 *
 * debugfs (/sys/kernel/debug/tb_csemu/):
 *   rate, period_us  rw, the generation knobs (as the module parameters)
 *   violations       r, total violations
 *   etmN/stats       r, "key value" lines
 *   etmN/ops         r, the last CSEMU_OPS_MAX operations, oldest first
 *   etmN/regs        r, "NAME 0xVALUE" for every programmed register
 *   sinkN/stats      r, "key value" lines
 *   sinkN/regs       r, "NAME 0xVALUE" for the TMC registers
 */
#include <linux/bitfield.h>
#include <linux/bitmap.h>
#include <linux/cpu.h>
#include <linux/cpuhotplug.h>
#include <linux/debugfs.h>
#include <linux/dma-mapping.h>
#include <linux/fs.h>
#include <linux/hrtimer.h>
#include <linux/kernel.h>
#include <linux/log2.h>
#include <linux/minmax.h>
#include <linux/mm.h>
#include <linux/mod_devicetable.h>
#include <linux/module.h>
#include <linux/platform_device.h>
#include <linux/seq_file.h>
#include <linux/slab.h>
#include <linux/smp.h>
#include <linux/spinlock.h>
#include <linux/string.h>
#include <linux/vmalloc.h>
#include <asm/barrier.h>
#include <asm/io.h>
#include <tracebuf.h>

#include "cs_hw.h"
#include "cs_sg.h"
#include "csemu_gen.h"

/* ---- parameters ---- */

static char *topology = "shared";
module_param(topology, charp, 0444);
MODULE_PARM_DESC(topology, "shared: every ETM feeds sink 0; percpu: sink i for CPU i");
static char *sink_param = "etr";
module_param_named(sink, sink_param, charp, 0444);
MODULE_PARM_DESC(sink, "TMC configuration: etr, etf or etb (DEVID.CONFIG_TYPE)");
static bool sg = true;
module_param(sg, bool, 0444);
MODULE_PARM_DESC(sg, "ETR: scatter-gather allowed (DEVID.NOSCAT clear, arm,scatter-gather)");
static uint sram_kb = 64;
module_param(sram_kb, uint, 0444);
MODULE_PARM_DESC(sram_kb, "ETF/ETB SRAM size in KiB (a power of two, 4..65536)");
static bool owned;
module_param(owned, bool, 0444);
MODULE_PARM_DESC(owned, "Bind the sinks to a \"coresight-tmc\" driver: tracebuf must refuse them");
static bool opt_cycacc = true;
module_param_named(cycacc, opt_cycacc, bool, 0444);
MODULE_PARM_DESC(cycacc, "TRCIDR0.TRCCCI: cycle counting");
static bool opt_ts = true;
module_param_named(ts, opt_ts, bool, 0444);
MODULE_PARM_DESC(ts, "TRCIDR0.TSSIZE: global timestamps");
static bool opt_cid = true;
module_param_named(cid, opt_cid, bool, 0444);
MODULE_PARM_DESC(cid, "TRCIDR2.CIDSIZE: context ID tracing");
static bool opt_vmid = true;
module_param_named(vmid, opt_vmid, bool, 0444);
MODULE_PARM_DESC(vmid, "TRCIDR2.VMIDSIZE: VMID tracing");
static bool opt_bb = true;
module_param_named(bb, opt_bb, bool, 0444);
MODULE_PARM_DESC(bb, "TRCIDR0.TRCBB: branch broadcasting");
static bool opt_rs = true;
module_param_named(rs, opt_rs, bool, 0444);
MODULE_PARM_DESC(rs, "TRCIDR0.RETSTACK: return stack");
static uint nr_ranges = 4;
module_param(nr_ranges, uint, 0444);
MODULE_PARM_DESC(nr_ranges, "TRCIDR4.NUMACPAIRS: address comparator pairs (0..4)");
static bool syncpr_ro;
module_param(syncpr_ro, bool, 0444);
MODULE_PARM_DESC(syncpr_ro, "TRCIDR3.SYNCPR: TRCSYNCPR read-only (reads 0xc)");
static uint ccitmin = 4;
module_param(ccitmin, uint, 0444);
MODULE_PARM_DESC(ccitmin, "TRCIDR3.CCITMIN: smallest cycle count threshold");
static bool soc400;
module_param(soc400, bool, 0444);
MODULE_PARM_DESC(soc400, "ETR is a SoC-400 TMC (part 0x961): capture restarts at the buffer start, RWP and Full are not kept");
static uint seed = 1;
module_param(seed, uint, 0444);
MODULE_PARM_DESC(seed, "Generator seed (csgen_init(seed, cpu))");
static uint period_us = 1000;
module_param(period_us, uint, 0644);
MODULE_PARM_DESC(period_us, "Generation tick in microseconds (20..1000000)");
static uint rate = 2048;
module_param(rate, uint, 0644);
MODULE_PARM_DESC(rate, "Trace bytes per tick per enabled ETM");

/* ---- model ---- */

#define CSEMU_OPS_MAX		64	/* ETM operations kept */
#define CSEMU_GBUF		1024	/* csgen_step output per call */
#define CSEMU_OBUF		CSFMT_OUT_MAX(CSEMU_GBUF)
#define CSEMU_PENDING		(CSGEN_START_MAX * 2)
#define CSEMU_LAG_READS		2	/* TRCSTATR, FFCR.FlushMan lag */
#define CSEMU_MAX_RATE		(1024U * 1024)	/* bounds the IRQs-off time */
#define CSEMU_MAX_PERIODS	2	/* overruns made up for by one tick */
#define CSEMU_SG_MAX_HOPS	4	/* LINKs followed in a row */
#define CSEMU_ETM_REGS		0x800	/* trace registers: 0x000..0x7ff */
#define CSEMU_CLAIM_TAGS	(TB_CS_CLAIM_EXTERNAL | TB_CS_CLAIM_SELF_HOSTED)
#define CSEMU_SYNCPR_RO		0xc
#define CSEMU_TRACE_ID_MAX	0x6f
#define CSEMU_EMPTY		0xffffffffU	/* RRD with nothing to read */

/* Management registers (ARM IHI0029) not in cs_hw.h */
#define CSEMU_PIDR4		0xfd0
#define CSEMU_ETM_DEVARCH	0x47724a13	/* ARM, ETMv4 */
#define CSEMU_ETM_DEVTYPE	0x13	/* trace source, processor */
#define CSEMU_TMC_DEVTYPE_BUF	0x21	/* trace sink, buffer (ETR, ETB) */
#define CSEMU_TMC_DEVTYPE_FIFO	0x32	/* trace link, FIFO (ETF) */
#define CSEMU_ETM_PART		0x95a	/* Cortex-A72 ETM */
#define CSEMU_TMC_PART_ETR	0x9e8	/* CoreSight SoC-600 TMC-ETR */
#define CSEMU_TMC_PART_ETR_400	0x961	/* CoreSight SoC-400 TMC */
#define CSEMU_TMC_PART_ETB	0x9e9
#define CSEMU_TMC_PART_ETF	0x9ea
#define CSEMU_DEVID_MEMWIDTH_32	0x2
#define CSEMU_DEVID_AXIAW_VALID	BIT(16)
#define CSEMU_DEVID_AXIAW	GENMASK(22, 17)

enum csemu_kind { CSEMU_KIND_ETM, CSEMU_KIND_TMC };

enum csemu_state { CSEMU_DISABLED, CSEMU_RUNNING, CSEMU_STOPPED };

enum csemu_viol {
	CV_LOCKED,
	CV_OSLOCK,
	CV_DOUBLE_CLAIM,
	CV_READONLY,
	CV_ACCESS,
	CV_PROG_EN,
	CV_PROG_IDLE,
	CV_EN_PU,
	CV_EN_TRACEID,
	CV_EN_SINK,
	CV_ORD_CLAIM,
	CV_ORD_PRG0,
	CV_ORD_CONFIG,
	CV_ORD_PU,
	CV_ORD_EN,
	CV_ORD_LOCK,
	CV_ORD_EN_CLEAR,
	CV_ORD_DISCLAIM,
	CV_TMC_STATE,
	CV_TMC_ENFT,
	CV_TMC_ETM_ON,
	CV_TMC_PTR,
	CV_TMC_MODE,
	CV_TMC_DIS_RUNNING,
	CV_ETR_FREED,
	CV_ETM_CPU_DEAD,
	CV_NR
};

static const char * const csemu_viol_msg[CV_NR] = {
	[CV_LOCKED] = "register write while the software lock (LAR) is set",
	[CV_OSLOCK] = "trace register write while the OS lock is set",
	[CV_DOUBLE_CLAIM] = "CLAIMSET of the self-hosted tag while it is set",
	[CV_READONLY] = "write to a read-only register",
	[CV_ACCESS] = "misaligned or out-of-range register offset",
	[CV_PROG_EN] = "programming register written while TRCPRGCTLR.EN=1",
	[CV_PROG_IDLE] = "programming register written before TRCSTATR.IDLE was seen",
	[CV_EN_PU] = "TRCPRGCTLR.EN set without TRCPDCR.PU",
	[CV_EN_TRACEID] = "TRCPRGCTLR.EN set with a reserved or duplicate TRCTRACEIDR",
	[CV_EN_SINK] = "ETM enabled while its sink is not capturing",
	[CV_ORD_CLAIM] = "claimed before the OS lock was cleared",
	[CV_ORD_PRG0] = "TRCPRGCTLR=0 (programming) without the self-hosted claim",
	[CV_ORD_CONFIG] = "programming before TRCPRGCTLR=0 and TRCSTATR.IDLE",
	[CV_ORD_PU] = "TRCPDCR.PU set before programming",
	[CV_ORD_EN] = "TRCPRGCTLR.EN set without programming after TRCSTATR.IDLE",
	[CV_ORD_LOCK] = "relocked before TRCSTATR.IDLE cleared after enabling",
	[CV_ORD_EN_CLEAR] = "TRCPRGCTLR.EN cleared with TRCPDCR.PU still set",
	[CV_ORD_DISCLAIM] = "disclaimed while enabled or before TRCSTATR.PMSTABLE",
	[CV_TMC_STATE] = "TMC register written in the wrong state",
	[CV_TMC_ENFT] = "CTL.TraceCaptEn set without FFCR.EnFt",
	[CV_TMC_ETM_ON] = "sink stopped or disabled while an ETM feeding it is enabled",
	[CV_TMC_PTR] = "misaligned or out-of-range RRP/RWP",
	[CV_TMC_MODE] = "unsupported MODE or AXICTL.ScatterGather",
	[CV_TMC_DIS_RUNNING] = "CTL.TraceCaptEn cleared while Running (writes may be in flight)",
	[CV_ETR_FREED] = "ETR access to a freed page (DMA after free): capture stopped",
	[CV_ETM_CPU_DEAD] = "CPU went offline with its ETM enabled",
};

/* The header of every register file: what base points at. */
struct csemu_comp {
	enum csemu_kind kind;
	bool locked;			/* LSR.SLK */
	u32 claim;			/* claim tags set */
	u64 violations;
	raw_spinlock_t *lock;		/* the sink's */
	char name[24];
};

struct csemu_sink {
	struct csemu_comp c;
	raw_spinlock_t lock;		/* this sink and its ETMs */
	unsigned int index;
	u32 type;			/* TRACEBUF_CS_SINK_* */
	bool sg_ok;			/* ETR: DEVID.NOSCAT clear */
	enum csemu_state state;
	/* Registers. */
	u32 ctl, ffcr, mode, rsz, axictl, dbalo, dbahi, trg, bufwm, pscr;
	u32 rrp, rrphi, rwp, rwphi;
	bool full, memerr;
	unsigned int flush_reads;	/* FFCR.FlushMan still reads 1 */
	/* ETR capture, from TraceCaptEn 0->1. */
	bool sgmode;
	u64 dba, size;
	u64 pos;			/* buffer offset of the next byte */
	u64 tbl;			/* SG: table page of the entry */
	unsigned int ent;		/* SG: entry index in it */
	u64 page;			/* SG: its data page */
	bool last;			/* SG: that entry is LAST */
	/* ETF/ETB. */
	u8 *sram;
	u32 sram_size;
	bool rd_started;		/* RRD read since RRP/RWP were set */
	/* The formatter and scratch, under lock. */
	struct csfmt fmt;
	u8 gbuf[CSEMU_GBUF];
	u8 obuf[CSEMU_OBUF];
	/* Statistics. */
	u64 bytes, frames, wraps, memerrs, flushes, captures, discarded;
	struct platform_device *pdev;
	struct dentry *dir;
};

enum csemu_op {
	OP_UNLOCK,
	OP_LOCK,
	OP_OSLOCK_CLEAR,
	OP_OSLOCK_SET,
	OP_CLAIM,
	OP_DISCLAIM,
	OP_PRG0,
	OP_IDLE1,
	OP_CONFIG,
	OP_PU,
	OP_PU_CLEAR,
	OP_EN,
	OP_IDLE0,
	OP_EN_CLEAR,
	OP_PMSTABLE1,
	OP_NR
};

static const char * const csemu_op_name[OP_NR] = {
	[OP_UNLOCK] = "unlock",
	[OP_LOCK] = "lock",
	[OP_OSLOCK_CLEAR] = "oslock_clear",
	[OP_OSLOCK_SET] = "oslock_set",
	[OP_CLAIM] = "claim",
	[OP_DISCLAIM] = "disclaim",
	[OP_PRG0] = "prg0",
	[OP_IDLE1] = "idle1",
	[OP_CONFIG] = "config",
	[OP_PU] = "pu",
	[OP_PU_CLEAR] = "pu_clear",
	[OP_EN] = "en",
	[OP_IDLE0] = "idle0",
	[OP_EN_CLEAR] = "en_clear",
	[OP_PMSTABLE1] = "pmstable1",
};

struct csemu_etm {
	struct csemu_comp c;
	unsigned int cpu;
	struct csemu_sink *sink;
	u32 regs[CSEMU_ETM_REGS / 4];	/* programming registers as written */
	bool oslk;			/* TRCOSLSR.OSLK */
	bool en;			/* TRCPRGCTLR.EN; WRITE_ONCE, the tick peeks */
	bool idle_seen;			/* TRCSTATR.IDLE read since EN cleared */
	bool sticky_pd;			/* TRCPDSR.STICKYPD */
	u32 pdcr;
	unsigned int stat_reads;	/* TRCSTATR reads still lagging */
	u32 stat_lag;			/* what they read */
	/* The programming sequence. */
	bool prg0_pend;			/* prg0 written, IDLE not yet read */
	bool prog_ok;			/* idle1 seen: programming allowed */
	bool configured;		/* programmed since prg0 */
	bool idle0_pend;		/* en written, !IDLE not yet read */
	bool pm_pend;			/* en_clear written, PMSTABLE not yet read */
	/* The trace unit's output. */
	struct csgen gen;
	u8 pending[CSEMU_PENDING];	/* start/stop bytes of a stalled unit */
	unsigned int npending;
	u8 pending_id;
	/* Statistics, the op log. */
	u64 enables, disables, bytes, stalls, dropped;
	u8 ops[CSEMU_OPS_MAX];
	u64 nops;
	struct hrtimer timer;
	struct dentry *dir;
};

static struct {
	struct csemu_etm *etms;		/* by CPU (possible CPUs only) */
	struct csemu_sink *sinks;
	unsigned int nr_sinks;
	struct tb_cs_etm_desc *etm_desc;
	struct tb_cs_sink_desc *sink_desc;
	struct tb_cs_platform plat;
	u32 sink_type;
	bool percpu;
	u32 idr[TB_ETM_NR_IDR];
	int hp_state;
	int hp_dead;		/* CPUHP_BP_PREPARE_DYN: after a CPU died */
	bool registered;
	bool driver_registered;
	struct dentry *dir;
	atomic64_t violations;
	DECLARE_BITMAP(warned, CV_NR);
} csemu;

/* Under the component's lock. */
static void csemu_violation(struct csemu_comp *c, enum csemu_viol v)
{
	c->violations++;
	atomic64_inc(&csemu.violations);
	if (!test_and_set_bit(v, csemu.warned))
		pr_warn("tb_csemu: %s: violation: %s (each kind is printed once)\n",
			c->name, csemu_viol_msg[v]);
}

/* PIDR0..4 of an ARM (JEP106 0x3b, continuation 4) part, revision 0. */
static u32 csemu_pidr(u32 off, u32 part)
{
	switch (off) {
	case TB_CS_PIDR0:
		return part & 0xff;
	case TB_CS_PIDR0 + 4:
		return ((part >> 8) & 0xf) | 0xb0;
	case TB_CS_PIDR0 + 8:
		return 0x08 | 0x3;
	case CSEMU_PIDR4:
		return 0x04;
	default:
		return 0;
	}
}

/* The registers every component has; false if off is not one. */
static bool csemu_mgmt_read(const struct csemu_comp *c, u32 off, u32 part, u32 *val)
{
	static const u8 cidr[4] = { 0x0d, 0x90, 0x05, 0xb1 };

	switch (off) {
	case TB_CS_CLAIMSET:
		*val = CSEMU_CLAIM_TAGS;
		return true;
	case TB_CS_CLAIMCLR:
		*val = c->claim;
		return true;
	case TB_CS_LAR:
		*val = 0;
		return true;
	case TB_CS_LSR:
		*val = TB_CS_LSR_SLI | (c->locked ? TB_CS_LSR_SLK : 0);
		return true;
	case TB_CS_AUTHSTATUS:
		*val = CSGEN_AUTHSTATUS;
		return true;
	}
	if (off >= TB_CS_CIDR0) {
		*val = cidr[(off - TB_CS_CIDR0) / 4];
		return true;
	}
	if (off >= CSEMU_PIDR4) {
		*val = csemu_pidr(off, part);
		return true;
	}
	return false;
}

/* Read-only management registers (LSR and above, but for LAR). */
static bool csemu_mgmt_ro(u32 off)
{
	return off >= TB_CS_LSR;
}

/* CLAIMSET / CLAIMCLR writes: set / clear the tags written as 1. */
static void csemu_claimset(struct csemu_comp *c, u32 val)
{
	if ((val & TB_CS_CLAIM_SELF_HOSTED) && (c->claim & TB_CS_CLAIM_SELF_HOSTED))
		csemu_violation(c, CV_DOUBLE_CLAIM);
	c->claim |= val & CSEMU_CLAIM_TAGS;
}

static void csemu_claimclr(struct csemu_comp *c, u32 val)
{
	c->claim &= ~(val & CSEMU_CLAIM_TAGS);
}

/* ---- TMC: memory ---- */

static bool csemu_pa_ok(u64 pa)
{
	return pa <= TB_SG_MAX_PA && pfn_valid(PHYS_PFN(pa));
}

static void *csemu_va(u64 pa)
{
	return phys_to_virt((phys_addr_t)pa);
}

/*
 * Not a model of the hardware but the test's oracle: every page the
 * backend hands the ETR (AUX pages, table pages) is a driver page that
 * holds a reference while it may be used. A page without one was freed;
 * one that is a page table, a slab page, on an LRU list or anonymous was
 * freed and reused: on silicon the write would land in whatever reuses it
 * (a page table, as in the "Bad page map" this catches). Count it, and
 * stop capture rather than corrupt the guest (pa_ok() was checked).
 */
static bool csemu_pa_freed(struct csemu_sink *k, u64 pa)
{
	struct page *p = pfn_to_page(PHYS_PFN(pa));

	if (page_ref_count(p) && !PageTable(p) && !PageSlab(p) && !PageLRU(p) &&
	    !PageAnon(p))
		return false;
	csemu_violation(&k->c, CV_ETR_FREED);
	return true;
}

static void csemu_set_rwp(struct csemu_sink *k, u64 pa)
{
	smp_wmb();	/* the data is in memory before RWP says so */
	k->rwp = lower_32_bits(pa);
	k->rwphi = upper_32_bits(pa);
}

/* An AXI error: MemErr, capture stops (TMCReady). */
static void csemu_memerr(struct csemu_sink *k)
{
	if (!k->memerr)
		k->memerrs++;
	k->memerr = true;
	k->state = CSEMU_STOPPED;
}

/* SG: the data page of entry ent of table tbl, following LINKs. */
static int csemu_sg_resolve(struct csemu_sink *k)
{
	unsigned int hops;
	u32 e;

	for (hops = 0; hops < CSEMU_SG_MAX_HOPS; hops++) {
		if (k->ent >= TB_SG_TABLE_ENTRIES || !csemu_pa_ok(k->tbl) ||
		    csemu_pa_freed(k, k->tbl))
			return -EIO;
		e = le32_to_cpu(READ_ONCE(((__le32 *)csemu_va(k->tbl))[k->ent]));
		switch (e & TB_SG_ENTRY_TYPE) {
		case TB_SG_ENTRY_NORMAL:
		case TB_SG_ENTRY_LAST:
			k->page = (u64)(e >> TB_SG_ENTRY_ADDR_SHIFT) << TB_SG_PAGE_SHIFT;
			k->last = (e & TB_SG_ENTRY_TYPE) == TB_SG_ENTRY_LAST;
			return csemu_pa_ok(k->page) ? 0 : -EIO;
		case TB_SG_ENTRY_LINK:
			k->tbl = (u64)(e >> TB_SG_ENTRY_ADDR_SHIFT) << TB_SG_PAGE_SHIFT;
			k->ent = 0;
			break;
		default:
			return -EIO;
		}
	}
	return -EIO;
}

/* SG: to the first data page. */
static int csemu_sg_first(struct csemu_sink *k)
{
	k->tbl = k->dba;
	k->ent = 0;
	k->pos = 0;
	return csemu_sg_resolve(k);
}

/* SG: the page is done; the next one, or wrap after LAST (or RSZ). */
static int csemu_sg_next(struct csemu_sink *k)
{
	if (k->last || k->pos >= k->size) {
		k->full = true;
		k->wraps++;
		return csemu_sg_first(k);
	}
	k->ent++;
	return csemu_sg_resolve(k);
}

/* SG: walk the table to the data page holding rwp. */
static int csemu_sg_locate(struct csemu_sink *k, u64 rwp)
{
	u64 target = rwp & ~(u64)(TB_SG_GRANULE - 1);

	if (csemu_sg_first(k))
		return -EIO;
	for (;;) {
		if (k->page == target) {
			k->pos += rwp - target;
			return k->pos < k->size ? 0 : -ERANGE;
		}
		if (k->last || k->pos + TB_SG_GRANULE >= k->size)
			return -ERANGE;
		k->pos += TB_SG_GRANULE;
		k->ent++;
		if (csemu_sg_resolve(k))
			return -EIO;
	}
}

static void csemu_etr_write(struct csemu_sink *k, const u8 *src, size_t len)
{
	u64 pa, n, off;

	while (len) {
		if (k->sgmode) {
			off = k->pos & (TB_SG_GRANULE - 1);
			pa = k->page + off;
			n = min_t(u64, len, TB_SG_GRANULE - off);
		} else {
			pa = k->dba + k->pos;
			if (!csemu_pa_ok(pa))
				goto memerr;
			n = min_t(u64, len, PAGE_SIZE - offset_in_page(pa));
		}
		n = min_t(u64, n, k->size - k->pos);
		if (csemu_pa_freed(k, pa))
			goto memerr;
		memcpy(csemu_va(pa), src, n);
		k->bytes += n;
		src += n;
		len -= n;
		k->pos += n;
		csemu_set_rwp(k, pa + n);
		if (k->sgmode) {
			if (!(k->pos & (TB_SG_GRANULE - 1)) || k->pos >= k->size) {
				if (csemu_sg_next(k))
					goto memerr;
				csemu_set_rwp(k, k->page);
			}
		} else if (k->pos >= k->size) {
			k->pos = 0;
			k->full = true;
			k->wraps++;
			csemu_set_rwp(k, k->dba);
		}
	}
	return;
memerr:
	k->discarded += len;
	csemu_memerr(k);
}

static void csemu_sram_write(struct csemu_sink *k, const u8 *src, size_t len)
{
	u32 n;

	while (len) {
		n = min_t(size_t, len, k->sram_size - k->rwp);
		memcpy(k->sram + k->rwp, src, n);
		k->bytes += n;
		src += n;
		len -= n;
		k->rwp += n;
		if (k->rwp >= k->sram_size) {
			k->rwp = 0;
			k->full = true;
			k->wraps++;
		}
	}
}

/* Formatted frames to the buffer, if capturing. */
static void csemu_sink_out(struct csemu_sink *k, const u8 *buf, size_t n)
{
	if (!n)
		return;
	if (k->state != CSEMU_RUNNING) {
		k->discarded += n;
		return;
	}
	k->frames += n / TB_CS_FRAME_SIZE;
	if (k->type == TRACEBUF_CS_SINK_ETR)
		csemu_etr_write(k, buf, n);
	else
		csemu_sram_write(k, buf, n);
}

/* Trace bytes of source id through the formatter (len <= CSEMU_GBUF). */
static void csemu_push(struct csemu_sink *k, u8 id, const u8 *data, size_t len)
{
	csemu_sink_out(k, k->obuf, csfmt_push(&k->fmt, id, data, len, k->obuf));
}

static void csemu_flush(struct csemu_sink *k)
{
	k->flushes++;
	csemu_sink_out(k, k->obuf, csfmt_flush(&k->fmt, k->obuf));
}

/* ---- TMC: registers ---- */

static u8 csemu_trace_id(const struct csemu_etm *e)
{
	return e->regs[TB_ETM_TRCTRACEIDR / 4] & 0x7f;
}

static bool csemu_sink_etm_on(const struct csemu_sink *k)
{
	unsigned int cpu;

	for_each_possible_cpu(cpu)
		if (csemu.etms[cpu].sink == k && csemu.etms[cpu].en)
			return true;
	return false;
}

/* The sink captures again: the stalled ETMs' start/stop bytes first. */
static void csemu_sink_resume(struct csemu_sink *k)
{
	unsigned int cpu;

	for_each_possible_cpu(cpu) {
		struct csemu_etm *e = &csemu.etms[cpu];

		if (e->sink != k || !e->npending)
			continue;
		csemu_push(k, e->pending_id, e->pending, e->npending);
		e->npending = 0;
	}
}

/* CTL.TraceCaptEn 0->1. */
static void csemu_sink_start(struct csemu_sink *k)
{
	u64 rwp = ((u64)k->rwphi << 32) | k->rwp;

	k->captures++;
	k->memerr = false;
	k->flush_reads = 0;
	k->rd_started = false;
	csfmt_init(&k->fmt);
	k->state = CSEMU_RUNNING;
	if (!(k->ffcr & TB_TMC_FFCR_ENFT))
		csemu_violation(&k->c, CV_TMC_ENFT);
	if (k->type == TRACEBUF_CS_SINK_ETR) {
		k->dba = ((u64)k->dbahi << 32) | k->dbalo;
		k->size = (u64)k->rsz * 4;
		k->sgmode = (k->axictl & TB_TMC_AXICTL_SG) && k->sg_ok;
		if (!k->size)
			goto memerr;
		if (soc400) {
			/* SoC-400: capture starts at the buffer start, not empty-full. */
			k->full = false;
			if (k->sgmode) {
				if ((k->dba & (TB_SG_GRANULE - 1)) || csemu_sg_first(k))
					goto memerr;
			} else {
				k->pos = 0;
			}
		} else if (k->sgmode) {
			if ((k->dba & (TB_SG_GRANULE - 1)) || csemu_sg_locate(k, rwp))
				goto memerr;
		} else {
			if (rwp < k->dba || rwp - k->dba >= k->size)
				goto memerr;
			k->pos = rwp - k->dba;
		}
	}
	csemu_sink_resume(k);
	return;
memerr:
	csemu_memerr(k);
}

/*
 * CTL.TraceCaptEn 1->0. Only once the TMC is Stopped and TMCReady: until
 * then AXI writes may be outstanding and land after capture is disabled
 * (and after software freed the buffer). Linux's ETR driver always runs
 * tmc_flush_and_stop() (StopOnFl, FlushMan, wait TMCReady) before
 * tmc_disable_hw() (coresight-tmc-etr.c, __tmc_etr_disable_hw); DDI0461,
 * TMC states and STS.TMCReady: Running -> Stopped on a stop event
 * (FlushMan with StopOnFl), TMCReady once every write has completed.
 */
static void csemu_sink_disable(struct csemu_sink *k)
{
	if (csemu_sink_etm_on(k))
		csemu_violation(&k->c, CV_TMC_ETM_ON);
	if (k->state == CSEMU_RUNNING) {
		csemu_violation(&k->c, CV_TMC_DIS_RUNNING);
		k->discarded += k->fmt.pos;	/* never flushed */
	}
	csfmt_init(&k->fmt);
	k->state = CSEMU_DISABLED;
	k->rd_started = false;
}

static void csemu_ffcr_write(struct csemu_sink *k, u32 val)
{
	k->ffcr = val & ~TB_TMC_FFCR_FLUSHMAN;
	if (!(val & TB_TMC_FFCR_FLUSHMAN))
		return;
	k->flush_reads = CSEMU_LAG_READS;
	if (k->state != CSEMU_RUNNING)
		return;
	csemu_flush(k);
	if ((val & TB_TMC_FFCR_STOPONFL) && k->state == CSEMU_RUNNING) {
		if (csemu_sink_etm_on(k))
			csemu_violation(&k->c, CV_TMC_ETM_ON);
		k->state = CSEMU_STOPPED;
		k->rd_started = false;
	}
}

/* An RRP/RWP value: 4-byte aligned, inside the SRAM for ETF/ETB. */
static u32 csemu_ptr(struct csemu_sink *k, u32 val)
{
	if ((val & 3) || (k->sram_size && val >= k->sram_size))
		csemu_violation(&k->c, CV_TMC_PTR);
	if (k->sram_size)
		val &= k->sram_size - 1;
	return val & ~3U;
}

/* Registers that may change in the Disabled state only. */
static void csemu_tmc_set(struct csemu_sink *k, u32 off, u32 val)
{
	switch (off) {
	case TB_TMC_RSZ:
		k->rsz = val & GENMASK(30, 0);
		break;
	case TB_TMC_MODE:
		k->mode = val & 3;
		if (k->mode != TB_TMC_MODE_CIRCULAR)
			csemu_violation(&k->c, CV_TMC_MODE);
		break;
	case TB_TMC_AXICTL:
		if ((val & TB_TMC_AXICTL_SG) && !k->sg_ok)
			csemu_violation(&k->c, CV_TMC_MODE);
		k->axictl = val;
		break;
	case TB_TMC_DBALO:
		k->dbalo = val;
		break;
	case TB_TMC_DBAHI:
		k->dbahi = val;
		break;
	case TB_TMC_RRP:
		k->rrp = csemu_ptr(k, val);
		k->rd_started = false;
		break;
	case TB_TMC_RRPHI:
		k->rrphi = val;
		break;
	case TB_TMC_RWP:
		k->rwp = csemu_ptr(k, val);
		k->rd_started = false;
		break;
	case TB_TMC_RWPHI:
		k->rwphi = val;
		break;
	case TB_TMC_BUFWM:
		k->bufwm = val;
		break;
	}
}

static void csemu_tmc_write(struct csemu_sink *k, u32 off, u32 val)
{
	struct csemu_comp *c = &k->c;

	if (off == TB_CS_LAR) {
		c->locked = val != TB_CS_UNLOCK_KEY;
		return;
	}
	if (c->locked) {
		csemu_violation(c, CV_LOCKED);
		return;
	}
	switch (off) {
	case TB_CS_CLAIMSET:
		csemu_claimset(c, val);
		return;
	case TB_CS_CLAIMCLR:
		csemu_claimclr(c, val);
		return;
	case TB_TMC_CTL:
		val &= TB_TMC_CTL_CAPTEN;
		if (val && !k->ctl) {
			k->ctl = val;
			csemu_sink_start(k);
		} else if (!val && k->ctl) {
			k->ctl = val;
			csemu_sink_disable(k);
		}
		return;
	case TB_TMC_FFCR:
		csemu_ffcr_write(k, val);
		return;
	case TB_TMC_STS:
		if (k->state != CSEMU_DISABLED) {
			csemu_violation(c, CV_TMC_STATE);
			return;
		}
		if (!(val & TB_TMC_STS_FULL))
			k->full = false;
		k->rd_started = false;
		return;
	case TB_TMC_RSZ:
		if (k->type != TRACEBUF_CS_SINK_ETR) {
			csemu_violation(c, CV_READONLY);
			return;
		}
		fallthrough;
	case TB_TMC_MODE:
	case TB_TMC_AXICTL:
	case TB_TMC_DBALO:
	case TB_TMC_DBAHI:
	case TB_TMC_RRPHI:
	case TB_TMC_RWP:
	case TB_TMC_RWPHI:
	case TB_TMC_BUFWM:
		if (k->state != CSEMU_DISABLED) {
			csemu_violation(c, CV_TMC_STATE);
			return;
		}
		csemu_tmc_set(k, off, val);
		return;
	case TB_TMC_RRP:
		/* Also when Stopped: to read a wrapped SRAM from its oldest word. */
		if (k->state == CSEMU_RUNNING) {
			csemu_violation(c, CV_TMC_STATE);
			return;
		}
		csemu_tmc_set(k, off, val);
		return;
	case TB_TMC_TRG:
		k->trg = val;
		return;
	case TB_TMC_PSCR:
		k->pscr = val & 0x1f;
		return;
	case TB_TMC_RRD:
	case TB_TMC_LBUFLEVEL:
	case TB_TMC_CBUFLEVEL:
	case TB_TMC_FFSR:
		csemu_violation(c, CV_READONLY);
		return;
	}
	if (csemu_mgmt_ro(off))
		csemu_violation(c, CV_READONLY);
}

/* A read of FFCR, FFSR or STS: a flush in progress gets on. */
static void csemu_flush_tick(struct csemu_sink *k)
{
	if (k->flush_reads)
		k->flush_reads--;
}

static u32 csemu_sts(struct csemu_sink *k)
{
	u32 v = 0;

	if (k->full)
		v |= TB_TMC_STS_FULL;
	if (k->state != CSEMU_RUNNING) {
		v |= TB_TMC_STS_FTEMPTY | TB_TMC_STS_EMPTY;
		if (!k->flush_reads)
			v |= TB_TMC_STS_TMCREADY;
	}
	if (k->memerr)
		v |= TB_TMC_STS_MEMERR;
	csemu_flush_tick(k);
	return v;
}

/* ETF/ETB: the word at RRP, or 0xffffffff once RRP reached RWP. */
static u32 csemu_rrd(struct csemu_sink *k)
{
	u32 v;

	if (k->type == TRACEBUF_CS_SINK_ETR || k->state == CSEMU_RUNNING)
		return CSEMU_EMPTY;
	if (k->rrp == k->rwp && (!k->full || k->rd_started))
		return CSEMU_EMPTY;
	v = le32_to_cpu(*(__le32 *)(k->sram + k->rrp));
	k->rrp = (k->rrp + 4) & (k->sram_size - 1);
	k->rd_started = true;
	return v;
}

static u32 csemu_tmc_part(const struct csemu_sink *k)
{
	switch (k->type) {
	case TRACEBUF_CS_SINK_ETR:
		return soc400 ? CSEMU_TMC_PART_ETR_400 : CSEMU_TMC_PART_ETR;
	case TRACEBUF_CS_SINK_ETF:
		return CSEMU_TMC_PART_ETF;
	default:
		return CSEMU_TMC_PART_ETB;
	}
}

static u32 csemu_tmc_devid(const struct csemu_sink *k)
{
	u32 v = FIELD_PREP(TB_TMC_DEVID_CONFIG_TYPE, k->type) |
		FIELD_PREP(TB_TMC_DEVID_MEMWIDTH, CSEMU_DEVID_MEMWIDTH_32);

	if (k->type == TRACEBUF_CS_SINK_ETR) {
		v |= CSEMU_DEVID_AXIAW_VALID | FIELD_PREP(CSEMU_DEVID_AXIAW, 40);
		if (!k->sg_ok)
			v |= TB_TMC_DEVID_NOSCAT;
	}
	return v;
}

static u32 csemu_tmc_read(struct csemu_sink *k, u32 off)
{
	bool etr = k->type == TRACEBUF_CS_SINK_ETR;
	u32 v;

	switch (off) {
	case TB_TMC_RSZ:
		return k->rsz;
	case TB_TMC_STS:
		return csemu_sts(k);
	case TB_TMC_RRD:
		return csemu_rrd(k);
	case TB_TMC_RRP:
		return k->rrp;
	case TB_TMC_RWP:
		return k->rwp;
	case TB_TMC_TRG:
		return k->trg;
	case TB_TMC_CTL:
		return k->ctl;
	case TB_TMC_MODE:
		return k->mode;
	case TB_TMC_BUFWM:
		return k->bufwm;
	case TB_TMC_RRPHI:
		return etr ? k->rrphi : 0;
	case TB_TMC_RWPHI:
		return etr ? k->rwphi : 0;
	case TB_TMC_AXICTL:
		return etr ? k->axictl : 0;
	case TB_TMC_DBALO:
		return etr ? k->dbalo : 0;
	case TB_TMC_DBAHI:
		return etr ? k->dbahi : 0;
	case TB_TMC_FFSR:
		v = (k->flush_reads ? TB_TMC_FFSR_FLINPROG : 0) |
		    (k->state != CSEMU_RUNNING ? TB_TMC_FFSR_FTSTOPPED : 0);
		csemu_flush_tick(k);
		return v;
	case TB_TMC_FFCR:
		v = k->ffcr | (k->flush_reads ? TB_TMC_FFCR_FLUSHMAN : 0);
		csemu_flush_tick(k);
		return v;
	case TB_TMC_PSCR:
		return k->pscr;
	case TB_CS_DEVARCH:
		return 0;
	case TB_CS_DEVID:
		return csemu_tmc_devid(k);
	case TB_CS_DEVTYPE:
		return k->type == TRACEBUF_CS_SINK_ETF ? CSEMU_TMC_DEVTYPE_FIFO :
							 CSEMU_TMC_DEVTYPE_BUF;
	}
	if (csemu_mgmt_read(&k->c, off, csemu_tmc_part(k), &v))
		return v;
	return 0;
}

/* ---- ETMv4 ---- */

/* Under the sink's lock. */
static void csemu_op(struct csemu_etm *e, enum csemu_op op)
{
	e->ops[e->nops % CSEMU_OPS_MAX] = op;
	e->nops++;
}

/* TRCIDRn at off: its n, or -1. */
static int csemu_etm_idr(u32 off)
{
	unsigned int n;

	for (n = 0; n < TB_ETM_NR_IDR; n++)
		if (tb_etm_idr_off(n) == off)
			return n;
	return -1;
}

/* The ID register block: TRCIDR8..13, TRCIDR0..7 and reserved space. */
static bool csemu_etm_id_block(u32 off)
{
	return (off >= 0x180 && off < 0x1c0) || (off >= 0x1e0 && off < 0x200);
}

/* TRCACVRn / TRCACATRn halves of comparators beyond nr_ranges pairs. */
static bool csemu_etm_ac_absent(u32 off)
{
	if (off < TB_ETM_TRCACVR(0) || off >= TB_ETM_TRCACATR(0) + 0x80)
		return false;
	return ((off - TB_ETM_TRCACVR(0)) % 0x80) / 8 >= 2 * nr_ranges;
}

static u64 csemu_etm_reg64(const struct csemu_etm *e, u32 off)
{
	return ((u64)e->regs[off / 4 + 1] << 32) | e->regs[off / 4];
}

/* What the unit was programmed with, as the generator takes it. */
static void csemu_etm_cfg(const struct csemu_etm *e, struct csgen_cfg *cfg)
{
	u32 rsctlr2 = e->regs[TB_ETM_TRCRSCTLR(2) / 4];
	unsigned int i;

	memset(cfg, 0, sizeof(*cfg));
	cfg->configr = e->regs[TB_ETM_TRCCONFIGR / 4];
	cfg->victlr = e->regs[TB_ETM_TRCVICTLR / 4];
	cfg->viiectlr = e->regs[TB_ETM_TRCVIIECTLR / 4];
	for (i = 0; i < ARRAY_SIZE(cfg->acvr); i++)
		cfg->acvr[i] = csemu_etm_reg64(e, TB_ETM_TRCACVR(i));
	cfg->ccctlr = e->regs[TB_ETM_TRCCCCTLR / 4];
	cfg->syncpr = syncpr_ro ? CSEMU_SYNCPR_RO : e->regs[TB_ETM_TRCSYNCPR / 4];
	cfg->tsctlr = e->regs[TB_ETM_TRCTSCTLR / 4];
	/* Timestamp event: resource 2, counter 0 at zero (its reload value). */
	if ((cfg->tsctlr & 0xff) == 2 &&
	    ((rsctlr2 >> TB_ETM_RSCTLR_GROUP_SHIFT) & 0xf) == TB_ETM_RSCTLR_GROUP_CNTR &&
	    (rsctlr2 & 1))
		cfg->ts_interval = e->regs[TB_ETM_TRCCNTRLDVR(0) / 4];
	cfg->trcidr0 = csemu.idr[0];
	cfg->trcidr2 = csemu.idr[2];
	cfg->contextid = 0x1000 * (e->cpu + 1);
	cfg->vmid = e->cpu + 1;
}

/*
 * Start/stop bytes of the unit: to the sink if it captures, else they
 * wait (and the oldest are dropped if they do not fit: misuse only).
 */
static void csemu_etm_emit(struct csemu_etm *e, const u8 *buf, size_t n)
{
	struct csemu_sink *k = e->sink;

	if (!n)
		return;
	e->bytes += n;
	if (k->state == CSEMU_RUNNING) {
		csemu_sink_resume(k);
		csemu_push(k, csemu_trace_id(e), buf, n);
		return;
	}
	if (e->npending + n > sizeof(e->pending)) {
		e->dropped += e->npending;
		e->npending = 0;
	}
	memcpy(e->pending + e->npending, buf, n);
	e->npending += n;
	e->pending_id = csemu_trace_id(e);
}

/* A trace ID in 0x01..0x6f that no other enabled ETM of the sink uses. */
static bool csemu_etm_id_ok(const struct csemu_etm *e)
{
	u8 id = csemu_trace_id(e);
	unsigned int cpu;

	if (!id || id > CSEMU_TRACE_ID_MAX)
		return false;
	for_each_possible_cpu(cpu) {
		const struct csemu_etm *o = &csemu.etms[cpu];

		if (o != e && o->sink == e->sink && o->en && csemu_trace_id(o) == id)
			return false;
	}
	return true;
}

/* TRCPRGCTLR.EN 0->1. */
static void csemu_etm_enable(struct csemu_etm *e)
{
	u8 buf[CSGEN_START_MAX];
	struct csgen_cfg cfg;

	csemu_op(e, OP_EN);
	if (!e->configured)
		csemu_violation(&e->c, CV_ORD_EN);
	if (!(e->pdcr & TB_ETM_PDCR_PU))
		csemu_violation(&e->c, CV_EN_PU);
	if (!csemu_etm_id_ok(e))
		csemu_violation(&e->c, CV_EN_TRACEID);
	if (e->sink->state != CSEMU_RUNNING)
		csemu_violation(&e->c, CV_EN_SINK);
	WRITE_ONCE(e->en, true);
	e->stat_reads = CSEMU_LAG_READS;
	e->stat_lag = TB_ETM_STATR_IDLE;
	e->idle0_pend = true;
	e->prg0_pend = false;
	e->prog_ok = false;
	e->configured = false;
	e->pm_pend = false;
	e->enables++;
	csemu_etm_cfg(e, &cfg);
	csemu_etm_emit(e, buf, csgen_start(&e->gen, &cfg, buf, sizeof(buf)));
}

/* TRCPRGCTLR.EN 1->0. */
static void csemu_etm_disable(struct csemu_etm *e)
{
	u8 buf[CSGEN_START_MAX];

	csemu_op(e, OP_EN_CLEAR);
	if (e->pdcr & TB_ETM_PDCR_PU)
		csemu_violation(&e->c, CV_ORD_EN_CLEAR);
	WRITE_ONCE(e->en, false);
	e->stat_reads = CSEMU_LAG_READS;
	e->stat_lag = 0;
	e->idle_seen = false;
	e->idle0_pend = false;
	e->pm_pend = true;
	e->disables++;
	csemu_etm_emit(e, buf, csgen_stop(&e->gen, buf, sizeof(buf)));
}

static void csemu_etm_prgctlr(struct csemu_etm *e, bool en)
{
	if (en && !e->en) {
		csemu_etm_enable(e);
	} else if (!en && e->en) {
		csemu_etm_disable(e);
	} else if (!en) {
		csemu_op(e, OP_PRG0);
		if (!(e->c.claim & TB_CS_CLAIM_SELF_HOSTED))
			csemu_violation(&e->c, CV_ORD_PRG0);
		e->prg0_pend = true;
		e->prog_ok = false;
		e->configured = false;
	}
}

static u32 csemu_etm_statr(struct csemu_etm *e)
{
	u32 v;

	if (e->stat_reads) {
		v = e->stat_lag;
		e->stat_reads--;
	} else {
		v = e->en ? 0 : TB_ETM_STATR_IDLE | TB_ETM_STATR_PMSTABLE;
	}
	if (!e->en && (v & TB_ETM_STATR_IDLE)) {
		e->idle_seen = true;
		if (e->prg0_pend) {
			csemu_op(e, OP_IDLE1);
			e->prg0_pend = false;
			e->prog_ok = true;
		}
	}
	if (e->en && e->idle0_pend && !(v & TB_ETM_STATR_IDLE)) {
		csemu_op(e, OP_IDLE0);
		e->idle0_pend = false;
	}
	if (!e->en && e->pm_pend && (v & TB_ETM_STATR_PMSTABLE)) {
		csemu_op(e, OP_PMSTABLE1);
		e->pm_pend = false;
	}
	return v;
}

static void csemu_etm_pdcr(struct csemu_etm *e, u32 val)
{
	bool old = e->pdcr & TB_ETM_PDCR_PU, pu = val & TB_ETM_PDCR_PU;

	e->pdcr = val & TB_ETM_PDCR_PU;
	if (pu && !old) {
		csemu_op(e, OP_PU);
		if (!e->configured)
			csemu_violation(&e->c, CV_ORD_PU);
	} else if (!pu && old) {
		csemu_op(e, OP_PU_CLEAR);
	}
}

/* Registers software cannot write. */
static bool csemu_etm_ro(u32 off)
{
	return off == TB_ETM_TRCSTATR || csemu_etm_id_block(off) ||
	       off == TB_ETM_TRCOSLSR || off == TB_ETM_TRCPDSR ||
	       (off == TB_ETM_TRCSYNCPR && syncpr_ro) || csemu_mgmt_ro(off);
}

/* Management registers: not subject to the OS lock. */
static bool csemu_etm_mgmt_write(struct csemu_etm *e, u32 off, u32 val)
{
	switch (off) {
	case TB_CS_CLAIMSET:
		if (val & TB_CS_CLAIM_SELF_HOSTED) {
			csemu_op(e, OP_CLAIM);
			if (e->oslk)
				csemu_violation(&e->c, CV_ORD_CLAIM);
		}
		csemu_claimset(&e->c, val);
		return true;
	case TB_CS_CLAIMCLR:
		if (val & TB_CS_CLAIM_SELF_HOSTED) {
			csemu_op(e, OP_DISCLAIM);
			if (e->en || e->pm_pend)
				csemu_violation(&e->c, CV_ORD_DISCLAIM);
		}
		csemu_claimclr(&e->c, val);
		return true;
	case TB_ETM_TRCOSLAR:
		e->oslk = val & 1;
		csemu_op(e, e->oslk ? OP_OSLOCK_SET : OP_OSLOCK_CLEAR);
		return true;
	case TB_ETM_TRCPDCR:
		csemu_etm_pdcr(e, val);
		return true;
	}
	return false;
}

static void csemu_etm_write(struct csemu_etm *e, u32 off, u32 val)
{
	struct csemu_comp *c = &e->c;

	if (off == TB_CS_LAR) {
		if (val == TB_CS_UNLOCK_KEY) {
			c->locked = false;
			csemu_op(e, OP_UNLOCK);
		} else {
			if (e->en && e->idle0_pend)
				csemu_violation(c, CV_ORD_LOCK);
			c->locked = true;
			csemu_op(e, OP_LOCK);
		}
		return;
	}
	if (c->locked) {
		csemu_violation(c, CV_LOCKED);
		return;
	}
	if (csemu_etm_mgmt_write(e, off, val))
		return;
	if (csemu_etm_ro(off)) {
		csemu_violation(c, CV_READONLY);
		return;
	}
	if (off >= CSEMU_ETM_REGS || off < TB_ETM_TRCPRGCTLR)
		return;		/* integration and reserved space: ignored */
	if (e->oslk) {
		csemu_violation(c, CV_OSLOCK);
		return;
	}
	if (off == TB_ETM_TRCPRGCTLR) {
		csemu_etm_prgctlr(e, val & TB_ETM_PRGCTLR_EN);
		return;
	}
	/* A programming register: only while idle. */
	if (e->en) {
		csemu_violation(c, CV_PROG_EN);
		return;
	}
	if (!e->idle_seen) {
		csemu_violation(c, CV_PROG_IDLE);
		return;
	}
	if (!e->prog_ok)
		csemu_violation(c, CV_ORD_CONFIG);
	else if (!e->configured)
		csemu_op(e, OP_CONFIG);
	e->configured = true;
	if (!csemu_etm_ac_absent(off))
		e->regs[off / 4] = val;
}

static u32 csemu_etm_read(struct csemu_etm *e, u32 off)
{
	u32 v;
	int n;

	switch (off) {
	case TB_ETM_TRCPRGCTLR:
		return e->en;
	case TB_ETM_TRCSTATR:
		return csemu_etm_statr(e);
	case TB_ETM_TRCOSLAR:
		return 0;
	case TB_ETM_TRCOSLSR:	/* OSLM 0b010: memory-mapped OS lock */
		return BIT(3) | (e->oslk ? TB_ETM_OSLSR_OSLK : 0);
	case TB_ETM_TRCPDCR:
		return e->pdcr;
	case TB_ETM_TRCPDSR:
		v = TB_ETM_PDSR_POWER | (e->sticky_pd ? TB_ETM_PDSR_STICKYPD : 0) |
		    (e->oslk ? TB_ETM_PDSR_OSLK : 0);
		e->sticky_pd = false;
		return v;
	case TB_ETM_TRCSYNCPR:
		return syncpr_ro ? CSEMU_SYNCPR_RO : e->regs[off / 4];
	case TB_CS_DEVARCH:
		return CSEMU_ETM_DEVARCH;
	case TB_CS_DEVID:
		return 0;
	case TB_CS_DEVTYPE:
		return CSEMU_ETM_DEVTYPE;
	}
	n = csemu_etm_idr(off);
	if (n >= 0)
		return csemu.idr[n];
	if (csemu_etm_id_block(off) || csemu_etm_ac_absent(off))
		return 0;
	if (off < CSEMU_ETM_REGS)
		return e->regs[off / 4];
	if (csemu_mgmt_read(&e->c, off, CSEMU_ETM_PART, &v))
		return v;
	return 0;
}

/* ---- the accessors ---- */

static u32 csemu_io_read(void __iomem *base, u32 off)
{
	struct csemu_comp *c = (__force struct csemu_comp *)base;
	unsigned long flags;
	u32 v = 0;

	raw_spin_lock_irqsave(c->lock, flags);
	if ((off & 3) || off >= SZ_4K)
		csemu_violation(c, CV_ACCESS);
	else if (c->kind == CSEMU_KIND_ETM)
		v = csemu_etm_read(container_of(c, struct csemu_etm, c), off);
	else
		v = csemu_tmc_read(container_of(c, struct csemu_sink, c), off);
	raw_spin_unlock_irqrestore(c->lock, flags);
	return v;
}

static void csemu_io_write(void __iomem *base, u32 off, u32 val)
{
	struct csemu_comp *c = (__force struct csemu_comp *)base;
	unsigned long flags;

	raw_spin_lock_irqsave(c->lock, flags);
	if ((off & 3) || off >= SZ_4K)
		csemu_violation(c, CV_ACCESS);
	else if (c->kind == CSEMU_KIND_ETM)
		csemu_etm_write(container_of(c, struct csemu_etm, c), off, val);
	else
		csemu_tmc_write(container_of(c, struct csemu_sink, c), off, val);
	raw_spin_unlock_irqrestore(c->lock, flags);
}

static const struct tb_cs_io csemu_io = {
	.read	= csemu_io_read,
	.write	= csemu_io_write,
};

/* ---- generation ---- */

static ktime_t csemu_period(void)
{
	return ns_to_ktime((u64)clamp(READ_ONCE(period_us), 20U, 1000000U) *
			   NSEC_PER_USEC);
}

/* About budget bytes of the unit's program, if its sink captures. */
static void csemu_generate(struct csemu_etm *e, u64 budget)
{
	struct csemu_sink *k = e->sink;
	unsigned int steps = 0, max_steps;
	unsigned long flags;
	u64 done = 0;
	size_t n;

	raw_spin_lock_irqsave(&k->lock, flags);
	if (!e->en)
		goto out;
	if (k->state != CSEMU_RUNNING) {
		e->stalls++;	/* the program waits for the sink */
		goto out;
	}
	/* Bounded: a program filtered out entirely yields 0 bytes a step. */
	max_steps = div_u64(budget, 64) + 2;
	while (done < budget && steps++ < max_steps && k->state == CSEMU_RUNNING) {
		n = csgen_step(&e->gen, k->gbuf, sizeof(k->gbuf));
		if (!n)
			continue;
		e->bytes += n;
		csemu_push(k, csemu_trace_id(e), k->gbuf, n);
		done += n;
	}
out:
	raw_spin_unlock_irqrestore(&k->lock, flags);
}

static enum hrtimer_restart csemu_tick(struct hrtimer *t)
{
	struct csemu_etm *e = container_of(t, struct csemu_etm, timer);
	u64 periods = hrtimer_forward_now(t, csemu_period());
	u32 r = min(READ_ONCE(rate), CSEMU_MAX_RATE);

	if (READ_ONCE(e->en) && r)
		csemu_generate(e, (u64)r * min_t(u64, periods, CSEMU_MAX_PERIODS));
	return HRTIMER_RESTART;
}

/* On the incoming CPU: its unit ticks. */
static int csemu_cpu_online(unsigned int cpu)
{
	hrtimer_start(&csemu.etms[cpu].timer, csemu_period(),
		      HRTIMER_MODE_REL_PINNED_HARD);
	return 0;
}

/* On the outgoing CPU: its unit stops ticking; registers are kept. */
static int csemu_cpu_offline(unsigned int cpu)
{
	hrtimer_cancel(&csemu.etms[cpu].timer);
	return 0;
}

/*
 * On a control CPU, once the CPU is dead: its ETM must be off. Linux's
 * ETMv4 driver disables the unit on the way down (coresight-etm4x-core.c,
 * etm4_dying_cpu()); a unit left enabled on a dead PE loses its state
 * with the power domain (IHI0064, power-down support) and keeps its sink
 * claimed in the meantime. Registers are kept, as on the way down.
 */
static int csemu_cpu_dead(unsigned int cpu)
{
	struct csemu_etm *e = &csemu.etms[cpu];
	unsigned long flags;

	raw_spin_lock_irqsave(e->c.lock, flags);
	if (e->en)
		csemu_violation(&e->c, CV_ETM_CPU_DEAD);
	raw_spin_unlock_irqrestore(e->c.lock, flags);
	return 0;
}

/* ---- debugfs ---- */

static int csemu_etm_stats_show(struct seq_file *m, void *v)
{
	struct csemu_etm *e = m->private;
	u64 enables, disables, bytes, blocks, stalls, viol, dropped;
	unsigned int npending;
	bool en, oslk, locked;
	u32 claim, id;
	unsigned long flags;

	raw_spin_lock_irqsave(&e->sink->lock, flags);
	en = e->en;
	enables = e->enables;
	disables = e->disables;
	bytes = e->bytes;
	blocks = e->gen.blocks;
	stalls = e->stalls;
	viol = e->c.violations;
	dropped = e->dropped;
	npending = e->npending;
	oslk = e->oslk;
	locked = e->c.locked;
	claim = e->c.claim;
	id = csemu_trace_id(e);
	raw_spin_unlock_irqrestore(&e->sink->lock, flags);

	seq_printf(m, "enabled %d\n", en);
	seq_printf(m, "enables %llu\n", enables);
	seq_printf(m, "disables %llu\n", disables);
	seq_printf(m, "bytes %llu\n", bytes);
	seq_printf(m, "blocks %llu\n", blocks);
	seq_printf(m, "stalls %llu\n", stalls);
	seq_printf(m, "violations %llu\n", viol);
	seq_printf(m, "oslock %d\n", oslk);
	seq_printf(m, "locked %d\n", locked);
	seq_printf(m, "claim %u\n", claim);
	seq_printf(m, "trace_id %u\n", id);
	seq_printf(m, "cpu %u\n", e->cpu);
	seq_printf(m, "sink %u\n", e->sink->index);
	seq_printf(m, "pending %u\n", npending);
	seq_printf(m, "dropped %llu\n", dropped);
	return 0;
}
DEFINE_SHOW_ATTRIBUTE(csemu_etm_stats);

static int csemu_etm_ops_show(struct seq_file *m, void *v)
{
	struct csemu_etm *e = m->private;
	u8 ops[CSEMU_OPS_MAX];
	unsigned long flags;
	u64 nops, i, first;

	raw_spin_lock_irqsave(&e->sink->lock, flags);
	memcpy(ops, e->ops, sizeof(ops));
	nops = e->nops;
	raw_spin_unlock_irqrestore(&e->sink->lock, flags);

	first = nops > CSEMU_OPS_MAX ? nops - CSEMU_OPS_MAX : 0;
	for (i = first; i < nops; i++)
		seq_printf(m, "%s\n", csemu_op_name[ops[i % CSEMU_OPS_MAX]]);
	return 0;
}
DEFINE_SHOW_ATTRIBUTE(csemu_etm_ops);

static const struct {
	const char *name;
	u32 off;
} csemu_etm_reg_names[] = {
	{ "TRCPRGCTLR", TB_ETM_TRCPRGCTLR },
	{ "TRCCONFIGR", TB_ETM_TRCCONFIGR },
	{ "TRCEVENTCTL0R", TB_ETM_TRCEVENTCTL0R },
	{ "TRCEVENTCTL1R", TB_ETM_TRCEVENTCTL1R },
	{ "TRCSTALLCTLR", TB_ETM_TRCSTALLCTLR },
	{ "TRCTSCTLR", TB_ETM_TRCTSCTLR },
	{ "TRCSYNCPR", TB_ETM_TRCSYNCPR },
	{ "TRCCCCTLR", TB_ETM_TRCCCCTLR },
	{ "TRCBBCTLR", TB_ETM_TRCBBCTLR },
	{ "TRCTRACEIDR", TB_ETM_TRCTRACEIDR },
	{ "TRCVICTLR", TB_ETM_TRCVICTLR },
	{ "TRCVIIECTLR", TB_ETM_TRCVIIECTLR },
	{ "TRCVISSCTLR", TB_ETM_TRCVISSCTLR },
	{ "TRCPDCR", TB_ETM_TRCPDCR },
	{ "TRCCNTRLDVR0", TB_ETM_TRCCNTRLDVR(0) },
	{ "TRCCNTCTLR0", TB_ETM_TRCCNTCTLR(0) },
	{ "TRCRSCTLR2", TB_ETM_TRCRSCTLR(2) },
};

#define CSEMU_NR_AC	8	/* TRCACVR0..7, TRCACATR0..7 shown */

/* A programmed register's value, without a read's side effects. */
static u32 csemu_etm_peek(const struct csemu_etm *e, u32 off)
{
	switch (off) {
	case TB_ETM_TRCPRGCTLR:
		return e->en;
	case TB_ETM_TRCPDCR:
		return e->pdcr;
	case TB_ETM_TRCSYNCPR:
		return syncpr_ro ? CSEMU_SYNCPR_RO : e->regs[off / 4];
	default:
		return e->regs[off / 4];
	}
}

static int csemu_etm_regs_show(struct seq_file *m, void *v)
{
	struct csemu_etm *e = m->private;
	u32 val[ARRAY_SIZE(csemu_etm_reg_names)];
	u64 acvr[CSEMU_NR_AC], acatr[CSEMU_NR_AC];
	unsigned long flags;
	unsigned int i;

	raw_spin_lock_irqsave(&e->sink->lock, flags);
	for (i = 0; i < ARRAY_SIZE(csemu_etm_reg_names); i++)
		val[i] = csemu_etm_peek(e, csemu_etm_reg_names[i].off);
	for (i = 0; i < CSEMU_NR_AC; i++) {
		acvr[i] = csemu_etm_reg64(e, TB_ETM_TRCACVR(i));
		acatr[i] = csemu_etm_reg64(e, TB_ETM_TRCACATR(i));
	}
	raw_spin_unlock_irqrestore(&e->sink->lock, flags);

	for (i = 0; i < ARRAY_SIZE(csemu_etm_reg_names); i++)
		seq_printf(m, "%s 0x%x\n", csemu_etm_reg_names[i].name, val[i]);
	for (i = 0; i < CSEMU_NR_AC; i++)
		seq_printf(m, "TRCACVR%u 0x%llx\n", i, acvr[i]);
	for (i = 0; i < CSEMU_NR_AC; i++)
		seq_printf(m, "TRCACATR%u 0x%llx\n", i, acatr[i]);
	return 0;
}
DEFINE_SHOW_ATTRIBUTE(csemu_etm_regs);

static const char *csemu_type_name(u32 type)
{
	switch (type) {
	case TRACEBUF_CS_SINK_ETR:
		return "etr";
	case TRACEBUF_CS_SINK_ETF:
		return "etf";
	default:
		return "etb";
	}
}

static int csemu_sink_stats_show(struct seq_file *m, void *v)
{
	struct csemu_sink *k = m->private;
	u64 bytes, frames, wraps, memerrs, viol, flushes, captures, discarded;
	enum csemu_state state;
	bool full, memerr;
	unsigned long flags;

	raw_spin_lock_irqsave(&k->lock, flags);
	state = k->state;
	bytes = k->bytes;
	frames = k->frames;
	wraps = k->wraps;
	memerrs = k->memerrs;
	viol = k->c.violations;
	flushes = k->flushes;
	captures = k->captures;
	discarded = k->discarded;
	full = k->full;
	memerr = k->memerr;
	raw_spin_unlock_irqrestore(&k->lock, flags);

	seq_printf(m, "type %s\n", csemu_type_name(k->type));
	seq_printf(m, "sg %d\n", k->sg_ok);
	seq_printf(m, "state %d\n", state);
	seq_printf(m, "bytes %llu\n", bytes);
	seq_printf(m, "frames %llu\n", frames);
	seq_printf(m, "wraps %llu\n", wraps);
	seq_printf(m, "memerr %llu\n", memerrs);
	seq_printf(m, "violations %llu\n", viol);
	seq_printf(m, "flushes %llu\n", flushes);
	seq_printf(m, "captures %llu\n", captures);
	seq_printf(m, "discarded %llu\n", discarded);
	seq_printf(m, "full %d\n", full);
	seq_printf(m, "memerr_now %d\n", memerr);
	return 0;
}
DEFINE_SHOW_ATTRIBUTE(csemu_sink_stats);

static int csemu_sink_regs_show(struct seq_file *m, void *v)
{
	static const char * const names[] = {
		"RSZ", "CTL", "MODE", "FFCR", "AXICTL", "DBALO", "DBAHI",
		"RRP", "RRPHI", "RWP", "RWPHI", "BUFWM", "TRG",
	};
	struct csemu_sink *k = m->private;
	u32 r[ARRAY_SIZE(names)];
	unsigned long flags;
	unsigned int i;

	raw_spin_lock_irqsave(&k->lock, flags);
	r[0] = k->rsz;
	r[1] = k->ctl;
	r[2] = k->mode;
	r[3] = k->ffcr;
	r[4] = k->axictl;
	r[5] = k->dbalo;
	r[6] = k->dbahi;
	r[7] = k->rrp;
	r[8] = k->rrphi;
	r[9] = k->rwp;
	r[10] = k->rwphi;
	r[11] = k->bufwm;
	r[12] = k->trg;
	raw_spin_unlock_irqrestore(&k->lock, flags);

	for (i = 0; i < ARRAY_SIZE(names); i++)
		seq_printf(m, "%s 0x%x\n", names[i], r[i]);
	return 0;
}
DEFINE_SHOW_ATTRIBUTE(csemu_sink_regs);

static int csemu_violations_show(struct seq_file *m, void *v)
{
	seq_printf(m, "%lld\n", (long long)atomic64_read(&csemu.violations));
	return 0;
}
DEFINE_SHOW_ATTRIBUTE(csemu_violations);

static void csemu_debugfs_init(void)
{
	unsigned int cpu, i;
	char name[24];

	csemu.dir = debugfs_create_dir("tb_csemu", NULL);
	debugfs_create_u32("rate", 0644, csemu.dir, &rate);
	debugfs_create_u32("period_us", 0644, csemu.dir, &period_us);
	debugfs_create_file("violations", 0444, csemu.dir, NULL,
			    &csemu_violations_fops);
	for_each_possible_cpu(cpu) {
		struct csemu_etm *e = &csemu.etms[cpu];

		snprintf(name, sizeof(name), "etm%u", cpu);
		e->dir = debugfs_create_dir(name, csemu.dir);
		debugfs_create_file("stats", 0444, e->dir, e, &csemu_etm_stats_fops);
		debugfs_create_file("ops", 0444, e->dir, e, &csemu_etm_ops_fops);
		debugfs_create_file("regs", 0444, e->dir, e, &csemu_etm_regs_fops);
	}
	for (i = 0; i < csemu.nr_sinks; i++) {
		struct csemu_sink *k = &csemu.sinks[i];

		snprintf(name, sizeof(name), "sink%u", i);
		k->dir = debugfs_create_dir(name, csemu.dir);
		debugfs_create_file("stats", 0444, k->dir, k, &csemu_sink_stats_fops);
		debugfs_create_file("regs", 0444, k->dir, k, &csemu_sink_regs_fops);
	}
}

/* ---- platform, init, exit ---- */

/* owned=1: the sinks are bound to this, as to the kernel's TMC driver. */
static int csemu_owner_probe(struct platform_device *pdev)
{
	return 0;
}

static const struct platform_device_id csemu_owner_ids[] = {
	{ "csemu-tmc", 0 },
	{ }
};

static struct platform_driver csemu_owner_drv = {
	.probe		= csemu_owner_probe,
	.id_table	= csemu_owner_ids,
	.driver		= {
		.name		= "coresight-tmc",
		.probe_type	= PROBE_FORCE_SYNCHRONOUS,
	},
};

static int csemu_params(void)
{
	if (topology && sysfs_streq(topology, "shared")) {
		csemu.percpu = false;
	} else if (topology && sysfs_streq(topology, "percpu")) {
		csemu.percpu = true;
	} else {
		pr_err("tb_csemu: topology= must be shared or percpu\n");
		return -EINVAL;
	}
	if (sink_param && sysfs_streq(sink_param, "etr")) {
		csemu.sink_type = TRACEBUF_CS_SINK_ETR;
	} else if (sink_param && sysfs_streq(sink_param, "etf")) {
		csemu.sink_type = TRACEBUF_CS_SINK_ETF;
	} else if (sink_param && sysfs_streq(sink_param, "etb")) {
		csemu.sink_type = TRACEBUF_CS_SINK_ETB;
	} else {
		pr_err("tb_csemu: sink= must be etr, etf or etb\n");
		return -EINVAL;
	}
	if (csemu.sink_type != TRACEBUF_CS_SINK_ETR &&
	    (sram_kb < 4 || sram_kb > 65536 || !is_power_of_2(sram_kb))) {
		pr_err("tb_csemu: sram_kb= must be a power of two, 4..65536\n");
		return -EINVAL;
	}
	if (nr_ranges > TB_ETM_MAX_ADDR_RANGES || ccitmin > TB_ETM_IDR3_CCITMIN) {
		pr_err("tb_csemu: nr_ranges= is 0..%u, ccitmin= 0..4095\n",
		       TB_ETM_MAX_ADDR_RANGES);
		return -EINVAL;
	}
	return 0;
}

/* csemu_gen.h's ID registers, less what the parameters take away. */
static void csemu_idr_init(void)
{
	static const u32 def[TB_ETM_NR_IDR] = {
		CSGEN_IDR0, CSGEN_IDR1, CSGEN_IDR2, CSGEN_IDR3, CSGEN_IDR4,
		CSGEN_IDR5, CSGEN_IDR6, CSGEN_IDR7, CSGEN_IDR8, CSGEN_IDR9,
		CSGEN_IDR10, CSGEN_IDR11, CSGEN_IDR12, CSGEN_IDR13,
	};
	u32 *idr = csemu.idr;

	memcpy(idr, def, sizeof(def));
	if (!opt_cycacc)
		idr[0] &= ~TB_ETM_IDR0_TRCCCI;
	if (!opt_ts)
		idr[0] &= ~TB_ETM_IDR0_TSSIZE;
	if (!opt_bb)
		idr[0] &= ~TB_ETM_IDR0_TRCBB;
	if (!opt_rs)
		idr[0] &= ~TB_ETM_IDR0_RETSTACK;
	if (!opt_cid)
		idr[2] &= ~TB_ETM_IDR2_CIDSIZE;
	if (!opt_vmid)
		idr[2] &= ~TB_ETM_IDR2_VMIDSIZE;
	if (syncpr_ro)
		idr[3] |= TB_ETM_IDR3_SYNCPR;
	idr[3] = (idr[3] & ~TB_ETM_IDR3_CCITMIN) |
		 FIELD_PREP(TB_ETM_IDR3_CCITMIN, ccitmin);
	idr[4] = (idr[4] & ~TB_ETM_IDR4_NUMACPAIRS) |
		 FIELD_PREP(TB_ETM_IDR4_NUMACPAIRS, nr_ranges);
}

static int csemu_sink_init(struct csemu_sink *k, unsigned int i)
{
	struct platform_device_info info = {
		.name		= "csemu-tmc",
		.id		= i,
		.dma_mask	= DMA_BIT_MASK(64),
	};
	struct platform_device *pdev;

	k->c.kind = CSEMU_KIND_TMC;
	k->c.locked = true;
	k->c.lock = &k->lock;
	snprintf(k->c.name, sizeof(k->c.name), "csemu-tmc%u", i);
	raw_spin_lock_init(&k->lock);
	k->index = i;
	k->type = csemu.sink_type;
	k->sg_ok = k->type == TRACEBUF_CS_SINK_ETR && sg;
	k->state = CSEMU_DISABLED;
	csfmt_init(&k->fmt);
	if (k->type != TRACEBUF_CS_SINK_ETR) {
		k->sram_size = sram_kb * 1024;
		k->rsz = k->sram_size / 4;
		k->sram = vzalloc(k->sram_size);
		if (!k->sram)
			return -ENOMEM;
	}
	pdev = platform_device_register_full(&info);
	if (IS_ERR(pdev))
		return PTR_ERR(pdev);
	k->pdev = pdev;
	/* Our writes go through the CPU caches: a coherent interconnect. */
#if defined(CONFIG_ARCH_HAS_SYNC_DMA_FOR_DEVICE) || \
	defined(CONFIG_ARCH_HAS_SYNC_DMA_FOR_CPU) || \
	defined(CONFIG_ARCH_HAS_SYNC_DMA_FOR_CPU_ALL)
	pdev->dev.dma_coherent = true;
#endif
	return 0;
}

static void csemu_etm_init(struct csemu_etm *e, unsigned int cpu)
{
	e->c.kind = CSEMU_KIND_ETM;
	e->c.locked = true;
	e->cpu = cpu;
	e->sink = &csemu.sinks[csemu.percpu ? cpu : 0];
	e->c.lock = &e->sink->lock;
	snprintf(e->c.name, sizeof(e->c.name), "csemu-etm%u", cpu);
	e->oslk = true;
	e->idle_seen = true;
	e->sticky_pd = true;
	csgen_init(&e->gen, seed, cpu);
	hrtimer_init(&e->timer, CLOCK_MONOTONIC, HRTIMER_MODE_REL_PINNED_HARD);
	e->timer.function = csemu_tick;
}

static void csemu_free(void)
{
	unsigned int cpu, i;

	if (csemu.etms)
		for_each_possible_cpu(cpu)
			if (csemu.etms[cpu].sink)
				hrtimer_cancel(&csemu.etms[cpu].timer);
	for (i = 0; csemu.sinks && i < csemu.nr_sinks; i++) {
		if (csemu.sinks[i].pdev)
			platform_device_unregister(csemu.sinks[i].pdev);
		vfree(csemu.sinks[i].sram);
	}
	if (csemu.driver_registered)
		platform_driver_unregister(&csemu_owner_drv);
	kfree(csemu.etm_desc);
	kfree(csemu.sink_desc);
	kvfree(csemu.sinks);
	kvfree(csemu.etms);
}

static int csemu_build(void)
{
	unsigned int cpu, i, n = 0;
	int ret;

	csemu.nr_sinks = csemu.percpu ? nr_cpu_ids : 1;
	csemu.etms = kvcalloc(nr_cpu_ids, sizeof(*csemu.etms), GFP_KERNEL);
	csemu.sinks = kvcalloc(csemu.nr_sinks, sizeof(*csemu.sinks), GFP_KERNEL);
	csemu.etm_desc = kcalloc(num_possible_cpus(), sizeof(*csemu.etm_desc),
				 GFP_KERNEL);
	csemu.sink_desc = kcalloc(csemu.nr_sinks, sizeof(*csemu.sink_desc),
				  GFP_KERNEL);
	if (!csemu.etms || !csemu.sinks || !csemu.etm_desc || !csemu.sink_desc)
		return -ENOMEM;
	if (owned) {
		ret = platform_driver_register(&csemu_owner_drv);
		if (ret)
			return ret;
		csemu.driver_registered = true;
	}
	for (i = 0; i < csemu.nr_sinks; i++) {
		struct csemu_sink *k = &csemu.sinks[i];
		struct tb_cs_sink_desc *d = &csemu.sink_desc[i];

		ret = csemu_sink_init(k, i);
		if (ret)
			return ret;
		d->c.base = (__force void __iomem *)&k->c;
		d->c.dev = &k->pdev->dev;
		d->c.name = k->c.name;
		d->scatter_gather = k->sg_ok;
	}
	for_each_possible_cpu(cpu) {
		struct csemu_etm *e = &csemu.etms[cpu];
		struct tb_cs_etm_desc *d = &csemu.etm_desc[n++];

		csemu_etm_init(e, cpu);
		d->c.base = (__force void __iomem *)&e->c;
		d->c.dev = NULL;
		d->c.name = e->c.name;
		d->cpu = cpu;
		d->sink = e->sink->index;
	}
	csemu.plat.name = "tb_csemu";
	csemu.plat.owner = THIS_MODULE;
	csemu.plat.io = &csemu_io;
	csemu.plat.nr_etms = n;
	csemu.plat.etms = csemu.etm_desc;
	csemu.plat.nr_sinks = csemu.nr_sinks;
	csemu.plat.sinks = csemu.sink_desc;
	return 0;
}

static int __init csemu_init(void)
{
	int ret;

	ret = csemu_params();
	if (ret)
		return ret;
	csemu_idr_init();
	ret = csemu_build();
	if (ret)
		goto err_free;
	/* Ticks start on every online CPU (on that CPU). */
	ret = cpuhp_setup_state(CPUHP_AP_ONLINE_DYN, "tb_csemu:online",
				csemu_cpu_online, csemu_cpu_offline);
	if (ret < 0)
		goto err_free;
	csemu.hp_state = ret;
	ret = cpuhp_setup_state_nocalls(CPUHP_BP_PREPARE_DYN, "tb_csemu:dead", NULL,
					csemu_cpu_dead);
	if (ret < 0) {
		cpuhp_remove_state(csemu.hp_state);
		goto err_free;
	}
	csemu.hp_dead = ret;
	csemu_debugfs_init();
	ret = tracebuf_cs_emulator_register(&csemu.plat);
	if (ret && owned) {
		/* Expected: tracebuf refuses sinks another driver owns. */
		pr_info("tb_csemu: sinks owned by \"%s\": tracebuf_cs_emulator_register: %d; staying loaded, unregistered\n",
			csemu_owner_drv.driver.name, ret);
		return 0;
	}
	if (ret) {
		pr_err("tb_csemu: tracebuf_cs_emulator_register: %d\n", ret);
		goto err_hp;
	}
	csemu.registered = true;
	pr_info("tb_csemu: %u ETMs, %u %s sink%s (%s%s)\n", csemu.plat.nr_etms,
		csemu.nr_sinks, csemu_type_name(csemu.sink_type),
		csemu.nr_sinks > 1 ? "s" : "", csemu.percpu ? "percpu" : "shared",
		csemu.sink_type == TRACEBUF_CS_SINK_ETR ? (sg ? ", sg" : ", flat") : "");
	return 0;

err_hp:
	debugfs_remove_recursive(csemu.dir);
	cpuhp_remove_state_nocalls(csemu.hp_dead);
	cpuhp_remove_state(csemu.hp_state);
err_free:
	csemu_free();
	return ret;
}

static void __exit csemu_exit(void)
{
	/* tracebuf lets go first: it may still stop the trace through us. */
	if (csemu.registered)
		tracebuf_cs_emulator_unregister(&csemu.plat);
	debugfs_remove_recursive(csemu.dir);
	cpuhp_remove_state_nocalls(csemu.hp_dead);
	cpuhp_remove_state(csemu.hp_state);
	csemu_free();
}

module_init(csemu_init);
module_exit(csemu_exit);
MODULE_DESCRIPTION("tracebuf tests: ARM CoreSight ETMv4/TMC register-level emulator");
MODULE_LICENSE("GPL");
