// SPDX-License-Identifier: GPL-2.0
/*
 * ETMv4 trace units over MMIO (ARM IHI0064), through struct tb_cs_io only.
 *
 * Enable, in the architecture's order (REFERENCE.md 3, etm4_enable_hw):
 * software unlock (LAR), OS unlock, claim (self-hosted tag), TRCPRGCTLR=0
 * and wait for TRCSTATR.IDLE, program every register, TRCPDCR.PU (keep
 * the trace unit powered), allow the session's ELs in TRFCR_EL1 where
 * the PE has FEAT_TRF (etm4x_allow_trace()), TRCPRGCTLR=1 and wait for
 * !IDLE, relock.
 * Disable: unlock, drop PU, prohibit every EL in TRFCR_EL1
 * (etm4x_prohibit_trace(): no new trace from here), TRCPRGCTLR=0, wait
 * for TRCSTATR.PMSTABLE (as etm4_disable_trace_unit()) and then for
 * TRCSTATR.IDLE: the trace unit is idle only once it has emitted all of
 * its trace to the ATB (IHI0064, TRCSTATR.IDLE), so that is when the
 * sink may be flushed. Disclaim, relock.
 *
 * Everything here runs on the traced CPU, with interrupts off, as the
 * kernel's ETMv4 driver does it (smp_call_function_single() to
 * drvdata->cpu for enable, disable and probe): the OS lock may be the
 * PE's (OSLM 0b100, OSLAR_EL1), TRFCR_EL1 is the PE's own register, and
 * the trace unit may be in the core's power domain. Probing releases the
 * OS lock before reading the ID registers, as etm4_init_arch_data() does.
 */
#include <linux/bitfield.h>
#include <linux/bug.h>
#include <linux/delay.h>
#include <linux/errno.h>
#include <linux/smp.h>
#include <asm/barrier.h>
#ifdef CONFIG_ARM64
#include <asm/sysreg.h>
#include <asm/virt.h>
#endif

#include "cs.h"

#define TB_CS_WAIT_POLLS	100	/* as coresight_timeout(): 100 x 1 us */

void tb_cs_unlock(const struct tb_cs_io *io, void __iomem *base)
{
	io->write(base, TB_CS_LAR, TB_CS_UNLOCK_KEY);
	mb();	/* the unlock reaches the component before any other write */
}

void tb_cs_lock(const struct tb_cs_io *io, void __iomem *base)
{
	mb();	/* every programming write lands before the relock */
	io->write(base, TB_CS_LAR, 0);
}

/*
 * Claim the component for self-hosted software (IHI0029 claim tags): set
 * our tag, and back off if any other agent's tag is set (an external
 * debugger, or the kernel's own CoreSight driver tracing with it).
 */
int tb_cs_claim(const struct tb_cs_io *io, void __iomem *base)
{
	if (io->read(base, TB_CS_CLAIMCLR) & (TB_CS_CLAIM_EXTERNAL | TB_CS_CLAIM_SELF_HOSTED))
		return -EBUSY;
	io->write(base, TB_CS_CLAIMSET, TB_CS_CLAIM_SELF_HOSTED);
	if (io->read(base, TB_CS_CLAIMCLR) != TB_CS_CLAIM_SELF_HOSTED) {
		io->write(base, TB_CS_CLAIMCLR, TB_CS_CLAIM_SELF_HOSTED);
		return -EBUSY;
	}
	return 0;
}

void tb_cs_disclaim(const struct tb_cs_io *io, void __iomem *base)
{
	io->write(base, TB_CS_CLAIMCLR, TB_CS_CLAIM_SELF_HOSTED);
}

/*
 * At probe, unlocked: a self-hosted claim tag is stale (no self-hosted
 * software in this kernel holds the component yet: one bound to another
 * driver was refused before). Clear it, rather than be -EBUSY until the
 * next reset as 6.1's and 6.12's coresight_claim_device() would be.
 * True if it was set.
 */
bool tb_cs_clear_stale_claim(const struct tb_cs_io *io, void __iomem *base)
{
	if (!(io->read(base, TB_CS_CLAIMCLR) & TB_CS_CLAIM_SELF_HOSTED))
		return false;
	io->write(base, TB_CS_CLAIMCLR, TB_CS_CLAIM_SELF_HOSTED);
	return true;
}

int tb_cs_wait(const struct tb_cs_io *io, void __iomem *base, u32 reg,
	       u32 mask, u32 want)
{
	int i;

	for (i = 0; i < TB_CS_WAIT_POLLS; i++) {
		if ((io->read(base, reg) & mask) == want)
			return 0;
		udelay(1);
	}
	return -ETIMEDOUT;
}

/* OSLM from TRCOSLSR: bits [4:3] are OSLM[2:1], bit 0 is OSLM[0]. */
static u32 tb_etm_oslm(u32 oslsr)
{
	return ((oslsr >> 2) & 0x6) | (oslsr & 1);
}

/* Everything in this file runs on the ETM's own CPU (see the top). */
static int tb_etm_check_cpu(const struct tb_cs_etm *e)
{
	if (WARN_ON_ONCE(smp_processor_id() != e->cpu))
		return -EINVAL;
	return 0;
}

static int tb_etm_os_unlock(struct tb_cs_etm *e)
{
	u32 oslsr = e->io->read(e->base, TB_ETM_TRCOSLSR);

	if (!(oslsr & TB_ETM_OSLSR_OSLK))
		return 0;
	if (tb_etm_oslm(oslsr) == 0x4) {
		/* The PE's OS lock (OSLAR_EL1): this is the traced CPU. */
#ifdef CONFIG_ARM64
		write_sysreg_s(0, SYS_OSLAR_EL1);
		isb();
#else
		return -EOPNOTSUPP;
#endif
	} else {
		e->io->write(e->base, TB_ETM_TRCOSLAR, 0);
	}
	return 0;
}

/*
 * FEAT_TRF: what cpu_detect_trace_filtering() allows, tracing at EL0
 * and the kernel's EL with virtual timestamps (and CONTEXTIDR_EL2 when
 * the kernel runs at EL2); 0 without it.
 */
static u64 tb_etm_trfcr(const struct tb_cs_etm *e)
{
	u64 trfcr;

	if (!e->io->trf_present || !e->io->trf_present())
		return 0;
	trfcr = TB_TRFCR_TS_VIRTUAL | TB_TRFCR_E1TRE | TB_TRFCR_E0TRE;
#ifdef CONFIG_ARM64
	if (is_kernel_in_hyp_mode())
		trfcr |= TB_TRFCR_EL2_CX;
#endif
	return trfcr;
}

/*
 * The peripheral ID from PIDR0..3, as amba_read_periphid() assembles
 * it; a Hip08 ETM needs its core's commit rate lowered while it traces
 * (etm4_check_arch_features()).
 */
static bool tb_etm_is_hip08(const struct tb_cs_etm *e)
{
	u32 pid = 0;
	unsigned int i;

	for (i = 0; i < 4; i++)
		pid |= (e->io->read(e->base, TB_CS_PIDR0 + 4 * i) & 0xff) << (8 * i);
	return (pid & TB_ETM_PID_MASK) == TB_ETM_PID_HIP08;
}

/* etm4_enable_arch_specific() / etm4_disable_arch_specific(). */
static void tb_etm_arch_specific(struct tb_cs_etm *e, bool enable)
{
	if (e->hip08)
		e->io->hip08_commit(enable);
}

/* etm4x_allow_trace(): the ELs the session traces, nothing else. */
static void tb_etm_allow_trace(struct tb_cs_etm *e, const struct tb_cs_prog *p)
{
	if (e->trfcr)
		e->io->trfcr_write(e->trfcr & ~p->trfcr_excl);
}

/* etm4x_prohibit_trace(): no EL may trace from here on. */
static void tb_etm_prohibit_trace(struct tb_cs_etm *e)
{
	if (e->trfcr)
		e->io->trfcr_write(e->io->trfcr_read() &
				   ~(TB_TRFCR_E0TRE | TB_TRFCR_E1TRE));
}

int tb_etm_probe(struct tb_cs_etm *e)
{
	unsigned int i;
	u32 *idr = e->caps.trcidr;

	if (tb_etm_check_cpu(e))
		return -EINVAL;
	e->trfcr = tb_etm_trfcr(e);
	tb_cs_unlock(e->io, e->base);
	if (tb_cs_clear_stale_claim(e->io, e->base))
		pr_info("tracebuf: coresight: %s: stale self-hosted claim tag cleared\n", e->name);
	/* The ID registers read as UNKNOWN while the OS lock is set. */
	if (tb_etm_os_unlock(e)) {
		tb_cs_lock(e->io, e->base);
		return -EAGAIN;
	}
	e->hip08 = e->io->hip08_commit && tb_etm_is_hip08(e);
	for (i = 0; i < TB_ETM_NR_IDR; i++)
		idr[i] = e->io->read(e->base, tb_etm_idr_off(i));
	e->caps.trcdevarch = e->io->read(e->base, TB_CS_DEVARCH);
	e->caps.trcdevid = e->io->read(e->base, TB_CS_DEVID);
	e->caps.trcauthstatus = e->io->read(e->base, TB_CS_AUTHSTATUS);
	tb_cs_lock(e->io, e->base);
	/* ETMv4 (TRCIDR1.TRCARCHMAJ = 4) with instruction trace (IDR0 bit 0 RES1). */
	if (FIELD_GET(TB_ETM_IDR1_ARCHMAJ, idr[1]) != 4 || !(idr[0] & 1))
		return -ENODEV;
	/* AUTHSTATUS.NSNID 0b10: non-secure non-invasive debug (trace) disabled. */
	if (((e->caps.trcauthstatus >> 2) & 0x3) == 0x2)
		return -EACCES;
	return 0;
}

/*
 * The Secure ELs this unit implements (TRCIDR3.EXLEVEL_S), all excluded:
 * the bits of unimplemented ones are RES0 (IHI0064, TRCVICTLR), so the
 * kernel writes exactly these (etm4_get_access_type(): s_ex_level).
 */
static u32 tb_etm_exlevel_s(const struct tb_cs_etm *e)
{
	return FIELD_GET(TB_ETM_IDR3_EXLEVEL_S, e->caps.trcidr[3]);
}

static void tb_etm_program(struct tb_cs_etm *e, const struct tb_cs_prog *p)
{
	const struct tb_cs_io *io = e->io;
	void __iomem *b = e->base;
	u32 exs = tb_etm_exlevel_s(e);
	unsigned int i;

	io->write(b, TB_ETM_TRCPROCSELR, 0);
	io->write(b, TB_ETM_TRCCONFIGR, p->configr);
	io->write(b, TB_ETM_TRCAUXCTLR, 0);
	io->write(b, TB_ETM_TRCEVENTCTL0R, p->eventctl0);
	io->write(b, TB_ETM_TRCEVENTCTL1R, p->eventctl1);
	if (e->caps.trcidr[3] & TB_ETM_IDR3_STALLCTL)
		io->write(b, TB_ETM_TRCSTALLCTLR, p->stallctlr);
	io->write(b, TB_ETM_TRCTSCTLR, p->tsctlr);
	if (!(e->caps.trcidr[3] & TB_ETM_IDR3_SYNCPR))
		io->write(b, TB_ETM_TRCSYNCPR, p->syncpr);
	io->write(b, TB_ETM_TRCCCCTLR, p->ccctlr);
	io->write(b, TB_ETM_TRCBBCTLR, p->bbctlr);
	io->write(b, TB_ETM_TRCTRACEIDR, e->caps.trace_id);
	io->write(b, TB_ETM_TRCVICTLR, (p->victlr & ~TB_ETM_VICTLR_EXLEVEL_S_MASK) |
		  (exs << TB_ETM_VICTLR_EXLEVEL_S_SHIFT));
	io->write(b, TB_ETM_TRCVIIECTLR, p->viiectlr);
	io->write(b, TB_ETM_TRCVISSCTLR, p->vissctlr);
	if (FIELD_GET(TB_ETM_IDR5_NUMCNTR, e->caps.trcidr[5])) {
		io->write(b, TB_ETM_TRCCNTRLDVR(0), p->cntrldvr0);
		io->write(b, TB_ETM_TRCCNTVR(0), p->cntrldvr0);
		io->write(b, TB_ETM_TRCCNTCTLR(0), p->cntctlr0);
	}
	if (FIELD_GET(TB_ETM_IDR4_NUMRSPAIR, e->caps.trcidr[4]))
		io->write(b, TB_ETM_TRCRSCTLR(2), p->rsctlr2);
	for (i = 0; i < p->nr_ac; i++) {
		io->write(b, TB_ETM_TRCACVR(i), lower_32_bits(p->acvr[i]));
		io->write(b, TB_ETM_TRCACVR(i) + 4, upper_32_bits(p->acvr[i]));
		io->write(b, TB_ETM_TRCACATR(i), (lower_32_bits(p->acatr[i]) &
						  ~TB_ETM_ACATR_EXLEVEL_S_MASK) |
			  (exs << TB_ETM_ACATR_EXLEVEL_S_SHIFT));
		io->write(b, TB_ETM_TRCACATR(i) + 4, upper_32_bits(p->acatr[i]));
	}
}

int tb_etm_enable(struct tb_cs_etm *e, const struct tb_cs_prog *p)
{
	const struct tb_cs_io *io = e->io;
	void __iomem *b = e->base;
	int ret;

	ret = tb_etm_check_cpu(e);
	if (ret)
		return ret;
	tb_cs_unlock(io, b);
	tb_etm_arch_specific(e, true);
	ret = tb_etm_os_unlock(e);
	if (ret)
		goto out;
	ret = tb_cs_claim(io, b);
	if (ret)
		goto out;
	/* Programming registers may only change while the unit is idle. */
	io->write(b, TB_ETM_TRCPRGCTLR, 0);
	ret = tb_cs_wait(io, b, TB_ETM_TRCSTATR, TB_ETM_STATR_IDLE, TB_ETM_STATR_IDLE);
	if (ret)
		goto disclaim;
	tb_etm_program(e, p);
	/* Keep the unit powered while it traces, unless TRCPDCR is out of reach. */
	if (!e->skip_power_up)
		io->write(b, TB_ETM_TRCPDCR, io->read(b, TB_ETM_TRCPDCR) | TB_ETM_PDCR_PU);
	tb_etm_allow_trace(e, p);
	mb();	/* every programming write lands before the enable */
	io->write(b, TB_ETM_TRCPRGCTLR, TB_ETM_PRGCTLR_EN);
	ret = tb_cs_wait(io, b, TB_ETM_TRCSTATR, TB_ETM_STATR_IDLE, 0);
	if (ret) {
		if (!e->skip_power_up)
			io->write(b, TB_ETM_TRCPDCR, io->read(b, TB_ETM_TRCPDCR) & ~TB_ETM_PDCR_PU);
		tb_etm_prohibit_trace(e);
		io->write(b, TB_ETM_TRCPRGCTLR, 0);
		tb_cs_wait(io, b, TB_ETM_TRCSTATR, TB_ETM_STATR_IDLE, TB_ETM_STATR_IDLE);
		goto disclaim;
	}
	dsb(sy);
	isb();
	goto out;
disclaim:
	tb_cs_disclaim(io, b);
out:
	if (ret)
		tb_etm_arch_specific(e, false);
	tb_cs_lock(io, b);
	return ret;
}

/* -ETIMEDOUT if the unit did not drain (its last bytes may be missing). */
int tb_etm_disable(struct tb_cs_etm *e)
{
	const struct tb_cs_io *io = e->io;
	void __iomem *b = e->base;
	int ret;

	ret = tb_etm_check_cpu(e);
	if (ret)
		return ret;
	tb_cs_unlock(io, b);
	tb_etm_arch_specific(e, false);
	if (!e->skip_power_up)
		io->write(b, TB_ETM_TRCPDCR, io->read(b, TB_ETM_TRCPDCR) & ~TB_ETM_PDCR_PU);
	tb_etm_prohibit_trace(e);
	dsb(sy);
	isb();
	io->write(b, TB_ETM_TRCPRGCTLR, 0);
	/* PMSTABLE: the programmers' model is stable (etm4_disable_trace_unit()), */
	ret = tb_cs_wait(io, b, TB_ETM_TRCSTATR, TB_ETM_STATR_PMSTABLE,
			 TB_ETM_STATR_PMSTABLE);
	/* and IDLE: every byte of its trace has left for the ATB. */
	if (!ret)
		ret = tb_cs_wait(io, b, TB_ETM_TRCSTATR, TB_ETM_STATR_IDLE,
				 TB_ETM_STATR_IDLE);
	isb();
	tb_cs_disclaim(io, b);
	tb_cs_lock(io, b);
	return ret;
}
