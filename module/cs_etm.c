// SPDX-License-Identifier: GPL-2.0
/*
 * ETMv4 trace units over MMIO (ARM IHI0064), through struct tb_cs_io only.
 *
 * Enable, in the architecture's order (REFERENCE.md 3, etm4_enable_hw):
 * software unlock (LAR), OS unlock, claim (self-hosted tag), TRCPRGCTLR=0
 * and wait for TRCSTATR.IDLE, program every register, TRCPDCR.PU (keep
 * the trace unit powered), TRCPRGCTLR=1 and wait for !IDLE, relock.
 * Disable: unlock, drop PU, TRCPRGCTLR=0, wait for TRCSTATR.PMSTABLE (the
 * trace unit has drained to the ATB), disclaim, relock.
 *
 * MMIO reaches a trace unit from any CPU; the unit stays powered while PU
 * is set. The only step bound to the traced CPU is the OS unlock of a
 * unit whose OS lock is the PE's (OSLM 0b100, OSLAR_EL1): done where it
 * must be done, refused (-EAGAIN) elsewhere. Probing runs on the traced
 * CPU (coresight.c), and releases the OS lock before reading the ID
 * registers, as etm4_init_arch_data() does.
 */
#include <linux/bitfield.h>
#include <linux/delay.h>
#include <linux/errno.h>
#include <linux/smp.h>
#include <asm/barrier.h>
#ifdef CONFIG_ARM64
#include <asm/sysreg.h>
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

static int tb_etm_os_unlock(struct tb_cs_etm *e)
{
	u32 oslsr = e->io->read(e->base, TB_ETM_TRCOSLSR);

	if (!(oslsr & TB_ETM_OSLSR_OSLK))
		return 0;
	if (tb_etm_oslm(oslsr) == 0x4) {
		/* The PE's OS lock: only the traced CPU can release it. */
#ifdef CONFIG_ARM64
		if (smp_processor_id() != e->cpu)
			return -EAGAIN;
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

int tb_etm_probe(struct tb_cs_etm *e)
{
	unsigned int i;
	u32 *idr = e->caps.trcidr;

	tb_cs_unlock(e->io, e->base);
	if (tb_cs_clear_stale_claim(e->io, e->base))
		pr_info("tracebuf: coresight: %s: stale self-hosted claim tag cleared\n", e->name);
	/* The ID registers read as UNKNOWN while the OS lock is set. */
	if (tb_etm_os_unlock(e)) {
		tb_cs_lock(e->io, e->base);
		return -EAGAIN;
	}
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

	tb_cs_unlock(io, b);
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
	mb();	/* every programming write lands before the enable */
	io->write(b, TB_ETM_TRCPRGCTLR, TB_ETM_PRGCTLR_EN);
	ret = tb_cs_wait(io, b, TB_ETM_TRCSTATR, TB_ETM_STATR_IDLE, 0);
	if (ret) {
		if (!e->skip_power_up)
			io->write(b, TB_ETM_TRCPDCR, io->read(b, TB_ETM_TRCPDCR) & ~TB_ETM_PDCR_PU);
		io->write(b, TB_ETM_TRCPRGCTLR, 0);
		goto disclaim;
	}
	dsb(sy);
	isb();
	goto out;
disclaim:
	tb_cs_disclaim(io, b);
out:
	tb_cs_lock(io, b);
	return ret;
}

/* -ETIMEDOUT if the unit did not drain (its last bytes may be missing). */
int tb_etm_disable(struct tb_cs_etm *e)
{
	const struct tb_cs_io *io = e->io;
	void __iomem *b = e->base;
	int ret;

	tb_cs_unlock(io, b);
	if (!e->skip_power_up)
		io->write(b, TB_ETM_TRCPDCR, io->read(b, TB_ETM_TRCPDCR) & ~TB_ETM_PDCR_PU);
	dsb(sy);
	isb();
	io->write(b, TB_ETM_TRCPRGCTLR, 0);
	/* PMSTABLE: the trace unit is idle and has emptied its FIFO. */
	ret = tb_cs_wait(io, b, TB_ETM_TRCSTATR, TB_ETM_STATR_PMSTABLE,
			 TB_ETM_STATR_PMSTABLE);
	isb();
	tb_cs_disclaim(io, b);
	tb_cs_lock(io, b);
	return ret;
}
