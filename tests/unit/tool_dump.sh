#!/bin/sh
# SPDX-License-Identifier: GPL-2.0
# 'tracebuf dump' on synthetic captures (capgen.c, Intel PT, CoreSight and a
# per-task capture with a sideband): the text and NDJSON output, --cpu, and
# the errors for corrupt, truncated and missing files.
#   tool_dump.sh TRACEBUF CAPGEN TMPDIR
set -u
tool=$1 capgen=$2 t=$3
fail=0
d=$t/cap

rm -rf "$d"
"$capgen" "$d" || exit 1

# run STATUS ARGS...: the tool's stdout in $t/out, stderr in $t/err.
run() {
	want=$1
	shift
	"$tool" "$@" >"$t/out" 2>"$t/err"
	got=$?
	if [ "$got" != "$want" ]; then
		echo "tracebuf $*: exit $got, expected $want"
		cat "$t/out" "$t/err"
		fail=1
	fi
}

# has FILE PATTERN: grep -E PATTERN in FILE, else a failure.
has() {
	grep -q -E -- "$2" "$1" || { echo "no '$2' in:"; cat "$1"; fail=1; }
}

run 0 dump "$d"
has "$t/out" "^# capture $d: format 1, backend intel_pt \(emulated\)"
has "$t/out" "^# data_size 262144, aux_size 1048576, full-trace mode, complete, trace LOST"
has "$t/out" "^# command: sleep 0.5$"
has "$t/out" "^# cpu 0: 7 records, 96 AUX bytes in 2 spans, 3 records lost, config branch=1,user=1,tsc=1$"
has "$t/out" "^ +0 cpu 0 +CONFIG +generation=1 changed=0x5 text=\"branch=1,user=1,tsc=1\"$"
has "$t/out" "^ +100 cpu 0 +ITRACE_START +pid=42 tid=43$"
has "$t/out" "^ +150 cpu 1 +AUX +offset=0x1000 size=16 flags=OVERWRITE file_offset=0$"
has "$t/out" "^ +200 cpu 0 +AUX +offset=0x0 size=64 flags=- file_offset=0$"
has "$t/out" "^ +300 cpu 0 +USER +cookie=0xc0ffee len=13 data=\"hi \\\\\"there\\\\\"\\\\x0a\\\\x01\\\\xff\"$"
has "$t/out" "^ +400 cpu 0 +LOST +count=3 reason=ring_full flags=-$"
has "$t/out" "^ +500 cpu 0 +AUX +offset=0x40 size=32 flags=TRUNCATED\|PARTIAL file_offset=64$"
has "$t/out" "^ +600 cpu 0 +TEST +type=0x7f00 size=40$"
[ "$(grep -c -v '^#' "$t/out")" = 8 ] || { echo "expected 8 records"; cat "$t/out"; fail=1; }
[ -s "$t/err" ] && { echo "dump wrote to stderr:"; cat "$t/err"; fail=1; }

# The records in time order, across CPUs.
grep -v '^#' "$t/out" | awk '{ print $1 }' >"$t/times"
sort -n "$t/times" | cmp -s - "$t/times" || { echo "records not in time order"; fail=1; }

run 0 dump --cpu 1 "$d"
[ "$(grep -c -v '^#' "$t/out")" = 1 ] || { echo "--cpu 1: expected 1 record"; cat "$t/out"; fail=1; }
has "$t/out" " cpu 1 +AUX "
run 1 dump --cpu 7 "$d"
has "$t/err" "has no CPU 7"

run 0 dump --json "$d"
if command -v python3 >/dev/null; then
	python3 -c 'import json,sys; [json.loads(l) for l in sys.stdin]' <"$t/out" ||
		{ echo "dump --json: invalid JSON"; cat "$t/out"; fail=1; }
	python3 - "$t/out" <<'PY' || fail=1
import json, sys
recs = [json.loads(l) for l in open(sys.argv[1])]
assert recs[0]["type"] == "meta" and recs[0]["meta"]["format"] == 1, recs[0]
r = recs[1:]
assert [x["type"] for x in r] == ["config", "itrace_start", "aux", "aux", "user", "lost",
                                  "aux", "test"], [x["type"] for x in r]
assert r[0]["text"] == "branch=1,user=1,tsc=1" and r[0]["generation"] == 1, r[0]
assert r[0]["changed"] == 5 and r[0]["time"] == 0, r[0]
assert r[1]["pid"] == 42 and r[1]["tid"] == 43, r[1]
assert r[2]["cpu"] == 1 and r[2]["flags"] == ["OVERWRITE"] and r[2]["aux_size"] == 16, r[2]
assert r[4]["data"] == 'hi "there"\n\x01\xff' and r[4]["cookie"] == 0xc0ffee, r[4]
assert r[5]["count"] == 3 and r[5]["reason"] == "ring_full" and r[5]["flags"] == [], r[5]
assert r[6]["flags"] == ["TRUNCATED", "PARTIAL"] and r[6]["file_offset"] == 64, r[6]
assert r[6]["aux_offset"] == 64 and r[6]["time"] == 500, r[6]
PY
else
	echo "python3 missing: JSON not validated"
fi

# CoreSight: ETM records, LOST with reason aux_overrun, the lost trace bytes.
rm -rf "$t/cs"
"$capgen" --coresight "$t/cs" || exit 1
run 0 dump "$t/cs"
has "$t/out" "^# capture $t/cs: format 1, backend coresight \(emulated\)"
has "$t/out" "^# cpu 0: 18 records, 15104 AUX bytes in 9 spans, 2 records lost, at least 8192 trace bytes lost, config cycacc=0,timestamp=0$"
has "$t/out" "^# cpu 2: 2 records, 1024 AUX bytes in 1 spans, 0 records lost, config"
has "$t/out" "^ +100 cpu 0 +ETM +etm_cpu=0 trace_id=0x10 trcconfigr=0x1 trctraceidr=0x10 trcauthstatus=0xcc trcidr=0x28000ea1,0x4100f421,0x488,0xd7b0004,0x11170004,0x28c7081e,0x0,0x0,0x0,0x0,0x0,0x0,0x0,0x0$"
has "$t/out" "^ +1000 cpu 1 +ETM +etm_cpu=1 trace_id=0x11 trcconfigr=0x11 "
has "$t/out" "^ +500 cpu 0 +LOST +count=2 reason=ring_full flags=-$"
has "$t/out" "^ +700 cpu 0 +LOST +count=8192 reason=aux_overrun flags=AT_LEAST$"
[ "$(grep -c ' ETM ' "$t/out")" = 6 ] || { echo "expected 6 ETM records"; cat "$t/out"; fail=1; }
run 0 dump --json "$t/cs"
if command -v python3 >/dev/null; then
	python3 - "$t/out" <<'PY' || fail=1
import json, sys
recs = [json.loads(l) for l in open(sys.argv[1])][1:]
etm = [x for x in recs if x["type"] == "etm"]
assert len(etm) == 6, etm
e = etm[0]
assert (e["etm_cpu"], e["trace_id"], e["trcconfigr"], e["trctraceidr"], e["trcauthstatus"]) == \
    (0, 0x10, 1, 0x10, 0xcc), e
assert e["trcidr"] == [0x28000ea1, 0x4100f421, 0x488, 0xd7b0004, 0x11170004, 0x28c7081e] + [0] * 8, e
lost = [x for x in recs if x["type"] == "lost"]
assert [(x["count"], x["reason"], x["flags"]) for x in lost] == \
    [(2, "ring_full", []), (8192, "aux_overrun", ["AT_LEAST"])], lost
PY
fi

# The per-task target: SWITCH and TASK records, the sideband among them by time.
rm -rf "$t/task"
"$capgen" --task "$t/task" || exit 1
run 0 dump "$t/task"
has "$t/out" "^# target: process 100 and the processes it forked$"
has "$t/out" "^# sideband: from perf_event, 2 files, 8 records, 2 lost$"
has "$t/out" "^# vdso: vdso.so, build-id 0102, from the process$"
has "$t/out" "^ +0 cpu 1 +PERF_MMAP2 +pid=100 tid=100 addr=0x500000 len=0x1000 pgoff=0x0 r-xp dev=8:1 ino=1234 path=\"/bin/sh\" file=proc.sb$"
has "$t/out" "^ +0 cpu 1 +PERF_COMM +pid=100 tid=100 comm=\"sh\" file=proc.sb$"
has "$t/out" "^ +100 cpu 0 +SWITCH +pid=100 tid=100 aux_offset=0x0 flags=IN\|EXEC$"
has "$t/out" "^ +110 cpu 0 +PERF_COMM +pid=100 tid=100 exec comm=\"prog\"$"
has "$t/out" "^ +120 cpu 0 +PERF_MMAP2 +pid=100 tid=100 addr=0x400000 len=0x2000 pgoff=0x1000 r-xp build_id=abcdef path=\"/usr/bin/prog\"$"
has "$t/out" "^ +400 cpu 0 +SWITCH +pid=100 tid=100 aux_offset=0x40 flags=OUT\|PREEMPT$"
has "$t/out" "^ +410 cpu 0 +PERF_SWITCH +out preempt pid=100 tid=100$"
has "$t/out" "^ +500 cpu 0 +PERF_LOST +id=5 lost=2$"
has "$t/out" "^ +700 cpu 0 +TASK +pid=101 ppid=100 reason=fork$"
has "$t/out" "^ +710 cpu 0 +PERF_FORK +pid=101 ppid=100 tid=101 ptid=100$"
has "$t/out" "^ +900 cpu 0 +TASK +pid=101 ppid=0 reason=exit$"
has "$t/out" "^ +910 cpu 0 +PERF_EXIT +pid=101 ppid=100 tid=101 ptid=100$"
[ "$(grep -c -v '^#' "$t/out")" = 13 ] || { echo "expected 13 records"; cat "$t/out"; fail=1; }
grep -v '^#' "$t/out" | awk '{ print $1 }' >"$t/times"
sort -n "$t/times" | cmp -s - "$t/times" || { echo "task: records not in time order"; fail=1; }
run 0 dump --cpu 0 "$t/task"
[ "$(grep -c -v '^#' "$t/out")" = 11 ] || { echo "--cpu 0: expected 11 records (no proc.sb)"; cat "$t/out"; fail=1; }
run 0 dump --json "$t/task"
if command -v python3 >/dev/null; then
	python3 - "$t/out" <<'PY' || fail=1
import json, sys
recs = [json.loads(l) for l in open(sys.argv[1])]
assert recs[0]["meta"]["sideband"]["files"] == ["cpu0.sb", "proc.sb"], recs[0]
r = recs[1:]
assert [x["type"] for x in r] == ["perf_mmap2", "perf_comm", "switch", "perf_comm", "perf_mmap2",
                                  "aux", "switch", "perf_switch", "perf_lost", "task",
                                  "perf_fork", "task", "perf_exit"], [x["type"] for x in r]
assert r[0]["file"] == "proc.sb" and r[0]["maj"] == 8 and r[0]["ino"] == 1234, r[0]
assert r[0]["path"] == "/bin/sh" and r[0]["prot"] == 5 and r[0]["addr"] == 0x500000, r[0]
assert r[2]["flags"] == ["IN", "EXEC"] and r[2]["pid"] == 100 and r[2]["aux_offset"] == 0, r[2]
assert r[3]["exec"] is True and r[3]["comm"] == "prog" and r[3]["file"] == "cpu0.sb", r[3]
assert r[4]["build_id"] == "abcdef" and r[4]["pgoff"] == 0x1000, r[4]
assert r[4]["sample_pid"] == 100 and r[4]["abs_time"] == 1000000220, r[4]
assert r[6]["flags"] == ["OUT", "PREEMPT"] and r[6]["aux_offset"] == 64, r[6]
assert r[7]["out"] is True and r[7]["preempt"] is True, r[7]
assert r[8]["lost"] == 2, r[8]
assert r[9]["reason"] == "fork" and r[9]["ppid"] == 100 and r[9]["pid"] == 101, r[9]
assert r[10]["ppid"] == 100 and r[10]["pid"] == 101, r[10]
assert r[11]["reason"] == "exit", r[11]
PY
fi

# Errors: usage, missing directory, missing meta.json, corrupt data.
run 2 dump
has "$t/err" "dump needs a capture directory"
run 2 dump --bogus "$d"
has "$t/err" "unknown option '--bogus'"
run 2 dump --cpu
has "$t/err" "missing argument for option '--cpu'"
run 2 dump --cpu x "$d"
has "$t/err" "invalid CPU number 'x'"
run 2 dump "$d" extra
has "$t/err" "unexpected argument 'extra'"
run 1 dump "$t/nonexistent"
has "$t/err" "cannot open capture $t/nonexistent: No such file or directory"
mkdir -p "$t/empty"
run 1 dump "$t/empty"
has "$t/err" "cannot read meta.json"

# A damaged capture is refused: every problem named, nothing printed, exit 1.
# refused CAPTURE MESSAGE...: dump and dump --json exit 1, print no record,
# and say each MESSAGE on stderr.
refused() {
	dir=$1
	shift
	for j in "" --json; do
		run 1 dump $j "$dir"
		[ -s "$t/out" ] && { echo "dump $j of a damaged capture printed:"; cat "$t/out"; fail=1; }
		has "$t/err" "the capture does not add up"
		for m in "$@"; do
			has "$t/err" "$m"
		done
	done
}
fresh() { rm -rf "$t/bad"; cp -r "$d" "$t/bad"; }

fresh
# The third record (at byte 96) claims 7 bytes.
printf '\007\000\000\000' | dd of="$t/bad/cpu0.data" bs=1 seek=96 conv=notrunc 2>/dev/null
refused "$t/bad" "cpu0.data: a record size that does not fit at byte offset 96 of 328"

fresh
printf 'xxxxx' >>"$t/bad/cpu0.data"
refused "$t/bad" "cpu0.data: a truncated record header at byte offset 328 of 333"

# An AUX record claiming 11,908,482,554,605,792,389 bytes (the first AUX
# record of cpu0.data is at byte 96; its aux_size at +32).
fresh
printf '\205\354\066\041\312\155\103\245' |
	dd of="$t/bad/cpu0.data" bs=1 seek=$((96 + 32)) conv=notrunc 2>/dev/null
refused "$t/bad" "cpu0.data: AUX record at byte offset 96 claims 11908482554605792389 bytes, more than the AUX area \\(1048576\\)"

# cpu0.data cut in the middle of a record, at a record boundary, emptied.
fresh
head -c 100 "$d/cpu0.data" >"$t/bad/cpu0.data"
refused "$t/bad" "cpu0.data: a truncated record header at byte offset 96 of 100"
fresh
head -c 96 "$d/cpu0.data" >"$t/bad/cpu0.data"
refused "$t/bad" "meta.json: per_cpu \"0\": \"records\" is 7, the files say 2" \
	"cpu0.aux has 96 bytes, the AUX records of cpu0.data describe 0"
fresh
: >"$t/bad/cpu0.data"
: >"$t/bad/cpu0.aux"
refused "$t/bad" "\"records\" is 7, the files say 0" "\"aux_bytes\" is 96, the files say 0" \
	"\"aux_spans\" is 2, the files say 0"
# cpu0.aux missing, or shorter than its AUX records say.
fresh
rm "$t/bad/cpu0.aux"
refused "$t/bad" "cpu0.aux: No such file or directory"
fresh
head -c 90 "$d/cpu0.aux" >"$t/bad/cpu0.aux"
refused "$t/bad" "cpu0.aux has 90 bytes, the AUX records of cpu0.data describe 96"
# The two CPUs' files swapped.
fresh
mv "$t/bad/cpu0.data" "$t/bad/x"; mv "$t/bad/cpu1.data" "$t/bad/cpu0.data"; mv "$t/bad/x" "$t/bad/cpu1.data"
refused "$t/bad" "per_cpu \"0\": \"records\" is 7, the files say 1" \
	"per_cpu \"1\": \"records\" is 1, the files say 7"
# meta.json that does not match: a CPU it does not list, one it lists twice,
# one without files, "lost" false although records were lost.
fresh
sed 's/"cpus": \[0, 1\]/"cpus": [0, 5]/' "$d/meta.json" >"$t/bad/meta.json"
refused "$t/bad" "cpu5.data: No such file or directory" "cpu1.data is not in meta.json's \"cpus\"" \
	"cpu1.aux is not in meta.json's \"cpus\""
sed 's/"cpus": \[0, 1\]/"cpus": [0, 1, 0]/' "$d/meta.json" >"$t/bad/meta.json"
refused "$t/bad" "CPU 0 is listed twice in \"cpus\""
sed 's/"lost": true/"lost": false/' "$d/meta.json" >"$t/bad/meta.json"
refused "$t/bad" "\"lost\" is false, but the per_cpu counts say trace was lost"
sed 's/"records": 7,/"records": 8,/' "$d/meta.json" >"$t/bad/meta.json"
refused "$t/bad" "per_cpu \"0\": \"records\" is 8, the files say 7"

# An interrupted recording: shown, but exit 1 with the reason.
fresh
sed 's/"complete": true/"complete": false/' "$d/meta.json" >"$t/bad/meta.json"
run 1 dump "$t/bad"
has "$t/err" "the capture is incomplete"
[ "$(grep -c -v '^#' "$t/out")" = 8 ] || { echo "incomplete capture: records not shown"; fail=1; }

fresh
printf '{"format": 99, "cpus": [0]}' >"$t/bad/meta.json"
run 1 dump "$t/bad"
has "$t/err" "unknown capture format"
printf 'not json' >"$t/bad/meta.json"
run 1 dump "$t/bad"
has "$t/err" "not a valid capture description"
exit $fail
