// SPDX-License-Identifier: GPL-2.0
/*
 * munmap, close and process exit while producers write; the module stays
 * pinned while anything uses it and unloads cleanly afterwards.
 */
#include <stdint.h>
#include <sys/ioctl.h>
#include <sys/mman.h>

#include <libtracebuf.h>
#include "tbtest.h"
#include "tb_producer.h"

#ifdef __x86_64__
#define ALL_CTX 15	/* task, softirq, hardirq, NMI */
#else
#define ALL_CTX 7	/* no NMI source in the arm64 guest */
#endif

static int start(struct tracebuf_session *s, int *pfd, uint64_t count)
{
	struct tracebuf_setup su = { .target = TRACEBUF_TARGET_CPU };
	struct tbp_start st = { .contexts = ALL_CTX, .size = 128, .batch = 8,
				.count = count, .period_ns = 10000 };

	strcpy(su.backend, TRACEBUF_BACKEND_DATA);
	if (tracebuf_open(s, 0) || tracebuf_setup(s, &su) || tracebuf_map(s, 16384, 0))
		return -1;
	*pfd = open(TBP_DEVICE, O_RDWR);
	if (*pfd < 0)
		return -1;
	st.fd = s->fd;
	return ioctl(*pfd, TBP_IOC_START, &st);
}

int main(void)
{
	struct tracebuf_session s;
	struct tbp_stats stats;
	int pfd, st, ret;
	pid_t child;

	if (tbt_modprobe("tb_producer"))
		return 1;

	/* munmap, then close, while the producers run. */
	TBT_CHECK(start(&s, &pfd, 20000) == 0, "start: %s", strerror(errno));
	usleep(20000);
	tracebuf_unmap(&s);
	usleep(20000);
	tracebuf_close(&s);
	TBT_CHECK(ioctl(pfd, TBP_IOC_WAIT, &stats) == 0, "wait: %s", strerror(errno));
	TBT_CHECK(stats.done, "not done");
	close(pfd);

	/* Stop early, then close everything. */
	TBT_CHECK(start(&s, &pfd, 1000000) == 0, "start 2");
	usleep(20000);
	TBT_CHECK(ioctl(pfd, TBP_IOC_STOP, &stats) == 0, "stop: %s", strerror(errno));
	close(pfd);
	tracebuf_close(&s);

	/* A process that exits with everything open and running. */
	child = fork();
	if (child == 0) {
		if (start(&s, &pfd, 1000000))
			_exit(1);
		usleep(20000);
		_exit(0);
	}
	waitpid(child, &st, 0);
	TBT_CHECK(WIFEXITED(st) && WEXITSTATUS(st) == 0, "child failed");

	/* tracebuf is pinned by tb_producer, then unloads cleanly. */
	ret = tbt_rmmod("tracebuf");
	TBT_CHECK(ret == -EWOULDBLOCK, "rmmod tracebuf under tb_producer: %d", ret);
	ret = tbt_rmmod("tb_producer");
	TBT_CHECK(ret == 0, "rmmod tb_producer: %d", ret);
	ret = tbt_rmmod("tracebuf");
	TBT_CHECK(ret == 0, "rmmod tracebuf: %d", ret);
	TBT_CHECK(tbt_modprobe("tracebuf") == 0, "reload");
	return tbt_done();
}
