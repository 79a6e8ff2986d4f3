#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
# Build (or reuse) a kernel from linux-source-6.1, patched with
# tests/harness/debug-patches/*.patch: tinyconfig +
# tests/harness/debug-common.config (lockdep with its wait-type check,
# UBSAN, kmemleak, DEBUG_PAGEALLOC) + a sanitizer's fragment
# (debug-kasan.config, or debug-kcsan.config) + debug-ARCH.config
# (consoles, firmware).
#
#   debug-kernel.sh [x86_64|arm64] [debug|kcsan]   default: x86_64 debug
#
# The debug kernels (KASAN) are the x86_64-debug and arm64-debug guest
# configurations; the KCSAN kernel (x86_64 only: KCSAN excludes KASAN) is
# x86_64-kcsan, for make check-kcsan.
#
# Cached in $TRACEBUF_CACHE/kernels/ARCH-VARIANT; rebuilt when missing, when
# a fragment or a patch changes, or when the linux-source package version
# changes. arm64 is cross-built and borrows busybox from the arm64-6.1
# configuration.
set -euo pipefail
. "$(dirname "$0")/lib.sh"

arch=${1:-x86_64}
variant=${2:-debug}
case "$arch" in
x86_64) karch=x86_64 cross= image=arch/x86/boot/bzImage target=bzImage minutes=9 ;;
arm64) karch=arm64 cross=aarch64-linux-gnu- image=arch/arm64/boot/Image target=Image minutes=4 ;;
*) tb_die "debug-kernel.sh: unknown architecture $arch" ;;
esac
h=$TB_TOP/tests/harness
case "$variant" in
debug) sanitizer=$h/debug-kasan.config ;;
kcsan)
	[ "$arch" = x86_64 ] || tb_die "debug-kernel.sh: the KCSAN kernel is x86_64 only"
	sanitizer=$h/debug-kcsan.config minutes=5 ;;
*) tb_die "debug-kernel.sh: unknown variant $variant" ;;
esac
frags=("$h/debug-common.config" "$sanitizer" "$h/debug-$arch.config")
patches=("$h"/debug-patches/*.patch)
tarball=/usr/src/linux-source-6.1.tar.xz
[ -f "$tarball" ] || tb_die "$tarball missing: run tests/harness/deps.sh"
srcver=$(dpkg-query -W -f='${Version}' linux-source-6.1)
# The patched source has a key of its own (package version and patches).
srckey=$( (echo "$srcver"; cat "${patches[@]}") | sha256sum | cut -c1-16)
key=$( (echo "$srckey"; cat "${frags[@]}") | sha256sum | cut -c1-16)
dir=$(tb_cfg_dir "$arch-$variant")

if [ -f "$dir/KEY" ] && [ "$(cat "$dir/KEY")" = "$key" ] && [ -f "$dir/KERNEL" ]; then
	tb_log "$arch $variant kernel is up to date ($dir)"
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
	tb_log "$arch $variant kernel $key already built: switched to it ($dir)"
	exit 0
fi
rm -f "$dir"
dir=$store/$key
if [ "$arch" = arm64 ]; then
	# busybox (and nothing else) comes from the stock arm64 packages.
	[ -x "$(tb_cfg_dir arm64-6.1)/root/bin/busybox" ] ||
		"$TB_TOP/tests/harness/kernels.sh" arm64-6.1
fi

# A tree per source key: kernels built from another one (an older harness,
# a branch with other patches) keep their source for module builds.
srcdir=$TRACEBUF_CACHE/src/$srckey
src=$srcdir/linux-source-6.1
# Two debug builds may extract at once (make -j): one lock.
exec 9>"$TRACEBUF_CACHE/src.lock"
flock 9
if [ ! -f "$src/.tb-version" ] || [ "$(cat "$src/.tb-version")" != "$srcver" ]; then
	tb_log "extracting $tarball"
	rm -rf "$srcdir"
	mkdir -p "$srcdir"
	tar -C "$srcdir" -xf "$tarball"
	for p in "${patches[@]}"; do
		tb_log "applying ${p##*/}"
		patch -s -p1 -N -d "$src" <"$p" ||
			tb_die "${p##*/} does not apply to linux-source-6.1 $srcver"
	done
	echo "$srcver" >"$src/.tb-version"	# last: the tree is complete
fi
flock -u 9

rm -f "$dir/KEY" "$dir/KERNEL"
obj=$dir/obj
mkdir -p "$obj"
mk=(make -s -C "$src" O="$obj" ARCH="$karch")
[ -n "$cross" ] && mk+=(CROSS_COMPILE="$cross")
tb_log "configuring the $arch $variant kernel in $obj"
"${mk[@]}" tinyconfig >/dev/null
cat "${frags[@]}" >"$obj/debug.config"
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
[ $bad = 0 ] || tb_die "$arch $variant kernel configuration incomplete"

tb_log "building the $arch $variant kernel (about $minutes minutes on 2 cores)"
"${mk[@]}" -j"$(nproc)" $target modules 2>&1 | grep -v '^  ' || true
[ -f "$obj/$image" ] || tb_die "$arch $variant kernel build failed"
"${mk[@]}" kernelrelease >"$dir/KVER"
echo "$obj" >"$dir/KDIR"
echo "$obj/$image" >"$dir/KERNEL"
if [ "$arch" = arm64 ]; then
	ln -sfn "$(tb_cfg_dir arm64-6.1)/root" "$dir/root"
fi
echo "$key" >"$dir/KEY"
ln -sfn "$dir" "$(tb_cfg_dir "$arch-$variant")"
tb_log "$arch $variant kernel $(cat "$dir/KVER") ready"
