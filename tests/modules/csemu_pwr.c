// SPDX-License-Identifier: GPL-2.0
/*
 * tb_csemu: the clocks and the power domain of an emulated SoC, and the
 * AMBA devices its components are (device-tree topologies only: juno,
 * msm8916).
 *
 * The guest's device tree (tests/host/csdt.c) points every component's
 * clocks (its clock-names: apb_pclk, atclk) at clock 2 * k + i of the
 * SoC's controller node (tracebuf,csemu-soc) and its power-domains at
 * the controller's one domain, as every Juno CoreSight component is in
 * the one debug power domain (juno-base.dtsi: power-domains =
 * <&scpi_devpd 0>). Here the controller is a clock provider of gate
 * clocks and a generic PM domain, each recording whether it is on:
 *
 *  - a register access while one of the component's clocks is off is a
 *    violation (CV_UNCLOCKED): without apb_pclk the component's APB
 *    interface does not answer. The kernel enables it before any access
 *    (drivers/amba/bus.c: amba_probe()'s amba_get_enable_pclk(), and
 *    amba_pm_runtime_resume() after amba_pm_runtime_suspend() turned it
 *    off) and the coresight drivers enable atclk in their runtime PM
 *    resume (coresight-etm4x-core.c: etm4_runtime_resume());
 *  - and while its power domain is off (CV_UNPOWERED): an access to a
 *    powered-down debug domain gets an error response, an SError on the
 *    CPU (Juno r2 TRM, ARM DDI0515, 2.6 "Power domains": the debug
 *    domain is powered on request only). genpd powers the domain off
 *    once every device in it is runtime-suspended (drivers/base/power/
 *    domain.c: genpd_power_off()), and on before a device in it resumes
 *    (genpd_runtime_resume()).
 *
 * The access then reads 0 or is dropped. When the domain goes down, its
 * funnels, replicators and TMCs lose their state: their registers are at
 * their reset values when it comes up (csemu_dt_power_lost()).
 *
 * Each component becomes an AMBA device of its node, made as
 * of_amba_device_create() makes one (drivers/of/platform.c; the
 * peripheral ID from arm,primecell-periphid, so that nothing is read),
 * in a resource tree of our own (the SoC's addresses are the virt
 * machine's), with driver_override "tracebuf-cs": the amba bus attaches
 * the power domain and enables apb_pclk when tracebuf's driver probes it,
 * and runtime PM does the rest. This module never enables them itself.
 */
#include <linux/acpi.h>
#include <linux/amba/bus.h>
#include <linux/clk-provider.h>
#include <linux/of.h>
#include <linux/of_address.h>
#include <linux/platform_device.h>
#include <linux/pm_domain.h>

#include "csemu.h"

#define CSEMU_MAX_CLKS	(2 * CSEMU_DT_MAX)

struct csemu_clk {
	struct clk_hw hw;
	bool on;			/* enabled; READ_ONCE by the accessors */
	char name[32];
};

static struct csemu_clk *csemu_clks;
static unsigned int csemu_nr_clks;
static struct device_node *csemu_ctl;	/* the controller: clock and domain provider */
static bool csemu_clk_provider;
/* The domain, off until genpd powers it on. */
static bool csemu_pd_on;
static unsigned int csemu_in_domain;	/* components in it */
static u64 csemu_pd_ons, csemu_pd_offs, csemu_pd_lost;
#ifdef CONFIG_PM_GENERIC_DOMAINS_OF
static struct generic_pm_domain csemu_pd;
static bool csemu_pd_registered;
#endif

/* Every component is in this resource tree: none is in iomem_resource. */
static struct resource csemu_iomem = {
	.name	= "tb_csemu",
	.start	= 0,
	.end	= (resource_size_t)~0ULL,
	.flags	= IORESOURCE_MEM,
};

static int csemu_clk_enable(struct clk_hw *hw)
{
	WRITE_ONCE(container_of(hw, struct csemu_clk, hw)->on, true);
	return 0;
}

static void csemu_clk_disable(struct clk_hw *hw)
{
	WRITE_ONCE(container_of(hw, struct csemu_clk, hw)->on, false);
}

static int csemu_clk_is_enabled(struct clk_hw *hw)
{
	return READ_ONCE(container_of(hw, struct csemu_clk, hw)->on);
}

static const struct clk_ops csemu_clk_ops = {
	.enable		= csemu_clk_enable,
	.disable	= csemu_clk_disable,
	.is_enabled	= csemu_clk_is_enabled,
};

static struct clk_hw *csemu_clk_get(struct of_phandle_args *spec, void *data)
{
	if (spec->args_count != 1 || spec->args[0] >= csemu_nr_clks)
		return ERR_PTR(-EINVAL);
	return &csemu_clks[spec->args[0]].hw;
}

#ifdef CONFIG_PM_GENERIC_DOMAINS_OF
static int csemu_pd_power_on(struct generic_pm_domain *pd)
{
	WRITE_ONCE(csemu_pd_on, true);
	csemu_pd_ons++;
	return 0;
}

static int csemu_pd_power_off(struct generic_pm_domain *pd)
{
	WRITE_ONCE(csemu_pd_on, false);
	csemu_pd_offs++;
	csemu_pd_lost += csemu_dt_power_lost();
	return 0;
}

/*
 * The domain's device (pm_genpd_init() initialises it) is static here:
 * nothing to free when pm_genpd_remove() drops the last reference.
 */
static void csemu_pd_release(struct device *dev)
{
}
#endif

/* The controller's clock indices component np uses, into c. */
static void csemu_pwr_clocks(struct device_node *np, struct csemu_comp *c)
{
	struct of_phandle_args spec;
	int i;

	for (i = 0; c->nclk < ARRAY_SIZE(c->clk) &&
	     !of_parse_phandle_with_args(np, "clocks", "#clock-cells", i, &spec); i++) {
		if (spec.np == csemu_ctl && spec.args_count == 1 &&
		    spec.args[0] < csemu_nr_clks)
			c->clk[c->nclk++] = spec.args[0];
		of_node_put(spec.np);
	}
	c->pd = of_find_property(np, "power-domains", NULL);
	csemu_in_domain += c->pd;
}

/*
 * The providers, on the container's controller node ctl, before any
 * component's device exists: as many gate clocks as the components'
 * clocks name, and the domain.
 */
int csemu_pwr_init(struct device_node *soc)
{
	struct of_phandle_args spec;
	struct device_node *np;
	unsigned int n = 0, i;
	int ret;

	for_each_child_of_node(soc, np)
		if (of_device_is_compatible(np, "tracebuf,csemu-soc")) {
			csemu_ctl = np;		/* the reference is ours */
			break;
		}
	if (!csemu_ctl)
		return -ENODEV;
	for_each_child_of_node(soc, np)
		for (i = 0; !of_parse_phandle_with_args(np, "clocks", "#clock-cells", i, &spec);
		     i++) {
			if (spec.np == csemu_ctl && spec.args_count == 1)
				n = max(n, spec.args[0] + 1);
			of_node_put(spec.np);
		}
	n = min_t(unsigned int, n, CSEMU_MAX_CLKS);
	csemu_clks = kcalloc(max(n, 1U), sizeof(*csemu_clks), GFP_KERNEL);
	if (!csemu_clks)
		return -ENOMEM;
	for (i = 0; i < n; i++) {
		struct csemu_clk *c = &csemu_clks[i];
		struct clk_init_data init = {
			.name	= c->name,
			.ops	= &csemu_clk_ops,
		};

		snprintf(c->name, sizeof(c->name), "csemu-clk%u", i);
		c->hw.init = &init;
		ret = clk_hw_register(NULL, &c->hw);
		if (ret)
			return ret;
		csemu_nr_clks = i + 1;
	}
	ret = of_clk_add_hw_provider(csemu_ctl, csemu_clk_get, NULL);
	if (ret)
		return ret;
	csemu_clk_provider = true;
#ifdef CONFIG_PM_GENERIC_DOMAINS_OF
	csemu_pd.name = "csemu-debug";
	csemu_pd.power_on = csemu_pd_power_on;
	csemu_pd.power_off = csemu_pd_power_off;
	csemu_pd.dev.release = csemu_pd_release;
	ret = pm_genpd_init(&csemu_pd, NULL, true);
	if (ret)
		return ret;
	csemu_pd_registered = true;
	ret = of_genpd_add_provider_simple(csemu_ctl, &csemu_pd);
	if (ret)
		return ret;
#else
	/* No runtime PM in this kernel: nothing powers the domain off. */
	csemu_pd_on = true;
#endif
	return 0;
}

/*
 * Set (name) or clear (NULL) the device's driver override. Cleared
 * before the device goes: 6.1's amba_device_release() never frees it.
 */
#ifdef CSEMU_DEVICE_DRIVER_OVERRIDE
#define CSEMU_OVERRIDE_FIELD(d)	NULL		/* the device core's */
#else
#define CSEMU_OVERRIDE_FIELD(d)	(&(d)->driver_override)	/* the bus device's */
#endif

static int csemu_pwr_override(struct device *dev, const char **field, const char *name)
{
#ifdef CSEMU_DEVICE_DRIVER_OVERRIDE
	return device_set_driver_override(dev, name);
#else
	return driver_set_override(dev, field, name ? name : "", name ? strlen(name) : 0);
#endif
}

/*
 * Component c of node np as an AMBA device for tracebuf's driver: bound
 * when this returns, or an error.
 */
int csemu_pwr_device(struct device_node *np, struct csemu_comp *c)
{
	const __be32 *reg;
	u64 base = 0;
	u32 pid = 0;

	csemu_pwr_clocks(np, c);
	reg = of_get_address(np, 0, NULL, NULL);
	if (reg)
		base = of_read_number(reg, of_n_addr_cells(np));
	of_property_read_u32(np, "arm,primecell-periphid", &pid);
	return csemu_pwr_amba_device(kbasename(np->full_name), base, pid, np, NULL, c);
}

/*
 * Component c as an AMBA device named name at base with peripheral ID
 * pid, of DT node np or ACPI node companion (acpi_amba.c's
 * amba_handler_attach() sets the companion so), for tracebuf's driver:
 * bound when this returns, or an error.
 */
int csemu_pwr_amba_device(const char *name, u64 base, u32 pid, struct device_node *np,
			  struct acpi_device *companion, struct csemu_comp *c)
{
	struct amba_device *adev;
	int ret;

	adev = amba_device_alloc(name, base, SZ_4K);
	if (!adev)
		return -ENOMEM;
	adev->periphid = pid;
	adev->dev.of_node = of_node_get(np);	/* put by amba_device_release() */
	if (companion)
		ACPI_COMPANION_SET(&adev->dev, companion);
	adev->dev.coherent_dma_mask = DMA_BIT_MASK(32);
	ret = csemu_pwr_override(&adev->dev, CSEMU_OVERRIDE_FIELD(adev), "tracebuf-cs");
	if (ret) {
		amba_device_put(adev);
		return ret;
	}
	ret = amba_device_add(adev, &csemu_iomem);
	if (ret) {
		csemu_pwr_override(&adev->dev, CSEMU_OVERRIDE_FIELD(adev), NULL);
		amba_device_put(adev);
		return ret;
	}
	c->dev = &adev->dev;
	if (!adev->dev.driver) {
		pr_err("tb_csemu: %s: tracebuf's driver did not bind\n", c->name);
		return -ENODEV;
	}
	return 0;
}

/*
 * Component c as a platform device of ACPI node companion, as later
 * kernels make one of a CoreSight ID (see csemu_acpi.c): no resources
 * (nothing reads them; the emulator's addresses stay out of
 * iomem_resource), driver_override "tracebuf-cs"; bound when this
 * returns, or an error.
 */
int csemu_pwr_platform_device(const char *name, struct acpi_device *companion,
			      struct csemu_comp *c)
{
	struct platform_device *pdev;
	int ret;

	pdev = platform_device_alloc(name, PLATFORM_DEVID_NONE);
	if (!pdev)
		return -ENOMEM;
	ACPI_COMPANION_SET(&pdev->dev, companion);
	ret = csemu_pwr_override(&pdev->dev, CSEMU_OVERRIDE_FIELD(pdev), "tracebuf-cs");
	if (!ret)
		ret = platform_device_add(pdev);
	if (ret) {
		csemu_pwr_override(&pdev->dev, CSEMU_OVERRIDE_FIELD(pdev), NULL);
		platform_device_put(pdev);
		return ret;
	}
	c->dev = &pdev->dev;
	if (!pdev->dev.driver) {
		pr_err("tb_csemu: %s: tracebuf's driver did not bind\n", c->name);
		return -ENODEV;
	}
	return 0;
}

/* Under csemu_lock: may c's registers be accessed? A violation if not. */
bool csemu_pwr_ok(struct csemu_comp *c)
{
	unsigned int i;

	for (i = 0; i < c->nclk; i++)
		if (!READ_ONCE(csemu_clks[c->clk[i]].on)) {
			csemu_violation(c, CV_UNCLOCKED);
			return false;
		}
	if (c->pd && !READ_ONCE(csemu_pd_on)) {
		csemu_violation(c, CV_UNPOWERED);
		return false;
	}
	return true;
}

/* Every device first (they leave the domain), then the providers. */
void csemu_pwr_exit(struct csemu_comp *const *comps, unsigned int n)
{
	unsigned int i;

	for (i = 0; i < n; i++)
		if (comps[i]->dev) {
			struct device *dev = comps[i]->dev;
			struct platform_device *pdev;
			struct amba_device *adev;

			if (dev->bus == &platform_bus_type) {
				pdev = to_platform_device(dev);
				csemu_pwr_override(dev, CSEMU_OVERRIDE_FIELD(pdev), NULL);
				platform_device_unregister(pdev);
			} else {
				adev = to_amba_device(dev);
				csemu_pwr_override(dev, CSEMU_OVERRIDE_FIELD(adev), NULL);
				amba_device_unregister(adev);
			}
			comps[i]->dev = NULL;
		}
#ifdef CONFIG_PM_GENERIC_DOMAINS_OF
	if (csemu_pd_registered) {
		of_genpd_del_provider(csemu_ctl);
		if (pm_genpd_remove(&csemu_pd))
			pr_warn("tb_csemu: the power domain still has devices\n");
		csemu_pd_registered = false;
	}
#endif
	if (csemu_clk_provider)
		of_clk_del_provider(csemu_ctl);
	csemu_clk_provider = false;
	for (i = 0; i < csemu_nr_clks; i++)
		clk_hw_unregister(&csemu_clks[i].hw);
	csemu_nr_clks = 0;
	csemu_in_domain = 0;
	kfree(csemu_clks);
	csemu_clks = NULL;
	of_node_put(csemu_ctl);
	csemu_ctl = NULL;
}

/*
 * debugfs power: whether this kernel turns them off at all (runtime PM
 * and genpd: CONFIG_PM, CONFIG_PM_GENERIC_DOMAINS_OF), the components in
 * the domain, the clocks on, each clock's state, the domain's and its
 * transitions, and how many components lost their state in its
 * power-downs.
 */
static int csemu_power_show(struct seq_file *m, void *v)
{
	unsigned int i;

	unsigned int on = 0;

	for (i = 0; i < csemu_nr_clks; i++)
		on += READ_ONCE(csemu_clks[i].on);
	seq_printf(m, "runtime_pm %d\nin_domain %u\nclocks_on %u\n",
		   IS_ENABLED(CONFIG_PM) && IS_ENABLED(CONFIG_PM_GENERIC_DOMAINS_OF),
		   csemu_in_domain, on);
	for (i = 0; i < csemu_nr_clks; i++)
		seq_printf(m, "clk%u %d\n", i, READ_ONCE(csemu_clks[i].on));
	seq_printf(m, "domain %d\ndomain_ons %llu\ndomain_offs %llu\nstate_lost %llu\n",
		   READ_ONCE(csemu_pd_on), csemu_pd_ons, csemu_pd_offs, csemu_pd_lost);
	return 0;
}
DEFINE_SHOW_ATTRIBUTE(csemu_power);

void csemu_pwr_debugfs(struct dentry *dir)
{
	if (csemu_ctl)
		debugfs_create_file("power", 0444, dir, NULL, &csemu_power_fops);
}
