// SPDX-License-Identifier: GPL-2.0
/*
 * cscheck - check a CoreSight capture taken by a guest test against the
 * CoreSight emulator (tb_csemu, tests/modules/csemu_*.c), exported with
 * 'tracebuf export --opencsd OUTDIR CAPTURE', by decoding it with OpenCSD's
 * stock trc_pkt_lister.
 *
 *   cscheck [--ids LIST] [--min-blocks N] [--expect-gap] [--no-resync]
 *           [--lister PATH] [-v] OUTDIR
 *
 * OUTDIR/segments has one line per segment (blank lines and lines starting
 * with '#' are ignored), whitespace-separated key=value after the word
 * "segment"; unknown keys are ignored:
 *
 *   segment index=0 dir=seg000 offset=0x0 size=65536 break=start lost=0
 *           atleast=0 ids=0x10,0x11
 *
 * index counts from 0; dir (relative to OUTDIR) is an OpenCSD snapshot
 * directory (userspace/tools/opencsd.h), "-" for a segment of 0 bytes;
 * size, if given, is its bytes (cstrace.bin leaves out a trailing partial
 * frame); ids lists the trace IDs of the segment's ETMs ("-": none); break
 * says why the segment starts (docs/capture-format.md):
 *   start      the first segment of a buffer (cpuN.data); the first line
 *   truncated  trace was lost before it (lost, atleast: how much)
 *   gap        it does not continue where the previous one ended
 *   overwrite  snapshot mode: the newest part of a wrapped ring
 *   config     an ETM was reprogrammed (or added): nothing lost
 *   restart    an ETM stopped and started again: nothing lost
 *
 * Every segment is decoded with
 *   trc_pkt_lister -ss_dir OUTDIR/DIR -decode -logstdout -logfilename /dev/null
 * which prints every packet (with the address it carries, "Addr=0x...")
 * and every generic element the decoder produces. Checked:
 *
 *   - no decoder error: no "OCSD_ERR" message, no bad or reserved packet,
 *     no packet type the generator (tests/modules/csemu_gen.h) does not
 *     write, no NO_SYNC element but the decoder's initial one, no
 *     I_NOT_SYNC data once an ID is synchronised, no address outside the
 *     synthetic program; a packet cut short at the end of a segment only
 *     if another segment of its buffer follows or the ID was not yet
 *     synchronised in it (unsynchronised bytes, e.g. the newest lap of a
 *     wrapped sink, need not end on a packet); the lister read the whole
 *     trace ("processed N bytes") and exited 0;
 *   - every ID of --ids (default: every ID in the segments' ids=) has at
 *     least max(1, --min-blocks) blocks;
 *   - sequence numbers: an address packet with a block entry address
 *     ("marker", csgen_marker()) carries the block's sequence number. Per
 *     ID they increase by exactly 1 (modulo 2^26) through a segment and
 *     into the next; they never repeat or go backwards. A jump forward is
 *     allowed only at the first marker of an ID after a start, truncated,
 *     gap or overwrite break (a "gap": blocks lost with the data), or at
 *     the first marker of an ID in a config or restart segment if its
 *     stream there does not start with an A-sync (a "resync": the source
 *     kept running across the break, and the decoder could only start at
 *     its next A-sync); --no-resync forbids those (when every ETM is
 *     stopped and the formatter flushed at every config and restart);
 *   - with --expect-gap, at least one gap.
 *
 * Prints every problem (the first 25; all with -v), one line per ID
 * (blocks, first and last sequence number, gaps, resyncs, blocks per
 * region), then the verdict. -v also prints each segment's numbers.
 * Exit 0 if the capture is good, 1 if not, 2 on usage errors.
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
#include <sys/stat.h>
#include <sys/types.h>
#include <sys/wait.h>
#include <unistd.h>

#include "csemu_gen.h"

#define MAX_REPORTS	25
#define MAX_IDS		128
#define SEQ_HALF	((CSGEN_SEQ_MASK + 1u) / 2)

enum brk {
	BRK_START, BRK_TRUNCATED, BRK_GAP, BRK_OVERWRITE, BRK_CONFIG,
	BRK_RESTART, BRK_NR
};
static const char *const brk_names[BRK_NR] = {
	"start", "truncated", "gap", "overwrite", "config", "restart",
};

/* Breaks where trace may have been lost (or another buffer begins). */
static bool brk_loses(enum brk b)
{
	return b != BRK_CONFIG && b != BRK_RESTART;
}

static const char *const region_names[CSGEN_NR_REGIONS] = {
	"user", "ulib", "kernel", "kmod",
};

struct segment {
	unsigned int index;
	char *dir;
	uint64_t offset, size, lost;
	bool has_size, atleast;
	enum brk brk;
	char *ids;
	unsigned int line;
};

struct idstate {
	bool expected;
	bool any;		/* a marker seen */
	uint32_t first, last;
	uint64_t blocks, gaps, lost, resyncs, skipped;
	uint64_t regions[CSGEN_NR_REGIONS];
	bool loss_since;	/* a break that loses data since the last marker */
	/* in the current segment */
	bool seen;		/* any packet */
	bool synced;		/* an A-sync */
	bool clean_start;	/* the first packet was an A-sync */
	bool marker_seen;
	uint64_t seg_blocks;
};

static struct idstate ids[MAX_IDS];
static bool verbose, no_resync;
static unsigned long problems;

static void problem(const char *fmt, ...) __attribute__((format(printf, 1, 2)));

static void problem(const char *fmt, ...)
{
	va_list ap;

	problems++;
	if (problems > MAX_REPORTS && !verbose) {
		if (problems == MAX_REPORTS + 1)
			printf("cscheck: more problems, not shown (-v shows all)\n");
		return;
	}
	va_start(ap, fmt);
	printf("cscheck: ");
	vprintf(fmt, ap);
	printf("\n");
	va_end(ap);
}

static void usage(void)
{
	fprintf(stderr,
		"usage: cscheck [--ids 0x10,0x11,...] [--min-blocks N] [--expect-gap]\n"
		"               [--no-resync] [--lister PATH] [-v] OUTDIR\n");
	exit(2);
}

/* "0x10,0x11" -> ids[].expected; false if malformed. */
static bool parse_ids(const char *s, bool set)
{
	char *end;
	unsigned long v;

	if (!*s)
		return true;
	for (;;) {
		errno = 0;
		v = strtoul(s, &end, 0);
		if (errno || end == s || v == 0 || v >= 0x70)
			return false;
		if (set)
			ids[v].expected = true;
		if (*end == '\0')
			return true;
		if (*end != ',')
			return false;
		s = end + 1;
	}
}

static bool parse_u64(const char *s, uint64_t *v)
{
	char *end;

	errno = 0;
	*v = strtoull(s, &end, 0);
	return !errno && end != s && *end == '\0';
}

/* Read OUTDIR/segments. */
static struct segment *read_segments(const char *outdir, unsigned int *nr)
{
	struct segment *segs = NULL;
	unsigned int n = 0, lineno = 0;
	char path[4096], *line = NULL;
	size_t cap = 0;
	FILE *f;

	snprintf(path, sizeof(path), "%s/segments", outdir);
	f = fopen(path, "r");
	if (!f) {
		fprintf(stderr, "cscheck: %s: %s\n", path, strerror(errno));
		exit(2);
	}
	while (getline(&line, &cap, f) > 0) {
		struct segment s = { .brk = BRK_NR };
		char *tok, *save = NULL;
		bool bad = false, has_index = false;
		uint64_t v;

		lineno++;
		tok = strtok_r(line, " \t\r\n", &save);
		if (!tok || tok[0] == '#')
			continue;
		if (strcmp(tok, "segment")) {
			problem("%s:%u: not a segment line", path, lineno);
			continue;
		}
		s.line = lineno;
		while ((tok = strtok_r(NULL, " \t\r\n", &save))) {
			char *val = strchr(tok, '=');
			unsigned int b;

			if (!val) {
				bad = true;
				break;
			}
			*val++ = '\0';
			if (!strcmp(tok, "index")) {
				bad |= !parse_u64(val, &v) || v > 1000000;
				s.index = (unsigned int)v;
				has_index = true;
			} else if (!strcmp(tok, "dir")) {
				s.dir = strdup(val);
			} else if (!strcmp(tok, "offset")) {
				bad |= !parse_u64(val, &s.offset);
			} else if (!strcmp(tok, "size")) {
				bad |= !parse_u64(val, &s.size);
				s.has_size = true;
			} else if (!strcmp(tok, "lost")) {
				bad |= !parse_u64(val, &s.lost);
			} else if (!strcmp(tok, "atleast")) {
				bad |= !parse_u64(val, &v) || v > 1;
				s.atleast = v;
			} else if (!strcmp(tok, "break")) {
				for (b = 0; b < BRK_NR; b++)
					if (!strcmp(val, brk_names[b]))
						s.brk = (enum brk)b;
				bad |= s.brk == BRK_NR;
			} else if (!strcmp(tok, "ids")) {
				if (!strcmp(val, "-"))
					val[0] = '\0';
				s.ids = strdup(val);
				bad |= !parse_ids(val, false);
			}
		}
		if (bad || !has_index || !s.dir || s.brk == BRK_NR) {
			problem("%s:%u: malformed segment line", path, lineno);
			free(s.dir);
			free(s.ids);
			continue;
		}
		if (s.index != n)
			problem("%s:%u: segment index %u, expected %u", path,
				lineno, s.index, n);
		if (n == 0 && s.brk != BRK_START)
			problem("%s:%u: break=%s in the first segment (not \"start\")",
				path, lineno, brk_names[s.brk]);
		segs = realloc(segs, (n + 1) * sizeof(*segs));
		if (!segs) {
			perror("realloc");
			exit(2);
		}
		segs[n++] = s;
	}
	free(line);
	fclose(f);
	if (!n)
		problem("%s: no segments", path);
	*nr = n;
	return segs;
}

/* The generator's packet types: anything else is unexpected. */
static const char *const known_pkts[] = {
	"I_ASYNC", "I_TRACE_INFO", "I_TIMESTAMP", "I_TRACE_ON", "I_EXCEPT",
	"I_CCNT_F1", "I_CCNT_F3", "I_CTXT", "I_ADDR_CTXT_L_64IS0",
	"I_ADDR_CTXT_L_32IS0", "I_ADDR_L_64IS0", "I_ADDR_L_32IS0",
	"I_ADDR_S_IS0", "I_ADDR_MATCH", "I_ATOM_F1", "I_ATOM_F2", "I_ATOM_F3",
	"I_ATOM_F4", "I_ATOM_F5", "I_ATOM_F6",
};

struct segctx {
	const struct segment *seg;
	bool last;		/* no segment follows */
	uint64_t processed;	/* from "processed N bytes" */
	bool done;
	unsigned long packets, markers;
	/* the last packet of an ID was cut short at this Idx (allowed) */
	bool cut[MAX_IDS];
	unsigned long long cut_idx[MAX_IDS];
};

/*
 * The decoder's complaint about a packet cut short at the end of the
 * trace ("Unknown packet type" for the I_INCOMPLETE_EOT packet) when that
 * is allowed.
 */
static bool excused(const struct segctx *sc, const char *text)
{
	const char *t = strstr(text, "TrcIdx=");
	unsigned long long idx;
	unsigned int id;

	if (!t || !strstr(text, "Unknown packet type") ||
	    sscanf(t, "TrcIdx=%llu; CS ID=%x;", &idx, &id) != 2 || id >= MAX_IDS)
		return false;
	return sc->cut[id] && sc->cut_idx[id] == idx;
}

static void marker(struct segctx *sc, unsigned int id, uint32_t seq, int region,
		   uint64_t idx)
{
	struct idstate *st = &ids[id];
	const struct segment *seg = sc->seg;
	uint32_t d;
	bool first_here = !st->marker_seen;

	st->marker_seen = true;
	sc->markers++;
	st->seg_blocks++;
	st->regions[region]++;
	/*
	 * Another buffer (one sink per CPU: every file starts with
	 * break=start): its trace IDs are other sources, sequences anew.
	 */
	if (!st->any || (first_here && seg->brk == BRK_START && seg->index > 0)) {
		st->any = true;
		st->first = seq;
		st->last = seq;
		st->blocks++;
		st->loss_since = false;
		return;
	}
	d = (seq - st->last) & CSGEN_SEQ_MASK;
	if (d == 0 || d >= SEQ_HALF) {
		problem("segment %u (%s) Idx %" PRIu64 ": ID 0x%02x: block %u after %u (%s)",
			seg->index, seg->dir, idx, id, seq, st->last,
			d ? "backwards" : "repeated");
	} else if (d > 1) {
		if (first_here && st->loss_since) {
			st->gaps++;
			st->lost += d - 1;
		} else if (first_here && !st->clean_start && !no_resync &&
			   (seg->brk == BRK_CONFIG || seg->brk == BRK_RESTART)) {
			st->resyncs++;
			st->skipped += d - 1;
		} else {
			problem("segment %u (%s) Idx %" PRIu64 ": ID 0x%02x: block %u after %u: %u blocks missing%s",
				seg->index, seg->dir, idx, id, seq, st->last,
				d - 1, first_here ?
				" (across a break that loses nothing)" : "");
		}
	}
	st->last = seq;
	st->blocks++;
	st->loss_since = false;
}

static void lister_problem(struct segctx *sc, const char *what,
			   const char *text)
{
	size_t n = strcspn(text, "\r\n");

	problem("segment %u (%s): %s: %.*s", sc->seg->index, sc->seg->dir,
		what, (int)(n > 300 ? 300 : n), text);
}

/* One "Idx:N; ID:x; ..." record (text starts after "Idx:"). */
static void record(struct segctx *sc, const char *text)
{
	unsigned long long idx;
	unsigned int id;
	const char *p, *name, *a;
	char pkt[48];
	size_t len, i;
	struct idstate *st;
	u64 addr;
	u32 seq;
	int n = 0, region;

	if (sscanf(text, "%llu; ID:%x; %n", &idx, &id, &n) < 2 || !n ||
	    id >= MAX_IDS)
		return;
	p = text + n;
	st = &ids[id];
	if (strstr(p, "OCSD_ERR") && !excused(sc, p))
		lister_problem(sc, "decoder error", text - 4);
	if (!strncmp(p, "OCSD_GEN_TRC_ELEM_", 18)) {
		if (!strncmp(p + 18, "NO_SYNC", 7) && !strstr(p, "[init-decoder]"))
			lister_problem(sc, "decoder lost sync", text - 4);
		return;
	}
	if (*p != '[')
		return;
	name = strstr(p, "];");
	if (!name)
		return;
	name += 2;
	name += strspn(name, " \t");
	len = strcspn(name, " :;\t\r\n");
	if (len >= sizeof(pkt))
		len = sizeof(pkt) - 1;
	memcpy(pkt, name, len);
	pkt[len] = '\0';
	sc->packets++;

	if (!strcmp(pkt, "I_NOT_SYNC")) {
		if (!st->seen)
			st->clean_start = false;
		st->seen = true;
		if (st->synced)
			lister_problem(sc, "unsynchronised data after sync", text - 4);
		return;
	}
	if (!strcmp(pkt, "I_INCOMPLETE_EOT")) {
		/*
		 * Not synchronised in this segment (it began mid-stream and
		 * no A-sync of this ID followed): its bytes are unsynchronised
		 * data, whatever the packet processor made of the last ones
		 * (iNotSync() hands a 0x00 to the extension handler, which
		 * calls 0x00 0x00 an A-sync: "[I_ASYNC]" at the end).
		 */
		if (strstr(name, "[I_NOT_SYNC]") || !st->synced) {
			sc->cut[id] = true;
			sc->cut_idx[id] = idx;
			return;
		}
		if (sc->last)
			lister_problem(sc, "last packet cut short", text - 4);
		sc->cut[id] = true;
		sc->cut_idx[id] = idx;
		return;
	}
	if (!st->seen)
		st->clean_start = !strcmp(pkt, "I_ASYNC");
	st->seen = true;
	if (!strcmp(pkt, "I_ASYNC"))
		st->synced = true;
	for (i = 0; i < sizeof(known_pkts) / sizeof(known_pkts[0]); i++)
		if (!strcmp(pkt, known_pkts[i]))
			break;
	if (i == sizeof(known_pkts) / sizeof(known_pkts[0])) {
		lister_problem(sc, strncmp(pkt, "I_BAD", 5) &&
			       strncmp(pkt, "I_RESERVED", 10) ?
			       "unexpected packet" : "bad packet", text - 4);
		return;
	}
	a = strstr(name, "Addr=0x");
	if (!a)
		return;
	addr = strtoull(a + 7, NULL, 16);
	region = csgen_marker(addr, &seq);
	if (region >= 0)
		marker(sc, id, seq, region, idx);
	else if (csgen_region(addr) < 0)
		lister_problem(sc, "address outside the program", text - 4);
}

/* One line of trc_pkt_lister output: records start at every "Idx:". */
static void lister_line(struct segctx *sc, char *line)
{
	char *rec = strstr(line, "Idx:"), *next;
	unsigned long long processed;

	if (rec != line) {
		if (rec)
			*rec = '\0';
		if ((strstr(line, "OCSD_ERR") || strstr(line, "rror") ||
		     strstr(line, "ailed") || strstr(line, "nvalid")) &&
		    !excused(sc, line))
			lister_problem(sc, "decoder error", line);
		if (sscanf(line, "Trace Packet Lister : Trace buffer done, processed %llu bytes",
			   &processed) == 1) {
			sc->processed = processed;
			sc->done = true;
		}
		if (rec)
			*rec = 'I';
	}
	while (rec) {
		next = strstr(rec + 4, "Idx:");
		if (next)
			*next = '\0';
		record(sc, rec + 4);
		if (next)
			*next = 'I';
		rec = next;
	}
}

static int run_lister(const char *lister, const char *ssdir, struct segctx *sc)
{
	int pfd[2], status;
	char *line = NULL;
	size_t cap = 0;
	pid_t pid;
	FILE *f;

	if (pipe(pfd) < 0) {
		perror("pipe");
		exit(2);
	}
	pid = fork();
	if (pid < 0) {
		perror("fork");
		exit(2);
	}
	if (pid == 0) {
		dup2(pfd[1], 1);
		dup2(pfd[1], 2);
		close(pfd[0]);
		close(pfd[1]);
		/*
		 * 1.3.3 also writes trc_pkt_lister.ppl into the current
		 * directory unless given another file.
		 */
		execlp(lister, lister, "-ss_dir", ssdir, "-decode", "-logstdout",
		       "-logfilename", "/dev/null", (char *)NULL);
		fprintf(stderr, "cannot run %s: %s\n", lister, strerror(errno));
		_exit(127);
	}
	close(pfd[1]);
	f = fdopen(pfd[0], "r");
	if (!f) {
		perror("fdopen");
		exit(2);
	}
	while (getline(&line, &cap, f) > 0)
		lister_line(sc, line);
	free(line);
	fclose(f);
	if (waitpid(pid, &status, 0) < 0) {
		perror("waitpid");
		exit(2);
	}
	return WIFEXITED(status) ? WEXITSTATUS(status) : 128;
}

static void check_segment(const char *outdir, const char *lister,
			  const struct segment *seg, bool last)
{
	struct segctx sc = { .seg = seg, .last = last };
	char ssdir[4096], bin[4200];
	struct stat stb;
	unsigned int id;
	int rc;

	for (id = 0; id < MAX_IDS; id++) {
		ids[id].seen = false;
		ids[id].synced = false;
		ids[id].clean_start = false;
		ids[id].marker_seen = false;
		ids[id].seg_blocks = 0;
		if (brk_loses(seg->brk))
			ids[id].loss_since = true;
	}
	if (!strcmp(seg->dir, "-")) {
		if (!seg->has_size || seg->size)
			problem("segment %u: dir=- but not size=0", seg->index);
		return;
	}
	snprintf(ssdir, sizeof(ssdir), "%s/%s", outdir, seg->dir);
	snprintf(bin, sizeof(bin), "%s/cstrace.bin", ssdir);
	if (stat(bin, &stb) < 0) {
		problem("segment %u: %s: %s", seg->index, bin, strerror(errno));
		return;
	}
	/* a trailing partial frame is left out */
	if (seg->has_size && (uint64_t)stb.st_size != (seg->size & ~15ULL))
		problem("segment %u (%s): size=%" PRIu64 " but %s has %lld bytes",
			seg->index, seg->dir, seg->size, bin,
			(long long)stb.st_size);
	rc = run_lister(lister, ssdir, &sc);
	if (rc)
		problem("segment %u (%s): %s exited with %d", seg->index,
			seg->dir, lister, rc);
	if (!sc.done)
		problem("segment %u (%s): %s did not finish the trace",
			seg->index, seg->dir, lister);
	else if (sc.processed != (uint64_t)stb.st_size)
		problem("segment %u (%s): %s processed %" PRIu64 " of %lld bytes",
			seg->index, seg->dir, lister, sc.processed,
			(long long)stb.st_size);
	if (verbose) {
		printf("segment %u %s break=%s offset=0x%" PRIx64 " %lld bytes: %lu packets, %lu blocks",
		       seg->index, seg->dir, brk_names[seg->brk], seg->offset,
		       (long long)stb.st_size, sc.packets, sc.markers);
		if (seg->brk == BRK_TRUNCATED)
			printf(" (lost %s%" PRIu64 " bytes before)",
			       seg->atleast ? ">= " : "", seg->lost);
		printf("\n");
		for (id = 0; id < MAX_IDS; id++)
			if (ids[id].seen)
				printf("  id 0x%02x: %" PRIu64 " blocks%s\n", id,
				       ids[id].seg_blocks, ids[id].clean_start ?
				       "" : ", starts unsynchronised");
	}
}

int main(int argc, char **argv)
{
	const char *lister = "trc_pkt_lister", *outdir, *want = NULL;
	unsigned long min_blocks = 1;
	bool expect_gap = false, any_expected = false;
	uint64_t total = 0, gaps = 0;
	struct segment *segs;
	unsigned int nr, i, id, r;
	char *end;

	for (i = 1; i < (unsigned int)argc && argv[i][0] == '-'; i++) {
		if (!strcmp(argv[i], "--ids") && i + 1 < (unsigned int)argc) {
			want = argv[++i];
			if (!parse_ids(want, false))
				usage();
		} else if (!strcmp(argv[i], "--min-blocks") &&
			   i + 1 < (unsigned int)argc) {
			min_blocks = strtoul(argv[++i], &end, 0);
			if (*end)
				usage();
		} else if (!strcmp(argv[i], "--lister") &&
			   i + 1 < (unsigned int)argc) {
			lister = argv[++i];
		} else if (!strcmp(argv[i], "--expect-gap")) {
			expect_gap = true;
		} else if (!strcmp(argv[i], "--no-resync")) {
			no_resync = true;
		} else if (!strcmp(argv[i], "-v")) {
			verbose = true;
		} else {
			usage();
		}
	}
	if (i + 1 != (unsigned int)argc)
		usage();
	outdir = argv[i];
	if (min_blocks == 0)
		min_blocks = 1;

	segs = read_segments(outdir, &nr);
	if (want)
		parse_ids(want, true);
	for (i = 0; i < nr; i++) {
		if (!want && segs[i].ids)
			parse_ids(segs[i].ids, true);
		/* the last of its buffer: no segment of it follows */
		check_segment(outdir, lister, &segs[i],
			      i + 1 == nr || segs[i + 1].brk == BRK_START);
	}

	for (id = 0; id < MAX_IDS; id++) {
		struct idstate *st = &ids[id];

		any_expected |= st->expected;
		if (st->expected && st->blocks < min_blocks)
			problem("ID 0x%02x: %" PRIu64 " blocks, expected at least %lu",
				id, st->blocks, min_blocks);
		total += st->blocks;
		gaps += st->gaps;
	}
	if (!any_expected)
		problem("no trace IDs to check (no --ids, no ids= in segments)");
	if (expect_gap && !gaps)
		problem("no gap, expected at least one (--expect-gap)");
	for (id = 0; id < MAX_IDS; id++) {
		struct idstate *st = &ids[id];

		if (!st->any && !st->expected)
			continue;
		printf("id 0x%02x: %" PRIu64 " blocks", id, st->blocks);
		if (st->any)
			printf(", seq %u..%u", st->first, st->last);
		printf(", %" PRIu64 " gaps (%" PRIu64 " blocks lost), %" PRIu64 " resyncs (%" PRIu64 " skipped);",
		       st->gaps, st->lost, st->resyncs, st->skipped);
		for (r = 0; r < CSGEN_NR_REGIONS; r++)
			printf(" %s %" PRIu64, region_names[r], st->regions[r]);
		printf("\n");
	}
	for (i = 0; i < nr; i++) {
		free(segs[i].dir);
		free(segs[i].ids);
	}
	free(segs);
	if (problems) {
		printf("cscheck: FAIL: %lu problems (%u segments)\n", problems, nr);
		return 1;
	}
	printf("cscheck: OK: %u segments, %" PRIu64 " blocks, %" PRIu64 " gaps\n",
	       nr, total, gaps);
	return 0;
}
