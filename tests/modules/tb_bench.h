/* SPDX-License-Identifier: GPL-2.0 WITH Linux-syscall-note */
/*
 * tb_bench: a tests-only module for make bench. A probe on the sys_enter
 * tracepoint writes records into a tracebuf session's data ring with
 * tracebuf_reserve()/tracebuf_commit(), as a BPF program on the raw
 * tracepoint sys_enter writes into a BPF ring buffer: for one process and
 * one system call number, 'batch' records of 'size' bytes per call.
 */
#ifndef _TB_BENCH_H
#define _TB_BENCH_H

#include <linux/ioctl.h>
#include <linux/types.h>

#define TBB_DEVICE	"/dev/tb_bench"

struct tbb_start {
	__s32	fd;		/* an open /dev/tracebuf with a data ring */
	__u32	tgid;		/* only system calls of this process */
	__s32	nr;		/* only this system call number */
	__u32	size;		/* record size in bytes, prefix included */
	__u32	batch;		/* records per system call */
	__u32	flags;		/* TBB_F_* */
};

/* Count the records but write none: the cost of everything but the ring. */
#define TBB_F_COUNT_ONLY	(1U << 0)
/* Several records per call, each with its own tracebuf_reserve(). */
#define TBB_F_SINGLE		(1U << 1)

struct tbb_stats {
	__u64	produced;	/* records attempted */
	__u64	dropped;	/* of which did not fit (counted lost) */
};

#define TBB_IOC_START	_IOW('b', 1, struct tbb_start)
#define TBB_IOC_STOP	_IOR('b', 2, struct tbb_stats)	/* stop, and the totals */

#endif /* _TB_BENCH_H */
