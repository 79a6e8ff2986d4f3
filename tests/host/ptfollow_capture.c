// SPDX-License-Identifier: GPL-2.0
/*
 * ptfollow_capture - write a synthetic follow-mode capture directory, as
 * tests/guest/task_trace.c (test_follow) writes one, for checking
 * ptfollowcheck itself (tests/unit/ptfollowcheck.sh): two threads, each
 * step of each in its own run on a random CPU, packets as the emulator's
 * follow mode writes them (tests/modules/ptemu_follow.h), with the
 * encoders of ptemu_gen.h.
 *
 *   ptfollow_capture [--seed N] [--steps N] [--break WHAT] DIR
 *
 * WHAT breaks the capture so that it must be rejected: tnt (a TNT bit
 * flipped), tip (a TIP left out), target (a TIP's target off by one),
 * psb (a run without its PSB+), outside (a span outside every run), order
 * (two runs of a thread on different CPUs with their times swapped),
 * stranger (a run of a thread the ground truth does not know).
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>

#include "ptemu_gen.h"

#define NCPU	2

static unsigned int rng = 12345;

static unsigned int rnd(void)
{
	rng ^= rng << 13;
	rng ^= rng >> 17;
	rng ^= rng << 5;
	return rng;
}

static FILE *aux[NCPU], *spans[NCPU];
static unsigned long long pos[NCPU];

static unsigned int ip_pkt(__u8 *buf, __u8 opc, __u64 ip, __u64 *last)
{
	unsigned int ipc = *last ? ptgen_ipc_best(ip, *last) : PTGEN_IPC_SEXT48;

	*last = ip;
	return ptgen_enc_ip(buf, opc, ipc, ip);
}

int main(int argc, char **argv)
{
	const char *brk = "", *dir = NULL;
	unsigned int steps = 200, i, c, t, n, broken_at;
	unsigned long long time = 1000;
	char path[4096];
	FILE *gt;
	int a;

	for (a = 1; a < argc; a++) {
		if (!strcmp(argv[a], "--seed") && a + 1 < argc)
			rng = (unsigned int)strtoul(argv[++a], NULL, 0) | 1;
		else if (!strcmp(argv[a], "--steps") && a + 1 < argc)
			steps = (unsigned int)strtoul(argv[++a], NULL, 0);
		else if (!strcmp(argv[a], "--break") && a + 1 < argc)
			brk = argv[++a];
		else
			dir = argv[a];
	}
	if (!dir)
		return 2;
	mkdir(dir, 0755);
	snprintf(path, sizeof(path), "%s/gt.txt", dir);
	gt = fopen(path, "w");
	for (c = 0; c < NCPU; c++) {
		snprintf(path, sizeof(path), "%s/cpu%u.aux", dir, c);
		aux[c] = fopen(path, "w");
		snprintf(path, sizeof(path), "%s/cpu%u.spans", dir, c);
		spans[c] = fopen(path, "w");
		if (!aux[c] || !spans[c])
			return 2;
	}
	if (!gt)
		return 2;
	broken_at = steps / 2;
	for (i = 0; i < steps; i++) {
		__u8 buf[PTGEN_MAX_GROUP];
		__u64 last = 0, from, to;
		unsigned int kind = rnd() % 4, taken = rnd() & 1, tid = 100 + (i & 1);
		unsigned long long when = time;

		/* The broken step is one whose breaking shows. */
		if (i == broken_at || (!strcmp(brk, "order") && i == broken_at + 2))
			kind = !strcmp(brk, "tnt") ? 1 : 2;
		c = rnd() % NCPU;
		from = 0x401000 + (rnd() & 0xffff);
		to = kind == 0 ? from + 3 : kind == 1 && !taken ? from + 2 : 0x402000 + (rnd() & 0xfff);
		if (kind)
			fprintf(gt, "B %u %llx %llx %u %u\n", tid, (unsigned long long)from,
				(unsigned long long)to, kind, kind == 1 ? taken : 0);
		if (!strcmp(brk, "stranger") && i == broken_at)
			tid = 999;
		/* Runs of this thread two steps apart, their times swapped. */
		if (!strcmp(brk, "order") && i == broken_at)
			when = time + 20;
		if (!strcmp(brk, "order") && i == broken_at + 2)
			when = time - 20;
		n = 0;
		if (strcmp(brk, "psb") || i != broken_at) {
			n += ptgen_enc_psb(buf + n);
			n += ptgen_enc_cbr(buf + n, PTGEN_CBR_RATIO);
			n += ptgen_enc_psbend(buf + n);
		}
		n += ptgen_enc_mode_exec64(buf + n);
		n += ip_pkt(buf + n, PTGEN_OPC_TIP_PGE, from, &last);
		if (kind == 1) {
			n += ptgen_enc_tnt8(buf + n, taken ^ (!strcmp(brk, "tnt") && i == broken_at), 1);
		} else if (kind >= 2 && (strcmp(brk, "tip") || i != broken_at)) {
			__u64 tip = to + (!strcmp(brk, "target") && i == broken_at);

			n += ip_pkt(buf + n, PTGEN_OPC_TIP, tip, &last);
		}
		n += ip_pkt(buf + n, PTGEN_OPC_FUP, to, &last);
		n += ptgen_enc_ip(buf + n, PTGEN_OPC_TIP_PGD, PTGEN_IPC_SUPPRESSED, 0);
		fprintf(spans[c], "# in %u %u %llu %llu\n", 100u, tid, pos[c], when);
		fwrite(buf, 1, n, aux[c]);
		fprintf(spans[c], "span %llu %u 0\n", pos[c], n);
		pos[c] += n;
		fprintf(spans[c], "# out %u %u %llu\n", 100u, tid, pos[c]);
		if (!strcmp(brk, "outside") && i == broken_at) {
			fwrite(buf, 1, n, aux[c]);
			fprintf(spans[c], "span %llu %u 0\n", pos[c], n);
			pos[c] += n;
		}
		time += 10;
	}
	for (t = 100; t < 102; t++)
		fprintf(gt, "T %u 0 0 0 0 0 0\n", t);
	fclose(gt);
	for (c = 0; c < NCPU; c++) {
		fclose(aux[c]);
		fclose(spans[c]);
	}
	return 0;
}
