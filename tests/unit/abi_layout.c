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
	{ "TRACEBUF_IOC_SETUP", TRACEBUF_IOC_SETUP, 0x01,
	  _IOC_WRITE, TRACEBUF_SETUP_SIZE_VER0 },
	{ "TRACEBUF_IOC_USER_MARKER", TRACEBUF_IOC_USER_MARKER, 0x02,
	  _IOC_WRITE, TRACEBUF_USER_MARKER_SIZE_VER0 },
	{ "TRACEBUF_IOC_ENABLE", TRACEBUF_IOC_ENABLE, 0x03, _IOC_NONE, 0 },
	{ "TRACEBUF_IOC_DISABLE", TRACEBUF_IOC_DISABLE, 0x04, _IOC_NONE, 0 },
	{ "TRACEBUF_IOC_SNAPSHOT", TRACEBUF_IOC_SNAPSHOT, 0x05, _IOC_NONE, 0 },
	{ "TRACEBUF_IOC_GET_CAPS", TRACEBUF_IOC_GET_CAPS, 0x06,
	  _IOC_READ | _IOC_WRITE, TRACEBUF_CAPS_QUERY_SIZE_VER0 },
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
	CHECK_EQ(TRACEBUF_IOC_ENABLE, 0xb903UL);
	CHECK_EQ(TRACEBUF_IOC_GET_CAPS, 0xc038b906UL);
#endif
}

static void check_pt_caps(void)
{
	FIELD(tracebuf_caps_query, size, 0, 4);
	FIELD(tracebuf_caps_query, cpu, 4, 4);
	FIELD(tracebuf_caps_query, backend, 8, 16);
	FIELD(tracebuf_caps_query, caps_size, 24, 4);
	FIELD(tracebuf_caps_query, reserved0, 28, 4);
	FIELD(tracebuf_caps_query, caps_ptr, 32, 8);
	FIELD(tracebuf_caps_query, reserved, 40, 16);
	CHECK_EQ(sizeof(struct tracebuf_caps_query), TRACEBUF_CAPS_QUERY_SIZE_VER0);

	FIELD(tracebuf_pt_caps, cpuid_14_0, 0, 16);
	FIELD(tracebuf_pt_caps, cpuid_14_1, 16, 16);
	FIELD(tracebuf_pt_caps, cpuid_15, 32, 16);
	FIELD(tracebuf_pt_caps, family, 48, 4);
	FIELD(tracebuf_pt_caps, psb_periods, 76, 4);
	FIELD(tracebuf_pt_caps, flags, 80, 8);
	FIELD(tracebuf_pt_caps, reserved, 88, 32);
	CHECK_EQ(sizeof(struct tracebuf_pt_caps), 120);
}

static void check_coresight(void)
{
	FIELD(tracebuf_cs_caps, trcidr, 0, 56);
	FIELD(tracebuf_cs_caps, trcdevarch, 56, 4);
	FIELD(tracebuf_cs_caps, trcdevid, 60, 4);
	FIELD(tracebuf_cs_caps, trcauthstatus, 64, 4);
	FIELD(tracebuf_cs_caps, trace_id, 68, 4);
	FIELD(tracebuf_cs_caps, sink, 72, 4);
	FIELD(tracebuf_cs_caps, sink_type, 76, 4);
	FIELD(tracebuf_cs_caps, sink_flags, 80, 4);
	FIELD(tracebuf_cs_caps, sink_cpus, 84, 4);
	FIELD(tracebuf_cs_caps, sink_size, 88, 8);
	FIELD(tracebuf_cs_caps, reserved, 96, 32);
	CHECK_EQ(sizeof(struct tracebuf_cs_caps), 128);
	CHECK_EQ(TRACEBUF_CS_SINK_ETB, 0);
	CHECK_EQ(TRACEBUF_CS_SINK_ETR, 1);
	CHECK_EQ(TRACEBUF_CS_SINK_ETF, 2);
	CHECK_EQ(TRACEBUF_CS_SINK_F_SG, 1);
	CHECK_EQ(TRACEBUF_CS_SINK_F_SHARED, 2);

	/* The ETM record and the LOST reason CoreSight brings. */
	FIELD(tracebuf_rec_etm, r, 0, 24);
	FIELD(tracebuf_rec_etm, etm_cpu, 24, 4);
	FIELD(tracebuf_rec_etm, trace_id, 28, 4);
	FIELD(tracebuf_rec_etm, trcconfigr, 32, 4);
	FIELD(tracebuf_rec_etm, trctraceidr, 36, 4);
	FIELD(tracebuf_rec_etm, trcidr, 40, 56);
	FIELD(tracebuf_rec_etm, trcauthstatus, 96, 4);
	FIELD(tracebuf_rec_etm, reserved, 100, 4);
	CHECK_EQ(sizeof(struct tracebuf_rec_etm), 104);
	CHECK_EQ(sizeof(struct tracebuf_rec_etm) % 8, 0);
	CHECK_EQ(TRACEBUF_REC_ETM, 6);
	FIELD(tracebuf_rec_lost, flags, 36, 4);
	CHECK_EQ(TRACEBUF_LOST_AUX_OVERRUN, 2);
	CHECK_EQ(TRACEBUF_LOST_F_AT_LEAST, 1);
}

int main(void)
{
	check_pt_caps();
	check_coresight();
	check_constants();
	check_backend_desc();
	check_info();
	check_ioctls();
	return check_done();
}
