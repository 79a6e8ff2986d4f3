/* SPDX-License-Identifier: GPL-2.0 */
/*
 * Intel PT at the register level: MSR numbers, bit names, ToPA entry format
 * and CPUID leaf 0x14 bits (Intel SDM vol. 3C, chapter "Intel Processor
 * Trace"), and the one indirection between the backend and the registers.
 *
 * The backend (pt.c) reaches the hardware only through struct tb_pt_hw.
 * On a real machine that is rdmsrl_safe()/wrmsrl_safe()/cpuid_count(); a
 * register-level emulator (tests/modules/tb_ptemu.c) may register its own
 * accessors instead. Nothing else differs between the two.
 */
#ifndef _TRACEBUF_PT_HW_H
#define _TRACEBUF_PT_HW_H

#include <linux/bits.h>
#include <linux/types.h>

struct module;

/* MSRs */
#define TB_MSR_PERF_GLOBAL_STATUS	0x38e
#define TB_MSR_PERF_GLOBAL_OVF_CTRL	0x390	/* write 1s to clear STATUS bits */
#define TB_MSR_RTIT_OUTPUT_BASE		0x560
#define TB_MSR_RTIT_OUTPUT_MASK		0x561
#define TB_MSR_RTIT_CTL			0x570
#define TB_MSR_RTIT_STATUS		0x571
#define TB_MSR_RTIT_CR3_MATCH		0x572
#define TB_MSR_RTIT_ADDR_A(n)		(0x580 + 2 * (n))
#define TB_MSR_RTIT_ADDR_B(n)		(0x581 + 2 * (n))
#define TB_PT_MAX_ADDR_RANGES		4
#define TB_MSR_VMX_MISC			0x485	/* readable where CPUID.1:ECX.VMX */

/*
 * IA32_VMX_MISC bit 14: Intel PT can be used in VMX operation. Without
 * it, VMXON clears RTIT_CTL.TraceEn and a WRMSR setting TraceEn in VMX
 * operation raises #GP (SDM vol. 3D, A.6 "Miscellaneous Data").
 */
#define TB_VMX_MISC_PT			BIT_ULL(14)

/* IA32_PERF_GLOBAL_STATUS: the ToPA PMI */
#define TB_GLOBAL_STATUS_TOPA_PMI	BIT_ULL(55)

/* IA32_RTIT_CTL */
#define TB_RTIT_CTL_TRACEEN		BIT_ULL(0)
#define TB_RTIT_CTL_CYCEN		BIT_ULL(1)
#define TB_RTIT_CTL_OS			BIT_ULL(2)
#define TB_RTIT_CTL_USR			BIT_ULL(3)
#define TB_RTIT_CTL_PWREVTEN		BIT_ULL(4)
#define TB_RTIT_CTL_FUPONPTW		BIT_ULL(5)
#define TB_RTIT_CTL_FABRICEN		BIT_ULL(6)
#define TB_RTIT_CTL_CR3EN		BIT_ULL(7)
#define TB_RTIT_CTL_TOPA		BIT_ULL(8)
#define TB_RTIT_CTL_MTCEN		BIT_ULL(9)
#define TB_RTIT_CTL_TSCEN		BIT_ULL(10)
#define TB_RTIT_CTL_DISRETC		BIT_ULL(11)
#define TB_RTIT_CTL_PTWEN		BIT_ULL(12)
#define TB_RTIT_CTL_BRANCHEN		BIT_ULL(13)
#define TB_RTIT_CTL_MTC_FREQ_SHIFT	14
#define TB_RTIT_CTL_MTC_FREQ		GENMASK_ULL(17, 14)
#define TB_RTIT_CTL_CYC_THRESH_SHIFT	19
#define TB_RTIT_CTL_CYC_THRESH		GENMASK_ULL(22, 19)
#define TB_RTIT_CTL_PSB_FREQ_SHIFT	24
#define TB_RTIT_CTL_PSB_FREQ		GENMASK_ULL(27, 24)
#define TB_RTIT_CTL_ADDR_CFG_SHIFT(n)	(32 + 4 * (n))
#define TB_RTIT_CTL_ADDR_CFG(n)		(0xfULL << TB_RTIT_CTL_ADDR_CFG_SHIFT(n))
#define TB_RTIT_ADDR_CFG_FILTER		1	/* trace only inside the range */
#define TB_RTIT_ADDR_CFG_STOP		2	/* TraceStop on entering it */
#define TB_RTIT_CTL_DISTNT		BIT_ULL(55)

/* IA32_RTIT_STATUS */
#define TB_RTIT_STATUS_FILTEREN		BIT_ULL(0)
#define TB_RTIT_STATUS_CONTEXTEN	BIT_ULL(1)
#define TB_RTIT_STATUS_TRIGGEREN	BIT_ULL(2)
/* Bit 3 is reserved (SDM vol. 3C 33.2.8.4): overflow is an OVF packet. */
#define TB_RTIT_STATUS_ERROR		BIT_ULL(4)
#define TB_RTIT_STATUS_STOPPED		BIT_ULL(5)
#define TB_RTIT_STATUS_BYTECNT		GENMASK_ULL(48, 32)
/* The bits software may write back (the others are read-only or reserved). */
#define TB_RTIT_STATUS_WRITABLE		(TB_RTIT_STATUS_ERROR | \
					 TB_RTIT_STATUS_STOPPED | \
					 TB_RTIT_STATUS_BYTECNT)

/*
 * IA32_RTIT_OUTPUT_MASK_PTRS in ToPA mode: bits 6:0 read as 1, bits 31:7
 * the index of the current entry in the current table, bits 63:32 the
 * offset of the next byte in the current region.
 */
#define TB_RTIT_MASK_LOWBITS		0x7fULL
#define TB_RTIT_MASK_TABLE_OFF_SHIFT	7
#define TB_RTIT_MASK_TABLE_OFF		GENMASK_ULL(31, 7)
#define TB_RTIT_MASK_OUTPUT_OFF_SHIFT	32

/* A ToPA entry: one 64-bit word. Tables are 4 KiB aligned. */
#define TB_TOPA_END			BIT_ULL(0)
#define TB_TOPA_INT			BIT_ULL(2)
#define TB_TOPA_STOP			BIT_ULL(4)
#define TB_TOPA_SIZE_SHIFT		6
#define TB_TOPA_SIZE			GENMASK_ULL(9, 6)	/* region = 4 KiB << SIZE */
#define TB_TOPA_BASE			GENMASK_ULL(51, 12)
#define TB_TOPA_MAX_SIZE		15			/* 128 MiB */
#define TB_TOPA_PMI_MARGIN		512	/* single-entry ToPA: early PMI */

/* CPUID */
#define TB_CPUID_LEAF_FEATURES		0x01
#define TB_CPUID_1_ECX_VMX		BIT(5)
#define TB_CPUID_LEAF_EXT_FEATURES	0x07
#define TB_CPUID_7_EBX_INTEL_PT		BIT(25)
#define TB_CPUID_LEAF_PT		0x14
#define TB_CPUID_LEAF_TSC		0x15
/* leaf 0x14 subleaf 0 EBX */
#define TB_PT_CAP_CR3_FILTERING		BIT(0)
#define TB_PT_CAP_PSB_CYC		BIT(1)
#define TB_PT_CAP_IP_FILTERING		BIT(2)
#define TB_PT_CAP_MTC			BIT(3)
#define TB_PT_CAP_PTWRITE		BIT(4)
#define TB_PT_CAP_POWER_EVENT		BIT(5)
#define TB_PT_CAP_EVENT_TRACE		BIT(7)
#define TB_PT_CAP_TNT_DISABLE		BIT(8)
/* leaf 0x14 subleaf 0 ECX */
#define TB_PT_CAP_TOPA_OUTPUT		BIT(0)
#define TB_PT_CAP_TOPA_MULTI		BIT(1)
#define TB_PT_CAP_SINGLE_RANGE		BIT(2)
#define TB_PT_CAP_OUTPUT_SUBSYS		BIT(3)
#define TB_PT_CAP_PAYLOADS_LIP		BIT(31)
/* leaf 0x14 subleaf 1 */
#define TB_PT_CAP1_EAX_NR_RANGES	GENMASK(2, 0)
#define TB_PT_CAP1_EAX_MTC_PERIODS	GENMASK(31, 16)
#define TB_PT_CAP1_EBX_CYC_THRESHOLDS	GENMASK(15, 0)
#define TB_PT_CAP1_EBX_PSB_PERIODS	GENMASK(31, 16)

/*
 * The register accessors. Every call runs on the CPU whose registers it
 * touches, in any context including NMI, and never sleeps or locks.
 * rdmsr/wrmsr return 0, or -EIO where the CPU raises #GP.
 */
struct tb_pt_hw {
	const char *name;
	struct module *owner;
	int (*rdmsr)(u32 msr, u64 *val);
	int (*wrmsr)(u32 msr, u64 val);
	void (*cpuid)(u32 leaf, u32 subleaf, u32 regs[4]);	/* eax..edx */
	/*
	 * Unmask the local APIC's LVTPC entry (NMI delivery), which the APIC
	 * masks when it delivers a PMI; from the NMI handler, on its CPU.
	 */
	void (*pmi_unmask)(void);
	/*
	 * Is this CPU in VMX operation? CR4.VMXE, which a hypervisor sets
	 * before VMXON and clears after VMXOFF (KVM: kvm_cpu_vmxon() and
	 * kvm_cpu_vmxoff() in arch/x86/kvm/vmx/vmx.c).
	 */
	bool (*vmx_on)(void);
};

/*
 * An emulator registers its accessors; the PT backend then probes through
 * them and is offered as "intel_pt" with TRACEBUF_BACKEND_F_EMULATED. -EBUSY
 * if real PT or another emulator is present. Unregistering is refused
 * (the emulator's module is pinned) while a session uses the backend.
 */
int tracebuf_pt_emulator_register(const struct tb_pt_hw *hw);
void tracebuf_pt_emulator_unregister(const struct tb_pt_hw *hw);

#endif /* _TRACEBUF_PT_HW_H */
