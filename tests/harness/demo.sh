#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
# make demo: boot a guest on the stock Debian 6.1 kernel, load tracebuf and
# the Intel PT emulator with modprobe, record all CPUs while a workload runs,
# then decode the capture on the host with the tool's libipt decoder.
set -euo pipefail
. "$(dirname "$0")/lib.sh"

cfg=${TB_DEMO_CONFIG:-x86_64-6.1}
out=$TB_TOP/build/demo
tb_log "building tracebuf for $cfg"
"$TB_TOP/tests/harness/build-guest.sh" "$cfg" >/dev/null
make -s -C "$TB_TOP/userspace" O="$TB_TOP/build/user" LIBIPT=1 >/dev/null
# The guest's capture is checked on the host by ptcheck (run-guest.sh), as
# every test capture is: build it here too, or a fresh clone has none.
make -s -C "$TB_TOP/tests/host" O="$TB_TOP/build" >/dev/null
mkdir -p "$out"
echo "demo 300" >"$out/plan.in"
tb_log "booting $cfg ($(tb_cfg_get "$cfg" KVER)) under QEMU TCG"
res=$("$TB_TOP/tests/harness/run-guest.sh" --timeout 600 "$cfg" "$out/plan.in" "$out/guest")
echo
sed -n '/^=== tracebuf test demo$/,/^=== tracebuf test demo: /p' "$out/guest/console.txt" |
	sed '1d;$d' | grep -v '^\[ *[0-9.]*\] '
echo
echo "$res"
if echo "$res" | grep -q '^FAIL'; then
	tb_die "the demo guest failed; console log: $out/guest/console.txt"
fi
cap=$out/guest/cap/demo
echo "# (on the host) tracebuf decode $cap"
"$TB_TOP/build/user/tracebuf" decode "$cap"
echo
tb_log "done: a trace recorded in the guest ($cap) and decoded on the host"
