// SPDX-License-Identifier: GPL-2.0
/*
 * From 'tracebuf record' to the program's instructions, end to end in a
 * guest: the emulator in follow mode (Intel PT's tb_ptemu on x86_64;
 * on arm64 CoreSight's tb_csemu, topology=juno: two ETMs through
 * funnels to a shared ETR) traces what a real program
 * executes (tests/guest/ptfollow.c single-steps it and tells the emulator
 * each retired instruction, writing the ground truth); the user's tool
 * records it as a user would ('tracebuf record -p PID', the per-task
 * target with its sideband); on the host the artifact channel decodes the
 * capture with 'tracebuf decode --insn --json' (the sideband's mappings,
 * the guest's binaries as the sysroot) and tests/host/gtcheck compares
 * every decoded instruction with the ground truth, branch for branch per
 * thread (PASS <cfg>/gtcheck-gt-record).
 *
 * Recordings of followprog: the whole program (gt-record); its signal mode
 * (gt-signal: 'followprog signal N', a SIGUSR1 handler installed with
 * sigaction and raised runs at the exit of the system call that unblocks
 * the signal, and returns through the libc restorer, rt_sigreturn: the
 * ground truth has that system call going to the handler's first
 * instruction and rt_sigreturn to the interrupted IP, where user
 * execution resumed, ptfollow's defer(), and so must the decoded flow;
 * the harness also checks that the ground truth with the handler left
 * out fails, <cfg>/gtcheck-gt-signal-nohandler); and with an IP filter
 * around fib() ('-c addr0=LO-HI:filter', the range from the binary's
 * symbol table; gt-filter: gtcheck --range, only fib's instructions,
 * entering and leaving it where the ground truth does; on arm64 an
 * ETMv4 ViewInst include range, which tb_csemu's follow mode honours per
 * instruction); and its fork mode
 * (gt-fork: 'followprog fork 1', the child execs followprog 1, two
 * threads; the tool's -p inherits to the child, the decoder follows the
 * exec from the sideband, and the ground truth has the execve going to
 * the new program's entry).
 *
 *   tool_gt [break]
 *
 * break (arm64): tb_csemu's follow_break knob inverts one atom of the
 * trace (the 2000th P0 instruction's), into /tmp/cap/gt-record-break: the
 * host's gtcheck of that capture must FAIL, which shows the comparison
 * sees a wrong branch.
 *
 * gt-snap: followprog 6 recorded in snapshot mode
 * ('record -p PID --snapshot --aux-size 16384', 262144 on arm64, where
 * each step's run fills a 4 KiB granule: the emulator overwrites
 * each CPU's ring freely, the stop takes the one snapshot once the
 * process is gone); the capture must be marked a snapshot, hold at most
 * the ring's size per CPU and less than the emulator wrote, and on the
 * host gtcheck --snapshot (gtcheck.args; on arm64 with --one-ring: both
 * CPUs' trace is in the shared ETR's one ring) compares its flow, the end of the
 * program, with the ground truth branch for branch; run-guest.sh's
 * gtcheck-gt-snap-mutated inverts the ground truth's last conditional
 * branch, which the snapshot holds, and must fail.
 *
 * gt-plt: tests/guest/gtplt/gtplt.c, dynamically linked (no libc; the system's
 * dynamic loader, our libgtplt.so, lazy binding), followed from the
 * loader's first instruction; it calls gtplt_mix() through its PLT
 * twice: through the loader's resolver, then straight to the function. The sysroot the host
 * decodes with holds the loader (build-guest.sh's root/). A whole capture:
 * run-guest.sh's gtcheck-gt-plt-mutated applies.
 *
 * followprog runs two threads (recursion, a loop, calls through a
 * pointer; one in its signal mode). ptfollow starts it stopped before its first instruction and
 * prints "pid N"; the tool is started on N and, once it records (its
 * progress line), the program goes on. '-p' ends when the process exits.
 */
#include <elf.h>
#include <signal.h>
#include <stdbool.h>
#include <sys/mman.h>
#include <sys/stat.h>

#include "ptcap.h"

#define PROG	"/tests/followprog"
/* gt-plt's program (tests/guest/gtplt/): dynamically linked. */
#define PLTPROG	"/tests/gtplt"

/* followprog's mode argument before N (NULL: none), for the next run_case(). */
static const char *mode;
/*
 * gt-snap: the next run_case() records in snapshot mode, an AUX ring of
 * SNAP_AUX bytes per CPU that the emulator overwrites freely; the stop
 * (the process exited) takes the one snapshot.
 */
static bool snap;
#ifdef __aarch64__
/*
 * CoreSight: every run of the shared ETR starts on a 4 KiB granule, and
 * a single-stepped thread's every switch-out ends a run (docs/abi.md,
 * Padding), so a ring holds one step's trace per 4 KiB: 64 of them.
 */
#define SNAP_AUX	262144
#define SNAP_AUX_STR	"262144"
/*
 * Both CPUs' trace in the one ring of the shared ETR: the snapshot's
 * window opened for both at once, and every run after its first is
 * whole (gtcheck --one-ring). Without it, a late first run on one CPU
 * leaves the earlier runs to fit anywhere, and an inverted branch among
 * them may pass (CI: gtcheck-gt-snap-mutated, 2 of 14 branches checked
 * in order).
 */
#define SNAP_ARGS	"--snapshot --one-ring\n"
#else
#define SNAP_AUX	16384
#define SNAP_AUX_STR	"16384"
#define SNAP_ARGS	"--snapshot\n"
#endif
#ifdef __aarch64__
#undef EMU
#define EMU	"/sys/kernel/debug/tb_csemu"
#endif

static unsigned long long follow_stat(const char *key)
{
	char line[128], k[64];
	unsigned long long v, r = ~0ULL;
	FILE *f = fopen(EMU "/follow_stats", "r");

	if (!f)
		return r;
	while (fgets(line, sizeof(line), f))
		if (sscanf(line, "%63s %llu", k, &v) == 2 && !strcmp(k, key))
			r = v;
	fclose(f);
	return r;
}

static off_t file_size(const char *path)
{
	struct stat st;

	return stat(path, &st) ? 0 : st.st_size;
}

static void copy_file(const char *from, const char *to)
{
	char buf[65536];
	int in = open(from, O_RDONLY), out = open(to, O_WRONLY | O_CREAT | O_TRUNC, 0644);
	ssize_t n;

	TBT_CHECK(in >= 0 && out >= 0, "copy %s to %s: %s", from, to, strerror(errno));
	while (in >= 0 && out >= 0 && (n = read(in, buf, sizeof(buf))) > 0)
		TBT_CHECK(write(out, buf, (size_t)n) == n, "write %s", to);
	if (in >= 0)
		close(in);
	if (out >= 0)
		close(out);
}

/* Whether the first 64 KiB of path hold s. */
static bool file_has(const char *path, const char *s)
{
	static char buf[65536];
	int fd = open(path, O_RDONLY);
	ssize_t n = fd >= 0 ? read(fd, buf, sizeof(buf) - 1) : -1;

	if (fd >= 0)
		close(fd);
	if (n < 0)
		return false;
	buf[n] = 0;
	return strstr(buf, s);
}

static void show(const char *path)
{
	char buf[4096];
	int fd = open(path, O_RDONLY);
	ssize_t n;

	while (fd >= 0 && (n = read(fd, buf, sizeof(buf))) > 0)
		fwrite(buf, 1, (size_t)n, stdout);
	if (fd >= 0)
		close(fd);
}

/* [*lo, *hi]: the bytes of function name in the static ELF file path. */
static int sym_range(const char *path, const char *name, unsigned long long *lo,
		     unsigned long long *hi)
{
	const Elf64_Ehdr *eh;
	const Elf64_Shdr *sh;
	struct stat st;
	const char *m;
	int fd, i, r = -1;

	fd = open(path, O_RDONLY);
	if (fd < 0 || fstat(fd, &st))
		return -1;
	m = mmap(NULL, (size_t)st.st_size, PROT_READ, MAP_PRIVATE, fd, 0);
	close(fd);
	if (m == MAP_FAILED)
		return -1;
	eh = (const Elf64_Ehdr *)m;
	sh = (const Elf64_Shdr *)(m + eh->e_shoff);
	for (i = 0; i < eh->e_shnum && r; i++) {
		const Elf64_Sym *sym = (const Elf64_Sym *)(m + sh[i].sh_offset);
		const char *str = m + sh[sh[i].sh_link].sh_offset;
		size_t k, n = sh[i].sh_size / sizeof(*sym);

		if (sh[i].sh_type != SHT_SYMTAB)
			continue;
		for (k = 0; k < n; k++)
			if (ELF64_ST_TYPE(sym[k].st_info) == STT_FUNC && sym[k].st_size &&
			    !strcmp(str + sym[k].st_name, name)) {
				*lo = sym[k].st_value;
				*hi = sym[k].st_value + sym[k].st_size - 1;
				r = 0;
				break;
			}
	}
	munmap((void *)m, (size_t)st.st_size);
	return r;
}

/* The program run_case() follows. */
static const char *prog = PROG;

/*
 * One recording of prog N (N NULL: no argument) by
 * 'tracebuf record -p PID [-c CONFIG]' to /tmp/cap/NAME, with the ground
 * truth and gtcheck.args (ARGS) for the host.
 */
static void run_case(const char *name, const char *n, const char *config, const char *args)
{
	char cap[64], gt[64], err[64], line[256], pidstr[16];
	int in[2], out[2], st, i, root = 0;
	unsigned long long queued, bytes;
	pid_t helper, rec;
	FILE *f;

	snprintf(cap, sizeof(cap), "/tmp/cap/%s", name);
	snprintf(gt, sizeof(gt), "/tmp/%s.txt", name);
	snprintf(err, sizeof(err), "/tmp/%s.err", name);
	printf("== %s: %s%s%s%s%s%s%s\n", name, prog, mode ? " " : "", mode ? mode : "",
	       n ? " " : "", n ? n : "", config ? ", -c " : "", config ? config : "");
	TBT_CHECK(write_file(EMU "/follow_mode", "1") == 0, "follow_mode on");
	queued = follow_stat("queued");
	bytes = follow_stat("bytes");

	TBT_CHECK(pipe(in) == 0 && pipe(out) == 0, "pipes");
	helper = fork();
	if (helper == 0) {
		dup2(in[0], 0);
		dup2(out[1], 1);
		close(in[1]);
		close(out[0]);
		if (mode)
			execl("/tests/ptfollow", "ptfollow", gt, prog, mode, n, (char *)NULL);
		else
			execl("/tests/ptfollow", "ptfollow", gt, prog, n, (char *)NULL);
		_exit(127);
	}
	close(in[0]);
	close(out[1]);
	f = fdopen(out[0], "r");
	TBT_CHECK(f && fgets(line, sizeof(line), f) && sscanf(line, "pid %d", &root) == 1,
		  "ptfollow did not start the program");
	if (!root)
		return;

	/* The user's tool on that process, as root, to the capture. */
	snprintf(pidstr, sizeof(pidstr), "%d", root);
	rec = fork();
	if (rec == 0) {
		int fd = open(err, O_WRONLY | O_CREAT | O_TRUNC, 0644);
		const char *av[16];
		int ac = 0;

		if (fd < 0)
			_exit(126);
		dup2(fd, 1);
		dup2(fd, 2);
		av[ac++] = "tracebuf";
		av[ac++] = "record";
		av[ac++] = "-p";
		av[ac++] = pidstr;
		if (config) {
			av[ac++] = "-c";
			av[ac++] = config;
		}
		if (snap) {
			av[ac++] = "--snapshot";
			av[ac++] = "--aux-size";
			av[ac++] = SNAP_AUX_STR;
		}
		av[ac++] = "-o";
		av[ac++] = cap;
		av[ac] = NULL;
		execvp("tracebuf", (char *const *)av);
		_exit(127);
	}
	/* It records once its progress line is out (after every ENABLE). */
	for (i = 0; i < 6000 && file_size(err) == 0; i++) {
		if (waitpid(rec, &st, WNOHANG) == rec) {
			rec = 0;
			break;
		}
		msleep(10);
	}
	TBT_CHECK(rec && file_size(err) > 0, "tracebuf record did not start");
	if (!rec || file_size(err) == 0) {
		show(err);
		kill(helper, SIGKILL);
		waitpid(helper, &st, 0);
		return;
	}
	TBT_CHECK(write(in[1], "go\n", 3) == 3, "go");
	TBT_CHECK(waitpid(helper, &st, 0) == helper && WIFEXITED(st) && WEXITSTATUS(st) == 0,
		  "ptfollow status %#x", st);
	line[0] = 0;
	while (fgets(line, sizeof(line), f) && strncmp(line, "steps ", 6))
		;
	TBT_CHECK(strstr(line, "status 0"), "ptfollow: %s", line);
	printf("ptfollow: %s", line);

	/* -p: the tool stops by itself once the process is gone. */
	for (i = 0; i < 3000 && waitpid(rec, &st, WNOHANG) == 0; i++)
		msleep(10);
	if (i == 3000) {
		kill(rec, SIGINT);
		waitpid(rec, &st, 0);
		TBT_CHECK(0, "tracebuf record -p did not stop when the process exited");
	}
	show(err);
	TBT_CHECK(WIFEXITED(st) && WEXITSTATUS(st) == 0, "tracebuf record: status %#x", st);

	/* Every step the helper reported was written, in one of the thread's runs. */
	TBT_CHECK(follow_stat("pending") == 0, "%llu steps never written", follow_stat("pending"));
	TBT_CHECK(follow_stat("dropped") == 0 && follow_stat("unsupported") == 0 &&
		  (!HAVE_PT || follow_stat("nmi_skipped") == 0), "follow stats");
	TBT_CHECK(follow_stat("queued") > queued, "nothing followed");
	snprintf(line, sizeof(line), "%s/meta.json", cap);
	TBT_CHECK(file_size(line) > 0, "no %s", line);
	if (snap) {
		/*
		 * A snapshot holds at most SNAP_AUX bytes per CPU, and less
		 * than the emulator wrote for the program: the ring was
		 * overwritten, only the newest trace is there.
		 */
		unsigned long long held = 0, wrote = follow_stat("bytes") - bytes;

		TBT_CHECK(file_has(line, "\"snapshot\": true"), "%s: not a snapshot", line);
		for (i = 0; i < 64; i++) {
			off_t sz;

			snprintf(line, sizeof(line), "%s/cpu%d.aux", cap, i);
			sz = file_size(line);
			TBT_CHECK(sz <= SNAP_AUX, "%s: %lld bytes, more than the ring's %d", line,
				  (long long)sz, SNAP_AUX);
			held += (unsigned long long)sz;
		}
		printf("snapshot: %llu bytes of the %llu the emulator wrote\n", held, wrote);
		TBT_CHECK(held > 0 && held < wrote, "the snapshot holds %llu of the %llu bytes "
			  "written: not a snapshot of the newest part", held, wrote);
	}
	/* The host compares the decoded instructions with this ground truth. */
	snprintf(line, sizeof(line), "%s/gt.txt", cap);
	copy_file(gt, line);
	if (args) {
		FILE *a;

		snprintf(line, sizeof(line), "%s/gtcheck.args", cap);
		a = fopen(line, "w");
		TBT_CHECK(a && fputs(args, a) >= 0 && fclose(a) == 0, "write %s", line);
	}
	if (!HAVE_PT)
		write_file(EMU "/follow_break", "0");
	TBT_CHECK(write_file(EMU "/follow_mode", "0") == 0, "follow_mode off");
	fclose(f);
	close(in[1]);
}

int main(int argc, char **argv)
{
	unsigned long long lo = 0, hi = 0;
	char config[96], args[96];
	bool breaking = argc > 1 && !strcmp(argv[1], "break");

	setvbuf(stdout, NULL, _IONBF, 0);
#ifdef __aarch64__
	static const char *const csemu[] = { "modprobe", "tb_csemu", "topology=juno", NULL };

	TBT_CHECK(tbt_modprobe("tracebuf") == 0, "modprobe tracebuf");
	if (tbt_module_loaded("tb_csemu"))
		tbt_rmmod("tb_csemu");
	TBT_CHECK(tbt_run(csemu) == 0, "modprobe tb_csemu topology=juno");
#else
	if (!HAVE_PT) {
		printf("no follow-mode emulator on this architecture: skip\n");
		return 77;
	}
	TBT_CHECK(tbt_modprobe("tracebuf") == 0, "modprobe tracebuf");
	TBT_CHECK(tbt_modprobe("tb_ptemu") == 0, "modprobe tb_ptemu");
#endif
	mkdir("/tmp/cap", 0755);

	if (breaking) {
		TBT_CHECK(!HAVE_PT && write_file(EMU "/follow_break", "2000") == 0,
			  "follow_break (tb_csemu only)");
		printf("follow_break 2000: gtcheck-gt-record-break must FAIL\n");
		run_case("gt-record-break", "6", NULL, NULL);
	} else {
		run_case("gt-record", "6", NULL, NULL);
	}

	/*
	 * gt-snap: the same program recorded in snapshot mode: the
	 * stop's snapshot holds each CPU's newest trace, the end of the
	 * program; gtcheck --snapshot on the host.
	 */
	if (!breaking) {
		snap = true;
		run_case("gt-snap", "6", NULL, SNAP_ARGS);
		snap = false;
	}

	/* A signal handler, run at the exit of a system call of the thread's own. */
	if (!breaking) {
		mode = "signal";
		run_case("gt-signal", "4", NULL, NULL);
		mode = NULL;
	}

	if (!breaking) {
		TBT_CHECK(sym_range(PROG, "fib", &lo, &hi) == 0, "no fib in %s's symbol table",
			  PROG);
		if (!tbt_failures) {
			snprintf(config, sizeof(config), "addr0=%#llx-%#llx:filter", lo, hi);
			snprintf(args, sizeof(args), "--range %llx-%llx\n", lo, hi);
			run_case("gt-filter", "5", config, args);
		}
	}

	/*
	 * gt-plt: a dynamically linked program, from its loader's first
	 * instruction on; its two calls of a function in a shared library
	 * through the PLT, the first through the loader's lazy-binding
	 * resolver, the second straight to the function (the capture's
	 * sideband names the loader and the library; the host's sysroot has
	 * them).
	 */
	if (!breaking) {
		prog = PLTPROG;
		run_case("gt-plt", NULL, NULL, NULL);
		prog = PROG;
	}

	/*
	 * fork + exec: the child execs followprog 1, followed from its fork.
	 * On arm64 the capture is over 100 MB (a 4 KiB granule of formatter
	 * padding per switch of a single-stepped thread): run-guest.sh gives
	 * arm64 guests 1024 MB, so /tmp (tmpfs, half of it) holds it beside
	 * the plan's other captures.
	 */
	if (!breaking) {
		mode = "fork";
		run_case("gt-fork", "1", NULL, NULL);
		mode = NULL;
	}

	tbt_rmmod(HAVE_PT ? "tb_ptemu" : "tb_csemu");
	tbt_rmmod("tracebuf");
	return tbt_done();
}
