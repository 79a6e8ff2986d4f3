# SPDX-License-Identifier: GPL-2.0
# Common settings for the tracebuf build/test harness. Sourced, not run.
#
# Everything the harness downloads or builds (kernels, headers, the debug
# kernel, checkpatch) lives in one private cache outside the tree and outside
# the host's root filesystem: nothing here is installed into /lib/modules or
# /usr/src of the host.

TB_TOP=$(cd "$(dirname "${BASH_SOURCE[0]}")/../.." && pwd)
if [ -z "${TRACEBUF_CACHE:-}" ]; then
	if [ "$(id -u)" = 0 ]; then
		TRACEBUF_CACHE=/var/cache/tracebuf
	else
		TRACEBUF_CACHE=${XDG_CACHE_HOME:-$HOME/.cache}/tracebuf
	fi
fi
export TRACEBUF_CACHE
TB_KCACHE=$TRACEBUF_CACHE/kernels
TB_DEBS=$TRACEBUF_CACHE/debs

# The guest configurations: name -> arch and kernel series.
TB_CONFIGS="x86_64-6.1 x86_64-6.12 arm64-6.1 arm64-6.12 x86_64-debug arm64-debug"

tb_log() { printf '[tracebuf] %s\n' "$*" >&2; }
tb_die() { printf '[tracebuf] error: %s\n' "$*" >&2; exit 1; }

tb_cfg_arch() {
	case "$1" in
	x86_64-*) echo x86_64 ;;
	arm64-*) echo arm64 ;;
	*) tb_die "unknown configuration $1" ;;
	esac
}

# A configuration whose kernel the harness builds from linux-source-6.1
# (debug-kernel.sh): the debug kernels, and the opt-in KCSAN kernel
# (x86_64-kcsan, make check-kcsan; not in TB_CONFIGS).
tb_cfg_built() {
	case "$1" in
	*-debug | *-kcsan) return 0 ;;
	*) return 1 ;;
	esac
}

# Directory holding one prepared kernel configuration: KVER, KDIR, KERNEL
# (the image QEMU boots) and root/ (the extracted packages).
tb_cfg_dir() { echo "$TB_KCACHE/$1"; }

tb_cfg_get() { # config key
	local f
	f="$(tb_cfg_dir "$1")/$2"
	[ -f "$f" ] || tb_die "configuration $1 is not prepared ($f missing); run tests/harness/kernels.sh $1"
	cat "$f"
}

tb_cross_env() { # arch -> make variables for a kernel build
	case "$1" in
	arm64) echo "ARCH=arm64 CROSS_COMPILE=aarch64-linux-gnu-" ;;
	*) echo "" ;;
	esac
}

tb_cc() { # arch -> userspace C compiler for static guest programs
	case "$1" in
	arm64) echo aarch64-linux-gnu-gcc ;;
	*) echo gcc ;;
	esac
}

# Stock x86_64 configurations take their tracebuf.ko from a DKMS build, so
# the guest proves the DKMS-built module installs, depmods and modprobes.
tb_cfg_dkms() {
	case "$1" in
	x86_64-6.1 | x86_64-6.12) return 0 ;;
	*) return 1 ;;
	esac
}

tb_version() { sed -n 's/^PACKAGE_VERSION="\(.*\)"/\1/p' "$TB_TOP/dkms.conf"; }

# Where the harness builds things for one configuration (inside the tree,
# ignored by git).
tb_build_dir() { echo "$TB_TOP/build/guest/$1"; }
