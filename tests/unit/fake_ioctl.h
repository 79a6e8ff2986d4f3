/* SPDX-License-Identifier: GPL-2.0 */
#ifndef TB_UNIT_FAKE_IOCTL_H
#define TB_UNIT_FAKE_IOCTL_H

#include <stdint.h>

#include <tracebuf.h>

/* State of the fake ioctls (fake_ioctl.c); tests set and inspect it. */
struct fake_tb {
	unsigned int nr_backends;	/* backends "present" */
	const char *version;		/* module_version to report */
	int err;			/* fail every call with this errno */
	unsigned int calls;		/* GET_INFO calls seen */
	struct tracebuf_info last_in;	/* the struct as the last call got it */

	unsigned int setup_calls;	/* SETUP calls seen */
	int task_pid;			/* the last TARGET_TASK SETUP's pid */
	struct tracebuf_setup last_setup;	/* as the last SETUP got it */
	unsigned int marker_calls;	/* USER_MARKER calls seen */
	struct tracebuf_user_marker last_marker; /* as the last one got it */
	unsigned char marker_data[TRACEBUF_USER_MARKER_MAX]; /* its data_ptr bytes */

	/* ENABLE, DISABLE, SNAPSHOT: calls seen, and their errno (0: succeed). */
	unsigned int enable_calls, disable_calls, snapshot_calls;
	int trace_err;
	int enable_err;			/* ENABLE only (FAKE_TB_ENABLE_ERR) */
	int setup_err;			/* SETUP (FAKE_TB_SETUP_ERR) */

	unsigned int caps_calls;		/* GET_CAPS */
	struct tracebuf_caps_query last_caps;
	unsigned int list_calls;		/* LIST_DRV_CONFIG */
	struct tracebuf_cfg_keys last_list;

	/*
	 * SET/GET_DRV_CONFIG. The fake keeps one configuration for every
	 * session, checks strings against its intel_pt-like key table (see
	 * fake_ioctl.c) and refuses non-zero privileged keys when
	 * unprivileged is set (FAKE_TB_UNPRIV).
	 */
	unsigned int set_calls, get_calls;
	struct tracebuf_drv_config last_set, last_get;
	char last_set_text[TRACEBUF_DRV_CONFIG_MAX];
	int unprivileged;
	int cs_caps;			/* FAKE_TB_CS_CAPS: "coresight" answers GET_CAPS */
	uint64_t generation;
};

extern struct fake_tb fake_tb;

/* The fake intel_pt key table, as LIST_DRV_CONFIG reports it. */
#define FAKE_TB_NR_KEYS	14
extern const struct tracebuf_cfg_key_desc fake_tb_keys[FAKE_TB_NR_KEYS];

/* Reset the fake configuration to the defaults, generation 0. */
void fake_tb_cfg_reset(void);

#endif /* TB_UNIT_FAKE_IOCTL_H */
