// SPDX-License-Identifier: GPL-2.0
/*
 * tb_producer - tests-only module: hammer a tracebuf data ring with
 * TRACEBUF_REC_TEST records from task (a thread per CPU), softirq (a soft
 * hrtimer per CPU) and hardirq (a hard hrtimer per CPU) context, on every
 * online CPU at once. One run at a time; the file that started it owns it.
 *
 * Each (CPU, context) pair numbers its records; a record that did not fit
 * still consumes its number, so the consumer can check that every number
 * is either delivered once or covered by the loss count.
 *
 * CPU hotplug. Whatever a (CPU, context) pair writes is written on that
 * CPU, hotplug or not, as the kernel's own per-CPU work does it:
 *  - the task context is a per-CPU smpboot thread, like ksoftirqd
 *    (kernel/softirq.c, softirq_threads; kernel/smpboot.c parks it on its
 *    CPU before the CPU dies and unparks it there when the CPU is back);
 *  - the timers are started pinned on their CPU, cancelled on the dying
 *    CPU by our hotplug teardown and re-armed by the startup callback on
 *    the CPU coming back, like the soft-lockup watchdog's per-CPU hrtimer
 *    (kernel/watchdog.c: lockup_detector_offline_cpu() -> watchdog_disable()
 *    -> hrtimer_cancel(); lockup_detector_online_cpu() -> watchdog_enable()
 *    -> hrtimer_start(..., HRTIMER_MODE_REL_PINNED_HARD)).
 * A timer left queued is moved to a live CPU by hrtimers_cpu_dying()
 * (kernel/time/hrtimer.c: every timer, pinned or not) and runs there: the
 * NMI one then sends its self-NMI to a CPU whose handler expects none
 * ("NMI received for unknown reason", on every period, until the guest
 * starves). START, STOP and the callbacks are serialised by the hotplug
 * lock (cpus_read_lock() on our side).
 */
#include <linux/cpu.h>
#include <linux/cpuhotplug.h>
#include <linux/delay.h>
#include <linux/fs.h>
#include <linux/hrtimer.h>
#include <linux/irq_work.h>
#include <linux/miscdevice.h>
#include <linux/module.h>
#include <linux/percpu.h>
#include <linux/sched.h>
#include <linux/slab.h>
#include <linux/smpboot.h>
#include <linux/uaccess.h>
#include <linux/wait.h>
#ifdef CONFIG_X86_LOCAL_APIC
#include <asm/apic.h>
#include <asm/nmi.h>
#define TBP_HAVE_NMI 1
#else
#define TBP_HAVE_NMI 0
#endif

#include "ring.h"
#include "tb_producer.h"

struct tbp_cpu {
	/* [SOFTIRQ], [HARDIRQ], and [NMI]: the hard timer that sends self-NMIs */
	struct hrtimer timer[TBP_NR_CTX];
	atomic_t nmi_expected;		/* self-NMIs sent and not yet taken */
	struct task_struct *task;	/* the smpboot thread: the task context */
	unsigned long live;		/* bit ctx: unit of this run not yet done */
	unsigned int cpu;
	/* Each counter is written only by its own context on this CPU. */
	u64 seq[TBP_NR_CTX];
	u64 ok[TBP_NR_CTX];
	u64 failed[TBP_NR_CTX];
};

static struct {
	struct mutex lock;		/* one run at a time; START/STOP/WAIT */
	struct file *owner;		/* the file that started the run */
	struct tb_ring *rb;		/* holds a reference on the session */
	struct tbp_start cfg;
	struct tbp_cpu __percpu *pc;
	cpumask_var_t cpus;		/* CPUs of this run */
	atomic_t active;		/* (CPU, context) units not yet done */
	bool stopping;
	bool threads;			/* tbp_threads registered */
	/* Hotplug callbacks for CPUs of the run; under the hotplug lock. */
	u32 cpu_offline, cpu_online;
	wait_queue_head_t done_wq;
	/*
	 * Wakes done_wq: a unit ends in a hard hrtimer too, where a wait
	 * queue's spinlock_t must not be taken (it sleeps on PREEMPT_RT).
	 */
	struct irq_work done_work;
	int hp_state;			/* our dynamic hotplug state */
} tbp;

/* The record's fields and payload, from its number. */
static void tbp_fill(struct tracebuf_rec_test *t, struct tbp_cpu *pc, int ctx, u64 seq)
{
	u8 *p = (u8 *)(t + 1);
	u32 i;

	t->seq = seq;
	t->producer = pc->cpu;
	t->context = ctx;
	t->reserved = 0;
	/* The size we asked for: the header is in user-mapped memory. */
	for (i = 0; i < tbp.cfg.size - sizeof(*t); i++)
		p[i] = (u8)(seq * 31 + i);
}

/*
 * Up to n records of this (CPU, context): one tracebuf_reserve() each, or
 * with TBP_F_BATCH one tracebuf_reserve_batch() for all n (those that did
 * not fit are the last numbers, counted lost).
 */
static void tbp_produce(struct tbp_cpu *pc, int ctx, u32 n)
{
	/* NULL once tbp_teardown() started: a self-NMI still in flight. */
	struct tb_ring *rb = READ_ONCE(tbp.rb);
	struct tracebuf_wr wr;
	u32 i, k;

	n = min_t(u64, n, tbp.cfg.count - pc->seq[ctx]);
	if (!(tbp.cfg.flags & TBP_F_BATCH)) {
		for (i = 0; i < n; i++) {
			u64 seq = pc->seq[ctx]++;

			/* tracebuf_reserve()'s rule: no preemption until the commit. */
			preempt_disable();
			if (!rb || tracebuf_reserve(rb, TRACEBUF_REC_TEST, tbp.cfg.size, &wr)) {
				preempt_enable();
				pc->failed[ctx]++;
				continue;
			}
			tbp_fill((struct tracebuf_rec_test *)wr.rec, pc, ctx, seq);
			tracebuf_commit(rb, &wr);
			preempt_enable();
			pc->ok[ctx]++;
		}
		return;
	}
	preempt_disable();
	k = rb ? tracebuf_reserve_batch(rb, TRACEBUF_REC_TEST, tbp.cfg.size, n, &wr) : 0;
	for (i = 0; i < k; i++)
		tbp_fill((void *)wr.rec + i * wr.size, pc, ctx, pc->seq[ctx] + i);
	if (k)
		tracebuf_commit(rb, &wr);
	preempt_enable();
	pc->seq[ctx] += n;
	pc->ok[ctx] += k;
	pc->failed[ctx] += n - k;
}

/*
 * A (CPU, context) unit is done: once, whoever finds it first (its own
 * context, or the teardown after everything is stopped).
 */
static void tbp_unit_done(struct tbp_cpu *pc, int ctx)
{
	if (!test_and_clear_bit(ctx, &pc->live))
		return;
	if (atomic_dec_and_test(&tbp.active))
		irq_work_queue(&tbp.done_work);
}

static void tbp_done_work(struct irq_work *w)
{
	wake_up_all(&tbp.done_wq);
}

/*
 * A timer callback running off its CPU: our hotplug teardown failed to
 * cancel it before its CPU died. End the unit rather than write records
 * (or send self-NMIs) from the wrong CPU.
 */
static bool tbp_wrong_cpu(struct tbp_cpu *pc, int ctx)
{
	if (!WARN_ON_ONCE(pc->cpu != smp_processor_id()))
		return false;
	tbp_unit_done(pc, ctx);
	return true;
}

static enum hrtimer_restart tbp_timer_fn(struct hrtimer *t)
{
	struct tbp_cpu *pc;
	int ctx = in_hardirq() ? TRACEBUF_CTX_HARDIRQ : TRACEBUF_CTX_SOFTIRQ;

	pc = container_of(t, struct tbp_cpu, timer[ctx]);
	if (tbp_wrong_cpu(pc, ctx))
		return HRTIMER_NORESTART;
	tbp_produce(pc, ctx, tbp.cfg.batch);
	if (pc->seq[ctx] >= tbp.cfg.count || READ_ONCE(tbp.stopping)) {
		tbp_unit_done(pc, ctx);
		return HRTIMER_NORESTART;
	}
	hrtimer_forward_now(t, ns_to_ktime(tbp.cfg.period_ns));
	return HRTIMER_RESTART;
}

#if TBP_HAVE_NMI
/* NMI context: a batch of records, nested inside whatever was running. */
static int tbp_nmi_handler(unsigned int cmd, struct pt_regs *regs)
{
	struct tbp_cpu *pc = this_cpu_ptr(tbp.pc);

	if (atomic_add_unless(&pc->nmi_expected, -1, 0) == 0)
		return NMI_DONE;	/* not ours: let the next handler look */
	tbp_produce(pc, TRACEBUF_CTX_NMI, tbp.cfg.batch);
	return NMI_HANDLED;
}

/* Hard timer: send this CPU an NMI; its handler writes the records. */
static enum hrtimer_restart tbp_nmi_timer_fn(struct hrtimer *t)
{
	struct tbp_cpu *pc = container_of(t, struct tbp_cpu, timer[TRACEBUF_CTX_NMI]);

	/* Only ever a self-NMI on the CPU whose handler expects it. */
	if (tbp_wrong_cpu(pc, TRACEBUF_CTX_NMI))
		return HRTIMER_NORESTART;
	if (pc->seq[TRACEBUF_CTX_NMI] >= tbp.cfg.count || READ_ONCE(tbp.stopping)) {
		tbp_unit_done(pc, TRACEBUF_CTX_NMI);
		return HRTIMER_NORESTART;
	}
	/* Before the IPI: pairs with the handler's decrement on this CPU. */
	atomic_inc(&pc->nmi_expected);
	apic->send_IPI(smp_processor_id(), NMI_VECTOR);
	hrtimer_forward_now(t, ns_to_ktime(tbp.cfg.period_ns));
	return HRTIMER_RESTART;
}
#endif

/*
 * The task context: smpboot calls this on its CPU, preemptible, for as
 * long as tbp_thread_should_run(); it parks and unparks the thread around
 * CPU hotplug (on that CPU: it is a per-CPU kthread).
 */
static int tbp_thread_should_run(unsigned int cpu)
{
	return test_bit(TRACEBUF_CTX_TASK, &per_cpu_ptr(tbp.pc, cpu)->live);
}

static void tbp_thread_fn(unsigned int cpu)
{
	struct tbp_cpu *pc = per_cpu_ptr(tbp.pc, cpu);
	bool paced = tbp.cfg.flags & TBP_F_PACE_TASK;
	bool batch = tbp.cfg.flags & TBP_F_BATCH;
	u32 n = paced || batch ? tbp.cfg.batch : 64;

	tbp_produce(pc, TRACEBUF_CTX_TASK, n);
	if (pc->seq[TRACEBUF_CTX_TASK] >= tbp.cfg.count || READ_ONCE(tbp.stopping)) {
		tbp_unit_done(pc, TRACEBUF_CTX_TASK);
		return;
	}
	if (paced) {
		u64 us = max_t(u64, div_u64(tbp.cfg.period_ns, NSEC_PER_USEC), 1);

		usleep_range(us, us + us / 4);
	} else {
		/* smpboot's loop does not reschedule (run_ksoftirqd() does this too). */
		cond_resched();
	}
}

static struct smp_hotplug_thread tbp_threads = {
	.store			= NULL,		/* &tbp.pc->task per CPU, at init */
	.thread_should_run	= tbp_thread_should_run,
	.thread_fn		= tbp_thread_fn,
	.thread_comm		= "tbp/%u",
};

/* On the CPU itself (IPI or hotplug startup), so the timers are pinned there. */
static void tbp_start_timers(void *arg)
{
	struct tbp_cpu *pc = arg;
	ktime_t period = ns_to_ktime(tbp.cfg.period_ns);

	if (test_bit(TRACEBUF_CTX_HARDIRQ, &pc->live))
		hrtimer_start(&pc->timer[TRACEBUF_CTX_HARDIRQ], period,
			      HRTIMER_MODE_REL_PINNED_HARD);
	if (test_bit(TRACEBUF_CTX_SOFTIRQ, &pc->live))
		hrtimer_start(&pc->timer[TRACEBUF_CTX_SOFTIRQ], period,
			      HRTIMER_MODE_REL_PINNED_SOFT);
	if (test_bit(TRACEBUF_CTX_NMI, &pc->live))
		hrtimer_start(&pc->timer[TRACEBUF_CTX_NMI], period,
			      HRTIMER_MODE_REL_PINNED_HARD);
}

/*
 * Cancel a CPU's timers. A unit whose timer is cancelled stays live: the
 * hotplug startup callback re-arms it, the teardown ends it.
 */
static void tbp_cancel_timers(struct tbp_cpu *pc)
{
	int ctx;

	for (ctx = TRACEBUF_CTX_SOFTIRQ; ctx < TBP_NR_CTX; ctx++)
		hrtimer_cancel(&pc->timer[ctx]);
}

/* A CPU of the run goes down: on it, task context, before it dies. */
static int tbp_cpu_offline(unsigned int cpu)
{
	/* The hotplug lock orders this against START and the teardown. */
	if (!tbp.rb || !cpumask_test_cpu(cpu, tbp.cpus))
		return 0;
	tbp.cpu_offline++;
	tbp_cancel_timers(per_cpu_ptr(tbp.pc, cpu));
	return 0;
}

/* A CPU of the run is back: on it, task context (a pinned cpuhp thread). */
static int tbp_cpu_online(unsigned int cpu)
{
	struct tbp_cpu *pc = per_cpu_ptr(tbp.pc, cpu);
	unsigned long flags;

	if (!tbp.rb || !cpumask_test_cpu(cpu, tbp.cpus))
		return 0;
	tbp.cpu_online++;
	if (READ_ONCE(tbp.stopping))
		return 0;
	local_irq_save(flags);	/* as in the IPI: nothing runs in between */
	tbp_start_timers(pc);
	local_irq_restore(flags);
	return 0;
}

/* Stop everything and drop the ring. Under tbp.lock. */
static void tbp_teardown(void)
{
	struct tb_ring *rb;
	unsigned int cpu;
	int ctx;

	if (!tbp.rb)
		return;
	WRITE_ONCE(tbp.stopping, true);
	/* Takes the hotplug lock itself: parks and stops every thread. */
	if (tbp.threads)
		smpboot_unregister_percpu_thread(&tbp_threads);
	tbp.threads = false;
	cpus_read_lock();	/* no hotplug callback re-arms a timer now */
	for_each_cpu(cpu, tbp.cpus) {
		struct tbp_cpu *pc = per_cpu_ptr(tbp.pc, cpu);

		tbp_cancel_timers(pc);
		/* Nothing runs any more: end what was cut short. */
		for (ctx = 0; ctx < TBP_NR_CTX; ctx++)
			tbp_unit_done(pc, ctx);
	}
	/*
	 * A self-NMI sent before the timers were cancelled may still be on
	 * its way: its handler finds rb NULL, and synchronize_rcu() waits
	 * for any handler already running (NMI handlers are RCU readers).
	 */
	rb = tbp.rb;
	WRITE_ONCE(tbp.rb, NULL);
	synchronize_rcu();
	tracebuf_ring_put(rb);
	tbp.owner = NULL;
	cpus_read_unlock();
}

static void tbp_stats(struct tbp_stats *st)
{
	unsigned int cpu;
	int ctx;

	memset(st, 0, sizeof(*st));
	for_each_cpu(cpu, tbp.cpus) {
		struct tbp_cpu *pc = per_cpu_ptr(tbp.pc, cpu);

		for (ctx = 0; ctx < TBP_NR_CTX; ctx++) {
			st->attempted[ctx] += pc->seq[ctx];
			st->ok[ctx] += pc->ok[ctx];
			st->failed[ctx] += pc->failed[ctx];
		}
		st->nr_cpus++;
	}
	st->done = !atomic_read(&tbp.active);
	st->cpu_offline = tbp.cpu_offline;
	st->cpu_online = tbp.cpu_online;
}

static long tbp_start(struct file *file, void __user *arg)
{
	struct tbp_start cfg;
	unsigned int cpu;
	struct tb_ring *rb;
	int ctx, units = 0;

	if (copy_from_user(&cfg, arg, sizeof(cfg)))
		return -EFAULT;
	if (!cfg.contexts || cfg.contexts & ~GENMASK(TBP_NR_CTX - 1, 0) ||
	    cfg.size < sizeof(struct tracebuf_rec_test) || cfg.size > 65536 ||
	    !cfg.batch || !cfg.count || cfg.period_ns < 1000 ||
	    cfg.flags & ~(TBP_F_PACE_TASK | TBP_F_BATCH) || cfg.reserved)
		return -EINVAL;
	if (!TBP_HAVE_NMI && cfg.contexts & BIT(TRACEBUF_CTX_NMI))
		return -EOPNOTSUPP;
	if (tbp.rb)
		return -EBUSY;
	rb = tracebuf_ring_get(cfg.fd);
	if (IS_ERR(rb))
		return PTR_ERR(rb);

	/* The CPUs of the run stay as they are until the timers run. */
	cpus_read_lock();
	tbp.rb = rb;
	tbp.owner = file;
	tbp.cfg = cfg;
	tbp.stopping = false;
	tbp.cpu_offline = 0;
	tbp.cpu_online = 0;
	cpumask_copy(tbp.cpus, cpu_online_mask);
	for_each_possible_cpu(cpu) {
		struct tbp_cpu *pc = per_cpu_ptr(tbp.pc, cpu);

		memset(pc->seq, 0, sizeof(pc->seq));
		memset(pc->ok, 0, sizeof(pc->ok));
		memset(pc->failed, 0, sizeof(pc->failed));
		atomic_set(&pc->nmi_expected, 0);
		pc->live = 0;
		if (!cpumask_test_cpu(cpu, tbp.cpus))
			continue;
		for (ctx = 0; ctx < TBP_NR_CTX; ctx++)
			if (cfg.contexts & BIT(ctx)) {
				set_bit(ctx, &pc->live);
				units++;
			}
	}
	atomic_set(&tbp.active, units);
	for_each_cpu(cpu, tbp.cpus)
		smp_call_function_single(cpu, tbp_start_timers, per_cpu_ptr(tbp.pc, cpu), 1);
	cpus_read_unlock();

	/*
	 * Takes the hotplug lock itself. Its threads run at once on the
	 * CPUs that are online, and on the others when they come up (where
	 * tbp_thread_should_run() only lets CPUs of the run produce).
	 */
	if (cfg.contexts & BIT(TRACEBUF_CTX_TASK)) {
		int ret = smpboot_register_percpu_thread(&tbp_threads);

		if (ret) {
			tbp_teardown();
			return ret;
		}
		tbp.threads = true;
	}
	return 0;
}

/* RING_STATS: for tests that cannot see the control page (read() consumers). */
static long tbp_ring_stats(void __user *uarg)
{
	struct tbp_ring_stats rs;
	struct tb_ring *rb;

	if (copy_from_user(&rs, uarg, sizeof(rs)))
		return -EFAULT;
	if (rs.reserved)
		return -EINVAL;
	rb = tracebuf_ring_get(rs.fd);	/* holds the file until the put */
	if (IS_ERR(rb))
		return PTR_ERR(rb);
	rs.wakeups = atomic64_read(&rb->wakeups);
	rs.written = atomic64_read(&rb->written);
	rs.lost = atomic64_read(&rb->lost_total);
	tracebuf_ring_put(rb);
	return copy_to_user(uarg, &rs, sizeof(rs)) ? -EFAULT : 0;
}

static long tbp_ioctl(struct file *file, unsigned int cmd, unsigned long arg)
{
	void __user *uarg = (void __user *)arg;
	struct tbp_stats st;
	long ret = 0;

	if (cmd == TBP_IOC_RING_STATS)
		return tbp_ring_stats(uarg);
	mutex_lock(&tbp.lock);
	switch (cmd) {
	case TBP_IOC_START:
		ret = tbp_start(file, uarg);
		break;
	case TBP_IOC_WAIT:
		if (!tbp.rb || tbp.owner != file) {
			ret = -ENXIO;
			break;
		}
		mutex_unlock(&tbp.lock);
		ret = wait_event_interruptible(tbp.done_wq, !atomic_read(&tbp.active));
		mutex_lock(&tbp.lock);
		if (ret)
			break;
		fallthrough;
	case TBP_IOC_STOP:
		if (!tbp.rb || tbp.owner != file) {
			ret = -ENXIO;
			break;
		}
		tbp_teardown();
		tbp_stats(&st);
		break;
	default:
		ret = -ENOTTY;
	}
	mutex_unlock(&tbp.lock);
	if (!ret && cmd != TBP_IOC_START && copy_to_user(uarg, &st, sizeof(st)))
		ret = -EFAULT;
	return ret;
}

static int tbp_release(struct inode *inode, struct file *file)
{
	mutex_lock(&tbp.lock);
	if (tbp.owner == file)
		tbp_teardown();
	mutex_unlock(&tbp.lock);
	return 0;
}

static const struct file_operations tbp_fops = {
	.owner		= THIS_MODULE,
	.release	= tbp_release,
	.unlocked_ioctl	= tbp_ioctl,
};

static struct miscdevice tbp_dev = {
	.minor	= MISC_DYNAMIC_MINOR,
	.name	= "tb_producer",
	.fops	= &tbp_fops,
	.mode	= 0600,
};

static int __init tbp_init(void)
{
	unsigned int cpu;
	int ctx, ret;

	mutex_init(&tbp.lock);
	init_waitqueue_head(&tbp.done_wq);
	init_irq_work(&tbp.done_work, tbp_done_work);
	if (!zalloc_cpumask_var(&tbp.cpus, GFP_KERNEL))
		return -ENOMEM;
	tbp.pc = alloc_percpu(struct tbp_cpu);
	if (!tbp.pc) {
		free_cpumask_var(tbp.cpus);
		return -ENOMEM;
	}
	for_each_possible_cpu(cpu) {
		struct tbp_cpu *pc = per_cpu_ptr(tbp.pc, cpu);

		pc->cpu = cpu;
		for (ctx = TRACEBUF_CTX_SOFTIRQ; ctx < TBP_NR_CTX; ctx++) {
			hrtimer_init(&pc->timer[ctx], CLOCK_MONOTONIC,
				     ctx == TRACEBUF_CTX_SOFTIRQ ?
				     HRTIMER_MODE_REL_PINNED_SOFT :
				     HRTIMER_MODE_REL_PINNED_HARD);
			pc->timer[ctx].function = tbp_timer_fn;
		}
#if TBP_HAVE_NMI
		pc->timer[TRACEBUF_CTX_NMI].function = tbp_nmi_timer_fn;
#endif
	}
	tbp_threads.store = &tbp.pc->task;
	/* No run yet: the callbacks find tbp.rb NULL and do nothing. */
	ret = cpuhp_setup_state_nocalls(CPUHP_AP_ONLINE_DYN, "tb_producer:online",
					tbp_cpu_online, tbp_cpu_offline);
	if (ret < 0)
		goto err_free;
	tbp.hp_state = ret;
#if TBP_HAVE_NMI
	ret = register_nmi_handler(NMI_LOCAL, tbp_nmi_handler, 0, "tb_producer");
	if (ret)
		goto err_hp;
#endif
	ret = misc_register(&tbp_dev);
	if (ret)
		goto err_nmi;
	return 0;

err_nmi:
#if TBP_HAVE_NMI
	unregister_nmi_handler(NMI_LOCAL, "tb_producer");
err_hp:
#endif
	cpuhp_remove_state_nocalls(tbp.hp_state);
err_free:
	free_percpu(tbp.pc);
	free_cpumask_var(tbp.cpus);
	return ret;
}

static void __exit tbp_exit(void)
{
	/* No file is open (it pins us), so no run. */
	misc_deregister(&tbp_dev);
#if TBP_HAVE_NMI
	unregister_nmi_handler(NMI_LOCAL, "tb_producer");
#endif
	cpuhp_remove_state_nocalls(tbp.hp_state);
	irq_work_sync(&tbp.done_work);	/* queued by the last unit to end */
	free_percpu(tbp.pc);
	free_cpumask_var(tbp.cpus);
}

module_init(tbp_init);
module_exit(tbp_exit);
MODULE_DESCRIPTION("tracebuf tests: concurrent record producer");
MODULE_LICENSE("GPL");
