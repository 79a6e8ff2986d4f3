/* SPDX-License-Identifier: GPL-2.0 */
#ifndef TB_UNIT_FAKE_IOCTL_H
#define TB_UNIT_FAKE_IOCTL_H

#include <tracebuf.h>

/* State of the fake ioctls (fake_ioctl.c); tests set and inspect it. */
struct fake_tb {
	unsigned int nr_backends;	/* backends "present" */
	const char *version;		/* module_version to report */
	int err;			/* fail every call with this errno */
	unsigned int calls;		/* GET_INFO calls seen */
	struct tracebuf_info last_in;	/* the struct as the last call got it */

	unsigned int setup_calls;	/* SETUP calls seen */
	struct tracebuf_setup last_setup;	/* as the last SETUP got it */
	unsigned int marker_calls;	/* USER_MARKER calls seen */
	struct tracebuf_user_marker last_marker; /* as the last one got it */
	unsigned char marker_data[TRACEBUF_USER_MARKER_MAX]; /* its data_ptr bytes */
};

extern struct fake_tb fake_tb;

#endif /* TB_UNIT_FAKE_IOCTL_H */
