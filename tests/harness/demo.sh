#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
# make demo: boot a guest on the stock Debian 6.1 kernel, load tracebuf with
# modprobe and show what 'tracebuf info' reports from inside it.
set -euo pipefail
. "$(dirname "$0")/lib.sh"

cfg=${TB_DEMO_CONFIG:-x86_64-6.1}
out=$TB_TOP/build/demo
tb_log "building tracebuf for $cfg"
"$TB_TOP/tests/harness/build-guest.sh" "$cfg" >/dev/null
mkdir -p "$out"
echo "demo 120" >"$out/plan.in"
tb_log "booting $cfg ($(tb_cfg_get "$cfg" KVER)) under QEMU TCG"
res=$("$TB_TOP/tests/harness/run-guest.sh" --timeout 300 "$cfg" "$out/plan.in" "$out/guest")
echo
sed -n '/^=== tracebuf test demo$/,/^=== tracebuf test demo: /p' "$out/guest/console.txt" |
	sed '1d;$d' | grep -v '^\[ *[0-9.]*\] '
echo
if echo "$res" | grep -q '^FAIL'; then
	echo "$res"
	tb_die "the demo guest failed; console log: $out/guest/console.txt"
fi
tb_log "done: the guest loaded tracebuf and reported its info (console log: $out/guest/console.txt)"
