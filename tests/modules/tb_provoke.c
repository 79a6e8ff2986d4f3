// SPDX-License-Identifier: GPL-2.0
/*
 * tb_provoke - a tests-only module that commits one deliberate kernel bug
 * at load time, so the guest harness can prove it catches that class of
 * failure. Never install it anywhere but a throw-away test guest.
 *
 *   insmod tb_provoke.ko bug=oops|warning|kasan|atomic|leak|hang|nmi|flood|
 *                            waitctx|kcsan
 */
#include <linux/bug.h>
#include <linux/completion.h>
#include <linux/delay.h>
#include <linux/hrtimer.h>
#include <linux/module.h>
#include <linux/sched/signal.h>
#include <linux/slab.h>
#include <linux/spinlock.h>
#include <linux/string.h>
#include <linux/workqueue.h>
#ifdef CONFIG_X86_LOCAL_APIC
#include <asm/apic.h>
#include <asm/irq_vectors.h>
#endif

static char *bug = "";
module_param(bug, charp, 0444);
MODULE_PARM_DESC(bug, "oops, warning, kasan, atomic, leak, hang, nmi, flood, waitctx or kcsan");

static DEFINE_SPINLOCK(tb_provoke_lock);
static int *volatile tb_provoke_null;
static volatile int tb_provoke_index = 16;

static int tb_provoke_oops(void)
{
	*tb_provoke_null = 1;
	return 0;
}

static int tb_provoke_warning(void)
{
	WARN(1, "tb_provoke: deliberate warning\n");
	return 0;
}

static int tb_provoke_kasan(void)
{
	char *p = kmalloc(16, GFP_KERNEL);

	if (!p)
		return -ENOMEM;
	/* One past the end of the object; volatile so the load stays. */
	(void)((volatile char *)p)[tb_provoke_index];
	kfree(p);
	return 0;
}

static int tb_provoke_atomic(void)
{
	void *p;

	spin_lock(&tb_provoke_lock);
	p = kmalloc(64, GFP_KERNEL);	/* may sleep, under a spinlock */
	spin_unlock(&tb_provoke_lock);
	kfree(p);
	return 0;
}

static int tb_provoke_leak(void)
{
	int i;

	for (i = 0; i < 4; i++) {
		void *volatile p = kmalloc(256, GFP_KERNEL);

		if (p)
			memset(p, 0xa5, 256);	/* and drop the only pointer */
	}
	return 0;
}

static int tb_provoke_hang(void)
{
	/* Interruptible: nothing in the kernel notices, only the host's timeout. */
	while (!signal_pending(current))
		msleep_interruptible(1000);
	return -EINTR;
}

/*
 * Self-NMIs no handler claims: what a per-CPU NMI timer that migrated off
 * its CPU sends. x86 only (default_do_nmi()'s unknown_nmi_error()).
 */
static int tb_provoke_nmi(void)
{
#ifdef CONFIG_X86_LOCAL_APIC
	int i;

	for (i = 0; i < 3; i++) {
		/* As tb_producer sends its self-NMIs. */
		apic->send_IPI(get_cpu(), NMI_VECTOR);
		put_cpu();
		msleep(20);
	}
	return 0;
#else
	return -EOPNOTSUPP;
#endif
}

/* One warning in a loop: a console flood, no splat. */
static int tb_provoke_flood(void)
{
	int i;

	for (i = 0; i < 1000; i++) {
		pr_warn("tb_provoke: deliberate flood, line %d\n", i);
		if (!(i % 64))
			cond_resched();
	}
	return 0;
}

/*
 * A spinlock_t in a hard hrtimer: a sleeping lock on PREEMPT_RT taken in
 * hard interrupt context (what tracebuf's trace_lock was, issue 19 item 7).
 * Only lockdep's wait-type check sees it on a !PREEMPT_RT kernel
 * (CONFIG_PROVE_RAW_LOCK_NESTING: "BUG: Invalid wait context").
 */
static struct hrtimer tb_provoke_timer;
static DECLARE_COMPLETION(tb_provoke_fired);

static enum hrtimer_restart tb_provoke_waitctx_fn(struct hrtimer *t)
{
	unsigned long flags;

	spin_lock_irqsave(&tb_provoke_lock, flags);	/* the bug */
	spin_unlock_irqrestore(&tb_provoke_lock, flags);
	complete(&tb_provoke_fired);	/* a raw lock inside: fine here */
	return HRTIMER_NORESTART;
}

static int tb_provoke_waitctx(void)
{
	long left;

	hrtimer_init(&tb_provoke_timer, CLOCK_MONOTONIC, HRTIMER_MODE_REL_HARD);
	tb_provoke_timer.function = tb_provoke_waitctx_fn;
	hrtimer_start(&tb_provoke_timer, ms_to_ktime(1), HRTIMER_MODE_REL_HARD);
	left = wait_for_completion_timeout(&tb_provoke_fired, 10 * HZ);
	hrtimer_cancel(&tb_provoke_timer);
	return left ? 0 : -ETIMEDOUT;
}

/*
 * A data race: a plain counter incremented from two CPUs at once, for
 * two seconds (what KCSAN reports; nothing else notices).
 */
static unsigned long tb_provoke_shared;

static void tb_provoke_race_loop(void)
{
	unsigned long end = jiffies + 2 * HZ;

	while (time_before(jiffies, end)) {
		tb_provoke_shared++;	/* the bug: plain, unlocked, shared */
		cpu_relax();
	}
}

static void tb_provoke_race_work(struct work_struct *w)
{
	tb_provoke_race_loop();
}

static DECLARE_WORK(tb_provoke_work, tb_provoke_race_work);

static int tb_provoke_kcsan(void)
{
	unsigned int other = cpumask_any_but(cpu_online_mask, raw_smp_processor_id());

	if (other >= nr_cpu_ids)
		return -ENODEV;
	schedule_work_on(other, &tb_provoke_work);
	tb_provoke_race_loop();
	flush_work(&tb_provoke_work);
	return 0;
}

static int __init tb_provoke_init(void)
{
	pr_info("tb_provoke: bug=%s\n", bug);
	if (!strcmp(bug, "oops"))
		return tb_provoke_oops();
	if (!strcmp(bug, "warning"))
		return tb_provoke_warning();
	if (!strcmp(bug, "kasan"))
		return tb_provoke_kasan();
	if (!strcmp(bug, "atomic"))
		return tb_provoke_atomic();
	if (!strcmp(bug, "leak"))
		return tb_provoke_leak();
	if (!strcmp(bug, "hang"))
		return tb_provoke_hang();
	if (!strcmp(bug, "nmi"))
		return tb_provoke_nmi();
	if (!strcmp(bug, "flood"))
		return tb_provoke_flood();
	if (!strcmp(bug, "waitctx"))
		return tb_provoke_waitctx();
	if (!strcmp(bug, "kcsan"))
		return tb_provoke_kcsan();
	return -EINVAL;
}

static void __exit tb_provoke_exit(void)
{
}

module_init(tb_provoke_init);
module_exit(tb_provoke_exit);
MODULE_DESCRIPTION("tracebuf test harness: provokes one kernel bug class");
MODULE_LICENSE("GPL");
