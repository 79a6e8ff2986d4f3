// SPDX-License-Identifier: GPL-2.0
/*
 * A storm on one CoreSight session (shared ETR, scatter-gather, against
 * the emulator tb_csemu, tests/modules/csemu_*.c) while CPU 1 goes offline and
 * online: threads loop ENABLE/SNAPSHOT/DISABLE, SET_DRV_CONFIG, AUX
 * munmap and mmap again with other sizes and modes, poll + the data ring
 * + USER markers, a fork storm (dup_mmap copies the page tables: a page
 * the ETR still writes after it was freed and reused as a page table
 * shows up as "Bad page map") and a competing session that takes the
 * sink whenever the main one has no AUX area (and reads with read()).
 *
 * At the end: the data ring's accounting adds up (records seen =
 * records_written, LOST counts = records_lost, AUX spans = aux_published),
 * the emulator counted no violation, every ETM and the sink are off, and
 * a plain session still traces on both CPUs with exact byte accounting
 * (nothing the storm did leaked an ETM claim or a running sink). The
 * kernel log must stay clean (the harness's guest-clean check).
 *
 * Usage: cs_storm [seconds [seed]] (default 30 s, seed from the clock).
 * Bounded by time only to finish; no assertion depends on timing.
 */
#include <pthread.h>
#include <stdint.h>
#include <time.h>

#include "ptcap.h"

#define CSEMU		"/sys/kernel/debug/tb_csemu"
#define NCPU		2
#define DATA_SIZE	(1024 * 1024)

/* The main session. The AUX mapping changes under aux_lock (write). */
static struct tracebuf_session S;
static pthread_rwlock_t aux_lock = PTHREAD_RWLOCK_INITIALIZER;
static unsigned char *aux_map;
static uint64_t aux_len;
static int aux_ro;
static volatile int stop_all;

/* What the consumer saw (the consumer thread, then main after join). */
static uint64_t seen_records, seen_lost, seen_aux_bytes, seen_markers, seen_spans;
static uint64_t seen_overruns;
static uint64_t markers_ok;
/* Operations and errors, per thread (summed at the end). */
static uint64_t n_enable, n_disable, n_snap, n_cfg, n_remap, n_fork, n_hot, n_comp, n_comp_aux;

static unsigned int rnd(unsigned int *st)
{
	*st = *st * 1103515245u + 12345u;
	return (*st >> 16) & 0x7fff;
}

static int fail_once(const char *what, int err)
{
	printf("unexpected: %s: %d (%s)\n", what, err, strerror(-err));
	tbt_failures++;
	return 0;
}

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

/* Map the AUX area (aux_lock held for writing). 0 or -errno. */
static int aux_map_locked(uint64_t size, int ro)
{
	uint64_t off = PAGE + 2 * S.data_size;
	void *p;

	S.ctl->aux_offset = off;
	S.ctl->aux_size = size;
	p = mmap(NULL, size, PROT_READ | (ro ? 0 : PROT_WRITE), MAP_SHARED, S.fd, off);
	if (p == MAP_FAILED)
		return -errno;
	aux_map = p;
	aux_len = size;
	aux_ro = ro;
	return 0;
}

static void aux_unmap_locked(void)
{
	if (aux_map)
		munmap(aux_map, aux_len);
	aux_map = NULL;
	aux_len = 0;
}

/* One record of the main session. */
static void handle(const struct tracebuf_record *r)
{
	if (r->hdr.type == TRACEBUF_REC_LOST) {
		const struct tracebuf_rec_lost *l = (const void *)r;

		/* The ring's own report: not in records_written. */
		if (l->reason == TRACEBUF_LOST_RING_FULL) {
			seen_lost += l->count;
			return;
		}
		/* A backend's LOST (AUX_OVERRUN) is a committed record. */
		seen_overruns++;
	}
	seen_records++;
	if (r->hdr.type == TRACEBUF_REC_USER) {
		seen_markers++;
	} else if (r->hdr.type == TRACEBUF_REC_AUX) {
		const struct tracebuf_rec_aux *a = (const void *)r;

		seen_spans++;
		seen_aux_bytes += a->aux_size;
		/* Touch the span's bytes and hand them back, if still mapped. */
		pthread_rwlock_rdlock(&aux_lock);
		if (aux_map && a->aux_size) {
			volatile unsigned char c;

			c = aux_map[(a->aux_offset + a->aux_size - 1) & (aux_len - 1)];
			(void)c;
			if (!aux_ro && a->aux_offset + a->aux_size > S.ctl->aux_tail)
				tracebuf_smp_store_release(&S.ctl->aux_tail,
							   a->aux_offset + a->aux_size);
		}
		pthread_rwlock_unlock(&aux_lock);
	}
}

static void drain_ring(void)
{
	const struct tracebuf_record *r;

	while ((r = tracebuf_peek(&S)) != NULL) {
		handle(r);
		tracebuf_advance(&S, r);
	}
}

/* poll, the data ring and USER markers. */
static void *consumer(void *arg)
{
	unsigned int st = (unsigned int)(uintptr_t)arg;
	uint64_t i = 0;

	while (!stop_all) {
		tracebuf_wait(&S, 10);
		drain_ring();
		if (rnd(&st) % 4 == 0) {
			int r = tracebuf_user_marker(&S, i++, "storm", 5);

			if (!r)
				markers_ok++;
			else if (r != -ENOSPC)
				fail_once("USER_MARKER", r);
		}
	}
	return NULL;
}

static void *enabler(void *arg)
{
	unsigned int st = (unsigned int)(uintptr_t)arg;
	int r;

	while (!stop_all) {
		r = tracebuf_enable(&S);
		/* No AUX area (being remapped), or still enabled. */
		if (r && r != -ENXIO && r != -EALREADY)
			fail_once("ENABLE", r);
		n_enable++;
		usleep(rnd(&st) % 3000);
		r = tracebuf_snapshot(&S);
		/* Not a snapshot area, or not enabled: both fine here. */
		if (r && r != -EINVAL && r != -ENXIO)
			fail_once("SNAPSHOT", r);
		n_snap += !r;
		usleep(rnd(&st) % 3000);
		if (rnd(&st) % 2) {
			r = tracebuf_disable(&S);
			if (r)
				fail_once("DISABLE", r);
			n_disable++;
		}
	}
	return NULL;
}

static void *configurer(void *arg)
{
	static const char *const cfgs[] = {
		"cycacc=1,cyc_thresh=256",
		"cycacc=0",
		"timestamp=1,ts_interval=1000",
		"timestamp=0",
		"user=1,kernel=1",
		"user=1,kernel=0",
		"contextid=1,vmid=1,branch_broadcast=1,retstack=1",
		"sync_period=10",
		"addr0=0x1000-0x2000:filter",
	};
	unsigned int st = (unsigned int)(uintptr_t)arg;
	struct tracebuf_cfg_error e;
	int r;

	while (!stop_all) {
		const char *c = cfgs[rnd(&st) % (sizeof(cfgs) / sizeof(cfgs[0]))];

		r = tracebuf_set_drv_config(&S, c, 0, &e);
		if (r)
			printf("SET_DRV_CONFIG \"%s\": %s\n", c, e.message);
		if (r)
			fail_once("SET_DRV_CONFIG", r);
		n_cfg++;
		usleep(rnd(&st) % 5000);
	}
	return NULL;
}

static void *remapper(void *arg)
{
	static const uint64_t sizes[] = { 16384, 65536, 262144, 1048576 };
	unsigned int st = (unsigned int)(uintptr_t)arg;
	int r;

	while (!stop_all) {
		usleep(rnd(&st) % 20000);
		pthread_rwlock_wrlock(&aux_lock);
		aux_unmap_locked();
		if (rnd(&st) % 4) {
			/* The competing session may hold the sink: EBUSY. */
			r = aux_map_locked(sizes[rnd(&st) % 4], rnd(&st) % 3 == 0);
			if (r && r != -EBUSY)
				fail_once("AUX mmap", r);
		}
		pthread_rwlock_unlock(&aux_lock);
		n_remap++;
	}
	return NULL;
}

/* Children copy our page tables (dup_mmap) and use fresh memory. */
static void *forker(void *arg)
{
	(void)arg;
	while (!stop_all) {
		pid_t pid = fork();
		int st;

		if (pid == 0) {
			size_t n = 256 * 1024, i;
			unsigned char *p = mmap(NULL, n, PROT_READ | PROT_WRITE,
						MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);

			if (p == MAP_FAILED)
				_exit(2);
			for (i = 0; i < n; i += 64)
				p[i] = (unsigned char)i;
			for (i = 0; i < n; i += 64)
				if (p[i] != (unsigned char)i)
					_exit(3);
			_exit(0);
		}
		if (pid < 0) {
			usleep(1000);
			continue;
		}
		if (waitpid(pid, &st, 0) != pid || !WIFEXITED(st) || WEXITSTATUS(st)) {
			printf("fork child: status %#x\n", st);
			tbt_failures++;
		}
		n_fork++;
	}
	return NULL;
}

static void *hotplugger(void *arg)
{
	unsigned int st = (unsigned int)(uintptr_t)arg;
	int on = 1;

	while (!stop_all) {
		usleep(5000 + rnd(&st) % 40000);
		if (set_online(1, !on) == 0) {
			on = !on;
			n_hot++;
		}
	}
	if (!on)
		set_online(1, 1);
	return NULL;
}

/* Another session on the same sink: refused while the main one holds it. */
static void *competitor(void *arg)
{
	unsigned int st = (unsigned int)(uintptr_t)arg;

	while (!stop_all) {
		uint64_t bits = (rnd(&st) % 2) ? 3 : 1;
		struct tracebuf_setup su = { .target = TRACEBUF_TARGET_CPUSET,
					     .cpuset_ptr = (uintptr_t)&bits,
					     .cpuset_size = sizeof(bits) };
		struct tracebuf_session c;
		int r;

		snprintf(su.backend, sizeof(su.backend), "coresight");
		if (tracebuf_open(&c, TRACEBUF_OPEN_NONBLOCK)) {
			fail_once("competitor open", -errno);
			break;
		}
		n_comp++;
		r = tracebuf_setup(&c, &su);
		/* CPU 1 offline: -EINVAL. */
		if (r) {
			if (r != -EINVAL)
				fail_once("competitor SETUP", r);
			tracebuf_close(&c);
			usleep(1000);
			continue;
		}
		if (rnd(&st) % 4 == 0) {
			char buf[4096];

			/* A read() consumer: markers come back. */
			if (tracebuf_user_marker(&c, 1, "x", 1) == 0 &&
			    tracebuf_read(&c, buf, sizeof(buf)) <= 0)
				fail_once("competitor read", -EIO);
		} else if (tracebuf_map(&c, 65536, 0) == 0) {
			uint64_t off = PAGE + 2 * c.data_size, size = 65536;
			void *p;

			c.ctl->aux_offset = off;
			c.ctl->aux_size = size;
			p = mmap(NULL, size, PROT_READ | PROT_WRITE, MAP_SHARED, c.fd, off);
			if (p != MAP_FAILED) {
				n_comp_aux++;
				r = tracebuf_enable(&c);
				if (r)
					fail_once("competitor ENABLE", r);
				usleep(rnd(&st) % 5000);
				/* Exit paths: munmap while tracing, or DISABLE first. */
				if (rnd(&st) % 2 && tracebuf_disable(&c))
					fail_once("competitor DISABLE", -errno);
				munmap(p, size);
			} else if (errno != EBUSY) {
				fail_once("competitor AUX mmap", -errno);
			}
		}
		tracebuf_close(&c);
		usleep(rnd(&st) % 5000);
	}
	return NULL;
}

static int emu_load(void)
{
	const char *argv[] = { "modprobe", "tb_csemu", NULL };

	if (tbt_module_loaded("tb_csemu"))
		tbt_rmmod("tb_csemu");
	return tbt_run(argv);
}

/* After the storm: one plain session, both CPUs, exact accounting. */
static void clean_run(void)
{
	unsigned long long b0 = cs_stat("sink0", "bytes"), b1;
	struct sess x;
	uint64_t bits = 3;
	struct tracebuf_setup su = { .target = TRACEBUF_TARGET_CPUSET,
				     .cpuset_ptr = (uintptr_t)&bits,
				     .cpuset_size = sizeof(bits) };
	int i, both = 0;

	memset(&x, 0, sizeof(x));
	snprintf(su.backend, sizeof(su.backend), "coresight");
	if (tracebuf_open(&x.s, 0) || tracebuf_setup(&x.s, &su) ||
	    tracebuf_map(&x.s, 256 * 1024, 0) || map_aux(&x, 1 << 20, 0)) {
		TBT_CHECK(0, "clean session after the storm: %s", strerror(errno));
		sess_close(&x);
		return;
	}
	TBT_CHECK(tracebuf_enable(&x.s) == 0, "clean ENABLE after the storm: %s", strerror(errno));
	for (i = 0; i < 50 && !both; i++) {
		tracebuf_wait(&x.s, 20);
		consume(&x);
		both = cs_stat("etm0", "enabled") == 1 && cs_stat("etm1", "enabled") == 1;
	}
	TBT_CHECK(both, "both ETMs trace after the storm");
	for (i = 0; i < 20; i++) {
		tracebuf_wait(&x.s, 20);
		consume(&x);
	}
	TBT_CHECK(tracebuf_disable(&x.s) == 0, "clean DISABLE");
	consume(&x);
	b1 = cs_stat("sink0", "bytes");
	TBT_CHECK(x.published > 0, "clean run published %llu", (unsigned long long)x.published);
	TBT_CHECK(b1 - b0 + x.s.ctl->aux_padding == x.published + x.lost,
		  "clean run: sink wrote %llu + padding %llu, published %llu + lost %llu",
		  b1 - b0, (unsigned long long)x.s.ctl->aux_padding,
		  (unsigned long long)x.published, (unsigned long long)x.lost);
	sess_close(&x);
}

int main(int argc, char **argv)
{
	int secs = argc > 1 ? atoi(argv[1]) : 30;
	unsigned int seed = argc > 2 ? (unsigned int)strtoul(argv[2], NULL, 0) :
		(unsigned int)time(NULL);
	void *(*fns[])(void *) = { consumer, enabler, configurer, remapper, forker,
				   hotplugger, competitor };
	enum { NT = sizeof(fns) / sizeof(fns[0]) };
	struct tracebuf_setup su = { .target = TRACEBUF_TARGET_CPUSET, .aux_watermark = 0 };
	uint64_t bits = 3;
	pthread_t t[NT];
	struct timespec t0, now;
	int i, r;

	setvbuf(stdout, NULL, _IONBF, 0);
	printf("cs_storm: %d s, seed %u (rerun: cs_storm %d %u)\n", secs, seed, secs, seed);
#ifndef __aarch64__
	printf("cs_storm: CoreSight exists on arm64 only: skip\n");
	return 77;
#endif
	if (tbt_modprobe("tracebuf") || emu_load()) {
		TBT_CHECK(0, "modprobe tracebuf, tb_csemu");
		return tbt_done();
	}
	if (access("/sys/devices/system/cpu/cpu1/online", W_OK)) {
		TBT_CHECK(0, "cpu1 can go offline");
		return tbt_done();
	}
	su.cpuset_ptr = (uintptr_t)&bits;
	su.cpuset_size = sizeof(bits);
	snprintf(su.backend, sizeof(su.backend), "coresight");
	TBT_CHECK(tracebuf_open(&S, 0) == 0, "open");
	r = tracebuf_setup(&S, &su);
	TBT_CHECK(r == 0, "SETUP: %d", r);
	r = tracebuf_map(&S, DATA_SIZE, 0);
	TBT_CHECK(r == 0, "map: %d", r);
	if (tbt_failures)
		return tbt_done();
	r = aux_map_locked(262144, 0);
	TBT_CHECK(r == 0, "AUX mmap: %d", r);

	for (i = 0; i < NT; i++)
		TBT_CHECK(pthread_create(&t[i], NULL, fns[i], (void *)(uintptr_t)(seed * 31 + i)) == 0,
			  "thread %d", i);
	clock_gettime(CLOCK_MONOTONIC, &t0);
	do {
		sleep(1);
		clock_gettime(CLOCK_MONOTONIC, &now);
	} while (now.tv_sec - t0.tv_sec < secs && tbt_failures == 0);
	stop_all = 1;
	for (i = 0; i < NT; i++)
		pthread_join(t[i], NULL);
	printf("ops: enable %llu disable %llu snapshot %llu config %llu remap %llu fork %llu hotplug %llu competitor %llu (AUX %llu)\n",
	       (unsigned long long)n_enable, (unsigned long long)n_disable,
	       (unsigned long long)n_snap, (unsigned long long)n_cfg,
	       (unsigned long long)n_remap, (unsigned long long)n_fork,
	       (unsigned long long)n_hot, (unsigned long long)n_comp,
	       (unsigned long long)n_comp_aux);
	TBT_CHECK(set_online(1, 1) == 0 || access("/sys/devices/system/cpu/cpu1/online", F_OK) == 0,
		  "cpu1 online again");

	/* The end: stop, read everything, flush a pending LOST report. */
	r = tracebuf_disable(&S);
	TBT_CHECK(r == 0, "final DISABLE: %d", r);
	drain_ring();
	r = tracebuf_user_marker(&S, ~0ULL, "end", 3);
	TBT_CHECK(r == 0, "final marker: %d", r);
	markers_ok += !r;
	drain_ring();
	TBT_CHECK(tracebuf_ring_error(&S) == 0, "data ring consistent");
	printf("seen: records %llu (markers %llu, spans %llu, AUX bytes %llu, AUX overruns %llu), lost %llu\n",
	       (unsigned long long)seen_records, (unsigned long long)seen_markers,
	       (unsigned long long)seen_spans, (unsigned long long)seen_aux_bytes,
	       (unsigned long long)seen_overruns, (unsigned long long)seen_lost);
	printf("ctl: data_head %llu (read to %llu) records_written %llu records_lost %llu aux_published %llu truncations %llu\n",
	       (unsigned long long)S.ctl->data_head, (unsigned long long)S.tail,
	       (unsigned long long)S.ctl->records_written,
	       (unsigned long long)S.ctl->records_lost,
	       (unsigned long long)S.ctl->aux_published,
	       (unsigned long long)S.ctl->aux_truncations);
	TBT_CHECK(seen_records == S.ctl->records_written, "records seen %llu = written %llu",
		  (unsigned long long)seen_records,
		  (unsigned long long)S.ctl->records_written);
	TBT_CHECK(seen_lost == S.ctl->records_lost, "LOST counts %llu = records_lost %llu",
		  (unsigned long long)seen_lost, (unsigned long long)S.ctl->records_lost);
	TBT_CHECK(seen_spans > 0, "AUX spans published during the storm");
	/* An AUX record that did not fit is lost, its bytes still published. */
	if (!S.ctl->records_lost) {
		TBT_CHECK(seen_aux_bytes == S.ctl->aux_published,
			  "AUX spans %llu = aux_published %llu",
			  (unsigned long long)seen_aux_bytes,
			  (unsigned long long)S.ctl->aux_published);
		TBT_CHECK(seen_markers == markers_ok, "markers %llu = written %llu",
			  (unsigned long long)seen_markers, (unsigned long long)markers_ok);
	} else {
		TBT_CHECK(seen_aux_bytes <= S.ctl->aux_published, "AUX spans %llu <= published %llu",
			  (unsigned long long)seen_aux_bytes,
			  (unsigned long long)S.ctl->aux_published);
	}
	pthread_rwlock_wrlock(&aux_lock);
	aux_unmap_locked();
	pthread_rwlock_unlock(&aux_lock);
	tracebuf_close(&S);

	TBT_CHECK(cs_stat("etm0", "enabled") == 0 && cs_stat("etm1", "enabled") == 0,
		  "every ETM off once no session traces (etm0 %llu, etm1 %llu)",
		  cs_stat("etm0", "enabled"), cs_stat("etm1", "enabled"));
	TBT_CHECK(cs_stat("sink0", "state") == 0, "sink disabled (state %llu)",
		  cs_stat("sink0", "state"));
	clean_run();
	TBT_CHECK(total_violations() == 0, "emulator violations %llu", total_violations());
	if (tbt_module_loaded("tb_csemu"))
		TBT_CHECK(tbt_rmmod("tb_csemu") == 0, "rmmod tb_csemu");
	return tbt_done();
}
