#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
# Take the few kernel scripts the harness needs (checkpatch.pl and its data,
# extract-vmlinux) out of Debian's linux-source-6.1 into the private cache.
set -euo pipefail
. "$(dirname "$0")/lib.sh"

tarball=/usr/src/linux-source-6.1.tar.xz
[ -f "$tarball" ] || tb_die "$tarball missing: run tests/harness/deps.sh"
ver=$(dpkg-query -W -f='${Version}' linux-source-6.1)
dst=$TRACEBUF_CACHE/tools
[ -f "$dst/.version" ] && [ "$(cat "$dst/.version")" = "$ver" ] && exit 0
tb_log "extracting checkpatch.pl and extract-vmlinux from linux-source-6.1"
rm -rf "$dst"
mkdir -p "$dst"
tar -C "$dst" --strip-components=1 -xf "$tarball" \
	linux-source-6.1/scripts/checkpatch.pl \
	linux-source-6.1/scripts/spelling.txt \
	linux-source-6.1/scripts/const_structs.checkpatch \
	linux-source-6.1/scripts/extract-vmlinux
echo "$ver" >"$dst/.version"
