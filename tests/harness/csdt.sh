#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
# The device tree for an arm64 test guest with CoreSight (issue 15): QEMU
# virt's own, dumped with the machine options run-guest.sh boots with,
# plus the CoreSight subtrees of two real boards, taken from the kernel's
# own device trees in Debian's linux-source-6.1: Arm Juno r2 (juno-r2.dts,
# with juno-base.dtsi and juno-cs-r1r2.dtsi) and the DragonBoard 410c
# (apq8016-sbc.dts, Qualcomm MSM8916). tests/host/csdt puts each under a
# container that maps none of their addresses (no MMIO reaches them: the
# emulator stands in for them), maps their CPUs
# onto the guest's two (Juno: A72_0 and A53_0, one per cluster; MSM8916:
# CPU0 and CPU1; the other ETMs are disabled), and points their clocks
# and power domains at a controller node an emulator can bind to.
#
#   csdt.sh MEM OUTDIR     (MEM: the guest's -m in MiB)
#
# Writes OUTDIR/virt.dtb (QEMU's), OUTDIR/juno.dtsi, OUTDIR/msm8916.dtsi
# (the fragments), OUTDIR/guest.dts and OUTDIR/guest.dtb (all merged).
# The kernel sources' device trees are extracted once into
# $TRACEBUF_CACHE/dts.
set -euo pipefail
. "$(dirname "$0")/lib.sh"

mem=$1 out=$2
tarball=/usr/src/linux-source-6.1.tar.xz
[ -f "$tarball" ] || tb_die "$tarball missing: run tests/harness/deps.sh"
command -v dtc >/dev/null || tb_die "dtc missing: run tests/harness/deps.sh"
ver=$(dpkg-query -W -f='${Version}' linux-source-6.1)
src=$TRACEBUF_CACHE/dts
if [ ! -f "$src/.version" ] || [ "$(cat "$src/.version")" != "$ver" ]; then
	tb_log "extracting the arm64 device trees from linux-source-6.1"
	rm -rf "$src"
	mkdir -p "$src"
	tar -C "$src" --strip-components=1 -xf "$tarball" \
		linux-source-6.1/arch/arm64/boot/dts/arm \
		linux-source-6.1/arch/arm64/boot/dts/qcom \
		linux-source-6.1/include/dt-bindings \
		linux-source-6.1/include/uapi/linux/input-event-codes.h \
		linux-source-6.1/scripts/dtc/include-prefixes
	echo "$ver" >"$src/.version"
fi
csdt=$TB_TOP/build/host/csdt
make -s -C "$TB_TOP/tests/host" O="$TB_TOP/build" "$csdt" >/dev/null

mkdir -p "$out"
# As the kernel's Makefile.lib preprocesses a .dts (cmd_dtc_cpp).
soc_dtb() { # dts out.dtb
	cpp -nostdinc -I "$src/include" -I "$src/arch/arm64/boot/dts" \
		-I "$src/scripts/dtc/include-prefixes" -undef -D__DTS__ \
		-x assembler-with-cpp "$1" 2>/dev/null |
		dtc -q -@ -I dts -O dtb -o "$2" -
}
soc_dtb "$src/arch/arm64/boot/dts/arm/juno-r2.dts" "$out/juno-r2.dtb"
soc_dtb "$src/arch/arm64/boot/dts/qcom/apq8016-sbc.dts" "$out/apq8016-sbc.dtb"
"$csdt" --name juno --cpu A72_0=0 --cpu A53_0=1 \
	"$out/juno-r2.dtb" >"$out/juno.dtsi"
"$csdt" --name msm8916 --cpu CPU0=0 --cpu CPU1=1 \
	"$out/apq8016-sbc.dtb" >"$out/msm8916.dtsi"
# TB_CSDT_BREAK=juno-replicator: a deliberately wrong tree, to see
# tests/guest/cs_dt fail on one (Juno's replicator feeds the ETR from its
# master port 0 instead of port 1, a tree that still traces).
case ${TB_CSDT_BREAK:-} in
'') ;;
juno-replicator)
	sed -i '/replicator@20120000 {/,/in-ports/{s/port@1 {/port@0 {/;s/reg = <0x1>;/reg = <0x0>;/}' \
		"$out/juno.dtsi" ;;
*) tb_die "TB_CSDT_BREAK=$TB_CSDT_BREAK: unknown" ;;
esac

# The machine as run-guest.sh boots it (the device tree does not depend
# on the consoles, the initrd or the kernel).
qemu-system-aarch64 -M virt,dumpdtb="$out/virt.dtb" -cpu max,pauth-impdef=on \
	-accel tcg -m "$mem" -smp 2 -nodefaults -display none >/dev/null 2>&1 ||
	[ -s "$out/virt.dtb" ] || tb_die "qemu-system-aarch64 did not dump its device tree"
{
	dtc -q -I dtb -O dts "$out/virt.dtb"
	cat "$out/juno.dtsi" "$out/msm8916.dtsi"
} >"$out/guest.dts"
dtc -q -I dts -O dtb -o "$out/guest.dtb" "$out/guest.dts"
