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

# What did a program do? An ordinary user records one program; the host
# prints its call trace. The emulator has no CPU to watch, so in follow
# mode it traces what the program really executes: the test helper
# ptfollow runs the command and single-steps the program once it starts,
# telling the emulator each instruction (on real hardware: not needed).
echo
echo "# chgrp 900 /dev/tracebuf; chmod 0660 /dev/tracebuf   (group tracebuf: the udev rule's job on a real machine)"
chgrp 900 /dev/tracebuf
chmod 0660 /dev/tracebuf
chmod 1777 /tmp/cap
echo 1 >/sys/kernel/debug/tb_ptemu/follow_mode
echo "# (as user nobody, in group tracebuf) tracebuf record -o /tmp/cap/demo-prog -- /tests/demo-prog"
ptfollow --exec /tests/demo-prog --uid 65534 --gid 900 /tmp/demo-prog.gt \
	tracebuf record -o /tmp/cap/demo-prog -- /tests/demo-prog
echo 0 >/sys/kernel/debug/tb_ptemu/follow_mode
# The helper's ground truth goes with the capture: the host checks the
# decoded instructions against it (gtcheck-demo-prog).
cp /tmp/demo-prog.gt /tmp/cap/demo-prog/gt.txt
