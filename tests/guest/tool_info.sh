#!/bin/sh
# 'tracebuf info' (the tool, through the library) reports what the module says.
. /etc/tb-guest.conf
fail=0
no() { echo "not ok: $*"; fail=1; }
modprobe tracebuf || no "modprobe failed"
out=$(tracebuf info) || no "tracebuf info exited $?"
echo "$out"
echo "$out" | grep -q "^module version: $TB_VERSION\$" || no "no 'module version: $TB_VERSION' line"
echo "$out" | grep -q "^abi version: 1\$" || no "no 'abi version: 1' line"
json=$(tracebuf info --json) || no "tracebuf info --json exited $?"
echo "$json"
echo "$json" | grep -q "\"module_version\":\"$TB_VERSION\"" || no "json lacks module_version"
echo "$json" | grep -q '"backends":\[\]' || no "json backends not empty"
[ $fail = 0 ] && echo "result: ok"
exit $fail
