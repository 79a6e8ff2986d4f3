#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
# Boot one guest and judge it.
#
#   run-guest.sh [--expect CLASS] [--timeout S] [--id ID] [--acpi] CONFIG PLAN OUTDIR
#
# --acpi (arm64): boot CONFIG's kernel with UEFI firmware and ACPI instead
# of a device tree, with an ACPI server's CoreSight (tests/harness/acpi.sh).
#
# PLAN lists the tests to run ("name timeout [args]" per line). The guest
# image is built from build/guest/CONFIG (see build-guest.sh). Prints one
# line per result, "PASS <id>/<test>" or "FAIL <id>/<test>", and one for the
# run itself ("<id>/guest-clean": the guest finished, reported, powered off,
# and its console holds no WARNING/BUG/Oops/KASAN/UBSAN/lockdep/kmemleak,
# no NMI that no handler claimed, no emulator VIOLATION, and no flood: see
# flood_check). A final test (plan argument @final: guest-init.sh) is
# judged from the console: it passes when it printed "TB-ARMED <test>",
# then every "TB-EXPECT <test> <text>" text appeared on a later line, then
# the kernel's "reboot: Power down".
#
# A channel of its own (x86_64: a third serial port, ttyS2 in the guest;
# arm64: a second virtio console, hvc1; OUTDIR/artifacts.log on the host)
# carries the capture directories guest tests leave in
# /tmp/cap/<capname>/ (framing: see guest-init.sh). They are unpacked into
# OUTDIR/cap/<capname>/ and each is checked with build/host/ptcheck
# (--snapshot if it holds a file "snapshot"): "PASS <id>/ptcheck-<capname>"
# or "FAIL <id>/ptcheck-<capname>" with the checker's output. A capture
# announced (on either channel) but not complete fails. A capture that
# 'tracebuf record' wrote (it has a meta.json) is decoded instead by the
# host's own tool, build/user/tracebuf (built with libipt):
# "PASS|FAIL <id>/decode-<capname>". A CoreSight capture (it has a file
# cscheck.args) is exported as OpenCSD snapshots by that tool (the guest's
# /tests being build/guest/ID/bin, for the memory images of a capture with
# a sideband) and checked by build/host/cscheck with those arguments:
# "PASS|FAIL <id>/cscheck-<capname>".
# A 'tracebuf record' capture with a ground truth (meta.json and gt.txt) is
# decoded instruction by instruction by that tool (decode --insn --json, the
# guest's /tests being build/guest/ID/bin, TB_GUEST_BIN overrides it, and
# its / holding what the root/ beside that holds: a dynamic loader) and
# compared with it by build/host/gtcheck, with the arguments in the file
# gtcheck.args if there is one: "PASS|FAIL <id>/gtcheck-<capname>".
#
#   run-guest.sh --check-artifacts ID OUTDIR
# only does that, on an existing OUTDIR/artifacts.log (and result.txt);
# TB_PTCHECK overrides the checker's path.
#
# TB_GUEST_APPEND, if set, is added to the guest kernel's command line
# (tests/run.sh boots one short run with pti=on).
#
# With --expect CLASS the run is a harness self-test: the guest is meant to
# fail in that way (oops, warning, kasan, atomic, leak, hang, nmi, flood,
# waitctx, kcsan), and the single result line "<id>/harness-catches-CLASS" passes
# only if the harness saw it.
set -uo pipefail
. "$(dirname "$0")/lib.sh"

# Unpack OUTDIR/artifacts.log into OUTDIR/cap/ and check every capture.
check_artifacts() { # id outdir
	local id=$1 out=$2 log=$2/artifacts.log caps c d f bad ptcheck tool
	ptcheck=${TB_PTCHECK:-$TB_TOP/build/host/ptcheck}
	tool=${TB_HOST_TOOL:-$TB_TOP/build/user/tracebuf}
	rm -rf "$out/cap"
	mkdir -p "$out/cap"
	[ -f "$log" ] || : >"$log"
	# Unpacking: base64 text to CAP/FILE.b64, size, md5 and encoding (gzip
	# or none) to CAP/FILE.meta,
	# a CAP/FILE.done per complete file, CAP/.done per complete capture.
	tr -d '\r' <"$log" | awk -v dir="$out/cap" '
		function ok(s) { return s ~ /^[A-Za-z0-9][A-Za-z0-9._-]*$/ }
		/^TB-CAP / { if (ok($2)) { system("mkdir -p \"" dir "/" $2 "\""); print $2 > (dir "/.announced") } ; next }
		/^TB-FILE / {
			if (ok($2) && ok($3) && $3 !~ /\.(b64|meta|done)$/) {
				cur = dir "/" $2 "/" $3; printf "" > (cur ".b64")
				print $4, $5, $6 > (cur ".meta"); close(cur ".meta")
			} else cur = ""
			next
		}
		/^TB-FILE-END / { if (cur != "") { close(cur ".b64"); print "" > (cur ".done"); close(cur ".done") } cur = ""; next }
		/^TB-CAP-END / { if (ok($2)) { f = dir "/" $2 "/.done"; print "" > f; close(f) } cur = ""; next }
		/^TB-ART-/ { cur = ""; next }
		{ if (cur != "") print > (cur ".b64") }
	'
	caps=$( { cat "$out/cap/.announced" 2>/dev/null
		sed -n 's/^TB-CAP \([A-Za-z0-9][A-Za-z0-9._-]*\)$/\1/p' "$out/result.txt" 2>/dev/null
	} | sort -u)
	for c in $caps; do
		d=$out/cap/$c
		mkdir -p "$d"
		bad=
		[ -f "$d/.done" ] || bad="capture $c incomplete (no end frame)"
		for f in "$d"/*.meta; do
			[ -f "$f" ] || continue
			f=${f%.meta}
			local size sum enc
			read -r size sum enc <"$f.meta"
			if [ ! -f "$f.done" ]; then
				bad="${bad:+$bad; }${f##*/}: incomplete"
			elif [ "$enc" = gzip ] && ! base64 -d <"$f.b64" | gzip -dc >"$f" 2>/dev/null; then
				bad="${bad:+$bad; }${f##*/}: bad base64 or gzip"
			elif [ "$enc" != gzip ] && ! base64 -d <"$f.b64" >"$f" 2>/dev/null; then
				bad="${bad:+$bad; }${f##*/}: bad base64"
			elif [ "$(wc -c <"$f")" != "$size" ] ||
				[ "$(md5sum <"$f" | cut -d' ' -f1)" != "$sum" ]; then
				bad="${bad:+$bad; }${f##*/}: size or md5 mismatch"
			fi
			rm -f "$f.b64" "$f.meta" "$f.done"
		done
		rm -f "$d/.done"
		if [ -n "$bad" ]; then
			echo "FAIL $id/ptcheck-$c ($bad)"
		elif [ ! -x "$ptcheck" ]; then
			echo "FAIL $id/ptcheck-$c ($ptcheck not built: make -C tests/host)"
		elif [ -f "$d/gt.txt" ] && [ -f "$d/meta.json" ]; then
			# A 'tracebuf record' capture of a program followed by the
			# emulator, with its ground truth: the host's tool decodes every
			# instruction (the guest's binaries: /tests is bin/ of the guest
			# build) and gtcheck compares them (args in gtcheck.args).
			local gtc=${TB_GTCHECK:-$TB_TOP/build/host/gtcheck} sr=$d.sysroot
			local gbin=${TB_GUEST_BIN:-$(tb_build_dir "$id")/bin}
			rm -rf "$sr" && mkdir -p "$sr" && ln -s "$gbin" "$sr/tests"
			# And the files build-guest.sh put in the guest's / (root/
			# beside bin/: the dynamic loader of a dynamically linked
			# program).
			for f in "$(dirname "$gbin")/root"/*; do
				[ -e "$f" ] && ln -s "$f" "$sr/${f##*/}"
			done
			if [ ! -x "$tool" ] || [ ! -x "$gtc" ]; then
				echo "FAIL $id/gtcheck-$c ($tool or $gtc not built)"
			elif ! "$tool" decode "$d" --insn --json --no-disasm --sysroot "$sr" \
				>"$d.insn" 2>"$d.gtcheck"; then
				echo "FAIL $id/gtcheck-$c (decode)"
				sed 's/^/    /' "$d.gtcheck" | head -n 40
			# shellcheck disable=SC2046
			elif "$gtc" $(cat "$d/gtcheck.args" 2>/dev/null) "$d/gt.txt" "$d.insn" \
				>>"$d.gtcheck" 2>&1; then
				echo "PASS $id/gtcheck-$c ($(tail -n1 "$d.gtcheck" | sed 's/^gtcheck: [^ ]*: //'))"
				# The same decoded flow against a ground truth with one
				# conditional branch's outcome inverted (B lines only,
				# gtcheck's branch-for-branch mode): gtcheck must see it,
				# or its PASS proved nothing. A whole capture (no
				# gtcheck.args): the middle one; a snapshot (gtcheck.args
				# --snapshot, with --one-ring or not): the last one, in the newest trace, which
				# the snapshot holds; not a filtered one (its range may not
				# hold it).
				local nb=0 k sargs
				sargs=$(cat "$d/gtcheck.args" 2>/dev/null)
				[[ -n $sargs && ! $sargs =~ ^--snapshot([[:space:]]+--one-ring)?[[:space:]]*$ ]] ||
					nb=$(awk '$1 == "B" && $5 == 1' "$d/gt.txt" | wc -l)
				k=$((nb / 2 + 1))
				[ -n "$sargs" ] && k=$nb
				awk -v k="$k" '$1 == "S" || $1 == "R" { next }
					$1 == "B" && $5 == 1 && ++n == k { $6 = 1 - $6 } 1' \
					"$d/gt.txt" >"$d.gt-mutated"
				if [ "$nb" = 0 ]; then
					:
				elif ! "$gtc" $sargs "$d.gt-mutated" "$d.insn" >"$d.gtcheck-mutated" 2>&1; then
					echo "PASS $id/gtcheck-$c-mutated (branch $k of $nb inverted${sargs:+, the newest}: caught)"
				else
					echo "FAIL $id/gtcheck-$c-mutated (an inverted branch in the ground truth passed)"
				fi
				# A signal handler left out: a far branch (the system call at
				# whose exit the handler ran) whose successor is not the next
				# instruction, and a later one of its thread going back to
				# just after it (the handler's rt_sigreturn): the first goes
				# where the second went and the branches in between are
				# gone. gtcheck must see the decoded flow enter the handler.
				if [ ! -s "$d/gtcheck.args" ] && awk -f "$TB_TOP/tests/harness/nohandler.awk" \
					"$d/gt.txt" >"$d.gt-nohandler" 2>/dev/null; then
					if ! "$gtc" "$d.gt-nohandler" "$d.insn" >"$d.gtcheck-nohandler" 2>&1; then
						echo "PASS $id/gtcheck-$c-nohandler (the ground truth without the signal handler: caught)"
					else
						echo "FAIL $id/gtcheck-$c-nohandler (the ground truth without the signal handler passed)"
					fi
				fi
				# A filtered capture (--range LO-HI) against the range with
				# its start moved 16 bytes on: gtcheck must see the decoded
				# instructions outside it, or the range proved nothing.
				local lo hi args
				args=$(cat "$d/gtcheck.args" 2>/dev/null)
				if [[ $args =~ --range\ ([0-9a-fA-F]+)-([0-9a-fA-F]+) ]]; then
					lo=${BASH_REMATCH[1]} hi=${BASH_REMATCH[2]}
					# shellcheck disable=SC2001
					args=$(echo "$args" | sed "s/--range [0-9a-fA-F]*-/--range $(printf %x $((0x$lo + 16)))-/")
					# shellcheck disable=SC2086
					if ! "$gtc" $args "$d/gt.txt" "$d.insn" >"$d.gtcheck-range" 2>&1; then
						echo "PASS $id/gtcheck-$c-range-shifted (range $lo-$hi started 16 bytes later: caught)"
					else
						echo "FAIL $id/gtcheck-$c-range-shifted (the range started 16 bytes later passed)"
					fi
				fi
			else
				echo "FAIL $id/gtcheck-$c"
				sed 's/^/    /' "$d.gtcheck" | head -n 40
			fi
		elif [ -f "$d/gt.txt" ]; then
			# A follow-mode capture: the trace against the ground truth.
			local fc=${TB_PTFOLLOWCHECK:-$TB_TOP/build/host/ptfollowcheck}
			if "$fc" "$d" >"$d.ptfollowcheck" 2>&1; then
				echo "PASS $id/ptfollowcheck-$c ($(tail -n1 "$d.ptfollowcheck" | sed 's/^ptfollowcheck: [^ ]*: //'))"
			else
				echo "FAIL $id/ptfollowcheck-$c"
				sed 's/^/    /' "$d.ptfollowcheck" | head -n 40
			fi
		elif [ -f "$d/cscheck.args" ]; then
			# A CoreSight capture: OpenCSD snapshots, decoded by the stock
			# trc_pkt_lister and checked by cscheck with the test's args.
			# A capture with a sideband (tool_task): the guest's binaries
			# (/tests is bin/ of the guest build) are its memory images.
			local cscheck=${TB_CSCHECK:-$TB_TOP/build/host/cscheck} csr=$d.sysroot
			local cbin=${TB_GUEST_BIN:-$(tb_build_dir "$id")/bin}
			rm -rf "$csr" && mkdir -p "$csr" && ln -s "$cbin" "$csr/tests"
			if [ ! -x "$tool" ] || [ ! -x "$cscheck" ]; then
				echo "FAIL $id/cscheck-$c ($tool or $cscheck not built)"
			elif ! "$tool" export --opencsd "$d.ocsd" --sysroot "$csr" "$d" \
				>"$d.cscheck" 2>&1; then
				echo "FAIL $id/cscheck-$c (export)"
				sed 's/^/    /' "$d.cscheck" | head -n 40
			# shellcheck disable=SC2046
			elif "$cscheck" $(cat "$d/cscheck.args") "$d.ocsd" >>"$d.cscheck" 2>&1; then
				echo "PASS $id/cscheck-$c ($(tail -n1 "$d.cscheck"))"
			else
				echo "FAIL $id/cscheck-$c"
				sed 's/^/    /' "$d.cscheck" | tail -n 40
			fi
		elif [ -f "$d/meta.json" ]; then
			# A 'tracebuf record' capture: the host's tool decodes it.
			if [ ! -x "$tool" ]; then
				echo "FAIL $id/decode-$c ($tool not built)"
			elif "$tool" decode "$d" >"$d.decode" 2>&1; then
				# With several CPUs a "total:" block repeats the sums.
				echo "PASS $id/decode-$c ($(awk '/^cpu [0-9]+:/ { n++ }
					$1 == "bytes:" { b += $2 } $1 == "packets:" { p += $2 }
					$1 == "errors:" { e += $2 }
					END { k = n > 1 ? 2 : 1
					      printf "%d bytes, %d packets, %d errors", b / k, p / k, e / k }' \
					"$d.decode"))"
			else
				echo "FAIL $id/decode-$c"
				sed 's/^/    /' "$d.decode" | head -n 40
			fi
		else
			local args=()
			[ -e "$d/snapshot" ] && args=(--snapshot)
			if "$ptcheck" "${args[@]}" "$d" >"$d.ptcheck" 2>&1; then
				echo "PASS $id/ptcheck-$c ($(tail -n1 "$d.ptcheck" | sed 's/^ptcheck: [^ ]*: //'))"
			else
				echo "FAIL $id/ptcheck-$c"
				sed 's/^/    /' "$d.ptcheck" | head -n 40
			fi
		fi
	done
	rm -f "$out/cap/.announced"
}

# A console flood, what starves a guest before any watchdog fires (an
# unclaimed self-NMI on every timer period, a message in a loop): one kernel
# message more than FLOOD_REPEAT times within FLOOD_WINDOW seconds of kernel
# time (numbers aside: "... reason 21 on CPU 0" and "... reason 31 on CPU
# 1" are one message), more than FLOOD_RATE kernel lines within one second,
# or the kernel saying it dropped console messages (printk's "** N printk
# messages dropped **") or suppressed 100 or more of a ratelimited one
# ("N callbacks suppressed"). A ratelimited message (printk_ratelimited:
# 10 per 5 s) never reaches the bounds; a splat (60-200 lines, no two
# alike) stays under the rate. Prints what flooded, if anything.
FLOOD_REPEAT=50 FLOOD_WINDOW=10 FLOOD_RATE=300
flood_check() { # console
	# One process, no pipe: awk stops at the first flood (pipefail).
	awk -v rep=$FLOOD_REPEAT -v win=$FLOOD_WINDOW -v rate=$FLOOD_RATE '
		{ sub(/\r$/, "") }
		/\*\* [0-9]+ printk messages dropped \*\*/ { print "dropped: " $0; bad = 1; exit }
		/callbacks suppressed/ {
			if (match($0, /[0-9]+ callbacks suppressed/) &&
			    substr($0, RSTART, RLENGTH) + 0 >= 100) { print "suppressed: " $0; bad = 1; exit }
		}
		/^\[ *[0-9]+\.[0-9]+\] / {
			t = substr($0, 2, index($0, "]") - 2) + 0
			if (++per[int(t)] > rate) {
				printf "more than %d kernel lines in second %d of the guest\n", rate, int(t)
				bad = 1; exit
			}
			m = $0
			sub(/^\[ *[0-9]+\.[0-9]+\] /, "", m)
			gsub(/[0-9]+/, "N", m)
			k = ++n[m]
			at[m, k] = t
			if (k > rep) {
				if (t - at[m, k - rep] < win) {
					printf "%d times within %.1f s: %s\n", rep + 1, t - at[m, k - rep], m
					bad = 1; exit
				}
				delete at[m, k - rep]
			}
		}
		END { exit bad ? 0 : 1 }' "$1"
}

if [ "${1:-}" = --check-artifacts ]; then
	check_artifacts "$2" "$3"
	exit 0
fi

expect=
timeout_s=300
id=
acpi=0
while [ $# -gt 0 ]; do
	case "$1" in
	--expect) expect=$2; shift 2 ;;
	--timeout) timeout_s=$2; shift 2 ;;
	--id) id=$2; shift 2 ;;
	--acpi) acpi=1; shift ;;
	*) break ;;
	esac
done
cfg=$1 plan=$2 out=$3
id=${id:-$cfg}
arch=$(tb_cfg_arch "$cfg")
kver=$(tb_cfg_get "$cfg" KVER)
kernel=$(tb_cfg_get "$cfg" KERNEL)
kroot=$(tb_cfg_dir "$cfg")/root
b=$(tb_build_dir "$cfg")
[ -f "$b/KVER" ] || tb_die "$cfg: guest artifacts not built (build-guest.sh $cfg)"

rm -rf "$out"
mkdir -p "$out"
r=$out/initrd-root
mkdir -p "$r"/{bin,sbin,etc,proc,sys,dev,tmp,tests,lib/modules/"$kver"}

# busybox for the guest's architecture
if [ "$arch" = arm64 ]; then
	cp "$kroot/bin/busybox" "$r/bin/busybox"
else
	cp /bin/busybox "$r/bin/busybox"
fi
install -m 755 "$TB_TOP/tests/harness/guest-init.sh" "$r/init"
cp -a "$b/bin/." "$r/tests/"
# Files at their place in the guest's / (gtplt's dynamic loader).
[ -d "$b/root" ] && cp -a "$b/root/." "$r/"
cp -a "$b/ko/." "$r/lib/modules/$kver/"
grep -v '^[[:space:]]*#' "$plan" | grep -v '^[[:space:]]*$' >"$r/tests/plan" || true

mods=$r/lib/modules/$kver
if tb_cfg_built "$cfg"; then
	kobj=$(tb_cfg_get "$cfg" KDIR)
	cp "$kobj/modules.builtin" "$kobj/modules.builtin.modinfo" "$kobj/modules.order" "$mods/" 2>/dev/null || true
else
	cp "$kroot/lib/modules/$kver/modules.builtin" "$kroot/lib/modules/$kver/modules.builtin.modinfo" \
		"$kroot/lib/modules/$kver/modules.order" "$mods/"
fi
if [ "$arch" = arm64 ] && [ -d "$kroot/lib/modules/$kver/kernel" ]; then
	# The result channel is a virtio console: bring its modules along
	# (the debug kernel has them built in).
	# And the kernel's own CoreSight modules (with configfs, which
	# coresight.ko needs): its trace-ID allocator, the drivers a
	# component is handed over from.
	for m in drivers/virtio drivers/char drivers/hwtracing/coresight fs/configfs; do
		for f in $(cd "$kroot/lib/modules/$kver/kernel" && find $m \( -name 'virtio*.ko*' \
				-o -name 'coresight*.ko*' -o -name 'configfs.ko*' \)); do
			mkdir -p "$mods/kernel/$(dirname "$f")"
			case "$f" in
			*.xz) xz -dc "$kroot/lib/modules/$kver/kernel/$f" >"$mods/kernel/${f%.xz}" ;;
			*) cp "$kroot/lib/modules/$kver/kernel/$f" "$mods/kernel/$f" ;;
			esac
		done
	done
fi
depmod -b "$r" "$kver" || tb_die "depmod failed"
cat >"$r/etc/tb-guest.conf" <<CONF
TB_ARCH=$arch
TB_CONFIG=$cfg
TB_VERSION=$(tb_version)
TB_DKMS=$(tb_cfg_dkms "$cfg" && echo 1 || echo 0)
CONF
(cd "$r" && find . | cpio -o -H newc --quiet | gzip -1) >"$out/initrd.gz"
rm -rf "$r"

append="panic=-1 oops=panic softlockup_panic=1 hung_task_panic=1 loglevel=5${TB_GUEST_APPEND:+ $TB_GUEST_APPEND}"
case "$arch" in
x86_64)
	# No CMPXCHG16B: QEMU 7.2's TCG (Debian 12's) translates it as a
	# helper that computes EFLAGS from env->cc_op without the translator
	# storing the pending cc_op first (target/i386/tcg/translate.c
	# gen_cmpxchg16b, mem_helper.c helper_cmpxchg16b_unlocked; rewritten
	# inline upstream by "target/i386: Inline cmpxchg16b"). With a stale
	# CC_OP_EFLAGS the result is the last CC_SRC: an interrupt taken right
	# after the instruction pushes that as RFLAGS and its IRET loads TF,
	# DF, NT and AC from a pointer. Seen on 6.12 (SLUB's per-CPU freelist
	# cmpxchg16b, under tb_producer's self-NMIs): a single-step #DB in the
	# kernel, then a double fault or a wild write, with RFLAGS = RDI|0x202
	# in the report. Without CX16 the kernel takes its locked paths.
	mem=512 cpu=max,cx16=off
	# The KASAN kernel takes early interrupts badly with 5-level paging
	# (a wild-memory-access report during identify_cpu, before any module).
	# The KCSAN kernel is the debug kernel with KCSAN for KASAN: the same.
	case "$cfg" in x86_64-debug | x86_64-kcsan) mem=1024 cpu=max,cx16=off,la57=off ;; esac
	qemu=(qemu-system-x86_64 -accel tcg -cpu $cpu -m $mem -smp 2 -nodefaults
		-display none -no-reboot -kernel "$kernel" -initrd "$out/initrd.gz"
		-append "console=ttyS0 $append"
		-serial "file:$out/console.log" -serial "file:$out/result.log"
		-serial "file:$out/artifacts.log"
		-device isa-debug-exit,iobase=0xf4,iosize=0x04)
	;;
arm64)
	# 1024 MB: tool_gt's captures (over 100 MB each but gt-filter's: a
	# 4 KiB granule of formatter padding per switch of a single-stepped
	# thread) fill /tmp, a tmpfs of half the guest's memory, and 512 MB
	# was too little for them (gt-fork: 'No space left on device');
	# arm64-debug also has KASAN's shadow memory in it.
	mem=1024
	# The machine's own device tree plus the CoreSight of Juno r2 and
	# MSM8916 from the kernel's device trees (the emulator's topology=juno
	# and msm8916 read them from it).
	# --acpi: no device tree of ours; UEFI firmware (EDK2's
	# ArmVirtQemu) hands the kernel QEMU's ACPI tables, and the initrd
	# starts with an uncompressed cpio of the tables the kernel adds to
	# them (tests/harness/acpi.sh: the N1SDP's CoreSight, for
	# topology=n1sdp); acpi=force, as the firmware also passes a device
	# tree.
	if [ $acpi = 1 ]; then
		fw=$("$TB_TOP/tests/harness/acpi.sh" "$out/acpi" 2>"$out/acpi.log") ||
			tb_die "$cfg: the ACPI tables (tests/harness/acpi.sh): see $out/acpi.log"
		cat "$out/acpi/tables.cpio" "$out/initrd.gz" >"$out/initrd.acpi"
		fwargs=(-bios "$fw" -initrd "$out/initrd.acpi")
		append="acpi=force $append"
	else
		"$TB_TOP/tests/harness/csdt.sh" $mem "$out/dt" >"$out/dt.log" 2>&1 ||
			tb_die "$cfg: the guest's device tree (tests/harness/csdt.sh): see $out/dt.log"
		fwargs=(-dtb "$out/dt/guest.dtb" -initrd "$out/initrd.gz")
	fi
	qemu=(qemu-system-aarch64 -M virt -cpu max,pauth-impdef=on -accel tcg -m $mem
		"${fwargs[@]}"
		-smp 2 -nodefaults -display none -no-reboot -kernel "$kernel"
		-semihosting-config enable=on,target=native,userspace=on
		-append "console=ttyAMA0 $append"
		-serial "file:$out/console.log"
		-device virtio-serial-device -chardev "file,id=res,path=$out/result.log"
		-device virtconsole,chardev=res
		-chardev "file,id=art,path=$out/artifacts.log"
		-device virtconsole,chardev=art)
	;;
esac
start=$(date +%s)
# The boot's cost: when the guest init's TB-BOOT appears and, booted by
# UEFI firmware, when the kernel's EFI stub starts (its "EFI stub:" line;
# a directly booted kernel prints nothing at loglevel=5 before init),
# polled every 0.2 s, for a NOTE line.
(
	k= b=
	while [ -z "$b" ] && [ $(($(date +%s) - start)) -lt "$timeout_s" ]; do
		[ -z "$k" ] && grep -q 'EFI stub:' "$out/console.log" 2>/dev/null &&
			k=$(($(date +%s%N) / 1000000))
		grep -q '^TB-BOOT' "$out/result.log" 2>/dev/null && b=$(($(date +%s%N) / 1000000))
		sleep 0.2
	done
	echo "${k:-0} ${b:-0}" >"$out/boot-times"
) &
poller=$!
start_ms=$(($(date +%s%N) / 1000000))
timeout -k 5 "$timeout_s" "${qemu[@]}" </dev/null >"$out/qemu.log" 2>&1
qrc=$?
secs=$(($(date +%s) - start))
kill "$poller" 2>/dev/null
wait "$poller" 2>/dev/null
tr -d '\r' <"$out/result.log" >"$out/result.txt" 2>/dev/null || : >"$out/result.txt"
tr -d '\r' <"$out/console.log" >"$out/console.txt" 2>/dev/null || : >"$out/console.txt"

# What went wrong, by class.
classes=()
con=$out/console.txt
grep -Eq 'Oops|general protection fault|BUG: kernel NULL pointer|BUG: unable to handle' "$con" && classes+=(oops)
grep -Eq 'WARNING:' "$con" && classes+=(warning)
grep -Eq 'BUG: KASAN:' "$con" && classes+=(kasan)
grep -Eq 'UBSAN:' "$con" && classes+=(ubsan)
grep -Eq 'sleeping function called from invalid context|scheduling while atomic' "$con" && classes+=(atomic)
grep -Eq 'circular locking|recursive locking|inconsistent lock state|bad unlock balance|suspicious RCU usage|lock held when returning|Invalid wait context' "$con" && classes+=(lockdep)
# Lockdep's wait-type check (CONFIG_PROVE_RAW_LOCK_NESTING, the debug
# kernels): a spinlock_t where only a raw_spinlock_t may be taken.
grep -q 'BUG: Invalid wait context' "$con" && classes+=(waitctx)
# (KCSAN's reports are judged below.)
grep -v 'BUG: KCSAN:' "$con" |
	grep -Eq 'BUG:|Kernel panic|soft lockup|hard LOCKUP|blocked for more than|detected stall' && classes+=(bug)
# KCSAN (the x86_64-kcsan kernel, make check-kcsan): a data race with an
# access in tracebuf or in a tests-only module (the report's title names
# the two functions, with their module) fails the run; one between two
# accesses in the kernel's own code is not tracebuf's: it is listed in
# OUTDIR/kcsan-kernel.txt and printed as a NOTE line, not counted.
ours='\[(tracebuf|tb_producer|tb_ptemu|tb_csemu|tb_provoke)\]'
grep -E 'BUG: KCSAN:' "$con" | sed 's/^\[ *[0-9.]*\] //' | grep -E "$ours" >"$out/kcsan.txt"
grep -E 'BUG: KCSAN:' "$con" | sed 's/^\[ *[0-9.]*\] //' | grep -Ev "$ours" >"$out/kcsan-kernel.txt"
[ -s "$out/kcsan.txt" ] && classes+=(kcsan)
# An NMI no handler claimed (x86: a test module's self-NMI gone astray).
grep -Eq 'NMI received for unknown reason|Uhhuh\. NMI received|Dazed and confused' "$con" && classes+=(nmi)
flood=$(flood_check "$con") && classes+=(flood)
grep -q '^TB-KMEMLEAK' "$out/result.txt" && classes+=(leak)
grep -q '^TB-LOCKDEP-OFF' "$out/result.txt" && classes+=(lockdep-off)
# QEMU's exit code is (guest status << 1) | 1 when the guest powered off
# itself; the guest's failures are already in the result lines.
# An emulator's rule broken where no test can read its counters (at
# shutdown, for instance).
grep -q 'VIOLATION' "$con" && classes+=(violation)
# A final test (guest-init.sh) ends the guest through the kernel's power-off
# path: QEMU then exits with 0, as it does when the guest panics. It is told
# apart by the kernel's "reboot: Power down" after the test armed itself.
final=$(sed -n 's/^TB-FINAL \([A-Za-z0-9_-]*\).*/\1/p' "$out/result.txt" | tail -n1)
final_ok() { # name: ARMED, then every EXPECT text on a later line, then power-down
	awk -v n="$1" '
		index($0, "TB-ARMED " n " ") { armed = 1; next }
		!armed { next }
		index($0, "TB-EXPECT " n " ") {
			t = substr($0, index($0, "TB-EXPECT " n " ") + length("TB-EXPECT " n " "))
			want[++nw] = t; next
		}
		{ for (i = 1; i <= nw; i++) if (!met[i] && index($0, want[i])) met[i] = 1 }
		/reboot: Power down/ { down = 1 }
		END {
			if (!armed || !down) exit 1
			for (i = 1; i <= nw; i++) if (!met[i]) exit 1
			exit 0
		}' "$con"
}
powered_down=0
[ -n "$final" ] && grep -q 'reboot: Power down' "$con" && powered_down=1
case $qrc in
124 | 137) classes+=(hang) ;;
0) [ $powered_down = 1 ] || classes+=(died) ;;	# panicked, or powered off without reporting
*) [ $((qrc & 1)) = 1 ] || classes+=("exit$qrc") ;;
esac
grep -q '^TB-DONE' "$out/result.txt" || classes+=(incomplete)
echo "${classes[*]:-}" >"$out/classes"

excerpt() {
	local pat='WARNING:|BUG:|Oops|KASAN|UBSAN|Kernel panic|locking|sleeping function|lockup|LOCKUP|stall|NMI received|VIOLATION|wait context'
	echo "----- $id: console excerpt ($out/console.txt) -----"
	[ -z "${flood:-}" ] || echo "console flood: $flood"
	if grep -Eqn "$pat" "$con"; then
		grep -En -m1 "$pat" "$con" |
			cut -d: -f1 | { read -r n; sed -n "$((n > 10 ? n - 10 : 1)),$((n + 40))p" "$con"; }
	else
		tail -n 40 "$con"
	fi
	if [ -s "$out/kcsan.txt" ]; then
		# Every report of a race in our code, whole.
		awk -v ours="$ours" '/BUG: KCSAN:/ { p = ($0 ~ ours) } p { print } /=====/ { p = 0 }' "$con" | head -n 200
	fi
	if grep -q '^TB-KMEMLEAK' "$out/result.txt"; then
		sed -n '/=== kmemleak report/,$p' "$con" | head -n 40
	fi
	echo "----- end of excerpt -----"
}

if [ -n "$expect" ]; then
	case " ${classes[*]:-} " in
	*" $expect "*)
		echo "PASS $id/harness-catches-$expect (${secs}s; saw: ${classes[*]})" ;;
	*)
		echo "FAIL $id/harness-catches-$expect (${secs}s; saw: ${classes[*]:-nothing})"
		excerpt ;;
	esac
	exit 0
fi

# Normal run: one line per planned test, then the run's own verdict.
while read -r name _; do
	line=$(grep "^TB-RESULT $name " "$out/result.txt" | tail -n1)
	if [ -z "$line" ] && [ "$name" = "$final" ]; then
		if final_ok "$name"; then
			echo "PASS $id/$name (final: shut down clean)"
		else
			echo "FAIL $id/$name (final: no clean shutdown on the console)"
			sed -n "/^=== tracebuf test $name (final)\$/,\$p" "$con" | tail -n 30
		fi
		continue
	fi
	verdict=$(echo "$line" | awk '{print $3}')
	case "$verdict" in
	pass) echo "PASS $id/$name ($(echo "$line" | awk '{print $5}')s)" ;;
	skip) echo "SKIP $id/$name" ;;
	fail) echo "FAIL $id/$name (rc $(echo "$line" | awk '{print $4}'))"
		sed -n "/^=== tracebuf test $name\$/,/^=== tracebuf test $name: /p" "$con" | tail -n 30 ;;
	*) echo "FAIL $id/$name (no result: the guest did not get there)" ;;
	esac
done < <(grep -v '^[[:space:]]*#' "$plan" | grep -v '^[[:space:]]*$')

check_artifacts "$id" "$out"

if [ -s "$out/boot-times" ]; then
	read -r kms bms <"$out/boot-times"
	[ "$bms" -gt 0 ] &&
		awk -v id="$id" -v s="$start_ms" -v k="$kms" -v b="$bms" 'BEGIN {
			printf "NOTE %s/boot: the guest'"'"'s init after %.1f s", id, (b - s) / 1000
			if (k > 0) printf " (the EFI stub after %.1f s)", (k - s) / 1000
			printf "\n" }'
fi

sort "$out/kcsan-kernel.txt" | uniq -c | while read -r n title; do
	echo "NOTE $id/kcsan-kernel: $title ($n)"
done

if [ ${#classes[@]} -eq 0 ]; then
	echo "PASS $id/guest-clean (${secs}s)"
else
	echo "FAIL $id/guest-clean (${secs}s; ${classes[*]})"
	excerpt
fi
