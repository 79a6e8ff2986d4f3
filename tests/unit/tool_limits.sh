#!/bin/sh
# SPDX-License-Identifier: GPL-2.0
# 'tracebuf record' when the module refuses to pin a session's pages
# (EPERM from SETUP or from the mapping that creates the data ring or the
# AUX area) or to start tracing (EACCES from ENABLE): the message names
# the limit or the permission, and says how to raise it. Against the fake
# ioctls and mmap (fake_ioctl.c + fake_mmap_preload.c preloaded), with a
# FIFO standing in for /dev/tracebuf.
#   tool_limits.sh TRACEBUF FAKE_SO TMPDIR
set -u
tool=$1 fake=$2 t=$3
fail=0
no() { echo "not ok: $*"; fail=1; }

rm -f "$t/dev"
mkfifo "$t/dev" || exit 1

rec() { # WANT_STATUS VAR=VALUE
	want=$1 e=$2
	rm -rf "$t/cap"
	env TRACEBUF_DEVICE="$t/dev" LD_PRELOAD="$fake" FAKE_TB_BACKENDS=1 "$e" \
		"$tool" record -C 0 --duration 0.1 -q -o "$t/cap" >"$t/out" 2>"$t/err"
	got=$?
	[ "$got" = "$want" ] || no "record with $e: exit $got, expected $want"
	echo "--- record with $e:"
	cat "$t/err"
}
has() { grep -qF -- "$1" "$t/err" || no "$e: stderr has no '$1'"; }
hasnt() { grep -qF -- "$1" "$t/err" && no "$e: stderr has '$1'"; }

lim=$(ulimit -l)
[ "$lim" = unlimited ] && lim="now unlimited" || lim="now $lim KiB"

pin_hint() {
	has "tracebuf: the pinned-memory limit was hit: each user may pin /sys/module/tracebuf/parameters/mlock_kb KiB per online CPU"
	has "and each process up to RLIMIT_MEMLOCK more (ulimit -l, $lim)"
	has "echo KIB > /sys/module/tracebuf/parameters/mlock_kb"
	has "run with CAP_IPC_LOCK"
	has "a smaller --data-size or --aux-size"
	hasnt "CAP_PERFMON"
}

# The fakes work: without an injected error the capture runs.
rec 0 FAKE_TB_NONE=1
hasnt "pinned-memory"
hasnt "paranoid"

# EPERM: the pinned-memory limit, at each call that pins.
rec 1 FAKE_TB_MMAP_DATA_ERR=1
has "tracebuf: CPU 0: cannot map a data ring of 262144 bytes: pinned-memory limit"
pin_hint
rec 1 FAKE_TB_MMAP_AUX_ERR=1
has "tracebuf: CPU 0: cannot map an AUX ring of 1048576 bytes: pinned-memory limit"
pin_hint
rec 1 FAKE_TB_SETUP_ERR=1
has "tracebuf: cannot set up a intel_pt session on CPU 0: pinned-memory limit"
pin_hint

# Other errors of the same calls say nothing about the limit.
rec 1 FAKE_TB_MMAP_AUX_ERR=12
has "tracebuf: CPU 0: cannot map an AUX ring of 1048576 bytes: "
hasnt "pinned-memory"

# EACCES from ENABLE: CPU-wide tracing needs CAP_PERFMON or paranoid <= 0.
rec 1 FAKE_TB_ENABLE_ERR=13
has "tracebuf: CPU 0: cannot start tracing: permission denied"
has "tracebuf: CPU-wide tracing needs CAP_PERFMON (or CAP_SYS_ADMIN) while /sys/module/tracebuf/parameters/paranoid is 1 or more"
has "run as root or with CAP_PERFMON"
has "paranoid <= 0 (as root: echo 0 > /sys/module/tracebuf/parameters/paranoid)"
hasnt "pinned-memory"
rec 1 FAKE_TB_ENABLE_ERR=16
has "Intel PT is in use by someone else"
hasnt "paranoid"

exit $fail
