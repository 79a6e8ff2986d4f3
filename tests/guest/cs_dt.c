// SPDX-License-Identifier: GPL-2.0
/*
 * The CoreSight emulator's SoCs come from the device tree the guest
 * booted with (issue 15): tests/harness/csdt.sh puts Juno r2's CoreSight
 * (the kernel's juno-r2.dts, juno-base.dtsi, juno-cs-r1r2.dtsi) and
 * MSM8916's (apq8016-sbc.dts, msm8916.dtsi) into it. For topology=juno
 * and topology=msm8916:
 *
 *  - what tb_csemu tells tracebuf (debugfs tb_csemu/topology: every
 *    component, each ETM's CPU, every ATB wire with its ports) equals
 *    what /proc/device-tree says, read here as coresight-platform.c reads
 *    it (available children of the board's container, an ETM's "cpu"
 *    phandle, out-ports endpoints to the remote endpoint's component and
 *    port reg);
 *  - each CPU's trace path in it, port by port, is the real board's
 *    (written out below from the kernel's device trees), so a wrong tree
 *    fails even when the emulator follows it faithfully;
 *  - the kernel's own CoreSight drivers drive none of the components:
 *    no device is made for one (the container is no simple-bus and
 *    maps no address: no MMIO reaches them), none of their modules was
 *    loaded on its own, and loading them binds nothing.
 *
 * Booted with ACPI (no /proc/device-tree: run-guest.sh --acpi), the
 * same for topology=n1sdp, Arm N1SDP's CoreSight in the SSDT the guest
 * booted with (test_acpi_soc(): the namespace in sysfs holds no _DSD
 * graph, so the graph is checked through the paths).
 *
 *   cs_dt                      the guest test
 *   cs_dt --print DTROOT SOC   prints what DTROOT (a /proc/device-tree-like
 *                              tree: dtc -O fs) says, and the paths
 */
#include <dirent.h>
#include <limits.h>
#include <stdarg.h>
#include <stdint.h>
#include <sys/stat.h>

#include "tbtest.h"

#define CSEMU "/sys/kernel/debug/tb_csemu"
#define TB_PATHS "/sys/kernel/debug/tracebuf/coresight_paths"
#define MAXL 256

static const char *dtroot = "/proc/device-tree";

struct lines {
	char *l[MAXL];
	int n;
};

static void add(struct lines *s, const char *fmt, ...) __attribute__((format(printf, 2, 3)));
static void add(struct lines *s, const char *fmt, ...)
{
	va_list ap;
	char *p;

	va_start(ap, fmt);
	if (vasprintf(&p, fmt, ap) < 0)
		p = NULL;
	va_end(ap);
	if (p && s->n < MAXL)
		s->l[s->n++] = p;
	else
		free(p);
}

/* snprintf for paths: a path that does not fit is cut (none here is near PATH_MAX). */
static void pf(char *buf, size_t size, const char *fmt, ...) __attribute__((format(printf, 3, 4)));
static void pf(char *buf, size_t size, const char *fmt, ...)
{
	va_list ap;

	va_start(ap, fmt);
	vsnprintf(buf, size, fmt, ap);
	va_end(ap);
}

static int cmp(const void *a, const void *b)
{
	return strcmp(*(char *const *)a, *(char *const *)b);
}

static void clear(struct lines *s)
{
	while (s->n)
		free(s->l[--s->n]);
}

/* A property's bytes; returns its length or -1. */
static int prop(const char *node, const char *name, void *buf, int size)
{
	char path[PATH_MAX];
	int fd, n;

	pf(path, sizeof(path), "%s/%s", node, name);
	fd = open(path, O_RDONLY);
	if (fd < 0)
		return -1;
	n = read(fd, buf, size);
	close(fd);
	return n;
}

static int prop_u32(const char *node, const char *name, uint32_t *v)
{
	unsigned char b[4];

	if (prop(node, name, b, 4) != 4)
		return -1;
	*v = (uint32_t)b[0] << 24 | b[1] << 16 | b[2] << 8 | b[3];
	return 0;
}

/* Does the node's compatible list hold c? */
static int compatible(const char *node, const char *c)
{
	char buf[512];
	int n = prop(node, "compatible", buf, sizeof(buf) - 1), i = 0;

	if (n <= 0)
		return 0;
	buf[n] = 0;
	while (i < n) {
		if (!strcmp(buf + i, c))
			return 1;
		i += strlen(buf + i) + 1;
	}
	return 0;
}

static int available(const char *node)
{
	char st[16];
	int n = prop(node, "status", st, sizeof(st) - 1);

	if (n <= 0)
		return 1;
	st[n] = 0;
	return !strcmp(st, "okay") || !strcmp(st, "ok");
}

static int isdir(const char *path)
{
	struct stat st;

	return !stat(path, &st) && S_ISDIR(st.st_mode);
}

/* Every node under root with a phandle, by phandle. */
static struct { uint32_t ph; char *path; } phs[1024];
static int nphs;

static void index_phandles(const char *root)
{
	char path[PATH_MAX];
	struct dirent *d;
	uint32_t ph;
	DIR *dir;

	if (!prop_u32(root, "phandle", &ph) && nphs < 1024) {
		phs[nphs].ph = ph;
		phs[nphs++].path = strdup(root);
	}
	dir = opendir(root);
	if (!dir)
		return;
	while ((d = readdir(dir)))
		if (d->d_name[0] != '.') {
			pf(path, sizeof(path), "%s/%s", root, d->d_name);
			if (isdir(path))
				index_phandles(path);
		}
	closedir(dir);
}

static const char *by_phandle(uint32_t ph)
{
	int i;

	for (i = 0; i < nphs; i++)
		if (phs[i].ph == ph)
			return phs[i].path;
	return NULL;
}

static const char *base(const char *p)
{
	const char *s = strrchr(p, '/');

	return s ? s + 1 : p;
}

enum kind { K_NONE, K_ETM, K_TMC, K_FUNNEL, K_REPL };

static enum kind kind_of(const char *node)
{
	if (compatible(node, "arm,coresight-etm4x"))
		return K_ETM;
	if (compatible(node, "arm,coresight-tmc"))
		return K_TMC;
	if (compatible(node, "arm,coresight-dynamic-funnel"))
		return K_FUNNEL;
	if (compatible(node, "arm,coresight-dynamic-replicator"))
		return K_REPL;
	return K_NONE;
}

/* The board's container: the parent of its tracebuf,csemu-soc controller. */
static int find_soc(const char *soc, char *out, size_t size)
{
	char path[PATH_MAX], node[PATH_MAX], name[32];
	struct dirent *d, *e;
	DIR *dir, *sub;
	int n, found = 0;

	dir = opendir(dtroot);
	while (dir && !found && (d = readdir(dir))) {
		if (strncmp(d->d_name, "csemu-", 6))
			continue;
		pf(path, sizeof(path), "%s/%s", dtroot, d->d_name);
		sub = opendir(path);
		while (sub && !found && (e = readdir(sub))) {
			pf(node, sizeof(node), "%s/%s", path, e->d_name);
			if (e->d_name[0] == '.' || !compatible(node, "tracebuf,csemu-soc"))
				continue;
			n = prop(node, "tracebuf,soc", name, sizeof(name) - 1);
			if (n > 0) {
				name[n] = 0;
				if (!strcmp(name, soc)) {
					pf(out, size, "%s", path);
					found = 1;
				}
			}
		}
		if (sub)
			closedir(sub);
	}
	if (dir)
		closedir(dir);
	return found ? 0 : -1;
}

/* The logical CPU whose device's of_node is node (--print: its reg). */
static int cpu_of(const char *node, int print)
{
	char path[PATH_MAX], a[PATH_MAX], b[PATH_MAX];
	uint32_t reg;
	int cpu;

	if (print)
		return prop_u32(node, "reg", &reg) ? -1 : (int)reg;
	if (!realpath(node, a))
		return -1;
	for (cpu = 0; cpu < 64; cpu++) {
		pf(path, sizeof(path), "/sys/devices/system/cpu/cpu%d/of_node", cpu);
		if (realpath(path, b) && !strcmp(a, b))
			return cpu;
	}
	return -1;
}

/* The port number of a port node: its reg, 0 without one. */
static uint32_t port_reg(const char *port)
{
	uint32_t r = 0;

	prop_u32(port, "reg", &r);
	return r;
}

/* What the device tree says about SoC soc, in tb_csemu/topology's form. */
static int dt_lines(const char *soc, struct lines *out, int print)
{
	static const char *const tmcs[] = { "etr", "etf", "etb" };
	char cont[PATH_MAX], node[PATH_MAX], ports[PATH_MAX], port[PATH_MAX], ep[PATH_MAX];
	char rport[PATH_MAX];
	struct dirent *d, *p, *e;
	DIR *dir, *pd, *ed;
	uint32_t ph;
	size_t cl;
	unsigned int i;

	if (find_soc(soc, cont, sizeof(cont)))
		return -1;
	cl = strlen(cont);
	nphs = 0;
	index_phandles(cont);
	index_phandles(strcat(strcpy(node, dtroot), "/cpus"));
	dir = opendir(cont);
	while (dir && (d = readdir(dir))) {
		enum kind k;

		pf(node, sizeof(node), "%s/%s", cont, d->d_name);
		if (d->d_name[0] == '.' || !isdir(node) || !available(node))
			continue;
		k = kind_of(node);
		if (k == K_NONE)
			continue;
		if (k == K_ETM) {
			const char *c;

			c = prop_u32(node, "cpu", &ph) ? NULL : by_phandle(ph);
			add(out, "etm %s %d", d->d_name, c ? cpu_of(c, print) : -1);
		} else if (k == K_TMC) {
			const char *t = "etr";

			for (i = 0; i < 3; i++)
				if (!strncmp(d->d_name, tmcs[i], 3) && d->d_name[3] == '@')
					t = tmcs[i];
			add(out, "tmc %s %s", d->d_name, t);
		} else {
			add(out, "%s %s", k == K_REPL ? "replicator" : "funnel", d->d_name);
		}
		/* out-ports/port[@N]/endpoint[@M]: remote-endpoint. */
		pf(ports, sizeof(ports), "%s/out-ports", node);
		pd = opendir(ports);
		while (pd && (p = readdir(pd))) {
			pf(port, sizeof(port), "%s/%s", ports, p->d_name);
			if (strncmp(p->d_name, "port", 4) || !isdir(port))
				continue;
			ed = opendir(port);
			while (ed && (e = readdir(ed))) {
				const char *r, *owner;
				char oname[PATH_MAX];

				pf(ep, sizeof(ep), "%s/%s", port, e->d_name);
				if (strncmp(e->d_name, "endpoint", 8) ||
				    prop_u32(ep, "remote-endpoint", &ph))
					continue;
				r = by_phandle(ph);
				if (!r || strncmp(r, cont, cl) || r[cl] != '/') {
					add(out, "wire %s %u <outside> 0", d->d_name, port_reg(port));
					continue;
				}
				/* The component: the container's child r is under. */
				owner = r + cl + 1;
				pf(oname, sizeof(oname), "%.*s",
					 (int)(strchrnul(owner, '/') - owner), owner);
				pf(rport, sizeof(rport), "%s", r);
				*strrchr(rport, '/') = 0;
				pf(node, sizeof(node), "%s/%s", cont, oname);
				/* Towards a disabled or unknown node: nothing is emulated there. */
				if (!available(node) || kind_of(node) == K_NONE)
					continue;
				add(out, "wire %s %u %s %u", d->d_name, port_reg(port), oname,
				    port_reg(rport));
			}
			if (ed)
				closedir(ed);
		}
		if (pd)
			closedir(pd);
	}
	if (dir)
		closedir(dir);
	return 0;
}

static int file_lines(const char *path, struct lines *out)
{
	char line[256];
	FILE *f = fopen(path, "r");

	if (!f)
		return -1;
	while (fgets(line, sizeof(line), f)) {
		line[strcspn(line, "\n")] = 0;
		if (line[0])
			add(out, "%s", line);
	}
	fclose(f);
	return 0;
}

/*
 * CPU cpu's path to an ETR in topology lines t, depth first: "ETM.port>
 * NAME:inport.outport>...>ETR:inport". Returns 1 when one was found.
 */
static int path_from(const struct lines *t, const char *comp, char *acc, size_t size, int depth)
{
	char src[64], dst[64], name[64], type[8];
	unsigned int sp, dp;
	size_t len = strlen(acc);
	int i;

	/* An ETR ends the path; an ETF is a link on the way (hardware FIFO). */
	for (i = 0; i < t->n; i++)
		if (sscanf(t->l[i], "tmc %63s %7s", name, type) == 2 && !strcmp(name, comp) &&
		    !strcmp(type, "etr"))
			return 1;
	if (depth > 12)
		return 0;
	for (i = 0; i < t->n; i++) {
		if (sscanf(t->l[i], "wire %63s %u %63s %u", src, &sp, dst, &dp) != 4 ||
		    strcmp(src, comp))
			continue;
		pf(acc + len, size - len, ".%u>%s:%u", sp, dst, dp);
		if (path_from(t, dst, acc, size, depth + 1))
			return 1;
		acc[len] = 0;
	}
	return 0;
}

static int cpu_path(const struct lines *t, int cpu, char *acc, size_t size)
{
	char name[64];
	int i, c;

	for (i = 0; i < t->n; i++)
		if (sscanf(t->l[i], "etm %63s %d", name, &c) == 2 && c == cpu) {
			/* An ETM has one master port; its slave port "in" is implied. */
			pf(acc, size, "%s", name);
			if (path_from(t, name, acc, size, 0))
				return 0;
		}
	pf(acc, size, "(none)");
	return -1;
}

/*
 * The real boards, from the kernel's device trees (Debian's 6.1):
 * juno-base.dtsi's cluster funnels (funnel@220c0000 for the A72s,
 * funnel@230c0000 for the A53s) into the main funnel (funnel@20040000)
 * ports 0 and 1, ETF0 (etf@20010000), the cssys2 funnel
 * (funnel@20150000, port 0; juno-cs-r1r2.dtsi puts it and ETF1 behind
 * the cssys1 funnel there), the replicator (replicator@20120000), whose
 * port 1 goes to the ETR; msm8916.dtsi's APSS funnel (funnel@841000, CPU
 * n on port n) into funnel0's port 4 (funnel@821000), the ETF, the
 * replicator's port 0 to the ETR (etr@826000). Each hop is
 * "NAME:slave port.master port".
 */
static const char *const juno_paths[] = {
	"etm@22040000.0>funnel@220c0000:0.0>funnel@20040000:0.0>etf@20010000:0.0>"
	"funnel@20150000:0.0>replicator@20120000:0.1>etr@20070000:0",
	"etm@23040000.0>funnel@230c0000:0.0>funnel@20040000:1.0>etf@20010000:0.0>"
	"funnel@20150000:0.0>replicator@20120000:0.1>etr@20070000:0",
};
static const char *const msm8916_paths[] = {
	"etm@85c000.0>funnel@841000:0.0>funnel@821000:4.0>etf@825000:0.0>"
	"replicator@824000:0.0>etr@826000:0",
	"etm@85d000.0>funnel@841000:1.0>funnel@821000:4.0>etf@825000:0.0>"
	"replicator@824000:0.0>etr@826000:0",
};

static int print_mode(const char *root, const char *soc)
{
	struct lines t = { 0 };
	char acc[1024];
	int i;

	dtroot = root;
	if (dt_lines(soc, &t, 1))
		return fprintf(stderr, "no %s in %s\n", soc, root), 1;
	qsort(t.l, t.n, sizeof(t.l[0]), cmp);
	for (i = 0; i < t.n; i++)
		printf("%s\n", t.l[i]);
	for (i = 0; i < 2; i++) {
		cpu_path(&t, i, acc, sizeof(acc));
		printf("path cpu%d %s\n", i, acc);
	}
	return 0;
}

static int emu_load(const char *soc)
{
	char param[32];
	const char *argv[] = { "modprobe", "tb_csemu", param, NULL };

	if (tbt_module_loaded("tb_csemu"))
		tbt_rmmod("tb_csemu");
	pf(param, sizeof(param), "topology=%s", soc);
	return tbt_run(argv);
}

static void test_soc(const char *soc, const char *const *paths)
{
	struct lines dt = { 0 }, emu = { 0 };
	char acc[1024];
	int i, j, k, cpu;

	TBT_CHECK(dt_lines(soc, &dt, 0) == 0, "%s: no tracebuf,csemu-soc \"%s\" in the device tree",
		  soc, soc);
	TBT_CHECK(emu_load(soc) == 0, "modprobe tb_csemu topology=%s", soc);
	TBT_CHECK(file_lines(CSEMU "/topology", &emu) == 0, "read " CSEMU "/topology");
	qsort(dt.l, dt.n, sizeof(dt.l[0]), cmp);
	qsort(emu.l, emu.n, sizeof(emu.l[0]), cmp);
	printf("# %s: the device tree says %d lines, tb_csemu %d\n", soc, dt.n, emu.n);
	for (i = 0; i < emu.n; i++)
		printf("#   %s\n", emu.l[i]);
	/* Both sorted: a merge shows what only one side has. */
	for (i = j = 0; i < dt.n || j < emu.n;) {
		k = i >= dt.n ? 1 : j >= emu.n ? -1 : strcmp(dt.l[i], emu.l[j]);
		if (k < 0)
			TBT_CHECK(0, "%s: the device tree has \"%s\", tb_csemu does not", soc, dt.l[i++]);
		else if (k > 0)
			TBT_CHECK(0, "%s: tb_csemu has \"%s\", the device tree does not", soc, emu.l[j++]);
		else
			i++, j++;
	}
	TBT_CHECK(dt.n > 4, "%s: %d components and wires in the device tree", soc, dt.n);
	for (cpu = 0; cpu < 2; cpu++) {
		cpu_path(&emu, cpu, acc, sizeof(acc));
		printf("# %s cpu%d: %s\n", soc, cpu, acc);
		TBT_CHECK(!strcmp(acc, paths[cpu]), "%s cpu%d: the path is not the real board's (%s)",
			  soc, cpu, paths[cpu]);
	}
	/*
	 * What tracebuf found on its own in the device tree (its discovery,
	 * as on the board: the emulator tells it no component) and the way
	 * it chose for each CPU: the real board's, port by port.
	 */
	clear(&emu);
	TBT_CHECK(file_lines(TB_PATHS, &emu) == 0, "read " TB_PATHS);
	for (cpu = 0; cpu < 2; cpu++) {
		char want[1024];

		pf(want, sizeof(want), "cpu%d %s", cpu, paths[cpu]);
		for (i = 0; i < emu.n && strcmp(emu.l[i], want); i++)
			;
		printf("# %s: tracebuf's cpu%d: %s\n", soc, cpu,
		       cpu < emu.n ? emu.l[cpu] : "(none)");
		TBT_CHECK(i < emu.n, "%s cpu%d: tracebuf's own path (" TB_PATHS ") is not the real board's (%s)",
			  soc, cpu, paths[cpu]);
	}
	TBT_CHECK(emu.n == 2, "%s: tracebuf has paths for %d CPUs, not 2", soc, emu.n);
	tbt_rmmod("tb_csemu");
	clear(&dt);
	clear(&emu);
}

/*
 * ACPI (an arm64 guest booted with ACPI, run-guest.sh --acpi and tests/harness/acpi.sh): Arm N1SDP's
 * CoreSight in the SSDT the guest booted with (tests/harness/acpi/
 * n1sdp.asl, from edk2-platforms' N1Sdp Dsdt.asl), under \_SB_.N1SD,
 * which is not present. sysfs shows each ACPI device's path, hardware
 * ID, _UID and _STA (drivers/acpi/device_sysfs.c), not its _DSD graph:
 * the components are compared with what tb_csemu says, the graph through
 * each CPU's path, port by port, against the real N1SDP's (from its
 * DSDT: ETM -> cluster static funnel SFN0/SFN1 -> cluster ETF0/ETF1 ->
 * funnel FUN port 0/1 -> master funnel MFUN port 0 -> replicator REP
 * port 1 -> ETR), in tb_csemu's wires and in the paths tracebuf built
 * from the namespace on its own.
 */
#define ACPI_DEVS "/sys/bus/acpi/devices"
#define N1SD "\\_SB_.N1SD."

static const char *const n1sdp_paths[] = {
	N1SD "CP00.ETM0.0>" N1SD "SFN0:0.0>" N1SD "ETF0:0.0>" N1SD "FUN_:0.0>" N1SD
	"MFUN:0.0>" N1SD "REP_:0.1>" N1SD "ETR_:0",
	N1SD "CP02.ETM2.0>" N1SD "SFN1:0.0>" N1SD "ETF1:0.0>" N1SD "FUN_:1.0>" N1SD
	"MFUN:0.0>" N1SD "REP_:0.1>" N1SD "ETR_:0",
};

/* sysfs attribute dir/name's first line, or -1. */
static int attr(const char *dir, const char *name, char *buf, int size)
{
	char path[PATH_MAX];
	FILE *f;

	pf(path, sizeof(path), "%s/%s", dir, name);
	f = fopen(path, "r");
	if (!f)
		return -1;
	if (!fgets(buf, size, f))
		buf[0] = 0;
	fclose(f);
	buf[strcspn(buf, "\n")] = 0;
	return 0;
}

/* The ACPI device at namespace path p: its sysfs directory, or -1. */
static int acpi_dev(const char *p, char *out, size_t size)
{
	char dir[PATH_MAX], path[256];
	struct dirent *d;
	DIR *dd = opendir(ACPI_DEVS);
	int ret = -1;

	while (dd && (d = readdir(dd))) {
		if (d->d_name[0] == '.')
			continue;
		pf(dir, sizeof(dir), ACPI_DEVS "/%s", d->d_name);
		if (!attr(dir, "path", path, sizeof(path)) && !strcmp(path, p)) {
			pf(out, size, "%s", dir);
			ret = 0;
			break;
		}
	}
	if (dd)
		closedir(dd);
	return ret;
}

/* The guest CPU whose processor has _UID uid (cpuN/firmware_node/uid), or -1. */
static int cpu_of_uid(const char *uid)
{
	char dir[PATH_MAX], u[64];
	int cpu;

	for (cpu = 0; cpu < 64; cpu++) {
		pf(dir, sizeof(dir), "/sys/devices/system/cpu/cpu%d/firmware_node", cpu);
		if (!attr(dir, "uid", u, sizeof(u)) && !strcmp(u, uid))
			return cpu;
	}
	return -1;
}

/*
 * The components under \_SB_.N1SD as the namespace gives them: present
 * (_STA bit 0, or no _STA), by hardware ID (drivers/acpi/acpi_amba.c,
 * coresight-funnel.c, coresight-replicator.c), an ETM's CPU its parent
 * processor's, a TMC's configuration from its name (N1SDP's ETFn, ETR).
 */
static int acpi_lines(struct lines *out)
{
	char dir[PATH_MAX], pdir[PATH_MAX], path[256], hid[16], st[16], uid[64], *dot;
	struct dirent *d;
	DIR *dd = opendir(ACPI_DEVS);
	int cpu;

	if (!dd)
		return -1;
	while ((d = readdir(dd))) {
		if (d->d_name[0] == '.')
			continue;
		pf(dir, sizeof(dir), ACPI_DEVS "/%s", d->d_name);
		if (attr(dir, "path", path, sizeof(path)) || strncmp(path, N1SD, strlen(N1SD)) ||
		    attr(dir, "hid", hid, sizeof(hid)))
			continue;
		if (!attr(dir, "status", st, sizeof(st)) && !(strtoul(st, NULL, 0) & 1))
			continue;
		if (!strcmp(hid, "ARMHC500")) {
			pf(pdir, sizeof(pdir), "%s", path);
			dot = strrchr(pdir, '.');
			if (!dot)
				continue;
			*dot = 0;
			cpu = -1;
			if (!acpi_dev(pdir, pdir, sizeof(pdir)) && !attr(pdir, "uid", uid, sizeof(uid)))
				cpu = cpu_of_uid(uid);
			if (cpu >= 0)
				add(out, "etm %s %d", path, cpu);
		} else if (!strcmp(hid, "ARMHC97C")) {
			const char *n = path + strlen(N1SD);

			add(out, "tmc %s %s", path, !strncmp(n, "ETF", 3) ? "etf" :
			    !strncmp(n, "ETB", 3) ? "etb" : "etr");
		} else if (!strcmp(hid, "ARMHC9FF")) {
			add(out, "funnel %s", path);
		} else if (!strcmp(hid, "ARMHC98D")) {
			add(out, "replicator %s", path);
		} else if (!strcmp(hid, "ARMHC9FE") || !strcmp(hid, "ARMHC985")) {
			add(out, "static %s", path);
		}
	}
	closedir(dd);
	return 0;
}

static int board_devices(int *bound, int *ours, int *ours_static);

static void test_acpi_soc(const char *soc, const char *const *paths)
{
	struct lines fw = { 0 }, emu = { 0 }, comps = { 0 };
	char acc[1024], want[1024];
	int i, j, k, cpu, n, bound, ours, ours_static, statics = 0;

	TBT_CHECK(acpi_lines(&fw) == 0, "read " ACPI_DEVS);
	TBT_CHECK(fw.n > 4, "%s: %d components under " N1SD " in the namespace", soc, fw.n);
	TBT_CHECK(emu_load(soc) == 0, "modprobe tb_csemu topology=%s", soc);
	TBT_CHECK(file_lines(CSEMU "/topology", &emu) == 0, "read " CSEMU "/topology");
	for (i = 0; i < emu.n; i++) {
		printf("#   %s\n", emu.l[i]);
		if (strncmp(emu.l[i], "wire ", 5))
			add(&comps, "%s", emu.l[i]);
	}
	qsort(fw.l, fw.n, sizeof(fw.l[0]), cmp);
	qsort(comps.l, comps.n, sizeof(comps.l[0]), cmp);
	printf("# %s: the namespace has %d components, tb_csemu %d\n", soc, fw.n, comps.n);
	for (i = j = 0; i < fw.n || j < comps.n;) {
		k = i >= fw.n ? 1 : j >= comps.n ? -1 : strcmp(fw.l[i], comps.l[j]);
		if (k < 0)
			TBT_CHECK(0, "%s: the namespace has \"%s\", tb_csemu does not", soc, fw.l[i++]);
		else if (k > 0)
			TBT_CHECK(0, "%s: tb_csemu has \"%s\", the namespace does not", soc,
				  comps.l[j++]);
		else
			i++, j++;
	}
	for (cpu = 0; cpu < 2; cpu++) {
		cpu_path(&emu, cpu, acc, sizeof(acc));
		printf("# %s cpu%d: %s\n", soc, cpu, acc);
		TBT_CHECK(!strcmp(acc, paths[cpu]), "%s cpu%d: the path is not the real N1SDP's (%s)",
			  soc, cpu, paths[cpu]);
	}
	clear(&emu);
	TBT_CHECK(file_lines(TB_PATHS, &emu) == 0, "read " TB_PATHS);
	for (cpu = 0; cpu < 2; cpu++) {
		pf(want, sizeof(want), "cpu%d %s", cpu, paths[cpu]);
		for (i = 0; i < emu.n && strcmp(emu.l[i], want); i++)
			;
		printf("# %s: tracebuf's cpu%d: %s\n", soc, cpu,
		       cpu < emu.n ? emu.l[cpu] : "(none)");
		TBT_CHECK(i < emu.n, "%s cpu%d: tracebuf's own path (" TB_PATHS ") is not the real N1SDP's (%s)",
			  soc, cpu, paths[cpu]);
	}
	TBT_CHECK(emu.n == 2, "%s: tracebuf has paths for %d CPUs, not 2", soc, emu.n);
	/*
	 * tb_csemu's devices, one per component, each bound to tracebuf-cs
	 * (the lines say which bus: the components with registers AMBA on
	 * 6.1, platform on later kernels; the static funnels SFN0/SFN1
	 * platform devices on every kernel, ACPI's default enumeration),
	 * the static links' among them.
	 */
	for (i = 0; i < comps.n; i++)
		statics += !strncmp(comps.l[i], "static ", 7);
	n = board_devices(&bound, &ours, &ours_static);
	printf("# %s: %d devices, %d bound, %d to tracebuf-cs (%d static links of %d), for %d components\n",
	       soc, n, bound, ours, ours_static, statics, comps.n);
	TBT_CHECK(statics == 2, "%s: %d static links in the topology (SFN0, SFN1)", soc, statics);
	TBT_CHECK(n == comps.n && bound == comps.n && ours == comps.n,
		  "%s: %d devices, %d bound, %d to tracebuf-cs, for %d components", soc, n, bound,
		  ours, comps.n);
	TBT_CHECK(ours_static == statics,
		  "%s: %d of the %d static links' devices bound to tracebuf-cs", soc, ours_static,
		  statics);
	tbt_rmmod("tb_csemu");
	clear(&fw);
	clear(&emu);
	clear(&comps);
}

/*
 * Devices made for the boards' components (their of_node under a
 * /csemu-* container, or their ACPI node under \_SB_.N1SD) on the amba
 * and platform buses, and how many of those have a driver bound, how
 * many tracebuf-cs (if ours), and how many static links' (ACPI hardware
 * ID ARMHC9FE or ARMHC985) tracebuf-cs (if ours_static).
 */
static int board_devices(int *bound, int *ours, int *ours_static)
{
	static const char *const buses[] = { "amba", "platform" };
	char path[PATH_MAX], link[PATH_MAX], hid[32];
	unsigned int b;
	int found = 0;

	*bound = 0;
	if (ours)
		*ours = 0;
	if (ours_static)
		*ours_static = 0;
	for (b = 0; b < 2; b++) {
		struct dirent *d;
		DIR *dir;

		pf(path, sizeof(path), "/sys/bus/%s/devices", buses[b]);
		dir = opendir(path);
		while (dir && (d = readdir(dir))) {
			const char *c;
			ssize_t n;

			hid[0] = 0;
			if (d->d_name[0] == '.')
				continue;
			pf(path, sizeof(path), "/sys/bus/%s/devices/%s/of_node", buses[b], d->d_name);
			n = readlink(path, link, sizeof(link) - 1);
			if (n > 0) {
				link[n] = 0;
				c = strstr(link, "/csemu-");
				/* The container itself may be a device; its children are the components. */
				if (!c || !strchr(c + 1, '/'))
					continue;
			} else {
				/* ACPI: a device of a node under \_SB_.N1SD */
				pf(path, sizeof(path), "/sys/bus/%s/devices/%s/firmware_node",
				   buses[b], d->d_name);
				if (attr(path, "path", link, sizeof(link)) ||
				    strncmp(link, N1SD, strlen(N1SD)))
					continue;
				if (attr(path, "hid", hid, sizeof(hid)))
					hid[0] = 0;
			}
			found++;
			pf(path, sizeof(path), "/sys/bus/%s/devices/%s/driver", buses[b], d->d_name);
			n = readlink(path, link, sizeof(link) - 1);
			if (n > 0) {
				link[n] = 0;
				(*bound)++;
				printf("# %s/%s (%s) is bound to %s\n", buses[b], d->d_name,
				       hid[0] ? hid : "-", base(link));
				if (ours && !strcmp(base(link), "tracebuf-cs"))
					(*ours)++;
				if (ours_static && !strcmp(base(link), "tracebuf-cs") &&
				    (!strcmp(hid, "ARMHC9FE") || !strcmp(hid, "ARMHC985")))
					(*ours_static)++;
			}
		}
		if (dir)
			closedir(dir);
	}
	return found;
}

/*
 * The kernel's own CoreSight drivers never drive the emulated boards: no
 * device is made for a component (the container is no simple-bus and
 * maps no address), so loading the kernel's modules, where it has them,
 * binds nothing; and none of them was loaded on its own.
 */
static void test_unbound(void)
{
	static const char *const mods[] = {
		"coresight_etm4x", "coresight_funnel", "coresight_replicator", "coresight_tmc",
	};
	int had_core = tbt_module_loaded("coresight");
	unsigned int i;
	int n, bound;

	for (i = 0; i < sizeof(mods) / sizeof(mods[0]); i++)
		TBT_CHECK(!tbt_module_loaded(mods[i]), "%s was loaded before the test", mods[i]);
	n = board_devices(&bound, NULL, NULL);
	printf("# %d devices for the emulated boards' components, %d bound\n", n, bound);
	TBT_CHECK(n == 0 && bound == 0, "%d devices, %d bound, for the boards' components", n, bound);
	for (i = 0; i < sizeof(mods) / sizeof(mods[0]); i++)
		printf("# modprobe %s: %d\n", mods[i], tbt_modprobe(mods[i]));
	n = board_devices(&bound, NULL, NULL);
	printf("# with the kernel's modules: %d devices, %d bound\n", n, bound);
	TBT_CHECK(n == 0 && bound == 0, "%d devices, %d bound, with the kernel's modules", n, bound);
	for (i = 0; i < sizeof(mods) / sizeof(mods[0]); i++)
		if (tbt_module_loaded(mods[i]))
			TBT_CHECK(tbt_rmmod(mods[i]) == 0, "rmmod %s", mods[i]);
	if (!had_core && tbt_module_loaded("coresight"))
		TBT_CHECK(tbt_rmmod("coresight") == 0, "rmmod coresight");
}

int main(int argc, char **argv)
{
	if (argc == 4 && !strcmp(argv[1], "--print"))
		return print_mode(argv[2], argv[3]);
	setvbuf(stdout, NULL, _IOLBF, 0);
	if (access(dtroot, F_OK)) {
		/* No device tree: the kernel booted with ACPI. */
		test_acpi_soc("n1sdp", n1sdp_paths);
	} else {
		test_soc("juno", juno_paths);
		test_soc("msm8916", msm8916_paths);
	}
	test_unbound();
	return tbt_done();
}
