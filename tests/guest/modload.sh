#!/bin/sh
# modprobe tracebuf creates /dev/tracebuf, a misc character device, mode 0600,
# owned by root, and the loaded module reports the tree's version.
. /etc/tb-guest.conf
fail=0
no() { echo "not ok: $*"; fail=1; }

modprobe tracebuf || no "modprobe tracebuf failed"
[ -c /dev/tracebuf ] || no "/dev/tracebuf is not a character device"
mode=$(stat -c %a /dev/tracebuf)
[ "$mode" = 600 ] || no "/dev/tracebuf has mode $mode, want 600"
owner=$(stat -c %u:%g /dev/tracebuf)
[ "$owner" = 0:0 ] || no "/dev/tracebuf owned by $owner, want 0:0"
major=$(stat -c %t /dev/tracebuf)
[ "$major" = a ] || no "/dev/tracebuf major 0x$major, want 0xa (misc)"
v=$(cat /sys/module/tracebuf/version)
[ "$v" = "$TB_VERSION" ] || no "module version '$v', want '$TB_VERSION'"
grep -q '^tracebuf ' /proc/modules || no "tracebuf not in /proc/modules"
[ $fail = 0 ] && echo "result: ok"
exit $fail
