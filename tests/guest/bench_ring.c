// SPDX-License-Identifier: GPL-2.0
/*
 * make bench: tracebuf's data ring beside the BPF ring buffer and the perf
 * buffer, in one boot, the way the BPF ring buffer's authors measured
 * theirs (tools/testing/selftests/bpf/benchs/bench_ringbufs.c): producer
 * threads issue getpgid(2); a probe on the sys_enter tracepoint writes
 * fixed-size records; one consumer drains; 512 KiB rings.
 *
 *   ringbuf  a BPF program on the raw tracepoint sys_enter:
 *            bpf_ringbuf_reserve() + 8-byte stores + bpf_ringbuf_submit()
 *   perfbuf  the same program with bpf_perf_event_output() (one 512 KiB
 *            ring per CPU, as BPF's bench)
 *   tracebuf tb_bench.ko's probe on the same tracepoint:
 *            tracebuf_reserve() + 8-byte stores + tracebuf_commit(), or
 *            tracebuf_reserve_batch() for several records per call; the
 *            session is set up with TRACEBUF_SETUP_F_COMPACT (an 8-byte
 *            prefix without CPU or time, as BPF's ring buffer records)
 *   marker   TRACEBUF_IOC_USER_MARKER from the producer threads instead of
 *            getpgid (one record per system call)
 *
 * The BPF programs are assembled here and loaded with bpf(2): no libbpf,
 * no clang, one static binary. Every run is balanced: records consumed +
 * dropped = produced, or the run FAILS. Runs of the four rings are
 * interleaved, REPS times; the table shows the median records/s (records
 * delivered per second), the loss and the wakeups (the consumer's returns
 * from epoll_wait; tracebuf's own count in brackets). Numbers, never
 * assertions on time: under TCG they are relative.
 *
 *   bench_ring [reps [ms per run [row mask [ring mask [prof]]]]]
 *
 * The masks (hexadecimal; bit n: the n-th row of rows[], or enum ring)
 * choose a subset, for looking at one thing; make bench runs everything.
 */
#include <linux/bpf.h>
#include <linux/perf_event.h>
#include <pthread.h>
#include <stdint.h>
#include <sys/epoll.h>
#include <sys/ioctl.h>
#include <sys/mman.h>
#include <time.h>

#include <libtracebuf.h>
#include "tbtest.h"
#include "tb_bench.h"

#define RING		(512 * 1024)
#define WM_BYTES	(128 * 1024)
#define NCPU_MAX	64

/* R_NONE: tb_bench's probe counting records and writing none (the ceiling). */
enum ring { R_RB, R_PB, R_TB, R_MK, R_NONE, R_NR };
static const char *const ring_name[R_NR] = { "ringbuf", "perfbuf", "tracebuf", "marker", "none" };

/* Wakeup policies. */
enum wake { W_OFF, W_DEFAULT, W_EVERY, W_WM };

struct row {
	const char *name;
	int producers;		/* threads issuing getpgid; 0: back-to-back */
	int batch;		/* records per system call */
	enum wake wake;
	int epoll;		/* the consumer sleeps in epoll_wait */
	int single;		/* tracebuf: one tracebuf_reserve() per record */
};

static const struct row rows[] = {
	{ "busy-poll, wakeups off", 1, 1, W_OFF, 0, 0 },
	{ "busy-poll, wakeups off", 2, 1, W_OFF, 0, 0 },
	{ "back-to-back, wakeups off", 0, 100, W_OFF, 0, 0 },
	/* The same, each record reserved alone: the single-record path's cost. */
	{ "b2b, 100 single reserves", 0, 100, W_OFF, 0, 1 },
	{ "epoll, wake every 100", 2, 100, W_EVERY, 1, 0 },
	{ "epoll, 128 KiB watermark", 1, 100, W_WM, 1, 0 },
	{ "BPF published: b2b, default", 0, 500, W_DEFAULT, 0, 0 },
};
#define NROWS (sizeof(rows) / sizeof(rows[0]))
static const unsigned int payloads[] = { 8, 64, 256 };
#define NPAY 3

struct result {
	double rate[16];	/* records/s per rep */
	uint64_t lost, produced, wakeups, kwakeups;
	int n;
};
static struct result res[NROWS][NPAY][R_NR];

static int ncpus, npossible, run_ms = 300;

static double now(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return ts.tv_sec + ts.tv_nsec / 1e9;
}

/* ---- raw BPF ------------------------------------------------------------ */

static long sys_bpf(int cmd, union bpf_attr *a)
{
	return syscall(__NR_bpf, cmd, a, sizeof(*a));
}

struct prog {
	struct bpf_insn in[8192];
	int n;
};

static void emit(struct prog *p, uint8_t code, uint8_t dst, uint8_t src, int16_t off, int32_t imm)
{
	p->in[p->n++] = (struct bpf_insn){ .code = code, .dst_reg = dst, .src_reg = src,
					   .off = off, .imm = imm };
}

#define MOV_IMM(p, d, i)	emit(p, BPF_ALU64 | BPF_MOV | BPF_K, d, 0, 0, i)
#define MOV32_IMM(p, d, i)	emit(p, BPF_ALU | BPF_MOV | BPF_K, d, 0, 0, i)
#define MOV_REG(p, d, s)	emit(p, BPF_ALU64 | BPF_MOV | BPF_X, d, s, 0, 0)
#define ALU_IMM(p, op, d, i)	emit(p, BPF_ALU64 | (op) | BPF_K, d, 0, 0, i)
#define LDX_DW(p, d, s, o)	emit(p, BPF_LDX | BPF_MEM | BPF_DW, d, s, o, 0)
#define STX_DW(p, d, s, o)	emit(p, BPF_STX | BPF_MEM | BPF_DW, d, s, o, 0)
#define ST_W(p, d, o, i)	emit(p, BPF_ST | BPF_MEM | BPF_W, d, 0, o, i)
#define XADD(p, d, s, o)	emit(p, BPF_STX | BPF_ATOMIC | BPF_DW, d, s, o, BPF_ADD)
#define XFADD(p, d, s, o)	emit(p, BPF_STX | BPF_ATOMIC | BPF_DW, d, s, o, BPF_ADD | BPF_FETCH)
#define CALL(p, f)		emit(p, BPF_JMP | BPF_CALL, 0, 0, 0, f)
#define EXIT(p)			emit(p, BPF_JMP | BPF_EXIT, 0, 0, 0, 0)
/* A jump whose offset is patched by here(): returns its index. */
#define JMP_IMM(p, op, d, i)	(emit(p, BPF_JMP | (op) | BPF_K, d, 0, 0, i), (p)->n - 1)
#define JA(p)			(emit(p, BPF_JMP | BPF_JA, 0, 0, 0, 0), (p)->n - 1)

static void here(struct prog *p, int j)
{
	p->in[j].off = p->n - j - 1;
}

static void ld_map(struct prog *p, int dst, int fd)
{
	emit(p, BPF_LD | BPF_DW | BPF_IMM, dst, BPF_PSEUDO_MAP_FD, 0, fd);
	emit(p, 0, 0, 0, 0, 0);
}

static int map_create(enum bpf_map_type type, uint32_t key, uint32_t val, uint32_t max)
{
	union bpf_attr a;

	memset(&a, 0, sizeof(a));
	a.map_type = type;
	a.key_size = key;
	a.value_size = val;
	a.max_entries = max;
	return sys_bpf(BPF_MAP_CREATE, &a);
}

static int map_update(int fd, const void *key, const void *val)
{
	union bpf_attr a;

	memset(&a, 0, sizeof(a));
	a.map_fd = fd;
	a.key = (uintptr_t)key;
	a.value = (uintptr_t)val;
	return sys_bpf(BPF_MAP_UPDATE_ELEM, &a);
}

static int map_lookup(int fd, const void *key, void *val)
{
	union bpf_attr a;

	memset(&a, 0, sizeof(a));
	a.map_fd = fd;
	a.key = (uintptr_t)key;
	a.value = (uintptr_t)val;
	return sys_bpf(BPF_MAP_LOOKUP_ELEM, &a);
}

static char vlog[1 << 20];

/* Load p as a raw_tracepoint program and attach it to sys_enter. */
static int prog_attach(struct prog *p, int *prog_fd)
{
	union bpf_attr a;
	int fd;

	memset(&a, 0, sizeof(a));
	a.prog_type = BPF_PROG_TYPE_RAW_TRACEPOINT;
	a.insns = (uintptr_t)p->in;
	a.insn_cnt = p->n;
	a.license = (uintptr_t)"GPL";
	fd = sys_bpf(BPF_PROG_LOAD, &a);
	if (fd < 0) {
		int e = errno;

		a.log_buf = (uintptr_t)vlog;
		a.log_size = sizeof(vlog);
		a.log_level = 1;
		sys_bpf(BPF_PROG_LOAD, &a);
		printf("bench: BPF_PROG_LOAD: %s\n%.2000s\n", strerror(e),
		       vlog + (strlen(vlog) > 2000 ? strlen(vlog) - 2000 : 0));
		return -1;
	}
	*prog_fd = fd;
	memset(&a, 0, sizeof(a));
	a.raw_tracepoint.name = (uintptr_t)"sys_enter";
	a.raw_tracepoint.prog_fd = fd;
	fd = sys_bpf(BPF_RAW_TRACEPOINT_OPEN, &a);
	if (fd < 0) {
		printf("bench: BPF_RAW_TRACEPOINT_OPEN: %s\n", strerror(errno));
		close(*prog_fd);
	}
	return fd;
}

/*
 * The program, for both BPF rings: for getpgid of our process, 'batch'
 * records of 'payload' bytes, counting produced and dropped in a per-CPU
 * array map with plain adds (value: u64 produced, dropped), as tb_bench
 * counts in per-CPU variables: neither side pays an atomic operation for
 * the benchmark's own counting. The every-N count is one shared counter
 * (an array map, atomic add): BPF's way of waking every N records.
 */
static void gen_prog(struct prog *p, enum ring r, int map, int cnt, int every,
		     unsigned int payload, int batch, enum wake wake)
{
	int j_nr, j_pid, j_null, j_null2 = -1, j_drop = 0, j_next, j, loop, k;

	p->n = 0;
	MOV_REG(p, 6, 1);
	LDX_DW(p, 2, 6, 8);				/* args[1]: the syscall number */
	j_nr = JMP_IMM(p, BPF_JNE, 2, __NR_getpgid);
	CALL(p, BPF_FUNC_get_current_pid_tgid);
	ALU_IMM(p, BPF_RSH, 0, 32);
	j_pid = JMP_IMM(p, BPF_JNE, 0, getpid());
	ST_W(p, 10, -4, 0);
	ld_map(p, 1, cnt);
	MOV_REG(p, 2, 10);
	ALU_IMM(p, BPF_ADD, 2, -4);
	CALL(p, BPF_FUNC_map_lookup_elem);
	j_null = JMP_IMM(p, BPF_JEQ, 0, 0);
	MOV_REG(p, 8, 0);				/* r8: this CPU's counters */
	LDX_DW(p, 1, 8, 0);
	ALU_IMM(p, BPF_ADD, 1, batch);
	STX_DW(p, 8, 1, 0);				/* produced += batch */
	if (wake == W_EVERY && r == R_RB) {
		ST_W(p, 10, -4, 0);
		ld_map(p, 1, every);
		MOV_REG(p, 2, 10);
		ALU_IMM(p, BPF_ADD, 2, -4);
		CALL(p, BPF_FUNC_map_lookup_elem);
		j_null2 = JMP_IMM(p, BPF_JEQ, 0, 0);
		MOV_REG(p, 6, 0);			/* r6: the shared every-N count */
	}
	MOV_IMM(p, 7, batch);
	loop = p->n;
	if (r == R_RB) {
		/* r9: the submit flags of this record */
		switch (wake) {
		case W_OFF:
			MOV_IMM(p, 9, BPF_RB_NO_WAKEUP);
			break;
		case W_DEFAULT:
			MOV_IMM(p, 9, 0);
			break;
		case W_EVERY:
			MOV_IMM(p, 1, 1);
			XFADD(p, 6, 1, 0);
			ALU_IMM(p, BPF_ADD, 1, 1);
			ALU_IMM(p, BPF_MOD, 1, 100);
			MOV_IMM(p, 9, BPF_RB_NO_WAKEUP);
			j = JMP_IMM(p, BPF_JNE, 1, 0);
			MOV_IMM(p, 9, BPF_RB_FORCE_WAKEUP);
			here(p, j);
			break;
		case W_WM:	/* as BPF's bench --rb-sampled does it */
			ld_map(p, 1, map);
			MOV_IMM(p, 2, BPF_RB_AVAIL_DATA);
			CALL(p, BPF_FUNC_ringbuf_query);
			MOV_IMM(p, 9, BPF_RB_NO_WAKEUP);
			j = JMP_IMM(p, BPF_JLT, 0, WM_BYTES);
			MOV_IMM(p, 9, BPF_RB_FORCE_WAKEUP);
			here(p, j);
			break;
		}
		ld_map(p, 1, map);
		MOV_IMM(p, 2, payload);
		MOV_IMM(p, 3, 0);
		CALL(p, BPF_FUNC_ringbuf_reserve);
		j_drop = JMP_IMM(p, BPF_JEQ, 0, 0);
		for (k = 0; k < (int)payload / 8; k++)
			STX_DW(p, 0, 7, 8 * k);
		MOV_REG(p, 1, 0);
		MOV_REG(p, 2, 9);
		CALL(p, BPF_FUNC_ringbuf_submit);
		j_next = JA(p);
	} else {
		for (k = 0; k < (int)payload / 8; k++)
			STX_DW(p, 10, 7, -8 - (int)payload + 8 * k);
		MOV_REG(p, 1, 6);
		ld_map(p, 2, map);
		MOV32_IMM(p, 3, -1);			/* BPF_F_CURRENT_CPU */
		MOV_REG(p, 4, 10);
		ALU_IMM(p, BPF_ADD, 4, -8 - (int)payload);
		MOV_IMM(p, 5, payload);
		CALL(p, BPF_FUNC_perf_event_output);
		j_next = JMP_IMM(p, BPF_JEQ, 0, 0);
	}
	if (j_drop)
		here(p, j_drop);
	LDX_DW(p, 1, 8, 8);
	ALU_IMM(p, BPF_ADD, 1, 1);
	STX_DW(p, 8, 1, 8);				/* dropped++ */
	here(p, j_next);
	ALU_IMM(p, BPF_SUB, 7, 1);
	emit(p, BPF_JMP | BPF_JNE | BPF_K, 7, 0, loop - p->n - 1, 0);
	here(p, j_nr);
	here(p, j_pid);
	here(p, j_null);
	if (j_null2 >= 0)
		here(p, j_null2);
	MOV_IMM(p, 0, 0);
	EXIT(p);
}

/* ---- the rings' consumers ------------------------------------------------ */

struct bpf_rb {
	int map;
	unsigned long *cons;		/* consumer page: consumer_pos */
	const unsigned long *prod;	/* producer page: producer_pos */
	const unsigned char *data;
	uint64_t pos;
};

struct perf_rb {
	int fd;
	struct perf_event_mmap_page *pg;
	const unsigned char *data;
	uint64_t size;
};

struct run {
	const struct row *row;
	enum ring ring;
	unsigned int payload;
	/* ringbuf */
	struct bpf_rb rb;
	/* perfbuf */
	struct perf_rb pb[NCPU_MAX];
	uint64_t pb_lost;		/* PERF_RECORD_LOST counts */
	/* tracebuf and marker */
	struct tracebuf_session s;
	int bfd;
	/* both BPF rings: per-CPU counters, the shared every-N count */
	int cnt, every, prog, link;
	int ep;
	volatile int stop;		/* the producers stop */
	volatile int timeup;		/* the run's time is up (timer thread) */
	uint64_t consumed, wakeups;
	uint64_t mk_produced, mk_dropped;	/* marker producers */
};

static uint64_t drain_rb(struct run *r)
{
	struct bpf_rb *b = &r->rb;
	uint64_t n = 0, prod;

	for (;;) {
		prod = __atomic_load_n(b->prod, __ATOMIC_ACQUIRE);
		if (b->pos == prod)
			break;
		while (b->pos < prod) {
			const uint32_t *hdr = (const void *)(b->data + (b->pos & (RING - 1)));
			uint32_t len = __atomic_load_n(hdr, __ATOMIC_ACQUIRE);

			if (len & BPF_RINGBUF_BUSY_BIT)
				goto out;
			n += !(len & BPF_RINGBUF_DISCARD_BIT);
			len &= ~(BPF_RINGBUF_BUSY_BIT | BPF_RINGBUF_DISCARD_BIT);
			b->pos += (len + BPF_RINGBUF_HDR_SZ + 7) & ~7u;
			__atomic_store_n(b->cons, b->pos, __ATOMIC_RELEASE);
		}
	}
out:
	return n;
}

static uint64_t drain_pb(struct run *r)
{
	uint64_t n = 0;
	int c;

	for (c = 0; c < ncpus; c++) {
		struct perf_rb *p = &r->pb[c];
		uint64_t head = __atomic_load_n(&p->pg->data_head, __ATOMIC_ACQUIRE);
		uint64_t tail = p->pg->data_tail;

		while (tail < head) {
			const struct perf_event_header *h =
				(const void *)(p->data + (tail & (p->size - 1)));

			if (h->type == PERF_RECORD_SAMPLE)
				n++;
			else if (h->type == PERF_RECORD_LOST)
				r->pb_lost += *(const uint64_t *)(p->data +
								 ((tail + 16) & (p->size - 1)));
			tail += h->size;
		}
		__atomic_store_n(&p->pg->data_tail, tail, __ATOMIC_RELEASE);
	}
	return n;
}

static uint64_t drain_tb(struct run *r)
{
	const struct tracebuf_crec *rec;
	uint16_t type = r->ring == R_MK ? TRACEBUF_REC_USER : TRACEBUF_REC_TEST;
	uint64_t n = 0;

	while ((rec = tracebuf_peek_compact(&r->s))) {
		n += rec->type == type;
		tracebuf_advance_compact(&r->s, rec);
	}
	TBT_CHECK(!tracebuf_ring_error(&r->s), "tracebuf: ring error %d",
		  tracebuf_ring_error(&r->s));
	return n;
}

static uint64_t drain(struct run *r)
{
	switch (r->ring) {
	case R_RB:
		return drain_rb(r);
	case R_PB:
		return drain_pb(r);
	case R_NONE:
		return 0;
	default:
		return drain_tb(r);
	}
}

static char marker_data[256];

/* One "system call" of a producer: getpgid, or a marker. */
static void produce(struct run *r)
{
	int i, ret;

	if (r->ring != R_MK) {
		syscall(__NR_getpgid, 0);
		return;
	}
	for (i = 0; i < (r->row->producers ? 1 : r->row->batch); i++) {
		ret = tracebuf_user_marker(&r->s, 0, marker_data, r->payload);
		__atomic_add_fetch(&r->mk_produced, 1, __ATOMIC_RELAXED);
		if (ret == -ENOSPC)
			__atomic_add_fetch(&r->mk_dropped, 1, __ATOMIC_RELAXED);
		else if (ret)
			TBT_CHECK(0, "marker: %d", ret);
	}
}

/*
 * Ends the run: the consumer loop only tests a flag, so no clock is read
 * per iteration (under TCG without a usable TSC, clock_gettime is a system
 * call reading the emulated HPET, which took most of the consumer's time
 * and made the consumer, not the rings, the limit).
 */
static void *timer_thread(void *arg)
{
	struct run *r = arg;

	usleep(run_ms * 1000);
	__atomic_store_n(&r->timeup, 1, __ATOMIC_RELAXED);
	return NULL;
}

static void *producer(void *arg)
{
	struct run *r = arg;

	while (!__atomic_load_n(&r->stop, __ATOMIC_RELAXED))
		produce(r);
	return NULL;
}

static int setup_rb(struct run *r)
{
	long pg = sysconf(_SC_PAGESIZE);
	void *c, *p;

	r->rb.map = map_create(BPF_MAP_TYPE_RINGBUF, 0, 0, RING);
	if (r->rb.map < 0)
		return -errno;
	c = mmap(NULL, pg, PROT_READ | PROT_WRITE, MAP_SHARED, r->rb.map, 0);
	p = mmap(NULL, pg + 2 * RING, PROT_READ, MAP_SHARED, r->rb.map, pg);
	if (c == MAP_FAILED || p == MAP_FAILED)
		return -errno;
	r->rb.cons = c;
	r->rb.prod = p;
	r->rb.data = (const unsigned char *)p + pg;
	r->rb.pos = 0;
	return r->rb.map;
}

static int setup_pb(struct run *r)
{
	long pg = sysconf(_SC_PAGESIZE);
	int map, c;

	map = map_create(BPF_MAP_TYPE_PERF_EVENT_ARRAY, 4, 4, ncpus);
	if (map < 0)
		return -errno;
	for (c = 0; c < ncpus; c++) {
		struct perf_event_attr a = {
			.type = PERF_TYPE_SOFTWARE,
			.size = sizeof(a),
			.config = PERF_COUNT_SW_BPF_OUTPUT,
			.sample_type = PERF_SAMPLE_RAW,
			.sample_period = 1,
		};
		struct perf_rb *p = &r->pb[c];
		void *m;

		switch (r->row->wake) {
		case W_OFF:	/* a watermark of the whole ring: never */
			a.watermark = 1;
			a.wakeup_watermark = RING;
			break;
		case W_DEFAULT:	/* libbpf's perf_buffer__new() */
			a.wakeup_events = 1;
			break;
		case W_EVERY:
			a.wakeup_events = 100;
			break;
		case W_WM:
			a.watermark = 1;
			a.wakeup_watermark = WM_BYTES;
			break;
		}
		p->fd = syscall(__NR_perf_event_open, &a, -1, c, -1, PERF_FLAG_FD_CLOEXEC);
		if (p->fd < 0)
			return -errno;
		m = mmap(NULL, pg + RING, PROT_READ | PROT_WRITE, MAP_SHARED, p->fd, 0);
		if (m == MAP_FAILED)
			return -errno;
		p->pg = m;
		p->data = (const unsigned char *)m + pg;
		p->size = RING;
		if (ioctl(p->fd, PERF_EVENT_IOC_ENABLE, 0) || map_update(map, &c, &p->fd))
			return -errno;
	}
	return map;
}

static int setup_tb(struct run *r)
{
	/*
	 * Compact records: the 8-byte prefix, no CPU, no time, as BPF's
	 * ring buffer records (an 8-byte header, no time).
	 */
	struct tracebuf_setup su = { .target = TRACEBUF_TARGET_CPU,
				     .flags = TRACEBUF_SETUP_F_COMPACT };
	struct tbb_start st = { .tgid = getpid(), .nr = __NR_getpgid,
				.size = sizeof(struct tracebuf_record) + r->payload,
				.batch = r->row->batch };
	int ret;

	strcpy(su.backend, TRACEBUF_BACKEND_DATA);
	switch (r->row->wake) {
	case W_OFF:	/* nobody sleeps: the policy sends none */
	case W_DEFAULT:
		break;
	case W_EVERY:
		su.wakeup_events = 100;
		su.data_watermark = RING;
		break;
	case W_WM:
		su.data_watermark = WM_BYTES;
		break;
	}
	ret = tracebuf_open(&r->s, 0);
	if (!ret)
		ret = tracebuf_setup(&r->s, &su);
	if (!ret)
		ret = tracebuf_map(&r->s, RING, 0);
	if (ret || r->ring == R_MK)
		return ret;
	if (r->ring == R_NONE)
		st.flags = TBB_F_COUNT_ONLY;
	if (r->row->single)
		st.flags |= TBB_F_SINGLE;
	r->bfd = open(TBB_DEVICE, O_RDWR);
	st.fd = r->s.fd;
	if (r->bfd < 0 || ioctl(r->bfd, TBB_IOC_START, &st))
		return -errno;
	return 0;
}

static int ep_add(struct run *r, int fd)
{
	struct epoll_event ev = { .events = EPOLLIN };

	return epoll_ctl(r->ep, EPOLL_CTL_ADD, fd, &ev);
}

/* Produced and dropped, from whoever counted them. */
static void totals(struct run *r, uint64_t *produced, uint64_t *dropped, int final)
{
	uint64_t v[2 * NCPU_MAX] = { 0 };
	int key = 0, c;

	switch (r->ring) {
	case R_RB:
	case R_PB:
		/* A per-CPU map: one value per possible CPU. */
		TBT_CHECK(map_lookup(r->cnt, &key, v) == 0, "counters: %s", strerror(errno));
		*produced = *dropped = 0;
		for (c = 0; c < npossible; c++) {
			*produced += v[2 * c];
			*dropped += v[2 * c + 1];
		}
		break;
	case R_TB:
	case R_NONE:
		if (final) {
			struct tbb_stats st = { 0 };

			TBT_CHECK(ioctl(r->bfd, TBB_IOC_STOP, &st) == 0, "STOP: %s",
				  strerror(errno));
			*produced = st.produced;
			*dropped = st.dropped;
			if (r->ring == R_NONE)	/* nothing written: all "consumed" */
				r->consumed = st.produced;
			TBT_CHECK(st.dropped == r->s.ctl->records_lost,
				  "tb_bench dropped %llu, ring lost %llu",
				  (unsigned long long)st.dropped,
				  (unsigned long long)r->s.ctl->records_lost);
		}
		break;
	case R_MK:
		*produced = r->mk_produced;
		*dropped = r->mk_dropped;
		break;
	default:
		break;
	}
}


/* ---- an optional profile (argument 5: prof) ------------------------------ */

/*
 * Where the time of one run goes, for looking, not for the table:
 * cpu-clock samples on every CPU (perf's own software event, sampled by an
 * hrtimer, so it works under TCG), kernel addresses named from
 * /proc/kallsyms, user samples by thread (the producers and the consumer).
 */
#define PROF_PAGES	256
static int prof_on;
static struct ksym { unsigned long a; char n[48]; } *ksyms;
static size_t nksyms;
static struct prof_cpu { int fd; struct perf_event_mmap_page *pg; } prof_cpus[NCPU_MAX];
static pid_t prof_consumer;

static int cmp_ksym(const void *a, const void *b)
{
	const struct ksym *x = a, *y = b;

	return x->a < y->a ? -1 : x->a > y->a;
}

static void prof_kallsyms(void)
{
	FILE *f = fopen("/proc/kallsyms", "r");
	char line[256], t, name[128];
	unsigned long a;
	size_t cap = 0;

	if (!f)
		return;
	while (fgets(line, sizeof(line), f)) {
		if (sscanf(line, "%lx %c %127s", &a, &t, name) != 3 || (t != 't' && t != 'T'))
			continue;
		if (nksyms == cap) {
			cap = cap ? 2 * cap : 65536;
			ksyms = realloc(ksyms, cap * sizeof(*ksyms));
		}
		ksyms[nksyms].a = a;
		snprintf(ksyms[nksyms].n, sizeof(ksyms[0].n), "%.47s", name);
		nksyms++;
	}
	fclose(f);
	qsort(ksyms, nksyms, sizeof(*ksyms), cmp_ksym);
}

static const char *prof_ksym(unsigned long a)
{
	size_t lo = 0, hi = nksyms;

	while (hi - lo > 1) {
		size_t m = (lo + hi) / 2;

		if (ksyms[m].a <= a)
			lo = m;
		else
			hi = m;
	}
	return nksyms && ksyms[lo].a <= a ? ksyms[lo].n : "?";
}

static void prof_start(void)
{
	long pg = sysconf(_SC_PAGESIZE);
	int c;

	prof_consumer = syscall(__NR_gettid);
	for (c = 0; c < ncpus; c++) {
		struct perf_event_attr a = {
			.type = PERF_TYPE_SOFTWARE, .size = sizeof(a),
			.config = PERF_COUNT_SW_CPU_CLOCK, .sample_period = 50000,
			.sample_type = PERF_SAMPLE_IP | PERF_SAMPLE_TID,
		};
		void *m;

		prof_cpus[c].fd = syscall(__NR_perf_event_open, &a, -1, c, -1, PERF_FLAG_FD_CLOEXEC);
		if (prof_cpus[c].fd < 0)
			continue;
		m = mmap(NULL, pg * (1 + PROF_PAGES), PROT_READ | PROT_WRITE, MAP_SHARED,
			 prof_cpus[c].fd, 0);
		prof_cpus[c].pg = m == MAP_FAILED ? NULL : m;
	}
}

struct prof_ent { const char *name; char buf[48]; unsigned long n; };

static void prof_add(struct prof_ent *e, int *ne, const char *name)
{
	int i;

	for (i = 0; i < *ne; i++)
		if (!strcmp(e[i].name, name)) {
			e[i].n++;
			return;
		}
	if (*ne < 4096) {
		snprintf(e[*ne].buf, sizeof(e[0].buf), "%.47s", name);
		e[*ne].name = e[*ne].buf;
		e[(*ne)++].n = 1;
	}
}

static int cmp_ent(const void *a, const void *b)
{
	const struct prof_ent *x = a, *y = b;

	return x->n < y->n ? 1 : x->n > y->n ? -1 : 0;
}

static void prof_stop(const char *what)
{
	static struct prof_ent e[4096];
	long pg = sysconf(_SC_PAGESIZE);
	unsigned long total = 0;
	int c, ne = 0, i;

	for (c = 0; c < ncpus; c++) {
		struct perf_event_mmap_page *m = prof_cpus[c].pg;
		const unsigned char *d;
		uint64_t head, tail, sz = (uint64_t)pg * PROF_PAGES;

		if (!m)
			goto close;
		ioctl(prof_cpus[c].fd, PERF_EVENT_IOC_DISABLE, 0);
		d = (const unsigned char *)m + pg;
		head = __atomic_load_n(&m->data_head, __ATOMIC_ACQUIRE);
		for (tail = m->data_tail; tail < head;) {
			const struct perf_event_header *h = (const void *)(d + (tail & (sz - 1)));
			char name[48];

			if (h->type == PERF_RECORD_SAMPLE && h->size >= 24) {
				uint64_t ip = *(const uint64_t *)(d + ((tail + 8) & (sz - 1)));
				uint32_t pid = *(const uint32_t *)(d + ((tail + 16) & (sz - 1)));
				uint32_t tid = *(const uint32_t *)(d + ((tail + 20) & (sz - 1)));

				if (ip >= 0xffff800000000000ULL)
					prof_add(e, &ne, prof_ksym(ip));
				else {
					snprintf(name, sizeof(name), "[user %s]",
						 pid != (uint32_t)getpid() ? "other" :
						 tid == (uint32_t)prof_consumer ? "consumer" : "producer");
					prof_add(e, &ne, name);
				}
				total++;
			}
			tail += h->size;
		}
		munmap(m, pg * (1 + PROF_PAGES));
close:
		if (prof_cpus[c].fd >= 0)
			close(prof_cpus[c].fd);
		prof_cpus[c].fd = -1;
		prof_cpus[c].pg = NULL;
	}
	qsort(e, ne, sizeof(e[0]), cmp_ent);
	printf("prof: %s: %lu samples\n", what, total);
	for (i = 0; i < ne && i < 40; i++)
		printf("prof:   %5.1f%% %s\n", 100.0 * e[i].n / (total ? total : 1), e[i].name);
}

static void one_run(int ri, int pi, enum ring ring)
{
	const struct row *row = &rows[ri];
	struct run *r = calloc(1, sizeof(*r));
	struct result *out = &res[ri][pi][ring];
	struct epoll_event ev;
	pthread_t th[2], timer;
	uint64_t produced = 0, dropped = 0;
	double t0, t1, end;
	int i, map = -1, ret = 0;

	r->row = row;
	r->ring = ring;
	r->payload = payloads[pi];
	r->ep = epoll_create1(EPOLL_CLOEXEC);
	r->bfd = -1;
	r->cnt = r->every = r->prog = r->link = -1;
	if (ring == R_RB || ring == R_PB) {
		static struct prog p;

		map = ring == R_RB ? setup_rb(r) : setup_pb(r);
		r->cnt = map_create(BPF_MAP_TYPE_PERCPU_ARRAY, 4, 16, 1);
		r->every = map_create(BPF_MAP_TYPE_ARRAY, 4, 8, 1);
		if (map < 0 || r->cnt < 0 || r->every < 0) {
			TBT_CHECK(0, "%s: maps: %s", ring_name[ring], strerror(-map));
			goto out;
		}
		gen_prog(&p, ring, map, r->cnt, r->every, r->payload, row->batch, row->wake);
		r->link = prog_attach(&p, &r->prog);
		if (r->link < 0) {
			TBT_CHECK(0, "%s: program", ring_name[ring]);
			goto out;
		}
		if (ring == R_RB)
			ret = ep_add(r, map);
		for (i = 0; ring == R_PB && i < ncpus && !ret; i++)
			ret = ep_add(r, r->pb[i].fd);
	} else {
		ret = setup_tb(r);
		if (!ret)
			ret = ep_add(r, r->s.fd);
	}
	if (ret) {
		TBT_CHECK(0, "%s: setup: %d %s", ring_name[ring], ret, strerror(errno));
		goto out;
	}

	if (prof_on)
		prof_start();
	t0 = now();
	for (i = 0; i < row->producers; i++)
		pthread_create(&th[i], NULL, producer, r);
	pthread_create(&timer, NULL, timer_thread, r);
	while (!__atomic_load_n(&r->timeup, __ATOMIC_RELAXED)) {
		if (!row->producers)
			produce(r);	/* back to back: this thread produces too */
		else if (row->epoll) {
			if (epoll_wait(r->ep, &ev, 1, 100) > 0)
				r->wakeups++;
		}
		r->consumed += drain(r);
	}
	end = now();
	r->stop = 1;
	for (i = 0; i < row->producers; i++)
		pthread_join(th[i], NULL);
	pthread_join(timer, NULL);
	if (prof_on) {
		char what[128];

		snprintf(what, sizeof(what), "%s, %s p=%d b=%d, %u B", ring_name[ring], row->name,
			 row->producers, row->batch, r->payload);
		prof_stop(what);
	}
	if (r->link >= 0)
		close(r->link);		/* detach: nothing more is produced */
	/* Whatever is left, until it adds up (or it never will). */
	totals(r, &produced, &dropped, 1);
	for (i = 0; i < 300 && r->consumed + dropped < produced; i++) {
		r->consumed += drain(r);
		if (r->consumed + dropped < produced)
			usleep(10000);
	}
	t1 = now();
	TBT_CHECK(r->consumed + dropped == produced,
		  "%s, %s, %u B: consumed %llu + dropped %llu != produced %llu",
		  ring_name[ring], row->name, r->payload, (unsigned long long)r->consumed,
		  (unsigned long long)dropped, (unsigned long long)produced);
	/* perf writes a LOST record only once room is back: never more. */
	if (ring == R_PB)
		TBT_CHECK(r->pb_lost <= dropped, "perfbuf: LOST records %llu, dropped %llu",
			  (unsigned long long)r->pb_lost, (unsigned long long)dropped);
	out->rate[out->n++] = r->consumed / (end - t0);
	out->lost += dropped;
	out->produced += produced;
	out->wakeups += r->wakeups;
	if (ring >= R_TB)
		out->kwakeups += r->s.ctl->wakeups;
	(void)t1;
out:
	if (r->link >= 0)
		close(r->prog);
	if (r->cnt >= 0)
		close(r->cnt);
	if (r->every >= 0)
		close(r->every);
	if (ring == R_RB && map >= 0) {
		munmap(r->rb.cons, sysconf(_SC_PAGESIZE));
		munmap((void *)r->rb.prod, sysconf(_SC_PAGESIZE) + 2 * RING);
	}
	for (i = 0; ring == R_PB && i < ncpus; i++)
		if (r->pb[i].pg) {
			munmap(r->pb[i].pg, sysconf(_SC_PAGESIZE) + RING);
			close(r->pb[i].fd);
		}
	if (map >= 0)
		close(map);
	if (r->bfd >= 0)
		close(r->bfd);
	if (ring >= R_TB)
		tracebuf_close(&r->s);
	close(r->ep);
	free(r);
}

/* How many values a per-CPU map lookup returns: the possible CPUs. */
static int possible_cpus(void)
{
	FILE *f = fopen("/sys/devices/system/cpu/possible", "r");
	int lo = 0, hi = -1;

	if (f) {
		if (fscanf(f, "%d-%d", &lo, &hi) == 1)
			hi = lo;
		fclose(f);
	}
	return hi + 1;
}

static int cmp_double(const void *a, const void *b)
{
	double x = *(const double *)a, y = *(const double *)b;

	return x < y ? -1 : x > y;
}

static double median(struct result *r)
{
	double v[16];

	if (!r->n)
		return 0;
	memcpy(v, r->rate, r->n * sizeof(v[0]));
	qsort(v, r->n, sizeof(v[0]), cmp_double);
	return r->n % 2 ? v[r->n / 2] : (v[r->n / 2 - 1] + v[r->n / 2]) / 2;
}

static void table(void)
{
	unsigned int ri, pi, g;

	printf("bench: data rings, %d CPUs, %d ms per run, median of %d runs; records/s "
	       "(lost of produced; wakeups: consumer's epoll returns [tracebuf's count])\n",
	       ncpus, run_ms, res[0][0][0].n);
	for (ri = 0; ri < NROWS; ri++) {
		for (pi = 0; pi < NPAY; pi++) {
			printf("bench: %-29s p=%d b=%-3d %3u B:", rows[ri].name,
			       rows[ri].producers ? rows[ri].producers : 1, rows[ri].batch,
			       payloads[pi]);
			for (g = 0; g < R_NR; g++) {
				struct result *x = &res[ri][pi][g];

				printf(" %s %.0f (lost %llu/%llu, wk %llu", ring_name[g], median(x),
				       (unsigned long long)x->lost, (unsigned long long)x->produced,
				       (unsigned long long)x->wakeups);
				if (g >= R_TB)
					printf(" [%llu]", (unsigned long long)x->kwakeups);
				printf(");");
			}
			printf("\n");
		}
	}
	printf("bench: ratios           tracebuf/ringbuf       tracebuf/perfbuf       marker/ringbuf"
	       "         none/ringbuf (the ceiling: the probe writing nothing)\n");
	for (ri = 0; ri < NROWS; ri++) {
		printf("bench: %-29s p=%d b=%-3d", rows[ri].name,
		       rows[ri].producers ? rows[ri].producers : 1, rows[ri].batch);
		for (g = 0; g < 4; g++) {
			printf("  ");
			for (pi = 0; pi < NPAY; pi++) {
				double tb = median(&res[ri][pi][g == 3 ? R_NONE :
								 g == 2 ? R_MK : R_TB]);
				double peer = median(&res[ri][pi][g == 1 ? R_PB : R_RB]);

				printf("%s%.2f", pi ? " / " : "", peer ? tb / peer : 0);
			}
		}
		printf("\n");
	}
}

int main(int argc, char **argv)
{
	int reps = argc > 1 ? atoi(argv[1]) : 3, rep, ri, pi, g;
	unsigned long rmask = argc > 3 ? strtoul(argv[3], NULL, 16) : ~0UL;
	unsigned long gmask = argc > 4 ? strtoul(argv[4], NULL, 16) : ~0UL;

	if (argc > 2)
		run_ms = atoi(argv[2]);
	prof_on = argc > 5 && !strcmp(argv[5], "prof");
	if (reps < 1 || reps > 16 || run_ms < 10)
		return 2;
	ncpus = sysconf(_SC_NPROCESSORS_CONF);
	if (ncpus > NCPU_MAX)
		ncpus = NCPU_MAX;
	npossible = possible_cpus();
	if (npossible < ncpus || npossible > NCPU_MAX)
		return 2;
	if (tbt_modprobe("tracebuf") || tbt_modprobe("tb_bench"))
		return 1;
	if (prof_on)
		prof_kallsyms();
	memset(marker_data, 0x5a, sizeof(marker_data));
	/* Interleaved: each rep runs every ring of every row once. */
	for (rep = 0; rep < reps; rep++)
		for (ri = 0; ri < (int)NROWS; ri++)
			for (pi = 0; pi < NPAY; pi++)
				for (g = 0; g < R_NR; g++)
					if ((rmask >> ri & 1) && (gmask >> g & 1))
						one_run(ri, pi, g);
	table();
	return tbt_done();
}
