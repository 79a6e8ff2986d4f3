// SPDX-License-Identifier: GPL-2.0
/*
 * A synthetic capture directory (userspace/tools/capture.h) for
 * tool_dump.sh: cpu0.data with one record of each type (CONFIG, AUX,
 * ITRACE_START, USER, LOST, a second AUX with flags, an unknown type),
 * cpu1.data with one AUX record, the matching cpuN.aux files and a
 * meta.json.
 *
 *   capgen DIR
 */
#include <errno.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>

#include <tracebuf.h>

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

	if (argc != 2) {
		fprintf(stderr, "usage: capgen DIR\n");
		return 2;
	}
	dir = argv[1];
	if (mkdir(dir, 0777) && errno != EEXIST) {
		perror(dir);
		return 1;
	}

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
