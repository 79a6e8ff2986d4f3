/* SPDX-License-Identifier: GPL-2.0 */
/*
 * ARM CoreSight at the register level: ETMv4 (ARM IHI0064) and TMC
 * (ARM DDI0461: ETB, ETF and ETR configurations) register offsets and
 * bits, the ETR scatter-gather entry format, and the one indirection
 * between the backend and the registers.
 *
 * The backend (coresight.c, cs_etm.c, cs_tmc.c) reaches the hardware only
 * through struct tb_cs_io. On a real machine that is readl_relaxed() /
 * writel_relaxed() on an ioremap()ed component; a register-level emulator
 * (tb_csemu, tests/modules/csemu_*.c) registers its own accessors and components.
 * Nothing else differs between the two.
 */
#ifndef _TRACEBUF_CS_HW_H
#define _TRACEBUF_CS_HW_H

#include <linux/bits.h>
#include <linux/types.h>

struct device;
struct device_node;
struct acpi_device;
struct module;

/* Every CoreSight component (management registers) */
#define TB_CS_CLAIMSET			0xfa0
#define TB_CS_CLAIMCLR			0xfa4	/* reads the claim tags */
#define TB_CS_LAR			0xfb0
#define TB_CS_LSR			0xfb4
#define TB_CS_AUTHSTATUS		0xfb8
#define TB_CS_DEVARCH			0xfbc
#define TB_CS_DEVID			0xfc8
#define TB_CS_DEVTYPE			0xfcc
#define TB_CS_PIDR0			0xfe0
#define TB_CS_CIDR0			0xff0
#define TB_CS_UNLOCK_KEY		0xc5acce55
#define TB_CS_LSR_SLI			BIT(0)	/* lock implemented */
#define TB_CS_LSR_SLK			BIT(1)	/* locked */
#define TB_CS_CLAIM_EXTERNAL		BIT(0)	/* an external debugger */
#define TB_CS_CLAIM_SELF_HOSTED		BIT(1)	/* software on this system */

/* ETMv4 trace unit */
#define TB_ETM_TRCPRGCTLR		0x004
#define TB_ETM_TRCPROCSELR		0x008
#define TB_ETM_TRCSTATR			0x00c
#define TB_ETM_TRCCONFIGR		0x010
#define TB_ETM_TRCAUXCTLR		0x018
#define TB_ETM_TRCEVENTCTL0R		0x020
#define TB_ETM_TRCEVENTCTL1R		0x024
#define TB_ETM_TRCRSR			0x028
#define TB_ETM_TRCSTALLCTLR		0x02c
#define TB_ETM_TRCTSCTLR		0x030
#define TB_ETM_TRCSYNCPR		0x034
#define TB_ETM_TRCCCCTLR		0x038
#define TB_ETM_TRCBBCTLR		0x03c
#define TB_ETM_TRCTRACEIDR		0x040
#define TB_ETM_TRCQCTLR			0x044
#define TB_ETM_TRCVICTLR		0x080
#define TB_ETM_TRCVIIECTLR		0x084
#define TB_ETM_TRCVISSCTLR		0x088
#define TB_ETM_TRCSEQEVR(n)		(0x100 + 4 * (n))
#define TB_ETM_TRCSEQRSTEVR		0x118
#define TB_ETM_TRCSEQSTR		0x11c
#define TB_ETM_TRCEXTINSELR		0x120
#define TB_ETM_TRCCNTRLDVR(n)		(0x140 + 4 * (n))
#define TB_ETM_TRCCNTCTLR(n)		(0x150 + 4 * (n))
#define TB_ETM_TRCCNTVR(n)		(0x160 + 4 * (n))
#define TB_ETM_TRCIDR8			0x180	/* TRCIDR8..13 at 0x180 + 4 * (n - 8) */
#define TB_ETM_TRCIDR0			0x1e0	/* TRCIDR0..7 at 0x1e0 + 4 * n */
#define TB_ETM_TRCRSCTLR(n)		(0x200 + 4 * (n))
#define TB_ETM_TRCSSCCR(n)		(0x280 + 4 * (n))
#define TB_ETM_TRCSSCSR(n)		(0x2a0 + 4 * (n))
#define TB_ETM_TRCOSLAR			0x300
#define TB_ETM_TRCOSLSR			0x304
#define TB_ETM_TRCPDCR			0x310
#define TB_ETM_TRCPDSR			0x314
#define TB_ETM_TRCACVR(n)		(0x400 + 8 * (n))	/* 64-bit: lo, hi */
#define TB_ETM_TRCACATR(n)		(0x480 + 8 * (n))	/* 64-bit: lo, hi */
#define TB_ETM_TRCCIDCVR(n)		(0x600 + 8 * (n))
#define TB_ETM_TRCVMIDCVR(n)		(0x640 + 8 * (n))
#define TB_ETM_TRCCIDCCTLR0		0x680
#define TB_ETM_TRCVMIDCCTLR0		0x688

#define TB_ETM_NR_IDR			14

/* TRCIDR0..7 at 0x1e0, TRCIDR8..13 at 0x180. */
static inline u32 tb_etm_idr_off(unsigned int n)
{
	return n < 8 ? 0x1e0 + 4 * n : 0x180 + 4 * (n - 8);
}

#define TB_ETM_MAX_ADDR_RANGES		4	/* address comparator pairs used */

/* TRCPRGCTLR, TRCSTATR, TRCPDCR, TRCOSLSR */
#define TB_ETM_PRGCTLR_EN		BIT(0)
#define TB_ETM_STATR_IDLE		BIT(0)
#define TB_ETM_STATR_PMSTABLE		BIT(1)
#define TB_ETM_PDCR_PU			BIT(3)
#define TB_ETM_OSLSR_OSLM		(BIT(3) | BIT(0))	/* OSLM[2:1] at 4:3, OSLM[0] at 0 */
#define TB_ETM_OSLSR_OSLK		BIT(1)	/* the OS lock is set */
/* TRCPDSR */
#define TB_ETM_PDSR_POWER		BIT(0)
#define TB_ETM_PDSR_STICKYPD		BIT(1)
#define TB_ETM_PDSR_OSLK		BIT(5)

/* TRCCONFIGR */
#define TB_ETM_CONFIGR_BB		BIT(3)	/* branch broadcast */
#define TB_ETM_CONFIGR_CCI		BIT(4)	/* cycle counting */
#define TB_ETM_CONFIGR_CID		BIT(6)	/* context ID */
#define TB_ETM_CONFIGR_VMID		BIT(7)
#define TB_ETM_CONFIGR_TS		BIT(11)	/* global timestamps */
#define TB_ETM_CONFIGR_RS		BIT(12)	/* return stack */
#define TB_ETM_CONFIGR_VMIDOPT		BIT(15)

/* TRCVICTLR */
#define TB_ETM_VICTLR_EVENT		GENMASK(7, 0)
#define TB_ETM_VICTLR_EVENT_TRUE	0x01	/* resource selector 1: always */
#define TB_ETM_VICTLR_SSSTATUS		BIT(9)	/* start/stop logic started */
#define TB_ETM_VICTLR_TRCRESET		BIT(10)
#define TB_ETM_VICTLR_TRCERR		BIT(11)
#define TB_ETM_VICTLR_EXLEVEL_S_SHIFT	16	/* [19:16] exclude Secure EL0..3 */
#define TB_ETM_VICTLR_EXLEVEL_S_MASK	GENMASK(19, 16)
#define TB_ETM_VICTLR_EXLEVEL_NS_SHIFT	20	/* [23:20] exclude Non-secure EL0..3 */
#define TB_ETM_VICTLR_EXLEVEL_NS(el)	BIT(20 + (el))
#define TB_ETM_VICTLR_EXLEVEL_S(el)	BIT(16 + (el))

/* TRCVIIECTLR: include [7:0], exclude [23:16], one bit per range pair */
#define TB_ETM_VIIECTLR_INCLUDE(n)	BIT(n)
#define TB_ETM_VIIECTLR_EXCLUDE(n)	BIT(16 + (n))

/* TRCACATRn: TYPE [1:0] 0 = instruction address; EXLEVEL_NS [14:12] */
#define TB_ETM_ACATR_TYPE		GENMASK(1, 0)	/* 0b00: instruction address */
#define TB_ETM_ACATR_CONTEXTTYPE	GENMASK(3, 2)	/* 0b00: no context comparison */
#define TB_ETM_ACATR_EXLEVEL_S_SHIFT	8
#define TB_ETM_ACATR_EXLEVEL_S_MASK	GENMASK(11, 8)
#define TB_ETM_ACATR_EXLEVEL_NS_SHIFT	12

/* TRCRSCTLRn: GROUP [19:16], SELECT [15:0]; group 2 = counter at zero */
#define TB_ETM_RSCTLR_GROUP_SHIFT	16
#define TB_ETM_RSCTLR_GROUP_CNTR	0x2
/* TRCCNTCTLRn: RLDSELF bit 16, RLDEVENT [15:8], CNTEVENT [7:0] */
#define TB_ETM_CNTCTLR_RLDSELF		BIT(16)
/* TRCTSCTLR: EVENT [7:0], a resource selector number */

/* TRCIDR0 */
#define TB_ETM_IDR0_INSTP0		GENMASK(2, 1)
#define TB_ETM_IDR0_TRCBB		BIT(5)
#define TB_ETM_IDR0_TRCCOND		BIT(6)
#define TB_ETM_IDR0_TRCCCI		BIT(7)
#define TB_ETM_IDR0_RETSTACK		BIT(9)
#define TB_ETM_IDR0_NUMEVENT		GENMASK(11, 10)
#define TB_ETM_IDR0_TSSIZE		GENMASK(28, 24)	/* 0 none, 6: 48 bit, 8: 64 bit */
/* TRCIDR1 */
#define TB_ETM_IDR1_REVISION		GENMASK(3, 0)
#define TB_ETM_IDR1_ARCHMIN		GENMASK(7, 4)
#define TB_ETM_IDR1_ARCHMAJ		GENMASK(11, 8)	/* 4 for ETMv4 */
#define TB_ETM_IDR1_DESIGNER		GENMASK(31, 24)
/* TRCIDR2 */
#define TB_ETM_IDR2_IASIZE		GENMASK(4, 0)
#define TB_ETM_IDR2_CIDSIZE		GENMASK(9, 5)	/* 0: no context ID tracing */
#define TB_ETM_IDR2_VMIDSIZE		GENMASK(14, 10)	/* 0: no VMID tracing */
#define TB_ETM_IDR2_CCSIZE		GENMASK(28, 25)	/* counter is 12 + CCSIZE bits */
/* TRCIDR3 */
#define TB_ETM_IDR3_CCITMIN		GENMASK(11, 0)	/* smallest cycle threshold */
#define TB_ETM_IDR3_EXLEVEL_S		GENMASK(19, 16)	/* ELs implemented, Secure */
#define TB_ETM_IDR3_EXLEVEL_NS		GENMASK(23, 20)	/* ELs implemented, Non-secure */
#define TB_ETM_IDR3_TRCERR		BIT(24)
#define TB_ETM_IDR3_SYNCPR		BIT(25)	/* TRCSYNCPR is read-only */
#define TB_ETM_IDR3_STALLCTL		BIT(26)
#define TB_ETM_IDR3_NUMPROC		GENMASK(30, 28)
#define TB_ETM_IDR3_NOOVERFLOW		BIT(31)
/* TRCIDR4 */
#define TB_ETM_IDR4_NUMACPAIRS		GENMASK(3, 0)
#define TB_ETM_IDR4_NUMPC		GENMASK(15, 12)
#define TB_ETM_IDR4_NUMRSPAIR		GENMASK(19, 16)	/* pairs - 1 */
#define TB_ETM_IDR4_NUMSSCC		GENMASK(23, 20)
#define TB_ETM_IDR4_NUMCIDC		GENMASK(27, 24)
#define TB_ETM_IDR4_NUMVMIDC		GENMASK(31, 28)
/* TRCIDR5 */
#define TB_ETM_IDR5_TRACEIDSIZE		GENMASK(21, 16)
#define TB_ETM_IDR5_NUMSEQSTATE		GENMASK(27, 25)
#define TB_ETM_IDR5_NUMCNTR		GENMASK(30, 28)

/* Trace IDs: 7 bits; 0x00 and 0x70..0x7f are reserved (ARM IHI0029). */
#define TB_CS_TRACE_ID_FIRST		0x10
#define TB_CS_TRACE_ID_LAST		0x6f

/* TMC */
#define TB_TMC_RSZ			0x004	/* buffer size, 32-bit words */
#define TB_TMC_STS			0x00c
#define TB_TMC_RRD			0x010
#define TB_TMC_RRP			0x014
#define TB_TMC_RWP			0x018
#define TB_TMC_TRG			0x01c
#define TB_TMC_CTL			0x020
#define TB_TMC_RWD			0x024
#define TB_TMC_MODE			0x028
#define TB_TMC_LBUFLEVEL		0x02c
#define TB_TMC_CBUFLEVEL		0x030
#define TB_TMC_BUFWM			0x034
#define TB_TMC_RRPHI			0x038
#define TB_TMC_RWPHI			0x03c
#define TB_TMC_AXICTL			0x110
#define TB_TMC_DBALO			0x118
#define TB_TMC_DBAHI			0x11c
#define TB_TMC_FFSR			0x300
#define TB_TMC_FFCR			0x304
#define TB_TMC_PSCR			0x308

#define TB_TMC_STS_FULL			BIT(0)	/* the write pointer wrapped */
#define TB_TMC_STS_TRIGGERED		BIT(1)
#define TB_TMC_STS_TMCREADY		BIT(2)
#define TB_TMC_STS_FTEMPTY		BIT(3)
#define TB_TMC_STS_EMPTY		BIT(4)
#define TB_TMC_STS_MEMERR		BIT(5)
#define TB_TMC_CTL_CAPTEN		BIT(0)
#define TB_TMC_MODE_CIRCULAR		0
#define TB_TMC_MODE_SWFIFO		1
#define TB_TMC_MODE_HWFIFO		2
#define TB_TMC_AXICTL_PROT_CTL_B1	BIT(1)
#define TB_TMC_AXICTL_CACHE		(0xf << 2)	/* AXCACHE (SoC-600: WCACHE) */
#define TB_TMC_AXICTL_SG		BIT(7)	/* scatter-gather mode */
#define TB_TMC_AXICTL_WR_BURST(n)	(((n) & 0xf) << 8)
#define TB_TMC_AXICTL_BURST_16		0xf	/* WrBurstLen: 16 transfers */
#define TB_TMC_AXICTL_CLEAR_MASK	0xfbf	/* the fields above (bit 6 reserved) */
#define TB_TMC_AXICTL_ARCACHE		(0xf << 16)	/* SoC-600: RCACHE */
#define TB_TMC_FFSR_FLINPROG		BIT(0)
#define TB_TMC_FFSR_FTSTOPPED		BIT(1)
#define TB_TMC_FFCR_ENFT		BIT(0)	/* formatter on */
#define TB_TMC_FFCR_ENTI		BIT(1)	/* trigger insertion */
#define TB_TMC_FFCR_FONFLIN		BIT(4)
#define TB_TMC_FFCR_FONTRIGEVT		BIT(5)
#define TB_TMC_FFCR_FLUSHMAN		BIT(6)	/* manual flush, self-clearing */
#define TB_TMC_FFCR_TRIGONTRIGIN	BIT(8)
#define TB_TMC_FFCR_STOPONFL		BIT(12)	/* stop once a flush completes */
#define TB_TMC_DEVID_CONFIG_TYPE	GENMASK(7, 6)	/* TRACEBUF_CS_SINK_* */
#define TB_TMC_DEVID_MEMWIDTH		GENMASK(10, 8)
#define TB_TMC_DEVID_NOSCAT		BIT(24)	/* no scatter-gather */
#define TB_TMC_DEVID_AXIAW_VALID	BIT(16)
#define TB_TMC_DEVID_AXIAW		GENMASK(22, 17)	/* AXI address width */
/* PIDR0[7:0] | PIDR1[3:0] << 8: the part number */
#define TB_CS_PART_SOC600_ETR		0x9e8	/* keeps RWP/Full while disabled */

/* ETR scatter-gather tables: the entry format is in cs_sg.h. */

/* The formatted stream: 16-byte frames (ARM IHI0029 D4) */
#define TB_CS_FRAME_SIZE		16

/*
 * TRFCR_EL1 (FEAT_TRF, Armv8.4 self-hosted trace filtering: ARM DDI0487,
 * D3 and TRFCR_EL1), as coresight-etm4x-core.c and sysreg.h use it.
 * ID_AA64DFR0_EL1.TraceFilt (bits 43:40) says whether it exists.
 */
#define TB_TRFCR_E0TRE			BIT_ULL(0)	/* trace allowed at EL0 */
#define TB_TRFCR_E1TRE			BIT_ULL(1)	/* at the kernel's EL (ExTRE) */
#define TB_TRFCR_EL2_CX			BIT_ULL(3)	/* CONTEXTIDR_EL2 (kernel at EL2) */
#define TB_TRFCR_TS_VIRTUAL		BIT_ULL(5)	/* timestamps: virtual time (TS 0b01) */
#define TB_ID_AA64DFR0_TRACEFILT_SHIFT	40

/*
 * HiSilicon Hip08: its ETM cannot slow the core down and overflows
 * unless the core's commit rate is lowered while it traces
 * (coresight-etm4x-core.c, etm4_hisi_config_core_commit(),
 * CONFIG_ETM4X_IMPDEF_FEATURE): an IMPLEMENTATION DEFINED system
 * register, S3_1_C15_C2_5, bits 13:12 (0b00 full speed, 0b01 level 1).
 * Recognised by the ETM's peripheral ID, as the kernel matches its
 * AMBA ID (mask 0xfffff).
 */
#define TB_ETM_PID_HIP08		0x000b6d01
#define TB_ETM_PID_MASK			0xfffff
#define TB_HIP08_COMMIT_MASK		GENMASK_ULL(13, 12)
#define TB_HIP08_COMMIT_FULL		0x0
#define TB_HIP08_COMMIT_LVL_1		0x1

/*
 * The register accessors. read/write take the component's base as the
 * description gave it and a byte offset; they never sleep or lock and
 * may run in any context on any CPU. ETM registers are touched only on
 * the CPU the ETM traces (as coresight-etm4x-core.c programs them
 * through smp_call_function_single()).
 *
 * The PE's own trace filter register, TRFCR_EL1, is a system register of
 * the CPU they run on (interrupts off, on the ETM's CPU): trf_present
 * says whether it exists (FEAT_TRF), trfcr_read/trfcr_write access it
 * (the write includes the ISB that makes it take effect). An accessor
 * set without them has no FEAT_TRF. hip08_commit lowers (reduced) or
 * restores the core commit rate of the CPU it runs on, through the
 * HiSilicon Hip08 register above; called only for ETMs whose
 * peripheral ID is Hip08's.
 */
struct tb_cs_io {
	u32 (*read)(void __iomem *base, u32 off);
	void (*write)(void __iomem *base, u32 off, u32 val);
	bool (*trf_present)(void);
	u64 (*trfcr_read)(void);
	void (*trfcr_write)(u64 val);
	void (*hip08_commit)(bool reduced);
};

/*
 * One component. base is what the accessors take. dev is the device the
 * component came from (NULL for module parameters): a driver bound to it
 * that is not tracebuf owns it, and for a sink it is the DMA device.
 */
struct tb_cs_component {
	void __iomem *base;
	struct device *dev;
	const char *name;		/* for messages and sink=: DT node, "etm0", ... */
};

/* Programmable ATB links (CoreSight SoC-400 TRM, DDI0480) */
#define TB_CS_FUNNEL_FUNCTL		0x000
#define TB_CS_FUNNEL_PRICTL		0x004
#define TB_CS_FUNNEL_ENS_MASK		GENMASK(7, 0)	/* EnS<n>: slave port n */
#define TB_CS_FUNNEL_HOLDTIME_MASK	GENMASK(11, 8)
#define TB_CS_FUNNEL_HOLDTIME		(0x7 << 8)	/* as coresight-funnel.c */
#define TB_CS_REPL_IDFILTER(n)		(0x000 + 4 * (n))	/* master port n */
#define TB_CS_REPL_FILTER_ALL		0xff	/* bit g: IDs 0xg0..0xgf blocked */
#define TB_CS_MAX_PORTS			8

/* What a component is, as the firmware describes it. */
enum tb_cs_kind {
	TB_CS_KIND_ETM,			/* ETMv4 trace unit: a source */
	TB_CS_KIND_FUNNEL,		/* programmable funnel (FUNCTL) */
	TB_CS_KIND_REPLICATOR,		/* programmable replicator (IDFILTERn) */
	TB_CS_KIND_STATIC,		/* static funnel or replicator: no registers */
	TB_CS_KIND_TMC,			/* ETR, ETB or ETF (a sink, or a link in HW FIFO mode) */
};

struct tb_cs_desc {
	struct tb_cs_component c;
	enum tb_cs_kind kind;
	unsigned int cpu;		/* ETM: the CPU it traces */
	bool skip_power_up;		/* ETM: qcom,skip-power-up: TRCPDCR not accessible */
	bool loses_context;		/* ETM: arm,coresight-loses-context-with-cpu */
	bool scatter_gather;		/* TMC: firmware allows SG (arm,scatter-gather) */
	bool max_burst_set;		/* TMC: arm,max-burst-size given: */
	u32 max_burst;			/* AXICTL.WrBurstLen, 0..15 (else 15) */
};

/* One ATB connection: master port src_port of src to slave port dst_port of dst. */
struct tb_cs_conn {
	u16 src, src_port;		/* indices into tb_cs_platform.comps */
	u16 dst, dst_port;
};

/*
 * A platform: the components and the ATB graph between them, as the
 * firmware describes them (DT in-ports/out-ports endpoints). Discovery
 * (DT, module parameters) builds one with MMIO accessors; an emulator
 * registers its own. The backend builds each ETM's path to its sink from
 * it (cs_path.c).
 */
struct tb_cs_platform {
	const char *name;
	struct module *owner;		/* pinned while a session uses it */
	const struct tb_cs_io *io;
	unsigned int nr_comps;
	const struct tb_cs_desc *comps;
	unsigned int nr_conns;
	const struct tb_cs_conn *conns;
	/*
	 * Or, for an emulator whose SoC the device tree describes: no comps
	 * or conns; tracebuf finds the components under of_root and their
	 * graph as it does on a real machine (every available
	 * arm,coresight-* node, out-ports endpoints), and of_map(node)
	 * gives what the accessors take as a component's base (instead of
	 * ioremap() of its reg): NULL if the emulator has no such component.
	 */
	struct device_node *of_root;
	void __iomem *(*of_map)(struct device_node *np);
	/*
	 * Or, for one whose SoC is in the ACPI namespace: tracebuf finds the
	 * components under acpi_root (which need not be present: the OS
	 * then made no device for any) and their _DSD graph as on an ACPI
	 * server, and acpi_map(adev) gives a component's base instead of
	 * ioremap() of its _CRS: NULL if the emulator has no such component.
	 */
	struct acpi_device *acpi_root;
	void __iomem *(*acpi_map)(struct acpi_device *adev);
};

/*
 * An emulator registers its platform; the CoreSight backend then probes
 * through it and is offered as "coresight" with TRACEBUF_BACKEND_F_EMULATED.
 * -EBUSY if real CoreSight or another emulator is present; -ENODEV (with
 * a message) if a component fails to probe. Unregistering is refused (the
 * emulator's module is pinned) while a session uses the backend.
 */
int tracebuf_cs_emulator_register(const struct tb_cs_platform *p);
void tracebuf_cs_emulator_unregister(const struct tb_cs_platform *p);

#endif /* _TRACEBUF_CS_HW_H */
