/* SPDX-License-Identifier: (LGPL-2.1 OR MIT) */
/*
 * Error text, library version, backend and record type names. Everything
 * returned here
 * is a string constant: callable from any thread, never freed.
 */
#include <errno.h>
#include <limits.h>
#include <string.h>

#include "lib.h"

const char *tracebuf_version(void)
{
	return TRACEBUF_VERSION;
}

/* What the usual failures mean for a tracebuf user, and what to do. */
static const char *tb_hint(int err)
{
	switch (err) {
	case ENOENT:
		return TRACEBUF_DEVICE " not found: is the module loaded? (modprobe tracebuf)";
	case EACCES:
		return "permission denied: " TRACEBUF_DEVICE " is root-only unless the "
		       "opt-in udev rule (60-tracebuf.rules) is installed and you are "
		       "in group 'tracebuf'; CPU-wide tracing (ENABLE) needs CAP_PERFMON "
		       "or CAP_SYS_ADMIN of the process that opened the device unless "
		       "/sys/module/tracebuf/parameters/paranoid is 0 or less, and "
		       "kernel tracing or a CR3 filter always needs it";
	case EPERM:
		return "not permitted: the pinned-memory limit was hit: each user may pin "
		       "/sys/module/tracebuf/parameters/mlock_kb KiB per online CPU, and "
		       "each process up to RLIMIT_MEMLOCK (ulimit -l) more; raise either, "
		       "or run with CAP_IPC_LOCK (or, from tracebuf_map_aux(): the data "
		       "ring is mapped read-only)";
	case ENOTTY:
		return "not a tracebuf device or module too old";
	case ENODEV:
		return "no trace backend: no Intel PT or CoreSight hardware found, "
		       "and no emulator loaded (or the session has backend \"none\", "
		       "or its CPU is offline)";
	case EBUSY:
		return "session already mapped or read: SETUP is final, and mmap "
		       "and read() are exclusive; or another owner (perf's intel_pt?) "
		       "holds the trace hardware";
	case ENXIO:
		return "not ready: SETUP first, mmap the session or set data_size in "
		       "SETUP, map the AUX area before ENABLE, and ENABLE before SNAPSHOT";
	case EALREADY:
		return "the session is already tracing (ENABLE twice)";
	case ERANGE:
		return "configuration value out of range or not supported: see "
		       "'tracebuf config --list'";
	case EOPNOTSUPP:
		return "not supported by this CPU's trace hardware";
	case ENOSPC:
		return "data ring full: the marker was counted as lost";
	case EPROTO:
		return "the control page does not match the mapping: module and "
		       "library disagree";
	case EBADMSG:
		return "corrupt record in the data ring: consumer stopped";
	case EPIPE:
		return "the session can produce nothing more";
	default:
		return NULL;
	}
}

/*
 * strerror() may format unknown values into a shared buffer;
 * strerrordesc_np() (glibc 2.32) only returns constants.
 */
static const char *tb_libc_text(int err)
{
#if defined(__GLIBC__) && (__GLIBC__ > 2 || (__GLIBC__ == 2 && __GLIBC_MINOR__ >= 32))
	const char *text = strerrordesc_np(err);

	return text ? text : "unknown error";
#else
	return strerror(err);
#endif
}

const char *tracebuf_strerror(int err)
{
	const char *hint;

	if (err == INT_MIN)
		return "unknown error";
	if (err < 0)
		err = -err;
	hint = tb_hint(err);
	return hint ? hint : tb_libc_text(err);
}

const char *tracebuf_backend_name(unsigned int id)
{
	switch (id) {
	case TRACEBUF_BACKEND_NONE:
		return "none";
	case TRACEBUF_BACKEND_INTEL_PT:
		return "intel_pt";
	case TRACEBUF_BACKEND_CORESIGHT:
		return "coresight";
	default:
		return "unknown";
	}
}

const char *tracebuf_rec_type_name(unsigned int type)
{
	switch (type) {
	case TRACEBUF_REC_LOST:
		return "lost";
	case TRACEBUF_REC_AUX:
		return "aux";
	case TRACEBUF_REC_ITRACE_START:
		return "itrace_start";
	case TRACEBUF_REC_CONFIG:
		return "config";
	case TRACEBUF_REC_USER:
		return "user";
	case TRACEBUF_REC_ETM:
		return "etm";
	case TRACEBUF_REC_SWITCH:
		return "switch";
	case TRACEBUF_REC_TASK:
		return "task";
	case TRACEBUF_REC_TEST:
		return "test";
	default:
		return "unknown";
	}
}

/*
 * The perf_event record types (enum perf_event_type, <linux/perf_event.h>)
 * by their number, so that this file needs no kernel header: the values
 * are ABI and never change.
 */
const char *tracebuf_sb_type_name(unsigned int type)
{
	static const char *const names[] = {
		[1] = "mmap", [2] = "lost", [3] = "comm", [4] = "exit",
		[5] = "throttle", [6] = "unthrottle", [7] = "fork", [8] = "read",
		[9] = "sample", [10] = "mmap2", [11] = "aux", [12] = "itrace_start",
		[13] = "lost_samples", [14] = "switch", [15] = "switch_cpu_wide",
		[16] = "namespaces", [17] = "ksymbol", [18] = "bpf_event",
		[19] = "cgroup", [20] = "text_poke", [21] = "aux_output_hw_id",
	};

	if (type < sizeof(names) / sizeof(names[0]) && names[type])
		return names[type];
	return "unknown";
}
