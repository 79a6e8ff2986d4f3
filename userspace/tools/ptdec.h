/* SPDX-License-Identifier: GPL-2.0 */
/*
 * ptdec.h - Intel PT instruction flow (ptdec.c, libipt) and CoreSight
 * instruction flow (csdec.c, OpenCSD), chunk by chunk, into flow.h.
 */
#ifndef TRACEBUF_PTDEC_H
#define TRACEBUF_PTDEC_H

#include <stdint.h>

struct tracebuf_capture;
struct sb;
struct flow;

struct ptdec_stats {
	uint64_t chunks;		/* decoded */
	uint64_t bytes;			/* of trace, in them */
	uint64_t cut;			/* packets cut short where the hardware stopped */
};

/* Give back the pages of aux [begin, end) once decoded (flowcmd.c). */
void drop_pages(const void *aux, uint64_t begin, uint64_t end);

/* Every chunk the flow wants; 0, or -errno (nothing could be decoded). */
int ptdec_flow(struct tracebuf_capture *cap, struct sb *sb, struct flow *fl,
	       struct ptdec_stats *st);
int csdec_flow(struct tracebuf_capture *cap, struct sb *sb, struct flow *fl,
	       struct ptdec_stats *st);

#endif /* TRACEBUF_PTDEC_H */
