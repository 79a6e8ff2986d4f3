/* SPDX-License-Identifier: GPL-2.0 */
/*
 * A stand-in for the module's TRACEBUF_IOC_GET_INFO, SETUP and
 * USER_MARKER, so the library's requests and the tool's output can be
 * checked on a host without the module. It replaces ioctl(): linked into a test program, or preloaded
 * into the tool (LD_PRELOAD). Every other ioctl goes to the kernel.
 *
 * Environment (read at load): FAKE_TB_BACKENDS (count, default 0),
 * FAKE_TB_VERSION (module version string, default "9.8.7").
 */
#include <errno.h>
#include <stdarg.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>
#include <sys/syscall.h>
#include <unistd.h>

#include <tracebuf.h>

#include "fake_ioctl.h"

struct fake_tb fake_tb = { .version = "9.8.7" };

__attribute__((constructor)) static void fake_tb_init(void)
{
	const char *v = getenv("FAKE_TB_BACKENDS");

	if (v)
		fake_tb.nr_backends = (unsigned int)strtoul(v, NULL, 0);
	v = getenv("FAKE_TB_VERSION");
	if (v)
		fake_tb.version = v;
}

static void fake_desc(struct tracebuf_backend_desc *d, unsigned int i)
{
	memset(d, 0, sizeof(*d));
	if (i % 2 == 0) {
		strcpy(d->name, "intel_pt");
		d->id = TRACEBUF_BACKEND_INTEL_PT;
	} else {
		strcpy(d->name, "coresight");
		d->id = TRACEBUF_BACKEND_CORESIGHT;
		d->flags = TRACEBUF_BACKEND_F_EMULATED;
	}
	d->nr_cpus = 4;
	d->caps_size = 64 + i;
}

/* The module's checks, in the module's order. */
static int fake_get_info(struct tracebuf_info *info)
{
	unsigned int i;

	fake_tb.calls++;
	memcpy(&fake_tb.last_in, info, sizeof(*info));
	if (fake_tb.err)
		return -fake_tb.err;
	if (info->size < TRACEBUF_INFO_SIZE_VER0)
		return -EINVAL;
	if (info->reserved0 || info->reserved[0] || info->reserved[1] ||
	    info->reserved[2] || info->reserved[3])
		return -EINVAL;
	if (info->backends_max &&
	    (info->backend_desc_size < TRACEBUF_BACKEND_DESC_SIZE_VER0 ||
	     !info->backends_ptr))
		return -EINVAL;
	for (i = 0; i < fake_tb.nr_backends && i < info->backends_max; i++)
		fake_desc((struct tracebuf_backend_desc *)(uintptr_t)
			  (info->backends_ptr + (uint64_t)i * info->backend_desc_size), i);
	info->abi_version = TRACEBUF_ABI_VERSION;
	info->page_size = 4096;
	info->nr_cpu_ids = 8;
	info->nr_backends = fake_tb.nr_backends;
	strncpy(info->module_version, fake_tb.version, sizeof(info->module_version) - 1);
	return 0;
}

static int all_zero(const void *p, size_t n)
{
	const unsigned char *b = p;

	while (n--)
		if (*b++)
			return 0;
	return 1;
}

/* Records the request; checks only what needs no session state. */
static int fake_setup(const struct tracebuf_setup *setup)
{
	fake_tb.setup_calls++;
	memcpy(&fake_tb.last_setup, setup, sizeof(*setup));
	if (fake_tb.err)
		return -fake_tb.err;
	if (setup->size < TRACEBUF_SETUP_SIZE_VER0)
		return -EINVAL;
	if (setup->flags || !all_zero(setup->reserved, sizeof(setup->reserved)))
		return -EINVAL;
	return 0;
}

static int fake_user_marker(const struct tracebuf_user_marker *m)
{
	fake_tb.marker_calls++;
	memcpy(&fake_tb.last_marker, m, sizeof(*m));
	memset(fake_tb.marker_data, 0, sizeof(fake_tb.marker_data));
	if (fake_tb.err)
		return -fake_tb.err;
	if (m->size < TRACEBUF_USER_MARKER_SIZE_VER0 || m->flags || m->reserved0 ||
	    !all_zero(m->reserved, sizeof(m->reserved)) || m->len > TRACEBUF_USER_MARKER_MAX)
		return -EINVAL;
	if (m->len && !m->data_ptr)
		return -EFAULT;
	if (m->len)
		memcpy(fake_tb.marker_data, (const void *)(uintptr_t)m->data_ptr, m->len);
	return 0;
}

int ioctl(int fd, unsigned long req, ...)
{
	va_list ap;
	void *arg;
	int ret;

	va_start(ap, req);
	arg = va_arg(ap, void *);
	va_end(ap);

	switch (req) {
	case TRACEBUF_IOC_GET_INFO:
		ret = fake_get_info(arg);
		break;
	case TRACEBUF_IOC_SETUP:
		ret = fake_setup(arg);
		break;
	case TRACEBUF_IOC_USER_MARKER:
		ret = fake_user_marker(arg);
		break;
	default:
		return (int)syscall(SYS_ioctl, fd, req, arg);
	}
	if (ret < 0) {
		errno = -ret;
		return -1;
	}
	return 0;
}
