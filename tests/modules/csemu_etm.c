// SPDX-License-Identifier: GPL-2.0
/*
 * tb_csemu: ETMv4 trace units (ARM IHI0064) and their trace generation
 * (see csemu.h).
 */
#include "csemu.h"

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
	return ((off - TB_ETM_TRCACVR(0)) % 0x80) / 8 >= 2 * csemu_nr_ranges;
}

u64 csemu_etm_reg64(const struct csemu_etm *e, u32 off)
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
	for (i = 0; i < ARRAY_SIZE(cfg->acvr); i++) {
		cfg->acvr[i] = csemu_etm_reg64(e, TB_ETM_TRCACVR(i));
		cfg->acatr[i] = csemu_etm_reg64(e, TB_ETM_TRCACATR(i));
	}
	cfg->ccctlr = e->regs[TB_ETM_TRCCCCTLR / 4];
	cfg->syncpr = csemu_syncpr_ro ? CSEMU_SYNCPR_RO : e->regs[TB_ETM_TRCSYNCPR / 4];
	cfg->tsctlr = e->regs[TB_ETM_TRCTSCTLR / 4];
	/* Timestamp event: resource 2, counter 0 at zero (its reload value). */
	if ((cfg->tsctlr & 0xff) == 2 &&
	    ((rsctlr2 >> TB_ETM_RSCTLR_GROUP_SHIFT) & 0xf) == TB_ETM_RSCTLR_GROUP_CNTR &&
	    (rsctlr2 & 1))
		cfg->ts_interval = e->regs[TB_ETM_TRCCNTRLDVR(0) / 4];
	/* FEAT_TRF: an EL TRFCR_EL1 prohibits is not traced either. */
	if (csemu_trf && !(e->trfcr & TB_TRFCR_E0TRE))
		cfg->victlr |= TB_ETM_VICTLR_EXLEVEL_NS(0);
	if (csemu_trf && !(e->trfcr & TB_TRFCR_E1TRE))
		cfg->victlr |= TB_ETM_VICTLR_EXLEVEL_NS(1);
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
	if (!n)
		return;
	e->bytes += n;
	csemu_task_account(&e->tasks, e->cpu, n);
	if (csemu_capturing(e->c.out[0], 0)) {
		if (e->npending)
			csemu_deliver(e->c.out[0], e->pending_id, e->pending, e->npending, 0);
		e->npending = 0;
		csemu_deliver(e->c.out[0], csemu_trace_id(e), buf, n, 0);
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

/* Follow mode: the trace of a real process (tests/guest/ptfollow.c). */
#include "csemu_follow.h"

/* A trace ID in 0x01..0x6f that no other enabled ETM reaching one of its sinks uses. */
static bool csemu_etm_id_ok(const struct csemu_etm *e)
{
	u8 id = csemu_trace_id(e);
	unsigned int cpu, i;

	if (!id || id > CSEMU_TRACE_ID_MAX)
		return false;
	for (i = 0; i < csemu.nr_sinks; i++) {
		const struct csemu_sink *k = &csemu.sinks[i];

		if (!cpumask_test_cpu(e->cpu, &k->feeders))
			continue;
		for_each_cpu(cpu, &k->feeders) {
			const struct csemu_etm *o = &csemu.etms[cpu];

			if (o != e && o->en && csemu_trace_id(o) == id)
				return false;
		}
	}
	return true;
}

/* The unit has drained: its stop bytes reach the ATB now. */
static void csemu_etm_drained(struct csemu_etm *e)
{
	if (!e->draining)
		return;
	e->draining = false;
	csemu_op(e, OP_DRAINED);
	csemu_etm_emit(e, e->drain, e->ndrain);
	e->ndrain = 0;
}

/*
 * The address comparators ViewInst uses, as the unit is enabled (IHI0064):
 * TRCVIIECTLR.INCLUDE/EXCLUDE bit n and TRCVISSCTLR.START/STOP bit n
 * are RES0 where TRCIDR4.NUMACPAIRS does not implement pair n / single
 * comparator n; a comparator ViewInst uses compares instruction addresses
 * (TRCACATRn.TYPE 0b00: the other encodings are data address comparisons,
 * reserved where TRCIDR4.SUPPDAC is 0, as here).
 */
static bool csemu_etm_viewinst_ok(const struct csemu_etm *e)
{
	u32 iectl = e->regs[TB_ETM_TRCVIIECTLR / 4], ssctl = e->regs[TB_ETM_TRCVISSCTLR / 4];
	u32 pairs = (iectl | (iectl >> 16)) & 0xff, singles = (ssctl | (ssctl >> 16)) & 0xffff;
	unsigned int n;

	if ((pairs >> csemu_nr_ranges) || (singles >> (2 * csemu_nr_ranges)))
		return false;
	for (n = 0; n < 2 * csemu_nr_ranges; n++)
		if (((pairs >> (n / 2)) & 1 || (singles >> n) & 1) &&
		    (e->regs[TB_ETM_TRCACATR(n) / 4] & TB_ETM_ACATR_TYPE))
			return false;
	return true;
}

/* TRCPRGCTLR.EN 0->1. */
static void csemu_etm_enable(struct csemu_etm *e)
{
	u8 buf[CSGEN_START_MAX];
	struct csgen_cfg cfg;

	csemu_etm_drained(e);
	csemu_op(e, OP_EN);
	if (!e->configured)
		csemu_violation(&e->c, CV_ORD_EN);
	if (!(e->pdcr & TB_ETM_PDCR_PU) && !csemu_skip_power_up)
		csemu_violation(&e->c, CV_EN_PU);
	if (!csemu_etm_id_ok(e))
		csemu_violation(&e->c, CV_EN_TRACEID);
	if (!csemu_capturing(e->c.out[0], 0))
		csemu_violation(&e->c, CV_EN_SINK);
	if (csemu_hip08 && !FIELD_GET(TB_HIP08_COMMIT_MASK, e->commit))
		csemu_violation(&e->c, CV_HIP08_FULL);
	if (!csemu_etm_viewinst_ok(e))
		csemu_violation(&e->c, CV_VIEWINST_AC);
	WRITE_ONCE(e->en, true);
	e->en_lag = CSEMU_LAG_READS;
	e->idle0_pend = true;
	e->prg0_pend = false;
	e->prog_ok = false;
	e->configured = false;
	e->pm_pend = false;
	e->enables++;
	csemu_etm_cfg(e, &cfg);
	/*
	 * The start elements (A-sync, Trace Info, the first address) describe
	 * the first instruction the unit traces, and are output with its
	 * trace (IHI0064, the trace unit's trace-on behaviour), not at the
	 * register write: here, with the first program bytes or at EN 1->0.
	 */
	if (csemu_follow_on()) {
		csemu_follow_enable(e, &cfg);
		return;
	}
	e->nstart = csgen_start(&e->gen, &cfg, buf, sizeof(buf));
	memcpy(e->start, buf, e->nstart);
}

/* The start bytes of the last EN 0->1, if not yet output. */
static void csemu_etm_start_out(struct csemu_etm *e)
{
	unsigned int n = e->nstart;

	e->nstart = 0;
	csemu_etm_emit(e, e->start, n);
}

/*
 * TRCPRGCTLR.EN 1->0. The unit emits its last packets, but they reach
 * the ATB only once it is idle: TRCSTATR.IDLE is the drain indicator
 * (IHI0064, TRCSTATR), PMSTABLE (programmers' model stable) comes first.
 */
static void csemu_etm_disable(struct csemu_etm *e)
{
	csemu_op(e, OP_EN_CLEAR);
	if (e->pdcr & TB_ETM_PDCR_PU)
		csemu_violation(&e->c, CV_ORD_EN_CLEAR);
	/*
	 * etm4_disable_trace_unit() prohibits every EL in TRFCR_EL1 before
	 * it clears EN (etm4x_prohibit_trace()): no trace of the ELs it
	 * allowed is generated past this point.
	 */
	if (csemu_trf && (e->trfcr & (TB_TRFCR_E0TRE | TB_TRFCR_E1TRE)))
		csemu_violation(&e->c, CV_TRF_DISABLE);
	csemu_etm_start_out(e);
	WRITE_ONCE(e->en, false);
	e->en_lag = 0;
	e->pm_lag = CSEMU_LAG_READS;
	e->idle_lag = 2 * CSEMU_LAG_READS;
	e->idle_seen = false;
	e->idle0_pend = false;
	e->pm_pend = true;
	e->disables++;
	if (csemu_follow_on()) {
		/* The followed thread's steps, after the start bytes. */
		csemu_follow_flush(e);
		e->ndrain = 0;
	} else {
		e->ndrain = csgen_stop(&e->gen, e->drain, sizeof(e->drain));
	}
	e->draining = true;
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
	u32 v = 0;

	if (e->en) {
		if (e->en_lag) {
			e->en_lag--;
			v = TB_ETM_STATR_IDLE;
		}
	} else {
		if (e->pm_lag)
			e->pm_lag--;
		else
			v |= TB_ETM_STATR_PMSTABLE;
		if (e->idle_lag)
			e->idle_lag--;
		else
			v |= TB_ETM_STATR_IDLE;
	}
	if (!e->en && (v & TB_ETM_STATR_IDLE)) {
		csemu_etm_drained(e);
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
	       (off == TB_ETM_TRCSYNCPR && csemu_syncpr_ro) || csemu_mgmt_ro(off);
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
		/* qcom,skip-power-up: the register is not accessible (etm4x skips it). */
		if (csemu_skip_power_up)
			csemu_violation(&e->c, CV_PDCR);
		csemu_etm_pdcr(e, val);
		return true;
	}
	return false;
}

/* The Secure ELs the unit implements (TRCIDR3.EXLEVEL_S). */
static u32 csemu_exlevel_s(void)
{
	return FIELD_GET(TB_ETM_IDR3_EXLEVEL_S, csemu.idr[3]);
}

/*
 * Only from the ETM's own CPU, as the kernel's ETMv4 driver programs it
 * (etm4_enable_hw() and etm4_disable_hw() through
 * smp_call_function_single(drvdata->cpu), etm4_init_arch_data() at
 * probe): the stricter reading, since the unit may be in the core's
 * power domain (powered down with it) and its OS lock may be the PE's.
 */
static void csemu_etm_check_cpu(struct csemu_etm *e)
{
	if (smp_processor_id() != e->cpu)
		csemu_violation(&e->c, CV_ETM_REMOTE);
}

void csemu_etm_write(struct csemu_etm *e, u32 off, u32 val)
{
	struct csemu_comp *c = &e->c;

	csemu_etm_check_cpu(e);
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
	/* EXLEVEL_S<n> is RES0 where TRCIDR3 says Secure ELn is not implemented. */
	if ((off == TB_ETM_TRCVICTLR &&
	     (val >> TB_ETM_VICTLR_EXLEVEL_S_SHIFT) & 0xf & ~csemu_exlevel_s()) ||
	    (off >= TB_ETM_TRCACATR(0) && off < TB_ETM_TRCACATR(0) + 0x80 && !(off & 4) &&
	     (val >> TB_ETM_ACATR_EXLEVEL_S_SHIFT) & 0xf & ~csemu_exlevel_s()))
		csemu_violation(c, CV_RES0_EXLEVEL);
	if (!csemu_etm_ac_absent(off))
		e->regs[off / 4] = val;
}

u32 csemu_etm_read(struct csemu_etm *e, u32 off)
{
	u32 v;
	int n;

	csemu_etm_check_cpu(e);
	/*
	 * The trace registers, ID registers included, are not accessible
	 * while the OS lock is set (IHI0064, the OS Lock); the kernel
	 * releases it before reading TRCIDR (etm4_init_arch_data()).
	 */
	if (e->oslk && csemu_etm_id_block(off)) {
		csemu_violation(&e->c, CV_OSLOCK_IDR);
		return 0;
	}

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
		if (csemu_skip_power_up)
			csemu_violation(&e->c, CV_PDCR);
		return e->pdcr;
	case TB_ETM_TRCPDSR:
		v = TB_ETM_PDSR_POWER | (e->sticky_pd ? TB_ETM_PDSR_STICKYPD : 0) |
		    (e->oslk ? TB_ETM_PDSR_OSLK : 0);
		e->sticky_pd = false;
		return v;
	case TB_ETM_TRCSYNCPR:
		return csemu_syncpr_ro ? CSEMU_SYNCPR_RO : e->regs[off / 4];
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
	/* Hip08's peripheral ID 0x000b6d01 (amba_read_periphid() order). */
	if (csemu_hip08 && off >= TB_CS_PIDR0 && off < TB_CS_PIDR0 + 16)
		return (TB_ETM_PID_HIP08 >> (8 * ((off - TB_CS_PIDR0) / 4))) & 0xff;
	if (csemu_mgmt_read(&e->c, off, CSEMU_ETM_PART, &v))
		return v;
	return 0;
}

/* ---- generation ---- */

static ktime_t csemu_period(void)
{
	return ns_to_ktime((u64)clamp(READ_ONCE(csemu_period_us), 20U, 1000000U) *
			   NSEC_PER_USEC);
}

/* About budget bytes of the unit's program, if its sink captures. */
/* max_steps bounds a program filtered out entirely (0 bytes a step). */
static u64 csemu_generate_locked(struct csemu_etm *e, u64 budget, u64 max_steps)
{
	u64 done = 0, steps = 0;
	size_t n;

	if (!e->en || csemu_follow_on())
		return 0;	/* follow mode: no synthetic program */
	if (csemu_trf && !(e->trfcr & (TB_TRFCR_E0TRE | TB_TRFCR_E1TRE))) {
		e->prohibited++;	/* every EL prohibited: nothing to trace */
		return 0;
	}
	if (!csemu_capturing(e->c.out[0], 0)) {
		e->stalls++;	/* the program waits for the sink */
		return 0;
	}
	csemu_etm_start_out(e);
	while (done < budget && steps++ < max_steps) {
		n = csgen_step(&e->gen, csemu.gbuf, sizeof(csemu.gbuf));
		if (!n)
			continue;
		e->bytes += n;
		csemu_task_account(&e->tasks, e->cpu, n);
		csemu_deliver(e->c.out[0], csemu_trace_id(e), csemu.gbuf, n, 0);
		done += n;
		if (!csemu_capturing(e->c.out[0], 0))
			break;
	}
	return done;
}

static void csemu_generate(struct csemu_etm *e, u64 budget)
{
	unsigned long flags;

	raw_spin_lock_irqsave(&csemu_lock, flags);
	csemu_generate_locked(e, budget, div_u64(budget, 64) + 2);
	raw_spin_unlock_irqrestore(&csemu_lock, flags);
}

/*
 * etmN/burst: N bytes of the unit's program now, all under the sink's
 * lock, so that a drain cycle (which disables the ETM through that lock)
 * sees them in one period: the tests' way to make a sink write more than
 * its free space between two drains whatever the guest's timing is.
 * -EAGAIN (nothing written) if the unit is off or its sink not capturing.
 */
static ssize_t csemu_burst_write(struct file *f, const char __user *ubuf,
				 size_t len, loff_t *ppos)
{
	struct csemu_etm *e = f->private_data;
	unsigned long flags;
	u64 n;
	int ret;

	ret = kstrtou64_from_user(ubuf, len, 0, &n);
	if (ret)
		return ret;
	if (!n || n > CSEMU_MAX_RATE)
		return -ERANGE;
	raw_spin_lock_irqsave(&csemu_lock, flags);
	if (e->en && csemu_capturing(e->c.out[0], 0))
		e->burst_bytes += csemu_generate_locked(e, n, div_u64(n, 4) + 2);
	else
		ret = -EAGAIN;
	raw_spin_unlock_irqrestore(&csemu_lock, flags);
	return ret ? ret : len;
}

const struct file_operations csemu_burst_fops = {
	.owner	= THIS_MODULE,
	.open	= simple_open,
	.write	= csemu_burst_write,
	.llseek	= noop_llseek,
};

static enum hrtimer_restart csemu_tick(struct hrtimer *t)
{
	struct csemu_etm *e = container_of(t, struct csemu_etm, timer);
	u64 periods = hrtimer_forward_now(t, csemu_period());
	u32 r = min(READ_ONCE(csemu_rate), CSEMU_MAX_RATE);

	if (READ_ONCE(e->en) && r)
		csemu_generate(e, (u64)r * min_t(u64, periods, CSEMU_MAX_PERIODS));
	return HRTIMER_RESTART;
}

/* On the incoming CPU: its unit ticks. */
int csemu_cpu_online(unsigned int cpu)
{
	hrtimer_start(&csemu.etms[cpu].timer, csemu_period(),
		      HRTIMER_MODE_REL_PINNED_HARD);
	return 0;
}

/* On the outgoing CPU: its unit stops ticking; registers are kept. */
int csemu_cpu_offline(unsigned int cpu)
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
int csemu_cpu_dead(unsigned int cpu)
{
	struct csemu_etm *e = &csemu.etms[cpu];
	unsigned long flags;

	raw_spin_lock_irqsave(&csemu_lock, flags);
	if (e->en)
		csemu_violation(&e->c, CV_ETM_CPU_DEAD);
	e->trfcr = 0;		/* the PE was reset: UNKNOWN, taken as prohibited */
	raw_spin_unlock_irqrestore(&csemu_lock, flags);
	return 0;
}

/* ---- the PE's TRFCR_EL1, on the CPU that accesses it ---- */

u64 csemu_trfcr_read(void)
{
	struct csemu_etm *e;
	unsigned long flags;
	u64 v;

	raw_spin_lock_irqsave(&csemu_lock, flags);
	e = &csemu.etms[smp_processor_id()];
	if (!csemu_trf)
		csemu_violation(&e->c, CV_TRF_ABSENT);
	v = e->trfcr;
	raw_spin_unlock_irqrestore(&csemu_lock, flags);
	return v;
}

void csemu_trfcr_write(u64 val)
{
	struct csemu_etm *e;
	unsigned long flags;

	raw_spin_lock_irqsave(&csemu_lock, flags);
	e = &csemu.etms[smp_processor_id()];
	if (!csemu_trf)
		csemu_violation(&e->c, CV_TRF_ABSENT);
	e->trfcr = val & (TB_TRFCR_E0TRE | TB_TRFCR_E1TRE | TB_TRFCR_EL2_CX |
			  (3ULL << 5));
	csemu_op(e, (e->trfcr & (TB_TRFCR_E0TRE | TB_TRFCR_E1TRE)) ? OP_TRF_ALLOW :
		 OP_TRF_PROHIBIT);
	raw_spin_unlock_irqrestore(&csemu_lock, flags);
}

/* hip08=1: the core's commit rate register, on the CPU that writes it. */
void csemu_hip08_commit(bool reduced)
{
	struct csemu_etm *e;
	unsigned long flags;

	raw_spin_lock_irqsave(&csemu_lock, flags);
	e = &csemu.etms[smp_processor_id()];
	if (!csemu_hip08)
		csemu_violation(&e->c, CV_IMPDEF_UNDEF);
	e->commit = (e->commit & ~TB_HIP08_COMMIT_MASK) |
		    FIELD_PREP(TB_HIP08_COMMIT_MASK, reduced ? TB_HIP08_COMMIT_LVL_1 :
			       TB_HIP08_COMMIT_FULL);
	csemu_op(e, reduced ? OP_COMMIT_LOW : OP_COMMIT_FULL);
	raw_spin_unlock_irqrestore(&csemu_lock, flags);
}

/* ---- CPU power-down (tests only) ---- */

/*
 * The PE and, with loses_context=1, its trace unit lose power: the
 * unit's registers reset (IHI0064: programming UNKNOWN, taken as 0; the
 * OS lock set; STICKYPD set), TRFCR_EL1 too. A unit still enabled was
 * not saved first (IHI0064, the procedure when powering down the PE:
 * set the OS lock, wait for PMSTABLE, save; etm4_cpu_save()): a
 * violation, and its trace in flight is lost.
 */
static void csemu_etm_power_down(struct csemu_etm *e)
{
	e->pm_resets++;
	csemu_op(e, OP_POWER_DOWN);
	if (e->en)
		csemu_violation(&e->c, CV_PM_LOST);
	WRITE_ONCE(e->en, false);
	memset(e->regs, 0, sizeof(e->regs));
	e->c.locked = true;
	e->c.claim = 0;
	e->oslk = true;
	e->sticky_pd = true;
	e->pdcr = 0;
	e->en_lag = 0;
	e->pm_lag = 0;
	e->idle_lag = 0;
	e->idle_seen = true;
	e->prg0_pend = false;
	e->prog_ok = false;
	e->configured = false;
	e->idle0_pend = false;
	e->pm_pend = false;
	e->draining = false;
	e->ndrain = 0;
	e->nstart = 0;
	e->npending = 0;
	e->trfcr = 0;
	e->commit = 0;
}

/*
 * On the CPU, in process context with interrupts off, as the idle task
 * enters a power-down state (cpuidle-psci: cpu_pm_enter(), the
 * firmware call, cpu_pm_exit()): not from an IPI, which could interrupt
 * a kernel-mode FP/SIMD section that the arm64 FP notifier would then
 * find busy.
 */
static long csemu_cpu_pm_cycle(void *arg)
{
	struct csemu_etm *e = arg;
	long ret;

	if (smp_processor_id() != e->cpu)
		return -EINVAL;
	local_irq_disable();
	ret = cpu_pm_enter();
	if (!ret) {
		raw_spin_lock(&csemu_lock);	/* interrupts are off */
		e->pm_cycles++;
		if (csemu_loses_context)
			csemu_etm_power_down(e);
		raw_spin_unlock(&csemu_lock);
		cpu_pm_exit();
	}
	local_irq_enable();
	return ret;
}

static ssize_t csemu_cpu_pm_write(struct file *f, const char __user *ubuf,
				  size_t len, loff_t *ppos)
{
	struct csemu_etm *e = f->private_data;
	unsigned int n, i;
	long ret = 0;

	/*
	 * Without CONFIG_CPU_PM (the debug kernels: no cpuidle, no suspend)
	 * cpu_pm_enter() is a stub and no CPU of this kernel ever powers
	 * down with its notifiers: there is nothing to model.
	 */
	if (!IS_ENABLED(CONFIG_CPU_PM))
		return -EOPNOTSUPP;
	ret = kstrtouint_from_user(ubuf, len, 0, &n);
	if (ret)
		return ret;
	if (!n || n > 1000)
		return -ERANGE;
	for (i = 0; i < n && !ret; i++) {
		/* Online while it runs there (work_on_cpu() would move it). */
		cpus_read_lock();
		ret = cpu_online(e->cpu) ? work_on_cpu(e->cpu, csemu_cpu_pm_cycle, e) :
					   -ENXIO;
		cpus_read_unlock();
	}
	return ret ? ret : len;
}

const struct file_operations csemu_cpu_pm_fops = {
	.owner	= THIS_MODULE,
	.open	= simple_open,
	.write	= csemu_cpu_pm_write,
	.llseek	= noop_llseek,
};

/* A sink's feeder has cleared EN but not yet drained (IDLE not yet 1). */
bool csemu_sink_draining(const struct csemu_sink *k)
{
	unsigned int cpu;

	for_each_cpu(cpu, &k->feeders)
		if (csemu.etms[cpu].draining)
			return true;
	return false;
}

void csemu_etm_init(struct csemu_etm *e, unsigned int cpu)
{
	e->c.kind = CSEMU_KIND_ETM;
	e->c.locked = true;
	e->cpu = cpu;
	snprintf(e->c.name, sizeof(e->c.name), "csemu-etm%u", cpu);
	e->oslk = true;
	e->idle_seen = true;
	e->sticky_pd = true;
	csgen_init(&e->gen, csemu_seed, cpu);
	hrtimer_init(&e->timer, CLOCK_MONOTONIC, HRTIMER_MODE_REL_PINNED_HARD);
	e->timer.function = csemu_tick;
	e->inited = true;
}
