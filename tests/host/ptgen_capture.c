// SPDX-License-Identifier: GPL-2.0
/*
 * ptgen_capture - write a synthetic Intel PT capture directory (the format
 * ptcheck reads, see ptcheck.c) from the emulator's packet generator,
 * tests/modules/ptemu_gen.h, the way the emulator and the AUX ring would:
 *
 *   ptgen_capture [options] DIR
 *
 * Normal captures: --segments N segments; the hardware stops (output full)
 * at the end of every segment but the last, at an arbitrary byte of a packet
 * group: that span is TRUNCATED, the program runs on for --dropped-steps
 * groups whose PTWs are lost (counted in ptw_dropped, like a PTW cut short),
 * then tracing restarts with PSB+. Spans are published every --span bytes,
 * wherever that falls in a packet.
 *
 * --region LIST[:STEPS] (repeatable, up to MAX_REGIONS): config regions
 * instead of --segments. For each region, in order: a "config <gen>
 * <canonical>" line in spans.txt (gen = 3 + index, the canonical string
 * from LIST with the keys in a rotating order and some unknown keys), then
 * the generator re-initialised with LIST (as the emulator does at TraceEn
 * 0->1, continuing the PTW sequence), ptgen_start, STEPS (default --steps)
 * groups, and ptgen_stop; the last span of every region is published
 * there, so each region starts with its own span. --trunc-region I: region
 * I instead ends like a stopped segment (TRUNCATED, --dropped-steps lost).
 * --unknown-first: no config line before region 0.
 *
 * --snapshot: one long trace into a --ring byte ring that overwrites; a
 * snapshot span (OVERWRITE when data was overwritten) is published
 * --snapshots times; DIR/snapshot is created.
 *
 * Deliberate corruptions, for testing ptcheck: --flip OFF (xor aux.bin byte
 * OFF with 0xff), --flip-ptw N (flip the low payload bit of the N-th PTW),
 * --dup-span I, --drop-span I, --no-trunc-flag, --dropped-delta D (lie in
 * emu.txt), --no-emu (no emu.txt); with --region: --claim I KV (append
 * ",KV" to region I's config line: it then claims KV, the last value of a
 * key counts), --config-mid I (an extra config line, same settings, before
 * span I, wherever that falls), --ptw-jump I (region I starts one PTW
 * later than the sequence: counted in ptw_dropped, but not behind a
 * TRUNCATED span).
 */
#define _GNU_SOURCE
#include <errno.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>

#include "ptemu_gen.h"

struct span {
	uint64_t start, size, flags;
	long cfg;		/* config line before this span (index in cfglines), -1 */
};

#define MAX_REGIONS 16

struct region {
	struct ptgen_cfg cfg;
	unsigned int steps;
	char claim[256];	/* appended to the config line */
};

static char *cfglines[MAX_REGIONS + 1];
static uint64_t cfggens[MAX_REGIONS + 1];
static long ncfglines, pending_cfg = -1;

static uint8_t *st;		/* the stream as the ring got it */
static size_t st_len, st_cap;
static struct span *spans;
static size_t nspans, spans_cap;
static uint64_t *ptw_pos;	/* aux offset of each written PTW's payload */
static size_t nptw, ptw_cap;

static void *grow(void *p, size_t *cap, size_t need, size_t elem)
{
	if (need <= *cap)
		return p;
	*cap = need * 2 + 64;
	p = realloc(p, *cap * elem);
	if (!p) {
		perror("realloc");
		exit(2);
	}
	return p;
}

static void append(const uint8_t *b, size_t n)
{
	st = grow(st, &st_cap, st_len + n, 1);
	memcpy(st + st_len, b, n);
	st_len += n;
}

static void add_span(uint64_t start, uint64_t size, uint64_t flags)
{
	spans = grow(spans, &spans_cap, nspans + 1, sizeof(*spans));
	spans[nspans].start = start;
	spans[nspans].size = size;
	spans[nspans].flags = flags;
	spans[nspans].cfg = pending_cfg;
	pending_cfg = -1;
	nspans++;
}

static void note_ptw(const struct ptgen *g, unsigned int nr, size_t group_start,
		     unsigned int kept)
{
	if (!nr || kept < g->last_ptw_end)
		return;
	ptw_pos = grow(ptw_pos, &ptw_cap, nptw + 1, sizeof(*ptw_pos));
	ptw_pos[nptw++] = group_start + g->last_ptw_end - 8;
}

static void usage(void)
{
	fprintf(stderr,
		"usage: ptgen_capture [--segments N] [--steps N] [--span BYTES]\n"
		"         [--dropped-steps N] [--seed N] [--cfg LIST] [--snapshot]\n"
		"         [--ring BYTES] [--snapshots N] [--flip OFF] [--flip-ptw N]\n"
		"         [--dup-span I] [--drop-span I] [--no-trunc-flag]\n"
		"         [--dropped-delta D] [--no-emu] [--region LIST[:STEPS]]...\n"
		"         [--trunc-region I] [--unknown-first] [--claim I KV]\n"
		"         [--config-mid I] [--ptw-jump I] DIR\n"
		"  LIST: comma list of branch,tsc,mtc,cyc,ptw,fupptw,pwr,user,os,psbN,\n"
		"        mtcfN,cyctN\n");
	exit(2);
}

static void parse_cfg(struct ptgen_cfg *cfg, char *list)
{
	char *tok, *save = NULL;

	memset(cfg, 0, sizeof(*cfg));
	for (tok = strtok_r(list, ",", &save); tok; tok = strtok_r(NULL, ",", &save)) {
		if (!strcmp(tok, "branch"))
			cfg->branch = true;
		else if (!strcmp(tok, "tsc"))
			cfg->tsc = true;
		else if (!strcmp(tok, "mtc"))
			cfg->mtc = true;
		else if (!strcmp(tok, "cyc"))
			cfg->cyc = true;
		else if (!strcmp(tok, "ptw"))
			cfg->ptw = true;
		else if (!strcmp(tok, "fupptw"))
			cfg->fup_on_ptw = true;
		else if (!strcmp(tok, "pwr"))
			cfg->pwr_evt = true;
		else if (!strcmp(tok, "user"))
			cfg->user = true;
		else if (!strcmp(tok, "os"))
			cfg->os = true;
		else if (!strncmp(tok, "psb", 3))
			cfg->psb_freq = (unsigned int)atoi(tok + 3);
		else if (!strncmp(tok, "mtcf", 4))
			cfg->mtc_freq = (unsigned int)atoi(tok + 4);
		else if (!strncmp(tok, "cyct", 4))
			cfg->cyc_thresh = (unsigned int)atoi(tok + 4);
		else
			usage();
	}
}

/* The driver's canonical config string for cfg, keys rotated by rot. */
static char *canonical(const struct ptgen_cfg *c, unsigned int rot, const char *claim)
{
	char kv[18][32], *out;
	unsigned int i, n = 0;
	size_t len = 0;

	snprintf(kv[n++], 32, "branch=%d", c->branch);
	snprintf(kv[n++], 32, "user=%d", c->user);
	snprintf(kv[n++], 32, "kernel=%d", c->os);
	snprintf(kv[n++], 32, "tsc=%d", c->tsc);
	snprintf(kv[n++], 32, "mtc=%d", c->mtc);
	snprintf(kv[n++], 32, "mtc_period=%u", c->mtc_freq);
	snprintf(kv[n++], 32, "cyc=%d", c->cyc);
	snprintf(kv[n++], 32, "cyc_thresh=%u", c->cyc_thresh);
	snprintf(kv[n++], 32, "psb_period=%u", c->psb_freq);
	snprintf(kv[n++], 32, "noretcomp=%d", c->noretcomp);
	snprintf(kv[n++], 32, "ptw=%d", c->ptw);
	snprintf(kv[n++], 32, "fup_on_ptw=%d", c->fup_on_ptw);
	snprintf(kv[n++], 32, "pwr_evt=%d", c->pwr_evt);
	snprintf(kv[n++], 32, "cr3=off");
	for (i = 0; i < 4; i++)
		snprintf(kv[n++], 32, "addr%u=off", i);
	out = malloc(n * 32 + strlen(claim) + 2);
	if (!out) {
		perror("malloc");
		exit(2);
	}
	for (i = 0; i < n; i++)
		len += sprintf(out + len, "%s%s", i ? "," : "", kv[(i + rot) % n]);
	if (*claim)
		sprintf(out + len, ",%s", claim);
	return out;
}

static long new_cfgline(uint64_t gen, char *line)
{
	if (ncfglines == MAX_REGIONS + 1)
		exit(2);
	cfggens[ncfglines] = gen;
	cfglines[ncfglines] = line;
	return ncfglines++;
}

static FILE *open_in(const char *dir, const char *name)
{
	char path[4096];
	FILE *f;

	snprintf(path, sizeof(path), "%s/%s", dir, name);
	f = fopen(path, "w");
	if (!f) {
		fprintf(stderr, "ptgen_capture: %s: %s\n", path, strerror(errno));
		exit(2);
	}
	return f;
}

int main(int argc, char **argv)
{
	char cfgdef[] = "branch,tsc,mtc,cyc,ptw,fupptw,pwr,user,os";
	struct ptgen_cfg cfg;
	struct ptgen g;
	uint8_t grp[PTGEN_MAX_GROUP];
	unsigned int segments = 2, steps = 3000, span_size = 4096, dropped_steps = 5;
	unsigned int seed = 1, ring = 16384, snapshots = 3, nr, len, seg, i;
	long flip = -1, flip_ptw = -1, dup_span = -1, drop_span = -1, dropped_delta = 0;
	bool snapshot = false, no_trunc = false, no_emu = false, unknown_first = false;
	struct region reg[MAX_REGIONS];
	unsigned int nreg = 0;
	long trunc_region = -1, config_mid = -1, ptw_jump = -1;
	uint64_t ptw_start, dropped = 0, pending = 0, restarts = 0;
	const char *dir;
	FILE *f;
	int a;

	parse_cfg(&cfg, cfgdef);
	memset(reg, 0, sizeof(reg));
	for (a = 1; a < argc - 1; a++) {
		const char *o = argv[a];

		if (!strcmp(o, "--snapshot")) {
			snapshot = true;
			continue;
		}
		if (!strcmp(o, "--no-trunc-flag")) {
			no_trunc = true;
			continue;
		}
		if (!strcmp(o, "--no-emu")) {
			no_emu = true;
			continue;
		}
		if (!strcmp(o, "--unknown-first")) {
			unknown_first = true;
			continue;
		}
		if (!strcmp(o, "--claim")) {
			long r;

			if (a + 2 >= argc - 1)
				usage();
			r = atol(argv[++a]);
			if (r < 0 || r >= MAX_REGIONS)
				usage();
			snprintf(reg[r].claim, sizeof(reg[r].claim), "%s", argv[++a]);
			continue;
		}
		if (a + 1 >= argc - 1)
			usage();
		if (!strcmp(o, "--segments"))
			segments = (unsigned int)atoi(argv[++a]);
		else if (!strcmp(o, "--steps"))
			steps = (unsigned int)atoi(argv[++a]);
		else if (!strcmp(o, "--span"))
			span_size = (unsigned int)atoi(argv[++a]);
		else if (!strcmp(o, "--dropped-steps"))
			dropped_steps = (unsigned int)atoi(argv[++a]);
		else if (!strcmp(o, "--seed"))
			seed = (unsigned int)atoi(argv[++a]);
		else if (!strcmp(o, "--cfg"))
			parse_cfg(&cfg, argv[++a]);
		else if (!strcmp(o, "--ring"))
			ring = (unsigned int)atoi(argv[++a]);
		else if (!strcmp(o, "--snapshots"))
			snapshots = (unsigned int)atoi(argv[++a]);
		else if (!strcmp(o, "--flip"))
			flip = atol(argv[++a]);
		else if (!strcmp(o, "--flip-ptw"))
			flip_ptw = atol(argv[++a]);
		else if (!strcmp(o, "--dup-span"))
			dup_span = atol(argv[++a]);
		else if (!strcmp(o, "--drop-span"))
			drop_span = atol(argv[++a]);
		else if (!strcmp(o, "--dropped-delta"))
			dropped_delta = atol(argv[++a]);
		else if (!strcmp(o, "--region")) {
			char *st_arg = strchr(argv[++a], ':');

			if (nreg == MAX_REGIONS)
				usage();
			reg[nreg].steps = 0;
			if (st_arg) {
				*st_arg = 0;
				reg[nreg].steps = (unsigned int)atoi(st_arg + 1);
			}
			parse_cfg(&reg[nreg].cfg, argv[a]);
			nreg++;
		} else if (!strcmp(o, "--trunc-region"))
			trunc_region = atol(argv[++a]);
		else if (!strcmp(o, "--config-mid"))
			config_mid = atol(argv[++a]);
		else if (!strcmp(o, "--ptw-jump"))
			ptw_jump = atol(argv[++a]);
		else
			usage();
	}
	if (a != argc - 1 || !segments || !span_size || !ring || !snapshots)
		usage();
	dir = argv[argc - 1];
	if (mkdir(dir, 0755) && errno != EEXIST) {
		fprintf(stderr, "ptgen_capture: %s: %s\n", dir, strerror(errno));
		return 2;
	}

	ptgen_init(&g, &cfg, 1000ULL * seed + 17, 0x10000ULL * seed);
	g.rng ^= seed * 2654435761u;
	if (!g.rng)
		g.rng = 1;
	ptw_start = g.ptw_seq;

	if (nreg) {
		/* config regions */
		for (seg = 0; seg < nreg; seg++) {
			bool trunc = (long)seg == trunc_region;
			unsigned int nsteps = reg[seg].steps ? reg[seg].steps : steps;

			if (seg || !unknown_first)
				pending_cfg = new_cfgline(3 + seg, canonical(&reg[seg].cfg, seg * 5,
									     reg[seg].claim));
			/* TraceEn 0->1 with the new CTL: the emulator re-inits */
			ptgen_init(&g, &reg[seg].cfg, g.ptw_seq, g.tsc + 4096 + seg);
			g.rng ^= seed * 2654435761u;
			if (!g.rng)
				g.rng = 1;
			if ((long)seg == ptw_jump) {
				g.ptw_seq++;
				dropped++;
			}
			if (seg)
				restarts++;
			append(grp, ptgen_start(&g, grp));
			for (i = 0; i < nsteps; i++) {
				size_t at = st_len;
				unsigned int kept;

				len = ptgen_step(&g, grp, &nr);
				kept = len;
				if (trunc && i == nsteps - 1)
					kept = ptgen_rand(&g) % (len + 1);
				append(grp, kept);
				note_ptw(&g, nr, at, kept);
				if (nr && kept < g.last_ptw_end)
					dropped++;
				while (st_len - pending >= span_size) {
					uint64_t sz = (ptgen_rand(&g) & 7) ? span_size : span_size / 3 + 1;

					add_span(pending, sz, sz == span_size ? 0 : 4);
					pending += sz;
				}
			}
			if (trunc) {
				add_span(pending, st_len - pending, 1);
				pending = st_len;
				for (i = 0; i < dropped_steps; i++) {
					ptgen_step(&g, grp, &nr);
					dropped += nr;
				}
				ptgen_stop(&g, grp);
				continue;
			}
			append(grp, ptgen_stop(&g, grp));
			add_span(pending, st_len - pending, 4);
			pending = st_len;
		}
		if (config_mid >= 0 && (size_t)config_mid < nspans && spans[config_mid].cfg < 0) {
			long j;

			/* the settings of the region the span is in, again */
			for (j = config_mid; j >= 0 && spans[j].cfg < 0; j--)
				;
			if (j >= 0)
				spans[config_mid].cfg = new_cfgline(100, strdup(cfglines[spans[j].cfg]));
		}
	} else if (snapshot) {
		uint64_t last_snap = 0;
		unsigned int every = steps / snapshots ? steps / snapshots : 1;

		append(grp, ptgen_start(&g, grp));
		for (i = 1; i <= steps; i++) {
			size_t at = st_len;

			len = ptgen_step(&g, grp, &nr);
			append(grp, len);
			note_ptw(&g, nr, at, len);
			if (i % every == 0 || i == steps) {
				uint64_t from = last_snap, flags = 0;

				if (i == steps)
					append(grp, ptgen_stop(&g, grp));
				if (st_len - from > ring) {
					from = st_len - ring;
					flags = 2;	/* OVERWRITE */
				}
				add_span(from, st_len - from, flags);
				last_snap = st_len;
			}
		}
		fclose(open_in(dir, "snapshot"));
	} else {
		for (seg = 0; seg < segments; seg++) {
			bool last = seg == segments - 1;

			append(grp, ptgen_start(&g, grp));
			if (seg)
				restarts++;
			for (i = 0; i < steps; i++) {
				size_t at = st_len;
				unsigned int kept;

				len = ptgen_step(&g, grp, &nr);
				kept = len;
				if (!last && i == steps - 1)
					kept = ptgen_rand(&g) % (len + 1);
				append(grp, kept);
				note_ptw(&g, nr, at, kept);
				if (nr && kept < g.last_ptw_end)
					dropped++;
				while (st_len - pending >= span_size) {
					/* now and then a short (PARTIAL) span, e.g. a wakeup */
					uint64_t sz = (ptgen_rand(&g) & 7) ? span_size : span_size / 3 + 1;

					add_span(pending, sz, sz == span_size ? 0 : 4);
					pending += sz;
				}
			}
			if (last) {
				append(grp, ptgen_stop(&g, grp));
				add_span(pending, st_len - pending, 4);
				pending = st_len;
				break;
			}
			/* output stopped: the rest of the group and what follows is lost */
			add_span(pending, st_len - pending, no_trunc ? 0 : 1);
			pending = st_len;
			for (i = 0; i < dropped_steps; i++) {
				ptgen_step(&g, grp, &nr);
				dropped += nr;
			}
			ptgen_stop(&g, grp);
		}
	}

	if (flip >= 0 && (size_t)flip < st_len)
		st[flip] ^= 0xff;
	if (flip_ptw >= 0 && (size_t)flip_ptw < nptw)
		st[ptw_pos[flip_ptw]] ^= 1;

	f = open_in(dir, "aux.bin");
	for (i = 0; i < nspans; i++) {
		if ((long)i == drop_span)
			continue;
		fwrite(st + spans[i].start, 1, spans[i].size, f);
		if ((long)i == dup_span)
			fwrite(st + spans[i].start, 1, spans[i].size, f);
	}
	if (fclose(f))
		return 2;
	f = open_in(dir, "spans.txt");
	for (i = 0; i < nspans; i++) {
		if ((long)i == drop_span)
			continue;
		if (spans[i].cfg >= 0)
			fprintf(f, "config %llu %s\n", (unsigned long long)cfggens[spans[i].cfg],
				cfglines[spans[i].cfg]);
		fprintf(f, "span %llu %llu %llu\n", (unsigned long long)spans[i].start,
			(unsigned long long)spans[i].size, (unsigned long long)spans[i].flags);
		if ((long)i == dup_span)
			fprintf(f, "span %llu %llu %llu\n", (unsigned long long)spans[i].start,
				(unsigned long long)spans[i].size,
				(unsigned long long)spans[i].flags);
	}
	if (fclose(f))
		return 2;
	if (!no_emu) {
		f = open_in(dir, "emu.txt");
		fprintf(f, "ptw_start %llu\nptw_end %llu\nptw_dropped %llu\nrestarts %llu\n",
			(unsigned long long)ptw_start, (unsigned long long)g.ptw_seq,
			(unsigned long long)(dropped + dropped_delta),
			(unsigned long long)restarts);
		if (fclose(f))
			return 2;
	}
	return 0;
}
