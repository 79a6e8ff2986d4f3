// SPDX-License-Identifier: GPL-2.0
/*
 * tb_csemu: funnels and replicators, and how trace travels the ATB graph
 * from an ETM to the TMCs (see csemu.h).
 */
#include <linux/pm_runtime.h>

#include "csemu.h"

static bool csemu_etf_fifo(const struct csemu_sink *k)
{
	return k->type == TRACEBUF_CS_SINK_ETF && k->mode == TB_TMC_MODE_HWFIFO;
}

/*
 * Trace of source id arriving at slave port to.port of to.dst, as the
 * links pass it on:
 *  - a funnel passes a slave port's trace to its master port only while
 *    FUNCTL.EnS<port> is set (SoC-400 TRM, DDI0480, ATB funnel: every
 *    slave port is disabled at reset);
 *  - a replicator passes it to master port n unless IDFILTERn has the
 *    bit of its ID group set (bit g: IDs 0xg0..0xgf; DDI0480, ATB
 *    replicator);
 *  - a TMC in hardware FIFO mode (an ETF only, DDI0461) passes it on
 *    with its ID while capturing; in any other mode a TMC stores it
 *    (circular buffer), so an ETF in the wrong mode passes nothing;
 *  - other TMCs store it; a master port wired to nothing emulated (a
 *    TPIU) loses it.
 */
void csemu_deliver(struct csemu_port to, u8 id, const u8 *data, size_t n,
		   unsigned int depth)
{
	struct csemu_comp *c = to.dst;
	struct csemu_link *l;
	struct csemu_sink *k;
	unsigned int i;

	if (!c || depth > 8 || !n)
		return;
	switch (c->kind) {
	case CSEMU_KIND_FUNNEL:
		l = container_of(c, struct csemu_link, c);
		if (!(l->functl & BIT(to.port))) {
			l->blocked += n;
			return;
		}
		l->passed += n;
		csemu_deliver(c->out[0], id, data, n, depth + 1);
		return;
	case CSEMU_KIND_REPL:
		l = container_of(c, struct csemu_link, c);
		for (i = 0; i < 2; i++) {
			if (!c->out[i].dst)
				continue;	/* a TPIU, not emulated */
			if (l->idfilter[i] & BIT((id >> 4) & 7)) {
				l->blocked += n;
				continue;
			}
			l->passed += n;
			csemu_deliver(c->out[i], id, data, n, depth + 1);
		}
		return;
	case CSEMU_KIND_STATIC:
		/*
		 * No registers, nothing to enable: a static funnel merges its
		 * inputs onto its one output, a static replicator sends all
		 * to each output (coresight-funnel.c, coresight-replicator.c:
		 * the static ones have no enable or filter).
		 */
		l = container_of(c, struct csemu_link, c);
		/*
		 * Its device (ACPI topologies: csemu_acpi.c) runtime-suspended:
		 * a violation, and it passes nothing. The kernel holds a
		 * runtime PM reference on every device of a path while a
		 * session uses it, static links included
		 * (coresight-core.c: coresight_grab_device() and
		 * coresight_get_ref() on each node of the path); suspended,
		 * a static funnel's atclk is off (coresight-funnel.c:
		 * funnel_runtime_suspend()) and its power domain may be.
		 */
		if (c->dev && pm_runtime_suspended(c->dev)) {
			csemu_violation(c, CV_LINK_SUSPENDED);
			l->blocked += n;
			return;
		}
		l->passed += n;
		for (i = 0; i < 2; i++)
			csemu_deliver(c->out[i], id, data, n, depth + 1);
		return;
	case CSEMU_KIND_TMC:
		k = container_of(c, struct csemu_sink, c);
		if (csemu_etf_fifo(k)) {
			if (k->state != CSEMU_RUNNING) {
				k->blocked += n;
				return;
			}
			k->passed += n;
			csemu_deliver(c->out[0], id, data, n, depth + 1);
			return;
		}
		csemu_push(k, id, data, n);
		return;
	default:
		return;
	}
}

/*
 * Does trace from to reach a capturing TMC, the links' ports and filters
 * aside (a closed port drops trace, it does not stall the source)?
 */
bool csemu_capturing(struct csemu_port to, unsigned int depth)
{
	struct csemu_comp *c = to.dst;
	struct csemu_sink *k;

	if (!c || depth > 8)
		return false;
	switch (c->kind) {
	case CSEMU_KIND_FUNNEL:
		return csemu_capturing(c->out[0], depth + 1);
	case CSEMU_KIND_REPL:
	case CSEMU_KIND_STATIC:
		return csemu_capturing(c->out[0], depth + 1) ||
		       csemu_capturing(c->out[1], depth + 1);
	case CSEMU_KIND_TMC:
		k = container_of(c, struct csemu_sink, c);
		if (k->state != CSEMU_RUNNING)
			return false;
		return csemu_etf_fifo(k) ? csemu_capturing(c->out[0], depth + 1) : true;
	default:
		return false;
	}
}

/* ---- funnels and replicators (CoreSight SoC-400 TRM, DDI0480) ---- */

/*
 * The debug power domain went down (csemu_pwr.c): the link's registers
 * are back at their reset values when it comes up (DDI0480: funnel
 * FUNCTL 0x300, every slave port disabled; PRICTL 0; replicator
 * IDFILTER0/1 0x00, every ID passing to both master ports), its claim
 * tags clear and its software lock locked (CoreSight Architecture,
 * IHI0029: CLAIMSET/CLAIMCLR and LSR reset values). Under csemu_lock.
 */
void csemu_link_power_lost(struct csemu_link *l)
{
	l->functl = l->c.kind == CSEMU_KIND_FUNNEL ? CSEMU_FUNNEL_HT_RESET : 0;
	l->prictl = 0;
	l->idfilter[0] = 0;
	l->idfilter[1] = 0;
	l->c.claim = 0;
	l->c.locked = true;
}

/*
 * FUNCTL/PRICTL (funnel) and IDFILTER0/1 (replicator). Stricter than
 * the TRM, as the kernel's drivers never do otherwise: they are written
 * only while the self-hosted claim tag is set (coresight-funnel.c and
 * coresight-replicator.c claim before programming and disclaim after).
 */
void csemu_link_write(struct csemu_link *l, u32 off, u32 val)
{
	struct csemu_comp *c = &l->c;
	bool funnel = c->kind == CSEMU_KIND_FUNNEL;

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
	}
	if ((funnel && (off == TB_CS_FUNNEL_FUNCTL || off == TB_CS_FUNNEL_PRICTL)) ||
	    (!funnel && (off == TB_CS_REPL_IDFILTER(0) || off == TB_CS_REPL_IDFILTER(1)))) {
		if (!(c->claim & TB_CS_CLAIM_SELF_HOSTED))
			csemu_violation(c, CV_LINK_CLAIM);
		if (!funnel)
			l->idfilter[off / 4] = val & TB_CS_REPL_FILTER_ALL;
		else if (off == TB_CS_FUNNEL_FUNCTL)
			l->functl = val & (TB_CS_FUNNEL_ENS_MASK | TB_CS_FUNNEL_HOLDTIME_MASK);
		else
			l->prictl = val & GENMASK(23, 0);
		return;
	}
	if (csemu_mgmt_ro(off))
		csemu_violation(c, CV_READONLY);
}

u32 csemu_link_read(struct csemu_link *l, u32 off)
{
	bool funnel = l->c.kind == CSEMU_KIND_FUNNEL;
	u32 v;

	switch (off) {
	case TB_CS_DEVID:	/* PORTCOUNT: slave ports (funnel), master ports */
		return funnel ? TB_CS_MAX_PORTS : 2;
	case TB_CS_DEVTYPE:
		return funnel ? CSEMU_FUNNEL_DEVTYPE : CSEMU_REPL_DEVTYPE;
	case TB_CS_DEVARCH:
		return 0;
	}
	if (funnel && off == TB_CS_FUNNEL_FUNCTL)
		return l->functl;
	if (funnel && off == TB_CS_FUNNEL_PRICTL)
		return l->prictl;
	if (!funnel && off < 8)
		return l->idfilter[off / 4];
	if (csemu_mgmt_read(&l->c, off, funnel ? CSEMU_FUNNEL_PART : CSEMU_REPL_PART, &v))
		return v;
	return 0;
}

