// SPDX-License-Identifier: GPL-2.0
/*
 * A programmable ATB funnel (CoreSight SoC-400 TRM, DDI0480: ATB funnel,
 * Funnel Control Register FUNCTL: EnS<n> enables slave port n, HT the
 * hold time; every slave port is disabled at reset, so no trace passes
 * until software opens it). As dynamic_funnel_enable_hw() and
 * dynamic_funnel_disable_hw() in coresight-funnel.c: claim on the first
 * port opened, read-modify-write of the port bit with the hold time set
 * to 7, PRICTL written; disclaim when the last port closes.
 */
#include <linux/bits.h>

#include "cs.h"

static int tb_funnel_enable(struct tb_cs_dev *d, unsigned int in, unsigned int out, u8 id)
{
	const struct tb_cs_io *io = d->io;
	u32 functl;
	int ret = 0;

	if (in >= TB_CS_MAX_PORTS)
		return -EINVAL;
	if (d->in_users[in]++)
		return 0;
	tb_cs_unlock(io, d->base);
	functl = io->read(d->base, TB_CS_FUNNEL_FUNCTL);
	/* Claimed while any of its ports is open. */
	if (!(functl & TB_CS_FUNNEL_ENS_MASK)) {
		ret = tb_cs_claim(io, d->base);
		if (ret)
			goto out;
	}
	functl &= ~TB_CS_FUNNEL_HOLDTIME_MASK;
	functl |= TB_CS_FUNNEL_HOLDTIME | BIT(in);
	io->write(d->base, TB_CS_FUNNEL_FUNCTL, functl);
	io->write(d->base, TB_CS_FUNNEL_PRICTL, 0);
out:
	tb_cs_lock(io, d->base);
	if (ret)
		d->in_users[in]--;
	return ret;
}

static void tb_funnel_disable(struct tb_cs_dev *d, unsigned int in, unsigned int out, u8 id)
{
	const struct tb_cs_io *io = d->io;
	u32 functl;

	if (in >= TB_CS_MAX_PORTS || !d->in_users[in] || --d->in_users[in])
		return;
	tb_cs_unlock(io, d->base);
	functl = io->read(d->base, TB_CS_FUNNEL_FUNCTL) & ~BIT(in);
	io->write(d->base, TB_CS_FUNNEL_FUNCTL, functl);
	if (!(functl & TB_CS_FUNNEL_ENS_MASK))
		tb_cs_disclaim(io, d->base);
	tb_cs_lock(io, d->base);
}

const struct tb_cs_link_ops tb_cs_funnel_ops = {
	.name		= "funnel",
	.enable		= tb_funnel_enable,
	.disable	= tb_funnel_disable,
};
