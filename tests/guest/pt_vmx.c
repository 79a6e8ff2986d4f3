// SPDX-License-Identifier: GPL-2.0
/*
 * Intel PT and VMX (issue 14 item 5), against the emulator's model of
 * VMX operation (tb_ptemu cpuN/vmx: VMXON/VMXOFF, IA32_VMX_MISC[14] from
 * the vmx_pt parameter, SDM vol. 3D A.6) and of a KVM guest tracing with
 * PT, kvm_intel pt_mode=1 (cpuN/kvm: VM entries and exits that swap the
 * RTIT state as arch/x86/kvm/vmx/vmx.c does, the guest's ToPA PMI
 * delivered as an NMI that perf's handler must hand to KVM).
 *
 * Checked, on a CPU that cannot trace in VMX operation (vmx_pt=0):
 *  - GET_CAPS says so (TRACEBUF_PT_CAP_NO_VMX_TRACE);
 *  - ENABLE in VMX operation is -EOPNOTSUPP (no faulting WRMSR), the
 *    other CPU is unaffected;
 *  - VMXON while tracing: what was written is published in a span
 *    flagged PARTIAL, no COLLISION, no error state, ENABLED stays; the
 *    backend never tries to set TraceEn in VMX operation; after VMXOFF
 *    tracing resumes by itself;
 * and on a CPU that can (vmx_pt=1), with a KVM guest tracing there:
 *  - ENABLE works in VMX operation;
 *  - every guest PMI reaches KVM (none acknowledged by tracebuf), with
 *    the NMI handled before pt_guest_exit() (6.12) and after it (6.1);
 *  - spans published while VMX is on are PARTIAL, later ones not;
 *  - tracebuf still claims every PMI of its own.
 * Every byte the emulator wrote for the host is published, the captures
 * decode on the host (ptcheck), no emulator violation, no faulting access.
 */
#include "ptcap.h"

#define PARAMS	"/sys/module/tb_ptemu/parameters/"

static int caps_no_vmx(struct sess *x, int cpu)
{
	struct tracebuf_pt_caps c;

	memset(&c, 0, sizeof(c));
	if (tracebuf_get_caps(&x->s, "intel_pt", cpu, &c, sizeof(c)) < 0)
		return -1;
	return !!(c.flags & TRACEBUF_PT_CAP_NO_VMX_TRACE);
}

static short revents(struct sess *x)
{
	struct pollfd p = { .fd = x->s.fd, .events = POLLIN };

	return poll(&p, 1, 0) > 0 ? p.revents : 0;
}

static int enabled_flag(struct sess *x)
{
	return !!(__atomic_load_n(&x->s.ctl->flags, __ATOMIC_ACQUIRE) & TRACEBUF_CTL_F_ENABLED);
}

static void clean(int cpu, const char *when)
{
	unsigned long long v = emu_stat(cpu, "violations");

	TBT_CHECK(v == 0, "%s: cpu%d: %llu violations (kvm_stolen %llu perf_gp %llu freed %llu)",
		  when, cpu, v, emu_stat(cpu, "kvm_stolen"), emu_stat(cpu, "perf_gp"),
		  emu_stat(cpu, "freed"));
}

/* Every byte the emulator wrote for the host was published, and nothing lost. */
static void identity(struct sess *x, unsigned long long w0, const char *name)
{
	unsigned long long w1 = emu_stat(CPU, "bytes_written");

	printf("%s: %llu spans (%llu PARTIAL), %llu bytes published, emulator wrote %llu\n",
	       name, (unsigned long long)x->spans, (unsigned long long)x->partial,
	       (unsigned long long)x->published, w1 - w0);
	TBT_CHECK(x->published == w1 - w0 + x->s.ctl->aux_padding,
		  "%s: published %llu != written %llu + padding %llu", name,
		  (unsigned long long)x->published, w1 - w0,
		  (unsigned long long)x->s.ctl->aux_padding);
	TBT_CHECK(x->lost == 0 && x->truncated == 0 && x->collision == 0,
		  "%s: lost %llu, truncated %llu, collisions %llu", name,
		  (unsigned long long)x->lost, (unsigned long long)x->truncated,
		  (unsigned long long)x->collision);
}

static int load_emu(const char *arg)
{
	const char *argv[] = { "modprobe", "tb_ptemu", arg, NULL };

	if (tbt_module_loaded("tb_ptemu"))
		TBT_CHECK(tbt_rmmod("tb_ptemu") == 0, "rmmod tb_ptemu");
	if (tbt_run(argv)) {
		TBT_CHECK(0, "modprobe tb_ptemu %s", arg);
		return -1;
	}
	TBT_CHECK(write_file(EMU "/rate", "256") == 0, "emulator rate");
	return 0;
}

/* Consume for ms, in 10 ms steps, until cond() or the time is up. */
static int consume_until(struct sess *x, int ms, int (*cond)(struct sess *x))
{
	int t;

	for (t = 0; t < ms; t += 10) {
		consume(x);
		if (cond && cond(x))
			return 1;
		msleep(10);
	}
	consume(x);
	return cond ? cond(x) : 1;
}

static int has_partial(struct sess *x)
{
	return x->partial > 0;
}

static uint64_t partial_base;

static int more_partial(struct sess *x)
{
	return x->partial > partial_base;
}

/* vmx_pt=0: the CPU cannot trace in VMX operation. */
static void test_no_vmx_trace(void)
{
	unsigned long long gps, w0, p0, d0, e0;
	uint64_t partial;
	struct sess x, y;

	if (load_emu("vmx_pt=0"))
		return;
	gps = emu_stat(CPU, "gps");
	if (sess_open(&x, CPU, 65536, 64 * PAGE, 0, 16 * PAGE) ||
	    sess_open(&y, 0, 65536, 16 * PAGE, 0, 8 * PAGE)) {
		TBT_CHECK(0, "no vmx trace: sessions");
		return;
	}
	TBT_CHECK(caps_no_vmx(&x, CPU) == 1, "GET_CAPS: NO_VMX_TRACE not set with vmx_pt=0");
	TBT_CHECK(emu_knob(CPU, "vmx", "1") == 0, "VMXON");
	TBT_ERRNO(ioctl(x.s.fd, TRACEBUF_IOC_ENABLE), EOPNOTSUPP);
	TBT_CHECK(!enabled_flag(&x), "ENABLED after a refused ENABLE");
	TBT_CHECK(ioctl(y.s.fd, TRACEBUF_IOC_ENABLE) == 0, "cpu0 is not in VMX operation: %s",
		  strerror(errno));
	TBT_CHECK(ioctl(y.s.fd, TRACEBUF_IOC_DISABLE) == 0, "disable cpu0");
	sess_close(&y);
	TBT_CHECK(emu_knob(CPU, "vmx", "0") == 0, "VMXOFF");

	cap_open(&x, "vmx_pause");
	w0 = emu_stat(CPU, "bytes_written");
	p0 = emu_stat(CPU, "ptw_seq");
	d0 = emu_stat(CPU, "ptw_dropped");
	TBT_CHECK(ioctl(x.s.fd, TRACEBUF_IOC_ENABLE) == 0, "enable: %s", strerror(errno));
	consume_until(&x, 100, NULL);
	/*
	 * VMXON clears TraceEn: what its run wrote is published PARTIAL, no
	 * collision, no error. If that run wrote nothing (a drain just
	 * before VMXON), the first span after VMXOFF is PARTIAL instead.
	 */
	TBT_CHECK(emu_knob(CPU, "vmx", "1") == 0, "VMXON while tracing");
	consume_until(&x, 100, has_partial);
	consume_until(&x, 100, NULL);	/* several drains in VMX operation */
	TBT_CHECK(emu_stat(CPU, "traceen") == 0, "tracing in VMX operation");
	TBT_CHECK(!(revents(&x) & POLLERR), "EPOLLERR after VMXON");
	TBT_CHECK(enabled_flag(&x), "ENABLED cleared by VMXON");
	TBT_CHECK(x.collision == 0, "VMXON reported as a collision");
	TBT_CHECK(emu_stat(CPU, "gps") == gps,
		  "%llu faulting accesses in VMX operation (the last: MSR %#llx value %#llx)",
		  emu_stat(CPU, "gps") - gps, emu_stat(CPU, "gp_msr"), emu_stat(CPU, "gp_val"));
	/* VMXOFF: it resumes by itself. */
	e0 = emu_stat(CPU, "enables");
	TBT_CHECK(emu_knob(CPU, "vmx", "0") == 0, "VMXOFF while enabled");
	consume_until(&x, 200, NULL);
	TBT_CHECK(emu_stat(CPU, "enables") > e0, "tracing did not resume after VMXOFF");
	TBT_CHECK(consume_until(&x, 3000, has_partial),
		  "no PARTIAL span for the VMX stop (at VMXON's drain, or the first after VMXOFF)");
	/*
	 * The same with nothing written between the last drain and VMXON
	 * (the emulator's rate at 0, drains in between): VMXON's drain has
	 * nothing to publish, and the first span after VMXOFF must be
	 * PARTIAL (the trace has a gap there). It was not, once.
	 */
	consume_until(&x, 300, NULL);
	TBT_CHECK(write_file(EMU "/rate", "0") == 0, "emulator rate 0");
	consume_until(&x, 200, NULL);
	partial = x.partial;
	TBT_CHECK(emu_knob(CPU, "vmx", "1") == 0, "VMXON, nothing written");
	consume_until(&x, 200, NULL);
	TBT_CHECK(x.partial == partial, "a PARTIAL span though nothing was written before VMXON");
	TBT_CHECK(emu_knob(CPU, "vmx", "0") == 0, "VMXOFF");
	TBT_CHECK(write_file(EMU "/rate", "256") == 0, "emulator rate");
	partial_base = partial;
	TBT_CHECK(consume_until(&x, 3000, more_partial),
		  "the first span after a VMX stop whose run wrote nothing is not PARTIAL");
	TBT_CHECK(ioctl(x.s.fd, TRACEBUF_IOC_DISABLE) == 0, "disable");
	consume(&x);
	cap_emu("vmx_pause", p0, emu_stat(CPU, "ptw_seq"), emu_stat(CPU, "ptw_dropped") - d0, 0);
	identity(&x, w0, "vmx_pause");
	TBT_CHECK(emu_stat(CPU, "gps") == gps, "%llu faulting accesses",
		  emu_stat(CPU, "gps") - gps);
	sess_close(&x);
	clean(CPU, "no vmx trace");
}

/* KVM guest cycles, n at a time, consuming in between. */
static void kvm_run(struct sess *x, int cycles, const char *order)
{
	int i;

	TBT_CHECK(write_file(PARAMS "kvm_order", order) == 0, "kvm_order %s", order);
	for (i = 0; i < cycles; i += 50) {
		TBT_CHECK(emu_knob(CPU, "kvm", "50") == 0, "KVM guest cycles: %s", strerror(errno));
		consume_until(x, 20, NULL);
	}
}

/* vmx_pt=1 and a KVM guest tracing with PT on CPU 1. */
static void test_kvm_guest(void)
{
	unsigned long long gps, w0, p0, d0, k0, un0;
	uint64_t partial;
	struct sess x;

	if (load_emu("vmx_pt=1"))
		return;
	gps = emu_stat(CPU, "gps");
	un0 = emu_stat(CPU, "pmis_unattributed");
	/* A watermark of a page: INT on the current region, PMIs between drains. */
	if (sess_open(&x, CPU, 65536, 64 * PAGE, 0, PAGE)) {
		TBT_CHECK(0, "kvm: session");
		return;
	}
	TBT_CHECK(caps_no_vmx(&x, CPU) == 0, "GET_CAPS: NO_VMX_TRACE set with vmx_pt=1");
	/* Faster than the drains move the INT marker: PMIs of its own. */
	TBT_CHECK(write_file(EMU "/rate", "4096") == 0, "emulator rate");
	TBT_CHECK(emu_knob(CPU, "vmx", "1") == 0, "VMXON");
	cap_open(&x, "vmx_kvm");
	w0 = emu_stat(CPU, "bytes_written");
	p0 = emu_stat(CPU, "ptw_seq");
	d0 = emu_stat(CPU, "ptw_dropped");
	k0 = emu_stat(CPU, "kvm_pmis");
	TBT_CHECK(ioctl(x.s.fd, TRACEBUF_IOC_ENABLE) == 0, "enable in VMX operation: %s",
		  strerror(errno));
	/* Guest PMIs handled after pt_guest_exit() (6.1), then before it (6.12). */
	kvm_run(&x, 400, "1");
	kvm_run(&x, 400, "2");
	printf("kvm: %llu guest cycles, %llu guest PMIs to KVM, %llu stolen, %llu masked\n",
	       emu_stat(CPU, "kvm_cycles"), emu_stat(CPU, "kvm_pmis") - k0,
	       emu_stat(CPU, "kvm_stolen"), emu_stat(CPU, "kvm_masked"));
	/* 800 entries of 1 KiB into a 4 KiB INT region: a PMI every 4. */
	TBT_CHECK(emu_stat(CPU, "kvm_pmis") - k0 >= 190, "only %llu guest PMIs reached KVM",
		  emu_stat(CPU, "kvm_pmis") - k0);
	TBT_CHECK(emu_stat(CPU, "kvm_stolen") == 0, "%llu guest PMIs acknowledged by tracebuf",
		  emu_stat(CPU, "kvm_stolen"));
	TBT_CHECK(emu_stat(CPU, "kvm_masked") == 0, "%llu guest PMIs masked",
		  emu_stat(CPU, "kvm_masked"));
	consume_until(&x, 50, NULL);
	TBT_CHECK(x.partial > 0, "no PARTIAL span while a guest ran");
	TBT_CHECK(!(revents(&x) & POLLERR), "EPOLLERR with a KVM guest");
	/* VMXOFF: after two drains, spans are whole again. */
	TBT_CHECK(emu_knob(CPU, "vmx", "0") == 0, "VMXOFF");
	consume_until(&x, 100, NULL);
	partial = x.partial;
	consume_until(&x, 300, NULL);
	TBT_CHECK(x.partial == partial, "%llu PARTIAL spans after VMXOFF",
		  (unsigned long long)(x.partial - partial));
	TBT_CHECK(ioctl(x.s.fd, TRACEBUF_IOC_DISABLE) == 0, "disable");
	consume(&x);
	cap_emu("vmx_kvm", p0, emu_stat(CPU, "ptw_seq"), emu_stat(CPU, "ptw_dropped") - d0, 0);
	identity(&x, w0, "vmx_kvm");
	/* Each PMI of tracebuf's own output was claimed by tracebuf. */
	TBT_CHECK(emu_stat(CPU, "pmis_unattributed") == un0,
		  "%llu PMIs of tracebuf's output left to perf's handler",
		  emu_stat(CPU, "pmis_unattributed") - un0);
	TBT_CHECK(emu_stat(CPU, "pmis") > 0, "no PMI of tracebuf's output");
	TBT_CHECK(emu_stat(CPU, "gps") == gps, "%llu faulting accesses (the last: MSR %#llx)",
		  emu_stat(CPU, "gps") - gps, emu_stat(CPU, "gp_msr"));
	sess_close(&x);
	clean(CPU, "kvm guest");
}

int main(void)
{
	setvbuf(stdout, NULL, _IONBF, 0);
	if (!HAVE_PT) {
		printf("no PT emulator on this architecture\n");
		return 77;
	}
	if (tbt_modprobe("tracebuf"))
		return 1;
	test_no_vmx_trace();
	test_kvm_guest();
	TBT_CHECK(tbt_rmmod("tb_ptemu") == 0, "rmmod tb_ptemu");
	return tbt_done();
}
