// SPDX-License-Identifier: GPL-2.0
/*
 * tracebuf record: one session per CPU, the data ring and the AUX area of
 * each drained into a capture directory (docs/capture-format.md) until a
 * duration passes, a command exits, or SIGINT/SIGTERM.
 *
 * With a command (or -p PID) and neither -a nor -C, the sessions use the
 * per-task target (TRACEBUF_TARGET_TASK, docs/abi.md section 17): they
 * trace that process, its threads and (unless --no-inherit) what it
 * forks, on every online CPU. The command is forked first and waits on a
 * pipe; every session is set up for its pid and enabled; then it execs, so
 * its first instruction is traced (perf's workload pipe). The sideband a
 * decoder needs (mmaps, comm, forks, switches, the vDSO, the clock
 * conversion) comes from record_sb.c.
 *
 * The sessions are consumed by a libtracebuf group (tracebuf_group_new(3)):
 * its callbacks append each record to cpuN.data and, for an AUX record,
 * write the span straight from the AUX mapping to cpuN.aux (two iovecs
 * when it wraps); the group then releases it. In snapshot mode the span
 * is copied and held instead, and written at the next snapshot with only
 * what no later run wrote over (snap_*() below). One thread: the group's
 * poll, which also watches a signalfd, with a 100 ms timeout after which
 * every CPU is consumed whatever woke us.
 */
#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <getopt.h>
#include <inttypes.h>
#include <limits.h>
#include <math.h>
#include <poll.h>
#include <signal.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/ioctl.h>
#include <sys/resource.h>
#include <sys/signalfd.h>
#include <sys/stat.h>
#include <sys/syscall.h>
#include <sys/uio.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

#include <libtracebuf.h>

#include "record_sb.h"
#include "tool.h"

#define DEF_DATA_SIZE	(256ULL << 10)
#define DEF_AUX_SIZE	(1ULL << 20)
#define DEF_OUTPUT	"tracebuf.data"
#define MAX_CPUS	8192		/* CPU numbers below this in a CPU list */
#define WBUF_SIZE	(64U << 10)	/* cpuN.data write buffer */
#define TICK_MS		100		/* drain everything at least this often */

static const char record_usage[] =
	"Usage: tracebuf record [-a | -C CPULIST | -p PID] [-b BACKEND] [-c CONFIG]\n"
	"                       [--data-size N] [--aux-size N] [--snapshot] [-o DIR]\n"
	"                       [--duration T] [--no-inherit] [--sideband MODE]\n"
	"                       [--allow-loss] [-q] [-- COMMAND [ARGS...]]\n"
	"\n"
	"  -a, --all-cpus       trace every online CPU (the default without a command or -p)\n"
	"  -C, --cpu CPULIST    trace these CPUs, e.g. 0,2-3\n"
	"  -p, --pid PID        trace process PID (its threads, and what it forks) until it\n"
	"                       exits; a COMMAND without -a or -C is traced the same way\n"
	"      --no-inherit     with -p or a command: not the processes it forks\n"
	"      --sideband MODE  auto (perf if allowed, else /proc), perf, proc or none\n"
	"  -b, --backend NAME   trace backend (default: auto, the first present)\n"
	"  -c, --config STRING  driver configuration, key=value,... (see 'tracebuf config --list')\n"
	"      --data-size N    data ring per CPU, a power of two (K, M, G suffixes; default 256K)\n"
	"      --aux-size N     AUX ring per CPU, a power of two (default 1M)\n"
	"      --snapshot       snapshot mode: the hardware overwrites the AUX ring; SIGUSR2\n"
	"                       and the stop save its newest contents\n"
	"  -o, --output DIR     capture directory (default: " DEF_OUTPUT ")\n"
	"  -d, --duration T     stop after T seconds (1.5, 500ms, 2s)\n"
	"      --allow-loss     exit 0 even if trace was lost\n"
	"  -q, --quiet          no progress line\n"
	"  -- COMMAND ARGS      run COMMAND, stop when it exits\n";

/* Snapshot mode: a span copied from the ring, not yet written. */
struct held_span {
	uint64_t pos;			/* its AUX record's place in cpuN.data */
	struct tracebuf_rec_aux rec;	/* that record, as the kernel wrote it */
	unsigned char *bytes;		/* rec.aux_size bytes */
	uint64_t weight;		/* what it may have written over: its size */
};

/*
 * One session: one CPU, or (CoreSight with a shared sink) every recorded
 * CPU that feeds the same sink, recorded under the first of them.
 */
struct rcpu {
	unsigned int cpu;
	uint64_t *cpuset;		/* NULL: just cpu */
	unsigned int cpuset_words;
	struct tracebuf_session s;
	int data_fd, aux_fd;
	unsigned char *wbuf;
	size_t wlen;
	uint64_t data_off;		/* bytes of cpuN.data written, wbuf not counted */
	/* Snapshot mode: the spans held since the last snapshot, oldest first. */
	struct held_span *held;
	unsigned int nheld, held_cap;
	uint64_t held_weight;		/* the sum of their weights */
	uint64_t snap_dropped;		/* bytes left out: written over, or not the newest */
	int stopped;			/* POLLERR/POLLHUP seen: out of the poll */
	int enabled;
	const char *error;		/* why it stopped early, or NULL */
	char *config;			/* canonical configuration */
	uint64_t generation;
	int have_caps;
	struct tracebuf_pt_caps caps;
	/* What went into the capture. */
	uint64_t data_bytes, records, aux_bytes, aux_spans;
	uint64_t truncations, collisions, lost_recs, aux_gap;
	uint64_t aux_lost;		/* LOST AUX_OVERRUN: trace bytes dropped */
	int aux_lost_atleast;		/* one of them was a lower bound */
	/* From the control page at the end. */
	uint64_t ctl_lost, ctl_trunc, ctl_coll, ctl_padding;
	uint64_t prog_bytes;		/* aux_bytes at the last progress line */
};

struct record {
	/* Options. */
	unsigned int *cpus;
	unsigned int nr_cpus;
	char backend[TRACEBUF_NAME_LEN];
	const char *config;
	uint64_t data_size, aux_size;
	int snapshot, allow_loss, quiet;
	const char *outdir;
	double duration;		/* seconds; 0: none */
	char **command;			/* NULL-terminated, or NULL */
	pid_t pid;			/* -p */
	int per_task, no_inherit;
	enum rsb_mode sb_mode;

	/* State. */
	struct rcpu *c;
	struct tracebuf_info info;
	char backend_name[TRACEBUF_NAME_LEN + 1];
	int emulated, has_aux;
	struct tracebuf_group *group;	/* every session, and the signalfd */
	int sigfd;
	int stopsig;			/* SIGINT or SIGTERM received */
	int snap_req;			/* SIGUSR2 received in --snapshot mode */
	int usr2_warned;
	pid_t child;
	int child_status, child_done, child_failed_exec;
	pid_t task;			/* per-task: the traced process */
	int pidfd;			/* -p: the process, polled for its exit */
	int task_gone;			/* -p: it exited */
	struct rsb *sb;			/* the sideband */
	uint64_t start_ns, end_ns;
	struct timespec start_rt;
	int fatal;			/* a write error: stop everything */
	int progress;
	size_t progress_len;
};

static uint64_t now_ns(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (uint64_t)ts.tv_sec * 1000000000ULL + (uint64_t)ts.tv_nsec;
}

/* ---- option parsing ---------------------------------------------------- */

/* N, NK, NM, NG; a power of two of at least min bytes, at most max. */
static int parse_size(const char *opt, const char *arg, uint64_t min, uint64_t max,
		      uint64_t *out)
{
	char msg[96];
	unsigned long long v;
	unsigned int shift = 0;
	char *end;

	errno = 0;
	v = strtoull(arg, &end, 10);
	if (end == arg || *arg == '-' || *arg == '+' || errno)
		goto bad;
	switch (*end) {
	case 0:
		break;
	case 'k': case 'K':
		shift = 10;
		break;
	case 'm': case 'M':
		shift = 20;
		break;
	case 'g': case 'G':
		shift = 30;
		break;
	default:
		goto bad;
	}
	if (*end && end[1] && strcmp(end + 1, "iB") && strcmp(end + 1, "B"))
		goto bad;
	if (v > (UINT64_MAX >> shift))
		goto toobig;
	v <<= shift;
	if (!v || (v & (v - 1))) {
		snprintf(msg, sizeof(msg), "invalid %s (not a power of two)", opt);
		return tb_usage_error(msg, arg);
	}
	if (v < min) {
		snprintf(msg, sizeof(msg), "invalid %s (less than the page size, %" PRIu64 ")",
			 opt, min);
		return tb_usage_error(msg, arg);
	}
	if (v > max)
		goto toobig;
	*out = v;
	return 0;
toobig:
	snprintf(msg, sizeof(msg), "invalid %s (more than %" PRIu64 "M)", opt, max >> 20);
	return tb_usage_error(msg, arg);
bad:
	snprintf(msg, sizeof(msg), "invalid %s (a number with an optional K, M or G)", opt);
	return tb_usage_error(msg, arg);
}

/* 1.5, 2s, 500ms: seconds, positive and finite. */
static int parse_duration(const char *arg, double *out)
{
	double v, scale = 1;
	char *end;

	errno = 0;
	v = strtod(arg, &end);
	if (end == arg || errno || !isfinite(v) || *arg == '-' || *arg == '+')
		goto bad;
	if (!strcmp(end, "ms"))
		scale = 1e-3;
	else if (!strcmp(end, "us"))
		scale = 1e-6;
	else if (!strcmp(end, "m") || !strcmp(end, "min"))
		scale = 60;
	else if (*end && strcmp(end, "s"))
		goto bad;
	v *= scale;
	if (!(v > 0) || v > 1e9)
		goto bad;
	*out = v;
	return 0;
bad:
	return tb_usage_error("invalid duration", arg);
}

/* "0,2-3" into a sorted list without duplicates; -1 if malformed. */
static int parse_cpulist(const char *arg, unsigned int **cpus, unsigned int *nr)
{
	static unsigned char set[MAX_CPUS];
	const char *p = arg;
	unsigned int i, n = 0;

	memset(set, 0, sizeof(set));
	for (;;) {
		unsigned long a, b;
		char *end;

		if (*p < '0' || *p > '9')
			return -1;
		errno = 0;
		a = strtoul(p, &end, 10);
		if (errno || a >= MAX_CPUS)
			return -1;
		b = a;
		p = end;
		if (*p == '-') {
			p++;
			if (*p < '0' || *p > '9')
				return -1;
			b = strtoul(p, &end, 10);
			if (errno || b >= MAX_CPUS || b < a)
				return -1;
			p = end;
		}
		for (i = (unsigned int)a; i <= b; i++)
			set[i] = 1;
		if (!*p || *p == '\n')
			break;
		if (*p++ != ',')
			return -1;
	}
	for (i = 0; i < MAX_CPUS; i++)
		n += set[i];
	*cpus = calloc(n, sizeof(**cpus));
	if (!*cpus)
		return -1;
	*nr = 0;
	for (i = 0; i < MAX_CPUS; i++)
		if (set[i])
			(*cpus)[(*nr)++] = i;
	return 0;
}

static int read_online(char *buf, size_t size)
{
	int fd = open("/sys/devices/system/cpu/online", O_RDONLY | O_CLOEXEC);
	ssize_t n;

	if (fd < 0)
		return -errno;
	n = read(fd, buf, size - 1);
	close(fd);
	if (n <= 0)
		return -EIO;
	buf[n] = 0;
	return 0;
}

static int cpu_online(unsigned int cpu)
{
	unsigned int *cpus, nr, i;
	char buf[4096];
	int on = 0;

	if (read_online(buf, sizeof(buf)) || parse_cpulist(buf, &cpus, &nr))
		return -1;
	for (i = 0; i < nr; i++)
		on |= cpus[i] == cpu;
	free(cpus);
	return on;
}

/* ---- writing ------------------------------------------------------------ */

/* writev() all of it (a regular file may take less: then again). */
static int write_all(int fd, struct iovec *iov, int cnt)
{
	while (cnt > 0) {
		ssize_t n = writev(fd, iov, cnt);

		if (n < 0) {
			if (errno == EINTR)
				continue;
			return -errno;
		}
		if (n == 0)
			return -EIO;
		while (cnt > 0 && (size_t)n >= iov->iov_len) {
			n -= (ssize_t)iov->iov_len;
			iov++;
			cnt--;
		}
		if (cnt > 0) {
			iov->iov_base = (char *)iov->iov_base + n;
			iov->iov_len -= (size_t)n;
		}
	}
	return 0;
}

static int write_buf(int fd, const void *buf, size_t len)
{
	struct iovec iov = { (void *)buf, len };

	return len ? write_all(fd, &iov, 1) : 0;
}

static void write_failed(struct record *R, struct rcpu *c, const char *what, int err)
{
	if (!R->fatal)
		fprintf(stderr, "\ntracebuf: cannot write %s/cpu%u.%s: %s\n", R->outdir, c->cpu,
			what, strerror(-err));
	R->fatal = 1;
}

static void flush_data(struct record *R, struct rcpu *c)
{
	int ret;

	if (!c->wlen || R->fatal)
		return;
	ret = write_buf(c->data_fd, c->wbuf, c->wlen);
	if (ret)
		write_failed(R, c, "data", ret);
	c->data_off += c->wlen;
	c->wlen = 0;
}

/* Record r to cpuN.data; returns where in the file it starts. */
static uint64_t append_record(struct record *R, struct rcpu *c, const struct tracebuf_record *r)
{
	size_t size = r->hdr.size;
	uint64_t pos;

	if (c->wlen + size > WBUF_SIZE)
		flush_data(R, c);
	pos = c->data_off + c->wlen;
	if (size > WBUF_SIZE) {
		int ret = R->fatal ? 0 : write_buf(c->data_fd, r, size);

		if (ret)
			write_failed(R, c, "data", ret);
		c->data_off += size;
	} else {
		memcpy(c->wbuf + c->wlen, r, size);
		c->wlen += size;
	}
	c->data_bytes += size;
	c->records++;
	return pos;
}

/* A span's bytes to cpuN.aux, straight from the AUX mapping. */
static int write_span(struct record *R, struct rcpu *c, const struct tracebuf_span *sp)
{
	struct iovec iov[2];
	unsigned int i;
	int ret;

	if (!sp->nr_parts || R->fatal)
		return 0;
	for (i = 0; i < sp->nr_parts; i++) {
		iov[i].iov_base = (void *)sp->part[i];
		iov[i].iov_len = sp->part_len[i];
	}
	ret = write_all(c->aux_fd, iov, (int)sp->nr_parts);
	if (ret)
		write_failed(R, c, "aux", ret);
	return ret;
}

/* ---- draining: the group's callbacks ------------------------------------ */

static struct record *the_record;	/* the callbacks' view of the command */

static void snap_write_oldest(struct record *R, struct rcpu *c, uint64_t keep);

/* Every record but AUX records: LOST, CONFIG, USER, ETM, ... */
static int on_record(void *ctx, struct tracebuf_session *s, const struct tracebuf_record *r)
{
	struct record *R = the_record;
	struct rcpu *c = ctx;
	const struct tracebuf_rec_lost *l = tracebuf_as_lost(r);

	(void)s;
	if (R->fatal)
		return -ECANCELED;
	if (r->hdr.type == TRACEBUF_REC_SWITCH || r->hdr.type == TRACEBUF_REC_TASK)
		rsb_on_record(R->sb, r);
	if (l) {
		/* AUX_OVERRUN counts trace bytes, every other reason records. */
		if (l->reason == TRACEBUF_LOST_AUX_OVERRUN) {
			c->aux_lost += l->count;
			if (l->flags & TRACEBUF_LOST_F_AT_LEAST)
				c->aux_lost_atleast = 1;
		} else {
			c->lost_recs += l->count;
			/*
			 * An AUX record may be among them: the sizes after the
			 * held spans are not known, so none of them is trusted
			 * (snap_*()).
			 */
			while (R->snapshot && c->nheld)
				snap_write_oldest(R, c, 0);
		}
	}
	append_record(R, c, r);
	return 0;
}

/*
 * Snapshot mode. The hardware writes over the ring freely, also after a
 * span was published while it runs on: SNAPSHOT restarts it, and in a
 * per-task session the thread's next run on the CPU goes on where the
 * span ended. A span copied as it comes may therefore hold bytes a later
 * run wrote, and neither the copy nor the kernel can tell. So, as perf -S
 * writes the newest ring of each buffer at a snapshot, each span is
 * copied at once but held, its AUX record written in its place in
 * cpuN.data; at the next snapshot, with the hardware stopped (SIGUSR2:
 * DISABLE, drain, ENABLE; the stop: DISABLE), every held span keeps only
 * its bytes within the newest aux_size of the ring: the runs after it
 * wrote their spans' sizes on from where it ended, so its last
 * max(0, aux_size - (sizes after it)) bytes are as they were when it was
 * published, and the rest may not be. Its AUX record is rewritten to
 * those bytes (aux_offset and aux_size; an empty one keeps its end), and
 * what is left out is counted (snap_dropped, not a loss: a snapshot holds
 * the newest trace only). A PARTIAL span (Intel PT: a lap it may not have
 * counted in VMX operation; CoreSight: a memory error) counts as a whole
 * ring written over. A span entirely written over is settled at once,
 * so at most about two rings of bytes are held; after a LOST record of
 * records (an AUX record among them?) none held is kept.
 */
static void patch_record(struct record *R, struct rcpu *c, uint64_t pos,
			 const struct tracebuf_rec_aux *a)
{
	ssize_t n;

	if (pos >= c->data_off) {
		memcpy(c->wbuf + (pos - c->data_off), a, sizeof(*a));
		return;
	}
	if (R->fatal)
		return;
	n = pwrite(c->data_fd, a, sizeof(*a), (off_t)pos);
	if (n != (ssize_t)sizeof(*a))
		write_failed(R, c, "data", n < 0 ? -errno : -EIO);
}

/* Write the oldest held span, its newest keep bytes. */
static void snap_write_oldest(struct record *R, struct rcpu *c, uint64_t keep)
{
	struct held_span *h = &c->held[0];
	uint64_t size = h->rec.aux_size;
	int ret;

	if (keep > size)
		keep = size;
	if (keep < size) {
		h->rec.aux_offset += size - keep;
		h->rec.aux_size = keep;
		patch_record(R, c, h->pos, &h->rec);
	}
	if (keep && !R->fatal) {
		ret = write_buf(c->aux_fd, h->bytes + (size - keep), (size_t)keep);
		if (ret)
			write_failed(R, c, "aux", ret);
	}
	c->aux_bytes += keep;
	c->snap_dropped += size - keep;
	c->held_weight -= h->weight;
	free(h->bytes);
	c->nheld--;
	memmove(&c->held[0], &c->held[1], c->nheld * sizeof(c->held[0]));
}

/* Every held span, at a snapshot: the hardware is stopped. */
static void snap_settle(struct record *R, struct rcpu *c)
{
	while (c->nheld) {
		uint64_t after = c->held_weight - c->held[0].weight;

		snap_write_oldest(R, c, after < R->aux_size ? R->aux_size - after : 0);
	}
}

static int snap_hold(struct record *R, struct rcpu *c, const struct tracebuf_span *sp)
{
	struct held_span *h;
	unsigned int i;
	size_t done = 0;

	if (c->nheld == c->held_cap) {
		unsigned int cap = c->held_cap ? 2 * c->held_cap : 16;
		struct held_span *n = realloc(c->held, cap * sizeof(*n));

		if (!n)
			return -ENOMEM;
		c->held = n;
		c->held_cap = cap;
	}
	h = &c->held[c->nheld];
	h->bytes = malloc(sp->size ? (size_t)sp->size : 1);
	if (!h->bytes)
		return -ENOMEM;
	for (i = 0; i < sp->nr_parts; i++) {
		memcpy(h->bytes + done, sp->part[i], sp->part_len[i]);
		done += sp->part_len[i];
	}
	h->rec = *sp->rec;
	h->weight = sp->flags & TRACEBUF_AUX_F_PARTIAL ? R->aux_size : sp->size;
	h->pos = append_record(R, c, &sp->rec->r);
	c->nheld++;
	c->held_weight += h->weight;
	/* Written over entirely by the spans after it: settled now. */
	while (c->nheld > 1 && c->held_weight - c->held[0].weight >= R->aux_size)
		snap_write_oldest(R, c, 0);
	return 0;
}

/* An AUX record: its bytes to cpuN.aux first, then the record to cpuN.data. */
static int on_span(void *ctx, struct tracebuf_session *s, const struct tracebuf_span *sp)
{
	struct record *R = the_record;
	struct rcpu *c = ctx;

	(void)s;
	if (R->fatal)
		return -ECANCELED;
	/* Bytes published with no record (it did not fit): lost. */
	c->aux_gap += sp->gap_bytes;
	c->aux_spans++;
	if (sp->flags & TRACEBUF_AUX_F_TRUNCATED)
		c->truncations++;
	if (sp->flags & TRACEBUF_AUX_F_COLLISION)
		c->collisions++;
	if (R->snapshot)
		return snap_hold(R, c, sp);
	if (write_span(R, c, sp))
		return -EIO;
	c->aux_bytes += sp->size;
	append_record(R, c, &sp->rec->r);
	return 0;
}

static void stop_cpu(struct rcpu *c, const char *why)
{
	c->stopped = 1;
	if (!c->error)
		c->error = why;
}

static void progress_clear(struct record *R);

/* POLLERR, POLLHUP (the group took the session out of its poll), a corrupt ring. */
static int on_event(void *ctx, struct tracebuf_session *s, unsigned int events)
{
	struct record *R = the_record;
	struct rcpu *c = ctx;

	(void)s;
	if ((events & TRACEBUF_EV_ERROR) && !c->stopped) {
		progress_clear(R);
		fprintf(stderr, "tracebuf: CPU %u: tracing stopped: %s; the other "
			"CPUs go on\n", c->cpu, c->collisions ?
			"another owner (perf's intel_pt?) took the trace hardware" :
			"a hardware error");
		stop_cpu(c, c->collisions ? "collision" : "hardware error");
	}
	if ((events & TRACEBUF_EV_HANGUP) && !c->stopped) {
		progress_clear(R);
		fprintf(stderr, "tracebuf: CPU %u: the session hung up (CPU offline?)\n",
			c->cpu);
		stop_cpu(c, "hung up");
	}
	if ((events & TRACEBUF_EV_CORRUPT) && !c->error) {
		flush_data(R, c);
		c->error = "corrupt data ring";
		fprintf(stderr, "\ntracebuf: CPU %u: %s\n", c->cpu,
			tracebuf_strerror(tracebuf_ring_error(&c->s)));
		R->fatal = 1;
	}
	return 0;
}

static const struct tracebuf_group_ops record_ops = {
	.sz = sizeof(record_ops),
	.on_record = on_record,
	.on_span = on_span,
	.on_event = on_event,
};

static void flush_all(struct record *R)
{
	unsigned int i;

	for (i = 0; i < R->nr_cpus; i++)
		flush_data(R, &R->c[i]);
}

/* Consume every session (whatever woke us), then write what is buffered. */
static void drain_all(struct record *R)
{
	if (R->group)
		tracebuf_group_consume(R->group);	/* errors: R->fatal, printed */
	flush_all(R);
	if (R->sb)
		rsb_tick(R->sb);
}

static uint64_t ctl_read(const __u64 *p)
{
	return __atomic_load_n(p, __ATOMIC_RELAXED);
}

static void read_counters(struct rcpu *c)
{
	if (!c->s.ctl)
		return;
	c->ctl_lost = ctl_read(&c->s.ctl->records_lost);
	c->ctl_trunc = ctl_read(&c->s.ctl->aux_truncations);
	c->ctl_coll = ctl_read(&c->s.ctl->aux_collisions);
	c->ctl_padding = ctl_read(&c->s.ctl->aux_padding);
}

/* Records lost: the LOST records seen, or the kernel's count if more. */
static uint64_t lost_records(const struct rcpu *c)
{
	return c->ctl_lost > c->lost_recs ? c->ctl_lost : c->lost_recs;
}

static uint64_t truncations(const struct rcpu *c)
{
	return c->ctl_trunc > c->truncations ? c->ctl_trunc : c->truncations;
}

static uint64_t collisions(const struct rcpu *c)
{
	return c->ctl_coll > c->collisions ? c->ctl_coll : c->collisions;
}

static int cpu_lost(const struct rcpu *c)
{
	return lost_records(c) || truncations(c) || collisions(c) || c->aux_gap ||
	       c->aux_lost;
}

/* ---- meta.json ---------------------------------------------------------- */

static void json_u32x4(FILE *f, const char *key, const uint32_t *v)
{
	fprintf(f, "\"%s\": [%u, %u, %u, %u]", key, v[0], v[1], v[2], v[3]);
}

static void json_cstr(FILE *f, const char *s)
{
	if (s)
		tb_json_str(f, s, strlen(s));
	else
		fputs("null", f);
}

static void write_meta_to(struct record *R, FILE *f, int complete)
{
	unsigned int i;
	int lost = 0;

	fprintf(f, "{\n\"format\": %d,\n\"tool_version\": ", TRACEBUF_CAPTURE_FORMAT);
	json_cstr(f, TRACEBUF_VERSION);
	fputs(",\n\"module_version\": ", f);
	tb_json_str(f, R->info.module_version,
		    strnlen(R->info.module_version, sizeof(R->info.module_version)));
	fprintf(f, ",\n\"abi_version\": %u,\n\"backend\": ", R->info.abi_version);
	json_cstr(f, R->backend_name);
	fprintf(f, ",\n\"emulated\": %s,\n\"page_size\": %u,\n\"data_size\": %" PRIu64
		",\n\"aux_size\": %" PRIu64 ",\n\"snapshot\": %s,\n",
		R->emulated ? "true" : "false", R->info.page_size, R->data_size,
		R->has_aux ? R->aux_size : 0, R->snapshot ? "true" : "false");
	fprintf(f, "\"data_watermark\": %" PRIu64 ",\n\"aux_watermark\": %" PRIu64 ",\n",
		R->data_size / 4, R->has_aux && !R->snapshot ? R->aux_size / 4 : 0);
	fprintf(f, "\"clock\": \"CLOCK_MONOTONIC\",\n\"start_ns\": %" PRIu64
		",\n\"end_ns\": %" PRIu64 ",\n\"start_realtime\": %lld.%09ld,\n",
		R->start_ns, R->end_ns, (long long)R->start_rt.tv_sec, R->start_rt.tv_nsec);
	fputs("\"config_requested\": ", f);
	json_cstr(f, R->config);
	fputs(",\n\"command\": ", f);
	if (R->command) {
		fputc('[', f);
		for (i = 0; R->command[i]; i++) {
			fputs(i ? ", " : "", f);
			json_cstr(f, R->command[i]);
		}
		fputc(']', f);
	} else {
		fputs("null", f);
	}
	fputs(",\n\"command_exit\": ", f);
	if (R->child_done && WIFEXITED(R->child_status))
		fprintf(f, "%d", WEXITSTATUS(R->child_status));
	else
		fputs("null", f);
	fputs(",\n\"command_signal\": ", f);
	if (R->child_done && WIFSIGNALED(R->child_status))
		fprintf(f, "%d", WTERMSIG(R->child_status));
	else
		fputs("null", f);
	fputs(",\n", f);
	if (R->sb)
		rsb_write_meta(R->sb, f);
	fputs("\"cpus\": [", f);
	for (i = 0; i < R->nr_cpus; i++)
		fprintf(f, "%s%u", i ? ", " : "", R->c[i].cpu);
	fputs("],\n\"per_cpu\": {", f);
	for (i = 0; i < R->nr_cpus; i++) {
		struct rcpu *c = &R->c[i];

		lost |= cpu_lost(c);
		fprintf(f, "%s\n  \"%u\": {\"config\": ", i ? "," : "", c->cpu);
		json_cstr(f, c->config);
		fprintf(f, ", \"generation\": %" PRIu64 ",\n    \"caps\": ", c->generation);
		if (c->have_caps) {
			const struct tracebuf_pt_caps *p = &c->caps;

			fputc('{', f);
			json_u32x4(f, "cpuid_14_0", p->cpuid_14_0);
			fputs(", ", f);
			json_u32x4(f, "cpuid_14_1", p->cpuid_14_1);
			fputs(", ", f);
			json_u32x4(f, "cpuid_15", p->cpuid_15);
			fprintf(f, ",\n      \"family\": %u, \"model\": %u, \"stepping\": %u, "
				"\"max_nonturbo_ratio\": %u, \"nr_addr_ranges\": %u, "
				"\"mtc_periods\": %u, \"cyc_thresholds\": %u, \"psb_periods\": %u, "
				"\"flags\": %" PRIu64 "}", p->family, p->model, p->stepping,
				p->max_nonturbo_ratio, p->nr_addr_ranges, p->mtc_periods,
				p->cyc_thresholds, p->psb_periods, (uint64_t)p->flags);
		} else {
			fputs("null", f);
		}
		fprintf(f, ",\n    \"aux_bytes\": %" PRIu64 ", \"aux_spans\": %" PRIu64
			", \"aux_truncations\": %" PRIu64 ", \"aux_collisions\": %" PRIu64
			", \"aux_padding\": %" PRIu64 ", \"aux_gap_bytes\": %" PRIu64
			",\n    \"records\": %" PRIu64 ", \"records_lost\": %" PRIu64
			", \"data_bytes\": %" PRIu64 ",\n    \"aux_lost_bytes\": %" PRIu64
			", \"aux_lost_at_least\": %s, \"error\": ",
			c->aux_bytes, c->aux_spans, truncations(c), collisions(c), c->ctl_padding,
			c->aux_gap, c->records, lost_records(c), c->data_bytes, c->aux_lost,
			c->aux_lost_atleast ? "true" : "false");
		json_cstr(f, c->error);
		fputc('}', f);
	}
	if (rsb_lost(R->sb))
		lost = 1;	/* the sideband's perf rings were full */
	fprintf(f, "\n},\n\"lost\": %s,\n\"complete\": %s\n}\n", lost ? "true" : "false",
		complete ? "true" : "false");
}

static int write_meta(struct record *R, int complete)
{
	char tmp[PATH_MAX], path[PATH_MAX];
	FILE *f;
	int err;

	snprintf(tmp, sizeof(tmp), "%s/%s.tmp", R->outdir, TB_CAPTURE_META);
	snprintf(path, sizeof(path), "%s/%s", R->outdir, TB_CAPTURE_META);
	f = fopen(tmp, "we");
	if (!f)
		goto fail;
	write_meta_to(R, f, complete);
	if (fflush(f) || ferror(f)) {
		err = errno;
		fclose(f);
		errno = err;
		goto fail;
	}
	if (fclose(f) || rename(tmp, path))
		goto fail;
	return 0;
fail:
	fprintf(stderr, "tracebuf: cannot write %s: %s\n", path, strerror(errno));
	return -1;
}

/* ---- the output directory ----------------------------------------------- */

/* meta.json, meta.json.tmp, cpuN.data, cpuN.aux, cpuN.sb, proc.sb, vdso.so. */
static int capture_file(const char *name)
{
	const char *p;

	if (!strcmp(name, TB_CAPTURE_META) || !strcmp(name, TB_CAPTURE_META ".tmp") ||
	    !strcmp(name, "proc.sb") || !strcmp(name, "vdso.so"))
		return 1;
	if (strncmp(name, "cpu", 3) || name[3] < '0' || name[3] > '9')
		return 0;
	for (p = name + 3; *p >= '0' && *p <= '9'; p++)
		;
	return !strcmp(p, ".data") || !strcmp(p, ".aux") || !strcmp(p, ".sb");
}

/*
 * Create DIR, or empty it if it holds nothing but a previous capture;
 * refuse anything else.
 */
static int prepare_outdir(const char *dir)
{
	char path[PATH_MAX];
	struct dirent *e;
	int pass, foreign = 0;
	DIR *d;

	if (mkdir(dir, 0777) == 0)
		return 0;
	if (errno != EEXIST) {
		fprintf(stderr, "tracebuf: cannot create %s: %s\n", dir, strerror(errno));
		return -1;
	}
	for (pass = 0; pass < 2; pass++) {
		d = opendir(dir);
		if (!d) {
			fprintf(stderr, "tracebuf: cannot open %s: %s\n", dir, strerror(errno));
			return -1;
		}
		while ((e = readdir(d)) != NULL) {
			if (!strcmp(e->d_name, ".") || !strcmp(e->d_name, ".."))
				continue;
			if (!capture_file(e->d_name)) {
				foreign = 1;
				break;
			}
			if (pass == 1) {
				snprintf(path, sizeof(path), "%s/%s", dir, e->d_name);
				if (unlink(path)) {
					fprintf(stderr, "tracebuf: cannot remove %s: %s\n", path,
						strerror(errno));
					closedir(d);
					return -1;
				}
			}
		}
		closedir(d);
		if (foreign) {
			fprintf(stderr, "tracebuf: %s exists and is not a tracebuf capture: "
				"not overwriting it (remove it or use -o)\n", dir);
			return -1;
		}
	}
	return 0;
}

static int open_out(struct record *R, struct rcpu *c, const char *ext)
{
	char path[PATH_MAX];
	int fd;

	snprintf(path, sizeof(path), "%s/cpu%u.%s", R->outdir, c->cpu, ext);
	fd = open(path, O_WRONLY | O_CREAT | O_TRUNC | O_CLOEXEC, 0666);
	if (fd < 0)
		fprintf(stderr, "tracebuf: cannot create %s: %s\n", path, strerror(errno));
	return fd;
}

/* ---- sessions ----------------------------------------------------------- */

static const char no_hw_hint[] =
	"no trace hardware: Intel PT needs an Intel CPU that has it (Broadwell or "
	"later; in a VM, a hypervisor that passes it through); for testing, "
	"modprobe tb_ptemu";

#define TB_PARAMS	"/sys/module/tracebuf/parameters/"

/* A module parameter as text, or "" (module not loaded, not readable). */
static void read_param(const char *name, char *buf, size_t len)
{
	char path[128];
	ssize_t n;
	int fd;

	buf[0] = 0;
	snprintf(path, sizeof(path), TB_PARAMS "%s", name);
	fd = open(path, O_RDONLY | O_CLOEXEC);
	if (fd < 0)
		return;
	n = read(fd, buf, len - 1);
	close(fd);
	buf[n > 0 ? n : 0] = 0;
	buf[strcspn(buf, "\n")] = 0;
}

/*
 * -EPERM from SETUP (data_size) or the mmap that creates a data ring or
 * an AUX area: the pages are over the pinned-memory limit (perf's rule,
 * docs/abi.md "Permissions and memory limits"). Say which limit and how
 * to raise it.
 */
static void pin_limit_hint(void)
{
	long ncpu = sysconf(_SC_NPROCESSORS_ONLN);
	struct rlimit rl;
	char kb[32];

	read_param("mlock_kb", kb, sizeof(kb));
	fprintf(stderr, "tracebuf: the pinned-memory limit was hit: each user may pin "
		TB_PARAMS "mlock_kb KiB per online CPU");
	if (kb[0])
		fprintf(stderr, " (now %s KiB x %ld CPUs)", kb, ncpu);
	fprintf(stderr, ", and each process up to RLIMIT_MEMLOCK more (ulimit -l");
	if (getrlimit(RLIMIT_MEMLOCK, &rl) == 0) {
		if (rl.rlim_cur == RLIM_INFINITY)
			fprintf(stderr, ", now unlimited");
		else
			fprintf(stderr, ", now %llu KiB", (unsigned long long)rl.rlim_cur / 1024);
	}
	fprintf(stderr, ")\n"
		"tracebuf: raise either (as root: echo KIB > " TB_PARAMS "mlock_kb, or "
		"ulimit -l KIB / LimitMEMLOCK= / limits.conf memlock), run with CAP_IPC_LOCK, "
		"or ask for a smaller --data-size or --aux-size\n");
}

/* -EACCES from ENABLE: CPU-wide tracing refused to the opener. */
static void paranoid_hint(void)
{
	char lvl[16];

	read_param("paranoid", lvl, sizeof(lvl));
	fprintf(stderr, "tracebuf: CPU-wide tracing needs CAP_PERFMON (or CAP_SYS_ADMIN) while "
		TB_PARAMS "paranoid is 1 or more");
	if (lvl[0])
		fprintf(stderr, " (now %s)", lvl);
	fprintf(stderr, ": run as root or with CAP_PERFMON, or let every user of %s trace "
		"CPU-wide with paranoid <= 0 (as root: echo 0 > " TB_PARAMS "paranoid)\n",
		tb_device_path());
}

static void open_error(int err)
{
	if (err == -EACCES || err == -EPERM)
		fprintf(stderr, "tracebuf: cannot open %s: permission denied: run as root, or "
			"see the udev rule in the README (group tracebuf)\n", tb_device_path());
	else
		fprintf(stderr, "tracebuf: cannot open %s: %s\n", tb_device_path(),
			tracebuf_strerror(err));
}

/* GET_INFO: the backend "auto" or -b stands for, and the page size. */
static int pick_backend(struct record *R, struct tracebuf_session *s)
{
	struct tracebuf_backend_desc b[16];
	unsigned int i, n;
	int ret;

	ret = tracebuf_get_info(s, &R->info, b, 16);
	if (ret < 0) {
		fprintf(stderr, "tracebuf: cannot get info from %s: %s\n", tb_device_path(),
			tracebuf_strerror(ret));
		return -1;
	}
	if (R->info.abi_version != TRACEBUF_ABI_VERSION)
		fprintf(stderr, "tracebuf: warning: module ABI version %u, tool built for %u\n",
			R->info.abi_version, TRACEBUF_ABI_VERSION);
	if (!strcmp(R->backend, TRACEBUF_BACKEND_DATA)) {
		snprintf(R->backend_name, sizeof(R->backend_name), "%s", TRACEBUF_BACKEND_DATA);
		return 0;
	}
	n = R->info.nr_backends < 16 ? R->info.nr_backends : 16;
	if (!n) {
		fprintf(stderr, "tracebuf: %s\n", no_hw_hint);
		return -1;
	}
	for (i = 0; i < n; i++) {
		int len = (int)strnlen(b[i].name, sizeof(b[i].name));

		if (!strcmp(R->backend, TRACEBUF_BACKEND_AUTO) || !R->backend[0] ||
		    ((size_t)len == strlen(R->backend) && !memcmp(b[i].name, R->backend,
								  (size_t)len))) {
			snprintf(R->backend_name, sizeof(R->backend_name), "%.*s", len, b[i].name);
			R->emulated = !!(b[i].flags & TRACEBUF_BACKEND_F_EMULATED);
			R->has_aux = 1;
			return 0;
		}
	}
	fprintf(stderr, "tracebuf: no backend '%s' on this machine (see 'tracebuf info')\n",
		R->backend);
	return -1;
}

static int get_config(struct rcpu *c)
{
	int ret = tracebuf_get_drv_config(&c->s, NULL, 0, NULL);

	if (ret > 0) {
		c->config = malloc((size_t)ret);
		ret = c->config ? tracebuf_get_drv_config(&c->s, c->config, (size_t)ret,
							  &c->generation) : -ENOMEM;
	}
	if (ret < 0) {
		free(c->config);
		c->config = NULL;
		fprintf(stderr, "tracebuf: CPU %u: cannot read the configuration: %s\n", c->cpu,
			tracebuf_strerror(ret));
	}
	return ret < 0 ? ret : 0;
}

static int open_cpu(struct record *R, struct rcpu *c, int first);

/*
 * CoreSight: CPUs whose ETMs feed one shared sink are traced by one
 * session over all of them (the sink is one AUX ring). Regroup R->c by
 * sink after the first CPU's session told us the sinks; the first
 * session is reopened over its group. 0 or -1 (message printed).
 */
static int group_by_sink(struct record *R)
{
	unsigned int i, j, n = 0, words = (R->info.nr_cpu_ids + 63) / 64;
	struct tracebuf_cs_caps *caps = calloc(R->nr_cpus, sizeof(*caps));
	int ret = -1;

	if (!caps || !words) {
		fprintf(stderr, "tracebuf: out of memory\n");
		goto out;
	}
	for (i = 0; i < R->nr_cpus; i++) {
		int r = tracebuf_get_caps(&R->c[0].s, "coresight", R->c[i].cpu, &caps[i],
					  sizeof(caps[i]));

		if (r < 0) {
			fprintf(stderr, "tracebuf: CPU %u has no CoreSight trace unit: %s\n",
				R->c[i].cpu, tracebuf_strerror(r));
			goto out;
		}
	}
	/* Keep the first CPU of each sink; give it the others. */
	for (i = 0; i < R->nr_cpus; i++) {
		for (j = 0; j < n; j++)
			if (caps[j].sink == caps[i].sink)
				break;
		if (j == n) {
			R->c[n].cpu = R->c[i].cpu;
			caps[n] = caps[i];
			R->c[n].cpuset = calloc(words, 8);
			R->c[n].cpuset_words = words;
			if (!R->c[n].cpuset) {
				fprintf(stderr, "tracebuf: out of memory\n");
				goto out;
			}
			n++;
		}
		R->c[j].cpuset[R->c[i].cpu / 64] |= 1ULL << (R->c[i].cpu % 64);
	}
	for (i = n; i < R->nr_cpus; i++)
		R->c[i].s.fd = -1;
	R->nr_cpus = n;
	/* The first session traces one CPU so far: again, over its group. */
	tracebuf_close(&R->c[0].s);
	R->c[0].s.fd = -1;
	if (open_cpu(R, &R->c[0], 0))
		goto out;
	ret = 0;
out:
	free(caps);
	return ret;
}

/* Open, SETUP, map, configure one CPU; returns an exit status or 0. */
static int open_cpu(struct record *R, struct rcpu *c, int first)
{
	struct tracebuf_setup su;
	struct tracebuf_cfg_error err;
	int ret;

	ret = tracebuf_open(&c->s, 0);
	if (ret < 0) {
		open_error(ret);
		return TB_EXIT_FAIL;
	}
	if (first && pick_backend(R, &c->s))
		return TB_EXIT_FAIL;

	memset(&su, 0, sizeof(su));
	su.target = TRACEBUF_TARGET_CPU;
	su.cpu = c->cpu;
	if (c->cpuset) {
		su.target = TRACEBUF_TARGET_CPUSET;
		su.cpu = 0;
		su.cpuset_ptr = (uintptr_t)c->cpuset;
		su.cpuset_size = c->cpuset_words * 8;
	}
	if (R->per_task) {
		/* The same CPU or CPU set, for one process (and its children). */
		su.target = TRACEBUF_TARGET_TASK;
		su.pid = R->task;
		su.flags = R->no_inherit ? 0 : TRACEBUF_SETUP_F_INHERIT;
	}
	su.data_watermark = R->data_size / 4;
	su.aux_watermark = R->snapshot ? 0 : R->aux_size / 4;
	memcpy(su.backend, R->backend_name, strnlen(R->backend_name, sizeof(su.backend) - 1));
	ret = tracebuf_setup(&c->s, &su);
	if (ret < 0) {
		if (ret == -ENODEV && R->has_aux && !strcmp(R->backend, TRACEBUF_BACKEND_AUTO))
			fprintf(stderr, "tracebuf: CPU %u: %s\n", c->cpu, no_hw_hint);
		else if (ret == -EINVAL && cpu_online(c->cpu) == 0)
			fprintf(stderr, "tracebuf: CPU %u is not online\n", c->cpu);
		else if (ret == -EINVAL && c->cpu >= R->info.nr_cpu_ids)
			fprintf(stderr, "tracebuf: no CPU %u (nr_cpu_ids is %u)\n", c->cpu,
				R->info.nr_cpu_ids);
		else if (R->per_task && ret == -ESRCH)
			fprintf(stderr, "tracebuf: no process %d (or it is exiting)\n", (int)R->task);
		else if (R->per_task && ret == -EACCES)
			fprintf(stderr, "tracebuf: you may not trace process %d: it is another "
				"user's, or not dumpable (set-user-ID): the rule is ptrace's "
				"(PTRACE_MODE_READ_REALCREDS)\n", (int)R->task);
		else if (R->per_task && ret == -EBUSY)
			fprintf(stderr, "tracebuf: process %d is already traced by another "
				"tracebuf session on CPU %u\n", (int)R->task, c->cpu);
		else if (R->per_task && ret == -EOPNOTSUPP)
			fprintf(stderr, "tracebuf: this kernel cannot trace one process (no "
				"scheduler tracepoints): use -a\n");
		else if (R->per_task && ret == -EINVAL)
			fprintf(stderr, "tracebuf: the module refused to trace process %d on CPU "
				"%u (a module older than the per-task target?): -a or -C trace "
				"CPUs\n", (int)R->task, c->cpu);
		else
			fprintf(stderr, "tracebuf: cannot set up a %s session on CPU %u: %s\n",
				R->backend_name, c->cpu, ret == -EPERM ?
				"pinned-memory limit" : tracebuf_strerror(ret));
		if (ret == -EPERM)
			pin_limit_hint();
		return TB_EXIT_FAIL;
	}
	ret = tracebuf_map(&c->s, R->data_size, 0);
	if (ret < 0) {
		fprintf(stderr, "tracebuf: CPU %u: cannot map a data ring of %" PRIu64
			" bytes: %s\n", c->cpu, R->data_size, ret == -EPERM ?
			"pinned-memory limit" : tracebuf_strerror(ret));
		if (ret == -EPERM)
			pin_limit_hint();
		return TB_EXIT_FAIL;
	}
	if (!R->has_aux) {
		if (!R->config && !R->snapshot)
			return 0;
		fprintf(stderr, "tracebuf: %s needs a trace backend, not \"%s\"\n",
			R->config ? "-c" : "--snapshot", R->backend_name);
		return TB_EXIT_USAGE;
	}
	ret = tracebuf_map_aux(&c->s, R->aux_size, R->snapshot ? TRACEBUF_MAP_READONLY : 0);
	if (ret < 0) {
		fprintf(stderr, "tracebuf: CPU %u: cannot map an AUX ring of %" PRIu64
			" bytes: %s\n", c->cpu, R->aux_size, ret == -EPERM ?
			"pinned-memory limit" : tracebuf_strerror(ret));
		if (ret == -EPERM)
			pin_limit_hint();
		return TB_EXIT_FAIL;
	}
	if (R->config) {
		ret = tracebuf_set_drv_config(&c->s, R->config, 0, &err);
		if (ret < 0) {
			fprintf(stderr, "tracebuf: CPU %u: %s\n", c->cpu,
				err.message[0] ? err.message : tracebuf_strerror(ret));
			if (err.reason != TRACEBUF_CFG_OK)
				tb_print_caret(R->config, err.offset, err.len);
			return TB_EXIT_USAGE;
		}
	}
	if (get_config(c))
		return TB_EXIT_FAIL;
	if (!strcmp(R->backend_name, "intel_pt") &&
	    tracebuf_get_caps(&c->s, R->backend_name, c->cpu, &c->caps, sizeof(c->caps)) >= 0)
		c->have_caps = 1;
	return 0;
}

static int enable_cpu(struct record *R, struct rcpu *c)
{
	int ret;

	if (!R->has_aux)
		return 0;
	ret = tracebuf_enable(&c->s);
	if (ret == 0) {
		c->enabled = 1;
		return 0;
	}
	if (ret == -EBUSY) {
		fprintf(stderr, "tracebuf: CPU %u: Intel PT is in use by someone else, e.g. "
			"perf's intel_pt: stop it first\n", c->cpu);
	} else if (ret == -EACCES && R->per_task) {
		char lvl[16];

		read_param("paranoid", lvl, sizeof(lvl));
		fprintf(stderr, "tracebuf: cannot trace process %d: permission denied: without "
			"CAP_PERFMON, tracing a process of your own needs " TB_PARAMS "paranoid "
			"<= 2 (now %s), and kernel=1 <= 1\n", (int)R->task, lvl[0] ? lvl : "?");
	} else if (ret == -EACCES) {
		fprintf(stderr, "tracebuf: CPU %u: cannot start tracing: permission denied\n",
			c->cpu);
		paranoid_hint();
	} else {
		fprintf(stderr, "tracebuf: CPU %u: cannot start tracing: %s\n", c->cpu,
			tracebuf_strerror(ret));
	}
	return -1;
}

static void disable_all(struct record *R)
{
	unsigned int i;
	int ret;

	for (i = 0; i < R->nr_cpus; i++) {
		struct rcpu *c = &R->c[i];

		if (!c->enabled)
			continue;
		ret = tracebuf_disable(&c->s);
		if (ret < 0)
			fprintf(stderr, "tracebuf: CPU %u: cannot stop tracing: %s\n", c->cpu,
				tracebuf_strerror(ret));
		c->enabled = 0;
	}
}

/* ---- the command -------------------------------------------------------- */

/*
 * Fork the command now; it waits on go[0] and execs when the parent
 * writes a byte (after ENABLE), or exits 127 if the pipe closes without
 * one. An exec failure comes back as an errno on the CLOEXEC pipe err[].
 */
static int fork_command(struct record *R, int *go_fd, int *err_fd)
{
	int go[2], err[2];
	sigset_t empty;
	char b;

	if (pipe2(go, O_CLOEXEC) || pipe2(err, O_CLOEXEC)) {
		fprintf(stderr, "tracebuf: pipe: %s\n", strerror(errno));
		return -1;
	}
	R->child = fork();
	if (R->child < 0) {
		fprintf(stderr, "tracebuf: fork: %s\n", strerror(errno));
		return -1;
	}
	if (R->child == 0) {
		int e;

		close(go[1]);
		close(err[0]);
		sigemptyset(&empty);
		sigprocmask(SIG_SETMASK, &empty, NULL);
		if (read(go[0], &b, 1) != 1)
			_exit(127);
		execvp(R->command[0], R->command);
		e = errno;
		if (write(err[1], &e, sizeof(e)) < 0)
			_exit(127);
		_exit(127);
	}
	close(go[0]);
	close(err[1]);
	*go_fd = go[1];
	*err_fd = err[0];
	return 0;
}

static int start_command(struct record *R, int go_fd, int err_fd)
{
	ssize_t n;
	int e = 0;

	n = write(go_fd, "g", 1);
	close(go_fd);
	if (n == 1) {
		n = read(err_fd, &e, sizeof(e));	/* EOF at exec */
	}
	close(err_fd);
	if (n != 0 || e) {
		fprintf(stderr, "tracebuf: cannot run %s: %s\n", R->command[0],
			strerror(e ? e : EIO));
		return -1;
	}
	return 0;
}

static void reap_child(struct record *R, int block)
{
	pid_t p;

	if (R->child <= 0 || R->child_done)
		return;
	do {
		p = waitpid(R->child, &R->child_status, block ? 0 : WNOHANG);
	} while (p < 0 && errno == EINTR && block);
	if (p == R->child)
		R->child_done = 1;
}

/*
 * After the stop: wait for the command, unless SIGINT or SIGTERM comes
 * again (the signals are blocked: they arrive on the signalfd).
 */
static void wait_child(struct record *R)
{
	struct signalfd_siginfo si;
	struct pollfd pfd;

	if (R->sigfd < 0) {
		reap_child(R, 1);
		return;
	}
	pfd.fd = R->sigfd;
	pfd.events = POLLIN;
	for (;;) {
		reap_child(R, 0);
		if (R->child_done)
			return;
		if (poll(&pfd, 1, 100) < 0 && errno != EINTR)
			break;
		while (read(R->sigfd, &si, sizeof(si)) == sizeof(si)) {
			if (si.ssi_signo == SIGINT || si.ssi_signo == SIGTERM) {
				fprintf(stderr, "tracebuf: not waiting for %s (pid %d)\n",
					R->command[0], (int)R->child);
				return;
			}
		}
	}
}

/* ---- progress and summary ----------------------------------------------- */

static void human(char *buf, size_t size, double v)
{
	static const char *const unit[] = { "B", "KiB", "MiB", "GiB", "TiB" };
	int u = 0;

	while (v >= 1024 && u < 4) {
		v /= 1024;
		u++;
	}
	snprintf(buf, size, u ? "%.1f %s" : "%.0f %s", v, unit[u]);
}

static void progress(struct record *R, double secs, double dt)
{
	char line[1024], b[32], r[32];
	uint64_t total = 0, delta = 0;
	struct winsize ws;
	size_t len, width = sizeof(line) - 1;
	unsigned int i;
	int n;

	for (i = 0; i < R->nr_cpus; i++) {
		read_counters(&R->c[i]);
		total += R->c[i].aux_bytes;
		delta += R->c[i].aux_bytes - R->c[i].prog_bytes;
	}
	human(b, sizeof(b), (double)total);
	human(r, sizeof(r), dt > 0 ? (double)delta / dt : 0);
	n = snprintf(line, sizeof(line), "[%6.1fs] %s, %s/s |", secs, b, r);
	len = n > 0 ? (size_t)n : 0;
	for (i = 0; i < R->nr_cpus && len < sizeof(line) - 1; i++) {
		struct rcpu *c = &R->c[i];
		uint64_t lost = lost_records(c) + truncations(c) + collisions(c);

		human(b, sizeof(b), (double)c->aux_bytes);
		n = snprintf(line + len, sizeof(line) - len, " cpu%u %s%s", c->cpu, b,
			     c->stopped ? " (stopped)" : "");
		if (n > 0)
			len += (size_t)n;
		if (lost && len < sizeof(line) - 1) {
			n = snprintf(line + len, sizeof(line) - len, " lost %" PRIu64, lost);
			if (n > 0)
				len += (size_t)n;
		}
		c->prog_bytes = c->aux_bytes;
	}
	if (len > sizeof(line) - 1)
		len = sizeof(line) - 1;
	if (ioctl(STDERR_FILENO, TIOCGWINSZ, &ws) == 0 && ws.ws_col > 1)
		width = ws.ws_col - 1;
	if (len > width)
		len = width;
	fprintf(stderr, "\r%.*s\033[K", (int)len, line);
	R->progress_len = len;
}

static void progress_clear(struct record *R)
{
	if (R->progress_len) {
		fputs("\r\033[K", stderr);
		R->progress_len = 0;
	}
}

/* Always, on stderr. Returns 1 if anything was lost. */
static int summary(struct record *R)
{
	uint64_t t_bytes = 0, t_spans = 0, t_trunc = 0, t_coll = 0, t_lost = 0, t_gap = 0;
	double secs = (double)(R->end_ns - R->start_ns) / 1e9;
	unsigned int i;
	int lost = 0;

	fprintf(stderr, "tracebuf: recorded %u CPU%s for %.3f s into %s%s\n", R->nr_cpus,
		R->nr_cpus == 1 ? "" : "s", secs, R->outdir, R->snapshot ? " (snapshot mode)" : "");
	fprintf(stderr, "  %5s %14s %8s %10s %10s %12s\n", "CPU", "AUX bytes", "spans",
		"truncated", "collisions", "lost records");
	for (i = 0; i < R->nr_cpus; i++) {
		struct rcpu *c = &R->c[i];

		fprintf(stderr, "  %5u %14" PRIu64 " %8" PRIu64 " %10" PRIu64 " %10" PRIu64
			" %12" PRIu64 "%s%s\n", c->cpu, c->aux_bytes, c->aux_spans,
			truncations(c), collisions(c), lost_records(c),
			c->error ? "  " : "", c->error ? c->error : "");
		t_bytes += c->aux_bytes;
		t_spans += c->aux_spans;
		t_trunc += truncations(c);
		t_coll += collisions(c);
		t_lost += lost_records(c);
		t_gap += c->aux_gap;
	}
	fprintf(stderr, "  %5s %14" PRIu64 " %8" PRIu64 " %10" PRIu64 " %10" PRIu64
		" %12" PRIu64 "\n", "total", t_bytes, t_spans, t_trunc, t_coll, t_lost);
	for (i = 0; i < R->nr_cpus; i++) {
		struct rcpu *c = &R->c[i];

		if (truncations(c) || lost_records(c) || c->aux_gap || c->aux_lost) {
			fprintf(stderr, "tracebuf: trace lost on CPU %u (", c->cpu);
			if (truncations(c))
				fprintf(stderr, "%" PRIu64 " truncated span%s%s", truncations(c),
					truncations(c) == 1 ? "" : "s",
					lost_records(c) || c->aux_gap || c->aux_lost ? ", " : "");
			if (c->aux_lost)
				fprintf(stderr, "%s%" PRIu64 " bytes of trace the AUX ring had no "
					"room for%s", c->aux_lost_atleast ? "at least " : "",
					c->aux_lost, lost_records(c) || c->aux_gap ? ", " : "");
			if (c->aux_gap)
				fprintf(stderr, "%" PRIu64 " bytes of trace without a record%s",
					c->aux_gap, lost_records(c) ? ", " : "");
			if (lost_records(c))
				fprintf(stderr, "%" PRIu64 " lost record%s", lost_records(c),
					lost_records(c) == 1 ? "" : "s");
			fprintf(stderr, "): the consumer fell behind; use a bigger --aux-size "
				"(or --data-size), or --allow-loss\n");
			lost = 1;
		}
		if (collisions(c)) {
			fprintf(stderr, "tracebuf: trace lost on CPU %u: %" PRIu64 " collision%s: "
				"another owner (perf's intel_pt?) took the trace hardware\n",
				c->cpu, collisions(c), collisions(c) == 1 ? "" : "s");
			lost = 1;
		}
	}
	(void)t_gap;
	for (i = 0; R->snapshot && i < R->nr_cpus; i++)
		if (R->c[i].snap_dropped)
			fprintf(stderr, "tracebuf: CPU %u: %" PRIu64 " bytes of its spans were "
				"older than the newest ring or written over before a snapshot; "
				"not saved (snapshot mode)\n", R->c[i].cpu, R->c[i].snap_dropped);
	if (R->sb) {
		rsb_summary(R->sb, stderr);
		if (rsb_lost(R->sb)) {
			fprintf(stderr, "tracebuf: sideband records lost: the perf rings were "
				"full\n");
			lost = 1;
		}
	}
	if (lost && R->allow_loss)
		fprintf(stderr, "tracebuf: loss allowed (--allow-loss)\n");
	return lost;
}

/* ---- the event loop ----------------------------------------------------- */

/*
 * SIGUSR2: every session stopped (DISABLE publishes what it wrote), its
 * ring read and the held spans settled with the hardware stopped
 * (snap_*()), then started again, as perf stops its event to read a
 * snapshot; SNAPSHOT would restart the hardware over the ring's oldest
 * bytes while they are copied.
 */
static void take_snapshot(struct record *R)
{
	unsigned int i;
	int ret;

	for (i = 0; i < R->nr_cpus; i++) {
		struct rcpu *c = &R->c[i];

		if (!c->enabled || c->stopped)
			continue;
		ret = tracebuf_disable(&c->s);
		if (ret < 0) {
			fprintf(stderr, "\ntracebuf: CPU %u: snapshot failed: %s\n", c->cpu,
				tracebuf_strerror(ret));
			continue;
		}
		tracebuf_group_consume_session(R->group, &c->s);
		snap_settle(R, c);
		flush_data(R, c);
		ret = tracebuf_enable(&c->s);
		if (ret < 0) {
			fprintf(stderr, "\ntracebuf: CPU %u: cannot restart tracing after the "
				"snapshot: %s\n", c->cpu, tracebuf_strerror(ret));
			c->enabled = 0;
			stop_cpu(c, "restart failed");
		}
	}
}

/*
 * The signalfd, from the group's poll: note what arrived; the event loop
 * acts on it once the poll returned (a snapshot consumes the group).
 */
static int on_signal(void *ctx, int fd, unsigned int events)
{
	struct record *R = ctx;
	struct signalfd_siginfo si;

	(void)events;
	while (read(fd, &si, sizeof(si)) == sizeof(si)) {
		if (si.ssi_signo == SIGINT || si.ssi_signo == SIGTERM) {
			R->stopsig = (int)si.ssi_signo;
		} else if (si.ssi_signo == SIGUSR2) {
			if (R->snapshot)
				R->snap_req = 1;
			else if (!R->usr2_warned++)
				fprintf(stderr, "\ntracebuf: SIGUSR2 ignored: "
					"not in --snapshot mode\n");
		} else if (si.ssi_signo == SIGCHLD) {
			reap_child(R, 0);
		}
	}
	return 0;
}

static int task_exited(pid_t pid);

/* Returns the signal that stopped us (0: duration, command or all CPUs gone). */
static int event_loop(struct record *R)
{
	uint64_t deadline = 0, next_tick, next_prog, last_prog;
	unsigned int i, live;

	if (R->duration > 0)
		deadline = R->start_ns + (uint64_t)(R->duration * 1e9);
	next_tick = now_ns() + TICK_MS * 1000000ULL;
	last_prog = R->start_ns;
	next_prog = R->start_ns + 1000000000ULL;

	while (!R->stopsig && !R->fatal) {
		uint64_t now = now_ns(), wake = next_tick;
		int n, timeout;

		if (deadline && deadline < wake)
			wake = deadline;
		timeout = wake > now ? (int)((wake - now + 999999) / 1000000) : 0;
		n = tracebuf_group_poll(R->group, timeout);
		flush_all(R);
		if (R->fatal)
			break;
		if (n < 0 && n != -EINTR) {
			fprintf(stderr, "tracebuf: epoll_wait: %s\n", strerror(-n));
			R->fatal = 1;
			break;
		}
		if (R->snap_req) {
			R->snap_req = 0;
			take_snapshot(R);
		}
		now = now_ns();
		if (now >= next_tick) {
			drain_all(R);
			next_tick = now + TICK_MS * 1000000ULL;
		}
		if (R->child > 0 && R->child_done)
			break;
		if (R->pid && (R->task_gone || (R->pidfd < 0 && task_exited(R->pid))))
			break;
		if (deadline && now >= deadline)
			break;
		for (i = 0, live = 0; i < R->nr_cpus; i++)
			live += !R->c[i].stopped;
		if (!live) {
			fprintf(stderr, "tracebuf: no CPU left to trace: stopping\n");
			break;
		}
		if (R->progress && now >= next_prog) {
			progress(R, (double)(now - R->start_ns) / 1e9,
				 (double)(now - last_prog) / 1e9);
			last_prog = now;
			next_prog = now + 1000000000ULL;
		}
	}
	return R->stopsig;
}

/* ---- the command -------------------------------------------------------- */

static int parse_args(struct record *R, int argc, char **argv)
{
	static const struct option opts[] = {
		{ "all-cpus", no_argument, NULL, 'a' },
		{ "cpu", required_argument, NULL, 'C' },
		{ "backend", required_argument, NULL, 'b' },
		{ "config", required_argument, NULL, 'c' },
		{ "data-size", required_argument, NULL, 'D' },
		{ "aux-size", required_argument, NULL, 'A' },
		{ "snapshot", no_argument, NULL, 'S' },
		{ "output", required_argument, NULL, 'o' },
		{ "duration", required_argument, NULL, 'd' },
		{ "allow-loss", no_argument, NULL, 'L' },
		{ "quiet", no_argument, NULL, 'q' },
		{ "pid", required_argument, NULL, 'p' },
		{ "no-inherit", no_argument, NULL, 'I' },
		{ "sideband", required_argument, NULL, 's' },
		{ "help", no_argument, NULL, 'h' },
		{ NULL, 0, NULL, 0 }
	};
	long page = sysconf(_SC_PAGESIZE);
	int c, all = 0, ret;
	char *end;
	long v;

	if (page <= 0)
		page = 4096;
	tb_getopt_reset();
	/* '+': options end at the first non-option (the command). */
	while ((c = getopt_long(argc, argv, "+:aC:b:c:o:d:qp:h", opts, NULL)) != -1) {
		switch (c) {
		case 'a':
			all = 1;
			break;
		case 'C':
			free(R->cpus);
			R->cpus = NULL;
			if (parse_cpulist(optarg, &R->cpus, &R->nr_cpus) || !R->nr_cpus)
				return tb_usage_error("invalid CPU list", optarg);
			break;
		case 'b':
			if (!*optarg || strlen(optarg) >= TRACEBUF_NAME_LEN)
				return tb_usage_error("invalid backend name", optarg);
			snprintf(R->backend, sizeof(R->backend), "%s", optarg);
			break;
		case 'c':
			if (!*optarg || strlen(optarg) >= TRACEBUF_DRV_CONFIG_MAX)
				return tb_usage_error("invalid configuration string", optarg);
			R->config = optarg;
			break;
		case 'D':
			ret = parse_size("--data-size", optarg, (uint64_t)page,
					 TRACEBUF_DATA_SIZE_MAX, &R->data_size);
			if (ret)
				return ret;
			break;
		case 'A':
			ret = parse_size("--aux-size", optarg, (uint64_t)page,
					 TRACEBUF_AUX_SIZE_MAX, &R->aux_size);
			if (ret)
				return ret;
			break;
		case 'S':
			R->snapshot = 1;
			break;
		case 'o':
			if (!*optarg)
				return tb_usage_error("invalid output directory", optarg);
			R->outdir = optarg;
			break;
		case 'd':
			ret = parse_duration(optarg, &R->duration);
			if (ret)
				return ret;
			break;
		case 'L':
			R->allow_loss = 1;
			break;
		case 'q':
			R->quiet = 1;
			break;
		case 'p':
			errno = 0;
			v = strtol(optarg, &end, 10);
			if (!*optarg || *end || errno || v <= 0 || v > INT_MAX || *optarg == '+')
				return tb_usage_error("invalid process ID", optarg);
			R->pid = (pid_t)v;
			break;
		case 'I':
			R->no_inherit = 1;
			break;
		case 's':
			if (!strcmp(optarg, "auto"))
				R->sb_mode = RSB_AUTO;
			else if (!strcmp(optarg, "perf"))
				R->sb_mode = RSB_PERF;
			else if (!strcmp(optarg, "proc"))
				R->sb_mode = RSB_PROC;
			else if (!strcmp(optarg, "none"))
				R->sb_mode = RSB_NONE;
			else
				return tb_usage_error("invalid --sideband (auto, perf, proc or none)",
						      optarg);
			break;
		case 'h':
			fputs(record_usage, stdout);
			return -1;
		default:
			return tb_bad_option(argv, c);
		}
	}
	if (all && R->cpus)
		return tb_usage_error("-a and -C exclude each other", "-a");
	if (R->pid && (all || R->cpus))
		return tb_usage_error("-p traces a process on every CPU; -a and -C trace CPUs",
				      "-p");
	if (optind < argc) {
		/* getopt stops at "--" (and steps over it) or the first operand. */
		if (strcmp(argv[optind - 1], "--"))
			return tb_usage_error("unexpected argument (a command goes after '--')",
					      argv[optind]);
		R->command = argv + optind;
	} else if (optind > 1 && !strcmp(argv[optind - 1], "--")) {
		return tb_usage_error("missing command after", "--");
	}
	if (R->pid && R->command)
		return tb_usage_error("-p and a command exclude each other", "-p");
	/* A command or -p: that process, unless -a or -C asked for CPUs. */
	R->per_task = (R->command || R->pid) && !all && !R->cpus;
	if (R->no_inherit && !R->per_task)
		return tb_usage_error("--no-inherit is for -p or a command without -a or -C",
				      "--no-inherit");
	if (!R->cpus) {
		char buf[4096];

		if (read_online(buf, sizeof(buf)) ||
		    parse_cpulist(buf, &R->cpus, &R->nr_cpus) || !R->nr_cpus) {
			fprintf(stderr, "tracebuf: cannot read the online CPUs from "
				"/sys/devices/system/cpu/online\n");
			return TB_EXIT_FAIL;
		}
	}
	return 0;
}

static void cleanup(struct record *R)
{
	unsigned int i;

	/* The group first: it holds no file, but it points at the sessions. */
	tracebuf_group_free(R->group);
	R->group = NULL;
	rsb_free(R->sb);
	R->sb = NULL;
	for (i = 0; R->c && i < R->nr_cpus; i++) {
		struct rcpu *c = &R->c[i];

		if (c->data_fd >= 0)
			close(c->data_fd);
		if (c->aux_fd >= 0)
			close(c->aux_fd);
		tracebuf_close(&c->s);
		free(c->wbuf);
		free(c->config);
		while (c->nheld)	/* an error path: not settled */
			free(c->held[--c->nheld].bytes);
		free(c->held);
	}
	for (i = 0; R->c && i < R->nr_cpus; i++)
		free(R->c[i].cpuset);
	free(R->c);
	free(R->cpus);
	if (R->sigfd >= 0)
		close(R->sigfd);
	if (R->pidfd >= 0)
		close(R->pidfd);
}

/* -p: the process exited (its pidfd is readable). */
static int on_pidfd(void *ctx, int fd, unsigned int events)
{
	struct record *R = ctx;

	(void)fd;
	(void)events;
	R->task_gone = 1;
	return 0;
}

/* -p without a pidfd (before 5.3): gone, or a zombie. */
static int task_exited(pid_t pid)
{
	char path[64], buf[256], *p;
	ssize_t n;
	int fd;

	snprintf(path, sizeof(path), "/proc/%d/stat", (int)pid);
	fd = open(path, O_RDONLY | O_CLOEXEC);
	if (fd < 0)
		return 1;
	n = read(fd, buf, sizeof(buf) - 1);
	close(fd);
	if (n <= 0)
		return 1;
	buf[n] = 0;
	p = strrchr(buf, ')');		/* the comm may hold anything */
	return !p || p[1] != ' ' || p[2] == 'Z' || p[2] == 'X';
}

int cmd_record(int argc, char **argv)
{
	struct record rec, *R = &rec;
	struct rsb_opts so;
	sigset_t mask, oldmask;
	int go_fd = -1, err_fd = -1, ret, status = TB_EXIT_FAIL, stopsig = 0, ran = 0;
	unsigned int i, nr_all;

	memset(R, 0, sizeof(*R));
	snprintf(R->backend, sizeof(R->backend), "%s", TRACEBUF_BACKEND_AUTO);
	R->data_size = DEF_DATA_SIZE;
	R->aux_size = DEF_AUX_SIZE;
	R->outdir = DEF_OUTPUT;
	R->sigfd = R->pidfd = -1;
	R->sb_mode = RSB_AUTO;
	the_record = R;

	ret = parse_args(R, argc, argv);
	if (ret) {
		free(R->cpus);
		return ret < 0 ? TB_EXIT_OK : ret;
	}

	/*
	 * Signals through a signalfd, blocked from here on (a SIGCHLD of the
	 * command waits for it); the command gets the old mask back.
	 */
	sigemptyset(&mask);
	sigaddset(&mask, SIGINT);
	sigaddset(&mask, SIGTERM);
	sigaddset(&mask, SIGUSR2);
	sigaddset(&mask, SIGCHLD);
	sigprocmask(SIG_BLOCK, &mask, &oldmask);

	R->c = calloc(R->nr_cpus, sizeof(*R->c));
	if (!R->c) {
		fprintf(stderr, "tracebuf: out of memory\n");
		goto out;
	}
	for (i = 0; i < R->nr_cpus; i++) {
		R->c[i].cpu = R->cpus[i];
		R->c[i].s.fd = -1;
		R->c[i].data_fd = R->c[i].aux_fd = -1;
	}
	nr_all = R->nr_cpus;

	/* The command first, stopped before its exec: the sessions need its pid. */
	if (R->command && fork_command(R, &go_fd, &err_fd))
		goto out;
	if (R->per_task)
		R->task = R->command ? R->child : R->pid;

	/* Everything that can fail on the device, before the directory. */
	for (i = 0; i < R->nr_cpus; i++) {
		ret = open_cpu(R, &R->c[i], i == 0);
		if (!ret && i == 0 && !strcmp(R->backend_name, "coresight") &&
		    group_by_sink(R))
			ret = TB_EXIT_FAIL;
		if (ret) {
			status = ret;
			goto out;
		}
		R->c[i].wbuf = malloc(WBUF_SIZE);
		if (!R->c[i].wbuf) {
			fprintf(stderr, "tracebuf: out of memory\n");
			goto out;
		}
	}
	/* The sideband of every CPU traced (CoreSight: not only each sink's first). */
	memset(&so, 0, sizeof(so));
	so.outdir = R->outdir;
	so.mode = R->sb_mode;
	so.pid = R->per_task ? R->task : 0;
	so.inherit = !R->no_inherit;
	so.cpus = R->cpus;
	so.nr_cpus = nr_all;
	if (rsb_open(&R->sb, &so))
		goto out;
	if (prepare_outdir(R->outdir))
		goto out;
	for (i = 0; i < R->nr_cpus; i++) {
		R->c[i].data_fd = open_out(R, &R->c[i], "data");
		R->c[i].aux_fd = open_out(R, &R->c[i], "aux");
		if (R->c[i].data_fd < 0 || R->c[i].aux_fd < 0)
			goto out;
	}
	if (rsb_create_files(R->sb))
		goto out;

	R->sigfd = signalfd(-1, &mask, SFD_NONBLOCK | SFD_CLOEXEC);
	ret = R->sigfd < 0 ? -errno : tracebuf_group_new(NULL, &R->group);
	if (!ret)
		ret = tracebuf_group_add_fd(R->group, R->sigfd, on_signal, R);
	if (ret) {
		fprintf(stderr, "tracebuf: signalfd/epoll: %s\n", strerror(-ret));
		goto out;
	}
	for (i = 0; i < R->nr_cpus; i++) {
		ret = tracebuf_group_add(R->group, &R->c[i].s, &record_ops, &R->c[i]);
		if (ret) {
			fprintf(stderr, "tracebuf: epoll_ctl: %s\n", strerror(-ret));
			goto out;
		}
	}
	if (rsb_add_to_group(R->sb, R->group))
		goto out;
	if (R->pid) {
		R->pidfd = (int)syscall(SYS_pidfd_open, R->pid, 0);
		if (R->pidfd >= 0 && tracebuf_group_add_fd(R->group, R->pidfd, on_pidfd, R)) {
			close(R->pidfd);
			R->pidfd = -1;
		}
	}
	/* What the process is before anything is traced: the sideband's start. */
	rsb_initial(R->sb);

	clock_gettime(CLOCK_REALTIME, &R->start_rt);
	R->start_ns = now_ns();
	if (write_meta(R, 0))
		goto out_stop;
	for (i = 0; i < R->nr_cpus; i++)
		if (enable_cpu(R, &R->c[i]))
			goto out_stop;
	if (R->command && start_command(R, go_fd, err_fd)) {
		go_fd = err_fd = -1;
		goto out_stop;
	}
	go_fd = err_fd = -1;
	rsb_started(R->sb);
	R->progress = !R->quiet && isatty(STDERR_FILENO);
	if (!R->quiet && R->per_task)
		fprintf(stderr, "tracebuf: recording process %d on %u CPU%s with %s%s\n",
			(int)R->task, nr_all, nr_all == 1 ? "" : "s", R->backend_name,
			R->snapshot ? " in snapshot mode (SIGUSR2: snapshot)" : "");
	else if (!R->quiet)
		fprintf(stderr, "tracebuf: recording %u CPU%s with %s%s%s\n", R->nr_cpus,
			R->nr_cpus == 1 ? "" : "s", R->backend_name,
			R->snapshot ? " in snapshot mode (SIGUSR2: snapshot)" : "",
			R->command || R->duration > 0 ? "" : "; Ctrl-C to stop");

	stopsig = event_loop(R);
	status = TB_EXIT_OK;
	ran = 1;
out_stop:
	if (go_fd >= 0)
		close(go_fd);	/* the command exits 127 without running */
	if (err_fd >= 0)
		close(err_fd);
	go_fd = err_fd = -1;
	/* DISABLE publishes (in snapshot mode: the final snapshot). */
	disable_all(R);
	R->end_ns = now_ns();
	drain_all(R);
	for (i = 0; i < R->nr_cpus; i++)
		snap_settle(R, &R->c[i]);
	flush_all(R);
	progress_clear(R);
	for (i = 0; i < R->nr_cpus; i++) {
		read_counters(&R->c[i]);
		/* AUX bytes published with no record describing them. */
		if (R->has_aux && !R->snapshot && R->c[i].s.aux &&
		    tracebuf_aux_head(&R->c[i].s) - R->c[i].s.aux_tail < R->aux_size &&
		    tracebuf_aux_head(&R->c[i].s) != R->c[i].s.aux_tail)
			R->c[i].aux_gap += tracebuf_aux_head(&R->c[i].s) - R->c[i].s.aux_tail;
	}
	if (R->child > 0) {
		if (stopsig && !R->child_done)
			kill(R->child, stopsig);
		wait_child(R);
		/* Not if it never ran: it exits 127 when the start fails. */
		if (ran && R->child_done && WIFEXITED(R->child_status) &&
		    WEXITSTATUS(R->child_status))
			fprintf(stderr, "tracebuf: %s exited with status %d\n", R->command[0],
				WEXITSTATUS(R->child_status));
		else if (ran && R->child_done && WIFSIGNALED(R->child_status) &&
			 WTERMSIG(R->child_status) != stopsig)
			fprintf(stderr, "tracebuf: %s was killed by signal %d (%s)\n",
				R->command[0], WTERMSIG(R->child_status),
				strsignal(WTERMSIG(R->child_status)));
	}
	/* The sideband's last records (the command's exit), its files, the clock. */
	if (R->sb && R->start_ns && rsb_finish(R->sb))
		R->fatal = 1;
	if (R->fatal)
		status = TB_EXIT_FAIL;
	if (R->start_ns && write_meta(R, status == TB_EXIT_OK))
		status = TB_EXIT_FAIL;
	if (R->start_ns && (status == TB_EXIT_OK || R->fatal)) {
		if (summary(R) && !R->allow_loss && status == TB_EXIT_OK)
			status = TB_EXIT_FAIL;
	}
out:
	if (go_fd >= 0)
		close(go_fd);	/* set-up failed: the command exits 127 without running */
	if (err_fd >= 0)
		close(err_fd);
	if (R->child > 0 && !R->child_done)
		reap_child(R, 1);
	sigprocmask(SIG_SETMASK, &oldmask, NULL);
	cleanup(R);
	return status;
}
