// SPDX-License-Identifier: GPL-2.0
/*
 * The ARM CoreSight backend: ETMv4 trace units feeding a TMC sink, the
 * sink writing straight into the AUX pages (ETR, scatter-gather or flat)
 * or buffering in SRAM (ETB/ETF, copied out through RRD).
 *
 * Platforms. A platform is the components and the ATB graph between
 * them (struct tb_cs_platform): from the device tree (every available
 * "arm,coresight-etm4x", -dynamic-funnel, -dynamic-replicator,
 * -static-funnel/-replicator and "arm,coresight-tmc" node, with the
 * graph from their out-ports endpoints), from module parameters
 * (etm_base=, sink_base=, sink_sg=: ETMs wired straight to one TMC) on
 * boards that describe nothing, or from a register-level emulator
 * (tracebuf_cs_emulator_register(): its components and graph, or, for a
 * SoC it describes in the device tree, the node under which the
 * device-tree discovery finds them). At probe every ETM gets its sink
 * and its path, the links between (tb_cs_build_path()): the TMC named
 * by sink=, else the best it reaches (an ETR over an ETF or ETB, then
 * the nearest), an ETF on the way being a link in hardware FIFO mode.
 * Links are programmed by their own files behind struct tb_cs_link_ops
 * (cs_funnel.c, cs_replicator.c, cs_tmc.c) and walked by cs_path.c: on
 * before the ETM from the sink towards it, off after it the other way,
 * as coresight-core.c does. tracebuf binds the components as their
 * driver (cs_drv.c) and holds a runtime PM reference on each across its
 * register accesses: at probe, and from a session's setup_aux to its
 * free_aux, static links included (no registers, but a power domain and
 * atclk). A component bound to another driver (the kernel's
 * coresight-*) is refused, with how to hand it over, but for a static
 * link, which has no registers: used, and referenced all the same; a
 * component claimed by another agent (claim tags) is busy.
 *
 * Sessions. A session traces the CPUs of one sink: on the usual topology
 * every ETM is funnelled into one shared sink and the session's AUX ring
 * holds their interleaved, formatted stream (trace IDs tell them apart);
 * with one sink per CPU a session traces one CPU, as for PT. The sink
 * belongs to one session at a time (from its AUX mmap to its munmap).
 *
 * An ETM is only ever touched on its own CPU with interrupts off, as
 * the kernel's ETMv4 driver does it: start and stop run there (IPIs,
 * hotplug callbacks), and so does the CPU PM notifier that keeps an
 * ETM across a power-down where the firmware says it loses its
 * context. Sinks and links are MMIO from any CPU.
 *
 * The sink has no interrupt, so the core's drain timer kicks a "cycle"
 * each period (tb_cs_cycle_run(), in a work item: it needs IPIs):
 * every ETM of the session off on its own CPU (it drains to the ATB:
 * TRCSTATR.IDLE) with its path closed (an ETF link flushes into the
 * sink as it stops), the sink flushed, stopped and published, then the
 * sink restarted and every ETM on again on its own CPU if the consumer
 * left room. The CPUs run untraced for the moment of a cycle; no byte
 * the hardware produced is lost in it. An ETB/ETF's SRAM is read out
 * only there, TB_CS_COPY_CHUNK bytes at a time with interrupts enabled
 * in between. The last CPU's stop (DISABLE, a CPU going offline, a
 * task's last switch-out: interrupts off) stops the sink: an ETR's run
 * is published there (or by a cycle it kicks, tb_cs_defer()), an
 * ETB/ETF is only flushed and stopped there and its copy-out left to a
 * cycle it kicks (tb_cs_sram_stop()); a start waits for that cycle, and
 * DISABLE runs it before it returns. ETMs and their links are
 * disabled before and enabled after their sink, always.
 *
 * No-overwrite mode, ETR: at every restart the ETR's buffer is the free
 * space and nothing else: it starts at the head, padded to a 4 KiB
 * granule with formatter frames of the null trace ID (counted in
 * aux_padding), and ends at the consumer's tail rounded down to a
 * granule (RSZ; with scatter-gather, a table rotated to start at the
 * head whose entry at that point is LAST; a flat buffer also ends at the
 * end of the area). The hardware can never write into a published byte
 * the consumer has not read. STS.Full means it wrapped over what it
 * wrote in this run: an overrun, always seen. The span is TRUNCATED,
 * only the newest lap (the buffer's start up to RWP) is kept, and a LOST
 * record (AUX_OVERRUN, AT_LEAST: more laps cannot be seen) counts the
 * rest. The ETMs are not restarted while less than a quarter of the ring
 * (or twice the last period's output) is free; they resume once
 * aux_watermark bytes are free. ETB/ETF: bytes that do not fit are
 * counted exactly; an SRAM wrap loses an unknown amount (AT_LEAST).
 * Snapshot mode: the ETR wraps freely over the whole ring; SNAPSHOT and
 * stop publish the latest ring-full.
 */
#include <linux/bitfield.h>
#include <linux/capability.h>
#include <linux/cpu.h>
#include <linux/cpu_pm.h>
#include <linux/debugfs.h>
#include <linux/device.h>
#include <linux/dma-mapping.h>
#include <linux/io.h>
#include <linux/irq_work.h>
#include <linux/module.h>
#include <linux/moduleparam.h>
#include <linux/mutex.h>
#include <linux/of.h>
#include <linux/of_address.h>
#include <linux/of_graph.h>
#include <linux/pm_runtime.h>
#include <linux/slab.h>
#include <linux/smp.h>
#include <linux/sysfs.h>
#include <linux/workqueue.h>
#include <linux/acpi.h>
#include <linux/amba/bus.h>
#include <linux/platform_device.h>
#include <linux/seq_file.h>
#include <asm/sysreg.h>
#ifdef CONFIG_ACPI
#include <acpi/processor.h>
#endif

#include "internal.h"
#include "aux.h"
#include "backend.h"
#include "cs.h"
#include "cs_sg.h"
#include "drvcfg.h"
#include "ring.h"

/* --- the platform --------------------------------------------------------- */

static const struct tb_cs_platform *tb_cs_plat;	/* under tb_backends_lock */
/* An emulator registered with of_root: its own; tb_cs_plat is what was found. */
static const struct tb_cs_platform *tb_cs_emu_of;	/* under tb_backends_lock */
static struct tb_cs_etm **tb_cs_etm_of;		/* by CPU; NULL: none */
static struct tb_cs_dev *tb_cs_devs;		/* by component; ETMs unused */
static struct tb_cs_sink *tb_cs_sinks;		/* every TMC */
static unsigned int tb_cs_nr_sinks;
/* Protects tb_cs_owner[]: which session holds each sink. */
static DEFINE_MUTEX(tb_cs_owner_lock);
static struct tb_session **tb_cs_owner;

/* The kernel's trace-ID allocator, while coresight.ko is loaded (compat.h). */
static struct tb_cs_kernel_ids tb_cs_kids;

static char *sink_choice;
module_param_named(sink, sink_choice, charp, 0444);
MODULE_PARM_DESC(sink, "the TMC every ETM that reaches it uses (its DT node name, e.g. etr@20070000); default: an ETR, else an ETF or ETB, the nearest");

#define TB_CS_MAX_HOPS	8	/* links between an ETM and its sink */

static struct tb_cs_etm *tb_cs_etm(unsigned int cpu)
{
	return cpu < nr_cpu_ids && tb_cs_etm_of ? tb_cs_etm_of[cpu] : NULL;
}

/*
 * Whether the component is ours to touch: bound to tracebuf's driver
 * (cs_drv.c), or a device no driver binds (none, or an emulator's own).
 * Bound to another driver it is that driver's; an AMBA component no
 * driver holds has its clock and power domain off (amba_remove()).
 *
 * But a static funnel or replicator another driver holds (the kernel's
 * coresight-funnel or -replicator: static_funnel_probe(),
 * static_replicator_probe()) is used (*foreign set): it has no register
 * for two drivers to race over, and that driver programs nothing. Its
 * power is still needed: a session takes a runtime PM reference on it
 * (tb_cs_buf_pm()), as coresight_grab_device() would, with that driver's
 * runtime PM callbacks (funnel_runtime_resume(): its atclk) and its power
 * domain. A kernel session through the same static link is harmless to
 * ours; the components with registers around it are still refused.
 */
static int tb_cs_check_owner(const struct tb_cs_desc *d, bool *foreign)
{
	const struct tb_cs_component *c = &d->c;
	struct device *dev = c->dev;

	*foreign = false;
	if (!dev || tb_cs_drv_ours(dev))
		return 0;
	if (d->kind == TB_CS_KIND_STATIC && dev->driver && tb_cs_drv_static(dev)) {
		pr_info("tracebuf: coresight: %s is driven by %s: used as a static link (no registers), powered through that driver\n",
			c->name, dev->driver->name);
		*foreign = true;
		return 0;
	}
	if (tb_cs_drv_needs_binding(dev)) {
		pr_warn("tracebuf: coresight: %s is bound to no driver, so its clock and power are off; to use it with tracebuf: rmmod tracebuf; echo tracebuf-cs > /sys/bus/%s/devices/%s/driver_override; modprobe tracebuf\n",
			c->name, dev->bus->name, dev_name(dev));
		return -ENODEV;
	}
	if (!dev->driver)
		return 0;
	pr_warn("tracebuf: coresight: %s is driven by %s; to use it with tracebuf, unload that driver (modprobe -r its module, or blacklist it: the kernel's CoreSight drivers cannot be unbound) and load tracebuf again\n",
		c->name, dev->driver->name);
	return -EBUSY;
}

static void tb_cs_kids_release(void)
{
	tb_cs_kernel_ids_put(&tb_cs_kids);
}

/*
 * A CPU about to power down (idle, CPU_PM_ENTER) and back up
 * (CPU_PM_EXIT), on that CPU with interrupts off. Where the firmware
 * says its ETM loses its context with the CPU
 * (arm,coresight-loses-context-with-cpu), an ETM a session has on is
 * disabled before (it drains; TRFCR prohibits) and enabled again after
 * with the same programming, as etm4_cpu_save()/etm4_cpu_restore()
 * save and restore it (TRCPDCR.PU is only a request to keep it
 * powered). Its links and the sink are not in the CPU's power domain
 * and stay as they are. The session's state is e->prog and the pm_*
 * fields, which only code on this CPU with interrupts off touches.
 */
static int tb_cs_cpu_pm(struct notifier_block *nb, unsigned long cmd, void *v)
{
	struct tb_cs_etm *e = tb_cs_etm(smp_processor_id());

	if (!e || !e->loses_context)
		return NOTIFY_DONE;
	switch (cmd) {
	case CPU_PM_ENTER:
		if (e->prog && !e->pm_off && !e->pm_err) {
			if (tb_etm_disable(e))
				e->pm_undrained = true;
			e->pm_off = true;
		}
		return NOTIFY_OK;
	case CPU_PM_ENTER_FAILED:
	case CPU_PM_EXIT:
		if (e->pm_off) {
			e->pm_off = false;
			e->pm_err = tb_etm_enable(e, e->prog);
		}
		return NOTIFY_OK;
	default:
		return NOTIFY_DONE;
	}
}

static struct notifier_block tb_cs_cpu_pm_nb = {
	.notifier_call = tb_cs_cpu_pm,
};

static bool tb_cs_cpu_pm_registered;

/*
 * debugfs tracebuf/coresight_paths: each CPU's way to its sink as
 * probed, "cpuN ETM.out>LINK:in.out>...>SINK:in" (node names without
 * their DT path, ports as the firmware numbers them), for a user checking
 * what tracebuf made of the firmware's graph (and for tests/guest/cs_dt.c).
 */
static struct dentry *tb_cs_dbg_dir;

static int tb_cs_paths_show(struct seq_file *m, void *v)
{
	unsigned int cpu, i;

	/* Stable: tb_cs_remove() removes this file, waiting for readers, before freeing. */
	for_each_possible_cpu(cpu) {
		const struct tb_cs_etm *e = tb_cs_etm(cpu);

		if (!e)
			continue;
		seq_printf(m, "cpu%u %s.%u", cpu, kbasename(e->name), e->out_port);
		for (i = 0; i < e->nr_hops; i++)
			seq_printf(m, ">%s:%u.%u", kbasename(e->path[i].d->name), e->path[i].in,
				   e->path[i].out);
		seq_printf(m, ">%s:%u\n", kbasename(tb_cs_sinks[e->sink].name), e->sink_port);
	}
	return 0;
}
DEFINE_SHOW_ATTRIBUTE(tb_cs_paths);

static void tb_cs_remove(struct tb_backend *b)
{
	unsigned int cpu;

	/* Waits for a reader of coresight_paths: before what it reads goes. */
	debugfs_remove_recursive(tb_cs_dbg_dir);
	tb_cs_dbg_dir = NULL;

	if (tb_cs_cpu_pm_registered) {
		cpu_pm_unregister_notifier(&tb_cs_cpu_pm_nb);
		/* The chain runs under rcu_read_lock() (cpu_pm_notify()). */
		synchronize_rcu();
		tb_cs_cpu_pm_registered = false;
	}

	if (tb_cs_etm_of)
		for_each_possible_cpu(cpu) {
			if (!tb_cs_etm_of[cpu])
				continue;
			if (tb_cs_kids.put)
				tb_cs_kids.put(cpu);
			kfree(tb_cs_etm_of[cpu]->path);
			kfree(tb_cs_etm_of[cpu]);
		}
	kfree(tb_cs_etm_of);
	kfree(tb_cs_devs);
	kfree(tb_cs_sinks);
	kfree(tb_cs_owner);
	tb_cs_kids_release();
	tb_cs_etm_of = NULL;
	tb_cs_devs = NULL;
	tb_cs_sinks = NULL;
	tb_cs_owner = NULL;
	tb_cs_nr_sinks = 0;
}

/* Is name (a DT full name such as /etr@20070000, or any name) the one chosen? */
static bool tb_cs_name_is(const char *name, const char *want)
{
	const char *base = strrchr(name, '/');

	return sysfs_streq(name, want) || (base && sysfs_streq(base + 1, want));
}

/*
 * How much a sink is wanted: the one named by sink=, else an ETR over
 * an ETF or ETB (system memory holds more, as coresight-core.c's
 * default sink prefers it); 0: not a sink.
 */
static int tb_cs_sink_rank(const struct tb_cs_dev *d)
{
	const struct tb_cs_sink *k = &tb_cs_sinks[d->sink];

	if (!k->present)
		return 0;
	if (sink_choice && *sink_choice)
		return tb_cs_name_is(d->name, sink_choice) ? 1 : 0;
	return k->type == TRACEBUF_CS_SINK_ETR ? 2 : 1;
}

/* A depth-first search from an ETM over the ATB graph. */
struct tb_cs_walk {
	const struct tb_cs_platform *p;
	struct tb_cs_hop hops[TB_CS_MAX_HOPS];
	struct tb_cs_hop best[TB_CS_MAX_HOPS];
	unsigned int nr_best;
	int best_sink, best_rank;
	u8 out_port;			/* the ETM's master port walked from */
	u8 best_out, best_in;		/* the best path's: that port, the sink's slave port */
};

/* At component comp, entered through slave port in, depth links behind. */
static void tb_cs_walk(struct tb_cs_walk *w, unsigned int comp, unsigned int in,
		       unsigned int depth)
{
	struct tb_cs_dev *d = &tb_cs_devs[comp];
	unsigned int i;

	if (!d->name || d->kind == TB_CS_KIND_ETM || in >= TB_CS_MAX_PORTS)
		return;		/* absent, unusable or not a component we drive */
	if (d->kind == TB_CS_KIND_TMC) {
		int rank = tb_cs_sink_rank(d);

		/* The best sink; of two as good, the nearer. */
		if (rank > w->best_rank || (rank && rank == w->best_rank && depth < w->nr_best)) {
			w->best_rank = rank;
			w->best_sink = d->sink;
			w->nr_best = depth;
			w->best_out = w->out_port;
			w->best_in = in;
			memcpy(w->best, w->hops, depth * sizeof(w->hops[0]));
		}
		/* Only an ETF passes trace on (hardware FIFO mode). */
		if (tb_cs_sinks[d->sink].type != TRACEBUF_CS_SINK_ETF)
			return;
	}
	if (depth >= TB_CS_MAX_HOPS)
		return;
	for (i = 0; i < w->p->nr_conns; i++) {
		const struct tb_cs_conn *c = &w->p->conns[i];

		if (c->src != comp || c->dst >= w->p->nr_comps || c->src_port >= TB_CS_MAX_PORTS)
			continue;
		w->hops[depth] = (struct tb_cs_hop){ d, in, c->src_port };
		tb_cs_walk(w, c->dst, c->dst_port, depth + 1);
	}
}

struct tb_cs_probe_call {
	struct tb_cs_etm *e;
	int ret;
};

static void tb_cs_etm_probe_ipi(void *arg)
{
	struct tb_cs_probe_call *c = arg;

	c->ret = tb_etm_probe(c->e);
}

/*
 * On the ETM's own CPU, as etm4_probe() runs etm4_init_arch_data(): its
 * OS lock may be the PE's, and the unit may be powered only with its
 * core. An offline CPU's ETM is not probed (-ENXIO): it stays unused.
 */
static int tb_cs_etm_probe_on_cpu(struct tb_cs_etm *e)
{
	struct tb_cs_probe_call c = { .e = e, .ret = -ENXIO };
	int ret;

	ret = smp_call_function_single(e->cpu, tb_cs_etm_probe_ipi, &c, 1);
	return ret ? ret : c.ret;
}

/* ETM comps[i]'s way to its sink: the sink's index, or -ENODEV. */
static int tb_cs_build_path(const struct tb_cs_platform *p, unsigned int i,
			    struct tb_cs_etm *e)
{
	struct tb_cs_walk *w = kzalloc(sizeof(*w), GFP_KERNEL);
	unsigned int n;
	int sink;

	if (!w)
		return -ENOMEM;
	w->p = p;
	w->best_sink = -ENODEV;
	for (n = 0; n < p->nr_conns; n++)
		if (p->conns[n].src == i && p->conns[n].dst < p->nr_comps) {
			w->out_port = p->conns[n].src_port;
			tb_cs_walk(w, p->conns[n].dst, p->conns[n].dst_port, 0);
		}
	sink = w->best_sink;
	e->out_port = w->best_out;
	e->sink_port = w->best_in;
	if (sink >= 0 && w->nr_best) {
		e->path = kmemdup(w->best, w->nr_best * sizeof(w->best[0]), GFP_KERNEL);
		if (!e->path)
			sink = -ENOMEM;
		e->nr_hops = w->nr_best;
	}
	kfree(w);
	return sink;
}

/*
 * Every component but the ETMs: links and TMCs, those held powered;
 * foreign[i]: a static link another driver holds.
 */
static int tb_cs_probe_devs(const struct tb_cs_platform *p, const bool *held,
			    const bool *foreign)
{
	unsigned int i;

	for (i = 0; i < p->nr_comps; i++) {
		const struct tb_cs_desc *c = &p->comps[i];
		struct tb_cs_dev *d = &tb_cs_devs[i];
		struct tb_cs_sink *k;
		int ret;

		d->sink = -1;
		d->kind = c->kind;
		if (c->kind == TB_CS_KIND_ETM || !held[i])
			continue;
		d->io = p->io;
		d->base = c->c.base;
		d->dev = c->c.dev;
		d->pm_foreign = foreign[i];
		switch (c->kind) {
		case TB_CS_KIND_FUNNEL:
			d->link = &tb_cs_funnel_ops;
			break;
		case TB_CS_KIND_REPLICATOR:
			d->link = &tb_cs_replicator_ops;
			break;
		case TB_CS_KIND_TMC:
			d->sink = tb_cs_nr_sinks++;
			k = &tb_cs_sinks[d->sink];
			k->io = p->io;
			k->base = c->c.base;
			k->dev = c->c.dev;
			k->name = c->c.name;
			k->sg = c->scatter_gather;
			k->max_burst_set = c->max_burst_set;
			k->max_burst = c->max_burst;
			ret = tb_tmc_probe(k);
			if (ret == -EOPNOTSUPP)
				pr_warn("tracebuf: coresight: %s: a flat ETR that restarts at its base (no RWP save/restore) cannot continue a ring: not used\n",
					k->name);
			else if (ret)
				pr_warn("tracebuf: coresight: %s is not a usable TMC (%d)\n",
					k->name, ret);
			if (ret)
				continue;
			if (k->type == TRACEBUF_CS_SINK_ETF)
				d->link = &tb_cs_etf_link_ops;
			break;
		default:
			break;
		}
		d->name = c->c.name;	/* usable */
		if (d->link && c->kind != TB_CS_KIND_TMC) {
			tb_cs_unlock(d->io, d->base);
			if (tb_cs_clear_stale_claim(d->io, d->base))
				pr_info("tracebuf: coresight: %s: stale self-hosted claim tag cleared\n",
					d->name);
			tb_cs_lock(d->io, d->base);
		}
		tb_cs_link_reset(d);
	}
	return 0;
}

/*
 * Where the kernel has a trace-ID allocator and coresight.ko is loaded,
 * every ETM's ID comes from it (unique system-wide, the same a kernel
 * CoreSight session would give that CPU: 0x10 + 2 * cpu where free),
 * and is given back at remove. All or nothing: if one CPU gets none,
 * every ID is given back and the static scheme is used.
 */
static void tb_cs_assign_kernel_ids(void)
{
	unsigned int cpu;
	int id;

	if (tb_cs_kernel_ids_get(&tb_cs_kids))
		return;
	for (cpu = 0; cpu < nr_cpu_ids; cpu++) {
		struct tb_cs_etm *e = tb_cs_etm_of[cpu];

		if (!e)
			continue;
		id = tb_cs_kids.get(cpu);
		if (id < TB_CS_TRACE_ID_FIRST || id > TB_CS_TRACE_ID_LAST) {
			if (id > 0)
				tb_cs_kids.put(cpu);
			goto fallback;
		}
		e->caps.trace_id = id;
	}
	pr_info("tracebuf: coresight: trace IDs from the kernel's allocator (coresight.ko)\n");
	return;
fallback:
	while (cpu-- > 0)
		if (tb_cs_etm_of[cpu]) {
			tb_cs_kids.put(cpu);
			tb_cs_etm_of[cpu]->caps.trace_id = 0;
		}
	tb_cs_kids_release();
}

/* An ETF on e's path that is also some ETM's sink cannot be both. */
static bool tb_cs_path_conflict(const struct tb_cs_etm *e)
{
	unsigned int i;

	for (i = 0; i < e->nr_hops; i++) {
		const struct tb_cs_dev *d = e->path[i].d;

		if (d->sink >= 0 && tb_cs_sinks[d->sink].nr_etms) {
			pr_warn("tracebuf: coresight: %s (cpu%u): %s is a sink and cannot also be a link on its way: not used\n",
				e->name, e->cpu, d->name);
			return true;
		}
	}
	return false;
}

/* tb_cs_probe()'s runtime PM references (if pm) given back; frees held (and foreign). */
static void tb_cs_probe_put(const struct tb_cs_platform *p, bool *held, bool pm)
{
	unsigned int i;

	for (i = 0; held && pm && i < p->nr_comps; i++)
		if (held[i])
			tb_cs_pm_put(p->comps[i].c.dev);
	kfree(held);
}

static int tb_cs_probe(struct tb_backend *b)
{
	const struct tb_cs_platform *p = tb_cs_plat;
	unsigned int i, n = 0, nr_tmc = 0, *ids;
	bool *held = NULL, *foreign, pm = tb_cs_pm_wanted();
	int ret = -ENODEV;

	if (!p || !p->nr_comps)
		return -ENODEV;
	for (i = 0; i < p->nr_comps; i++)
		nr_tmc += p->comps[i].kind == TB_CS_KIND_TMC;
	if (!nr_tmc)
		return -ENODEV;
	tb_cs_etm_of = kcalloc(nr_cpu_ids, sizeof(*tb_cs_etm_of), GFP_KERNEL);
	tb_cs_devs = kcalloc(p->nr_comps, sizeof(*tb_cs_devs), GFP_KERNEL);
	tb_cs_sinks = kcalloc(nr_tmc, sizeof(*tb_cs_sinks), GFP_KERNEL);
	tb_cs_owner = kcalloc(nr_tmc, sizeof(*tb_cs_owner), GFP_KERNEL);
	ids = kcalloc(nr_tmc, sizeof(*ids), GFP_KERNEL);
	if (!tb_cs_etm_of || !tb_cs_devs || !tb_cs_sinks || !tb_cs_owner || !ids) {
		ret = -ENOMEM;
		goto fail;
	}
	/*
	 * Every component clocked and powered while it is probed (runtime
	 * PM references, given back below); one that cannot be is left out.
	 */
	held = kcalloc(2 * p->nr_comps, sizeof(*held), GFP_KERNEL);
	if (!held) {
		ret = -ENOMEM;
		goto fail;
	}
	foreign = held + p->nr_comps;
	for (i = 0; i < p->nr_comps; i++) {
		const struct tb_cs_component *c = &p->comps[i].c;

		if (tb_cs_check_owner(&p->comps[i], &foreign[i]))
			continue;
		if (pm && tb_cs_pm_get(c->dev)) {
			pr_warn("tracebuf: coresight: %s cannot be powered up: not used\n",
				c->name);
			continue;
		}
		held[i] = true;
	}
	tb_cs_probe_devs(p, held, foreign);
	for (i = 0; i < p->nr_comps; i++) {
		const struct tb_cs_desc *d = &p->comps[i];
		struct tb_cs_etm *e;
		int sink;

		if (d->kind != TB_CS_KIND_ETM || d->cpu >= nr_cpu_ids ||
		    tb_cs_etm_of[d->cpu] || !held[i])
			continue;
		e = kzalloc(sizeof(*e), GFP_KERNEL);
		if (!e) {
			ret = -ENOMEM;
			goto fail;
		}
		e->io = p->io;
		e->base = d->c.base;
		e->dev = d->c.dev;
		e->name = d->c.name;
		e->cpu = d->cpu;
		e->skip_power_up = d->skip_power_up;
		e->loses_context = d->loses_context;
		sink = tb_cs_build_path(p, i, e);
		if (sink == -ENOMEM) {
			kfree(e);
			ret = -ENOMEM;
			goto fail;
		}
		if (sink < 0) {
			pr_warn("tracebuf: coresight: %s (cpu%u): no usable sink on its ATB path\n",
				e->name, e->cpu);
			kfree(e);
			continue;
		}
		if (tb_cs_etm_probe_on_cpu(e)) {
			pr_warn("tracebuf: coresight: %s (cpu%u) is not a usable ETMv4\n",
				e->name, e->cpu);
			kfree(e->path);
			kfree(e);
			continue;
		}
		e->sink = sink;
		tb_cs_sinks[sink].nr_etms++;
		tb_cs_etm_of[d->cpu] = e;
	}
	for (i = 0; i < nr_cpu_ids; i++) {
		struct tb_cs_etm *e = tb_cs_etm_of[i];

		if (e && tb_cs_path_conflict(e)) {
			tb_cs_sinks[e->sink].nr_etms--;
			tb_cs_etm_of[i] = NULL;
			kfree(e->path);
			kfree(e);
		}
	}
	tb_cs_assign_kernel_ids();
	for (i = 0; i < nr_cpu_ids; i++) {
		struct tb_cs_etm *e = tb_cs_etm_of[i];
		struct tb_cs_sink *k;

		if (!e)
			continue;
		k = &tb_cs_sinks[e->sink];
		if (e->caps.trace_id)
			goto have_id;
		/* Trace IDs: unique among the ETMs of one sink. */
		if (TB_CS_TRACE_ID_FIRST + ids[e->sink] > TB_CS_TRACE_ID_LAST) {
			pr_warn("tracebuf: coresight: %s (cpu%u): no trace ID left in its sink\n",
				e->name, e->cpu);
			k->nr_etms--;
			tb_cs_etm_of[i] = NULL;
			kfree(e->path);
			kfree(e);
			continue;
		}
		e->caps.trace_id = TB_CS_TRACE_ID_FIRST + ids[e->sink]++;
have_id:
		e->caps.sink = e->sink;
		e->caps.sink_type = k->type;
		e->caps.sink_size = k->sram_size;
		n++;
	}
	for (i = 0; i < nr_cpu_ids; i++) {
		struct tb_cs_etm *e = tb_cs_etm_of[i];

		if (!e)
			continue;
		e->caps.sink_cpus = tb_cs_sinks[e->sink].nr_etms;
		e->caps.sink_flags = (tb_cs_sinks[e->sink].sg ? TRACEBUF_CS_SINK_F_SG : 0) |
			(e->caps.sink_cpus > 1 ? TRACEBUF_CS_SINK_F_SHARED : 0);
	}
	if (!n)
		goto fail_nodev;
	ret = cpu_pm_register_notifier(&tb_cs_cpu_pm_nb);
	if (ret)
		goto fail;
	tb_cs_cpu_pm_registered = true;
	kfree(ids);
	tb_cs_probe_put(p, held, pm);
	pr_info("tracebuf: coresight: %s: %u ETMs, %u components, %u TMCs\n", p->name, n,
		p->nr_comps, tb_cs_nr_sinks);
	tb_cs_dbg_dir = debugfs_create_dir("tracebuf", NULL);
	debugfs_create_file("coresight_paths", 0400, tb_cs_dbg_dir, NULL, &tb_cs_paths_fops);
	b->nr_cpus = n;
	b->caps_size = sizeof(struct tracebuf_cs_caps);
	b->flags = p->owner ? TRACEBUF_BACKEND_F_EMULATED : 0;
	b->owner = p->owner;
	return 0;
fail_nodev:
	ret = -ENODEV;
fail:
	kfree(ids);
	tb_cs_probe_put(p, held, pm);
	tb_cs_remove(b);
	return ret;
}

static int tb_cs_caps(const struct tb_backend *b, unsigned int cpu, void *buf,
		      size_t size)
{
	struct tb_cs_etm *e = tb_cs_etm(cpu);

	if (!e || size < sizeof(e->caps))
		return -ENODEV;
	memcpy(buf, &e->caps, sizeof(e->caps));
	return sizeof(e->caps);
}

/* The CPUs of one sink; and one CPU only where each CPU has its own. */
static int tb_cs_check_setup(const struct tb_backend *b, const struct cpumask *cpus)
{
	unsigned int cpu, sink = UINT_MAX;

	for_each_cpu(cpu, cpus) {
		struct tb_cs_etm *e = tb_cs_etm(cpu);

		if (!e)
			return -EINVAL;
		if (sink != UINT_MAX && e->sink != sink)
			return -EINVAL;
		sink = e->sink;
	}
	return sink == UINT_MAX ? -EINVAL : 0;
}

/* --- configuration ------------------------------------------------------- */

enum {
	TB_CS_K_CYCACC,
	TB_CS_K_CYC_THRESH,
	TB_CS_K_TIMESTAMP,
	TB_CS_K_TS_INTERVAL,
	TB_CS_K_CONTEXTID,
	TB_CS_K_VMID,
	TB_CS_K_BRANCH_BROADCAST,
	TB_CS_K_RETSTACK,
	TB_CS_K_USER,
	TB_CS_K_KERNEL,
	TB_CS_K_SYNC_PERIOD,
	TB_CS_K_ADDR0,
	TB_CS_NR_KEYS = TB_CS_K_ADDR0 + TB_ETM_MAX_ADDR_RANGES,
};

static const struct tb_cfg_key tb_cs_keys[TB_CS_NR_KEYS] = {
	[TB_CS_K_CYCACC] = { "cycacc", TB_CFG_BOOL, 0, 0, 1, 0, 0,
		"cycle counts with the atoms (TRCCONFIGR.CCI)" },
	[TB_CS_K_CYC_THRESH] = { "cyc_thresh", TB_CFG_UINT, 0, 1, 4095, 0, 0x100,
		"cycle count threshold (TRCCCCTLR), >= TRCIDR3.CCITMIN" },
	[TB_CS_K_TIMESTAMP] = { "timestamp", TB_CFG_BOOL, 0, 0, 1, 0, 1,
		"global timestamps (TRCCONFIGR.TS)" },
	[TB_CS_K_TS_INTERVAL] = { "ts_interval", TB_CFG_UINT, 0, 0, 65535, 0, 0,
		"also a timestamp every N cycles (counter 0); 0: at syncs only" },
	[TB_CS_K_CONTEXTID] = { "contextid", TB_CFG_BOOL, 0, 0, 1, 0, 0,
		"context ID (PID) packets (TRCCONFIGR.CID)" },
	[TB_CS_K_VMID] = { "vmid", TB_CFG_BOOL, 0, 0, 1, 0, 0,
		"virtual machine ID packets (TRCCONFIGR.VMID)" },
	[TB_CS_K_BRANCH_BROADCAST] = { "branch_broadcast", TB_CFG_BOOL, 0, 0, 1, 0, 0,
		"an address for every branch (TRCCONFIGR.BB)" },
	[TB_CS_K_RETSTACK] = { "retstack", TB_CFG_BOOL, 0, 0, 1, 0, 0,
		"return stack: no address for predicted returns (TRCCONFIGR.RS)" },
	[TB_CS_K_USER] = { "user", TB_CFG_BOOL, 0, 0, 1, 0, 1,
		"trace EL0" },
	[TB_CS_K_KERNEL] = { "kernel", TB_CFG_BOOL, TB_CFG_F_PRIV | TB_CFG_F_KERNEL, 0, 1, 0, 0,
		"trace EL1 (and EL2 under VHE); needs CAP_PERFMON" },
	[TB_CS_K_SYNC_PERIOD] = { "sync_period", TB_CFG_UINT, 0, 8, 20, 0, 12,
		"A-sync and trace info every 2^N bytes (TRCSYNCPR)" },
	[TB_CS_K_ADDR0] = { "addr0", TB_CFG_RANGE, 0, 0, 0, 0, 0,
		"address range 0: filter (trace only inside) or stop (ViewInst stop)" },
	[TB_CS_K_ADDR0 + 1] = { "addr1", TB_CFG_RANGE, 0, 0, 0, 0, 0,
		"address range 1: filter or stop" },
	[TB_CS_K_ADDR0 + 2] = { "addr2", TB_CFG_RANGE, 0, 0, 0, 0, 0,
		"address range 2: filter or stop" },
	[TB_CS_K_ADDR0 + 3] = { "addr3", TB_CFG_RANGE, 0, 0, 0, 0, 0,
		"address range 3: filter or stop" },
};

/* The keys as this CPU's ETM ID registers allow them. */
static int tb_cs_cfg_keys(const struct tb_backend *b, unsigned int cpu,
			  struct tb_cfg_key *keys, unsigned int max)
{
	struct tb_cs_etm *e = tb_cs_etm(cpu);
	const u32 *idr;
	unsigned int i, pairs;
	u32 ccitmin;

	if (!e)
		return -ENODEV;
	if (max < TB_CS_NR_KEYS)
		return -EINVAL;
	idr = e->caps.trcidr;
	memcpy(keys, tb_cs_keys, sizeof(tb_cs_keys));
#define TB_UNSUP(k, cond) do { \
		if (!(cond)) \
			keys[k].flags |= TB_CFG_F_UNSUPPORTED; \
	} while (0)
	TB_UNSUP(TB_CS_K_CYCACC, idr[0] & TB_ETM_IDR0_TRCCCI);
	TB_UNSUP(TB_CS_K_CYC_THRESH, idr[0] & TB_ETM_IDR0_TRCCCI);
	TB_UNSUP(TB_CS_K_TIMESTAMP, FIELD_GET(TB_ETM_IDR0_TSSIZE, idr[0]));
	TB_UNSUP(TB_CS_K_TS_INTERVAL, FIELD_GET(TB_ETM_IDR0_TSSIZE, idr[0]) &&
		 FIELD_GET(TB_ETM_IDR5_NUMCNTR, idr[5]) &&
		 FIELD_GET(TB_ETM_IDR4_NUMRSPAIR, idr[4]));
	TB_UNSUP(TB_CS_K_CONTEXTID, FIELD_GET(TB_ETM_IDR2_CIDSIZE, idr[2]));
	TB_UNSUP(TB_CS_K_VMID, FIELD_GET(TB_ETM_IDR2_VMIDSIZE, idr[2]));
	TB_UNSUP(TB_CS_K_BRANCH_BROADCAST, idr[0] & TB_ETM_IDR0_TRCBB);
	TB_UNSUP(TB_CS_K_RETSTACK, idr[0] & TB_ETM_IDR0_RETSTACK);
	TB_UNSUP(TB_CS_K_SYNC_PERIOD, !(idr[3] & TB_ETM_IDR3_SYNCPR));
#undef TB_UNSUP
	ccitmin = FIELD_GET(TB_ETM_IDR3_CCITMIN, idr[3]);
	keys[TB_CS_K_CYC_THRESH].min = max_t(u32, ccitmin, 1);
	keys[TB_CS_K_CYC_THRESH].def = max_t(u32, ccitmin, 0x100);
	if (!FIELD_GET(TB_ETM_IDR0_TSSIZE, idr[0]))
		keys[TB_CS_K_TIMESTAMP].def = 0;
	pairs = FIELD_GET(TB_ETM_IDR4_NUMACPAIRS, idr[4]);
	for (i = 0; i < TB_ETM_MAX_ADDR_RANGES; i++)
		if (i >= pairs)
			keys[TB_CS_K_ADDR0 + i].flags |= TB_CFG_F_UNSUPPORTED;
	return TB_CS_NR_KEYS;
}

/* The EL exclusion bits for TRCVICTLR / TRCACATR, from user= and kernel=. */
static u32 tb_cs_exclude(const struct tb_cfg_val *v)
{
	u32 ex = 0xf << TB_ETM_VICTLR_EXLEVEL_S_SHIFT;	/* no Secure ELs */

	if (!v[TB_CS_K_USER].v)
		ex |= TB_ETM_VICTLR_EXLEVEL_NS(0);
	if (!v[TB_CS_K_KERNEL].v) {
		ex |= TB_ETM_VICTLR_EXLEVEL_NS(1) | TB_ETM_VICTLR_EXLEVEL_NS(2);
	} else {
#ifdef CONFIG_ARM64
		/* Without VHE the kernel is not at EL2: keep EL2 out. */
		if (!is_kernel_in_hyp_mode())
			ex |= TB_ETM_VICTLR_EXLEVEL_NS(2);
#else
		ex |= TB_ETM_VICTLR_EXLEVEL_NS(2);
#endif
	}
	return ex;
}

static int tb_cs_cfg_apply(struct tb_session *s, struct tb_cfg_val *v, void *out,
			   u64 *conflict)
{
	struct tb_cs_prog *p = out;
	u32 ex = tb_cs_exclude(v);
	unsigned int i;

	memset(p, 0, sizeof(*p));
	/* Instruction trace, no data trace, no conditional trace (ETMv4 A-profile). */
	if (v[TB_CS_K_CYCACC].v) {
		p->configr |= TB_ETM_CONFIGR_CCI;
		p->ccctlr = v[TB_CS_K_CYC_THRESH].v;
	}
	if (v[TB_CS_K_TIMESTAMP].v) {
		p->configr |= TB_ETM_CONFIGR_TS;
		if (v[TB_CS_K_TS_INTERVAL].v) {
			/*
			 * Counter 0 counts every cycle (resource 1, always) and
			 * reloads itself; resource selector 2 fires at zero and
			 * is the timestamp event.
			 */
			p->cntrldvr0 = v[TB_CS_K_TS_INTERVAL].v;
			p->cntctlr0 = TB_ETM_CNTCTLR_RLDSELF | TB_ETM_VICTLR_EVENT_TRUE;
			p->rsctlr2 = (TB_ETM_RSCTLR_GROUP_CNTR << TB_ETM_RSCTLR_GROUP_SHIFT) | 1;
			p->tsctlr = 2;
		}
	}
	if (v[TB_CS_K_CONTEXTID].v)
		p->configr |= TB_ETM_CONFIGR_CID;
	if (v[TB_CS_K_VMID].v)
		p->configr |= TB_ETM_CONFIGR_VMID;
	if (v[TB_CS_K_BRANCH_BROADCAST].v) {
		p->configr |= TB_ETM_CONFIGR_BB;
		p->bbctlr = 0;	/* no range selected: every branch */
	}
	if (v[TB_CS_K_RETSTACK].v)
		p->configr |= TB_ETM_CONFIGR_RS;
	p->syncpr = v[TB_CS_K_SYNC_PERIOD].v;
	/* FEAT_TRF: the ELs left out are prohibited too (etm4x_allow_trace()). */
	if (!v[TB_CS_K_USER].v)
		p->trfcr_excl |= TB_TRFCR_E0TRE;
	if (!v[TB_CS_K_KERNEL].v)
		p->trfcr_excl |= TB_TRFCR_E1TRE;
	p->victlr = TB_ETM_VICTLR_EVENT_TRUE | TB_ETM_VICTLR_SSSTATUS | ex;
	for (i = 0; i < TB_ETM_MAX_ADDR_RANGES; i++) {
		const struct tb_cfg_val *a = &v[TB_CS_K_ADDR0 + i];
		/* TRCACATR: instruction address, the same EL exclusions. */
		u64 acatr = (u64)(ex >> TB_ETM_VICTLR_EXLEVEL_S_SHIFT) <<
			TB_ETM_ACATR_EXLEVEL_S_SHIFT;

		if (a->mode == TB_CFG_RANGE_OFF)
			continue;
		p->acvr[2 * i] = a->v;
		p->acvr[2 * i + 1] = a->end;
		p->acatr[2 * i] = acatr;
		p->acatr[2 * i + 1] = acatr;
		p->nr_ac = 2 * i + 2;
		if (a->mode == TB_CFG_RANGE_FILTER)
			p->viiectlr |= TB_ETM_VIIECTLR_INCLUDE(i);
		else	/* stop: ViewInst stops at the range's first address */
			p->vissctlr |= BIT(16 + 2 * i);
	}
	return 0;
}

/* --- AUX buffers ------------------------------------------------------- */

/* An ETB/ETF's SRAM on its way to the AUX ring (tb_cs_copy_begin()). */
struct tb_cs_copy {
	bool active;			/* the sink is stopped, its SRAM not all read */
	bool at_least;			/* it had wrapped: more was lost than counted */
	bool unsure;			/* its flush timed out */
	u64 head;			/* AUX position of its first byte */
	u64 bytes;			/* to read through RRD */
	u64 avail;			/* of which fit in the ring */
	u64 done;			/* read so far */
};

/*
 * An ETR's run, stopped (tb_cs_sink_halt()) and not yet published: its
 * bytes go to the CPU (tb_cs_span_sync()), then it is published
 * (tb_cs_span_done()). Under s->trace_lock, but for the syncs.
 */
struct tb_cs_span {
	bool active;			/* stopped, not yet published */
	bool memerr;			/* the sink reported an error: nothing kept */
	bool at_least;			/* lost is a lower bound (wrapped) */
	bool unsure;			/* an ETM did not drain, or the flush timed out */
	u64 head;			/* AUX position of its first byte */
	u64 w;				/* bytes kept */
	u64 lost;			/* bytes that did not fit */
	u64 room;			/* free AUX bytes at the stop */
	u64 pad;			/* padding after w, to the next granule */
	bool blank;			/* w: null frames over a dropped run (placed) */
};

struct tb_cs_buf {
	struct tb_session *s;
	struct tb_aux *aux;		/* the session's AUX area, until free_aux */
	struct tb_cs_sink *sink;
	unsigned int sink_idx;
	struct device *dev;		/* DMA device, or NULL: phys == bus */
	bool pm;			/* runtime PM references held (tb_cs_buf_pm()) */
	dma_addr_t *chunk_dma;		/* per AUX chunk */
	bool *chunk_sync;		/* per AUX chunk: dma_need_sync() */
	bool tables_sync;		/* a table needs dma_need_sync() */
	bool sync;			/* a chunk or a table does */
	u64 *chunk_off;			/* AUX offset of each chunk */
	struct tb_sg sg;
	unsigned int table_pages;	/* SG table pages, charged as AUX */
	bool use_sg;
	/* Run state, under s->trace_lock. */
	bool running;			/* the sink captures (or is being read out) */
	bool paused;			/* waiting for room (no-overwrite) */
	bool in_cycle;			/* a drain cycle has the sink: starts wait for it */
	bool undrained;			/* an ETM did not drain since the sink started */
	int fail;			/* an ETM did not restart in the cycle: its error */
	unsigned int fail_cpu;
	struct tb_cs_copy copy;		/* ETB/ETF copy-out */
	/*
	 * Where the DMA syncs wait for process context (tb_cs_defer()):
	 * a stopped run to publish, the SG tables rotated and synced for a
	 * start at tables_head (tb_cs_prep()), a start that found them not
	 * ready (the cycle starts the sink and the ETMs).
	 */
	struct tb_cs_span span;
	bool tables_ready;
	u64 tables_head, tables_rot, tables_len;
	bool deferred;
	u64 start_virt;			/* buffer offset the sink started at */
	/*
	 * Task sessions, a shared sink running on (tb_cs_place()): the
	 * highest AUX position a SWITCH record was given (never behind the
	 * head: where the run's bytes must at least be published, as kept
	 * or as null frames), the position for the record being written,
	 * and whether a thread's position in the run could not be placed
	 * (the buffer wrapped): then nothing of the run is kept.
	 */
	u64 pos_hi;
	u64 pos_next;
	bool pos_next_set;
	bool pos_placed;		/* a position read from the running sink */
	bool pos_lost;
	u64 rot;			/* AUX offset of the buffer's offset 0 */
	u64 etr_size;			/* ETR: the buffer's length (RSZ) */
	u64 last_w;			/* bytes of the last cycle */
	cpumask_var_t want;		/* CPUs the session traces now */
	cpumask_var_t on;		/* ETMs enabled (a subset of want) */
	/* Every ETM gets the session's programming: the last one recorded, */
	struct tb_cs_prog rec_prog;
	cpumask_var_t etm_recorded;	/* and the CPUs with an ETM record of it */
	/*
	 * The drain cycle, in process context (tb_cs_cycle_run()): the drain
	 * timer kicks it through an irq_work (it runs under s->trace_lock in
	 * a hard hrtimer, where a workqueue's locks may not be taken), the
	 * irq_work queues the work. cycle_lock makes it one cycle at a time
	 * (the work and SNAPSHOT); ipi is the cycle's CPUs, under it.
	 */
	struct irq_work kick;
	struct work_struct work;
	struct mutex cycle_lock;	/* one cycle at a time; guards ipi */
	cpumask_var_t ipi;
};

static void *tb_cs_table_alloc(void *ctx, u64 *phys)
{
	struct tb_cs_buf *buf = ctx;
	/* __GFP_ACCOUNT: the memory cgroup sees the tables too. */
	struct page *p = alloc_page(GFP_KERNEL_ACCOUNT | __GFP_ZERO);

	if (!p)
		return NULL;
	*phys = page_to_phys(p);
	if (buf->dev) {
		dma_addr_t d = dma_map_page(buf->dev, p, 0, PAGE_SIZE, DMA_TO_DEVICE);

		if (dma_mapping_error(buf->dev, d)) {
			__free_page(p);
			return NULL;
		}
		*phys = d;
		/* A table is written under trace_lock: tb_cs_sync()'s comment. */
		if (dma_need_sync(buf->dev, d))
			buf->tables_sync = true;
	}
	buf->table_pages++;
	return page_address(p);
}

/* Also from a failed tb_sg_build(): unmap here, where the address is known. */
static void tb_cs_table_free(void *ctx, void *table)
{
	struct tb_cs_buf *buf = ctx;
	unsigned int i;

	for (i = 0; buf->dev && i < buf->sg.nr_tables; i++)
		if (buf->sg.tables[i].ent == table)
			dma_unmap_page(buf->dev, buf->sg.tables[i].phys, PAGE_SIZE,
				       DMA_TO_DEVICE);
	buf->table_pages--;
	free_page((unsigned long)table);
}

static void *tb_cs_array_alloc(void *ctx, size_t bytes)
{
	return kvzalloc(bytes, GFP_KERNEL);
}

static void tb_cs_array_free(void *ctx, void *p)
{
	kvfree(p);
}

static void tb_cs_unmap(struct tb_cs_buf *buf, struct tb_aux *aux)
{
	unsigned int i;

	/* The tables: tb_cs_table_free(). */
	if (buf->dev && buf->chunk_dma)
		for (i = 0; i < aux->nr_chunks; i++)
			if (buf->chunk_dma[i] && !dma_mapping_error(buf->dev, buf->chunk_dma[i]))
				dma_unmap_page(buf->dev, buf->chunk_dma[i],
					       PAGE_SIZE << aux->chunks[i].order,
					       DMA_FROM_DEVICE);
}

static void tb_cs_free_buf(struct tb_cs_buf *buf, struct tb_aux *aux)
{
	struct tb_sg_alloc a = {
		.ctx = buf,
		.table_free = tb_cs_table_free,
		.array_free = tb_cs_array_free,
	};

	tb_cs_unmap(buf, aux);
	tb_sg_free(&buf->sg, &a);
	kfree(buf->chunk_dma);
	kfree(buf->chunk_sync);
	kfree(buf->chunk_off);
	free_cpumask_var(buf->ipi);
	free_cpumask_var(buf->etm_recorded);
	free_cpumask_var(buf->want);
	free_cpumask_var(buf->on);
	kfree(buf);
}

static void tb_cs_kick(struct irq_work *w);
static void tb_cs_work(struct work_struct *w);
static void tb_cs_prep(struct tb_cs_buf *buf);

/*
 * Runtime PM references (get) on the first limit devices a session
 * uses, or given back (!get): each ETM of its CPUs and the links on its
 * way (static links too, as coresight_grab_device() takes every device
 * of a path: coresight-core.c), then the sink. A failed get gives back
 * what it took. A static link another driver holds is referenced all
 * the same (tb_cs_check_owner()).
 */
static int tb_cs_buf_pm(struct tb_cs_buf *buf, bool get, unsigned int limit)
{
	unsigned int cpu, i, n = 0;
	struct device *dev;
	bool foreign;
	int ret;

	for_each_cpu(cpu, buf->s->cpus) {
		struct tb_cs_etm *e = tb_cs_etm(cpu);

		for (i = 0; e && i <= e->nr_hops; i++, n++) {
			if (n == limit)
				return 0;
			dev = i < e->nr_hops ? e->path[i].d->dev : e->dev;
			foreign = i < e->nr_hops && e->path[i].d->pm_foreign;
			if (!get) {
				if (foreign)
					pm_runtime_put(dev);
				else
					tb_cs_pm_put(dev);
				continue;
			}
			ret = foreign ? pm_runtime_resume_and_get(dev) : tb_cs_pm_get(dev);
			if (ret) {
				tb_cs_buf_pm(buf, false, n);
				return ret;
			}
		}
	}
	if (n == limit)
		return 0;
	if (!get) {
		tb_cs_pm_put(buf->sink->dev);
		return 0;
	}
	ret = tb_cs_pm_get(buf->sink->dev);
	if (ret)
		tb_cs_buf_pm(buf, false, n);
	return ret;
}

static int tb_cs_setup_aux(struct tb_session *s, struct tb_aux *aux)
{
	unsigned int cpu;
	struct tb_cs_etm *e = tb_cs_etm(cpumask_first(s->cpus));
	struct tb_sg_alloc a = {
		.table_alloc = tb_cs_table_alloc,
		.table_free = tb_cs_table_free,
		.array_alloc = tb_cs_array_alloc,
		.array_free = tb_cs_array_free,
	};
	struct tb_sg_chunk *chunks = NULL;
	struct tb_cs_buf *buf;
	unsigned int i;
	u64 off = 0;
	int ret;

	if (!e)
		return -ENODEV;
	buf = kzalloc(sizeof(*buf), GFP_KERNEL);
	if (!buf)
		return -ENOMEM;
	buf->s = s;
	buf->aux = aux;
	init_irq_work(&buf->kick, tb_cs_kick);
	INIT_WORK(&buf->work, tb_cs_work);
	mutex_init(&buf->cycle_lock);
	buf->sink_idx = e->sink;
	buf->sink = &tb_cs_sinks[e->sink];
	buf->dev = buf->sink->dev;
	a.ctx = buf;
	ret = -ENOMEM;
	if (!zalloc_cpumask_var(&buf->want, GFP_KERNEL) ||
	    !zalloc_cpumask_var(&buf->on, GFP_KERNEL) ||
	    !zalloc_cpumask_var(&buf->etm_recorded, GFP_KERNEL) ||
	    !zalloc_cpumask_var(&buf->ipi, GFP_KERNEL))
		goto fail;
	buf->chunk_dma = kcalloc(aux->nr_chunks, sizeof(*buf->chunk_dma), GFP_KERNEL);
	buf->chunk_sync = kcalloc(aux->nr_chunks, sizeof(*buf->chunk_sync), GFP_KERNEL);
	buf->chunk_off = kcalloc(aux->nr_chunks, sizeof(*buf->chunk_off), GFP_KERNEL);
	chunks = kcalloc(aux->nr_chunks, sizeof(*chunks), GFP_KERNEL);
	if (!buf->chunk_dma || !buf->chunk_sync || !buf->chunk_off || !chunks)
		goto fail;
	for (i = 0; i < aux->nr_chunks; i++) {
		struct page *pg = aux->chunks[i].page;
		u64 size = PAGE_SIZE << aux->chunks[i].order;

		buf->chunk_off[i] = off;
		off += size;
		if (buf->sink->type != TRACEBUF_CS_SINK_ETR)
			continue;
		if (buf->dev) {
			buf->chunk_dma[i] = dma_map_page(buf->dev, pg, 0, size,
							 DMA_FROM_DEVICE);
			if (dma_mapping_error(buf->dev, buf->chunk_dma[i]))
				goto fail;
			buf->chunk_sync[i] = dma_need_sync(buf->dev, buf->chunk_dma[i]);
		} else {
			buf->chunk_dma[i] = page_to_phys(pg);
		}
		chunks[i].phys = buf->chunk_dma[i];
		chunks[i].size = size;
	}
	if (buf->sink->type == TRACEBUF_CS_SINK_ETR) {
		if (buf->sink->sg) {
			ret = tb_sg_build(&buf->sg, chunks, aux->nr_chunks, &a);
			if (ret)
				goto fail;
			buf->use_sg = true;
		} else if (aux->nr_chunks != 1) {
			ret = -ENOMEM;	/* aux_contiguous() asked for one chunk */
			goto fail;
		}
	}
	/* One session per sink: it holds it until free_aux. */
	mutex_lock(&tb_cs_owner_lock);
	if (tb_cs_owner[buf->sink_idx]) {
		mutex_unlock(&tb_cs_owner_lock);
		ret = -EBUSY;
		goto fail;
	}
	tb_cs_owner[buf->sink_idx] = s;
	mutex_unlock(&tb_cs_owner_lock);
	/* Every component it uses clocked and powered until free_aux. */
	buf->pm = tb_cs_pm_wanted();
	ret = buf->pm ? tb_cs_buf_pm(buf, true, UINT_MAX) : 0;
	if (ret) {
		pr_warn("tracebuf: coresight: a component of the session cannot be powered up (%d)\n",
			ret);
		mutex_lock(&tb_cs_owner_lock);
		tb_cs_owner[buf->sink_idx] = NULL;
		mutex_unlock(&tb_cs_owner_lock);
		goto fail;
	}
	/* Powered up, perhaps from off: its idle links as at probe. */
	if (buf->pm)
		for_each_cpu(cpu, s->cpus)
			if (tb_cs_etm(cpu))
				tb_cs_path_reset_idle(tb_cs_etm(cpu));
	kfree(chunks);
	for (i = 0; i < aux->nr_chunks; i++)
		buf->sync |= buf->chunk_sync[i];
	buf->sync |= buf->tables_sync;
	aux->priv = buf;
	/* Charged by the caller (tb_session_aux_create), as AUX pages. */
	aux->table_pages = buf->table_pages;
	/* The first ENABLE's tables (no cycle can run yet: not enabled). */
	tb_cs_prep(buf);
	return 0;
fail:
	kfree(chunks);
	tb_cs_free_buf(buf, aux);
	return ret;
}

/* --- running the sink (s->trace_lock held, any CPU: MMIO) ---------------- */

/*
 * Tests only: a DMA sync to leave out, to show that a non-coherent
 * sink's bytes then never reach the consumer ("cpu": before publishing)
 * or its tables never reach the device ("tables").
 */
static const char * const tb_cs_skip_sync_names[] = { "none", "cpu", "tables" };
enum { TB_CS_SKIP_SYNC_NONE, TB_CS_SKIP_SYNC_CPU, TB_CS_SKIP_SYNC_TABLES };
static int tb_cs_skip_sync;

static int tb_cs_skip_sync_set(const char *val, const struct kernel_param *kp)
{
	unsigned int i;

	for (i = 0; i < ARRAY_SIZE(tb_cs_skip_sync_names); i++)
		if (sysfs_streq(val, tb_cs_skip_sync_names[i])) {
			WRITE_ONCE(tb_cs_skip_sync, i);
			return 0;
		}
	return -EINVAL;
}

static int tb_cs_skip_sync_get(char *buf, const struct kernel_param *kp)
{
	return sysfs_emit(buf, "%s\n", tb_cs_skip_sync_names[READ_ONCE(tb_cs_skip_sync)]);
}

static const struct kernel_param_ops tb_cs_skip_sync_ops = {
	.set	= tb_cs_skip_sync_set,
	.get	= tb_cs_skip_sync_get,
};
module_param_cb(test_skip_dma_sync, &tb_cs_skip_sync_ops, NULL, 0600);
MODULE_PARM_DESC(test_skip_dma_sync, "tests only: leave out a DMA sync (none, cpu, tables)");

/*
 * Make the device's writes to AUX [off, off + len) visible to the CPU,
 * or (to_device) the CPU's writes there to the device.
 *
 * Only where dma_need_sync() says the mapping needs it (a non-coherent
 * sink, an IOMMU's DMA ops, a bounce buffer), as page_pool skips its
 * syncs: for a coherent, directly mapped ETR the call would do nothing
 * but CONFIG_DMA_API_DEBUG's check, which takes a spinlock_t (its hash
 * bucket's), not allowed in the IPIs, the scheduler and under the raw
 * trace_lock where the sink stops and starts (lockdep's "Invalid wait
 * context"; a sleeping lock on PREEMPT_RT).
 */
static void tb_cs_sync(struct tb_cs_buf *buf, struct tb_aux *aux, u64 off, u64 len,
		       bool to_device)
{
	unsigned int i;

	if (!buf->dev || buf->sink->type != TRACEBUF_CS_SINK_ETR)
		return;
	if (!to_device && READ_ONCE(tb_cs_skip_sync) == TB_CS_SKIP_SYNC_CPU)
		return;
	len = min(len, aux->size);
	while (len) {
		u64 o = off & aux->mask, n;

		for (i = 0; i + 1 < aux->nr_chunks && buf->chunk_off[i + 1] <= o; i++)
			;
		n = min(len, (PAGE_SIZE << aux->chunks[i].order) - (o - buf->chunk_off[i]));
		if (!buf->chunk_sync[i])
			;	/* coherent and direct: the sync would only be checked */
		else if (to_device)
			dma_sync_single_for_device(buf->dev, buf->chunk_dma[i] +
						   (o - buf->chunk_off[i]), n, DMA_FROM_DEVICE);
		else
			dma_sync_single_for_cpu(buf->dev, buf->chunk_dma[i] +
						(o - buf->chunk_off[i]), n, DMA_FROM_DEVICE);
		off += n;
		len -= n;
	}
}

/* The SG tables as the CPU wrote them, to the sink. */
static void tb_cs_sync_tables(struct tb_cs_buf *buf)
{
	unsigned int i;

	if (buf->tables_sync && READ_ONCE(tb_cs_skip_sync) != TB_CS_SKIP_SYNC_TABLES)
		for (i = 0; i < buf->sg.nr_tables; i++)
			dma_sync_single_for_device(buf->dev, buf->sg.tables[i].phys,
						   PAGE_SIZE, DMA_TO_DEVICE);
}

/*
 * Fill the AUX ring from position from up to end with formatter frames
 * that carry nothing (trace ID 0, which decoders ignore), made visible
 * to the sink. The caller counts them as padding and publishes them.
 */
static void tb_cs_fill_null(struct tb_cs_buf *buf, struct tb_aux *aux, u64 from, u64 end)
{
	u64 p;

	for (p = from; p < end; p++) {
		u64 pos = p & aux->mask;
		u8 *b = page_address(aux->pages[pos >> PAGE_SHIFT]) + (pos & ~PAGE_MASK);

		/* Frame byte 0: an ID change to the null ID 0; the rest 0. */
		*b = (p % TB_CS_FRAME_SIZE) ? 0 : 0x01;
	}
	tb_cs_sync(buf, aux, from, end - from, true);
}

/* Null frames from position from to the next 4 KiB granule, returned. */
static u64 tb_cs_pad_write(struct tb_cs_buf *buf, struct tb_aux *aux, u64 from)
{
	u64 end = round_up(from, TB_SG_GRANULE);

	tb_cs_fill_null(buf, aux, from, end);
	return end;
}

/* tb_cs_pad_write() and counted, under trace_lock. */
static u64 tb_cs_pad(struct tb_cs_buf *buf, struct tb_aux *aux, u64 from)
{
	u64 end = tb_cs_pad_write(buf, aux, from);

	tb_aux_count_padding(aux, end - from);
	return end;
}

/*
 * The DMA syncs of a run wait for process context (the drain cycle, or
 * DISABLE's stopped op), outside trace_lock: the sink needs them
 * (dma_need_sync()), and the session is not per task, whose last stop
 * in the scheduler must publish the run before the thread's OUT record
 * (design.md: a limit).
 */
static bool tb_cs_defer(const struct tb_cs_buf *buf)
{
	return buf->sync && buf->s->setup.target != TRACEBUF_TARGET_TASK;
}

/* Pad from the head to the next granule, publish, return the new head. */
static u64 tb_cs_pad_granule(struct tb_cs_buf *buf, struct tb_aux *aux)
{
	u64 end = tb_cs_pad(buf, aux, tb_aux_head(aux));

	tb_aux_publish(aux, end, 0);
	return end;
}

/*
 * Start the sink so that it writes at AUX position head.
 *
 * No-overwrite mode: the ETR's buffer is exactly the free space, from
 * the head (padded to a 4 KiB granule) up to the consumer's tail
 * (rounded down to a granule): RSZ is that length, and with a table its
 * last entry is LAST. A wrap then overwrites only what this run wrote,
 * never a published byte the consumer has not read. Snapshot mode: the
 * buffer is the whole ring, from the head's granule on.
 *
 * -EAGAIN: the syncs are deferred (tb_cs_defer()) and the last run is
 * not yet published, or the head needs padding, or the tables were not
 * prepared for it: tb_cs_prep() in the drain cycle does that first.
 */
static int tb_cs_sink_start(struct tb_cs_buf *buf, struct tb_aux *aux)
{
	struct tb_cs_sink *k = buf->sink;
	u64 head = tb_aux_head(aux), off = head & aux->mask, rwp, len;
	int ret;

	if (k->type != TRACEBUF_CS_SINK_ETR) {
		ret = tb_tmc_enable_sram(k);
		goto out;
	}
	/* Deferred syncs: the last run is published and padded first. */
	if (tb_cs_defer(buf) && buf->span.active)
		return -EAGAIN;
	/*
	 * The buffer starts at the head: that must be a granule. Only a
	 * flat SoC-600 ETR in snapshot mode continues mid-buffer, at RWP
	 * (as __tmc_etr_enable_hw() restores RWP in flat mode only); with
	 * scatter-gather, capture always starts at the table's first page,
	 * as the kernel starts it (it never writes RWP in that mode).
	 */
	if ((!aux->snapshot || !k->save_restore || buf->use_sg) &&
	    (head & (TB_SG_GRANULE - 1))) {
		if (tb_cs_defer(buf))
			return -EAGAIN;		/* tb_cs_prep() pads */
		head = tb_cs_pad_granule(buf, aux);
		off = head & aux->mask;
	}
	len = aux->snapshot ? aux->size :
		round_down(tb_aux_free_bytes(aux), TB_SG_GRANULE);
	if (!buf->use_sg) {
		if (aux->snapshot) {
			buf->rot = 0;
			buf->start_virt = off;
		} else {
			/* Contiguous: up to the end of the area at most. */
			len = min(len, aux->size - off);
			buf->rot = off;
			buf->start_virt = 0;
		}
		buf->etr_size = len;
		ret = tb_tmc_enable_etr(k, buf->chunk_dma[0] + buf->rot, false, len,
					buf->chunk_dma[0] + off);
		goto out;
	}
	/*
	 * Offset 0 of the ETR's buffer at the head's granule; the head is on
	 * it but in snapshot mode with a TMC that saves and restores RWP.
	 */
	if (tb_cs_defer(buf)) {
		/* Rotated and synced for this head in process context. */
		if (!buf->tables_ready || buf->tables_head != head)
			return -EAGAIN;
		buf->tables_ready = false;	/* the run's until it stops */
		buf->rot = buf->tables_rot;
		len = buf->tables_len;
	} else {
		buf->rot = off & ~(u64)(TB_SG_GRANULE - 1);
		tb_sg_rotate(&buf->sg, buf->rot, len);
		tb_cs_sync_tables(buf);
	}
	buf->etr_size = len;
	buf->start_virt = off - buf->rot;
	rwp = tb_sg_phys(&buf->sg, off);
	ret = tb_tmc_enable_etr(k, tb_sg_base(&buf->sg), true, len, rwp);
out:
	buf->running = !ret;
	return ret;
}

static void tb_cs_lost(struct tb_session *s, u64 bytes, bool at_least)
{
	struct tracebuf_rec_lost *rec;
	struct tracebuf_wr wr;

	if (tracebuf_reserve(s->ring, TRACEBUF_REC_LOST, sizeof(*rec), &wr))
		return;
	rec = (struct tracebuf_rec_lost *)wr.rec;
	rec->count = bytes;
	rec->reason = TRACEBUF_LOST_AUX_OVERRUN;
	rec->flags = at_least ? TRACEBUF_LOST_F_AT_LEAST : 0;
	tracebuf_commit(s->ring, &wr);
}

/*
 * ETB/ETF, the sink stopped: start reading its SRAM out to the AUX ring
 * at the head, word by word through RRD. RRP and RWP are byte addresses
 * in the SRAM (as coresight-tmc-etf.c reads them). Bytes without room
 * are read too and counted, exactly; a wrapped SRAM (Full) lost an
 * unknown amount. Under trace_lock; the copy itself is tb_cs_copy_some().
 */
static void tb_cs_copy_begin(struct tb_cs_buf *buf, struct tb_aux *aux)
{
	struct tb_cs_sink *k = buf->sink;
	struct tb_cs_copy *c = &buf->copy;
	u32 sts = tb_tmc_status(k), rrp = tb_tmc_rrp(k), rwp = (u32)tb_tmc_rwp(k);
	u64 size = k->sram_size;
	u64 room = aux->snapshot ? ~0ULL : tb_aux_free_bytes(aux);

	if (sts & TB_TMC_STS_FULL) {
		c->bytes = size;	/* wrapped: all of it, the oldest at RWP */
		c->at_least = true;
		tb_cs_unlock(k->io, k->base);
		k->io->write(k->base, TB_TMC_RRP, rwp);
		tb_cs_lock(k->io, k->base);
	} else {
		c->bytes = (rwp - rrp) & (size - 1);
		c->at_least = false;
	}
	c->bytes &= ~3ULL;
	c->avail = min(c->bytes, room) & ~3ULL;
	c->head = tb_aux_head(aux);
	c->done = 0;
	c->active = true;
}

/* ETB/ETF: flush and stop the sink, then begin its copy-out (nothing read). */
static void tb_cs_sram_halt(struct tb_cs_buf *buf, struct tb_aux *aux)
{
	bool unsure = tb_tmc_flush(buf->sink, true) != 0;

	tb_cs_copy_begin(buf, aux);
	buf->copy.unsure = unsure;
}

/*
 * Up to max more bytes of the copy-out, under trace_lock: only the drain
 * cycle calls it, TB_CS_COPY_CHUNK bytes at a time with the lock (and
 * interrupts) released in between. True once every byte was read.
 */
static bool tb_cs_copy_some(struct tb_cs_buf *buf, struct tb_aux *aux, u64 max)
{
	struct tb_cs_copy *c = &buf->copy;
	u64 end = c->done + min(max, c->bytes - c->done);

	for (; c->done < end; c->done += 4) {
		u32 w = tb_tmc_read_word(buf->sink);
		u64 pos = (c->head + c->done) & aux->mask;

		if (c->done < c->avail)
			memcpy(page_address(aux->pages[pos >> PAGE_SHIFT]) +
			       (pos & ~PAGE_MASK), &w, 4);
	}
	return c->done >= c->bytes;
}

/*
 * Flush and stop the sink and account for what it wrote since it
 * started: the run becomes buf->span, for tb_cs_span_sync() and
 * tb_cs_span_done(). An ETB/ETF was stopped and read out before
 * (tb_cs_sram_halt(), then tb_cs_copy_some() in the drain cycle): no
 * SRAM word is read here, with interrupts off. unsure: an ETM did not
 * drain. Under trace_lock, with every ETM of the sink off; no DMA sync
 * here (tb_cs_sync()), as the kernel's tmc_update_etr_buffer() syncs
 * once the ETR is disabled.
 */
static void tb_cs_sink_halt(struct tb_cs_buf *buf, struct tb_aux *aux, bool unsure)
{
	struct tb_cs_sink *k = buf->sink;
	struct tb_cs_span *sp = &buf->span;
	u64 head = tb_aux_head(aux), w = 0, lost = 0, room, virt, placed = 0;
	bool at_least = false, wrapped;
	u32 sts;

	if (!buf->running)
		return;
	memset(sp, 0, sizeof(*sp));
	room = aux->snapshot ? ~0ULL : tb_aux_free_bytes(aux);
	/* SWITCH records placed threads up to pos_hi in this run. */
	if (buf->pos_hi > head)
		placed = buf->pos_hi - head;
	if (k->type != TRACEBUF_CS_SINK_ETR) {
		/* Only the cycle reads it out: tb_cs_cycle_run(). */
		if (WARN_ON_ONCE(!buf->copy.active))
			tb_cs_sram_halt(buf, aux);
		if (WARN_ON_ONCE(buf->copy.done < buf->copy.bytes)) {
			/* Not read: counted lost, never published. */
			buf->copy.avail = min(buf->copy.avail, buf->copy.done);
			buf->copy.at_least = true;
		}
		buf->copy.active = false;
		w = buf->copy.avail;
		lost = buf->copy.bytes - buf->copy.avail;
		at_least = buf->copy.at_least;
		unsure |= buf->copy.unsure;
		head = buf->copy.head;
		/* Placed while it ran, then wrapped: as an ETR's, below. */
		if (!aux->snapshot && buf->pos_placed && (at_least || w < placed)) {
			lost = buf->copy.bytes;
			w = placed;
			sp->blank = true;
		}
		if (!aux->snapshot && buf->pos_lost) {
			lost = buf->copy.bytes;
			w = placed;
			sp->blank = true;
			at_least = true;
		}
		goto out;
	}
	if (tb_tmc_flush(k, true))
		unsure = true;	/* the last bytes may be missing */
	sts = tb_tmc_status(k);
	if (sts & TB_TMC_STS_MEMERR) {
		sp->memerr = true;
		w = placed;	/* null frames, if SWITCH records placed any */
		sp->blank = true;
		goto out;
	}
	if (buf->use_sg) {
		u64 aoff;

		if (tb_sg_offset(&buf->sg, tb_tmc_rwp(k), &aoff))
			aoff = buf->rot;	/* at the very end: offset 0 */
		virt = (aoff - buf->rot) & aux->mask;
	} else {
		virt = (tb_tmc_rwp(k) - buf->chunk_dma[0] - buf->rot) & aux->mask;
	}
	if (virt >= buf->etr_size)
		virt = 0;		/* RWP at the buffer's end: its start */
	/* Wrapped: at least once around; more laps cannot be seen. */
	wrapped = sts & TB_TMC_STS_FULL;
	w = wrapped ? buf->etr_size - buf->start_virt + virt : virt - buf->start_virt;
	if (!aux->snapshot && ((buf->pos_placed && (wrapped || w < placed)) ||
			       buf->pos_lost)) {
		/*
		 * SWITCH records placed threads' bytes in this run by their
		 * position in the buffer (tb_cs_switch_pos()), or could not
		 * place one, and the buffer wrapped over its start: no byte
		 * of it is where they said. Nothing is kept; the placed part
		 * is published as null frames, so that no later run's bytes
		 * fall between a thread's IN and OUT.
		 */
		lost = w;
		w = placed;
		sp->blank = true;
		at_least = true;
	} else if (!aux->snapshot && (wrapped || w > room)) {
		/*
		 * Overrun: the buffer was the free space and it wrapped over
		 * its own start. Keep only what follows the head in write
		 * order: the newest lap, from the buffer's start (the head) up
		 * to RWP, or the whole buffer if RWP is back at its start.
		 */
		u64 keep = wrapped ? (virt ? virt : buf->etr_size) : w;

		keep = min(keep, room);
		lost = w - keep;
		w = keep;
		at_least = wrapped;
	}
out:
	tb_tmc_disable(k);
	buf->running = false;
	buf->pos_lost = false;
	buf->pos_placed = false;
	buf->pos_next_set = false;
	sp->active = true;
	sp->head = head;
	sp->w = w;
	sp->lost = lost;
	sp->at_least = at_least;
	sp->unsure = unsure;
	sp->room = room;
}

/*
 * A stopped ETR run's bytes to the CPU (the sink wrote them: sync for
 * the CPU before anything reads them), then, in no-overwrite mode,
 * padding to the next granule if it fits, where the next run starts.
 * Under trace_lock; or, with deferred syncs (tb_cs_defer()), without it
 * in the drain cycle, which owns the stopped sink then (in_cycle: no
 * start, and nothing else publishes while span is active).
 */
static void tb_cs_span_sync(struct tb_cs_buf *buf, struct tb_aux *aux)
{
	struct tb_cs_span *sp = &buf->span;
	u64 end = sp->head + sp->w;

	if (!sp->active || buf->sink->type != TRACEBUF_CS_SINK_ETR ||
	    (sp->memerr && !sp->blank))
		return;
	if (sp->blank)
		tb_cs_fill_null(buf, aux, sp->head, end);
	else
		tb_cs_sync(buf, aux, sp->head, sp->w, false);
	/* The tail only moves on: room at the stop is still free. */
	if (!aux->snapshot && round_up(end, TB_SG_GRANULE) - sp->head <= sp->room)
		sp->pad = tb_cs_pad_write(buf, aux, end) - end;
}

static bool tb_cs_room(struct tb_cs_buf *buf, struct tb_aux *aux, bool resuming,
		       u64 pending);

/*
 * Under trace_lock: publish the span (synced), with a LOST record for
 * bytes that did not fit or may be missing (TRUNCATED). going_on: the
 * session traces on (TRUNCATED too if it is about to pause for room).
 */
static void tb_cs_span_done(struct tb_cs_buf *buf, bool going_on)
{
	struct tb_cs_span *sp = &buf->span;
	struct tb_aux *aux = buf->aux;
	u64 old = tb_aux_head(aux), head, flags = 0;

	if (!sp->active)
		return;
	sp->active = false;
	/* Null frames over a dropped run, and to the next granule. */
	tb_aux_count_padding(aux, (sp->blank ? sp->w : 0) + sp->pad);
	head = sp->head + sp->w + sp->pad;
	if (sp->memerr) {
		flags = TRACEBUF_AUX_F_PARTIAL;
		tb_cs_lost(buf->s, 0, true);
	} else if (!aux->snapshot && (sp->lost || sp->at_least || sp->unsure)) {
		tb_cs_lost(buf->s, sp->lost, sp->at_least || sp->unsure);
		flags |= TRACEBUF_AUX_F_TRUNCATED;
	}
	buf->last_w = head - old;
	if (going_on && !aux->snapshot && !cpumask_empty(buf->want) &&
	    !tb_cs_room(buf, aux, buf->paused, head - old))
		flags |= TRACEBUF_AUX_F_TRUNCATED;	/* pausing for room */
	tb_aux_publish(aux, head, flags);
}

/* --- ETMs, each on its own CPU ------------------------------------------ */

static void tb_cs_etm_record(struct tb_cs_buf *buf, struct tb_cs_etm *e,
			     const struct tb_cs_prog *p)
{
	struct tb_session *s = buf->s;
	struct tracebuf_rec_etm *rec;
	struct tracebuf_wr wr;

	/*
	 * Only when the programming changed: a configuration change
	 * re-enables ETMs in cycles before the CONFIG record is written,
	 * and a decoder must know from here on.
	 */
	if (memcmp(&buf->rec_prog, p, sizeof(*p))) {
		buf->rec_prog = *p;
		cpumask_clear(buf->etm_recorded);
	}
	if (cpumask_test_cpu(e->cpu, buf->etm_recorded))
		return;
	if (tracebuf_reserve(s->ring, TRACEBUF_REC_ETM, sizeof(*rec), &wr))
		return;
	rec = (struct tracebuf_rec_etm *)wr.rec;
	rec->etm_cpu = e->cpu;
	rec->trace_id = e->caps.trace_id;
	rec->trcconfigr = p->configr;
	rec->trctraceidr = e->caps.trace_id;
	memcpy(rec->trcidr, e->caps.trcidr, sizeof(rec->trcidr));
	rec->trcauthstatus = e->caps.trcauthstatus;
	rec->reserved = 0;
	tracebuf_commit(s->ring, &wr);
	cpumask_set_cpu(e->cpu, buf->etm_recorded);
}

/*
 * On e's CPU, trace_lock held: its links (sink side first), then the
 * ETM; the sink is running.
 */
static int tb_cs_etm_on(struct tb_cs_buf *buf, struct tb_cs_etm *e,
			const struct tb_cs_prog *p)
{
	int ret;

	ret = tb_cs_path_enable(e);
	if (ret)
		return ret;
	ret = tb_etm_enable(e, p);
	if (ret) {
		tb_cs_path_disable(e);
		return ret;
	}
	e->prog = p;		/* for the CPU PM notifier, on this CPU */
	e->pm_err = 0;
	e->pm_undrained = false;
	cpumask_set_cpu(e->cpu, buf->on);
	tb_cs_etm_record(buf, e, p);
	return 0;
}

/*
 * On e's CPU, trace_lock held: the ETM, then its links (source side
 * first), if the session has it on. An ETM that did not drain (now or
 * across a CPU power-down) leaves the sink's run unsure.
 */
static void tb_cs_etm_off(struct tb_cs_buf *buf, struct tb_cs_etm *e)
{
	bool drained;

	if (!cpumask_test_cpu(e->cpu, buf->on))
		return;
	/* pm_err: the power-down left it off (tb_cs_cpu_pm()). */
	drained = !e->pm_err && !tb_etm_disable(e) && !e->pm_undrained;
	e->prog = NULL;
	e->pm_err = 0;
	e->pm_undrained = false;
	tb_cs_path_disable(e);
	cpumask_clear_cpu(e->cpu, buf->on);
	if (!drained)
		buf->undrained = true;
}

/* --- the sink's runs ------------------------------------------------------ */

/* Enough room to run until the next drain, once pending more are published? */
static bool tb_cs_room(struct tb_cs_buf *buf, struct tb_aux *aux, bool resuming,
		       u64 pending)
{
	u64 free;

	if (aux->snapshot)
		return true;
	free = tb_aux_free_bytes(aux) - pending;
	/* Room for a granule of padding too (tb_cs_pad_granule()). */
	if (free < 2 * TB_SG_GRANULE)
		return false;
	if (resuming)
		return free >= aux->watermark;
	return free >= max(aux->size / 4, min(2 * buf->last_w, aux->size / 2));
}

/* Under trace_lock: the sink running for the wanted CPUs, if there is room. */
static int tb_cs_sink_run(struct tb_cs_buf *buf, bool resuming)
{
	int ret;

	if (buf->running || cpumask_empty(buf->want))
		return 0;
	if (!tb_cs_room(buf, buf->aux, resuming, 0)) {
		buf->paused = true;
		return 0;
	}
	buf->paused = false;
	ret = tb_cs_sink_start(buf, buf->aux);
	if (ret == -EAGAIN) {
		buf->deferred = true;	/* the cycle prepares and starts */
		return 0;
	}
	buf->undrained = false;
	return ret;
}

/*
 * Under trace_lock, every ETM of the sink off: stop the sink and publish
 * what it wrote (an ETB/ETF already read out by the cycle). going_on:
 * the session traces on (the span is TRUNCATED if it is about to pause
 * for room). With deferred syncs (tb_cs_defer()) the run stays in
 * buf->span and the drain cycle, kicked here, syncs and publishes it
 * (DISABLE waits for that: the stopped op).
 */
static void tb_cs_sink_finish(struct tb_cs_buf *buf, bool going_on)
{
	if (!buf->running)
		return;
	WARN_ON_ONCE(!cpumask_empty(buf->on));
	tb_cs_sink_halt(buf, buf->aux, buf->undrained);
	buf->undrained = false;
	if (tb_cs_defer(buf)) {
		irq_work_queue(&buf->kick);
		return;
	}
	tb_cs_span_sync(buf, buf->aux);
	tb_cs_span_done(buf, going_on);
}

/*
 * Deferred syncs (tb_cs_defer()), in process context with cycle_lock
 * held, the sink stopped and its last run published: pad the head to a
 * granule and, for a scatter-gather ETR, rotate the tables to it and
 * sync them for the sink, so that a start under trace_lock (an IPI, the
 * CPU hotplug callback) finds them ready (tables_ready at tables_head)
 * and syncs nothing. Without trace_lock while writing: no start uses
 * the tables or the bytes past the head until tables_ready is set, and
 * only the cycle (cycle_lock) publishes while the sink is stopped.
 */
static void tb_cs_prep(struct tb_cs_buf *buf)
{
	struct tb_session *s = buf->s;
	struct tb_aux *aux = buf->aux;
	struct tb_cs_sink *k = buf->sink;
	unsigned long flags;
	u64 head, end, rot, len;
	bool pad;

	if (!tb_cs_defer(buf) || k->type != TRACEBUF_CS_SINK_ETR)
		return;
	raw_spin_lock_irqsave(&s->trace_lock, flags);
	head = tb_aux_head(aux);
	len = aux->snapshot ? aux->size :
		round_down(tb_aux_free_bytes(aux), TB_SG_GRANULE);
	pad = (!aux->snapshot || !k->save_restore || buf->use_sg) &&
		(head & (TB_SG_GRANULE - 1));
	if (buf->running || buf->span.active ||
	    (pad && !aux->snapshot &&
	     round_up(head, TB_SG_GRANULE) - head > tb_aux_free_bytes(aux)) ||
	    (buf->tables_ready && buf->tables_head == head && buf->tables_len == len)) {
		raw_spin_unlock_irqrestore(&s->trace_lock, flags);
		return;
	}
	buf->tables_ready = false;
	raw_spin_unlock_irqrestore(&s->trace_lock, flags);
	if (pad) {
		end = tb_cs_pad_write(buf, aux, head);
		raw_spin_lock_irqsave(&s->trace_lock, flags);
		tb_aux_count_padding(aux, end - head);
		tb_aux_publish(aux, end, 0);
		head = end;
		len = aux->snapshot ? aux->size :
			round_down(tb_aux_free_bytes(aux), TB_SG_GRANULE);
		raw_spin_unlock_irqrestore(&s->trace_lock, flags);
	}
	if (!buf->use_sg || !len)
		return;		/* flat: a granule head is all it needs */
	rot = (head & aux->mask) & ~(u64)(TB_SG_GRANULE - 1);
	tb_sg_rotate(&buf->sg, rot, len);
	tb_cs_sync_tables(buf);
	raw_spin_lock_irqsave(&s->trace_lock, flags);
	if (tb_aux_head(aux) == head) {
		buf->tables_ready = true;
		buf->tables_head = head;
		buf->tables_rot = rot;
		buf->tables_len = len;
	}
	raw_spin_unlock_irqrestore(&s->trace_lock, flags);
}

/*
 * Under trace_lock, every ETM off: give up on what the sink holds, and
 * stop it before it is disabled, so that no write is in flight once its
 * buffer may be freed (as __tmc_etr_disable_hw() runs
 * tmc_flush_and_stop() before tmc_disable_hw(); DDI0461 TMC states:
 * TMCReady in Stopped means every AXI write has completed).
 */
static void tb_cs_abort(struct tb_cs_buf *buf)
{
	WARN_ON_ONCE(!cpumask_empty(buf->on));
	if (buf->running) {
		if (!buf->copy.active)
			tb_tmc_flush(buf->sink, true);
		tb_tmc_disable(buf->sink);
		buf->running = false;
	}
	buf->copy.active = false;
	buf->paused = false;
}

/*
 * Under trace_lock, every ETM off: the shared sink is gone for every CPU
 * of the session, not just one: all of them leave tr_active, so nothing
 * restarts it.
 */
static void tb_cs_fail(struct tb_cs_buf *buf, unsigned int cpu, int err)
{
	unsigned int c;

	/* Deferred: a task session stops from the scheduler (task.c). */
	tb_warn_deferred_ratelimited("tracebuf: coresight: cpu%u: restart failed (%d); %s\n",
				     cpu, err, "tracing stopped");
	tb_cs_abort(buf);
	for_each_cpu(c, buf->want)
		tb_trace_error(buf->s, c);
	cpumask_clear(buf->want);
}

/* --- the drain cycle, in process context --------------------------------- */

/* IPI, on a CPU of the cycle: its ETM off. */
static void tb_cs_off_ipi(void *arg)
{
	struct tb_cs_buf *buf = arg;
	struct tb_cs_etm *e = tb_cs_etm(smp_processor_id());

	raw_spin_lock(&buf->s->trace_lock);	/* IPI: interrupts are off */
	if (e)
		tb_cs_etm_off(buf, e);
	raw_spin_unlock(&buf->s->trace_lock);
}

/* IPI, on a CPU of the cycle: its ETM on again, if still wanted. */
static void tb_cs_on_ipi(void *arg)
{
	struct tb_cs_buf *buf = arg;
	unsigned int cpu = smp_processor_id();
	struct tb_cs_etm *e = tb_cs_etm(cpu);
	int ret;

	raw_spin_lock(&buf->s->trace_lock);	/* IPI: interrupts are off */
	/* Not into an SRAM a last stop halted meanwhile (tb_cs_sram_stop()). */
	if (e && cpumask_test_cpu(cpu, buf->want) && !cpumask_test_cpu(cpu, buf->on) &&
	    buf->running && !buf->copy.active && !buf->fail) {
		ret = tb_cs_etm_on(buf, e, buf->s->bcfg);
		if (ret) {
			buf->fail = ret;
			buf->fail_cpu = cpu;
		}
	}
	raw_spin_unlock(&buf->s->trace_lock);
}

/*
 * fn on every CPU of buf->ipi, one at a time, waiting for each.
 * Hotplug-safe without cpus_read_lock() (which the work may not take:
 * free_aux() waits for the work under s->lock, and s->lock nests inside
 * cpus_read_lock() in the ioctls): fn decides from want and on under
 * trace_lock, on its CPU, as start and stop do there. A CPU that is no
 * longer online (-ENXIO) was stopped by its teardown callback
 * (tb_cs_stop() on that CPU, which takes it out of want and on) before
 * it left the online mask, and one coming online is started by its
 * startup callback, which a cycle under way leaves to the cycle.
 */
static void tb_cs_on_cpus(struct tb_cs_buf *buf, smp_call_func_t fn)
{
	unsigned int cpu;

	for_each_cpu(cpu, buf->ipi)
		smp_call_function_single(cpu, fn, buf, 1);
}

#define TB_CS_COPY_CHUNK	1024	/* SRAM bytes read with interrupts off at a time */
#define TB_CS_ON_ROUNDS		4	/* enable rounds: CPUs that joined meanwhile */

/*
 * In the cycle, trace_lock held (*flags): the rest of a begun ETB/ETF
 * copy-out, TB_CS_COPY_CHUNK bytes at a time, the lock dropped (and
 * interrupts on) in between. Meanwhile in_cycle keeps every start off
 * the SRAM (tb_cs_start()), a stop only turns its ETM off (all are off)
 * or, the last one, finds the copy begun and leaves it here
 * (tb_cs_sram_stop()); copy.active ends only under the lock, in
 * tb_cs_sink_halt() or tb_cs_abort(), which run in neither meanwhile
 * (free_aux cancels this work first).
 */
static void tb_cs_copy_rest(struct tb_cs_buf *buf, unsigned long *flags)
	__must_hold(&buf->s->trace_lock)
{
	while (buf->copy.active && !tb_cs_copy_some(buf, buf->aux, TB_CS_COPY_CHUNK)) {
		raw_spin_unlock_irqrestore(&buf->s->trace_lock, *flags);
		cond_resched();
		raw_spin_lock_irqsave(&buf->s->trace_lock, *flags);
	}
}

/*
 * One drain cycle, in process context: every ETM
 * of the session off, each on its own CPU (IPIs); the sink flushed,
 * stopped and published (an ETB/ETF read out TB_CS_COPY_CHUNK bytes at
 * a time, interrupts enabled in between); the sink restarted if there
 * is room, and the ETMs of the CPUs still wanted on again, each on its
 * own CPU. Meanwhile (in_cycle) a start only joins want and the cycle
 * turns it on; a stop turns its own ETM off, and the last one stops
 * the sink as it does outside a cycle: an ETR's run is published there
 * (or left to a cycle it kicks: tb_cs_defer()), an ETB/ETF's copy-out
 * is always left to a cycle, this one if it is reading it already, else
 * the next, which the stop kicks (tb_cs_sram_stop()). Also the
 * completion of a stop: DISABLE runs it (tb_cs_stopped()). Returns the
 * error of a restart that failed (the session is then in the error
 * state).
 */
static int tb_cs_cycle_run(struct tb_cs_buf *buf)
{
	struct tb_session *s = buf->s;
	struct tb_aux *aux = buf->aux;
	unsigned long flags;
	unsigned int round;
	int ret = 0;

	mutex_lock(&buf->cycle_lock);
	raw_spin_lock_irqsave(&s->trace_lock, flags);
	/* want without a sink: a previous cycle's restart was stopped, below. */
	if (!buf->running && !buf->paused && !buf->deferred && !buf->span.active &&
	    cpumask_empty(buf->want)) {
		raw_spin_unlock_irqrestore(&s->trace_lock, flags);
		goto out;
	}
	buf->in_cycle = true;
	buf->deferred = false;
	cpumask_copy(buf->ipi, buf->on);
	raw_spin_unlock_irqrestore(&s->trace_lock, flags);

	tb_cs_on_cpus(buf, tb_cs_off_ipi);

	raw_spin_lock_irqsave(&s->trace_lock, flags);
	if (buf->running && buf->sink->type != TRACEBUF_CS_SINK_ETR) {
		/* Unless the last stop halted it and left the copy-out here. */
		if (!buf->copy.active)
			tb_cs_sram_halt(buf, aux);
		tb_cs_copy_rest(buf, &flags);
	}
	if (tb_cs_defer(buf)) {
		/*
		 * The syncs without trace_lock (tb_cs_sync()): in_cycle keeps
		 * every start off the sink meanwhile, and a stop finds it
		 * stopped. The span is this run, or one a stop left.
		 */
		if (buf->running) {
			WARN_ON_ONCE(!cpumask_empty(buf->on));
			tb_cs_sink_halt(buf, aux, buf->undrained);
			buf->undrained = false;
		}
		raw_spin_unlock_irqrestore(&s->trace_lock, flags);
		tb_cs_span_sync(buf, aux);
		raw_spin_lock_irqsave(&s->trace_lock, flags);
		tb_cs_span_done(buf, true);
		raw_spin_unlock_irqrestore(&s->trace_lock, flags);
		tb_cs_prep(buf);
		raw_spin_lock_irqsave(&s->trace_lock, flags);
	} else {
		tb_cs_sink_finish(buf, true);
	}
	ret = tb_cs_sink_run(buf, buf->paused);
	if (ret) {
		buf->fail_cpu = smp_processor_id();
		goto fail;
	}
	/* A last stop meanwhile halts an SRAM and kicks the next cycle. */
	for (round = 0; round < TB_CS_ON_ROUNDS && buf->running && !buf->copy.active &&
	     !buf->fail && cpumask_andnot(buf->ipi, buf->want, buf->on); round++) {
		raw_spin_unlock_irqrestore(&s->trace_lock, flags);
		tb_cs_on_cpus(buf, tb_cs_on_ipi);
		raw_spin_lock_irqsave(&s->trace_lock, flags);
	}
	if (buf->fail) {
		/* Every ETM off again, each on its CPU, then the sink. */
		ret = buf->fail;
		cpumask_copy(buf->ipi, buf->on);
		raw_spin_unlock_irqrestore(&s->trace_lock, flags);
		tb_cs_on_cpus(buf, tb_cs_off_ipi);
		raw_spin_lock_irqsave(&s->trace_lock, flags);
		/*
		 * A last stop between the rounds left an SRAM's copy-out:
		 * published, as that stop would have done, before the abort
		 * gives up on what a running sink holds.
		 */
		if (buf->copy.active) {
			tb_cs_copy_rest(buf, &flags);
			tb_cs_sink_finish(buf, false);
		}
		goto fail;
	}
	/*
	 * The last stop stopped the sink between the rounds and a start
	 * joined want since (in_cycle: left to this cycle): one more cycle
	 * starts it, or nothing would until the next ENABLE.
	 */
	if (!buf->running && !buf->paused && !buf->deferred && !cpumask_empty(buf->want))
		irq_work_queue(&buf->kick);
	buf->in_cycle = false;
	raw_spin_unlock_irqrestore(&s->trace_lock, flags);
	goto out;
fail:
	tb_cs_fail(buf, buf->fail_cpu, ret);
	buf->fail = 0;
	buf->in_cycle = false;
	raw_spin_unlock_irqrestore(&s->trace_lock, flags);
out:
	mutex_unlock(&buf->cycle_lock);
	return ret;
}

static void tb_cs_work(struct work_struct *w)
{
	tb_cs_cycle_run(container_of(w, struct tb_cs_buf, work));
}

/* Hard interrupt context, no lock held: on to process context. */
static void tb_cs_kick(struct irq_work *w)
{
	struct tb_cs_buf *buf = container_of(w, struct tb_cs_buf, kick);

	queue_work(system_highpri_wq, &buf->work);
}

/* --- backend ops ---------------------------------------------------------- */

/*
 * Task sessions on a shared sink that runs on for other CPUs: where this
 * CPU's bytes begin (before its ETM starts) or end (its ETM just off and
 * drained), for the SWITCH record (tb_cs_switch_pos()). They are not
 * published now: a stop runs in the scheduler, interrupts off, and
 * cannot wait for a drain cycle (it needs IPIs), and the sink cannot stop
 * while other ETMs feed it. Bytes published from a running ETR would
 * also not be safe: a later wrap of its buffer writes over them, maybe
 * before the consumer read them; an ETB/ETF's SRAM is read only once
 * stopped. So the position is the one in the sink's buffer: at an end,
 * after a manual flush of the formatter without StopOnFl (FFCR.FlushMan;
 * DDI0461, the formatter and flush control: the partial frame is
 * completed, capture goes on), which puts every byte this ETM sent below
 * RWP; an ETR's RWP is an AUX position from the run's start, an SRAM's
 * is one from RRP, where its copy-out to the head starts. The run is
 * published as a whole when it stops (a cycle, or the last CPU), and
 * there, if its buffer wrapped, no byte is where the records said:
 * tb_cs_sink_halt() publishes the placed part as null frames then. A
 * buffer found wrapped (Full) or broken (MemErr) here places nothing more
 * in this run (pos_lost). While an SRAM is stopped and read out (a
 * cycle's, or the last stop's left to a cycle; its ETMs all off), every
 * byte lies below the copy's end.
 */
static void tb_cs_place(struct tb_cs_buf *buf, bool end)
{
	struct tb_aux *aux = buf->aux;
	struct tb_cs_sink *k = buf->sink;
	u64 virt, aoff;

	if (!buf->running || aux->snapshot || buf->s->setup.target != TRACEBUF_TARGET_TASK)
		return;
	if (buf->copy.active) {
		/* An ETB/ETF being read out: every byte is below its end. */
		buf->pos_next = buf->copy.head + buf->copy.avail;
		buf->pos_next_set = true;
		return;
	}
	if (end && tb_tmc_flush(k, false))
		buf->undrained = true;	/* the run's end is unsure */
	if (buf->pos_lost)
		return;
	if (tb_tmc_status(k) & (TB_TMC_STS_FULL | TB_TMC_STS_MEMERR)) {
		buf->pos_lost = true;
		return;
	}
	if (k->type != TRACEBUF_CS_SINK_ETR) {
		/* The copy-out reads from RRP (tb_cs_copy_begin()). */
		virt = ((u32)tb_tmc_rwp(k) - tb_tmc_rrp(k)) & (k->sram_size - 1) & ~3ULL;
		buf->pos_next = tb_aux_head(aux) + virt;
		buf->pos_next_set = true;
		buf->pos_placed = true;
		return;
	}
	if (buf->use_sg) {
		if (tb_sg_offset(&buf->sg, tb_tmc_rwp(k), &aoff)) {
			buf->pos_lost = true;
			return;
		}
		virt = (aoff - buf->rot) & aux->mask;
	} else {
		virt = (tb_tmc_rwp(k) - buf->chunk_dma[0] - buf->rot) & aux->mask;
	}
	if (virt >= buf->etr_size || virt < buf->start_virt) {
		buf->pos_lost = true;
		return;
	}
	buf->pos_next = tb_aux_head(aux) + virt - buf->start_virt;
	buf->pos_next_set = true;
	buf->pos_placed = true;
}

/*
 * backend.h, switch_pos: after tb_cs_start() or tb_cs_stop() on cpu,
 * trace_lock held. The place tb_cs_place() found, else the head; never
 * behind a position given before (pos_hi), so that each CPU's IN and OUT
 * positions only move on, and a thread's bytes lie between its CPU's IN
 * and OUT records however the runs were cut.
 */
static u64 tb_cs_switch_pos(struct tb_session *s, unsigned int cpu)
{
	struct tb_cs_buf *buf = s->aux ? s->aux->priv : NULL;
	u64 pos = s->aux_head;

	if (!buf)
		return pos;
	if (buf->pos_next_set && buf->pos_next > pos)
		pos = buf->pos_next;
	buf->pos_next_set = false;
	if (buf->pos_hi > pos)
		pos = buf->pos_hi;
	buf->pos_hi = pos;
	return pos;
}

/*
 * On the CPU, trace_lock held (IPI, hotplug callback, the scheduler).
 * Outside a cycle: the sink running (started here if this is the first
 * CPU), then this CPU's ETM. In a cycle, while paused for room, or while
 * the last stop's SRAM waits to be read out (copy.active: a start now
 * would overwrite it; that stop kicked the cycle, which restarts the
 * sink once the copy is published), the cycle turns it on.
 */
static int tb_cs_start(struct tb_session *s, unsigned int cpu)
{
	struct tb_cs_buf *buf = s->aux->priv;
	struct tb_cs_etm *e = tb_cs_etm(cpu);
	int ret;

	if (!e || e->sink != buf->sink_idx)
		return -ENODEV;
	cpumask_set_cpu(cpu, buf->want);
	if (buf->in_cycle || buf->paused || buf->deferred || buf->copy.active)
		return 0;
	if (buf->running)
		tb_cs_place(buf, false);	/* a task session's IN record */
	ret = tb_cs_sink_run(buf, false);
	if (buf->deferred)
		irq_work_queue(&buf->kick);	/* tb_cs_sink_start()'s -EAGAIN */
	if (!ret && buf->running)
		ret = tb_cs_etm_on(buf, e, s->bcfg);
	if (ret) {
		cpumask_clear_cpu(cpu, buf->want);
		if (cpumask_empty(buf->want))
			tb_cs_abort(buf);
	}
	return ret;
}

/*
 * The last stop of an ETB/ETF, trace_lock held, every ETM off: flush and
 * stop it and begin its copy-out, nothing read (the SRAM can hold 64 KiB
 * and more, and this runs with interrupts off: an IPI, the CPU hotplug
 * callback, the scheduler). The drain cycle reads it out in
 * TB_CS_COPY_CHUNK pieces and publishes it: the one reading it already
 * (copy.active in a cycle), or the next, kicked here (the irq_work, then
 * the work: tb_cs_kick()); DISABLE runs it before it returns
 * (tb_cs_stopped()). Until then copy.active keeps every start off the
 * sink (tb_cs_start(): the SRAM would be overwritten); the cycle starts
 * it again for the CPUs that joined want. A task session's OUT record:
 * the run ends at the copy's end (published there, or further as null
 * frames up to pos_hi: tb_cs_sink_halt()).
 */
static void tb_cs_sram_stop(struct tb_cs_buf *buf)
{
	struct tb_cs_copy *c = &buf->copy;

	if (!c->active) {
		tb_cs_sram_halt(buf, buf->aux);
		irq_work_queue(&buf->kick);
	}
	if (buf->s->setup.target == TRACEBUF_TARGET_TASK) {
		buf->pos_next = c->head + c->avail;
		buf->pos_next_set = true;
	}
}

/*
 * On the CPU, trace_lock held: its ETM off. The other CPUs of the sink
 * trace on, and the next cycle publishes what this one wrote (a task
 * session's OUT record gives where it ends: tb_cs_place()); the last CPU
 * stops the sink and publishes everything it holds: an ETR's run here
 * (or, with deferred syncs, in the cycle it kicks), an ETB/ETF's SRAM
 * in the cycle (tb_cs_sram_stop()).
 */
static void tb_cs_stop(struct tb_session *s, unsigned int cpu)
{
	struct tb_cs_buf *buf = s->aux->priv;

	if (!cpumask_test_cpu(cpu, buf->want))
		return;
	cpumask_clear_cpu(cpu, buf->want);
	tb_cs_etm_off(buf, tb_cs_etm(cpu));
	if (!cpumask_empty(buf->want)) {
		tb_cs_place(buf, true);		/* a task session's OUT record */
		return;
	}
	/* ETMs are on only for wanted CPUs: none is on now. */
	buf->paused = false;
	buf->deferred = false;
	if (buf->running && buf->sink->type != TRACEBUF_CS_SINK_ETR)
		tb_cs_sram_stop(buf);
	else
		tb_cs_sink_finish(buf, false);
}

/*
 * DISABLE, after every CPU's stop (process context, s->lock held): the
 * last stop left an ETB/ETF's copy-out, or with deferred syncs an ETR's
 * run, to the cycle; run it now (cycle_lock: after a cycle under way),
 * so that DISABLE returns with every byte published, and prepare the
 * tables for the next ENABLE.
 */
static void tb_cs_stopped(struct tb_session *s)
{
	if (s->aux && s->aux->priv)
		tb_cs_cycle_run(s->aux->priv);
}

/*
 * The drain timer (a hard hrtimer, trace_lock held): the cycle needs
 * IPIs to every ETM's CPU, so it runs from a work item.
 */
static void tb_cs_drain(struct tb_session *s, unsigned int cpu)
{
	struct tb_cs_buf *buf = s->aux->priv;

	if (s->aux->snapshot)
		return;		/* wraps freely; SNAPSHOT and stop publish */
	irq_work_queue(&buf->kick);
}

/*
 * SNAPSHOT (process context, cpus_read_lock() and s->lock held): one
 * cycle now, every ETM off on its own CPU, the newest ring-full
 * published, everything on again.
 */
static int tb_cs_snapshot(struct tb_session *s)
{
	return tb_cs_cycle_run(s->aux->priv);
}

static void tb_cs_free_aux(struct tb_aux *aux)
{
	struct tb_cs_buf *buf = aux->priv;

	if (!buf)
		return;
	/* No cycle left: the drain timer is cancelled, nothing kicks any more. */
	irq_work_sync(&buf->kick);
	cancel_work_sync(&buf->work);
	/*
	 * Every CPU was stopped (tb_session_aux_destroy): a sink still
	 * capturing here would DMA through freed tables into reused pages.
	 * Nothing else sees this buffer now (s->aux is NULL).
	 */
	if (WARN_ON_ONCE(buf->running || !cpumask_empty(buf->on))) {
		unsigned int cpu;

		/* Each ETM off on its CPU (-ENXIO: offline, stopped then). */
		for_each_cpu(cpu, buf->on)
			smp_call_function_single(cpu, tb_cs_off_ipi, buf, 1);
		cpumask_clear(buf->on);
		tb_cs_abort(buf);
	}
	/* No register access from here on: their clocks and power may go. */
	if (buf->pm)
		tb_cs_buf_pm(buf, false, UINT_MAX);
	mutex_lock(&tb_cs_owner_lock);
	tb_cs_owner[buf->sink_idx] = NULL;
	mutex_unlock(&tb_cs_owner_lock);
	mutex_destroy(&buf->cycle_lock);
	tb_cs_free_buf(buf, aux);
	aux->priv = NULL;
}

/* A flat ETR writes one physically contiguous buffer: the AUX area. */
static bool tb_cs_aux_contiguous(const struct tb_session *s)
{
	struct tb_cs_etm *e = tb_cs_etm(cpumask_first(s->cpus));
	struct tb_cs_sink *k = e ? &tb_cs_sinks[e->sink] : NULL;

	return k && k->type == TRACEBUF_CS_SINK_ETR && !k->sg;
}

struct tb_backend tb_cs_backend = {
	.name		= "coresight",
	.id		= TRACEBUF_BACKEND_CORESIGHT,
	.drain_any_cpu	= true,
	.probe		= tb_cs_probe,
	.remove		= tb_cs_remove,
	.caps		= tb_cs_caps,
	.check_setup	= tb_cs_check_setup,
	.setup_aux	= tb_cs_setup_aux,
	.free_aux	= tb_cs_free_aux,
	.aux_contiguous	= tb_cs_aux_contiguous,
	.start		= tb_cs_start,
	.stop		= tb_cs_stop,
	.stopped	= tb_cs_stopped,
	.drain		= tb_cs_drain,
	.switch_pos	= tb_cs_switch_pos,
	.snapshot	= tb_cs_snapshot,
	.cfg_keys	= tb_cs_cfg_keys,
	.cfg_apply	= tb_cs_cfg_apply,
	.cfg_size	= sizeof(struct tb_cs_prog),
};

/* --- emulator registration ---------------------------------------------- */

static const struct tb_cs_platform *tb_cs_emu_discover(const struct tb_cs_platform *p);
static void tb_cs_emu_forget(void);

int tracebuf_cs_emulator_register(const struct tb_cs_platform *p)
{
	const struct tb_cs_platform *plat;
	int ret;

	if (!p || !p->io || !p->io->read || !p->io->write || !p->owner)
		return -EINVAL;
	mutex_lock(&tb_backends_lock);
	ret = -EBUSY;
	if (tb_cs_plat || tb_backend_find("coresight"))
		goto out;
	/* A SoC in the device tree: found there, as on a real machine. */
	plat = tb_cs_emu_discover(p);
	ret = PTR_ERR_OR_ZERO(plat);
	if (ret)
		goto out;
	tb_cs_plat = plat;
	ret = tb_backend_add(&tb_cs_backend);
	if (ret) {
		tb_cs_plat = NULL;
		tb_cs_emu_forget();
	}
out:
	mutex_unlock(&tb_backends_lock);
	return ret;
}
EXPORT_SYMBOL_GPL(tracebuf_cs_emulator_register);

void tracebuf_cs_emulator_unregister(const struct tb_cs_platform *p)
{
	mutex_lock(&tb_backends_lock);
	if (tb_cs_plat && (tb_cs_plat == p || (tb_cs_emu_of == p && p))) {
		/* The emulator's module is pinned while a session holds us. */
		WARN_ON(tb_backend_busy(&tb_cs_backend));
		tb_backend_del(&tb_cs_backend);
		tb_cs_plat = NULL;
		tb_cs_backend.owner = NULL;
		tb_cs_emu_forget();
	}
	mutex_unlock(&tb_backends_lock);
}
EXPORT_SYMBOL_GPL(tracebuf_cs_emulator_unregister);

/* --- discovery on real machines ----------------------------------------- */

static unsigned long etm_base[NR_CPUS];
static int nr_etm_base;
module_param_array(etm_base, ulong, &nr_etm_base, 0444);
MODULE_PARM_DESC(etm_base, "ETMv4 MMIO base of CPU 0, 1, ... (boards without DT/ACPI)");
static unsigned long sink_base;
module_param(sink_base, ulong, 0444);
MODULE_PARM_DESC(sink_base, "TMC (ETR/ETF/ETB) MMIO base every ETM given by etm_base= feeds");
static bool sink_sg;
module_param(sink_sg, bool, 0444);
MODULE_PARM_DESC(sink_sg, "the ETR at sink_base may use scatter-gather");

static u32 tb_cs_mmio_read(void __iomem *base, u32 off)
{
	return readl_relaxed(base + off);
}

static void tb_cs_mmio_write(void __iomem *base, u32 off, u32 val)
{
	writel_relaxed(val, base + off);
}

/* FEAT_TRF: ID_AA64DFR0_EL1.TraceFilt, as cpu_detect_trace_filtering(). */
static bool tb_cs_sys_trf_present(void)
{
	return (read_sysreg(id_aa64dfr0_el1) >> TB_ID_AA64DFR0_TRACEFILT_SHIFT) & 0xf;
}

static u64 tb_cs_sys_trfcr_read(void)
{
	return read_sysreg_s(SYS_TRFCR_EL1);
}

/* write_trfcr() in coresight-self-hosted-trace.h: with its ISB. */
static void tb_cs_sys_trfcr_write(u64 val)
{
	write_sysreg_s(val, SYS_TRFCR_EL1);
	isb();
}

/* etm4_hisi_config_core_commit(): only where the ETM is Hip08's. */
static void tb_cs_sys_hip08_commit(bool reduced)
{
	u64 val = read_sysreg_s(sys_reg(3, 1, 15, 2, 5));

	val &= ~TB_HIP08_COMMIT_MASK;
	val |= FIELD_PREP(TB_HIP08_COMMIT_MASK, reduced ? TB_HIP08_COMMIT_LVL_1 :
			  TB_HIP08_COMMIT_FULL);
	write_sysreg_s(val, sys_reg(3, 1, 15, 2, 5));
}

static const struct tb_cs_io tb_cs_mmio = {
	.read		= tb_cs_mmio_read,
	.write		= tb_cs_mmio_write,
	.trf_present	= tb_cs_sys_trf_present,
	.trfcr_read	= tb_cs_sys_trfcr_read,
	.trfcr_write	= tb_cs_sys_trfcr_write,
	.hip08_commit	= tb_cs_sys_hip08_commit,
};

/*
 * A platform found by discovery: the real machine's (device tree, ACPI
 * or module parameters) or, for an emulator that describes its SoC in
 * the device tree or the ACPI namespace (tb_cs_platform.of_root,
 * acpi_root), the one found under its node.
 */
struct tb_cs_found {
	struct tb_cs_platform plat;
	struct tb_cs_desc *comps;
	struct tb_cs_conn *conns;
	struct device_node **nodes;	/* while discovering */
	const struct device_node *root;	/* NULL: the whole tree */
	void __iomem *(*of_map)(struct device_node *np);	/* NULL: ioremap */
	struct acpi_device **adevs;	/* while discovering (ACPI) */
	struct acpi_device *acpi_root;	/* NULL: the whole namespace */
	void __iomem *(*acpi_map)(struct acpi_device *adev);	/* NULL: ioremap */
	bool params;			/* names are static, not kasprintf()'d */
};

static struct tb_cs_found tb_cs_real;
static struct tb_cs_found tb_cs_emu;		/* an emulator's, under tb_backends_lock */

static void __iomem *tb_cs_map(phys_addr_t pa)
{
	return ioremap(pa, SZ_4K);
}

#ifdef CONFIG_OF
static struct device *tb_cs_of_device(struct device_node *np)
{
#ifdef CONFIG_ARM_AMBA
	struct device *dev = bus_find_device_by_of_node(&amba_bustype, np);

	if (dev)
		return dev;
#endif
	return bus_find_device_by_of_node(&platform_bus_type, np);
}

/*
 * The components we drive, by DT compatible (bindings/arm/arm,coresight-*.yaml),
 * sinks first: the order they are numbered in (tracebuf_cs_caps.sink).
 */
static const struct {
	const char *compatible;
	enum tb_cs_kind kind;
} tb_cs_of_kinds[] = {
	{ "arm,coresight-tmc", TB_CS_KIND_TMC },
	{ "arm,coresight-dynamic-funnel", TB_CS_KIND_FUNNEL },
	{ "arm,coresight-dynamic-replicator", TB_CS_KIND_REPLICATOR },
	{ "arm,coresight-static-funnel", TB_CS_KIND_STATIC },
	{ "arm,coresight-static-replicator", TB_CS_KIND_STATIC },
	{ "arm,coresight-etm4x", TB_CS_KIND_ETM },
};

/* Is np in the part of the tree f looks at: f->root's subtree, or anywhere? */
static bool tb_cs_of_in(const struct tb_cs_found *f, const struct device_node *np)
{
	const struct device_node *p;

	if (!f->root)
		return true;
	for (p = np; p; p = p->parent)
		if (p == f->root)
			return true;
	return false;
}

/* Index of the component described by np, or -1. */
static int tb_cs_of_index(const struct tb_cs_found *f, const struct device_node *np)
{
	unsigned int i;

	for (i = 0; i < f->plat.nr_comps; i++)
		if (f->nodes[i] == np)
			return i;
	return -1;
}

/*
 * The component an endpoint belongs to and its port number: endpoint ->
 * port@N (reg N) -> in-ports/out-ports -> the component, as
 * coresight-platform.c's of_coresight_get_port_parent() walks it.
 */
static struct device_node *tb_cs_of_ep_owner(struct device_node *ep, u32 *port)
{
	struct device_node *np = of_get_parent(ep);

	*port = 0;
	if (!np)
		return NULL;
	of_property_read_u32(np, "reg", port);
	np = of_get_next_parent(np);
	if (np && (of_node_name_eq(np, "in-ports") || of_node_name_eq(np, "out-ports") ||
		   of_node_name_eq(np, "ports")))
		np = of_get_next_parent(np);
	return np;
}

/* The ATB connections out of component i: its out-ports. */
static void tb_cs_of_conns(struct tb_cs_found *f, unsigned int i, unsigned int max)
{
	struct device_node *ports, *port, *ep, *rep, *owner;
	u32 src_port, dst_port;
	int dst;

	ports = of_get_child_by_name(f->nodes[i], "out-ports");
	if (!ports)
		return;
	for_each_child_of_node(ports, port) {
		ep = of_get_next_child(port, NULL);
		if (!ep)
			continue;
		src_port = 0;
		of_property_read_u32(port, "reg", &src_port);
		rep = of_graph_get_remote_endpoint(ep);
		of_node_put(ep);
		if (!rep)
			continue;
		owner = tb_cs_of_ep_owner(rep, &dst_port);
		of_node_put(rep);
		dst = owner ? tb_cs_of_index(f, owner) : -1;
		of_node_put(owner);
		if (dst < 0 || f->plat.nr_conns >= max)
			continue;	/* a TPIU, STM, CATU...: not a way we use */
		f->conns[f->plat.nr_conns++] = (struct tb_cs_conn){
			.src = i, .src_port = src_port, .dst = dst, .dst_port = dst_port,
		};
	}
	of_node_put(ports);
}

/* Component np of kind, if available and usable by this kernel. */
static void tb_cs_of_add(struct tb_cs_found *f, struct device_node *np, enum tb_cs_kind kind,
			 unsigned int max)
{
	struct tb_cs_desc *d;
	struct resource r;

	if (!of_device_is_available(np) || !tb_cs_of_in(f, np) || f->plat.nr_comps >= max ||
	    tb_cs_of_index(f, np) >= 0)
		return;
	d = &f->comps[f->plat.nr_comps];
	memset(d, 0, sizeof(*d));
	d->kind = kind;
	if (kind == TB_CS_KIND_ETM) {
		struct device_node *cpun = of_parse_phandle(np, "cpu", 0);
		int cpu = cpun ? of_cpu_node_to_id(cpun) : -ENODEV;

		of_node_put(cpun);
		if (cpu < 0)
			return;		/* a CPU this kernel does not run */
		d->cpu = cpu;
	}
	if (kind != TB_CS_KIND_STATIC) {
		if (f->of_map) {
			d->c.base = f->of_map(np);
		} else {
			if (of_address_to_resource(np, 0, &r))
				return;
			d->c.base = tb_cs_map(r.start);
		}
		if (!d->c.base)
			return;
	}
	d->scatter_gather = of_property_read_bool(np, "arm,scatter-gather");
	d->skip_power_up = of_property_read_bool(np, "qcom,skip-power-up");
	d->loses_context = of_property_read_bool(np, "arm,coresight-loses-context-with-cpu");
	d->max_burst_set = !of_property_read_u32(np, "arm,max-burst-size", &d->max_burst);
	d->c.dev = tb_cs_of_device(np);
	d->c.name = kasprintf(GFP_KERNEL, "%pOF", np);
	f->nodes[f->plat.nr_comps++] = of_node_get(np);
}

/*
 * Device tree: every available ("status" not "disabled") ETMv4, funnel,
 * replicator and TMC (in f->root's subtree, if given), and the ATB graph
 * between them from their out-ports endpoints. Each ETM's path and sink
 * are chosen at probe.
 */
static int tb_cs_discover_of(struct tb_cs_found *f)
{
	struct device_node *np;
	unsigned int n = 0, i, t, max_conns;

	for (t = 0; t < ARRAY_SIZE(tb_cs_of_kinds); t++)
		for_each_compatible_node(np, NULL, tb_cs_of_kinds[t].compatible)
			if (of_device_is_available(np) && tb_cs_of_in(f, np))
				n++;
	if (!n)
		return -ENODEV;
	max_conns = n * TB_CS_MAX_PORTS;
	f->comps = kcalloc(n, sizeof(*f->comps), GFP_KERNEL);
	f->conns = kcalloc(max_conns, sizeof(*f->conns), GFP_KERNEL);
	f->nodes = kcalloc(n, sizeof(*f->nodes), GFP_KERNEL);
	if (!f->comps || !f->conns || !f->nodes) {
		kfree(f->nodes);
		f->nodes = NULL;
		return -ENOMEM;
	}
	for (t = 0; t < ARRAY_SIZE(tb_cs_of_kinds); t++)
		for_each_compatible_node(np, NULL, tb_cs_of_kinds[t].compatible)
			tb_cs_of_add(f, np, tb_cs_of_kinds[t].kind, n);
	for (i = 0; i < f->plat.nr_comps; i++)
		tb_cs_of_conns(f, i, max_conns);
	for (i = 0; i < f->plat.nr_comps; i++)
		of_node_put(f->nodes[i]);
	kfree(f->nodes);
	f->nodes = NULL;
	return f->plat.nr_comps ? 0 : -ENODEV;
}
#else
static int tb_cs_discover_of(struct tb_cs_found *f)
{
	return -ENODEV;
}
#endif

#ifdef CONFIG_ACPI
/*
 * The components we drive, by ACPI hardware ID, sinks first as in
 * tb_cs_of_kinds: the IDs the kernel makes AMBA devices of for the
 * CoreSight drivers (drivers/acpi/acpi_amba.c: amba_id_list) and the
 * static funnel's and replicator's platform IDs (coresight-funnel.c:
 * static_funnel_ids; coresight-replicator.c: static_replicator_acpi_ids).
 * The kernel tells a TMC's configuration (ETR, ETF, ETB) from its
 * registers, as tracebuf does.
 */
static const struct {
	const char *hid;
	enum tb_cs_kind kind;
} tb_cs_acpi_kinds[] = {
	{ "ARMHC97C", TB_CS_KIND_TMC },		/* SoC-400 TMC, SoC-600 ETF/ETB */
	{ "ARMHC501", TB_CS_KIND_TMC },		/* ETR */
	{ "ARMHC9FF", TB_CS_KIND_FUNNEL },	/* dynamic funnel */
	{ "ARMHC98D", TB_CS_KIND_REPLICATOR },	/* dynamic replicator */
	{ "ARMHC9FE", TB_CS_KIND_STATIC },	/* static funnel */
	{ "ARMHC985", TB_CS_KIND_STATIC },	/* static replicator */
	{ "ARMHC500", TB_CS_KIND_ETM },		/* ETMv4 */
};

/* _DSD graph UUIDs (coresight-platform.c: acpi_graph_uuid, coresight_graph_uuid) */
static const guid_t tb_cs_acpi_graph_guid =
	GUID_INIT(0xab02a46b, 0x74c7, 0x45a2, 0xbd, 0x68, 0xf7, 0xd3, 0x44, 0xef, 0x21, 0x53);
static const guid_t tb_cs_acpi_cs_graph_guid =
	GUID_INIT(0x3ecbc8b6, 0x1d0e, 0x4fb3, 0x81, 0x07, 0xe6, 0x27, 0xf8, 0x05, 0xc6, 0xcd);
#define TB_CS_ACPI_LINK_MASTER	1	/* DirectionOfFlow: an output port */

/*
 * adev's kind, or -1: its first ID (the _HID, then each _CID) that is one
 * of ours, as the ACPI scan takes the first ID a handler matches
 * (drivers/acpi/scan.c: acpi_scan_attach_handler()).
 */
static int tb_cs_acpi_kind(struct acpi_device *adev)
{
	struct acpi_hardware_id *hwid;
	unsigned int t;

	list_for_each_entry(hwid, &adev->pnp.ids, list)
		for (t = 0; t < ARRAY_SIZE(tb_cs_acpi_kinds); t++)
			if (!strcmp(hwid->id, tb_cs_acpi_kinds[t].hid))
				return t;
	return -1;
}

/*
 * Whether discovery takes adev: present (its _STA; none is present), and,
 * on the machine itself, enumerated, as the OS made a device of it; under
 * an emulator's acpi_root, which is not present so that the OS makes no
 * device, each component's own _STA decides ("disabled" components).
 */
static bool tb_cs_acpi_usable(const struct tb_cs_found *f, struct acpi_device *adev)
{
	if (!adev->status.present && !adev->status.functional)
		return false;
	return f->acpi_root || acpi_device_enumerated(adev);
}

/* Index of the component adev, or -1. */
static int tb_cs_acpi_index(const struct tb_cs_found *f, const struct acpi_device *adev)
{
	unsigned int i;

	for (i = 0; i < f->plat.nr_comps; i++)
		if (f->adevs[i] == adev)
			return i;
	return -1;
}

/*
 * An ETM's CPU: its parent is the processor it traces (ACPI for
 * CoreSight, DEN0067; coresight-platform.c: acpi_coresight_get_cpu()).
 * The kernel matches the parent's handle against its processors'; the
 * logical CPU number is the one the processor driver gives it
 * (drivers/acpi/acpi_processor.c: acpi_processor_get_info(), the
 * processor's _UID, or a Processor object's ID, through acpi_get_cpuid()).
 */
static int tb_cs_acpi_cpu(struct acpi_device *adev)
{
	struct acpi_buffer buf = { ACPI_ALLOCATE_BUFFER, NULL };
	union acpi_object *obj;
	unsigned long long uid;
	acpi_object_type type;
	struct acpi_device *pdev;
	acpi_handle parent;
	int cpu, decl;
	u32 id;

	if (ACPI_FAILURE(acpi_get_parent(adev->handle, &parent)) ||
	    ACPI_FAILURE(acpi_get_type(parent, &type)))
		return -ENODEV;
	if (type == ACPI_TYPE_PROCESSOR) {
		if (ACPI_FAILURE(acpi_evaluate_object(parent, NULL, NULL, &buf)))
			return -ENODEV;
		obj = buf.pointer;
		id = obj->processor.proc_id;
		ACPI_FREE(buf.pointer);
		decl = 0;
	} else {
		pdev = acpi_fetch_acpi_dev(parent);
		if (!pdev || strcmp(acpi_device_hid(pdev), ACPI_PROCESSOR_DEVICE_HID) ||
		    ACPI_FAILURE(acpi_evaluate_integer(parent, METHOD_NAME__UID, NULL, &uid)))
			return -ENODEV;
		id = uid;
		decl = 1;
	}
	cpu = acpi_get_cpuid(parent, decl, id);
	return cpu >= 0 && cpu < nr_cpu_ids ? cpu : -ENODEV;
}

/*
 * A CTI described with the ETM's ID, ARMHC500 (as some firmware does): the
 * trigger bindings' properties (bindings/arm/arm,coresight-cti.yaml).
 */
static bool tb_cs_acpi_is_cti(struct acpi_device *adev)
{
	struct fwnode_handle *fw = acpi_fwnode_handle(adev);

	return fwnode_property_present(fw, "arm,coresight-cti-v8-arch") ||
	       fwnode_property_present(fw, "arm,cs-dev-assoc");
}

/* adev's first memory resource, mapped; NULL if none. */
static void __iomem *tb_cs_acpi_ioremap(struct acpi_device *adev)
{
	struct resource_entry *e;
	void __iomem *base = NULL;
	LIST_HEAD(res);

	if (acpi_dev_get_resources(adev, &res, NULL, NULL) < 0)
		return NULL;
	list_for_each_entry(e, &res, node)
		if (resource_type(e->res) == IORESOURCE_MEM) {
			base = tb_cs_map(e->res->start);
			break;
		}
	acpi_dev_free_resource_list(&res);
	return base;
}

static struct device *tb_cs_acpi_device(struct acpi_device *adev)
{
#ifdef CONFIG_ARM_AMBA
	struct device *dev = bus_find_device_by_acpi_dev(&amba_bustype, adev);

	if (dev)
		return dev;
#endif
	return bus_find_device_by_acpi_dev(&platform_bus_type, adev);
}

/* Component adev of kind, if usable; the properties as the drivers read them. */
static void tb_cs_acpi_add(struct tb_cs_found *f, struct acpi_device *adev,
			   enum tb_cs_kind kind, unsigned int max)
{
	struct fwnode_handle *fw = acpi_fwnode_handle(adev);
	struct acpi_buffer path = { ACPI_ALLOCATE_BUFFER, NULL };
	struct tb_cs_desc *d;
	int cpu;

	if (f->plat.nr_comps >= max || tb_cs_acpi_index(f, adev) >= 0)
		return;
	d = &f->comps[f->plat.nr_comps];
	memset(d, 0, sizeof(*d));
	d->kind = kind;
	if (kind == TB_CS_KIND_ETM) {
		if (tb_cs_acpi_is_cti(adev))
			return;
		cpu = tb_cs_acpi_cpu(adev);
		if (cpu < 0)
			return;		/* a CPU this kernel does not run */
		d->cpu = cpu;
	}
	if (kind != TB_CS_KIND_STATIC) {
		d->c.base = f->acpi_map ? f->acpi_map(adev) : tb_cs_acpi_ioremap(adev);
		if (!d->c.base)
			return;
	}
	/* coresight-tmc-core.c, -etm4x-core.c, coresight-core.c read these so. */
	d->scatter_gather = fwnode_property_present(fw, "arm,scatter-gather");
	d->skip_power_up = fwnode_property_present(fw, "qcom,skip-power-up");
	d->loses_context = fwnode_property_present(fw, "arm,coresight-loses-context-with-cpu");
	d->max_burst_set = !fwnode_property_read_u32(fw, "arm,max-burst-size", &d->max_burst);
	d->c.dev = tb_cs_acpi_device(adev);
	if (ACPI_SUCCESS(acpi_get_name(adev->handle, ACPI_FULL_PATHNAME, &path))) {
		d->c.name = kstrdup(path.pointer, GFP_KERNEL);
		ACPI_FREE(path.pointer);
	}
	f->adevs[f->plat.nr_comps++] = adev;
}

/*
 * The CoreSight graph of component i's _DSD: its output links, as
 * coresight-platform.c's acpi_coresight_parse_graph() reads them. _DSD
 * holds { UUID, Package } pairs; the ACPI graph's package is { Revision
 * 0, NumberOfGraphs 1, Graph }, the graph { GraphID, the CoreSight graph
 * UUID, NumberOfLinks, Link... } and a link { SourcePort,
 * DestinationPort, DestinationDevice, DirectionOfFlow (1: output) }.
 */
static void tb_cs_acpi_conns(struct tb_cs_found *f, unsigned int i, unsigned int max)
{
	struct acpi_buffer buf = { ACPI_ALLOCATE_BUFFER, NULL };
	const union acpi_object *dsd, *graphs = NULL, *g, *l;
	unsigned int k, n;
	int dst;

	if (ACPI_FAILURE(acpi_evaluate_object_typed(f->adevs[i]->handle, "_DSD", NULL, &buf,
						    ACPI_TYPE_PACKAGE)))
		return;
	dsd = buf.pointer;
	for (k = 0; k + 1 < dsd->package.count; k += 2) {
		const union acpi_object *u = &dsd->package.elements[k];

		if (u->type == ACPI_TYPE_BUFFER && u->buffer.length == 16 &&
		    guid_equal((guid_t *)u->buffer.pointer, &tb_cs_acpi_graph_guid) &&
		    dsd->package.elements[k + 1].type == ACPI_TYPE_PACKAGE) {
			graphs = &dsd->package.elements[k + 1];
			break;
		}
	}
	/* Revision 0, one graph (acpi_validate_dsd_graph()) */
	if (!graphs || graphs->package.count != 3 ||
	    graphs->package.elements[0].type != ACPI_TYPE_INTEGER ||
	    graphs->package.elements[0].integer.value != 0 ||
	    graphs->package.elements[1].type != ACPI_TYPE_INTEGER ||
	    graphs->package.elements[1].integer.value != 1)
		goto out;
	g = &graphs->package.elements[2];
	if (g->type != ACPI_TYPE_PACKAGE || g->package.count < 3 ||
	    g->package.elements[1].type != ACPI_TYPE_BUFFER ||
	    g->package.elements[1].buffer.length != 16 ||
	    !guid_equal((guid_t *)g->package.elements[1].buffer.pointer,
			&tb_cs_acpi_cs_graph_guid) ||
	    g->package.elements[2].type != ACPI_TYPE_INTEGER)
		goto out;
	n = g->package.elements[2].integer.value;
	if (g->package.count != n + 3)
		goto out;	/* acpi_validate_coresight_graph() */
	for (k = 0; k < n; k++) {
		const union acpi_object *fl;
		struct acpi_device *r;

		l = &g->package.elements[3 + k];
		if (l->type != ACPI_TYPE_PACKAGE || l->package.count != 4)
			continue;
		fl = l->package.elements;
		if (fl[0].type != ACPI_TYPE_INTEGER || fl[1].type != ACPI_TYPE_INTEGER ||
		    fl[2].type != ACPI_TYPE_LOCAL_REFERENCE || fl[3].type != ACPI_TYPE_INTEGER ||
		    fl[3].integer.value != TB_CS_ACPI_LINK_MASTER)
			continue;
		r = acpi_fetch_acpi_dev(fl[2].reference.handle);
		dst = r ? tb_cs_acpi_index(f, r) : -1;
		if (dst < 0 || f->plat.nr_conns >= max)
			continue;	/* a TPIU, STM, CATU...: not a way we use */
		f->conns[f->plat.nr_conns++] = (struct tb_cs_conn){
			.src = i, .src_port = fl[0].integer.value,
			.dst = dst, .dst_port = fl[1].integer.value,
		};
	}
out:
	ACPI_FREE(buf.pointer);
}

struct tb_cs_acpi_walk {
	struct tb_cs_found *f;
	int kind;			/* index into tb_cs_acpi_kinds; -1: count */
	unsigned int n, max;
};

static acpi_status tb_cs_acpi_visit(acpi_handle h, u32 level, void *ctx, void **ret)
{
	struct tb_cs_acpi_walk *w = ctx;
	struct acpi_device *adev = acpi_fetch_acpi_dev(h);
	int t;

	if (!adev || !tb_cs_acpi_usable(w->f, adev))
		return AE_OK;
	t = tb_cs_acpi_kind(adev);
	if (t < 0)
		return AE_OK;
	if (w->kind < 0)
		w->n++;
	else if (t == w->kind)
		tb_cs_acpi_add(w->f, adev, tb_cs_acpi_kinds[t].kind, w->max);
	return AE_OK;
}

static void tb_cs_acpi_walk(struct tb_cs_found *f, struct tb_cs_acpi_walk *w)
{
	acpi_walk_namespace(ACPI_TYPE_DEVICE, f->acpi_root ? f->acpi_root->handle :
			    ACPI_ROOT_OBJECT, ACPI_UINT32_MAX, tb_cs_acpi_visit, NULL, w, NULL);
}

/*
 * ACPI: every present ETMv4, funnel, replicator and TMC device (under
 * f->acpi_root, if given), and the ATB graph between them from their _DSD
 * CoreSight graphs. Each ETM's path and sink are chosen at probe.
 */
static int tb_cs_discover_acpi(struct tb_cs_found *f)
{
	struct tb_cs_acpi_walk w = { .f = f, .kind = -1 };
	unsigned int i, max_conns;

	if (acpi_disabled)
		return -ENODEV;
	tb_cs_acpi_walk(f, &w);
	if (!w.n)
		return -ENODEV;
	w.max = w.n;
	max_conns = w.n * TB_CS_MAX_PORTS;
	f->comps = kcalloc(w.n, sizeof(*f->comps), GFP_KERNEL);
	f->conns = kcalloc(max_conns, sizeof(*f->conns), GFP_KERNEL);
	f->adevs = kcalloc(w.n, sizeof(*f->adevs), GFP_KERNEL);
	if (!f->comps || !f->conns || !f->adevs) {
		kfree(f->adevs);
		f->adevs = NULL;
		return -ENOMEM;
	}
	for (w.kind = 0; w.kind < ARRAY_SIZE(tb_cs_acpi_kinds); w.kind++)
		tb_cs_acpi_walk(f, &w);
	for (i = 0; i < f->plat.nr_comps; i++)
		tb_cs_acpi_conns(f, i, max_conns);
	kfree(f->adevs);
	f->adevs = NULL;
	return f->plat.nr_comps ? 0 : -ENODEV;
}
#else
static int tb_cs_discover_acpi(struct tb_cs_found *f)
{
	return -ENODEV;
}
#endif

/*
 * Module parameters, for boards that describe nothing: each ETM at
 * etm_base[cpu] wired straight to the TMC at sink_base (no links: give
 * the firmware's description where there are funnels or replicators).
 */
static int tb_cs_discover_params(struct tb_cs_found *f)
{
	int i, n = 1;

	if (!nr_etm_base || !sink_base)
		return -ENODEV;
	f->params = true;
	f->comps = kcalloc(nr_etm_base + 1, sizeof(*f->comps), GFP_KERNEL);
	f->conns = kcalloc(nr_etm_base, sizeof(*f->conns), GFP_KERNEL);
	if (!f->comps || !f->conns)
		return -ENOMEM;
	f->comps[0].kind = TB_CS_KIND_TMC;
	f->comps[0].c.base = tb_cs_map(sink_base);
	f->comps[0].c.name = "sink_base";
	f->comps[0].scatter_gather = sink_sg;
	if (!f->comps[0].c.base)
		return -ENOMEM;
	f->plat.nr_comps = 1;
	for (i = 0; i < nr_etm_base && i < nr_cpu_ids; i++) {
		struct tb_cs_desc *d = &f->comps[n];

		if (!etm_base[i])
			continue;
		d->kind = TB_CS_KIND_ETM;
		d->c.base = tb_cs_map(etm_base[i]);
		if (!d->c.base)
			continue;
		d->c.name = "etm_base";
		d->cpu = i;
		f->conns[f->plat.nr_conns++] = (struct tb_cs_conn){
			.src = n, .dst = 0,
		};
		f->plat.nr_comps = ++n;
	}
	return 0;
}

/* What discovery found, given back (bases unmapped unless an emulator's). */
static void tb_cs_found_free(struct tb_cs_found *f)
{
	unsigned int i;

	for (i = 0; f->comps && i < f->plat.nr_comps; i++) {
		struct tb_cs_desc *d = &f->comps[i];

		if (d->c.base && !f->of_map && !f->acpi_map)
			iounmap(d->c.base);
		put_device(d->c.dev);
		if (!f->params)
			kfree(d->c.name);
	}
	kfree(f->comps);
	kfree(f->conns);
	memset(f, 0, sizeof(*f));
}

/*
 * An emulator whose SoC is in the device tree (p->of_root) or the ACPI
 * namespace (p->acpi_root): its components and their graph are found
 * under that node exactly as on a real machine (tb_cs_discover_of(),
 * tb_cs_discover_acpi()), with the emulator's accessors and of_map() or
 * acpi_map() standing in for ioremap(). Under tb_backends_lock.
 */
static const struct tb_cs_platform *tb_cs_emu_discover(const struct tb_cs_platform *p)
{
	struct tb_cs_found *f = &tb_cs_emu;
	int ret;

	if (!p->of_root && !p->acpi_root)
		return p;
	if ((p->of_root && !p->of_map) || (p->acpi_root && !p->acpi_map))
		return ERR_PTR(-EINVAL);
	memset(f, 0, sizeof(*f));
	if (p->acpi_root) {
		f->acpi_root = p->acpi_root;
		f->acpi_map = p->acpi_map;
		ret = tb_cs_discover_acpi(f);
	} else {
		f->root = p->of_root;
		f->of_map = p->of_map;
		ret = tb_cs_discover_of(f);
	}
	if (ret) {
		tb_cs_found_free(f);
		return ERR_PTR(ret);
	}
	f->plat.name = p->name;
	f->plat.owner = p->owner;
	f->plat.io = p->io;
	f->plat.comps = f->comps;
	f->plat.conns = f->conns;
	tb_cs_emu_of = p;
	return &f->plat;
}

/* The emulator's discovered platform, given back (its devices put). */
static void tb_cs_emu_forget(void)
{
	if (!tb_cs_emu_of)
		return;
	tb_cs_found_free(&tb_cs_emu);
	tb_cs_emu_of = NULL;
}

/* Before tb_backends_init(): the real platform, if this machine has one. */
int tb_cs_init(void)
{
	struct tb_cs_found *f = &tb_cs_real;
	int ret;

	/* Components no driver holds are bound to ours first (cs_drv.c). */
	ret = tb_cs_drv_init();
	if (ret)
		pr_warn("tracebuf: coresight: the tracebuf-cs driver: %d; components are not bound\n",
			ret);
	/* The firmware the kernel booted with: ACPI or the device tree. */
	if (nr_etm_base)
		ret = tb_cs_discover_params(f);
	else if (!acpi_disabled)
		ret = tb_cs_discover_acpi(f);
	else
		ret = tb_cs_discover_of(f);
	if (ret) {
		tb_cs_found_free(f);
		return 0;	/* no CoreSight here: an emulator may come */
	}
	f->plat.name = nr_etm_base ? "module parameters" : !acpi_disabled ? "ACPI" :
		       "device tree";
	f->plat.io = &tb_cs_mmio;
	f->plat.comps = f->comps;
	f->plat.conns = f->conns;
	tb_cs_plat = &f->plat;
	return 0;
}

void tb_cs_exit(void)
{
	if (tb_cs_plat == &tb_cs_real.plat)
		tb_cs_plat = NULL;
	tb_cs_found_free(&tb_cs_real);
	tb_cs_drv_exit();
}
