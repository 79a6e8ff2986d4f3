// SPDX-License-Identifier: GPL-2.0
/*
 * tracebuf dump: the records of a capture directory, one per line, merged
 * across CPUs by time, with the sideband's perf records among them
 * (types PERF_*); --json for NDJSON. The capture is read, and checked,
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

#include <linux/perf_event.h>
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
	"  --cpu N     only the records of CPU N's file (and of its sideband file)\n";

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

static const struct {
	uint32_t flag;
	const char *name;
} switch_flags[] = {
	{ TRACEBUF_SWITCH_F_OUT, "OUT" },
	{ TRACEBUF_SWITCH_F_PREEMPT, "PREEMPT" },
	{ TRACEBUF_SWITCH_F_EXEC, "EXEC" },
	{ TRACEBUF_SWITCH_F_BUSY, "BUSY" },
	{ TRACEBUF_SWITCH_F_EXIT, "EXIT" },
};

/* SWITCH flags: IN or OUT first, then the others; a JSON array with --json. */
static void print_switch_flags(uint32_t flags, int json)
{
	uint32_t known = 0;
	size_t i;

	printf(json ? "[\"%s\"" : "%s", flags & TRACEBUF_SWITCH_F_OUT ? "OUT" : "IN");
	for (i = 0; i < sizeof(switch_flags) / sizeof(switch_flags[0]); i++) {
		known |= switch_flags[i].flag;
		if (i && (flags & switch_flags[i].flag))
			printf(json ? ",\"%s\"" : "|%s", switch_flags[i].name);
	}
	if (flags & ~known)
		printf(json ? ",\"0x%x\"" : "|0x%x", flags & ~known);
	if (json)
		putchar(']');
}

static const char *task_reason(uint32_t reason)
{
	switch (reason) {
	case TRACEBUF_TASK_FORK:
		return "fork";
	case TRACEBUF_TASK_EXIT:
		return "exit";
	case TRACEBUF_TASK_EXEC_PRIV:
		return "exec_priv";
	case TRACEBUF_TASK_FORK_NOMEM:
		return "fork_nomem";
	default:
		return "unknown";
	}
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
	const struct tracebuf_rec_switch *sw = tracebuf_as_switch(r);
	const struct tracebuf_rec_task *tk = tracebuf_as_task(r);
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
	} else if (sw) {
		printf(json ? ",\"pid\":%u,\"tid\":%u,\"aux_offset\":%" PRIu64 ",\"flags\":" :
		       " pid=%u tid=%u aux_offset=0x%" PRIx64 " flags=", sw->pid, sw->tid,
		       (uint64_t)sw->aux_offset);
		print_switch_flags(sw->flags, json);
	} else if (tk) {
		printf(json ? ",\"pid\":%u,\"ppid\":%u,\"reason\":\"%s\"" :
		       " pid=%u ppid=%u reason=%s", tk->pid, tk->ppid, task_reason(tk->reason));
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

/* PROT_* of an mmap2 record as "rwx" (p or s from its flags). */
static void prot_str(char *b, uint32_t prot, uint32_t flags)
{
	b[0] = prot & 1 ? 'r' : '-';	/* PROT_READ */
	b[1] = prot & 2 ? 'w' : '-';	/* PROT_WRITE */
	b[2] = prot & 4 ? 'x' : '-';	/* PROT_EXEC */
	b[3] = flags & 1 ? 's' : 'p';	/* MAP_SHARED */
	b[4] = 0;
}

/* A string field of a sideband record: NUL-terminated inside n bytes. */
static void sb_string(const char *s, size_t n, int json)
{
	size_t l = strnlen(s, n);

	if (json)
		tb_json_str(stdout, s, l);
	else
		print_escaped((const unsigned char *)s, l);
}

/*
 * A sideband record: a perf_event record of a cpuN.sb or proc.sb file
 * (docs/capture-format.md, "Sideband"). The known types' fields, else the
 * type and size.
 */
static void print_sb_record(const struct tracebuf_capture_rec *cr, uint64_t t0, int json)
{
	const struct tracebuf_sb_rec *sb = cr->sb;
	const unsigned char *b = sb->body;
	const char *tn = tracebuf_sb_type_name(sb->type);
	unsigned int cpu = sb->fields & TRACEBUF_SB_F_CPU ? sb->cpu : cr->cpu;
	int64_t rel = (int64_t)(sb->time - t0);
	uint32_t u[6];
	uint64_t q[4];
	char name[40], pr[16];
	size_t i;

	if (json) {
		printf("{\"time\":%" PRId64 ",\"abs_time\":%" PRIu64 ",\"cpu\":", rel, sb->time);
		if (cpu == TRACEBUF_CAPTURE_NO_CPU)
			fputs("null", stdout);
		else
			printf("%u", cpu);
		printf(",\"file\":\"%s\",\"offset\":%" PRIu64 ",\"size\":%u,\"type\":\"perf_%s\","
		       "\"type_id\":%u,\"misc\":%u", cr->file, cr->offset, sb->size, tn, sb->type,
		       sb->misc);
		if (sb->fields & TRACEBUF_SB_F_TID)
			printf(",\"sample_pid\":%u,\"sample_tid\":%u", sb->pid, sb->tid);
	} else {
		snprintf(name, sizeof(name), "PERF_%s", tn);
		for (i = 0; name[i]; i++)
			if (name[i] >= 'a' && name[i] <= 'z')
				name[i] = (char)(name[i] - 'a' + 'A');
		printf("%15" PRId64 " cpu %-3s %-12s", rel, cpu == TRACEBUF_CAPTURE_NO_CPU ? "-" :
		       (snprintf(pr, sizeof(pr), "%u", cpu), pr), name);
	}
	switch (sb->type) {
	case PERF_RECORD_MMAP2:
		/* pid, tid; addr, len, pgoff; maj, min, ino, ino_gen | build-id; prot, flags; name */
		if (sb->body_size < 8 + 24 + 24 + 8)
			goto other;
		memcpy(u, b, 8);
		memcpy(q, b + 8, 24);
		memcpy(&u[2], b + 56, 8);
		prot_str(pr, u[2], u[3]);
		printf(json ? ",\"pid\":%u,\"tid\":%u,\"addr\":%" PRIu64 ",\"len\":%" PRIu64
		       ",\"pgoff\":%" PRIu64 ",\"prot\":%u,\"flags\":%u" :
		       " pid=%u tid=%u addr=0x%" PRIx64 " len=0x%" PRIx64 " pgoff=0x%" PRIx64,
		       u[0], u[1], q[0], q[1], q[2], u[2], u[3]);
		if (!json)
			printf(" %s", pr);
		if (sb->misc & PERF_RECORD_MISC_MMAP_BUILD_ID) {
			unsigned int n = b[32] > 20 ? 20 : b[32];

			printf(json ? ",\"build_id\":\"" : " build_id=");
			for (i = 0; i < n; i++)
				printf("%02x", b[36 + i]);
			if (json)
				putchar('"');
		} else {
			memcpy(&u[4], b + 32, 8);
			memcpy(&q[3], b + 40, 8);
			printf(json ? ",\"maj\":%u,\"min\":%u,\"ino\":%" PRIu64 :
			       " dev=%u:%u ino=%" PRIu64, u[4], u[5], q[3]);
		}
		printf(json ? ",\"path\":" : " path=");
		sb_string((const char *)b + 64, sb->body_size - 64, json);
		break;
	case PERF_RECORD_MMAP:
		if (sb->body_size < 8 + 24)
			goto other;
		memcpy(u, b, 8);
		memcpy(q, b + 8, 24);
		printf(json ? ",\"pid\":%u,\"tid\":%u,\"addr\":%" PRIu64 ",\"len\":%" PRIu64
		       ",\"pgoff\":%" PRIu64 ",\"path\":" : " pid=%u tid=%u addr=0x%" PRIx64
		       " len=0x%" PRIx64 " pgoff=0x%" PRIx64 " path=", u[0], u[1], q[0], q[1], q[2]);
		sb_string((const char *)b + 32, sb->body_size - 32, json);
		break;
	case PERF_RECORD_COMM:
		if (sb->body_size < 8)
			goto other;
		memcpy(u, b, 8);
		printf(json ? ",\"pid\":%u,\"tid\":%u,\"exec\":%s,\"comm\":" :
		       " pid=%u tid=%u%s comm=", u[0], u[1],
		       sb->misc & PERF_RECORD_MISC_COMM_EXEC ? (json ? "true" : " exec") :
		       (json ? "false" : ""));
		sb_string((const char *)b + 8, sb->body_size - 8, json);
		break;
	case PERF_RECORD_FORK:
	case PERF_RECORD_EXIT:
		if (sb->body_size < 24)
			goto other;
		memcpy(u, b, 16);
		memcpy(q, b + 16, 8);
		printf(json ? ",\"pid\":%u,\"ppid\":%u,\"tid\":%u,\"ptid\":%u" :
		       " pid=%u ppid=%u tid=%u ptid=%u", u[0], u[1], u[2], u[3]);
		break;
	case PERF_RECORD_SWITCH:
		printf(json ? ",\"out\":%s,\"preempt\":%s" : "%s%s",
		       sb->misc & PERF_RECORD_MISC_SWITCH_OUT ? (json ? "true" : " out") :
		       (json ? "false" : " in"),
		       sb->misc & PERF_RECORD_MISC_SWITCH_OUT_PREEMPT ? (json ? "true" : " preempt") :
		       (json ? "false" : ""));
		if (!json && (sb->fields & TRACEBUF_SB_F_TID))
			printf(" pid=%u tid=%u", sb->pid, sb->tid);
		break;
	case PERF_RECORD_SWITCH_CPU_WIDE:
		if (sb->body_size < 8)
			goto other;
		memcpy(u, b, 8);
		printf(json ? ",\"out\":%s,\"next_prev_pid\":%u,\"next_prev_tid\":%u" :
		       "%s next_prev_pid=%u next_prev_tid=%u",
		       sb->misc & PERF_RECORD_MISC_SWITCH_OUT ? (json ? "true" : " out") :
		       (json ? "false" : " in"), u[0], u[1]);
		break;
	case PERF_RECORD_LOST:
		if (sb->body_size < 16)
			goto other;
		memcpy(q, b, 16);
		printf(json ? ",\"id\":%" PRIu64 ",\"lost\":%" PRIu64 : " id=%" PRIu64
		       " lost=%" PRIu64, q[0], q[1]);
		break;
	default:
other:
		if (!json)
			printf(" type=%u size=%u", sb->type, sb->size);
		break;
	}
	if (!json && cr->cpu == TRACEBUF_CAPTURE_NO_CPU)
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

/* The target, the sideband and the vDSO's copy, when meta.json has them. */
static void print_header_sideband(const struct tracebuf_capture *cap)
{
	char src[32], why[512], file[64], key[128], bid[64], tgt[16];
	uint64_t pid = 0, n = 0, recs, total = 0, lost = 0, v;
	int partial = 0, inherit = 0, i;

	if (tracebuf_capture_meta_str(cap, "target", tgt, sizeof(tgt)) >= 0 &&
	    !strcmp(tgt, "task") && !tracebuf_capture_meta_u64(cap, "pid", &pid)) {
		tracebuf_capture_meta_bool(cap, "inherit", &inherit);
		printf("# target: process %" PRIu64 "%s\n", pid,
		       inherit ? " and the processes it forked" : "");
	}
	if (tracebuf_capture_meta_str(cap, "sideband.source", src, sizeof(src)) >= 0) {
		for (i = 0; ; i++) {
			snprintf(key, sizeof(key), "sideband.files.%d", i);
			if (tracebuf_capture_meta_str(cap, key, file, sizeof(file)) < 0)
				break;
			n++;
			snprintf(key, sizeof(key), "sideband.per_file.%d.records", i);
			if (!tracebuf_capture_meta_u64(cap, key, &recs))
				total += recs;
			snprintf(key, sizeof(key), "sideband.per_file.%d.lost", i);
			if (!tracebuf_capture_meta_u64(cap, key, &v))
				lost += v;
		}
		tracebuf_capture_meta_bool(cap, "sideband.partial", &partial);
		printf("# sideband: from %s, %" PRIu64 " file%s, %" PRIu64 " records, %" PRIu64
		       " lost", src, n, n == 1 ? "" : "s", total, lost);
		if (partial && tracebuf_capture_meta_str(cap, "sideband.partial_reason", why,
							 sizeof(why)) >= 0)
			printf(", PARTIAL (%s)", why);
		putchar('\n');
	}
	if (tracebuf_capture_meta_str(cap, "vdso.file", file, sizeof(file)) >= 0) {
		if (tracebuf_capture_meta_str(cap, "vdso.build_id", bid, sizeof(bid)) < 0)
			snprintf(bid, sizeof(bid), "none");
		tracebuf_capture_meta_str(cap, "vdso.source", src, sizeof(src));
		printf("# vdso: %s, build-id %s, from the %s\n", file, bid, src);
	}
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
	print_header_sideband(cap);
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
	struct tracebuf_capture_iter_opts io = { .sz = sizeof(io) };
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
	/* --cpu N: that CPU's file and its sideband file. */
	io.flags = TRACEBUF_ITER_SIDEBAND | (have_only ? TRACEBUF_ITER_ONE_CPU : 0);
	io.cpu = (unsigned int)only;

	/* The time origin: the earliest record of any CPU, the sideband's too. */
	ret = tracebuf_capture_iter_new(cap, &io, &it);
	while (!ret && tracebuf_capture_next(it, &cr) > 0) {
		if (cr->r && cr->r->time < t0)
			t0 = cr->r->time;
		if (cr->sb && (cr->sb->fields & TRACEBUF_SB_F_TIME) && cr->sb->time < t0)
			t0 = cr->sb->time;
	}
	tracebuf_capture_iter_free(it);
	it = NULL;
	if (ret || (ret = tracebuf_capture_iter_new(cap, &io, &it))) {
		fprintf(stderr, "tracebuf: dump: %s: %s\n", dir, tracebuf_strerror(ret));
		goto out;
	}
	if (json)
		print_header_json(cap);
	else
		print_header_text(dir, cap);

	/* Merged by time; ties to the lower CPU, then to the sideband. */
	while (tracebuf_capture_next(it, &cr) > 0) {
		if (cr->sb)
			print_sb_record(cr, t0, json);
		else
			print_record(cr, t0, json);
	}

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
