// SPDX-License-Identifier: GPL-2.0
/*
 * Synthetic capture directories (docs/capture-format.md).
 *
 *   capgen DIR              for tool_dump.sh: an Intel PT capture, cpu0.data
 *                           with one record of each type (CONFIG, AUX,
 *                           ITRACE_START, USER, LOST, a second AUX with
 *                           flags, an unknown type), cpu1.data with one AUX
 *                           record, the matching cpuN.aux files, meta.json
 *   capgen --coresight DIR  for tool_export.sh: a CoreSight capture, see
 *                           coresight() below
 *   capgen --task DIR       for tool_dump.sh: a per-task capture with SWITCH
 *                           and TASK records and a sideband (cpu0.sb,
 *                           proc.sb, vdso.so), see task() below
 */
#include <errno.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>

#include <tracebuf.h>

/* perf_event record types and misc bits (ABI numbers, <linux/perf_event.h>). */
enum { PERF_LOST = 2, PERF_COMM = 3, PERF_EXIT = 4, PERF_FORK = 7, PERF_MMAP2 = 10,
       PERF_SWITCH = 14 };
#define PERF_MISC_USER			2
#define PERF_MISC_COMM_EXEC		(1U << 13)
#define PERF_MISC_SWITCH_OUT		(1U << 13)
#define PERF_MISC_SWITCH_PREEMPT	(1U << 14)
#define PERF_MISC_BUILD_ID		(1U << 14)

static unsigned char buf[4096];
static size_t len;
static uint64_t pos;

static void *rec(uint16_t type, size_t size, uint32_t cpu, uint64_t time)
{
	struct tracebuf_record *r = (void *)(buf + len);

	size = (size + 7) & ~(size_t)7;
	memset(r, 0, size);
	r->hdr.size = (uint32_t)size;
	r->hdr.type = type;
	r->commit = tracebuf_commit_tag(pos);
	r->cpu = cpu;
	r->time = time;
	len += size;
	pos += size;
	return r;
}

static void put(const char *dir, const char *name, const void *p, size_t n)
{
	char path[512];
	FILE *f;

	snprintf(path, sizeof(path), "%s/%s", dir, name);
	f = fopen(path, "w");
	if (!f || fwrite(p, 1, n, f) != n || fclose(f)) {
		perror(path);
		exit(1);
	}
}

/* ---- CoreSight ---------------------------------------------------------- */

static unsigned char *cs_aux;	/* cpuN.aux being built */
static size_t cs_aux_len;

/* An ETMv4.2 with the registers OpenCSD reads (Cortex-A53-like). */
static void etm(uint32_t cpu, uint32_t id, uint32_t configr, uint64_t time)
{
	struct tracebuf_rec_etm *e = rec(TRACEBUF_REC_ETM, sizeof(*e), cpu, time);

	e->etm_cpu = cpu;
	e->trace_id = id;
	e->trcconfigr = configr;
	e->trctraceidr = id;
	e->trcidr[0] = 0x28000ea1;
	e->trcidr[1] = 0x4100f421;
	e->trcidr[2] = 0x00000488;
	e->trcidr[3] = 0x0d7b0004;
	e->trcidr[4] = 0x11170004;
	e->trcidr[5] = 0x28c7081e;
	e->trcauthstatus = 0xcc;
}

/*
 * A span of size bytes of TMC frames: for each trace ID a frame with an
 * ID change, an ETMv4 A-sync (11 zero bytes and 0x80) and a TraceInfo
 * packet (0x01 0x00), then padding frames (every even byte an ID change
 * to 0, the odd bytes ID 0's data).
 */
static void span(uint32_t cpu, uint64_t aux_offset, size_t size, uint64_t flags,
		 const uint32_t *ids, unsigned int nids, uint64_t time)
{
	struct tracebuf_rec_aux *a = rec(TRACEBUF_REC_AUX, sizeof(*a), cpu, time);
	unsigned char *f;
	size_t i;

	a->aux_offset = aux_offset;
	a->aux_size = size;
	a->flags = flags;
	cs_aux = realloc(cs_aux, cs_aux_len + size + 1);
	if (!cs_aux) {
		perror("capgen");
		exit(1);
	}
	f = cs_aux + cs_aux_len;
	memset(f, 0, size);
	for (i = 0; i + 16 <= size; i += 16) {
		if (i / 16 < nids) {
			f[i] = (unsigned char)(ids[i / 16] << 1 | 1);
			f[i + 12] = 0x80;
			f[i + 13] = 0x01;
		} else {
			size_t k;

			for (k = 0; k < 15; k += 2)
				f[i + k] = 0x01;
		}
	}
	cs_aux_len += size;
}

static void lost(uint32_t cpu, uint64_t count, uint32_t reason, uint32_t flags,
		 uint64_t time)
{
	struct tracebuf_rec_lost *l = rec(TRACEBUF_REC_LOST, sizeof(*l), cpu, time);

	l->count = count;
	l->reason = reason;
	l->flags = flags;
}

/*
 * cpu0.data: one session tracing CPUs 0 and 1 into a shared sink; cpu2.data:
 * one tracing CPU 2. The segments tracebuf export must find:
 *
 *   0 start      ETMs 0x10 and 0x11, spans A and B (a USER record and a
 *                LOST ring_full between them change nothing)
 *   1 truncated  LOST aux_overrun 8192 at-least, span C TRUNCATED, span D
 *   2 config     ETM of CPU 1 with another TRCCONFIGR, span E
 *   3 restart    ETM of CPU 0 unchanged, span F
 *   4 gap        span G 2048 bytes after where F ended in the ring
 *   5 truncated  span H: TRUNCATED, 0 bytes
 *   6 config     ETM of CPU 0 with trace ID 0x12, span I
 *   7 start      cpu2.data: ETM 0x20, span J
 */
static int coresight(const char *dir)
{
	static const char cfg[] = "cycacc=0,timestamp=0";
	static const char meta[] =
		"{\n\"format\": 1,\n\"tool_version\": \"0.1.0\",\n\"module_version\": \"0.1.0\",\n"
		"\"abi_version\": 1,\n\"backend\": \"coresight\",\n\"emulated\": true,\n"
		"\"page_size\": 4096,\n\"data_size\": 262144,\n\"aux_size\": 65536,\n"
		"\"snapshot\": false,\n\"clock\": \"CLOCK_MONOTONIC\",\n"
		"\"start_ns\": 1000000000,\n\"end_ns\": 1500000000,\n"
		"\"start_realtime\": 1700000000.5,\n\"command\": null,\n"
		"\"cpus\": [0, 2],\n\"per_cpu\": {\n"
		"  \"0\": {\"config\": \"cycacc=0,timestamp=0\", \"generation\": 1, \"caps\": null,\n"
		"    \"aux_bytes\": 15104, \"aux_spans\": 9, \"aux_truncations\": 2,\n"
		"    \"aux_collisions\": 0, \"aux_padding\": 0, \"aux_gap_bytes\": 2048,\n"
		"    \"records\": 18, \"records_lost\": 2, \"data_bytes\": 1144,\n"
		"    \"aux_lost_bytes\": 8192, \"aux_lost_at_least\": true, \"error\": null},\n"
		"  \"2\": {\"config\": \"cycacc=0,timestamp=0\", \"generation\": 0, \"caps\": null,\n"
		"    \"aux_bytes\": 1024, \"aux_spans\": 1, \"aux_truncations\": 0,\n"
		"    \"aux_collisions\": 0, \"aux_padding\": 0, \"aux_gap_bytes\": 0,\n"
		"    \"records\": 2, \"records_lost\": 0, \"data_bytes\": 152,\n"
		"    \"aux_lost_bytes\": 0, \"aux_lost_at_least\": false, \"error\": null}\n"
		"},\n\"lost\": true,\n\"complete\": true\n}\n";
	static const uint32_t ids01[] = { 0x10, 0x11 }, ids21[] = { 0x11, 0x12 };
	static const uint32_t ids2[] = { 0x20 };
	struct tracebuf_rec_config *c;
	struct tracebuf_rec_user *u;
	uint64_t t = 1000000000;

	c = rec(TRACEBUF_REC_CONFIG, sizeof(*c) + sizeof(cfg), 0, t += 100);
	c->generation = 1;
	c->changed = 0x3;
	c->len = sizeof(cfg);
	memcpy(c + 1, cfg, sizeof(cfg));
	etm(0, 0x10, 0x1, t += 100);
	etm(1, 0x11, 0x1, t += 100);
	span(0, 0, 4096, 0, ids01, 2, t += 100);			/* A */
	u = rec(TRACEBUF_REC_USER, sizeof(*u) + 8, 0, t += 100);
	u->cookie = 7;
	u->len = 8;
	memcpy(u + 1, "marker!!", 8);
	lost(0, 2, TRACEBUF_LOST_RING_FULL, 0, t += 100);
	span(0, 4096, 4096, 0, ids01, 2, t += 100);			/* B */
	lost(0, 8192, TRACEBUF_LOST_AUX_OVERRUN, TRACEBUF_LOST_F_AT_LEAST, t += 100);
	span(0, 8192, 2048, TRACEBUF_AUX_F_TRUNCATED, ids01, 2, t += 100);	/* C */
	span(0, 10240, 2048, 0, ids01, 2, t += 100);			/* D */
	etm(1, 0x11, 0x11, t += 100);
	span(0, 12288, 1024, 0, ids01, 2, t += 100);			/* E */
	etm(0, 0x10, 0x1, t += 100);
	span(0, 13312, 1024, 0, ids01, 2, t += 100);			/* F */
	span(0, 16384, 512, 0, ids01, 2, t += 100);			/* G */
	span(0, 16896, 0, TRACEBUF_AUX_F_TRUNCATED, ids01, 2, t += 100);	/* H */
	etm(0, 0x12, 0x1, t += 100);
	span(0, 16896, 256, 0, ids21, 2, t += 100);			/* I */
	put(dir, "cpu0.data", buf, len);
	put(dir, "cpu0.aux", cs_aux, cs_aux_len);

	len = 0;
	pos = 0;
	cs_aux_len = 0;
	etm(2, 0x20, 0x1, t += 100);
	span(2, 1 << 20, 1024, 0, ids2, 1, t += 100);			/* J */
	put(dir, "cpu2.data", buf, len);
	put(dir, "cpu2.aux", cs_aux, cs_aux_len);
	put(dir, "meta.json", meta, sizeof(meta) - 1);
	free(cs_aux);
	return 0;
}

/* ---- the per-task target and its sideband -------------------------------- */

static unsigned char sbuf[2048];
static size_t slen;

/* A perf record with its sample_id trailer (TID, TIME, CPU). */
static void sbrec(uint32_t type, uint16_t misc, const void *body, size_t blen, uint32_t pid,
		  uint32_t tid, uint64_t time, uint32_t cpu)
{
	size_t size = (8 + blen + 7) / 8 * 8 + 24;
	unsigned char *p = sbuf + slen;
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
	slen += size;
}

struct mmap2 {
	uint32_t pid, tid;
	uint64_t addr, len, pgoff;
	union {
		struct { uint32_t maj, min; uint64_t ino, gen; } f;
		struct { uint8_t size, r1; uint16_t r2; uint8_t id[20]; } b;
	} u;
	uint32_t prot, flags;
	char name[16];
} __attribute__((packed));

static void sw(uint32_t cpu, uint64_t time, uint32_t pid, uint32_t tid, uint64_t off,
	       uint32_t flags)
{
	struct tracebuf_rec_switch *w = rec(TRACEBUF_REC_SWITCH, sizeof(*w), cpu, time);

	w->pid = pid;
	w->tid = tid;
	w->aux_offset = off;
	w->flags = flags;
}

/*
 * Process 100 on CPU 0: proc.sb says what it was before (a mapping without
 * a build-id, its comm), its run after its exec (SWITCH IN EXEC, a span,
 * SWITCH OUT PREEMPT), cpu0.sb what perf saw (COMM exec, MMAP2 with a
 * build-id, a switch out, a LOST), then a fork (TASK FORK and the perf
 * FORK), the child's exit (TASK EXIT, perf EXIT).
 */
static int task(const char *dir)
{
	static const char meta[] =
		"{\n\"format\": 1,\n\"tool_version\": \"0.1.0\",\n\"module_version\": \"0.1.0\",\n"
		"\"abi_version\": 1,\n\"backend\": \"intel_pt\",\n\"emulated\": true,\n"
		"\"page_size\": 4096,\n\"data_size\": 262144,\n\"aux_size\": 1048576,\n"
		"\"snapshot\": false,\n\"clock\": \"CLOCK_MONOTONIC\",\n"
		"\"start_ns\": 1000000000,\n\"end_ns\": 1500000000,\n"
		"\"start_realtime\": 1700000000.000000001,\n\"command\": [\"prog\"],\n"
		"\"target\": \"task\",\n\"pid\": 100,\n\"inherit\": true,\n"
		"\"sideband\": {\"format\": \"perf\", \"source\": \"perf_event\", \"partial\": false,\n"
		"  \"partial_reason\": null, \"clock\": \"CLOCK_MONOTONIC\", \"sample_type\": 134,\n"
		"  \"files\": [\"cpu0.sb\", \"proc.sb\"],\n"
		"  \"per_file\": [{\"cpu\": 0, \"records\": 6, \"bytes\": SB0, \"lost\": 2},\n"
		"    {\"cpu\": null, \"records\": 2, \"bytes\": SB1, \"lost\": 0}],\n"
		"  \"time_conv\": {\"counter\": \"tsc\", \"time_zero\": 7, \"time_mult\": 1,"
		" \"time_shift\": 1, \"time_offset\": 0}},\n"
		"\"vdso\": {\"file\": \"vdso.so\", \"size\": 8, \"source\": \"process\","
		" \"build_id\": \"0102\"},\n"
		"\"cpus\": [0],\n\"per_cpu\": {\n"
		"  \"0\": {\"config\": \"branch=1\", \"generation\": 0, \"caps\": null,\n"
		"    \"aux_bytes\": 64, \"aux_spans\": 1, \"aux_truncations\": 0,\n"
		"    \"aux_collisions\": 0, \"aux_padding\": 0, \"records\": 5, \"records_lost\": 0}\n"
		"},\n\"lost\": true,\n\"complete\": true\n}\n";
	struct tracebuf_rec_aux *a;
	struct tracebuf_rec_task *t;
	struct mmap2 m;
	struct { uint32_t pid, tid; char comm[8]; } c;
	struct { uint32_t pid, ppid, tid, ptid; uint64_t time; } fk = { 101, 100, 101, 100, 900 };
	uint64_t lost[2] = { 5, 2 };
	char text[sizeof(meta) + 32], *p, *q;
	unsigned char aux[64];
	size_t s0;

	if (mkdir(dir, 0777) && errno != EEXIST) {
		perror(dir);
		return 1;
	}
	/* cpu0.data */
	sw(0, 1000000200, 100, 100, 0, TRACEBUF_SWITCH_F_EXEC);
	a = rec(TRACEBUF_REC_AUX, sizeof(*a), 0, 1000000400);
	a->aux_offset = 0;
	a->aux_size = 64;
	sw(0, 1000000500, 100, 100, 64, TRACEBUF_SWITCH_F_OUT | TRACEBUF_SWITCH_F_PREEMPT);
	t = rec(TRACEBUF_REC_TASK, sizeof(*t), 0, 1000000800);
	t->pid = 101;
	t->ppid = 100;
	t->reason = TRACEBUF_TASK_FORK;
	t = rec(TRACEBUF_REC_TASK, sizeof(*t), 0, 1000001000);
	t->pid = 101;
	t->reason = TRACEBUF_TASK_EXIT;
	put(dir, "cpu0.data", buf, len);
	memset(aux, 0x55, sizeof(aux));
	put(dir, "cpu0.aux", aux, sizeof(aux));

	/* cpu0.sb: what perf saw. */
	c.pid = c.tid = 100;
	memset(c.comm, 0, sizeof(c.comm));
	strcpy(c.comm, "prog");
	sbrec(PERF_COMM, PERF_MISC_COMM_EXEC, &c, sizeof(c), 100, 100, 1000000210, 0);
	memset(&m, 0, sizeof(m));
	m.pid = m.tid = 100;
	m.addr = 0x400000;
	m.len = 0x2000;
	m.pgoff = 0x1000;
	m.u.b.size = 3;
	m.u.b.id[0] = 0xab;
	m.u.b.id[1] = 0xcd;
	m.u.b.id[2] = 0xef;
	m.prot = 5;
	m.flags = 2;
	strcpy(m.name, "/usr/bin/prog");
	sbrec(PERF_MMAP2, PERF_MISC_USER | PERF_MISC_BUILD_ID, &m, sizeof(m), 100, 100,
	      1000000220, 0);
	sbrec(PERF_SWITCH, PERF_MISC_SWITCH_OUT | PERF_MISC_SWITCH_PREEMPT, NULL, 0, 100, 100,
	      1000000510, 0);
	sbrec(PERF_LOST, 0, lost, sizeof(lost), 100, 100, 1000000600, 0);
	sbrec(PERF_FORK, 0, &fk, sizeof(fk), 101, 101, 1000000810, 0);
	fk.time = 1000001010;
	sbrec(PERF_EXIT, 0, &fk, sizeof(fk), 101, 101, 1000001010, 0);
	put(dir, "cpu0.sb", sbuf, slen);
	s0 = slen;

	/* proc.sb: the process before the recording (no build-id: dev and inode). */
	slen = 0;
	memset(&m, 0, sizeof(m));
	m.pid = m.tid = 100;
	m.addr = 0x500000;
	m.len = 0x1000;
	m.u.f.maj = 8;
	m.u.f.min = 1;
	m.u.f.ino = 1234;
	m.prot = 5;
	m.flags = 2;
	strcpy(m.name, "/bin/sh");
	sbrec(PERF_MMAP2, PERF_MISC_USER, &m, sizeof(m), 100, 100, 1000000100, 1);
	strcpy(c.comm, "sh");
	sbrec(PERF_COMM, 0, &c, sizeof(c), 100, 100, 1000000100, 1);
	put(dir, "proc.sb", sbuf, slen);
	put(dir, "vdso.so", "\177ELFvdso", 8);

	p = strstr(meta, "SB0");
	q = strstr(meta, "SB1");
	snprintf(text, sizeof(text), "%.*s%zu%.*s%zu%s", (int)(p - meta), meta, s0,
		 (int)(q - p - 3), p + 3, slen, q + 3);
	put(dir, "meta.json", text, strlen(text));
	return 0;
}

int main(int argc, char **argv)
{
	static const char cfg[] = "branch=1,user=1,tsc=1";
	static const char meta[] =
		"{\n\"format\": 1,\n\"tool_version\": \"0.1.0\",\n\"module_version\": \"0.1.0\",\n"
		"\"abi_version\": 1,\n\"backend\": \"intel_pt\",\n\"emulated\": true,\n"
		"\"page_size\": 4096,\n\"data_size\": 262144,\n\"aux_size\": 1048576,\n"
		"\"snapshot\": false,\n\"clock\": \"CLOCK_MONOTONIC\",\n"
		"\"start_ns\": 1000000000,\n\"end_ns\": 1500000000,\n"
		"\"start_realtime\": 1700000000.000000001,\n\"command\": [\"sleep\", \"0.5\"],\n"
		"\"cpus\": [0, 1],\n\"per_cpu\": {\n"
		"  \"0\": {\"config\": \"branch=1,user=1,tsc=1\", \"generation\": 1, \"caps\": null,\n"
		"    \"aux_bytes\": 96, \"aux_spans\": 2, \"aux_truncations\": 1,\n"
		"    \"aux_collisions\": 0, \"aux_padding\": 0, \"records\": 7, \"records_lost\": 3},\n"
		"  \"1\": {\"config\": \"branch=1,user=1,tsc=1\", \"generation\": 1, \"caps\": null,\n"
		"    \"aux_bytes\": 16, \"aux_spans\": 1, \"aux_truncations\": 0,\n"
		"    \"aux_collisions\": 0, \"aux_padding\": 0, \"records\": 1, \"records_lost\": 0}\n"
		"},\n\"lost\": true,\n\"complete\": true\n}\n";
	static const unsigned char user_data[] = "hi \"there\"\n\x01\xff";
	unsigned char aux[128];
	struct tracebuf_rec_config *c;
	struct tracebuf_rec_aux *a;
	struct tracebuf_rec_itrace_start *s;
	struct tracebuf_rec_user *u;
	struct tracebuf_rec_lost *l;
	const char *dir;

	if (argc == 3 && !strcmp(argv[1], "--task"))
		return task(argv[2]);
	if (argc == 3 && !strcmp(argv[1], "--coresight")) {
		dir = argv[2];
	} else if (argc == 2) {
		dir = argv[1];
	} else {
		fprintf(stderr, "usage: capgen [--coresight | --task] DIR\n");
		return 2;
	}
	if (mkdir(dir, 0777) && errno != EEXIST) {
		perror(dir);
		return 1;
	}
	if (argc == 3)
		return coresight(dir);

	c = rec(TRACEBUF_REC_CONFIG, sizeof(*c) + sizeof(cfg), 0, 1000000100);
	c->generation = 1;
	c->changed = 0x5;
	c->len = sizeof(cfg);
	memcpy(c + 1, cfg, sizeof(cfg));
	s = rec(TRACEBUF_REC_ITRACE_START, sizeof(*s), 0, 1000000200);
	s->pid = 42;
	s->tid = 43;
	a = rec(TRACEBUF_REC_AUX, sizeof(*a), 0, 1000000300);
	a->aux_offset = 0;
	a->aux_size = 64;
	a->flags = 0;
	u = rec(TRACEBUF_REC_USER, sizeof(*u) + sizeof(user_data) - 1, 0, 1000000400);
	u->cookie = 0xc0ffee;
	u->len = sizeof(user_data) - 1;
	memcpy(u + 1, user_data, sizeof(user_data) - 1);
	l = rec(TRACEBUF_REC_LOST, sizeof(*l), 0, 1000000500);
	l->count = 3;
	l->reason = TRACEBUF_LOST_RING_FULL;
	a = rec(TRACEBUF_REC_AUX, sizeof(*a), 0, 1000000600);
	a->aux_offset = 64;
	a->aux_size = 32;
	a->flags = TRACEBUF_AUX_F_TRUNCATED | TRACEBUF_AUX_F_PARTIAL;
	rec(TRACEBUF_REC_TEST, sizeof(struct tracebuf_rec_test), 0, 1000000700);
	put(dir, "cpu0.data", buf, len);
	memset(aux, 0xaa, sizeof(aux));
	put(dir, "cpu0.aux", aux, 96);

	len = 0;
	pos = 0;
	a = rec(TRACEBUF_REC_AUX, sizeof(*a), 1, 1000000250);
	a->aux_offset = 4096;
	a->aux_size = 16;
	a->flags = TRACEBUF_AUX_F_OVERWRITE;
	put(dir, "cpu1.data", buf, len);
	put(dir, "cpu1.aux", aux, 16);

	put(dir, "meta.json", meta, sizeof(meta) - 1);
	return 0;
}
