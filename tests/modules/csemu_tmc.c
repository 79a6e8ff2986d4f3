// SPDX-License-Identifier: GPL-2.0
/*
 * tb_csemu: TMC sinks (ARM DDI0461): ETR memory writes and scatter-gather
 * walks, ETF/ETB SRAM, the registers and states (see csemu.h).
 */
#include "csemu.h"

/* ---- TMC: memory ---- */

bool csemu_pa_ok(u64 pa)
{
	return pa <= TB_SG_MAX_PA && pfn_valid(PHYS_PFN(pa));
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
bool csemu_pa_freed(struct csemu_sink *k, u64 pa)
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
	__le32 *ent;
	u32 e;

	for (hops = 0; hops < CSEMU_SG_MAX_HOPS; hops++) {
		if (k->ent >= TB_SG_TABLE_ENTRIES)
			return -EIO;
		ent = csemu_dma_ptr(k, k->tbl + 4 * k->ent, 4, false);
		if (!ent)
			return -EIO;
		e = le32_to_cpu(READ_ONCE(*ent));
		switch (e & TB_SG_ENTRY_TYPE) {
		case TB_SG_ENTRY_NORMAL:
		case TB_SG_ENTRY_LAST:
			/* The data page is checked when it is written. */
			k->page = (u64)(e >> TB_SG_ENTRY_ADDR_SHIFT) << TB_SG_PAGE_SHIFT;
			k->last = (e & TB_SG_ENTRY_TYPE) == TB_SG_ENTRY_LAST;
			return 0;
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
	void *dst;

	while (len) {
		if (k->sgmode) {
			off = k->pos & (TB_SG_GRANULE - 1);
			pa = k->page + off;
			n = min_t(u64, len, TB_SG_GRANULE - off);
		} else {
			pa = k->dba + k->pos;
			n = min_t(u64, len, PAGE_SIZE - offset_in_page(pa));
		}
		n = min_t(u64, n, k->size - k->pos);
		/* pa: the bus address (an IOVA behind the emulated IOMMU). */
		dst = csemu_dma_ptr(k, pa, n, true);
		if (!dst)
			goto memerr;
		memcpy(dst, src, n);
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
void csemu_push(struct csemu_sink *k, u8 id, const u8 *data, size_t len)
{
	csemu_sink_out(k, k->obuf, csfmt_push(&k->fmt, id, data, len, k->obuf));
}

void csemu_flush(struct csemu_sink *k)
{
	k->flushes++;
	csemu_sink_out(k, k->obuf, csfmt_flush(&k->fmt, k->obuf));
}

/* ---- TMC: registers ---- */

u8 csemu_trace_id(const struct csemu_etm *e)
{
	return e->regs[TB_ETM_TRCTRACEIDR / 4] & 0x7f;
}

bool csemu_sink_etm_on(const struct csemu_sink *k)
{
	unsigned int cpu;

	for_each_cpu(cpu, &k->feeders)
		if (csemu.etms[cpu].en)
			return true;
	return false;
}

/*
 * A flush, stop or disable of the sink: every ETM feeding it must have
 * drained first (TRCSTATR.IDLE after EN cleared): else its last bytes
 * never reach the buffer. Counted, and they are dropped.
 */
static void csemu_check_drained(struct csemu_sink *k)
{
	unsigned int cpu;

	for_each_cpu(cpu, &k->feeders) {
		struct csemu_etm *e = &csemu.etms[cpu];

		if (!e->draining)
			continue;
		csemu_violation(&k->c, CV_TMC_DRAINING);
		e->dropped += e->ndrain;
		e->ndrain = 0;
		e->draining = false;
	}
}

/* A sink captures again: the stalled ETMs' start/stop bytes first. */
static void csemu_sink_resume(struct csemu_sink *k)
{
	unsigned int cpu;

	for_each_cpu(cpu, &k->feeders) {
		struct csemu_etm *e = &csemu.etms[cpu];

		if (!e->npending || !csemu_capturing(e->c.out[0], 0))
			continue;
		csemu_deliver(e->c.out[0], e->pending_id, e->pending, e->npending, 0);
		e->npending = 0;
	}
}

/* CTL.TraceCaptEn 0->1. */
void csemu_sink_start(struct csemu_sink *k)
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
	/*
	 * The trigger counter decides when a trigger event flushes; its
	 * reset value is taken as UNKNOWN (the stricter reading): the
	 * kernel writes TRG before every capture (__tmc_etr_enable_hw(),
	 * __tmc_etb_enable_hw()).
	 */
	if ((k->ffcr & TB_TMC_FFCR_FONTRIGEVT) && !k->trg_set)
		csemu_violation(&k->c, CV_TMC_TRG);
	if (k->type == TRACEBUF_CS_SINK_ETR) {
		k->dba = ((u64)k->dbahi << 32) | k->dbalo;
		k->size = (u64)k->rsz * 4;
		k->sgmode = (k->axictl & TB_TMC_AXICTL_SG) && k->sg_ok;
		if (!k->size)
			goto memerr;
		if (csemu_soc400) {
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
			/*
			 * The stricter reading: no document here says a
			 * SoC-600 ETR resumes a scatter-gather capture at an
			 * RWP past the first entry's page start, and the
			 * kernel restores RWP in flat mode only
			 * (__tmc_etr_enable_hw(), TMC_ETR_SAVE_RESTORE).
			 */
			if (k->pos)
				csemu_violation(&k->c, CV_TMC_SG_RWP);
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
	csemu_check_drained(k);
	if (k->state == CSEMU_RUNNING) {
		csemu_violation(&k->c, CV_TMC_DIS_RUNNING);
		k->discarded += k->fmt.pos;	/* never flushed */
	}
	csfmt_init(&k->fmt);
	k->state = CSEMU_DISABLED;
	k->rd_started = false;
}

/*
 * The debug power domain went down (csemu_pwr.c): the TMC's programming
 * is back at its reset values when it comes up (DDI0461: CTL, MODE,
 * FFCR, the buffer registers 0; TRG UNKNOWN; an ETF/ETB's RSZ its RAM
 * size), its claim tags clear and its software lock locked (IHI0029),
 * and a capture in progress is gone with what it held: a violation, as
 * the kernel keeps a TMC it uses powered (coresight_grab_device()'s
 * pm_runtime_get_sync() until coresight_drop_device()). Under csemu_lock.
 */
void csemu_sink_power_lost(struct csemu_sink *k)
{
	if (k->state != CSEMU_DISABLED || (k->ctl & TB_TMC_CTL_CAPTEN)) {
		csemu_violation(&k->c, CV_DOMAIN_LOST);
		k->discarded += k->fmt.pos;
	}
	csfmt_init(&k->fmt);
	k->state = CSEMU_DISABLED;
	k->ctl = 0;
	k->ffcr = 0;
	k->mode = 0;
	k->axictl = 0;
	k->dbalo = 0;
	k->dbahi = 0;
	k->trg = 0;
	k->trg_set = false;
	k->bufwm = 0;
	k->pscr = 0;
	k->rrp = 0;
	k->rrphi = 0;
	k->rwp = 0;
	k->rwphi = 0;
	k->rsz = k->type == TRACEBUF_CS_SINK_ETR ? 0 : k->sram_size / 4;
	k->full = false;
	k->memerr = false;
	k->flush_reads = 0;
	k->rd_started = false;
	k->c.claim = 0;
	k->c.locked = true;
}

static void csemu_ffcr_write(struct csemu_sink *k, u32 val)
{
	k->ffcr = val & ~TB_TMC_FFCR_FLUSHMAN;
	if (!(val & TB_TMC_FFCR_FLUSHMAN))
		return;
	k->flush_reads = CSEMU_LAG_READS;
	if (k->state != CSEMU_RUNNING)
		return;
	csemu_check_drained(k);
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
		/* Hardware FIFO mode exists in the ETF configuration only (DDI0461). */
		k->mode = val & 3;
		if (k->mode != TB_TMC_MODE_CIRCULAR &&
		    !(k->mode == TB_TMC_MODE_HWFIFO && k->type == TRACEBUF_CS_SINK_ETF))
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

void csemu_tmc_write(struct csemu_sink *k, u32 off, u32 val)
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
		k->trg_set = true;
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

/*
 * Not a model of the hardware but the test's oracle for the ETB/ETF
 * copy-out: the longest run of RRD reads one CPU made within one stretch
 * of interrupts off (sinkN/stats rrd_irqoff_max, in bytes). The kernel's
 * own driver reads the whole SRAM under a spinlock with interrupts off
 * (coresight-tmc-etf.c: tmc_etb_dump_hw(), reached from
 * tmc_disable_etf_sink() with drvdata->spinlock taken by
 * spin_lock_irqsave()); tracebuf's
 * rule is stricter: at most TB_CS_COPY_CHUNK (1 KiB) per stretch
 * (tb_cs_cycle_run()). A stretch ends when interrupts are enabled on
 * that CPU: the first read of a run queues an irq_work on its CPU, whose
 * handler (hard interrupt context: it runs only once interrupts are on
 * there) bumps that CPU's generation. A late handler only makes a run
 * look longer, never shorter, so the check can fail spuriously but not
 * pass wrongly. A read with interrupts on ends the run.
 */
static DEFINE_PER_CPU(unsigned long, csemu_irqon_gen);

static void csemu_irqon(struct irq_work *w)
{
	this_cpu_inc(csemu_irqon_gen);
}

static DEFINE_PER_CPU(struct irq_work, csemu_irqon_work);

/*
 * Module init, before any access. At run time: with a static per-CPU
 * initializer the handler was NULL when it ran (6.1, arm64 guest).
 */
void csemu_tmc_init(void)
{
	unsigned int cpu;

	for_each_possible_cpu(cpu)
		per_cpu(csemu_irqon_work, cpu) = IRQ_WORK_INIT_HARD(csemu_irqon);
}

/* Under csemu_lock, after an RRD read; irqoff: the caller's interrupts were off. */
void csemu_rrd_note(struct csemu_sink *k, bool irqoff)
{
	unsigned int cpu = smp_processor_id();
	unsigned long gen = per_cpu(csemu_irqon_gen, cpu);

	if (k->type == TRACEBUF_CS_SINK_ETR)
		return;
	if (!irqoff) {
		k->rrd_run = 0;
		return;
	}
	if (!k->rrd_run || k->rrd_cpu != cpu || k->rrd_gen != gen) {
		k->rrd_run = 0;
		k->rrd_cpu = cpu;
		k->rrd_gen = gen;
		irq_work_queue(this_cpu_ptr(&csemu_irqon_work));
	}
	k->rrd_run++;
	k->rrd_run_max = max(k->rrd_run_max, k->rrd_run);
}

/* No handler left running or queued: module exit, after tracebuf let go. */
void csemu_tmc_exit(void)
{
	unsigned int cpu;

	for_each_possible_cpu(cpu)
		irq_work_sync(per_cpu_ptr(&csemu_irqon_work, cpu));
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
		return csemu_soc400 ? CSEMU_TMC_PART_ETR_400 : CSEMU_TMC_PART_ETR;
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

u32 csemu_tmc_read(struct csemu_sink *k, u32 off)
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

