// SPDX-License-Identifier: GPL-2.0
/*
 * A traced CPU going offline hangs its sessions up: poll reports EPOLLHUP,
 * SIGIO arrives with POLL_HUP, read() returns the rest and then 0. SETUP
 * on an offline CPU is refused.
 */
#include <poll.h>
#include <signal.h>
#include <sys/ioctl.h>

#include <libtracebuf.h>
#include "tbtest.h"

#define ONLINE "/sys/devices/system/cpu/cpu1/online"

static int set_online(int on)
{
	int fd = open(ONLINE, O_WRONLY);
	int ok;

	if (fd < 0)
		return -1;
	ok = write(fd, on ? "1" : "0", 1) == 1;
	close(fd);
	return ok ? 0 : -1;
}

static int open_session(struct tracebuf_session *s, uint64_t data_size)
{
	struct tracebuf_setup su = { .target = TRACEBUF_TARGET_CPU, .cpu = 1,
				     .data_size = data_size };

	strcpy(su.backend, TRACEBUF_BACKEND_DATA);
	if (tracebuf_open(s, 0))
		return -1;
	return tracebuf_setup(s, &su);
}

int main(void)
{
	struct tracebuf_session m, r, other;
	struct pollfd p;
	struct timespec ts = { .tv_sec = 5 };
	siginfo_t si;
	sigset_t set;
	char buf[256];
	int ret;

	if (access(ONLINE, W_OK)) {
		printf("no CPU hotplug for cpu1 here\n");
		return 77;
	}
	if (tbt_modprobe("tracebuf"))
		return 1;

	setvbuf(stdout, NULL, _IONBF, 0);
	/* An mmap session with SIGIO armed, and a read() session. */
	TBT_CHECK(open_session(&m, 0) == 0 && tracebuf_map(&m, 16384, 0) == 0, "mmap session");
	TBT_CHECK(open_session(&r, 16384) == 0, "read session");
	{
		struct tracebuf_setup su = { .target = TRACEBUF_TARGET_CPU, .cpu = 0 };

		strcpy(su.backend, TRACEBUF_BACKEND_DATA);
		TBT_CHECK(tracebuf_open(&other, 0) == 0 && tracebuf_setup(&other, &su) == 0,
			  "cpu0 session");
	}
	sigemptyset(&set);
	sigaddset(&set, SIGRTMIN + 2);
	sigprocmask(SIG_BLOCK, &set, NULL);
	TBT_CHECK(tracebuf_sigio_enable(&m, SIGRTMIN + 2, 0) == 0, "sigio");
	TBT_CHECK(tracebuf_user_marker(&r, 1, "left", 4) == 0, "marker");

	p.fd = m.fd;
	p.events = POLLIN;
	TBT_CHECK(poll(&p, 1, 0) == 0, "poll before offline: %#x", p.revents);

	printf("offlining cpu1\n");
	fflush(stdout);
	TBT_CHECK(set_online(0) == 0, "offline cpu1: %s", strerror(errno));
	printf("cpu1 offline\n");
	fflush(stdout);

	p.revents = 0;
	TBT_CHECK(poll(&p, 1, 1000) == 1 && (p.revents & POLLHUP), "no POLLHUP: %#x", p.revents);
	ret = sigtimedwait(&set, &si, &ts);
	TBT_CHECK(ret == SIGRTMIN + 2 && si.si_code == POLL_HUP && si.si_fd == m.fd,
		  "SIGIO: ret %d si_code %d si_fd %d", ret, si.si_code, si.si_fd);
	/* read(): the marker, then end of file, without blocking. */
	TBT_CHECK(read(r.fd, buf, sizeof(buf)) == 48, "read the marker");
	TBT_CHECK(read(r.fd, buf, sizeof(buf)) == 0, "read after hangup is not EOF");
	/* Sessions on other CPUs are not affected. */
	p.fd = other.fd;
	p.revents = 0;
	TBT_CHECK(poll(&p, 1, 0) == 0, "cpu0 session hung up: %#x", p.revents);
	/* SETUP on the offline CPU is refused. */
	{
		struct tracebuf_session x;

		TBT_CHECK(open_session(&x, 0) == -EINVAL, "SETUP on an offline CPU");
		tracebuf_close(&x);
	}

	TBT_CHECK(set_online(1) == 0, "online cpu1: %s", strerror(errno));
	tracebuf_close(&m);
	tracebuf_close(&r);
	tracebuf_close(&other);
	return tbt_done();
}
