// SPDX-License-Identifier: GPL-2.0
/*
 * tracebuf decode DIR [--cpu N] [--packets] [--json]
 *
 * Decodes the AUX bytes of a capture directory (docs/capture-format.md:
 * meta.json, cpuN.data, cpuN.aux) with libipt's packet decoder. Intel PT
 * only. The capture is read, and checked, by libtracebuf's capture reader
 * (tracebuf_capture_open(3)).
 *
 * Every cpuN.aux is split into segments, using the records in cpuN.data:
 * a segment ends after a span flagged TRUNCATED or COLLISION (the hardware
 * stopped there) and before the first span after a CONFIG record (it was
 * restarted with the new configuration). In snapshot captures a span
 * flagged OVERWRITE, or one that does not continue where the previous one
 * ended in the ring, starts a new segment too. Each segment is decoded on
 * its own, from its first PSB: it must start with one (leading PAD bytes
 * aside), except in snapshot captures, where the bytes before the first
 * PSB are the tail of overwritten data and are skipped. A packet cut short
 * at the end of a segment whose last span is TRUNCATED or COLLISION is
 * expected and counted as "cut"; anywhere else it is an error, like every
 * packet libipt refuses (decoding then resumes at the next PSB).
 *
 * Output: a summary per CPU and in total (bytes, spans, segments, packets
 * by type, PSBs, the TSC range, PTWs, OVFs, cut packets, errors with their
 * offsets in cpuN.aux, the configuration regions); --json prints it as one
 * JSON object; --packets lists every packet instead, like libipt's ptdump:
 *
 *   <offset in cpuN.aux, hex>  <packet>  <payload>
 *
 * with "#" comment lines at CPU, segment and configuration boundaries.
 * Exit status: 0 no error, 1 decode errors or a bad capture, 2 usage.
 *
 * CoreSight captures are for OpenCSD: tracebuf export (export.c).
 */
#include <errno.h>
#include <getopt.h>
#include <inttypes.h>
#include <limits.h>
#include <stdarg.h>
#include <stdbool.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>

#include <libtracebuf.h>

#include "tool.h"
#ifdef HAVE_LIBDW
#include "flowcmd.h"
#endif

#ifdef HAVE_LIBIPT
#include <intel-pt.h>
#endif

#define MAX_CPUS	65536	/* --cpu: the capture reader's limit */
#define MAX_ERRORS	10	/* errors kept (and shown) per CPU */

static void decode_usage(FILE *f)
{
	fputs("Usage: tracebuf decode DIR [--cpu N] [--packets] [--json]\n"
	      "       tracebuf decode DIR --insn|--calls [--pid N] [--tid N] [--time FROM,TO]\n"
	      "                       [--sysroot DIR] [--elf FILE[:ADDR]]... [--no-disasm] [--json]\n"
	      "  Decode the trace of a capture directory (tracebuf record).\n"
	      "  Without --insn or --calls: Intel PT packets with libipt, a summary per CPU.\n"
	      "  --cpu N          only CPU N\n"
	      "  --packets        list every packet: offset in cpuN.aux, name, payload\n"
	      "  --json           the summary as one JSON object; with --insn/--calls,\n"
	      "                   one JSON object per line\n"
	      "  --insn           every executed instruction: time, CPU, pid/tid, address,\n"
	      "                   symbol+offset (binary), disassembly\n"
	      "  --calls          calls and returns, indented by depth, with durations\n"
	      "  --pid N, --tid N only this process, this thread\n"
	      "  --time FROM,TO   only this time range, in seconds from the capture's start\n"
	      "                   (either may be left out: 0.5, or ,1.25)\n"
	      "  --sysroot DIR    look for the recorded files under DIR first\n"
	      "  --elf FILE[:ADDR] code of FILE at ADDR (its link address by default) in\n"
	      "                   every process\n"
	      "  --no-disasm      no disassembly with --insn\n", f);
}

static int usage_err(const char *cmd, const char *what, const char *arg)
{
	if (arg)
		fprintf(stderr, "tracebuf: %s: %s '%s'\n", cmd, what, arg);
	else
		fprintf(stderr, "tracebuf: %s: %s\n", cmd, what);
	fputs("Try 'tracebuf help' for more information.\n", stderr);
	return TB_EXIT_USAGE;
}

/* getopt_long's complaint, as the other commands phrase it (opterr = 0). */
static int bad_opt(const char *cmd, char **argv, int c)
{
	char opt[3] = { '-', 0, 0 };
	const char *arg = argv[optind - 1];

	if (optopt && c != ':') {
		opt[1] = (char)optopt;
		arg = opt;
	}
	return usage_err(cmd, c == ':' ? "missing argument for option" : "unknown option", arg);
}

static void getopt_start(void)
{
	optind = 0;	/* glibc: full reinitialisation */
	optopt = 0;
	opterr = 0;
}

/* ------------------------------------------------------------------------
 * The capture
 */

/* What meta.json says about one CPU's hardware. */
struct cpu_caps {
	bool have_fms;
	uint64_t family, model, stepping;
	uint64_t cpuid_15_eax, cpuid_15_ebx;
	uint64_t nom_freq;
	int mtc_freq;		/* -1: unknown */
};

static int caps_u64(const struct tracebuf_capture *cap, const char *pc, const char *key,
		    uint64_t *v)
{
	char path[96];

	snprintf(path, sizeof(path), "%s.%s", pc, key);
	return tracebuf_capture_meta_u64(cap, path, v);
}

static void meta_cpu_caps(const struct tracebuf_capture *cap, unsigned int cpu,
			  struct cpu_caps *c)
{
	char pc[64], cfg[TRACEBUF_DRV_CONFIG_MAX];
	const char *k;

	memset(c, 0, sizeof(*c));
	c->mtc_freq = -1;
	snprintf(pc, sizeof(pc), "per_cpu.%u.caps", cpu);
	c->have_fms = !caps_u64(cap, pc, "family", &c->family) &&
		      !caps_u64(cap, pc, "model", &c->model) &&
		      !caps_u64(cap, pc, "stepping", &c->stepping);
	caps_u64(cap, pc, "cpuid_15.0", &c->cpuid_15_eax);
	caps_u64(cap, pc, "cpuid_15.1", &c->cpuid_15_ebx);
	caps_u64(cap, pc, "max_nonturbo_ratio", &c->nom_freq);
	snprintf(pc, sizeof(pc), "per_cpu.%u.config", cpu);
	if (tracebuf_capture_meta_str(cap, pc, cfg, sizeof(cfg)) >= 0) {
		k = strstr(cfg, "mtc_period=");
		if (k)
			c->mtc_freq = atoi(k + strlen("mtc_period="));
	}
}

/* One AUX record: a span of cpuN.aux. */
struct span {
	uint64_t ring_off;	/* aux_offset: position in the ring */
	uint64_t size;
	uint64_t flags;		/* TRACEBUF_AUX_F_* */
	uint64_t start;		/* offset in cpuN.aux */
	bool cfg_first;		/* first span after a CONFIG record */
};

/* A CONFIG record. */
struct cfgrec {
	uint64_t gen;
	uint64_t start;		/* offset in cpuN.aux where it applies */
	char *text;
};

struct error_rec {
	bool have_off;
	uint64_t off;
	char msg[160];
};

/* Packet kinds counted and listed (libipt's types, MODE split by leaf). */
enum {
	K_PAD, K_PSB, K_PSBEND, K_FUP, K_TIP, K_TIP_PGE, K_TIP_PGD, K_TNT8, K_TNT64,
	K_MODE_EXEC, K_MODE_TSX, K_PIP, K_VMCS, K_CBR, K_TSC, K_TMA, K_MTC, K_CYC,
	K_STOP, K_OVF, K_MNT, K_EXSTOP, K_MWAIT, K_PWRE, K_PWRX, K_PTW, K_UNKNOWN,
	K_OTHER, K_NR
};

static const char *const kind_names[K_NR] = {
	"pad", "psb", "psbend", "fup", "tip", "tip.pge", "tip.pgd", "tnt.8", "tnt.64",
	"mode.exec", "mode.tsx", "pip", "vmcs", "cbr", "tsc", "tma", "mtc", "cyc",
	"stop", "ovf", "mnt", "exstop", "mwait", "pwre", "pwrx", "ptw", "unknown",
	"other",
};

struct stats {
	uint64_t bytes, spans, truncated, collisions, overwrite, segments;
	uint64_t packets, kinds[K_NR];
	bool have_tsc;
	uint64_t tsc_first, tsc_last;
	uint64_t cut, skipped, records_lost;
	uint64_t gap_bytes;	/* AUX bytes missing from the file (lost records) */
	uint64_t errors;
};

struct cpu {
	unsigned int nr;
	struct cpu_caps caps;
	struct span *spans;
	size_t nspans;
	struct cfgrec *cfgs;
	size_t ncfgs;
	struct stats st;
	struct error_rec errs[MAX_ERRORS];
};

struct decode_opts {
	const char *dir;
	bool packets, json;
	bool snapshot;
	struct tracebuf_capture *cap;
};

static void cpu_error(struct cpu *c, bool have_off, uint64_t off, const char *fmt, ...)
	__attribute__((format(printf, 4, 5)));

static void cpu_error(struct cpu *c, bool have_off, uint64_t off, const char *fmt, ...)
{
	va_list ap;

	if (c->st.errors < MAX_ERRORS) {
		struct error_rec *e = &c->errs[c->st.errors];

		e->have_off = have_off;
		e->off = off;
		va_start(ap, fmt);
		vsnprintf(e->msg, sizeof(e->msg), fmt, ap);
		va_end(ap);
	}
	c->st.errors++;
}

static void *xrealloc(void *p, size_t n, size_t size)
{
	if (size && n > SIZE_MAX / size) {
		fputs("tracebuf: out of memory\n", stderr);
		exit(TB_EXIT_FAIL);
	}
	p = realloc(p, n && size ? n * size : 1);
	if (!p) {
		fputs("tracebuf: out of memory\n", stderr);
		exit(TB_EXIT_FAIL);
	}
	return p;
}

/*
 * The spans and CONFIG records of one stream (checked at open: every
 * record whole and of its type's size).
 */
static bool read_records(struct cpu *c, const struct decode_opts *o)
{
	struct tracebuf_capture_iter_opts io = {
		.sz = sizeof(io), .flags = TRACEBUF_ITER_ONE_CPU, .cpu = c->nr,
	};
	struct tracebuf_capture_iter *it;
	const struct tracebuf_capture_rec *cr;
	bool pending_cfg = false;
	size_t cap_s = 0, cap_c = 0;
	int ret;

	ret = tracebuf_capture_iter_new(o->cap, &io, &it);
	if (ret) {
		fprintf(stderr, "tracebuf: decode: %s: cpu %u: %s\n", o->dir, c->nr,
			tracebuf_strerror(ret));
		return false;
	}
	while (tracebuf_capture_next(it, &cr) > 0) {
		const struct tracebuf_rec_config *cf = tracebuf_as_config(cr->r);
		const struct tracebuf_rec_lost *l = tracebuf_as_lost(cr->r);

		if (cr->span) {
			struct span *s;

			if (c->nspans == cap_s) {
				cap_s = cap_s ? cap_s * 2 : 64;
				c->spans = xrealloc(c->spans, cap_s, sizeof(*c->spans));
			}
			s = &c->spans[c->nspans++];
			s->ring_off = cr->span->offset;
			s->size = cr->span->size;
			s->flags = cr->span->flags;
			s->start = cr->span->stream_offset;
			s->cfg_first = pending_cfg;
			pending_cfg = false;
		} else if (cf) {
			struct cfgrec *cfg;

			if (c->ncfgs == cap_c) {
				cap_c = cap_c ? cap_c * 2 : 8;
				c->cfgs = xrealloc(c->cfgs, cap_c, sizeof(*c->cfgs));
			}
			cfg = &c->cfgs[c->ncfgs++];
			cfg->gen = cf->generation;
			cfg->start = c->nspans ? c->spans[c->nspans - 1].start +
				     c->spans[c->nspans - 1].size : 0;
			cfg->text = strndup((const char *)(cf + 1), cf->len);
			if (!cfg->text) {
				fputs("tracebuf: out of memory\n", stderr);
				exit(TB_EXIT_FAIL);
			}
			/* Before any span, it is simply the configuration of the first. */
			pending_cfg = c->nspans > 0;
		} else if (l && l->reason != TRACEBUF_LOST_AUX_OVERRUN) {
			/* AUX_OVERRUN counts trace bytes (CoreSight), not records. */
			c->st.records_lost += l->count;
		}
	}
	tracebuf_capture_iter_free(it);
	return true;
}

/* ------------------------------------------------------------------------
 * Output helpers
 */

static void json_str(const char *s)
{
	tb_json_str(stdout, s, strlen(s));
}

static void stats_add(struct stats *t, const struct stats *s)
{
	int k;

	t->bytes += s->bytes;
	t->spans += s->spans;
	t->truncated += s->truncated;
	t->collisions += s->collisions;
	t->overwrite += s->overwrite;
	t->segments += s->segments;
	t->packets += s->packets;
	for (k = 0; k < K_NR; k++)
		t->kinds[k] += s->kinds[k];
	if (s->have_tsc) {
		if (!t->have_tsc || s->tsc_first < t->tsc_first)
			t->tsc_first = s->tsc_first;
		if (!t->have_tsc || s->tsc_last > t->tsc_last)
			t->tsc_last = s->tsc_last;
		t->have_tsc = true;
	}
	t->cut += s->cut;
	t->skipped += s->skipped;
	t->gap_bytes += s->gap_bytes;
	t->records_lost += s->records_lost;
	t->errors += s->errors;
}

static void print_stats_text(const struct stats *s)
{
	int k;

	printf("  bytes:      %" PRIu64 " (%" PRIu64 " spans, %" PRIu64 " truncated, %"
	       PRIu64 " collisions", s->bytes, s->spans, s->truncated, s->collisions);
	if (s->overwrite)
		printf(", %" PRIu64 " overwritten", s->overwrite);
	printf(")\n");
	printf("  segments:   %" PRIu64 "\n", s->segments);
	printf("  packets:    %" PRIu64 "\n", s->packets);
	for (k = 0; k < K_NR; k++)
		if (s->kinds[k])
			printf("    %-10s %" PRIu64 "\n", kind_names[k], s->kinds[k]);
	printf("  psbs:       %" PRIu64 "\n", s->kinds[K_PSB]);
	if (s->have_tsc)
		printf("  tsc:        0x%" PRIx64 " .. 0x%" PRIx64 "\n", s->tsc_first, s->tsc_last);
	else
		printf("  tsc:        none\n");
	printf("  ptws:       %" PRIu64 "\n", s->kinds[K_PTW]);
	printf("  ovfs:       %" PRIu64 "\n", s->kinds[K_OVF]);
	printf("  cut:        %" PRIu64 "\n", s->cut);
	if (s->skipped)
		printf("  skipped:    %" PRIu64 " bytes before a PSB\n", s->skipped);
	if (s->gap_bytes)
		printf("  missing:    %" PRIu64 " AUX bytes (their AUX records were lost)\n",
		       s->gap_bytes);
	if (s->records_lost)
		printf("  lost:       %" PRIu64 " records\n", s->records_lost);
	printf("  errors:     %" PRIu64 "\n", s->errors);
}

static void print_cpu_text(const struct cpu *c)
{
	size_t i;

	printf("cpu %u:\n", c->nr);
	print_stats_text(&c->st);
	for (i = 0; i < MAX_ERRORS && i < c->st.errors; i++) {
		if (c->errs[i].have_off)
			printf("    error at 0x%" PRIx64 ": %s\n", c->errs[i].off, c->errs[i].msg);
		else
			printf("    error: %s\n", c->errs[i].msg);
	}
	if (c->st.errors > MAX_ERRORS)
		printf("    ... and %" PRIu64 " more\n", c->st.errors - MAX_ERRORS);
	for (i = 0; i < c->ncfgs; i++)
		printf("  config:     generation %" PRIu64 " at 0x%" PRIx64 ": %s\n",
		       c->cfgs[i].gen, c->cfgs[i].start, c->cfgs[i].text);
}

static void print_stats_json(const struct stats *s)
{
	bool first = true;
	int k;

	printf("\"bytes\": %" PRIu64 ", \"spans\": %" PRIu64 ", \"truncated\": %" PRIu64
	       ", \"collisions\": %" PRIu64 ", \"overwritten\": %" PRIu64
	       ", \"segments\": %" PRIu64 ", \"packets\": %" PRIu64 ", \"packet_types\": {",
	       s->bytes, s->spans, s->truncated, s->collisions, s->overwrite, s->segments,
	       s->packets);
	for (k = 0; k < K_NR; k++) {
		if (!s->kinds[k])
			continue;
		printf("%s\"%s\": %" PRIu64, first ? "" : ", ", kind_names[k], s->kinds[k]);
		first = false;
	}
	printf("}, \"psbs\": %" PRIu64 ", ", s->kinds[K_PSB]);
	if (s->have_tsc)
		printf("\"tsc_first\": %" PRIu64 ", \"tsc_last\": %" PRIu64 ", ",
		       s->tsc_first, s->tsc_last);
	else
		printf("\"tsc_first\": null, \"tsc_last\": null, ");
	printf("\"ptws\": %" PRIu64 ", \"ovfs\": %" PRIu64 ", \"cut\": %" PRIu64
	       ", \"skipped\": %" PRIu64 ", \"missing\": %" PRIu64 ", \"records_lost\": %" PRIu64
	       ", \"errors\": %" PRIu64,
	       s->kinds[K_PTW], s->kinds[K_OVF], s->cut, s->skipped, s->gap_bytes, s->records_lost,
	       s->errors);
}

static void print_cpu_json(const struct cpu *c)
{
	size_t i;

	printf("{\"cpu\": %u, ", c->nr);
	print_stats_json(&c->st);
	printf(", \"first_errors\": [");
	for (i = 0; i < MAX_ERRORS && i < c->st.errors; i++) {
		printf("%s{\"offset\": ", i ? ", " : "");
		if (c->errs[i].have_off)
			printf("%" PRIu64, c->errs[i].off);
		else
			printf("null");
		printf(", \"message\": ");
		json_str(c->errs[i].msg);
		printf("}");
	}
	printf("], \"config\": [");
	for (i = 0; i < c->ncfgs; i++) {
		printf("%s{\"generation\": %" PRIu64 ", \"offset\": %" PRIu64 ", \"config\": ",
		       i ? ", " : "", c->cfgs[i].gen, c->cfgs[i].start);
		json_str(c->cfgs[i].text);
		printf("}");
	}
	printf("]}");
}

/* ------------------------------------------------------------------------
 * Decoding
 */

#ifdef HAVE_LIBIPT

static int kind_of(const struct pt_packet *p)
{
	switch (p->type) {
	case ppt_pad: return K_PAD;
	case ppt_psb: return K_PSB;
	case ppt_psbend: return K_PSBEND;
	case ppt_fup: return K_FUP;
	case ppt_tip: return K_TIP;
	case ppt_tip_pge: return K_TIP_PGE;
	case ppt_tip_pgd: return K_TIP_PGD;
	case ppt_tnt_8: return K_TNT8;
	case ppt_tnt_64: return K_TNT64;
	case ppt_mode:
		return p->payload.mode.leaf == pt_mol_tsx ? K_MODE_TSX : K_MODE_EXEC;
	case ppt_pip: return K_PIP;
	case ppt_vmcs: return K_VMCS;
	case ppt_cbr: return K_CBR;
	case ppt_tsc: return K_TSC;
	case ppt_tma: return K_TMA;
	case ppt_mtc: return K_MTC;
	case ppt_cyc: return K_CYC;
	case ppt_stop: return K_STOP;
	case ppt_ovf: return K_OVF;
	case ppt_mnt: return K_MNT;
	case ppt_exstop: return K_EXSTOP;
	case ppt_mwait: return K_MWAIT;
	case ppt_pwre: return K_PWRE;
	case ppt_pwrx: return K_PWRX;
	case ppt_ptw: return K_PTW;
	case ppt_unknown: return K_UNKNOWN;
	default: return K_OTHER;
	}
}

static const char *ipc_name(enum pt_ip_compression ipc)
{
	switch (ipc) {
	case pt_ipc_suppressed: return "suppressed";
	case pt_ipc_update_16: return "upd16";
	case pt_ipc_update_32: return "upd32";
	case pt_ipc_sext_48: return "sext48";
	case pt_ipc_update_48: return "upd48";
	case pt_ipc_full: return "full";
	}
	return "?";
}

/* The IP of an IP packet against the last IP (which it updates). */
static bool ip_of(const struct pt_packet_ip *p, uint64_t *last, uint64_t *ip)
{
	switch (p->ipc) {
	case pt_ipc_update_16:
		*ip = (*last & ~0xffffULL) | (p->ip & 0xffffULL);
		break;
	case pt_ipc_update_32:
		*ip = (*last & ~0xffffffffULL) | (p->ip & 0xffffffffULL);
		break;
	case pt_ipc_sext_48:
		*ip = p->ip & 0xffffffffffffULL;
		if (*ip & (1ULL << 47))
			*ip |= 0xffff000000000000ULL;
		break;
	case pt_ipc_update_48:
		*ip = (*last & ~0xffffffffffffULL) | (p->ip & 0xffffffffffffULL);
		break;
	case pt_ipc_full:
		*ip = p->ip;
		break;
	default:
		return false;
	}
	*last = *ip;
	return true;
}

/* One line of the --packets listing. */
static void list_packet(uint64_t off, const struct pt_packet *p, int kind, uint64_t *last_ip)
{
	uint64_t ip;
	int i;

	printf("%08" PRIx64 "  %s", off, kind == K_OTHER ? "packet" : kind_names[kind]);
	switch (kind) {
	case K_PSB:
	case K_OVF:
		*last_ip = 0;
		break;
	case K_FUP:
	case K_TIP:
	case K_TIP_PGE:
	case K_TIP_PGD:
		if (ip_of(&p->payload.ip, last_ip, &ip))
			printf("  %016" PRIx64 " (%s)", ip, ipc_name(p->payload.ip.ipc));
		else
			printf("  (%s)", ipc_name(p->payload.ip.ipc));
		break;
	case K_TNT8:
	case K_TNT64:
		printf("  ");
		for (i = p->payload.tnt.bit_size - 1; i >= 0; i--)
			putchar((p->payload.tnt.payload >> i) & 1 ? 'T' : 'N');
		printf(" (%u)", p->payload.tnt.bit_size);
		break;
	case K_MODE_EXEC:
		switch (pt_get_exec_mode(&p->payload.mode.bits.exec)) {
		case ptem_16bit: printf("  16-bit"); break;
		case ptem_32bit: printf("  32-bit"); break;
		case ptem_64bit: printf("  64-bit"); break;
		default: printf("  cs.l=1 cs.d=1"); break;
		}
		break;
	case K_MODE_TSX:
		printf("  intx=%u abrt=%u", p->payload.mode.bits.tsx.intx,
		       p->payload.mode.bits.tsx.abrt);
		break;
	case K_PIP:
		printf("  cr3=0x%" PRIx64 "%s", p->payload.pip.cr3, p->payload.pip.nr ? " nr" : "");
		break;
	case K_VMCS:
		printf("  0x%" PRIx64, p->payload.vmcs.base);
		break;
	case K_CBR:
		printf("  %u", p->payload.cbr.ratio);
		break;
	case K_TSC:
		printf("  0x%" PRIx64, p->payload.tsc.tsc);
		break;
	case K_TMA:
		printf("  ctc=0x%x fc=0x%x", p->payload.tma.ctc, p->payload.tma.fc);
		break;
	case K_MTC:
		printf("  0x%x", p->payload.mtc.ctc);
		break;
	case K_CYC:
		printf("  0x%" PRIx64, p->payload.cyc.value);
		break;
	case K_MNT:
		printf("  0x%" PRIx64, p->payload.mnt.payload);
		break;
	case K_EXSTOP:
		if (p->payload.exstop.ip)
			printf("  ip");
		break;
	case K_MWAIT:
		printf("  hints=0x%x ext=0x%x", p->payload.mwait.hints, p->payload.mwait.ext);
		break;
	case K_PWRE:
		printf("  c%u.%u%s", p->payload.pwre.state, p->payload.pwre.sub_state,
		       p->payload.pwre.hw ? " hw" : "");
		break;
	case K_PWRX:
		printf("  last=c%u deepest=c%u%s%s%s", p->payload.pwrx.last,
		       p->payload.pwrx.deepest, p->payload.pwrx.interrupt ? " interrupt" : "",
		       p->payload.pwrx.store ? " store" : "",
		       p->payload.pwrx.autonomous ? " autonomous" : "");
		break;
	case K_PTW:
		printf("  0x%" PRIx64 " (%d bytes%s)", p->payload.ptw.payload,
		       pt_ptw_size(p->payload.ptw.plc), p->payload.ptw.ip ? ", ip" : "");
		break;
	case K_OTHER:
		printf("  type %d", (int)p->type);
		break;
	default:
		break;
	}
	putchar('\n');
}

static const uint8_t psb_pattern[16] = {
	2, 0x82, 2, 0x82, 2, 0x82, 2, 0x82, 2, 0x82, 2, 0x82, 2, 0x82, 2, 0x82,
};

/*
 * Decode aux[b, e), a segment: the hardware ran without a stop from its
 * start to its end. may_cut: its last span is TRUNCATED/COLLISION, or
 * bytes are missing after it. after_gap: bytes are missing before it (an
 * AUX record was lost, so the file lacks its span), so it may start in
 * the middle of a packet.
 */
static void decode_segment(struct cpu *c, const struct decode_opts *o, const uint8_t *aux,
			   uint64_t b, uint64_t e, bool may_cut, bool after_gap)
{
	struct pt_config config;
	struct pt_packet_decoder *dec;
	struct pt_packet pkt;
	uint64_t off, p, last_ip = 0;
	int rc, kind;

	if (b == e)
		return;
	c->st.segments++;
	pt_config_init(&config);
	config.begin = (uint8_t *)aux + b;
	config.end = (uint8_t *)aux + e;
	config.cpu.vendor = pcv_intel;
	if (c->caps.have_fms) {
		config.cpu.family = (uint16_t)c->caps.family;
		config.cpu.model = (uint8_t)c->caps.model;
		config.cpu.stepping = (uint8_t)c->caps.stepping;
		/* Unknown CPUs (-pte_bad_cpu) have no errata to apply. */
		(void)pt_cpu_errata(&config.errata, &config.cpu);
	} else {
		config.cpu.vendor = pcv_unknown;
	}
	config.cpuid_0x15_eax = (uint32_t)c->caps.cpuid_15_eax;
	config.cpuid_0x15_ebx = (uint32_t)c->caps.cpuid_15_ebx;
	config.nom_freq = (uint8_t)c->caps.nom_freq;
	if (c->caps.mtc_freq >= 0)
		config.mtc_freq = (uint8_t)c->caps.mtc_freq;
	dec = pt_pkt_alloc_decoder(&config);
	if (!dec) {
		cpu_error(c, true, b, "cannot allocate a libipt packet decoder");
		return;
	}

	/* A PSB at the start (after PAD bytes), else the first one. */
	for (p = b; p < e && !aux[p]; p++)
		;
	if (p == e || (e - p >= sizeof(psb_pattern) &&
		       !memcmp(aux + p, psb_pattern, sizeof(psb_pattern)))) {
		rc = pt_pkt_sync_set(dec, 0);
	} else {
		rc = pt_pkt_sync_forward(dec);
		if (rc >= 0 && pt_pkt_get_sync_offset(dec, &off) >= 0) {
			c->st.skipped += off;
			if (o->packets)
				printf("# %" PRIu64 " bytes skipped to the first PSB\n", off);
			if (!o->snapshot && !after_gap)
				cpu_error(c, true, b, "the segment does not start with a PSB: %"
					  PRIu64 " bytes skipped to the PSB at 0x%" PRIx64,
					  off, b + off);
		} else {
			c->st.skipped += e - b;
			if (o->packets)
				printf("# no PSB: %" PRIu64 " bytes not decoded\n", e - b);
			if (!o->snapshot && !after_gap)
				cpu_error(c, true, b, "no PSB in the segment [0x%" PRIx64 ", 0x%"
					  PRIx64 "): %s", b, e, pt_errstr(pt_errcode(rc)));
		}
	}
	while (rc >= 0) {
		if (pt_pkt_get_offset(dec, &off) < 0)
			break;
		rc = pt_pkt_next(dec, &pkt, sizeof(pkt));
		if (rc == -pte_eos) {
			if (b + off == e)
				break;
			if (may_cut) {
				c->st.cut++;
				if (o->packets)
					printf("%08" PRIx64 "  cut  (%" PRIu64 " bytes: the hardware "
					       "stopped, span TRUNCATED/COLLISION)\n",
					       b + off, e - b - off);
				break;
			}
			cpu_error(c, true, b + off, "packet cut short at the end of the segment "
				  "(%" PRIu64 " bytes left), but its last span is not "
				  "TRUNCATED/COLLISION", e - b - off);
			if (o->packets)
				printf("%08" PRIx64 "  error  packet cut short (%" PRIu64
				       " bytes left)\n", b + off, e - b - off);
			break;
		}
		if (rc < 0) {
			cpu_error(c, true, b + off, "%s", pt_errstr(pt_errcode(rc)));
			if (o->packets)
				printf("%08" PRIx64 "  error  %s\n", b + off,
				       pt_errstr(pt_errcode(rc)));
			rc = pt_pkt_sync_forward(dec);
			if (rc < 0) {
				if (o->packets)
					printf("# no further PSB in the segment\n");
				break;
			}
			if (pt_pkt_get_sync_offset(dec, &p) >= 0 && o->packets)
				printf("# resynchronised at the PSB at %08" PRIx64 "\n", b + p);
			last_ip = 0;
			continue;
		}
		kind = kind_of(&pkt);
		c->st.packets++;
		c->st.kinds[kind]++;
		if (kind == K_TSC) {
			if (!c->st.have_tsc)
				c->st.tsc_first = pkt.payload.tsc.tsc;
			c->st.tsc_last = pkt.payload.tsc.tsc;
			c->st.have_tsc = true;
		}
		if (o->packets)
			list_packet(b + off, &pkt, kind, &last_ip);
	}
	pt_pkt_free_decoder(dec);
}

#endif /* HAVE_LIBIPT */

/* Everything about one CPU; false when its files cannot be read at all. */
static bool decode_cpu(struct cpu *c, const struct decode_opts *o, unsigned int stream)
{
	const void *map;
	const uint8_t *aux;
	uint64_t alen64;
	size_t alen, i, seg_first = 0, ci = 0;
	uint64_t described;

	meta_cpu_caps(o->cap, c->nr, &c->caps);
	if (!read_records(c, o) || tracebuf_capture_aux(o->cap, stream, &map, &alen64))
		return false;
	aux = map;
	alen = (size_t)alen64;	/* mapped: it fits */

	c->st.bytes = alen;
	c->st.spans = c->nspans;
	described = c->nspans ? c->spans[c->nspans - 1].start + c->spans[c->nspans - 1].size : 0;
	if (described != alen)
		cpu_error(c, true, described < alen ? described : alen,
			  "the AUX records of cpu%u.data describe %" PRIu64 " bytes, cpu%u.aux "
			  "has %zu", c->nr, described, c->nr, alen);
	/* Bytes no record describes: one more span, so that they are decoded. */
	if (described < alen) {
		c->spans = xrealloc(c->spans, c->nspans + 1, sizeof(*c->spans));
		c->spans[c->nspans] = (struct span){
			.ring_off = 0, .size = alen - described, .flags = 0,
			.start = described, .cfg_first = false,
		};
		c->nspans++;
	}
	for (i = 0; i < c->nspans; i++) {
		const struct span *s = &c->spans[i];

		if (s->flags & TRACEBUF_AUX_F_TRUNCATED)
			c->st.truncated++;
		if (s->flags & TRACEBUF_AUX_F_COLLISION)
			c->st.collisions++;
		if (s->flags & TRACEBUF_AUX_F_OVERWRITE)
			c->st.overwrite++;
	}

	if (o->packets)
		printf("# cpu %u: cpu%u.aux, %zu bytes, %zu spans\n", c->nr, c->nr, alen,
		       c->st.spans);
	for (i = 0; i < c->nspans; i++) {
		const struct span *s = &c->spans[i];
		const struct span *n = i + 1 < c->nspans ? &c->spans[i + 1] : NULL;
		bool stop = s->flags & (TRACEBUF_AUX_F_TRUNCATED | TRACEBUF_AUX_F_COLLISION);
		/* A jump in the ring: the spans in between are not in the file. */
		bool gap = n && n->ring_off != s->ring_off + s->size;
		bool after_gap = seg_first && c->spans[seg_first].ring_off !=
			c->spans[seg_first - 1].ring_off + c->spans[seg_first - 1].size;
		uint64_t b = c->spans[seg_first].start, e = s->start + s->size;

		if (n && !stop && !gap && !n->cfg_first &&
		    !(o->snapshot && (n->flags & TRACEBUF_AUX_F_OVERWRITE)))
			continue;
		if (gap && !o->snapshot)
			c->st.gap_bytes += n->ring_off - (s->ring_off + s->size);
		/* spans seg_first..i: one segment, clipped to what the file holds */
		if (b > alen)
			b = alen;
		if (e > alen)
			e = alen;
		if (b == e) {		/* empty spans only: nothing to decode */
			seg_first = i + 1;
			continue;
		}
		if (o->packets) {
			for (; ci < c->ncfgs && c->cfgs[ci].start <= b; ci++)
				printf("# config generation %" PRIu64 ": %s\n", c->cfgs[ci].gen,
				       c->cfgs[ci].text);
			printf("# segment %" PRIu64 ": [0x%" PRIx64 ", 0x%" PRIx64 "), spans %zu-%zu%s\n",
			       c->st.segments, b, e, seg_first, i,
			       stop ? (s->flags & TRACEBUF_AUX_F_COLLISION ? ", ends COLLISION" :
				       ", ends TRUNCATED") : "");
		}
#ifdef HAVE_LIBIPT
		decode_segment(c, o, aux, b, e, stop || (gap && !o->snapshot),
			       after_gap && !o->snapshot);
#else
		(void)stop;
		(void)after_gap;
		(void)aux;
#endif
		seg_first = i + 1;
	}
	if (o->packets)
		for (; ci < c->ncfgs; ci++)
			printf("# config generation %" PRIu64 ": %s\n", c->cfgs[ci].gen,
			       c->cfgs[ci].text);
	return true;
}

int cmd_decode(int argc, char **argv)
{
	static const struct option longopts[] = {
		{ "cpu", required_argument, NULL, 'c' },
		{ "packets", no_argument, NULL, 'p' },
		{ "json", no_argument, NULL, 'j' },
		{ "help", no_argument, NULL, 'h' },
		{ "insn", no_argument, NULL, 'i' },
		{ "calls", no_argument, NULL, 'C' },
#ifdef HAVE_LIBDW
		TB_FLOW_LONGOPTS,
#endif
		{ NULL, 0, NULL, 0 },
	};
	struct decode_opts o = { 0 };
	int flow_mode = 0;	/* 'i' --insn, 'C' --calls */
#ifdef HAVE_LIBDW
	struct tb_flow_cli cli;
	struct tb_flow_result res;
	const char *badarg;

	tb_flow_cli_init(&cli);
#endif
	struct cpu *cpus;
	struct stats total = { 0 };
	long ncpus, i, want_cpu = -1;
	bool bad = false;
	char *end, backend[32];
	int c, incomplete, snapshot = 0;
	struct stat sb;

	getopt_start();
	while ((c = getopt_long(argc, argv, ":h", longopts, NULL)) != -1) {
		switch (c) {
		case 'c':
			errno = 0;
			want_cpu = strtol(optarg, &end, 10);
			if (!*optarg || *end || errno || want_cpu < 0 || want_cpu >= MAX_CPUS)
				return usage_err("decode", "invalid CPU number", optarg);
			break;
		case 'p':
			o.packets = true;
			break;
		case 'j':
			o.json = true;
			break;
		case 'h':
			decode_usage(stdout);
			return TB_EXIT_OK;
		case 'i':
		case 'C':
			if (flow_mode && flow_mode != c)
				return usage_err("decode", "--insn and --calls cannot be combined",
						 NULL);
			flow_mode = c;
			break;
		default:
#ifdef HAVE_LIBDW
			if (c >= TB_FLOW_OPT_PID && c <= TB_FLOW_OPT_NO_DISASM) {
				if (tb_flow_cli_opt(&cli, c, optarg, &badarg)) {
					tb_flow_cli_free(&cli);
					return usage_err("decode", "invalid argument", badarg);
				}
				break;
			}
#endif
			return bad_opt("decode", argv, c);
		}
	}
	if (optind >= argc)
		return usage_err("decode", "missing capture directory", NULL);
	if (argc - optind > 1)
		return usage_err("decode", "unexpected argument", argv[optind + 1]);
	if (o.packets && o.json)
		return usage_err("decode", "--packets and --json cannot be combined", NULL);
	if (flow_mode && (o.packets || want_cpu >= 0))
		return usage_err("decode", o.packets ? "--packets cannot be combined with "
				 "--insn or --calls" : "--cpu cannot be combined with --insn or "
				 "--calls", NULL);
	o.dir = argv[optind];
	if (flow_mode) {
#ifdef HAVE_LIBDW
		int ret;

		if (stat(o.dir, &sb) < 0 || !S_ISDIR(sb.st_mode)) {
			fprintf(stderr, "tracebuf: decode: %s: %s\n", o.dir,
				stat(o.dir, &sb) < 0 ? strerror(errno) : "not a directory");
			tb_flow_cli_free(&cli);
			return TB_EXIT_FAIL;
		}
		ret = tb_flow_run("decode", o.dir, flow_mode == 'i' ? FLOW_INSN : FLOW_CALLS,
				  o.json, stdout, &cli, &res);
		tb_flow_cli_free(&cli);
		if (fflush(stdout) || ferror(stdout)) {
			fprintf(stderr, "tracebuf: decode: writing the output: %s\n",
				strerror(errno));
			return TB_EXIT_FAIL;
		}
		if (ret)
			return TB_EXIT_FAIL;
		if (res.errors || res.refused || res.problems)
			fprintf(stderr, "tracebuf: decode: %s: %" PRIu64 " instructions, %" PRIu64
				" decode errors, %u files refused, %u sideband problems\n", o.dir,
				res.insns, res.errors, res.refused, res.problems);
		if (res.incomplete)
			fprintf(stderr, "tracebuf: decode: %s: the capture is incomplete "
				"(\"complete\": false, the recording was interrupted)\n", o.dir);
		return res.errors || res.refused || res.problems || res.incomplete ?
		       TB_EXIT_FAIL : TB_EXIT_OK;
#else
		fputs("tracebuf: decode --insn and --calls need elfutils: install libelf-dev "
		      "and libdw-dev (Debian: apt-get install libelf-dev libdw-dev) and "
		      "rebuild\n", stderr);
		return TB_EXIT_FAIL;
#endif
	}

#ifndef HAVE_LIBIPT
	fputs("tracebuf: decode needs libipt: install libipt-dev (Debian: apt-get "
	      "install libipt-dev) and rebuild\n", stderr);
	return TB_EXIT_FAIL;
#endif

	if (stat(o.dir, &sb) < 0 || !S_ISDIR(sb.st_mode)) {
		fprintf(stderr, "tracebuf: decode: %s: %s\n", o.dir,
			stat(o.dir, &sb) < 0 ? strerror(errno) : "not a directory");
		return TB_EXIT_FAIL;
	}
	/* The backend first: a CoreSight capture is another tool's job. */
	if (tb_capture_open("decode", o.dir, TRACEBUF_CAPTURE_META_ONLY, 0, "decoded", &o.cap))
		return TB_EXIT_FAIL;
	if (tracebuf_capture_meta_str(o.cap, "backend", backend, sizeof(backend)) < 0)
		backend[0] = 0;
	tracebuf_capture_close(o.cap);
	o.cap = NULL;
	if (backend[0] && strcmp(backend, "intel_pt")) {
		if (!strcmp(backend, "coresight"))
			fprintf(stderr, "tracebuf: decode: %s: a CoreSight capture: convert it "
				"with 'tracebuf export --opencsd OUTDIR %s' and decode that with "
				"OpenCSD (trc_pkt_lister)\n", o.dir, o.dir);
		else
			fprintf(stderr, "tracebuf: decode: %s: backend \"%s\": only intel_pt "
				"captures can be decoded\n", o.dir, backend);
		return TB_EXIT_FAIL;
	}
	if (tb_capture_open("decode", o.dir, want_cpu >= 0 ? TRACEBUF_CAPTURE_ONE_CPU : 0,
			    want_cpu >= 0 ? (unsigned int)want_cpu : 0, "decoded", &o.cap))
		return TB_EXIT_FAIL;
	incomplete = !tracebuf_capture_complete(o.cap);
	tracebuf_capture_meta_bool(o.cap, "snapshot", &snapshot);
	o.snapshot = snapshot;
	ncpus = tracebuf_capture_nr_streams(o.cap);
	if (want_cpu >= 0 && ncpus <= 0) {
		fprintf(stderr, "tracebuf: decode: %s: CPU %ld is not in the capture\n",
			o.dir, want_cpu);
		tracebuf_capture_close(o.cap);
		return TB_EXIT_FAIL;
	}

	cpus = xrealloc(NULL, (size_t)ncpus, sizeof(*cpus));
	memset(cpus, 0, (size_t)ncpus * sizeof(*cpus));
	for (i = 0; i < ncpus; i++) {
		cpus[i].nr = (unsigned int)tracebuf_capture_stream_cpu(o.cap, (unsigned int)i);
		if (!decode_cpu(&cpus[i], &o, (unsigned int)i))
			bad = true;
		stats_add(&total, &cpus[i].st);
	}

	if (o.json) {
		printf("{\"dir\": ");
		json_str(o.dir);
		printf(", \"backend\": \"intel_pt\", \"snapshot\": %s, \"cpus\": [",
		       o.snapshot ? "true" : "false");
		for (i = 0; i < ncpus; i++) {
			printf("%s", i ? ", " : "");
			print_cpu_json(&cpus[i]);
		}
		printf("], \"total\": {");
		print_stats_json(&total);
		printf("}}\n");
	} else if (!o.packets) {
		for (i = 0; i < ncpus; i++)
			print_cpu_text(&cpus[i]);
		if (ncpus > 1) {
			printf("total:\n");
			print_stats_text(&total);
		}
	} else {
		for (i = 0; i < ncpus; i++)
			if (cpus[i].st.errors)
				fprintf(stderr, "tracebuf: decode: cpu %u: %" PRIu64 " errors\n",
					cpus[i].nr, cpus[i].st.errors);
	}

	for (i = 0; i < ncpus; i++) {
		size_t k;

		for (k = 0; k < cpus[i].ncfgs; k++)
			free(cpus[i].cfgs[k].text);
		free(cpus[i].cfgs);
		free(cpus[i].spans);
	}
	free(cpus);
	tracebuf_capture_close(o.cap);
	if (incomplete)
		fprintf(stderr, "tracebuf: decode: %s: the capture is incomplete (\"complete\": "
			"false, the recording was interrupted): its counts were not checked\n",
			o.dir);
	return bad || total.errors || incomplete ? TB_EXIT_FAIL : TB_EXIT_OK;
}
