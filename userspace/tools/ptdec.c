// SPDX-License-Identifier: GPL-2.0
/*
 * ptdec.c - Intel PT instruction flow with libipt's instruction decoder
 * (pt_insn_*), chunk by chunk (sideband.h), into flow.h.
 *
 * Each chunk gets a decoder of its own over its bytes of cpuN.aux,
 * configured from meta.json (the CPU's family/model/stepping for the
 * errata, CPUID 0x15, the nominal ratio) and the driver configuration in
 * force (mtc_period), and synchronises on its first PSB. The code comes
 * from a pt_image per address space (image.h: the ELF files the sideband
 * recorded, checked against their build-ids, and the vDSO's copy), each
 * mapping a section of libipt's section cache; a read callback reads
 * what no section holds (the kernel through /proc/kcore). Where the decoder cannot
 * go on (no code mapped at an address, a file refused, a packet it
 * rejects) the error is reported with its offset and the reason, counted,
 * and decoding resumes at the next PSB (flow_lost() says the flow is
 * broken there). A packet cut short at the end of a chunk whose hardware
 * stopped there (TRUNCATED, COLLISION) is expected.
 *
 * Timestamps: libipt's time (TSC, refined by MTC/CYC when present) is
 * converted to CLOCK_MONOTONIC with the capture's conversion
 * (sb_tsc_to_ns()) when it has one; else from the chunk's start (its
 * SWITCH IN record's time, taken just before the hardware started) and
 * the TSC frequency from CPUID 0x15 (or the nominal ratio x 100 MHz);
 * else every instruction of a chunk gets the chunk's time.
 */
#include <errno.h>
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <intel-pt.h>
#include <libtracebuf.h>

#include "flow.h"
#include "ptdec.h"
#include "sideband.h"

struct ptcaps {
	bool have_fms;
	uint64_t family, model, stepping;
	uint64_t cpuid_15[3];
	uint64_t nom_freq;
	uint64_t tsc_hz;		/* 0: unknown */
};

/* The libipt image of an address space: its files as cached sections. */
struct ptimg {
	const struct img_space *space;
	struct pt_image *image;
};

struct ptdec {
	struct tracebuf_capture *cap;
	struct sb *sb;
	struct flow *fl;
	struct img_space *space;	/* the current chunk's process */
	struct pt_image_section_cache *iscache;
	struct ptimg *imgs;
	size_t nimgs, imgs_cap, last_img;
	uint64_t cut;
	uint64_t ninsn;			/* decoded: progress every 64 Ki */
	/* Time of the current chunk. */
	uint64_t chunk_time;
	bool have_anchor;
	uint64_t anchor_tsc;
	uint64_t tsc_hz;
	bool have_last;			/* the last conversion, reused while the TSC stays */
	uint64_t last_tsc, last_ns;
};

static int read_mem(uint8_t *buffer, size_t size, const struct pt_asid *asid, uint64_t ip,
		    void *context)
{
	struct ptdec *d = context;
	size_t n;

	(void)asid;
	if (!d->space)
		return -pte_nomap;
	n = img_space_read(d->space, ip, buffer, size);
	return n ? (int)n : -pte_nomap;
}

/*
 * The pt_image of space: each mapping of a file (checked against its
 * build-id by image.c) a section of libipt's section cache, which maps
 * the file and reads it without a call per instruction; what no section
 * holds (the kernel, code of refused files) goes to read_mem().
 */
static struct pt_image *image_of(struct ptdec *d, struct img_space *space)
{
	struct pt_image *image;
	size_t i;

	if (d->last_img < d->nimgs && d->imgs[d->last_img].space == space)
		return d->imgs[d->last_img].image;
	for (i = 0; i < d->nimgs; i++)
		if (d->imgs[i].space == space) {
			d->last_img = i;
			return d->imgs[i].image;
		}
	image = pt_image_alloc(NULL);
	if (!image)
		return NULL;
	for (i = 0; i < space->n; i++) {
		const struct img_map *m = &space->maps[i];
		uint64_t len = m->end - m->start;
		int isid;

		if (!m->f || m->pgoff >= img_size(m->f))
			continue;
		if (len > img_size(m->f) - m->pgoff)
			len = img_size(m->f) - m->pgoff;
		isid = pt_iscache_add_file(d->iscache, img_found(m->f), m->pgoff, len, m->start);
		if (isid < 0 || pt_image_add_cached(image, d->iscache, isid, NULL) < 0)
			continue;	/* read_mem() reads it instead */
	}
	pt_image_set_callback(image, read_mem, d);
	if (d->nimgs == d->imgs_cap) {
		struct ptimg *n;

		d->imgs_cap = d->imgs_cap ? 2 * d->imgs_cap : 16;
		n = realloc(d->imgs, d->imgs_cap * sizeof(*n));
		if (!n) {
			pt_image_free(image);
			return NULL;
		}
		d->imgs = n;
	}
	d->imgs[d->nimgs].space = space;
	d->imgs[d->nimgs].image = image;
	d->last_img = d->nimgs++;
	return image;
}

static void read_caps(struct tracebuf_capture *cap, unsigned int cpu, struct ptcaps *c)
{
	char path[96];
	unsigned int i;

	memset(c, 0, sizeof(*c));
	snprintf(path, sizeof(path), "per_cpu.%u.caps.family", cpu);
	c->have_fms = !tracebuf_capture_meta_u64(cap, path, &c->family);
	snprintf(path, sizeof(path), "per_cpu.%u.caps.model", cpu);
	c->have_fms = c->have_fms && !tracebuf_capture_meta_u64(cap, path, &c->model);
	snprintf(path, sizeof(path), "per_cpu.%u.caps.stepping", cpu);
	c->have_fms = c->have_fms && !tracebuf_capture_meta_u64(cap, path, &c->stepping);
	for (i = 0; i < 3; i++) {
		snprintf(path, sizeof(path), "per_cpu.%u.caps.cpuid_15.%u", cpu, i);
		tracebuf_capture_meta_u64(cap, path, &c->cpuid_15[i]);
	}
	snprintf(path, sizeof(path), "per_cpu.%u.caps.max_nonturbo_ratio", cpu);
	tracebuf_capture_meta_u64(cap, path, &c->nom_freq);
	/* SDM vol. 2A, CPUID leaf 15H: TSC = crystal (ECX) * EBX / EAX. */
	if (c->cpuid_15[0] && c->cpuid_15[1] && c->cpuid_15[2])
		c->tsc_hz = c->cpuid_15[2] * c->cpuid_15[1] / c->cpuid_15[0];
	else if (c->nom_freq)
		c->tsc_hz = c->nom_freq * 100000000ULL;
}

static int mtc_freq(const char *config)
{
	const char *k = config ? strstr(config, "mtc_period=") : NULL;

	return k ? atoi(k + strlen("mtc_period=")) : -1;
}

static enum flow_class class_of(enum pt_insn_class c)
{
	switch (c) {
	case ptic_call: return FLOW_CALL;
	case ptic_return: return FLOW_RET;
	case ptic_jump: return FLOW_JUMP;
	case ptic_cond_jump: return FLOW_COND;
	case ptic_far_call: return FLOW_FAR_CALL;
	case ptic_far_return: return FLOW_FAR_RET;
	case ptic_far_jump: return FLOW_FAR_JUMP;
	default: return FLOW_OTHER;
	}
}

/* CLOCK_MONOTONIC ns of a TSC value seen in the current chunk. */
static uint64_t time_of(struct ptdec *d, uint64_t tsc)
{
	uint64_t ns;

	if (sb_tsc_to_ns(d->sb, tsc, &ns))
		return ns;
	if (!d->tsc_hz)
		return d->chunk_time;
	if (!d->have_anchor) {
		d->have_anchor = true;
		d->anchor_tsc = tsc;
	}
	if (tsc <= d->anchor_tsc)
		return d->chunk_time;
	return d->chunk_time + (uint64_t)((unsigned __int128)(tsc - d->anchor_tsc) * 1000000000u /
					  d->tsc_hz);
}

static void insn_time(struct ptdec *d, struct pt_insn_decoder *dec, struct flow_insn *fi)
{
	uint32_t lost_mtc, lost_cyc;
	uint64_t tsc;

	if (pt_insn_time(dec, &tsc, &lost_mtc, &lost_cyc) >= 0) {
		fi->ts = tsc;
		fi->have_ts = true;
		if (!d->have_last || tsc != d->last_tsc) {
			d->last_ns = time_of(d, tsc);
			d->last_tsc = tsc;
			d->have_last = true;
		}
		fi->time = d->last_ns;
	} else {
		fi->have_ts = false;
		fi->time = d->chunk_time;
	}
}

static void error_at(struct ptdec *d, struct pt_insn_decoder *dec, const struct sb_chunk *c,
		     int status, uint64_t ip)
{
	uint64_t off = 0;
	char why[512];

	pt_insn_get_offset(dec, &off);
	if (pt_errcode(status) == pte_nomap && d->space)
		flow_error(d->fl, c->begin + off, ip, img_space_why(d->space, ip, why, sizeof(why)));
	else
		flow_error(d->fl, c->begin + off, ip, pt_errstr(pt_errcode(status)));
}

static void decode_chunk(struct ptdec *d, const struct sb_chunk *c, const uint8_t *aux,
			 const struct ptcaps *caps)
{
	struct pt_insn_decoder *dec;
	struct pt_config config;
	struct pt_insn insn;
	uint64_t last_ip = 0;
	int status, mf;
	bool synced;

	pt_config_init(&config);
	config.begin = (uint8_t *)aux + c->begin;
	config.end = (uint8_t *)aux + c->end;
	if (caps->have_fms) {
		config.cpu.vendor = pcv_intel;
		config.cpu.family = (uint16_t)caps->family;
		config.cpu.model = (uint8_t)caps->model;
		config.cpu.stepping = (uint8_t)caps->stepping;
		(void)pt_cpu_errata(&config.errata, &config.cpu);
	}
	config.cpuid_0x15_eax = (uint32_t)caps->cpuid_15[0];
	config.cpuid_0x15_ebx = (uint32_t)caps->cpuid_15[1];
	config.nom_freq = (uint8_t)caps->nom_freq;
	mf = mtc_freq(c->config);
	if (mf >= 0)
		config.mtc_freq = (uint8_t)mf;
	dec = pt_insn_alloc_decoder(&config);
	if (!dec) {
		flow_error(d->fl, c->begin, 0, "cannot allocate a libipt instruction decoder");
		return;
	}
	pt_insn_set_image(dec, d->space ? image_of(d, d->space) : NULL);
	d->chunk_time = c->time;
	d->have_anchor = false;
	d->have_last = false;
	d->tsc_hz = caps->tsc_hz;

	for (synced = false;; synced = true) {
		uint64_t at = 0;

		status = pt_insn_sync_forward(dec);
		if (status < 0) {
			if (status != -pte_eos) {
				error_at(d, dec, c, status, 0);
			} else if (!synced && !c->anywhere) {
				/*
				 * Nothing of the chunk can be decoded: say so (in
				 * snapshot mode a part may be the tail of a run the
				 * ring overwrote: its start is lost by design).
				 */
				char msg[128];

				snprintf(msg, sizeof(msg), "no PSB in the %" PRIu64 " bytes of this part: "
					 "nothing of it is decoded", c->end - c->begin);
				flow_error(d->fl, c->begin, 0, msg);
				flow_lost(d->fl, msg, d->chunk_time);
			}
			break;
		}
		if (!synced && !c->anywhere && !pt_insn_get_sync_offset(dec, &at) && at) {
			/* A part starts where the hardware started: with a PSB. */
			char msg[128];

			snprintf(msg, sizeof(msg), "%" PRIu64 " bytes before the first PSB are not "
				 "decoded", at);
			flow_error(d->fl, c->begin, 0, msg);
			flow_lost(d->fl, msg, d->chunk_time);
		}
		for (;;) {
			struct flow_insn fi;

			while (status & pts_event_pending) {
				struct pt_event ev;

				status = pt_insn_event(dec, &ev, sizeof(ev));
				if (status < 0)
					break;
				if (ev.type == ptev_overflow) {
					flow_lost(d->fl, "the hardware dropped trace (overflow)",
						  ev.has_tsc ? time_of(d, ev.tsc) : d->chunk_time);
				} else if (ev.type == ptev_async_branch && !ev.ip_suppressed) {
					flow_async(d->fl, ev.variant.async_branch.from,
						   ev.variant.async_branch.to,
						   ev.has_tsc ? time_of(d, ev.tsc) : d->chunk_time);
				}
			}
			if (status < 0)
				break;
			memset(&insn, 0, sizeof(insn));
			status = pt_insn_next(dec, &insn, sizeof(insn));
			if (status < 0) {
				/* -pte_nomap: insn.ip is where the code could not be read. */
				last_ip = insn.ip;
				break;
			}
			memset(&fi, 0, sizeof(fi));
			fi.ip = insn.ip;
			fi.size = insn.size;
			memcpy(fi.raw, insn.raw, insn.size <= sizeof(fi.raw) ? insn.size : sizeof(fi.raw));
			fi.cls = class_of(insn.iclass);
			insn_time(d, dec, &fi);
			flow_insn(d->fl, &fi);
			last_ip = insn.ip;
			if (!(++d->ninsn & 0xffff)) {
				uint64_t off = 0;

				pt_insn_get_offset(dec, &off);
				flow_progress(d->fl, off);
			}
			if (status & pts_eos)
				break;
		}
		if (status >= 0 || status == -pte_eos)
			break;
		/* A packet cut short where the hardware stopped is not an error. */
		if (c->may_cut && (status == -pte_eos || pt_errcode(status) == pte_bad_packet)) {
			uint64_t off = 0;

			pt_insn_get_offset(dec, &off);
			if (c->end - c->begin - off < 32) {
				d->cut++;
				break;
			}
		}
		error_at(d, dec, c, status, last_ip);
		flow_lost(d->fl, "decoding resumes at the next PSB", d->chunk_time);
	}
	pt_insn_free_decoder(dec);
}

int ptdec_flow(struct tracebuf_capture *cap, struct sb *sb, struct flow *fl,
	       struct ptdec_stats *st)
{
	struct ptcaps *caps = NULL;
	unsigned int ncaps = 0;
	struct ptdec d = { .cap = cap, .sb = sb, .fl = fl };
	size_t i;

	d.iscache = pt_iscache_alloc("tracebuf");
	if (!d.iscache)
		return -ENOMEM;
	ncaps = (unsigned int)tracebuf_capture_nr_streams(cap);
	caps = calloc(ncaps ? ncaps : 1, sizeof(*caps));
	if (!caps) {
		pt_iscache_free(d.iscache);
		return -ENOMEM;
	}
	for (i = 0; i < ncaps; i++)
		read_caps(cap, (unsigned int)tracebuf_capture_stream_cpu(cap, (unsigned int)i),
			  &caps[i]);
	for (i = 0; i < sb_nchunks(sb); i++) {
		const struct sb_chunk *c = sb_chunk(sb, i);
		const void *aux;
		uint64_t len;

		if (!flow_wants(fl, c))
			continue;
		if (tracebuf_capture_aux(cap, c->stream, &aux, &len) || c->end > len)
			continue;
		/* A thread's run: its SWITCH IN and OUT times. */
		d.space = c->tid >= 0 && c->time_end != UINT64_MAX ?
			  sb_space_run(sb, c->pid, c->time, c->time_end) :
			  sb_space(sb, c->pid, c->time_end);
		flow_begin(fl, c, d.space);
		decode_chunk(&d, c, aux, &caps[c->stream]);
		flow_end(fl);
		drop_pages(aux, c->begin, c->end);
		st->chunks++;
		st->bytes += c->end - c->begin;
	}
	st->cut = d.cut;
	free(caps);
	for (i = 0; i < d.nimgs; i++)
		pt_image_free(d.imgs[i].image);
	free(d.imgs);
	pt_iscache_free(d.iscache);
	return 0;
}
