// SPDX-License-Identifier: GPL-2.0
/*
 * ptfollowcheck - check a follow-mode capture (tests/guest/task_trace.c,
 * test_follow) against the ground truth of the process that ran: the
 * branches tests/guest/ptfollow.c saw it retire, thread by thread.
 *
 *   ptfollowcheck DIR
 *
 * DIR holds gt.txt (ptfollow's ground truth: "B tid from to kind taken"
 * per retired branch, "T tid insns cond ind ret far call" per thread)
 * and, for each CPU N of the per-task sessions, cpuN.aux (the AUX bytes
 * of every published span, concatenated) and cpuN.spans:
 *   span <aux_offset> <size> <flags>
 *   # in <pid> <tid> <aux_offset> <time>     (SWITCH IN)
 *   # out <pid> <tid> <aux_offset>           (SWITCH OUT)
 *
 * Checks, with libipt's packet decoder:
 *  - every CPU's stream decodes with zero errors; every span lies in a
 *    thread's run (after an IN, before its OUT); every run with bytes
 *    starts with a PSB (each is decodable on its own);
 *  - per thread, the branch outcomes in its runs, taken in time order
 *    across CPUs (TNT bits, and the IP of every TIP, reconstructed from
 *    the IP compression), equal the ground truth's conditional branches
 *    (taken or not) and indirect branches and returns (their targets), in
 *    order: so the TNT bits + TIPs of each thread equal its cond + ind +
 *    ret count;
 *  - every thread in the trace is in the ground truth and the reverse.
 * Exit 0 with a summary line, 1 with every problem found, 2 on usage.
 */
#define _GNU_SOURCE
#include <inttypes.h>
#include <intel-pt.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#define MAXCPU		8
#define MAXTID		64
#define MAXRUNS		(1 << 20)

struct ev {			/* one branch outcome */
	uint64_t ip;		/* TIP target, or 0 for a TNT bit */
	int taken;		/* TNT: the bit */
};

struct seq {
	int tid;
	struct ev *ev;
	size_t n, cap;
};

struct run {
	int cpu, tid;
	uint64_t time;
	uint64_t start, end;	/* offsets in cpuN.aux */
};

static struct seq truth[MAXTID], trace[MAXTID];
static int ntruth, ntrace;
static struct run *runs;
static size_t nruns;
static int problems;

#define PROBLEM(...) do { problems++; fprintf(stderr, "ptfollowcheck: " __VA_ARGS__); \
			  fputc('\n', stderr); } while (0)

static struct seq *seq_of(struct seq *s, int *n, int tid)
{
	int i;

	for (i = 0; i < *n; i++)
		if (s[i].tid == tid)
			return &s[i];
	if (*n == MAXTID) {
		fprintf(stderr, "ptfollowcheck: more than %d threads\n", MAXTID);
		exit(2);
	}
	s[*n].tid = tid;
	return &s[(*n)++];
}

static void push(struct seq *s, uint64_t ip, int taken)
{
	if (s->n == s->cap) {
		s->cap = s->cap ? 2 * s->cap : 1024;
		s->ev = realloc(s->ev, s->cap * sizeof(*s->ev));
		if (!s->ev)
			exit(2);
	}
	s->ev[s->n].ip = ip;
	s->ev[s->n++].taken = taken;
}

static void read_truth(const char *dir)
{
	char path[4096], line[256];
	unsigned long long from, to;
	unsigned int kind, taken;
	int tid;
	FILE *f;

	snprintf(path, sizeof(path), "%s/gt.txt", dir);
	f = fopen(path, "r");
	if (!f) {
		perror(path);
		exit(2);
	}
	while (fgets(line, sizeof(line), f)) {
		if (sscanf(line, "B %d %llx %llx %u %u", &tid, &from, &to, &kind, &taken) != 5)
			continue;
		if (kind == 1)
			push(seq_of(truth, &ntruth, tid), 0, taken);
		else if (kind == 2 || kind == 3)
			push(seq_of(truth, &ntruth, tid), to, 0);
	}
	fclose(f);
	/* Threads without a branch still count as known. */
	f = fopen(path, "r");
	while (f && fgets(line, sizeof(line), f))
		if (sscanf(line, "T %d", &tid) == 1)
			seq_of(truth, &ntruth, tid);
	if (f)
		fclose(f);
}

static uint8_t *read_file(const char *path, size_t *len)
{
	uint8_t *buf;
	FILE *f = fopen(path, "rb");
	long n;

	if (!f)
		return NULL;
	fseek(f, 0, SEEK_END);
	n = ftell(f);
	fseek(f, 0, SEEK_SET);
	buf = malloc(n ? n : 1);
	if (!buf || fread(buf, 1, n, f) != (size_t)n)
		exit(2);
	fclose(f);
	*len = n;
	return buf;
}

/* The runs of one CPU: which bytes of cpuN.aux each thread's run holds. */
static int read_spans(const char *dir, int cpu)
{
	char path[4096], line[256];
	unsigned long long off, size, flags, time;
	uint64_t pos = 0;
	int in = 0, tid = 0, pid, ot;
	struct run *r = NULL;
	FILE *f;

	snprintf(path, sizeof(path), "%s/cpu%d.spans", dir, cpu);
	f = fopen(path, "r");
	if (!f)
		return -1;
	while (fgets(line, sizeof(line), f)) {
		if (sscanf(line, "# in %d %d %llu %llu", &pid, &tid, &off, &time) == 4) {
			if (in)
				PROBLEM("cpu%d: IN of %d while %d runs", cpu, tid, r->tid);
			if (nruns == MAXRUNS)
				exit(2);
			r = &runs[nruns++];
			r->cpu = cpu;
			r->tid = tid;
			r->time = time;
			r->start = r->end = pos;
			in = 1;
		} else if (sscanf(line, "# out %d %d %llu", &pid, &ot, &off) == 3) {
			if (!in || ot != r->tid)
				PROBLEM("cpu%d: OUT of %d", cpu, ot);
			in = 0;
		} else if (sscanf(line, "span %llu %llu %llu", &off, &size, &flags) == 3) {
			if (!in && size)
				PROBLEM("cpu%d: %llu bytes at %llu outside every run", cpu, size, off);
			if (flags & 1)
				PROBLEM("cpu%d: a truncated span at %llu", cpu, off);
			pos += size;
			if (in)
				r->end = pos;
		}
	}
	fclose(f);
	return 0;
}

static uint64_t ip_update(uint64_t last, const struct pt_packet_ip *ip, int *ok)
{
	*ok = 1;
	switch (ip->ipc) {
	case pt_ipc_update_16:
		return (last & ~0xffffULL) | (ip->ip & 0xffff);
	case pt_ipc_update_32:
		return (last & ~0xffffffffULL) | (ip->ip & 0xffffffff);
	case pt_ipc_update_48:
		return (last & ~0xffffffffffffULL) | (ip->ip & 0xffffffffffffULL);
	case pt_ipc_sext_48:
		return (uint64_t)((int64_t)(ip->ip << 16) >> 16);
	case pt_ipc_full:
		return ip->ip;
	default:
		*ok = 0;
		return last;
	}
}

/* Decode one run; append its branch outcomes to its thread's sequence. */
static void decode_run(const struct run *r, uint8_t *aux)
{
	struct seq *s = seq_of(trace, &ntrace, r->tid);
	struct pt_config config;
	struct pt_packet_decoder *dec;
	struct pt_packet pkt;
	uint64_t last = 0, ip;
	int first = 1, rc, ok, i;

	if (r->end == r->start)
		return;
	pt_config_init(&config);
	config.begin = aux + r->start;
	config.end = aux + r->end;
	dec = pt_pkt_alloc_decoder(&config);
	if (!dec)
		exit(2);
	pt_pkt_sync_set(dec, 0);
	for (;;) {
		rc = pt_pkt_next(dec, &pkt, sizeof(pkt));
		if (rc == -pte_eos)
			break;
		if (rc < 0) {
			PROBLEM("cpu%d: tid %d: decode error %s in its run at %" PRIu64,
				r->cpu, r->tid, pt_errstr(pt_errcode(rc)), r->start);
			break;
		}
		if (first && pkt.type != ppt_psb)
			PROBLEM("cpu%d: tid %d: run at %" PRIu64 " does not start with a PSB",
				r->cpu, r->tid, r->start);
		first = 0;
		switch (pkt.type) {
		case ppt_psb:
			last = 0;
			break;
		case ppt_tnt_8:
		case ppt_tnt_64:
			for (i = pkt.payload.tnt.bit_size - 1; i >= 0; i--)
				push(s, 0, (int)((pkt.payload.tnt.payload >> i) & 1));
			break;
		case ppt_tip:
			ip = ip_update(last, &pkt.payload.ip, &ok);
			if (!ok)
				PROBLEM("cpu%d: tid %d: TIP without an IP", r->cpu, r->tid);
			last = ip;
			push(s, ip, 0);
			break;
		case ppt_tip_pge:
		case ppt_tip_pgd:
		case ppt_fup:
			ip = ip_update(last, &pkt.payload.ip, &ok);
			if (ok)
				last = ip;
			break;
		default:
			break;
		}
	}
	pt_pkt_free_decoder(dec);
}

static int by_time(const void *a, const void *b)
{
	const struct run *x = a, *y = b;

	return x->time < y->time ? -1 : x->time > y->time;
}

int main(int argc, char **argv)
{
	uint8_t *aux[MAXCPU] = { NULL };
	size_t len, i, j, bits = 0, tips = 0;
	char path[4096];
	int cpu, n, ncpu = 0;

	if (argc != 2) {
		fprintf(stderr, "usage: ptfollowcheck DIR\n");
		return 2;
	}
	runs = calloc(MAXRUNS, sizeof(*runs));
	if (!runs)
		return 2;
	read_truth(argv[1]);
	for (cpu = 0; cpu < MAXCPU; cpu++) {
		snprintf(path, sizeof(path), "%s/cpu%d.aux", argv[1], cpu);
		aux[cpu] = read_file(path, &len);
		if (!aux[cpu])
			continue;
		ncpu++;
		if (read_spans(argv[1], cpu))
			PROBLEM("cpu%d: no cpu%d.spans", cpu, cpu);
	}
	if (!ncpu)
		PROBLEM("no cpuN.aux in %s", argv[1]);
	qsort(runs, nruns, sizeof(*runs), by_time);
	for (i = 0; i < nruns; i++)
		decode_run(&runs[i], aux[runs[i].cpu]);
	for (n = 0; n < ntrace; n++) {
		struct seq *t = &trace[n], *g = NULL;
		int k;

		for (k = 0; k < ntruth; k++)
			if (truth[k].tid == t->tid)
				g = &truth[k];
		if (!g) {
			if (t->n)
				PROBLEM("tid %d: %zu branches traced, not in the ground truth",
					t->tid, t->n);
			continue;
		}
		for (j = 0; j < t->n; j++) {
			bits += !t->ev[j].ip;
			tips += !!t->ev[j].ip;
		}
		if (t->n != g->n)
			PROBLEM("tid %d: %zu TNT bits + TIPs traced, %zu branches in the ground truth",
				t->tid, t->n, g->n);
		for (j = 0; j < t->n && j < g->n; j++) {
			if (t->ev[j].ip != g->ev[j].ip || t->ev[j].taken != g->ev[j].taken) {
				PROBLEM("tid %d: branch %zu: traced %s %#" PRIx64 ", ground truth %s %#" PRIx64,
					t->tid, j, t->ev[j].ip ? "TIP" : "TNT",
					t->ev[j].ip ? t->ev[j].ip : (uint64_t)t->ev[j].taken,
					g->ev[j].ip ? "TIP" : "TNT",
					g->ev[j].ip ? g->ev[j].ip : (uint64_t)g->ev[j].taken);
				break;
			}
		}
	}
	for (n = 0; n < ntruth; n++) {
		int k, found = 0;

		for (k = 0; k < ntrace; k++)
			found |= trace[k].tid == truth[n].tid;
		if (!found && truth[n].n)
			PROBLEM("tid %d: %zu branches in the ground truth, none traced",
				truth[n].tid, truth[n].n);
	}
	if (problems) {
		fprintf(stderr, "ptfollowcheck: %s: FAILED (%d problems)\n", argv[1], problems);
		return 1;
	}
	printf("ptfollowcheck: %s: OK: %d threads, %zu runs on %d CPUs, %zu TNT bits + %zu TIPs = ground truth\n",
	       argv[1], ntruth, nruns, ncpu, bits, tips);
	return 0;
}
