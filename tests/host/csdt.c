// SPDX-License-Identifier: GPL-2.0
/*
 * csdt - the CoreSight subtree of a SoC's device tree, as a fragment for
 * the arm64 test guest's own device tree (tests/harness/csdt.sh).
 *
 *   csdt --name NAME [--cpu LABEL=N]... [--tmc-periphid ID] SOC.dtb > NAME.dtsi
 *
 * SOC.dtb is the kernel's own description of the board (compiled with
 * dtc -@, so that its labels are in __symbols__). Every node the
 * tracebuf backend drives (ETMv4, TMC, dynamic and static funnels and
 * replicators), with its in-ports/out-ports graph, is copied under one
 * container node, /csemu-NAME (compatible "tracebuf,csemu-board"), with
 * the SoC's own addresses but no ranges: no MMIO reaches them in the
 * guest (the QEMU virt machine has its own devices at the SoC's
 * addresses; an emulator stands in for the SoC), so nothing translates
 * them to a CPU address (tracebuf's own device-tree discovery, which
 * would touch them, leaves them out: of_address_to_resource() fails),
 * and, not being a simple-bus, the container is not populated (no AMBA
 * device is made for a component, so no driver of the kernel's binds to
 * one). Changed on the way, for a guest that has none of the SoC's
 * clocks, power domains, CPUs or IOMMUs:
 *  - cpu: the SoC's CPU labelled LABEL becomes the guest's CPU N
 *    (&{/cpus/cpu@N}); an ETM whose CPU is not given is disabled;
 *  - clocks: every clock of the component, by its clock-names index i,
 *    becomes clock 2 * k + i of the container's controller (k: the
 *    component's index), a provider the emulator registers
 *    (#clock-cells = <1>); power-domains becomes the controller's one
 *    power domain (#power-domain-cells = <0>), as every Juno CoreSight
 *    component is in the one debug power domain;
 *  - arm,primecell-periphid: the AMBA peripheral ID, so that the amba
 *    bus matches drivers without reading the component's ID registers
 *    (ETMs by their CPU's compatible, TMCs 0x000bb961 or --tmc-periphid,
 *    funnels 0x000bb908, replicators 0x000bb909);
 *  - dma-coherent on TMCs (the emulated ETR writes through the CPU's
 *    caches); iommus, interrupts and other phandle properties dropped;
 *  - endpoints towards nodes not copied (STM, TPIU, CTI) dropped.
 * Labels become csemu_NAME_<n>, references use them.
 */
#include <errno.h>
#include <inttypes.h>
#include <libfdt.h>
#include <stdarg.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#define MAX_NODES	4096
#define MAX_CPUS	64

static const void *fdt;
static const char *name;
static uint32_t tmc_periphid = 0x000bb961;	/* CoreSight SoC-400 TMC */

static struct {
	char label[64];
	int cpu;
} cpus[MAX_CPUS];
static int nr_cpus;

/* The component nodes we copy, by offset; their index k. */
static int comps[MAX_NODES];
static int nr_comps;
/* Every copied node (components and their subnodes) is "in". */
static bool in[MAX_NODES * 16];

static void die(const char *fmt, ...)
{
	va_list ap;

	va_start(ap, fmt);
	fputs("csdt: ", stderr);
	vfprintf(stderr, fmt, ap);
	fputc('\n', stderr);
	va_end(ap);
	exit(1);
}

static const char *const kinds[] = {
	"arm,coresight-etm4x",
	"arm,coresight-tmc",
	"arm,coresight-dynamic-funnel",
	"arm,coresight-static-funnel",
	"arm,coresight-dynamic-replicator",
	"arm,coresight-static-replicator",
};

static int kind_of(int off)
{
	unsigned int i;

	for (i = 0; i < sizeof(kinds) / sizeof(kinds[0]); i++)
		if (!fdt_node_check_compatible(fdt, off, kinds[i]))
			return (int)i;
	return -1;
}

static bool in_tree(int off)
{
	return off >= 0 && (size_t)off < sizeof(in) / sizeof(in[0]) && in[off];
}

static void mark(int off)
{
	int child;

	if ((size_t)off >= sizeof(in) / sizeof(in[0]))
		die("device tree too large");
	in[off] = true;
	fdt_for_each_subnode(child, fdt, off)
		mark(child);
}

static int comp_index(int off)
{
	int k;

	for (k = 0; k < nr_comps; k++)
		if (comps[k] == off)
			return k;
	return -1;
}

static void label(char *buf, size_t len, int off)
{
	snprintf(buf, len, "csemu_%s_%d", name, off);
}

static uint32_t cell(const void *p, int i)
{
	return fdt32_to_cpu(((const fdt32_t *)p)[i]);
}

static bool available(int off)
{
	const char *st = fdt_getprop(fdt, off, "status", NULL);

	return !st || !strcmp(st, "okay") || !strcmp(st, "ok");
}

/* The guest CPU of the SoC CPU node at cpuoff, or -1. */
static int guest_cpu(int cpuoff)
{
	int i;

	for (i = 0; i < nr_cpus; i++) {
		const char *path;
		int o;

		path = fdt_getprop(fdt, fdt_path_offset(fdt, "/__symbols__"), cpus[i].label,
				   NULL);
		if (!path)
			die("no label %s in __symbols__ (compile with dtc -@)", cpus[i].label);
		o = fdt_path_offset(fdt, path);
		if (o == cpuoff)
			return cpus[i].cpu;
	}
	return -1;
}

static uint32_t etm_periphid(int cpuoff)
{
	if (!fdt_node_check_compatible(fdt, cpuoff, "arm,cortex-a72"))
		return 0x000bb95a;
	if (!fdt_node_check_compatible(fdt, cpuoff, "arm,cortex-a57"))
		return 0x000bb95e;
	if (!fdt_node_check_compatible(fdt, cpuoff, "arm,cortex-a53"))
		return 0x000bb95d;
	return 0x000bb95a;
}

static void indent(int depth)
{
	while (depth-- > 0)
		putchar('\t');
}

static void print_strings(const char *p, int len)
{
	int i = 0;

	while (i < len) {
		printf("%s\"%s\"", i ? ", " : "", p + i);
		i += (int)strlen(p + i) + 1;
	}
}

static void print_cells(const void *p, int len)
{
	int i;

	putchar('<');
	for (i = 0; i < len / 4; i++)
		printf("%s0x%x", i ? " " : "", cell(p, i));
	putchar('>');
}

/* An endpoint whose remote is a node we copy: its remote's offset, or -1. */
static int remote_of(int ep)
{
	const void *p;
	int len, r;

	p = fdt_getprop(fdt, ep, "remote-endpoint", &len);
	if (!p || len != 4)
		return -1;
	r = fdt_node_offset_by_phandle(fdt, cell(p, 0));
	return in_tree(r) ? r : -1;
}

/* Does the subtree at off hold an endpoint we keep? */
static bool keeps_endpoint(int off)
{
	int child;

	if (remote_of(off) >= 0)
		return true;
	fdt_for_each_subnode(child, fdt, off)
		if (keeps_endpoint(child))
			return true;
	return false;
}

static void emit_node(int off, int depth)
{
	int k = comp_index(off), kind = k >= 0 ? kind_of(off) : -1;
	const char *nm = fdt_get_name(fdt, off, NULL);
	bool etm_off = false, primecell = false;
	int poff, child, len, cpuoff = -1, gcpu = -1;
	char lab[64];

	label(lab, sizeof(lab), off);
	indent(depth);
	printf("%s: %s {\n", lab, nm);
	if (kind == 0) {
		const void *p = fdt_getprop(fdt, off, "cpu", &len);

		if (p && len == 4)
			cpuoff = fdt_node_offset_by_phandle(fdt, cell(p, 0));
		gcpu = cpuoff >= 0 ? guest_cpu(cpuoff) : -1;
		etm_off = gcpu < 0;
	}
	fdt_for_each_property_offset(poff, fdt, off) {
		const char *pn;
		const void *p = fdt_getprop_by_offset(fdt, poff, &pn, &len);

		if (!strcmp(pn, "compatible")) {
			primecell = !fdt_node_check_compatible(fdt, off, "arm,primecell");
			indent(depth + 1);
			printf("compatible = ");
			print_strings(p, len);
			printf(";\n");
		} else if (!strcmp(pn, "clock-names")) {
			indent(depth + 1);
			printf("clock-names = ");
			print_strings(p, len);
			printf(";\n");
		} else if (!strcmp(pn, "reg") || !strcmp(pn, "#address-cells") ||
			   !strcmp(pn, "#size-cells") || !strcmp(pn, "arm,max-burst-size") ||
			   !strcmp(pn, "arm,buffer-size")) {
			indent(depth + 1);
			printf("%s = ", pn);
			print_cells(p, len);
			printf(";\n");
		} else if (!len && (!strcmp(pn, "arm,scatter-gather") ||
				    !strcmp(pn, "qcom,skip-power-up") ||
				    !strcmp(pn, "arm,coresight-loses-context-with-cpu"))) {
			indent(depth + 1);
			printf("%s;\n", pn);
		} else if (!strcmp(pn, "clocks") && k >= 0) {
			int i, nc = fdt_stringlist_count(fdt, off, "clock-names");

			indent(depth + 1);
			printf("clocks = ");
			for (i = 0; i < (nc > 0 ? nc : 1) && i < 2; i++)
				printf("%s<&csemu_%s_ctl %d>", i ? ", " : "", name, 2 * k + i);
			printf(";\n");
		} else if (!strcmp(pn, "power-domains") && k >= 0) {
			indent(depth + 1);
			printf("power-domains = <&csemu_%s_ctl>;\n", name);
		} else if (!strcmp(pn, "remote-endpoint")) {
			int r = remote_of(off);
			char rl[64];

			if (r >= 0) {
				label(rl, sizeof(rl), r);
				indent(depth + 1);
				printf("remote-endpoint = <&%s>;\n", rl);
			}
		} else if (!strcmp(pn, "cpu") && kind == 0 && gcpu >= 0) {
			indent(depth + 1);
			printf("cpu = <&{/cpus/cpu@%d}>;\n", gcpu);
		}
		/* status, iommus, interrupts, other phandles: dropped */
	}
	if (k >= 0) {
		uint32_t pid = 0;

		if (primecell) {
			if (kind == 0)
				pid = cpuoff >= 0 ? etm_periphid(cpuoff) : 0x000bb95a;
			else if (kind == 1)
				pid = tmc_periphid;
			else if (kind == 2)
				pid = 0x000bb908;
			else if (kind == 4)
				pid = 0x000bb909;
		}
		if (pid) {
			indent(depth + 1);
			printf("arm,primecell-periphid = <0x%08x>;\n", pid);
		}
		if (kind == 1) {
			indent(depth + 1);
			printf("dma-coherent;\n");
		}
		indent(depth + 1);
		printf("status = \"%s\";\n", etm_off ? "disabled" : "okay");
	}
	fdt_for_each_subnode(child, fdt, off)
		if (keeps_endpoint(child))
			emit_node(child, depth + 1);
	indent(depth);
	printf("};\n");
}

int main(int argc, char **argv)
{
	const char *path = NULL;
	int i, off, parent = -1, ac = 2, sc = 2;
	static char buf[16 << 20];
	FILE *f;
	size_t n;

	for (i = 1; i < argc; i++) {
		if (!strcmp(argv[i], "--name") && i + 1 < argc) {
			name = argv[++i];
		} else if (!strcmp(argv[i], "--tmc-periphid") && i + 1 < argc) {
			tmc_periphid = (uint32_t)strtoul(argv[++i], NULL, 0);
		} else if (!strcmp(argv[i], "--cpu") && i + 1 < argc) {
			char *eq = strchr(argv[++i], '=');

			if (!eq || nr_cpus == MAX_CPUS || eq - argv[i] >= 63)
				die("--cpu LABEL=N: %s", argv[i]);
			memcpy(cpus[nr_cpus].label, argv[i], eq - argv[i]);
			cpus[nr_cpus++].cpu = atoi(eq + 1);
		} else if (argv[i][0] != '-' && !path) {
			path = argv[i];
		} else {
			die("usage: csdt --name NAME [--cpu LABEL=N]... [--tmc-periphid ID] SOC.dtb");
		}
	}
	if (!path || !name)
		die("usage: csdt --name NAME [--cpu LABEL=N]... [--tmc-periphid ID] SOC.dtb");
	f = fopen(path, "rb");
	if (!f)
		die("%s: %s", path, strerror(errno));
	n = fread(buf, 1, sizeof(buf), f);
	fclose(f);
	if (fdt_check_header(buf) || fdt_totalsize(buf) > n)
		die("%s: not a device tree blob", path);
	fdt = buf;

	/* Every available component we drive; all under one parent. */
	for (off = fdt_next_node(fdt, -1, NULL); off >= 0; off = fdt_next_node(fdt, off, NULL)) {
		if (kind_of(off) < 0 || !available(off))
			continue;
		if (nr_comps == MAX_NODES)
			die("too many components");
		if (parent < 0)
			parent = fdt_parent_offset(fdt, off);
		else if (parent != fdt_parent_offset(fdt, off))
			die("%s: components under different parents", fdt_get_name(fdt, off, NULL));
		comps[nr_comps++] = off;
		mark(off);
	}
	if (!nr_comps)
		die("%s: no CoreSight component", path);
	ac = fdt_address_cells(fdt, parent);
	sc = fdt_size_cells(fdt, parent);
	if (ac < 1 || ac > 2 || sc < 1 || sc > 2)
		die("unsupported #address-cells %d / #size-cells %d", ac, sc);

	printf("// Generated by tests/host/csdt from %s: do not edit.\n", path);
	printf("/ {\n");
	printf("\tcsemu-%s {\n", name);
	printf("\t\tcompatible = \"tracebuf,csemu-board\";\n");
	printf("\t\t#address-cells = <%d>;\n\t\t#size-cells = <%d>;\n", ac, sc);
	printf("\n\t\tcsemu_%s_ctl: clock-controller {\n", name);
	printf("\t\t\tcompatible = \"tracebuf,csemu-soc\";\n");
	printf("\t\t\ttracebuf,soc = \"%s\";\n", name);
	printf("\t\t\t#clock-cells = <1>;\n\t\t\t#power-domain-cells = <0>;\n");
	printf("\t\t};\n");
	for (i = 0; i < nr_comps; i++) {
		putchar('\n');
		emit_node(comps[i], 2);
	}
	printf("\t};\n};\n");
	return 0;
}
