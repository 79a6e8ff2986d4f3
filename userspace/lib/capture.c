/* SPDX-License-Identifier: (LGPL-2.1 OR MIT) */
/*
 * Reading a capture directory (docs/capture-format.md): tracebuf_capture_open(3)
 * reads meta.json and every cpuN.data, maps every cpuN.aux, and checks
 * that they add up ("Checks" in docs/capture-format.md): meta.json against
 * the files (sizes and counts), and the files against each other (AUX
 * records against cpuN.aux, LOST records against the counts). Every
 * problem goes to the caller's on_problem callback, naming the file, the
 * byte offset and both numbers; a capture with any problem is refused
 * (-EBADMSG). An open capture is then read without further checks:
 * tracebuf_capture_next(3) walks the records of one stream, or of all of
 * them merged by time.
 *
 * Records of types this library does not know are handed out like the
 * others (they are skipped by hdr.size, as the format requires).
 */
#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <inttypes.h>
#include <limits.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/stat.h>
#include <unistd.h>

#include "lib.h"

#define TB_META			"meta.json"
#define TB_META_MAX		(64U << 20)	/* a meta.json larger than this is not ours */
/* CPU numbers: large enough for any machine, small enough to list. */
#define TB_MAX_CPU		65536
#define TB_SB_NAME_MAX		63	/* a sideband file's name */
#define TB_SB_MAX_FILES		4096

/*
 * perf_event_attr.sample_type bits that make up the sample_id trailer of
 * a record other than PERF_RECORD_SAMPLE (sample_id_all), in the order
 * the kernel writes them (__perf_event_header__init_id() and
 * perf_event__output_id_sample(), kernel/events/core.c), and the record
 * types this file reads, by their ABI numbers (<linux/perf_event.h>).
 */
#define TB_SAMPLE_TID		(1ULL << 1)
#define TB_SAMPLE_TIME		(1ULL << 2)
#define TB_SAMPLE_ID		(1ULL << 6)
#define TB_SAMPLE_CPU		(1ULL << 7)
#define TB_SAMPLE_STREAM_ID	(1ULL << 9)
#define TB_SAMPLE_IDENTIFIER	(1ULL << 16)
#define TB_PERF_RECORD_LOST	2
#define TB_PERF_RECORD_SAMPLE	9

struct tb_stream {
	unsigned int cpu;
	char data_name[24], aux_name[24];	/* "cpuN.data", "cpuN.aux" */
	unsigned char *data;			/* cpuN.data, read whole (8-byte aligned) */
	size_t data_len;
	const unsigned char *aux;		/* cpuN.aux, mapped; NULL when empty */
	uint64_t aux_len;
	uint64_t records;
};

/* A sideband file: perf_event records (meta.json "sideband.files"). */
struct tb_sbfile {
	char name[TB_SB_NAME_MAX + 1];
	unsigned int cpu;			/* TRACEBUF_CAPTURE_NO_CPU: none */
	unsigned char *data;			/* read whole (8-byte aligned) */
	size_t len;
	uint64_t records, lost;
};

struct tracebuf_capture {
	char *meta;		/* meta.json, NUL-terminated */
	size_t meta_len;
	int complete, snapshot;
	struct tb_stream *st;	/* by increasing CPU */
	unsigned int nr;
	struct tb_sbfile *sb;	/* in the order of "files" */
	unsigned int nsb;
	uint64_t sample_type;	/* of the records in the sideband files */
	size_t trailer;		/* bytes of their sample_id trailer */
};

/* What the files of one CPU hold. */
struct tb_files {
	uint64_t data_bytes, records, aux_spans, aux_described, aux_file;
	uint64_t truncations, collisions, lost_records, aux_lost, inner_gaps;
};

/* The state of the checks. */
struct tb_open {
	int dfd;
	void (*on_problem)(void *ctx, const char *message);
	void *ctx;
	unsigned int problems;
	int err;		/* the first I/O error (negative), else 0 */
	uint64_t aux_area;
};

static void problem(struct tb_open *o, const char *fmt, ...)
	__attribute__((format(printf, 2, 3)));

static void problem(struct tb_open *o, const char *fmt, ...)
{
	char msg[512];
	va_list ap;

	o->problems++;
	if (!o->on_problem)
		return;
	va_start(ap, fmt);
	vsnprintf(msg, sizeof(msg), fmt, ap);
	va_end(ap);
	o->on_problem(o->ctx, msg);
}

static void io_error(struct tb_open *o, int err)
{
	if (!o->err)
		o->err = err;
}

/* A whole file into malloc'ed memory (NUL-terminated too); 0 or -errno. */
static int read_at(int dfd, const char *name, size_t max, unsigned char **buf, size_t *len)
{
	unsigned char *b = NULL, *nb;
	size_t n = 0, cap = 0;
	struct stat st;
	int fd, err;

	fd = openat(dfd, name, O_RDONLY | O_CLOEXEC);
	if (fd < 0)
		return -errno;
	if (fstat(fd, &st)) {
		err = -errno;
		goto fail;
	}
	if (!S_ISREG(st.st_mode)) {
		err = S_ISDIR(st.st_mode) ? -EISDIR : -EINVAL;
		goto fail;
	}
	if ((uint64_t)st.st_size > max) {
		err = -EFBIG;
		goto fail;
	}
	cap = (size_t)st.st_size + 1;
	for (;;) {
		ssize_t r;

		if (!b || n + 1 >= cap) {
			if (b && cap > max)
				cap = max + 2;	/* one byte more than allowed: EFBIG below */
			else if (b)
				cap *= 2;
			nb = realloc(b, cap);
			if (!nb) {
				err = -ENOMEM;
				goto fail;
			}
			b = nb;
		}
		r = read(fd, b + n, cap - n - 1);
		if (r < 0 && errno == EINTR)
			continue;
		if (r < 0) {
			err = -errno;
			goto fail;
		}
		if (r == 0)
			break;
		n += (size_t)r;
		if (n > max) {
			err = -EFBIG;	/* grew while we read */
			goto fail;
		}
	}
	close(fd);
	b[n] = 0;
	*buf = b;
	*len = n;
	return 0;
fail:
	close(fd);
	free(b);
	return err;
}

/* A regular file mapped read-only (NULL for an empty one); 0 or -errno. */
static int map_at(int dfd, const char *name, const unsigned char **map, uint64_t *len)
{
	struct stat st;
	void *p;
	int fd, err;

	*map = NULL;
	*len = 0;
	fd = openat(dfd, name, O_RDONLY | O_CLOEXEC);
	if (fd < 0)
		return -errno;
	if (fstat(fd, &st)) {
		err = -errno;
		close(fd);
		return err;
	}
	if (!S_ISREG(st.st_mode)) {
		close(fd);
		return -EINVAL;
	}
	*len = (uint64_t)st.st_size;
	if (!st.st_size) {
		close(fd);
		return 0;
	}
	if ((uint64_t)st.st_size > SIZE_MAX) {
		close(fd);
		return -EFBIG;
	}
	p = mmap(NULL, (size_t)st.st_size, PROT_READ, MAP_PRIVATE, fd, 0);
	err = p == MAP_FAILED ? -errno : 0;
	close(fd);
	if (err)
		return err;
	*map = p;
	return 0;
}

/*
 * Another known record type that does not fit its size: named, 1. AUX and
 * LOST are checked by the caller; unknown types are not checked at all.
 */
static int bad_record(struct tb_open *o, const struct tb_stream *st,
		      const struct tracebuf_record *r, size_t off)
{
	static const struct {
		uint16_t type;
		const char *name;
		size_t size;
	} types[] = {
		{ TRACEBUF_REC_ITRACE_START, "ITRACE_START",
		  sizeof(struct tracebuf_rec_itrace_start) },
		{ TRACEBUF_REC_CONFIG, "CONFIG", sizeof(struct tracebuf_rec_config) },
		{ TRACEBUF_REC_USER, "USER", sizeof(struct tracebuf_rec_user) },
		{ TRACEBUF_REC_ETM, "ETM", sizeof(struct tracebuf_rec_etm) },
		{ TRACEBUF_REC_SWITCH, "SWITCH", sizeof(struct tracebuf_rec_switch) },
		{ TRACEBUF_REC_TASK, "TASK", sizeof(struct tracebuf_rec_task) },
	};
	unsigned int i;

	for (i = 0; i < sizeof(types) / sizeof(types[0]); i++) {
		if (r->hdr.type != types[i].type)
			continue;
		if (r->hdr.size < types[i].size) {
			problem(o, "%s: %s record at byte offset %zu is too short (%u bytes)",
				st->data_name, types[i].name, off, r->hdr.size);
			return 1;
		}
		/* The text or data past the struct must fit the record. */
		if ((r->hdr.type == TRACEBUF_REC_CONFIG && !tracebuf_as_config(r)) ||
		    (r->hdr.type == TRACEBUF_REC_USER && !tracebuf_as_user(r))) {
			problem(o, "%s: %s record at byte offset %zu: its %s is longer than "
				"the record", st->data_name, types[i].name, off,
				r->hdr.type == TRACEBUF_REC_USER ? "data" : "text");
			return 1;
		}
	}
	return 0;
}

/*
 * cpuN.data and cpuN.aux of one CPU against each other. Returns 0, or -1
 * when the files cannot be compared with meta.json at all.
 */
static int check_files(struct tb_open *o, struct tb_stream *st, int snapshot, int complete,
		       struct tb_files *f)
{
	const unsigned char *buf;
	size_t len, off;
	uint64_t prev_end = 0;
	int ret;

	memset(f, 0, sizeof(*f));
	ret = read_at(o->dfd, st->data_name, SIZE_MAX - 1, &st->data, &st->data_len);
	if (ret < 0) {
		problem(o, "%s: %s", st->data_name, ret == -EINVAL ? "not a regular file" :
			strerror(-ret));
		if (ret != -ENOENT && ret != -EINVAL && ret != -EISDIR)
			io_error(o, ret);
		return -1;
	}
	ret = map_at(o->dfd, st->aux_name, &st->aux, &st->aux_len);
	if (ret < 0) {
		problem(o, "%s: %s", st->aux_name, ret == -EINVAL ? "not a regular file" :
			strerror(-ret));
		if (ret != -ENOENT && ret != -EINVAL)
			io_error(o, ret);
		return -1;
	}
	f->aux_file = st->aux_len;
	f->data_bytes = st->data_len;

	buf = st->data;
	len = st->data_len;
	for (off = 0; off < len; ) {
		const struct tracebuf_record *r = (const void *)(buf + off);
		uint32_t size;

		if (len - off < sizeof(*r)) {
			problem(o, "%s: a truncated record header at byte offset %zu of %zu",
				st->data_name, off, len);
			return -1;
		}
		size = r->hdr.size;
		if (size < sizeof(*r) || size % 8 || size > len - off) {
			problem(o, "%s: a record size that does not fit at byte offset %zu of %zu",
				st->data_name, off, len);
			return -1;
		}
		f->records++;
		if (r->hdr.type == TRACEBUF_REC_AUX) {
			const struct tracebuf_rec_aux *a = (const void *)r;

			if (size < sizeof(*a)) {
				problem(o, "%s: AUX record at byte offset %zu is too short "
					"(%u bytes)", st->data_name, off, size);
				return -1;
			}
			/* Each span fits the AUX area: the sum cannot wrap. */
			if (a->aux_size > o->aux_area) {
				problem(o, "%s: AUX record at byte offset %zu claims %" PRIu64
					" bytes, more than the AUX area (%" PRIu64 ")",
					st->data_name, off, (uint64_t)a->aux_size, o->aux_area);
				return -1;
			}
			/* Full-trace spans follow each other in the ring. */
			if (!snapshot && f->aux_spans) {
				if ((int64_t)(a->aux_offset - prev_end) < 0)
					problem(o, "%s: AUX record at byte offset %zu starts at 0x%"
						PRIx64 ", before the end of the previous span (0x%"
						PRIx64 ")", st->data_name, off,
						(uint64_t)a->aux_offset, prev_end);
				else
					f->inner_gaps += a->aux_offset - prev_end;
			}
			prev_end = a->aux_offset + a->aux_size;
			f->aux_spans++;
			f->aux_described += a->aux_size;
			if (a->flags & TRACEBUF_AUX_F_TRUNCATED)
				f->truncations++;
			if (a->flags & TRACEBUF_AUX_F_COLLISION)
				f->collisions++;
		} else if (r->hdr.type == TRACEBUF_REC_LOST) {
			const struct tracebuf_rec_lost *l = (const void *)r;
			uint64_t *sum;

			if (size < sizeof(*l)) {
				problem(o, "%s: LOST record at byte offset %zu is too short "
					"(%u bytes)", st->data_name, off, size);
				return -1;
			}
			/* AUX_OVERRUN counts trace bytes, every other reason records. */
			sum = l->reason == TRACEBUF_LOST_AUX_OVERRUN ? &f->aux_lost :
			      &f->lost_records;
			if (*sum + l->count < *sum) {
				problem(o, "%s: LOST counts overflow at byte offset %zu",
					st->data_name, off);
				return -1;
			}
			*sum += l->count;
		} else if (bad_record(o, st, r, off)) {
			return -1;
		}
		off += size;
	}
	st->records = f->records;

	/*
	 * The tool writes a span's bytes before its record: an interrupted
	 * recording may hold bytes no record describes yet, never fewer.
	 */
	if (complete ? f->aux_described != f->aux_file : f->aux_described > f->aux_file)
		problem(o, "%s has %" PRIu64 " bytes, the AUX records of %s describe %" PRIu64,
			st->aux_name, f->aux_file, st->data_name, f->aux_described);
	return 0;
}

static int get_u64(const char *obj, size_t len, const char *key, uint64_t *v)
{
	const char *val;
	size_t vl;

	if (tb_json_member(obj, len, key, strlen(key), &val, &vl))
		return -ENOENT;
	return tb_json_u64(val, vl, v) ? -EINVAL : 0;
}

/* meta.json's per-CPU numbers against what the files hold. */
static void check_counts(struct tb_open *o, unsigned int cpu, const char *pc, size_t pcl,
			 const struct tb_files *f, int *lost)
{
	static const struct {
		const char *key;
		size_t off;
		int at_least;	/* meta may say more: the kernel's own counter */
		int optional;	/* not written by the first tool versions */
		int loss;	/* non-zero means trace was lost */
	} keys[] = {
		{ "data_bytes", offsetof(struct tb_files, data_bytes), 0, 1, 0 },
		{ "records", offsetof(struct tb_files, records), 0, 0, 0 },
		{ "aux_spans", offsetof(struct tb_files, aux_spans), 0, 0, 0 },
		{ "aux_bytes", offsetof(struct tb_files, aux_described), 0, 0, 0 },
		{ "aux_truncations", offsetof(struct tb_files, truncations), 1, 0, 1 },
		{ "aux_collisions", offsetof(struct tb_files, collisions), 1, 0, 1 },
		{ "records_lost", offsetof(struct tb_files, lost_records), 1, 0, 1 },
		{ "aux_lost_bytes", offsetof(struct tb_files, aux_lost), 0, 1, 1 },
	};
	uint64_t v, gap = 0;
	unsigned int i;
	int ret;

	for (i = 0; i < sizeof(keys) / sizeof(keys[0]); i++) {
		uint64_t have = *(const uint64_t *)(const void *)((const char *)f + keys[i].off);

		ret = get_u64(pc, pcl, keys[i].key, &v);
		if (ret == -ENOENT && keys[i].optional)
			continue;
		if (ret) {
			problem(o, "meta.json: per_cpu \"%u\": \"%s\" is %s", cpu, keys[i].key,
				ret == -ENOENT ? "missing" : "not a number");
			continue;
		}
		if (keys[i].at_least ? v < have : v != have)
			problem(o, "meta.json: per_cpu \"%u\": \"%s\" is %" PRIu64 ", the files "
				"say %s%" PRIu64, cpu, keys[i].key, v,
				keys[i].at_least ? "at least " : "", have);
		if (v && keys[i].loss)
			*lost = 1;
	}
	ret = get_u64(pc, pcl, "aux_gap_bytes", &gap);
	if (ret == -EINVAL)
		problem(o, "meta.json: per_cpu \"%u\": \"aux_gap_bytes\" is not a number", cpu);
	else if (!ret && gap < f->inner_gaps)
		problem(o, "meta.json: per_cpu \"%u\": \"aux_gap_bytes\" is %" PRIu64 ", the "
			"AUX records of cpu%u.data skip %" PRIu64 " bytes", cpu, gap, cpu,
			f->inner_gaps);
	if (gap)
		*lost = 1;
}

/* Bytes of the sample_id trailer of sample_type. */
static size_t sb_trailer(uint64_t t)
{
	return 8 * (size_t)__builtin_popcountll(t & (TB_SAMPLE_TID | TB_SAMPLE_TIME |
						     TB_SAMPLE_ID | TB_SAMPLE_STREAM_ID |
						     TB_SAMPLE_CPU | TB_SAMPLE_IDENTIFIER));
}

/* A name meta.json may give a sideband file: a plain file of the directory. */
static int sb_name_ok(const char *v, size_t n)
{
	size_t i;

	if (!n || n > TB_SB_NAME_MAX || v[0] == '.' || !strcmp(v, TB_META))
		return 0;
	for (i = 0; i < n; i++)
		if (!((v[i] >= 'a' && v[i] <= 'z') || (v[i] >= 'A' && v[i] <= 'Z') ||
		      (v[i] >= '0' && v[i] <= '9') || v[i] == '.' || v[i] == '_' || v[i] == '-'))
			return 0;
	return 1;
}

/* One sideband file's records: whole, each with its trailer; counted. */
static int sb_walk(struct tb_open *o, struct tracebuf_capture *c, struct tb_sbfile *f)
{
	size_t off;

	for (off = 0; off < f->len; ) {
		uint32_t type;
		uint16_t size;

		if (f->len - off < 8) {
			problem(o, "%s: a truncated record header at byte offset %zu of %zu",
				f->name, off, f->len);
			return -1;
		}
		/* struct perf_event_header { u32 type; u16 misc; u16 size; } */
		memcpy(&type, f->data + off, 4);
		memcpy(&size, f->data + off + 6, 2);
		if (size < 8 || size % 8 || size > f->len - off) {
			problem(o, "%s: a record size (%u) that does not fit at byte offset %zu "
				"of %zu", f->name, size, off, f->len);
			return -1;
		}
		if (type != TB_PERF_RECORD_SAMPLE && size < 8 + c->trailer) {
			problem(o, "%s: record at byte offset %zu (type %u, %u bytes) is too "
				"short for its sample_id fields (%zu bytes)", f->name, off, type,
				size, c->trailer);
			return -1;
		}
		if (type == TB_PERF_RECORD_LOST) {
			uint64_t n;

			/* struct { header; u64 id; u64 lost; sample_id } */
			if (size < 8 + 16 + c->trailer) {
				problem(o, "%s: LOST record at byte offset %zu is too short (%u "
					"bytes)", f->name, off, size);
				return -1;
			}
			memcpy(&n, f->data + off + 16, 8);
			if (f->lost + n < f->lost) {
				problem(o, "%s: LOST counts overflow at byte offset %zu", f->name,
					off);
				return -1;
			}
			f->lost += n;
		}
		f->records++;
		off += size;
	}
	return 0;
}

/*
 * meta.json "sideband" (docs/capture-format.md, "Sideband"): the files it
 * lists are read and checked; with "complete": true, its per-file counts
 * (when given) must be what they hold. Sets *lost when a file lost
 * records.
 */
static int check_sideband(struct tb_open *o, struct tracebuf_capture *c, int *lost)
{
	const char *sb, *files, *pf = NULL, *e, *v;
	size_t sbl, fl, pfl = 0, el, vl, n;
	uint64_t u;
	int ret;

	if (tb_json_member(c->meta, c->meta_len, "sideband", 8, &sb, &sbl))
		return 0;
	if (*sb != '{') {
		problem(o, "%s: \"sideband\" is not an object", TB_META);
		return 0;
	}
	if (tb_json_member(sb, sbl, "sample_type", 11, &e, &el) ||
	    tb_json_u64(e, el, &c->sample_type)) {
		problem(o, "%s: \"sideband\": \"sample_type\" is missing or not a number",
			TB_META);
		return 0;
	}
	c->trailer = sb_trailer(c->sample_type);
	if (tb_json_member(sb, sbl, "files", 5, &files, &fl) || *files != '[') {
		problem(o, "%s: \"sideband\": \"files\" is missing or not an array", TB_META);
		return 0;
	}
	if (!tb_json_member(sb, sbl, "per_file", 8, &pf, &pfl) && *pf != '[') {
		problem(o, "%s: \"sideband\": \"per_file\" is not an array", TB_META);
		pf = NULL;
	}
	for (n = 0; !tb_json_index(files, fl, n, &e, &el); n++) {
		struct tb_sbfile *f, *nf;
		size_t nl = 0, k;

		if (n >= TB_SB_MAX_FILES) {
			problem(o, "%s: \"sideband\": more than %u files", TB_META,
				TB_SB_MAX_FILES);
			break;
		}
		nf = realloc(c->sb, (c->nsb + 1) * sizeof(*c->sb));
		if (!nf)
			return -ENOMEM;
		c->sb = nf;
		f = &c->sb[c->nsb];
		memset(f, 0, sizeof(*f));
		f->cpu = TRACEBUF_CAPTURE_NO_CPU;
		if (tb_json_string(e, el, f->name, sizeof(f->name), &nl) ||
		    !sb_name_ok(f->name, nl)) {
			problem(o, "%s: \"sideband\": \"files\" entry %zu is not the name of a "
				"file of the capture", TB_META, n);
			continue;
		}
		for (k = 0; k < c->nsb; k++)
			if (!strcmp(c->sb[k].name, f->name))
				break;
		if (k < c->nsb) {
			problem(o, "%s: \"sideband\": %s is listed twice", TB_META, f->name);
			continue;
		}
		c->nsb++;
		ret = read_at(o->dfd, f->name, SIZE_MAX - 1, &f->data, &f->len);
		if (ret < 0) {
			problem(o, "%s: %s", f->name, ret == -EINVAL ? "not a regular file" :
				strerror(-ret));
			if (ret != -ENOENT && ret != -EINVAL && ret != -EISDIR)
				io_error(o, ret);
			continue;
		}
		if (sb_walk(o, c, f))
			continue;
		/* "per_file": an object per file, in the order of "files". */
		if (!pf)
			continue;
		if (tb_json_index(pf, pfl, n, &v, &vl) || *v != '{') {
			problem(o, "%s: \"sideband\": \"per_file\" has no object for %s (entry "
				"%zu)", TB_META, f->name, n);
			continue;
		}
		if (!get_u64(v, vl, "cpu", &u) && u < TB_MAX_CPU)
			f->cpu = (unsigned int)u;
		if (!c->complete)
			continue;
		{
			static const char *const keys[] = { "records", "bytes", "lost" };
			uint64_t have[3] = { f->records, f->len, f->lost };
			unsigned int i;

			for (i = 0; i < 3; i++) {
				ret = get_u64(v, vl, keys[i], &u);
				if (ret) {
					problem(o, "%s: \"sideband\": \"per_file\" of %s: \"%s\" "
						"is %s", TB_META, f->name, keys[i],
						ret == -ENOENT ? "missing" : "not a number");
					continue;
				}
				if (u != have[i])
					problem(o, "%s: \"sideband\": \"per_file\" of %s: \"%s\" "
						"is %" PRIu64 ", the file holds %" PRIu64, TB_META,
						f->name, keys[i], u, have[i]);
				if (i == 2 && u)
					*lost = 1;
			}
		}
	}
	return 0;
}

/* cpuN.data and cpuN.aux of CPUs the capture does not list: renamed or moved in. */
static void check_unlisted(struct tb_open *o, const struct tracebuf_capture *c,
			   const unsigned char *seen)
{
	struct dirent *de;
	unsigned int cpu;
	char kind[8];
	int fd, end;
	DIR *d;

	fd = openat(o->dfd, ".", O_RDONLY | O_DIRECTORY | O_CLOEXEC);
	d = fd < 0 ? NULL : fdopendir(fd);
	if (!d) {
		problem(o, "%s", strerror(errno));
		io_error(o, -errno);
		if (fd >= 0)
			close(fd);
		return;
	}
	while ((de = readdir(d)) != NULL) {
		size_t nl = strlen(de->d_name);

		/* A sideband file ("*.sb") that meta.json does not list. */
		if (nl > 3 && !strcmp(de->d_name + nl - 3, ".sb")) {
			unsigned int k;

			for (k = 0; k < c->nsb && strcmp(c->sb[k].name, de->d_name); k++)
				;
			if (k == c->nsb)
				problem(o, "%s is not in %s's \"sideband\" \"files\"", de->d_name,
					TB_META);
			continue;
		}
		end = 0;
		if (sscanf(de->d_name, "cpu%u.%7[a-z]%n", &cpu, kind, &end) != 2 ||
		    de->d_name[end] || (strcmp(kind, "data") && strcmp(kind, "aux")))
			continue;
		if (cpu >= TB_MAX_CPU || !(seen[cpu / 8] & (1u << (cpu % 8))))
			problem(o, "%s is not in %s's \"cpus\"", de->d_name, TB_META);
	}
	closedir(d);
}

static void free_streams(struct tracebuf_capture *c)
{
	unsigned int i;

	for (i = 0; c->st && i < c->nr; i++) {
		free(c->st[i].data);
		if (c->st[i].aux)
			munmap((void *)c->st[i].aux, (size_t)c->st[i].aux_len);
	}
	free(c->st);
	c->st = NULL;
	c->nr = 0;
	for (i = 0; c->sb && i < c->nsb; i++)
		free(c->sb[i].data);
	free(c->sb);
	c->sb = NULL;
	c->nsb = 0;
}

void tracebuf_capture_close(struct tracebuf_capture *cap)
{
	if (!cap)
		return;
	free_streams(cap);
	free(cap->meta);
	free(cap);
}

static int cmp_stream(const void *a, const void *b)
{
	const struct tb_stream *x = a, *y = b;

	return x->cpu < y->cpu ? -1 : x->cpu > y->cpu;
}

/* meta.json "vdso": {"file": NAME, "size": N, ...}: the copy is there, whole. */
static void check_vdso(struct tb_open *o, const struct tracebuf_capture *c)
{
	const char *vd, *e;
	size_t vdl, el, nl = 0;
	char name[TB_SB_NAME_MAX + 1];
	uint64_t size;
	struct stat st;

	if (tb_json_member(c->meta, c->meta_len, "vdso", 4, &vd, &vdl) || *vd == 'n')
		return;		/* none, or null: no copy */
	if (*vd != '{' || tb_json_member(vd, vdl, "file", 4, &e, &el) ||
	    tb_json_string(e, el, name, sizeof(name), &nl) || !sb_name_ok(name, nl) ||
	    get_u64(vd, vdl, "size", &size)) {
		problem(o, "%s: \"vdso\" is not an object with a \"file\" of the capture and "
			"its \"size\"", TB_META);
		return;
	}
	if (fstatat(o->dfd, name, &st, 0))
		problem(o, "%s: %s", name, strerror(errno));
	else if (!S_ISREG(st.st_mode))
		problem(o, "%s: not a regular file", name);
	else if ((uint64_t)st.st_size != size)
		problem(o, "%s has %lld bytes, %s says %" PRIu64, name, (long long)st.st_size,
			TB_META, size);
}

/* meta.json and every listed CPU's files, checked; see the file comment. */
static int tb_open(struct tracebuf_capture *c, struct tb_open *o, int one, unsigned int only,
		   int meta_only)
{
	const char *text, *e, *cpus, *per_cpu = NULL, *pc;
	size_t len, el, cl, pcl_all = 0, pcl, n;
	unsigned char *seen = NULL;
	uint64_t v;
	int lost = 0, any_lost = 0, unread = 0, ret;

	ret = read_at(o->dfd, TB_META, TB_META_MAX, (unsigned char **)&c->meta, &c->meta_len);
	if (ret < 0) {
		problem(o, "cannot read %s: %s (every capture has one)", TB_META, strerror(-ret));
		return ret == -EINVAL || ret == -EISDIR || ret == -EFBIG ? -EBADMSG : ret;
	}
	text = c->meta;
	len = c->meta_len;
	ret = strlen(text) != len ? -EINVAL : tb_json_check(text, len);
	if (ret == -ENOMEM)
		return ret;
	if (ret || *text != '{') {
		/* The grammar allows leading whitespace; the check does too. */
		e = text + strspn(text, " \t\r\n");
		if (ret || *e != '{') {
			problem(o, "%s: not a valid capture description (%s)", TB_META,
				ret ? "not valid JSON" : "not a JSON object");
			return -EBADMSG;
		}
	}
	if (tb_json_member(text, len, "format", 6, &e, &el)) {
		problem(o, "%s: not a valid capture description (no \"format\")", TB_META);
		return -EBADMSG;
	}
	if (tb_json_u64(e, el, &v) || v != TRACEBUF_CAPTURE_FORMAT) {
		problem(o, "%s: unknown capture format %.*s (this library reads format %d)",
			TB_META, (int)(el < 32 ? el : 32), e, TRACEBUF_CAPTURE_FORMAT);
		return -EPROTONOSUPPORT;
	}
	if (tb_json_member(text, len, "complete", 8, &e, &el) ||
	    tb_json_bool(e, el, &c->complete) ||
	    tb_json_member(text, len, "snapshot", 8, &e, &el) ||
	    tb_json_bool(e, el, &c->snapshot) ||
	    tb_json_member(text, len, "lost", 4, &e, &el) || tb_json_bool(e, el, &lost) ||
	    get_u64(text, len, "aux_size", &o->aux_area)) {
		problem(o, "%s: \"complete\", \"snapshot\", \"lost\" or \"aux_size\" is "
			"missing or malformed", TB_META);
		return -EBADMSG;
	}
	if (tb_json_member(text, len, "cpus", 4, &cpus, &cl) || *cpus != '[') {
		problem(o, "%s: \"cpus\" is missing or not an array", TB_META);
		return -EBADMSG;
	}
	if (meta_only)
		return 0;
	if (c->complete && (tb_json_member(text, len, "per_cpu", 7, &per_cpu, &pcl_all) ||
			    *per_cpu != '{')) {
		problem(o, "%s: \"per_cpu\" is missing or not an object", TB_META);
		return -EBADMSG;
	}
	seen = calloc(TB_MAX_CPU / 8, 1);
	if (!seen)
		return -ENOMEM;
	for (n = 0; !tb_json_index(cpus, cl, n, &e, &el); n++) {
		struct tb_stream *st, *nst;
		struct tb_files f;
		char key[16];
		unsigned int cpu;

		if (tb_json_u64(e, el, &v) || v >= TB_MAX_CPU) {
			problem(o, "%s: \"cpus\" entry %zu is not a CPU number", TB_META, n);
			ret = -EBADMSG;
			goto out;
		}
		cpu = (unsigned int)v;
		if (seen[cpu / 8] & (1u << (cpu % 8))) {
			problem(o, "%s: CPU %u is listed twice in \"cpus\"", TB_META, cpu);
			continue;
		}
		seen[cpu / 8] |= (unsigned char)(1u << (cpu % 8));
		if (one && cpu != only)
			continue;
		nst = realloc(c->st, (c->nr + 1) * sizeof(*c->st));
		if (!nst) {
			ret = -ENOMEM;
			goto out;
		}
		c->st = nst;
		st = &c->st[c->nr++];
		memset(st, 0, sizeof(*st));
		st->cpu = cpu;
		snprintf(st->data_name, sizeof(st->data_name), "cpu%u.data", cpu);
		snprintf(st->aux_name, sizeof(st->aux_name), "cpu%u.aux", cpu);
		if (check_files(o, st, c->snapshot, c->complete, &f)) {
			unread = 1;
			continue;
		}
		if (!c->complete)
			continue;
		snprintf(key, sizeof(key), "%u", cpu);
		if (tb_json_member(per_cpu, pcl_all, key, strlen(key), &pc, &pcl) || *pc != '{') {
			problem(o, "%s: \"per_cpu\" has no entry for CPU %u", TB_META, cpu);
			unread = 1;
			continue;
		}
		check_counts(o, cpu, pc, pcl, &f, &any_lost);
	}
	if (!n)
		problem(o, "%s: \"cpus\" is empty", TB_META);
	ret = check_sideband(o, c, &any_lost);
	if (ret)
		goto out;
	check_vdso(o, c);
	/* Every CPU's counts were seen: the summary must agree with them. */
	if (c->complete && !one && !unread && any_lost != lost)
		problem(o, "%s: \"lost\" is %s, but the per_cpu counts say %s", TB_META,
			lost ? "true" : "false", any_lost ? "trace was lost" : "nothing was lost");
	if (!one)
		check_unlisted(o, c, seen);
	ret = 0;
	if (o->problems)
		ret = o->err ? o->err : -EBADMSG;
out:
	free(seen);
	return ret;
}

int tracebuf_capture_open(const char *dir, const struct tracebuf_capture_opts *opts,
			  struct tracebuf_capture **cap)
{
	struct tb_open o = { .dfd = -1 };
	struct tracebuf_capture *c;
	unsigned int flags;
	int ret;

	if (!cap)
		return -EINVAL;
	*cap = NULL;
	if (!dir)
		return -EINVAL;
	ret = tb_opts_check(opts, sizeof(*opts));
	if (ret)
		return ret;
	flags = TB_OPT(opts, flags, 0U);
	if (flags & ~(TRACEBUF_CAPTURE_ONE_CPU | TRACEBUF_CAPTURE_META_ONLY))
		return -EINVAL;
	o.on_problem = TB_OPT(opts, on_problem, NULL);
	o.ctx = TB_OPT(opts, ctx, NULL);

	c = calloc(1, sizeof(*c));
	if (!c)
		return -ENOMEM;
	o.dfd = open(dir, O_RDONLY | O_DIRECTORY | O_CLOEXEC);
	if (o.dfd < 0) {
		ret = -errno;
		problem(&o, "%s", strerror(-ret));
		goto fail;
	}
	ret = tb_open(c, &o, !!(flags & TRACEBUF_CAPTURE_ONE_CPU), TB_OPT(opts, cpu, 0U),
		      !!(flags & TRACEBUF_CAPTURE_META_ONLY));
	close(o.dfd);
	if (ret)
		goto fail;
	if (c->nr > 1)
		qsort(c->st, c->nr, sizeof(*c->st), cmp_stream);
	*cap = c;
	return 0;
fail:
	tracebuf_capture_close(c);
	return ret;
}

int tracebuf_capture_complete(const struct tracebuf_capture *cap)
{
	return cap ? cap->complete : -EINVAL;
}

int tracebuf_capture_nr_streams(const struct tracebuf_capture *cap)
{
	return cap ? (int)cap->nr : -EINVAL;
}

int tracebuf_capture_stream_cpu(const struct tracebuf_capture *cap, unsigned int stream)
{
	if (!cap)
		return -EINVAL;
	if (stream >= cap->nr)
		return -ENOENT;
	return (int)cap->st[stream].cpu;
}

int tracebuf_capture_stream_records(const struct tracebuf_capture *cap, unsigned int stream,
				    uint64_t *records)
{
	if (!cap || !records)
		return -EINVAL;
	if (stream >= cap->nr)
		return -ENOENT;
	*records = cap->st[stream].records;
	return 0;
}

int tracebuf_capture_aux(const struct tracebuf_capture *cap, unsigned int stream,
			 const void **data, uint64_t *len)
{
	if (!cap || !data || !len)
		return -EINVAL;
	if (stream >= cap->nr)
		return -ENOENT;
	*data = cap->st[stream].aux;
	*len = cap->st[stream].aux_len;
	return 0;
}

int tracebuf_capture_meta(const struct tracebuf_capture *cap, const char *path,
			  const char **json, size_t *len)
{
	if (!cap || !json || !len)
		return -EINVAL;
	return tb_json_path(cap->meta, cap->meta_len, path ? path : "", json, len);
}

int tracebuf_capture_meta_u64(const struct tracebuf_capture *cap, const char *path,
			      uint64_t *value)
{
	const char *v;
	size_t vl;
	int ret;

	if (!value)
		return -EINVAL;
	ret = tracebuf_capture_meta(cap, path, &v, &vl);
	return ret ? ret : tb_json_u64(v, vl, value);
}

int tracebuf_capture_meta_bool(const struct tracebuf_capture *cap, const char *path,
			       int *value)
{
	const char *v;
	size_t vl;
	int ret;

	if (!value)
		return -EINVAL;
	ret = tracebuf_capture_meta(cap, path, &v, &vl);
	return ret ? ret : tb_json_bool(v, vl, value);
}

int tracebuf_capture_meta_str(const struct tracebuf_capture *cap, const char *path,
			      char *buf, size_t size)
{
	const char *v;
	size_t vl, n = 0;
	int ret;

	if (!buf && size)
		return -EINVAL;
	ret = tracebuf_capture_meta(cap, path, &v, &vl);
	if (ret)
		return ret;
	ret = tb_json_string(v, vl, buf, size, &n);
	if (ret)
		return ret;
	return n > INT_MAX ? INT_MAX : (int)n;
}

/* ---- iteration ----------------------------------------------------------- */

struct tb_cursor {
	size_t off;		/* next record in cpuN.data */
	uint64_t aux_pos;	/* where the next span starts in cpuN.aux */
	uint64_t prev_end;	/* aux_offset + aux_size of the previous span */
	int have_prev;
	uint64_t lost;		/* LOST AUX_OVERRUN bytes since the previous span */
	unsigned int lost_at_least;
};

struct tracebuf_capture_iter {
	struct tracebuf_capture *cap;
	int one;
	unsigned int stream;	/* with one and data */
	unsigned int cpu;	/* with one */
	int data, side;		/* walk the data streams, the sideband files */
	struct tb_cursor *cur;	/* per stream */
	size_t *sboff;		/* per sideband file: its next record */
	struct tracebuf_capture_rec rec;
	struct tracebuf_span span;
	struct tracebuf_sb_rec sbr;
};

int tracebuf_capture_iter_new(struct tracebuf_capture *cap,
			      const struct tracebuf_capture_iter_opts *opts,
			      struct tracebuf_capture_iter **it)
{
	struct tracebuf_capture_iter *i;
	unsigned int flags, k;
	int ret;

	if (!it)
		return -EINVAL;
	*it = NULL;
	if (!cap)
		return -EINVAL;
	ret = tb_opts_check(opts, sizeof(*opts));
	if (ret)
		return ret;
	flags = TB_OPT(opts, flags, 0U);
	if (flags & ~(TRACEBUF_ITER_ONE_CPU | TRACEBUF_ITER_SIDEBAND |
		      TRACEBUF_ITER_SIDEBAND_ONLY))
		return -EINVAL;
	i = calloc(1, sizeof(*i));
	if (!i)
		return -ENOMEM;
	i->cap = cap;
	i->data = !(flags & TRACEBUF_ITER_SIDEBAND_ONLY);
	i->side = !!(flags & (TRACEBUF_ITER_SIDEBAND | TRACEBUF_ITER_SIDEBAND_ONLY));
	if (flags & TRACEBUF_ITER_ONE_CPU) {
		unsigned int cpu = TB_OPT(opts, cpu, 0U);
		int found = 0;

		for (k = 0; i->data && k < cap->nr && cap->st[k].cpu != cpu; k++)
			;
		if (i->data && k < cap->nr) {
			found = 1;
			i->stream = k;
		}
		for (k = 0; i->side && k < cap->nsb; k++)
			found |= cap->sb[k].cpu == cpu;
		if (!found) {
			free(i);
			return -ENOENT;
		}
		i->one = 1;
		i->cpu = cpu;
		if (i->data && !(i->stream < cap->nr && cap->st[i->stream].cpu == cpu))
			i->data = 0;	/* its sideband only */
	}
	i->cur = calloc(cap->nr ? cap->nr : 1, sizeof(*i->cur));
	i->sboff = calloc(cap->nsb ? cap->nsb : 1, sizeof(*i->sboff));
	if (!i->cur || !i->sboff) {
		tracebuf_capture_iter_free(i);
		return -ENOMEM;
	}
	*it = i;
	return 0;
}

void tracebuf_capture_iter_free(struct tracebuf_capture_iter *it)
{
	if (!it)
		return;
	free(it->cur);
	free(it->sboff);
	free(it);
}

/* The record at off of a sideband file, its trailer taken apart. */
static void sb_parse(const struct tracebuf_capture *cap, const struct tb_sbfile *f, size_t off,
		     struct tracebuf_sb_rec *sr)
{
	const unsigned char *p = f->data + off, *t;
	uint64_t st = cap->sample_type, v;
	uint32_t type;
	uint16_t misc, size;

	memset(sr, 0, sizeof(*sr));
	memcpy(&type, p, 4);
	memcpy(&misc, p + 4, 2);
	memcpy(&size, p + 6, 2);
	sr->data = p;
	sr->size = size;
	sr->type = type;
	sr->misc = misc;
	sr->body = p + 8;
	sr->body_size = size - 8;
	/* Checked at open: every record but a sample holds its trailer. */
	if (type == TB_PERF_RECORD_SAMPLE || !cap->trailer)
		return;
	sr->body_size = (uint32_t)(size - 8 - cap->trailer);
	t = p + size - cap->trailer;
	if (st & TB_SAMPLE_TID) {
		memcpy(&sr->pid, t, 4);
		memcpy(&sr->tid, t + 4, 4);
		sr->fields |= TRACEBUF_SB_F_TID;
		t += 8;
	}
	if (st & TB_SAMPLE_TIME) {
		memcpy(&sr->time, t, 8);
		sr->fields |= TRACEBUF_SB_F_TIME;
		t += 8;
	}
	if (st & TB_SAMPLE_ID) {
		memcpy(&sr->id, t, 8);
		sr->fields |= TRACEBUF_SB_F_ID;
		t += 8;
	}
	if (st & TB_SAMPLE_STREAM_ID)
		t += 8;
	if (st & TB_SAMPLE_CPU) {
		memcpy(&sr->cpu, t, 4);
		sr->fields |= TRACEBUF_SB_F_CPU;
		t += 8;
	}
	if (st & TB_SAMPLE_IDENTIFIER) {
		memcpy(&v, t, 8);
		sr->id = v;
		sr->fields |= TRACEBUF_SB_F_ID;
	}
}

/* The time of a sideband file's next record (0 without PERF_SAMPLE_TIME). */
static uint64_t sb_time(const struct tracebuf_capture *cap, const struct tb_sbfile *f,
			size_t off)
{
	struct tracebuf_sb_rec sr;

	sb_parse(cap, f, off, &sr);
	return sr.time;
}

/* The next sideband record, if it comes before (time, or 'none') the data's. */
static int sb_next(struct tracebuf_capture_iter *it, const struct tracebuf_record *r,
		   const struct tracebuf_capture_rec **rec)
{
	const struct tracebuf_capture *cap = it->cap;
	uint64_t best_t = 0;
	unsigned int k, best = 0;
	int have = 0;

	for (k = 0; it->side && k < cap->nsb; k++) {
		const struct tb_sbfile *f = &cap->sb[k];
		uint64_t t;

		if (it->sboff[k] >= f->len || (it->one && f->cpu != it->cpu))
			continue;
		t = sb_time(cap, f, it->sboff[k]);
		if (!have || t < best_t) {
			best_t = t;
			best = k;
			have = 1;
		}
	}
	/* Ties to the data record. */
	if (!have || (r && r->time <= best_t))
		return 0;
	memset(&it->rec, 0, sizeof(it->rec));
	sb_parse(cap, &cap->sb[best], it->sboff[best], &it->sbr);
	it->rec.file = cap->sb[best].name;
	it->rec.cpu = cap->sb[best].cpu;
	it->rec.stream = best;
	it->rec.offset = it->sboff[best];
	it->rec.sb = &it->sbr;
	it->sboff[best] += it->sbr.size;
	*rec = &it->rec;
	return 1;
}

static const struct tracebuf_record *head(const struct tracebuf_capture *cap,
					  const struct tb_cursor *cur, unsigned int k)
{
	const struct tb_stream *st = &cap->st[k];

	/* Every record was checked at open: whole, sized, inside the file. */
	return cur[k].off < st->data_len ? (const void *)(st->data + cur[k].off) : NULL;
}

int tracebuf_capture_next(struct tracebuf_capture_iter *it,
			  const struct tracebuf_capture_rec **rec)
{
	const struct tracebuf_record *r = NULL, *h;
	const struct tracebuf_rec_aux *a;
	const struct tracebuf_rec_lost *l;
	const struct tb_stream *st;
	struct tb_cursor *cur;
	unsigned int k, best = 0;

	if (!it || !rec)
		return -EINVAL;
	*rec = NULL;
	if (!it->data) {
		r = NULL;
	} else if (it->one) {
		best = it->stream;
		r = head(it->cap, it->cur, best);
	} else {
		/* The earliest record of any stream; ties to the lower CPU. */
		for (k = 0; k < it->cap->nr; k++) {
			h = head(it->cap, it->cur, k);
			if (h && (!r || h->time < r->time)) {
				r = h;
				best = k;
			}
		}
	}
	if (sb_next(it, r, rec))
		return 1;
	if (!r)
		return 0;
	st = &it->cap->st[best];
	cur = &it->cur[best];
	memset(&it->rec, 0, sizeof(it->rec));
	it->rec.r = r;
	it->rec.file = st->data_name;
	it->rec.cpu = st->cpu;
	it->rec.stream = best;
	it->rec.offset = cur->off;
	cur->off += r->hdr.size;

	a = tracebuf_as_aux(r);
	l = tracebuf_as_lost(r);
	if (a) {
		struct tracebuf_span *sp = &it->span;

		memset(sp, 0, sizeof(*sp));
		sp->rec = a;
		sp->offset = a->aux_offset;
		sp->size = a->aux_size;
		sp->flags = a->flags;
		if (!it->cap->snapshot && cur->have_prev &&
		    (int64_t)(a->aux_offset - cur->prev_end) > 0)
			sp->gap_bytes = a->aux_offset - cur->prev_end;
		sp->lost_bytes = sp->gap_bytes + cur->lost;
		sp->lost_at_least = cur->lost_at_least;
		sp->stream_offset = cur->aux_pos;
		/* At open: the spans add up to at most the file. */
		if (a->aux_size) {
			sp->nr_parts = 1;
			sp->part[0] = st->aux + cur->aux_pos;
			sp->part_len[0] = (size_t)a->aux_size;
		}
		cur->aux_pos += a->aux_size;
		cur->prev_end = a->aux_offset + a->aux_size;
		cur->have_prev = 1;
		cur->lost = 0;
		cur->lost_at_least = 0;
		it->rec.span = sp;
	} else if (l && l->reason == TRACEBUF_LOST_AUX_OVERRUN) {
		cur->lost += l->count;
		if (l->flags & TRACEBUF_LOST_F_AT_LEAST)
			cur->lost_at_least = 1;
	}
	*rec = &it->rec;
	return 1;
}
