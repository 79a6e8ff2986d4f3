#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
# make demo: boot a guest on the stock Debian 6.1 kernel, load tracebuf and
# the Intel PT emulator with modprobe, record all CPUs while a workload runs,
# then, as an ordinary user, one small program (tests/guest/demo-prog.c)
# that the emulator follows; on the host, decode the first capture with the
# tool's libipt decoder and print the program's call trace with function
# names, and write its Perfetto timeline.
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

# The program an ordinary user recorded: its call trace with function
# names, from the capture's sideband (its mappings and build-ids) and the
# guest's binaries (/tests in the guest is the guest build's bin/).
cap=$out/guest/cap/demo-prog
sr=$out/sysroot
rm -rf "$sr" && mkdir -p "$sr" && ln -s "$(tb_build_dir "$cfg")/bin" "$sr/tests"
echo "# (on the host) tracebuf decode --calls --sysroot $sr $cap"
"$TB_TOP/build/user/tracebuf" decode --calls --sysroot "$sr" "$cap" >"$out/demo-prog.calls"
grep -q -- '-> main (' "$out/demo-prog.calls" || tb_die "no call of main in the call trace"
echo "main and the calls it made (time, [CPU], pid/tid, -> call, <- return and its duration):"
awk '	{ p = match($0, /(->|<-|=>) /) }
	!on && /-> main \(/ { on = 1; d = p }
	on && p <= d + 2 { print }
	on && p == d && /<- main / { exit }' "$out/demo-prog.calls"
echo "(every call, from _start, with qsort's calls of by_weight and printf's insides: $out/demo-prog.calls)"
echo "# (on the host) tracebuf export --perfetto $out/demo-prog.json --sysroot $sr $cap"
"$TB_TOP/build/user/tracebuf" export --perfetto "$out/demo-prog.json" --sysroot "$sr" "$cap"
echo "Open $out/demo-prog.json in https://ui.perfetto.dev (or chrome://tracing) for its timeline."
echo
tb_log "done: traces recorded in the guest, decoded on the host ($TB_TOP/build/demo)"
