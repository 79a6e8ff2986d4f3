// SPDX-License-Identifier: GPL-2.0
/*
 * The per-task target (TRACEBUF_TARGET_TASK): a session traces one process,
 * all its threads, and with TRACEBUF_SETUP_F_INHERIT the processes it forks
 * from then on, on the CPUs it was set up for, following them as they
 * migrate. The hardware of a CPU runs exactly while a traced thread is
 * current there.
 *
 * The hook: the scheduler's tracepoints, found by name with
 * for_each_kernel_tracepoint() and hooked with tracepoint_probe_register(),
 * both exported on 6.1 and 6.12 (the tracepoints themselves are not).
 *   sched_switch        __schedule(), interrupts off, runqueue locked,
 *                       before the switch: stop the hardware for the
 *                       outgoing thread, start it for the incoming one.
 *   sched_process_fork  kernel_clone(), before the child is first woken:
 *                       a child process of a traced one joins (inherit).
 *   sched_process_exec  exec_binprm(), after the new image is in place
 *                       and the new credentials committed: restart the
 *                       hardware (the image changed), or stop following a
 *                       program that is not dumpable, as begin_new_exec()
 *                       detaches perf's events (fs/exec.c).
 *   sched_process_exit  do_exit(), after group_dead was decided: the
 *                       process leaves once its last thread exits.
 * Preempt notifiers were the other candidate. They are registered by the
 * task itself on itself (preempt_notifier_register() works on current),
 * so they cannot follow a process named by pid nor a forked child, and
 * they exist only with CONFIG_PREEMPT_NOTIFIERS, which the debug kernels
 * lack. The probes are registered while any task session exists; they
 * cost a lookup per context switch (an RCU list per CPU, usually empty,
 * and a hash lookup per session on it).
 *
 * The layout: one session, one AUX ring, per CPU (or per CoreSight sink),
 * as perf's per-CPU mode with inherit (perf record -e intel_pt//u -- cmd).
 * A per-thread layout would need an AUX ring per thread, and a session has
 * one. Intel PT is a per-CPU unit, so the trace of a CPU always goes to
 * that CPU's ring, whichever thread runs; when a thread migrates, its next
 * bytes are in the other CPU's ring. Threads are told apart in a ring by
 * SWITCH records (include/uapi/tracebuf.h): IN before the hardware starts
 * for a thread, OUT after it stopped and published, both carrying the AUX
 * position, so the bytes between two SWITCH records of a session belong
 * to the thread the first one names. They are written under the session's
 * trace_lock, on the traced CPU, interrupts off: no AUX record of that CPU
 * can fall between the stop and the record.
 *
 * Identity: a process is its signal_struct (shared by its threads, new at
 * every fork without CLONE_THREAD, kept across exec). Each session keeps
 * the set of processes it traces in a small RCU hash table keyed by that
 * pointer. Every entry holds a reference to a task_struct of the process,
 * and a task_struct holds its signal_struct until it is freed
 * (__put_task_struct()), so the key cannot be freed and reused by another
 * process while the entry exists. Entries leave when the process's last
 * thread exits, after an RCU grace period.
 *
 * Locks: tb_task_lock (raw: it is taken in the probes, with preemption
 * off) protects tb_task_all, the per-CPU lists and every set. The
 * sched_switch probe takes no lock of ours besides the session's
 * trace_lock (trace.c): it reads the lists and sets under RCU (a
 * tracepoint probe runs with preemption off). Order: the runqueue lock
 * -> s->trace_lock; tb_task_lock is never taken with a trace_lock held.
 * Nothing in the switch path may print with printk() (it could wake the
 * console's waiters under the runqueue lock): see tb_warn_deferred().
 *
 * Lifetimes: a target is created at SETUP (tb_task_prepare, then
 * tb_task_install under s->lock) and freed at release or when a repeated
 * SETUP replaces it (tb_task_free: off the lists, synchronize_rcu(), so no
 * probe still looks at it or its session). The session's hardware is
 * stopped before that (DISABLE or the last AUX munmap). The probes are
 * unregistered when the last target goes, after which rcu_barrier() lets
 * every deferred free of ours finish before the module can go.
 */
#include <linux/cpu.h>
#include <linux/cpumask.h>
#include <linux/hashtable.h>
#include <linux/mutex.h>
#include <linux/percpu.h>
#include <linux/pid.h>
#include <linux/pid_namespace.h>
#include <linux/rculist.h>
#include <linux/rwsem.h>
#include <linux/sched.h>
#include <linux/sched/coredump.h>
#include <linux/sched/signal.h>
#include <linux/sched/task.h>
#include <linux/slab.h>
#include <linux/tracepoint.h>
#include <linux/workqueue.h>
#include <trace/events/sched.h>

#include "backend.h"
#include "internal.h"
#include "ring.h"

/* Set entries kept ready for forks (the fork probe cannot allocate). */
#define TB_TASK_SPARE	16

/* One traced process of one session. */
struct tb_task_group {
	struct hlist_node node;		/* in tb_task.groups, RCU */
	struct signal_struct *sig;	/* the key; compared, never dereferenced */
	struct task_struct *ref;	/* keeps sig allocated, so unique */
	u32 pid;			/* in tb_task.ns, for TASK records */
	struct rcu_head rcu;
};

/* A session on the list of one of its CPUs. */
struct tb_task_link {
	struct list_head node;		/* per CPU, RCU */
	struct tb_task *t;
};

struct tb_task {
	struct tb_session *s;
	struct list_head list;		/* tb_task_all */
	DECLARE_HASHTABLE(groups, 4);	/* the traced processes */
	bool inherit;
	bool installed;
	struct pid_namespace *ns;	/* pids in records are in it */
	struct tb_task_link *links;
	unsigned int nr_links;
	struct tb_task_group *spare[TB_TASK_SPARE];
	unsigned int nr_spare;
	struct work_struct refill;	/* tops the spares up after forks */
	/* From tb_task_prepare() to tb_task_unlock(): */
	struct task_struct *task;	/* the process SETUP named */
	bool exec_locked;		/* its exec_update_lock, read */
};

/*
 * This CPU's tracing of the current thread. Written on this CPU only,
 * with interrupts off (a probe, an IPI or a timer of trace.c).
 */
struct tb_task_cpu {
	struct tb_session *s;		/* the hardware runs for it, for current */
	struct task_struct *next;	/* in the sched_switch probe: incoming */
	u32 pid, tid;			/* of the traced thread, in s's namespace */
	u32 in_flags, out_flags;	/* for the SWITCH records being written */
};

static DEFINE_PER_CPU(struct tb_task_cpu, tb_task_cpus);
static DEFINE_PER_CPU(struct list_head, tb_task_links);	/* RCU */
static LIST_HEAD(tb_task_all);
/* tb_task_all, every per-CPU list, every target's groups and spares. */
static DEFINE_RAW_SPINLOCK(tb_task_lock);

/*
 * The probes: registered while tb_task_users > 0 and for a second after
 * (tb_task_put_probes()); both under tb_task_mutex.
 */
static DEFINE_MUTEX(tb_task_mutex);
static unsigned int tb_task_users;
static bool tb_task_hooked;		/* the probes are registered */
static bool tb_task_ready;		/* lists set up, tracepoints found */

static bool tb_task_member(struct tb_task *t, struct task_struct *p)
{
	struct signal_struct *sig = p->signal;
	struct tb_task_group *g;

	hash_for_each_possible_rcu(t->groups, g, node, (unsigned long)sig)
		if (g->sig == sig)
			return true;
	return false;
}

/* Under tb_task_lock. */
static struct tb_task_group *tb_task_find(struct tb_task *t, struct signal_struct *sig)
{
	struct tb_task_group *g;

	hash_for_each_possible(t->groups, g, node, (unsigned long)sig)
		if (g->sig == sig)
			return g;
	return NULL;
}

static void tb_task_group_free_rcu(struct rcu_head *head)
{
	struct tb_task_group *g = container_of(head, struct tb_task_group, rcu);

	put_task_struct(g->ref);	/* taken when the process joined */
	kfree(g);
}

/* A TASK record in the session's data ring, if it has one; any context. */
static void tb_task_rec(struct tb_task *t, u32 pid, u32 ppid, u32 reason)
{
	/* Pairs with the release in tb_session_create_ring(). */
	struct tb_ring *rb = smp_load_acquire(&t->s->ring);
	struct tracebuf_rec_task *r;
	struct tracebuf_wr wr;

	if (!rb)
		return;
	preempt_disable();	/* reserve to commit: tracebuf_reserve() */
	if (!tracebuf_reserve(rb, TRACEBUF_REC_TASK, sizeof(*r), &wr)) {
		r = (struct tracebuf_rec_task *)wr.rec;
		r->pid = pid;
		r->ppid = ppid;
		r->reason = reason;
		r->reserved = 0;
		tracebuf_commit(rb, &wr);
	}
	preempt_enable();
}

/* --- what trace.c asks: for whom does this CPU start or stop ------------ */

/**
 * tb_task_switch_in - may the hardware start here for a thread of s now?
 * @s: a task session
 * @cpu: this CPU
 * @wr: the IN record, reserved when the answer is yes
 *
 * On cpu, interrupts off, s->trace_lock held. The thread is the one the
 * sched_switch probe is switching to, or current. No record, no trace:
 * when the data ring has no room for the IN record, the hardware stays
 * off for this run of the thread (the ring counts the record as lost).
 */
bool tb_task_switch_in(struct tb_session *s, unsigned int cpu, struct tracebuf_wr *wr)
{
	struct tb_task_cpu *tc = this_cpu_ptr(&tb_task_cpus);
	struct task_struct *p = tc->next ?: current;
	struct tb_task *t = s->task;

	lockdep_assert_held(&s->trace_lock);
	/*
	 * Not on a CPU going down: its hotplug teardown (CPUHP_AP_ONLINE_DYN,
	 * session.c) runs after sched_cpu_deactivate() cleared cpu_active()
	 * and waited for a grace period, so no probe starts it after that.
	 */
	if (!cpu_active(cpu) || !tb_task_member(t, p))
		return false;
	if (tracebuf_reserve(s->ring, TRACEBUF_REC_SWITCH,
			     sizeof(struct tracebuf_rec_switch), wr))
		return false;
	tc->pid = task_tgid_nr_ns(p, t->ns);
	tc->tid = task_pid_nr_ns(p, t->ns);
	return true;
}

/*
 * Where a SWITCH record on cpu says the thread's bytes begin or end: the
 * published head, or the backend's position ahead of it (a shared sink
 * running on: backend.h, switch_pos). trace_lock held.
 */
static u64 tb_task_switch_pos(struct tb_session *s, unsigned int cpu)
{
	if (s->backend && s->backend->switch_pos)
		return s->backend->switch_pos(s, cpu);
	return s->aux_head;
}

/*
 * The backend's start() returned ret: commit the IN record, at the
 * position where the hardware starts writing this CPU's bytes (the
 * published head, or ahead of it in a shared sink's running buffer).
 * -EBUSY: another owner holds the unit, and this run of the thread is
 * not traced.
 */
void tb_task_switch_in_done(struct tb_session *s, unsigned int cpu,
			    struct tracebuf_wr *wr, int ret)
{
	struct tb_task_cpu *tc = per_cpu_ptr(&tb_task_cpus, cpu);
	struct tracebuf_rec_switch *r = (struct tracebuf_rec_switch *)wr->rec;

	lockdep_assert_held(&s->trace_lock);
	r->aux_offset = tb_task_switch_pos(s, cpu);
	r->pid = tc->pid;
	r->tid = tc->tid;
	r->flags = tc->in_flags | (ret == -EBUSY ? TRACEBUF_SWITCH_F_BUSY : 0);
	r->reserved = 0;
	tracebuf_commit(s->ring, wr);
	if (!ret)
		WRITE_ONCE(tc->s, s);
}

/**
 * tb_task_switch_out - the hardware of s stopped on cpu and published
 * @s: a task session
 * @cpu: the CPU, the one this runs on
 *
 * Interrupts off, s->trace_lock held. The OUT record says where the
 * thread's bytes ended. If it does not fit, the next IN record of the
 * session still marks the boundary.
 */
void tb_task_switch_out(struct tb_session *s, unsigned int cpu)
{
	struct tb_task_cpu *tc = per_cpu_ptr(&tb_task_cpus, cpu);
	struct tracebuf_rec_switch *r;
	struct tracebuf_wr wr;

	lockdep_assert_held(&s->trace_lock);
	if (tc->s != s)
		return;
	if (!tracebuf_reserve(s->ring, TRACEBUF_REC_SWITCH, sizeof(*r), &wr)) {
		r = (struct tracebuf_rec_switch *)wr.rec;
		r->aux_offset = tb_task_switch_pos(s, cpu);
		r->pid = tc->pid;
		r->tid = tc->tid;
		r->flags = TRACEBUF_SWITCH_F_OUT | tc->out_flags;
		r->reserved = 0;
		tracebuf_commit(s->ring, &wr);
	}
	WRITE_ONCE(tc->s, NULL);
}

/* --- the probes ---------------------------------------------------------- */

/*
 * __schedule(), prev != next, interrupts off, runqueue locked, still on
 * prev's stack. Whatever runs on this CPU for prev stops (tc->s, not a
 * lookup: prev may have left its session since), then next starts if a
 * session of this CPU traces it.
 */
static void tb_task_sched_switch(void *data, bool preempt, struct task_struct *prev,
				 struct task_struct *next, unsigned int prev_state)
{
	struct tb_task_cpu *tc = this_cpu_ptr(&tb_task_cpus);
	struct list_head *links = this_cpu_ptr(&tb_task_links);
	unsigned int cpu = smp_processor_id();
	struct tb_session *s = tc->s;
	struct tb_task_link *l;

	if (s) {
		if (preempt || prev_state == TASK_RUNNING)
			tc->out_flags = TRACEBUF_SWITCH_F_PREEMPT;
		else if (prev_state & TASK_DEAD)
			tc->out_flags = TRACEBUF_SWITCH_F_EXIT;
		tb_trace_task_out(s, cpu);
		tc->out_flags = 0;
	}
	/* RCU: a tracepoint probe runs with preemption off. */
	list_for_each_entry_rcu(l, links, node) {
		s = l->t->s;
		if (!READ_ONCE(s->tr_enabled) || !tb_task_member(l->t, next))
			continue;
		tc->next = next;
		tb_trace_task_in(s, cpu);
		tc->next = NULL;
		break;		/* sets on a CPU do not overlap (tb_task_install) */
	}
}

/* Take a process out of every set it is in; returns whether any. */
static bool tb_task_leave(struct signal_struct *sig, u32 reason)
{
	struct tb_task_group *g;
	struct tb_task *t;
	bool any = false;

	raw_spin_lock(&tb_task_lock);
	list_for_each_entry(t, &tb_task_all, list) {
		g = tb_task_find(t, sig);
		if (!g)
			continue;
		any = true;
		hash_del_rcu(&g->node);
		tb_task_rec(t, g->pid, 0, reason);
		/* Readers may still compare g->sig: free after a grace period. */
		call_rcu(&g->rcu, tb_task_group_free_rcu);
	}
	raw_spin_unlock(&tb_task_lock);
	return any;
}

/*
 * kernel_clone(), in the parent, before the child first runs. A child
 * process of a traced process joins every inheriting set its parent is in;
 * a new thread needs nothing (same signal_struct).
 */
static void tb_task_fork(void *data, struct task_struct *parent, struct task_struct *child)
{
	struct tb_task_group *g;
	struct tb_task *t;
	u32 pid, ppid;

	if (child->signal == parent->signal)
		return;
	raw_spin_lock(&tb_task_lock);
	list_for_each_entry(t, &tb_task_all, list) {
		if (!t->inherit || !tb_task_find(t, parent->signal))
			continue;
		pid = task_tgid_nr_ns(child, t->ns);
		ppid = task_tgid_nr_ns(parent, t->ns);
		g = t->nr_spare ? t->spare[--t->nr_spare] : NULL;
		/* The workqueue's locks are raw: queueing is fine here. */
		queue_work(system_wq, &t->refill);
		if (!g) {
			tb_task_rec(t, pid, ppid, TRACEBUF_TASK_FORK_NOMEM);
			continue;
		}
		g->sig = child->signal;
		g->ref = get_task_struct(child);	/* put by tb_task_group_free_rcu */
		g->pid = pid;
		hash_add_rcu(t->groups, &g->node, (unsigned long)g->sig);
		tb_task_rec(t, pid, ppid, TRACEBUF_TASK_FORK);
	}
	raw_spin_unlock(&tb_task_lock);
}

/*
 * exec_binprm(), current: the new program is loaded, the new credentials
 * committed. A program that is not dumpable leaves, as begin_new_exec()
 * calls perf_event_exit_task() for it. If the hardware runs for current
 * here, it restarts (OUT and IN flagged EXEC: bytes after it are the new
 * image's, and the thread ID may have changed in de_thread()), or stops.
 */
static void tb_task_exec(void *data, struct task_struct *p, pid_t old_pid,
			 struct linux_binprm *bprm)
{
	struct tb_task_cpu *tc;
	unsigned long flags;
	unsigned int cpu;

	if (get_dumpable(p->mm) != SUID_DUMP_USER)
		tb_task_leave(p->signal, TRACEBUF_TASK_EXEC_PRIV);
	local_irq_save(flags);	/* as in a probe of __schedule() */
	cpu = smp_processor_id();
	tc = this_cpu_ptr(&tb_task_cpus);
	if (tc->s) {
		struct tb_session *s = tc->s;

		tc->out_flags = TRACEBUF_SWITCH_F_EXEC;
		tb_trace_task_out(s, cpu);
		tc->out_flags = 0;
		tc->in_flags = TRACEBUF_SWITCH_F_EXEC;
		tb_trace_task_in(s, cpu);	/* only if still a member */
		tc->in_flags = 0;
	}
	local_irq_restore(flags);
}

/* do_exit(): group_dead is decided before this tracepoint. */
static void tb_task_exit(void *data, struct task_struct *p)
{
	if (!atomic_read(&p->signal->live))
		tb_task_leave(p->signal, TRACEBUF_TASK_EXIT);
}

static struct {
	const char *name;
	void *probe;
	struct tracepoint *tp;
} tb_task_tps[] = {
	{ "sched_process_fork", tb_task_fork },
	{ "sched_process_exec", tb_task_exec },
	{ "sched_process_exit", tb_task_exit },
	{ "sched_switch", tb_task_sched_switch },
};

static void tb_task_find_tp(struct tracepoint *tp, void *priv)
{
	unsigned int i;

	for (i = 0; i < ARRAY_SIZE(tb_task_tps); i++)
		if (!strcmp(tp->name, tb_task_tps[i].name))
			tb_task_tps[i].tp = tp;
}

/* Under tb_task_mutex, once. */
static int tb_task_first_use(void)
{
	unsigned int cpu, i;

	/* The probes have the tracepoints' prototypes (checked here). */
	check_trace_callback_type_sched_switch(tb_task_sched_switch);
	check_trace_callback_type_sched_process_fork(tb_task_fork);
	check_trace_callback_type_sched_process_exec(tb_task_exec);
	check_trace_callback_type_sched_process_exit(tb_task_exit);
	for_each_possible_cpu(cpu)
		INIT_LIST_HEAD(per_cpu_ptr(&tb_task_links, cpu));
	for_each_kernel_tracepoint(tb_task_find_tp, NULL);
	for (i = 0; i < ARRAY_SIZE(tb_task_tps); i++)
		if (!tb_task_tps[i].tp)
			return -EOPNOTSUPP;
	tb_task_ready = true;
	return 0;
}

/* A target needs the probes: register them with the first. */
static int tb_task_get_probes(void)
{
	unsigned int i;
	int ret = 0;

	mutex_lock(&tb_task_mutex);
	if (!tb_task_ready)
		ret = tb_task_first_use();
	for (i = 0; !ret && !tb_task_hooked && i < ARRAY_SIZE(tb_task_tps); i++) {
		ret = tracepoint_probe_register(tb_task_tps[i].tp, tb_task_tps[i].probe, NULL);
		if (ret)
			while (i--)
				tracepoint_probe_unregister(tb_task_tps[i].tp,
							    tb_task_tps[i].probe, NULL);
	}
	if (!ret) {
		tb_task_hooked = true;
		tb_task_users++;
	}
	mutex_unlock(&tb_task_mutex);
	return ret;
}

/*
 * Under tb_task_mutex: unregister the probes if no target needs them.
 * Afterwards no probe runs and every call_rcu() of ours has run.
 */
static void tb_task_unhook_locked(void)
{
	unsigned int i;

	if (tb_task_users || !tb_task_hooked)
		return;
	for (i = ARRAY_SIZE(tb_task_tps); i--; )
		tracepoint_probe_unregister(tb_task_tps[i].tp, tb_task_tps[i].probe, NULL);
	tracepoint_synchronize_unregister();
	rcu_barrier();
	tb_task_hooked = false;
}

static void tb_task_unhook(struct work_struct *w)
{
	mutex_lock(&tb_task_mutex);
	tb_task_unhook_locked();
	mutex_unlock(&tb_task_mutex);
}

/*
 * The last target's probes stay registered for TB_TASK_UNHOOK_DELAY, as
 * perf defers disabling its sched hooks (perf_sched_delayed() in
 * kernel/events/core.c): every register and unregister patches the
 * scheduler's text (the tracepoints' static keys), and a session opened
 * and closed in a loop would patch __schedule() at that rate. A probe
 * that finds no target on its CPU does nothing.
 */
#define TB_TASK_UNHOOK_DELAY	HZ
static DECLARE_DELAYED_WORK(tb_task_unhook_work, tb_task_unhook);

static void tb_task_put_probes(void)
{
	mutex_lock(&tb_task_mutex);
	if (!--tb_task_users)
		mod_delayed_work(system_wq, &tb_task_unhook_work, TB_TASK_UNHOOK_DELAY);
	mutex_unlock(&tb_task_mutex);
}

/* Module exit (no session is left): the probes off now, nothing pending. */
void tb_task_exit_module(void)
{
	cancel_delayed_work_sync(&tb_task_unhook_work);
	tb_task_unhook(NULL);
}

/* --- targets: SETUP and release ------------------------------------------ */

static void tb_task_refill(struct work_struct *w)
{
	struct tb_task *t = container_of(w, struct tb_task, refill);
	struct tb_task_group *g;
	bool full;

	for (;;) {
		g = kzalloc(sizeof(*g), GFP_KERNEL_ACCOUNT);
		if (!g)
			return;
		raw_spin_lock(&tb_task_lock);
		full = t->nr_spare == TB_TASK_SPARE;
		if (!full)
			t->spare[t->nr_spare++] = g;
		raw_spin_unlock(&tb_task_lock);
		if (full) {
			kfree(g);
			return;
		}
	}
}

/**
 * tb_task_prepare - find the process SETUP names and check the opener may trace it
 * @s: the session
 * @su: the SETUP request (target TASK)
 *
 * Process context, before SETUP takes its locks. On success the process's
 * exec_update_lock is held for reading until tb_task_unlock(), as
 * perf_event_open() holds it across its check (kernel/events/core.c): an
 * exec cannot commit new credentials between the check and
 * tb_task_install(), and one that comes after finds the process in the
 * set (tb_task_exec).
 */
struct tb_task *tb_task_prepare(struct tb_session *s, const struct tracebuf_setup *su)
{
	struct tb_task_group *g = NULL;
	struct task_struct *p;
	struct tb_task *t;
	int ret;

	ret = tb_task_get_probes();
	if (ret)
		return ERR_PTR(ret);
	t = kzalloc(sizeof(*t), GFP_KERNEL_ACCOUNT);
	if (!t) {
		tb_task_put_probes();
		return ERR_PTR(-ENOMEM);
	}
	hash_init(t->groups);
	INIT_LIST_HEAD(&t->list);
	INIT_WORK(&t->refill, tb_task_refill);
	t->inherit = su->flags & TRACEBUF_SETUP_F_INHERIT;
	t->ns = get_pid_ns(task_active_pid_ns(current));	/* put in tb_task_free */
	if (su->pid) {
		rcu_read_lock();
		p = pid_task(find_vpid(su->pid), PIDTYPE_PID);
		if (p)
			get_task_struct(p);	/* put in tb_task_unlock */
		rcu_read_unlock();
	} else {
		p = get_task_struct(current);
	}
	ret = -ESRCH;
	if (!p)
		goto fail;
	t->task = p;
	ret = down_read_interruptible(&p->signal->exec_update_lock);
	if (ret)
		goto fail;
	t->exec_locked = true;
	ret = -ESRCH;
	if (!atomic_read(&p->signal->live))
		goto fail;	/* every thread has exited */
	ret = tb_perm_task(s, p);
	if (ret)
		goto fail;
	ret = -ENOMEM;
	g = kzalloc(sizeof(*g), GFP_KERNEL_ACCOUNT);
	if (!g)
		goto fail;
	g->sig = p->signal;
	g->ref = get_task_struct(p);	/* put when the group is freed */
	g->pid = task_tgid_nr_ns(p, t->ns);
	hash_add(t->groups, &g->node, (unsigned long)g->sig);
	if (t->inherit)
		while (t->nr_spare < TB_TASK_SPARE) {
			t->spare[t->nr_spare] = kzalloc(sizeof(*g), GFP_KERNEL_ACCOUNT);
			if (!t->spare[t->nr_spare])
				goto fail;
			t->nr_spare++;
		}
	return t;
fail:
	tb_task_unlock(t);
	tb_task_free(t);
	return ERR_PTR(ret);
}

/**
 * tb_task_install - make the target live for the session's CPUs
 * @s: the session, under s->lock
 * @t: from tb_task_prepare()
 * @cpus: the CPUs of the session
 *
 * -EBUSY if another session already traces the process on one of these
 * CPUs: sets on a CPU never overlap, so at most one session traces a
 * thread there (and processes join only by fork, into the sets of their
 * parent, which keeps them disjoint).
 */
int tb_task_install(struct tb_session *s, struct tb_task *t, const struct cpumask *cpus)
{
	struct tb_task_group *g;
	struct tb_task_link *l;
	unsigned int cpu, i = 0, bkt;
	int ret = 0;

	lockdep_assert_held(&s->lock);
	t->links = kcalloc(cpumask_weight(cpus), sizeof(*t->links), GFP_KERNEL_ACCOUNT);
	if (!t->links)
		return -ENOMEM;
	raw_spin_lock(&tb_task_lock);
	for_each_cpu(cpu, cpus)
		list_for_each_entry(l, per_cpu_ptr(&tb_task_links, cpu), node)
			hash_for_each(t->groups, bkt, g, node)
				if (l->t->s != s && tb_task_find(l->t, g->sig))
					ret = -EBUSY;
	if (!ret) {
		t->s = s;
		for_each_cpu(cpu, cpus) {
			t->links[i].t = t;
			/* Publishes t, and t->s, to the probes. */
			list_add_tail_rcu(&t->links[i++].node, per_cpu_ptr(&tb_task_links, cpu));
		}
		t->nr_links = i;
		list_add_tail(&t->list, &tb_task_all);
		t->installed = true;
	}
	raw_spin_unlock(&tb_task_lock);
	return ret;
}

/* End of SETUP, whatever happened: let exec run again. */
void tb_task_unlock(struct tb_task *t)
{
	if (!t || !t->task)
		return;
	if (t->exec_locked)
		up_read(&t->task->signal->exec_update_lock);
	t->exec_locked = false;
	put_task_struct(t->task);	/* taken in tb_task_prepare */
	t->task = NULL;
}

/**
 * tb_task_free - take a target off every list and free it
 * @t: NULL, or a target (installed or not) after tb_task_unlock()
 *
 * Process context, no lock held (it waits for a grace period). The
 * session's hardware is stopped: no CPU's tb_task_cpu points at it.
 */
void tb_task_free(struct tb_task *t)
{
	struct tb_task_group *g;
	struct hlist_node *tmp;
	unsigned int i, bkt, cpu;

	if (!t)
		return;
	if (t->installed) {
		raw_spin_lock(&tb_task_lock);
		list_del(&t->list);
		for (i = 0; i < t->nr_links; i++)
			list_del_rcu(&t->links[i].node);
		raw_spin_unlock(&tb_task_lock);
		/* No probe looks at t, its sets or its session any more. */
		synchronize_rcu();
		for_each_possible_cpu(cpu)
			WARN_ON_ONCE(READ_ONCE(per_cpu(tb_task_cpus, cpu).s) == t->s);
	}
	/* Off tb_task_all: no fork probe queues it again. */
	cancel_work_sync(&t->refill);
	hash_for_each_safe(t->groups, bkt, tmp, g, node) {
		hash_del(&g->node);
		put_task_struct(g->ref);	/* taken when it joined */
		kfree(g);
	}
	for (i = 0; i < t->nr_spare; i++)
		kfree(t->spare[i]);
	kfree(t->links);
	put_pid_ns(t->ns);	/* taken in tb_task_prepare */
	kfree(t);
	tb_task_put_probes();
}
