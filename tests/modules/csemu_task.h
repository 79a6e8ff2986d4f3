/* SPDX-License-Identifier: GPL-2.0 */
/*
 * csemu_task.h - an oracle of tb_csemu for the per-task target, not
 * silicon: which process was current on an ETM's CPU while that unit
 * produced trace bytes (start, program and stop bytes, reaching its sink
 * or not). On silicon the unit traces whatever its PE executes while
 * TRCPRGCTLR.EN is set, so these are the processes whose execution would
 * be in the trace. A per-task session must produce bytes for its traced
 * processes only (tests/guest/cs_task.c).
 *
 * "Current" is what the kernel itself attributes a CPU's events to:
 * task_tgid_nr(current) on that CPU, as perf_event_pid() does for a
 * sample taken in the PMU interrupt (kernel/events/core.c,
 * perf_prepare_sample()). The program bytes are produced by the unit's
 * tick, a pinned hard hrtimer on its CPU (current: the task it
 * interrupted); the stop bytes when TRCSTATR shows the unit idle, read on
 * its CPU by the code that disabled it; the start bytes with the first
 * program bytes after TRCPRGCTLR.EN 0->1 (csemu_etm.c), or at EN 1->0 if
 * none came first. Bytes produced by a write from another CPU (etmN/burst,
 * a test knob) are counted as "remote".
 *
 * debugfs etmN/tasks: one "pid bytes" line per process (its thread-group
 * ID in the initial pid namespace; 0 is the idle task), in the order
 * first seen, then "other bytes" for processes past the table's end and
 * "remote bytes". Writing anything clears it.
 */
#ifndef TB_CSEMU_TASK_H
#define TB_CSEMU_TASK_H

#include <linux/debugfs.h>
#include <linux/sched.h>
#include <linux/seq_file.h>
#include <linux/smp.h>

#define CSEMU_TASKS	32

struct csemu_tasks {
	struct {
		pid_t pid;
		u64 bytes;		/* 0: free entry */
	} e[CSEMU_TASKS];
	u64 other, remote;
};

/* Under csemu_lock: len bytes of the unit of cpu, produced now. */
static inline void csemu_task_account(struct csemu_tasks *t, unsigned int cpu, u64 len)
{
	pid_t pid = task_tgid_nr(current);
	unsigned int i;

	if (!len)
		return;
	if (smp_processor_id() != cpu) {
		t->remote += len;
		return;
	}
	for (i = 0; i < CSEMU_TASKS; i++) {
		if (!t->e[i].bytes) {
			t->e[i].pid = pid;
			t->e[i].bytes = len;
			return;
		}
		if (t->e[i].pid == pid) {
			t->e[i].bytes += len;
			return;
		}
	}
	t->other += len;
}

#endif /* TB_CSEMU_TASK_H */
