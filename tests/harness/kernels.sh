#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
# Fetch and prepare the stock Debian kernels the guest tests boot, into the
# private cache (never into the host's root): the kernel image, its modules
# and its headers, with the kbuild tools the headers need.
#
#   kernels.sh [CONFIG...]     default: every stock configuration
#
# Each configuration directory gets KVER, KDIR (headers to build against),
# KERNEL (what QEMU boots) and root/ (the extracted packages).
set -euo pipefail
. "$(dirname "$0")/lib.sh"

download() { # dir pkg...
	local d=$1
	shift
	mkdir -p "$d"
	# apt's sandbox user cannot write to a root-owned cache; that is fine.
	(cd "$d" && apt-get download -q "$@" 2>&1 | grep -v -e '^W: Download is performed unsandboxed' -e '^Get:' -e '^Fetched' >&2 || true)
	local p
	for p in "$@"; do
		p=${p%%:*}
		ls "$d/${p}_"*.deb >/dev/null 2>&1 || tb_die "could not download $p (run 'apt-get update'?)"
	done
}

latest_612() { # arch -> newest 6.12.N+deb12 ABI having an image
	apt-cache search --names-only "^linux-image-6\.12\.[0-9]+\+deb12-$1-unsigned\$" |
		sed -n "s/^linux-image-\(6\.12\.[0-9]*+deb12\)-$1-unsigned .*/\1/p" | sort -V | tail -n1
}

abi_61() { # newest 6.1 ABI, from the linux-image-amd64 meta package
	apt-cache depends linux-image-amd64 | sed -n 's/.*Depends: linux-image-\(6\.1\.0-[0-9]*\)-amd64$/\1/p' | head -n1
}

extract_vmlinux() { # bzImage out
	local x=$TRACEBUF_CACHE/tools/scripts/extract-vmlinux
	[ -x "$x" ] || tb_die "$x missing: run tests/harness/tools.sh"
	"$x" "$1" >"$2.tmp"
	mv "$2.tmp" "$2"
}

prepare() { # config
	local cfg=$1 arch dir abi kver flav kbuild pkgs hdr common
	arch=$(tb_cfg_arch "$cfg")
	dir=$(tb_cfg_dir "$cfg")
	case "$arch" in
	x86_64) flav=amd64 ;;
	arm64) flav=arm64 ;;
	esac
	case "$cfg" in
	*-6.1) abi=$(abi_61); kbuild=linux-kbuild-6.1 ;;
	*-6.12) abi=$(latest_612 "$flav"); kbuild=linux-kbuild-$abi ;;
	esac
	[ -n "$abi" ] || tb_die "no kernel package found for $cfg (run 'apt-get update'?)"
	kver=$abi-$flav
	if [ -f "$dir/KVER" ] && [ "$(cat "$dir/KVER")" = "$kver" ] && [ -f "$dir/KERNEL" ]; then
		tb_log "$cfg: kernel $kver ready"
		return 0
	fi
	tb_log "$cfg: fetching kernel $kver"
	rm -rf "$dir"
	mkdir -p "$dir/root"
	if [ "$arch" = arm64 ]; then
		pkgs="linux-image-$kver-unsigned:arm64 linux-headers-$kver:arm64 busybox-static:arm64"
	else
		pkgs="linux-image-$kver-unsigned linux-headers-$kver"
	fi
	# The host-architecture kbuild tools serve both: the headers only need
	# scripts that run on the build machine.
	download "$TB_DEBS/$cfg" $pkgs "linux-headers-$abi-common" "$kbuild"
	for d in "$TB_DEBS/$cfg"/*.deb; do
		dpkg-deb -x "$d" "$dir/root"
	done
	hdr=$dir/root/usr/src/linux-headers-$kver
	common=$dir/root/usr/src/linux-headers-$abi-common
	# The headers' Makefile includes the common one by absolute path.
	sed -i "s|/usr/src/linux-headers-$abi-common|$common|g" "$hdr/Makefile"
	[ -d "$hdr/scripts/" ] || tb_die "$cfg: kbuild scripts missing in $hdr"
	echo "$hdr" >"$dir/KDIR"
	if [ "$arch" = x86_64 ]; then
		extract_vmlinux "$dir/root/boot/vmlinuz-$kver" "$dir/vmlinux"
		echo "$dir/vmlinux" >"$dir/KERNEL"
	else
		echo "$dir/root/boot/vmlinuz-$kver" >"$dir/KERNEL"
	fi
	echo "$kver" >"$dir/KVER"
	rm -rf "${TB_DEBS:?}/$cfg"
	tb_log "$cfg: kernel $kver ready"
}

[ $# -gt 0 ] || set -- x86_64-6.1 x86_64-6.12 arm64-6.1 arm64-6.12
for c in "$@"; do
	case "$c" in
	x86_64-debug) "$(dirname "$0")/debug-kernel.sh" x86_64 ;;
	arm64-debug) "$(dirname "$0")/debug-kernel.sh" arm64 ;;
	x86_64-kcsan) "$(dirname "$0")/debug-kernel.sh" x86_64 kcsan ;;
	*) prepare "$c" ;;
	esac
done
