// SPDX-License-Identifier: GPL-2.0
/*
 * 'tracebuf record' and 'tracebuf dump' as a user runs them, against the
 * Intel PT emulator: all CPUs for a duration, a configuration, a bad
 * configuration (the token is pointed at), SIGINT mid-capture (nothing
 * lost: every byte the emulator wrote is in the capture), '-- command',
 * SIGUSR2 snapshots, loss reported by the exit status unless
 * --allow-loss, and the hints for no backend and no permission.
 *
 * Captures under /tmp/cap/ are decoded on the host by the host's own
 * 'tracebuf decode' (zero decode errors required).
 */
#include <signal.h>
#include <sys/stat.h>

#include "ptcap.h"

#define OUT	"/tmp/tool.out"

/* Run the tool; stdout+stderr to OUT; returns the exit status (or -1). */
static int tool(int uid, const char *const argv[])
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

static int out_has(const char *s)
{
	char buf[16384];
	int fd = open(OUT, O_RDONLY);
	ssize_t n;

	if (fd < 0)
		return 0;
	n = read(fd, buf, sizeof(buf) - 1);
	close(fd);
	buf[n > 0 ? n : 0] = 0;
	return strstr(buf, s) != NULL;
}

/* Lines of OUT (its first 256 KiB) that contain s. */
static int out_count(const char *s)
{
	static char buf[256 << 10];
	int fd = open(OUT, O_RDONLY), n = 0;
	ssize_t len;
	char *p;

	if (fd < 0)
		return 0;
	len = read(fd, buf, sizeof(buf) - 1);
	close(fd);
	buf[len > 0 ? len : 0] = 0;
	for (p = buf; (p = strstr(p, s)); p = strchr(p, '\n') ?: p + strlen(p))
		n++;
	return n;
}

static void show_out(void)
{
	const char *argv[] = { "cat", OUT, NULL };

	tbt_run(argv);
}

static long long file_size(const char *dir, const char *name)
{
	char path[256];
	struct stat st;

	snprintf(path, sizeof(path), "%s/%s", dir, name);
	return stat(path, &st) ? -1 : st.st_size;
}

static int file_has(const char *path, const char *s)
{
	static char buf[65536];
	int fd = open(path, O_RDONLY);
	ssize_t n;

	if (fd < 0)
		return 0;
	n = read(fd, buf, sizeof(buf) - 1);
	close(fd);
	buf[n > 0 ? n : 0] = 0;
	return strstr(buf, s) != NULL;
}

/* Every byte the emulator wrote on the CPUs is in DIR/cpuN.aux. */
static void check_accounting(const char *dir, const unsigned long long *w0, int ncpu)
{
	long long total = 0, want = 0;
	char name[32];
	int c;

	for (c = 0; c < ncpu; c++) {
		snprintf(name, sizeof(name), "cpu%d.aux", c);
		if (file_size(dir, name) >= 0)
			total += file_size(dir, name);
		want += emu_stat(c, "bytes_written") - w0[c];
	}
	printf("%s: %lld AUX bytes captured, emulator wrote %lld\n", dir, total, want);
	TBT_CHECK(total == want && total > 0, "%s: captured %lld, written %lld", dir, total, want);
}

/* Start the tool in the background (stdout+stderr to OUT). */
static pid_t tool_bg(const char *const argv[])
{
	pid_t pid = fork();

	if (pid == 0) {
		int fd = open(OUT, O_WRONLY | O_CREAT | O_TRUNC, 0666);

		dup2(fd, 1);
		dup2(fd, 2);
		execvp(argv[0], (char *const *)argv);
		_exit(127);
	}
	return pid;
}

static int wait_status(pid_t pid)
{
	int st;

	if (waitpid(pid, &st, 0) != pid)
		return -1;
	return WIFEXITED(st) ? WEXITSTATUS(st) : -1;
}

int main(void)
{
	unsigned long long w0[2];
	int rc, n;

	setvbuf(stdout, NULL, _IONBF, 0);
	if (tbt_modprobe("tracebuf"))
		return 1;
	mkdir("/tmp/cap", 0755);
	{
		const char *argv[] = { "tracebuf", "record", "-C", "0", "--duration", "0.1",
				       "-o", "/tmp/r0", NULL };

		rc = tool(-1, argv);
		TBT_CHECK(rc == 1 && out_has("no trace hardware"), "no backend: rc %d", rc);
		if (rc != 1)
			show_out();
	}
	if (!HAVE_PT)
		return tbt_done();
	if (tbt_modprobe("tb_ptemu"))
		return 1;
	TBT_CHECK(write_file(EMU "/rate", "4096") == 0, "rate");

	/* All CPUs for half a second, with a configuration. */
	w0[0] = emu_stat(0, "bytes_written");
	w0[1] = emu_stat(1, "bytes_written");
	{
		const char *argv[] = { "tracebuf", "record", "-a", "-c", "cyc=1,mtc=1",
				       "--duration", "0.5", "-o", "/tmp/cap/rec_all", NULL };

		rc = tool(-1, argv);
		show_out();
		TBT_CHECK(rc == 0, "record -a: rc %d", rc);
	}
	check_accounting("/tmp/cap/rec_all", w0, 2);
	TBT_CHECK(file_has("/tmp/cap/rec_all/meta.json", "\"complete\": true") ||
		  file_has("/tmp/cap/rec_all/meta.json", "\"complete\":true"), "meta complete");
	TBT_CHECK(file_has("/tmp/cap/rec_all/meta.json", "cyc=1"), "meta has the config");
	{
		const char *argv[] = { "tracebuf", "dump", "/tmp/cap/rec_all", NULL };

		rc = tool(-1, argv);
		TBT_CHECK(rc == 0, "dump: rc %d", rc);
		TBT_CHECK(out_has("AUX") && out_has("CONFIG"), "dump shows AUX and CONFIG records");
	}
	{
		const char *argv[] = { "tracebuf", "dump", "--json", "/tmp/cap/rec_all", NULL };

		rc = tool(-1, argv);
		TBT_CHECK(rc == 0 && out_has("{"), "dump --json: rc %d", rc);
	}

	/* A bad configuration: exit 2, the token pointed at. */
	{
		const char *argv[] = { "tracebuf", "record", "-C", "1", "-c", "cyc=1,cyc_thresh=99",
				       "--duration", "0.1", "-o", "/tmp/r_bad", NULL };

		rc = tool(-1, argv);
		TBT_CHECK(rc == 2 && out_has("cyc_thresh=99") && out_has("^"), "bad config: rc %d", rc);
		if (rc != 2)
			show_out();
	}

	/* SIGINT mid-capture: a clean stop, nothing lost. */
	w0[0] = emu_stat(0, "bytes_written");
	w0[1] = emu_stat(1, "bytes_written");
	{
		const char *argv[] = { "tracebuf", "record", "-C", "1", "-q", "-o",
				       "/tmp/cap/rec_int", NULL };
		pid_t pid = tool_bg(argv);

		msleep(400);
		kill(pid, SIGINT);
		rc = wait_status(pid);
		show_out();
		TBT_CHECK(rc == 0, "SIGINT: rc %d", rc);
	}
	w0[0] = emu_stat(0, "bytes_written");	/* only CPU 1 was recorded */
	check_accounting("/tmp/cap/rec_int", w0, 2);
	TBT_CHECK(file_has("/tmp/cap/rec_int/meta.json", "complete\": true") ||
		  file_has("/tmp/cap/rec_int/meta.json", "complete\":true"), "SIGINT: meta complete");

	/* '-- command': stops when the command exits. */
	{
		const char *argv[] = { "tracebuf", "record", "-C", "0", "-o", "/tmp/r_cmd", "--",
				       "sleep", "0.2", NULL };

		rc = tool(-1, argv);
		TBT_CHECK(rc == 0 && file_size("/tmp/r_cmd", "cpu0.aux") > 0, "-- command: rc %d", rc);
		if (rc)
			show_out();
	}

	/* Snapshot mode: SIGUSR2 takes a snapshot, SIGINT the last one. */
	{
		const char *argv[] = { "tracebuf", "record", "-C", "1", "--snapshot", "-q", "-o",
				       "/tmp/r_snap", NULL };
		pid_t pid = tool_bg(argv);

		msleep(300);
		kill(pid, SIGUSR2);
		msleep(200);
		kill(pid, SIGINT);
		rc = wait_status(pid);
		TBT_CHECK(rc == 0, "snapshot: rc %d", rc);
	}
	{
		const char *argv[] = { "tracebuf", "dump", "/tmp/r_snap", NULL };

		/*
		 * Two snapshots, each read with the hardware stopped (SIGUSR2:
		 * DISABLE, ENABLE again): at least two OVERWRITE spans, and at
		 * most a ring (1 MiB) saved by each.
		 */
		rc = tool(-1, argv);
		n = out_count("OVERWRITE");
		TBT_CHECK(rc == 0 && n >= 2, "snapshot dump: rc %d, %d OVERWRITE spans", rc, n);
		if (rc || n < 2)
			show_out();
		TBT_CHECK(file_size("/tmp/r_snap", "cpu1.aux") > 0 &&
			  file_size("/tmp/r_snap", "cpu1.aux") <= 2 << 20,
			  "snapshot: cpu1.aux %lld bytes", file_size("/tmp/r_snap", "cpu1.aux"));
	}

	/* Loss: a tiny AUX ring drained rarely. Exit 1, unless --allow-loss. */
	TBT_CHECK(write_file(EMU "/rate", "65536") == 0, "rate");
	{
		const char *argv[] = { "tracebuf", "record", "-C", "1", "--aux-size", "8K",
				       "--duration", "0.3", "-q", "-o", "/tmp/r_loss", NULL };

		rc = tool(-1, argv);
		TBT_CHECK(rc == 1 && out_has("lost"), "loss: rc %d", rc);
		if (rc != 1)
			show_out();
	}
	{
		const char *argv[] = { "tracebuf", "record", "-C", "1", "--aux-size", "8K",
				       "--duration", "0.3", "-q", "--allow-loss", "-o", "/tmp/r_loss2",
				       NULL };

		rc = tool(-1, argv);
		TBT_CHECK(rc == 0, "--allow-loss: rc %d", rc);
	}
	TBT_CHECK(write_file(EMU "/rate", "4096") == 0, "rate");

	/* Without permission: the hint says what to do. */
	chmod("/tmp", 01777);
	{
		const char *argv[] = { "tracebuf", "record", "-C", "0", "--duration", "0.1",
				       "-o", "/tmp/r_unpriv", NULL };

		rc = tool(65534, argv);
		TBT_CHECK(rc == 1 && out_has("ermission"), "unprivileged: rc %d", rc);
		show_out();
	}
	TBT_CHECK(tbt_rmmod("tb_ptemu") == 0, "rmmod tb_ptemu");
	return tbt_done();
}
