#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
# The tracebuf test runner: native unit tests, builds for every kernel,
# lint, and the guest suite on every configuration. Every result is one
# line, "PASS name" or "FAIL name" (or "SKIP name"); the run closes with
# "N passed, N failed, N skipped" and exits non-zero if anything failed.
#
#   tests/run.sh            everything (make check)
#   tests/run.sh --quick    unit tests + the x86_64 6.1 guest (make check-quick)
#   tests/run.sh --config C only guest configuration C (repeatable)
#   tests/run.sh --kcsan    only the KCSAN guest (make check-kcsan): the
#                           data-ring and lifetime tests and pt_aux on an
#                           x86_64 kernel with KCSAN (not part of make check)
#   tests/run.sh --acpi     only the arm64 6.1 and 6.12 guests booted with
#                           UEFI and ACPI (make check-acpi): the CoreSight
#                           tests of an ACPI server's topology (make check
#                           runs them too, after each arm64 configuration)
set -uo pipefail
. "$(dirname "$0")/harness/lib.sh"

quick=0
kcsan=0
acpi=0
configs=()
while [ $# -gt 0 ]; do
	case "$1" in
	--quick) quick=1; shift ;;
	--config) configs+=("$2"); shift 2 ;;
	--kcsan) kcsan=1; configs=(x86_64-kcsan); shift ;;
	--acpi) acpi=1; configs=(arm64-6.1 arm64-6.12); shift ;;
	*) tb_die "unknown option $1" ;;
	esac
done
# The tests the KCSAN guest runs (with their plan lines' timeouts and
# arguments): the data ring from every context, wakeups, markers, the
# lifetimes, hotplug, the PT backend and the adversarial suite.
KCSAN_TESTS="ring_stress wakeups read_markers lifetime hotplug pt_aux adversary"
# The tests each arm64 configuration runs again booted with UEFI and ACPI
# (run-guest.sh --acpi): loading, and the CoreSight tests that have an
# ACPI part (N1SDP's topology from the namespace: cs_dt, cs_aux, and
# cs_record's capture through it).
ACPI_TESTS="modload cs_dt cs_aux cs_record"
if [ ${#configs[@]} -eq 0 ]; then
	if [ $quick = 1 ]; then
		configs=(x86_64-6.1)
	else
		configs=(x86_64-6.1 x86_64-6.12 arm64-6.1 arm64-6.12 x86_64-debug arm64-debug)
	fi
fi

out=$TB_TOP/build/results
[ $kcsan = 1 ] && out=$TB_TOP/build/results-kcsan
[ $acpi = 1 ] && out=$TB_TOP/build/results-acpi
rm -rf "$out"
mkdir -p "$out"
log=$out/results.txt
: >"$log"
# Results of steps run before this one (.ci/run: 'make demo') count here.
if [ -n "${TB_EXTRA_RESULTS:-}" ] && [ -f "$TB_EXTRA_RESULTS" ]; then
	echo "== earlier steps ($TB_EXTRA_RESULTS)"
	grep -E '^(PASS|FAIL|SKIP) ' "$TB_EXTRA_RESULTS" | tee -a "$log"
fi

# Print a result line and keep it for the summary.
result() { echo "$*" | tee -a "$log"; }
collect() { # filter: pass result lines through, keep them, show the rest
	while IFS= read -r line; do
		case "$line" in
		PASS\ * | FAIL\ * | SKIP\ *) result "$line" ;;
		*) echo "$line" ;;
		esac
	done
}

# Steps 1-3 (not with --kcsan or --acpi, which run only their guest).
if [ $kcsan = 0 ] && [ $acpi = 0 ]; then
# 1. Native unit tests.
echo "== unit tests"
make -s -C "$TB_TOP/tests/unit" check O="$TB_TOP/build/unit" 2>&1 | collect

# 2. Lint (checkpatch --strict, sparse).
echo "== lint"
make -s -C "$TB_TOP" lint-results 2>&1 | collect

# 3. The top-level Makefile as a user runs it: native, and cross for arm64.
echo "== top-level build"
for cfg in x86_64-6.1 arm64-6.1; do
	d=$TB_TOP/build/toplevel/$cfg
	rm -rf "$d"
	mkdir -p "$d"
	cp -a "$TB_TOP"/{Makefile,dkms.conf,module,include,userspace,tests} "$d/"
	args=(KDIR="$(tb_cfg_get "$cfg" KDIR)")
	want=x86-64
	if [ "$(tb_cfg_arch "$cfg")" = arm64 ]; then
		args+=(ARCH=arm64 CROSS_COMPILE=aarch64-linux-gnu-)
		want=aarch64
	fi
	if make -s -C "$d" "${args[@]}" >"$d.log" 2>&1 &&
		! grep -E 'warning:' "$d.log" &&
		file "$d/module/tracebuf.ko" | grep -q "$want" &&
		file "$d/build/user/tracebuf" | grep -q "$want" &&
		file -L "$d/build/user/libtracebuf.so" | grep -q "$want"; then
		result "PASS build/make-$cfg"
	else
		result "FAIL build/make-$cfg"
		tail -n 20 "$d.log"
	fi
done
fi # steps 1-3

# Host-side checkers for the guests' captures (build/host/ptcheck, cscheck,
# gtcheck, and the tool's decode in build/user/tracebuf).
{
	if ! make -s -C "$TB_TOP/tests/host" O="$TB_TOP/build" >"$out/host-build.log" 2>&1; then
		result "FAIL host/build"
		tail -n 20 "$out/host-build.log"
	fi
	# The host's tool (with libipt) decodes what 'tracebuf record' captured.
	if ! make -s -C "$TB_TOP/userspace" O="$TB_TOP/build/user" LIBIPT=1 \
		>"$out/host-tool-build.log" 2>&1; then
		result "FAIL host/tool-build"
		tail -n 20 "$out/host-tool-build.log"
	fi
}

# The plan for configuration cfg: the tests guest/plan lists for it, only
# those named in $2 when it is not empty.
mkplan() { # cfg only
	awk -v c="$1" -v only="$2" '
	!/^[[:space:]]*#/ && NF >= 3 {
		n = split($3, cs, ","); ok = 0
		for (i = 1; i <= n; i++) if (cs[i] == "all" || cs[i] == c) ok = 1
		if (only != "" && index(" " only " ", " " $1 " ") == 0) ok = 0
		if (ok) { line = $1 " " $2; for (i = 4; i <= NF; i++) line = line " " $i; print line }
	}' "$TB_TOP/tests/guest/plan"
}

# 4. Per configuration: build (zero warnings; DKMS where applicable), then
#    the guest suite.
for cfg in "${configs[@]}"; do
	echo "== $cfg"
	if tb_cfg_built "$cfg"; then
		if ! "$TB_TOP/tests/harness/debug-kernel.sh" "${cfg%-*}" "${cfg##*-}"; then
			result "FAIL $cfg/kernel-build"
			continue
		fi
	fi
	if "$TB_TOP/tests/harness/build-guest.sh" "$cfg" >"$out/$cfg-build.out" 2>&1; then
		what=build
		tb_cfg_dkms "$cfg" && what=dkms-build
		warn=$(grep -E 'warning:|error:' "$(tb_build_dir "$cfg")/build.log" | grep -v 'Skipping BTF' || true)
		if [ -n "$warn" ]; then
			result "FAIL $cfg/$what-zero-warnings"
			echo "$warn" | head -n 20
		else
			result "PASS $cfg/$what-zero-warnings"
		fi
	else
		result "FAIL $cfg/build"
		tail -n 30 "$out/$cfg-build.out"
		continue
	fi

	to=900
	tb_cfg_built "$cfg" && to=2100
	if [ $acpi = 0 ]; then
		only=
		[ "$cfg" = x86_64-kcsan ] && only=$KCSAN_TESTS
		mkplan "$cfg" "$only" >"$out/$cfg.plan"
		"$TB_TOP/tests/harness/run-guest.sh" --timeout $to "$cfg" "$out/$cfg.plan" "$out/$cfg" |
			collect
	fi

	# An ACPI server's CoreSight (Arm N1SDP's, tests/harness/acpi.sh): the
	# same kernel and build booted with UEFI firmware and ACPI.
	case "$cfg" in
	arm64-*)
		mkplan "$cfg" "$ACPI_TESTS" >"$out/$cfg-acpi.plan"
		"$TB_TOP/tests/harness/run-guest.sh" --acpi --timeout $to --id "$cfg-acpi" \
			"$cfg" "$out/$cfg-acpi.plan" "$out/$cfg-acpi" | collect
		;;
	esac
	[ $acpi = 1 ] && continue

	# Intel PT's cr3=current under page-table isolation: the guest CPU is not
	# affected by Meltdown, so PTI is on only when forced; the whole plan
	# is too slow with it, so a short boot runs that one check.
	case "$cfg" in
	x86_64-6.1 | x86_64-6.12)
		echo "drv_config 300 pti" >"$out/$cfg-pti.plan"
		TB_GUEST_APPEND=pti=on "$TB_TOP/tests/harness/run-guest.sh" --timeout 300 \
			--id "$cfg-pti" "$cfg" "$out/$cfg-pti.plan" "$out/$cfg-pti" | collect
		;;
	esac

	# The harness proves itself: each failure class it must catch.
	case "$cfg" in
	x86_64-debug) classes="oops warning kasan atomic leak hang waitctx" ;;
	arm64-debug) classes="waitctx" ;;
	x86_64-kcsan) classes="kcsan" ;;
	x86_64-6.1) classes="oops warning nmi flood" ;;
	*) classes="" ;;
	esac
	for c in $classes; do
		# The guest-side timeout must outlast the host's, or a hang is not one.
		echo "provoke 900 $c" >"$out/provoke-$c.plan"
		to=120
		[ $c = hang ] && to=60
		tb_cfg_built "$cfg" && to=$((to + 60))
		"$TB_TOP/tests/harness/run-guest.sh" --expect $c --timeout $to --id "$cfg" \
			"$cfg" "$out/provoke-$c.plan" "$out/$cfg-provoke-$c" | collect
	done
done

pass=$(grep -c '^PASS ' "$log")
fail=$(grep -c '^FAIL ' "$log")
skip=$(grep -c '^SKIP ' "$log")
echo
if [ "$fail" -gt 0 ]; then
	echo "Failed:"
	grep '^FAIL ' "$log" | sed 's/^/  /'
fi
echo "$pass passed, $fail failed, $skip skipped"
[ "$fail" -eq 0 ] && [ "$pass" -gt 0 ]
