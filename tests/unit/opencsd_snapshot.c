// SPDX-License-Identifier: GPL-2.0
/*
 * userspace/tools/opencsd.c: the files of an OpenCSD snapshot, byte for
 * byte, and every argument error.
 *
 *   opencsd_snapshot TMPDIR
 *
 * Leaves TMPDIR/two (2 ETMs, 4 frames) and TMPDIR/empty (1 ETM, no trace)
 * for the caller to decode with trc_pkt_lister.
 */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "check.h"
#include "opencsd.h"

static char *slurp(const char *dir, const char *name, size_t *len)
{
	char path[4096];
	char *buf;
	FILE *f;
	long n;

	snprintf(path, sizeof(path), "%s/%s", dir, name);
	f = fopen(path, "rb");
	if (!f) {
		fprintf(stderr, "%s: %s\n", path, strerror(errno));
		check_failures++;
		return NULL;
	}
	fseek(f, 0, SEEK_END);
	n = ftell(f);
	rewind(f);
	buf = malloc((size_t)n + 1);
	if (!buf || fread(buf, 1, (size_t)n, f) != (size_t)n)
		abort();
	buf[n] = 0;
	fclose(f);
	if (len)
		*len = (size_t)n;
	return buf;
}

static void check_text(const char *dir, const char *name, const char *want)
{
	char *got = slurp(dir, name, NULL);

	if (got && strcmp(got, want)) {
		fprintf(stderr, "%s/%s is:\n%s\nexpected:\n%s\n", dir, name, got, want);
		check_failures++;
	}
	free(got);
}

static void etm_init(struct ocsd_etm_regs *e, unsigned int cpu, uint32_t id)
{
	unsigned int i;

	memset(e, 0, sizeof(*e));
	e->cpu = cpu;
	e->trace_id = id;
	e->trctraceidr = id;
	e->trcconfigr = 0x1 | (cpu << 4);
	for (i = 0; i < 14; i++)
		e->trcidr[i] = 0x1000 * i + cpu;
	e->trcidr[0] = 0x28000ea1;
	e->trcidr[1] = 0x4100f421;
	e->trcidr[2] = 0x00000488;
	e->trcauthstatus = 0xcc;
}

/* The call fails with err and a message containing want. */
static void check_err(const char *dir, const struct ocsd_etm_regs *e, unsigned int nr,
		      const void *trace, size_t len, int err, const char *want, int line)
{
	char msg[256];
	int ret = ocsd_write_snapshot(dir, e, nr, trace, len, msg, sizeof(msg));

	if (ret != -err || !strstr(msg, want)) {
		fprintf(stderr, "line %d: returned %d \"%s\", expected %d \"...%s...\"\n", line,
			ret, msg, -err, want);
		check_failures++;
	}
}
#define CHECK_ERR(dir, e, nr, trace, len, err, want) \
	check_err(dir, e, nr, trace, len, err, want, __LINE__)

int main(int argc, char **argv)
{
	static const char snapshot_ini[] =
		"[snapshot]\nversion=1.0\ndescription=tracebuf export\n\n"
		"[device_list]\ndevice0=cpu_0.ini\ndevice1=cpu_1.ini\n"
		"device2=device_0.ini\ndevice3=device_1.ini\n\n"
		"[trace]\nmetadata=trace.ini\n";
	static const char cpu_ini[] =
		"[device]\nname=cpu_3\nclass=core\ntype=ARMv8-A\n";
	static const char device_ini[] =
		"[device]\nname=ETM_3\nclass=trace_source\ntype=ETM4\n\n"
		"[regs]\n"
		"TRCCONFIGR(0x010)=0x00000031\n"
		"TRCTRACEIDR(0x040)=0x00000011\n"
		"TRCIDR0(0x1e0)=0x28000ea1\n"
		"TRCIDR1(0x1e4)=0x4100f421\n"
		"TRCIDR2(0x1e8)=0x00000488\n"
		"TRCIDR3(0x1ec)=0x00003003\n"
		"TRCIDR4(0x1f0)=0x00004003\n"
		"TRCIDR5(0x1f4)=0x00005003\n"
		"TRCIDR6(0x1f8)=0x00006003\n"
		"TRCIDR7(0x1fc)=0x00007003\n"
		"TRCIDR8(0x180)=0x00008003\n"
		"TRCIDR9(0x184)=0x00009003\n"
		"TRCIDR10(0x188)=0x0000a003\n"
		"TRCIDR11(0x18c)=0x0000b003\n"
		"TRCIDR12(0x190)=0x0000c003\n"
		"TRCIDR13(0x194)=0x0000d003\n"
		"TRCAUTHSTATUS(0xfb8)=0x000000cc\n";
	static const char trace_ini[] =
		"[trace_buffers]\nbuffers=buffer0\n\n"
		"[buffer0]\nname=ETB_0\nfile=cstrace.bin\nformat=coresight\n\n"
		"[source_buffers]\nETM_0=ETB_0\nETM_3=ETB_0\n\n"
		"[core_trace_sources]\ncpu_0=ETM_0\ncpu_3=ETM_3\n";
	struct ocsd_etm_regs e[3];
	unsigned char frames[64];
	char dir[2048], path[4096], msg[8], *bin;
	struct stat st;
	size_t len, i;

	if (argc != 2) {
		fprintf(stderr, "usage: opencsd_snapshot TMPDIR\n");
		return 2;
	}

	/* Two ETMs (CPUs 0 and 3), four frames: an A-sync per ID, padding. */
	etm_init(&e[0], 0, 0x10);
	etm_init(&e[1], 3, 0x11);
	memset(frames, 0, sizeof(frames));
	frames[0] = 0x10 << 1 | 1;
	frames[14] = 0x80;
	frames[16] = 0x11 << 1 | 1;
	frames[30] = 0x80;
	for (i = 32; i < 64; i += 2)
		frames[i] = 0x01;
	for (i = 33; i < 64; i += 2)
		frames[i] = 0;
	snprintf(dir, sizeof(dir), "%s/two", argv[1]);
	CHECK_EQ(ocsd_write_snapshot(dir, e, 2, frames, sizeof(frames), NULL, 0), 0);
	check_text(dir, "snapshot.ini", snapshot_ini);
	check_text(dir, "cpu_1.ini", cpu_ini);
	check_text(dir, "device_1.ini", device_ini);
	check_text(dir, "trace.ini", trace_ini);
	bin = slurp(dir, "cstrace.bin", &len);
	CHECK(bin && len == sizeof(frames) && !memcmp(bin, frames, len));
	free(bin);
	/* Again into the same directory: replaced, with a message buffer. */
	memset(msg, 'x', sizeof(msg));
	CHECK_EQ(ocsd_write_snapshot(dir, e, 2, frames, 32, msg, sizeof(msg)), 0);
	CHECK_EQ(msg[0], 0);
	snprintf(path, sizeof(path), "%s/cstrace.bin", dir);
	CHECK(stat(path, &st) == 0 && st.st_size == 32);
	CHECK_EQ(ocsd_write_snapshot(dir, e, 2, frames, sizeof(frames), msg, sizeof(msg)), 0);

	/* No trace: an empty cstrace.bin; NULL is fine then. */
	snprintf(dir, sizeof(dir), "%s/empty", argv[1]);
	CHECK_EQ(ocsd_write_snapshot(dir, e, 1, NULL, 0, NULL, 0), 0);
	snprintf(path, sizeof(path), "%s/cstrace.bin", dir);
	CHECK(stat(path, &st) == 0 && st.st_size == 0);
	snprintf(path, sizeof(path), "%s/device_1.ini", dir);
	CHECK(stat(path, &st) < 0 && errno == ENOENT);

	/* Arguments. */
	snprintf(dir, sizeof(dir), "%s/bad", argv[1]);
	CHECK_ERR(dir, e, 0, frames, 16, EINVAL, "no ETM");
	CHECK_ERR(dir, NULL, 1, frames, 16, EINVAL, "no ETM");
	CHECK_ERR(NULL, e, 1, frames, 16, EINVAL, "no snapshot directory");
	CHECK_ERR("", e, 1, frames, 16, EINVAL, "no snapshot directory");
	CHECK_ERR(dir, e, 1, NULL, 16, EINVAL, "no trace buffer for 16 bytes");
	CHECK_ERR(dir, e, 1, frames, 17, EINVAL,
		  "17 bytes of trace is not a whole number of 16-byte TMC frames");
	e[2] = e[0];
	e[2].trace_id = e[2].trctraceidr = 0x12;
	CHECK_ERR(dir, e, 3, frames, 16, EINVAL, "two ETMs for CPU 0");
	e[2].cpu = 5;
	e[2].trace_id = e[2].trctraceidr = 0x11;
	CHECK_ERR(dir, e, 3, frames, 16, EINVAL, "CPUs 3 and 5 share trace ID 0x11");
	e[2].trace_id = e[2].trctraceidr = 0;
	CHECK_ERR(dir, e, 3, frames, 16, EINVAL, "CPU 5: trace ID 0x0 is not one of 0x01..0x6f");
	e[2].trace_id = e[2].trctraceidr = 0x70;
	CHECK_ERR(dir, e, 3, frames, 16, EINVAL, "CPU 5: trace ID 0x70 is not one of 0x01..0x6f");
	e[2].trace_id = 0x12;
	e[2].trctraceidr = 0x13;
	CHECK_ERR(dir, e, 3, frames, 16, EINVAL, "CPU 5: trace ID 0x12 but TRCTRACEIDR 0x13");
	CHECK(stat(dir, &st) < 0 && errno == ENOENT);	/* checked before mkdir */
	/* A bit above the ID is fine (TRCTRACEIDR[6:0] is the ID). */
	e[2].trctraceidr = 0x12 | 0x80;
	CHECK_EQ(ocsd_write_snapshot(dir, e, 3, frames, 16, NULL, 0), 0);

	/* The directory. */
	snprintf(dir, sizeof(dir), "%s/two/cstrace.bin", argv[1]);
	CHECK_ERR(dir, e, 1, frames, 16, ENOTDIR, "Not a directory");
	snprintf(dir, sizeof(dir), "%s/missing/seg", argv[1]);
	CHECK_ERR(dir, e, 1, frames, 16, ENOENT, "cannot create");
	/* A message that does not fit is cut, NUL-terminated; msglen 0 is fine. */
	memset(msg, 'x', sizeof(msg));
	CHECK_EQ(ocsd_write_snapshot(dir, e, 1, frames, 16, msg, sizeof(msg)), -ENOENT);
	CHECK(memchr(msg, 0, sizeof(msg)) == msg + sizeof(msg) - 1);
	CHECK_EQ(ocsd_write_snapshot(dir, e, 1, frames, 16, msg, 0), -ENOENT);
	if (geteuid() != 0) {
		snprintf(dir, sizeof(dir), "%s/ro", argv[1]);
		mkdir(dir, 0555);
		CHECK_ERR(dir, e, 1, frames, 16, EACCES, "Permission denied");
	}
	return check_done();
}
