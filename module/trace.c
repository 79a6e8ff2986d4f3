// SPDX-License-Identifier: GPL-2.0
/*
 * Tracing on and off: ENABLE, DISABLE and SNAPSHOT, the drain timer, and
 * what CPU hotplug does to a session that traces.
 *
 * State, all under s->trace_lock (an IRQ-safe spinlock: it is taken in
 * IPI, hrtimer and irq_work context on the traced CPU):
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
 * without a backend hang up instead (session.c).
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

#include "internal.h"
#include "aux.h"
#include "backend.h"
#include "ring.h"

static unsigned int tb_drain_ms = 10;
module_param_named(drain_ms, tb_drain_ms, uint, 0644);
MODULE_PARM_DESC(drain_ms, "AUX drain period in milliseconds (1-1000)");

static ktime_t tb_drain_period(void)
{
	return ms_to_ktime(clamp_t(unsigned int, READ_ONCE(tb_drain_ms), 1, 1000));
}

static enum hrtimer_restart tb_drain_timer_fn(struct hrtimer *t)
{
	struct tb_session *s = container_of(t, struct tb_session, drain_timer);
	unsigned int cpu = smp_processor_id();

	bool any = s->backend->drain_any_cpu;

	spin_lock(&s->trace_lock);	/* hard hrtimer: interrupts are off */
	if (any && cpumask_empty(s->tr_active)) {
		/* Its last CPU stopped elsewhere: the next start re-arms it. */
		s->drain_cpu = -1;
		spin_unlock(&s->trace_lock);
		return HRTIMER_NORESTART;
	}
	if (s->tr_enabled && (any || cpumask_test_cpu(cpu, s->tr_active)))
		s->backend->drain(s, cpu);
	spin_unlock(&s->trace_lock);
	hrtimer_forward_now(t, tb_drain_period());
	return HRTIMER_RESTART;
}

/* On cpu, interrupts off, s->trace_lock held. */
static int tb_trace_start_here(struct tb_session *s, unsigned int cpu)
{
	int ret;

	lockdep_assert_held(&s->trace_lock);
	if (!s->tr_enabled || s->tr_error || !s->aux ||
	    cpumask_test_cpu(cpu, s->tr_active))
		return 0;
	ret = s->backend->start(s, cpu);
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

/* On cpu, interrupts off, s->trace_lock held. */
static void tb_trace_stop_here(struct tb_session *s, unsigned int cpu)
{
	lockdep_assert_held(&s->trace_lock);
	if (cpumask_test_cpu(cpu, s->tr_active)) {
		s->backend->stop(s, cpu);
		cpumask_clear_cpu(cpu, s->tr_active);
	}
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

	spin_lock(&c->s->trace_lock);	/* IPI: interrupts are off */
	c->ret = tb_trace_start_here(c->s, smp_processor_id());
	spin_unlock(&c->s->trace_lock);
}

static void tb_trace_stop_ipi(void *arg)
{
	struct tb_trace_call *c = arg;

	spin_lock(&c->s->trace_lock);	/* IPI: interrupts are off */
	tb_trace_stop_here(c->s, smp_processor_id());
	spin_unlock(&c->s->trace_lock);
}

/* Under s->lock. Stops every CPU, publishing; idempotent. */
void tb_trace_disable(struct tb_session *s)
{
	struct tb_trace_call c = { .s = s };
	unsigned long flags;
	unsigned int cpu;

	lockdep_assert_held(&s->lock);
	spin_lock_irqsave(&s->trace_lock, flags);
	s->tr_enabled = false;
	spin_unlock_irqrestore(&s->trace_lock, flags);
	/* An offline CPU was stopped by its teardown callback. */
	for_each_cpu(cpu, s->cpus)
		smp_call_function_single(cpu, tb_trace_stop_ipi, &c, 1);
	/*
	 * A CPU that went offline with the timer pinned on it had it
	 * cancelled there; this catches nothing else but costs nothing.
	 */
	hrtimer_cancel(&s->drain_timer);
	/*
	 * After the stops: a collision found while stopping is in its
	 * COLLISION span; DISABLE still leaves no error state behind.
	 */
	spin_lock_irqsave(&s->trace_lock, flags);
	s->tr_error = false;
	spin_unlock_irqrestore(&s->trace_lock, flags);
	if (s->ring)
		tb_ring_flags(s->ring, 0, TRACEBUF_CTL_F_ENABLED);
}

long tb_ioctl_enable(struct tb_session *s)
{
	struct tb_trace_call c = { .s = s };
	unsigned long flags;
	unsigned int cpu;
	int ret = 0, started = 0;

	mutex_lock(&s->lock);
	if (!s->setup_done) {
		ret = -EINVAL;
		goto out;
	}
	if (!s->backend) {
		ret = -ENODEV;
		goto out;
	}
	if (!s->aux) {
		ret = -ENXIO;
		goto out;
	}
	spin_lock_irqsave(&s->trace_lock, flags);
	if (s->tr_enabled) {
		ret = -EALREADY;	/* and an error state stays until DISABLE */
	} else {
		s->tr_enabled = true;
		s->tr_error = false;
	}
	spin_unlock_irqrestore(&s->trace_lock, flags);
	if (ret)
		goto out;
	for_each_cpu(cpu, s->cpus) {
		c.ret = 0;
		/* An offline CPU starts when it comes back (tb_trace_cpu_online). */
		if (smp_call_function_single(cpu, tb_trace_start_ipi, &c, 1))
			continue;
		if (c.ret) {
			ret = c.ret;
			break;
		}
		started++;
	}
	if (!ret && !started)
		ret = -ENODEV;	/* every traced CPU is offline */
	if (ret)
		tb_trace_disable(s);
	else
		tb_ring_flags(s->ring, TRACEBUF_CTL_F_ENABLED, 0);
out:
	mutex_unlock(&s->lock);
	return ret;
}

long tb_ioctl_disable(struct tb_session *s)
{
	int ret = 0;

	mutex_lock(&s->lock);
	if (!s->setup_done)
		ret = -EINVAL;
	else
		tb_trace_disable(s);
	mutex_unlock(&s->lock);
	return ret;
}

static int tb_trace_restart(struct tb_session *s,
			    void (*between)(struct tb_session *s, void *arg), void *arg);

long tb_ioctl_snapshot(struct tb_session *s)
{
	int ret = 0;

	mutex_lock(&s->lock);
	if (!s->aux || !s->aux->snapshot)
		ret = -EINVAL;
	else if (!s->tr_enabled)
		ret = -ENXIO;
	else
		ret = tb_trace_restart(s, NULL, NULL);	/* stop, publish, start */
	mutex_unlock(&s->lock);
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
	s->tr_error = true;
	if (cpumask_empty(s->tr_active))
		tb_ring_flags(s->ring, 0, TRACEBUF_CTL_F_ENABLED);
	tb_ring_kick(s->ring);
}

/* Hotplug teardown, on the CPU going down. */
void tb_trace_cpu_offline(struct tb_session *s, unsigned int cpu)
{
	unsigned long flags;

	spin_lock_irqsave(&s->trace_lock, flags);
	tb_trace_stop_here(s, cpu);
	spin_unlock_irqrestore(&s->trace_lock, flags);
}

/* Hotplug startup, on the CPU coming up. */
void tb_trace_cpu_online(struct tb_session *s, unsigned int cpu)
{
	unsigned long flags;
	int ret;

	spin_lock_irqsave(&s->trace_lock, flags);
	ret = tb_trace_start_here(s, cpu);
	if (ret) {
		s->tr_error = true;
		tb_ring_kick(s->ring);
	}
	spin_unlock_irqrestore(&s->trace_lock, flags);
}

struct tb_restart_call {
	struct tb_session *s;
	void (*between)(struct tb_session *s, void *arg);
	void *arg;
	bool done;			/* between() has run */
	int ret;			/* first restart that failed */
};

/* On a traced CPU: stop and publish, run between() once, restart. */
static void tb_trace_restart_ipi(void *arg)
{
	struct tb_restart_call *c = arg;
	struct tb_session *s = c->s;
	unsigned int cpu = smp_processor_id();
	int ret;

	spin_lock(&s->trace_lock);	/* IPI: interrupts are off */
	if (cpumask_test_cpu(cpu, s->tr_active)) {
		s->backend->stop(s, cpu);
		cpumask_clear_cpu(cpu, s->tr_active);
		if (c->between && !c->done) {
			c->between(s, c->arg);
			c->done = true;
		}
		/*
		 * Same IPI, same lock: no other session can take this CPU's
		 * hardware between the stop and the start.
		 */
		ret = tb_trace_start_here(s, cpu);
		if (ret) {
			c->ret = c->ret ?: ret;
			s->tr_error = true;
			tb_ring_kick(s->ring);
		}
	}
	spin_unlock(&s->trace_lock);
}

/*
 * Under s->lock: on every traced CPU, stop and publish, run between()
 * once (right after the first stop, or here if nothing was tracing) and
 * start again. SNAPSHOT and SET_DRV_CONFIG both use it.
 */
static int tb_trace_restart(struct tb_session *s,
			    void (*between)(struct tb_session *s, void *arg), void *arg)
{
	struct tb_restart_call c = { .s = s, .between = between, .arg = arg };
	unsigned int cpu;

	lockdep_assert_held(&s->lock);
	for_each_cpu(cpu, s->cpus)
		smp_call_function_single(cpu, tb_trace_restart_ipi, &c, 1);
	if (between && !c.done)
		between(s, arg);
	return c.ret;
}

/*
 * Under s->lock. Install a new backend configuration and make it take
 * effect: the AUX data written under the old one is published before
 * between() (the CONFIG record) runs, and the new one starts after it.
 * Returns the error of a CPU whose hardware refused to restart (that
 * session is then in the error state: EPOLLERR).
 */
int tb_trace_reconfigure(struct tb_session *s, const void *bcfg, size_t size,
			 void (*between)(struct tb_session *s, void *arg), void *arg)
{
	unsigned long flags;

	/* start() reads s->bcfg under trace_lock: swap it under the same. */
	spin_lock_irqsave(&s->trace_lock, flags);
	memcpy(s->bcfg, bcfg, size);
	spin_unlock_irqrestore(&s->trace_lock, flags);
	return tb_trace_restart(s, between, arg);
}

void tb_trace_init(struct tb_session *s)
{
	spin_lock_init(&s->trace_lock);
	s->drain_cpu = -1;
	hrtimer_init(&s->drain_timer, CLOCK_MONOTONIC, HRTIMER_MODE_REL_PINNED_HARD);
	s->drain_timer.function = tb_drain_timer_fn;
}
