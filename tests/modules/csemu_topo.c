// SPDX-License-Identifier: GPL-2.0
/*
 * tb_csemu: the topologies, as components and ATB wires, and what
 * tracebuf is told about them (struct tb_cs_platform; see csemu.h).
 */
#include "csemu.h"

/* What tracebuf is told about c: the next descriptor. */
static struct tb_cs_desc *csemu_describe(struct csemu_comp *c, enum tb_cs_kind kind)
{
	struct tb_cs_desc *d = &csemu.desc[csemu.nr_desc];

	c->index = csemu.nr_desc++;
	d->kind = kind;
	d->c.base = (__force void __iomem *)c;
	d->c.name = c->name;
	/* The firmware properties the knobs stand for. */
	d->skip_power_up = kind == TB_CS_KIND_ETM && csemu_skip_power_up;
	if (kind == TB_CS_KIND_TMC && csemu_max_burst >= 0) {
		d->max_burst_set = true;
		d->max_burst = csemu_max_burst;
	}
	return d;
}

/* An ATB wire: master port sp of src to slave port dp of dst. */
static void csemu_wire(struct csemu_comp *src, unsigned int sp, struct csemu_comp *dst,
		       unsigned int dp)
{
	src->out[sp] = (struct csemu_port){ dst, dp };
	csemu.conns[csemu.nr_conns++] = (struct tb_cs_conn){
		.src = src->index, .src_port = sp, .dst = dst->index, .dst_port = dp,
	};
}

static void csemu_link_init(struct csemu_link *l, enum csemu_kind kind, const char *name)
{
	l->c.kind = kind;
	l->c.locked = true;
	strscpy(l->c.name, name, sizeof(l->c.name));
	if (kind == CSEMU_KIND_FUNNEL)
		l->functl = CSEMU_FUNNEL_HT_RESET;
	/* IDFILTERn reset to 0: everything passes until software filters. */
	csemu_describe(&l->c, kind == CSEMU_KIND_FUNNEL ? TB_CS_KIND_FUNNEL :
			TB_CS_KIND_REPLICATOR);
}

/* The TMCs trace from port to can reach, as wired (links open or not). */
static void csemu_reach(struct csemu_port to, unsigned int cpu, unsigned int depth)
{
	struct csemu_comp *c = to.dst;

	if (!c || depth > 8)
		return;
	if (c->kind == CSEMU_KIND_TMC) {
		struct csemu_sink *k = container_of(c, struct csemu_sink, c);

		cpumask_set_cpu(cpu, &k->feeders);
		if (!csemu.etms[cpu].sink || (k->type == TRACEBUF_CS_SINK_ETR &&
					      csemu.etms[cpu].sink->type != TRACEBUF_CS_SINK_ETR))
			csemu.etms[cpu].sink = k;
	}
	csemu_reach(c->out[0], cpu, depth + 1);
	if (c->kind == CSEMU_KIND_REPL)
		csemu_reach(c->out[1], cpu, depth + 1);
}

/*
 * Juno r2's CoreSight ATB graph, as arch/arm64/boot/dts/arm/juno-base.dtsi,
 * juno-cs-r1r2.dtsi and juno-r2.dts (linux 6.1) describe it: the ETMs of
 * cluster 0 (Cortex-A72) and cluster 1 (Cortex-A53) into their cluster
 * funnels, those into the main funnel (cssys0), ETF0 (a link in hardware
 * FIFO mode), the cssys2 funnel (ETF1 behind cssys1 on its port 1), the
 * replicator, whose port 0 goes to the TPIU (not emulated) and port 1 to
 * the ETR (scatter-gather, behind an SMMU on silicon). The guest's CPU
 * 0 is etm0 (A72_0), CPU 1 is etm2 (A53_0): both cluster funnels carry
 * trace; further CPUs take the remaining ETMs.
 */
static const struct {
	const char *name;
	unsigned int funnel, port;	/* cluster funnel (0, 1) and its slave port */
} csemu_juno_etms[] = {
	{ "etm@22040000", 0, 0 }, { "etm@23040000", 1, 0 }, { "etm@22140000", 0, 1 },
	{ "etm@23140000", 1, 1 }, { "etm@23240000", 1, 2 }, { "etm@23340000", 1, 3 },
};

enum { JUNO_ETR, JUNO_ETF0, JUNO_ETF1, JUNO_NR_SINKS };
enum { JUNO_CL0, JUNO_CL1, JUNO_MAIN, JUNO_CSYS1, JUNO_CSYS2, JUNO_REPL, JUNO_NR_LINKS };

static int csemu_build_juno(void)
{
	static const char * const sinks[] = { "etr@20070000", "etf@20010000", "etf@20140000" };
	static const char * const links[] = {
		"funnel@220c0000", "funnel@230c0000", "funnel@20040000",
		"funnel@20130000", "funnel@20150000", "replicator@20120000",
	};
	struct csemu_comp *l[JUNO_NR_LINKS], *k[JUNO_NR_SINKS];
	unsigned int i, cpu, n = 0;
	int ret;

	for (i = 0; i < JUNO_NR_SINKS; i++) {
		struct csemu_sink *t = &csemu.sinks[i];
		struct tb_cs_desc *d;

		ret = csemu_sink_init(t, i, i == JUNO_ETR ? TRACEBUF_CS_SINK_ETR :
				      TRACEBUF_CS_SINK_ETF, sinks[i]);
		if (ret)
			return ret;
		d = csemu_describe(&t->c, TB_CS_KIND_TMC);
		d->c.dev = &t->pdev->dev;
		d->scatter_gather = t->sg_ok;
		k[i] = &t->c;
	}
	for (i = 0; i < JUNO_NR_LINKS; i++) {
		csemu_link_init(&csemu.links[i], i == JUNO_REPL ? CSEMU_KIND_REPL :
				CSEMU_KIND_FUNNEL, links[i]);
		l[i] = &csemu.links[i].c;
	}
	for_each_possible_cpu(cpu) {
		struct csemu_etm *e = &csemu.etms[cpu];

		csemu_etm_init(e, cpu);
		strscpy(e->c.name, csemu_juno_etms[n].name, sizeof(e->c.name));
		csemu_describe(&e->c, TB_CS_KIND_ETM)->cpu = cpu;
		csemu_wire(&e->c, 0, l[csemu_juno_etms[n].funnel], csemu_juno_etms[n].port);
		n++;
	}
	csemu_wire(l[JUNO_CL0], 0, l[JUNO_MAIN], 0);
	csemu_wire(l[JUNO_CL1], 0, l[JUNO_MAIN], 1);
	csemu_wire(l[JUNO_MAIN], 0, k[JUNO_ETF0], 0);
	csemu_wire(k[JUNO_ETF0], 0, l[JUNO_CSYS2], 0);
	csemu_wire(l[JUNO_CSYS1], 0, k[JUNO_ETF1], 0);
	csemu_wire(k[JUNO_ETF1], 0, l[JUNO_CSYS2], 1);
	csemu_wire(l[JUNO_CSYS2], 0, l[JUNO_REPL], 0);
	/* Replicator port 0: the TPIU, not emulated. */
	csemu_wire(l[JUNO_REPL], 1, k[JUNO_ETR], 0);
	return 0;
}

/* stale_claim: a kernel before a kexec left every self-hosted claim set. */
static void csemu_claim_all(void)
{
	unsigned int cpu, i;

	for_each_possible_cpu(cpu)
		csemu.etms[cpu].c.claim |= TB_CS_CLAIM_SELF_HOSTED;
	for (i = 0; i < csemu.nr_sinks; i++)
		csemu.sinks[i].c.claim |= TB_CS_CLAIM_SELF_HOSTED;
	for (i = 0; i < csemu.nr_links; i++)
		csemu.links[i].c.claim |= TB_CS_CLAIM_SELF_HOSTED;
}

/*
 * left_running: the ETR capturing, as firmware or a kernel before a
 * kexec left it: a flat circular buffer of its own, formatter on,
 * claimed self-hosted. Nothing feeds it until an ETM is enabled, but it
 * would write into memory tracebuf does not own.
 */
static int csemu_leave_running(struct csemu_sink *k)
{
	u64 pa;

	if (k->type != TRACEBUF_CS_SINK_ETR)
		return 0;
	csemu.old_buf = alloc_pages(GFP_KERNEL | __GFP_ZERO, CSEMU_OLD_BUF_ORDER);
	if (!csemu.old_buf)
		return -ENOMEM;
	pa = page_to_phys(csemu.old_buf);
	k->rsz = (PAGE_SIZE << CSEMU_OLD_BUF_ORDER) / 4;
	k->mode = TB_TMC_MODE_CIRCULAR;
	k->dbalo = lower_32_bits(pa);
	k->dbahi = upper_32_bits(pa);
	k->rwp = k->dbalo;
	k->rwphi = k->dbahi;
	k->axictl = TB_TMC_AXICTL_PROT_CTL_B1 | TB_TMC_AXICTL_CACHE |
		    TB_TMC_AXICTL_WR_BURST(TB_TMC_AXICTL_BURST_16);
	k->ffcr = TB_TMC_FFCR_ENFT | TB_TMC_FFCR_ENTI | TB_TMC_FFCR_FONFLIN;
	k->c.claim |= TB_CS_CLAIM_SELF_HOSTED;
	k->ctl = TB_TMC_CTL_CAPTEN;
	csemu_sink_start(k);
	return 0;
}

/*
 * Qualcomm MSM8916 (Snapdragon 410), as arch/arm64/boot/dts/qcom/
 * msm8916.dtsi (linux 6.1) describes it: the four Cortex-A53 ETMs into
 * the APSS funnel (funnel@841000, slave ports 0..3), that into funnel0
 * (funnel@821000, port 4; the STM on port 7 is not emulated), the ETF
 * (etf@825000), the replicator (replicator@824000) whose master port 0
 * goes to the ETR (etr@826000, no arm,scatter-gather: a flat buffer;
 * SoC-600 pointer behaviour, our choice: the DT does not say) and port
 * 1 to the TPIU (not emulated). The ETMs are described with
 * arm,coresight-loses-context-with-cpu there; the emulated cores never
 * power down, so it changes nothing here.
 */
static const char * const csemu_msm8916_etms[] = {
	"etm@85c000", "etm@85d000", "etm@85e000", "etm@85f000",
};

enum { MSM_ETR, MSM_ETF, MSM_NR_SINKS };
enum { MSM_APSS, MSM_FUNNEL0, MSM_REPL, MSM_NR_LINKS };

static int csemu_build_msm8916(void)
{
	static const char * const sinks[] = { "etr@826000", "etf@825000" };
	static const char * const links[] = {
		"funnel@841000", "funnel@821000", "replicator@824000",
	};
	struct csemu_comp *l[MSM_NR_LINKS], *k[MSM_NR_SINKS];
	unsigned int i, cpu, n = 0;
	int ret;

	for (i = 0; i < MSM_NR_SINKS; i++) {
		struct csemu_sink *t = &csemu.sinks[i];
		struct tb_cs_desc *d;

		ret = csemu_sink_init(t, i, i == MSM_ETR ? TRACEBUF_CS_SINK_ETR :
				      TRACEBUF_CS_SINK_ETF, sinks[i]);
		if (ret)
			return ret;
		t->sg_ok = false;	/* no arm,scatter-gather: DEVID.NOSCAT */
		d = csemu_describe(&t->c, TB_CS_KIND_TMC);
		d->c.dev = &t->pdev->dev;
		k[i] = &t->c;
	}
	for (i = 0; i < MSM_NR_LINKS; i++) {
		csemu_link_init(&csemu.links[i], i == MSM_REPL ? CSEMU_KIND_REPL :
				CSEMU_KIND_FUNNEL, links[i]);
		l[i] = &csemu.links[i].c;
	}
	for_each_possible_cpu(cpu) {
		struct csemu_etm *e = &csemu.etms[cpu];

		csemu_etm_init(e, cpu);
		strscpy(e->c.name, csemu_msm8916_etms[n], sizeof(e->c.name));
		csemu_describe(&e->c, TB_CS_KIND_ETM)->cpu = cpu;
		csemu_wire(&e->c, 0, l[MSM_APSS], n);
		n++;
	}
	csemu_wire(l[MSM_APSS], 0, l[MSM_FUNNEL0], 4);
	csemu_wire(l[MSM_FUNNEL0], 0, k[MSM_ETF], 0);
	csemu_wire(k[MSM_ETF], 0, l[MSM_REPL], 0);
	csemu_wire(l[MSM_REPL], 0, k[MSM_ETR], 0);
	/* Replicator port 1: the TPIU, not emulated. */
	return 0;
}

/* shared: every ETM straight into sink 0; percpu: ETM i into sink i. */
static int csemu_build_flat(void)
{
	unsigned int cpu, i;
	int ret;

	for (i = 0; i < csemu.nr_sinks; i++) {
		struct csemu_sink *k = &csemu.sinks[i];
		struct tb_cs_desc *d;

		ret = csemu_sink_init(k, i, csemu.sink_type, NULL);
		if (ret)
			return ret;
		d = csemu_describe(&k->c, TB_CS_KIND_TMC);
		d->c.dev = &k->pdev->dev;
		d->scatter_gather = k->sg_ok;
	}
	for_each_possible_cpu(cpu) {
		struct csemu_etm *e = &csemu.etms[cpu];

		csemu_etm_init(e, cpu);
		csemu_describe(&e->c, TB_CS_KIND_ETM)->cpu = cpu;
		csemu_wire(&e->c, 0, &csemu.sinks[csemu.topo == CSEMU_TOPO_PERCPU ? cpu : 0].c, 0);
	}
	return 0;
}

int csemu_build(void)
{
	unsigned int cpu, n;
	int ret;

	switch (csemu.topo) {
	case CSEMU_TOPO_JUNO:
		if (num_possible_cpus() > ARRAY_SIZE(csemu_juno_etms)) {
			pr_err("tb_csemu: topology=juno has 6 ETMs, this guest %u CPUs\n",
			       num_possible_cpus());
			return -EINVAL;
		}
		csemu.nr_sinks = JUNO_NR_SINKS;
		csemu.nr_links = JUNO_NR_LINKS;
		break;
	case CSEMU_TOPO_MSM8916:
		if (num_possible_cpus() > ARRAY_SIZE(csemu_msm8916_etms)) {
			pr_err("tb_csemu: topology=msm8916 has 4 ETMs, this guest %u CPUs\n",
			       num_possible_cpus());
			return -EINVAL;
		}
		csemu.nr_sinks = MSM_NR_SINKS;
		csemu.nr_links = MSM_NR_LINKS;
		break;
	case CSEMU_TOPO_PERCPU:
		csemu.nr_sinks = nr_cpu_ids;
		break;
	default:
		csemu.nr_sinks = 1;
		break;
	}
	n = csemu.nr_sinks + csemu.nr_links + num_possible_cpus();
	csemu.etms = kvcalloc(nr_cpu_ids, sizeof(*csemu.etms), GFP_KERNEL);
	csemu.sinks = kvcalloc(csemu.nr_sinks, sizeof(*csemu.sinks), GFP_KERNEL);
	csemu.links = kvcalloc(max(csemu.nr_links, 1U), sizeof(*csemu.links), GFP_KERNEL);
	csemu.desc = kcalloc(n, sizeof(*csemu.desc), GFP_KERNEL);
	csemu.conns = kcalloc(n + 8, sizeof(*csemu.conns), GFP_KERNEL);
	if (!csemu.etms || !csemu.sinks || !csemu.links || !csemu.desc || !csemu.conns)
		return -ENOMEM;
	if (csemu_owned) {
		ret = platform_driver_register(&csemu_owner_drv);
		if (ret)
			return ret;
		csemu.driver_registered = true;
	}
	switch (csemu.topo) {
	case CSEMU_TOPO_JUNO:
		ret = csemu_build_juno();
		break;
	case CSEMU_TOPO_MSM8916:
		ret = csemu_build_msm8916();
		break;
	default:
		ret = csemu_build_flat();
		break;
	}
	if (ret)
		return ret;
	for_each_possible_cpu(cpu)
		csemu_reach(csemu.etms[cpu].c.out[0], cpu, 0);
	if (csemu_stale_claim)
		csemu_claim_all();
	if (csemu_left_running) {
		ret = csemu_leave_running(&csemu.sinks[0]);
		if (ret)
			return ret;
	}
	csemu.plat.name = "tb_csemu";
	csemu.plat.owner = THIS_MODULE;
	csemu.plat.io = &csemu_io;
	csemu.plat.nr_comps = csemu.nr_desc;
	csemu.plat.comps = csemu.desc;
	csemu.plat.nr_conns = csemu.nr_conns;
	csemu.plat.conns = csemu.conns;
	return 0;
}

