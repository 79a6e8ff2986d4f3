// SPDX-License-Identifier: GPL-2.0
/*
 * tb_provoke - a tests-only module that commits one deliberate kernel bug
 * at load time, so the guest harness can prove it catches that class of
 * failure. Never install it anywhere but a throw-away test guest.
 *
 *   insmod tb_provoke.ko bug=oops|warning|kasan|atomic|leak|hang
 */
#include <linux/bug.h>
#include <linux/delay.h>
#include <linux/module.h>
#include <linux/sched/signal.h>
#include <linux/slab.h>
#include <linux/spinlock.h>
#include <linux/string.h>

static char *bug = "";
module_param(bug, charp, 0444);
MODULE_PARM_DESC(bug, "oops, warning, kasan, atomic, leak or hang");

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
	return -EINVAL;
}

static void __exit tb_provoke_exit(void)
{
}

module_init(tb_provoke_init);
module_exit(tb_provoke_exit);
MODULE_DESCRIPTION("tracebuf test harness: provokes one kernel bug class");
MODULE_LICENSE("GPL");
