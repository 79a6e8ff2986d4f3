#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
# Build (or reuse) the x86_64 debug kernel: linux-source-6.1 + tinyconfig +
# tests/harness/debug.config (KASAN, lockdep, UBSAN, kmemleak, DEBUG_PAGEALLOC).
# Cached in $TRACEBUF_CACHE/kernels/x86_64-debug; rebuilt when missing, when the
# fragment changes, or when the linux-source package version changes.
set -euo pipefail
. "$(dirname "$0")/lib.sh"

frag=$TB_TOP/tests/harness/debug.config
tarball=/usr/src/linux-source-6.1.tar.xz
[ -f "$tarball" ] || tb_die "$tarball missing: run tests/harness/deps.sh"
srcver=$(dpkg-query -W -f='${Version}' linux-source-6.1)
key=$( (echo "$srcver"; cat "$frag") | sha256sum | cut -c1-16)
dir=$(tb_cfg_dir x86_64-debug)

if [ -f "$dir/KEY" ] && [ "$(cat "$dir/KEY")" = "$key" ] && [ -f "$dir/KERNEL" ]; then
	tb_log "debug kernel is up to date ($dir)"
	exit 0
fi

src=$TRACEBUF_CACHE/src/linux-source-6.1
if [ ! -f "$src/.tb-version" ] || [ "$(cat "$src/.tb-version")" != "$srcver" ]; then
	tb_log "extracting $tarball"
	rm -rf "$src"
	mkdir -p "$TRACEBUF_CACHE/src"
	tar -C "$TRACEBUF_CACHE/src" -xf "$tarball"
	echo "$srcver" >"$src/.tb-version"
fi

rm -f "$dir/KEY" "$dir/KERNEL"
obj=$dir/obj
mkdir -p "$obj"
tb_log "configuring the debug kernel in $obj"
make -s -C "$src" O="$obj" tinyconfig >/dev/null
(cd "$obj" && "$src/scripts/kconfig/merge_config.sh" -m -O "$obj" .config "$frag" >/dev/null)
make -s -C "$src" O="$obj" olddefconfig >/dev/null

# Every option of the fragment must have stuck: a silently dropped KASAN
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
done <"$frag"
[ $bad = 0 ] || tb_die "debug kernel configuration incomplete"

tb_log "building the debug kernel (about 7 minutes on 2 cores)"
make -s -C "$src" O="$obj" -j"$(nproc)" bzImage modules 2>&1 | grep -v '^  ' || true
[ -f "$obj/arch/x86/boot/bzImage" ] || tb_die "debug kernel build failed"
make -s -C "$src" O="$obj" kernelrelease >"$dir/KVER"
echo "$obj" >"$dir/KDIR"
echo "$obj/arch/x86/boot/bzImage" >"$dir/KERNEL"
echo "$key" >"$dir/KEY"
tb_log "debug kernel $(cat "$dir/KVER") ready"
