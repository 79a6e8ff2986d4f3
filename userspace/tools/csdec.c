// SPDX-License-Identifier: GPL-2.0
/*
 * csdec.c - CoreSight ETMv4 instruction flow with OpenCSD's full decoder
 * through its C API (libopencsd_c_api), chunk by chunk (sideband.h:
 * segments of a stream), into flow.h.
 *
 * Per chunk a decode tree for TMC-formatted frames (16-byte aligned, no
 * frame syncs: OCSD_DFRMTR_FRAME_MEM_ALIGN) gets one ETMv4 decoder per
 * ETM record in force at the chunk's start (its trace ID, TRCCONFIGR,
 * TRCTRACEIDR and TRCIDRn). Code is read through a memory-access callback
 * per trace ID: the CPU of that trace ID, the thread that ran there at the
 * current position of the stream (the SWITCH records), that thread's
 * process's address space (image.h). The chunk's bytes are fed in pieces
 * that end where any CPU's thread changes, so the callback always reads
 * the code of the thread whose bytes are being decoded.
 *
 * Each instruction range OpenCSD reports (A64: 4 bytes per instruction;
 * T32 lengths from the first halfword) becomes one flow_insn() per
 * instruction; the last one's class comes from the range's last
 * instruction type (branch with link: a call; RET: a return; a
 * conditional branch; ERET) and, for an SVC, from the exception that
 * follows (a system call: far_call). The element's index (the byte where
 * its packet starts) says which thread it belongs to. Memory not
 * accessible (OpenCSD's ADDR_NACC) is reported with the reason and the
 * flow marked broken; OpenCSD resynchronises by itself.
 */
#include <errno.h>
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <opencsd/c_api/opencsd_c_api.h>
#include <libtracebuf.h>

#include "flow.h"
#include "ptdec.h"
#include "sideband.h"

#define CS_MAX_IDS	128		/* trace IDs are 7 bits */

struct cs_cpu {
	bool used;
	unsigned int cpu;
	struct sb_run_info run;		/* the run at the position being decoded */
	uint64_t run_from;		/* run holds for [run_from, run.until) */
	bool have_run;
	bool wanted;			/* flow_wants() that thread */
	struct sb_chunk chunk;		/* what flow_begin() was given for it */
	bool begun;			/* flow_begin() done for this run */
	struct img_space *space;
	bool pending;			/* the last instruction of a range, held back */
	struct flow_insn last;
	uint64_t time;			/* the latest timestamp, as CLOCK_MONOTONIC ns */
};

struct csdec {
	struct tracebuf_capture *cap;
	struct sb *sb;
	struct flow *fl;
	const struct sb_chunk *chunk;
	struct cs_cpu ids[CS_MAX_IDS];	/* by trace ID */
	int active;			/* trace ID flow_begin() was last called for; -1 */
	uint64_t pos;			/* the stream offset being fed */
	uint64_t errors;
};

static bool cs_activate(struct csdec *d, uint8_t id);
static void cs_flush_pending(struct csdec *d, struct cs_cpu *c, enum flow_class cls);

static void cs_update_run(struct csdec *d, struct cs_cpu *c, uint64_t off)
{
	struct sb_run_info run;

	if (c->have_run && off >= c->run_from && off < c->run.until)
		return;
	sb_thread_at(d->sb, d->chunk->stream, c->cpu, off, &run);
	if (c->have_run && run.tid == c->run.tid && run.t_in == c->run.t_in) {
		c->run = run;	/* the same run (a lookup from further on) */
		c->run_from = off;
		return;
	}
	/*
	 * Another run: the instruction held back is the last one of the run
	 * it was decoded in (a run whose trace stops after a branch, e.g. one
	 * that leaves an address filter's range before it is switched out,
	 * has no element after it).
	 */
	if (c->pending && cs_activate(d, (uint8_t)(c - d->ids)))
		cs_flush_pending(d, c, FLOW_NR_CLASSES);
	c->pending = false;
	c->run = run;
	c->run_from = off;
	c->have_run = true;
	c->begun = false;
	c->space = c->run.tid >= 0 ? sb_space_run(d->sb, c->run.pid, c->run.t_in, c->run.t_out) :
				     sb_space(d->sb, c->run.pid, d->chunk->time);
}

/* Make the flow's current thread that of trace ID id; false: not wanted. */
static bool cs_activate(struct csdec *d, uint8_t id)
{
	struct cs_cpu *c = &d->ids[id];

	if (d->active == id && c->begun)
		return c->wanted;
	if (d->active >= 0)
		flow_end(d->fl);
	d->active = -1;
	memset(&c->chunk, 0, sizeof(c->chunk));
	c->chunk.stream = d->chunk->stream;
	c->chunk.stream_cpu = d->chunk->stream_cpu;
	c->chunk.cpu = c->cpu;
	c->chunk.pid = c->run.pid;
	c->chunk.tid = c->run.tid;
	c->chunk.time = c->run.tid >= 0 ? c->run.t_in : d->chunk->time;
	c->chunk.time_end = c->run.tid >= 0 ? c->run.t_out : UINT64_MAX;
	c->chunk.config = d->chunk->config;
	if (!c->begun) {
		/* The first time for this run: its start, an exec, lost trace before it. */
		c->chunk.run_start = true;
		c->chunk.exec = c->run.exec;
		c->chunk.lost_before = d->chunk->lost_before;
		if (c->time < c->chunk.time)
			c->time = c->chunk.time;
		c->wanted = flow_wants(d->fl, &c->chunk);
	}
	c->begun = true;
	if (!c->wanted)
		return false;
	flow_begin(d->fl, &c->chunk, c->space);
	d->active = id;
	return true;
}

static void cs_flush_pending(struct csdec *d, struct cs_cpu *c, enum flow_class cls)
{
	if (!c->pending)
		return;
	c->pending = false;
	if (!c->wanted)
		return;
	if (cls != FLOW_NR_CLASSES)
		c->last.cls = cls;
	flow_insn(d->fl, &c->last);
}

static uint32_t cs_mem(const void *ctx, const ocsd_vaddr_t address,
		       const ocsd_mem_space_acc_t mem_space, const uint8_t id,
		       const uint32_t req, uint8_t *buf)
{
	struct csdec *d = (struct csdec *)ctx;
	struct cs_cpu *c = id < CS_MAX_IDS ? &d->ids[id] : NULL;

	(void)mem_space;
	if (!c || !c->used)
		return 0;
	cs_update_run(d, c, d->pos);
	if (!c->space)
		return 0;
	return (uint32_t)img_space_read(c->space, address, buf, req);
}

static enum flow_class cs_class(const ocsd_generic_trace_elem *e)
{
	switch (e->last_i_type) {
	case OCSD_INSTR_BR:
		if (e->last_i_subtype == OCSD_S_INSTR_BR_LINK)
			return FLOW_CALL;
		return e->last_instr_cond ? FLOW_COND : FLOW_JUMP;
	case OCSD_INSTR_BR_INDIRECT:
		if (e->last_i_subtype == OCSD_S_INSTR_BR_LINK)
			return FLOW_CALL;
		if (e->last_i_subtype == OCSD_S_INSTR_V8_RET ||
		    e->last_i_subtype == OCSD_S_INSTR_V7_IMPLIED_RET)
			return FLOW_RET;
		if (e->last_i_subtype == OCSD_S_INSTR_V8_ERET)
			return FLOW_FAR_RET;
		return FLOW_JUMP;
	default:
		return FLOW_OTHER;
	}
}

/* The size of the instruction at ip for the ISA. */
static unsigned int cs_isize(struct cs_cpu *c, ocsd_isa isa, uint64_t ip, uint8_t *raw)
{
	uint16_t hw;

	if (isa != ocsd_isa_thumb2) {
		img_space_read(c->space, ip, raw, 4);
		return 4;
	}
	if (img_space_read(c->space, ip, raw, 2) < 2)
		return 2;
	memcpy(&hw, raw, 2);
	if ((hw & 0xf800) >= 0xe800) {
		img_space_read(c->space, ip + 2, raw + 2, 2);
		return 4;
	}
	return 2;
}

static ocsd_datapath_resp_t cs_elem(const void *ctx, const ocsd_trc_index_t index,
				    const uint8_t id, const ocsd_generic_trace_elem *e)
{
	struct csdec *d = (struct csdec *)ctx;
	struct cs_cpu *c = id < CS_MAX_IDS ? &d->ids[id] : NULL;
	uint64_t ns;
	char msg[256];

	if (!c || !c->used)
		return OCSD_RESP_CONT;
	/* The packet that made it started at index: its thread. */
	cs_update_run(d, c, d->chunk->begin + index);
	switch (e->elem_type) {
	case OCSD_GEN_TRC_ELEM_INSTR_RANGE: {
		uint64_t ip = e->st_addr;
		uint32_t i, n = e->num_instr_range;

		if (!cs_activate(d, id)) {
			c->pending = false;
			break;
		}
		cs_flush_pending(d, c, FLOW_NR_CLASSES);
		for (i = 0; i < n && ip < e->en_addr; i++) {
			struct flow_insn fi;

			memset(&fi, 0, sizeof(fi));
			fi.ip = ip;
			fi.size = cs_isize(c, e->isa, ip, fi.raw);
			fi.cls = FLOW_OTHER;
			fi.time = c->time;
			ip += fi.size;
			if (i + 1 == n || ip >= e->en_addr) {
				fi.cls = cs_class(e);
				c->last = fi;
				c->pending = true;	/* an SVC's exception may follow */
				break;
			}
			flow_insn(d->fl, &fi);
		}
		break;
	}
	case OCSD_GEN_TRC_ELEM_EXCEPTION:
		if (!cs_activate(d, id))
			break;
		/* ETMv4 exception type 2: a call (SVC, HVC, SMC) just executed. */
		cs_flush_pending(d, c, e->exception_number == 2 ? FLOW_FAR_CALL : FLOW_NR_CLASSES);
		break;
	case OCSD_GEN_TRC_ELEM_TIMESTAMP:
		if (sb_tsc_to_ns(d->sb, e->timestamp, &ns))
			c->time = ns;
		break;
	case OCSD_GEN_TRC_ELEM_ADDR_NACC: {
		char why[256];

		if (!cs_activate(d, id))
			break;
		cs_flush_pending(d, c, FLOW_NR_CLASSES);
		snprintf(msg, sizeof(msg), "trace ID 0x%x: %s", id,
			 c->space ? img_space_why(c->space, e->st_addr, why, sizeof(why)) :
				    "no image");
		flow_error(d->fl, d->chunk->begin + index, e->st_addr, msg);
		flow_lost(d->fl, "decoding resumes where OpenCSD finds the next address", c->time);
		d->errors++;
		break;
	}
	case OCSD_GEN_TRC_ELEM_I_RANGE_NOPATH:
		if (!cs_activate(d, id))
			break;
		cs_flush_pending(d, c, FLOW_NR_CLASSES);
		flow_lost(d->fl, "instructions executed on an unknown path", c->time);
		break;
	case OCSD_GEN_TRC_ELEM_EO_TRACE:
	case OCSD_GEN_TRC_ELEM_NO_SYNC:
		if (c->pending && cs_activate(d, id))
			cs_flush_pending(d, c, FLOW_NR_CLASSES);
		break;
	default:
		break;
	}
	return OCSD_RESP_CONT;
}

/* Feed [from, to) of the chunk; false on a fatal error (reported). */
static bool cs_feed(struct csdec *d, dcd_tree_handle_t tree, const uint8_t *aux, uint64_t from,
		    uint64_t to)
{
	while (from < to) {
		uint32_t used = 0, n = to - from > (1u << 20) ? (1u << 20) : (uint32_t)(to - from);
		ocsd_datapath_resp_t r;

		d->pos = from;
		r = ocsd_dt_process_data(tree, OCSD_OP_DATA, from - d->chunk->begin, n, aux + from,
					 &used);
		if (OCSD_DATA_RESP_IS_WAIT(r))
			r = ocsd_dt_process_data(tree, OCSD_OP_FLUSH, 0, 0, NULL, NULL);
		if (OCSD_DATA_RESP_IS_FATAL(r)) {
			char msg[128];

			snprintf(msg, sizeof(msg), "OpenCSD stopped decoding (response %d)", (int)r);
			flow_error(d->fl, from, 0, msg);
			d->errors++;
			return false;
		}
		from += used ? used : n;
	}
	return true;
}

static void decode_chunk(struct csdec *d, const struct sb_chunk *ch, const uint8_t *aux)
{
	const struct sb_etm *etms;
	size_t n = sb_etms(d->sb, ch->stream, &etms), i;
	dcd_tree_handle_t tree;
	uint64_t pos, end = ch->end - (ch->end - ch->begin) % 16;
	bool any = false;

	d->chunk = ch;
	d->active = -1;
	memset(d->ids, 0, sizeof(d->ids));
	tree = ocsd_create_dcd_tree(OCSD_TRC_SRC_FRAME_FORMATTED, OCSD_DFRMTR_FRAME_MEM_ALIGN);
	if (!tree) {
		flow_begin(d->fl, ch, NULL);
		flow_error(d->fl, ch->begin, 0, "cannot create an OpenCSD decode tree");
		flow_end(d->fl);
		return;
	}
	/* The ETMs in force at the chunk's start: the last record of each CPU. */
	for (i = 0; i < n && etms[i].off <= ch->begin; i++) {
		const struct tracebuf_rec_etm *r = etms[i].rec;
		uint8_t id = (uint8_t)(r->trace_id & 0x7f);

		if (!id || id >= CS_MAX_IDS)
			continue;
		d->ids[id].used = true;
		d->ids[id].cpu = r->etm_cpu;
	}
	for (i = 0; i < CS_MAX_IDS; i++) {
		const struct tracebuf_rec_etm *r = NULL;
		ocsd_etmv4_cfg cfg;
		unsigned char csid;
		size_t k;

		if (!d->ids[i].used)
			continue;
		for (k = 0; k < n && etms[k].off <= ch->begin; k++)
			if ((etms[k].rec->trace_id & 0x7f) == i)
				r = etms[k].rec;
		memset(&cfg, 0, sizeof(cfg));
		cfg.reg_idr0 = r->trcidr[0];
		cfg.reg_idr1 = r->trcidr[1];
		cfg.reg_idr2 = r->trcidr[2];
		cfg.reg_idr8 = r->trcidr[8];
		cfg.reg_idr9 = r->trcidr[9];
		cfg.reg_idr10 = r->trcidr[10];
		cfg.reg_idr11 = r->trcidr[11];
		cfg.reg_idr12 = r->trcidr[12];
		cfg.reg_idr13 = r->trcidr[13];
		cfg.reg_configr = r->trcconfigr;
		cfg.reg_traceidr = r->trctraceidr;
		cfg.arch_ver = ARCH_V8;
		cfg.core_prof = profile_CortexA;
		if (ocsd_dt_create_decoder(tree, OCSD_BUILTIN_DCD_ETMV4I,
					   OCSD_CREATE_FLG_FULL_DECODER, &cfg, &csid) == OCSD_OK)
			any = true;
	}
	if (!any) {
		ocsd_destroy_dcd_tree(tree);
		flow_begin(d->fl, ch, NULL);
		flow_error(d->fl, ch->begin, 0, "no ETM record before this trace: its trace IDs "
			   "and registers are not known");
		flow_end(d->fl);
		return;
	}
	/*
	 * OpenCSD 1.3.3 does not free the small wrapper this allocates when
	 * the tree is destroyed (32 bytes per chunk, LeakSanitizer shows it).
	 */
	ocsd_dt_set_gen_elem_outfn(tree, cs_elem, d);
	ocsd_dt_add_callback_trcid_mem_acc(tree, 0, UINT64_MAX, OCSD_MEM_SPACE_ANY, cs_mem, d);
	/* In pieces ending where a CPU's thread changes. */
	for (pos = ch->begin; pos < end;) {
		uint64_t next = end;

		for (i = 0; i < CS_MAX_IDS; i++) {
			struct cs_cpu *c = &d->ids[i];

			if (!c->used)
				continue;
			cs_update_run(d, c, pos);
			if (c->run.until > pos && c->run.until < next)
				next = c->run.until;
		}
		next = next - (next - ch->begin) % 16;	/* whole frames */
		if (next <= pos)
			next = pos + 16;
		if (!cs_feed(d, tree, aux, pos, next))
			break;
		flow_progress(d->fl, next - ch->begin);
		pos = next;
	}
	ocsd_dt_process_data(tree, OCSD_OP_EOT, 0, 0, NULL, NULL);
	for (i = 0; i < CS_MAX_IDS; i++)
		if (d->ids[i].used && d->ids[i].pending && cs_activate(d, (uint8_t)i))
			cs_flush_pending(d, &d->ids[i], FLOW_NR_CLASSES);
	if (d->active >= 0)
		flow_end(d->fl);
	ocsd_destroy_dcd_tree(tree);
}

int csdec_flow(struct tracebuf_capture *cap, struct sb *sb, struct flow *fl,
	       struct ptdec_stats *st)
{
	struct csdec *d = calloc(1, sizeof(*d));
	size_t i;

	if (!d)
		return -ENOMEM;
	d->cap = cap;
	d->sb = sb;
	d->fl = fl;
	for (i = 0; i < sb_nchunks(sb); i++) {
		const struct sb_chunk *c = sb_chunk(sb, i);
		const void *aux;
		uint64_t len;

		if (tracebuf_capture_aux(cap, c->stream, &aux, &len) || c->end > len)
			continue;
		decode_chunk(d, c, aux);
		drop_pages(aux, c->begin, c->end);
		st->chunks++;
		st->bytes += c->end - c->begin;
	}
	free(d);
	return 0;
}
