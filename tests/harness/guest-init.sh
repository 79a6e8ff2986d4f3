#!/bin/busybox sh
# SPDX-License-Identifier: GPL-2.0
# /init of the tracebuf test guest.
#
# Runs every test listed in /tests/plan, each its own program, and reports
# one line per test on a private result channel (ttyS1 on x86_64, hvc0 on
# arm64), never on the console: the console carries the kernel log, which
# the host scans for splats. Then it checks kmemleak (debug kernel) and
# powers off with an exit status QEMU turns into its own.
#
# Result channel lines:
#   TB-BOOT <uname -r>
#   TB-RESULT <test> pass|fail|skip <rc> <seconds>
#   TB-KMEMLEAK <count>          (only when kmemleak found something)
#   TB-LOCKDEP-OFF               (lockdep switched itself off during the run)
#   TB-FINAL <test>              (a final test follows TB-DONE)
#   TB-DONE <failures>
#
# A final test (plan argument @final, at most one) runs last, after
# TB-DONE, and ends the guest itself through the kernel's own shutdown
# path (reboot(2)), so its verdict cannot travel on the result channel:
# it prints "TB-ARMED <test>" and "TB-EXPECT <test> <text>" lines on the
# console, and the host judges it there (run-guest.sh). If it returns,
# it failed, and the guest powers off as usual.
#
# Test artifacts travel on a channel of their own (ttyS2 on x86_64, hvc1
# on arm64): after the tests, every file of every capture directory
# /tmp/cap/<capname>/ is sent gzip-compressed and base64-encoded between
# frame lines (the host unpacks them into <outdir>/cap/<capname>/ and
# runs ptcheck on each):
#   TB-ART-BEGIN
#   TB-CAP <capname>
#   TB-FILE <capname> <file> <size> <md5> gzip
#   <base64 lines of the gzip stream>
#   TB-FILE-END <capname> <file>
#   TB-CAP-END <capname>
#   TB-ART-END
/bin/busybox mkdir -p /bin /sbin /usr/bin /usr/sbin
/bin/busybox --install -s
# /tests last: test programs must never shadow busybox applets.
export PATH=/sbin:/bin:/usr/sbin:/usr/bin:/tests
mount -t proc proc /proc
mount -t sysfs sysfs /sys
mount -t devtmpfs devtmpfs /dev 2>/dev/null
mount -t debugfs debugfs /sys/kernel/debug 2>/dev/null
mkdir -p /tmp /dev/shm
mount -t tmpfs tmpfs /tmp
mount -t tmpfs tmpfs /dev/shm

. /etc/tb-guest.conf

case "$TB_ARCH" in
x86_64)
	RES=/dev/ttyS1
	stty -F $RES raw -echo 2>/dev/null
	;;
arm64)
	modprobe virtio_mmio
	modprobe virtio_console
	i=0
	while [ ! -e /dev/hvc0 ] && [ $i -lt 100 ]; do sleep 0.1; i=$((i + 1)); done
	RES=/dev/hvc0
	;;
esac
# The node can appear before its port is ready (ENODEV): retry for a while.
# Probe in a subshell: a failed redirection on 'exec' would end /init.
i=0
until (: >"$RES") 2>/dev/null; do
	i=$((i + 1))
	[ $i -lt 100 ] || { echo "tracebuf: no result channel $RES"; poweroff -f; }
	sleep 0.1
done
exec 3>"$RES"
echo "TB-BOOT $(uname -r)" >&3

[ -w /sys/kernel/debug/kmemleak ] && echo clear >/sys/kernel/debug/kmemleak

# x86_64: two idle probes on each scheduler tracepoint tracebuf hooks, so
# that its probes come and go without text_poke_bp() on __schedule()
# (QEMU's multi-threaded TCG has run a completed patch's int3 byte on the
# other vCPU; tests/modules/tb_tppin.c).
if [ "$TB_ARCH" = x86_64 ] && ! modprobe tb_tppin; then
	echo "TB-RESULT tb_tppin fail 1 0" >&3
fi

failures=0
final=
while read -r name timeout args; do
	case "$name" in ''|'#'*) continue ;; esac
	case " $args " in *" @final "*) final="$name $timeout"; continue ;; esac
	echo "=== tracebuf test $name"
	start=$(date +%s)
	# shellcheck disable=SC2086
	timeout "$timeout" "/tests/$name" $args </dev/null 2>&1
	rc=$?
	end=$(date +%s)
	case $rc in
	0) verdict=pass ;;
	77) verdict=skip ;;
	*) verdict=fail; failures=$((failures + 1)) ;;
	esac
	echo "=== tracebuf test $name: $verdict (rc $rc)"
	echo "TB-RESULT $name $verdict $rc $((end - start))" >&3
	# A test killed by its timeout (busybox timeout: SIGTERM, rc 143)
	# cannot clean up: its children would go on, and an emulator it left
	# in follow mode would give the next test the followed program's
	# trace instead of the synthetic one (tb_ptemu/tb_csemu debugfs).
	case $rc in
	124|137|143)
		echo "=== $name timed out: its leftover processes killed"
		kill -9 -1 2>/dev/null	# every process but /init
		sleep 1
		;;
	esac
	for emu in /sys/kernel/debug/tb_ptemu /sys/kernel/debug/tb_csemu; do
		[ -w "$emu/follow_mode" ] || continue
		if [ "$(cat "$emu/follow_mode")" != N ]; then
			echo "=== $name left ${emu##*/} in follow mode: switched off"
			echo 0 >"$emu/follow_mode"
		fi
		[ -w "$emu/follow_break" ] && echo 0 >"$emu/follow_break"
		# Loaded with the test's own parameters (topology=): the next
		# test loads it with its own.
		case $rc in 124|137|143) rmmod "${emu##*/}" 2>/dev/null ;; esac
	done
done </tests/plan

# Capture directories the tests left, to the host over ttyS2 (x86_64) or
# hvc1 (arm64).
# (tests/unit/ptcheck.sh runs this function natively.)
send_artifacts() { # dir
	echo "TB-ART-BEGIN"
	for d in "$1"/*; do
		[ -d "$d" ] || continue
		c=${d##*/}
		echo "TB-CAP $c"
		for f in "$d"/*; do
			[ -f "$f" ] || continue
			# Compressed: a CoreSight capture of a single-stepped program is
			# mostly padding frames (a granule per switch), and the
			# channel moves about a megabyte a second.
			echo "TB-FILE $c ${f##*/} $(wc -c <"$f") $(md5sum <"$f" | cut -d' ' -f1) gzip"
			gzip -c "$f" | base64
			echo "TB-FILE-END $c ${f##*/}"
		done
		echo "TB-CAP-END $c"
	done
	echo "TB-ART-END"
}
# Each capture is also announced on the result channel ("TB-CAP <name>"),
# so the host notices one that never arrives.
if [ -d /tmp/cap ]; then
	for d in /tmp/cap/*; do [ -d "$d" ] && echo "TB-CAP ${d##*/}" >&3; done
	if [ "$TB_ARCH" = x86_64 ]; then
		ART=/dev/ttyS2
		stty -F $ART raw -echo 2>/dev/null
	else
		ART=/dev/hvc1	# a second virtio console
	fi
	(send_artifacts /tmp/cap >$ART) || echo "tracebuf: could not send artifacts on $ART"
fi

# kmemleak only reports objects older than 5 s, and needs two scans to be
# sure an object is unreferenced.
if [ -w /sys/kernel/debug/kmemleak ]; then
	sleep 6
	echo scan >/sys/kernel/debug/kmemleak
	sleep 1
	echo scan >/sys/kernel/debug/kmemleak
	n=$(grep -c '^unreferenced object' /sys/kernel/debug/kmemleak)
	if [ "$n" -gt 0 ]; then
		echo "=== kmemleak report"
		cat /sys/kernel/debug/kmemleak
		echo "TB-KMEMLEAK $n" >&3
		failures=$((failures + 1))
	fi
fi

# Lockdep switches itself off after its first report, and on some of its
# own limits: a debug run that ends with lockdep off did not check the
# rest of its tests (the debug kernels' /proc/lockdep_stats).
if [ -r /proc/lockdep_stats ] && grep -Eq '^ *debug_locks: +0$' /proc/lockdep_stats; then
	echo "=== lockdep is off at the end of the run"
	echo "TB-LOCKDEP-OFF" >&3
	failures=$((failures + 1))
fi

[ -n "$final" ] && echo "TB-FINAL ${final%% *}" >&3
echo "TB-DONE $failures" >&3
if [ -n "$final" ]; then
	echo "=== tracebuf test ${final%% *} (final)"
	sync
	timeout "${final#* }" "/tests/${final%% *}" </dev/null 2>&1
	rc=$?
	echo "=== tracebuf test ${final%% *}: returned (rc $rc): fail"
	echo "TB-RESULT ${final%% *} fail $rc 0" >&3
	failures=$((failures + 1))
fi
exec 3>&-
sync
[ $failures -gt 100 ] && failures=100
/tests/tb-poweroff $failures
poweroff -f
