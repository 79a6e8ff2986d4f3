// SPDX-License-Identifier: GPL-2.0
/*
 * Small deterministic regression tests, each for one hardening rule of the
 * ABI (include/uapi/tracebuf.h, docs/abi.md), written against the ABI only:
 *
 *  1. DISABLE on a set-up session without backend returns 0 (SET UP state:
 *     "ok (no-op)", docs/abi.md section 2 and 10.5), on CPU 0 and CPU 1.
 *  2. A SETUP that fails changes nothing (header, TRACEBUF_IOC_SETUP),
 *     also one failing late, at its ring's pinned-memory charge (2b).
 *  3. A failed data mmap does not make the session an mmap consumer:
 *     read() afterwards is not -EBUSY.
 *  4. A failed AUX mmap leaves TRACEBUF_CTL_F_AUX_SNAPSHOT clear (the flag
 *     says an AUX area exists in snapshot mode, section 4).
 *  5. The mappings are never inherited across fork: MADV_DOFORK on them
 *     is -EINVAL and a child does not see them (section 3 and 7).
 *  6. MADV_DONTNEED on the control page and the data pages: reading them
 *     again refaults the same ring, no SIGBUS (as perf's buffer does).
 *  7. An AUX offset beyond TRACEBUF_AUX_OFFSET_MAX is -EINVAL.
 *  8. GET_INFO into a backend array that runs into a PROT_NONE page is
 *     -EFAULT, and never blocks SETUP and mmap in other threads.
 *  9. ENABLE/SET_DRV_CONFIG/DISABLE and AUX munmap against cpu1 going
 *     offline and online: after DISABLE (and munmap, close) the emulator
 *     shows no CPU still tracing (issue 19 item 2: every IPI loop under
 *     cpus_read_lock).
 * 10. GET_INFO whose copy to userspace blocks (a userfaultfd page) does
 *     not block SETUP and mmap of another session (item 5); plain bad
 *     pointers are -EFAULT.
 * 11. A scribbled data ring (record sizes, flags, data_head, counters,
 *     bogus data_tail values), also while a writer commits: the kernel's
 *     positions and counters stay its own (items 6 and 9).
 * 12. F_ENABLED: set by ENABLE, cleared by DISABLE, by a failed ENABLE and
 *     in the error state after a collision, where ENABLE is -EALREADY
 *     until DISABLE (docs/abi.md section 4; item 11).
 * 13. An AUX mmap over the pinned-memory limit is -EPERM and changes
 *     nothing: flags, aux_head/aux_tail, VmPin, no AUX area (items 3, 11).
 *
 * Each check runs in a child process with a time limit, so an oops (the
 * child is killed) or a hang in one check is reported as that check's
 * failure and the others still run. The checks most likely to take the
 * kernel down run last.
 */
#include <linux/userfaultfd.h>
#include <poll.h>
#include <pthread.h>
#include <setjmp.h>
#include <signal.h>
#include <stdint.h>
#include <sys/ioctl.h>
#include <sys/mman.h>
#include <sys/resource.h>
#include <time.h>

#include <tracebuf.h>
#include "tbtest.h"

#ifndef TRACEBUF_AUX_OFFSET_MAX
#define TRACEBUF_AUX_OFFSET_MAX	(1ULL << 40)
#endif

static long pg;
static char backend[TRACEBUF_NAME_LEN];	/* the hardware backend, "" if none */
static int cs;				/* backend is CoreSight: a CPU set */

static void dump_blocked(void)
{
	int fd = open("/proc/sysrq-trigger", O_WRONLY);

	/* 'w': the kernel logs every blocked (D state) task with its stack. */
	if (fd >= 0) {
		if (write(fd, "w", 1) != 1)
			printf("sysrq-w: %s\n", strerror(errno));
		close(fd);
	}
}

/* Run fn in a child; a kill (oops), a hang or a failure fails the check. */
static void run_case(const char *name, void (*fn)(void), int timeout_s)
{
	int st, i;
	pid_t pid, r = 0;

	printf("--- %s\n", name);
	fflush(stdout);
	pid = fork();
	if (pid == 0) {
		tbt_failures = 0;	/* this check's own verdict */
		alarm(timeout_s);
		fn();
		fflush(stdout);
		_exit(tbt_failures ? 1 : 0);
	}
	if (pid < 0) {
		TBT_CHECK(0, "%s: fork: %s", name, strerror(errno));
		return;
	}
	for (i = 0; i < (timeout_s + 10) * 10; i++) {
		r = waitpid(pid, &st, WNOHANG);
		if (r == pid)
			break;
		usleep(100000);
	}
	if (r != pid) {
		TBT_CHECK(0, "%s: the child is stuck %d s after its alarm (in the kernel?)",
			  name, timeout_s + 10);
		dump_blocked();
		kill(pid, SIGKILL);
		return;
	}
	if (WIFSIGNALED(st)) {
		TBT_CHECK(0, "%s: child killed by signal %d (%s)", name, WTERMSIG(st),
			  WTERMSIG(st) == SIGALRM ? "hang: time limit" :
			  WTERMSIG(st) == SIGKILL || WTERMSIG(st) == SIGSEGV ?
			  "oops in the kernel? see the console" : "signal");
		if (WTERMSIG(st) == SIGALRM)
			dump_blocked();
	} else if (WEXITSTATUS(st)) {
		tbt_failures++;
		printf("not ok: %s failed\n", name);
	} else {
		printf("ok: %s\n", name);
	}
}

static int tb_open(void)
{
	int fd = open(TRACEBUF_DEVICE, O_RDWR | O_NONBLOCK);

	TBT_CHECK(fd >= 0, "open: %s", strerror(errno));
	return fd;
}

static void su_init(struct tracebuf_setup *su, const char *be, int cpu)
{
	static uint64_t bits;

	memset(su, 0, sizeof(*su));
	su->size = sizeof(*su);
	snprintf(su->backend, sizeof(su->backend), "%s", be);
	if (cs && !strcmp(be, backend)) {
		/* CoreSight: the CPUs of the (shared) sink. */
		bits = 3;
		su->target = TRACEBUF_TARGET_CPUSET;
		su->cpuset_ptr = (uintptr_t)&bits;
		su->cpuset_size = sizeof(bits);
	} else {
		su->target = TRACEBUF_TARGET_CPU;
		su->cpu = cpu;
	}
}

static int do_setup(int fd, const struct tracebuf_setup *su)
{
	return ioctl(fd, TRACEBUF_IOC_SETUP, su) ? -errno : 0;
}

static void *map_data(int fd, uint64_t data_size, int prot)
{
	void *p = mmap(NULL, pg + 2 * data_size, prot, MAP_SHARED, fd, 0);

	return p == MAP_FAILED ? NULL : p;
}

/* Store aux_offset/aux_size, map; returns the mapping or NULL (errno). */
static void *map_aux(int fd, struct tracebuf_ctl *ctl, uint64_t off, uint64_t size, int prot)
{
	void *p;

	ctl->aux_offset = off;
	ctl->aux_size = size;
	p = mmap(NULL, size, prot, MAP_SHARED, fd, (off_t)off);
	return p == MAP_FAILED ? NULL : p;
}

static int marker(int fd, uint64_t cookie, const void *data, uint32_t len)
{
	struct tracebuf_user_marker m = { .size = sizeof(m), .cookie = cookie,
					  .data_ptr = (uintptr_t)data, .len = len };

	return ioctl(fd, TRACEBUF_IOC_USER_MARKER, &m) ? -errno : 0;
}

static int get_gen(int fd, uint64_t *gen)
{
	char buf[TRACEBUF_DRV_CONFIG_MAX];
	struct tracebuf_drv_config c = { .size = sizeof(c), .config_ptr = (uintptr_t)buf,
					 .config_len = sizeof(buf) };

	if (ioctl(fd, TRACEBUF_IOC_GET_DRV_CONFIG, &c))
		return -errno;
	*gen = c.generation;
	return 0;
}

static int set_cfg(int fd, const char *s)
{
	struct tracebuf_drv_config c = { .size = sizeof(c), .config_ptr = (uintptr_t)s,
					 .config_len = strlen(s) + 1 };

	return ioctl(fd, TRACEBUF_IOC_SET_DRV_CONFIG, &c) ? -errno : 0;
}

/* ---- 1 ---------------------------------------------------------------- */

static void disable_none(int cpu)
{
	struct tracebuf_setup su;
	int fd = tb_open(), r;

	su_init(&su, TRACEBUF_BACKEND_DATA, cpu);
	r = do_setup(fd, &su);
	TBT_CHECK(r == 0, "SETUP none cpu %d: %d", cpu, r);
	printf("DISABLE on a 'none' session, cpu %d\n", cpu);
	fflush(stdout);
	errno = 0;
	r = ioctl(fd, TRACEBUF_IOC_DISABLE);
	TBT_CHECK(r == 0, "DISABLE (SET UP state, no backend) cpu %d: %d %s", cpu, r,
		  strerror(errno));
	TBT_ERRNO(ioctl(fd, TRACEBUF_IOC_ENABLE), ENODEV);
	TBT_ERRNO(ioctl(fd, TRACEBUF_IOC_SNAPSHOT), EINVAL);
	/* With the ring too (RING state). */
	TBT_CHECK(map_data(fd, 4 * pg, PROT_READ | PROT_WRITE) != NULL, "map: %s",
		  strerror(errno));
	r = ioctl(fd, TRACEBUF_IOC_DISABLE);
	TBT_CHECK(r == 0, "DISABLE (RING state, no backend) cpu %d: %s", cpu, strerror(errno));
	close(fd);
}

static void case1_cpu0(void)
{
	disable_none(0);
}

static void case1_cpu1(void)
{
	disable_none(1);
}

/* ---- 2 ---------------------------------------------------------------- */

static void case2_one(const char *be)
{
	struct tracebuf_setup good, bad;
	char nonul[TRACEBUF_NAME_LEN];
	uint64_t gen = 99;
	void *m;
	int fd = tb_open(), r, i;

	su_init(&good, be, 0);
	good.data_watermark = 8 * pg;	/* a 4-page ring is then too small */
	r = do_setup(fd, &good);
	TBT_CHECK(r == 0, "%s: good SETUP: %d", be, r);
	if (*backend && !strcmp(be, backend)) {
		r = set_cfg(fd, "user=1");
		TBT_CHECK(r == 0, "%s: SET_DRV_CONFIG: %d", be, r);
		TBT_CHECK(get_gen(fd, &gen) == 0 && gen == 1, "%s: generation %llu", be,
			  (unsigned long long)gen);
	}
	memset(nonul, 'x', sizeof(nonul));
	for (i = 0; i < 11; i++) {
		int want;

		/* Every bad SETUP asks for something else: none, cpu 1, no watermark. */
		su_init(&bad, TRACEBUF_BACKEND_DATA, 1);
		switch (i) {
		case 0: bad.reserved[0] = 1; want = -EINVAL; break;
		case 1: bad.flags = 8; want = -EINVAL; break;	/* bits 0-2: NO_TIME, INHERIT, COMPACT */
		case 2: bad.cpu = 1u << 20; want = -EINVAL; break;
		case 3: strcpy(bad.backend, "no_such"); want = -ENODEV; break;
		case 4: bad.data_size = 3 * pg; want = -EINVAL; break;
		case 5: bad.data_size = 4 * pg; bad.data_watermark = 8 * pg; want = -EINVAL; break;
		case 6: bad.target = 4; want = -EINVAL; break;	/* 3: TASK */
		case 7: bad.size = 8; want = -EINVAL; break;
		case 8:
			bad.target = TRACEBUF_TARGET_CPUSET; bad.cpu = 0;
			bad.cpuset_ptr = 8; bad.cpuset_size = 8; want = -EFAULT; break;
		case 9: memcpy(bad.backend, nonul, sizeof(nonul)); want = -EINVAL; break;
		default:
			/* A CPU set with no CPU in it. */
			{
				static uint64_t zero;

				bad.target = TRACEBUF_TARGET_CPUSET; bad.cpu = 0;
				bad.cpuset_ptr = (uintptr_t)&zero; bad.cpuset_size = 8;
				want = -EINVAL;
			}
		}
		r = do_setup(fd, &bad);
		TBT_CHECK(r == want, "%s: bad SETUP %d: %d, want %d", be, i, r, want);
		if (*backend && !strcmp(be, backend)) {
			r = get_gen(fd, &gen);
			TBT_CHECK(r == 0 && gen == 1,
				  "%s: after bad SETUP %d GET_DRV_CONFIG %d generation %llu "
				  "(want 0 and 1: the first SETUP's backend and configuration)",
				  be, i, r, (unsigned long long)gen);
		}
	}
	/* The first SETUP's watermark still holds: a 4-page ring is refused. */
	m = map_data(fd, 4 * pg, PROT_READ | PROT_WRITE);
	TBT_CHECK(!m && errno == EINVAL, "%s: mmap of a ring below the first SETUP's "
		  "watermark: %s", be, m ? "succeeded" : strerror(errno));
	if (m)
		munmap(m, pg + 8 * pg);
	m = map_data(fd, 8 * pg, PROT_READ | PROT_WRITE);
	TBT_CHECK(m != NULL, "%s: mmap 8 pages: %s", be, strerror(errno));
	if (m && *backend && !strcmp(be, backend)) {
		/* Still the hardware backend: an AUX area can be mapped. */
		void *a = map_aux(fd, m, pg + 16 * pg, 16 * pg, PROT_READ | PROT_WRITE);

		TBT_CHECK(a != NULL, "%s: AUX mmap after the bad SETUPs: %s", be,
			  strerror(errno));
		if (a)
			munmap(a, 16 * pg);
	}
	if (m)
		munmap(m, pg + 16 * pg);
	close(fd);
}

static void case2(void)
{
	case2_one(TRACEBUF_BACKEND_DATA);
	if (*backend)
		case2_one(backend);
}

/*
 * A repeated SETUP that fails late (its data ring over the pinned-memory
 * limit: -EPERM, as a user without CAP_IPC_LOCK and RLIMIT_MEMLOCK 0)
 * leaves the first SETUP in place: its backend, configuration and
 * generation, and no ring.
 */
static void case2b(void)
{
	struct rlimit rl = { 0, 0 };
	struct tracebuf_setup good, bad;
	unsigned long allowance_kb = 0;
	struct tracebuf_ctl *ctl;
	uint64_t gen = 99, big;
	FILE *f;
	void *a;
	int fd, r;

	if (!*backend) {
		printf("no hardware backend: case 2b needs one\n");
		return;
	}
	f = fopen("/sys/module/tracebuf/parameters/mlock_kb", "r");
	if (!f || fscanf(f, "%lu", &allowance_kb) != 1) {
		TBT_CHECK(0, "no mlock_kb module parameter");
		if (f)
			fclose(f);
		return;
	}
	fclose(f);
	allowance_kb *= sysconf(_SC_NPROCESSORS_ONLN);
	for (big = 16 * pg; big <= allowance_kb * 1024; big *= 2)
		;
	fd = tb_open();
	su_init(&good, backend, 1);
	TBT_CHECK(do_setup(fd, &good) == 0, "SETUP %s", backend);
	TBT_CHECK(set_cfg(fd, "user=1") == 0, "SET_DRV_CONFIG");
	TBT_CHECK(setrlimit(RLIMIT_MEMLOCK, &rl) == 0, "setrlimit");
	TBT_CHECK(setgid(65534) == 0 && setuid(65534) == 0, "setuid: %s", strerror(errno));
	su_init(&bad, TRACEBUF_BACKEND_DATA, 0);
	bad.data_size = big;
	r = do_setup(fd, &bad);
	TBT_CHECK(r == -EPERM, "SETUP with a %llu KiB ring over the limit: %d, want -EPERM",
		  (unsigned long long)big / 1024, r);
	r = get_gen(fd, &gen);
	TBT_CHECK(r == 0 && gen == 1, "after the failed SETUP: GET_DRV_CONFIG %d generation %llu "
		  "(want 0 and 1: the first SETUP's backend and configuration)", r,
		  (unsigned long long)gen);
	/* No ring was left behind: mmap chooses the size, the AUX area maps. */
	ctl = map_data(fd, 4 * pg, PROT_READ | PROT_WRITE);
	TBT_CHECK(ctl != NULL, "mmap of a 4-page ring after the failed SETUP: %s",
		  strerror(errno));
	if (!ctl)
		return;
	a = map_aux(fd, ctl, pg + 8 * pg, 16 * pg, PROT_READ | PROT_WRITE);
	TBT_CHECK(a != NULL, "AUX mmap (the first SETUP's backend): %s", strerror(errno));
	if (a)
		munmap(a, 16 * pg);
	munmap(ctl, pg + 8 * pg);
	close(fd);
}

/* ---- 3 ---------------------------------------------------------------- */

static void case3(void)
{
	struct tracebuf_setup su;
	char buf[4096];
	ssize_t n;
	int fd = tb_open(), r;

	su_init(&su, TRACEBUF_BACKEND_DATA, 0);
	su.data_size = 4 * pg;
	r = do_setup(fd, &su);
	TBT_CHECK(r == 0, "SETUP data_size: %d", r);
	TBT_CHECK(marker(fd, 7, "x", 1) == 0, "marker: %s", strerror(errno));
	/* Another size than the ring's: -EINVAL. */
	TBT_ERRNO(mmap(NULL, pg + 16 * pg, PROT_READ | PROT_WRITE, MAP_SHARED, fd, 0), EINVAL);
	/* A length that is no ring at all. */
	TBT_ERRNO(mmap(NULL, 3 * pg, PROT_READ | PROT_WRITE, MAP_SHARED, fd, 0), EINVAL);
	n = read(fd, buf, sizeof(buf));
	TBT_CHECK(n == 48, "read after failed mmaps: %zd (%s); want the 48-byte marker, "
		  "never EBUSY: a failed mmap must not make the session an mmap consumer",
		  n, n < 0 ? strerror(errno) : "");
	close(fd);

	/* No ring yet: read() may say ENXIO, never EBUSY. */
	fd = tb_open();
	su.data_size = 0;
	TBT_CHECK(do_setup(fd, &su) == 0, "SETUP");
	TBT_ERRNO(mmap(NULL, pg + 6 * pg, PROT_READ | PROT_WRITE, MAP_SHARED, fd, 0), EINVAL);
	n = read(fd, buf, sizeof(buf));
	TBT_CHECK(n < 0 && errno == ENXIO, "read without ring after a failed mmap: %zd (%s), "
		  "want ENXIO", n, n < 0 ? strerror(errno) : "");
	close(fd);
}

/* ---- 4 ---------------------------------------------------------------- */

static void case4(void)
{
	struct tracebuf_setup su;
	struct tracebuf_ctl *ctl;
	uint64_t aoff = pg + 8 * pg;
	void *a;
	int fd, i;

	if (!*backend) {
		printf("no hardware backend: case 4 needs one\n");
		return;
	}
	fd = tb_open();
	su_init(&su, backend, 1);
	su.aux_watermark = 32 * pg;	/* above 16 pages: the AUX mmap fails */
	TBT_CHECK(do_setup(fd, &su) == 0, "SETUP %s", backend);
	ctl = map_data(fd, 4 * pg, PROT_READ | PROT_WRITE);
	TBT_CHECK(ctl != NULL, "map: %s", strerror(errno));
	if (!ctl) {
		close(fd);
		return;
	}
	for (i = 0; i < 5; i++) {
		uint64_t off = aoff, size = 16 * pg, len = 16 * pg;

		switch (i) {
		case 0: break;				/* watermark > aux_size */
		case 1: len = 8 * pg; break;		/* length != aux_size */
		case 2: size = len = 12 * pg; break;	/* not 2^n pages */
		case 3: off = 4 * pg; break;		/* overlaps the data mapping */
		default: off = aoff + 1; break;	/* misaligned in the control page */
		}
		ctl->aux_offset = off;
		ctl->aux_size = size;
		a = mmap(NULL, len, PROT_READ, MAP_SHARED, fd, (off_t)(off & ~(pg - 1)));
		TBT_CHECK(a == MAP_FAILED && errno == EINVAL, "bad read-only AUX mmap %d: %s", i,
			  a == MAP_FAILED ? strerror(errno) : "succeeded");
		if (a != MAP_FAILED)
			munmap(a, len);
		TBT_CHECK(!(ctl->flags & TRACEBUF_CTL_F_AUX_SNAPSHOT),
			  "failed read-only AUX mmap %d left AUX_SNAPSHOT set (flags %#x)", i,
			  ctl->flags);
	}
	munmap(ctl, pg + 8 * pg);
	close(fd);

	/* The flag can be seen at all: set by a good one, cleared by munmap. */
	fd = tb_open();
	su.aux_watermark = 0;
	TBT_CHECK(do_setup(fd, &su) == 0, "SETUP %s", backend);
	ctl = map_data(fd, 4 * pg, PROT_READ | PROT_WRITE);
	TBT_CHECK(ctl != NULL, "map: %s", strerror(errno));
	if (!ctl) {
		close(fd);
		return;
	}
	a = map_aux(fd, ctl, aoff, 16 * pg, PROT_READ);
	if (!a && errno == EOPNOTSUPP) {
		printf("no snapshot mode here (EOPNOTSUPP)\n");
	} else {
		TBT_CHECK(a != NULL, "read-only AUX mmap: %s", strerror(errno));
		TBT_CHECK(ctl->flags & TRACEBUF_CTL_F_AUX_SNAPSHOT, "AUX_SNAPSHOT not set");
		/* A writable second mapping (other mode) fails: the flag stays. */
		TBT_ERRNO(mmap(NULL, 16 * pg, PROT_READ | PROT_WRITE, MAP_SHARED, fd, aoff),
			  EINVAL);
		TBT_CHECK(ctl->flags & TRACEBUF_CTL_F_AUX_SNAPSHOT, "AUX_SNAPSHOT lost");
		if (a)
			munmap(a, 16 * pg);
		TBT_CHECK(!(ctl->flags & TRACEBUF_CTL_F_AUX_SNAPSHOT),
			  "AUX_SNAPSHOT still set after munmap");
		/* Now a writable area: no snapshot flag. */
		a = map_aux(fd, ctl, aoff, 16 * pg, PROT_READ | PROT_WRITE);
		TBT_CHECK(a != NULL, "writable AUX mmap: %s", strerror(errno));
		TBT_CHECK(!(ctl->flags & TRACEBUF_CTL_F_AUX_SNAPSHOT),
			  "AUX_SNAPSHOT set for a writable AUX area");
		if (a)
			munmap(a, 16 * pg);
	}
	munmap(ctl, pg + 8 * pg);
	close(fd);
}

/* ---- 5 ---------------------------------------------------------------- */

static int mapped(const void *p)
{
	unsigned char v;

	/* mincore: -ENOMEM when the page is not mapped. */
	return mincore((void *)p, pg, &v) == 0;
}

static void case5(void)
{
	struct tracebuf_setup su;
	struct tracebuf_ctl *ctl;
	void *a = NULL;
	pid_t pid;
	int fd = tb_open(), st, r;

	su_init(&su, *backend ? backend : TRACEBUF_BACKEND_DATA, 1);
	TBT_CHECK(do_setup(fd, &su) == 0, "SETUP");
	ctl = map_data(fd, 4 * pg, PROT_READ | PROT_WRITE);
	TBT_CHECK(ctl != NULL, "map: %s", strerror(errno));
	if (!ctl)
		return;
	if (*backend) {
		a = map_aux(fd, ctl, pg + 8 * pg, 16 * pg, PROT_READ | PROT_WRITE);
		TBT_CHECK(a != NULL, "AUX map: %s", strerror(errno));
	}
	errno = 0;
	r = madvise(ctl, pg + 8 * pg, MADV_DOFORK);
	if (r == -1 && errno == ENOSYS) {
		printf("no madvise in this kernel (CONFIG_ADVISE_SYSCALLS=n): "
		       "MADV_DOFORK not checked\n");
	} else {
		TBT_CHECK(r == -1 && errno == EINVAL, "MADV_DOFORK on the data mapping: %d %s",
			  r, strerror(errno));
	}
	if (a && !(r == -1 && errno == ENOSYS)) {
		errno = 0;
		r = madvise(a, 16 * pg, MADV_DOFORK);
		TBT_CHECK(r == -1 && errno == EINVAL, "MADV_DOFORK on the AUX mapping: %d %s", r,
			  strerror(errno));
	}
	fflush(stdout);
	pid = fork();
	if (pid == 0) {
		int bad = 0;

		if (mapped(ctl)) {
			printf("not ok: the child inherited the data mapping\n");
			bad = 1;
		}
		if (a && mapped(a)) {
			printf("not ok: the child inherited the AUX mapping\n");
			bad = 1;
		}
		/* The fd is inherited and is the same session. */
		if (marker(fd, 55, NULL, 0)) {
			printf("not ok: marker from the child: %s\n", strerror(errno));
			bad = 1;
		}
		fflush(stdout);
		_exit(bad);
	}
	TBT_CHECK(pid > 0 && waitpid(pid, &st, 0) == pid && WIFEXITED(st) &&
		  WEXITSTATUS(st) == 0, "child: status %#x", st);
	/* The parent's mappings are untouched by the child's exit. */
	TBT_CHECK(mapped(ctl) && ctl->abi_version == TRACEBUF_ABI_VERSION,
		  "parent's control page after the child exited");
	TBT_CHECK(ctl->records_written >= 1, "the child's marker is not counted");
	if (a)
		munmap(a, 16 * pg);
	munmap(ctl, pg + 8 * pg);
	close(fd);
}

/* ---- 6 ---------------------------------------------------------------- */

static sigjmp_buf bus_jmp;
static volatile sig_atomic_t in_touch;

static void on_fault(int sig, siginfo_t *si, void *uc)
{
	(void)si;
	(void)uc;
	if (in_touch)
		siglongjmp(bus_jmp, sig);
	signal(sig, SIG_DFL);
	raise(sig);
}

static void catch_faults(int on)
{
	struct sigaction sa;

	memset(&sa, 0, sizeof(sa));
	sa.sa_sigaction = on_fault;
	sa.sa_flags = SA_SIGINFO | SA_NODEFER;
	if (!on) {
		sa.sa_handler = SIG_DFL;
		sa.sa_flags = 0;
	}
	sigaction(SIGBUS, &sa, NULL);
	sigaction(SIGSEGV, &sa, NULL);
}

static void case6(void)
{
	const uint64_t ds = 4 * pg;
	struct tracebuf_setup su;
	struct tracebuf_ctl *ctl, before;
	unsigned char rec[64], again[64];
	int fd = tb_open(), r1, r2, sig;

	su_init(&su, TRACEBUF_BACKEND_DATA, 0);
	TBT_CHECK(do_setup(fd, &su) == 0, "SETUP");
	ctl = map_data(fd, ds, PROT_READ | PROT_WRITE);
	TBT_CHECK(ctl != NULL, "map: %s", strerror(errno));
	if (!ctl)
		return;
	TBT_CHECK(marker(fd, 0x1234, "abcdefgh", 8) == 0, "marker");
	memcpy(&before, ctl, sizeof(before));
	memcpy(rec, (char *)ctl + pg, sizeof(rec));
	TBT_CHECK(before.data_head == 48 && before.abi_version == TRACEBUF_ABI_VERSION,
		  "head %llu", (unsigned long long)before.data_head);

	errno = 0;
	r1 = madvise(ctl, pg, MADV_DONTNEED);
	if (r1 == -1 && errno == ENOSYS) {
		printf("no madvise in this kernel (CONFIG_ADVISE_SYSCALLS=n): skipped\n");
		munmap(ctl, pg + 2 * ds);
		close(fd);
		return;
	}
	TBT_CHECK(r1 == 0, "MADV_DONTNEED control page: %s", strerror(errno));
	errno = 0;
	r2 = madvise((char *)ctl + pg, 2 * ds, MADV_DONTNEED);
	TBT_CHECK(r2 == 0, "MADV_DONTNEED data pages: %s", strerror(errno));

	catch_faults(1);
	sig = sigsetjmp(bus_jmp, 1);
	if (!sig) {
		in_touch = 1;
		TBT_CHECK(ctl->abi_version == before.abi_version &&
			  ctl->ctl_size == before.ctl_size &&
			  ctl->data_size == before.data_size &&
			  ctl->data_head == before.data_head &&
			  ctl->records_written == before.records_written,
			  "control page after MADV_DONTNEED: abi %u size %llu head %llu",
			  ctl->abi_version, (unsigned long long)ctl->data_size,
			  (unsigned long long)ctl->data_head);
		memcpy(again, (char *)ctl + pg, sizeof(again));
		TBT_CHECK(!memcmp(rec, again, sizeof(rec)),
			  "data page after MADV_DONTNEED differs (zero-filled?)");
		/* The second copy of the data pages is the same ring too. */
		memcpy(again, (char *)ctl + pg + ds, sizeof(again));
		TBT_CHECK(!memcmp(rec, again, sizeof(rec)), "second copy differs");
		/* The same ring: a new marker shows up through the mapping. */
		TBT_CHECK(marker(fd, 0x5678, NULL, 0) == 0, "marker 2");
		{
			const struct tracebuf_rec_user *u = (const void *)((char *)ctl + pg + 48);

			TBT_CHECK(ctl->data_head == 88 &&
				  __atomic_load_n(&u->r.commit, __ATOMIC_ACQUIRE) ==
				  tracebuf_commit_tag(48) && u->cookie == 0x5678,
				  "second marker not seen through the refaulted mapping "
				  "(head %llu cookie %#llx)", (unsigned long long)ctl->data_head,
				  (unsigned long long)u->cookie);
		}
		/* The consumer's tail store reaches the kernel. */
		__atomic_store_n(&ctl->data_tail, 88, __ATOMIC_RELEASE);
		in_touch = 0;
	} else {
		in_touch = 0;
		TBT_CHECK(0, "signal %d touching the mapping after MADV_DONTNEED "
			  "(no refault)", sig);
	}
	catch_faults(0);
	munmap(ctl, pg + 2 * ds);
	close(fd);
}

/* ---- 7 ---------------------------------------------------------------- */

static void case7(void)
{
	static const uint64_t offs[] = {
		TRACEBUF_AUX_OFFSET_MAX + 4096 * 16,	/* page-aligned on 4K and 64K */
		TRACEBUF_AUX_OFFSET_MAX * 2,
		1ULL << 50,
	};
	struct tracebuf_setup su;
	struct tracebuf_ctl *ctl;
	unsigned int i;
	void *a;
	int fd;

	if (!*backend) {
		printf("no hardware backend: case 7 needs one\n");
		return;
	}
	fd = tb_open();
	su_init(&su, backend, 1);
	TBT_CHECK(do_setup(fd, &su) == 0, "SETUP");
	ctl = map_data(fd, 4 * pg, PROT_READ | PROT_WRITE);
	TBT_CHECK(ctl != NULL, "map: %s", strerror(errno));
	if (!ctl)
		return;
	for (i = 0; i < sizeof(offs) / sizeof(offs[0]); i++) {
		a = map_aux(fd, ctl, offs[i], 4 * pg, PROT_READ | PROT_WRITE);
		TBT_CHECK(!a && errno == EINVAL, "AUX mmap at offset %#llx (max %#llx): %s",
			  (unsigned long long)offs[i],
			  (unsigned long long)TRACEBUF_AUX_OFFSET_MAX,
			  a ? "succeeded" : strerror(errno));
		if (a)
			munmap(a, 4 * pg);
	}
	/* At the bound's low end, the same session maps fine. */
	a = map_aux(fd, ctl, pg + 8 * pg, 4 * pg, PROT_READ | PROT_WRITE);
	TBT_CHECK(a != NULL, "AUX mmap at the first valid offset: %s", strerror(errno));
	if (a)
		munmap(a, 4 * pg);
	munmap(ctl, pg + 8 * pg);
	close(fd);
}

/* ---- 8 ---------------------------------------------------------------- */

static volatile int c8_stop;
static unsigned long c8_progress[3];
static unsigned long c8_bad[3];

static void *c8_info(void *arg)
{
	unsigned char *buf = arg;
	struct tracebuf_info in;
	int fd = tb_open();

	while (!c8_stop) {
		memset(&in, 0, sizeof(in));
		in.size = sizeof(in);
		in.backends_max = 4;
		in.backend_desc_size = sizeof(struct tracebuf_backend_desc);
		/* The first entry runs into the PROT_NONE page. */
		in.backends_ptr = (uintptr_t)(buf + pg - 24);
		errno = 0;
		if (ioctl(fd, TRACEBUF_IOC_GET_INFO, &in) != -1 || errno != EFAULT) {
			if (c8_bad[0]++ < 3)
				printf("not ok: GET_INFO into a PROT_NONE page: %s\n",
				       strerror(errno));
		}
		__atomic_add_fetch(&c8_progress[0], 1, __ATOMIC_RELAXED);
	}
	close(fd);
	return NULL;
}

static void *c8_setup(void *arg)
{
	struct tracebuf_setup su;

	(void)arg;
	while (!c8_stop) {
		int fd = tb_open(), r;

		su_init(&su, backend, 1);
		r = do_setup(fd, &su);
		if (r && r != -EINVAL && c8_bad[1]++ < 3)
			printf("not ok: SETUP: %d\n", r);
		close(fd);
		__atomic_add_fetch(&c8_progress[1], 1, __ATOMIC_RELAXED);
	}
	return NULL;
}

static void *c8_mmap(void *arg)
{
	struct tracebuf_setup su;

	(void)arg;
	while (!c8_stop) {
		int fd = tb_open();
		struct tracebuf_ctl *ctl;

		su_init(&su, backend, 1);
		if (!do_setup(fd, &su) && (ctl = map_data(fd, 4 * pg, PROT_READ | PROT_WRITE))) {
			void *a = map_aux(fd, ctl, pg + 8 * pg, 4 * pg, PROT_READ | PROT_WRITE);

			if (a)
				munmap(a, 4 * pg);
			else if (errno != EBUSY && c8_bad[2]++ < 3)
				printf("not ok: AUX mmap: %s\n", strerror(errno));
			munmap(ctl, pg + 8 * pg);
		}
		close(fd);
		__atomic_add_fetch(&c8_progress[2], 1, __ATOMIC_RELAXED);
	}
	return NULL;
}

static void case8(void)
{
	pthread_t th[3];
	unsigned char *buf;
	int i, stuck = 0;

	if (!*backend) {
		printf("no hardware backend: case 8 needs one (GET_INFO writes nothing)\n");
		return;
	}
	buf = mmap(NULL, 2 * pg, PROT_READ | PROT_WRITE, MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
	TBT_CHECK(buf != MAP_FAILED, "anon mmap");
	if (buf == MAP_FAILED)
		return;
	TBT_CHECK(mprotect(buf + pg, pg, PROT_NONE) == 0, "mprotect");
	pthread_create(&th[0], NULL, c8_info, buf);
	pthread_create(&th[1], NULL, c8_setup, NULL);
	pthread_create(&th[2], NULL, c8_mmap, NULL);
	/* 3 s of contention, then every thread must finish within 60 s. */
	usleep(3000000);
	c8_stop = 1;
	for (i = 0; i < 3; i++) {
		struct timespec ts;

		clock_gettime(CLOCK_REALTIME, &ts);
		ts.tv_sec += 60;
		if (pthread_timedjoin_np(th[i], NULL, &ts)) {
			TBT_CHECK(0, "thread %d (%s) stuck: deadlock between GET_INFO's fault "
				  "and SETUP/mmap?", i, i == 0 ? "GET_INFO" :
				  i == 1 ? "SETUP" : "mmap");
			stuck = 1;
		}
	}
	printf("GET_INFO %lu, SETUP %lu, mmap %lu iterations\n", c8_progress[0],
	       c8_progress[1], c8_progress[2]);
	TBT_CHECK(c8_progress[0] > 0 && c8_progress[1] > 0 && c8_progress[2] > 0,
		  "a thread made no progress");
	for (i = 0; i < 3; i++)
		TBT_CHECK(c8_bad[i] == 0, "thread %d: %lu unexpected results", i, c8_bad[i]);
	if (stuck) {
		dump_blocked();
		fflush(stdout);
		_exit(1);	/* exit_group cannot reap the stuck threads anyway */
	}
}


/* ---- 9 ---------------------------------------------------------------- */

#define ONLINE1	"/sys/devices/system/cpu/cpu1/online"

static int write_str(const char *path, const char *v)
{
	int fd = open(path, O_WRONLY | O_CLOEXEC), r;

	if (fd < 0)
		return -errno;
	r = write(fd, v, strlen(v)) == (ssize_t)strlen(v) ? 0 : -errno;
	close(fd);
	return r;
}

/*
 * The emulator's view of one CPU's trace unit: 1 tracing, 0 not, -1 no
 * such file. tb_ptemu: cpuN/stats "traceen" (RTIT_CTL.TraceEn);
 * tb_csemu: etmN/stats "enabled" (TRCPRGCTLR.EN).
 */
static int emu_tracing(int cpu)
{
	char path[96], key[64], line[160];
	int v = -1, x;
	FILE *f;

#if defined(__x86_64__)
	snprintf(path, sizeof(path), "/sys/kernel/debug/tb_ptemu/cpu%d/stats", cpu);
	const char *want = "traceen";
#else
	snprintf(path, sizeof(path), "/sys/kernel/debug/tb_csemu/etm%d/stats", cpu);
	const char *want = "enabled";
#endif
	f = fopen(path, "r");
	if (!f)
		return -1;
	while (fgets(line, sizeof(line), f))
		if (sscanf(line, "%63s %d", key, &x) == 2 && !strcmp(key, want)) {
			v = x;
			break;
		}
	fclose(f);
	return v;
}

static volatile int c9_stop;
static unsigned long c9_toggles, c9_toggle_err;

static void *c9_toggler(void *arg)
{
	unsigned int r = 12345;

	(void)arg;
	/* As fast as the guest goes: every offline races the ioctls below. */
	while (!c9_stop) {
		if (write_str(ONLINE1, "0"))
			c9_toggle_err++;
		r = r * 1103515245 + 12345;
		usleep((r >> 16) % 20000);
		if (write_str(ONLINE1, "1"))
			c9_toggle_err++;
		__atomic_add_fetch(&c9_toggles, 1, __ATOMIC_RELAXED);
		r = r * 1103515245 + 12345;
		usleep((r >> 16) % 30000);
	}
	return NULL;
}

static int in_set(int e, const int *l)
{
	for (; *l; l++)
		if (*l == e)
			return 1;
	return 0;
}

/* No CPU's trace unit is on (nothing else traces while this runs). */
static void c9_none_tracing(const char *when, int round)
{
	int cpu, t;

	for (cpu = 0; cpu < 2; cpu++) {
		t = emu_tracing(cpu);
		TBT_CHECK(t == 0, "round %d, %s: CPU %d still tracing in the emulator (%d)",
			  round, when, cpu, t);
	}
}

/*
 * Sessions on CPU 1 (CoreSight: CPUs 0 and 1) driven through ENABLE,
 * SET_DRV_CONFIG (a restart on every traced CPU), SNAPSHOT (snapshot
 * mode), DISABLE and AUX munmap while another thread takes CPU 1 offline
 * and online as fast as it can: each of these sends IPIs to the session's
 * CPUs. After DISABLE, AUX munmap and close, the emulator must show no
 * trace unit on: an IPI that started the hardware on a dying CPU, or a
 * stop that skipped it, leaves it on (issue 19 item 2).
 */
static void case9(void)
{
	static const int e_en[] = { ENODEV, EALREADY, EBUSY, EIO, EINVAL, 0 };
	static const int e_cfg[] = { EIO, ENODEV, 0 };
	static const int e_snap[] = { ENXIO, EBUSY, EIO, 0 };
	static const int e_map[] = { EINVAL, ENXIO, ENODEV, ENOMEM, EOPNOTSUPP, 0 };
	struct timespec t0, t;
	pthread_t th;
	int round, enables = 0, hangups = 0, crossed = 0;

	if (!*backend || access(ONLINE1, W_OK) || emu_tracing(1) < 0) {
		printf("needs the emulator, its debugfs and cpu1 hotplug: skipped\n");
		return;
	}
	pthread_create(&th, NULL, c9_toggler, NULL);
	clock_gettime(CLOCK_MONOTONIC, &t0);
	for (round = 0; round < 100000; round++) {
		struct tracebuf_setup su;
		struct tracebuf_ctl *ctl;
		int fd, r, i, ro = round & 1;
		unsigned long cycles;
		void *a;

		clock_gettime(CLOCK_MONOTONIC, &t);
		if (t.tv_sec - t0.tv_sec >= 30 || (t.tv_sec - t0.tv_sec >= 20 && c9_toggles >= 40))
			break;
		fd = tb_open();
		su_init(&su, backend, 1);
		if (do_setup(fd, &su)) {
			close(fd);	/* cpu1 offline: -EINVAL */
			usleep(2000);
			continue;
		}
		cycles = __atomic_load_n(&c9_toggles, __ATOMIC_RELAXED);
		ctl = map_data(fd, 4 * pg, PROT_READ | PROT_WRITE);
		if (!ctl) {
			TBT_CHECK(in_set(errno, e_map), "round %d: mmap: %s", round,
				  strerror(errno));
			close(fd);
			continue;
		}
		a = map_aux(fd, ctl, pg + 8 * pg, 16 * pg, ro ? PROT_READ : PROT_READ | PROT_WRITE);
		if (!a && errno == EOPNOTSUPP)
			a = map_aux(fd, ctl, pg + 8 * pg, 16 * pg, PROT_READ | PROT_WRITE);
		TBT_CHECK(a || in_set(errno, e_map), "round %d: AUX mmap: %s", round,
			  strerror(errno));
		for (i = 0; a && i < 40; i++) {
			r = ioctl(fd, TRACEBUF_IOC_ENABLE);
			TBT_CHECK(!r || in_set(errno, e_en), "round %d: ENABLE: %s", round,
				  strerror(errno));
			if (!r)
				enables++;
			if (cs)
				r = set_cfg(fd, i & 1 ? "timestamp=0" : "timestamp=1");
			else
				r = set_cfg(fd, i & 1 ? "tsc=0" : "tsc=1");
			TBT_CHECK(r == 0 || in_set(-r, e_cfg), "round %d: SET_DRV_CONFIG: %s",
				  round, strerror(-r));
			if (ctl->flags & TRACEBUF_CTL_F_AUX_SNAPSHOT) {
				r = ioctl(fd, TRACEBUF_IOC_SNAPSHOT);
				TBT_CHECK(!r || in_set(errno, e_snap), "round %d: SNAPSHOT: %s",
					  round, strerror(errno));
			}
			if (i == 39 && (round & 2))
				break;	/* munmap and close while (maybe) tracing */
			r = ioctl(fd, TRACEBUF_IOC_DISABLE);
			TBT_CHECK(r == 0, "round %d: DISABLE: %s", round, strerror(errno));
			TBT_CHECK(!(ctl->flags & TRACEBUF_CTL_F_ENABLED),
				  "round %d: F_ENABLED after DISABLE", round);
			c9_none_tracing("after DISABLE", round);
			if (tbt_failures)
				break;
			{
				struct pollfd p = { .fd = fd, .events = POLLIN };

				if (poll(&p, 1, 0) == 1 && (p.revents & POLLHUP)) {
					hangups++;	/* CPU 1 went: a new session */
					break;
				}
			}
		}
		if (a) {
			munmap(a, 16 * pg);
			c9_none_tracing("after AUX munmap", round);
		}
		munmap(ctl, pg + 8 * pg);
		close(fd);
		/* A whole offline/online cycle happened while this session lived. */
		crossed += __atomic_load_n(&c9_toggles, __ATOMIC_RELAXED) - cycles >= 1;
		c9_none_tracing("after close", round);
		if (tbt_failures)
			break;
	}
	c9_stop = 1;
	pthread_join(th, NULL);
	TBT_CHECK(write_str(ONLINE1, "1") == 0, "cpu1 back online");
	printf("%d sessions (%d lived through a hotplug cycle), %d ENABLEs took, %d hang-ups, "
	       "%lu hotplug cycles (%lu errors)\n", round, crossed, enables, hangups,
	       c9_toggles, c9_toggle_err);
	/* CPU 1 went offline under live, enabled sessions. */
	TBT_CHECK(enables > 0 && crossed > 0, "the race was not exercised");
	c9_none_tracing("at the end", round);
}

/* ---- 10 --------------------------------------------------------------- */

struct c10_info {
	int fd, ret, err;
	void *buf;
	volatile int done;
};

static void *c10_get_info(void *arg)
{
	struct c10_info *ci = arg;
	struct tracebuf_info in = { .size = sizeof(in), .backends_max = 1,
				    .backend_desc_size = sizeof(struct tracebuf_backend_desc),
				    .backends_ptr = (uintptr_t)ci->buf };

	ci->ret = ioctl(ci->fd, TRACEBUF_IOC_GET_INFO, &in);
	ci->err = errno;
	__atomic_store_n(&ci->done, 1, __ATOMIC_RELEASE);
	return NULL;
}

struct c10_setup {
	int ret, map;
	volatile int done;
};

static void *c10_setup(void *arg)
{
	struct c10_setup *cs_ = arg;
	struct tracebuf_setup su;
	struct tracebuf_ctl *ctl;
	int fd = tb_open();

	su_init(&su, backend, 0);
	cs_->ret = do_setup(fd, &su);
	/* mmap takes mmap_lock, then the session's lock. */
	ctl = map_data(fd, 4 * pg, PROT_READ | PROT_WRITE);
	cs_->map = ctl ? 0 : -errno;
	if (ctl)
		munmap(ctl, pg + 8 * pg);
	close(fd);
	__atomic_store_n(&cs_->done, 1, __ATOMIC_RELEASE);
	return NULL;
}

static int wait_flag(volatile int *f, int seconds)
{
	int i;

	for (i = 0; i < seconds * 100; i++) {
		if (__atomic_load_n(f, __ATOMIC_ACQUIRE))
			return 1;
		usleep(10000);
	}
	return 0;
}

static void case10(void)
{
	struct tracebuf_backend_desc *d;
	struct uffdio_api api = { .api = UFFD_API };
	struct uffdio_register reg;
	struct uffdio_zeropage zp;
	struct uffd_msg msg;
	struct c10_info ci = { 0 };
	struct c10_setup cu = { 0 };
	struct pollfd p;
	pthread_t ti, ts;
	char *buf;
	int uffd;

	/* Plain -EFAULTs first: the struct, then the array. */
	{
		struct tracebuf_info in = { .size = sizeof(in), .backends_max = 1,
					    .backend_desc_size = sizeof(*d), .backends_ptr = 8 };
		int fd = tb_open();

		TBT_ERRNO(ioctl(fd, TRACEBUF_IOC_GET_INFO, (void *)8), EFAULT);
		TBT_ERRNO(ioctl(fd, TRACEBUF_IOC_GET_INFO, &in), EFAULT);
		close(fd);
	}
	if (!*backend) {
		printf("no hardware backend: the blocked-copy part needs one\n");
		return;
	}
	uffd = (int)syscall(SYS_userfaultfd, O_CLOEXEC | O_NONBLOCK);
	if (uffd < 0) {
		printf("no userfaultfd here (%s): the blocked-copy part is skipped\n",
		       strerror(errno));
		return;
	}
	TBT_CHECK(ioctl(uffd, UFFDIO_API, &api) == 0, "UFFDIO_API: %s", strerror(errno));
	buf = mmap(NULL, 2 * pg, PROT_READ | PROT_WRITE, MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
	TBT_CHECK(buf != MAP_FAILED, "mmap");
	if (buf == MAP_FAILED)
		return;
	memset(&reg, 0, sizeof(reg));
	reg.range.start = (uintptr_t)buf;
	reg.range.len = 2 * pg;
	reg.mode = UFFDIO_REGISTER_MODE_MISSING;
	if (ioctl(uffd, UFFDIO_REGISTER, &reg)) {
		printf("UFFDIO_REGISTER: %s: the blocked-copy part is skipped\n",
		       strerror(errno));
		return;
	}
	/* GET_INFO's copy to buf faults and waits for us. */
	ci.fd = tb_open();
	ci.buf = buf;
	pthread_create(&ti, NULL, c10_get_info, &ci);
	p.fd = uffd;
	p.events = POLLIN;
	TBT_CHECK(poll(&p, 1, 60000) == 1, "GET_INFO never faulted on the userfaultfd page");
	TBT_CHECK(read(uffd, &msg, sizeof(msg)) == sizeof(msg) &&
		  msg.event == UFFD_EVENT_PAGEFAULT, "uffd message");
	TBT_CHECK(!__atomic_load_n(&ci.done, __ATOMIC_ACQUIRE), "GET_INFO did not wait");
	printf("GET_INFO is blocked in its copy; SETUP and mmap on another session\n");
	/* Meanwhile SETUP (backends lock) and mmap (mmap_lock, s->lock) finish. */
	pthread_create(&ts, NULL, c10_setup, &cu);
	TBT_CHECK(wait_flag(&cu.done, 60),
		  "SETUP/mmap blocked behind a GET_INFO whose copy_to_user waits "
		  "(a lock held across the copy)");
	TBT_CHECK(!__atomic_load_n(&ci.done, __ATOMIC_ACQUIRE), "GET_INFO finished early");
	/* Resolve the fault: GET_INFO completes. */
	memset(&zp, 0, sizeof(zp));
	zp.range.start = (uintptr_t)buf;
	zp.range.len = pg;
	TBT_CHECK(ioctl(uffd, UFFDIO_ZEROPAGE, &zp) == 0, "UFFDIO_ZEROPAGE: %s", strerror(errno));
	TBT_CHECK(wait_flag(&ci.done, 60), "GET_INFO did not finish after the fault was resolved");
	if (!__atomic_load_n(&cu.done, __ATOMIC_ACQUIRE) ||
	    !__atomic_load_n(&ci.done, __ATOMIC_ACQUIRE)) {
		dump_blocked();
		fflush(stdout);
		_exit(1);
	}
	pthread_join(ts, NULL);
	pthread_join(ti, NULL);
	TBT_CHECK(cu.ret == 0 && cu.map == 0, "SETUP %d, mmap %d", cu.ret, cu.map);
	d = (struct tracebuf_backend_desc *)buf;
	TBT_CHECK(ci.ret == 0 && !strcmp(d->name, backend),
		  "GET_INFO after the fault: %d (%s), entry '%.16s'", ci.ret,
		  strerror(ci.err), d->name);
	close(ci.fd);
	close(uffd);
}

/* ---- 11 --------------------------------------------------------------- */

static volatile int c11_stop;

struct c11 {
	struct tracebuf_ctl *ctl;
	int fd;
	unsigned long cap;	/* markers that fit: the ring never fills */
	unsigned long ok, full, bad;
};

/* Writes 48-byte markers as fast as it can. */
static void *c11_writer(void *arg)
{
	struct c11 *c = arg;

	while (!c11_stop && c->ok + c->full < c->cap) {
		int r = marker(c->fd, c->ok, "scribble", 8);

		if (!r)
			c->ok++;
		else if (r == -ENOSPC)
			c->full++;
		else if (c->bad++ < 3)
			printf("not ok: marker: %s\n", strerror(-r));
	}
	return NULL;
}

/* Scribbles over the record being written or just committed at data_head. */
static void *c11_scribbler(void *arg)
{
	struct c11 *c = arg;
	unsigned char *data = (unsigned char *)c->ctl + pg;
	uint64_t mask = c->ctl->data_size - 1;
	unsigned int n = 0;

	while (!c11_stop) {
		uint64_t h = __atomic_load_n(&c->ctl->data_head, __ATOMIC_RELAXED);
		struct tracebuf_record *r = (void *)(data + ((h - 48 * (n % 3 == 0)) & mask));
		static const uint32_t sizes[] = { 0, 4, 7, 0xffffffffu, 1u << 20, 8, 0x7ffffff8u };

		r->hdr.size = sizes[n % 7];
		r->hdr.flags = n & 1 ? TRACEBUF_REC_F_DISCARD : 0xffff;
		r->hdr.type = (uint16_t)n;
		n++;
	}
	return NULL;
}

static void case11(void)
{
	const uint64_t ds = 16 * pg;
	struct tracebuf_setup su;
	struct c11 c = { 0 };
	pthread_t th[2];
	uint64_t head, i, wr0;
	int fd = tb_open(), r, n;

	su_init(&su, TRACEBUF_BACKEND_DATA, 0);
	su.wakeup_events = 2;
	TBT_CHECK(do_setup(fd, &su) == 0, "SETUP");
	c.ctl = map_data(fd, ds, PROT_READ | PROT_WRITE);
	TBT_CHECK(c.ctl != NULL, "map: %s", strerror(errno));
	if (!c.ctl)
		return;
	c.fd = fd;

	/* Committed records scribbled over, and the kernel-written words too. */
	for (n = 0; n < 10; n++)
		TBT_CHECK(marker(fd, n, "scribble", 8) == 0, "marker %d", n);
	for (n = 0; n < 10; n++) {
		struct tracebuf_record *rec = (void *)((char *)c.ctl + pg + 48 * n);

		rec->hdr.size = n & 1 ? 0xfffffff8u : 8;
		rec->hdr.flags = 0xffff;
		rec->hdr.type = 0;
	}
	c.ctl->data_head = 0x123456789ULL;
	c.ctl->records_written = 0;
	/* A tail past the head and a misaligned one: both ignored. */
	c.ctl->data_tail = 480 + 4096;
	TBT_CHECK(marker(fd, 10, "scribble", 8) == 0, "marker after a tail past the head");
	c.ctl->data_tail = 3;
	TBT_CHECK(marker(fd, 11, "scribble", 8) == 0, "marker after a misaligned tail");
	TBT_CHECK(c.ctl->data_head == 12 * 48 && c.ctl->records_written == 12,
		  "after scribbling: head %llu written %llu (want 576, 12)",
		  (unsigned long long)c.ctl->data_head,
		  (unsigned long long)c.ctl->records_written);
	for (n = 10; n < 12; n++) {
		const struct tracebuf_rec_user *u = (const void *)((char *)c.ctl + pg + 48 * n);

		TBT_CHECK(u->r.commit == tracebuf_commit_tag(48 * n) && u->r.hdr.size == 48 &&
			  u->cookie == (uint64_t)n, "record %d after scribbling", n);
	}
	/* The tail is still 0 to the kernel: the ring fills at exactly ds bytes. */
	for (i = 0; i < ds; i += 48) {
		r = marker(fd, 100 + i, "scribble", 8);
		if (r)
			break;
	}
	TBT_CHECK(r == -ENOSPC, "filling the ring: %d", r);
	head = c.ctl->data_head;
	TBT_CHECK(head <= ds && head > ds - 48 - 40,
		  "ring full at head %llu of %llu: the kernel trusted a scribbled tail?",
		  (unsigned long long)head, (unsigned long long)ds);
	TBT_CHECK(c.ctl->records_lost >= 1, "the refused marker is not counted lost");

	/* Consume all: the next marker reports the loss (LOST), then empty again. */
	__atomic_store_n(&c.ctl->data_tail, head, __ATOMIC_RELEASE);
	TBT_CHECK(marker(fd, 1, "scribble", 8) == 0, "marker after consuming");
	head = c.ctl->data_head;
	__atomic_store_n(&c.ctl->data_tail, head, __ATOMIC_RELEASE);

	/* Now race a writer and a scribbler on the newest record. */
	wr0 = c.ctl->records_written;
	c.cap = (ds - 48) / 48;
	c11_stop = 0;
	pthread_create(&th[0], NULL, c11_writer, &c);
	pthread_create(&th[1], NULL, c11_scribbler, &c);
	usleep(2000000);
	c11_stop = 1;
	for (n = 0; n < 2; n++)
		pthread_join(th[n], NULL);
	printf("race: %lu markers written, %lu refused (ring full), written %llu, lost %llu\n",
	       c.ok, c.full, (unsigned long long)c.ctl->records_written,
	       (unsigned long long)c.ctl->records_lost);
	TBT_CHECK(c.bad == 0 && c.full == 0, "unexpected marker errors");
	/* Counters come from the writer's own state, never from the ring's bytes. */
	TBT_CHECK(c.ctl->records_written - wr0 == c.ok,
		  "records_written grew by %llu for %lu committed markers",
		  (unsigned long long)(c.ctl->records_written - wr0), c.ok);
	TBT_CHECK(c.ctl->data_head - head == 48 * (uint64_t)c.ok,
		  "data_head moved %llu for %lu 48-byte markers",
		  (unsigned long long)(c.ctl->data_head - head), c.ok);
	/* poll on a scribbled ring answers. */
	{
		struct pollfd p = { .fd = fd, .events = POLLIN };

		TBT_CHECK(poll(&p, 1, 0) >= 0, "poll: %s", strerror(errno));
	}
	munmap(c.ctl, pg + 2 * ds);
	close(fd);
}

/* ---- 12 --------------------------------------------------------------- */

static int emu_knob(int cpu, const char *knob, const char *v)
{
	char path[96];

	snprintf(path, sizeof(path), "/sys/kernel/debug/tb_ptemu/cpu%d/%s", cpu, knob);
	return write_str(path, v);
}

/* docs/abi.md section 4: F_ENABLED set by ENABLE, cleared by DISABLE, a
 * failed ENABLE, and a stop on a collision (ENABLE then -EALREADY). */
static void case12(void)
{
	struct tracebuf_setup su;
	struct tracebuf_ctl *ctl;
	struct pollfd p;
	void *a;
	int fd, i;

	if (!*backend || cs || emu_knob(1, "foreign", "0")) {
		printf("needs tb_ptemu's steal/foreign knobs: skipped\n");
		return;
	}
	fd = tb_open();
	su_init(&su, backend, 1);
	TBT_CHECK(do_setup(fd, &su) == 0, "SETUP");
	ctl = map_data(fd, 4 * pg, PROT_READ | PROT_WRITE);
	TBT_CHECK(ctl != NULL, "map");
	if (!ctl)
		return;
	a = map_aux(fd, ctl, pg + 8 * pg, 16 * pg, PROT_READ | PROT_WRITE);
	TBT_CHECK(a != NULL, "AUX map: %s", strerror(errno));
	TBT_CHECK(!(ctl->flags & TRACEBUF_CTL_F_ENABLED), "F_ENABLED before ENABLE");
	TBT_CHECK(ioctl(fd, TRACEBUF_IOC_ENABLE) == 0, "ENABLE: %s", strerror(errno));
	TBT_CHECK(ctl->flags & TRACEBUF_CTL_F_ENABLED, "F_ENABLED not set by ENABLE");
	TBT_CHECK(ioctl(fd, TRACEBUF_IOC_DISABLE) == 0, "DISABLE");
	TBT_CHECK(!(ctl->flags & TRACEBUF_CTL_F_ENABLED), "F_ENABLED after DISABLE");
	/* A failed ENABLE (another owner): flag clear. */
	TBT_CHECK(emu_knob(1, "foreign", "1") == 0, "foreign");
	TBT_ERRNO(ioctl(fd, TRACEBUF_IOC_ENABLE), EBUSY);
	TBT_CHECK(!(ctl->flags & TRACEBUF_CTL_F_ENABLED), "F_ENABLED after a failed ENABLE");
	TBT_CHECK(emu_knob(1, "foreign", "0") == 0, "foreign off");
	/* A collision: error state, flag cleared once no CPU traces. */
	TBT_CHECK(ioctl(fd, TRACEBUF_IOC_ENABLE) == 0, "ENABLE: %s", strerror(errno));
	TBT_CHECK(emu_knob(1, "steal", "1") == 0, "steal");
	p.fd = fd;
	p.events = POLLIN;
	for (i = 0; i < 100; i++) {
		p.revents = 0;
		if (poll(&p, 1, 100) > 0 && (p.revents & POLLERR))
			break;
	}
	TBT_CHECK(p.revents & POLLERR, "no EPOLLERR after a collision: %#x", p.revents);
	TBT_CHECK(!(ctl->flags & TRACEBUF_CTL_F_ENABLED),
		  "F_ENABLED still set in the error state (docs/abi.md section 4)");
	TBT_ERRNO(ioctl(fd, TRACEBUF_IOC_ENABLE), EALREADY);
	TBT_CHECK(ioctl(fd, TRACEBUF_IOC_DISABLE) == 0, "DISABLE in the error state");
	TBT_CHECK(emu_knob(1, "steal", "0") == 0, "release");
	TBT_CHECK(!(ctl->flags & TRACEBUF_CTL_F_ENABLED), "F_ENABLED after DISABLE");
	TBT_CHECK(ioctl(fd, TRACEBUF_IOC_ENABLE) == 0, "ENABLE after the error: %s",
		  strerror(errno));
	TBT_CHECK(ctl->flags & TRACEBUF_CTL_F_ENABLED, "F_ENABLED after re-ENABLE");
	TBT_CHECK(ioctl(fd, TRACEBUF_IOC_DISABLE) == 0, "DISABLE");
	if (a)
		munmap(a, 16 * pg);
	munmap(ctl, pg + 8 * pg);
	close(fd);
}

/* ---- 13 --------------------------------------------------------------- */

/* Pinned memory of this process, kB (VmPin in /proc/self/status). */
static long vm_pin_kb(void)
{
	char line[128];
	long v = -1;
	FILE *f = fopen("/proc/self/status", "r");

	if (!f)
		return -1;
	while (fgets(line, sizeof(line), f))
		if (sscanf(line, "VmPin: %ld", &v) == 1)
			break;
	fclose(f);
	return v;
}

/*
 * A failed AUX mmap changes nothing: made to fail late (over the pinned
 * memory limit, -EPERM) as a user without CAP_IPC_LOCK, it leaves the
 * flags, aux_head/aux_tail, the pinned charge, and the session without an
 * AUX area (ENABLE -ENXIO; another size and mode maps fine afterwards).
 */
static void case13(void)
{
	struct tracebuf_setup su;
	struct tracebuf_ctl *ctl;
	struct rlimit rl = { 0, 0 };
	unsigned long allowance_kb = 0;
	uint64_t big, off = pg + 8 * pg;
	uint32_t flags;
	long pin0;
	FILE *f;
	void *a;
	int fd;

	if (!*backend) {
		printf("no hardware backend: case 13 needs one\n");
		return;
	}
	f = fopen("/sys/module/tracebuf/parameters/mlock_kb", "r");
	if (!f || fscanf(f, "%lu", &allowance_kb) != 1) {
		TBT_CHECK(0, "no mlock_kb module parameter");
		if (f)
			fclose(f);
		return;
	}
	fclose(f);
	allowance_kb *= sysconf(_SC_NPROCESSORS_ONLN);
	for (big = 16 * pg; big <= allowance_kb * 1024; big *= 2)
		;
	fd = tb_open();
	su_init(&su, backend, 1);
	TBT_CHECK(do_setup(fd, &su) == 0, "SETUP");
	ctl = map_data(fd, 4 * pg, PROT_READ | PROT_WRITE);
	TBT_CHECK(ctl != NULL, "map: %s", strerror(errno));
	if (!ctl)
		return;
	/* An ordinary user: no CAP_IPC_LOCK, no RLIMIT_MEMLOCK. */
	TBT_CHECK(setrlimit(RLIMIT_MEMLOCK, &rl) == 0, "setrlimit");
	TBT_CHECK(setgid(65534) == 0 && setuid(65534) == 0, "setuid: %s", strerror(errno));
	flags = ctl->flags;
	pin0 = vm_pin_kb();
	printf("AUX of %llu KiB, over the allowance of %lu KiB and RLIMIT_MEMLOCK 0\n",
	       (unsigned long long)big / 1024, allowance_kb);
	a = map_aux(fd, ctl, off, big, PROT_READ);	/* snapshot mode, if it fit */
	TBT_CHECK(!a && errno == EPERM, "AUX mmap over the limit: %s",
		  a ? "succeeded" : strerror(errno));
	if (a)
		munmap(a, big);
	TBT_CHECK(ctl->flags == flags, "flags %#x -> %#x after a failed AUX mmap", flags,
		  ctl->flags);
	TBT_CHECK(ctl->aux_head == 0 && ctl->aux_tail == 0, "aux_head %llu aux_tail %llu",
		  (unsigned long long)ctl->aux_head, (unsigned long long)ctl->aux_tail);
	TBT_CHECK(vm_pin_kb() == pin0, "VmPin %ld -> %ld kB after a failed AUX mmap", pin0,
		  vm_pin_kb());
	TBT_ERRNO(ioctl(fd, TRACEBUF_IOC_ENABLE), ENXIO);
	/* Nothing of the failed area is left: another size and mode maps. */
	a = map_aux(fd, ctl, off, 16 * pg, PROT_READ | PROT_WRITE);
	TBT_CHECK(a != NULL, "AUX mmap within the allowance after the failed one: %s",
		  strerror(errno));
	TBT_CHECK(!(ctl->flags & TRACEBUF_CTL_F_AUX_SNAPSHOT), "AUX_SNAPSHOT set (flags %#x)",
		  ctl->flags);
	if (a)
		munmap(a, 16 * pg);
	munmap(ctl, pg + 8 * pg);
	close(fd);
}

/* ------------------------------------------------------------------------ */

static void find_backend(void)
{
	struct tracebuf_backend_desc d[4];
	struct tracebuf_info in = { .size = sizeof(in), .backends_max = 4,
				    .backend_desc_size = sizeof(d[0]),
				    .backends_ptr = (uintptr_t)d };
	int fd = tb_open();

	memset(d, 0, sizeof(d));
	if (fd >= 0 && ioctl(fd, TRACEBUF_IOC_GET_INFO, &in) == 0 && in.nr_backends) {
		snprintf(backend, sizeof(backend), "%s", d[0].name);
		cs = d[0].id == TRACEBUF_BACKEND_CORESIGHT;
	}
	if (fd >= 0)
		close(fd);
	printf("hardware backend: %s\n", *backend ? backend : "(none)");
}

int main(void)
{
	setvbuf(stdout, NULL, _IONBF, 0);
	pg = sysconf(_SC_PAGESIZE);
	if (tbt_modprobe("tracebuf"))
		return 1;
#if defined(__x86_64__)
	if (tbt_modprobe("tb_ptemu"))
		printf("cannot load tb_ptemu: the AUX cases are skipped\n");
#elif defined(__aarch64__)
	if (tbt_modprobe("tb_csemu"))
		printf("cannot load tb_csemu: the AUX cases are skipped\n");
#endif
	find_backend();
	TBT_CHECK(*backend, "no hardware backend (emulator not loaded)");

	run_case("2: a failed repeated SETUP changes nothing", case2, 60);
	run_case("2b: a repeated SETUP failing late (-EPERM) changes nothing", case2b, 60);
	run_case("3: a failed data mmap does not lock the session into mmap", case3, 60);
	run_case("4: a failed AUX mmap leaves AUX_SNAPSHOT clear", case4, 60);
	run_case("5: MADV_DOFORK refused, mappings not inherited", case5, 60);
	run_case("6: MADV_DONTNEED then read: refault, same ring", case6, 60);
	run_case("7: AUX offset above TRACEBUF_AUX_OFFSET_MAX refused", case7, 60);
	run_case("8: GET_INFO -EFAULT does not block SETUP/mmap", case8, 180);
	run_case("10: GET_INFO blocked in its copy does not block SETUP/mmap", case10, 180);
	run_case("11: scribbled ring: counters and positions stay the kernel's", case11, 60);
	run_case("12: F_ENABLED after DISABLE, a failed ENABLE and a collision", case12, 60);
	run_case("13: a failed AUX mmap (over the pinned limit) changes nothing", case13, 60);
	run_case("9: ENABLE/SET_DRV_CONFIG/DISABLE against cpu1 hotplug", case9, 240);
	run_case("1a: DISABLE on a 'none' session, cpu 0", case1_cpu0, 60);
	run_case("1b: DISABLE on a 'none' session, cpu 1", case1_cpu1, 60);
	/* The tests that follow load the emulators with their own parameters. */
	if (tbt_module_loaded("tb_ptemu"))
		tbt_rmmod("tb_ptemu");
	if (tbt_module_loaded("tb_csemu"))
		tbt_rmmod("tb_csemu");
	return tbt_done();
}
