// SPDX-License-Identifier: GPL-2.0
/*
 * Checks the arm64 guest's device tree that tests/harness/csdt.sh builds:
 *
 *   csdt_check GUEST.dtb CONTAINER ETR CPU0_ETM CPU1_ETM LINK...
 *
 * /CONTAINER has no ranges and is no simple-bus (no CPU address reaches
 * the components, no device is made for them). In it: every remote-endpoint resolves to an endpoint of the
 * same container whose remote-endpoint points back; every available
 * component has its clocks on the container's controller and, if it is
 * a primecell, an arm,primecell-periphid; TMCs are dma-coherent; ETMs
 * without a guest CPU are disabled; CPU0_ETM and CPU1_ETM trace
 * /cpus/cpu@0 and /cpus/cpu@1; and from each of them the ATB graph
 * (out-ports, through funnels, replicators and ETFs) reaches ETR
 * through every LINK named. Exit status 0 when all holds.
 */
#include <libfdt.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

static const void *fdt;
static int fails;
static int cont;

#define CHECK(c, ...) do { if (!(c)) { printf("FAIL: " __VA_ARGS__); printf("\n"); fails++; } } while (0)

/* The component (a direct child of the container) that off is in. */
static int comp_of(int off)
{
	int p;

	while (off >= 0 && (p = fdt_parent_offset(fdt, off)) != cont)
		off = p;
	return off;
}

static int remote(int ep)
{
	const fdt32_t *p = fdt_getprop(fdt, ep, "remote-endpoint", NULL);

	return p ? fdt_node_offset_by_phandle(fdt, fdt32_to_cpu(*p)) : -1;
}

static bool is_under(int off, int anc)
{
	while (off >= 0 && off != anc)
		off = fdt_parent_offset(fdt, off);
	return off == anc;
}

static const char *nm(int off)
{
	return fdt_get_name(fdt, off, NULL);
}

/* Depth-first from component c's out-ports: reaches etr through links? */
static bool reaches(int c, const char *etr, char **links, int nlinks, unsigned int seen,
		    int depth)
{
	int ports = fdt_subnode_offset(fdt, c, "out-ports"), port, ep, i;

	if (!strcmp(nm(c), etr))
		return (unsigned int)(1u << nlinks) - 1 == seen;
	for (i = 0; i < nlinks; i++)
		if (!strcmp(nm(c), links[i]))
			seen |= 1u << i;
	if (ports < 0 || depth > 16)
		return false;
	fdt_for_each_subnode(port, fdt, ports)
		fdt_for_each_subnode(ep, fdt, port) {
			int r = remote(ep);

			if (r >= 0 && reaches(comp_of(r), etr, links, nlinks, seen, depth + 1))
				return true;
		}
	return false;
}

int main(int argc, char **argv)
{
	static char buf[4 << 20];
	int off, cpu0, cpu1, e0, e1, ctl;
	char path[256];
	FILE *f;

	if (argc < 6) {
		fprintf(stderr, "usage: csdt_check GUEST.dtb CONTAINER ETR CPU0_ETM CPU1_ETM LINK...\n");
		return 2;
	}
	f = fopen(argv[1], "rb");
	if (!f || !fread(buf, 1, sizeof(buf), f) || fdt_check_header(buf))
		return printf("FAIL: %s: not a device tree\n", argv[1]), 1;
	fclose(f);
	fdt = buf;
	snprintf(path, sizeof(path), "/%s", argv[2]);
	cont = fdt_path_offset(fdt, path);
	CHECK(cont >= 0, "no %s", path);
	if (cont < 0)
		return 1;
	/* Nothing maps the boards' addresses, nothing populates them. */
	CHECK(!fdt_getprop(fdt, cont, "ranges", NULL), "%s has ranges", path);
	CHECK(fdt_node_check_compatible(fdt, cont, "simple-bus") != 0, "%s is a simple-bus", path);
	ctl = fdt_subnode_offset(fdt, cont, "clock-controller");
	CHECK(ctl >= 0 && !fdt_node_check_compatible(fdt, ctl, "tracebuf,csemu-soc"),
	      "no controller in %s", path);
	for (off = fdt_next_node(fdt, cont, NULL); off >= 0 && is_under(off, cont);
	     off = fdt_next_node(fdt, off, NULL)) {
		const char *st = fdt_getprop(fdt, off, "status", NULL);
		const fdt32_t *clk;
		int r, len;

		if (fdt_getprop(fdt, off, "remote-endpoint", NULL)) {
			r = remote(off);
			CHECK(r >= 0 && is_under(r, cont), "%s: remote-endpoint outside", nm(off));
			CHECK(r >= 0 && remote(r) == off, "%s: remote-endpoint not symmetric",
			      nm(comp_of(off)));
		}
		if (fdt_parent_offset(fdt, off) != cont || off == ctl || !st)
			continue;
		if (!strcmp(st, "okay")) {
			clk = fdt_getprop(fdt, off, "clocks", &len);
			CHECK(clk && len >= 8 && fdt_node_offset_by_phandle(fdt, fdt32_to_cpu(clk[0])) == ctl,
			      "%s: clocks not on the controller", nm(off));
			if (!fdt_node_check_compatible(fdt, off, "arm,primecell"))
				CHECK(fdt_getprop(fdt, off, "arm,primecell-periphid", NULL),
				      "%s: no periphid", nm(off));
			if (!fdt_node_check_compatible(fdt, off, "arm,coresight-tmc"))
				CHECK(fdt_getprop(fdt, off, "dma-coherent", NULL) != NULL,
				      "%s: not dma-coherent", nm(off));
		}
		if (!fdt_node_check_compatible(fdt, off, "arm,coresight-etm4x") &&
		    strcmp(nm(off), argv[4]) && strcmp(nm(off), argv[5]))
			CHECK(!strcmp(st, "disabled"), "%s: an ETM without a guest CPU is %s", nm(off),
			      st);
	}
	cpu0 = fdt_path_offset(fdt, "/cpus/cpu@0");
	cpu1 = fdt_path_offset(fdt, "/cpus/cpu@1");
	e0 = fdt_subnode_offset(fdt, cont, argv[4]);
	e1 = fdt_subnode_offset(fdt, cont, argv[5]);
	CHECK(e0 >= 0 && e1 >= 0, "no %s or %s", argv[4], argv[5]);
	if (e0 < 0 || e1 < 0)
		return 1;
	{
		const fdt32_t *c0 = fdt_getprop(fdt, e0, "cpu", NULL);
		const fdt32_t *c1 = fdt_getprop(fdt, e1, "cpu", NULL);

		CHECK(c0 && fdt_node_offset_by_phandle(fdt, fdt32_to_cpu(*c0)) == cpu0,
		      "%s does not trace cpu@0", argv[4]);
		CHECK(c1 && fdt_node_offset_by_phandle(fdt, fdt32_to_cpu(*c1)) == cpu1,
		      "%s does not trace cpu@1", argv[5]);
	}
	CHECK(reaches(e0, argv[3], argv + 6, argc - 6, 0, 0),
	      "%s does not reach %s through every link given", argv[4], argv[3]);
	CHECK(reaches(e1, argv[3], argv + 6, argc - 6, 0, 0),
	      "%s does not reach %s through every link given", argv[5], argv[3]);
	if (!fails)
		printf("%s: graph, CPUs, clocks and IDs as expected\n", argv[2]);
	return fails ? 1 : 0;
}
