#!/bin/sh
# SPDX-License-Identifier: GPL-2.0
# 'tracebuf decode' on synthetic capture directories written by capture_gen (ptemu_gen.h's packets, cpu0.data records with a
# TRUNCATED span and CONFIG records, meta.json).
#   tool_decode.sh TRACEBUF CAPTURE_GEN TMPDIR
set -u
tool=$1 gen=$2 t=$3
fail=0
no() { echo "not ok: $*"; fail=1; }

run() { # WANT_STATUS ARGS...
	want=$1
	shift
	"$tool" "$@" >"$t/out" 2>"$t/err"
	got=$?
	[ "$got" = "$want" ] || no "tracebuf $*: exit $got, expected $want ($(head -c 300 "$t/err"))"
}

has() { grep -qE -- "$1" "$t/out" || no "no line matching '$1' on stdout"; }
err_has() { grep -qF -- "$1" "$t/err" || no "no '$1' on stderr"; }

rm -rf "$t/cap" "$t/bad" "$t/notrunc" "$t/short" "$t/nometa" "$t/cs" "$t/inc"
"$gen" "$t/cap" >"$t/expect" || { echo "capture_gen failed"; exit 1; }
cat "$t/expect"
want() { sed -n "s/^$1 //p" "$t/expect"; }
bytes=$(want bytes) spans=$(want spans) ptws=$(want ptws) segs=$(want segments)

# Usage errors come first, with or without libipt.
run 2 decode
run 2 decode --bogus "$t/cap"
run 2 decode "$t/cap" extra
run 2 decode --cpu x "$t/cap"
run 2 decode --packets --json "$t/cap"
mkdir -p "$t/cs"
sed 's/"intel_pt"/"coresight"/' "$t/cap/meta.json" >"$t/cs/meta.json"

# Built without libipt: the message, exit 1, nothing else to test.
"$tool" decode "$t/cap" >"$t/out" 2>"$t/err"
if grep -qF "decode needs libipt" "$t/err"; then
	run 1 decode "$t/cap"
	err_has "decode needs libipt: install libipt-dev (Debian: apt-get install libipt-dev) and rebuild"
	echo "tracebuf built without libipt: only its message checked"
	exit $fail
fi

# The summary.
run 0 decode "$t/cap"
cat "$t/out"
has "^cpu 0:$"
has "^  bytes: +$bytes \\($spans spans, 1 truncated, 0 collisions\\)$"
has "^  segments: +$segs$"
has "^  ptws: +$ptws$"
has "^  errors: +0$"
has "^  cut: +1$"
has "^  ovfs: +0$"
has "^  psbs: +[0-9]+$"
has "^    psb +[0-9]+$"
has "^    ptw +$ptws$"
has "^    tip.pge +3$"
has "^    mwait +[0-9]+$"
has "^  tsc: +0x100000 \\.\\. 0x[0-9a-f]+$"
has "^  lost: +2 records$"
has "^  config: +generation 1 at 0x0: branch=1,user=1,.*,pwr_evt=1,"
has "^  config: +generation 2 at 0x[0-9a-f]+: branch=1,.*,cyc=1,"
run 0 decode --cpu 0 "$t/cap"
has "^  ptws: +$ptws$"
run 1 decode --cpu 1 "$t/cap"
err_has "CPU 1 is not in the capture"

# --json: one object.
run 0 decode --json "$t/cap"
python3 - "$t/out" "$ptws" "$segs" "$bytes" "$spans" <<'EOF' || no "decode --json: invalid JSON or wrong values"
import json, sys
d = json.load(open(sys.argv[1]))
ptws, segs, nbytes, spans = map(int, sys.argv[2:6])
assert d["backend"] == "intel_pt" and d["snapshot"] is False, d
assert len(d["cpus"]) == 1
c = d["cpus"][0]
assert c["cpu"] == 0 and c["bytes"] == nbytes and c["spans"] == spans, c
assert c["ptws"] == ptws and c["packet_types"]["ptw"] == ptws, c
assert c["segments"] == segs and c["truncated"] == 1 and c["cut"] == 1, c
assert c["errors"] == 0 and c["first_errors"] == [], c
assert c["psbs"] == c["packet_types"]["psb"] >= 3, c
assert c["tsc_first"] == 0x100000 and c["tsc_last"] > c["tsc_first"], c
assert c["records_lost"] == 2, c
assert [x["generation"] for x in c["config"]] == [1, 2], c
assert c["config"][0]["offset"] == 0 and "fup_on_ptw=1" in c["config"][1]["config"], c
assert sum(c["packet_types"].values()) == c["packets"], c
t = d["total"]
assert t["ptws"] == ptws and t["errors"] == 0 and t["bytes"] == nbytes, t
EOF

# --packets: every packet with its offset.
run 0 decode --packets "$t/cap"
cp "$t/out" "$t/packets"
head -n 12 "$t/packets"
[ "$(grep -cE '^[0-9a-f]{8}  ptw  0x[0-9a-f]+ \(8 bytes(, ip)?\)$' "$t/packets")" = "$ptws" ] ||
	no "--packets: not $ptws PTW lines"
grep -qxF "00000000  psb" "$t/packets" || no "--packets: no PSB at offset 0"
[ "$(grep -cE '^[0-9a-f]{8}  psb$' "$t/packets")" -ge 3 ] || no "--packets: fewer than 3 PSBs"
grep -qE '^[0-9a-f]{8}  psbend$' "$t/packets" || no "--packets: no PSBEND"
grep -qE '^[0-9a-f]{8}  tip\.pge  [0-9a-f]{16} \((upd16|upd32|upd48|sext48|full)\)$' \
	"$t/packets" || no "--packets: no TIP.PGE line"
grep -qE '^[0-9a-f]{8}  tnt\.(8|64)  [TN]+ \([0-9]+\)$' "$t/packets" || no "--packets: no TNT line"
grep -qE '^[0-9a-f]{8}  tsc  0x[0-9a-f]+$' "$t/packets" || no "--packets: no TSC line"
grep -qE '^[0-9a-f]{8}  mode\.exec  64-bit$' "$t/packets" || no "--packets: no MODE.EXEC line"
grep -qE '^[0-9a-f]{8}  cut  ' "$t/packets" || no "--packets: no cut line"
grep -qE '^# segment 2: ' "$t/packets" || no "--packets: no segment 2"
# offsets increase
grep -E '^[0-9a-f]{8}  ' "$t/packets" | cut -c1-8 | python3 -c '
import sys
o = [int(x, 16) for x in sys.stdin]
assert o == sorted(o) and len(set(o)) == len(o), "offsets not increasing"
' || no "--packets: offsets not strictly increasing"

# A corrupted byte: the 5th PTW's opcode byte becomes an undefined one.
off=$(grep -E '^[0-9a-f]{8}  ptw  ' "$t/packets" | sed -n 5p | cut -c1-8)
cp -r "$t/cap" "$t/bad"
printf '\001' | dd of="$t/bad/cpu0.aux" bs=1 seek=$((0x$off + 1)) conv=notrunc 2>/dev/null
run 1 decode "$t/bad"
has "^  errors: +1$"
has "^    error at 0x$(echo "$off" | sed 's/^0*//'): "
run 1 decode --json "$t/bad"
python3 -c '
import json, sys
c = json.load(open(sys.argv[1]))["cpus"][0]
assert c["errors"] == 1 and c["first_errors"][0]["offset"] == int(sys.argv[2], 16), c
assert c["first_errors"][0]["message"]
' "$t/out" "$off" || no "decode --json of a corrupted capture"
run 1 decode --packets "$t/bad"
has "^$off  error  "

# A stop without the TRUNCATED flag: the cut packet is an error.
"$gen" --no-trunc-flag "$t/notrunc" >/dev/null
run 1 decode "$t/notrunc"
has "^  errors: +[1-9]"

# cpu0.aux shorter than its AUX records say.
cp -r "$t/cap" "$t/short"
head -c $((bytes - 100)) "$t/cap/cpu0.aux" >"$t/short/cpu0.aux"
run 1 decode "$t/short"
err_has "cpu0.aux has $((bytes - 100)) bytes, the AUX records of cpu0.data describe $bytes"
err_has "the capture does not add up (1 problem above): not decoded"
[ -s "$t/out" ] && no "decode of a damaged capture printed something"

# No meta.json: not a capture.
cp -r "$t/cap" "$t/nometa"
rm "$t/nometa/meta.json"
run 1 decode "$t/nometa"
err_has "meta.json: No such file or directory (every capture has one)"

# An interrupted recording: decoded, but exit 1 with the reason.
rm -rf "$t/inc"
cp -r "$t/cap" "$t/inc"
sed 's/"complete": true/"complete": false/' "$t/cap/meta.json" >"$t/inc/meta.json"
run 1 decode "$t/inc"
has "^  ptws: +$ptws$"
err_has "the capture is incomplete"

# Not a capture.
run 1 decode "$t/nonexistent"
err_has "No such file or directory"
run 1 decode "$t/cs"
err_has "a CoreSight capture: convert it with 'tracebuf export --opencsd OUTDIR $t/cs'"

exit $fail
