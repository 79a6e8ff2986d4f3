// SPDX-License-Identifier: GPL-2.0
/*
 * An adversarial client of /dev/tracebuf, written from the ABI only
 * (include/uapi/tracebuf.h and docs/abi.md), plus the documented
 * interfaces of the tests-only modules (tb_producer.h; the emulators are
 * only loaded).
 *
 * Worker threads (two per CPU, at least four) drive a few shared sessions
 * through every state transition in random order: SETUP (valid and not),
 * mmap/munmap of the data mapping and of the AUX area (sizes, snapshot and
 * no-overwrite mode), ENABLE/DISABLE/SNAPSHOT, SET/GET_DRV_CONFIG (valid
 * and invalid strings), read(), poll(), epoll, O_ASYNC/F_SETOWN/F_SETSIG
 * with SIGIO handlers, USER_MARKER, close and reopen, fork (a child that
 * looks for the mappings and uses the inherited fd), madvise DONTNEED and
 * DOFORK on the mappings, and consuming the data ring and the AUX area.
 * Meanwhile the emulator traces, tb_producer writes from every context it
 * offers, and CPU 1 goes offline and online.
 *
 * Every call's result is checked against the errors the ABI documents for
 * it: any other errno, a successful call the ABI refuses, a signal, or a
 * corrupt record is a failure; a thread that makes no progress for
 * ADVERSARY_HANG seconds (default 120) is a hang (the watchdog dumps the
 * blocked tasks and exits).
 *
 * At the end one quiet session checks the accounting identities of
 * docs/abi.md sections 4, 6 and 7: records_written = records delivered,
 * records_lost = the sum of the LOST records' counts, produced = delivered
 * + lost, and aux_published = the sum of the AUX records' sizes, spans
 * back to back up to aux_head.
 *
 * Usage: adversary [SECONDS] [seed=N] [max_ops=N] [hang=S] [skip=op,op] [ctx=MASK]
 * (ctx: the tb_producer contexts of the storm, bit n = enum tracebuf_test_context n)
 * or the environment: ADVERSARY_DURATION (default 30 s), ADVERSARY_SEED
 * (printed at start), ADVERSARY_MAX_OPS (iteration cap over all workers,
 * default 400000), ADVERSARY_HANG (default 120 s), ADVERSARY_SKIP
 * (operation names, as in the "operations:" summary line).
 * Exit: 0 pass, 1 fail.
 */
#include <poll.h>
#include <pthread.h>
#include <setjmp.h>
#include <signal.h>
#include <stdarg.h>
#include <stdint.h>
#include <sys/epoll.h>
#include <sys/ioctl.h>
#include <sys/mman.h>
#include <time.h>

#include <tracebuf.h>
#include "tbtest.h"
#include "tb_producer.h"

#ifdef __x86_64__
#define ALL_CTX 15	/* task, softirq, hardirq, NMI */
#else
#define ALL_CTX 7	/* tb_producer has no NMI context here */
#endif

#define NSLOT		4
#define MAXMAP		6
#define MAXWORK		8
#define ONLINE1		"/sys/devices/system/cpu/cpu1/online"

static long pg;
static int ncpu;
static char hw[TRACEBUF_NAME_LEN];	/* the hardware backend, "" if none */
static int hw_cs;			/* it is CoreSight: CPU sets */
static volatile int stop;
static uint64_t seed;
static int hang_s = 120;

/* ---- failures ---------------------------------------------------------- */

static pthread_mutex_t fail_lock = PTHREAD_MUTEX_INITIALIZER;
static unsigned long nfail;
#define MAXKIND 64
static struct { char what[256]; unsigned long n; } kinds[MAXKIND];
static int nkinds;

/* A violation of the ABI: counted by kind, the first of each printed. */
static void fail(const char *fmt, ...)
{
	char msg[256], kind[256];
	va_list ap;
	int i;

	va_start(ap, fmt);
	vsnprintf(msg, sizeof(msg), fmt, ap);
	va_end(ap);
	/* The kind is the message up to its first " (". */
	snprintf(kind, sizeof(kind), "%s", msg);
	for (i = 0; kind[i]; i++)
		if (kind[i] == ' ' && kind[i + 1] == '(') {
			kind[i] = 0;
			break;
		}
	pthread_mutex_lock(&fail_lock);	/* protects nfail and kinds */
	nfail++;
	for (i = 0; i < nkinds; i++)
		if (!strcmp(kinds[i].what, kind))
			break;
	if (i == nkinds && nkinds < MAXKIND) {
		snprintf(kinds[nkinds].what, sizeof(kinds[0].what), "%s", kind);
		nkinds++;
		printf("not ok: %s\n", msg);
	}
	if (i < MAXKIND)
		kinds[i].n++;
	pthread_mutex_unlock(&fail_lock);
}

static int in_list(int e, const int *l)
{
	for (; *l; l++)
		if (*l == e)
			return 1;
	return 0;
}

/* ret < 0 with errno: must be in the list; ret >= 0: ok unless must_fail. */
static void expect(const char *op, long ret, int err, const int *allowed, int must_fail)
{
	if (ret >= 0) {
		if (must_fail)
			fail("%s succeeded (the ABI refuses it)", op);
		return;
	}
	if (!in_list(err, allowed))
		fail("%s: errno %d %s (not documented for it)", op, err, strerror(err));
}

/* ---- random ------------------------------------------------------------ */

static __thread uint64_t rng;

static uint64_t rnd(void)
{
	/* xorshift64* */
	rng ^= rng >> 12;
	rng ^= rng << 25;
	rng ^= rng >> 27;
	return rng * 0x2545F4914F6CDD1DULL;
}

static unsigned int rn(unsigned int n)
{
	return n ? (unsigned int)(rnd() % n) : 0;
}

static int64_t now_ms(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return ts.tv_sec * 1000LL + ts.tv_nsec / 1000000;
}

static void msleep(unsigned int ms)
{
	struct timespec ts = { ms / 1000, (ms % 1000) * 1000000L };

	while (nanosleep(&ts, &ts) && errno == EINTR)
		;
}

static double now_s(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return ts.tv_sec + ts.tv_nsec / 1e9;
}

/* ---- touching mappings: a fault is a failure, not a crash --------------- */

static __thread sigjmp_buf touch_jmp;
static __thread volatile sig_atomic_t touching;
static __thread void *fault_addr;
static __thread int fault_code;

static void on_fault(int sig, siginfo_t *si, void *uc)
{
	(void)uc;
	if (touching) {
		fault_addr = si->si_addr;
		fault_code = si->si_code;
		siglongjmp(touch_jmp, sig);
	}
	signal(sig, SIG_DFL);
	raise(sig);
}

static volatile unsigned long sigio_plain, sigio_rt, sigio_bad;

static void on_sigio(int sig, siginfo_t *si, void *uc)
{
	(void)uc;
	if (sig == SIGIO) {
		sigio_plain++;
		return;
	}
	/* F_SETSIG: si_code POLL_IN or POLL_HUP (docs/abi.md section 8). */
	if (si->si_code == POLL_IN || si->si_code == POLL_HUP)
		sigio_rt++;
	else
		sigio_bad++;
}

/* ---- sessions ---------------------------------------------------------- */

struct mapping {
	unsigned char *addr;
	size_t len;
	uint64_t data_size;	/* data mapping: its ring size */
	uint64_t tail;		/* read-only data mapping: our own tail */
	int aux, ro;
};

struct slot {
	pthread_rwlock_t fd_lock;	/* read: any use of fd; write: close and reopen */
	pthread_rwlock_t map_lock;	/* read: touching maps[]; write: munmap, list changes */
	pthread_mutex_t consume;	/* one consumer of this slot's rings at a time */
	int fd;
	int nmaps;
	struct mapping maps[MAXMAP];
};

static struct slot slots[NSLOT];

enum { OP_SETUP, OP_MMAP, OP_AUX, OP_MUNMAP, OP_ENABLE, OP_DISABLE, OP_SNAPSHOT, OP_DRVCFG,
	OP_READ, OP_POLL, OP_ASYNC, OP_MARKER, OP_REOPEN, OP_FORK, OP_CONSUME, OP_MADVISE,
	NR_OPS };
static int skip_op[NR_OPS];	/* set from skip= before the threads start */
static int epfd;

static int tb_open(void)
{
	return open(TRACEBUF_DEVICE, O_RDWR | O_NONBLOCK | O_CLOEXEC);
}

/* ---- operations ---------------------------------------------------------- */

struct worker {
	int id;
	unsigned long ops;		/* progress, read by the watchdog */
	const char *op;			/* the operation in progress */
	int64_t since;		/* now_ms() when op began */
	pid_t tid;
};

static struct worker workers[MAXWORK + 3];
static unsigned long max_ops = 400000;
static unsigned long total_ops;
static unsigned long op_count[32];

static const int E_SETUP[] = { EBUSY, EINVAL, ENOMEM, 0 };
static const int E_MMAP[] = { EINVAL, ENXIO, EBUSY, ENOMEM, 0 };
static const int E_AUX[] = { EINVAL, ENXIO, ENODEV, ENOMEM, EOPNOTSUPP, EBUSY, 0 };
static const int E_ENABLE[] = { EINVAL, ENODEV, ENXIO, EALREADY, EBUSY, EIO, 0 };
static const int E_DISABLE[] = { EINVAL, 0 };
/* EBUSY and EIO: a failed restart (docs/abi.md 10.6, not in the header). */
static const int E_SNAPSHOT[] = { EINVAL, ENXIO, EBUSY, EIO, 0 };
static const int E_SETCFG[] = { EINVAL, ENODEV, ERANGE, EOPNOTSUPP, EACCES, EIO, ENOMEM, 0 };
static const int E_GETCFG[] = { EINVAL, ENODEV, ENOSPC, ENOMEM, 0 };
static const int E_READ[] = { ENXIO, EBUSY, EINVAL, EAGAIN, EINTR, 0 };
static const int E_MARKER[] = { ENXIO, ENOSPC, EINVAL, ENOMEM, 0 };
static const int E_MADV[] = { EINVAL, 0 };
static const int E_POLL[] = { EINTR, 0 };

static void setup_fill(struct tracebuf_setup *su, uint64_t *bits)
{
	unsigned int k = rn(10);

	memset(su, 0, sizeof(*su));
	su->size = sizeof(*su);
	if (!*hw || k < 4)
		strcpy(su->backend, TRACEBUF_BACKEND_DATA);
	else if (k < 8)
		strcpy(su->backend, hw);
	else
		strcpy(su->backend, k == 8 ? TRACEBUF_BACKEND_AUTO : "");
	*bits = rn(3) + 1;		/* CPU 0, 1 or both */
	if (ncpu < 2)
		*bits = 1;
	if (strcmp(su->backend, TRACEBUF_BACKEND_DATA) ? hw_cs != 0 : rn(2) != 0) {
		su->target = TRACEBUF_TARGET_CPUSET;
		su->cpuset_ptr = (uintptr_t)bits;
		su->cpuset_size = 8;
	} else {
		su->target = TRACEBUF_TARGET_CPU;
		su->cpu = rn(ncpu < 2 ? 1 : 2);
	}
	su->wakeup_events = rn(4);
	if (rn(2))
		su->data_size = (uint64_t)pg << rn(5);
	if (rn(3) == 0)
		su->data_watermark = su->data_size ? su->data_size / (1 + rn(4)) : (uint64_t)pg;
	if (rn(3) == 0)
		su->aux_watermark = (uint64_t)pg << rn(4);
}

static void op_setup(struct slot *s)
{
	struct tracebuf_setup su;
	uint64_t bits, zero = 0;
	int r, want = 0, bad = rn(3) == 0;
	char what[64];

	setup_fill(&su, &bits);
	snprintf(what, sizeof(what), "SETUP %s backend '%s'", bad ? "invalid" : "valid",
		 su.backend);
	if (bad) {
		switch (rn(9)) {
		case 0: su.reserved[rn(3)] = 1; want = EINVAL; break;
		/*
		 * bits 0, 2: NO_TIME, COMPACT; bit 1 (INHERIT) is invalid
		 * without TARGET_TASK; bits 3..31 are unknown
		 */
		case 1: su.flags = rn(4) ? 8u << rn(29) : 2u; want = EINVAL; break;
		case 2: su.target = 4 + rn(100); want = EINVAL; break;	/* 3: TASK */
		case 3: su.size = rn(TRACEBUF_SETUP_SIZE_VER0); want = EINVAL; break;
		case 4: strcpy(su.backend, "nonesuch"); want = ENODEV; break;
		case 5: su.data_size = pg * 3; want = EINVAL; break;
		case 6:
			su.data_size = pg;
			su.data_watermark = 2 * pg;
			want = EINVAL;
			break;
		case 7:
			su.target = TRACEBUF_TARGET_CPUSET;
			su.cpu = 0;
			su.cpuset_ptr = (uintptr_t)&zero;
			su.cpuset_size = 8;
			want = EINVAL;
			break;
		default:
			su.target = TRACEBUF_TARGET_CPU;
			su.cpu = 100000;
			su.cpuset_ptr = 0;
			su.cpuset_size = 0;
			want = EINVAL;
		}
	}
	r = ioctl(s->fd, TRACEBUF_IOC_SETUP, &su);
	if (bad) {
		/*
		 * Its own error; -EBUSY may come first once the ring exists, and
		 * -EINVAL when the rest is invalid too (CPU 1 offline).
		 */
		const int l[] = { want, EBUSY, EINVAL, 0 };

		expect(what, r, errno, l, 1);
	} else {
		/* -EINVAL: CPU 1 offline, or a backend that cannot take the set. */
		expect(what, r, errno, E_SETUP, 0);
	}
}

/* Called with map_lock held for writing. */
static void add_map(struct slot *s, void *p, size_t len, uint64_t ds, int aux, int ro)
{
	struct mapping *m;

	if (s->nmaps == MAXMAP) {
		/* No room: drop the oldest. */
		if (munmap(s->maps[0].addr, s->maps[0].len))
			fail("munmap(full): errno %d %s", errno, strerror(errno));
		memmove(&s->maps[0], &s->maps[1], sizeof(s->maps[0]) * (MAXMAP - 1));
		s->nmaps--;
	}
	m = &s->maps[s->nmaps++];
	memset(m, 0, sizeof(*m));
	m->addr = p;
	m->len = len;
	m->data_size = ds;
	m->aux = aux;
	m->ro = ro;
}

static void op_mmap_data(struct slot *s)
{
	uint64_t ds = (uint64_t)pg << rn(5);
	size_t len = pg + 2 * ds;
	int prot = rn(4) ? PROT_READ | PROT_WRITE : PROT_READ;
	int flags = MAP_SHARED, kind = rn(12);
	void *p;

	if (kind == 0)
		len = pg * (3 + 2 * rn(3)) + pg;	/* not page + 2 * 2^n pages */
	else if (kind == 1)
		flags = MAP_PRIVATE;
	else if (kind == 2)
		prot |= PROT_EXEC;
	pthread_rwlock_wrlock(&s->map_lock);
	p = mmap(NULL, len, prot, flags, s->fd, 0);
	if (kind == 0) {
		const int l[] = { EINVAL, 0 };

		expect("mmap data (bad length)", p == MAP_FAILED ? -1 : 0, errno, l, 1);
	} else if (kind == 1) {
		const int l[] = { EINVAL, 0 };

		expect("mmap data MAP_PRIVATE", p == MAP_FAILED ? -1 : 0, errno, l, 1);
	} else if (kind == 2) {
		const int l[] = { EPERM, 0 };

		expect("mmap data PROT_EXEC", p == MAP_FAILED ? -1 : 0, errno, l, 1);
	} else {
		expect("mmap data", p == MAP_FAILED ? -1 : 0, errno, E_MMAP, 0);
	}
	if (p != MAP_FAILED) {
		struct tracebuf_ctl *c = p;

		if (kind > 2 && (c->abi_version != TRACEBUF_ABI_VERSION ||
				 c->ctl_size != sizeof(*c) || c->page_size != pg ||
				 c->data_offset != (uint64_t)pg || c->data_size != ds ||
				 c->clock_id != CLOCK_MONOTONIC))
			fail("control page constants (abi %u ctl_size %u page %u off %llu size %llu, want %llu)",
			     c->abi_version, c->ctl_size, c->page_size,
			     (unsigned long long)c->data_offset, (unsigned long long)c->data_size,
			     (unsigned long long)ds);
		if (kind <= 2)
			munmap(p, len);
		else
			add_map(s, p, len, ds, 0, !(prot & PROT_WRITE));
	}
	pthread_rwlock_unlock(&s->map_lock);
}

/* Store where the AUX area goes; a signal number if the page faulted. */
static int store_aux(struct tracebuf_ctl *c, uint64_t off, uint64_t size)
{
	int sig;

	touching = 1;
	sig = sigsetjmp(touch_jmp, 1);
	if (!sig) {
		c->aux_offset = off;
		c->aux_size = size;
	}
	touching = 0;
	return sig;
}

static void op_mmap_aux(struct slot *s)
{
	uint64_t size = (uint64_t)pg << rn(6), off;
	int prot = rn(3) ? PROT_READ | PROT_WRITE : PROT_READ, bad = rn(8) == 0;
	struct mapping *d = NULL;
	struct tracebuf_ctl *c;
	void *p;
	int i, sig;

	pthread_rwlock_wrlock(&s->map_lock);
	for (i = 0; i < s->nmaps; i++)
		if (!s->maps[i].aux && !s->maps[i].ro && (!d || rn(2)))
			d = &s->maps[i];
	if (!d) {
		pthread_rwlock_unlock(&s->map_lock);
		return;
	}
	c = (struct tracebuf_ctl *)d->addr;
	off = pg + 2 * d->data_size + (uint64_t)pg * rn(3);
	sig = store_aux(c, bad ? off + 8 : off, size);
	if (sig) {
		fail("signal %d writing aux_offset to the control page (code %d addr %p map %p)",
		     sig, fault_code, fault_addr, (void *)c);
		pthread_rwlock_unlock(&s->map_lock);
		return;
	}
	p = mmap(NULL, size, prot, MAP_SHARED, s->fd, (off_t)off);
	if (bad) {
		const int l[] = { EINVAL, ENXIO, ENODEV, 0 };

		expect("mmap AUX (offset not as stored)", p == MAP_FAILED ? -1 : 0, errno, l, 1);
	} else {
		expect(prot & PROT_WRITE ? "mmap AUX rw" : "mmap AUX ro",
		       p == MAP_FAILED ? -1 : 0, errno, E_AUX, 0);
	}
	if (p != MAP_FAILED)
		add_map(s, p, size, 0, 1, !(prot & PROT_WRITE));
	pthread_rwlock_unlock(&s->map_lock);
}

static void op_munmap(struct slot *s)
{
	struct mapping m;
	int i, r;

	pthread_rwlock_wrlock(&s->map_lock);
	if (!s->nmaps) {
		pthread_rwlock_unlock(&s->map_lock);
		return;
	}
	i = rn(s->nmaps);
	m = s->maps[i];
	memmove(&s->maps[i], &s->maps[i + 1], sizeof(m) * (s->nmaps - i - 1));
	s->nmaps--;
	if (m.len > (size_t)pg && rn(4) == 0) {
		r = munmap(m.addr + pg, pg);
		if (!r)
			fail("partial munmap succeeded (%s mapping)", m.aux ? "AUX" : "data");
		else if (errno != EINVAL)
			fail("partial munmap: errno %d %s", errno, strerror(errno));
	}
	r = munmap(m.addr, m.len);
	if (r)
		fail("munmap: errno %d %s", errno, strerror(errno));
	pthread_rwlock_unlock(&s->map_lock);
}

static void op_enable(struct slot *s)
{
	int r = ioctl(s->fd, TRACEBUF_IOC_ENABLE);

	expect("ENABLE", r, errno, E_ENABLE, 0);
}

static void op_disable(struct slot *s)
{
	int r = ioctl(s->fd, TRACEBUF_IOC_DISABLE);

	expect("DISABLE", r, errno, E_DISABLE, 0);
}

static void op_snapshot(struct slot *s)
{
	int r = ioctl(s->fd, TRACEBUF_IOC_SNAPSHOT);

	expect("SNAPSHOT", r, errno, E_SNAPSHOT, 0);
}

static const char *const good_pt[] = { "user=1", "tsc=0", "tsc=1,branch=1", "noretcomp=1",
					 "user=1,kernel=0", "noretcomp=0", NULL };
static const char *const good_cs[] = { "user=1", "timestamp=0", "timestamp=1",
					 "user=1,kernel=0", "sync_period=12", NULL };
static const char *const bad_cfg[] = { "", ",", "user,", ",user", "user,,tsc", "bogus=1",
				       "user=2", "user=01", "user=1,user=1", "Us=1", "user=\x80",
				       "user=1\x01", "addr0=5-1:filter", "user = 1", NULL };

static void op_drvcfg(struct slot *s)
{
	char buf[TRACEBUF_DRV_CONFIG_MAX + 16];
	struct tracebuf_drv_config c = { .size = sizeof(c) };
	const char *const *good = hw_cs ? good_cs : good_pt;
	int r, k = rn(5);

	if (k == 0) {
		/* GET, into a buffer that may be too small. */
		c.config_ptr = (uintptr_t)buf;
		c.config_len = rn(2) ? sizeof(buf) : rn(64);
		memset(buf, 0x55, sizeof(buf));
		r = ioctl(s->fd, TRACEBUF_IOC_GET_DRV_CONFIG, &c);
		expect("GET_DRV_CONFIG", r, errno, E_GETCFG, 0);
		if (!r && (c.config_len == 0 || c.config_len > sizeof(buf) ||
			   buf[c.config_len - 1] != 0 || strlen(buf) + 1 != c.config_len))
			fail("GET_DRV_CONFIG string (len %u)", c.config_len);
		return;
	}
	if (k <= 2) {
		unsigned int n = 0;

		while (good[n])
			n++;
		snprintf(buf, sizeof(buf), "%s", good[rn(n)]);
		c.flags = rn(3) ? 0 : TRACEBUF_DRV_CONFIG_F_RESET;
		c.config_ptr = (uintptr_t)buf;
		c.config_len = strlen(buf) + 1;
		r = ioctl(s->fd, TRACEBUF_IOC_SET_DRV_CONFIG, &c);
		expect("SET_DRV_CONFIG(valid)", r, errno, E_SETCFG, 0);
		return;
	}
	{
		unsigned int n = 0;

		while (bad_cfg[n])
			n++;
		snprintf(buf, sizeof(buf), "%s", bad_cfg[rn(n)]);
		c.config_ptr = (uintptr_t)buf;
		c.config_len = strlen(buf) + 1;
		if (rn(6) == 0)
			c.config_len = TRACEBUF_DRV_CONFIG_MAX + 1 + rn(8);	/* too long */
		if (rn(8) == 0)
			c.flags = 2;
		r = ioctl(s->fd, TRACEBUF_IOC_SET_DRV_CONFIG, &c);
		expect("SET_DRV_CONFIG(invalid)", r, errno, E_SETCFG, 1);
	}
}

static void check_read(const unsigned char *b, ssize_t n)
{
	ssize_t o = 0;

	while (o < n) {
		const struct tracebuf_record *r = (const void *)(b + o);

		if (n - o < (ssize_t)sizeof(*r) || r->hdr.size < sizeof(*r) || r->hdr.size % 8 ||
		    r->hdr.size > n - o) {
			fail("read(): malformed record at %zd of %zd (size %u)", o, n,
			     n - o >= 8 ? r->hdr.size : 0);
			return;
		}
		if (r->hdr.flags & TRACEBUF_REC_F_DISCARD)
			fail("read() returned a DISCARD record");
		o += r->hdr.size;
	}
}

static void op_read(struct slot *s)
{
	static const size_t sizes[] = { 0, 8, 40, 64, 4096, 65536 };
	size_t len = sizes[rn(6)];
	unsigned char *b = malloc(65536);
	ssize_t n;

	if (!b)
		return;
	n = read(s->fd, b, len);
	expect("read", n, errno, E_READ, 0);
	if (n > (ssize_t)len)
		fail("read returned %zd for a %zu-byte buffer", n, len);
	else if (n > 0)
		check_read(b, n);
	free(b);
}

static void check_revents(const char *what, unsigned int ev)
{
	if (ev & ~(unsigned int)(POLLIN | POLLRDNORM | POLLHUP | POLLERR))
		fail("%s: undocumented events (%#x)", what, ev);
}

static void op_poll(struct slot *s)
{
	struct epoll_event ev[8];
	struct pollfd p = { .fd = s->fd, .events = POLLIN | POLLRDNORM };
	int r, i;

	switch (rn(3)) {
	case 0:
		r = poll(&p, 1, rn(3));
		expect("poll", r, errno, E_POLL, 0);
		if (r > 0) {
			if (p.revents & POLLNVAL)
				fail("poll: POLLNVAL on an open session");
			else
				check_revents("poll", p.revents);
		}
		break;
	case 1: {
		struct epoll_event e = { .events = EPOLLIN | EPOLLRDNORM,
					 .data.u32 = (uint32_t)(s - slots) };

		/* EEXIST/ENOENT: our own bookkeeping, the fd may be registered. */
		if (rn(2))
			r = epoll_ctl(epfd, EPOLL_CTL_ADD, s->fd, &e);
		else
			r = epoll_ctl(epfd, EPOLL_CTL_DEL, s->fd, NULL);
		if (r && errno != EEXIST && errno != ENOENT)
			fail("epoll_ctl: errno %d %s", errno, strerror(errno));
		break;
	}
	default:
		r = epoll_wait(epfd, ev, 8, rn(2));
		expect("epoll_wait", r, errno, E_POLL, 0);
		for (i = 0; i < r; i++)
			check_revents("epoll", ev[i].events);
	}
}

static void op_async(struct slot *s)
{
	int fl = O_NONBLOCK | (rn(3) ? O_ASYNC : 0);

	if (fcntl(s->fd, F_SETOWN, getpid()))
		fail("F_SETOWN: errno %d %s", errno, strerror(errno));
	if (fcntl(s->fd, F_SETSIG, rn(2) ? SIGRTMIN + 1 : 0))
		fail("F_SETSIG: errno %d %s", errno, strerror(errno));
	if (fcntl(s->fd, F_SETFL, fl))
		fail("F_SETFL O_ASYNC: errno %d %s", errno, strerror(errno));
}

static void op_marker(struct slot *s)
{
	static char data[TRACEBUF_USER_MARKER_MAX + 8];
	struct tracebuf_user_marker m = { .size = sizeof(m), .cookie = rnd(),
					  .data_ptr = (uintptr_t)data };
	int r, bad = rn(6) == 0;

	m.len = rn(3) ? rn(64) : rn(TRACEBUF_USER_MARKER_MAX + 1);
	if (bad) {
		if (rn(2))
			m.len = TRACEBUF_USER_MARKER_MAX + 1 + rn(100);
		else
			m.flags = 1;
	}
	r = ioctl(s->fd, TRACEBUF_IOC_USER_MARKER, &m);
	if (bad) {
		/* -ENXIO (no ring) may be checked before the arguments. */
		const int l[] = { EINVAL, ENXIO, 0 };

		expect("USER_MARKER(invalid)", r, errno, l, 1);
	} else {
		expect("USER_MARKER", r, errno, E_MARKER, 0);
	}
}

static void op_reopen(struct slot *s)
{
	int fd;

	pthread_rwlock_wrlock(&s->fd_lock);
	if (close(s->fd))
		fail("close: errno %d %s", errno, strerror(errno));
	fd = tb_open();
	if (fd < 0) {
		fail("reopen: errno %d %s", errno, strerror(errno));
		fd = open("/dev/null", O_RDWR | O_CLOEXEC);	/* keep a valid fd */
	}
	s->fd = fd;
	pthread_rwlock_unlock(&s->fd_lock);
}

static void op_fork(struct slot *s)
{
	unsigned char *addrs[MAXMAP];
	int n, i, st, fd = s->fd;
	pid_t pid;

	pthread_rwlock_rdlock(&s->map_lock);
	n = s->nmaps;
	for (i = 0; i < n; i++)
		addrs[i] = s->maps[i].addr;
	/* The lock stays held across fork: no address here is reused meanwhile. */
	pid = fork();
	if (pid == 0) {
		struct tracebuf_user_marker m = { .size = sizeof(m), .cookie = 0xf0f0 };
		unsigned char v;
		int code = 0, r;

		/* Mappings are never inherited: mincore says not mapped. */
		for (i = 0; i < n; i++)
			if (mincore(addrs[i], pg, &v) == 0 || errno != ENOMEM)
				code |= 1;
		/* The fd is inherited and is the same session. */
		r = ioctl(fd, TRACEBUF_IOC_USER_MARKER, &m);
		if (r && !in_list(errno, E_MARKER))
			code |= 2;
		/* A few state transitions from the child, on the shared session. */
		for (i = rn(4); i > 0; i--) {
			switch (rn(4)) {
			case 0:
				r = ioctl(fd, TRACEBUF_IOC_DISABLE);
				if (r && !in_list(errno, E_DISABLE))
					code |= 4;
				break;
			case 1:
				r = ioctl(fd, TRACEBUF_IOC_ENABLE);
				if (r && !in_list(errno, E_ENABLE))
					code |= 8;
				break;
			case 2:
				r = ioctl(fd, TRACEBUF_IOC_SNAPSHOT);
				if (r && !in_list(errno, E_SNAPSHOT))
					code |= 16;
				break;
			default: {
				struct tracebuf_drv_config c = { .size = sizeof(c) };
				const char *cfg = hw_cs ? "timestamp=1" : "tsc=1";

				c.config_ptr = (uintptr_t)cfg;
				c.config_len = strlen(cfg) + 1;
				r = ioctl(fd, TRACEBUF_IOC_SET_DRV_CONFIG, &c);
				if (r && !in_list(errno, E_SETCFG))
					code |= 32;
			}
			}
		}
		_exit(code);
	}
	pthread_rwlock_unlock(&s->map_lock);
	if (pid < 0) {
		if (errno != EAGAIN && errno != ENOMEM)
			fail("fork: errno %d", errno);
		return;
	}
	while (waitpid(pid, &st, 0) < 0 && errno == EINTR)
		;
	if (WIFSIGNALED(st))
		fail("fork child killed by signal %d", WTERMSIG(st));
	else if (WEXITSTATUS(st) & 1)
		fail("fork child sees a tracebuf mapping (inherited)");
	else if (WEXITSTATUS(st) & 2)
		fail("fork child: USER_MARKER on the inherited fd: undocumented errno");
	else if (WEXITSTATUS(st) & 4)
		fail("fork child: DISABLE on the inherited fd: undocumented errno");
	else if (WEXITSTATUS(st) & 8)
		fail("fork child: ENABLE on the inherited fd: undocumented errno");
	else if (WEXITSTATUS(st) & 16)
		fail("fork child: SNAPSHOT on the inherited fd: undocumented errno");
	else if (WEXITSTATUS(st) & 32)
		fail("fork child: SET_DRV_CONFIG on the inherited fd: undocumented errno");
}

/* Consume a data mapping; stats for the final check. */
struct tally {
	uint64_t delivered, lost_recs, lost_count, test, user, aux_recs, aux_bytes;
	uint64_t aux_next, aux_gaps, bad;
	uint64_t aux_lost, aux_lost_atleast;	/* LOST(AUX_OVERRUN): bytes, lower bounds */
};

static void consume_data(struct mapping *m, struct tally *t)
{
	struct tracebuf_ctl *c = (struct tracebuf_ctl *)m->addr;
	const unsigned char *data = m->addr + pg;
	uint64_t size = m->data_size, tail, head;
	int n;

	tail = __atomic_load_n(&c->data_tail, __ATOMIC_ACQUIRE);
	if (m->ro && (int64_t)(m->tail - tail) > 0)
		tail = m->tail;
	for (n = 0; n < 4096; n++) {
		const struct tracebuf_record *r;
		uint32_t rsize, commit;

		head = __atomic_load_n(&c->data_head, __ATOMIC_ACQUIRE);
		if ((int64_t)(head - tail) <= 0)
			break;
		r = (const void *)(data + (tail & (size - 1)));
		commit = __atomic_load_n(&r->commit, __ATOMIC_ACQUIRE);	/* (C) */
		if (commit != tracebuf_commit_tag(tail))
			break;
		rsize = r->hdr.size;
		if (rsize < sizeof(*r) || rsize % 8 || rsize > size || rsize > head - tail) {
			/* Only if the record did not change under us. */
			__atomic_thread_fence(__ATOMIC_ACQUIRE);
			if (__atomic_load_n(&r->commit, __ATOMIC_RELAXED) == commit) {
				fail("corrupt record (pos %llu size %u head %llu ring %llu)",
				     (unsigned long long)tail, rsize, (unsigned long long)head,
				     (unsigned long long)size);
				if (t)
					t->bad++;
			}
			break;
		}
		if (t && !(r->hdr.flags & TRACEBUF_REC_F_DISCARD)) {
			switch (r->hdr.type) {
			case TRACEBUF_REC_LOST: {
				const struct tracebuf_rec_lost *l = (const void *)r;

				t->lost_recs++;
				/* A backend's LOST counts in records_written (abi.md 4). */
				if (l->reason != TRACEBUF_LOST_RING_FULL)
					t->delivered++;
				if (l->reason == TRACEBUF_LOST_RING_FULL) {
					t->lost_count += l->count;
				} else if (l->reason == TRACEBUF_LOST_AUX_OVERRUN) {
					t->aux_lost += l->count;
					if (l->flags & TRACEBUF_LOST_F_AT_LEAST)
						t->aux_lost_atleast++;
				}
				break;
			}
			case TRACEBUF_REC_AUX: {
				const struct tracebuf_rec_aux *a = (const void *)r;

				t->delivered++;
				t->aux_recs++;
				t->aux_bytes += a->aux_size;
				if (a->aux_offset != t->aux_next)
					t->aux_gaps++;
				t->aux_next = a->aux_offset + a->aux_size;
				break;
			}
			case TRACEBUF_REC_TEST:
				t->delivered++;
				t->test++;
				break;
			case TRACEBUF_REC_USER:
				t->user++;
				t->delivered++;
				break;
			default:
				t->delivered++;
			}
		}
		tail += rsize;
		if (!m->ro)
			__atomic_store_n(&c->data_tail, tail, __ATOMIC_RELEASE);	/* (D) */
	}
	m->tail = tail;
}

/* The AUX area: read what is published, release it (writable area). */
static uint64_t consume_aux(struct mapping *a, struct tracebuf_ctl *c, uint64_t *atail)
{
	uint64_t head = __atomic_load_n(&c->aux_head, __ATOMIC_ACQUIRE);	/* (G) */
	uint64_t tail = atail ? *atail : __atomic_load_n(&c->aux_tail, __ATOMIC_RELAXED);
	volatile unsigned char sink = 0;
	uint64_t p;

	for (p = tail; p != head && p - tail < a->len; p += 64)
		sink ^= a->addr[p & (a->len - 1)];
	(void)sink;
	if (!a->ro)
		__atomic_store_n(&c->aux_tail, head, __ATOMIC_RELEASE);	/* (H) */
	if (atail)
		*atail = head;
	return head - tail;
}

static void op_consume(struct slot *s)
{
	int i, sig;

	if (pthread_mutex_trylock(&s->consume))
		return;
	pthread_rwlock_rdlock(&s->map_lock);
	touching = 1;
	sig = sigsetjmp(touch_jmp, 1);
	if (sig) {
		touching = 0;
		fail("signal %d reading a mapping (code %d addr %p)", sig, fault_code, fault_addr);
	} else {
		struct tracebuf_ctl *ctl = NULL;

		for (i = 0; i < s->nmaps; i++)
			if (!s->maps[i].aux) {
				consume_data(&s->maps[i], NULL);
				if (!s->maps[i].ro)
					ctl = (struct tracebuf_ctl *)s->maps[i].addr;
			}
		/*
		 * An AUX area goes with the newest writable control page, if
		 * the sizes agree (it may be another session's: harmless).
		 */
		for (i = 0; i < s->nmaps && ctl; i++)
			if (s->maps[i].aux && ctl->aux_size == s->maps[i].len)
				consume_aux(&s->maps[i], ctl, NULL);
		touching = 0;
	}
	pthread_rwlock_unlock(&s->map_lock);
	pthread_mutex_unlock(&s->consume);
}

/* The kernel has no madvise(2) (CONFIG_ADVISE_SYSCALLS=n, as the debug kernels). */
static volatile int no_madvise;

static void op_madvise(struct slot *s)
{
	struct mapping *m;
	int r, sig, dofork = rn(3) == 0;
	volatile unsigned char x = 0;

	pthread_rwlock_rdlock(&s->map_lock);
	if (!s->nmaps) {
		pthread_rwlock_unlock(&s->map_lock);
		return;
	}
	m = &s->maps[rn(s->nmaps)];
	if (no_madvise) {
		pthread_rwlock_unlock(&s->map_lock);
		return;
	}
	if (dofork) {
		r = madvise(m->addr, m->len, MADV_DOFORK);
		if (r && errno == ENOSYS) {
			no_madvise = 1;
			pthread_rwlock_unlock(&s->map_lock);
			return;
		}
		/* The mapping is never inherited: DOFORK must not take. */
		expect(m->aux ? "MADV_DOFORK AUX" : "MADV_DOFORK data", r, errno, E_MADV, 1);
		if (!r)
			madvise(m->addr, m->len, MADV_DONTFORK);
		pthread_rwlock_unlock(&s->map_lock);
		return;
	}
	r = madvise(m->addr, rn(2) ? (size_t)pg : m->len, MADV_DONTNEED);
	if (r && errno == ENOSYS) {
		no_madvise = 1;	/* CONFIG_ADVISE_SYSCALLS=n */
		pthread_rwlock_unlock(&s->map_lock);
		return;
	}
	expect(m->aux ? "MADV_DONTNEED AUX" : "MADV_DONTNEED data", r, errno, E_MADV, 0);
	touching = 1;
	sig = sigsetjmp(touch_jmp, 1);
	if (sig) {
		touching = 0;
		fail("signal %d reading a %s mapping after MADV_DONTNEED, no refault (code %d addr %p)",
		     sig, m->aux ? "AUX" : "data", fault_code, fault_addr);
	} else {
		size_t o;

		for (o = 0; o < m->len; o += pg)
			x ^= m->addr[o];
		if (!m->aux && ((struct tracebuf_ctl *)m->addr)->abi_version != TRACEBUF_ABI_VERSION)
			fail("control page after MADV_DONTNEED: abi_version %u",
			     ((struct tracebuf_ctl *)m->addr)->abi_version);
		touching = 0;
	}
	pthread_rwlock_unlock(&s->map_lock);
}


static const struct {
	const char *name;
	void (*fn)(struct slot *s);
	int weight;
	int needs_fd;	/* run under fd_lock (read) */
} ops[NR_OPS] = {
	[OP_SETUP]	= { "setup", op_setup, 8, 1 },
	[OP_MMAP]	= { "mmap", op_mmap_data, 8, 1 },
	[OP_AUX]	= { "aux", op_mmap_aux, 8, 1 },
	[OP_MUNMAP]	= { "munmap", op_munmap, 10, 0 },
	[OP_ENABLE]	= { "enable", op_enable, 6, 1 },
	[OP_DISABLE]	= { "disable", op_disable, 3, 1 },
	[OP_SNAPSHOT]	= { "snapshot", op_snapshot, 3, 1 },
	[OP_DRVCFG]	= { "drvcfg", op_drvcfg, 6, 1 },
	[OP_READ]	= { "read", op_read, 6, 1 },
	[OP_POLL]	= { "poll", op_poll, 6, 1 },
	[OP_ASYNC]	= { "async", op_async, 2, 1 },
	[OP_MARKER]	= { "marker", op_marker, 8, 1 },
	[OP_REOPEN]	= { "reopen", op_reopen, 2, 0 },
	[OP_FORK]	= { "fork", op_fork, 1, 1 },
	[OP_CONSUME]	= { "consume", op_consume, 10, 0 },
	[OP_MADVISE]	= { "madvise", op_madvise, 3, 0 },
};

static void *worker_fn(void *arg)
{
	struct worker *w = arg;
	int total = 0, i;

	w->tid = (pid_t)syscall(SYS_gettid);
	rng = seed ^ (0x9E3779B97F4A7C15ULL * (w->id + 1));
	if (!rng)
		rng = 1;
	for (i = 0; i < NR_OPS; i++)
		total += skip_op[i] ? 0 : ops[i].weight;
	while (!stop && __atomic_add_fetch(&total_ops, 1, __ATOMIC_RELAXED) <= max_ops) {
		struct slot *s = &slots[rn(NSLOT)];
		int k = rn(total);

		for (i = 0; i < NR_OPS; i++) {
			if (skip_op[i])
				continue;
			if (k < ops[i].weight)
				break;
			k -= ops[i].weight;
		}
		w->op = ops[i].name;
		__atomic_store_n(&w->since, now_ms(), __ATOMIC_RELAXED);
		if (ops[i].needs_fd)
			pthread_rwlock_rdlock(&s->fd_lock);
		ops[i].fn(s);
		if (ops[i].needs_fd)
			pthread_rwlock_unlock(&s->fd_lock);
		__atomic_add_fetch(&op_count[i], 1, __ATOMIC_RELAXED);
		__atomic_add_fetch(&w->ops, 1, __ATOMIC_RELAXED);
		w->op = "idle";
	}
	return NULL;
}

/* ---- background: CPU hotplug, producer ------------------------------------ */

static unsigned long hp_cycles, hp_errors, prod_runs, prod_errors;
static unsigned int prod_ctx = ALL_CTX;	/* tb_producer contexts (ctx=) */

static int write_str(const char *path, const char *v)
{
	int fd = open(path, O_WRONLY | O_CLOEXEC), r;

	if (fd < 0)
		return -errno;
	r = write(fd, v, strlen(v)) == (ssize_t)strlen(v) ? 0 : -errno;
	close(fd);
	return r;
}

static void *hotplug_fn(void *arg)
{
	struct worker *w = arg;

	w->tid = (pid_t)syscall(SYS_gettid);
	rng = seed ^ 0x1234567;
	while (!stop) {
		w->op = "cpu1 offline";
		__atomic_store_n(&w->since, now_ms(), __ATOMIC_RELAXED);
		if (write_str(ONLINE1, "0"))
			hp_errors++;
		w->op = "idle";
		msleep(50 + rn(400));
		w->op = "cpu1 online";
		__atomic_store_n(&w->since, now_ms(), __ATOMIC_RELAXED);
		if (write_str(ONLINE1, "1"))
			hp_errors++;
		w->op = "idle";
		hp_cycles++;
		__atomic_add_fetch(&w->ops, 1, __ATOMIC_RELAXED);
		msleep(100 + rn(800));
	}
	return NULL;
}

static void *producer_fn(void *arg)
{
	struct worker *w = arg;
	int pfd = open(TBP_DEVICE, O_RDWR | O_CLOEXEC);

	w->tid = (pid_t)syscall(SYS_gettid);
	rng = seed ^ 0x7654321;
	if (pfd < 0) {
		printf("no %s: %s\n", TBP_DEVICE, strerror(errno));
		return NULL;
	}
	while (!stop) {
		struct slot *s;
		struct tbp_start st = { .contexts = prod_ctx, .size = 40 + 8 * rn(28),
					.batch = 1 + rn(8), .count = 1000000,
					.period_ns = 20000 + rn(200000) };
		struct tbp_stats stats;
		int r, i, k;

		w->op = "producer start";
		__atomic_store_n(&w->since, now_ms(), __ATOMIC_RELAXED);
		/* The first session, from a random one on, that has a ring. */
		for (i = 0, k = rn(NSLOT), r = -1; r && i < NSLOT; i++) {
			s = &slots[(k + i) % NSLOT];
			pthread_rwlock_rdlock(&s->fd_lock);
			st.fd = s->fd;
			r = ioctl(pfd, TBP_IOC_START, &st);
			pthread_rwlock_unlock(&s->fd_lock);
		}
		if (r) {
			prod_errors++;	/* no ring on that session yet: fine */
			w->op = "idle";
			msleep(20);
		} else {
			prod_runs++;
			w->op = "idle";
			msleep(50 + rn(300));
			w->op = "producer stop";
			__atomic_store_n(&w->since, now_ms(), __ATOMIC_RELAXED);
			if (ioctl(pfd, TBP_IOC_STOP, &stats))
				fail("tb_producer STOP: errno %d", errno);
			w->op = "idle";
		}
		__atomic_add_fetch(&w->ops, 1, __ATOMIC_RELAXED);
	}
	close(pfd);
	return NULL;
}

static void dump_task(pid_t tid)
{
	char path[96], buf[2048];
	ssize_t n;
	int fd;

	snprintf(path, sizeof(path), "/proc/self/task/%d/stack", tid);
	fd = open(path, O_RDONLY);
	if (fd < 0)
		return;
	n = read(fd, buf, sizeof(buf) - 1);
	close(fd);
	if (n > 0) {
		buf[n] = 0;
		printf("%s", buf);
	}
}

static int nthreads;

/* A thread stuck in one operation for hang_s seconds: report and leave. */
static void *watchdog_fn(void *arg)
{
	(void)arg;
	while (!stop) {
		int64_t t = now_ms();
		int i;

		msleep(500);
		for (i = 0; i < nthreads; i++) {
			struct worker *w = &workers[i];
			int64_t since = __atomic_load_n(&w->since, __ATOMIC_RELAXED);
			const char *op = w->op;

			if (!op || !strcmp(op, "idle") || t - since < hang_s * 1000LL)
				continue;
			printf("not ok: HANG: thread %d stuck in '%s' for %lld ms (seed %llu)\n",
			       i, op, (long long)(t - since), (unsigned long long)seed);
			for (i = 0; i < nthreads; i++) {
				printf("thread %d (tid %d) in '%s':\n", i, workers[i].tid,
				       workers[i].op ? workers[i].op : "?");
				dump_task(workers[i].tid);
			}
			write_str("/proc/sysrq-trigger", "w");
			fflush(stdout);
			_exit(3);
		}
	}
	return NULL;
}

/* ---- the quiet session: accounting identities ---------------------------- */

/*
 * Trace bytes the emulated hardware produced so far (its debugfs): Intel
 * PT, what CPU 0's unit wrote (tb_ptemu cpu0/stats bytes_written);
 * CoreSight, what the shared sink wrote (tb_csemu sink0/stats bytes).
 * -1 if not readable.
 */
static long long emu_produced(void)
{
	const char *path = hw_cs ? "/sys/kernel/debug/tb_csemu/sink0/stats" :
				   "/sys/kernel/debug/tb_ptemu/cpu0/stats";
	const char *want = hw_cs ? "bytes" : "bytes_written";
	long long v = -1, x;
	char key[64], line[160];
	FILE *f = fopen(path, "r");

	if (!f)
		return -1;
	while (fgets(line, sizeof(line), f))
		if (sscanf(line, "%63s %lld", key, &x) == 2 && !strcmp(key, want)) {
			v = x;
			break;
		}
	fclose(f);
	return v;
}

struct waiter {
	int pfd;
	struct tbp_stats st;
	int ret;
	volatile int done;
};

static void *wait_fn(void *arg)
{
	struct waiter *w = arg;

	w->ret = ioctl(w->pfd, TBP_IOC_WAIT, &w->st) ? -errno : 0;
	__atomic_store_n(&w->done, 1, __ATOMIC_RELEASE);
	return NULL;
}

static void quiet_check(void)
{
	const uint64_t ds = 64 * 4096, as = 32 * 4096;
	struct tracebuf_setup su = { .size = sizeof(su) };
	struct tbp_start st = { .contexts = 0, .size = 64, .batch = 2, .count = 1500,
				.period_ns = 100000 };
	struct waiter w = { 0 };
	struct mapping dm = { 0 }, am = { 0 };
	struct tracebuf_ctl *c;
	struct tally t = { 0 };
	uint64_t bits = 3, attempted = 0, ok = 0, failed = 0, atail = 0;
	long long e0 = -1, e1 = -1;
	int fd, r, i, mlost = 0, aux = 0;
	pthread_t th;
	void *p;

	printf("quiet session: accounting\n");
	fd = tb_open();
	TBT_CHECK(fd >= 0, "open: %s", strerror(errno));
	snprintf(su.backend, sizeof(su.backend), "%s", *hw ? hw : TRACEBUF_BACKEND_DATA);
	if (hw_cs) {
		su.target = TRACEBUF_TARGET_CPUSET;
		su.cpuset_ptr = (uintptr_t)&bits;
		su.cpuset_size = 8;
	} else {
		su.target = TRACEBUF_TARGET_CPU;
		su.cpu = 0;
	}
	r = ioctl(fd, TRACEBUF_IOC_SETUP, &su);
	TBT_CHECK(r == 0, "quiet SETUP: %s", strerror(errno));
	p = mmap(NULL, pg + 2 * ds, PROT_READ | PROT_WRITE, MAP_SHARED, fd, 0);
	TBT_CHECK(p != MAP_FAILED, "quiet mmap: %s", strerror(errno));
	if (r || p == MAP_FAILED)
		return;
	dm.addr = p;
	dm.len = pg + 2 * ds;
	dm.data_size = ds;
	c = p;
	if (*hw) {
		c->aux_offset = pg + 2 * ds;
		c->aux_size = as;
		p = mmap(NULL, as, PROT_READ | PROT_WRITE, MAP_SHARED, fd, pg + 2 * ds);
		TBT_CHECK(p != MAP_FAILED, "quiet AUX mmap: %s", strerror(errno));
		if (p != MAP_FAILED) {
			am.addr = p;
			am.len = as;
			aux = 1;
			e0 = emu_produced();
			r = ioctl(fd, TRACEBUF_IOC_ENABLE);
			TBT_CHECK(r == 0, "quiet ENABLE: %s", strerror(errno));
		}
	}
	st.contexts = prod_ctx;
	w.pfd = open(TBP_DEVICE, O_RDWR | O_CLOEXEC);
	TBT_CHECK(w.pfd >= 0, "open %s: %s", TBP_DEVICE, strerror(errno));
	st.fd = fd;
	TBT_CHECK(w.pfd >= 0 && ioctl(w.pfd, TBP_IOC_START, &st) == 0, "producer START: %s",
		  strerror(errno));
	pthread_create(&th, NULL, wait_fn, &w);
	while (!__atomic_load_n(&w.done, __ATOMIC_ACQUIRE)) {
		struct pollfd pf = { .fd = fd, .events = POLLIN };

		poll(&pf, 1, 20);
		if (aux)
			consume_aux(&am, c, &atail);
		consume_data(&dm, &t);
	}
	pthread_join(th, NULL);
	TBT_CHECK(w.ret == 0, "producer WAIT: %d", w.ret);
	if (aux) {
		TBT_CHECK(ioctl(fd, TRACEBUF_IOC_DISABLE) == 0, "quiet DISABLE: %s",
			  strerror(errno));
		e1 = emu_produced();
		consume_aux(&am, c, &atail);
	}
	consume_data(&dm, &t);
	/* A marker that fits reports any loss still pending in a LOST record. */
	{
		struct tracebuf_user_marker m = { .size = sizeof(m), .cookie = 1 };

		r = ioctl(fd, TRACEBUF_IOC_USER_MARKER, &m);
		mlost = r != 0;
		TBT_CHECK(r == 0, "final marker: %s", strerror(errno));
	}
	consume_data(&dm, &t);

	for (i = 0; i < TBP_NR_CTX; i++) {
		attempted += w.st.attempted[i];
		ok += w.st.ok[i];
		failed += w.st.failed[i];
	}
	printf("quiet: produced %llu test records (%llu ok, %llu failed), delivered %llu "
	       "records (%llu test, %llu user, %llu AUX), %llu LOST records counting %llu; "
	       "ctl: written %llu lost %llu aux_head %llu aux_published %llu padding %llu "
	       "truncations %llu\n",
	       (unsigned long long)attempted, (unsigned long long)ok, (unsigned long long)failed,
	       (unsigned long long)t.delivered, (unsigned long long)t.test,
	       (unsigned long long)t.user, (unsigned long long)t.aux_recs,
	       (unsigned long long)t.lost_recs, (unsigned long long)t.lost_count,
	       (unsigned long long)c->records_written, (unsigned long long)c->records_lost,
	       (unsigned long long)c->aux_head, (unsigned long long)c->aux_published,
	       (unsigned long long)c->aux_padding, (unsigned long long)c->aux_truncations);
	TBT_CHECK(t.bad == 0, "%llu corrupt records", (unsigned long long)t.bad);
	TBT_CHECK(attempted == ok + failed, "producer: ok + failed != attempted");
	TBT_CHECK(t.test == ok, "test records delivered %llu, producer committed %llu",
		  (unsigned long long)t.test, (unsigned long long)ok);
	TBT_CHECK(c->records_written == t.delivered,
		  "records_written %llu != records delivered %llu",
		  (unsigned long long)c->records_written, (unsigned long long)t.delivered);
	if (!mlost)
		TBT_CHECK(c->records_lost == t.lost_count,
			  "records_lost %llu != sum of LOST counts %llu",
			  (unsigned long long)c->records_lost, (unsigned long long)t.lost_count);
	TBT_CHECK(c->records_lost >= failed, "records_lost %llu < producer failures %llu",
		  (unsigned long long)c->records_lost, (unsigned long long)failed);
	/* produced = delivered + lost, for the records we produced ourselves. */
	TBT_CHECK(t.test + failed == attempted, "test records: delivered + lost != produced");
	if (aux) {
		TBT_CHECK(c->aux_published > 0, "the emulator traced nothing");
		TBT_CHECK(c->aux_head == atail, "aux_head moved after DISABLE");
		if (c->records_lost == failed) {
			/* Every AUX record arrived: they sum up to aux_published. */
			TBT_CHECK(t.aux_bytes == c->aux_published,
				  "sum of AUX record sizes %llu != aux_published %llu",
				  (unsigned long long)t.aux_bytes,
				  (unsigned long long)c->aux_published);
			TBT_CHECK(t.aux_gaps == 0 && t.aux_next == c->aux_head,
				  "AUX spans not back to back: %llu gaps, end %llu, aux_head %llu",
				  (unsigned long long)t.aux_gaps, (unsigned long long)t.aux_next,
				  (unsigned long long)c->aux_head);
			/*
			 * produced = published + lost: what the emulated hardware
			 * wrote, plus the padding the kernel added, is what the
			 * AUX records cover plus the LOST(AUX_OVERRUN) bytes
			 * (a lower bound when flagged AT_LEAST).
			 */
			printf("quiet: emulator produced %lld bytes, %llu lost (AUX_OVERRUN), "
			       "%llu lower bounds\n", e0 < 0 || e1 < 0 ? -1 : e1 - e0,
			       (unsigned long long)t.aux_lost,
			       (unsigned long long)t.aux_lost_atleast);
			TBT_CHECK(e0 >= 0 && e1 >= e0, "emulator counters unreadable");
			if (e0 >= 0 && e1 >= e0 && !t.aux_lost_atleast)
				TBT_CHECK((uint64_t)(e1 - e0) + c->aux_padding ==
					  c->aux_published + t.aux_lost,
					  "produced %lld + padding %llu != published %llu + lost %llu",
					  e1 - e0, (unsigned long long)c->aux_padding,
					  (unsigned long long)c->aux_published,
					  (unsigned long long)t.aux_lost);
			else if (e0 >= 0 && e1 >= e0)
				TBT_CHECK((uint64_t)(e1 - e0) + c->aux_padding >=
					  c->aux_published + t.aux_lost,
					  "produced %lld + padding %llu < published %llu + lost %llu",
					  e1 - e0, (unsigned long long)c->aux_padding,
					  (unsigned long long)c->aux_published,
					  (unsigned long long)t.aux_lost);
		} else {
			printf("quiet: kernel records were lost too: AUX sums not comparable\n");
		}
		munmap(am.addr, am.len);
	}
	close(w.pfd);
	munmap(dm.addr, dm.len);
	close(fd);
}

/*
 * The emulators' own rule counters (debugfs): zero. tb_ptemu counts per
 * CPU ("violations" in cpuN/stats, including writes into freed pages);
 * tb_csemu in one file.
 */
static void emu_violations(void)
{
	char path[96], k[64];
	unsigned long long v, total = 0;
	int cpu, found = 0;
	FILE *f;

	for (cpu = 0; cpu < ncpu; cpu++) {
		snprintf(path, sizeof(path), "/sys/kernel/debug/tb_ptemu/cpu%d/stats", cpu);
		f = fopen(path, "r");
		if (!f)
			continue;
		while (fscanf(f, "%63s %llu", k, &v) == 2)
			if (!strcmp(k, "violations"))
				total += v, found++;
		fclose(f);
	}
	f = fopen("/sys/kernel/debug/tb_csemu/violations", "r");
	if (f) {
		if (fscanf(f, "%llu", &v) == 1)
			total += v, found++;
		fclose(f);
	}
	printf("emulator violations: %llu (%d counters)\n", total, found);
	TBT_CHECK(total == 0, "emulator violations: %llu (seed %llu)", total,
		  (unsigned long long)seed);
}

/* ------------------------------------------------------------------------ */

static void find_hw(void)
{
	struct tracebuf_backend_desc d[4];
	struct tracebuf_info in = { .size = sizeof(in), .backends_max = 4,
				    .backend_desc_size = sizeof(d[0]),
				    .backends_ptr = (uintptr_t)d };
	int fd = tb_open();

	memset(d, 0, sizeof(d));
	if (fd >= 0 && ioctl(fd, TRACEBUF_IOC_GET_INFO, &in) == 0 && in.nr_backends) {
		snprintf(hw, sizeof(hw), "%s", d[0].name);
		hw_cs = d[0].id == TRACEBUF_BACKEND_CORESIGHT;
	}
	if (fd >= 0)
		close(fd);
}

int main(int argc, char **argv)
{
	double duration = 30, t0;
	struct sigaction sa;
	const char *e, *skip;
	pthread_t th[MAXWORK + 3];
	int nwork, i, hotplug;

	setvbuf(stdout, NULL, _IOLBF, 0);
	pg = sysconf(_SC_PAGESIZE);
	ncpu = (int)sysconf(_SC_NPROCESSORS_CONF);
	/* Environment first, then arguments: SECONDS and/or key=value. */
	if ((e = getenv("ADVERSARY_DURATION")))
		duration = atof(e);
	seed = (uint64_t)time(NULL) ^ ((uint64_t)getpid() << 32);
	if ((e = getenv("ADVERSARY_SEED")))
		seed = strtoull(e, NULL, 0);
	if ((e = getenv("ADVERSARY_MAX_OPS")))
		max_ops = strtoul(e, NULL, 0);
	if ((e = getenv("ADVERSARY_HANG")))
		hang_s = atoi(e);
	skip = getenv("ADVERSARY_SKIP");
	for (i = 1; i < argc; i++) {
		if (!strncmp(argv[i], "seed=", 5))
			seed = strtoull(argv[i] + 5, NULL, 0);
		else if (!strncmp(argv[i], "max_ops=", 8))
			max_ops = strtoul(argv[i] + 8, NULL, 0);
		else if (!strncmp(argv[i], "hang=", 5))
			hang_s = atoi(argv[i] + 5);
		else if (!strncmp(argv[i], "ctx=", 4))
			prod_ctx = strtoul(argv[i] + 4, NULL, 0);
		else if (!strncmp(argv[i], "skip=", 5))
			skip = argv[i] + 5;
		else
			duration = atof(argv[i]);
	}
	if (skip)
		for (i = 0; i < NR_OPS; i++) {
			const char *p = strstr(skip, ops[i].name);
			size_t l = strlen(ops[i].name);

			if (p && (p == skip || p[-1] == ',') && (p[l] == 0 || p[l] == ',')) {
				skip_op[i] = 1;
				printf("skipping %s\n", ops[i].name);
			}
		}
	printf("adversary: seed %llu (ADVERSARY_SEED), %.0f s, at most %lu operations\n",
	       (unsigned long long)seed, duration, max_ops);

	if (tbt_modprobe("tracebuf") || tbt_modprobe("tb_producer"))
		return 1;
#if defined(__x86_64__)
	if (tbt_modprobe("tb_ptemu") == 0)
		write_str("/sys/kernel/debug/tb_ptemu/rate", "8192");
#elif defined(__aarch64__)
	tbt_modprobe("tb_csemu");
#endif
	find_hw();
	printf("hardware backend: %s; %d CPUs\n", *hw ? hw : "(none)", ncpu);

	memset(&sa, 0, sizeof(sa));
	sa.sa_sigaction = on_fault;
	sa.sa_flags = SA_SIGINFO | SA_NODEFER;
	sigaction(SIGSEGV, &sa, NULL);
	sigaction(SIGBUS, &sa, NULL);
	sa.sa_sigaction = on_sigio;
	sa.sa_flags = SA_SIGINFO | SA_RESTART;
	sigaction(SIGIO, &sa, NULL);
	sigaction(SIGRTMIN + 1, &sa, NULL);
	signal(SIGPIPE, SIG_IGN);

	epfd = epoll_create1(EPOLL_CLOEXEC);
	TBT_CHECK(epfd >= 0, "epoll_create1");
	for (i = 0; i < NSLOT; i++) {
		pthread_rwlock_init(&slots[i].fd_lock, NULL);
		pthread_rwlock_init(&slots[i].map_lock, NULL);
		pthread_mutex_init(&slots[i].consume, NULL);
		slots[i].fd = tb_open();
		TBT_CHECK(slots[i].fd >= 0, "open: %s", strerror(errno));
		if (slots[i].fd < 0)
			return tbt_done();
	}

	nwork = 2 * ncpu;
	if (nwork < 4)
		nwork = 4;
	if (nwork > MAXWORK)
		nwork = MAXWORK;
	hotplug = ncpu > 1 && access(ONLINE1, W_OK) == 0;
	nthreads = nwork + 1 + hotplug;
	for (i = 0; i < nwork; i++) {
		workers[i].id = i;
		workers[i].op = "idle";
		pthread_create(&th[i], NULL, worker_fn, &workers[i]);
	}
	workers[nwork].op = "idle";
	pthread_create(&th[nwork], NULL, producer_fn, &workers[nwork]);
	if (hotplug) {
		workers[nwork + 1].op = "idle";
		pthread_create(&th[nwork + 1], NULL, hotplug_fn, &workers[nwork + 1]);
	} else {
		printf("no CPU hotplug for cpu1 here\n");
	}
	{
		pthread_t wd;

		pthread_create(&wd, NULL, watchdog_fn, NULL);
		pthread_detach(wd);
	}

	t0 = now_s();
	while (now_s() - t0 < duration &&
	       __atomic_load_n(&total_ops, __ATOMIC_RELAXED) < max_ops) {
		msleep(1000);
		printf("  %.0f s: %lu operations, %lu failures\n", now_s() - t0,
		       __atomic_load_n(&total_ops, __ATOMIC_RELAXED), nfail);
	}
	stop = 1;
	for (i = 0; i < nthreads; i++)
		pthread_join(th[i], NULL);
	if (hotplug && write_str(ONLINE1, "1"))
		TBT_CHECK(0, "cpu1 does not come back online");

	printf("operations:");
	for (i = 0; i < NR_OPS; i++)
		printf(" %s %lu", ops[i].name, op_count[i]);
	if (no_madvise)
		printf("\nno madvise(2) in this kernel: the madvise operations did nothing");
	printf("\nhotplug cycles %lu (%lu errors), producer runs %lu (%lu refused), "
	       "SIGIO %lu, RT %lu, bad si_code %lu\n", hp_cycles, hp_errors, prod_runs,
	       prod_errors, sigio_plain, sigio_rt, sigio_bad);
	if (sigio_bad)
		fail("SIGIO with an si_code other than POLL_IN/POLL_HUP (%lu)", sigio_bad);

	/* Tear everything down, then one quiet session. */
	for (i = 0; i < NSLOT; i++) {
		struct slot *s = &slots[i];

		while (s->nmaps) {
			s->nmaps--;
			if (munmap(s->maps[s->nmaps].addr, s->maps[s->nmaps].len))
				fail("final munmap: errno %d", errno);
		}
		close(s->fd);
	}
	close(epfd);
	signal(SIGIO, SIG_IGN);
	signal(SIGRTMIN + 1, SIG_IGN);
	quiet_check();
	emu_violations();

	if (nfail) {
		printf("%lu ABI violations, by kind (seed %llu):\n", nfail,
		       (unsigned long long)seed);
		for (i = 0; i < nkinds; i++)
			printf("  %6lu  %s\n", kinds[i].n, kinds[i].what);
		tbt_failures += nfail;
	}
	/* The tests that follow load the modules with their own parameters. */
	tbt_rmmod("tb_producer");
	if (tbt_module_loaded("tb_ptemu"))
		tbt_rmmod("tb_ptemu");
	if (tbt_module_loaded("tb_csemu"))
		tbt_rmmod("tb_csemu");
	return tbt_done();
}
