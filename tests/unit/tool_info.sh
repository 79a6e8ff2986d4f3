#!/bin/sh
# SPDX-License-Identifier: GPL-2.0
# 'tracebuf info' output, text and JSON, against the fake GET_INFO
# (fake_ioctl.so preloaded; TRACEBUF_DEVICE=/dev/null).
#   tool_info.sh TRACEBUF FAKE_IOCTL_SO VERSION TMPDIR
set -u
tool=$1 fake=$2 version=$3 t=$4
fail=0
no() { echo "not ok: $*"; fail=1; }

run() { # BACKENDS MODULE_VERSION ARGS...
	n=$1 v=$2
	shift 2
	TRACEBUF_DEVICE=/dev/null LD_PRELOAD=$fake FAKE_TB_BACKENDS=$n FAKE_TB_VERSION=$v \
		"$tool" "$@" >"$t/out" 2>"$t/err" || no "tracebuf $* exited $? ($(cat "$t/err"))"
	cat "$t/out"
}

has() { grep -qxF -- "$1" "$t/out" || no "no line '$1'"; }

run 0 1.2.3 info
has "module version: 1.2.3"
has "abi version: 1"
has "page size: 4096"
has "nr_cpu_ids: 8"
has "tool version: $version"
has "backends: none (no Intel PT or CoreSight hardware found, and no emulator loaded)"

run 2 1.2.3 info
has "backends: 2"
has "  intel_pt: id 1, flags 0x0, nr_cpus 4, caps_size 64"
has "  coresight: id 2, flags 0x1 (emulated), nr_cpus 4, caps_size 65"
# intel_pt: its capabilities, decoded (fake GET_CAPS).
has "    cpus 0-7: family 6, model 0x55, stepping 4, max non-turbo ratio 21"
has "    features: cr3_filtering psb_cyc ip_filtering mtc topa_output topa_multiple_entries single_range_output"
has "    address ranges: 2"
has "    mtc periods: 0,3,6,9"
has "    cyc thresholds: 0,1,2,3,4,5,6,7,8,9,10,11,12,13"
has "    psb periods: 0,1,2,3,4,5"
[ "$(grep -c '^    cpus ' "$t/out")" = 1 ] || no "capabilities not exactly once"
# coresight: GET_CAPS fails (no such backend in the fake).
has "    capabilities: unavailable (no trace backend: no Intel PT or CoreSight hardware found, and no emulator loaded (or the session has backend \"none\", or its CPU is offline))"

# coresight with capabilities (FAKE_TB_CS_CAPS): every CPU it answers for.
export FAKE_TB_CS_CAPS=1
run 2 1.2.3 info
has "    cpu 0: trace ID 0x10, ETMv4.2, sink 0 (ETR, scatter-gather, 2 CPUs)"
has "      features: cycle_counting timestamps contextid vmid branch_broadcast return_stack stall_control"
has "      timestamp bits 64, context ID bits 32, VMID bits 8, cycle counter bits 12, address comparator pairs 4"
has "    cpu 1: trace ID 0x11, ETMv4.2, sink 0 (ETR, scatter-gather, 2 CPUs)"
has "    cpu 2: trace ID 0x12, ETMv4.5, sink 1 (ETF, 65536 bytes, 1 CPU)"
has "      features: timestamps contextid vmid branch_broadcast return_stack stall_control"
has "      timestamp bits 64, context ID bits 32, VMID bits 16, cycle counter bits 0, address comparator pairs 8"
[ "$(grep -c '^    cpu [0-9]*: trace ID' "$t/out")" = 3 ] || no "not 3 CoreSight CPUs"
run 2 1.2.3 info --json >/dev/null
if command -v python3 >/dev/null; then
	python3 - "$t/out" <<'PY' || no "coresight JSON"
import json, sys
d = json.load(open(sys.argv[1]))
cs = d["backends"][1]["cs_caps"]
assert [c["cpu"] for c in cs] == [0, 1, 2], cs
c = cs[0]
assert (c["trace_id"], c["arch"], c["sink"], c["sink_type"], c["sink_flags"], c["sink_cpus"],
        c["sink_size"]) == (0x10, "ETMv4.2", 0, "ETR", 3, 2, 0), c
assert c["features"] == ["cycle_counting", "timestamps", "contextid", "vmid",
                         "branch_broadcast", "return_stack", "stall_control"], c
assert (c["timestamp_bits"], c["contextid_bits"], c["vmid_bits"], c["cycle_counter_bits"],
        c["addr_comparator_pairs"]) == (64, 32, 8, 12, 4), c
assert c["trcidr"][:3] == [0x28000ea1, 0x4100f421, 0x488] and len(c["trcidr"]) == 14, c
assert (c["trcdevarch"], c["trcauthstatus"]) == (0x47724a13, 0xcc), c
assert cs[2]["sink_type"] == "ETF" and cs[2]["sink_size"] == 65536, cs[2]
assert "cycle_counting" not in cs[2]["features"], cs[2]
PY
fi
unset FAKE_TB_CS_CAPS

# More backends than the tool's first guess: it asks again for all of them.
run 11 1.2.3 info
[ "$(grep -c '^  [a-z_]*: id' "$t/out")" = 11 ] || no "not 11 backends listed"

run 0 1.2.3 info --json
has "{\"module_version\":\"1.2.3\",\"abi_version\":1,\"page_size\":4096,\"nr_cpu_ids\":8,\"tool_version\":\"$version\",\"backends\":[]}"

run 2 'q"b\s' info --json
has '{"module_version":"q\"b\\s","abi_version":1,"page_size":4096,"nr_cpu_ids":8,"tool_version":"'"$version"'","backends":[{"name":"intel_pt","id":1,"flags":0,"emulated":false,"nr_cpus":4,"caps_size":64,"pt_caps":{"cpu":0,"cpus":"0-7","cpus_differ":0,"family":6,"model":85,"stepping":4,"max_nonturbo_ratio":21,"nr_addr_ranges":2,"flags":463,"features":["cr3_filtering","psb_cyc","ip_filtering","mtc","topa_output","topa_multiple_entries","single_range_output"],"mtc_periods":[0,3,6,9],"cyc_thresholds":[0,1,2,3,4,5,6,7,8,9,10,11,12,13],"psb_periods":[0,1,2,3,4,5],"cpuid_14_0":[1,15,7,0],"cpuid_14_1":[8779,4145151,0,0],"cpuid_15":[2,168,0,0]}},{"name":"coresight","id":2,"flags":1,"emulated":true,"nr_cpus":4,"caps_size":65,"cs_caps":null}]}'
if command -v python3 >/dev/null; then
	for n in 0 3; do
		run $n "$(printf 'a\tb"\\\001')" info --json >/dev/null
		python3 -c 'import json,sys; d=json.load(open(sys.argv[1])); assert d["module_version"]=="a\tb\"\\\x01", d; assert len(d["backends"])==int(sys.argv[2])' \
			"$t/out" $n || no "invalid JSON or wrong values ($n backends)"
	done
fi
exit $fail
