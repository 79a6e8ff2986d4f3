// SPDX-License-Identifier: GPL-2.0
/*
 * The CoreSight emulator's ETMv4 generator and TMC formatter
 * (tests/modules/csemu_gen.h), checked natively:
 *
 *   csgen CSCHECK TMPDIR
 *
 * 1. Without a decoder: the same seed and calls give the same bytes;
 *    csgen_start/stop/step stay within their buffer sizes (guard bytes
 *    after max are never touched); the formatter's frames, unpacked by an
 *    independent deformatter (IHI0029 D4), give back every source's bytes,
 *    with pad frames and flushes anywhere; csgen_marker round-trips.
 * 2. With OpenCSD: captures of 1..4 sources under many configurations
 *    (every TRCCONFIGR option, EL and address range filters, sync periods,
 *    ID register variants), with config changes, ETM restarts, lost data
 *    (truncated, gap, overwrite breaks) and a wrapped start, are written as
 *    'tracebuf export --opencsd' output (segments file + one OpenCSD
 *    snapshot per segment, by userspace/tools/opencsd.c) and checked by
 *    CSCHECK (tests/host/cscheck.c, which runs the stock trc_pkt_lister):
 *    accepted, with every generated block accounted for (decoded, or lost
 *    with the data, or skipped by a resync), from sequence number 0, and
 *    only in the regions the filters let through.
 * 3. The checker must reject: frames cut out or duplicated, bytes
 *    corrupted, a gap at a break that loses nothing (or, with --no-resync,
 *    at a restart where other sources ran on), blocks replayed after a
 *    truncated break, --expect-gap without a gap, a missing ID, too few
 *    blocks, a wrong segment size, a synchronised source's last packet
 *    cut short at the end of the capture (but not unsynchronised bytes
 *    there that end in 0x00 0x00).
 */
#include <stdarg.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <fcntl.h>
#include <unistd.h>

#include "csemu_gen.h"
#include "opencsd.h"
#include "check.h"

#define MAX_SRC		4
#define MAX_SEG		16
#define GUARD		64

static const char *cscheck;
static const char *tmpdir;

static uint32_t trand_state = 12345;

static uint32_t trand(void)
{
	uint32_t x = trand_state;

	x ^= x << 13;
	x ^= x >> 17;
	x ^= x << 5;
	trand_state = x;
	return x;
}

static void *xrealloc(void *p, size_t n)
{
	p = realloc(p, n ? n : 1);
	if (!p) {
		perror("realloc");
		exit(2);
	}
	return p;
}

/* ---- configurations ---- */

#define ALL_OPTS	(CSGEN_CONFIGR_BB | CSGEN_CONFIGR_CCI | CSGEN_CONFIGR_CID | \
			 CSGEN_CONFIGR_VMID | CSGEN_CONFIGR_TS | CSGEN_CONFIGR_RS)
#define R_USER		(1u << CSGEN_REGION_USER)
#define R_ULIB		(1u << CSGEN_REGION_ULIB)
#define R_KERN		(1u << CSGEN_REGION_KERN)
#define R_KMOD		(1u << CSGEN_REGION_KMOD)
#define R_ALL		(R_USER | R_ULIB | R_KERN | R_KMOD)

enum {
	C_PLAIN, C_CCI, C_TS, C_CTX, C_RS, C_BB, C_ALL_SYNC8, C_NO_EL0,
	C_NO_EL1, C_INCL, C_EXCL, C_NOSYNC, C_ALL_SYNC20, C_IDR_VARIANT,
	C_NOTHING, C_NR
};

static const char *const cfg_names[C_NR] = {
	"plain", "cci", "ts", "cid+vmid", "rs", "bb", "all,sync8", "no-el0",
	"no-el1", "include user+kernel", "exclude ulib", "no-sync",
	"all,sync20,cc-thresh-4095", "ts48,vmid8,cc20", "nothing",
};

static void region_range(struct csgen_cfg *c, unsigned int pair, unsigned int r)
{
	c->acvr[2 * pair] = csgen_region_base(r);
	c->acvr[2 * pair + 1] = csgen_region_base(r) + CSGEN_REGION_SIZE - 4;
}

/* Configuration k; *regions: the regions it traces. */
static void make_cfg(unsigned int k, struct csgen_cfg *c, uint32_t *regions)
{
	csgen_cfg_default(c);
	c->contextid = 0x100 + k;
	c->vmid = 7 + k;
	c->ccctlr = 4;
	*regions = R_ALL;
	switch (k) {
	case C_PLAIN:
		break;
	case C_CCI:
		c->configr = CSGEN_CONFIGR_CCI;
		c->ccctlr = 0x20;
		break;
	case C_TS:
		c->configr = CSGEN_CONFIGR_TS;
		c->tsctlr = 0x4;
		c->ts_interval = 700;
		break;
	case C_CTX:
		c->configr = CSGEN_CONFIGR_CID | CSGEN_CONFIGR_VMID;
		break;
	case C_RS:
		c->configr = CSGEN_CONFIGR_RS;
		break;
	case C_BB:
		c->configr = CSGEN_CONFIGR_BB;
		break;
	case C_ALL_SYNC8:
		c->configr = ALL_OPTS;
		c->syncpr = 8;
		c->tsctlr = 1;
		c->ts_interval = 100;
		break;
	case C_NO_EL0:
		c->configr = CSGEN_CONFIGR_TS | CSGEN_CONFIGR_CID;
		c->victlr = CSGEN_VICTLR_EXCL_EL0;
		*regions = R_KERN | R_KMOD;
		break;
	case C_NO_EL1:
		c->configr = CSGEN_CONFIGR_CCI | CSGEN_CONFIGR_RS;
		c->victlr = CSGEN_VICTLR_EXCL_EL1;
		*regions = R_USER | R_ULIB;
		break;
	case C_INCL:
		c->configr = CSGEN_CONFIGR_CID;
		region_range(c, 0, CSGEN_REGION_USER);
		region_range(c, 3, CSGEN_REGION_KERN);
		c->viiectlr = 0x9;
		*regions = R_USER | R_KERN;
		break;
	case C_EXCL:
		c->configr = CSGEN_CONFIGR_BB | CSGEN_CONFIGR_TS;
		region_range(c, 1, CSGEN_REGION_ULIB);
		c->viiectlr = 0x2 << CSGEN_VIIECTLR_EXCL_SHIFT;
		*regions = R_USER | R_KERN | R_KMOD;
		break;
	case C_NOSYNC:
		c->configr = CSGEN_CONFIGR_CCI | CSGEN_CONFIGR_CID;
		c->syncpr = 0;
		break;
	case C_ALL_SYNC20:
		c->configr = ALL_OPTS;
		c->syncpr = 20;
		c->ccctlr = 0xfff;
		c->tsctlr = 1;
		c->ts_interval = 5000;
		break;
	case C_IDR_VARIANT:
		/* 48-bit timestamps, 8-bit VMID, 20-bit cycle counter */
		c->configr = ALL_OPTS;
		c->trcidr0 = (CSGEN_IDR0 & ~0x1f000000u) | 0x06000000u;
		c->trcidr2 = (CSGEN_IDR2 & ~(0x1fu << 10 | 0xfu << 25)) |
			     1u << 10 | 8u << 25;
		c->tsctlr = 1;
		c->ts_interval = 300;
		c->syncpr = 9;
		break;
	case C_NOTHING:
		c->configr = ALL_OPTS;
		c->victlr = CSGEN_VICTLR_EXCL_EL0 | CSGEN_VICTLR_EXCL_EL1;
		*regions = 0;
		break;
	}
}

/* ---- captures: sources, one formatter, segments ---- */

struct src {
	struct csgen g;
	struct csgen_cfg cfg;
	uint32_t regions;
	unsigned int cfgk;	/* make_cfg()'s k */
	uint8_t id;
};

struct seg {
	size_t start;
	const char *brk;
	uint64_t lost;
	uint32_t configr[MAX_SRC], idr0[MAX_SRC], idr2[MAX_SRC];
};

struct cap {
	struct src src[MAX_SRC];
	unsigned int nsrc;
	struct csfmt fmt;
	uint8_t *buf;
	size_t len, cap;
	bool discard;		/* the sink overran: frames are lost */
	uint64_t discarded;
	struct seg segs[MAX_SEG];
	unsigned int nseg;
	const char *size_override;	/* a wrong size= for segment 0 */
};

static const uint8_t default_ids[MAX_SRC] = { 0x10, 0x12, 0x14, 0x16 };

static void out_frames(struct cap *c, const uint8_t *frames, size_t n)
{
	if (c->discard) {
		c->discarded += n;
		return;
	}
	if (c->len + n > c->cap) {
		c->cap = (c->len + n) * 2;
		c->buf = xrealloc(c->buf, c->cap);
	}
	memcpy(c->buf + c->len, frames, n);
	c->len += n;
}

static void emit(struct cap *c, unsigned int i, const uint8_t *data, size_t n)
{
	uint8_t frames[CSFMT_OUT_MAX(4096)];
	size_t k;

	if (n > 4096) {
		fprintf(stderr, "emit: %zu bytes\n", n);
		exit(2);
	}
	k = csfmt_push(&c->fmt, c->src[i].id, data, n, frames);
	CHECK(k % CSFMT_FRAME_SIZE == 0);
	CHECK(k <= CSFMT_OUT_MAX(n));
	out_frames(c, frames, k);
}

static void cap_flush(struct cap *c)
{
	uint8_t frame[CSFMT_FRAME_SIZE];
	size_t k = csfmt_flush(&c->fmt, frame);

	CHECK(k == 0 || k == CSFMT_FRAME_SIZE);
	out_frames(c, frame, k);
}

static void src_start(struct cap *c, unsigned int i)
{
	uint8_t buf[CSGEN_START_MAX + GUARD];
	size_t n;

	memset(buf, 0xa5, sizeof(buf));
	n = csgen_start(&c->src[i].g, &c->src[i].cfg, buf, CSGEN_START_MAX);
	CHECK(n > 0 && n <= CSGEN_START_MAX);
	CHECK(buf[CSGEN_START_MAX] == 0xa5);
	emit(c, i, buf, n);
}

static void src_stop(struct cap *c, unsigned int i)
{
	uint8_t buf[CSGEN_START_MAX];
	size_t n = csgen_stop(&c->src[i].g, buf, sizeof(buf));

	CHECK(n <= CSGEN_START_MAX);
	emit(c, i, buf, n);
}

static void seg_begin(struct cap *c, const char *brk, uint64_t lost)
{
	struct seg *s = &c->segs[c->nseg++];
	unsigned int i;

	if (c->nseg > MAX_SEG) {
		fprintf(stderr, "too many segments\n");
		exit(2);
	}
	s->start = c->len;
	s->brk = brk;
	s->lost = lost;
	for (i = 0; i < c->nsrc; i++) {
		s->configr[i] = c->src[i].cfg.configr;
		s->idr0[i] = c->src[i].cfg.trcidr0;
		s->idr2[i] = c->src[i].cfg.trcidr2;
	}
}

/*
 * A capture of nsrc sources with configurations cfg[], started (unless
 * wrapped: then the first frames are lost, as in a wrapped ring).
 */
static void cap_init(struct cap *c, unsigned int nsrc, const unsigned int *cfg,
		     uint32_t seed, const uint8_t *idlist, bool wrapped)
{
	unsigned int i;

	memset(c, 0, sizeof(*c));
	c->nsrc = nsrc;
	csfmt_init(&c->fmt);
	c->discard = wrapped;
	for (i = 0; i < nsrc; i++) {
		struct src *s = &c->src[i];

		s->id = (idlist ? idlist : default_ids)[i];
		make_cfg(cfg[i], &s->cfg, &s->regions);
		s->cfgk = cfg[i];
		csgen_init(&s->g, seed, i);
	}
	if (!wrapped)
		seg_begin(c, "start", 0);
	for (i = 0; i < nsrc; i++)
		src_start(c, i);
}

/* rounds of every source running, in random order, random step sizes */
static void cap_steps(struct cap *c, unsigned int rounds)
{
	uint8_t buf[4 * CSGEN_STEP_MIN + GUARD];
	unsigned int r, k, i, order[MAX_SRC];
	size_t max, n;

	for (r = 0; r < rounds; r++) {
		for (i = 0; i < c->nsrc; i++)
			order[i] = i;
		for (i = c->nsrc; i > 1; i--) {
			unsigned int j = trand() % i, t = order[i - 1];

			order[i - 1] = order[j];
			order[j] = t;
		}
		for (k = 0; k < c->nsrc; k++) {
			i = order[k];
			max = CSGEN_STEP_MIN + trand() % (3 * CSGEN_STEP_MIN);
			memset(buf + max, 0x5a, GUARD);
			n = csgen_step(&c->src[i].g, buf, max);
			CHECK(n <= max);
			CHECK(buf[max] == 0x5a && buf[max + GUARD - 1] == 0x5a);
			emit(c, i, buf, n);
		}
	}
}

static void cap_stop_all(struct cap *c)
{
	unsigned int i;

	for (i = 0; i < c->nsrc; i++)
		src_stop(c, i);
	cap_flush(c);
}

/* Every ETM reprogrammed (cfg[] new), as tracebuf's restart path does. */
static void cap_reconfig(struct cap *c, const unsigned int *cfg)
{
	unsigned int i;

	cap_stop_all(c);
	for (i = 0; i < c->nsrc; i++) {
		make_cfg(cfg[i], &c->src[i].cfg, &c->src[i].regions);
		c->src[i].cfgk = cfg[i];
	}
	seg_begin(c, "config", 0);
	for (i = 0; i < c->nsrc; i++)
		src_start(c, i);
}

/* One ETM stops and starts again (CPU hotplug); the others run on. */
static void cap_restart(struct cap *c, unsigned int i, bool flush)
{
	src_stop(c, i);
	if (flush)
		cap_flush(c);
	seg_begin(c, "restart", 0);
	src_start(c, i);
}

/* The sink overruns for rounds: what the sources wrote is lost. */
static void cap_lose(struct cap *c, unsigned int rounds, const char *brk)
{
	uint64_t before = c->discarded;

	c->discard = true;
	cap_steps(c, rounds);
	c->discard = false;
	seg_begin(c, brk, c->discarded - before);
}

static void cap_free(struct cap *c)
{
	free(c->buf);
	c->buf = NULL;
}

/* Write DIR/segments and DIR/segNNN as 'tracebuf export --opencsd' does. */
static void cap_write(struct cap *c, const char *dir)
{
	char path[4096], sub[4200], msg[256], cmd[4300];
	unsigned int k, i;
	FILE *f;

	snprintf(cmd, sizeof(cmd), "rm -rf '%s'", dir);
	if (system(cmd) != 0 || mkdir(dir, 0777) < 0) {
		fprintf(stderr, "cannot create %s\n", dir);
		exit(2);
	}
	snprintf(path, sizeof(path), "%s/segments", dir);
	f = fopen(path, "w");
	if (!f) {
		perror(path);
		exit(2);
	}
	for (k = 0; k < c->nseg; k++) {
		const struct seg *s = &c->segs[k];
		size_t end = k + 1 < c->nseg ? c->segs[k + 1].start : c->len;
		size_t len = end - s->start;
		struct ocsd_etm_regs regs[MAX_SRC];
		char name[16], size[32];

		memset(regs, 0, sizeof(regs));
		for (i = 0; i < c->nsrc; i++) {
			regs[i].cpu = i;
			regs[i].trace_id = c->src[i].id;
			regs[i].trctraceidr = c->src[i].id;
			regs[i].trcconfigr = s->configr[i];
			regs[i].trcidr[0] = s->idr0[i];
			regs[i].trcidr[1] = CSGEN_IDR1;
			regs[i].trcidr[2] = s->idr2[i];
			regs[i].trcidr[3] = CSGEN_IDR3;
			regs[i].trcidr[4] = CSGEN_IDR4;
			regs[i].trcidr[5] = CSGEN_IDR5;
			regs[i].trcauthstatus = CSGEN_AUTHSTATUS;
		}
		snprintf(name, sizeof(name), "seg%03u", k);
		snprintf(size, sizeof(size), "%zu", len);
		if (k == 0 && c->size_override)
			snprintf(size, sizeof(size), "%s", c->size_override);
		if (len) {
			snprintf(sub, sizeof(sub), "%s/%s", dir, name);
			if (ocsd_write_snapshot(sub, regs, c->nsrc, c->buf + s->start,
						len, msg, sizeof(msg))) {
				fprintf(stderr, "ocsd_write_snapshot: %s\n", msg);
				exit(2);
			}
		}
		fprintf(f, "segment index=%u dir=%s offset=0x%zx size=%s break=%s lost=%llu atleast=0 ids=",
			k, len ? name : "-", s->start, size, s->brk,
			(unsigned long long)s->lost);
		for (i = 0; i < c->nsrc; i++)
			fprintf(f, "%s0x%02x", i ? "," : "", c->src[i].id);
		fprintf(f, "\n");
	}
	fclose(f);
}

/* Frame-aligned surgery on the formatted bytes. */
static void cap_cut(struct cap *c, size_t off, size_t len)
{
	unsigned int k;

	memmove(c->buf + off, c->buf + off + len, c->len - off - len);
	c->len -= len;
	for (k = 0; k < c->nseg; k++)
		if (c->segs[k].start > off)
			c->segs[k].start -= len;
}

/* Insert a copy of [from, from + len) at at. */
static void cap_dup(struct cap *c, size_t from, size_t len, size_t at)
{
	unsigned int k;

	if (c->len + len > c->cap) {
		c->cap = c->len + len;
		c->buf = xrealloc(c->buf, c->cap);
	}
	memmove(c->buf + at + len, c->buf + at, c->len - at);
	memmove(c->buf + at, c->buf + from + (from >= at ? len : 0), len);
	c->len += len;
	for (k = 0; k < c->nseg; k++)
		if (c->segs[k].start > at)
			c->segs[k].start += len;
}

/* ---- running cscheck ---- */

struct idsum {
	bool present;
	unsigned long long blocks, gaps, lost, resyncs, skipped;
	unsigned int first, last;
	bool has_seq;
	unsigned long long regions[CSGEN_NR_REGIONS];
};

struct result {
	int rc;
	char *out;
	struct idsum id[128];
};

static void parse_summary(struct result *res)
{
	char *line = res->out, *nl;

	while (line && *line) {
		unsigned int id, n = 0;
		struct idsum s = { .present = true };

		nl = strchr(line, '\n');
		if (nl)
			*nl = '\0';
		if (sscanf(line, "id 0x%x: %llu blocks, seq %u..%u, %n", &id,
			   &s.blocks, &s.first, &s.last, &n) == 4 && n) {
			s.has_seq = true;
		} else if (sscanf(line, "id 0x%x: %llu blocks, %n", &id,
				  &s.blocks, &n) != 2 || !n) {
			n = 0;
		}
		if (n && id < 128 &&
		    sscanf(line + n, "%llu gaps (%llu blocks lost), %llu resyncs (%llu skipped); user %llu ulib %llu kernel %llu kmod %llu",
			   &s.gaps, &s.lost, &s.resyncs, &s.skipped, &s.regions[0],
			   &s.regions[1], &s.regions[2], &s.regions[3]) == 8)
			res->id[id] = s;
		if (nl)
			*nl = '\n';
		line = nl ? nl + 1 : NULL;
	}
}

/* Run cscheck ARGS... DIR; NULL-terminated args. */
static void run_cscheck(struct result *res, const char *dir, ...)
{
	const char *argv[32];
	char outpath[4200];
	unsigned int n = 0;
	struct stat st;
	va_list ap;
	int fd, status;
	pid_t pid;

	memset(res, 0, sizeof(*res));
	argv[n++] = cscheck;
	va_start(ap, dir);
	while (n < 30 && (argv[n] = va_arg(ap, const char *)))
		n++;
	va_end(ap);
	argv[n++] = dir;
	argv[n] = NULL;
	snprintf(outpath, sizeof(outpath), "%s.out", dir);
	fd = open(outpath, O_WRONLY | O_CREAT | O_TRUNC, 0666);
	if (fd < 0) {
		perror(outpath);
		exit(2);
	}
	pid = fork();
	if (pid == 0) {
		dup2(fd, 1);
		dup2(fd, 2);
		execv(cscheck, (char *const *)argv);
		perror(cscheck);
		_exit(127);
	}
	close(fd);
	if (pid < 0 || waitpid(pid, &status, 0) < 0) {
		perror("cscheck");
		exit(2);
	}
	res->rc = WIFEXITED(status) ? WEXITSTATUS(status) : 128;
	fd = open(outpath, O_RDONLY);
	if (fd < 0 || fstat(fd, &st) < 0) {
		perror(outpath);
		exit(2);
	}
	res->out = xrealloc(NULL, (size_t)st.st_size + 1);
	if (read(fd, res->out, (size_t)st.st_size) != st.st_size) {
		perror(outpath);
		exit(2);
	}
	res->out[st.st_size] = '\0';
	close(fd);
	parse_summary(res);
}

static void show(const char *name, const struct result *res)
{
	char *line = res->out, *nl;

	fprintf(stderr, "  %s: cscheck said (exit %d):\n", name, res->rc);
	while (line && *line) {
		nl = strchr(line, '\n');
		fprintf(stderr, "    %.*s\n", nl ? (int)(nl - line) : (int)strlen(line),
			line);
		line = nl ? nl + 1 : NULL;
	}
}

static void ids_arg(const struct cap *c, char *buf, size_t len, bool all)
{
	unsigned int i;
	size_t n = 0;

	buf[0] = '\0';
	for (i = 0; i < c->nsrc; i++)
		if (all || c->src[i].g.blocks)
			n += snprintf(buf + n, len - n, "%s0x%02x", n ? "," : "",
				      c->src[i].id);
}

enum { LOSSLESS = 1, LOSSY = 2, RESYNCS = 4, WRAPPED = 8 };

/*
 * Write c, expect cscheck to accept it, and every source's blocks to be
 * accounted for: decoded, lost (only if LOSSY) or skipped at a resync
 * (only if RESYNCS); all of them from 0 unless WRAPPED; regions as the
 * configuration traces (checked if it did not change).
 */
static void expect_accept(struct cap *c, const char *name, unsigned int how,
			  bool check_regions, const char *extra)
{
	char dir[4096], ids[128];
	struct result res;
	unsigned int i, r;
	bool bad = false;

	snprintf(dir, sizeof(dir), "%s/%s", tmpdir, name);
	cap_write(c, dir);
	ids_arg(c, ids, sizeof(ids), false);
	if (extra)
		run_cscheck(&res, dir, "--ids", ids, "--min-blocks", "10", extra,
			    NULL);
	else
		run_cscheck(&res, dir, "--ids", ids, "--min-blocks", "10", NULL);
	if (res.rc != 0) {
		fprintf(stderr, "%s: rejected\n", name);
		bad = true;
	}
	for (i = 0; i < c->nsrc && !bad; i++) {
		const struct src *s = &c->src[i];
		const struct idsum *d = &res.id[s->id];
		unsigned long long gen = s->g.blocks;

		if (!gen) {
			if (d->blocks) {
				fprintf(stderr, "%s: ID 0x%02x: blocks decoded, none generated\n",
					name, s->id);
				bad = true;
			}
			continue;
		}
		if (!d->present || !d->has_seq) {
			fprintf(stderr, "%s: ID 0x%02x: no summary\n", name, s->id);
			bad = true;
			continue;
		}
		if (d->last != (s->g.seq - 1) ||
		    (!(how & WRAPPED) && d->first != 0) ||
		    d->first + d->blocks + d->lost + d->skipped + (gen - 1 - d->last) != gen ||
		    (!(how & LOSSY) && (d->gaps || d->lost)) ||
		    (!(how & RESYNCS) && (d->resyncs || d->skipped))) {
			fprintf(stderr, "%s: ID 0x%02x (%s): %llu generated, seq 0..%u; decoded %llu, seq %u..%u, %llu lost, %llu skipped\n",
				name, s->id, cfg_names[s->cfgk], gen, s->g.seq - 1,
				d->blocks, d->first, d->last, d->lost, d->skipped);
			bad = true;
		}
		for (r = 0; check_regions && r < CSGEN_NR_REGIONS; r++) {
			if (!!d->regions[r] != !!(s->regions & (1u << r))) {
				fprintf(stderr, "%s: ID 0x%02x (%s): %llu blocks in region %u\n",
					name, s->id, cfg_names[s->cfgk], d->regions[r], r);
				bad = true;
			}
		}
	}
	if (bad) {
		check_failures++;
		show(name, &res);
	}
	free(res.out);
}

/* Write c, expect cscheck to reject it, saying want (if not NULL). */
static void expect_reject(struct cap *c, const char *name, const char *want,
			  const char *arg1, const char *arg2)
{
	char dir[4096], ids[128];
	struct result res;

	snprintf(dir, sizeof(dir), "%s/%s", tmpdir, name);
	cap_write(c, dir);
	ids_arg(c, ids, sizeof(ids), false);
	run_cscheck(&res, dir, "--ids", ids, arg1, arg2, NULL);
	if (res.rc != 1 || (want && !strstr(res.out, want))) {
		fprintf(stderr, "%s: not rejected with \"%s\"\n", name,
			want ? want : "");
		check_failures++;
		show(name, &res);
	}
	free(res.out);
}

/* ---- 1. without a decoder ---- */

/* Unpack frames the way IHI0029 D4 describes; append data per ID. */
struct defmt {
	int cur;
	uint8_t *data[128];
	size_t len[128], cap[128];
};

static void defmt_byte(struct defmt *d, int id, uint8_t b)
{
	if (id <= 0)
		return;
	if (d->len[id] == d->cap[id]) {
		d->cap[id] = d->cap[id] * 2 + 64;
		d->data[id] = xrealloc(d->data[id], d->cap[id]);
	}
	d->data[id][d->len[id]++] = b;
}

static void defmt_frame(struct defmt *d, const uint8_t *f)
{
	unsigned int p;

	for (p = 0; p < 15; p += 2) {
		unsigned int flag = (f[15] >> (p / 2)) & 1;

		if (f[p] & 1) {
			int old = d->cur;

			d->cur = f[p] >> 1;
			if (p < 14)
				defmt_byte(d, flag ? old : d->cur, f[p + 1]);
		} else {
			defmt_byte(d, d->cur, (uint8_t)(f[p] | flag));
			if (p < 14)
				defmt_byte(d, d->cur, f[p + 1]);
		}
	}
}

static void test_formatter(void)
{
	static const uint8_t idl[] = { 0x01, 0x10, 0x11, 0x37, 0x6f };
	struct defmt d = { .cur = -1 };
	uint8_t *want[128] = { NULL }, *out = NULL, data[600], pad[16];
	size_t wlen[128] = { 0 }, olen = 0, ocap = 0, k, n, i;
	struct csfmt f;
	unsigned int round, id;

	csfmt_init(&f);
	csfmt_pad_frame(pad);
	for (round = 0; round < 20000; round++) {
		uint32_t r = trand();

		id = idl[r % sizeof(idl)];
		n = (r >> 8) % 5 ? (r >> 12) % 24 : (r >> 12) % sizeof(data);
		for (i = 0; i < n; i++)
			data[i] = (uint8_t)trand();
		if (olen + CSFMT_OUT_MAX(n) + 32 > ocap) {
			ocap = (olen + CSFMT_OUT_MAX(n) + 32) * 2;
			out = xrealloc(out, ocap);
		}
		k = csfmt_push(&f, (uint8_t)id, data, n, out + olen);
		CHECK(k % 16 == 0 && k <= CSFMT_OUT_MAX(n));
		olen += k;
		want[id] = xrealloc(want[id], wlen[id] + n);
		memcpy(want[id] + wlen[id], data, n);
		wlen[id] += n;
		if ((r & 0x3f) == 0) {
			k = csfmt_flush(&f, out + olen);
			CHECK(k == 0 || k == 16);
			olen += k;
			CHECK_EQ(csfmt_flush(&f, out + olen), 0);
		}
		if ((r & 0x7f) == 1) {		/* between any two frames */
			memcpy(out + olen, pad, 16);
			olen += 16;
		}
	}
	olen += csfmt_flush(&f, out + olen);
	CHECK(olen % 16 == 0);
	for (i = 0; i < olen; i += 16) {
		CHECK(out[i] & 1);		/* every frame starts with an ID */
		defmt_frame(&d, out + i);
	}
	for (id = 0; id < 128; id++) {
		CHECK_EQ(d.len[id], wlen[id]);
		if (d.len[id] == wlen[id] && wlen[id])
			CHECK(!memcmp(d.data[id], want[id], wlen[id]));
		free(d.data[id]);
		free(want[id]);
	}
	free(out);
	/* the pad frame carries nothing */
	memset(&d, 0, sizeof(d));
	d.cur = 0x10;
	defmt_frame(&d, pad);
	CHECK_EQ(d.len[0x10], 0);
	CHECK_EQ(d.cur, 0);
}

static void gen_run(uint32_t seed, unsigned int cfg, uint8_t *out, size_t *len,
		    size_t cap)
{
	struct csgen g;
	struct csgen_cfg c;
	uint32_t regions;
	unsigned int i;

	make_cfg(cfg, &c, &regions);
	csgen_init(&g, seed, 1);
	*len = csgen_start(&g, &c, out, cap);
	for (i = 0; i < 300; i++)
		*len += csgen_step(&g, out + *len, CSGEN_STEP_MIN + i % 200);
	*len += csgen_stop(&g, out + *len, CSGEN_START_MAX);
}

static void test_generator(void)
{
	static uint8_t a[1 << 20], b[1 << 20], buf[CSGEN_STEP_MIN + GUARD];
	size_t la, lb, n;
	unsigned int k, seed, i;
	uint32_t seq = 0;

	CHECK(CSGEN_BLOCK_MAX <= CSGEN_STEP_MIN);
	CHECK(CSGEN_SYNC_MAX + 1 + CSGEN_CTXT_ADDR_MAX <= CSGEN_START_MAX);

	/* determinism */
	for (k = 0; k < C_NR; k++) {
		gen_run(7, k, a, &la, sizeof(a));
		gen_run(7, k, b, &lb, sizeof(b));
		CHECK(la == lb && !memcmp(a, b, la));
		gen_run(8, k, b, &lb, sizeof(b));
		if (k != C_NOTHING)
			CHECK(la != lb || memcmp(a, b, la));
	}

	/* sizes: one block per step with max = CSGEN_STEP_MIN */
	for (k = 0; k < C_NR; k++) {
		for (seed = 1; seed <= 8; seed++) {
			struct csgen g;
			struct csgen_cfg c;
			uint32_t regions;

			make_cfg(k, &c, &regions);
			csgen_init(&g, seed, seed % 4);
			CHECK_EQ(csgen_step(&g, buf, sizeof(buf)), 0);
			CHECK_EQ(csgen_start(&g, &c, buf, CSGEN_START_MAX - 1), 0);
			CHECK(!g.enabled);
			n = csgen_start(&g, &c, buf, CSGEN_START_MAX);
			CHECK(n >= CSGEN_ASYNC_SIZE && n <= CSGEN_START_MAX);
			CHECK(g.enabled);
			for (i = 0; i < 3000; i++) {
				memset(buf + CSGEN_STEP_MIN, 0x5a, GUARD);
				n = csgen_step(&g, buf, CSGEN_STEP_MIN);
				CHECK(n <= CSGEN_BLOCK_MAX);
				CHECK(buf[CSGEN_STEP_MIN] == 0x5a);
				if (i % 500 == 0)
					CHECK_EQ(csgen_step(&g, buf, CSGEN_STEP_MIN - 1), 0);
			}
			n = csgen_stop(&g, buf, CSGEN_START_MAX);
			CHECK(n <= CSGEN_START_MAX);
			CHECK(!g.enabled);
			CHECK_EQ(csgen_step(&g, buf, sizeof(buf)), 0);
			CHECK_EQ(g.seq, g.blocks & CSGEN_SEQ_MASK);
			if (k == C_NOTHING)
				CHECK_EQ(g.blocks, 0);
			else
				CHECK(g.blocks > 1000);
		}
	}

	/* markers */
	for (k = 0; k < CSGEN_NR_REGIONS; k++) {
		uint64_t base = csgen_region_base(k);

		CHECK_EQ(csgen_marker(base, &seq), k);
		CHECK_EQ(seq, 0);
		CHECK_EQ(csgen_marker(base + (12345ULL << CSGEN_SLOT_SHIFT), &seq), k);
		CHECK_EQ(seq, 12345);
		CHECK_EQ(csgen_marker(base + ((uint64_t)CSGEN_SEQ_MASK << CSGEN_SLOT_SHIFT),
				      &seq), k);
		CHECK_EQ(seq, CSGEN_SEQ_MASK);
		CHECK_EQ(csgen_marker(base + 4, &seq), -1);
		CHECK_EQ(csgen_marker(base + 0x7c, &seq), -1);
		CHECK_EQ(csgen_region(base + 0x7c), k);
		CHECK_EQ(csgen_region(base + CSGEN_REGION_SIZE - 4), k);
	}
	CHECK_EQ(csgen_marker(0x1000, &seq), -1);
	CHECK_EQ(csgen_marker(CSGEN_USER_BASE - 64, &seq), -1);
	CHECK_EQ(csgen_region(0xffff000000000000ULL), -1);
}

/* ---- 2. and 3. with OpenCSD and cscheck ---- */

static void test_matrix(void)
{
	unsigned int k, i, cfg[MAX_SRC];
	char name[64];
	struct cap c;

	/* every configuration, on 1..4 sources, mixed in one capture */
	for (k = 0; k < C_NR; k++) {
		unsigned int nsrc = 1 + k % MAX_SRC;

		for (i = 0; i < nsrc; i++)
			cfg[i] = (k + i * 5) % C_NR;
		cap_init(&c, nsrc, cfg, 100 + k,
			 k == 5 ? (const uint8_t[]){ 0x01, 0x6f, 0x20, 0x41 } : NULL,
			 false);
		cap_steps(&c, 400);
		cap_stop_all(&c);
		snprintf(name, sizeof(name), "matrix-%02u-%usrc", k, nsrc);
		expect_accept(&c, name, LOSSLESS, true, NULL);
		cap_free(&c);
	}
}

static void test_breaks(void)
{
	static const unsigned int c3[3] = { C_ALL_SYNC8, C_PLAIN, C_NO_EL1 };
	static const unsigned int c3b[3] = { C_TS, C_INCL, C_IDR_VARIANT };
	static const unsigned int c3c[3] = { C_NOSYNC, C_CTX, C_ALL_SYNC20 };
	static const unsigned int c2[2] = { C_CCI, C_RS };
	static const unsigned int c2s[2] = { C_ALL_SYNC8, C_BB };
	static const unsigned int c4[4] = { C_ALL_SYNC8, C_CTX, C_EXCL, C_NO_EL0 };
	struct cap c;

	/* config changes: every ETM stopped, flushed, reprogrammed */
	cap_init(&c, 3, c3, 1, NULL, false);
	cap_steps(&c, 150);
	cap_reconfig(&c, c3b);
	cap_steps(&c, 150);
	cap_reconfig(&c, c3c);
	cap_steps(&c, 150);
	cap_reconfig(&c, c3);
	cap_steps(&c, 50);
	cap_stop_all(&c);
	expect_accept(&c, "config", LOSSLESS, false, "--no-resync");
	cap_free(&c);

	/* restarts of single ETMs, the formatter flushed or not */
	cap_init(&c, 4, c4, 2, NULL, false);
	cap_steps(&c, 150);
	cap_restart(&c, 1, true);
	cap_steps(&c, 150);
	cap_restart(&c, 3, false);
	cap_steps(&c, 150);
	cap_restart(&c, 0, false);
	cap_steps(&c, 150);
	cap_stop_all(&c);
	expect_accept(&c, "restart", LOSSLESS | RESYNCS, true, NULL);
	/* the sources that ran on lost their place: not with --no-resync */
	expect_reject(&c, "reject-restart-no-resync", "blocks missing",
		      "--no-resync", NULL);
	cap_free(&c);

	/* lost data: truncated, gap, overwrite breaks, --expect-gap */
	cap_init(&c, 2, c2s, 3, NULL, false);
	cap_steps(&c, 200);
	cap_lose(&c, 30, "truncated");
	cap_steps(&c, 200);
	cap_lose(&c, 5, "gap");
	cap_steps(&c, 200);
	cap_lose(&c, 60, "overwrite");
	cap_steps(&c, 200);
	cap_reconfig(&c, c2);
	cap_steps(&c, 100);
	cap_lose(&c, 40, "truncated");
	cap_steps(&c, 300);
	cap_stop_all(&c);
	expect_accept(&c, "lost", LOSSY, false, "--expect-gap");
	cap_free(&c);

	/* a wrapped ring: the capture starts mid-stream; an empty segment */
	cap_init(&c, 3, c3, 4, NULL, true);
	cap_steps(&c, 30);
	c.discard = false;
	seg_begin(&c, "start", 0);
	cap_steps(&c, 200);
	seg_begin(&c, "truncated", 0);
	cap_lose(&c, 10, "truncated");
	cap_steps(&c, 200);
	cap_stop_all(&c);
	expect_accept(&c, "wrapped", LOSSY | WRAPPED, false, NULL);
	cap_free(&c);

	/*
	 * The last segment is the newest lap of a wrapped sink, too short
	 * for an A-sync: unsynchronised bytes whose last two are 0x00 (the
	 * packet processor names them an A-sync cut short; arm64-debug's
	 * cs_small once ended so). Not a cut packet: accepted.
	 */
	cap_init(&c, 2, c2s, 5, NULL, false);
	cap_steps(&c, 200);
	cap_stop_all(&c);
	seg_begin(&c, "truncated", 4096);
	emit(&c, 0, (const uint8_t[]){ 0x9d, 0x04, 0x95, 0x00, 0x00 }, 5);
	emit(&c, 1, (const uint8_t[]){ 0xf7, 0x95, 0x81 }, 3);
	cap_flush(&c);
	expect_accept(&c, "unsynced-end", LOSSY, false, NULL);
	cap_free(&c);
}

static void test_rejects(void)
{
	static const unsigned int c2[2] = { C_ALL_SYNC8, C_CTX };
	static const unsigned int c3[3] = { C_ALL_SYNC8, C_PLAIN, C_BB };
	struct cap c;
	size_t off, i;

	/* 1 KiB of frames cut out, no break */
	cap_init(&c, 2, c2, 10, NULL, false);
	cap_steps(&c, 400);
	cap_stop_all(&c);
	cap_cut(&c, (c.len / 2) & ~(size_t)15, 1024);
	expect_reject(&c, "reject-cut", "blocks missing", NULL, NULL);
	cap_free(&c);

	/* 1 KiB of frames repeated */
	cap_init(&c, 3, c3, 11, NULL, false);
	cap_steps(&c, 400);
	cap_stop_all(&c);
	off = (c.len / 2) & ~(size_t)15;
	cap_dup(&c, off - 1024, 1024, off);
	expect_reject(&c, "reject-dup", "cscheck: FAIL", NULL, NULL);
	cap_free(&c);

	/* a frame's data bytes overwritten with a reserved packet header */
	cap_init(&c, 2, c2, 12, NULL, false);
	cap_steps(&c, 400);
	cap_stop_all(&c);
	off = (c.len / 3) & ~(size_t)15;
	for (i = 1; i < 15; i += 2)
		c.buf[off + i] = 0x08;
	expect_reject(&c, "reject-reserved", "bad packet", NULL, NULL);
	cap_free(&c);

	/* bytes flipped */
	cap_init(&c, 2, c2, 13, NULL, false);
	cap_steps(&c, 400);
	cap_stop_all(&c);
	for (i = 0; i < 40; i++)
		c.buf[c.len / 4 + trand() % (c.len / 2)] ^= 0xff;
	expect_reject(&c, "reject-flip", "cscheck: FAIL", NULL, NULL);
	cap_free(&c);

	/* data lost before a config break, which loses nothing */
	cap_init(&c, 2, c2, 14, NULL, false);
	cap_steps(&c, 200);
	c.discard = true;
	cap_steps(&c, 30);
	cap_stop_all(&c);
	c.discard = false;
	seg_begin(&c, "config", 0);
	for (i = 0; i < c.nsrc; i++)
		src_start(&c, (unsigned int)i);
	cap_steps(&c, 200);
	cap_stop_all(&c);
	expect_reject(&c, "reject-gap-config", "across a break that loses nothing",
		      NULL, NULL);
	/* the same as a truncated break is fine */
	c.segs[1].brk = "truncated";
	expect_accept(&c, "gap-truncated", LOSSY, false, "--expect-gap");
	cap_free(&c);

	/* old frames replayed after a truncated break */
	cap_init(&c, 2, c2, 15, NULL, false);
	cap_steps(&c, 400);
	cap_stop_all(&c);
	off = (c.len / 2) & ~(size_t)15;
	cap_dup(&c, off - 2048, 2048, off);
	c.segs[c.nseg].start = off;
	c.segs[c.nseg].brk = "truncated";
	memcpy(c.segs[c.nseg].configr, c.segs[0].configr, sizeof(c.segs[0].configr));
	memcpy(c.segs[c.nseg].idr0, c.segs[0].idr0, sizeof(c.segs[0].idr0));
	memcpy(c.segs[c.nseg].idr2, c.segs[0].idr2, sizeof(c.segs[0].idr2));
	c.nseg++;
	expect_reject(&c, "reject-replay", "backwards", NULL, NULL);
	cap_free(&c);

	/* a synchronised ID's last packet cut short at the capture's end */
	cap_init(&c, 2, c2, 17, NULL, false);
	cap_steps(&c, 200);
	cap_stop_all(&c);
	emit(&c, 0, (const uint8_t[]){ 0, 0, 0, 0, 0 }, 5);	/* an A-sync's start */
	cap_flush(&c);
	expect_reject(&c, "reject-cut-end", "last packet cut short", NULL, NULL);
	cap_free(&c);

	/* checker options */
	cap_init(&c, 2, c2, 16, NULL, false);
	cap_steps(&c, 200);
	cap_stop_all(&c);
	expect_reject(&c, "reject-expect-gap", "no gap", "--expect-gap", NULL);
	expect_reject(&c, "reject-min-blocks", "expected at least", "--min-blocks",
		      "1000000");
	expect_reject(&c, "reject-missing-id", "ID 0x55: 0 blocks", "--ids",
		      "0x10,0x12,0x55");
	c.size_override = "4";
	expect_reject(&c, "reject-size", "size=4", NULL, NULL);
	cap_free(&c);
}

/*
 * ViewInst per instruction, as tb_csemu's follow mode evaluates it
 * (csemu_follow.h): ranges with TRCACATR's ELs, exclude over include,
 * start/stop points.
 */
static void test_viewinst(void)
{
	struct csgen g;
	bool started, both;
	u64 lo = CSGEN_USER_BASE + 0x100, hi = CSGEN_USER_BASE + 0x1fc;

	memset(&g, 0, sizeof(g));
	csgen_cfg_default(&g.cfg);
	g.cfg.viiectlr = 0x1;				/* include pair 0 */
	g.cfg.acvr[0] = lo;
	g.cfg.acvr[1] = hi;
	CHECK(csgen_is_traced(&g, lo, 0) && csgen_is_traced(&g, hi, 0));
	CHECK(!csgen_is_traced(&g, lo - 4, 0) && !csgen_is_traced(&g, hi + 4, 0));
	CHECK(csgen_is_traced(&g, lo, 1));
	/* TRCACATR0.EXLEVEL_NS(1): the pair matches at EL0 only. */
	g.cfg.acatr[0] = 1u << (CSGEN_ACATR_EXLEVEL_NS_SHIFT + 1);
	CHECK(csgen_is_traced(&g, lo, 0) && !csgen_is_traced(&g, lo, 1));
	g.cfg.acatr[0] = 0;
	/* TRCVICTLR.EXLEVEL_NS(0): nothing at EL0, in range or not. */
	g.cfg.victlr = CSGEN_VICTLR_EXCL_EL0;
	CHECK(!csgen_is_traced(&g, lo, 0));
	g.cfg.victlr = 0;
	/* Exclude pair 1 inside include pair 0: excluded. */
	g.cfg.acvr[2] = lo + 0x40;
	g.cfg.acvr[3] = lo + 0x7c;
	g.cfg.viiectlr = 0x1 | 0x2 << CSGEN_VIIECTLR_EXCL_SHIFT;
	CHECK(!csgen_is_traced(&g, lo + 0x40, 0) && csgen_is_traced(&g, lo + 0x80, 0));
	/* No include range: all but the excluded. */
	g.cfg.viiectlr = 0x2 << CSGEN_VIIECTLR_EXCL_SHIFT;
	CHECK(csgen_is_traced(&g, CSGEN_KERN_BASE, 1) && !csgen_is_traced(&g, lo + 0x44, 0));
	/* A pair whose low address is above its high one matches nothing. */
	g.cfg.acvr[0] = hi;
	g.cfg.acvr[1] = lo;
	g.cfg.viiectlr = 0x1;
	CHECK(!csgen_is_traced(&g, lo, 0) && !csgen_is_traced(&g, hi, 0));

	/* Start at comparator 0 (lo), stop at comparator 1 (hi): both traced. */
	g.cfg.acvr[0] = lo;
	g.cfg.acvr[1] = hi;
	started = false;
	CHECK(!csgen_ss_step(&g.cfg, 0x1 | 0x2 << 16, &started, lo - 4, 0, &both) && !started);
	CHECK(csgen_ss_step(&g.cfg, 0x1 | 0x2 << 16, &started, lo, 0, &both) && started && !both);
	CHECK(csgen_ss_step(&g.cfg, 0x1 | 0x2 << 16, &started, lo + 4, 0, &both) && started);
	CHECK(csgen_ss_step(&g.cfg, 0x1 | 0x2 << 16, &started, hi, 0, &both) && !started);
	CHECK(!csgen_ss_step(&g.cfg, 0x1 | 0x2 << 16, &started, hi + 4, 0, &both) && !started);
	/* A comparator whose TRCACATR excludes the EL matches nothing there. */
	g.cfg.acatr[0] = 1u << CSGEN_ACATR_EXLEVEL_NS_SHIFT;
	CHECK(!csgen_ss_step(&g.cfg, 0x1, &started, lo, 0, &both) && !started);
	CHECK(csgen_ss_step(&g.cfg, 0x1, &started, lo, 1, &both) && started);
	/* Without start/stop points the state stays as it was programmed. */
	CHECK(csgen_ss_step(&g.cfg, 0, &started, lo, 0, &both) && started);
	/* One instruction at a start and a stop point: said. */
	g.cfg.acatr[0] = 0;
	started = false;
	csgen_ss_step(&g.cfg, 0x1 | 0x1 << 16, &started, lo, 0, &both);
	CHECK(both);
}

int main(int argc, char **argv)
{
	if (argc != 3) {
		fprintf(stderr, "usage: csgen CSCHECK TMPDIR\n");
		return 2;
	}
	cscheck = argv[1];
	tmpdir = argv[2];
	mkdir(tmpdir, 0777);

	test_formatter();
	test_generator();
	test_matrix();
	test_breaks();
	test_rejects();
	test_viewinst();
	if (!check_failures)
		printf("csgen: ok\n");
	return check_done();
}
