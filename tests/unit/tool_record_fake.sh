#!/bin/sh
# SPDX-License-Identifier: GPL-2.0
# 'tracebuf record' on libtracebuf's group, natively: the preloaded fakes
# (fake_ioctl.c + fake_mmap_preload.c, FAKE_TB_PRODUCE) play the module and
# the hardware at ENABLE: a span, LOST records (3 records; 100 AUX bytes, a
# lower bound), 100 AUX bytes without a record, a TRUNCATED span, a marker,
# a record of an unknown type. The capture must hold every byte and record
# (read back by 'tracebuf dump', which checks it), meta.json must count the
# loss, and the exit status must say it (1, or 0 with --allow-loss).
#   tool_record_fake.sh TRACEBUF FAKE_SO TMPDIR
set -u
tool=$1 fake=$2 t=$3
fail=0
no() { echo "not ok: $*"; fail=1; }

rm -f "$t/dev"
mkfifo "$t/dev" || exit 1

rec() { # WANT_STATUS ARGS...
	want=$1
	shift
	rm -rf "$t/cap"
	env TRACEBUF_DEVICE="$t/dev" LD_PRELOAD="$fake" FAKE_TB_BACKENDS=1 FAKE_TB_PRODUCE=1 \
		"$tool" record -C 0 --aux-size 8K --duration 0.3 -q -o "$t/cap" "$@" \
		>"$t/out" 2>"$t/err"
	got=$?
	echo "--- record $*: exit $got"
	cat "$t/err"
	[ "$got" = "$want" ] || no "record $*: exit $got, expected $want"
}
has() { grep -qF -- "$2" "$1" || no "$1 has no '$2'"; }

rec 1
has "$t/err" "tracebuf: recorded 1 CPU for "
has "$t/err" "trace lost on CPU 0 (1 truncated span, at least 100 bytes of trace the AUX ring had no room for, 100 bytes of trace without a record, 3 lost records): the consumer fell behind; use a bigger --aux-size (or --data-size), or --allow-loss"
[ "$(stat -c %s "$t/cap/cpu0.aux")" = 5000 ] || no "cpu0.aux is not 5000 bytes"
# The bytes are the spans' ([0, 3000) and [3100, 5100) of the ring).
python3 - "$t/cap/cpu0.aux" <<'PY' || no "cpu0.aux does not hold the spans' bytes"
import sys
b = open(sys.argv[1], "rb").read()
want = bytes(i & 255 for i in range(3000)) + bytes(i & 255 for i in range(3100, 5100))
assert b == want
PY
m=$t/cap/meta.json
has "$m" '"aux_bytes": 5000, "aux_spans": 2, "aux_truncations": 1, "aux_collisions": 0'
has "$m" '"aux_gap_bytes": 100'
has "$m" '"records": 6, "records_lost": 3'
has "$m" '"aux_lost_bytes": 100, "aux_lost_at_least": true'
has "$m" '"lost": true'
has "$m" '"complete": true'
# Read back through the capture reader: it adds up.
"$tool" dump "$t/cap" >"$t/dump" 2>"$t/dump.err" || { no "dump: exit $?"; cat "$t/dump.err"; }
cat "$t/dump"
has "$t/dump" "AUX          offset=0x0 size=3000 flags=- file_offset=0"
has "$t/dump" "LOST         count=3 reason=ring_full flags=-"
has "$t/dump" "LOST         count=100 reason=aux_overrun flags=AT_LEAST"
has "$t/dump" "AUX          offset=0xc1c size=2000 flags=TRUNCATED file_offset=3000"
has "$t/dump" "USER         cookie=0xfeed len=5 data=\"hello\""
has "$t/dump" "UNKNOWN      type=0x7f01 size=40"

rec 0 --allow-loss
has "$t/err" "tracebuf: loss allowed (--allow-loss)"

# The per-task target: a command without -a or -C is traced as a process
# (SETUP TARGET_TASK with its pid, INHERIT: the fake refuses anything else
# with the TASK target's fields), started stopped; the fake writes a SWITCH
# IN flagged EXEC for that pid, a SWITCH OUT and a TASK FORK.
task() { # WANT_STATUS ARGS...
	want=$1
	shift
	rm -rf "$t/cap"
	env TRACEBUF_DEVICE="$t/dev" LD_PRELOAD="$fake" FAKE_TB_BACKENDS=1 FAKE_TB_PRODUCE=1 \
		"$tool" record --aux-size 8K -q --allow-loss -o "$t/cap" "$@" >"$t/out" 2>"$t/err"
	got=$?
	echo "--- record $*: exit $got"
	cat "$t/err"
	[ "$want" = any ] || [ "$got" = "$want" ] || no "record $*: exit $got, expected $want"
}
task 0 --sideband proc -- /bin/sleep 0.3
has "$t/err" "tracebuf: sideband: "
pid=$(sed -n 's/^"pid": \([0-9]*\),$/\1/p' "$m")
[ -n "$pid" ] || no "meta.json has no pid"
has "$m" '"target": "task"'
has "$m" '"inherit": true'
has "$m" '"source": "proc", "partial": true, "partial_reason": "--sideband proc"'
has "$m" '"files": ["proc.sb"]'
has "$m" '"vdso": {"file": "vdso.so", "size": '
has "$m" '"counter": "tsc"'
"$tool" dump "$t/cap" >"$t/dump" 2>"$t/dump.err" || { no "task dump: exit $?"; cat "$t/dump.err"; }
cat "$t/dump"
has "$t/dump" "# target: process $pid and the processes it forked"
has "$t/dump" "SWITCH       pid=$pid tid=$pid aux_offset=0x0 flags=IN|EXEC"
has "$t/dump" "TASK         pid=$((pid + 1)) ppid=$pid reason=fork"
# The sideband from /proc: the child before its exec (this tool), its comm;
# at the EXEC record, comm exec and what sleep maps, with build-ids; the fork.
has "$t/dump" "PERF_COMM    pid=$pid tid=$pid comm=\"tracebuf\" file=proc.sb"
has "$t/dump" "PERF_COMM    pid=$pid tid=$pid exec comm=\"sleep\" file=proc.sb"
grep -q "PERF_MMAP2   pid=$pid tid=$pid .* r-xp build_id=[0-9a-f]* path=\".*bin/sleep\" file=proc.sb" "$t/dump" ||
	no "no MMAP2 of sleep with its build-id"
grep -q "PERF_MMAP2   pid=$pid .* path=\"\[vdso\]\" file=proc.sb" "$t/dump" || no "no MMAP2 of the vDSO"
has "$t/dump" "PERF_FORK    pid=$((pid + 1)) ppid=$pid tid=$((pid + 1)) ptid=$pid file=proc.sb"
# The exec's records are dated at the EXEC SWITCH record, after the tool's image.
awk '/SWITCH .*flags=IN\|EXEC/ { sw = $1 } /exec comm="sleep"/ { ex = $1 }
     /comm="tracebuf"/ { pre = $1 } END { exit !(sw == ex && pre <= ex) }' "$t/dump" ||
	no "the exec's sideband is not dated at the EXEC record"
[ -s "$t/cap/vdso.so" ] || no "no vdso.so"

# --no-inherit: SETUP without INHERIT (the fake would refuse other flags).
task 0 --no-inherit --sideband none -- /bin/true
has "$m" '"inherit": false'
has "$m" '"source": "none", "partial": true'

# -p PID: until it exits; its state from /proc at the start.
/bin/sleep 0.4 &
bg=$!
task 0 --sideband proc -p $bg
wait $bg
has "$m" "\"pid\": $bg,"
"$tool" dump "$t/cap" >"$t/dump" 2>"$t/dump.err" || no "-p dump: exit $?"
grep -q "PERF_MMAP2   pid=$bg .* path=\".*bin/sleep\" file=proc.sb" "$t/dump" ||
	{ no "-p: no MMAP2 of sleep"; cat "$t/dump"; }
has "$t/dump" "PERF_COMM    pid=$bg tid=$bg comm=\"sleep\" file=proc.sb"

# perf's dummy events, where this machine lets us open them.
task any --sideband perf -- /bin/sleep 0.2
if [ "$got" = 0 ]; then
	has "$m" '"source": "perf_event", "partial": false'
	has "$m" '"files": ["cpu0.sb", '
	"$tool" dump "$t/cap" >"$t/dump" 2>"$t/dump.err" || no "perf dump: exit $?"
	has "$t/dump" "exec comm=\"sleep\""
	grep -q "PERF_MMAP2 .* path=\".*bin/sleep\"$" "$t/dump" || no "perf: no MMAP2 of sleep"
	has "$t/dump" "PERF_SWITCH  "
elif grep -q "cannot record the sideband with perf" "$t/err"; then
	echo "perf_event_open refused here: the perf sideband is not tested natively"
else
	no "--sideband perf: exit $got"
fi

# Usage errors.
for a in "-p 1 -a" "-p 1 -C 0" "-p 1 -- true" "--no-inherit -a" "--sideband x -a" "-p 0" "-p x"; do
	# shellcheck disable=SC2086
	env TRACEBUF_DEVICE="$t/dev" "$tool" record $a >"$t/out" 2>"$t/err"
	got=$?
	[ "$got" = 2 ] || { no "record $a: exit $got, expected 2"; cat "$t/err"; }
done

exit $fail
