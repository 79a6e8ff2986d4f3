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

exit $fail
