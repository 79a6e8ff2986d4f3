#!/bin/sh
# SPDX-License-Identifier: GPL-2.0
# 'make install' into a staging tree, then build and run a program with
# nothing but what pkg-config says about the staged libtracebuf.
#   pkgconfig.sh TOP USERSPACE_BUILD_DIR CC VERSION TMPDIR
set -eu
top=$1 ub=$2 cc=$3 version=$4 t=$5
stage=$t/stage

rm -rf "$stage"
make -s -C "$top/userspace" O="$ub" CC="$cc" install DESTDIR="$stage" PREFIX=/usr

for f in usr/include/libtracebuf.h usr/include/tracebuf.h usr/lib/libtracebuf.a \
	usr/lib/libtracebuf.so usr/lib/libtracebuf.so.0 usr/lib/libtracebuf.so.$version \
	usr/lib/pkgconfig/libtracebuf.pc usr/bin/tracebuf \
	usr/share/man/man3/tracebuf_open.3 usr/share/man/man1/tracebuf.1; do
	[ -e "$stage/$f" ] || { echo "not installed: /$f"; exit 1; }
done

export PKG_CONFIG_SYSROOT_DIR="$stage" PKG_CONFIG_LIBDIR="$stage/usr/lib/pkgconfig"
unset PKG_CONFIG_PATH
modversion=$(pkg-config --modversion libtracebuf)
[ "$modversion" = "$version" ] || { echo "pkg-config version '$modversion', expected '$version'"; exit 1; }
flags=$(pkg-config --cflags --libs libtracebuf)
echo "pkg-config: $flags"
# shellcheck disable=SC2086
"$cc" -std=c11 -Wall -Wextra -Werror -o "$t/prog" "$top/tests/unit/pkgconfig_prog.c" $flags

readelf -d "$t/prog" | grep -q 'NEEDED.*\[libtracebuf\.so\.0\]' ||
	{ echo "program does not need libtracebuf.so.0"; readelf -d "$t/prog"; exit 1; }
out=$(LD_LIBRARY_PATH="$stage/usr/lib" "$t/prog")
[ "$out" = "$version 1" ] || { echo "program printed '$out', expected '$version 1'"; exit 1; }
