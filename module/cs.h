/* SPDX-License-Identifier: GPL-2.0 */
/*
 * The CoreSight backend's pieces: ETMv4 trace units (cs_etm.c), TMC sinks
 * (cs_tmc.c) and the backend that ties them to sessions (coresight.c).
 * Everything reaches registers through the platform's struct tb_cs_io.
 */
#ifndef _TRACEBUF_CS_H
#define _TRACEBUF_CS_H

#include <linux/cpumask.h>
#include <linux/types.h>
#include <tracebuf.h>

#include "cs_hw.h"

struct device;
struct tb_cs_dev;

/*
 * A link's programming (one file per type: cs_funnel.c, cs_replicator.c,
 * and cs_tmc.c for an ETF in hardware FIFO mode), as the kernel's
 * coresight-funnel.c, -replicator.c and -tmc-etf.c drivers do it. enable
 * opens the way from slave port in to master port out for trace ID id;
 * each keeps its own references (a port, an ID group, the FIFO) and
 * touches the hardware only on the first enable and the last disable.
 * Called under tb_cs_link_lock (cs_path.c), any CPU, never sleeps.
 */
struct tb_cs_link_ops {
	const char *name;
	void (*reset)(struct tb_cs_dev *d);	/* at probe, optional */
	int (*enable)(struct tb_cs_dev *d, unsigned int in, unsigned int out, u8 id);
	void (*disable)(struct tb_cs_dev *d, unsigned int in, unsigned int out, u8 id);
};

/* One component other than an ETM, as probed. */
struct tb_cs_dev {
	const struct tb_cs_io *io;
	void __iomem *base;
	struct device *dev;
	const char *name;
	enum tb_cs_kind kind;
	const struct tb_cs_link_ops *link;	/* NULL: passes everything (static) */
	int sink;			/* TMC: index into the sinks; -1 none */
	bool pm_foreign;		/* a static link another driver holds */
	/* References, under tb_cs_link_lock. */
	unsigned int users;		/* ETF link: paths through it */
	u16 in_users[TB_CS_MAX_PORTS];	/* funnel: per slave port */
	u16 grp_users[2][8];		/* replicator: per master port, per ID group */
};

/* One link on an ETM's way to its sink: in through slave port in, out of master port out. */
struct tb_cs_hop {
	struct tb_cs_dev *d;
	u8 in, out;
};

/* One ETM as probed. */
struct tb_cs_etm {
	const struct tb_cs_io *io;
	void __iomem *base;
	struct device *dev;		/* its device, or NULL */
	const char *name;
	unsigned int cpu;
	unsigned int sink;
	bool skip_power_up;		/* never touch TRCPDCR (qcom,skip-power-up) */
	bool loses_context;		/* off across a CPU power-down (DT says so) */
	bool hip08;			/* HiSilicon Hip08: lower the core commit rate */
	/*
	 * TRFCR_EL1 that lets the session's ELs trace (FEAT_TRF), as
	 * cpu_detect_trace_filtering() sets it up; 0 without FEAT_TRF.
	 */
	u64 trfcr;
	struct tb_cs_hop *path;		/* its links, source side first */
	unsigned int nr_hops;
	u8 out_port, sink_port;		/* its master port; the sink's slave port */
	struct tracebuf_cs_caps caps;	/* ID registers, trace ID, sink */
	/*
	 * Only ever touched on e->cpu with interrupts off (the session's
	 * IPIs under its trace_lock, and the CPU PM notifier, which runs
	 * on that CPU with interrupts off too): that is their exclusion.
	 */
	const struct tb_cs_prog *prog;	/* enabled by a session with this */
	bool pm_off;			/* disabled across a CPU power-down */
	bool pm_undrained;		/* and it did not drain then */
	int pm_err;			/* re-enabling after the power-down failed */
};

/*
 * cs_path.c: the way from an ETM to its sink, through the links, as
 * coresight-core.c builds and walks it. Links are enabled from the sink
 * towards the source before the ETM, and disabled from the source
 * towards the sink after it (coresight_enable_path(),
 * coresight_disable_path()). Any CPU, interrupts off allowed.
 */
int tb_cs_path_enable(struct tb_cs_etm *e);
void tb_cs_path_disable(struct tb_cs_etm *e);
void tb_cs_link_reset(struct tb_cs_dev *d);
void tb_cs_path_reset_idle(struct tb_cs_etm *e);
extern const struct tb_cs_link_ops tb_cs_funnel_ops;
extern const struct tb_cs_link_ops tb_cs_replicator_ops;
extern const struct tb_cs_link_ops tb_cs_etf_link_ops;

/* How every ETM of a session is programmed (coresight.c, cfg_apply). */
struct tb_cs_prog {
	u32 configr;
	u32 eventctl0, eventctl1;
	u32 stallctlr;
	u32 tsctlr;
	u32 syncpr;
	u32 ccctlr;
	u32 bbctlr;
	u32 victlr;
	u32 viiectlr;
	u32 vissctlr;
	u32 cntrldvr0, cntctlr0;	/* counter 0: the timestamp interval */
	u32 rsctlr2;			/* resource 2: counter 0 at zero */
	unsigned int nr_ac;		/* address comparators used */
	u64 trfcr_excl;			/* TRFCR_EL1 bits to clear: ELs not traced */
	u64 acvr[2 * TB_ETM_MAX_ADDR_RANGES];
	u64 acatr[2 * TB_ETM_MAX_ADDR_RANGES];
};

/*
 * cs_etm.c: on the ETM's own CPU only (as coresight-etm4x-core.c:
 * the OS lock and TRFCR_EL1 are the PE's, and the unit may share the
 * core's power domain), interrupts off allowed, never sleeps.
 */
int tb_etm_probe(struct tb_cs_etm *e);
int tb_etm_enable(struct tb_cs_etm *e, const struct tb_cs_prog *p);
int tb_etm_disable(struct tb_cs_etm *e);

/* One TMC as probed. */
struct tb_cs_sink {
	const struct tb_cs_io *io;
	void __iomem *base;
	struct device *dev;
	const char *name;
	u32 type;			/* TRACEBUF_CS_SINK_* */
	bool sg;			/* ETR: scatter-gather usable */
	/*
	 * ETR: RWP and STS.Full are kept across the Disabled state, so
	 * capture resumes where RWP is programmed (SoC-600 TMC-ETR, like
	 * Linux's TMC_ETR_SAVE_RESTORE). Otherwise it restarts at offset 0
	 * of the buffer.
	 */
	bool save_restore;
	bool max_burst_set;
	u32 max_burst;			/* ETR: AXICTL.WrBurstLen (arm,max-burst-size) */
	u64 sram_size;			/* ETB/ETF: bytes */
	unsigned int nr_etms;		/* ETMs feeding it */
	bool present;
	bool link;			/* ETF: a link on some ETM's path */
};

/* cs_tmc.c: any CPU, never sleeps; -ETIMEDOUT on a bounded wait. */
int tb_tmc_probe(struct tb_cs_sink *k);
int tb_tmc_enable_etr(struct tb_cs_sink *k, u64 dba, bool sg, u64 size, u64 rwp);
int tb_tmc_enable_sram(struct tb_cs_sink *k);
int tb_tmc_flush(struct tb_cs_sink *k, bool stop);
void tb_tmc_disable(struct tb_cs_sink *k);
u32 tb_tmc_status(struct tb_cs_sink *k);
u64 tb_tmc_rwp(struct tb_cs_sink *k);
u32 tb_tmc_rrp(struct tb_cs_sink *k);
u32 tb_tmc_read_word(struct tb_cs_sink *k);

/*
 * cs_drv.c: tracebuf as the components' AMBA driver ("tracebuf-cs"), and
 * runtime PM references around register accesses.
 */
int tb_cs_drv_init(void);
void tb_cs_drv_exit(void);
bool tb_cs_drv_ours(const struct device *dev);
bool tb_cs_drv_needs_binding(const struct device *dev);
bool tb_cs_drv_static(const struct device *dev);
bool tb_cs_pm_wanted(void);
int tb_cs_pm_get(struct device *dev);
void tb_cs_pm_put(struct device *dev);

/* Claim tags and the software lock, shared by both (cs_etm.c). */
void tb_cs_unlock(const struct tb_cs_io *io, void __iomem *base);
void tb_cs_lock(const struct tb_cs_io *io, void __iomem *base);
int tb_cs_claim(const struct tb_cs_io *io, void __iomem *base);
void tb_cs_disclaim(const struct tb_cs_io *io, void __iomem *base);
bool tb_cs_clear_stale_claim(const struct tb_cs_io *io, void __iomem *base);
/* Poll reg until (val & mask) == want: 100 polls 1 us apart. */
int tb_cs_wait(const struct tb_cs_io *io, void __iomem *base, u32 reg,
	       u32 mask, u32 want);

#endif /* _TRACEBUF_CS_H */
