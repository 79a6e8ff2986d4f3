#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
# What an arm64 guest booted with ACPI (configuration arm64-acpi) needs
# beside the arm64-6.1 kernel: UEFI firmware for QEMU virt (Debian's
# qemu-efi-aarch64, QEMU_EFI.fd: EDK2's ArmVirtQemu, which builds the
# virt machine's ACPI tables from QEMU's and loads -kernel/-initrd from
# fw_cfg), and an SSDT with the CoreSight of a real ACPI server
# (tests/harness/acpi/n1sdp.asl: Arm N1SDP's, from edk2-platforms),
# compiled by iasl (Debian's acpica-tools). Both packages are downloaded
# and extracted into the private cache ($TRACEBUF_CACHE/acpi), never
# installed. The kernel takes the table from the initrd: Debian's arm64
# kernels have CONFIG_ACPI_TABLE_UPGRADE=y, which installs every table in
# kernel/firmware/acpi/ of an uncompressed cpio at the start of the
# initrd (Documentation/admin-guide/acpi/initrd_table_override.rst;
# drivers/acpi/tables.c: acpi_table_upgrade(), "Table Upgrade: install").
#
#   acpi.sh OUTDIR     writes OUTDIR/tables.cpio (the cpio to prepend),
#                      OUTDIR/*.aml; prints the firmware's path
set -euo pipefail
. "$(dirname "$0")/lib.sh"

out=$1
dir=$TRACEBUF_CACHE/acpi
pkgs="qemu-efi-aarch64 acpica-tools"
if [ ! -f "$dir/.pkgs" ] || [ "$(cat "$dir/.pkgs")" != "$pkgs" ] ||
	[ ! -f "$dir/root/usr/share/qemu-efi-aarch64/QEMU_EFI.fd" ] ||
	[ ! -x "$dir/root/usr/bin/iasl" ]; then
	tb_log "fetching $pkgs into $dir"
	rm -rf "$dir"
	mkdir -p "$dir/debs" "$dir/root"
	# shellcheck disable=SC2086
	(cd "$dir/debs" && apt-get download -q $pkgs 2>&1 |
		grep -v -e '^W: Download is performed unsandboxed' -e '^Get:' -e '^Fetched' >&2 || true)
	for p in $pkgs; do
		ls "$dir/debs/${p}_"*.deb >/dev/null 2>&1 || tb_die "could not download $p (run 'apt-get update'?)"
	done
	for d in "$dir/debs"/*.deb; do
		dpkg-deb -x "$d" "$dir/root"
	done
	rm -rf "$dir/debs"
	echo "$pkgs" >"$dir/.pkgs"
fi

rm -rf "$out"
mkdir -p "$out/cpio/kernel/firmware/acpi"
for asl in "$TB_TOP"/tests/harness/acpi/*.asl; do
	name=$(basename "$asl" .asl)
	# The ASL's #defines with arguments: the C preprocessor first, as
	# edk2's build runs it before iasl.
	cpp -P -nostdinc -undef -x assembler-with-cpp "$asl" >"$out/$name.i"
	# TB_ACPI_BREAK=n1sdp-replicator: a deliberately wrong table, to see
	# tests/guest/cs_dt fail on one (N1SDP's replicator feeds the ETR
	# from its master port 0, beside the TPIU, instead of port 1: a
	# graph that still traces).
	case ${TB_ACPI_BREAK:-} in
	'') ;;
	n1sdp-replicator)
		[ "$name" = n1sdp ] && sed -i 's/Package () { 1, 0, \\_SB_\.N1SD\.ETR, 1 }/Package () { 0, 0, \\_SB_.N1SD.ETR, 1 }/' "$out/$name.i" ;;
	*) tb_die "TB_ACPI_BREAK=$TB_ACPI_BREAK: unknown" ;;
	esac
	"$dir/root/usr/bin/iasl" -p "$out/$name" "$out/$name.i" >"$out/$name.iasl.log" 2>&1 ||
		{ cat "$out/$name.iasl.log" >&2; tb_die "iasl: $asl"; }
	cp "$out/$name.aml" "$out/cpio/kernel/firmware/acpi/"
done
(cd "$out/cpio" && find kernel | cpio -o -H newc --quiet) >"$out/tables.cpio"
echo "$dir/root/usr/share/qemu-efi-aarch64/QEMU_EFI.fd"
