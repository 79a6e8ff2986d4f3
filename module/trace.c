// SPDX-License-Identifier: GPL-2.0
/*
 * Tracing on and off: ENABLE, DISABLE and SNAPSHOT, the drain timer, and
 * what CPU hotplug does to a session that traces.
 *
 * State, all under s->trace_lock (a raw spinlock: it is taken in IPI, hard
 * hrtimer and hard irq_work context, which stay atomic on PREEMPT_RT too):
 *   s->tr_enabled   the user asked for tracing (ENABLE without DISABLE)
 *   s->tr_active    CPUs where the backend is started
 *   s->tr_error     stopped on a collision or hardware error (EPOLLERR)
 * The backend's start/stop/drain always run on the traced CPU, with
 * interrupts off and s->trace_lock held, so they are serialised per
 * session. ENABLE/DISABLE/SNAPSHOT are also serialised by s->lock.
 *
 * CPU hotplug: a traced CPU going offline is stopped and its data
 * published from its own teardown callback; when it comes back online
 * and the session is still enabled, tracing restarts there. Sessions
 * without a backend hang up instead (session.c). Every loop of IPIs over
 * s->cpus that may start the hardware runs under cpus_read_lock(), so no
 * CPU changes state in the middle of one: an online CPU always gets its
 * IPI (a failure is a bug, and warns), an offline one was stopped by its
 * teardown callback and is started by its startup callback. Stopping
 * needs no such lock (tb_trace_disable). Lock order: s->claim_lock ->
 * cpu_hotplug_lock -> s->lock -> tb_sessions_lock -> s->trace_lock.
 *
 * The claim (backend.h; Intel PT: pt_claim.c) is made and given back
 * only under s->claim_lock and never under s->lock, tb_sessions_lock or
 * mmap_lock: it takes perf's context mutex, under which perf takes
 * mmap_lock (perf_ioctl()), and s->lock nests inside mmap_lock (mmap). So
 * ENABLE checks under s->lock, claims with s->lock dropped, then checks
 * again and starts; DISABLE gives the claim back after dropping s->lock;
 * the last AUX munmap (under mmap_lock and s->lock) leaves it to a work
 * item (tb_trace_unclaim_later); close gives it back (tb_trace_release).
 * A CPU going offline and online is the backend's business (its own
 * hotplug state, ahead of the sessions').
 *
 * A task session (TARGET_TASK, task.c) is started and stopped on each of
 * its CPUs by the scheduler's tracepoints as its threads come and go
 * (tb_trace_task_in/out, under the runqueue lock: runqueue lock ->
 * s->trace_lock), and by the IPIs above for the thread current at that
 * moment. tr_active then says on which CPUs a traced thread runs with the
 * hardware on; every stop writes that thread's SWITCH OUT record, every
 * start its IN record first. Such starts come outside cpus_read_lock(),
 * but never on a CPU that is not active (task.c), so still never on a CPU
 * whose teardown callback has run.
 *
 * The drain timer: a pinned hard hrtimer on the session's first active
 * CPU, every tb_drain_ms. It publishes whatever the hardware wrote (so a
 * lost PMI never loses data), detects collisions, and restarts a ring that
 * stopped full once the consumer has made room.
 */
#include <linux/cpu.h>
#include <linux/hrtimer.h>
#include <linux/ktime.h>
#include <linux/module.h>
#include <linux/smp.h>
#include <linux/workqueue.h>

#include "internal.h"
#include "aux.h"
#include "backend.h"
#include "ring.h"

static unsigned int tb_drain_ms = 10;
module_param_named(drain_ms, tb_drain_ms, uint, 0644);
MODULE_PARM_DESC(drain_ms, "AUX drain period in milliseconds (1-1000)");

/*
 * Set once by the reboot notifier (session.c): from then on nothing starts.
 * Read under s->trace_lock in tb_trace_start_here(); the notifier stores it
 * before its first stop IPI, so a start that takes a session's trace_lock
 * after that IPI's stop released it sees it.
 */
static bool tb_going_down;

/*
 * Claims given back after an AUX munmap. ENABLE flushes it first, so a
 * unit released that way is free for the next session at once.
 */
static struct workqueue_struct *tb_unclaim_wq;

static ktime_t tb_drain_period(void)
{
	return ms_to_ktime(clamp_t(unsigned int, READ_ONCE(tb_drain_ms), 1, 1000));
}

static enum hrtimer_restart tb_drain_timer_fn(struct hrtimer *t)
{
	struct tb_session *s = container_of(t, struct tb_session, drain_timer);
	unsigned int cpu = smp_processor_id();

	bool any = s->backend->drain_any_cpu;

	raw_spin_lock(&s->trace_lock);	/* hard hrtimer: interrupts are off */
	if (any && cpumask_empty(s->tr_active)) {
		/* Its last CPU stopped elsewhere: the next start re-arms it. */
		s->drain_cpu = -1;
		raw_spin_unlock(&s->trace_lock);
		return HRTIMER_NORESTART;
	}
	if (s->tr_enabled && (any || cpumask_test_cpu(cpu, s->tr_active)))
		s->backend->drain(s, cpu);
	raw_spin_unlock(&s->trace_lock);
	hrtimer_forward_now(t, tb_drain_period());
	return HRTIMER_RESTART;
}

/*
 * On cpu, interrupts off, s->trace_lock held. A task session (task.c)
 * starts only for a thread it traces, after that thread's IN record.
 */
static int tb_trace_start_here(struct tb_session *s, unsigned int cpu)
{
	struct tracebuf_wr in;
	int ret;

	lockdep_assert_held(&s->trace_lock);
	if (!s->tr_enabled || s->tr_error || s->tr_hold || !s->aux ||
	    cpumask_test_cpu(cpu, s->tr_active))
		return 0;
	if (READ_ONCE(tb_going_down))
		return -ESHUTDOWN;
	if (s->task && !tb_task_switch_in(s, cpu, &in))
		return 0;
	ret = s->backend->start(s, cpu);
	if (s->task) {
		tb_task_switch_in_done(s, cpu, &in, ret);
		/* Another owner holds the unit: this run goes untraced (BUSY). */
		if (ret == -EBUSY)
			return 0;
	}
	if (ret)
		return ret;
	cpumask_set_cpu(cpu, s->tr_active);
	if (s->drain_cpu < 0) {
		s->drain_cpu = cpu;
		hrtimer_start(&s->drain_timer, tb_drain_period(),
			      HRTIMER_MODE_REL_PINNED_HARD);
	}
	return 0;
}

/* Stop and publish on this CPU; a task session says where its thread ended. */
static void tb_trace_stop_cpu(struct tb_session *s, unsigned int cpu)
{
	s->backend->stop(s, cpu);
	cpumask_clear_cpu(cpu, s->tr_active);
	if (s->task)
		tb_task_switch_out(s, cpu);
}

/* On cpu, interrupts off, s->trace_lock held. */
static void tb_trace_stop_here(struct tb_session *s, unsigned int cpu)
{
	lockdep_assert_held(&s->trace_lock);
	if (!s->backend)
		return;		/* a data-ring-only session never started */
	if (cpumask_test_cpu(cpu, s->tr_active))
		tb_trace_stop_cpu(s, cpu);
	/*
	 * A backend that drains from any CPU keeps its timer while other
	 * CPUs trace; if this CPU goes offline, the hotplug core migrates
	 * the timer, and the callback stops it once no CPU is left.
	 */
	if (s->backend->drain_any_cpu && !cpumask_empty(s->tr_active))
		return;
	if (s->drain_cpu == cpu) {
		/*
		 * The timer is pinned here and interrupts are off, so its
		 * callback is not running: the cancel cannot fail.
		 */
		hrtimer_try_to_cancel(&s->drain_timer);
		s->drain_cpu = -1;
	}
}

struct tb_trace_call {
	struct tb_session *s;
	int ret;
};

static void tb_trace_start_ipi(void *arg)
{
	struct tb_trace_call *c = arg;

	raw_spin_lock(&c->s->trace_lock);	/* IPI: interrupts are off */
	c->ret = tb_trace_start_here(c->s, smp_processor_id());
	raw_spin_unlock(&c->s->trace_lock);
}

static void tb_trace_stop_ipi(void *arg)
{
	struct tb_trace_call *c = arg;

	raw_spin_lock(&c->s->trace_lock);	/* IPI: interrupts are off */
	tb_trace_stop_here(c->s, smp_processor_id());
	raw_spin_unlock(&c->s->trace_lock);
}

/*
 * Run fn on every online CPU of the session, one at a time, waiting for
 * each. The caller holds cpus_read_lock(): the online mask cannot change,
 * so the IPI cannot fail.
 */
static void tb_trace_on_cpus(const struct cpumask *cpus, smp_call_func_t fn,
			     void *arg, const int *stop_at_error)
{
	unsigned int cpu;

	for_each_cpu_and(cpu, cpus, cpu_online_mask) {
		WARN_ON_ONCE(smp_call_function_single(cpu, fn, arg, 1));
		if (stop_at_error && *stop_at_error)
			break;
	}
}

/*
 * Under s->lock. Stops every CPU, publishing; idempotent, and a no-op for
 * a session without a backend. It needs no cpus_read_lock() (the last
 * AUX munmap calls it under mmap_lock): every start runs under that lock,
 * in the startup callback, or (task sessions) on an active CPU, and
 * tr_enabled is clear before the first stop IPI, so a CPU this loop
 * cannot reach is offline, and its teardown callback stopped it before it
 * left the online mask.
 */
void tb_trace_disable(struct tb_session *s)
{
	struct tb_trace_call c = { .s = s };
	unsigned long flags;
	unsigned int cpu;

	lockdep_assert_held(&s->lock);
	raw_spin_lock_irqsave(&s->trace_lock, flags);
	s->tr_enabled = false;
	raw_spin_unlock_irqrestore(&s->trace_lock, flags);
	if (s->backend) {
		/* -ENXIO: offline, and stopped by its teardown callback. */
		for_each_cpu(cpu, s->cpus)
			smp_call_function_single(cpu, tb_trace_stop_ipi, &c, 1);
		/* A timer callback still running finds tr_enabled clear. */
		hrtimer_cancel(&s->drain_timer);
		WARN_ON_ONCE(!cpumask_empty(s->tr_active));
		if (s->backend->stopped)
			s->backend->stopped(s);
	}
	/*
	 * After the stops: a collision found while stopping is in its
	 * COLLISION span; DISABLE still leaves no error state behind.
	 */
	raw_spin_lock_irqsave(&s->trace_lock, flags);
	s->tr_error = false;
	raw_spin_unlock_irqrestore(&s->trace_lock, flags);
	if (s->ring)
		tb_ring_flags(s->ring, 0, TRACEBUF_CTL_F_ENABLED);
}

static bool tb_trace_enabled(struct tb_session *s)
{
	unsigned long flags;
	bool on;

	raw_spin_lock_irqsave(&s->trace_lock, flags);
	on = s->tr_enabled;
	raw_spin_unlock_irqrestore(&s->trace_lock, flags);
	return on;
}

/* Under s->lock: may ENABLE start? */
static int tb_trace_enable_check(struct tb_session *s)
{
	int ret;

	lockdep_assert_held(&s->lock);
	if (!s->setup_done)
		return -EINVAL;
	if (!s->backend)
		return -ENODEV;
	if (!s->aux)
		return -ENXIO;
	if (READ_ONCE(tb_going_down))
		return -ESHUTDOWN;	/* the machine is going down */
	ret = tb_perm_trace(s);
	if (ret)
		return ret;
	if (!cpumask_intersects(s->cpus, cpu_online_mask))
		return -ENODEV;	/* every traced CPU is offline */
	if (tb_trace_enabled(s))
		return -EALREADY;	/* and an error state stays until DISABLE */
	return 0;
}

long tb_ioctl_enable(struct tb_session *s)
{
	struct tb_trace_call c = { .s = s };
	const struct tb_backend *b;
	unsigned long flags;
	int ret;

	/* Claims an AUX munmap left to the work item are given back first. */
	flush_workqueue(tb_unclaim_wq);
	mutex_lock(&s->claim_lock);
	cpus_read_lock();	/* the IPI loop: see the top of this file */
	mutex_lock(&s->lock);
	ret = tb_trace_enable_check(s);
	b = s->backend;		/* final once the AUX area exists */
	mutex_unlock(&s->lock);
	if (ret)
		goto out;
	/* Without s->lock: see the top of this file. */
	if (b->claim) {
		ret = b->claim(s);
		if (ret)
			goto out;
	}
	/* Again: an AUX munmap may have come in between. */
	mutex_lock(&s->lock);
	ret = tb_trace_enable_check(s);
	if (!ret) {
		raw_spin_lock_irqsave(&s->trace_lock, flags);
		s->tr_enabled = true;
		s->tr_error = false;
		raw_spin_unlock_irqrestore(&s->trace_lock, flags);
		/* An offline CPU starts when it comes back (tb_trace_cpu_online). */
		tb_trace_on_cpus(s->cpus, tb_trace_start_ipi, &c, &c.ret);
		ret = c.ret;
		if (ret)
			tb_trace_disable(s);
		else
			tb_ring_flags(s->ring, TRACEBUF_CTL_F_ENABLED, 0);
	}
	mutex_unlock(&s->lock);
	/*
	 * Not enabled (claim_lock keeps other ENABLEs and DISABLEs out, so
	 * the claim is this call's): give it back.
	 */
	if (ret && b->unclaim)
		b->unclaim(s);
out:
	cpus_read_unlock();
	mutex_unlock(&s->claim_lock);
	return ret;
}

/* The reboot notifier: nothing starts from now on (see tb_going_down). */
void tb_trace_going_down(void)
{
	WRITE_ONCE(tb_going_down, true);
	smp_mb();	/* the flag before the stop IPIs' trace_lock rounds */
}

/*
 * Reboot, halt, power-off or kexec (the notifier in session.c): stop every
 * CPU of the session and publish, without s->lock (the notifier holds
 * tb_sessions_lock, which nests inside it). The caller holds
 * cpus_read_lock(), so every online CPU gets its IPI; an offline one was
 * stopped by its teardown callback, and neither ENABLE, a restart nor the
 * startup callback can start a CPU after tb_trace_going_down(). A DISABLE
 * or AUX munmap running at the same time stops the same CPUs: stopping
 * is idempotent under trace_lock, and a CPU whose AUX area is going away
 * was stopped (tr_active cleared) before the area is freed.
 */
void tb_trace_shutdown(struct tb_session *s)
{
	struct tb_trace_call c = { .s = s };
	unsigned long flags;

	raw_spin_lock_irqsave(&s->trace_lock, flags);
	s->tr_enabled = false;
	raw_spin_unlock_irqrestore(&s->trace_lock, flags);
	tb_trace_on_cpus(s->cpus, tb_trace_stop_ipi, &c, NULL);
	/* A timer callback still running finds tr_enabled clear. */
	hrtimer_cancel(&s->drain_timer);
	if (s->ring)
		tb_ring_flags(s->ring, 0, TRACEBUF_CTL_F_ENABLED);
}

long tb_ioctl_disable(struct tb_session *s)
{
	const struct tb_backend *b;
	int ret = 0;

	mutex_lock(&s->claim_lock);
	cpus_read_lock();	/* the IPI loop: see the top of this file */
	mutex_lock(&s->lock);
	if (!s->setup_done)
		ret = -EINVAL;
	else
		tb_trace_disable(s);
	b = s->backend;
	mutex_unlock(&s->lock);
	/* Stopped everywhere: the claim goes back, outside s->lock. */
	if (!ret && b && b->unclaim)
		b->unclaim(s);
	cpus_read_unlock();
	mutex_unlock(&s->claim_lock);
	return ret;
}

/*
 * After an AUX munmap (tb_trace_unclaim_later): give the claim back unless
 * the session was enabled again meanwhile (a new AUX area and ENABLE).
 */
static void tb_trace_unclaim_work(struct work_struct *w)
{
	struct tb_session *s = container_of(w, struct tb_session, unclaim_work);
	const struct tb_backend *b;
	bool enabled;

	mutex_lock(&s->claim_lock);
	mutex_lock(&s->lock);
	enabled = tb_trace_enabled(s);	/* set only by ENABLE, under claim_lock */
	b = s->backend;
	mutex_unlock(&s->lock);
	if (!enabled && b && b->unclaim)
		b->unclaim(s);
	mutex_unlock(&s->claim_lock);
}

/*
 * The last AUX munmap stopped tracing (tb_trace_disable) under mmap_lock
 * and s->lock, where the claim cannot be given back: a work item does it.
 */
void tb_trace_unclaim_later(struct tb_session *s)
{
	lockdep_assert_held(&s->lock);
	if (s->backend && s->backend->unclaim)
		queue_work(tb_unclaim_wq, &s->unclaim_work);
}

/* Release of the file: no ioctl, mapping or work can reach s after this. */
void tb_trace_release(struct tb_session *s)
{
	cancel_work_sync(&s->unclaim_work);
	mutex_lock(&s->claim_lock);
	if (s->backend && s->backend->unclaim)
		s->backend->unclaim(s);
	mutex_unlock(&s->claim_lock);
	mutex_destroy(&s->claim_lock);
}

static int tb_trace_restart(struct tb_session *s,
			    void (*between)(struct tb_session *s, void *arg), void *arg);

long tb_ioctl_snapshot(struct tb_session *s)
{
	int ret = 0;

	cpus_read_lock();	/* the IPI loop: see the top of this file */
	mutex_lock(&s->lock);
	if (!s->aux || !s->aux->snapshot)
		ret = -EINVAL;
	else if (!s->tr_enabled)
		ret = -ENXIO;
	else if (s->backend->snapshot)
		ret = s->backend->snapshot(s);		/* its own stop, publish, start */
	else
		ret = tb_trace_restart(s, NULL, NULL);	/* stop, publish, start */
	mutex_unlock(&s->lock);
	cpus_read_unlock();
	return ret;
}

/*
 * The backend stopped on its own because of a collision or a hardware
 * error: it has already published. On the traced CPU, trace_lock held.
 */
void tb_trace_error(struct tb_session *s, unsigned int cpu)
{
	lockdep_assert_held(&s->trace_lock);
	cpumask_clear_cpu(cpu, s->tr_active);
	if (s->task)
		tb_task_switch_out(s, cpu);
	s->tr_error = true;
	/* ENABLED means tracing: it drops with the last CPU (EPOLLERR stays). */
	if (cpumask_empty(s->tr_active))
		tb_ring_flags(s->ring, 0, TRACEBUF_CTL_F_ENABLED);
	tb_ring_kick(s->ring);
}

/* Hotplug teardown, on the CPU going down. */
void tb_trace_cpu_offline(struct tb_session *s, unsigned int cpu)
{
	unsigned long flags;

	raw_spin_lock_irqsave(&s->trace_lock, flags);
	tb_trace_stop_here(s, cpu);
	raw_spin_unlock_irqrestore(&s->trace_lock, flags);
}

/* Hotplug startup, on the CPU coming up. */
void tb_trace_cpu_online(struct tb_session *s, unsigned int cpu)
{
	unsigned long flags;
	int ret;

	raw_spin_lock_irqsave(&s->trace_lock, flags);
	ret = tb_trace_start_here(s, cpu);
	/* The error state, and ENABLED cleared if no CPU traces now. */
	if (ret)
		tb_trace_error(s, cpu);
	raw_spin_unlock_irqrestore(&s->trace_lock, flags);
}

/*
 * A task session's thread is about to run on this CPU (task.c: the
 * sched_switch and exec probes), interrupts off: start for it. A failure
 * other than a busy unit puts the session in the error state, as a
 * failed restart does.
 */
void tb_trace_task_in(struct tb_session *s, unsigned int cpu)
{
	int ret;

	raw_spin_lock(&s->trace_lock);	/* interrupts are off */
	ret = tb_trace_start_here(s, cpu);
	if (ret && ret != -ESHUTDOWN) {
		s->tr_error = true;
		tb_ring_kick(s->ring);
	}
	raw_spin_unlock(&s->trace_lock);
}

/* The thread the hardware runs for leaves this CPU (task.c), interrupts off. */
void tb_trace_task_out(struct tb_session *s, unsigned int cpu)
{
	raw_spin_lock(&s->trace_lock);	/* interrupts are off */
	tb_trace_stop_here(s, cpu);
	raw_spin_unlock(&s->trace_lock);
}

struct tb_restart_call {
	struct tb_session *s;
	/* Optional: installed, then between() runs, right after the stop. */
	const void *bcfg;
	size_t bcfg_size;
	void (*between)(struct tb_session *s, void *arg);
	void *arg;
	bool done;			/* bcfg installed and between() has run */
	int ret;			/* first restart that failed */
	cpumask_var_t stopped;		/* two-round reconfigure: CPUs to start */
};

/* Under trace_lock, interrupts off: install the new configuration, once. */
static void tb_trace_between(struct tb_restart_call *c)
{
	struct tb_session *s = c->s;

	lockdep_assert_held(&s->trace_lock);
	if (c->done)
		return;
	/* start() reads s->bcfg under trace_lock: swap it under the same. */
	if (c->bcfg)
		memcpy(s->bcfg, c->bcfg, c->bcfg_size);
	/* Preemption is off here: the reservation is never held across a sleep. */
	if (c->between)
		c->between(s, c->arg);
	c->done = true;
}

/*
 * A restart of one CPU failed: that CPU stays stopped, the session errs
 * (and ENABLED drops if no CPU traces now). On that CPU, trace_lock held.
 */
static void tb_trace_restart_failed(struct tb_restart_call *c, int ret)
{
	c->ret = c->ret ?: ret;
	tb_trace_error(c->s, smp_processor_id());
}

/* On a traced CPU: stop and publish, install (once), restart. */
static void tb_trace_restart_ipi(void *arg)
{
	struct tb_restart_call *c = arg;
	struct tb_session *s = c->s;
	unsigned int cpu = smp_processor_id();
	int ret;

	raw_spin_lock(&s->trace_lock);	/* IPI: interrupts are off */
	if (cpumask_test_cpu(cpu, s->tr_active)) {
		tb_trace_stop_cpu(s, cpu);
		tb_trace_between(c);
		/*
		 * Same IPI, same lock: no other session can take this CPU's
		 * hardware between the stop and the start.
		 */
		ret = tb_trace_start_here(s, cpu);
		if (ret)
			tb_trace_restart_failed(c, ret);
	}
	raw_spin_unlock(&s->trace_lock);
}

/* Round one of a reconfigure: stop and publish, remember the CPU. */
static void tb_trace_pause_ipi(void *arg)
{
	struct tb_restart_call *c = arg;
	struct tb_session *s = c->s;
	unsigned int cpu = smp_processor_id();

	raw_spin_lock(&s->trace_lock);	/* IPI: interrupts are off */
	if (cpumask_test_cpu(cpu, s->tr_active)) {
		tb_trace_stop_cpu(s, cpu);
		cpumask_set_cpu(cpu, c->stopped);
	}
	raw_spin_unlock(&s->trace_lock);
}

/* Round two: start again, under the configuration installed in between. */
static void tb_trace_resume_ipi(void *arg)
{
	struct tb_restart_call *c = arg;
	struct tb_session *s = c->s;
	int ret;

	raw_spin_lock(&s->trace_lock);	/* IPI: interrupts are off */
	ret = tb_trace_start_here(s, smp_processor_id());
	if (ret)
		tb_trace_restart_failed(c, ret);
	raw_spin_unlock(&s->trace_lock);
}

/* Install and run between() here, when no CPU needed a restart. */
static void tb_trace_between_locked(struct tb_restart_call *c)
{
	unsigned long flags;

	raw_spin_lock_irqsave(&c->s->trace_lock, flags);
	tb_trace_between(c);
	raw_spin_unlock_irqrestore(&c->s->trace_lock, flags);
}

/*
 * A task session's threads start on their own (task.c): hold them off
 * while a reconfiguration has some CPUs stopped, so none runs the old
 * configuration after the CONFIG record.
 */
static void tb_trace_hold(struct tb_session *s, bool hold)
{
	unsigned long flags;

	raw_spin_lock_irqsave(&s->trace_lock, flags);
	s->tr_hold = hold;
	raw_spin_unlock_irqrestore(&s->trace_lock, flags);
}

/*
 * Under cpus_read_lock() and s->lock: on every traced CPU, stop and
 * publish, install the new configuration and run between() once (right
 * after the first stop, or here if nothing was tracing), and start again.
 * SNAPSHOT and a SET_DRV_CONFIG on a one-CPU session do it in one IPI per
 * CPU.
 */
static int tb_trace_restart_one(struct tb_restart_call *c)
{
	struct tb_session *s = c->s;

	lockdep_assert_held(&s->lock);
	tb_trace_on_cpus(s->cpus, tb_trace_restart_ipi, c, NULL);
	if (!c->done)
		tb_trace_between_locked(c);
	return c->ret;
}

static int tb_trace_restart(struct tb_session *s,
			    void (*between)(struct tb_session *s, void *arg), void *arg)
{
	struct tb_restart_call c = { .s = s, .between = between, .arg = arg };

	return tb_trace_restart_one(&c);
}

/*
 * Under cpus_read_lock() and s->lock. Install a new backend configuration
 * and make it take effect with no window: every byte written under the
 * old one is published before between() (the CONFIG record) runs, and no
 * CPU runs the new one before it. One CPU: stop, install, record, start,
 * in one IPI. Several CPUs (a shared sink), or a backend whose stop
 * leaves part of the publication to process context (the stopped op):
 * stop all, publish what they left, then install and record, then start
 * all; a drain in between finds nothing active. Returns
 * the error of a CPU whose hardware refused to restart (the session is
 * then in the error state: EPOLLERR).
 */
int tb_trace_reconfigure(struct tb_session *s, const void *bcfg, size_t size,
			 void (*between)(struct tb_session *s, void *arg), void *arg)
{
	struct tb_restart_call c = {
		.s = s, .bcfg = bcfg, .bcfg_size = size,
		.between = between, .arg = arg,
	};

	lockdep_assert_held(&s->lock);
	/*
	 * A backend that leaves part of a stop to process context (the
	 * stopped op: CoreSight's ETB/ETF copy-out, an ETR's deferred
	 * syncs) runs it between the rounds, before the CONFIG record.
	 */
	if (!s->backend || (cpumask_weight(s->cpus) <= 1 && !s->backend->stopped))
		return tb_trace_restart_one(&c);
	if (!zalloc_cpumask_var(&c.stopped, GFP_KERNEL))
		return -ENOMEM;
	tb_trace_hold(s, true);
	tb_trace_on_cpus(s->cpus, tb_trace_pause_ipi, &c, NULL);
	if (s->backend->stopped)
		s->backend->stopped(s);
	tb_trace_between_locked(&c);
	tb_trace_hold(s, false);
	/*
	 * A task session's threads may have moved meanwhile (and no thread
	 * started: tr_hold): each CPU starts for whatever runs there now.
	 */
	tb_trace_on_cpus(s->task ? s->cpus : c.stopped, tb_trace_resume_ipi, &c, NULL);
	free_cpumask_var(c.stopped);
	return c.ret;
}

int tb_trace_module_init(void)
{
	tb_unclaim_wq = alloc_workqueue("tracebuf_unclaim", 0, 0);
	return tb_unclaim_wq ? 0 : -ENOMEM;
}

void tb_trace_module_exit(void)
{
	destroy_workqueue(tb_unclaim_wq);	/* every session is gone */
}

void tb_trace_init(struct tb_session *s)
{
	mutex_init(&s->claim_lock);
	INIT_WORK(&s->unclaim_work, tb_trace_unclaim_work);
	raw_spin_lock_init(&s->trace_lock);
	s->drain_cpu = -1;
	hrtimer_init(&s->drain_timer, CLOCK_MONOTONIC, HRTIMER_MODE_REL_PINNED_HARD);
	s->drain_timer.function = tb_drain_timer_fn;
}
