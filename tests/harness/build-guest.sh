#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
# Build everything a guest of one configuration needs, under
# build/guest/CONFIG/:
#   ko/       tracebuf.ko (DKMS-built on the stock x86_64 kernels, else a
#             plain kbuild build) and the tests-only modules
#   bin/      static guest test programs, the tracebuf tool, tb-poweroff;
#             and gtplt, dynamically linked against bin/libgtplt.so
#   root/     files for the guest's / (run-guest.sh copies them in): the
#             system's dynamic loader at gtplt's PT_INTERP path; with bin/
#             as /tests, the sysroot the host decodes guest captures with
#   build.log the kernel build output (checked for warnings by the caller)
#
#   build-guest.sh CONFIG
set -euo pipefail
. "$(dirname "$0")/lib.sh"

cfg=$1
arch=$(tb_cfg_arch "$cfg")
kdir=$(tb_cfg_get "$cfg" KDIR)
kver=$(tb_cfg_get "$cfg" KVER)
ver=$(tb_version)
b=$(tb_build_dir "$cfg")
cross=$(tb_cross_env "$arch")
cc=$(tb_cc "$arch")

rm -rf "$b"
mkdir -p "$b/src" "$b/ko" "$b/bin"
# Build from a copy so configurations never share object files.
cp -a "$TB_TOP/module" "$TB_TOP/include" "$TB_TOP/dkms.conf" "$b/src/"
mkdir -p "$b/src/tests"
cp -a "$TB_TOP/tests/modules" "$b/src/tests/"
log=$b/build.log
: >"$log"

# The plain kbuild build: the module of the non-DKMS configurations, and
# the Module.symvers the tests-only modules link against everywhere.
# shellcheck disable=SC2086
make -C "$kdir" M="$b/src/module" $cross modules >>"$log" 2>&1 ||
	{ cat "$log" >&2; tb_die "$cfg: module build failed"; }
if tb_cfg_dkms "$cfg"; then
	# dkms in private trees: nothing touches the host's /var/lib/dkms or
	# /lib/modules.
	dk=$b/dkms
	mkdir -p "$dk/source/tracebuf-$ver" "$dk/tree" "$dk/install"
	cp -a "$TB_TOP/module" "$TB_TOP/include" "$TB_TOP/dkms.conf" "$dk/source/tracebuf-$ver/"
	opts=(--sourcetree "$dk/source" --dkmstree "$dk/tree")
	{
		dkms add -m tracebuf -v "$ver" "${opts[@]}"
		dkms build -m tracebuf -v "$ver" -k "$kver" --kernelsourcedir "$kdir" "${opts[@]}"
		cat "$dk/tree/tracebuf/$ver/$kver/x86_64/log/make.log"
	} >>"$log" 2>&1 || { cat "$log" >&2; tb_die "$cfg: dkms build failed"; }
	ko=$dk/tree/tracebuf/$ver/$kver/x86_64/module/tracebuf.ko
	[ -f "$ko" ] || tb_die "$cfg: dkms build produced no module ($ko)"
	mkdir -p "$b/ko/updates/dkms"
	cp "$ko" "$b/ko/updates/dkms/"
else
	mkdir -p "$b/ko/extra"
	cp "$b/src/module/tracebuf.ko" "$b/ko/extra/"
fi
# shellcheck disable=SC2086
make -C "$kdir" M="$b/src/tests/modules" $cross \
	KBUILD_EXTRA_SYMBOLS="$b/src/module/Module.symvers" modules >>"$log" 2>&1 ||
	{ cat "$log" >&2; tb_die "$cfg: test module build failed"; }
mkdir -p "$b/ko/extra"
cp "$b/src/tests/modules/"*.ko "$b/ko/extra/"

# Userspace, static, for the guest's architecture (shared per arch).
u=$TB_TOP/build/user-static-$arch
make -s -C "$TB_TOP/userspace" O="$u" CC="$cc" STATIC_ONLY=1 \
	CROSS_COMPILE="$([ "$arch" = arm64 ] && echo aarch64-linux-gnu-)" >>"$log" 2>&1 ||
	{ cat "$log" >&2; tb_die "$cfg: userspace build failed"; }
cp "$u/tracebuf" "$b/bin/"

cflags=(-std=c11 -D_GNU_SOURCE -O2 -Wall -Wextra -Werror -static
	-I"$TB_TOP/include/uapi" -I"$TB_TOP/userspace/lib/include" -I"$TB_TOP/tests/guest" -I"$TB_TOP/tests/modules")
"$cc" "${cflags[@]}" -o "$b/bin/tb-poweroff" "$TB_TOP/tests/harness/tb-poweroff.c"
for src in "$TB_TOP"/tests/guest/*.c; do
	name=$(basename "$src" .c)
	extra=()
	# ptfollow decodes x86 instructions with Capstone (libcapstone-dev, static).
	[ "$name" = ptfollow ] && [ "$arch" = x86_64 ] && extra=(-lcapstone)
	"$cc" "${cflags[@]}" -o "$b/bin/$name" "$src" "$u/libtracebuf.a" "${extra[@]}" -lpthread
done
# gtplt (tool_gt's gt-plt): dynamically linked, without libc (its own
# _start, raw system calls), against libgtplt.so (also -nostdlib; found in
# /tests by gtplt's DT_RUNPATH), lazy binding, with the system's dynamic
# loader for the guest's architecture as PT_INTERP (arm64: Debian's
# libc6-arm64-cross). The loader goes to root/ under that path, a file, not
# a symlink: the guest maps it from there and the sideband names that path.
case $arch in
arm64) interp=/lib/ld-linux-aarch64.so.1 ldso=/usr/aarch64-linux-gnu/lib/ld-linux-aarch64.so.1 ;;
*) interp=/lib64/ld-linux-x86-64.so.2 ldso=/lib64/ld-linux-x86-64.so.2 ;;
esac
[ -f "$ldso" ] || tb_die "$cfg: no dynamic loader $ldso for gtplt (tests/harness/deps.sh)"
dflags=(-std=c11 -O2 -Wall -Wextra -Werror -fno-stack-protector -nostdlib '-Wl,--build-id')
"$cc" "${dflags[@]}" -fPIC -shared -Wl,-soname,libgtplt.so -o "$b/bin/libgtplt.so" \
	"$TB_TOP/tests/guest/gtplt/libgtplt.c"
"$cc" "${dflags[@]}" -Wl,-z,lazy -Wl,-rpath,/tests -Wl,--dynamic-linker="$interp" \
	-o "$b/bin/gtplt" "$TB_TOP/tests/guest/gtplt/gtplt.c" -L"$b/bin" -lgtplt
mkdir -p "$b/root$(dirname "$interp")"
cp -L "$ldso" "$b/root$interp"
for src in "$TB_TOP"/tests/guest/*.sh; do
	[ -e "$src" ] || continue
	install -m 755 "$src" "$b/bin/$(basename "$src" .sh)"
done
echo "$kver" >"$b/KVER"
