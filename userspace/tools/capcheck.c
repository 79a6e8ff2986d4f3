// SPDX-License-Identifier: GPL-2.0
/*
 * Does a capture add up? Every reader (dump, decode, export) asks this
 * before it reads a capture, so that none of them prints a damaged one as
 * if it were whole. The rules are in docs/capture-format.md ("Checks"):
 * meta.json against the files (sizes and counts), and the files against
 * each other (AUX records against cpuN.aux, LOST records against the
 * counts). Every problem is printed, naming the file, the byte offset
 * and both numbers.
 */
#include <dirent.h>
#include <errno.h>
#include <inttypes.h>
#include <limits.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>

#include "capture.h"
#include "tool.h"

/* Per CPU number: large enough for any machine, small enough to list. */
#define CC_MAX_CPU	65536

struct cc {
	const char *cmd, *dir;
	unsigned int problems;
};

static void problem(struct cc *c, const char *fmt, ...)
	__attribute__((format(printf, 2, 3)));

static void problem(struct cc *c, const char *fmt, ...)
{
	va_list ap;

	fprintf(stderr, "tracebuf: %s: %s: ", c->cmd, c->dir);
	va_start(ap, fmt);
	vfprintf(stderr, fmt, ap);
	va_end(ap);
	fputc('\n', stderr);
	c->problems++;
}

/* What the files of one CPU hold. */
struct cc_files {
	uint64_t data_bytes, records, aux_spans, aux_described, aux_file;
	uint64_t truncations, collisions, lost_records, aux_lost, inner_gaps;
	int aux_lost_at_least;
};

static int get_u64(const char *obj, size_t len, const char *key, uint64_t *v)
{
	const char *val;
	size_t vl;

	if (tb_json_member(obj, len, key, &val, &vl))
		return -ENOENT;
	return tb_json_u64(val, vl, v) ? -EINVAL : 0;
}

/*
 * cpuN.data and cpuN.aux of one CPU against each other. Returns 0, or -1
 * when the files cannot be compared with meta.json at all.
 */
static int check_files(struct cc *c, unsigned int cpu, uint64_t aux_area, int snapshot,
		       int complete, struct cc_files *f)
{
	char path[PATH_MAX];
	unsigned char *buf = NULL;
	size_t len = 0;
	struct tb_rec_iter it;
	const struct tracebuf_record *r;
	uint64_t prev_end = 0;
	struct stat st;
	int bad, ret;

	memset(f, 0, sizeof(*f));
	snprintf(path, sizeof(path), "%s/cpu%u.data", c->dir, cpu);
	ret = tb_read_file(path, &buf, &len);
	if (ret < 0) {
		problem(c, "cpu%u.data: %s", cpu, strerror(-ret));
		return -1;
	}
	snprintf(path, sizeof(path), "%s/cpu%u.aux", c->dir, cpu);
	ret = stat(path, &st) ? -errno : S_ISREG(st.st_mode) ? 0 : -EINVAL;
	if (ret) {
		problem(c, "cpu%u.aux: %s", cpu, ret == -EINVAL ? "not a regular file" :
			strerror(-ret));
		free(buf);
		return -1;
	}
	f->aux_file = (uint64_t)st.st_size;
	f->data_bytes = len;

	it = (struct tb_rec_iter){ buf, len, 0 };
	for (;;) {
		size_t off = it.off;

		r = tb_rec_next(&it, &bad);
		if (!r) {
			if (bad || it.off != len) {
				problem(c, "cpu%u.data: %s at byte offset %zu of %zu", cpu,
					bad ? "a record size that does not fit" :
					"a truncated record header", off, len);
				free(buf);
				return -1;
			}
			break;
		}
		f->records++;
		if (r->hdr.type == TRACEBUF_REC_AUX) {
			const struct tracebuf_rec_aux *a = (const void *)r;

			if (r->hdr.size < sizeof(*a)) {
				problem(c, "cpu%u.data: AUX record at byte offset %zu is too "
					"short (%u bytes)", cpu, off, r->hdr.size);
				free(buf);
				return -1;
			}
			/* Each span fits the AUX area: the sum cannot wrap. */
			if (a->aux_size > aux_area) {
				problem(c, "cpu%u.data: AUX record at byte offset %zu claims %"
					PRIu64 " bytes, more than the AUX area (%" PRIu64 ")",
					cpu, off, (uint64_t)a->aux_size, aux_area);
				free(buf);
				return -1;
			}
			/* Full-trace spans follow each other in the ring. */
			if (!snapshot && f->aux_spans) {
				if ((int64_t)(a->aux_offset - prev_end) < 0)
					problem(c, "cpu%u.data: AUX record at byte offset %zu "
						"starts at 0x%" PRIx64 ", before the end of the "
						"previous span (0x%" PRIx64 ")", cpu, off,
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

			if (r->hdr.size < sizeof(*l)) {
				problem(c, "cpu%u.data: LOST record at byte offset %zu is too "
					"short (%u bytes)", cpu, off, r->hdr.size);
				free(buf);
				return -1;
			}
			if (l->reason == TRACEBUF_LOST_AUX_OVERRUN) {
				if (f->aux_lost + l->count < f->aux_lost) {
					problem(c, "cpu%u.data: LOST counts overflow at byte "
						"offset %zu", cpu, off);
					free(buf);
					return -1;
				}
				f->aux_lost += l->count;
				if (l->flags & TRACEBUF_LOST_F_AT_LEAST)
					f->aux_lost_at_least = 1;
			} else {
				if (f->lost_records + l->count < f->lost_records) {
					problem(c, "cpu%u.data: LOST counts overflow at byte "
						"offset %zu", cpu, off);
					free(buf);
					return -1;
				}
				f->lost_records += l->count;
			}
		}
	}
	free(buf);

	/*
	 * The tool writes a span's bytes before its record: an interrupted
	 * recording may hold bytes no record describes yet, never fewer.
	 */
	if (complete ? f->aux_described != f->aux_file : f->aux_described > f->aux_file)
		problem(c, "cpu%u.aux has %" PRIu64 " bytes, the AUX records of cpu%u.data "
			"describe %" PRIu64, cpu, f->aux_file, cpu, f->aux_described);
	return 0;
}

/* meta.json's per-CPU numbers against what the files hold. */
static int check_counts(struct cc *c, unsigned int cpu, const char *pc, size_t pcl,
			const struct cc_files *f, int *lost)
{
	static const struct {
		const char *key;
		size_t off;
		int at_least;	/* meta may say more: the kernel's own counter */
		int optional;	/* not written by the first tool versions */
	} keys[] = {
		{ "data_bytes", offsetof(struct cc_files, data_bytes), 0, 1 },
		{ "records", offsetof(struct cc_files, records), 0, 0 },
		{ "aux_spans", offsetof(struct cc_files, aux_spans), 0, 0 },
		{ "aux_bytes", offsetof(struct cc_files, aux_described), 0, 0 },
		{ "aux_truncations", offsetof(struct cc_files, truncations), 1, 0 },
		{ "aux_collisions", offsetof(struct cc_files, collisions), 1, 0 },
		{ "records_lost", offsetof(struct cc_files, lost_records), 1, 0 },
		{ "aux_lost_bytes", offsetof(struct cc_files, aux_lost), 0, 1 },
	};
	uint64_t v, gap = 0;
	unsigned int i;
	int ret, n = 0;

	for (i = 0; i < sizeof(keys) / sizeof(keys[0]); i++) {
		uint64_t have = *(const uint64_t *)(const void *)((const char *)f + keys[i].off);

		ret = get_u64(pc, pcl, keys[i].key, &v);
		if (ret == -ENOENT && keys[i].optional)
			continue;
		if (ret) {
			problem(c, "meta.json: per_cpu \"%u\": \"%s\" is %s", cpu, keys[i].key,
				ret == -ENOENT ? "missing" : "not a number");
			n++;
			continue;
		}
		if (keys[i].at_least ? v < have : v != have) {
			problem(c, "meta.json: per_cpu \"%u\": \"%s\" is %" PRIu64 ", the files "
				"say %s%" PRIu64, cpu, keys[i].key, v,
				keys[i].at_least ? "at least " : "", have);
			n++;
		}
		if (v && (!strcmp(keys[i].key, "aux_truncations") ||
			  !strcmp(keys[i].key, "aux_collisions") ||
			  !strcmp(keys[i].key, "records_lost") ||
			  !strcmp(keys[i].key, "aux_lost_bytes")))
			*lost = 1;
	}
	ret = get_u64(pc, pcl, "aux_gap_bytes", &gap);
	if (ret == -EINVAL) {
		problem(c, "meta.json: per_cpu \"%u\": \"aux_gap_bytes\" is not a number", cpu);
		n++;
	} else if (!ret && gap < f->inner_gaps) {
		problem(c, "meta.json: per_cpu \"%u\": \"aux_gap_bytes\" is %" PRIu64 ", the "
			"AUX records of cpu%u.data skip %" PRIu64 " bytes", cpu, gap, cpu,
			f->inner_gaps);
		n++;
	}
	if (gap)
		*lost = 1;
	return n;
}

static void check_unlisted(struct cc *c, const unsigned char *seen)
{
	struct dirent *de;
	unsigned int cpu;
	char kind[8];
	DIR *d;
	int end;

	d = opendir(c->dir);
	if (!d) {
		problem(c, "%s", strerror(errno));
		return;
	}
	while ((de = readdir(d)) != NULL) {
		end = 0;
		if (sscanf(de->d_name, "cpu%u.%7[a-z]%n", &cpu, kind, &end) != 2 ||
		    de->d_name[end] || (strcmp(kind, "data") && strcmp(kind, "aux")))
			continue;
		if (cpu >= CC_MAX_CPU || !(seen[cpu / 8] & (1u << (cpu % 8))))
			problem(c, "%s is not in %s's \"cpus\"", de->d_name, TB_CAPTURE_META);
	}
	closedir(d);
}

int tb_capture_check(const char *cmd, const char *dir, long only, int *incomplete)
{
	struct cc c = { .cmd = cmd, .dir = dir };
	char path[PATH_MAX];
	char *text = NULL;
	const char *cpus, *per_cpu = NULL, *e, *pc;
	size_t len = 0, cl, pcl_all = 0, el, pcl, n;
	uint64_t v, aux_area = 0;
	int complete = 0, snapshot = 0, lost = 0, any_lost = 0, unread = 0, ret;
	unsigned char *seen = NULL;

	*incomplete = 0;
	snprintf(path, sizeof(path), "%s/%s", dir, TB_CAPTURE_META);
	ret = tb_read_file(path, (unsigned char **)&text, &len);
	if (ret < 0) {
		problem(&c, "%s: %s (every capture has one)", TB_CAPTURE_META, strerror(-ret));
		return (int)c.problems;
	}
	if (strlen(text) != len || tb_json_object(text, len) ||
	    tb_json_member(text, len, "format", &e, &el)) {
		problem(&c, "%s: not a capture description", TB_CAPTURE_META);
		goto out;
	}
	if (tb_json_u64(e, el, &v) || v != TB_CAPTURE_FORMAT) {
		problem(&c, "%s: capture format %.*s, this tool reads format %d",
			TB_CAPTURE_META, (int)(el < 32 ? el : 32), e, TB_CAPTURE_FORMAT);
		goto out;
	}
	if (tb_json_member(text, len, "complete", &e, &el) || tb_json_bool(e, el, &complete) ||
	    tb_json_member(text, len, "snapshot", &e, &el) || tb_json_bool(e, el, &snapshot) ||
	    tb_json_member(text, len, "lost", &e, &el) || tb_json_bool(e, el, &lost) ||
	    get_u64(text, len, "aux_size", &aux_area)) {
		problem(&c, "%s: \"complete\", \"snapshot\", \"lost\" or \"aux_size\" is "
			"missing or malformed", TB_CAPTURE_META);
		goto out;
	}
	if (tb_json_member(text, len, "cpus", &cpus, &cl) || *cpus != '[') {
		problem(&c, "%s: \"cpus\" is missing or not an array", TB_CAPTURE_META);
		goto out;
	}
	if (complete && (tb_json_member(text, len, "per_cpu", &per_cpu, &pcl_all) ||
			 *per_cpu != '{')) {
		problem(&c, "%s: \"per_cpu\" is missing or not an object", TB_CAPTURE_META);
		goto out;
	}
	seen = calloc(CC_MAX_CPU / 8, 1);
	if (!seen) {
		problem(&c, "%s", strerror(ENOMEM));
		goto out;
	}
	for (n = 0; !tb_json_index(cpus, cl, n, &e, &el); n++) {
		struct cc_files f;
		char key[16];
		unsigned int cpu;

		if (tb_json_u64(e, el, &v) || v >= CC_MAX_CPU) {
			problem(&c, "%s: \"cpus\" entry %zu is not a CPU number", TB_CAPTURE_META, n);
			goto out;
		}
		cpu = (unsigned int)v;
		if (seen[cpu / 8] & (1u << (cpu % 8))) {
			problem(&c, "%s: CPU %u is listed twice in \"cpus\"", TB_CAPTURE_META, cpu);
			continue;
		}
		seen[cpu / 8] |= (unsigned char)(1u << (cpu % 8));
		if (only >= 0 && cpu != (unsigned long)only)
			continue;
		if (check_files(&c, cpu, aux_area, snapshot, complete, &f)) {
			unread = 1;
			continue;
		}
		if (!complete)
			continue;
		snprintf(key, sizeof(key), "%u", cpu);
		if (tb_json_member(per_cpu, pcl_all, key, &pc, &pcl) || *pc != '{') {
			problem(&c, "%s: \"per_cpu\" has no entry for CPU %u", TB_CAPTURE_META, cpu);
			unread = 1;
			continue;
		}
		check_counts(&c, cpu, pc, pcl, &f, &any_lost);
	}
	if (!n)
		problem(&c, "%s: \"cpus\" is empty", TB_CAPTURE_META);
	/* Every CPU's counts were seen: the summary must agree with them. */
	if (complete && only < 0 && !unread && any_lost != lost)
		problem(&c, "%s: \"lost\" is %s, but the per_cpu counts say %s",
			TB_CAPTURE_META, lost ? "true" : "false",
			any_lost ? "trace was lost" : "nothing was lost");
	/* The files of a CPU the capture does not list: renamed or moved in. */
	if (only < 0)
		check_unlisted(&c, seen);
	*incomplete = !complete;
out:
	free(seen);
	free(text);
	return (int)c.problems;
}
