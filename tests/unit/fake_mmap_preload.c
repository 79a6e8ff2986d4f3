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
 * number): the data / AUX mapping fails with it.
 */
#include <errno.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/stat.h>
#include <sys/syscall.h>
#include <unistd.h>

#include <tracebuf.h>

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
	if (p == MAP_FAILED || off)
		return p;
	ctl = p;
	memset(ctl, 0, sizeof(*ctl));
	ctl->abi_version = TRACEBUF_ABI_VERSION;
	ctl->ctl_size = sizeof(*ctl);
	ctl->page_size = (__u32)page;
	ctl->data_offset = (__u64)page;
	ctl->data_size = (len - (size_t)page) / 2;
	ctl->clock_id = 1;
	return p;
}
