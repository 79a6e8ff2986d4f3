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
 * tracing needs CAP_PERFMON (or CAP_SYS_ADMIN) unless paranoid <= 0.
 * Like perf, which decides at perf_event_open(), the credentials are the
 * opener's (file->f_cred), checked at the call that starts tracing.
 * Privileged driver-configuration keys (kernel-mode tracing, a CR3 filter
 * that would echo a physical address) need CAP_PERFMON at every level.
 */
#include <linux/capability.h>
#include <linux/cred.h>
#include <linux/fs.h>
#include <linux/hashtable.h>
#include <linux/mm.h>
#include <linux/moduleparam.h>
#include <linux/sched.h>
#include <linux/sched/mm.h>
#include <linux/sched/signal.h>
#include <linux/sched/user.h>
#include <linux/slab.h>
#include <linux/uidgid.h>

#include "internal.h"

/* perf_event_mlock_kb's default: 512 KiB and a control page. */
static unsigned int tb_mlock_kb = 516;
module_param_named(mlock_kb, tb_mlock_kb, uint, 0644);
MODULE_PARM_DESC(mlock_kb, "Pages a user may pin without RLIMIT_MEMLOCK, in KiB per online CPU (as perf_event_mlock_kb)");

static int tb_paranoid = 2;
module_param_named(paranoid, tb_paranoid, int, 0644);
MODULE_PARM_DESC(paranoid, "As perf_event_paranoid: CPU-wide tracing without CAP_PERFMON at <= 0; -1 also lifts RLIMIT_MEMLOCK");

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

/*
 * May this session start tracing? Every target today is CPU-wide; the
 * per-task target will allow a ptrace-able task at paranoid <= 2.
 */
int tb_perm_trace(const struct tb_session *s)
{
	if (READ_ONCE(tb_paranoid) <= 0 || tb_perm_perfmon(s))
		return 0;
	return -EACCES;
}
