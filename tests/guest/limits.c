// SPDX-License-Identifier: GPL-2.0
/*
 * Pinned-memory limits and the permission model (docs/abi.md, "Permissions
 * and memory limits"), both as perf has them:
 *
 * - memory: a session's pages (data ring + control page, AUX pages + the
 *   backend's output tables) are charged when allocated, up to mlock_kb
 *   KiB per online CPU to the user's tracebuf allowance (its own count,
 *   as perf keeps its perf_mlock), the rest to the caller's
 *   mm->pinned_vm (VmPin) within RLIMIT_MEMLOCK unless CAP_IPC_LOCK or
 *   paranoid -1; refused with EPERM; given back when freed, even when the
 *   creator is gone (an fd passed with SCM_RIGHTS); __GFP_ACCOUNT (memcg);
 * - permissions: ENABLE of a hardware session needs CAP_PERFMON (or
 *   CAP_SYS_ADMIN) of the opener unless paranoid <= 0 (EACCES); privileged
 *   configuration keys (kernel, cr3 on Intel PT) need it at every level;
 *   backend "none" needs nothing.
 *
 * Runs as root, makes /dev/tracebuf 0666 (standing in for the udev group)
 * and forks children that become uid/gid 65534 with chosen capabilities
 * (PR_SET_KEEPCAPS + capset, raw syscalls) and a chosen RLIMIT_MEMLOCK.
 * The boundaries are found with data rings of known cost (2^n data pages
 * + 1 control page). The parameters and the device mode are restored.
 */
#include <linux/capability.h>
#include <linux/perf_event.h>
#include <grp.h>
#include <signal.h>
#include <sys/prctl.h>
#include <sys/mount.h>
#include <sys/resource.h>
#include <sys/socket.h>

#include "ptcap.h"

#ifndef CAP_PERFMON
#define CAP_PERFMON	38
#endif

#define PARAM		"/sys/module/tracebuf/parameters/"
#define NOBODY		65534
#define MAXHELD		64

static long pg;		/* PAGE_SIZE */
static long ncpu;	/* online CPUs */
static long pin0;	/* VmPin (kB) of a fresh child: 0 */

/* ---- parameters --------------------------------------------------------- */

static long read_param(const char *name)
{
	char path[128], buf[32];
	int fd;
	ssize_t n;

	snprintf(path, sizeof(path), PARAM "%s", name);
	fd = open(path, O_RDONLY);
	if (fd < 0)
		return -1000;
	n = read(fd, buf, sizeof(buf) - 1);
	close(fd);
	if (n <= 0)
		return -1000;
	buf[n] = 0;
	return strtol(buf, NULL, 10);
}

static void set_param(const char *name, long v)
{
	char path[128], val[32];

	snprintf(path, sizeof(path), PARAM "%s", name);
	snprintf(val, sizeof(val), "%ld", v);
	TBT_CHECK(write_file(path, val) == 0 && read_param(name) == v, "set %s=%ld", name, v);
}

/* The per-user allowance in pages: mlock_kb KiB per online CPU. */
static long allowance(long mlock_kb)
{
	return mlock_kb / (pg / 1024) * ncpu;
}

/* VmPin: of /proc/self/status, in kB (-1 if absent). */
static long vmpin(void)
{
	char line[256];
	long v = -1;
	FILE *f = fopen("/proc/self/status", "r");

	if (!f)
		return -1;
	while (fgets(line, sizeof(line), f))
		if (sscanf(line, "VmPin: %ld kB", &v) == 1)
			break;
	fclose(f);
	return v;
}

static long kb(long pages)
{
	return pages * (pg / 1024);
}

/* ---- who runs a child --------------------------------------------------- */

struct who {
	int uid;		/* -1: stay root */
	uint64_t caps;		/* bit n: CAP n kept (permitted and effective) */
	long memlock;		/* RLIMIT_MEMLOCK in pages; -1: leave it */
};

#define CAPB(c)	(1ULL << (c))

static const struct who unpriv = { NOBODY, 0, 0 };

static int become(const struct who *w)
{
	struct __user_cap_header_struct hdr = { _LINUX_CAPABILITY_VERSION_3, 0 };
	struct __user_cap_data_struct d[2];

	if (w->memlock >= 0) {
		struct rlimit r = { (rlim_t)(w->memlock * pg), (rlim_t)(w->memlock * pg) };

		if (setrlimit(RLIMIT_MEMLOCK, &r))
			return -1;
	}
	if (w->uid < 0)
		return 0;
	if (prctl(PR_SET_KEEPCAPS, 1, 0, 0, 0) || setgroups(0, NULL) ||
	    setresgid(w->uid, w->uid, w->uid) || setresuid(w->uid, w->uid, w->uid))
		return -1;
	memset(d, 0, sizeof(d));
	d[0].permitted = d[0].effective = (uint32_t)w->caps;
	d[1].permitted = d[1].effective = (uint32_t)(w->caps >> 32);
	if (syscall(SYS_capset, &hdr, d))
		return -1;
	/* Read back: exactly those, and no other. */
	memset(d, 0, sizeof(d));
	if (syscall(SYS_capget, &hdr, d) ||
	    (d[0].effective | (uint64_t)d[1].effective << 32) != w->caps ||
	    getuid() != (uid_t)w->uid || geteuid() != (uid_t)w->uid)
		return -1;
	return 0;
}

/*
 * A child: becomes w, runs fn, exits with its verdict. fn may call
 * hold_point() to let the parent look while it holds what it allocated.
 */
struct child {
	pid_t pid;
	int ready, go;
	const char *what;
};

static int hold_ready = -1, hold_go = -1;

static void hold_point(void)
{
	char c = 'r';

	if (write(hold_ready, &c, 1) != 1 || read(hold_go, &c, 1) != 1)
		_exit(5);
}

static void child_start(struct child *c, const struct who *w, void (*fn)(void *), void *arg,
			const char *what)
{
	int r[2], g[2];

	c->what = what;
	c->pid = -1;
	if (pipe(r) || pipe(g)) {
		TBT_CHECK(0, "%s: pipe", what);
		return;
	}
	fflush(stdout);
	c->pid = fork();
	if (c->pid == 0) {
		close(r[0]);
		close(g[1]);
		hold_ready = r[1];
		hold_go = g[0];
		tbt_failures = 0;
		if (become(w)) {
			printf("not ok: %s: cannot become uid %d caps %#llx: %s\n", what, w->uid,
			       (unsigned long long)w->caps, strerror(errno));
			_exit(2);
		}
		fn(arg);
		_exit(tbt_failures ? 1 : 0);
	}
	close(r[1]);
	close(g[0]);
	c->ready = r[0];
	c->go = g[1];
	TBT_CHECK(c->pid > 0, "%s: fork", what);
}

/* Wait until the child reached hold_point(); 0 if it exited instead. */
static int child_ready(struct child *c)
{
	char b;

	return c->pid > 0 && read(c->ready, &b, 1) == 1;
}

static void child_finish(struct child *c)
{
	char b = 'g';
	int st = -1;

	if (c->pid <= 0)
		return;
	if (write(c->go, &b, 1) != 1)
		b = 0;	/* it exited already; its status says why */
	TBT_CHECK(waitpid(c->pid, &st, 0) == c->pid && WIFEXITED(st) && WEXITSTATUS(st) == 0,
		  "%s: child status %#x", c->what, st);
	close(c->go);
	close(c->ready);
	c->pid = -1;
}

static void run_child(const struct who *w, void (*fn)(void *), void *arg, const char *what)
{
	struct child c;

	child_start(&c, w, fn, arg, what);
	child_finish(&c);
}

/* ---- data rings of known cost ------------------------------------------- */

struct held {
	int fd[MAXHELD];
	void *map[MAXHELD];
	size_t len[MAXHELD];
	int n;
};

static int open_dev(void)
{
	int fd = open(TRACEBUF_DEVICE, O_RDWR | O_CLOEXEC);

	return fd < 0 ? -errno : fd;
}

static int do_setup(int fd, const char *backend, uint64_t data_size)
{
	struct tracebuf_setup su = { .size = sizeof(su), .target = TRACEBUF_TARGET_CPU,
				     .data_size = data_size };

	snprintf(su.backend, sizeof(su.backend), "%s", backend);
	return ioctl(fd, TRACEBUF_IOC_SETUP, &su) ? -errno : 0;
}

/*
 * One "none" ring of data_pages (a power of two): data_pages + 1 pages.
 * how 0: created by SETUP.data_size; 1: by the first mmap (kept mapped).
 */
static int ring(struct held *h, long data_pages, int how)
{
	int fd, ret;
	void *p;

	if (h->n >= MAXHELD)
		return -EMFILE;
	fd = open_dev();
	if (fd < 0)
		return fd;
	ret = do_setup(fd, "none", how ? 0 : (uint64_t)(data_pages * pg));
	if (!ret && how) {
		h->len[h->n] = (size_t)(pg + 2 * data_pages * pg);
		p = mmap(NULL, h->len[h->n], PROT_READ | PROT_WRITE, MAP_SHARED, fd, 0);
		if (p == MAP_FAILED)
			ret = -errno;
		else
			h->map[h->n] = p;
	}
	if (ret) {
		close(fd);
		return ret;
	}
	h->fd[h->n++] = fd;
	return 0;
}

/*
 * Rings costing exactly 'pages' pages in all (pages 0 or >= 2): the
 * largest power of two that does not leave a single page behind, again.
 * 0, or the first failure (-errno); what was created stays in h.
 */
static int fill(struct held *h, long pages, int how)
{
	while (pages > 0) {
		long d = 1;
		int ret;

		if (pages == 1)
			return -EDOM;	/* no ring costs one page */
		while ((2 * d) + 1 <= pages)
			d *= 2;
		if (pages - (d + 1) == 1)
			d /= 2;
		ret = ring(h, d, how);
		if (ret)
			return ret;
		pages -= d + 1;
	}
	return 0;
}

static void release(struct held *h)
{
	int i;

	for (i = 0; i < h->n; i++) {
		if (h->map[i])
			munmap(h->map[i], h->len[i]);
		if (h->fd[i] >= 0)
			close(h->fd[i]);
	}
	memset(h, 0, sizeof(*h));
}

/* fill(pages) then release; 0 or -errno. */
static int fits(long pages, int how)
{
	struct held h = { .n = 0 };
	int ret = fill(&h, pages, how);

	release(&h);
	return ret;
}

/* Exactly 'pages' fit (with the caller's limits), one more does not. */
static void check_exact(long pages, int how, const char *what)
{
	int r;

	if (pages != 1) {
		r = fits(pages, how);
		TBT_CHECK(r == 0, "%s: %ld pages (%s) do not fit: %s", what, pages,
			  how ? "mmap" : "SETUP", strerror(-r));
	}
	r = fits(pages ? pages + 1 : 2, how);
	TBT_CHECK(r == -EPERM, "%s: %ld pages (%s) fit: %s", what, pages ? pages + 1 : 2,
		  how ? "mmap" : "SETUP", strerror(-r));
}

/* The largest number of pages that fit now, by bisection (0 for 0 or 1). */
static long measure(long hi)
{
	long lo = 0;

	if (fits(2, 0))
		return 0;
	lo = 2;
	while (lo < hi) {
		long mid = lo + (hi - lo + 1) / 2;

		if (fits(mid, 0) == 0)
			lo = mid;
		else
			hi = mid - 1;
	}
	return lo;
}

/* ---- hardware sessions -------------------------------------------------- */

#ifdef __aarch64__
#define HW_BACKEND	"coresight"
#else
#define HW_BACKEND	"intel_pt"
#endif

struct hw {
	int fd;
	void *map, *aux, *aux2;
	size_t map_len, aux_len;
	uint64_t aux_off;
};

/* SETUP a session on the trace backend: PT on CPU 1, CoreSight on 0-1. */
static int hw_setup(int fd)
{
	static uint64_t bits = 3;
	struct tracebuf_setup su = { .size = sizeof(su), .target = TRACEBUF_TARGET_CPU,
				     .cpu = CPU, .backend = HW_BACKEND };

#ifdef __aarch64__
	su.target = TRACEBUF_TARGET_CPUSET;
	su.cpu = 0;
	su.cpuset_ptr = (uintptr_t)&bits;
	su.cpuset_size = sizeof(bits);
#else
	(void)bits;
#endif
	return ioctl(fd, TRACEBUF_IOC_SETUP, &su) ? -errno : 0;
}

static int hw_map(struct hw *h, long data_pages)
{
	void *p;

	h->map_len = (size_t)(pg + 2 * data_pages * pg);
	p = mmap(NULL, h->map_len, PROT_READ | PROT_WRITE, MAP_SHARED, h->fd, 0);
	if (p == MAP_FAILED)
		return -errno;
	h->map = p;
	return 0;
}

/* Open and SETUP (fd < 0) or take fd, and map data_pages (0: no map). */
static int hw_open(struct hw *h, int fd, long data_pages)
{
	int ret;

	memset(h, 0, sizeof(*h));
	h->fd = fd;
	if (fd < 0) {
		h->fd = open_dev();
		if (h->fd < 0)
			return h->fd;
		ret = hw_setup(h->fd);
		if (ret)
			return ret;
	}
	return data_pages ? hw_map(h, data_pages) : 0;
}

static void *aux_mmap(struct hw *h)
{
	void *p = mmap(NULL, h->aux_len, PROT_READ | PROT_WRITE, MAP_SHARED, h->fd,
		       (off_t)h->aux_off);

	return p == MAP_FAILED ? NULL : p;
}

static int hw_aux(struct hw *h, long aux_pages)
{
	struct tracebuf_ctl *ctl = h->map;

	h->aux_off = h->map_len;
	h->aux_len = (size_t)(aux_pages * pg);
	ctl->aux_offset = h->aux_off;
	ctl->aux_size = h->aux_len;
	h->aux = aux_mmap(h);
	return h->aux ? 0 : -errno;
}

static void hw_close(struct hw *h)
{
	if (h->aux2)
		munmap(h->aux2, h->aux_len);
	if (h->aux)
		munmap(h->aux, h->aux_len);
	if (h->map)
		munmap(h->map, h->map_len);
	if (h->fd >= 0)
		close(h->fd);
	memset(h, 0, sizeof(*h));
	h->fd = -1;
}

static int enable(int fd)
{
	return ioctl(fd, TRACEBUF_IOC_ENABLE) ? -errno : 0;
}

/* SET_DRV_CONFIG: 0 or -errno; *reason the err_reason. */
static int set_cfg(int fd, const char *str, unsigned int *reason)
{
	struct tracebuf_drv_config c = { .size = sizeof(c), .config_ptr = (uintptr_t)str,
					 .config_len = (uint32_t)strlen(str) + 1 };
	int ret = ioctl(fd, TRACEBUF_IOC_SET_DRV_CONFIG, &c) ? -errno : 0;

	*reason = c.err_reason;
	return ret;
}

/* ---- SCM_RIGHTS --------------------------------------------------------- */

static int send_fds(int sock, const int *fds, int n)
{
	char b = 'f';
	struct iovec iov = { &b, 1 };
	union {
		struct cmsghdr h;
		char buf[CMSG_SPACE(sizeof(int) * 8)];
	} u;
	struct msghdr m = { .msg_iov = &iov, .msg_iovlen = 1, .msg_control = u.buf,
			    .msg_controllen = CMSG_SPACE(sizeof(int) * (size_t)n) };
	struct cmsghdr *c = CMSG_FIRSTHDR(&m);

	memset(&u, 0, sizeof(u));
	c->cmsg_level = SOL_SOCKET;
	c->cmsg_type = SCM_RIGHTS;
	c->cmsg_len = CMSG_LEN(sizeof(int) * (size_t)n);
	memcpy(CMSG_DATA(c), fds, sizeof(int) * (size_t)n);
	return sendmsg(sock, &m, 0) == 1 ? 0 : -1;
}

static int recv_fds(int sock, int *fds, int n)
{
	char b;
	struct iovec iov = { &b, 1 };
	union {
		struct cmsghdr h;
		char buf[CMSG_SPACE(sizeof(int) * 8)];
	} u;
	struct msghdr m = { .msg_iov = &iov, .msg_iovlen = 1, .msg_control = u.buf,
			    .msg_controllen = sizeof(u.buf) };
	struct cmsghdr *c;

	if (recvmsg(sock, &m, MSG_CMSG_CLOEXEC) != 1)
		return -1;
	c = CMSG_FIRSTHDR(&m);
	if (!c || c->cmsg_type != SCM_RIGHTS || c->cmsg_len != CMSG_LEN(sizeof(int) * (size_t)n))
		return -1;
	memcpy(fds, CMSG_DATA(c), sizeof(int) * (size_t)n);
	return 0;
}

/*
 * Handing fds from a child to this (root) process with the child gone:
 * parked in flight in an AF_UNIX socket (SCM_RIGHTS, nobody receives
 * them), or, on kernels without CONFIG_NET (the debug kernels), taken
 * with pidfd_getfd() while the child waits.
 */
#ifndef SYS_pidfd_open
#define SYS_pidfd_open		434
#endif
#ifndef SYS_pidfd_getfd
#define SYS_pidfd_getfd		438
#endif

struct pass {
	int unix_ok;
	int sv[2];		/* unix_ok: the socket pair */
	int nums[2];		/* else: the child writes its fd numbers here */
	int n;
};

static int pass_init(struct pass *p, int n)
{
	p->n = n;
	p->unix_ok = socketpair(AF_UNIX, SOCK_STREAM, 0, p->sv) == 0;
	if (!p->unix_ok)
		printf("no AF_UNIX (%s): fds taken with pidfd_getfd instead of SCM_RIGHTS\n",
		       strerror(errno));
	return p->unix_ok ? 0 : pipe(p->nums);
}

/* In the child: send fds[n] (SCM_RIGHTS) or offer them and wait to be robbed. */
static int pass_send(struct pass *p, const int *fds)
{
	if (p->unix_ok)
		return send_fds(p->sv[1], fds, p->n);
	if (write(p->nums[1], fds, sizeof(int) * (size_t)p->n) != (ssize_t)(sizeof(int) * p->n))
		return -1;
	hold_point();
	return 0;
}

/* In the parent, with c the sending child: take its fds (pidfd only). */
static int pass_take(struct pass *p, struct child *c, int *fds)
{
	int pidfd, i;

	if (p->unix_ok)
		return 0;	/* they stay in flight; pass_recv() takes them */
	if (!child_ready(c) ||
	    read(p->nums[0], fds, sizeof(int) * (size_t)p->n) != (ssize_t)(sizeof(int) * p->n))
		return -1;
	pidfd = (int)syscall(SYS_pidfd_open, c->pid, 0);
	if (pidfd < 0)
		return -1;
	for (i = 0; i < p->n; i++)
		fds[i] = (int)syscall(SYS_pidfd_getfd, pidfd, fds[i], 0);
	close(pidfd);
	for (i = 0; i < p->n; i++)
		if (fds[i] < 0)
			return -1;
	return 0;
}

/* In the parent, after the child exited: the fds themselves (SCM_RIGHTS). */
static int pass_recv(struct pass *p, int *fds)
{
	return p->unix_ok ? recv_fds(p->sv[0], fds, p->n) : 0;
}

static void pass_done(struct pass *p)
{
	if (p->unix_ok) {
		close(p->sv[0]);
		close(p->sv[1]);
	} else {
		close(p->nums[0]);
		close(p->nums[1]);
	}
}

/* ======================================================================== */
/* Memory                                                                   */
/* ======================================================================== */

static long A;		/* the allowance at the default mlock_kb */

/* Exactly the allowance, with rings from SETUP and from mmap. */
static void c_exact(void *arg)
{
	long pages = *(long *)arg;

	TBT_CHECK(vmpin() == pin0, "VmPin %ld kB at start", vmpin());
	check_exact(pages, 0, "allowance");
	check_exact(pages, 1, "allowance");
	TBT_CHECK(vmpin() == pin0, "VmPin %ld kB: RLIMIT_MEMLOCK is 0, nothing may pin",
		  vmpin());
}

static void expect_avail(long pages, const char *what)
{
	printf("%s: %ld pages available\n", what, pages);
	run_child(&unpriv, c_exact, &pages, what);
}

/*
 * RLIMIT_MEMLOCK of N pages: exactly N pages more fit, and VmPin grows by
 * exactly what went over the allowance; all of it comes back at close.
 */
static void c_rlimit(void *arg)
{
	long n = *(long *)arg;
	struct held h = { .n = 0 };
	int r;

	r = fill(&h, A, 0);
	TBT_CHECK(r == 0 && vmpin() == pin0, "the allowance: %s, VmPin %ld", strerror(-r),
		  vmpin());
	r = fill(&h, n, 1);
	TBT_CHECK(r == 0, "%ld pages over the allowance with RLIMIT_MEMLOCK %ld pages: %s", n,
		  n, strerror(-r));
	TBT_CHECK(vmpin() == pin0 + kb(n), "VmPin %ld kB, want %ld", vmpin(), pin0 + kb(n));
	r = ring(&h, 1, 0);
	TBT_CHECK(r == -EPERM, "past RLIMIT_MEMLOCK (SETUP): %s", strerror(-r));
	r = ring(&h, 1, 1);
	TBT_CHECK(r == -EPERM, "past RLIMIT_MEMLOCK (mmap): %s", strerror(-r));
	TBT_CHECK(vmpin() == pin0 + kb(n), "VmPin %ld kB after refusals, want %ld", vmpin(),
		  pin0 + kb(n));
	release(&h);
	TBT_CHECK(vmpin() == pin0, "VmPin %ld kB after close, want %ld", vmpin(), pin0);
	/* One page over the allowance and the rlimit together: refused. */
	r = fill(&h, A + n + 1, 0);
	TBT_CHECK(r == -EPERM, "allowance + RLIMIT_MEMLOCK + 1 page: %s", strerror(-r));
	release(&h);
	TBT_CHECK(vmpin() == pin0, "VmPin %ld kB after close, want %ld", vmpin(), pin0);
}

/* CAP_IPC_LOCK: over the rlimit; allowance first, excess to VmPin. */
static void c_ipc_lock(void *arg)
{
	long n = *(long *)arg;
	struct held h = { .n = 0 };
	int r;

	r = fill(&h, A + n, 0);
	TBT_CHECK(r == 0, "CAP_IPC_LOCK, RLIMIT_MEMLOCK 0: %ld pages: %s", A + n, strerror(-r));
	TBT_CHECK(vmpin() == pin0 + kb(n), "VmPin %ld kB, want %ld", vmpin(), pin0 + kb(n));
	hold_point();
	release(&h);
	TBT_CHECK(vmpin() == pin0, "VmPin %ld kB after close, want %ld", vmpin(), pin0);
}

static void c_none_fit(void *arg)
{
	int r = fits(2, *(int *)arg);

	TBT_CHECK(r == -EPERM, "the allowance is in use: 2 pages: %s", strerror(-r));
}

/* A second mapping of an existing ring or AUX area charges nothing. */
static void c_remap(void *arg)
{
	struct held h = { .n = 0 };
	void *p2;
	int r;

	(void)arg;
	r = ring(&h, 64, 1);
	TBT_CHECK(r == 0, "ring: %s", strerror(-r));
	if (r)
		return;
	r = fill(&h, A - 65, 0);
	TBT_CHECK(r == 0, "the rest of the allowance: %s", strerror(-r));
	/* Full: a second mapping of the same ring is not a new charge. */
	p2 = mmap(NULL, h.len[0], PROT_READ, MAP_SHARED, h.fd[0], 0);
	TBT_CHECK(p2 != MAP_FAILED, "second mapping of a ring at a full allowance: %s",
		  strerror(errno));
	r = fits(2, 0);
	TBT_CHECK(r == -EPERM, "still full: %s", strerror(-r));
	if (p2 != MAP_FAILED)
		munmap(p2, h.len[0]);
	/* munmap does not free the ring (its file does): still charged. */
	munmap(h.map[0], h.len[0]);
	h.map[0] = NULL;
	r = fits(2, 0);
	TBT_CHECK(r == -EPERM, "ring unmapped, fd open: still charged: %s", strerror(-r));
	close(h.fd[0]);
	h.fd[0] = -1;
	r = fits(65, 0);
	TBT_CHECK(r == 0, "ring closed: its 65 pages are back: %s", strerror(-r));
	r = fits(66, 0);
	TBT_CHECK(r == -EPERM, "ring closed: 66 pages: %s", strerror(-r));
	release(&h);
}

/* Refusals charge nothing: after many, the whole allowance is there. */
static void c_refusals(void *arg)
{
	struct held h = { .n = 0 };
	int i, r;

	(void)arg;
	r = fill(&h, A, 0);
	TBT_CHECK(r == 0, "allowance: %s", strerror(-r));
	for (i = 0; i < 20; i++) {
		r = ring(&h, 1 << (i % 6), i % 2);
		TBT_CHECK(r == -EPERM, "refusal %d: %s", i, strerror(-r));
	}
	release(&h);
	check_exact(A, 0, "after 20 refusals");
}

struct scm {
	struct pass pass;
	long pin;		/* pages over the allowance */
};

/* Creates rings (one mapped), passes them, exits: the charges stay with them. */
static void c_scm_creator(void *arg)
{
	struct scm *s = arg;
	struct held h = { .n = 0 }, keep = { .n = 0 };
	int r;

	r = fill(&h, A - 33 - 65, 0);
	TBT_CHECK(r == 0, "fill: %s", strerror(-r));
	r = ring(&keep, 32, 0);
	TBT_CHECK(r == 0, "ring by SETUP: %s", strerror(-r));
	r = ring(&keep, 64, 1);
	TBT_CHECK(r == 0, "ring by mmap: %s", strerror(-r));
	r = ring(&keep, s->pin - 1, 0);
	TBT_CHECK(r == 0, "ring over the allowance: %s", strerror(-r));
	TBT_CHECK(vmpin() == pin0 + kb(s->pin), "creator VmPin %ld, want %ld", vmpin(),
		  pin0 + kb(s->pin));
	TBT_CHECK(keep.n == 3 && pass_send(&s->pass, keep.fd) == 0, "pass the fds");
	/* exit: the fill rings are freed, the mapped one is unmapped */
}

/*
 * Sessions whose creator is gone, parked in an SCM_RIGHTS message that
 * nobody received (or held by this process, without AF_UNIX): their
 * pages stay charged to the creator's user (and mm, for the part over the
 * allowance) until the last fd goes.
 */
static void scm_rights(void)
{
	struct who creator = { NOBODY, 0, 0 };
	struct scm s = { .pin = 5 };
	struct child c;
	int fds[3] = { -1, -1, -1 }, i, ok;

	creator.memlock = s.pin;
	if (pass_init(&s.pass, 3)) {
		TBT_CHECK(0, "pass_init");
		return;
	}
	child_start(&c, &creator, c_scm_creator, &s, "fd passing creator");
	ok = pass_take(&s.pass, &c, fds) == 0;
	TBT_CHECK(ok, "take the fds: %s", strerror(errno));
	child_finish(&c);
	/* The creator exited: its other rings came back, the passed ones did not. */
	expect_avail(A - 33 - 65, s.pass.unix_ok ? "fds in flight (SCM_RIGHTS), creator gone" :
		     "fds taken (pidfd_getfd), creator gone");
	if (s.pass.unix_ok) {
		/* Received by root now: still charged to the creator's user. */
		ok = pass_recv(&s.pass, fds) == 0;
		TBT_CHECK(ok, "receive the fds");
		expect_avail(A - 33 - 65, "fds received by another user");
	}
	for (i = 0; i < 3; i++)
		if (fds[i] >= 0)
			close(fds[i]);
	expect_avail(A, "passed fds closed");
	if (s.pass.unix_ok) {
		/* Parked again, and the socket closed with them in flight. */
		pass_done(&s.pass);
		TBT_CHECK(pass_init(&s.pass, 3) == 0 && s.pass.unix_ok, "socketpair again");
		run_child(&creator, c_scm_creator, &s, "fd passing creator, never received");
		expect_avail(A - 33 - 65, "fds in flight, creator gone");
	}
	pass_done(&s.pass);
	expect_avail(A, "socket closed with the fds in flight");
}

/*
 * perf's ring buffers and tracebuf's have separate per-user allowances
 * (perf's perf_mlock is perf's own): what perf pins leaves tracebuf's
 * allowance whole, and the reverse (with perf_event_mlock_kb at 516 too:
 * *arg).
 */
static void c_perf_shared(void *arg)
{
	int reverse = *(int *)arg;
	struct perf_event_attr a;
	struct held h = { .n = 0 };
	void *p;
	int pfd, r;

	memset(&a, 0, sizeof(a));
	a.size = sizeof(a);
	a.type = PERF_TYPE_SOFTWARE;
	a.config = PERF_COUNT_SW_DUMMY;
	a.disabled = 1;
	a.exclude_kernel = 1;
	pfd = (int)syscall(SYS_perf_event_open, &a, 0, -1, -1, PERF_FLAG_FD_CLOEXEC);
	TBT_CHECK(pfd >= 0, "perf_event_open: %s", strerror(errno));
	if (pfd < 0)
		return;
	r = fill(&h, A - 9, 0);
	TBT_CHECK(r == 0, "the allowance but 9 pages: %s", strerror(-r));
	/* perf charges its 8 data pages and a control page to its own count. */
	p = mmap(NULL, (size_t)(9 * pg), PROT_READ | PROT_WRITE, MAP_SHARED, pfd, 0);
	TBT_CHECK(p != MAP_FAILED, "perf mmap of 9 pages: %s", strerror(errno));
	r = fits(9, 0);
	TBT_CHECK(r == 0, "perf's pages taken from tracebuf's allowance: the last 9 pages: %s",
		  strerror(-r));
	r = fits(10, 0);
	TBT_CHECK(r == -EPERM, "the allowance and one page more: %s", strerror(-r));
	if (p != MAP_FAILED)
		munmap(p, (size_t)(9 * pg));
	if (reverse) {
		r = fill(&h, 9, 0);
		TBT_CHECK(r == 0, "the whole allowance: %s", strerror(-r));
		p = mmap(NULL, (size_t)(9 * pg), PROT_READ | PROT_WRITE, MAP_SHARED, pfd, 0);
		TBT_CHECK(p != MAP_FAILED,
			  "tracebuf's pages taken from perf's allowance: perf mmap: %s",
			  p == MAP_FAILED ? strerror(errno) : "mapped");
		if (p != MAP_FAILED)
			munmap(p, (size_t)(9 * pg));
	}
	release(&h);
	close(pfd);
}

static void perf_shared(void)
{
	/*
	 * CAP_SYS_ADMIN too: Debian's perf_event_paranoid 3 wants it for any
	 * perf_event_open(). Neither lifts a memory limit (CAP_IPC_LOCK does).
	 */
	const struct who perfmon = { NOBODY, CAPB(CAP_PERFMON) | CAPB(CAP_SYS_ADMIN), 0 };
	char buf[32] = "";
	int fd = open("/proc/sys/kernel/perf_event_mlock_kb", O_RDONLY), reverse;
	ssize_t n = fd >= 0 ? read(fd, buf, sizeof(buf) - 1) : -1;

	if (fd >= 0)
		close(fd);
	buf[n > 0 ? n : 0] = 0;
	reverse = atoi(buf) == 516;
	printf("perf_event_mlock_kb %d: %schecked both ways\n", atoi(buf), reverse ? "" : "not ");
	run_child(&perfmon, c_perf_shared, &reverse, "perf and tracebuf have separate allowances");
	expect_avail(A, "after perf");
}

/* mlock_kb=0: nothing without RLIMIT_MEMLOCK; every page is in VmPin. */
static void c_zero(void *arg)
{
	struct held h = { .n = 0 };
	int r;

	(void)arg;
	r = fill(&h, 9, 1);
	TBT_CHECK(r == 0, "mlock_kb=0, RLIMIT_MEMLOCK 9 pages: %s", strerror(-r));
	TBT_CHECK(vmpin() == pin0 + kb(9), "VmPin %ld kB, want %ld", vmpin(), pin0 + kb(9));
	r = ring(&h, 1, 0);
	TBT_CHECK(r == -EPERM, "one ring more: %s", strerror(-r));
	release(&h);
	TBT_CHECK(vmpin() == pin0, "VmPin %ld after close", vmpin());
}

static void c_hold_allowance(void *arg)
{
	struct held h = { .n = 0 };
	int r = fill(&h, *(long *)arg, 0);

	TBT_CHECK(r == 0, "fill: %s", strerror(-r));
	hold_point();
	release(&h);
}

static void mlock_kb_changes(void)
{
	struct who zero = { NOBODY, 0, 9 };
	long kbp = pg / 1024, big = 2 * 516, small = 16 * kbp;
	struct child c;

	set_param("mlock_kb", big);
	expect_avail(allowance(big), "mlock_kb doubled");
	set_param("mlock_kb", small);
	expect_avail(allowance(small), "mlock_kb small");
	set_param("mlock_kb", 0);
	expect_avail(0, "mlock_kb 0");
	run_child(&zero, c_zero, NULL, "mlock_kb 0, RLIMIT_MEMLOCK");
	/* Charged under one allowance, freed under another: given back exactly. */
	set_param("mlock_kb", 516);
	child_start(&c, &unpriv, c_hold_allowance, &A, "hold the allowance");
	TBT_CHECK(child_ready(&c), "holder");
	set_param("mlock_kb", small);
	child_finish(&c);
	set_param("mlock_kb", 516);
	expect_avail(A, "charged at 516, freed at a lower mlock_kb");
}

static void memory(void)
{
	long n = 7, big = 40;
	struct who lim = { NOBODY, 0, 7 };
	struct who ipc = { NOBODY, CAPB(CAP_IPC_LOCK), 0 };
	struct child c;
	int how;

	expect_avail(A, "unprivileged, RLIMIT_MEMLOCK 0");
	run_child(&lim, c_rlimit, &n, "RLIMIT_MEMLOCK 7 pages");
	expect_avail(A, "after the rlimit child");

	child_start(&c, &ipc, c_ipc_lock, &big, "CAP_IPC_LOCK");
	TBT_CHECK(child_ready(&c), "CAP_IPC_LOCK holder");
	/* The allowance is the user's: charged, another process of it gets none. */
	how = 0;
	run_child(&unpriv, c_none_fit, &how, "allowance used by a CAP_IPC_LOCK process");
	child_finish(&c);
	expect_avail(A, "after CAP_IPC_LOCK");

	/* paranoid -1: RLIMIT_MEMLOCK not enforced; the allowance still counts. */
	set_param("paranoid", -1);
	run_child(&unpriv, c_ipc_lock, &big, "paranoid -1, RLIMIT_MEMLOCK 0");
	set_param("paranoid", 2);
	expect_avail(A, "after paranoid -1");

	run_child(&unpriv, c_remap, NULL, "second mappings");
	run_child(&unpriv, c_refusals, NULL, "refusals");
	expect_avail(A, "after refusals");
	scm_rights();
	perf_shared();
	mlock_kb_changes();
}

/* ---- the AUX area ------------------------------------------------------- */

#define AUX_DATA	16	/* data pages of the hardware session: 17 charged */
#define AUX_PAGES	16

static long aux_cost;	/* AUX_PAGES + the backend's table pages, measured */

/* Measure what the AUX area costs: the allowance it takes. */
static void c_aux_measure(void *arg)
{
	struct hw h;
	long left;
	int r;

	(void)arg;
	r = hw_open(&h, -1, AUX_DATA);
	TBT_CHECK(r == 0, "hardware session: %s", strerror(-r));
	if (r)
		return;
	left = measure(A);
	TBT_CHECK(left == A - (AUX_DATA + 1), "data ring of %d pages took %ld, want %d",
		  AUX_DATA, A - left, AUX_DATA + 1);
	r = hw_aux(&h, AUX_PAGES);
	TBT_CHECK(r == 0, "AUX mmap: %s", strerror(-r));
	left = measure(A);
	aux_cost = A - (AUX_DATA + 1) - left;
	printf("AUX area of %d pages: %ld pages charged (%ld table pages)\n", AUX_PAGES,
	       aux_cost, aux_cost - AUX_PAGES);
	/* The pages and at least one output table (ToPA / scatter-gather). */
	TBT_CHECK(aux_cost > AUX_PAGES && aux_cost <= AUX_PAGES + 8,
		  "AUX of %d pages charged %ld pages", AUX_PAGES, aux_cost);
	/* A second mapping of the AUX area: no new charge. */
	h.aux2 = aux_mmap(&h);
	TBT_CHECK(h.aux2 != NULL, "second AUX mapping: %s", strerror(errno));
	TBT_CHECK(measure(A) == left, "second AUX mapping charged again");
	munmap(h.aux, h.aux_len);
	h.aux = NULL;
	TBT_CHECK(measure(A) == left, "one of two AUX mappings gone: uncharged too early");
	munmap(h.aux2, h.aux_len);
	h.aux2 = NULL;
	TBT_CHECK(measure(A) == A - (AUX_DATA + 1), "last AUX mapping gone: not given back");
	hw_close(&h);
	if (write(hold_ready, &aux_cost, sizeof(aux_cost)) != sizeof(aux_cost))
		_exit(6);
}

/* The AUX mmap at the boundary: extra = 0 fits exactly, 1 is one page over. */
static void c_aux_boundary(void *arg)
{
	long over = *(long *)arg;
	struct held fillr = { .n = 0 };
	struct hw h;
	int r;

	r = hw_open(&h, -1, AUX_DATA);
	TBT_CHECK(r == 0, "hardware session: %s", strerror(-r));
	if (r)
		return;
	r = fill(&fillr, A - (AUX_DATA + 1) - aux_cost + over, 0);
	TBT_CHECK(r == 0, "fill: %s", strerror(-r));
	r = hw_aux(&h, AUX_PAGES);
	if (over)
		TBT_CHECK(r == -EPERM, "AUX mmap one page over the allowance: %s", strerror(-r));
	else
		TBT_CHECK(r == 0, "AUX mmap at exactly the allowance: %s", strerror(-r));
	TBT_CHECK(vmpin() == pin0, "VmPin %ld", vmpin());
	hw_close(&h);
	release(&fillr);
}

/* Over the allowance with RLIMIT_MEMLOCK: the AUX pages in VmPin, given back at munmap. */
static void c_aux_pinned(void *arg)
{
	struct held fillr = { .n = 0 };
	struct hw h;
	int r;

	(void)arg;
	r = hw_open(&h, -1, AUX_DATA);
	TBT_CHECK(r == 0, "hardware session: %s", strerror(-r));
	if (r)
		return;
	r = fill(&fillr, A - (AUX_DATA + 1), 0);
	TBT_CHECK(r == 0, "fill: %s", strerror(-r));
	r = hw_aux(&h, AUX_PAGES);
	TBT_CHECK(r == 0, "AUX mmap within RLIMIT_MEMLOCK: %s", strerror(-r));
	TBT_CHECK(vmpin() == pin0 + kb(aux_cost), "VmPin %ld kB, want %ld", vmpin(),
		  pin0 + kb(aux_cost));
	munmap(h.aux, h.aux_len);
	h.aux = NULL;
	TBT_CHECK(vmpin() == pin0, "VmPin %ld kB after the AUX munmap, want %ld", vmpin(), pin0);
	hw_close(&h);
	release(&fillr);
}

static void aux_memory(void)
{
	struct child c;
	long over;

	child_start(&c, &unpriv, c_aux_measure, NULL, "AUX charge");
	if (read(c.ready, &aux_cost, sizeof(aux_cost)) != sizeof(aux_cost))
		aux_cost = 0;
	child_finish(&c);
	if (aux_cost <= AUX_PAGES)
		return;
	over = 0;
	run_child(&unpriv, c_aux_boundary, &over, "AUX at the allowance");
	over = 1;
	run_child(&unpriv, c_aux_boundary, &over, "AUX one page over");
	{
		struct who lim = { NOBODY, 0, aux_cost };

		run_child(&lim, c_aux_pinned, NULL, "AUX over the allowance, in RLIMIT_MEMLOCK");
	}
	expect_avail(A, "after the AUX tests");
}

/* ---- memcg -------------------------------------------------------------- */

#define CG	"/sys/fs/cgroup"
#define CGT	CG "/tb_limits"

static long cg_current(void)
{
	char buf[64];
	int fd = open(CGT "/memory.current", O_RDONLY);
	ssize_t n;

	if (fd < 0)
		return -1;
	n = read(fd, buf, sizeof(buf) - 1);
	close(fd);
	if (n <= 0)
		return -1;
	buf[n] = 0;
	return strtol(buf, NULL, 10);
}

static void c_memcg(void *arg)
{
	char pid[32];
	struct held h = { .n = 0 };
	long before, after;
	int r;

	(void)arg;
	snprintf(pid, sizeof(pid), "%d", (int)getpid());
	TBT_CHECK(write_file(CGT "/cgroup.procs", pid) == 0, "join the cgroup");
	before = cg_current();
	r = ring(&h, 1024, 0);		/* 4 MiB on 4 KiB pages */
	after = cg_current();
	TBT_CHECK(r == 0, "root, 1024-page ring: %s", strerror(-r));
	printf("memcg: memory.current %ld -> %ld\n", before, after);
	TBT_CHECK(after - before >= 1024 * pg, "the ring's pages are not charged to the memcg "
		  "(__GFP_ACCOUNT): +%ld bytes", after - before);
	release(&h);
}

static void memcg(void)
{
	const struct who root = { -1, 0, -1 };

	if (access(CG "/cgroup.controllers", F_OK))
		mount("none", CG, "cgroup2", 0, NULL);
	if (access(CG "/cgroup.controllers", F_OK) ||
	    write_file(CG "/cgroup.subtree_control", "+memory") ||
	    (mkdir(CGT, 0755) && errno != EEXIST) || access(CGT "/memory.current", F_OK)) {
		printf("memcg: no cgroup2 memory controller here: not checked\n");
		return;
	}
	run_child(&root, c_memcg, NULL, "memcg");
	rmdir(CGT);
}

/* ======================================================================== */
/* Permissions                                                              */
/* ======================================================================== */

/* A session opened by this child: SETUP, map and the AUX area always work. */
static void c_enable(void *arg)
{
	int want = *(int *)arg;
	struct hw h;
	int r;

	r = hw_open(&h, -1, AUX_DATA);
	TBT_CHECK(r == 0, "SETUP and map: %s", strerror(-r));
	if (r)
		return;
	r = hw_aux(&h, AUX_PAGES);
	TBT_CHECK(r == 0, "AUX mmap: %s", strerror(-r));
	r = enable(h.fd);
	TBT_CHECK(r == want, "ENABLE: %d (%s), want %d", r, strerror(-r), want);
	if (!r)
		TBT_CHECK(ioctl(h.fd, TRACEBUF_IOC_DISABLE) == 0, "DISABLE");
	/* Refused: nothing changed; the session is still usable. */
	if (r == -EACCES)
		TBT_CHECK(!(((struct tracebuf_ctl *)h.map)->flags & TRACEBUF_CTL_F_ENABLED),
			  "ENABLED flag set after a refusal");
	hw_close(&h);
}

/* An fd from the parent (opened by root): map, enable, kernel=1. */
static int parent_fd = -1;

static void c_enable_inherited(void *arg)
{
	unsigned int why;
	struct hw h;
	int r;

	(void)arg;
	r = hw_open(&h, parent_fd, AUX_DATA);
	TBT_CHECK(r == 0, "map a root-opened session: %s", strerror(-r));
	if (r)
		return;
	TBT_CHECK(hw_aux(&h, AUX_PAGES) == 0, "AUX mmap");
	r = enable(h.fd);
	TBT_CHECK(r == 0, "ENABLE of a root-opened session by uid %d: %s", NOBODY, strerror(-r));
	if (!r)
		TBT_CHECK(ioctl(h.fd, TRACEBUF_IOC_DISABLE) == 0, "DISABLE");
	r = set_cfg(h.fd, "kernel=1", &why);
	TBT_CHECK(r == 0, "kernel=1 on a root-opened session: %s (reason %u)", strerror(-r), why);
	hw_close(&h);
}

static void c_open_and_pass(void *arg)
{
	int fd = open_dev();

	TBT_CHECK(fd >= 0 && hw_setup(fd) == 0, "open and SETUP: %s", strerror(errno));
	TBT_CHECK(pass_send(arg, &fd) == 0, "pass the fd");
}

/* GET_DRV_CONFIG into buf: 0 or -errno. */
static int get_cfg(int fd, char *buf, size_t len)
{
	struct tracebuf_drv_config c = { .size = sizeof(c), .config_ptr = (uintptr_t)buf,
					 .config_len = (uint32_t)len };

	return ioctl(fd, TRACEBUF_IOC_GET_DRV_CONFIG, &c) ? -errno : 0;
}

/* A physical address in a canonical configuration: cr3=<number>. */
static int shows_cr3(const char *text)
{
	const char *p = strstr(text, "cr3=");

	return p && p[4] >= '0' && p[4] <= '9';
}

/*
 * Privileged keys: refused (EACCES, PERMISSION) to an opener without
 * CAP_PERFMON, and nothing of them shows: GET_DRV_CONFIG and the CONFIG
 * records never carry a CR3 (a physical address). With CAP_PERFMON,
 * cr3=current resolves to a number, in both.
 */
static void c_keys(void *arg)
{
	static const char *const priv[] = {
		"kernel=1", "user=1,kernel=1",
#ifndef __aarch64__
		"cr3=current", "cr3=0x1000", "kernel=0,cr3=0x2000",
#endif
		NULL };
	static const char *const ok[] = { "kernel=0", "user=1",
#ifndef __aarch64__
		"cr3=off", "cr3=0",
#endif
		NULL };
	int allowed = *(int *)arg, i, r, sets = 0, configs = 0, phys = 0;
	struct tracebuf_session s;
	const struct tracebuf_record *rec;
	char text[TRACEBUF_DRV_CONFIG_MAX], last[TRACEBUF_DRV_CONFIG_MAX] = "";
	unsigned int why;

	TBT_CHECK(tracebuf_open(&s, 0) == 0, "open");
	r = hw_setup(s.fd);
	TBT_CHECK(r == 0, "SETUP: %s", strerror(-r));
	r = tracebuf_map(&s, 16 * pg, 0);
	TBT_CHECK(r == 0, "map: %s", strerror(-r));
	if (r) {
		tracebuf_close(&s);
		return;
	}
	for (i = 0; priv[i]; i++) {
		r = set_cfg(s.fd, priv[i], &why);
		sets += r == 0;
		if (allowed)
			TBT_CHECK(r == 0, "%s with CAP_PERFMON: %s", priv[i], strerror(-r));
		else
			TBT_CHECK(r == -EACCES && why == TRACEBUF_CFG_PERMISSION,
				  "%s without CAP_PERFMON: %d (%s), reason %u", priv[i], r,
				  strerror(-r), why);
	}
	for (i = 0; ok[i]; i++) {
		r = set_cfg(s.fd, ok[i], &why);
		sets += r == 0;
		TBT_CHECK(r == 0, "%s: %s", ok[i], strerror(-r));
	}
#ifndef __aarch64__
	if (allowed) {
		r = set_cfg(s.fd, "cr3=current", &why);
		sets += r == 0;
		TBT_CHECK(r == 0, "cr3=current with CAP_PERFMON: %s", strerror(-r));
	}
#endif
	r = get_cfg(s.fd, text, sizeof(text));
	TBT_CHECK(r == 0, "GET_DRV_CONFIG: %s", strerror(-r));
	while ((rec = tracebuf_peek(&s)) != NULL) {
		if (rec->hdr.type == TRACEBUF_REC_CONFIG) {
			const struct tracebuf_rec_config *c = (const void *)rec;

			configs++;
			snprintf(last, sizeof(last), "%.*s", (int)c->len, (const char *)(c + 1));
			phys += shows_cr3(last);
		}
		tracebuf_advance(&s, rec);
	}
	/* One CONFIG record per successful SET, none for a refusal. */
	TBT_CHECK(configs == sets, "%d CONFIG records for %d successful SET_DRV_CONFIG", configs,
		  sets);
	TBT_CHECK(!strcmp(last, text), "last CONFIG record '%s', GET_DRV_CONFIG '%s'", last, text);
#ifndef __aarch64__
	if (allowed) {
		TBT_CHECK(shows_cr3(text) && !strstr(text, "cr3=0,") && !strstr(text, "cr3=current"),
			  "cr3=current with CAP_PERFMON: GET_DRV_CONFIG '%s'", text);
	} else {
		TBT_CHECK(strstr(text, "cr3=off") != NULL, "GET_DRV_CONFIG '%s'", text);
		TBT_CHECK(!shows_cr3(text) && !phys,
			  "a CR3 shown to an opener without CAP_PERFMON: '%s', %d records", text,
			  phys);
	}
#else
	(void)phys;
#endif
	tracebuf_close(&s);
}

/* Backend "none" needs no capability: SETUP, map, markers; ENABLE: ENODEV. */
static void c_none(void *arg)
{
	struct tracebuf_session s;
	const struct tracebuf_record *r;
	int ret, found = 0;

	(void)arg;
	TBT_CHECK(tracebuf_open(&s, 0) == 0, "open");
	ret = do_setup(s.fd, "none", 0);
	TBT_CHECK(ret == 0, "SETUP none: %s", strerror(-ret));
	ret = tracebuf_map(&s, 4 * pg, 0);
	TBT_CHECK(ret == 0, "map: %s", strerror(-ret));
	if (ret == 0) {
		ret = tracebuf_user_marker(&s, 0x1234, "hi", 2);
		TBT_CHECK(ret == 0, "marker: %s", strerror(-ret));
		while ((r = tracebuf_peek(&s)) != NULL) {
			found += r->hdr.type == TRACEBUF_REC_USER;
			tracebuf_advance(&s, r);
		}
		TBT_CHECK(found == 1, "marker records: %d", found);
	}
	TBT_ERRNO(ioctl(s.fd, TRACEBUF_IOC_ENABLE), ENODEV);
	tracebuf_close(&s);
}

static void permissions(void)
{
	static const struct { int paranoid, want; } lv[] = {
		{ 2, -EACCES }, { 1, -EACCES }, { 3, -EACCES }, { 0, 0 }, { -1, 0 },
	};
	const struct who perfmon = { NOBODY, CAPB(CAP_PERFMON), 0 };
	const struct who sysadmin = { NOBODY, CAPB(CAP_SYS_ADMIN), 0 };
	const struct who root = { -1, 0, -1 };
	int zero = 0, one = 1, level;
	unsigned int i, why;
	char what[64];

	for (i = 0; i < sizeof(lv) / sizeof(lv[0]); i++) {
		set_param("paranoid", lv[i].paranoid);
		snprintf(what, sizeof(what), "unprivileged opener, paranoid %d", lv[i].paranoid);
		run_child(&unpriv, c_enable, (void *)&lv[i].want, what);
		snprintf(what, sizeof(what), "backend none, paranoid %d", lv[i].paranoid);
		run_child(&unpriv, c_none, NULL, what);
	}
	set_param("paranoid", 2);
	run_child(&perfmon, c_enable, &zero, "CAP_PERFMON opener, paranoid 2");
	run_child(&sysadmin, c_enable, &zero, "CAP_SYS_ADMIN opener, paranoid 2");
	run_child(&root, c_enable, &zero, "root opener, paranoid 2");

	/* Opened by root, used by uid 65534 without capabilities. */
	parent_fd = open_dev();
	TBT_CHECK(parent_fd >= 0 && hw_setup(parent_fd) == 0, "root open and SETUP");
	run_child(&unpriv, c_enable_inherited, NULL, "root-opened fd, paranoid 2");
	close(parent_fd);

	/* Opened by uid 65534, passed to root: still refused. */
	{
		struct pass pass;
		struct child c;
		int fd = -1;
		struct hw h;
		int r;

		TBT_CHECK(pass_init(&pass, 1) == 0, "pass_init");
		child_start(&c, &unpriv, c_open_and_pass, &pass, "unprivileged opener passes its fd");
		TBT_CHECK(pass_take(&pass, &c, &fd) == 0, "take the fd");
		child_finish(&c);
		TBT_CHECK(pass_recv(&pass, &fd) == 0, "receive");
		pass_done(&pass);
		r = hw_open(&h, fd, AUX_DATA);
		TBT_CHECK(r == 0 && hw_aux(&h, AUX_PAGES) == 0, "root maps it: %s", strerror(-r));
		r = enable(fd);
		TBT_CHECK(r == -EACCES, "root ENABLE of an fd opened unprivileged: %d (%s)", r,
			  strerror(-r));
		if (!r)
			ioctl(fd, TRACEBUF_IOC_DISABLE);
		r = set_cfg(fd, "kernel=1", &why);
		TBT_CHECK(r == -EACCES && why == TRACEBUF_CFG_PERMISSION,
			  "root kernel=1 on an fd opened unprivileged: %d, reason %u", r, why);
		set_param("paranoid", 0);
		r = enable(fd);
		TBT_CHECK(r == 0, "... and at paranoid 0: %s", strerror(-r));
		if (!r)
			ioctl(fd, TRACEBUF_IOC_DISABLE);
		set_param("paranoid", 2);
		hw_close(&h);
	}

	/* Privileged keys at every level, for openers without CAP_PERFMON. */
	for (level = -1; level <= 2; level++) {
		set_param("paranoid", level);
		snprintf(what, sizeof(what), "privileged keys, paranoid %d", level);
		run_child(&unpriv, c_keys, &zero, what);
	}
	set_param("paranoid", 0);
	run_child(&perfmon, c_keys, &one, "privileged keys, CAP_PERFMON, paranoid 0");
	set_param("paranoid", 2);
	run_child(&perfmon, c_keys, &one, "privileged keys, CAP_PERFMON, paranoid 2");
}

/* ======================================================================== */

static int load_emulator(void)
{
#ifdef __aarch64__
	return tbt_modprobe("tb_csemu");
#elif HAVE_PT
	return tbt_modprobe("tb_ptemu");
#else
	return -1;
#endif
}

static void unload_emulators(void)
{
	/* tb_producer uses tracebuf's symbols too: out before tracebuf. */
	if (tbt_module_loaded("tb_producer"))
		tbt_rmmod("tb_producer");
	if (tbt_module_loaded("tb_ptemu"))
		tbt_rmmod("tb_ptemu");
	if (tbt_module_loaded("tb_csemu"))
		tbt_rmmod("tb_csemu");
}

int main(void)
{
	struct stat st, pst;
	mode_t mode = 0600;
	int r, have_hw;

	setvbuf(stdout, NULL, _IONBF, 0);
	/* A child that already exited does not kill us at child_finish(). */
	signal(SIGPIPE, SIG_IGN);
	pg = sysconf(_SC_PAGESIZE);
	ncpu = sysconf(_SC_NPROCESSORS_ONLN);
	/* A fresh module: the defaults. */
	unload_emulators();
	if (tbt_module_loaded("tracebuf")) {
		r = tbt_rmmod("tracebuf");
		TBT_CHECK(r == 0, "rmmod tracebuf: %s", strerror(-r));
	}
	if (tbt_modprobe("tracebuf"))
		return 1;
	TBT_CHECK(read_param("mlock_kb") == 516, "mlock_kb default %ld", read_param("mlock_kb"));
	TBT_CHECK(read_param("paranoid") == 2, "paranoid default %ld", read_param("paranoid"));
	TBT_CHECK(stat(PARAM "mlock_kb", &pst) == 0 && (pst.st_mode & 0777) == 0644,
		  "mlock_kb mode %o", pst.st_mode & 0777);
	TBT_CHECK(stat(PARAM "paranoid", &pst) == 0 && (pst.st_mode & 0777) == 0644,
		  "paranoid mode %o", pst.st_mode & 0777);
	if (tbt_failures)
		return tbt_done();	/* no implementation: the rest means nothing */
	if (stat(TRACEBUF_DEVICE, &st) == 0)
		mode = st.st_mode & 07777;
	TBT_CHECK(chmod(TRACEBUF_DEVICE, 0666) == 0, "chmod %s", TRACEBUF_DEVICE);
	A = allowance(516);
	printf("page size %ld, %ld CPUs online: allowance %ld pages\n", pg, ncpu, A);
	TBT_CHECK(A > 2 * (33 + 65) && A > 2 * (AUX_DATA + 1 + AUX_PAGES + 8),
		  "allowance %ld too small for this test", A);

	memory();
	memcg();
	have_hw = load_emulator() == 0;
	TBT_CHECK(have_hw, "load the emulator");
	if (have_hw) {
		aux_memory();
		permissions();
	}

	set_param("mlock_kb", 516);
	set_param("paranoid", 2);
	unload_emulators();
	TBT_CHECK(chmod(TRACEBUF_DEVICE, mode) == 0, "restore the mode of %s", TRACEBUF_DEVICE);
	return tbt_done();
}
