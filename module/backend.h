/* SPDX-License-Identifier: GPL-2.0 */
/*
 * The trace-backend interface. A backend (Intel PT, CoreSight) lives in one
 * file of its own, fills one struct tb_backend and is listed once in
 * backend.c. The core (session.c, aux.c, trace.c) owns sessions, mappings,
 * the AUX pages, the drain timer and CPU hotplug; a backend owns its
 * registers and its output tables.
 *
 * Calling contexts. probe/remove, caps, check_setup, setup_aux/free_aux:
 * process context, may sleep. start/stop/drain: on the traced CPU with
 * interrupts disabled (IPI, hrtimer or irq_work), never sleep; the core
 * guarantees they are serialised per session and CPU.
 */
#ifndef _TRACEBUF_BACKEND_H
#define _TRACEBUF_BACKEND_H

#include <linux/types.h>
#include <tracebuf.h>

struct tb_session;
struct tb_aux;
struct tb_cfg_key;
struct tb_cfg_val;

struct tb_backend {
	const char *name;		/* as in GET_INFO and SETUP */
	u32 id;				/* enum tracebuf_backend_id */
	/* Returns 0 when the hardware (or its emulator) is present. */
	int (*probe)(struct tb_backend *b);
	void (*remove)(struct tb_backend *b);
	/* Capabilities of one CPU for GET_CAPS; returns bytes or -errno. */
	int (*caps)(const struct tb_backend *b, unsigned int cpu, void *buf,
		    size_t size);
	/* Can this backend trace what SETUP asks for? 0 or -errno. */
	int (*check_setup)(const struct tb_backend *b,
			   const struct cpumask *cpus);
	/* Output tables for the AUX pages (aux->chunks); stored in aux->priv. */
	int (*setup_aux)(struct tb_session *s, struct tb_aux *aux);
	void (*free_aux)(struct tb_aux *aux);
	/*
	 * Optional: the AUX area must be one physically contiguous chunk
	 * (a flat ETR buffer); the AUX mmap is -ENOMEM if that fails.
	 */
	bool (*aux_contiguous)(const struct tb_session *s);
	/*
	 * Optional: keep the hardware's other users in the kernel off the
	 * session's CPUs while it is enabled (Intel PT: an event of perf's
	 * own intel_pt PMU that perf's exclusivity rules honour, pt_claim.c).
	 * claim returns 0 or -EBUSY (-ENOMEM, -EACCES, -EIO) and is
	 * idempotent; unclaim gives it back (nothing if not held). Process
	 * context, with s->claim_lock held and no other tracebuf lock but
	 * cpus_read_lock() (trace.c explains why).
	 */
	int (*claim)(struct tb_session *s);
	void (*unclaim)(struct tb_session *s);
	/* Start tracing on this CPU: 0, -EBUSY (foreign owner), -EIO. */
	int (*start)(struct tb_session *s, unsigned int cpu);
	/* Stop on this CPU and publish what the hardware wrote. */
	void (*stop)(struct tb_session *s, unsigned int cpu);
	/*
	 * Optional: DISABLE, after every CPU's stop, in process context
	 * (s->lock held): publish what stop left to process context
	 * (CoreSight: a run whose DMA syncs may not run under trace_lock).
	 */
	void (*stopped)(struct tb_session *s);
	/*
	 * Periodic drain on this CPU: publish new data, detect collisions,
	 * restart a ring that stopped full once there is room again.
	 */
	void (*drain)(struct tb_session *s, unsigned int cpu);
	/*
	 * Optional, task sessions: the AUX position for the SWITCH record
	 * being written on cpu, just after start() (IN) or stop() (OUT) on
	 * it, trace_lock held. Without it, the published head. A shared sink
	 * that runs on for other CPUs gives where the CPU's bytes begin or
	 * end in its running buffer, ahead of the head: published later.
	 */
	u64 (*switch_pos)(struct tb_session *s, unsigned int cpu);
	/*
	 * Optional: SNAPSHOT in process context (cpus_read_lock() and s->lock
	 * held, the session enabled, snapshot mode) instead of a restart IPI
	 * per CPU: for a backend whose stop and publish must visit other CPUs
	 * (CoreSight: a shared sink's ETMs, each on its own CPU). 0 or the
	 * error of a restart that failed (the session is then in error).
	 */
	int (*snapshot)(struct tb_session *s);

	/*
	 * Driver configuration (SET_DRV_CONFIG). cfg_keys fills keys[] for a
	 * CPU (at most max; TB_CFG_F_UNSUPPORTED and ENUM bitmaps from its
	 * capabilities) and returns how many. cfg_apply turns parsed values
	 * into the backend's session configuration, cfg_size bytes at out,
	 * which the core installs under s->trace_lock as s->bcfg; it may
	 * resolve values in vals (cr3=current). Process context.
	 */
	int (*cfg_keys)(const struct tb_backend *b, unsigned int cpu,
			struct tb_cfg_key *keys, unsigned int max);
	int (*cfg_apply)(struct tb_session *s, struct tb_cfg_val *vals, void *out,
			 u64 *conflict);
	size_t cfg_size;
	/*
	 * drain() needs no particular CPU (MMIO sinks): the core's timer
	 * keeps draining while any CPU of the session traces, wherever it
	 * runs, and the cpu argument is the CPU it runs on.
	 */
	bool drain_any_cpu;

	/* Filled by probe: */
	u32 flags;			/* TRACEBUF_BACKEND_F_* */
	u32 nr_cpus;
	u32 caps_size;
	/* Module providing the registers (an emulator), pinned while held. */
	struct module *owner;
};

/* At most this many backends are ever present at once. */
#define TB_BACKENDS_MAX		4

int tb_backends_init(void);
void tb_backends_exit(void);
/*
 * The set of present backends can change while the module runs (an
 * emulator registering). Readers take tb_backends_lock; a session pins the
 * backend it selected with tb_backend_hold() until release.
 */
extern struct mutex tb_backends_lock;
unsigned int tb_backend_count(void);
const struct tb_backend *tb_backend_get(unsigned int idx);
const struct tb_backend *tb_backend_find(const char *name);
int tb_backend_add(struct tb_backend *b);
void tb_backend_del(struct tb_backend *b);
int tb_backend_hold(const struct tb_backend *b);
void tb_backend_release(const struct tb_backend *b);
bool tb_backend_busy(const struct tb_backend *b);

/* pt.c: Intel PT exists on x86_64 only. */
#ifdef CONFIG_X86_64
extern struct tb_backend tb_pt_backend;
int tb_pt_init(void);
void tb_pt_exit(void);
#else
static inline int tb_pt_init(void) { return 0; }
static inline void tb_pt_exit(void) { }
#endif

/* coresight.c: ARM CoreSight exists on arm64 only. */
#ifdef CONFIG_ARM64
extern struct tb_backend tb_cs_backend;
int tb_cs_init(void);
void tb_cs_exit(void);
#else
static inline int tb_cs_init(void) { return 0; }
static inline void tb_cs_exit(void) { }
#endif

#endif /* _TRACEBUF_BACKEND_H */
