// SPDX-License-Identifier: GPL-2.0
/*
 * tracebuf export --opencsd OUTDIR CAPTURE
 *
 * Turns a CoreSight capture (docs/capture-format.md), read and checked by
 * libtracebuf's capture reader (tracebuf_capture_open(3)), into OpenCSD
 * snapshot directories (opencsd.h), one per segment of the trace, and
 * OUTDIR/segments listing them (docs/capture-format.md, "Exporting
 * CoreSight trace").
 *
 * Per cpuN.data (one session), in CPU order, the AUX spans are walked in
 * order with the ETM records (TRACEBUF_REC_ETM) that precede them. A span
 * starts a new segment when it is the session's first ("start"), when it
 * is flagged TRUNCATED or follows a LOST record with reason AUX_OVERRUN
 * ("truncated": the hardware's bytes before it were dropped), when its
 * aux_offset does not continue the previous span ("gap": an AUX record was
 * lost), after an ETM record that changes a CPU's registers or adds a CPU
 * ("config"), after an ETM record that repeats them or a CONFIG record
 * ("restart"), and in snapshot mode always ("overwrite"). Within a
 * segment the programming of every ETM is fixed, so each segment is one
 * snapshot: OUTDIR/segNNN with the segment's bytes (contiguous in
 * cpuN.aux) and the ETMs known when it started.
 *
 * OUTDIR/segments, one line per segment (written last, via a rename):
 *
 *   segment index=I dir=segNNN|- offset=0xO size=S break=KIND lost=L
 *           atleast=0|1 ids=0xA,0xB|-
 *
 * offset: where the segment starts in the capture's AUX byte stream (the
 * cpuN.aux files back to back in CPU order); lost: trace bytes known lost
 * just before it (the LOST AUX_OVERRUN counts, or the aux_offset jump);
 * atleast: 1 if that is a lower bound; ids: the trace IDs of the ETMs
 * known, in increasing order. dir is "-" for a segment of 0 bytes.
 */
#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <getopt.h>
#include <inttypes.h>
#include <limits.h>
#include <stdarg.h>
#include <stdbool.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include <libtracebuf.h>

#include "opencsd.h"
#include "tool.h"
#ifdef HAVE_LIBDW
#include "flowcmd.h"
#include "image.h"
#include "sideband.h"
#endif

#define SEGMENTS	"segments"
#define MEMDIR		"mem"		/* OUTDIR/mem/dumpN.bin: the memory images */

static const char export_usage_text[] =
	"Usage: tracebuf export --opencsd OUTDIR CAPTURE\n"
	"       tracebuf export --perfetto OUT.json [--pid N] [--tid N] [--time FROM,TO]\n"
	"                       [--sysroot DIR] [--elf FILE[:ADDR]]... CAPTURE\n"
	"  --perfetto: the call stacks of every thread over time, in the Chrome\n"
	"  trace-event JSON format: open OUT.json in ui.perfetto.dev or\n"
	"  chrome://tracing (\"-\": standard output). Options as for decode --calls.\n"
	"  --opencsd:\n"
	"  Split the CoreSight trace of a capture directory (tracebuf record) into\n"
	"  segments that decode on their own, and write each as an OpenCSD snapshot\n"
	"  directory OUTDIR/segNNN, listed in OUTDIR/segments. Decode one with\n"
	"  trc_pkt_lister -ss_dir OUTDIR/seg000 -decode. OUTDIR is created, or\n"
	"  emptied if it holds a previous export and nothing else.\n";

/* Why a segment starts; the higher wins when several apply. */
enum brk { BRK_NONE, BRK_OVERWRITE, BRK_RESTART, BRK_CONFIG, BRK_GAP, BRK_TRUNCATED,
	   BRK_START };

static const char *const brk_names[] = {
	"none", "overwrite", "restart", "config", "gap", "truncated", "start",
};

struct seg {
	unsigned int file;		/* index into struct export.files */
	uint64_t file_off;		/* in cpuN.aux */
	uint64_t stream_off;		/* in the capture's AUX stream */
	uint64_t size;
	enum brk brk;
	uint64_t lost;
	int atleast;
	struct ocsd_etm_regs *etms;	/* sorted by CPU */
	unsigned int netms;
};

struct xfile {
	unsigned int cpu;
	uint64_t described;		/* bytes the AUX records describe */
};

struct export {
	const char *cap, *out;
	struct tracebuf_capture *c;	/* the capture, open and checked */
	int snapshot;
	int incomplete;			/* "complete": false: counts unchecked */
	struct xfile *files;
	unsigned int nfiles;
	struct seg *segs;
	size_t nsegs;
	uint64_t etm_records;
	int bad;			/* something could not be read or written */
#ifdef HAVE_LIBDW
	const struct tb_flow_cli *cli;	/* --sysroot, --elf */
	struct img_cache *img;
	struct sb *sb;
	struct xdump *dumps;		/* every memory image written, once */
	size_t ndumps;
#endif
};

#ifdef HAVE_LIBDW
/* A code mapping written to OUTDIR/mem/dumpN.bin. */
struct xdump {
	struct img_file *f;
	uint64_t address, length, pgoff;
	bool written;
};
#endif

static void *xrealloc(void *p, size_t n, size_t size)
{
	if (size && n > SIZE_MAX / size) {
		errno = ENOMEM;
		p = NULL;
	} else {
		p = realloc(p, n && size ? n * size : 1);
	}
	if (!p) {
		fputs("tracebuf: export: out of memory\n", stderr);
		exit(TB_EXIT_FAIL);
	}
	return p;
}

static int usage_err(const char *what, const char *arg)
{
	if (arg)
		fprintf(stderr, "tracebuf: export: %s '%s'\n", what, arg);
	else
		fprintf(stderr, "tracebuf: export: %s\n", what);
	fputs("Try 'tracebuf help' for more information.\n", stderr);
	return TB_EXIT_USAGE;
}

/* getopt_long's complaint (opterr = 0), as the other commands phrase it. */
static int bad_opt(char **argv, int c)
{
	char opt[3] = { '-', 0, 0 };
	const char *arg = argv[optind - 1];

	if (optopt && c != ':') {
		opt[1] = (char)optopt;
		arg = opt;
	}
	return usage_err(c == ':' ? "missing argument for option" : "unknown option", arg);
}

/* ---- the capture ------------------------------------------------------- */

/*
 * The capture, once tracebuf_capture_open() found that it adds up. Returns
 * 0, or -1 after a message when the directory is not a CoreSight capture
 * we can read.
 */
static int read_capture(struct export *x)
{
	char backend[64] = "";
	struct stat st;
	unsigned int i;
	int n;

	if (stat(x->cap, &st) < 0) {
		fprintf(stderr, "tracebuf: export: %s: %s\n", x->cap, strerror(errno));
		return -1;
	}
	if (!S_ISDIR(st.st_mode)) {
		fprintf(stderr, "tracebuf: export: %s: %s\n", x->cap, strerror(ENOTDIR));
		return -1;
	}
	if (tb_capture_open("export", x->cap, 0, 0, "exported", &x->c))
		return -1;
	x->incomplete = !tracebuf_capture_complete(x->c);
	if (tracebuf_capture_meta_str(x->c, "backend", backend, sizeof(backend)) < 0 ||
	    strcmp(backend, "coresight")) {
		fprintf(stderr, "tracebuf: export --opencsd: the capture has no CoreSight "
			"trace (backend %s)\n", backend[0] ? backend : "unknown");
		return -1;
	}
	tracebuf_capture_meta_bool(x->c, "snapshot", &x->snapshot);
	n = tracebuf_capture_nr_streams(x->c);
	x->files = xrealloc(NULL, (size_t)n, sizeof(*x->files));
	for (i = 0; i < (unsigned int)n; i++) {
		x->files[i].cpu = (unsigned int)tracebuf_capture_stream_cpu(x->c, i);
		x->files[i].described = 0;
	}
	x->nfiles = (unsigned int)n;
	return 0;
}

/* ---- segmentation -------------------------------------------------------- */

struct walk {
	struct ocsd_etm_regs *etms;	/* the session's ETMs, sorted by CPU */
	unsigned int netms;
	struct seg *cur;		/* the open segment, or NULL */
	enum brk pending;
	uint64_t lost;
	int atleast;
	uint64_t file_pos, expect;	/* next file offset, next aux_offset */
};

static void raise_brk(struct walk *w, enum brk b)
{
	if (b > w->pending)
		w->pending = b;
}

static void etm_regs(struct ocsd_etm_regs *o, const struct tracebuf_rec_etm *e)
{
	memset(o, 0, sizeof(*o));
	o->cpu = e->etm_cpu;
	o->trace_id = e->trace_id;
	o->trcconfigr = e->trcconfigr;
	o->trctraceidr = e->trctraceidr;
	memcpy(o->trcidr, e->trcidr, sizeof(o->trcidr));
	o->trcauthstatus = e->trcauthstatus;
}

static void on_etm(struct walk *w, const struct tracebuf_rec_etm *e)
{
	struct ocsd_etm_regs r;
	unsigned int i;

	etm_regs(&r, e);
	for (i = 0; i < w->netms && w->etms[i].cpu < r.cpu; i++)
		;
	if (i < w->netms && w->etms[i].cpu == r.cpu) {
		if (!memcmp(&w->etms[i], &r, sizeof(r))) {
			if (w->cur)
				raise_brk(w, BRK_RESTART);
			return;
		}
		w->etms[i] = r;
	} else {
		w->etms = xrealloc(w->etms, w->netms + 1, sizeof(*w->etms));
		memmove(&w->etms[i + 1], &w->etms[i], (w->netms - i) * sizeof(*w->etms));
		w->etms[i] = r;
		w->netms++;
	}
	/* Before the first span, it is simply how the first segment is traced. */
	if (w->cur)
		raise_brk(w, BRK_CONFIG);
}

static void on_aux(struct export *x, struct walk *w, unsigned int fi, uint64_t base,
		   const struct tracebuf_rec_aux *a)
{
	struct seg *s;

	if (w->cur && !x->snapshot && a->aux_offset != w->expect) {
		if (a->aux_offset > w->expect)
			w->lost += a->aux_offset - w->expect;
		raise_brk(w, BRK_GAP);
	}
	if (a->flags & TRACEBUF_AUX_F_TRUNCATED)
		raise_brk(w, BRK_TRUNCATED);
	if (x->snapshot || (a->flags & TRACEBUF_AUX_F_OVERWRITE))
		raise_brk(w, BRK_OVERWRITE);
	if (!w->cur)
		w->pending = BRK_START;
	if (w->pending != BRK_NONE) {
		x->segs = xrealloc(x->segs, x->nsegs + 1, sizeof(*x->segs));
		s = &x->segs[x->nsegs++];
		s->file = fi;
		s->file_off = w->file_pos;
		s->stream_off = base + w->file_pos;
		s->size = 0;
		s->brk = w->pending;
		s->lost = w->lost;
		s->atleast = w->atleast;
		s->netms = w->netms;
		s->etms = xrealloc(NULL, w->netms, sizeof(*s->etms));
		if (w->netms)
			memcpy(s->etms, w->etms, w->netms * sizeof(*s->etms));
		w->cur = s;
		w->pending = BRK_NONE;
		w->lost = 0;
		w->atleast = 0;
	}
	w->cur->size += a->aux_size;
	w->file_pos += a->aux_size;
	w->expect = a->aux_offset + a->aux_size;
}

/*
 * The records of one cpuN.data (checked at open: every record whole and of
 * its type's size): its segments appended to x->segs.
 */
static void walk_file(struct export *x, unsigned int fi, uint64_t base)
{
	struct tracebuf_capture_iter_opts io = {
		.sz = sizeof(io), .flags = TRACEBUF_ITER_ONE_CPU, .cpu = x->files[fi].cpu,
	};
	struct xfile *f = &x->files[fi];
	struct walk w = { .pending = BRK_START };
	struct tracebuf_capture_iter *it;
	const struct tracebuf_capture_rec *cr;
	int ret;

	ret = tracebuf_capture_iter_new(x->c, &io, &it);
	if (ret) {
		fprintf(stderr, "tracebuf: export: %s: cpu%u.data: %s\n", x->cap, f->cpu,
			tracebuf_strerror(ret));
		x->bad = 1;
		return;
	}
	while (tracebuf_capture_next(it, &cr) > 0) {
		const struct tracebuf_rec_etm *e = tracebuf_as_etm(cr->r);
		const struct tracebuf_rec_lost *l = tracebuf_as_lost(cr->r);

		if (cr->span) {
			on_aux(x, &w, fi, base, cr->span->rec);
		} else if (e) {
			x->etm_records++;
			on_etm(&w, e);
		} else if (l) {
			if (l->reason == TRACEBUF_LOST_AUX_OVERRUN) {
				w.lost += l->count;
				if (l->flags & TRACEBUF_LOST_F_AT_LEAST)
					w.atleast = 1;
				raise_brk(&w, BRK_TRUNCATED);
			}
		} else if (cr->r->hdr.type == TRACEBUF_REC_CONFIG) {
			if (w.cur)
				raise_brk(&w, BRK_RESTART);
		}
	}
	tracebuf_capture_iter_free(it);
	f->described = w.file_pos;
	free(w.etms);
}

/* ---- the output directory ---------------------------------------------- */

/* "segNNN": seg and at least three digits. */
static int seg_dir_name(const char *n)
{
	size_t i;

	if (strncmp(n, "seg", 3))
		return 0;
	for (i = 3; n[i] >= '0' && n[i] <= '9'; i++)
		;
	return i >= 6 && !n[i];
}

/* A file ocsd_write_snapshot() writes, or a memory image (mem/dumpN.bin). */
static int snapshot_file(const char *n)
{
	unsigned int k;
	int end = 0;

	if (!strcmp(n, "snapshot.ini") || !strcmp(n, "trace.ini") ||
	    !strcmp(n, "cstrace.bin"))
		return 1;
	if (sscanf(n, "dump%u.bin%n", &k, &end) == 1 && end && !n[end])
		return 1;
	if ((sscanf(n, "cpu_%u.ini%n", &k, &end) == 1 ||
	     sscanf(n, "device_%u.ini%n", &k, &end) == 1) && end && !n[end])
		return 1;
	return 0;
}

/* rm PATH, or a message: 0 or -1. */
static int remove_path(const char *path, int dir)
{
	if (!(dir ? rmdir(path) : unlink(path)))
		return 0;
	fprintf(stderr, "tracebuf: export: cannot remove %s: %s\n", path, strerror(errno));
	return -1;
}

/*
 * Check (remove == 0) or remove (1) the snapshot files of OUT/name.
 * Returns 0; 1 if it holds anything else (what names it); -1 after a
 * message if it cannot be read or emptied.
 */
static int seg_dir(const char *out, const char *name, int remove, char *what, size_t wl)
{
	char path[PATH_MAX], fp[PATH_MAX + NAME_MAX + 2];
	struct dirent *de;
	int ret = 0;
	DIR *d;

	snprintf(path, sizeof(path), "%s/%s", out, name);
	d = opendir(path);
	if (!d) {
		fprintf(stderr, "tracebuf: export: %s: %s\n", path, strerror(errno));
		return -1;
	}
	while ((de = readdir(d))) {
		if (!strcmp(de->d_name, ".") || !strcmp(de->d_name, ".."))
			continue;
		if (!snapshot_file(de->d_name)) {
			snprintf(what, wl, "%s/%s", name, de->d_name);
			ret = 1;
			break;
		}
		snprintf(fp, sizeof(fp), "%s/%s", path, de->d_name);
		if (remove && remove_path(fp, 0)) {
			ret = -1;
			break;
		}
	}
	closedir(d);
	if (!ret && remove && remove_path(path, 1))
		ret = -1;
	return ret;
}

/*
 * Create OUT, or empty it if it holds a previous export (segments and
 * segNNN directories of snapshot files) and nothing else.
 */
static int prepare_out(const char *out)
{
	char what[2 * NAME_MAX + 2], path[PATH_MAX];
	struct dirent *de;
	struct stat st;
	int pass, ret = 0;
	DIR *d;

	if (mkdir(out, 0777) == 0)
		return 0;
	if (errno != EEXIST) {
		fprintf(stderr, "tracebuf: export: cannot create %s: %s\n", out, strerror(errno));
		return -1;
	}
	/* Pass 0 checks everything, pass 1 removes it. */
	for (pass = 0; pass < 2 && !ret; pass++) {
		d = opendir(out);
		if (!d) {
			fprintf(stderr, "tracebuf: export: %s: %s\n", out, strerror(errno));
			return -1;
		}
		while (!ret && (de = readdir(d))) {
			const char *n = de->d_name;

			if (!strcmp(n, ".") || !strcmp(n, ".."))
				continue;
			snprintf(path, sizeof(path), "%s/%s", out, n);
			snprintf(what, sizeof(what), "%s", n);
			if (lstat(path, &st)) {
				ret = 1;
			} else if (!strcmp(n, SEGMENTS) || !strcmp(n, SEGMENTS ".tmp")) {
				if (!S_ISREG(st.st_mode))
					ret = 1;
				else if (pass)
					ret = remove_path(path, 0);
			} else if (seg_dir_name(n) && S_ISDIR(st.st_mode)) {
				ret = seg_dir(out, n, pass, what, sizeof(what));
			} else if (!strcmp(n, MEMDIR) && S_ISDIR(st.st_mode)) {
				ret = seg_dir(out, n, pass, what, sizeof(what));
			} else {
				ret = 1;
			}
		}
		closedir(d);
	}
	if (ret <= 0)
		return ret;
	if (!strcmp(what, TB_CAPTURE_META))
		fprintf(stderr, "tracebuf: export: %s holds a capture (meta.json): the output "
			"directory comes first (--opencsd OUTDIR CAPTURE)\n", out);
	else
		fprintf(stderr, "tracebuf: export: %s is not empty and not a previous export "
			"(%s): not writing into it\n", out, what);
	return -1;
}

/* ---- writing --------------------------------------------------------------- */

static int cmp_id(const void *a, const void *b)
{
	uint32_t x = *(const uint32_t *)a, y = *(const uint32_t *)b;

	return x < y ? -1 : x > y;
}

static void print_segment(FILE *f, size_t i, const struct seg *s, bool dir)
{
	uint32_t *ids = xrealloc(NULL, s->netms, sizeof(*ids));
	unsigned int k;

	for (k = 0; k < s->netms; k++)
		ids[k] = s->etms[k].trace_id;
	if (s->netms > 1)
		qsort(ids, s->netms, sizeof(*ids), cmp_id);
	fprintf(f, "segment index=%zu dir=", i);
	if (dir)
		fprintf(f, "seg%03zu", i);
	else
		fputc('-', f);
	fprintf(f, " offset=0x%" PRIx64 " size=%" PRIu64 " break=%s lost=%" PRIu64
		" atleast=%d ids=", s->stream_off, s->size, brk_names[s->brk], s->lost,
		s->atleast);
	for (k = 0; k < s->netms; k++)
		fprintf(f, "%s0x%x", k ? "," : "", ids[k]);
	if (!s->netms)
		fputc('-', f);
	fputc('\n', f);
	free(ids);
}

#ifdef HAVE_LIBDW
/* OUT/mem/dumpN.bin: the bytes of dump n, written once. 0 or -1 after a message. */
static int write_dump(struct export *x, size_t n)
{
	struct xdump *d = &x->dumps[n];
	char path[PATH_MAX];
	uint8_t buf[65536];
	uint64_t done = 0;
	FILE *f;

	if (d->written)
		return 0;
	snprintf(path, sizeof(path), "%s/%s", x->out, MEMDIR);
	if (mkdir(path, 0777) && errno != EEXIST) {
		fprintf(stderr, "tracebuf: export: cannot create %s: %s\n", path, strerror(errno));
		return -1;
	}
	snprintf(path, sizeof(path), "%s/%s/dump%zu.bin", x->out, MEMDIR, n);
	f = fopen(path, "we");
	if (!f) {
		fprintf(stderr, "tracebuf: export: cannot create %s: %s\n", path, strerror(errno));
		return -1;
	}
	while (done < d->length) {
		size_t want = d->length - done < sizeof(buf) ? (size_t)(d->length - done) : sizeof(buf);
		size_t got = img_read(d->f, d->pgoff + done, buf, want);

		if (!got || fwrite(buf, 1, got, f) != got)
			break;
		done += got;
	}
	if (fclose(f) || done != d->length) {
		fprintf(stderr, "tracebuf: export: cannot write %s\n", path);
		return -1;
	}
	d->written = true;
	return 0;
}

/* Add a mapping to the dumps of a segment (ids), unless it overlaps one there. */
static void add_dump(struct export *x, const struct img_map *m, size_t **ids, size_t *n)
{
	uint64_t len = m->end - m->start;
	size_t i;

	if (!m->f)
		return;		/* refused: said when it was opened */
	if (m->pgoff >= img_size(m->f))
		return;
	if (len > img_size(m->f) - m->pgoff)
		len = img_size(m->f) - m->pgoff;
	for (i = 0; i < *n; i++) {
		const struct xdump *d = &x->dumps[(*ids)[i]];

		if (m->start < d->address + d->length && d->address < m->start + len)
			return;	/* the same code, or another process's at that address */
	}
	for (i = 0; i < x->ndumps; i++)
		if (x->dumps[i].f == m->f && x->dumps[i].address == m->start &&
		    x->dumps[i].length == len && x->dumps[i].pgoff == m->pgoff)
			break;
	if (i == x->ndumps) {
		x->dumps = xrealloc(x->dumps, x->ndumps + 1, sizeof(*x->dumps));
		x->dumps[i] = (struct xdump){
			.f = m->f, .address = m->start, .length = len, .pgoff = m->pgoff,
		};
		x->ndumps++;
	}
	*ids = xrealloc(*ids, *n + 1, sizeof(**ids));
	(*ids)[(*n)++] = i;
}

/*
 * The memory images of a segment: the code mappings of every process that
 * ran in it (its threads' runs, from the SWITCH records), and the --elf
 * files; written to OUT/mem once, named from the snapshot directory.
 */
static unsigned int seg_dumps(struct export *x, unsigned int fi, const struct seg *s,
			      struct ocsd_dump **out)
{
	size_t *ids = NULL, n = 0, i;
	unsigned int e, k = 0;
	struct ocsd_dump *d;
	struct img_space *sp;

	for (e = 0; e < s->netms; e++) {
		uint64_t off = s->file_off;

		while (off < s->file_off + s->size) {
			struct sb_run_info ri;

			sb_thread_at(x->sb, fi, s->etms[e].cpu, off, &ri);
			if (ri.tid >= 0) {
				sp = sb_space_run(x->sb, ri.pid, ri.t_in, ri.t_out);
				for (i = 0; i < sp->n; i++)
					add_dump(x, &sp->maps[i], &ids, &n);
			}
			if (ri.until <= off)
				break;
			off = ri.until;
		}
	}
	sp = sb_space(x->sb, -1, 0);		/* --elf */
	for (i = 0; i < sp->n; i++)
		add_dump(x, &sp->maps[i], &ids, &n);
	d = xrealloc(NULL, n ? n : 1, sizeof(*d));
	for (i = 0; i < n; i++) {
		char name[64];

		if (write_dump(x, ids[i])) {
			x->bad = 1;
			continue;
		}
		snprintf(name, sizeof(name), "../%s/dump%zu.bin", MEMDIR, ids[i]);
		d[k].file = strdup(name);
		d[k].address = x->dumps[ids[i]].address;
		d[k].length = x->dumps[ids[i]].length;
		d[k].offset = 0;
		if (d[k].file)
			k++;
	}
	free(ids);
	*out = d;
	return k;
}

static void free_dumps(struct ocsd_dump *d, unsigned int n)
{
	unsigned int i;

	for (i = 0; i < n; i++)
		free((char *)d[i].file);
	free(d);
}
#endif

/* The snapshot directories, then OUT/segments. Returns the dirs written. */
static size_t write_out(struct export *x)
{
	char path[PATH_MAX], tmp[PATH_MAX], msg[512];
	bool *dirs = xrealloc(NULL, x->nsegs, sizeof(*dirs));
	size_t i, ndirs = 0;
	unsigned int fi;
	FILE *f;

	memset(dirs, 0, x->nsegs * sizeof(*dirs));

	for (fi = 0; fi < x->nfiles; fi++) {
		const struct xfile *xf = &x->files[fi];
		const unsigned char *aux = NULL;
		const void *map = NULL;
		uint64_t asize = 0;

		/* Checked at open: it holds at least what its records describe. */
		tracebuf_capture_aux(x->c, fi, &map, &asize);
		aux = map;

		for (i = 0; i < x->nsegs; i++) {
			struct seg *s = &x->segs[i];
			uint64_t n;
			int ret;

			if (s->file != fi || !s->size)
				continue;
			if (!s->netms) {
				fprintf(stderr, "tracebuf: export: segment %zu (cpu%u.aux at 0x%"
					PRIx64 "): no ETM record before it: not exported\n", i,
					xf->cpu, s->file_off);
				x->bad = 1;
				continue;
			}
			if (s->file_off >= asize)
				continue;
			n = asize - s->file_off < s->size ? asize - s->file_off : s->size;
			if (n % OCSD_FRAME_SIZE) {
				fprintf(stderr, "tracebuf: export: warning: segment %zu: the last %"
					PRIu64 " bytes are not a whole %d-byte frame: left out\n",
					i, n % OCSD_FRAME_SIZE, OCSD_FRAME_SIZE);
				n -= n % OCSD_FRAME_SIZE;
			}
			snprintf(path, sizeof(path), "%s/seg%03zu", x->out, i);
#ifdef HAVE_LIBDW
			if (x->sb) {
				struct ocsd_dump *d = NULL;
				unsigned int nd = seg_dumps(x, fi, s, &d);

				ret = ocsd_write_snapshot_dumps(path, s->etms, s->netms, d, nd,
								aux + s->file_off, (size_t)n,
								msg, sizeof(msg));
				free_dumps(d, nd);
			} else
#endif
			ret = ocsd_write_snapshot(path, s->etms, s->netms, aux + s->file_off,
						  (size_t)n, msg, sizeof(msg));
			if (ret < 0) {
				fprintf(stderr, "tracebuf: export: segment %zu: %s\n", i, msg);
				x->bad = 1;
				continue;
			}
			dirs[i] = true;
			ndirs++;
		}
	}

	snprintf(tmp, sizeof(tmp), "%s/%s.tmp", x->out, SEGMENTS);
	snprintf(path, sizeof(path), "%s/%s", x->out, SEGMENTS);
	f = fopen(tmp, "we");
	if (!f)
		goto fail;
	for (i = 0; i < x->nsegs; i++)
		print_segment(f, i, &x->segs[i], dirs[i]);
	if (fflush(f) || ferror(f)) {
		int err = errno;

		fclose(f);
		errno = err ? err : EIO;
		goto fail;
	}
	if (fclose(f) || rename(tmp, path))
		goto fail;
	free(dirs);
	return ndirs;
fail:
	fprintf(stderr, "tracebuf: export: cannot write %s: %s\n", path, strerror(errno));
	x->bad = 1;
	free(dirs);
	return ndirs;
}

#ifdef HAVE_LIBDW
/*
 * export --perfetto OUT CAPTURE: written to OUT.tmp, renamed when whole;
 * streamed (flow.c keeps the threads' call stacks, nothing else).
 */
static int export_perfetto(const char *out, const char *cap, const struct tb_flow_cli *cli)
{
	struct tb_flow_result res;
	char tmp[PATH_MAX];
	struct stat st;
	FILE *f;
	int ret;

	if (stat(cap, &st) < 0 || !S_ISDIR(st.st_mode)) {
		fprintf(stderr, "tracebuf: export: %s: %s\n", cap,
			stat(cap, &st) < 0 ? strerror(errno) : "not a directory");
		return TB_EXIT_FAIL;
	}
	if (!strcmp(out, "-")) {
		/* To standard output (a pipe: gzip, a benchmark's /dev/null). */
		ret = tb_flow_run("export", cap, FLOW_PERFETTO, true, stdout, cli, &res);
		if (ret)
			return TB_EXIT_FAIL;
		fprintf(stderr, "tracebuf: export: %" PRIu64 " calls of %" PRIu64 " instructions\n",
			res.calls, res.insns);
		return res.errors || res.refused || res.problems || res.incomplete ? TB_EXIT_FAIL :
		       TB_EXIT_OK;
	}
	if (snprintf(tmp, sizeof(tmp), "%s.tmp", out) >= (int)sizeof(tmp)) {
		fprintf(stderr, "tracebuf: export: %s: name too long\n", out);
		return TB_EXIT_FAIL;
	}
	f = fopen(tmp, "w");
	if (!f) {
		fprintf(stderr, "tracebuf: export: %s: %s\n", tmp, strerror(errno));
		return TB_EXIT_FAIL;
	}
	ret = tb_flow_run("export", cap, FLOW_PERFETTO, true, f, cli, &res);
	if (fclose(f) && !ret) {
		fprintf(stderr, "tracebuf: export: %s: %s\n", tmp, strerror(errno));
		ret = -EIO;
	}
	if (ret) {
		unlink(tmp);
		return TB_EXIT_FAIL;
	}
	if (rename(tmp, out)) {
		fprintf(stderr, "tracebuf: export: %s: %s\n", out, strerror(errno));
		unlink(tmp);
		return TB_EXIT_FAIL;
	}
	printf("%s: %" PRIu64 " calls of %" PRIu64 " instructions; open it in "
	       "https://ui.perfetto.dev or chrome://tracing\n", out, res.calls, res.insns);
	if (res.errors || res.refused || res.problems)
		fprintf(stderr, "tracebuf: export: %s: %" PRIu64 " decode errors, %u files refused, "
			"%u sideband problems\n", cap, res.errors, res.refused, res.problems);
	if (res.incomplete)
		fprintf(stderr, "tracebuf: export: %s: the capture is incomplete (\"complete\": "
			"false, the recording was interrupted)\n", cap);
	return res.errors || res.refused || res.problems || res.incomplete ? TB_EXIT_FAIL :
	       TB_EXIT_OK;
}
#endif

int cmd_export(int argc, char **argv)
{
	static const struct option longopts[] = {
		{ "opencsd", required_argument, NULL, 'o' },
		{ "perfetto", required_argument, NULL, 'p' },
		{ "help", no_argument, NULL, 'h' },
#ifdef HAVE_LIBDW
		TB_FLOW_LONGOPTS,
#endif
		{ NULL, 0, NULL, 0 },
	};
	struct export x = { 0 };
	const char *perfetto = NULL;
	bool flow_opts = false;
#ifdef HAVE_LIBDW
	struct tb_flow_cli cli;
	const char *badarg;

	tb_flow_cli_init(&cli);
#endif
	uint64_t base = 0, total = 0;
	size_t i, ndirs;
	char path[PATH_MAX];
	unsigned int fi;
	int c, fatal = 0;

	tb_getopt_reset();
	while ((c = getopt_long(argc, argv, ":h", longopts, NULL)) != -1) {
		switch (c) {
		case 'o':
			if (!*optarg)
				return usage_err("empty output directory", NULL);
			x.out = optarg;
			break;
		case 'p':
			if (!*optarg)
				return usage_err("empty output file", NULL);
			perfetto = optarg;
			break;
		case 'h':
			fputs(export_usage_text, stdout);
			return TB_EXIT_OK;
		default:
#ifdef HAVE_LIBDW
			if (c >= TB_FLOW_OPT_PID && c <= TB_FLOW_OPT_NO_DISASM) {
				if (tb_flow_cli_opt(&cli, c, optarg, &badarg)) {
					tb_flow_cli_free(&cli);
					return usage_err("invalid argument", badarg);
				}
				/* --sysroot and --elf also give --opencsd its images. */
				if (c != TB_FLOW_OPT_SYSROOT && c != TB_FLOW_OPT_ELF)
					flow_opts = true;
				break;
			}
#endif
			return bad_opt(argv, c);
		}
	}
	if (x.out && perfetto)
		return usage_err("--opencsd and --perfetto cannot be combined", NULL);
	if (!x.out && !perfetto)
		return usage_err("missing the output format (--opencsd OUTDIR or --perfetto "
				 "OUT.json)", NULL);
	if (flow_opts && !perfetto)
		return usage_err("--pid, --tid and --time go with --perfetto", NULL);
	if (optind >= argc)
		return usage_err("missing capture directory", NULL);
	if (argc - optind > 1)
		return usage_err("unexpected argument", argv[optind + 1]);
	x.cap = argv[optind];
	if (perfetto) {
#ifdef HAVE_LIBDW
		int ret = export_perfetto(perfetto, x.cap, &cli);

		tb_flow_cli_free(&cli);
		return ret;
#else
		fputs("tracebuf: export --perfetto needs elfutils: install libelf-dev and "
		      "libdw-dev (Debian: apt-get install libelf-dev libdw-dev) and rebuild\n",
		      stderr);
		return TB_EXIT_FAIL;
#endif
	}
	/* 'export --opencsd CAPTURE OUTDIR' would write into the capture. */
	snprintf(path, sizeof(path), "%s/%s", x.out, TB_CAPTURE_META);
	if (!access(path, F_OK)) {
		fprintf(stderr, "tracebuf: export: %s holds a capture (meta.json): the output "
			"directory comes first (--opencsd OUTDIR CAPTURE)\n", x.out);
		fputs("Try 'tracebuf help' for more information.\n", stderr);
		return TB_EXIT_USAGE;
	}

	if (read_capture(&x)) {
		tracebuf_capture_close(x.c);
		free(x.files);
		return TB_EXIT_FAIL;
	}
	for (fi = 0; fi < x.nfiles; fi++) {
		walk_file(&x, fi, base);
		base += x.files[fi].described;
	}
	for (i = 0; i < x.nsegs; i++)
		total += x.segs[i].size;
	if (!x.etm_records) {
		fprintf(stderr, "tracebuf: export: %s: no ETM record: not a CoreSight capture\n",
			x.cap);
		fatal = 1;
	} else if (!total) {
		fprintf(stderr, "tracebuf: export: %s: no AUX data: nothing to export\n", x.cap);
		fatal = 1;
	}
	if (x.incomplete) {
		fprintf(stderr, "tracebuf: export: %s: the capture is incomplete (\"complete\": "
			"false, the recording was interrupted): its counts were not checked\n",
			x.cap);
		x.bad = 1;
	}
#ifdef HAVE_LIBDW
	if (!fatal) {
		struct img_opts io = { .cmd = "export", .sysroot = cli.sysroot, .capdir = x.cap };
		struct sb_opts so = {
			.cmd = "export", .dir = x.cap, .elfs = cli.elfs, .nelfs = cli.nelfs,
		};

		if (img_cache_new(&io, &x.img) == 0) {
			so.img = x.img;
			if (sb_open(x.c, &so, &x.sb) < 0)
				x.sb = NULL;
		}
		if (!x.sb) {
			fprintf(stderr, "tracebuf: export: %s: its sideband cannot be read: no "
				"memory images\n", x.cap);
			x.bad = 1;
		}
	}
#endif
	if (!fatal && prepare_out(x.out) == 0) {
		ndirs = write_out(&x);
		printf("%s: %zu segment%s, %zu snapshot director%s (trc_pkt_lister -ss_dir "
		       "%s/segNNN -decode)", x.out, x.nsegs, x.nsegs == 1 ? "" : "s", ndirs,
		       ndirs == 1 ? "y" : "ies", x.out);
#ifdef HAVE_LIBDW
		printf(", %zu memory image%s", x.ndumps, x.ndumps == 1 ? "" : "s");
#endif
		putchar('\n');
	} else {
		x.bad = 1;
	}
	for (i = 0; i < x.nsegs; i++)
		free(x.segs[i].etms);
	free(x.segs);
	free(x.files);
#ifdef HAVE_LIBDW
	if (x.sb && (sb_problems(x.sb) || img_refused(x.img)))
		x.bad = 1;
	sb_close(x.sb);
	img_cache_free(x.img);
	free(x.dumps);
	tb_flow_cli_free(&cli);
#endif
	tracebuf_capture_close(x.c);
	return x.bad ? TB_EXIT_FAIL : TB_EXIT_OK;
}
