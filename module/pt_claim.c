// SPDX-License-Identifier: GPL-2.0
/*
 * Exclusive ownership of a CPU's Intel PT unit that perf honours.
 *
 * While a session is enabled on a CPU, tracebuf holds a disabled CPU-wide
 * event of perf's own "intel_pt" PMU there, made in the kernel with
 * perf_event_create_kernel_counter(). Why that keeps perf off the unit
 * (read in Debian's 6.1 and 6.12 kernel/events/core.c and
 * arch/x86/events/intel/pt.c):
 *
 *  - pt_init() gives the PMU PERF_PMU_CAP_EXCLUSIVE. For such a PMU perf
 *    refuses, with -EBUSY, at event creation (not at scheduling):
 *    exclusive_event_init(), called by perf_event_alloc(), keeps
 *    pmu->exclusive_cnt negative while CPU-wide events exist and positive
 *    while per-task ones do, and refuses the other kind; and
 *    exclusive_event_installable(), called under the context's mutex by
 *    perf_event_open() and perf_event_create_kernel_counter() before
 *    perf_install_in_context(), refuses a second event of the PMU in the
 *    same context (a CPU's context, for CPU-wide events). So while our
 *    event exists, no per-task intel_pt event can be created on any CPU
 *    and no CPU-wide one on our CPU; the other CPUs stay free for
 *    CPU-wide users. The other way round, an existing intel_pt event makes
 *    our creation fail with -EBUSY: ENABLE returns it.
 *  - The event is created with attr.disabled: its state stays OFF, so
 *    perf never schedules it and never calls pt_event_add()/start(); the
 *    only PT code it runs is pt_event_init(), which validates the config
 *    (0 is valid), allocates the address-filter state and takes
 *    x86_add_exclusive(x86_lbr_exclusive_pt), perf's PT/LBR/BTS
 *    exclusion: the held event keeps perf's LBR call stacks and BTS off
 *    CPUs where PT cannot coexist with them (x86_pmu.lbr_pt_coexist clear,
 *    before Goldmont and Ice Lake), exactly as a perf PT user would, and
 *    where such a user exists ENABLE is -EBUSY. pt_event_init() touches
 *    no MSR; that function also raises active_events, so perf's NMI
 *    handler runs intel_pmu_handle_irq() on every NMI while we hold the
 *    event: it finds bit 55 already acknowledged by our handler (first in
 *    the chain) and only re-arms LVTPC.
 *  - perf checks the creator: find_get_context() requires perf_allow_cpu()
 *    (perf_event_paranoid <= 0 or CAP_PERFMON) of current for a CPU-wide
 *    event. tracebuf's own permission check (tb_perm_trace(), on the
 *    opener's credentials) is the gate; the event is made under the
 *    credentials of init_task (prepare_kernel_cred()), as kernel threads
 *    have, so that perf's check never refuses what tracebuf allowed.
 *
 * CPU hotplug: perf detaches every event of a dying CPU from its context
 * for good (perf_event_exit_cpu_context(): __perf_remove_from_context(),
 * DETACH_GROUP, at CPUHP_AP_PERF_ONLINE), so a held event would no longer
 * be seen by exclusive_event_installable() once the CPU is back. Our own
 * hotplug state (CPUHP_AP_ONLINE_DYN, registered before the sessions'
 * state, so it runs after their teardown and before their restart)
 * releases the event at offline and makes it again at online, as the
 * hard-lockup watchdog makes its perf events from its hotplug callback.
 * While the CPU is offline the claim is not held: a per-task intel_pt
 * event may be created then, and the restart at online fails: the
 * session goes into the error state (tb_pt_claim_held() is false, so
 * start() is -EBUSY).
 *
 * The PMU's type: the device named "intel_pt" on perf's event_source bus
 * (what /sys/bus/event_source/devices/intel_pt/type shows), found among
 * all devices with kset_find_obj() and read from its drvdata, the struct
 * pmu (pmu_dev_alloc() sets it), on 6.1 and 6.12 alike; no file system is
 * involved, so no mount namespace or kernfs lock. The PMU outlives the
 * lookup: the real one is built in (arch/x86/events/intel/pt.c) and never
 * unregistered; an emulator's (tests/modules/tb_ptemu.c) lives as long as
 * its module, which every session of the emulated backend pins. With no
 * intel_pt PMU nothing is claimed.
 *
 * Locking: tb_pt_claim_mutex protects the per-CPU claims. It nests inside
 * cpu_hotplug_lock (the hotplug callbacks) and s->claim_lock (trace.c),
 * and outside perf's context mutex. perf takes mmap_lock under that mutex
 * (perf_ioctl() copies from user memory under perf_event_ctx_lock()), and
 * s->lock nests inside mmap_lock, so no claim is ever made or released
 * under s->lock, tb_sessions_lock or mmap_lock.
 */
#include <linux/cpu.h>
#include <linux/cpuhotplug.h>
#include <linux/cred.h>
#include <linux/device.h>
#include <linux/err.h>
#include <linux/kobject.h>
#include <linux/mutex.h>
#include <linux/perf_event.h>
#include <linux/percpu.h>
#include <linux/sched/task.h>

#include "internal.h"
#include "pt_claim.h"

#define TB_PT_PMU_NAME	"intel_pt"

struct tb_pt_claim {
	/*
	 * The session holding this CPU's unit, from ENABLE until DISABLE,
	 * close or the release after its AUX munmap; NULL if none.
	 */
	struct tb_session *owner;
	/*
	 * perf's intel_pt event held for it; NULL with no PMU (type < 0),
	 * while the CPU is offline, or when making it again at online failed.
	 * Read locklessly by tb_pt_claim_held().
	 */
	struct perf_event *event;
	int type;			/* the PMU's type, -1: no intel_pt PMU */
};

static DEFINE_PER_CPU(struct tb_pt_claim, tb_pt_claims);
static DEFINE_MUTEX(tb_pt_claim_mutex);	/* the claims above; see the top */
static const struct cred *tb_pt_kcred;	/* init_task's, for perf's own check */
static enum cpuhp_state tb_pt_claim_state;

/* The type of perf's intel_pt PMU, or -1 if there is none. */
static int tb_pt_pmu_type(void)
{
	/* Every device's kobject is in devices_kset, ours included. */
	struct kobject *k = kset_find_obj(tb_device()->kobj.kset, TB_PT_PMU_NAME);
	struct device *dev;
	struct pmu *pmu;
	int type = -1;

	if (!k)
		return -1;
	dev = kobj_to_dev(k);
	if (dev->bus && !strcmp(dev->bus->name, "event_source")) {
		pmu = dev_get_drvdata(dev);
		if (pmu)
			type = pmu->type;
	}
	kobject_put(k);		/* the reference kset_find_obj() took */
	return type;
}

/* A disabled CPU-wide intel_pt event on cpu, or an ERR_PTR from perf. */
static struct perf_event *tb_pt_claim_make(int type, unsigned int cpu)
{
	struct perf_event_attr attr = {
		.type		= type,
		.size		= sizeof(attr),
		.disabled	= 1,	/* never scheduled: pt.c never runs add() */
	};
	const struct cred *old;
	struct perf_event *ev;

	old = override_creds(tb_pt_kcred);
	ev = perf_event_create_kernel_counter(&attr, cpu, NULL, NULL, NULL);
	revert_creds(old);
	/* The event pins its PMU's module: its name can be read. */
	if (!IS_ERR(ev) && strcmp(ev->pmu->name, TB_PT_PMU_NAME)) {
		perf_event_release_kernel(ev);
		ev = ERR_PTR(-ENODEV);
	}
	return ev;
}

/*
 * Hold cpu's PT unit for s: 0, or -EBUSY (perf's intel_pt has an event
 * that can run there, or another session holds it), -ENOMEM, -EACCES (a
 * security module refused), -EIO (perf refused for another reason).
 * Idempotent for the holder. Process context; the caller holds
 * s->claim_lock and no other tracebuf lock but cpus_read_lock().
 */
int tb_pt_claim(struct tb_session *s, unsigned int cpu)
{
	struct tb_pt_claim *c = per_cpu_ptr(&tb_pt_claims, cpu);
	int type = tb_pt_pmu_type();
	struct perf_event *ev = NULL;
	int ret = 0;

	mutex_lock(&tb_pt_claim_mutex);
	if (c->owner && c->owner != s) {
		ret = -EBUSY;
		goto out;
	}
	if (c->owner == s && (c->event || c->type < 0))
		goto out;	/* held already */
	if (type >= 0) {
		ev = tb_pt_claim_make(type, cpu);
		if (IS_ERR(ev)) {
			ret = PTR_ERR(ev);
			if (ret == -EBUSY)
				pr_info_ratelimited("tracebuf: intel_pt: cpu%u: perf's intel_pt has an event that can run here (or LBR/BTS users where PT cannot coexist with them): refused\n",
						    cpu);
			else if (ret != -ENOMEM && ret != -EACCES)
				pr_warn_ratelimited("tracebuf: intel_pt: cpu%u: perf refused the claim (%d)\n",
						    cpu, ret);
			if (ret != -EBUSY && ret != -ENOMEM && ret != -EACCES)
				ret = -EIO;
			goto out;
		}
	}
	/* READ_ONCE in tb_pt_claim_held(), on the traced CPU. */
	WRITE_ONCE(c->owner, s);
	WRITE_ONCE(c->type, type);
	WRITE_ONCE(c->event, ev);
out:
	mutex_unlock(&tb_pt_claim_mutex);
	return ret;
}

/* Give cpu's unit back, if s holds it. Same context as tb_pt_claim(). */
void tb_pt_unclaim(struct tb_session *s, unsigned int cpu)
{
	struct tb_pt_claim *c = per_cpu_ptr(&tb_pt_claims, cpu);
	struct perf_event *ev = NULL;

	mutex_lock(&tb_pt_claim_mutex);
	if (c->owner == s) {
		ev = c->event;
		WRITE_ONCE(c->event, NULL);
		WRITE_ONCE(c->owner, NULL);
	}
	if (ev)
		perf_event_release_kernel(ev);
	mutex_unlock(&tb_pt_claim_mutex);
}

/*
 * May s start tracing on cpu? It holds the claim and the event exists (or
 * there is no intel_pt PMU). On the traced CPU with interrupts off: the
 * claim was made before the start IPI (ENABLE) or by this CPU's own
 * hotplug callback before the sessions' one (online).
 */
bool tb_pt_claim_held(const struct tb_session *s, unsigned int cpu)
{
	const struct tb_pt_claim *c = per_cpu_ptr(&tb_pt_claims, cpu);

	return READ_ONCE(c->owner) == s &&
	       (READ_ONCE(c->event) || READ_ONCE(c->type) < 0);
}

/* On the CPU going down, after the sessions stopped it (see the top). */
static int tb_pt_claim_offline(unsigned int cpu)
{
	struct tb_pt_claim *c = per_cpu_ptr(&tb_pt_claims, cpu);
	struct perf_event *ev;

	mutex_lock(&tb_pt_claim_mutex);
	ev = c->event;
	WRITE_ONCE(c->event, NULL);	/* the owner keeps its place */
	if (ev)
		perf_event_release_kernel(ev);
	mutex_unlock(&tb_pt_claim_mutex);
	return 0;
}

/* On the CPU coming up, before the sessions restart it. */
static int tb_pt_claim_online(unsigned int cpu)
{
	struct tb_pt_claim *c = per_cpu_ptr(&tb_pt_claims, cpu);
	struct perf_event *ev;

	mutex_lock(&tb_pt_claim_mutex);
	if (c->owner && c->type >= 0 && !c->event) {
		ev = tb_pt_claim_make(c->type, cpu);
		if (IS_ERR(ev))
			pr_warn_ratelimited("tracebuf: intel_pt: cpu%u: perf's intel_pt took the unit while the CPU was offline (%ld): the session stops\n",
					    cpu, PTR_ERR(ev));
		else
			WRITE_ONCE(c->event, ev);
	}
	mutex_unlock(&tb_pt_claim_mutex);
	return 0;
}

/* Before the sessions' hotplug state: see the top of this file. */
int tb_pt_claim_init(void)
{
	int ret;

	tb_pt_kcred = prepare_kernel_cred(&init_task);
	if (!tb_pt_kcred)
		return -ENOMEM;
	ret = cpuhp_setup_state_nocalls(CPUHP_AP_ONLINE_DYN, "tracebuf/pt:claim",
					tb_pt_claim_online, tb_pt_claim_offline);
	if (ret < 0) {
		put_cred(tb_pt_kcred);
		return ret;
	}
	tb_pt_claim_state = ret;
	return 0;
}

/* Module exit: no session is left, so no claim is. */
void tb_pt_claim_exit(void)
{
	cpuhp_remove_state_nocalls(tb_pt_claim_state);
	put_cred(tb_pt_kcred);
}
