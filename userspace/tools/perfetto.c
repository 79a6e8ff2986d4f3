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

#include "obuf.h"
#include "perfetto.h"

static void sep(struct pf *p)
{
	ob_str(p->o, p->first ? "\n" : ",\n");
	p->first = false;
	p->events++;
}

/* Microseconds with three decimals: ns exactly. */
static void us(struct obuf *o, uint64_t ns)
{
	ob_dec(o, ns / 1000);
	ob_chr(o, '.');
	ob_dec_w(o, ns % 1000, 3, '0');
}

static void ids(struct obuf *o, int32_t pid, int32_t tid)
{
	ob_str(o, ", \"pid\": ");
	ob_sdec(o, pid);
	ob_str(o, ", \"tid\": ");
	ob_sdec(o, tid);
}

void pf_begin(struct pf *p, struct obuf *o)
{
	memset(p, 0, sizeof(*p));
	p->o = o;
	p->first = true;
	ob_str(o, "{\"traceEvents\": [");
}

void pf_name(struct pf *p, bool process, int32_t pid, int32_t tid, const char *name)
{
	sep(p);
	ob_str(p->o, process ? "{\"name\": \"process_name\", \"ph\": \"M\"" :
			       "{\"name\": \"thread_name\", \"ph\": \"M\"");
	ids(p->o, pid, tid);
	ob_str(p->o, ", \"args\": {\"name\": ");
	ob_json_str(p->o, name);
	ob_str(p->o, "}}");
}

void pf_slice(struct pf *p, int32_t pid, int32_t tid, const char *name, const char *binary,
	      uint64_t addr, uint64_t start_ns, uint64_t dur_ns)
{
	sep(p);
	ob_str(p->o, "{\"name\": ");
	ob_json_str(p->o, name);
	ob_str(p->o, ", \"cat\": \"call\", \"ph\": \"X\", \"ts\": ");
	us(p->o, start_ns);
	ob_str(p->o, ", \"dur\": ");
	us(p->o, dur_ns);
	ids(p->o, pid, tid);
	ob_str(p->o, ", \"args\": {");
	if (binary) {
		ob_str(p->o, "\"binary\": ");
		ob_json_str(p->o, binary);
		ob_str(p->o, ", ");
	}
	ob_str(p->o, "\"addr\": \"0x");
	ob_hex(p->o, addr);
	ob_str(p->o, "\"}}");
}

void pf_instant(struct pf *p, int32_t pid, int32_t tid, const char *name, uint64_t ns)
{
	sep(p);
	ob_str(p->o, "{\"name\": ");
	ob_json_str(p->o, name);
	ob_str(p->o, ", \"cat\": \"trace\", \"ph\": \"i\", \"s\": \"t\", \"ts\": ");
	us(p->o, ns);
	ids(p->o, pid, tid);
	ob_chr(p->o, '}');
}

void pf_end(struct pf *p, const char *capture, uint64_t insns, uint64_t errors)
{
	ob_str(p->o, "\n], \"displayTimeUnit\": \"ns\", \"otherData\": {\"capture\": ");
	ob_json_str(p->o, capture);
	ob_str(p->o, ", \"instructions\": ");
	ob_dec(p->o, insns);
	ob_str(p->o, ", \"errors\": ");
	ob_dec(p->o, errors);
	ob_str(p->o, ", \"events\": ");
	ob_dec(p->o, p->events);
	ob_str(p->o, "}}\n");
}

uint64_t pf_events(const struct pf *p)
{
	return p->events;
}
