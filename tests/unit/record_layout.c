/* SPDX-License-Identifier: GPL-2.0 */
/*
 * The UAPI of sessions and the data ring, hard-coded: SETUP, the control
 * page, the records, USER_MARKER, their ioctl numbers and the commit tag.
 * The module and every consumer depend on these exact offsets; a change
 * fails here. Appending a field means adding a line, never changing one.
 */
#include <stddef.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>
#include <tracebuf.h>

#include "check.h"

#define FIELD(type, field, off, size) do {				\
	CHECK_EQ(offsetof(struct type, field), off);			\
	CHECK_EQ(sizeof(((struct type *)0)->field), size);		\
} while (0)

static void check_setup(void)
{
	FIELD(tracebuf_setup, size, 0, 4);
	FIELD(tracebuf_setup, flags, 4, 4);
	FIELD(tracebuf_setup, target, 8, 4);
	FIELD(tracebuf_setup, cpu, 12, 4);
	FIELD(tracebuf_setup, cpuset_ptr, 16, 8);
	FIELD(tracebuf_setup, cpuset_size, 24, 4);
	FIELD(tracebuf_setup, wakeup_events, 28, 4);
	FIELD(tracebuf_setup, data_watermark, 32, 8);
	FIELD(tracebuf_setup, aux_watermark, 40, 8);
	FIELD(tracebuf_setup, data_size, 48, 8);
	FIELD(tracebuf_setup, backend, 56, 16);
	/* pid and reserved0 were reserved[0] before TARGET_TASK. */
	FIELD(tracebuf_setup, pid, 72, 4);
	FIELD(tracebuf_setup, reserved0, 76, 4);
	FIELD(tracebuf_setup, reserved, 80, 24);
	CHECK_EQ(sizeof(struct tracebuf_setup), 104);
	CHECK_EQ(TRACEBUF_SETUP_SIZE_VER0, 104);
	CHECK_EQ(TRACEBUF_SETUP_SIZE_VER0, sizeof(struct tracebuf_setup));

	CHECK_EQ(TRACEBUF_TARGET_CPU, 1);
	CHECK_EQ(TRACEBUF_TARGET_CPUSET, 2);
	CHECK_EQ(TRACEBUF_TARGET_TASK, 3);
	CHECK_EQ(TRACEBUF_SETUP_F_NO_TIME, 1);
	CHECK_EQ(TRACEBUF_SETUP_F_INHERIT, 2);
	CHECK(strcmp(TRACEBUF_BACKEND_AUTO, "auto") == 0);
	CHECK(strcmp(TRACEBUF_BACKEND_DATA, "none") == 0);
	CHECK_EQ(TRACEBUF_DATA_SIZE_MAX, 1ULL << 30);
}

static void check_ctl(void)
{
	FIELD(tracebuf_ctl, abi_version, 0, 4);
	FIELD(tracebuf_ctl, ctl_size, 4, 4);
	FIELD(tracebuf_ctl, page_size, 8, 4);
	FIELD(tracebuf_ctl, flags, 12, 4);
	FIELD(tracebuf_ctl, data_offset, 16, 8);
	FIELD(tracebuf_ctl, data_size, 24, 8);
	FIELD(tracebuf_ctl, clock_id, 32, 4);
	FIELD(tracebuf_ctl, reserved0, 36, 4);
	/* Each side's words on their own 128-byte line: no false sharing. */
	FIELD(tracebuf_ctl, data_head, 128, 8);
	FIELD(tracebuf_ctl, data_tail, 256, 8);
	FIELD(tracebuf_ctl, aux_head, 384, 8);
	FIELD(tracebuf_ctl, aux_tail, 512, 8);
	FIELD(tracebuf_ctl, aux_offset, 520, 8);
	FIELD(tracebuf_ctl, aux_size, 528, 8);
	FIELD(tracebuf_ctl, records_written, 640, 8);
	FIELD(tracebuf_ctl, records_lost, 648, 8);
	FIELD(tracebuf_ctl, wakeups, 656, 8);
	FIELD(tracebuf_ctl, aux_published, 664, 8);
	FIELD(tracebuf_ctl, aux_truncations, 672, 8);
	FIELD(tracebuf_ctl, aux_collisions, 680, 8);
	FIELD(tracebuf_ctl, aux_padding, 688, 8);
	FIELD(tracebuf_ctl, reserved1, 696, 72);
	CHECK_EQ(sizeof(struct tracebuf_ctl), 768);
	CHECK(sizeof(struct tracebuf_ctl) <= 4096);
	CHECK_EQ(TRACEBUF_CTL_F_READONLY, 1);
	CHECK_EQ(TRACEBUF_CTL_F_AUX_SNAPSHOT, 2);
	CHECK_EQ(TRACEBUF_CTL_F_ENABLED, 4);
	CHECK_EQ(TRACEBUF_AUX_SIZE_MAX, 1ULL << 32);
}

static void check_records(void)
{
	FIELD(tracebuf_rec_header, size, 0, 4);
	FIELD(tracebuf_rec_header, type, 4, 2);
	FIELD(tracebuf_rec_header, flags, 6, 2);
	CHECK_EQ(sizeof(struct tracebuf_rec_header), 8);

	FIELD(tracebuf_record, hdr, 0, 8);
	FIELD(tracebuf_record, commit, 8, 4);
	FIELD(tracebuf_record, cpu, 12, 4);
	FIELD(tracebuf_record, time, 16, 8);
	CHECK_EQ(sizeof(struct tracebuf_record), 24);

	FIELD(tracebuf_rec_lost, r, 0, 24);
	FIELD(tracebuf_rec_lost, count, 24, 8);
	FIELD(tracebuf_rec_lost, reason, 32, 4);
	FIELD(tracebuf_rec_lost, flags, 36, 4);
	CHECK_EQ(sizeof(struct tracebuf_rec_lost), 40);

	FIELD(tracebuf_rec_aux, r, 0, 24);
	FIELD(tracebuf_rec_aux, aux_offset, 24, 8);
	FIELD(tracebuf_rec_aux, aux_size, 32, 8);
	FIELD(tracebuf_rec_aux, flags, 40, 8);
	CHECK_EQ(sizeof(struct tracebuf_rec_aux), 48);

	FIELD(tracebuf_rec_itrace_start, r, 0, 24);
	FIELD(tracebuf_rec_itrace_start, pid, 24, 4);
	FIELD(tracebuf_rec_itrace_start, tid, 28, 4);
	CHECK_EQ(sizeof(struct tracebuf_rec_itrace_start), 32);

	FIELD(tracebuf_rec_switch, r, 0, 24);
	FIELD(tracebuf_rec_switch, aux_offset, 24, 8);
	FIELD(tracebuf_rec_switch, pid, 32, 4);
	FIELD(tracebuf_rec_switch, tid, 36, 4);
	FIELD(tracebuf_rec_switch, flags, 40, 4);
	FIELD(tracebuf_rec_switch, reserved, 44, 4);
	CHECK_EQ(sizeof(struct tracebuf_rec_switch), 48);
	CHECK_EQ(TRACEBUF_SWITCH_F_OUT, 1);
	CHECK_EQ(TRACEBUF_SWITCH_F_PREEMPT, 2);
	CHECK_EQ(TRACEBUF_SWITCH_F_EXEC, 4);
	CHECK_EQ(TRACEBUF_SWITCH_F_BUSY, 8);
	CHECK_EQ(TRACEBUF_SWITCH_F_EXIT, 16);

	FIELD(tracebuf_rec_task, r, 0, 24);
	FIELD(tracebuf_rec_task, pid, 24, 4);
	FIELD(tracebuf_rec_task, ppid, 28, 4);
	FIELD(tracebuf_rec_task, reason, 32, 4);
	FIELD(tracebuf_rec_task, reserved, 36, 4);
	CHECK_EQ(sizeof(struct tracebuf_rec_task), 40);
	CHECK_EQ(TRACEBUF_TASK_FORK, 1);
	CHECK_EQ(TRACEBUF_TASK_EXIT, 2);
	CHECK_EQ(TRACEBUF_TASK_EXEC_PRIV, 3);
	CHECK_EQ(TRACEBUF_TASK_FORK_NOMEM, 4);

	FIELD(tracebuf_rec_config, r, 0, 24);
	FIELD(tracebuf_rec_config, generation, 24, 8);
	FIELD(tracebuf_rec_config, changed, 32, 4);
	FIELD(tracebuf_rec_config, len, 36, 4);
	CHECK_EQ(sizeof(struct tracebuf_rec_config), 40);

	FIELD(tracebuf_rec_user, r, 0, 24);
	FIELD(tracebuf_rec_user, cookie, 24, 8);
	FIELD(tracebuf_rec_user, len, 32, 4);
	FIELD(tracebuf_rec_user, reserved, 36, 4);
	CHECK_EQ(sizeof(struct tracebuf_rec_user), 40);

	FIELD(tracebuf_rec_test, r, 0, 24);
	FIELD(tracebuf_rec_test, seq, 24, 8);
	FIELD(tracebuf_rec_test, producer, 32, 4);
	FIELD(tracebuf_rec_test, context, 36, 2);
	FIELD(tracebuf_rec_test, reserved, 38, 2);
	CHECK_EQ(sizeof(struct tracebuf_rec_test), 40);

	/* Every record size is a multiple of 8 (records are 8-aligned). */
	CHECK_EQ(sizeof(struct tracebuf_rec_lost) % 8, 0);
	CHECK_EQ(sizeof(struct tracebuf_rec_aux) % 8, 0);
	CHECK_EQ(sizeof(struct tracebuf_rec_itrace_start) % 8, 0);
	CHECK_EQ(sizeof(struct tracebuf_rec_config) % 8, 0);
	CHECK_EQ(sizeof(struct tracebuf_rec_switch) % 8, 0);
	CHECK_EQ(sizeof(struct tracebuf_rec_task) % 8, 0);
	CHECK_EQ(sizeof(struct tracebuf_rec_user) % 8, 0);
	CHECK_EQ(sizeof(struct tracebuf_rec_test) % 8, 0);

	CHECK_EQ(TRACEBUF_REC_LOST, 1);
	CHECK_EQ(TRACEBUF_REC_AUX, 2);
	CHECK_EQ(TRACEBUF_REC_ITRACE_START, 3);
	CHECK_EQ(TRACEBUF_REC_CONFIG, 4);
	CHECK_EQ(TRACEBUF_REC_USER, 5);
	CHECK_EQ(TRACEBUF_REC_SWITCH, 7);
	CHECK_EQ(TRACEBUF_REC_TASK, 8);
	CHECK_EQ(TRACEBUF_REC_TEST, 0x7f00);
	CHECK_EQ(TRACEBUF_REC_F_DISCARD, 1);
	CHECK_EQ(TRACEBUF_LOST_RING_FULL, 1);
	CHECK_EQ(TRACEBUF_AUX_F_TRUNCATED, 1);
	CHECK_EQ(TRACEBUF_AUX_F_OVERWRITE, 2);
	CHECK_EQ(TRACEBUF_AUX_F_PARTIAL, 4);
	CHECK_EQ(TRACEBUF_AUX_F_COLLISION, 8);
	CHECK_EQ(TRACEBUF_CTX_TASK, 0);
	CHECK_EQ(TRACEBUF_CTX_SOFTIRQ, 1);
	CHECK_EQ(TRACEBUF_CTX_HARDIRQ, 2);
	CHECK_EQ(TRACEBUF_CTX_NMI, 3);
	CHECK_EQ(TRACEBUF_CTX_MAX, 4);
}

static void check_user_marker(void)
{
	FIELD(tracebuf_user_marker, size, 0, 4);
	FIELD(tracebuf_user_marker, flags, 4, 4);
	FIELD(tracebuf_user_marker, cookie, 8, 8);
	FIELD(tracebuf_user_marker, data_ptr, 16, 8);
	FIELD(tracebuf_user_marker, len, 24, 4);
	FIELD(tracebuf_user_marker, reserved0, 28, 4);
	FIELD(tracebuf_user_marker, reserved, 32, 16);
	CHECK_EQ(sizeof(struct tracebuf_user_marker), 48);
	CHECK_EQ(TRACEBUF_USER_MARKER_SIZE_VER0, 48);
	CHECK_EQ(TRACEBUF_USER_MARKER_SIZE_VER0, sizeof(struct tracebuf_user_marker));
	CHECK_EQ(TRACEBUF_USER_MARKER_MAX, 4096);
}

static void check_ioctl(const char *name, unsigned long cmd, unsigned int nr,
			unsigned int size)
{
	fprintf(stderr, "%s = %#lx\n", name, cmd);
	CHECK_EQ(_IOC_TYPE(cmd), TRACEBUF_IOC_MAGIC);
	CHECK_EQ(_IOC_NR(cmd), nr);
	CHECK_EQ(_IOC_DIR(cmd), _IOC_WRITE);
	CHECK_EQ(_IOC_SIZE(cmd), size);
	CHECK(_IOC_NR(cmd) != _IOC_NR(TRACEBUF_IOC_GET_INFO));
}

static void check_ioctls(void)
{
	check_ioctl("TRACEBUF_IOC_SETUP", TRACEBUF_IOC_SETUP, 0x01,
		    TRACEBUF_SETUP_SIZE_VER0);
	check_ioctl("TRACEBUF_IOC_USER_MARKER", TRACEBUF_IOC_USER_MARKER, 0x02,
		    TRACEBUF_USER_MARKER_SIZE_VER0);
	CHECK(_IOC_NR(TRACEBUF_IOC_SETUP) != _IOC_NR(TRACEBUF_IOC_USER_MARKER));
#if defined(__x86_64__) || defined(__i386__) || defined(__aarch64__) || defined(__arm__)
	/* The asm-generic encoding: the numbers userspace binaries contain. */
	CHECK_EQ(TRACEBUF_IOC_SETUP, 0x4068b901UL);
	CHECK_EQ(TRACEBUF_IOC_USER_MARKER, 0x4030b902UL);
#endif
}

static int cmp_u32(const void *a, const void *b)
{
	uint32_t x = *(const uint32_t *)a, y = *(const uint32_t *)b;

	return x < y ? -1 : x > y;
}

/*
 * The module and every consumer compute the same tag. Never zero (a zeroed
 * page is never committed); no two positions of the first MiB share one,
 * so a stale record of an earlier lap of any ring up to that size does not
 * look committed.
 */
static void check_commit_tag(void)
{
	const size_t n = (1U << 20) / 8 + 1;
	uint32_t *tags = malloc(n * sizeof(*tags));
	unsigned int zero = 0, dup = 0;
	size_t i;

	CHECK_EQ(tracebuf_commit_tag(0), 0x1);
	CHECK_EQ(tracebuf_commit_tag(8), 0xf1bbcdcb);
	CHECK_EQ(tracebuf_commit_tag(24), 0xd5336963);
	CHECK_EQ(tracebuf_commit_tag(4096), 0x779b97f5);
	CHECK_EQ(tracebuf_commit_tag(1ULL << 20), 0x9b97f4a7);
	CHECK_EQ(tracebuf_commit_tag((1ULL << 40) + 8), 0x3c37e2cb);

	if (!tags) {
		CHECK(tags != NULL);
		return;
	}
	for (i = 0; i < n; i++) {
		tags[i] = tracebuf_commit_tag((uint64_t)i * 8);
		zero += tags[i] == 0;
	}
	qsort(tags, n, sizeof(*tags), cmp_u32);
	for (i = 1; i < n; i++)
		dup += tags[i] == tags[i - 1];
	CHECK_EQ(zero, 0);
	CHECK_EQ(dup, 0);
	free(tags);
}

int main(void)
{
	check_setup();
	check_ctl();
	check_records();
	check_user_marker();
	check_ioctls();
	check_commit_tag();
	return check_done();
}
