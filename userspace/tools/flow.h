/* SPDX-License-Identifier: GPL-2.0 */
/*
 * flow.h - what the instruction decoders (ptdec.c: Intel PT with libipt,
 * csdec.c: CoreSight with OpenCSD) produce, and what is made of it:
 * every executed instruction (decode --insn), the calls and returns
 * (decode --calls) and per-thread call stacks over time for Perfetto
 * (export --perfetto, perfetto.c). Text or one JSON object per line.
 *
 * A decoder walks the chunks of sideband.h in order and, per chunk,
 * calls flow_begin(), then flow_insn() for every instruction in the order
 * executed (with flow_async() before one reached by an asynchronous
 * transfer: an interrupt, a signal, a return from one), flow_error() for
 * what it could not decode (it resumes at the next synchronisation point
 * and calls flow_lost() there), and flow_end(). Per thread, the flow keeps
 * a call stack across its chunks: a call pushes the function it enters
 * (the next instruction's), a return pops it, an asynchronous entry to a
 * place that is not where the thread would have resumed pushes a frame
 * too (a signal handler), and the return to where it was interrupted
 * (sigreturn) is not counted as a call.
 */
#ifndef TRACEBUF_FLOW_H
#define TRACEBUF_FLOW_H

#include <stdbool.h>
#include <stdint.h>
#include <stdio.h>

#include "image.h"
#include "sideband.h"

/* What an instruction does to the control flow. */
enum flow_class {
	FLOW_OTHER,		/* not a branch */
	FLOW_JUMP,		/* unconditional jump, direct or indirect */
	FLOW_COND,		/* conditional branch */
	FLOW_CALL,		/* near call, direct or indirect */
	FLOW_RET,		/* near return */
	FLOW_FAR_CALL,		/* system call, software interrupt: to the kernel */
	FLOW_FAR_RET,		/* return from the kernel */
	FLOW_FAR_JUMP,		/* other far transfer */
	FLOW_NR_CLASSES
};

extern const char *const flow_class_names[FLOW_NR_CLASSES];

struct flow_insn {
	uint64_t ip;
	unsigned int size;		/* bytes; 0: unknown */
	uint8_t raw[16];		/* the instruction's bytes (size of them) */
	enum flow_class cls;
	uint64_t time;			/* CLOCK_MONOTONIC ns */
	uint64_t ts;			/* the trace's own timestamp (TSC, CNTVCT) */
	bool have_ts;
};

enum flow_mode {
	FLOW_INSN,			/* every instruction */
	FLOW_CALLS,			/* calls and returns */
	FLOW_PERFETTO,			/* Chrome trace-event JSON */
	FLOW_COUNT,			/* nothing printed (the benchmark) */
};

struct flow_opts {
	enum flow_mode mode;
	bool json;
	FILE *out;
	const char *cmd;
	const char *dir;		/* the capture (named in the Perfetto file) */
	struct sb *sb;
	int machine;			/* EM_X86_64, EM_AARCH64: the disassembler */
	bool disasm;			/* --insn: disassemble (when built with Capstone) */
	int32_t pid, tid;		/* -1: every one */
	uint64_t t_from, t_to;		/* CLOCK_MONOTONIC ns; [0, UINT64_MAX]: all */
	uint64_t t_zero;		/* times are shown relative to this (the capture's start) */
	bool progress;			/* a progress line on stderr (a terminal) */
	uint64_t total_bytes;		/* for the progress line */
};

struct flow;

int flow_new(const struct flow_opts *o, struct flow **f);
/* The end: open frames closed (Perfetto), the trailer written; 0 or -errno. */
int flow_finish(struct flow *f);
void flow_free(struct flow *f);

/* Whether a chunk is wanted at all (thread and time filters). */
bool flow_wants(const struct flow *f, const struct sb_chunk *c);

/* A chunk starts; space: the process's code at that time. */
void flow_begin(struct flow *f, const struct sb_chunk *c, struct img_space *space);
/* One executed instruction of the chunk's thread. */
void flow_insn(struct flow *f, const struct flow_insn *in);
/* The next instruction was reached asynchronously from 'from' (an interrupt, a signal). */
void flow_async(struct flow *f, uint64_t from, uint64_t to, uint64_t time);
/* The decoder could not go on at chunk offset off (ip, if known, else 0). */
void flow_error(struct flow *f, uint64_t off, uint64_t ip, const char *msg);
/* Trace lost here (an overflow, a resynchronisation): the flow is not continuous. */
void flow_lost(struct flow *f, const char *why, uint64_t time);
/* The chunk's bytes up to off were decoded (progress). */
void flow_progress(struct flow *f, uint64_t bytes_done);
void flow_end(struct flow *f);

/* Totals. */
uint64_t flow_insns(const struct flow *f);
uint64_t flow_errors(const struct flow *f);
uint64_t flow_calls(const struct flow *f);

#endif /* TRACEBUF_FLOW_H */
