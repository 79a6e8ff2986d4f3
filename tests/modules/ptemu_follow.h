/* SPDX-License-Identifier: GPL-2.0 */
/*
 * ptemu_follow.h - tb_ptemu's follow mode: instead of the synthetic
 * program of ptemu_gen.h, the packets are those silicon would write for
 * the instructions a real process executes. A helper single-steps the
 * process with ptrace (tests/guest/ptfollow.c) and writes, after each
 * step, what the instruction was and where it went
 * (ptemu_follow_abi.h) to debugfs tb_ptemu/follow. Included by
 * tb_ptemu.c after ptemu_emit(); its hooks there: the tick generates
 * nothing while follow mode is on, TraceEn 0->1 marks a PSB+ due, and
 * TraceEn 1->0 writes the packets of the current thread's steps.
 *
 * When. On silicon the packets of an instruction are written while it
 * retires: with tracebuf's per-task target, inside the thread's run
 * (TraceEn set for it, between its SWITCH IN and OUT records). The helper
 * learns what a step did only once the thread has stopped again, so the
 * steps wait in a queue per thread and are written at the thread's next
 * TraceEn 1->0 (the next switch-out of that thread, or a stop of tracebuf
 * while it runs): always inside one of that thread's own runs, in the
 * order it executed them, one run late. At the thread's exit the helper
 * reports the exit syscall at PTRACE_EVENT_EXIT, and the thread runs (and
 * is switched out) once more before it is gone.
 *
 * What. A single-stepped thread executes one user instruction per run:
 * switched in (TraceEn 0->1 in the kernel: tracebuf cleared
 * STATUS.PacketByteCnt, so a full PSB+, SDM vol. 3C "Enabling and
 * Disabling Packet Generation with TraceEn"; no FUP or MODE in it,
 * PacketEn is 0 in the kernel with OS=0), returns to user mode (PacketEn
 * 0->1: MODE.Exec, then TIP.PGE(IP)), retires the instruction (a TNT bit
 * for a conditional branch, a TIP for an indirect branch or return), and
 * traps (#DB, an asynchronous event to an untraced context: FUP(next IP),
 * TIP.PGD without IP). A SYSCALL is itself a far transfer to the kernel:
 * TIP.PGD without IP; when user execution resumes, PacketEn 0->1 again,
 * TIP.PGE at the IP where it resumes (SDM vol. 3C, "Packet Generation
 * Enable (TIP.PGE)": for a CPL change to a traced one the payload is the
 * target of the transfer), the step's 'to': the next IP, or the first
 * instruction of a signal handler the kernel delivered at the system
 * call's exit, or after rt_sigreturn the interrupted IP (ptfollow tells
 * such a step once the thread's next stop shows where it resumed); and
 * the #DB follows at once (FUP, TIP.PGD). Returns are
 * never compressed: a decoder clears its return stack at every PSB
 * (tools/perf/util/intel-pt-decoder, intel_pt_psb()), and every run here
 * starts with one, so the call of any return is before the last PSB
 * (DisRETC changes nothing). IP payloads are compressed against the last
 * IP (cleared by PSB) in the most compact form.
 *
 * Honoured: USR (nothing without it), BranchEn (no TNT/TIP without it),
 * CR3 filtering (the thread's user-mode CR3, as tb_pt_current_cr3()
 * computes it, against CR3_MATCH: nothing unless equal), IP filter ranges
 * (ADDRn_CFG = 1; FilterEn per IP: a branch that leaves the ranges ends
 * with TIP.PGD(target), one that enters starts with TIP.PGE(target), SDM
 * vol. 3C "Filtering by IP"), TSCEn and MTCEn (TSC, TMA in PSB+), and
 * PSBFreq (a PSB+ between steps once that many bytes were written).
 * Not modelled (counted in follow_unsupported, and nothing is written):
 * OS=1 (kernel-mode flow is not visible to ptrace) and TraceStop ranges.
 * Not written: MTC and CYC (no cycle or crystal clock to report between
 * single steps), PTW, power events.
 *
 * debugfs: follow (w, struct ptemu_follow_step records), follow_mode (rw
 * bool), follow_stats (r: steps queued, written, pending, dropped for a
 * full queue, unsupported, NMI writes skipped).
 */
#ifndef TB_PTEMU_FOLLOW_H
#define TB_PTEMU_FOLLOW_H

#include <linux/sched.h>
#include <linux/vmalloc.h>
#include <asm/processor-flags.h>
#include <asm/special_insns.h>

#include "ptemu_follow_abi.h"

#define PTEMU_FTHREADS	64
#define PTEMU_FQUEUE	1024		/* steps waiting per thread */
#define PTEMU_FGROUP	160		/* bytes one step (with a PSB+) may take */

struct ptemu_fthread {
	pid_t tid;			/* 0: free */
	unsigned int head, tail;	/* queue[tail % N] .. queue[head % N] */
	struct ptemu_follow_step q[PTEMU_FQUEUE];
};

/* Per CPU: the packet stream's state. On its CPU, interrupts off. */
struct ptemu_fcpu {
	bool need_psb;			/* TraceEn went 0->1: PSB+ first */
	bool mode_sent;			/* MODE.Exec since the last PSB */
	u64 last_ip;			/* IP compression */
	u64 since_psb;			/* bytes since the last PSB */
	u64 steps, bytes;		/* written */
	u64 nmi_skipped;		/* flushes an NMI could not do (lock held) */
};

static DEFINE_PER_CPU(struct ptemu_fcpu, ptemu_fcpu);

static struct {
	bool on;			/* follow_mode */
	/* The queues: the helper's writes and the TraceEn 1->0 flushes. */
	raw_spinlock_t lock;
	struct ptemu_fthread *th;	/* [PTEMU_FTHREADS] */
	u64 queued, dropped, unsupported;	/* under lock */
} ptemu_follow = {
	.lock = __RAW_SPIN_LOCK_UNLOCKED(ptemu_follow.lock),
};

static bool ptemu_follow_on(void)
{
	return READ_ONCE(ptemu_follow.on);
}

/* TraceEn 0->1: a full PSB+ comes first (PacketByteCnt is 0 after tracebuf's start). */
static void ptemu_follow_enable(struct ptemu_cpu *pc)
{
	per_cpu_ptr(&ptemu_fcpu, pc->cpu)->need_psb = true;
}

/* The thread's user-mode CR3, as tb_pt_current_cr3() (module/pt.c) computes it. */
static u64 ptemu_follow_user_cr3(void)
{
	u64 cr3 = __read_cr3() & CR3_ADDR_MASK;

	if (boot_cpu_has(X86_FEATURE_PTI)) {
		cr3 |= BIT_ULL(12);
		if (boot_cpu_has(X86_FEATURE_PCID))
			cr3 |= BIT_ULL(11);
	}
	return cr3;
}

/* FilterEn for ip: in a filter range, or no filter range at all. */
static bool ptemu_follow_in(const struct ptemu_cpu *pc, u64 ip)
{
	bool any = false;
	unsigned int i;

	for (i = 0; i < ptemu.nr_ranges; i++) {
		if (((pc->ctl >> TB_RTIT_CTL_ADDR_CFG_SHIFT(i)) & 0xf) != TB_RTIT_ADDR_CFG_FILTER)
			continue;
		any = true;
		if (ip >= pc->addr[i][0] && ip <= pc->addr[i][1])
			return true;
	}
	return !any;
}

static bool ptemu_follow_stop_ranges(const struct ptemu_cpu *pc)
{
	unsigned int i;

	for (i = 0; i < ptemu.nr_ranges; i++)
		if (((pc->ctl >> TB_RTIT_CTL_ADDR_CFG_SHIFT(i)) & 0xf) == TB_RTIT_ADDR_CFG_STOP)
			return true;
	return false;
}

static unsigned int ptemu_follow_ip(struct ptemu_fcpu *fc, u8 *buf, u8 opc, u64 ip)
{
	unsigned int ipc = ptgen_ipc_best(ip, fc->last_ip);

	/* After a PSB nothing is there to compress against: 48 bits or all. */
	if (!fc->last_ip)
		ipc = ptgen_ipc_best(ip, 0) == PTGEN_IPC_SEXT48 ? PTGEN_IPC_SEXT48 :
								   PTGEN_IPC_FULL;
	fc->last_ip = ip;
	return ptgen_enc_ip(buf, opc, ipc, ip);
}

static unsigned int ptemu_follow_psbplus(const struct ptemu_cpu *pc,
					 struct ptemu_fcpu *fc, u8 *buf)
{
	unsigned int n = ptgen_enc_psb(buf);
	u64 tsc = rdtsc();

	if (pc->ctl & TB_RTIT_CTL_TSCEN) {
		n += ptgen_enc_tsc(buf + n, tsc);
		if (pc->ctl & TB_RTIT_CTL_MTCEN)
			n += ptgen_enc_tma(buf + n, (u16)(tsc >> PTGEN_CTC_SHIFT),
					   (u16)(tsc & ((1U << PTGEN_CTC_SHIFT) - 1)));
	}
	n += ptgen_enc_cbr(buf + n, PTGEN_CBR_RATIO);
	n += ptgen_enc_psbend(buf + n);
	fc->last_ip = 0;
	fc->mode_sent = false;
	fc->since_psb = 0;
	return n;
}

/* PacketEn 0->1 at ip: MODE.Exec once per PSB, then TIP.PGE. */
static unsigned int ptemu_follow_pge(struct ptemu_fcpu *fc, u8 *buf, u64 ip)
{
	unsigned int n = 0;

	if (!fc->mode_sent) {
		n += ptgen_enc_mode_exec64(buf);
		fc->mode_sent = true;
	}
	return n + ptemu_follow_ip(fc, buf + n, PTGEN_OPC_TIP_PGE, ip);
}

static unsigned int ptemu_follow_pgd(u8 *buf)
{
	return ptgen_enc_ip(buf, PTGEN_OPC_TIP_PGD, PTGEN_IPC_SUPPRESSED, 0);
}

/* The packets of one retired instruction; 0 when nothing is traced. */
static unsigned int ptemu_follow_step_pkts(struct ptemu_cpu *pc, struct ptemu_fcpu *fc,
					   const struct ptemu_follow_step *s, u8 *buf)
{
	bool branch = pc->ctl & TB_RTIT_CTL_BRANCHEN;
	bool in_from, in_to, far = s->kind == PTEMU_F_FAR;
	unsigned int n = 0;
	u64 psb_period;

	if (!(pc->ctl & TB_RTIT_CTL_USR))
		return 0;
	if ((pc->ctl & TB_RTIT_CTL_OS) || ptemu_follow_stop_ranges(pc)) {
		ptemu_follow.unsupported++;
		return 0;
	}
	if ((pc->ctl & TB_RTIT_CTL_CR3EN) && ptemu_follow_user_cr3() != pc->cr3)
		return 0;
	in_from = ptemu_follow_in(pc, s->from);
	in_to = s->to && ptemu_follow_in(pc, s->to);
	if (!in_from && !in_to)
		return 0;
	psb_period = 2048ULL << FIELD_GET(TB_RTIT_CTL_PSB_FREQ, pc->ctl);
	if (fc->need_psb || fc->since_psb >= psb_period) {
		n += ptemu_follow_psbplus(pc, fc, buf);
		fc->need_psb = false;
	}
	if (in_from) {
		n += ptemu_follow_pge(fc, buf + n, s->from);
		if (far || !s->to) {
			/* To the kernel (and back, if it returns: below). */
			n += ptemu_follow_pgd(buf + n);
		} else if (!in_to) {
			/* Leaving the filter ranges: TIP.PGD at the target. */
			n += ptemu_follow_ip(fc, buf + n, PTGEN_OPC_TIP_PGD, s->to);
			goto out;
		} else if (branch && s->kind == PTEMU_F_COND) {
			n += ptgen_enc_tnt8(buf + n, s->taken, 1);
		} else if (branch && (s->kind == PTEMU_F_IND || s->kind == PTEMU_F_RET)) {
			n += ptemu_follow_ip(fc, buf + n, PTGEN_OPC_TIP, s->to);
		}
		if (!far && s->to) {
			/* The #DB after it: FUP at the next IP, TIP.PGD. */
			n += ptemu_follow_ip(fc, buf + n, PTGEN_OPC_FUP, s->to);
			n += ptemu_follow_pgd(buf + n);
			goto out;
		}
	}
	if (in_to) {
		/*
		 * Into the ranges from outside, or back from a SYSCALL:
		 * PacketEn 0->1 at the target, and the #DB at once.
		 */
		n += ptemu_follow_pge(fc, buf + n, s->to);
		n += ptemu_follow_ip(fc, buf + n, PTGEN_OPC_FUP, s->to);
		n += ptemu_follow_pgd(buf + n);
	}
out:
	fc->since_psb += n;
	return n;
}

/*
 * TraceEn 1->0 on this CPU (interrupts off; NMI possible): write the
 * packets of the current thread's steps, in order. Called with pc->ctl
 * holding the bits that were tracing.
 */
static void ptemu_follow_flush(struct ptemu_cpu *pc)
{
	struct ptemu_fcpu *fc = per_cpu_ptr(&ptemu_fcpu, pc->cpu);
	struct ptemu_follow_step s;
	struct ptemu_fthread *t = NULL;
	pid_t tid = current->pid;
	u8 buf[PTEMU_FGROUP];
	unsigned int i, n;

	if (!ptemu_follow.th)
		return;
	if (in_nmi()) {
		if (!raw_spin_trylock(&ptemu_follow.lock)) {
			fc->nmi_skipped++;	/* the steps stay queued */
			return;
		}
	} else {
		raw_spin_lock(&ptemu_follow.lock);	/* interrupts are off */
	}
	for (i = 0; i < PTEMU_FTHREADS && tid; i++)
		if (ptemu_follow.th[i].tid == tid)
			t = &ptemu_follow.th[i];
	while (t && t->tail != t->head) {
		s = t->q[t->tail++ % PTEMU_FQUEUE];
		n = ptemu_follow_step_pkts(pc, fc, &s, buf);
		if (n)
			ptemu_emit(pc, buf, n, 0, 0);
		WRITE_ONCE(fc->steps, fc->steps + 1);
		WRITE_ONCE(fc->bytes, fc->bytes + n);
	}
	raw_spin_unlock(&ptemu_follow.lock);
}

static void ptemu_follow_add(const struct ptemu_follow_step *s)
{
	struct ptemu_fthread *t = NULL, *free = NULL;
	unsigned int i;

	for (i = 0; i < PTEMU_FTHREADS; i++) {
		if (ptemu_follow.th[i].tid == s->tid)
			t = &ptemu_follow.th[i];
		else if (!ptemu_follow.th[i].tid && !free)
			free = &ptemu_follow.th[i];
	}
	if (!t && free) {
		t = free;
		t->tid = s->tid;
		t->head = 0;
		t->tail = 0;
	}
	if (!t || t->head - t->tail == PTEMU_FQUEUE) {
		ptemu_follow.dropped++;
		return;
	}
	t->q[t->head++ % PTEMU_FQUEUE] = *s;
	ptemu_follow.queued++;
}

/* Under the lock: every queue empty and free (not the steps: 2 MiB). */
static void ptemu_follow_reset(void)
{
	unsigned int i;

	for (i = 0; i < PTEMU_FTHREADS; i++) {
		ptemu_follow.th[i].tid = 0;
		ptemu_follow.th[i].head = 0;
		ptemu_follow.th[i].tail = 0;
	}
}

static ssize_t ptemu_follow_write(struct file *file, const char __user *ubuf,
				  size_t len, loff_t *ppos)
{
	struct ptemu_follow_step s;
	unsigned long flags;
	size_t done;

	if (len % sizeof(s))
		return -EINVAL;
	if (!ptemu_follow.th)
		return -ENOMEM;
	for (done = 0; done < len; done += sizeof(s)) {
		if (copy_from_user(&s, ubuf + done, sizeof(s)))
			return -EFAULT;
		raw_spin_lock_irqsave(&ptemu_follow.lock, flags);
		if (s.kind == PTEMU_F_RESET)
			ptemu_follow_reset();
		else
			ptemu_follow_add(&s);
		raw_spin_unlock_irqrestore(&ptemu_follow.lock, flags);
	}
	return len;
}

static const struct file_operations ptemu_follow_fops = {
	.owner	= THIS_MODULE,
	.open	= simple_open,
	.write	= ptemu_follow_write,
	.llseek	= noop_llseek,
};

static int ptemu_follow_stats_show(struct seq_file *m, void *v)
{
	unsigned long flags;
	u64 steps = 0, bytes = 0, pending = 0, nmi = 0;
	unsigned int cpu, i;

	/* Each value untorn; the set is not a snapshot (as stats). */
	for_each_possible_cpu(cpu) {
		steps += READ_ONCE(per_cpu_ptr(&ptemu_fcpu, cpu)->steps);
		bytes += READ_ONCE(per_cpu_ptr(&ptemu_fcpu, cpu)->bytes);
		nmi += READ_ONCE(per_cpu_ptr(&ptemu_fcpu, cpu)->nmi_skipped);
	}
	raw_spin_lock_irqsave(&ptemu_follow.lock, flags);
	for (i = 0; i < PTEMU_FTHREADS; i++)
		pending += ptemu_follow.th[i].head - ptemu_follow.th[i].tail;
	seq_printf(m, "queued %llu\nwritten %llu\nbytes %llu\npending %llu\n",
		   ptemu_follow.queued, steps, bytes, pending);
	seq_printf(m, "dropped %llu\nunsupported %llu\nnmi_skipped %llu\n",
		   ptemu_follow.dropped, ptemu_follow.unsupported, nmi);
	raw_spin_unlock_irqrestore(&ptemu_follow.lock, flags);
	return 0;
}
DEFINE_SHOW_ATTRIBUTE(ptemu_follow_stats);

/* At init; the queues are freed at exit (ptemu_follow_exit). */
static void ptemu_follow_debugfs(struct dentry *dir)
{
	ptemu_follow.th = vzalloc(PTEMU_FTHREADS * sizeof(*ptemu_follow.th));
	if (!ptemu_follow.th)
		return;
	debugfs_create_file("follow", 0200, dir, NULL, &ptemu_follow_fops);
	debugfs_create_bool("follow_mode", 0600, dir, &ptemu_follow.on);
	debugfs_create_file("follow_stats", 0400, dir, NULL, &ptemu_follow_stats_fops);
}

/* After debugfs is gone and every CPU stopped. */
static void ptemu_follow_exit(void)
{
	vfree(ptemu_follow.th);
	ptemu_follow.th = NULL;
}

#endif /* TB_PTEMU_FOLLOW_H */
