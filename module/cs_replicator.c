// SPDX-License-Identifier: GPL-2.0
/*
 * A programmable ATB replicator (CoreSight SoC-400 TRM, DDI0480: ATB
 * replicator, IDFILTER0/IDFILTER1: bit g set blocks trace IDs 0xg0 to
 * 0xgf on master port 0/1). As coresight-replicator.c: at probe, when
 * the claim succeeds, both filters are set to 0xff (nothing passes) and
 * the replicator disclaimed (dynamic_replicator_reset()); it is claimed
 * while any filter is open. Unlike the kernel, which clears a whole
 * filter register, only the groups of the trace IDs in use are opened:
 * trace of other sources never reaches the other master port.
 */
#include <linux/bits.h>

#include "cs.h"

static void tb_replicator_reset(struct tb_cs_dev *d)
{
	const struct tb_cs_io *io = d->io;

	tb_cs_unlock(io, d->base);
	if (!tb_cs_claim(io, d->base)) {
		io->write(d->base, TB_CS_REPL_IDFILTER(0), TB_CS_REPL_FILTER_ALL);
		io->write(d->base, TB_CS_REPL_IDFILTER(1), TB_CS_REPL_FILTER_ALL);
		tb_cs_disclaim(io, d->base);
	}
	tb_cs_lock(io, d->base);
}

static int tb_replicator_enable(struct tb_cs_dev *d, unsigned int in, unsigned int out, u8 id)
{
	const struct tb_cs_io *io = d->io;
	unsigned int g = (id >> 4) & 7;
	u32 f0, f1;
	int ret = 0;

	if (out > 1)
		return -EINVAL;
	if (d->grp_users[out][g]++)
		return 0;
	tb_cs_unlock(io, d->base);
	f0 = io->read(d->base, TB_CS_REPL_IDFILTER(0)) & TB_CS_REPL_FILTER_ALL;
	f1 = io->read(d->base, TB_CS_REPL_IDFILTER(1)) & TB_CS_REPL_FILTER_ALL;
	/* Claimed while any filter lets something through. */
	if (f0 == TB_CS_REPL_FILTER_ALL && f1 == TB_CS_REPL_FILTER_ALL)
		ret = tb_cs_claim(io, d->base);
	if (!ret)
		io->write(d->base, TB_CS_REPL_IDFILTER(out),
			  (out ? f1 : f0) & ~BIT(g));
	tb_cs_lock(io, d->base);
	if (ret)
		d->grp_users[out][g]--;
	return ret;
}

static void tb_replicator_disable(struct tb_cs_dev *d, unsigned int in, unsigned int out, u8 id)
{
	const struct tb_cs_io *io = d->io;
	unsigned int g = (id >> 4) & 7;
	u32 f;

	if (out > 1 || !d->grp_users[out][g] || --d->grp_users[out][g])
		return;
	tb_cs_unlock(io, d->base);
	f = io->read(d->base, TB_CS_REPL_IDFILTER(out)) | BIT(g);
	io->write(d->base, TB_CS_REPL_IDFILTER(out), f);
	if ((io->read(d->base, TB_CS_REPL_IDFILTER(0)) & TB_CS_REPL_FILTER_ALL) ==
	    TB_CS_REPL_FILTER_ALL &&
	    (io->read(d->base, TB_CS_REPL_IDFILTER(1)) & TB_CS_REPL_FILTER_ALL) ==
	    TB_CS_REPL_FILTER_ALL)
		tb_cs_disclaim(io, d->base);
	tb_cs_lock(io, d->base);
}

const struct tb_cs_link_ops tb_cs_replicator_ops = {
	.name		= "replicator",
	.reset		= tb_replicator_reset,
	.enable		= tb_replicator_enable,
	.disable	= tb_replicator_disable,
};
