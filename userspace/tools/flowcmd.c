// SPDX-License-Identifier: GPL-2.0
/*
 * flowcmd.c - what decode --insn/--calls and export --perfetto share:
 * their options (thread, time range, images), and the run: the capture
 * (libtracebuf's reader), the images and the sideband (image.h,
 * sideband.h), the decoder for the backend (ptdec.c with libipt, csdec.c
 * with OpenCSD) and the output (flow.h). Built with elfutils only
 * (LIBDW=1).
 */
#include <errno.h>
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <unistd.h>

#include <elf.h>

#include <libtracebuf.h>

#include "flow.h"
#include "flowcmd.h"
#include "image.h"
#include "ptdec.h"
#include "sideband.h"
#include "tool.h"

/*
 * The chunk's whole pages of cpuN.aux (mapped by the capture reader) leave
 * the process once decoded, so that its memory does not grow with the
 * trace; a later chunk that needs one reads it again from the file.
 */
void drop_pages(const void *aux, uint64_t begin, uint64_t end)
{
	long pg = sysconf(_SC_PAGESIZE);
	uintptr_t a = (uintptr_t)aux + begin, b = (uintptr_t)aux + end;

	if (pg <= 0)
		return;
	a = (a + (uintptr_t)pg - 1) & ~((uintptr_t)pg - 1);
	b &= ~((uintptr_t)pg - 1);
	if (b > a)
		madvise((void *)a, b - a, MADV_DONTNEED);
}

void tb_flow_cli_init(struct tb_flow_cli *c)
{
	memset(c, 0, sizeof(*c));
	c->pid = -1;
	c->tid = -1;
	c->disasm = true;
}

static int parse_id(const char *arg, int32_t *v)
{
	char *end;
	long n;

	errno = 0;
	n = strtol(arg, &end, 10);
	if (!*arg || *end || errno || n < 0 || n > INT32_MAX)
		return -1;
	*v = (int32_t)n;
	return 0;
}

/* Seconds with up to 9 decimals, relative to the capture's start. */
static int parse_secs(const char *s, size_t len, uint64_t *ns)
{
	uint64_t whole = 0, frac = 0;
	size_t i = 0, digits = 0;

	if (!len)
		return -1;
	for (; i < len && s[i] >= '0' && s[i] <= '9'; i++) {
		if (whole > UINT64_MAX / 10 / 1000000000)
			return -1;
		whole = whole * 10 + (uint64_t)(s[i] - '0');
		digits++;
	}
	if (i < len && s[i] == '.') {
		size_t k = 0;

		for (i++; i < len && s[i] >= '0' && s[i] <= '9'; i++, k++) {
			if (k < 9)
				frac = frac * 10 + (uint64_t)(s[i] - '0');
			digits++;
		}
		for (; k < 9; k++)
			frac *= 10;
	}
	if (i != len || !digits)
		return -1;
	*ns = whole * 1000000000 + frac;
	return 0;
}

int tb_flow_cli_opt(struct tb_flow_cli *c, int opt, const char *arg, const char **bad)
{
	*bad = arg;
	switch (opt) {
	case TB_FLOW_OPT_PID:
		return parse_id(arg, &c->pid) ? -1 : 0;
	case TB_FLOW_OPT_TID:
		return parse_id(arg, &c->tid) ? -1 : 0;
	case TB_FLOW_OPT_TIME: {
		const char *comma = strchr(arg, ',');

		if (!comma)
			return -1;
		c->have_time = true;
		c->t_from = 0;
		c->t_to = UINT64_MAX;
		if (comma > arg && parse_secs(arg, (size_t)(comma - arg), &c->t_from))
			return -1;
		if (comma[1] && parse_secs(comma + 1, strlen(comma + 1), &c->t_to))
			return -1;
		if (c->t_to < c->t_from)
			return -1;
		return 0;
	}
	case TB_FLOW_OPT_SYSROOT:
		c->sysroot = arg;
		return 0;
	case TB_FLOW_OPT_ELF: {
		const char *colon = strrchr(arg, ':');
		struct sb_elf *e;
		char *end;

		if (c->nelfs == TB_FLOW_MAX_ELFS)
			return -1;
		e = &c->elfs[c->nelfs];
		memset(e, 0, sizeof(*e));
		if (colon && colon[1] == '0' && (colon[2] == 'x' || colon[2] == 'X')) {
			errno = 0;
			e->base = strtoull(colon + 1, &end, 16);
			if (*end || errno)
				return -1;
			e->have_base = true;
			e->path = strndup(arg, (size_t)(colon - arg));
		} else {
			e->path = strdup(arg);
		}
		if (!e->path || !*e->path)
			return -1;
		c->nelfs++;
		return 0;
	}
	case TB_FLOW_OPT_NO_DISASM:
		c->disasm = false;
		return 0;
	}
	return -1;
}

void tb_flow_cli_free(struct tb_flow_cli *c)
{
	size_t i;

	for (i = 0; i < c->nelfs; i++)
		free((char *)c->elfs[i].path);
	c->nelfs = 0;
}

/* Whether some configuration of the capture traces the kernel. */
static bool kernel_traced(struct tracebuf_capture *cap)
{
	char key[64], cfg[TRACEBUF_DRV_CONFIG_MAX];
	int i, n = tracebuf_capture_nr_streams(cap);

	for (i = 0; i < n; i++) {
		snprintf(key, sizeof(key), "per_cpu.%d.config",
			 tracebuf_capture_stream_cpu(cap, (unsigned int)i));
		if (tracebuf_capture_meta_str(cap, key, cfg, sizeof(cfg)) >= 0 &&
		    (strstr(cfg, "kernel=1") == cfg || strstr(cfg, ",kernel=1")))
			return true;
	}
	return false;
}

int tb_flow_run(const char *cmd, const char *dir, enum flow_mode mode, bool json, FILE *out,
		const struct tb_flow_cli *cli, struct tb_flow_result *res)
{
	struct img_opts io = { .cmd = cmd, .sysroot = cli->sysroot, .capdir = dir };
	struct sb_opts so = { .cmd = cmd, .dir = dir, .elfs = cli->elfs, .nelfs = cli->nelfs };
	struct flow_opts fo = {
		.mode = mode, .json = json, .out = out, .cmd = cmd, .dir = dir, .pid = cli->pid,
		.tid = cli->tid, .t_from = 0, .t_to = UINT64_MAX, .disasm = cli->disasm,
	};
	struct tracebuf_capture *cap = NULL;
	struct ptdec_stats st = { 0 };
	struct img_cache *img = NULL;
	struct flow *fl = NULL;
	struct sb *sb = NULL;
	char backend[32] = "";
	uint64_t start_ns = 0;
	int ret, i;

	memset(res, 0, sizeof(*res));
	if (tb_capture_open(cmd, dir, 0, 0, mode == FLOW_PERFETTO ? "exported" : "decoded", &cap))
		return -EBADMSG;
	res->incomplete = !tracebuf_capture_complete(cap);
	tracebuf_capture_meta_str(cap, "backend", backend, sizeof(backend));
	if (strcmp(backend, "intel_pt") && strcmp(backend, "coresight")) {
		fprintf(stderr, "tracebuf: %s: %s: backend \"%s\": no instruction trace to decode\n",
			cmd, dir, backend);
		ret = -ENOTSUP;
		goto out;
	}
#ifndef HAVE_LIBIPT
	if (!strcmp(backend, "intel_pt")) {
		fprintf(stderr, "tracebuf: %s needs libipt for Intel PT: install libipt-dev "
			"(Debian: apt-get install libipt-dev) and rebuild\n", cmd);
		ret = -ENOTSUP;
		goto out;
	}
#endif
#ifndef HAVE_OPENCSD
	if (!strcmp(backend, "coresight")) {
		fprintf(stderr, "tracebuf: %s needs OpenCSD for CoreSight: install libopencsd-dev "
			"(Debian: apt-get install libopencsd-dev) and rebuild\n", cmd);
		ret = -ENOTSUP;
		goto out;
	}
#endif
	tracebuf_capture_meta_u64(cap, "start_ns", &start_ns);
	if (cli->have_time) {
		fo.t_from = start_ns + cli->t_from;
		fo.t_to = cli->t_to == UINT64_MAX ? UINT64_MAX : start_ns + cli->t_to;
	}
	fo.t_zero = start_ns;
	ret = img_cache_new(&io, &img);
	if (ret)
		goto out;
	so.img = img;
	so.kernel = kernel_traced(cap);
	ret = sb_open(cap, &so, &sb);
	if (ret)
		goto out;
	if (!sb_per_task(sb) && !sb_has_sideband(sb) && !cli->nelfs)
		fprintf(stderr, "tracebuf: %s: %s: the capture has neither SWITCH records nor a "
			"sideband: no thread or image is known (give the code with --elf "
			"FILE[:ADDR])\n", cmd, dir);
	fo.sb = sb;
	fo.machine = !strcmp(backend, "coresight") ? EM_AARCH64 : EM_X86_64;
	/* Progress on a terminal, unless the output goes to the same one. */
	fo.progress = isatty(STDERR_FILENO) && !(out == stdout && isatty(STDOUT_FILENO));
	for (i = 0; i < tracebuf_capture_nr_streams(cap); i++) {
		const void *aux;
		uint64_t len;

		if (!tracebuf_capture_aux(cap, (unsigned int)i, &aux, &len))
			fo.total_bytes += len;
	}
	ret = flow_new(&fo, &fl);
	if (ret)
		goto out;
#ifdef HAVE_LIBIPT
	if (!strcmp(backend, "intel_pt"))
		ret = ptdec_flow(cap, sb, fl, &st);
#endif
#ifdef HAVE_OPENCSD
	if (!strcmp(backend, "coresight"))
		ret = csdec_flow(cap, sb, fl, &st);
#endif
	if (!ret && flow_finish(fl))
		ret = -EIO;
	res->insns = flow_insns(fl);
	res->calls = flow_calls(fl);
	res->errors = flow_errors(fl);
	res->bytes = st.bytes;
	res->chunks = st.chunks;
	res->cut = st.cut;
	res->refused = img_refused(img);
	res->problems = sb_problems(sb);
out:
	flow_free(fl);
	sb_close(sb);
	img_cache_free(img);
	tracebuf_capture_close(cap);
	return ret;
}
