/* SPDX-License-Identifier: GPL-2.0 */
/*
 * tracebuf_get_info(), tracebuf_setup() and tracebuf_user_marker() build
 * the requests the module expects (and tracebuf_get_info() passes its
 * answer through), checked against the fake ioctls in fake_ioctl.c.
 */
#include <errno.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include <libtracebuf.h>

#include "check.h"
#include "fake_ioctl.h"

static int all_bytes(const void *p, int c, size_t n)
{
	const unsigned char *b = p;

	while (n--)
		if (*b++ != (unsigned char)c)
			return 0;
	return 1;
}

static void check_request(struct tracebuf_session *s)
{
	struct tracebuf_backend_desc b[4];
	struct tracebuf_info info;
	const struct tracebuf_info *in = &fake_tb.last_in;

	/* Garbage in *info must not reach the module: it is zeroed first. */
	memset(&info, 0xff, sizeof(info));
	memset(b, 0xaa, sizeof(b));
	fake_tb.nr_backends = 3;
	CHECK_EQ(tracebuf_get_info(s, &info, b, 2), 0);
	CHECK_EQ(fake_tb.calls, 1);
	CHECK_EQ(in->size, sizeof(struct tracebuf_info));
	CHECK_EQ(in->backends_max, 2);
	CHECK_EQ(in->backend_desc_size, sizeof(struct tracebuf_backend_desc));
	CHECK(in->backends_ptr == (uint64_t)(uintptr_t)b);
	CHECK_EQ(in->reserved0, 0);
	CHECK(all_bytes(in->reserved, 0, sizeof(in->reserved)));
	CHECK_EQ(in->abi_version, 0);
	CHECK_EQ(in->nr_backends, 0);
	CHECK(all_bytes(in->module_version, 0, sizeof(in->module_version)));

	/* The answer is passed through; entries beyond max are untouched. */
	CHECK_EQ(info.abi_version, TRACEBUF_ABI_VERSION);
	CHECK_EQ(info.nr_backends, 3);
	CHECK_EQ(info.page_size, 4096);
	CHECK(strcmp(info.module_version, "9.8.7") == 0);
	CHECK(strcmp(b[0].name, "intel_pt") == 0);
	CHECK_EQ(b[1].id, TRACEBUF_BACKEND_CORESIGHT);
	CHECK(all_bytes(&b[2], 0xaa, 2 * sizeof(b[0])));
}

static void check_no_backends(struct tracebuf_session *s)
{
	struct tracebuf_info info;

	CHECK_EQ(tracebuf_get_info(s, &info, NULL, 0), 0);
	CHECK_EQ(fake_tb.last_in.backends_max, 0);
	CHECK(fake_tb.last_in.backends_ptr == 0);
	CHECK_EQ(info.nr_backends, 3);
}

static void check_errors(struct tracebuf_session *s)
{
	struct tracebuf_info info;
	unsigned int calls;

	fake_tb.err = EFAULT;
	CHECK_EQ(tracebuf_get_info(s, &info, NULL, 0), -EFAULT);
	fake_tb.err = 0;
	/* Argument errors are caught before the module is asked. */
	calls = fake_tb.calls;
	CHECK_EQ(tracebuf_get_info(s, &info, NULL, 1), -EINVAL);
	CHECK_EQ(tracebuf_get_info(s, NULL, NULL, 0), -EINVAL);
	CHECK_EQ(fake_tb.calls, calls);
}

static void check_setup(struct tracebuf_session *s)
{
	const struct tracebuf_setup *in = &fake_tb.last_setup;
	struct tracebuf_setup setup, copy;
	uint64_t cpus = 0x5;

	memset(&setup, 0, sizeof(setup));
	setup.size = 3;		/* the library sets it, whatever the caller had */
	setup.target = TRACEBUF_TARGET_CPUSET;
	setup.cpu = 9;
	setup.cpuset_ptr = (uint64_t)(uintptr_t)&cpus;
	setup.cpuset_size = sizeof(cpus);
	setup.wakeup_events = 11;
	setup.data_watermark = 12345;
	setup.aux_watermark = 67890;
	setup.data_size = 1 << 16;
	strcpy(setup.backend, TRACEBUF_BACKEND_DATA);
	copy = setup;

	CHECK_EQ(tracebuf_setup(s, &setup), 0);
	CHECK_EQ(fake_tb.setup_calls, 1);
	CHECK_EQ(in->size, sizeof(struct tracebuf_setup));
	CHECK_EQ(in->size, TRACEBUF_SETUP_SIZE_VER0);
	/* Everything else exactly as the caller gave it. */
	copy.size = in->size;
	CHECK(memcmp(in, &copy, sizeof(copy)) == 0);
	/* The caller's struct is const: its size is left alone. */
	CHECK_EQ(setup.size, 3);

	/* The module's answer is passed through. */
	setup.flags = 1;
	CHECK_EQ(tracebuf_setup(s, &setup), -EINVAL);
	CHECK_EQ(fake_tb.setup_calls, 2);
	setup.flags = 0;
	fake_tb.err = EBUSY;
	CHECK_EQ(tracebuf_setup(s, &setup), -EBUSY);
	fake_tb.err = 0;

	/* Argument errors are caught before the module is asked. */
	CHECK_EQ(tracebuf_setup(NULL, &setup), -EINVAL);
	CHECK_EQ(tracebuf_setup(s, NULL), -EINVAL);
	CHECK_EQ(fake_tb.setup_calls, 3);
}

static void check_user_marker(struct tracebuf_session *s)
{
	const struct tracebuf_user_marker *in = &fake_tb.last_marker;
	static unsigned char big[TRACEBUF_USER_MARKER_MAX + 1];
	const char text[] = "marker payload";

	CHECK_EQ(tracebuf_user_marker(s, 0x1122334455667788ULL, text, sizeof(text)), 0);
	CHECK_EQ(fake_tb.marker_calls, 1);
	CHECK_EQ(in->size, sizeof(struct tracebuf_user_marker));
	CHECK_EQ(in->size, TRACEBUF_USER_MARKER_SIZE_VER0);
	CHECK_EQ(in->flags, 0);
	CHECK(in->cookie == 0x1122334455667788ULL);
	CHECK(in->data_ptr == (uint64_t)(uintptr_t)text);
	CHECK_EQ(in->len, sizeof(text));
	CHECK_EQ(in->reserved0, 0);
	CHECK(all_bytes(in->reserved, 0, sizeof(in->reserved)));
	CHECK(memcmp(fake_tb.marker_data, text, sizeof(text)) == 0);

	/* No data. */
	CHECK_EQ(tracebuf_user_marker(s, 7, NULL, 0), 0);
	CHECK_EQ(fake_tb.marker_calls, 2);
	CHECK(in->data_ptr == 0);
	CHECK_EQ(in->len, 0);
	CHECK(in->cookie == 7);

	/* The largest marker, and the module's errors passed through. */
	memset(big, 0x3c, sizeof(big));
	CHECK_EQ(tracebuf_user_marker(s, 8, big, TRACEBUF_USER_MARKER_MAX), 0);
	CHECK_EQ(in->len, TRACEBUF_USER_MARKER_MAX);
	CHECK(all_bytes(fake_tb.marker_data, 0x3c, TRACEBUF_USER_MARKER_MAX));
	fake_tb.err = ENOSPC;
	CHECK_EQ(tracebuf_user_marker(s, 9, text, 1), -ENOSPC);
	fake_tb.err = ENXIO;
	CHECK_EQ(tracebuf_user_marker(s, 9, text, 1), -ENXIO);
	fake_tb.err = 0;
	CHECK_EQ(fake_tb.marker_calls, 5);

	/* Argument errors are caught before the module is asked. */
	CHECK_EQ(tracebuf_user_marker(NULL, 1, text, 1), -EINVAL);
	CHECK_EQ(tracebuf_user_marker(s, 1, NULL, 1), -EINVAL);
	CHECK_EQ(tracebuf_user_marker(s, 1, big, TRACEBUF_USER_MARKER_MAX + 1), -EINVAL);
	CHECK_EQ(fake_tb.marker_calls, 5);
}

int main(void)
{
	struct tracebuf_session s;

	setenv("TRACEBUF_DEVICE", "/dev/null", 1);
	CHECK_EQ(tracebuf_open(&s, 0), 0);
	check_request(&s);
	check_no_backends(&s);
	check_errors(&s);
	check_setup(&s);
	check_user_marker(&s);
	tracebuf_close(&s);
	/* A closed session: -EBADF, and the module is not asked. */
	CHECK_EQ(tracebuf_setup(&s, &fake_tb.last_setup), -EBADF);
	CHECK_EQ(tracebuf_user_marker(&s, 1, NULL, 0), -EBADF);
	CHECK_EQ(fake_tb.setup_calls, 3);
	CHECK_EQ(fake_tb.marker_calls, 5);
	return check_done();
}
