/* SPDX-License-Identifier: GPL-2.0 */
/*
 * csemu_follow.h - tb_csemu's follow mode: instead of the synthetic
 * program of csemu_gen.h, an ETM's trace is what silicon would write for
 * the instructions a real process executes. tests/guest/ptfollow.c
 * single-steps the process with ptrace and writes, after each step, what
 * the instruction was and where it went (struct ptemu_follow_step,
 * ptemu_follow_abi.h: the same records as tb_ptemu's follow mode, with
 * PTEMU_FS_P0 / PTEMU_FS_TAKEN for ETMv4's atoms) to debugfs
 * tb_csemu/follow. Included by csemu_etm.c; its hooks there, all under
 * csemu_lock on the unit's CPU: while follow_mode is on the tick and
 * etmN/burst generate nothing and EN 0->1 and 1->0 produce no synthetic
 * start or stop bytes; EN 0->1 takes the unit's configuration, and
 * EN 1->0 writes the packets of the current thread's steps,
 * through csemu_etm_emit() (the unit's ATB port: formatter, funnels,
 * sink), counted in the per-task oracle (csemu_task.h) and etmN/stats.
 *
 * When. As in tb_ptemu (ptemu_follow.h): the helper learns what a step
 * did only once the thread has stopped again, so the steps wait in a
 * queue per thread and are written at the thread's next EN 1->0 on the
 * CPU it runs on (with tracebuf's per-task target: its switch-out, or a
 * stop of the session while it runs): always inside one of that
 * thread's own runs, in the order it executed them, one run late.
 *
 * What (ARM IHI0064, ETMv4; encodings as csemu_gen.h and OpenCSD's
 * trc_pkt_proc_etmv4i.cpp). A single-stepped thread executes one EL0
 * instruction per excursion from EL1:
 *   trace starts  A-sync, Trace Info and, with TRCCONFIGR.TS, a
 *                 Timestamp (the generic counter, CNTVCT): the trace
 *                 unit's synchronisation when trace starts after
 *                 TRCPRGCTLR.EN 0->1 (IHI0064, "Trace unit behavior on a
 *                 trace unit reset or when trace starts"; Trace Info
 *                 clears the address history and the decoder's return
 *                 stack), with the first instruction traced, as the
 *                 synthetic start bytes (csemu_etm_enable()): an enable
 *                 during which no EL0 instruction of the thread is traced
 *                 (a run in the kernel only, or a drain cycle's) writes
 *                 nothing
 *   each step     of an instruction ViewInst traces (the ERET to EL0
 *                 makes it active: TRCVICTLR traces EL0 only; the
 *                 address comparators decide per instruction,
 *                 csemu_follow_step_pkts()): Trace On, Context (EL0, AArch64,
 *                 Non-secure; VMID 0 with TRCCONFIGR.VMID, CONTEXTIDR_EL1
 *                 with TRCCONFIGR.CID) and the 64-bit Address of the
 *                 instruction (IHI0064 "Trace On element": after a gap in
 *                 the trace the first instruction traced gets a Context
 *                 and an Address element);
 *                 a P0 instruction (every branch, direct or not, and ISB:
 *                 IHI0064 "P0 instructions") is an atom, E taken, N not
 *                 (an F1 atom packet each); a taken indirect branch or
 *                 return is followed by the Address of its target (the
 *                 return stack, TRCCONFIGR.RS, is empty: it is cleared by
 *                 Trace On, IHI0064 "Return stack"; a direct branch's
 *                 target is implied unless TRCCONFIGR.BB asks an Address
 *                 after every taken branch, "Branch broadcasting");
 *                 then the software step exception to EL1: Exception
 *                 (type 6, Instruction debug, IHI0064 "Exception
 *                 packet" type table) with the preferred return address,
 *                 the next instruction; an SVC is itself the exception
 *                 (type 2, Call, return address SVC + 4), and its step
 *                 is reported at the syscall's exit without going back to
 *                 EL0 (arch/arm64/kernel/syscall.c, syscall_trace_exit()
 *                 reports the step there);
 *   periodic sync A-sync and Trace Info [Timestamp] again before a step
 *                 once 2^TRCSYNCPR bytes were written since the last
 *                 (IHI0064 TRCSYNCPR).
 * All addresses are 64-bit Address packets (always a legal choice of
 * compression, IHI0064 "Address packets").
 *
 * Honoured: TRCVICTLR.EXLEVEL_NS(0) and FEAT_TRF's TRFCR_EL1.E0TRE
 * (nothing when EL0 is not traced; csemu_etm_cfg() merges them), the
 * ViewInst event (resource 0 FALSE or 1 TRUE), ViewInst include/exclude
 * ranges (TRCVIIECTLR over TRCACVRn/TRCACATRn pairs) and start/stop
 * (TRCVISSCTLR, TRCVICTLR.SSSTATUS) per instruction, CID, VMID, TS, BB,
 * RS, TRCSYNCPR. Not modelled (counted in unsupported, and nothing is
 * written for the step): EL1 traced (kernel flow is not visible to
 * ptrace), cycle counting (TRCCONFIGR.CCI), other ViewInst events,
 * comparators that also compare the context (TRCACATRn.CONTEXTTYPE), an
 * instruction at both a start and a stop point. Comparators ViewInst
 * uses that are not implemented or not instruction address comparators
 * are violations at EN 0->1 (csemu_etm_viewinst_ok()).
 *
 * debugfs: follow (w, struct ptemu_follow_step records; kind
 * PTEMU_F_RESET forgets every queue), follow_mode (rw bool),
 * follow_stats (r: steps queued, written, bytes, pending, dropped for a
 * full queue, unsupported), follow_break (rw u64, a test knob, not
 * silicon: N > 0 inverts the atom of the Nth P0 step written from now on,
 * once, so that a ground-truth check of the capture must fail; tool_gt's
 * 'break' argument).
 */
#ifndef TB_CSEMU_FOLLOW_H
#define TB_CSEMU_FOLLOW_H

#include <linux/vmalloc.h>
#ifdef CONFIG_ARM64
#include <asm/arch_timer.h>
#include <asm/sysreg.h>
#endif

#include "ptemu_follow_abi.h"

#define CSEMU_FTHREADS		64
#define CSEMU_FQUEUE		1024	/* steps waiting per thread */
#define CSEMU_FSTEP_MAX		128	/* bytes one step (with a sync) may take */
#define CSEMU_EXC_INST_DEBUG	0x6	/* IHI0064 exception type: Instruction debug */

struct csemu_fthread {
	pid_t tid;			/* 0: free */
	unsigned int head, tail;	/* q[tail % N] .. q[head % N] */
	struct ptemu_follow_step q[CSEMU_FQUEUE];
};

/* Per ETM: its packet stream's state. Under csemu_lock. */
struct csemu_fetm {
	struct csgen g;			/* cfg and what csgen_derive() makes of it */
	u32 vissctlr;			/* TRCVISSCTLR of the enable */
	bool started;			/* the ViewInst start/stop logic's state */
	bool enabled;			/* csemu_follow_enable() set this up */
	bool need_sync;			/* EN 0->1: nothing traced yet */
	u64 since_sync;			/* bytes since the last A-sync */
	u64 steps, bytes;		/* written */
};

static struct {
	bool on;			/* follow_mode */
	/* All under csemu_lock: the helper's writes and the EN 1->0 flushes. */
	struct csemu_fthread *th;	/* [CSEMU_FTHREADS] */
	struct csemu_fetm *fe;		/* [nr_cpu_ids] */
	u64 queued, dropped, unsupported;
	u64 brk;			/* follow_break: P0 steps to the inverted one */
} csemu_follow;

static bool csemu_follow_on(void)
{
	return READ_ONCE(csemu_follow.on) && csemu_follow.th;
}

/* A-sync, Trace Info [, Timestamp]: the start of trace or a periodic sync. */
static unsigned int csemu_follow_sync(struct csemu_fetm *f, u8 *buf)
{
	unsigned int n = csgen_enc_async(buf);
	u64 ts;

	n += csgen_enc_tinfo(buf + n, false, 0);
	if (f->g.ts_en) {
#ifdef CONFIG_ARM64
		ts = __arch_counter_get_cntvct();	/* the generic timestamp */
#else
		ts = ktime_get_ns();
#endif
		n += csgen_enc_ts(buf + n, ts, 8, false, 0);	/* below 2^56 */
	}
	f->since_sync = 0;
	return n;
}

static unsigned int csemu_follow_addr(u8 *buf, u64 addr)
{
	buf[0] = 0x9d;				/* Address, 64-bit, IS0 */
	return 1 + csgen_enc_addr_payload(buf + 1, addr, 8);
}

/* Trace On, Context (EL0, AArch64, NS [, VMID] [, CONTEXTIDR]), Address. */
static unsigned int csemu_follow_trace_on(struct csemu_fetm *f, u8 *buf, u64 at)
{
	unsigned int n = 0, i;
	u32 cid = 0;

#ifdef CONFIG_ARM64
	cid = (u32)read_sysreg(contextidr_el1);
#endif
	buf[n++] = 0x04;			/* Trace On */
	buf[n++] = 0x81;			/* Context */
	buf[n++] = (u8)(0x30 | (f->g.vmid_en ? 0x40 : 0) | (f->g.cid_en ? 0x80 : 0));
	for (i = 0; f->g.vmid_en && i < f->g.vmid_bytes; i++)
		buf[n++] = 0;			/* VMID 0: no EL2 in use */
	for (i = 0; f->g.cid_en && i < f->g.cid_bytes; i++)
		buf[n++] = (u8)(cid >> (8 * i));
	return n + csemu_follow_addr(buf + n, at);
}

/*
 * What follow mode cannot evaluate: EL1 traced, cycle counting, a ViewInst
 * event other than resource 0 (FALSE) or 1 (TRUE), an address comparator
 * ViewInst uses that also compares the context (TRCACATRn.CONTEXTTYPE).
 */
static bool csemu_follow_unsupported(const struct csemu_fetm *f)
{
	const struct csgen_cfg *c = &f->g.cfg;
	u32 iectl = c->viiectlr, ss = f->vissctlr;
	u32 pairs = (iectl | (iectl >> 16)) & 0xff, singles = (ss | (ss >> 16)) & 0xffff;
	unsigned int n;

	if (!(c->victlr & TB_ETM_VICTLR_EXLEVEL_NS(1)) || f->g.cci ||
	    (c->victlr & TB_ETM_VICTLR_EVENT) > TB_ETM_VICTLR_EVENT_TRUE)
		return true;
	for (n = 0; n < ARRAY_SIZE(c->acatr); n++)
		if (((pairs >> (n / 2)) & 1 || (singles >> n) & 1) &&
		    (c->acatr[n] & TB_ETM_ACATR_CONTEXTTYPE))
			return true;
	return false;
}

/*
 * ViewInst for the EL0 instruction at addr (IHI0064, "The ViewInst
 * function"): active when the ViewInst event is (TRCVICTLR.EVENT, resource
 * 1 is TRUE), EL0 is not excluded (TRCVICTLR.EXLEVEL_NS), the
 * include/exclude ranges pass (TRCVIIECTLR over TRCACVR/TRCACATR pairs,
 * csgen_is_traced(), as the synthetic generator decides) and the
 * start/stop logic is started (TRCVISSCTLR, csgen_ss_step()). *both is
 * set when the instruction matches both a start and a stop comparator,
 * which is not modelled.
 *
 * Start/stop ("ViewInst start/stop control"): its state is
 * TRCVICTLR.SSSTATUS at the enable and follows the instructions the PE
 * executes, whether or not they are traced; the instruction at a start
 * point is traced (the logic is started from it on), the one at a stop
 * point is traced too and the logic is stopped after it. Single address
 * comparator k matches the instruction at TRCACVRk exactly, at an EL its
 * TRCACATRk allows (csgen_ac_match()). The state is written back to
 * TRCVICTLR.SSSTATUS, where the kernel's etm4_disable_hw() reads it.
 */
static bool csemu_follow_viewinst(struct csemu_fetm *f, u64 addr, bool *both)
{
	const struct csgen_cfg *c = &f->g.cfg;
	bool ss = csgen_ss_step(c, f->vissctlr, &f->started, addr, 0, both);

	return ss && (c->victlr & TB_ETM_VICTLR_EVENT) == TB_ETM_VICTLR_EVENT_TRUE &&
	       csgen_is_traced(&f->g, addr, 0);
}

/*
 * The packets of one retired instruction; 0 when nothing is traced.
 *
 * ViewInst decides per instruction (csemu_follow_viewinst()). An
 * instruction it excludes writes nothing, and neither does the
 * software step exception (or the SVC) after it: IHI0064 traces an
 * exception when the instruction or exception immediately before it is
 * traced (as TRCVICTLR.TRCERR and TRCRESET describe for SError and reset
 * when 0); the thread's next traced instruction starts, as every step
 * does, with Trace On, Context and Address ("Trace On element": after a
 * gap, an Address element before the next P0 element).
 *
 * A traced branch that leaves the traced code (to an instruction ViewInst
 * excludes): its atom, and for a taken indirect branch or return the
 * Address of the target, then the software step exception with the
 * target as its preferred return address, traced since the branch before
 * it was. IHI0064 leaves open here whether the target Address of the
 * last traced indirect branch is output when ViewInst is inactive for
 * the target; it is, because the traced exception that follows at once
 * needs it: without it a decoder walks from the instruction after the
 * branch to the exception's return address (OpenCSD's processException()).
 * The target instruction itself is never traced, and nothing is
 * traced until the thread's next instruction ViewInst includes.
 */
static unsigned int csemu_follow_step_pkts(struct csemu_fetm *f,
					   const struct ptemu_follow_step *s, u8 *buf)
{
	const struct csgen_cfg *c = &f->g.cfg;
	bool taken = s->taken & PTEMU_FS_TAKEN, both;
	unsigned int n = 0;

	if (c->victlr & TB_ETM_VICTLR_EXLEVEL_NS(0))
		return 0;			/* EL0 not traced */
	if (csemu_follow_unsupported(f)) {
		csemu_follow.unsupported++;
		return 0;
	}
	if (!csemu_follow_viewinst(f, s->from, &both) || both) {
		if (both)
			csemu_follow.unsupported++;
		return 0;
	}
	if (f->need_sync || (f->g.sync_period && f->since_sync >= f->g.sync_period))
		n += csemu_follow_sync(f, buf);
	f->need_sync = false;
	n += csemu_follow_trace_on(f, buf + n, s->from);
	if (s->taken & PTEMU_FS_P0) {
		if (csemu_follow.brk && !--csemu_follow.brk)
			taken = !taken;		/* follow_break: a wrong atom */
		buf[n++] = taken ? 0xf7 : 0xf6;		/* Atom F1: E or N */
		if (taken && (s->kind == PTEMU_F_IND || s->kind == PTEMU_F_RET || f->g.bb))
			n += csemu_follow_addr(buf + n, s->to);
	}
	if (s->kind == PTEMU_F_FAR) {
		n += csgen_enc_exception(buf + n, CSGEN_EXC_CALL);
		n += csemu_follow_addr(buf + n, s->from + s->len);
	} else if (s->to) {
		n += csgen_enc_exception(buf + n, CSEMU_EXC_INST_DEBUG);
		n += csemu_follow_addr(buf + n, s->to);
	}
	f->since_sync += n;
	return n;
}

/* TRCPRGCTLR.EN 0->1 in follow mode: its start bytes come with its first step. */
static void csemu_follow_enable(struct csemu_etm *e, const struct csgen_cfg *cfg)
{
	struct csemu_fetm *f = &csemu_follow.fe[e->cpu];

	memset(&f->g, 0, sizeof(f->g));
	f->g.cfg = *cfg;
	csgen_derive(&f->g);
	f->vissctlr = e->regs[TB_ETM_TRCVISSCTLR / 4];
	f->started = cfg->victlr & TB_ETM_VICTLR_SSSTATUS;
	f->enabled = true;
	f->need_sync = true;
	e->nstart = 0;
}

/*
 * TRCPRGCTLR.EN 1->0 on the unit's CPU, under csemu_lock: the packets of
 * the current thread's steps, in order.
 */
static void csemu_follow_flush(struct csemu_etm *e)
{
	struct csemu_fetm *f = &csemu_follow.fe[e->cpu];
	struct csemu_fthread *t = NULL;
	struct ptemu_follow_step s;
	pid_t tid = current->pid;
	u8 buf[CSEMU_FSTEP_MAX];
	unsigned int i, n;

	for (i = 0; i < CSEMU_FTHREADS && tid; i++)
		if (csemu_follow.th[i].tid == tid)
			t = &csemu_follow.th[i];
	while (t && t->tail != t->head) {
		s = t->q[t->tail++ % CSEMU_FQUEUE];
		n = csemu_follow_step_pkts(f, &s, buf);
		csemu_etm_emit(e, buf, n);
		f->steps++;
		f->bytes += n;
	}
	/* TRCVICTLR.SSSTATUS: the start/stop logic's state, read while idle. */
	if (!f->enabled)
		return;
	f->enabled = false;
	e->regs[TB_ETM_TRCVICTLR / 4] &= ~TB_ETM_VICTLR_SSSTATUS;
	if (f->started)
		e->regs[TB_ETM_TRCVICTLR / 4] |= TB_ETM_VICTLR_SSSTATUS;
}

static void csemu_follow_add(const struct ptemu_follow_step *s)
{
	struct csemu_fthread *t = NULL, *free = NULL;
	unsigned int i;

	for (i = 0; i < CSEMU_FTHREADS; i++) {
		if (csemu_follow.th[i].tid == s->tid)
			t = &csemu_follow.th[i];
		else if (!csemu_follow.th[i].tid && !free)
			free = &csemu_follow.th[i];
	}
	if (!t && free) {
		t = free;
		t->tid = s->tid;
		t->head = 0;
		t->tail = 0;
	}
	if (!t || t->head - t->tail == CSEMU_FQUEUE) {
		csemu_follow.dropped++;
		return;
	}
	t->q[t->head++ % CSEMU_FQUEUE] = *s;
	csemu_follow.queued++;
}

static ssize_t csemu_follow_write(struct file *file, const char __user *ubuf,
				  size_t len, loff_t *ppos)
{
	struct ptemu_follow_step s;
	unsigned long flags;
	unsigned int i;
	size_t done;

	if (len % sizeof(s))
		return -EINVAL;
	if (!csemu_follow.th)
		return -ENOMEM;
	for (done = 0; done < len; done += sizeof(s)) {
		if (copy_from_user(&s, ubuf + done, sizeof(s)))
			return -EFAULT;
		/* The queues are the flushes' too (csemu_etm_disable()). */
		raw_spin_lock_irqsave(&csemu_lock, flags);
		if (s.kind == PTEMU_F_RESET) {
			for (i = 0; i < CSEMU_FTHREADS; i++) {
				csemu_follow.th[i].tid = 0;
				csemu_follow.th[i].head = 0;
				csemu_follow.th[i].tail = 0;
			}
		} else {
			csemu_follow_add(&s);
		}
		raw_spin_unlock_irqrestore(&csemu_lock, flags);
	}
	return len;
}

static const struct file_operations csemu_follow_fops = {
	.owner	= THIS_MODULE,
	.open	= simple_open,
	.write	= csemu_follow_write,
	.llseek	= noop_llseek,
};

static int csemu_follow_stats_show(struct seq_file *m, void *v)
{
	u64 steps = 0, bytes = 0, pending = 0;
	unsigned long flags;
	unsigned int cpu, i;

	raw_spin_lock_irqsave(&csemu_lock, flags);	/* a snapshot */
	for (cpu = 0; cpu < nr_cpu_ids; cpu++) {
		steps += csemu_follow.fe[cpu].steps;
		bytes += csemu_follow.fe[cpu].bytes;
	}
	for (i = 0; i < CSEMU_FTHREADS; i++)
		pending += csemu_follow.th[i].head - csemu_follow.th[i].tail;
	seq_printf(m, "queued %llu\nwritten %llu\nbytes %llu\npending %llu\n",
		   csemu_follow.queued, steps, bytes, pending);
	seq_printf(m, "dropped %llu\nunsupported %llu\n", csemu_follow.dropped,
		   csemu_follow.unsupported);
	raw_spin_unlock_irqrestore(&csemu_lock, flags);
	return 0;
}
DEFINE_SHOW_ATTRIBUTE(csemu_follow_stats);

/* At init (csemu_core.c); freed by csemu_follow_exit() once debugfs is gone. */
void csemu_follow_debugfs(struct dentry *dir)
{
	csemu_follow.th = vzalloc(CSEMU_FTHREADS * sizeof(*csemu_follow.th));
	csemu_follow.fe = vzalloc(nr_cpu_ids * sizeof(*csemu_follow.fe));
	if (!csemu_follow.th || !csemu_follow.fe) {
		vfree(csemu_follow.th);
		vfree(csemu_follow.fe);
		csemu_follow.th = NULL;
		csemu_follow.fe = NULL;
		return;
	}
	debugfs_create_file("follow", 0200, dir, NULL, &csemu_follow_fops);
	debugfs_create_bool("follow_mode", 0600, dir, &csemu_follow.on);
	debugfs_create_file("follow_stats", 0400, dir, NULL, &csemu_follow_stats_fops);
	/* Read and written without csemu_lock: a test knob, set before the run. */
	debugfs_create_u64("follow_break", 0600, dir, &csemu_follow.brk);
}

/* After debugfs is gone and every unit stopped. */
void csemu_follow_exit(void)
{
	vfree(csemu_follow.th);
	vfree(csemu_follow.fe);
	csemu_follow.th = NULL;
	csemu_follow.fe = NULL;
}

#endif /* TB_CSEMU_FOLLOW_H */
