#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
# Build (or reuse) a debug kernel: linux-source-6.1 + tinyconfig +
# tests/harness/debug-common.config (KASAN, lockdep, UBSAN, kmemleak,
# DEBUG_PAGEALLOC) + tests/harness/debug-ARCH.config (consoles, firmware).
#
#   debug-kernel.sh [x86_64|arm64]     default: x86_64
#
# Cached in $TRACEBUF_CACHE/kernels/ARCH-debug; rebuilt when missing, when a
# fragment changes, or when the linux-source package version changes. arm64
# is cross-built and borrows busybox from the arm64-6.1 configuration.
set -euo pipefail
. "$(dirname "$0")/lib.sh"

arch=${1:-x86_64}
case "$arch" in
x86_64) karch=x86_64 cross= image=arch/x86/boot/bzImage target=bzImage minutes=7 ;;
arm64) karch=arm64 cross=aarch64-linux-gnu- image=arch/arm64/boot/Image target=Image minutes=3 ;;
*) tb_die "debug-kernel.sh: unknown architecture $arch" ;;
esac
common=$TB_TOP/tests/harness/debug-common.config
frag=$TB_TOP/tests/harness/debug-$arch.config
tarball=/usr/src/linux-source-6.1.tar.xz
[ -f "$tarball" ] || tb_die "$tarball missing: run tests/harness/deps.sh"
srcver=$(dpkg-query -W -f='${Version}' linux-source-6.1)
key=$( (echo "$srcver"; cat "$common" "$frag") | sha256sum | cut -c1-16)
dir=$(tb_cfg_dir "$arch-debug")

if [ -f "$dir/KEY" ] && [ "$(cat "$dir/KEY")" = "$key" ] && [ -f "$dir/KERNEL" ]; then
	tb_log "$arch debug kernel is up to date ($dir)"
	exit 0
fi
# Each configuration (KEY) is built in a directory of its own,
# ARCH-debug.d/KEY, and ARCH-debug is a symlink to the one in use: trees
# with different fragments (branches, a bisection) switch between kernels
# already built instead of rebuilding. A plain directory left by an older
# harness is moved aside under its own key first.
store=$dir.d
mkdir -p "$store"
if [ -d "$dir" ] && [ ! -L "$dir" ]; then
	if [ -f "$dir/KEY" ] && [ -f "$dir/KERNEL" ]; then
		old=$(cat "$dir/KEY")
		rm -rf "${store:?}/$old"
		mv "$dir" "$store/$old"
		sed -i "s|^$dir/|$store/$old/|" "$store/$old/KDIR" "$store/$old/KERNEL"
	else
		rm -rf "$dir"
	fi
fi
if [ -f "$store/$key/KEY" ] && [ -f "$store/$key/KERNEL" ]; then
	ln -sfn "$store/$key" "$dir"
	tb_log "$arch debug kernel $key already built: switched to it ($dir)"
	exit 0
fi
rm -f "$dir"
dir=$store/$key
if [ "$arch" = arm64 ]; then
	# busybox (and nothing else) comes from the stock arm64 packages.
	[ -x "$(tb_cfg_dir arm64-6.1)/root/bin/busybox" ] ||
		"$TB_TOP/tests/harness/kernels.sh" arm64-6.1
fi

src=$TRACEBUF_CACHE/src/linux-source-6.1
# Two debug builds may extract at once (make -j): one lock.
exec 9>"$TRACEBUF_CACHE/src.lock"
flock 9
if [ ! -f "$src/.tb-version" ] || [ "$(cat "$src/.tb-version")" != "$srcver" ]; then
	tb_log "extracting $tarball"
	rm -rf "$src"
	mkdir -p "$TRACEBUF_CACHE/src"
	tar -C "$TRACEBUF_CACHE/src" -xf "$tarball"
	echo "$srcver" >"$src/.tb-version"
fi
flock -u 9

rm -f "$dir/KEY" "$dir/KERNEL"
obj=$dir/obj
mkdir -p "$obj"
mk=(make -s -C "$src" O="$obj" ARCH="$karch")
[ -n "$cross" ] && mk+=(CROSS_COMPILE="$cross")
tb_log "configuring the $arch debug kernel in $obj"
"${mk[@]}" tinyconfig >/dev/null
cat "$common" "$frag" >"$obj/debug.config"
(cd "$obj" && ARCH=$karch "$src/scripts/kconfig/merge_config.sh" -m -O "$obj" .config \
	"$obj/debug.config" >/dev/null)
"${mk[@]}" olddefconfig >/dev/null

# Every option of the fragments must have stuck: a silently dropped KASAN
# would make the whole debug run meaningless.
bad=0
while IFS= read -r line; do
	case "$line" in
	CONFIG_*=n)
		opt=${line%%=*}
		grep -q "^$opt=" "$obj/.config" && { tb_log "$opt is set, wanted n"; bad=1; } ;;
	CONFIG_*=*)
		grep -qx "$line" "$obj/.config" || { tb_log "$line did not stick"; bad=1; } ;;
	esac
done <"$obj/debug.config"
[ $bad = 0 ] || tb_die "$arch debug kernel configuration incomplete"

tb_log "building the $arch debug kernel (about $minutes minutes on 2 cores)"
"${mk[@]}" -j"$(nproc)" $target modules 2>&1 | grep -v '^  ' || true
[ -f "$obj/$image" ] || tb_die "$arch debug kernel build failed"
"${mk[@]}" kernelrelease >"$dir/KVER"
echo "$obj" >"$dir/KDIR"
echo "$obj/$image" >"$dir/KERNEL"
if [ "$arch" = arm64 ]; then
	ln -sfn "$(tb_cfg_dir arm64-6.1)/root" "$dir/root"
fi
echo "$key" >"$dir/KEY"
ln -sfn "$dir" "$(tb_cfg_dir "$arch-debug")"
tb_log "$arch debug kernel $(cat "$dir/KVER") ready"
