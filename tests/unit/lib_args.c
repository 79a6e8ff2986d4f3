/* SPDX-License-Identifier: GPL-2.0 */
/*
 * libtracebuf argument validation and error reporting, without the
 * module: TRACEBUF_DEVICE points the library at paths that do not exist or
 * are not tracebuf devices, and pipes stand in for the poll and SIGIO
 * behaviour of a session. fake_mmap.c counts the library's mmap() calls
 * and passes them through.
 */
#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <signal.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <time.h>
#include <unistd.h>

#include <libtracebuf.h>

#include "check.h"
#include "fake_mmap.h"

static void check_open_args(void)
{
	struct tracebuf_session s;

	CHECK_EQ(tracebuf_open(NULL, 0), -EINVAL);

	memset(&s, 0x5a, sizeof(s));
	CHECK_EQ(tracebuf_open(&s, 1U << 1), -EINVAL);
	CHECK_EQ(s.fd, -1);
	CHECK_EQ(tracebuf_open(&s, ~0U), -EINVAL);
	CHECK_EQ(s.fd, -1);
	tracebuf_close(&s);
	tracebuf_close(NULL);
}

/* A session from TRACEBUF_SESSION_INIT, never opened: close leaves fd 0. */
static void check_session_init(void)
{
	struct tracebuf_session s = TRACEBUF_SESSION_INIT;

	/* fd 0 must exist, or closing it by mistake would go unseen. */
	if (fcntl(0, F_GETFD) < 0)
		CHECK_EQ(open("/dev/null", O_RDONLY), 0);
	CHECK_EQ(s.fd, -1);
	CHECK(s.ctl == NULL && s.aux == NULL && s.map_len == 0 && s.flags == 0);
	tracebuf_unmap(&s);
	tracebuf_close(&s);
	tracebuf_close(&s);
	CHECK(fcntl(0, F_GETFD) >= 0);
	CHECK_EQ(s.fd, -1);
}

/* The typed views: the right type and a size that holds the struct, or NULL. */
static void check_typed_views(void)
{
	union {
		struct tracebuf_record r;
		struct tracebuf_rec_aux aux;
		struct tracebuf_rec_config cfg;
		unsigned char b[256];
	} u;

	memset(&u, 0, sizeof(u));
	CHECK(tracebuf_as_aux(NULL) == NULL && tracebuf_as_user(NULL) == NULL);
	u.r.hdr.type = TRACEBUF_REC_AUX;
	u.r.hdr.size = sizeof(struct tracebuf_rec_aux);
	CHECK(tracebuf_as_aux(&u.r) == &u.aux);
	CHECK(tracebuf_as_lost(&u.r) == NULL && tracebuf_as_config(&u.r) == NULL);
	CHECK(tracebuf_as_etm(&u.r) == NULL && tracebuf_as_itrace_start(&u.r) == NULL);
	u.r.hdr.size = sizeof(struct tracebuf_rec_aux) - 8;	/* too short */
	CHECK(tracebuf_as_aux(&u.r) == NULL);

	u.r.hdr.type = TRACEBUF_REC_CONFIG;
	u.r.hdr.size = sizeof(struct tracebuf_rec_config) + 16;
	u.cfg.len = 16;
	CHECK(tracebuf_as_config(&u.r) == &u.cfg);
	u.cfg.len = 17;			/* text past the record */
	CHECK(tracebuf_as_config(&u.r) == NULL);
	u.cfg.len = 0xffffffffu;
	CHECK(tracebuf_as_config(&u.r) == NULL);

	u.r.hdr.type = TRACEBUF_REC_USER;
	u.r.hdr.size = sizeof(struct tracebuf_rec_user) + 8;
	((struct tracebuf_rec_user *)(void *)&u)->len = 8;
	CHECK(tracebuf_as_user(&u.r) != NULL);
	((struct tracebuf_rec_user *)(void *)&u)->len = 9;
	CHECK(tracebuf_as_user(&u.r) == NULL);

	u.r.hdr.type = TRACEBUF_REC_LOST;
	u.r.hdr.size = sizeof(struct tracebuf_rec_lost);
	CHECK(tracebuf_as_lost(&u.r) != NULL);
	u.r.hdr.type = TRACEBUF_REC_ETM;
	u.r.hdr.size = sizeof(struct tracebuf_rec_etm);
	CHECK(tracebuf_as_etm(&u.r) != NULL);
	u.r.hdr.type = TRACEBUF_REC_ITRACE_START;
	u.r.hdr.size = sizeof(struct tracebuf_rec_itrace_start);
	CHECK(tracebuf_as_itrace_start(&u.r) != NULL);
	CHECK(tracebuf_as_switch(&u.r) == NULL && tracebuf_as_task(&u.r) == NULL);

	/* The per-task target's records. */
	u.r.hdr.type = TRACEBUF_REC_SWITCH;
	u.r.hdr.size = sizeof(struct tracebuf_rec_switch);
	CHECK(tracebuf_as_switch(&u.r) == (const void *)&u);
	CHECK(tracebuf_as_task(&u.r) == NULL && tracebuf_as_aux(&u.r) == NULL);
	u.r.hdr.size = sizeof(struct tracebuf_rec_switch) - 8;	/* too short */
	CHECK(tracebuf_as_switch(&u.r) == NULL);
	u.r.hdr.type = TRACEBUF_REC_TASK;
	u.r.hdr.size = sizeof(struct tracebuf_rec_task);
	CHECK(tracebuf_as_task(&u.r) == (const void *)&u);
	CHECK(tracebuf_as_switch(&u.r) == NULL && tracebuf_as_lost(&u.r) == NULL);
	u.r.hdr.size = sizeof(struct tracebuf_rec_task) - 8;
	CHECK(tracebuf_as_task(&u.r) == NULL);
	CHECK(tracebuf_as_switch(NULL) == NULL && tracebuf_as_task(NULL) == NULL);

	/* Type names, the kernel's and perf's. */
	CHECK(!strcmp(tracebuf_rec_type_name(TRACEBUF_REC_SWITCH), "switch"));
	CHECK(!strcmp(tracebuf_rec_type_name(TRACEBUF_REC_TASK), "task"));
	CHECK(!strcmp(tracebuf_rec_type_name(9), "unknown"));
	CHECK(!strcmp(tracebuf_sb_type_name(10), "mmap2"));
	CHECK(!strcmp(tracebuf_sb_type_name(3), "comm"));
	CHECK(!strcmp(tracebuf_sb_type_name(14), "switch"));
	CHECK(!strcmp(tracebuf_sb_type_name(21), "aux_output_hw_id"));
	CHECK(!strcmp(tracebuf_sb_type_name(0), "unknown"));
	CHECK(!strcmp(tracebuf_sb_type_name(22), "unknown"));
	CHECK(!strcmp(tracebuf_sb_type_name(~0U), "unknown"));
}

static void check_open_missing(void)
{
	struct tracebuf_session s;

	setenv("TRACEBUF_DEVICE", "/nonexistent/tracebuf", 1);
	CHECK_EQ(tracebuf_open(&s, 0), -ENOENT);
	CHECK_EQ(s.fd, -1);
	tracebuf_close(&s);
}

static void check_open_flags(unsigned int flags)
{
	struct tracebuf_session s;
	int fl;

	setenv("TRACEBUF_DEVICE", "/dev/null", 1);
	CHECK_EQ(tracebuf_open(&s, flags), 0);
	CHECK(s.fd >= 0);
	CHECK_EQ(s.flags, flags);
	CHECK_EQ(fcntl(s.fd, F_GETFD) & FD_CLOEXEC, FD_CLOEXEC);
	fl = fcntl(s.fd, F_GETFL);
	CHECK_EQ(fl & O_ACCMODE, O_RDWR);
	CHECK_EQ(!!(fl & O_NONBLOCK), !!(flags & TRACEBUF_OPEN_NONBLOCK));
	tracebuf_close(&s);
}

static void check_get_info_args(void)
{
	struct tracebuf_backend_desc b[2];
	struct tracebuf_session s;
	struct tracebuf_info info;

	setenv("TRACEBUF_DEVICE", "/dev/null", 1);
	CHECK_EQ(tracebuf_open(&s, 0), 0);
	CHECK_EQ(tracebuf_get_info(NULL, &info, b, 2), -EINVAL);
	CHECK_EQ(tracebuf_get_info(&s, NULL, b, 2), -EINVAL);
	CHECK_EQ(tracebuf_get_info(&s, &info, NULL, 1), -EINVAL);
	/* /dev/null takes no ioctls: what an old module or wrong node gives. */
	CHECK_EQ(tracebuf_get_info(&s, &info, NULL, 0), -ENOTTY);
	CHECK_EQ(tracebuf_get_info(&s, &info, b, 2), -ENOTTY);
	tracebuf_close(&s);
	CHECK_EQ(tracebuf_get_info(&s, &info, b, 2), -EBADF);
}

/* A second close must not close whatever now has the old fd number. */
static void check_close_idempotent(void)
{
	struct tracebuf_session s;
	int old, fd;

	setenv("TRACEBUF_DEVICE", "/dev/null", 1);
	CHECK_EQ(tracebuf_open(&s, 0), 0);
	old = s.fd;
	tracebuf_close(&s);
	CHECK_EQ(s.fd, -1);
	CHECK(fcntl(old, F_GETFD) < 0 && errno == EBADF);
	fd = open("/dev/null", O_RDONLY);
	CHECK_EQ(fd, old);
	tracebuf_close(&s);
	CHECK_EQ(s.fd, -1);
	CHECK(fcntl(fd, F_GETFD) >= 0);
	close(fd);
}

/* Sizes the module would refuse are refused before mmap() is called. */
static void check_map_args(void)
{
	const uint64_t page = (uint64_t)sysconf(_SC_PAGESIZE);
	static const struct { uint64_t size; const char *what; } bad[] = {
		{ 0, "zero" },
		{ 1, "one byte" },
		{ 512, "power of two below a page" },
		{ 0, "page - 8" },		/* filled in below */
		{ 0, "page + 8" },
		{ 0, "3 pages" },
		{ 0, "6 pages" },
		{ 0, "twice the maximum" },
		{ UINT64_MAX, "UINT64_MAX" },
		{ 1ULL << 63, "2^63" },
	};
	uint64_t sizes[sizeof(bad) / sizeof(bad[0])];
	struct tracebuf_session s;
	unsigned int i, calls;

	for (i = 0; i < sizeof(bad) / sizeof(bad[0]); i++)
		sizes[i] = bad[i].size;
	sizes[3] = page - 8;
	sizes[4] = page + 8;
	sizes[5] = 3 * page;
	sizes[6] = 6 * page;
	sizes[7] = 2 * TRACEBUF_DATA_SIZE_MAX;

	CHECK_EQ(tracebuf_map(NULL, page, 0), -EINVAL);
	tracebuf_unmap(NULL);

	setenv("TRACEBUF_DEVICE", "/dev/null", 1);
	CHECK_EQ(tracebuf_open(&s, 0), 0);
	calls = fake_mmap.calls;
	for (i = 0; i < sizeof(bad) / sizeof(bad[0]); i++) {
		int ret = tracebuf_map(&s, sizes[i], 0);

		if (ret != -EINVAL)
			fprintf(stderr, "data_size %s: %d\n", bad[i].what, ret);
		CHECK_EQ(ret, -EINVAL);
	}
	CHECK_EQ(tracebuf_map(&s, page, 1U << 1), -EINVAL);
	CHECK_EQ(tracebuf_map(&s, page, ~0U), -EINVAL);
	CHECK_EQ(fake_mmap.calls, calls);
	CHECK(s.ctl == NULL);

	/* /dev/null cannot be mapped: the kernel's answer, nothing mapped. */
	CHECK_EQ(tracebuf_map(&s, page, 0), -ENODEV);
	CHECK_EQ(fake_mmap.calls, calls + 1);
	CHECK_EQ(fake_mmap.last_len, 3 * page);
	CHECK_EQ(tracebuf_map(&s, TRACEBUF_DATA_SIZE_MAX, TRACEBUF_MAP_READONLY), -ENODEV);
	CHECK_EQ(fake_mmap.calls, calls + 2);
	CHECK_EQ(fake_mmap.last_prot, PROT_READ);
	CHECK(s.ctl == NULL);
	CHECK(s.data == NULL);
	CHECK_EQ(s.map_len, 0);
	tracebuf_unmap(&s);
	tracebuf_close(&s);
	CHECK_EQ(tracebuf_map(&s, page, 0), -EBADF);
}

/* The AUX, tracing and configuration calls on /dev/null and closed sessions. */
static void check_aux_config_args(void)
{
	const uint64_t page = (uint64_t)sysconf(_SC_PAGESIZE);
	struct tracebuf_cfg_key_desc keys[2];
	struct tracebuf_cfg_error err;
	struct tracebuf_session s;
	unsigned char caps[16];
	char buf[64];

	setenv("TRACEBUF_DEVICE", "/dev/null", 1);
	CHECK_EQ(tracebuf_open(&s, 0), 0);
	CHECK(s.aux == NULL);
	CHECK_EQ(s.setup_backend, 0);
	CHECK_EQ(tracebuf_map_aux(&s, page, 0), -ENXIO);
	CHECK_EQ(tracebuf_aux_head(&s), 0);
	CHECK(tracebuf_aux_ptr(&s, 0) == NULL);
	CHECK_EQ(tracebuf_aux_copy(&s, 0, 1, buf), 0);
	/* /dev/null takes no ioctls. */
	CHECK_EQ(tracebuf_enable(&s), -ENOTTY);
	CHECK_EQ(tracebuf_disable(&s), -ENOTTY);
	CHECK_EQ(tracebuf_snapshot(&s), -ENOTTY);
	CHECK_EQ(tracebuf_get_caps(&s, "intel_pt", 0, caps, sizeof(caps)), -ENOTTY);
	CHECK_EQ(tracebuf_get_caps(&s, "intel_pt", 0, NULL, 1), -EINVAL);
	CHECK_EQ(tracebuf_list_drv_config(&s, NULL, 0, keys, 2), -ENOTTY);
	CHECK_EQ(tracebuf_list_drv_config(&s, NULL, 0, NULL, 2), -EINVAL);
	CHECK_EQ(tracebuf_get_drv_config(&s, buf, sizeof(buf), NULL), -ENOTTY);
	CHECK_EQ(tracebuf_get_drv_config(&s, NULL, 0, NULL), -ENOTTY);
	CHECK_EQ(tracebuf_set_drv_config(&s, "branch", 0, &err), -ENOTTY);
	CHECK_EQ(err.reason, TRACEBUF_CFG_OK);
	CHECK(strcmp(err.message, tracebuf_strerror(-ENOTTY)) == 0);
	CHECK_EQ(tracebuf_set_drv_config(&s, "branch", 0, NULL), -ENOTTY);
	tracebuf_close(&s);

	CHECK_EQ(tracebuf_map_aux(&s, page, 0), -EBADF);
	CHECK_EQ(tracebuf_enable(&s), -EBADF);
	CHECK_EQ(tracebuf_disable(&s), -EBADF);
	CHECK_EQ(tracebuf_snapshot(&s), -EBADF);
	CHECK_EQ(tracebuf_get_caps(&s, NULL, 0, NULL, 0), -EBADF);
	CHECK_EQ(tracebuf_list_drv_config(&s, NULL, 0, NULL, 0), -EBADF);
	CHECK_EQ(tracebuf_get_drv_config(&s, NULL, 0, NULL), -EBADF);
	CHECK_EQ(tracebuf_set_drv_config(&s, "branch", 0, NULL), -EBADF);
	tracebuf_unmap_aux(&s);
	CHECK_EQ(tracebuf_enable(NULL), -EINVAL);
	CHECK_EQ(tracebuf_get_caps(NULL, NULL, 0, NULL, 0), -EINVAL);
	CHECK_EQ(tracebuf_list_drv_config(NULL, NULL, 0, NULL, 0), -EINVAL);
	CHECK_EQ(tracebuf_get_drv_config(NULL, NULL, 0, NULL), -EINVAL);
	CHECK_EQ(tracebuf_set_drv_config(NULL, "x", 0, NULL), -EINVAL);
	CHECK_EQ(tracebuf_aux_copy(NULL, 0, 1, buf), 0);
}

static void check_setup_marker_read_args(void)
{
	struct tracebuf_setup setup;
	struct tracebuf_session s;
	char buf[64];

	memset(&setup, 0, sizeof(setup));
	setenv("TRACEBUF_DEVICE", "/dev/null", 1);
	CHECK_EQ(tracebuf_open(&s, 0), 0);
	CHECK_EQ(tracebuf_setup(NULL, &setup), -EINVAL);
	CHECK_EQ(tracebuf_setup(&s, NULL), -EINVAL);
	CHECK_EQ(tracebuf_setup(&s, &setup), -ENOTTY);
	CHECK_EQ(tracebuf_user_marker(NULL, 0, NULL, 0), -EINVAL);
	CHECK_EQ(tracebuf_user_marker(&s, 0, NULL, 1), -EINVAL);
	CHECK_EQ(tracebuf_user_marker(&s, 0, buf, TRACEBUF_USER_MARKER_MAX + 1), -EINVAL);
	CHECK_EQ(tracebuf_user_marker(&s, 0, buf, 1), -ENOTTY);
	CHECK_EQ(tracebuf_read(NULL, buf, sizeof(buf)), -EINVAL);
	CHECK_EQ(tracebuf_read(&s, NULL, 1), -EINVAL);
	CHECK_EQ(tracebuf_read(&s, buf, sizeof(buf)), 0);
	CHECK_EQ(tracebuf_read(&s, NULL, 0), 0);
	CHECK_EQ(tracebuf_sigio_enable(NULL, 0, 0), -EINVAL);
	CHECK_EQ(tracebuf_sigio_disable(NULL), -EINVAL);
	CHECK_EQ(tracebuf_wait(NULL, 0), -EINVAL);
	tracebuf_close(&s);
	CHECK_EQ(tracebuf_setup(&s, &setup), -EBADF);
	CHECK_EQ(tracebuf_user_marker(&s, 0, NULL, 0), -EBADF);
	CHECK_EQ(tracebuf_read(&s, buf, sizeof(buf)), -EBADF);
	CHECK_EQ(tracebuf_wait(&s, 0), -EBADF);
	CHECK_EQ(tracebuf_sigio_enable(&s, 0, 0), -EBADF);
	CHECK_EQ(tracebuf_sigio_disable(&s), -EBADF);
}

/* A session whose fd is one end of a pipe, for poll and SIGIO. */
static void pipe_session(struct tracebuf_session *s, int fd)
{
	memset(s, 0, sizeof(*s));
	s->fd = fd;
}

static void check_wait(void)
{
	struct tracebuf_session s;
	int p[2];

	CHECK_EQ(pipe2(p, O_CLOEXEC), 0);
	pipe_session(&s, p[0]);
	CHECK_EQ(tracebuf_wait(&s, 0), 0);
	CHECK_EQ(tracebuf_wait(&s, 20), 0);
	CHECK_EQ(write(p[1], "x", 1), 1);
	CHECK_EQ(tracebuf_wait(&s, 0), 1);
	CHECK_EQ(tracebuf_wait(&s, -1), 1);
	/* The writer is gone: POLLHUP wins over the byte still unread. */
	close(p[1]);
	CHECK_EQ(tracebuf_wait(&s, -1), -EPIPE);
	close(p[0]);

	/* POLLERR: the write end of a pipe without a reader. */
	CHECK_EQ(pipe2(p, O_CLOEXEC), 0);
	close(p[0]);
	pipe_session(&s, p[1]);
	CHECK_EQ(tracebuf_wait(&s, 0), -EIO);
	close(p[1]);
}

static void check_sigio(void)
{
	struct tracebuf_session s;
	struct f_owner_ex owner;
	struct timespec ts = { 5, 0 };
	siginfo_t si;
	sigset_t set, old;
	int p[2];

	CHECK_EQ(pipe2(p, O_CLOEXEC), 0);
	pipe_session(&s, p[0]);
	CHECK_EQ(tracebuf_sigio_enable(&s, -1, 0), -EINVAL);
	CHECK_EQ(tracebuf_sigio_enable(&s, 0, -1), -EINVAL);
	CHECK_EQ(tracebuf_sigio_enable(&s, 100000, 0), -EINVAL);

	/* A thread, a real-time signal. */
	CHECK_EQ(tracebuf_sigio_enable(&s, SIGRTMIN + 1, gettid()), 0);
	CHECK_EQ(fcntl(p[0], F_GETOWN_EX, &owner), 0);
	CHECK_EQ(owner.type, F_OWNER_TID);
	CHECK_EQ(owner.pid, gettid());
	CHECK_EQ(fcntl(p[0], F_GETSIG), SIGRTMIN + 1);
	CHECK(fcntl(p[0], F_GETFL) & O_ASYNC);
	CHECK_EQ(tracebuf_sigio_disable(&s), 0);
	CHECK(!(fcntl(p[0], F_GETFL) & O_ASYNC));

	/*
	 * The process, signo 0: SIGIO, set explicitly, so that it comes with
	 * si_code and si_fd. Blocked and taken with sigtimedwait().
	 */
	sigemptyset(&set);
	sigaddset(&set, SIGIO);
	CHECK_EQ(sigprocmask(SIG_BLOCK, &set, &old), 0);
	CHECK_EQ(tracebuf_sigio_enable(&s, 0, 0), 0);
	CHECK_EQ(fcntl(p[0], F_GETOWN_EX, &owner), 0);
	CHECK_EQ(owner.type, F_OWNER_PID);
	CHECK_EQ(owner.pid, getpid());
	CHECK_EQ(fcntl(p[0], F_GETSIG), SIGIO);
	CHECK(fcntl(p[0], F_GETFL) & O_ASYNC);
	CHECK_EQ(write(p[1], "x", 1), 1);
	memset(&si, 0, sizeof(si));
	CHECK_EQ(sigtimedwait(&set, &si, &ts), SIGIO);
	CHECK_EQ(si.si_code, POLL_IN);
	CHECK_EQ(si.si_fd, p[0]);
	CHECK_EQ(tracebuf_sigio_disable(&s), 0);
	CHECK(!(fcntl(p[0], F_GETFL) & O_ASYNC));
	CHECK_EQ(sigprocmask(SIG_SETMASK, &old, NULL), 0);
	close(p[0]);
	close(p[1]);
}

static void check_strerror(void)
{
	const char *unknown = tracebuf_strerror(100000);
	char saved[128];

	CHECK(strstr(tracebuf_strerror(-ENOENT), "modprobe tracebuf") != NULL);
	CHECK(strstr(tracebuf_strerror(ENOENT), "modprobe tracebuf") != NULL);
	CHECK(strstr(tracebuf_strerror(-EACCES), "udev") != NULL);
	CHECK(strstr(tracebuf_strerror(-EACCES), "'tracebuf'") != NULL);
	/* ENABLE refused (paranoid) and the pinned-memory limit (SETUP, mmap). */
	CHECK(strstr(tracebuf_strerror(-EACCES), "CPU-wide tracing") != NULL);
	CHECK(strstr(tracebuf_strerror(-EACCES),
		     "/sys/module/tracebuf/parameters/paranoid is 0 or less") != NULL);
	CHECK(strstr(tracebuf_strerror(-EPERM), "pinned-memory limit") != NULL);
	CHECK(strstr(tracebuf_strerror(-EPERM), "/sys/module/tracebuf/parameters/mlock_kb") != NULL);
	CHECK(strstr(tracebuf_strerror(-EPERM), "RLIMIT_MEMLOCK (ulimit -l)") != NULL);
	CHECK(strstr(tracebuf_strerror(-EPERM), "CAP_IPC_LOCK") != NULL);
	CHECK(strcmp(tracebuf_strerror(EPERM), tracebuf_strerror(-EPERM)) == 0);
	CHECK(strcmp(tracebuf_strerror(ENOTTY), "not a tracebuf device or module too old") == 0);
	CHECK(strstr(tracebuf_strerror(-ENODEV), "backend") != NULL);
	CHECK(strstr(tracebuf_strerror(-EBUSY), "SETUP is final") != NULL);
	CHECK(strstr(tracebuf_strerror(-EBUSY), "read()") != NULL);
	CHECK(strstr(tracebuf_strerror(-ENXIO), "data_size") != NULL);
	CHECK(strstr(tracebuf_strerror(-ENOSPC), "lost") != NULL);
	CHECK(strstr(tracebuf_strerror(-EPROTO), "control page") != NULL);
	CHECK(strstr(tracebuf_strerror(-EBADMSG), "corrupt record") != NULL);
	CHECK(strstr(tracebuf_strerror(-EPIPE), "nothing more") != NULL);
	/* The AUX ring, tracing and the driver configuration. */
	CHECK(strstr(tracebuf_strerror(-EACCES), "CAP_PERFMON") != NULL);
	CHECK(strstr(tracebuf_strerror(-ENODEV), "offline") != NULL);
	CHECK(strstr(tracebuf_strerror(-EBUSY), "intel_pt") != NULL);
	CHECK(strstr(tracebuf_strerror(-ENXIO), "AUX") != NULL);
	CHECK(strstr(tracebuf_strerror(-ENXIO), "SNAPSHOT") != NULL);
	CHECK(strstr(tracebuf_strerror(-EALREADY), "already tracing") != NULL);
	CHECK(strstr(tracebuf_strerror(-ERANGE), "tracebuf config --list") != NULL);
	CHECK(strstr(tracebuf_strerror(-EOPNOTSUPP), "CPU") != NULL);
	CHECK(strcmp(tracebuf_strerror(ENOTSUP), tracebuf_strerror(EOPNOTSUPP)) == 0);
	/* Others: the C library's text, the same for either sign. */
	CHECK(strcmp(tracebuf_strerror(-EINVAL), strerror(EINVAL)) == 0);
	CHECK(strcmp(tracebuf_strerror(EINVAL), strerror(EINVAL)) == 0);
	CHECK(unknown != NULL && *unknown);
	CHECK(strcmp(tracebuf_strerror(-100000), unknown) == 0);
	/* Constant strings: a later call does not change an earlier result. */
	snprintf(saved, sizeof(saved), "%s", unknown);
	tracebuf_strerror(100001);
	CHECK(strcmp(unknown, saved) == 0);
	CHECK(tracebuf_strerror(INT_MIN) != NULL);
	CHECK(tracebuf_strerror(0) != NULL);
}

static void check_names(void)
{
	CHECK(strcmp(tracebuf_backend_name(TRACEBUF_BACKEND_NONE), "none") == 0);
	CHECK(strcmp(tracebuf_backend_name(TRACEBUF_BACKEND_INTEL_PT), "intel_pt") == 0);
	CHECK(strcmp(tracebuf_backend_name(TRACEBUF_BACKEND_CORESIGHT), "coresight") == 0);
	CHECK(strcmp(tracebuf_backend_name(3), "unknown") == 0);
	CHECK(strcmp(tracebuf_backend_name(~0U), "unknown") == 0);
	CHECK(strcmp(tracebuf_version(), TRACEBUF_EXPECTED_VERSION) == 0);

	CHECK(strcmp(tracebuf_rec_type_name(TRACEBUF_REC_LOST), "lost") == 0);
	CHECK(strcmp(tracebuf_rec_type_name(TRACEBUF_REC_AUX), "aux") == 0);
	CHECK(strcmp(tracebuf_rec_type_name(TRACEBUF_REC_ITRACE_START), "itrace_start") == 0);
	CHECK(strcmp(tracebuf_rec_type_name(TRACEBUF_REC_CONFIG), "config") == 0);
	CHECK(strcmp(tracebuf_rec_type_name(TRACEBUF_REC_USER), "user") == 0);
	CHECK(strcmp(tracebuf_rec_type_name(TRACEBUF_REC_TEST), "test") == 0);
	CHECK(strcmp(tracebuf_rec_type_name(0), "unknown") == 0);
	CHECK(strcmp(tracebuf_rec_type_name(TRACEBUF_REC_ETM), "etm") == 0);
	CHECK(strcmp(tracebuf_rec_type_name(7), "switch") == 0);
	CHECK(strcmp(tracebuf_rec_type_name(8), "task") == 0);
	CHECK(strcmp(tracebuf_rec_type_name(9), "unknown") == 0);
	CHECK(strcmp(tracebuf_rec_type_name(~0U), "unknown") == 0);
}

int main(void)
{
	check_open_args();
	check_session_init();
	check_typed_views();
	check_open_missing();
	check_open_flags(0);
	check_open_flags(TRACEBUF_OPEN_NONBLOCK);
	check_get_info_args();
	check_close_idempotent();
	check_map_args();
	check_setup_marker_read_args();
	check_aux_config_args();
	check_wait();
	check_sigio();
	check_strerror();
	check_names();
	return check_done();
}
