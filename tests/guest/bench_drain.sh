#!/bin/sh
# make bench: can 'tracebuf record' keep up with the hardware? The PT
# emulator at its highest rate on CPU 1, recorded to tmpfs for a few
# seconds, beside a plain dd of the same volume to the same place. Prints
# numbers only ("bench: ..." lines); timings under TCG are relative.
modprobe tracebuf || exit 1
modprobe tb_ptemu || exit 1
emu=/sys/kernel/debug/tb_ptemu
stat() { awk -v k="$2" '$1 == k { print $2 }' "$emu/cpu$1/stats"; }
now_ms() { awk '{ printf "%d", $1 * 1000 }' /proc/uptime; }

for rate in 65536 262144 1048576; do
	echo "$rate" >"$emu/rate"
	rm -rf /tmp/bench_rec /tmp/bench_dd
	w0=$(stat 1 bytes_written)
	d0=$(stat 1 bytes_dropped)
	t0=$(now_ms)
	tracebuf record -C 1 --aux-size 4M --data-size 1M --duration 3 -q --allow-loss \
		-o /tmp/bench_rec >/dev/null 2>&1
	t1=$(now_ms)
	w1=$(stat 1 bytes_written)
	d1=$(stat 1 bytes_dropped)
	bytes=$(wc -c </tmp/bench_rec/cpu1.aux)
	mb=$(((bytes + 1048575) / 1048576))
	t2=$(now_ms)
	dd if=/dev/zero of=/tmp/bench_dd bs=1M count=$mb 2>/dev/null
	sync
	t3=$(now_ms)
	rec_ms=$((t1 - t0)); dd_ms=$((t3 - t2)); [ $dd_ms -gt 0 ] || dd_ms=1
	ratio=$(awk -v b="$bytes" -v r="$rec_ms" -v m="$mb" -v d="$dd_ms" \
		'BEGIN { printf "%.3f", (b / r) / (m * 1048576 / d) }')
	echo "bench: drain rate_kb=$rate: recorded $bytes bytes in ${rec_ms} ms" \
		"(emulator wrote $((w1 - w0)), lost $((d1 - d0)) bytes while the ring was full);" \
		"dd of ${mb} MiB to tmpfs: ${dd_ms} ms; record/dd throughput ratio $ratio"
	rm -rf /tmp/bench_rec /tmp/bench_dd
done
rmmod tb_ptemu
