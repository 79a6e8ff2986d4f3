/* SPDX-License-Identifier: GPL-2.0 */
/*
 * tracebuf_get_info() builds the request the module expects and passes its
 * answer through, checked against the fake GET_INFO in fake_ioctl.c.
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

int main(void)
{
	struct tracebuf_session s;

	setenv("TRACEBUF_DEVICE", "/dev/null", 1);
	CHECK_EQ(tracebuf_open(&s, 0), 0);
	check_request(&s);
	check_no_backends(&s);
	check_errors(&s);
	tracebuf_close(&s);
	return check_done();
}
