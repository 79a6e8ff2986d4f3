// SPDX-License-Identifier: GPL-2.0
/*
 * tracebuf as the driver of the CoreSight components it uses: an AMBA
 * driver, "tracebuf-cs", matching the peripheral IDs the kernel's
 * coresight-etm4x, -tmc, -funnel and -replicator drivers match. Bound, a
 * component gets from the device core what those drivers get: before
 * probe the amba bus attaches its power domain and enables its apb_pclk
 * (drivers/amba/bus.c: amba_probe()) and configures its DMA (the mask,
 * the IOMMU: amba_dma_configure()); runtime PM turns the clock and the
 * domain off while nothing uses it (amba_pm_runtime_suspend(), genpd).
 * atclk, where the firmware names one, is ours to turn on and off with
 * it, as funnel_runtime_suspend()/resume() do (coresight-funnel.c).
 *
 * Every register access happens under a runtime PM reference:
 * tb_cs_pm_get()/tb_cs_pm_put() around the backend's probe, and from a
 * session's setup_aux to its free_aux on every component it uses, as
 * coresight_get_ref()/coresight_put_ref() hold a path's (coresight-core.c).
 *
 * Static funnels and replicators (no registers) are platform devices
 * of their DT node or ACPI node; the platform driver below binds them
 * too, with runtime PM as the kernel's static_funnel_probe() and
 * static_replicator_probe() set it up, so that their power domain and
 * atclk are on while a session's path crosses them, as
 * coresight_grab_device() holds every device of a path, static links
 * included (coresight-core.c).
 *
 * Binding and unbinding from sysfs are suppressed, as the kernel's
 * CoreSight drivers do: a session may be using the component. A component
 * bound to another driver stays that driver's (coresight.c refuses it,
 * but for a static link: see tb_cs_check_owner()); one that is not bound when
 * tracebuf loads is bound by this driver then.
 */
#include <linux/acpi.h>
#include <linux/amba/bus.h>
#include <linux/clk.h>
#include <linux/device.h>
#include <linux/err.h>
#include <linux/of.h>
#include <linux/of_device.h>
#include <linux/platform_device.h>
#include <linux/pm_runtime.h>

#include "compat.h"
#include "cs.h"

#define TB_CS_AMBA_ID(pid)	{ .id = (pid), .mask = 0x000fffff }
/*
 * ETMs whose peripheral ID other CoreSight components share: the amba
 * bus matches them by DEVARCH and DEVTYPE too (amba_cs_uci_id_match()).
 */
#define TB_CS_AMBA_UCI_ID(pid)	{ .id = (pid), .mask = 0x000fffff, .data = tb_cs_uci_etm4 }

/* ETMv4's UCI data (coresight-etm4x-core.c: uci_id_etm4). */
static struct amba_cs_uci_id tb_cs_uci_etm4[] = {
	{
		/* DEVARCH: architect ARM, present, ARCHID ETMv4 (0x4a13) */
		.devarch	= 0x47704a13,
		.devarch_mask	= 0xfff0ffff,
		.devtype	= 0x00000013,	/* trace source of a PE */
	}
};

static const struct amba_id tb_cs_amba_ids[] = {
	/* ETMv4: coresight-etm4x-core.c's etm4_ids */
	TB_CS_AMBA_ID(0x000bb95d),		/* Cortex-A53 */
	TB_CS_AMBA_ID(0x000bb95e),		/* Cortex-A57 */
	TB_CS_AMBA_ID(0x000bb95a),		/* Cortex-A72 */
	TB_CS_AMBA_ID(0x000bb959),		/* Cortex-A73 */
	TB_CS_AMBA_UCI_ID(0x000bb9da),		/* Cortex-A35 */
	TB_CS_AMBA_UCI_ID(0x000bbd05),		/* Cortex-A55 */
	TB_CS_AMBA_UCI_ID(0x000bbd0a),		/* Cortex-A75 */
	TB_CS_AMBA_UCI_ID(0x000bbd0c),		/* Neoverse N1 */
	TB_CS_AMBA_UCI_ID(0x000bbd41),		/* Cortex-A78 */
	TB_CS_AMBA_UCI_ID(0x000f0205),		/* Qualcomm Kryo */
	TB_CS_AMBA_UCI_ID(0x000f0211),		/* Qualcomm Kryo */
	TB_CS_AMBA_UCI_ID(0x000bb802),		/* Qualcomm Kryo 385 Cortex-A55 */
	TB_CS_AMBA_UCI_ID(0x000bb803),		/* Qualcomm Kryo 385 Cortex-A75 */
	TB_CS_AMBA_UCI_ID(0x000bb805),		/* Qualcomm Kryo 4XX Cortex-A55 */
	TB_CS_AMBA_UCI_ID(0x000bb804),		/* Qualcomm Kryo 4XX Cortex-A76 */
	TB_CS_AMBA_UCI_ID(0x000bbd0d),		/* Qualcomm Kryo 5XX Cortex-A77 */
	TB_CS_AMBA_UCI_ID(0x000cc0af),		/* Marvell ThunderX2 */
	TB_CS_AMBA_UCI_ID(0x000b6d01),		/* HiSilicon Hip08 */
	TB_CS_AMBA_UCI_ID(0x000b6d02),		/* HiSilicon Hip09 */
	/* TMC: coresight-tmc-core.c's tmc_ids */
	TB_CS_AMBA_ID(0x000bb961),		/* Coresight SoC-400 TMC */
	TB_CS_AMBA_ID(0x000bb9e8),		/* Coresight SoC-600 TMC-ETR/ETS */
	TB_CS_AMBA_ID(0x000bb9e9),		/* Coresight SoC-600 TMC-ETB */
	TB_CS_AMBA_ID(0x000bb9ea),		/* Coresight SoC-600 TMC-ETF */
	/* Funnels and replicators: coresight-funnel.c, -replicator.c */
	TB_CS_AMBA_ID(0x000bb908),		/* SoC-400 funnel */
	TB_CS_AMBA_ID(0x000bb9eb),		/* SoC-600 funnel */
	TB_CS_AMBA_ID(0x000bb909),		/* SoC-400 replicator */
	TB_CS_AMBA_ID(0x000bb9ec),		/* SoC-600 replicator */
	{ 0, 0 },
};

/*
 * The ACPI IDs of the same components (tracebuf has no TPIU, STM, CATU or
 * debug driver). Which bus their devices are on depends on the kernel:
 * 6.1 makes AMBA devices of them (drivers/acpi/acpi_amba.c:
 * amba_id_list), and the amba bus matches a device by its peripheral ID
 * alone (drivers/amba/bus.c: amba_match()), so for the AMBA driver the
 * table is only its ACPI binding (acpi_match_device()); later kernels
 * make platform devices of them (Debian's 6.12: amba_id_list has none of
 * them, and its coresight-etm4x, -tmc, -funnel and -replicator modules
 * are platform drivers with these IDs), which the platform driver below
 * matches by this table (drivers/base/platform.c: platform_match(),
 * acpi_driver_match_device()). The static funnel and replicator
 * (tb_cs_static_acpi_ids) are platform devices on every kernel (6.1's
 * amba_id_list has neither, so drivers/acpi/scan.c's default enumeration
 * makes platform devices of them: acpi_default_enumeration()), matched
 * by the platform driver only.
 */
static const struct acpi_device_id tb_cs_acpi_ids[] = {
	{ "ARMHC500" },		/* ETMv4 */
	{ "ARMHC501" },		/* ETR */
	{ "ARMHC97C" },		/* SoC-400 TMC, SoC-600 ETF/ETB */
	{ "ARMHC98D" },		/* dynamic replicator */
	{ "ARMHC9FF" },		/* dynamic funnel */
	{ }
};

/*
 * Static links: coresight-funnel.c's static_funnel_ids and
 * coresight-replicator.c's static_replicator_acpi_ids.
 */
static const struct acpi_device_id tb_cs_static_acpi_ids[] = {
	{ "ARMHC9FE" },		/* static funnel */
	{ "ARMHC985" },		/* static replicator */
	{ }
};

/*
 * The platform driver's ACPI table: the components above (platform
 * devices on later kernels) and the static links.
 */
static const struct acpi_device_id tb_cs_platform_acpi_ids[] = {
	{ "ARMHC500" },
	{ "ARMHC501" },
	{ "ARMHC97C" },
	{ "ARMHC98D" },
	{ "ARMHC9FF" },
	{ "ARMHC9FE" },
	{ "ARMHC985" },
	{ }
};

/*
 * Static links in the device tree: the compatibles tracebuf's discovery
 * knows (coresight.c: tb_cs_of_kinds), as coresight-funnel.c's
 * static_funnel_match and coresight-replicator.c's
 * static_replicator_match have them (the latter's obsolete
 * "arm,coresight-replicator" is not discovered, so not bound either).
 */
static const struct of_device_id tb_cs_static_of_ids[] = {
	{ .compatible = "arm,coresight-static-funnel" },
	{ .compatible = "arm,coresight-static-replicator" },
	{ }
};

/* drvdata: the component's atclk (NULL: none), on while the device is active. */
static int tb_cs_amba_probe(struct amba_device *adev, const struct amba_id *id)
{
	struct device *dev = &adev->dev;
	struct clk *atclk;
	int ret;

	atclk = devm_clk_get_optional(dev, "atclk");
	if (IS_ERR(atclk))
		return PTR_ERR(atclk);
	/* Active since amba_probe(): its apb_pclk is on, atclk too now. */
	ret = clk_prepare_enable(atclk);
	if (ret)
		return ret;
	dev_set_drvdata(dev, atclk);
	/* amba_probe()'s pm_runtime_get_noresume(): idle until used. */
	pm_runtime_put(dev);
	return 0;
}

static void tb_cs_amba_remove(struct amba_device *adev)
{
	/* amba_remove() resumed it: atclk is on. */
	clk_disable_unprepare(dev_get_drvdata(&adev->dev));
}

#ifdef CONFIG_PM
static int tb_cs_runtime_suspend(struct device *dev)
{
	clk_disable_unprepare(dev_get_drvdata(dev));
	return 0;
}

static int tb_cs_runtime_resume(struct device *dev)
{
	return clk_prepare_enable(dev_get_drvdata(dev));
}
#endif

static const struct dev_pm_ops tb_cs_pm_ops = {
	SET_RUNTIME_PM_OPS(tb_cs_runtime_suspend, tb_cs_runtime_resume, NULL)
};

static struct amba_driver tb_cs_amba_driver = {
	.drv = {
		.name			= "tracebuf-cs",
		.owner			= THIS_MODULE,
		.pm			= &tb_cs_pm_ops,
		.acpi_match_table	= ACPI_PTR(tb_cs_acpi_ids),
		.suppress_bind_attrs	= true,
	},
	.probe		= tb_cs_amba_probe,
	.remove		= tb_cs_amba_remove,
	.id_table	= tb_cs_amba_ids,
};

/*
 * The same components as platform devices (ACPI on later kernels, see
 * tb_cs_acpi_ids), and the static links (DT or ACPI): runtime PM as the
 * kernel's CoreSight platform drivers set it up (coresight-funnel.c:
 * funnel_platform_probe(), static_funnel_probe(); coresight-replicator.c:
 * static_replicator_probe()), which the amba bus does for an AMBA driver
 * (amba_probe()); atclk as above (funnel_probe() takes a static funnel's
 * too). Nothing here touches registers: a static link has none.
 */
static int tb_cs_platform_probe(struct platform_device *pdev)
{
	struct device *dev = &pdev->dev;
	struct clk *atclk;
	int ret;

	atclk = devm_clk_get_optional(dev, "atclk");
	if (IS_ERR(atclk))
		return PTR_ERR(atclk);
	ret = clk_prepare_enable(atclk);
	if (ret)
		return ret;
	dev_set_drvdata(dev, atclk);
	pm_runtime_get_noresume(dev);
	pm_runtime_set_active(dev);
	pm_runtime_enable(dev);
	pm_runtime_put(dev);
	return 0;
}

static TB_PLATFORM_REMOVE_T tb_cs_platform_remove(struct platform_device *pdev)
{
	struct device *dev = &pdev->dev;

	/* Active, as amba_remove() makes an AMBA device: atclk is on. */
	pm_runtime_get_sync(dev);
	clk_disable_unprepare(dev_get_drvdata(dev));
	pm_runtime_disable(dev);
	pm_runtime_set_suspended(dev);
	pm_runtime_put_noidle(dev);
	return TB_PLATFORM_REMOVE_OK;
}

static struct platform_driver tb_cs_platform_driver = {
	.driver = {
		.name			= "tracebuf-cs",
		.owner			= THIS_MODULE,
		.pm			= &tb_cs_pm_ops,
		.of_match_table		= of_match_ptr(tb_cs_static_of_ids),
		.acpi_match_table	= ACPI_PTR(tb_cs_platform_acpi_ids),
		.suppress_bind_attrs	= true,
	},
	.probe		= tb_cs_platform_probe,
	.remove		= tb_cs_platform_remove,
};

static bool tb_cs_drv_registered;
static bool tb_cs_pdrv_registered;

bool tb_cs_drv_ours(const struct device *dev)
{
	return dev && ((tb_cs_drv_registered && dev->driver == &tb_cs_amba_driver.drv) ||
		       (tb_cs_pdrv_registered && dev->driver == &tb_cs_platform_driver.driver));
}

/*
 * An AMBA component is clocked and powered only through its driver: one
 * that no driver holds cannot be used.
 */
bool tb_cs_drv_needs_binding(const struct device *dev)
{
	if (!dev || dev->driver)
		return false;
#ifdef CONFIG_ARM_AMBA
	if (dev->bus == &amba_bustype)
		return true;
#endif
	/* A platform device of one of our IDs (clocked, powered by its driver). */
	return dev->bus == &platform_bus_type &&
	       (acpi_match_device(tb_cs_platform_acpi_ids, dev) ||
		of_match_device(tb_cs_static_of_ids, dev));
}

/*
 * A static funnel or replicator's platform device (DT or ACPI), whatever
 * its driver. Process context (acpi_match_device() takes a mutex).
 */
bool tb_cs_drv_static(const struct device *dev)
{
	return dev && dev->bus == &platform_bus_type &&
	       (acpi_match_device(tb_cs_static_acpi_ids, dev) ||
		of_match_device(tb_cs_static_of_ids, dev));
}

/*
 * Tests only: leave out every runtime PM reference, to show that the
 * register accesses then find the component unclocked or unpowered.
 */
static bool tb_cs_skip_pm;
module_param_named(test_skip_pm, tb_cs_skip_pm, bool, 0600);
MODULE_PARM_DESC(test_skip_pm, "tests only: take no runtime PM reference on CoreSight components");

/* Whether callers take runtime PM references now (tests turn it off). */
bool tb_cs_pm_wanted(void)
{
	return !READ_ONCE(tb_cs_skip_pm);
}

/*
 * A runtime PM reference on dev, if this driver holds it: its clocks
 * and its power domain on until tb_cs_pm_put(). Process context.
 * Components of other kinds (none, or an emulator's own devices) need
 * none: 0. (A static link another driver holds: coresight.c takes its
 * reference itself, see tb_cs_check_owner().)
 */
int tb_cs_pm_get(struct device *dev)
{
	return tb_cs_drv_ours(dev) ? pm_runtime_resume_and_get(dev) : 0;
}

/* Gives back tb_cs_pm_get()'s reference; any context. */
void tb_cs_pm_put(struct device *dev)
{
	if (tb_cs_drv_ours(dev))
		pm_runtime_put(dev);
}

/*
 * Before discovery: every unbound component that matches is ours from
 * here. A kernel without the amba bus has no such component: 0 then.
 */
int tb_cs_drv_init(void)
{
	int ret;

	if (IS_ENABLED(CONFIG_ACPI) || IS_ENABLED(CONFIG_OF)) {
		ret = platform_driver_register(&tb_cs_platform_driver);
		if (ret)
			return ret;
		tb_cs_pdrv_registered = true;
	}
	if (!IS_ENABLED(CONFIG_ARM_AMBA))
		return 0;
	ret = amba_driver_register(&tb_cs_amba_driver);
	if (!ret)
		tb_cs_drv_registered = true;
	return ret;
}

void tb_cs_drv_exit(void)
{
	if (tb_cs_drv_registered)
		amba_driver_unregister(&tb_cs_amba_driver);
	tb_cs_drv_registered = false;
	if (tb_cs_pdrv_registered)
		platform_driver_unregister(&tb_cs_platform_driver);
	tb_cs_pdrv_registered = false;
}
