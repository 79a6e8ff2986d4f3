// SPDX-License-Identifier: GPL-2.0
/*
 * tb_ptemu - tests-only module: a register-level Intel PT emulator.
 *
 * There is no PT hardware in the test guests (QEMU TCG), so this module
 * registers struct tb_pt_hw accessors with tracebuf (see module/pt_hw.h)
 * and the real PT backend runs against them unchanged. The model follows
 * the SDM (vol. 3C, "Intel Processor Trace"):
 *
 *  - A per-CPU MSR file: RTIT_CTL, STATUS, OUTPUT_BASE, OUTPUT_MASK_PTRS,
 *    CR3_MATCH, ADDRn_A/B, IA32_PERF_GLOBAL_STATUS (bit 55 only, read-only)
 *    and IA32_PERF_GLOBAL_OVF_CTRL (write 1s to clear). Every #GP of the
 *    SDM for these (reserved bits for the emulated capabilities, writes
 *    while TraceEn=1, bad OUTPUT_BASE...) is -EIO; so is any other MSR.
 *  - CPUID leaf 7 EBX[25] and leaf 0x14 from module parameters; other
 *    leaves are the real CPUID.
 *  - While TraceEn=1 a pinned hard hrtimer "runs the program": every
 *    period_us it appends packets from ptemu_gen.h at rate_kb KiB/s to
 *    the output (ToPA or single range), raising the ToPA PMI as a self-NMI
 *    and honouring STOP, END and operational errors.
 *
 * The packet stream of one enable is exactly what ptemu_gen.h produces for
 * ptgen_init(cfg from CTL, seed_ptw_seq, seed_tsc) (both in the stats),
 * then ptgen_start, ptgen_step..., ptgen_stop, except on OVF ticks: so a
 * test can replay it natively and compare bytes.
 *
 * Deviations from silicon, and choices where the SDM is silent:
 *  - Packets are written in bursts, once per tick; the PMI of an INT
 *    region is sent after the burst (so the NMI handler sees coherent
 *    registers), not at the byte that filled the region.
 *  - A region filled with STOP: STATUS.Stopped is set and MASK_PTRS keeps
 *    that entry with output offset = region size (what perf's
 *    pt_handle_status expects). A filled region without STOP is left at
 *    once: MASK_PTRS points at offset 0 of the next entry. If that entry
 *    is an END, it is followed only when the next byte is written, so
 *    software may read MASK_PTRS on the END entry (perf's pt_update_head
 *    handles it; the SDM does not say when END is read: the stricter
 *    reading). If software re-enables with the offset at the end of a
 *    STOP region and Stopped still set, the output stops again
 *    without writing.
 *  - While Stopped or Error is set nothing is written, including after a
 *    re-enable that did not clear them; the program keeps running and
 *    its bytes and PTWs are counted as dropped. A PTW counts as dropped
 *    when its packet was not completely written (ptgen's last_ptw_end).
 *  - Operational errors (STATUS.Error): OUTPUT_BASE not a 4 KiB
 *    aligned table (bits 11:7 set), an entry not in RAM (a table may
 *    span pages: it ends at its END entry, as in the SDM), a reserved
 *    bit in an entry, a region not aligned to its size or not in RAM
 *    (first and last page checked with pfn_valid()), an output offset
 *    at or above the region size with Stopped clear, STOP or INT on an
 *    END entry, END in entry 0 (SDM vol. 3C, "ToPA Errors" 3, 4a, 4b),
 *    more than PTEMU_MAX_END_HOPS END links in a row; single-entry ToPA (topa_multi=0): a table other than [region,
 *    END->same table]; single range: size not a power of two, base not
 *    aligned to it, offset beyond it, not in RAM. Checked when TraceEn
 *    goes 0->1 and at every write. TraceEn stays 1.
 *  - Oracle, not silicon: output to (or a ToPA table in) a page that is
 *    free or reused is an operational error and a violation ("freed" in
 *    the stats; ptemu_pa_freed()).
 *  - Single-entry quirk: the PMI of an INT region fires once, when the
 *    output offset gets within TB_TOPA_PMI_MARGIN bytes of its end; it may
 *    fire again only after the region wrapped or software moved the
 *    output position back before the point where it fired (OUTPUT_BASE
 *    or MASK_PTRS written): a restart inside the margin gets no second
 *    PMI (the stricter reading), and the region fills up to its STOP.
 *  - STATUS: FilterEn/ContextEn/TriggerEn are computed on read (TraceEn
 *    and neither Stopped nor Error; ContextEn/FilterEn also need OS or
 *    USR; no IP or CR3 filtering is evaluated); writes to them are
 *    ignored. BuffOvf is never set by the emulator (OVF ticks only emit
 *    the OVF packet) and PacketByteCnt holds what software wrote.
 *  - OS=USR=0: no TIP.PGE/PGD, branches or PTWs, only one PSB+ per tick.
 *  - ADDRn/CR3 filtering and DisRETC are kept in the registers but do not
 *    change the packets; DisTNT (tnt_disable) is not advertised by
 *    default because the generator cannot honour it; FabricEn, EventEn
 *    and the other unimplemented features are reserved bits.
 *  - bdm106: a CTL write with TraceEn=1 and BranchEn=0 is a #GP (writes
 *    with TraceEn=0, e.g. CTL=0, are accepted).
 *  - Flushing at TraceEn 1->0 may fill an INT region: the PMI is sent at
 *    once, or from an irq_work if the write came from NMI context.
 *
 * Contexts. The accessors run on the CPU owning the registers, in any
 * context including NMI; they disable interrupts, so the tick (a hard
 * hrtimer, IRQs off) and the accessors never interleave except when an
 * NMI lands in a tick. Our own PMI is sent at the very end of the tick,
 * when the state is coherent; an unrelated NMI arriving in the middle of a
 * tick while GLOBAL_STATUS bit 55 is still unacked could make tracebuf
 * write the registers under the tick: that is counted in "nested" and
 * "errors" and the tick stops generating at its next group, but bytes
 * may be garbled. hrtimers are not NMI-safe: from NMI context the timer
 * is started by an irq_work and cancelled lazily (the tick sees TraceEn=0
 * and does not restart).
 *
 * debugfs (/sys/kernel/debug/tb_ptemu/):
 *   rate           rw, KiB of packets per second per CPU (= rate_kb)
 *   cpuN/stats     r, "key value" lines (timer_queued: the tick's hrtimer
 *                  is queued; offline: the CPU's program is stopped for
 *                  hotplug), counters read with READ_ONCE
 *                  while the CPU may be updating them: each value is
 *                  untorn, the set is not a consistent snapshot
 *   cpuN/regs      r, the MSR file in hex
 *   cpuN/steal     w, 1: another owner takes PT on that CPU (TraceEn=1,
 *                  its own CTL and output on an emulator page), 0: it
 *                  releases it (TraceEn=0, CTL=0)
 *   cpuN/foreign   w, as steal but 1 fails with -EBUSY if TraceEn is set
 *   cpuN/perf      w, 1: perf's intel_pt event is scheduled in on that CPU,
 *                  0: out; modelled on 6.1/6.12 pt.c, register copies and
 *                  all (see ptemu_perf_in). stats count the violations:
 *                  perf_stale (perf enabled over output or filters it
 *                  believes are its own but are not), perf_dead (over
 *                  STATUS Stopped/Error, which it clears only on its first
 *                  start), perf_killed (tracebuf wrote CTL while perf's
 *                  TraceEn was set), perf_gp (a perf wrmsrl faulted)
 *   cpuN/tasks     rw, bytes produced for tracebuf per process current at
 *                  the time (an oracle for the per-task target: ptemu_task.h)
 *   follow, follow_mode, follow_stats
 *                  the packets of a real process's instructions instead of
 *                  the synthetic program (ptemu_follow.h)
 *
 *   cpuN/burst     w, N: the next N ticks write burst_kb KiB each (256 KiB
 *                  per 1 ms tick: 256 MiB/s), whatever the time between
 *                  ticks; with stale_pos=1, OUTPUT_BASE/MASK read while
 *                  TraceEn=1 return the position of the last enable (SDM
 *                  vol. 3C 33.2.7.2: reliable only with TraceEn clear).
 *                  One tick raises one PMI per INT region even if it filled
 *                  it twice: a ring of at least two ticks' output avoids it
 *   cpuN/park_end  w, 1: PAD bytes up to the END entry of the current
 *                  table, MASK_PTRS left on it, nothing more written
 *                  until TraceEn is cleared
 *   cpuN/vmx       w, 1: VMXON on that CPU (CR4.VMXE for the accessors),
 *                  0: VMXOFF. With vmx_pt=0 (IA32_VMX_MISC[14] clear) VMXON
 *                  clears TraceEn and TraceEn cannot be set meanwhile
 *   cpuN/kvm       w, N: a KVM guest tracing with PT (pt_mode=1) enters
 *                  and exits N times there (VMX on, vmx_pt=1); stats:
 *                  kvm_pmis (its PMIs handed to KVM), kvm_stolen (a
 *                  violation: acknowledged before perf's handler saw it)
 *
 * perf's intel_pt PMU: where the kernel has none (the guests' CPUs have no
 * PT), a perf PMU named intel_pt with pt.c's capabilities, whose events
 * drive the same perf model as cpuN/perf (module parameter perf_pmu=0:
 * none). See "perf's intel_pt PMU" below.
 */
#include <linux/bitfield.h>
#include <linux/cpu.h>
#include <linux/cpuhotplug.h>
#include <linux/debugfs.h>
#include <linux/fs.h>
#include <linux/gfp.h>
#include <linux/hrtimer.h>
#include <linux/irq_work.h>
#include <linux/kernel.h>
#include <linux/log2.h>
#include <linux/math64.h>
#include <linux/minmax.h>
#include <linux/mm.h>
#include <linux/module.h>
#include <linux/mutex.h>
#include <linux/percpu.h>
#include <linux/perf_event.h>
#include <linux/reboot.h>
#include <linux/seq_file.h>
#include <linux/smp.h>
#include <linux/uaccess.h>
#include <asm/apic.h>
#include <asm/cpufeature.h>
#include <asm/io.h>
#include <asm/irq_vectors.h>
#include <asm/msr.h>
#include <asm/nmi.h>
#include <asm/processor.h>

#include "pt_hw.h"
#include "ptemu_gen.h"
#include "ptemu_task.h"

/* ---- parameters ---- */

static bool present = true;
module_param(present, bool, 0444);
MODULE_PARM_DESC(present, "Advertise Intel PT at all (CPUID.7.EBX[25])");
static bool topa = true;
module_param(topa, bool, 0444);
MODULE_PARM_DESC(topa, "CPUID.14.0.ECX[0] topa_output");
static bool topa_multi = true;
module_param(topa_multi, bool, 0444);
MODULE_PARM_DESC(topa_multi, "CPUID.14.0.ECX[1] topa_multiple_entries");
static bool single_range = true;
module_param(single_range, bool, 0444);
MODULE_PARM_DESC(single_range, "CPUID.14.0.ECX[2] single_range_output");
static bool cr3_filtering = true;
module_param(cr3_filtering, bool, 0444);
MODULE_PARM_DESC(cr3_filtering, "CPUID.14.0.EBX[0] cr3_filtering");
static bool psb_cyc = true;
module_param(psb_cyc, bool, 0444);
MODULE_PARM_DESC(psb_cyc, "CPUID.14.0.EBX[1] psb_cyc (CYCEn, CycThresh, PSBFreq)");
static bool ip_filtering = true;
module_param(ip_filtering, bool, 0444);
MODULE_PARM_DESC(ip_filtering, "CPUID.14.0.EBX[2] ip_filtering (else 0 ranges)");
static bool mtc = true;
module_param(mtc, bool, 0444);
MODULE_PARM_DESC(mtc, "CPUID.14.0.EBX[3] mtc");
static bool ptwrite = true;
module_param(ptwrite, bool, 0444);
MODULE_PARM_DESC(ptwrite, "CPUID.14.0.EBX[4] ptwrite");
static bool power_events = true;
module_param(power_events, bool, 0444);
MODULE_PARM_DESC(power_events, "CPUID.14.0.EBX[5] power_event_trace");
static bool tnt_disable;
module_param(tnt_disable, bool, 0444);
MODULE_PARM_DESC(tnt_disable, "CPUID.14.0.EBX[8] tnt_disable (DisTNT is not honoured)");
static uint nr_ranges = 2;
module_param(nr_ranges, uint, 0444);
MODULE_PARM_DESC(nr_ranges, "CPUID.14.1.EAX[2:0] address ranges (0..4)");
static uint mtc_periods = 0x249;
module_param(mtc_periods, uint, 0444);
MODULE_PARM_DESC(mtc_periods, "CPUID.14.1.EAX[31:16] MTCFreq bitmap");
static uint cyc_thresholds = 0x3fff;
module_param(cyc_thresholds, uint, 0444);
MODULE_PARM_DESC(cyc_thresholds, "CPUID.14.1.EBX[15:0] CycThresh bitmap");
static uint psb_periods = 0x3f;
module_param(psb_periods, uint, 0444);
MODULE_PARM_DESC(psb_periods, "CPUID.14.1.EBX[31:16] PSBFreq bitmap");
static bool bdm106;
module_param(bdm106, bool, 0444);
MODULE_PARM_DESC(bdm106, "Erratum BDM106: TraceEn=1 with BranchEn=0 is a #GP");
static uint period_us = 1000;
module_param(period_us, uint, 0644);
MODULE_PARM_DESC(period_us, "Tick period in microseconds (20..1000000)");
static uint rate_kb = 64;
module_param(rate_kb, uint, 0644);
MODULE_PARM_DESC(rate_kb, "Packets generated per CPU while tracing, KiB per second");
static uint ovf_every;
module_param(ovf_every, uint, 0644);
MODULE_PARM_DESC(ovf_every, "Every N-th tick loses its packets and emits OVF (0: never)");
static bool pmi_lost;
module_param(pmi_lost, bool, 0644);
MODULE_PARM_DESC(pmi_lost, "Lose every ToPA PMI (no status bit, no NMI): tests the timer drain");
static bool vmx = true;
module_param(vmx, bool, 0444);
MODULE_PARM_DESC(vmx, "CPUID.1:ECX[5] VMX (and IA32_VMX_MISC readable)");
static bool vmx_pt = true;
module_param(vmx_pt, bool, 0444);
MODULE_PARM_DESC(vmx_pt, "IA32_VMX_MISC[14]: PT can be used in VMX operation (0: Broadwell-like)");
static uint kvm_order = 2;
module_param(kvm_order, uint, 0644);
MODULE_PARM_DESC(kvm_order, "KVM guest PMI handled 1: after pt_guest_exit (6.1), 2: before it (6.2 and later, 6.12)");
static uint burst_kb = 256;
module_param(burst_kb, uint, 0644);
MODULE_PARM_DESC(burst_kb, "KiB a tick writes in burst mode (cpuN/burst; 256 at period_us 1000: 256 MiB/s)");
static bool stale_pos;
module_param(stale_pos, bool, 0644);
MODULE_PARM_DESC(stale_pos, "OUTPUT_BASE/MASK read while TraceEn=1 return the values of the last enable");
static uint kvm_bytes = 1024;
module_param(kvm_bytes, uint, 0644);
MODULE_PARM_DESC(kvm_bytes, "Bytes a KVM guest traces per VM entry (its 4 KiB ToPA region raises a PMI when full)");

/* ---- model ---- */

#define PTEMU_MAX_END_HOPS	16	/* END links followed in a row */
#define PTEMU_TABLE_ALIGN	4096	/* ToPA table base alignment */
#define PTEMU_MAX_TICK_BYTES	(1024U * 1024)	/* bounds the IRQs-off time */
#define PTEMU_MAX_PERIODS	2	/* overruns made up for by one tick */
#define PTEMU_CPUID_HYPERVISOR	0x40000000U	/* first non-basic leaf */
#define PTEMU_STATUS_RO		(TB_RTIT_STATUS_FILTEREN | \
				 TB_RTIT_STATUS_CONTEXTEN | \
				 TB_RTIT_STATUS_TRIGGEREN)
/* Bit 3 is reserved (SDM vol. 3C 33.2.8.4, IA32_RTIT_STATUS): a #GP. */
#define PTEMU_STATUS_RW		(TB_RTIT_STATUS_ERROR | \
				 TB_RTIT_STATUS_STOPPED | \
				 TB_RTIT_STATUS_BYTECNT)
#define PTEMU_HALTED		(TB_RTIT_STATUS_STOPPED | TB_RTIT_STATUS_ERROR)
/* CTL bits every PT implementation has. */
#define PTEMU_CTL_BASE		(TB_RTIT_CTL_TRACEEN | TB_RTIT_CTL_OS | \
				 TB_RTIT_CTL_USR | TB_RTIT_CTL_TSCEN | \
				 TB_RTIT_CTL_DISRETC | TB_RTIT_CTL_BRANCHEN)
/* What the "other owner" of steal/foreign programs. */
#define PTEMU_FOREIGN_CTL	(TB_RTIT_CTL_TRACEEN | TB_RTIT_CTL_OS | \
				 TB_RTIT_CTL_USR | TB_RTIT_CTL_TSCEN | \
				 TB_RTIT_CTL_BRANCHEN)

struct ptemu_cpu {
	/* The MSR file. OUTPUT_MASK_PTRS is kept with bits 6:0 set. */
	u64 ctl, status, base, mask, cr3;
	u64 addr[TB_PT_MAX_ADDR_RANGES][2];
	u64 gstatus;			/* IA32_PERF_GLOBAL_STATUS */

	/* The running program. */
	struct hrtimer timer;
	struct irq_work work;		/* from NMI: start timer, send PMI */
	struct ptgen gen;
	bool need_start;		/* ptgen_start not yet emitted */
	bool pmi_pending;		/* an INT region filled: send a PMI */
	bool early_fired;		/* single-entry: early PMI of this fill */
	u64 early_off;			/* output offset it fired at */
	bool busy;			/* the tick is generating */
	bool out_foreign;		/* output goes to the foreign buffer */
	bool offline;			/* going or gone: no tick (own CPU, IRQs off) */
	unsigned int epoch;		/* bumped on every TraceEn change */
	u64 frac;			/* rate remainder, bytes * 1e6 */
	u64 over;			/* bytes generated beyond the budget */
	ktime_t next_tick;		/* when the program's next tick is due */
	unsigned int burst;		/* ticks left at burst_kb (debugfs burst) */
	bool idle;			/* park_end: no packets until TraceEn 1->0 */
	u64 vis_base, vis_mask;		/* stale_pos: what reads show while tracing */
	u8 buf[PTGEN_MAX_GROUP];	/* tick scratch */

	/* The other owner (steal/foreign/perf): under ptemu.lock, and the IPI. */
	bool foreign;
	bool out_void;			/* its output is not its own: dropped */
	u64 fbase;			/* its OUTPUT_BASE */
	struct page *fpages;		/* [0] ToPA table, [1] output; from init */

	/*
	 * perf's intel_pt as the other owner (debugfs cpuN/perf), as 6.1's
	 * and 6.12's arch/x86/events/intel/pt.c behave: per-CPU copies of
	 * what it last wrote (struct pt: output_base, output_mask, filters),
	 * zero at boot, refreshed from the registers at its stop
	 * (pt_read_offset), and a write skipped when the copy matches.
	 */
	struct {
		bool active;		/* its event is scheduled in here */
		bool started;		/* pt_config() first round done */
		bool traceen;		/* its CTL write took */
		u64 base, mask;		/* pt->output_base, pt->output_mask */
		u64 pos;		/* where its buffer goes on (MASK value) */
		u64 addr_a, addr_b;	/* pt->filters.filter[0] */
		u64 ctl;		/* event->hw.config */
	} perf;
	/* Violations of the world's rules: each one fails a test. */
	u64 perf_stale;			/* perf traced into output not its own */
	u64 perf_dead;			/* perf enabled over Stopped/Error */
	u64 perf_killed;		/* tracebuf wrote CTL under perf's TraceEn */
	u64 perf_gp;			/* perf's unchecked wrmsrl faulted */
	u64 freed;			/* output or table in a freed page (oracle) */

	/* Statistics: written on this CPU only, WRITE_ONCE/READ_ONCE. */
	u64 ptw_seq;			/* next PTW sequence number */
	u64 seed_ptw_seq, seed_tsc;	/* ptgen_init arguments, last enable */
	u64 bytes_written, bytes_dropped, ptw_dropped, foreign_bytes;
	u64 pmis, pmis_lost, ticks, enables, errors, gps, ovfs, nested;
	u64 burst_ticks, parked;	/* ticks at burst_kb; park_end done */
	u64 gp_msr, gp_val;		/* the last faulting access (read: ~0) */
	u64 pmis_masked;		/* PMIs LVTPC's mask kept from delivery */
	bool lvtpc_masked;		/* the local APIC's LVTPC mask bit */
	/* perf's handler acknowledged a bit 55 tracebuf did not claim */
	u64 pmis_unattributed;

	/* VMX operation (CR4.VMXE) and a KVM guest with PT (debugfs vmx, kvm). */
	bool vmx_on;
	struct {
		struct page *pages;	/* [0] the guest's ToPA table, [1] its region */
		u64 base, mask, status;	/* its registers while the host's are loaded */
		bool inflight;		/* its PMI is being delivered (NMI sent) */
		bool nmi_done;		/* ptemu_nmi() took it */
	} kvm;
	u64 kvm_cycles, kvm_guest_bytes;
	u64 kvm_pmis;			/* guest PMIs perf handed to KVM */
	u64 kvm_stolen;			/* guest PMIs acknowledged before perf saw them */
	u64 kvm_masked;			/* guest PMIs LVTPC's mask kept from delivery */

	unsigned int cpu;
	struct dentry *dir;
};

static struct {
	struct ptemu_cpu __percpu *pc;
	struct dentry *dir;
	struct mutex lock;		/* debugfs steal/foreign/perf */
	int hp_state;
	unsigned int nr_ranges;
	u64 ctl_valid;			/* CTL bits the capabilities allow */
	u64 topa_rsvd;			/* reserved bits of a ToPA entry */
	u32 cap0_ebx, cap0_ecx, cap1_eax, cap1_ebx;
} ptemu;

/* A counter written on its own CPU, read anywhere with READ_ONCE. */
static inline void ptemu_add(u64 *c, u64 n)
{
	WRITE_ONCE(*c, *c + n);
}

static void ptemu_error(struct ptemu_cpu *pc)
{
	pc->status |= TB_RTIT_STATUS_ERROR;
	ptemu_add(&pc->errors, 1);
}

static bool ptemu_ctx(const struct ptemu_cpu *pc)
{
	return pc->ctl & (TB_RTIT_CTL_OS | TB_RTIT_CTL_USR);
}

static bool ptemu_phys_ok(u64 phys, u64 size)
{
	return !((phys + size - 1) >> boot_cpu_data.x86_phys_bits) &&
	       pfn_valid(PHYS_PFN(phys)) && pfn_valid(PHYS_PFN(phys + size - 1));
}

/*
 * The tests' oracle for writes after free (as tb_csemu's
 * csemu_pa_freed()), not hardware behaviour: PT writing a page, or
 * reading a ToPA table from a page, that is free or reused (a page
 * table, slab, LRU or anonymous page: never a driver's AUX or ToPA page,
 * which tracebuf allocates as order-0 or split pages; the emulator's own
 * output for other owners is one compound page) means the driver
 * freed memory the hardware still points at. On silicon the bytes would
 * corrupt whatever the page became; here the violation is counted
 * ("freed"), the first one is logged, and the output stops with an
 * operational error instead of writing.
 */
static bool ptemu_pa_freed(struct ptemu_cpu *pc, u64 pa, u64 len)
{
	u64 pfn;

	for (pfn = PHYS_PFN(pa); pfn <= PHYS_PFN(pa + len - 1); pfn++) {
		struct page *p = pfn_to_page(pfn);

		/* page_count(): a compound page's tails count as their head. */
		if (page_count(p) && !PageTable(p) && !PageSlab(p) && !PageLRU(p) &&
		    !PageAnon(p))
			continue;
		if (!pc->freed)
			pr_err("tb_ptemu: cpu%u: output at 0x%llx is a freed page (pfn 0x%llx)\n",
			       pc->cpu, pa, pfn);
		ptemu_add(&pc->freed, 1);
		ptemu_error(pc);
		return true;
	}
	return false;
}

/* Parameters writable at runtime are read once, with READ_ONCE. */
static ktime_t ptemu_period(void)
{
	return ns_to_ktime((u64)clamp(READ_ONCE(period_us), 20U, 1000000U) *
			   NSEC_PER_USEC);
}

/* ---- ToPA output ---- */

static u64 ptemu_region_size(u64 e)
{
	return 4096ULL << FIELD_GET(TB_TOPA_SIZE, e);
}

static unsigned int ptemu_topa_idx(const struct ptemu_cpu *pc)
{
	return FIELD_GET(TB_RTIT_MASK_TABLE_OFF, pc->mask);
}

static void ptemu_set_pos(struct ptemu_cpu *pc, u64 idx, u64 off)
{
	pc->mask = TB_RTIT_MASK_LOWBITS | idx << TB_RTIT_MASK_TABLE_OFF_SHIFT |
		   off << TB_RTIT_MASK_OUTPUT_OFF_SHIFT;
}

/*
 * The current region entry, following END links (which updates
 * OUTPUT_BASE and MASK_PTRS, as the hardware does). Entries are read from
 * memory every time: software may move the markers between ticks. false
 * after an operational error (STATUS.Error set).
 */
static bool ptemu_topa_cur(struct ptemu_cpu *pc, u64 *entry)
{
	unsigned int hops, idx;
	u64 *tbl, e, size, off;

	for (hops = 0; hops <= PTEMU_MAX_END_HOPS; hops++) {
		/* Tables: 4 KiB aligned, as long as it takes to reach END. */
		idx = ptemu_topa_idx(pc);
		if ((pc->base & (PTEMU_TABLE_ALIGN - 1)) ||
		    !ptemu_phys_ok(pc->base + idx * sizeof(u64), sizeof(u64)))
			break;
		if (ptemu_pa_freed(pc, pc->base + idx * sizeof(u64), sizeof(u64)))
			return false;
		tbl = phys_to_virt(pc->base);
		/*
		 * Software may rewrite entries concurrently (from another CPU,
		 * with no ordering, as with hardware): one untorn load each.
		 */
		e = READ_ONCE(tbl[idx]);
		if (e & ptemu.topa_rsvd)
			break;
		if (e & TB_TOPA_END) {
			/* SDM vol. 3C, "ToPA Errors" 4a, 4b: STOP or INT on END, END in entry 0. */
			if (!idx || (e & (TB_TOPA_INT | TB_TOPA_STOP)) ||
			    (!topa_multi && (e & TB_TOPA_BASE) != pc->base))
				break;
			pc->base = e & TB_TOPA_BASE;
			ptemu_set_pos(pc, 0, 0);
			continue;
		}
		/* Single-entry ToPA: [region, END->this table], nothing else. */
		if (!topa_multi &&
		    (idx || (READ_ONCE(tbl[1]) & (TB_TOPA_BASE | TB_TOPA_END)) !=
			    (pc->base | TB_TOPA_END)))
			break;
		size = ptemu_region_size(e);
		/*
		 * SDM vol. 3C, "ToPA Errors" 3: an output offset at or above
		 * the region size is an error unless Stopped is set (a STOP
		 * region filled leaves it equal to the size).
		 */
		off = pc->mask >> TB_RTIT_MASK_OUTPUT_OFF_SHIFT;
		if ((e & TB_TOPA_BASE & (size - 1)) ||
		    !ptemu_phys_ok(e & TB_TOPA_BASE, size) || off > size ||
		    (off == size && !(pc->status & TB_RTIT_STATUS_STOPPED)))
			break;
		*entry = e;
		return true;
	}
	ptemu_error(pc);
	return false;
}

/*
 * Leave a filled region for the next entry. An END entry is followed only
 * when the next byte is written (ptemu_topa_cur): until then MASK_PTRS
 * points at the END entry itself, offset 0. The SDM (vol. 3C, "Table of
 * Physical Addresses (ToPA)") does not say when the END is read; perf's
 * pt_update_head() (arch/x86/events/intel/pt.c) accepts a table offset on
 * the END entry, so silicon may leave it there: the stricter reading.
 */
static void ptemu_topa_next(struct ptemu_cpu *pc)
{
	ptemu_set_pos(pc, ptemu_topa_idx(pc) + 1, 0);
	pc->early_fired = false;
}

static unsigned int ptemu_topa_out(struct ptemu_cpu *pc, const u8 *src,
				   unsigned int len)
{
	unsigned int done = 0, n;
	u64 e, size, off;

	while (done < len && ptemu_topa_cur(pc, &e)) {
		size = ptemu_region_size(e);
		off = pc->mask >> TB_RTIT_MASK_OUTPUT_OFF_SHIFT;
		if (off == size) {
			/* Software left us at the end of a full region. */
			if (e & TB_TOPA_STOP) {
				pc->status |= TB_RTIT_STATUS_STOPPED;
				break;
			}
			ptemu_topa_next(pc);
			continue;
		}
		n = min_t(u64, len - done, size - off);
		if (ptemu_pa_freed(pc, (e & TB_TOPA_BASE) + off, n))
			break;
		memcpy((u8 *)phys_to_virt(e & TB_TOPA_BASE) + off, src + done, n);
		done += n;
		off += n;
		ptemu_set_pos(pc, ptemu_topa_idx(pc), off);
		if (!topa_multi && (e & TB_TOPA_INT) && !pc->early_fired &&
		    off + TB_TOPA_PMI_MARGIN >= size) {
			pc->early_fired = true;
			pc->early_off = off;
			pc->pmi_pending = true;
		}
		if (off < size)
			continue;
		if (topa_multi && (e & TB_TOPA_INT))
			pc->pmi_pending = true;
		if (e & TB_TOPA_STOP) {
			/* MASK_PTRS stays at this entry, offset = its size. */
			pc->status |= TB_RTIT_STATUS_STOPPED;
			break;
		}
		ptemu_topa_next(pc);
	}
	return done;
}

/* ---- single-range output ---- */

static u64 ptemu_single_size(const struct ptemu_cpu *pc)
{
	return (pc->mask & (TB_RTIT_MASK_TABLE_OFF | TB_RTIT_MASK_LOWBITS)) + 1;
}

static bool ptemu_single_ok(struct ptemu_cpu *pc)
{
	u64 size = ptemu_single_size(pc);

	if (!is_power_of_2(size) || (pc->base & (size - 1)) ||
	    (pc->mask >> TB_RTIT_MASK_OUTPUT_OFF_SHIFT) >= size ||
	    !ptemu_phys_ok(pc->base, size)) {
		ptemu_error(pc);
		return false;
	}
	return true;
}

/* Wraps freely: no PMI, no stop. */
static unsigned int ptemu_single_out(struct ptemu_cpu *pc, const u8 *src,
				     unsigned int len)
{
	u64 size = ptemu_single_size(pc), off;
	unsigned int done = 0, n;

	if (!ptemu_single_ok(pc))
		return 0;
	off = pc->mask >> TB_RTIT_MASK_OUTPUT_OFF_SHIFT;
	while (done < len) {
		n = min_t(u64, len - done, size - off);
		if (ptemu_pa_freed(pc, pc->base + off, n))
			break;
		memcpy((u8 *)phys_to_virt(pc->base) + off, src + done, n);
		done += n;
		off = (off + n) & (size - 1);
	}
	pc->mask = (pc->mask & GENMASK_ULL(31, 0)) |
		   off << TB_RTIT_MASK_OUTPUT_OFF_SHIFT;
	return done;
}

/*
 * Append one group of packets. nr_ptw PTWs end at offset ptw_end in it:
 * they are lost if the output stops before that.
 */
static void ptemu_emit(struct ptemu_cpu *pc, const u8 *buf, unsigned int len,
		       unsigned int nr_ptw, unsigned int ptw_end)
{
	unsigned int w = 0;

	if (!(pc->status & PTEMU_HALTED) && !pc->out_void)
		w = pc->ctl & TB_RTIT_CTL_TOPA ? ptemu_topa_out(pc, buf, len) :
						 ptemu_single_out(pc, buf, len);
	if (!pc->foreign)
		ptemu_task_account(pc->cpu, len);
	ptemu_add(pc->out_foreign ? &pc->foreign_bytes : &pc->bytes_written, w);
	if (w == len)
		return;
	ptemu_add(&pc->bytes_dropped, len - w);
	if (nr_ptw && w < ptw_end)
		ptemu_add(&pc->ptw_dropped, nr_ptw);
}

/* Program generated, but lost (OVF tick). */
static void ptemu_drop(struct ptemu_cpu *pc, unsigned int len,
		       unsigned int nr_ptw)
{
	ptemu_task_account(pc->cpu, len);
	ptemu_add(&pc->bytes_dropped, len);
	ptemu_add(&pc->ptw_dropped, nr_ptw);
}

/* Follow mode: packets of a real process's instructions (needs the above). */
#include "ptemu_follow.h"

/* ---- PMI ---- */

/*
 * Hard IRQ context (tick, irq_work) or an accessor outside NMI, IRQs off,
 * registers coherent. Bit 55 is set before the NMI is sent: the handler,
 * on this CPU, reads it through ptemu_rdmsr (compiler barrier below; the
 * APIC write is serializing for the CPU). While bit 55 is unacked no
 * further NMI is sent: the pending one covers it.
 */
static void ptemu_raise_pmi(struct ptemu_cpu *pc)
{
	if (!pc->pmi_pending)
		return;
	pc->pmi_pending = false;
	if (pc->gstatus & TB_GLOBAL_STATUS_TOPA_PMI)
		return;
	if (READ_ONCE(pmi_lost)) {
		ptemu_add(&pc->pmis_lost, 1);
		return;
	}
	pc->gstatus |= TB_GLOBAL_STATUS_TOPA_PMI;
	/*
	 * LVTPC: a masked entry delivers nothing, and delivery masks it
	 * (SDM vol. 3A, "Local Vector Table"; perf unmasks it in its handler,
	 * arch/x86/events/intel/core.c intel_pmu_handle_irq()). Bit 55 stays
	 * set unacked, so no later PMI comes either.
	 */
	if (pc->lvtpc_masked) {
		ptemu_add(&pc->pmis_masked, 1);
		return;
	}
	WRITE_ONCE(pc->lvtpc_masked, true);
	ptemu_add(&pc->pmis, 1);
	barrier();	/* pairs with the handler's rdmsr on this CPU */
	apic->send_IPI(smp_processor_id(), NMI_VECTOR);
}

/* ---- the program ---- */

/*
 * The program runs on while TraceEn is clear: the tick keeps its phase
 * across a stop and a restart (a software that stops and restarts the
 * unit every millisecond still gets its output), and an overdue tick
 * comes at once. IRQs off, on this CPU.
 */
static void ptemu_timer_arm(struct ptemu_cpu *pc)
{
	ktime_t now = ktime_get(), exp = pc->next_tick;

	if (ktime_before(exp, now) || ktime_after(exp, ktime_add(now, ptemu_period())))
		exp = now;
	hrtimer_start(&pc->timer, exp, HRTIMER_MODE_ABS_PINNED_HARD);
}

static void ptemu_timer_start(struct ptemu_cpu *pc)
{
	/* An offline CPU runs nothing: ptemu_cpu_online() starts it. */
	if (pc->offline)
		return;
	if (in_nmi())
		irq_work_queue(&pc->work);	/* ptemu_work_fn starts it */
	else
		ptemu_timer_arm(pc);
}

/* Bytes to generate this tick: rate_kb KiB/s over the elapsed periods. */
static u64 ptemu_budget(struct ptemu_cpu *pc, u64 periods)
{
	u64 units, budget;

	units = (u64)READ_ONCE(rate_kb) * 1024 *
		clamp(READ_ONCE(period_us), 20U, 1000000U) *
		min_t(u64, periods, PTEMU_MAX_PERIODS) + pc->frac;
	budget = div64_u64_rem(units, USEC_PER_SEC, &pc->frac);
	if (budget > PTEMU_MAX_TICK_BYTES) {
		budget = PTEMU_MAX_TICK_BYTES;
		pc->frac = 0;
	}
	if (budget <= pc->over) {
		pc->over -= budget;
		return 0;
	}
	budget -= pc->over;
	pc->over = 0;
	return budget;
}

static void ptemu_generate(struct ptemu_cpu *pc, u64 budget)
{
	unsigned int epoch = pc->epoch, ovf_n = READ_ONCE(ovf_every);
	bool ovf = ovf_n && !(pc->ticks % ovf_n);
	struct ptgen *g = &pc->gen;
	unsigned int n, nr;
	u64 done = 0;

	if (!budget || ptemu_follow_on())
		return;
	/*
	 * busy: an accessor called from an NMI nested in here finds it set.
	 * Compiler barriers only: both sides run on this CPU.
	 */
	pc->busy = true;
	barrier();
	if (!ptemu_ctx(pc)) {
		/* ContextEn=0: no PacketEn, only timing (PSB+). */
		g->tsc = max_t(u64, g->tsc + 1, rdtsc());
		n = ptgen_psbplus(g, pc->buf, false);
		pc->need_start = false;
		ptemu_emit(pc, pc->buf, n, 0, 0);
		goto out;
	}
	if (pc->need_start) {
		pc->need_start = false;
		n = ptgen_start(g, pc->buf);
		ptemu_emit(pc, pc->buf, n, 0, 0);
		done += n;
	}
	while (done < budget && pc->epoch == epoch) {
		n = ptgen_step(g, pc->buf, &nr);
		if (ovf)
			ptemu_drop(pc, n, nr);
		else
			ptemu_emit(pc, pc->buf, n, nr, g->last_ptw_end);
		WRITE_ONCE(pc->ptw_seq, g->ptw_seq);
		done += n;
	}
	if (ovf && pc->epoch == epoch) {
		n = ptgen_ovf(g, pc->buf);
		ptemu_emit(pc, pc->buf, n, 0, 0);
		ptemu_add(&pc->ovfs, 1);
	}
	if (done > budget)
		pc->over = done - budget;
out:
	barrier();	/* as above: the NMI side is on this CPU */
	pc->busy = false;
}

static enum hrtimer_restart ptemu_tick(struct hrtimer *t)
{
	struct ptemu_cpu *pc = container_of(t, struct ptemu_cpu, timer);
	u64 periods;

	if (!(pc->ctl & TB_RTIT_CTL_TRACEEN) ||
	    WARN_ON_ONCE(pc->cpu != smp_processor_id()))
		return HRTIMER_NORESTART;
	periods = hrtimer_forward_now(t, ptemu_period());
	pc->next_tick = hrtimer_get_expires(t);
	ptemu_add(&pc->ticks, 1);
	if (READ_ONCE(pc->burst)) {
		/* Burst: a fixed amount per tick, however late the tick. */
		WRITE_ONCE(pc->burst, pc->burst - 1);
		pc->over = 0;
		ptemu_generate(pc, min_t(u64, (u64)READ_ONCE(burst_kb) * 1024,
					 PTEMU_MAX_TICK_BYTES));
		pc->over = 0;
		ptemu_add(&pc->burst_ticks, 1);	/* done: its bytes are out */
	} else if (!pc->idle) {
		ptemu_generate(pc, ptemu_budget(pc, periods));
	}
	ptemu_raise_pmi(pc);
	/*
	 * The PMI handler, nested right here, may have cleared TraceEn:
	 * pairs with WRITE_ONCE(pc->ctl) in __ptemu_wrmsr (same CPU).
	 */
	if (!(READ_ONCE(pc->ctl) & TB_RTIT_CTL_TRACEEN))
		return HRTIMER_NORESTART;
	return HRTIMER_RESTART;
}

/* Hard IRQ, after an accessor ran in NMI context on this CPU. */
static void ptemu_work_fn(struct irq_work *w)
{
	struct ptemu_cpu *pc = container_of(w, struct ptemu_cpu, work);

	if ((pc->ctl & TB_RTIT_CTL_TRACEEN) && !pc->offline &&
	    !hrtimer_active(&pc->timer))
		ptemu_timer_arm(pc);
	ptemu_raise_pmi(pc);
}

/* TraceEn 0->1; ctl already holds the new value. */
static void ptemu_enable(struct ptemu_cpu *pc)
{
	struct ptgen_cfg cfg = {
		.branch = pc->ctl & TB_RTIT_CTL_BRANCHEN,
		.tsc = pc->ctl & TB_RTIT_CTL_TSCEN,
		.mtc = pc->ctl & TB_RTIT_CTL_MTCEN,
		.mtc_freq = FIELD_GET(TB_RTIT_CTL_MTC_FREQ, pc->ctl),
		.cyc = pc->ctl & TB_RTIT_CTL_CYCEN,
		.cyc_thresh = FIELD_GET(TB_RTIT_CTL_CYC_THRESH, pc->ctl),
		.psb_freq = FIELD_GET(TB_RTIT_CTL_PSB_FREQ, pc->ctl),
		.ptw = pc->ctl & TB_RTIT_CTL_PTWEN,
		.fup_on_ptw = pc->ctl & TB_RTIT_CTL_FUPONPTW,
		.pwr_evt = pc->ctl & TB_RTIT_CTL_PWREVTEN,
		.noretcomp = pc->ctl & TB_RTIT_CTL_DISRETC,
		.user = pc->ctl & TB_RTIT_CTL_USR,
		.os = pc->ctl & TB_RTIT_CTL_OS,
	};
	u64 e;

	ptemu_add(&pc->enables, 1);
	/* stale_pos: the output position as of this enable (SDM vol. 3C 33.2.7.2). */
	pc->vis_base = pc->base;
	pc->vis_mask = pc->mask;
	WRITE_ONCE(pc->seed_ptw_seq, pc->ptw_seq);
	WRITE_ONCE(pc->seed_tsc, rdtsc());
	ptgen_init(&pc->gen, &cfg, pc->seed_ptw_seq, pc->seed_tsc);
	pc->need_start = true;
	ptemu_follow_enable(pc);
	pc->frac = 0;
	pc->over = 0;
	pc->out_foreign = pc->foreign && pc->base == pc->fbase;
	pc->out_void = pc->foreign && !pc->out_foreign;
	/* Operational errors of the output show up at once. */
	if (!(pc->status & TB_RTIT_STATUS_ERROR)) {
		if (pc->ctl & TB_RTIT_CTL_TOPA)
			ptemu_topa_cur(pc, &e);
		else
			ptemu_single_ok(pc);
	}
	ptemu_timer_start(pc);
}

/* TraceEn 1->0: flush TIP.PGD; ctl already holds the new value. */
static void ptemu_disable(struct ptemu_cpu *pc)
{
	u8 buf[PTGEN_MAX_GROUP];	/* not pc->buf: we may be nested in a tick */
	unsigned int n;

	if (ptemu_follow_on()) {
		ptemu_follow_flush(pc);
	} else if (!pc->need_start && ptemu_ctx(pc)) {
		n = ptgen_stop(&pc->gen, buf);
		ptemu_emit(pc, buf, n, 0, 0);
	}
	pc->need_start = false;
	pc->idle = false;
	if (in_nmi()) {
		/* The tick sees TraceEn=0 and does not restart. */
		if (pc->pmi_pending)
			irq_work_queue(&pc->work);
		return;
	}
	/* IRQs are off on this CPU: the callback is not running. */
	hrtimer_try_to_cancel(&pc->timer);
	ptemu_raise_pmi(pc);
}

/* ---- MSR accessors ---- */

static int ptemu_addr_idx(u32 msr)
{
	u32 i = msr - TB_MSR_RTIT_ADDR_A(0);

	return i < 2 * ptemu.nr_ranges ? i : -1;
}

static int ptemu_ctl_check(const struct ptemu_cpu *pc, u64 val)
{
	unsigned int n;

	/*
	 * SDM vol. 3C 33.2.8.2: a write that changes other bits while
	 * TraceEn=1 #GPs, unless the same write clears TraceEn.
	 */
	if ((pc->ctl & TB_RTIT_CTL_TRACEEN) && (val & TB_RTIT_CTL_TRACEEN) &&
	    ((pc->ctl ^ val) & ~TB_RTIT_CTL_TRACEEN))
		return -EIO;
	if (val & ~ptemu.ctl_valid)
		return -EIO;
	for (n = 0; n < ptemu.nr_ranges; n++)
		if (((val >> TB_RTIT_CTL_ADDR_CFG_SHIFT(n)) & 0xf) >
		    TB_RTIT_ADDR_CFG_STOP)
			return -EIO;
	if (mtc && !(mtc_periods & BIT(FIELD_GET(TB_RTIT_CTL_MTC_FREQ, val))))
		return -EIO;
	if (psb_cyc &&
	    (!(cyc_thresholds & BIT(FIELD_GET(TB_RTIT_CTL_CYC_THRESH, val))) ||
	     !(psb_periods & BIT(FIELD_GET(TB_RTIT_CTL_PSB_FREQ, val)))))
		return -EIO;
	if (val & TB_RTIT_CTL_TRACEEN) {
		/* SDM vol. 3D, A.6: no TraceEn in VMX operation without VMX_MISC[14]. */
		if (pc->vmx_on && !vmx_pt)
			return -EIO;
		if (!(val & TB_RTIT_CTL_TOPA) && !single_range)
			return -EIO;
		if (bdm106 && !(val & TB_RTIT_CTL_BRANCHEN))
			return -EIO;
	}
	return 0;
}

static bool ptemu_canonical(u64 va)
{
	unsigned int shift = 64 - boot_cpu_data.x86_virt_bits;

	return (u64)((s64)(va << shift) >> shift) == va;
}

static bool ptemu_pt_msr(u32 msr)
{
	switch (msr) {
	case TB_MSR_RTIT_OUTPUT_BASE:
	case TB_MSR_RTIT_OUTPUT_MASK:
	case TB_MSR_RTIT_CTL:
	case TB_MSR_RTIT_STATUS:
	case TB_MSR_RTIT_CR3_MATCH:
		return true;
	}
	return msr >= TB_MSR_RTIT_ADDR_A(0) &&
	       msr <= TB_MSR_RTIT_ADDR_B(TB_PT_MAX_ADDR_RANGES - 1);
}

static int __ptemu_rdmsr(struct ptemu_cpu *pc, u32 msr, u64 *val)
{
	int i;

	if (ptemu_pt_msr(msr) && !present)
		return -EIO;
	switch (msr) {
	case TB_MSR_VMX_MISC:
		if (!vmx)
			return -EIO;
		*val = vmx_pt ? TB_VMX_MISC_PT : 0;
		return 0;
	case TB_MSR_PERF_GLOBAL_STATUS:
		*val = pc->gstatus;
		return 0;
	case TB_MSR_PERF_GLOBAL_OVF_CTRL:
		*val = 0;
		return 0;
	case TB_MSR_RTIT_CTL:
		*val = pc->ctl;
		return 0;
	case TB_MSR_RTIT_STATUS:
		*val = pc->status;
		if ((pc->ctl & TB_RTIT_CTL_TRACEEN) &&
		    !(pc->status & PTEMU_HALTED)) {
			*val |= TB_RTIT_STATUS_TRIGGEREN;
			if (ptemu_ctx(pc))
				*val |= TB_RTIT_STATUS_CONTEXTEN |
					TB_RTIT_STATUS_FILTEREN;
		}
		return 0;
	case TB_MSR_RTIT_OUTPUT_BASE:
	case TB_MSR_RTIT_OUTPUT_MASK:
		if (!topa && !single_range)
			return -EIO;
		*val = msr == TB_MSR_RTIT_OUTPUT_BASE ? pc->base : pc->mask;
		/*
		 * SDM vol. 3C 33.2.7.2: these are reliable only once TraceEn
		 * is clear. stale_pos takes the strictest reading: while
		 * tracing, a read shows the position of the last enable.
		 */
		if (READ_ONCE(stale_pos) && (pc->ctl & TB_RTIT_CTL_TRACEEN))
			*val = msr == TB_MSR_RTIT_OUTPUT_BASE ? pc->vis_base : pc->vis_mask;
		return 0;
	case TB_MSR_RTIT_CR3_MATCH:
		if (!cr3_filtering)
			return -EIO;
		*val = pc->cr3;
		return 0;
	}
	i = ptemu_addr_idx(msr);
	if (i < 0)
		return -EIO;
	*val = pc->addr[i / 2][i % 2];
	return 0;
}

static int __ptemu_wrmsr(struct ptemu_cpu *pc, u32 msr, u64 val)
{
	bool on = pc->ctl & TB_RTIT_CTL_TRACEEN;
	u64 old;
	int i;

	if (ptemu_pt_msr(msr) && !present)
		return -EIO;
	/* An NMI landed in a tick and now changes its registers. */
	if (pc->busy && msr != TB_MSR_PERF_GLOBAL_OVF_CTRL) {
		ptemu_add(&pc->nested, 1);
		ptemu_add(&pc->errors, 1);
	}
	switch (msr) {
	case TB_MSR_PERF_GLOBAL_OVF_CTRL:
		pc->gstatus &= ~val;
		return 0;
	case TB_MSR_RTIT_CTL:
		if (ptemu_ctl_check(pc, val))
			return -EIO;
		old = pc->ctl;
		if (!((old ^ val) & TB_RTIT_CTL_TRACEEN)) {
			WRITE_ONCE(pc->ctl, val);	/* READ_ONCE: tick, stats */
			return 0;
		}
		pc->epoch++;
		if (val & TB_RTIT_CTL_TRACEEN) {
			WRITE_ONCE(pc->ctl, val);
			ptemu_enable(pc);
		} else {
			/* The flush runs with the bits that were tracing. */
			WRITE_ONCE(pc->ctl, old & ~TB_RTIT_CTL_TRACEEN);
			ptemu_disable(pc);
			WRITE_ONCE(pc->ctl, val);
		}
		return 0;
	case TB_MSR_RTIT_STATUS:
		if (on || (val & ~(PTEMU_STATUS_RO | PTEMU_STATUS_RW)))
			return -EIO;
		pc->status = val & PTEMU_STATUS_RW;
		return 0;
	case TB_MSR_RTIT_OUTPUT_BASE:
		if (on || (!topa && !single_range) ||
		    (val & TB_RTIT_MASK_LOWBITS) ||
		    (val >> boot_cpu_data.x86_phys_bits))
			return -EIO;
		if (val != pc->base)
			pc->early_fired = false;	/* another table, another fill */
		pc->base = val;
		return 0;
	case TB_MSR_RTIT_OUTPUT_MASK:
		if (on || (!topa && !single_range))
			return -EIO;
		val |= TB_RTIT_MASK_LOWBITS;
		/*
		 * Single-entry early PMI: fired once per crossing of the margin.
		 * Moving back before the point where it fired, or to another
		 * entry, re-arms it; a restart at or past that point, still
		 * inside the margin, does not (the stricter reading: the SDM
		 * only says the PMI may come up to 512 bytes early).
		 */
		if (FIELD_GET(TB_RTIT_MASK_TABLE_OFF, val) != ptemu_topa_idx(pc) ||
		    (val >> TB_RTIT_MASK_OUTPUT_OFF_SHIFT) < pc->early_off)
			pc->early_fired = false;
		pc->mask = val;
		return 0;
	case TB_MSR_RTIT_CR3_MATCH:
		if (on || !cr3_filtering || (val & GENMASK_ULL(4, 0)))
			return -EIO;
		pc->cr3 = val;
		return 0;
	}
	i = ptemu_addr_idx(msr);
	if (i < 0 || on || !ptemu_canonical(val))
		return -EIO;
	pc->addr[i / 2][i % 2] = val;
	return 0;
}

/*
 * The accessors: on the CPU owning the registers, any context. IRQs off
 * so that the tick cannot run in the middle of an update.
 */
static int ptemu_rdmsr(u32 msr, u64 *val)
{
	struct ptemu_cpu *pc;
	unsigned long flags;
	int ret;

	local_irq_save(flags);
	pc = this_cpu_ptr(ptemu.pc);
	ret = __ptemu_rdmsr(pc, msr, val);
	if (ret) {
		*val = 0;
		ptemu_add(&pc->gps, 1);
		WRITE_ONCE(pc->gp_msr, msr);
		WRITE_ONCE(pc->gp_val, ~0ULL);
	}
	local_irq_restore(flags);
	return ret;
}

static int ptemu_wrmsr(u32 msr, u64 val)
{
	struct ptemu_cpu *pc;
	unsigned long flags;
	int ret;

	local_irq_save(flags);
	pc = this_cpu_ptr(ptemu.pc);
	/*
	 * Clearing TraceEn is legal (SDM 33.2.8.2) but ends perf's live
	 * trace: tracebuf must leave a unit it does not own alone.
	 */
	if (msr == TB_MSR_RTIT_CTL && pc->perf.traceen &&
	    (pc->ctl & TB_RTIT_CTL_TRACEEN))
		ptemu_add(&pc->perf_killed, 1);
	ret = __ptemu_wrmsr(pc, msr, val);
	if (ret) {
		ptemu_add(&pc->gps, 1);
		WRITE_ONCE(pc->gp_msr, msr);
		WRITE_ONCE(pc->gp_val, val);
	}
	local_irq_restore(flags);
	return ret;
}

static void ptemu_cpuid(u32 leaf, u32 subleaf, u32 regs[4])
{
	u32 max = cpuid_eax(0);

	memset(regs, 0, 4 * sizeof(u32));
	if (leaf == TB_CPUID_LEAF_PT) {
		if (!present)
			return;
		if (subleaf == 0) {
			regs[0] = 1;
			regs[1] = ptemu.cap0_ebx;
			regs[2] = ptemu.cap0_ecx;
		} else if (subleaf == 1) {
			regs[0] = ptemu.cap1_eax;
			regs[1] = ptemu.cap1_ebx;
		}
		return;
	}
	/* Basic leaves beyond the real maximum (we raise it to 0x14): zeros. */
	if (leaf <= max || leaf >= PTEMU_CPUID_HYPERVISOR)
		cpuid_count(leaf, subleaf, &regs[0], &regs[1], &regs[2], &regs[3]);
	if (leaf == 0 && present)
		regs[0] = max_t(u32, regs[0], TB_CPUID_LEAF_PT);
	if (leaf == TB_CPUID_LEAF_FEATURES) {
		regs[2] &= ~TB_CPUID_1_ECX_VMX;
		if (vmx)
			regs[2] |= TB_CPUID_1_ECX_VMX;
	}
	if (leaf == TB_CPUID_LEAF_EXT_FEATURES && subleaf == 0) {
		regs[1] &= ~TB_CPUID_7_EBX_INTEL_PT;
		if (present)
			regs[1] |= TB_CPUID_7_EBX_INTEL_PT;
	}
}

/* apic_write(APIC_LVTPC, APIC_DM_NMI) on this CPU: unmasked. */
static void ptemu_pmi_unmask(void)
{
	unsigned long flags;

	local_irq_save(flags);
	WRITE_ONCE(this_cpu_ptr(ptemu.pc)->lvtpc_masked, false);
	local_irq_restore(flags);
}

/* CR4.VMXE of this CPU: the debugfs vmx knob. */
static bool ptemu_vmx_on(void)
{
	return READ_ONCE(this_cpu_ptr(ptemu.pc)->vmx_on);
}

static const struct tb_pt_hw ptemu_hw = {
	.name		= "tb_ptemu",
	.owner		= THIS_MODULE,
	.rdmsr		= ptemu_rdmsr,
	.wrmsr		= ptemu_wrmsr,
	.cpuid		= ptemu_cpuid,
	.pmi_unmask	= ptemu_pmi_unmask,
	.vmx_on		= ptemu_vmx_on,
};

/* ---- another owner: steal / foreign ---- */

struct ptemu_foreign_req {
	struct ptemu_cpu *pc;
	bool take, steal;
	int ret;
};

/*
 * On the target CPU, IRQs off (smp_call_function_single). The other owner
 * goes through the same registers as tracebuf, so every #GP rule holds:
 * clear TraceEn (flushing tracebuf's trace into tracebuf's output), point
 * the output at our pages, then enable with its own CTL.
 */
static void ptemu_foreign_ipi(void *arg)
{
	struct ptemu_foreign_req *r = arg;
	struct ptemu_cpu *pc = r->pc;
	u64 table = page_to_phys(pc->fpages), out = table + PAGE_SIZE;
	u64 *tbl = page_address(pc->fpages);
	u64 ctl = PTEMU_FOREIGN_CTL;

	if (pc->perf.active) {
		r->ret = -EBUSY;	/* one other owner at a time */
		return;
	}
	if (!r->take) {
		if (!pc->foreign)
			return;
		if (pc->ctl & TB_RTIT_CTL_TRACEEN)
			r->ret = __ptemu_wrmsr(pc, TB_MSR_RTIT_CTL,
					       pc->ctl & ~TB_RTIT_CTL_TRACEEN);
		if (!r->ret)
			r->ret = __ptemu_wrmsr(pc, TB_MSR_RTIT_CTL, 0);
		pc->foreign = false;
		pc->out_foreign = false;
		pc->out_void = false;
		return;
	}
	if (pc->foreign)
		return;
	if (pc->ctl & TB_RTIT_CTL_TRACEEN) {
		if (!r->steal) {
			r->ret = -EBUSY;
			return;
		}
		r->ret = __ptemu_wrmsr(pc, TB_MSR_RTIT_CTL,
				       pc->ctl & ~TB_RTIT_CTL_TRACEEN);
		if (r->ret)
			return;
	}
	pc->foreign = true;
	pc->fbase = single_range ? out : table;
	if (single_range) {
		r->ret = __ptemu_wrmsr(pc, TB_MSR_RTIT_OUTPUT_BASE, out) ?:
			 __ptemu_wrmsr(pc, TB_MSR_RTIT_OUTPUT_MASK, PAGE_SIZE - 1);
	} else {
		/* [4 KiB region, END->table]: valid single- and multi-entry */
		tbl[0] = out;
		tbl[1] = table | TB_TOPA_END;
		ctl |= TB_RTIT_CTL_TOPA;
		r->ret = __ptemu_wrmsr(pc, TB_MSR_RTIT_OUTPUT_BASE, table) ?:
			 __ptemu_wrmsr(pc, TB_MSR_RTIT_OUTPUT_MASK, 0);
	}
	if (!r->ret)
		r->ret = __ptemu_wrmsr(pc, TB_MSR_RTIT_STATUS, 0) ?:
			 __ptemu_wrmsr(pc, TB_MSR_RTIT_CTL, ctl);
	if (r->ret)
		pc->foreign = false;
}

static ssize_t ptemu_foreign_write(struct file *file, const char __user *ubuf,
				   size_t len, bool steal)
{
	struct ptemu_foreign_req r = { .pc = file->private_data, .steal = steal };
	unsigned int v;
	int ret;

	ret = kstrtouint_from_user(ubuf, len, 0, &v);
	if (ret)
		return ret;
	if (v > 1)
		return -EINVAL;
	if (!topa && !single_range)
		return -EOPNOTSUPP;
	r.take = v;
	mutex_lock(&ptemu.lock);
	cpus_read_lock();
	if (cpu_online(r.pc->cpu))
		ret = smp_call_function_single(r.pc->cpu, ptemu_foreign_ipi,
					       &r, 1) ?: r.ret;
	else
		ret = -ENODEV;
	cpus_read_unlock();
	mutex_unlock(&ptemu.lock);
	return ret ?: len;
}

static ssize_t ptemu_steal_write(struct file *file, const char __user *ubuf,
				 size_t len, loff_t *ppos)
{
	return ptemu_foreign_write(file, ubuf, len, true);
}

static ssize_t ptemu_foreign_only_write(struct file *file,
					const char __user *ubuf, size_t len,
					loff_t *ppos)
{
	return ptemu_foreign_write(file, ubuf, len, false);
}

static const struct file_operations ptemu_steal_fops = {
	.owner	= THIS_MODULE,
	.open	= simple_open,
	.write	= ptemu_steal_write,
	.llseek	= noop_llseek,
};

static const struct file_operations ptemu_foreign_fops = {
	.owner	= THIS_MODULE,
	.open	= simple_open,
	.write	= ptemu_foreign_only_write,
	.llseek	= noop_llseek,
};

/* ---- another owner: perf's intel_pt ---- */

/* Its one address filter (perf record --filter), in ADDR0. */
#define PTEMU_PERF_ADDR_A	0x400000ULL
#define PTEMU_PERF_ADDR_B	0x4fffffULL
#define PTEMU_PERF_CTL		(TB_RTIT_CTL_TOPA | TB_RTIT_CTL_OS | \
				 TB_RTIT_CTL_USR | TB_RTIT_CTL_TSCEN | \
				 TB_RTIT_CTL_BRANCHEN)

/* wrmsrl(): unchecked, a #GP is an "unchecked MSR access" splat. */
static void ptemu_perf_wr(struct ptemu_cpu *pc, u32 msr, u64 val)
{
	if (__ptemu_wrmsr(pc, msr, val))
		ptemu_add(&pc->perf_gp, 1);
}

/*
 * pt_event_start(): pt_config_buffer() writes OUTPUT_BASE/MASK only where
 * its copy differs; pt_config() clears STATUS on the event's first start
 * only, programs its filters through the same kind of copy
 * (pt_config_filters()) and sets CTL. It never reads the registers back:
 * whatever its copies miss, it traces into. That is the rule checked here.
 */
static int ptemu_perf_in(struct ptemu_cpu *pc)
{
	u64 table = page_to_phys(pc->fpages), out = table + PAGE_SIZE;
	u64 *tbl = page_address(pc->fpages);
	u64 mask, ctl = PTEMU_PERF_CTL | TB_RTIT_CTL_TRACEEN;
	bool filter = ptemu.nr_ranges > 0;

	if (pc->perf.active)
		return 0;
	if (pc->foreign)
		return -EBUSY;
	/* One 4 KiB region then END back: valid single- and multi-entry. */
	tbl[0] = out;
	tbl[1] = table | TB_TOPA_END;
	pc->foreign = true;
	pc->fbase = table;
	pc->perf.active = true;
	/* pt_buffer_reset_offsets(): on from where its last stop left it. */
	mask = pc->perf.started ? pc->perf.pos : TB_RTIT_MASK_LOWBITS;
	if (pc->perf.base != table) {
		pc->perf.base = table;
		ptemu_perf_wr(pc, TB_MSR_RTIT_OUTPUT_BASE, table);
	}
	if (pc->perf.mask != mask) {
		pc->perf.mask = mask;
		ptemu_perf_wr(pc, TB_MSR_RTIT_OUTPUT_MASK, mask);
	}
	if (!pc->perf.started) {
		pc->perf.started = true;
		ptemu_perf_wr(pc, TB_MSR_RTIT_STATUS, 0);
	}
	if (filter) {
		if (pc->perf.addr_a != PTEMU_PERF_ADDR_A) {
			pc->perf.addr_a = PTEMU_PERF_ADDR_A;
			ptemu_perf_wr(pc, TB_MSR_RTIT_ADDR_A(0), PTEMU_PERF_ADDR_A);
		}
		if (pc->perf.addr_b != PTEMU_PERF_ADDR_B) {
			pc->perf.addr_b = PTEMU_PERF_ADDR_B;
			ptemu_perf_wr(pc, TB_MSR_RTIT_ADDR_B(0), PTEMU_PERF_ADDR_B);
		}
		ctl |= (u64)TB_RTIT_ADDR_CFG_FILTER << TB_RTIT_CTL_ADDR_CFG_SHIFT(0);
	}
	pc->perf.ctl = ctl;
	ptemu_perf_wr(pc, TB_MSR_RTIT_CTL, ctl);
	WRITE_ONCE(pc->perf.traceen, pc->ctl == ctl);
	if (!pc->perf.traceen)
		return 0;
	if (pc->base != table || pc->mask != mask ||
	    (filter && (pc->addr[0][0] != PTEMU_PERF_ADDR_A ||
			pc->addr[0][1] != PTEMU_PERF_ADDR_B)))
		ptemu_add(&pc->perf_stale, 1);
	if (pc->status & PTEMU_HALTED)
		ptemu_add(&pc->perf_dead, 1);
	return 0;
}

/*
 * pt_event_stop(): pt_config_stop() writes its own CTL minus TraceEn (not
 * read back: it clears whoever's TraceEn is set), pt_read_offset()
 * refreshes its copies of OUTPUT_BASE/MASK from the registers, and
 * pt_handle_status() writes STATUS back without Stopped/Error.
 */
static void ptemu_perf_out(struct ptemu_cpu *pc)
{
	u64 st;

	if (!pc->perf.active)
		return;
	ptemu_perf_wr(pc, TB_MSR_RTIT_CTL, pc->perf.ctl & ~TB_RTIT_CTL_TRACEEN);
	if (!__ptemu_rdmsr(pc, TB_MSR_RTIT_OUTPUT_BASE, &pc->perf.base) &&
	    !__ptemu_rdmsr(pc, TB_MSR_RTIT_OUTPUT_MASK, &pc->perf.mask) &&
	    !__ptemu_rdmsr(pc, TB_MSR_RTIT_STATUS, &st))
		ptemu_perf_wr(pc, TB_MSR_RTIT_STATUS,
			      st & PTEMU_STATUS_RW & ~PTEMU_HALTED);
	pc->perf.pos = pc->perf.mask;
	WRITE_ONCE(pc->perf.traceen, false);
	WRITE_ONCE(pc->perf.active, false);
	pc->foreign = false;
	pc->out_foreign = false;
	pc->out_void = false;
}

struct ptemu_perf_req {
	struct ptemu_cpu *pc;
	bool in;
	int ret;
};

static void ptemu_perf_ipi(void *arg)
{
	struct ptemu_perf_req *r = arg;

	if (r->in)
		r->ret = ptemu_perf_in(r->pc);
	else
		ptemu_perf_out(r->pc);
}

/* Write 1: perf's event is scheduled in on that CPU; 0: out. */
static ssize_t ptemu_perf_write(struct file *file, const char __user *ubuf,
				size_t len, loff_t *ppos)
{
	struct ptemu_perf_req r = { .pc = file->private_data };
	unsigned int v;
	int ret;

	ret = kstrtouint_from_user(ubuf, len, 0, &v);
	if (ret)
		return ret;
	if (v > 1)
		return -EINVAL;
	if (!topa)
		return -EOPNOTSUPP;
	r.in = v;
	mutex_lock(&ptemu.lock);
	cpus_read_lock();
	if (cpu_online(r.pc->cpu))
		ret = smp_call_function_single(r.pc->cpu, ptemu_perf_ipi,
					       &r, 1) ?: r.ret;
	else
		ret = -ENODEV;
	cpus_read_unlock();
	mutex_unlock(&ptemu.lock);
	return ret ?: len;
}

static const struct file_operations ptemu_perf_fops = {
	.owner	= THIS_MODULE,
	.open	= simple_open,
	.write	= ptemu_perf_write,
	.llseek	= noop_llseek,
};

/* ---- perf's intel_pt PMU, where the kernel has none ---- */

/*
 * The guests' CPUs have no PT, so the kernel registers no intel_pt PMU
 * (pt_init() needs X86_FEATURE_INTEL_PT). This one stands in for it, with
 * what 6.1's and 6.12's pt_init() give perf core: PERF_PMU_CAP_EXCLUSIVE
 * and PERF_PMU_CAP_ITRACE, PERF_PMU_CAP_AUX_NO_SG without multi-entry
 * ToPA (6.12: PERF_PMU_CAP_AUX_PREFER_LARGE with it, and
 * PERF_PMU_CAP_AUX_PAUSE), task_ctx_nr = perf_sw_context; so perf core's
 * exclusivity rules (exclusive_event_init(),
 * exclusive_event_installable()) apply to it exactly as to the real one.
 * Its events drive the perf model above: pmu->add/start is
 * pt_event_start() (ptemu_perf_in), del/stop is pt_event_stop()
 * (ptemu_perf_out), on the event's CPU with interrupts off, as perf core
 * calls them. Deviation: pt_event_start() refuses to run without an AUX
 * buffer (perf_aux_output_begin()); these events trace into the model's
 * own pages, no AUX needed. The debugfs cpuN/perf knob drives the same
 * model: a test uses one or the other on a CPU.
 */
static bool perf_pmu = true;
module_param(perf_pmu, bool, 0444);
MODULE_PARM_DESC(perf_pmu, "Register a perf PMU named intel_pt (where the kernel has none)");

#ifdef PERF_PMU_CAP_AUX_PREFER_LARGE
#define PTEMU_PMU_CAP_MULTI	PERF_PMU_CAP_AUX_PREFER_LARGE
#else
#define PTEMU_PMU_CAP_MULTI	0
#endif
#ifdef PERF_PMU_CAP_AUX_PAUSE
#define PTEMU_PMU_CAP_PAUSE	PERF_PMU_CAP_AUX_PAUSE
#else
#define PTEMU_PMU_CAP_PAUSE	0
#endif

static struct pmu ptemu_pmu;
static bool ptemu_pmu_on;
/*
 * Events of the PMU: pt_event_init() raises perf's active_events
 * (x86_add_exclusive()), and while it is non-zero perf's NMI handler
 * runs (perf_event_nmi_handler() in arch/x86/events/core.c): ptemu_nmi().
 */
static atomic_t ptemu_pmu_events = ATOMIC_INIT(0);

static void ptemu_pmu_event_destroy(struct perf_event *event)
{
	atomic_dec(&ptemu_pmu_events);
}

static int ptemu_pmu_event_init(struct perf_event *event)
{
	if (event->attr.type != ptemu_pmu.type)
		return -ENOENT;
	/* pt_event_valid() checks config against CPUID; the model has its own CTL. */
	atomic_inc(&ptemu_pmu_events);
	event->destroy = ptemu_pmu_event_destroy;
	return 0;
}

static void ptemu_pmu_start(struct perf_event *event, int flags)
{
	struct ptemu_cpu *pc = this_cpu_ptr(ptemu.pc);

	event->hw.state = ptemu_perf_in(pc) ? PERF_HES_STOPPED : 0;
}

static void ptemu_pmu_stop(struct perf_event *event, int flags)
{
	if (event->hw.state & PERF_HES_STOPPED)
		return;
	ptemu_perf_out(this_cpu_ptr(ptemu.pc));
	event->hw.state = PERF_HES_STOPPED;
}

/* pt_event_add(): one event per CPU, -EINVAL if it could not start. */
static int ptemu_pmu_add(struct perf_event *event, int flags)
{
	if (this_cpu_ptr(ptemu.pc)->perf.active)
		return -EBUSY;
	event->hw.state = PERF_HES_STOPPED;
	if (flags & PERF_EF_START) {
		ptemu_pmu_start(event, 0);
		if (event->hw.state & PERF_HES_STOPPED)
			return -EINVAL;
	}
	return 0;
}

static void ptemu_pmu_del(struct perf_event *event, int flags)
{
	ptemu_pmu_stop(event, PERF_EF_UPDATE);
}

static void ptemu_pmu_read(struct perf_event *event)
{
}

static int ptemu_pmu_init(void)
{
	int ret;

	if (!perf_pmu || boot_cpu_has(X86_FEATURE_INTEL_PT))
		return 0;	/* the real one is registered (or not wanted) */
	ptemu_pmu = (struct pmu) {
		.module		= THIS_MODULE,
		.task_ctx_nr	= perf_sw_context,
		.capabilities	= PERF_PMU_CAP_EXCLUSIVE | PERF_PMU_CAP_ITRACE |
				  PTEMU_PMU_CAP_PAUSE |
				  (topa_multi ? PTEMU_PMU_CAP_MULTI : PERF_PMU_CAP_AUX_NO_SG),
		.event_init	= ptemu_pmu_event_init,
		.add		= ptemu_pmu_add,
		.del		= ptemu_pmu_del,
		.start		= ptemu_pmu_start,
		.stop		= ptemu_pmu_stop,
		.read		= ptemu_pmu_read,
	};
	ret = perf_pmu_register(&ptemu_pmu, "intel_pt", -1);
	ptemu_pmu_on = !ret;
	return ret;
}

static void ptemu_pmu_exit(void)
{
	if (ptemu_pmu_on)
		perf_pmu_unregister(&ptemu_pmu);
	ptemu_pmu_on = false;
}

/* ---- burst mode, and parking the output on an END entry ---- */

/* Write N: the next N ticks of that CPU write burst_kb KiB each. */
static ssize_t ptemu_burst_write(struct file *file, const char __user *ubuf,
				 size_t len, loff_t *ppos)
{
	struct ptemu_cpu *pc = file->private_data;
	unsigned int n;
	int ret;

	ret = kstrtouint_from_user(ubuf, len, 0, &n);
	if (ret)
		return ret;
	WRITE_ONCE(pc->burst, n);	/* the tick counts it down (READ_ONCE) */
	return len;
}

static const struct file_operations ptemu_burst_fops = {
	.owner	= THIS_MODULE,
	.open	= simple_open,
	.write	= ptemu_burst_write,
	.llseek	= noop_llseek,
};

#define PTEMU_PARK_MAX	(16ULL << 20)	/* bytes park_end writes at most */

/*
 * On the CPU, IRQs off: write PAD packets (zero bytes, valid anywhere
 * between packets) from the output position to the END entry that ends
 * its table, then write nothing more (the program idles) until TraceEn is
 * cleared. MASK_PTRS is left on the END entry (ptemu_topa_next() follows
 * END lazily), where software reads it: perf's pt_update_head() handles
 * that position, and so must tracebuf (topa.c, tb_topa_offset()). -EAGAIN
 * if a STOP entry comes first (the ring has no room for it).
 */
static void ptemu_park_ipi(void *arg)
{
	struct ptemu_foreign_req *r = arg;
	struct ptemu_cpu *pc = r->pc;
	unsigned int idx, i, n;
	u64 *tbl, e, left;

	if (!(pc->ctl & TB_RTIT_CTL_TRACEEN) || !(pc->ctl & TB_RTIT_CTL_TOPA) ||
	    (pc->status & PTEMU_HALTED) || pc->foreign || !ptemu_topa_cur(pc, &e)) {
		r->ret = -EINVAL;
		return;
	}
	/*
	 * The program leaves the traced context (TIP.PGD) before it idles:
	 * clearing TraceEn then flushes nothing more, and software reads the
	 * pointer on the END entry.
	 */
	if (!pc->need_start && ptemu_ctx(pc)) {
		n = ptgen_stop(&pc->gen, pc->buf);
		ptemu_emit(pc, pc->buf, n, 0, 0);
		pc->need_start = true;
		if (!ptemu_topa_cur(pc, &e)) {
			r->ret = -EIO;
			return;
		}
	}
	idx = ptemu_topa_idx(pc);
	tbl = phys_to_virt(pc->base);
	left = ptemu_region_size(e) - (pc->mask >> TB_RTIT_MASK_OUTPUT_OFF_SHIFT);
	for (i = idx; ; i++) {
		e = READ_ONCE(tbl[i]);
		if (e & TB_TOPA_END)
			break;
		if (e & TB_TOPA_STOP) {
			r->ret = -EAGAIN;
			return;
		}
		if (i != idx)
			left += ptemu_region_size(e);
		if (left > PTEMU_PARK_MAX) {
			r->ret = -ERANGE;
			return;
		}
	}
	memset(pc->buf, 0, sizeof(pc->buf));
	for (; left; left -= n) {
		n = min_t(u64, left, sizeof(pc->buf));
		ptemu_emit(pc, pc->buf, n, 0, 0);
	}
	pc->idle = true;
	ptemu_add(&pc->parked, 1);
	ptemu_raise_pmi(pc);	/* an INT region on the way */
}

/* Write 1: park the output on the END entry (ptemu_park_ipi). */
static ssize_t ptemu_park_write(struct file *file, const char __user *ubuf,
				size_t len, loff_t *ppos)
{
	struct ptemu_foreign_req r = { .pc = file->private_data };
	unsigned int v;
	int ret;

	ret = kstrtouint_from_user(ubuf, len, 0, &v);
	if (ret)
		return ret;
	if (v != 1)
		return -EINVAL;
	if (!topa || !topa_multi)
		return -EOPNOTSUPP;
	mutex_lock(&ptemu.lock);
	cpus_read_lock();
	if (cpu_online(r.pc->cpu))
		ret = smp_call_function_single(r.pc->cpu, ptemu_park_ipi, &r, 1) ?: r.ret;
	else
		ret = -ENODEV;
	cpus_read_unlock();
	mutex_unlock(&ptemu.lock);
	return ret ?: len;
}

static const struct file_operations ptemu_park_fops = {
	.owner	= THIS_MODULE,
	.open	= simple_open,
	.write	= ptemu_park_write,
	.llseek	= noop_llseek,
};

/* ---- VMX and a KVM guest with PT ---- */

struct ptemu_vmx_req {
	struct ptemu_cpu *pc;
	unsigned int n;			/* vmx: 0/1; kvm: VM entries */
	int ret;
};

/*
 * VMXON/VMXOFF on this CPU (debugfs cpuN/vmx), as a hypervisor does it
 * (KVM: kvm_cpu_vmxon() sets CR4.VMXE, then VMXON). Without
 * IA32_VMX_MISC[14], VMXON clears TraceEn and TraceEn cannot be set
 * while in VMX operation (SDM vol. 3D, A.6; ptemu_ctl_check()). The
 * clear flushes like a WRMSR would (the SDM does not say; the output
 * stays coherent for whoever reads it).
 */
static void ptemu_vmx_ipi(void *arg)
{
	struct ptemu_vmx_req *r = arg;
	struct ptemu_cpu *pc = r->pc;

	if (r->n && !pc->vmx_on && !vmx_pt && (pc->ctl & TB_RTIT_CTL_TRACEEN))
		__ptemu_wrmsr(pc, TB_MSR_RTIT_CTL, pc->ctl & ~TB_RTIT_CTL_TRACEEN);
	WRITE_ONCE(pc->vmx_on, !!r->n);
}

/*
 * perf's handler for the NMI of a guest's ToPA PMI: handle_pmi_common()
 * (arch/x86/events/intel/core.c) acknowledges GLOBAL_STATUS (the bit must
 * still be set: the handler that cleared it before took the guest's PMI),
 * perf_guest_handle_intel_pt_intr() -> vmx_handle_intel_pt_intr() hands
 * it to the vCPU (KVM_REQ_PMI), and LVTPC is re-armed. Wait for it on
 * this CPU, bounded: an NMI is not masked by IRQs off.
 */
static void ptemu_kvm_pmi(struct ptemu_cpu *pc)
{
	unsigned long i;

	pc->gstatus |= TB_GLOBAL_STATUS_TOPA_PMI;
	if (pc->lvtpc_masked) {
		ptemu_add(&pc->kvm_masked, 1);
		return;
	}
	WRITE_ONCE(pc->lvtpc_masked, true);
	WRITE_ONCE(pc->kvm.nmi_done, false);
	WRITE_ONCE(pc->kvm.inflight, true);
	barrier();	/* pairs with ptemu_nmi() on this CPU */
	apic->send_IPI(smp_processor_id(), NMI_VECTOR);
	for (i = 0; i < 100000000UL && !READ_ONCE(pc->kvm.nmi_done); i++)
		cpu_relax();
	WRITE_ONCE(pc->kvm.inflight, false);
}

/*
 * One VM entry and exit of a guest that traces with PT, KVM's pt_mode=1
 * (arch/x86/kvm/vmx/vmx.c, 6.1 and 6.12): pt_guest_enter() reads the
 * host's RTIT_CTL, writes 0 (the host's trace stops and is flushed),
 * saves the host's registers and loads the guest's; VM entry loads the
 * guest's RTIT_CTL (VM_ENTRY_LOAD_IA32_RTIT_CTL); the guest traces
 * kvm_bytes into its own 4 KiB INT region (PAD bytes: nobody decodes
 * them), whose filling raises a ToPA PMI; VM exit clears RTIT_CTL
 * (VM_EXIT_CLEAR_IA32_RTIT_CTL); pt_guest_exit() saves the guest's
 * registers, loads the host's and writes the host's CTL back (a new
 * host trace: PSB+). The NMI of the guest's PMI is handled inside
 * vmx_vcpu_enter_exit(), before pt_guest_exit(), on 6.12, and in
 * vmx_handle_exit_irqoff(), after it, on 6.1 (kvm_order). On this CPU,
 * IRQs off. The host's trace has a gap for every entry.
 */
static void ptemu_kvm_cycle(struct ptemu_cpu *pc, bool early)
{
	u64 gtable = page_to_phys(pc->kvm.pages);
	u64 hctl = pc->ctl, hstatus, hbase, hmask;
	u64 gctl = TB_RTIT_CTL_TRACEEN | TB_RTIT_CTL_TOPA | TB_RTIT_CTL_USR |
		   TB_RTIT_CTL_OS | TB_RTIT_CTL_BRANCHEN;
	unsigned int left = READ_ONCE(kvm_bytes), n, w;
	bool pmi;

	/* pt_save_msr() runs after the CTL write: the flushed position. */
	__ptemu_wrmsr(pc, TB_MSR_RTIT_CTL, 0);
	hstatus = pc->status;
	hbase = pc->base;
	hmask = pc->mask;
	pc->status = pc->kvm.status;
	pc->base = gtable;
	pc->mask = pc->kvm.mask;
	pc->epoch++;
	WRITE_ONCE(pc->ctl, gctl);
	memset(pc->buf, 0, sizeof(pc->buf));
	while (left && !(pc->status & PTEMU_HALTED)) {
		n = min_t(unsigned int, left, sizeof(pc->buf));
		w = ptemu_topa_out(pc, pc->buf, n);
		ptemu_add(&pc->kvm_guest_bytes, w);
		if (w < n)
			break;
		left -= n;
	}
	pc->epoch++;
	WRITE_ONCE(pc->ctl, 0);
	pmi = pc->pmi_pending;
	pc->pmi_pending = false;
	if (pmi && early)
		ptemu_kvm_pmi(pc);
	pc->kvm.status = pc->status;
	pc->kvm.mask = pc->mask;
	pc->status = hstatus;
	pc->base = hbase;
	pc->mask = hmask;
	if (hctl)
		__ptemu_wrmsr(pc, TB_MSR_RTIT_CTL, hctl);
	if (pmi && !early)
		ptemu_kvm_pmi(pc);
	ptemu_add(&pc->kvm_cycles, 1);
}

static void ptemu_kvm_ipi(void *arg)
{
	struct ptemu_vmx_req *r = arg;
	struct ptemu_cpu *pc = r->pc;
	bool early = READ_ONCE(kvm_order) != 1;
	unsigned int i;

	/* KVM's pt_mode=1 needs PT in VMX operation (cpu_has_vmx_intel_pt()). */
	if (!pc->vmx_on || !vmx_pt || pc->foreign) {
		r->ret = -EINVAL;
		return;
	}
	for (i = 0; i < r->n; i++)
		ptemu_kvm_cycle(pc, early);
}

static ssize_t ptemu_vmx_write(struct file *file, const char __user *ubuf,
			       size_t len, smp_call_func_t fn, unsigned int max)
{
	struct ptemu_vmx_req r = { .pc = file->private_data };
	int ret;

	ret = kstrtouint_from_user(ubuf, len, 0, &r.n);
	if (ret)
		return ret;
	if (r.n > max)
		return -EINVAL;
	if (!topa || !topa_multi)
		return -EOPNOTSUPP;
	mutex_lock(&ptemu.lock);
	cpus_read_lock();
	if (cpu_online(r.pc->cpu))
		ret = smp_call_function_single(r.pc->cpu, fn, &r, 1) ?: r.ret;
	else
		ret = -ENODEV;
	cpus_read_unlock();
	mutex_unlock(&ptemu.lock);
	return ret ?: len;
}

/* Write 1: VMXON on that CPU; 0: VMXOFF. */
static ssize_t ptemu_vmx_knob(struct file *file, const char __user *ubuf,
			      size_t len, loff_t *ppos)
{
	return ptemu_vmx_write(file, ubuf, len, ptemu_vmx_ipi, 1);
}

/* Write N: a KVM guest tracing with PT enters and exits N times there. */
static ssize_t ptemu_kvm_knob(struct file *file, const char __user *ubuf,
			      size_t len, loff_t *ppos)
{
	return ptemu_vmx_write(file, ubuf, len, ptemu_kvm_ipi, 10000);
}

static const struct file_operations ptemu_vmx_fops = {
	.owner	= THIS_MODULE,
	.open	= simple_open,
	.write	= ptemu_vmx_knob,
	.llseek	= noop_llseek,
};

static const struct file_operations ptemu_kvm_fops = {
	.owner	= THIS_MODULE,
	.open	= simple_open,
	.write	= ptemu_kvm_knob,
	.llseek	= noop_llseek,
};

/*
 * Registered last (after tracebuf's NMI_FLAG_FIRST handler), for what
 * perf's NMI handler does with a ToPA PMI: a KVM guest's goes to KVM
 * (ptemu_kvm_pmi()); otherwise, while an event of the PMU exists (perf's
 * active_events), intel_pmu_handle_irq() acknowledges a bit 55 nobody
 * claimed (intel_pt_interrupt() finds perf not tracing) and re-arms
 * LVTPC. With no event, nothing: an NMI nobody claims is "unknown".
 */
static int ptemu_nmi(unsigned int cmd, struct pt_regs *regs)
{
	struct ptemu_cpu *pc = this_cpu_ptr(ptemu.pc);

	if (READ_ONCE(pc->kvm.inflight)) {
		WRITE_ONCE(pc->kvm.inflight, false);
		if (pc->gstatus & TB_GLOBAL_STATUS_TOPA_PMI) {
			pc->gstatus &= ~TB_GLOBAL_STATUS_TOPA_PMI;
			ptemu_add(&pc->kvm_pmis, 1);
		} else {
			/* Acknowledged before perf saw it: the guest's PT stalls. */
			if (!pc->kvm_stolen)
				pr_err("tb_ptemu: cpu%u: a KVM guest's ToPA PMI was acknowledged by another handler\n",
				       pc->cpu);
			ptemu_add(&pc->kvm_stolen, 1);
		}
		WRITE_ONCE(pc->lvtpc_masked, false);
		WRITE_ONCE(pc->kvm.nmi_done, true);
		return NMI_HANDLED;
	}
	if ((pc->gstatus & TB_GLOBAL_STATUS_TOPA_PMI) && atomic_read(&ptemu_pmu_events)) {
		pc->gstatus &= ~TB_GLOBAL_STATUS_TOPA_PMI;
		WRITE_ONCE(pc->lvtpc_masked, false);
		ptemu_add(&pc->pmis_unattributed, 1);
		return NMI_HANDLED;
	}
	return NMI_DONE;
}

/* ---- statistics ---- */

/* Values read while the CPU may update them: untorn, not a snapshot. */
static int ptemu_stats_show(struct seq_file *m, void *v)
{
	struct ptemu_cpu *pc = m->private;
	u64 ctl = READ_ONCE(pc->ctl), status = READ_ONCE(pc->status);

	seq_printf(m, "ptw_seq %llu\n", READ_ONCE(pc->ptw_seq));
	seq_printf(m, "bytes_written %llu\n", READ_ONCE(pc->bytes_written));
	seq_printf(m, "bytes_dropped %llu\n", READ_ONCE(pc->bytes_dropped));
	seq_printf(m, "ptw_dropped %llu\n", READ_ONCE(pc->ptw_dropped));
	seq_printf(m, "pmis %llu\n", READ_ONCE(pc->pmis));
	seq_printf(m, "pmis_lost %llu\n", READ_ONCE(pc->pmis_lost));
	seq_printf(m, "ticks %llu\n", READ_ONCE(pc->ticks));
	seq_printf(m, "enables %llu\n", READ_ONCE(pc->enables));
	seq_printf(m, "errors %llu\n", READ_ONCE(pc->errors));
	seq_printf(m, "stopped %d\n", !!(status & TB_RTIT_STATUS_STOPPED));
	seq_printf(m, "traceen %d\n", !!(ctl & TB_RTIT_CTL_TRACEEN));
	seq_printf(m, "error %d\n", !!(status & TB_RTIT_STATUS_ERROR));
	seq_printf(m, "gps %llu\n", READ_ONCE(pc->gps));
	seq_printf(m, "gp_msr %llu\n", READ_ONCE(pc->gp_msr));
	seq_printf(m, "gp_val %llu\n", READ_ONCE(pc->gp_val));
	seq_printf(m, "ovfs %llu\n", READ_ONCE(pc->ovfs));
	seq_printf(m, "burst_ticks %llu\n", READ_ONCE(pc->burst_ticks));
	seq_printf(m, "burst_left %u\n", READ_ONCE(pc->burst));
	seq_printf(m, "parked %llu\n", READ_ONCE(pc->parked));
	seq_printf(m, "nested %llu\n", READ_ONCE(pc->nested));
	seq_printf(m, "foreign %d\n", READ_ONCE(pc->foreign));
	seq_printf(m, "foreign_bytes %llu\n", READ_ONCE(pc->foreign_bytes));
	seq_printf(m, "seed_ptw_seq %llu\n", READ_ONCE(pc->seed_ptw_seq));
	seq_printf(m, "seed_tsc %llu\n", READ_ONCE(pc->seed_tsc));
	seq_printf(m, "pmis_masked %llu\n", READ_ONCE(pc->pmis_masked));
	seq_printf(m, "lvtpc_masked %d\n", READ_ONCE(pc->lvtpc_masked));
	seq_printf(m, "timer_queued %d\n", hrtimer_is_queued(&pc->timer));
	seq_printf(m, "offline %d\n", READ_ONCE(pc->offline));
	seq_printf(m, "perf_active %d\n", READ_ONCE(pc->perf.active));
	seq_printf(m, "perf_traceen %d\n", READ_ONCE(pc->perf.traceen));
	seq_printf(m, "perf_stale %llu\n", READ_ONCE(pc->perf_stale));
	seq_printf(m, "perf_dead %llu\n", READ_ONCE(pc->perf_dead));
	seq_printf(m, "perf_killed %llu\n", READ_ONCE(pc->perf_killed));
	seq_printf(m, "perf_gp %llu\n", READ_ONCE(pc->perf_gp));
	seq_printf(m, "freed %llu\n", READ_ONCE(pc->freed));
	seq_printf(m, "pmis_unattributed %llu\n", READ_ONCE(pc->pmis_unattributed));
	seq_printf(m, "vmx_on %d\n", READ_ONCE(pc->vmx_on));
	seq_printf(m, "kvm_cycles %llu\n", READ_ONCE(pc->kvm_cycles));
	seq_printf(m, "kvm_guest_bytes %llu\n", READ_ONCE(pc->kvm_guest_bytes));
	seq_printf(m, "kvm_pmis %llu\n", READ_ONCE(pc->kvm_pmis));
	seq_printf(m, "kvm_masked %llu\n", READ_ONCE(pc->kvm_masked));
	seq_printf(m, "kvm_stolen %llu\n", READ_ONCE(pc->kvm_stolen));
	seq_printf(m, "violations %llu\n", READ_ONCE(pc->perf_stale) +
		   READ_ONCE(pc->perf_dead) + READ_ONCE(pc->perf_killed) +
		   READ_ONCE(pc->perf_gp) + READ_ONCE(pc->freed) +
		   READ_ONCE(pc->kvm_stolen));
	return 0;
}
DEFINE_SHOW_ATTRIBUTE(ptemu_stats);

static int ptemu_regs_show(struct seq_file *m, void *v)
{
	struct ptemu_cpu *pc = m->private;
	unsigned int i;

	seq_printf(m, "ctl 0x%llx\n", READ_ONCE(pc->ctl));
	seq_printf(m, "status 0x%llx\n", READ_ONCE(pc->status));
	seq_printf(m, "output_base 0x%llx\n", READ_ONCE(pc->base));
	seq_printf(m, "output_mask 0x%llx\n", READ_ONCE(pc->mask));
	seq_printf(m, "cr3_match 0x%llx\n", READ_ONCE(pc->cr3));
	for (i = 0; i < ptemu.nr_ranges; i++)
		seq_printf(m, "addr%u 0x%llx 0x%llx\n", i,
			   READ_ONCE(pc->addr[i][0]), READ_ONCE(pc->addr[i][1]));
	seq_printf(m, "global_status 0x%llx\n", READ_ONCE(pc->gstatus));
	return 0;
}
DEFINE_SHOW_ATTRIBUTE(ptemu_regs);

/* ---- CPU hotplug, init, exit ---- */

/*
 * CPU hotplug, as the hardware sees it: an offline CPU parks in
 * native_play_dead() (arch/x86/kernel/smpboot.c: MWAIT or HLT, no
 * instruction retires), so its trace unit generates nothing, and nothing
 * writes its MSRs, so they keep their values (TraceEn included) until the
 * CPU runs again. Here the program (the tick) stops on the outgoing CPU
 * and does not start again, whatever the accessors do, until
 * ptemu_cpu_online() on the incoming CPU: the hrtimer is never left queued
 * for hrtimers_cpu_dying() (kernel/time/hrtimer.c) to move to a live CPU,
 * where ptemu_tick() would generate another CPU's trace. The pattern is
 * the soft-lockup watchdog's (kernel/watchdog.c: hrtimer_cancel() in
 * lockup_detector_offline_cpu(), a PINNED_HARD restart in
 * lockup_detector_online_cpu()), plus the flag that keeps the accessors
 * and the irq_work from starting the timer again in between.
 *
 * On the outgoing CPU, task context. Dynamic states are torn down in
 * reverse order of their slots, and slots are reused, so this may run
 * before or after tracebuf's own teardown; either way tracebuf's stop
 * (through the accessors, which still work: the CPU still executes until
 * it dies) clears TraceEn and flushes, as it would on silicon. The other
 * owner (steal/foreign) lets go.
 */
static int ptemu_cpu_offline(unsigned int cpu)
{
	struct ptemu_cpu *pc = per_cpu_ptr(ptemu.pc, cpu);
	unsigned long flags;

	local_irq_save(flags);
	/* perf core schedules its events out of a dying CPU. */
	ptemu_perf_out(pc);
	/* From now on no accessor or irq_work starts the timer. */
	pc->offline = true;
	if ((pc->ctl & TB_RTIT_CTL_TRACEEN) && pc->foreign) {
		pc->epoch++;
		WRITE_ONCE(pc->ctl, pc->ctl & ~TB_RTIT_CTL_TRACEEN);
		pc->need_start = false;
	}
	pc->foreign = false;
	pc->out_foreign = false;
	pc->out_void = false;
	local_irq_restore(flags);
	hrtimer_cancel(&pc->timer);
	irq_work_sync(&pc->work);
	return 0;
}

/*
 * On the incoming CPU (task context, a cpuhp thread pinned to it): a unit
 * left enabled ticks again, pinned here.
 */
static int ptemu_cpu_online(unsigned int cpu)
{
	struct ptemu_cpu *pc = per_cpu_ptr(ptemu.pc, cpu);
	unsigned long flags;

	local_irq_save(flags);
	pc->offline = false;
	/* A CPU coming up gets LVTPC unmasked (perf_events_lapic_init()). */
	WRITE_ONCE(pc->lvtpc_masked, false);
	if ((pc->ctl & TB_RTIT_CTL_TRACEEN) && !hrtimer_active(&pc->timer))
		ptemu_timer_start(pc);
	local_irq_restore(flags);
	return 0;
}

/* Module exit, on each online CPU: no flush, the program just ends. */
static void ptemu_shutdown_ipi(void *arg)
{
	struct ptemu_cpu *pc = arg;

	if (pc->ctl & TB_RTIT_CTL_TRACEEN) {
		if (!pc->foreign)
			ptemu_add(&pc->errors, 1);
		pc->epoch++;
		WRITE_ONCE(pc->ctl, pc->ctl & ~TB_RTIT_CTL_TRACEEN);
		hrtimer_try_to_cancel(&pc->timer);
	}
	pc->foreign = false;
}

static void ptemu_caps_init(void)
{
	unsigned int n;

	ptemu.nr_ranges = ip_filtering ? min_t(uint, nr_ranges,
					       TB_PT_MAX_ADDR_RANGES) : 0;
	mtc_periods &= 0xffff;
	cyc_thresholds &= 0xffff;
	psb_periods &= 0xffff;

	ptemu.cap0_ebx = (cr3_filtering ? TB_PT_CAP_CR3_FILTERING : 0) |
			 (psb_cyc ? TB_PT_CAP_PSB_CYC : 0) |
			 (ip_filtering ? TB_PT_CAP_IP_FILTERING : 0) |
			 (mtc ? TB_PT_CAP_MTC : 0) |
			 (ptwrite ? TB_PT_CAP_PTWRITE : 0) |
			 (power_events ? TB_PT_CAP_POWER_EVENT : 0) |
			 (tnt_disable ? TB_PT_CAP_TNT_DISABLE : 0);
	ptemu.cap0_ecx = (topa ? TB_PT_CAP_TOPA_OUTPUT : 0) |
			 (topa && topa_multi ? TB_PT_CAP_TOPA_MULTI : 0) |
			 (single_range ? TB_PT_CAP_SINGLE_RANGE : 0);
	ptemu.cap1_eax = FIELD_PREP(TB_PT_CAP1_EAX_NR_RANGES, ptemu.nr_ranges) |
			 (mtc ? FIELD_PREP(TB_PT_CAP1_EAX_MTC_PERIODS,
					   mtc_periods) : 0);
	ptemu.cap1_ebx = psb_cyc ?
			 FIELD_PREP(TB_PT_CAP1_EBX_CYC_THRESHOLDS, cyc_thresholds) |
			 FIELD_PREP(TB_PT_CAP1_EBX_PSB_PERIODS, psb_periods) : 0;

	ptemu.ctl_valid = PTEMU_CTL_BASE;
	if (psb_cyc)
		ptemu.ctl_valid |= TB_RTIT_CTL_CYCEN | TB_RTIT_CTL_CYC_THRESH |
				   TB_RTIT_CTL_PSB_FREQ;
	if (mtc)
		ptemu.ctl_valid |= TB_RTIT_CTL_MTCEN | TB_RTIT_CTL_MTC_FREQ;
	if (ptwrite)
		ptemu.ctl_valid |= TB_RTIT_CTL_PTWEN | TB_RTIT_CTL_FUPONPTW;
	if (power_events)
		ptemu.ctl_valid |= TB_RTIT_CTL_PWREVTEN;
	if (cr3_filtering)
		ptemu.ctl_valid |= TB_RTIT_CTL_CR3EN;
	if (topa)
		ptemu.ctl_valid |= TB_RTIT_CTL_TOPA;
	if (tnt_disable)
		ptemu.ctl_valid |= TB_RTIT_CTL_DISTNT;
	for (n = 0; n < ptemu.nr_ranges; n++)
		ptemu.ctl_valid |= TB_RTIT_CTL_ADDR_CFG(n);

	ptemu.topa_rsvd = BIT_ULL(1) | BIT_ULL(3) | BIT_ULL(5) |
			  GENMASK_ULL(11, 10) |
			  GENMASK_ULL(63, boot_cpu_data.x86_phys_bits);
}

static void ptemu_debugfs_init(void)
{
	unsigned int cpu;
	char name[16];

	ptemu.dir = debugfs_create_dir("tb_ptemu", NULL);
	debugfs_create_u32("rate", 0644, ptemu.dir, &rate_kb);
	for_each_possible_cpu(cpu) {
		struct ptemu_cpu *pc = per_cpu_ptr(ptemu.pc, cpu);

		snprintf(name, sizeof(name), "cpu%u", cpu);
		pc->dir = debugfs_create_dir(name, ptemu.dir);
		debugfs_create_file("stats", 0444, pc->dir, pc, &ptemu_stats_fops);
		debugfs_create_file("regs", 0444, pc->dir, pc, &ptemu_regs_fops);
		debugfs_create_file("steal", 0200, pc->dir, pc, &ptemu_steal_fops);
		debugfs_create_file("foreign", 0200, pc->dir, pc,
				    &ptemu_foreign_fops);
		debugfs_create_file("perf", 0200, pc->dir, pc, &ptemu_perf_fops);
		debugfs_create_file("vmx", 0200, pc->dir, pc, &ptemu_vmx_fops);
		debugfs_create_file("kvm", 0200, pc->dir, pc, &ptemu_kvm_fops);
		debugfs_create_file("burst", 0200, pc->dir, pc, &ptemu_burst_fops);
		debugfs_create_file("park_end", 0200, pc->dir, pc, &ptemu_park_fops);
		ptemu_task_debugfs(pc->dir, cpu);
	}
	ptemu_follow_debugfs(ptemu.dir);
}

/*
 * Restart, halt, power-off and kexec: the reboot notifiers run with every
 * CPU online before device_shutdown() and before the other CPUs are
 * stopped (kernel/reboot.c kernel_restart_prepare(),
 * kernel_shutdown_prepare(); kernel/kexec_core.c kernel_kexec()). After
 * that, a CPU whose TraceEn is set keeps writing into pages the firmware
 * or the next kernel owns. This one runs last (INT_MIN, like perf's
 * perf_reboot() in kernel/events/core.c, which stops perf's own events),
 * so every other notifier, tracebuf's included, has run. A CPU still
 * tracing for anyone but the modelled perf or foreign owner is a
 * violation; the verdict goes to the console, the only witness left
 * (the harness reads it: tests/guest/pt_shutdown.c).
 */
static int ptemu_reboot(struct notifier_block *nb, unsigned long action, void *data)
{
	unsigned int cpu, n = 0, bad = 0;

	for_each_online_cpu(cpu) {
		struct ptemu_cpu *pc = per_cpu_ptr(ptemu.pc, cpu);

		n++;
		/* Racy reads of another CPU's state: the verdict is advisory. */
		if ((READ_ONCE(pc->ctl) & TB_RTIT_CTL_TRACEEN) &&
		    !READ_ONCE(pc->foreign) && !READ_ONCE(pc->perf.active)) {
			bad++;
			pr_warn("tb_ptemu: shutdown: VIOLATION: cpu%u still traces (CTL %#llx, OUTPUT_BASE %#llx)\n",
				cpu, READ_ONCE(pc->ctl), READ_ONCE(pc->base));
		}
	}
	if (bad)
		pr_warn("tb_ptemu: shutdown: %u of %u CPUs still tracing\n", bad, n);
	else
		pr_warn("tb_ptemu: shutdown: clean, %u CPUs checked\n", n);
	return NOTIFY_DONE;
}

static struct notifier_block ptemu_reboot_nb = {
	.notifier_call	= ptemu_reboot,
	.priority	= INT_MIN,
};

static void ptemu_free(void)
{
	unsigned int cpu;

	for_each_possible_cpu(cpu) {
		struct ptemu_cpu *pc = per_cpu_ptr(ptemu.pc, cpu);

		hrtimer_cancel(&pc->timer);
		irq_work_sync(&pc->work);
		if (pc->fpages)
			__free_pages(pc->fpages, 1);
		if (pc->kvm.pages)
			__free_pages(pc->kvm.pages, 1);
	}
	free_percpu(ptemu.pc);
	ptemu_follow_exit();
}

static int __init ptemu_init(void)
{
	unsigned int cpu;
	int ret;

	mutex_init(&ptemu.lock);
	ptemu_caps_init();
	ptemu.pc = alloc_percpu(struct ptemu_cpu);
	if (!ptemu.pc)
		return -ENOMEM;
	for_each_possible_cpu(cpu) {
		struct ptemu_cpu *pc = per_cpu_ptr(ptemu.pc, cpu);

		pc->cpu = cpu;
		pc->mask = TB_RTIT_MASK_LOWBITS;
		hrtimer_init(&pc->timer, CLOCK_MONOTONIC,
			     HRTIMER_MODE_REL_PINNED_HARD);
		pc->timer.function = ptemu_tick;
		pc->work = IRQ_WORK_INIT_HARD(ptemu_work_fn);
		/*
		 * The other owners' output, made here: perf's events schedule
		 * in with interrupts off, and tracebuf's claim at CPU online
		 * creates one under cpu_hotplug_lock.
		 */
		pc->fpages = alloc_pages(GFP_KERNEL | __GFP_ZERO | __GFP_COMP, 1);
		pc->kvm.pages = alloc_pages(GFP_KERNEL | __GFP_ZERO | __GFP_COMP, 1);
		if (!pc->fpages || !pc->kvm.pages) {
			ret = -ENOMEM;
			goto err_free;
		}
		/* The guest's ToPA: [4 KiB region with INT, END->table]. */
		((u64 *)page_address(pc->kvm.pages))[0] =
			(page_to_phys(pc->kvm.pages) + PAGE_SIZE) | TB_TOPA_INT;
		((u64 *)page_address(pc->kvm.pages))[1] =
			page_to_phys(pc->kvm.pages) | TB_TOPA_END;
		pc->kvm.mask = TB_RTIT_MASK_LOWBITS;
	}
	ret = cpuhp_setup_state_nocalls(CPUHP_AP_ONLINE_DYN, "tb_ptemu:online",
					ptemu_cpu_online, ptemu_cpu_offline);
	if (ret < 0)
		goto err_free;
	ptemu.hp_state = ret;
	ptemu_debugfs_init();
	/* After tracebuf's (NMI_FLAG_FIRST): perf's handler comes later. */
	ret = register_nmi_handler(NMI_LOCAL, ptemu_nmi, 0, "tb_ptemu");
	if (ret)
		goto err_hp;
	/* Before tracebuf offers the backend: every ENABLE finds the PMU. */
	ret = ptemu_pmu_init();
	if (ret)
		goto err_nmi;
	ret = tracebuf_pt_emulator_register(&ptemu_hw);
	if (ret)
		goto err_pmu;
	register_reboot_notifier(&ptemu_reboot_nb);
	return 0;

err_pmu:
	ptemu_pmu_exit();
err_nmi:
	unregister_nmi_handler(NMI_LOCAL, "tb_ptemu");
err_hp:
	debugfs_remove_recursive(ptemu.dir);
	cpuhp_remove_state_nocalls(ptemu.hp_state);
err_free:
	ptemu_free();
	return ret;
}

static void __exit ptemu_exit(void)
{
	unsigned int cpu;

	unregister_reboot_notifier(&ptemu_reboot_nb);
	debugfs_remove_recursive(ptemu.dir);	/* no more steal/foreign */
	tracebuf_pt_emulator_unregister(&ptemu_hw);
	/* No event is left: each pins this module (perf_init_event()). */
	ptemu_pmu_exit();
	unregister_nmi_handler(NMI_LOCAL, "tb_ptemu");
	cpus_read_lock();
	for_each_online_cpu(cpu)
		smp_call_function_single(cpu, ptemu_shutdown_ipi,
					 per_cpu_ptr(ptemu.pc, cpu), 1);
	cpus_read_unlock();
	/* A CPU going down in between runs ptemu_cpu_offline. */
	cpuhp_remove_state_nocalls(ptemu.hp_state);
	ptemu_free();
}

module_init(ptemu_init);
module_exit(ptemu_exit);
MODULE_DESCRIPTION("tracebuf tests: Intel PT register-level emulator");
MODULE_LICENSE("GPL");
