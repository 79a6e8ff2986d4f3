/* SPDX-License-Identifier: GPL-2.0 */
/*
 * mmap() and munmap() for a test program linked with libtracebuf.so: the
 * definitions here take the library's calls (the C library's own calls do
 * not go through these symbols). They count and record every call and
 * either pass it to the kernel, or, with fake_mmap.emulate, answer as the
 * module would: an anonymous mapping of the length asked for, with the
 * control page fake_mmap.ctl at its start (offset 0), or zeroed (the AUX
 * area, at any other offset).
 */
#include <errno.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/syscall.h>
#include <unistd.h>

#include "fake_mmap.h"

struct fake_mmap fake_mmap;

static void *sys_mmap(void *addr, size_t len, int prot, int flags, int fd, off_t off)
{
#ifdef SYS_mmap2
	return (void *)syscall(SYS_mmap2, addr, len, prot, flags, fd, off / 4096);
#else
	return (void *)syscall(SYS_mmap, addr, len, prot, flags, fd, off);
#endif
}

void *mmap(void *addr, size_t len, int prot, int flags, int fd, off_t off)
{
	void *p;

	fake_mmap.calls++;
	fake_mmap.last_addr = addr;
	fake_mmap.last_len = len;
	fake_mmap.last_prot = prot;
	fake_mmap.last_flags = flags;
	fake_mmap.last_fd = fd;
	fake_mmap.last_off = off;

	if (!fake_mmap.emulate) {
		p = sys_mmap(addr, len, prot, flags, fd, off);
	} else if (fake_mmap.err) {
		errno = fake_mmap.err;
		p = MAP_FAILED;
	} else {
		p = sys_mmap(NULL, len, PROT_READ | PROT_WRITE,
			     MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
		if (p != MAP_FAILED && !off)
			memcpy(p, &fake_mmap.ctl, sizeof(fake_mmap.ctl));
	}
	fake_mmap.last_ret = p;
	return p;
}

int munmap(void *addr, size_t len)
{
	fake_mmap.munmap_calls++;
	fake_mmap.munmap_addr = addr;
	fake_mmap.munmap_len = len;
	return (int)syscall(SYS_munmap, addr, len);
}
