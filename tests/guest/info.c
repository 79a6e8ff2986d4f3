// SPDX-License-Identifier: GPL-2.0
/*
 * GET_INFO: contents, the size-prefixed struct rules, reserved fields, the
 * backend array, and -ENOTTY for unknown ioctls.
 */
#include <stdint.h>
#include <sys/ioctl.h>
#include <sys/mman.h>

#include <libtracebuf.h>
#include "tbtest.h"

static void init_info(struct tracebuf_info *i)
{
	memset(i, 0, sizeof(*i));
	i->size = sizeof(*i);
}

int main(void)
{
	struct tracebuf_backend_desc descs[4];
	struct tracebuf_session s;
	struct tracebuf_info info;
	unsigned char big[sizeof(info) + 64];
	char *page;
	int fd, ret;

	if (tbt_modprobe("tracebuf"))
		return 1;
	fd = open(TRACEBUF_DEVICE, O_RDWR);
	TBT_CHECK(fd >= 0, "open: %s", strerror(errno));
	if (fd < 0)
		return tbt_done();

	/* The basic answer. */
	init_info(&info);
	TBT_CHECK(ioctl(fd, TRACEBUF_IOC_GET_INFO, &info) == 0, "GET_INFO: %s", strerror(errno));
	TBT_CHECK(info.abi_version == TRACEBUF_ABI_VERSION, "abi %u", info.abi_version);
	TBT_CHECK(info.page_size == (uint32_t)getpagesize(), "page size %u", info.page_size);
	TBT_CHECK(info.nr_cpu_ids >= 1 && info.nr_cpu_ids <= 8192, "nr_cpu_ids %u", info.nr_cpu_ids);
	TBT_CHECK(info.size == sizeof(info), "size out %u", info.size);
	TBT_CHECK(strlen(info.module_version) > 0 &&
		  strlen(info.module_version) < sizeof(info.module_version), "version");
	TBT_CHECK(info.nr_backends == 0, "no trace hardware here, got %u backends", info.nr_backends);
	printf("module %s abi %u page %u cpus %u backends %u\n", info.module_version,
	       info.abi_version, info.page_size, info.nr_cpu_ids, info.nr_backends);

	/* Too small a size. */
	init_info(&info);
	info.size = TRACEBUF_INFO_SIZE_VER0 - 8;
	TBT_ERRNO(ioctl(fd, TRACEBUF_IOC_GET_INFO, &info), EINVAL);
	info.size = 0;
	TBT_ERRNO(ioctl(fd, TRACEBUF_IOC_GET_INFO, &info), EINVAL);

	/* Larger than the kernel knows: zero tail accepted, output capped. */
	memset(big, 0, sizeof(big));
	((struct tracebuf_info *)big)->size = sizeof(big);
	memset(big + sizeof(info), 0xee, 8);
	TBT_CHECK(ioctl(fd, TRACEBUF_IOC_GET_INFO, big) == -1 && errno == E2BIG,
		  "non-zero tail: errno %d", errno);
	memset(big + sizeof(info), 0, 8);
	TBT_CHECK(ioctl(fd, TRACEBUF_IOC_GET_INFO, big) == 0, "zero tail: %s", strerror(errno));
	TBT_CHECK(((struct tracebuf_info *)big)->size == sizeof(info),
		  "size out %u", ((struct tracebuf_info *)big)->size);
	TBT_CHECK(big[sizeof(info)] == 0, "kernel wrote beyond its struct");
	((struct tracebuf_info *)big)->size = 1u << 20;
	TBT_ERRNO(ioctl(fd, TRACEBUF_IOC_GET_INFO, big), E2BIG);

	/* Reserved fields must be zero. */
	init_info(&info);
	info.reserved0 = 1;
	TBT_ERRNO(ioctl(fd, TRACEBUF_IOC_GET_INFO, &info), EINVAL);
	init_info(&info);
	info.reserved[3] = 1;
	TBT_ERRNO(ioctl(fd, TRACEBUF_IOC_GET_INFO, &info), EINVAL);

	/* Backend array rules. */
	init_info(&info);
	info.backends_max = 4;
	info.backend_desc_size = sizeof(descs[0]);
	info.backends_ptr = 0;
	TBT_ERRNO(ioctl(fd, TRACEBUF_IOC_GET_INFO, &info), EINVAL);
	init_info(&info);
	info.backends_max = 4;
	info.backend_desc_size = TRACEBUF_BACKEND_DESC_SIZE_VER0 - 1;
	info.backends_ptr = (uintptr_t)descs;
	TBT_ERRNO(ioctl(fd, TRACEBUF_IOC_GET_INFO, &info), EINVAL);
	init_info(&info);
	memset(descs, 0x5a, sizeof(descs));
	info.backends_max = 4;
	info.backend_desc_size = sizeof(descs[0]);
	info.backends_ptr = (uintptr_t)descs;
	TBT_CHECK(ioctl(fd, TRACEBUF_IOC_GET_INFO, &info) == 0, "with array: %s", strerror(errno));
	TBT_CHECK(((unsigned char *)descs)[0] == 0x5a, "array written with no backends present");

	/* Bad pointers: -EFAULT, never an oops. */
	TBT_ERRNO(ioctl(fd, TRACEBUF_IOC_GET_INFO, NULL), EFAULT);
	TBT_ERRNO(ioctl(fd, TRACEBUF_IOC_GET_INFO, (void *)16), EFAULT);
	page = mmap(NULL, 4096, PROT_READ, MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
	if (page != MAP_FAILED) {
		/* Readable but not writable: the copy-out must fail cleanly. */
		((void)0);
		TBT_CHECK(ioctl(fd, TRACEBUF_IOC_GET_INFO, page) == -1, "read-only struct accepted");
		munmap(page, 4096);
	}

	/* Unknown ioctls: -ENOTTY, whatever the encoding. */
	TBT_ERRNO(ioctl(fd, _IO(TRACEBUF_IOC_MAGIC, 0x7f)), ENOTTY);
	TBT_ERRNO(ioctl(fd, _IOWR(TRACEBUF_IOC_MAGIC, 0x00, struct tracebuf_info[2])), ENOTTY);
	TBT_ERRNO(ioctl(fd, _IOR('T', 1, int)), ENOTTY);
	TBT_ERRNO(ioctl(fd, 0), ENOTTY);

	/* Not seekable. */
	TBT_ERRNO(lseek(fd, 0, SEEK_SET), ESPIPE);
	close(fd);

	/* The same through the client library. */
	ret = tracebuf_open(&s, 0);
	TBT_CHECK(ret == 0, "tracebuf_open: %d", ret);
	if (ret == 0) {
		ret = tracebuf_get_info(&s, &info, descs, 4);
		TBT_CHECK(ret == 0, "tracebuf_get_info: %d", ret);
		TBT_CHECK(info.abi_version == TRACEBUF_ABI_VERSION, "lib abi");
		TBT_CHECK(strcmp(info.module_version, tracebuf_version()) == 0,
			  "module %s, library %s", info.module_version, tracebuf_version());
		tracebuf_close(&s);
	}
	return tbt_done();
}
