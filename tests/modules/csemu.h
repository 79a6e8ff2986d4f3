/* SPDX-License-Identifier: GPL-2.0 */
/*
 * tb_csemu - tests-only module: a register-level ARM CoreSight emulator.
 *
 * One file per component type, as the hardware is laid out: csemu_etm.c
 * (ETMv4 trace units and their trace generation), csemu_tmc.c (TMC:
 * ETR, ETF, ETB), csemu_link.c (funnels, replicators, and how trace
 * travels the ATB graph), csemu_topo.c (the topologies: what tracebuf
 * is told), csemu_dma.c (the sinks' DMA master: direct, behind an
 * IOMMU, non-coherent), csemu_pwr.c (the device-tree SoCs' clocks, power
 * domain and AMBA devices), csemu_core.c (parameters, management registers,
 * the accessors, debugfs, init and exit). This header: the model they
 * share.
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
 *    0b010, memory-mapped TRCOSLAR, set after reset; ID registers read
 *    while it is set are a violation), TRCPRGCTLR,
 *    TRCSTATR (IDLE clears two reads after EN 0->1; after EN 1->0
 *    PMSTABLE sets two reads later and IDLE four: the unit's last
 *    bytes, its stop packets, reach the ATB only then), TRCPDCR.PU, and
 *    every programming register in 0x008..0x7ff stored as written;
 *    address comparators beyond nr_ranges pairs are RAZ/WI. Every
 *    access comes from the ETM's own CPU, as the kernel's ETMv4 driver
 *    makes it (smp_call_function_single() to drvdata->cpu): from
 *    another CPU it is a violation (the stricter reading: the trace
 *    unit may share the core's power domain, and the OS lock and
 *    TRFCR_EL1 are the PE's).
 *  - The PE's TRFCR_EL1 (trf=1, FEAT_TRF; ARM DDI0487 TRFCR_EL1) through
 *    the accessors' trfcr_read/trfcr_write, on the CPU they run on:
 *    it starts prohibiting every EL (as the kernel's ETMv4 driver leaves
 *    it after a session: etm4x_prohibit_trace(); the architecture's
 *    reset value is UNKNOWN), a unit generates nothing for an EL it
 *    prohibits, clearing TRCPRGCTLR.EN while it allows an EL is a
 *    violation (etm4_disable_trace_unit() prohibits first), and so is
 *    any access with trf=0 (UNDEFINED).
 *  - HiSilicon Hip08 (hip08=1): the ETMs' peripheral ID is Hip08's
 *    (0x000b6d01) and each core has the IMPLEMENTATION DEFINED commit
 *    register (S3_1_C15_C2_5, bits 13:12, through the accessors'
 *    hip08_commit): an ETM enabled with its core at full commit rate
 *    is a violation (it cannot slow the core and overflows:
 *    etm4_hisi_config_core_commit(), CONFIG_ETM4X_IMPDEF_FEATURE), and
 *    so is that register's access on other cores (UNDEFINED).
 *  - CPU power-down (etmN/cpu_pm, tests only): on that CPU, with
 *    interrupts off, cpu_pm_enter(), the PE's power removed and
 *    restored, cpu_pm_exit(), as a cpuidle driver does around a
 *    power-down state. With loses_context=1 (the firmware says
 *    arm,coresight-loses-context-with-cpu) the ETM and TRFCR_EL1 are
 *    reset (programming lost, OS lock set, EN clear); an ETM still
 *    enabled then (not saved: IHI0064, the procedure when powering down
 *    the PE) is a violation and its trace stops.
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
 *  - Funnels and replicators (CoreSight SoC-400 TRM, DDI0480) and an
 *    ETF in hardware FIFO mode as links between them (csemu_deliver()):
 *    a funnel's slave port passes nothing until FUNCTL.EnS<n> is set, a
 *    replicator's master port passes no ID whose group bit is set in
 *    its IDFILTER (0 at reset: everything passes), an ETF passes trace
 *    on only in hardware FIFO mode while capturing. Trace that a link
 *    does not pass on is counted (blocked), and a test that expects it
 *    at the sink fails. Funnel and replicator registers are written
 *    only under the self-hosted claim (the kernel's drivers claim
 *    first).
 *  - Topologies (topology=): shared, every ETM wired straight to sink
 *    0; percpu, ETM i to sink i; juno and msm8916, read from the device
 *    tree the guest booted with (tests/harness/csdt.sh puts Juno r2's
 *    CoreSight from the kernel's juno-r2.dts, juno-base.dtsi and
 *    juno-cs-r1r2.dtsi, and MSM8916's from apq8016-sbc.dts and
 *    msm8916.dtsi, into it): every component, its CPU and its graph
 *    (csemu_build_dt()). tracebuf is told the components and the wires
 *    (struct tb_cs_platform) and builds its paths from them. An ETM's
 *    arm,coresight-loses-context-with-cpu (MSM8916's) is told too, but
 *    the emulator resets an ETM at a CPU power-down only with
 *    loses_context=1.
 *  - Generation: a pinned hard hrtimer per online CPU. Every period_us,
 *    an enabled ETM whose sink is Running runs csgen_step() for about
 *    rate bytes; the bytes go through the sink's formatter (csfmt_push
 *    with the ETM's TRCTRACEIDR) into the sink's memory, through the
 *    links its master port is wired to. TRCPRGCTLR.EN
 *    0->1 emits csgen_start(), 1->0 csgen_stop(), in the register write
 *    (which may come from any CPU). An ETM none of whose sinks (links
 *    aside) is Running stalls: its program does not advance and start/stop bytes wait in a
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
 * Locking: one raw spinlock (csemu_lock, IRQs off) protects every
 * component, as the ATB graph joins them; the accessors take it and
 * never sleep, so they may run in any context but NMI.
 *
 * Deviations and choices:
 *  - dma=direct (the default): writes go through the CPU caches
 *    (phys_to_virt), the sinks' platform devices are marked DMA
 *    coherent and bus addresses are physical ones. dma=iommu and
 *    dma=noncoherent: see csemu_dma.c.
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
 *  - The synthetic generator does not model TRCVISSCTLR (ViewInst
 *    start/stop): it filters on TRCVICTLR and TRCVIIECTLR only (and on
 *    TRFCR_EL1's ELs, taken at TRCPRGCTLR.EN 0->1); follow mode
 *    (csemu_follow.h) evaluates start/stop too.
 *  - Flushing, stopping or disabling a sink while an ETM feeding it has
 *    cleared EN but is not yet IDLE is a violation (its stop bytes are
 *    dropped): the drain indicator is TRCSTATR.IDLE (IHI0064).
 *
 * debugfs (/sys/kernel/debug/tb_csemu/):
 *   rate, period_us  rw, the generation knobs (as the module parameters)
 *   violations       r, total violations
 *   blocked          r, trace bytes links did not pass on (all links)
 *   topology         r, what tracebuf is told: "tmc NAME etr|etf|etb",
 *                    "funnel NAME", "replicator NAME", "etm NAME CPU" and
 *                    "wire SRC PORT DST PORT" (master port to slave port)
 *   NAME/stats       r, a funnel's or replicator's: passed, blocked, claim,
 *                    functl or idfilter0/1 (NAME as in the DT: funnel@...)
 *   etmN/stats       r, "key value" lines
 *   etmN/ops         r, the last CSEMU_OPS_MAX operations, oldest first
 *   etmN/regs        r, "NAME 0xVALUE" for every programmed register
 *   etmN/burst       w, N: N bytes of the unit's trace now, in one drain
 *                    period (-EAGAIN if it is off or its sink not capturing)
 *   etmN/cpu_pm      w, N: N CPU power-down cycles of that CPU (cpu_pm
 *                    notifiers around a power loss; -ENXIO if offline,
 *                    -EOPNOTSUPP without CONFIG_CPU_PM)
 *   etmN/tasks       rw, bytes the unit produced per process current on
 *                    its CPU (an oracle for the per-task target,
 *                    csemu_task.h); a write clears it
 *   sinkN/stats      r, "key value" lines; rrd_irqoff_max is the test's
 *                    oracle for the ETB/ETF copy-out, not hardware: the
 *                    most bytes read through RRD on one CPU within one
 *                    stretch of interrupts off (csemu_rrd_note())
 *   sinkN/regs       r, "NAME 0xVALUE" for the TMC registers
 */
#ifndef TB_CSEMU_H
#define TB_CSEMU_H

#include <linux/bitfield.h>
#include <linux/bitmap.h>
#include <linux/cpu.h>
#include <linux/cpu_pm.h>
#include <linux/cpuhotplug.h>
#include <linux/debugfs.h>
#include <linux/dma-mapping.h>
#include <linux/fs.h>
#include <linux/hrtimer.h>
#include <linux/irq_work.h>
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
#include <linux/workqueue.h>
#include <asm/barrier.h>
#include <asm/io.h>
#include <tracebuf.h>

#include "cs_hw.h"
#include "cs_sg.h"
#include "csemu_gen.h"
#include "csemu_task.h"

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
#define CSEMU_OLD_BUF_ORDER	4	/* left_running: 64 KiB */

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
#define CSEMU_FUNNEL_PART	0x908	/* CoreSight SoC-400 funnel */
#define CSEMU_REPL_PART		0x909	/* CoreSight SoC-400 programmable replicator */
#define CSEMU_FUNNEL_DEVTYPE	0x12	/* link, funnel */
#define CSEMU_REPL_DEVTYPE	0x22	/* link, replicator */
#define CSEMU_FUNNEL_HT_RESET	0x300	/* FUNCTL at reset: no port, hold time 3 */

/* CSEMU_KIND_STATIC: a static funnel or replicator, no registers (ACPI topologies) */
enum csemu_kind { CSEMU_KIND_ETM, CSEMU_KIND_TMC, CSEMU_KIND_FUNNEL, CSEMU_KIND_REPL,
		  CSEMU_KIND_STATIC };

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
	CV_LINK_CLAIM,
	CV_TMC_TRG,
	CV_OSLOCK_IDR,
	CV_RES0_EXLEVEL,
	CV_PDCR,
	CV_DMA_UNMAPPED,
	CV_DMA_DIR,
	CV_ETM_REMOTE,
	CV_TRF_DISABLE,
	CV_TRF_ABSENT,
	CV_TMC_DRAINING,
	CV_PM_LOST,
	CV_TMC_SG_RWP,
	CV_HIP08_FULL,
	CV_IMPDEF_UNDEF,
	CV_VIEWINST_AC,
	CV_UNCLOCKED,
	CV_UNPOWERED,
	CV_DOMAIN_LOST,
	CV_LINK_SUSPENDED,
	CV_NR
};

struct csemu_comp;

/* Where a master port sends its trace: dst's slave port (dst NULL: nothing emulated). */
struct csemu_port {
	struct csemu_comp *dst;
	unsigned int port;
};

/* The header of every register file: what base points at. */
struct csemu_comp {
	enum csemu_kind kind;
	bool locked;			/* LSR.SLK */
	u32 claim;			/* claim tags set */
	u64 violations;
	char name[24];
	unsigned int index;		/* in what tracebuf is told (csemu.desc) */
	struct csemu_port out[2];	/* master ports, as wired */
	/*
	 * Device-tree and ACPI topologies (csemu_pwr.c): its device (AMBA
	 * or platform; a static link's: ACPI only, platform), tracebuf's
	 * driver bound; device tree only: its clocks and domain.
	 */
	struct device *dev;
	unsigned int clk[2];		/* the controller's clock indices */
	unsigned int nclk;
	bool pd;			/* in the controller's power domain */
};

/* A programmable funnel or replicator (CoreSight SoC-400 TRM, DDI0480). */
struct csemu_link {
	struct csemu_comp c;
	u32 functl, prictl;		/* funnel */
	u32 idfilter[2];		/* replicator */
	u64 passed, blocked;		/* bytes */
	struct dentry *dir;
};

/*
 * Every component, under one lock: the ATB graph joins them (a funnel
 * carries several ETMs' trace, a replicator feeds two sinks). IRQs off.
 */
extern raw_spinlock_t csemu_lock;

struct csemu_sink {
	struct csemu_comp c;
	unsigned int index;
	u32 type;			/* TRACEBUF_CS_SINK_* */
	bool sg_ok;			/* ETR: DEVID.NOSCAT clear */
	enum csemu_state state;
	/* Registers. */
	u32 ctl, ffcr, mode, rsz, axictl, dbalo, dbahi, trg, bufwm, pscr;
	u32 rrp, rrphi, rwp, rwphi;
	/* RRD reads in the current interrupts-off stretch (csemu_rrd_note()). */
	u64 rrd_run, rrd_run_max;
	unsigned int rrd_cpu;
	unsigned long rrd_gen;
	bool trg_set;			/* TRG written since reset */
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
	u8 obuf[CSEMU_OBUF];
	/* Statistics. */
	u64 bytes, frames, wraps, memerrs, flushes, captures, discarded;
	u64 passed, blocked;		/* ETF in hardware FIFO mode */
	cpumask_t feeders;		/* CPUs whose ETM's trace can reach it, as wired */
	struct platform_device *pdev;	/* flat topologies: its device */
	struct device *dev;		/* what tracebuf maps its buffers for */
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
	OP_TRF_ALLOW,
	OP_TRF_PROHIBIT,
	OP_DRAINED,
	OP_POWER_DOWN,
	OP_COMMIT_LOW,
	OP_COMMIT_FULL,
	OP_NR
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
	/* TRCSTATR reads until: IDLE clears after EN 0->1 (en_lag), */
	unsigned int en_lag;
	unsigned int pm_lag;		/* PMSTABLE sets after EN 1->0, */
	unsigned int idle_lag;		/* IDLE sets: the unit has drained */
	/* The stop bytes of EN 1->0, still in the unit until it is IDLE. */
	u8 drain[CSGEN_START_MAX];
	unsigned int ndrain;
	bool draining;
	/* The PE's TRFCR_EL1 (FEAT_TRF, trf=1): lost when the PE powers down. */
	u64 trfcr;
	u64 commit;			/* hip08=1: the core's S3_1_C15_C2_5 */
	/* The programming sequence. */
	bool prg0_pend;			/* prg0 written, IDLE not yet read */
	bool prog_ok;			/* idle1 seen: programming allowed */
	bool configured;		/* programmed since prg0 */
	bool idle0_pend;		/* en written, !IDLE not yet read */
	bool pm_pend;			/* en_clear written, PMSTABLE not yet read */
	/* The trace unit's output. */
	struct csgen gen;
	bool inited;			/* timer initialised */
	u8 pending[CSEMU_PENDING];	/* start/stop bytes of a stalled unit */
	unsigned int npending;
	u8 pending_id;
	/* The start bytes of EN 0->1, produced with the first program bytes. */
	u8 start[CSGEN_START_MAX];
	unsigned int nstart;
	struct csemu_tasks tasks;	/* the per-task oracle (csemu_task.h) */
	/* Statistics, the op log. */
	u64 enables, disables, bytes, stalls, dropped, burst_bytes;
	u64 prohibited;			/* ticks with TRFCR prohibiting every EL */
	u64 pm_cycles, pm_resets;	/* CPU PM enter/exit; context lost */
	u8 ops[CSEMU_OPS_MAX];
	u64 nops;
	struct hrtimer timer;
	struct dentry *dir;
};

enum csemu_topo { CSEMU_TOPO_SHARED, CSEMU_TOPO_PERCPU, CSEMU_TOPO_JUNO, CSEMU_TOPO_MSM8916,
		  CSEMU_TOPO_N1SDP };

struct csemu_emu {
	struct csemu_etm *etms;		/* by CPU (possible CPUs only) */
	struct csemu_sink *sinks;
	unsigned int nr_sinks;
	struct csemu_link *links;
	unsigned int nr_links;
	struct tb_cs_desc *desc;	/* what tracebuf is told: every component */
	unsigned int nr_desc;
	struct tb_cs_conn *conns;	/* and the ATB graph */
	unsigned int nr_conns;
	struct tb_cs_platform plat;
	u32 sink_type;
	enum csemu_topo topo;
	u8 gbuf[CSEMU_GBUF];		/* generator output, under csemu_lock */
	struct page *old_buf;		/* left_running: the buffer it was left with */
	u32 idr[TB_ETM_NR_IDR];
	int hp_state;
	int hp_dead;		/* CPUHP_BP_PREPARE_DYN: after a CPU died */
	bool registered;
	bool driver_registered;
	struct dentry *dir;
	atomic64_t violations;
	DECLARE_BITMAP(warned, CV_NR);
};

extern struct csemu_emu csemu;

/* csemu_core.c: parameters (module_param_named as the names without csemu_) */
extern bool csemu_syncpr_ro;
extern unsigned int csemu_period_us;
extern unsigned int csemu_nr_ranges;
extern unsigned int csemu_rate;
extern unsigned int csemu_seed;
extern bool csemu_soc400;
extern bool csemu_sg;
extern unsigned int csemu_sram_kb;
extern unsigned int csemu_ccitmin;
extern bool csemu_owned;
extern bool csemu_stale_claim;
extern bool csemu_left_running;
extern bool csemu_skip_power_up;
extern int csemu_max_burst;
extern bool csemu_trf;
extern bool csemu_loses_context;
extern bool csemu_hip08;
/* csemu_core.c: every component's management registers; the accessors */
void csemu_violation(struct csemu_comp *c, enum csemu_viol v);
bool csemu_mgmt_read(const struct csemu_comp *c, u32 off, u32 part, u32 *val);
bool csemu_mgmt_ro(u32 off);
void csemu_claimset(struct csemu_comp *c, u32 val);
void csemu_claimclr(struct csemu_comp *c, u32 val);
int csemu_sink_init(struct csemu_sink *k, unsigned int i, u32 type, const char *name,
		    bool own_pdev);
extern const struct tb_cs_io csemu_io;
extern struct platform_driver csemu_owner_drv;

/* csemu_etm.c */
u32 csemu_etm_read(struct csemu_etm *e, u32 off);
void csemu_etm_write(struct csemu_etm *e, u32 off, u32 val);
u8 csemu_trace_id(const struct csemu_etm *e);
u64 csemu_etm_reg64(const struct csemu_etm *e, u32 off);
void csemu_etm_init(struct csemu_etm *e, unsigned int cpu);
int csemu_cpu_online(unsigned int cpu);
int csemu_cpu_offline(unsigned int cpu);
int csemu_cpu_dead(unsigned int cpu);
bool csemu_sink_draining(const struct csemu_sink *k);
u64 csemu_trfcr_read(void);
void csemu_trfcr_write(u64 val);
void csemu_hip08_commit(bool reduced);
extern const struct file_operations csemu_burst_fops;
void csemu_follow_debugfs(struct dentry *dir);	/* csemu_follow.h */
void csemu_follow_exit(void);
extern const struct file_operations csemu_cpu_pm_fops;

/* csemu_tmc.c */
u32 csemu_tmc_read(struct csemu_sink *k, u32 off);
void csemu_rrd_note(struct csemu_sink *k, bool irqoff);
void csemu_tmc_init(void);
void csemu_tmc_exit(void);
void csemu_tmc_write(struct csemu_sink *k, u32 off, u32 val);
void csemu_push(struct csemu_sink *k, u8 id, const u8 *data, size_t len);
void csemu_flush(struct csemu_sink *k);
bool csemu_sink_etm_on(const struct csemu_sink *k);
void csemu_sink_start(struct csemu_sink *k);
void csemu_sink_power_lost(struct csemu_sink *k);

/* csemu_link.c */
u32 csemu_link_read(struct csemu_link *l, u32 off);
void csemu_link_write(struct csemu_link *l, u32 off, u32 val);
void csemu_deliver(struct csemu_port to, u8 id, const u8 *data, size_t n, unsigned int depth);
bool csemu_capturing(struct csemu_port to, unsigned int depth);
void csemu_link_power_lost(struct csemu_link *l);

/* csemu_dma.c */
enum csemu_dma_mode { CSEMU_DMA_DIRECT, CSEMU_DMA_IOMMU, CSEMU_DMA_NONCOHERENT };
extern int csemu_dma_mode;
int csemu_dma_attach(struct device *dev);
void *csemu_dma_ptr(struct csemu_sink *k, u64 addr, u64 len, bool write);
void csemu_dma_exit(void);
bool csemu_pa_ok(u64 pa);
bool csemu_pa_freed(struct csemu_sink *k, u64 pa);

/* csemu_pwr.c */
#define CSEMU_DT_MAX	64	/* components of one emulated SoC */
struct device_node;
int csemu_pwr_init(struct device_node *soc);
int csemu_pwr_device(struct device_node *np, struct csemu_comp *c);
struct acpi_device;
int csemu_pwr_amba_device(const char *name, u64 base, u32 pid, struct device_node *np,
			  struct acpi_device *companion, struct csemu_comp *c);
int csemu_pwr_platform_device(const char *name, struct acpi_device *companion,
			      struct csemu_comp *c);
bool csemu_pwr_ok(struct csemu_comp *c);
void csemu_pwr_exit(struct csemu_comp *const *comps, unsigned int n);
void csemu_pwr_debugfs(struct dentry *dir);

/* csemu_topo.c */
int csemu_build(void);
void csemu_wire(struct csemu_comp *src, unsigned int sp, struct csemu_comp *dst,
		unsigned int dp, bool describe);
void csemu_link_init(struct csemu_link *l, enum csemu_kind kind, const char *name);

/* csemu_acpi.c */
int csemu_acpi_count(const char *soc);
int csemu_build_acpi(void);
void csemu_acpi_free(void);
void csemu_dt_free(void);
unsigned int csemu_dt_power_lost(void);
void csemu_topology_debugfs(struct dentry *dir);

#endif /* TB_CSEMU_H */
