/* SPDX-License-Identifier: GPL-2.0 */
/*
 * Declarations shared by the files of tracebuf.ko. Nothing here is ABI:
 * the ABI is include/uapi/tracebuf.h.
 */
#ifndef _TRACEBUF_INTERNAL_H
#define _TRACEBUF_INTERNAL_H

#include <linux/types.h>
#include <linux/cpumask.h>
#include <linux/hrtimer.h>
#include <linux/spinlock.h>
#include <linux/fs.h>
#include <linux/list.h>
#include <linux/mutex.h>
#include <linux/poll.h>
#include <linux/wait.h>
#include <linux/workqueue.h>
#include <tracebuf.h>

#include "compat.h"
#include "ring.h"

#define TB_NAME "tracebuf"

/*
 * One open file of /dev/tracebuf. It owns whatever the session sets up and
 * is freed at release; the file reference keeps it alive for every ioctl.
 */
struct tb_ring;
struct tb_backend;
struct tb_aux;
struct tb_task;
struct tracebuf_wr;
struct user_struct;
struct mm_struct;

/*
 * Pinned pages charged to a user and an mm, as perf_mmap() charges them
 * (acct.c): given back exactly, whoever frees them.
 */
struct tb_user;

struct tb_charge {
	struct tb_user *user;		/* its allowance; a reference (acct.c) */
	struct mm_struct *mm;		/* mmgrab()bed while pinned_pages */
	unsigned long user_pages;	/* within user's allowance */
	unsigned long pinned_pages;	/* in mm->pinned_vm */
};

/* How the consumer reads the data ring: chosen once, then exclusive. */
enum tb_consumer {
	TB_CONSUMER_NONE,
	TB_CONSUMER_MMAP,
	TB_CONSUMER_READ,
};

struct tb_session {
	/*
	 * Serialises SETUP, ring creation and mmap. Taken inside mmap_lock
	 * (mmap runs under it), so nothing may touch user memory while
	 * holding it: ioctls copy in and out before and after.
	 */
	struct mutex lock;
	/*
	 * Serialises the backend's claim on the hardware (backend.h) with
	 * ENABLE, DISABLE, the release after an AUX munmap (unclaim_work)
	 * and close. Outermost: taken before cpus_read_lock() and s->lock,
	 * never under mmap_lock (trace.c).
	 */
	struct mutex claim_lock;
	struct work_struct unclaim_work;
	/* Serialises read() callers: there is one tail owner. */
	struct mutex read_lock;
	bool setup_done;		/* under lock */
	bool mapped;			/* a data mapping was made; under lock */
	struct tracebuf_setup setup;	/* under lock; constant once ring exists */
	const struct tb_backend *backend; /* NULL: data ring only */
	int node;			/* NUMA node of the traced CPU(s) */
	/*
	 * Created once, under lock, and never replaced or freed before
	 * release: readers outside the lock use smp_load_acquire(), paired
	 * with the smp_store_release() that publishes it.
	 */
	struct tb_ring *ring;
	struct tb_charge ring_charge;	/* the ring's pages; under lock */
	atomic_t consumer;		/* enum tb_consumer, set by cmpxchg */
	wait_queue_head_t wq;		/* poll and read() sleep here */
	struct fasync_struct *fasync;	/* SIGIO, under fasync_helper's rules */
	struct file *file;		/* for tests-only producers' references */
	/*
	 * The CPUs the session traces, and its place on the list the CPU
	 * hotplug callback walks; both under tb_sessions_lock.
	 */
	cpumask_var_t cpus;
	struct list_head list;
	bool hup;			/* can produce nothing more: EPOLLHUP */
	/* Polled edge-triggered once (epoll EPOLLET): sticky, for wakeups. */
	bool edge;

	/* The AUX area: created by its first mmap, under lock (aux.c). */
	struct tb_aux *aux;
	struct tb_charge aux_charge;	/* the AUX area's pages; under lock */
	u64 aux_watermark;		/* 0: no AUX wakeups; READ_ONCE outside lock */
	/*
	 * The published AUX head and the AUX counters: the kernel's own
	 * values, of which the control page holds copies that are never read
	 * back. They run on across AUX areas. Written under trace_lock;
	 * aux_head is read by poll with READ_ONCE.
	 */
	u64 aux_head;
	u64 aux_published, aux_truncations, aux_collisions, aux_padding;
	/*
	 * Tracing state (trace.c): IRQ-safe and raw, taken on the traced CPU
	 * in IPI, hard hrtimer and hard irq_work context (atomic on
	 * PREEMPT_RT too). Protects tr_*, drain_cpu and the backend's
	 * per-session hardware state; s->aux is set and cleared under it.
	 */
	raw_spinlock_t trace_lock;
	bool tr_enabled;
	bool tr_error;			/* stopped on collision/error: EPOLLERR */
	bool tr_hold;			/* task session: no start (reconfiguring) */
	cpumask_var_t tr_active;	/* CPUs where the backend is started */
	int drain_cpu;			/* where drain_timer is pinned, or -1 */
	struct hrtimer drain_timer;
	/*
	 * Driver configuration (config.c), set at SETUP and by
	 * SET_DRV_CONFIG under lock. bcfg is the backend's form of it; the
	 * backend reads it in start() under trace_lock, and the core swaps
	 * it under trace_lock.
	 */
	struct tb_cfg_key *cfg_keys;
	struct tb_cfg_val *cfg_vals;
	unsigned int cfg_nkeys;
	u64 cfg_gen;
	void *bcfg;
	/*
	 * TARGET_TASK (task.c): the processes traced. Set by SETUP under
	 * lock before the session can trace, freed at release.
	 */
	struct tb_task *task;
};

/* main.c */
extern const struct file_operations tb_fops;
struct device *tb_device(void);

/* info.c */
long tb_ioctl_get_info(struct tb_session *s, void __user *arg);

/* session.c */
int tb_copy_struct_in(void *dst, size_t ksize, size_t ver0, void __user *arg);
long tb_ioctl_setup(struct tb_session *s, void __user *arg);
long tb_ioctl_user_marker(struct tb_session *s, void __user *arg);
int tb_session_mmap(struct tb_session *s, struct vm_area_struct *vma);
ssize_t tb_session_read(struct tb_session *s, char __user *buf, size_t len,
			bool nonblock);
__poll_t tb_session_poll(struct tb_session *s, struct file *file,
			 struct poll_table_struct *wait);
void tb_session_wake(struct tb_session *s, int band);
void tb_session_release(struct tb_session *s);
int tb_session_open(struct tb_session *s);
void tb_session_free(struct tb_session *s);

/* acct.c */
int tb_charge(struct tb_charge *c, unsigned long pages);
void tb_uncharge(struct tb_charge *c);
bool tb_perm_perfmon(const struct tb_session *s);
bool tb_perm_kernel(const struct tb_session *s);
int tb_perm_trace(const struct tb_session *s);
int tb_perm_task(const struct tb_session *s, struct task_struct *p);

/* trace.c */
void tb_trace_init(struct tb_session *s);
void tb_trace_release(struct tb_session *s);
void tb_trace_unclaim_later(struct tb_session *s);
int tb_trace_module_init(void);
void tb_trace_module_exit(void);
long tb_ioctl_enable(struct tb_session *s);
long tb_ioctl_disable(struct tb_session *s);
long tb_ioctl_snapshot(struct tb_session *s);
void tb_trace_disable(struct tb_session *s);
void tb_trace_going_down(void);
void tb_trace_shutdown(struct tb_session *s);
void tb_trace_error(struct tb_session *s, unsigned int cpu);
void tb_trace_cpu_offline(struct tb_session *s, unsigned int cpu);
void tb_trace_cpu_online(struct tb_session *s, unsigned int cpu);
void tb_trace_task_in(struct tb_session *s, unsigned int cpu);
void tb_trace_task_out(struct tb_session *s, unsigned int cpu);

/* task.c */
struct tb_task *tb_task_prepare(struct tb_session *s, const struct tracebuf_setup *su);
int tb_task_install(struct tb_session *s, struct tb_task *t, const struct cpumask *cpus);
void tb_task_unlock(struct tb_task *t);
void tb_task_free(struct tb_task *t);
void tb_task_exit_module(void);
bool tb_task_switch_in(struct tb_session *s, unsigned int cpu, struct tracebuf_wr *wr);
void tb_task_switch_in_done(struct tb_session *s, unsigned int cpu,
			    struct tracebuf_wr *wr, int ret);
void tb_task_switch_out(struct tb_session *s, unsigned int cpu);
int tb_trace_reconfigure(struct tb_session *s, const void *bcfg, size_t size,
			 void (*between)(struct tb_session *s, void *arg), void *arg);

/* info.c */
long tb_ioctl_get_caps(struct tb_session *s, void __user *arg);

/* config.c */
int tb_config_init(struct tb_session *s, unsigned int cpu);
void tb_config_free(struct tb_session *s);
long tb_ioctl_set_drv_config(struct tb_session *s, void __user *arg);
long tb_ioctl_get_drv_config(struct tb_session *s, void __user *arg);
long tb_ioctl_list_drv_config(struct tb_session *s, void __user *arg);
int tb_sessions_init(void);
void tb_sessions_exit(void);

#endif /* _TRACEBUF_INTERNAL_H */
