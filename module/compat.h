/* SPDX-License-Identifier: GPL-2.0 */
/*
 * Every difference between the kernel versions tracebuf builds against is
 * hidden here, behind one small wrapper each, so that the rest of the module
 * reads as if written for a single kernel. Supported: 6.1 to 6.12.
 *
 * Never test LINUX_VERSION_CODE anywhere else.
 */
#ifndef _TRACEBUF_COMPAT_H
#define _TRACEBUF_COMPAT_H

#include <linux/version.h>

/* True when the running kernel is in [a.b.c, d.e.f). */
#define TB_KERNEL_RANGE(a, b, c, d, e, f)				\
	(LINUX_VERSION_CODE >= KERNEL_VERSION(a, b, c) &&		\
	 LINUX_VERSION_CODE < KERNEL_VERSION(d, e, f))

#if LINUX_VERSION_CODE < KERNEL_VERSION(6, 1, 0)
#error "tracebuf needs Linux 6.1 or later"
#endif

#include <linux/mm.h>
#include <linux/printk.h>
#include <linux/ratelimit.h>

/*
 * A platform driver's remove() returns void from 6.11 (int before):
 * declare one as TB_PLATFORM_REMOVE_T and end it with
 * return TB_PLATFORM_REMOVE_OK.
 */
#if LINUX_VERSION_CODE >= KERNEL_VERSION(6, 11, 0)
#define TB_PLATFORM_REMOVE_T	void
#define TB_PLATFORM_REMOVE_OK
#else
#define TB_PLATFORM_REMOVE_T	int
#define TB_PLATFORM_REMOVE_OK	0
#endif

/* vm_flags became read-only behind vm_flags_set()/vm_flags_clear() in 6.3. */
#if LINUX_VERSION_CODE >= KERNEL_VERSION(6, 3, 0)
static inline void tb_vm_flags_set(struct vm_area_struct *vma, vm_flags_t flags)
{
	vm_flags_set(vma, flags);
}

static inline void tb_vm_flags_clear(struct vm_area_struct *vma, vm_flags_t flags)
{
	vm_flags_clear(vma, flags);
}
#else
static inline void tb_vm_flags_set(struct vm_area_struct *vma, vm_flags_t flags)
{
	vma->vm_flags |= flags;
}

static inline void tb_vm_flags_clear(struct vm_area_struct *vma, vm_flags_t flags)
{
	vma->vm_flags &= ~flags;
}
#endif

/*
 * System suspend hooks. struct syscore_ops lost its argument-less
 * callbacks for register_syscore() (with a data pointer); Kbuild probes
 * which one the headers have (TB_HAVE_SYSCORE_OPS).
 */
#include <linux/syscore_ops.h>

struct tb_syscore {
	int (*suspend)(void);
	void (*resume)(void);
#ifdef TB_HAVE_SYSCORE_OPS
	struct syscore_ops ops;
#else
	struct syscore_ops ops;
	struct syscore sc;
#endif
};

#ifdef TB_HAVE_SYSCORE_OPS
static inline void tb_register_syscore(struct tb_syscore *s)
{
	s->ops.suspend = s->suspend;
	s->ops.resume = s->resume;
	register_syscore_ops(&s->ops);
}

static inline void tb_unregister_syscore(struct tb_syscore *s)
{
	unregister_syscore_ops(&s->ops);
}
#else
static inline int tb_syscore_suspend(void *data)
{
	return ((struct tb_syscore *)data)->suspend();
}

static inline void tb_syscore_resume(void *data)
{
	((struct tb_syscore *)data)->resume();
}

static inline void tb_register_syscore(struct tb_syscore *s)
{
	s->ops.suspend = tb_syscore_suspend;
	s->ops.resume = tb_syscore_resume;
	s->sc.ops = &s->ops;
	s->sc.data = s;
	register_syscore(&s->sc);
}

static inline void tb_unregister_syscore(struct tb_syscore *s)
{
	unregister_syscore(&s->sc);
}
#endif

/*
 * The kernel's CoreSight trace-ID allocator (coresight-trace-id.c, 6.4+,
 * in coresight.ko, EXPORT_SYMBOL_GPL): taken at run time with
 * symbol_get() when coresight.ko is loaded, so tracebuf needs nothing of
 * it to load. The allocator is a plain ID map: it needs no path owned by
 * the coresight core. tb_cs_kernel_ids_get() pins the module (-ENOENT:
 * none here); tb_cs_kernel_ids_put() lets it go.
 */
struct tb_cs_kernel_ids {
	int (*get)(int cpu);
	void (*put)(int cpu);
};

#if LINUX_VERSION_CODE >= KERNEL_VERSION(6, 4, 0)
#include <linux/module.h>
int coresight_trace_id_get_cpu_id(int cpu);
void coresight_trace_id_put_cpu_id(int cpu);

static inline int tb_cs_kernel_ids_get(struct tb_cs_kernel_ids *k)
{
	k->get = symbol_get(coresight_trace_id_get_cpu_id);
	k->put = symbol_get(coresight_trace_id_put_cpu_id);
	if (k->get && k->put)
		return 0;
	if (k->get)
		symbol_put(coresight_trace_id_get_cpu_id);
	if (k->put)
		symbol_put(coresight_trace_id_put_cpu_id);
	k->get = NULL;
	k->put = NULL;
	return -ENOENT;
}

static inline void tb_cs_kernel_ids_put(struct tb_cs_kernel_ids *k)
{
	if (!k->get)
		return;
	symbol_put(coresight_trace_id_get_cpu_id);
	symbol_put(coresight_trace_id_put_cpu_id);
	k->get = NULL;
	k->put = NULL;
}
#else
static inline int tb_cs_kernel_ids_get(struct tb_cs_kernel_ids *k)
{
	k->get = NULL;
	k->put = NULL;
	return -ENOENT;
}

static inline void tb_cs_kernel_ids_put(struct tb_cs_kernel_ids *k)
{
}
#endif

/*
 * printk_deferred() is not exported; it is vprintk_emit(0, LOGLEVEL_SCHED,
 * NULL, fmt, args) (kernel/printk/printk.c, vprintk_deferred(), on 6.1
 * and 6.12), and vprintk_emit() is. A message from under a runqueue lock
 * (a task session stops from sched_switch, task.c) must not wake the
 * console's waiters there.
 */
static inline __printf(1, 2) void tb_printk_deferred(const char *fmt, ...)
{
	va_list args;

	va_start(args, fmt);
	vprintk_emit(0, LOGLEVEL_SCHED, NULL, fmt, args);
	va_end(args);
}

/* As pr_warn_ratelimited(), deferred; fmt carries no level. */
#define tb_warn_deferred_ratelimited(fmt, ...)				\
do {									\
	static DEFINE_RATELIMIT_STATE(_rs, DEFAULT_RATELIMIT_INTERVAL,	\
				      DEFAULT_RATELIMIT_BURST);		\
	if (__ratelimit(&_rs))						\
		tb_printk_deferred(KERN_WARNING fmt, ##__VA_ARGS__);	\
} while (0)

#endif /* _TRACEBUF_COMPAT_H */
