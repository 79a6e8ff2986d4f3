// SPDX-License-Identifier: GPL-2.0
/*
 * Walking an ETM's path: its links, between the ETM and its sink, are
 * opened from the sink towards the source before the ETM is enabled and
 * closed from the source towards the sink after it is disabled, as
 * coresight_enable_path() and coresight_disable_path() do
 * (coresight-core.c). The path itself is built at probe from the
 * platform's ATB graph (coresight.c, tb_cs_build_path()).
 *
 * Links are shared: a funnel port by every ETM behind it, a replicator's
 * ID group by ETMs of one group, an ETF by every path through it. Each
 * link type counts its own users (struct tb_cs_dev); tb_cs_link_lock
 * serialises them across sessions and sinks, and is taken with
 * interrupts off under a session's trace_lock (a raw spinlock).
 *
 * test_skip_link= (tests only, root): the type of link ("funnel",
 * "replicator", "etf") whose enable is skipped, to show that the trace
 * then never reaches the sink; test_skip_relink=Y: no reset of idle
 * links at a session's power-up, to show the state a power domain lost.
 */
#include <linux/kernel.h>
#include <linux/moduleparam.h>
#include <linux/sysfs.h>
#include <linux/spinlock.h>
#include <linux/string.h>

#include "cs.h"

/* Link users and the MMIO that follows them; nests inside s->trace_lock. */
static DEFINE_RAW_SPINLOCK(tb_cs_link_lock);

/* Which link type's enable is skipped: "none" or a tb_cs_link_ops name. */
static const char * const tb_cs_skip_names[] = { "none", "funnel", "replicator", "etf" };
static int tb_cs_skip;

static int tb_cs_skip_set(const char *val, const struct kernel_param *kp)
{
	unsigned int i;

	for (i = 0; i < ARRAY_SIZE(tb_cs_skip_names); i++)
		if (sysfs_streq(val, tb_cs_skip_names[i])) {
			WRITE_ONCE(tb_cs_skip, i);
			return 0;
		}
	return -EINVAL;
}

static int tb_cs_skip_get(char *buf, const struct kernel_param *kp)
{
	return sysfs_emit(buf, "%s\n", tb_cs_skip_names[READ_ONCE(tb_cs_skip)]);
}

static const struct kernel_param_ops tb_cs_skip_ops = {
	.set	= tb_cs_skip_set,
	.get	= tb_cs_skip_get,
};
module_param_cb(test_skip_link, &tb_cs_skip_ops, NULL, 0600);
MODULE_PARM_DESC(test_skip_link, "tests only: never enable links of this type (none, funnel, replicator, etf)");

/* Tests only: no reset of idle links at a session's power-up (tb_cs_path_reset_idle()). */
static bool tb_cs_skip_relink;
module_param_named(test_skip_relink, tb_cs_skip_relink, bool, 0600);
MODULE_PARM_DESC(test_skip_relink, "tests only: do not reset idle links when a session powers them up");

static bool tb_cs_skipped(const struct tb_cs_link_ops *ops)
{
	int skip = READ_ONCE(tb_cs_skip);

	return skip && !strcmp(tb_cs_skip_names[skip], ops->name);
}

static void tb_cs_hops_off(struct tb_cs_etm *e, unsigned int from, unsigned int to)
{
	unsigned int i;

	/* Source side first. */
	for (i = from; i < to; i++) {
		const struct tb_cs_hop *h = &e->path[i];

		if (h->d->link && !tb_cs_skipped(h->d->link))
			h->d->link->disable(h->d, h->in, h->out, e->caps.trace_id);
	}
}

int tb_cs_path_enable(struct tb_cs_etm *e)
{
	unsigned long flags;
	unsigned int i;
	int ret = 0;

	raw_spin_lock_irqsave(&tb_cs_link_lock, flags);
	/* Sink side first. */
	for (i = e->nr_hops; i-- > 0;) {
		const struct tb_cs_hop *h = &e->path[i];

		if (!h->d->link || tb_cs_skipped(h->d->link))
			continue;
		ret = h->d->link->enable(h->d, h->in, h->out, e->caps.trace_id);
		if (ret) {
			tb_cs_hops_off(e, i + 1, e->nr_hops);
			break;
		}
	}
	raw_spin_unlock_irqrestore(&tb_cs_link_lock, flags);
	return ret;
}

void tb_cs_path_disable(struct tb_cs_etm *e)
{
	unsigned long flags;

	raw_spin_lock_irqsave(&tb_cs_link_lock, flags);
	tb_cs_hops_off(e, 0, e->nr_hops);
	raw_spin_unlock_irqrestore(&tb_cs_link_lock, flags);
}

/* Does no path use the link now (under tb_cs_link_lock)? */
static bool tb_cs_link_idle(const struct tb_cs_dev *d)
{
	unsigned int i;

	if (d->users)
		return false;
	for (i = 0; i < TB_CS_MAX_PORTS; i++)
		if (d->in_users[i])
			return false;
	for (i = 0; i < 8; i++)
		if (d->grp_users[0][i] || d->grp_users[1][i])
			return false;
	return true;
}

/*
 * Once a session's runtime PM references hold e's links powered: each
 * link no path uses is reset again (a replicator's filters closed, as at
 * probe). Its power domain may have been off since the last user, and a
 * domain that powers down loses its components' state (every filter
 * back at 0x00: every ID passing to both master ports, the claim tag
 * clear), which the enable would otherwise take as another agent's.
 * A link in use was kept powered by its user.
 */
void tb_cs_path_reset_idle(struct tb_cs_etm *e)
{
	unsigned long flags;
	unsigned int i;

	if (READ_ONCE(tb_cs_skip_relink))
		return;
	raw_spin_lock_irqsave(&tb_cs_link_lock, flags);
	for (i = 0; i < e->nr_hops; i++) {
		struct tb_cs_dev *d = e->path[i].d;

		if (d->link && d->link->reset && tb_cs_link_idle(d))
			d->link->reset(d);
	}
	raw_spin_unlock_irqrestore(&tb_cs_link_lock, flags);
}

/* At probe, before any path is used. */
void tb_cs_link_reset(struct tb_cs_dev *d)
{
	unsigned long flags;

	if (!d->link || !d->link->reset)
		return;
	raw_spin_lock_irqsave(&tb_cs_link_lock, flags);
	d->link->reset(d);
	raw_spin_unlock_irqrestore(&tb_cs_link_lock, flags);
}
