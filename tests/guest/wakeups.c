// SPDX-License-Identifier: GPL-2.0
/*
 * Watermark and every-N wakeups are neither early nor missed; SIGIO carries
 * the right si_code, si_band and si_fd; nobody waiting means no wakeup.
 * User markers make the record stream exact: each is 64 bytes here.
 */
#include <poll.h>
#include <pthread.h>
#include <signal.h>
#include <stdint.h>

#include <libtracebuf.h>
#include "tbtest.h"

#define REC 64		/* sizeof(struct tracebuf_rec_user) + 24 bytes of data */
static const char data[24] = "0123456789abcdefghijklm";

static int session(struct tracebuf_session *s, uint64_t wm, uint32_t every)
{
	struct tracebuf_setup su = { .target = TRACEBUF_TARGET_CPU,
				     .data_watermark = wm, .wakeup_events = every };
	int ret;

	strcpy(su.backend, TRACEBUF_BACKEND_DATA);
	ret = tracebuf_open(s, 0);
	if (!ret)
		ret = tracebuf_setup(s, &su);
	if (!ret)
		ret = tracebuf_map(s, 16384, 0);
	TBT_CHECK(ret == 0, "session: %d", ret);
	return ret;
}

static int ready(struct tracebuf_session *s)
{
	struct pollfd p = { .fd = s->fd, .events = POLLIN };

	return poll(&p, 1, 0) == 1 && (p.revents & POLLIN);
}

static void markers(struct tracebuf_session *s, int n)
{
	while (n--)
		TBT_CHECK(tracebuf_user_marker(s, n, data, sizeof(data)) == 0, "marker");
}

static void consume(struct tracebuf_session *s)
{
	const struct tracebuf_record *r;

	while ((r = tracebuf_peek(s)))
		tracebuf_advance(s, r);
}

struct poller {
	struct tracebuf_session *s;
	int ret;
	uint64_t unread_at_wake;
};

static void *poll_thread(void *arg)
{
	struct poller *p = arg;

	p->ret = tracebuf_wait(p->s, 10000);
	p->unread_at_wake = tracebuf_unread(p->s);
	return NULL;
}

static void watermark(void)
{
	struct tracebuf_session s;
	struct poller p = { .s = &s };
	pthread_t th;
	int i;

	if (session(&s, 16 * REC, 0))
		return;
	markers(&s, 15);
	TBT_CHECK(!ready(&s), "ready below the watermark");
	TBT_CHECK(s.ctl->wakeups == 0, "woke with nobody waiting: %llu",
		  (unsigned long long)s.ctl->wakeups);
	markers(&s, 1);
	TBT_CHECK(ready(&s), "not ready at the watermark");
	consume(&s);
	TBT_CHECK(!ready(&s), "ready after consuming");

	/* A sleeper is woken exactly when the watermark is reached. */
	pthread_create(&th, NULL, poll_thread, &p);
	usleep(100000);
	for (i = 0; i < 16; i++) {
		markers(&s, 1);
		usleep(2000);
	}
	pthread_join(th, NULL);
	TBT_CHECK(p.ret == 1, "sleeper not woken: %d", p.ret);
	TBT_CHECK(p.unread_at_wake >= 16 * REC, "woken early: %llu unread",
		  (unsigned long long)p.unread_at_wake);
	TBT_CHECK(s.ctl->wakeups >= 1, "wakeups counter %llu",
		  (unsigned long long)s.ctl->wakeups);
	tracebuf_close(&s);
}

static void every_n(void)
{
	struct tracebuf_session s;

	if (session(&s, 16384, 5))
		return;
	markers(&s, 4);
	TBT_CHECK(!ready(&s), "ready before the 5th record");
	markers(&s, 1);
	TBT_CHECK(ready(&s), "not ready at the 5th record");
	TBT_CHECK(ready(&s), "every-N readiness must hold until consumed");
	consume(&s);
	TBT_CHECK(!ready(&s), "ready after consuming");
	markers(&s, 4);
	TBT_CHECK(!ready(&s), "ready at the 9th record");
	markers(&s, 1);
	TBT_CHECK(ready(&s), "not ready at the 10th record");
	tracebuf_close(&s);
}

static void sigio(int with_setsig)
{
	struct tracebuf_session s;
	struct timespec ts = { .tv_sec = 5 };
	int signo = with_setsig ? SIGRTMIN + 1 : SIGIO;
	siginfo_t si;
	sigset_t set;
	int ret;

	sigemptyset(&set);
	sigaddset(&set, signo);
	sigprocmask(SIG_BLOCK, &set, NULL);
	if (session(&s, 4 * REC, 0))
		return;
	ret = tracebuf_sigio_enable(&s, with_setsig ? signo : 0, 0);
	TBT_CHECK(ret == 0, "sigio_enable: %d", ret);
	markers(&s, 3);
	ts.tv_sec = 0;
	ts.tv_nsec = 200 * 1000 * 1000;
	TBT_CHECK(sigtimedwait(&set, &si, &ts) < 0, "signal below the watermark");
	markers(&s, 1);
	ts.tv_sec = 5;
	ts.tv_nsec = 0;
	ret = sigtimedwait(&set, &si, &ts);
	TBT_CHECK(ret == signo, "no signal: %d (%s)", ret, strerror(errno));
	if (ret == signo) {
		TBT_CHECK(si.si_code == POLL_IN, "si_code %d", si.si_code);
		TBT_CHECK(si.si_band & POLLIN, "si_band %#lx", (long)si.si_band);
		TBT_CHECK(si.si_fd == s.fd, "si_fd %d, fd %d", si.si_fd, s.fd);
	}
	tracebuf_sigio_disable(&s);
	tracebuf_close(&s);
	sigprocmask(SIG_UNBLOCK, &set, NULL);
}

int main(void)
{
	if (tbt_modprobe("tracebuf"))
		return 1;
	watermark();
	every_n();
	sigio(1);
	sigio(0);
	return tbt_done();
}
