// SPDX-License-Identifier: GPL-2.0
/*
 * tb_producer - tests-only module: hammer a tracebuf data ring with
 * TRACEBUF_REC_TEST records from task (a kthread per CPU), softirq (a soft
 * hrtimer per CPU) and hardirq (a hard hrtimer per CPU) context, on every
 * online CPU at once. One run at a time; the file that started it owns it.
 *
 * Each (CPU, context) pair numbers its records; a record that did not fit
 * still consumes its number, so the consumer can check that every number
 * is either delivered once or covered by the loss count.
 */
#include <linux/cpu.h>
#include <linux/fs.h>
#include <linux/hrtimer.h>
#include <linux/kthread.h>
#include <linux/miscdevice.h>
#include <linux/module.h>
#include <linux/percpu.h>
#include <linux/sched.h>
#include <linux/slab.h>
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
	struct task_struct *task;
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
	wait_queue_head_t done_wq;
} tbp;

static void tbp_produce(struct tbp_cpu *pc, int ctx)
{
	struct tracebuf_rec_test *t;
	struct tracebuf_wr wr;
	u64 seq = pc->seq[ctx]++;
	u8 *p;
	u32 i;

	if (tracebuf_reserve(tbp.rb, TRACEBUF_REC_TEST, tbp.cfg.size, &wr)) {
		pc->failed[ctx]++;
		return;
	}
	t = (struct tracebuf_rec_test *)wr.rec;
	t->seq = seq;
	t->producer = pc->cpu;
	t->context = ctx;
	t->reserved = 0;
	p = (u8 *)(t + 1);
	for (i = 0; i < wr.rec->hdr.size - sizeof(*t); i++)
		p[i] = (u8)(seq * 31 + i);
	tracebuf_commit(tbp.rb, &wr);
	pc->ok[ctx]++;
}

static void tbp_unit_done(void)
{
	if (atomic_dec_and_test(&tbp.active))
		wake_up_all(&tbp.done_wq);
}

static enum hrtimer_restart tbp_timer_fn(struct hrtimer *t)
{
	struct tbp_cpu *pc;
	int ctx = in_hardirq() ? TRACEBUF_CTX_HARDIRQ : TRACEBUF_CTX_SOFTIRQ;
	u32 i;

	pc = container_of(t, struct tbp_cpu, timer[ctx]);
	for (i = 0; i < tbp.cfg.batch && pc->seq[ctx] < tbp.cfg.count; i++)
		tbp_produce(pc, ctx);
	if (pc->seq[ctx] >= tbp.cfg.count || READ_ONCE(tbp.stopping)) {
		tbp_unit_done();
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
	u32 i;

	if (atomic_add_unless(&pc->nmi_expected, -1, 0) == 0)
		return NMI_DONE;	/* not ours: let the next handler look */
	for (i = 0; i < tbp.cfg.batch && pc->seq[TRACEBUF_CTX_NMI] < tbp.cfg.count; i++)
		tbp_produce(pc, TRACEBUF_CTX_NMI);
	return NMI_HANDLED;
}

/* Hard timer: send this CPU an NMI; its handler writes the records. */
static enum hrtimer_restart tbp_nmi_timer_fn(struct hrtimer *t)
{
	struct tbp_cpu *pc = container_of(t, struct tbp_cpu, timer[TRACEBUF_CTX_NMI]);

	if (pc->seq[TRACEBUF_CTX_NMI] >= tbp.cfg.count || READ_ONCE(tbp.stopping)) {
		tbp_unit_done();
		return HRTIMER_NORESTART;
	}
	atomic_inc(&pc->nmi_expected);
	apic->send_IPI(smp_processor_id(), NMI_VECTOR);
	hrtimer_forward_now(t, ns_to_ktime(tbp.cfg.period_ns));
	return HRTIMER_RESTART;
}
#endif

static int tbp_thread_fn(void *arg)
{
	struct tbp_cpu *pc = arg;

	while (pc->seq[TRACEBUF_CTX_TASK] < tbp.cfg.count && !READ_ONCE(tbp.stopping)) {
		tbp_produce(pc, TRACEBUF_CTX_TASK);
		if (!(pc->seq[TRACEBUF_CTX_TASK] % 64))
			cond_resched();
	}
	tbp_unit_done();
	while (!kthread_should_stop()) {
		set_current_state(TASK_INTERRUPTIBLE);
		if (!kthread_should_stop())
			schedule();
		__set_current_state(TASK_RUNNING);
	}
	return 0;
}

/* On the target CPU, so the timers are pinned there. */
static void tbp_start_timers(void *arg)
{
	struct tbp_cpu *pc = arg;
	ktime_t period = ns_to_ktime(tbp.cfg.period_ns);

	if (tbp.cfg.contexts & BIT(TRACEBUF_CTX_HARDIRQ))
		hrtimer_start(&pc->timer[TRACEBUF_CTX_HARDIRQ], period,
			      HRTIMER_MODE_REL_PINNED_HARD);
	if (tbp.cfg.contexts & BIT(TRACEBUF_CTX_SOFTIRQ))
		hrtimer_start(&pc->timer[TRACEBUF_CTX_SOFTIRQ], period,
			      HRTIMER_MODE_REL_PINNED_SOFT);
	if (tbp.cfg.contexts & BIT(TRACEBUF_CTX_NMI))
		hrtimer_start(&pc->timer[TRACEBUF_CTX_NMI], period,
			      HRTIMER_MODE_REL_PINNED_HARD);
}

/* Stop everything and drop the ring. Under tbp.lock. */
static void tbp_teardown(void)
{
	unsigned int cpu;

	if (!tbp.rb)
		return;
	WRITE_ONCE(tbp.stopping, true);
	for_each_cpu(cpu, tbp.cpus) {
		struct tbp_cpu *pc = per_cpu_ptr(tbp.pc, cpu);
		int ctx;

		for (ctx = TRACEBUF_CTX_SOFTIRQ; ctx < TBP_NR_CTX; ctx++)
			if (hrtimer_cancel(&pc->timer[ctx]))
				tbp_unit_done();	/* cancelled before it finished */
		if (pc->task) {
			kthread_stop(pc->task);
			put_task_struct(pc->task);
			pc->task = NULL;
		}
	}
	tracebuf_ring_put(tbp.rb);
	tbp.rb = NULL;
	tbp.owner = NULL;
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
	    !cfg.batch || !cfg.count || cfg.period_ns < 1000)
		return -EINVAL;
	if (!TBP_HAVE_NMI && cfg.contexts & BIT(TRACEBUF_CTX_NMI))
		return -EOPNOTSUPP;
	if (tbp.rb)
		return -EBUSY;
	rb = tracebuf_ring_get(cfg.fd);
	if (IS_ERR(rb))
		return PTR_ERR(rb);

	tbp.rb = rb;
	tbp.owner = file;
	tbp.cfg = cfg;
	tbp.stopping = false;
	cpumask_copy(tbp.cpus, cpu_online_mask);
	for_each_cpu(cpu, tbp.cpus) {
		struct tbp_cpu *pc = per_cpu_ptr(tbp.pc, cpu);

		memset(pc->seq, 0, sizeof(pc->seq));
		memset(pc->ok, 0, sizeof(pc->ok));
		memset(pc->failed, 0, sizeof(pc->failed));
		atomic_set(&pc->nmi_expected, 0);
		pc->cpu = cpu;
		for (ctx = 0; ctx < TBP_NR_CTX; ctx++)
			if (cfg.contexts & BIT(ctx))
				units++;
	}
	atomic_set(&tbp.active, units);

	for_each_cpu(cpu, tbp.cpus) {
		struct tbp_cpu *pc = per_cpu_ptr(tbp.pc, cpu);

		if (cfg.contexts & BIT(TRACEBUF_CTX_TASK)) {
			pc->task = kthread_create_on_cpu(tbp_thread_fn, pc, cpu, "tbp/%u");
			if (IS_ERR(pc->task)) {
				pc->task = NULL;
				tbp_unit_done();
			} else {
				get_task_struct(pc->task);
				wake_up_process(pc->task);
			}
		}
		smp_call_function_single(cpu, tbp_start_timers, pc, 1);
	}
	return 0;
}

static long tbp_ioctl(struct file *file, unsigned int cmd, unsigned long arg)
{
	void __user *uarg = (void __user *)arg;
	struct tbp_stats st;
	long ret = 0;

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
	if (!zalloc_cpumask_var(&tbp.cpus, GFP_KERNEL))
		return -ENOMEM;
	tbp.pc = alloc_percpu(struct tbp_cpu);
	if (!tbp.pc) {
		free_cpumask_var(tbp.cpus);
		return -ENOMEM;
	}
	for_each_possible_cpu(cpu) {
		struct tbp_cpu *pc = per_cpu_ptr(tbp.pc, cpu);

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
#if TBP_HAVE_NMI
	ret = register_nmi_handler(NMI_LOCAL, tbp_nmi_handler, 0, "tb_producer");
	if (ret) {
		free_percpu(tbp.pc);
		free_cpumask_var(tbp.cpus);
		return ret;
	}
#endif
	ret = misc_register(&tbp_dev);
	if (ret) {
#if TBP_HAVE_NMI
		unregister_nmi_handler(NMI_LOCAL, "tb_producer");
#endif
		free_percpu(tbp.pc);
		free_cpumask_var(tbp.cpus);
	}
	return ret;
}

static void __exit tbp_exit(void)
{
	misc_deregister(&tbp_dev);
#if TBP_HAVE_NMI
	unregister_nmi_handler(NMI_LOCAL, "tb_producer");
#endif
	free_percpu(tbp.pc);
	free_cpumask_var(tbp.cpus);
}

module_init(tbp_init);
module_exit(tbp_exit);
MODULE_DESCRIPTION("tracebuf tests: concurrent record producer");
MODULE_LICENSE("GPL");
