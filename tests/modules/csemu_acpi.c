// SPDX-License-Identifier: GPL-2.0
/*
 * tb_csemu: an emulated SoC the ACPI namespace describes (topology=n1sdp):
 * Arm N1SDP's CoreSight as its firmware gives it to the OS, the SSDT
 * tests/harness/acpi/n1sdp.asl (from edk2-platforms' N1Sdp Dsdt.asl),
 * which the arm64 guests booted with ACPI have (run-guest.sh --acpi, tests/harness/acpi.sh).
 *
 * The SoC is the children of the device whose _DSD names it (compatible
 * "tracebuf,csemu-soc", "tracebuf,soc"), which is not present, so the OS
 * made no device for any of them (drivers/acpi/scan.c: acpi_bus_attach()
 * does not go below a device that is neither present nor functioning).
 * Read here as the ACPI for CoreSight document (Arm DEN0067) and the
 * kernel (drivers/acpi/acpi_amba.c, coresight-platform.c) read it; this
 * reading is the emulator's own, tracebuf's (module/coresight.c:
 * tb_cs_discover_acpi()) is checked against it (tests/guest/cs_dt.c):
 *
 *  - a component is a device with one of the kernel's CoreSight IDs as
 *    its _HID and a present _STA (none: present): ARMHC500 an ETMv4,
 *    ARMHC97C a TMC, ARMHC9FF a dynamic funnel, ARMHC98D a dynamic
 *    replicator (acpi_amba.c: amba_id_list), ARMHC9FE and ARMHC985 a
 *    static funnel and replicator (coresight-funnel.c: static_funnel_ids,
 *    coresight-replicator.c: static_replicator_acpi_ids); others (STM,
 *    TPIU) are not emulated;
 *  - an ETM traces the processor it is a child of (DEN0067: "the ETM is
 *    described as a child of the processor device"; coresight-platform.c:
 *    acpi_coresight_get_cpu()): the guest CPU whose MADT GICC entry has
 *    that processor's _UID as its ACPI processor UID (ACPI 6.4, 5.2.12.14;
 *    asm/acpi.h: get_cpu_for_acpi_id()); one whose UID no CPU has is not
 *    emulated;
 *  - a TMC's configuration is not in the namespace (the kernel reads it
 *    from DEVID): N1SDP names them ETF0, ETF1, ETF2 and ETR, and its
 *    TRM's ETFs and ETR are so configured; the name's first three
 *    letters decide here;
 *  - an ATB wire is a link of a _DSD CoreSight graph whose DirectionOfFlow
 *    is 1 (an output port): { SourcePort, DestinationPort,
 *    DestinationDevice, 1 } wires master port SourcePort to the
 *    destination's slave port DestinationPort (DEN0067 "_DSD graph";
 *    coresight-platform.c: acpi_coresight_parse_link()).
 *
 * Every component becomes a device of its ACPI node (its companion, its
 * name the node's device name) on the bus this kernel puts it on: 6.1
 * makes AMBA devices of the CoreSight IDs with registers (acpi_amba.c:
 * amba_handler_attach(); the peripheral ID is given here instead of
 * read, csemu_pwr.c), later kernels platform devices (Debian's 6.12:
 * drivers/acpi/arm64/amba.c's amba_id_list has none of them, its
 * coresight modules are platform drivers with these IDs; the change is
 * taken as v6.9's, Kbuild's CSEMU_ACPI_PLATFORM; only 6.1 and 6.12 are
 * built here); a static funnel or replicator (ARMHC9FE, ARMHC985: in no
 * kernel's amba_id_list) is a platform device on every kernel, as
 * drivers/acpi/scan.c's default enumeration makes one
 * (acpi_default_enumeration(), acpi_create_platform_device()); with
 * driver_override "tracebuf-cs" in every case. A static link's device
 * must be runtime-active while trace crosses it (csemu_link.c).
 * ACPI has no clocks or power domains for them: on an ACPI boot an AMBA
 * device's apb_pclk is acpi_amba.c's dummy clock, a platform device has
 * none, and power is the device's _PSx, which N1SDP's components have
 * none of.
 */
#include <linux/acpi.h>
#include <linux/amba/bus.h>

#include "csemu.h"

#ifdef CONFIG_ACPI
enum { A_ETM, A_TMC, A_FUNNEL, A_REPL, A_STATIC, A_OTHER };

static const struct {
	const char *hid;
	int kind;
} csemu_acpi_ids[] = {
	{ "ARMHC500", A_ETM },
	{ "ARMHC97C", A_TMC },
	{ "ARMHC9FF", A_FUNNEL },
	{ "ARMHC98D", A_REPL },
	{ "ARMHC9FE", A_STATIC },
	{ "ARMHC985", A_STATIC },
};

/* The peripheral IDs the AMBA devices get, as tests/host/csdt.c gives them in DT. */
#define CSEMU_PID_N1_ETM	0x000bbd0c	/* Neoverse N1 (coresight-etm4x-core.c) */
#define CSEMU_PID_TMC		0x000bb961
#define CSEMU_PID_FUNNEL	0x000bb908
#define CSEMU_PID_REPL		0x000bb909

struct csemu_acpi {
	struct acpi_device *soc;
	struct acpi_device *adev[CSEMU_DT_MAX];
	struct csemu_comp *comp[CSEMU_DT_MAX];
	unsigned int n;
	const char *soc_name;
};

static struct csemu_acpi *csemu_acpi;

static int csemu_acpi_kind(struct acpi_device *adev)
{
	const char *hid = acpi_device_hid(adev);
	unsigned int i;

	for (i = 0; i < ARRAY_SIZE(csemu_acpi_ids); i++)
		if (!strcmp(hid, csemu_acpi_ids[i].hid))
			return csemu_acpi_ids[i].kind;
	return A_OTHER;
}

/* The guest CPU an ETM node traces: its parent processor's _UID in the MADT; or -1. */
static int csemu_acpi_cpu(struct acpi_device *adev)
{
	struct acpi_device *p = acpi_dev_parent(adev);
	unsigned long long uid;

	if (!p || strcmp(acpi_device_hid(p), "ACPI0007") ||
	    ACPI_FAILURE(acpi_evaluate_integer(p->handle, "_UID", NULL, &uid)))
		return -1;
	return get_cpu_for_acpi_id(uid);
}

static u32 csemu_acpi_tmc_type(struct acpi_device *adev)
{
	const char *bid = acpi_device_bid(adev);

	if (!strncmp(bid, "ETF", 3))
		return TRACEBUF_CS_SINK_ETF;
	if (!strncmp(bid, "ETB", 3))
		return TRACEBUF_CS_SINK_ETB;
	return TRACEBUF_CS_SINK_ETR;
}

/* The container: the device whose _DSD says compatible "tracebuf,csemu-soc" and tracebuf,soc. */
static acpi_status csemu_acpi_find_soc(acpi_handle h, u32 level, void *ctx, void **ret)
{
	struct acpi_device *adev = acpi_fetch_acpi_dev(h);
	struct fwnode_handle *fw;
	const char *s;

	if (!adev)
		return AE_OK;
	fw = acpi_fwnode_handle(adev);
	if (fwnode_property_match_string(fw, "compatible", "tracebuf,csemu-soc") < 0 ||
	    fwnode_property_read_string(fw, "tracebuf,soc", &s) || strcmp(s, ctx))
		return AE_OK;
	*ret = adev;
	return AE_CTRL_TERMINATE;
}

/* The SoC's nodes of our kinds, in namespace order (the walk only collects). */
struct csemu_acpi_walk {
	struct acpi_device *adev[CSEMU_DT_MAX];
	unsigned int n;
};

static acpi_status csemu_acpi_collect(acpi_handle h, u32 level, void *ctx, void **retp)
{
	struct csemu_acpi_walk *w = ctx;
	struct acpi_device *adev = acpi_fetch_acpi_dev(h);

	if (adev && adev->status.present && csemu_acpi_kind(adev) != A_OTHER &&
	    w->n < CSEMU_DT_MAX)
		w->adev[w->n++] = adev;
	return AE_OK;
}

static int csemu_acpi_add(struct acpi_device *adev, struct csemu_comp *c, u32 pid)
{
	struct resource_entry *e;
	LIST_HEAD(res);
	u64 base = 0;

	if (csemu_acpi->n >= CSEMU_DT_MAX)
		return -E2BIG;
	csemu_acpi->adev[csemu_acpi->n] = adev;
	csemu_acpi->comp[csemu_acpi->n++] = c;
	if (!pid)		/* a static link: a platform device on every kernel */
		return csemu_pwr_platform_device(dev_name(&adev->dev), adev, c);
	if (acpi_dev_get_resources(adev, &res, NULL, NULL) >= 0) {
		list_for_each_entry(e, &res, node)
			if (resource_type(e->res) == IORESOURCE_MEM) {
				base = e->res->start;
				break;
			}
		acpi_dev_free_resource_list(&res);
	}
#ifdef CSEMU_ACPI_PLATFORM
	return csemu_pwr_platform_device(dev_name(&adev->dev), adev, c);
#else
	return csemu_pwr_amba_device(dev_name(&adev->dev), base, pid, NULL, adev, c);
#endif
}

/* Node adev as a component, if it is one of pass's (TMCs: ETRs, then the others; links; ETMs). */
static int csemu_acpi_build_one(struct acpi_device *adev, int pass, unsigned int *s,
				unsigned int *l)
{
	struct acpi_buffer path = { sizeof(((struct csemu_comp *)0)->name), NULL };
	char name[sizeof(((struct csemu_comp *)0)->name)];
	int kind = csemu_acpi_kind(adev), cpu, ret = 0;
	struct csemu_sink *k;
	struct csemu_link *lk;
	struct csemu_etm *e;

	if ((pass == 0 && (kind != A_TMC || csemu_acpi_tmc_type(adev) != TRACEBUF_CS_SINK_ETR)) ||
	    (pass == 1 && (kind != A_TMC || csemu_acpi_tmc_type(adev) == TRACEBUF_CS_SINK_ETR)) ||
	    (pass == 2 && kind != A_FUNNEL && kind != A_REPL && kind != A_STATIC) ||
	    (pass == 3 && kind != A_ETM))
		return 0;
	path.pointer = name;
	if (ACPI_FAILURE(acpi_get_name(adev->handle, ACPI_FULL_PATHNAME, &path)))
		strscpy(name, acpi_device_bid(adev), sizeof(name));
	switch (kind) {
	case A_TMC:
		k = &csemu.sinks[*s];
		ret = csemu_sink_init(k, *s, csemu_acpi_tmc_type(adev), name, false);
		(*s)++;
		if (ret)
			return ret;
		/* DEVID.NOSCAT unless the firmware allows scatter-gather */
		if (!fwnode_property_present(acpi_fwnode_handle(adev), "arm,scatter-gather"))
			k->sg_ok = false;
		ret = csemu_acpi_add(adev, &k->c, CSEMU_PID_TMC);
		if (ret)
			return ret;
		/* Its DMA through the device tracebuf binds. */
		k->dev = k->c.dev;
		return csemu_dma_attach(k->dev);
	case A_FUNNEL:
	case A_REPL:
	case A_STATIC:
		lk = &csemu.links[(*l)++];
		csemu_link_init(lk, kind == A_FUNNEL ? CSEMU_KIND_FUNNEL :
				kind == A_REPL ? CSEMU_KIND_REPL : CSEMU_KIND_STATIC, name);
		return csemu_acpi_add(adev, &lk->c, kind == A_FUNNEL ? CSEMU_PID_FUNNEL :
				      kind == A_REPL ? CSEMU_PID_REPL : 0);
	default:
		cpu = csemu_acpi_cpu(adev);
		if (cpu < 0 || cpu >= nr_cpu_ids || !cpu_possible(cpu) || csemu.etms[cpu].inited)
			return 0;
		e = &csemu.etms[cpu];
		csemu_etm_init(e, cpu);
		strscpy(e->c.name, name, sizeof(e->c.name));
		return csemu_acpi_add(adev, &e->c, CSEMU_PID_N1_ETM);
	}
}

static struct csemu_acpi_walk *csemu_acpi_nodes(void)
{
	struct csemu_acpi_walk *w = kzalloc(sizeof(*w), GFP_KERNEL);

	if (w)
		acpi_walk_namespace(ACPI_TYPE_DEVICE, csemu_acpi->soc->handle, ACPI_UINT32_MAX,
				    csemu_acpi_collect, NULL, w, NULL);
	return w;
}

static struct csemu_comp *csemu_acpi_comp(const struct acpi_device *adev)
{
	unsigned int i;

	for (i = 0; i < csemu_acpi->n; i++)
		if (csemu_acpi->adev[i] == adev)
			return csemu_acpi->comp[i];
	return NULL;
}

/* tb_cs_platform.acpi_map: the base for a node tracebuf found (the component itself). */
static void __iomem *csemu_acpi_map(struct acpi_device *adev)
{
	return (__force void __iomem *)csemu_acpi_comp(adev);
}

/*
 * The wires out of component i: the output links of its _DSD's CoreSight
 * graph. _DSD is { UUID, Package }...; the ACPI graph's package (UUID
 * ab02a46b-...) is { 0, number of graphs, graph... }, a graph { ID,
 * 3ecbc8b6-... (CoreSight), number of links, link... }.
 */
static void csemu_acpi_wires(unsigned int i)
{
	static const guid_t graph = GUID_INIT(0xab02a46b, 0x74c7, 0x45a2, 0xbd, 0x68, 0xf7,
					      0xd3, 0x44, 0xef, 0x21, 0x53);
	static const guid_t cs = GUID_INIT(0x3ecbc8b6, 0x1d0e, 0x4fb3, 0x81, 0x07, 0xe6,
					   0x27, 0xf8, 0x05, 0xc6, 0xcd);
	struct acpi_buffer buf = { ACPI_ALLOCATE_BUFFER, NULL };
	union acpi_object *dsd, *p, *g, *lk;
	struct acpi_device *r;
	struct csemu_comp *dst;
	unsigned int j, m, n;

	if (ACPI_FAILURE(acpi_evaluate_object(csemu_acpi->adev[i]->handle, "_DSD", NULL, &buf)))
		return;
	dsd = buf.pointer;
	for (j = 0; dsd->type == ACPI_TYPE_PACKAGE && j + 1 < dsd->package.count; j += 2) {
		p = &dsd->package.elements[j];
		if (p->type != ACPI_TYPE_BUFFER || p->buffer.length != sizeof(guid_t) ||
		    !guid_equal((guid_t *)p->buffer.pointer, &graph))
			continue;
		p = &dsd->package.elements[j + 1];
		if (p->type != ACPI_TYPE_PACKAGE)
			continue;
		for (m = 2; m < p->package.count; m++) {
			g = &p->package.elements[m];
			if (g->type != ACPI_TYPE_PACKAGE || g->package.count < 3 ||
			    g->package.elements[1].type != ACPI_TYPE_BUFFER ||
			    !guid_equal((guid_t *)g->package.elements[1].buffer.pointer, &cs))
				continue;
			for (n = 3; n < g->package.count; n++) {
				lk = &g->package.elements[n];
				if (lk->type != ACPI_TYPE_PACKAGE || lk->package.count != 4 ||
				    lk->package.elements[0].type != ACPI_TYPE_INTEGER ||
				    lk->package.elements[1].type != ACPI_TYPE_INTEGER ||
				    lk->package.elements[2].type != ACPI_TYPE_LOCAL_REFERENCE ||
				    lk->package.elements[3].type != ACPI_TYPE_INTEGER ||
				    lk->package.elements[3].integer.value != 1)
					continue;
				r = acpi_fetch_acpi_dev(lk->package.elements[2].reference.handle);
				dst = r ? csemu_acpi_comp(r) : NULL;
				if (dst && lk->package.elements[0].integer.value < 2)
					csemu_wire(csemu_acpi->comp[i],
						   lk->package.elements[0].integer.value, dst,
						   lk->package.elements[1].integer.value, false);
			}
		}
	}
	ACPI_FREE(buf.pointer);
}

/* Count what the SoC has; every possible CPU needs its ETM. */
int csemu_acpi_count(const char *soc)
{
	struct csemu_acpi_walk *w;
	cpumask_var_t have;
	void *found = NULL;
	unsigned int i, cpu;
	int kind, c, ret = 0;

	if (acpi_disabled) {
		pr_err("tb_csemu: topology=%s: the kernel did not boot with ACPI (run-guest.sh --acpi)\n",
		       soc);
		return -ENODEV;
	}
	csemu_acpi = kzalloc(sizeof(*csemu_acpi), GFP_KERNEL);
	if (!csemu_acpi)
		return -ENOMEM;
	acpi_walk_namespace(ACPI_TYPE_DEVICE, ACPI_ROOT_OBJECT, ACPI_UINT32_MAX,
			    csemu_acpi_find_soc, NULL, (void *)soc, &found);
	csemu_acpi->soc = found;
	if (!csemu_acpi->soc) {
		pr_err("tb_csemu: topology=%s: no tracebuf,csemu-soc \"%s\" in the ACPI namespace (boot with run-guest.sh --acpi)\n",
		       soc, soc);
		return -ENODEV;
	}
	w = csemu_acpi_nodes();
	if (!w || !zalloc_cpumask_var(&have, GFP_KERNEL)) {
		kfree(w);
		return -ENOMEM;
	}
	for (i = 0; i < w->n; i++) {
		kind = csemu_acpi_kind(w->adev[i]);
		if (kind == A_ETM) {
			c = csemu_acpi_cpu(w->adev[i]);
			if (c >= 0 && c < nr_cpu_ids)
				cpumask_set_cpu(c, have);
		} else if (kind == A_TMC) {
			csemu.nr_sinks++;
		} else {
			csemu.nr_links++;
		}
	}
	for_each_possible_cpu(cpu)
		if (!cpumask_test_cpu(cpu, have)) {
			pr_err("tb_csemu: topology=%s: no ETM for CPU %u in the ACPI namespace\n",
			       soc, cpu);
			ret = -EINVAL;
			break;
		}
	free_cpumask_var(have);
	kfree(w);
	if (ret)
		return ret;
	return csemu.nr_sinks ? 0 : -ENODEV;
}

int csemu_build_acpi(void)
{
	struct csemu_acpi_walk *w = csemu_acpi_nodes();
	unsigned int i, s = 0, l = 0;
	int pass, ret = 0;

	if (!w)
		return -ENOMEM;
	for (pass = 0; pass < 4 && !ret; pass++)
		for (i = 0; i < w->n && !ret; i++)
			ret = csemu_acpi_build_one(w->adev[i], pass, &s, &l);
	kfree(w);
	if (ret)
		return ret;
	for (i = 0; i < csemu_acpi->n; i++)
		csemu_acpi_wires(i);
	/* tracebuf finds the SoC in the namespace, as on the server. */
	csemu.plat.acpi_root = csemu_acpi->soc;
	csemu.plat.acpi_map = csemu_acpi_map;
	return 0;
}

void csemu_acpi_free(void)
{
	if (!csemu_acpi)
		return;
	csemu_pwr_exit(csemu_acpi->comp, csemu_acpi->n);
	kfree(csemu_acpi);
	csemu_acpi = NULL;
}
#else
int csemu_acpi_count(const char *soc)
{
	return -ENODEV;
}

int csemu_build_acpi(void)
{
	return -ENODEV;
}

void csemu_acpi_free(void)
{
}
#endif
