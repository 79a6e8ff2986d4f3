#!/bin/sh
# The module modprobe loads is the DKMS-built one, installed where DKMS puts
# it (/lib/modules/<version>/updates/dkms) and found through depmod's index.
. /etc/tb-guest.conf
[ "$TB_DKMS" = 1 ] || { echo "not a DKMS configuration"; exit 77; }
fail=0
no() { echo "not ok: $*"; fail=1; }
k=$(uname -r)
ko=/lib/modules/$k/updates/dkms/tracebuf.ko
[ -f "$ko" ] || no "$ko missing"
grep -q '^updates/dkms/tracebuf.ko:' /lib/modules/"$k"/modules.dep || no "depmod did not index $ko"
modprobe tracebuf || no "modprobe tracebuf failed"
want=$(modinfo -F srcversion "$ko" 2>/dev/null)
[ -n "$want" ] || want=$(strings "$ko" | sed -n 's/^srcversion=//p')
got=$(cat /sys/module/tracebuf/srcversion)
[ -n "$got" ] && [ "$got" = "$want" ] || no "loaded srcversion '$got', DKMS module has '$want'"
[ $fail = 0 ] && echo "result: ok"
exit $fail
