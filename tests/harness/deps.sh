#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
# Install everything tracebuf's build and tests need on Debian 12, then fetch
# the test kernels into the private cache ($TRACEBUF_CACHE).
#
#   deps.sh [--quick]    --quick: only what the x86_64 6.1 guest needs
#
# As root it installs the packages; otherwise it prints the exact command and
# exits non-zero. Kernel images and headers for the guests (arm64, 6.12) are
# downloaded and extracted into the cache, never installed into the host.
set -euo pipefail
. "$(dirname "$0")/lib.sh"

quick=0
[ "${1:-}" = --quick ] && quick=1

pkgs=(
	make gcc g++ libc6-dev pkg-config file xz-utils cpio kmod bc flex bison
	libelf-dev libssl-dev dwarves
	gcc-aarch64-linux-gnu libc6-dev-arm64-cross
	qemu-system-x86 qemu-system-arm busybox-static
	dkms sparse linux-source-6.1 patch groff-base
	libipt-dev libopencsd-dev libopencsd-bin
	libcapstone-dev
	libdw-dev qemu-user time
	device-tree-compiler libfdt-dev
)

missing=()
for p in "${pkgs[@]}"; do
	dpkg-query -W -f='${Status}\n' "$p" 2>/dev/null | grep -q 'install ok installed' || missing+=("$p")
done
need_arch=0
dpkg --print-foreign-architectures | grep -qx arm64 || need_arch=1

if [ ${#missing[@]} -gt 0 ] || [ $need_arch = 1 ]; then
	cmd="dpkg --add-architecture arm64 && apt-get update && apt-get install -y --no-install-recommends ${missing[*]}"
	if [ "$(id -u)" != 0 ]; then
		echo "tracebuf needs some Debian packages. Run as root:" >&2
		echo "  $cmd" >&2
		exit 1
	fi
	tb_log "installing: ${missing[*]:-(arm64 architecture only)}"
	dpkg --add-architecture arm64
	apt-get update -q >/dev/null
	DEBIAN_FRONTEND=noninteractive apt-get install -y -q --no-install-recommends "${missing[@]}" >/dev/null
fi

"$TB_TOP/tests/harness/tools.sh"
if [ $quick = 1 ]; then
	"$TB_TOP/tests/harness/kernels.sh" x86_64-6.1
else
	"$TB_TOP/tests/harness/kernels.sh" x86_64-6.1 x86_64-6.12 arm64-6.1 arm64-6.12
fi
