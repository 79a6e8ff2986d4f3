// SPDX-License-Identifier: GPL-2.0
/*
 * tracebuf dump: the records of a capture directory, one per line, merged
 * across CPUs by time; --json for NDJSON. The capture is read, and checked,
 * by libtracebuf's capture reader (tracebuf_capture_open(3)). Also the JSON
 * writer of tool.h.
 */
#include <errno.h>
#include <getopt.h>
#include <inttypes.h>
#include <limits.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>

#include <libtracebuf.h>

#include "tool.h"

/* ---- JSON helpers -------------------------------------------------------- */

void tb_json_str(FILE *f, const char *s, size_t len)
{
	size_t i;

	fputc('"', f);
	for (i = 0; i < len; i++) {
		unsigned char c = (unsigned char)s[i];

		if (c == '"' || c == '\\')
			fprintf(f, "\\%c", c);
		else if (c < 0x20 || c >= 0x7f)
			fprintf(f, "\\u%04x", c);
		else
			fputc(c, f);
	}
	fputc('"', f);
}

/* ---- dump --------------------------------------------------------------- */

static const char dump_usage[] =
	"Usage: tracebuf dump DIR [--json] [--cpu N]\n"
	"\n"
	"  --json      one JSON object per line (the first describes the capture)\n"
	"  --cpu N     only the records of CPU N's file\n";

static const char *lost_reason(uint32_t reason)
{
	switch (reason) {
	case TRACEBUF_LOST_RING_FULL:
		return "ring_full";
	case TRACEBUF_LOST_AUX_OVERRUN:
		return "aux_overrun";
	default:
		return "unknown";
	}
}

/* struct tracebuf_rec_lost.flags: "AT_LEAST", "-" for none; JSON array. */
static void print_lost_flags(uint32_t flags, int json)
{
	const char *sep = "";

	if (json)
		putchar('[');
	if (flags & TRACEBUF_LOST_F_AT_LEAST) {
		printf(json ? "\"AT_LEAST\"" : "AT_LEAST");
		sep = json ? "," : "|";
	}
	if (flags & ~TRACEBUF_LOST_F_AT_LEAST)
		printf(json ? "%s\"0x%x\"" : "%s0x%x", sep, flags & ~TRACEBUF_LOST_F_AT_LEAST);
	else if (!flags && !json)
		putchar('-');
	if (json)
		putchar(']');
}

static const struct {
	uint64_t flag;
	const char *name;
} aux_flags[] = {
	{ TRACEBUF_AUX_F_TRUNCATED, "TRUNCATED" },
	{ TRACEBUF_AUX_F_OVERWRITE, "OVERWRITE" },
	{ TRACEBUF_AUX_F_PARTIAL, "PARTIAL" },
	{ TRACEBUF_AUX_F_COLLISION, "COLLISION" },
};

static void print_aux_flags(uint64_t flags, int json)
{
	const char *sep = "";
	uint64_t known = 0;
	size_t i;

	if (json)
		putchar('[');
	for (i = 0; i < sizeof(aux_flags) / sizeof(aux_flags[0]); i++) {
		known |= aux_flags[i].flag;
		if (flags & aux_flags[i].flag) {
			printf(json ? "%s\"%s\"" : "%s%s", sep, aux_flags[i].name);
			sep = json ? "," : "|";
		}
	}
	if (flags & ~known)
		printf(json ? "%s\"0x%" PRIx64 "\"" : "%s0x%" PRIx64, sep, flags & ~known);
	else if (!flags && !json)
		putchar('-');
	if (json)
		putchar(']');
}

/* Text of a record payload: printable ASCII as is, the rest \xHH. */
static void print_escaped(const unsigned char *s, size_t len)
{
	size_t i;

	putchar('"');
	for (i = 0; i < len; i++) {
		if (s[i] == '"' || s[i] == '\\')
			printf("\\%c", s[i]);
		else if (s[i] >= 0x20 && s[i] < 0x7f)
			putchar(s[i]);
		else
			printf("\\x%02x", s[i]);
	}
	putchar('"');
}

static void print_record(const struct tracebuf_capture_rec *cr, uint64_t t0, int json)
{
	const struct tracebuf_record *r = cr->r;
	const struct tracebuf_rec_aux *a = tracebuf_as_aux(r);
	const struct tracebuf_rec_lost *l = tracebuf_as_lost(r);
	const struct tracebuf_rec_etm *e = tracebuf_as_etm(r);
	const struct tracebuf_rec_config *c = tracebuf_as_config(r);
	const struct tracebuf_rec_user *u = tracebuf_as_user(r);
	const struct tracebuf_rec_itrace_start *st = tracebuf_as_itrace_start(r);
	char name[32];
	const char *tn = tracebuf_rec_type_name(r->hdr.type);
	int64_t rel = (int64_t)(r->time - t0);
	size_t i;

	if (json) {
		printf("{\"time\":%" PRId64 ",\"abs_time\":%" PRIu64 ",\"cpu\":%u,\"file_cpu\":%u,"
		       "\"offset\":%" PRIu64 ",\"size\":%u,\"type\":\"%s\",\"type_id\":%u", rel,
		       (uint64_t)r->time, r->cpu, cr->cpu, cr->offset, r->hdr.size, tn,
		       r->hdr.type);
	} else {
		for (i = 0; tn[i] && i < sizeof(name) - 1; i++)
			name[i] = (char)(tn[i] >= 'a' && tn[i] <= 'z' ? tn[i] - 'a' + 'A' : tn[i]);
		name[i] = 0;
		printf("%15" PRId64 " cpu %-3u %-12s", rel, r->cpu, name);
	}

	/* The capture reader checked every known type's size at open. */
	if (a) {
		if (json) {
			printf(",\"aux_offset\":%" PRIu64 ",\"aux_size\":%" PRIu64
			       ",\"flags\":", (uint64_t)a->aux_offset, (uint64_t)a->aux_size);
			print_aux_flags(a->flags, 1);
			printf(",\"file_offset\":%" PRIu64, cr->span->stream_offset);
		} else {
			printf(" offset=0x%" PRIx64 " size=%" PRIu64 " flags=",
			       (uint64_t)a->aux_offset, (uint64_t)a->aux_size);
			print_aux_flags(a->flags, 0);
			printf(" file_offset=%" PRIu64, cr->span->stream_offset);
		}
	} else if (l) {
		printf(json ? ",\"count\":%" PRIu64 ",\"reason\":\"%s\",\"flags\":" :
		       " count=%" PRIu64 " reason=%s flags=", (uint64_t)l->count,
		       lost_reason(l->reason));
		print_lost_flags(l->flags, json);
	} else if (e) {
		printf(json ? ",\"etm_cpu\":%u,\"trace_id\":%u,\"trcconfigr\":%u,"
		       "\"trctraceidr\":%u,\"trcauthstatus\":%u,\"trcidr\":[" :
		       " etm_cpu=%u trace_id=0x%x trcconfigr=0x%x trctraceidr=0x%x"
		       " trcauthstatus=0x%x trcidr=", e->etm_cpu, e->trace_id, e->trcconfigr,
		       e->trctraceidr, e->trcauthstatus);
		for (i = 0; i < 14; i++)
			printf(json ? "%s%u" : "%s0x%x", i ? "," : "", e->trcidr[i]);
		if (json)
			putchar(']');
	} else if (c) {
		const char *text = (const char *)(c + 1);
		size_t tl = strnlen(text, c->len);

		printf(json ? ",\"generation\":%" PRIu64 ",\"changed\":%u,\"text\":" :
		       " generation=%" PRIu64 " changed=0x%x text=", (uint64_t)c->generation,
		       c->changed);
		if (json)
			tb_json_str(stdout, text, tl);
		else
			print_escaped((const unsigned char *)text, tl);
	} else if (u) {
		printf(json ? ",\"cookie\":%" PRIu64 ",\"len\":%u,\"data\":" :
		       " cookie=0x%" PRIx64 " len=%u data=", (uint64_t)u->cookie, u->len);
		if (json)
			tb_json_str(stdout, (const char *)(u + 1), u->len);
		else
			print_escaped((const unsigned char *)(u + 1), u->len);
	} else if (st) {
		printf(json ? ",\"pid\":%u,\"tid\":%u" : " pid=%u tid=%u", st->pid, st->tid);
	} else if (!json) {
		printf(" type=0x%x size=%u", r->hdr.type, r->hdr.size);
	}
	/*
	 * Written by another CPU into this CPU's session (a CONFIG record from
	 * the CPU that called SET_DRV_CONFIG): say whose stream it is in.
	 */
	if (!json && r->cpu != cr->cpu)
		printf(" file=%s", cr->file);
	if (json)
		putchar('}');
	putchar('\n');
}

/* A meta.json string, or "?" when it is not one. */
static void meta_str(const struct tracebuf_capture *cap, const char *path, char *buf,
		     size_t size)
{
	if (tracebuf_capture_meta_str(cap, path, buf, size) < 0)
		snprintf(buf, size, "?");
}

static void print_header_text(const char *dir, struct tracebuf_capture *cap)
{
	char backend[64], mod[64], tool[64], arg[256], key[64];
	uint64_t ds = 0, as = 0, s0 = 0, s1 = 0;
	int emu = 0, snap = 0, complete = 0, lost = 0, i, n;
	const char *cmd;
	size_t cl;

	meta_str(cap, "backend", backend, sizeof(backend));
	meta_str(cap, "module_version", mod, sizeof(mod));
	meta_str(cap, "tool_version", tool, sizeof(tool));
	tracebuf_capture_meta_u64(cap, "data_size", &ds);
	tracebuf_capture_meta_u64(cap, "aux_size", &as);
	tracebuf_capture_meta_u64(cap, "start_ns", &s0);
	tracebuf_capture_meta_u64(cap, "end_ns", &s1);
	tracebuf_capture_meta_bool(cap, "emulated", &emu);
	tracebuf_capture_meta_bool(cap, "snapshot", &snap);
	tracebuf_capture_meta_bool(cap, "complete", &complete);
	tracebuf_capture_meta_bool(cap, "lost", &lost);

	printf("# capture %s: format %d, backend %s%s, module %s, tool %s\n", dir,
	       TRACEBUF_CAPTURE_FORMAT, backend, emu ? " (emulated)" : "", mod, tool);
	printf("# data_size %" PRIu64 ", aux_size %" PRIu64 ", %s mode, %s, %s, "
	       "duration %.3f s\n", ds, as, snap ? "snapshot" : "full-trace",
	       complete ? "complete" : "INCOMPLETE", lost ? "trace LOST" : "nothing lost",
	       s1 > s0 ? (double)(s1 - s0) / 1e9 : 0.0);
	if (!tracebuf_capture_meta(cap, "command", &cmd, &cl) && *cmd == '[') {
		printf("# command:");
		for (i = 0; ; i++) {
			snprintf(key, sizeof(key), "command.%d", i);
			if (tracebuf_capture_meta(cap, key, &cmd, &cl))
				break;
			meta_str(cap, key, arg, sizeof(arg));
			printf(" %s", arg);
		}
		putchar('\n');
	}
	n = tracebuf_capture_nr_streams(cap);
	for (i = 0; i < n; i++) {
		char pc[32], cfg[TRACEBUF_DRV_CONFIG_MAX];
		uint64_t records = 0, ab = 0, sp = 0, rl = 0, al = 0;
		int cpu = tracebuf_capture_stream_cpu(cap, (unsigned int)i), atl = 0;
		const char *v;
		size_t vl;

		tracebuf_capture_stream_records(cap, (unsigned int)i, &records);
		printf("# cpu %d: %" PRIu64 " records", cpu, records);
		snprintf(pc, sizeof(pc), "per_cpu.%d", cpu);
		if (!tracebuf_capture_meta(cap, pc, &v, &vl) && *v == '{') {
#define PC(k) (snprintf(key, sizeof(key), "%s.%s", pc, k), key)
			tracebuf_capture_meta_u64(cap, PC("aux_bytes"), &ab);
			tracebuf_capture_meta_u64(cap, PC("aux_spans"), &sp);
			tracebuf_capture_meta_u64(cap, PC("records_lost"), &rl);
			printf(", %" PRIu64 " AUX bytes in %" PRIu64 " spans, %" PRIu64
			       " records lost", ab, sp, rl);
			/* CoreSight: trace bytes the AUX ring had no room for. */
			if (!tracebuf_capture_meta_u64(cap, PC("aux_lost_bytes"), &al) && al) {
				tracebuf_capture_meta_bool(cap, PC("aux_lost_at_least"), &atl);
				printf(", %s%" PRIu64 " trace bytes lost", atl ? "at least " : "", al);
			}
			meta_str(cap, PC("config"), cfg, sizeof(cfg));
			printf(", config %s", cfg);
#undef PC
		}
		putchar('\n');
	}
}

static void print_header_json(const struct tracebuf_capture *cap)
{
	const char *text;
	size_t len, i;

	/* Whitespace outside strings only: newlines can go. */
	tracebuf_capture_meta(cap, NULL, &text, &len);
	printf("{\"type\":\"meta\",\"meta\":");
	for (i = 0; i < len; i++) {
		char c = text[i];

		putchar(c == '\n' || c == '\r' ? ' ' : c);
	}
	printf("}\n");
}

/* Each problem the capture reader finds, as "tracebuf: CMD: DIR: ...". */
struct problems {
	const char *cmd, *dir;
	int n;
};

void tb_capture_problem(void *ctx, const char *message)
{
	struct problems *p = ctx;

	fprintf(stderr, "tracebuf: %s: %s: %s\n", p->cmd, p->dir, message);
	p->n++;
}

int tb_capture_open(const char *cmd, const char *dir, unsigned int flags, unsigned int cpu,
		    const char *what, struct tracebuf_capture **cap)
{
	struct problems p = { cmd, dir, 0 };
	struct tracebuf_capture_opts o = {
		.sz = sizeof(o), .flags = flags, .cpu = cpu,
		.on_problem = tb_capture_problem, .ctx = &p,
	};
	int ret = tracebuf_capture_open(dir, &o, cap);

	if (ret == -EBADMSG)
		fprintf(stderr, "tracebuf: %s: %s: the capture does not add up (%d problem%s "
			"above): not %s\n", cmd, dir, p.n, p.n > 1 ? "s" : "", what);
	else if (ret < 0 && !p.n)
		fprintf(stderr, "tracebuf: %s: %s: %s\n", cmd, dir, tracebuf_strerror(ret));
	return ret;
}

int cmd_dump(int argc, char **argv)
{
	static const struct option opts[] = {
		{ "json", no_argument, NULL, 'j' },
		{ "cpu", required_argument, NULL, 'C' },
		{ "help", no_argument, NULL, 'h' },
		{ NULL, 0, NULL, 0 }
	};
	struct tracebuf_capture *cap = NULL;
	struct tracebuf_capture_iter *it = NULL;
	const struct tracebuf_capture_rec *cr;
	const char *dir;
	unsigned long only = 0;
	int json = 0, have_only = 0, c, status = TB_EXIT_FAIL, ret;
	uint64_t t0 = UINT64_MAX;
	struct stat st;
	char *end;

	tb_getopt_reset();
	while ((c = getopt_long(argc, argv, ":hj", opts, NULL)) != -1) {
		switch (c) {
		case 'j':
			json = 1;
			break;
		case 'C':
			errno = 0;
			only = strtoul(optarg, &end, 10);
			if (!*optarg || *end || errno || *optarg == '-' || only > UINT32_MAX)
				return tb_usage_error("invalid CPU number", optarg);
			have_only = 1;
			break;
		case 'h':
			fputs(dump_usage, stdout);
			return TB_EXIT_OK;
		default:
			return tb_bad_option(argv, c);
		}
	}
	if (optind >= argc) {
		fprintf(stderr, "tracebuf: dump needs a capture directory\n");
		fputs("Try 'tracebuf help' for more information.\n", stderr);
		return TB_EXIT_USAGE;
	}
	if (optind + 1 < argc)
		return tb_usage_error("unexpected argument", argv[optind + 1]);
	dir = argv[optind];

	if (stat(dir, &st)) {
		fprintf(stderr, "tracebuf: cannot open capture %s: %s\n", dir, strerror(errno));
		return TB_EXIT_FAIL;
	}
	if (!S_ISDIR(st.st_mode)) {
		fprintf(stderr, "tracebuf: %s is not a directory\n", dir);
		return TB_EXIT_FAIL;
	}
	if (tb_capture_open("dump", dir, have_only ? TRACEBUF_CAPTURE_ONE_CPU : 0,
			    (unsigned int)only, "read", &cap))
		return TB_EXIT_FAIL;
	if (have_only && !tracebuf_capture_nr_streams(cap)) {
		fprintf(stderr, "tracebuf: %s has no CPU %lu\n", dir, only);
		goto out;
	}

	/* The time origin: the earliest record of any CPU. */
	ret = tracebuf_capture_iter_new(cap, NULL, &it);
	while (!ret && tracebuf_capture_next(it, &cr) > 0)
		if (cr->r->time < t0)
			t0 = cr->r->time;
	tracebuf_capture_iter_free(it);
	it = NULL;
	if (ret || (ret = tracebuf_capture_iter_new(cap, NULL, &it))) {
		fprintf(stderr, "tracebuf: dump: %s: %s\n", dir, tracebuf_strerror(ret));
		goto out;
	}
	if (json)
		print_header_json(cap);
	else
		print_header_text(dir, cap);

	/* Merged by time; ties to the lower CPU. */
	while (tracebuf_capture_next(it, &cr) > 0)
		print_record(cr, t0, json);

	status = TB_EXIT_OK;
	if (!tracebuf_capture_complete(cap)) {
		fprintf(stderr, "tracebuf: dump: %s: the capture is incomplete (\"complete\": "
			"false, the recording was interrupted): its counts were not checked\n",
			dir);
		status = TB_EXIT_FAIL;
	}
out:
	tracebuf_capture_iter_free(it);
	tracebuf_capture_close(cap);
	return status;
}
