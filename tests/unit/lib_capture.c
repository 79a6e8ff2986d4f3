/* SPDX-License-Identifier: GPL-2.0 */
/*
 * The capture reader of libtracebuf (tracebuf_capture_open(3), _next(3),
 * _meta(3)) against capture directories written here: the records of
 * every type (an unknown one included) per CPU and merged by time, spans
 * with their bytes, file offsets, gap_bytes and lost_bytes, meta.json by
 * path, the strict JSON rules, every check refusing a damaged capture with
 * its problem named, the options (ONE_CPU, META_ONLY, sz) and the
 * iterator's.
 *
 *   lib_capture TMPDIR
 */
#include <errno.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include <libtracebuf.h>

#include "check.h"

static char dir[4096];

/* ---- writing captures ---------------------------------------------------- */

struct file {
	unsigned char buf[8192];
	size_t len;
};

static void *rec(struct file *f, uint16_t type, size_t size, uint32_t cpu, uint64_t time)
{
	struct tracebuf_record *r = (void *)(f->buf + f->len);

	size = (size + 7) & ~(size_t)7;
	memset(r, 0, size);
	r->hdr.size = (uint32_t)size;
	r->hdr.type = type;
	r->cpu = cpu;
	r->time = time;
	f->len += size;
	return r;
}

static struct tracebuf_rec_aux *aux(struct file *f, uint32_t cpu, uint64_t time,
				    uint64_t off, uint64_t size, uint64_t flags)
{
	struct tracebuf_rec_aux *a = rec(f, TRACEBUF_REC_AUX, sizeof(*a), cpu, time);

	a->aux_offset = off;
	a->aux_size = size;
	a->flags = flags;
	return a;
}

static void put(const char *name, const void *p, size_t n)
{
	char path[8192];
	FILE *f;

	snprintf(path, sizeof(path), "%s/%s", dir, name);
	f = fopen(path, "w");
	if (!f || fwrite(p, 1, n, f) != n || fclose(f)) {
		perror(path);
		exit(2);
	}
}

static void put_str(const char *name, const char *s)
{
	put(name, s, strlen(s));
}

static void rm(const char *name)
{
	char path[8192];

	snprintf(path, sizeof(path), "%s/%s", dir, name);
	unlink(path);
}

static void fresh(void)
{
	static const char *const names[] = {
		"meta.json", "cpu0.data", "cpu0.aux", "cpu1.data", "cpu1.aux",
		"cpu2.data", "cpu2.aux", "cpu0.sb", "cpu1.sb", "proc.sb", "x.sb", "vdso.so",
	};
	size_t i;

	for (i = 0; i < sizeof(names) / sizeof(names[0]); i++)
		rm(names[i]);
}

/* A complete capture: CPU 0 and CPU 1 (see below), meta.json to match. */
static const char good_meta[] =
	"{\"format\": 1, \"backend\": \"intel_pt\", \"aux_size\": 4096, \"snapshot\": false,\n"
	" \"command\": [\"sh\", \"-c\", \"caf\\u00e9 \\ud83d\\ude00\"], \"start_realtime\": 12.5,\n"
	" \"future_key\": {\"x\": [1, {\"y\": null}]},\n"
	" \"cpus\": [1, 0],\n"
	" \"per_cpu\": {\"0\": {\"config\": \"branch=1,mtc_period=3\", \"records\": 7,\n"
	"   \"aux_spans\": 3, \"aux_bytes\": 112, \"aux_truncations\": 1,\n"
	"   \"aux_collisions\": 0, \"records_lost\": 2, \"aux_gap_bytes\": 32,\n"
	"   \"data_bytes\": DATA0, \"caps\": {\"cpuid_15\": [2, 100, 0, 0]}},\n"
	"  \"1\": {\"records\": 1, \"aux_spans\": 1, \"aux_bytes\": 16,\n"
	"   \"aux_truncations\": 0, \"aux_collisions\": 0, \"records_lost\": 0}},\n"
	" \"lost\": true, \"complete\": true}\n";

static size_t data0_len;

static void write_good(void)
{
	static struct file f0, f1;
	static const char cfg[] = "branch=1,mtc_period=3";
	struct tracebuf_rec_config *c;
	struct tracebuf_rec_lost *l;
	unsigned char bytes[256];
	char meta[sizeof(good_meta) + 32], *p;
	size_t i;

	fresh();
	memset(&f0, 0, sizeof(f0));
	memset(&f1, 0, sizeof(f1));
	/* CPU 0: CONFIG (written by CPU 1), AUX, LOST, AUX after a gap, unknown, AUX. */
	c = rec(&f0, TRACEBUF_REC_CONFIG, sizeof(*c) + sizeof(cfg), 1, 100);
	c->generation = 1;
	c->len = sizeof(cfg);
	memcpy(c + 1, cfg, sizeof(cfg));
	aux(&f0, 0, 200, 0, 64, 0);
	l = rec(&f0, TRACEBUF_REC_LOST, sizeof(*l), 0, 300);
	l->count = 2;
	l->reason = TRACEBUF_LOST_RING_FULL;
	l = rec(&f0, TRACEBUF_REC_LOST, sizeof(*l), 0, 310);
	l->count = 1000;
	l->reason = TRACEBUF_LOST_AUX_OVERRUN;
	l->flags = TRACEBUF_LOST_F_AT_LEAST;
	aux(&f0, 0, 400, 96, 16, TRACEBUF_AUX_F_TRUNCATED);	/* 32 bytes skipped */
	rec(&f0, 0x7f55, 48, 0, 500);					/* a type unknown here */
	aux(&f0, 0, 600, 112, 32, TRACEBUF_AUX_F_PARTIAL);
	/* CPU 1: one span, between CPU 0's records in time. */
	aux(&f1, 1, 250, 4096, 16, TRACEBUF_AUX_F_OVERWRITE);
	put("cpu0.data", f0.buf, f0.len);
	put("cpu1.data", f1.buf, f1.len);
	for (i = 0; i < sizeof(bytes); i++)
		bytes[i] = (unsigned char)i;
	put("cpu0.aux", bytes, 112);
	put("cpu1.aux", bytes + 200, 16);
	/* "LOST" counts 2 records and 1000 AUX_OVERRUN bytes, not in "aux_lost_bytes": optional */
	strcpy(meta, good_meta);
	p = strstr(meta, "DATA0");
	data0_len = f0.len;
	snprintf(p, sizeof(meta) - (size_t)(p - meta), "%zu%s", f0.len, strstr(good_meta, "DATA0") + 5);
	put_str("meta.json", meta);
}

/* ---- reading ------------------------------------------------------------- */

static char problems[16][512];
static unsigned int nproblems;

static void on_problem(void *ctx, const char *msg)
{
	CHECK(ctx == (void *)dir);
	if (nproblems < 16)
		snprintf(problems[nproblems], sizeof(problems[0]), "%s", msg);
	nproblems++;
}

static int open_cap(unsigned int flags, unsigned int cpu, struct tracebuf_capture **cap)
{
	struct tracebuf_capture_opts o = {
		.sz = sizeof(o), .flags = flags, .cpu = cpu, .on_problem = on_problem,
		.ctx = dir,
	};

	nproblems = 0;
	return tracebuf_capture_open(dir, &o, cap);
}

static int said(const char *s)
{
	unsigned int i;

	for (i = 0; i < nproblems && i < 16; i++)
		if (strstr(problems[i], s))
			return 1;
	fprintf(stderr, "no problem '%s' among %u:\n", s, nproblems);
	for (i = 0; i < nproblems && i < 16; i++)
		fprintf(stderr, "  %s\n", problems[i]);
	return 0;
}

/* Refused with ret, a problem saying msg. */
static void refused(int ret, const char *msg)
{
	struct tracebuf_capture *cap = (void *)1;

	CHECK_EQ(open_cap(0, 0, &cap), ret);
	CHECK(cap == NULL);
	CHECK(nproblems >= 1);
	CHECK(said(msg));
}

static void test_good(void)
{
	struct tracebuf_capture *cap;
	struct tracebuf_capture_iter *it;
	const struct tracebuf_capture_rec *cr;
	const void *a0;
	uint64_t v, len;
	uint64_t times[16];
	unsigned int n = 0;
	char s[64];
	const char *j;
	size_t jl;
	int b;

	write_good();
	CHECK_EQ(open_cap(0, 0, &cap), 0);
	CHECK_EQ(nproblems, 0);
	if (!cap)
		return;
	CHECK_EQ(tracebuf_capture_complete(cap), 1);
	CHECK_EQ(tracebuf_capture_nr_streams(cap), 2);
	CHECK_EQ(tracebuf_capture_stream_cpu(cap, 0), 0);	/* by CPU, not "cpus" order */
	CHECK_EQ(tracebuf_capture_stream_cpu(cap, 1), 1);
	CHECK_EQ(tracebuf_capture_stream_cpu(cap, 2), -ENOENT);
	CHECK_EQ(tracebuf_capture_stream_records(cap, 0, &v), 0);
	CHECK_EQ(v, 7);
	CHECK_EQ(tracebuf_capture_stream_records(cap, 2, &v), -ENOENT);
	CHECK_EQ(tracebuf_capture_aux(cap, 0, &a0, &len), 0);
	CHECK_EQ(len, 112);
	CHECK(a0 && ((const unsigned char *)a0)[100] == 100);

	/* meta.json by path */
	CHECK_EQ(tracebuf_capture_meta_str(cap, "backend", s, sizeof(s)), 8);
	CHECK(!strcmp(s, "intel_pt"));
	CHECK_EQ(tracebuf_capture_meta_str(cap, "command.2", s, sizeof(s)), 10);
	CHECK(!strcmp(s, "caf\xc3\xa9 \xf0\x9f\x98\x80"));	/* \u escapes and a surrogate pair */
	CHECK_EQ(tracebuf_capture_meta_str(cap, "command.0", s, 2), -ENOSPC);
	CHECK(!strcmp(s, "s"));
	CHECK_EQ(tracebuf_capture_meta_str(cap, "command.3", s, sizeof(s)), -ENOENT);
	CHECK_EQ(tracebuf_capture_meta_str(cap, "aux_size", s, sizeof(s)), -EINVAL);
	CHECK_EQ(tracebuf_capture_meta_u64(cap, "per_cpu.0.caps.cpuid_15.1", &v), 0);
	CHECK_EQ(v, 100);
	CHECK_EQ(tracebuf_capture_meta_u64(cap, "per_cpu.0.caps.cpuid_15.4", &v), -ENOENT);
	CHECK_EQ(tracebuf_capture_meta_u64(cap, "per_cpu.7", &v), -ENOENT);
	CHECK_EQ(tracebuf_capture_meta_u64(cap, "start_realtime", &v), -EINVAL);
	CHECK_EQ(tracebuf_capture_meta_u64(cap, "backend", &v), -EINVAL);
	CHECK_EQ(tracebuf_capture_meta_u64(cap, "backend.x", &v), -ENOENT);
	CHECK_EQ(tracebuf_capture_meta_u64(cap, "per_cpu..0", &v), -EINVAL);
	CHECK_EQ(tracebuf_capture_meta_bool(cap, "complete", &b), 0);
	CHECK_EQ(b, 1);
	CHECK_EQ(tracebuf_capture_meta_bool(cap, "format", &b), -EINVAL);
	CHECK_EQ(tracebuf_capture_meta(cap, "future_key.x.1", &j, &jl), 0);
	CHECK(jl == 11 && !memcmp(j, "{\"y\": null}", 11));
	CHECK_EQ(tracebuf_capture_meta(cap, NULL, &j, &jl), 0);
	CHECK(j[0] == '{' && jl == strlen(j));

	/* Merged by time: 100 200 250(cpu1) 300 310 400 500 600. */
	CHECK_EQ(tracebuf_capture_iter_new(cap, NULL, &it), 0);
	while (tracebuf_capture_next(it, &cr) > 0 && n < 16) {
		times[n] = cr->r->time;
		if (cr->r->time == 100) {
			CHECK(tracebuf_as_config(cr->r) != NULL);
			CHECK_EQ(cr->cpu, 0);		/* the stream, not the writer */
			CHECK_EQ(cr->r->cpu, 1);
			CHECK(!strcmp(cr->file, "cpu0.data"));
			CHECK_EQ(cr->offset, 0);
			CHECK(cr->span == NULL);
		} else if (cr->r->time == 200) {
			CHECK(cr->span && cr->span->size == 64 && cr->span->stream_offset == 0);
			CHECK(cr->span && cr->span->nr_parts == 1 && cr->span->part[0] == a0);
			CHECK(cr->span && cr->span->gap_bytes == 0 && cr->span->lost_bytes == 0);
		} else if (cr->r->time == 250) {
			CHECK_EQ(cr->cpu, 1);
			CHECK_EQ(cr->stream, 1);
			CHECK(cr->span && cr->span->flags == TRACEBUF_AUX_F_OVERWRITE);
			CHECK(cr->span && ((const unsigned char *)cr->span->part[0])[0] == 200);
		} else if (cr->r->time == 400) {
			/* After 32 bytes without a record, and 1000 AUX_OVERRUN bytes. */
			CHECK(cr->span && cr->span->gap_bytes == 32);
			CHECK(cr->span && cr->span->lost_bytes == 1032);
			CHECK(cr->span && cr->span->lost_at_least == 1);
			CHECK(cr->span && cr->span->flags == TRACEBUF_AUX_F_TRUNCATED);
			CHECK(cr->span && cr->span->stream_offset == 64);
			CHECK(cr->span && cr->span->part[0] == (const unsigned char *)a0 + 64);
		} else if (cr->r->time == 500) {
			CHECK_EQ(cr->r->hdr.type, 0x7f55);	/* handed out as it is */
			CHECK_EQ(cr->r->hdr.size, 48);
			CHECK(cr->span == NULL);
		} else if (cr->r->time == 600) {
			CHECK(cr->span && cr->span->gap_bytes == 0 && cr->span->lost_bytes == 0);
			CHECK(cr->span && cr->span->stream_offset == 80);
			CHECK_EQ(cr->offset, data0_len - sizeof(struct tracebuf_rec_aux));
		}
		n++;
	}
	CHECK_EQ(n, 8);
	CHECK_EQ(tracebuf_capture_next(it, &cr), 0);
	CHECK(cr == NULL);
	CHECK(n == 8 && times[0] == 100 && times[1] == 200 && times[2] == 250 &&
	      times[3] == 300 && times[7] == 600);
	tracebuf_capture_iter_free(it);

	/* One CPU, file order. */
	{
		struct tracebuf_capture_iter_opts io = {
			.sz = sizeof(io), .flags = TRACEBUF_ITER_ONE_CPU, .cpu = 1,
		};

		CHECK_EQ(tracebuf_capture_iter_new(cap, &io, &it), 0);
		CHECK_EQ(tracebuf_capture_next(it, &cr), 1);
		CHECK(cr && cr->r->time == 250);
		CHECK_EQ(tracebuf_capture_next(it, &cr), 0);
		tracebuf_capture_iter_free(it);
		io.cpu = 5;
		it = (void *)1;
		CHECK_EQ(tracebuf_capture_iter_new(cap, &io, &it), -ENOENT);
		CHECK(it == NULL);
		io.flags = 1U << 7;
		CHECK_EQ(tracebuf_capture_iter_new(cap, &io, &it), -EINVAL);
	}
	/* Size-prefixed options: older (smaller), newer (zero tail), newer (not zero). */
	{
		struct {
			struct tracebuf_capture_iter_opts o;
			uint64_t more;
		} big = { { .sz = sizeof(big), .flags = TRACEBUF_ITER_ONE_CPU, .cpu = 1 }, 0 };
		struct tracebuf_capture_iter_opts small = { .sz = sizeof(size_t), .cpu = 1 };

		CHECK_EQ(tracebuf_capture_iter_new(cap, &big.o, &it), 0);
		tracebuf_capture_iter_free(it);
		big.more = 1;
		CHECK_EQ(tracebuf_capture_iter_new(cap, &big.o, &it), -E2BIG);
		CHECK_EQ(tracebuf_capture_iter_new(cap, &small, &it), 0);	/* all streams */
		n = 0;
		while (tracebuf_capture_next(it, &cr) > 0)
			n++;
		CHECK_EQ(n, 8);
		tracebuf_capture_iter_free(it);
		small.sz = 4;
		CHECK_EQ(tracebuf_capture_iter_new(cap, &small, &it), -EINVAL);
	}
	CHECK_EQ(tracebuf_capture_next(NULL, &cr), -EINVAL);
	tracebuf_capture_close(cap);
	tracebuf_capture_close(NULL);

	/* One CPU at open: only its stream; a CPU not in the capture: none. */
	CHECK_EQ(open_cap(TRACEBUF_CAPTURE_ONE_CPU, 1, &cap), 0);
	CHECK_EQ(tracebuf_capture_nr_streams(cap), 1);
	CHECK_EQ(tracebuf_capture_stream_cpu(cap, 0), 1);
	tracebuf_capture_close(cap);
	CHECK_EQ(open_cap(TRACEBUF_CAPTURE_ONE_CPU, 9, &cap), 0);
	CHECK_EQ(tracebuf_capture_nr_streams(cap), 0);
	tracebuf_capture_close(cap);
	/* The other CPU's damage is not looked at with ONE_CPU. */
	rm("cpu0.aux");
	CHECK_EQ(open_cap(TRACEBUF_CAPTURE_ONE_CPU, 1, &cap), 0);
	tracebuf_capture_close(cap);
	refused(-EBADMSG, "cpu0.aux: No such file or directory");
	/* META_ONLY: meta.json alone. */
	rm("cpu1.data");
	CHECK_EQ(open_cap(TRACEBUF_CAPTURE_META_ONLY, 0, &cap), 0);
	CHECK_EQ(tracebuf_capture_nr_streams(cap), 0);
	CHECK_EQ(tracebuf_capture_meta_str(cap, "backend", s, sizeof(s)), 8);
	tracebuf_capture_close(cap);
}

/* The good capture with meta.json's first 'from' replaced by 'to'. */
static void meta_edit(const char *from, const char *to)
{
	char path[8192], meta[4096], out[4096];
	FILE *f;
	size_t n;
	char *p;

	write_good();
	snprintf(path, sizeof(path), "%s/meta.json", dir);
	f = fopen(path, "r");
	n = f ? fread(meta, 1, sizeof(meta) - 1, f) : 0;
	if (f)
		fclose(f);
	meta[n] = 0;
	p = strstr(meta, from);
	CHECK(p != NULL);
	if (!p)
		return;
	snprintf(out, sizeof(out), "%.*s%s%s", (int)(p - meta), meta, to, p + strlen(from));
	put_str("meta.json", out);
}

/* The meta.json there now, its first 'from' replaced by 'to'. */
static void meta_edit_in_place(const char *from, const char *to)
{
	char path[8192], meta[8192], out[8192];
	FILE *f;
	size_t n;
	char *p;

	snprintf(path, sizeof(path), "%s/meta.json", dir);
	f = fopen(path, "r");
	n = f ? fread(meta, 1, sizeof(meta) - 1, f) : 0;
	if (f)
		fclose(f);
	meta[n] = 0;
	p = strstr(meta, from);
	CHECK(p != NULL);
	if (!p)
		return;
	snprintf(out, sizeof(out), "%.*s%s%s", (int)(p - meta), meta, to, p + strlen(from));
	put_str("meta.json", out);
}

/* meta.json replaced: what open says. */
static void meta_is(const char *text, int ret, const char *msg)
{
	write_good();
	put_str("meta.json", text);
	if (ret)
		refused(ret, msg);
}

static void test_json(void)
{
	/* Strict RFC 8259, each one refused as not valid JSON. */
	static const char *const bad[] = {
		"{\"format\": 1, \"format\": 1}",	/* a key twice */
		"{\"format\": 1} x",			/* something after it */
		"{\"format\": 01}",			/* a leading zero */
		"{\"format\": 1.}",
		"{\"format\": -}",
		"{\"format\": 1e}",
		"{\"format\": \"\\x\"}",		/* an unknown escape */
		"{\"format\": \"\\ud800\"}",		/* a lone surrogate */
		"{\"format\": \"\\udc00x\"}",
		"{\"format\": \"\xc3\"}",		/* cut UTF-8 */
		"{\"format\": \"\xc0\xaf\"}",		/* overlong UTF-8 */
		"{\"format\": \"a\nb\"}",		/* a raw control character */
		"{\"format\": tru}",
		"{\"format\": 1,}",
		"{\"format\" 1}",
		"[1]x",
		"",
		"{\"a\": [1, 2,]}",
	};
	char deep[300];
	size_t i;

	for (i = 0; i < sizeof(bad) / sizeof(bad[0]); i++) {
		int before = check_failures;

		meta_is(bad[i], -EBADMSG, "meta.json: not a valid capture description (not valid JSON)");
		if (check_failures != before)
			fprintf(stderr, "  (bad JSON #%zu)\n", i);
	}
	/* Nesting: 64 levels (the object and 63 arrays) are fine, 65 are not. */
	memset(deep, 0, sizeof(deep));
	strcpy(deep, "{\"a\": ");
	for (i = 0; i < 63; i++)
		strcat(deep, "[");
	for (i = 0; i < 63; i++)
		strcat(deep, "]");
	strcat(deep, "}");
	meta_is(deep, -EBADMSG, "\"format\"");	/* valid: then refused for no "format" */
	deep[6] = 0;
	for (i = 0; i < 64; i++)
		strcat(deep, "[");
	for (i = 0; i < 64; i++)
		strcat(deep, "]");
	strcat(deep, "}");
	meta_is(deep, -EBADMSG, "not valid JSON");

	meta_is("[1, 2]", -EBADMSG, "not a valid capture description (not a JSON object)");
	meta_is("{\"cpus\": [0]}", -EBADMSG, "not a valid capture description (no \"format\")");
	meta_is("{\"format\": 99, \"cpus\": [0]}", -EPROTONOSUPPORT,
		"meta.json: unknown capture format 99 (this library reads format 1)");
	meta_is("{\"format\": 1, \"complete\": true, \"snapshot\": false, \"lost\": false}",
		-EBADMSG, "\"complete\", \"snapshot\", \"lost\" or \"aux_size\" is missing or malformed");
	meta_is("{\"format\": 1, \"complete\": 1, \"snapshot\": false, \"lost\": false, "
		"\"aux_size\": 4096, \"cpus\": [0]}", -EBADMSG, "is missing or malformed");
	meta_is("{\"format\": 1, \"complete\": false, \"snapshot\": false, \"lost\": false, "
		"\"aux_size\": 4096, \"cpus\": {}}", -EBADMSG, "\"cpus\" is missing or not an array");
	meta_is("{\"format\": 1, \"complete\": false, \"snapshot\": false, \"lost\": false, "
		"\"aux_size\": 4096, \"cpus\": []}", -EBADMSG, "\"cpus\" is empty");
	meta_is("{\"format\": 1, \"complete\": false, \"snapshot\": false, \"lost\": false, "
		"\"aux_size\": 4096, \"cpus\": [0, -1]}", -EBADMSG,
		"\"cpus\" entry 1 is not a CPU number");
	meta_is("{\"format\": 1, \"complete\": true, \"snapshot\": false, \"lost\": false, "
		"\"aux_size\": 4096, \"cpus\": [0, 1]}", -EBADMSG,
		"\"per_cpu\" is missing or not an object");
	/* Incomplete: the files are checked, the counts are not. */
	{
		struct tracebuf_capture *cap;

		meta_is("{\"format\": 1, \"complete\": false, \"snapshot\": false, "
			"\"lost\": false, \"aux_size\": 4096, \"cpus\": [0, 1]}", 0, NULL);
		CHECK_EQ(open_cap(0, 0, &cap), 0);
		CHECK_EQ(tracebuf_capture_complete(cap), 0);
		tracebuf_capture_close(cap);
	}
}

static void test_checks(void)
{
	static struct file f;
	struct tracebuf_rec_config *c;
	struct tracebuf_capture *cap = NULL;
	struct tracebuf_capture_opts o = { .sz = sizeof(o) };
	char path[8192];

	/* No directory, no meta.json. */
	snprintf(path, sizeof(path), "%s/nonexistent", dir);
	nproblems = 0;
	CHECK_EQ(tracebuf_capture_open(path, NULL, &cap), -ENOENT);
	fresh();
	refused(-ENOENT, "cannot read meta.json: No such file or directory (every capture has one)");

	/* cpu0.aux shorter and longer than its records say. */
	write_good();
	put("cpu0.aux", "x", 1);
	refused(-EBADMSG, "cpu0.aux has 1 bytes, the AUX records of cpu0.data describe 112");
	/* A truncated cpu0.data; a record size that does not fit. */
	write_good();
	put("cpu0.data", "abc", 3);
	refused(-EBADMSG, "cpu0.data: a truncated record header at byte offset 0 of 3");
	/* A file of a CPU not listed. */
	write_good();
	put("cpu2.data", "", 0);
	refused(-EBADMSG, "cpu2.data is not in meta.json's \"cpus\"");
	/* A NUL in meta.json. */
	write_good();
	put("meta.json", "{\"format\": 1}\0", 14);
	refused(-EBADMSG, "not valid JSON");
	/* A count that does not match; one that may be higher; "lost". */
	meta_edit("\"records\": 7", "\"records\": 8");
	refused(-EBADMSG, "meta.json: per_cpu \"0\": \"records\" is 8, the files say 7");
	meta_edit("\"records_lost\": 2", "\"records_lost\": 1");
	refused(-EBADMSG, "\"records_lost\" is 1, the files say at least 2");
	meta_edit("\"records_lost\": 2", "\"records_lost\": 9");
	CHECK_EQ(open_cap(0, 0, &cap), 0);	/* the kernel may know of more */
	tracebuf_capture_close(cap);
	meta_edit("\"aux_gap_bytes\": 32", "\"aux_gap_bytes\": 31");
	refused(-EBADMSG, "\"aux_gap_bytes\" is 31, the AUX records of cpu0.data skip 32 bytes");
	meta_edit("\"lost\": true", "\"lost\": false");
	refused(-EBADMSG, "\"lost\" is false, but the per_cpu counts say trace was lost");
	meta_edit("\"cpus\": [1, 0]", "\"cpus\": [1, 0, 1]");
	refused(-EBADMSG, "CPU 1 is listed twice in \"cpus\"");

	/* A CONFIG record whose text runs past it; a USER record too short. */
	write_good();
	memset(&f, 0, sizeof(f));
	c = rec(&f, TRACEBUF_REC_CONFIG, sizeof(*c) + 8, 0, 1);
	c->len = 9;
	put("cpu1.data", f.buf, f.len);
	refused(-EBADMSG, "cpu1.data: CONFIG record at byte offset 0: its text is longer than the record");
	write_good();
	f.len = 0;
	rec(&f, TRACEBUF_REC_USER, 24, 0, 1);
	put("cpu1.data", f.buf, f.len);
	refused(-EBADMSG, "cpu1.data: USER record at byte offset 0 is too short (24 bytes)");
	/* An AUX record larger than the AUX area. */
	write_good();
	f.len = 0;
	aux(&f, 1, 1, 0, 8192, 0);
	put("cpu1.data", f.buf, f.len);
	refused(-EBADMSG, "cpu1.data: AUX record at byte offset 0 claims 8192 bytes, more than the AUX area (4096)");

	/* Options. */
	write_good();
	CHECK_EQ(tracebuf_capture_open(dir, &o, NULL), -EINVAL);
	CHECK_EQ(tracebuf_capture_open(NULL, &o, &cap), -EINVAL);
	o.flags = 1U << 7;
	CHECK_EQ(tracebuf_capture_open(dir, &o, &cap), -EINVAL);
	o.flags = 0;
	o.sz = 1;
	CHECK_EQ(tracebuf_capture_open(dir, &o, &cap), -EINVAL);
	{
		struct {
			struct tracebuf_capture_opts o;
			uint32_t more;
		} big = { { .sz = sizeof(big) }, 7 };

		CHECK_EQ(tracebuf_capture_open(dir, &big.o, &cap), -E2BIG);
		big.more = 0;
		CHECK_EQ(tracebuf_capture_open(dir, &big.o, &cap), 0);
		tracebuf_capture_close(cap);
	}
	CHECK_EQ(tracebuf_capture_open(dir, NULL, &cap), 0);	/* no callback: fine */
	tracebuf_capture_close(cap);
	CHECK_EQ(tracebuf_capture_nr_streams(NULL), -EINVAL);
	CHECK_EQ(tracebuf_capture_complete(NULL), -EINVAL);
}

/* ---- the sideband ---------------------------------------------------------- */

/* perf's record types and sample_id bits, by their ABI numbers. */
enum { P_LOST = 2, P_COMM = 3, P_FORK = 7, P_MMAP2 = 10, P_SWITCH = 14 };
#define SB_TYPE		((1U << 1) | (1U << 2) | (1U << 7))	/* TID | TIME | CPU */

/* A perf record with its sample_id trailer (pid, tid; time; cpu, 0). */
static void sbrec(struct file *f, uint32_t type, uint16_t misc, const void *body, size_t blen,
		  uint32_t pid, uint32_t tid, uint64_t time, uint32_t cpu)
{
	size_t size = (8 + blen + 7) / 8 * 8 + 24;
	unsigned char *p = f->buf + f->len;
	uint16_t sz = (uint16_t)size;
	uint32_t ids[2] = { pid, tid }, c[2] = { cpu, 0 };

	memset(p, 0, size);
	memcpy(p, &type, 4);
	memcpy(p + 4, &misc, 2);
	memcpy(p + 6, &sz, 2);
	if (blen)
		memcpy(p + 8, body, blen);
	memcpy(p + size - 24, ids, 8);
	memcpy(p + size - 16, &time, 8);
	memcpy(p + size - 8, c, 8);
	f->len += size;
}

static const char sb_meta[] =
	"\"sideband\": {\"format\": \"perf\", \"source\": \"perf_event\", \"sample_type\": 134,\n"
	"  \"files\": [\"cpu0.sb\", \"cpu1.sb\", \"proc.sb\"],\n"
	"  \"per_file\": [{\"cpu\": 0, \"records\": 2, \"bytes\": 136, \"lost\": 0},\n"
	"    {\"cpu\": 1, \"records\": 1, \"bytes\": 48, \"lost\": 3},\n"
	"    {\"cpu\": null, \"records\": 2, \"bytes\": 104, \"lost\": 0}]},\n"
	" \"vdso\": {\"file\": \"vdso.so\", \"size\": 5},\n"
	" \"lost\": true";

/* The good capture, and a sideband: cpu0.sb, cpu1.sb (a LOST), proc.sb. */
static void write_good_sb(void)
{
	static struct file s0, s1, sp;
	struct {
		uint32_t pid, tid;
		uint64_t addr, len, pgoff;
		uint8_t bid_size, r1;
		uint16_t r2;
		uint8_t bid[20];
		uint32_t prot, flags;
		char name[8];
	} __attribute__((packed)) m;
	struct { uint32_t pid, tid; char comm[8]; } c = { 7, 7, "prog" };
	struct { uint32_t pid, ppid, tid, ptid; uint64_t time; } fk = { 8, 7, 8, 7, 600 };
	uint64_t lost[2] = { 1, 3 };
	char path[8192], meta[4096], out[8192];
	FILE *f;
	size_t n;
	char *p;

	write_good();
	memset(&s0, 0, sizeof(s0));
	memset(&s1, 0, sizeof(s1));
	memset(&sp, 0, sizeof(sp));
	memset(&m, 0, sizeof(m));
	m.pid = m.tid = 7;
	m.addr = 0x400000;
	m.len = 0x1000;
	m.bid_size = 20;
	m.bid[0] = 0xab;
	m.prot = 5;
	m.flags = 2;
	strcpy(m.name, "/bin/x");
	sbrec(&s0, P_MMAP2, 0x4002, &m, sizeof(m), 7, 7, 150, 0);	/* 8+72->80, +24 */
	sbrec(&s0, P_SWITCH, 0x2000, NULL, 0, 7, 7, 350, 0);		/* 8+24 */
	sbrec(&s1, P_LOST, 0, lost, sizeof(lost), 7, 7, 260, 1);	/* 8+16+24 */
	sbrec(&sp, P_COMM, 0x2000, &c, sizeof(c), 7, 7, 50, 1);		/* 8+16+24 */
	sbrec(&sp, P_FORK, 0, &fk, sizeof(fk), 8, 8, 600, 1);		/* 8+24+24 */
	put("cpu0.sb", s0.buf, s0.len);
	put("cpu1.sb", s1.buf, s1.len);
	put("proc.sb", sp.buf, sp.len);
	put("vdso.so", "\177ELF!", 5);
	snprintf(path, sizeof(path), "%s/meta.json", dir);
	f = fopen(path, "r");
	n = f ? fread(meta, 1, sizeof(meta) - 1, f) : 0;
	if (f)
		fclose(f);
	meta[n] = 0;
	p = strstr(meta, "\"lost\": true");
	CHECK(p != NULL);
	if (!p)
		return;
	snprintf(out, sizeof(out), "%.*s%s%s", (int)(p - meta), meta, sb_meta,
		 p + strlen("\"lost\": true"));
	put_str("meta.json", out);
}

/* The capture of write_good_sb() with meta.json's first 'from' replaced by 'to'. */
static void sb_edit(const char *from, const char *to)
{
	char path[8192], meta[8192], out[8192];
	FILE *f;
	size_t n;
	char *p;

	write_good_sb();
	snprintf(path, sizeof(path), "%s/meta.json", dir);
	f = fopen(path, "r");
	n = f ? fread(meta, 1, sizeof(meta) - 1, f) : 0;
	if (f)
		fclose(f);
	meta[n] = 0;
	p = strstr(meta, from);
	CHECK(p != NULL);
	if (!p)
		return;
	snprintf(out, sizeof(out), "%.*s%s%s", (int)(p - meta), meta, to, p + strlen(from));
	put_str("meta.json", out);
}

static void sb_refused(const char *msg)
{
	refused(-EBADMSG, msg);
}

static void test_sideband(void)
{
	static const uint64_t want[] = { 50, 100, 150, 200, 250, 260, 300, 310, 350, 400, 500,
					 600, 600 };
	struct tracebuf_capture_iter_opts io = { .sz = sizeof(io) };
	struct tracebuf_capture *cap = NULL;
	struct tracebuf_capture_iter *it;
	const struct tracebuf_capture_rec *cr;
	static struct file f;
	unsigned int n = 0, nsb = 0;
	uint64_t t;

	write_good_sb();
	CHECK_EQ(open_cap(0, 0, &cap), 0);
	CHECK_EQ(nproblems, 0);
	if (nproblems)
		fprintf(stderr, "  %s\n", problems[0]);
	if (!cap)
		return;
	/* Without the flag: the data records only, as before. */
	CHECK_EQ(tracebuf_capture_iter_new(cap, NULL, &it), 0);
	while (tracebuf_capture_next(it, &cr) > 0) {
		CHECK(cr->r != NULL && cr->sb == NULL);
		n++;
	}
	CHECK_EQ(n, 8);
	tracebuf_capture_iter_free(it);

	/* Merged by time with the sideband; a tie goes to the data record. */
	io.flags = TRACEBUF_ITER_SIDEBAND;
	CHECK_EQ(tracebuf_capture_iter_new(cap, &io, &it), 0);
	for (n = 0; tracebuf_capture_next(it, &cr) > 0; n++) {
		const struct tracebuf_sb_rec *sb = cr->sb;

		t = sb ? sb->time : cr->r->time;
		CHECK(n < 13 && t == want[n]);
		CHECK((sb == NULL) == (cr->r != NULL));
		if (!sb)
			continue;
		nsb++;
		CHECK(sb->fields == (TRACEBUF_SB_F_TID | TRACEBUF_SB_F_TIME | TRACEBUF_SB_F_CPU));
		CHECK(sb->pid == (t == 600 ? 8u : 7u));
		CHECK(sb->data == (const unsigned char *)sb->body - 8);
		if (t == 150) {
			CHECK(!strcmp(cr->file, "cpu0.sb") && cr->cpu == 0 && cr->stream == 0);
			CHECK(sb->type == P_MMAP2 && sb->misc == 0x4002 && sb->size == 104);
			CHECK(sb->body_size == 72 && sb->cpu == 0 && cr->offset == 0);
			CHECK(!strcmp((const char *)sb->body + 64, "/bin/x"));
			CHECK(!strcmp(tracebuf_sb_type_name(sb->type), "mmap2"));
		} else if (t == 260) {
			CHECK(!strcmp(cr->file, "cpu1.sb") && cr->cpu == 1 && cr->stream == 1);
			CHECK(sb->type == P_LOST && sb->body_size == 16);
		} else if (t == 350) {
			CHECK(sb->type == P_SWITCH && sb->body_size == 0 && cr->offset == 104);
		} else if (t == 50 || t == 600) {
			CHECK(!strcmp(cr->file, "proc.sb") && cr->stream == 2);
			CHECK_EQ(cr->cpu, TRACEBUF_CAPTURE_NO_CPU);
			CHECK(sb->type == (t == 50 ? P_COMM : P_FORK) && sb->cpu == 1);
		}
		if (t == 600)
			CHECK(n == 12);		/* after the AUX record of the same time */
	}
	CHECK_EQ(n, 13);
	CHECK_EQ(nsb, 5);
	tracebuf_capture_iter_free(it);

	/* The sideband alone; one CPU's records and sideband file. */
	io.flags = TRACEBUF_ITER_SIDEBAND_ONLY;
	CHECK_EQ(tracebuf_capture_iter_new(cap, &io, &it), 0);
	for (n = 0; tracebuf_capture_next(it, &cr) > 0; n++)
		CHECK(cr->sb != NULL && cr->r == NULL);
	CHECK_EQ(n, 5);
	tracebuf_capture_iter_free(it);
	io.flags = TRACEBUF_ITER_SIDEBAND | TRACEBUF_ITER_ONE_CPU;
	io.cpu = 1;
	CHECK_EQ(tracebuf_capture_iter_new(cap, &io, &it), 0);
	for (n = 0; tracebuf_capture_next(it, &cr) > 0; n++)
		CHECK(cr->cpu == 1 && (cr->r ? cr->r->time == 250 : cr->sb->time == 260));
	CHECK_EQ(n, 2);
	tracebuf_capture_iter_free(it);
	io.flags = TRACEBUF_ITER_SIDEBAND_ONLY | TRACEBUF_ITER_ONE_CPU;
	io.cpu = 5;
	CHECK_EQ(tracebuf_capture_iter_new(cap, &io, &it), -ENOENT);
	tracebuf_capture_close(cap);

	/* A capture without "sideband": the flag finds nothing more. */
	write_good();
	CHECK_EQ(open_cap(0, 0, &cap), 0);
	io.flags = TRACEBUF_ITER_SIDEBAND_ONLY;
	CHECK_EQ(tracebuf_capture_iter_new(cap, &io, &it), 0);
	CHECK_EQ(tracebuf_capture_next(it, &cr), 0);
	tracebuf_capture_iter_free(it);
	tracebuf_capture_close(cap);

	/* The checks. */
	sb_edit("\"records\": 2, \"bytes\": 136", "\"records\": 3, \"bytes\": 136");
	sb_refused("\"per_file\" of cpu0.sb: \"records\" is 3, the file holds 2");
	sb_edit("\"bytes\": 48", "\"bytes\": 40");
	sb_refused("\"per_file\" of cpu1.sb: \"bytes\" is 40, the file holds 48");
	sb_edit("\"lost\": 3}", "\"lost\": 0}");
	sb_refused("\"per_file\" of cpu1.sb: \"lost\" is 0, the file holds 3");
	sb_edit("\"per_file\": [{\"cpu\": 0, \"records\": 2, \"bytes\": 136, \"lost\": 0},",
		"\"per_file\": [");
	sb_refused("\"per_file\" has no object for proc.sb (entry 2)");
	sb_edit("\"cpu1.sb\", \"proc.sb\"", "\"cpu1.sb\", \"../proc.sb\"");
	sb_refused("\"files\" entry 2 is not the name of a file of the capture");
	sb_edit("\"cpu1.sb\", \"proc.sb\"", "\"cpu1.sb\", \"cpu1.sb\"");
	sb_refused("\"sideband\": cpu1.sb is listed twice");
	sb_edit("\"sample_type\": 134", "\"sample_type\": \"x\"");
	sb_refused("\"sample_type\" is missing or not a number");
	/* sample_type with IDENTIFIER too: a SWITCH (a trailer only) is short of it. */
	sb_edit("\"sample_type\": 134", "\"sample_type\": 65670");
	sb_refused("cpu0.sb: record at byte offset 104 (type 14, 32 bytes) is too short");
	/* Files: missing, cut, unlisted; the vDSO's copy. */
	write_good_sb();
	rm("proc.sb");
	sb_refused("proc.sb: No such file or directory");
	write_good_sb();
	memset(&f, 0, sizeof(f));
	sbrec(&f, P_COMM, 0, "abcdefgh", 8, 1, 1, 1, 0);
	put("proc.sb", f.buf, f.len - 8);
	sb_refused("proc.sb: a record size (40) that does not fit at byte offset 0 of 32");
	write_good_sb();
	put("x.sb", "", 0);
	sb_refused("x.sb is not in meta.json's \"sideband\" \"files\"");
	write_good_sb();
	put("vdso.so", "\177EL", 3);
	sb_refused("vdso.so has 3 bytes, meta.json says 5");
	write_good_sb();
	rm("vdso.so");
	sb_refused("vdso.so: No such file or directory");
	/* The per-task target's records: too short for their structs. */
	write_good_sb();
	memset(&f, 0, sizeof(f));
	rec(&f, TRACEBUF_REC_SWITCH, 40, 1, 1);
	put("cpu1.data", f.buf, f.len);
	sb_refused("cpu1.data: SWITCH record at byte offset 0 is too short (40 bytes)");
	write_good_sb();
	memset(&f, 0, sizeof(f));
	rec(&f, TRACEBUF_REC_TASK, 32, 1, 1);
	put("cpu1.data", f.buf, f.len);
	sb_refused("cpu1.data: TASK record at byte offset 0 is too short (32 bytes)");
	/* per_file is optional (a reader that counts nothing still reads). */
	sb_edit("\"per_file\"", "\"per_file_not\"");
	CHECK_EQ(open_cap(0, 0, &cap), 0);
	tracebuf_capture_close(cap);
	/* An interrupted recording: the counts are not compared. */
	sb_edit("\"records\": 2, \"bytes\": 136", "\"records\": 9, \"bytes\": 136");
	meta_edit_in_place("\"complete\": true", "\"complete\": false");
	CHECK_EQ(open_cap(0, 0, &cap), 0);
	tracebuf_capture_close(cap);
}

int main(int argc, char **argv)
{
	if (argc != 2) {
		fprintf(stderr, "usage: lib_capture TMPDIR\n");
		return 2;
	}
	snprintf(dir, sizeof(dir), "%s/cap", argv[1]);
	mkdir(dir, 0777);
	test_good();
	test_json();
	test_checks();
	test_sideband();
	return check_done();
}
