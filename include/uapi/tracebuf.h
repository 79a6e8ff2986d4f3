/* SPDX-License-Identifier: GPL-2.0 WITH Linux-syscall-note */
/*
 * tracebuf - instruction-trace sessions on /dev/tracebuf.
 *
 * This header is the single contract between the tracebuf kernel module and
 * userspace. It uses fixed-width types only and compiles on its own.
 *
 * Versioning rules:
 *  - TRACEBUF_ABI_VERSION is bumped only for an incompatible change, which
 *    we do not make: the ABI grows by adding ioctls and by appending fields
 *    to size-prefixed structs.
 *  - Every struct passed through an ioctl starts with a __u32 'size' that
 *    the caller sets to sizeof() of the struct as it knows it. The kernel
 *    accepts any size from the first published layout (TRACEBUF_*_SIZE_VER0)
 *    up to the page size (larger: -E2BIG). Bytes beyond what the kernel
 *    knows must be zero, else -E2BIG;
 *    missing trailing fields read as zero. On output the kernel writes back
 *    no more than 'size' bytes.
 *  - Fields named reserved* must be zero on input (-EINVAL otherwise) and
 *    are returned as zero.
 *  - Ioctl numbers encode the VER0 size and never change.
 */
#ifndef _UAPI_TRACEBUF_H
#define _UAPI_TRACEBUF_H

#include <linux/types.h>
#include <linux/ioctl.h>

#define TRACEBUF_ABI_VERSION	1

/* Device node, created by the misc device core (mode 0600 by default). */
#define TRACEBUF_DEVICE		"/dev/tracebuf"

/* One magic for every tracebuf ioctl. */
#define TRACEBUF_IOC_MAGIC	0xB9

/* Trace backend identifiers (struct tracebuf_backend_desc.id). */
enum tracebuf_backend_id {
	TRACEBUF_BACKEND_NONE		= 0,
	TRACEBUF_BACKEND_INTEL_PT	= 1,
	TRACEBUF_BACKEND_CORESIGHT	= 2,
};

/* struct tracebuf_backend_desc.flags */
#define TRACEBUF_BACKEND_F_EMULATED	(1U << 0) /* registers come from an emulator */

#define TRACEBUF_NAME_LEN	16
#define TRACEBUF_VERSION_LEN	32

/*
 * One trace backend present on this machine, as reported by GET_INFO.
 * Entries are written to the array at tracebuf_info.backends_ptr with a
 * stride of tracebuf_info.backend_desc_size bytes.
 */
struct tracebuf_backend_desc {
	char	name[TRACEBUF_NAME_LEN];	/* "intel_pt", NUL-terminated */
	__u32	id;				/* enum tracebuf_backend_id */
	__u32	flags;				/* TRACEBUF_BACKEND_F_* */
	__u32	nr_cpus;			/* CPUs this backend can trace */
	__u32	caps_size;			/* bytes of capability data */
	__u64	reserved[2];
};

#define TRACEBUF_BACKEND_DESC_SIZE_VER0	48

/*
 * TRACEBUF_IOC_GET_INFO - what this module and machine offer.
 *
 * In: size, backends_max, backend_desc_size, backends_ptr; reserved = 0.
 * Out: everything else. nr_backends is the number present, which may exceed
 * backends_max: then only backends_max entries are written.
 *
 * Errors:
 *  -EFAULT  the struct or the backend array is not accessible
 *  -EINVAL  size < TRACEBUF_INFO_SIZE_VER0, a reserved field is not zero,
 *           or backends_max > 0 with backend_desc_size <
 *           TRACEBUF_BACKEND_DESC_SIZE_VER0 or above the page size, or
 *           backends_ptr == 0
 *  -E2BIG   size > what the kernel knows and the extra bytes are not zero
 */
struct tracebuf_info {
	__u32	size;			/* in: sizeof(struct tracebuf_info) */
	__u32	abi_version;		/* out: TRACEBUF_ABI_VERSION */
	__u32	page_size;		/* out: the kernel's PAGE_SIZE */
	__u32	nr_cpu_ids;		/* out: CPU numbers are below this */
	__u32	nr_backends;		/* out: backends present */
	__u32	backends_max;		/* in: entries at backends_ptr */
	__u32	backend_desc_size;	/* in: stride of that array */
	__u32	reserved0;
	__u64	backends_ptr;		/* in: struct tracebuf_backend_desc[] */
	char	module_version[TRACEBUF_VERSION_LEN];	/* out */
	__u64	reserved[4];
};

#define TRACEBUF_INFO_SIZE_VER0		104

#define TRACEBUF_IOC_GET_INFO \
	_IOC(_IOC_READ | _IOC_WRITE, TRACEBUF_IOC_MAGIC, 0x00, TRACEBUF_INFO_SIZE_VER0)

/* ------------------------------------------------------------------------
 * Sessions
 *
 * An open file of /dev/tracebuf is one session. SETUP says what it traces;
 * mmap at offset 0 then creates the control page and the data ring (or
 * SETUP.data_size creates the ring for read() consumers).
 */

/* What a session traces (struct tracebuf_setup.target). */
enum tracebuf_target {
	TRACEBUF_TARGET_CPU	= 1,	/* one CPU: tracebuf_setup.cpu */
	TRACEBUF_TARGET_CPUSET	= 2,	/* CPUs feeding one shared sink: cpuset_ptr */
	/*
	 * One process (tracebuf_setup.pid, 0: the caller's), all its
	 * threads, on the CPU(s) given as for TARGET_CPU (cpu) or
	 * TARGET_CPUSET (cpuset_ptr): the hardware runs on such a CPU exactly
	 * while one of those threads is current there. SWITCH records say
	 * which thread each stretch of AUX bytes belongs to.
	 */
	TRACEBUF_TARGET_TASK	= 3,
};

/* tracebuf_setup.flags (NO_TIME, bit 0, and COMPACT, bit 2, are below) */
#define TRACEBUF_SETUP_F_INHERIT	(1U << 1)	/* TARGET_TASK: and its children */

/* Backend names with a special meaning in tracebuf_setup.backend. */
#define TRACEBUF_BACKEND_AUTO	"auto"	/* the first backend present ("" too) */
#define TRACEBUF_BACKEND_DATA	"none"	/* data ring only: markers, test producers */

/*
 * TRACEBUF_IOC_SETUP - configure the session.
 *
 * cpuset_ptr points at a CPU bitmap of cpuset_size bytes (a multiple of 8,
 * at most 1024): __u64 words, bit n of word w is CPU 64 * w + n.
 *
 * target CPU: cpuset_ptr and cpuset_size must be 0; target CPUSET: cpu
 * must be 0. target TASK: the CPUs as for CPU (cpuset_size 0) or CPUSET
 * (cpu 0); pid names any thread of the process in the caller's pid
 * namespace (0: the caller's own process); flags may have
 * TRACEBUF_SETUP_F_INHERIT. pid and TRACEBUF_SETUP_F_INHERIT must be 0
 * for the other targets (TRACEBUF_SETUP_F_NO_TIME applies to every
 * target). A SETUP that fails changes nothing.
 *
 * data_size, when not zero, allocates the data ring now (bytes, a power of
 * two number of pages, at most TRACEBUF_DATA_SIZE_MAX); the first mmap must
 * then use it. When zero, the first mmap decides the size.
 *
 * Errors:
 *  -EFAULT  the struct or the CPU bitmap is not accessible
 *  -EINVAL  size < TRACEBUF_SETUP_SIZE_VER0; unknown flags; a reserved field
 *           not zero; unknown target; CPU not possible or not online; empty
 *           or malformed CPU set; backend name not NUL-terminated; bad
 *           data_size; a watermark larger than the ring; a backend that
 *           traces one CPU per session (intel_pt) given a set of several
 *           CPUs, or a CPU it cannot trace; pid < 0, or pid or
 *           TRACEBUF_SETUP_F_INHERIT not 0 for a target other than TASK;
 *           TRACEBUF_SETUP_F_COMPACT with a backend other than "none"
 *  -ESRCH   TARGET_TASK: no such process, or it is exiting
 *  -EACCES  TARGET_TASK: the opener may not trace that process: the
 *           credentials the file was opened with do not pass
 *           ptrace_may_access(PTRACE_MODE_READ_REALCREDS) (another
 *           user's process, or one that is not dumpable)
 *  -EBUSY   TARGET_TASK: another session already traces that process on
 *           one of these CPUs
 *  -EINTR   TARGET_TASK: a signal came while waiting for an exec of the
 *           process to finish
 *  -EOPNOTSUPP TARGET_TASK: this kernel lacks the scheduler tracepoints
 *  -E2BIG   size > what the kernel knows with non-zero extra bytes
 *  -ENODEV  no such backend present ("auto" with none present)
 *  -EBUSY   the session's data ring exists (SETUP gave data_size, or it
 *           was mapped): SETUP is final from then on
 *  -ENOMEM  no memory for the ring
 *  -EPERM   data_size given, and the ring's pages (data + control page)
 *           are over the caller's pinned-memory limit: the per-user
 *           allowance (module parameter mlock_kb, KiB per online CPU, as
 *           perf_event_mlock_kb) and then RLIMIT_MEMLOCK, unless
 *           CAP_IPC_LOCK (docs/abi.md, "Permissions and memory limits")
 */
struct tracebuf_setup {
	__u32	size;			/* sizeof(struct tracebuf_setup) */
	__u32	flags;			/* TRACEBUF_SETUP_F_*; others must be 0 */
	__u32	target;			/* enum tracebuf_target */
	__u32	cpu;			/* TRACEBUF_TARGET_CPU */
	__u64	cpuset_ptr;		/* TRACEBUF_TARGET_CPUSET */
	__u32	cpuset_size;
	__u32	wakeup_events;		/* wake every N records; 0: watermark only */
	__u64	data_watermark;		/* wake at this many unread bytes; 0: half */
	__u64	aux_watermark;		/* wake at this many unread AUX bytes; 0: half */
	__u64	data_size;		/* 0, or the data ring size in bytes */
	char	backend[TRACEBUF_NAME_LEN];	/* "auto", "none", "intel_pt", ... */
	/*
	 * Taken from what was reserved (zero) when TARGET_TASK came: the
	 * struct keeps its size, so programs and libraries built before it
	 * pass the same bytes.
	 */
	__s32	pid;			/* TARGET_TASK: the process; 0: the caller */
	__u32	reserved0;
	__u64	reserved[3];
};

#define TRACEBUF_SETUP_SIZE_VER0	104

/*
 * tracebuf_setup.flags (opt-in; a kernel without one refuses it, -EINVAL).
 * NO_TIME: every record's time is 0; writers skip reading the clock (a
 * ring for which the order of records is enough). Records keep their
 * layout.
 * COMPACT: records start with the 8-byte struct tracebuf_crec instead of
 * struct tracebuf_record (no CPU, no time); data-only sessions (backend
 * "none") only, else -EINVAL. The control page says so
 * (TRACEBUF_CTL_F_COMPACT).
 */
#define TRACEBUF_SETUP_F_NO_TIME	(1U << 0)
#define TRACEBUF_SETUP_F_COMPACT	(1U << 2)
#define TRACEBUF_DATA_SIZE_MAX		(1ULL << 30)

#define TRACEBUF_IOC_SETUP \
	_IOC(_IOC_WRITE, TRACEBUF_IOC_MAGIC, 0x01, TRACEBUF_SETUP_SIZE_VER0)

/*
 * The mapping at offset 0.
 *
 *   offset 0                    the control page (struct tracebuf_ctl)
 *   offset page_size            the data ring, data_size bytes
 *   offset page_size+data_size  the same data pages again
 *
 * so the mapping length is exactly page_size + 2 * data_size, where
 * data_size is 2^n pages (n >= 0). A record is always contiguous: a reader
 * at data_offset + (tail & (data_size - 1)) can read the whole record
 * without caring about the wrap. Any other length, a non-zero offset, a
 * size other than that of an existing ring, a private mapping (-EINVAL),
 * PROT_EXEC (-EPERM), a data_watermark above the size the first mmap asks
 * for (-EINVAL), mmap before SETUP (-ENXIO), mmap of a session that
 * read() has consumed from (-EBUSY), partial munmap (-EINVAL) and mremap
 * growth are refused; the mapping is not inherited across fork.
 *
 * Writable mapping: the consumer owns data_tail and must store it with
 * release semantics after reading. Read-only mapping: the consumer never
 * moves data_tail, so the ring fills once and every later record is
 * counted as lost (records_lost, and a LOST record can no longer fit):
 * nothing is ever overwritten behind a reader's back.
 *
 * Barrier protocol (the kernel side is documented in module/ring.c):
 *   consumer: head = load_acquire(data_head)       (pairs with the writer's publish)
 *             c = load_acquire(record->commit)     (pairs with the writer's commit)
 *             if c != tracebuf_commit_tag(tail): stop (not yet committed)
 *             read the record
 *             store_release(data_tail, tail + size) (pairs with the writer's space check)
 */
struct tracebuf_ctl {
	/* Kernel-written when the ring is created, then constant. */
	__u32	abi_version;
	__u32	ctl_size;		/* sizeof(struct tracebuf_ctl) */
	__u32	page_size;
	__u32	flags;			/* TRACEBUF_CTL_F_* */
	__u64	data_offset;		/* page_size */
	__u64	data_size;		/* bytes, 2^n pages */
	__u32	clock_id;		/* CLOCK_MONOTONIC: record time base */
	__u32	reserved0;
	__u8	pad0[128 - 40];

	/*
	 * Kernel-written: bytes reserved so far (free-running). A hint of how
	 * far to look: concurrent writers may leave it briefly behind, and it
	 * may cover records still being written. The commit word decides.
	 */
	__u64	data_head;
	__u8	pad1[128 - 8];

	/* Consumer-written: bytes consumed so far (free-running). */
	__u64	data_tail;
	__u8	pad2[128 - 8];

	/* Kernel-written: AUX ring head (the AUX issue). */
	__u64	aux_head;
	__u8	pad3[128 - 8];

	/* Consumer-written: AUX tail, and where to map the AUX ring. */
	__u64	aux_tail;
	__u64	aux_offset;
	__u64	aux_size;
	__u8	pad4[128 - 24];

	/* Kernel-written counters. */
	__u64	records_written;	/* committed records but the ring's own LOST reports */
	__u64	records_lost;		/* records that did not fit */
	__u64	wakeups;		/* wakeups sent (poll/epoll/SIGIO) */
	__u64	aux_published;		/* AUX bytes published (sum of AUX records) */
	__u64	aux_truncations;	/* times the hardware stopped on a full AUX ring */
	__u64	aux_collisions;		/* times another owner took the hardware */
	__u64	aux_padding;		/* PAD bytes the kernel wrote into published spans */
	__u64	reserved1[9];
};

#define TRACEBUF_CTL_F_READONLY	(1U << 0)	/* read-only mapping: no tail */
#define TRACEBUF_CTL_F_AUX_SNAPSHOT (1U << 1)	/* AUX mapped read-only: snapshot */
#define TRACEBUF_CTL_F_ENABLED	(1U << 2)	/* the session is tracing */
#define TRACEBUF_CTL_F_COMPACT	(1U << 3)	/* records: struct tracebuf_crec */

/*
 * The AUX ring: what the trace hardware writes, byte for byte.
 *
 * After the mapping at offset 0 exists, the consumer stores aux_offset and
 * aux_size in the control page, then mmaps exactly aux_size bytes at
 * aux_offset. aux_offset must be page-aligned and at or above
 * page_size + 2 * data_size (the end of the first mapping); aux_size must
 * be a power-of-two number of pages, at most TRACEBUF_AUX_SIZE_MAX.
 * Errors: no data mapping yet (-ENXIO); misaligned or overlapping offset,
 * size not 2^n pages, length != aux_size, or a second AUX mapping with
 * another offset or size (-EINVAL); a session without a backend
 * (-ENODEV); MAP_PRIVATE (-EINVAL), PROT_EXEC (-EPERM); a second mapping
 * with the other protection (writable vs read-only: -EINVAL); an
 * aux_watermark larger than aux_size (-EINVAL); aux_offset above
 * TRACEBUF_AUX_OFFSET_MAX (-EINVAL); a read-only (snapshot) mapping where
 * the hardware cannot wrap freely (Intel PT without multi-entry ToPA:
 * -EOPNOTSUPP); the sink needs one physically contiguous area and none
 * was found (CoreSight flat ETR: -ENOMEM); no memory (-ENOMEM); the AUX
 * pages and the backend's output tables over the caller's pinned-memory
 * limit (-EPERM, as for SETUP). A failed AUX mmap changes nothing.
 * The pages are zeroed before they are mapped. Like the mapping at offset
 * 0, it is never inherited across fork (MADV_DOFORK fails with -EINVAL),
 * and a page dropped with MADV_DONTNEED is mapped again on the next touch.
 *
 * Writable AUX mapping (no-overwrite mode): the hardware never overwrites
 * bytes the consumer has not released by storing aux_tail (release
 * semantics, after reading). When the ring is full the hardware stops;
 * the span published next carries TRACEBUF_AUX_F_TRUNCATED, aux_truncations
 * counts it, and tracing resumes by itself once aux_watermark bytes are
 * free again.
 *
 * Read-only AUX mapping (snapshot mode): the hardware wraps freely; the
 * kernel publishes aux_head at TRACEBUF_IOC_SNAPSHOT and DISABLE, with an
 * AUX record flagged OVERWRITE covering the newest min(written, aux_size)
 * bytes.
 *
 * Protocol: aux_head (free-running bytes) is stored with release
 * semantics after the hardware was stopped or drained, and after the AUX
 * record describing the new span was committed; the consumer loads it with
 * acquire semantics, reads [aux_tail, aux_head) at aux_offset +
 * (pos & (aux_size - 1)) (this ring is mapped once: a span may wrap), then
 * stores aux_tail with release semantics. The kernel validates aux_tail:
 * a value behind the last one, or beyond aux_head, is ignored.
 *
 * Accounting: aux_published = bytes the hardware wrote + aux_padding.
 * Padding is written only where the hardware leaves a region early or
 * its bytes cannot be kept: Intel PT single-entry ToPA raises its
 * interrupt up to 512 bytes before the region ends, and the rest of the
 * region is zero bytes (PAD packets) so the next span starts at the next
 * region; a CoreSight ETR run ends at a 4 KiB granule, filled with
 * formatter frames of the null trace ID 0, which decoders ignore, as is
 * the part of a run that SWITCH records placed threads in when the run
 * cannot be kept (it wrapped: docs/abi.md, section 7).
 *
 * munmap of the AUX area while tracing stops the hardware on every CPU
 * before any page is freed; the session can be enabled again only after a
 * new AUX mapping.
 */
#define TRACEBUF_AUX_SIZE_MAX		(1ULL << 32)
#define TRACEBUF_AUX_OFFSET_MAX		(1ULL << 40)

/*
 * TRACEBUF_IOC_ENABLE - start the trace hardware on the session's CPU(s)
 * (TARGET_TASK: on each of them whenever a traced thread runs there).
 * Errors: -ENODEV the session has no backend ("none") or its CPU is
 * offline; -ENXIO no AUX mapping; -EALREADY already enabled (also after a
 * collision or error: DISABLE first); -EBUSY another owner holds the
 * hardware (Intel PT: perf's intel_pt has an event that can run on that
 * CPU, a per-task one anywhere or a CPU-wide one there, or another
 * tracebuf session holds the CPU, or TraceEn is set by another owner);
 * -EIO the hardware refused the programmed values; -EINVAL SETUP not done;
 * -EACCES CPU-wide tracing needs CAP_PERFMON (or CAP_SYS_ADMIN) in the
 * credentials the file was opened with, unless the module parameter
 * paranoid (as perf_event_paranoid) is <= 0; TARGET_TASK needs it when
 * paranoid is > 2, and kernel-mode tracing of a task (kernel=1) needs it
 * when paranoid is > 1 (or a security module refused perf's event that
 * holds an Intel PT unit); -ENOMEM no memory for that event; -ESHUTDOWN
 * the machine is going down (restart, halt, power-off or kexec: every
 * session was stopped and nothing starts again); -EOPNOTSUPP Intel PT:
 * the CPU cannot trace in VMX operation (TRACEBUF_PT_CAP_NO_VMX_TRACE) and
 * a hypervisor has it in VMX operation.
 *
 * Intel PT: from ENABLE until DISABLE, close or the AUX munmap, a CPU or
 * CPU-set session holds its CPU's unit against perf: perf_event_open() of
 * an intel_pt event that could run there fails with EBUSY (docs/abi.md,
 * section 13).
 *
 * TRACEBUF_IOC_DISABLE - stop the hardware and publish everything it wrote.
 * Returns 0 also when not enabled. -EINVAL before SETUP.
 *
 * TRACEBUF_IOC_SNAPSHOT - snapshot mode only: stop, publish, restart.
 * Errors: -EINVAL not in snapshot mode; -ENXIO not enabled; -EBUSY or
 * -EIO a CPU's hardware refused to restart (what it wrote is published,
 * that CPU stays stopped and the session is in the error state, EPOLLERR).
 *
 * After a collision (another owner took the hardware: an AUX record with
 * COLLISION) or a hardware error, the session stops tracing and poll
 * reports EPOLLERR until DISABLE, and TRACEBUF_CTL_F_ENABLED is cleared
 * once no CPU of the session traces (ENABLE still returns -EALREADY);
 * DISABLE then ENABLE starts again. SIGIO reports it as POLL_IN: check
 * poll() for EPOLLERR.
 */
#define TRACEBUF_IOC_ENABLE	_IO(TRACEBUF_IOC_MAGIC, 0x03)
#define TRACEBUF_IOC_DISABLE	_IO(TRACEBUF_IOC_MAGIC, 0x04)
#define TRACEBUF_IOC_SNAPSHOT	_IO(TRACEBUF_IOC_MAGIC, 0x05)

/*
 * Intel PT capabilities of one CPU (TRACEBUF_IOC_GET_CAPS with
 * backend "intel_pt"): the raw CPUID leaves a decoder needs, and their
 * decoded form. Also under /sys/class/misc/tracebuf/intel_pt/caps/.
 */
struct tracebuf_pt_caps {
	__u32	cpuid_14_0[4];		/* CPUID.(EAX=14H,ECX=0): eax ebx ecx edx */
	__u32	cpuid_14_1[4];		/* CPUID.(EAX=14H,ECX=1) */
	__u32	cpuid_15[4];		/* TSC/core crystal ratio: eax ebx ecx edx */
	__u32	family;
	__u32	model;
	__u32	stepping;
	__u32	max_nonturbo_ratio;	/* MSR_PLATFORM_INFO[15:8], 0 if unknown */
	__u32	nr_addr_ranges;
	__u32	mtc_periods;		/* bitmap of allowed CTL.MTCFreq */
	__u32	cyc_thresholds;		/* bitmap of allowed CTL.CycThresh */
	__u32	psb_periods;		/* bitmap of allowed CTL.PSBFreq */
	__u64	flags;			/* TRACEBUF_PT_CAP_* */
	__u64	reserved[4];
};

#define TRACEBUF_PT_CAP_CR3_FILTERING	(1ULL << 0)
#define TRACEBUF_PT_CAP_PSB_CYC		(1ULL << 1)
#define TRACEBUF_PT_CAP_IP_FILTERING	(1ULL << 2)
#define TRACEBUF_PT_CAP_MTC		(1ULL << 3)
#define TRACEBUF_PT_CAP_PTWRITE		(1ULL << 4)
#define TRACEBUF_PT_CAP_POWER_EVENT	(1ULL << 5)
#define TRACEBUF_PT_CAP_TOPA_OUTPUT	(1ULL << 6)
#define TRACEBUF_PT_CAP_TOPA_MULTI	(1ULL << 7)
#define TRACEBUF_PT_CAP_SINGLE_RANGE	(1ULL << 8)
#define TRACEBUF_PT_CAP_OUTPUT_SUBSYS	(1ULL << 9)
#define TRACEBUF_PT_CAP_PAYLOADS_LIP	(1ULL << 10)
#define TRACEBUF_PT_CAP_TNT_DISABLE	(1ULL << 11)
#define TRACEBUF_PT_CAP_EVENT_TRACE	(1ULL << 12)
#define TRACEBUF_PT_CAP_BRANCH_ALWAYS	(1ULL << 13)	/* BDM106: BranchEn stays set */
#define TRACEBUF_PT_CAP_SINGLE_4K	(1ULL << 14)	/* TGL052 & co: single range <= 4 KiB */
/*
 * IA32_VMX_MISC[14] clear: the CPU cannot trace in VMX operation (VMXON
 * clears TraceEn; ENABLE is -EOPNOTSUPP while a hypervisor runs).
 */
#define TRACEBUF_PT_CAP_NO_VMX_TRACE	(1ULL << 15)

/*
 * CoreSight capabilities of one CPU (TRACEBUF_IOC_GET_CAPS with backend
 * "coresight"): the ETMv4 ID registers as read on that CPU, the trace ID
 * it was given, and the sink its trace reaches. A session traces the CPUs
 * of one sink: all of them (shared sink), or one (per-CPU sinks).
 */
struct tracebuf_cs_caps {
	__u32	trcidr[14];		/* TRCIDR0..TRCIDR13 */
	__u32	trcdevarch;
	__u32	trcdevid;
	__u32	trcauthstatus;
	__u32	trace_id;		/* unique among the ETMs of its sink */
	__u32	sink;			/* index of the sink, 0.. */
	__u32	sink_type;		/* TRACEBUF_CS_SINK_* */
	__u32	sink_flags;		/* TRACEBUF_CS_SINK_F_* */
	__u32	sink_cpus;		/* how many CPUs' ETMs feed that sink */
	__u64	sink_size;		/* ETB/ETF: SRAM bytes; ETR: 0 (AUX pages) */
	__u64	reserved[4];
};

/* struct tracebuf_cs_caps.sink_type: TMC DEVID.CONFIG_TYPE */
#define TRACEBUF_CS_SINK_ETB		0	/* TMC-ETB: internal SRAM */
#define TRACEBUF_CS_SINK_ETR		1	/* TMC-ETR: writes to memory */
#define TRACEBUF_CS_SINK_ETF		2	/* TMC-ETF: SRAM, used as a buffer */
/* struct tracebuf_cs_caps.sink_flags */
#define TRACEBUF_CS_SINK_F_SG		(1U << 0)	/* ETR in scatter-gather mode */
#define TRACEBUF_CS_SINK_F_SHARED	(1U << 1)	/* fed by several CPUs */

/*
 * TRACEBUF_IOC_GET_CAPS - the capabilities of one backend on one CPU.
 * In: size, backend (name), cpu, caps_size, caps_ptr. Out: caps_size set to
 * the size the kernel has; min(that, the caller's caps_size) bytes written.
 * Errors: -EFAULT; -EINVAL (size < VER0, reserved not zero, name not
 * terminated, CPU not possible); -ENODEV (no such backend, or it cannot
 * trace that CPU); -E2BIG.
 */
struct tracebuf_caps_query {
	__u32	size;
	__u32	cpu;
	char	backend[TRACEBUF_NAME_LEN];
	__u32	caps_size;
	__u32	reserved0;
	__u64	caps_ptr;
	__u64	reserved[2];
};

#define TRACEBUF_CAPS_QUERY_SIZE_VER0	56

#define TRACEBUF_IOC_GET_CAPS \
	_IOC(_IOC_READ | _IOC_WRITE, TRACEBUF_IOC_MAGIC, 0x06, TRACEBUF_CAPS_QUERY_SIZE_VER0)

/* ------------------------------------------------------------------------
 * Driver configuration: "key=value,key,key=value" text, validated by the
 * session's backend as a whole before anything changes.
 */

#define TRACEBUF_DRV_CONFIG_MAX	4096	/* bytes of text, NUL included */

/* Why a configuration string was refused (tracebuf_drv_config.err_reason). */
enum tracebuf_cfg_reason {
	TRACEBUF_CFG_OK			= 0,
	TRACEBUF_CFG_EMPTY		= 1,	/* -EINVAL: empty string or token */
	TRACEBUF_CFG_SYNTAX		= 2,	/* -EINVAL: malformed token */
	TRACEBUF_CFG_NON_ASCII		= 3,	/* -EINVAL */
	TRACEBUF_CFG_UNKNOWN_KEY	= 4,	/* -EINVAL */
	TRACEBUF_CFG_DUPLICATE		= 5,	/* -EINVAL: key given twice */
	TRACEBUF_CFG_BAD_VALUE		= 6,	/* -EINVAL: not a value of its type */
	TRACEBUF_CFG_OUT_OF_RANGE	= 7,	/* -ERANGE: outside min..max, overflow */
	TRACEBUF_CFG_NOT_ALLOWED	= 8,	/* -ERANGE: not among allowed values */
	TRACEBUF_CFG_UNSUPPORTED	= 9,	/* -EOPNOTSUPP: the CPU lacks it */
	TRACEBUF_CFG_PERMISSION		= 10,	/* -EACCES: needs CAP_PERFMON */
	TRACEBUF_CFG_TOO_LONG		= 11,	/* -EINVAL: over TRACEBUF_DRV_CONFIG_MAX */
	/* -EINVAL: values the backend cannot have together (the token names one) */
	TRACEBUF_CFG_CONFLICT		= 12,
};

/* tracebuf_drv_config.flags */
#define TRACEBUF_DRV_CONFIG_F_RESET	(1U << 0)	/* SET: start from the defaults */

/*
 * TRACEBUF_IOC_SET_DRV_CONFIG - change the session's driver configuration.
 *
 * In: config_ptr points at config_len bytes holding a NUL-terminated string
 * (config_len <= TRACEBUF_DRV_CONFIG_MAX); flags. The keys named are set;
 * the others keep their current values (or their defaults with
 * TRACEBUF_DRV_CONFIG_F_RESET). The whole string is checked before
 * anything changes: on any error nothing changes, and err_offset,
 * err_len and err_reason say which token was wrong and why.
 *
 * If the session is tracing, the backend stops the hardware on each traced
 * CPU, publishes what it wrote, writes a CONFIG record (new generation and
 * the canonical string) and restarts it, all on that CPU without letting
 * another session in. Otherwise the configuration is used at the next
 * ENABLE, and the CONFIG record is written now if the data ring exists.
 * Out: generation (incremented by every successful SET; the current one
 * on failure). If a traced CPU's hardware refuses the new configuration
 * when it restarts, SET returns that error (-EIO), keeps the new
 * configuration, and the session is in the error state (EPOLLERR).
 *
 * Errors: -EFAULT; -EINVAL (size < VER0, unknown flags, reserved not zero,
 * config_len 0 or too large, no NUL within config_len, SETUP not done, or
 * a malformed/unknown token: see err_reason); -ENODEV (the session has no
 * backend); -ERANGE; -EOPNOTSUPP; -EACCES; -E2BIG.
 *
 * TRACEBUF_IOC_GET_DRV_CONFIG - the canonical form of the active
 * configuration: every key of the backend that the CPU supports, defaults
 * included, in a stable order (LIST_DRV_CONFIG's order, keys flagged
 * TRACEBUF_CFG_KEY_UNSUPPORTED left out). In: config_ptr/config_len, a
 * buffer. Out: config_len = bytes needed, NUL included; the string is
 * written only if it fits (-ENOSPC otherwise, with config_len set);
 * generation. Errors as above.
 */
struct tracebuf_drv_config {
	__u32	size;
	__u32	flags;			/* TRACEBUF_DRV_CONFIG_F_* */
	__u64	config_ptr;
	__u32	config_len;
	__u32	err_offset;		/* out: byte offset of the offending token */
	__u32	err_len;		/* out: its length */
	__u32	err_reason;		/* out: enum tracebuf_cfg_reason */
	__u64	generation;		/* out */
	__u64	reserved[2];
};

#define TRACEBUF_DRV_CONFIG_SIZE_VER0	56

#define TRACEBUF_IOC_SET_DRV_CONFIG \
	_IOC(_IOC_READ | _IOC_WRITE, TRACEBUF_IOC_MAGIC, 0x07, TRACEBUF_DRV_CONFIG_SIZE_VER0)
#define TRACEBUF_IOC_GET_DRV_CONFIG \
	_IOC(_IOC_READ | _IOC_WRITE, TRACEBUF_IOC_MAGIC, 0x08, TRACEBUF_DRV_CONFIG_SIZE_VER0)

/* Key types (tracebuf_cfg_key_desc.type) and what their values look like. */
enum tracebuf_cfg_type {
	TRACEBUF_CFG_BOOL	= 1,	/* 0 or 1; a bare key means 1 */
	TRACEBUF_CFG_UINT	= 2,	/* decimal or 0x-hex, min..max */
	TRACEBUF_CFG_ENUM	= 3,	/* decimal n with bit n set in 'allowed' */
	TRACEBUF_CFG_U64	= 4,	/* decimal or 0x-hex; "off"; "current" if flagged */
	TRACEBUF_CFG_RANGE	= 5,	/* "off" or START-END:filter|stop */
};

/* tracebuf_cfg_key_desc.flags */
#define TRACEBUF_CFG_KEY_PRIV		(1U << 0)	/* non-zero needs CAP_PERFMON */
#define TRACEBUF_CFG_KEY_CURRENT	(1U << 1)	/* U64 accepts "current" */
#define TRACEBUF_CFG_KEY_UNSUPPORTED	(1U << 2)	/* this CPU lacks it */

#define TRACEBUF_CFG_NAME_LEN	24
#define TRACEBUF_CFG_DESC_LEN	80

struct tracebuf_cfg_key_desc {
	char	name[TRACEBUF_CFG_NAME_LEN];
	__u32	type;			/* enum tracebuf_cfg_type */
	__u32	flags;			/* TRACEBUF_CFG_KEY_* */
	__u64	min;			/* UINT */
	__u64	max;
	__u64	def;			/* default (RANGE: 0, off) */
	__u32	allowed;		/* ENUM: bit n = value n allowed */
	__u32	reserved0;
	char	desc[TRACEBUF_CFG_DESC_LEN];	/* one line */
};

#define TRACEBUF_CFG_KEY_DESC_SIZE_VER0	144

/*
 * TRACEBUF_IOC_LIST_DRV_CONFIG - the keys a backend understands on a CPU,
 * with their types, ranges, allowed values, defaults and descriptions.
 * Needs no SETUP. In: size, backend, cpu, keys_max, key_size (stride,
 * >= TRACEBUF_CFG_KEY_DESC_SIZE_VER0), keys_ptr. Out: nr_keys (may exceed
 * keys_max: then keys_max entries are written).
 * Errors: -EFAULT; -EINVAL (size, reserved, stride below VER0 or above the
 * page size, name not terminated, CPU not possible); -ENODEV (no such
 * backend, or not on that CPU); -E2BIG.
 */
struct tracebuf_cfg_keys {
	__u32	size;
	__u32	cpu;
	char	backend[TRACEBUF_NAME_LEN];
	__u32	nr_keys;		/* out */
	__u32	keys_max;
	__u32	key_size;
	__u32	reserved0;
	__u64	keys_ptr;
	__u64	reserved[2];
};

#define TRACEBUF_CFG_KEYS_SIZE_VER0	64

#define TRACEBUF_IOC_LIST_DRV_CONFIG \
	_IOC(_IOC_READ | _IOC_WRITE, TRACEBUF_IOC_MAGIC, 0x09, TRACEBUF_CFG_KEYS_SIZE_VER0)

/*
 * Records. Every record starts with this 24-byte prefix (a session set up
 * with TRACEBUF_SETUP_F_COMPACT: struct tracebuf_crec, below); its size is a
 * multiple of 8 and at most data_size. 'commit' is written last, with
 * release semantics: a record is complete when its commit word equals
 * tracebuf_commit_tag() of its position (bytes from the start of the
 * stream), so stale bytes of an earlier lap are not taken for a record.
 * time: CLOCK_MONOTONIC nanoseconds (ktime_get_mono_fast_ns); compare with
 * clock_gettime(CLOCK_MONOTONIC) in userspace. 0 with TRACEBUF_SETUP_F_NO_TIME.
 */
struct tracebuf_rec_header {
	__u32	size;			/* bytes, this header included */
	__u16	type;			/* enum tracebuf_rec_type */
	__u16	flags;			/* TRACEBUF_REC_F_* */
};

struct tracebuf_record {
	struct tracebuf_rec_header hdr;
	__u32	commit;			/* tracebuf_commit_tag(position) */
	__u32	cpu;			/* CPU that wrote the record */
	__u64	time;			/* CLOCK_MONOTONIC ns */
};

/*
 * A hash of the position, so that neither zeroed pages nor small integers
 * left in stale payload look committed; never zero.
 */
static inline __u32 tracebuf_commit_tag(__u64 pos)
{
	return (__u32)((pos * 0x9E3779B97F4A7C15ULL) >> 32) | 1U;
}

/* tracebuf_rec_header.flags */
#define TRACEBUF_REC_F_DISCARD	(1U << 0)	/* skip: reserved and discarded */

/*
 * The compact format (TRACEBUF_SETUP_F_COMPACT): every record starts with
 * this 8-byte prefix instead of struct tracebuf_record, and the fields
 * that follow the prefix are those of the standard format
 * (struct tracebuf_crec_lost and so on). There is no CPU and no time; a
 * record is at most TRACEBUF_CREC_SIZE_MAX bytes. 'commit' is the same
 * word at the same offset as in the standard format, written last with
 * release semantics. A record of type TRACEBUF_CREC_SKIP is to be skipped
 * (a discarded reservation, as TRACEBUF_REC_F_DISCARD).
 */
struct tracebuf_crec {
	__u16	size;			/* bytes, this prefix included; a multiple of 8 */
	__u16	type;			/* enum tracebuf_rec_type, or TRACEBUF_CREC_SKIP */
	__u32	commit;			/* tracebuf_commit_tag(position) */
};

#define TRACEBUF_CREC_SKIP	0
#define TRACEBUF_CREC_SIZE_MAX	65528

enum tracebuf_rec_type {
	TRACEBUF_REC_LOST		= 1,
	TRACEBUF_REC_AUX		= 2,
	TRACEBUF_REC_ITRACE_START	= 3,
	TRACEBUF_REC_CONFIG		= 4,
	TRACEBUF_REC_USER		= 5,
	TRACEBUF_REC_ETM		= 6,
	TRACEBUF_REC_SWITCH		= 7,
	TRACEBUF_REC_TASK		= 8,
	TRACEBUF_REC_TEST		= 0x7f00,	/* tests-only producers */
};

/* Records that did not fit since the previous LOST record. */
struct tracebuf_rec_lost {
	struct tracebuf_record r;
	__u64	count;
	__u32	reason;			/* enum tracebuf_lost_reason */
	__u32	flags;			/* TRACEBUF_LOST_F_* */
};

enum tracebuf_lost_reason {
	TRACEBUF_LOST_RING_FULL	= 1,	/* records: the data ring was full */
	/*
	 * Trace bytes: the hardware wrote count bytes that could not be kept
	 * because the AUX ring had no room (no-overwrite mode). Comes just
	 * before the TRUNCATED AUX record of the same span.
	 */
	TRACEBUF_LOST_AUX_OVERRUN = 2,
};

/* struct tracebuf_rec_lost.flags */
#define TRACEBUF_LOST_F_AT_LEAST (1U << 0)	/* count is a lower bound: more may be missing */

/*
 * A span of the AUX ring the hardware wrote. aux_offset is a free-running
 * position, like aux_head and aux_tail, not an offset into the mapping:
 * the span's bytes start at aux_offset & (aux_size of the area - 1) of
 * the AUX mapping and may wrap around its end.
 */
struct tracebuf_rec_aux {
	struct tracebuf_record r;
	__u64	aux_offset;		/* free-running position of the first byte */
	__u64	aux_size;		/* bytes in the span */
	__u64	flags;			/* TRACEBUF_AUX_F_* */
};

#define TRACEBUF_AUX_F_TRUNCATED	(1ULL << 0)	/* data lost: ring full */
#define TRACEBUF_AUX_F_OVERWRITE	(1ULL << 1)	/* snapshot mode wrap */
/*
 * PARTIAL: gaps the kernel cannot size. CoreSight: an ETR memory error.
 * Intel PT: the CPU was in VMX operation during the span (a hypervisor
 * may stop the trace around guest entries; docs/abi.md, section 13).
 */
#define TRACEBUF_AUX_F_PARTIAL		(1ULL << 2)	/* gaps in the trace */
#define TRACEBUF_AUX_F_COLLISION	(1ULL << 3)	/* another owner took the hw */

/* Defined, not written: TARGET_TASK writes SWITCH records (below) instead. */
struct tracebuf_rec_itrace_start {
	struct tracebuf_record r;
	__u32	pid;
	__u32	tid;
};

/*
 * A new driver configuration took effect here: AUX spans before this
 * record were traced with the previous one, spans after it with this one.
 * The text that follows is the canonical configuration, NUL-terminated.
 * changed: bit i set when the i-th key of LIST_DRV_CONFIG changed (keys
 * past 31 are folded into bit 31).
 */
struct tracebuf_rec_config {
	struct tracebuf_record r;
	__u64	generation;
	__u32	changed;
	__u32	len;			/* bytes of text that follow, NUL included */
};

/*
 * CoreSight: how the ETM of one CPU is programmed from here on, with the
 * ID registers a decoder needs (OpenCSD's device_N.ini). Written when a
 * CPU starts tracing for the first time in a session and whenever its
 * programming changed (SET_DRV_CONFIG); AUX spans after it were traced so.
 */
struct tracebuf_rec_etm {
	struct tracebuf_record r;
	__u32	etm_cpu;		/* the CPU the ETM traces */
	__u32	trace_id;		/* its ATB trace ID in the formatted stream */
	__u32	trcconfigr;
	__u32	trctraceidr;
	__u32	trcidr[14];		/* TRCIDR0..TRCIDR13 */
	__u32	trcauthstatus;
	__u32	reserved;
};

/*
 * TARGET_TASK: the hardware of CPU r.cpu started (IN) or stopped (OUT)
 * for one thread of a traced process. Written with the hardware stopped,
 * under the lock that serialises the session's AUX publication on that
 * CPU, with the AUX position where the thread's bytes begin or end: the
 * AUX bytes from an IN record's aux_offset up to the next SWITCH
 * record's aux_offset are that thread's and nobody else's. aux_offset is
 * a free-running AUX position: the published head at that moment, except
 * with one AUX ring for several CPUs (a shared CoreSight sink, not in
 * snapshot mode) while other CPUs of the sink trace on: then it may be
 * ahead of the head, where the sink's running buffer holds the CPU's
 * bytes up to then, published by a later AUX record (a reader attributes
 * by position, not by the order of the records). A CPU's SWITCH
 * positions never go back, and every one is published by the time the
 * session is disabled. IN is written before the hardware starts; if it
 * does not fit in the data ring, the hardware stays off for that run of
 * the thread (the record is counted lost, as any other). With a shared
 * sink, the CPUs' bytes interleave in the ring and are told apart by
 * trace ID: the thread's bytes are those of r.cpu's trace ID between its
 * IN and OUT. pid and tid are in the pid namespace of the process that
 * called SETUP.
 */
struct tracebuf_rec_switch {
	struct tracebuf_record r;
	__u64	aux_offset;		/* IN: its bytes start here; OUT: ended here */
	__u32	pid;			/* process (thread group) ID */
	__u32	tid;			/* thread ID */
	__u32	flags;			/* TRACEBUF_SWITCH_F_* */
	__u32	reserved;
};

#define TRACEBUF_SWITCH_F_OUT		(1U << 0)	/* stopped; else started */
#define TRACEBUF_SWITCH_F_PREEMPT	(1U << 1)	/* OUT: still runnable (preempted) */
#define TRACEBUF_SWITCH_F_EXEC		(1U << 2)	/* at execve(): a new program image */
#define TRACEBUF_SWITCH_F_BUSY		(1U << 3)	/* IN: unit held by another: untraced */
#define TRACEBUF_SWITCH_F_EXIT		(1U << 4)	/* OUT: the thread is gone */

/*
 * TARGET_TASK: a process joined or left the session's set of traced
 * processes after SETUP (the process SETUP named is not reported).
 * Written by whichever CPU saw it happen.
 */
struct tracebuf_rec_task {
	struct tracebuf_record r;
	__u32	pid;			/* the process */
	__u32	ppid;			/* TRACEBUF_TASK_FORK*: the parent that forked it */
	__u32	reason;			/* enum tracebuf_task_reason */
	__u32	reserved;
};

enum tracebuf_task_reason {
	TRACEBUF_TASK_FORK		= 1,	/* joined: forked by a traced process (inherit) */
	TRACEBUF_TASK_EXIT		= 2,	/* left: its last thread exited */
	/*
	 * Left: it executed a program that is not dumpable (set-user-ID,
	 * set-group-ID, file capabilities), as perf detaches its events
	 * (fs/exec.c: begin_new_exec()). Nothing after the exec is traced.
	 */
	TRACEBUF_TASK_EXEC_PRIV		= 3,
	TRACEBUF_TASK_FORK_NOMEM	= 4,	/* forked, not followed: no memory */
};

/* A marker written by userspace through TRACEBUF_IOC_USER_MARKER. */
struct tracebuf_rec_user {
	struct tracebuf_record r;
	__u64	cookie;
	__u32	len;			/* bytes of data that follow */
	__u32	reserved;
};

/* Written by tests-only producers. */
struct tracebuf_rec_test {
	struct tracebuf_record r;
	__u64	seq;			/* per (producer, cpu, context) */
	__u32	producer;
	__u16	context;		/* enum tracebuf_test_context */
	__u16	reserved;
	/* followed by payload up to hdr.size */
};

/* The compact records a data-only session writes (see struct tracebuf_crec). */
struct tracebuf_crec_lost {
	struct tracebuf_crec r;
	__u64	count;
	__u32	reason;			/* enum tracebuf_lost_reason */
	__u32	flags;			/* TRACEBUF_LOST_F_* */
};

struct tracebuf_crec_user {
	struct tracebuf_crec r;
	__u64	cookie;
	__u32	len;			/* bytes of data that follow */
	__u32	reserved;
};

struct tracebuf_crec_test {
	struct tracebuf_crec r;
	__u64	seq;
	__u32	producer;
	__u16	context;		/* enum tracebuf_test_context */
	__u16	reserved;
};

enum tracebuf_test_context {
	TRACEBUF_CTX_TASK	= 0,
	TRACEBUF_CTX_SOFTIRQ	= 1,
	TRACEBUF_CTX_HARDIRQ	= 2,
	TRACEBUF_CTX_NMI	= 3,
	TRACEBUF_CTX_MAX	= 4,
};

/*
 * TRACEBUF_IOC_USER_MARKER - write a USER record into the data ring.
 *
 * Errors: -EFAULT; -EINVAL (size < VER0, flags or reserved not zero,
 * len > TRACEBUF_USER_MARKER_MAX, or a record too large for this ring);
 * -E2BIG; -ENXIO (no data ring yet); -ENOSPC (the ring is full: the
 * marker is counted as lost). The data is copied straight into the
 * record; on -EFAULT a DISCARD record may take its space.
 */
struct tracebuf_user_marker {
	__u32	size;
	__u32	flags;
	__u64	cookie;
	__u64	data_ptr;
	__u32	len;
	__u32	reserved0;
	__u64	reserved[2];
};

#define TRACEBUF_USER_MARKER_SIZE_VER0	48
#define TRACEBUF_USER_MARKER_MAX	4096

#define TRACEBUF_IOC_USER_MARKER \
	_IOC(_IOC_WRITE, TRACEBUF_IOC_MAGIC, 0x02, TRACEBUF_USER_MARKER_SIZE_VER0)

/*
 * read(2): for consumers that do not mmap. Copies whole records from the
 * data ring and consumes them. Needs a ring (SETUP.data_size), else
 * -ENXIO; a buffer too small for the next record gets -EINVAL and consumes
 * nothing; O_NONBLOCK and nothing to read gets -EAGAIN; otherwise read
 * blocks until the wakeup condition (watermark or every-N records) holds.
 * After a hang-up (EPOLLHUP) read returns what is left, then 0. A session
 * uses either mmap or read(), not both: the other gets -EBUSY.
 *
 * poll(2): EPOLLIN|EPOLLRDNORM when the record at the tail is committed
 * and (unread data >= data_watermark, or the record that completed a group
 * of wakeup_events records is unread), or unread AUX >= aux_watermark
 * (level-triggered: it holds until the consumer moves its tail). With a
 * read-only mapping the tail never moves, so once the watermark is reached
 * poll stays ready. EPOLLHUP when the session can produce nothing more;
 * EPOLLERR when it stopped on an error. Data wakeups are sent on
 * transitions only: to a poll/select/level-epoll/read sleeper once per
 * sleep, to SIGIO and EPOLLET consumers at most once per data_watermark
 * bytes or wakeup_events records (docs/abi.md section 8; ctl->wakeups
 * counts them).
 *
 * SIGIO: O_ASYNC with F_SETOWN or F_SETOWN_EX. With a signal chosen by
 * F_SETSIG, the siginfo has si_code POLL_IN and si_band POLLIN|POLLRDNORM
 * (at hang-up: POLL_HUP and the kernel's band for it, POLLHUP|POLLERR),
 * and si_fd; without F_SETSIG a plain SIGIO is sent.
 */

#endif /* _UAPI_TRACEBUF_H */
