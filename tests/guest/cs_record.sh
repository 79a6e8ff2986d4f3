#!/bin/sh
# 'tracebuf record' with the CoreSight emulator (arm64): every CPU through
# one shared ETR (one session over the CPU set), a configuration with every
# packet kind, per-CPU sinks, and an ETF sink. Each capture goes to the host
# (/tmp/cap/NAME with a cscheck.args file), which exports it as OpenCSD
# snapshots, decodes every segment with the stock trc_pkt_lister and checks
# the sequence numbers the emulator put in the stream (tests/host/cscheck).
. /etc/tb-guest.conf
fail=0
no() { echo "not ok: $*"; fail=1; }
modprobe tracebuf || no "modprobe tracebuf"
mkdir -p /tmp/cap

emu() { rmmod tb_csemu 2>/dev/null; modprobe tb_csemu "$@" || no "modprobe tb_csemu $*"; }
ids() { # the trace IDs, from 'tracebuf info --json'
	{ tracebuf info --json; echo; } | tr ',{' '\n\n' | sed -n 's/.*"trace_id":\([0-9]*\).*/\1/p' |
		while read -r d; do printf '0x%x\n' "$d"; done | tr '\n' ',' | sed 's/,$//'
}
rec() { # name cscheck-args -- record args
	name=$1 args=$2
	shift 2
	echo "# tracebuf record $* -o /tmp/cap/$name"
	if tracebuf record -b coresight "$@" -o "/tmp/cap/$name"; then
		echo "$args" >"/tmp/cap/$name/cscheck.args"
		tracebuf dump "/tmp/cap/$name" | grep -c ' etm ' | sed 's/^/etm records: /'
	else
		no "record $name exited $?"
	fi
}

# Booted with ACPI (run-guest.sh --acpi: no device tree), the emulated
# SoC is Arm N1SDP's CoreSight from the ACPI namespace: each cluster's
# static funnel, its ETF as a link, the main and master funnels and the
# replicator to the ETR (tests/harness/acpi/n1sdp.asl). The topologies
# below are all device-tree ones or need none of the firmware's, so the
# ACPI boot records through N1SDP only.
if [ ! -e /proc/device-tree ]; then
	emu topology=n1sdp rate=4096
	I=$(ids)
	echo "trace ids: $I"
	[ -n "$I" ] || no "no trace IDs in tracebuf info --json"
	rec cs_n1sdp "--ids $I --min-blocks 50 --no-resync" -a --duration 1
	rmmod tb_csemu || no "rmmod tb_csemu"
	[ $fail = 0 ] && echo "result: ok"
	exit $fail
fi

emu rate=4096
I=$(ids)
echo "trace ids: $I"
[ -n "$I" ] || no "no trace IDs in tracebuf info --json"
rec cs_all "--ids $I --min-blocks 50 --no-resync" -a --duration 1
rec cs_cfg "--ids $I --min-blocks 50 --no-resync" -a --duration 1 \
	-c cycacc=1,timestamp=1,ts_interval=5000,contextid=1,vmid=1,branch_broadcast=1,retstack=1
rec cs_small "--ids $I" -a --duration 1 --aux-size 64K --allow-loss

# Issue 15 item 7, deterministically: with the rate at 0 only etmN/burst
# writes trace, and each burst is more than the whole ring in one drain
# period: every one overruns. The capture must say so (a TRUNCATED span
# behind a LOST record, a segment boundary exactly there), and decode in
# order everywhere else.
burst() { # cpu bytes: retried while a drain cycle has the ETM off
	i=0
	while [ $i -lt 500 ]; do
		echo "$2" 2>/dev/null >"/sys/kernel/debug/tb_csemu/etm$1/burst" && return 0
		i=$((i + 1))
		sleep 0.01
	done
	no "burst etm$1 $2"
}
emu rate=0
I=$(ids)
echo "# tracebuf record -b coresight -a --aux-size 64K --allow-loss -o /tmp/cap/cs_burst (bursts of 96K)"
tracebuf record -b coresight -a -q --aux-size 64K --allow-loss -o /tmp/cap/cs_burst &
pid=$!
sleep 1
for n in 1 2 3 4; do
	burst 0 98304
	sleep 0.1
	burst 1 98304
	sleep 0.1
done
kill -INT $pid
if wait $pid; then
	echo "--ids $I --expect-gap" >/tmp/cap/cs_burst/cscheck.args
	tracebuf dump /tmp/cap/cs_burst | grep -c 'TRUNCATED' | sed 's/^/truncated spans: /'
else
	no "record cs_burst exited $?"
fi

# The emulated Juno r2: each CPU's ETM through its cluster funnel, the
# main funnel, ETF0 as a link, the cssys2 funnel and the replicator to
# the ETR.
emu topology=juno rate=4096
rec cs_juno "--ids $(ids) --min-blocks 50 --no-resync" -a --duration 1
# Qualcomm MSM8916: the APSS funnel, funnel0, the ETF as a link, the
# replicator's port 0, a flat ETR.
emu topology=msm8916 rate=4096
rec cs_msm8916 "--ids $(ids) --min-blocks 50" -a --duration 1 --aux-size 512K --allow-loss

# The ETR behind an IOMMU and not cache-coherent (tb_csemu dma=): the
# capture decodes only if every byte was synced before it was published.
emu dma=noncoherent rate=4096
rec cs_noncoh "--ids $(ids) --min-blocks 50 --no-resync" -a --duration 1

emu topology=percpu rate=4096
rec cs_percpu "--ids $(ids) --min-blocks 50 --no-resync" -a --duration 1

emu soc400=1 rate=4096
rec cs_soc400 "--ids $(ids) --min-blocks 50 --no-resync" -a --duration 1

emu sink=etf rate=2048
I=$(ids)
rec cs_etf "--ids $I" -a --duration 1 --allow-loss
# The ETF's last stop elsewhere than in DISABLE: CPU 1, the only CPU
# traced, goes offline (the stop in its hotplug callback halts the SRAM
# and leaves the copy-out to a drain cycle it kicks) and comes back at
# once (the copy maybe still pending: the start waits for that cycle)
# or 0.3 s later, twice each.
online() { echo "$2" >"/sys/devices/system/cpu/cpu$1/online" || no "cpu$1 online=$2"; }
echo "# tracebuf record -b coresight -C 1 --allow-loss -o /tmp/cap/cs_etf_hp (cpu1 offline, online)"
tracebuf record -b coresight -C 1 -q --allow-loss -o /tmp/cap/cs_etf_hp &
pid=$!
sleep 0.5
for w in 0 0.3 0 0.3; do
	online 1 0
	sleep $w
	online 1 1
	sleep 0.3
done
kill -INT $pid
if wait $pid; then
	echo "--min-blocks 20" >/tmp/cap/cs_etf_hp/cscheck.args
else
	no "record cs_etf_hp exited $?"
fi
# Snapshot mode, a 16 KiB ring (the SRAM holds 64 KiB): each SIGUSR2 is
# a DISABLE (its last stop halts the SRAM, the cycle it runs reads it
# out), the newest ring saved, and ENABLE; SIGINT the last one.
echo "# tracebuf record -b coresight -a --snapshot --aux-size 16K -o /tmp/cap/cs_etf_snap (3 x SIGUSR2)"
tracebuf record -b coresight -a -q --snapshot --aux-size 16K -o /tmp/cap/cs_etf_snap &
pid=$!
sleep 0.5
for n in 1 2 3; do
	kill -USR2 $pid
	sleep 0.3
done
kill -INT $pid
if wait $pid; then
	echo "--ids $I" >/tmp/cap/cs_etf_snap/cscheck.args
	tracebuf dump /tmp/cap/cs_etf_snap | grep -c 'OVERWRITE' | sed 's/^/overwrite spans: /'
else
	no "record cs_etf_snap exited $?"
fi
# The ETF is read out through RRD only in the drain cycle, 1 KiB at a
# time with interrupts on in between, DISABLE's and the hotplug stop's
# included (the emulator's oracle: the most bytes read with interrupts
# off in one stretch, over the three captures above).
m=$(sed -n 's/^rrd_irqoff_max //p' /sys/kernel/debug/tb_csemu/sink0/stats)
echo "cs_etf, cs_etf_hp, cs_etf_snap: rrd_irqoff_max $m"
[ -n "$m" ] && [ "$m" -gt 0 ] && [ "$m" -le 1024 ] ||
	no "cs_etf*: $m bytes read through RRD in one stretch of interrupts off (at most 1024)"
v=$(cat /sys/kernel/debug/tb_csemu/violations)
[ "$v" = 0 ] || no "cs_etf*: $v emulator violations"

rmmod tb_csemu || no "rmmod tb_csemu"
[ $fail = 0 ] && echo "result: ok"
exit $fail
