/* SPDX-License-Identifier: GPL-2.0 */
/*
 * perfetto.h - a streaming writer of the Chrome trace-event JSON format
 * (perfetto.c) for export --perfetto.
 */
#ifndef TRACEBUF_PERFETTO_H
#define TRACEBUF_PERFETTO_H

#include <stdbool.h>
#include <stdint.h>
#include <stdio.h>

struct obuf;

struct pf {
	struct obuf *o;
	bool first;
	uint64_t events;
};

/* Writes go to o (obuf.h), which the caller flushes. */
void pf_begin(struct pf *p, struct obuf *o);
/* A process's or a thread's name (metadata event). */
void pf_name(struct pf *p, bool process, int32_t pid, int32_t tid, const char *name);
/* A function call: [start_ns, start_ns + dur_ns) on thread tid. */
void pf_slice(struct pf *p, int32_t pid, int32_t tid, const char *name, const char *binary,
	      uint64_t addr, uint64_t start_ns, uint64_t dur_ns);
/* A mark on thread tid (trace lost, an error). */
void pf_instant(struct pf *p, int32_t pid, int32_t tid, const char *name, uint64_t ns);
/* Close the array and the object. */
void pf_end(struct pf *p, const char *capture, uint64_t insns, uint64_t errors);
uint64_t pf_events(const struct pf *p);

#endif /* TRACEBUF_PERFETTO_H */
