/* SPDX-License-Identifier: GPL-2.0 */
/*
 * mmap() for the tool under LD_PRELOAD, with fake_ioctl.c in the same
 * object: a mapping of a FIFO (the stand-in for /dev/tracebuf, which
 * epoll accepts) is answered as the module would answer it: offset 0 an
 * anonymous mapping whose first page is a valid control page for the
 * length asked for, any other offset (the AUX area) zeroed. Every other
 * mapping goes to the kernel.
 *
 * Environment: FAKE_TB_MMAP_DATA_ERR, FAKE_TB_MMAP_AUX_ERR (an errno
 * number): the data / AUX mapping fails with it. FAKE_TB_PRODUCE: at
 * ENABLE (fake_ioctl.c calls fake_tb_produce()), the session gets what
 * the module and the hardware would have written: AUX bytes and the data
 * records below, published as the module publishes them.
 */
#include <errno.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/stat.h>
#include <sys/syscall.h>
#include <time.h>
#include <unistd.h>

#include "fake_ioctl.h"

#include <tracebuf.h>

/* The mappings of each fd (the tool opens one per session). */
#define FAKE_FDS	64

static struct {
	struct tracebuf_ctl *ctl;
	unsigned char *aux;
	size_t aux_len;
} maps[FAKE_FDS];

static void *sys_mmap(void *addr, size_t len, int prot, int flags, int fd, off_t off)
{
#ifdef SYS_mmap2
	return (void *)syscall(SYS_mmap2, addr, len, prot, flags, fd, off / 4096);
#else
	return (void *)syscall(SYS_mmap, addr, len, prot, flags, fd, off);
#endif
}

static int env_errno(const char *name)
{
	const char *v = getenv(name);

	return v ? atoi(v) : 0;
}

void *mmap(void *addr, size_t len, int prot, int flags, int fd, off_t off)
{
	long page = sysconf(_SC_PAGESIZE);
	struct tracebuf_ctl *ctl;
	struct stat st;
	void *p;
	int err;

	if (fd < 0 || fstat(fd, &st) || !S_ISFIFO(st.st_mode))
		return sys_mmap(addr, len, prot, flags, fd, off);
	err = env_errno(off ? "FAKE_TB_MMAP_AUX_ERR" : "FAKE_TB_MMAP_DATA_ERR");
	if (err) {
		errno = err;
		return MAP_FAILED;
	}
	p = sys_mmap(NULL, len, PROT_READ | PROT_WRITE, MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
	if (p == MAP_FAILED)
		return p;
	if (off) {
		if (fd < FAKE_FDS) {
			maps[fd].aux = p;
			maps[fd].aux_len = len;
		}
		return p;
	}
	ctl = p;
	if (fd < FAKE_FDS)
		maps[fd].ctl = ctl;
	memset(ctl, 0, sizeof(*ctl));
	ctl->abi_version = TRACEBUF_ABI_VERSION;
	ctl->ctl_size = sizeof(*ctl);
	ctl->page_size = (__u32)page;
	ctl->data_offset = (__u64)page;
	ctl->data_size = (len - (size_t)page) / 2;
	ctl->clock_id = 1;
	return p;
}

/* ---- FAKE_TB_PRODUCE ------------------------------------------------------ */

static uint64_t head;		/* producer position in the data ring */
static uint64_t mono;		/* CLOCK_MONOTONIC at ENABLE: the records' time */

static void *record(struct tracebuf_ctl *ctl, uint16_t type, size_t size)
{
	unsigned char *data = (unsigned char *)ctl + ctl->data_offset;
	struct tracebuf_record *r = (void *)(data + (head & (ctl->data_size - 1)));

	size = (size + 7) & ~(size_t)7;
	memset(r, 0, size);
	r->hdr.size = (__u32)size;
	r->hdr.type = type;
	r->cpu = 0;
	r->time = mono + head;
	r->commit = tracebuf_commit_tag(head);
	head += size;
	return r;
}

static void span(struct tracebuf_ctl *ctl, unsigned char *aux, size_t aux_len, __u64 off,
		 __u64 size, __u64 flags)
{
	struct tracebuf_rec_aux *a = record(ctl, TRACEBUF_REC_AUX, sizeof(*a));
	__u64 i;

	for (i = 0; i < size; i++)
		aux[(off + i) % aux_len] = (unsigned char)(off + i);
	a->aux_offset = off;
	a->aux_size = size;
	a->flags = flags;
}

/*
 * CPU 0's session (any other: nothing): with the per-task target, a
 * SWITCH IN flagged EXEC of the traced process first; a span, a LOST record (3 records),
 * a LOST AUX_OVERRUN (100 bytes, a lower bound), 100 bytes published
 * without a record, a TRUNCATED span, a marker and a record of a type the
 * tool does not know (per-task: its SWITCH OUT and a TASK FORK of pid + 1).
 * 5000 AUX bytes in the capture.
 */
void fake_tb_produce(int fd);
void fake_tb_produce(int fd)
{
	struct tracebuf_ctl *ctl = fd >= 0 && fd < FAKE_FDS ? maps[fd].ctl : NULL;
	unsigned char *aux = fd >= 0 && fd < FAKE_FDS ? maps[fd].aux : NULL;
	size_t aux_len = maps[fd < FAKE_FDS && fd >= 0 ? fd : 0].aux_len;
	struct tracebuf_rec_lost *l;
	struct tracebuf_rec_user *u;
	struct tracebuf_rec_switch *sw;
	struct tracebuf_rec_task *tk;
	struct timespec ts;

	if (!getenv("FAKE_TB_PRODUCE") || !ctl || !aux || aux_len < 8192 || head)
		return;
	clock_gettime(CLOCK_MONOTONIC, &ts);
	mono = (uint64_t)ts.tv_sec * 1000000000ULL + (uint64_t)ts.tv_nsec;
	if (fake_tb.task_pid) {
		/* The per-task target: the process's run after its exec, its bytes. */
		sw = record(ctl, TRACEBUF_REC_SWITCH, sizeof(*sw));
		sw->pid = sw->tid = (__u32)fake_tb.task_pid;
		sw->flags = TRACEBUF_SWITCH_F_EXEC;
	}
	span(ctl, aux, aux_len, 0, 3000, 0);
	l = record(ctl, TRACEBUF_REC_LOST, sizeof(*l));
	l->reason = TRACEBUF_LOST_RING_FULL;
	l->count = 3;
	l = record(ctl, TRACEBUF_REC_LOST, sizeof(*l));
	l->reason = TRACEBUF_LOST_AUX_OVERRUN;
	l->count = 100;
	l->flags = TRACEBUF_LOST_F_AT_LEAST;
	span(ctl, aux, aux_len, 3100, 2000, TRACEBUF_AUX_F_TRUNCATED);
	u = record(ctl, TRACEBUF_REC_USER, sizeof(*u) + 8);
	u->cookie = 0xfeed;
	u->len = 5;
	memcpy(u + 1, "hello", 5);
	record(ctl, 0x7f01, 40);
	if (fake_tb.task_pid) {
		sw = record(ctl, TRACEBUF_REC_SWITCH, sizeof(*sw));
		sw->aux_offset = 5100;
		sw->pid = sw->tid = (__u32)fake_tb.task_pid;
		sw->flags = TRACEBUF_SWITCH_F_OUT;
		tk = record(ctl, TRACEBUF_REC_TASK, sizeof(*tk));
		tk->pid = (__u32)fake_tb.task_pid + 1;
		tk->ppid = (__u32)fake_tb.task_pid;
		tk->reason = TRACEBUF_TASK_FORK;
	}
	__atomic_store_n(&ctl->aux_head, 5100, __ATOMIC_RELEASE);
	__atomic_store_n(&ctl->data_head, head, __ATOMIC_RELEASE);
}
