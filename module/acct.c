// SPDX-License-Identifier: GPL-2.0
/*
 * Pinned memory and permissions, as perf has them.
 *
 * Memory. Every page a session pins (the data ring and its control page,
 * the AUX pages and the backend's output tables) is charged when it is
 * allocated and uncharged when it is freed, by the rule of perf_mmap()
 * (kernel/events/core.c): up to mlock_kb KiB per online CPU are charged
 * to a per-user allowance of tracebuf's own (perf keeps its own too,
 * user_struct's perf_mlock; the user's locked_vm, which io_uring and
 * networking charge against RLIMIT_MEMLOCK, is left alone); the rest goes
 * to the caller's mm->pinned_vm (VmPin), which must stay
 * within RLIMIT_MEMLOCK unless the caller has CAP_IPC_LOCK or paranoid is
 * -1. A refusal is -EPERM, as perf's. The charge keeps references to the
 * user's allowance and the mm, so it is given back exactly even when the process
 * that made it is gone (an fd passed with SCM_RIGHTS). The pages are
 * also allocated __GFP_ACCOUNT, so the memory cgroup sees them.
 *
 * Permissions. paranoid mirrors perf_event_paranoid's levels: CPU-wide
 * tracing needs CAP_PERFMON (or CAP_SYS_ADMIN) unless paranoid <= 0;
 * tracing a process (TARGET_TASK) needs it only above 2, and the opener
 * must be allowed to ptrace the process (checked at SETUP); kernel mode
 * for a process needs it above 1 (perf_allow_kernel()). Like perf, which
 * decides at perf_event_open(), the credentials are the opener's
 * (file->f_cred), checked at the call that starts tracing. Privileged
 * driver-configuration keys need CAP_PERFMON at every level, but for a
 * task session kernel-mode keys follow the rule above; a CR3 filter,
 * which would echo a physical address, always needs it.
 */
#include <linux/capability.h>
#include <linux/cred.h>
#include <linux/fs.h>
#include <linux/hashtable.h>
#include <linux/mm.h>
#include <linux/moduleparam.h>
#include <linux/rcupdate.h>
#include <linux/sched.h>
#include <linux/sched/coredump.h>
#include <linux/sched/mm.h>
#include <linux/sched/signal.h>
#include <linux/sched/user.h>
#include <linux/slab.h>
#include <linux/uidgid.h>

#include "internal.h"
#include "drvcfg.h"

/* perf_event_mlock_kb's default: 512 KiB and a control page. */
static unsigned int tb_mlock_kb = 516;
module_param_named(mlock_kb, tb_mlock_kb, uint, 0644);
MODULE_PARM_DESC(mlock_kb, "Pages a user may pin without RLIMIT_MEMLOCK, in KiB per online CPU (as perf_event_mlock_kb)");

static int tb_paranoid = 2;
module_param_named(paranoid, tb_paranoid, int, 0644);
MODULE_PARM_DESC(paranoid, "As perf_event_paranoid: tracing a process without CAP_PERFMON at <= 2, in kernel mode at <= 1, CPU-wide at <= 0; -1 also lifts RLIMIT_MEMLOCK");

/*
 * One user's pages within the allowance (perf's user->perf_mlock). An
 * entry lives while a charge refers to it.
 */
struct tb_user {
	struct hlist_node node;		/* in tb_users, under tb_users_lock */
	kuid_t uid;
	unsigned long pages;		/* under tb_users_lock */
	unsigned int refs;		/* charges pointing here; under tb_users_lock */
};

static DEFINE_HASHTABLE(tb_users, 6);
static DEFINE_SPINLOCK(tb_users_lock);	/* tb_users and every tb_user */

static struct tb_user *tb_user_find(kuid_t uid)
{
	struct tb_user *u;

	hash_for_each_possible(tb_users, u, node, __kuid_val(uid))
		if (uid_eq(u->uid, uid))
			return u;
	return NULL;
}

/**
 * tb_charge - charge pages about to be pinned to the caller
 * @c: the charge of one area; pages accumulate in it
 * @pages: how many more
 *
 * Returns 0 or -EPERM (over the per-user allowance and RLIMIT_MEMLOCK).
 */
int tb_charge(struct tb_charge *c, unsigned long pages)
{
	kuid_t uid = current_uid();
	struct mm_struct *mm = current->mm;
	unsigned long limit, locked, extra = 0;
	struct tb_user *u, *fresh;
	int ret = 0;

	if (WARN_ON_ONCE(c->user && !uid_eq(c->user->uid, uid)))
		return -EPERM;
	fresh = kzalloc(sizeof(*fresh), GFP_KERNEL_ACCOUNT);
	if (!fresh)
		return -ENOMEM;
	spin_lock(&tb_users_lock);
	u = c->user ?: tb_user_find(uid);
	if (!u) {
		u = fresh;
		fresh = NULL;
		u->uid = uid;
		hash_add(tb_users, &u->node, __kuid_val(uid));
	}
	/* perf_mmap(): the per-user part first, capped at the allowance. */
	limit = (READ_ONCE(tb_mlock_kb) >> (PAGE_SHIFT - 10)) * num_online_cpus();
	locked = min(u->pages, limit) + pages;
	if (locked > limit)
		extra = locked - limit;
	if (extra &&
	    (!mm || (c->mm && c->mm != mm) ||
	     (atomic64_read(&mm->pinned_vm) + extra > rlimit(RLIMIT_MEMLOCK) >> PAGE_SHIFT &&
	      READ_ONCE(tb_paranoid) > -1 && !capable(CAP_IPC_LOCK)))) {
		ret = -EPERM;
		goto out;
	}
	u->pages += pages - extra;
	if (!c->user) {
		u->refs++;		/* dropped in tb_uncharge() */
		c->user = u;
	}
	c->user_pages += pages - extra;
	if (extra) {
		atomic64_add(extra, &mm->pinned_vm);
		if (!c->mm) {
			mmgrab(mm);		/* dropped in tb_uncharge() */
			c->mm = mm;
		}
		c->pinned_pages += extra;
	}
out:
	if (!u->refs) {			/* a fresh entry nobody took */
		hash_del(&u->node);
		fresh = u;
	}
	spin_unlock(&tb_users_lock);
	kfree(fresh);
	return ret;
}

/* Give back everything c holds; c is empty again. */
void tb_uncharge(struct tb_charge *c)
{
	struct tb_user *gone = NULL;

	if (c->user) {
		spin_lock(&tb_users_lock);
		c->user->pages -= c->user_pages;
		if (!--c->user->refs) {	/* taken in tb_charge() */
			WARN_ON_ONCE(c->user->pages);
			hash_del(&c->user->node);
			gone = c->user;
		}
		spin_unlock(&tb_users_lock);
		kfree(gone);
	}
	if (c->mm) {
		atomic64_sub(c->pinned_pages, &c->mm->pinned_vm);
		mmdrop(c->mm);		/* taken in tb_charge() */
	}
	memset(c, 0, sizeof(*c));
}

/* CAP_PERFMON (or CAP_SYS_ADMIN, as perfmon_capable()) of the opener. */
bool tb_perm_perfmon(const struct tb_session *s)
{
	return file_ns_capable(s->file, &init_user_ns, CAP_PERFMON) ||
	       file_ns_capable(s->file, &init_user_ns, CAP_SYS_ADMIN);
}

static bool tb_perm_is_task(const struct tb_session *s)
{
	return s->setup.target == TRACEBUF_TARGET_TASK;
}

/*
 * May the session's opener trace kernel mode (the TB_CFG_F_KERNEL keys)?
 * For a process, at paranoid <= 1 without CAP_PERFMON, as
 * perf_allow_kernel() (include/linux/perf_event.h) allows exclude_kernel=0
 * for a per-task event; CPU-wide, with CAP_PERFMON only.
 */
bool tb_perm_kernel(const struct tb_session *s)
{
	return tb_perm_perfmon(s) ||
	       (tb_perm_is_task(s) && READ_ONCE(tb_paranoid) <= 1);
}

/*
 * The privileged keys set now are still allowed: paranoid may have gone
 * up since SET_DRV_CONFIG accepted kernel=1 for a task session. Under
 * s->lock.
 */
static int tb_perm_keys(const struct tb_session *s)
{
	bool perfmon = tb_perm_perfmon(s), kernel = tb_perm_kernel(s);
	unsigned int i;

	for (i = 0; i < s->cfg_nkeys; i++) {
		const struct tb_cfg_key *k = &s->cfg_keys[i];

		if (!(k->flags & TB_CFG_F_PRIV) || !s->cfg_vals[i].v || perfmon ||
		    ((k->flags & TB_CFG_F_KERNEL) && kernel))
			continue;
		return -EACCES;
	}
	return 0;
}

/*
 * May this session start tracing? CPU-wide: paranoid <= 0 or CAP_PERFMON.
 * A process (TARGET_TASK, which SETUP checked the opener may ptrace):
 * paranoid <= 2 or CAP_PERFMON; above 2 (Debian's default for perf, 3)
 * nothing without it, as perf_event_open() refuses every unprivileged
 * event there (CONFIG_SECURITY_PERF_EVENTS_RESTRICT).
 */
int tb_perm_trace(const struct tb_session *s)
{
	int paranoid = READ_ONCE(tb_paranoid);

	if (!tb_perm_perfmon(s) && paranoid > (tb_perm_is_task(s) ? 2 : 0))
		return -EACCES;
	return tb_perm_keys(s);
}

/*
 * May the opener trace process p? ptrace_may_access(p,
 * PTRACE_MODE_READ_REALCREDS), as perf_event_open() asks for a per-task
 * event (kernel/events/core.c, perf_check_permission()), but with the
 * credentials the file was opened with. ptrace_may_access() is not
 * exported: this is __ptrace_may_access() (kernel/ptrace.c) for that mode,
 * with file_ns_capable() for ptrace_has_cap(), less its last step, the
 * LSM hook security_ptrace_access_check() (not exported either): an LSM
 * policy that would forbid reading p is not consulted. Returns 0 or
 * -EACCES (perf's errno for it).
 */
int tb_perm_task(const struct tb_session *s, struct task_struct *p)
{
	const struct cred *cred = s->file->f_cred, *tcred;
	struct mm_struct *mm;
	bool ok;

	/* "Don't let security modules deny introspection" */
	if (same_thread_group(p, current))
		return 0;
	rcu_read_lock();
	tcred = __task_cred(p);
	ok = (uid_eq(cred->uid, tcred->euid) && uid_eq(cred->uid, tcred->suid) &&
	      uid_eq(cred->uid, tcred->uid) && gid_eq(cred->gid, tcred->egid) &&
	      gid_eq(cred->gid, tcred->sgid) && gid_eq(cred->gid, tcred->gid)) ||
	     file_ns_capable(s->file, tcred->user_ns, CAP_SYS_PTRACE);
	rcu_read_unlock();
	if (!ok)
		return -EACCES;
	/*
	 * Dumpability after the credentials: pairs with the write barrier
	 * in commit_creds(), as in __ptrace_may_access().
	 */
	smp_rmb();
	task_lock(p);	/* p->mm, as ptrace_may_access() holds it */
	mm = p->mm;
	if (mm && get_dumpable(mm) != SUID_DUMP_USER &&
	    !file_ns_capable(s->file, mm->user_ns, CAP_SYS_PTRACE))
		ok = false;
	task_unlock(p);
	return ok ? 0 : -EACCES;
}
