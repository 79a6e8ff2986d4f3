// SPDX-License-Identifier: GPL-2.0
/*
 * Trace-backend registry: the list of backends compiled in, and which of
 * them probed successfully on this machine.
 *
 * The set of present backends is fixed between module init and exit, so
 * readers need no lock: tb_present[] is written only by tb_backends_init()
 * before misc_register() makes the device reachable, and cleared only by
 * tb_backends_exit() after misc_deregister().
 */
#include <linux/kernel.h>
#include <linux/printk.h>

#include "backend.h"

/* Every backend tracebuf knows; a new backend adds one line here. */
static struct tb_backend *const tb_all_backends[] = {
	NULL,
};

static struct tb_backend *tb_present[ARRAY_SIZE(tb_all_backends)];
static unsigned int tb_nr_present;

int tb_backends_init(void)
{
	unsigned int i;

	for (i = 0; i < ARRAY_SIZE(tb_all_backends); i++) {
		struct tb_backend *b = tb_all_backends[i];

		if (!b)
			continue;
		if (b->probe(b))
			continue;
		pr_info("tracebuf: backend %s present on %u CPUs\n",
			b->name, b->nr_cpus);
		tb_present[tb_nr_present++] = b;
	}
	return 0;
}

void tb_backends_exit(void)
{
	while (tb_nr_present) {
		struct tb_backend *b = tb_present[--tb_nr_present];

		if (b->remove)
			b->remove(b);
		tb_present[tb_nr_present] = NULL;
	}
}

unsigned int tb_backend_count(void)
{
	return tb_nr_present;
}

const struct tb_backend *tb_backend_get(unsigned int idx)
{
	return idx < tb_nr_present ? tb_present[idx] : NULL;
}
