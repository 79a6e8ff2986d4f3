// SPDX-License-Identifier: GPL-2.0
/*
 * Concurrent producers in task, softirq and hardirq context on every CPU,
 * against a consumer that keeps up, lags, stops, or maps read-only. Every
 * record is checked (type, numbering, payload), and the accounting
 * identity must hold exactly:
 *   records produced = records delivered + records reported lost.
 * Then the same with tracebuf_reserve_batch() (16 records per
 * reservation; a nearly full ring reserves fewer and counts the rest lost),
 * and with compact records (TRACEBUF_SETUP_F_COMPACT: the 8-byte prefix,
 * read with tracebuf_peek_compact()).
 */
#include <poll.h>
#include <pthread.h>
#include <stdint.h>
#include <sys/ioctl.h>

#include <libtracebuf.h>
#include "tbtest.h"
#include "tb_producer.h"

#ifdef __x86_64__
#define ALL_CTX 15	/* task, softirq, hardirq, NMI */
#else
#define ALL_CTX 7	/* no NMI source in the arm64 guest */
#endif

#define MAX_CPUS 64

enum mode { KEEP_UP, LAG, STOPPED, READ_ONLY };
static const char *const mode_name[] = { "keep-up", "lag", "stopped", "read-only" };

struct waiter {
	int pfd;
	struct tbp_stats st;
	volatile int done;
	int ret;
};

static void *wait_thread(void *arg)
{
	struct waiter *w = arg;

	w->ret = ioctl(w->pfd, TBP_IOC_WAIT, &w->st);
	__atomic_store_n(&w->done, 1, __ATOMIC_RELEASE);
	return NULL;
}

struct tally {
	uint64_t test, user, lost_recs, lost_count, gaps, bad;
	int64_t last[MAX_CPUS][TBP_NR_CTX];
};

static void check_record(const struct tracebuf_record *r, struct tally *t, uint32_t size)
{
	const struct tracebuf_rec_test *x = (const void *)r;
	const uint8_t *p = (const uint8_t *)(x + 1);
	uint32_t i;

	switch (r->hdr.type) {
	case TRACEBUF_REC_TEST:
		if (r->hdr.size != size || x->context >= TBP_NR_CTX ||
		    x->producer >= MAX_CPUS || r->cpu != x->producer) {
			if (t->bad++ < 5)
				printf("bad test record: size %u ctx %u producer %u cpu %u\n",
				       r->hdr.size, x->context, x->producer, r->cpu);
			return;
		}
		if ((int64_t)x->seq <= t->last[x->producer][x->context]) {
			if (t->bad++ < 5)
				printf("seq %llu after %lld (cpu %u ctx %u)\n",
				       (unsigned long long)x->seq,
				       (long long)t->last[x->producer][x->context],
				       x->producer, x->context);
			return;
		}
		t->gaps += x->seq - t->last[x->producer][x->context] - 1;
		t->last[x->producer][x->context] = x->seq;
		for (i = 0; i < size - sizeof(*x); i++)
			if (p[i] != (uint8_t)(x->seq * 31 + i)) {
				if (t->bad++ < 5)
					printf("payload byte %u corrupt (seq %llu)\n", i,
					       (unsigned long long)x->seq);
				return;
			}
		t->test++;
		break;
	case TRACEBUF_REC_LOST:
		t->lost_recs++;
		t->lost_count += ((const struct tracebuf_rec_lost *)r)->count;
		break;
	case TRACEBUF_REC_USER:
		t->user++;
		break;
	default:
		if (t->bad++ < 5)
			printf("unexpected record type %u\n", r->hdr.type);
	}
}

/* The same checks on a compact record (no CPU: the producer field says). */
static void check_crecord(const struct tracebuf_crec *r, struct tally *t, uint32_t size)
{
	const struct tracebuf_crec_test *x = (const void *)r;
	const uint8_t *p = (const uint8_t *)(x + 1);
	uint32_t i;

	switch (r->type) {
	case TRACEBUF_REC_TEST:
		/* The producer asks for size bytes in the standard layout. */
		if (r->size != size - (sizeof(struct tracebuf_record) - sizeof(*r)) ||
		    x->context >= TBP_NR_CTX || x->producer >= MAX_CPUS) {
			if (t->bad++ < 5)
				printf("bad compact test record: size %u ctx %u producer %u\n",
				       r->size, x->context, x->producer);
			return;
		}
		if ((int64_t)x->seq <= t->last[x->producer][x->context]) {
			if (t->bad++ < 5)
				printf("seq %llu after %lld (cpu %u ctx %u)\n",
				       (unsigned long long)x->seq,
				       (long long)t->last[x->producer][x->context],
				       x->producer, x->context);
			return;
		}
		t->gaps += x->seq - t->last[x->producer][x->context] - 1;
		t->last[x->producer][x->context] = x->seq;
		for (i = 0; i < r->size - sizeof(*x); i++)
			if (p[i] != (uint8_t)(x->seq * 31 + i)) {
				if (t->bad++ < 5)
					printf("payload byte %u corrupt (seq %llu)\n", i,
					       (unsigned long long)x->seq);
				return;
			}
		t->test++;
		break;
	case TRACEBUF_REC_LOST:
		if (r->size != sizeof(struct tracebuf_crec_lost)) {
			if (t->bad++ < 5)
				printf("compact LOST record of %u bytes\n", r->size);
			return;
		}
		t->lost_recs++;
		t->lost_count += ((const struct tracebuf_crec_lost *)r)->count;
		break;
	case TRACEBUF_REC_USER:
		if (!tracebuf_cas_user(r) || tracebuf_cas_user(r)->len != 3) {
			if (t->bad++ < 5)
				printf("bad compact USER record (%u bytes)\n", r->size);
			return;
		}
		t->user++;
		break;
	default:
		if (t->bad++ < 5)
			printf("unexpected compact record type %u\n", r->type);
	}
}

static int compact;	/* the session of this run has compact records */

static void drain(struct tracebuf_session *s, struct tally *t, uint32_t size)
{
	const struct tracebuf_record *r;
	const struct tracebuf_crec *c;

	if (compact) {
		while ((c = tracebuf_peek_compact(s))) {
			check_crecord(c, t, size);
			tracebuf_advance_compact(s, c);
		}
		return;
	}
	while ((r = tracebuf_peek(s))) {
		check_record(r, t, size);
		tracebuf_advance(s, r);
	}
}

static void run(enum mode mode, uint64_t data_size, uint64_t count, uint32_t size,
		uint32_t flags, uint32_t setup_flags)
{
	struct tracebuf_setup su = { .target = TRACEBUF_TARGET_CPU, .cpu = 0,
				     .data_watermark = data_size / 4, .flags = setup_flags };
	struct tbp_start start = { .contexts = ALL_CTX, .size = size,
				   .batch = flags & TBP_F_BATCH ? 16 : 4,
				   .count = count, .period_ns = 20000, .flags = flags };
	struct tracebuf_session s;
	struct waiter w = { 0 };
	struct tally t;
	pthread_t th;
	uint64_t attempted = 0, ok = 0, failed = 0, lost;
	int ret, c, marker_lost;

	memset(&t, 0, sizeof(t));
	memset(t.last, 0xff, sizeof(t.last));	/* -1: nothing seen yet */
	strcpy(su.backend, TRACEBUF_BACKEND_DATA);
	ret = tracebuf_open(&s, 0);
	TBT_CHECK(ret == 0, "open: %d", ret);
	ret = tracebuf_setup(&s, &su);
	TBT_CHECK(ret == 0, "setup: %d", ret);
	ret = tracebuf_map(&s, data_size, mode == READ_ONLY ? TRACEBUF_MAP_READONLY : 0);
	TBT_CHECK(ret == 0, "map: %d", ret);
	if (tbt_failures)
		return;
	compact = !!(setup_flags & TRACEBUF_SETUP_F_COMPACT);
	TBT_CHECK(!!(s.ctl->flags & TRACEBUF_CTL_F_COMPACT) == compact, "ctl flags %#x",
		  s.ctl->flags);

	w.pfd = open(TBP_DEVICE, O_RDWR);
	TBT_CHECK(w.pfd >= 0, "open %s: %s", TBP_DEVICE, strerror(errno));
	start.fd = s.fd;
	TBT_CHECK(ioctl(w.pfd, TBP_IOC_START, &start) == 0, "start: %s", strerror(errno));
	pthread_create(&th, NULL, wait_thread, &w);

	while (!__atomic_load_n(&w.done, __ATOMIC_ACQUIRE)) {
		if (mode == STOPPED || mode == READ_ONLY) {
			usleep(10000);
			continue;
		}
		tracebuf_wait(&s, 50);
		drain(&s, &t, size);
		if (mode == LAG)
			usleep(3000);
	}
	pthread_join(th, NULL);
	TBT_CHECK(w.ret == 0, "wait: %s", strerror(errno));
	drain(&s, &t, size);

	/* A marker after the producers stop flushes any pending loss count. */
	ret = tracebuf_user_marker(&s, 42, "end", 3);
	marker_lost = ret == -ENOSPC;
	TBT_CHECK(ret == 0 || (mode == READ_ONLY && marker_lost), "marker: %d", ret);
	drain(&s, &t, size);

	/* Numbers missing after the last delivered one are gaps too. */
	for (c = 0; c < TBP_NR_CTX; c++)
		for (unsigned int cpu = 0; cpu < w.st.nr_cpus && cpu < MAX_CPUS; cpu++)
			if (ALL_CTX & (1 << c))
				t.gaps += count - 1 - t.last[cpu][c];
	for (c = 0; c < TBP_NR_CTX; c++) {
		attempted += w.st.attempted[c];
		ok += w.st.ok[c];
		failed += w.st.failed[c];
	}
	lost = __atomic_load_n(&s.ctl->records_lost, __ATOMIC_ACQUIRE);
	for (c = 0; c < TBP_NR_CTX; c++)
		printf("  context %d: produced %llu, committed %llu, lost %llu\n", c,
		       (unsigned long long)w.st.attempted[c], (unsigned long long)w.st.ok[c],
		       (unsigned long long)w.st.failed[c]);
	printf("%s%s%s: %u cpus, produced %llu, delivered %llu, lost %llu (%llu LOST records), wakeups %llu\n",
	       mode_name[mode], flags & TBP_F_BATCH ? " (batch reserve)" : "",
	       compact ? " (compact)" : "",
	       w.st.nr_cpus, (unsigned long long)attempted,
	       (unsigned long long)t.test, (unsigned long long)lost,
	       (unsigned long long)t.lost_recs,
	       (unsigned long long)s.ctl->wakeups);

	TBT_CHECK(t.bad == 0, "%llu bad records", (unsigned long long)t.bad);
	TBT_CHECK(tracebuf_ring_error(&s) == 0, "ring error %d", tracebuf_ring_error(&s));
	TBT_CHECK(attempted == count * __builtin_popcount(ALL_CTX) * w.st.nr_cpus, "attempted %llu",
		  (unsigned long long)attempted);
	TBT_CHECK(ok + failed == attempted, "producer: ok + failed != attempted");
	TBT_CHECK(t.test == ok, "delivered %llu, producer committed %llu",
		  (unsigned long long)t.test, (unsigned long long)ok);
	TBT_CHECK(lost == failed + marker_lost, "records_lost %llu, producer failed %llu",
		  (unsigned long long)lost, (unsigned long long)failed);
	TBT_CHECK(t.test + lost == attempted + marker_lost, "identity");
	if (!marker_lost)
		TBT_CHECK(t.lost_count == lost, "LOST records sum %llu, counter %llu",
			  (unsigned long long)t.lost_count, (unsigned long long)lost);
	TBT_CHECK(t.gaps == failed, "numbering gaps %llu, lost %llu",
		  (unsigned long long)t.gaps, (unsigned long long)failed);
	TBT_CHECK(s.ctl->records_written == t.test + t.user, "records_written %llu",
		  (unsigned long long)s.ctl->records_written);
	if (mode == STOPPED || mode == READ_ONLY)
		TBT_CHECK(lost > 0, "a stopped consumer must see loss");

	close(w.pfd);
	tracebuf_close(&s);
}

int main(void)
{
	if (tbt_modprobe("tb_producer"))
		return 1;
	run(KEEP_UP, 256 * 1024, 3000, 64, 0, 0);
	run(LAG, 64 * 1024, 3000, 64, 0, 0);
	run(STOPPED, 16 * 1024, 3000, 256, 0, 0);
	run(READ_ONLY, 16 * 1024, 2000, 64, 0, 0);
	run(KEEP_UP, 4096, 2000, sizeof(struct tracebuf_rec_test), 0, 0);
	/* tracebuf_reserve_batch(): 16 records per reservation, some partial. */
	run(KEEP_UP, 256 * 1024, 3000, 64, TBP_F_BATCH, 0);
	run(LAG, 16 * 1024, 3000, 64, TBP_F_BATCH, 0);
	run(STOPPED, 16 * 1024, 3000, 256, TBP_F_BATCH, 0);
	/* Compact records: 8-byte prefix, compact LOST records. */
	run(KEEP_UP, 256 * 1024, 3000, 64, 0, TRACEBUF_SETUP_F_COMPACT);
	run(LAG, 16 * 1024, 3000, 64, 0, TRACEBUF_SETUP_F_COMPACT);
	run(STOPPED, 16 * 1024, 3000, 256, TBP_F_BATCH, TRACEBUF_SETUP_F_COMPACT);
	run(READ_ONLY, 16 * 1024, 2000, 64, 0, TRACEBUF_SETUP_F_COMPACT);
	run(KEEP_UP, 4096, 2000, sizeof(struct tracebuf_rec_test), 0, TRACEBUF_SETUP_F_COMPACT);
	return tbt_done();
}
