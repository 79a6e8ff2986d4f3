// SPDX-License-Identifier: GPL-2.0
/*
 * capture_gen - write a synthetic 'tracebuf record' capture directory
 * (userspace/tools/capture.h: meta.json, cpu0.data, cpu0.aux) from the PT
 * emulator's packet generator (tests/modules/ptemu_gen.h), for the tests
 * of 'tracebuf decode':
 *
 *   capture_gen [--steps N] [--span BYTES] [--no-trunc-flag] DIR
 *
 * The trace, on CPU 0:
 *   CONFIG record generation 1 (branch, tsc, ptw, pwr_evt)
 *   segment 0: PSB+ ... N steps; the output stops in the middle of the
 *              next step's PTW packet: that span is TRUNCATED (unless
 *              --no-trunc-flag) and ends with a cut PTW; 3 steps are lost
 *   segment 1: restart, PSB+ ... N steps, TIP.PGD
 *   CONFIG record generation 2 (adds mtc, cyc, fup_on_ptw)
 *   segment 2: PSB+ ... N steps, TIP.PGD
 * AUX spans are published every BYTES (default 1000) bytes, wherever that
 * falls in a packet, and at every stop. A LOST record (2 records) too.
 *
 * Prints what a decoder must find, one "key value" per line: bytes, spans,
 * segments, ptws (complete PTW packets written), cut, psbs_min, configs.
 */
#include <errno.h>
#include <inttypes.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>

#include <tracebuf.h>

#include "ptemu_gen.h"

#define RING_SIZE	(64u * 1024)

static FILE *aux_f, *data_f;
static uint64_t aux_len;	/* bytes written to cpu0.aux */
static uint64_t pub;		/* bytes of cpu0.aux covered by AUX records */
static uint64_t ring_pos;	/* ring position of the next byte */
static uint64_t data_pos, tm = 1000000;
static unsigned int nspans, span_bytes = 1000;
static uint64_t nptw;
static unsigned int nrecs;	/* records in cpu0.data */

static void die(const char *what)
{
	perror(what);
	exit(2);
}

static void put_record(void *rec, uint32_t size, uint16_t type)
{
	struct tracebuf_record *r = rec;
	static const char zero[8];

	r->hdr.size = (size + 7) & ~7u;
	r->hdr.type = type;
	r->hdr.flags = 0;
	r->commit = tracebuf_commit_tag(data_pos);
	r->cpu = 0;
	r->time = tm += 1000;
	if (fwrite(rec, 1, size, data_f) != size ||
	    fwrite(zero, 1, r->hdr.size - size, data_f) != r->hdr.size - size)
		die("cpu0.data");
	data_pos += r->hdr.size;
	nrecs++;
}

/* An AUX record for the bytes not yet published. */
static void publish(uint64_t flags)
{
	struct tracebuf_rec_aux a;

	if (aux_len == pub && !flags)
		return;
	memset(&a, 0, sizeof(a));
	a.aux_offset = ring_pos - (aux_len - pub);
	a.aux_size = aux_len - pub;
	a.flags = flags;
	put_record(&a, sizeof(a), TRACEBUF_REC_AUX);
	pub = aux_len;
	nspans++;
}

static void emit(const uint8_t *b, size_t n)
{
	while (n) {
		size_t room = span_bytes - (aux_len - pub), k = n < room ? n : room;

		if (fwrite(b, 1, k, aux_f) != k)
			die("cpu0.aux");
		aux_len += k;
		ring_pos += k;
		b += k;
		n -= k;
		if (aux_len - pub == span_bytes)
			publish(0);
	}
}

static void config_record(uint64_t gen, const char *text)
{
	size_t len = strlen(text) + 1;
	size_t size = sizeof(struct tracebuf_rec_config) + len;
	struct tracebuf_rec_config *c = calloc(1, size + 8);

	if (!c)
		die("calloc");
	c->generation = gen;
	c->changed = gen == 1 ? 0 : 0x3f;
	c->len = (uint32_t)len;
	memcpy(c + 1, text, len);
	put_record(c, (uint32_t)size, TRACEBUF_REC_CONFIG);
	free(c);
}

static void run(struct ptgen *g, unsigned int steps)
{
	uint8_t buf[2 * PTGEN_MAX_GROUP];
	unsigned int i, n, nr;

	for (i = 0; i < steps; i++) {
		n = ptgen_step(g, buf, &nr);
		emit(buf, n);
		nptw += nr;
	}
}

int main(int argc, char **argv)
{
	static const struct ptgen_cfg cfg1 = {
		.branch = true, .tsc = true, .ptw = true, .pwr_evt = true, .user = true,
		.psb_freq = 0,
	};
	static const struct ptgen_cfg cfg2 = {
		.branch = true, .tsc = true, .ptw = true, .fup_on_ptw = true, .mtc = true,
		.mtc_freq = 3, .cyc = true, .cyc_thresh = 1, .user = true, .psb_freq = 1,
	};
	static const char cfg1_text[] = "branch=1,user=1,kernel=0,tsc=1,mtc=0,mtc_period=3,"
		"cyc=0,cyc_thresh=0,psb_period=0,noretcomp=0,ptw=1,fup_on_ptw=0,pwr_evt=1,"
		"cr3=off,addr0=off,drain_ms=10";
	static const char cfg2_text[] = "branch=1,user=1,kernel=0,tsc=1,mtc=1,mtc_period=3,"
		"cyc=1,cyc_thresh=1,psb_period=1,noretcomp=0,ptw=1,fup_on_ptw=1,pwr_evt=0,"
		"cr3=off,addr0=off,drain_ms=10";
	unsigned int steps = 400, i, n, nr, cut;
	int trunc_flag = 1;
	const char *dir = NULL;
	struct tracebuf_rec_lost lost;
	struct ptgen g;
	uint8_t buf[2 * PTGEN_MAX_GROUP];
	char path[4096];
	uint64_t seq, tsc;
	FILE *m;

	for (i = 1; i < (unsigned int)argc; i++) {
		if (!strcmp(argv[i], "--steps") && i + 1 < (unsigned int)argc)
			steps = (unsigned int)strtoul(argv[++i], NULL, 0);
		else if (!strcmp(argv[i], "--span") && i + 1 < (unsigned int)argc)
			span_bytes = (unsigned int)strtoul(argv[++i], NULL, 0);
		else if (!strcmp(argv[i], "--no-trunc-flag"))
			trunc_flag = 0;
		else if (argv[i][0] != '-' && !dir)
			dir = argv[i];
		else {
			fprintf(stderr, "usage: capture_gen [--steps N] [--span BYTES] "
				"[--no-trunc-flag] DIR\n");
			return 2;
		}
	}
	if (!dir || !span_bytes || !steps)
		return 2;
	if (mkdir(dir, 0755) < 0 && errno != EEXIST)
		die(dir);
	snprintf(path, sizeof(path), "%s/cpu0.aux", dir);
	aux_f = fopen(path, "wb");
	if (!aux_f)
		die(path);
	snprintf(path, sizeof(path), "%s/cpu0.data", dir);
	data_f = fopen(path, "wb");
	if (!data_f)
		die(path);

	/* Segment 0, cut in the middle of a PTW. */
	config_record(1, cfg1_text);
	ptgen_init(&g, &cfg1, 100, 0x100000);
	n = ptgen_start(&g, buf);
	emit(buf, n);
	run(&g, steps);
	do {
		n = ptgen_step(&g, buf, &nr);
	} while (!nr);
	cut = g.last_ptw_end - 4;	/* inside the PTW's payload */
	emit(buf, cut);
	publish(trunc_flag ? TRACEBUF_AUX_F_TRUNCATED : 0);

	/* The ring was full for a while: 3 more steps lost. */
	for (i = 0; i < 3; i++)
		ptgen_step(&g, buf, &nr);
	/* The kernel's head stays where the hardware stopped: no ring gap. */
	memset(&lost, 0, sizeof(lost));
	lost.count = 2;
	lost.reason = TRACEBUF_LOST_RING_FULL;
	put_record(&lost, sizeof(lost), TRACEBUF_REC_LOST);

	/* Segment 1: restart, as the emulator does at TraceEn 0->1. */
	seq = g.ptw_seq;
	tsc = g.tsc + 5000;
	ptgen_init(&g, &cfg1, seq, tsc);
	n = ptgen_start(&g, buf);
	emit(buf, n);
	run(&g, steps);
	n = ptgen_stop(&g, buf);
	emit(buf, n);
	publish(0);

	/* Segment 2: a new configuration. */
	config_record(2, cfg2_text);
	seq = g.ptw_seq;
	tsc = g.tsc + 1000;
	ptgen_init(&g, &cfg2, seq, tsc);
	n = ptgen_start(&g, buf);
	emit(buf, n);
	run(&g, steps);
	n = ptgen_stop(&g, buf);
	emit(buf, n);
	publish(0);

	if (fclose(aux_f) || fclose(data_f))
		die("fclose");

	snprintf(path, sizeof(path), "%s/meta.json", dir);
	m = fopen(path, "w");
	if (!m)
		die(path);
	fprintf(m, "{\n  \"format\": 1, \"tool_version\": \"0.1.0\", \"module_version\": "
		"\"0.1.0\",\n  \"abi_version\": 1, \"backend\": \"intel_pt\", \"emulated\": true,"
		" \"page_size\": 4096,\n  \"data_size\": 65536, \"aux_size\": %u, \"snapshot\": "
		"false,\n  \"clock\": \"CLOCK_MONOTONIC\", \"start_ns\": 1000000, \"end_ns\": %"
		PRIu64 ", \"start_realtime\": 1700000000,\n  \"command\": [\"sh\", \"-c\", "
		"\"echo \\\"hi\\\"\"],\n  \"cpus\": [0],\n  \"per_cpu\": {\n    \"0\": "
		"{ \"config\": \"%s\", \"generation\": 2,\n      \"caps\": { \"cpuid_14_0\": "
		"[1, 191, 7, 0], \"cpuid_14_1\": [1, 0, 0, 0], \"cpuid_15\": [2, 176, "
		"38400000, 0], \"family\": 6, \"model\": 140, \"stepping\": 1, "
		"\"max_nonturbo_ratio\": 28 },\n      \"aux_bytes\": %" PRIu64 ", "
		"\"aux_spans\": %u, \"aux_truncations\": 1, \"aux_collisions\": 0, "
		"\"aux_padding\": 0, \"records\": %u, \"records_lost\": 2, \"data_bytes\": %"
		PRIu64 " } },\n  \"lost\": true, \"complete\": true\n}\n", RING_SIZE, tm,
		cfg2_text, aux_len, nspans, nrecs, data_pos);
	if (fclose(m))
		die("meta.json");

	printf("bytes %" PRIu64 "\nspans %u\nsegments 3\nptws %" PRIu64 "\ncut 1\n"
	       "psbs_min 3\nconfigs 2\n", aux_len, nspans, nptw);
	return 0;
}
