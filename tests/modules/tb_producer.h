/* SPDX-License-Identifier: GPL-2.0 WITH Linux-syscall-note */
/*
 * tb_producer: a tests-only module that writes TRACEBUF_REC_TEST records
 * into a tracebuf session's data ring from task, softirq and hardirq
 * context on every online CPU at once, and on x86_64 from NMI context too
 * (self-NMIs sent from a per-CPU hrtimer, interrupting its own writer).
 * Shared by the module and the guest tests. START with the NMI context
 * where it is not supported gets -EOPNOTSUPP.
 *
 * CPU hotplug: a CPU of the run that goes offline stops producing (its
 * timers are cancelled and its thread parked on that CPU, so nothing it
 * numbers is ever written from another CPU) and resumes where it left off
 * when it comes back. WAIT returns once every (CPU, context) is done, so
 * it also waits for an offline CPU of the run to come back; STOP does not.
 *
 * Record payload: byte i of the payload is (u8)(seq * 31 + i).
 */
#ifndef _TB_PRODUCER_H
#define _TB_PRODUCER_H

#include <linux/ioctl.h>
#include <linux/types.h>

#define TBP_DEVICE	"/dev/tb_producer"
/* TRACEBUF_CTX_TASK, _SOFTIRQ, _HARDIRQ, _NMI (x86_64 only: self-NMIs) */
#define TBP_NR_CTX	4

struct tbp_start {
	__s32	fd;		/* an open /dev/tracebuf with a data ring */
	__u32	contexts;	/* bit n: enum tracebuf_test_context n */
	__u32	size;		/* record size in bytes, prefix included */
	__u32	batch;		/* records per timer expiry */
	__u64	count;		/* records per context per CPU */
	__u64	period_ns;	/* timer period for the irq contexts */
	__u32	flags;		/* TBP_F_* */
	__u32	reserved;	/* 0 */
};

/* The task context writes a batch per period_ns too (default: flat out). */
#define TBP_F_PACE_TASK	(1U << 0)
/* Each context writes its batch with one tracebuf_reserve_batch(). */
#define TBP_F_BATCH	(1U << 1)

struct tbp_stats {
	__u64	attempted[TBP_NR_CTX];
	__u64	ok[TBP_NR_CTX];
	__u64	failed[TBP_NR_CTX];
	__u32	nr_cpus;
	__u32	done;
	/* Hotplug callbacks seen for CPUs of the run while it ran. */
	__u32	cpu_offline;
	__u32	cpu_online;
};

/* The kernel's own counters of any session's ring (RING_STATS). */
struct tbp_ring_stats {
	__s32	fd;		/* in: an open /dev/tracebuf with a data ring */
	__u32	reserved;	/* 0 */
	__u64	wakeups;	/* wakeups the ring sent (its irq_work ran) */
	__u64	written;	/* committed records, LOST excluded */
	__u64	lost;		/* records that did not fit */
};

#define TBP_IOC_START	_IOW('p', 1, struct tbp_start)
#define TBP_IOC_WAIT	_IOR('p', 2, struct tbp_stats)	/* until done */
#define TBP_IOC_STOP	_IOR('p', 3, struct tbp_stats)	/* stop now */
#define TBP_IOC_RING_STATS _IOWR('p', 4, struct tbp_ring_stats)

#endif /* _TB_PRODUCER_H */
