/* SPDX-License-Identifier: BSD-2-Clause-Patent */
/*
 * The CoreSight of Arm's Neoverse N1 System Development Platform (N1SDP),
 * as its firmware describes it to the OS: transcribed from edk2-platforms,
 * Platform/ARM/N1Sdp/ConfigurationManager/ConfigurationManagerDxe/AslTables/
 * Dsdt.asl (Copyright (c) 2021, ARM Limited, BSD-2-Clause-Patent; "ACPI for
 * CoreSight 1.1, Platform Design Document", Arm DEN0067), with the
 * addresses of its PCDs from Platform/ARM/N1Sdp/N1SdpPlatform.dec. The
 * devices, their IDs, _CCA, _DSD graphs and properties are the N1SDP's;
 * what differs, for a QEMU virt test guest (tests/harness/acpi.sh loads
 * this table through the kernel's initrd table upgrade):
 *
 *  - everything is in one container, \_SB.N1SD, that is not present
 *    (_STA 0): the OS enumerates nothing under a device that is neither
 *    present nor functioning (ACPI 6.4, 6.3.7 _STA; drivers/acpi/scan.c:
 *    acpi_bus_attach() stops at it), so no AMBA or platform device is
 *    made for any component and nothing reads the addresses, which the
 *    virt machine does not map. tb_csemu (topology=n1sdp) stands in for
 *    the components. The container's _DSD names the SoC, as the device
 *    tree's tracebuf,csemu-soc controller node does (tests/host/csdt.c).
 *  - The absolute paths (\_SB_.X) are \_SB_.N1SD.X.
 *  - The guest has two CPUs (MADT GICC processor UIDs 0 and 1): CP00
 *    (cluster 0, CPU 0) keeps _UID 0 and CP02 (cluster 1, CPU 0) has
 *    _UID 1, one per cluster, so that both static funnels and both
 *    cluster ETFs carry trace; CP01 and CP03 have UIDs no GICC has (0x100,
 *    0x101) and their ETMs are disabled (_STA 0).
 *  - The processor devices CP00..CP03 are not present (_STA 0, N1SDP's
 *    0xF): the guest's own processors (\_SB.C000, C001) have UIDs 0 and
 *    1 too, and the kernel's check for duplicate processor UIDs looks
 *    below a device that is not present (drivers/acpi/acpi_processor.c:
 *    acpi_processor_check_duplicates() walks with acpi_get_devices(),
 *    which tests _STA only on a device whose _HID matches), where it
 *    found them and took UIDs 0 and 1 from the guest's processors
 *    ("Failed to get unique processor _UID"). Not present, they are
 *    skipped, and so are their children, but an ETM's processor is
 *    still its parent and that parent's _UID its CPU's.
 *  - CMN6 (the interconnect's PMU) is left out: not CoreSight.
 */
#define ACPI_GRAPH_UUID       "ab02a46b-74c7-45a2-bd68-f7d344ef2153"
#define CORESIGHT_GRAPH_UUID  "3ecbc8b6-1d0e-4fb3-8107-e627f805c6cd"
#define CS_LINK_MASTER        1
#define CS_LINK_SLAVE         0

#define DSD_GRAPH_BEGIN(_nports) \
	ToUUID (ACPI_GRAPH_UUID), Package () { 0, 1, \
		Package () { 1, ToUUID (CORESIGHT_GRAPH_UUID), _nports,
#define DSD_GRAPH_END } }
#define DSD_PORTS_BEGIN(_nports) Name (_DSD, Package () { DSD_GRAPH_BEGIN (_nports)
#define DSD_PORTS_END DSD_GRAPH_END })
#define CS_INPUT_PORT(_port, _rport, _rphandle) \
	Package () { _port, _rport, _rphandle, CS_LINK_SLAVE }
#define CS_OUTPUT_PORT(_port, _rport, _rphandle) \
	Package () { _port, _rport, _rphandle, CS_LINK_MASTER }
/* PcdCsEtm0Base, PcdCsEtm0MaxBase, ...; PcdCsComponentSize: "the actual size
 * is just 4K though 64K is reserved" */
#define CS_CRS(_base, _max) Name (_CRS, ResourceTemplate () { \
	QWordMemory (ResourceProducer, PosDecode, MinFixed, MaxFixed, Cacheable, \
		     ReadWrite, 0, _base, _max, 0, 0x1000) })

DefinitionBlock ("n1sdp.aml", "SSDT", 2, "TBUF", "N1SDPCS", 1)
{
	Scope (_SB) {
		Device (N1SD) {
			Name (_HID, "PRP0001")
			Name (_UID, 0x4e31)
			Name (_STA, 0)
			Name (_DSD, Package () {
				ToUUID ("daffd814-6eba-4d8c-8a91-bc9bbf4aa301"),
				Package () {
					Package (2) { "compatible", "tracebuf,csemu-soc" },
					Package (2) { "tracebuf,soc", "n1sdp" },
				}
			})

			Device (CP00) {		/* Ares-0: Cluster 0, Cpu 0 */
				Name (_HID, "ACPI0007")
				Name (_UID, 0)
				Name (_STA, 0)
				Device (ETM0) {
					Name (_HID, "ARMHC500")
					Name (_CID, "ARMHC500")
					CS_CRS (0x402040000, 0x402040FFF)
					DSD_PORTS_BEGIN (1)
					CS_OUTPUT_PORT (0, 0, \_SB_.N1SD.SFN0)
					DSD_PORTS_END
				}
			}
			Device (CP01) {		/* Ares-1: Cluster 0, Cpu 1 */
				Name (_HID, "ACPI0007")
				Name (_UID, 0x100)
				Name (_STA, 0)
				Device (ETM1) {
					Name (_HID, "ARMHC500")
					Name (_CID, "ARMHC500")
					Name (_STA, 0)
					CS_CRS (0x402140000, 0x402140FFF)
					DSD_PORTS_BEGIN (1)
					CS_OUTPUT_PORT (0, 1, \_SB_.N1SD.SFN0)
					DSD_PORTS_END
				}
			}
			Device (CP02) {		/* Ares-2: Cluster 1, Cpu 0 */
				Name (_HID, "ACPI0007")
				Name (_UID, 1)
				Name (_STA, 0)
				Device (ETM2) {
					Name (_HID, "ARMHC500")
					Name (_CID, "ARMHC500")
					CS_CRS (0x403040000, 0x403040FFF)
					DSD_PORTS_BEGIN (1)
					CS_OUTPUT_PORT (0, 0, \_SB_.N1SD.SFN1)
					DSD_PORTS_END
				}
			}
			Device (CP03) {		/* Ares-3: Cluster 1, Cpu 1 */
				Name (_HID, "ACPI0007")
				Name (_UID, 0x101)
				Name (_STA, 0)
				Device (ETM3) {
					Name (_HID, "ARMHC500")
					Name (_CID, "ARMHC500")
					Name (_STA, 0)
					CS_CRS (0x403140000, 0x403140FFF)
					DSD_PORTS_BEGIN (1)
					CS_OUTPUT_PORT (0, 1, \_SB_.N1SD.SFN1)
					DSD_PORTS_END
				}
			}

			Device (ETF0) {
				Name (_HID, "ARMHC97C")		/* TMC */
				Name (_CID, "ARMHC97C")
				CS_CRS (0x400410000, 0x400410FFF)
				DSD_PORTS_BEGIN (2)
				CS_OUTPUT_PORT (0, 0, \_SB_.N1SD.FUN),
				CS_INPUT_PORT (0, 0, \_SB_.N1SD.SFN0)
				DSD_PORTS_END
			}
			Device (ETF1) {
				Name (_HID, "ARMHC97C")
				Name (_CID, "ARMHC97C")
				CS_CRS (0x400420000, 0x400420FFF)
				DSD_PORTS_BEGIN (2)
				CS_OUTPUT_PORT (0, 1, \_SB_.N1SD.FUN),
				CS_INPUT_PORT (0, 0, \_SB_.N1SD.SFN1)
				DSD_PORTS_END
			}
			Device (ETF2) {
				Name (_HID, "ARMHC97C")
				Name (_CID, "ARMHC97C")
				CS_CRS (0x400010000, 0x400010FFF)
				DSD_PORTS_BEGIN (2)
				CS_OUTPUT_PORT (0, 5, \_SB_.N1SD.MFUN),
				CS_INPUT_PORT (0, 0, \_SB_.N1SD.STM0)
				DSD_PORTS_END
			}
			Device (FUN) {
				Name (_HID, "ARMHC9FF")		/* dynamic funnel */
				Name (_CID, "ARMHC9FF")
				CS_CRS (0x4000B0000, 0x4000B0FFF)
				DSD_PORTS_BEGIN (3)
				CS_OUTPUT_PORT (0, 0, \_SB_.N1SD.MFUN),
				CS_INPUT_PORT (0, 0, \_SB_.N1SD.ETF0),
				CS_INPUT_PORT (1, 0, \_SB_.N1SD.ETF1)
				DSD_PORTS_END
			}
			Device (STM0) {
				Name (_HID, "ARMHC502")		/* STM */
				Name (_CID, "ARMHC502")
				Name (_CRS, ResourceTemplate () {
					QWordMemory (ResourceProducer, PosDecode, MinFixed,
						     MaxFixed, Cacheable, ReadWrite, 0,
						     0x400800000, 0x400800FFF, 0, 0x1000)
					Memory32Fixed (ReadWrite, 0x4D000000, 0x1000000)
				})
				DSD_PORTS_BEGIN (1)
				CS_OUTPUT_PORT (0, 0, \_SB_.N1SD.ETF2)
				DSD_PORTS_END
			}
			Device (MFUN) {			/* master funnel */
				Name (_HID, "ARMHC9FF")
				Name (_CID, "ARMHC9FF")
				CS_CRS (0x4000A0000, 0x4000A0FFF)
				DSD_PORTS_BEGIN (3)
				CS_OUTPUT_PORT (0, 0, \_SB_.N1SD.REP),
				CS_INPUT_PORT (0, 0, \_SB_.N1SD.FUN),
				CS_INPUT_PORT (5, 0, \_SB_.N1SD.ETF2)
				DSD_PORTS_END
			}
			Device (REP) {
				Name (_HID, "ARMHC98D")		/* dynamic replicator */
				Name (_CID, "ARMHC98D")
				CS_CRS (0x400110000, 0x400110FFF)
				DSD_PORTS_BEGIN (3)
				CS_OUTPUT_PORT (0, 0, \_SB_.N1SD.TPIU),
				CS_OUTPUT_PORT (1, 0, \_SB_.N1SD.ETR),
				CS_INPUT_PORT (0, 0, \_SB_.N1SD.MFUN)
				DSD_PORTS_END
			}
			Device (TPIU) {
				Name (_HID, "ARMHC979")
				Name (_CID, "ARMHC979")
				CS_CRS (0x400130000, 0x400130FFF)
				DSD_PORTS_BEGIN (1)
				CS_INPUT_PORT (0, 0, \_SB_.N1SD.REP)
				DSD_PORTS_END
			}
			Device (ETR) {
				Name (_HID, "ARMHC97C")
				Name (_CID, "ARMHC97C")
				Name (_CCA, 0)	/* the ETR on this platform is not coherent */
				CS_CRS (0x400120000, 0x400120FFF)
				Name (_DSD, Package () {
					DSD_GRAPH_BEGIN (1)
					CS_INPUT_PORT (0, 1, \_SB_.N1SD.REP)
					DSD_GRAPH_END,
					ToUUID ("daffd814-6eba-4d8c-8a91-bc9bbf4aa301"),
					Package () {
						Package (2) { "arm,scatter-gather", 1 }
					}
				})
			}
			Device (SFN0) {			/* static funnel 0 */
				Name (_HID, "ARMHC9FE")
				Name (_CID, "ARMHC9FE")
				DSD_PORTS_BEGIN (3)
				CS_OUTPUT_PORT (0, 0, \_SB_.N1SD.ETF0),
				CS_INPUT_PORT (0, 0, \_SB_.N1SD.CP00.ETM0),
				CS_INPUT_PORT (1, 0, \_SB_.N1SD.CP01.ETM1)
				DSD_PORTS_END
			}
			Device (SFN1) {			/* static funnel 1 */
				Name (_HID, "ARMHC9FE")
				Name (_CID, "ARMHC9FE")
				DSD_PORTS_BEGIN (3)
				CS_OUTPUT_PORT (0, 0, \_SB_.N1SD.ETF1),
				CS_INPUT_PORT (0, 0, \_SB_.N1SD.CP02.ETM2),
				CS_INPUT_PORT (1, 0, \_SB_.N1SD.CP03.ETM3)
				DSD_PORTS_END
			}
		}
	}
}
