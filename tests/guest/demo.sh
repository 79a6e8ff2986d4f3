#!/bin/sh
# The main job, as a user would run it: load the module and (no Intel PT in
# QEMU) the register-level PT emulator, look at what they offer, record a
# trace of all CPUs while a small workload runs, and look at the records.
# The host decodes the capture afterwards (tests/harness/demo.sh).
set -e
echo "# modprobe tracebuf"
modprobe tracebuf
ls -l /dev/tracebuf
echo "# modprobe tb_ptemu      (the Intel PT emulator; on real hardware: not needed)"
modprobe tb_ptemu rate_kb=4096
echo "# tracebuf info"
tracebuf info
echo "# tracebuf config --list"
tracebuf config --list
mkdir -p /tmp/cap
echo "# tracebuf record -a -c cyc=1,mtc=1 -o /tmp/cap/demo -- sh -c '<a small loop>'"
tracebuf record -a -c cyc=1,mtc=1 -o /tmp/cap/demo -- \
	sh -c 'i=0; while [ $i -lt 20000 ]; do i=$((i + 1)); done'
echo "# tracebuf dump /tmp/cap/demo | head"
tracebuf dump /tmp/cap/demo | head -n 12
