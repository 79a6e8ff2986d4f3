// SPDX-License-Identifier: GPL-2.0
/*
 * Sessions: SETUP, the mapping at offset 0, read(), poll(), SIGIO and user
 * markers.
 *
 * State: a session is set up (SETUP, repeatable) until its data ring
 * exists; the ring is created by the first mmap, or by SETUP when it gives
 * data_size, and from then on the setup is final (-EBUSY). The ring lives
 * until the file is released, which happens only after every mapping is
 * gone (each VMA holds the file) and every tests-only producer has let go
 * (each holds the file too).
 */
#include <linux/cpu.h>
#include <linux/cpumask.h>
#include <linux/cpuhotplug.h>
#include <linux/file.h>
#include <linux/log2.h>
#include <linux/mm.h>
#include <linux/pagemap.h>
#include <linux/reboot.h>
#include <linux/sched/signal.h>
#include <linux/slab.h>
#include <linux/string.h>
#include <linux/topology.h>
#include <linux/uaccess.h>

#include "internal.h"
#include "aux.h"
#include "backend.h"
#include "ring.h"

#define TB_CPUSET_MAX	1024	/* bytes of CPU bitmap: 8192 CPUs */
/* The SETUP flags we know. */
#define TB_SETUP_FLAGS	(TRACEBUF_SETUP_F_NO_TIME | TRACEBUF_SETUP_F_INHERIT | \
			 TRACEBUF_SETUP_F_COMPACT)

/*
 * Every set-up session, for the CPU hotplug callback. Lock order:
 * cpu_hotplug_lock -> s->lock -> tb_sessions_lock.
 */
static LIST_HEAD(tb_sessions);
static DEFINE_MUTEX(tb_sessions_lock);
static enum cpuhp_state tb_cpuhp_state;

static struct tb_ring *tb_session_ring(struct tb_session *s)
{
	return smp_load_acquire(&s->ring);	/* pairs with tb_session_create_ring */
}

/* Copy a size-prefixed struct in, with the rules of the UAPI header. */
int tb_copy_struct_in(void *dst, size_t ksize, size_t ver0, void __user *arg)
{
	u32 usize;

	if (get_user(usize, (u32 __user *)arg))
		return -EFAULT;
	if (usize < ver0)
		return -EINVAL;
	if (usize > PAGE_SIZE)
		return -E2BIG;
	return copy_struct_from_user(dst, ksize, arg, usize);
}

static bool tb_size_ok(u64 size)
{
	return size >= PAGE_SIZE && size <= TRACEBUF_DATA_SIZE_MAX &&
	       is_power_of_2(size);
}

/* Check the CPU set of a TARGET_CPUSET setup; returns its first CPU. */
static int tb_check_cpuset(const struct tracebuf_setup *su, unsigned long *bits)
{
	unsigned int nbits = su->cpuset_size * BITS_PER_BYTE;
	unsigned int cpu, first = nr_cpu_ids;

	if (!su->cpuset_size || su->cpuset_size % sizeof(u64) ||
	    su->cpuset_size > TB_CPUSET_MAX)
		return -EINVAL;
	for_each_set_bit(cpu, bits, nbits) {
		if (cpu >= nr_cpu_ids || !cpu_online(cpu))
			return -EINVAL;
		if (first == nr_cpu_ids)
			first = cpu;
	}
	return first == nr_cpu_ids ? -EINVAL : first;
}

/* Find and pin the backend SETUP names; NULL for the data-ring-only "none". */
static int tb_pick_backend(const char *name, const struct cpumask *cpus,
			   const struct tb_backend **out)
{
	const struct tb_backend *b;
	int ret;

	*out = NULL;
	if (!strcmp(name, TRACEBUF_BACKEND_DATA))
		return 0;
	mutex_lock(&tb_backends_lock);
	b = tb_backend_find(name);
	ret = b ? 0 : -ENODEV;
	if (!ret && b->check_setup)
		ret = b->check_setup(b, cpus);
	if (!ret)
		ret = tb_backend_hold(b);	/* dropped at release or re-SETUP */
	mutex_unlock(&tb_backends_lock);
	if (!ret)
		*out = b;
	return ret;
}

static const struct tb_ring_ops tb_session_ring_ops = {
	.wake		= tb_session_wake,
};

/* Under s->lock: the data ring and its control page, charged first. */
static int tb_session_create_ring(struct tb_session *s, u64 size)
{
	/* Who waits, for the ring's wakeup policy (tb_ring_waiters()). */
	const struct tb_ring_waitq waitq = {
		.wq	= &s->wq,
		.fasync	= &s->fasync,
		.edge	= &s->edge,
	};
	struct tb_ring *rb;
	int ret;

	if (s->setup.data_watermark > size)
		return -EINVAL;
	ret = tb_charge(&s->ring_charge, (size >> PAGE_SHIFT) + 1);
	if (ret)
		return ret;
	rb = tb_ring_alloc(s, &tb_session_ring_ops, &waitq, size, s->node,
			   s->setup.data_watermark, s->setup.wakeup_events,
			   s->setup.flags);
	if (!rb) {
		tb_uncharge(&s->ring_charge);
		return -ENOMEM;
	}
	smp_store_release(&s->ring, rb);	/* pairs with tb_session_ring */
	return 0;
}

long tb_ioctl_setup(struct tb_session *s, void __user *arg)
{
	unsigned long *bits = NULL;
	const struct tb_backend *backend = NULL;
	struct tracebuf_setup su;
	struct {			/* a previous SETUP's state */
		struct tracebuf_setup setup;
		const struct tb_backend *backend;
		int node;
		struct tb_cfg_key *cfg_keys;
		struct tb_cfg_val *cfg_vals;
		unsigned int cfg_nkeys;
		u64 cfg_gen;
		void *bcfg;
		struct tb_task *task;
	} old;
	struct tb_task *prep = NULL, *drop = NULL;	/* TARGET_TASK */
	cpumask_var_t cpus;
	bool set;
	int ret, cpu;

	ret = tb_copy_struct_in(&su, sizeof(su), TRACEBUF_SETUP_SIZE_VER0, arg);
	if (ret)
		return ret;
	if (su.flags & ~TB_SETUP_FLAGS || su.reserved0 ||
	    memchr_inv(su.reserved, 0, sizeof(su.reserved)))
		return -EINVAL;
	/* pid and INHERIT are the per-task target's. */
	if (su.pid < 0 || (su.target != TRACEBUF_TARGET_TASK &&
			   ((su.flags & TRACEBUF_SETUP_F_INHERIT) || su.pid)))
		return -EINVAL;
	if (!memchr(su.backend, 0, sizeof(su.backend)))
		return -EINVAL;
	/* Compact records (no CPU, no time) for data-only sessions only. */
	if (su.flags & TRACEBUF_SETUP_F_COMPACT && strcmp(su.backend, TRACEBUF_BACKEND_DATA))
		return -EINVAL;
	if (su.data_size && !tb_size_ok(su.data_size))
		return -EINVAL;
	if (su.data_size && su.data_watermark > su.data_size)
		return -EINVAL;

	/* TARGET_TASK names its CPUs as TARGET_CPU or TARGET_CPUSET does. */
	set = su.target == TRACEBUF_TARGET_CPUSET ||
	      (su.target == TRACEBUF_TARGET_TASK && su.cpuset_size);
	if (set) {
		if (su.cpu || !su.cpuset_size || su.cpuset_size > TB_CPUSET_MAX)
			return -EINVAL;
		bits = memdup_user(u64_to_user_ptr(su.cpuset_ptr), su.cpuset_size);
		if (IS_ERR(bits))
			return PTR_ERR(bits);
	}
	if (!zalloc_cpumask_var(&cpus, GFP_KERNEL)) {
		kfree(bits);
		return -ENOMEM;
	}
	/*
	 * The process, and the opener's right to trace it, before the locks
	 * (it may register tracepoint probes, which takes cpus_read_lock()).
	 * Its exec_update_lock is held until the end (tb_task_unlock).
	 */
	if (su.target == TRACEBUF_TARGET_TASK) {
		prep = tb_task_prepare(s, &su);
		if (IS_ERR(prep)) {
			ret = PTR_ERR(prep);
			prep = NULL;
			goto out_free;
		}
		drop = prep;	/* unless it becomes the session's */
	}

	/* No CPU may go away between the online check and the list. */
	cpus_read_lock();
	switch (su.target) {
	case TRACEBUF_TARGET_CPU:
	case TRACEBUF_TARGET_TASK:
		cpu = -EINVAL;
		if (set)
			cpu = tb_check_cpuset(&su, bits);
		else if (!su.cpuset_ptr && !su.cpuset_size && su.cpu < nr_cpu_ids &&
			 cpu_online(su.cpu))
			cpu = su.cpu;
		break;
	case TRACEBUF_TARGET_CPUSET:
		cpu = tb_check_cpuset(&su, bits);
		break;
	default:
		cpu = -EINVAL;
	}
	if (cpu < 0) {
		ret = cpu;
		goto out_cpus;
	}
	if (!set)
		cpumask_set_cpu(cpu, cpus);
	else
		bitmap_copy(cpumask_bits(cpus), bits,
			    min_t(unsigned int, nr_cpu_ids,
				  su.cpuset_size * BITS_PER_BYTE));
	ret = tb_pick_backend(su.backend, cpus, &backend);
	if (ret)
		goto out_cpus;

	mutex_lock(&s->lock);
	if (s->ring) {
		ret = -EBUSY;
		goto out;
	}
	/* Set aside what a previous SETUP made: a failure puts it back. */
	old.setup = s->setup;
	old.backend = s->backend;
	old.node = s->node;
	old.cfg_keys = s->cfg_keys;
	old.cfg_vals = s->cfg_vals;
	old.cfg_nkeys = s->cfg_nkeys;
	old.cfg_gen = s->cfg_gen;
	old.bcfg = s->bcfg;
	old.task = s->task;
	s->cfg_keys = NULL;
	s->cfg_vals = NULL;
	s->bcfg = NULL;
	s->setup = su;
	s->backend = backend;
	s->node = cpu_to_node(cpu);
	/* The backend's keys for the (first) traced CPU, at their defaults. */
	ret = tb_config_init(s, cpu);
	if (!ret && prep)
		ret = tb_task_install(s, prep, cpus);
	if (!ret && su.data_size)
		ret = tb_session_create_ring(s, su.data_size);
	if (ret) {
		/* As if it had not happened: a failed SETUP changes nothing. */
		tb_config_free(s);
		s->setup = old.setup;
		s->backend = old.backend;
		s->node = old.node;
		s->cfg_keys = old.cfg_keys;
		s->cfg_vals = old.cfg_vals;
		s->cfg_nkeys = old.cfg_nkeys;
		s->cfg_gen = old.cfg_gen;
		s->bcfg = old.bcfg;
		goto out;	/* prep: freed below, installed or not */
	}
	s->task = prep;
	drop = old.task;
	/* A repeated SETUP lets go of what the previous one held. */
	backend = old.backend;
	kfree(old.cfg_keys);
	kfree(old.cfg_vals);
	kfree(old.bcfg);
	s->setup_done = true;
	mutex_lock(&tb_sessions_lock);
	cpumask_copy(s->cpus, cpus);
	if (list_empty(&s->list))
		list_add(&s->list, &tb_sessions);
	mutex_unlock(&tb_sessions_lock);
out:
	/* Under s->lock: once it is let go, another SETUP may free prep. */
	tb_task_unlock(prep);
	prep = NULL;
	mutex_unlock(&s->lock);
	if (backend)
		tb_backend_release(backend);
out_cpus:
	cpus_read_unlock();
out_free:
	tb_task_unlock(prep);
	/* The target this SETUP replaced or did not keep, after a grace period. */
	tb_task_free(drop);
	free_cpumask_var(cpus);
	kfree(bits);
	return ret;
}

/*
 * The last reference to the file is gone: no VMA (so no AUX area, and
 * tracing is off), no ioctl, no producer. Off the hotplug list first.
 */
void tb_session_release(struct tb_session *s)
{
	/* Off the scheduler's probes first: they write into s->ring. */
	tb_task_free(s->task);
	s->task = NULL;
	tb_trace_release(s);	/* the backend's claim goes back */
	mutex_lock(&tb_sessions_lock);
	list_del_init(&s->list);
	mutex_unlock(&tb_sessions_lock);
	WARN_ON(s->aux);
	tb_ring_free(s->ring);
	s->ring = NULL;
	tb_uncharge(&s->ring_charge);	/* to whoever created the ring */
	tb_config_free(s);
	if (s->backend)
		tb_backend_release(s->backend);	/* held since SETUP */
}

/*
 * A traced CPU is going offline (this runs on it). Sessions with a backend
 * stop tracing there and publish what it wrote; they restart when it comes
 * back (tb_cpu_online). Sessions without one can produce nothing more from
 * it: tell their consumers (EPOLLHUP, SIGIO with POLL_HUP, read() returns 0
 * once drained). The ring stays readable.
 */
static int tb_cpu_offline(unsigned int cpu)
{
	struct tb_session *s;

	mutex_lock(&tb_sessions_lock);
	list_for_each_entry(s, &tb_sessions, list) {
		if (!cpumask_test_cpu(cpu, s->cpus))
			continue;
		if (s->backend) {
			tb_trace_cpu_offline(s, cpu);
			continue;
		}
		if (READ_ONCE(s->hup))
			continue;
		WRITE_ONCE(s->hup, true);
		tb_session_wake(s, POLL_HUP);
	}
	mutex_unlock(&tb_sessions_lock);
	return 0;
}

/* A CPU came online (this runs on it): resume the sessions tracing it. */
static int tb_cpu_online(unsigned int cpu)
{
	struct tb_session *s;

	mutex_lock(&tb_sessions_lock);
	list_for_each_entry(s, &tb_sessions, list)
		if (s->backend && cpumask_test_cpu(cpu, s->cpus))
			tb_trace_cpu_online(s, cpu);
	mutex_unlock(&tb_sessions_lock);
	return 0;
}

/*
 * Restart, halt, power-off and kexec. kernel_restart_prepare() and
 * kernel_shutdown_prepare() (kernel/reboot.c; kernel_kexec() in
 * kernel/kexec_core.c calls the former) run the reboot notifiers in process
 * context with every CPU online, before device_shutdown() and before the
 * other CPUs are stopped. A unit still tracing after that would write into
 * memory that the firmware or the next kernel owns. So every session stops
 * here, publishing what was written, and nothing starts again (ENABLE is
 * -ESHUTDOWN). perf does the same for its events from perf_reboot()
 * (kernel/events/core.c). Paths that skip the notifiers (emergency_restart(),
 * a crash kexec) are not covered, as they are not for perf.
 */
static int tb_reboot(struct notifier_block *nb, unsigned long action, void *data)
{
	struct tb_session *s;

	tb_trace_going_down();
	cpus_read_lock();	/* the stop IPIs reach every online CPU */
	mutex_lock(&tb_sessions_lock);	/* no session leaves the list */
	list_for_each_entry(s, &tb_sessions, list)
		if (s->backend)
			tb_trace_shutdown(s);
	mutex_unlock(&tb_sessions_lock);
	cpus_read_unlock();
	return NOTIFY_DONE;
}

/* Before the default priority: ahead of notifiers that check the hardware. */
static struct notifier_block tb_reboot_nb = {
	.notifier_call	= tb_reboot,
	.priority	= 1,
};

int tb_sessions_init(void)
{
	int ret;

	ret = tb_trace_module_init();
	if (ret)
		return ret;
	ret = cpuhp_setup_state_nocalls(CPUHP_AP_ONLINE_DYN, "tracebuf:online",
					tb_cpu_online, tb_cpu_offline);
	if (ret < 0)
		goto out_trace;
	tb_cpuhp_state = ret;
	ret = register_reboot_notifier(&tb_reboot_nb);
	if (!ret)
		return 0;
	cpuhp_remove_state_nocalls(tb_cpuhp_state);
out_trace:
	tb_trace_module_exit();
	return ret;
}

void tb_sessions_exit(void)
{
	unregister_reboot_notifier(&tb_reboot_nb);
	cpuhp_remove_state_nocalls(tb_cpuhp_state);
	tb_trace_module_exit();
}

static int tb_vm_may_split(struct vm_area_struct *vma, unsigned long addr)
{
	return -EINVAL;		/* partial munmap would break the double map */
}

/*
 * A page of a mapping was zapped (MADV_DONTNEED) and is touched again:
 * map the same page back, as perf_mmap_fault() does. The VMA holds the
 * file, so the ring (freed only at release) and an AUX area (freed only
 * when its last VMA is gone) outlive the fault.
 */
static vm_fault_t tb_vm_fault_page(struct vm_fault *vmf, struct page *page)
{
	if (!page)
		return VM_FAULT_SIGBUS;
	get_page(page);		/* the PTE's reference, dropped at unmap */
	vmf->page = page;
	return 0;
}

static vm_fault_t tb_vm_fault(struct vm_fault *vmf)
{
	struct tb_session *s = vmf->vma->vm_file->private_data;
	struct tb_ring *rb = tb_session_ring(s);
	pgoff_t i = vmf->pgoff;

	if (!rb || i > 2 * (pgoff_t)rb->nr_pages)
		return tb_vm_fault_page(vmf, NULL);
	return tb_vm_fault_page(vmf, i ? rb->pages[(i - 1) % rb->nr_pages] :
				rb->ctl_page);
}

static const struct vm_operations_struct tb_vm_ops = {
	.may_split = tb_vm_may_split,
	.fault = tb_vm_fault,
};

/*
 * Flags of every mapping: never inherited (VM_IO also makes MADV_DOFORK
 * fail, and keeps get_user_pages() off the pages), never grown, never
 * dumped, never executable.
 */
static void tb_vm_setup(struct vm_area_struct *vma)
{
	tb_vm_flags_set(vma, VM_IO | VM_DONTCOPY | VM_DONTEXPAND | VM_DONTDUMP);
	tb_vm_flags_clear(vma, VM_MAYEXEC);
}

/* Map the control page and the data pages twice, all up front. */
static int tb_insert_pages(struct tb_ring *rb, struct vm_area_struct *vma)
{
	unsigned long addr = vma->vm_start;
	unsigned int i;
	int ret;

	ret = vm_insert_page(vma, addr, rb->ctl_page);
	for (i = 0; !ret && i < 2 * rb->nr_pages; i++) {
		addr += PAGE_SIZE;
		ret = vm_insert_page(vma, addr, rb->pages[i % rb->nr_pages]);
	}
	return ret;
}

/* --- the AUX area: its mapping and lifetime ------------------------------ */

/*
 * Under s->lock: the last AUX VMA is gone. The hardware stops on every CPU
 * (synchronous IPIs, drain timer cancelled) before the backend's tables
 * and the pages are freed and uncharged. It can then be mapped again.
 */
static void tb_session_aux_destroy(struct tb_session *s)
{
	struct tb_aux *aux = s->aux;
	unsigned long flags;

	tb_trace_disable(s);	/* every CPU stopped, timer and works idle */
	tb_trace_unclaim_later(s);	/* not under mmap_lock: a work item */
	raw_spin_lock_irqsave(&s->trace_lock, flags);
	s->aux = NULL;		/* no start or drain can see it now */
	raw_spin_unlock_irqrestore(&s->trace_lock, flags);
	WRITE_ONCE(s->aux_watermark, 0);
	tb_ring_flags(s->ring, 0, TRACEBUF_CTL_F_AUX_SNAPSHOT);
	if (s->backend->free_aux)
		s->backend->free_aux(aux);
	tb_aux_free(aux);
	tb_uncharge(&s->aux_charge);
}

static void tb_aux_vm_open(struct vm_area_struct *vma)
{
	struct tb_session *s = vma->vm_file->private_data;

	mutex_lock(&s->lock);
	s->aux->mmap_count++;
	mutex_unlock(&s->lock);
}

static void tb_aux_vm_close(struct vm_area_struct *vma)
{
	struct tb_session *s = vma->vm_file->private_data;

	mutex_lock(&s->lock);
	if (!--s->aux->mmap_count)
		tb_session_aux_destroy(s);
	mutex_unlock(&s->lock);
}

static vm_fault_t tb_aux_vm_fault(struct vm_fault *vmf)
{
	struct tb_session *s = vmf->vma->vm_file->private_data;
	/* Set before this VMA existed, cleared only after its close. */
	struct tb_aux *aux = READ_ONCE(s->aux);
	pgoff_t i = vmf->pgoff - vmf->vma->vm_pgoff;

	if (!aux || i >= aux->nr_pages)
		return tb_vm_fault_page(vmf, NULL);
	return tb_vm_fault_page(vmf, aux->pages[i]);
}

static const struct vm_operations_struct tb_aux_vm_ops = {
	.open		= tb_aux_vm_open,
	.close		= tb_aux_vm_close,
	.may_split	= tb_vm_may_split,	/* all or nothing */
	.fault		= tb_aux_vm_fault,
};

/* Under s->lock: a new AUX area of size bytes, charged, with its tables. */
static int tb_session_aux_create(struct tb_session *s, struct vm_area_struct *vma,
				 u64 size, bool snapshot)
{
	const struct tb_backend *b = s->backend;
	struct tb_aux *aux;
	int ret;

	/* A watermark the ring can never reach: -EINVAL. */
	if (s->setup.aux_watermark > size)
		return -EINVAL;
	/* Charged before it is allocated: an over-limit caller pins nothing. */
	ret = tb_charge(&s->aux_charge, size >> PAGE_SHIFT);
	if (ret)
		return ret;
	ret = -ENOMEM;
	aux = tb_aux_alloc(s, size, snapshot,
			   b->aux_contiguous && b->aux_contiguous(s));
	if (!aux)
		goto fail;
	aux->pgoff = vma->vm_pgoff;
	aux->watermark = s->setup.aux_watermark ?: size / 2;
	ret = b->setup_aux(s, aux);
	if (ret) {
		tb_aux_free(aux);
		goto fail;
	}
	ret = tb_charge(&s->aux_charge, aux->table_pages);
	if (ret) {
		b->free_aux(aux);
		tb_aux_free(aux);
		goto fail;
	}
	s->aux = aux;		/* not yet visible to start(): not enabled */
	return 0;
fail:
	tb_uncharge(&s->aux_charge);
	return ret;
}

/* Under s->lock: the AUX area mapped for the first time; its state goes live. */
static void tb_session_aux_publish(struct tb_session *s)
{
	struct tracebuf_ctl *ctl = s->ring->ctl;
	struct tb_aux *aux = s->aux;
	unsigned long flags;

	raw_spin_lock_irqsave(&s->trace_lock, flags);
	/* Positions run on from where a previous AUX area ended. */
	aux->tail = s->aux_head;
	raw_spin_unlock_irqrestore(&s->trace_lock, flags);
	WRITE_ONCE(ctl->aux_tail, s->aux_head);
	WRITE_ONCE(ctl->aux_head, s->aux_head);
	/* Snapshot mode has no AUX watermark: nothing is consumed. */
	WRITE_ONCE(s->aux_watermark, aux->snapshot ? 0 : aux->watermark);
	if (aux->snapshot)
		tb_ring_flags(s->ring, TRACEBUF_CTL_F_AUX_SNAPSHOT, 0);
}

static int tb_session_aux_mmap(struct tb_session *s, struct vm_area_struct *vma)
{
	unsigned long len = vma->vm_end - vma->vm_start;
	bool snapshot = !(vma->vm_flags & VM_WRITE);
	struct tracebuf_ctl *ctl;
	struct tb_aux *aux;
	bool created = false;
	u64 off, size;
	unsigned int i;
	int ret;

	mutex_lock(&s->lock);
	ret = -ENXIO;
	if (!s->ring || atomic_read(&s->consumer) != TB_CONSUMER_MMAP)
		goto out;
	ret = -ENODEV;
	if (!s->backend)
		goto out;
	ctl = s->ring->ctl;
	/* Read once: the control page is the user's to scribble on. */
	off = READ_ONCE(ctl->aux_offset);
	size = READ_ONCE(ctl->aux_size);
	ret = -EINVAL;
	if (off != (u64)vma->vm_pgoff << PAGE_SHIFT || off & ~PAGE_MASK ||
	    off < PAGE_SIZE + 2 * s->ring->size || off > TRACEBUF_AUX_OFFSET_MAX ||
	    size != len || size < PAGE_SIZE || size > TRACEBUF_AUX_SIZE_MAX ||
	    !is_power_of_2(size))
		goto out;
	aux = s->aux;
	if (aux && (aux->pgoff != vma->vm_pgoff || aux->size != size ||
		    aux->snapshot != snapshot))
		goto out;
	if (!aux) {
		ret = tb_session_aux_create(s, vma, size, snapshot);
		if (ret)
			goto out;
		aux = s->aux;
		created = true;
	}

	tb_vm_setup(vma);
	if (snapshot)
		tb_vm_flags_clear(vma, VM_MAYWRITE);
	ret = 0;
	for (i = 0; !ret && i < aux->nr_pages; i++)
		ret = vm_insert_page(vma, vma->vm_start + i * PAGE_SIZE,
				     aux->pages[i]);
	if (ret) {
		/*
		 * mmap fails: no VMA, so no close. An area made here goes as if
		 * it had never been (nothing was published from it).
		 */
		if (created) {
			s->aux = NULL;
			s->backend->free_aux(aux);
			tb_aux_free(aux);
			tb_uncharge(&s->aux_charge);
		}
		goto out;
	}
	if (created)
		tb_session_aux_publish(s);
	aux->mmap_count++;
	vma->vm_ops = &tb_aux_vm_ops;
out:
	mutex_unlock(&s->lock);
	return ret;
}

int tb_session_mmap(struct tb_session *s, struct vm_area_struct *vma)
{
	unsigned long len = vma->vm_end - vma->vm_start;
	u64 size = (len - PAGE_SIZE) / 2;
	struct tb_ring *rb;
	int ret, c;

	if (!(vma->vm_flags & VM_SHARED))
		return -EINVAL;
	if (vma->vm_flags & VM_EXEC)
		return -EPERM;
	if (vma->vm_pgoff)
		return tb_session_aux_mmap(s, vma);
	if (len < 3 * PAGE_SIZE || len != PAGE_SIZE + 2 * size || !tb_size_ok(size))
		return -EINVAL;

	mutex_lock(&s->lock);
	ret = -ENXIO;
	if (!s->setup_done)
		goto out;
	c = atomic_cmpxchg(&s->consumer, TB_CONSUMER_NONE, TB_CONSUMER_MMAP);
	ret = -EBUSY;
	if (c != TB_CONSUMER_NONE && c != TB_CONSUMER_MMAP)
		goto out;
	if (!s->ring) {
		ret = tb_session_create_ring(s, size);
		if (ret)
			goto out_consumer;
	}
	rb = s->ring;
	ret = -EINVAL;
	if (rb->size != size)
		goto out_consumer;

	tb_vm_setup(vma);
	if (!(vma->vm_flags & VM_WRITE))
		tb_vm_flags_clear(vma, VM_MAYWRITE);
	vma->vm_ops = &tb_vm_ops;
	ret = tb_insert_pages(rb, vma);
	if (ret)
		goto out_consumer;
	s->mapped = true;
	if (vma->vm_flags & VM_WRITE) {
		/* The consumer now owns data_tail; the kernel validates it. */
		WRITE_ONCE(rb->honour_tail, true);
		tb_ring_flags(rb, 0, TRACEBUF_CTL_F_READONLY);
	} else if (!READ_ONCE(rb->honour_tail)) {
		tb_ring_flags(rb, TRACEBUF_CTL_F_READONLY, 0);
	}
out_consumer:
	/* The first mapping failed: the session may still choose read(). */
	if (ret && c == TB_CONSUMER_NONE && !s->mapped)
		atomic_set(&s->consumer, TB_CONSUMER_NONE);
out:
	mutex_unlock(&s->lock);
	return ret;
}

ssize_t tb_session_read(struct tb_session *s, char __user *buf, size_t len,
			bool nonblock)
{
	struct tb_ring *rb = tb_session_ring(s);
	ssize_t ret;
	int c;

	if (!rb)
		return -ENXIO;
	c = atomic_cmpxchg(&s->consumer, TB_CONSUMER_NONE, TB_CONSUMER_READ);
	if (c != TB_CONSUMER_NONE && c != TB_CONSUMER_READ)
		return -EBUSY;
	if (!len)
		return 0;

	if (nonblock) {
		if (!mutex_trylock(&s->read_lock))
			return -EAGAIN;
	} else if (mutex_lock_interruptible(&s->read_lock)) {
		return -ERESTARTSYS;
	}
	for (;;) {
		bool hup = READ_ONCE(s->hup);

		/*
		 * Non-blocking reads, and reads after a hang-up, take what is
		 * there; blocking ones wait for the wakeup condition.
		 */
		if (nonblock || hup || tb_ring_readable(rb)) {
			ret = tb_ring_read(rb, buf, len);
			if (ret || nonblock || hup)
				break;
		}
		/*
		 * On the wait queue first (prepare_to_wait_event()), then arm:
		 * tb_ring_arm()'s barrier pairs with the writer's in
		 * tracebuf_commit().
		 */
		ret = wait_event_interruptible(s->wq, tb_ring_arm(rb) ||
					       READ_ONCE(s->hup));
		if (ret)
			break;
	}
	/* Nothing committed yet, without blocking: try again, unless at EOF. */
	if (ret == 0 && nonblock && !READ_ONCE(s->hup))
		ret = -EAGAIN;
	mutex_unlock(&s->read_lock);
	return ret;
}

__poll_t tb_session_poll(struct tb_session *s, struct file *file,
			 struct poll_table_struct *wait)
{
	struct tb_ring *rb;
	__poll_t events = 0;

	poll_wait(file, &s->wq, wait);
	/*
	 * An edge-triggered epoll consumer sleeps without calling poll again:
	 * from now on wakeups re-arm by themselves (tb_ring_wakeup()).
	 */
	if (wait && (poll_requested_events(wait) & EPOLLET) && !READ_ONCE(s->edge))
		WRITE_ONCE(s->edge, true);
	rb = tb_session_ring(s);
	/* On the wait queue (above), so tb_ring_arm() may arm the wakeup. */
	if (rb && (tb_ring_arm(rb) || tb_aux_ready(s)))
		events |= EPOLLIN | EPOLLRDNORM;
	if (READ_ONCE(s->hup))
		events |= EPOLLHUP;
	if (READ_ONCE(s->tr_error))
		events |= EPOLLERR;
	return events;
}

/* From the ring's irq_work: hardirq context. */
void tb_session_wake(struct tb_session *s, int band)
{
	wake_up_all(&s->wq);
	kill_fasync(&s->fasync, SIGIO, band);
}

/*
 * Reserve a USER record and copy the caller's bytes straight into it, with
 * page faults disabled (no preemption between reserve and commit: a
 * reservation stalls the consumer and every writer behind it). 0, a
 * reservation error, or -EFAULT when the bytes are not all resident: the
 * record is then discarded (neither written nor lost) and the caller faults
 * them in and tries again.
 */
static int tb_marker_write(struct tb_ring *rb, const struct tracebuf_user_marker *m)
{
	struct tracebuf_rec_user *u;
	struct tracebuf_wr wr;
	int ret;

	pagefault_disable();
	preempt_disable();
	ret = tracebuf_reserve(rb, TRACEBUF_REC_USER, sizeof(*u) + m->len, &wr);
	if (!ret) {
		const void __user *src = u64_to_user_ptr(m->data_ptr);

		u = (struct tracebuf_rec_user *)wr.rec;
		u->cookie = m->cookie;
		u->len = m->len;
		u->reserved = 0;
		if (m->len && __copy_from_user_inatomic(u + 1, src, m->len))
			ret = -EFAULT;
		if (ret)
			tracebuf_discard(rb, &wr);
		else
			tracebuf_commit(rb, &wr);
	}
	preempt_enable();
	pagefault_enable();
	return ret;
}

long tb_ioctl_user_marker(struct tb_session *s, void __user *arg)
{
	struct tracebuf_user_marker m;
	struct tb_ring *rb;
	void __user *data;
	int ret, tries;

	ret = tb_copy_struct_in(&m, sizeof(m), TRACEBUF_USER_MARKER_SIZE_VER0, arg);
	if (ret)
		return ret;
	if (m.flags || m.reserved0 || memchr_inv(m.reserved, 0, sizeof(m.reserved)) ||
	    m.len > TRACEBUF_USER_MARKER_MAX)
		return -EINVAL;
	rb = tb_session_ring(s);
	if (!rb)
		return -ENXIO;
	data = u64_to_user_ptr(m.data_ptr);
	if (m.len && !access_ok(data, m.len))
		return -EFAULT;
	/*
	 * Straight into the record (no copy through a kernel buffer); a page
	 * not resident is faulted in here, where we may sleep, and the
	 * marker written again. A page that goes away each time: -EFAULT.
	 */
	for (tries = 0; tries < 4; tries++) {
		ret = tb_marker_write(rb, &m);
		if (ret != -EFAULT)
			return ret;
		if (fault_in_readable((const char __user *)data, m.len))
			return -EFAULT;
	}
	return -EFAULT;
}

/**
 * tracebuf_ring_get - the data ring of an open /dev/tracebuf file
 * @fd: a file descriptor of the calling process
 *
 * For tests-only producers. Holds a reference to the file, and so to the
 * session and its ring, until tracebuf_ring_put().
 */
struct tb_ring *tracebuf_ring_get(int fd)
{
	struct file *f = fget(fd);
	struct tb_session *s;
	struct tb_ring *rb;

	if (!f)
		return ERR_PTR(-EBADF);
	if (f->f_op != &tb_fops) {
		fput(f);
		return ERR_PTR(-EINVAL);
	}
	s = f->private_data;
	rb = tb_session_ring(s);
	if (!rb) {
		fput(f);
		return ERR_PTR(-ENXIO);
	}
	return rb;
}
EXPORT_SYMBOL_GPL(tracebuf_ring_get);

void tracebuf_ring_put(struct tb_ring *rb)
{
	fput(rb->s->file);
}
EXPORT_SYMBOL_GPL(tracebuf_ring_put);
