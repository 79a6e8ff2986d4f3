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
 * followprog runs two threads (recursion, a loop, calls through a
 * pointer). ptfollow starts it stopped before its first instruction and
 * prints "pid N"; the tool is started on N and, once it records (its
 * progress line), the program goes on. '-p' ends when the process exits.
 *
 *   tool_gt [break]
 *
 * break (arm64): tb_csemu's follow_break knob inverts one atom of the
 * trace (the 2000th P0 instruction's), into /tmp/cap/gt-record-break: the
 * host's gtcheck of that capture must FAIL, which shows the comparison
 * sees a wrong branch.
 */
#include <signal.h>
#include <sys/stat.h>

#include "ptcap.h"

#define CAP0	"/tmp/cap/gt-record"
#ifdef __aarch64__
#undef EMU
#define EMU	"/sys/kernel/debug/tb_csemu"
#endif
#define GT	"/tmp/gt-record.txt"
#define ERR	"/tmp/gt-record.err"

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

static int breaking;	/* tool_gt break: the capture is gt-record-break */
static char cap[64] = CAP0;

int main(int argc, char **argv)
{
	int in[2], out[2], st, i, root = 0;
	char line[256], pidstr[16];
	unsigned long long queued;
	pid_t helper, rec;
	FILE *f;

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
	TBT_CHECK(write_file(EMU "/follow_mode", "1") == 0, "follow_mode on");
	breaking = argc > 1 && !strcmp(argv[1], "break");
	if (breaking) {
		snprintf(cap, sizeof(cap), "%s-break", CAP0);
		TBT_CHECK(!HAVE_PT && write_file(EMU "/follow_break", "2000") == 0,
			  "follow_break (tb_csemu only)");
		printf("follow_break 2000: gtcheck-gt-record-break must FAIL\n");
	}
	queued = follow_stat("queued");

	TBT_CHECK(pipe(in) == 0 && pipe(out) == 0, "pipes");
	helper = fork();
	if (helper == 0) {
		dup2(in[0], 0);
		dup2(out[1], 1);
		close(in[1]);
		close(out[0]);
		execl("/tests/ptfollow", "ptfollow", GT, "/tests/followprog", "6", (char *)NULL);
		_exit(127);
	}
	close(in[0]);
	close(out[1]);
	f = fdopen(out[0], "r");
	TBT_CHECK(f && fgets(line, sizeof(line), f) && sscanf(line, "pid %d", &root) == 1,
		  "ptfollow did not start the program");
	if (!root)
		return tbt_done();

	/* The user's tool on that process, as root, to the capture. */
	snprintf(pidstr, sizeof(pidstr), "%d", root);
	rec = fork();
	if (rec == 0) {
		int fd = open(ERR, O_WRONLY | O_CREAT | O_TRUNC, 0644);

		if (fd < 0)
			_exit(126);
		dup2(fd, 1);
		dup2(fd, 2);
		execlp("tracebuf", "tracebuf", "record", "-p", pidstr, "-o", cap, (char *)NULL);
		_exit(127);
	}
	/* It records once its progress line is out (after every ENABLE). */
	for (i = 0; i < 6000 && file_size(ERR) == 0; i++) {
		if (waitpid(rec, &st, WNOHANG) == rec) {
			rec = 0;
			break;
		}
		msleep(10);
	}
	TBT_CHECK(rec && file_size(ERR) > 0, "tracebuf record did not start");
	if (!rec || file_size(ERR) == 0) {
		show(ERR);
		kill(helper, SIGKILL);
		return tbt_done();
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
	show(ERR);
	TBT_CHECK(WIFEXITED(st) && WEXITSTATUS(st) == 0, "tracebuf record: status %#x", st);

	/* Every step the helper reported was written, in one of the thread's runs. */
	TBT_CHECK(follow_stat("pending") == 0, "%llu steps never written", follow_stat("pending"));
	TBT_CHECK(follow_stat("dropped") == 0 && follow_stat("unsupported") == 0 &&
		  (!HAVE_PT || follow_stat("nmi_skipped") == 0), "follow stats");
	TBT_CHECK(follow_stat("queued") > queued, "nothing followed");
	snprintf(line, sizeof(line), "%s/meta.json", cap);
	TBT_CHECK(file_size(line) > 0, "no %s", line);
	/* The host compares the decoded instructions with this ground truth. */
	snprintf(line, sizeof(line), "%s/gt.txt", cap);
	copy_file(GT, line);

	TBT_CHECK(write_file(EMU "/follow_mode", "0") == 0, "follow_mode off");
	if (!HAVE_PT)
		write_file(EMU "/follow_break", "0");
	fclose(f);
	close(in[1]);
	tbt_rmmod(HAVE_PT ? "tb_ptemu" : "tb_csemu");
	tbt_rmmod("tracebuf");
	return tbt_done();
}
