// SPDX-License-Identifier: GPL-2.0
/*
 * Trace-backend registry: the backends compiled in, and which of them are
 * present on this machine. A backend becomes present when its probe
 * succeeds at module init, or later when a register-level emulator
 * registers its accessors (pt.c); it goes away only when nothing holds it.
 */
#include <linux/kernel.h>
#include <linux/module.h>
#include <linux/mutex.h>
#include <linux/printk.h>
#include <linux/string.h>

#include "backend.h"

/* Every backend tracebuf knows; a new backend adds one line here. */
static struct tb_backend *const tb_all_backends[] = {
#ifdef CONFIG_X86_64
	&tb_pt_backend,
#endif
#ifdef CONFIG_ARM64
	&tb_cs_backend,
#endif
	NULL,
};

/* Protects tb_present[], tb_nr_present and tb_holds[]. */
DEFINE_MUTEX(tb_backends_lock);
static struct tb_backend *tb_present[ARRAY_SIZE(tb_all_backends)];
static unsigned int tb_holds[ARRAY_SIZE(tb_all_backends)];
static unsigned int tb_nr_present;

static int tb_backend_slot(const struct tb_backend *b)
{
	unsigned int i;

	for (i = 0; i < tb_nr_present; i++)
		if (tb_present[i] == b)
			return i;
	return -1;
}

int tb_backend_add(struct tb_backend *b)
{
	lockdep_assert_held(&tb_backends_lock);
	if (tb_backend_slot(b) >= 0)
		return -EBUSY;
	if (b->probe(b))
		return -ENODEV;
	pr_info("tracebuf: backend %s present on %u CPUs%s\n", b->name,
		b->nr_cpus, b->flags & TRACEBUF_BACKEND_F_EMULATED ?
		" (emulated)" : "");
	tb_holds[tb_nr_present] = 0;
	tb_present[tb_nr_present++] = b;
	return 0;
}

void tb_backend_del(struct tb_backend *b)
{
	int i;

	lockdep_assert_held(&tb_backends_lock);
	i = tb_backend_slot(b);
	if (i < 0)
		return;
	WARN_ON(tb_holds[i]);
	if (b->remove)
		b->remove(b);
	for (; i + 1 < tb_nr_present; i++) {
		tb_present[i] = tb_present[i + 1];
		tb_holds[i] = tb_holds[i + 1];
	}
	tb_present[--tb_nr_present] = NULL;
}

int tb_backends_init(void)
{
	unsigned int i;

	BUILD_BUG_ON(ARRAY_SIZE(tb_all_backends) > TB_BACKENDS_MAX + 1);
	mutex_lock(&tb_backends_lock);
	for (i = 0; i < ARRAY_SIZE(tb_all_backends); i++)
		if (tb_all_backends[i])
			tb_backend_add(tb_all_backends[i]);
	mutex_unlock(&tb_backends_lock);
	return 0;
}

void tb_backends_exit(void)
{
	mutex_lock(&tb_backends_lock);
	while (tb_nr_present)
		tb_backend_del(tb_present[tb_nr_present - 1]);
	mutex_unlock(&tb_backends_lock);
}

unsigned int tb_backend_count(void)
{
	lockdep_assert_held(&tb_backends_lock);
	return tb_nr_present;
}

const struct tb_backend *tb_backend_get(unsigned int idx)
{
	lockdep_assert_held(&tb_backends_lock);
	return idx < tb_nr_present ? tb_present[idx] : NULL;
}

/* "" and "auto": the first backend present. */
const struct tb_backend *tb_backend_find(const char *name)
{
	unsigned int i;

	lockdep_assert_held(&tb_backends_lock);
	for (i = 0; i < tb_nr_present; i++)
		if (!name[0] || !strcmp(name, TRACEBUF_BACKEND_AUTO) ||
		    !strcmp(name, tb_present[i]->name))
			return tb_present[i];
	return NULL;
}

/* A session uses b: it stays present until tb_backend_release(). */
int tb_backend_hold(const struct tb_backend *b)
{
	int i;

	lockdep_assert_held(&tb_backends_lock);
	i = tb_backend_slot(b);
	if (i < 0)
		return -ENODEV;
	/* Pins the emulator's module; dropped in tb_backend_release(). */
	if (b->owner && !try_module_get(b->owner))
		return -ENODEV;
	tb_holds[i]++;
	return 0;
}

void tb_backend_release(const struct tb_backend *b)
{
	int i;

	mutex_lock(&tb_backends_lock);
	i = tb_backend_slot(b);
	if (!WARN_ON(i < 0 || !tb_holds[i])) {
		tb_holds[i]--;
		module_put(b->owner);	/* taken in tb_backend_hold() */
	}
	mutex_unlock(&tb_backends_lock);
}

/* Is b held by a session? For emulator unregistration. */
bool tb_backend_busy(const struct tb_backend *b)
{
	int i;

	lockdep_assert_held(&tb_backends_lock);
	i = tb_backend_slot(b);
	return i >= 0 && tb_holds[i];
}
