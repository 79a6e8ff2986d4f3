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

emu rate=4096
I=$(ids)
echo "trace ids: $I"
[ -n "$I" ] || no "no trace IDs in tracebuf info --json"
rec cs_all "--ids $I --min-blocks 50 --no-resync" -a --duration 1
rec cs_cfg "--ids $I --min-blocks 50 --no-resync" -a --duration 1 \
	-c cycacc=1,timestamp=1,ts_interval=5000,contextid=1,vmid=1,branch_broadcast=1,retstack=1
rec cs_small "--ids $I" -a --duration 1 --aux-size 64K --allow-loss

emu topology=percpu rate=4096
rec cs_percpu "--ids $(ids) --min-blocks 50 --no-resync" -a --duration 1

emu soc400=1 rate=4096
rec cs_soc400 "--ids $(ids) --min-blocks 50 --no-resync" -a --duration 1

emu sink=etf rate=2048
rec cs_etf "--ids $(ids)" -a --duration 1 --allow-loss

rmmod tb_csemu || no "rmmod tb_csemu"
[ $fail = 0 ] && echo "result: ok"
exit $fail
