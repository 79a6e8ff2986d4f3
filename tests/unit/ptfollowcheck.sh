#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
# ptfollowcheck (tests/host/ptfollowcheck.c) accepts good synthetic
# follow-mode captures from ptfollow_capture and rejects each kind of
# broken one: a TNT bit flipped, a TIP missing or with the wrong target, a
# run without its PSB, a span outside every run, a thread's runs out of
# time order, a thread the ground truth does not know.
#   ptfollowcheck.sh HOSTBIN TMPDIR
set -u
bin=$1 t=$2
fail=0
rm -rf "$t"
mkdir -p "$t"
# expect accept|reject NAME [ptfollow_capture options]
expect() {
	local want=$1 name=$2 d=$t/$2
	shift 2
	"$bin/ptfollow_capture" "$@" "$d" || { echo "not ok: ptfollow_capture $*"; fail=1; return; }
	if "$bin/ptfollowcheck" "$d" >"$d.out" 2>&1; then
		[ "$want" = accept ] || { echo "not ok: $name accepted"; fail=1; }
	else
		[ "$want" = reject ] || { echo "not ok: $name rejected"; sed 's/^/    /' "$d.out"; fail=1; }
	fi
}
for s in 1 2 3 4 5; do
	expect accept seed-$s --seed $s --steps $((100 * s))
done
for b in tnt tip target psb outside order stranger; do
	expect reject $b --break $b
	expect reject $b-2 --break $b --seed 7 --steps 51
done
exit $fail
