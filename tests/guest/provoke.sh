#!/bin/sh
# Harness self-test: load tb_provoke with one deliberate bug. The host
# expects the harness to catch it; this script itself "passes" trivially.
insmod /lib/modules/"$(uname -r)"/extra/tb_provoke.ko bug="$1"
echo "tb_provoke bug=$1 loaded: rc $?"
exit 0
