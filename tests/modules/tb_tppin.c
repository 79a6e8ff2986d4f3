// SPDX-License-Identifier: GPL-2.0
/*
 * tb_tppin - a tests-only module that keeps two do-nothing probes on each
 * scheduler tracepoint tracebuf's per-task target hooks (module/task.c),
 * loaded by the x86_64 guests' /init before the tests run.
 *
 * Why. With two probes on a tracepoint, adding and removing a third one
 * patches no kernel text: tracepoint_add_func() and
 * tracepoint_remove_func() (kernel/tracepoint.c, the N->N+1 and N->N-1
 * cases for N > 1) only swap the probe array under RCU; the tracepoint's
 * static key stays on and its static call stays on the iterator. Without
 * them, every first registration and last unregistration (tracebuf's
 * module exit among them) rewrites __schedule()'s tracepoint site and the
 * static call sites with text_poke_bp(). Under QEMU's multi-threaded TCG
 * the other vCPU has twice executed the breakpoint byte of such a site
 * after the patch had completed and every CPU had been synchronised
 * (text_poke_sync()'s IPIs): an "Oops: int3" in __schedule() on
 * x86_64-6.12, and on x86_64-6.1 a CPU taking that int3 while the patching
 * CPU waited for its IPI forever (soft lockup in text_poke_bp_batch(),
 * from tracepoint_probe_unregister() in tracebuf's exit). On silicon
 * text_poke_bp() is safe; in the emulated guest it is the emulator's
 * coherence of cross-modified code that fails. tracebuf's own
 * registration code still runs in every test (the probes are added to
 * and removed from the array exactly as on a machine without these).
 *
 * perf's own static key in __schedule() likewise: perf_sched_events
 * (perf_event_task_sched_out()/_in()) is enabled by the first per-task
 * or context-switch event and disabled a second after the last one goes
 * (kernel/events/core.c, account_event() and perf_sched_delayed()), so
 * every `tracebuf record` (its perf sideband events) patched __schedule()
 * again, and an x86_64-6.12 CI run took the same "Oops: int3" in
 * __schedule() in tool_record. A do-nothing software event on pid 1 (the
 * guest's init, alive for the whole run) keeps perf_sched_count above
 * zero: later events only count.
 */
#include <linux/module.h>
#include <linux/perf_event.h>
#include <linux/pid.h>
#include <linux/sched/task.h>
#include <linux/string.h>
#include <linux/tracepoint.h>
#include <trace/events/sched.h>

static void tb_tppin_switch(void *data, bool preempt, struct task_struct *prev,
			    struct task_struct *next, unsigned int prev_state)
{
}

static void tb_tppin_fork(void *data, struct task_struct *parent, struct task_struct *child)
{
}

static void tb_tppin_exec(void *data, struct task_struct *p, pid_t old_pid,
			  struct linux_binprm *bprm)
{
}

static void tb_tppin_exit(void *data, struct task_struct *p)
{
}

/* Two probes per tracepoint: the same function with two data values. */
static struct {
	const char *name;
	void *probe;
	struct tracepoint *tp;
	unsigned int registered;	/* 0, 1 or 2 */
} tb_tppin_tps[] = {
	{ "sched_switch", tb_tppin_switch },
	{ "sched_process_fork", tb_tppin_fork },
	{ "sched_process_exec", tb_tppin_exec },
	{ "sched_process_exit", tb_tppin_exit },
};

static void tb_tppin_find(struct tracepoint *tp, void *priv)
{
	unsigned int i;

	for (i = 0; i < ARRAY_SIZE(tb_tppin_tps); i++)
		if (!strcmp(tp->name, tb_tppin_tps[i].name))
			tb_tppin_tps[i].tp = tp;
}

static void tb_tppin_remove(void)
{
	unsigned int i;

	for (i = 0; i < ARRAY_SIZE(tb_tppin_tps); i++) {
		unsigned long n;

		for (n = tb_tppin_tps[i].registered; n; n--)
			tracepoint_probe_unregister(tb_tppin_tps[i].tp, tb_tppin_tps[i].probe,
						    (void *)n);
		tb_tppin_tps[i].registered = 0;
	}
	tracepoint_synchronize_unregister();
}

/* The dummy event on pid 1 that keeps perf_sched_events on (above). */
static struct perf_event *tb_tppin_perf;

static int tb_tppin_perf_pin(void)
{
	struct perf_event_attr attr = {
		.type = PERF_TYPE_SOFTWARE,
		.config = PERF_COUNT_SW_DUMMY,
		.size = sizeof(attr),
		.disabled = 1,
	};
	struct task_struct *init = get_pid_task(find_vpid(1), PIDTYPE_PID);
	struct perf_event *ev;

	if (!init)
		return -ESRCH;
	/* perf takes its own reference to the task (perf_event_alloc()). */
	ev = perf_event_create_kernel_counter(&attr, -1, init, NULL, NULL);
	put_task_struct(init);
	if (IS_ERR(ev))
		return PTR_ERR(ev);
	tb_tppin_perf = ev;
	return 0;
}

static int __init tb_tppin_init(void)
{
	unsigned int i;
	int ret;

	check_trace_callback_type_sched_switch(tb_tppin_switch);
	check_trace_callback_type_sched_process_fork(tb_tppin_fork);
	check_trace_callback_type_sched_process_exec(tb_tppin_exec);
	check_trace_callback_type_sched_process_exit(tb_tppin_exit);
	for_each_kernel_tracepoint(tb_tppin_find, NULL);
	for (i = 0; i < ARRAY_SIZE(tb_tppin_tps); i++) {
		if (!tb_tppin_tps[i].tp) {
			pr_err("tb_tppin: no tracepoint %s\n", tb_tppin_tps[i].name);
			tb_tppin_remove();
			return -ENOENT;
		}
		/* data 1 and 2: two distinct (probe, data) pairs. */
		while (tb_tppin_tps[i].registered < 2) {
			ret = tracepoint_probe_register(tb_tppin_tps[i].tp, tb_tppin_tps[i].probe,
							(void *)(unsigned long)
							(tb_tppin_tps[i].registered + 1));
			if (ret) {
				tb_tppin_remove();
				return ret;
			}
			tb_tppin_tps[i].registered++;
		}
	}
	ret = tb_tppin_perf_pin();
	if (ret) {
		pr_err("tb_tppin: no perf event on pid 1: %d\n", ret);
		tb_tppin_remove();
	}
	return ret;
}

static void __exit tb_tppin_exit_module(void)
{
	perf_event_release_kernel(tb_tppin_perf);
	tb_tppin_remove();
}

module_init(tb_tppin_init);
module_exit(tb_tppin_exit_module);
MODULE_LICENSE("GPL");
MODULE_DESCRIPTION("tests only: two idle probes on the scheduler tracepoints tracebuf hooks, and perf's scheduler key held on");
