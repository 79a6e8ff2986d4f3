// SPDX-License-Identifier: GPL-2.0
/*
 * ptfollow - tests-only helper (not a test itself): runs a program under
 * ptrace single-step, tells the emulator in follow mode every
 * instruction each of its threads retires (the debugfs file "follow" of
 * tb_ptemu on x86_64, of tb_csemu on arm64,
 * tests/modules/ptemu_follow_abi.h), and writes the ground truth: every
 * retired branch, per thread.
 *
 *   ptfollow GT PROG [ARGS...]
 *
 *  1. fork; the child asks to be traced (PTRACE_TRACEME) and execs PROG,
 *     which stops before its first instruction;
 *  2. "pid N" on stdout, then it waits for a line on stdin: the caller
 *     sets up its sessions for N (the per-task target) meanwhile;
 *  3. single-steps every thread (PTRACE_O_TRACECLONE: new threads too;
 *     PTRACE_O_TRACEFORK, _VFORK: new processes; PTRACE_O_TRACEEXEC: an
 *     execve goes to the new program's entry;
 *     PTRACE_O_TRACEEXIT: a last stop at each thread's exit) until none
 *     is left. Before each step it reads the instruction at the thread's
 *     IP and classifies it (x86_64: with Capstone, Debian's
 *     libcapstone-dev, linked statically: an x86 instruction decoder is
 *     not something to write by hand; arm64: by hand, the A64 encodings
 *     are fixed 32-bit words, below); after the step it reads the new IP.
 *     A system call's step is told (and written) once the thread's next
 *     instruction shows where user execution resumed (defer()); a signal
 *     is delivered, a caught one's handler single-stepped from its first
 *     instruction (signal_stop());
 *  4. "steps N branches M status S" on stdout.
 *
 *   ptfollow --exec PATH [--uid UID --gid GID] GT COMMAND [ARGS...]
 *
 * The wrap mode (make demo): COMMAND (e.g. 'tracebuf record -- PATH') runs
 * as UID (group and only supplementary group GID), with no handshake, and every process of its tree is traced but
 * left to run (PTRACE_CONT, its signals passed on; PTRACE_O_TRACEFORK,
 * _VFORK, _CLONE, _EXEC) until it executes PATH: from that exec on, its
 * threads are single-stepped as above. So the tool records the program
 * as it would on hardware, and the emulator traces what the program
 * executes.
 *
 * GT, one line per retired branch (kind != OTHER), in retirement order:
 *   B <tid> <from> <to> <kind> <taken>      (hex addresses, kind as in
 *                                           enum ptemu_follow_kind)
 * and one summary line per thread when it exits:
 *   T <tid> <instructions> <cond> <ind> <ret> <far> <call>
 * Intel PT writes a TNT bit per conditional branch and a TIP per indirect
 * branch and uncompressed return: cond + ind + ret is what a checker
 * counts in the thread's trace (tests/host/ptcheck --follow).
 *
 * On arm64 the ground truth has the kinds csgtgen (tests/unit) gives
 * the same instructions, and the emulator also gets PTEMU_FS_P0 and
 * PTEMU_FS_TAKEN for every P0 instruction (an ETMv4 atom, direct
 * branches too). x86_64 and arm64 only; elsewhere it exits 77.
 */
#include <errno.h>
#include <fcntl.h>
#include <inttypes.h>
#include <signal.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <grp.h>
#include <sys/ptrace.h>
#include <sys/types.h>
#include <sys/uio.h>
#include <sys/user.h>
#include <sys/wait.h>
#include <unistd.h>

#include "ptemu_follow_abi.h"

#ifdef __aarch64__
#define FOLLOW		"/sys/kernel/debug/tb_csemu/follow"
#else
#define FOLLOW		"/sys/kernel/debug/tb_ptemu/follow"
#endif
#define MAXTHREADS	64

#if defined(__x86_64__) || defined(__aarch64__)
#ifdef __x86_64__
#include <capstone/capstone.h>
#else
#include <elf.h>
#endif

struct thread {
	pid_t tid;		/* 0: free */
	int stepping;		/* a step is under way: its instruction below */
	uint64_t from;
	unsigned int len, kind;
	unsigned int p0;	/* arm64: PTEMU_FS_P0 for a P0 instruction */
#ifdef __aarch64__
	/* The exclusive reservation of its last load-exclusive (below). */
	int ldx;		/* stepping one: record what it loaded */
	int ex_valid;
	uint64_t ex_addr;
	unsigned int ex_len, ex_rt, ex_rt2, ex_size;
	uint8_t ex_val[16];
#endif
	uint64_t insns, n[6];
	int follow;		/* single-stepped (else left to run) */
	/* A far step (a system call) retired, its successor not known yet. */
	int deferred;
	uint64_t d_from;
	unsigned int d_len;
	int handler;		/* a caught signal delivered: its handler's stop next */
	int exec_report;	/* after its exec: the execve's exit report may come */
};

static struct thread threads[MAXTHREADS];
#ifdef __x86_64__
static csh cs;
#endif
static FILE *gt;
static int emu = -1;
static uint64_t steps, branches;
static const char *target;	/* --exec: the program followed */

static struct thread *thread_of(pid_t tid, int create)
{
	int i;

	for (i = 0; i < MAXTHREADS; i++)
		if (threads[i].tid == tid)
			return &threads[i];
	if (!create)
		return NULL;
	for (i = 0; i < MAXTHREADS; i++)
		if (!threads[i].tid) {
			memset(&threads[i], 0, sizeof(threads[i]));
			threads[i].tid = tid;
			threads[i].follow = !target;
			return &threads[i];
		}
	fprintf(stderr, "ptfollow: more than %d threads\n", MAXTHREADS);
	exit(1);
}

#ifdef __x86_64__
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

/* The kind of the instruction at ip, and its length. */
static unsigned int classify(pid_t tid, uint64_t ip, unsigned int *len, unsigned int *p0)
{
	uint8_t code[16];
	struct iovec local = { code, sizeof(code) }, remote = { (void *)ip, sizeof(code) };
	unsigned int kind = PTEMU_F_OTHER;
	cs_insn *insn;
	size_t n;
	ssize_t got;

	got = process_vm_readv(tid, &local, 1, &remote, 1, 0);
	if (got <= 0) {
		/* The last bytes of a mapping: read word by word. */
		for (got = 0; got < (ssize_t)sizeof(code); got += 8) {
			long w;

			errno = 0;
			w = ptrace(PTRACE_PEEKTEXT, tid, (void *)(ip + got), NULL);
			if (errno)
				break;
			memcpy(code + got, &w, 8);
		}
	}
	n = cs_disasm(cs, code, got > 0 ? (size_t)got : 0, ip, 1, &insn);
	if (n != 1) {
		fprintf(stderr, "ptfollow: cannot decode at %#" PRIx64 "\n", ip);
		exit(1);
	}
	*len = insn->size;
	*p0 = 0;
	if (is_cond(insn->id)) {
		kind = PTEMU_F_COND;
	} else if (insn->id == X86_INS_SYSCALL || insn->id == X86_INS_SYSENTER ||
		   insn->id == X86_INS_INT || insn->id == X86_INS_INT3 ||
		   insn->id == X86_INS_INTO) {
		kind = PTEMU_F_FAR;
	} else if (insn->id == X86_INS_RET) {
		kind = PTEMU_F_RET;
	} else if (insn->id == X86_INS_JMP || insn->id == X86_INS_CALL) {
		const cs_x86 *x = &insn->detail->x86;
		int direct = x->op_count == 1 && x->operands[0].type == X86_OP_IMM;

		if (!direct)
			kind = PTEMU_F_IND;
		else
			kind = insn->id == X86_INS_CALL ? PTEMU_F_CALL : PTEMU_F_OTHER;
	} else if (cs_insn_group(cs, insn, X86_GRP_JUMP) || cs_insn_group(cs, insn, X86_GRP_CALL) ||
		   cs_insn_group(cs, insn, X86_GRP_RET) || cs_insn_group(cs, insn, X86_GRP_IRET)) {
		fprintf(stderr, "ptfollow: unhandled branch %s at %#" PRIx64 "\n",
			insn->mnemonic, ip);
		exit(1);
	}
	cs_free(insn, n);
	return kind;
}

static uint64_t ip_of(pid_t tid)
{
	struct user_regs_struct r;

	if (ptrace(PTRACE_GETREGS, tid, NULL, &r)) {
		perror("ptfollow: PTRACE_GETREGS");
		exit(1);
	}
	return r.rip;
}
#else
/*
 * The A64 instruction word at ip, by its encoding (Arm ARM DDI 0487,
 * C4.1 "A64 instruction set encoding", the "Branches, Exception
 * Generating and System instructions" group, C4.1.65 in DDI 0487K):
 *
 *   B           0001 01 imm26                       OTHER (direct), P0
 *   BL          1001 01 imm26                       CALL, P0
 *   B.cond      0101 0100 imm19 o0 cond             COND, P0 (BC.cond: o0 1);
 *                                                   cond AL/NV: OTHER, P0
 *   CBZ/CBNZ    sf 011 010 op imm19 Rt              COND, P0
 *   TBZ/TBNZ    b5 011 011 op b40 imm14 Rt          COND, P0
 *   unconditional branch (register):
 *               1101 011 opc(4) op2(5)=11111 op3(6) Rn op4(5)
 *     opc 0000 BR, 1000 BRAA/BRAB (and the Z forms in 0000)   IND, P0
 *     opc 0001 BLR, 1001 BLRAA/BLRAB (and the Z forms)        IND, P0
 *     opc 0010 RET, RETAA/RETAB                               RET, P0
 *     opc 0100 ERET, 0101 DRPS: not at EL0 (an error here)
 *   SVC         1101 0100 000 imm16 000 01          FAR (an exception)
 *   ISB         1101 0101 0000 0011 0011 CRm 110 11111  OTHER, P0
 *               (IHI0064: ISB is a P0 instruction, an E atom)
 *
 * BRK, HVC, SMC and UDF are not expected in a followed program: they
 * stop the helper.
 */
static unsigned int classify_a64(uint32_t w, uint64_t ip, unsigned int *p0)
{
	unsigned int opc, cond;

	*p0 = PTEMU_FS_P0;
	if ((w & 0xfc000000) == 0x14000000)
		return PTEMU_F_OTHER;			/* B */
	if ((w & 0xfc000000) == 0x94000000)
		return PTEMU_F_CALL;			/* BL */
	if ((w & 0xff000000) == 0x54000000) {		/* B.cond, BC.cond */
		cond = w & 0xf;
		return cond >= 0xe ? PTEMU_F_OTHER : PTEMU_F_COND;
	}
	if ((w & 0x7e000000) == 0x34000000 || (w & 0x7e000000) == 0x36000000)
		return PTEMU_F_COND;			/* CBZ/CBNZ, TBZ/TBNZ */
	if ((w & 0xfe000000) == 0xd6000000 && ((w >> 16) & 0x1f) == 0x1f) {
		opc = (w >> 21) & 0xf;
		if (opc == 0 || opc == 8 || opc == 1 || opc == 9)
			return PTEMU_F_IND;		/* BR, BLR (PAC forms too) */
		if (opc == 2)
			return PTEMU_F_RET;		/* RET, RETAA, RETAB */
		fprintf(stderr, "ptfollow: unhandled branch %#010x at %#" PRIx64 "\n", w, ip);
		exit(1);
	}
	if ((w & 0xfffff0ff) == 0xd50330df)
		return PTEMU_F_OTHER;			/* ISB */
	*p0 = 0;
	if ((w & 0xffe0001f) == 0xd4000001)
		return PTEMU_F_FAR;			/* SVC */
	if ((w & 0xff000000) == 0xd4000000 || (w & 0xffff0000) == 0) {
		fprintf(stderr, "ptfollow: exception-generating %#010x at %#" PRIx64 "\n", w, ip);
		exit(1);
	}
	return PTEMU_F_OTHER;
}

static unsigned int classify(pid_t tid, uint64_t ip, unsigned int *len, unsigned int *p0)
{
	struct iovec local, remote = { (void *)ip, 4 };
	uint32_t w;

	local.iov_base = &w;
	local.iov_len = 4;
	if (process_vm_readv(tid, &local, 1, &remote, 1, 0) != 4) {
		long v;

		errno = 0;
		v = ptrace(PTRACE_PEEKTEXT, tid, (void *)ip, NULL);
		if (errno) {
			fprintf(stderr, "ptfollow: cannot read %#" PRIx64 "\n", ip);
			exit(1);
		}
		memcpy(&w, &v, 4);	/* little-endian: the word at ip */
	}
	*len = 4;
	return classify_a64(w, ip, p0);
}

static uint64_t ip_of(pid_t tid)
{
	struct user_regs_struct r;	/* glibc's: the kernel's user_pt_regs */
	struct iovec io = { &r, sizeof(r) };

	if (ptrace(PTRACE_GETREGSET, tid, (void *)(long)NT_PRSTATUS, &io)) {
		perror("ptfollow: PTRACE_GETREGSET");
		exit(1);
	}
	return r.pc;
}
#endif

/* One retired instruction, to the emulator and (a branch) to the ground truth. */
static void report(struct thread *t, uint64_t from, unsigned int kind, unsigned int len,
		   unsigned int p0, uint64_t to)
{
	struct ptemu_follow_step s = {
		.tid = t->tid, .kind = kind, .from = from, .to = to, .len = len,
	};

	s.taken = kind == PTEMU_F_COND && to != from + len;
	if (p0)		/* arm64: every P0 instruction is an atom, E if it branched */
		s.taken = p0 | (to != from + len ? PTEMU_FS_TAKEN : 0);
	if (write(emu, &s, sizeof(s)) != sizeof(s)) {
		perror("ptfollow: " FOLLOW);
		exit(1);
	}
	steps++;
	t->insns++;
	t->n[kind]++;
	if (kind != PTEMU_F_OTHER) {
		branches++;
		fprintf(gt, "B %d %" PRIx64 " %" PRIx64 " %u %u\n", t->tid, from, to, kind,
			kind == PTEMU_F_COND && (s.taken & PTEMU_FS_TAKEN));
	}
}

/* The deferred far step (if any) went to 'to': where user execution resumed. */
static void resolve(struct thread *t, uint64_t to)
{
	if (!t->deferred)
		return;
	t->deferred = 0;
	report(t, t->d_from, PTEMU_F_FAR, t->d_len, 0, to);
}

/* The step t made retired; to is where it went (0: nowhere, it exited). */
static void retired(struct thread *t, uint64_t to)
{
	resolve(t, t->from);	/* user execution resumed here */
	report(t, t->from, t->kind, t->len, t->p0, to);
	t->stepping = 0;
}

/*
 * The step t made was a system call (kind FAR) and its step report came
 * at the syscall's exit, at the next IP. Whether user execution resumes
 * there is not known yet: a signal delivered at that exit makes it
 * resume at the handler (and rt_sigreturn's report is at the interrupted
 * IP already). Silicon's user-only trace leaves at the system call and
 * comes back where user execution resumes (Intel PT: TIP.PGD, then
 * TIP.PGE at that IP; ETMv4: the SVC's Exception packet, then Trace On
 * and the Address of that instruction), so the step is told to the
 * emulator, and written to the ground truth, with that successor: at the
 * thread's next retired instruction (resolve()).
 */
static void defer(struct thread *t)
{
	resolve(t, t->from);	/* two in a row: the first resumed at the second */
	t->deferred = 1;
	t->d_from = t->from;
	t->d_len = t->len;
	t->stepping = 0;
}

#ifdef __aarch64__
static void get_regs(pid_t tid, struct user_regs_struct *r)
{
	struct iovec io = { r, sizeof(*r) };

	if (ptrace(PTRACE_GETREGSET, tid, (void *)(long)NT_PRSTATUS, &io)) {
		perror("ptfollow: PTRACE_GETREGSET");
		exit(1);
	}
}

/* Xn as a base register (31: SP) or as data (31: XZR). */
static uint64_t xreg(const struct user_regs_struct *r, unsigned int n, int base)
{
	return n < 31 ? r->regs[n] : base ? r->sp : 0;
}

/*
 * Exclusives. Each single step returns to EL0 with an exception return,
 * which clears the PE's local exclusive monitor (Arm ARM DDI 0487,
 * D1 "exception return" and B2.9 "Synchronization and semaphores"): a
 * store-exclusive stepped after its load-exclusive always fails and an
 * LDXR/STXR loop never ends (gdb steps over such sequences as a whole,
 * aarch64_software_single_step()). Static glibc runs a few of them before
 * libgcc's constructor selects LSE atomics (its __aarch64_cas4_acq and
 * friends). So the helper executes each store-exclusive itself: with the
 * thread stopped it stores Rt (and Rt2) and writes 0 to Rs if the
 * thread's last load-exclusive was at that address with that size and the
 * memory still holds what it loaded, else it writes 1 to Rs (a failed
 * store-exclusive, which the architecture allows at any time: the program
 * retries), and moves the PC on. The step is reported like any other; the
 * emulator cannot tell (an instruction retired, not a branch).
 *
 *   load-exclusive   size 001000 0 1 o1 Rs o0 Rt2 Rn Rt   (LDXR, LDAXR, LDXP, ...)
 *   store-exclusive  size 001000 0 0 o1 Rs o0 Rt2 Rn Rt   (STXR, STLXR, STXP, ...)
 *   CLREX            1101 0101 0000 0011 0011 CRm 010 11111
 */
static void ex_put(uint8_t *b, uint64_t v, unsigned int size)
{
	memcpy(b, &v, size);	/* little-endian: the low bytes */
}

/*
 * len bytes of tid's memory at addr to buf (wr 0), or from buf (wr 1).
 * process_vm_readv/writev where the kernel has them; a kernel built
 * without CONFIG_CROSS_MEMORY_ATTACH (the debug kernels, from tinyconfig:
 * mm/Makefile builds mm/process_vm_access.c only with it, and the system
 * calls are then sys_ni_syscall's ENOSYS) goes word by word with
 * PTRACE_PEEKDATA and PTRACE_POKEDATA, through the aligned 8-byte words
 * that hold the bytes: an exclusive access is naturally aligned (Arm ARM
 * DDI 0487, B2.5.2 "Alignment of data accesses": an unaligned exclusive
 * faults) and so is an A64 instruction, so those words are in the
 * bytes' page. A written word's other bytes are written back as read.
 * Without this the debug kernels failed every store-exclusive's
 * emulation (its instruction unread, the store-exclusive was stepped and
 * failed) and the program spun in its LDXR/STXR loop.
 */
static int mem_rw(pid_t tid, uint64_t addr, void *buf, size_t len, int wr)
{
	struct iovec local = { buf, len }, remote = { (void *)addr, len };
	uint64_t a, end = addr + len;
	uint8_t *b = buf;

	if ((wr ? process_vm_writev(tid, &local, 1, &remote, 1, 0) :
	     process_vm_readv(tid, &local, 1, &remote, 1, 0)) == (ssize_t)len)
		return 0;
	for (a = addr & ~7ULL; a < end; a += 8) {
		uint64_t lo = a < addr ? addr : a, hi = a + 8 > end ? end : a + 8;
		uint8_t word[8];
		long v;

		errno = 0;
		v = ptrace(PTRACE_PEEKDATA, tid, (void *)a, NULL);
		if (errno)
			return -1;
		memcpy(word, &v, 8);
		if (!wr) {
			memcpy(b + (lo - addr), word + (lo - a), hi - lo);
			continue;
		}
		memcpy(word + (lo - a), b + (lo - addr), hi - lo);
		memcpy(&v, word, 8);
		if (ptrace(PTRACE_POKEDATA, tid, (void *)a, (void *)v))
			return -1;
	}
	return 0;
}

/* Returns 1 if the instruction at the PC was executed here (a store-exclusive). */
static int exclusive(struct thread *t)
{
	struct user_regs_struct r;
	struct iovec io = { &r, sizeof(r) };
	uint8_t mem[16], val[16];
	unsigned int size, pair, rs, status = 1;
	uint64_t addr;
	uint32_t w;

	get_regs(t->tid, &r);
	if (t->ldx) {
		/* The load-exclusive just retired: what it loaded. */
		ex_put(t->ex_val, xreg(&r, t->ex_rt, 0), t->ex_size);
		if (t->ex_len > t->ex_size)
			ex_put(t->ex_val + t->ex_size, xreg(&r, t->ex_rt2, 0), t->ex_size);
		t->ldx = 0;
		t->ex_valid = 1;
	}
	if (mem_rw(t->tid, r.pc, &w, 4, 0))
		return 0;	/* classify() reads it (or fails) */
	if ((w & 0xfffff0ff) == 0xd503305f) {
		t->ex_valid = 0;	/* CLREX */
		return 0;
	}
	if ((w & 0x3f800000) != 0x08000000)
		return 0;		/* not a load/store-exclusive */
	size = 1u << (w >> 30);
	pair = (w >> 21) & 1;
	addr = xreg(&r, (w >> 5) & 31, 1);
	if (w & (1u << 22)) {		/* load-exclusive: stepped; record it after */
		t->ldx = 1;
		t->ex_valid = 0;
		t->ex_addr = addr;
		t->ex_size = size;
		t->ex_len = pair ? 2 * size : size;
		t->ex_rt = w & 31;
		t->ex_rt2 = (w >> 10) & 31;
		return 0;
	}
	/* A store-exclusive: executed here. */
	rs = (w >> 16) & 31;
	ex_put(val, xreg(&r, w & 31, 0), size);
	if (pair)
		ex_put(val + size, xreg(&r, (w >> 10) & 31, 0), size);
	if (t->ex_valid && t->ex_addr == addr && t->ex_len == (pair ? 2 * size : size)) {
		if (!mem_rw(t->tid, addr, mem, t->ex_len, 0) &&
		    !memcmp(mem, t->ex_val, t->ex_len)) {
			if (mem_rw(t->tid, addr, val, t->ex_len, 1)) {
				perror("ptfollow: store-exclusive");
				exit(1);
			}
			status = 0;
		}
	}
	t->ex_valid = 0;
	if (rs < 31)
		r.regs[rs] = status;
	t->from = r.pc;
	t->kind = PTEMU_F_OTHER;
	t->len = 4;
	t->p0 = 0;
	t->stepping = 1;
	r.pc += 4;
	if (ptrace(PTRACE_SETREGSET, t->tid, (void *)(long)NT_PRSTATUS, &io)) {
		perror("ptfollow: PTRACE_SETREGSET");
		exit(1);
	}
	return 1;
}
#endif

static void step(struct thread *t)
{
#ifdef __aarch64__
	/* A store-exclusive retires here, and the next instruction is stepped. */
	while (exclusive(t))
		retired(t, t->from + 4);
#endif
	t->from = ip_of(t->tid);
	t->kind = classify(t->tid, t->from, &t->len, &t->p0);
	t->stepping = 1;
	if (ptrace(PTRACE_SINGLESTEP, t->tid, NULL, NULL)) {
		perror("ptfollow: PTRACE_SINGLESTEP");
		exit(1);
	}
}

/* --exec: does tid run the program followed? */
static int runs_target(pid_t tid)
{
	char path[64], exe[4096], want[4096];
	ssize_t n;

	snprintf(path, sizeof(path), "/proc/%d/exe", (int)tid);
	n = readlink(path, exe, sizeof(exe) - 1);
	if (n <= 0 || !realpath(target, want))
		return 0;
	exe[n] = 0;
	return !strcmp(exe, want);
}

static void gone(struct thread *t)
{
	if (!t->follow) {
		t->tid = 0;
		return;
	}
	resolve(t, 0);
	fprintf(gt, "T %d %" PRIu64 " %" PRIu64 " %" PRIu64 " %" PRIu64 " %" PRIu64 " %" PRIu64 "\n",
		t->tid, t->insns, t->n[PTEMU_F_COND], t->n[PTEMU_F_IND], t->n[PTEMU_F_RET],
		t->n[PTEMU_F_FAR], t->n[PTEMU_F_CALL]);
	t->tid = 0;
}

/* Whether tid's process has a handler for sig (/proc/TID/status SigCgt). */
static int caught(pid_t tid, int sig)
{
	char path[64], line[256];
	unsigned long long mask = 0;
	FILE *f;

	snprintf(path, sizeof(path), "/proc/%d/status", (int)tid);
	f = fopen(path, "r");
	while (f && fgets(line, sizeof(line), f))
		if (sscanf(line, "SigCgt: %llx", &mask) == 1)
			break;
	if (f)
		fclose(f);
	return sig >= 1 && sig <= 64 && (mask >> (sig - 1)) & 1;
}

/*
 * --exec: a stop of a task left to run. Its events are passed over, a new
 * task's first SIGSTOP too, any other signal is delivered; at the exec of
 * the program followed its single-stepping starts.
 */
static void unfollowed_stop(struct thread *t, int st, int fresh)
{
	int ev = st >> 16, sig = WSTOPSIG(st);

	if ((ev == PTRACE_EVENT_EXEC || fresh) && runs_target(t->tid)) {
		t->follow = 1;
		step(t);
		return;
	}
	if (ev || (fresh && sig == SIGSTOP) || sig == (SIGTRAP | 0x80))
		sig = 0;
	ptrace(PTRACE_CONT, t->tid, NULL, (void *)(long)sig);
}

/*
 * A signal-delivery stop of a followed thread, while a step is under way:
 * the signal was dequeued on the way back to user mode and nothing
 * retired (the step's SIGTRAP, a synchronous signal, is dequeued before
 * it: kernel/signal.c, next_signal()). It is delivered as the thread goes
 * on. A caught one runs its handler: the kernel sets up the frame and,
 * as the thread is single-stepped, stops it with SIGTRAP at the handler's
 * first instruction before it executes it (signal_setup_done() with
 * stepping set, signal_delivered(), ptrace_notify(); x86:
 * arch/x86/kernel/signal.c handle_signal(), arm64:
 * arch/arm64/kernel/signal.c handle_signal()): handler_stop(). Only a
 * handler run at a system call's exit is modelled (a signal raised by the
 * thread itself): its ground truth is exact (defer()). A caught signal
 * after any other instruction would be an asynchronous diversion, which
 * the ground truth's branch successors cannot say: it stops the helper.
 */
static int signal_stop(struct thread *t, int sig)
{
	if (ip_of(t->tid) != t->from) {
		fprintf(stderr, "ptfollow: thread %d: signal %d stop at %#" PRIx64 ", not at %#"
			PRIx64 "\n", t->tid, sig, ip_of(t->tid), t->from);
		return 1;
	}
	if (caught(t->tid, sig)) {
		if (!t->deferred) {
			fprintf(stderr, "ptfollow: thread %d: caught signal %d not at a system call's "
				"exit (at %#" PRIx64 "): not modelled\n", t->tid, sig, t->from);
			return 1;
		}
		t->handler = sig;
	}
	if (ptrace(PTRACE_SINGLESTEP, t->tid, NULL, (void *)(long)sig)) {
		perror("ptfollow: PTRACE_SINGLESTEP");
		exit(1);
	}
	return 0;
}

/*
 * The first stop after a caught signal was delivered: ptrace_notify()'s
 * (si_code SIGTRAP, kernel/signal.c ptrace_do_notify()), not a step's
 * trap, at the handler's first instruction; nothing retired. The
 * deferred system call resumed there (resolve(), at the handler's first
 * step).
 */
static int handler_stop(struct thread *t)
{
	siginfo_t si;
	uint64_t ip = ip_of(t->tid);

	memset(&si, 0, sizeof(si));
	if (ptrace(PTRACE_GETSIGINFO, t->tid, NULL, &si) || si.si_code != SIGTRAP) {
		fprintf(stderr, "ptfollow: thread %d: signal %d delivered, the next stop (at %#"
			PRIx64 ", si_code %d) is not its handler's\n", t->tid, t->handler, ip,
			si.si_code);
		return 1;
	}
	fprintf(stderr, "ptfollow: thread %d: signal %d after the system call at %#" PRIx64
		": its handler at %#" PRIx64 "\n", t->tid, t->handler, t->d_from, ip);
	t->handler = 0;
	t->stepping = 0;
	step(t);
	return 0;
}

int main(int argc, char **argv)
{
	struct ptemu_follow_step reset = { .kind = PTEMU_F_RESET };
	int st, live = 1, status = -1, uid = -1, fresh;
	gid_t gid = 0;
	struct thread *t;
	char line[16];
	pid_t pid, w;

	while (argc > 2 && !strncmp(argv[1], "--", 2)) {
		if (!strcmp(argv[1], "--exec"))
			target = argv[2];
		else if (!strcmp(argv[1], "--uid"))
			uid = atoi(argv[2]);
		else if (!strcmp(argv[1], "--gid"))
			gid = (gid_t)atoi(argv[2]);
		else
			return 2;
		argc -= 2;
		argv += 2;
	}
	if (argc < 3)
		return 2;
	gt = fopen(argv[1], "w");
	/* PTFOLLOW_EMU: another file, to try the helper without the emulator. */
	emu = open(getenv("PTFOLLOW_EMU") ? getenv("PTFOLLOW_EMU") : FOLLOW, O_WRONLY);
	if (!gt || emu < 0) {
		perror("ptfollow: GT or " FOLLOW);
		return 1;
	}
	if (write(emu, &reset, sizeof(reset)) != sizeof(reset))
		return 1;
#ifdef __x86_64__
	if (cs_open(CS_ARCH_X86, CS_MODE_64, &cs) != CS_ERR_OK)
		return 1;
	cs_option(cs, CS_OPT_DETAIL, CS_OPT_ON);
#endif
	fflush(stdout);
	pid = fork();
	if (pid == 0) {
		if (uid >= 0 && (setgroups(1, &gid) || setgid(gid) || setuid(uid)))
			_exit(126);
		ptrace(PTRACE_TRACEME, 0, NULL, NULL);
		execvp(argv[2], argv + 2);
		_exit(127);
	}
	/* Stopped at the exec, before the program's first instruction. */
	if (waitpid(pid, &st, 0) != pid || !WIFSTOPPED(st)) {
		fprintf(stderr, "ptfollow: %s did not stop at its exec\n", argv[2]);
		return 1;
	}
	ptrace(PTRACE_SETOPTIONS, pid, NULL,
	       PTRACE_O_TRACECLONE | PTRACE_O_TRACEEXIT | PTRACE_O_EXITKILL |
	       PTRACE_O_TRACEFORK | PTRACE_O_TRACEVFORK | PTRACE_O_TRACEEXEC);
	if (target) {
		t = thread_of(pid, 1);
		unfollowed_stop(t, SIGSTOP << 8 | 0x7f, 1);
	} else {
		printf("pid %d\n", pid);
		fflush(stdout);
		if (!fgets(line, sizeof(line), stdin))
			return 1;
		step(thread_of(pid, 1));
	}
	while (live > 0) {
		w = waitpid(-1, &st, __WALL);
		if (w < 0) {
			perror("ptfollow: waitpid");
			return 1;
		}
		fresh = !thread_of(w, 0);
		t = thread_of(w, 1);
		if (WIFEXITED(st) || WIFSIGNALED(st)) {
			if (w == pid)
				status = st;
			if (t->stepping)
				retired(t, 0);
			gone(t);
			live--;
			continue;
		}
		if (!WIFSTOPPED(st))
			continue;
		if (fresh && target)
			live++;		/* a new task of the tree, first seen */
		if (!t->follow) {
			unfollowed_stop(t, st, fresh);
			continue;
		}
		if (st >> 8 == (SIGTRAP | (PTRACE_EVENT_CLONE << 8)) ||
		    st >> 8 == (SIGTRAP | (PTRACE_EVENT_FORK << 8)) ||
		    st >> 8 == (SIGTRAP | (PTRACE_EVENT_VFORK << 8))) {
			/* The clone retired in the parent; the child shows up stopped. */
			retired(t, ip_of(w));
			if (!target)
				live++;
			step(t);
			continue;
		}
		if (st >> 8 == (SIGTRAP | (PTRACE_EVENT_EXEC << 8))) {
			/*
			 * The execve retired: the new program's first instruction
			 * is next. The system call's exit step report comes when
			 * it goes on, at that IP, before it executes it (x86:
			 * SYSCALL_EXIT_TRAP, kernel/entry/common.c; arm64:
			 * syscall_trace_exit()): nothing retired then.
			 */
			retired(t, ip_of(w));
			step(t);
			t->exec_report = 1;
			continue;
		}
		if (st >> 8 == (SIGTRAP | (PTRACE_EVENT_EXIT << 8))) {
			/* Its last instruction (the exit syscall) did not return. */
			if (t->stepping)
				retired(t, 0);
			ptrace(PTRACE_CONT, w, NULL, NULL);
			continue;
		}
		if (!t->stepping) {
			/* A new thread's first stop (SIGSTOP), before its first instruction. */
			step(t);
			continue;
		}
		if (WSTOPSIG(st) != SIGTRAP) {
			if (signal_stop(t, WSTOPSIG(st)))
				return 1;
			continue;
		}
		if (t->handler) {
			if (handler_stop(t))
				return 1;
			continue;
		}
		if (t->exec_report) {
			t->exec_report = 0;
			if (ip_of(w) == t->from) {
				t->stepping = 0;
				step(t);
				continue;
			}
		}
#ifdef __aarch64__
		/*
		 * The step trap was taken before the instruction ran (seen on
		 * arm64-6.1 after the rt_sigprocmask of pthread_create(): the
		 * syscall-exit step report left the step active-pending, so the
		 * next step traps at once): nothing retired, step it again. No
		 * followed program branches to itself.
		 */
		if (ip_of(w) == t->from) {
			t->stepping = 0;
			step(t);
			continue;
		}
#endif
		if (t->kind == PTEMU_F_FAR)
			defer(t);
		else
			retired(t, ip_of(w));
		step(t);
	}
	fclose(gt);
	printf("steps %" PRIu64 " branches %" PRIu64 " status %d\n", steps, branches,
	       WIFEXITED(status) ? WEXITSTATUS(status) : 128 + WTERMSIG(status));
	return 0;
}
#else
int main(void)
{
	return 77;
}
#endif
