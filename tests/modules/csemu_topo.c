// SPDX-License-Identifier: GPL-2.0
/*
 * tb_csemu: the topologies, as components and ATB wires, and what
 * tracebuf is told about them (struct tb_cs_platform; see csemu.h).
 */
#include <linux/of.h>
#include <linux/of_graph.h>

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
	d->loses_context = kind == TB_CS_KIND_ETM && csemu_loses_context;
	if (kind == TB_CS_KIND_TMC && csemu_max_burst >= 0) {
		d->max_burst_set = true;
		d->max_burst = csemu_max_burst;
	}
	return d;
}

/*
 * An ATB wire: master port sp of src to slave port dp of dst; and, where
 * the emulator describes the topology to tracebuf itself (not a
 * device-tree SoC, which tracebuf finds on its own), the connection.
 */
void csemu_wire(struct csemu_comp *src, unsigned int sp, struct csemu_comp *dst,
		unsigned int dp, bool describe)
{
	src->out[sp] = (struct csemu_port){ dst, dp };
	if (describe)
		csemu.conns[csemu.nr_conns++] = (struct tb_cs_conn){
			.src = src->index, .src_port = sp, .dst = dst->index, .dst_port = dp,
		};
}

void csemu_link_init(struct csemu_link *l, enum csemu_kind kind, const char *name)
{
	l->c.kind = kind;
	l->c.locked = true;
	strscpy(l->c.name, name, sizeof(l->c.name));
	if (kind == CSEMU_KIND_FUNNEL)
		l->functl = CSEMU_FUNNEL_HT_RESET;
	/* IDFILTERn reset to 0: everything passes until software filters. */
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
	if (c->kind == CSEMU_KIND_REPL || c->kind == CSEMU_KIND_STATIC)
		csemu_reach(c->out[1], cpu, depth + 1);
}

/*
 * The emulated SoCs come from the device tree the guest booted with
 * (tests/harness/csdt.sh): Juno r2's CoreSight as the kernel's own
 * juno-r2.dts, juno-base.dtsi and juno-cs-r1r2.dtsi describe it, and
 * Qualcomm MSM8916's as apq8016-sbc.dts and msm8916.dtsi do, each in a
 * container whose controller node (tracebuf,csemu-soc) names the SoC.
 * Every available component becomes a register file of its kind (a
 * TMC's configuration from its node name: etr, etf or etb), every ETM
 * traces the CPU its "cpu" phandle names, and every out-ports endpoint
 * is an ATB wire to the component and slave port its remote endpoint
 * belongs to, as coresight-platform.c reads the graph. TMCs come first
 * (ETRs first), then links, then ETMs, in what tracebuf is told.
 */
struct csemu_dt {
	struct device_node *soc;	/* the container */
	struct device_node *np[CSEMU_DT_MAX];
	struct csemu_comp *comp[CSEMU_DT_MAX];
	unsigned int n;
};

static struct csemu_dt *csemu_dt;

enum { DT_ETM, DT_TMC, DT_FUNNEL, DT_REPL, DT_OTHER };

static int csemu_dt_kind(struct device_node *np)
{
	if (of_device_is_compatible(np, "arm,coresight-etm4x"))
		return DT_ETM;
	if (of_device_is_compatible(np, "arm,coresight-tmc"))
		return DT_TMC;
	if (of_device_is_compatible(np, "arm,coresight-dynamic-funnel"))
		return DT_FUNNEL;
	if (of_device_is_compatible(np, "arm,coresight-dynamic-replicator"))
		return DT_REPL;
	return DT_OTHER;
}

static u32 csemu_dt_tmc_type(struct device_node *np)
{
	if (of_node_name_eq(np, "etf"))
		return TRACEBUF_CS_SINK_ETF;
	if (of_node_name_eq(np, "etb"))
		return TRACEBUF_CS_SINK_ETB;
	return TRACEBUF_CS_SINK_ETR;
}

/* The container of SoC soc (its controller's tracebuf,soc), or NULL. */
static struct device_node *csemu_dt_soc(const char *soc)
{
	struct device_node *np, *parent = NULL;
	const char *s;

	for_each_compatible_node(np, NULL, "tracebuf,csemu-soc")
		if (!of_property_read_string(np, "tracebuf,soc", &s) && !strcmp(s, soc)) {
			parent = of_get_parent(np);
			of_node_put(np);
			break;
		}
	return parent;
}

/* The guest CPU of an ETM node, or -1. */
static int csemu_dt_cpu(struct device_node *np)
{
	struct device_node *cpun = of_parse_phandle(np, "cpu", 0);
	int cpu = cpun ? of_cpu_node_to_id(cpun) : -1;

	of_node_put(cpun);
	return cpu;
}

/* Count what the SoC has: TMCs, links; every possible CPU needs its ETM. */
static int csemu_dt_count(const char *soc)
{
	struct device_node *np;
	cpumask_var_t have;
	unsigned int cpu;
	int cpu_id, ret = 0;

	csemu_dt = kzalloc(sizeof(*csemu_dt), GFP_KERNEL);
	if (!csemu_dt)
		return -ENOMEM;
	csemu_dt->soc = csemu_dt_soc(soc);
	if (!csemu_dt->soc) {
		pr_err("tb_csemu: topology=%s: no tracebuf,csemu-soc \"%s\" in the device tree (boot with tests/harness/csdt.sh's)\n",
		       soc, soc);
		return -ENODEV;
	}
	if (!zalloc_cpumask_var(&have, GFP_KERNEL))
		return -ENOMEM;
	for_each_available_child_of_node(csemu_dt->soc, np) {
		switch (csemu_dt_kind(np)) {
		case DT_ETM:
			cpu_id = csemu_dt_cpu(np);
			if (cpu_id >= 0 && cpu_id < nr_cpu_ids)
				cpumask_set_cpu(cpu_id, have);
			break;
		case DT_TMC:
			csemu.nr_sinks++;
			break;
		case DT_FUNNEL:
		case DT_REPL:
			csemu.nr_links++;
			break;
		default:
			break;
		}
	}
	for_each_possible_cpu(cpu)
		if (!cpumask_test_cpu(cpu, have)) {
			pr_err("tb_csemu: topology=%s: no ETM for CPU %u in the device tree\n",
			       soc, cpu);
			ret = -EINVAL;
			break;
		}
	free_cpumask_var(have);
	if (ret)
		return ret;
	return csemu.nr_sinks ? 0 : -ENODEV;
}

static int csemu_dt_add(struct device_node *np, struct csemu_comp *c)
{
	unsigned long flags;

	if (csemu_dt->n >= CSEMU_DT_MAX)
		return -E2BIG;
	/* csemu_dt_power_lost() may walk them: genpd's work, any time. */
	raw_spin_lock_irqsave(&csemu_lock, flags);
	csemu_dt->np[csemu_dt->n] = of_node_get(np);
	csemu_dt->comp[csemu_dt->n++] = c;
	raw_spin_unlock_irqrestore(&csemu_lock, flags);
	return 0;
}

/*
 * genpd powered the SoC's debug domain off (csemu_pwr.c): every funnel,
 * replicator and TMC in it loses its state (Juno r2 TRM, DDI0515, 2.6:
 * the debug domain holds the CoreSight system components; a powered-off
 * domain keeps no register state). The ETMs keep theirs: a trace unit's
 * programming is in its core's power domain (IHI0064, "Power domains"),
 * whose loss is modelled apart (loses_context=). Returns how many
 * components lost their state.
 */
unsigned int csemu_dt_power_lost(void)
{
	unsigned int i, n = 0;
	unsigned long flags;

	raw_spin_lock_irqsave(&csemu_lock, flags);
	for (i = 0; csemu_dt && i < csemu_dt->n; i++) {
		struct csemu_comp *c = csemu_dt->comp[i];

		if (!c->pd)
			continue;
		switch (c->kind) {
		case CSEMU_KIND_FUNNEL:
		case CSEMU_KIND_REPL:
			csemu_link_power_lost(container_of(c, struct csemu_link, c));
			n++;
			break;
		case CSEMU_KIND_TMC:
			csemu_sink_power_lost(container_of(c, struct csemu_sink, c));
			n++;
			break;
		default:
			break;
		}
	}
	raw_spin_unlock_irqrestore(&csemu_lock, flags);
	return n;
}

static struct csemu_comp *csemu_dt_comp(struct device_node *np)
{
	unsigned int i;

	for (i = 0; i < csemu_dt->n; i++)
		if (csemu_dt->np[i] == np)
			return csemu_dt->comp[i];
	return NULL;
}

/*
 * tb_cs_platform.of_map: the base tracebuf's accessors get for a node
 * it found (the component itself), as ioremap() of its reg would be.
 */
static void __iomem *csemu_dt_map(struct device_node *np)
{
	return (__force void __iomem *)csemu_dt_comp(np);
}

/* An endpoint's port number (its port's reg) and the component it is in. */
static struct device_node *csemu_dt_ep_owner(struct device_node *ep, u32 *port)
{
	struct device_node *np = of_get_parent(ep);

	*port = 0;
	if (!np)
		return NULL;
	of_property_read_u32(np, "reg", port);
	np = of_get_next_parent(np);
	if (np && (of_node_name_eq(np, "in-ports") || of_node_name_eq(np, "out-ports")))
		np = of_get_next_parent(np);
	return np;
}

/* The ATB wires out of component i: its out-ports endpoints. */
static void csemu_dt_wires(unsigned int i)
{
	struct device_node *ports, *port, *ep, *rep, *owner;
	struct csemu_comp *dst;
	u32 sp, dp;

	ports = of_get_child_by_name(csemu_dt->np[i], "out-ports");
	if (!ports)
		return;
	for_each_child_of_node(ports, port) {
		sp = 0;
		of_property_read_u32(port, "reg", &sp);
		for_each_child_of_node(port, ep) {
			rep = of_graph_get_remote_endpoint(ep);
			if (!rep)
				continue;
			owner = csemu_dt_ep_owner(rep, &dp);
			of_node_put(rep);
			dst = owner ? csemu_dt_comp(owner) : NULL;
			of_node_put(owner);
			if (dst && sp < 2)
				csemu_wire(csemu_dt->comp[i], sp, dst, dp, false);
		}
	}
	of_node_put(ports);
}

static int csemu_build_dt(void)
{
	struct device_node *np;
	unsigned int s = 0, l = 0, i;
	int pass, ret, cpu;

	/* The clocks and the domain before any component's device. */
	ret = csemu_pwr_init(csemu_dt->soc);
	if (ret) {
		pr_err("tb_csemu: no clock and power-domain controller: %d\n", ret);
		return ret;
	}
	/* TMCs (ETRs, then the others), links, ETMs: in that order. */
	for (pass = 0; pass < 4; pass++)
		for_each_available_child_of_node(csemu_dt->soc, np) {
			int kind = csemu_dt_kind(np);
			struct csemu_sink *k;
			struct csemu_link *lk;
			struct csemu_etm *e;

			if ((pass == 0 && (kind != DT_TMC ||
					   csemu_dt_tmc_type(np) != TRACEBUF_CS_SINK_ETR)) ||
			    (pass == 1 && (kind != DT_TMC ||
					   csemu_dt_tmc_type(np) == TRACEBUF_CS_SINK_ETR)) ||
			    (pass == 2 && kind != DT_FUNNEL && kind != DT_REPL) ||
			    (pass == 3 && kind != DT_ETM))
				continue;
			switch (kind) {
			case DT_TMC:
				k = &csemu.sinks[s];
				ret = csemu_sink_init(k, s, csemu_dt_tmc_type(np),
						      kbasename(np->full_name), false);
				if (ret)
					goto out;
				if (!of_property_read_bool(np, "arm,scatter-gather"))
					k->sg_ok = false;	/* DEVID.NOSCAT */
				ret = csemu_dt_add(np, &k->c);
				if (!ret)
					ret = csemu_pwr_device(np, &k->c);
				if (!ret) {
					/* Its DMA through the device tracebuf binds. */
					k->dev = k->c.dev;
					ret = csemu_dma_attach(k->dev);
				}
				s++;
				break;
			case DT_FUNNEL:
			case DT_REPL:
				lk = &csemu.links[l++];
				csemu_link_init(lk, kind == DT_REPL ? CSEMU_KIND_REPL :
						CSEMU_KIND_FUNNEL, kbasename(np->full_name));
				ret = csemu_dt_add(np, &lk->c);
				if (!ret)
					ret = csemu_pwr_device(np, &lk->c);
				break;
			default:
				cpu = csemu_dt_cpu(np);
				if (cpu < 0 || cpu >= nr_cpu_ids || !cpu_possible(cpu) ||
				    csemu.etms[cpu].inited) {
					ret = 0;
					break;
				}
				e = &csemu.etms[cpu];
				csemu_etm_init(e, cpu);
				strscpy(e->c.name, kbasename(np->full_name), sizeof(e->c.name));
				ret = csemu_dt_add(np, &e->c);
				if (!ret)
					ret = csemu_pwr_device(np, &e->c);
				break;
			}
			if (ret)
				goto out;
		}
	for (i = 0; i < csemu_dt->n; i++)
		csemu_dt_wires(i);
	return 0;
out:
	of_node_put(np);
	return ret;
}

void csemu_dt_free(void)
{
	unsigned int i;

	if (!csemu_dt)
		return;
	/* The devices (tracebuf lets them go), then the providers. */
	csemu_pwr_exit(csemu_dt->comp, csemu_dt->n);
	for (i = 0; i < csemu_dt->n; i++)
		of_node_put(csemu_dt->np[i]);
	of_node_put(csemu_dt->soc);
	kfree(csemu_dt);
	csemu_dt = NULL;
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

/* shared: every ETM straight into sink 0; percpu: ETM i into sink i. */
static int csemu_build_flat(void)
{
	unsigned int cpu, i;
	int ret;

	for (i = 0; i < csemu.nr_sinks; i++) {
		struct csemu_sink *k = &csemu.sinks[i];
		struct tb_cs_desc *d;

		ret = csemu_sink_init(k, i, csemu.sink_type, NULL, true);
		if (ret)
			return ret;
		d = csemu_describe(&k->c, TB_CS_KIND_TMC);
		d->c.dev = k->dev;
		d->scatter_gather = k->sg_ok;
	}
	for_each_possible_cpu(cpu) {
		struct csemu_etm *e = &csemu.etms[cpu];

		csemu_etm_init(e, cpu);
		csemu_describe(&e->c, TB_CS_KIND_ETM)->cpu = cpu;
		csemu_wire(&e->c, 0, &csemu.sinks[csemu.topo == CSEMU_TOPO_PERCPU ? cpu : 0].c, 0,
			   true);
	}
	return 0;
}

/* The wires out of c, as wired. */
static void csemu_topology_wires(struct seq_file *m, const struct csemu_comp *c)
{
	unsigned int i;

	for (i = 0; i < ARRAY_SIZE(c->out); i++)
		if (c->out[i].dst)
			seq_printf(m, "wire %s %u %s %u\n", c->name, i, c->out[i].dst->name,
				   c->out[i].port);
}

/*
 * debugfs topology: the emulated SoC as wired, one line per component and
 * per ATB wire ("etm NAME CPU", "tmc NAME etr|etf|etb", "funnel NAME",
 * "replicator NAME", "static NAME", "wire SRC PORT DST PORT"), for
 * tests to compare with the firmware (tests/guest/cs_dt.c). What tracebuf made of it
 * is its own debugfs tracebuf/coresight_paths.
 */
static int csemu_topology_show(struct seq_file *m, void *v)
{
	static const char *const tmc[] = {
		[TRACEBUF_CS_SINK_ETR] = "etr", [TRACEBUF_CS_SINK_ETF] = "etf",
		[TRACEBUF_CS_SINK_ETB] = "etb",
	};
	unsigned int cpu, i;

	for (i = 0; i < csemu.nr_sinks; i++) {
		struct csemu_sink *k = &csemu.sinks[i];

		seq_printf(m, "tmc %s %s\n", k->c.name,
			   k->type < ARRAY_SIZE(tmc) && tmc[k->type] ? tmc[k->type] : "?");
		csemu_topology_wires(m, &k->c);
	}
	for (i = 0; i < csemu.nr_links; i++) {
		enum csemu_kind kind = csemu.links[i].c.kind;

		seq_printf(m, "%s %s\n", kind == CSEMU_KIND_REPL ? "replicator" :
			   kind == CSEMU_KIND_STATIC ? "static" : "funnel", csemu.links[i].c.name);
		csemu_topology_wires(m, &csemu.links[i].c);
	}
	for_each_possible_cpu(cpu) {
		seq_printf(m, "etm %s %u\n", csemu.etms[cpu].c.name, cpu);
		csemu_topology_wires(m, &csemu.etms[cpu].c);
	}
	return 0;
}
DEFINE_SHOW_ATTRIBUTE(csemu_topology);

void csemu_topology_debugfs(struct dentry *dir)
{
	debugfs_create_file("topology", 0444, dir, NULL, &csemu_topology_fops);
}

int csemu_build(void)
{
	unsigned int cpu, n;
	int ret;

	switch (csemu.topo) {
	case CSEMU_TOPO_N1SDP:
	case CSEMU_TOPO_JUNO:
	case CSEMU_TOPO_MSM8916:
		/* Firmware properties: what the device tree says, not knobs. */
		if (csemu_skip_power_up || csemu_loses_context || csemu_max_burst >= 0) {
			pr_err("tb_csemu: skip_power_up=, loses_context= and max_burst= stand for firmware properties: with a device-tree topology, put them in the device tree\n");
			return -EINVAL;
		}
		if (csemu.topo == CSEMU_TOPO_N1SDP)
			ret = csemu_acpi_count("n1sdp");
		else
			ret = csemu_dt_count(csemu.topo == CSEMU_TOPO_JUNO ? "juno" : "msm8916");
		if (ret)
			return ret;
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
	case CSEMU_TOPO_MSM8916:
		ret = csemu_build_dt();
		break;
	case CSEMU_TOPO_N1SDP:
		ret = csemu_build_acpi();
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
	if (csemu_dt) {
		/* tracebuf finds the SoC in the device tree, as on the board. */
		csemu.plat.of_root = csemu_dt->soc;
		csemu.plat.of_map = csemu_dt_map;
	}
	return 0;
}

