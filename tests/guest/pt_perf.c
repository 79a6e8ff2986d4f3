// SPDX-License-Identifier: GPL-2.0
/*
 * Exclusive ownership of Intel PT that perf honours (issue 14 item 2),
 * through perf_event_open(2) on the emulator's intel_pt PMU (tb_ptemu
 * registers one with the capabilities of arch/x86/events/intel/pt.c; its
 * events drive the emulator's perf model of pt.c).
 *
 * Checked:
 *  - while a session is enabled on CPU 1, perf refuses intel_pt events
 *    that could run there with EBUSY: per-task ones (on any CPU) and
 *    CPU-wide ones on CPU 1; a CPU-wide one on CPU 0 is free and traces;
 *  - the other way round: a CPU-wide event on CPU 1 makes ENABLE there
 *    EBUSY (CPU 0 is free); an existing per-task event makes ENABLE EBUSY
 *    on every CPU, also while its task runs elsewhere (TraceEn clear);
 *  - DISABLE, close and the AUX munmap give the unit back;
 *  - an unprivileged ENABLE works with perf_event_paranoid at 3 (tracebuf's
 *    paranoid 0 without capabilities, and its default with CAP_PERFMON);
 *  - the claim comes back after CPU 1 goes offline and online (tracing
 *    resumes, perf is still refused);
 *  - perf taking the unit while CPU 1 is offline (a per-task event made
 *    then): at online the session does not restart, EPOLLERR, ENABLED
 *    clear; DISABLE, then ENABLE once perf let go;
 *  - without an intel_pt PMU (tb_ptemu perf_pmu=0) nothing is claimed;
 *  - zero emulator violations (no perf write ever faulted on tracebuf's
 *    TraceEn, none cleared it) and no faulting access by tracebuf.
 */
#include <linux/capability.h>
#include <linux/perf_event.h>
#include <grp.h>
#include <sched.h>
#include <sys/prctl.h>

#include "ptcap.h"

#ifndef CAP_PERFMON
#define CAP_PERFMON	38
#endif

#define PT_TYPE		"/sys/bus/event_source/devices/intel_pt/type"
#define PERF_PARANOID	"/proc/sys/kernel/perf_event_paranoid"
#define TB_PARANOID	"/sys/module/tracebuf/parameters/paranoid"
#define NOBODY		65534

static int pt_type = -1;

static long read_long(const char *path)
{
	char buf[32] = "";
	FILE *f = fopen(path, "r");
	long v = -1000;

	if (!f)
		return v;
	if (fgets(buf, sizeof(buf), f))
		v = strtol(buf, NULL, 10);
	fclose(f);
	return v;
}

static void write_long(const char *path, long v)
{
	char val[32];

	snprintf(val, sizeof(val), "%ld", v);
	TBT_CHECK(write_file(path, val) == 0 && read_long(path) == v, "%s = %ld", path, v);
}

/* perf_event_open(2) of an intel_pt event: pid 0 = this task, -1 = CPU-wide. */
static int perf_pt(int pid, int cpu)
{
	struct perf_event_attr a;

	memset(&a, 0, sizeof(a));
	a.type = pt_type;
	a.size = sizeof(a);
	return syscall(SYS_perf_event_open, &a, pid, cpu, -1, 0);
}

/* Expect perf_event_open to fail with EBUSY. */
static void perf_refused(int pid, int cpu, const char *when)
{
	int fd = perf_pt(pid, cpu);

	TBT_CHECK(fd < 0 && errno == EBUSY, "%s: perf_event_open(pid %d, cpu %d): %s, want EBUSY",
		  when, pid, cpu, fd < 0 ? strerror(errno) : "opened");
	if (fd >= 0)
		close(fd);
}

/* Expect it to work; the event is closed again. */
static void perf_allowed(int pid, int cpu, const char *when)
{
	int fd = perf_pt(pid, cpu);

	TBT_CHECK(fd >= 0, "%s: perf_event_open(pid %d, cpu %d): %s", when, pid, cpu,
		  strerror(errno));
	if (fd >= 0)
		close(fd);
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

static int open_on(struct sess *x, int cpu, const char *when)
{
	int ret = sess_open(x, cpu, 65536, 64 * PAGE, 0, 32 * PAGE);

	TBT_CHECK(ret == 0, "%s: session on cpu%d: %s", when, cpu, strerror(errno));
	return ret;
}

static void clean(int cpu, const char *when)
{
	unsigned long long v = emu_stat(cpu, "violations");

	TBT_CHECK(v == 0, "%s: cpu%d: %llu violations (perf_stale %llu perf_dead %llu perf_killed %llu perf_gp %llu freed %llu)",
		  when, cpu, v, emu_stat(cpu, "perf_stale"), emu_stat(cpu, "perf_dead"),
		  emu_stat(cpu, "perf_killed"), emu_stat(cpu, "perf_gp"), emu_stat(cpu, "freed"));
}

/* While tracebuf traces CPU 1, perf's intel_pt is refused where it could run there. */
static void test_perf_refused(void)
{
	struct sess x;
	int fd, i;

	if (open_on(&x, CPU, "perf refused"))
		return;
	TBT_CHECK(ioctl(x.s.fd, TRACEBUF_IOC_ENABLE) == 0, "enable: %s", strerror(errno));
	perf_refused(0, -1, "enabled: per-task");
	perf_refused(0, CPU, "enabled: per-task on cpu1");
	perf_refused(0, 0, "enabled: per-task on cpu0");
	perf_refused(-1, CPU, "enabled: CPU-wide on cpu1");
	/* The other CPU is free, and perf traces there. */
	fd = perf_pt(-1, 0);
	TBT_CHECK(fd >= 0, "enabled: CPU-wide on cpu0: %s", strerror(errno));
	TBT_CHECK(emu_stat(0, "perf_traceen") == 1, "perf's event on cpu0 does not trace");
	if (fd >= 0)
		close(fd);
	TBT_CHECK(emu_stat(0, "perf_active") == 0, "perf's event on cpu0 still in after close");
	TBT_CHECK(emu_stat(CPU, "traceen") == 1 || emu_stat(CPU, "enables") > 0,
		  "tracebuf does not trace cpu1");

	/* DISABLE gives the unit back; ENABLE takes it again. */
	TBT_CHECK(ioctl(x.s.fd, TRACEBUF_IOC_DISABLE) == 0, "disable");
	perf_allowed(-1, CPU, "disabled: CPU-wide on cpu1");
	perf_allowed(0, -1, "disabled: per-task");
	TBT_CHECK(ioctl(x.s.fd, TRACEBUF_IOC_ENABLE) == 0, "enable again: %s", strerror(errno));
	perf_refused(-1, CPU, "enabled again: CPU-wide on cpu1");

	/* The AUX munmap gives it back (a work item: bounded wait). */
	munmap(x.aux, x.aux_size);
	x.aux = NULL;
	for (i = 0; i < 300; i++) {
		fd = perf_pt(-1, CPU);
		if (fd >= 0 || errno != EBUSY)
			break;
		msleep(10);
	}
	TBT_CHECK(fd >= 0, "after the AUX munmap: CPU-wide on cpu1: %s", strerror(errno));
	if (fd >= 0)
		close(fd);
	/* A new AUX area, ENABLE; then close gives the unit back at once. */
	TBT_CHECK(map_aux(&x, 64 * PAGE, 0) == 0, "remap AUX");
	TBT_CHECK(ioctl(x.s.fd, TRACEBUF_IOC_ENABLE) == 0, "enable after remap: %s",
		  strerror(errno));
	perf_refused(0, -1, "enabled after remap: per-task");
	sess_close(&x);
	perf_allowed(-1, CPU, "closed: CPU-wide on cpu1");
	perf_allowed(0, -1, "closed: per-task");
	clean(0, "perf refused");
	clean(CPU, "perf refused");
}

/* While perf has an intel_pt event that can run on a CPU, ENABLE there is EBUSY. */
static void test_tracebuf_refused(void)
{
	struct sess x, y;
	int fd;

	if (open_on(&x, CPU, "tracebuf refused"))
		return;
	if (open_on(&y, 0, "tracebuf refused")) {
		sess_close(&x);
		return;
	}
	fd = perf_pt(-1, CPU);
	TBT_CHECK(fd >= 0, "CPU-wide perf on cpu1: %s", strerror(errno));
	TBT_CHECK(emu_stat(CPU, "perf_traceen") == 1, "perf's event on cpu1 does not trace");
	TBT_ERRNO(ioctl(x.s.fd, TRACEBUF_IOC_ENABLE), EBUSY);
	TBT_CHECK(!enabled_flag(&x), "ENABLED set after EBUSY");
	TBT_CHECK(ioctl(y.s.fd, TRACEBUF_IOC_ENABLE) == 0, "cpu0 is free: %s", strerror(errno));
	TBT_CHECK(ioctl(y.s.fd, TRACEBUF_IOC_DISABLE) == 0, "disable cpu0");
	if (fd >= 0)
		close(fd);
	TBT_CHECK(ioctl(x.s.fd, TRACEBUF_IOC_ENABLE) == 0, "perf closed: enable: %s",
		  strerror(errno));
	TBT_CHECK(ioctl(x.s.fd, TRACEBUF_IOC_DISABLE) == 0, "disable");

	/*
	 * A per-task event of this task (which runs on CPU 0 only): CPU 1's
	 * TraceEn is clear, yet perf may schedule it there at any time.
	 */
	fd = perf_pt(0, -1);
	TBT_CHECK(fd >= 0, "per-task perf: %s", strerror(errno));
	TBT_CHECK(emu_stat(CPU, "traceen") == 0, "cpu1 traces with no session");
	TBT_ERRNO(ioctl(x.s.fd, TRACEBUF_IOC_ENABLE), EBUSY);
	TBT_ERRNO(ioctl(y.s.fd, TRACEBUF_IOC_ENABLE), EBUSY);
	if (fd >= 0)
		close(fd);
	TBT_CHECK(ioctl(x.s.fd, TRACEBUF_IOC_ENABLE) == 0, "per-task perf closed: enable: %s",
		  strerror(errno));
	sess_close(&x);
	sess_close(&y);
	clean(0, "tracebuf refused");
	clean(CPU, "tracebuf refused");
}

/* CPU 1 offline and online: tracing resumes and perf is still refused. */
static void test_hotplug(void)
{
	unsigned long long e0;
	struct sess x;

	if (open_on(&x, CPU, "hotplug"))
		return;
	TBT_CHECK(ioctl(x.s.fd, TRACEBUF_IOC_ENABLE) == 0, "hotplug: enable: %s", strerror(errno));
	consume(&x);
	TBT_CHECK(set_online(CPU, 0) == 0, "cpu1 offline");
	consume(&x);
	e0 = emu_stat(CPU, "enables");
	TBT_CHECK(set_online(CPU, 1) == 0, "cpu1 online");
	TBT_CHECK(emu_stat(CPU, "enables") > e0, "tracing did not resume on cpu1");
	TBT_CHECK(!(revents(&x) & POLLERR), "EPOLLERR after a plain offline/online");
	TBT_CHECK(enabled_flag(&x), "ENABLED clear after a plain offline/online");
	perf_refused(-1, CPU, "after online: CPU-wide on cpu1");
	perf_refused(0, -1, "after online: per-task");
	TBT_CHECK(ioctl(x.s.fd, TRACEBUF_IOC_DISABLE) == 0, "hotplug: disable");
	perf_allowed(-1, CPU, "hotplug: disabled: CPU-wide on cpu1");
	sess_close(&x);
	clean(CPU, "hotplug");
}

/* perf takes the unit while CPU 1 is offline: the session errs at online. */
static void test_taken_offline(void)
{
	struct sess x;
	int fd;

	if (open_on(&x, CPU, "taken offline"))
		return;
	TBT_CHECK(ioctl(x.s.fd, TRACEBUF_IOC_ENABLE) == 0, "taken: enable: %s", strerror(errno));
	TBT_CHECK(set_online(CPU, 0) == 0, "cpu1 offline");
	/* The claim is released while the CPU is offline (pt_claim.c). */
	fd = perf_pt(0, -1);
	TBT_CHECK(fd >= 0, "per-task perf while cpu1 is offline: %s", strerror(errno));
	TBT_CHECK(set_online(CPU, 1) == 0, "cpu1 online");
	TBT_CHECK(revents(&x) & POLLERR, "no EPOLLERR: the session restarted under perf");
	TBT_CHECK(!enabled_flag(&x), "ENABLED still set with no CPU tracing");
	TBT_CHECK(emu_stat(CPU, "traceen") == 0 || emu_stat(CPU, "perf_traceen") == 1,
		  "cpu1 traces for tracebuf under perf's event");
	TBT_ERRNO(ioctl(x.s.fd, TRACEBUF_IOC_ENABLE), EALREADY);
	TBT_CHECK(ioctl(x.s.fd, TRACEBUF_IOC_DISABLE) == 0, "taken: disable");
	TBT_CHECK(!(revents(&x) & POLLERR), "EPOLLERR after DISABLE");
	TBT_ERRNO(ioctl(x.s.fd, TRACEBUF_IOC_ENABLE), EBUSY);
	if (fd >= 0)
		close(fd);
	TBT_CHECK(ioctl(x.s.fd, TRACEBUF_IOC_ENABLE) == 0, "perf let go: enable: %s",
		  strerror(errno));
	TBT_CHECK(enabled_flag(&x), "ENABLED clear after ENABLE");
	sess_close(&x);
	clean(0, "taken offline");
	clean(CPU, "taken offline");
}

/* ---- unprivileged: uid 65534 with chosen capabilities ---- */

static int become(uint64_t caps)
{
	struct __user_cap_header_struct hdr = { _LINUX_CAPABILITY_VERSION_3, 0 };
	struct __user_cap_data_struct d[2];

	if (prctl(PR_SET_KEEPCAPS, 1, 0, 0, 0) || setgroups(0, NULL) ||
	    setresgid(NOBODY, NOBODY, NOBODY) || setresuid(NOBODY, NOBODY, NOBODY))
		return -1;
	memset(d, 0, sizeof(d));
	d[0].permitted = d[0].effective = (uint32_t)caps;
	d[1].permitted = d[1].effective = (uint32_t)(caps >> 32);
	return syscall(SYS_capset, &hdr, d) ? -1 : 0;
}

/*
 * A child as nobody with caps ENABLEs CPU 1; while it holds it, the parent
 * checks perf is refused there; then the child disables and exits.
 */
static void unpriv_enable(uint64_t caps, const char *what)
{
	int r[2], g[2], st = -1;
	char c = 0;
	pid_t pid;

	if (pipe(r) || pipe(g)) {
		TBT_CHECK(0, "%s: pipe", what);
		return;
	}
	fflush(stdout);
	pid = fork();
	if (pid == 0) {
		struct sess x;
		int ok;

		close(r[0]);
		close(g[1]);
		if (become(caps)) {
			printf("not ok: %s: cannot become nobody: %s\n", what, strerror(errno));
			_exit(2);
		}
		if (sess_open(&x, CPU, 65536, 16 * PAGE, 0, 8 * PAGE)) {
			printf("not ok: %s: session: %s\n", what, strerror(errno));
			_exit(3);
		}
		ok = ioctl(x.s.fd, TRACEBUF_IOC_ENABLE) == 0;
		if (!ok)
			printf("not ok: %s: ENABLE: %s\n", what, strerror(errno));
		c = ok ? 'e' : 'f';
		if (write(r[1], &c, 1) != 1 || read(g[0], &c, 1) != 1)
			_exit(4);
		if (ok && ioctl(x.s.fd, TRACEBUF_IOC_DISABLE))
			ok = 0;
		sess_close(&x);
		_exit(ok ? 0 : 1);
	}
	close(r[1]);
	close(g[0]);
	TBT_CHECK(pid > 0, "%s: fork", what);
	if (pid > 0 && read(r[0], &c, 1) == 1 && c == 'e')
		perf_refused(-1, CPU, what);
	c = 'g';
	if (write(g[1], &c, 1) != 1)
		c = 0;
	if (pid > 0)
		waitpid(pid, &st, 0);
	TBT_CHECK(WIFEXITED(st) && WEXITSTATUS(st) == 0, "%s: child status %#x", what, st);
	close(r[0]);
	close(g[1]);
	perf_allowed(-1, CPU, what);
}

static void test_unprivileged(void)
{
	long perf_par = read_long(PERF_PARANOID), tb_par = read_long(TB_PARANOID);
	struct stat st;

	if (perf_par == -1000 || tb_par == -1000 || stat("/dev/tracebuf", &st)) {
		TBT_CHECK(0, "unprivileged: cannot read %s or %s", PERF_PARANOID, TB_PARANOID);
		return;
	}
	TBT_CHECK(chmod("/dev/tracebuf", 0666) == 0, "chmod /dev/tracebuf");
	/* perf allows nobody nothing CPU-wide; tracebuf's own rule is the gate. */
	write_long(PERF_PARANOID, 3);
	write_long(TB_PARANOID, 0);
	unpriv_enable(0, "unprivileged, tracebuf paranoid 0, perf paranoid 3");
	write_long(TB_PARANOID, 2);
	unpriv_enable(1ULL << CAP_PERFMON, "CAP_PERFMON, tracebuf paranoid 2, perf paranoid 3");
	write_long(TB_PARANOID, tb_par);
	write_long(PERF_PARANOID, perf_par);
	TBT_CHECK(chmod("/dev/tracebuf", st.st_mode & 07777) == 0, "chmod back");
}

/* No intel_pt PMU: nothing to claim, tracing works. */
static void test_no_pmu(void)
{
	struct sess x;

	TBT_CHECK(tbt_rmmod("tb_ptemu") == 0, "rmmod tb_ptemu");
	{
		const char *argv[] = { "modprobe", "tb_ptemu", "perf_pmu=0", NULL };

		TBT_CHECK(tbt_run(argv) == 0, "modprobe tb_ptemu perf_pmu=0");
	}
	TBT_CHECK(access(PT_TYPE, F_OK) != 0, "an intel_pt PMU without the emulator's");
	if (open_on(&x, CPU, "no PMU"))
		return;
	TBT_CHECK(ioctl(x.s.fd, TRACEBUF_IOC_ENABLE) == 0, "no PMU: enable: %s", strerror(errno));
	TBT_CHECK(ioctl(x.s.fd, TRACEBUF_IOC_DISABLE) == 0, "no PMU: disable");
	sess_close(&x);
	TBT_CHECK(tbt_rmmod("tb_ptemu") == 0, "rmmod tb_ptemu (perf_pmu=0)");
}

int main(void)
{
	unsigned long long gps0, gps1;
	cpu_set_t set;

	setvbuf(stdout, NULL, _IONBF, 0);
	if (!HAVE_PT) {
		printf("no PT emulator on this architecture\n");
		return 77;
	}
	if (tbt_modprobe("tracebuf") || tbt_modprobe("tb_ptemu"))
		return 1;
	/* This task runs on CPU 0: its per-task events never run on CPU 1. */
	CPU_ZERO(&set);
	CPU_SET(0, &set);
	TBT_CHECK(sched_setaffinity(0, sizeof(set), &set) == 0, "pin to cpu0");
	pt_type = read_long(PT_TYPE);
	TBT_CHECK(pt_type > 0, "no intel_pt PMU at %s", PT_TYPE);
	if (pt_type <= 0)
		return tbt_done();
	gps0 = emu_stat(0, "gps");
	gps1 = emu_stat(CPU, "gps");
	test_perf_refused();
	test_tracebuf_refused();
	test_hotplug();
	test_taken_offline();
	test_unprivileged();
	TBT_CHECK(emu_stat(0, "gps") == gps0 && emu_stat(CPU, "gps") == gps1,
		  "faulting accesses: cpu0 %llu, cpu1 %llu (the last: MSR %#llx value %#llx)",
		  emu_stat(0, "gps") - gps0, emu_stat(CPU, "gps") - gps1,
		  emu_stat(CPU, "gp_msr"), emu_stat(CPU, "gp_val"));
	test_no_pmu();
	return tbt_done();
}
