#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
# ptcheck (tests/host/ptcheck.c) accepts good synthetic captures from
# ptgen_capture and rejects deliberately broken ones; the artifact channel
# (guest-init.sh's send_artifacts framing, run-guest.sh --check-artifacts)
# carries captures intact and fails incomplete ones.
#   ptcheck.sh TOP HOSTBIN TMPDIR
set -u
top=$1 bin=$2 t=$3
fail=0
no() { echo "not ok: $*"; fail=1; }

rm -rf "$t"
mkdir -p "$t"
n=0
# expect accept|reject NAME [ptgen_capture options]
expect() {
	local want=$1 name=$2 d=$t/$2 args=()
	shift 2
	n=$((n + 1))
	"$bin/ptgen_capture" "$@" "$d" || { no "ptgen_capture $* failed"; return; }
	[ -e "$d/snapshot" ] && args=(--snapshot)
	if "$bin/ptcheck" "${args[@]}" "$d" >"$d.out" 2>&1; then
		[ "$want" = accept ] || { no "$name: accepted ($*)"; sed 's/^/    /' "$d.out"; }
	else
		[ "$want" = reject ] || { no "$name: rejected ($*)"; sed 's/^/    /' "$d.out"; }
	fi
}

# Good captures.
expect accept two-segments
expect accept four-segments --segments 4 --seed 3 --dropped-steps 11
expect accept one-segment --segments 1
expect accept no-drop --dropped-steps 0 --seed 5
for s in 1 2 3 4 5 6 7 8; do
	expect accept seed-$s --seed $s --segments 3 --steps 700 --span 1000
done
expect accept small-spans --span 97 --steps 500
expect accept ptw-only --cfg ptw,user
expect accept no-ptw --cfg branch,tsc,mtc,os --segments 3
expect accept psb-rare --cfg branch,ptw,fupptw,user,psb4 --steps 5000
expect accept snapshot --snapshot --steps 5000
expect accept snapshot-small-ring --snapshot --ring 5000 --snapshots 5 --seed 2
expect accept snapshot-no-wrap --snapshot --ring 10000000

# Broken captures.
expect reject flip-psb --flip 3
expect reject flip-ptw --flip-ptw 1234
expect reject flip-ptw-2 --flip-ptw 1 --segments 3
expect reject dup-span --dup-span 5
expect reject dup-last-span --dup-span 29 --segments 1
expect reject drop-span --drop-span 7
expect reject drop-first-span --drop-span 0
expect reject drop-span-no-ptw --drop-span 7 --cfg branch,tsc,user
expect reject no-trunc-flag --no-trunc-flag
expect reject dropped-too-many --dropped-delta 1
expect reject dropped-too-few --dropped-delta -1
expect reject no-emu --no-emu
expect reject snapshot-dup --snapshot --dup-span 1
expect reject snapshot-flip --snapshot --flip-ptw 2990
# A snapshot checked as a normal capture.
"$bin/ptgen_capture" --snapshot "$t/snap-as-normal" && "$bin/ptcheck" "$t/snap-as-normal" >/dev/null &&
	no "snapshot accepted as a normal capture"
# Missing and truncated files.
"$bin/ptgen_capture" "$t/short"
truncate -s -100 "$t/short/aux.bin"
"$bin/ptcheck" "$t/short" >/dev/null && no "short aux.bin accepted"
"$bin/ptgen_capture" "$t/nospans"
rm "$t/nospans/spans.txt"
"$bin/ptcheck" "$t/nospans" >/dev/null && no "missing spans.txt accepted"
"$bin/ptcheck" >/dev/null 2>&1
[ $? = 2 ] || no "ptcheck without arguments does not exit 2"

# The artifact channel, guest side (send_artifacts from guest-init.sh, run
# by busybox as in the guest) then host side (run-guest.sh).
bb=$(command -v busybox || echo /bin/busybox)
g=$t/guest-cap
mkdir -p "$g"
cp -a "$t/two-segments" "$g/cap-a"
cp -a "$t/snapshot" "$g/cap-snap"
cp -a "$t/dup-span" "$g/cap-bad"
sed -n '/^send_artifacts() {/,/^}/p' "$top/tests/harness/guest-init.sh" >"$t/send.sh"
[ -s "$t/send.sh" ] || no "send_artifacts not found in guest-init.sh"
o=$t/run
mkdir -p "$o"
PATH=$t/bbin:$PATH
mkdir -p "$t/bbin"
for a in base64 md5sum wc cut; do ln -sf "$bb" "$t/bbin/$a"; done
"$bb" sh -c ". '$t/send.sh'; send_artifacts '$g'" >"$o/artifacts.log" || no "send_artifacts failed"
# Announced on the result channel, never sent.
printf 'TB-BOOT x\nTB-CAP cap-lost\nTB-DONE 0\n' >"$o/result.txt"
# Sent, but cut off in the middle of a file.
{ echo "TB-CAP cap-cut"; echo "TB-FILE cap-cut aux.bin 1000 0123"; echo "AAAA"; } >>"$o/artifacts.log"
TB_PTCHECK=$bin/ptcheck bash "$top/tests/harness/run-guest.sh" --check-artifacts unit "$o" >"$o/out" 2>&1
sed 's/^/    | /' "$o/out"
grep -q '^PASS unit/ptcheck-cap-a (OK: ' "$o/out" || no "cap-a did not pass"
grep -q '^PASS unit/ptcheck-cap-snap (OK (snapshot)' "$o/out" || no "cap-snap did not pass as a snapshot"
grep -q '^FAIL unit/ptcheck-cap-bad$' "$o/out" || no "cap-bad did not fail"
grep -q '^FAIL unit/ptcheck-cap-lost (capture cap-lost incomplete' "$o/out" || no "cap-lost did not fail"
grep -q '^FAIL unit/ptcheck-cap-cut (.*aux.bin: incomplete' "$o/out" || no "cap-cut did not fail"
[ "$(grep -c '^[A-Z]* unit/ptcheck-' "$o/out")" = 5 ] || no "not 5 result lines"
cmp -s "$o/cap/cap-a/aux.bin" "$t/two-segments/aux.bin" || no "cap-a/aux.bin differs"
cmp -s "$o/cap/cap-a/spans.txt" "$t/two-segments/spans.txt" || no "cap-a/spans.txt differs"
[ -f "$o/cap/cap-snap/snapshot" ] || no "cap-snap/snapshot missing"
# No captures: no output.
: >"$o/artifacts.log"
: >"$o/result.txt"
TB_PTCHECK=$bin/ptcheck bash "$top/tests/harness/run-guest.sh" --check-artifacts unit "$o" >"$o/out2" 2>&1
[ -s "$o/out2" ] && no "output without captures: $(cat "$o/out2")"

[ $fail = 0 ] && echo "ok: $n captures"
exit $fail
