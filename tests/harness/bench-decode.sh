#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
# make bench, the decoder's part (on the host; also run on its own): the
# throughput of 'tracebuf decode --insn' and '--calls' (trace MB/s,
# instructions/s) and 'tracebuf export --perfetto' (and its peak RSS: the
# export streams, its memory must not grow with the trace) on a per-task
# Intel PT capture of TB_BENCH_DECODE_MB MiB (default 100) that
# tests/host/benchcap.c writes for the loop of tests/host/benchprog.S.
# Numbers, not a test: nothing here asserts a timing.
set -euo pipefail
. "$(dirname "$0")/lib.sh"

mb=${TB_BENCH_DECODE_MB:-100}
out=$TB_TOP/build/bench/decode
tool=$TB_TOP/build/user/tracebuf
mkdir -p "$out"
make -s -C "$TB_TOP/userspace" O="$TB_TOP/build/user" >/dev/null
make -s -C "$TB_TOP/tests/host" O="$TB_TOP/build" "$TB_TOP/build/host/benchcap" >/dev/null
gcc -nostdlib -static -no-pie -Wl,--build-id -o "$out/benchprog" "$TB_TOP/tests/host/benchprog.S"
rm -rf "$out/cap"
read -r _ bytes _ insns _ calls < <("$TB_TOP/build/host/benchcap" "$out/benchprog" "$mb" "$out/cap")
tb_log "decoder benchmark: $((bytes >> 20)) MiB of Intel PT, $insns instructions, $calls calls"

# run NAME COMMAND...: "bench: NAME: ..." with the time, the rates and the peak RSS.
run() {
	local name=$1 t0 t1 rss
	shift
	t0=$(date +%s.%N)
	/usr/bin/time -f %M -o "$out/rss" "$@" >/dev/null 2>"$out/err" ||
		{ echo "bench: $name: failed: $(head -c 300 "$out/err")"; return 1; }
	t1=$(date +%s.%N)
	rss=$(tail -n1 "$out/rss")
	awk -v n="$name" -v b="$bytes" -v i="$insns" -v t0="$t0" -v t1="$t1" -v r="$rss" 'BEGIN {
		s = t1 - t0
		printf "bench: %s: %.1f MB of trace, %d instructions in %.1f s: %.2f MB/s, %.2f M instructions/s, peak RSS %.1f MB\n",
			n, b / 1048576, i, s, b / 1048576 / s, i / 1e6 / s, r / 1024 }'
}
run "decode --insn" "$tool" decode "$out/cap" --insn
run "decode --insn --json" "$tool" decode "$out/cap" --insn --json
run "decode --calls" "$tool" decode "$out/cap" --calls
run "export --perfetto" "$tool" export --perfetto - "$out/cap"
