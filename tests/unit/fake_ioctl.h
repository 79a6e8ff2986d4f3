/* SPDX-License-Identifier: GPL-2.0 */
#ifndef TB_UNIT_FAKE_IOCTL_H
#define TB_UNIT_FAKE_IOCTL_H

#include <tracebuf.h>

/* State of the fake GET_INFO (fake_ioctl.c); tests set and inspect it. */
struct fake_tb {
	unsigned int nr_backends;	/* backends "present" */
	const char *version;		/* module_version to report */
	int err;			/* fail every call with this errno */
	unsigned int calls;		/* GET_INFO calls seen */
	struct tracebuf_info last_in;	/* the struct as the last call got it */
};

extern struct fake_tb fake_tb;

#endif /* TB_UNIT_FAKE_IOCTL_H */
