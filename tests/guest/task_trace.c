// SPDX-License-Identifier: GPL-2.0
/*
 * The per-task target (TRACEBUF_TARGET_TASK, module/task.c) with the Intel
 * PT emulator: one session per CPU traces one process started stopped
 * (fork, set up, then exec, as perf starts its workload), while untraced
 * spinners compete for both CPUs. The programs are tests/guest/taskprog.c.
 *
 * For every capture, from the records alone (the guest):
 *  - SWITCH records alternate IN, OUT per CPU; each AUX span lies between
 *    an IN and its OUT, contiguous with them (IN's aux_offset is where the
 *    thread's bytes start, OUT's where they end), so every byte is
 *    attributed to exactly one thread; a thread's first bytes on a CPU
 *    start with a PSB (a decoder can start there);
 *  - the emulator's oracle (cpuN/tasks: the process current while it
 *    produced bytes) names traced processes only: no byte while an
 *    untraced task (the spinners, idle, kernel threads) ran;
 *  - every byte the emulator wrote is in a span (bytes_written identity);
 *  - per program: every thread it reports ran traced (threads); the
 *    migrating thread has IN records on both CPUs (migrate); the forked
 *    child joins (TASK FORK), runs traced after its exec (SWITCH EXEC) and
 *    leaves (TASK EXIT) (forkexec); a process exiting while its threads
 *    run traced leaves no CPU tracing (exit).
 * The captures go to the host (ptcheck: zero decode errors, the PTW
 * sequence of each CPU continuous).
 *
 * Also: SETUP errors (ESRCH, EINVAL, EBUSY for a second session on the
 * same process and CPU); closing the sessions while the traced process
 * runs on the other CPU; CPU hotplug while tracing; permissions as uid
 * 65534 (its own process: allowed at paranoid 2, refused at 3; another
 * user's: EACCES; kernel=1 at paranoid 1 only, and ENABLE checks it
 * again; exec of a set-user-ID program: the process leaves, TASK
 * EXEC_PRIV, nothing of it traced after).
 */
#include <grp.h>
#include <sched.h>
#include <signal.h>
#include <sys/prctl.h>
#include <sys/resource.h>

#include "ptcap.h"

#define PARAM		"/sys/module/tracebuf/parameters/"
#define PROG		"/tests/taskprog"
#define SUIDPROG	"/tmp/suidprog"
#define NOBODY		65534
#define NCPU		2
#define DATA_SIZE	(256 * 1024)
#define MAXPIDS		64
#define MAXTIDS		256

static uint64_t aux_size = 512 * 1024;	/* the follow test takes more */

static const unsigned char psb[16] = {
	2, 0x82, 2, 0x82, 2, 0x82, 2, 0x82, 2, 0x82, 2, 0x82, 2, 0x82, 2, 0x82,
};

/* One CPU's session and what its records said. */
struct tsess {
	struct tracebuf_session s;
	int cpu;
	unsigned char *aux;
	uint64_t aux_tail, next;
	int in;			/* between an IN and its OUT */
	uint32_t cur_pid, cur_tid;
	uint64_t in_at;		/* aux_offset of that IN */
	uint64_t published, ins, outs, busy, lost, truncated;
	FILE *cap_aux, *cap_spans;
	unsigned long long ptw0, written0, dropped0;
};

struct tidinfo {
	uint32_t pid, tid;
	unsigned int cpus;	/* bit per CPU it ran traced on */
	uint64_t bytes;
	unsigned int exec_ins;	/* IN records flagged EXEC */
};

struct run {
	const char *name;
	struct tsess x[NCPU];
	pid_t root;
	pid_t joined[MAXPIDS];	/* TASK FORK, deduplicated */
	int njoined;
	pid_t left[MAXPIDS];	/* TASK EXIT / EXEC_PRIV */
	uint32_t left_reason[MAXPIDS];
	int nleft;
	struct tidinfo tids[MAXTIDS];
	int ntids;
	/* what the program printed */
	pid_t prog_tids[32];
	int nprog_tids;
	pid_t prog_child;
	int prog_cpus[8], nprog_cpus;
	unsigned int exec_priv_seen;	/* per CPU: EXEC_PRIV record consumed */
	pid_t exec_priv_pid;
	unsigned int in_after_priv;	/* IN records of it after that */
	int follow;			/* a follow-mode capture (test_follow) */
};

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

static int task_setup(struct tracebuf_session *s, pid_t pid, int cpu, unsigned int flags)
{
	struct tracebuf_setup su = {
		.target = TRACEBUF_TARGET_TASK, .cpu = cpu, .pid = pid, .flags = flags,
	};
	int ret;

	snprintf(su.backend, sizeof(su.backend), "intel_pt");
	ret = tracebuf_open(s, 0);
	return ret ? ret : tracebuf_setup(s, &su);
}

/* Returns 0 or -errno. */
static int tsess_open(struct tsess *x, pid_t pid, int cpu, unsigned int flags)
{
	void *p;
	int ret;

	memset(x, 0, sizeof(*x));
	x->cpu = cpu;
	ret = task_setup(&x->s, pid, cpu, flags);
	if (!ret)
		ret = tracebuf_map(&x->s, DATA_SIZE, 0);
	if (ret) {
		tracebuf_close(&x->s);
		return ret;
	}
	x->s.ctl->aux_offset = PAGE + 2 * x->s.data_size;
	x->s.ctl->aux_size = aux_size;
	p = mmap(NULL, aux_size, PROT_READ | PROT_WRITE, MAP_SHARED, x->s.fd,
		 PAGE + 2 * x->s.data_size);
	if (p == MAP_FAILED) {
		ret = -errno;
		tracebuf_close(&x->s);
		return ret;
	}
	x->aux = p;
	x->aux_tail = x->next = x->s.ctl->aux_head;
	return 0;
}

static void tsess_close(struct tsess *x)
{
	if (x->aux)
		munmap(x->aux, aux_size);
	x->aux = NULL;
	tracebuf_close(&x->s);
	if (x->cap_aux)
		fclose(x->cap_aux);
	if (x->cap_spans)
		fclose(x->cap_spans);
	x->cap_aux = x->cap_spans = NULL;
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

/* Consume one CPU's records, checking the attribution of every byte. */
static void consume_one(struct run *r, struct tsess *x)
{
	const struct tracebuf_record *rec;

	while ((rec = tracebuf_peek(&x->s)) != NULL) {
		switch (rec->hdr.type) {
		case TRACEBUF_REC_SWITCH: {
			const struct tracebuf_rec_switch *sw = (const void *)rec;
			struct tidinfo *ti;

			TBT_CHECK(rec->cpu == (uint32_t)x->cpu, "%s: cpu%d: SWITCH from cpu%u",
				  r->name, x->cpu, rec->cpu);
			TBT_CHECK(sw->aux_offset == x->next,
				  "%s: cpu%d: SWITCH %s tid %u at %llu, bytes end at %llu",
				  r->name, x->cpu, sw->flags & TRACEBUF_SWITCH_F_OUT ? "OUT" : "IN",
				  sw->tid, (unsigned long long)sw->aux_offset,
				  (unsigned long long)x->next);
			if (sw->flags & TRACEBUF_SWITCH_F_OUT) {
				TBT_CHECK(x->in && sw->tid == x->cur_tid,
					  "%s: cpu%d: OUT tid %u, in: %d tid %u", r->name,
					  x->cpu, sw->tid, x->in, x->cur_tid);
				x->in = 0;
				x->outs++;
				if (x->cap_spans)
					fprintf(x->cap_spans, "# out %u %u %llu\n", sw->pid,
						sw->tid, (unsigned long long)sw->aux_offset);
				break;
			}
			TBT_CHECK(!x->in, "%s: cpu%d: IN tid %u while tid %u is in",
				  r->name, x->cpu, sw->tid, x->cur_tid);
			TBT_CHECK(traced_pid(r, sw->pid), "%s: cpu%d: IN of pid %u, not traced",
				  r->name, x->cpu, sw->pid);
			x->ins++;
			if (sw->flags & TRACEBUF_SWITCH_F_BUSY) {
				x->busy++;
				break;
			}
			ti = tid_note(r, sw->pid, sw->tid);
			ti->cpus |= 1U << x->cpu;
			if (sw->flags & TRACEBUF_SWITCH_F_EXEC)
				ti->exec_ins++;
			if (r->exec_priv_pid && (pid_t)sw->pid == r->exec_priv_pid &&
			    (r->exec_priv_seen & (1U << x->cpu)))
				r->in_after_priv++;
			x->in = 1;
			x->cur_pid = sw->pid;
			x->cur_tid = sw->tid;
			x->in_at = sw->aux_offset;
			if (x->cap_spans)
				fprintf(x->cap_spans, "# in %u %u %llu %llu\n", sw->pid, sw->tid,
					(unsigned long long)sw->aux_offset,
					(unsigned long long)rec->time);
			break;
		}
		case TRACEBUF_REC_AUX: {
			const struct tracebuf_rec_aux *a = (const void *)rec;
			uint64_t i;

			TBT_CHECK(a->aux_offset == x->next, "%s: cpu%d: span at %llu, expected %llu",
				  r->name, x->cpu, (unsigned long long)a->aux_offset,
				  (unsigned long long)x->next);
			if (a->flags & TRACEBUF_AUX_F_TRUNCATED)
				x->truncated++;
			if (!a->aux_size)
				break;
			TBT_CHECK(x->in, "%s: cpu%d: %llu bytes at %llu outside every thread",
				  r->name, x->cpu, (unsigned long long)a->aux_size,
				  (unsigned long long)a->aux_offset);
			if (x->in) {
				tid_note(r, x->cur_pid, x->cur_tid)->bytes += a->aux_size;
				/* A thread's run starts with the hardware's PSB+. */
				if (a->aux_offset == x->in_at && a->aux_size >= sizeof(psb)) {
					unsigned char b[sizeof(psb)];

					for (i = 0; i < sizeof(psb); i++)
						b[i] = x->aux[(a->aux_offset + i) & (aux_size - 1)];
					TBT_CHECK(!memcmp(b, psb, sizeof(psb)),
						  "%s: cpu%d: tid %u's bytes at %llu do not start with PSB",
						  r->name, x->cpu, x->cur_tid,
						  (unsigned long long)a->aux_offset);
				}
			}
			x->published += a->aux_size;
			if (x->cap_aux) {
				for (i = 0; i < a->aux_size; i++)
					fputc(x->aux[(a->aux_offset + i) & (aux_size - 1)], x->cap_aux);
				fprintf(x->cap_spans, "span %llu %llu %llu\n",
					(unsigned long long)a->aux_offset,
					(unsigned long long)a->aux_size,
					(unsigned long long)a->flags);
			}
			x->next = a->aux_offset + a->aux_size;
			x->aux_tail = x->next;
			tracebuf_smp_store_release(&x->s.ctl->aux_tail, x->aux_tail);
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
				if (t->reason == TRACEBUF_TASK_EXEC_PRIV) {
					r->exec_priv_seen |= 1U << x->cpu;
					r->exec_priv_pid = t->pid;
				}
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

			x->lost += l->count;
			break;
		}
		}
		tracebuf_advance(&x->s, rec);
	}
}

static void consume_all(struct run *r)
{
	int c;

	for (c = 0; c < NCPU; c++)
		if (r->x[c].aux)
			consume_one(r, &r->x[c]);
}

/* The emulator's oracle: process -> bytes produced while it was current. */
static int emu_tasks(int cpu, pid_t *pids, unsigned long long *bytes, int max,
		     unsigned long long *other)
{
	char path[96], k[32];
	unsigned long long v;
	FILE *f;
	int n = 0;

	snprintf(path, sizeof(path), EMU "/cpu%d/tasks", cpu);
	f = fopen(path, "r");
	if (!f)
		return -1;
	*other = 0;
	while (fscanf(f, "%31s %llu", k, &v) == 2) {
		if (!strcmp(k, "other")) {
			*other = v;
		} else if (n < max) {
			pids[n] = atoi(k);
			bytes[n++] = v;
		}
	}
	fclose(f);
	return n;
}

static unsigned long long emu_bytes_of(int cpu, pid_t pid)
{
	unsigned long long bytes[64], other, sum = 0;
	pid_t pids[64];
	int i, n = emu_tasks(cpu, pids, bytes, 64, &other);

	for (i = 0; i < n; i++)
		if (pids[i] == pid)
			sum += bytes[i];
	return sum;
}

/* Every byte the emulator produced was produced for a traced process. */
static unsigned long long check_oracle(struct run *r)
{
	unsigned long long bytes[64], other, total = 0;
	pid_t pids[64];
	int c, i, n;

	for (c = 0; c < NCPU; c++) {
		n = emu_tasks(c, pids, bytes, 64, &other);
		TBT_CHECK(n >= 0, "%s: no emulator tasks file for cpu%d", r->name, c);
		TBT_CHECK(!other, "%s: cpu%d: %llu bytes past the oracle's table", r->name, c,
			  other);
		for (i = 0; i < n; i++) {
			TBT_CHECK(traced_pid(r, pids[i]),
				  "%s: cpu%d: %llu bytes produced while pid %d (not traced) ran",
				  r->name, c, bytes[i], pids[i]);
			total += bytes[i];
		}
	}
	return total;
}

static void emu_clear_tasks(void)
{
	int c;

	for (c = 0; c < NCPU; c++)
		TBT_CHECK(emu_knob(c, "tasks", "0") == 0, "clear cpu%d/tasks", c);
}

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
		execl(PROG, PROG, "spin", a, cpu >= 0 ? b : (char *)NULL, (char *)NULL);
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

static void cap_files(struct run *r, struct tsess *x)
{
	char path[128];

	mkdir("/tmp/cap", 0755);
	if (r->follow) {
		snprintf(path, sizeof(path), "/tmp/cap/follow-%s/cpu%d.aux", r->name, x->cpu);
		x->cap_aux = fopen(path, "w");
		snprintf(path, sizeof(path), "/tmp/cap/follow-%s/cpu%d.spans", r->name, x->cpu);
		x->cap_spans = fopen(path, "w");
		TBT_CHECK(x->cap_aux && x->cap_spans, "capture files of %s", path);
		return;
	}
	snprintf(path, sizeof(path), "/tmp/cap/task-%s-cpu%d", r->name, x->cpu);
	mkdir(path, 0755);
	snprintf(path, sizeof(path), "/tmp/cap/task-%s-cpu%d/aux.bin", r->name, x->cpu);
	x->cap_aux = fopen(path, "w");
	snprintf(path, sizeof(path), "/tmp/cap/task-%s-cpu%d/spans.txt", r->name, x->cpu);
	x->cap_spans = fopen(path, "w");
	TBT_CHECK(x->cap_aux && x->cap_spans, "capture files of %s", path);
}

static void cap_emu_file(struct run *r, struct tsess *x)
{
	char path[128];
	FILE *f;

	if (r->follow)
		return;		/* ptfollowcheck: every CPU in one directory */
	/* A CPU the program never ran on: no capture (ptcheck wants bytes). */
	if (!x->published) {
		fclose(x->cap_aux);
		fclose(x->cap_spans);
		x->cap_aux = x->cap_spans = NULL;
		snprintf(path, sizeof(path), "/tmp/cap/task-%s-cpu%d", r->name, x->cpu);
		tbt_run((const char *const[]){ "rm", "-rf", path, NULL });
		return;
	}

	snprintf(path, sizeof(path), "/tmp/cap/task-%s-cpu%d/emu.txt", r->name, x->cpu);
	f = fopen(path, "w");
	if (!f)
		return;
	fprintf(f, "ptw_start %llu\nptw_end %llu\nptw_dropped %llu\n", x->ptw0,
		emu_stat(x->cpu, "ptw_seq"), emu_stat(x->cpu, "ptw_dropped") - x->dropped0);
	fclose(f);
}

static void check_run(struct run *r);

/*
 * Trace argv (started stopped) with one session per CPU while two
 * untraced spinners run; the common checks. r is filled for the caller's.
 */
static int trace_prog(struct run *r, const char *name, char *const argv[], unsigned int flags)
{
	pid_t noise[2];
	int go, out, c, st, rc;

	memset(r, 0, sizeof(*r));
	r->name = name;
	r->root = start_stopped(argv, &go, &out);
	if (r->root < 0)
		return -1;
	for (c = 0; c < NCPU; c++) {
		rc = tsess_open(&r->x[c], r->root, c, flags);
		TBT_CHECK(rc == 0, "%s: cpu%d session: %s", name, c, strerror(-rc));
		if (rc)
			goto fail;
		cap_files(r, &r->x[c]);
	}
	noise[0] = spinner(100000, 0);
	noise[1] = spinner(100000, 1);
	msleep(50);
	emu_clear_tasks();
	for (c = 0; c < NCPU; c++) {
		r->x[c].ptw0 = emu_stat(c, "ptw_seq");
		r->x[c].written0 = emu_stat(c, "bytes_written");
		r->x[c].dropped0 = emu_stat(c, "ptw_dropped");
		rc = tracebuf_enable(&r->x[c].s);
		TBT_CHECK(rc == 0, "%s: cpu%d ENABLE: %s", name, c, strerror(-rc));
	}
	TBT_CHECK(write(go, "g", 1) == 1, "%s: start the program", name);
	close(go);
	while (waitpid(r->root, &st, WNOHANG) == 0) {
		consume_all(r);
		msleep(5);
	}
	TBT_CHECK(WIFEXITED(st) && WEXITSTATUS(st) == 0, "%s: program status %#x", name, st);
	parse_output(r, out);
	close(out);
	/* The process is gone: no CPU traces for it any more. */
	msleep(20);
	for (c = 0; c < NCPU; c++)
		TBT_CHECK(emu_stat(c, "traceen") == 0, "%s: cpu%d still traces after the exit",
			  name, c);
	for (c = 0; c < NCPU; c++) {
		rc = tracebuf_disable(&r->x[c].s);
		TBT_CHECK(rc == 0, "%s: cpu%d DISABLE: %s", name, c, strerror(-rc));
	}
	consume_all(r);
	kill(noise[0], SIGKILL);
	kill(noise[1], SIGKILL);
	waitpid(noise[0], NULL, 0);
	waitpid(noise[1], NULL, 0);

	check_run(r);
	for (c = 0; c < NCPU; c++)
		tsess_close(&r->x[c]);
	return 0;
fail:
	close(go);
	close(out);
	kill(r->root, SIGKILL);
	waitpid(r->root, NULL, 0);
	for (c = 0; c < NCPU; c++)
		tsess_close(&r->x[c]);
	return -1;
}

/* After a run, DISABLEd and consumed: what every capture must satisfy. */
static void check_run(struct run *r)
{
	const char *name = r->name;
	uint64_t published = 0;
	unsigned long long oracle;
	int c, i;

	oracle = check_oracle(r);
	for (c = 0; c < NCPU; c++) {
		struct tsess *x = &r->x[c];

		TBT_CHECK(!x->in, "%s: cpu%d: no OUT for tid %u", name, c, x->cur_tid);
		TBT_CHECK(x->ins == x->outs + x->busy, "%s: cpu%d: %llu IN, %llu OUT, %llu busy",
			  name, c, (unsigned long long)x->ins, (unsigned long long)x->outs,
			  (unsigned long long)x->busy);
		TBT_CHECK(!x->lost, "%s: cpu%d: %llu records lost", name, c,
			  (unsigned long long)x->lost);
		TBT_CHECK(!x->busy, "%s: cpu%d: %llu runs untraced (busy)", name, c,
			  (unsigned long long)x->busy);
		/* Every byte the emulator wrote for tracebuf is in a span. */
		TBT_CHECK(emu_stat(c, "bytes_written") - x->written0 ==
			  x->published - x->s.ctl->aux_padding,
			  "%s: cpu%d: emulator wrote %llu, published %llu", name, c,
			  emu_stat(c, "bytes_written") - x->written0,
			  (unsigned long long)x->published);
		TBT_CHECK(emu_stat(c, "violations") == 0, "%s: cpu%d: emulator violations",
			  name, c);
		published += x->published;
		cap_emu_file(r, x);
	}
	TBT_CHECK(published > 0, "%s: nothing traced", name);
	printf("%s: %llu bytes in %d threads, oracle %llu, ins %llu/%llu, joined %d, left %d\n",
	       name, (unsigned long long)published, r->ntids, oracle,
	       (unsigned long long)r->x[0].ins, (unsigned long long)r->x[1].ins,
	       r->njoined, r->nleft);
	for (i = 0; i < r->ntids; i++)
		printf("  pid %u tid %u cpus %#x bytes %llu exec %u\n", r->tids[i].pid,
		       r->tids[i].tid, r->tids[i].cpus, (unsigned long long)r->tids[i].bytes,
		       r->tids[i].exec_ins);
}

static struct tidinfo *find_tid(struct run *r, pid_t tid)
{
	int i;

	for (i = 0; i < r->ntids; i++)
		if ((pid_t)r->tids[i].tid == tid)
			return &r->tids[i];
	return NULL;
}

static void test_threads(void)
{
	char *argv[] = { PROG, "threads", "4", "150", NULL };
	struct run r;
	int i;

	if (trace_prog(&r, "threads", argv, 0))
		return;
	TBT_CHECK(r.nprog_tids == 4, "threads: program reported %d threads", r.nprog_tids);
	for (i = 0; i < r.nprog_tids; i++) {
		struct tidinfo *t = find_tid(&r, r.prog_tids[i]);

		TBT_CHECK(t && t->bytes > 0, "threads: thread %d has no trace", r.prog_tids[i]);
	}
	/* The main thread too: it ran the exec (IN flagged EXEC). */
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
	TBT_CHECK(t && t->cpus == 3, "migrate: thread traced on CPUs %#x", t ? t->cpus : 0);
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

/* Without inherit the child is not followed: no byte of it. */
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

	/* trace_prog checks no CPU traces after the exit. */
	if (trace_prog(&r, "exit", argv, 0))
		return;
	TBT_CHECK(r.ntids == 2, "exit: %d threads traced", r.ntids);
}

/* SETUP's errors for the per-task target. */
static void test_setup_errors(void)
{
	struct tracebuf_session a, b;
	struct tracebuf_setup su;
	pid_t z;
	int rc;

	/* A process that exited and was reaped: ESRCH. */
	z = fork();
	if (z == 0)
		_exit(0);
	waitpid(z, NULL, 0);
	rc = task_setup(&a, z, 0, 0);
	TBT_CHECK(rc == -ESRCH, "reaped pid: %s", strerror(-rc));
	tracebuf_close(&a);
	/* A zombie (every thread exited, not reaped): ESRCH. */
	z = fork();
	if (z == 0)
		_exit(0);
	msleep(50);
	rc = task_setup(&a, z, 0, 0);
	TBT_CHECK(rc == -ESRCH, "zombie: %s", strerror(-rc));
	tracebuf_close(&a);
	waitpid(z, NULL, 0);
	rc = task_setup(&a, -1, 0, 0);
	TBT_CHECK(rc == -EINVAL, "pid -1: %s", strerror(-rc));
	tracebuf_close(&a);
	rc = task_setup(&a, 0, 0, 1U << 31);
	TBT_CHECK(rc == -EINVAL, "unknown flag: %s", strerror(-rc));
	tracebuf_close(&a);
	/* pid and flags belong to TARGET_TASK. */
	TBT_CHECK(tracebuf_open(&a, 0) == 0, "open");
	memset(&su, 0, sizeof(su));
	su.target = TRACEBUF_TARGET_CPU;
	su.pid = getpid();
	snprintf(su.backend, sizeof(su.backend), "intel_pt");
	rc = tracebuf_setup(&a, &su);
	TBT_CHECK(rc == -EINVAL, "CPU target with a pid: %s", strerror(-rc));
	su.pid = 0;
	su.flags = TRACEBUF_SETUP_F_INHERIT;
	rc = tracebuf_setup(&a, &su);
	TBT_CHECK(rc == -EINVAL, "CPU target with inherit: %s", strerror(-rc));
	su.flags = 0;
	su.reserved0 = 1;
	rc = tracebuf_setup(&a, &su);
	TBT_CHECK(rc == -EINVAL, "reserved0: %s", strerror(-rc));
	tracebuf_close(&a);
	/* Our own process (pid 0), twice on one CPU: EBUSY; other CPU: fine. */
	rc = task_setup(&a, 0, 0, 0);
	TBT_CHECK(rc == 0, "pid 0: %s", strerror(-rc));
	rc = task_setup(&b, getpid(), 0, 0);
	TBT_CHECK(rc == -EBUSY, "same process, same CPU: %s", strerror(-rc));
	tracebuf_close(&b);
	rc = task_setup(&b, getpid(), 1, 0);
	TBT_CHECK(rc == 0, "same process, other CPU: %s", strerror(-rc));
	tracebuf_close(&b);
	/* SETUP again on the same session: it replaces its own target. */
	rc = tracebuf_setup(&a, &(struct tracebuf_setup){
		.target = TRACEBUF_TARGET_TASK, .cpu = 0, .backend = "intel_pt" });
	TBT_CHECK(rc == 0, "repeated SETUP: %s", strerror(-rc));
	tracebuf_close(&a);
	rc = task_setup(&b, getpid(), 0, 0);
	TBT_CHECK(rc == 0, "after close: %s", strerror(-rc));
	tracebuf_close(&b);
}

/*
 * Close every session while the traced process spins on CPU 1, from
 * CPU 0: CPU 1 stops, and nothing more of it is traced.
 */
static void test_close_running(void)
{
	char *argv[] = { PROG, "spin", "1500", "1", NULL };
	unsigned long long before, after;
	struct tsess x[NCPU];
	cpu_set_t set;
	int go, out, c, rc, i;
	pid_t pid;

	CPU_ZERO(&set);
	CPU_SET(0, &set);
	sched_setaffinity(0, sizeof(set), &set);
	pid = start_stopped(argv, &go, &out);
	for (c = 0; c < NCPU; c++) {
		rc = tsess_open(&x[c], pid, c, 0);
		TBT_CHECK(rc == 0, "close_running: cpu%d: %s", c, strerror(-rc));
		if (!rc)
			tracebuf_enable(&x[c].s);
	}
	emu_clear_tasks();
	TBT_CHECK(write(go, "g", 1) == 1, "go");
	close(go);
	for (i = 0; i < 200 && emu_stat(1, "traceen") != 1; i++)
		msleep(5);
	TBT_CHECK(emu_stat(1, "traceen") == 1, "close_running: cpu1 never traced");
	for (c = 0; c < NCPU; c++)
		tsess_close(&x[c]);
	TBT_CHECK(emu_stat(1, "traceen") == 0, "close_running: cpu1 traces after the close");
	before = emu_bytes_of(1, pid);
	msleep(200);
	after = emu_bytes_of(1, pid);
	TBT_CHECK(before > 0 && before == after,
		  "close_running: %llu bytes, then %llu after the close", before, after);
	TBT_CHECK(emu_stat(1, "violations") == 0, "close_running: violations");
	kill(pid, SIGKILL);
	waitpid(pid, NULL, 0);
	close(out);
	CPU_SET(1, &set);
	sched_setaffinity(0, sizeof(set), &set);
}

/* CPU 1 goes offline and online while the process runs traced. */
static void test_hotplug(void)
{
	char *argv[] = { PROG, "spin", "1200", NULL };
	struct run r;
	pid_t pid;
	int go, out, c, i, st, rc;

	memset(&r, 0, sizeof(r));
	r.name = "hotplug";
	pid = start_stopped(argv, &go, &out);
	r.root = pid;
	for (c = 0; c < NCPU; c++) {
		rc = tsess_open(&r.x[c], pid, c, 0);
		TBT_CHECK(rc == 0, "hotplug: cpu%d: %s", c, strerror(-rc));
		if (rc)
			return;
		cap_files(&r, &r.x[c]);
	}
	emu_clear_tasks();
	for (c = 0; c < NCPU; c++) {
		r.x[c].ptw0 = emu_stat(c, "ptw_seq");
		r.x[c].written0 = emu_stat(c, "bytes_written");
		r.x[c].dropped0 = emu_stat(c, "ptw_dropped");
		tracebuf_enable(&r.x[c].s);
	}
	TBT_CHECK(write(go, "g", 1) == 1, "go");
	close(go);
	for (i = 0; i < 3; i++) {
		struct tracebuf_cfg_error err;

		msleep(100);
		consume_all(&r);
		/* A reconfiguration restarts a CPU where the thread runs: OUT, IN. */
		for (c = 0; c < NCPU; c++) {
			rc = tracebuf_set_drv_config(&r.x[c].s, i & 1 ? "psb_period=1" :
						     "psb_period=0", 0, &err);
			TBT_CHECK(rc == 0, "hotplug: SET_DRV_CONFIG: %s", err.message);
		}
		TBT_CHECK(set_online(1, 0) == 0, "hotplug: cpu1 offline");
		TBT_CHECK(emu_stat(1, "traceen") == 0, "hotplug: offline cpu1 traces");
		msleep(100);
		consume_all(&r);
		TBT_CHECK(set_online(1, 1) == 0, "hotplug: cpu1 online");
	}
	while (waitpid(pid, &st, WNOHANG) == 0) {
		consume_all(&r);
		msleep(5);
	}
	for (c = 0; c < NCPU; c++)
		tracebuf_disable(&r.x[c].s);
	consume_all(&r);
	check_oracle(&r);
	for (c = 0; c < NCPU; c++) {
		TBT_CHECK(!r.x[c].in, "hotplug: cpu%d no OUT", c);
		TBT_CHECK(emu_stat(c, "bytes_written") - r.x[c].written0 ==
			  r.x[c].published - r.x[c].s.ctl->aux_padding,
			  "hotplug: cpu%d identity", c);
		TBT_CHECK(emu_stat(c, "violations") == 0, "hotplug: cpu%d violations", c);
		cap_emu_file(&r, &r.x[c]);
		tsess_close(&r.x[c]);
	}
	close(out);
}

/* ---- follow mode: the emulator traces what the program really executes -- */

static unsigned long long follow_stat(const char *key)
{
	char k[32];
	unsigned long long v, r = ~0ULL;
	FILE *f = fopen(EMU "/follow_stats", "r");

	if (!f)
		return ~0ULL;
	while (fscanf(f, "%31s %llu", k, &v) == 2)
		if (!strcmp(k, key))
			r = v;
	fclose(f);
	return r;
}

/*
 * followprog (two threads: recursion, a loop, calls through a pointer)
 * single-stepped by ptfollow, which tells the emulator each retired
 * instruction: the trace is the program's own, and the host's
 * ptfollowcheck compares it with ptfollow's ground truth, branch for
 * branch per thread. The per-task checks of every capture apply too.
 */
static void test_follow(const char *name, const char *cfg)
{
	char gt[128], line[128], out_buf[256];
	struct tracebuf_cfg_error err;
	int in[2], out[2], c, rc, st;
	unsigned long long queued;
	struct run r;
	pid_t helper;
	FILE *f;

	memset(&r, 0, sizeof(r));
	r.name = name;
	r.follow = 1;
	aux_size = 4 << 20;
	mkdir("/tmp/cap", 0755);
	snprintf(gt, sizeof(gt), "/tmp/cap/follow-%s", name);
	mkdir(gt, 0755);
	snprintf(gt, sizeof(gt), "/tmp/cap/follow-%s/gt.txt", name);
	TBT_CHECK(write_file(EMU "/follow_mode", "1") == 0, "follow_mode on");
	TBT_CHECK(pipe(in) == 0 && pipe(out) == 0, "pipes");
	helper = fork();
	if (helper == 0) {
		dup2(in[0], 0);
		dup2(out[1], 1);
		close(in[1]);
		close(out[0]);
		execl("/tests/ptfollow", "ptfollow", gt, "/tests/followprog", "6", (char *)NULL);
		_exit(127);
	}
	close(in[0]);
	close(out[1]);
	f = fdopen(out[0], "r");
	TBT_CHECK(f && fgets(line, sizeof(line), f) && sscanf(line, "pid %d", &r.root) == 1,
		  "%s: ptfollow did not start the program", name);
	if (!r.root)
		goto out;
	for (c = 0; c < NCPU; c++) {
		rc = tsess_open(&r.x[c], r.root, c, 0);
		TBT_CHECK(rc == 0, "%s: cpu%d session: %s", name, c, strerror(-rc));
		if (rc)
			goto out;
		if (cfg) {
			rc = tracebuf_set_drv_config(&r.x[c].s, cfg, 0, &err);
			TBT_CHECK(rc == 0, "%s: %s: %s", name, cfg, err.message);
		}
		cap_files(&r, &r.x[c]);
	}
	emu_clear_tasks();
	for (c = 0; c < NCPU; c++) {
		r.x[c].written0 = emu_stat(c, "bytes_written");
		rc = tracebuf_enable(&r.x[c].s);
		TBT_CHECK(rc == 0, "%s: cpu%d ENABLE: %s", name, c, strerror(-rc));
	}
	queued = follow_stat("queued");
	TBT_CHECK(write(in[1], "go\n", 3) == 3, "go");
	while (waitpid(helper, &st, WNOHANG) == 0) {
		consume_all(&r);
		msleep(5);
	}
	TBT_CHECK(WIFEXITED(st) && WEXITSTATUS(st) == 0, "%s: ptfollow status %#x", name, st);
	/* The program's own output comes first ("sum ..."), then ptfollow's. */
	out_buf[0] = 0;
	while (fgets(out_buf, sizeof(out_buf), f) && strncmp(out_buf, "steps ", 6))
		;
	TBT_CHECK(strstr(out_buf, "status 0"), "%s: ptfollow: %s", name, out_buf);
	printf("%s: %s", name, out_buf);
	for (c = 0; c < NCPU; c++)
		tracebuf_disable(&r.x[c].s);
	consume_all(&r);
	/* Every step the helper reported was written, in one of the thread's runs. */
	TBT_CHECK(follow_stat("pending") == 0, "%s: %llu steps never written", name,
		  follow_stat("pending"));
	TBT_CHECK(follow_stat("dropped") == 0 && follow_stat("unsupported") == 0 &&
		  follow_stat("nmi_skipped") == 0, "%s: follow stats", name);
	TBT_CHECK(follow_stat("queued") > queued, "%s: nothing followed", name);
	check_run(&r);
out:
	for (c = 0; c < NCPU; c++)
		tsess_close(&r.x[c]);
	if (f)
		fclose(f);
	close(in[1]);
	TBT_CHECK(write_file(EMU "/follow_mode", "0") == 0, "follow_mode off");
	aux_size = 512 * 1024;
}

/* ---- permissions, as uid 65534 -------------------------------------- */

/*
 * An ordinary user's process: uid/gid 65534, no capabilities, dumpable
 * again (setuid() from root made it not dumpable, as a set-user-ID
 * program would be; a login shell's children are dumpable).
 */
static void become_nobody(void)
{
	if (setgroups(0, NULL) || setgid(NOBODY) || setuid(NOBODY) ||
	    prctl(PR_SET_DUMPABLE, 1, 0, 0, 0)) {
		printf("cannot become uid %d: %s\n", NOBODY, strerror(errno));
		fflush(stdout);
		_exit(3);
	}
}

/* In a child as uid 65534: returns the child's exit status (0: ok). */
static int as_nobody(void (*fn)(void *), void *arg)
{
	pid_t pid;
	int st;

	fflush(stdout);		/* the child flushes its own output only */
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

struct perm_arg {
	int want_enable;	/* ENABLE's expected -errno */
	const char *config;	/* SET_DRV_CONFIG first, if not NULL */
	int want_config;
};

/* Trace our own child (same uid) for a while. */
static void c_own(void *p)
{
	const struct perm_arg *a = p;
	char *argv[] = { PROG, "spin", "300", NULL };
	struct tracebuf_cfg_error err;
	struct tsess x;
	int go, out, rc;
	pid_t pid;

	pid = start_stopped(argv, &go, &out);
	rc = tsess_open(&x, pid, 0, 0);
	TBT_CHECK(rc == 0, "own process: SETUP/map: %s", strerror(-rc));
	if (!rc && a->config) {
		rc = tracebuf_set_drv_config(&x.s, a->config, 0, &err);
		TBT_CHECK(rc == a->want_config, "%s: %s, want %s", a->config, strerror(-rc),
			  strerror(-a->want_config));
		if (a->want_config == -EACCES)
			TBT_CHECK(err.reason == TRACEBUF_CFG_PERMISSION, "reason %u", err.reason);
		rc = 0;
	}
	if (!rc) {
		rc = tracebuf_enable(&x.s);
		TBT_CHECK(rc == a->want_enable, "own process: ENABLE: %s, want %s",
			  strerror(-rc), strerror(-a->want_enable));
	}
	TBT_CHECK(write(go, "g", 1) == 1, "go");
	waitpid(pid, NULL, 0);
	tsess_close(&x);
	close(go);
	close(out);
}

/* Another user's process: pid 1 (root's init). */
static void c_other(void *p)
{
	struct tracebuf_session s;
	int rc;

	rc = task_setup(&s, 1, 0, 0);
	TBT_CHECK(rc == -EACCES, "uid %d tracing pid 1: %s", NOBODY, strerror(-rc));
	tracebuf_close(&s);
	rc = task_setup(&s, *(pid_t *)p, 0, 0);
	TBT_CHECK(rc == -EACCES, "uid %d tracing root's %d: %s", NOBODY, *(pid_t *)p,
		  strerror(-rc));
	tracebuf_close(&s);
}

/* The traced process execs a set-user-ID program: it leaves. */
static void c_suid(void *p __attribute__((unused)))
{
	char *argv[] = { PROG, "exec", "150", SUIDPROG, NULL };
	struct run r;
	pid_t pid;
	int go, out, c, rc, st;
	unsigned long long at_exit;

	memset(&r, 0, sizeof(r));
	r.name = "suid";
	pid = start_stopped(argv, &go, &out);
	r.root = pid;
	for (c = 0; c < NCPU; c++) {
		rc = tsess_open(&r.x[c], pid, c, 0);
		TBT_CHECK(rc == 0, "suid: cpu%d: %s", c, strerror(-rc));
		if (rc)
			return;
		rc = tracebuf_enable(&r.x[c].s);
		TBT_CHECK(rc == 0, "suid: cpu%d ENABLE: %s", c, strerror(-rc));
	}
	TBT_CHECK(write(go, "g", 1) == 1, "go");
	close(go);
	while (waitpid(pid, &st, WNOHANG) == 0) {
		consume_all(&r);
		msleep(5);
	}
	for (c = 0; c < NCPU; c++)
		tracebuf_disable(&r.x[c].s);
	consume_all(&r);
	TBT_CHECK(r.nleft == 1 && r.left[0] == pid &&
		  r.left_reason[0] == TRACEBUF_TASK_EXEC_PRIV,
		  "suid: left %d, reason %u", r.nleft, r.nleft ? r.left_reason[0] : 0);
	TBT_CHECK(r.in_after_priv == 0, "suid: %u runs traced after the exec", r.in_after_priv);
	at_exit = 0;
	for (c = 0; c < NCPU; c++)
		at_exit += r.x[c].published;
	TBT_CHECK(at_exit > 0, "suid: nothing traced before the exec");
	for (c = 0; c < NCPU; c++)
		tsess_close(&r.x[c]);
	close(out);
}

static void test_permissions(void)
{
	struct perm_arg ok = { 0, NULL, 0 }, refused = { -EACCES, NULL, 0 };
	struct perm_arg kern_refused = { 0, "kernel=1", -EACCES };
	struct perm_arg kern_ok = { 0, "kernel=1", 0 };
	char *sleeper[] = { PROG, "sleep", "3000", NULL };
	mode_t mode;
	struct stat st;
	pid_t root_pid;
	int go, out;

	TBT_CHECK(stat(TRACEBUF_DEVICE, &st) == 0, "stat");
	mode = st.st_mode & 0777;
	TBT_CHECK(chmod(TRACEBUF_DEVICE, 0666) == 0, "chmod");

	set_param("paranoid", 2);
	TBT_CHECK(as_nobody(c_own, &ok) == 0, "own process at paranoid 2");
	set_param("paranoid", 3);
	TBT_CHECK(as_nobody(c_own, &refused) == 0, "own process at paranoid 3");
	set_param("paranoid", 2);
	TBT_CHECK(as_nobody(c_own, &kern_refused) == 0, "kernel=1 at paranoid 2");
	set_param("paranoid", 1);
	TBT_CHECK(as_nobody(c_own, &kern_ok) == 0, "kernel=1 at paranoid 1");
	set_param("paranoid", 2);

	root_pid = start_stopped(sleeper, &go, &out);
	TBT_CHECK(as_nobody(c_other, &root_pid) == 0, "another user's process");
	close(go);
	waitpid(root_pid, NULL, 0);
	close(out);

	/* A set-user-ID root copy of taskprog. */
	if (tbt_run((const char *const[]){ "cp", PROG, SUIDPROG, NULL }) == 0 &&
	    chown(SUIDPROG, 0, 0) == 0 && chmod(SUIDPROG, 04755) == 0)
		TBT_CHECK(as_nobody(c_suid, NULL) == 0, "exec of a set-user-ID program");
	else
		TBT_CHECK(0, "cannot make %s", SUIDPROG);
	unlink(SUIDPROG);
	TBT_CHECK(chmod(TRACEBUF_DEVICE, mode) == 0, "restore the device mode");
}

/*
 * ENABLE checks kernel mode again: kernel=1 accepted at paranoid 1, then
 * paranoid goes up to 2 (p: a pipe pair to the parent, which does it).
 */
static void c_kernel_recheck(void *p)
{
	int *fds = p;
	struct tracebuf_cfg_error err;
	struct tsess x;
	char c;
	int rc;

	rc = tsess_open(&x, 0, 0, 0);
	TBT_CHECK(rc == 0, "recheck: SETUP: %s", strerror(-rc));
	rc = tracebuf_set_drv_config(&x.s, "kernel=1", 0, &err);
	TBT_CHECK(rc == 0, "recheck: kernel=1 at paranoid 1: %s", strerror(-rc));
	TBT_CHECK(write(fds[1], "1", 1) == 1 && read(fds[2], &c, 1) == 1, "recheck: sync");
	rc = tracebuf_enable(&x.s);
	TBT_CHECK(rc == -EACCES, "recheck: ENABLE with kernel=1 at paranoid 2: %s",
		  strerror(-rc));
	tsess_close(&x);
}

static void test_kernel_recheck(void)
{
	int up[2], down[2], fds[3];
	pid_t pid;
	char c;
	int st;

	TBT_CHECK(pipe(up) == 0 && pipe(down) == 0, "pipes");
	fds[1] = up[1];
	fds[2] = down[0];
	TBT_CHECK(chmod(TRACEBUF_DEVICE, 0666) == 0, "chmod");
	set_param("paranoid", 1);
	fflush(stdout);
	pid = fork();
	if (pid == 0) {
		tbt_failures = 0;	/* the child's own verdict */
		become_nobody();
		c_kernel_recheck(fds);
		fflush(stdout);
		_exit(tbt_failures ? 1 : 0);
	}
	TBT_CHECK(read(up[0], &c, 1) == 1, "recheck: child ready");
	set_param("paranoid", 2);
	TBT_CHECK(write(down[1], "2", 1) == 1, "recheck: go on");
	TBT_CHECK(waitpid(pid, &st, 0) == pid && WIFEXITED(st) && !WEXITSTATUS(st),
		  "recheck: child failed (%#x)", st);
	TBT_CHECK(chmod(TRACEBUF_DEVICE, 0600) == 0, "chmod back");
	close(up[0]);
	close(up[1]);
	close(down[0]);
	close(down[1]);
}

int main(void)
{
	if (!HAVE_PT) {
		printf("no Intel PT emulator on this architecture: skip\n");
		return 77;
	}
	if (sysconf(_SC_NPROCESSORS_ONLN) < NCPU) {
		printf("needs %d CPUs\n", NCPU);
		return 1;
	}
	TBT_CHECK(tbt_modprobe("tracebuf") == 0, "modprobe tracebuf");
	TBT_CHECK(tbt_modprobe("tb_ptemu") == 0, "modprobe tb_ptemu");
	test_setup_errors();
	test_threads();
	test_migrate();
	test_forkexec();
	test_noinherit();
	test_exit();
	test_close_running();
	test_hotplug();
	test_permissions();
	test_kernel_recheck();
	test_follow("fib", NULL);
	tbt_rmmod("tb_ptemu");
	tbt_rmmod("tracebuf");
	return tbt_done();
}
