// SPDX-License-Identifier: GPL-2.0
/*
 * csgtgen - a per-task CoreSight capture of a real arm64 program, made
 * natively, with the ground truth of what it executed: the CoreSight
 * counterpart of gtgen.c.
 *
 *   csgtgen [--seed N] [--run N] [--filter LO-HI] [--break atom|addr|traceon]
 *           DIR PROG [ARGS...]
 *
 * PROG, a statically linked AArch64 program (not position-independent),
 * runs under QEMU's user-mode emulator (qemu-aarch64 -singlestep -d
 * exec,nochain), whose log lists every instruction each thread (each of
 * QEMU's vCPUs) executes, in order. The instructions are classified with
 * Capstone (AArch64) from the ELF file, and the generator writes what a
 * shared TMC sink would have received from two ETMv4 trace units (trace
 * IDs 0x10 and 0x11 for CPUs 0 and 1) tracing the program's threads at
 * EL0 with the per-task target, runs of 1..--run instructions on random
 * CPUs (IHI0064 packets, as OpenCSD's trc_pkt_proc_etmv4i.cpp parses them):
 *
 *   a run starts      A-sync, Trace Info, Trace On, Context (EL0, AArch64,
 *                     NS), Address (64-bit, IS0) of its first instruction
 *   a branch          an atom: E taken, N not (packed in F1/F2/F3 atom
 *                     packets); an indirect branch taken (BR, BLR, RET: no
 *                     return stack, TRCCONFIGR.RS = 0) is followed by the
 *                     Address of its target
 *   SVC               Exception (type 2, a call) and its preferred return
 *                     address; tracing resumes at EL0 with Trace On,
 *                     Context, Address
 *   a run ends        Exception (type 14, IRQ) and the address where the
 *                     thread resumes (it was interrupted there), unless it
 *                     ended with an SVC; the formatter's frame completed
 *                     with trace ID 0 (the sink's drain at every switch)
 *
 * into 16-byte TMC formatter frames (tests/modules/csemu_gen.h), with the
 * SWITCH IN/OUT records of each run (r.cpu the run's CPU, aux_offset at
 * frame boundaries), AUX records, the ETM records of both CPUs, meta.json
 * (backend coresight) and the sideband (an MMAP2 of the program's
 * executable segment with its build-id, COMM exec). Ground truth gt.txt
 * as gtgen writes it (R, S with the instruction's bytes, B, T lines); tids
 * are 2000 + QEMU's vCPU index, the pid 2000.
 *
 * QEMU logs a block again when it restarts it: consecutive entries of one
 * address count once (the programs have no branch to itself).
 *
 * --filter LO-HI: the ETMs trace only the instructions in [LO, HI] (hex),
 * an include range (TRCVIIECTLR pair 0 over TRCACVR0/1), decided per
 * instruction by csemu_gen.h's csgen_is_traced() as tb_csemu's follow mode
 * decides (csemu_follow.h): an instruction outside writes nothing; the
 * first one traced after it starts with Trace On, Context, Address (IHI0064,
 * the Trace On element); a traced taken indirect branch keeps the Address
 * of its target wherever that is; an exception (SVC, the end of a run) is
 * traced only if the instruction before it was.
 *
 * --break atom: one atom inverted; --break addr: one indirect branch's
 * target off by 4; --break traceon: one resumption of the trace (Trace On,
 * Context, Address) left out. Prints "insns N runs N threads N".
 */
#include <errno.h>
#include <fcntl.h>
#include <inttypes.h>
#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <unistd.h>

#include <capstone/capstone.h>
#include <elfutils/libdwelf.h>
#include <gelf.h>
#include <libelf.h>
#include <linux/perf_event.h>
#include <tracebuf.h>

#include "csemu_gen.h"

#define MAXTHR		64
#define PID		2000
#define TRACE_ID(cpu)	(0x10 + (cpu))
#define EXC_CALL	0x2
#define EXC_IRQ		0xe
#define SAMPLE_TYPE	(PERF_SAMPLE_TID | PERF_SAMPLE_TIME | PERF_SAMPLE_CPU | PERF_SAMPLE_IDENTIFIER)

enum { K_OTHER, K_COND, K_IND, K_RET, K_FAR, K_CALL };

struct insn {
	uint64_t pc;
};

struct thr {
	struct insn *pc;
	size_t n, cap, next;		/* executed instructions; the next to trace */
	uint64_t nk[6];
};

static struct thr thr[MAXTHR];
static unsigned int nthr, max_run = 32;
static uint32_t rng = 0x9e3779b9;
static const char *dir, *breakwhat = "";
static uint64_t clk = 1000000000, nruns, ninsns, brk_at = 3000, brk_done;
static struct csgen filt;		/* --filter: its ViewInst configuration */
static bool filtering;
static FILE *gt, *data_f, *aux_f, *side;
static uint64_t data_bytes, records, spans, pos;
static uint8_t *image;			/* the executable's bytes */
static size_t image_len;
static GElf_Phdr text;			/* its executable PT_LOAD */
static uint8_t bid[20];
static unsigned int bid_len;
static csh cs;
static struct csfmt fmt;
static uint8_t atoms;			/* pending atom bits, oldest in bit 0 */
static unsigned int natoms;
static uint8_t pkt[256];
static size_t npkt;

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

/* ---- the program ---------------------------------------------------------- */

static void load_image(const char *path)
{
	struct stat st;
	const void *b;
	GElf_Ehdr eh;
	size_t i, nph;
	ssize_t n;
	Elf *e;
	int fd = open(path, O_RDONLY);

	if (fd < 0 || fstat(fd, &st))
		die(path);
	image_len = (size_t)st.st_size;
	image = malloc(image_len);
	if (!image || read(fd, image, image_len) != (ssize_t)image_len)
		die(path);
	close(fd);
	elf_version(EV_CURRENT);
	e = elf_memory((char *)image, image_len);
	if (!e || !gelf_getehdr(e, &eh) || eh.e_machine != EM_AARCH64 || eh.e_type != ET_EXEC) {
		fprintf(stderr, "csgtgen: %s: not a static AArch64 executable\n", path);
		exit(2);
	}
	elf_getphdrnum(e, &nph);
	for (i = 0; i < nph; i++) {
		GElf_Phdr ph;

		if (gelf_getphdr(e, (int)i, &ph) && ph.p_type == PT_LOAD && (ph.p_flags & PF_X))
			text = ph;
	}
	n = dwelf_elf_gnu_build_id(e, &b);
	if (n > 0 && n <= 20) {
		memcpy(bid, b, (size_t)n);
		bid_len = (unsigned int)n;
	}
	elf_end(e);
	if (!text.p_filesz) {
		fprintf(stderr, "csgtgen: %s: no executable segment\n", path);
		exit(2);
	}
}

static const uint8_t *code_at(uint64_t pc)
{
	if (pc < text.p_vaddr || pc + 4 > text.p_vaddr + text.p_filesz) {
		fprintf(stderr, "csgtgen: %#" PRIx64 " is outside the executable segment (a "
			"signal trampoline? not supported)\n", pc);
		exit(2);
	}
	return image + text.p_offset + (pc - text.p_vaddr);
}

/* The kind of the instruction at pc, for the ground truth and the ETM. */
static unsigned int kind_of(uint64_t pc, bool *p0, bool *call)
{
	const uint8_t *c = code_at(pc);
	unsigned int k = K_OTHER;
	cs_insn *in;

	*p0 = false;
	*call = false;
	if (cs_disasm(cs, c, 4, pc, 1, &in) != 1)
		return K_OTHER;		/* data or an instruction Capstone lacks: not a branch */
	switch (in->id) {
	case ARM64_INS_B:
		*p0 = true;
		k = in->detail->arm64.cc != ARM64_CC_INVALID && in->detail->arm64.cc != ARM64_CC_AL ?
		    K_COND : K_OTHER;
		break;
	case ARM64_INS_CBZ: case ARM64_INS_CBNZ: case ARM64_INS_TBZ: case ARM64_INS_TBNZ:
		*p0 = true;
		k = K_COND;
		break;
	case ARM64_INS_BL:
		*p0 = *call = true;
		k = K_CALL;
		break;
	case ARM64_INS_BLR:
		*p0 = *call = true;
		k = K_IND;
		break;
	case ARM64_INS_BR:
		*p0 = true;
		k = K_IND;
		break;
	case ARM64_INS_RET:
		*p0 = true;
		k = K_RET;
		break;
	case ARM64_INS_SVC:
		k = K_FAR;
		break;
	case ARM64_INS_ISB:
		*p0 = true;	/* IHI0064: an ISB is a P0 instruction (an E atom) */
		break;
	default:
		break;
	}
	cs_free(in, 1);
	return k;
}

/* ---- the capture ------------------------------------------------------------ */

static void data_rec(void *rec, uint32_t size, uint16_t type, uint32_t cpu)
{
	struct tracebuf_record *r = rec;

	r->hdr.size = (size + 7) & ~7u;
	r->hdr.type = type;
	r->hdr.flags = 0;
	r->commit = tracebuf_commit_tag(data_bytes);
	r->cpu = cpu;
	r->time = clk;
	if (fwrite(rec, 1, r->hdr.size, data_f) != r->hdr.size)
		die("cpu0.data");
	data_bytes += r->hdr.size;
	records++;
}

static void etm_rec(unsigned int cpu)
{
	struct tracebuf_rec_etm e;

	memset(&e, 0, sizeof(e));
	e.etm_cpu = cpu;
	e.trace_id = TRACE_ID(cpu);
	e.trcconfigr = 0x1;
	e.trctraceidr = TRACE_ID(cpu);
	e.trcidr[0] = CSGEN_IDR0;
	e.trcidr[1] = CSGEN_IDR1;
	e.trcidr[2] = CSGEN_IDR2;
	e.trcidr[3] = CSGEN_IDR3;
	e.trcidr[4] = CSGEN_IDR4;
	e.trcidr[5] = CSGEN_IDR5;
	e.trcauthstatus = CSGEN_AUTHSTATUS;
	data_rec(&e, sizeof(e), TRACEBUF_REC_ETM, cpu);
}

static void sw_rec(unsigned int cpu, unsigned int tid, uint32_t flags)
{
	struct tracebuf_rec_switch w;

	memset(&w, 0, sizeof(w));
	w.aux_offset = pos;
	w.pid = PID;
	w.tid = tid;
	w.flags = flags;
	data_rec(&w, sizeof(w), TRACEBUF_REC_SWITCH, cpu);
}

/* Formatted frames of the current run go to the AUX file and one span. */
static uint8_t frames[1 << 16];
static size_t nframes;

static void put_bytes(unsigned int cpu, const uint8_t *b, size_t n)
{
	nframes += csfmt_push(&fmt, TRACE_ID(cpu), b, n, frames + nframes);
	if (nframes > sizeof(frames) - 4096) {
		fprintf(stderr, "csgtgen: a run too long\n");
		exit(2);
	}
}

static void flush_pkt(unsigned int cpu)
{
	put_bytes(cpu, pkt, npkt);
	npkt = 0;
}

static void flush_atoms(void)
{
	while (natoms) {
		unsigned int n = natoms >= 3 ? 3 : natoms;

		/* F3 f8-ff, F2 d8-db, F1 f6/f7: bit 0 the oldest atom, 1 = E. */
		pkt[npkt++] = n == 3 ? (uint8_t)(0xf8 | (atoms & 7)) :
			      n == 2 ? (uint8_t)(0xd8 | (atoms & 3)) : (uint8_t)(0xf6 | (atoms & 1));
		atoms >>= n;
		natoms -= n;
	}
}

static void atom(bool e)
{
	if (!strcmp(breakwhat, "atom") && ninsns >= brk_at && !brk_done) {
		e = !e;
		brk_done = 1;
	}
	atoms |= (uint8_t)(e << natoms);
	if (++natoms == 3)
		flush_atoms();
}

static void addr64(uint64_t a)
{
	flush_atoms();
	pkt[npkt++] = 0x9d;
	npkt += csgen_enc_addr_payload(pkt + npkt, a, 8);
}

static void trace_on(uint64_t a)
{
	flush_atoms();
	if (!strcmp(breakwhat, "traceon") && ninsns >= brk_at && !brk_done) {
		brk_done = 1;
		return;
	}
	pkt[npkt++] = 0x04;			/* Trace On */
	pkt[npkt++] = 0x81;			/* Context */
	pkt[npkt++] = 0x30;			/* EL0, AArch64 (SF), NS */
	addr64(a);
}

static void exception(unsigned int type, uint64_t ret)
{
	flush_atoms();
	npkt += csgen_enc_exception(pkt + npkt, type);
	addr64(ret);
}

/* The sideband: COMM (exec) of the program. */
static void write_comm(void)
{
	struct { uint32_t pid, tid; char comm[16]; } c = { PID, PID, "prog" };
	uint64_t tr[4] = { PID | (uint64_t)PID << 32, clk, 0, 1 };
	struct perf_event_header h;
	uint8_t buf[128];

	h.type = PERF_RECORD_COMM;
	h.misc = PERF_RECORD_MISC_COMM_EXEC;
	h.size = (uint16_t)(sizeof(h) + sizeof(c) + sizeof(tr));
	memcpy(buf, &h, sizeof(h));
	memcpy(buf + sizeof(h), &c, sizeof(c));
	memcpy(buf + sizeof(h) + sizeof(c), tr, sizeof(tr));
	if (fwrite(buf, 1, h.size, side) != h.size)
		die("cpu0.side");
}

static void write_mmap(const char *path)
{
	struct {
		uint32_t pid, tid;
		uint64_t addr, len, pgoff;
		uint8_t bid_size, r1;
		uint16_t r2;
		uint8_t bid[20];
		uint32_t prot, flags;
		char name[256];
	} __attribute__((packed)) m;
	uint64_t tr[4] = { PID | (uint64_t)PID << 32, clk, 0, 1 };
	struct perf_event_header h;
	uint8_t buf[512] = { 0 };
	size_t body;

	memset(&m, 0, sizeof(m));
	m.pid = m.tid = PID;
	m.addr = text.p_vaddr & ~0xfffULL;
	m.len = ((text.p_vaddr + text.p_filesz + 0xfff) & ~0xfffULL) - m.addr;
	m.pgoff = text.p_offset & ~0xfffULL;
	m.bid_size = (uint8_t)bid_len;
	memcpy(m.bid, bid, bid_len);
	m.prot = 5;
	m.flags = 2;
	snprintf(m.name, sizeof(m.name), "%s", path);
	body = (size_t)((char *)m.name - (char *)&m) + strlen(m.name) + 1;
	body = (body + 7) & ~(size_t)7;
	h.type = PERF_RECORD_MMAP2;
	h.misc = PERF_RECORD_MISC_MMAP_BUILD_ID;
	h.size = (uint16_t)(sizeof(h) + body + sizeof(tr));
	memcpy(buf, &h, sizeof(h));
	memcpy(buf + sizeof(h), &m, body < sizeof(m) ? body : sizeof(m));
	memcpy(buf + sizeof(h) + body, tr, sizeof(tr));
	if (fwrite(buf, 1, h.size, side) != h.size)
		die("cpu0.side");
}

/* One run of thread t on cpu: up to n instructions. */
static void run(unsigned int ti, unsigned int cpu, size_t n)
{
	struct thr *t = &thr[ti];
	unsigned int tid = 2000 + ti;
	struct tracebuf_rec_aux a;
	size_t i;
	bool ended_svc = false, tracing, traced = false;

	clk += 10;
	sw_rec(cpu, tid, 0);
	fprintf(gt, "R %u %u %" PRIu64 "\n", tid, cpu, clk);
	nruns++;
	npkt = 0;
	npkt += csgen_enc_async(pkt);
	npkt += csgen_enc_tinfo(pkt + npkt, false, 0);
	tracing = false;
	for (i = 0; i < n && t->next < t->n; i++, t->next++) {
		uint64_t pc = t->pc[t->next].pc;
		uint64_t to = t->next + 1 < t->n ? t->pc[t->next + 1].pc : 0;
		bool p0, call, taken = to != pc + 4;
		unsigned int k = kind_of(pc, &p0, &call);
		const uint8_t *c = code_at(pc);

		/* ViewInst for this instruction; after a gap, Trace On first. */
		traced = !filtering || csgen_is_traced(&filt, pc, 0);
		if (traced && !tracing)
			trace_on(pc);
		tracing = traced;
		if (!i)
			flush_pkt(cpu);

		clk += 10;
		ninsns++;
		fprintf(gt, "S %u %" PRIx64 " %" PRIx64 " %u 4 %02x%02x%02x%02x\n", tid, pc, to, k,
			c[0], c[1], c[2], c[3]);
		if (k != K_OTHER)
			fprintf(gt, "B %u %" PRIx64 " %" PRIx64 " %u %u\n", tid, pc, to, k,
				k == K_COND && taken);
		t->nk[k]++;
		if (!p0 && k != K_FAR && to && taken) {
			fprintf(stderr, "csgtgen: thread %u goes from %#" PRIx64 " to %#" PRIx64
				" without a branch (QEMU's log skipped or repeated an instruction?)\n",
				tid, pc, to);
			exit(2);
		}
		ended_svc = false;
		if (k == K_FAR) {
			if (traced)
				exception(EXC_CALL, pc + 4);
			tracing = false;	/* back at EL0: Trace On again */
			ended_svc = true;
		} else if (p0 && traced) {
			atom(taken || k == K_OTHER);
			if (taken && (k == K_IND || k == K_RET)) {
				uint64_t target = to;

				if (!strcmp(breakwhat, "addr") && ninsns >= brk_at && !brk_done) {
					target += 4;
					brk_done = 1;
				}
				addr64(target);
			}
		}
		if (npkt > 128)
			flush_pkt(cpu);
	}
	/*
	 * Switched out: interrupted where it resumes (an SVC said it already),
	 * traced if the instruction before the interrupt was.
	 */
	if (!ended_svc && t->next < t->n && traced)
		exception(EXC_IRQ, t->pc[t->next].pc);
	flush_atoms();
	flush_pkt(cpu);
	nframes += csfmt_flush(&fmt, frames + nframes);
	memset(&a, 0, sizeof(a));
	a.aux_offset = pos;
	a.aux_size = nframes;
	clk += 10;
	data_rec(&a, sizeof(a), TRACEBUF_REC_AUX, 0);
	if (fwrite(frames, 1, nframes, aux_f) != nframes)
		die("cpu0.aux");
	pos += nframes;
	spans++;
	nframes = 0;
	sw_rec(cpu, tid, TRACEBUF_SWITCH_F_OUT | (t->next < t->n ? TRACEBUF_SWITCH_F_PREEMPT :
						  TRACEBUF_SWITCH_F_EXIT));
}

static void read_log(const char *path)
{
	char line[512];
	FILE *f = fopen(path, "r");

	if (!f)
		die(path);
	while (fgets(line, sizeof(line), f)) {
		unsigned int cpu;
		unsigned long long pc;
		struct thr *t;

		if (sscanf(line, "Trace %u: %*s [%*x/%llx/", &cpu, &pc) != 2 || cpu >= MAXTHR)
			continue;
		t = &thr[cpu];
		if (cpu >= nthr)
			nthr = cpu + 1;
		/*
		 * QEMU logs a translation block again when it restarts one (a
		 * fault it handled itself): the same instruction, not executed
		 * twice (these programs have no branch to itself).
		 */
		if (t->n && t->pc[t->n - 1].pc == pc)
			continue;
		if (t->n == t->cap) {
			t->cap = t->cap ? 2 * t->cap : 4096;
			t->pc = realloc(t->pc, t->cap * sizeof(*t->pc));
			if (!t->pc)
				die("realloc");
		}
		t->pc[t->n++].pc = pc;
	}
	fclose(f);
}

int main(int argc, char **argv)
{
	char path[4096], log[4096], *abs_prog;
	unsigned int i, live;
	int a, st;
	pid_t pid;

	for (a = 1; a < argc && argv[a][0] == '-'; a += 2) {
		if (a + 1 >= argc)
			return 2;
		if (!strcmp(argv[a], "--seed"))
			rng = (uint32_t)strtoul(argv[a + 1], NULL, 0) | 1;
		else if (!strcmp(argv[a], "--run"))
			max_run = (unsigned int)strtoul(argv[a + 1], NULL, 0);
		else if (!strcmp(argv[a], "--break"))
			breakwhat = argv[a + 1];
		else if (!strcmp(argv[a], "--filter")) {
			unsigned long long lo, hi;

			if (sscanf(argv[a + 1], "%llx-%llx", &lo, &hi) != 2 || lo > hi)
				return 2;
			/* TRCVIIECTLR.INCLUDE pair 0: TRCACVR0..TRCACVR1, EL0 (TRCVICTLR). */
			csgen_cfg_default(&filt.cfg);
			filt.cfg.victlr = CSGEN_VICTLR_EXCL_EL1;
			filt.cfg.viiectlr = 1;
			filt.cfg.acvr[0] = lo;
			filt.cfg.acvr[1] = hi;
			filtering = true;
		} else {
			return 2;
		}
	}
	if (argc - a < 2 || !max_run)
		return 2;
	dir = argv[a++];
	if (mkdir(dir, 0755) && errno != EEXIST)
		die(dir);
	abs_prog = realpath(argv[a], NULL);
	if (!abs_prog)
		die(argv[a]);
	load_image(abs_prog);
	if (cs_open(CS_ARCH_ARM64, CS_MODE_ARM, &cs) != CS_ERR_OK)
		return 2;
	cs_option(cs, CS_OPT_DETAIL, CS_OPT_ON);

	/* The execution, instruction by instruction. */
	snprintf(log, sizeof(log), "%s/qemu.log", dir);
	pid = fork();
	if (pid == 0) {
		char **args = calloc((size_t)(argc - a) + 8, sizeof(*args));
		int k = 0, j;

		args[k++] = "qemu-aarch64";
		args[k++] = "-singlestep";
		args[k++] = "-d";
		args[k++] = "exec,nochain";
		args[k++] = "-D";
		args[k++] = log;
		args[k++] = abs_prog;
		for (j = a + 1; j < argc; j++)
			args[k++] = argv[j];
		execvp("qemu-aarch64", args);
		_exit(127);
	}
	if (waitpid(pid, &st, 0) != pid || !WIFEXITED(st) || WEXITSTATUS(st) == 127) {
		fprintf(stderr, "csgtgen: qemu-aarch64 failed (status %#x)\n", st);
		return 2;
	}
	read_log(log);
	unlink(log);

	snprintf(path, sizeof(path), "%s/gt.txt", dir);
	gt = fopen(path, "w");
	snprintf(path, sizeof(path), "%s/cpu0.data", dir);
	data_f = fopen(path, "w");
	snprintf(path, sizeof(path), "%s/cpu0.aux", dir);
	aux_f = fopen(path, "w");
	snprintf(path, sizeof(path), "%s/cpu0.side", dir);
	side = fopen(path, "w");
	if (!gt || !data_f || !aux_f || !side)
		die(path);
	write_comm();
	write_mmap(abs_prog);
	etm_rec(0);
	etm_rec(1);
	csfmt_init(&fmt);
	/* Threads in runs of random length on random CPUs, interleaved. */
	for (live = nthr; live;) {
		unsigned int ti = rnd() % nthr;
		struct thr *t = &thr[ti];

		if (t->next >= t->n)
			continue;
		run(ti, rnd() % 2, 1 + rnd() % max_run);
		if (t->next >= t->n) {
			fprintf(gt, "T %u %zu %" PRIu64 " %" PRIu64 " %" PRIu64 " %" PRIu64 " %" PRIu64 "\n",
				2000 + ti, t->n, t->nk[K_COND], t->nk[K_IND], t->nk[K_RET],
				t->nk[K_FAR], t->nk[K_CALL]);
			live--;
		}
	}
	if (fclose(gt) || fclose(data_f) || fclose(aux_f) || fclose(side))
		die("close");
	snprintf(path, sizeof(path), "%s/meta.json", dir);
	gt = fopen(path, "w");
	if (!gt)
		die(path);
	fprintf(gt, "{\n  \"format\": 1, \"tool_version\": \"csgtgen\", \"module_version\": "
		"\"csgtgen\",\n  \"abi_version\": 1, \"backend\": \"coresight\", \"emulated\": true, "
		"\"page_size\": 4096,\n  \"data_size\": 1048576, \"aux_size\": 1048576, \"snapshot\": "
		"false,\n  \"clock\": \"CLOCK_MONOTONIC\", \"start_ns\": 1000000000, \"end_ns\": %"
		PRIu64 ",\n  \"start_realtime\": 1700000000, \"config_requested\": null, "
		"\"command\": null,\n  \"command_exit\": null, \"command_signal\": null,\n  "
		"\"cpus\": [0],\n  \"per_cpu\": {\n    \"0\": { \"config\": \"user=1,kernel=0\", "
		"\"generation\": 0, \"caps\": null,\n      \"aux_bytes\": %" PRIu64 ", \"aux_spans\": %"
		PRIu64 ", \"aux_truncations\": 0, \"aux_collisions\": 0, \"aux_padding\": 0, "
		"\"records\": %" PRIu64 ", \"records_lost\": 0, \"aux_gap_bytes\": 0, \"data_bytes\": %"
		PRIu64 ", \"error\": null, \"aux_lost_bytes\": 0, \"aux_lost_at_least\": false }\n"
		"  },\n  \"sideband\": { \"format\": \"perf\", \"sample_type\": %llu, \"files\": "
		"[\"cpu0.side\"] },\n  \"lost\": false, \"complete\": true\n}\n", clk, pos, spans,
		records, data_bytes, (unsigned long long)SAMPLE_TYPE);
	if (fclose(gt))
		die(path);
	for (i = 0; i < nthr; i++)
		free(thr[i].pc);
	printf("insns %" PRIu64 " runs %" PRIu64 " threads %u\n", ninsns, nruns, nthr);
	free(abs_prog);
	free(image);
	return 0;
}
