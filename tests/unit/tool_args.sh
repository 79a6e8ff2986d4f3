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
# record: options and their errors (nothing reaches the device).
expect 0 "record \[-a | -C CPULIST | -p PID\]" - help
expect 0 "dump DIR \[--json\] \[--cpu N\]" - help
expect 0 "Usage: tracebuf record" - record --help
expect 0 "Usage: tracebuf dump" - dump --help
expect 2 "unknown option '--bogus'" - record --bogus
expect 2 "unknown option '-x'" - record -x
for opt in -C -b -c -o --data-size --aux-size --duration -p --pid --sideband; do
	expect 2 "missing argument for option '$opt'" - record "$opt"
done
expect 2 "invalid --aux-size (not a power of two) '3K'" - record --aux-size 3K
expect 2 "invalid --data-size (not a power of two) '3K'" - record --data-size 3K
expect 2 "invalid --aux-size (not a power of two) '0'" - record --aux-size 0
expect 2 "invalid --aux-size (a number with an optional K, M or G) '1X'" - record --aux-size 1X
expect 2 "invalid --aux-size (a number with an optional K, M or G) '-4K'" - record --aux-size -4K
expect 2 "invalid --data-size (less than the page size" - record --data-size 512
expect 2 "invalid --data-size (more than 1024M) '2G'" - record --data-size 2G
expect 2 "invalid --aux-size (more than 4096M) '8G'" - record --aux-size 8G
expect 2 "invalid CPU list '5-2'" - record -C 5-2
expect 2 "invalid CPU list ''" - record -C ''
expect 2 "invalid CPU list '1,'" - record -C 1,
expect 2 "invalid CPU list 'a'" - record -C a
expect 2 "invalid CPU list '-1'" - record -C -1
expect 2 "invalid CPU list '99999'" - record -C 99999
expect 2 "-a and -C exclude each other" - record -a -C 0
expect 2 "invalid duration 'abc'" - record --duration abc
expect 2 "invalid duration '0'" - record --duration 0
expect 2 "invalid duration '-1'" - record --duration -1
expect 2 "invalid duration '5x'" - record --duration 5x
expect 2 "invalid duration 'inf'" - record --duration inf
expect 2 "invalid backend name '0123456789abcdef'" - record -b 0123456789abcdef
expect 2 "invalid configuration string ''" - record -c ''
expect 2 "unexpected argument (a command goes after '--') 'ls'" - record ls
expect 2 "missing command after '--'" - record -C 0 --
expect 2 "-p traces a process on every CPU; -a and -C trace CPUs '-p'" - record -p 1 -a
expect 2 "-p traces a process on every CPU; -a and -C trace CPUs '-p'" - record -C 0 -p 1
expect 2 "-p and a command exclude each other '-p'" - record -p 1 -- true
expect 2 "invalid process ID '0'" - record -p 0
expect 2 "invalid process ID '-3'" - record -p -3
expect 2 "invalid process ID '12x'" - record --pid 12x
expect 2 "--no-inherit is for -p or a command without -a or -C '--no-inherit'" - record --no-inherit
expect 2 "--no-inherit is for -p or a command without -a or -C '--no-inherit'" - record --no-inherit -a -- true
expect 2 "invalid --sideband (auto, perf, proc or none) 'all'" - record --sideband all
# Valid command lines reach the device: exit 1 with the open error.
for args in "-C 0" "-a" "-C 0,2-3 --aux-size 4M --data-size 64K" "--duration 1.5" \
	"--duration 500ms" "-d 2s -q --allow-loss" "--snapshot -- true" "-b intel_pt -c cyc=1 -- sh -c exit" \
	"-- true" "--no-inherit --sideband proc -- true" "-p 1" "--sideband none -a"; do
	# shellcheck disable=SC2086
	expect 1 "^tracebuf: cannot open /nonexistent: .*modprobe tracebuf" \
		TRACEBUF_DEVICE=/nonexistent record -o "$t/never" $args
done
[ -e "$t/never" ] && { echo "record created its directory before opening the device"; fail=1; }
expect 1 "not a tracebuf device" TRACEBUF_DEVICE=/dev/null record -C 0 -o "$t/never"

# dump: options and a missing capture.
expect 2 "dump needs a capture directory" - dump
expect 2 "unknown option '--bogus'" - dump --bogus x
expect 2 "missing argument for option '--cpu'" - dump x --cpu
expect 2 "invalid CPU number '-1'" - dump --cpu -1 x
expect 1 "cannot open capture $t/missing: No such file or directory" - dump "$t/missing"
exit $fail
