#!/bin/sh
# SPDX-License-Identifier: GPL-2.0
# 'tracebuf config --list' and '--check' against the fake ioctls
# (fake_ioctl.so preloaded; TRACEBUF_DEVICE=/dev/null): the keys come from
# the kernel's table, refused strings get the library's message and a caret.
#   tool_config.sh TRACEBUF FAKE_IOCTL_SO TMPDIR
set -u
tool=$1 fake=$2 t=$3
fail=0
no() { echo "not ok: $*"; fail=1; }

run() { # WANT_STATUS BACKENDS ARGS...
	want=$1 n=$2
	shift 2
	TRACEBUF_DEVICE=/dev/null LD_PRELOAD=$fake FAKE_TB_BACKENDS=$n \
		"$tool" "$@" >"$t/out" 2>"$t/err"
	got=$?
	[ "$got" = "$want" ] || no "tracebuf $*: exit $got, expected $want ($(cat "$t/err"))"
	cat "$t/out" "$t/err"
}

has() { grep -qxF -- "$1" "$t/out" || no "no line '$1' on stdout"; }
err_has() { grep -qxF -- "$1" "$t/err" || no "no line '$1' on stderr"; }

run 0 1 config --list
has "backend intel_pt, cpu 0: 14 keys"
grep -q '^KEY  *TYPE  *DEFAULT  *VALUES  *DESCRIPTION$' "$t/out" || no "no header line"
grep -q '^branch  *bool  *1  *0,1  *trace branches (BranchEn)$' "$t/out" || no "branch line"
grep -q '^kernel  *bool  *0  *0,1  *trace the kernel (OS) \[non-zero needs CAP_PERFMON\]$' \
	"$t/out" || no "kernel line"
grep -q '^mtc_period  *enum  *3  *0,3,6,9  ' "$t/out" || no "mtc_period line"
grep -q '^pwr_evt  *bool .*\[not supported on this CPU\]$' "$t/out" || no "pwr_evt line"
grep -q '^drain_ms  *uint  *10  *1\.\.1000  ' "$t/out" || no "drain_ms line"
grep -q '^cr3  *u64  *off  *number|off|current  *trace only this CR3 \[non-zero needs CAP_PERFMON\]$' \
	"$t/out" || no "cr3 line"
grep -q '^addr0  *range  *off  *off|START-END:filter|stop  ' "$t/out" || no "addr0 line"
[ "$(wc -l <"$t/out")" = 16 ] || no "not 14 keys listed"

run 0 1 config --list --backend intel_pt --cpu 7 --json
if command -v python3 >/dev/null; then
	python3 -c '
import json, sys
d = json.load(open(sys.argv[1]))
assert d["backend"] == "intel_pt" and d["cpu"] == 7, d
k = {x["name"]: x for x in d["keys"]}
assert len(d["keys"]) == 14
assert k["mtc_period"]["allowed"] == [0, 3, 6, 9] and k["mtc_period"]["type"] == "enum"
assert k["drain_ms"]["min"] == 1 and k["drain_ms"]["max"] == 1000
assert k["kernel"]["needs_cap_perfmon"] and not k["branch"]["needs_cap_perfmon"]
assert not k["pwr_evt"]["supported"] and k["tsc"]["supported"]
assert k["cr3"]["accepts_current"] and k["cr3"]["type"] == "u64"
assert k["cr3"]["needs_cap_perfmon"]
assert k["branch"]["default"] == 1 and k["branch"]["description"] == "trace branches (BranchEn)"
' "$t/out" || no "config --list --json: invalid JSON or wrong values"
fi

run 1 1 config --list --backend coresight
err_has "tracebuf: cannot list the configuration keys of coresight on CPU 0: $(printf '%s' 'no trace backend: no Intel PT or CoreSight hardware found, and no emulator loaded (or the session has backend "none", or its CPU is offline)')"
run 1 1 config --list --cpu 8
grep -q "^tracebuf: cannot list the configuration keys of intel_pt on CPU 8: " "$t/err" ||
	no "no error for CPU 8"

# No backend: said plainly, for both.
run 1 0 config --list
grep -q "^tracebuf: no trace backend present" "$t/err" || no "no 'no trace backend present'"
run 1 0 config --check branch
grep -q "^tracebuf: no trace backend present" "$t/err" || no "no 'no trace backend present' (check)"

# --check: the canonical form on success.
run 0 1 config --check 'user=0,mtc_period=6'
has "branch=1,user=0,kernel=0,tsc=1,mtc=0,mtc_period=6,cyc=0,cyc_thresh=0,psb_period=0,pwr_evt=0,drain_ms=10,ptw=0,cr3=off,addr0=off"

# Refused: the message, the string, and a caret under the kernel's span.
check_caret() { # STRING MESSAGE CARET
	run 1 1 config --check "$1"
	err_has "tracebuf: $2"
	err_has "  $1"
	err_has "  $3"
	[ -s "$t/out" ] && no "config --check '$1' wrote to stdout"
}
check_caret 'branch,cyc_thresh=99' \
	'cyc_thresh=99: not a supported value (supported: 0,1,2,3,4,5)' \
	'                  ^~'
check_caret 'pwr_evt=1,user' 'pwr_evt=1: not supported by this CPU' '^~~~~~~~~'
check_caret 'user,foo=1' \
	'foo=1: unknown key (keys: branch, user, kernel, tsc, mtc, mtc_period, cyc, cyc_thresh, psb_period, pwr_evt, drain_ms, ptw, cr3, addr0)' \
	'     ^~~'
check_caret 'drain_ms=0' 'drain_ms=0: out of range (supported: 1..1000)' '         ^'
check_caret 'user,,tsc' 'empty string or token at offset 5' '     ^'
FAKE_TB_UNPRIV=1 run 1 1 config --check 'kernel=1'
err_has "tracebuf: kernel=1: needs CAP_PERFMON or CAP_SYS_ADMIN"
err_has "  ^~~~~~~~"
FAKE_TB_UNPRIV=1 run 1 1 config --check 'user,cr3=current'
err_has "tracebuf: cr3=current: needs CAP_PERFMON or CAP_SYS_ADMIN"
err_has "       ^~~~~~~~~~~"
FAKE_TB_UNPRIV=1 run 0 1 config --check 'kernel=0,cr3=off'
# Unprintable bytes keep their column.
run 1 1 config --check "$(printf 'tsc,user=\t\200')"
err_has "tracebuf: user=??: not ASCII"
err_has "  tsc,user=??"
err_has "            ^"
exit $fail
