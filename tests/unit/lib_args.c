/* SPDX-License-Identifier: GPL-2.0 */
/*
 * libtracebuf argument validation and error reporting, without the
 * module: TRACEBUF_DEVICE points the library at paths that do not exist or
 * are not tracebuf devices.
 */
#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include <libtracebuf.h>

#include "check.h"

static void check_open_args(void)
{
	struct tracebuf_session s;

	CHECK_EQ(tracebuf_open(NULL, 0), -EINVAL);

	memset(&s, 0x5a, sizeof(s));
	CHECK_EQ(tracebuf_open(&s, 1U << 1), -EINVAL);
	CHECK_EQ(s.fd, -1);
	CHECK_EQ(tracebuf_open(&s, ~0U), -EINVAL);
	CHECK_EQ(s.fd, -1);
	tracebuf_close(&s);
	tracebuf_close(NULL);
}

static void check_open_missing(void)
{
	struct tracebuf_session s;

	setenv("TRACEBUF_DEVICE", "/nonexistent/tracebuf", 1);
	CHECK_EQ(tracebuf_open(&s, 0), -ENOENT);
	CHECK_EQ(s.fd, -1);
	tracebuf_close(&s);
}

static void check_open_flags(unsigned int flags)
{
	struct tracebuf_session s;
	int fl;

	setenv("TRACEBUF_DEVICE", "/dev/null", 1);
	CHECK_EQ(tracebuf_open(&s, flags), 0);
	CHECK(s.fd >= 0);
	CHECK_EQ(s.flags, flags);
	CHECK_EQ(fcntl(s.fd, F_GETFD) & FD_CLOEXEC, FD_CLOEXEC);
	fl = fcntl(s.fd, F_GETFL);
	CHECK_EQ(fl & O_ACCMODE, O_RDWR);
	CHECK_EQ(!!(fl & O_NONBLOCK), !!(flags & TRACEBUF_OPEN_NONBLOCK));
	tracebuf_close(&s);
}

static void check_get_info_args(void)
{
	struct tracebuf_backend_desc b[2];
	struct tracebuf_session s;
	struct tracebuf_info info;

	setenv("TRACEBUF_DEVICE", "/dev/null", 1);
	CHECK_EQ(tracebuf_open(&s, 0), 0);
	CHECK_EQ(tracebuf_get_info(NULL, &info, b, 2), -EINVAL);
	CHECK_EQ(tracebuf_get_info(&s, NULL, b, 2), -EINVAL);
	CHECK_EQ(tracebuf_get_info(&s, &info, NULL, 1), -EINVAL);
	/* /dev/null takes no ioctls: what an old module or wrong node gives. */
	CHECK_EQ(tracebuf_get_info(&s, &info, NULL, 0), -ENOTTY);
	CHECK_EQ(tracebuf_get_info(&s, &info, b, 2), -ENOTTY);
	tracebuf_close(&s);
	CHECK_EQ(tracebuf_get_info(&s, &info, b, 2), -EBADF);
}

/* A second close must not close whatever now has the old fd number. */
static void check_close_idempotent(void)
{
	struct tracebuf_session s;
	int old, fd;

	setenv("TRACEBUF_DEVICE", "/dev/null", 1);
	CHECK_EQ(tracebuf_open(&s, 0), 0);
	old = s.fd;
	tracebuf_close(&s);
	CHECK_EQ(s.fd, -1);
	CHECK(fcntl(old, F_GETFD) < 0 && errno == EBADF);
	fd = open("/dev/null", O_RDONLY);
	CHECK_EQ(fd, old);
	tracebuf_close(&s);
	CHECK_EQ(s.fd, -1);
	CHECK(fcntl(fd, F_GETFD) >= 0);
	close(fd);
}

static void check_strerror(void)
{
	const char *unknown = tracebuf_strerror(100000);
	char saved[128];

	CHECK(strstr(tracebuf_strerror(-ENOENT), "modprobe tracebuf") != NULL);
	CHECK(strstr(tracebuf_strerror(ENOENT), "modprobe tracebuf") != NULL);
	CHECK(strstr(tracebuf_strerror(-EACCES), "udev") != NULL);
	CHECK(strstr(tracebuf_strerror(-EACCES), "'tracebuf'") != NULL);
	CHECK(strcmp(tracebuf_strerror(-EPERM), tracebuf_strerror(-EACCES)) == 0);
	CHECK(strcmp(tracebuf_strerror(ENOTTY), "not a tracebuf device or module too old") == 0);
	CHECK(strstr(tracebuf_strerror(-ENODEV), "backend") != NULL);
	/* Others: the C library's text, the same for either sign. */
	CHECK(strcmp(tracebuf_strerror(-EINVAL), strerror(EINVAL)) == 0);
	CHECK(strcmp(tracebuf_strerror(EINVAL), strerror(EINVAL)) == 0);
	CHECK(unknown != NULL && *unknown);
	CHECK(strcmp(tracebuf_strerror(-100000), unknown) == 0);
	/* Constant strings: a later call does not change an earlier result. */
	snprintf(saved, sizeof(saved), "%s", unknown);
	tracebuf_strerror(100001);
	CHECK(strcmp(unknown, saved) == 0);
	CHECK(tracebuf_strerror(INT_MIN) != NULL);
	CHECK(tracebuf_strerror(0) != NULL);
}

static void check_names(void)
{
	CHECK(strcmp(tracebuf_backend_name(TRACEBUF_BACKEND_NONE), "none") == 0);
	CHECK(strcmp(tracebuf_backend_name(TRACEBUF_BACKEND_INTEL_PT), "intel_pt") == 0);
	CHECK(strcmp(tracebuf_backend_name(TRACEBUF_BACKEND_CORESIGHT), "coresight") == 0);
	CHECK(strcmp(tracebuf_backend_name(3), "unknown") == 0);
	CHECK(strcmp(tracebuf_backend_name(~0U), "unknown") == 0);
	CHECK(strcmp(tracebuf_version(), TRACEBUF_EXPECTED_VERSION) == 0);
}

int main(void)
{
	check_open_args();
	check_open_missing();
	check_open_flags(0);
	check_open_flags(TRACEBUF_OPEN_NONBLOCK);
	check_get_info_args();
	check_close_idempotent();
	check_strerror();
	check_names();
	return check_done();
}
