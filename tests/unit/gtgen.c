// SPDX-License-Identifier: GPL-2.0
/*
 * gtgen - a per-task Intel PT capture of a real program, made natively,
 * with the ground truth of what the program executed (x86_64 hosts).
 *
 *   gtgen [options] DIR PROG [ARGS...]
 *
 * It runs PROG under ptrace single-step, like tests/guest/ptfollow.c
 * (every thread: PTRACE_O_TRACECLONE; the processes it forks:
 * PTRACE_O_TRACEFORK; execs: PTRACE_O_TRACEEXEC), classifies each
 * instruction with Capstone, and writes what 'tracebuf record' would
 * have written had the hardware traced it with the per-task target:
 *
 *   DIR/meta.json   an intel_pt capture, format 1, with a "sideband" object
 *   DIR/cpuN.data   SWITCH IN/OUT records around each run of a thread on
 *                   CPU N (the thread's bytes are between them), AUX
 *                   records (spans of at most --span bytes), TASK FORK
 *   DIR/cpuN.aux    the packets Intel PT writes for those instructions
 *                   (SDM vol. 3C ch. 33): PSB+ (TSC, CBR) where each run
 *                   starts and every --psb bytes (with MODE.Exec and a FUP
 *                   of the current IP inside), MODE.Exec and TIP.PGE
 *                   where tracing starts, TNT bits (packed up to six in a
 *                   TNT.8), TIP for indirect branches and for returns
 *                   that cannot be compressed (with --noretcomp, every
 *                   one), a TNT bit for a return to the top of the
 *                   return-compression stack (64 entries, cleared by
 *                   PSB), TIP.PGD with the IP suppressed at system calls,
 *                   FUP + TIP.PGD where a run ends (an interrupt),
 *                   TIP.PGD / TIP.PGE at the edges of an IP filter range
 *                   (--filter); IPs compressed against the last IP
 *   DIR/cpu0.side   the sideband: perf records (PERF_RECORD_MMAP2 with the
 *                   build-id of every executable mapping, as
 *                   /proc/PID/maps shows it after each system call;
 *                   COMM with PERF_RECORD_MISC_COMM_EXEC at execs; FORK),
 *                   sample_id_all with TID, TIME, CPU, IDENTIFIER
 *   DIR/vdso.so     the vDSO, copied from the process's memory
 *   DIR/gt.txt      the ground truth (below)
 *
 * Scheduling: a thread runs on a CPU for a run of 1..--run steps (a
 * random length), then is switched out; when no CPU is free another
 * thread's run ends. Runs go to random CPUs, so threads migrate. An exec
 * ends the run (the next is flagged EXEC); the thread's exit ends it too.
 * Time: every step advances a clock by 10 ns; the TSC runs at 3 GHz
 * (CPUID 0x15 says so in meta.json).
 *
 * Ground truth, gt.txt, in execution order per thread:
 *   R <tid> <cpu> <time>                a run starts (its SWITCH IN time)
 *   S <tid> <from> <to> <kind> <len> <bytes>
 *                                       every retired instruction (hex),
 *                                       to: the next instruction the thread
 *                                       executed (0: none, it exited),
 *                                       bytes: as the thread's memory held them
 *   B <tid> <from> <to> <kind> <taken>  every branch (kind != 0), as
 *                                       ptfollow writes them
 *   T <tid> <insns> <cond> <ind> <ret> <far> <call>   when it exits
 * kind as enum ptemu_follow_kind: 0 other, 1 cond, 2 indirect, 3 ret,
 * 4 far (syscall, int), 5 direct call. A REP string instruction is one
 * instruction however many iterations single-stepping showed. Where a
 * signal was delivered the instruction before it (a system call) has the
 * handler as its 'to'.
 *
 * Options: --seed N, --run N (steps per run at most; 1: one per run, as
 * the emulator's follow mode writes them), --cpus N, --span N, --psb N,
 * --noretcomp, --exec-late-out (an exec's COMM record comes before the
 * SWITCH OUT of the run that ran up to the execve(), as when the thread is
 * preempted inside execve() between the two), --filter LO-HI (one IP filter range, addr0=LO-HI:filter),
 * --snapshot N (snapshot mode: each CPU keeps only its newest N bytes, one
 * span flagged OVERWRITE), --break tnt|tip|psb (a TNT bit flipped, a TIP
 * target off by one, a run without its PSB+, in the middle of the trace).
 * Prints "steps N runs N threads N status S" at the end. The program runs
 * with glibc told not to use AVX-512 (GLIBC_TUNABLES): Capstone 4 does not
 * decode every EVEX instruction.
 */
#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <inttypes.h>
#include <signal.h>
#include <stdbool.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <stddef.h>
#include <string.h>
#include <sys/ptrace.h>
#include <sys/stat.h>
#include <sys/types.h>
#include <sys/uio.h>
#include <sys/user.h>
#include <sys/wait.h>
#include <unistd.h>

#include <linux/perf_event.h>
#include <tracebuf.h>

#ifdef __x86_64__
#include <capstone/capstone.h>
#include <elfutils/libdwelf.h>
#include <gelf.h>
#include <libelf.h>

#include "ptemu_gen.h"

#define MAXTHR		256
#define MAXCPU		8
#define MAXMAPS		256
#define RETSTACK	64
#define STEP_NS		10
#define TSC_PER_NS	3
#define SAMPLE_TYPE	(PERF_SAMPLE_TID | PERF_SAMPLE_TIME | PERF_SAMPLE_CPU | PERF_SAMPLE_IDENTIFIER)

enum { K_OTHER, K_COND, K_IND, K_RET, K_FAR, K_CALL };

struct step {
	uint64_t from, to;
	unsigned int kind, len;
	bool direct_jmp, call;
	uint8_t bytes[16];
};

struct mapent {
	uint64_t start, end, pgoff;
	char path[256];
};

struct thr {
	pid_t tid, pid;
	bool used, stepping, sig_pending, exec_pending;
	bool waiting_event;		/* stopped before the event that announces it */
	bool announced;
	uint64_t from;			/* the instruction being stepped */
	unsigned int kind, len;
	bool direct_jmp, call;
	uint8_t bytes[16];
	bool have_last;			/* a retired step waiting for its successor */
	struct step last;
	bool last_exec, last_maps;	/* events of that step */
	/* Generator state. */
	int cpu;			/* -1: not running */
	uint64_t resume_ip;		/* where the last finalized step led */
	unsigned int run_left;
	bool pkt_en, mode_sent, exec_next;
	uint64_t last_ip, since_psb;
	uint32_t tnt_bits;
	unsigned int tnt_n;
	uint64_t rs[RETSTACK];
	unsigned int rs_n;
	uint64_t n[6], insns;
};

struct cpu {
	FILE *data, *aux;
	uint64_t pos;			/* ring position of the next byte */
	uint64_t pub;			/* published up to here */
	uint64_t records, spans, data_bytes;
	struct thr *t;
	uint8_t *pending;		/* bytes not yet in a span */
	size_t npending, cap;
	uint64_t snap_keep;		/* snapshot: the newest bytes (kept in memory) */
	uint8_t *all;
	size_t nall, allcap;
};

struct proc {
	pid_t pid;
	struct mapent maps[MAXMAPS];
	unsigned int nmaps;
};

static struct thr thr[MAXTHR];
static struct cpu cpus[MAXCPU];
static struct proc procs[MAXTHR];
static unsigned int ncpus = 2, max_run = 64, span_max = 4096, psb_period = 4096;
static bool noretcomp, exec_late_out;
static uint64_t filt_lo, filt_hi;
static bool filter;
static uint64_t snapshot;
static const char *breakwhat = "";
static uint32_t rng = 0x2545f491;
static uint64_t clk = 1000000000;	/* ns */
static uint64_t nsteps, nruns, nthreads, brk_at, brk_done;
static FILE *gt, *side;
static uint64_t side_bytes;
static const char *dir;
static csh cs;
static bool vdso_saved;

static void die(const char *what)
{
	perror(what);
	exit(2);
}

static uint32_t rnd(void)
{
	rng ^= rng << 13;
	rng ^= rng >> 17;
	rng ^= rng << 5;
	return rng;
}

static struct thr *thr_of(pid_t tid, bool create)
{
	int i;

	for (i = 0; i < MAXTHR; i++)
		if (thr[i].used && thr[i].tid == tid)
			return &thr[i];
	if (!create)
		return NULL;
	for (i = 0; i < MAXTHR; i++)
		if (!thr[i].used) {
			memset(&thr[i], 0, sizeof(thr[i]));
			thr[i].used = true;
			thr[i].tid = tid;
			thr[i].cpu = -1;
			nthreads++;
			return &thr[i];
		}
	fprintf(stderr, "gtgen: more than %d threads\n", MAXTHR);
	exit(2);
}

static struct proc *proc_of(pid_t pid)
{
	int i;

	for (i = 0; i < MAXTHR; i++)
		if (procs[i].pid == pid)
			return &procs[i];
	for (i = 0; i < MAXTHR; i++)
		if (!procs[i].pid) {
			memset(&procs[i], 0, sizeof(procs[i]));
			procs[i].pid = pid;
			return &procs[i];
		}
	exit(2);
}

static pid_t tgid_of(pid_t tid)
{
	char path[64], line[256];
	pid_t tg = tid;
	FILE *f;

	snprintf(path, sizeof(path), "/proc/%d/status", tid);
	f = fopen(path, "r");
	while (f && fgets(line, sizeof(line), f))
		if (sscanf(line, "Tgid: %d", &tg) == 1)
			break;
	if (f)
		fclose(f);
	return tg;
}

/* ---- the sideband ----------------------------------------------------- */

static void side_rec(uint32_t type, uint16_t misc, const void *body, size_t blen, pid_t pid,
		     pid_t tid, uint64_t time)
{
	struct perf_event_header h;
	uint8_t buf[512] = { 0 };
	size_t size = (sizeof(h) + blen + 7) / 8 * 8;
	uint64_t tr[4];

	h.type = type;
	h.misc = misc;
	h.size = (uint16_t)(size + sizeof(tr));
	memcpy(buf, &h, sizeof(h));
	memcpy(buf + sizeof(h), body, blen);
	/* sample_id: TID (pid, tid), TIME, CPU (cpu, res), IDENTIFIER. */
	tr[0] = (uint64_t)(uint32_t)pid | (uint64_t)(uint32_t)tid << 32;
	tr[1] = time;
	tr[2] = 0;
	tr[3] = 1;
	memcpy(buf + size, tr, sizeof(tr));
	if (fwrite(buf, 1, h.size, side) != h.size)
		die("cpu0.side");
	side_bytes += h.size;
}

static unsigned int build_id(const char *path, uint8_t *out)
{
	const void *bid;
	ssize_t n = 0;
	Elf *e;
	int fd = open(path, O_RDONLY);

	if (fd < 0)
		return 0;
	e = elf_begin(fd, ELF_C_READ_MMAP, NULL);
	if (e)
		n = dwelf_elf_gnu_build_id(e, &bid);
	if (n > 0 && n <= 20)
		memcpy(out, bid, (size_t)n);
	else
		n = 0;
	if (e)
		elf_end(e);
	close(fd);
	return (unsigned int)n;
}

static void save_vdso(pid_t pid, uint64_t start, uint64_t end, uint8_t *bid, unsigned int *blen)
{
	char path[4096];
	struct iovec l, r;
	uint8_t *buf = malloc(end - start);
	ssize_t n;
	FILE *f;

	l.iov_base = buf;
	l.iov_len = end - start;
	r.iov_base = (void *)start;
	r.iov_len = end - start;
	n = process_vm_readv(pid, &l, 1, &r, 1, 0);
	if (n != (ssize_t)(end - start))
		die("gtgen: reading the vDSO");
	snprintf(path, sizeof(path), "%s/vdso.so", dir);
	if (!vdso_saved) {
		f = fopen(path, "w");
		if (!f || fwrite(buf, 1, (size_t)n, f) != (size_t)n || fclose(f))
			die(path);
		vdso_saved = true;
	}
	*blen = build_id(path, bid);
	free(buf);
}

/* New executable mappings of pid since the last look: MMAP2 records at time. */
static void scan_maps(pid_t pid, pid_t tid, uint64_t time)
{
	struct proc *p = proc_of(pid);
	char path[64], line[512], perms[8], name[256];
	unsigned long long s, e, off;
	struct mapent now[MAXMAPS];
	unsigned int n = 0, i, k;
	FILE *f;

	snprintf(path, sizeof(path), "/proc/%d/maps", pid);
	f = fopen(path, "r");
	if (!f)
		return;
	while (fgets(line, sizeof(line), f) && n < MAXMAPS) {
		name[0] = 0;
		if (sscanf(line, "%llx-%llx %7s %llx %*s %*s %255s", &s, &e, perms, &off, name) < 4)
			continue;
		if (perms[2] != 'x' || !strcmp(name, "[vsyscall]"))
			continue;
		now[n].start = s;
		now[n].end = e;
		now[n].pgoff = off;
		snprintf(now[n].path, sizeof(now[n].path), "%s", name);
		n++;
	}
	fclose(f);
	for (i = 0; i < n; i++) {
		struct {
			uint32_t pid, tid;
			uint64_t addr, len, pgoff;
			uint8_t bid_size, r1;
			uint16_t r2;
			uint8_t bid[20];
			uint32_t prot, flags;
			char name[256];
		} __attribute__((packed)) m;
		bool known = false;

		for (k = 0; k < p->nmaps; k++)
			if (p->maps[k].start == now[i].start && p->maps[k].end == now[i].end &&
			    p->maps[k].pgoff == now[i].pgoff && !strcmp(p->maps[k].path, now[i].path))
				known = true;
		if (known)
			continue;
		memset(&m, 0, sizeof(m));
		m.pid = (uint32_t)pid;
		m.tid = (uint32_t)tid;
		m.addr = now[i].start;
		m.len = now[i].end - now[i].start;
		m.pgoff = now[i].pgoff;
		m.prot = 5;	/* PROT_READ | PROT_EXEC */
		m.flags = 2;	/* MAP_PRIVATE */
		if (!strcmp(now[i].path, "[vdso]")) {
			unsigned int bl = 0;

			save_vdso(pid, now[i].start, now[i].end, m.bid, &bl);
			m.bid_size = (uint8_t)bl;
		} else {
			m.bid_size = (uint8_t)build_id(now[i].path, m.bid);
		}
		snprintf(m.name, sizeof(m.name), "%s", now[i].path);
		side_rec(PERF_RECORD_MMAP2, m.bid_size ? PERF_RECORD_MISC_MMAP_BUILD_ID : 0, &m,
			 (size_t)((char *)m.name - (char *)&m) + strlen(m.name) + 1, pid, tid, time);
	}
	memcpy(p->maps, now, n * sizeof(now[0]));
	p->nmaps = n;
}

static void side_exec(pid_t pid, pid_t tid, uint64_t time)
{
	struct proc *p = proc_of(pid);
	struct { uint32_t pid, tid; char comm[16]; } c;
	char path[64];
	FILE *f;

	memset(&c, 0, sizeof(c));
	c.pid = (uint32_t)pid;
	c.tid = (uint32_t)tid;
	snprintf(path, sizeof(path), "/proc/%d/comm", tid);
	f = fopen(path, "r");
	if (f && fgets(c.comm, sizeof(c.comm), f))
		c.comm[strcspn(c.comm, "\n")] = 0;
	if (f)
		fclose(f);
	side_rec(PERF_RECORD_COMM, PERF_RECORD_MISC_COMM_EXEC, &c, sizeof(c), pid, tid, time);
	p->nmaps = 0;
	scan_maps(pid, tid, time);
}

static void side_fork(pid_t pid, pid_t ppid, pid_t tid, pid_t ptid, uint64_t time)
{
	struct { uint32_t pid, ppid, tid, ptid; uint64_t time; } fk = {
		(uint32_t)pid, (uint32_t)ppid, (uint32_t)tid, (uint32_t)ptid, time,
	};

	side_rec(PERF_RECORD_FORK, 0, &fk, sizeof(fk), pid, tid, time);
	if (pid != ppid) {
		struct proc *c = proc_of(pid), *p = proc_of(ppid);

		memcpy(c->maps, p->maps, sizeof(p->maps));
		c->nmaps = p->nmaps;
	}
}

/* ---- the capture --------------------------------------------------------- */

static void data_rec(struct cpu *c, void *rec, uint32_t size, uint16_t type, uint32_t cpu,
		     uint64_t time)
{
	struct tracebuf_record *r = rec;

	r->hdr.size = (size + 7) & ~7u;
	r->hdr.type = type;
	r->hdr.flags = 0;
	r->commit = tracebuf_commit_tag(c->data_bytes);
	r->cpu = cpu;
	r->time = time;
	if (fwrite(rec, 1, r->hdr.size, c->data) != r->hdr.size)
		die("cpuN.data");
	c->data_bytes += r->hdr.size;
	c->records++;
}

static void publish(unsigned int ci, uint64_t time)
{
	struct cpu *c = &cpus[ci];
	struct tracebuf_rec_aux a;

	if (!c->npending)
		return;
	if (snapshot) {
		/* Kept for the snapshot at the end. */
		if (c->nall + c->npending > c->allcap) {
			c->allcap = (c->nall + c->npending) * 2;
			c->all = realloc(c->all, c->allcap);
			if (!c->all)
				die("realloc");
		}
		memcpy(c->all + c->nall, c->pending, c->npending);
		c->nall += c->npending;
		c->pub += c->npending;
		c->npending = 0;
		return;
	}
	memset(&a, 0, sizeof(a));
	a.aux_offset = c->pub;
	a.aux_size = c->npending;
	data_rec(c, &a, sizeof(a), TRACEBUF_REC_AUX, ci, time);
	if (fwrite(c->pending, 1, c->npending, c->aux) != c->npending)
		die("cpuN.aux");
	c->pub += c->npending;
	c->spans++;
	c->npending = 0;
}

static void emit(unsigned int ci, const uint8_t *b, size_t n)
{
	struct cpu *c = &cpus[ci];

	if (c->npending + n > c->cap) {
		c->cap = (c->npending + n) * 2 + 4096;
		c->pending = realloc(c->pending, c->cap);
		if (!c->pending)
			die("realloc");
	}
	memcpy(c->pending + c->npending, b, n);
	c->npending += n;
	c->pos += n;
}

static void sw_rec(unsigned int ci, struct thr *t, uint32_t flags, uint64_t time)
{
	struct tracebuf_rec_switch w;

	memset(&w, 0, sizeof(w));
	w.aux_offset = cpus[ci].pos;
	w.pid = (uint32_t)t->pid;
	w.tid = (uint32_t)t->tid;
	w.flags = flags;
	data_rec(&cpus[ci], &w, sizeof(w), TRACEBUF_REC_SWITCH, ci, time);
}

/* ---- Intel PT packets ------------------------------------------------------ */

static bool in_filter(uint64_t ip)
{
	return !filter || (ip >= filt_lo && ip <= filt_hi);
}

static void flush_tnt(struct thr *t)
{
	uint8_t b[1];

	if (!t->tnt_n)
		return;
	ptgen_enc_tnt8(b, t->tnt_bits, t->tnt_n);
	emit((unsigned int)t->cpu, b, 1);
	t->since_psb++;
	t->tnt_bits = 0;
	t->tnt_n = 0;
}

static void tnt(struct thr *t, bool taken)
{
	t->tnt_bits = (t->tnt_bits << 1) | taken;
	if (++t->tnt_n == 6)
		flush_tnt(t);
}

static void ip_pkt(struct thr *t, uint8_t opc, uint64_t ip, bool suppressed)
{
	uint8_t b[PTGEN_IP_MAX_SIZE];
	unsigned int n, ipc;

	flush_tnt(t);
	if (suppressed) {
		n = ptgen_enc_ip(b, opc, PTGEN_IPC_SUPPRESSED, 0);
	} else {
		ipc = ptgen_ipc_best(ip, t->last_ip);
		if (!t->last_ip)
			ipc = ptgen_ipc_best(ip, 0) == PTGEN_IPC_SEXT48 ? PTGEN_IPC_SEXT48 :
									   PTGEN_IPC_FULL;
		n = ptgen_enc_ip(b, opc, ipc, ip);
		t->last_ip = ip;
	}
	emit((unsigned int)t->cpu, b, n);
	t->since_psb += n;
}

/* PSB+; with fup_ip (PacketEn on): MODE.Exec and FUP inside. */
static void psbplus(struct thr *t, uint64_t fup_ip)
{
	uint8_t b[64];
	unsigned int n = 0;
	uint64_t tsc = clk * TSC_PER_NS;

	flush_tnt(t);
	if (!strcmp(breakwhat, "psb") && nruns == brk_at && !brk_done) {
		brk_done = 1;
	} else {
		n += ptgen_enc_psb(b + n);
		n += ptgen_enc_tsc(b + n, tsc);
		n += ptgen_enc_cbr(b + n, PTGEN_CBR_RATIO);
	}
	t->last_ip = 0;
	t->rs_n = 0;
	t->mode_sent = false;
	if (fup_ip) {
		n += ptgen_enc_mode_exec64(b + n);
		t->mode_sent = true;
		emit((unsigned int)t->cpu, b, n);
		t->since_psb = 0;
		ip_pkt(t, PTGEN_OPC_FUP, fup_ip, false);
		n = 0;
	}
	n += ptgen_enc_psbend(b + n);
	emit((unsigned int)t->cpu, b, n);
	t->since_psb = fup_ip ? t->since_psb + n : 0;
}

static void pge(struct thr *t, uint64_t ip)
{
	if (!t->mode_sent) {
		uint8_t b[2];

		flush_tnt(t);
		emit((unsigned int)t->cpu, b, ptgen_enc_mode_exec64(b));
		t->since_psb += 2;
		t->mode_sent = true;
	}
	ip_pkt(t, PTGEN_OPC_TIP_PGE, ip, false);
	t->pkt_en = true;
}

static void pgd(struct thr *t, uint64_t ip, bool suppressed)
{
	ip_pkt(t, PTGEN_OPC_TIP_PGD, ip, suppressed);
	t->pkt_en = false;
}

/* The packets of one retired instruction of t (on its CPU). */
static void step_pkts(struct thr *t, const struct step *s)
{
	bool in_from = in_filter(s->from), in_to = s->to && in_filter(s->to);

	if (t->pkt_en && t->since_psb >= psb_period)
		psbplus(t, s->from);
	if (!in_from) {
		if (t->pkt_en)
			pgd(t, s->from, false);
		return;
	}
	if (!t->pkt_en)
		pge(t, s->from);
	if (s->kind == K_FAR) {
		pgd(t, 0, true);		/* to the kernel */
		return;
	}
	if (!in_to) {
		if (s->to)
			pgd(t, s->to, false);	/* leaving the filter range */
		return;
	}
	switch (s->kind) {
	case K_COND: {
		bool taken = s->to != s->from + s->len;

		if (!strcmp(breakwhat, "tnt") && nsteps >= brk_at && !brk_done) {
			taken = !taken;
			brk_done = 1;
		}
		tnt(t, taken);
		break;
	}
	case K_CALL:
	case K_IND:
		if (s->kind == K_IND) {
			uint64_t to = s->to;

			if (!strcmp(breakwhat, "tip") && nsteps >= brk_at && !brk_done) {
				to++;
				brk_done = 1;
			}
			ip_pkt(t, PTGEN_OPC_TIP, to, false);
		}
		/* A call (not to the next instruction): its return address is pushed. */
		if (s->call && !(s->kind == K_CALL && s->to == s->from + s->len)) {
			if (t->rs_n == RETSTACK) {
				memmove(t->rs, t->rs + 1, (RETSTACK - 1) * sizeof(t->rs[0]));
				t->rs_n--;
			}
			t->rs[t->rs_n++] = s->from + s->len;
		}
		break;
	case K_RET:
		if (!noretcomp && t->rs_n && t->rs[t->rs_n - 1] == s->to) {
			t->rs_n--;
			tnt(t, true);
		} else {
			t->rs_n = 0;
			ip_pkt(t, PTGEN_OPC_TIP, s->to, false);
		}
		break;
	default:
		if (!s->direct_jmp && s->to != s->from + s->len) {
			/* Interrupted after it: to the kernel and back somewhere else. */
			ip_pkt(t, PTGEN_OPC_FUP, s->from + s->len, false);
			pgd(t, 0, true);
		}
		break;
	}
}

static int free_cpu(void)
{
	unsigned int c, start = rnd() % ncpus;

	for (c = 0; c < ncpus; c++)
		if (!cpus[(start + c) % ncpus].t)
			return (int)((start + c) % ncpus);
	return -1;
}

/* End t's run: next_ip is where it would go on (0: it exited). */
static void run_end(struct thr *t, uint64_t next_ip, uint32_t flags)
{
	unsigned int ci = (unsigned int)t->cpu;

	flush_tnt(t);
	if (t->pkt_en && next_ip) {
		/* The interrupt that switches it out. */
		ip_pkt(t, PTGEN_OPC_FUP, next_ip, false);
		pgd(t, 0, true);
	}
	t->pkt_en = false;
	publish(ci, clk);
	sw_rec(ci, t, TRACEBUF_SWITCH_F_OUT | flags, clk);
	cpus[ci].t = NULL;
	t->cpu = -1;
	clk++;
}

static void run_start(struct thr *t)
{
	int ci = free_cpu();
	unsigned int i;

	if (ci < 0) {
		/* Preempt a random other thread. */
		for (i = rnd() % ncpus;; i = (i + 1) % ncpus)
			if (cpus[i].t)
				break;
		run_end(cpus[i].t, cpus[i].t->resume_ip, TRACEBUF_SWITCH_F_PREEMPT);
		ci = (int)i;
	}
	clk++;
	t->cpu = ci;
	cpus[ci].t = t;
	t->run_left = 1 + rnd() % max_run;
	sw_rec((unsigned int)ci, t, t->exec_next ? TRACEBUF_SWITCH_F_EXEC : 0, clk);
	fprintf(gt, "R %d %d %" PRIu64 "\n", t->tid, ci, clk);
	t->exec_next = false;
	nruns++;
	psbplus(t, 0);
	t->pkt_en = false;
}

/* A retired instruction with its successor: the trace, the ground truth. */
static void finalize(struct thr *t, const struct step *s, bool exec, bool maps)
{
	if (t->cpu < 0)
		run_start(t);
	clk += STEP_NS;
	nsteps++;
	step_pkts(t, s);
	if (cpus[t->cpu].npending >= span_max)
		publish((unsigned int)t->cpu, clk);
	fprintf(gt, "S %d %" PRIx64 " %" PRIx64 " %u %u ", t->tid, s->from, s->to, s->kind,
		s->len);
	for (unsigned int i = 0; i < s->len && i < sizeof(s->bytes); i++)
		fprintf(gt, "%02x", s->bytes[i]);
	fputc('\n', gt);
	if (s->kind != K_OTHER)
		fprintf(gt, "B %d %" PRIx64 " %" PRIx64 " %u %u\n", t->tid, s->from, s->to,
			s->kind, s->kind == K_COND && s->to != s->from + s->len);
	t->insns++;
	t->n[s->kind]++;
	t->resume_ip = s->to;
	if (maps && !exec)
		scan_maps(t->pid, t->tid, clk + 1);
	if (exec) {
		if (exec_late_out) {
			/* The comm record first, from inside execve(); the OUT after. */
			side_exec(t->pid, t->tid, clk + 1);
			clk += 2;
			run_end(t, 0, 0);
		} else {
			run_end(t, 0, 0);
			side_exec(t->pid, t->tid, clk + 1);
			clk += 2;
		}
		t->exec_next = true;
		return;
	}
	if (!s->to) {
		run_end(t, 0, TRACEBUF_SWITCH_F_EXIT);
		return;
	}
	if (--t->run_left == 0)
		run_end(t, s->to, TRACEBUF_SWITCH_F_PREEMPT);
}

/* ---- the tracer ----------------------------------------------------------- */

static int is_cond(unsigned int id)
{
	switch (id) {
	case X86_INS_JAE: case X86_INS_JA: case X86_INS_JBE: case X86_INS_JB:
	case X86_INS_JCXZ: case X86_INS_JECXZ: case X86_INS_JE: case X86_INS_JGE:
	case X86_INS_JG: case X86_INS_JLE: case X86_INS_JL: case X86_INS_JNE:
	case X86_INS_JNO: case X86_INS_JNP: case X86_INS_JNS: case X86_INS_JO:
	case X86_INS_JP: case X86_INS_JRCXZ: case X86_INS_JS:
	case X86_INS_LOOP: case X86_INS_LOOPE: case X86_INS_LOOPNE:
		return 1;
	}
	return 0;
}

static void classify(struct thr *t)
{
	uint8_t code[16];
	struct iovec l = { code, sizeof(code) }, r = { (void *)t->from, sizeof(code) };
	ssize_t got = process_vm_readv(t->tid, &l, 1, &r, 1, 0);
	cs_insn *insn;
	size_t n;

	if (got <= 0) {
		for (got = 0; got < (ssize_t)sizeof(code); got += 8) {
			long w;

			errno = 0;
			w = ptrace(PTRACE_PEEKTEXT, t->tid, (void *)(t->from + got), NULL);
			if (errno)
				break;
			memcpy(code + got, &w, 8);
		}
	}
	n = cs_disasm(cs, code, got > 0 ? (size_t)got : 0, t->from, 1, &insn);
	if (n != 1) {
		fprintf(stderr, "gtgen: cannot decode at %#" PRIx64 " (thread %d):", t->from,
			t->tid);
		for (n = 0; n < (size_t)(got > 0 ? got : 0); n++)
			fprintf(stderr, " %02x", code[n]);
		fputc('\n', stderr);
		exit(2);
	}
	t->len = insn->size;
	memcpy(t->bytes, insn->bytes, insn->size);
	t->kind = K_OTHER;
	t->direct_jmp = false;
	t->call = insn->id == X86_INS_CALL;
	if (is_cond(insn->id)) {
		t->kind = K_COND;
	} else if (insn->id == X86_INS_SYSCALL || insn->id == X86_INS_SYSENTER ||
		   insn->id == X86_INS_INT || insn->id == X86_INS_INT3 || insn->id == X86_INS_INTO) {
		t->kind = K_FAR;
	} else if (insn->id == X86_INS_RET) {
		t->kind = K_RET;
	} else if (insn->id == X86_INS_JMP || insn->id == X86_INS_CALL) {
		const cs_x86 *x = &insn->detail->x86;
		int direct = x->op_count == 1 && x->operands[0].type == X86_OP_IMM;

		if (!direct)
			t->kind = K_IND;
		else if (insn->id == X86_INS_CALL)
			t->kind = K_CALL;
		else
			t->direct_jmp = true;
	} else if (cs_insn_group(cs, insn, X86_GRP_JUMP) || cs_insn_group(cs, insn, X86_GRP_CALL) ||
		   cs_insn_group(cs, insn, X86_GRP_RET) || cs_insn_group(cs, insn, X86_GRP_IRET)) {
		fprintf(stderr, "gtgen: unhandled branch %s at %#" PRIx64 "\n", insn->mnemonic,
			t->from);
		exit(2);
	}
	cs_free(insn, n);
}

/* Whether tid's process has a handler for sig (/proc/TID/status SigCgt). */
static bool caught(pid_t tid, int sig)
{
	char path[64], line[256];
	unsigned long long mask = 0;
	FILE *f;

	snprintf(path, sizeof(path), "/proc/%d/status", tid);
	f = fopen(path, "r");
	while (f && fgets(line, sizeof(line), f))
		if (sscanf(line, "SigCgt: %llx", &mask) == 1)
			break;
	if (f)
		fclose(f);
	return sig >= 1 && sig <= 64 && (mask >> (sig - 1)) & 1;
}

static uint64_t ip_of(pid_t tid)
{
	struct user_regs_struct r;

	if (ptrace(PTRACE_GETREGS, tid, NULL, &r))
		die("gtgen: PTRACE_GETREGS");
	return r.rip;
}

/* t's next instruction is at ip: the last step retires with it as successor. */
static void next_at(struct thr *t, uint64_t ip)
{
	if (t->have_last) {
		t->last.to = ip;
		finalize(t, &t->last, t->last_exec, t->last_maps);
		t->have_last = false;
	}
	t->from = ip;
}

static void step(struct thr *t, int sig)
{
	classify(t);
	t->stepping = true;
	if (ptrace(PTRACE_SINGLESTEP, t->tid, NULL, (void *)(long)sig))
		die("gtgen: PTRACE_SINGLESTEP");
}

/* The instruction at t->from retired; ip: where the thread is now. */
static void retired(struct thr *t, uint64_t ip)
{
	struct step s = {
		.from = t->from, .kind = t->kind, .len = t->len, .direct_jmp = t->direct_jmp,
		.call = t->call,
	};

	memcpy(s.bytes, t->bytes, sizeof(s.bytes));

	t->stepping = false;
	if (t->have_last)
		next_at(t, t->from);
	t->last = s;
	t->have_last = true;
	t->last_exec = t->exec_pending;
	t->last_maps = t->kind == K_FAR;
	t->exec_pending = false;
	t->from = ip;
}

static void gone(struct thr *t)
{
	if (t->stepping) {
		/* Its last instruction (the exit system call) did not return. */
		retired(t, 0);
	}
	if (t->have_last) {
		t->last.to = 0;
		finalize(t, &t->last, false, false);
		t->have_last = false;
	}
	if (t->cpu >= 0)
		run_end(t, 0, TRACEBUF_SWITCH_F_EXIT);
	fprintf(gt, "T %d %" PRIu64 " %" PRIu64 " %" PRIu64 " %" PRIu64 " %" PRIu64 " %" PRIu64 "\n",
		t->tid, t->insns, t->n[K_COND], t->n[K_IND], t->n[K_RET], t->n[K_FAR], t->n[K_CALL]);
	t->used = false;
}

static void write_meta(void)
{
	char path[4096];
	unsigned int c;
	FILE *m;

	snprintf(path, sizeof(path), "%s/meta.json", dir);
	m = fopen(path, "w");
	if (!m)
		die(path);
	fprintf(m, "{\n  \"format\": 1, \"tool_version\": \"gtgen\", \"module_version\": \"gtgen\",\n"
		"  \"abi_version\": 1, \"backend\": \"intel_pt\", \"emulated\": true, \"page_size\": 4096,\n"
		"  \"data_size\": 1048576, \"aux_size\": %" PRIu64 ", \"snapshot\": %s,\n"
		"  \"clock\": \"CLOCK_MONOTONIC\", \"start_ns\": 1000000000, \"end_ns\": %" PRIu64 ",\n"
		"  \"start_realtime\": 1700000000, \"config_requested\": null, \"command\": null,\n"
		"  \"command_exit\": null, \"command_signal\": null,\n  \"cpus\": [",
		snapshot ? snapshot : (uint64_t)span_max * 4, snapshot ? "true" : "false", clk);
	for (c = 0; c < ncpus; c++)
		fprintf(m, "%s%u", c ? ", " : "", c);
	fprintf(m, "],\n  \"per_cpu\": {");
	for (c = 0; c < ncpus; c++) {
		struct cpu *cp = &cpus[c];
		uint64_t aux_bytes = snapshot ? (cp->nall < snapshot ? cp->nall : snapshot) : cp->pub;

		fprintf(m, "%s\n    \"%u\": { \"config\": \"branch=1,user=1,kernel=0,tsc=1,mtc=0,"
			"mtc_period=3,cyc=0,cyc_thresh=0,psb_period=0,noretcomp=%d,ptw=0,fup_on_ptw=0,"
			"pwr_evt=0,cr3=0", c ? "," : "", c, noretcomp);
		if (filter)
			fprintf(m, ",addr0=0x%" PRIx64 "-0x%" PRIx64 ":filter", filt_lo, filt_hi);
		fprintf(m, "\", \"generation\": 1,\n      \"caps\": { \"cpuid_14_0\": [1, 191, 7, 0], "
			"\"cpuid_14_1\": [2, 0, 0, 0], \"cpuid_15\": [1, 30, 100000000, 0], "
			"\"family\": 6, \"model\": 85, \"stepping\": 4, \"max_nonturbo_ratio\": 30 },\n"
			"      \"aux_bytes\": %" PRIu64 ", \"aux_spans\": %" PRIu64 ", "
			"\"aux_truncations\": 0, \"aux_collisions\": 0, \"aux_padding\": 0, \"records\": %"
			PRIu64 ", \"records_lost\": 0, \"aux_gap_bytes\": 0, \"data_bytes\": %" PRIu64
			", \"error\": null, \"aux_lost_bytes\": 0, \"aux_lost_at_least\": false }",
			aux_bytes, cp->spans, cp->records, cp->data_bytes);
	}
	fprintf(m, "\n  },\n  \"sideband\": { \"format\": \"perf\", \"sample_type\": %llu, "
		"\"files\": [\"cpu0.side\"] },\n  \"lost\": false, \"complete\": true\n}\n",
		(unsigned long long)SAMPLE_TYPE);
	if (fclose(m))
		die(path);
}

int main(int argc, char **argv)
{
	int a, st, live = 1, status = -1;
	char path[4096];
	unsigned int c;
	pid_t pid, w;

	for (a = 1; a < argc && argv[a][0] == '-'; a++) {
		const char *o = argv[a], *v = a + 1 < argc ? argv[a + 1] : "";

		if (!strcmp(o, "--noretcomp")) {
			noretcomp = true;
			continue;
		}
		if (!strcmp(o, "--exec-late-out")) {
			exec_late_out = true;
			continue;
		}
		a++;
		if (!strcmp(o, "--seed"))
			rng = (uint32_t)strtoul(v, NULL, 0) | 1;
		else if (!strcmp(o, "--run"))
			max_run = (unsigned int)strtoul(v, NULL, 0);
		else if (!strcmp(o, "--cpus"))
			ncpus = (unsigned int)strtoul(v, NULL, 0);
		else if (!strcmp(o, "--span"))
			span_max = (unsigned int)strtoul(v, NULL, 0);
		else if (!strcmp(o, "--psb"))
			psb_period = (unsigned int)strtoul(v, NULL, 0);
		else if (!strcmp(o, "--snapshot"))
			snapshot = strtoull(v, NULL, 0);
		else if (!strcmp(o, "--break"))
			breakwhat = v;
		else if (!strcmp(o, "--filter")) {
			if (sscanf(v, "%" SCNx64 "-%" SCNx64, &filt_lo, &filt_hi) != 2)
				return 2;
			filter = true;
		} else {
			fprintf(stderr, "gtgen: unknown option %s\n", o);
			return 2;
		}
	}
	if (argc - a < 2 || !max_run || !ncpus || ncpus > MAXCPU)
		return 2;
	dir = argv[a++];
	if (mkdir(dir, 0755) && errno != EEXIST)
		die(dir);
	elf_version(EV_CURRENT);
	snprintf(path, sizeof(path), "%s/gt.txt", dir);
	gt = fopen(path, "w");
	snprintf(path, sizeof(path), "%s/cpu0.side", dir);
	side = fopen(path, "w");
	if (!gt || !side)
		die(path);
	for (c = 0; c < ncpus; c++) {
		snprintf(path, sizeof(path), "%s/cpu%u.data", dir, c);
		cpus[c].data = fopen(path, "w");
		snprintf(path, sizeof(path), "%s/cpu%u.aux", dir, c);
		cpus[c].aux = fopen(path, "w");
		if (!cpus[c].data || !cpus[c].aux)
			die(path);
	}
	if (cs_open(CS_ARCH_X86, CS_MODE_64, &cs) != CS_ERR_OK)
		return 2;
	cs_option(cs, CS_OPT_DETAIL, CS_OPT_ON);
	brk_at = 2000;

	pid = fork();
	if (pid == 0) {
		/*
		 * Capstone 4 does not decode every EVEX (AVX-512) instruction:
		 * glibc's string functions use AVX2 at most.
		 */
		setenv("GLIBC_TUNABLES", "glibc.cpu.hwcaps=-AVX512F,-AVX512VL,-AVX512BW,"
		       "-AVX512DQ,-AVX512CD,-AVX512ER,-AVX512PF", 1);
		ptrace(PTRACE_TRACEME, 0, NULL, NULL);
		execv(argv[a], argv + a);
		_exit(127);
	}
	if (waitpid(pid, &st, 0) != pid || !WIFSTOPPED(st)) {
		fprintf(stderr, "gtgen: %s did not stop at its exec\n", argv[a]);
		return 2;
	}
	ptrace(PTRACE_SETOPTIONS, pid, NULL, PTRACE_O_TRACECLONE | PTRACE_O_TRACEFORK |
	       PTRACE_O_TRACEVFORK | PTRACE_O_TRACEEXEC | PTRACE_O_TRACEEXIT | PTRACE_O_EXITKILL);
	{
		struct thr *t = thr_of(pid, true);

		t->pid = pid;
		t->announced = true;
		side_exec(pid, pid, clk);
		clk += 2;
		t->exec_next = true;
		t->from = ip_of(pid);
		step(t, 0);
	}
	while (live > 0) {
		struct thr *t;
		int ev;

		w = waitpid(-1, &st, __WALL);
		if (w < 0)
			die("gtgen: waitpid");
		t = thr_of(w, true);
		if (!t->pid)
			t->pid = tgid_of(w);
		if (WIFEXITED(st) || WIFSIGNALED(st)) {
			if (w == pid)
				status = st;
			gone(t);
			live--;
			continue;
		}
		if (!WIFSTOPPED(st))
			continue;
		ev = st >> 16;
		if (ev == PTRACE_EVENT_CLONE || ev == PTRACE_EVENT_FORK || ev == PTRACE_EVENT_VFORK) {
			unsigned long child;
			struct thr *ct;

			ptrace(PTRACE_GETEVENTMSG, w, NULL, &child);
			ct = thr_of((pid_t)child, true);
			ct->pid = ev == PTRACE_EVENT_CLONE ? t->pid : (pid_t)child;
			side_fork(ct->pid, t->pid, ct->tid, t->tid, clk);
			ct->announced = true;
			live++;
			if (ct->waiting_event) {
				ct->waiting_event = false;
				ct->from = ip_of(ct->tid);
				step(ct, 0);
			}
			ptrace(PTRACE_SINGLESTEP, w, NULL, NULL);	/* the system call goes on */
			continue;
		}
		if (ev == PTRACE_EVENT_EXEC) {
			t->exec_pending = true;
			ptrace(PTRACE_SINGLESTEP, w, NULL, NULL);
			continue;
		}
		if (ev == PTRACE_EVENT_EXIT) {
			ptrace(PTRACE_CONT, w, NULL, NULL);
			continue;
		}
		if (!t->stepping && !t->have_last && WSTOPSIG(st) == SIGSTOP) {
			/* A new thread or process, before its first instruction. */
			if (!t->announced) {
				t->waiting_event = true;	/* its FORK record first */
				continue;
			}
			t->from = ip_of(w);
			step(t, 0);
			continue;
		}
		if (WSTOPSIG(st) != SIGTRAP) {
			/* A signal for it: delivered when it goes on (the handler's frame). */
			t->sig_pending = caught(w, WSTOPSIG(st));
			ptrace(PTRACE_SINGLESTEP, w, NULL, (void *)(long)WSTOPSIG(st));
			continue;
		}
		{
			uint64_t ip = ip_of(w);

			if (t->sig_pending) {
				/* At the handler, nothing executed since. */
				t->sig_pending = false;
				t->stepping = false;
				t->from = ip;
				step(t, 0);
				continue;
			}
			if (ip == t->from && t->kind == K_OTHER && !t->exec_pending) {
				/* A REP string instruction's iteration: the same instruction. */
				step(t, 0);
				continue;
			}
			retired(t, ip);
			step(t, 0);
		}
	}
	for (c = 0; c < ncpus; c++) {
		if (cpus[c].t)
			run_end(cpus[c].t, 0, 0);
		if (snapshot) {
			struct cpu *cp = &cpus[c];
			uint64_t keep = cp->nall < snapshot ? cp->nall : snapshot;
			struct tracebuf_rec_aux ar;

			memset(&ar, 0, sizeof(ar));
			ar.aux_offset = cp->pub - keep;
			ar.aux_size = keep;
			ar.flags = TRACEBUF_AUX_F_OVERWRITE;
			data_rec(cp, &ar, sizeof(ar), TRACEBUF_REC_AUX, c, clk);
			if (fwrite(cp->all + cp->nall - keep, 1, keep, cp->aux) != keep)
				die("cpuN.aux");
			cp->spans = 1;
		}
		if (fclose(cpus[c].data) || fclose(cpus[c].aux))
			die("close");
	}
	write_meta();
	if (fclose(gt) || fclose(side))
		die("close");
	printf("steps %" PRIu64 " runs %" PRIu64 " threads %" PRIu64 " status %d\n", nsteps, nruns,
	       nthreads, WIFEXITED(status) ? WEXITSTATUS(status) : 128 + WTERMSIG(status));
	return 0;
}
#else
int main(void)
{
	return 77;
}
#endif
