// SPDX-License-Identifier: GPL-2.0
/*
 * The sideband of 'tracebuf record' (record_sb.h, docs/capture-format.md
 * "Sideband"): what a decoder needs besides the trace, in perf's record
 * format (struct perf_event_header, <linux/perf_event.h>) so that one
 * reader serves every source:
 *
 *  - cpuN.sb: the ring of a perf dummy event (PERF_COUNT_SW_DUMMY) per
 *    CPU, as perf opens one for its side-band: mmap2 (with the build-id,
 *    PERF_RECORD_MISC_MMAP_BUILD_ID, 5.12+), comm (with exec), task
 *    (fork/exit) and context_switch records of the traced process and its
 *    children (inherit), or of every process (CPU-wide), sample_id_all
 *    with TID, TIME and CPU, and use_clockid CLOCK_MONOTONIC so that their
 *    times are those of tracebuf's own records (ktime_get_mono_fast_ns()
 *    in both). The ring is copied verbatim.
 *  - proc.sb: records the tool makes itself from /proc (as perf
 *    synthesizes the state of processes that exist before it starts):
 *    the traced process before the recording (the command's child before
 *    its exec runs this tool's code; -p's process), and, when perf
 *    refuses the dummy events (Debian's kernel.perf_event_paranoid=3), the
 *    whole sideband: an exec or a fork the data rings' SWITCH and TASK
 *    records show makes the tool read /proc/PID/maps, comm and the
 *    threads, and every tick reads the maps of the live processes again.
 *    That sideband is partial (mappings are dated when the tool saw them;
 *    a process that ends before the tool looks is missed) and meta.json
 *    says so.
 *  - vdso.so: the vDSO, read from the traced process's memory
 *    (/proc/PID/mem, as perf copies it), or the tool's own (same kernel,
 *    same ABI) when that cannot be read.
 *
 * Clocks: trace timestamps (the TSC on x86_64, CNTVCT_EL0 on arm64) are
 * converted to CLOCK_MONOTONIC by a line through two pairs of readings
 * (counter, clock_gettime) taken at the start and at the end, each the
 * closest of 16 tries, written in perf's perf_event_mmap_page form
 * (time_zero, time_mult, time_shift). The sideband's clock is
 * CLOCK_MONOTONIC too, so one conversion serves both.
 */
#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <inttypes.h>
#include <limits.h>
#include <sched.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/auxv.h>
#include <sys/ioctl.h>
#include <sys/mman.h>
#include <sys/prctl.h>
#include <sys/stat.h>
#include <sys/syscall.h>
#include <sys/uio.h>
#include <time.h>
#include <unistd.h>

#include <elf.h>
#include <linux/perf_event.h>

#include "record_sb.h"
#include "tool.h"

#define SB_RING_PAGES	32		/* perf ring per CPU: 128 KiB with 4 KiB pages */
#define SB_SAMPLE_TYPE	(PERF_SAMPLE_TID | PERF_SAMPLE_TIME | PERF_SAMPLE_CPU)
#define SB_TRAILER	24		/* pid, tid; time; cpu, res */
#define SB_PROC_FILE	"proc.sb"
#define SB_VDSO_FILE	"vdso.so"
#define BUILD_ID_MAX	20
#define MAX_PATH_LEN	4096

/* ---- small helpers -------------------------------------------------------- */

static uint64_t mono_ns(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (uint64_t)ts.tv_sec * 1000000000ULL + (uint64_t)ts.tv_nsec;
}

static void *xrealloc(void *p, size_t n)
{
	void *q = realloc(p, n ? n : 1);

	if (!q) {
		fprintf(stderr, "tracebuf: out of memory\n");
		exit(TB_EXIT_FAIL);
	}
	return q;
}

static int write_full(int fd, const void *buf, size_t len)
{
	const char *p = buf;

	while (len) {
		ssize_t n = write(fd, p, len);

		if (n < 0 && errno == EINTR)
			continue;
		if (n <= 0)
			return n < 0 ? -errno : -EIO;
		p += n;
		len -= (size_t)n;
	}
	return 0;
}

static void hex(char *out, const uint8_t *b, unsigned int n)
{
	unsigned int i;

	for (i = 0; i < n; i++)
		sprintf(out + 2 * i, "%02x", b[i]);
	out[2 * n] = 0;
}

/* ---- build-ids: the GNU build-id note of an ELF image ------------------- */

/*
 * NT_GNU_BUILD_ID in a sequence of ELF notes (a PT_NOTE segment, or
 * /sys/kernel/notes). Both ELF classes use 4-byte note headers and 4-byte
 * alignment for GNU notes. Returns the length, 0 if none.
 */
static unsigned int notes_build_id(const uint8_t *p, size_t len, uint8_t *id)
{
	size_t off = 0;

	while (len - off >= 12) {
		uint32_t nsz, dsz, type;
		size_t nal, dal;

		memcpy(&nsz, p + off, 4);
		memcpy(&dsz, p + off + 4, 4);
		memcpy(&type, p + off + 8, 4);
		nal = ((size_t)nsz + 3) & ~(size_t)3;
		dal = ((size_t)dsz + 3) & ~(size_t)3;
		if (nal > len - off - 12 || dal > len - off - 12 - nal)
			return 0;
		if (type == NT_GNU_BUILD_ID && nsz == 4 && !memcmp(p + off + 12, "GNU", 4) &&
		    dsz && dsz <= BUILD_ID_MAX) {
			memcpy(id, p + off + 12 + nal, dsz);
			return dsz;
		}
		off += 12 + nal + dal;
	}
	return 0;
}

/*
 * The build-id of an ELF image in memory (a file mapped, the vDSO): the
 * GNU note of a PT_NOTE segment, as the kernel's build_id_parse() and
 * perf's minimal reader (tools/perf/util/symbol-minimal.c) find it.
 */
static unsigned int elf_build_id(const uint8_t *img, size_t len, uint8_t *id)
{
	unsigned int i, n;

	if (len < EI_NIDENT || memcmp(img, ELFMAG, SELFMAG))
		return 0;
	if (img[EI_CLASS] == ELFCLASS64 && len >= sizeof(Elf64_Ehdr)) {
		Elf64_Ehdr eh;

		memcpy(&eh, img, sizeof(eh));
		for (i = 0; i < eh.e_phnum; i++) {
			Elf64_Phdr ph;
			uint64_t at = eh.e_phoff + (uint64_t)i * eh.e_phentsize;

			if (eh.e_phentsize < sizeof(ph) || at > len || len - at < sizeof(ph))
				return 0;
			memcpy(&ph, img + at, sizeof(ph));
			if (ph.p_type != PT_NOTE || ph.p_offset > len ||
			    ph.p_filesz > len - ph.p_offset)
				continue;
			n = notes_build_id(img + ph.p_offset, (size_t)ph.p_filesz, id);
			if (n)
				return n;
		}
	} else if (img[EI_CLASS] == ELFCLASS32 && len >= sizeof(Elf32_Ehdr)) {
		Elf32_Ehdr eh;

		memcpy(&eh, img, sizeof(eh));
		for (i = 0; i < eh.e_phnum; i++) {
			Elf32_Phdr ph;
			uint64_t at = eh.e_phoff + (uint64_t)i * eh.e_phentsize;

			if (eh.e_phentsize < sizeof(ph) || at > len || len - at < sizeof(ph))
				return 0;
			memcpy(&ph, img + at, sizeof(ph));
			if (ph.p_type != PT_NOTE || ph.p_offset > len ||
			    ph.p_filesz > len - ph.p_offset)
				continue;
			n = notes_build_id(img + ph.p_offset, ph.p_filesz, id);
			if (n)
				return n;
		}
	}
	return 0;
}

static unsigned int file_build_id(const char *path, uint8_t *id)
{
	struct stat st;
	unsigned int n = 0;
	void *m;
	int fd;

	if (path[0] != '/')
		return 0;
	fd = open(path, O_RDONLY | O_CLOEXEC);
	if (fd < 0)
		return 0;
	if (!fstat(fd, &st) && S_ISREG(st.st_mode) && st.st_size > 0) {
		m = mmap(NULL, (size_t)st.st_size, PROT_READ, MAP_PRIVATE, fd, 0);
		if (m != MAP_FAILED) {
			n = elf_build_id(m, (size_t)st.st_size, id);
			munmap(m, (size_t)st.st_size);
		}
	}
	close(fd);
	return n;
}

/* ---- the counter and CLOCK_MONOTONIC -------------------------------------- */

struct clkpair {
	uint64_t counter, mono;
	int ok;
};

static int counter_read(uint64_t *v)
{
#if defined(__x86_64__)
	unsigned int lo, hi;
	int tsc = 0;

	/* PR_TSC_SIGSEGV: RDTSC would fault in this process. */
	if (prctl(PR_GET_TSC, &tsc, 0, 0, 0) == 0 && tsc == PR_TSC_SIGSEGV)
		return -1;
	__asm__ volatile("rdtsc" : "=a"(lo), "=d"(hi));
	*v = (uint64_t)hi << 32 | lo;
	return 0;
#elif defined(__aarch64__)
	uint64_t x;

	/* The ISB keeps the read from being taken early (as the vDSO does). */
	__asm__ volatile("isb; mrs %0, cntvct_el0" : "=r"(x) : : "memory");
	*v = x;
	return 0;
#else
	(void)v;
	return -1;
#endif
}

static const char *counter_name(void)
{
#if defined(__x86_64__)
	return "tsc";
#elif defined(__aarch64__)
	return "cntvct";
#else
	return NULL;
#endif
}

static uint64_t counter_hz(void)
{
#if defined(__aarch64__)
	uint64_t f;

	__asm__ volatile("mrs %0, cntfrq_el0" : "=r"(f));
	return f;
#else
	return 0;	/* the TSC's rate is not readable from user space */
#endif
}

/* The closest of 16 (clock, counter, clock) readings. */
static void clk_pair(struct clkpair *p)
{
	uint64_t best = UINT64_MAX, c, a, b;
	int i;

	p->ok = 0;
	for (i = 0; i < 16; i++) {
		a = mono_ns();
		if (counter_read(&c))
			return;
		b = mono_ns();
		if (b - a < best) {
			best = b - a;
			p->counter = c;
			p->mono = a + (b - a) / 2;
			p->ok = 1;
		}
	}
}

struct timeconv {
	uint64_t time_zero;
	uint32_t time_mult;
	uint16_t time_shift;
	int ok;
};

/*
 * The line through the two pairs in perf's form: ns = time_zero +
 * (c >> shift) * mult + (((c & mask) * mult) >> shift), wrapping 64-bit
 * arithmetic, mult < 2^32 with the largest shift that allows.
 */
static void fit(const struct clkpair *a, const struct clkpair *b, struct timeconv *t)
{
	uint64_t dc, dm, q, r, m;
	unsigned __int128 mult = 0;
	int s;

	t->ok = 0;
	if (!a->ok || !b->ok || b->counter <= a->counter || b->mono <= a->mono)
		return;
	dc = b->counter - a->counter;
	dm = b->mono - a->mono;
	for (s = 32; s >= 0; s--) {
		mult = (((unsigned __int128)dm << s) + dc / 2) / dc;
		if (mult < (1ULL << 32))
			break;
	}
	if (s < 0 || !mult)
		return;
	t->time_mult = (uint32_t)mult;
	t->time_shift = (uint16_t)s;
	q = a->counter >> s;
	m = s ? (1ULL << s) - 1 : 0;
	r = a->counter & m;
	t->time_zero = a->mono - (q * t->time_mult + ((r * t->time_mult) >> s));
	t->ok = 1;
}

/* ---- the sideband ---------------------------------------------------------- */

/* One perf dummy event's ring. */
struct sbring {
	unsigned int cpu;
	int fd, out;
	char name[24];		/* "cpuN.sb" */
	struct perf_event_mmap_page *pg;
	size_t map_len;
	unsigned char *data;
	uint64_t size;		/* data bytes, 2^n */
	uint64_t records, bytes, lost;
	int corrupt;
};

/* An executable mapping as /proc/PID/maps shows it. */
struct pmap {
	uint64_t start, end, pgoff, ino;
	uint32_t maj, min, prot, flags;
	char *path;
};

struct pproc {
	pid_t pid;
	int alive;
	struct pmap *maps;	/* what was last written for it */
	unsigned int nmaps;
	struct pmap *initial;	/* read right after the command's exec */
	unsigned int ninitial;
	int have_initial;
};

/* An event of the data rings the /proc sideband acts on, at the next tick. */
struct pev {
	uint64_t time;
	uint32_t pid, tid, ppid, cpu;
	enum { PEV_EXEC, PEV_TID, PEV_FORK, PEV_EXIT } kind;
};

/* A record of proc.sb, kept until the end (written sorted by time). */
struct prec {
	uint64_t time, seq;
	size_t off;
};

struct rsb {
	struct rsb_opts o;
	enum rsb_mode mode;	/* what is used: PERF, PROC or NONE */
	char why[256];		/* why not perf ("" when perf) */
	int build_id_attr;	/* the kernel gives build-ids in mmap2 */
	struct sbring *rings;
	unsigned int nrings;
	long page;

	/* proc.sb */
	int proc_fd;
	unsigned char *pbuf;
	size_t plen, pcap;
	struct prec *precs;
	size_t nprecs, cap_precs;
	uint64_t pseq, p_records, p_bytes;

	struct pproc *procs;
	unsigned int nprocs;
	pid_t *tids;
	unsigned int ntids;
	struct pev *evs;
	size_t nevs;
	uint64_t start_time;	/* when the traced process became what it is */

	/* vDSO */
	int vdso_done;
	uint64_t vdso_size;
	uint8_t vdso_bid[BUILD_ID_MAX];
	unsigned int vdso_bid_len;
	const char *vdso_source;

	struct clkpair c0, c1;
	struct timeconv tc;
	char kernel_bid[2 * BUILD_ID_MAX + 1];
	int failed;
};

static long sys_perf_event_open(struct perf_event_attr *a, pid_t pid, int cpu, int group,
				unsigned long flags)
{
	return syscall(SYS_perf_event_open, a, pid, cpu, group, flags);
}

static int paranoid_level(void)
{
	char buf[16];
	int fd = open("/proc/sys/kernel/perf_event_paranoid", O_RDONLY | O_CLOEXEC);
	ssize_t n;

	if (fd < 0)
		return -100;
	n = read(fd, buf, sizeof(buf) - 1);
	close(fd);
	if (n <= 0)
		return -100;
	buf[n] = 0;
	return atoi(buf);
}

static void close_rings(struct rsb *r)
{
	unsigned int i;

	for (i = 0; i < r->nrings; i++) {
		if (r->rings[i].pg)
			munmap(r->rings[i].pg, r->rings[i].map_len);
		if (r->rings[i].fd >= 0)
			close(r->rings[i].fd);
		if (r->rings[i].out >= 0)
			close(r->rings[i].out);
	}
	free(r->rings);
	r->rings = NULL;
	r->nrings = 0;
}

/*
 * The dummy events, one per CPU. 0, or -errno with r->why saying which
 * call failed.
 */
static int open_rings(struct rsb *r)
{
	struct perf_event_attr a;
	size_t len = (size_t)(SB_RING_PAGES + 1) * (size_t)r->page;
	unsigned int i;
	int fd = -1, bid;

	r->rings = calloc(r->o.nr_cpus, sizeof(*r->rings));
	if (!r->rings)
		return -ENOMEM;
	for (i = 0; i < r->o.nr_cpus; i++)
		r->rings[i].fd = r->rings[i].out = -1;
	r->nrings = r->o.nr_cpus;
	for (i = 0; i < r->o.nr_cpus; i++) {
		struct sbring *g = &r->rings[i];
		void *m;

		g->cpu = r->o.cpus[i];
		snprintf(g->name, sizeof(g->name), "cpu%u.sb", g->cpu);
		for (bid = 1; bid >= 0; bid--) {
			memset(&a, 0, sizeof(a));
			a.size = sizeof(a);
			a.type = PERF_TYPE_SOFTWARE;
			a.config = PERF_COUNT_SW_DUMMY;
			a.sample_type = SB_SAMPLE_TYPE;
			a.sample_id_all = 1;
			a.mmap = 1;
			a.mmap2 = 1;
			a.comm = 1;
			a.comm_exec = 1;
			a.task = 1;
			a.context_switch = 1;
			a.build_id = (unsigned int)bid;
			a.exclude_kernel = 1;
			a.exclude_hv = 1;
			a.inherit = r->o.pid && r->o.inherit;
			a.use_clockid = 1;
			a.clockid = CLOCK_MONOTONIC;
			a.watermark = 1;
			a.wakeup_watermark = (uint32_t)(SB_RING_PAGES * r->page / 4);
			fd = (int)sys_perf_event_open(&a, r->o.pid ? r->o.pid : -1, (int)g->cpu, -1,
						      PERF_FLAG_FD_CLOEXEC);
			/* Before 5.12 the build_id bit is unknown: E2BIG or EINVAL. */
			if (fd >= 0 || (errno != EINVAL && errno != E2BIG))
				break;
		}
		if (fd < 0) {
			int e = errno;

			snprintf(r->why, sizeof(r->why), "perf_event_open: %s", strerror(e));
			if ((e == EACCES || e == EPERM) && paranoid_level() > -100) {
				size_t l = strlen(r->why);

				snprintf(r->why + l, sizeof(r->why) - l,
					 " (kernel.perf_event_paranoid is %d)", paranoid_level());
			}
			return -e;
		}
		r->build_id_attr = bid;
		g->fd = fd;
		m = mmap(NULL, len, PROT_READ | PROT_WRITE, MAP_SHARED, fd, 0);
		if (m == MAP_FAILED) {
			int e = errno;

			snprintf(r->why, sizeof(r->why), "mmap of a perf ring: %s%s", strerror(e),
				 e == EPERM ? " (kernel.perf_event_mlock_kb)" : "");
			return -e;
		}
		g->pg = m;
		g->map_len = len;
		g->data = (unsigned char *)m + r->page;
		g->size = (uint64_t)SB_RING_PAGES * (uint64_t)r->page;
		/* Since 4.1 the page says where the data is. */
		if (g->pg->data_offset && g->pg->data_size) {
			g->data = (unsigned char *)m + g->pg->data_offset;
			g->size = g->pg->data_size;
		}
	}
	return 0;
}

int rsb_open(struct rsb **rp, const struct rsb_opts *o)
{
	struct rsb *r = calloc(1, sizeof(*r));
	int ret;

	*rp = r;
	if (!r) {
		fprintf(stderr, "tracebuf: out of memory\n");
		return -1;
	}
	r->o = *o;
	r->proc_fd = -1;
	r->page = sysconf(_SC_PAGESIZE);
	if (r->page <= 0)
		r->page = 4096;
	clk_pair(&r->c0);
	r->start_time = mono_ns();
	r->mode = o->mode == RSB_AUTO ? RSB_PERF : o->mode;
	if (r->mode == RSB_PERF) {
		ret = open_rings(r);
		if (ret && o->mode == RSB_PERF) {
			fprintf(stderr, "tracebuf: cannot record the sideband with perf: %s%s\n",
				r->why, ret == -EACCES || ret == -EPERM ?
				"; for perf's sideband: sysctl kernel.perf_event_paranoid=2 (or "
				"run with CAP_SYS_ADMIN), or use --sideband proc" : "");
			return -1;
		}
		if (ret) {
			close_rings(r);
			r->mode = o->pid ? RSB_PROC : RSB_NONE;
			if (o->pid)
				fprintf(stderr, "tracebuf: partial sideband (read from /proc: late "
					"mappings, short-lived processes missed): %s; for the full "
					"sideband: sysctl kernel.perf_event_paranoid=2 (or run with "
					"CAP_SYS_ADMIN)\n", r->why);
			else
				fprintf(stderr, "tracebuf: no sideband (%s): the capture has no "
					"mmap, comm or switch events; for them: sysctl "
					"kernel.perf_event_paranoid=0 (or run with CAP_PERFMON)\n",
					r->why);
		}
	} else if (r->mode == RSB_PROC && !o->pid) {
		r->mode = RSB_NONE;
		snprintf(r->why, sizeof(r->why), "--sideband proc traces one process");
	} else if (r->mode == RSB_PROC) {
		snprintf(r->why, sizeof(r->why), "--sideband proc");
	} else if (r->mode == RSB_NONE) {
		snprintf(r->why, sizeof(r->why), "--sideband none");
	}
	return 0;
}

static int create(const struct rsb *r, const char *name)
{
	char path[PATH_MAX];
	int fd;

	snprintf(path, sizeof(path), "%s/%s", r->o.outdir, name);
	fd = open(path, O_WRONLY | O_CREAT | O_TRUNC | O_CLOEXEC, 0666);
	if (fd < 0)
		fprintf(stderr, "tracebuf: cannot create %s: %s\n", path, strerror(errno));
	return fd;
}

int rsb_create_files(struct rsb *r)
{
	unsigned int i;

	for (i = 0; i < r->nrings; i++) {
		r->rings[i].out = create(r, r->rings[i].name);
		if (r->rings[i].out < 0)
			return -1;
	}
	if (r->o.pid) {
		r->proc_fd = create(r, SB_PROC_FILE);
		if (r->proc_fd < 0)
			return -1;
	}
	return 0;
}

static void drain_ring(struct rsb *r, struct sbring *g);

/* A ring's watermark was reached: drain it now (the others at the tick). */
static int on_ring(void *ctx, int fd, unsigned int events)
{
	struct rsb *r = ctx;
	unsigned int i;

	(void)events;
	for (i = 0; i < r->nrings; i++)
		if (r->rings[i].fd == fd)
			drain_ring(r, &r->rings[i]);
	return 0;
}

int rsb_add_to_group(struct rsb *r, struct tracebuf_group *g)
{
	unsigned int i;
	int ret;

	for (i = 0; i < r->nrings; i++) {
		ret = tracebuf_group_add_fd(g, r->rings[i].fd, on_ring, r);
		if (ret) {
			fprintf(stderr, "tracebuf: epoll_ctl: %s\n", strerror(-ret));
			return -1;
		}
	}
	return 0;
}

/* ---- perf rings ------------------------------------------------------------ */

/* Copy what the kernel wrote to cpuN.sb, count its records and losses. */
static void drain_ring(struct rsb *r, struct sbring *g)
{
	uint64_t head, tail, pos;
	struct iovec iov[2];
	int cnt = 0, ret;

	if (!g->pg || g->corrupt)
		return;
	/* Pairs with the kernel's publication of data_head (perf_output_put_handle()). */
	head = __atomic_load_n(&g->pg->data_head, __ATOMIC_ACQUIRE);
	tail = g->pg->data_tail;
	if (head == tail)
		return;
	for (pos = tail; pos < head; ) {
		struct perf_event_header h;
		uint64_t at = pos & (g->size - 1);

		/* Records are 8-byte aligned, so a header never wraps. */
		memcpy(&h, g->data + at, sizeof(h));
		if (h.size < sizeof(h) || h.size % 8 || h.size > head - pos) {
			fprintf(stderr, "\ntracebuf: %s: a corrupt perf ring (record of %u bytes "
				"at %" PRIu64 "): the rest of this CPU's sideband is not read\n",
				g->name, h.size, pos);
			g->corrupt = 1;
			head = pos;
			break;
		}
		if (h.type == PERF_RECORD_LOST && h.size >= sizeof(h) + 16) {
			uint64_t n;
			unsigned int k;

			for (k = 0; k < 8; k++)
				((unsigned char *)&n)[k] =
					g->data[(pos + sizeof(h) + 8 + k) & (g->size - 1)];
			g->lost += n;
		}
		g->records++;
		pos += h.size;
	}
	if (head > tail) {
		uint64_t a = tail & (g->size - 1), n = head - tail;

		iov[cnt].iov_base = g->data + a;
		iov[cnt].iov_len = (size_t)(n < g->size - a ? n : g->size - a);
		cnt++;
		if (n > g->size - a) {
			iov[cnt].iov_base = g->data;
			iov[cnt].iov_len = (size_t)(n - (g->size - a));
			cnt++;
		}
		ret = 0;
		if (g->out >= 0) {
			ret = (int)writev(g->out, iov, cnt);
			if (ret >= 0 && (uint64_t)ret != n)
				ret = -1;	/* a short write to a regular file: the disk is full */
		}
		if (ret < 0 && !r->failed) {
			fprintf(stderr, "\ntracebuf: cannot write %s/%s: %s\n", r->o.outdir, g->name,
				strerror(errno ? errno : EIO));
			r->failed = 1;
		}
		g->bytes += n;
	}
	/* Pairs with the kernel's check for free space (perf_output_begin()). */
	__atomic_store_n(&g->pg->data_tail, head, __ATOMIC_RELEASE);
}

/* ---- proc.sb: records the tool makes ------------------------------------- */

static void put_rec(struct rsb *r, uint32_t type, uint16_t misc, const void *body, size_t blen,
		    uint32_t pid, uint32_t tid, uint64_t time, uint32_t cpu)
{
	size_t size = (sizeof(struct perf_event_header) + blen + 7) / 8 * 8 + SB_TRAILER;
	struct perf_event_header h = { .type = type, .misc = misc, .size = (uint16_t)size };
	unsigned char *p;
	uint32_t ids[2] = { pid, tid }, c[2] = { cpu, 0 };

	if (size > UINT16_MAX)
		return;
	if (r->plen + size > r->pcap) {
		r->pcap = (r->plen + size) * 2;
		r->pbuf = xrealloc(r->pbuf, r->pcap);
	}
	if (r->nprecs == r->cap_precs) {
		r->cap_precs = r->cap_precs ? 2 * r->cap_precs : 64;
		r->precs = xrealloc(r->precs, r->cap_precs * sizeof(*r->precs));
	}
	r->precs[r->nprecs].time = time;
	r->precs[r->nprecs].seq = r->pseq++;
	r->precs[r->nprecs].off = r->plen;
	r->nprecs++;
	p = r->pbuf + r->plen;
	memset(p, 0, size);
	memcpy(p, &h, sizeof(h));
	memcpy(p + sizeof(h), body, blen);
	p += size - SB_TRAILER;
	memcpy(p, ids, 8);
	memcpy(p + 8, &time, 8);
	memcpy(p + 16, c, 8);
	r->plen += size;
}

static uint32_t my_cpu(void)
{
	int c = sched_getcpu();

	return c < 0 ? 0 : (uint32_t)c;
}

static void put_comm(struct rsb *r, uint32_t pid, uint32_t tid, const char *comm, int exec,
		     uint64_t time, uint32_t cpu)
{
	struct {
		uint32_t pid, tid;
		char comm[16];
	} c;

	memset(&c, 0, sizeof(c));
	c.pid = pid;
	c.tid = tid;
	snprintf(c.comm, sizeof(c.comm), "%s", comm);
	put_rec(r, PERF_RECORD_COMM, exec ? PERF_RECORD_MISC_COMM_EXEC : 0, &c,
		8 + strlen(c.comm) + 1, pid, tid, time, cpu);
}

static void put_task(struct rsb *r, uint32_t type, uint32_t pid, uint32_t ppid, uint32_t tid,
		     uint32_t ptid, uint64_t time, uint32_t cpu)
{
	struct {
		uint32_t pid, ppid, tid, ptid;
		uint64_t time;
	} t = { pid, ppid, tid, ptid, time };

	put_rec(r, type, 0, &t, sizeof(t), pid, tid, time, cpu);
}

/* MMAP2 of one executable mapping, with its build-id when it has one. */
static void put_mmap2(struct rsb *r, uint32_t pid, const struct pmap *m, uint64_t time,
		      uint32_t cpu)
{
	struct {
		uint32_t pid, tid;
		uint64_t addr, len, pgoff;
		union {
			struct {
				uint32_t maj, min;
				uint64_t ino, ino_generation;
			} f;
			struct {
				uint8_t size, r1;
				uint16_t r2;
				uint8_t id[BUILD_ID_MAX];
			} b;
		} u;
		uint32_t prot, flags;
		char path[MAX_PATH_LEN];
	} __attribute__((packed)) mm;
	uint16_t misc = PERF_RECORD_MISC_USER;
	unsigned int n;

	memset(&mm, 0, offsetof(__typeof__(mm), path));
	mm.pid = mm.tid = pid;
	mm.addr = m->start;
	mm.len = m->end - m->start;
	mm.pgoff = m->pgoff;
	mm.prot = m->prot;
	mm.flags = m->flags;
	snprintf(mm.path, sizeof(mm.path), "%s", m->path);
	if (!strcmp(m->path, "[vdso]") && r->vdso_bid_len)
		n = r->vdso_bid_len, memcpy(mm.u.b.id, r->vdso_bid, n);
	else
		n = file_build_id(m->path, mm.u.b.id);
	if (n) {
		mm.u.b.size = (uint8_t)n;
		misc |= PERF_RECORD_MISC_MMAP_BUILD_ID;
	} else {
		mm.u.f.maj = m->maj;
		mm.u.f.min = m->min;
		mm.u.f.ino = m->ino;
	}
	put_rec(r, PERF_RECORD_MMAP2, misc, &mm, offsetof(__typeof__(mm), path) +
		strlen(mm.path) + 1, pid, pid, time, cpu);
}

static void free_maps(struct pmap *m, unsigned int n)
{
	unsigned int i;

	for (i = 0; i < n; i++)
		free(m[i].path);
	free(m);
}

/* The executable mappings of pid; -1 when /proc/PID/maps cannot be read. */
static int read_maps(pid_t pid, struct pmap **out, unsigned int *nout)
{
	char path[64], line[MAX_PATH_LEN + 128], perms[8], name[MAX_PATH_LEN];
	unsigned long long s, e, off, ino;
	unsigned int maj, min, n = 0, cap = 0;
	struct pmap *m = NULL;
	FILE *f;

	*out = NULL;
	*nout = 0;
	snprintf(path, sizeof(path), "/proc/%d/maps", (int)pid);
	f = fopen(path, "re");
	if (!f)
		return -1;
	while (fgets(line, sizeof(line), f)) {
		int pos = 0;

		name[0] = 0;
		if (sscanf(line, "%llx-%llx %7s %llx %x:%x %llu %n", &s, &e, perms, &off, &maj,
			   &min, &ino, &pos) < 7)
			continue;
		if (strlen(perms) < 4 || perms[2] != 'x')
			continue;
		snprintf(name, sizeof(name), "%s", line + pos);
		name[strcspn(name, "\n")] = 0;
		/* [vsyscall]: a kernel page at a fixed address, never traced in user mode. */
		if (!name[0] || !strcmp(name, "[vsyscall]"))
			continue;
		if (n == cap) {
			cap = cap ? 2 * cap : 16;
			m = xrealloc(m, cap * sizeof(*m));
		}
		m[n].start = s;
		m[n].end = e;
		m[n].pgoff = off;
		m[n].ino = ino;
		m[n].maj = maj;
		m[n].min = min;
		m[n].prot = (perms[0] == 'r' ? PROT_READ : 0) | (perms[1] == 'w' ? PROT_WRITE : 0) |
			    PROT_EXEC;
		m[n].flags = perms[3] == 's' ? MAP_SHARED : MAP_PRIVATE;
		m[n].path = strdup(name);
		if (!m[n].path)
			break;
		n++;
	}
	fclose(f);
	*out = m;
	*nout = n;
	/* A zombie's maps read empty: its mappings are gone. */
	return n ? 0 : -1;
}

static int same_map(const struct pmap *a, const struct pmap *b)
{
	return a->start == b->start && a->end == b->end && a->pgoff == b->pgoff &&
	       !strcmp(a->path, b->path);
}

static struct pproc *proc_find(struct rsb *r, pid_t pid)
{
	unsigned int i;

	for (i = 0; i < r->nprocs; i++)
		if (r->procs[i].pid == pid)
			return &r->procs[i];
	return NULL;
}

static struct pproc *proc_get(struct rsb *r, pid_t pid)
{
	struct pproc *p = proc_find(r, pid);

	if (p)
		return p;
	r->procs = xrealloc(r->procs, (r->nprocs + 1) * sizeof(*r->procs));
	p = &r->procs[r->nprocs++];
	memset(p, 0, sizeof(*p));
	p->pid = pid;
	p->alive = 1;
	return p;
}

/*
 * MMAP2 records for the mappings in now[] that p does not have yet (all
 * of them with fresh), dated time; now[] becomes p's.
 */
static void proc_maps(struct rsb *r, struct pproc *p, struct pmap *now, unsigned int n,
		      int fresh, uint64_t time, uint32_t cpu)
{
	unsigned int i, k;

	for (i = 0; i < n; i++) {
		int known = 0;

		for (k = 0; !fresh && k < p->nmaps && !known; k++)
			known = same_map(&p->maps[k], &now[i]);
		if (!known)
			put_mmap2(r, (uint32_t)p->pid, &now[i], time, cpu);
	}
	free_maps(p->maps, p->nmaps);
	p->maps = now;
	p->nmaps = n;
}

static int read_comm(pid_t pid, pid_t tid, char *buf, size_t len)
{
	char path[64];
	ssize_t n;
	int fd;

	snprintf(path, sizeof(path), "/proc/%d/task/%d/comm", (int)pid, (int)tid);
	fd = open(path, O_RDONLY | O_CLOEXEC);
	if (fd < 0)
		return -1;
	n = read(fd, buf, len - 1);
	close(fd);
	if (n <= 0)
		return -1;
	buf[n] = 0;
	buf[strcspn(buf, "\n")] = 0;
	return 0;
}

static int tid_known(struct rsb *r, pid_t tid, int add)
{
	unsigned int i;

	for (i = 0; i < r->ntids; i++)
		if (r->tids[i] == tid)
			return 1;
	if (add) {
		r->tids = xrealloc(r->tids, (r->ntids + 1) * sizeof(*r->tids));
		r->tids[r->ntids++] = tid;
	}
	return 0;
}

/* COMM of every thread of pid that has none yet, dated time. */
static void proc_threads(struct rsb *r, pid_t pid, uint64_t time)
{
	char path[64], comm[32];
	struct dirent *de;
	DIR *d;

	snprintf(path, sizeof(path), "/proc/%d/task", (int)pid);
	d = opendir(path);
	if (!d)
		return;
	while ((de = readdir(d)) != NULL) {
		pid_t tid = (pid_t)atoi(de->d_name);

		if (tid <= 0 || tid_known(r, tid, 0) || read_comm(pid, tid, comm, sizeof(comm)))
			continue;
		tid_known(r, tid, 1);
		put_comm(r, (uint32_t)pid, (uint32_t)tid, comm, 0, time, my_cpu());
	}
	closedir(d);
}

/* ---- the vDSO ---------------------------------------------------------------- */

static int find_vdso(pid_t pid, uint64_t *start, uint64_t *end)
{
	char path[64], line[512];
	unsigned long long s, e;
	FILE *f;
	int ret = -1;

	snprintf(path, sizeof(path), "/proc/%d/maps", (int)pid);
	f = fopen(path, "re");
	if (!f)
		return -1;
	while (fgets(line, sizeof(line), f))
		if (strstr(line, "[vdso]") && sscanf(line, "%llx-%llx", &s, &e) == 2 && e > s) {
			*start = s;
			*end = e;
			ret = 0;
			break;
		}
	fclose(f);
	return ret;
}

/*
 * The vDSO of pid from its memory (/proc/PID/mem needs what ptrace's
 * attach needs: our own child qualifies), else the tool's own, which is
 * the same image for a process of the same ABI on this kernel.
 */
static void save_vdso(struct rsb *r, pid_t pid)
{
	uint64_t s, e;
	unsigned char *buf = NULL;
	const char *src = NULL;
	char path[PATH_MAX];
	int fd;

	if (r->vdso_done)
		return;
	if (pid && !find_vdso(pid, &s, &e) && e - s <= (64U << 20)) {
		snprintf(path, sizeof(path), "/proc/%d/mem", (int)pid);
		fd = open(path, O_RDONLY | O_CLOEXEC);
		buf = malloc(e - s);
		if (fd >= 0 && buf && pread(fd, buf, e - s, (off_t)s) == (ssize_t)(e - s))
			src = "process";
		if (fd >= 0)
			close(fd);
	}
	if (!src && !find_vdso(getpid(), &s, &e) && e - s <= (64U << 20) &&
	    getauxval(AT_SYSINFO_EHDR) == s) {
		free(buf);
		buf = malloc(e - s);
		if (buf) {
			memcpy(buf, (const void *)(uintptr_t)s, e - s);
			src = "tool";
		}
	}
	if (!src) {
		free(buf);
		return;		/* no vDSO (vdso=0): nothing to copy */
	}
	fd = create(r, SB_VDSO_FILE);
	if (fd < 0 || write_full(fd, buf, e - s)) {
		if (fd >= 0)
			fprintf(stderr, "tracebuf: cannot write %s/%s: %s\n", r->o.outdir,
				SB_VDSO_FILE, strerror(errno));
		r->failed = 1;
	} else {
		r->vdso_size = e - s;
		r->vdso_bid_len = elf_build_id(buf, e - s, r->vdso_bid);
		r->vdso_source = src;
		r->vdso_done = 1;
	}
	if (fd >= 0)
		close(fd);
	free(buf);
}

/* ---- state of the traced process ----------------------------------------- */

void rsb_initial(struct rsb *r)
{
	struct pmap *m;
	unsigned int n;
	uint64_t t = mono_ns();
	struct pproc *p;

	if (!r->o.pid || r->mode == RSB_NONE)
		return;
	r->start_time = t;
	p = proc_get(r, r->o.pid);
	if (!read_maps(r->o.pid, &m, &n))
		proc_maps(r, p, m, n, 1, t, my_cpu());
	proc_threads(r, r->o.pid, t);
}

void rsb_started(struct rsb *r)
{
	struct pproc *p;
	uint64_t s, e;
	int i;

	/*
	 * The exec's point of no return closed the command's CLOEXEC pipe
	 * before the new image's vDSO was mapped (begin_new_exec() runs
	 * before load_elf_binary() maps it): wait for it, a little.
	 */
	for (i = 0; r->o.pid && i < 100 && find_vdso(r->o.pid, &s, &e); i++)
		usleep(1000);
	save_vdso(r, r->o.pid);
	if (r->mode != RSB_PROC || !r->o.pid)
		return;
	/* Right after the exec: what the program has mapped so far, for its EXEC record. */
	p = proc_get(r, r->o.pid);
	free_maps(p->initial, p->ninitial);
	p->have_initial = !read_maps(r->o.pid, &p->initial, &p->ninitial);
}

static void add_ev(struct rsb *r, const struct pev *e)
{
	if (!(r->nevs % 64))
		r->evs = xrealloc(r->evs, (r->nevs + 64) * sizeof(*r->evs));
	r->evs[r->nevs++] = *e;
}

void rsb_on_record(struct rsb *r, const struct tracebuf_record *rec)
{
	const struct tracebuf_rec_switch *sw = tracebuf_as_switch(rec);
	const struct tracebuf_rec_task *tk = tracebuf_as_task(rec);
	struct pev e;

	if (r->mode != RSB_PROC)
		return;
	memset(&e, 0, sizeof(e));
	e.time = rec->time;
	e.cpu = rec->cpu;
	if (sw && !(sw->flags & (TRACEBUF_SWITCH_F_OUT | TRACEBUF_SWITCH_F_BUSY)) && sw->pid) {
		e.pid = sw->pid;
		e.tid = sw->tid;
		if (sw->flags & TRACEBUF_SWITCH_F_EXEC) {
			e.kind = PEV_EXEC;
			add_ev(r, &e);
		}
		if (!tid_known(r, (pid_t)sw->tid, 0)) {
			e.kind = PEV_TID;
			add_ev(r, &e);
		}
	} else if (tk && tk->pid) {
		e.pid = tk->pid;
		e.ppid = tk->ppid;
		if (tk->reason == TRACEBUF_TASK_FORK) {
			e.kind = PEV_FORK;
			add_ev(r, &e);
		} else if (tk->reason == TRACEBUF_TASK_EXIT || tk->reason == TRACEBUF_TASK_EXEC_PRIV) {
			e.kind = PEV_EXIT;
			add_ev(r, &e);
		}
	}
}

static int cmp_ev(const void *a, const void *b)
{
	const struct pev *x = a, *y = b;

	return x->time < y->time ? -1 : x->time > y->time;
}

/* One event, in time order: records dated by it, /proc read for it. */
static void do_ev(struct rsb *r, const struct pev *e)
{
	struct pproc *p, *pp;
	struct pmap *m;
	unsigned int n, i;
	char comm[32];

	switch (e->kind) {
	case PEV_FORK:
		/* The child starts with its parent's mappings (the decoder copies them). */
		put_task(r, PERF_RECORD_FORK, e->pid, e->ppid, e->pid, e->ppid, e->time, e->cpu);
		p = proc_get(r, (pid_t)e->pid);
		pp = proc_find(r, (pid_t)e->ppid);
		if (pp && !p->nmaps && pp->nmaps) {
			p->maps = xrealloc(NULL, pp->nmaps * sizeof(*p->maps));
			for (i = 0; i < pp->nmaps; i++) {
				p->maps[i] = pp->maps[i];
				p->maps[i].path = strdup(pp->maps[i].path);
				if (!p->maps[i].path)
					break;
			}
			p->nmaps = i;
		}
		tid_known(r, (pid_t)e->pid, 1);
		break;
	case PEV_EXEC:
		p = proc_get(r, (pid_t)e->pid);
		if (read_comm((pid_t)e->pid, (pid_t)e->tid, comm, sizeof(comm)))
			snprintf(comm, sizeof(comm), "%s", "");
		put_comm(r, e->pid, e->tid, comm, 1, e->time, e->cpu);
		tid_known(r, (pid_t)e->tid, 1);
		if (!read_maps((pid_t)e->pid, &m, &n)) {
			proc_maps(r, p, m, n, 1, e->time, e->cpu);
		} else if (p->have_initial) {
			/* Gone already: what was read right after its exec. */
			proc_maps(r, p, p->initial, p->ninitial, 1, e->time, e->cpu);
			p->initial = NULL;
			p->ninitial = 0;
		} else {
			/* Gone, and nothing read: the old image's mappings are no more. */
			free_maps(p->maps, p->nmaps);
			p->maps = NULL;
			p->nmaps = 0;
		}
		p->have_initial = 0;
		break;
	case PEV_TID:
		if (tid_known(r, (pid_t)e->tid, 0))
			break;
		if (!read_comm((pid_t)e->pid, (pid_t)e->tid, comm, sizeof(comm))) {
			tid_known(r, (pid_t)e->tid, 1);
			put_comm(r, e->pid, e->tid, comm, 0, e->time, e->cpu);
		}
		break;
	case PEV_EXIT:
		put_task(r, PERF_RECORD_EXIT, e->pid, e->ppid, e->pid, e->ppid, e->time, e->cpu);
		p = proc_find(r, (pid_t)e->pid);
		if (p)
			p->alive = 0;
		break;
	}
}

static void proc_tick(struct rsb *r)
{
	uint64_t now = mono_ns();
	struct pmap *m;
	unsigned int i, n;
	size_t k;

	if (r->nevs > 1)
		qsort(r->evs, r->nevs, sizeof(*r->evs), cmp_ev);
	for (k = 0; k < r->nevs; k++)
		do_ev(r, &r->evs[k]);
	r->nevs = 0;
	/* What the live processes mapped since: dated now, when it was seen. */
	for (i = 0; i < r->nprocs; i++) {
		struct pproc *p = &r->procs[i];

		if (!p->alive || p->have_initial)
			continue;
		if (read_maps(p->pid, &m, &n)) {
			free_maps(m, n);
			continue;
		}
		proc_maps(r, p, m, n, 0, now, my_cpu());
	}
}

void rsb_tick(struct rsb *r)
{
	unsigned int i;

	for (i = 0; i < r->nrings; i++)
		drain_ring(r, &r->rings[i]);
	if (r->mode == RSB_PROC)
		proc_tick(r);
}

static int cmp_prec(const void *a, const void *b)
{
	const struct prec *x = a, *y = b;

	if (x->time != y->time)
		return x->time < y->time ? -1 : 1;
	return x->seq < y->seq ? -1 : x->seq > y->seq;
}

static void read_kernel_build_id(struct rsb *r)
{
	uint8_t buf[4096], id[BUILD_ID_MAX];
	ssize_t n;
	unsigned int l;
	int fd = open("/sys/kernel/notes", O_RDONLY | O_CLOEXEC);

	if (fd < 0)
		return;
	n = read(fd, buf, sizeof(buf));
	close(fd);
	if (n > 0 && (l = notes_build_id(buf, (size_t)n, id)) > 0)
		hex(r->kernel_bid, id, l);
}

int rsb_finish(struct rsb *r)
{
	unsigned int i;
	size_t k;

	rsb_tick(r);
	if (r->mode == RSB_PROC) {
		/* A command gone before its exec was seen: what was read after it. */
		for (i = 0; i < r->nprocs; i++) {
			struct pproc *p = &r->procs[i];

			if (p->have_initial) {
				proc_maps(r, p, p->initial, p->ninitial, 1, r->start_time, my_cpu());
				p->initial = NULL;
				p->ninitial = 0;
				p->have_initial = 0;
			}
		}
	}
	if (!r->vdso_done)
		save_vdso(r, 0);
	if (r->proc_fd >= 0) {
		if (r->nprecs > 1)
			qsort(r->precs, r->nprecs, sizeof(*r->precs), cmp_prec);
		for (k = 0; k < r->nprecs && !r->failed; k++) {
			const unsigned char *p = r->pbuf + r->precs[k].off;
			uint16_t size;

			memcpy(&size, p + 6, 2);
			if (write_full(r->proc_fd, p, size)) {
				fprintf(stderr, "tracebuf: cannot write %s/%s: %s\n", r->o.outdir,
					SB_PROC_FILE, strerror(errno));
				r->failed = 1;
			}
			r->p_records++;
			r->p_bytes += size;
		}
	}
	clk_pair(&r->c1);
	fit(&r->c0, &r->c1, &r->tc);
	read_kernel_build_id(r);
	return r->failed ? -1 : 0;
}

/* ---- meta.json ---------------------------------------------------------------- */

void rsb_write_meta(const struct rsb *r, FILE *f)
{
	const char *src = r->mode == RSB_PERF ? "perf_event" : r->mode == RSB_PROC ? "proc" :
			  "none";
	int partial = r->mode != RSB_PERF;
	unsigned int i, nf = 0;
	char b[2 * BUILD_ID_MAX + 1];

	fputs("\"target\": ", f);
	if (r->o.pid)
		fprintf(f, "\"task\",\n\"pid\": %d,\n\"inherit\": %s,\n", (int)r->o.pid,
			r->o.inherit ? "true" : "false");
	else
		fputs("\"cpu\",\n\"pid\": null,\n\"inherit\": null,\n", f);
	fprintf(f, "\"sideband\": {\"format\": \"perf\", \"source\": \"%s\", \"partial\": %s, "
		"\"partial_reason\": ", src, partial ? "true" : "false");
	if (partial)
		tb_json_str(f, r->why, strlen(r->why));
	else
		fputs("null", f);
	fprintf(f, ",\n  \"clock\": \"CLOCK_MONOTONIC\", \"sample_type\": %llu, \"build_ids\": %s,"
		"\n  \"files\": [", (unsigned long long)SB_SAMPLE_TYPE,
		r->mode == RSB_PERF ? (r->build_id_attr ? "true" : "false") : "true");
	for (i = 0; i < r->nrings; i++)
		fprintf(f, "%s\"%s\"", nf++ ? ", " : "", r->rings[i].name);
	if (r->proc_fd >= 0)
		fprintf(f, "%s\"%s\"", nf++ ? ", " : "", SB_PROC_FILE);
	/* One object per file, in the order of "files" (names have dots: no keys). */
	fputs("],\n  \"per_file\": [", f);
	nf = 0;
	for (i = 0; i < r->nrings; i++)
		fprintf(f, "%s\n    {\"cpu\": %u, \"source\": \"perf_event\", \"records\": %" PRIu64
			", \"bytes\": %" PRIu64 ", \"lost\": %" PRIu64 "}", nf++ ? "," : "",
			r->rings[i].cpu, r->rings[i].records, r->rings[i].bytes, r->rings[i].lost);
	if (r->proc_fd >= 0)
		fprintf(f, "%s\n    {\"cpu\": null, \"source\": \"proc\", \"records\": %" PRIu64
			", \"bytes\": %" PRIu64 ", \"lost\": 0}", nf++ ? "," : "", r->p_records,
			r->p_bytes);
	fputs("],\n  \"time_conv\": ", f);
	if (r->tc.ok) {
		uint64_t hz = counter_hz();

		fprintf(f, "{\"counter\": \"%s\", \"time_zero\": %" PRIu64 ", \"time_mult\": %u, "
			"\"time_shift\": %u, \"time_offset\": 0, \"counter_hz\": ", counter_name(),
			r->tc.time_zero, r->tc.time_mult, r->tc.time_shift);
		if (hz)
			fprintf(f, "%" PRIu64, hz);
		else
			fputs("null", f);
		fprintf(f, ",\n    \"pairs\": [[%" PRIu64 ", %" PRIu64 "], [%" PRIu64 ", %" PRIu64
			"]]}", r->c0.counter, r->c0.mono, r->c1.counter, r->c1.mono);
	} else {
		fputs("null", f);
	}
	fputs("},\n\"vdso\": ", f);
	if (r->vdso_done) {
		fprintf(f, "{\"file\": \"%s\", \"size\": %" PRIu64 ", \"source\": \"%s\", "
			"\"build_id\": ", SB_VDSO_FILE, r->vdso_size, r->vdso_source);
		if (r->vdso_bid_len) {
			hex(b, r->vdso_bid, r->vdso_bid_len);
			fprintf(f, "\"%s\"}", b);
		} else {
			fputs("null}", f);
		}
	} else {
		fputs("null", f);
	}
	fputs(",\n\"kernel_build_id\": ", f);
	if (r->kernel_bid[0])
		fprintf(f, "\"%s\",\n", r->kernel_bid);
	else
		fputs("null,\n", f);
}

uint64_t rsb_lost(const struct rsb *r)
{
	uint64_t n = 0;
	unsigned int i;

	for (i = 0; r && i < r->nrings; i++)
		n += r->rings[i].lost;
	return n;
}

void rsb_summary(const struct rsb *r, FILE *f)
{
	uint64_t recs = r->p_records, lost = rsb_lost(r);
	unsigned int i;

	for (i = 0; i < r->nrings; i++)
		recs += r->rings[i].records;
	if (r->mode == RSB_NONE && !r->o.pid)
		return;
	fprintf(f, "tracebuf: sideband: %" PRIu64 " records from %s%s", recs,
		r->mode == RSB_PERF ? "perf" : r->mode == RSB_PROC ? "/proc (partial)" : "nowhere",
		lost ? "" : "\n");
	if (lost)
		fprintf(f, ", %" PRIu64 " lost (the perf rings were full)\n", lost);
}

void rsb_free(struct rsb *r)
{
	unsigned int i;

	if (!r)
		return;
	close_rings(r);
	if (r->proc_fd >= 0)
		close(r->proc_fd);
	for (i = 0; i < r->nprocs; i++) {
		free_maps(r->procs[i].maps, r->procs[i].nmaps);
		free_maps(r->procs[i].initial, r->procs[i].ninitial);
	}
	free(r->procs);
	free(r->tids);
	free(r->evs);
	free(r->pbuf);
	free(r->precs);
	free(r);
}
