// SPDX-License-Identifier: GPL-2.0
/*
 * The per-task target (TRACEBUF_TARGET_TASK, module/task.c) with the
 * CoreSight emulator (tb_csemu topology=juno: both CPUs' ETMs through
 * funnels, ETF and replicator to one shared ETR): one session over both
 * CPUs traces one process started stopped (fork, set up, then exec, as
 * perf starts its workload), while untraced spinners compete for both
 * CPUs. The programs are tests/guest/taskprog.c.
 *
 * For every capture, from the records alone (the guest):
 *  - SWITCH records alternate IN, OUT per CPU, each at or ahead of the
 *    published head (placed in the shared ETR's running buffer while the
 *    other CPU traces on), never behind the CPU's previous one, and every
 *    position is published by the end;
 *  - the AUX stream, deformatted (16-byte TMC frames), has no byte of a
 *    CPU's trace ID (from the ETM records) outside that CPU's IN..OUT
 *    (by position): every byte is attributed to the thread current on
 *    its CPU;
 *  - the emulator's oracle (etmN/tasks: the process current on the CPU
 *    while its ETM produced bytes) names traced processes only: no byte
 *    while an untraced task (the spinners, idle, kernel threads) ran; what
 *    it counts is what the ETM produced, and what the stream holds of
 *    that CPU's trace ID;
 *  - every byte the sink wrote is published or counted lost, and no ETM
 *    runs once the process is gone; no emulator violation;
 *  - the same with an ETR that wraps between drain cycles (overrun: a
 *    small AUX ring, rare cycles): none of a wrapped run's bytes is
 *    attributed to a thread, the loss is counted; and with a shared ETF
 *    as the sink (etf);
 *  - per program: every thread it reports ran traced (threads); the
 *    migrating thread has IN records on both CPUs (migrate); the forked
 *    child joins (TASK FORK), runs traced after its exec (SWITCH EXEC) and
 *    leaves (TASK EXIT) with inherit, and is never traced without it
 *    (forkexec, noinherit); a process exiting while its threads run
 *    traced leaves no ETM running (exit).
 * Each capture goes to the host as a capture directory (cpu0.data with
 * the records verbatim, cpu0.aux, meta.json: docs/capture-format.md) with
 * a cscheck.args file: 'tracebuf export --opencsd' and cscheck decode it
 * with OpenCSD (no error, the sequence numbers of every trace ID in
 * order).
 *
 * Also: SETUP errors (ESRCH, EBUSY for a second session on the same
 * process and CPUs), and permissions as uid 65534 with /dev/tracebuf mode
 * 0666 at paranoid 2: its own process (allowed, traced), root's processes
 * (EACCES at SETUP).
 */
#include <grp.h>
#include <sched.h>
#include <signal.h>
#include <stdbool.h>
#include <sys/prctl.h>
#include <sys/wait.h>

#include "ptcap.h"

#define CSEMU		"/sys/kernel/debug/tb_csemu"
#define PARAM		"/sys/module/tracebuf/parameters/"
#define PROG		"/tests/taskprog"
#define NOBODY		65534
#define NCPU		2
#define DATA_SIZE	(256 * 1024)
#define AUX_SIZE	(1024 * 1024)
#define MAXPIDS		64
#define MAXTIDS		256

/* A SWITCH record of a CPU, applied to the bytes from its position on. */
struct swev {
	uint64_t pos;
	uint32_t pid, tid;
	int in;
};

struct cpust {
	/* The records: between an IN and its OUT, in data-ring order. */
	int rin;
	uint32_t rtid;
	uint64_t last_pos;	/* its last SWITCH record's aux_offset */
	/* The bytes: the thread whose IN..OUT holds the position streamed. */
	int in;
	uint32_t cur_pid, cur_tid;
	struct swev *ev;	/* its SWITCH records not yet applied */
	size_t nev, iev, evcap;
	uint64_t ins, outs, busy;
	uint64_t id_bytes;	/* deformatted bytes of its trace ID */
	unsigned long long etm0;	/* etmN bytes at ENABLE */
};

struct tidinfo {
	uint32_t pid, tid;
	unsigned int cpus;	/* bit per CPU it ran traced on */
	uint64_t bytes;
	unsigned int exec_ins;	/* IN records flagged EXEC */
};

struct run {
	const char *name;
	struct tracebuf_session s;
	unsigned char *aux;
	uint64_t next;		/* the published head, from the AUX records */
	struct cpust c[NCPU];
	int id_cpu[128];	/* trace ID -> CPU (ETM records), -1 */
	int cur_id;		/* the deformatter's current ID */
	unsigned char fr[16];
	unsigned int nfr;
	uint64_t published, spans, truncated, lost, aux_lost, records, data_bytes;
	uint64_t unattributed, unknown_id;
	uint64_t ahead;		/* SWITCH records ahead of the published head */
	uint64_t id_total;	/* deformatted bytes of a trace ID but 0 */
	uint64_t blank;		/* TRUNCATED spans of null frames only */
	uint64_t aux_size;	/* the AUX area (a power of two) */
	uint64_t lost_at_least;	/* LOST records with TRACEBUF_LOST_F_AT_LEAST */
	uint64_t first_bad;	/* aux position of the first unattributed byte */
	int first_bad_id;
	FILE *cap_data, *cap_aux;
	char capdir[96];
	unsigned long long sink0;
	pid_t root;
	pid_t joined[MAXPIDS];
	int njoined;
	pid_t left[MAXPIDS];
	uint32_t left_reason[MAXPIDS];
	int nleft;
	struct tidinfo tids[MAXTIDS];
	int ntids;
	pid_t prog_tids[32];
	int nprog_tids;
	pid_t prog_child;
	int prog_cpus[8], nprog_cpus;
	unsigned int flags;
};

/* ---- the emulator ---- */

static unsigned long long cs_stat(const char *comp, const char *key)
{
	char path[128], k[64], line[256];
	unsigned long long v, r = ~0ULL;
	FILE *f;

	snprintf(path, sizeof(path), CSEMU "/%s/stats", comp);
	f = fopen(path, "r");
	if (!f)
		return ~0ULL;
	while (fgets(line, sizeof(line), f))
		if (sscanf(line, "%63s %llu", k, &v) == 2 && !strcmp(k, key))
			r = v;
	fclose(f);
	return r;
}

static unsigned long long etm_stat(int cpu, const char *key)
{
	char c[16];

	snprintf(c, sizeof(c), "etm%d", cpu);
	return cs_stat(c, key);
}

static unsigned long long violations(void)
{
	unsigned long long v = ~0ULL;
	FILE *f = fopen(CSEMU "/violations", "r");

	if (f) {
		if (fscanf(f, "%llu", &v) != 1)
			v = ~0ULL;
		fclose(f);
	}
	return v;
}

/* The oracle of one ETM: process -> bytes; other and remote. */
static int emu_tasks(int cpu, pid_t *pids, unsigned long long *bytes, int max,
		     unsigned long long *other, unsigned long long *remote)
{
	char path[96], k[32];
	unsigned long long v;
	FILE *f;
	int n = 0;

	snprintf(path, sizeof(path), CSEMU "/etm%d/tasks", cpu);
	f = fopen(path, "r");
	if (!f)
		return -1;
	*other = *remote = 0;
	while (fscanf(f, "%31s %llu", k, &v) == 2) {
		if (!strcmp(k, "other")) {
			*other = v;
		} else if (!strcmp(k, "remote")) {
			*remote = v;
		} else if (n < max) {
			pids[n] = atoi(k);
			bytes[n++] = v;
		}
	}
	fclose(f);
	return n;
}

static void emu_clear_tasks(void)
{
	char path[96];
	int c;

	for (c = 0; c < NCPU; c++) {
		snprintf(path, sizeof(path), CSEMU "/etm%d/tasks", c);
		TBT_CHECK(write_file(path, "0") == 0, "clear etm%d/tasks", c);
	}
}

/* No ETM enabled, waiting up to a second (a drain cycle may be running). */
static int etms_off(void)
{
	int i, c, on = 0;

	for (i = 0; i < 50; i++) {
		on = 0;
		for (c = 0; c < NCPU; c++)
			on |= etm_stat(c, "enabled") != 0;
		if (!on)
			return 1;
		msleep(20);
	}
	return 0;
}

/* ---- sessions ---- */

static long read_param(const char *name)
{
	char path[128], buf[32];
	ssize_t n;
	int fd;

	snprintf(path, sizeof(path), PARAM "%s", name);
	fd = open(path, O_RDONLY);
	if (fd < 0)
		return -1000;
	n = read(fd, buf, sizeof(buf) - 1);
	close(fd);
	if (n <= 0)
		return -1000;
	buf[n] = 0;
	return strtol(buf, NULL, 10);
}

static void set_param(const char *name, long v)
{
	char path[128], val[32];

	snprintf(path, sizeof(path), PARAM "%s", name);
	snprintf(val, sizeof(val), "%ld", v);
	TBT_CHECK(write_file(path, val) == 0 && read_param(name) == v, "set %s=%ld", name, v);
}

/* One session over both CPUs (their shared sink). 0 or -errno. */
static int task_setup(struct tracebuf_session *s, pid_t pid, unsigned int flags)
{
	uint64_t bits = (1U << NCPU) - 1;
	struct tracebuf_setup su = {
		.target = TRACEBUF_TARGET_TASK, .pid = pid, .flags = flags,
		.cpuset_ptr = (uintptr_t)&bits, .cpuset_size = sizeof(bits),
	};
	int ret;

	snprintf(su.backend, sizeof(su.backend), "coresight");
	ret = tracebuf_open(s, 0);
	return ret ? ret : tracebuf_setup(s, &su);
}

static int run_open(struct run *r, pid_t pid, unsigned int flags)
{
	void *p;
	int ret, i;

	r->root = pid;
	r->flags = flags;
	if (!r->aux_size)
		r->aux_size = AUX_SIZE;
	for (i = 0; i < 128; i++)
		r->id_cpu[i] = -1;
	ret = task_setup(&r->s, pid, flags);
	if (!ret)
		ret = tracebuf_map(&r->s, DATA_SIZE, 0);
	if (ret) {
		tracebuf_close(&r->s);
		return ret;
	}
	r->s.ctl->aux_offset = PAGE + 2 * r->s.data_size;
	r->s.ctl->aux_size = r->aux_size;
	p = mmap(NULL, r->aux_size, PROT_READ | PROT_WRITE, MAP_SHARED, r->s.fd,
		 PAGE + 2 * r->s.data_size);
	if (p == MAP_FAILED) {
		ret = -errno;
		tracebuf_close(&r->s);
		return ret;
	}
	r->aux = p;
	r->next = r->s.ctl->aux_head;
	return 0;
}

static void run_close(struct run *r)
{
	int c;

	for (c = 0; c < NCPU; c++) {
		free(r->c[c].ev);
		r->c[c].ev = NULL;
	}
	if (r->aux)
		munmap(r->aux, r->aux_size);
	r->aux = NULL;
	tracebuf_close(&r->s);
	if (r->cap_data)
		fclose(r->cap_data);
	if (r->cap_aux)
		fclose(r->cap_aux);
	r->cap_data = r->cap_aux = NULL;
}

static void cap_files(struct run *r)
{
	char path[160];

	mkdir("/tmp/cap", 0755);
	snprintf(r->capdir, sizeof(r->capdir), "/tmp/cap/cstask-%s", r->name);
	mkdir(r->capdir, 0755);
	snprintf(path, sizeof(path), "%s/cpu0.data", r->capdir);
	r->cap_data = fopen(path, "w");
	snprintf(path, sizeof(path), "%s/cpu0.aux", r->capdir);
	r->cap_aux = fopen(path, "w");
	TBT_CHECK(r->cap_data && r->cap_aux, "capture files in %s", r->capdir);
}

static struct tidinfo *tid_note(struct run *r, uint32_t pid, uint32_t tid)
{
	int i;

	for (i = 0; i < r->ntids; i++)
		if (r->tids[i].tid == tid)
			return &r->tids[i];
	if (r->ntids == MAXTIDS)
		return &r->tids[MAXTIDS - 1];
	r->tids[r->ntids].pid = pid;
	r->tids[r->ntids].tid = tid;
	return &r->tids[r->ntids++];
}

static struct tidinfo *find_tid(struct run *r, pid_t tid)
{
	int i;

	for (i = 0; i < r->ntids; i++)
		if ((pid_t)r->tids[i].tid == tid)
			return &r->tids[i];
	return NULL;
}

static int pid_in(const pid_t *set, int n, pid_t pid)
{
	int i;

	for (i = 0; i < n; i++)
		if (set[i] == pid)
			return 1;
	return 0;
}

static int traced_pid(const struct run *r, pid_t pid)
{
	return pid == r->root || pid_in(r->joined, r->njoined, pid);
}

/* ---- the formatted stream ---- */

/*
 * A data byte of trace ID id in the frame at aux position at. Its CPU's
 * SWITCH records at or before at apply first: a record's aux_offset may
 * be ahead of the head published when it was written (a shared ETR that
 * runs on: include/uapi/tracebuf.h, struct tracebuf_rec_switch).
 */
static void id_byte(struct run *r, int id, uint64_t at)
{
	struct cpust *c;
	int cpu;

	if (!id)
		return;		/* the null ID: padding */
	r->id_total++;
	cpu = r->id_cpu[id];
	if (cpu < 0 || cpu >= NCPU) {
		r->unknown_id++;
		return;
	}
	c = &r->c[cpu];
	for (; c->iev < c->nev && c->ev[c->iev].pos <= at; c->iev++) {
		c->in = c->ev[c->iev].in;
		c->cur_pid = c->ev[c->iev].pid;
		c->cur_tid = c->ev[c->iev].tid;
	}
	if (!r->c[cpu].in) {
		if (!r->unattributed++) {
			r->first_bad = at;
			r->first_bad_id = id;
		}
		return;
	}
	r->c[cpu].id_bytes++;
	tid_note(r, r->c[cpu].cur_pid, r->c[cpu].cur_tid)->bytes++;
}

/*
 * A 16-byte TMC frame (CoreSight Architecture Specification, the
 * formatter): even bytes are an ID (bit 0 set) or data whose bit 0 is in
 * byte 15; after an ID, byte 15's flag says whether the next byte is
 * still the previous ID's.
 */
static void deframe(struct run *r, const unsigned char *f, uint64_t at)
{
	unsigned int i;
	int id = r->cur_id;

	for (i = 0; i < 8; i++) {
		unsigned char b = f[2 * i], flag = (f[15] >> i) & 1;

		if (b & 1) {
			if (i < 7 && flag) {
				id_byte(r, id, at);
				id = b >> 1;
				continue;
			}
			id = b >> 1;
		} else {
			id_byte(r, id, at);
		}
		if (i < 7)
			id_byte(r, id, at);
	}
	r->cur_id = id;
}

static void stream_bytes(struct run *r, uint64_t off, uint64_t len)
{
	uint64_t i;

	for (i = 0; i < len; i++) {
		r->fr[r->nfr++] = r->aux[(off + i) & (r->aux_size - 1)];
		if (r->nfr == 16) {
			deframe(r, r->fr, off + i - 15);
			r->nfr = 0;
		}
	}
}

/* Consume the records, checking the attribution of every byte. */
static void consume_run(struct run *r)
{
	const struct tracebuf_record *rec;

	while ((rec = tracebuf_peek(&r->s)) != NULL) {
		r->records++;
		r->data_bytes += rec->hdr.size;
		if (r->cap_data)
			fwrite(rec, 1, rec->hdr.size, r->cap_data);
		switch (rec->hdr.type) {
		case TRACEBUF_REC_SWITCH: {
			const struct tracebuf_rec_switch *sw = (const void *)rec;
			struct cpust *c;
			struct tidinfo *ti;

			TBT_CHECK(rec->cpu < NCPU, "%s: SWITCH from cpu%u", r->name, rec->cpu);
			if (rec->cpu >= NCPU)
				break;
			c = &r->c[rec->cpu];
			/* At or ahead of the head; never behind the CPU's last one. */
			TBT_CHECK(sw->aux_offset >= r->next && sw->aux_offset >= c->last_pos &&
				  sw->aux_offset - r->next <= r->aux_size,
				  "%s: cpu%u: SWITCH %s tid %u at %llu, the head is %llu, its last at %llu",
				  r->name, rec->cpu, sw->flags & TRACEBUF_SWITCH_F_OUT ? "OUT" : "IN",
				  sw->tid, (unsigned long long)sw->aux_offset,
				  (unsigned long long)r->next, (unsigned long long)c->last_pos);
			if (sw->aux_offset > r->next)
				r->ahead++;
			c->last_pos = sw->aux_offset;
			if (c->nev == c->evcap) {
				c->evcap = c->evcap ? 2 * c->evcap : 64;
				c->ev = realloc(c->ev, c->evcap * sizeof(*c->ev));
				if (!c->ev) {
					perror("realloc");
					exit(1);
				}
			}
			c->ev[c->nev].pos = sw->aux_offset;
			c->ev[c->nev].pid = sw->pid;
			c->ev[c->nev].tid = sw->tid;
			c->ev[c->nev++].in = !(sw->flags & (TRACEBUF_SWITCH_F_OUT |
							    TRACEBUF_SWITCH_F_BUSY));
			if (sw->flags & TRACEBUF_SWITCH_F_OUT) {
				TBT_CHECK(c->rin && sw->tid == c->rtid,
					  "%s: cpu%u: OUT tid %u, in: %d tid %u", r->name,
					  rec->cpu, sw->tid, c->rin, c->rtid);
				c->rin = 0;
				c->outs++;
				break;
			}
			TBT_CHECK(!c->rin, "%s: cpu%u: IN tid %u while tid %u is in",
				  r->name, rec->cpu, sw->tid, c->rtid);
			TBT_CHECK(traced_pid(r, sw->pid), "%s: cpu%u: IN of pid %u, not traced",
				  r->name, rec->cpu, sw->pid);
			c->ins++;
			if (sw->flags & TRACEBUF_SWITCH_F_BUSY) {
				c->busy++;
				break;
			}
			ti = tid_note(r, sw->pid, sw->tid);
			ti->cpus |= 1U << rec->cpu;
			if (sw->flags & TRACEBUF_SWITCH_F_EXEC)
				ti->exec_ins++;
			c->rin = 1;
			c->rtid = sw->tid;
			break;
		}
		case TRACEBUF_REC_AUX: {
			const struct tracebuf_rec_aux *a = (const void *)rec;
			uint64_t i, ids0 = r->id_total;

			TBT_CHECK(a->aux_offset == r->next, "%s: span at %llu, expected %llu",
				  r->name, (unsigned long long)a->aux_offset,
				  (unsigned long long)r->next);
			r->spans++;
			if (a->flags & TRACEBUF_AUX_F_TRUNCATED)
				r->truncated++;
			stream_bytes(r, a->aux_offset, a->aux_size);
			/* A dropped run that SWITCH records had placed (tb_cs_sink_halt()). */
			if ((a->flags & TRACEBUF_AUX_F_TRUNCATED) && a->aux_size &&
			    r->id_total == ids0)
				r->blank++;
			if (r->cap_aux)
				for (i = 0; i < a->aux_size; i++)
					fputc(r->aux[(a->aux_offset + i) & (r->aux_size - 1)],
					      r->cap_aux);
			r->published += a->aux_size;
			r->next = a->aux_offset + a->aux_size;
			tracebuf_smp_store_release(&r->s.ctl->aux_tail, r->next);
			break;
		}
		case TRACEBUF_REC_ETM: {
			const struct tracebuf_rec_etm *e = (const void *)rec;

			if (e->trace_id < 128)
				r->id_cpu[e->trace_id] = (int)e->etm_cpu;
			break;
		}
		case TRACEBUF_REC_TASK: {
			const struct tracebuf_rec_task *t = (const void *)rec;

			if (t->reason == TRACEBUF_TASK_FORK) {
				TBT_CHECK(traced_pid(r, t->ppid), "%s: FORK of %u by %u, not traced",
					  r->name, t->pid, t->ppid);
				if (!pid_in(r->joined, r->njoined, t->pid) && r->njoined < MAXPIDS)
					r->joined[r->njoined++] = t->pid;
			} else if (t->reason == TRACEBUF_TASK_EXIT ||
				   t->reason == TRACEBUF_TASK_EXEC_PRIV) {
				if (!pid_in(r->left, r->nleft, t->pid) && r->nleft < MAXPIDS) {
					r->left_reason[r->nleft] = t->reason;
					r->left[r->nleft++] = t->pid;
				}
			} else {
				TBT_CHECK(0, "%s: TASK reason %u for %u", r->name, t->reason, t->pid);
			}
			break;
		}
		case TRACEBUF_REC_LOST: {
			const struct tracebuf_rec_lost *l = (const void *)rec;

			if (l->reason == TRACEBUF_LOST_AUX_OVERRUN) {
				r->aux_lost += l->count;
				if (l->flags & TRACEBUF_LOST_F_AT_LEAST)
					r->lost_at_least++;
			} else
				r->lost += l->count;
			break;
		}
		}
		tracebuf_advance(&r->s, rec);
	}
}

/* ---- the programs ---- */

/* Start argv stopped: it waits on *go, then execs. Its stdout: *out. */
static pid_t start_stopped(char *const argv[], int *go, int *out)
{
	int g[2], o[2];
	pid_t pid;
	char c;

	if (pipe(g) || pipe(o))
		return -1;
	pid = fork();
	if (pid == 0) {
		close(g[1]);
		close(o[0]);
		dup2(o[1], 1);
		if (read(g[0], &c, 1) != 1)
			_exit(126);
		execv(argv[0], argv);
		_exit(127);
	}
	close(g[0]);
	close(o[1]);
	*go = g[1];
	*out = o[0];
	return pid;
}

static pid_t spinner(int ms, int cpu)
{
	char a[16], b[16];
	pid_t pid = fork();

	if (pid == 0) {
		snprintf(a, sizeof(a), "%d", ms);
		snprintf(b, sizeof(b), "%d", cpu);
		execl(PROG, PROG, "spin", a, b, (char *)NULL);
		_exit(127);
	}
	return pid;
}

static void parse_output(struct run *r, int fd)
{
	char buf[4096], *line, *save = NULL;
	ssize_t n, len = 0;

	while ((n = read(fd, buf + len, sizeof(buf) - 1 - len)) > 0)
		len += n;
	buf[len] = 0;
	for (line = strtok_r(buf, "\n", &save); line; line = strtok_r(NULL, "\n", &save)) {
		int v;

		if (sscanf(line, "tid %d", &v) == 1 && r->nprog_tids < 32)
			r->prog_tids[r->nprog_tids++] = v;
		else if (sscanf(line, "child %d", &v) == 1)
			r->prog_child = v;
		else if (sscanf(line, "cpu %d", &v) == 1 && r->nprog_cpus < 8)
			r->prog_cpus[r->nprog_cpus++] = v;
	}
}

/* The capture for the host: meta.json (docs/capture-format.md), cscheck.args. */
static void cap_meta(struct run *r)
{
	char path[160], ids[64] = "";
	int lost = r->lost || r->truncated || r->aux_lost;
	size_t n = 0;
	FILE *f;
	int id;

	fclose(r->cap_data);
	fclose(r->cap_aux);
	r->cap_data = r->cap_aux = NULL;
	snprintf(path, sizeof(path), "%s/meta.json", r->capdir);
	f = fopen(path, "w");
	if (!f) {
		TBT_CHECK(0, "%s", path);
		return;
	}
	fprintf(f, "{\"format\":1,\"tool_version\":\"cs_task\",\"backend\":\"coresight\","
		"\"emulated\":true,\"page_size\":%ld,\"data_size\":%u,\"aux_size\":%u,"
		"\"snapshot\":false,\"clock\":\"CLOCK_MONOTONIC\",\"command\":null,"
		"\"target\":\"task\",\"pid\":%d,\"inherit\":%s,\"vdso\":null,"
		"\"cpus\":[0],\"per_cpu\":{\"0\":{\"config\":null,\"generation\":0,"
		"\"caps\":null,\"aux_bytes\":%llu,\"aux_spans\":%llu,"
		"\"aux_truncations\":%llu,\"aux_collisions\":0,\"aux_padding\":%llu,"
		"\"records\":%llu,\"records_lost\":%llu,\"aux_gap_bytes\":0,"
		"\"data_bytes\":%llu,\"error\":null,\"aux_lost_bytes\":%llu,"
		"\"aux_lost_at_least\":%s}},\"lost\":%s,\"complete\":true}\n",
		sysconf(_SC_PAGESIZE), DATA_SIZE, (unsigned int)r->aux_size, r->root,
		r->flags & TRACEBUF_SETUP_F_INHERIT ? "true" : "false",
		(unsigned long long)r->published, (unsigned long long)r->spans,
		(unsigned long long)r->truncated, (unsigned long long)r->s.ctl->aux_padding,
		(unsigned long long)r->records, (unsigned long long)r->lost,
		(unsigned long long)r->data_bytes, (unsigned long long)r->aux_lost,
		r->lost_at_least ? "true" : "false", lost ? "true" : "false");
	fclose(f);
	/* The IDs of the CPUs the program ran on: each has blocks. */
	for (id = 1; id < 128; id++)
		if (r->id_cpu[id] >= 0 && r->id_cpu[id] < NCPU && r->c[r->id_cpu[id]].id_bytes)
			n += snprintf(ids + n, sizeof(ids) - n, "%s0x%x", n ? "," : "", id);
	/*
	 * No --expect-gap with losses: a run dropped whole may take the only
	 * bytes of an ID between two runs that hold none of it, so no ID need
	 * show a jump in its sequence; the guest checks the loss itself
	 * (LOST, TRUNCATED), cscheck that no block is out of sequence.
	 */
	snprintf(path, sizeof(path), "%s/cscheck.args", r->capdir);
	f = fopen(path, "w");
	if (f) {
		fprintf(f, "--ids %s --no-resync\n", ids);
		fclose(f);
	}
}

static void check_run(struct run *r);

/*
 * Trace argv (started stopped) with one session over both CPUs while two
 * untraced spinners run; the common checks.
 */
static int trace_prog_aux(struct run *r, const char *name, char *const argv[],
			  unsigned int flags, uint64_t aux_size, bool capture)
{
	pid_t noise[2];
	int go, out, c, st, rc;

	memset(r, 0, sizeof(*r));
	r->name = name;
	r->aux_size = aux_size;
	rc = run_open(r, start_stopped(argv, &go, &out), flags);
	TBT_CHECK(rc == 0, "%s: session: %s", name, strerror(-rc));
	if (rc) {
		close(go);
		close(out);
		kill(r->root, SIGKILL);
		waitpid(r->root, NULL, 0);
		return -1;
	}
	if (capture)
		cap_files(r);
	noise[0] = spinner(100000, 0);
	noise[1] = spinner(100000, 1);
	msleep(50);
	emu_clear_tasks();
	r->sink0 = cs_stat("sink0", "bytes");
	for (c = 0; c < NCPU; c++)
		r->c[c].etm0 = etm_stat(c, "bytes");
	rc = tracebuf_enable(&r->s);
	TBT_CHECK(rc == 0, "%s: ENABLE: %s", name, strerror(-rc));
	TBT_CHECK(write(go, "g", 1) == 1, "%s: start the program", name);
	close(go);
	while (waitpid(r->root, &st, WNOHANG) == 0) {
		consume_run(r);
		msleep(5);
	}
	TBT_CHECK(WIFEXITED(st) && WEXITSTATUS(st) == 0, "%s: program status %#x", name, st);
	parse_output(r, out);
	close(out);
	/* The process is gone: no ETM runs for it any more. */
	TBT_CHECK(etms_off(), "%s: an ETM still traces after the exit", name);
	rc = tracebuf_disable(&r->s);
	TBT_CHECK(rc == 0, "%s: DISABLE: %s", name, strerror(-rc));
	consume_run(r);
	kill(noise[0], SIGKILL);
	kill(noise[1], SIGKILL);
	waitpid(noise[0], NULL, 0);
	waitpid(noise[1], NULL, 0);
	check_run(r);
	if (capture)
		cap_meta(r);
	run_close(r);
	return 0;
}

static int trace_prog(struct run *r, const char *name, char *const argv[], unsigned int flags)
{
	return trace_prog_aux(r, name, argv, flags, AUX_SIZE, true);
}

/* After a run, DISABLEd and consumed: what every capture must satisfy. */
static void check_run(struct run *r)
{
	unsigned long long bytes[64], other, remote, sum, sink;
	const char *name = r->name;
	pid_t pids[64];
	int c, i, n;

	for (c = 0; c < NCPU; c++) {
		struct cpust *x = &r->c[c];
		unsigned long long produced = etm_stat(c, "bytes") - x->etm0;

		TBT_CHECK(!x->rin, "%s: cpu%d: no OUT for tid %u", name, c, x->rtid);
		/* Every SWITCH position ahead of the head was published since. */
		TBT_CHECK(x->last_pos <= r->next,
			  "%s: cpu%d: a SWITCH record at %llu, beyond the last byte published (%llu)",
			  name, c, (unsigned long long)x->last_pos, (unsigned long long)r->next);
		TBT_CHECK(x->ins == x->outs + x->busy, "%s: cpu%d: %llu IN, %llu OUT, %llu busy",
			  name, c, (unsigned long long)x->ins, (unsigned long long)x->outs,
			  (unsigned long long)x->busy);
		TBT_CHECK(!x->busy, "%s: cpu%d: %llu runs untraced (busy)", name, c,
			  (unsigned long long)x->busy);
		/* The oracle: traced processes only, every byte the ETM produced. */
		n = emu_tasks(c, pids, bytes, 64, &other, &remote);
		TBT_CHECK(n >= 0, "%s: no etm%d/tasks", name, c);
		TBT_CHECK(!other && !remote, "%s: etm%d: %llu bytes past the table, %llu remote",
			  name, c, other, remote);
		for (i = 0, sum = 0; i < n; i++) {
			TBT_CHECK(traced_pid(r, pids[i]),
				  "%s: etm%d: %llu bytes produced while pid %d (not traced) ran",
				  name, c, bytes[i], pids[i]);
			sum += bytes[i];
		}
		TBT_CHECK(sum == produced, "%s: etm%d: the oracle counts %llu, the ETM produced %llu",
			  name, c, sum, produced);
		/* Nothing lost: the stream holds every byte of its trace ID. */
		if (!r->aux_lost && !r->truncated)
			TBT_CHECK(x->id_bytes == produced,
				  "%s: cpu%d: %llu bytes of its trace ID in the stream, ETM produced %llu",
				  name, c, (unsigned long long)x->id_bytes, produced);
		printf("%s: cpu%d: %llu IN, oracle %llu bytes in %d processes, stream %llu\n",
		       name, c, (unsigned long long)x->ins, sum, n,
		       (unsigned long long)x->id_bytes);
	}
	TBT_CHECK(!r->unattributed, "%s: %llu bytes outside their CPU's IN..OUT (first: ID %#x at %llu)",
		  name, (unsigned long long)r->unattributed, r->first_bad_id,
		  (unsigned long long)r->first_bad);
	TBT_CHECK(!r->unknown_id, "%s: %llu bytes of a trace ID no ETM record names", name,
		  (unsigned long long)r->unknown_id);
	TBT_CHECK(!r->nfr, "%s: the stream ends in a partial frame (%u bytes)", name, r->nfr);
	TBT_CHECK(!r->lost, "%s: %llu records lost", name, (unsigned long long)r->lost);
	/*
	 * Every byte the sink wrote is published or counted lost; exactly,
	 * unless a LOST record says its count is a lower bound (an ETR that
	 * wrapped: the laps it wrote over cannot be seen).
	 */
	sink = cs_stat("sink0", "bytes") - r->sink0;
	TBT_CHECK(r->lost_at_least ?
		  sink + r->s.ctl->aux_padding >= r->published + r->aux_lost :
		  sink + r->s.ctl->aux_padding == r->published + r->aux_lost,
		  "%s: sink wrote %llu + padding %llu, published %llu + lost %llu", name, sink,
		  (unsigned long long)r->s.ctl->aux_padding, (unsigned long long)r->published,
		  (unsigned long long)r->aux_lost);
	TBT_CHECK(violations() == 0, "%s: emulator violations %llu", name, violations());
	TBT_CHECK(r->published > 0, "%s: nothing traced", name);
	printf("%s: %llu bytes in %d threads, %llu spans (%llu of null frames), lost %llu, joined %d, left %d, %llu SWITCH records ahead of the head\n",
	       name, (unsigned long long)r->published, r->ntids, (unsigned long long)r->spans,
	       (unsigned long long)r->blank, (unsigned long long)r->aux_lost, r->njoined,
	       r->nleft, (unsigned long long)r->ahead);
	for (i = 0; i < r->ntids; i++)
		printf("  pid %u tid %u cpus %#x bytes %llu exec %u\n", r->tids[i].pid,
		       r->tids[i].tid, r->tids[i].cpus, (unsigned long long)r->tids[i].bytes,
		       r->tids[i].exec_ins);
}

static void test_threads(void)
{
	char *argv[] = { PROG, "threads", "4", "150", NULL };
	struct run r;
	int i;

	if (trace_prog(&r, "threads", argv, 0))
		return;
	TBT_CHECK(r.nprog_tids == 4, "threads: program reported %d threads", r.nprog_tids);
	/* Four threads on two CPUs with spinners: some leave while the other CPU traces. */
	TBT_CHECK(r.ahead > 0, "threads: no SWITCH record was placed ahead of the head");
	for (i = 0; i < r.nprog_tids; i++) {
		struct tidinfo *t = find_tid(&r, r.prog_tids[i]);

		TBT_CHECK(t && t->bytes > 0, "threads: thread %d has no trace", r.prog_tids[i]);
	}
	TBT_CHECK(find_tid(&r, r.root) && find_tid(&r, r.root)->exec_ins >= 1,
		  "threads: no EXEC run for the main thread");
	TBT_CHECK(r.nleft == 1 && r.left[0] == r.root && r.left_reason[0] == TRACEBUF_TASK_EXIT,
		  "threads: left %d (%d)", r.nleft, r.nleft ? r.left[0] : 0);
}

static void test_migrate(void)
{
	char *argv[] = { PROG, "migrate", "150", NULL };
	struct tidinfo *t;
	struct run r;

	if (trace_prog(&r, "migrate", argv, 0))
		return;
	TBT_CHECK(r.nprog_cpus == 3 && r.prog_cpus[0] == 0 && r.prog_cpus[1] == 1 &&
		  r.prog_cpus[2] == 0, "migrate: program ran on %d CPUs", r.nprog_cpus);
	t = find_tid(&r, r.root);
	TBT_CHECK(t && t->cpus == 3 && t->bytes > 0, "migrate: thread traced on CPUs %#x",
		  t ? t->cpus : 0);
	TBT_CHECK(r.c[0].id_bytes > 0 && r.c[1].id_bytes > 0,
		  "migrate: bytes of both CPUs' trace IDs: %llu, %llu",
		  (unsigned long long)r.c[0].id_bytes, (unsigned long long)r.c[1].id_bytes);
}

static void test_forkexec(void)
{
	char *argv[] = { PROG, "forkexec", "150", NULL };
	struct tidinfo *t;
	struct run r;

	if (trace_prog(&r, "forkexec", argv, TRACEBUF_SETUP_F_INHERIT))
		return;
	TBT_CHECK(r.prog_child > 0, "forkexec: no child reported");
	TBT_CHECK(r.njoined == 1 && r.joined[0] == r.prog_child,
		  "forkexec: %d joined (%d), child %d", r.njoined, r.njoined ? r.joined[0] : 0,
		  r.prog_child);
	t = find_tid(&r, r.prog_child);
	TBT_CHECK(t && t->bytes > 0 && t->exec_ins >= 1,
		  "forkexec: child %d: %llu bytes, %u exec runs", r.prog_child,
		  t ? (unsigned long long)t->bytes : 0ULL, t ? t->exec_ins : 0);
	TBT_CHECK(pid_in(r.left, r.nleft, r.prog_child) && pid_in(r.left, r.nleft, r.root),
		  "forkexec: %d left", r.nleft);
}

/* Without inherit the child is not followed: no byte of it (the oracle too). */
static void test_noinherit(void)
{
	char *argv[] = { PROG, "forkexec", "150", NULL };
	struct run r;

	if (trace_prog(&r, "noinherit", argv, 0))
		return;
	TBT_CHECK(r.njoined == 0, "noinherit: %d joined", r.njoined);
	TBT_CHECK(r.prog_child > 0 && !find_tid(&r, r.prog_child),
		  "noinherit: the child %d was traced", r.prog_child);
}

static void test_exit(void)
{
	char *argv[] = { PROG, "exit", "150", NULL };
	struct run r;

	/* trace_prog checks no ETM runs after the exit. */
	if (trace_prog(&r, "exit", argv, 0))
		return;
	TBT_CHECK(r.ntids == 2, "exit: %d threads traced", r.ntids);
}

/*
 * Overruns on the shared ETR (module/coresight.c, tb_cs_place() and the
 * drain cycle): a 64 KiB AUX ring and drain cycles 200 ms apart, while
 * each ETM writes 8 KiB per millisecond (tb_csemu's rate), so the ETR
 * wraps (STS.Full) within a few milliseconds of tracing. Threads leave their CPU (SWITCH
 * OUT, the other ETM tracing on) before and after it wrapped: their
 * SWITCH records are placed ahead of the published head, in the running
 * buffer, and a run that then wraps is published as null frames (no
 * byte of it is where the records said), counted lost. check_run() still
 * holds: no byte outside its CPU's IN..OUT, every byte published or
 * counted lost (at least), the oracle's counts; and the capture decodes
 * (cscheck: no block out of sequence, so no byte a consumer read was
 * overwritten).
 */
static void test_overrun(void)
{
	char *argv[] = { PROG, "threads", "4", "300", NULL };
	long drain = read_param("drain_ms");
	struct run r;
	int rc;

	TBT_CHECK(drain > 0, "drain_ms: %ld", drain);
	set_param("drain_ms", 200);
	TBT_CHECK(write_file(CSEMU "/rate", "8192") == 0, "tb_csemu rate 8192");
	rc = trace_prog_aux(&r, "overrun", argv, 0, 64 * 1024, true);
	TBT_CHECK(write_file(CSEMU "/rate", "2048") == 0, "tb_csemu rate back to 2048");
	set_param("drain_ms", drain);
	if (rc)
		return;
	TBT_CHECK(r.aux_lost > 0 && r.truncated > 0 && r.lost_at_least > 0,
		  "overrun: the ETR never wrapped (lost %llu, %llu truncated spans, %llu at least)",
		  (unsigned long long)r.aux_lost, (unsigned long long)r.truncated,
		  (unsigned long long)r.lost_at_least);
	TBT_CHECK(r.nprog_tids == 4, "overrun: program reported %d threads", r.nprog_tids);
}

/*
 * A shared ETF as the sink (tb_csemu topology=shared sink=etf: both ETMs
 * into one TMC in circular-buffer mode, 64 KiB of SRAM read out word by
 * word once stopped): a thread leaving its CPU while the other traces on
 * is placed by RWP from RRP, where the copy-out starts (tb_cs_place()),
 * so its SWITCH records lie ahead of the head and check_run()'s
 * attribution by position holds as with the ETR. The last thread leaving
 * (in the scheduler, interrupts off) only stops the SRAM; the drain
 * cycle reads it out, at most 1 KiB per stretch of interrupts off (the
 * emulator's oracle, sink0/stats rrd_irqoff_max), and its OUT record is
 * at the copy's end (tb_cs_sram_stop()).
 */
static void test_etf(void)
{
	static const char *const etf[] = { "modprobe", "tb_csemu", "topology=shared",
					   "sink=etf", NULL };
	static const char *const juno[] = { "modprobe", "tb_csemu", "topology=juno", NULL };
	char *argv[] = { PROG, "threads", "4", "150", NULL };
	unsigned long long m;
	struct run r;

	tbt_rmmod("tb_csemu");
	TBT_CHECK(tbt_run(etf) == 0, "modprobe tb_csemu topology=shared sink=etf");
	if (!trace_prog(&r, "etf", argv, 0)) {
		TBT_CHECK(r.nprog_tids == 4, "etf: program reported %d threads", r.nprog_tids);
		TBT_CHECK(r.ahead > 0, "etf: no SWITCH record was placed ahead of the head");
	}
	m = cs_stat("sink0", "rrd_irqoff_max");
	TBT_CHECK(m > 0 && m <= 1024,
		  "etf: at most 1024 bytes read through RRD per stretch of interrupts off (%llu)", m);
	tbt_rmmod("tb_csemu");
	TBT_CHECK(tbt_run(juno) == 0, "modprobe tb_csemu topology=juno");
}

/* SETUP's errors for the per-task target on CoreSight. */
static void test_setup_errors(void)
{
	struct tracebuf_session a, b;
	pid_t z;
	int rc;

	z = fork();
	if (z == 0)
		_exit(0);
	waitpid(z, NULL, 0);
	rc = task_setup(&a, z, 0);
	TBT_CHECK(rc == -ESRCH, "reaped pid: %s", strerror(-rc));
	tracebuf_close(&a);
	rc = task_setup(&a, 0, 0);
	TBT_CHECK(rc == 0, "pid 0: %s", strerror(-rc));
	rc = task_setup(&b, getpid(), 0);
	TBT_CHECK(rc == -EBUSY, "same process, same CPUs: %s", strerror(-rc));
	tracebuf_close(&b);
	tracebuf_close(&a);
	rc = task_setup(&b, getpid(), 0);
	TBT_CHECK(rc == 0, "after close: %s", strerror(-rc));
	tracebuf_close(&b);
}

/* ---- permissions, as uid 65534 ---- */

static void become_nobody(void)
{
	if (setgroups(0, NULL) || setgid(NOBODY) || setuid(NOBODY) ||
	    prctl(PR_SET_DUMPABLE, 1, 0, 0, 0)) {
		printf("cannot become uid %d: %s\n", NOBODY, strerror(errno));
		fflush(stdout);
		_exit(3);
	}
}

static int as_nobody(void (*fn)(void *), void *arg)
{
	pid_t pid;
	int st;

	fflush(stdout);
	pid = fork();
	if (pid == 0) {
		tbt_failures = 0;	/* the child's own verdict */
		become_nobody();
		fn(arg);
		fflush(stdout);
		_exit(tbt_failures ? 1 : 0);
	}
	if (pid < 0 || waitpid(pid, &st, 0) != pid)
		return -1;
	return WIFEXITED(st) ? WEXITSTATUS(st) : 128 + WTERMSIG(st);
}

/* Its own child, traced: the common checks (the oracle may not be read: root's). */
static void c_own(void *p __attribute__((unused)))
{
	char *argv[] = { PROG, "spin", "300", NULL };
	int go, out, rc, st;
	struct run r;

	memset(&r, 0, sizeof(r));
	r.name = "own";
	rc = run_open(&r, start_stopped(argv, &go, &out), 0);
	TBT_CHECK(rc == 0, "own process: SETUP/map: %s", strerror(-rc));
	if (!rc) {
		rc = tracebuf_enable(&r.s);
		TBT_CHECK(rc == 0, "own process: ENABLE: %s", strerror(-rc));
	}
	TBT_CHECK(write(go, "g", 1) == 1, "go");
	close(go);
	while (waitpid(r.root, &st, WNOHANG) == 0) {
		consume_run(&r);
		msleep(5);
	}
	if (!rc) {
		tracebuf_disable(&r.s);
		consume_run(&r);
		TBT_CHECK(r.published > 0 && r.c[0].ins + r.c[1].ins > 0 && !r.unattributed &&
			  !r.unknown_id && !r.c[0].rin && !r.c[1].rin,
			  "own process: %llu bytes, %llu IN, %llu unattributed",
			  (unsigned long long)r.published,
			  (unsigned long long)(r.c[0].ins + r.c[1].ins),
			  (unsigned long long)r.unattributed);
	}
	run_close(&r);
	close(out);
}

/* Another user's process: pid 1 (root's init), and root's child. */
static void c_other(void *p)
{
	struct tracebuf_session s;
	int rc;

	rc = task_setup(&s, 1, 0);
	TBT_CHECK(rc == -EACCES, "uid %d tracing pid 1: %s", NOBODY, strerror(-rc));
	tracebuf_close(&s);
	rc = task_setup(&s, *(pid_t *)p, 0);
	TBT_CHECK(rc == -EACCES, "uid %d tracing root's %d: %s", NOBODY, *(pid_t *)p,
		  strerror(-rc));
	tracebuf_close(&s);
}

static void test_permissions(void)
{
	char *sleeper[] = { PROG, "sleep", "3000", NULL };
	unsigned long long bytes[64], other, remote;
	pid_t root_pid, pids[64];
	struct stat st;
	int go, out, c, i, n;
	mode_t mode;

	TBT_CHECK(stat(TRACEBUF_DEVICE, &st) == 0, "stat");
	mode = st.st_mode & 0777;
	TBT_CHECK(chmod(TRACEBUF_DEVICE, 0666) == 0, "chmod");
	set_param("paranoid", 2);
	emu_clear_tasks();
	TBT_CHECK(as_nobody(c_own, NULL) == 0, "own process at paranoid 2");
	/* Only uid 65534's processes ran with an ETM on. */
	for (c = 0; c < NCPU; c++) {
		n = emu_tasks(c, pids, bytes, 64, &other, &remote);
		for (i = 0; i < n; i++) {
			char path[64];

			snprintf(path, sizeof(path), "/proc/%d", pids[i]);
			TBT_CHECK(stat(path, &st) != 0 || st.st_uid == NOBODY,
				  "own: etm%d: %llu bytes while pid %d (uid %u) ran", c, bytes[i],
				  pids[i], st.st_uid);
		}
	}
	root_pid = start_stopped(sleeper, &go, &out);
	TBT_CHECK(as_nobody(c_other, &root_pid) == 0, "another user's process");
	close(go);
	waitpid(root_pid, NULL, 0);
	close(out);
	TBT_CHECK(chmod(TRACEBUF_DEVICE, mode) == 0, "restore the device mode");
	TBT_CHECK(violations() == 0, "permissions: emulator violations");
}

int main(void)
{
	static const char *const emu[] = { "modprobe", "tb_csemu", "topology=juno", NULL };

	setvbuf(stdout, NULL, _IONBF, 0);
#ifndef __aarch64__
	printf("no CoreSight emulator on this architecture: skip\n");
	return 77;
#endif
	if (sysconf(_SC_NPROCESSORS_ONLN) < NCPU) {
		printf("needs %d CPUs\n", NCPU);
		return 1;
	}
	TBT_CHECK(tbt_modprobe("tracebuf") == 0, "modprobe tracebuf");
	if (tbt_module_loaded("tb_csemu"))
		tbt_rmmod("tb_csemu");
	TBT_CHECK(tbt_run(emu) == 0, "modprobe tb_csemu topology=juno");
	test_setup_errors();
	test_threads();
	test_migrate();
	test_forkexec();
	test_noinherit();
	test_exit();
	test_overrun();
	test_etf();
	test_permissions();
	TBT_CHECK(violations() == 0, "emulator violations at the end");
	tbt_rmmod("tb_csemu");
	tbt_rmmod("tracebuf");
	return tbt_done();
}
