/* SPDX-License-Identifier: GPL-2.0 */
/*
 * The capture directory that 'tracebuf record' writes and 'tracebuf dump'
 * and 'tracebuf decode' read. Format version 1:
 *
 *   DIR/meta.json    what was recorded and how (see below); written at
 *                    the start with "complete": false and replaced (write
 *                    to meta.json.tmp, rename) at the end
 *   DIR/cpuN.data    the data-ring records of the session tracing CPU N,
 *                    verbatim and in ring order (struct tracebuf_record
 *                    headers included, DISCARD records left out)
 *   DIR/cpuN.aux     the AUX bytes of that session, every published span
 *                    in publication order, back to back: the k-th AUX
 *                    record in cpuN.data describes the bytes
 *                    [sum of the sizes of AUX records 0..k-1, + aux_size)
 *                    of this file. A span flagged TRUNCATED or COLLISION
 *                    ends where the hardware stopped: the next span starts
 *                    after a restart (a PSB for Intel PT). So does the
 *                    first span after a CONFIG record.
 *
 * meta.json is one JSON object:
 *   "format": 1, "tool_version", "module_version", "abi_version",
 *   "backend": "intel_pt", "emulated": bool, "page_size",
 *   "data_size", "aux_size", "snapshot": bool,
 *   "clock": "CLOCK_MONOTONIC" (record times are nanoseconds on it),
 *   "start_ns", "end_ns" (CLOCK_MONOTONIC), "start_realtime" (seconds),
 *   "command": [argv...] or null,
 *   "cpus": [N, ...],
 *   "per_cpu": { "N": { "config": "<canonical>", "generation": G,
 *                "caps": { "cpuid_14_0": [eax, ebx, ecx, edx],
 *                          "cpuid_14_1": [...], "cpuid_15": [...],
 *                          "family", "model", "stepping",
 *                          "max_nonturbo_ratio" },
 *                "aux_bytes", "aux_spans", "aux_truncations",
 *                "aux_collisions", "aux_padding", "records",
 *                "records_lost" } },
 *   "lost": bool (any record lost, any TRUNCATED/COLLISION span, or AUX
 *           bytes published without an AUX record: per-CPU aux_gap_bytes),
 *   "complete": bool
 *
 * Keys added by 'tracebuf record' (format 1 still; readers may rely on
 * them when present):
 *   "data_watermark", "aux_watermark": the SETUP values (bytes; 0 for the
 *       AUX watermark in snapshot mode, or without AUX)
 *   "config_requested": the -c string, or null
 *   "command_exit", "command_signal": how the command ended (exit status
 *       or signal number), null when there is none or it did not end
 *   "end_ns": 0 while "complete" is false
 *   per_cpu "caps" is null for a backend other than intel_pt, and has
 *       also "nr_addr_ranges", "mtc_periods", "cyc_thresholds",
 *       "psb_periods" (bitmaps) and "flags" (TRACEBUF_PT_CAP_*)
 *   per_cpu "aux_gap_bytes": AUX bytes the kernel published without an
 *       AUX record (the record did not fit the data ring): not in
 *       cpuN.aux, so lost
 *   per_cpu "data_bytes": the size of cpuN.data
 *   per_cpu "error": null, or why the CPU stopped early ("collision",
 *       "hardware error", "hung up", "corrupt data ring")
 *   per_cpu "aux_lost_bytes", "aux_lost_at_least": the counts of the LOST
 *       records with reason AUX_OVERRUN (trace bytes the AUX ring had no
 *       room for; not in "records_lost"), and whether one was a lower
 *       bound (TRACEBUF_LOST_F_AT_LEAST)
 *
 * CoreSight: cpuN.data also holds ETM records (how each ETM was
 * programmed from there on; several CPUs' when they share a sink), and a
 * TRUNCATED span follows the LOST AUX_OVERRUN record of the bytes dropped
 * before it. 'tracebuf export --opencsd' (export.c) splits the trace.
 *   "aux_size" is 0 for backend "none" (no AUX area; cpuN.aux is empty)
 *
 * 'tracebuf record -o DIR' creates DIR, or empties it if it holds only
 * these file names (a previous capture); anything else in it is refused.
 *
 * Readers must ignore keys they do not know; a new incompatible layout
 * gets a new "format" number.
 */
#ifndef TRACEBUF_CAPTURE_H
#define TRACEBUF_CAPTURE_H

#include <stddef.h>
#include <stdint.h>
#include <string.h>

#include <tracebuf.h>

#define TB_CAPTURE_FORMAT	1
#define TB_CAPTURE_META		"meta.json"

/* Iterate the records of a cpuN.data image held in memory. */
struct tb_rec_iter {
	const unsigned char *buf;
	size_t len;
	size_t off;
};

/*
 * The next record, or NULL at the end; *bad is set (and NULL returned)
 * when a record header is inconsistent (size < 24, not a multiple of 8, or
 * past the end).
 */
static inline const struct tracebuf_record *
tb_rec_next(struct tb_rec_iter *it, int *bad)
{
	const struct tracebuf_record *r;
	uint32_t size;

	*bad = 0;
	if (it->len - it->off < sizeof(*r))
		return NULL;
	r = (const struct tracebuf_record *)(const void *)(it->buf + it->off);
	memcpy(&size, &r->hdr.size, sizeof(size));
	if (size < sizeof(*r) || size % 8 || size > it->len - it->off) {
		*bad = 1;
		return NULL;
	}
	it->off += size;
	return r;
}

#endif /* TRACEBUF_CAPTURE_H */
