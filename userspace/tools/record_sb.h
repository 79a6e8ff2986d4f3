/* SPDX-License-Identifier: GPL-2.0 */
/*
 * The sideband of 'tracebuf record' (record_sb.c): what a decoder needs
 * besides the trace (docs/capture-format.md, "Sideband"). perf dummy
 * events per CPU when perf_event_open() allows them, else what the tool
 * reads from /proc itself; the vDSO's copy, the kernel's build-id and the
 * conversion of the trace's timestamps (TSC, CNTVCT) to CLOCK_MONOTONIC.
 */
#ifndef TRACEBUF_RECORD_SB_H
#define TRACEBUF_RECORD_SB_H

#include <stdint.h>
#include <stdio.h>
#include <sys/types.h>

#include <libtracebuf.h>

/* --sideband */
enum rsb_mode {
	RSB_AUTO,	/* perf if perf_event_open() allows it, else /proc (per-task) or none */
	RSB_PERF,	/* perf dummy events, or fail */
	RSB_PROC,	/* /proc only (per-task) */
	RSB_NONE,	/* no sideband files */
};

struct rsb_opts {
	const char *outdir;
	enum rsb_mode mode;
	pid_t pid;		/* the traced process (per-task), or 0: CPU-wide */
	int inherit;		/* per-task: its children too */
	const unsigned int *cpus;	/* the CPUs whose sideband perf gives */
	unsigned int nr_cpus;
};

struct rsb;

/*
 * Before the output directory exists: opens the perf events (or decides
 * on /proc, saying so on stderr in one line). 0, or -1 after a message
 * (RSB_PERF refused).
 */
int rsb_open(struct rsb **rp, const struct rsb_opts *o);
/* After the directory was prepared: creates the sideband files. 0 or -1. */
int rsb_create_files(struct rsb *r);
/* The perf events' descriptors join the poll (their watermark wakeups). */
int rsb_add_to_group(struct rsb *r, struct tracebuf_group *g);
/*
 * What the traced process is before the recording starts: its mappings,
 * comm and threads from /proc (the command's child before its exec, or
 * the process of -p), dated now.
 */
void rsb_initial(struct rsb *r);
/* The command's exec happened (or -p: tracing started): the vDSO, a snapshot. */
void rsb_started(struct rsb *r);
/* A data-ring record of a session (SWITCH, TASK): what /proc must be read for. */
void rsb_on_record(struct rsb *r, const struct tracebuf_record *rec);
/* Every tick: the perf rings drained, /proc read where it changed. */
void rsb_tick(struct rsb *r);
/* The end: everything drained and written, the clock measured again. 0 or -1. */
int rsb_finish(struct rsb *r);
/* meta.json: "target" keys, "sideband", "vdso", "kernel_build_id" (each ending ",\n"). */
void rsb_write_meta(const struct rsb *r, FILE *f);
/* Records the sideband lost (perf's LOST records). */
uint64_t rsb_lost(const struct rsb *r);
/* A line for the summary, if there is anything to say. */
void rsb_summary(const struct rsb *r, FILE *f);
void rsb_free(struct rsb *r);

#endif /* TRACEBUF_RECORD_SB_H */
