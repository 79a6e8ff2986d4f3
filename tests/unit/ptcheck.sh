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

# Config changes: "config" lines in spans.txt, regions with their own
# settings, checked against the trace when they hold >= 8 KiB.
R=(--region branch,tsc,mtc,cyc,ptw,fupptw,user --region tsc,ptw,user,psb2
   --region branch,os,psb1 --region branch,mtc,ptw,cyc,user:20 --span 3000)
expect accept config-regions "${R[@]}"
grep -q ', 3 config regions checked, 1 skipped ' "$t/config-regions.out" ||
	no "config-regions: summary lacks '3 config regions checked, 1 skipped'"
expect accept config-trunc "${R[@]}" --trunc-region 1 --ptw-jump 2
expect accept config-unknown-first "${R[@]}" --unknown-first --seed 4
expect accept config-small-spans "${R[@]}" --span 97 --seed 2
expect accept config-psb3 --region branch,tsc,ptw,user,psb3:3000 --region branch,ptw,user,mtc,mtcf5
for s in 1 2 3 4 5 6; do
	expect accept config-seed-$s --seed $s --span $((300 + s * 211)) --trunc-region $((s % 3)) \
		--region branch,tsc,mtc,cyc,ptw,fupptw,pwr,user,os:1500 --region branch,ptw,user,psb$((s % 4)) \
		--region tsc,mtc,mtcf$s,ptw,os,psb1 --region ptw,fupptw,pwr,user,psb$((s % 5)):2000 \
		--region branch,cyc,os:50 --region tsc,cyc,branch,ptw,fupptw,user
done
# reject_rule PATTERN NAME [ptgen_capture options]: rejected, PATTERN in the output
reject_rule() {
	local pat=$1
	shift
	expect reject "$@"
	grep -q -- "$pat" "$t/$1.out" || { no "$1: no '$pat' in the output"; sed 's/^/    /' "$t/$1.out"; }
}
reject_rule 'config 4 (spans.txt:[0-9]*): cyc=1 but no CYC packet' config-claim-cyc "${R[@]}" --claim 1 cyc=1
reject_rule 'config 100 (spans.txt:[0-9]*): the region \[[0-9]*, [0-9]*) does not start with a PSB' \
	config-mid "${R[@]}" --config-mid 20
reject_rule 'config 3 (spans.txt:1): tsc=0 but [0-9]* TSC packets' config-claim-tsc0 "${R[@]}" --claim 0 tsc=0
reject_rule 'config 3 (spans.txt:1): psb_period=0 but PSBs at offsets' config-psb-period \
	--region branch,tsc,ptw,user,psb3:3000 --region branch,ptw,user --claim 0 psb_period=0
reject_rule 'missing across a config change' config-ptw-jump "${R[@]}" --ptw-jump 1
reject_rule 'fup_on_ptw=0 but the PTW at offset [0-9]* has its IP bit set' config-claim-fup0 "${R[@]}" \
	--claim 0 fup_on_ptw=0
reject_rule 'fup_on_ptw=1 but the PTW at offset [0-9]* is followed by a non-FUP' config-claim-fup1 \
	"${R[@]}" --claim 1 fup_on_ptw=1
reject_rule 'branch=0 but [0-9]* TNT or TIP packets' config-claim-branch0 "${R[@]}" --claim 0 branch=0
reject_rule 'branch=1 but no TNT or TIP' config-claim-branch1 "${R[@]}" --claim 1 branch=1
reject_rule 'mtc=1 but no MTC' config-claim-mtc1 "${R[@]}" --claim 1 mtc=1
reject_rule 'ptw=1 but no PTW' config-claim-ptw1 "${R[@]}" --claim 2 ptw=1
reject_rule 'cyc=0 but [0-9]* CYC' config-claim-cyc0 "${R[@]}" --claim 0 cyc=0
reject_rule 'bad value cyc=x' config-bad-value "${R[@]}" --claim 1 cyc=x
# The small region (skipped) is not checked: a false claim there passes.
expect accept config-small-unchecked "${R[@]}" --claim 3 cyc=0,ptw=0,branch=0

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
