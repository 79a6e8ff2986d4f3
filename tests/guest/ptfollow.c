// SPDX-License-Identifier: GPL-2.0
/*
 * ptfollow - tests-only helper (not a test itself): runs a program under
 * ptrace single-step, tells the Intel PT emulator in follow mode every
 * instruction each of its threads retires (tb_ptemu's debugfs file
 * "follow", tests/modules/ptemu_follow_abi.h), and writes the ground
 * truth: every retired branch, per thread.
 *
 *   ptfollow GT PROG [ARGS...]
 *
 *  1. fork; the child asks to be traced (PTRACE_TRACEME) and execs PROG,
 *     which stops before its first instruction;
 *  2. "pid N" on stdout, then it waits for a line on stdin: the caller
 *     sets up its sessions for N (the per-task target) meanwhile;
 *  3. single-steps every thread (PTRACE_O_TRACECLONE: new threads too;
 *     PTRACE_O_TRACEEXIT: a last stop at each thread's exit) until none
 *     is left. Before each step it reads the instruction at the thread's
 *     IP and classifies it with Capstone (Debian's libcapstone-dev,
 *     linked statically: an x86 instruction decoder is not something to
 *     write by hand); after the step it reads the new IP;
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
 * x86_64 only (Capstone's x86 decoder); elsewhere it exits 77.
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

#define FOLLOW		"/sys/kernel/debug/tb_ptemu/follow"
#define MAXTHREADS	64

#ifdef __x86_64__
#include <capstone/capstone.h>

struct thread {
	pid_t tid;		/* 0: free */
	int stepping;		/* a step is under way: its instruction below */
	uint64_t from;
	unsigned int len, kind;
	uint64_t insns, n[6];
	int follow;		/* single-stepped (else left to run) */
};

static struct thread threads[MAXTHREADS];
static csh cs;
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
static unsigned int classify(pid_t tid, uint64_t ip, unsigned int *len)
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

/* The step t made retired; to is where it went (0: nowhere, it exited). */
static void retired(struct thread *t, uint64_t to)
{
	struct ptemu_follow_step s = {
		.tid = t->tid, .kind = t->kind, .from = t->from, .to = to,
		.len = t->len,
	};

	s.taken = t->kind == PTEMU_F_COND && to != t->from + t->len;
	if (write(emu, &s, sizeof(s)) != sizeof(s)) {
		perror("ptfollow: " FOLLOW);
		exit(1);
	}
	steps++;
	t->insns++;
	t->n[t->kind]++;
	if (t->kind != PTEMU_F_OTHER) {
		branches++;
		fprintf(gt, "B %d %" PRIx64 " %" PRIx64 " %u %u\n", t->tid, t->from, to,
			t->kind, s.taken);
	}
	t->stepping = 0;
}

static void step(struct thread *t)
{
	t->from = ip_of(t->tid);
	t->kind = classify(t->tid, t->from, &t->len);
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
	fprintf(gt, "T %d %" PRIu64 " %" PRIu64 " %" PRIu64 " %" PRIu64 " %" PRIu64 " %" PRIu64 "\n",
		t->tid, t->insns, t->n[PTEMU_F_COND], t->n[PTEMU_F_IND], t->n[PTEMU_F_RET],
		t->n[PTEMU_F_FAR], t->n[PTEMU_F_CALL]);
	t->tid = 0;
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
	if (cs_open(CS_ARCH_X86, CS_MODE_64, &cs) != CS_ERR_OK)
		return 1;
	cs_option(cs, CS_OPT_DETAIL, CS_OPT_ON);
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
	       (target ? PTRACE_O_TRACEFORK | PTRACE_O_TRACEVFORK | PTRACE_O_TRACEEXEC : 0));
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
			fprintf(stderr, "ptfollow: thread %d got signal %d\n", w, WSTOPSIG(st));
			return 1;
		}
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
