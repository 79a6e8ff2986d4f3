// SPDX-License-Identifier: GPL-2.0
/*
 * sideband.c - threads, chunks and address spaces from a capture
 * (sideband.h).
 *
 * Chunks. Per stream, the AUX records (spans: their free-running ring
 * position aux_offset, their bytes in cpuN.aux) and the SWITCH records
 * (a thread's run on a CPU: from the IN record's aux_offset to its OUT
 * record's) are collected; each span is cut at the runs' edges and every
 * piece belongs to the run that holds it. Pieces of one run that follow
 * each other in the file, with no segment boundary between them
 * (docs/capture-format.md: TRUNCATED or COLLISION span, aux_offset jump,
 * CONFIG record, snapshot span), form a chunk. Bytes in no run are a
 * problem (said once per stream) and decode as a chunk of thread -1.
 * CoreSight streams (several CPUs in one sink) are cut at segment
 * boundaries only; the decoder asks sb_thread_at() per trace ID.
 *
 * Address spaces. Per process, the events of the perf sideband in time
 * order: executable mmap2 (or mmap) records add a mapping (replacing what
 * it overlaps, as the kernel does), a comm record flagged exec empties the
 * space, and a fork record (pid != ppid) starts the child from its
 * parent's space at that time (TASK records of the per-task target say
 * the same about forks). sb_space(P, T) applies what happened up to T and
 * caches the result per (process, number of events applied).
 */
#include <errno.h>
#include <fcntl.h>
#include <inttypes.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/stat.h>
#include <unistd.h>

#include <linux/perf_event.h>

#include <libtracebuf.h>

#include "sideband.h"

#define SB_MAX_FILES	4096

struct sspan {
	uint64_t pos, size, file, time;
	uint64_t flags;			/* TRACEBUF_AUX_F_* */
	bool cfg_first;			/* the first span after a CONFIG record */
	bool lost_before;		/* records or bytes lost since the previous span */
	const char *cfg;
};

struct sswitch {
	uint64_t pos, time;
	unsigned int cpu;
	int32_t pid, tid;
	uint32_t flags;
};

struct run {
	unsigned int stream, cpu;
	int32_t pid, tid;
	uint64_t pos_in, pos_out;	/* pos_out UINT64_MAX: no OUT record */
	uint64_t t_in, t_out;
	uint64_t off_in, off_out;	/* the same as offsets in cpuN.aux */
	bool exec;
	size_t seq;			/* order of IN records within the stream */
};

enum pev_kind { PEV_MAP, PEV_EXEC };

struct pev {
	uint64_t time;
	enum pev_kind kind;
	uint64_t start, len, pgoff;
	const char *path;
	uint8_t bid[IMG_BUILD_ID_MAX];
	unsigned int bid_len;
	size_t seq;			/* file order, for a stable sort */
};

struct proc {
	int32_t pid;
	int32_t ppid;			/* -1: none known */
	uint64_t fork_time;
	struct pev *ev;
	size_t nev, cap;
	struct img_space **cache;	/* [2 * (nev + 1)], by (events applied, fork base) */
	bool sorted;
};

struct comm {
	int32_t tid;
	char *name;
};

struct sb {
	struct sb_opts o;
	struct tracebuf_capture *cap;
	bool coresight, snapshot;
	struct sb_chunk *chunks;
	size_t nchunks, chunks_cap;
	struct run *runs;		/* every stream's, by stream then seq */
	size_t nruns, runs_cap;
	bool per_task, sideband;
	struct proc *procs;
	size_t nprocs, procs_cap;
	struct comm *comms;
	size_t ncomms, comms_cap;
	char **strs;			/* strings kept (paths, configurations) */
	size_t nstrs, strs_cap;
	struct img_map *elf_maps;	/* --elf */
	size_t nelf_maps;
	struct img_space *elf_space;
	struct img_kernel *kernel;
	struct stream_etms {
		struct sb_etm *e;
		size_t n;
	} *etms;			/* per stream */
	size_t nstreams;
	unsigned int problems;
	size_t pev_seq;
	/* Trace timestamp conversion (perf's time_zero/mult/shift). */
	bool have_conv;
	uint64_t time_zero, time_mult, time_shift, time_offset;
};

static void *xrealloc(void *p, size_t n, size_t size)
{
	if (size && n > SIZE_MAX / size)
		p = NULL;
	else
		p = realloc(p, n && size ? n * size : 1);
	if (!p) {
		fputs("tracebuf: out of memory\n", stderr);
		exit(1);
	}
	return p;
}

#define GROW(arr, n, cap) do { \
	if ((n) == (cap)) { \
		(cap) = (cap) ? 2 * (cap) : 16; \
		(arr) = xrealloc((arr), (cap), sizeof(*(arr))); \
	} \
} while (0)

static const char *keep(struct sb *sb, const char *s, size_t len)
{
	char *d = malloc(len + 1);

	if (!d) {
		fputs("tracebuf: out of memory\n", stderr);
		exit(1);
	}
	memcpy(d, s, len);
	d[len] = 0;
	GROW(sb->strs, sb->nstrs, sb->strs_cap);
	sb->strs[sb->nstrs++] = d;
	return d;
}

static void problem(struct sb *sb, const char *fmt, ...) __attribute__((format(printf, 2, 3)));

static void problem(struct sb *sb, const char *fmt, ...)
{
	va_list ap;

	sb->problems++;
	if (sb->o.quiet)
		return;
	fprintf(stderr, "tracebuf: %s: %s: ", sb->o.cmd, sb->o.dir);
	va_start(ap, fmt);
	vfprintf(stderr, fmt, ap);
	va_end(ap);
	fputc('\n', stderr);
}

/* ---- processes ------------------------------------------------------------ */

static struct proc *proc_of(struct sb *sb, int32_t pid, bool create)
{
	size_t i;

	for (i = 0; i < sb->nprocs; i++)
		if (sb->procs[i].pid == pid)
			return &sb->procs[i];
	if (!create)
		return NULL;
	GROW(sb->procs, sb->nprocs, sb->procs_cap);
	memset(&sb->procs[sb->nprocs], 0, sizeof(sb->procs[0]));
	sb->procs[sb->nprocs].pid = pid;
	sb->procs[sb->nprocs].ppid = -1;
	return &sb->procs[sb->nprocs++];
}

static struct pev *proc_event(struct sb *sb, int32_t pid, uint64_t time, enum pev_kind kind)
{
	struct proc *p = proc_of(sb, pid, true);
	struct pev *e;

	GROW(p->ev, p->nev, p->cap);
	e = &p->ev[p->nev++];
	memset(e, 0, sizeof(*e));
	e->time = time;
	e->kind = kind;
	e->seq = sb->pev_seq++;
	p->sorted = false;
	return e;
}

static void proc_fork(struct sb *sb, int32_t pid, int32_t ppid, uint64_t time)
{
	struct proc *p;

	if (pid == ppid || pid <= 0 || ppid <= 0)
		return;
	p = proc_of(sb, pid, true);
	if (p->ppid < 0 || time < p->fork_time) {
		p->ppid = ppid;
		p->fork_time = time;
	}
}

static void set_comm(struct sb *sb, int32_t tid, const char *name, size_t len)
{
	size_t i;

	for (i = 0; i < sb->ncomms; i++)
		if (sb->comms[i].tid == tid)
			break;
	if (i == sb->ncomms) {
		GROW(sb->comms, sb->ncomms, sb->comms_cap);
		sb->comms[sb->ncomms].tid = tid;
		sb->comms[sb->ncomms++].name = NULL;
	}
	free(sb->comms[i].name);
	sb->comms[i].name = strndup(name, len);
}

const char *sb_comm(const struct sb *sb, int32_t tid)
{
	size_t i;

	for (i = 0; i < sb->ncomms; i++)
		if (sb->comms[i].tid == tid)
			return sb->comms[i].name;
	return NULL;
}

/* ---- the perf sideband ---------------------------------------------------- */

/* The sample_id_all trailer of a non-sample record: its time, if any. */
static bool trailer_time(uint64_t sample_type, const uint8_t *rec, size_t size, uint64_t *time)
{
	static const uint64_t order[] = {
		PERF_SAMPLE_TID, PERF_SAMPLE_TIME, PERF_SAMPLE_ID, PERF_SAMPLE_STREAM_ID,
		PERF_SAMPLE_CPU, PERF_SAMPLE_IDENTIFIER,
	};
	size_t n = 0, i, at = 0;

	for (i = 0; i < sizeof(order) / sizeof(order[0]); i++)
		if (sample_type & order[i])
			n++;
	if (!(sample_type & PERF_SAMPLE_TIME) || size < sizeof(struct perf_event_header) + 8 * n)
		return false;
	for (i = 0; order[i] != PERF_SAMPLE_TIME; i++)
		if (sample_type & order[i])
			at++;
	memcpy(time, rec + size - 8 * n + 8 * at, 8);
	return true;
}

static size_t trailer_size(uint64_t sample_type)
{
	uint64_t bits = sample_type & (PERF_SAMPLE_TID | PERF_SAMPLE_TIME | PERF_SAMPLE_ID |
				       PERF_SAMPLE_STREAM_ID | PERF_SAMPLE_CPU |
				       PERF_SAMPLE_IDENTIFIER);

	return 8 * (size_t)__builtin_popcountll(bits);
}

struct mmap2_body {
	uint32_t pid, tid;
	uint64_t addr, len, pgoff;
	union {
		struct {
			uint32_t maj, min;
			uint64_t ino, ino_generation;
		};
		struct {
			uint8_t build_id_size;
			uint8_t reserved1;
			uint16_t reserved2;
			uint8_t build_id[20];
		};
	};
	uint32_t prot, flags;
	/* char filename[] */
};

static void read_perf_file(struct sb *sb, const char *name, uint64_t sample_type)
{
	char path[4096];
	struct stat st;
	uint8_t *buf;
	size_t off = 0, tl = trailer_size(sample_type);
	int fd;

	snprintf(path, sizeof(path), "%s/%s", sb->o.dir, name);
	fd = open(path, O_RDONLY | O_CLOEXEC);
	if (fd < 0 || fstat(fd, &st) < 0) {
		problem(sb, "sideband file %s: %s", name, strerror(errno));
		if (fd >= 0)
			close(fd);
		return;
	}
	if (!st.st_size) {
		close(fd);
		return;
	}
	buf = mmap(NULL, (size_t)st.st_size, PROT_READ, MAP_PRIVATE, fd, 0);
	close(fd);
	if (buf == MAP_FAILED) {
		problem(sb, "sideband file %s: %s", name, strerror(errno));
		return;
	}
	while ((size_t)st.st_size - off >= sizeof(struct perf_event_header)) {
		struct perf_event_header h;
		const uint8_t *r = buf + off;
		uint64_t time = 0;
		size_t body;

		memcpy(&h, r, sizeof(h));
		if (h.size < sizeof(h) || h.size % 8 || h.size > (size_t)st.st_size - off) {
			problem(sb, "sideband file %s: a record at offset %zu has size %u: the rest "
				"is not read", name, off, h.size);
			break;
		}
		off += h.size;
		if (h.size < sizeof(h) + tl)
			continue;
		body = h.size - sizeof(h) - tl;
		trailer_time(sample_type, r, h.size, &time);
		r += sizeof(h);
		switch (h.type) {
		case PERF_RECORD_MMAP2: {
			struct mmap2_body m;
			struct pev *e;
			size_t fl;

			if (body < sizeof(m) + 1)
				break;
			memcpy(&m, r, sizeof(m));
			if (!(m.prot & 4 /* PROT_EXEC */) || !m.len)
				break;
			fl = strnlen((const char *)r + sizeof(m), body - sizeof(m));
			e = proc_event(sb, (int32_t)m.pid, time, PEV_MAP);
			e->start = m.addr;
			e->len = m.len;
			e->pgoff = m.pgoff;
			e->path = keep(sb, (const char *)r + sizeof(m), fl);
			if (h.misc & PERF_RECORD_MISC_MMAP_BUILD_ID) {
				e->bid_len = m.build_id_size > IMG_BUILD_ID_MAX ? IMG_BUILD_ID_MAX :
					     m.build_id_size;
				memcpy(e->bid, m.build_id, e->bid_len);
			}
			break;
		}
		case PERF_RECORD_MMAP: {
			struct { uint32_t pid, tid; uint64_t addr, len, pgoff; } m;
			struct pev *e;
			size_t fl;

			if (body < sizeof(m) + 1 || (h.misc & PERF_RECORD_MISC_MMAP_DATA))
				break;
			memcpy(&m, r, sizeof(m));
			fl = strnlen((const char *)r + sizeof(m), body - sizeof(m));
			e = proc_event(sb, (int32_t)m.pid, time, PEV_MAP);
			e->start = m.addr;
			e->len = m.len;
			e->pgoff = m.pgoff;
			e->path = keep(sb, (const char *)r + sizeof(m), fl);
			break;
		}
		case PERF_RECORD_COMM: {
			uint32_t ids[2];

			if (body < sizeof(ids) + 1)
				break;
			memcpy(ids, r, sizeof(ids));
			set_comm(sb, (int32_t)ids[1], (const char *)r + 8,
				 strnlen((const char *)r + 8, body - 8));
			if (h.misc & PERF_RECORD_MISC_COMM_EXEC)
				proc_event(sb, (int32_t)ids[0], time, PEV_EXEC);
			break;
		}
		case PERF_RECORD_FORK: {
			struct { uint32_t pid, ppid, tid, ptid; uint64_t time; } fk;

			if (body < sizeof(fk))
				break;
			memcpy(&fk, r, sizeof(fk));
			proc_fork(sb, (int32_t)fk.pid, (int32_t)fk.ppid, fk.time ? fk.time : time);
			break;
		}
		default:
			break;
		}
	}
	munmap(buf, (size_t)st.st_size);
}

/*
 * meta.json "sideband": {"format": "perf", "sample_type": N,
 * "files": [...], "time_conv": {"time_zero", "time_mult", "time_shift",
 * "time_offset"}}.
 */
static void read_sideband(struct sb *sb)
{
	uint64_t sample_type = 0, v;
	char key[64], name[256];
	unsigned int i;

	if (tracebuf_capture_meta_u64(sb->cap, "sideband.sample_type", &sample_type) < 0)
		return;
	sb->sideband = true;
	for (i = 0; i < SB_MAX_FILES; i++) {
		snprintf(key, sizeof(key), "sideband.files.%u", i);
		if (tracebuf_capture_meta_str(sb->cap, key, name, sizeof(name)) < 0)
			break;
		if (strchr(name, '/') || name[0] == '.') {
			problem(sb, "meta.json: sideband file \"%s\" is not a file of the capture",
				name);
			continue;
		}
		read_perf_file(sb, name, sample_type);
	}
	if (!tracebuf_capture_meta_u64(sb->cap, "sideband.time_conv.time_mult", &sb->time_mult) &&
	    !tracebuf_capture_meta_u64(sb->cap, "sideband.time_conv.time_shift", &sb->time_shift) &&
	    !tracebuf_capture_meta_u64(sb->cap, "sideband.time_conv.time_zero", &sb->time_zero) &&
	    sb->time_shift < 64) {
		sb->have_conv = true;
		if (!tracebuf_capture_meta_u64(sb->cap, "sideband.time_conv.time_offset", &v))
			sb->time_offset = v;
	}
}

bool sb_tsc_to_ns(const struct sb *sb, uint64_t tsc, uint64_t *ns)
{
	uint64_t quot, rem;

	if (!sb->have_conv)
		return false;
	/* perf_event_mmap_page's cap_user_time_zero formula. */
	quot = tsc >> sb->time_shift;
	rem = tsc & ((1ULL << sb->time_shift) - 1);
	*ns = sb->time_zero + quot * sb->time_mult + ((rem * sb->time_mult) >> sb->time_shift) +
	      sb->time_offset;
	return true;
}

/* ---- address spaces --------------------------------------------------------- */

static int pev_cmp(const void *a, const void *b)
{
	const struct pev *x = a, *y = b;

	if (x->time != y->time)
		return x->time < y->time ? -1 : 1;
	return x->seq < y->seq ? -1 : x->seq > y->seq;
}

/* Insert m into s, replacing what it overlaps (as a new mmap does). */
static void space_insert(struct img_space *s, const struct img_map *m)
{
	struct img_map *out = xrealloc(NULL, s->n + 2, sizeof(*out));
	size_t i, n = 0;
	bool placed = false;

	for (i = 0; i < s->n; i++) {
		struct img_map o = s->maps[i];

		if (o.end <= m->start || o.start >= m->end) {
			if (!placed && o.start >= m->end) {
				out[n++] = *m;
				placed = true;
			}
			out[n++] = o;
			continue;
		}
		if (o.start < m->start) {		/* the part below */
			struct img_map lo = o;

			lo.end = m->start;
			out[n++] = lo;
		}
		if (!placed) {
			out[n++] = *m;
			placed = true;
		}
		if (o.end > m->end) {			/* the part above */
			struct img_map hi = o;

			hi.pgoff += m->end - o.start;
			hi.start = m->end;
			out[n++] = hi;
		}
	}
	if (!placed)
		out[n++] = *m;
	free(s->maps);
	s->maps = out;
	s->n = n;
	s->last = 0;
}

static struct img_space *space_copy(const struct img_space *from)
{
	struct img_space *s = xrealloc(NULL, 1, sizeof(*s));

	memset(s, 0, sizeof(*s));
	if (from && from->n) {
		s->maps = xrealloc(NULL, from->n, sizeof(*s->maps));
		memcpy(s->maps, from->maps, from->n * sizeof(*s->maps));
		s->n = from->n;
	}
	return s;
}

static void space_add_elf(struct sb *sb, struct img_space *s)
{
	size_t i;

	for (i = 0; i < sb->nelf_maps; i++)
		space_insert(s, &sb->elf_maps[i]);
	s->kernel = sb->kernel;
}

static struct img_space *space_at(struct sb *sb, struct proc *p, uint64_t t, int depth);

static struct img_space *space_build(struct sb *sb, struct proc *p, size_t idx, bool fork_base,
				     int depth)
{
	struct img_space *s = NULL;
	size_t i, first = 0;

	/* After an exec, what came before does not matter. */
	for (i = idx; i > 0; i--)
		if (p->ev[i - 1].kind == PEV_EXEC) {
			first = i;
			break;
		}
	if (!first && fork_base) {
		struct proc *pp = proc_of(sb, p->ppid, false);

		if (pp && depth < 64) {
			struct img_space *base = space_at(sb, pp, p->fork_time, depth + 1);

			/* Only the process's own mappings (the --elf ones come again below). */
			s = space_copy(base);
		}
	}
	if (!s)
		s = space_copy(NULL);
	for (i = first; i < idx; i++) {
		const struct pev *e = &p->ev[i];
		struct img_map m = {
			.start = e->start, .end = e->start + e->len, .pgoff = e->pgoff,
			.path = e->path,
		};

		if (e->kind != PEV_MAP || m.end <= m.start)
			continue;
		m.f = img_get(sb->o.img, e->path, e->bid, e->bid_len, &m.why);
		space_insert(s, &m);
	}
	return s;
}

static struct img_space *space_at(struct sb *sb, struct proc *p, uint64_t t, int depth)
{
	size_t lo = 0, hi, key;
	bool fork_base;

	if (!p->sorted) {
		if (p->nev > 1)
			qsort(p->ev, p->nev, sizeof(*p->ev), pev_cmp);
		free(p->cache);
		p->cache = NULL;
		p->sorted = true;
	}
	hi = p->nev;
	while (lo < hi) {		/* events at or before t */
		size_t mid = lo + (hi - lo) / 2;

		if (p->ev[mid].time <= t)
			lo = mid + 1;
		else
			hi = mid;
	}
	fork_base = p->ppid > 0 && p->fork_time <= t;
	if (!p->cache) {
		p->cache = xrealloc(NULL, 2 * (p->nev + 1), sizeof(*p->cache));
		memset(p->cache, 0, 2 * (p->nev + 1) * sizeof(*p->cache));
	}
	key = 2 * lo + fork_base;
	if (!p->cache[key]) {
		p->cache[key] = space_build(sb, p, lo, fork_base, depth);
		/* The --elf files and the kernel are in the cached copy only at depth 0. */
		space_add_elf(sb, p->cache[key]);
	}
	return p->cache[key];
}

struct img_space *sb_space(struct sb *sb, int32_t pid, uint64_t t)
{
	struct proc *p = pid > 0 ? proc_of(sb, pid, false) : NULL;

	if (!p) {
		if (!sb->elf_space) {
			sb->elf_space = space_copy(NULL);
			space_add_elf(sb, sb->elf_space);
		}
		return sb->elf_space;
	}
	return space_at(sb, p, t, 0);
}

struct img_space *sb_space_run(struct sb *sb, int32_t pid, uint64_t t_in, uint64_t t_out)
{
	struct proc *p = pid > 0 ? proc_of(sb, pid, false) : NULL;
	size_t i;

	for (i = 0; p && i < p->nev; i++)
		if (p->ev[i].kind == PEV_EXEC && p->ev[i].time > t_in && p->ev[i].time <= t_out)
			t_out = p->ev[i].time - 1;	/* in the end, before the first one */
	return sb_space(sb, pid, t_out);
}

/* --elf FILE[:ADDR]: its executable PT_LOAD segments, placed at ADDR. */
static int add_elfs(struct sb *sb)
{
	size_t i;

	for (i = 0; i < sb->o.nelfs; i++) {
		const struct sb_elf *e = &sb->o.elfs[i];
		const char *why;
		struct img_file *f = img_get(sb->o.img, e->path, NULL, 0, &why);

		if (!f)
			return -1;
		if (img_elf_segments(f, e->have_base, e->base, &sb->elf_maps, &sb->nelf_maps) < 0) {
			fprintf(stderr, "tracebuf: %s: --elf %s: no executable segment\n",
				sb->o.cmd, e->path);
			return -1;
		}
	}
	return 0;
}

/* ---- chunks ------------------------------------------------------------------ */

struct stream_recs {
	unsigned int stream, cpu;
	struct sb_etm *etms;
	size_t netms, etms_cap;
	struct sspan *spans;
	size_t nspans, spans_cap;
	struct sswitch *sw;
	size_t nsw, sw_cap;
};

static void add_chunk(struct sb *sb, const struct sb_chunk *c)
{
	if (c->end <= c->begin)
		return;
	GROW(sb->chunks, sb->nchunks, sb->chunks_cap);
	sb->chunks[sb->nchunks++] = *c;
}

/* Where a free-running ring position is in cpuN.aux (in or after a span). */
static uint64_t pos_to_file(const struct stream_recs *sr, uint64_t pos, uint64_t file_end)
{
	size_t lo = 0, hi = sr->nspans;

	/* The first span that ends after pos (spans are in ring order). */
	while (lo < hi) {
		size_t mid = lo + (hi - lo) / 2;

		if (sr->spans[mid].pos + sr->spans[mid].size <= pos)
			lo = mid + 1;
		else
			hi = mid;
	}
	if (lo == sr->nspans)
		return file_end;
	if (pos <= sr->spans[lo].pos)
		return sr->spans[lo].file;
	return sr->spans[lo].file + (pos - sr->spans[lo].pos);
}

/* A span ends the hardware's run: the bytes after it are another segment. */
static bool span_stops(const struct sspan *s)
{
	return s->flags & (TRACEBUF_AUX_F_TRUNCATED | TRACEBUF_AUX_F_COLLISION);
}

/* Trace was lost just before span i (not counting a stop at the end of i - 1). */
static bool span_lost_before(const struct stream_recs *sr, size_t i, bool snapshot)
{
	const struct sspan *s = &sr->spans[i];

	if (snapshot)
		return false;
	return s->lost_before || (i && s->pos != sr->spans[i - 1].pos + sr->spans[i - 1].size);
}

/* Span i starts a segment (docs/capture-format.md, "Segment boundaries"). */
static bool span_boundary(const struct stream_recs *sr, size_t i, bool snapshot)
{
	return !i || snapshot || sr->spans[i].cfg_first || span_stops(&sr->spans[i - 1]) ||
	       span_lost_before(sr, i, snapshot);
}

/*
 * Segments only: CPU-wide Intel PT, every CoreSight stream. CoreSight
 * (docs/capture-format.md): a TRUNCATED span starts a segment (the bytes
 * lost came before it) and the spans after it continue it.
 */
static void segment_chunks(struct sb *sb, const struct stream_recs *sr)
{
	struct sb_chunk c;
	bool open = false;
	size_t i;

	for (i = 0; i < sr->nspans; i++) {
		const struct sspan *s = &sr->spans[i];
		bool boundary = sb->coresight ?
			(!i || sb->snapshot || s->cfg_first || span_lost_before(sr, i, sb->snapshot) ||
			 (s->flags & (TRACEBUF_AUX_F_TRUNCATED | TRACEBUF_AUX_F_COLLISION))) :
			span_boundary(sr, i, sb->snapshot);

		if (!open || boundary) {
			if (open)
				add_chunk(sb, &c);
			memset(&c, 0, sizeof(c));
			c.stream = sr->stream;
			c.cpu = sr->cpu;
			c.stream_cpu = sr->cpu;
			c.pid = c.tid = -1;
			c.begin = s->file;
			c.time = s->time;
			c.time_end = UINT64_MAX;
			c.config = s->cfg;
			c.run_start = true;
			c.lost_before = span_lost_before(sr, i, sb->snapshot);
			c.anywhere = sb->snapshot;
			open = true;
		}
		c.end = s->file + s->size;
		c.may_cut = !sb->coresight && (span_stops(s) || (i + 1 < sr->nspans &&
			     span_lost_before(sr, i + 1, sb->snapshot)));
	}
	if (open)
		add_chunk(sb, &c);
}

static int run_cmp(const void *a, const void *b)
{
	const struct run *x = a, *y = b;

	if (x->pos_in != y->pos_in)
		return x->pos_in < y->pos_in ? -1 : 1;
	return x->seq < y->seq ? -1 : x->seq > y->seq;
}

/* The runs of a stream, from its SWITCH records (in record order). */
static void stream_runs(struct sb *sb, const struct stream_recs *sr, uint64_t file_end,
			size_t *first)
{
	size_t *open_idx = NULL;	/* per CPU: index into sb->runs + 1; 0: none */
	unsigned int ncpu = 0;
	size_t i, seq = 0;

	*first = sb->nruns;
	for (i = 0; i < sr->nsw; i++)
		if (sr->sw[i].cpu >= ncpu)
			ncpu = sr->sw[i].cpu + 1;
	open_idx = xrealloc(NULL, ncpu ? ncpu : 1, sizeof(*open_idx));
	memset(open_idx, 0, (ncpu ? ncpu : 1) * sizeof(*open_idx));
	for (i = 0; i < sr->nsw; i++) {
		const struct sswitch *w = &sr->sw[i];
		struct run *r;

		if (!(w->flags & TRACEBUF_SWITCH_F_OUT)) {
			if (open_idx[w->cpu]) {
				r = &sb->runs[open_idx[w->cpu] - 1];
				problem(sb, "cpu%u.data: SWITCH IN of thread %d on CPU %u while thread %d "
					"ran there (no OUT record): its run ends here", sr->cpu,
					w->tid, w->cpu, r->tid);
				r->pos_out = w->pos;
				r->t_out = w->time;
				open_idx[w->cpu] = 0;
			}
			if (w->flags & TRACEBUF_SWITCH_F_BUSY)
				continue;	/* untraced: the unit was held by another */
			GROW(sb->runs, sb->nruns, sb->runs_cap);
			r = &sb->runs[sb->nruns++];
			memset(r, 0, sizeof(*r));
			r->stream = sr->stream;
			r->cpu = w->cpu;
			r->pid = w->pid;
			r->tid = w->tid;
			r->pos_in = w->pos;
			r->pos_out = UINT64_MAX;
			r->t_in = w->time;
			r->t_out = UINT64_MAX;
			r->exec = w->flags & TRACEBUF_SWITCH_F_EXEC;
			r->seq = seq++;
			open_idx[w->cpu] = sb->nruns;
			continue;
		}
		if (!open_idx[w->cpu]) {
			problem(sb, "cpu%u.data: SWITCH OUT of thread %d on CPU %u without an IN",
				sr->cpu, w->tid, w->cpu);
			continue;
		}
		r = &sb->runs[open_idx[w->cpu] - 1];
		if (r->tid != w->tid)
			problem(sb, "cpu%u.data: SWITCH OUT of thread %d on CPU %u, but thread %d "
				"ran there", sr->cpu, w->tid, w->cpu, r->tid);
		r->pos_out = w->pos;
		r->t_out = w->time;
		open_idx[w->cpu] = 0;
	}
	free(open_idx);
	for (i = *first; i < sb->nruns; i++) {
		struct run *r = &sb->runs[i];

		r->off_in = pos_to_file(sr, r->pos_in, file_end);
		r->off_out = r->pos_out == UINT64_MAX ? file_end :
			     pos_to_file(sr, r->pos_out, file_end);
	}
	if (sb->nruns - *first > 1)
		qsort(&sb->runs[*first], sb->nruns - *first, sizeof(*sb->runs), run_cmp);
}

/* The run of [first, last) (sorted, not overlapping: one CPU) holding pos; NULL: none. */
static const struct run *run_at(const struct sb *sb, size_t first, size_t last, uint64_t pos,
				uint64_t *next_in)
{
	size_t lo = first, hi = last;

	while (lo < hi) {
		size_t mid = lo + (hi - lo) / 2;

		if (sb->runs[mid].pos_in <= pos)
			lo = mid + 1;
		else
			hi = mid;
	}
	*next_in = lo < last ? sb->runs[lo].pos_in : UINT64_MAX;
	if (lo > first && pos < sb->runs[lo - 1].pos_out)
		return &sb->runs[lo - 1];
	return NULL;
}

/* Intel PT per-task: every span cut at the runs' edges. */
static void task_chunks(struct sb *sb, const struct stream_recs *sr, size_t first, size_t last)
{
	struct sb_chunk c;
	bool open = false, warned = false;
	const struct run *cur = NULL;
	size_t i;

	for (i = 0; i < sr->nspans; i++) {
		const struct sspan *s = &sr->spans[i];
		uint64_t p = s->pos, e = s->pos + s->size;
		bool boundary = span_boundary(sr, i, sb->snapshot);

		while (p < e) {
			uint64_t q, next_in;
			const struct run *r = run_at(sb, first, last, p, &next_in);

			if (r) {
				q = r->pos_out < e ? r->pos_out : e;
			} else {
				q = next_in < e ? next_in : e;
				if (!warned)
					problem(sb, "cpu%u.aux: %" PRIu64 " bytes at offset %" PRIu64
						" are in no thread's run (between SWITCH records): "
						"decoded as thread -1", sr->cpu, q - p,
						s->file + (p - s->pos));
				warned = true;
			}
			if (open && (r != cur || (p == s->pos && boundary))) {
				add_chunk(sb, &c);
				open = false;
			}
			if (!open) {
				memset(&c, 0, sizeof(c));
				c.stream = sr->stream;
				c.stream_cpu = sr->cpu;
				c.cpu = r ? r->cpu : sr->cpu;
				c.pid = r ? r->pid : -1;
				c.tid = r ? r->tid : -1;
				c.begin = s->file + (p - s->pos);
				c.time = r ? r->t_in : s->time;
				c.time_end = r ? r->t_out : UINT64_MAX;
				c.config = s->cfg;
				c.run_start = !r || r != cur;
				c.exec = r && r->exec && c.run_start;
				c.lost_before = p == s->pos && span_lost_before(sr, i, sb->snapshot);
				c.anywhere = sb->snapshot && p == s->pos;
				open = true;
			}
			cur = r;
			c.end = s->file + (q - s->pos);
			c.may_cut = q == e && (span_stops(s) || (i + 1 < sr->nspans &&
				    span_lost_before(sr, i + 1, sb->snapshot)));
			p = q;
		}
	}
	if (open)
		add_chunk(sb, &c);
}

static int chunk_cmp(const void *a, const void *b)
{
	const struct sb_chunk *x = a, *y = b;

	if (x->time != y->time)
		return x->time < y->time ? -1 : 1;
	if (x->stream != y->stream)
		return x->stream < y->stream ? -1 : 1;
	if (x->cpu != y->cpu)
		return x->cpu < y->cpu ? -1 : 1;
	return x->begin < y->begin ? -1 : x->begin > y->begin;
}

static int read_stream(struct sb *sb, unsigned int stream, struct stream_recs *sr)
{
	struct tracebuf_capture_iter_opts io = { .sz = sizeof(io), .flags = TRACEBUF_ITER_ONE_CPU };
	struct tracebuf_capture_iter *it;
	const struct tracebuf_capture_rec *cr;
	char cfgkey[64], cfgbuf[TRACEBUF_DRV_CONFIG_MAX];
	const char *cfg = NULL;
	bool cfg_pending = false, lost = false;
	int ret;

	sr->stream = stream;
	sr->cpu = (unsigned int)tracebuf_capture_stream_cpu(sb->cap, stream);
	io.cpu = sr->cpu;
	snprintf(cfgkey, sizeof(cfgkey), "per_cpu.%u.config", sr->cpu);
	if (tracebuf_capture_meta_str(sb->cap, cfgkey, cfgbuf, sizeof(cfgbuf)) >= 0)
		cfg = keep(sb, cfgbuf, strlen(cfgbuf));
	ret = tracebuf_capture_iter_new(sb->cap, &io, &it);
	if (ret)
		return ret;
	while (tracebuf_capture_next(it, &cr) > 0) {
		const struct tracebuf_record *r = cr->r;

		if (cr->span) {
			struct sspan *s;

			GROW(sr->spans, sr->nspans, sr->spans_cap);
			s = &sr->spans[sr->nspans++];
			s->pos = cr->span->offset;
			s->size = cr->span->size;
			s->file = cr->span->stream_offset;
			s->time = r->time;
			s->flags = cr->span->flags;
			s->cfg_first = cfg_pending && sr->nspans > 1;
			s->lost_before = lost || cr->span->lost_bytes;
			s->cfg = cfg;
			cfg_pending = lost = false;
		} else if (r->hdr.type == TRACEBUF_REC_CONFIG) {
			const struct tracebuf_rec_config *c = tracebuf_as_config(r);

			if (c) {
				cfg = keep(sb, (const char *)(c + 1), c->len);
				cfg_pending = true;
			}
		} else if (r->hdr.type == TRACEBUF_REC_LOST) {
			lost = true;
		} else if (r->hdr.type == TRACEBUF_REC_ETM && tracebuf_as_etm(r)) {
			struct sb_etm *e;

			GROW(sr->etms, sr->netms, sr->etms_cap);
			e = &sr->etms[sr->netms++];
			e->off = sr->nspans ? sr->spans[sr->nspans - 1].file +
					      sr->spans[sr->nspans - 1].size : 0;
			e->rec = tracebuf_as_etm(r);
			cfg_pending = true;	/* a new segment (export.c's rules) */
		} else if (r->hdr.type == TRACEBUF_REC_SWITCH &&
			   r->hdr.size >= sizeof(struct tracebuf_rec_switch)) {
			const struct tracebuf_rec_switch *w = (const void *)r;
			struct sswitch *x;

			GROW(sr->sw, sr->nsw, sr->sw_cap);
			x = &sr->sw[sr->nsw++];
			x->pos = w->aux_offset;
			x->time = r->time;
			x->cpu = r->cpu;
			x->pid = (int32_t)w->pid;
			x->tid = (int32_t)w->tid;
			x->flags = w->flags;
		} else if (r->hdr.type == TRACEBUF_REC_TASK &&
			   r->hdr.size >= sizeof(struct tracebuf_rec_task)) {
			const struct tracebuf_rec_task *t = (const void *)r;

			if (t->reason == TRACEBUF_TASK_FORK)
				proc_fork(sb, (int32_t)t->pid, (int32_t)t->ppid, r->time);
		}
	}
	tracebuf_capture_iter_free(it);
	return 0;
}

int sb_open(struct tracebuf_capture *cap, const struct sb_opts *o, struct sb **out)
{
	char backend[32] = "";
	struct sb *sb;
	int snapshot = 0, n, i;

	sb = xrealloc(NULL, 1, sizeof(*sb));
	memset(sb, 0, sizeof(*sb));
	sb->o = *o;
	sb->cap = cap;
	tracebuf_capture_meta_str(cap, "backend", backend, sizeof(backend));
	sb->coresight = !strcmp(backend, "coresight");
	tracebuf_capture_meta_bool(cap, "snapshot", &snapshot);
	sb->snapshot = snapshot;
	if (add_elfs(sb) < 0) {
		sb_close(sb);
		return -ENOENT;
	}
	if (o->kernel) {
		char bid[64];
		const char *why;

		if (tracebuf_capture_meta_str(cap, "kernel_build_id", bid, sizeof(bid)) < 0)
			sb->kernel = img_kernel(o->img, NULL, &why);
		else
			sb->kernel = img_kernel(o->img, bid, &why);
		if (!sb->kernel && !o->quiet)
			fprintf(stderr, "tracebuf: %s: %s: the kernel was traced (kernel=1), but %s\n",
				o->cmd, o->dir, why);
	}
	read_sideband(sb);
	n = tracebuf_capture_nr_streams(cap);
	sb->etms = xrealloc(NULL, n > 0 ? (size_t)n : 1, sizeof(*sb->etms));
	memset(sb->etms, 0, (n > 0 ? (size_t)n : 1) * sizeof(*sb->etms));
	sb->nstreams = n > 0 ? (size_t)n : 0;
	for (i = 0; i < n; i++) {
		struct stream_recs sr = { 0 };
		const void *aux;
		uint64_t alen = 0;
		size_t first;
		int ret = read_stream(sb, (unsigned int)i, &sr);

		if (ret) {
			free(sr.spans);
			free(sr.sw);
			free(sr.etms);
			sb_close(sb);
			return ret;
		}
		sb->etms[i].e = sr.etms;
		sb->etms[i].n = sr.netms;
		tracebuf_capture_aux(cap, (unsigned int)i, &aux, &alen);
		if (sr.nsw)
			sb->per_task = true;
		stream_runs(sb, &sr, alen, &first);
		if (sr.nsw && !sb->coresight)
			task_chunks(sb, &sr, first, sb->nruns);
		else
			segment_chunks(sb, &sr);
		free(sr.spans);
		free(sr.sw);
	}
	if (sb->nchunks > 1)
		qsort(sb->chunks, sb->nchunks, sizeof(*sb->chunks), chunk_cmp);
	/* A thread whose previous chunk was cut lost trace before its next. */
	{
		size_t a, b;

		for (a = 0; a < sb->nchunks; a++) {
			if (!sb->chunks[a].may_cut)
				continue;
			for (b = a + 1; b < sb->nchunks; b++) {
				if (sb->chunks[b].tid == sb->chunks[a].tid &&
				    (sb->chunks[a].tid >= 0 || sb->chunks[b].cpu == sb->chunks[a].cpu)) {
					sb->chunks[b].lost_before = true;
					break;
				}
			}
		}
	}
	*out = sb;
	return 0;
}

static void space_free(struct img_space *s)
{
	if (!s)
		return;
	free(s->maps);
	free(s);
}

void sb_close(struct sb *sb)
{
	size_t i, k;

	if (!sb)
		return;
	for (i = 0; i < sb->nprocs; i++) {
		struct proc *p = &sb->procs[i];

		if (p->cache)
			for (k = 0; k < 2 * (p->nev + 1); k++)
				space_free(p->cache[k]);
		free(p->cache);
		free(p->ev);
	}
	free(sb->procs);
	for (i = 0; i < sb->ncomms; i++)
		free(sb->comms[i].name);
	free(sb->comms);
	for (i = 0; i < sb->nstrs; i++)
		free(sb->strs[i]);
	free(sb->strs);
	space_free(sb->elf_space);
	free(sb->elf_maps);
	for (i = 0; i < sb->nstreams; i++)
		free(sb->etms[i].e);
	free(sb->etms);
	free(sb->chunks);
	free(sb->runs);
	free(sb);
}

size_t sb_nchunks(const struct sb *sb)
{
	return sb->nchunks;
}

const struct sb_chunk *sb_chunk(const struct sb *sb, size_t i)
{
	return &sb->chunks[i];
}

bool sb_per_task(const struct sb *sb)
{
	return sb->per_task;
}

bool sb_has_sideband(const struct sb *sb)
{
	return sb->sideband;
}

unsigned int sb_problems(const struct sb *sb)
{
	return sb->problems;
}

int sb_thread_at(const struct sb *sb, unsigned int stream, unsigned int cpu, uint64_t off,
		 struct sb_run_info *ri)
{
	uint64_t next = UINT64_MAX;
	size_t i;

	memset(ri, 0, sizeof(*ri));
	ri->pid = ri->tid = -1;
	for (i = 0; i < sb->nruns; i++) {
		const struct run *r = &sb->runs[i];

		if (r->stream != stream || r->cpu != cpu)
			continue;
		if (r->off_in <= off && off < r->off_out) {
			ri->pid = r->pid;
			ri->tid = r->tid;
			ri->t_in = r->t_in;
			ri->t_out = r->t_out;
			ri->off_in = r->off_in;
			ri->off_out = r->off_out;
			ri->exec = r->exec;
			ri->until = r->off_out;
			return 0;
		}
		if (r->off_in > off && r->off_in < next)
			next = r->off_in;
	}
	ri->until = next;
	return -1;
}

size_t sb_etms(const struct sb *sb, unsigned int stream, const struct sb_etm **etms)
{
	if (stream >= sb->nstreams) {
		*etms = NULL;
		return 0;
	}
	*etms = sb->etms[stream].e;
	return sb->etms[stream].n;
}
