// SPDX-License-Identifier: GPL-2.0
/*
 * tb_provoke - a tests-only module that commits one deliberate kernel bug
 * at load time, so the guest harness can prove it catches that class of
 * failure. Never install it anywhere but a throw-away test guest.
 *
 *   insmod tb_provoke.ko bug=oops|warning|kasan|atomic|leak|hang|nmi|flood
 */
#include <linux/bug.h>
#include <linux/delay.h>
#include <linux/module.h>
#include <linux/sched/signal.h>
#include <linux/slab.h>
#include <linux/spinlock.h>
#include <linux/string.h>
#ifdef CONFIG_X86_LOCAL_APIC
#include <asm/apic.h>
#include <asm/irq_vectors.h>
#endif

static char *bug = "";
module_param(bug, charp, 0444);
MODULE_PARM_DESC(bug, "oops, warning, kasan, atomic, leak, hang, nmi or flood");

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
	return -EINVAL;
}

static void __exit tb_provoke_exit(void)
{
}

module_init(tb_provoke_init);
module_exit(tb_provoke_exit);
MODULE_DESCRIPTION("tracebuf test harness: provokes one kernel bug class");
MODULE_LICENSE("GPL");
