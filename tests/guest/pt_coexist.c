// SPDX-License-Identifier: GPL-2.0
/*
 * Sharing a CPU's Intel PT with perf's intel_pt. The emulator's perf-like
 * owner (tb_ptemu cpuN/perf) keeps copies of what it last wrote and skips
 * the writes its copies call redundant, as 6.1's and 6.12's
 * arch/x86/events/intel/pt.c do (pt_config_buffer, pt_config_filters,
 * STATUS cleared on an event's first start only). It counts a violation
 * when it would trace into output or filters that are not its own, over a
 * STATUS left Stopped/Error, when tracebuf clears its TraceEn, or when one
 * of its unchecked writes faults.
 *
 * Checked: tracebuf gives every register back exactly as it found it
 * after DISABLE, after munmap and after a stall on a full ring; a stop
 * while another owner traces does not touch the unit (COLLISION, the
 * owner keeps tracing); ENABLE over a tracing owner is -EBUSY.
 */
#include "ptcap.h"

#define REGS_MAX 1024

static void regs(int cpu, char *buf)
{
	char path[128];
	size_t n = 0;
	FILE *f;

	snprintf(path, sizeof(path), EMU "/cpu%d/regs", cpu);
	buf[0] = 0;
	f = fopen(path, "r");
	if (!f)
		return;
	n = fread(buf, 1, REGS_MAX - 1, f);
	buf[n] = 0;
	fclose(f);
}

static void clean(const char *when)
{
	unsigned long long v = emu_stat(CPU, "violations");

	TBT_CHECK(v == 0, "%s: %llu violations (perf_stale %llu perf_dead %llu perf_killed %llu perf_gp %llu)",
		  when, v, emu_stat(CPU, "perf_stale"), emu_stat(CPU, "perf_dead"),
		  emu_stat(CPU, "perf_killed"), emu_stat(CPU, "perf_gp"));
}

/* perf's event runs on CPU for a while and is scheduled out. */
static void perf_slice(const char *when)
{
	unsigned long long b0 = emu_stat(CPU, "foreign_bytes");
	unsigned long long t0 = emu_stat(CPU, "ticks"), e0 = emu_stat(CPU, "errors");
	unsigned long long err, stopped;
	char r[REGS_MAX];
	int i;

	TBT_CHECK(emu_knob(CPU, "perf", "1") == 0, "%s: perf in: %s", when, strerror(errno));
	TBT_CHECK(emu_stat(CPU, "perf_traceen") == 1, "%s: perf did not get TraceEn", when);
	/*
	 * Until perf's output moved, bounded: a TCG vCPU can sit out 30 ms
	 * of the other's time (seen on the debug kernel: the tick queued,
	 * not yet run), so no fixed sleep.
	 */
	for (i = 0; i < 300 && emu_stat(CPU, "foreign_bytes") == b0; i++)
		msleep(10);
	err = emu_stat(CPU, "error");
	stopped = emu_stat(CPU, "stopped");
	regs(CPU, r);
	TBT_CHECK(emu_stat(CPU, "foreign_bytes") > b0,
		  "%s: perf traced nothing in 3 s (%llu ticks, %llu errors, error %llu, stopped %llu, timer_queued %llu; regs: %s)",
		  when, emu_stat(CPU, "ticks") - t0, emu_stat(CPU, "errors") - e0, err, stopped,
		  emu_stat(CPU, "timer_queued"), r);
	TBT_CHECK(emu_knob(CPU, "perf", "0") == 0, "%s: perf out", when);
	clean(when);
}

/* Enable, trace, disable: the registers are what they were. */
static void round_trip(const char *name, int unmap_first)
{
	char before[REGS_MAX], after[REGS_MAX];
	struct sess x;

	regs(CPU, before);
	if (sess_open(&x, CPU, 65536, 16 * PAGE, 0, 16384)) {
		TBT_CHECK(0, "%s: session", name);
		return;
	}
	TBT_CHECK(ioctl(x.s.fd, TRACEBUF_IOC_ENABLE) == 0, "%s: enable: %s", name,
		  strerror(errno));
	msleep(40);
	consume(&x);
	if (unmap_first) {
		/* munmap while tracing stops the hardware and frees the tables. */
		munmap(x.aux, x.aux_size);
		x.aux = NULL;
	} else {
		TBT_CHECK(ioctl(x.s.fd, TRACEBUF_IOC_DISABLE) == 0, "%s: disable", name);
		consume(&x);
	}
	TBT_CHECK(emu_stat(CPU, "traceen") == 0, "%s: TraceEn left set", name);
	regs(CPU, after);
	TBT_CHECK(!strcmp(before, after), "%s: registers not given back:\n%s--- now:\n%s",
		  name, before, after);
	sess_close(&x);
	perf_slice(name);
}

/*
 * A stall on a full ring gives the registers back; perf, scheduled in
 * meanwhile, traces into its own buffer; DISABLE leaves perf's trace
 * alone and reports the collision.
 */
static void stalled(void)
{
	struct pollfd p;
	struct sess x;
	int i;

	if (sess_open(&x, CPU, 65536, 4 * PAGE, 0, 8192)) {
		TBT_CHECK(0, "stalled: session");
		return;
	}
	TBT_CHECK(ioctl(x.s.fd, TRACEBUF_IOC_ENABLE) == 0, "stalled: enable");
	for (i = 0; i < 300 && emu_stat(CPU, "traceen") != 0; i++)
		msleep(10);
	TBT_CHECK(emu_stat(CPU, "traceen") == 0, "stalled: never stalled");
	TBT_CHECK(x.s.ctl->flags & TRACEBUF_CTL_F_ENABLED, "stalled: not enabled");
	TBT_CHECK(emu_knob(CPU, "perf", "1") == 0, "stalled: perf in");
	TBT_CHECK(emu_stat(CPU, "perf_traceen") == 1, "stalled: perf has no TraceEn");
	clean("perf in while tracebuf stalls");
	TBT_CHECK(ioctl(x.s.fd, TRACEBUF_IOC_DISABLE) == 0, "stalled: disable");
	TBT_CHECK(emu_stat(CPU, "perf_traceen") == 1 && emu_stat(CPU, "traceen") == 1,
		  "stalled: DISABLE stopped perf's trace");
	clean("DISABLE while perf traces");
	consume(&x);
	TBT_CHECK(x.collision >= 1, "stalled: no COLLISION span");
	p.fd = x.s.fd;
	p.events = POLLIN;
	TBT_CHECK(poll(&p, 1, 0) >= 0, "poll");
	sess_close(&x);
	/* While perf traces, tracebuf does not start. */
	{
		struct sess y;

		if (sess_open(&y, CPU, 65536, 16 * PAGE, 0, 16384) == 0) {
			TBT_ERRNO(ioctl(y.s.fd, TRACEBUF_IOC_ENABLE), EBUSY);
			sess_close(&y);
		} else {
			TBT_CHECK(0, "busy: session");
		}
	}
	TBT_CHECK(emu_knob(CPU, "perf", "0") == 0, "stalled: perf out");
	clean("perf out");
	perf_slice("after the stall");
}

int main(void)
{
	unsigned long long gps;

	setvbuf(stdout, NULL, _IONBF, 0);
	if (!HAVE_PT) {
		printf("no PT emulator on this architecture\n");
		return 77;
	}
	if (tbt_modprobe("tracebuf") || tbt_modprobe("tb_ptemu"))
		return 1;
	TBT_CHECK(write_file(EMU "/rate", "8192") == 0, "emulator rate");
	/* The probe may read MSRs the emulator does not model (-EIO): count from here. */
	gps = emu_stat(CPU, "gps");
	/* perf traced here first: its copies hold its own values. */
	perf_slice("perf alone");
	round_trip("disable", 0);
	round_trip("munmap", 1);
	stalled();
	TBT_CHECK(emu_stat(CPU, "gps") == gps, "%llu faulting accesses by tracebuf, the last MSR %#llx value %#llx",
		  emu_stat(CPU, "gps") - gps, emu_stat(CPU, "gp_msr"), emu_stat(CPU, "gp_val"));
	TBT_CHECK(tbt_rmmod("tb_ptemu") == 0, "rmmod tb_ptemu");
	return tbt_done();
}
