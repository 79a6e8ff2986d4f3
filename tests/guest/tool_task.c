// SPDX-License-Identifier: GPL-2.0
/*
 * 'tracebuf record -- PROG' as an ordinary user (uid 65534): the per-task
 * target by default, and the sideband a decoder needs, with the Intel PT
 * emulator (x86_64) or the CoreSight emulator (arm64, tb_csemu
 * topology=juno: one session over both CPUs' shared ETR). PROG is tests/guest/taskprog.c's "sideband" mode: a thread, an
 * executable mapping made while traced, a fork + exec of a child; each
 * process copies its /proc/self/maps to a file. Untraced spinners (root)
 * keep both CPUs busy meanwhile.
 *
 * Twice: with kernel.perf_event_paranoid at 3 (Debian's default: perf
 * refuses the user its dummy events, record falls back to /proc, says so
 * in one line and marks the sideband partial) and at 2 (perf's sideband).
 * Each capture, read with libtracebuf's capture reader:
 *  - the emulator's per-process oracle (PT: cpuN/tasks, CoreSight:
 *    etmN/tasks) names the program and its child only: no byte while an
 *    untraced task ran; PT: the bytes it counts are the capture's AUX
 *    bytes; the emulator's bytes_written (CoreSight: the sink's bytes, and
 *    the capture's padding) too (every byte accounted for);
 *  - meta.json: complete, nothing lost, target "task", pid, the sideband's
 *    source (proc / perf_event) and partial flag;
 *  - every executable mapping of each maps.PID file is an MMAP2 record of
 *    that pid in the sideband (address, length, offset, path), with the
 *    file's build-id (and the vDSO's copy's, from /proc); the child's
 *    FORK and its exec's COMM are there; every sideband record is of a
 *    traced process;
 *  - the vDSO's copy is this kernel's vDSO (this process's, byte for
 *    byte);
 *  - the clock conversion (PT): the TSC of the PSB+ that starts each run,
 *    converted with time_conv, lies between the run's SWITCH IN and OUT
 *    record times (CLOCK_MONOTONIC), within 10 ms (the conversion is a
 *    line through two measured pairs);
 *  - 'tracebuf dump' shows the SWITCH, TASK and PERF_MMAP2 records.
 * The captures (/tmp/cap/tooltask-*) are decoded on the host (zero errors;
 * CoreSight: exported for OpenCSD and checked by cscheck, cscheck.args).
 */
#include <dirent.h>
#include <elf.h>
#include <signal.h>
#include <sys/auxv.h>
#include <sys/stat.h>

#include "ptcap.h"

#define PROG		"/tests/taskprog"
#define NOBODY		65534
#define NCPU		2
#define OUT		"/tmp/tool_task.out"
#define MAXMAPS		256
#define SLACK_NS	10000000ULL
#ifdef __aarch64__
#define CS		1	/* the CoreSight emulator */
#define CSEMU		"/sys/kernel/debug/tb_csemu"
#else
#define CS		0
#endif

struct mm2 {
	uint32_t pid;
	uint64_t addr, len, pgoff;
	char path[256];
	uint8_t bid[20];
	unsigned int bidlen;
};

static struct mm2 maps[MAXMAPS];
static unsigned int nmaps;

/* ---- helpers ------------------------------------------------------------ */

static void show(const char *path)
{
	const char *argv[] = { "cat", path, NULL };

	tbt_run(argv);
}

/* The whole file (a CoreSight capture's dump is longer than 64 KiB). */
static int file_has(const char *path, const char *s)
{
	static char buf[4 << 20];
	int fd = open(path, O_RDONLY);
	size_t len = 0;
	ssize_t n;

	if (fd < 0)
		return 0;
	while (len < sizeof(buf) - 1 && (n = read(fd, buf + len, sizeof(buf) - 1 - len)) > 0)
		len += (size_t)n;
	close(fd);
	buf[len] = 0;
	return strstr(buf, s) != NULL;
}

/* argv as uid (-1: root), stdout and stderr to OUT; the exit status. */
static int run_as(int uid, const char *const argv[])
{
	pid_t pid = fork();
	int st;

	if (pid == 0) {
		int fd = open(OUT, O_WRONLY | O_CREAT | O_TRUNC, 0666);

		if (fd < 0)
			_exit(126);
		dup2(fd, 1);
		dup2(fd, 2);
		if (uid >= 0 && (setgid(uid) || setuid(uid)))
			_exit(125);
		execvp(argv[0], (char *const *)argv);
		_exit(127);
	}
	if (pid < 0 || waitpid(pid, &st, 0) < 0)
		return -1;
	return WIFEXITED(st) ? WEXITSTATUS(st) : -1;
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

static int write_str(const char *path, const char *v)
{
	return write_file(path, v);
}

/* The GNU build-id note of an ELF64 image in memory. */
static unsigned int build_id(const uint8_t *img, size_t len, uint8_t *id)
{
	Elf64_Ehdr eh;
	unsigned int i;

	if (len < sizeof(eh) || memcmp(img, ELFMAG, SELFMAG) || img[EI_CLASS] != ELFCLASS64)
		return 0;
	memcpy(&eh, img, sizeof(eh));
	for (i = 0; i < eh.e_phnum; i++) {
		Elf64_Phdr ph;
		size_t off, at = eh.e_phoff + (size_t)i * eh.e_phentsize;

		if (at + sizeof(ph) > len)
			return 0;
		memcpy(&ph, img + at, sizeof(ph));
		if (ph.p_type != PT_NOTE || ph.p_offset + ph.p_filesz > len)
			continue;
		for (off = ph.p_offset; off + 12 <= ph.p_offset + ph.p_filesz; ) {
			uint32_t n[3];

			memcpy(n, img + off, 12);
			if (n[2] == NT_GNU_BUILD_ID && n[0] == 4 && n[1] <= 20 &&
			    !memcmp(img + off + 12, "GNU", 4)) {
				memcpy(id, img + off + 16, n[1]);
				return n[1];
			}
			off += 12 + ((n[0] + 3) & ~3U) + ((n[1] + 3) & ~3U);
		}
	}
	return 0;
}

static unsigned int file_build_id(const char *path, uint8_t *id)
{
	static uint8_t buf[4 << 20];
	int fd = open(path, O_RDONLY);
	ssize_t n;

	if (fd < 0)
		return 0;
	n = read(fd, buf, sizeof(buf));
	close(fd);
	return n > 0 ? build_id(buf, (size_t)n, id) : 0;
}

/* ---- the emulators ---------------------------------------------------------- */

/* The per-process oracle of CPU k's unit. */
static void oracle_path(char *path, size_t len, int k)
{
	if (CS)
		snprintf(path, len, "/sys/kernel/debug/tb_csemu/etm%d/tasks", k);
	else
		snprintf(path, len, EMU "/cpu%d/tasks", k);
}

/* Bytes the emulator wrote for tracebuf (CoreSight: what sink 0 wrote). */
static unsigned long long emu_written(void)
{
	unsigned long long w = 0, v;
	char k[64], line[256];
	FILE *f;
	int c;

	if (!CS) {
		for (c = 0; c < NCPU; c++)
			w += emu_stat(c, "bytes_written");
		return w;
	}
	f = fopen("/sys/kernel/debug/tb_csemu/sink0/stats", "r");
	if (!f)
		return 0;
	while (fgets(line, sizeof(line), f))
		if (sscanf(line, "%63s %llu", k, &v) == 2 && !strcmp(k, "bytes"))
			w = v;
	fclose(f);
	return w;
}

/* ---- the capture ----------------------------------------------------------- */

static void problem(void *ctx, const char *msg)
{
	printf("%s: %s\n", (const char *)ctx, msg);
}

static int traced(uint32_t pid, uint32_t root, const uint32_t *kids, int nkids)
{
	int i;

	if (pid == root)
		return 1;
	for (i = 0; i < nkids; i++)
		if (kids[i] == pid)
			return 1;
	return 0;
}

/* perf's conversion of a counter value (meta.json sideband.time_conv). */
static uint64_t conv(uint64_t c, uint64_t zero, uint64_t mult, uint64_t shift)
{
	uint64_t q = c >> shift, r = c & ((1ULL << shift) - 1);

	return zero + q * mult + ((r * mult) >> shift);
}

/*
 * Every executable mapping of DIR/maps.PID is an MMAP2 record of PID, with
 * the file's build-id (the vDSO: its copy's, when the record has one), and at
 * least WANT of them (the static test program and the vDSO; the parent also
 * its late mapping).
 */
static void check_maps_file(const char *name, const char *dir, pid_t pid,
			    const uint8_t *vbid, unsigned int vbidlen, unsigned int want)
{
	char path[512], line[512], perms[8], file[256];
	unsigned long long s, e, off;
	unsigned int i, n = 0;
	FILE *f;

	snprintf(path, sizeof(path), "%s/maps.%d", dir, (int)pid);
	f = fopen(path, "r");
	TBT_CHECK(f != NULL, "%s: no %s", name, path);
	if (!f)
		return;
	while (fgets(line, sizeof(line), f)) {
		int pos = 0;
		uint8_t bid[20];
		unsigned int bl = 0;

		if (sscanf(line, "%llx-%llx %7s %llx %*s %*s %n", &s, &e, perms, &off, &pos) < 4 ||
		    perms[2] != 'x')
			continue;
		snprintf(file, sizeof(file), "%s", line + pos);
		file[strcspn(file, "\n")] = 0;
		if (!file[0] || !strcmp(file, "[vsyscall]"))
			continue;
		n++;
		if (file[0] == '/')
			bl = file_build_id(file, bid);
		for (i = 0; i < nmaps; i++)
			if (maps[i].pid == (uint32_t)pid && maps[i].addr == s &&
			    maps[i].len == e - s && maps[i].pgoff == off &&
			    !strcmp(maps[i].path, file))
				break;
		TBT_CHECK(i < nmaps, "%s: pid %d's mapping %llx-%llx %s at %llx is not in the "
			  "sideband", name, (int)pid, s, e, file, off);
		if (i == nmaps)
			continue;
		if (file[0] == '/') {
			TBT_CHECK(bl && maps[i].bidlen == bl && !memcmp(maps[i].bid, bid, bl),
				  "%s: %s: build-id %u bytes in the sideband, %u in the file",
				  name, file, maps[i].bidlen, bl);
		} else if (!strcmp(file, "[vdso]") && maps[i].bidlen) {
			TBT_CHECK(maps[i].bidlen == vbidlen &&
				  !memcmp(maps[i].bid, vbid, vbidlen),
				  "%s: [vdso]'s build-id is not its copy's", name);
		}
	}
	fclose(f);
	printf("%s: pid %d: %u executable mappings, all in the sideband\n", name, (int)pid, n);
	TBT_CHECK(n >= want, "%s: pid %d: %u executable mappings, want %u", name, (int)pid, n,
		  want);
}

/* The vDSO's copy is this kernel's vDSO: this process's, byte for byte. */
static void check_vdso(const char *name, const char *cap, uint8_t *vbid, unsigned int *vbidlen)
{
	static uint8_t buf[1 << 16];
	const uint8_t *mine = (const uint8_t *)(uintptr_t)getauxval(AT_SYSINFO_EHDR);
	char path[512];
	ssize_t n;
	int fd;

	snprintf(path, sizeof(path), "%s/vdso.so", cap);
	fd = open(path, O_RDONLY);
	n = fd < 0 ? -1 : read(fd, buf, sizeof(buf));
	if (fd >= 0)
		close(fd);
	TBT_CHECK(n > 0 && mine, "%s: no vdso.so", name);
	if (n <= 0 || !mine)
		return;
	TBT_CHECK(!memcmp(buf, mine, (size_t)n), "%s: vdso.so is not the vDSO", name);
	*vbidlen = build_id(buf, (size_t)n, vbid);
	TBT_CHECK(*vbidlen > 0, "%s: the vDSO's copy has no build-id", name);
}

struct run_state {
	int in;
	uint64_t in_time, in_off, tsc;
	int have_tsc;
};

static void check_capture(const char *name, const char *cap, const char *dir, int perf)
{
	struct tracebuf_capture_opts o = {
		.sz = sizeof(o), .on_problem = problem, .ctx = (void *)name,
	};
	struct tracebuf_capture_iter_opts io = { .sz = sizeof(io), .flags = TRACEBUF_ITER_SIDEBAND };
	struct tracebuf_capture *c = NULL;
	struct tracebuf_capture_iter *it = NULL;
	const struct tracebuf_capture_rec *cr;
	struct run_state rs[8];
	uint64_t root = 0, aux = 0, tz = 0, tm = 0, tsh = 0, worst = 0, ns, runs = 0;
	uint32_t kids[16];
	int nkids = 0, complete = 0, lost = 1, partial = -1, i, k, have_conv, ncomm_exec = 0;
	unsigned long long bytes[64], other, obytes = 0;
	pid_t pids[64];
	char src[32], tgt[16];
	uint8_t vbid[20];
	unsigned int vbidlen = 0, nswitch = 0, ntask = 0, nforks = 0;
	unsigned int ids[8], nids = 0, j;

	memset(rs, 0, sizeof(rs));
	nmaps = 0;
	TBT_CHECK(tracebuf_capture_open(cap, &o, &c) == 0, "%s: the capture does not open", name);
	if (!c)
		return;
	tracebuf_capture_meta_bool(c, "complete", &complete);
	tracebuf_capture_meta_bool(c, "lost", &lost);
	tracebuf_capture_meta_u64(c, "pid", &root);
	tracebuf_capture_meta_bool(c, "sideband.partial", &partial);
	if (tracebuf_capture_meta_str(c, "sideband.source", src, sizeof(src)) < 0)
		src[0] = 0;
	if (tracebuf_capture_meta_str(c, "target", tgt, sizeof(tgt)) < 0)
		tgt[0] = 0;
	TBT_CHECK(complete && !lost, "%s: complete %d, lost %d", name, complete, lost);
	TBT_CHECK(!strcmp(tgt, "task") && root > 0, "%s: target %s pid %llu", name, tgt,
		  (unsigned long long)root);
	TBT_CHECK(!strcmp(src, perf ? "perf_event" : "proc") && partial == !perf,
		  "%s: sideband from %s, partial %d", name, src, partial);
	have_conv = !tracebuf_capture_meta_u64(c, "sideband.time_conv.time_zero", &tz) &&
		    !tracebuf_capture_meta_u64(c, "sideband.time_conv.time_mult", &tm) &&
		    !tracebuf_capture_meta_u64(c, "sideband.time_conv.time_shift", &tsh) &&
		    tsh < 64;
	TBT_CHECK(have_conv, "%s: no time_conv", name);
	check_vdso(name, cap, vbid, &vbidlen);

	TBT_CHECK(tracebuf_capture_iter_new(c, &io, &it) == 0, "%s: iterator", name);
	while (it && tracebuf_capture_next(it, &cr) > 0) {
		const struct tracebuf_rec_switch *sw = tracebuf_as_switch(cr->r);
		const struct tracebuf_rec_task *tk = tracebuf_as_task(cr->r);
		struct run_state *r = &rs[cr->cpu < 8 ? cr->cpu : 7];

		if (cr->sb) {
			const struct tracebuf_sb_rec *sb = cr->sb;
			const uint8_t *b = sb->body;

			if (sb->type == 10 /* PERF_RECORD_MMAP2 */ && sb->body_size > 64 &&
			    nmaps < MAXMAPS) {
				struct mm2 *m = &maps[nmaps++];

				memcpy(&m->pid, b, 4);
				memcpy(&m->addr, b + 8, 8);
				memcpy(&m->len, b + 16, 8);
				memcpy(&m->pgoff, b + 24, 8);
				snprintf(m->path, sizeof(m->path), "%.*s", (int)(sb->body_size - 64),
					 (const char *)b + 64);
				m->bidlen = 0;
				if (sb->misc & (1U << 14)) {	/* PERF_RECORD_MISC_MMAP_BUILD_ID */
					m->bidlen = b[32] > 20 ? 20 : b[32];
					memcpy(m->bid, b + 36, m->bidlen);
				}
			} else if (sb->type == 3 && (sb->misc & (1U << 13))) {	/* COMM exec */
				ncomm_exec++;
			} else if (sb->type == 7) {				/* FORK */
				uint32_t fk[2];

				memcpy(fk, b, 8);
				if (fk[0] != fk[1] && fk[1] == root)
					nforks++;
			}
			/* Only the traced processes: kids are known by then (FORK first). */
			if (sb->fields & TRACEBUF_SB_F_TID)
				TBT_CHECK(sb->pid == 0 || traced(sb->pid, (uint32_t)root, kids, nkids) ||
					  sb->type == 7,
					  "%s: a %s record of pid %u, not traced", name,
					  tracebuf_sb_type_name(sb->type), sb->pid);
			continue;
		}
		if (tracebuf_as_etm(cr->r)) {
			unsigned int id = tracebuf_as_etm(cr->r)->trace_id;

			for (j = 0; j < nids && ids[j] != id; j++)
				;
			if (j == nids && nids < 8)
				ids[nids++] = id;
			continue;
		}
		if (tk) {
			ntask++;
			if (tk->reason == TRACEBUF_TASK_FORK && nkids < 16)
				kids[nkids++] = tk->pid;
			continue;
		}
		if (!CS && cr->span && r->in && cr->span->offset == r->in_off &&
		    cr->span->size >= 24) {
			const uint8_t *p = cr->span->part[0];

			/* PSB, then TSC (0x19 + 7 bytes) first in its PSB+ (TSCEn). */
			if (p[0] == 2 && p[1] == 0x82 && p[16] == 0x19) {
				r->tsc = 0;
				memcpy(&r->tsc, p + 17, 7);
				r->have_tsc = 1;
			}
		}
		aux += cr->span ? cr->span->size : 0;
		if (!sw)
			continue;
		nswitch++;
		if (!(sw->flags & TRACEBUF_SWITCH_F_OUT)) {
			TBT_CHECK(traced(sw->pid, (uint32_t)root, kids, nkids),
				  "%s: IN of pid %u, not traced", name, sw->pid);
			r->in = !(sw->flags & TRACEBUF_SWITCH_F_BUSY);
			r->in_time = cr->r->time;
			r->in_off = sw->aux_offset;
			r->have_tsc = 0;
			continue;
		}
		if (r->in && r->have_tsc && have_conv) {
			ns = conv(r->tsc, tz, tm, tsh);
			if (ns + SLACK_NS < r->in_time || ns > cr->r->time + SLACK_NS)
				TBT_CHECK(0, "%s: a run's TSC %llu is %llu ns, not within [%llu, %llu]",
					  name, (unsigned long long)r->tsc, (unsigned long long)ns,
					  (unsigned long long)r->in_time,
					  (unsigned long long)cr->r->time);
			if (ns < r->in_time && r->in_time - ns > worst)
				worst = r->in_time - ns;
			if (ns > cr->r->time && ns - cr->r->time > worst)
				worst = ns - cr->r->time;
			runs++;
		}
		r->in = 0;
	}
	tracebuf_capture_iter_free(it);
	printf("%s: %u SWITCH, %u TASK, %u MMAP2 records, %llu AUX bytes; %llu runs' TSC "
	       "within their SWITCH records' times (worst outside: %llu ns)\n", name, nswitch,
	       ntask, nmaps, (unsigned long long)aux, (unsigned long long)runs,
	       (unsigned long long)worst);
	/* CoreSight: the emulator's ETMs write no timestamp by default. */
	TBT_CHECK(CS || runs > 0, "%s: no run with a TSC to check the conversion with", name);
	TBT_CHECK(nkids >= 1, "%s: no TASK FORK of the child", name);
	TBT_CHECK(nforks >= 1, "%s: no FORK of the child in the sideband", name);
	TBT_CHECK(ncomm_exec >= 2, "%s: %d COMM exec records (the program's, its child's)", name,
		  ncomm_exec);

	/* Each process's maps, as it saw them, are in the sideband. */
	check_maps_file(name, dir, (pid_t)root, vbid, vbidlen, 3);
	for (i = 0; i < nkids; i++)
		check_maps_file(name, dir, (pid_t)kids[i], vbid, vbidlen, 2);

	/* The oracle: only the program and its child produced bytes. */
	for (k = 0; k < NCPU; k++) {
		char path[96], key[32];
		unsigned long long v;
		FILE *f;
		int n = 0;

		oracle_path(path, sizeof(path), k);
		f = fopen(path, "r");
		TBT_CHECK(f != NULL, "%s: no %s", name, path);
		if (!f)
			continue;
		other = 0;
		while (fscanf(f, "%31s %llu", key, &v) == 2) {
			if (!strcmp(key, "other") || !strcmp(key, "remote")) {
				other += v;
			} else if (n < 64) {
				pids[n] = atoi(key);
				bytes[n++] = v;
			}
		}
		fclose(f);
		TBT_CHECK(!other, "%s: cpu%d: %llu bytes past the oracle's table", name, k, other);
		for (i = 0; i < n; i++) {
			TBT_CHECK(traced((uint32_t)pids[i], (uint32_t)root, kids, nkids),
				  "%s: cpu%d: %llu bytes produced while pid %d (not traced) ran",
				  name, k, bytes[i], (int)pids[i]);
			obytes += bytes[i];
		}
	}
	printf("%s: the oracle counts %llu bytes for the program and its child, the capture "
	       "holds %llu\n", name, obytes, (unsigned long long)aux);
	/* CoreSight: the capture holds formatter frames, not the ETMs' bytes. */
	TBT_CHECK(CS ? obytes > 0 && aux > 0 : obytes == aux && aux > 0,
		  "%s: oracle %llu bytes, capture %llu", name, obytes, (unsigned long long)aux);
	if (CS) {
		char path[160];
		FILE *f;

		/* For the host: OpenCSD decodes every trace ID (cscheck). */
		snprintf(path, sizeof(path), "%s/cscheck.args", cap);
		f = fopen(path, "w");
		TBT_CHECK(f && nids > 0, "%s: %s, %u trace IDs", name, path, nids);
		if (f) {
			fprintf(f, "--ids ");
			for (j = 0; j < nids; j++)
				fprintf(f, "%s0x%x", j ? "," : "", ids[j]);
			fprintf(f, "\n");
			fclose(f);
		}
	}
	tracebuf_capture_close(c);
}

/* ---- one recording --------------------------------------------------------- */

static void record_prog(const char *name, int paranoid)
{
	char cap[128], dir[128], ms[16], lvl[8];
	const char *argv[] = { "tracebuf", "record", "-q", "-o", cap, "--", PROG, "sideband", dir,
			       ms, NULL };
	unsigned long long w0, written, padding = 0;
	long long captured = 0;
	pid_t spin[NCPU];
	struct stat st;
	int c, rc;

	snprintf(cap, sizeof(cap), "/tmp/cap/%s", name);
	snprintf(dir, sizeof(dir), "/tmp/%s.maps", name);
	snprintf(ms, sizeof(ms), "%d", 600);
	snprintf(lvl, sizeof(lvl), "%d", paranoid);
	TBT_CHECK(write_str("/proc/sys/kernel/perf_event_paranoid", lvl) == 0,
		  "kernel.perf_event_paranoid=%d", paranoid);
	mkdir("/tmp/cap", 0755);
	mkdir(cap, 0755);
	mkdir(dir, 0755);
	TBT_CHECK(chown(cap, NOBODY, NOBODY) == 0 && chown(dir, NOBODY, NOBODY) == 0,
		  "chown %s %s", cap, dir);
	for (c = 0; c < NCPU; c++) {
		char path[96];

		oracle_path(path, sizeof(path), c);
		TBT_CHECK(write_file(path, "0") == 0, "clear %s", path);
	}
	w0 = emu_written();
	/* Untraced work on both CPUs the whole time. */
	for (c = 0; c < NCPU; c++)
		spin[c] = spinner(3000, c);

	rc = run_as(NOBODY, argv);
	show(OUT);
	for (c = 0; c < NCPU; c++) {
		kill(spin[c], SIGKILL);
		waitpid(spin[c], NULL, 0);
	}
	TBT_CHECK(rc == 0, "%s: record as uid %d: rc %d", name, NOBODY, rc);
	if (paranoid > 2) {
		TBT_CHECK(file_has(OUT, "tracebuf: partial sideband (read from /proc") &&
			  file_has(OUT, "(kernel.perf_event_paranoid is 3)") &&
			  file_has(OUT, "sysctl kernel.perf_event_paranoid=2"),
			  "%s: no line saying the sideband is partial and how to get it", name);
	} else {
		TBT_CHECK(!file_has(OUT, "partial sideband"), "%s: partial at paranoid %d", name,
			  paranoid);
	}
	if (rc)
		return;
	/* Every byte the emulator wrote is in the capture (and its padding). */
	written = emu_written() - w0;
	for (c = 0; c < NCPU; c++) {
		char path[160], key[48];
		struct tracebuf_capture *cp = NULL;
		uint64_t pad = 0;

		snprintf(path, sizeof(path), "%s/cpu%d.aux", cap, c);
		if (!stat(path, &st))
			captured += st.st_size;
		snprintf(key, sizeof(key), "per_cpu.%d.aux_padding", c);
		if (CS && !tracebuf_capture_open(cap, NULL, &cp) && cp) {
			if (!tracebuf_capture_meta_u64(cp, key, &pad))
				padding += pad;
			tracebuf_capture_close(cp);
		}
	}
	captured -= (long long)padding;
	printf("%s: the emulator wrote %llu bytes, the capture has %lld\n", name, written,
	       captured);
	TBT_CHECK((long long)written == captured && captured > 0,
		  "%s: written %llu, captured %lld", name, written, captured);
	check_capture(name, cap, dir, paranoid <= 2);
	{
		const char *d[] = { "tracebuf", "dump", cap, NULL };

		rc = run_as(-1, d);
		TBT_CHECK(rc == 0 && file_has(OUT, " SWITCH ") && file_has(OUT, " TASK ") &&
			  file_has(OUT, " PERF_MMAP2 ") && file_has(OUT, "# target: process"),
			  "%s: dump: rc %d, or no SWITCH, TASK, PERF_MMAP2 lines", name, rc);
	}
}

int main(void)
{
	char old[16] = "";
	int fd;
	mode_t mode;
	struct stat st;

	setvbuf(stdout, NULL, _IONBF, 0);
	if (!HAVE_PT && !CS) {
		printf("no trace emulator on this architecture: skip\n");
		return 77;
	}
	if (sysconf(_SC_NPROCESSORS_ONLN) < NCPU) {
		printf("needs %d CPUs\n", NCPU);
		return 1;
	}
	TBT_CHECK(tbt_modprobe("tracebuf") == 0, "modprobe tracebuf");
	if (CS) {
		const char *const emu[] = { "modprobe", "tb_csemu", "topology=juno", NULL };

		if (tbt_module_loaded("tb_csemu"))
			tbt_rmmod("tb_csemu");
		TBT_CHECK(tbt_run(emu) == 0, "modprobe tb_csemu topology=juno");
	} else {
		TBT_CHECK(tbt_modprobe("tb_ptemu") == 0, "modprobe tb_ptemu");
	}
	fd = open("/proc/sys/kernel/perf_event_paranoid", O_RDONLY);
	if (fd >= 0) {
		if (read(fd, old, sizeof(old) - 1) < 0)
			old[0] = 0;
		close(fd);
	}
	printf("kernel.perf_event_paranoid was %s", old);
	/* An ordinary user may open the device (the udev rule's group, in effect). */
	TBT_CHECK(stat(TRACEBUF_DEVICE, &st) == 0, "stat the device");
	mode = st.st_mode & 07777;
	TBT_CHECK(chmod(TRACEBUF_DEVICE, 0666) == 0, "chmod the device");
	chmod("/tmp", 01777);

	record_prog("tooltask-p3", 3);
	record_prog("tooltask-p2", 2);

	if (old[0])
		write_str("/proc/sys/kernel/perf_event_paranoid", old);
	chmod(TRACEBUF_DEVICE, mode);
	tbt_rmmod(CS ? "tb_csemu" : "tb_ptemu");
	tbt_rmmod("tracebuf");
	return tbt_done();
}
