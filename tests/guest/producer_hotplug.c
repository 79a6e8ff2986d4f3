// SPDX-License-Identifier: GPL-2.0
/*
 * CPU hotplug under load: tb_producer writes from every context on both
 * CPUs (task, softirq, hardirq and, on x86_64, NMI), and on x86_64 the
 * Intel PT emulator traces CPU 1 into an AUX ring, while CPU 1 goes
 * offline and online again and again. Checks:
 *  - nothing CPU 1's producers number is ever written from another CPU
 *    (a timer or thread that migrated off the dead CPU would), every
 *    record is intact, and each of CPU 1's contexts resumes after online;
 *  - the producer saw every offline and online of the run, and its
 *    accounting adds up: produced = delivered + lost, per context;
 *  - PT: the offline stops and publishes (TraceEn clear, the emulator's
 *    tick does not run while the CPU is offline), tracing resumes on
 *    online, every byte the emulator wrote is published, no collision,
 *    no emulator error or #GP; the capture goes to the host for ptcheck.
 * The guest must stay clean: an NMI nobody claims ("NMI received for
 * unknown reason") or a console flood fails <config>/guest-clean.
 * arm64 has no NMI source and no PT emulator: the other contexts only.
 */
#include <pthread.h>
#include <stdint.h>

#include "ptcap.h"
#include "tb_producer.h"

#ifdef __x86_64__
#define ALL_CTX 15	/* task, softirq, hardirq, NMI */
#else
#define ALL_CTX 7	/* no NMI source in the arm64 guest */
#endif

#define MAX_CPUS	64
#define CYCLES		8
#define REC_SIZE	64
#define WAIT_LOOPS	2000	/* x 5 ms: only so that a broken run ends */

static struct {
	struct tracebuf_session s;	/* the producer's data ring, CPU 0 */
	struct sess pt;			/* PT on CPU 1 (x86_64) */
	int have_pt;
	int stop;			/* __atomic: the consumer thread ends */
	/* Written by the consumer thread (then by main after the join). */
	uint64_t seen[MAX_CPUS][TBP_NR_CTX];	/* __atomic loads from main */
	int64_t last[MAX_CPUS][TBP_NR_CTX];
	uint64_t test[TBP_NR_CTX], gaps[TBP_NR_CTX];
	uint64_t bad, user, lost_count;
} g;

static void check_record(const struct tracebuf_record *r)
{
	const struct tracebuf_rec_test *x = (const void *)r;
	const uint8_t *p = (const uint8_t *)(x + 1);
	uint32_t i;

	switch (r->hdr.type) {
	case TRACEBUF_REC_TEST:
		/* r->cpu is the CPU that wrote it: a producer that moved shows. */
		if (r->hdr.size != REC_SIZE || x->context >= TBP_NR_CTX ||
		    !(ALL_CTX & (1 << x->context)) || x->producer >= MAX_CPUS ||
		    r->cpu != x->producer) {
			if (g.bad++ < 5)
				printf("bad test record: size %u ctx %u producer %u written on cpu %u\n",
				       r->hdr.size, x->context, x->producer, r->cpu);
			return;
		}
		if ((int64_t)x->seq <= g.last[x->producer][x->context]) {
			if (g.bad++ < 5)
				printf("seq %llu after %lld (cpu %u ctx %u)\n",
				       (unsigned long long)x->seq,
				       (long long)g.last[x->producer][x->context],
				       x->producer, x->context);
			return;
		}
		for (i = 0; i < REC_SIZE - sizeof(*x); i++)
			if (p[i] != (uint8_t)(x->seq * 31 + i)) {
				if (g.bad++ < 5)
					printf("payload byte %u corrupt (seq %llu)\n", i,
					       (unsigned long long)x->seq);
				return;
			}
		g.gaps[x->context] += x->seq - g.last[x->producer][x->context] - 1;
		g.last[x->producer][x->context] = x->seq;
		g.test[x->context]++;
		__atomic_add_fetch(&g.seen[x->producer][x->context], 1, __ATOMIC_RELAXED);
		break;
	case TRACEBUF_REC_LOST:
		g.lost_count += ((const struct tracebuf_rec_lost *)r)->count;
		break;
	case TRACEBUF_REC_USER:
		g.user++;
		break;
	default:
		if (g.bad++ < 5)
			printf("unexpected record type %u\n", r->hdr.type);
	}
}

static void drain(void)
{
	const struct tracebuf_record *r;

	while ((r = tracebuf_peek(&g.s))) {
		check_record(r);
		tracebuf_advance(&g.s, r);
	}
}

static void *consumer(void *arg)
{
	(void)arg;
	while (!__atomic_load_n(&g.stop, __ATOMIC_ACQUIRE)) {
		tracebuf_wait(&g.s, 10);
		drain();
		if (g.have_pt)
			consume(&g.pt);
	}
	return NULL;
}

static uint64_t seen(int cpu, int ctx)
{
	return __atomic_load_n(&g.seen[cpu][ctx], __ATOMIC_RELAXED);
}

/* Wait until each of cpu's contexts has delivered more than base[]. */
static int resumed(int cpu, const uint64_t *base)
{
	int i, c, all = 0;

	for (i = 0; i < WAIT_LOOPS && !all; i++) {
		all = 1;
		for (c = 0; c < TBP_NR_CTX; c++)
			if ((ALL_CTX & (1 << c)) && seen(cpu, c) <= base[c])
				all = 0;
		if (!all)
			msleep(5);
	}
	if (!all)
		for (c = 0; c < TBP_NR_CTX; c++)
			if ((ALL_CTX & (1 << c)) && seen(cpu, c) <= base[c])
				printf("cpu%d context %d: nothing new (%llu records)\n", cpu, c,
				       (unsigned long long)seen(cpu, c));
	return all;
}

int main(void)
{
	struct tracebuf_setup su = { .target = TRACEBUF_TARGET_CPU, .cpu = 0 };
	struct tbp_start start = { .contexts = ALL_CTX, .size = REC_SIZE, .batch = 4,
				   .count = 1ULL << 40, .period_ns = 500000,
				   .flags = TBP_F_PACE_TASK };
	unsigned long long w0 = 0, w1, p0 = 0, p1, d0 = 0, d1, e0 = 0, gp0 = 0, n0 = 0;
	uint64_t zero[TBP_NR_CTX] = { 0 }, base[TBP_NR_CTX];
	uint64_t attempted = 0, ok = 0, failed = 0, lost, test = 0, gaps = 0;
	struct tbp_stats st;
	pthread_t th;
	int pfd, i, c, ret, marker_lost, offline_ok = 0;

	setvbuf(stdout, NULL, _IONBF, 0);
	if (access("/sys/devices/system/cpu/cpu1/online", W_OK)) {
		printf("no CPU hotplug for cpu1 here\n");
		return 77;
	}
	if (tbt_modprobe("tracebuf") || tbt_modprobe("tb_producer"))
		return 1;
	memset(g.last, 0xff, sizeof(g.last));	/* -1: nothing seen yet */
	g.have_pt = HAVE_PT;
	if (!g.have_pt)
		printf("no Intel PT emulator on this architecture: producer only\n");
	if (g.have_pt) {
		if (tbt_modprobe("tb_ptemu"))
			return 1;
		TBT_CHECK(write_file(EMU "/rate", "2048") == 0, "emulator rate");
		if (sess_open(&g.pt, CPU, 65536, 64 * PAGE, 0, 0)) {
			printf("PT session on cpu%d: %s\n", CPU, strerror(errno));
			return 1;
		}
		cap_open(&g.pt, "producer_hotplug");
		w0 = emu_stat(CPU, "bytes_written");
		p0 = emu_stat(CPU, "ptw_seq");
		d0 = emu_stat(CPU, "ptw_dropped");
		e0 = emu_stat(CPU, "errors");
		gp0 = emu_stat(CPU, "gps");
		n0 = emu_stat(CPU, "nested");
		TBT_CHECK(ioctl(g.pt.s.fd, TRACEBUF_IOC_ENABLE) == 0, "PT enable: %s",
			  strerror(errno));
	}

	strcpy(su.backend, TRACEBUF_BACKEND_DATA);
	ret = tracebuf_open(&g.s, 0);
	if (!ret)
		ret = tracebuf_setup(&g.s, &su);
	if (!ret)
		ret = tracebuf_map(&g.s, 1024 * 1024, 0);
	TBT_CHECK(ret == 0, "data session: %d", ret);
	pfd = open(TBP_DEVICE, O_RDWR);
	TBT_CHECK(pfd >= 0, "open %s: %s", TBP_DEVICE, strerror(errno));
	if (tbt_failures)
		return tbt_done();
	start.fd = g.s.fd;
	TBT_CHECK(ioctl(pfd, TBP_IOC_START, &start) == 0, "start: %s", strerror(errno));
	pthread_create(&th, NULL, consumer, NULL);

	/* Every context of both CPUs writes before the first offline. */
	TBT_CHECK(resumed(0, zero) && resumed(CPU, zero), "producers did not start");
	for (i = 0; i < CYCLES && !tbt_failures; i++) {
		unsigned long long t0 = 0, en = 0;

		printf("cycle %d: offline\n", i);
		if (set_online(CPU, 0)) {
			TBT_CHECK(0, "offline cpu%d: %s", CPU, strerror(errno));
			break;
		}
		offline_ok++;
		if (g.have_pt) {
			TBT_CHECK(emu_stat(CPU, "traceen") == 0, "offline left TraceEn set");
			t0 = emu_stat(CPU, "ticks");
		}
		msleep(50);	/* what a CPU that is gone leaves behind runs now */
		if (g.have_pt) {
			TBT_CHECK(emu_stat(CPU, "ticks") == t0,
				  "the emulator ticked for an offline CPU (%llu ticks)",
				  emu_stat(CPU, "ticks") - t0);
			en = emu_stat(CPU, "enables");
		}
		for (c = 0; c < TBP_NR_CTX; c++)
			base[c] = seen(CPU, c);
		printf("cycle %d: online\n", i);
		TBT_CHECK(set_online(CPU, 1) == 0, "online cpu%d: %s", CPU, strerror(errno));
		TBT_CHECK(resumed(CPU, base), "cycle %d: cpu%d's producers did not resume", i,
			  CPU);
		if (g.have_pt) {
			/*
			 * Resumed: TraceEn written 1 again. Counted, not sampled:
			 * a consumer slowed down may let the ring fill (and the
			 * unit stop, rightly) between two looks at TraceEn.
			 */
			for (c = 0; c < WAIT_LOOPS && emu_stat(CPU, "enables") == en; c++)
				msleep(5);
			TBT_CHECK(emu_stat(CPU, "enables") > en, "cycle %d: PT did not resume", i);
		}
	}
	/* Never leave CPU 1 offline for the tests that follow. */
	if (access("/sys/devices/system/cpu/cpu1/online", W_OK) == 0)
		set_online(CPU, 1);

	TBT_CHECK(ioctl(pfd, TBP_IOC_STOP, &st) == 0, "stop: %s", strerror(errno));
	if (g.have_pt)
		TBT_CHECK(ioctl(g.pt.s.fd, TRACEBUF_IOC_DISABLE) == 0, "PT disable");
	__atomic_store_n(&g.stop, 1, __ATOMIC_RELEASE);
	pthread_join(th, NULL);
	drain();
	/* A marker after the producers stop flushes any pending loss count. */
	ret = tracebuf_user_marker(&g.s, 42, "end", 3);
	marker_lost = ret == -ENOSPC;
	TBT_CHECK(ret == 0, "marker: %d", ret);
	drain();

	/* The producer side. */
	lost = __atomic_load_n(&g.s.ctl->records_lost, __ATOMIC_ACQUIRE);
	for (c = 0; c < TBP_NR_CTX; c++) {
		printf("  context %d: produced %llu, committed %llu, lost %llu, delivered %llu\n", c,
		       (unsigned long long)st.attempted[c], (unsigned long long)st.ok[c],
		       (unsigned long long)st.failed[c], (unsigned long long)g.test[c]);
		TBT_CHECK(st.ok[c] + st.failed[c] == st.attempted[c], "context %d: ok + failed", c);
		TBT_CHECK(g.test[c] == st.ok[c], "context %d: delivered %llu, committed %llu", c,
			  (unsigned long long)g.test[c], (unsigned long long)st.ok[c]);
		/* Missing numbers inside the delivered ones were lost records. */
		TBT_CHECK(g.gaps[c] <= st.failed[c], "context %d: %llu numbering gaps, %llu lost",
			  c, (unsigned long long)g.gaps[c], (unsigned long long)st.failed[c]);
		attempted += st.attempted[c];
		ok += st.ok[c];
		failed += st.failed[c];
		test += g.test[c];
		gaps += g.gaps[c];
	}
	printf("producer: %u cpus, %u offline + %u online callbacks, produced %llu, delivered %llu, "
	       "lost %llu, %llu bad\n", st.nr_cpus, st.cpu_offline, st.cpu_online,
	       (unsigned long long)attempted, (unsigned long long)test,
	       (unsigned long long)lost, (unsigned long long)g.bad);
	TBT_CHECK(g.bad == 0, "%llu bad records", (unsigned long long)g.bad);
	TBT_CHECK(st.nr_cpus == 2, "the run had %u CPUs", st.nr_cpus);
	TBT_CHECK(st.cpu_offline == (unsigned int)offline_ok && st.cpu_online == (unsigned int)offline_ok,
		  "producer saw %u offline and %u online, the test did %d each", st.cpu_offline,
		  st.cpu_online, offline_ok);
	TBT_CHECK(offline_ok == CYCLES, "%d of %d cycles", offline_ok, CYCLES);
	TBT_CHECK(tracebuf_ring_error(&g.s) == 0, "ring error %d", tracebuf_ring_error(&g.s));
	TBT_CHECK(attempted > 0 && ok > 0, "nothing produced");
	TBT_CHECK(lost == failed + marker_lost, "records_lost %llu, producer failed %llu",
		  (unsigned long long)lost, (unsigned long long)failed);
	TBT_CHECK(test + lost == attempted + marker_lost, "identity");
	TBT_CHECK(g.lost_count == lost, "LOST records sum %llu, counter %llu",
		  (unsigned long long)g.lost_count, (unsigned long long)lost);
	TBT_CHECK(g.s.ctl->records_written == test + g.user, "records_written %llu",
		  (unsigned long long)g.s.ctl->records_written);
	close(pfd);
	tracebuf_close(&g.s);

	/* The PT side. */
	if (g.have_pt) {
		consume(&g.pt);
		w1 = emu_stat(CPU, "bytes_written");
		p1 = emu_stat(CPU, "ptw_seq");
		d1 = emu_stat(CPU, "ptw_dropped");
		cap_emu("producer_hotplug", p0, p1, d1 - d0, 0);
		printf("PT: %llu spans, %llu bytes published, emulator wrote %llu, %llu truncated, "
		       "%llu PTW dropped, %llu enables\n", (unsigned long long)g.pt.spans,
		       (unsigned long long)g.pt.published, w1 - w0,
		       (unsigned long long)g.pt.truncated, d1 - d0, emu_stat(CPU, "enables"));
		TBT_CHECK(emu_stat(CPU, "traceen") == 0, "PT: TraceEn still set");
		TBT_CHECK(g.pt.published > 0, "PT: nothing published");
		TBT_CHECK(g.pt.published == w1 - w0 + g.pt.s.ctl->aux_padding,
			  "PT: published %llu != written %llu + padding %llu",
			  (unsigned long long)g.pt.published, w1 - w0,
			  (unsigned long long)g.pt.s.ctl->aux_padding);
		TBT_CHECK(g.pt.collision == 0, "PT: %llu collisions",
			  (unsigned long long)g.pt.collision);
		TBT_CHECK(g.pt.lost == 0, "PT: %llu records lost", (unsigned long long)g.pt.lost);
		TBT_CHECK(g.pt.s.ctl->aux_head == g.pt.next, "PT: aux_head");
		if (!g.pt.truncated)
			TBT_CHECK(d1 == d0, "PT: %llu PTWs dropped without TRUNCATED", d1 - d0);
		TBT_CHECK(emu_stat(CPU, "errors") == e0 && emu_stat(CPU, "gps") == gp0 &&
			  emu_stat(CPU, "nested") == n0,
			  "PT emulator: %llu errors, %llu #GP, %llu nested",
			  emu_stat(CPU, "errors") - e0, emu_stat(CPU, "gps") - gp0,
			  emu_stat(CPU, "nested") - n0);
		sess_close(&g.pt);
		/* The tests that follow load it with their own parameters. */
		TBT_CHECK(tbt_rmmod("tb_ptemu") == 0, "rmmod tb_ptemu");
	}
	tbt_rmmod("tb_producer");
	return tbt_done();
}
