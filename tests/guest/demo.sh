#!/bin/sh
# The main job, as a user would run it: load the module, ask what it offers.
set -e
echo "# modprobe tracebuf"
modprobe tracebuf
ls -l /dev/tracebuf
echo "# tracebuf info"
tracebuf info
