// SPDX-License-Identifier: GPL-2.0
/*
 * gtcheck - compare the instruction flow 'tracebuf decode --insn --json'
 * printed for a capture with the ground truth of the program that ran.
 *
 *   gtcheck [--range LO-HI] [--snapshot [--one-ring]] [--branches] GT DECODED
 *
 * GT is a ground-truth file: tests/unit/gtgen.c's (R, S, B and T lines)
 * or tests/guest/ptfollow.c's (B and T lines). DECODED holds the decoder's
 * JSON lines ("type": "insn", "run", "error", "lost", ...).
 *
 * With S lines (every retired instruction) the comparison is instruction
 * for instruction, per thread: the decoded instructions of each thread,
 * in order, are exactly its ground-truth instructions (address, length,
 * bytes when the ground truth has them, and a class that fits the kind: a
 * conditional branch is "cond", a return "return", a system call
 * "far_call", ...), each decoded run starts at a
 * run of the ground truth (the SWITCH IN time), and every thread is in
 * both. --range LO-HI: the ground truth is first reduced to the
 * instructions at addresses in [LO, HI] (what an IP filter traces).
 * --snapshot: only the newest trace is there: each decoded run is the
 * end of its ground-truth run (the first one of a CPU may have lost its
 * beginning, the others are whole), and the runs of each CPU are the
 * last ones the ground truth has there.
 *
 * With B lines only (or --branches), per thread: every decoded
 * instruction that the ground truth lists as a branch (the next B line
 * has its address) has that kind, and its successor in the decoded flow
 * is the B line's target (0: the thread ended there), taken or not as the
 * B line says; every other decoded instruction goes on to the next one
 * (a direct jump aside); every B line is matched, in order. With --range,
 * only the branches inside the range count, every decoded instruction
 * must be inside it, and a branch leaving it goes, in the decoded flow,
 * to where the ground truth next enters it (filter_branches()).
 * --snapshot (not with --range): B lines do not say where runs begin, so
 * the time by which every CPU's trace had begun is taken from the decoded
 * runs: the latest of the CPUs' first runs with instructions (SWITCH IN
 * times; a CPU with none decoded is taken as one the program did not run
 * on; --one-ring: the earliest of them, every CPU's trace being in one
 * ring, a shared CoreSight sink's). A thread's decoded runs from then on
 * are one piece of its flow that ends where the ground truth ends: its
 * place is found from the end
 * (it must hold the thread's last branch), and from there it is checked
 * as a whole flow is, every later B line matched. Each earlier decoded
 * run may be followed by a gap (the thread ran on a CPU whose trace had
 * not begun): it must fit, its branches as above, somewhere in the ground
 * truth before the runs after it (the latest such place is taken). Where
 * a piece (that end, or an earlier run) starts before its first branch,
 * and where an earlier run ends after its last one, is not checked: B
 * lines do not list those instructions. With R and S lines too
 * (--branches on gtgen's), the runs of each CPU are also checked as in
 * the S-line mode.
 *
 * Any "error" or "lost" line fails. Exit 0 and a summary line when they
 * are equal, 1 with the differences (the first 20), 2 on usage errors.
 */
#include <inttypes.h>
#include <stdbool.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#define MAXTID		4096
#define MAXPROBLEMS	20

struct gstep {
	uint64_t from, to;
	unsigned int kind, len;
	char bytes[40];			/* hex; "": not known */
	size_t run;			/* index into the thread's runs */
};

struct grun {
	uint64_t time;
	int cpu;
	size_t first, n;		/* steps (after --range) */
};

struct dinsn {
	uint64_t ip;
	unsigned int size;
	char cls[16];
	char bytes[40];
	size_t run;
};

struct drun {
	uint64_t time;
	int cpu;
	size_t first, n;
};

struct thread {
	int tid;
	struct gstep *g;
	size_t ng, gcap;
	struct grun *gr;
	size_t ngr, grcap;
	struct gstep *b;		/* B lines */
	size_t nb, bcap;
	uint64_t entry;			/* --range: where the flow first enters it */
	bool have_t;
	uint64_t t_insns;
	struct dinsn *d;
	size_t nd, dcap;
	struct drun *dr;
	size_t ndr, drcap;
};

static struct thread threads[MAXTID];
static size_t nthreads;
static unsigned int problems;
static bool have_s, range, snapshot, one_ring;
static uint64_t lo, hi;
static uint64_t tail_insns;		/* snapshot, B lines: in every CPU's window */

#define PROBLEM(...) do { \
	if (++problems <= MAXPROBLEMS) { \
		fprintf(stderr, "gtcheck: " __VA_ARGS__); \
		fputc('\n', stderr); \
	} \
} while (0)

#define PUSH(arr, n, cap) ({ \
	if ((n) == (cap)) { \
		(cap) = (cap) ? 2 * (cap) : 256; \
		(arr) = realloc((arr), (cap) * sizeof(*(arr))); \
		if (!(arr)) { perror("gtcheck"); exit(2); } \
	} \
	&(arr)[(n)++]; \
})

static struct thread *thread_of(int tid)
{
	size_t i;

	for (i = 0; i < nthreads; i++)
		if (threads[i].tid == tid)
			return &threads[i];
	if (nthreads == MAXTID) {
		fprintf(stderr, "gtcheck: more than %d threads\n", MAXTID);
		exit(2);
	}
	memset(&threads[nthreads], 0, sizeof(threads[0]));
	threads[nthreads].tid = tid;
	return &threads[nthreads++];
}

static bool in_range(uint64_t ip)
{
	return !range || (ip >= lo && ip <= hi);
}

static void read_gt(const char *path)
{
	char line[512];
	FILE *f = fopen(path, "r");

	if (!f) {
		perror(path);
		exit(2);
	}
	while (fgets(line, sizeof(line), f)) {
		unsigned long long a, b, c;
		unsigned int k, l;
		int tid, cpu;

		if (sscanf(line, "R %d %d %llu", &tid, &cpu, &a) == 3) {
			struct thread *t = thread_of(tid);
			struct grun *r = PUSH(t->gr, t->ngr, t->grcap);

			r->time = a;
			r->cpu = cpu;
			r->first = t->ng;
			r->n = 0;
		} else if (sscanf(line, "S %d %llx %llx %u %u", &tid, &a, &b, &k, &l) == 5) {
			struct thread *t = thread_of(tid);
			struct gstep *s;
			char bytes[40] = "";

			have_s = true;
			if (!in_range(a))
				continue;
			sscanf(line, "S %*d %*x %*x %*u %*u %39s", bytes);
			s = PUSH(t->g, t->ng, t->gcap);
			memcpy(s->bytes, bytes, sizeof(bytes));
			s->from = a;
			s->to = b;
			s->kind = k;
			s->len = l;
			s->run = t->ngr ? t->ngr - 1 : 0;
			if (t->ngr)
				t->gr[t->ngr - 1].n++;
		} else if (sscanf(line, "B %d %llx %llx %u %u", &tid, &a, &b, &k, &l) == 5) {
			struct thread *t = thread_of(tid);
			struct gstep *s = PUSH(t->b, t->nb, t->bcap);

			s->from = a;
			s->to = b;
			s->kind = k;
			s->len = l;		/* taken */
		} else if (sscanf(line, "T %d %llu %llu", &tid, &a, &c) >= 2) {
			struct thread *t = thread_of(tid);

			t->have_t = true;
			t->t_insns = a;
		}
	}
	fclose(f);
}

/* The value of "key" in a JSON line of ours: its text, unquoted. */
static bool jget(const char *line, const char *key, char *out, size_t len)
{
	char pat[64];
	const char *p;
	size_t n = 0;

	snprintf(pat, sizeof(pat), "\"%s\": ", key);
	p = strstr(line, pat);
	if (!p)
		return false;
	p += strlen(pat);
	if (*p == '"') {
		p++;
		while (*p && *p != '"' && n + 1 < len)
			out[n++] = *p++;
	} else {
		while (*p && *p != ',' && *p != '}' && n + 1 < len)
			out[n++] = *p++;
	}
	out[n] = 0;
	return true;
}

static uint64_t jnum(const char *line, const char *key)
{
	char v[64];

	if (!jget(line, key, v, sizeof(v)))
		return 0;
	return strtoull(v, NULL, 0);
}

static void read_decoded(const char *path)
{
	static char line[8192];
	char type[32], v[64];
	FILE *f = fopen(path, "r");

	if (!f) {
		perror(path);
		exit(2);
	}
	while (fgets(line, sizeof(line), f)) {
		struct thread *t;

		if (!jget(line, "type", type, sizeof(type)))
			continue;
		if (!strcmp(type, "error") || !strcmp(type, "lost")) {
			line[strcspn(line, "\n")] = 0;
			PROBLEM("the decoder reported: %s", line);
			continue;
		}
		if (!jget(line, "tid", v, sizeof(v)))
			continue;
		t = thread_of(atoi(v));
		if (!strcmp(type, "run")) {
			struct drun *r = PUSH(t->dr, t->ndr, t->drcap);

			r->time = jnum(line, "time");
			r->cpu = (int)jnum(line, "cpu");
			r->first = t->nd;
			r->n = 0;
		} else if (!strcmp(type, "insn")) {
			struct dinsn *d = PUSH(t->d, t->nd, t->dcap);

			jget(line, "ip", v, sizeof(v));
			d->ip = strtoull(v, NULL, 16);
			d->size = (unsigned int)jnum(line, "size");
			if (!jget(line, "class", d->cls, sizeof(d->cls)))
				d->cls[0] = 0;
			if (!jget(line, "bytes", d->bytes, sizeof(d->bytes)))
				d->bytes[0] = 0;
			d->run = t->ndr ? t->ndr - 1 : 0;
			if (t->ndr)
				t->dr[t->ndr - 1].n++;
		}
	}
	fclose(f);
}

static const char *const kinds[] = { "other", "cond", "indirect", "return", "far", "call" };

/* Whether a decoded class fits a ground-truth kind. */
static bool fits(unsigned int kind, const char *cls)
{
	switch (kind) {
	case 0: return !strcmp(cls, "other") || !strcmp(cls, "jump");
	case 1: return !strcmp(cls, "cond");
	case 2: return !strcmp(cls, "call") || !strcmp(cls, "jump");
	case 3: return !strcmp(cls, "return");
	case 4: return !strcmp(cls, "far_call") || !strcmp(cls, "far_jump");
	case 5: return !strcmp(cls, "call");
	}
	return false;
}

/* Decoded [d, d + n) against ground truth [g, g + n). */
static bool same(const struct thread *t, const struct dinsn *d, const struct gstep *g, size_t n)
{
	size_t i;

	for (i = 0; i < n; i++) {
		if (d[i].ip != g[i].from || d[i].size != g[i].len || !fits(g[i].kind, d[i].cls) ||
		    (g[i].bytes[0] && strcmp(d[i].bytes, g[i].bytes))) {
			PROBLEM("thread %d: instruction %zu is %#" PRIx64 " (%u bytes %s, %s), the "
				"ground truth has %#" PRIx64 " (%u bytes %s, %s)", t->tid,
				(size_t)(d + i - t->d), d[i].ip, d[i].size, d[i].bytes, d[i].cls,
				g[i].from, g[i].len, g[i].bytes, g[i].kind < 6 ? kinds[g[i].kind] : "?");
			return false;
		}
	}
	return true;
}

static uint64_t check_insns(struct thread *t, uint64_t *nbr)
{
	size_t i, k;

	if (!snapshot) {
		for (i = 0; i < t->ndr; i++) {
			size_t k;

			for (k = 0; k < t->ngr; k++)
				if (t->gr[k].time == t->dr[i].time && t->gr[k].cpu == t->dr[i].cpu)
					break;
			if (k == t->ngr)
				PROBLEM("thread %d: a decoded run at time %" PRIu64 " on CPU %d is "
					"not in the ground truth", t->tid, t->dr[i].time, t->dr[i].cpu);
		}
		if (t->nd != t->ng) {
			PROBLEM("thread %d: %zu instructions decoded, the ground truth has %zu",
				t->tid, t->nd, t->ng);
			same(t, t->d, t->g, t->nd < t->ng ? t->nd : t->ng);
			return 0;
		}
		for (k = 0; k < t->ng; k++)
			*nbr += t->g[k].kind != 0;
		return same(t, t->d, t->g, t->nd) ? t->nd : 0;
	}
	/* Snapshot: each decoded run is the end of its ground-truth run. */
	for (i = 0; i < t->ndr; i++) {
		const struct drun *r = &t->dr[i];
		const struct grun *g = NULL;

		for (k = 0; k < t->ngr; k++)
			if (t->gr[k].time == r->time && t->gr[k].cpu == r->cpu)
				g = &t->gr[k];
		if (!g) {
			PROBLEM("thread %d: a decoded run at time %" PRIu64 " on CPU %d is not in "
				"the ground truth", t->tid, r->time, r->cpu);
			continue;
		}
		if (r->n > g->n) {
			PROBLEM("thread %d: the run at time %" PRIu64 " has %zu instructions "
				"decoded, the ground truth %zu", t->tid, r->time, r->n, g->n);
			continue;
		}
		if (same(t, t->d + r->first, t->g + g->first + (g->n - r->n), r->n))
			for (k = 0; k < r->n; k++)
				*nbr += t->g[g->first + (g->n - r->n) + k].kind != 0;
	}
	return t->nd;
}

/* Snapshot: per CPU, the decoded runs are the last of the ground truth there. */
static void check_snapshot_runs(void)
{
	int cpu;

	for (cpu = 0; cpu < 64; cpu++) {
		uint64_t first_decoded = UINT64_MAX, last_gt = 0;
		size_t i, k, decoded = 0, missing = 0;

		for (i = 0; i < nthreads; i++) {
			const struct thread *t = &threads[i];

			for (k = 0; k < t->ndr; k++)
				if (t->dr[k].cpu == cpu && t->dr[k].n) {
					decoded++;
					if (t->dr[k].time < first_decoded)
						first_decoded = t->dr[k].time;
				}
			for (k = 0; k < t->ngr; k++)
				if (t->gr[k].cpu == cpu && t->gr[k].n && t->gr[k].time > last_gt)
					last_gt = t->gr[k].time;
		}
		if (!decoded && !last_gt)
			continue;
		if (!decoded) {
			PROBLEM("cpu %d: nothing decoded, the ground truth ran there", cpu);
			continue;
		}
		/* Every ground-truth run after the first decoded one is decoded. */
		for (i = 0; i < nthreads; i++) {
			const struct thread *t = &threads[i];

			for (k = 0; k < t->ngr; k++) {
				size_t j;
				bool found = false;

				if (t->gr[k].cpu != cpu || !t->gr[k].n || t->gr[k].time <= first_decoded)
					continue;
				for (j = 0; j < t->ndr; j++)
					if (t->dr[j].time == t->gr[k].time && t->dr[j].cpu == cpu &&
					    t->dr[j].n == t->gr[k].n)
						found = true;
				if (!found)
					missing++;
			}
		}
		if (missing)
			PROBLEM("cpu %d: %zu runs after the first decoded one (time %" PRIu64
				") are missing or partial", cpu, missing, first_decoded);
	}
}

/*
 * --branches with --range: what an IP filter leaves of the thread's
 * branches. A branch inside [lo, hi] stays; its target, if outside, is
 * replaced by where the flow next enters the range (the target of the
 * next branch from outside to inside: a filter's TIP.PGE), 0 if it never
 * does; a branch outside the range is gone. So the filtered flow is
 * checked as the whole one is: each traced branch goes where the
 * filtered ground truth says. A flow leaving the range without a branch
 * (falling through its end) is not modelled: it fails, as it should for
 * a function's range.
 */
static void filter_branches(struct thread *t)
{
	size_t i, k, n = 0;

	for (i = 0; i < t->nb && !t->entry; i++)
		if (!in_range(t->b[i].from) && in_range(t->b[i].to))
			t->entry = t->b[i].to;
	for (i = 0; i < t->nb; i++) {
		struct gstep b = t->b[i];

		if (!in_range(b.from))
			continue;
		if (!in_range(b.to)) {
			b.to = 0;
			for (k = i + 1; k < t->nb; k++)
				if (!in_range(t->b[k].from) && in_range(t->b[k].to)) {
					b.to = t->b[k].to;
					break;
				}
		}
		t->b[n++] = b;
	}
	t->nb = n;
}

/*
 * The branch-for-branch walk of the decoded instructions [i0, i1) from
 * B line *jp on (B lines [*jp, limit) only): a decoded instruction at the
 * next B line's address is that branch (its kind, its successor, taken or
 * not); every other one goes on to the next (a direct jump aside) and is
 * no branch. The successor of i1 - 1 is 0 (the thread ended) unless open
 * (a gap may follow: not known). report: say what differs and go on after
 * a wrong branch; else stop at the first difference. Returns false if it
 * stopped (the flow cannot be followed further).
 */
static bool walk(struct thread *t, size_t i0, size_t i1, size_t *jp, size_t limit, bool open,
		 bool report, uint64_t *nbr)
{
	size_t i;

	for (i = i0; i < i1; i++) {
		const struct dinsn *d = &t->d[i];
		const struct dinsn *s = i + 1 < i1 ? &t->d[i + 1] : NULL;

		if (*jp < limit && t->b[*jp].from == d->ip) {
			const struct gstep *b = &t->b[(*jp)++];
			uint64_t next = s ? s->ip : 0;

			if (!fits(b->kind, d->cls)) {
				if (!report)
					return false;
				PROBLEM("thread %d: %#" PRIx64 " is %s, the ground truth says %s", t->tid,
					d->ip, d->cls, b->kind < 6 ? kinds[b->kind] : "?");
			}
			if ((s || !open) && next != b->to) {
				if (!report)
					return false;
				PROBLEM("thread %d: after the branch at %#" PRIx64 " the flow goes to %#"
					PRIx64 ", the ground truth to %#" PRIx64, t->tid, d->ip, next,
					b->to);
			}
			if (b->kind == 1 && s && (s->ip != d->ip + d->size) != (b->len != 0)) {
				if (!report)
					return false;
				PROBLEM("thread %d: the branch at %#" PRIx64 " is %staken, the ground "
					"truth says %staken", t->tid, d->ip,
					s->ip != d->ip + d->size ? "" : "not ", b->len ? "" : "not ");
			}
			(*nbr)++;
		} else if (s && s->ip != d->ip + d->size && strcmp(d->cls, "jump")) {
			if (report)
				PROBLEM("thread %d: the flow goes from %#" PRIx64 " (%s) to %#" PRIx64
					", the ground truth has no branch there", t->tid, d->ip, d->cls,
					s->ip);
			return false;
		} else if (strcmp(d->cls, "other") && strcmp(d->cls, "jump")) {
			if (report)
				PROBLEM("thread %d: %#" PRIx64 " is %s, the ground truth has no branch "
					"there", t->tid, d->ip, d->cls);
			return false;
		}
	}
	return true;
}

static uint64_t check_branches(struct thread *t, uint64_t *nbr)
{
	size_t i, j = 0;

	if (range && t->nd && t->d[0].ip != t->entry) {
		PROBLEM("thread %d: the decoded flow starts at %#" PRIx64 ", the ground truth "
			"enters the range first at %#" PRIx64, t->tid, t->d[0].ip, t->entry);
		return 0;
	}
	for (i = 0; i < t->nd; i++) {
		if (!in_range(t->d[i].ip)) {
			PROBLEM("thread %d: %#" PRIx64 " was decoded, outside the filter range",
				t->tid, t->d[i].ip);
			return 0;
		}
	}
	if (!walk(t, 0, t->nd, &j, t->nb, false, true, nbr))
		return 0;
	if (j != t->nb)
		PROBLEM("thread %d: %zu of the ground truth's %zu branches matched (next: %#" PRIx64
			")", t->tid, j, t->nb, t->b[j].from);
	return t->nd;
}

/*
 * Snapshot, B lines: when every CPU's window had opened, the time of the
 * first decoded instruction of the CPU whose trace starts last (each
 * CPU's first decoded run, by its SWITCH IN time). From then on every
 * run of the program on every CPU is in the capture; before it, a run may
 * be missing (it ran on a CPU whose window opened later). --one-ring:
 * every CPU's trace is in one ring (a shared CoreSight sink), whose
 * window opened for all of them at once: at the first decoded run of any.
 */
static uint64_t windows_open(void)
{
	static struct { int cpu; uint64_t first; } w[MAXTID];
	size_t i, k, c, nw = 0;
	uint64_t open = 0;

	for (i = 0; i < nthreads; i++) {
		const struct thread *t = &threads[i];

		for (k = 0; k < t->ndr; k++) {
			if (!t->dr[k].n)
				continue;
			for (c = 0; c < nw && w[c].cpu != t->dr[k].cpu; c++)
				;
			if (c == nw) {
				if (nw == MAXTID)
					continue;
				w[nw].cpu = t->dr[k].cpu;
				w[nw++].first = t->dr[k].time;
			} else if (t->dr[k].time < w[c].first) {
				w[c].first = t->dr[k].time;
			}
		}
	}
	for (c = 0; c < nw; c++)
		if (one_ring ? !c || w[c].first < open : w[c].first > open)
			open = w[c].first;
	return open;
}

/*
 * Snapshot, B lines, one thread. Its decoded runs from 'open' on are one
 * piece of its flow that ends where the ground truth ends: found from its
 * end (the thread's last branch in it), then walked as a whole capture
 * is. Each earlier run, on its own (a gap may follow it), must fit the
 * ground truth before the next one's place: the latest place where it
 * does is taken, as late placements leave the most room for the runs
 * before.
 */
static uint64_t check_branches_snapshot(struct thread *t, uint64_t open, uint64_t *nbr)
{
	size_t k, i, j, limit = t->nb, tail = t->ndr;
	uint64_t n = 0;

	if (!t->nd)
		return 0;
	if (!t->ndr) {
		PROBLEM("thread %d: instructions decoded outside any run", t->tid);
		return 0;
	}
	for (k = 0; k < t->ndr && tail == t->ndr; k++)
		if (t->dr[k].n && t->dr[k].time >= open)
			tail = k;
	if (tail < t->ndr) {
		size_t i0 = t->dr[tail].first;

		j = t->nb;
		for (i = t->nd; i > i0; i--)
			if (j && t->b[j - 1].from == t->d[i - 1].ip)
				j--;
		if (t->nb && j == t->nb) {
			PROBLEM("thread %d: its decoded runs from time %" PRIu64 " on (every CPU's "
				"trace there) do not hold its last branch, at %#" PRIx64, t->tid,
				t->dr[tail].time, t->b[t->nb - 1].from);
			return 0;
		}
		limit = j;
		tail_insns += t->nd - i0;
		if (!walk(t, i0, t->nd, &j, t->nb, false, true, &n))
			return 0;
		if (j != t->nb)
			PROBLEM("thread %d: its decoded flow ends at %#" PRIx64 ", %zu branches of the "
				"ground truth after it", t->tid, t->d[t->nd - 1].ip, t->nb - j);
	}
	for (k = tail; k-- > 0;) {
		const struct drun *r = &t->dr[k];
		uint64_t m = 0;

		if (!r->n)
			continue;
		for (j = limit + 1; j-- > 0;) {
			size_t jj = j;

			m = 0;
			if (walk(t, r->first, r->first + r->n, &jj, limit, true, false, &m))
				break;
		}
		if (j == SIZE_MAX) {
			PROBLEM("thread %d: its decoded run at time %" PRIu64 " on CPU %d (%zu "
				"instructions from %#" PRIx64 ") is nowhere in the ground truth before "
				"the runs after it", t->tid, r->time, r->cpu, r->n, t->d[r->first].ip);
			return 0;
		}
		limit = j;
		n += m;
	}
	*nbr += n;
	return t->nd;
}

int main(int argc, char **argv)
{
	bool branches = false;
	uint64_t insns = 0, nbr = 0, decoded = 0, open = 0;
	size_t i, n = 0;
	int a;

	for (a = 1; a < argc && argv[a][0] == '-'; a++) {
		if (!strcmp(argv[a], "--snapshot")) {
			snapshot = true;
		} else if (!strcmp(argv[a], "--one-ring")) {
			one_ring = true;
		} else if (!strcmp(argv[a], "--branches")) {
			branches = true;
		} else if (!strcmp(argv[a], "--range") && a + 1 < argc) {
			if (sscanf(argv[++a], "%" SCNx64 "-%" SCNx64, &lo, &hi) != 2)
				return 2;
			range = true;
		} else {
			fprintf(stderr, "usage: gtcheck [--range LO-HI] [--snapshot [--one-ring]] "
				"[--branches] GT DECODED\n");
			return 2;
		}
	}
	if (argc - a != 2)
		return 2;
	read_gt(argv[a]);
	read_decoded(argv[a + 1]);
	if (!have_s)
		branches = true;
	if (branches && snapshot && range) {
		fprintf(stderr, "gtcheck: --snapshot with --range needs a ground truth with S "
			"lines\n");
		return 2;
	}
	if (branches && snapshot)
		open = windows_open();
	for (i = 0; i < nthreads; i++) {
		struct thread *t = &threads[i];

		if (branches && range)
			filter_branches(t);
		if (!t->have_t && (t->nd || t->ng)) {
			PROBLEM("thread %d is in the trace, not in the ground truth", t->tid);
			continue;
		}
		if (!t->nd && (branches ? t->nb : t->ng) && !snapshot) {
			PROBLEM("thread %d of the ground truth is not in the trace", t->tid);
			continue;
		}
		if (t->nd)
			n++;
		decoded += t->nd;
		if (branches && snapshot)
			insns += check_branches_snapshot(t, open, &nbr);
		else
			insns += branches ? check_branches(t, &nbr) : check_insns(t, &nbr);
	}
	if (snapshot)
		check_snapshot_runs();
	if (!decoded)
		PROBLEM("nothing decoded");
	if (problems) {
		if (problems > MAXPROBLEMS)
			fprintf(stderr, "gtcheck: ... %u problems in all\n", problems);
		return 1;
	}
	printf("gtcheck: %s: %zu threads, %" PRIu64 " instructions, %" PRIu64 " branches equal "
	       "the ground truth%s%s", argv[a], n, insns, nbr,
	       branches ? " (branch for branch)" : " (instruction for instruction)",
	       snapshot ? ", snapshot" : range ? ", filtered" : "");
	if (branches && snapshot)
		printf(" (%" PRIu64 " of them after every CPU's trace began)", tail_insns);
	putchar('\n');
	return 0;
}
