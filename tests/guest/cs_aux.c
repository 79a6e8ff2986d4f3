// SPDX-License-Identifier: GPL-2.0
/*
 * The CoreSight backend against the ETM/TMC emulator (tests/modules/
 * csemu_*.c, arm64): discovery and GET_CAPS, every CPU through one
 * shared ETR (scatter-gather), the enable/disable order the emulator
 * recorded, exact byte accounting (what the sink wrote = what was
 * published + what was reported lost), no-overwrite pauses and overruns,
 * snapshot mode, every configuration key valid and invalid, CPU hotplug,
 * close and exit while tracing, per-CPU sinks, flat ETR and ETF sinks
 * (an ETF's last stop from CPU hotplug, in snapshot mode, before munmap,
 * close and rmmod), a change while tracing published in order on ETF and
 * ETR sinks, the emulated SoCs' links, clocks and power domain, and
 * refusal of a sink another driver owns. On x86_64 the backend is simply
 * absent.
 */
#include <dirent.h>
#include <sys/utsname.h>
#include <sys/wait.h>

#include "ptcap.h"

#define CSEMU	"/sys/kernel/debug/tb_csemu"
#define NCPU	2

static unsigned long long cs_stat(const char *comp, const char *key)
{
	char path[128], k[64], line[256];
	unsigned long long v, r = ~0ULL;
	FILE *f;

	snprintf(path, sizeof(path), CSEMU "/%s/stats", comp);
	f = fopen(path, "r");
	if (!f)
		return ~0ULL;
	while (fgets(line, sizeof(line), f))
		if (sscanf(line, "%63s %llu", k, &v) == 2 && !strcmp(k, key))
			r = v;
	fclose(f);
	return r;
}

/*
 * An ETM's enabled state, waiting up to a second for want: a drain cycle
 * on another CPU turns the ETMs off for a moment.
 */
static int etm_enabled(struct sess *x, int cpu, int want)
{
	char c[16];
	int i;

	snprintf(c, sizeof(c), "etm%d", cpu);
	for (i = 0; i < 50; i++) {
		if (cs_stat(c, "enabled") == (unsigned long long)want)
			return 1;
		if (x)
			consume(x);
		msleep(20);
	}
	return 0;
}

static unsigned long long total_violations(void)
{
	unsigned long long v = ~0ULL;
	FILE *f = fopen(CSEMU "/violations", "r");

	if (f) {
		if (fscanf(f, "%llu", &v) != 1)
			v = ~0ULL;
		fclose(f);
	}
	return v;
}

/* The ops log of an ETM holds the expected sequence, in order. */
static int ops_has(int cpu, const char *const *seq)
{
	char path[128], word[64];
	int i = 0;
	FILE *f;

	snprintf(path, sizeof(path), CSEMU "/etm%d/ops", cpu);
	f = fopen(path, "r");
	if (!f)
		return 0;
	while (seq[i] && fscanf(f, "%63s", word) == 1)
		if (!strcmp(word, seq[i]))
			i++;
	fclose(f);
	return !seq[i];
}

static int emu_load(const char *const *params)
{
	const char *argv[16] = { "modprobe", "tb_csemu" };
	int i;

	if (tbt_module_loaded("tb_csemu"))
		tbt_rmmod("tb_csemu");
	for (i = 0; params && params[i] && i < 13; i++)
		argv[2 + i] = params[i];
	argv[2 + i] = NULL;
	return tbt_run(argv);
}

static int cs_open(struct sess *x, unsigned long long cpumask, uint64_t aux, int ro, uint64_t wm)
{
	uint64_t bits = cpumask;
	struct tracebuf_setup su = { .target = TRACEBUF_TARGET_CPUSET,
				     .cpuset_ptr = (uintptr_t)&bits,
				     .cpuset_size = sizeof(bits), .aux_watermark = wm };
	int ret;

	memset(x, 0, sizeof(*x));
	snprintf(su.backend, sizeof(su.backend), "coresight");
	if (tracebuf_open(&x->s, 0))
		return -1;
	ret = tracebuf_setup(&x->s, &su);
	if (ret)
		return ret;
	if (tracebuf_map(&x->s, 256 * 1024, 0))
		return -1;
	return map_aux(x, aux, ro);
}

/* Consume for ms milliseconds, polling. */
static void run_for(struct sess *x, int ms)
{
	int t;

	for (t = 0; t < ms; t += 20) {
		tracebuf_wait(&x->s, 20);
		consume(x);
	}
}

static unsigned long long sink_bytes(int sink)
{
	char c[16];

	snprintf(c, sizeof(c), "sink%d", sink);
	return cs_stat(c, "bytes");
}

/*
 * The architecture's order, on each ETM: TRFCR_EL1 allows trace just
 * before TRCPRGCTLR.EN (etm4x_allow_trace()) and prohibits it just
 * before EN clears (etm4x_prohibit_trace()); the unit has drained
 * (TRCSTATR.IDLE, "drained") after PMSTABLE and before the disclaim.
 */
static void check_order(const char *what)
{
	static const char *const en[] = { "unlock", "claim", "prg0", "idle1", "config",
					  "pu", "trf_allow", "en", "idle0", "lock", NULL };
	static const char *const dis[] = { "unlock", "pu_clear", "trf_prohibit", "en_clear",
					   "pmstable1", "drained", "disclaim", "lock", NULL };
	int cpu;

	for (cpu = 0; cpu < NCPU; cpu++) {
		TBT_CHECK(ops_has(cpu, en), "%s: cpu%d enable sequence", what, cpu);
		TBT_CHECK(ops_has(cpu, dis), "%s: cpu%d disable sequence", what, cpu);
	}
	TBT_CHECK(total_violations() == 0, "%s: emulator violations %llu", what,
		  total_violations());
}

/* Shared ETR: both CPUs in one session; exact accounting; the order. */
static void test_shared(const char *cap)
{
	unsigned long long b0 = sink_bytes(0), b1;
	unsigned long long g0 = cs_stat("etm0", "bytes"), g1 = cs_stat("etm1", "bytes");
	struct sess x;

	TBT_CHECK(cs_open(&x, 3, 1 << 20, 0, 0) == 0, "shared session: %s", strerror(errno));
	if (cap)
		cap_open(&x, cap);
	TBT_CHECK(tracebuf_enable(&x.s) == 0, "enable: %s", strerror(errno));
	run_for(&x, 800);
	TBT_CHECK(etm_enabled(&x, 0, 1) && etm_enabled(&x, 1, 1), "both ETMs enabled while tracing");
	TBT_CHECK(tracebuf_disable(&x.s) == 0, "disable");
	consume(&x);
	b1 = sink_bytes(0);
	TBT_CHECK(x.published > 0, "published %llu", (unsigned long long)x.published);
	TBT_CHECK(b1 - b0 + x.s.ctl->aux_padding == x.published + x.lost,
		  "sink wrote %llu + padding %llu, published %llu + lost %llu", b1 - b0,
		  (unsigned long long)x.s.ctl->aux_padding,
		  (unsigned long long)x.published, (unsigned long long)x.lost);
	TBT_CHECK(x.etms >= 2, "ETM records: %llu", (unsigned long long)x.etms);
	/* TRFCR_EL1 starts prohibiting every EL: trace only if it was allowed. */
	TBT_CHECK(cs_stat("etm0", "bytes") - g0 >= 65536 && cs_stat("etm1", "bytes") - g1 >= 65536,
		  "both ETMs traced: %llu, %llu bytes", cs_stat("etm0", "bytes") - g0,
		  cs_stat("etm1", "bytes") - g1);
	TBT_CHECK(cs_stat("etm0", "enabled") == 0 && cs_stat("etm1", "enabled") == 0,
		  "ETMs disabled after DISABLE");
	check_order("shared");
	sess_close(&x);
}

static void test_caps(void)
{
	struct tracebuf_backend_desc b[4];
	struct tracebuf_info info = { .size = sizeof(info) };
	struct tracebuf_cs_caps c[NCPU];
	struct tracebuf_session s;
	int i, n, found = 0;

	TBT_CHECK(tracebuf_open(&s, 0) == 0, "open");
	TBT_CHECK(tracebuf_get_info(&s, &info, b, 4) == 0, "GET_INFO");
	n = (int)info.nr_backends;
	for (i = 0; i < n && i < 4; i++)
		if (!strcmp(b[i].name, "coresight")) {
			found = 1;
			TBT_CHECK(b[i].flags & TRACEBUF_BACKEND_F_EMULATED, "emulated flag");
			TBT_CHECK(b[i].nr_cpus == NCPU, "nr_cpus %u", b[i].nr_cpus);
		}
	TBT_CHECK(found, "coresight backend present");
	for (i = 0; i < NCPU; i++) {
		TBT_CHECK(tracebuf_get_caps(&s, "coresight", i, &c[i], sizeof(c[i])) ==
			  (int)sizeof(c[i]), "GET_CAPS cpu%d", i);
		TBT_CHECK(((c[i].trcidr[1] >> 8) & 0xf) == 4, "ETMv4 on cpu%d", i);
		TBT_CHECK(c[i].sink == 0 && c[i].sink_type == TRACEBUF_CS_SINK_ETR &&
			  (c[i].sink_flags & TRACEBUF_CS_SINK_F_SHARED) &&
			  (c[i].sink_flags & TRACEBUF_CS_SINK_F_SG) && c[i].sink_cpus == NCPU,
			  "cpu%d sink %u type %u flags %#x", i, c[i].sink, c[i].sink_type,
			  c[i].sink_flags);
		TBT_CHECK(c[i].trace_id >= 0x10 && c[i].trace_id < 0x70, "trace id %#x",
			  c[i].trace_id);
	}
	TBT_CHECK(c[0].trace_id != c[1].trace_id, "trace IDs unique in the sink");
	tracebuf_close(&s);
}

/*
 * Nobody reads until the session has published its n-th TRUNCATED span
 * (counted from its start, so one published before the first look is
 * not waited for again): no timing assumed, the bound only ends a
 * broken run.
 */
static void wait_truncations(struct sess *x, uint64_t n, unsigned long long b0)
{
	int i;

	for (i = 0; i < 600 && x->s.ctl->aux_truncations < n; i++)
		msleep(50);
	TBT_CHECK(x->s.ctl->aux_truncations >= n,
		  "no TRUNCATED span number %llu (%llu so far): sink wrote %llu",
		  (unsigned long long)n, (unsigned long long)x->s.ctl->aux_truncations,
		  sink_bytes(0) - b0);
}

/* No-overwrite: nothing consumed; tracing pauses; all accounted for. */
static void test_overrun(void)
{
	unsigned long long b0 = sink_bytes(0), b1;
	struct sess x;

	TBT_CHECK(cs_open(&x, 3, 256 * 1024, 0, 0) == 0, "small session");
	TBT_CHECK(tracebuf_enable(&x.s) == 0, "enable");
	wait_truncations(&x, 1, b0);	/* nobody reads: the ring fills */
	consume(&x);
	TBT_CHECK(x.truncated >= 1, "a TRUNCATED span when the ring filled (ctl says %llu)",
		  (unsigned long long)x.s.ctl->aux_truncations);
	run_for(&x, 500);	/* room again: tracing resumes */
	TBT_CHECK(tracebuf_disable(&x.s) == 0, "disable");
	consume(&x);
	b1 = sink_bytes(0);
	TBT_CHECK(x.published > 256 * 1024, "resumed after the pause: %llu",
		  (unsigned long long)x.published);
	TBT_CHECK(b1 - b0 + x.s.ctl->aux_padding == x.published + x.lost,
		  "overrun: sink %llu + padding %llu = published %llu + lost %llu",
		  b1 - b0, (unsigned long long)x.s.ctl->aux_padding,
		  (unsigned long long)x.published, (unsigned long long)x.lost);
	TBT_CHECK(total_violations() == 0, "violations");
	sess_close(&x);
}

static void test_snapshot(void)
{
	struct sess x;

	TBT_CHECK(cs_open(&x, 3, 256 * 1024, 1, 0) == 0, "snapshot session");
	TBT_CHECK(tracebuf_enable(&x.s) == 0, "enable");
	msleep(500);
	consume(&x);
	TBT_CHECK(x.spans == 0, "nothing published before SNAPSHOT");
	TBT_CHECK(tracebuf_snapshot(&x.s) == 0, "SNAPSHOT: %s", strerror(errno));
	consume(&x);
	TBT_CHECK(x.overwrite >= 1 && x.published > 0, "snapshot published %llu",
		  (unsigned long long)x.published);
	TBT_CHECK(etm_enabled(&x, 0, 1), "tracing again after SNAPSHOT");
	TBT_CHECK(tracebuf_disable(&x.s) == 0, "disable");
	TBT_CHECK(total_violations() == 0, "violations");
	sess_close(&x);
}

static void cfg_expect(struct sess *x, const char *cfg, int err)
{
	struct tracebuf_cfg_error e;
	int r = tracebuf_set_drv_config(&x->s, cfg, 0, &e);

	TBT_CHECK(r == -err, "\"%s\": got %d, want %d (%s)", cfg, r, -err, e.message);
}

static unsigned long long etm_reg(int cpu, const char *name)
{
	char path[128], k[64], line[256];
	unsigned long long v, r = ~0ULL;
	FILE *f;

	snprintf(path, sizeof(path), CSEMU "/etm%d/regs", cpu);
	f = fopen(path, "r");
	if (!f)
		return r;
	while (fgets(line, sizeof(line), f))
		if (sscanf(line, "%63s %llx", k, &v) == 2 && !strcasecmp(k, name))
			r = v;
	fclose(f);
	return r;
}

static void test_config(void)
{
	struct sess x;

	TBT_CHECK(cs_open(&x, 3, 256 * 1024, 0, 0) == 0, "config session");
	cfg_expect(&x, "cycacc=1,cyc_thresh=256", 0);
	cfg_expect(&x, "cyc_thresh=1", ERANGE);		/* below TRCIDR3.CCITMIN */
	cfg_expect(&x, "cyc_thresh=4096", ERANGE);
	cfg_expect(&x, "timestamp=1,ts_interval=1000", 0);
	cfg_expect(&x, "ts_interval=70000", ERANGE);
	cfg_expect(&x, "contextid=1,vmid=1,branch_broadcast=1,retstack=1", 0);
	cfg_expect(&x, "contextid=2", EINVAL);
	cfg_expect(&x, "user=1,kernel=1", 0);
	cfg_expect(&x, "sync_period=7", ERANGE);
	cfg_expect(&x, "sync_period=21", ERANGE);
	cfg_expect(&x, "sync_period=10", 0);
	cfg_expect(&x, "addr0=0x1000-0x2000:filter", 0);
	cfg_expect(&x, "addr1=0x3000-0x2000:filter", EINVAL);
	cfg_expect(&x, "addr1=0x4000-0x5000:stop", 0);
	cfg_expect(&x, "addr9=0x1000-0x2000:filter", EINVAL);
	cfg_expect(&x, "bogus=1", EINVAL);
	cfg_expect(&x, "cyc=1", EINVAL);		/* a PT key */
	TBT_CHECK(tracebuf_enable(&x.s) == 0, "enable");
	run_for(&x, 200);
	TBT_CHECK(etm_reg(0, "TRCCONFIGR") == (0x10 | 0x40 | 0x80 | 0x08 | 0x800 | 0x1000),
		  "TRCCONFIGR %#llx", etm_reg(0, "TRCCONFIGR"));
	TBT_CHECK(etm_reg(1, "TRCCCCTLR") == 256, "TRCCCCTLR %#llx", etm_reg(1, "TRCCCCTLR"));
	TBT_CHECK(etm_reg(0, "TRCSYNCPR") == 10, "TRCSYNCPR %#llx", etm_reg(0, "TRCSYNCPR"));
	TBT_CHECK(etm_reg(0, "TRCVIIECTLR") == 1, "TRCVIIECTLR %#llx", etm_reg(0, "TRCVIIECTLR"));
	TBT_CHECK(etm_reg(0, "TRCACVR0") == 0x1000 && etm_reg(0, "TRCACVR1") == 0x2000,
		  "address comparators");
	/* Exactly the Secure ELs TRCIDR3 lists (0xb) excluded: the others are RES0. */
	TBT_CHECK((etm_reg(0, "TRCVICTLR") >> 16 & 0xf) == 0xb &&
		  (etm_reg(0, "TRCACATR0") >> 8 & 0xf) == 0xb,
		  "EXLEVEL_S from TRCIDR3: TRCVICTLR %#llx TRCACATR0 %#llx",
		  etm_reg(0, "TRCVICTLR"), etm_reg(0, "TRCACATR0"));
	/* A change while tracing: stop, publish, CONFIG and ETM records, restart. */
	x.etms = 0;
	cfg_expect(&x, "user=1,kernel=0,cycacc=0", 0);
	run_for(&x, 200);
	TBT_CHECK(x.etms >= 2, "new ETM records after the change: %llu",
		  (unsigned long long)x.etms);
	TBT_CHECK(!(etm_reg(0, "TRCCONFIGR") & 0x10), "CCI off");
	TBT_CHECK((etm_reg(0, "TRCVICTLR") >> 20 & 0x3) == 0x2, "EL1 excluded, EL0 traced: %#llx",
		  etm_reg(0, "TRCVICTLR"));
	TBT_CHECK(tracebuf_disable(&x.s) == 0, "disable");
	TBT_CHECK(total_violations() == 0, "violations");
	sess_close(&x);
}

/* A CPU goes offline and comes back while the shared sink traces. */
static void test_hotplug(void)
{
	unsigned long long e1;
	struct sess x;

	TBT_CHECK(cs_open(&x, 3, 1 << 20, 0, 0) == 0, "hotplug session");
	TBT_CHECK(tracebuf_enable(&x.s) == 0, "enable");
	run_for(&x, 200);
	e1 = cs_stat("etm1", "enables");
	TBT_CHECK(set_online(1, 0) == 0, "cpu1 offline");
	run_for(&x, 300);
	TBT_CHECK(cs_stat("etm1", "enabled") == 0, "ETM1 off while cpu1 is offline");
	TBT_CHECK(etm_enabled(&x, 0, 1), "ETM0 still tracing");
	TBT_CHECK(set_online(1, 1) == 0, "cpu1 online");
	run_for(&x, 300);
	TBT_CHECK(etm_enabled(&x, 1, 1) && cs_stat("etm1", "enables") > e1,
		  "ETM1 restarted when cpu1 came back");
	TBT_CHECK(tracebuf_disable(&x.s) == 0, "disable");
	consume(&x);
	TBT_CHECK(total_violations() == 0, "violations");
	sess_close(&x);
}

/* munmap, close and exit while tracing stop the hardware. */
static void test_lifetime(void)
{
	struct sess x;
	pid_t pid;
	int st;

	TBT_CHECK(cs_open(&x, 3, 256 * 1024, 0, 0) == 0, "session");
	TBT_CHECK(tracebuf_enable(&x.s) == 0, "enable");
	msleep(100);
	munmap(x.aux, x.aux_size);
	x.aux = NULL;
	TBT_CHECK(cs_stat("etm0", "enabled") == 0, "munmap of the AUX area stopped the ETMs");
	sess_close(&x);
	pid = fork();
	if (pid == 0) {
		struct sess y;

		if (cs_open(&y, 3, 256 * 1024, 0, 0) || tracebuf_enable(&y.s))
			_exit(1);
		msleep(100);
		_exit(0);	/* exit while tracing */
	}
	TBT_CHECK(waitpid(pid, &st, 0) == pid && WIFEXITED(st) && !WEXITSTATUS(st), "child");
	msleep(50);
	TBT_CHECK(cs_stat("etm0", "enabled") == 0 && cs_stat("etm1", "enabled") == 0,
		  "exit stopped the ETMs");
	TBT_CHECK(cs_stat("sink0", "state") == 0, "and the sink (state %llu)",
		  cs_stat("sink0", "state"));
	TBT_CHECK(total_violations() == 0, "violations");
}

/* Only one session per sink at a time. */
static void test_busy(void)
{
	struct sess a, b;

	TBT_CHECK(cs_open(&a, 3, 256 * 1024, 0, 0) == 0, "first session");
	TBT_CHECK(cs_open(&b, 1, 256 * 1024, 0, 0) == -EBUSY, "second session on the sink: EBUSY");
	sess_close(&b);
	sess_close(&a);
}

/* One sink per CPU: a session per CPU, both tracing at once. */
static void test_percpu(void)
{
	static const char *const p[] = { "topology=percpu", NULL };
	unsigned long long b0[NCPU], b1;
	struct sess x[NCPU], y;
	int i;

	TBT_CHECK(emu_load(p) == 0, "tb_csemu topology=percpu");
	TBT_CHECK(cs_open(&y, 3, 256 * 1024, 0, 0) == -EINVAL,
		  "one session over two sinks: EINVAL");
	sess_close(&y);
	for (i = 0; i < NCPU; i++) {
		char c[16];

		snprintf(c, sizeof(c), "sink%d", i);
		b0[i] = cs_stat(c, "bytes");
		TBT_CHECK(cs_open(&x[i], 1ULL << i, 256 * 1024, 0, 0) == 0, "cpu%d session", i);
		TBT_CHECK(tracebuf_enable(&x[i].s) == 0, "enable cpu%d", i);
	}
	for (i = 0; i < 20; i++) {
		run_for(&x[0], 20);
		run_for(&x[1], 20);
	}
	for (i = 0; i < NCPU; i++) {
		char c[16];

		TBT_CHECK(tracebuf_disable(&x[i].s) == 0, "disable");
		consume(&x[i]);
		snprintf(c, sizeof(c), "sink%d", i);
		b1 = cs_stat(c, "bytes");
		TBT_CHECK(x[i].published > 0 && b1 - b0[i] + x[i].s.ctl->aux_padding ==
			  x[i].published + x[i].lost,
			  "per-CPU sink %d: wrote %llu + padding %llu, published %llu + lost %llu",
			  i, b1 - b0[i], (unsigned long long)x[i].s.ctl->aux_padding,
			  (unsigned long long)x[i].published, (unsigned long long)x[i].lost);
		sess_close(&x[i]);
	}
	TBT_CHECK(total_violations() == 0, "violations");
}

/*
 * An ETB/ETF is read out through RRD only in the drain cycle, in process
 * context, TB_CS_COPY_CHUNK (1 KiB) at a time with interrupts enabled in
 * between: DISABLE's last stop only stops it and leaves the copy-out to
 * the cycle the stopped op runs. The emulator's oracle (sinkN/stats
 * rrd_irqoff_max, csemu_rrd_note()) is the most bytes one CPU read with
 * interrupts off in one stretch since it was loaded; the kernel's own
 * tmc_etb_dump_hw() reads the whole SRAM so.
 */
static void check_copy_irqoff(const char *what)
{
	unsigned long long m = cs_stat("sink0", "rrd_irqoff_max");

	TBT_CHECK(m > 0 && m <= 1024,
		  "%s: at most 1024 bytes read through RRD per stretch of interrupts off (%llu)",
		  what, m);
}

static void test_sink(const char *param, const char *what, int padded)
{
	const char *p[] = { param, NULL };
	unsigned long long b0, pad;
	struct sess x;

	TBT_CHECK(emu_load(p) == 0, "tb_csemu %s", param);
	b0 = sink_bytes(0);
	TBT_CHECK(cs_open(&x, 3, 256 * 1024, 0, 0) == 0, "%s session", what);
	TBT_CHECK(tracebuf_enable(&x.s) == 0, "%s enable", what);
	run_for(&x, 600);
	TBT_CHECK(tracebuf_disable(&x.s) == 0, "%s disable", what);
	consume(&x);
	pad = x.s.ctl->aux_padding;
	TBT_CHECK(x.published > 0, "%s: published %llu", what, (unsigned long long)x.published);
	/*
	 * Exact, unless a sink wrapped between two drains (a slow guest):
	 * then the LOST count is a lower bound.
	 */
	if (x.lost_atleast)
		TBT_CHECK(sink_bytes(0) - b0 + pad >= x.published + x.lost,
			  "%s: sink %llu + padding %llu >= published %llu + lost %llu (at least)",
			  what, sink_bytes(0) - b0, pad, (unsigned long long)x.published,
			  (unsigned long long)x.lost);
	else
		TBT_CHECK(sink_bytes(0) - b0 + pad == x.published + x.lost,
			  "%s: sink %llu + padding %llu = published %llu + lost %llu", what,
			  sink_bytes(0) - b0, pad, (unsigned long long)x.published,
			  (unsigned long long)x.lost);
	TBT_CHECK(!padded || pad > 0, "%s: the kernel padded to 4 KiB granules", what);
	TBT_CHECK(total_violations() == 0, "%s: violations", what);
	if (!strcmp(param, "sink=etf"))
		check_copy_irqoff(what);
	sess_close(&x);
}

/*
 * Bytes the AUX ring has no room for are counted in LOST(AUX_OVERRUN):
 * ETF (read out word by word: exact) and an ETR bursting past the free
 * space within one drain period (a lower bound: it may have wrapped).
 */
static void test_lost(const char *param, const char *rate, const char *what, int exact)
{
	const char *p[] = { param, rate, NULL };
	unsigned long long b0, b1;
	struct sess x;
	int i;

	TBT_CHECK(emu_load(p) == 0, "tb_csemu %s %s", param, rate);
	b0 = sink_bytes(0);
	TBT_CHECK(cs_open(&x, 3, 16 * 1024, 0, 0) == 0, "%s session", what);
	TBT_CHECK(tracebuf_enable(&x.s) == 0, "%s enable", what);
	/*
	 * Nobody reads until the ring is full; whether that cycle had more
	 * than fitted depends on where the drain fell: fill it again until
	 * one did (bounded).
	 */
	for (i = 1; i <= 20 && !x.lost; i++) {
		wait_truncations(&x, i, b0);
		consume(&x);
	}
	run_for(&x, 200);
	TBT_CHECK(tracebuf_disable(&x.s) == 0, "%s disable", what);
	consume(&x);
	b1 = sink_bytes(0) + x.s.ctl->aux_padding;	/* written + padded */
	TBT_CHECK(x.lost > 0 && x.truncated > 0, "%s: lost %llu bytes, %llu truncated spans", what,
		  (unsigned long long)x.lost, (unsigned long long)x.truncated);
	/* Exact unless a count says it is a lower bound (the SRAM wrapped). */
	TBT_CHECK(!exact || x.lost_atleast == 0 || b1 - b0 > x.published + x.lost,
		  "%s: lower bounds only where more was lost", what);
	if (exact && !x.lost_atleast)
		TBT_CHECK(b1 - b0 == x.published + x.lost,
			  "%s: sink %llu = published %llu + lost %llu", what, b1 - b0,
			  (unsigned long long)x.published, (unsigned long long)x.lost);
	else
		TBT_CHECK(b1 - b0 >= x.published + x.lost,
			  "%s: sink %llu >= published %llu + lost %llu", what, b1 - b0,
			  (unsigned long long)x.published, (unsigned long long)x.lost);
	TBT_CHECK(total_violations() == 0, "%s: violations", what);
	if (!strcmp(param, "sink=etf"))
		check_copy_irqoff(what);
	sess_close(&x);
}

/*
 * The sink never writes into published bytes the consumer has not read.
 * The consumer always leaves the last eighth of what was published
 * unread, and the emulator's rate overruns the free space in every drain
 * period: every unread byte must still be what was published when the
 * consumer's tail passes it (the ETR's buffer is the free space only, so
 * a wrap overwrites what that run wrote, never the unread bytes).
 */
static void test_unread(void)
{
	static const char *const p[] = { "rate=65536", NULL };
	static unsigned char shadow[64 * 1024];
	const uint64_t size = sizeof(shadow), held = size / 8;
	unsigned long long changed = 0, checked = 0, first = ~0ULL, b0, b1;
	const struct tracebuf_record *r;
	struct sess x;
	uint64_t o, end;
	int i;

	TBT_CHECK(emu_load(p) == 0, "tb_csemu rate=65536");
	b0 = sink_bytes(0);
	TBT_CHECK(cs_open(&x, 3, size, 0, 0) == 0, "unread session");
	TBT_CHECK(tracebuf_enable(&x.s) == 0, "unread enable");
	for (i = 0; i < 60; i++) {
		tracebuf_wait(&x.s, 20);
		/* What is still unread is as it was published. */
		for (o = x.aux_tail; o < x.next; o++, checked++)
			if (x.aux[o & (size - 1)] != shadow[o & (size - 1)]) {
				if (first == ~0ULL)
					first = o;
				changed++;
			}
		while ((r = tracebuf_peek(&x.s)) != NULL) {
			if (r->hdr.type == TRACEBUF_REC_AUX) {
				const struct tracebuf_rec_aux *a = (const void *)r;

				TBT_CHECK(a->aux_offset == x.next, "span at %llu, expected %llu",
					  (unsigned long long)a->aux_offset,
					  (unsigned long long)x.next);
				for (o = a->aux_offset; o < a->aux_offset + a->aux_size; o++)
					shadow[o & (size - 1)] = x.aux[o & (size - 1)];
				x.next = a->aux_offset + a->aux_size;
				x.published += a->aux_size;
				if (a->flags & TRACEBUF_AUX_F_TRUNCATED)
					x.truncated++;
			} else if (r->hdr.type == TRACEBUF_REC_LOST) {
				x.lost += ((const struct tracebuf_rec_lost *)r)->count;
			}
			tracebuf_advance(&x.s, r);
		}
		/* Read all but the last eighth. */
		end = x.next > held ? x.next - held : 0;
		if (end > x.aux_tail) {
			x.aux_tail = end;
			tracebuf_smp_store_release(&x.s.ctl->aux_tail, x.aux_tail);
		}
	}
	TBT_CHECK(tracebuf_disable(&x.s) == 0, "unread disable");
	x.aux_tail = x.next;		/* the rest is read in consume() */
	tracebuf_smp_store_release(&x.s.ctl->aux_tail, x.aux_tail);
	consume(&x);
	b1 = sink_bytes(0);
	TBT_CHECK(changed == 0, "%llu of %llu unread bytes changed under the consumer (first at %llu)",
		  changed, checked, first);
	TBT_CHECK(checked > 0 && x.truncated > 0 && x.lost > 0,
		  "the sink overran the free space: checked %llu, %llu truncated, %llu lost",
		  checked, (unsigned long long)x.truncated, (unsigned long long)x.lost);
	TBT_CHECK(b1 - b0 + x.s.ctl->aux_padding >= x.published + x.lost,
		  "unread: sink %llu + padding %llu >= published %llu + lost %llu", b1 - b0,
		  (unsigned long long)x.s.ctl->aux_padding, (unsigned long long)x.published,
		  (unsigned long long)x.lost);
	TBT_CHECK(total_violations() == 0, "unread: violations");
	sess_close(&x);
}

/*
 * etmN/burst: n bytes of CPU cpu's trace at once (tb_csemu), retried
 * while a drain cycle has the ETM off. 0 once written.
 */
static int burst(int cpu, unsigned long n)
{
	char path[128], val[32];
	int i;

	snprintf(path, sizeof(path), CSEMU "/etm%d/burst", cpu);
	snprintf(val, sizeof(val), "%lu", n);
	for (i = 0; i < 500; i++) {
		if (write_file(path, val) == 0)
			return 0;
		msleep(2);
	}
	return -1;
}

/* Peek every record; shadow what is published; release nothing. */
static void hold(struct sess *x, unsigned char *shadow, uint64_t size)
{
	const struct tracebuf_record *r;
	uint64_t o;

	while ((r = tracebuf_peek(&x->s)) != NULL) {
		if (r->hdr.type == TRACEBUF_REC_AUX) {
			const struct tracebuf_rec_aux *a = (const void *)r;

			TBT_CHECK(a->aux_offset == x->next, "span at %llu, expected %llu",
				  (unsigned long long)a->aux_offset,
				  (unsigned long long)x->next);
			for (o = a->aux_offset; o < a->aux_offset + a->aux_size; o++)
				shadow[o & (size - 1)] = x->aux[o & (size - 1)];
			x->next = a->aux_offset + a->aux_size;
			x->published += a->aux_size;
			x->spans++;
			if (a->flags & TRACEBUF_AUX_F_TRUNCATED)
				x->truncated++;
		} else if (r->hdr.type == TRACEBUF_REC_LOST) {
			x->lost += ((const struct tracebuf_rec_lost *)r)->count;
		}
		tracebuf_advance(&x->s, r);
	}
}

/*
 * Issue 15 item 7, deterministically: the sink writes more than the free
 * space within one drain period while the consumer holds unread bytes.
 * With the emulator's rate at 0 only etmN/burst writes trace: a first
 * burst is published and left unread, a second (larger than what is
 * free) lands between two drains. The unread bytes must not change, and
 * the overrun must be a TRUNCATED span behind a LOST(AUX_OVERRUN) record
 * counting at least what did not fit. (Before the ETR's buffer was
 * limited to the free space, the second burst wrapped over the unread
 * bytes with no record: cs_small's out-of-order capture.)
 */
static void test_burst(void)
{
	static const char *const p[] = { "rate=0", NULL };
	static unsigned char shadow[256 * 1024];
	const uint64_t size = sizeof(shadow);
	unsigned long long changed = 0, b0, b1, e0, e1;
	struct sess x;
	uint64_t o, free1;
	int i;

	TBT_CHECK(emu_load(p) == 0, "tb_csemu rate=0");
	b0 = sink_bytes(0);
	TBT_CHECK(cs_open(&x, 3, size, 0, 0) == 0, "burst session");
	TBT_CHECK(tracebuf_enable(&x.s) == 0, "burst enable");
	e0 = cs_stat("etm0", "burst_bytes");
	TBT_CHECK(burst(0, 64 * 1024) == 0, "first burst");
	e1 = cs_stat("etm0", "burst_bytes");
	TBT_CHECK(e1 - e0 >= 64 * 1024, "the first burst wrote %llu", e1 - e0);
	/* Published (and kept unread): every byte of the burst is in a span. */
	for (i = 0; i < 500 && x.published < e1 - e0; i++) {
		tracebuf_wait(&x.s, 10);
		hold(&x, shadow, size);
	}
	TBT_CHECK(x.published >= e1 - e0 && !x.truncated && !x.lost,
		  "first burst published: %llu of %llu, %llu truncated, %llu lost",
		  (unsigned long long)x.published, e1 - e0,
		  (unsigned long long)x.truncated, (unsigned long long)x.lost);
	free1 = size - x.published;
	/* More than is free, in one drain period. */
	e0 = cs_stat("etm1", "burst_bytes");
	TBT_CHECK(burst(1, free1 + 64 * 1024) == 0, "second burst");
	e1 = cs_stat("etm1", "burst_bytes");
	for (i = 0; i < 500 && !x.truncated; i++) {
		tracebuf_wait(&x.s, 10);
		hold(&x, shadow, size);
	}
	for (o = 0; o < x.next && o < size; o++)
		if (x.aux[o & (size - 1)] != shadow[o & (size - 1)])
			changed++;
	TBT_CHECK(changed == 0, "burst: %llu unread bytes changed under the consumer", changed);
	TBT_CHECK(x.truncated >= 1, "burst: a TRUNCATED span (%llu)",
		  (unsigned long long)x.truncated);
	TBT_CHECK(x.lost >= e1 - e0 - free1, "burst: lost %llu >= %llu written - %llu free",
		  (unsigned long long)x.lost, e1 - e0, (unsigned long long)free1);
	TBT_CHECK(tracebuf_disable(&x.s) == 0, "burst disable");
	x.aux_tail = x.next;
	tracebuf_smp_store_release(&x.s.ctl->aux_tail, x.aux_tail);
	consume(&x);
	b1 = sink_bytes(0);
	TBT_CHECK(b1 - b0 + x.s.ctl->aux_padding >= x.published + x.lost,
		  "burst: sink %llu + padding %llu >= published %llu + lost %llu", b1 - b0,
		  (unsigned long long)x.s.ctl->aux_padding, (unsigned long long)x.published,
		  (unsigned long long)x.lost);
	TBT_CHECK(total_violations() == 0, "burst: violations");
	sess_close(&x);
}

static unsigned long long emu_total(const char *file)
{
	unsigned long long v = ~0ULL;
	char path[128];
	FILE *f;

	snprintf(path, sizeof(path), CSEMU "/%s", file);
	f = fopen(path, "r");
	if (f) {
		if (fscanf(f, "%llu", &v) != 1)
			v = ~0ULL;
		fclose(f);
	}
	return v;
}

/* An emulated SoC: its topology= and the links every CPU's trace crosses. */
struct topo {
	const char *name;
	const char *const *links;	/* funnels first, then replicators */
	unsigned int aux;		/* a flat ETR needs a contiguous area */
};

static const char *const juno_links[] = {
	"funnel@220c0000", "funnel@230c0000", "funnel@20040000",
	"funnel@20150000", "replicator@20120000", NULL,
};
static const char *const msm8916_links[] = {
	"funnel@841000", "funnel@821000", "replicator@824000", NULL,
};
/* N1SDP (the guests booted with ACPI): static funnels (no registers), funnels, replicator. */
static const char *const n1sdp_links[] = {
	"\\_SB_.N1SD.SFN0", "\\_SB_.N1SD.SFN1", "\\_SB_.N1SD.FUN_", "\\_SB_.N1SD.MFUN",
	"\\_SB_.N1SD.REP_", NULL,
};
static const struct topo juno = { "juno", juno_links, 1 << 20 };
static const struct topo msm8916 = { "msm8916", msm8916_links, 512 * 1024 };
static const struct topo n1sdp = { "n1sdp", n1sdp_links, 1 << 20 };

/*
 * One session over both CPUs on an emulated SoC (Juno r2: ETM -> cluster
 * funnel -> main funnel -> ETF0 (hardware FIFO) -> cssys2 funnel ->
 * replicator port 1 -> ETR; MSM8916: ETM -> APSS funnel -> funnel0 -> ETF
 * -> replicator port 0 -> flat ETR). With test_skip_link=TYPE the
 * backend leaves that type of link closed. Returns 1 if trace from every
 * CPU crossed every link to the ETR, nothing was blocked on the way,
 * every byte is accounted for and the emulator saw no violation, and
 * every link is closed and unclaimed after; 0 otherwise (printed).
 */
static int topo_run(const struct topo *t, const char *skip)
{
	char param[32], key[16];
	const char *p[] = { param, NULL };
	unsigned long long b0, b1, blocked, viol, passed[8];
	int ok = 1, i;
	struct sess x;

	snprintf(param, sizeof(param), "topology=%s", t->name);
	TBT_CHECK(emu_load(p) == 0, "tb_csemu %s", param);
	TBT_CHECK(write_file("/sys/module/tracebuf/parameters/test_skip_link",
			     skip ? skip : "none") == 0, "test_skip_link=%s", skip ? skip : "none");
	b0 = sink_bytes(0);
	TBT_CHECK(cs_open(&x, 3, t->aux, 0, 0) == 0, "%s session", t->name);
	TBT_CHECK(tracebuf_enable(&x.s) == 0, "%s enable", t->name);
	run_for(&x, 600);
	TBT_CHECK(tracebuf_disable(&x.s) == 0, "%s disable", t->name);
	consume(&x);
	b1 = sink_bytes(0);
	blocked = emu_total("blocked");
	viol = total_violations();
	/* Exact, unless an overrun could only be counted as a lower bound. */
	if (x.lost_atleast ? b1 - b0 + x.s.ctl->aux_padding < x.published + x.lost :
			     b1 - b0 + x.s.ctl->aux_padding != x.published + x.lost)
		ok = 0;
	if (x.published < 64 * 1024)
		ok = 0;
	printf("# %s%s%s: sink %llu, published %llu, lost %llu, blocked %llu, violations %llu, passed",
	       t->name, skip ? " without " : "", skip ? skip : "", b1 - b0,
	       (unsigned long long)x.published, (unsigned long long)x.lost, blocked, viol);
	/*
	 * The links as the session left them, while it still holds them
	 * powered: once it is gone their domain may power down, and they
	 * lose their state.
	 */
	for (i = 0; t->links[i] && i < 8; i++) {
		passed[i] = cs_stat(t->links[i], "passed");
		printf(" %llu", passed[i]);
		if (!passed[i] || passed[i] == ~0ULL)
			ok = 0;
		/* Closed and unclaimed again. */
		if (cs_stat(t->links[i], "claim") != 0)
			ok = 0;
		/* A funnel's ports closed, a replicator's filters closed; a static has neither. */
		if (cs_stat(t->links[i], "functl") != ~0ULL && cs_stat(t->links[i], "functl") & 0xff)
			ok = 0;
		for (int f = 0; f < 2 && cs_stat(t->links[i], "idfilter0") != ~0ULL; f++) {
			snprintf(key, sizeof(key), "idfilter%d", f);
			if (cs_stat(t->links[i], key) != 0xff)
				ok = 0;
		}
	}
	printf("\n");
	sess_close(&x);
	write_file("/sys/module/tracebuf/parameters/test_skip_link", "none");
	return ok && !blocked && !viol;
}

/*
 * Emulated SoCs: trace from both CPUs through every link to the ETR; and
 * without any one of the links' enable steps it does not get through.
 */
static void test_topology(const struct topo *t)
{
	static const char *const skips[] = { "funnel", "replicator", "etf" };
	struct tracebuf_cs_caps c[NCPU];
	struct tracebuf_session s;
	unsigned int i;

	TBT_CHECK(topo_run(t, NULL), "%s: trace from every CPU through funnels, ETF, replicator to the ETR",
		  t->name);
	TBT_CHECK(tracebuf_open(&s, 0) == 0, "open");
	for (i = 0; i < NCPU; i++) {
		TBT_CHECK(tracebuf_get_caps(&s, "coresight", i, &c[i], sizeof(c[i])) ==
			  (int)sizeof(c[i]), "%s GET_CAPS cpu%u", t->name, i);
		/* One ETR for both: sinks are numbered as the device tree lists them. */
		TBT_CHECK(c[i].sink == c[0].sink && c[i].sink_type == TRACEBUF_CS_SINK_ETR &&
			  (c[i].sink_flags & TRACEBUF_CS_SINK_F_SHARED) && c[i].sink_cpus == NCPU,
			  "%s cpu%u: sink %u type %u flags %#x cpus %u", t->name, i, c[i].sink,
			  c[i].sink_type, c[i].sink_flags, c[i].sink_cpus);
	}
	tracebuf_close(&s);
	for (i = 0; i < sizeof(skips) / sizeof(skips[0]); i++)
		TBT_CHECK(!topo_run(t, skips[i]), "%s without the %s enable step: the check fails",
			  t->name, skips[i]);
}

/*
 * The static funnels' platform devices bound to tracebuf-cs (ACPI
 * devices ARMHC9FE:NN) whose runtime PM status is want, waiting up to
 * 2 s for all of them: runtime PM suspends a device after its last
 * reference goes, not at once. Returns how many are; -1: none found.
 */
static int static_status(const char *want)
{
	char path[PATH_MAX], st[32];
	int i, n, match;

	for (i = 0; i < 100; i++) {
		DIR *d = opendir("/sys/bus/platform/drivers/tracebuf-cs");
		struct dirent *de;
		FILE *f;

		if (!d)
			return -1;
		n = match = 0;
		while ((de = readdir(d))) {
			if (strncmp(de->d_name, "ARMHC9FE:", 9))
				continue;
			n++;
			snprintf(path, sizeof(path),
				 "/sys/bus/platform/drivers/tracebuf-cs/%s/power/runtime_status",
				 de->d_name);
			f = fopen(path, "r");
			if (f) {
				if (fscanf(f, "%31s", st) == 1 && !strcmp(st, want))
					match++;
				fclose(f);
			}
		}
		closedir(d);
		if (!n)
			return -1;
		if (match == n)
			break;
		msleep(20);
	}
	return match;
}

/*
 * N1SDP's static funnels SFN0/SFN1 (the guests booted with ACPI): their
 * platform devices are bound to tracebuf-cs, runtime-suspended while no
 * session uses them and active while one does (tracebuf's runtime PM
 * reference, as coresight_grab_device() takes one on every device of a
 * path, static links included); the session's trace crosses them with
 * no violation. Without the references (test_skip_pm) the emulator finds
 * them suspended under the trace, which it counts (on ACPI its only
 * power rule: the components name no clock or power domain).
 */
static void test_static_pm(void)
{
	static const char *const p[] = { "topology=n1sdp", NULL };
	static const char *const sfn[] = { "\\_SB_.N1SD.SFN0", "\\_SB_.N1SD.SFN1" };
	unsigned long long viol, sv[2];
	struct sess x;
	int i;

	TBT_CHECK(emu_load(p) == 0, "tb_csemu topology=n1sdp");
	TBT_CHECK(static_status("suspended") == 2,
		  "n1sdp: both static funnels' devices bound to tracebuf-cs and runtime-suspended while unused (%d)",
		  static_status("suspended"));
	TBT_CHECK(cs_open(&x, 3, 1 << 20, 0, 0) == 0, "n1sdp session");
	TBT_CHECK(static_status("active") == 2, "n1sdp: both static funnels active for the session (%d)",
		  static_status("active"));
	TBT_CHECK(tracebuf_enable(&x.s) == 0, "n1sdp enable");
	run_for(&x, 300);
	TBT_CHECK(tracebuf_disable(&x.s) == 0, "n1sdp disable");
	consume(&x);
	for (i = 0; i < 2; i++)
		TBT_CHECK(cs_stat(sfn[i], "passed") > 0 && cs_stat(sfn[i], "passed") != ~0ULL &&
			  cs_stat(sfn[i], "violations") == 0,
			  "%s: passed %llu, violations %llu", sfn[i], cs_stat(sfn[i], "passed"),
			  cs_stat(sfn[i], "violations"));
	TBT_CHECK(x.published >= 64 * 1024, "n1sdp: %llu bytes published",
		  (unsigned long long)x.published);
	sess_close(&x);
	TBT_CHECK(total_violations() == 0, "n1sdp: violations %llu", total_violations());
	TBT_CHECK(static_status("suspended") == 2,
		  "n1sdp: both static funnels suspended again once the session is gone");

	/* Without the references the trace crosses suspended static funnels. */
	TBT_CHECK(write_file("/sys/module/tracebuf/parameters/test_skip_pm", "Y") == 0,
		  "test_skip_pm");
	if (cs_open(&x, 3, 1 << 20, 0, 0) == 0 && tracebuf_enable(&x.s) == 0) {
		run_for(&x, 300);
		tracebuf_disable(&x.s);
	}
	sess_close(&x);
	write_file("/sys/module/tracebuf/parameters/test_skip_pm", "N");
	viol = total_violations();
	for (i = 0; i < 2; i++)
		sv[i] = cs_stat(sfn[i], "violations");
	printf("# n1sdp without runtime PM references: %llu violations (SFN0 %llu, SFN1 %llu)\n",
	       viol, sv[0], sv[1]);
	TBT_CHECK(viol && viol != ~0ULL && sv[0] && sv[0] != ~0ULL && sv[1] && sv[1] != ~0ULL,
		  "n1sdp without runtime PM references: trace through the suspended static funnels is a violation");
	TBT_CHECK(tbt_rmmod("tb_csemu") == 0, "rmmod tb_csemu");
}

/* tb_csemu's power file (csemu_pwr.c): key's value ("domain", "clk3", ...), or ~0. */
static unsigned long long power_stat(const char *key)
{
	char k[64], line[256];
	unsigned long long v, r = ~0ULL;
	FILE *f = fopen(CSEMU "/power", "r");

	if (!f)
		return ~0ULL;
	while (fgets(line, sizeof(line), f))
		if (sscanf(line, "%63s %llu", k, &v) == 2 && !strcmp(k, key))
			r = v;
	fclose(f);
	return r;
}

/*
 * Every clock of the emulated SoC and its power domain off, waiting up
 * to 2 s: runtime PM suspends a device, and genpd powers its domain off,
 * after the last reference goes, not at once.
 */
static int power_all_off(void)
{
	char k[64], line[256];
	unsigned long long v;
	int i, on, n;
	FILE *f;

	for (i = 0; i < 100; i++) {
		f = fopen(CSEMU "/power", "r");
		if (!f)
			return 0;
		on = n = 0;
		while (fgets(line, sizeof(line), f))
			if (sscanf(line, "%63s %llu", k, &v) == 2 &&
			    (!strncmp(k, "clk", 3) || !strcmp(k, "domain"))) {
				n++;
				on += v != 0;
			}
		fclose(f);
		if (n && !on)
			return 1;
		msleep(20);
	}
	return 0;
}

/* The components bound to tracebuf's driver (its sysfs directory's links). */
static int bound_to_tracebuf(void)
{
	DIR *d = opendir("/sys/bus/amba/drivers/tracebuf-cs");
	struct dirent *de;
	int n = 0;

	if (!d)
		return -1;
	while ((de = readdir(d)))
		n += strchr(de->d_name, '@') != NULL;
	closedir(d);
	return n;
}

/* The components tb_csemu tells tracebuf about (its topology file). */
static int topology_components(void)
{
	char line[256];
	int n = 0;
	FILE *f = fopen(CSEMU "/topology", "r");

	if (!f)
		return -1;
	while (fgets(line, sizeof(line), f))
		n += strncmp(line, "wire ", 5) != 0;
	fclose(f);
	return n;
}

/*
 * Clocks and power (issue 15): every component of an emulated SoC is an
 * AMBA device bound to tracebuf's driver (tracebuf-cs), its apb_pclk
 * (and atclk) and the SoC's debug power domain (Juno's; MSM8916's nodes
 * name none) the emulator's, on only
 * while tracebuf holds a runtime PM reference; a register access while
 * one is off is a violation. They are off once the backend has probed
 * and no session uses them, on for a session, off again after it; with
 * tracebuf's test_skip_pm (no reference taken) a session's accesses find
 * them off, which the emulator counts.
 */
static void test_power(const struct topo *t)
{
	char param[32];
	const char *p[] = { param, NULL };
	unsigned long long ons, viol, rpm;
	struct sess x;
	int n;

	snprintf(param, sizeof(param), "topology=%s", t->name);
	TBT_CHECK(emu_load(p) == 0, "tb_csemu %s", param);
	n = bound_to_tracebuf();
	TBT_CHECK(n > 0 && n == topology_components(), "%s: %d components bound to tracebuf-cs, %d in the topology",
		  t->name, n, topology_components());
	rpm = power_stat("runtime_pm");
	TBT_CHECK(rpm == 0 || rpm == 1, "%s: runtime_pm %llu", t->name, rpm);
	if (!rpm)
		printf("# %s: a kernel without runtime PM (CONFIG_PM): the clocks and the domain stay on\n",
		       t->name);
	TBT_CHECK(!rpm || power_all_off(),
		  "%s: every clock and the power domain off once the backend has probed", t->name);
	/* Juno's links and TMCs are in the domain: they lost their state. */
	if (rpm && power_stat("in_domain") > 0)
		TBT_CHECK(power_stat("state_lost") > 0 && power_stat("state_lost") != ~0ULL,
			  "%s: the domain's power-down reset its components (state_lost %llu)",
			  t->name, power_stat("state_lost"));
	ons = power_stat("domain_ons");
	TBT_CHECK(cs_open(&x, 3, t->aux, 0, 0) == 0, "%s session", t->name);
	TBT_CHECK(power_stat("clocks_on") > 0, "%s: clocks on for the session", t->name);
	/* MSM8916's CoreSight nodes name no power domain: only Juno's are in one. */
	if (power_stat("in_domain") > 0)
		TBT_CHECK(power_stat("domain") == 1 && (!rpm || power_stat("domain_ons") > ons),
			  "%s: the domain powered on for the session", t->name);
	TBT_CHECK(tracebuf_enable(&x.s) == 0, "%s enable", t->name);
	run_for(&x, 300);
	TBT_CHECK(tracebuf_disable(&x.s) == 0, "%s disable", t->name);
	consume(&x);
	TBT_CHECK(x.published >= 64 * 1024, "%s: %llu bytes published", t->name,
		  (unsigned long long)x.published);
	sess_close(&x);
	TBT_CHECK(total_violations() == 0, "%s: violations %llu", t->name, total_violations());
	TBT_CHECK(!rpm || power_all_off(),
		  "%s: every clock and the domain off again once the session is gone", t->name);
	if (!rpm) {
		TBT_CHECK(tbt_rmmod("tb_csemu") == 0, "rmmod tb_csemu");
		return;
	}

	/*
	 * Without the reset of idle links at a session's power-up, the
	 * replicator comes up from the domain's power-down with every ID
	 * passing and its claim tag clear, and the path's enable programs it
	 * unclaimed (Juno: the only SoC here whose links are in a domain).
	 */
	if (power_stat("in_domain") > 0) {
		TBT_CHECK(power_all_off(), "%s: the domain off again", t->name);
		TBT_CHECK(write_file("/sys/module/tracebuf/parameters/test_skip_relink", "Y") == 0,
			  "test_skip_relink");
		if (cs_open(&x, 3, t->aux, 0, 0) == 0 && tracebuf_enable(&x.s) == 0) {
			run_for(&x, 100);
			tracebuf_disable(&x.s);
		}
		sess_close(&x);
		write_file("/sys/module/tracebuf/parameters/test_skip_relink", "N");
		viol = total_violations();
		printf("# %s without the reset of idle links at power-up: %llu violations\n",
		       t->name, viol);
		TBT_CHECK(viol && viol != ~0ULL,
			  "%s without the reset of idle links at power-up: the replicator is programmed unclaimed",
			  t->name);
		/* The counts carry over: the next case needs a fresh emulator. */
		TBT_CHECK(tbt_rmmod("tb_csemu") == 0, "rmmod tb_csemu");
		TBT_CHECK(emu_load(p) == 0, "tb_csemu %s", param);
		TBT_CHECK(power_all_off(), "%s: every clock and the domain off", t->name);
	}

	/* Without the references the accesses find the components off. */
	TBT_CHECK(write_file("/sys/module/tracebuf/parameters/test_skip_pm", "Y") == 0,
		  "test_skip_pm");
	if (cs_open(&x, 3, t->aux, 0, 0) == 0 && tracebuf_enable(&x.s) == 0) {
		run_for(&x, 100);
		tracebuf_disable(&x.s);
	}
	sess_close(&x);
	viol = total_violations();
	write_file("/sys/module/tracebuf/parameters/test_skip_pm", "N");
	printf("# %s without runtime PM references: %llu violations\n", t->name, viol);
	TBT_CHECK(viol && viol != ~0ULL,
		  "%s without runtime PM references: the accesses to unclocked, unpowered components are violations",
		  t->name);
	/* The next test loads a fresh emulator: no violation carried over. */
	TBT_CHECK(tbt_rmmod("tb_csemu") == 0, "rmmod tb_csemu");
}

/* A TMC register as tb_csemu shows it (sinkN/regs), or ~0. */
static unsigned long long sink_reg(int sink, const char *name)
{
	char path[128], k[64], line[256];
	unsigned long long v, r = ~0ULL;
	FILE *f;

	snprintf(path, sizeof(path), CSEMU "/sink%d/regs", sink);
	f = fopen(path, "r");
	if (!f)
		return ~0ULL;
	while (fgets(line, sizeof(line), f))
		if (sscanf(line, "%63s %llx", k, &v) == 2 && !strcmp(k, name))
			r = v;
	fclose(f);
	return r;
}

/*
 * Issue 15 item 6: what a kernel before a kexec (or firmware) left: the
 * ETR capturing into a buffer of its own and every self-hosted claim tag
 * set. Probing stops the ETR (flushed and stopped before it is
 * disabled) and clears the stale tags, and a session then traces. The
 * ETR is programmed as the kernel does it: AXICTL read-modify-written
 * (SoC-600: RCACHE write-back too, WrBurstLen 16, scatter-gather) and TRG
 * written before each capture (the emulator counts a violation
 * otherwise).
 */
static void test_reclaim(void)
{
	static const char *const p[] = { "stale_claim=1", "left_running=1", NULL };
	unsigned long long axictl;
	struct sess x;

	TBT_CHECK(emu_load(p) == 0, "tb_csemu stale_claim=1 left_running=1");
	TBT_CHECK(cs_stat("sink0", "state") == 0, "the ETR left capturing is disabled at probe (state %llu)",
		  cs_stat("sink0", "state"));
	TBT_CHECK(cs_stat("sink0", "claim") == 0 && cs_stat("etm0", "claim") == 0 &&
		  cs_stat("etm1", "claim") == 0, "stale claim tags cleared: sink %llu etm0 %llu etm1 %llu",
		  cs_stat("sink0", "claim"), cs_stat("etm0", "claim"), cs_stat("etm1", "claim"));
	TBT_CHECK(total_violations() == 0, "reclaim: violations at probe %llu", total_violations());
	TBT_CHECK(cs_open(&x, 3, 256 * 1024, 0, 0) == 0, "reclaim session");
	TBT_CHECK(tracebuf_enable(&x.s) == 0, "reclaim enable: %s", strerror(errno));
	run_for(&x, 300);
	axictl = sink_reg(0, "AXICTL");
	TBT_CHECK(tracebuf_disable(&x.s) == 0, "reclaim disable");
	consume(&x);
	TBT_CHECK(x.published > 0, "reclaim: published %llu", (unsigned long long)x.published);
	TBT_CHECK(axictl == 0xf0fbe, "AXICTL %#llx: PROT_CTL_B1, AXCACHE 0xf, SG, WrBurstLen 0xf, RCACHE 0xf",
		  axictl);
	TBT_CHECK(total_violations() == 0, "reclaim: violations %llu", total_violations());
	sess_close(&x);
}

/*
 * Firmware properties (issue 15 item 5): ETMs with qcom,skip-power-up
 * (TRCPDCR is out of reach: the emulator counts any access) and an ETR
 * with arm,max-burst-size = 7 (AXICTL.WrBurstLen).
 */
static void test_firmware_props(void)
{
	static const char *const p[] = { "skip_power_up=1", "max_burst=7", NULL };
	unsigned long long axictl;
	struct sess x;

	TBT_CHECK(emu_load(p) == 0, "tb_csemu skip_power_up=1 max_burst=7");
	TBT_CHECK(cs_open(&x, 3, 256 * 1024, 0, 0) == 0, "props session");
	TBT_CHECK(tracebuf_enable(&x.s) == 0, "props enable");
	run_for(&x, 300);
	axictl = sink_reg(0, "AXICTL");
	TBT_CHECK(tracebuf_disable(&x.s) == 0, "props disable");
	consume(&x);
	TBT_CHECK(x.published > 0, "props: published %llu", (unsigned long long)x.published);
	TBT_CHECK((axictl >> 8 & 0xf) == 7, "AXICTL %#llx: WrBurstLen 7", axictl);
	TBT_CHECK(total_violations() == 0, "props: violations %llu (TRCPDCR touched?)",
		  total_violations());
	sess_close(&x);
}

/*
 * Consume like consume(), counting the published 16-byte frames that are
 * all zero: the formatter never writes one (a padding frame starts with
 * 0x01), so each is a frame the CPU did not see (a DMA sync missing).
 */
static unsigned long long consume_zero_frames(struct sess *x)
{
	const struct tracebuf_record *r;
	unsigned long long zero = 0;
	uint64_t o, i;

	while ((r = tracebuf_peek(&x->s)) != NULL) {
		if (r->hdr.type == TRACEBUF_REC_AUX) {
			const struct tracebuf_rec_aux *a = (const void *)r;

			for (o = a->aux_offset; o + 16 <= a->aux_offset + a->aux_size; o += 16) {
				for (i = 0; i < 16; i++)
					if (x->aux[(o + i) & (x->aux_size - 1)])
						break;
				zero += i == 16;
			}
			x->published += a->aux_size;
			x->next = a->aux_offset + a->aux_size;
			x->aux_tail = x->next;
			tracebuf_smp_store_release(&x->s.ctl->aux_tail, x->aux_tail);
		} else if (r->hdr.type == TRACEBUF_REC_LOST) {
			x->lost += ((const struct tracebuf_rec_lost *)r)->count;
		}
		tracebuf_advance(&x->s, r);
	}
	return zero;
}

/*
 * The sink behind an IOMMU (dma=iommu: it reaches only what tracebuf
 * mapped for its own device) and non-coherent (dma=noncoherent: the CPU
 * sees its writes only after dma_sync_single_for_cpu(), it sees the
 * tables only after dma_sync_single_for_device()). Returns 1 if trace
 * arrived whole: bytes accounted for, no all-zero frame, no fault, no
 * violation; 0 otherwise (printed). skip: tracebuf's test_skip_dma_sync.
 */
static int dma_run(const char *mode, const char *skip)
{
	char param[32];
	const char *p[] = { param, NULL };
	unsigned long long b0, b1, zero = 0, memerr, viol;
	struct sess x;
	int i, ok = 1;

	snprintf(param, sizeof(param), "dma=%s", mode);
	TBT_CHECK(emu_load(p) == 0, "tb_csemu %s", param);
	TBT_CHECK(write_file("/sys/module/tracebuf/parameters/test_skip_dma_sync",
			     skip ? skip : "none") == 0, "test_skip_dma_sync");
	b0 = sink_bytes(0);
	TBT_CHECK(cs_open(&x, 3, 1 << 20, 0, 0) == 0, "%s session", param);
	TBT_CHECK(tracebuf_enable(&x.s) == 0, "%s enable", param);
	for (i = 0; i < 30; i++) {
		tracebuf_wait(&x.s, 20);
		zero += consume_zero_frames(&x);
	}
	TBT_CHECK(tracebuf_disable(&x.s) == 0, "%s disable", param);
	zero += consume_zero_frames(&x);
	b1 = sink_bytes(0);
	memerr = cs_stat("sink0", "memerr");
	viol = total_violations();
	if (b1 - b0 + x.s.ctl->aux_padding != x.published + x.lost || x.published < 64 * 1024)
		ok = 0;
	sess_close(&x);
	write_file("/sys/module/tracebuf/parameters/test_skip_dma_sync", "none");
	printf("# %s%s%s: sink %llu, published %llu, lost %llu, zero frames %llu, memerr %llu, violations %llu\n",
	       param, skip ? " without the sync for " : "", skip ? skip : "", b1 - b0,
	       (unsigned long long)x.published, (unsigned long long)x.lost, zero, memerr, viol);
	return ok && !zero && !memerr && !viol;
}

/* Wait (bounded) until ETM cpu has generated more than after bytes. */
static int etm_traces(struct sess *x, int cpu, unsigned long long after)
{
	char c[16];
	int i;

	snprintf(c, sizeof(c), "etm%d", cpu);
	for (i = 0; i < 100; i++) {
		if (cs_stat(c, "bytes") > after + 4096)
			return 1;
		run_for(x, 20);
	}
	return 0;
}

static int cpu_pm(int cpu, int n)
{
	char path[128], v[16];
	int fd, r;

	snprintf(path, sizeof(path), CSEMU "/etm%d/cpu_pm", cpu);
	snprintf(v, sizeof(v), "%d", n);
	fd = open(path, O_WRONLY);
	if (fd < 0)
		return -errno;
	r = write(fd, v, strlen(v)) < 0 ? -errno : 0;
	close(fd);
	return r;
}

/*
 * CPU power-down while tracing (issue 15 item 4): with loses_context=1
 * (the DT's arm,coresight-loses-context-with-cpu) every power cycle of a
 * CPU resets its ETM; tracebuf's CPU PM notifier disables it on
 * CPU_PM_ENTER (drained, TRFCR prohibiting) and enables it again on
 * CPU_PM_EXIT, so it traces on, with the same programming, and no byte
 * goes unaccounted. Without the property nothing is lost and the
 * notifier leaves the ETM alone (the emulator keeps it too).
 */
static void test_cpu_pm(int loses)
{
	const char *p[] = { loses ? "loses_context=1" : "loses_context=0", NULL };
	unsigned long long b0, b1, g, id[NCPU];
	char c[16];
	struct sess x;
	int cpu, i;

	TBT_CHECK(emu_load(p) == 0, "tb_csemu %s", p[0]);
	if (cpu_pm(0, 1) == -EOPNOTSUPP) {
		/* No CONFIG_CPU_PM (the debug kernels): no CPU ever powers down. */
		printf("# %s: this kernel has no CPU PM notifiers: skipped\n", p[0]);
		return;
	}
	b0 = sink_bytes(0);
	TBT_CHECK(cs_open(&x, 3, 1 << 20, 0, 0) == 0, "cpu_pm session");
	TBT_CHECK(tracebuf_enable(&x.s) == 0, "enable");
	run_for(&x, 200);
	for (cpu = 0; cpu < NCPU; cpu++)
		id[cpu] = etm_reg(cpu, "TRCTRACEIDR");
	for (i = 0; i < 4; i++)
		for (cpu = 0; cpu < NCPU; cpu++) {
			snprintf(c, sizeof(c), "etm%d", cpu);
			g = cs_stat(c, "bytes");
			TBT_CHECK(cpu_pm(cpu, 3) == 0, "cpu%d: 3 power cycles: %s", cpu,
				  strerror(errno));
			TBT_CHECK(etm_traces(&x, cpu, g), "%s: cpu%d traces on after its power-down",
				  p[0], cpu);
		}
	for (cpu = 0; cpu < NCPU; cpu++) {
		snprintf(c, sizeof(c), "etm%d", cpu);
		TBT_CHECK(cs_stat(c, "pm_cycles") == 12 + !cpu, "cpu%d: %llu power cycles", cpu,
			  cs_stat(c, "pm_cycles"));
		TBT_CHECK(loses ? cs_stat(c, "pm_resets") == 12 + !cpu : cs_stat(c, "pm_resets") == 0,
			  "cpu%d: the ETM was reset %llu times", cpu, cs_stat(c, "pm_resets"));
		TBT_CHECK(etm_enabled(&x, cpu, 1), "%s: ETM%d enabled", p[0], cpu);
		TBT_CHECK(etm_reg(cpu, "TRCTRACEIDR") == id[cpu],
			  "ETM%d reprogrammed the same (trace ID %#llx, was %#llx)", cpu,
			  etm_reg(cpu, "TRCTRACEIDR"), id[cpu]);
	}
	TBT_CHECK(tracebuf_disable(&x.s) == 0, "disable");
	consume(&x);
	b1 = sink_bytes(0);
	TBT_CHECK(b1 - b0 + x.s.ctl->aux_padding == x.published + x.lost,
		  "%s: sink wrote %llu + padding %llu, published %llu + lost %llu", p[0], b1 - b0,
		  (unsigned long long)x.s.ctl->aux_padding,
		  (unsigned long long)x.published, (unsigned long long)x.lost);
	TBT_CHECK(total_violations() == 0, "%s: emulator violations %llu", p[0],
		  total_violations());
	sess_close(&x);
}

/* Without FEAT_TRF, TRFCR_EL1 is never touched (it is UNDEFINED). */
static void test_no_trf(void)
{
	static const char *const p[] = { "trf=0", NULL };
	static const char *const allow[] = { "trf_allow", NULL };
	unsigned long long g;
	struct sess x;

	TBT_CHECK(emu_load(p) == 0, "tb_csemu trf=0");
	g = cs_stat("etm0", "bytes");
	TBT_CHECK(cs_open(&x, 3, 1 << 20, 0, 0) == 0, "session without FEAT_TRF");
	TBT_CHECK(tracebuf_enable(&x.s) == 0, "enable");
	TBT_CHECK(etm_traces(&x, 0, g), "traces without FEAT_TRF");
	TBT_CHECK(tracebuf_disable(&x.s) == 0, "disable");
	consume(&x);
	TBT_CHECK(!ops_has(0, allow), "TRFCR_EL1 left alone without FEAT_TRF");
	TBT_CHECK(total_violations() == 0, "trf=0: emulator violations %llu", total_violations());
	sess_close(&x);
}

/*
 * HiSilicon Hip08 (issue 15 item 8): its ETM cannot slow the core, so
 * the core's commit rate is lowered before the ETM is enabled and
 * restored once it is disabled, on that core, as the kernel's
 * etm4_hisi_config_core_commit() does.
 */
static void test_hip08(void)
{
	static const char *const p[] = { "hip08=1", NULL };
	static const char *const seq[] = { "commit_low", "en", "commit_full", "en_clear", NULL };
	unsigned long long g;
	struct sess x;

	TBT_CHECK(emu_load(p) == 0, "tb_csemu hip08=1");
	g = cs_stat("etm0", "bytes");
	TBT_CHECK(cs_open(&x, 3, 1 << 20, 0, 0) == 0, "Hip08 session");
	TBT_CHECK(tracebuf_enable(&x.s) == 0, "enable");
	TBT_CHECK(etm_traces(&x, 0, g), "the Hip08 ETM traces");
	TBT_CHECK(tracebuf_disable(&x.s) == 0, "disable");
	consume(&x);
	TBT_CHECK(ops_has(0, seq) && ops_has(1, seq),
		  "core commit lowered before EN and restored before EN clears");
	TBT_CHECK(cs_stat("etm0", "commit") == 0 && cs_stat("etm1", "commit") == 0,
		  "full commit rate again after DISABLE");
	TBT_CHECK(total_violations() == 0, "hip08: emulator violations %llu", total_violations());
	sess_close(&x);
}

static void test_dma(void)
{
	TBT_CHECK(dma_run("iommu", NULL), "behind an IOMMU: every byte through the sink's own mappings");
	TBT_CHECK(dma_run("noncoherent", NULL), "non-coherent: every byte synced before it is published");
	TBT_CHECK(!dma_run("noncoherent", "cpu"), "non-coherent without sync_for_cpu: the check fails");
	TBT_CHECK(!dma_run("noncoherent", "tables"), "non-coherent without syncing the tables: the check fails");
}

/* This CPU's trace ID as GET_CAPS reports it, or -1. */
static int caps_trace_id(int cpu)
{
	struct tracebuf_cs_caps c;
	struct tracebuf_session s;
	int id = -1;

	if (tracebuf_open(&s, 0))
		return -1;
	if (tracebuf_get_caps(&s, "coresight", cpu, &c, sizeof(c)) == (int)sizeof(c))
		id = c.trace_id;
	tracebuf_close(&s);
	return id;
}

/*
 * Issue 15 item 8: with coresight.ko loaded on a kernel that has the
 * trace-ID allocator (6.4+), every ETM's ID comes from it (0x10 + 2 * cpu,
 * its legacy preference), and is given back when the backend goes (then
 * coresight.ko can be unloaded); without it, the static scheme (0x10 +
 * index in the sink).
 */
static void test_kernel_ids(void)
{
	static const char *const mp[] = { "modprobe", "coresight", NULL };
	static const char *const rm[] = { "rmmod", "coresight", NULL };
	struct utsname u;
	int maj = 0, min = 0, allocator;

	uname(&u);
	sscanf(u.release, "%d.%d", &maj, &min);
	allocator = maj > 6 || (maj == 6 && min >= 4);
	if (tbt_run(mp)) {
		/* The debug kernels (6.1) ship no modules. */
		TBT_CHECK(!allocator, "modprobe coresight on %s", u.release);
		printf("# no coresight.ko on %s: static trace IDs only\n", u.release);
		return;
	}
	TBT_CHECK(emu_load(NULL) == 0, "tb_csemu with coresight.ko loaded");
	TBT_CHECK(caps_trace_id(0) == 0x10 && caps_trace_id(1) == (allocator ? 0x12 : 0x11),
		  "trace IDs %#x %#x (%s)", caps_trace_id(0), caps_trace_id(1),
		  allocator ? "the kernel's allocator" : "static");
	TBT_CHECK(tbt_rmmod("tb_csemu") == 0, "rmmod tb_csemu");
	TBT_CHECK(tbt_run(rm) == 0, "coresight.ko is let go with the backend");
	TBT_CHECK(emu_load(NULL) == 0, "tb_csemu without coresight.ko");
	TBT_CHECK(caps_trace_id(0) == 0x10 && caps_trace_id(1) == 0x11,
		  "static trace IDs again: %#x %#x", caps_trace_id(0), caps_trace_id(1));
}

/* The kernel's own driver owns the sink: refused, with how to hand it over. */
static void test_owned(void)
{
	static const char *const p[] = { "owned=1", NULL };
	const char *dm[] = { "sh", "-c", "dmesg | grep -q 'driven by coresight-tmc.*modprobe -r'", NULL };

	TBT_CHECK(emu_load(p) == 0, "tb_csemu owned=1 loads (and registers nothing)");
	TBT_CHECK(tbt_run(dm) == 0, "the refusal says how to hand it over");
	{
		struct sess x;

		TBT_CHECK(cs_open(&x, 3, 256 * 1024, 0, 0) != 0, "no session on an owned sink");
		sess_close(&x);
	}
}

/* --- ETB/ETF: the last stop's copy-out, left to the drain cycle ---------- */

#define DRAIN_MS	"/sys/module/tracebuf/parameters/drain_ms"

/* tracebuf's drain period set to ms; the old one in old. */
static void drain_ms_set(const char *ms, char *old, size_t size)
{
	FILE *f = fopen(DRAIN_MS, "r");

	snprintf(old, size, "10");
	if (f) {
		if (!fgets(old, size, f))
			snprintf(old, size, "10");
		fclose(f);
	}
	TBT_CHECK(write_file(DRAIN_MS, ms) == 0, "drain_ms %s", ms);
}

/*
 * What the sink wrote since b0, with the kernel's padding, is what was
 * published plus what was reported lost: exactly, or at least that when
 * a LOST count is a lower bound (the SRAM wrapped between two cycles).
 */
static int etf_acct(struct sess *x, unsigned long long b0)
{
	unsigned long long w = sink_bytes(0) - b0 + x->s.ctl->aux_padding;
	unsigned long long pl = x->published + x->lost;

	return x->lost_atleast ? w >= pl : w == pl;
}

static void etf_check_acct(struct sess *x, unsigned long long b0, const char *what)
{
	TBT_CHECK(x->published > 0 && etf_acct(x, b0),
		  "%s: sink %llu + padding %llu %s published %llu + lost %llu", what,
		  sink_bytes(0) - b0, (unsigned long long)x->s.ctl->aux_padding,
		  x->lost_atleast ? ">=" : "=", (unsigned long long)x->published,
		  (unsigned long long)x->lost);
}

/*
 * ETF, a session of CPU 1 alone: CPU 1 going offline is the session's
 * last stop, from its hotplug teardown callback with interrupts off. It
 * only halts the SRAM and kicks a drain cycle (tb_cs_sram_stop()), which
 * must read it out and publish it while the CPU stays offline: no
 * DISABLE runs it. Then CPU 1 comes back, once at once (the copy may
 * still be pending: the start only joins want and the cycle restarts
 * the sink) and once after the copy was published: tracing must resume
 * both times, and at the end every byte is accounted for, the spans
 * contiguous, at most 1 KiB read per stretch of interrupts off.
 */
static void test_etf_hotplug(void)
{
	static const char *const p[] = { "sink=etf", "rate=512", NULL };
	unsigned long long b0, e1;
	struct sess x;
	int round, i;

	TBT_CHECK(emu_load(p) == 0, "tb_csemu sink=etf rate=512");
	b0 = sink_bytes(0);
	TBT_CHECK(cs_open(&x, 2, 256 * 1024, 0, 0) == 0, "ETF hotplug session (cpu1)");
	TBT_CHECK(tracebuf_enable(&x.s) == 0, "ETF hotplug enable");
	for (round = 0; round < 4; round++) {
		int wait = round & 1;	/* online after the copy was published */

		run_for(&x, 200);
		e1 = cs_stat("etm1", "enables");
		TBT_CHECK(set_online(1, 0) == 0, "cpu1 offline (round %d)", round);
		if (wait) {
			/* Published by the kicked cycle alone (bounded). */
			for (i = 0; i < 150; i++) {
				consume(&x);
				if (etf_acct(&x, b0) && !x.lost_atleast)
					break;
				msleep(20);
			}
			etf_check_acct(&x, b0, "ETF hotplug: cpu1 offline, its last stop published");
			TBT_CHECK(cs_stat("etm1", "enabled") == 0 && cs_stat("sink0", "state") == 0,
				  "ETF hotplug: ETM1 off, the sink disabled (state %llu)",
				  cs_stat("sink0", "state"));
		}
		TBT_CHECK(set_online(1, 1) == 0, "cpu1 online (round %d)", round);
		TBT_CHECK(etm_enabled(&x, 1, 1) && cs_stat("etm1", "enables") > e1,
			  "ETF hotplug: ETM1 traces again after cpu1 came back (%s)",
			  wait ? "after the copy" : "copy maybe pending");
	}
	run_for(&x, 200);
	TBT_CHECK(tracebuf_disable(&x.s) == 0, "ETF hotplug disable");
	consume(&x);
	etf_check_acct(&x, b0, "ETF hotplug: at the end");
	TBT_CHECK(total_violations() == 0, "ETF hotplug: violations %llu", total_violations());
	check_copy_irqoff("ETF hotplug");
	sess_close(&x);
}

/*
 * Snapshot mode: consume a read-only ring's OVERWRITE spans, counting
 * them, their all-zero 16-byte frames (never written by the formatter:
 * bytes the copy-out did not write) and those shorter than the ring.
 */
static void etf_snap_consume(struct sess *x, unsigned long long *spans,
			     unsigned long long *zero, unsigned long long *short_spans)
{
	const struct tracebuf_record *r;
	uint64_t o, i;

	while ((r = tracebuf_peek(&x->s)) != NULL) {
		if (r->hdr.type == TRACEBUF_REC_AUX) {
			const struct tracebuf_rec_aux *a = (const void *)r;

			(*spans)++;
			x->published += a->aux_size;
			if (a->flags & TRACEBUF_AUX_F_OVERWRITE)
				x->overwrite++;
			if (a->aux_size < x->aux_size)
				(*short_spans)++;
			for (o = a->aux_offset; o + 16 <= a->aux_offset + a->aux_size; o += 16) {
				for (i = 0; i < 16; i++)
					if (x->aux[(o + i) & (x->aux_size - 1)])
						break;
				*zero += i == 16;
			}
		}
		tracebuf_advance(&x->s, r);
	}
}

/*
 * An ETF in snapshot mode (a read-only AUX ring of 16 KiB, the SRAM 64
 * KiB and wrapping between snapshots): nothing is published before
 * SNAPSHOT; each SNAPSHOT (a cycle that halts and reads out the SRAM
 * itself) publishes one OVERWRITE span of the whole ring, with no frame
 * left unwritten, and tracing goes on; CPU 1, the session's only CPU,
 * going offline (the last stop: the copy-out left to the cycle it kicks)
 * publishes one such span without any SNAPSHOT; SNAPSHOT while it is
 * offline publishes nothing; back online it traces and snapshots again,
 * and DISABLE publishes the last ring. At most 1 KiB read per stretch of
 * interrupts off, no violation.
 */
static void test_etf_snapshot(void)
{
	static const char *const p[] = { "sink=etf", "rate=2048", NULL };
	unsigned long long spans = 0, zero = 0, shorts = 0, n;
	struct sess x;
	int i;

	TBT_CHECK(emu_load(p) == 0, "tb_csemu sink=etf rate=2048");
	TBT_CHECK(cs_open(&x, 2, 16 * 1024, 1, 0) == 0, "ETF snapshot session (cpu1)");
	TBT_CHECK(tracebuf_enable(&x.s) == 0, "ETF snapshot enable");
	msleep(300);
	etf_snap_consume(&x, &spans, &zero, &shorts);
	TBT_CHECK(spans == 0, "ETF snapshot: nothing published before SNAPSHOT (%llu spans)",
		  spans);
	for (i = 0; i < 3; i++) {
		n = spans;
		TBT_CHECK(tracebuf_snapshot(&x.s) == 0, "ETF SNAPSHOT %d: %s", i, strerror(errno));
		etf_snap_consume(&x, &spans, &zero, &shorts);
		TBT_CHECK(spans == n + 1, "ETF SNAPSHOT %d: one span (%llu)", i, spans - n);
		TBT_CHECK(etm_enabled(NULL, 1, 1), "ETF snapshot: tracing again after SNAPSHOT %d", i);
		msleep(200);
	}
	/* The last stop from the hotplug callback: published by its cycle. */
	n = spans;
	TBT_CHECK(set_online(1, 0) == 0, "ETF snapshot: cpu1 offline");
	for (i = 0; i < 150 && spans == n; i++) {
		msleep(20);
		etf_snap_consume(&x, &spans, &zero, &shorts);
	}
	TBT_CHECK(spans == n + 1, "ETF snapshot: cpu1's last stop published one span (%llu)",
		  spans - n);
	n = spans;
	TBT_CHECK(tracebuf_snapshot(&x.s) == 0, "ETF SNAPSHOT with cpu1 offline: %s",
		  strerror(errno));
	etf_snap_consume(&x, &spans, &zero, &shorts);
	TBT_CHECK(spans == n, "ETF SNAPSHOT with cpu1 offline: nothing new (%llu)", spans - n);
	TBT_CHECK(set_online(1, 1) == 0, "ETF snapshot: cpu1 online");
	TBT_CHECK(etm_enabled(NULL, 1, 1), "ETF snapshot: tracing again once cpu1 is back");
	msleep(200);
	n = spans;
	TBT_CHECK(tracebuf_snapshot(&x.s) == 0, "ETF SNAPSHOT after cpu1 came back");
	msleep(200);
	TBT_CHECK(tracebuf_disable(&x.s) == 0, "ETF snapshot disable");
	etf_snap_consume(&x, &spans, &zero, &shorts);
	TBT_CHECK(spans == n + 2, "ETF snapshot: SNAPSHOT and DISABLE published one span each (%llu)",
		  spans - n);
	TBT_CHECK(x.overwrite == spans && shorts == 0,
		  "ETF snapshot: %llu spans, %llu OVERWRITE, %llu shorter than the ring",
		  spans, (unsigned long long)x.overwrite, shorts);
	TBT_CHECK(zero == 0, "ETF snapshot: %llu all-zero frames published", zero);
	TBT_CHECK(total_violations() == 0, "ETF snapshot: violations %llu", total_violations());
	check_copy_irqoff("ETF snapshot");
	sess_close(&x);
}

/*
 * The session's only CPU goes offline (its last stop halts the SRAM and
 * leaves the copy-out to a cycle it kicked) and, in a child, the AUX
 * munmap or the close comes as soon as the ETM is seen off, while that
 * copy may still be pending: how = 0, AUX munmap (the data ring stays:
 * every byte must be published there); 1, munmap and close; 2, close
 * with the AUX area still mapped, then munmap (the release). Afterwards
 * the sink is disabled and no ETM is on.
 */
static void etf_close_pending(int how, unsigned long long b0, const char *what)
{
	struct sess x;
	pid_t pid;
	int st, i;

	TBT_CHECK(cs_open(&x, 2, 256 * 1024, 0, 0) == 0, "%s: session", what);
	TBT_CHECK(tracebuf_enable(&x.s) == 0, "%s: enable", what);
	run_for(&x, 400);
	pid = fork();
	if (pid == 0)
		_exit(set_online(1, 0) ? 1 : 0);
	for (i = 0; i < 20000 && cs_stat("etm1", "enabled") != 0; i++)
		;
	if (how == 0) {
		munmap(x.aux, x.aux_size);
		x.aux = NULL;
	} else if (how == 1) {
		sess_close(&x);
	} else {
		tracebuf_close(&x.s);
		munmap(x.aux, x.aux_size);
		x.aux = NULL;
	}
	TBT_CHECK(waitpid(pid, &st, 0) == pid && WIFEXITED(st) && !WEXITSTATUS(st),
		  "%s: cpu1 offline", what);
	if (how == 0) {
		consume(&x);
		etf_check_acct(&x, b0, what);
		sess_close(&x);
	}
	TBT_CHECK(cs_stat("sink0", "state") == 0 && cs_stat("etm1", "enabled") == 0,
		  "%s: the sink disabled (state %llu), ETM1 off", what, cs_stat("sink0", "state"));
	TBT_CHECK(set_online(1, 1) == 0, "%s: cpu1 online", what);
	TBT_CHECK(cs_stat("etm1", "enabled") == 0 && cs_stat("sink0", "state") == 0,
		  "%s: nothing restarted for the closed session", what);
}

/*
 * munmap and close while an ETF's last copy-out may be pending, three
 * times each way, then tracebuf unloaded right after such a close
 * (a work item or irq_work left behind would run in freed module text).
 * Drain cycles 500 ms apart (an ETM seen off is the offline's stop, not
 * a cycle's) and 64 bytes per ms: about 25 KiB in the SRAM at the last
 * stop, 25 chunks to read out, and no wrap.
 */
static void test_etf_close(void)
{
	static const char *const p[] = { "sink=etf", "rate=64", NULL };
	char drain[16];
	int i;

	TBT_CHECK(emu_load(p) == 0, "tb_csemu sink=etf rate=64");
	drain_ms_set("500", drain, sizeof(drain));
	for (i = 0; i < 3; i++) {
		etf_close_pending(0, sink_bytes(0), "ETF AUX munmap, copy pending");
		etf_close_pending(1, sink_bytes(0), "ETF munmap+close, copy pending");
		etf_close_pending(2, sink_bytes(0), "ETF close then munmap, copy pending");
	}
	TBT_CHECK(total_violations() == 0, "ETF close: violations %llu", total_violations());
	check_copy_irqoff("ETF close");
	etf_close_pending(1, sink_bytes(0), "ETF close before rmmod");
	TBT_CHECK(total_violations() == 0, "ETF close before rmmod: violations %llu",
		  total_violations());
	write_file(DRAIN_MS, drain);
	TBT_CHECK(tbt_rmmod("tb_csemu") == 0 && tbt_rmmod("tracebuf") == 0,
		  "rmmod tb_csemu and tracebuf right after the close");
	TBT_CHECK(tbt_modprobe("tracebuf") == 0, "modprobe tracebuf again");
}

/* Consume, counting the AUX bytes published before the first CONFIG record. */
static void consume_before_config(struct sess *x, uint64_t *before, int *seen)
{
	const struct tracebuf_record *r;

	while ((r = tracebuf_peek(&x->s)) != NULL) {
		if (r->hdr.type == TRACEBUF_REC_AUX) {
			const struct tracebuf_rec_aux *a = (const void *)r;

			if (!*seen)
				*before += a->aux_size;
			x->published += a->aux_size;
			TBT_CHECK(a->aux_offset == x->next, "span at %llu, expected %llu",
				  (unsigned long long)a->aux_offset, (unsigned long long)x->next);
			x->next = a->aux_offset + a->aux_size;
			x->aux_tail = x->next;
			tracebuf_smp_store_release(&x->s.ctl->aux_tail, x->aux_tail);
		} else if (r->hdr.type == TRACEBUF_REC_CONFIG) {
			*seen = 1;
		} else if (r->hdr.type == TRACEBUF_REC_LOST) {
			x->lost += ((const struct tracebuf_rec_lost *)r)->count;
		}
		tracebuf_advance(&x->s, r);
	}
}

/*
 * SET_DRV_CONFIG while tracing (trace.c: tb_trace_reconfigure(): every
 * CPU stopped, the CONFIG record written, every CPU started again): by
 * the ABI (tracebuf.h, struct tracebuf_rec_config) AUX spans before the
 * CONFIG record were traced with the old configuration, spans after it
 * with the new one. With the emulator's rate at 0 only etmN/burst writes
 * trace: a burst written under the old configuration, not yet published
 * (drain_ms 1000), must be in spans before the CONFIG record. The stop
 * of the change is the sink's last: on an ETF its copy-out is left to a
 * cycle (tb_cs_sram_stop()), on an ETR whose DMA syncs are deferred
 * (non-coherent) its publication too. cpus: the session's CPU mask (one
 * CPU: stop, record, start in one IPI; two: two rounds).
 */
static void test_reconfig(const char *param, unsigned long long cpus, const char *what)
{
	const char *p[] = { param, "rate=0", NULL };
	unsigned long long b0, e0, e1;
	char drain[16];
	uint64_t before;
	struct sess x;
	int i, seen, tries = 0, done = 0;

	TBT_CHECK(emu_load(p) == 0, "tb_csemu %s rate=0", param);
	drain_ms_set("1000", drain, sizeof(drain));
	b0 = sink_bytes(0);
	TBT_CHECK(cs_open(&x, cpus, 256 * 1024, 0, 0) == 0, "%s: session", what);
	TBT_CHECK(tracebuf_enable(&x.s) == 0, "%s: enable", what);
	while (done < 3 && tries++ < 12) {
		int cpu = cpus & 1 ? 0 : 1;
		uint64_t pub;

		consume(&x);
		pub = x.s.ctl->aux_published;
		e0 = cs_stat(cpu ? "etm1" : "etm0", "burst_bytes");
		TBT_CHECK(burst(cpu, 8192) == 0, "%s: burst", what);
		e1 = cs_stat(cpu ? "etm1" : "etm0", "burst_bytes");
		if (x.s.ctl->aux_published != pub)
			continue;	/* a drain fell in between: not the case */
		cfg_expect(&x, done & 1 ? "cycacc=1" : "cycacc=0", 0);
		before = 0;
		seen = 0;
		for (i = 0; i < 100 && (!seen || x.s.ctl->aux_published == pub); i++) {
			consume_before_config(&x, &before, &seen);
			msleep(20);
		}
		consume_before_config(&x, &before, &seen);
		TBT_CHECK(seen, "%s: a CONFIG record", what);
		TBT_CHECK(before >= e1 - e0,
			  "%s: the %llu bytes traced before SET_DRV_CONFIG published before its CONFIG record (%llu were)",
			  what, e1 - e0, (unsigned long long)before);
		done++;
	}
	TBT_CHECK(done == 3, "%s: %d changes with the burst unpublished", what, done);
	TBT_CHECK(tracebuf_disable(&x.s) == 0, "%s: disable", what);
	consume(&x);
	TBT_CHECK(sink_bytes(0) - b0 + x.s.ctl->aux_padding == x.published + x.lost,
		  "%s: sink %llu + padding %llu = published %llu + lost %llu", what,
		  sink_bytes(0) - b0, (unsigned long long)x.s.ctl->aux_padding,
		  (unsigned long long)x.published, (unsigned long long)x.lost);
	TBT_CHECK(total_violations() == 0, "%s: violations %llu", what, total_violations());
	if (!strcmp(param, "sink=etf"))
		check_copy_irqoff(what);
	sess_close(&x);
	write_file(DRAIN_MS, drain);
}

int main(void)
{
	setvbuf(stdout, NULL, _IONBF, 0);
	if (tbt_modprobe("tracebuf"))
		return 1;
#ifndef __aarch64__
	{
		struct tracebuf_session s;
		struct tracebuf_cs_caps c;
		int r;

		/* On x86_64 the CoreSight backend is simply absent. */
		TBT_CHECK(tracebuf_open(&s, 0) == 0, "open");
		r = tracebuf_get_caps(&s, "coresight", 0, &c, sizeof(c));
		TBT_CHECK(r == -ENODEV, "no coresight backend: %d", r);
		tracebuf_close(&s);
		return tbt_done();
	}
#endif
	if (access("/proc/device-tree", F_OK)) {
		/*
		 * No device tree: an arm64 guest booted with ACPI (run-guest.sh --acpi),
		 * which runs the ACPI server's topology only; the rest is the
		 * same code on either firmware and runs in the DT guests.
		 */
		test_topology(&n1sdp);
		test_static_pm();
		if (tbt_module_loaded("tb_csemu"))
			TBT_CHECK(tbt_rmmod("tb_csemu") == 0, "rmmod tb_csemu");
		return tbt_done();
	}
	if (emu_load(NULL)) {
		TBT_CHECK(0, "modprobe tb_csemu");
		return tbt_done();
	}
	test_caps();
	test_shared(NULL);
	test_busy();
	test_overrun();
	test_snapshot();
	test_config();
	test_hotplug();
	test_lifetime();
	test_percpu();
	test_sink("sg=0", "flat ETR", 0);
	test_sink("sink=etf", "ETF", 0);
	/* A TMC that restarts at its buffer start: the kernel pads to a granule. */
	test_sink("soc400=1", "SoC-400 ETR", 1);
	test_lost("sink=etf", "rate=1024", "ETF overrun", 1);
	test_etf_hotplug();
	test_etf_snapshot();
	test_etf_close();
	test_reconfig("sink=etf", 3, "ETF change while tracing, two CPUs");
	test_reconfig("sink=etf", 2, "ETF change while tracing, one CPU");
	test_reconfig("sg=1", 3, "ETR change while tracing");
	test_reconfig("dma=noncoherent", 3, "non-coherent ETR change while tracing");
	test_lost("sg=1", "rate=65536", "ETR burst overrun", 0);
	test_unread();
	test_burst();
	test_topology(&juno);
	test_topology(&msm8916);
	test_power(&juno);
	test_power(&msm8916);
	test_reclaim();
	test_firmware_props();
	test_dma();
	test_cpu_pm(1);
	test_cpu_pm(0);
	test_no_trf();
	test_hip08();
	test_kernel_ids();
	{
		static const char *const p[] = { "soc400=1", "sg=0", NULL };
		struct sess x;

		const char *dm[] = { "sh", "-c", "dmesg | grep -q 'restarts at its base'", NULL };

		/* Flat and restarting at the base: refused (cannot continue). */
		TBT_CHECK(emu_load(p) != 0, "tb_csemu soc400=1 sg=0 finds no usable sink");
		TBT_CHECK(tbt_run(dm) == 0, "the refusal says why");
		TBT_CHECK(cs_open(&x, 3, 256 * 1024, 0, 0) != 0, "no session on that sink");
		sess_close(&x);
	}
	test_owned();
	if (tbt_module_loaded("tb_csemu"))
		TBT_CHECK(tbt_rmmod("tb_csemu") == 0, "rmmod tb_csemu");
	return tbt_done();
}
