#!/bin/sh
# make bench: can 'tracebuf record' keep up with the hardware? The PT
# emulator at rising rates on CPU 1, recorded to /tmp (a tmpfs) for a
# second, beside the plain write bandwidth of the same tmpfs measured with
# dd in the same boot (its exit status and the file it wrote are checked:
# the recording is deleted first, so both fit in the guest's memory).
# Checked exactly, each run: what the emulator wrote into the AUX area
# (its bytes_written) = what the capture holds (cpu1.aux, the tool's
# aux_bytes) + what was published but never got a record (aux_gap_bytes)
# - the PAD bytes the kernel wrote itself (aux_padding). Bytes the
# emulator generated while the area was full (bytes_dropped) were never
# written: they are the loss, reported beside it, and not part of that
# identity. Prints numbers ("bench: ..."); a broken identity or a failed
# dd fails the run. Timings under TCG are relative.
modprobe tracebuf || exit 1
modprobe tb_ptemu || exit 1
emu=/sys/kernel/debug/tb_ptemu
stat() { awk -v k="$2" '$1 == k { print $2 }' "$emu/cpu$1/stats"; }
now_ms() { awk '{ printf "%d", $1 * 1000 }' /proc/uptime; }
# A number from the first CPU object of meta.json.
meta() { tr ',{}' '\n\n\n' <"$1" | awk -F: -v k="\"$2\"" '$1 ~ k { gsub(/[ "]/, "", $2); print $2; exit }'; }
fail=0

for rate in 65536 262144 1048576; do
	echo "$rate" >"$emu/rate"
	rm -rf /tmp/bench_rec /tmp/bench_dd
	w0=$(stat 1 bytes_written)
	d0=$(stat 1 bytes_dropped)
	t0=$(now_ms)
	tracebuf record -C 1 --aux-size 4M --data-size 1M --duration 1 -q --allow-loss \
		-o /tmp/bench_rec >/tmp/bench_rec.out 2>&1
	rc=$?
	t1=$(now_ms)
	w1=$(stat 1 bytes_written)
	d1=$(stat 1 bytes_dropped)
	m=/tmp/bench_rec/meta.json
	if [ $rc != 0 ] || [ ! -f $m ]; then
		echo "bench: drain rate_kb=$rate: FAIL: tracebuf record exit $rc"
		cat /tmp/bench_rec.out
		fail=1
		continue
	fi
	bytes=$(wc -c </tmp/bench_rec/cpu1.aux)
	aux=$(meta $m aux_bytes); gap=$(meta $m aux_gap_bytes); pad=$(meta $m aux_padding)
	alost=$(meta $m aux_lost_bytes); trunc=$(meta $m aux_truncations)
	written=$((w1 - w0)); dropped=$((d1 - d0))
	echo "bench: drain rate_kb=$rate: emulator wrote $written bytes, dropped $dropped" \
		"while the area was full; capture $bytes bytes (aux_bytes $aux, gap $gap," \
		"padding $pad, aux_lost $alost, truncations $trunc)"
	if [ "$bytes" != "$aux" ] || [ $((aux + gap - pad)) != "$written" ]; then
		echo "bench: drain rate_kb=$rate: FAIL: written $written != captured $aux + gap $gap" \
			"- padding $pad (file $bytes)"
		fail=1
	fi
	rm -rf /tmp/bench_rec /tmp/bench_rec.out
	mb=$(((bytes + 1048575) / 1048576))
	[ $mb -gt 0 ] || mb=1
	t2=$(now_ms)
	dd if=/dev/zero of=/tmp/bench_dd bs=1M count=$mb conv=fsync 2>/tmp/bench_dd.err
	rc=$?
	t3=$(now_ms)
	got=$(wc -c </tmp/bench_dd)
	if [ $rc != 0 ] || [ "$got" != $((mb * 1048576)) ]; then
		echo "bench: drain rate_kb=$rate: FAIL: dd of $mb MiB to /tmp: exit $rc, wrote $got bytes"
		cat /tmp/bench_dd.err
		fail=1
	fi
	rm -f /tmp/bench_dd /tmp/bench_dd.err
	rec_ms=$((t1 - t0)); dd_ms=$((t3 - t2)); [ $dd_ms -gt 0 ] || dd_ms=1
	awk -v b="$bytes" -v r="$rec_ms" -v m="$mb" -v d="$dd_ms" -v k="$rate" -v w="$written" \
		-v x="$dropped" 'BEGIN {
		rb = b / (r / 1000); db = m * 1048576 / (d / 1000)
		printf "bench: drain rate_kb=%d: record %.1f MB/s (%d ms, 1 s traced), dd %.1f MB/s (%d MiB in %d ms): record/dd %.3f; kept %.1f%% of what the emulator generated\n",
			k, rb / 1e6, r, db / 1e6, m, d, rb / db, 100 * w / (w + x) }'
done
rmmod tb_ptemu
exit $fail
