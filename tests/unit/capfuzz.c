// SPDX-License-Identifier: GPL-2.0
/*
 * Damaged captures against the tool's readers. Each round copies a good
 * capture, damages it one way and runs 'tracebuf dump', 'dump --json' and
 * 'decode' (Intel PT) or 'export --opencsd' (CoreSight) on it, or, in
 * "flow" mode (an Intel PT capture with a sideband and a vDSO copy, from
 * tests/unit/gtgen.c), 'dump', 'decode --insn --json' and 'export
 * --perfetto':
 *
 *   - none may crash (a signal, or a sanitizer's exit status), hang (20 s)
 *     or call it a usage error;
 *   - damage the checks of docs/capture-format.md ("Checks") must see
 *     (a file cut, grown, missing, swapped or renamed, a record size, an
 *     AUX record's size or type, a count in meta.json) must exit 1;
 *   - damage they cannot see (a bit or a byte anywhere, trace payload
 *     included; in flow mode anything done to the sideband or the vDSO's
 *     copy, which the checks do not cover) may exit 0 or 1, nothing else.
 *
 * The unchanged capture must exit 0 first, or the test proves nothing.
 *
 *   capfuzz TRACEBUF CAPTURE WORKDIR pt|cs|flow SEED ROUNDS
 */
#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <inttypes.h>
#include <signal.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

#include <tracebuf.h>

/* The sanitizers' exit status, set in the environment by the Makefile. */
#define SAN_EXIT	86

struct file {
	char name[64];
	unsigned char *buf;
	size_t len;
};

static struct file files[64], work[64];
static unsigned int nfiles, nwork;
static const char *tool, *workdir;
static char capdir[4096], outdir[4096];
static int cs, flow, skip_decode;
static uint64_t rng;
static unsigned int failures;

static uint64_t rnd(void)
{
	/* xorshift64*: reproducible from the printed seed. */
	rng ^= rng >> 12;
	rng ^= rng << 25;
	rng ^= rng >> 27;
	return rng * 2685821657736338717ULL;
}

static size_t below(size_t n)
{
	return n ? (size_t)(rnd() % n) : 0;
}

static void die(const char *what)
{
	perror(what);
	exit(2);
}

static void load(const char *dir)
{
	struct dirent *de;
	DIR *d = opendir(dir);

	if (!d)
		die(dir);
	while ((de = readdir(d)) != NULL) {
		char path[4200];
		struct stat st;
		FILE *f;

		if (de->d_name[0] == '.')
			continue;
		if (nfiles == 64 || strlen(de->d_name) >= sizeof(files[0].name))
			die("too many files");
		snprintf(path, sizeof(path), "%s/%s", dir, de->d_name);
		if (stat(path, &st) || !S_ISREG(st.st_mode))
			continue;
		f = fopen(path, "rb");
		if (!f)
			die(path);
		files[nfiles].len = (size_t)st.st_size;
		files[nfiles].buf = malloc(files[nfiles].len + 1);
		if (!files[nfiles].buf ||
		    fread(files[nfiles].buf, 1, files[nfiles].len, f) != files[nfiles].len)
			die(path);
		fclose(f);
		strcpy(files[nfiles].name, de->d_name);
		nfiles++;
	}
	closedir(d);
}

/* Remove the files (and one level of directories) under dir. */
static void clear(const char *dir, int depth)
{
	struct dirent *de;
	DIR *d = opendir(dir);

	if (!d)
		return;
	while ((de = readdir(d)) != NULL) {
		char path[4200];

		if (!strcmp(de->d_name, ".") || !strcmp(de->d_name, ".."))
			continue;
		snprintf(path, sizeof(path), "%s/%s", dir, de->d_name);
		if (unlink(path) && errno == EISDIR && depth < 3) {
			clear(path, depth + 1);
			rmdir(path);
		}
	}
	closedir(d);
}

static void write_work(void)
{
	unsigned int i;

	clear(capdir, 0);
	for (i = 0; i < nwork; i++) {
		char path[4200];
		FILE *f;

		snprintf(path, sizeof(path), "%s/%s", capdir, work[i].name);
		f = fopen(path, "wb");
		if (!f || fwrite(work[i].buf, 1, work[i].len, f) != work[i].len || fclose(f))
			die(path);
	}
}

static void reset(void)
{
	unsigned int i;

	for (i = 0; i < nwork; i++)
		free(work[i].buf);
	nwork = nfiles;
	for (i = 0; i < nfiles; i++) {
		work[i] = files[i];
		work[i].buf = malloc(files[i].len + 64);
		if (!work[i].buf)
			die("malloc");
		memcpy(work[i].buf, files[i].buf, files[i].len);
	}
}

static struct file *find(const char *name)
{
	unsigned int i;

	for (i = 0; i < nwork; i++)
		if (!strcmp(work[i].name, name))
			return &work[i];
	return NULL;
}

static int is_data(const struct file *f)
{
	size_t n = strlen(f->name);

	return n > 5 && !strcmp(f->name + n - 5, ".data");
}

/* Offsets of the records of a cpuN.data image (of type 'type' if >= 0). */
static size_t records(const struct file *f, int type, size_t *offs, size_t max)
{
	size_t off = 0, n = 0;

	while (f->len - off >= sizeof(struct tracebuf_record) && n < max) {
		struct tracebuf_record r;

		memcpy(&r, f->buf + off, sizeof(r));
		if (r.hdr.size < sizeof(r) || r.hdr.size > f->len - off)
			break;
		if (type < 0 || r.hdr.type == type)
			offs[n++] = off;
		off += r.hdr.size;
	}
	return n;
}

/* A random AUX record of a random cpuN.data: its offset, or -1. */
static long pick_aux(struct file **fp)
{
	size_t offs[4096], n, tries;

	for (tries = 0; tries < 32; tries++) {
		struct file *f = &work[below(nwork)];

		if (!is_data(f))
			continue;
		n = records(f, TRACEBUF_REC_AUX, offs, 4096);
		if (n) {
			*fp = f;
			return (long)offs[below(n)];
		}
	}
	return -1;
}

/* The k-th '"key": NUMBER' in meta.json replaced by a different number. */
static int meta_number(const char *key)
{
	struct file *m = find("meta.json");
	char pat[64], *p, *q, *nb;
	size_t hits = 0, k, plen;
	uint64_t v;

	snprintf(pat, sizeof(pat), "\"%s\": ", key);
	plen = strlen(pat);
	m->buf[m->len] = 0;
	for (p = (char *)m->buf; (p = strstr(p, pat)) != NULL; p += plen)
		hits++;
	if (!hits)
		return -1;
	k = below(hits);
	for (p = (char *)m->buf; k--; p += plen)
		p = strstr(p, pat);
	p = strstr(p, pat) + plen;
	v = strtoull(p, &q, 10);
	if (q == p)
		return -1;
	v = below(2) ? v + 1 + below(1000) : (v ? v - 1 : UINT64_MAX);
	nb = malloc(m->len + 32);
	if (!nb)
		die("malloc");
	memcpy(nb, m->buf, (size_t)(p - (char *)m->buf));
	k = (size_t)(p - (char *)m->buf);
	k += (size_t)sprintf(nb + k, "%" PRIu64, v);
	memcpy(nb + k, q, m->len - (size_t)(q - (char *)m->buf));
	m->len = k + m->len - (size_t)(q - (char *)m->buf);
	free(m->buf);
	m->buf = (unsigned char *)nb;
	return 0;
}

/*
 * Damage the capture in work[] one way; *must is set when the checks
 * must see it. Returns -1 if this damage does not apply to the capture.
 */
static int damage(char *what, size_t wlen, int *must)
{
	struct file *f = &work[below(nwork)], *g;
	unsigned int kind = (unsigned int)below(14), i;
	size_t n, off;
	long at;

	*must = 1;
	switch (kind) {
	case 0:		/* cut short */
		if (!f->len)
			return -1;
		n = below(f->len);
		snprintf(what, wlen, "%s cut from %zu to %zu bytes", f->name, f->len, n);
		f->len = n;
		return 0;
	case 1:		/* grown by bytes that are not JSON whitespace */
		n = 1 + below(40);
		for (i = 0; i < n; i++)
			f->buf[f->len + i] = (unsigned char)('!' + below(90));
		snprintf(what, wlen, "%s grown by %zu bytes", f->name, n);
		f->len += n;
		return 0;
	case 2:		/* missing */
		snprintf(what, wlen, "%s removed", f->name);
		free(f->buf);
		*f = work[--nwork];	/* itself, when it was the last */
		return 0;
	case 3:		/* swapped with a different file of the same kind */
		g = &work[below(nwork)];
		if (f == g || is_data(f) != is_data(g) || !strcmp(f->name, "meta.json") ||
		    !strcmp(g->name, "meta.json") ||
		    (f->len == g->len && !memcmp(f->buf, g->buf, f->len)))
			return -1;
		snprintf(what, wlen, "%s and %s swapped", f->name, g->name);
		{
			struct file t = *f;

			memcpy(f->name, g->name, sizeof(f->name));
			memcpy(g->name, t.name, sizeof(g->name));
		}
		return 0;
	case 4:		/* renamed to a CPU the capture does not list */
		if (!strcmp(f->name, "meta.json"))
			return -1;
		snprintf(what, wlen, "%s renamed to cpu77%s", f->name, strchr(f->name, '.'));
		memmove(f->name + 5, strchr(f->name, '.'), strlen(strchr(f->name, '.')) + 1);
		memcpy(f->name, "cpu77", 5);
		return 0;
	case 5: {	/* a record's size */
		size_t offs[4096];
		uint32_t size;

		if (!is_data(f) || !(n = records(f, -1, offs, 4096)))
			return -1;
		off = offs[below(n)];
		memcpy(&size, f->buf + off, 4);
		size ^= 1u << below(32);
		memcpy(f->buf + off, &size, 4);
		snprintf(what, wlen, "%s: the record at %zu sized %u", f->name, off, size);
		return 0;
	}
	case 6: {	/* an AUX record's size: one bit */
		uint64_t v;

		at = pick_aux(&f);
		if (at < 0)
			return -1;
		memcpy(&v, f->buf + at + 32, 8);
		v ^= 1ULL << below(64);
		memcpy(f->buf + at + 32, &v, 8);
		snprintf(what, wlen, "%s: the AUX record at %ld claims %" PRIu64 " bytes",
			 f->name, at, v);
		return 0;
	}
	case 7: {	/* an AUX record's size: huge */
		uint64_t v = rnd() | (1ULL << 62);

		at = pick_aux(&f);
		if (at < 0)
			return -1;
		memcpy(f->buf + at + 32, &v, 8);
		snprintf(what, wlen, "%s: the AUX record at %ld claims %" PRIu64 " bytes",
			 f->name, at, v);
		return 0;
	}
	case 8: {	/* an AUX record's type */
		uint16_t t;

		at = pick_aux(&f);
		if (at < 0)
			return -1;
		memcpy(&t, f->buf + at + 4, 2);
		t ^= (uint16_t)(1u << below(16));
		memcpy(f->buf + at + 4, &t, 2);
		snprintf(what, wlen, "%s: the AUX record at %ld of type %u", f->name, at, t);
		return 0;
	}
	case 9: {	/* a count in meta.json */
		static const char *const keys[] = {
			"records", "aux_spans", "aux_bytes", "data_bytes",
		};
		const char *key = keys[below(4)];

		if (meta_number(key))
			return -1;
		snprintf(what, wlen, "meta.json: a \"%s\" changed", key);
		return 0;
	}
	case 10: {	/* "lost" or "complete" flipped */
		struct file *m = find("meta.json");
		const char *key = below(2) ? "\"lost\": " : "\"complete\": ";
		char *p;

		m->buf[m->len] = 0;
		p = strstr((char *)m->buf, key);
		if (!p)
			return -1;
		p += strlen(key);
		/* "true" and "false" differ in length: rebuild the text. */
		{
			int t = !strncmp(p, "true", 4);
			size_t head = (size_t)(p - (char *)m->buf), tail = m->len - head - (t ? 4 : 5);
			unsigned char *nb = malloc(m->len + 2);

			if (!nb)
				die("malloc");
			memcpy(nb, m->buf, head);
			memcpy(nb + head, t ? "false" : "true", t ? 5 : 4);
			memcpy(nb + head + (t ? 5 : 4), p + (t ? 4 : 5), tail);
			m->len = head + (t ? 5 : 4) + tail;
			free(m->buf);
			m->buf = nb;
			snprintf(what, wlen, "meta.json: %s%s", key, t ? "false" : "true");
		}
		return 0;
	}
	case 11:	/* one bit anywhere */
	case 12:
		if (!f->len)
			return -1;
		*must = 0;
		off = below(f->len);
		f->buf[off] ^= (unsigned char)(1u << below(8));
		snprintf(what, wlen, "%s: a bit of byte %zu flipped", f->name, off);
		return 0;
	default:	/* a run of random bytes anywhere */
		if (!f->len)
			return -1;
		*must = 0;
		off = below(f->len);
		n = 1 + below(16);
		if (n > f->len - off)
			n = f->len - off;
		for (i = 0; i < n; i++)
			f->buf[off + i] = (unsigned char)rnd();
		snprintf(what, wlen, "%s: %zu random bytes at %zu", f->name, n, off);
		return 0;
	}
}

/* Run the tool with args; its exit status, or -1 for a signal, -2 for a hang. */
static int run(const char *const *args, char *how, size_t hlen)
{
	char errpath[4200];
	pid_t pid;
	int st, i, fd;

	snprintf(errpath, sizeof(errpath), "%s/stderr", workdir);
	pid = fork();
	if (pid < 0)
		die("fork");
	if (!pid) {
		fd = open("/dev/null", O_WRONLY);
		dup2(fd, 1);
		fd = open(errpath, O_WRONLY | O_CREAT | O_TRUNC, 0644);
		dup2(fd, 2);
		execv(tool, (char *const *)args);
		_exit(127);
	}
	for (i = 0; i < 2000; i++) {	/* 20 s */
		struct timespec ts = { 0, 10 * 1000 * 1000 };

		if (waitpid(pid, &st, WNOHANG) == pid) {
			if (WIFSIGNALED(st)) {
				snprintf(how, hlen, "killed by signal %d", WTERMSIG(st));
				return -1;
			}
			snprintf(how, hlen, "exit %d", WEXITSTATUS(st));
			return WEXITSTATUS(st);
		}
		nanosleep(&ts, NULL);
	}
	kill(pid, SIGKILL);
	waitpid(pid, &st, 0);
	snprintf(how, hlen, "no exit after 20 s");
	return -2;
}

static void show_stderr(void)
{
	char path[4200], line[512];
	FILE *f;
	int n = 0;

	snprintf(path, sizeof(path), "%s/stderr", workdir);
	f = fopen(path, "r");
	while (f && fgets(line, sizeof(line), f) && n++ < 8)
		printf("      %s", line);
	if (f)
		fclose(f);
}

/* Run every reader on the capture in capdir. Returns the failures. */
static unsigned int readers(const char *what, int must, int baseline)
{
	const char *dump[] = { "tracebuf", "dump", capdir, NULL };
	const char *json[] = { "tracebuf", "dump", "--json", capdir, NULL };
	const char *dec[] = { "tracebuf", "decode", capdir, NULL };
	const char *exp[] = { "tracebuf", "export", "--opencsd", outdir, capdir, NULL };
	const char *insn[] = { "tracebuf", "decode", capdir, "--insn", "--json", NULL };
	const char *pf[] = { "tracebuf", "export", "--perfetto", outdir, capdir, NULL };
	const char *const *cmds[3] = { dump, flow ? insn : json, flow ? pf : cs ? exp : dec };
	unsigned int i, bad = 0;
	char how[64];

	for (i = 0; i < 3; i++) {
		int want_ok = baseline, st;

		if (i == 2 && !cs && skip_decode)
			continue;
		clear(outdir, 0);
		rmdir(outdir);
		st = run(cmds[i], how, sizeof(how));
		if (st < 0 || st == 2 || st == 127 || st == SAN_EXIT || st > 2 ||
		    (want_ok && st != 0) || (!baseline && must && st != 1)) {
			printf("not ok: %s: tracebuf %s: %s%s\n", what, cmds[i][1], how,
			       st == 0 && must ? " (a damaged capture accepted)" : "");
			show_stderr();
			bad++;
		}
	}
	return bad;
}

int main(int argc, char **argv)
{
	unsigned long rounds, r, applied = 0, seen = 0;
	char what[256];
	int must;

	if (argc != 7) {
		fprintf(stderr, "usage: capfuzz TRACEBUF CAPTURE WORKDIR pt|cs|flow SEED ROUNDS\n");
		return 2;
	}
	tool = argv[1];
	workdir = argv[3];
	cs = !strcmp(argv[4], "cs");
	flow = !strcmp(argv[4], "flow");
	rng = strtoull(argv[5], NULL, 0) | 1;
	rounds = strtoul(argv[6], NULL, 0);
	printf("capfuzz: %s, seed %s, %lu rounds\n", argv[2], argv[5], rounds);
	snprintf(capdir, sizeof(capdir), "%s/cap", workdir);
	snprintf(outdir, sizeof(outdir), "%s/out", workdir);
	mkdir(workdir, 0755);
	mkdir(capdir, 0755);
	load(argv[2]);

	/* The unchanged capture reads cleanly; decode may lack libipt. */
	reset();
	write_work();
	if (!cs && !flow) {
		const char *dec[] = { "tracebuf", "decode", capdir, NULL };
		char how[64];

		if (run(dec, how, sizeof(how)) == 1) {
			printf("decode exits 1 on the good capture (no libipt?): not fuzzed\n");
			skip_decode = 1;
		}
	}
	failures += readers("the unchanged capture", 0, 1);

	for (r = 0; r < rounds; r++) {
		reset();
		if (damage(what, sizeof(what), &must))
			continue;
		/* The sideband and the vDSO's copy are not the checks' business. */
		if (flow && (strstr(what, ".side") || strstr(what, "vdso")))
			must = 0;
		applied++;
		seen += must;
		write_work();
		failures += readers(what, must, 0);
	}
	printf("capfuzz: %lu damaged captures (%lu the checks must see), %u failures\n",
	       applied, seen, failures);
	return failures ? 1 : 0;
}
