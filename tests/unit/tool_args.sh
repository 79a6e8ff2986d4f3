#!/bin/sh
# SPDX-License-Identifier: GPL-2.0
# The tool's command line: exit codes and messages, without the module.
#   tool_args.sh TRACEBUF VERSION TMPDIR
set -u
tool=$1 version=$2 t=$3
fail=0

# expect STATUS PATTERN ENV ARGS...: PATTERN (grep, on stdout and stderr)
# may be ''; ENV is one VAR=value for the tool or '-'.
expect() {
	want=$1 pattern=$2 envvar=$3
	shift 3
	[ "$envvar" = - ] && envvar=TB_UNIT=1
	env "$envvar" "$tool" "$@" >"$t/out" 2>"$t/err"
	got=$?
	if [ "$got" != "$want" ]; then
		echo "tracebuf $*: exit $got, expected $want"
		cat "$t/out" "$t/err"
		fail=1
	elif [ -n "$pattern" ] && ! cat "$t/out" "$t/err" | grep -q -- "$pattern"; then
		echo "tracebuf $*: output lacks '$pattern':"
		cat "$t/out" "$t/err"
		fail=1
	fi
}

expect 2 "Usage:" -
[ -s "$t/out" ] && { echo "usage without arguments went to stdout"; fail=1; }
expect 2 "unknown command 'bogus'" - bogus
expect 2 "unknown option '--bogus'" - --bogus
expect 0 "^tracebuf $version\$" - --version
expect 0 "^tracebuf $version\$" - version
expect 0 "Usage:" - help
expect 0 "Usage:" - --help
expect 0 "Usage:" - -h
expect 2 "unknown option '--bogus'" - info --bogus
expect 2 "unknown option '-x'" - info -x
expect 2 "unexpected argument 'extra'" - info extra
expect 1 "modprobe tracebuf" TRACEBUF_DEVICE=/nonexistent info
grep -q "^tracebuf: cannot open /nonexistent: " "$t/err" || { echo "no 'cannot open' line"; fail=1; }
expect 1 "not a tracebuf device" TRACEBUF_DEVICE=/dev/null info
expect 0 "config --list \[--backend NAME\] \[--cpu N\] \[--json\]" - help
expect 0 "config --check STRING" - help
expect 2 "config needs one of --list and --check" - config
expect 2 "config needs one of --list and --check" - config --list --check branch
expect 2 "unknown option '--bogus'" - config --list --bogus
expect 2 "unknown option '-x'" - config -x
expect 2 "missing argument for option '--check'" - config --check
expect 2 "missing argument for option '--cpu'" - config --list --cpu
expect 2 "missing argument for option '--backend'" - config --list --backend
expect 2 "invalid CPU number 'abc'" - config --list --cpu abc
expect 2 "invalid CPU number '-1'" - config --list --cpu -1
expect 2 "invalid CPU number ''" - config --list --cpu ''
expect 2 "invalid CPU number '99999999999'" - config --list --cpu 99999999999
expect 2 "backend name too long '0123456789abcdef'" - config --list --backend 0123456789abcdef
expect 2 "option needs --list '--json'" - config --check branch --json
expect 2 "unexpected argument 'extra'" - config --list extra
expect 0 "Usage:" - config --help
expect 1 "modprobe tracebuf" TRACEBUF_DEVICE=/nonexistent config --list
grep -q "^tracebuf: cannot open /nonexistent: " "$t/err" || { echo "config: no 'cannot open' line"; fail=1; }
expect 1 "modprobe tracebuf" TRACEBUF_DEVICE=/nonexistent config --check branch --backend intel_pt --cpu 1
expect 1 "not a tracebuf device" TRACEBUF_DEVICE=/dev/null config --list
expect 1 "not a tracebuf device" TRACEBUF_DEVICE=/dev/null config --check branch
exit $fail
