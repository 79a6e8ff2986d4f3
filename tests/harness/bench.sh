#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
# make bench: run the benchmarks in an x86_64 6.1 guest and print their
# numbers (docs/testing.md). Not a test: nothing here asserts a timing, but
# a run that does not balance, a failed dd or an AUX accounting identity
# that does not hold fails it.
set -euo pipefail
. "$(dirname "$0")/lib.sh"

cfg=${TB_BENCH_CONFIG:-x86_64-6.1}
out=$TB_TOP/build/bench
"$TB_TOP/tests/harness/build-guest.sh" "$cfg" >/dev/null
mkdir -p "$out"
printf "bench_ring 1200 5\nbench_drain 600\n" >"$out/plan.in"
tb_log "benchmarking in $cfg under QEMU TCG (numbers are relative)"
res=$("$TB_TOP/tests/harness/run-guest.sh" --timeout 1500 "$cfg" "$out/plan.in" "$out/guest")
grep '^bench:' "$out/guest/console.txt" || true
if echo "$res" | grep -q '^FAIL'; then
	echo "$res"
	exit 1
fi
# The decoder's throughput, on the host.
"$TB_TOP/tests/harness/bench-decode.sh"
