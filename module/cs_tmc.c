// SPDX-License-Identifier: GPL-2.0
/*
 * TMC sinks over MMIO (ARM DDI0461), through struct tb_cs_io only.
 *
 * ETR: circular-buffer mode, formatter on, writing either through a
 * scatter-gather table (AXICTL.ScatterGather, DBA = first table page) or
 * into one contiguous buffer (DBA = its base). RWP is programmed to where
 * the trace continues and STS.Full cleared, both in the Disabled state,
 * so one session's positions run on across stops.
 * ETB/ETF: circular buffer in internal SRAM; after a stop the bytes are
 * read word by word through RRD.
 * Stop: FFCR.StopOnFl then FFCR.FlushMan; FlushMan clears when the flush
 * is done and TMCReady is set once the formatter has written everything.
 */
#include <linux/bitfield.h>
#include <linux/dma-mapping.h>
#include <linux/errno.h>
#include <linux/kernel.h>
#include <linux/log2.h>
#include <asm/barrier.h>

#include "cs.h"

#define TB_TMC_FFCR_BASE	(TB_TMC_FFCR_ENFT | TB_TMC_FFCR_ENTI | \
				 TB_TMC_FFCR_FONFLIN | TB_TMC_FFCR_FONTRIGEVT | \
				 TB_TMC_FFCR_TRIGONTRIGIN)

/*
 * Unlocked, at probe: nothing in this kernel uses the TMC yet (a driver
 * bound to it was refused before). A TMC left capturing (by firmware,
 * or by a kernel before a kexec) writes into memory that is no longer
 * its own: flush and stop it, then disable it (as tmc_flush_and_stop()
 * and tmc_disable_hw() do), and clear a stale self-hosted claim tag
 * (tb_cs_clear_stale_claim()). A TMC an external debugger claims is
 * left alone: it stays busy.
 */
static void tb_tmc_reclaim(struct tb_cs_sink *k)
{
	const struct tb_cs_io *io = k->io;
	void __iomem *b = k->base;
	u32 ffcr;

	if (io->read(b, TB_CS_CLAIMCLR) & TB_CS_CLAIM_EXTERNAL)
		return;
	if (io->read(b, TB_TMC_CTL) & TB_TMC_CTL_CAPTEN) {
		pr_warn("tracebuf: coresight: %s was left capturing: stopped\n", k->name);
		ffcr = io->read(b, TB_TMC_FFCR) | TB_TMC_FFCR_STOPONFL;
		io->write(b, TB_TMC_FFCR, ffcr);
		io->write(b, TB_TMC_FFCR, ffcr | TB_TMC_FFCR_FLUSHMAN);
		if (!tb_cs_wait(io, b, TB_TMC_FFCR, TB_TMC_FFCR_FLUSHMAN, 0))
			tb_cs_wait(io, b, TB_TMC_STS, TB_TMC_STS_TMCREADY, TB_TMC_STS_TMCREADY);
		io->write(b, TB_TMC_CTL, 0);
	}
	if (tb_cs_clear_stale_claim(io, b))
		pr_info("tracebuf: coresight: %s: stale self-hosted claim tag cleared\n", k->name);
}

/*
 * What the ETR can address: DEVID.AXIAW when valid and one of the
 * widths the kernel accepts, else 40 bits, as tmc_etr_setup_caps() sets
 * the DMA mask of the TMC's device.
 */
static int tb_tmc_dma_mask(struct tb_cs_sink *k, u32 devid)
{
	unsigned int aw = 40;

	if (devid & TB_TMC_DEVID_AXIAW_VALID) {
		aw = FIELD_GET(TB_TMC_DEVID_AXIAW, devid);
		if (aw != 32 && aw != 40 && aw != 44 && aw != 48 && aw != 52)
			aw = 40;
	}
	if (dma_set_mask_and_coherent(k->dev, DMA_BIT_MASK(aw))) {
		pr_warn("tracebuf: coresight: %s: no %u-bit DMA mask\n", k->name, aw);
		return -EIO;
	}
	return 0;
}

int tb_tmc_probe(struct tb_cs_sink *k)
{
	u32 devid, part;

	tb_cs_unlock(k->io, k->base);
	devid = k->io->read(k->base, TB_CS_DEVID);
	part = (k->io->read(k->base, TB_CS_PIDR0) & 0xff) |
	       (k->io->read(k->base, TB_CS_PIDR0 + 4) & 0xf) << 8;
	k->save_restore = part == TB_CS_PART_SOC600_ETR;
	k->type = FIELD_GET(TB_TMC_DEVID_CONFIG_TYPE, devid);
	/* As tmc_etr_get_max_burst_size(): 0..15, else 15 (16 transfers). */
	if (!k->max_burst_set || k->max_burst > TB_TMC_AXICTL_BURST_16)
		k->max_burst = TB_TMC_AXICTL_BURST_16;
	if (k->type != TRACEBUF_CS_SINK_ETR)
		k->sram_size = (u64)k->io->read(k->base, TB_TMC_RSZ) * 4;
	tb_tmc_reclaim(k);
	tb_cs_lock(k->io, k->base);
	switch (k->type) {
	case TRACEBUF_CS_SINK_ETR:
		/* SG only when both the firmware and DEVID allow it. */
		k->sg = k->sg && !(devid & TB_TMC_DEVID_NOSCAT);
		if (k->dev && tb_tmc_dma_mask(k, devid))
			return -EIO;
		/*
		 * A flat buffer that restarts at its base cannot continue
		 * where the consumer's data ends (no rotation): not supported.
		 */
		if (!k->sg && !k->save_restore)
			return -EOPNOTSUPP;
		break;
	case TRACEBUF_CS_SINK_ETB:
	case TRACEBUF_CS_SINK_ETF:
		k->sg = false;
		/* SRAM sizes are powers of two (RSZ, DDI0461 3.3.2). */
		if (!k->sram_size || !is_power_of_2(k->sram_size))
			return -ENODEV;
		break;
	default:
		return -ENODEV;
	}
	k->present = true;
	return 0;
}

static int tb_tmc_ready(struct tb_cs_sink *k)
{
	return tb_cs_wait(k->io, k->base, TB_TMC_STS, TB_TMC_STS_TMCREADY,
			  TB_TMC_STS_TMCREADY);
}

static int tb_tmc_start(struct tb_cs_sink *k)
{
	const struct tb_cs_io *io = k->io;

	io->write(k->base, TB_TMC_FFCR, TB_TMC_FFCR_BASE);
	/* FFCR acts on triggers: the trigger counter has no reset value. */
	io->write(k->base, TB_TMC_TRG, 0);
	mb();	/* buffer, pointers and tables are in place before capture */
	io->write(k->base, TB_TMC_CTL, TB_TMC_CTL_CAPTEN);
	tb_cs_lock(io, k->base);
	return 0;
}

/*
 * Unlocked, claimed (self-hosted), TMCReady and Disabled: the state the
 * TMC is programmed in. On error it is left locked and unclaimed.
 */
static int tb_tmc_prepare(struct tb_cs_sink *k)
{
	const struct tb_cs_io *io = k->io;
	int ret;

	tb_cs_unlock(io, k->base);
	ret = tb_cs_claim(io, k->base);
	if (!ret) {
		ret = tb_tmc_ready(k);
		if (ret)
			tb_cs_disclaim(io, k->base);
	}
	if (ret) {
		tb_cs_lock(io, k->base);
		return ret;
	}
	io->write(k->base, TB_TMC_CTL, 0);
	return 0;
}

int tb_tmc_enable_etr(struct tb_cs_sink *k, u64 dba, bool sg, u64 size, u64 rwp)
{
	const struct tb_cs_io *io = k->io;
	void __iomem *b = k->base;
	u32 axictl;
	int ret;

	ret = tb_tmc_prepare(k);
	if (ret)
		return ret;
	io->write(b, TB_TMC_RSZ, size / 4);
	io->write(b, TB_TMC_MODE, TB_TMC_MODE_CIRCULAR);
	/*
	 * Read-modify-write, as __tmc_etr_enable_hw(): only the fields the
	 * kernel sets change; a SoC-600 ETR (the kernel's
	 * TMC_ETR_AXI_ARCACHE) also reads its tables write-back cacheable.
	 */
	axictl = io->read(b, TB_TMC_AXICTL) & ~TB_TMC_AXICTL_CLEAR_MASK;
	axictl |= TB_TMC_AXICTL_PROT_CTL_B1 | TB_TMC_AXICTL_CACHE |
		  TB_TMC_AXICTL_WR_BURST(k->max_burst);
	if (k->save_restore)
		axictl |= TB_TMC_AXICTL_ARCACHE;
	if (sg)
		axictl |= TB_TMC_AXICTL_SG;
	io->write(b, TB_TMC_AXICTL, axictl);
	io->write(b, TB_TMC_DBALO, lower_32_bits(dba));
	io->write(b, TB_TMC_DBAHI, upper_32_bits(dba));
	/* Kept only by TMCs with save/restore (SoC-600); others start at DBA. */
	io->write(b, TB_TMC_RRP, lower_32_bits(rwp));
	io->write(b, TB_TMC_RRPHI, upper_32_bits(rwp));
	io->write(b, TB_TMC_RWP, lower_32_bits(rwp));
	io->write(b, TB_TMC_RWPHI, upper_32_bits(rwp));
	io->write(b, TB_TMC_STS, io->read(b, TB_TMC_STS) & ~TB_TMC_STS_FULL);
	io->write(b, TB_TMC_BUFWM, 0);
	return tb_tmc_start(k);
}

int tb_tmc_enable_sram(struct tb_cs_sink *k)
{
	const struct tb_cs_io *io = k->io;
	void __iomem *b = k->base;
	int ret;

	ret = tb_tmc_prepare(k);
	if (ret)
		return ret;
	io->write(b, TB_TMC_MODE, TB_TMC_MODE_CIRCULAR);
	io->write(b, TB_TMC_RRP, 0);
	io->write(b, TB_TMC_RWP, 0);
	io->write(b, TB_TMC_STS, io->read(b, TB_TMC_STS) & ~TB_TMC_STS_FULL);
	io->write(b, TB_TMC_BUFWM, 0);
	return tb_tmc_start(k);
}

/*
 * Push everything in flight (ATB and formatter) to the buffer; with stop,
 * the TMC then stops (Stopped state: the buffer may be read).
 */
int tb_tmc_flush(struct tb_cs_sink *k, bool stop)
{
	const struct tb_cs_io *io = k->io;
	void __iomem *b = k->base;
	u32 ffcr = TB_TMC_FFCR_BASE;
	int ret;

	tb_cs_unlock(io, b);
	if (stop) {
		ffcr |= TB_TMC_FFCR_STOPONFL;
		io->write(b, TB_TMC_FFCR, ffcr);
	}
	io->write(b, TB_TMC_FFCR, ffcr | TB_TMC_FFCR_FLUSHMAN);
	ret = tb_cs_wait(io, b, TB_TMC_FFCR, TB_TMC_FFCR_FLUSHMAN, 0);
	if (!ret && stop)
		ret = tb_tmc_ready(k);
	tb_cs_lock(io, b);
	rmb();	/* the trace in memory is read after the flush completed */
	return ret;
}

void tb_tmc_disable(struct tb_cs_sink *k)
{
	tb_cs_unlock(k->io, k->base);
	k->io->write(k->base, TB_TMC_CTL, 0);
	tb_cs_disclaim(k->io, k->base);
	tb_cs_lock(k->io, k->base);
}

u32 tb_tmc_status(struct tb_cs_sink *k)
{
	return k->io->read(k->base, TB_TMC_STS);
}

u64 tb_tmc_rwp(struct tb_cs_sink *k)
{
	u32 lo = k->io->read(k->base, TB_TMC_RWP);

	if (k->type != TRACEBUF_CS_SINK_ETR)
		return lo;
	return ((u64)k->io->read(k->base, TB_TMC_RWPHI) << 32) | lo;
}

u32 tb_tmc_rrp(struct tb_cs_sink *k)
{
	return k->io->read(k->base, TB_TMC_RRP);
}

u32 tb_tmc_read_word(struct tb_cs_sink *k)
{
	return k->io->read(k->base, TB_TMC_RRD);
}

/*
 * An ETF on the way to another sink: hardware FIFO mode, passing trace
 * on with its IDs (DDI0461, Hardware FIFO mode; __tmc_etf_enable_hw()
 * and tmc_etf_disable_hw() in coresight-tmc-etf.c: claim, TMCReady,
 * MODE, FFCR EnFt|EnTI, BUFWM 0, capture; off: flush and stop, which
 * drains the FIFO downstream, then disable and disclaim).
 */
static int tb_etf_link_enable(struct tb_cs_dev *d, unsigned int in, unsigned int out, u8 id)
{
	const struct tb_cs_io *io = d->io;
	void __iomem *b = d->base;
	int ret;

	if (d->users++)
		return 0;
	tb_cs_unlock(io, b);
	ret = tb_cs_claim(io, b);
	if (!ret) {
		ret = tb_cs_wait(io, b, TB_TMC_STS, TB_TMC_STS_TMCREADY, TB_TMC_STS_TMCREADY);
		if (ret)
			tb_cs_disclaim(io, b);
	}
	if (ret) {
		tb_cs_lock(io, b);
		d->users--;
		return ret;
	}
	io->write(b, TB_TMC_CTL, 0);
	io->write(b, TB_TMC_MODE, TB_TMC_MODE_HWFIFO);
	io->write(b, TB_TMC_FFCR, TB_TMC_FFCR_ENFT | TB_TMC_FFCR_ENTI);
	io->write(b, TB_TMC_BUFWM, 0);
	mb();	/* the mode is set before capture starts */
	io->write(b, TB_TMC_CTL, TB_TMC_CTL_CAPTEN);
	tb_cs_lock(io, b);
	return 0;
}

static void tb_etf_link_disable(struct tb_cs_dev *d, unsigned int in, unsigned int out, u8 id)
{
	const struct tb_cs_io *io = d->io;
	void __iomem *b = d->base;

	if (!d->users || --d->users)
		return;
	tb_cs_unlock(io, b);
	io->write(b, TB_TMC_FFCR, TB_TMC_FFCR_ENFT | TB_TMC_FFCR_ENTI | TB_TMC_FFCR_STOPONFL);
	io->write(b, TB_TMC_FFCR, TB_TMC_FFCR_ENFT | TB_TMC_FFCR_ENTI | TB_TMC_FFCR_STOPONFL |
		  TB_TMC_FFCR_FLUSHMAN);
	/* Bounded; a FIFO that does not drain loses its last bytes, as on stop. */
	if (!tb_cs_wait(io, b, TB_TMC_FFCR, TB_TMC_FFCR_FLUSHMAN, 0))
		tb_cs_wait(io, b, TB_TMC_STS, TB_TMC_STS_TMCREADY, TB_TMC_STS_TMCREADY);
	io->write(b, TB_TMC_CTL, 0);
	tb_cs_disclaim(io, b);
	tb_cs_lock(io, b);
}

const struct tb_cs_link_ops tb_cs_etf_link_ops = {
	.name		= "etf",
	.enable		= tb_etf_link_enable,
	.disable	= tb_etf_link_disable,
};
