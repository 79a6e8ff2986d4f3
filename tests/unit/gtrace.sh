#!/bin/sh
# SPDX-License-Identifier: GPL-2.0
# The instruction flow of 'tracebuf decode --insn/--calls' and
# 'tracebuf export --perfetto' against the ground truth of real programs,
# natively (x86_64): tests/unit/gtgen.c single-steps a program and writes the
# per-task Intel PT capture the hardware would have written for it (SWITCH
# records, AUX spans, a perf sideband with mmap2/comm/fork and build-ids, the
# vDSO) and the ground truth; tests/host/gtcheck compares the decoded flow
# with it, instruction for instruction.
# CoreSight the same way: tests/unit/csgtgen.c takes the instructions each
# thread of a static AArch64 program executed from QEMU's user-mode emulator
# and writes the ETMv4 trace of a shared sink, decoded with OpenCSD.
# Last, the guest's artifact channel (guest-init.sh's send_artifacts, then
# run-guest.sh --check-artifacts) carries such captures and checks them.
#   gtrace.sh TRACEBUF GTGEN CSGTGEN GTCHECK TOP TMPDIR CC
set -u
tool=$1 gtgen=$2 csgtgen=$3 gtcheck=$4 top=$5 t=$6 cc=$7
fail=0
no() { echo "not ok: $*"; fail=1; }
ok() { echo "ok: $*"; }

if [ "$(uname -m)" != x86_64 ]; then
	echo "not x86_64: gtgen single-steps x86_64 programs; nothing tested"
	exit 0
fi
if "$tool" decode --insn /nonexistent 2>&1 | grep -q "need elfutils"; then
	no "tracebuf built without elfutils (LIBDW=0): install libelf-dev libdw-dev"
	exit 1
fi
unset DEBUGINFOD_URLS
rm -rf "$t" && mkdir -p "$t/bin"
b=$t/bin
"$cc" -O1 -g -o "$b/followprog" "$top/tests/guest/followprog.c" -lpthread || exit 1
"$cc" -O1 -g -no-pie -o "$b/followprog-np" "$top/tests/guest/followprog.c" -lpthread || exit 1
"$cc" -O1 -g -fPIC -shared -o "$b/libgtlib.so" "$top/tests/unit/gtlib.c" || exit 1
"$cc" -D_GNU_SOURCE -O1 -g -o "$b/gtprog" "$top/tests/unit/gtprog.c" -L"$b" -lgtlib \
	-Wl,-rpath,"$b" -lpthread || exit 1

# gen NAME [GTGEN OPTIONS] -- PROG ARGS: a capture in $t/NAME
gen() {
	name=$1
	shift
	opts=
	while [ "$1" != -- ]; do opts="$opts $1"; shift; done
	shift
	# shellcheck disable=SC2086
	"$gtgen" $opts "$t/$name" "$@" >"$t/$name.gen" 2>&1 || { no "gtgen $name: $(tail -n 3 "$t/$name.gen")"; return 1; }
}

# same NAME [GTCHECK OPTIONS]: decoded flow == ground truth
same() {
	name=$1
	shift
	if ! "$tool" decode "$t/$name" --insn --json >"$t/$name.json" 2>"$t/$name.err"; then
		no "decode $name --insn --json: $(head -c 400 "$t/$name.err")"
		return
	fi
	if "$gtcheck" "$@" "$t/$name/gt.txt" "$t/$name.json" >"$t/$name.check" 2>&1; then
		ok "$name: $(cat "$t/$name.check")"
	else
		no "$name: $(head -n 5 "$t/$name.check")"
	fi
}

# differs NAME [GTCHECK OPTIONS]: the check must fail
differs() {
	name=$1
	shift
	"$tool" decode "$t/$name" --insn --json "$@" >"$t/$name.json" 2>"$t/$name.err"
	if "$gtcheck" "$t/$name/gt.txt" "$t/$name.json" >"$t/$name.check" 2>&1; then
		no "$name: a broken capture or image passed the ground-truth check"
	else
		ok "$name: rejected ($(head -n 1 "$t/$name.check"))"
	fi
}

# 1. Threads, recursion, a loop, calls through a function pointer; runs of
#    up to 64 steps on two CPUs (threads migrate), PLT calls into libc.
gen fib -- "$b/followprog" 4 && same fib
# 2. A signal handler, a PLT call into a shared library of its own, an
#    indirect call, recursion, a thread that moves, fork + exec.
gen prog -- "$b/gtprog" && same prog
# 2b. The same with each exec's COMM record before the SWITCH OUT of the
#    run that ran up to the execve() (the thread preempted inside
#    execve()): that run's code is decoded in the image before the exec.
gen lateexec --exec-late-out -- "$b/gtprog" && same lateexec
# 3. One step per run, as the emulator's follow mode writes them.
gen step1 --run 1 -- "$b/followprog" 2 && same step1
# 4. Returns never compressed (noretcomp=1).
gen noretc --noretcomp -- "$b/followprog" 3 && same noretc
# 5. An IP filter range around fib() (addr0=LO-HI:filter): only fib.
range=$(nm -S "$b/followprog-np" | awk '$4 == "fib" { print $1, $2 }' | {
	read -r a s && printf '%x-%x' "$((0x$a))" "$((0x$a + 0x$s - 1))"; })
if [ -n "$range" ]; then
	gen filter --filter "$range" -- "$b/followprog-np" 4 && same filter --range "$range"
	# The same with the branches only (what ptfollow's ground truth has in
	# the guest, tool_gt's gt-filter): passes;
	# a flow with one instruction left out, and the filtered flow against
	# another range, fail.
	if "$gtcheck" --branches --range "$range" "$t/filter/gt.txt" "$t/filter.json" \
		>"$t/filter-b.check" 2>&1; then
		ok "filter --branches: $(cat "$t/filter-b.check")"
	else
		no "filter --branches: $(head -n 5 "$t/filter-b.check")"
	fi
	awk '/"type": "insn"/ && ++n == 40 { next } { print }' "$t/filter.json" >"$t/filter-d.json"
	if "$gtcheck" --branches --range "$range" "$t/filter/gt.txt" "$t/filter-d.json" \
		>/dev/null 2>&1; then
		no "filter --branches: a flow with an instruction missing passed"
	else
		ok "filter --branches: a flow with an instruction missing is refused"
	fi
	lo=${range%-*}
	if "$gtcheck" --branches --range "$(printf %x $((0x$lo + 16)))-${range#*-}" "$t/filter/gt.txt" \
		"$t/filter.json" >/dev/null 2>&1; then
		no "filter --branches: a shifted range passed"
	else
		ok "filter --branches: a shifted range is refused"
	fi
	if grep '"type": "insn"' "$t/filter.json" | grep -qv '"sym": "fib"'; then
		no "filter: an instruction outside fib() decoded"
	fi
else
	no "no fib in $b/followprog-np"
fi
# 6. Snapshot mode: each CPU keeps its newest 4000 bytes.
gen snap --snapshot 4000 -- "$b/followprog" 4 && same snap --snapshot
# The same branch for branch: against its whole ground truth (--branches),
# and against its B and T lines only (ptfollow's ground truth, tool_gt's
# gt-snap in the guest): both pass. Against the B lines, the newest
# conditional branch inverted, the flow with one instruction of its newest
# part left out, and the flow without its last run must fail.
# snapb NAME GT DECODED [OPTIONS]: 0 if gtcheck --snapshot passes
snapb() {
	name=$1 gt=$2 dec=$3
	shift 3
	"$gtcheck" --snapshot "$@" "$gt" "$dec" >"$t/$name.check" 2>&1
}
if [ -s "$t/snap.json" ]; then
	grep -v '^[RS] ' "$t/snap/gt.txt" >"$t/snap-b.txt"
	awk '$1 == "B" && $5 == 1 { k = NR } { l[NR] = $0 }
		END { for (i = 1; i <= NR; i++) { if (i == k) { $0 = l[i]; $6 = 1 - $6; print }
			else print l[i] } }' "$t/snap-b.txt" >"$t/snap-b-mut.txt"
	n=$(grep -c '"type": "insn"' "$t/snap.json")
	awk -v k=$((n - 100)) '/"type": "insn"/ && ++c == k { next } { print }' "$t/snap.json" \
		>"$t/snap-drop.json"
	awk '/"type": "run"/ { k = NR } { l[NR] = $0 }
		END { for (i = 1; i < k; i++) print l[i] }' "$t/snap.json" >"$t/snap-nolast.json"
	if snapb snap-br "$t/snap/gt.txt" "$t/snap.json" --branches; then
		ok "snap --branches: $(cat "$t/snap-br.check")"
	else
		no "snap --branches: $(head -n 5 "$t/snap-br.check")"
	fi
	if snapb snap-b "$t/snap-b.txt" "$t/snap.json" &&
		grep -q 'branch for branch), snapshot ([1-9][0-9]* of them after' "$t/snap-b.check"; then
		ok "snap, B lines only: $(cat "$t/snap-b.check")"
	else
		no "snap, B lines only: $(head -n 5 "$t/snap-b.check")"
	fi
	if snapb snap-b-mut "$t/snap-b-mut.txt" "$t/snap.json"; then
		no "snap, B lines only: the newest conditional branch inverted passed"
	else
		ok "snap, B lines only: the newest conditional branch inverted is refused ($(head -n 1 "$t/snap-b-mut.check"))"
	fi
	if snapb snap-drop "$t/snap-b.txt" "$t/snap-drop.json"; then
		no "snap, B lines only: a flow with an instruction missing passed"
	else
		ok "snap, B lines only: a flow with an instruction missing is refused ($(head -n 1 "$t/snap-drop.check"))"
	fi
	if snapb snap-nolast "$t/snap-b.txt" "$t/snap-nolast.json"; then
		no "snap, B lines only: the flow without its last run passed"
	else
		ok "snap, B lines only: the flow without its last run is refused ($(head -n 1 "$t/snap-nolast.check"))"
	fi
fi

# 7. Broken captures: a TNT bit flipped, a TIP off by one, a run without PSB.
for w in tnt tip psb; do
	gen "break-$w" --break "$w" -- "$b/followprog" 3 && differs "break-$w"
done
grep -q '"message": "no PSB in the' "$t/break-psb.json" || no "break-psb: no 'no PSB' error"

# 8. A broken image with the right build-id: one byte of fib() changed in a
#    copy under --sysroot.
mkdir -p "$t/sysroot$b"
cp "$b/followprog" "$t/sysroot$b/followprog"
python3 - "$b/followprog" "$t/sysroot$b/followprog" <<'PY' || no "cannot patch the image"
import subprocess, sys
nm = subprocess.check_output(['nm', sys.argv[1]]).decode().split('\n')
fib = [int(l.split()[0], 16) for l in nm if l.endswith(' fib')][0]
ph = subprocess.check_output(['readelf', '-lW', sys.argv[1]]).decode().split('\n')
off = None
for l in ph:
    f = l.split()
    if f and f[0] == 'LOAD' and 'E' in f[-2:-1][0] + ''.join(f[6:-1]):
        o, va, sz = int(f[1], 16), int(f[2], 16), int(f[4], 16)
        if va <= fib < va + sz:
            off = fib - va + o
b = bytearray(open(sys.argv[2], 'rb').read())
b[off + 1] ^= 0x01
open(sys.argv[2], 'wb').write(b)
PY
cp -r "$t/fib" "$t/image"
differs image --sysroot "$t/sysroot"

# 9. Another build of the program under the recorded path: refused, named,
#    counted; and a missing file.
mkdir -p "$t/moved"
cp "$b/followprog" "$t/moved/prog"
gen moved -- "$t/moved/prog" 2
"$cc" -O2 -g -o "$t/moved/prog" "$top/tests/guest/followprog.c" -lpthread
"$tool" decode "$t/moved" --insn >"$t/moved.out" 2>"$t/moved.err"
st=$?
[ $st = 1 ] || no "decode with a mismatched build-id: exit $st, expected 1"
grep -q "^tracebuf: decode: $t/moved/prog has build-id [0-9a-f]*, the capture recorded [0-9a-f]* (another build of the file): its code is not decoded$" "$t/moved.err" ||
	no "no build-id mismatch message naming $t/moved/prog: $(head -c 300 "$t/moved.err")"
grep -q "files refused" "$t/moved.err" || no "the refusal is not counted"
grep -q "^# error: .*$t/moved/prog" "$t/moved.out" || no "the decode error does not name the file"
rm "$t/moved/prog"
"$tool" decode "$t/moved" --insn >"$t/moved.out" 2>"$t/moved.err"
st=$?
[ $st = 1 ] || no "decode with a missing file: exit $st, expected 1"
grep -q "^tracebuf: decode: $t/moved/prog: not found: its code is not decoded$" "$t/moved.err" ||
	no "no 'not found' message naming $t/moved/prog: $(head -c 300 "$t/moved.err")"

# 10. --tid, --pid, --time.
tid=$(awk '/^T / { print $2; exit }' "$t/fib/gt.txt")
want=$(awk -v t="$tid" '$1 == "T" && $2 == t { print $3 }' "$t/fib/gt.txt")
"$tool" decode "$t/fib" --insn --json --no-disasm --tid "$tid" >"$t/tid.json" || no "decode --tid"
got=$(grep -c '"type": "insn"' "$t/tid.json")
[ "$got" = "$want" ] || no "--tid $tid: $got instructions, the ground truth has $want"
grep '"type": "insn"' "$t/tid.json" | grep -vq "\"tid\": $tid," && no "--tid $tid: another thread"
pid=$(awk '/^R / { print $2; exit }' "$t/prog/gt.txt")
"$tool" decode "$t/prog" --calls --json --pid "$pid" >"$t/pid.json" || no "decode --pid"
grep -q . "$t/pid.json" || no "--pid $pid: nothing"
grep -vq "\"pid\": $pid," "$t/pid.json" && no "--pid $pid: another process"
"$tool" decode "$t/fib" --insn --json --no-disasm --time 0.0002,0.0004 >"$t/time.json" || no "decode --time"
python3 - "$t/time.json" <<'PY' || no "--time: an instruction outside 0.0002..0.0004 s"
import json, sys
n = 0
for l in open(sys.argv[1]):
    d = json.loads(l)
    if d['type'] == 'insn':
        n += 1
        assert 1000200000 <= d['time'] <= 1000400000, d
assert n > 0
PY
"$tool" decode "$t/fib" --insn --time 2,1 >/dev/null 2>&1
[ $? = 2 ] || no "--time 2,1: not a usage error"
"$tool" decode "$t/fib" --insn --packets >/dev/null 2>&1
[ $? = 2 ] || no "--insn --packets: not a usage error"

# A capture that says it traced the kernel, without naming the kernel that
# ran: said, kernel addresses not guessed, the user flow still exact.
cp -r "$t/fib" "$t/kern"
sed -i 's/kernel=0/kernel=1/' "$t/kern/meta.json"
"$tool" decode "$t/kern" --insn --json >"$t/kern.json" 2>"$t/kern.err" || no "decode kern: exit $?"
grep -qE "^tracebuf: decode: $t/kern: the kernel was traced \(kernel=1\), but (/proc/kcore cannot be read|the capture does not say which kernel ran)" \
	"$t/kern.err" || no "kernel trace: no message ($(head -c 300 "$t/kern.err"))"
"$gtcheck" "$t/kern/gt.txt" "$t/kern.json" >/dev/null 2>&1 || no "kern: the user flow changed"

# 11. What a user reads: the call trace, the disassembly, JSON lines.
"$tool" decode "$t/prog" --calls >"$t/calls.txt" || no "decode --calls"
for want in '-> main (gtprog)' '-> depth (gtprog)' '~> on_usr1 (gtprog) [signal]' \
	'-> gt_lib_step (libgtlib.so)' '=> gt_lib_mix (libgtlib.so)' '-> gt_lib_mix@plt (gtprog)' \
	'# exec' '<- depth  '; do
	grep -qF -- "$want" "$t/calls.txt" || no "decode --calls: no '$want'"
done
"$tool" decode "$t/fib" --insn >"$t/insn.txt" || no "decode --insn"
grep -qE '^ +[0-9]+\.[0-9]{9} \[[01]\] [0-9]+/[0-9]+ +[0-9a-f]+  fib\+0x[0-9a-f]+ \(followprog\)  ' "$t/insn.txt" ||
	no "decode --insn: no line for fib with its disassembly"
grep -qE 'fib\+0x[0-9a-f]+ \(followprog\)  call ' "$t/insn.txt" || no "decode --insn: no disassembled call"
"$tool" decode "$t/prog" --calls --json >"$t/calls.json" || no "decode --calls --json"
python3 - "$t/calls.json" <<'PY' || no "decode --calls --json: not JSON lines with calls and returns"
import json, sys
kinds = {}
for l in open(sys.argv[1]):
    d = json.loads(l)
    kinds[d['type']] = kinds.get(d['type'], 0) + 1
    if d['type'] == 'call':
        assert d['depth'] >= 0 and d['sym'] and d['to'].startswith('0x'), d
assert kinds.get('call', 0) > 10 and kinds.get('return', 0) > 10 and kinds.get('signal', 0) == 1, kinds
PY

# 12. The timeline.
"$tool" export --perfetto "$t/prog.perfetto.json" "$t/prog" >"$t/export.out" || no "export --perfetto"
grep -q "calls of [0-9]* instructions; open it in https://ui.perfetto.dev" "$t/export.out" ||
	no "export --perfetto: $(cat "$t/export.out")"
python3 - "$t/prog.perfetto.json" <<'PY' || no "export --perfetto: not the trace-event format, or no call stacks"
import json, sys
d = json.load(open(sys.argv[1]))
ev = d['traceEvents']
names = {e['name'] for e in ev if e['ph'] == 'X'}
assert {'main', 'depth', 'on_usr1', 'gt_lib_step', 'mover'} <= names, names
threads = {(e['pid'], e['tid']) for e in ev if e['ph'] == 'X'}
assert len(threads) == 3, threads
meta = [e for e in ev if e['ph'] == 'M' and e['name'] == 'process_name']
assert any(e['args']['name'] == 'gtprog' for e in meta), meta
# Per thread, the slices nest: none ends inside another and outlives it.
for th in threads:
    sl = sorted(((e['ts'], -e['dur'], e['ts'] + e['dur']) for e in ev
                 if e['ph'] == 'X' and (e['pid'], e['tid']) == th))
    stack = []
    for s, _, end in sl:
        while stack and stack[-1] <= s + 1e-6:
            stack.pop()
        assert not stack or end <= stack[-1] + 1e-6, (th, s, end, stack[-1])
        stack.append(end)
PY
"$tool" export --perfetto "$t/x.json" --opencsd "$t/x" "$t/prog" >/dev/null 2>&1
[ $? = 2 ] || no "--perfetto with --opencsd: not a usage error"

# 13. CoreSight (ETMv4, OpenCSD): followprog for AArch64, its threads' runs on
#     two CPUs sharing one sink, one instruction per run too; broken atoms and
#     addresses fail.
if ! command -v qemu-aarch64 >/dev/null || ! command -v aarch64-linux-gnu-gcc >/dev/null; then
	no "CoreSight: qemu-aarch64 (qemu-user) or aarch64-linux-gnu-gcc missing (tests/harness/deps.sh installs them)"
	exit 1
fi
aarch64-linux-gnu-gcc -O1 -g -static -o "$b/followprog-a64" "$top/tests/guest/followprog.c" -lpthread || exit 1
csgen() {
	name=$1
	shift
	opts=
	while [ "$1" != -- ]; do opts="$opts $1"; shift; done
	shift
	# shellcheck disable=SC2086
	"$csgtgen" $opts "$t/$name" "$@" >"$t/$name.gen" 2>&1 || { no "csgtgen $name: $(tail -n 3 "$t/$name.gen")"; return 1; }
}
csgen cs-fib -- "$b/followprog-a64" 3 && same cs-fib
csgen cs-step1 --run 1 -- "$b/followprog-a64" 1 && same cs-step1
for w in atom addr; do
	csgen "cs-break-$w" --break "$w" -- "$b/followprog-a64" 2 && differs "cs-break-$w"
done
# An include range around fib() (TRCVIIECTLR pair 0 over TRCACVR0/1, ViewInst
# per instruction as tb_csemu's follow mode decides it: csgen_is_traced()):
# only fib's instructions decode, instruction for instruction and branch for
# branch (what tool_gt's gt-filter checks on arm64); a capture that ignores
# the range, a shifted range and a capture with one resumption of the trace
# (Trace On, Context, Address) left out fail.
csrange=$(aarch64-linux-gnu-nm -S "$b/followprog-a64" | awk '$4 == "fib" { print $1, $2 }' | {
	read -r a s && printf '%x-%x' "$((0x$a))" "$((0x$a + 0x$s - 1))"; })
if [ -z "$csrange" ]; then
	no "CoreSight: no fib in $b/followprog-a64"
elif csgen cs-filter --filter "$csrange" -- "$b/followprog-a64" 6; then
	same cs-filter --range "$csrange"
	if "$gtcheck" --branches --range "$csrange" "$t/cs-filter/gt.txt" "$t/cs-filter.json" \
		>"$t/cs-filter-b.check" 2>&1; then
		ok "cs-filter --branches: $(cat "$t/cs-filter-b.check")"
	else
		no "cs-filter --branches: $(head -n 5 "$t/cs-filter-b.check")"
	fi
	grep -q '"type": "insn"' "$t/cs-filter.json" || no "cs-filter: nothing decoded"
	# One instruction per run, each ending with its exception when traced, as
	# the emulator's follow mode writes the steps.
	csgen cs-filter-step1 --run 1 --filter "$csrange" -- "$b/followprog-a64" 6 &&
		same cs-filter-step1 --range "$csrange"
	if grep '"type": "insn"' "$t/cs-filter.json" | grep -qv '"sym": "fib"'; then
		no "cs-filter: an instruction outside fib() decoded"
	fi
	for o in "" --branches; do
		# shellcheck disable=SC2086
		if "$gtcheck" $o --range "$csrange" "$t/cs-fib/gt.txt" "$t/cs-fib.json" >/dev/null 2>&1; then
			no "cs-filter $o: a capture that ignores the range passed"
		else
			ok "cs-filter $o: a capture that ignores the range is refused"
		fi
		lo=${csrange%-*}
		# shellcheck disable=SC2086
		if "$gtcheck" $o --range "$(printf %x $((0x$lo + 16)))-${csrange#*-}" \
			"$t/cs-filter/gt.txt" "$t/cs-filter.json" >/dev/null 2>&1; then
			no "cs-filter $o: a shifted range passed"
		else
			ok "cs-filter $o: a shifted range is refused"
		fi
	done
	if csgen cs-filter-traceon --filter "$csrange" --break traceon -- "$b/followprog-a64" 6; then
		"$tool" decode "$t/cs-filter-traceon" --insn --json >"$t/cs-filter-traceon.json" 2>/dev/null
		for o in "" --branches; do
			# shellcheck disable=SC2086
			if "$gtcheck" $o --range "$csrange" "$t/cs-filter-traceon/gt.txt" \
				"$t/cs-filter-traceon.json" >"$t/cs-filter-traceon.check" 2>&1; then
				no "cs-filter $o: a capture without one Trace On passed"
			else
				ok "cs-filter $o: a capture without one Trace On is refused ($(head -n 1 "$t/cs-filter-traceon.check"))"
			fi
		done
	fi
fi
"$tool" decode "$t/cs-fib" --calls >"$t/cs-calls.txt" || no "CoreSight: decode --calls"
for want in '-> work (followprog-a64)' '-> fib (followprog-a64)' '<- fib  '; do
	grep -qF -- "$want" "$t/cs-calls.txt" || no "CoreSight: decode --calls: no '$want'"
done
"$tool" decode "$t/cs-fib" --insn >"$t/cs-insn.txt" || no "CoreSight: decode --insn"
grep -qE 'fib\+0x[0-9a-f]+ \(followprog-a64\)  (bl|ret|cmp|b\.)' "$t/cs-insn.txt" ||
	no "CoreSight: decode --insn: no disassembled line in fib"
# export --opencsd writes the code the threads ran ([dump] sections): OpenCSD's
# own trc_pkt_lister follows it through every instruction of the ground truth.
"$tool" export --opencsd "$t/cs-fib.ocsd" "$t/cs-fib" >"$t/cs-export.out" 2>&1 || no "CoreSight: export --opencsd: $(cat "$t/cs-export.out")"
grep -q ', 1 memory image$' "$t/cs-export.out" || no "CoreSight: export --opencsd: $(cat "$t/cs-export.out")"
grep -q '^\[dump1\]$' "$t/cs-fib.ocsd/seg000/cpu_0.ini" || no "CoreSight: export --opencsd: no [dump1] in cpu_0.ini"
if command -v trc_pkt_lister >/dev/null; then
	(cd "$t/cs-fib.ocsd" && trc_pkt_lister -ss_dir seg000 -decode -logstdout -no_time_print) >"$t/cs-tpl.txt" 2>&1 ||
		no "CoreSight: trc_pkt_lister failed on the export"
	got=$(grep -o 'num_i([0-9]*)' "$t/cs-tpl.txt" | tr -dc '0-9\n' | awk '{ s += $1 } END { print s + 0 }')
	want=$(grep -c '^S ' "$t/cs-fib/gt.txt")
	[ "$got" = "$want" ] || no "CoreSight: trc_pkt_lister decoded $got instructions of the export, the ground truth has $want"
	grep -q 'ADDR_NACC' "$t/cs-tpl.txt" && no "CoreSight: trc_pkt_lister found code missing in the export"
else
	no "trc_pkt_lister not installed (Debian: libopencsd-bin)"
fi
"$tool" export --perfetto "$t/cs.json" "$t/cs-fib" >/dev/null || no "CoreSight: export --perfetto"
python3 - "$t/cs.json" <<'PY' || no "CoreSight: export --perfetto: no fib slices on two threads"
import json, sys
ev = json.load(open(sys.argv[1]))['traceEvents']
fib = {(e['pid'], e['tid']) for e in ev if e['ph'] == 'X' and e['name'] == 'fib'}
assert len(fib) == 2, fib
PY

# 14. The artifact channel: a ground-truth capture that is right passes, one
#     with a flipped TNT bit fails, a snapshot is checked with gtcheck.args
#     (with its whole ground truth and with its B and T lines only: both
#     pass, and fail with their newest conditional branch inverted);
#     gtprog's (a signal handler) passes, and its ground truth with the
#     handler left out (tests/harness/nohandler.awk) fails.
bb=$(command -v busybox || echo /bin/busybox)
g=$t/guest-cap o=$t/run
mkdir -p "$g" "$o" "$t/bbin"
cp -a "$t/step1" "$g/gt-good"
cp -a "$t/break-tnt" "$g/gt-bad"
cp -a "$t/snap" "$g/gt-snap"
cp -a "$t/snap" "$g/gt-snap-b"
cp -a "$t/prog" "$g/gt-sig"
echo --snapshot >"$g/gt-snap/gtcheck.args"
# The snapshot with B and T lines only, as tool_gt's gt-snap has.
grep -v '^[RS] ' "$t/snap/gt.txt" >"$g/gt-snap-b/gt.txt"
echo --snapshot >"$g/gt-snap-b/gtcheck.args"
# A filtered capture (tool_gt's gt-filter): it passes with its range, and
# the same flow against the range started 16 bytes later must fail.
if [ -n "${csrange:-}" ] && [ -d "$t/cs-filter" ]; then
	cp -a "$t/cs-filter" "$g/gt-range"
	echo "--range $csrange" >"$g/gt-range/gtcheck.args"
fi
sed -n '/^send_artifacts() {/,/^}/p' "$top/tests/harness/guest-init.sh" >"$t/send.sh"
for a in base64 md5sum wc cut; do ln -sf "$bb" "$t/bbin/$a"; done
PATH=$t/bbin:$PATH "$bb" sh -c ". '$t/send.sh'; send_artifacts '$g'" >"$o/artifacts.log" ||
	no "send_artifacts failed"
: >"$o/result.txt"
TB_PTCHECK=$(dirname "$gtcheck")/ptcheck TB_GTCHECK=$gtcheck TB_HOST_TOOL=$tool \
	bash "$top/tests/harness/run-guest.sh" --check-artifacts unit "$o" >"$o/out" 2>&1
grep -q '^PASS unit/gtcheck-gt-good (2 threads, [0-9]* instructions, .* (instruction for instruction))$' "$o/out" ||
	no "the artifact channel: gt-good did not pass: $(cat "$o/out")"
grep -q '^PASS unit/gtcheck-gt-sig (.*)$' "$o/out" ||
	no "the artifact channel: gt-sig did not pass: $(cat "$o/out")"
grep -q '^PASS unit/gtcheck-gt-sig-nohandler (the ground truth without the signal handler: caught)$' \
	"$o/out" || no "the artifact channel: gt-sig-nohandler: $(cat "$o/out")"
grep -q 'gt-good-nohandler' "$o/out" &&
	no "the artifact channel: a handler left out of gt-good, which has none: $(cat "$o/out")"
grep -q '^PASS unit/gtcheck-gt-snap (.*, snapshot)$' "$o/out" ||
	no "the artifact channel: gt-snap did not pass as a snapshot: $(cat "$o/out")"
grep -q '^PASS unit/gtcheck-gt-snap-b (.*(branch for branch), snapshot ([0-9]* of them after every CPU.s trace began))$' "$o/out" ||
	no "the artifact channel: gt-snap-b did not pass as a snapshot: $(cat "$o/out")"
# A snapshot's newest conditional branch inverted (the snapshot holds it).
for c in gt-snap gt-snap-b; do
	grep -q "^PASS unit/gtcheck-$c-mutated (branch \([0-9]*\) of \1 inverted, the newest: caught)$" "$o/out" ||
		no "the artifact channel: $c with its newest branch inverted was not refused: $(cat "$o/out")"
done
if [ -d "$g/gt-range" ]; then
	grep -q '^PASS unit/gtcheck-gt-range (.*, filtered)$' "$o/out" ||
		no "the artifact channel: gt-range did not pass with its range: $(cat "$o/out")"
	grep -q '^PASS unit/gtcheck-gt-range-range-shifted (range .* started 16 bytes later: caught)$' "$o/out" ||
		no "the artifact channel: gt-range against a shifted range was not refused: $(cat "$o/out")"
fi
# The flipped bit is in a trace of a randomized process: it either makes the
# decoder stop with an error (decode fails) or decodes to another path
# (gtcheck fails). Both are the channel refusing the capture.
grep -Eq '^FAIL unit/gtcheck-gt-bad( \(decode\))?$' "$o/out" || no "the artifact channel: gt-bad did not fail: $(cat "$o/out")"
exit $fail
