/* SPDX-License-Identifier: GPL-2.0 */
/*
 * sideband.h - what the instruction decoders need besides the trace,
 * read from a capture (opened and checked by libtracebuf's reader):
 *
 *  - which thread each AUX byte belongs to: the SWITCH records of the
 *    per-task target (a thread's bytes are those between its IN and OUT
 *    records' aux_offset, on the record's CPU), cut into chunks that a
 *    decoder takes as one unit (each starts where the hardware started,
 *    with a PSB for Intel PT; a chunk also ends at a TRUNCATED or
 *    COLLISION span, a jump in aux_offset, a CONFIG record, and in
 *    snapshot mode at every span). A capture without SWITCH records
 *    (CPU-wide) has one chunk per segment, thread unknown;
 *  - what each process had mapped, at any time: the images of process P
 *    at time T (path, file offset, address, length, build-id), from the
 *    capture's perf sideband (mmap2, comm with exec, fork) and from the
 *    TASK records of the per-task target (forks), plus the files given
 *    with --elf (mapped into every process);
 *  - thread and process names (comm).
 *
 * The sideband files themselves (perf records of a dummy event, see
 * docs/capture-format.md "Sideband") are found through meta.json's
 * "sideband" object; a capture without one decodes with --elf images
 * only.
 */
#ifndef TRACEBUF_SIDEBAND_H
#define TRACEBUF_SIDEBAND_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "image.h"

struct tracebuf_capture;
struct sb;

struct sb_elf {			/* --elf FILE[:ADDR] */
	const char *path;
	uint64_t base;
	bool have_base;
};

struct sb_opts {
	const char *cmd;		/* for messages */
	const char *dir;		/* the capture directory */
	struct img_cache *img;
	const struct sb_elf *elfs;
	size_t nelfs;
	bool kernel;			/* the trace has kernel addresses: try /proc/kcore */
	bool quiet;
};

/* A piece of one stream's AUX bytes that a decoder takes as one unit. */
struct sb_chunk {
	unsigned int stream;		/* the capture's stream index */
	unsigned int cpu;		/* the traced CPU (CoreSight: the ETM's) */
	unsigned int stream_cpu;	/* N of the stream's cpuN.aux */
	int32_t pid, tid;		/* -1: unknown */
	uint64_t begin, end;		/* [begin, end) in cpuN.aux */
	uint64_t time;			/* CLOCK_MONOTONIC ns: the run's SWITCH IN, else its first span */
	uint64_t time_end;		/* the run's SWITCH OUT; UINT64_MAX: none */
	const char *config;		/* the driver configuration in force; NULL: unknown */
	bool run_start;			/* the first chunk of a thread's run (after SWITCH IN) */
	bool exec;			/* that run starts at an exec */
	bool lost_before;		/* trace of this thread (or CPU) was lost just before */
	bool may_cut;			/* the hardware stopped at its end */
	bool anywhere;			/* snapshot: it starts at an arbitrary byte */
};

int sb_open(struct tracebuf_capture *cap, const struct sb_opts *o, struct sb **sb);
void sb_close(struct sb *sb);

/* Chunks of every stream, by time (runs by their SWITCH IN), then CPU. */
size_t sb_nchunks(const struct sb *sb);
const struct sb_chunk *sb_chunk(const struct sb *sb, size_t i);

/* Whether the capture has SWITCH records, and a perf sideband. */
bool sb_per_task(const struct sb *sb);
bool sb_has_sideband(const struct sb *sb);

/*
 * The executable mappings of process pid at time t (CLOCK_MONOTONIC
 * ns), --elf files included; pid -1: the --elf files only. Owned by sb.
 */
struct img_space *sb_space(struct sb *sb, int32_t pid, uint64_t t);

/*
 * The space the user code of pid's run [t_in, t_out] executed in: what
 * happened up to t_out (a library the loader mapped during the run is
 * there), but not an exec of pid after t_in: the comm record of an exec
 * comes from the middle of execve(), and the code after it runs in a
 * run of its own (the SWITCH IN flagged EXEC), so the user code of a run
 * that began before it ran in the old image, even when the thread was
 * switched out only later, in the kernel (preempted inside execve()).
 */
struct img_space *sb_space_run(struct sb *sb, int32_t pid, uint64_t t_in, uint64_t t_out);

/* A thread's run on a CPU (between its SWITCH IN and OUT records). */
struct sb_run_info {
	int32_t pid, tid;		/* -1: no run there */
	uint64_t t_in, t_out;		/* CLOCK_MONOTONIC ns; t_out UINT64_MAX: no OUT */
	uint64_t off_in, off_out;	/* in cpuN.aux */
	bool exec;
	uint64_t until;			/* the offset where the thread of that CPU changes */
};

/*
 * CoreSight (one stream, several CPUs): the run of cpu at offset off of
 * the stream's cpuN.aux, from the SWITCH records; 0, or -1 when there is
 * none (pid, tid -1, until: where the next starts).
 */
int sb_thread_at(const struct sb *sb, unsigned int stream, unsigned int cpu, uint64_t off,
		 struct sb_run_info *ri);

/* The ETM records of a CoreSight stream, with the cpuN.aux offset from which they hold. */
struct tracebuf_rec_etm;
struct sb_etm {
	uint64_t off;
	const struct tracebuf_rec_etm *rec;	/* in the capture: valid while it is open */
};
size_t sb_etms(const struct sb *sb, unsigned int stream, const struct sb_etm **etms);

/* The name of a thread or process, NULL if not known. */
const char *sb_comm(const struct sb *sb, int32_t tid);

/* Problems found reading the sideband (counted; each said once). */
unsigned int sb_problems(const struct sb *sb);

/* Trace timestamps to CLOCK_MONOTONIC ns; false: not known (raw values shown). */
bool sb_tsc_to_ns(const struct sb *sb, uint64_t tsc, uint64_t *ns);

#endif /* TRACEBUF_SIDEBAND_H */
