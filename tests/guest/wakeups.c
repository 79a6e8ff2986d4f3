// SPDX-License-Identifier: GPL-2.0
/*
 * Watermark and every-N wakeups are neither early nor missed; SIGIO carries
 * the right si_code, si_band and si_fd; nobody waiting means no wakeup.
 * User markers make the record stream exact: each is 64 bytes here.
 *
 * Wakeups on transitions only (issue 18): 1000 records, one consumer in
 * each way of waiting (poll, level and edge-triggered epoll, SIGIO,
 * blocking read), every-N = 100 and a watermark of 100 records: the ring
 * sends at most 10 wakeups (the kernel's count), and the consumer wakes at
 * most 10 times; a consumer that never sleeps is woken at most once. A
 * count, never a time.
 */
#include <poll.h>
#include <pthread.h>
#include <signal.h>
#include <stdint.h>
#include <sys/epoll.h>
#include <sys/ioctl.h>
#include <sys/time.h>

#include <libtracebuf.h>
#include "tbtest.h"
#include "tb_producer.h"

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

/*
 * A consumer that slept in poll (a level-mode wakeup disarms until the
 * next poll), then turns SIGIO on: the next readiness is signalled.
 */
static void sigio_after_poll(void)
{
	struct tracebuf_session s;
	struct poller p = { .s = &s };
	struct timespec ts = { .tv_sec = 5 };
	int signo = SIGRTMIN + 3, ret;
	pthread_t th;
	sigset_t set;

	sigemptyset(&set);
	sigaddset(&set, signo);
	sigprocmask(SIG_BLOCK, &set, NULL);
	if (session(&s, 4 * REC, 0))
		return;
	pthread_create(&th, NULL, poll_thread, &p);
	usleep(100000);
	markers(&s, 4);
	pthread_join(th, NULL);
	TBT_CHECK(p.ret == 1, "poller not woken: %d", p.ret);
	consume(&s);
	TBT_CHECK(tracebuf_sigio_enable(&s, signo, 0) == 0, "sigio_enable");
	markers(&s, 4);
	ret = sigtimedwait(&set, NULL, &ts);
	TBT_CHECK(ret == signo, "no signal after a poll wakeup: %d (%s)", ret, strerror(errno));
	tracebuf_sigio_disable(&s);
	tracebuf_close(&s);
	sigprocmask(SIG_UNBLOCK, &set, NULL);
}

/* ---- wakeups per 1000 records ---------------------------------------- */

#define NREC	1000
#define GROUP	100		/* wakeup_events, or the watermark in records */

enum mode { M_POLL, M_EPOLL_LT, M_EPOLL_ET, M_SIGIO, M_READ, M_BUSY, M_NR };
static const char *const mode_name[M_NR] = {
	"poll", "epoll", "epoll-et", "sigio", "read", "busy+epoll"
};
#define SIG_COUNT (SIGRTMIN + 2)

struct counter {
	struct tracebuf_session *s;
	enum mode mode;
	int ep;
	uint64_t records;	/* USER records consumed */
	uint64_t woken;		/* returns from poll/epoll_wait/sigtimedwait/read */
	int every_n;		/* every-N mode, else watermark */
	int timeout;		/* a wait timed out with records still to come */
	int stop;		/* the producer is done */
};

static void drain(struct counter *c)
{
	const struct tracebuf_record *r;

	while ((r = tracebuf_peek(c->s))) {
		c->records += r->hdr.type == TRACEBUF_REC_USER;
		tracebuf_advance(c->s, r);
	}
}

/*
 * Waits of 200 ms: a timeout is no wakeup. Once the producer is done, a
 * timeout ends the run: by then every record that can make the ring ready
 * must have been delivered (all of them every-N; all but fewer than a
 * watermark's worth otherwise), else a wakeup was missed.
 */
static void *counter_thread(void *arg)
{
	struct counter *c = arg;
	struct epoll_event ev;
	struct timespec ts = { .tv_nsec = 200 * 1000 * 1000 };
	struct itimerval it = { .it_value = { .tv_usec = 200 * 1000 } };
	static char buf[1 << 16];
	sigset_t set;
	ssize_t n;
	int ret;

	/* SIGALRM comes to this thread only: main blocks it. */
	sigemptyset(&set);
	sigaddset(&set, SIGALRM);
	pthread_sigmask(SIG_UNBLOCK, &set, NULL);
	sigemptyset(&set);
	sigaddset(&set, SIG_COUNT);
	while (c->records < NREC) {
		switch (c->mode) {
		case M_POLL:
			ret = tracebuf_wait(c->s, 200);
			break;
		case M_EPOLL_LT:
		case M_EPOLL_ET:
			ret = epoll_wait(c->ep, &ev, 1, 200);
			break;
		case M_SIGIO:
			ret = sigtimedwait(&set, NULL, &ts) == SIG_COUNT;
			break;
		case M_READ:
			/* Blocking: SIGALRM (no SA_RESTART) ends the wait. */
			setitimer(ITIMER_REAL, &it, NULL);
			n = read(c->s->fd, buf, sizeof(buf));
			memset(&it, 0, sizeof(it));
			setitimer(ITIMER_REAL, &it, NULL);
			it.it_value.tv_usec = 200 * 1000;
			ret = n > 0;
			if (n > 0)
				c->records += n / REC;	/* every record is a marker */
			break;
		default:	/* M_BUSY: never sleeps */
			drain(c);
			if (__atomic_load_n(&c->stop, __ATOMIC_ACQUIRE))
				return NULL;
			continue;
		}
		if (ret > 0) {
			c->woken++;
			if (c->mode != M_READ)
				drain(c);
			continue;
		}
		if (__atomic_load_n(&c->stop, __ATOMIC_ACQUIRE)) {
			c->timeout = c->records + (c->every_n ? 0 : GROUP - 1) < NREC;
			break;
		}
	}
	return NULL;
}

static void on_alarm(int sig)
{
	(void)sig;
}

static uint64_t ring_wakeups(int pfd, struct tracebuf_session *s)
{
	struct tbp_ring_stats rs = { .fd = s->fd };

	if (ioctl(pfd, TBP_IOC_RING_STATS, &rs)) {
		TBT_CHECK(0, "RING_STATS: %s", strerror(errno));
		return ~0ULL;
	}
	return rs.wakeups;
}

/* One consumer, NREC markers from this thread; every_n or watermark groups. */
static void counted(int pfd, enum mode mode, int every_n_mode)
{
	struct tracebuf_setup su = { .target = TRACEBUF_TARGET_CPU,
				     .data_size = mode == M_READ ? 262144 : 0 };
	struct epoll_event ev = { .events = EPOLLIN };
	struct tracebuf_session s;
	struct counter c = { .s = &s, .mode = mode, .ep = -1, .every_n = every_n_mode };
	const char *kind = every_n_mode ? "every 100 records" : "watermark 100 records";
	uint64_t bound = NREC / GROUP, wk;
	pthread_t th;
	int i, ret;

	strcpy(su.backend, TRACEBUF_BACKEND_DATA);
	if (every_n_mode) {
		su.wakeup_events = GROUP;
		su.data_watermark = 262144;	/* the ring: never the reason */
	} else {
		su.data_watermark = GROUP * REC;
	}
	ret = tracebuf_open(&s, 0);
	if (!ret)
		ret = tracebuf_setup(&s, &su);
	if (!ret && mode != M_READ)
		ret = tracebuf_map(&s, 262144, 0);
	TBT_CHECK(ret == 0, "%s: session: %d", mode_name[mode], ret);
	if (ret)
		return;
	if (mode == M_EPOLL_LT || mode == M_EPOLL_ET || mode == M_BUSY) {
		c.ep = epoll_create1(0);
		if (mode == M_EPOLL_ET)
			ev.events |= EPOLLET;
		TBT_CHECK(epoll_ctl(c.ep, EPOLL_CTL_ADD, s.fd, &ev) == 0, "epoll_ctl");
	}
	if (mode == M_SIGIO)
		TBT_CHECK(tracebuf_sigio_enable(&s, SIG_COUNT, 0) == 0, "sigio");
	pthread_create(&th, NULL, counter_thread, &c);
	usleep(50000);		/* let it go to sleep first */
	/* Paced, so that the consumer sleeps and is woken many times. */
	for (i = 0; i < NREC; i++) {
		TBT_CHECK(tracebuf_user_marker(&s, i, data, sizeof(data)) == 0, "marker %d", i);
		if (i % 20 == 19)
			usleep(2000);
	}
	if (mode == M_BUSY)
		usleep(200000);
	__atomic_store_n(&c.stop, 1, __ATOMIC_RELEASE);
	pthread_join(th, NULL);
	wk = ring_wakeups(pfd, &s);
	printf("wakeups: %-10s %-22s %llu records, ring wakeups %llu, consumer woke %llu\n",
	       mode_name[mode], kind, (unsigned long long)c.records,
	       (unsigned long long)wk, (unsigned long long)c.woken);
	if (mode == M_BUSY)
		bound = 1;	/* the epoll registration's first readiness, then never */
	TBT_CHECK(!c.timeout, "%s, %s: a wakeup was missed (%llu of %d records)",
		  mode_name[mode], kind, (unsigned long long)c.records, NREC);
	TBT_CHECK(wk <= bound, "%s, %s: %llu wakeups per %d records, policy %llu",
		  mode_name[mode], kind, (unsigned long long)wk, NREC,
		  (unsigned long long)bound);
	TBT_CHECK(c.woken <= bound, "%s, %s: consumer woke %llu times per %d records, policy %llu",
		  mode_name[mode], kind, (unsigned long long)c.woken, NREC,
		  (unsigned long long)bound);
	if (mode == M_SIGIO)
		tracebuf_sigio_disable(&s);
	if (c.ep >= 0)
		close(c.ep);
	tracebuf_close(&s);
}

int main(void)
{
	struct sigaction sa = { .sa_handler = on_alarm };	/* no SA_RESTART */
	sigset_t set;
	int pfd, m;

	if (tbt_modprobe("tracebuf") || tbt_modprobe("tb_producer"))
		return 1;
	watermark();
	every_n();
	sigio(1);
	sigio(0);
	sigio_after_poll();

	sigaction(SIGALRM, &sa, NULL);
	/* Every thread blocks the counting signal: sigtimedwait takes it. */
	sigemptyset(&set);
	sigaddset(&set, SIG_COUNT);
	sigaddset(&set, SIGALRM);
	sigprocmask(SIG_BLOCK, &set, NULL);
	pfd = open(TBP_DEVICE, O_RDWR);
	TBT_CHECK(pfd >= 0, "%s: %s", TBP_DEVICE, strerror(errno));
	for (m = 0; pfd >= 0 && m < M_NR; m++) {
		counted(pfd, m, 1);
		counted(pfd, m, 0);
	}
	return tbt_done();
}
