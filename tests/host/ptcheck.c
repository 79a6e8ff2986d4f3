// SPDX-License-Identifier: GPL-2.0
/*
 * ptcheck - check an Intel PT capture taken by a guest test against the
 * PT emulator (tests/modules/tb_ptemu.c), with libipt's packet decoder.
 *
 *   ptcheck [--snapshot] DIR
 *
 * Exit 0 and a one-line summary if the capture is good; otherwise every
 * problem found (with byte offsets into aux.bin), and exit 1. Exit 2 on
 * usage errors.
 *
 * Capture directory format (written by the guest test):
 *
 *   aux.bin    the AUX bytes of every published span, concatenated in
 *              publication order.
 *   spans.txt  one line per span, same order:
 *                span <aux_offset> <size> <flags>
 *              decimal; flags is a bitmask: 1 TRUNCATED, 2 OVERWRITE,
 *              4 PARTIAL, 8 COLLISION. Span i occupies aux.bin bytes
 *              [sum of the sizes before i, + size). Blank lines and lines
 *              starting with '#' are ignored. Between span lines:
 *                config <generation> <canonical>
 *              the driver changed the tracing configuration: the
 *              hardware was stopped (flushing TIP.PGD) and restarted
 *              (PSB+ first) there. <canonical> is a comma list of
 *              key=value, e.g. branch=1,tsc=1,mtc=0,cyc=1,ptw=1,...;
 *              keys in any order, unknown keys ignored, a missing key is
 *              not checked. It applies to the spans after it up to the
 *              next config line (a "config region").
 *   emu.txt    "key value" lines from the emulator:
 *                ptw_start N    seq of the first PTW generated after enable
 *                ptw_end N      next seq after disable (one past the last)
 *                ptw_dropped N  PTWs generated but not written (output
 *                               stopped, or the PTW packet was cut short)
 *              Other keys (restarts, ...) are ignored.
 *   snapshot   (optional, empty) the capture is a snapshot: the harness
 *              passes --snapshot.
 *
 * Normal mode. The stream is split into segments after every span whose
 * flags have TRUNCATED or COLLISION, and at every config line: there the
 * hardware stopped and was restarted, so
 *   - each segment starts with a PSB (the first one at offset 0) and
 *     decodes with zero errors; only the last packet of a segment that ends
 *     a TRUNCATED/COLLISION span may be cut short;
 *   - within a segment, spans are contiguous in the ring: aux_offset of
 *     span i+1 == aux_offset + size of span i; across a boundary the ring
 *     position never goes backwards;
 *   - PTW payloads are consecutive (prev + 1) within a segment and across
 *     a config line; across a TRUNCATED/COLLISION boundary they may jump
 *     forward (the PTWs dropped while stopped), never backwards or repeat;
 *   - the first PTW is ptw_start (unless the first segment has none), the
 *     last is at most ptw_end - 1, and seen == ptw_end - ptw_start -
 *     ptw_dropped: every gap together (leading, at boundaries, trailing)
 *     is exactly ptw_dropped. A trailing gap needs a final truncated span.
 *   - no span has OVERWRITE.
 *
 * Config regions with at least CFG_MIN_BYTES (8 KiB) of trace are checked
 * against their config line (smaller ones are skipped and counted); for a
 * key missing from the line its rule is not checked:
 *   - the region starts with a PSB at its first byte (the CONFIG record is
 *     where the hardware restarted);
 *   - cyc=1 <=> CYC packets present; mtc=1 <=> MTC present; tsc=1 <=> TSC
 *     present; ptw=1 <=> PTW present; branch=1 <=> TNT or plain TIP
 *     present (TIP.PGE/PGD do not count);
 *   - fup_on_ptw=1: every PTW has its IP bit set and the next packet is a
 *     FUP (a PTW that is the last packet before a TRUNCATED/COLLISION cut
 *     is excused); fup_on_ptw=0: no PTW has its IP bit set, and a FUP
 *     right after a PTW must be followed by a TIP (it can only be the
 *     source of an asynchronous branch, FUP+TIP);
 *   - psb_period=n: consecutive PSBs inside the region are at most
 *     (2048 << n) + 512 bytes apart.
 *
 * Snapshot mode (--snapshot): spans may have OVERWRITE. A span continues
 * the previous one's stream when it has no OVERWRITE, the previous one is
 * not TRUNCATED/COLLISION, no config line is between them, and its
 * aux_offset is where the previous one ended; otherwise it starts a new
 * segment (config lines are not checked against the trace here). Each segment must contain a
 * PSB and is decoded from its first PSB (bytes before it may be the tail
 * of an overwritten packet) to its end with zero errors (a cut last packet
 * only if TRUNCATED/COLLISION); PTWs are consecutive within a segment, and
 * strictly increasing across segments (no duplicates); if emu.txt has
 * ptw_start and ptw_end, every PTW lies in [ptw_start, ptw_end).
 */
#define _GNU_SOURCE
#include <errno.h>
#include <inttypes.h>
#include <stdarg.h>
#include <stdbool.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <intel-pt.h>

#define SPAN_TRUNCATED	1u
#define SPAN_OVERWRITE	2u
#define SPAN_PARTIAL	4u
#define SPAN_COLLISION	8u
#define SPAN_ALL	15u

#define MAX_REPORTS	25
#define CFG_MIN_BYTES	8192	/* config regions smaller than this: skipped */

struct span {
	uint64_t aux_offset, size, flags;
	uint64_t start;		/* offset in aux.bin */
	unsigned int line;
	long cfg;		/* config region (index in regs[]), -1: none */
	bool cfg_first;		/* first span after its config line */
};

/* Config keys with rules. */
enum { K_BRANCH, K_TSC, K_MTC, K_CYC, K_PTW, K_FUP_ON_PTW, K_PSB_PERIOD, K_NR };
static const char *const key_names[K_NR] = {
	"branch", "tsc", "mtc", "cyc", "ptw", "fup_on_ptw", "psb_period",
};

/* Packet classes counted per config region. */
enum { C_CYC, C_MTC, C_TSC, C_PTW, C_BRANCH, C_NR };

/* A config line and the spans after it. */
struct cfgreg {
	uint64_t gen;
	unsigned int line;
	long v[K_NR];		/* -1: unknown */
	long nspans;
	uint64_t start, size;	/* aux.bin bytes of the region */
	bool checked;		/* >= CFG_MIN_BYTES: rules apply */
	/* what decoding found */
	uint64_t n[C_NR], first[C_NR];
	bool have_psb;
	uint64_t last_psb;
};

static struct cfgreg *regs;
static long nregs;

static const char *dir;
static unsigned int nr_errors;

static void error(const char *fmt, ...)
{
	va_list ap;

	nr_errors++;
	if (nr_errors > MAX_REPORTS)
		return;
	printf("ptcheck: %s: ", dir);
	va_start(ap, fmt);
	vprintf(fmt, ap);
	va_end(ap);
	putchar('\n');
}

static char *path_in(const char *name)
{
	char *p;

	if (asprintf(&p, "%s/%s", dir, name) < 0) {
		perror("asprintf");
		exit(2);
	}
	return p;
}

static uint8_t *read_all(const char *name, size_t *len)
{
	char *path = path_in(name);
	FILE *f = fopen(path, "rb");
	uint8_t *buf = NULL;
	size_t cap = 0, n;

	*len = 0;
	if (!f) {
		error("%s: %s (incomplete capture)", name, strerror(errno));
		free(path);
		return NULL;
	}
	for (;;) {
		if (*len == cap) {
			cap = cap ? cap * 2 : 65536;
			buf = realloc(buf, cap + 1);
			if (!buf) {
				perror("realloc");
				exit(2);
			}
		}
		n = fread(buf + *len, 1, cap - *len, f);
		*len += n;
		if (n == 0)
			break;
	}
	if (ferror(f))
		error("%s: read error", name);
	buf[*len] = 0;
	fclose(f);
	free(path);
	return buf;
}

/* "config <generation> <canonical>" after the word config; false if malformed. */
static bool read_config(const char *p, unsigned int lineno, uint64_t at)
{
	static long cap;
	struct cfgreg *r;
	char *end, *canon, *tok, *save = NULL;
	unsigned long long gen;
	bool ok = true;
	int k;

	p += strspn(p, " \t");
	errno = 0;
	gen = strtoull(p, &end, 10);
	if (end == p || errno || (*end && !strchr(" \t", *end)) || *p == '-') {
		error("spans.txt:%u: malformed config line (no generation)", lineno);
		return false;
	}
	if (nregs == cap) {
		cap = cap ? cap * 2 : 16;
		regs = realloc(regs, cap * sizeof(*regs));
		if (!regs) {
			perror("realloc");
			exit(2);
		}
	}
	r = &regs[nregs++];
	memset(r, 0, sizeof(*r));
	r->gen = gen;
	r->line = lineno;
	r->start = at;
	for (k = 0; k < K_NR; k++)
		r->v[k] = -1;
	canon = strdup(end + strspn(end, " \t"));
	if (!canon) {
		perror("strdup");
		exit(2);
	}
	canon[strcspn(canon, " \t")] = 0;
	for (tok = strtok_r(canon, ",", &save); tok; tok = strtok_r(NULL, ",", &save)) {
		char *eq = strchr(tok, '=');
		unsigned long v;

		if (!eq)
			continue;
		*eq = 0;
		for (k = 0; k < K_NR; k++)
			if (!strcmp(tok, key_names[k]))
				break;
		if (k == K_NR)
			continue;	/* not checked */
		errno = 0;
		v = strtoul(eq + 1, &end, 10);
		if (end == eq + 1 || *end || errno || eq[1] == '-' ||
		    v > (k == K_PSB_PERIOD ? 15ul : 1ul)) {
			error("spans.txt:%u: config %llu: bad value %s=%s", lineno, gen, tok, eq + 1);
			ok = false;
			continue;
		}
		r->v[k] = (long)v;
	}
	free(canon);
	return ok;
}

/* Spans from spans.txt; returns the count, -1 when unusable. */
static long read_spans(struct span **out, uint64_t *total)
{
	size_t len;
	char *txt = (char *)read_all("spans.txt", &len);
	char *line, *save = NULL;
	struct span *spans = NULL;
	long n = 0, cap = 0;
	unsigned int lineno = 0;
	bool bad = false;

	*total = 0;
	if (!txt)
		return -1;
	if (strlen(txt) != len) {
		error("spans.txt: contains NUL bytes");
		free(txt);
		return -1;
	}
	for (line = strtok_r(txt, "\n", &save); line; line = strtok_r(NULL, "\n", &save)) {
		uint64_t a, s, f;
		char word[16], extra;

		lineno++;
		line[strcspn(line, "\r")] = 0;
		if (line[strspn(line, " \t")] == 0 || line[strspn(line, " \t")] == '#')
			continue;
		if (!strncmp(line + strspn(line, " \t"), "config", 6) &&
		    strchr(" \t", line[strspn(line, " \t") + 6])) {
			if (!read_config(line + strspn(line, " \t") + 6, lineno, *total))
				bad = true;
			continue;
		}
		if (sscanf(line, "%15s %" SCNu64 " %" SCNu64 " %" SCNu64 " %c",
			   word, &a, &s, &f, &extra) != 4 || strcmp(word, "span")) {
			error("spans.txt:%u: malformed line \"%s\"", lineno, line);
			bad = true;
			continue;
		}
		if (f & ~(uint64_t)SPAN_ALL)
			error("spans.txt:%u: unknown flags %#" PRIx64, lineno, f);
		if (n == cap) {
			cap = cap ? cap * 2 : 64;
			spans = realloc(spans, cap * sizeof(*spans));
			if (!spans) {
				perror("realloc");
				exit(2);
			}
		}
		spans[n].aux_offset = a;
		spans[n].size = s;
		spans[n].flags = f;
		spans[n].start = *total;
		spans[n].line = lineno;
		spans[n].cfg = nregs - 1;
		spans[n].cfg_first = nregs && regs[nregs - 1].nspans == 0;
		if (nregs) {
			regs[nregs - 1].nspans++;
			regs[nregs - 1].size += s;
		}
		*total += s;
		n++;
	}
	free(txt);
	*out = spans;
	return bad ? -1 : n;
}

struct emu {
	bool has_start, has_end, has_dropped;
	uint64_t ptw_start, ptw_end, ptw_dropped;
};

static bool read_emu(struct emu *e)
{
	size_t len;
	char *txt = (char *)read_all("emu.txt", &len);
	char *line, *save = NULL;

	memset(e, 0, sizeof(*e));
	if (!txt)
		return false;
	for (line = strtok_r(txt, "\n", &save); line; line = strtok_r(NULL, "\n", &save)) {
		char key[64];
		uint64_t v;

		if (sscanf(line, "%63s %" SCNu64, key, &v) != 2)
			continue;
		if (!strcmp(key, "ptw_start")) {
			e->ptw_start = v;
			e->has_start = true;
		} else if (!strcmp(key, "ptw_end")) {
			e->ptw_end = v;
			e->has_end = true;
		} else if (!strcmp(key, "ptw_dropped")) {
			e->ptw_dropped = v;
			e->has_dropped = true;
		}
	}
	free(txt);
	return true;
}

/* What decoding a region found. */
struct region_stats {
	uint64_t pkts, psbs, ptws;
	uint64_t first_ptw, last_ptw;
	uint64_t first_ptw_off;
	bool cut;		/* last packet cut short */
};

/* Totals over the capture. */
static uint64_t t_pkts, t_psbs, t_ptws, t_gaps, t_gap_ptws, t_cut;

/* The config region being decoded (normal mode), NULL for none. */
static struct cfgreg *cur_reg;

static void reg_count(struct cfgreg *r, int c, uint64_t off)
{
	if (!r->n[c]++)
		r->first[c] = off;
}

/*
 * Config rules for one packet of the region being decoded: pkt at off;
 * prev/prev2 the packet types before it in the segment (-1: none).
 */
static void reg_packet(struct cfgreg *r, const struct pt_packet *pkt, uint64_t off,
		       int prev, uint64_t prev_off, int prev2, uint64_t prev2_off)
{
	long fop = r->v[K_FUP_ON_PTW];

	switch (pkt->type) {
	case ppt_cyc:
		reg_count(r, C_CYC, off);
		break;
	case ppt_mtc:
		reg_count(r, C_MTC, off);
		break;
	case ppt_tsc:
		reg_count(r, C_TSC, off);
		break;
	case ppt_tnt_8:
	case ppt_tnt_64:
	case ppt_tip:
		reg_count(r, C_BRANCH, off);
		break;
	case ppt_ptw:
		reg_count(r, C_PTW, off);
		if (fop >= 0 && pkt->payload.ptw.ip != (fop == 1))
			error("config %" PRIu64 " (spans.txt:%u): fup_on_ptw=%ld but the PTW "
			      "at offset %" PRIu64 " has its IP bit %s", r->gen, r->line, fop,
			      off, pkt->payload.ptw.ip ? "set" : "clear");
		break;
	case ppt_psb:
		if (r->v[K_PSB_PERIOD] >= 0 && r->have_psb &&
		    off - r->last_psb > (2048ull << r->v[K_PSB_PERIOD]) + 512)
			error("config %" PRIu64 " (spans.txt:%u): psb_period=%ld but PSBs at "
			      "offsets %" PRIu64 " and %" PRIu64 " are %" PRIu64 " bytes apart, "
			      "want at most %llu", r->gen, r->line, r->v[K_PSB_PERIOD],
			      r->last_psb, off, off - r->last_psb,
			      (2048ull << r->v[K_PSB_PERIOD]) + 512);
		r->have_psb = true;
		r->last_psb = off;
		break;
	default:
		break;
	}
	if (prev == ppt_ptw && fop == 1 && pkt->type != ppt_fup)
		error("config %" PRIu64 " (spans.txt:%u): fup_on_ptw=1 but the PTW at offset %"
		      PRIu64 " is followed by a non-FUP packet at offset %" PRIu64,
		      r->gen, r->line, prev_off, off);
	if (prev2 == ppt_ptw && prev == ppt_fup && fop == 0 && pkt->type != ppt_tip)
		error("config %" PRIu64 " (spans.txt:%u): fup_on_ptw=0 but the PTW at offset %"
		      PRIu64 " is followed by a FUP (offset %" PRIu64 ") that is not the "
		      "source of a FUP+TIP pair (next packet at offset %" PRIu64 ")",
		      r->gen, r->line, prev2_off, prev_off, off);
}

/* PTW sequence state across regions. */
struct ptw_state {
	bool have;
	uint64_t last;
	uint64_t last_off;
};

/*
 * Decode aux[begin, end). The region must start with a PSB at begin
 * (sync_first == false) or is decoded from its first PSB (sync_first).
 * may_cut: the last packet may be cut short. PTWs inside the region must
 * be consecutive; the first one is handed back for the caller's checks
 * across regions.
 */
static void decode_region(const uint8_t *aux, uint64_t begin, uint64_t end,
			  bool sync_first, bool may_cut, const char *what,
			  struct region_stats *rs, struct ptw_state *ps,
			  bool (*first_ptw_ok)(uint64_t v, uint64_t off, void *arg), void *arg)
{
	struct pt_config config;
	struct pt_packet_decoder *dec;
	struct pt_packet pkt;
	uint64_t off, prev_off = 0, prev2_off = 0;
	bool in_region = false;	/* a PTW of this region already seen */
	struct cfgreg *reg = cur_reg && cur_reg->checked ? cur_reg : NULL;
	int rc, prev = -1, prev2 = -1;

	memset(rs, 0, sizeof(*rs));
	if (begin == end)
		return;
	pt_config_init(&config);
	config.begin = (uint8_t *)aux + begin;
	config.end = (uint8_t *)aux + end;
	dec = pt_pkt_alloc_decoder(&config);
	if (!dec) {
		error("%s: cannot allocate a libipt decoder", what);
		return;
	}
	if (sync_first) {
		rc = pt_pkt_sync_forward(dec);
		if (rc < 0) {
			error("%s [%" PRIu64 ", %" PRIu64 "): no PSB to sync to (%s)",
			      what, begin, end, pt_errstr(pt_errcode(rc)));
			goto out;
		}
	} else {
		pt_pkt_sync_set(dec, 0);
	}
	for (;;) {
		if (pt_pkt_get_offset(dec, &off) < 0)
			break;
		rc = pt_pkt_next(dec, &pkt, sizeof(pkt));
		if (rc == -pte_eos) {
			if (begin + off == end) {
				if (reg && prev == ppt_ptw && reg->v[K_FUP_ON_PTW] == 1 && !may_cut)
					error("config %" PRIu64 " (spans.txt:%u): fup_on_ptw=1 but the "
					      "PTW at offset %" PRIu64 " ends %s without a FUP",
					      reg->gen, reg->line, prev_off, what);
				break;
			}
			if (may_cut) {
				rs->cut = true;
				t_cut++;
				break;
			}
			error("offset %" PRIu64 ": %s: packet cut short at the end "
			      "(%" PRIu64 " bytes left) but the span is not TRUNCATED/COLLISION",
			      begin + off, what, end - begin - off);
			break;
		}
		if (rc < 0) {
			error("offset %" PRIu64 ": %s: decode error: %s",
			      begin + off, what, pt_errstr(pt_errcode(rc)));
			/* resync for more diagnostics; PTW continuity restarts */
			if (pt_pkt_sync_forward(dec) < 0)
				break;
			ps->have = false;
			prev = prev2 = -1;
			continue;
		}
		if (reg)
			reg_packet(reg, &pkt, begin + off, prev, prev_off, prev2, prev2_off);
		prev2 = prev;
		prev2_off = prev_off;
		prev = pkt.type;
		prev_off = begin + off;
		if (rs->pkts == 0 && !sync_first && pkt.type != ppt_psb)
			error("offset %" PRIu64 ": %s does not start with a PSB", begin + off, what);
		rs->pkts++;
		if (pkt.type == ppt_psb)
			rs->psbs++;
		if (pkt.type != ppt_ptw)
			continue;
		if (pkt.payload.ptw.plc != 1)
			error("offset %" PRIu64 ": %s: PTW with a %d-byte payload, want 8",
			      begin + off, what, pt_ptw_size(pkt.payload.ptw.plc));
		if (!rs->ptws) {
			rs->first_ptw = pkt.payload.ptw.payload;
			rs->first_ptw_off = begin + off;
		}
		rs->last_ptw = pkt.payload.ptw.payload;
		rs->ptws++;
		if (!in_region) {
			in_region = true;
			if (first_ptw_ok && !first_ptw_ok(pkt.payload.ptw.payload, begin + off, arg))
				ps->have = false;
		} else if (ps->have && pkt.payload.ptw.payload != ps->last + 1) {
			if (pkt.payload.ptw.payload <= ps->last)
				error("offset %" PRIu64 ": %s: PTW %" PRIu64 " after %" PRIu64
				      " (offset %" PRIu64 "): backwards or duplicate",
				      begin + off, what, pkt.payload.ptw.payload, ps->last,
				      ps->last_off);
			else
				error("offset %" PRIu64 ": %s: PTW %" PRIu64 " after %" PRIu64
				      " (offset %" PRIu64 "): %" PRIu64 " missing inside a segment",
				      begin + off, what, pkt.payload.ptw.payload, ps->last,
				      ps->last_off, pkt.payload.ptw.payload - ps->last - 1);
		}
		ps->have = true;
		ps->last = pkt.payload.ptw.payload;
		ps->last_off = begin + off;
	}
out:
	pt_pkt_free_decoder(dec);
	t_pkts += rs->pkts;
	t_psbs += rs->psbs;
	t_ptws += rs->ptws;
}

/* ---- normal mode ---- */

struct seq_ctx {
	struct ptw_state *ps;
	const struct emu *emu;
	bool may_jump;		/* a TRUNCATED/COLLISION boundary since the last PTW */
	bool seen_any;
	uint64_t first;
};

/* The first PTW of a segment, against what came before. */
static bool normal_first_ptw(uint64_t v, uint64_t off, void *arg)
{
	struct seq_ctx *c = arg;
	bool may_jump = c->may_jump;

	c->may_jump = false;
	if (!c->seen_any) {
		c->seen_any = true;
		c->first = v;
		if (v < c->emu->ptw_start) {
			error("offset %" PRIu64 ": first PTW %" PRIu64 " is before ptw_start %" PRIu64,
			      off, v, c->emu->ptw_start);
			return false;
		}
		if (!may_jump && v != c->emu->ptw_start)
			error("offset %" PRIu64 ": first PTW %" PRIu64 ", want ptw_start %" PRIu64
			      " (no TRUNCATED/COLLISION span before it)", off, v, c->emu->ptw_start);
		if (v > c->emu->ptw_start) {
			t_gaps++;
			t_gap_ptws += v - c->emu->ptw_start;
		}
		return true;
	}
	if (!c->ps->have)
		return true;
	if (v <= c->ps->last) {
		error("offset %" PRIu64 ": PTW %" PRIu64 " after %" PRIu64 " (offset %" PRIu64
		      "): backwards or duplicate across a restart", off, v, c->ps->last,
		      c->ps->last_off);
		return false;
	}
	if (v > c->ps->last + 1 && !may_jump)
		error("offset %" PRIu64 ": PTW %" PRIu64 " after %" PRIu64 " (offset %" PRIu64
		      "): %" PRIu64 " missing across a config change (no TRUNCATED/COLLISION "
		      "span in between)", off, v, c->ps->last, c->ps->last_off,
		      v - c->ps->last - 1);
	if (v > c->ps->last + 1) {
		t_gaps++;
		t_gap_ptws += v - c->ps->last - 1;
	}
	return true;
}

/* The whole-region config rules, after its segments were decoded. */
static void check_region(const struct cfgreg *r, const uint8_t *aux)
{
	static const struct {
		int key, cls;
		const char *pkts;
	} pres[] = {
		{ K_CYC, C_CYC, "CYC" },
		{ K_MTC, C_MTC, "MTC" },
		{ K_TSC, C_TSC, "TSC" },
		{ K_PTW, C_PTW, "PTW" },
		{ K_BRANCH, C_BRANCH, "TNT or TIP" },
	};
	static const uint8_t psb[16] = {
		2, 0x82, 2, 0x82, 2, 0x82, 2, 0x82, 2, 0x82, 2, 0x82, 2, 0x82, 2, 0x82,
	};
	uint64_t end = r->start + r->size;
	unsigned int k;

	if (memcmp(aux + r->start, psb, sizeof(psb)))
		error("config %" PRIu64 " (spans.txt:%u): the region [%" PRIu64 ", %" PRIu64
		      ") does not start with a PSB at its first byte (offset %" PRIu64 ")",
		      r->gen, r->line, r->start, end, r->start);
	for (k = 0; k < sizeof(pres) / sizeof(pres[0]); k++) {
		long v = r->v[pres[k].key];
		uint64_t n = r->n[pres[k].cls];

		if (v == 1 && !n)
			error("config %" PRIu64 " (spans.txt:%u): %s=1 but no %s packet in the "
			      "region [%" PRIu64 ", %" PRIu64 ")", r->gen, r->line,
			      key_names[pres[k].key], pres[k].pkts, r->start, end);
		else if (v == 0 && n)
			error("config %" PRIu64 " (spans.txt:%u): %s=0 but %" PRIu64 " %s packets "
			      "in the region [%" PRIu64 ", %" PRIu64 "), the first at offset %"
			      PRIu64, r->gen, r->line, key_names[pres[k].key], n, pres[k].pkts,
			      r->start, end, r->first[pres[k].cls]);
	}
}

static int check_normal(const uint8_t *aux, uint64_t total, const struct span *spans,
			long nspans, const struct emu *emu)
{
	struct ptw_state ps = { 0 };
	struct seq_ctx ctx = { .ps = &ps, .emu = emu };
	struct region_stats rs;
	uint64_t seg_start = 0, nseg = 0;
	long i, r, seg_first = 0, reg_checked = 0, reg_skipped = 0;
	char what[96];

	for (r = 0; r < nregs; r++)
		regs[r].checked = regs[r].size >= CFG_MIN_BYTES;

	if (!emu->has_start || !emu->has_end || !emu->has_dropped)
		error("emu.txt lacks %s%s%s", emu->has_start ? "" : "ptw_start ",
		      emu->has_end ? "" : "ptw_end ", emu->has_dropped ? "" : "ptw_dropped");
	if (emu->has_start && emu->has_end && emu->ptw_end < emu->ptw_start)
		error("emu.txt: ptw_end %" PRIu64 " < ptw_start %" PRIu64,
		      emu->ptw_end, emu->ptw_start);
	if (total && (nspans == 0 || spans[0].start != 0))
		error("no spans");
	for (i = 0; i < nspans; i++) {
		const struct span *s = &spans[i];
		bool boundary = s->flags & (SPAN_TRUNCATED | SPAN_COLLISION);

		if (s->flags & SPAN_OVERWRITE)
			error("offset %" PRIu64 ": span %ld (spans.txt:%u) has OVERWRITE in a "
			      "non-snapshot capture", s->start, i, s->line);
		if (i > 0) {
			const struct span *p = &spans[i - 1];
			bool p_boundary = p->flags & (SPAN_TRUNCATED | SPAN_COLLISION);

			if (!p_boundary && s->aux_offset != p->aux_offset + p->size)
				error("offset %" PRIu64 ": span %ld (spans.txt:%u) at ring offset %"
				      PRIu64 ", want %" PRIu64 " (contiguous with span %ld: a span "
				      "missing or repeated?)", s->start, i, s->line, s->aux_offset,
				      p->aux_offset + p->size, i - 1);
			if (p_boundary && s->aux_offset < p->aux_offset + p->size)
				error("offset %" PRIu64 ": span %ld (spans.txt:%u) at ring offset %"
				      PRIu64 ", before the end of span %ld (%" PRIu64 ")",
				      s->start, i, s->line, s->aux_offset, i - 1,
				      p->aux_offset + p->size);
		}
		/* a config line after this span is a restart too */
		if (!boundary && i != nspans - 1 && !spans[i + 1].cfg_first)
			continue;
		/* segment: spans seg_first..i, aux.bin [seg_start, s->start + s->size) */
		snprintf(what, sizeof(what), "segment %" PRIu64 " (spans %ld-%ld)",
			 nseg, seg_first, i);
		if (seg_first && (spans[seg_first - 1].flags & (SPAN_TRUNCATED | SPAN_COLLISION)))
			ctx.may_jump = true;
		cur_reg = spans[seg_first].cfg >= 0 ? &regs[spans[seg_first].cfg] : NULL;
		decode_region(aux, seg_start, s->start + s->size, false, boundary, what,
			      &rs, &ps, normal_first_ptw, &ctx);
		cur_reg = NULL;
		seg_start = s->start + s->size;
		seg_first = i + 1;
		nseg++;
	}
	for (r = 0; r < nregs; r++) {
		if (!regs[r].checked) {
			reg_skipped++;
			continue;
		}
		reg_checked++;
		check_region(&regs[r], aux);
	}
	if (emu->has_start && emu->has_end && emu->has_dropped) {
		uint64_t want = emu->ptw_end - emu->ptw_start;
		bool last_trunc = nspans && (spans[nspans - 1].flags &
					     (SPAN_TRUNCATED | SPAN_COLLISION));

		if (ps.have && ps.last >= emu->ptw_end)
			error("last PTW %" PRIu64 " (offset %" PRIu64 ") is not below ptw_end %" PRIu64,
			      ps.last, ps.last_off, emu->ptw_end);
		else if (ctx.seen_any && ps.have && ps.last + 1 < emu->ptw_end) {
			if (!last_trunc)
				error("last PTW %" PRIu64 " (offset %" PRIu64 "), ptw_end %" PRIu64
				      ": %" PRIu64 " missing at the end, but the last span is not "
				      "TRUNCATED/COLLISION", ps.last, ps.last_off, emu->ptw_end,
				      emu->ptw_end - 1 - ps.last);
			t_gaps++;
			t_gap_ptws += emu->ptw_end - 1 - ps.last;
		} else if (!ctx.seen_any && want) {
			t_gaps++;
			t_gap_ptws += want;
		}
		if (want < emu->ptw_dropped)
			error("emu.txt: ptw_dropped %" PRIu64 " > ptw_end - ptw_start = %" PRIu64,
			      emu->ptw_dropped, want);
		else if (t_ptws != want - emu->ptw_dropped)
			error("%" PRIu64 " PTWs seen, want ptw_end - ptw_start - ptw_dropped = %"
			      PRIu64 " - %" PRIu64 " - %" PRIu64 " = %" PRIu64,
			      t_ptws, emu->ptw_end, emu->ptw_start, emu->ptw_dropped,
			      want - emu->ptw_dropped);
		else if (t_gap_ptws != emu->ptw_dropped)
			error("PTW gaps add up to %" PRIu64 ", want ptw_dropped %" PRIu64,
			      t_gap_ptws, emu->ptw_dropped);
	}
	if (nr_errors)
		return 1;
	printf("ptcheck: %s: OK: %" PRIu64 " bytes, %ld spans, %" PRIu64 " segments, %" PRIu64
	       " packets, %" PRIu64 " PSBs, %" PRIu64 " PTWs", dir, total, nspans, nseg,
	       t_pkts, t_psbs, t_ptws);
	if (t_ptws)
		printf(" (%" PRIu64 "..%" PRIu64 ")", ctx.first, ps.last);
	printf(", %" PRIu64 " gaps (%" PRIu64 " PTWs dropped), %" PRIu64 " cut packets"
	       ", %ld config regions checked, %ld skipped (< %d bytes)\n",
	       t_gaps, t_gap_ptws, t_cut, reg_checked, reg_skipped, CFG_MIN_BYTES);
	return 0;
}

/* ---- snapshot mode ---- */

struct snap_ctx {
	struct ptw_state *ps;
	const struct emu *emu;
	bool any;
	uint64_t last;		/* last PTW of the previous spans */
	uint64_t last_off;
};

static bool snap_first_ptw(uint64_t v, uint64_t off, void *arg)
{
	struct snap_ctx *c = arg;

	if (c->any && v <= c->last) {
		error("offset %" PRIu64 ": PTW %" PRIu64 " in a later span than PTW %" PRIu64
		      " (offset %" PRIu64 "): backwards or duplicate", off, v, c->last,
		      c->last_off);
		return false;
	}
	if (c->any && v > c->last + 1)
		t_gaps++;
	return true;
}

static int check_snapshot(const uint8_t *aux, uint64_t total, const struct span *spans,
			  long nspans, const struct emu *emu)
{
	struct ptw_state ps = { 0 };
	struct snap_ctx ctx = { .ps = &ps, .emu = emu };
	struct region_stats rs;
	uint64_t first = 0, nseg = 0;
	bool have_first = false;
	char what[96];
	long i, seg_first = 0;

	for (i = 0; i < nspans; i++) {
		const struct span *s = &spans[i];
		const struct span *n = i + 1 < nspans ? &spans[i + 1] : NULL;
		bool boundary = s->flags & (SPAN_TRUNCATED | SPAN_COLLISION);

		/* The next span continues this one's stream? */
		if (n && !boundary && !(n->flags & SPAN_OVERWRITE) && !n->cfg_first &&
		    n->aux_offset == s->aux_offset + s->size)
			continue;
		snprintf(what, sizeof(what), "snapshot segment %" PRIu64 " (spans %ld-%ld)",
			 nseg, seg_first, i);
		ps.have = false;
		decode_region(aux, spans[seg_first].start, s->start + s->size, true,
			      boundary, what, &rs, &ps, snap_first_ptw, &ctx);
		seg_first = i + 1;
		nseg++;
		if (!rs.ptws)
			continue;
		if (!have_first) {
			first = rs.first_ptw;
			have_first = true;
		}
		if (emu->has_start && rs.first_ptw < emu->ptw_start)
			error("offset %" PRIu64 ": PTW %" PRIu64 " below ptw_start %" PRIu64,
			      rs.first_ptw_off, rs.first_ptw, emu->ptw_start);
		if (emu->has_end && rs.last_ptw >= emu->ptw_end)
			error("%s: PTW %" PRIu64 " not below ptw_end %" PRIu64,
			      what, rs.last_ptw, emu->ptw_end);
		if (ps.have) {
			ctx.any = true;
			ctx.last = ps.last;
			ctx.last_off = ps.last_off;
		}
	}
	if (nr_errors)
		return 1;
	printf("ptcheck: %s: OK (snapshot): %" PRIu64 " bytes, %ld spans, %" PRIu64
	       " segments, %" PRIu64 " packets, %" PRIu64 " PSBs, %" PRIu64 " PTWs", dir,
	       total, nspans, nseg, t_pkts, t_psbs, t_ptws);
	if (t_ptws)
		printf(" (%" PRIu64 "..%" PRIu64 ")", first, ctx.last);
	printf(", %" PRIu64 " gaps between segments\n", t_gaps);
	return 0;
}

int main(int argc, char **argv)
{
	bool snapshot = false;
	struct span *spans = NULL;
	struct emu emu;
	uint8_t *aux;
	size_t aux_len;
	uint64_t total = 0;
	long nspans;
	int rc;

	if (argc == 3 && !strcmp(argv[1], "--snapshot")) {
		snapshot = true;
		dir = argv[2];
	} else if (argc == 2 && argv[1][0] != '-') {
		dir = argv[1];
	} else {
		fprintf(stderr, "usage: ptcheck [--snapshot] DIR\n");
		return 2;
	}
	aux = read_all("aux.bin", &aux_len);
	nspans = read_spans(&spans, &total);
	read_emu(&emu);
	if (!aux || nspans < 0 || nr_errors) {
		printf("ptcheck: %s: FAILED (%u problems)\n", dir, nr_errors);
		return 1;
	}
	if (total != aux_len) {
		error("spans.txt sizes add up to %" PRIu64 " bytes, aux.bin has %zu",
		      total, aux_len);
		printf("ptcheck: %s: FAILED (%u problems)\n", dir, nr_errors);
		return 1;
	}
	if (!snapshot && aux_len == 0)
		error("aux.bin is empty");
	if (snapshot)
		rc = check_snapshot(aux, total, spans, nspans, &emu);
	else
		rc = check_normal(aux, total, spans, nspans, &emu);
	if (rc) {
		if (nr_errors > MAX_REPORTS)
			printf("ptcheck: %s: ... and %u more\n", dir, nr_errors - MAX_REPORTS);
		printf("ptcheck: %s: FAILED (%u problems)\n", dir, nr_errors);
	}
	free(aux);
	free(spans);
	return rc;
}
