// SPDX-License-Identifier: GPL-2.0
/*
 * tracebuf - command-line front end to libtracebuf.
 *
 *   tracebuf <command> [options]
 *
 * Each command is one cmd_*() function with its own getopt_long() loop,
 * listed in 'commands' below. Exit status: 0 success, 1 the operation
 * failed, 2 bad usage.
 */
#include <errno.h>
#include <getopt.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <libtracebuf.h>

#include "tool.h"

#define EXIT_USAGE	TB_EXIT_USAGE

static const char usage_text[] =
	"Usage: tracebuf <command> [options]\n"
	"\n"
	"Commands:\n"
	"  info [--json]   show the module version, ABI and trace backends (with\n"
	"                  the Intel PT capabilities, and CoreSight's per CPU)\n"
	"  config --list [--backend NAME] [--cpu N] [--json]\n"
	"                  list the driver configuration keys of a backend\n"
	"  config --check STRING [--backend NAME] [--cpu N]\n"
	"                  check a configuration string (\"key=value,...\") on a\n"
	"                  session and print its canonical form\n"
	"  record [-a | -C CPULIST | -p PID] [-b BACKEND] [-c CONFIG] [--data-size N]\n"
	"         [--aux-size N] [--snapshot] [-o DIR] [--duration T] [--no-inherit]\n"
	"         [--sideband MODE] [--allow-loss] [-q] [-- COMMAND [ARGS...]]\n"
	"                  trace COMMAND (or process PID) alone, or CPUs (-a, -C), into\n"
	"                  a capture directory (default tracebuf.data) with the\n"
	"                  sideband a decoder needs, until T passes, COMMAND exits or\n"
	"                  Ctrl-C\n"
	"  dump DIR [--json] [--cpu N]\n"
	"                  print the records of a capture, one per line\n"
	"  decode DIR [--cpu N] [--packets] [--json]\n"
	"                  decode the Intel PT trace of a capture (libipt)\n"
	"  decode DIR --insn|--calls [--pid N] [--tid N] [--time FROM,TO] [--json]\n"
	"                  every executed instruction, or the calls and returns,\n"
	"                  with symbols (Intel PT: libipt, CoreSight: OpenCSD)\n"
	"  export --opencsd OUTDIR CAPTURE\n"
	"                  split a CoreSight capture into segments, each an OpenCSD\n"
	"                  snapshot directory OUTDIR/segNNN (trc_pkt_lister -ss_dir),\n"
	"                  listed in OUTDIR/segments\n"
	"  export --perfetto OUT.json CAPTURE\n"
	"                  the threads' call stacks over time, for Perfetto or\n"
	"                  chrome://tracing\n"
	"  version         show the tool version (also --version)\n"
	"  help            show this help (also -h, --help)\n"
	"\n"
	"'tracebuf COMMAND --help' describes the options of record, dump, decode\n"
	"and export.\n"
	"\n"
	"Options of config:\n"
	"  --backend NAME  backend to use (default: auto, the first present)\n"
	"  --cpu N         CPU to ask about or trace (default: 0)\n"
	"\n"
	"Environment:\n"
	"  TRACEBUF_DEVICE device node to use instead of " TRACEBUF_DEVICE "\n";

static void usage(FILE *f)
{
	fputs(usage_text, f);
}

int tb_usage_error(const char *what, const char *arg)
{
	fprintf(stderr, "tracebuf: %s '%s'\n", what, arg);
	fputs("Try 'tracebuf help' for more information.\n", stderr);
	return EXIT_USAGE;
}

/*
 * Report what getopt_long() rejected. opterr is 0, so this is the only
 * message: an unknown short option is in optopt, anything else (an
 * unknown long option, or any option missing its argument: then optopt
 * holds the option's short code) is the argument getopt just stepped over.
 */
int tb_bad_option(char **argv, int c)
{
	char opt[3] = { '-', 0, 0 };
	const char *arg = argv[optind - 1];

	if (optopt && c != ':') {
		opt[1] = (char)optopt;
		arg = opt;
	}
	return tb_usage_error(c == ':' ? "missing argument for option" :
			   "unknown option", arg);
}

/* Start option parsing for a command; argv[0] is the command name. */
void tb_getopt_reset(void)
{
	optind = 0;	/* glibc: full reinitialisation */
	optopt = 0;
	opterr = 0;
}

/* The device the library opens, for messages. */
const char *tb_device_path(void)
{
	const char *path = secure_getenv("TRACEBUF_DEVICE");

	return path && *path ? path : TRACEBUF_DEVICE;
}

static int open_session(struct tracebuf_session *s)
{
	int ret = tracebuf_open(s, 0);

	if (ret < 0)
		fprintf(stderr, "tracebuf: cannot open %s: %s\n", tb_device_path(),
			tracebuf_strerror(ret));
	return ret;
}

/* A NUL-terminated string in a fixed array, as a JSON string on stdout. */
static void json_string(const char *s, size_t max)
{
	tb_json_str(stdout, s, strnlen(s, max));
}

/* The kernel NUL-terminates, but a fixed array is all we trust. */
static const char *desc_name(const struct tracebuf_backend_desc *d, int *len)
{
	*len = (int)strnlen(d->name, sizeof(d->name));
	if (*len)
		return d->name;
	*len = (int)strlen(tracebuf_backend_name(d->id));
	return tracebuf_backend_name(d->id);
}

/*
 * Intel PT capabilities of one backend, as GET_CAPS answered for every
 * CPU: the first CPU's, and the list of CPUs whose capabilities are the
 * same. CPUs that differ (hybrid parts) are counted; --json lists every
 * CPU.
 */
#define PT_CAPS_MAX_CPUS	256
struct pt_caps_result {
	int ret;			/* 0, or why there are none; 1: not asked */
	unsigned int cpu;		/* the CPU they describe */
	struct tracebuf_pt_caps caps;
	char same[256];			/* "0-3,5": CPUs with these capabilities */
	unsigned int nr_differ;		/* CPUs with other capabilities */
};

/* Append cpu to a cpulist string kept in ranges ("0-3,5"). */
static void cpulist_add(char *list, size_t len, unsigned int cpu, unsigned int *last,
			unsigned int *run)
{
	size_t n = strlen(list);

	if (n && *last + 1 == cpu) {
		(*run)++;
		/* Rewrite the tail "a" or "a-b" as "a-cpu". */
		while (n && list[n - 1] != ',' && list[n - 1] != '-')
			n--;
		if (*run == 1)
			n = strlen(list);
		snprintf(list + n, len - n, "%s%u", *run == 1 ? "-" : "", cpu);
	} else {
		*run = 0;
		snprintf(list + n, len - n, "%s%u", n ? "," : "", cpu);
	}
	*last = cpu;
}

static const struct {
	uint64_t flag;
	const char *name;		/* perf's caps file names where it has one */
} pt_features[] = {
	{ TRACEBUF_PT_CAP_CR3_FILTERING, "cr3_filtering" },
	{ TRACEBUF_PT_CAP_PSB_CYC, "psb_cyc" },
	{ TRACEBUF_PT_CAP_IP_FILTERING, "ip_filtering" },
	{ TRACEBUF_PT_CAP_MTC, "mtc" },
	{ TRACEBUF_PT_CAP_PTWRITE, "ptwrite" },
	{ TRACEBUF_PT_CAP_POWER_EVENT, "power_event_trace" },
	{ TRACEBUF_PT_CAP_TOPA_OUTPUT, "topa_output" },
	{ TRACEBUF_PT_CAP_TOPA_MULTI, "topa_multiple_entries" },
	{ TRACEBUF_PT_CAP_SINGLE_RANGE, "single_range_output" },
	{ TRACEBUF_PT_CAP_OUTPUT_SUBSYS, "output_subsys" },
	{ TRACEBUF_PT_CAP_PAYLOADS_LIP, "payloads_lip" },
	{ TRACEBUF_PT_CAP_TNT_DISABLE, "tnt_disable" },
	{ TRACEBUF_PT_CAP_EVENT_TRACE, "event_trace" },
	{ TRACEBUF_PT_CAP_BRANCH_ALWAYS, "branch_always" },
	{ TRACEBUF_PT_CAP_SINGLE_4K, "single_range_4k" },
	{ TRACEBUF_PT_CAP_NO_VMX_TRACE, "no_vmx_trace" },
};

/* The values n whose bit is set, "0,3,6,9"; "none" for none. */
static void print_bitmap(uint32_t map)
{
	const char *sep = "";
	unsigned int v;

	if (!map)
		fputs("none", stdout);
	for (v = 0; v < 32; v++) {
		if (map & (1U << v)) {
			printf("%s%u", sep, v);
			sep = ",";
		}
	}
}

static void print_bitmap_json(uint32_t map)
{
	const char *sep = "";
	unsigned int v;

	putchar('[');
	for (v = 0; v < 32; v++) {
		if (map & (1U << v)) {
			printf("%s%u", sep, v);
			sep = ",";
		}
	}
	putchar(']');
}

static void print_u32x4_json(const char *key, const uint32_t *v)
{
	printf(",\"%s\":[%u,%u,%u,%u]", key, v[0], v[1], v[2], v[3]);
}

/*
 * GET_CAPS for an intel_pt backend: the first CPU it answers for (a CPU
 * it cannot trace, or one not possible, gets -ENODEV or -EINVAL).
 */
static void get_pt_caps(struct tracebuf_session *s, const char *name, unsigned int nr_cpu_ids,
			struct pt_caps_result *r)
{
	unsigned int cpu;

	struct tracebuf_pt_caps c;
	unsigned int last = 0, run = 0;
	int ret;

	r->ret = -ENODEV;
	r->same[0] = 0;
	r->nr_differ = 0;
	for (cpu = 0; cpu < nr_cpu_ids && cpu < PT_CAPS_MAX_CPUS; cpu++) {
		memset(&c, 0, sizeof(c));
		ret = tracebuf_get_caps(s, name, cpu, &c, sizeof(c));
		if (ret < 0) {
			if (ret != -ENODEV && ret != -EINVAL && r->ret)
				r->ret = ret;
			continue;
		}
		if (r->ret) {
			r->ret = 0;
			r->cpu = cpu;
			r->caps = c;
		}
		if (!memcmp(&c, &r->caps, sizeof(c)))
			cpulist_add(r->same, sizeof(r->same), cpu, &last, &run);
		else
			r->nr_differ++;
	}
}

static void print_pt_caps_text(const struct pt_caps_result *r)
{
	const struct tracebuf_pt_caps *c = &r->caps;
	size_t i;

	if (r->ret) {
		printf("    capabilities: unavailable (%s)\n", tracebuf_strerror(r->ret));
		return;
	}
	printf("    cpus %s: family %u, model 0x%x, stepping %u", r->same, c->family, c->model,
	       c->stepping);
	if (c->max_nonturbo_ratio)
		printf(", max non-turbo ratio %u", c->max_nonturbo_ratio);
	printf("\n    features:");
	for (i = 0; i < sizeof(pt_features) / sizeof(pt_features[0]); i++)
		if (c->flags & pt_features[i].flag)
			printf(" %s", pt_features[i].name);
	if (!c->flags)
		printf(" none");
	printf("\n    address ranges: %u\n    mtc periods: ", c->nr_addr_ranges);
	print_bitmap(c->mtc_periods);
	printf("\n    cyc thresholds: ");
	print_bitmap(c->cyc_thresholds);
	printf("\n    psb periods: ");
	print_bitmap(c->psb_periods);
	putchar('\n');
	if (r->nr_differ)
		printf("    %u other CPU(s) have other capabilities: tracebuf config --list --cpu N\n",
		       r->nr_differ);
}

static void print_pt_caps_json(const struct pt_caps_result *r)
{
	const struct tracebuf_pt_caps *c = &r->caps;
	const char *sep = "";
	size_t i;

	if (r->ret) {
		printf(",\"pt_caps\":null");
		return;
	}
	printf(",\"pt_caps\":{\"cpu\":%u,\"cpus\":\"%s\",\"cpus_differ\":%u,\"family\":%u,"
	       "\"model\":%u,\"stepping\":%u,"
	       "\"max_nonturbo_ratio\":%u,\"nr_addr_ranges\":%u,\"flags\":%llu,\"features\":[",
	       r->cpu, r->same, r->nr_differ, c->family, c->model, c->stepping, c->max_nonturbo_ratio,
	       c->nr_addr_ranges, (unsigned long long)c->flags);
	for (i = 0; i < sizeof(pt_features) / sizeof(pt_features[0]); i++) {
		if (c->flags & pt_features[i].flag) {
			printf("%s\"%s\"", sep, pt_features[i].name);
			sep = ",";
		}
	}
	printf("],\"mtc_periods\":");
	print_bitmap_json(c->mtc_periods);
	printf(",\"cyc_thresholds\":");
	print_bitmap_json(c->cyc_thresholds);
	printf(",\"psb_periods\":");
	print_bitmap_json(c->psb_periods);
	print_u32x4_json("cpuid_14_0", c->cpuid_14_0);
	print_u32x4_json("cpuid_14_1", c->cpuid_14_1);
	print_u32x4_json("cpuid_15", c->cpuid_15);
	putchar('}');
}

/*
 * CoreSight capabilities of one backend: GET_CAPS for every CPU, each
 * listed (trace IDs differ per CPU).
 */
struct cs_caps_cpu {
	unsigned int cpu;
	struct tracebuf_cs_caps caps;
};

struct cs_caps_result {
	int ret;			/* 0, or why there are none */
	struct cs_caps_cpu *cpus;
	unsigned int n;
};

static void get_cs_caps(struct tracebuf_session *s, const char *name, unsigned int nr_cpu_ids,
			struct cs_caps_result *r)
{
	struct tracebuf_cs_caps c;
	struct cs_caps_cpu *nc;
	unsigned int cpu;
	int ret;

	r->ret = -ENODEV;
	for (cpu = 0; cpu < nr_cpu_ids && cpu < PT_CAPS_MAX_CPUS; cpu++) {
		memset(&c, 0, sizeof(c));
		ret = tracebuf_get_caps(s, name, cpu, &c, sizeof(c));
		if (ret < 0) {
			if (ret != -ENODEV && ret != -EINVAL && r->ret)
				r->ret = ret;
			continue;
		}
		nc = realloc(r->cpus, (r->n + 1) * sizeof(*r->cpus));
		if (!nc) {
			r->ret = -ENOMEM;
			return;
		}
		r->cpus = nc;
		r->cpus[r->n].cpu = cpu;
		r->cpus[r->n].caps = c;
		r->n++;
		r->ret = 0;
	}
}

/* The trace unit's architecture: "ETMv4.2", "ETE", from TRCIDR1/TRCDEVARCH. */
static void cs_arch(const struct tracebuf_cs_caps *c, char *buf, size_t len)
{
	unsigned int maj = (c->trcidr[1] >> 8) & 0xf, min = (c->trcidr[1] >> 4) & 0xf;

	if (maj == 4)
		snprintf(buf, len, "ETMv4.%u", min);
	else if (maj == 0xf && min == 0xf && ((c->trcdevarch >> 12) & 0xf) == 5)
		snprintf(buf, len, "ETE");
	else
		snprintf(buf, len, "unknown");
}

static const char *cs_sink_type(uint32_t type)
{
	switch (type) {
	case TRACEBUF_CS_SINK_ETB:
		return "ETB";
	case TRACEBUF_CS_SINK_ETR:
		return "ETR";
	case TRACEBUF_CS_SINK_ETF:
		return "ETF";
	default:
		return "unknown";
	}
}

/* Notable ETMv4 features, from TRCIDR0 and TRCIDR2-3 (IHI0064). */
static const struct {
	unsigned int idr, shift, mask;
	const char *name;
} cs_features[] = {
	{ 0, 7, 0x1, "cycle_counting" },	/* TRCIDR0.TRCCCI */
	{ 0, 24, 0x1f, "timestamps" },		/* TRCIDR0.TSSIZE */
	{ 2, 5, 0x1f, "contextid" },		/* TRCIDR2.CIDSIZE */
	{ 2, 10, 0x1f, "vmid" },		/* TRCIDR2.VMIDSIZE */
	{ 0, 5, 0x1, "branch_broadcast" },	/* TRCIDR0.TRCBB */
	{ 0, 9, 0x1, "return_stack" },		/* TRCIDR0.RETSTACK */
	{ 0, 6, 0x1, "conditional" },		/* TRCIDR0.TRCCOND */
	{ 3, 26, 0x1, "stall_control" },	/* TRCIDR3.STALLCTL */
};

#define CS_NR_FEATURES (sizeof(cs_features) / sizeof(cs_features[0]))

static int cs_feature(const struct tracebuf_cs_caps *c, size_t i)
{
	return (c->trcidr[cs_features[i].idr] >> cs_features[i].shift) & cs_features[i].mask;
}

/* Sizes in bits: 0 when the feature is absent. */
static unsigned int cs_ts_bits(const struct tracebuf_cs_caps *c)
{
	unsigned int v = (c->trcidr[0] >> 24) & 0x1f;

	return v == 0x6 ? 48 : v == 0x8 ? 64 : 0;
}

static unsigned int cs_cid_bits(const struct tracebuf_cs_caps *c)
{
	return ((c->trcidr[2] >> 5) & 0x1f) == 0x4 ? 32 : 0;
}

static unsigned int cs_vmid_bits(const struct tracebuf_cs_caps *c)
{
	switch ((c->trcidr[2] >> 10) & 0x1f) {
	case 1:
		return 8;
	case 2:
		return 16;
	case 4:
		return 32;
	default:
		return 0;
	}
}

static unsigned int cs_cc_bits(const struct tracebuf_cs_caps *c)
{
	return (c->trcidr[0] >> 7) & 1 ? 12 + ((c->trcidr[2] >> 25) & 0xf) : 0;
}

static void print_cs_caps_text(const struct cs_caps_result *r)
{
	unsigned int i;
	size_t k;

	if (r->ret) {
		printf("    capabilities: unavailable (%s)\n", tracebuf_strerror(r->ret));
		return;
	}
	for (i = 0; i < r->n; i++) {
		const struct tracebuf_cs_caps *c = &r->cpus[i].caps;
		char arch[16];
		int any = 0;

		cs_arch(c, arch, sizeof(arch));
		printf("    cpu %u: trace ID 0x%x, %s, sink %u (%s", r->cpus[i].cpu, c->trace_id,
		       arch, c->sink, cs_sink_type(c->sink_type));
		if (c->sink_flags & TRACEBUF_CS_SINK_F_SG)
			printf(", scatter-gather");
		if (c->sink_size)
			printf(", %llu bytes", (unsigned long long)c->sink_size);
		printf(", %u CPU%s)\n      features:", c->sink_cpus, c->sink_cpus == 1 ? "" : "s");
		for (k = 0; k < CS_NR_FEATURES; k++) {
			if (cs_feature(c, k)) {
				printf(" %s", cs_features[k].name);
				any = 1;
			}
		}
		if (!any)
			printf(" none");
		printf("\n      timestamp bits %u, context ID bits %u, VMID bits %u, cycle counter "
		       "bits %u, address comparator pairs %u\n", cs_ts_bits(c), cs_cid_bits(c),
		       cs_vmid_bits(c), cs_cc_bits(c), c->trcidr[4] & 0xf);
	}
}

static void print_cs_caps_json(const struct cs_caps_result *r)
{
	unsigned int i, j;
	size_t k;

	if (r->ret) {
		printf(",\"cs_caps\":null");
		return;
	}
	printf(",\"cs_caps\":[");
	for (i = 0; i < r->n; i++) {
		const struct tracebuf_cs_caps *c = &r->cpus[i].caps;
		const char *sep = "";
		char arch[16];

		cs_arch(c, arch, sizeof(arch));
		printf("%s{\"cpu\":%u,\"trace_id\":%u,\"arch\":\"%s\",\"sink\":%u,"
		       "\"sink_type\":\"%s\",\"sink_flags\":%u,\"sink_cpus\":%u,\"sink_size\":%llu,"
		       "\"features\":[", i ? "," : "", r->cpus[i].cpu, c->trace_id, arch, c->sink,
		       cs_sink_type(c->sink_type), c->sink_flags, c->sink_cpus,
		       (unsigned long long)c->sink_size);
		for (k = 0; k < CS_NR_FEATURES; k++) {
			if (cs_feature(c, k)) {
				printf("%s\"%s\"", sep, cs_features[k].name);
				sep = ",";
			}
		}
		printf("],\"timestamp_bits\":%u,\"contextid_bits\":%u,\"vmid_bits\":%u,"
		       "\"cycle_counter_bits\":%u,\"addr_comparator_pairs\":%u,\"trcidr\":[",
		       cs_ts_bits(c), cs_cid_bits(c), cs_vmid_bits(c), cs_cc_bits(c),
		       c->trcidr[4] & 0xf);
		for (j = 0; j < 14; j++)
			printf("%s%u", j ? "," : "", c->trcidr[j]);
		printf("],\"trcdevarch\":%u,\"trcdevid\":%u,\"trcauthstatus\":%u}",
		       c->trcdevarch, c->trcdevid, c->trcauthstatus);
	}
	putchar(']');
}

static void print_info_text(const struct tracebuf_info *info,
			    const struct tracebuf_backend_desc *b,
			    const struct pt_caps_result *caps,
			    const struct cs_caps_result *cs, unsigned int n)
{
	unsigned int i;

	printf("module version: %.*s\n", (int)sizeof(info->module_version),
	       info->module_version);
	printf("abi version: %u\n", info->abi_version);
	printf("page size: %u\n", info->page_size);
	printf("nr_cpu_ids: %u\n", info->nr_cpu_ids);
	printf("tool version: %s\n", TRACEBUF_VERSION);
	if (!info->nr_backends) {
		printf("backends: none (no Intel PT or CoreSight hardware found, and no emulator loaded)\n");
		return;
	}
	printf("backends: %u\n", info->nr_backends);
	for (i = 0; i < n; i++) {
		int len;
		const char *name = desc_name(&b[i], &len);

		printf("  %.*s: id %u, flags 0x%x%s, nr_cpus %u, caps_size %u\n",
		       len, name, b[i].id, b[i].flags,
		       b[i].flags & TRACEBUF_BACKEND_F_EMULATED ? " (emulated)" : "",
		       b[i].nr_cpus, b[i].caps_size);
		if (b[i].id == TRACEBUF_BACKEND_INTEL_PT)
			print_pt_caps_text(&caps[i]);
		else if (b[i].id == TRACEBUF_BACKEND_CORESIGHT)
			print_cs_caps_text(&cs[i]);
	}
}

static void print_info_json(const struct tracebuf_info *info,
			    const struct tracebuf_backend_desc *b,
			    const struct pt_caps_result *caps,
			    const struct cs_caps_result *cs, unsigned int n)
{
	unsigned int i;

	printf("{\"module_version\":");
	json_string(info->module_version, sizeof(info->module_version));
	printf(",\"abi_version\":%u,\"page_size\":%u,\"nr_cpu_ids\":%u,\"tool_version\":",
	       info->abi_version, info->page_size, info->nr_cpu_ids);
	json_string(TRACEBUF_VERSION, sizeof(TRACEBUF_VERSION));
	printf(",\"backends\":[");
	for (i = 0; i < n; i++) {
		int len;
		const char *name = desc_name(&b[i], &len);

		printf("%s{\"name\":", i ? "," : "");
		json_string(name, (size_t)len);
		printf(",\"id\":%u,\"flags\":%u,\"emulated\":%s,\"nr_cpus\":%u,\"caps_size\":%u",
		       b[i].id, b[i].flags,
		       b[i].flags & TRACEBUF_BACKEND_F_EMULATED ? "true" : "false",
		       b[i].nr_cpus, b[i].caps_size);
		if (b[i].id == TRACEBUF_BACKEND_INTEL_PT)
			print_pt_caps_json(&caps[i]);
		else if (b[i].id == TRACEBUF_BACKEND_CORESIGHT)
			print_cs_caps_json(&cs[i]);
		putchar('}');
	}
	printf("]}\n");
}

static int cmd_info(int argc, char **argv)
{
	static const struct option opts[] = {
		{ "json", no_argument, NULL, 'j' },
		{ "help", no_argument, NULL, 'h' },
		{ NULL, 0, NULL, 0 }
	};
	struct tracebuf_backend_desc stack_backends[8];
	struct tracebuf_backend_desc *backends = stack_backends;
	unsigned int max = sizeof(stack_backends) / sizeof(stack_backends[0]);
	struct pt_caps_result *caps = NULL;
	struct cs_caps_result *cs = NULL;
	struct tracebuf_session s;
	struct tracebuf_info info;
	unsigned int i, n = 0;
	int json = 0, c, ret;

	tb_getopt_reset();
	while ((c = getopt_long(argc, argv, ":h", opts, NULL)) != -1) {
		switch (c) {
		case 'j':
			json = 1;
			break;
		case 'h':
			usage(stdout);
			return 0;
		default:
			return tb_bad_option(argv, c);
		}
	}
	if (optind < argc)
		return tb_usage_error("unexpected argument", argv[optind]);

	if (open_session(&s) < 0)
		return 1;
	ret = tracebuf_get_info(&s, &info, backends, max);
	if (ret == 0 && info.nr_backends > max) {
		/* More backends than fit on the stack: ask again for all. */
		max = info.nr_backends;
		backends = calloc(max, sizeof(*backends));
		ret = backends ? tracebuf_get_info(&s, &info, backends, max) : -ENOMEM;
	}
	if (ret == 0) {
		n = info.nr_backends < max ? info.nr_backends : max;
		caps = calloc(n ? n : 1, sizeof(*caps));
		cs = calloc(n ? n : 1, sizeof(*cs));
		if (!caps || !cs)
			ret = -ENOMEM;
	}
	for (i = 0; ret == 0 && i < n; i++) {
		int len;
		const char *name = desc_name(&backends[i], &len);
		char buf[TRACEBUF_NAME_LEN + 1];

		caps[i].ret = 1;
		cs[i].ret = 1;
		snprintf(buf, sizeof(buf), "%.*s", len, name);
		if (backends[i].id == TRACEBUF_BACKEND_INTEL_PT)
			get_pt_caps(&s, buf, info.nr_cpu_ids, &caps[i]);
		else if (backends[i].id == TRACEBUF_BACKEND_CORESIGHT)
			get_cs_caps(&s, buf, info.nr_cpu_ids, &cs[i]);
	}
	tracebuf_close(&s);
	if (ret < 0) {
		fprintf(stderr, "tracebuf: cannot get info from %s: %s\n",
			tb_device_path(), tracebuf_strerror(ret));
		goto out;
	}
	if (info.abi_version != TRACEBUF_ABI_VERSION)
		fprintf(stderr, "tracebuf: warning: module ABI version %u, tool built for %u\n",
			info.abi_version, TRACEBUF_ABI_VERSION);

	if (json)
		print_info_json(&info, backends, caps, cs, n);
	else
		print_info_text(&info, backends, caps, cs, n);
out:
	for (i = 0; cs && i < n; i++)
		free(cs[i].cpus);
	free(cs);
	free(caps);
	if (backends != stack_backends)
		free(backends);
	return ret < 0 ? 1 : 0;
}

/* ---- config ---------------------------------------------------------- */

#define KEYS_ON_STACK	64

static const char *cfg_type_name(uint32_t type)
{
	switch (type) {
	case TRACEBUF_CFG_BOOL:
		return "bool";
	case TRACEBUF_CFG_UINT:
		return "uint";
	case TRACEBUF_CFG_ENUM:
		return "enum";
	case TRACEBUF_CFG_U64:
		return "u64";
	case TRACEBUF_CFG_RANGE:
		return "range";
	default:
		return "unknown";
	}
}

/* What the key's values look like, for the text listing. */
static void cfg_values(const struct tracebuf_cfg_key_desc *k, char *buf, size_t size)
{
	size_t n = 0;
	unsigned int v;

	buf[0] = 0;
	switch (k->type) {
	case TRACEBUF_CFG_BOOL:
		snprintf(buf, size, "0,1");
		break;
	case TRACEBUF_CFG_UINT:
		snprintf(buf, size, "%llu..%llu", (unsigned long long)k->min,
			 (unsigned long long)k->max);
		break;
	case TRACEBUF_CFG_ENUM:
		for (v = 0; v < 32 && n + 1 < size; v++)
			if (k->allowed & (1U << v))
				n += (size_t)snprintf(buf + n, size - n, "%s%u", n ? "," : "", v);
		if (!n)
			snprintf(buf, size, "none");
		break;
	case TRACEBUF_CFG_U64:
		snprintf(buf, size, "number|off%s",
			 k->flags & TRACEBUF_CFG_KEY_CURRENT ? "|current" : "");
		break;
	case TRACEBUF_CFG_RANGE:
		snprintf(buf, size, "off|START-END:filter|stop");
		break;
	default:
		snprintf(buf, size, "?");
		break;
	}
}

static void cfg_default(const struct tracebuf_cfg_key_desc *k, char *buf, size_t size)
{
	if (k->type == TRACEBUF_CFG_RANGE || (k->type == TRACEBUF_CFG_U64 && !k->def))
		snprintf(buf, size, "off");
	else if (k->type == TRACEBUF_CFG_U64 && k->def == ~0ULL &&
		 (k->flags & TRACEBUF_CFG_KEY_CURRENT))
		snprintf(buf, size, "current");
	else if (k->type == TRACEBUF_CFG_U64)
		snprintf(buf, size, "0x%llx", (unsigned long long)k->def);
	else
		snprintf(buf, size, "%llu", (unsigned long long)k->def);
}

static void print_keys_text(const char *backend, unsigned int cpu,
			    const struct tracebuf_cfg_key_desc *keys, unsigned int n)
{
	char vals[200], def[24];
	int wname = 3, wdef = 7, wvals = 6;
	unsigned int i;

	for (i = 0; i < n; i++) {
		int l = (int)strnlen(keys[i].name, sizeof(keys[i].name));

		wname = l > wname ? l : wname;
		cfg_values(&keys[i], vals, sizeof(vals));
		l = (int)strlen(vals);
		wvals = l > wvals ? l : wvals;
		cfg_default(&keys[i], def, sizeof(def));
		l = (int)strlen(def);
		wdef = l > wdef ? l : wdef;
	}
	printf("backend %s, cpu %u: %u keys\n", backend, cpu, n);
	printf("%-*s  %-5s  %-*s  %-*s  %s\n", wname, "KEY", "TYPE", wdef, "DEFAULT", wvals,
	       "VALUES", "DESCRIPTION");
	for (i = 0; i < n; i++) {
		const struct tracebuf_cfg_key_desc *k = &keys[i];

		cfg_values(k, vals, sizeof(vals));
		cfg_default(k, def, sizeof(def));
		printf("%-*.*s  %-5s  %-*s  %-*s  %.*s%s%s\n", wname, (int)sizeof(k->name), k->name,
		       cfg_type_name(k->type), wdef, def, wvals, vals, (int)sizeof(k->desc),
		       k->desc,
		       k->flags & TRACEBUF_CFG_KEY_PRIV ? " [non-zero needs CAP_PERFMON]" : "",
		       k->flags & TRACEBUF_CFG_KEY_UNSUPPORTED ? " [not supported on this CPU]" : "");
	}
}

static void print_keys_json(const char *backend, unsigned int cpu,
			    const struct tracebuf_cfg_key_desc *keys, unsigned int n)
{
	unsigned int i;

	printf("{\"backend\":");
	json_string(backend, TRACEBUF_NAME_LEN);
	printf(",\"cpu\":%u,\"keys\":[", cpu);
	for (i = 0; i < n; i++) {
		const struct tracebuf_cfg_key_desc *k = &keys[i];

		printf("%s{\"name\":", i ? "," : "");
		json_string(k->name, sizeof(k->name));
		printf(",\"type\":\"%s\",\"default\":%llu", cfg_type_name(k->type),
		       (unsigned long long)k->def);
		if (k->type == TRACEBUF_CFG_UINT)
			printf(",\"min\":%llu,\"max\":%llu", (unsigned long long)k->min,
			       (unsigned long long)k->max);
		if (k->type == TRACEBUF_CFG_ENUM) {
			printf(",\"allowed\":");
			print_bitmap_json(k->allowed);
		}
		printf(",\"flags\":%u,\"needs_cap_perfmon\":%s,\"supported\":%s,"
		       "\"accepts_current\":%s,\"description\":", k->flags,
		       k->flags & TRACEBUF_CFG_KEY_PRIV ? "true" : "false",
		       k->flags & TRACEBUF_CFG_KEY_UNSUPPORTED ? "false" : "true",
		       k->flags & TRACEBUF_CFG_KEY_CURRENT ? "true" : "false");
		json_string(k->desc, sizeof(k->desc));
		putchar('}');
	}
	printf("]}\n");
}

static int config_list(struct tracebuf_session *s, const char *backend, unsigned int cpu,
		       int json)
{
	struct tracebuf_cfg_key_desc stack_keys[KEYS_ON_STACK];
	struct tracebuf_cfg_key_desc *keys = stack_keys;
	unsigned int max = KEYS_ON_STACK;
	int n;

	n = tracebuf_list_drv_config(s, backend, cpu, keys, max);
	if (n > (int)max) {
		max = (unsigned int)n;
		keys = calloc(max, sizeof(*keys));
		n = keys ? tracebuf_list_drv_config(s, backend, cpu, keys, max) : -ENOMEM;
	}
	if (n < 0) {
		fprintf(stderr, "tracebuf: cannot list the configuration keys of %s on CPU %u: %s\n",
			backend, cpu, tracebuf_strerror(n));
	} else {
		if ((unsigned int)n > max)
			n = (int)max;
		if (json)
			print_keys_json(backend, cpu, keys, (unsigned int)n);
		else
			print_keys_text(backend, cpu, keys, (unsigned int)n);
	}
	if (keys != stack_keys)
		free(keys);
	return n < 0 ? 1 : 0;
}

/* The string, then ^~~~ under the bytes the kernel pointed at. */
void tb_print_caret(const char *config, uint32_t off, uint32_t len)
{
	size_t n = strlen(config), i;

	fputs("  ", stderr);
	/* One column per byte: anything unprintable shows as '?'. */
	for (i = 0; i < n; i++)
		fputc(config[i] >= 0x20 && config[i] < 0x7f ? config[i] : '?', stderr);
	fputs("\n  ", stderr);
	for (i = 0; i < off && i < n; i++)
		fputc(' ', stderr);
	fputc('^', stderr);
	for (i = 1; i < len && off + i < n; i++)
		fputc('~', stderr);
	fputc('\n', stderr);
}

static int config_check(struct tracebuf_session *s, const char *backend, unsigned int cpu,
			const char *config)
{
	char stack_buf[TRACEBUF_DRV_CONFIG_MAX], *buf = stack_buf;
	struct tracebuf_cfg_error err;
	struct tracebuf_setup setup;
	uint64_t gen = 0;
	int ret;

	memset(&setup, 0, sizeof(setup));
	setup.target = TRACEBUF_TARGET_CPU;
	setup.cpu = cpu;
	snprintf(setup.backend, sizeof(setup.backend), "%s", backend);
	ret = tracebuf_setup(s, &setup);
	if (ret < 0) {
		fprintf(stderr, "tracebuf: cannot set up a session of %s on CPU %u: %s\n",
			backend, cpu, tracebuf_strerror(ret));
		return 1;
	}
	ret = tracebuf_set_drv_config(s, config, 0, &err);
	if (ret < 0) {
		fprintf(stderr, "tracebuf: %s\n", err.message);
		if (err.reason != TRACEBUF_CFG_OK)
			tb_print_caret(config, err.offset, err.len);
		return 1;
	}
	ret = tracebuf_get_drv_config(s, buf, sizeof(stack_buf), &gen);
	if (ret == -ENOSPC) {
		ret = tracebuf_get_drv_config(s, NULL, 0, NULL);
		buf = ret > 0 ? malloc((size_t)ret) : NULL;
		ret = buf ? tracebuf_get_drv_config(s, buf, (size_t)ret, &gen) :
		      ret < 0 ? ret : -ENOMEM;
	}
	if (ret < 0)
		fprintf(stderr, "tracebuf: cannot read the configuration back: %s\n",
			tracebuf_strerror(ret));
	else
		printf("%s\n", buf);
	if (buf != stack_buf)
		free(buf);
	return ret < 0 ? 1 : 0;
}

static int cmd_config(int argc, char **argv)
{
	static const struct option opts[] = {
		{ "list", no_argument, NULL, 'l' },
		{ "check", required_argument, NULL, 'c' },
		{ "backend", required_argument, NULL, 'b' },
		{ "cpu", required_argument, NULL, 'C' },
		{ "json", no_argument, NULL, 'j' },
		{ "help", no_argument, NULL, 'h' },
		{ NULL, 0, NULL, 0 }
	};
	struct tracebuf_backend_desc backends[8];
	char name[TRACEBUF_NAME_LEN];
	const char *backend = TRACEBUF_BACKEND_AUTO, *check = NULL;
	struct tracebuf_session s;
	struct tracebuf_info info;
	unsigned long cpu = 0;
	int list = 0, json = 0, c, ret, len;
	char *end;

	tb_getopt_reset();
	while ((c = getopt_long(argc, argv, ":h", opts, NULL)) != -1) {
		switch (c) {
		case 'l':
			list = 1;
			break;
		case 'c':
			check = optarg;
			break;
		case 'b':
			if (strlen(optarg) >= TRACEBUF_NAME_LEN)
				return tb_usage_error("backend name too long", optarg);
			backend = optarg;
			break;
		case 'C':
			errno = 0;
			cpu = strtoul(optarg, &end, 10);
			if (!*optarg || *end || errno || *optarg == '-' || cpu > UINT32_MAX)
				return tb_usage_error("invalid CPU number", optarg);
			break;
		case 'j':
			json = 1;
			break;
		case 'h':
			usage(stdout);
			return 0;
		default:
			return tb_bad_option(argv, c);
		}
	}
	if (optind < argc)
		return tb_usage_error("unexpected argument", argv[optind]);
	if (list == !!check) {
		fprintf(stderr, "tracebuf: config needs one of --list and --check\n");
		fputs("Try 'tracebuf help' for more information.\n", stderr);
		return EXIT_USAGE;
	}
	if (json && check)
		return tb_usage_error("option needs --list", "--json");

	if (open_session(&s) < 0)
		return 1;
	ret = tracebuf_get_info(&s, &info, backends, sizeof(backends) / sizeof(backends[0]));
	if (ret < 0) {
		fprintf(stderr, "tracebuf: cannot get info from %s: %s\n", tb_device_path(),
			tracebuf_strerror(ret));
		ret = 1;
		goto out;
	}
	if (!info.nr_backends) {
		fprintf(stderr, "tracebuf: no trace backend present (no Intel PT or CoreSight "
			"hardware found, and no emulator loaded)\n");
		ret = 1;
		goto out;
	}
	/* "auto" is the kernel's first backend: name it in the output. */
	if (!backend[0] || !strcmp(backend, TRACEBUF_BACKEND_AUTO)) {
		const char *n0 = desc_name(&backends[0], &len);

		snprintf(name, sizeof(name), "%.*s", len, n0);
		backend = name;
	}
	if (list)
		ret = config_list(&s, backend, (unsigned int)cpu, json);
	else
		ret = config_check(&s, backend, (unsigned int)cpu, check);
out:
	tracebuf_close(&s);
	return ret;
}

static int cmd_version(int argc, char **argv)
{
	(void)argc;
	(void)argv;
	printf("tracebuf %s\n", TRACEBUF_VERSION);
	return 0;
}

static int cmd_help(int argc, char **argv)
{
	(void)argc;
	(void)argv;
	usage(stdout);
	return 0;
}

static const struct command {
	const char *name;
	int (*fn)(int argc, char **argv);
} commands[] = {
	{ "info", cmd_info },
	{ "config", cmd_config },
	{ "record", cmd_record },
	{ "dump", cmd_dump },
	{ "decode", cmd_decode },
	{ "export", cmd_export },
	{ "version", cmd_version },
	{ "--version", cmd_version },
	{ "help", cmd_help },
	{ "--help", cmd_help },
	{ "-h", cmd_help },
};

int main(int argc, char **argv)
{
	size_t i;
	int ret = -1;

	if (argc < 2) {
		usage(stderr);
		return EXIT_USAGE;
	}
	for (i = 0; i < sizeof(commands) / sizeof(commands[0]); i++) {
		if (strcmp(argv[1], commands[i].name) == 0) {
			ret = commands[i].fn(argc - 1, argv + 1);
			break;
		}
	}
	if (ret < 0)
		return tb_usage_error(argv[1][0] == '-' ? "unknown option" :
				   "unknown command", argv[1]);

	/* A full disk or closed pipe must not look like success. */
	if (fflush(stdout) != 0 || ferror(stdout)) {
		fprintf(stderr, "tracebuf: write error: %s\n", strerror(errno));
		return 1;
	}
	return ret;
}
