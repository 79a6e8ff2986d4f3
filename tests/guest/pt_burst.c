// SPDX-License-Identifier: GPL-2.0
/*
 * Intel PT at silicon rates (issue 14 item 11): the emulator's burst mode
 * (tb_ptemu cpuN/burst: burst_kb = 256 KiB per 1 ms tick, 256 MiB/s of
 * emulated output, for a bounded number of ticks) with output positions
 * that read stale while TraceEn is set (stale_pos: the position of the
 * last enable, the strictest reading of SDM vol. 3C 33.2.7.2).
 *
 * Checked:
 *  - drain: a consumer that keeps up gets every byte of the burst, in
 *    spans published while tracing, even with every PMI lost (only the
 *    drain timer publishes, and it must not trust a position read while
 *    tracing for its "nothing new" check);
 *  - truncation: a consumer that stalls through the burst gets TRUNCATED
 *    spans, the emulator's dropped bytes and PTWs are exactly the gaps,
 *    and tracing resumes once it reads again;
 *  - wrap counting: in snapshot mode, SNAPSHOT after a burst of many laps
 *    publishes the whole ring, after less than a lap exactly what was
 *    written (laps are counted from the PMIs of the run's first region,
 *    not from positions read while tracing);
 * every capture decodes on the host (ptcheck), and the emulator reports
 * no violation.
 */
#include "ptcap.h"

#define PARAMS	"/sys/module/tb_ptemu/parameters/"
#define BURST_KB 256

static void set_param(const char *name, const char *val)
{
	char path[128];

	snprintf(path, sizeof(path), PARAMS "%s", name);
	TBT_CHECK(write_file(path, val) == 0, "tb_ptemu %s=%s", name, val);
}

/* Ticks of burst done when the current one was asked for. */
static unsigned long long burst_target;

static void burst(int ticks)
{
	char v[16];

	burst_target = emu_stat(CPU, "burst_ticks") + ticks;
	snprintf(v, sizeof(v), "%d", ticks);
	TBT_CHECK(emu_knob(CPU, "burst", v) == 0, "burst %d", ticks);
}

/*
 * Consume every 5 ms until every tick of the burst is done (its bytes
 * written: burst_ticks counts at the tick's end) and a drain followed.
 * stall: read nothing until the ring filled and the hardware stopped (no
 * tick runs then, so the burst waits), then read again.
 */
/* The emulator's enables and bytes written when a stall first saw TRUNCATED. */
static unsigned long long trunc_enables, trunc_written;

static void consume_through_burst(struct sess *x, int stall)
{
	int i, after = 0;

	for (i = 0; i < 12000 && after < 4; i++) {
		if (stall && x->s.ctl->aux_truncations > 0) {
			trunc_enables = emu_stat(CPU, "enables");
			trunc_written = emu_stat(CPU, "bytes_written");
			stall = 0;
		}
		if (!stall)
			consume(x);
		msleep(5);
		if (emu_stat(CPU, "burst_ticks") >= burst_target)
			after++;
	}
	TBT_CHECK(emu_stat(CPU, "burst_ticks") >= burst_target, "the burst did not end in 60 s");
}

static void identity(struct sess *x, const char *name, unsigned long long w0,
		     unsigned long long p0, unsigned long long d0)
{
	unsigned long long w = emu_stat(CPU, "bytes_written") - w0;

	cap_emu(name, p0, emu_stat(CPU, "ptw_seq"), emu_stat(CPU, "ptw_dropped") - d0, 0);
	printf("%s: %llu spans (%llu truncated), %llu bytes published, emulator wrote %llu, dropped %llu PTWs\n",
	       name, (unsigned long long)x->spans, (unsigned long long)x->truncated,
	       (unsigned long long)x->published, w, emu_stat(CPU, "ptw_dropped") - d0);
	TBT_CHECK(x->published == w + x->s.ctl->aux_padding,
		  "%s: published %llu != written %llu + padding %llu", name,
		  (unsigned long long)x->published, w,
		  (unsigned long long)x->s.ctl->aux_padding);
	TBT_CHECK(x->lost == 0 && x->collision == 0, "%s: %llu records lost, %llu collisions",
		  name, (unsigned long long)x->lost, (unsigned long long)x->collision);
	TBT_CHECK(x->s.ctl->aux_head == x->next, "%s: aux_head", name);
}

/* A consumer that keeps up, every PMI lost: the timer drain publishes. */
static void test_drain(const char *name, int stale)
{
	unsigned long long w0, p0, d0, b0, g0, spans;
	struct sess x;

	set_param("stale_pos", stale ? "1" : "0");
	set_param("pmi_lost", "1");
	if (sess_open(&x, CPU, 1 << 20, 4 << 20, 0, 1 << 20)) {
		TBT_CHECK(0, "%s: session", name);
		return;
	}
	cap_open(&x, name);
	w0 = emu_stat(CPU, "bytes_written");
	p0 = emu_stat(CPU, "ptw_seq");
	d0 = emu_stat(CPU, "ptw_dropped");
	b0 = emu_stat(CPU, "burst_ticks");
	g0 = emu_stat(CPU, "bytes_dropped");
	TBT_CHECK(ioctl(x.s.fd, TRACEBUF_IOC_ENABLE) == 0, "%s: enable: %s", name,
		  strerror(errno));
	burst(40);
	consume_through_burst(&x, 0);
	spans = x.spans;
	TBT_CHECK(spans > 1, "%s: %llu spans published while tracing", name, spans);
	TBT_CHECK(emu_stat(CPU, "burst_ticks") - b0 >= 40, "%s: %llu burst ticks", name,
		  emu_stat(CPU, "burst_ticks") - b0);
	/* Generated: written, or dropped on a full ring (TRUNCATED). */
	TBT_CHECK(emu_stat(CPU, "bytes_written") - w0 + emu_stat(CPU, "bytes_dropped") - g0 >=
		  40ULL * BURST_KB * 1024, "%s: the burst generated %llu bytes, want %u KiB",
		  name, emu_stat(CPU, "bytes_written") - w0 + emu_stat(CPU, "bytes_dropped") - g0,
		  40 * BURST_KB);
	TBT_CHECK(ioctl(x.s.fd, TRACEBUF_IOC_DISABLE) == 0, "%s: disable", name);
	consume(&x);
	identity(&x, name, w0, p0, d0);
	TBT_CHECK(x.truncated == 0 || emu_stat(CPU, "ptw_dropped") > d0,
		  "%s: TRUNCATED without dropped PTWs", name);
	sess_close(&x);
	set_param("pmi_lost", "0");
}

/* A consumer that stalls through the burst: TRUNCATED, then it resumes. */
static void test_truncate(void)
{
	unsigned long long w0, p0, d0;
	struct sess x;

	set_param("stale_pos", "1");
	if (sess_open(&x, CPU, 1 << 20, 256 << 10, 0, 64 << 10)) {
		TBT_CHECK(0, "truncate: session");
		return;
	}
	cap_open(&x, "burst_trunc");
	w0 = emu_stat(CPU, "bytes_written");
	p0 = emu_stat(CPU, "ptw_seq");
	d0 = emu_stat(CPU, "ptw_dropped");
	TBT_CHECK(ioctl(x.s.fd, TRACEBUF_IOC_ENABLE) == 0, "truncate: enable: %s",
		  strerror(errno));
	trunc_enables = ~0ULL;
	burst(20);
	/*
	 * Stalls until the first TRUNCATED (hardware stopped, ring full), then
	 * reads again: tracing must resume then (an enable, and bytes written
	 * after the stop), or the burst could not finish.
	 */
	consume_through_burst(&x, 1);
	TBT_CHECK(trunc_enables != ~0ULL, "truncate: no TRUNCATED seen while stalled");
	TBT_CHECK(emu_stat(CPU, "enables") > trunc_enables &&
		  emu_stat(CPU, "bytes_written") > trunc_written,
		  "truncate: tracing did not resume (enables %llu -> %llu, written %llu -> %llu)",
		  trunc_enables, emu_stat(CPU, "enables"), trunc_written,
		  emu_stat(CPU, "bytes_written"));
	TBT_CHECK(ioctl(x.s.fd, TRACEBUF_IOC_DISABLE) == 0, "truncate: disable");
	consume(&x);
	identity(&x, "burst_trunc", w0, p0, d0);
	TBT_CHECK(x.truncated > 0 && x.s.ctl->aux_truncations == x.truncated,
		  "truncate: %llu TRUNCATED spans, aux_truncations %llu",
		  (unsigned long long)x.truncated, (unsigned long long)x.s.ctl->aux_truncations);
	TBT_CHECK(emu_stat(CPU, "ptw_dropped") > d0, "truncate: no PTW dropped");
	sess_close(&x);
}

/* Snapshot: SNAPSHOT publishes min(written, ring size), laps included. */
static void test_snapshot(void)
{
	unsigned long long w0, w1, p0;
	const uint64_t size = 1 << 20;	/* at least two ticks of burst */
	struct sess x;
	uint64_t pub;
	int i;

	set_param("stale_pos", "1");
	if (sess_open(&x, CPU, 1 << 20, size, 1, 0)) {
		TBT_CHECK(0, "snapshot: session");
		return;
	}
	TBT_CHECK(write_file(EMU "/rate", "0") == 0, "rate 0");
	w0 = emu_stat(CPU, "bytes_written");
	TBT_CHECK(ioctl(x.s.fd, TRACEBUF_IOC_ENABLE) == 0, "snapshot: enable: %s",
		  strerror(errno));
	/* Less than a lap: exactly what was written. */
	burst(2);
	consume_through_burst(&x, 1);
	msleep(30);	/* drains in between: they publish nothing */
	TBT_CHECK(ioctl(x.s.fd, TRACEBUF_IOC_SNAPSHOT) == 0, "snapshot 1: %s", strerror(errno));
	w1 = emu_stat(CPU, "bytes_written");
	pub = x.published;
	consume(&x);
	TBT_CHECK(x.overwrite == 1 && x.published - pub == w1 - w0 && w1 - w0 < size,
		  "snapshot 1: %llu spans, %llu bytes published, %llu written",
		  (unsigned long long)x.overwrite, (unsigned long long)(x.published - pub),
		  w1 - w0);
	/* Ten laps: the whole ring. */
	p0 = emu_stat(CPU, "ptw_seq");
	cap_open(&x, "burst_snapshot");
	burst(40);
	consume_through_burst(&x, 1);
	for (i = 0; i < 3; i++)
		msleep(10);
	pub = x.published;
	w0 = emu_stat(CPU, "bytes_written");
	TBT_CHECK(ioctl(x.s.fd, TRACEBUF_IOC_SNAPSHOT) == 0, "snapshot 2: %s", strerror(errno));
	consume(&x);
	printf("snapshot: %llu bytes written since the last SNAPSHOT, %llu published\n",
	       w0 - w1, (unsigned long long)(x.published - pub));
	TBT_CHECK(w0 - w1 > 4 * size, "snapshot 2: only %llu bytes written", w0 - w1);
	TBT_CHECK(x.published - pub == size, "snapshot 2: published %llu of a %llu-byte ring after %llu bytes",
		  (unsigned long long)(x.published - pub), (unsigned long long)size, w0 - w1);
	cap_emu("burst_snapshot", p0, emu_stat(CPU, "ptw_seq"), 0, 1);
	TBT_CHECK(ioctl(x.s.fd, TRACEBUF_IOC_DISABLE) == 0, "snapshot: disable");
	sess_close(&x);
	TBT_CHECK(write_file(EMU "/rate", "64") == 0, "rate 64");
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
	TBT_CHECK(write_file(EMU "/rate", "64") == 0, "emulator rate");
	set_param("burst_kb", "256");
	gps = emu_stat(CPU, "gps");
	test_drain("burst_drain", 0);
	test_drain("burst_drain_stale", 1);
	test_truncate();
	test_snapshot();
	set_param("stale_pos", "0");
	TBT_CHECK(emu_stat(CPU, "gps") == gps, "%llu faulting accesses", emu_stat(CPU, "gps") - gps);
	TBT_CHECK(emu_stat(CPU, "violations") == 0, "%llu emulator violations",
		  emu_stat(CPU, "violations"));
	TBT_CHECK(tbt_rmmod("tb_ptemu") == 0, "rmmod tb_ptemu");
	return tbt_done();
}
