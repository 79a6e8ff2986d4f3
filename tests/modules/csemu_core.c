// SPDX-License-Identifier: GPL-2.0
/*
 * tb_csemu core: parameters, management registers (ARM IHI0029), the
 * accessors tracebuf calls, debugfs, init and exit (see csemu.h).
 */
#include "csemu.h"

/* ---- parameters ---- */

static char *topology = "shared";
module_param(topology, charp, 0444);
MODULE_PARM_DESC(topology, "shared: every ETM feeds sink 0; percpu: sink i for CPU i; juno: Juno r2's CoreSight (funnels, ETF, replicator, ETR) and msm8916: Qualcomm Snapdragon 410's (APSS funnel, funnel0, ETF, replicator port 0 to a flat ETR), both from the device tree the guest booted with; n1sdp: Arm N1SDP's (static funnels, cluster ETFs, funnels, replicator, ETR) from the ACPI namespace (a guest booted with ACPI)");
static char *sink_param = "etr";
module_param_named(sink, sink_param, charp, 0444);
MODULE_PARM_DESC(sink, "TMC configuration: etr, etf or etb (DEVID.CONFIG_TYPE)");
bool csemu_sg = true;
module_param_named(sg, csemu_sg, bool, 0444);
MODULE_PARM_DESC(sg, "ETR: scatter-gather allowed (DEVID.NOSCAT clear, arm,scatter-gather)");
unsigned int csemu_sram_kb = 64;
module_param_named(sram_kb, csemu_sram_kb, uint, 0444);
MODULE_PARM_DESC(sram_kb, "ETF/ETB SRAM size in KiB (a power of two, 4..65536)");
bool csemu_owned;
module_param_named(owned, csemu_owned, bool, 0444);
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
unsigned int csemu_nr_ranges = 4;
module_param_named(nr_ranges, csemu_nr_ranges, uint, 0444);
MODULE_PARM_DESC(nr_ranges, "TRCIDR4.NUMACPAIRS: address comparator pairs (0..4)");
bool csemu_syncpr_ro;
module_param_named(syncpr_ro, csemu_syncpr_ro, bool, 0444);
MODULE_PARM_DESC(syncpr_ro, "TRCIDR3.SYNCPR: TRCSYNCPR read-only (reads 0xc)");
unsigned int csemu_ccitmin = 4;
module_param_named(ccitmin, csemu_ccitmin, uint, 0444);
MODULE_PARM_DESC(ccitmin, "TRCIDR3.CCITMIN: smallest cycle count threshold");
bool csemu_soc400;
module_param_named(soc400, csemu_soc400, bool, 0444);
MODULE_PARM_DESC(soc400, "ETR is a SoC-400 TMC (part 0x961): capture restarts at the buffer start, RWP and Full are not kept");
unsigned int csemu_seed = 1;
module_param_named(seed, csemu_seed, uint, 0444);
MODULE_PARM_DESC(seed, "Generator seed (csgen_init(seed, cpu))");
unsigned int csemu_period_us = 1000;
module_param_named(period_us, csemu_period_us, uint, 0644);
MODULE_PARM_DESC(period_us, "Generation tick in microseconds (20..1000000)");
unsigned int csemu_rate = 2048;
module_param_named(rate, csemu_rate, uint, 0644);
MODULE_PARM_DESC(rate, "Trace bytes per tick per enabled ETM");
bool csemu_skip_power_up;
module_param_named(skip_power_up, csemu_skip_power_up, bool, 0444);
MODULE_PARM_DESC(skip_power_up, "ETMs described with qcom,skip-power-up: TRCPDCR must not be touched (a violation), enabling without PU is fine");
int csemu_max_burst = -1;
module_param_named(max_burst, csemu_max_burst, int, 0444);
MODULE_PARM_DESC(max_burst, "ETRs described with arm,max-burst-size = N (0..15); -1: no property");
bool csemu_trf = true;
module_param_named(trf, csemu_trf, bool, 0444);
MODULE_PARM_DESC(trf, "The PEs have FEAT_TRF: TRFCR_EL1 (starting with every EL prohibited) gates what the ETMs trace");
bool csemu_hip08;
module_param_named(hip08, csemu_hip08, bool, 0444);
MODULE_PARM_DESC(hip08, "ETMs of HiSilicon Hip08 (peripheral ID 0x000b6d01): enabling one with its core at full commit rate is a violation");
bool csemu_loses_context;
module_param_named(loses_context, csemu_loses_context, bool, 0444);
MODULE_PARM_DESC(loses_context, "ETMs described with arm,coresight-loses-context-with-cpu: a CPU power-down (etmN/cpu_pm) resets its ETM");
static char *csemu_dma_param = "direct";
module_param_named(dma, csemu_dma_param, charp, 0444);
MODULE_PARM_DESC(dma, "The sinks' DMA: direct (physical, coherent), iommu (our DMA ops: only what is mapped for the sink's device), noncoherent (iommu, and the CPU sees device writes only after a sync)");
int csemu_dma_mode;
bool csemu_stale_claim;
module_param_named(stale_claim, csemu_stale_claim, bool, 0444);
MODULE_PARM_DESC(stale_claim, "Every component starts with the self-hosted claim tag set (a kernel before kexec left it)");
bool csemu_left_running;
module_param_named(left_running, csemu_left_running, bool, 0444);
MODULE_PARM_DESC(left_running, "Sink 0 (an ETR) starts capturing into a buffer of its own (firmware or a kernel before kexec left it)");

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
	[CV_LINK_CLAIM] = "funnel or replicator programmed without the self-hosted claim",
	[CV_TMC_TRG] = "capture started with FFCR.FOnTrigEvt and TRG never written",
	[CV_OSLOCK_IDR] = "ID register read while the OS lock is set",
	[CV_RES0_EXLEVEL] = "EXLEVEL_S bit set for a Secure EL not in TRCIDR3 (RES0)",
	[CV_PDCR] = "TRCPDCR accessed where the firmware says qcom,skip-power-up",
	[CV_DMA_UNMAPPED] = "DMA to an address not mapped for the sink's own device (IOMMU fault)",
	[CV_DMA_DIR] = "DMA against the direction the address was mapped in (IOMMU fault)",
	[CV_ETM_REMOTE] = "ETM register accessed from another CPU than the one it traces",
	[CV_TRF_DISABLE] = "TRCPRGCTLR.EN cleared while TRFCR_EL1 still allows trace",
	[CV_TRF_ABSENT] = "TRFCR_EL1 accessed without FEAT_TRF (UNDEFINED)",
	[CV_TMC_DRAINING] = "sink flushed, stopped or disabled before an ETM feeding it drained (TRCSTATR.IDLE)",
	[CV_PM_LOST] = "CPU powered down with its ETM enabled and not saved: context lost",
	[CV_HIP08_FULL] = "Hip08 ETM enabled with its core at full commit rate (it overflows)",
	[CV_IMPDEF_UNDEF] = "Hip08 core commit register accessed on another core (UNDEFINED)",
	[CV_VIEWINST_AC] = "ViewInst uses an unimplemented or non-instruction address comparator",
	[CV_TMC_SG_RWP] = "scatter-gather capture started with RWP past the table's first page start",
	[CV_UNCLOCKED] = "register access with one of the component's clocks off (external abort)",
	[CV_UNPOWERED] = "register access with the component's power domain off (external abort)",
	[CV_DOMAIN_LOST] = "power domain off under a capturing TMC: its state and trace lost",
	[CV_LINK_SUSPENDED] = "trace through a runtime-suspended static link (no runtime PM reference)",
};

DEFINE_RAW_SPINLOCK(csemu_lock);
struct csemu_emu csemu;

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
	[OP_TRF_ALLOW] = "trf_allow",
	[OP_TRF_PROHIBIT] = "trf_prohibit",
	[OP_DRAINED] = "drained",
	[OP_POWER_DOWN] = "power_down",
	[OP_COMMIT_LOW] = "commit_low",
	[OP_COMMIT_FULL] = "commit_full",
};

/* Under the component's lock. */
void csemu_violation(struct csemu_comp *c, enum csemu_viol v)
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
bool csemu_mgmt_read(const struct csemu_comp *c, u32 off, u32 part, u32 *val)
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
bool csemu_mgmt_ro(u32 off)
{
	return off >= TB_CS_LSR;
}

/* CLAIMSET / CLAIMCLR writes: set / clear the tags written as 1. */
void csemu_claimset(struct csemu_comp *c, u32 val)
{
	if ((val & TB_CS_CLAIM_SELF_HOSTED) && (c->claim & TB_CS_CLAIM_SELF_HOSTED))
		csemu_violation(c, CV_DOUBLE_CLAIM);
	c->claim |= val & CSEMU_CLAIM_TAGS;
}

void csemu_claimclr(struct csemu_comp *c, u32 val)
{
	c->claim &= ~(val & CSEMU_CLAIM_TAGS);
}

/* ---- the accessors ---- */

static u32 csemu_io_read(void __iomem *base, u32 off)
{
	struct csemu_comp *c = (__force struct csemu_comp *)base;
	bool irqoff = irqs_disabled();	/* the caller's, before our lock */
	unsigned long flags;
	u32 v = 0;

	raw_spin_lock_irqsave(&csemu_lock, flags);
	if ((off & 3) || off >= SZ_4K)
		csemu_violation(c, CV_ACCESS);
	else if (!csemu_pwr_ok(c))
		;			/* reads 0: an external abort */
	else if (c->kind == CSEMU_KIND_ETM)
		v = csemu_etm_read(container_of(c, struct csemu_etm, c), off);
	else if (c->kind == CSEMU_KIND_TMC)
		v = csemu_tmc_read(container_of(c, struct csemu_sink, c), off);
	else
		v = csemu_link_read(container_of(c, struct csemu_link, c), off);
	if (c->kind == CSEMU_KIND_TMC && off == TB_TMC_RRD)
		csemu_rrd_note(container_of(c, struct csemu_sink, c), irqoff);
	raw_spin_unlock_irqrestore(&csemu_lock, flags);
	return v;
}

static void csemu_io_write(void __iomem *base, u32 off, u32 val)
{
	struct csemu_comp *c = (__force struct csemu_comp *)base;
	unsigned long flags;

	raw_spin_lock_irqsave(&csemu_lock, flags);
	if ((off & 3) || off >= SZ_4K)
		csemu_violation(c, CV_ACCESS);
	else if (!csemu_pwr_ok(c))
		;			/* dropped: an external abort */
	else if (c->kind == CSEMU_KIND_ETM)
		csemu_etm_write(container_of(c, struct csemu_etm, c), off, val);
	else if (c->kind == CSEMU_KIND_TMC)
		csemu_tmc_write(container_of(c, struct csemu_sink, c), off, val);
	else
		csemu_link_write(container_of(c, struct csemu_link, c), off, val);
	raw_spin_unlock_irqrestore(&csemu_lock, flags);
}

static bool csemu_io_trf_present(void)
{
	return csemu_trf;
}

const struct tb_cs_io csemu_io = {
	.read		= csemu_io_read,
	.write		= csemu_io_write,
	.trf_present	= csemu_io_trf_present,
	.trfcr_read	= csemu_trfcr_read,
	.trfcr_write	= csemu_trfcr_write,
	.hip08_commit	= csemu_hip08_commit,
};

/* ---- debugfs ---- */

static int csemu_etm_stats_show(struct seq_file *m, void *v)
{
	struct csemu_etm *e = m->private;
	u64 enables, disables, bytes, blocks, stalls, viol, dropped, burst;
	u64 prohibited, pm_cycles, pm_resets, trfcr, commit;
	unsigned int npending;
	bool en, oslk, locked;
	u32 claim, id;
	unsigned long flags;

	raw_spin_lock_irqsave(&csemu_lock, flags);
	en = e->en;
	enables = e->enables;
	disables = e->disables;
	bytes = e->bytes;
	blocks = e->gen.blocks;
	stalls = e->stalls;
	viol = e->c.violations;
	dropped = e->dropped;
	burst = e->burst_bytes;
	prohibited = e->prohibited;
	pm_cycles = e->pm_cycles;
	pm_resets = e->pm_resets;
	trfcr = e->trfcr;
	commit = e->commit;
	npending = e->npending;
	oslk = e->oslk;
	locked = e->c.locked;
	claim = e->c.claim;
	id = csemu_trace_id(e);
	raw_spin_unlock_irqrestore(&csemu_lock, flags);

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
	seq_printf(m, "burst_bytes %llu\n", burst);
	seq_printf(m, "prohibited %llu\n", prohibited);
	seq_printf(m, "pm_cycles %llu\n", pm_cycles);
	seq_printf(m, "pm_resets %llu\n", pm_resets);
	seq_printf(m, "trfcr %llu\n", trfcr);
	seq_printf(m, "commit %llu\n", commit);
	return 0;
}
DEFINE_SHOW_ATTRIBUTE(csemu_etm_stats);

static int csemu_etm_ops_show(struct seq_file *m, void *v)
{
	struct csemu_etm *e = m->private;
	u8 ops[CSEMU_OPS_MAX];
	unsigned long flags;
	u64 nops, i, first;

	raw_spin_lock_irqsave(&csemu_lock, flags);
	memcpy(ops, e->ops, sizeof(ops));
	nops = e->nops;
	raw_spin_unlock_irqrestore(&csemu_lock, flags);

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
		return csemu_syncpr_ro ? CSEMU_SYNCPR_RO : e->regs[off / 4];
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

	raw_spin_lock_irqsave(&csemu_lock, flags);
	for (i = 0; i < ARRAY_SIZE(csemu_etm_reg_names); i++)
		val[i] = csemu_etm_peek(e, csemu_etm_reg_names[i].off);
	for (i = 0; i < CSEMU_NR_AC; i++) {
		acvr[i] = csemu_etm_reg64(e, TB_ETM_TRCACVR(i));
		acatr[i] = csemu_etm_reg64(e, TB_ETM_TRCACATR(i));
	}
	raw_spin_unlock_irqrestore(&csemu_lock, flags);

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
	u64 bytes, frames, wraps, memerrs, viol, flushes, captures, discarded, passed, blocked;
	u64 rrd_max;
	enum csemu_state state;
	u32 claim;
	bool full, memerr;
	unsigned long flags;

	raw_spin_lock_irqsave(&csemu_lock, flags);
	state = k->state;
	bytes = k->bytes;
	frames = k->frames;
	wraps = k->wraps;
	memerrs = k->memerrs;
	viol = k->c.violations;
	flushes = k->flushes;
	captures = k->captures;
	discarded = k->discarded;
	claim = k->c.claim;
	passed = k->passed;
	blocked = k->blocked;
	full = k->full;
	memerr = k->memerr;
	rrd_max = k->rrd_run_max;
	raw_spin_unlock_irqrestore(&csemu_lock, flags);

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
	seq_printf(m, "passed %llu\n", passed);
	seq_printf(m, "blocked %llu\n", blocked);
	seq_printf(m, "name %s\n", k->c.name);
	seq_printf(m, "claim %u\n", claim);
	seq_printf(m, "rrd_irqoff_max %llu\n", rrd_max * 4);	/* bytes */
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

	raw_spin_lock_irqsave(&csemu_lock, flags);
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
	raw_spin_unlock_irqrestore(&csemu_lock, flags);

	for (i = 0; i < ARRAY_SIZE(names); i++)
		seq_printf(m, "%s 0x%x\n", names[i], r[i]);
	return 0;
}
DEFINE_SHOW_ATTRIBUTE(csemu_sink_regs);

static int csemu_link_stats_show(struct seq_file *m, void *v)
{
	struct csemu_link *l = m->private;
	u64 passed, blocked, viol;
	u32 functl, f0, f1, claim;
	unsigned long flags;

	raw_spin_lock_irqsave(&csemu_lock, flags);
	passed = l->passed;
	blocked = l->blocked;
	viol = l->c.violations;
	functl = l->functl;
	f0 = l->idfilter[0];
	f1 = l->idfilter[1];
	claim = l->c.claim;
	raw_spin_unlock_irqrestore(&csemu_lock, flags);

	seq_printf(m, "passed %llu\n", passed);
	seq_printf(m, "blocked %llu\n", blocked);
	seq_printf(m, "violations %llu\n", viol);
	seq_printf(m, "claim %u\n", claim);
	if (l->c.kind == CSEMU_KIND_FUNNEL) {
		seq_printf(m, "functl %u\n", functl);
	} else if (l->c.kind == CSEMU_KIND_REPL) {
		seq_printf(m, "idfilter0 %u\n", f0);
		seq_printf(m, "idfilter1 %u\n", f1);
	}
	return 0;
}
DEFINE_SHOW_ATTRIBUTE(csemu_link_stats);

/* Trace bytes that a link did not pass on (a closed port, a filtered ID, an ETF off). */
static int csemu_blocked_show(struct seq_file *m, void *v)
{
	unsigned long flags;
	unsigned int i;
	u64 b = 0;

	raw_spin_lock_irqsave(&csemu_lock, flags);
	for (i = 0; i < csemu.nr_links; i++)
		b += csemu.links[i].blocked;
	for (i = 0; i < csemu.nr_sinks; i++)
		b += csemu.sinks[i].blocked;
	raw_spin_unlock_irqrestore(&csemu_lock, flags);
	seq_printf(m, "%llu\n", b);
	return 0;
}
DEFINE_SHOW_ATTRIBUTE(csemu_blocked);

static int csemu_violations_show(struct seq_file *m, void *v)
{
	seq_printf(m, "%lld\n", (long long)atomic64_read(&csemu.violations));
	return 0;
}
DEFINE_SHOW_ATTRIBUTE(csemu_violations);

/* etmN/tasks: the per-task oracle (csemu_task.h). */
static int csemu_tasks_show(struct seq_file *m, void *v)
{
	struct csemu_etm *e = m->private;
	struct csemu_tasks *t;
	unsigned long flags;
	unsigned int i;

	t = kmalloc(sizeof(*t), GFP_KERNEL);
	if (!t)
		return -ENOMEM;
	raw_spin_lock_irqsave(&csemu_lock, flags);	/* a snapshot of the table */
	*t = e->tasks;
	raw_spin_unlock_irqrestore(&csemu_lock, flags);
	for (i = 0; i < CSEMU_TASKS; i++)
		if (t->e[i].bytes)
			seq_printf(m, "%d %llu\n", t->e[i].pid, t->e[i].bytes);
	seq_printf(m, "other %llu\nremote %llu\n", t->other, t->remote);
	kfree(t);
	return 0;
}

static int csemu_tasks_open(struct inode *inode, struct file *file)
{
	return single_open(file, csemu_tasks_show, inode->i_private);
}

static ssize_t csemu_tasks_write(struct file *file, const char __user *ubuf,
				 size_t len, loff_t *ppos)
{
	struct csemu_etm *e = ((struct seq_file *)file->private_data)->private;
	unsigned long flags;

	raw_spin_lock_irqsave(&csemu_lock, flags);	/* the accounting's lock */
	memset(&e->tasks, 0, sizeof(e->tasks));
	raw_spin_unlock_irqrestore(&csemu_lock, flags);
	return len;
}

static const struct file_operations csemu_tasks_fops = {
	.owner		= THIS_MODULE,
	.open		= csemu_tasks_open,
	.read		= seq_read,
	.llseek		= seq_lseek,
	.release	= single_release,
	.write		= csemu_tasks_write,
};

static void csemu_debugfs_init(void)
{
	unsigned int cpu, i;
	char name[24];

	csemu.dir = debugfs_create_dir("tb_csemu", NULL);
	debugfs_create_u32("rate", 0644, csemu.dir, &csemu_rate);
	debugfs_create_u32("period_us", 0644, csemu.dir, &csemu_period_us);
	debugfs_create_file("violations", 0444, csemu.dir, NULL,
			    &csemu_violations_fops);
	debugfs_create_file("blocked", 0444, csemu.dir, NULL, &csemu_blocked_fops);
	csemu_topology_debugfs(csemu.dir);
	csemu_pwr_debugfs(csemu.dir);
	csemu_follow_debugfs(csemu.dir);
	for (i = 0; i < csemu.nr_links; i++) {
		struct csemu_link *l = &csemu.links[i];

		l->dir = debugfs_create_dir(l->c.name, csemu.dir);
		debugfs_create_file("stats", 0444, l->dir, l, &csemu_link_stats_fops);
	}
	for_each_possible_cpu(cpu) {
		struct csemu_etm *e = &csemu.etms[cpu];

		snprintf(name, sizeof(name), "etm%u", cpu);
		e->dir = debugfs_create_dir(name, csemu.dir);
		debugfs_create_file("stats", 0444, e->dir, e, &csemu_etm_stats_fops);
		debugfs_create_file("ops", 0444, e->dir, e, &csemu_etm_ops_fops);
		debugfs_create_file("regs", 0444, e->dir, e, &csemu_etm_regs_fops);
		debugfs_create_file("burst", 0200, e->dir, e, &csemu_burst_fops);
		debugfs_create_file("cpu_pm", 0200, e->dir, e, &csemu_cpu_pm_fops);
		debugfs_create_file("tasks", 0600, e->dir, e, &csemu_tasks_fops);
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

struct platform_driver csemu_owner_drv = {
	.probe		= csemu_owner_probe,
	.id_table	= csemu_owner_ids,
	.driver		= {
		.name		= "coresight-tmc",
		.probe_type	= PROBE_FORCE_SYNCHRONOUS,
	},
};

static int csemu_params(void)
{
	if (csemu_dma_param && sysfs_streq(csemu_dma_param, "direct")) {
		csemu_dma_mode = CSEMU_DMA_DIRECT;
	} else if (csemu_dma_param && sysfs_streq(csemu_dma_param, "iommu")) {
		csemu_dma_mode = CSEMU_DMA_IOMMU;
	} else if (csemu_dma_param && sysfs_streq(csemu_dma_param, "noncoherent")) {
		csemu_dma_mode = CSEMU_DMA_NONCOHERENT;
	} else {
		pr_err("tb_csemu: dma= must be direct, iommu or noncoherent\n");
		return -EINVAL;
	}
	if (topology && sysfs_streq(topology, "shared")) {
		csemu.topo = CSEMU_TOPO_SHARED;
	} else if (topology && sysfs_streq(topology, "percpu")) {
		csemu.topo = CSEMU_TOPO_PERCPU;
	} else if (topology && sysfs_streq(topology, "juno")) {
		csemu.topo = CSEMU_TOPO_JUNO;
	} else if (topology && sysfs_streq(topology, "msm8916")) {
		csemu.topo = CSEMU_TOPO_MSM8916;
	} else if (topology && sysfs_streq(topology, "n1sdp")) {
		csemu.topo = CSEMU_TOPO_N1SDP;
	} else {
		pr_err("tb_csemu: topology= must be shared, percpu, juno, msm8916 or n1sdp\n");
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
	    (csemu_sram_kb < 4 || csemu_sram_kb > 65536 || !is_power_of_2(csemu_sram_kb))) {
		pr_err("tb_csemu: sram_kb= must be a power of two, 4..65536\n");
		return -EINVAL;
	}
	if (csemu_nr_ranges > TB_ETM_MAX_ADDR_RANGES || csemu_ccitmin > TB_ETM_IDR3_CCITMIN) {
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
	if (csemu_syncpr_ro)
		idr[3] |= TB_ETM_IDR3_SYNCPR;
	idr[3] = (idr[3] & ~TB_ETM_IDR3_CCITMIN) |
		 FIELD_PREP(TB_ETM_IDR3_CCITMIN, csemu_ccitmin);
	idr[4] = (idr[4] & ~TB_ETM_IDR4_NUMACPAIRS) |
		 FIELD_PREP(TB_ETM_IDR4_NUMACPAIRS, csemu_nr_ranges);
}

/*
 * own_pdev: a platform device of ours for its DMA (flat topologies);
 * else the caller makes its device (csemu_pwr_device()).
 */
int csemu_sink_init(struct csemu_sink *k, unsigned int i, u32 type,
		    const char *name, bool own_pdev)
{
	struct platform_device_info info = {
		.name		= "csemu-tmc",
		.id		= i,
		.dma_mask	= DMA_BIT_MASK(64),
	};
	struct platform_device *pdev;

	k->c.kind = CSEMU_KIND_TMC;
	k->c.locked = true;
	if (name)
		strscpy(k->c.name, name, sizeof(k->c.name));
	else
		snprintf(k->c.name, sizeof(k->c.name), "csemu-tmc%u", i);
	k->index = i;
	k->type = type;
	k->sg_ok = k->type == TRACEBUF_CS_SINK_ETR && csemu_sg;
	k->state = CSEMU_DISABLED;
	csfmt_init(&k->fmt);
	if (k->type != TRACEBUF_CS_SINK_ETR) {
		k->sram_size = csemu_sram_kb * 1024;
		k->rsz = k->sram_size / 4;
		k->sram = vzalloc(k->sram_size);
		if (!k->sram)
			return -ENOMEM;
	}
	if (!own_pdev)
		return 0;
	pdev = platform_device_register_full(&info);
	if (IS_ERR(pdev))
		return PTR_ERR(pdev);
	k->pdev = pdev;
	k->dev = &pdev->dev;
	/* Our writes go through the CPU caches: a coherent interconnect. */
#if defined(CONFIG_ARCH_HAS_SYNC_DMA_FOR_DEVICE) || \
	defined(CONFIG_ARCH_HAS_SYNC_DMA_FOR_CPU) || \
	defined(CONFIG_ARCH_HAS_SYNC_DMA_FOR_CPU_ALL)
	pdev->dev.dma_coherent = true;
#endif
	return csemu_dma_attach(&pdev->dev);
}

static void csemu_free(void)
{
	unsigned int cpu, i;

	csemu_tmc_exit();
	csemu_follow_exit();
	if (csemu.etms)
		for_each_possible_cpu(cpu)
			if (csemu.etms[cpu].inited)
				hrtimer_cancel(&csemu.etms[cpu].timer);
	for (i = 0; csemu.sinks && i < csemu.nr_sinks; i++) {
		if (csemu.sinks[i].pdev)
			platform_device_unregister(csemu.sinks[i].pdev);
		vfree(csemu.sinks[i].sram);
	}
	if (csemu.driver_registered)
		platform_driver_unregister(&csemu_owner_drv);
	if (csemu.old_buf)
		__free_pages(csemu.old_buf, CSEMU_OLD_BUF_ORDER);
	csemu_dt_free();
	csemu_acpi_free();
	kfree(csemu.desc);
	kfree(csemu.conns);
	kvfree(csemu.links);
	kvfree(csemu.sinks);
	kvfree(csemu.etms);
	csemu_dma_exit();
}

static int __init csemu_init(void)
{
	int ret;

	ret = csemu_params();
	if (ret)
		return ret;
	csemu_tmc_init();
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
	if (ret && csemu_owned) {
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
	pr_info("tb_csemu: %s: %u components, %u TMCs, %u links (%s%s)\n", topology,
		csemu.nr_desc, csemu.nr_sinks, csemu.nr_links,
		csemu_type_name(csemu.sinks[0].type),
		csemu.sinks[0].type == TRACEBUF_CS_SINK_ETR ? (csemu_sg ? ", sg" : ", flat") : "");
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

