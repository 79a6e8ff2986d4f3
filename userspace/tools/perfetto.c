// SPDX-License-Identifier: GPL-2.0
/*
 * perfetto.c - the Chrome trace-event JSON format ("JSON Array Format" in
 * Google's Trace Event Format document), which Perfetto's UI
 * (ui.perfetto.dev) and chrome://tracing load: per thread, one complete
 * event ("ph": "X", start and duration in microseconds) per function
 * call, written when the call returns, so nothing but the threads' call
 * stacks is kept in memory however large the trace (flow.c); process
 * and thread names as metadata events ("ph": "M").
 *
 *   {"traceEvents": [
 *   {"name": "process_name", "ph": "M", "pid": 10, "tid": 10, "args": {"name": "prog"}},
 *   {"name": "fib", "cat": "call", "ph": "X", "ts": 12.345, "dur": 0.250,
 *    "pid": 10, "tid": 11, "args": {"binary": "/tests/prog", "addr": "0x401136"}},
 *   ...
 *   ], "displayTimeUnit": "ns", "otherData": {...}}
 */
#include <inttypes.h>
#include <stdio.h>
#include <string.h>

#include "perfetto.h"
#include "tool.h"

static void sep(struct pf *p)
{
	fputs(p->first ? "\n" : ",\n", p->f);
	p->first = false;
	p->events++;
}

/* Microseconds with three decimals: ns exactly. */
static void us(FILE *f, uint64_t ns)
{
	fprintf(f, "%" PRIu64 ".%03" PRIu64, ns / 1000, ns % 1000);
}

void pf_begin(struct pf *p, FILE *f)
{
	memset(p, 0, sizeof(*p));
	p->f = f;
	p->first = true;
	fputs("{\"traceEvents\": [", f);
}

void pf_name(struct pf *p, bool process, int32_t pid, int32_t tid, const char *name)
{
	sep(p);
	fprintf(p->f, "{\"name\": \"%s\", \"ph\": \"M\", \"pid\": %" PRId32 ", \"tid\": %" PRId32
		", \"args\": {\"name\": ", process ? "process_name" : "thread_name", pid, tid);
	tb_json_str(p->f, name, strlen(name));
	fputs("}}", p->f);
}

void pf_slice(struct pf *p, int32_t pid, int32_t tid, const char *name, const char *binary,
	      uint64_t addr, uint64_t start_ns, uint64_t dur_ns)
{
	sep(p);
	fputs("{\"name\": ", p->f);
	tb_json_str(p->f, name, strlen(name));
	fputs(", \"cat\": \"call\", \"ph\": \"X\", \"ts\": ", p->f);
	us(p->f, start_ns);
	fputs(", \"dur\": ", p->f);
	us(p->f, dur_ns);
	fprintf(p->f, ", \"pid\": %" PRId32 ", \"tid\": %" PRId32 ", \"args\": {", pid, tid);
	if (binary) {
		fputs("\"binary\": ", p->f);
		tb_json_str(p->f, binary, strlen(binary));
		fputs(", ", p->f);
	}
	fprintf(p->f, "\"addr\": \"0x%" PRIx64 "\"}}", addr);
}

void pf_instant(struct pf *p, int32_t pid, int32_t tid, const char *name, uint64_t ns)
{
	sep(p);
	fputs("{\"name\": ", p->f);
	tb_json_str(p->f, name, strlen(name));
	fputs(", \"cat\": \"trace\", \"ph\": \"i\", \"s\": \"t\", \"ts\": ", p->f);
	us(p->f, ns);
	fprintf(p->f, ", \"pid\": %" PRId32 ", \"tid\": %" PRId32 "}", pid, tid);
}

int pf_end(struct pf *p, const char *capture, uint64_t insns, uint64_t errors)
{
	fputs("\n], \"displayTimeUnit\": \"ns\", \"otherData\": {\"capture\": ", p->f);
	tb_json_str(p->f, capture, strlen(capture));
	fprintf(p->f, ", \"instructions\": %" PRIu64 ", \"errors\": %" PRIu64 ", \"events\": %"
		PRIu64 "}}\n", insns, errors, p->events);
	return ferror(p->f) ? -1 : 0;
}

uint64_t pf_events(const struct pf *p)
{
	return p->events;
}
