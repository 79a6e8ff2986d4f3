// SPDX-License-Identifier: GPL-2.0
/*
 * Every bad SETUP field, bad mmap and call in the wrong state gets its
 * documented errno; the mapping refuses partial munmap and growth, and is
 * not inherited across fork.
 */
#include <setjmp.h>
#include <signal.h>
#include <stdint.h>
#include <sys/ioctl.h>
#include <sys/mman.h>

#include <tracebuf.h>
#include "tbtest.h"

static long pg;

static void init_setup(struct tracebuf_setup *su)
{
	memset(su, 0, sizeof(*su));
	su->size = sizeof(*su);
	su->target = TRACEBUF_TARGET_CPU;
	strcpy(su->backend, TRACEBUF_BACKEND_DATA);
}

static int fresh(void)
{
	int fd = open(TRACEBUF_DEVICE, O_RDWR);

	TBT_CHECK(fd >= 0, "open: %s", strerror(errno));
	return fd;
}

static void setup_errors(void)
{
	struct tracebuf_setup su;
	unsigned char big[sizeof(su) + 16];
	uint64_t cpus[2] = { 0, 0 };
	int fd = fresh();

#define BAD(field_stmt, e) do {						\
		init_setup(&su);					\
		field_stmt;						\
		TBT_ERRNO(ioctl(fd, TRACEBUF_IOC_SETUP, &su), e);	\
	} while (0)

	BAD(su.size = TRACEBUF_SETUP_SIZE_VER0 - 8, EINVAL);
	BAD(su.size = 4096 * 2, E2BIG);
	BAD(su.flags = 2, EINVAL);	/* INHERIT (bit 1) without TARGET_TASK */
	BAD(su.flags = 8, EINVAL);	/* bits 0-2: NO_TIME, INHERIT, COMPACT */
	BAD(su.flags = 1U << 31, EINVAL);
	/* Compact records for data-only sessions only. */
	BAD((su.flags = TRACEBUF_SETUP_F_COMPACT, strcpy(su.backend, TRACEBUF_BACKEND_AUTO)),
	    EINVAL);
	BAD((su.flags = TRACEBUF_SETUP_F_COMPACT, strcpy(su.backend, "intel_pt")), EINVAL);
	BAD((su.flags = TRACEBUF_SETUP_F_COMPACT, strcpy(su.backend, "coresight")), EINVAL);
	BAD(su.reserved[0] = 1, EINVAL);
	BAD(su.target = 0, EINVAL);
	BAD(su.target = 4, EINVAL);	/* 3 is TARGET_TASK */
	BAD(su.cpu = 100000, EINVAL);
	BAD(su.cpuset_size = 8, EINVAL);	/* set with TARGET_CPU */
	BAD(memset(su.backend, 'x', sizeof(su.backend)), EINVAL);
	BAD(strcpy(su.backend, "no_such_hw"), ENODEV);
	BAD(strcpy(su.backend, TRACEBUF_BACKEND_AUTO), ENODEV);	/* nothing present */
	BAD(su.backend[0] = 0, ENODEV);
	BAD(su.data_size = 3 * pg, EINVAL);
	BAD(su.data_size = pg / 2, EINVAL);
	BAD(su.data_size = 1ULL << 40, EINVAL);
	BAD((su.data_size = pg, su.data_watermark = 2 * pg), EINVAL);
	BAD((su.target = TRACEBUF_TARGET_CPUSET, su.cpuset_ptr = (uintptr_t)cpus,
	     su.cpuset_size = 8), EINVAL);			/* empty set */
	cpus[0] = 1;
	BAD((su.target = TRACEBUF_TARGET_CPUSET, su.cpuset_ptr = (uintptr_t)cpus,
	     su.cpuset_size = 4), EINVAL);			/* not a multiple of 8 */
	BAD((su.target = TRACEBUF_TARGET_CPUSET, su.cpuset_ptr = 16,
	     su.cpuset_size = 8), EFAULT);
	cpus[1] = 1ULL << 63;					/* CPU 127 */
	BAD((su.target = TRACEBUF_TARGET_CPUSET, su.cpuset_ptr = (uintptr_t)cpus,
	     su.cpuset_size = 16), EINVAL);
	TBT_ERRNO(ioctl(fd, TRACEBUF_IOC_SETUP, NULL), EFAULT);

	/* Good ones: a larger struct with a zero tail, a CPU set. */
	memset(big, 0, sizeof(big));
	init_setup((struct tracebuf_setup *)big);
	((struct tracebuf_setup *)big)->size = sizeof(big);
	TBT_CHECK(ioctl(fd, TRACEBUF_IOC_SETUP, big) == 0, "zero tail: %s", strerror(errno));
	big[sizeof(su) + 3] = 1;
	TBT_ERRNO(ioctl(fd, TRACEBUF_IOC_SETUP, big), E2BIG);
	cpus[1] = 0;
	init_setup(&su);
	su.target = TRACEBUF_TARGET_CPUSET;
	su.cpuset_ptr = (uintptr_t)cpus;
	su.cpuset_size = 16;
	TBT_CHECK(ioctl(fd, TRACEBUF_IOC_SETUP, &su) == 0, "cpuset: %s", strerror(errno));
	/* SETUP may be repeated until the ring exists. */
	init_setup(&su);
	su.flags = TRACEBUF_SETUP_F_COMPACT | TRACEBUF_SETUP_F_NO_TIME;
	TBT_CHECK(ioctl(fd, TRACEBUF_IOC_SETUP, &su) == 0, "compact: %s", strerror(errno));
	init_setup(&su);
	TBT_CHECK(ioctl(fd, TRACEBUF_IOC_SETUP, &su) == 0, "again: %s", strerror(errno));
	close(fd);
#undef BAD
}

static sigjmp_buf jb;

static void on_segv(int sig)
{
	(void)sig;
	siglongjmp(jb, 1);
}

static void mmap_errors(void)
{
	struct tracebuf_setup su;
	struct tracebuf_user_marker m = { .size = sizeof(m) };
	size_t len = pg + 2 * 4 * pg;
	char buf[64];
	void *p, *q;
	int fd = fresh(), st;
	pid_t child;

	/* Before SETUP. */
	TBT_CHECK(mmap(NULL, len, PROT_READ | PROT_WRITE, MAP_SHARED, fd, 0) == MAP_FAILED &&
		  errno == ENXIO, "mmap before SETUP: %s", strerror(errno));
	TBT_ERRNO(ioctl(fd, TRACEBUF_IOC_USER_MARKER, &m), ENXIO);
	TBT_ERRNO(read(fd, buf, sizeof(buf)), ENXIO);
	init_setup(&su);
	TBT_CHECK(ioctl(fd, TRACEBUF_IOC_SETUP, &su) == 0, "setup");

	/* Lengths: 1 + 2 * 2^n pages only. */
	TBT_CHECK(mmap(NULL, pg, PROT_READ, MAP_SHARED, fd, 0) == MAP_FAILED && errno == EINVAL, "1 page");
	TBT_CHECK(mmap(NULL, 2 * pg, PROT_READ, MAP_SHARED, fd, 0) == MAP_FAILED && errno == EINVAL, "2 pages");
	TBT_CHECK(mmap(NULL, pg + 2 * 3 * pg, PROT_READ, MAP_SHARED, fd, 0) == MAP_FAILED &&
		  errno == EINVAL, "3 data pages");
	TBT_CHECK(mmap(NULL, pg + 3 * pg, PROT_READ, MAP_SHARED, fd, 0) == MAP_FAILED &&
		  errno == EINVAL, "odd length");
	TBT_CHECK(mmap(NULL, len, PROT_READ, MAP_PRIVATE, fd, 0) == MAP_FAILED && errno == EINVAL,
		  "private: %s", strerror(errno));
	TBT_CHECK(mmap(NULL, len, PROT_READ | PROT_EXEC, MAP_SHARED, fd, 0) == MAP_FAILED &&
		  errno == EPERM, "exec: %s", strerror(errno));
	/* A non-zero offset is the AUX area, which needs the data mapping. */
	TBT_CHECK(mmap(NULL, len, PROT_READ, MAP_SHARED, fd, pg) == MAP_FAILED && errno == ENXIO,
		  "offset: %s", strerror(errno));

	p = mmap(NULL, len, PROT_READ | PROT_WRITE, MAP_SHARED, fd, 0);
	TBT_CHECK(p != MAP_FAILED, "good mmap: %s", strerror(errno));
	if (p == MAP_FAILED)
		return;
	TBT_CHECK(((struct tracebuf_ctl *)p)->data_size == (uint64_t)4 * pg, "data_size");
	TBT_CHECK(((struct tracebuf_ctl *)p)->data_offset == (uint64_t)pg, "data_offset");
	/* The data pages appear twice. */
	TBT_CHECK(memcmp((char *)p + pg, (char *)p + pg + 4 * pg, 4 * pg) == 0, "double map");

	/* Now the setup is final, and read() is the other consumer. */
	init_setup(&su);
	TBT_ERRNO(ioctl(fd, TRACEBUF_IOC_SETUP, &su), EBUSY);
	TBT_ERRNO(read(fd, buf, sizeof(buf)), EBUSY);
	/* Another mapping must have the same size. */
	TBT_CHECK(mmap(NULL, pg + 2 * 8 * pg, PROT_READ, MAP_SHARED, fd, 0) == MAP_FAILED &&
		  errno == EINVAL, "other size");
	q = mmap(NULL, len, PROT_READ, MAP_SHARED, fd, 0);
	TBT_CHECK(q != MAP_FAILED, "second mapping: %s", strerror(errno));
	if (q != MAP_FAILED) {
		/* Read-only stays read-only. */
		TBT_ERRNO(mprotect(q, len, PROT_READ | PROT_WRITE), EACCES);
		munmap(q, len);
	}
	/* Partial munmap, growth. */
	TBT_ERRNO(munmap((char *)p + pg, pg), EINVAL);
	q = mremap(p, len, len + 2 * pg, 0);
	TBT_CHECK(q == MAP_FAILED, "mremap growth allowed");

	/* Not inherited across fork: the child faults, the parent is fine. */
	child = fork();
	if (child == 0) {
		signal(SIGSEGV, on_segv);
		if (sigsetjmp(jb, 1))
			_exit(0);
		(void)*(volatile char *)p;
		_exit(1);
	}
	waitpid(child, &st, 0);
	TBT_CHECK(WIFEXITED(st) && WEXITSTATUS(st) == 0, "child saw the mapping");
	TBT_CHECK(((struct tracebuf_ctl *)p)->abi_version == TRACEBUF_ABI_VERSION, "parent lost it");

	munmap(p, len);
	close(fd);

	/* read() first, then mmap is refused. */
	fd = fresh();
	init_setup(&su);
	su.data_size = pg;
	TBT_CHECK(ioctl(fd, TRACEBUF_IOC_SETUP, &su) == 0, "setup with data_size");
	TBT_CHECK(fcntl(fd, F_SETFL, O_NONBLOCK) == 0, "nonblock");
	TBT_ERRNO(read(fd, buf, sizeof(buf)), EAGAIN);
	TBT_CHECK(mmap(NULL, pg + 2 * pg, PROT_READ, MAP_SHARED, fd, 0) == MAP_FAILED &&
		  errno == EBUSY, "mmap after read: %s", strerror(errno));
	TBT_ERRNO(ioctl(fd, TRACEBUF_IOC_SETUP, &su), EBUSY);
	close(fd);
}

int main(void)
{
	pg = sysconf(_SC_PAGESIZE);
	if (tbt_modprobe("tracebuf"))
		return 1;
	setup_errors();
	mmap_errors();
	return tbt_done();
}
