/* SPDX-License-Identifier: GPL-2.0 */
/*
 * ptemu_task.h - an oracle of tb_ptemu for the per-task target, not
 * silicon: which process was current on a CPU while the emulated unit
 * produced trace for tracebuf there (bytes generated, written or not: an
 * OVF tick's too). On silicon the unit traces whatever the CPU executes
 * while TraceEn is set, so these are the processes whose execution would
 * be in the trace. A per-task session must produce bytes for its traced
 * processes only (tests/guest/task_trace.c).
 *
 * Output of other owners (steal, foreign, perf) is not counted.
 *
 * debugfs cpuN/tasks: one "pid bytes" line per process (its thread-group
 * ID in the initial pid namespace; 0 is the idle task), in the order
 * first seen, then "other bytes" for processes past the table's end.
 * Writing anything clears it (on that CPU, by IPI).
 */
#ifndef TB_PTEMU_TASK_H
#define TB_PTEMU_TASK_H

#include <linux/debugfs.h>
#include <linux/percpu.h>
#include <linux/sched.h>
#include <linux/seq_file.h>
#include <linux/smp.h>

#define PTEMU_TASKS	32

struct ptemu_tasks {
	struct {
		pid_t pid;
		u64 bytes;		/* 0: free entry */
	} e[PTEMU_TASKS];
	u64 other;
};

/* Written on its CPU with interrupts off (the accessors, the tick). */
static DEFINE_PER_CPU(struct ptemu_tasks, ptemu_tasks);

static void ptemu_task_account(unsigned int cpu, u64 len)
{
	struct ptemu_tasks *t = per_cpu_ptr(&ptemu_tasks, cpu);
	pid_t pid = task_tgid_nr(current);
	unsigned int i;

	if (!len)
		return;
	for (i = 0; i < PTEMU_TASKS; i++) {
		if (!t->e[i].bytes) {
			WRITE_ONCE(t->e[i].pid, pid);
			WRITE_ONCE(t->e[i].bytes, len);
			return;
		}
		if (t->e[i].pid == pid) {
			WRITE_ONCE(t->e[i].bytes, t->e[i].bytes + len);
			return;
		}
	}
	WRITE_ONCE(t->other, t->other + len);
}

/* i_private: the CPU number. */
static int ptemu_tasks_show(struct seq_file *m, void *v)
{
	struct ptemu_tasks *t = per_cpu_ptr(&ptemu_tasks, (unsigned long)m->private);
	unsigned int i;
	u64 bytes;

	/* Each value untorn; the set is not a snapshot (as stats). */
	for (i = 0; i < PTEMU_TASKS; i++) {
		bytes = READ_ONCE(t->e[i].bytes);
		if (bytes)
			seq_printf(m, "%d %llu\n", READ_ONCE(t->e[i].pid), bytes);
	}
	seq_printf(m, "other %llu\n", READ_ONCE(t->other));
	return 0;
}

static int ptemu_tasks_open(struct inode *inode, struct file *file)
{
	return single_open(file, ptemu_tasks_show, inode->i_private);
}

static void ptemu_tasks_clear_ipi(void *arg)
{
	memset(arg, 0, sizeof(struct ptemu_tasks));
}

static ssize_t ptemu_tasks_write(struct file *file, const char __user *ubuf,
				 size_t len, loff_t *ppos)
{
	unsigned long cpu = (unsigned long)((struct seq_file *)file->private_data)->private;
	struct ptemu_tasks *t = per_cpu_ptr(&ptemu_tasks, cpu);
	int ret = 0;

	cpus_read_lock();
	if (cpu_online(cpu))
		ret = smp_call_function_single(cpu, ptemu_tasks_clear_ipi, t, 1);
	else
		ptemu_tasks_clear_ipi(t);	/* nothing runs there */
	cpus_read_unlock();
	return ret ?: len;
}

static const struct file_operations ptemu_tasks_fops = {
	.owner		= THIS_MODULE,
	.open		= ptemu_tasks_open,
	.read		= seq_read,
	.llseek		= seq_lseek,
	.release	= single_release,
	.write		= ptemu_tasks_write,
};

static void ptemu_task_debugfs(struct dentry *dir, unsigned long cpu)
{
	debugfs_create_file("tasks", 0600, dir, (void *)cpu, &ptemu_tasks_fops);
}

#endif /* TB_PTEMU_TASK_H */
