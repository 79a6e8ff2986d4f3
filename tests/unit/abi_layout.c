/* SPDX-License-Identifier: GPL-2.0 */
/*
 * The UAPI layout, hard-coded: any change to an offset or size of a
 * published struct, or to an ioctl number, fails here. Appending a field
 * to a struct means adding it below and moving its size, never changing
 * an existing line.
 */
#include <stddef.h>
#include <string.h>
#include <tracebuf.h>

#include "check.h"

#define FIELD(type, field, off, size) do {				\
	CHECK_EQ(offsetof(struct type, field), off);			\
	CHECK_EQ(sizeof(((struct type *)0)->field), size);		\
} while (0)

struct ioctl_desc {
	const char *name;
	unsigned long cmd;
	unsigned int nr;
	unsigned int dir;
	unsigned int size;
};

static const struct ioctl_desc ioctls[] = {
	{ "TRACEBUF_IOC_GET_INFO", TRACEBUF_IOC_GET_INFO, 0x00,
	  _IOC_READ | _IOC_WRITE, TRACEBUF_INFO_SIZE_VER0 },
};

#define NR_IOCTLS (sizeof(ioctls) / sizeof(ioctls[0]))

static void check_constants(void)
{
	CHECK_EQ(TRACEBUF_ABI_VERSION, 1);
	CHECK_EQ(TRACEBUF_IOC_MAGIC, 0xB9);
	CHECK_EQ(TRACEBUF_NAME_LEN, 16);
	CHECK_EQ(TRACEBUF_VERSION_LEN, 32);
	CHECK_EQ(TRACEBUF_BACKEND_NONE, 0);
	CHECK_EQ(TRACEBUF_BACKEND_INTEL_PT, 1);
	CHECK_EQ(TRACEBUF_BACKEND_CORESIGHT, 2);
	CHECK_EQ(TRACEBUF_BACKEND_F_EMULATED, 1);
	CHECK(strcmp(TRACEBUF_DEVICE, "/dev/tracebuf") == 0);
}

static void check_backend_desc(void)
{
	FIELD(tracebuf_backend_desc, name, 0, 16);
	FIELD(tracebuf_backend_desc, id, 16, 4);
	FIELD(tracebuf_backend_desc, flags, 20, 4);
	FIELD(tracebuf_backend_desc, nr_cpus, 24, 4);
	FIELD(tracebuf_backend_desc, caps_size, 28, 4);
	FIELD(tracebuf_backend_desc, reserved, 32, 16);
	CHECK_EQ(sizeof(struct tracebuf_backend_desc), 48);
	CHECK_EQ(TRACEBUF_BACKEND_DESC_SIZE_VER0, 48);
	CHECK_EQ(TRACEBUF_BACKEND_DESC_SIZE_VER0, sizeof(struct tracebuf_backend_desc));
	CHECK_EQ(sizeof(struct tracebuf_backend_desc) % 8, 0);
}

static void check_info(void)
{
	FIELD(tracebuf_info, size, 0, 4);
	FIELD(tracebuf_info, abi_version, 4, 4);
	FIELD(tracebuf_info, page_size, 8, 4);
	FIELD(tracebuf_info, nr_cpu_ids, 12, 4);
	FIELD(tracebuf_info, nr_backends, 16, 4);
	FIELD(tracebuf_info, backends_max, 20, 4);
	FIELD(tracebuf_info, backend_desc_size, 24, 4);
	FIELD(tracebuf_info, reserved0, 28, 4);
	FIELD(tracebuf_info, backends_ptr, 32, 8);
	FIELD(tracebuf_info, module_version, 40, 32);
	FIELD(tracebuf_info, reserved, 72, 32);
	CHECK_EQ(sizeof(struct tracebuf_info), 104);
	CHECK_EQ(TRACEBUF_INFO_SIZE_VER0, 104);
	CHECK_EQ(TRACEBUF_INFO_SIZE_VER0, sizeof(struct tracebuf_info));
	CHECK_EQ(sizeof(struct tracebuf_info) % 8, 0);
}

static void check_ioctls(void)
{
	unsigned int i, j;

	for (i = 0; i < NR_IOCTLS; i++) {
		const struct ioctl_desc *d = &ioctls[i];

		fprintf(stderr, "%s = %#lx\n", d->name, d->cmd);
		CHECK_EQ(_IOC_TYPE(d->cmd), TRACEBUF_IOC_MAGIC);
		CHECK_EQ(_IOC_NR(d->cmd), d->nr);
		CHECK_EQ(_IOC_DIR(d->cmd), d->dir);
		CHECK_EQ(_IOC_SIZE(d->cmd), d->size);
		for (j = 0; j < i; j++)
			CHECK(_IOC_NR(d->cmd) != _IOC_NR(ioctls[j].cmd));
	}
#if defined(__x86_64__) || defined(__i386__) || defined(__aarch64__) || defined(__arm__)
	/* The asm-generic encoding: the number userspace binaries contain. */
	CHECK_EQ(TRACEBUF_IOC_GET_INFO, 0xc068b900UL);
#endif
}

int main(void)
{
	check_constants();
	check_backend_desc();
	check_info();
	check_ioctls();
	return check_done();
}
