// SPDX-License-Identifier: GPL-2.0
/*
 * make bench: data-ring throughput. One task-context producer per CPU
 * (tb_producer), one consumer through the library's inline iterator.
 * Prints records/s, ns per record per producer, and the lost count for
 * 8, 64 and 256-byte payloads. Numbers only: under TCG they are relative.
 */
#include <pthread.h>
#include <stdint.h>
#include <sys/ioctl.h>
#include <time.h>

#include <libtracebuf.h>
#include "tbtest.h"
#include "tb_producer.h"

struct waiter {
	int pfd;
	struct tbp_stats st;
	volatile int done;
};

static void *wait_thread(void *arg)
{
	struct waiter *w = arg;

	ioctl(w->pfd, TBP_IOC_WAIT, &w->st);
	__atomic_store_n(&w->done, 1, __ATOMIC_RELEASE);
	return NULL;
}

static double now(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return ts.tv_sec + ts.tv_nsec / 1e9;
}

static void bench(uint32_t payload, uint64_t count)
{
	struct tracebuf_setup su = { .target = TRACEBUF_TARGET_CPU,
				     .data_watermark = 64 * 1024 };
	struct tbp_start start = { .contexts = 1 << TRACEBUF_CTX_TASK, .batch = 1,
				   .count = count, .period_ns = 100000 };
	const struct tracebuf_record *r;
	struct tracebuf_session s;
	struct waiter w = { 0 };
	uint64_t consumed = 0, produced;
	pthread_t th;
	double t0, t1;

	strcpy(su.backend, TRACEBUF_BACKEND_DATA);
	if (tracebuf_open(&s, 0) || tracebuf_setup(&s, &su) || tracebuf_map(&s, 1 << 20, 0)) {
		TBT_CHECK(0, "session");
		return;
	}
	w.pfd = open(TBP_DEVICE, O_RDWR);
	start.fd = s.fd;
	start.size = sizeof(struct tracebuf_rec_test) + payload;
	t0 = now();
	TBT_CHECK(ioctl(w.pfd, TBP_IOC_START, &start) == 0, "start: %s", strerror(errno));
	pthread_create(&th, NULL, wait_thread, &w);
	while (!__atomic_load_n(&w.done, __ATOMIC_ACQUIRE)) {
		tracebuf_wait(&s, 10);
		while ((r = tracebuf_peek(&s))) {
			consumed += r->hdr.type == TRACEBUF_REC_TEST;
			tracebuf_advance(&s, r);
		}
	}
	t1 = now();
	pthread_join(th, NULL);
	while ((r = tracebuf_peek(&s))) {
		consumed += r->hdr.type == TRACEBUF_REC_TEST;
		tracebuf_advance(&s, r);
	}
	produced = w.st.attempted[TRACEBUF_CTX_TASK];
	printf("bench: payload %3u B (record %3u B): %u producers, %llu records in %.3f s: "
	       "%.0f records/s, %.0f ns/record/producer, consumed %llu, lost %llu\n",
	       payload, start.size, w.st.nr_cpus, (unsigned long long)produced, t1 - t0,
	       produced / (t1 - t0), (t1 - t0) * 1e9 * w.st.nr_cpus / produced,
	       (unsigned long long)consumed, (unsigned long long)s.ctl->records_lost);
	TBT_CHECK(consumed + s.ctl->records_lost == produced, "accounting");
	close(w.pfd);
	tracebuf_close(&s);
}

int main(void)
{
	if (tbt_modprobe("tb_producer"))
		return 1;
	bench(8, 200000);
	bench(64, 200000);
	bench(256, 100000);
	return tbt_done();
}
