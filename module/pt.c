// SPDX-License-Identifier: GPL-2.0
/*
 * The Intel PT backend: CPUID enumeration, MSR programming, ToPA output
 * into the AUX pages, the ToPA PMI, and draining.
 *
 * Every register access goes through tb_pt_hw (pt_hw.h): the real
 * rdmsrl_safe()/wrmsrl_safe()/cpuid_count(), or a register-level emulator
 * that registered itself. This file is the same for both.
 *
 * One session traces one CPU (PT is a per-CPU unit). On that CPU, with
 * interrupts off and s->trace_lock held (trace.c), the backend:
 *   start   checks nobody else owns PT (TraceEn clear), places STOP/INT,
 *           programs OUTPUT_BASE/MASK, clears STATUS, writes CTL|TraceEn;
 *   drain   (PMI irq_work or the core's timer) checks our CTL is still in
 *           place (else COLLISION), stops (the WRMSR clearing TraceEn
 *           serialises and flushes), reads the output position, publishes,
 *           and restarts if the consumer left room;
 *   stop    stops and publishes.
 *
 * The ToPA PMI arrives as an NMI with IA32_PERF_GLOBAL_STATUS bit 55. Our
 * handler runs first (NMI_FLAG_FIRST), acknowledges only that bit, and
 * queues the drain as a hard irq_work on the same CPU; every other NMI
 * source passes through. No-overwrite mode puts STOP on the last region
 * that is entirely free, so the hardware never overwrites unread data;
 * if it stops there, the span is published TRUNCATED and tracing resumes
 * once aux_watermark bytes are free. Snapshot mode has no STOP; INT on
 * the run's first region counts the laps (tb_pt_snap_written). Output
 * positions are read only with TraceEn clear: reads while tracing may be
 * stale (SDM vol. 3C 33.2.7.2).
 *
 * The ToPA PMI is claimed only when it is ours (tb_pt_pmi_ours): a KVM
 * guest's PMI (kvm_intel pt_mode=1) or perf's is left to perf's handler,
 * which hands a guest's to KVM (handle_pmi_common() ->
 * perf_guest_handle_intel_pt_intr()).
 *
 * VMX (SDM vol. 3D, A.6): where IA32_VMX_MISC[14] is clear, VMXON clears
 * TraceEn and TraceEn cannot be set in VMX operation. No notification
 * reaches a module (intel_pt_handle_vmx() is perf's), so VMX operation
 * is sampled (CR4.VMXE) at every start and drain: start() refuses with
 * -EOPNOTSUPP on such a CPU in VMX operation; a trace stopped by VMXON
 * is published PARTIAL and resumes after VMXOFF. A span during which the
 * CPU was in VMX operation is flagged PARTIAL: a hypervisor may have
 * stopped the trace around guest entries (KVM pt_mode=1 swaps the RTIT
 * state at every VM entry and exit, pt_guest_enter()/pt_guest_exit()).
 */
#include <linux/bitfield.h>
#include <linux/capability.h>
#include <linux/cpu.h>
#include <linux/device.h>
#include <linux/kobject.h>
#include <linux/sysfs.h>
#include <linux/irq_work.h>
#include <linux/module.h>
#include <linux/mutex.h>
#include <linux/percpu.h>
#include <linux/slab.h>
#include <linux/smp.h>
#include <asm/apic.h>
#include <asm/cpufeature.h>
#include <asm/msr.h>
#include <asm/nmi.h>
#include <asm/processor.h>
#include <asm/processor-flags.h>
#include <asm/special_insns.h>

#include "internal.h"
#include "aux.h"
#include "backend.h"
#include "pt_hw.h"
#include "pt_claim.h"
#include "drvcfg.h"
#include "topa.h"

#define TB_MSR_PLATFORM_INFO	0xce

/* Broadwell (BDM106): clearing BranchEn raises #GP. */
static const u8 tb_pt_bdm106_models[] = { 0x3d, 0x47, 0x4f, 0x56 };
/* TGL052, ADL037, RPL017: single-range output limited to 4 KiB. */
static const u8 tb_pt_single4k_models[] = { 0x8c, 0x8d, 0x97, 0x9a, 0xb7, 0xba, 0xbf };

/* --- register access ---------------------------------------------------- */

static int tb_pt_real_rdmsr(u32 msr, u64 *val)
{
	return rdmsrl_safe(msr, val) ? -EIO : 0;
}

static int tb_pt_real_wrmsr(u32 msr, u64 val)
{
	return wrmsrl_safe(msr, val) ? -EIO : 0;
}

static void tb_pt_real_cpuid(u32 leaf, u32 subleaf, u32 regs[4])
{
	cpuid_count(leaf, subleaf, &regs[0], &regs[1], &regs[2], &regs[3]);
}

static bool tb_pt_real_vmx_on(void)
{
	return __read_cr4() & X86_CR4_VMXE;
}

/*
 * Delivering a PMI masks LVTPC (SDM vol. 3A, "Local Vector Table": the
 * performance-counter entry's mask bit is set on delivery); perf unmasks
 * it in its handler only while it has active events
 * (arch/x86/events/intel/core.c, intel_pmu_handle_irq()). We unmask it
 * after each of our PMIs, as perf does.
 */
static void tb_pt_real_pmi_unmask(void)
{
	apic->write(APIC_LVTPC, APIC_DM_NMI);
}

static const struct tb_pt_hw tb_pt_real_hw = {
	.name		= "msr",
	.rdmsr		= tb_pt_real_rdmsr,
	.wrmsr		= tb_pt_real_wrmsr,
	.cpuid		= tb_pt_real_cpuid,
	.pmi_unmask	= tb_pt_real_pmi_unmask,
	.vmx_on		= tb_pt_real_vmx_on,
};

/*
 * The accessors in use. Changed only under tb_backends_lock while the
 * backend is not present (so no session, start or NMI uses it).
 */
static const struct tb_pt_hw *tb_pt_hw = &tb_pt_real_hw;

static int tb_rdmsr(u32 msr, u64 *val)
{
	/* Through a local: <asm/msr.h> defines rdmsr() as a macro. */
	int (*fn)(u32 msr, u64 *val) = tb_pt_hw->rdmsr;

	return fn(msr, val);
}

static int tb_wrmsr(u32 msr, u64 val)
{
	int (*fn)(u32 msr, u64 val) = tb_pt_hw->wrmsr;	/* wrmsr() is a macro too */

	return fn(msr, val);
}

/* --- per-CPU state ------------------------------------------------------ */

/*
 * The PT registers as tb_pt_start found them. Another owner (perf's
 * intel_pt) caches what it last wrote and skips a write that its copy says
 * is redundant (6.1 arch/x86/events/intel/pt.c: pt_config_buffer() and
 * pt_config_filters(); STATUS is cleared only on an event's first start,
 * pt_config()). So every register tracebuf writes is given back as found
 * whenever its TraceEn is clear for longer than one drain cycle (stop,
 * stall, failure): the other owner's copies stay true.
 */
struct tb_pt_regs {
	u64 ctl, status, base, mask, cr3;
	u64 addr[TB_PT_MAX_ADDR_RANGES][2];
};

struct tb_pt_cpu {
	/*
	 * The session tracing here, or NULL. Written on this CPU with
	 * interrupts off under the session's trace_lock; read by the NMI
	 * handler and the irq_work on this CPU.
	 */
	struct tb_session *s;
	struct irq_work work;		/* PMI -> drain, hard irq context */
	u64 ctl;			/* RTIT_CTL as we programmed it */
	bool running;			/* TraceEn set by us */
	bool stalled;			/* stopped on a full ring: waiting for room */
	bool held;			/* the registers hold our values, not found */
	struct tb_pt_regs found;	/* as tb_pt_start found them */
	u64 base, mask;			/* output position to program next */
	/*
	 * The ToPA PMI of the current run: it starts at AUX offset run_off,
	 * and its INT region ends int_end bytes later (0: no INT marker).
	 * pmi_taken: its PMI was claimed; pmi_owed: a halt found the INT
	 * region filled and its PMI not yet claimed (its NMI may come after
	 * the halt; settled when the session leaves the CPU). Written on
	 * this CPU only, in the drain (IRQs off) and the NMI handler.
	 */
	u64 run_off, int_end;
	bool pmi_taken, pmi_owed;
	/*
	 * Snapshot mode: INT is on the region the run starts in, and each
	 * PMI counts one more fill of it, one more lap (tb_pt_snap_written).
	 */
	unsigned int snap_pmis;
	/* VMX: in VMX operation during the current span; stopped by VMXON. */
	bool vmx_seen;
	bool vmx_wait;
	struct tb_session *suspended;	/* stopped by system suspend */
	/* Capabilities, read at probe on this CPU. */
	struct tracebuf_pt_caps caps;
	bool present;
};

static DEFINE_PER_CPU(struct tb_pt_cpu, tb_pt_cpus);

/* Per AUX area: the ToPA tables. */
struct tb_pt_buf {
	struct tb_topa topa;
	int node;
	unsigned int table_pages;	/* ToPA table pages, charged as AUX */
};

/*
 * The session's configuration in register form (s->bcfg), from
 * SET_DRV_CONFIG: read by start() under s->trace_lock.
 */
struct tb_pt_cfg {
	u64 ctl;			/* CTL bits besides TraceEn */
	u64 cr3;			/* CR3_MATCH, when CR3En */
	u64 addr_a[TB_PT_MAX_ADDR_RANGES];
	u64 addr_b[TB_PT_MAX_ADDR_RANGES];
};

static bool tb_pt_has(const struct tracebuf_pt_caps *c, u64 flag)
{
	return c->flags & flag;
}

/* --- enumeration -------------------------------------------------------- */

static bool tb_pt_model_in(u32 model, const u8 *list, size_t n)
{
	size_t i;

	for (i = 0; i < n; i++)
		if (list[i] == model)
			return true;
	return false;
}

/* On each CPU: read CPUID 7/0x14/0x15 through the accessors. */
static void tb_pt_probe_cpu(void *arg)
{
	struct tb_pt_cpu *pc = this_cpu_ptr(&tb_pt_cpus);
	struct tracebuf_pt_caps *c = &pc->caps;
	struct cpuinfo_x86 *ci = &cpu_data(smp_processor_id());
	u32 r[4];
	u64 v;

	memset(c, 0, sizeof(*c));
	pc->present = false;
	tb_pt_hw->cpuid(0, 0, r);
	if (r[0] < TB_CPUID_LEAF_PT)
		return;
	tb_pt_hw->cpuid(TB_CPUID_LEAF_EXT_FEATURES, 0, r);
	if (!(r[1] & TB_CPUID_7_EBX_INTEL_PT))
		return;
	tb_pt_hw->cpuid(TB_CPUID_LEAF_PT, 0, c->cpuid_14_0);
	if (c->cpuid_14_0[0] >= 1)
		tb_pt_hw->cpuid(TB_CPUID_LEAF_PT, 1, c->cpuid_14_1);
	tb_pt_hw->cpuid(0, 0, r);
	if (r[0] >= TB_CPUID_LEAF_TSC)
		tb_pt_hw->cpuid(TB_CPUID_LEAF_TSC, 0, c->cpuid_15);

	c->family = ci->x86;
	c->model = ci->x86_model;
	c->stepping = ci->x86_stepping;
	if (!tb_rdmsr(TB_MSR_PLATFORM_INFO, &v))
		c->max_nonturbo_ratio = (v >> 8) & 0xff;
	c->nr_addr_ranges = FIELD_GET(TB_PT_CAP1_EAX_NR_RANGES, c->cpuid_14_1[0]);
	c->mtc_periods = FIELD_GET(TB_PT_CAP1_EAX_MTC_PERIODS, c->cpuid_14_1[0]);
	c->cyc_thresholds = FIELD_GET(TB_PT_CAP1_EBX_CYC_THRESHOLDS, c->cpuid_14_1[1]);
	c->psb_periods = FIELD_GET(TB_PT_CAP1_EBX_PSB_PERIODS, c->cpuid_14_1[1]);

#define TB_CAP(reg, bit, flag) do { if ((reg) & (bit)) c->flags |= (flag); } while (0)
	TB_CAP(c->cpuid_14_0[1], TB_PT_CAP_CR3_FILTERING, TRACEBUF_PT_CAP_CR3_FILTERING);
	TB_CAP(c->cpuid_14_0[1], TB_PT_CAP_PSB_CYC, TRACEBUF_PT_CAP_PSB_CYC);
	TB_CAP(c->cpuid_14_0[1], TB_PT_CAP_IP_FILTERING, TRACEBUF_PT_CAP_IP_FILTERING);
	TB_CAP(c->cpuid_14_0[1], TB_PT_CAP_MTC, TRACEBUF_PT_CAP_MTC);
	TB_CAP(c->cpuid_14_0[1], TB_PT_CAP_PTWRITE, TRACEBUF_PT_CAP_PTWRITE);
	TB_CAP(c->cpuid_14_0[1], TB_PT_CAP_POWER_EVENT, TRACEBUF_PT_CAP_POWER_EVENT);
	TB_CAP(c->cpuid_14_0[1], TB_PT_CAP_EVENT_TRACE, TRACEBUF_PT_CAP_EVENT_TRACE);
	TB_CAP(c->cpuid_14_0[1], TB_PT_CAP_TNT_DISABLE, TRACEBUF_PT_CAP_TNT_DISABLE);
	TB_CAP(c->cpuid_14_0[2], TB_PT_CAP_TOPA_OUTPUT, TRACEBUF_PT_CAP_TOPA_OUTPUT);
	TB_CAP(c->cpuid_14_0[2], TB_PT_CAP_TOPA_MULTI, TRACEBUF_PT_CAP_TOPA_MULTI);
	TB_CAP(c->cpuid_14_0[2], TB_PT_CAP_SINGLE_RANGE, TRACEBUF_PT_CAP_SINGLE_RANGE);
	TB_CAP(c->cpuid_14_0[2], TB_PT_CAP_OUTPUT_SUBSYS, TRACEBUF_PT_CAP_OUTPUT_SUBSYS);
	TB_CAP(c->cpuid_14_0[2], TB_PT_CAP_PAYLOADS_LIP, TRACEBUF_PT_CAP_PAYLOADS_LIP);
#undef TB_CAP
	if (c->family == 6 &&
	    tb_pt_model_in(c->model, tb_pt_bdm106_models, ARRAY_SIZE(tb_pt_bdm106_models)))
		c->flags |= TRACEBUF_PT_CAP_BRANCH_ALWAYS;
	/* IA32_VMX_MISC exists where CPUID.1:ECX.VMX is set (SDM vol. 3D, A.1). */
	tb_pt_hw->cpuid(TB_CPUID_LEAF_FEATURES, 0, r);
	if ((r[2] & TB_CPUID_1_ECX_VMX) &&
	    (tb_rdmsr(TB_MSR_VMX_MISC, &v) || !(v & TB_VMX_MISC_PT)))
		c->flags |= TRACEBUF_PT_CAP_NO_VMX_TRACE;
	if (c->family == 6 &&
	    tb_pt_model_in(c->model, tb_pt_single4k_models, ARRAY_SIZE(tb_pt_single4k_models)))
		c->flags |= TRACEBUF_PT_CAP_SINGLE_4K;

	/* ToPA output is what we drive; the MSRs must answer. */
	if (!tb_pt_has(c, TRACEBUF_PT_CAP_TOPA_OUTPUT) ||
	    tb_rdmsr(TB_MSR_RTIT_CTL, &v) || tb_rdmsr(TB_MSR_RTIT_STATUS, &v))
		return;
	pc->present = true;
}

/*
 * /sys/class/misc/tracebuf/intel_pt/caps/: the first traced CPU's
 * capabilities, one value per file, named as perf's intel_pt names them.
 */
static struct kobject *tb_pt_kobj;

static const struct tracebuf_pt_caps *tb_pt_caps0(void)
{
	unsigned int cpu;

	for_each_possible_cpu(cpu)
		if (per_cpu(tb_pt_cpus, cpu).present)
			return &per_cpu(tb_pt_cpus, cpu).caps;
	return &per_cpu(tb_pt_cpus, 0).caps;
}

struct tb_pt_cap_attr {
	struct kobj_attribute attr;
	u64 flag;		/* a TRACEBUF_PT_CAP_* bit, or 0 for a value */
	size_t off;		/* offset of a u32 value in the caps */
	bool hex;
};

static ssize_t tb_pt_cap_show(struct kobject *kobj, struct kobj_attribute *attr,
			      char *buf)
{
	struct tb_pt_cap_attr *a = container_of(attr, struct tb_pt_cap_attr, attr);
	const struct tracebuf_pt_caps *c = tb_pt_caps0();
	u32 v;

	if (a->flag)
		return sysfs_emit(buf, "%d\n", !!(c->flags & a->flag));
	v = *(const u32 *)((const char *)c + a->off);
	return sysfs_emit(buf, a->hex ? "%#x\n" : "%u\n", v);
}

#define TB_PT_FLAG_ATTR(_name, _flag) \
	{ .attr = __ATTR(_name, 0444, tb_pt_cap_show, NULL), .flag = (_flag) }
#define TB_PT_VAL_ATTR(_name, _field, _hex) \
	{ .attr = __ATTR(_name, 0444, tb_pt_cap_show, NULL), \
	  .off = offsetof(struct tracebuf_pt_caps, _field), .hex = (_hex) }

static struct tb_pt_cap_attr tb_pt_cap_attrs[] = {
	TB_PT_FLAG_ATTR(cr3_filtering, TRACEBUF_PT_CAP_CR3_FILTERING),
	TB_PT_FLAG_ATTR(psb_cyc, TRACEBUF_PT_CAP_PSB_CYC),
	TB_PT_FLAG_ATTR(ip_filtering, TRACEBUF_PT_CAP_IP_FILTERING),
	TB_PT_FLAG_ATTR(mtc, TRACEBUF_PT_CAP_MTC),
	TB_PT_FLAG_ATTR(ptwrite, TRACEBUF_PT_CAP_PTWRITE),
	TB_PT_FLAG_ATTR(power_event_trace, TRACEBUF_PT_CAP_POWER_EVENT),
	TB_PT_FLAG_ATTR(event_trace, TRACEBUF_PT_CAP_EVENT_TRACE),
	TB_PT_FLAG_ATTR(tnt_disable, TRACEBUF_PT_CAP_TNT_DISABLE),
	TB_PT_FLAG_ATTR(topa_output, TRACEBUF_PT_CAP_TOPA_OUTPUT),
	TB_PT_FLAG_ATTR(topa_multiple_entries, TRACEBUF_PT_CAP_TOPA_MULTI),
	TB_PT_FLAG_ATTR(single_range_output, TRACEBUF_PT_CAP_SINGLE_RANGE),
	TB_PT_FLAG_ATTR(output_subsys, TRACEBUF_PT_CAP_OUTPUT_SUBSYS),
	TB_PT_FLAG_ATTR(payloads_lip, TRACEBUF_PT_CAP_PAYLOADS_LIP),
	TB_PT_VAL_ATTR(num_address_ranges, nr_addr_ranges, false),
	TB_PT_VAL_ATTR(mtc_periods, mtc_periods, true),
	TB_PT_VAL_ATTR(cycle_thresholds, cyc_thresholds, true),
	TB_PT_VAL_ATTR(psb_periods, psb_periods, true),
	TB_PT_VAL_ATTR(max_nonturbo_ratio, max_nonturbo_ratio, false),
	TB_PT_VAL_ATTR(tsc_art_ratio_num, cpuid_15[1], false),
	TB_PT_VAL_ATTR(tsc_art_ratio_den, cpuid_15[0], false),
};

static struct attribute *tb_pt_cap_attr_list[ARRAY_SIZE(tb_pt_cap_attrs) + 1];

static const struct attribute_group tb_pt_caps_group = {
	.name	= "caps",
	.attrs	= tb_pt_cap_attr_list,
};

static void tb_pt_sysfs_add(void)
{
	unsigned int i;

	for (i = 0; i < ARRAY_SIZE(tb_pt_cap_attrs); i++)
		tb_pt_cap_attr_list[i] = &tb_pt_cap_attrs[i].attr.attr;
	tb_pt_kobj = kobject_create_and_add("intel_pt", &tb_device()->kobj);
	if (tb_pt_kobj && sysfs_create_group(tb_pt_kobj, &tb_pt_caps_group)) {
		kobject_put(tb_pt_kobj);
		tb_pt_kobj = NULL;
	}
	if (!tb_pt_kobj)
		pr_warn("tracebuf: intel_pt: no sysfs caps directory\n");
}

static void tb_pt_remove(struct tb_backend *b)
{
	if (!tb_pt_kobj)
		return;
	sysfs_remove_group(tb_pt_kobj, &tb_pt_caps_group);
	kobject_put(tb_pt_kobj);
	tb_pt_kobj = NULL;
}

static int tb_pt_probe(struct tb_backend *b)
{
	unsigned int cpu, n = 0;

	/*
	 * Called under tb_backends_lock, which SETUP takes inside
	 * cpus_read_lock(): no hotplug lock here. A CPU that is offline now
	 * (the IPI fails) is not probed, and SETUP refuses it.
	 */
	for_each_possible_cpu(cpu) {
		per_cpu(tb_pt_cpus, cpu).present = false;
		if (cpu_online(cpu))
			smp_call_function_single(cpu, tb_pt_probe_cpu, NULL, 1);
		if (per_cpu(tb_pt_cpus, cpu).present)
			n++;
	}
	if (!n)
		return -ENODEV;
	b->nr_cpus = n;
	b->caps_size = sizeof(struct tracebuf_pt_caps);
	b->flags = tb_pt_hw == &tb_pt_real_hw ? 0 : TRACEBUF_BACKEND_F_EMULATED;
	tb_pt_sysfs_add();
	return 0;
}

static int tb_pt_caps(const struct tb_backend *b, unsigned int cpu, void *buf,
		      size_t size)
{
	struct tb_pt_cpu *pc = per_cpu_ptr(&tb_pt_cpus, cpu);

	if (!pc->present || size < sizeof(pc->caps))
		return -ENODEV;
	memcpy(buf, &pc->caps, sizeof(pc->caps));
	return sizeof(pc->caps);
}

static int tb_pt_check_setup(const struct tb_backend *b, const struct cpumask *cpus)
{
	unsigned int cpu = cpumask_first(cpus);

	/* PT is per CPU: one session per CPU, and a CPU we probed. */
	if (cpumask_weight(cpus) != 1 || !per_cpu(tb_pt_cpus, cpu).present)
		return -EINVAL;
	return 0;
}

/* --- output tables ------------------------------------------------------ */

static void *tb_pt_table_alloc(void *ctx, u64 *phys)
{
	struct tb_pt_buf *buf = ctx;
	/* __GFP_ACCOUNT: the memory cgroup sees the tables too. */
	struct page *p = alloc_pages_node(buf->node, GFP_KERNEL_ACCOUNT | __GFP_ZERO, 0);

	if (!p)
		return NULL;
	buf->table_pages++;
	*phys = page_to_phys(p);
	return page_address(p);
}

static void tb_pt_table_free(void *ctx, void *table)
{
	free_page((unsigned long)table);
}

static void *tb_pt_array_alloc(void *ctx, size_t bytes)
{
	return kvzalloc(bytes, GFP_KERNEL);
}

static void tb_pt_array_free(void *ctx, void *p)
{
	kvfree(p);
}

static int tb_pt_setup_aux(struct tb_session *s, struct tb_aux *aux)
{
	unsigned int cpu = cpumask_first(s->cpus);
	const struct tracebuf_pt_caps *c = &per_cpu(tb_pt_cpus, cpu).caps;
	bool single = !tb_pt_has(c, TRACEBUF_PT_CAP_TOPA_MULTI);
	struct tb_topa_chunk *chunks;
	struct tb_topa_alloc a = {
		.table_alloc = tb_pt_table_alloc,
		.table_free = tb_pt_table_free,
		.array_alloc = tb_pt_array_alloc,
		.array_free = tb_pt_array_free,
	};
	struct tb_pt_buf *buf;
	unsigned int i;
	int ret;

	/* Single-entry ToPA stops at every region: it cannot wrap freely. */
	if (single && aux->snapshot)
		return -EOPNOTSUPP;
	buf = kzalloc(sizeof(*buf), GFP_KERNEL);
	chunks = kcalloc(aux->nr_chunks, sizeof(*chunks), GFP_KERNEL);
	if (!buf || !chunks) {
		ret = -ENOMEM;
		goto out;
	}
	for (i = 0; i < aux->nr_chunks; i++) {
		chunks[i].phys = page_to_phys(aux->chunks[i].page);
		chunks[i].order = aux->chunks[i].order;
	}
	buf->node = s->node;
	a.ctx = buf;
	ret = tb_topa_build(&buf->topa, chunks, aux->nr_chunks, single, &a);
	if (ret)
		goto out;
	aux->priv = buf;
	aux->table_pages = buf->table_pages;
	buf = NULL;
out:
	kfree(chunks);
	kfree(buf);
	return ret;
}

static void tb_pt_free_aux(struct tb_aux *aux)
{
	struct tb_pt_buf *buf = aux->priv;
	struct tb_topa_alloc a = {
		.table_free = tb_pt_table_free,
		.array_free = tb_pt_array_free,
		.ctx = buf,
	};

	if (!buf)
		return;
	tb_topa_free(&buf->topa, &a);
	kfree(buf);
	aux->priv = NULL;
}

/* --- start, drain, stop (on the traced CPU, IRQs off, trace_lock held) -- */

/* Regions from a to b going forward around the ring. */
static unsigned int tb_pt_dist(const struct tb_topa *t, int a, int b)
{
	return (b - a + t->nr_regions) % t->nr_regions;
}

/*
 * Place STOP and INT for the space the consumer has left, and program the
 * output position at the published head. Returns false (stalled) when the region
 * the hardware would write next is not entirely free, or when resuming
 * from a stall with less than a watermark of room.
 */
static bool tb_pt_place(struct tb_pt_cpu *pc, struct tb_aux *aux, struct tb_pt_buf *buf)
{
	struct tb_topa *t = &buf->topa;
	u64 pos = tb_aux_head(aux), head = pos & aux->mask, free, base, mask;
	int cur = tb_topa_region_of(t, head), stop, irq;
	const struct tb_topa_region *r = &t->regions[cur];

	if (!aux->snapshot) {
		free = tb_aux_free_bytes(aux);
		if (free < r->offset + r->size - head)
			return false;
		if (pc->stalled && free < min(aux->watermark, aux->size))
			return false;
		/* The last region that ends at or before tail + size. */
		stop = tb_topa_region_of(t, (pos + free) & aux->mask);
		stop = (stop + t->nr_regions - 1) % t->nr_regions;
		irq = tb_topa_region_of(t, (pos + min(aux->watermark, free) - 1) & aux->mask);
		if (tb_pt_dist(t, cur, irq) > tb_pt_dist(t, cur, stop))
			irq = stop;
		tb_topa_set_markers(t, stop, irq);
		/* Where this run's PMI is due: tb_pt_pmi_ours(). */
		pc->int_end = (t->regions[irq].offset + t->regions[irq].size - head) &
			      aux->mask ?: aux->size;
	} else {
		/*
		 * Snapshot: the ring wraps freely. INT on the run's first
		 * region: every lap fills it once more and raises a PMI, so
		 * laps are counted without reading a position while tracing.
		 */
		tb_topa_set_markers(t, -1, cur);
		pc->int_end = r->offset + r->size - head;
		pc->snap_pmis = 0;
	}
	pc->run_off = head;
	tb_topa_pos(t, head, &base, &mask);
	/* The table writes above reach memory before the hardware reads them. */
	wmb();
	pc->base = base;
	pc->mask = mask;
	return true;
}

/* Read what another owner left, TraceEn clear: tb_pt_release() restores it. */
static int tb_pt_save(struct tb_pt_cpu *pc, u64 ctl)
{
	struct tb_pt_regs *r = &pc->found;
	unsigned int i;

	r->ctl = ctl;
	if (tb_rdmsr(TB_MSR_RTIT_STATUS, &r->status) ||
	    tb_rdmsr(TB_MSR_RTIT_OUTPUT_BASE, &r->base) ||
	    tb_rdmsr(TB_MSR_RTIT_OUTPUT_MASK, &r->mask))
		return -EIO;
	r->status &= TB_RTIT_STATUS_WRITABLE;
	if (tb_pt_has(&pc->caps, TRACEBUF_PT_CAP_CR3_FILTERING) &&
	    tb_rdmsr(TB_MSR_RTIT_CR3_MATCH, &r->cr3))
		return -EIO;
	for (i = 0; i < pc->caps.nr_addr_ranges && i < TB_PT_MAX_ADDR_RANGES; i++)
		if (tb_rdmsr(TB_MSR_RTIT_ADDR_A(i), &r->addr[i][0]) ||
		    tb_rdmsr(TB_MSR_RTIT_ADDR_B(i), &r->addr[i][1]))
			return -EIO;
	return 0;
}

/*
 * Give the registers back as found. The CTL write comes first: it clears
 * our TraceEn if still set (legal with other bits changing, SDM vol. 3C
 * 33.2.8.2), after which the others may be written.
 */
static void tb_pt_release(struct tb_pt_cpu *pc)
{
	const struct tb_pt_regs *r = &pc->found;
	unsigned int i;

	pc->running = false;
	if (!pc->held)
		return;
	pc->held = false;
	tb_wrmsr(TB_MSR_RTIT_CTL, r->ctl & ~TB_RTIT_CTL_TRACEEN);
	tb_wrmsr(TB_MSR_RTIT_OUTPUT_BASE, r->base);
	tb_wrmsr(TB_MSR_RTIT_OUTPUT_MASK, r->mask);
	if (tb_pt_has(&pc->caps, TRACEBUF_PT_CAP_CR3_FILTERING))
		tb_wrmsr(TB_MSR_RTIT_CR3_MATCH, r->cr3);
	for (i = 0; i < pc->caps.nr_addr_ranges && i < TB_PT_MAX_ADDR_RANGES; i++) {
		tb_wrmsr(TB_MSR_RTIT_ADDR_A(i), r->addr[i][0]);
		tb_wrmsr(TB_MSR_RTIT_ADDR_B(i), r->addr[i][1]);
	}
	tb_wrmsr(TB_MSR_RTIT_STATUS, r->status);
}

/* Program the filters once per hold: drain cycles keep them. */
static int tb_pt_hold(struct tb_pt_cpu *pc, const struct tb_pt_cfg *cfg)
{
	unsigned int i;

	if (pc->held)
		return 0;
	pc->held = true;
	for (i = 0; i < pc->caps.nr_addr_ranges && i < TB_PT_MAX_ADDR_RANGES; i++)
		if (tb_wrmsr(TB_MSR_RTIT_ADDR_A(i), cfg->addr_a[i]) ||
		    tb_wrmsr(TB_MSR_RTIT_ADDR_B(i), cfg->addr_b[i]))
			return -EIO;
	if (tb_pt_has(&pc->caps, TRACEBUF_PT_CAP_CR3_FILTERING) &&
	    tb_wrmsr(TB_MSR_RTIT_CR3_MATCH, cfg->cr3))
		return -EIO;
	return 0;
}

/*
 * (Re)start at the published head, or stall with the registers given back
 * when there is no room.
 */
static int tb_pt_run(struct tb_pt_cpu *pc, struct tb_session *s)
{
	struct tb_aux *aux = s->aux;
	struct tb_pt_buf *buf = aux->priv;
	u64 gstatus;

	if (!tb_pt_place(pc, aux, buf)) {
		pc->stalled = true;
		tb_pt_release(pc);
		return 0;
	}
	pc->stalled = false;
	pc->pmi_taken = false;
	/*
	 * A new span starts; it inherits a VMX stop whose run wrote
	 * nothing, which tb_pt_halt() could not publish (the trace has a
	 * gap there all the same).
	 */
	pc->vmx_seen |= tb_pt_hw->vmx_on();
	/* An owed PMI whose bit is clear was taken by another handler. */
	if (READ_ONCE(pc->pmi_owed) && !tb_rdmsr(TB_MSR_PERF_GLOBAL_STATUS, &gstatus) &&
	    !(gstatus & TB_GLOBAL_STATUS_TOPA_PMI))
		WRITE_ONCE(pc->pmi_owed, false);
	if (tb_pt_hold(pc, s->bcfg) ||
	    tb_wrmsr(TB_MSR_RTIT_OUTPUT_BASE, pc->base) ||
	    tb_wrmsr(TB_MSR_RTIT_OUTPUT_MASK, pc->mask) ||
	    tb_wrmsr(TB_MSR_RTIT_STATUS, 0) ||
	    tb_wrmsr(TB_MSR_RTIT_CTL, pc->ctl))
		return -EIO;
	pc->running = true;
	return 0;
}

/*
 * Has this run written through its INT region, output now at AUX offset
 * off? Single-entry ToPA raises the PMI up to TB_TOPA_PMI_MARGIN bytes
 * early.
 */
static bool tb_pt_pmi_due(const struct tb_pt_cpu *pc, const struct tb_aux *aux,
			  const struct tb_pt_buf *buf, u64 off)
{
	u64 written = (off - pc->run_off) & aux->mask;

	if (buf->topa.single)
		written += TB_TOPA_PMI_MARGIN;
	return written >= pc->int_end;
}

/*
 * Snapshot mode: the bytes this run wrote, laps included, from where the
 * output moved (read with TraceEn clear) and the PMIs of the run's first
 * region, which it fills once per lap: after n fills at least int_end +
 * (n - 1) * size bytes were written (one fill is certain if the output
 * went through it, whether or not its PMI was seen).
 */
static u64 tb_pt_snap_written(const struct tb_pt_cpu *pc, const struct tb_aux *aux,
			      u64 moved)
{
	u64 n = READ_ONCE(pc->snap_pmis), need;

	if (!n && moved >= pc->int_end)
		n = 1;
	if (!n)
		return moved;
	need = pc->int_end + (n - 1) * aux->size;
	if (moved >= need)
		return moved;
	return moved + DIV_ROUND_UP_ULL(need - moved, aux->size) * aux->size;
}

/*
 * Stop the hardware and work out how far it wrote. Returns the new head
 * and sets *flags; -EIO in *err when the position is not ours.
 */
static u64 tb_pt_halt(struct tb_pt_cpu *pc, struct tb_aux *aux,
		      struct tb_pt_buf *buf, u64 *flags, int *err)
{
	struct tb_topa *t = &buf->topa;
	u64 base, mask, status, off, delta, free;

	*flags = 0;
	*err = 0;
	/* Clearing TraceEn serialises and flushes the packets to memory. */
	tb_wrmsr(TB_MSR_RTIT_CTL, pc->ctl & ~TB_RTIT_CTL_TRACEEN);
	pc->running = false;
	/* The hardware's stores land before we read them or publish. */
	rmb();
	if (tb_rdmsr(TB_MSR_RTIT_OUTPUT_BASE, &base) ||
	    tb_rdmsr(TB_MSR_RTIT_OUTPUT_MASK, &mask) ||
	    tb_rdmsr(TB_MSR_RTIT_STATUS, &status) ||
	    tb_topa_offset(t, base, mask, &off)) {
		*err = -EIO;
		return tb_aux_head(aux);
	}
	if (status & TB_RTIT_STATUS_ERROR)
		*err = -EIO;
	/* Its INT region filled: the PMI may still be on its way. */
	if (!aux->snapshot && !pc->pmi_taken && pc->int_end &&
	    ((status & TB_RTIT_STATUS_STOPPED) || tb_pt_pmi_due(pc, aux, buf, off)))
		WRITE_ONCE(pc->pmi_owed, true);
	delta = (off - tb_aux_head(aux)) & aux->mask;
	if (t->single) {
		int r = tb_topa_region_of(t, off);
		const struct tb_topa_region *reg = &t->regions[r];
		u64 left = reg->offset + reg->size - off;

		/*
		 * Single-entry ToPA raises its PMI up to 512 bytes early,
		 * once: pad the rest of the region (PAD packets are zero
		 * bytes) and move to the next region. On every halt, not
		 * only the PMI's: a restart inside the margin would get no
		 * second PMI and run into the region's STOP (perf pads from
		 * pt_handle_status() on its stop path too).
		 */
		if (!(status & TB_RTIT_STATUS_STOPPED) && off != reg->offset &&
		    left <= TB_TOPA_PMI_MARGIN) {
			struct page *pg = aux->pages[off >> PAGE_SHIFT];

			memset(page_address(pg) + offset_in_page(off), 0, left);
			tb_aux_count_padding(aux, left);
			delta += left;
		}
	}
	if (status & TB_RTIT_STATUS_STOPPED) {
		*flags |= TRACEBUF_AUX_F_TRUNCATED;
		free = aux->snapshot ? 0 : tb_aux_free_bytes(aux);
		/* Stopped with the whole ring written: off is back at head. */
		if (!delta && free == aux->size)
			delta = aux->size;
	}
	if (aux->snapshot) {
		/*
		 * tb_aux_publish() adds delta itself: add the whole laps of
		 * this run (the run started at the published head).
		 */
		aux->snap_written += tb_pt_snap_written(pc, aux, delta) - delta;
	}
	/*
	 * In VMX operation during the span: it may have gaps (top of file).
	 * Nothing to publish: the next span inherits it.
	 */
	if (!delta && !*flags && !aux->snap_written) {
		pc->vmx_seen |= tb_pt_hw->vmx_on();
	} else {
		if (pc->vmx_seen || tb_pt_hw->vmx_on())
			*flags |= TRACEBUF_AUX_F_PARTIAL;
		pc->vmx_seen = tb_pt_hw->vmx_on();
	}
	return tb_aux_head(aux) + delta;
}

/*
 * The session leaves this CPU: a PMI of ours still owed (its INT region
 * filled, its NMI not yet taken: delivery masked) is acknowledged now,
 * or the NMI handler, gone with the session, would leave it to nobody.
 */
static void tb_pt_pmi_settle(struct tb_pt_cpu *pc)
{
	u64 gstatus;

	if (!READ_ONCE(pc->pmi_owed))
		return;
	WRITE_ONCE(pc->pmi_owed, false);
	if (!tb_rdmsr(TB_MSR_PERF_GLOBAL_STATUS, &gstatus) &&
	    (gstatus & TB_GLOBAL_STATUS_TOPA_PMI)) {
		tb_wrmsr(TB_MSR_PERF_GLOBAL_OVF_CTRL, TB_GLOBAL_STATUS_TOPA_PMI);
		tb_pt_hw->pmi_unmask();
	}
}

/*
 * Give up this CPU's hardware: the session is in the error state. The
 * registers are given back unless another owner holds them now.
 */
static void tb_pt_fail(struct tb_session *s, struct tb_pt_cpu *pc, unsigned int cpu,
		       const char *why)
{
	/* Deferred: a task session stops from the scheduler (task.c). */
	tb_warn_deferred_ratelimited("tracebuf: intel_pt: cpu%u: %s; tracing stopped\n", cpu, why);
	tb_pt_release(pc);
	pc->stalled = false;
	tb_pt_pmi_settle(pc);
	WRITE_ONCE(pc->s, NULL);	/* the NMI handler leaves this CPU alone */
	tb_trace_error(s, cpu);
}

/*
 * Another owner changed our registers: flag COLLISION and stop, without
 * touching them. What the hardware wrote since the last drain is lost
 * with an unknown size: the COLLISION span says so.
 */
static void tb_pt_collision(struct tb_session *s, struct tb_pt_cpu *pc,
			    unsigned int cpu)
{
	struct tb_pt_buf *buf = s->aux->priv;
	u64 ctl, base;

	/*
	 * Output still going into our tables (an owner that changed CTL but
	 * not the output, or a position we could not place): stop it, or it
	 * would write into our pages after they are freed. Output elsewhere
	 * is the other owner's: not one write.
	 */
	if (!tb_rdmsr(TB_MSR_RTIT_CTL, &ctl) && (ctl & TB_RTIT_CTL_TRACEEN) &&
	    !tb_rdmsr(TB_MSR_RTIT_OUTPUT_BASE, &base) && tb_topa_owns(&buf->topa, base))
		tb_wrmsr(TB_MSR_RTIT_CTL, ctl & ~TB_RTIT_CTL_TRACEEN);
	pc->held = false;	/* theirs now: not one write */
	tb_aux_publish(s->aux, tb_aux_head(s->aux), TRACEBUF_AUX_F_COLLISION);
	tb_pt_fail(s, pc, cpu, "another owner took the hardware");
}

/* Why start() refuses in VMX operation, for the log. */
static const char tb_pt_vmx_why[] =
	"in VMX operation (a hypervisor runs), where it cannot trace (VMX_MISC[14] clear)";

/*
 * This CPU cannot trace in VMX operation (IA32_VMX_MISC[14] clear) and is
 * in it now: TraceEn cannot be set (SDM vol. 3D, A.6).
 */
static bool tb_pt_vmx_blocked(const struct tb_pt_cpu *pc)
{
	return tb_pt_has(&pc->caps, TRACEBUF_PT_CAP_NO_VMX_TRACE) && tb_pt_hw->vmx_on();
}

/*
 * Stopped (by VMXON, or about to restart) in VMX operation: give the
 * registers back (writing CTL without TraceEn is allowed there) and
 * restart at a drain after VMXOFF. What was written is published; the
 * span that ends here is PARTIAL.
 */
static void tb_pt_vmx_wait(struct tb_pt_cpu *pc, unsigned int cpu)
{
	if (!pc->vmx_wait)
		pr_info_ratelimited("tracebuf: intel_pt: cpu%u: in VMX operation, where this CPU cannot trace (IA32_VMX_MISC[14] clear): tracing waits for VMXOFF\n",
				    cpu);
	pc->vmx_wait = true;
	tb_pt_release(pc);
}

static void tb_pt_drain_locked(struct tb_session *s, unsigned int cpu)
{
	struct tb_pt_cpu *pc = this_cpu_ptr(&tb_pt_cpus);
	struct tb_aux *aux = s->aux;
	struct tb_pt_buf *buf = aux->priv;
	u64 ctl, base, mask, off, head, flags;
	int err;

	pc->vmx_seen |= tb_pt_hw->vmx_on();	/* sampled at every drain */
	if (pc->running) {
		if (tb_rdmsr(TB_MSR_RTIT_CTL, &ctl)) {
			tb_pt_collision(s, pc, cpu);
			return;
		}
		/* VMXON cleared TraceEn (SDM vol. 3D, A.6): publish and wait. */
		if (ctl == (pc->ctl & ~TB_RTIT_CTL_TRACEEN) && tb_pt_vmx_blocked(pc)) {
			head = tb_pt_halt(pc, aux, buf, &flags, &err);
			tb_aux_publish(aux, head, flags);	/* PARTIAL: VMX is on */
			if (err) {
				tb_pt_fail(s, pc, cpu, "output error");
				return;
			}
			tb_pt_vmx_wait(pc, cpu);
			return;
		}
		/*
		 * Are our values still in place? The output registers read
		 * while tracing may be stale (SDM vol. 3C 33.2.7.2): they say
		 * whose output this is, never how far it got. Positions are
		 * read only after TraceEn is cleared (tb_pt_halt), as perf's
		 * pt_read_offset() runs after pt_config_stop().
		 */
		if (ctl != pc->ctl ||
		    tb_rdmsr(TB_MSR_RTIT_OUTPUT_BASE, &base) ||
		    tb_rdmsr(TB_MSR_RTIT_OUTPUT_MASK, &mask) ||
		    tb_topa_offset(&buf->topa, base, mask, &off)) {
			tb_pt_collision(s, pc, cpu);
			return;
		}
		/* Snapshot: SNAPSHOT publishes; the laps are counted by PMI. */
		if (aux->snapshot)
			return;
		/* Stop, read where it got, publish (nothing if nothing new), restart. */
		head = tb_pt_halt(pc, aux, buf, &flags, &err);
		tb_aux_publish(aux, head, flags);
		if (err) {
			tb_pt_fail(s, pc, cpu, "output error");
			return;
		}
		if (flags & TRACEBUF_AUX_F_TRUNCATED)
			pc->stalled = true;	/* resume at a watermark of room */
	} else if (tb_rdmsr(TB_MSR_RTIT_CTL, &ctl) || (ctl & TB_RTIT_CTL_TRACEEN)) {
		/* Stalled: another owner took the unit while it was idle. */
		tb_pt_collision(s, pc, cpu);
		return;
	}
	/* In VMX operation this CPU cannot set TraceEn: wait for VMXOFF. */
	if (tb_pt_vmx_blocked(pc)) {
		tb_pt_vmx_wait(pc, cpu);
		return;
	}
	if (pc->vmx_wait)
		pr_info_ratelimited("tracebuf: intel_pt: cpu%u: VMX operation ended: tracing resumes\n",
				    cpu);
	pc->vmx_wait = false;
	if (tb_pt_run(pc, s))
		tb_pt_fail(s, pc, cpu, "restart refused");
}

static void tb_pt_drain(struct tb_session *s, unsigned int cpu)
{
	tb_pt_drain_locked(s, cpu);
}

static int tb_pt_start(struct tb_session *s, unsigned int cpu)
{
	struct tb_pt_cpu *pc = this_cpu_ptr(&tb_pt_cpus);
	const struct tb_pt_cfg *cfg = s->bcfg;
	u64 ctl;
	int ret;

	if (!pc->present)
		return -ENODEV;
	if (pc->s)
		return -EBUSY;
	/*
	 * perf's intel_pt is kept off this CPU by our claim (pt_claim.c),
	 * lost if perf took the unit while the CPU was offline.
	 */
	if (!s->task && !tb_pt_claim_held(s, cpu))
		return -EBUSY;
	/* Never fight another owner (a tool outside perf, a debugger). */
	if (tb_rdmsr(TB_MSR_RTIT_CTL, &ctl))
		return -EIO;
	if (ctl & TB_RTIT_CTL_TRACEEN)
		return -EBUSY;
	/* SDM vol. 3D, A.6: TraceEn cannot be set in VMX operation here. */
	if (tb_pt_vmx_blocked(pc)) {
		/* Deferred: a task session starts from the scheduler (task.c). */
		tb_warn_deferred_ratelimited("tracebuf: intel_pt: cpu%u: %s: refused\n", cpu,
					     tb_pt_vmx_why);
		return -EOPNOTSUPP;
	}
	pc->vmx_wait = false;
	pc->vmx_seen = false;	/* nothing inherited from another session */
	/* BDM106 needs BranchEn: its key table only allows branch=1. */
	pc->ctl = cfg->ctl | TB_RTIT_CTL_TOPA | TB_RTIT_CTL_TRACEEN;
	pc->stalled = false;
	pc->held = false;
	/* TraceEn is clear: the other registers may be read and written. */
	if (tb_pt_save(pc, ctl))
		return -EIO;
	/*
	 * LVTPC left masked by a PMI nobody handled would keep every PMI of
	 * ours away: start from a clean line. A ToPA PMI of ours left
	 * unacknowledged was settled when its session left the CPU
	 * (tb_pt_pmi_settle()); one that is not ours (a KVM guest's) is
	 * left alone.
	 */
	tb_pt_hw->pmi_unmask();
	WRITE_ONCE(pc->s, s);	/* the NMI handler may drain from now on */
	ret = tb_pt_run(pc, s);
	if (ret) {
		tb_pt_release(pc);
		tb_pt_pmi_settle(pc);
		WRITE_ONCE(pc->s, NULL);
	}
	return ret;
}

static void tb_pt_stop(struct tb_session *s, unsigned int cpu)
{
	struct tb_pt_cpu *pc = this_cpu_ptr(&tb_pt_cpus);
	struct tb_aux *aux = s->aux;
	u64 ctl, head, flags;
	int err;

	if (pc->s != s)
		return;
	if (pc->running) {
		if (tb_rdmsr(TB_MSR_RTIT_CTL, &ctl) || ctl != pc->ctl) {
			tb_pt_collision(s, pc, cpu);
			return;
		}
		head = tb_pt_halt(pc, aux, aux->priv, &flags, &err);
		tb_aux_publish(aux, head, flags);
	} else if (!pc->held &&
		   (tb_rdmsr(TB_MSR_RTIT_CTL, &ctl) || (ctl & TB_RTIT_CTL_TRACEEN))) {
		/* Stalled, registers given back, and another owner is tracing. */
		tb_pt_collision(s, pc, cpu);
		return;
	}
	tb_pt_release(pc);
	pc->stalled = false;
	tb_pt_pmi_settle(pc);
	WRITE_ONCE(pc->s, NULL);
}

/*
 * The unit of the session's CPU, against perf's intel_pt (pt_claim.c). A
 * task session (TARGET_TASK) claims nothing yet: it keeps the TraceEn
 * checks (a disabled per-task intel_pt event on its processes would be
 * its claim).
 */
static int tb_pt_claim_session(struct tb_session *s)
{
	return s->task ? 0 : tb_pt_claim(s, cpumask_first(s->cpus));
}

static void tb_pt_unclaim_session(struct tb_session *s)
{
	if (!s->task)
		tb_pt_unclaim(s, cpumask_first(s->cpus));
}

/* --- the PMI ------------------------------------------------------------ */

static void tb_pt_work_fn(struct irq_work *w)
{
	struct tb_pt_cpu *pc = container_of(w, struct tb_pt_cpu, work);
	struct tb_session *s = READ_ONCE(pc->s);

	/*
	 * Hard irq_work on this CPU, interrupts off: a stop (IPI, also on
	 * this CPU) cannot run between the load above and the lock.
	 */
	if (!s)
		return;
	raw_spin_lock(&s->trace_lock);
	if (pc->s == s && s->tr_enabled)
		tb_pt_drain_locked(s, smp_processor_id());
	raw_spin_unlock(&s->trace_lock);
}

/*
 * Is the ToPA PMI (GLOBAL_STATUS bit 55) of this CPU ours? perf decides
 * with knowledge a module has no access to: handle_pmi_common()
 * (arch/x86/events/intel/core.c) first asks KVM whether the NMI came
 * from a guest (perf_guest_handle_intel_pt_intr(), KVM's
 * vmx_handle_intel_pt_intr(): a running vCPU and an NMI taken on its VM
 * exit), then intel_pt_interrupt() checks pt->handle_nmi. We decide from
 * our own state: a PMI we owe since a halt; or our output in place
 * (OUTPUT_BASE one of our tables: after the VM exit of a tracing KVM
 * guest the guest's registers are loaded until pt_guest_exit(), which
 * 6.12 handles the NMI before and 6.1 after; RTIT_CTL is no guide, KVM
 * clears it around every guest entry, flushing our trace, which may fill
 * our INT region) and this run's PMI not yet claimed; and then, if the
 * CPU is in VMX operation (a guest may run here), the output stopped or
 * through the INT region. Outside VMX operation no guest runs here and
 * perf's intel_pt is kept off by our claim: the PMI is ours. A position
 * read while tracing may lag (SDM vol. 3C 33.2.7.2): in VMX operation a
 * PMI of ours may then be left to perf's handler, which acknowledges it,
 * and the drain timer publishes. Never a PMI that is not ours, but for
 * one case: a guest's PMI coalesced in bit 55 with one of ours we owe.
 */
static bool tb_pt_pmi_ours(struct tb_pt_cpu *pc, struct tb_session *s)
{
	struct tb_aux *aux = s->aux;	/* set before start, cleared after stop */
	struct tb_pt_buf *buf = aux->priv;
	u64 base, mask, status, off;

	if (!READ_ONCE(pc->running) || !pc->int_end || (!aux->snapshot && pc->pmi_taken))
		return false;
	if (tb_rdmsr(TB_MSR_RTIT_OUTPUT_BASE, &base) || !tb_topa_owns(&buf->topa, base))
		return false;
	if (!tb_pt_hw->vmx_on())
		return true;
	if (tb_rdmsr(TB_MSR_RTIT_OUTPUT_MASK, &mask) || tb_rdmsr(TB_MSR_RTIT_STATUS, &status) ||
	    tb_topa_offset(&buf->topa, base, mask, &off))
		return false;
	return (status & TB_RTIT_STATUS_STOPPED) || tb_pt_pmi_due(pc, aux, buf, off);
}

static int tb_pt_nmi(unsigned int cmd, struct pt_regs *regs)
{
	struct tb_pt_cpu *pc = this_cpu_ptr(&tb_pt_cpus);
	struct tb_session *s = READ_ONCE(pc->s);
	u64 status;

	/* Not tracing here: not ours, and the accessors may be going away. */
	if (!s)
		return NMI_DONE;
	if (tb_rdmsr(TB_MSR_PERF_GLOBAL_STATUS, &status) ||
	    !(status & TB_GLOBAL_STATUS_TOPA_PMI))
		return NMI_DONE;
	if (READ_ONCE(pc->pmi_owed))
		WRITE_ONCE(pc->pmi_owed, false);	/* a halted run's */
	else if (!tb_pt_pmi_ours(pc, s))
		return NMI_DONE;	/* perf's handler (and KVM) decide */
	else if (s->aux->snapshot)
		WRITE_ONCE(pc->snap_pmis, pc->snap_pmis + 1);	/* one more lap */
	else
		pc->pmi_taken = true;			/* this run's */
	/* Acknowledge our bit only; perf's handler sees the rest. */
	tb_wrmsr(TB_MSR_PERF_GLOBAL_OVF_CTRL, TB_GLOBAL_STATUS_TOPA_PMI);
	tb_pt_hw->pmi_unmask();	/* the next ToPA PMI may be delivered */
	if (!s->aux->snapshot)
		irq_work_queue(&pc->work);
	return NMI_HANDLED;
}

/* --- driver configuration ----------------------------------------------- */

/* The keys, in this order: the CONFIG record's 'changed' bits follow it. */
enum {
	TB_PT_K_BRANCH, TB_PT_K_USER, TB_PT_K_KERNEL, TB_PT_K_TSC, TB_PT_K_MTC,
	TB_PT_K_MTC_PERIOD, TB_PT_K_CYC, TB_PT_K_CYC_THRESH, TB_PT_K_PSB_PERIOD,
	TB_PT_K_NORETCOMP, TB_PT_K_PTW, TB_PT_K_FUP_ON_PTW, TB_PT_K_PWR_EVT,
	TB_PT_K_CR3, TB_PT_K_ADDR0, TB_PT_NR_KEYS = TB_PT_K_ADDR0 + TB_PT_MAX_ADDR_RANGES,
};

static const struct tb_cfg_key tb_pt_keys[TB_PT_NR_KEYS] = {
	[TB_PT_K_BRANCH] = { "branch", TB_CFG_BOOL, 0, 0, 1, 0, 1,
		"trace branches: TNT, TIP, FUP (BranchEn)" },
	[TB_PT_K_USER] = { "user", TB_CFG_BOOL, 0, 0, 1, 0, 1,
		"trace user mode, CPL > 0 (USR)" },
	[TB_PT_K_KERNEL] = { "kernel", TB_CFG_BOOL, TB_CFG_F_PRIV | TB_CFG_F_KERNEL, 0, 1, 0, 0,
		"trace kernel mode, CPL 0 (OS); needs CAP_PERFMON" },
	[TB_PT_K_TSC] = { "tsc", TB_CFG_BOOL, 0, 0, 1, 0, 1,
		"TSC packets (TSCEn)" },
	[TB_PT_K_MTC] = { "mtc", TB_CFG_BOOL, 0, 0, 1, 0, 0,
		"MTC timing packets (MTCEn)" },
	[TB_PT_K_MTC_PERIOD] = { "mtc_period", TB_CFG_ENUM, 0, 0, 15, 0, 0,
		"MTC every 2^n ART ticks (MTCFreq)" },
	[TB_PT_K_CYC] = { "cyc", TB_CFG_BOOL, 0, 0, 1, 0, 0,
		"cycle-accurate CYC packets (CYCEn)" },
	[TB_PT_K_CYC_THRESH] = { "cyc_thresh", TB_CFG_ENUM, 0, 0, 15, 0, 0,
		"CYC at most every 2^(n-1) cycles (CycThresh)" },
	[TB_PT_K_PSB_PERIOD] = { "psb_period", TB_CFG_ENUM, 0, 0, 15, 0, 0,
		"PSB every 2K << n bytes of output (PSBFreq)" },
	[TB_PT_K_NORETCOMP] = { "noretcomp", TB_CFG_BOOL, 0, 0, 1, 0, 0,
		"no return compression: a TIP per RET (DisRETC)" },
	[TB_PT_K_PTW] = { "ptw", TB_CFG_BOOL, 0, 0, 1, 0, 0,
		"PTWRITE packets (PTWEn)" },
	[TB_PT_K_FUP_ON_PTW] = { "fup_on_ptw", TB_CFG_BOOL, 0, 0, 1, 0, 0,
		"FUP with the address of each PTWRITE (FUPonPTW)" },
	[TB_PT_K_PWR_EVT] = { "pwr_evt", TB_CFG_BOOL, 0, 0, 1, 0, 0,
		"power event packets (PwrEvtEn)" },
	/* Privileged: "current" would echo a physical address back. */
	[TB_PT_K_CR3] = { "cr3", TB_CFG_U64, TB_CFG_F_CURRENT | TB_CFG_F_PRIV, 0, ~0ULL, 0, 0,
		"trace only this CR3 (\"current\": the caller's, for the mode traced)" },
	[TB_PT_K_ADDR0] = { "addr0", TB_CFG_RANGE, 0, 0, 0, 0, 0,
		"START-END:filter (trace only inside) or :stop (TraceStop)" },
	[TB_PT_K_ADDR0 + 1] = { "addr1", TB_CFG_RANGE, 0, 0, 0, 0, 0,
		"START-END:filter (trace only inside) or :stop (TraceStop)" },
	[TB_PT_K_ADDR0 + 2] = { "addr2", TB_CFG_RANGE, 0, 0, 0, 0, 0,
		"START-END:filter (trace only inside) or :stop (TraceStop)" },
	[TB_PT_K_ADDR0 + 3] = { "addr3", TB_CFG_RANGE, 0, 0, 0, 0, 0,
		"START-END:filter (trace only inside) or :stop (TraceStop)" },
};

/* The lowest value allowed by an ENUM bitmap, preferring 'want'. */
static u64 tb_pt_enum_def(u32 allowed, unsigned int want)
{
	if (allowed & BIT(want))
		return want;
	return allowed ? __ffs(allowed) : 0;
}

/* The keys as this CPU's CPUID leaf 0x14 allows them. */
static int tb_pt_cfg_keys(const struct tb_backend *b, unsigned int cpu,
			  struct tb_cfg_key *keys, unsigned int max)
{
	const struct tb_pt_cpu *pc = per_cpu_ptr(&tb_pt_cpus, cpu);
	const struct tracebuf_pt_caps *c = &pc->caps;
	unsigned int i;

	if (!pc->present)
		return -ENODEV;
	if (max < TB_PT_NR_KEYS)
		return -EINVAL;
	memcpy(keys, tb_pt_keys, sizeof(tb_pt_keys));
#define TB_UNSUP(k, cap) do { \
		if (!tb_pt_has(c, cap)) \
			keys[k].flags |= TB_CFG_F_UNSUPPORTED; \
	} while (0)
	TB_UNSUP(TB_PT_K_MTC, TRACEBUF_PT_CAP_MTC);
	TB_UNSUP(TB_PT_K_MTC_PERIOD, TRACEBUF_PT_CAP_MTC);
	TB_UNSUP(TB_PT_K_CYC, TRACEBUF_PT_CAP_PSB_CYC);
	TB_UNSUP(TB_PT_K_CYC_THRESH, TRACEBUF_PT_CAP_PSB_CYC);
	TB_UNSUP(TB_PT_K_PSB_PERIOD, TRACEBUF_PT_CAP_PSB_CYC);
	TB_UNSUP(TB_PT_K_PTW, TRACEBUF_PT_CAP_PTWRITE);
	TB_UNSUP(TB_PT_K_FUP_ON_PTW, TRACEBUF_PT_CAP_PTWRITE);
	TB_UNSUP(TB_PT_K_PWR_EVT, TRACEBUF_PT_CAP_POWER_EVENT);
	TB_UNSUP(TB_PT_K_CR3, TRACEBUF_PT_CAP_CR3_FILTERING);
#undef TB_UNSUP
	for (i = 0; i < TB_PT_MAX_ADDR_RANGES; i++) {
		struct tb_cfg_key *k = &keys[TB_PT_K_ADDR0 + i];
		unsigned int vbits = cpu_data(cpu).x86_virt_bits;

		if (i >= c->nr_addr_ranges)
			k->flags |= TB_CFG_F_UNSUPPORTED;
		/* ADDRn_A/B #GP on a non-canonical address (SDM vol. 4, IA32_RTIT_ADDRn_A/B). */
		k->hole_lo = BIT_ULL(vbits - 1);
		k->hole_hi = (~0ULL << (vbits - 1)) - 1;
	}
	/* CR3_MATCH bits 4:0 are reserved (SDM vol. 3C, "IA32_RTIT_CR3_MATCH MSR"). */
	keys[TB_PT_K_CR3].rsvd = GENMASK_ULL(4, 0);
	keys[TB_PT_K_MTC_PERIOD].allowed = c->mtc_periods;
	keys[TB_PT_K_MTC_PERIOD].def = tb_pt_enum_def(c->mtc_periods, 3);
	keys[TB_PT_K_CYC_THRESH].allowed = c->cyc_thresholds | BIT(0);
	keys[TB_PT_K_PSB_PERIOD].allowed = c->psb_periods | BIT(0);
	/* PTWRITE on by default where it exists: it costs nothing unused. */
	keys[TB_PT_K_PTW].def = tb_pt_has(c, TRACEBUF_PT_CAP_PTWRITE);
	/* BDM106: clearing BranchEn raises #GP, so only branch=1 is allowed. */
	if (tb_pt_has(c, TRACEBUF_PT_CAP_BRANCH_ALWAYS)) {
		keys[TB_PT_K_BRANCH].type = TB_CFG_ENUM;
		keys[TB_PT_K_BRANCH].allowed = BIT(1);
	}
	return TB_PT_NR_KEYS;
}

/*
 * Page-table isolation (arch/x86/entry/calling.h, SWITCH_TO_USER_CR3): user
 * mode runs on the upper half of an 8 KiB PGD (CR3 bit 12) and, with PCID,
 * with the user PCID bit (11) set. CR3 filtering compares CR3[63:5]
 * (SDM vol. 3C, "CR3 Filtering"), so user mode matches only that value.
 */
#define TB_PTI_USER_PGTABLE	BIT_ULL(12)
#define TB_PTI_USER_PCID	BIT_ULL(11)

/* "cr3=current": the calling process's CR3 in the mode that is traced. */
static int tb_pt_current_cr3(bool user, bool kernel, u64 *cr3)
{
	*cr3 = __read_cr3() & CR3_ADDR_MASK;	/* the kernel half, PCID cleared */
	if (!boot_cpu_has(X86_FEATURE_PTI) || !user)
		return 0;
	/* One CR3_MATCH cannot hold both halves. */
	if (kernel)
		return -EINVAL;
	*cr3 |= TB_PTI_USER_PGTABLE;
	if (boot_cpu_has(X86_FEATURE_PCID))
		*cr3 |= TB_PTI_USER_PCID;
	return 0;
}

static int tb_pt_cfg_apply(struct tb_session *s, struct tb_cfg_val *v, void *out,
			   u64 *conflict)
{
	struct tb_pt_cfg *cfg = out;
	u64 ctl = 0;
	unsigned int i;

	if (v[TB_PT_K_BRANCH].v)
		ctl |= TB_RTIT_CTL_BRANCHEN;
	if (v[TB_PT_K_USER].v)
		ctl |= TB_RTIT_CTL_USR;
	if (v[TB_PT_K_KERNEL].v)
		ctl |= TB_RTIT_CTL_OS;
	if (v[TB_PT_K_TSC].v)
		ctl |= TB_RTIT_CTL_TSCEN;
	if (v[TB_PT_K_MTC].v)
		ctl |= TB_RTIT_CTL_MTCEN |
		       (v[TB_PT_K_MTC_PERIOD].v << TB_RTIT_CTL_MTC_FREQ_SHIFT);
	if (v[TB_PT_K_CYC].v)
		ctl |= TB_RTIT_CTL_CYCEN |
		       (v[TB_PT_K_CYC_THRESH].v << TB_RTIT_CTL_CYC_THRESH_SHIFT);
	ctl |= v[TB_PT_K_PSB_PERIOD].v << TB_RTIT_CTL_PSB_FREQ_SHIFT;
	if (v[TB_PT_K_NORETCOMP].v)
		ctl |= TB_RTIT_CTL_DISRETC;
	if (v[TB_PT_K_PTW].v)
		ctl |= TB_RTIT_CTL_PTWEN;
	if (v[TB_PT_K_FUP_ON_PTW].v)
		ctl |= TB_RTIT_CTL_FUPONPTW;
	if (v[TB_PT_K_PWR_EVT].v)
		ctl |= TB_RTIT_CTL_PWREVTEN;
	/*
	 * "current": the calling process's page tables, resolved now. Under
	 * PTI with user and kernel both traced, no single value matches.
	 */
	if (v[TB_PT_K_CR3].v == TB_CFG_CURRENT &&
	    tb_pt_current_cr3(v[TB_PT_K_USER].v, v[TB_PT_K_KERNEL].v, &v[TB_PT_K_CR3].v)) {
		*conflict = BIT_ULL(TB_PT_K_CR3) | BIT_ULL(TB_PT_K_USER) | BIT_ULL(TB_PT_K_KERNEL);
		return -EINVAL;
	}
	cfg->cr3 = v[TB_PT_K_CR3].v;
	if (cfg->cr3)
		ctl |= TB_RTIT_CTL_CR3EN;
	for (i = 0; i < TB_PT_MAX_ADDR_RANGES; i++) {
		const struct tb_cfg_val *a = &v[TB_PT_K_ADDR0 + i];
		u64 mode = a->mode == TB_CFG_RANGE_FILTER ? TB_RTIT_ADDR_CFG_FILTER :
			   a->mode == TB_CFG_RANGE_STOP ? TB_RTIT_ADDR_CFG_STOP : 0;

		cfg->addr_a[i] = mode ? a->v : 0;
		cfg->addr_b[i] = mode ? a->end : 0;
		ctl |= mode << TB_RTIT_CTL_ADDR_CFG_SHIFT(i);
	}
	cfg->ctl = ctl;
	return 0;
}

/*
 * System suspend. Other CPUs are already offline (their hotplug teardown
 * stopped and published them); this runs on the last CPU, interrupts off,
 * tasks frozen so no session goes away: stop and publish here, resume on
 * the way back. The register state is lost across S3 anyway.
 */
static int tb_pt_suspend(void)
{
	struct tb_pt_cpu *pc = this_cpu_ptr(&tb_pt_cpus);
	struct tb_session *s = READ_ONCE(pc->s);

	pc->suspended = s;
	if (s)
		tb_trace_cpu_offline(s, smp_processor_id());
	return 0;
}

static void tb_pt_resume(void)
{
	struct tb_pt_cpu *pc = this_cpu_ptr(&tb_pt_cpus);

	if (pc->suspended)
		tb_trace_cpu_online(pc->suspended, smp_processor_id());
	pc->suspended = NULL;
}

static struct tb_syscore tb_pt_syscore = {
	.suspend	= tb_pt_suspend,
	.resume		= tb_pt_resume,
};

struct tb_backend tb_pt_backend = {
	.name		= "intel_pt",
	.id		= TRACEBUF_BACKEND_INTEL_PT,
	.probe		= tb_pt_probe,
	.remove		= tb_pt_remove,
	.caps		= tb_pt_caps,
	.check_setup	= tb_pt_check_setup,
	.setup_aux	= tb_pt_setup_aux,
	.free_aux	= tb_pt_free_aux,
	.claim		= tb_pt_claim_session,
	.unclaim	= tb_pt_unclaim_session,
	.start		= tb_pt_start,
	.stop		= tb_pt_stop,
	.drain		= tb_pt_drain,
	.cfg_keys	= tb_pt_cfg_keys,
	.cfg_apply	= tb_pt_cfg_apply,
	.cfg_size	= sizeof(struct tb_pt_cfg),
};

/* --- emulator registration ---------------------------------------------- */

int tracebuf_pt_emulator_register(const struct tb_pt_hw *hw)
{
	int ret;

	if (!hw || !hw->rdmsr || !hw->wrmsr || !hw->cpuid || !hw->pmi_unmask ||
	    !hw->vmx_on)
		return -EINVAL;
	mutex_lock(&tb_backends_lock);
	ret = -EBUSY;
	if (tb_pt_hw != &tb_pt_real_hw || tb_backend_find("intel_pt"))
		goto out;
	tb_pt_hw = hw;
	tb_pt_backend.owner = hw->owner;
	ret = tb_backend_add(&tb_pt_backend);
	if (ret) {
		tb_pt_hw = &tb_pt_real_hw;
		tb_pt_backend.owner = NULL;
	}
out:
	mutex_unlock(&tb_backends_lock);
	return ret;
}
EXPORT_SYMBOL_GPL(tracebuf_pt_emulator_register);

void tracebuf_pt_emulator_unregister(const struct tb_pt_hw *hw)
{
	mutex_lock(&tb_backends_lock);
	if (tb_pt_hw == hw) {
		/* The emulator's module is pinned while a session holds us. */
		WARN_ON(tb_backend_busy(&tb_pt_backend));
		tb_backend_del(&tb_pt_backend);
		tb_pt_hw = &tb_pt_real_hw;
		tb_pt_backend.owner = NULL;
	}
	mutex_unlock(&tb_backends_lock);
}
EXPORT_SYMBOL_GPL(tracebuf_pt_emulator_unregister);

int tb_pt_init(void)
{
	unsigned int cpu;
	int ret;

	/* Hard: the drain must run in hard irq context even on PREEMPT_RT. */
	for_each_possible_cpu(cpu)
		per_cpu(tb_pt_cpus, cpu).work = IRQ_WORK_INIT_HARD(tb_pt_work_fn);
	/* Before the sessions' hotplug state (tb_sessions_init): pt_claim.c. */
	ret = tb_pt_claim_init();
	if (ret)
		return ret;
	tb_register_syscore(&tb_pt_syscore);
	/* First, so the ToPA PMI is ours before perf's handler acks it. */
	ret = register_nmi_handler(NMI_LOCAL, tb_pt_nmi, NMI_FLAG_FIRST, "tracebuf_pt");
	if (ret) {
		tb_unregister_syscore(&tb_pt_syscore);
		tb_pt_claim_exit();
	}
	return ret;
}

void tb_pt_exit(void)
{
	unsigned int cpu;

	unregister_nmi_handler(NMI_LOCAL, "tracebuf_pt");
	tb_unregister_syscore(&tb_pt_syscore);
	tb_pt_claim_exit();
	for_each_possible_cpu(cpu)
		irq_work_sync(&per_cpu(tb_pt_cpus, cpu).work);
}
