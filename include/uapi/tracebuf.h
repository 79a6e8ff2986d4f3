/* SPDX-License-Identifier: GPL-2.0 WITH Linux-syscall-note */
/*
 * tracebuf - instruction-trace sessions on /dev/tracebuf.
 *
 * This header is the single contract between the tracebuf kernel module and
 * userspace. It uses fixed-width types only and compiles on its own.
 *
 * Versioning rules:
 *  - TRACEBUF_ABI_VERSION is bumped only for an incompatible change, which
 *    we do not make: the ABI grows by adding ioctls and by appending fields
 *    to size-prefixed structs.
 *  - Every struct passed through an ioctl starts with a __u32 'size' that
 *    the caller sets to sizeof() of the struct as it knows it. The kernel
 *    accepts any size from the first published layout (TRACEBUF_*_SIZE_VER0)
 *    up. Bytes beyond what the kernel knows must be zero, else -E2BIG;
 *    missing trailing fields read as zero. On output the kernel writes back
 *    no more than 'size' bytes.
 *  - Fields named reserved* must be zero on input (-EINVAL otherwise) and
 *    are returned as zero.
 *  - Ioctl numbers encode the VER0 size and never change.
 */
#ifndef _UAPI_TRACEBUF_H
#define _UAPI_TRACEBUF_H

#include <linux/types.h>
#include <linux/ioctl.h>

#define TRACEBUF_ABI_VERSION	1

/* Device node, created by the misc device core (mode 0600 by default). */
#define TRACEBUF_DEVICE		"/dev/tracebuf"

/* One magic for every tracebuf ioctl. */
#define TRACEBUF_IOC_MAGIC	0xB9

/* Trace backend identifiers (struct tracebuf_backend_desc.id). */
enum tracebuf_backend_id {
	TRACEBUF_BACKEND_NONE		= 0,
	TRACEBUF_BACKEND_INTEL_PT	= 1,
	TRACEBUF_BACKEND_CORESIGHT	= 2,
};

/* struct tracebuf_backend_desc.flags */
#define TRACEBUF_BACKEND_F_EMULATED	(1U << 0) /* registers come from an emulator */

#define TRACEBUF_NAME_LEN	16
#define TRACEBUF_VERSION_LEN	32

/*
 * One trace backend present on this machine, as reported by GET_INFO.
 * Entries are written to the array at tracebuf_info.backends_ptr with a
 * stride of tracebuf_info.backend_desc_size bytes.
 */
struct tracebuf_backend_desc {
	char	name[TRACEBUF_NAME_LEN];	/* "intel_pt", NUL-terminated */
	__u32	id;				/* enum tracebuf_backend_id */
	__u32	flags;				/* TRACEBUF_BACKEND_F_* */
	__u32	nr_cpus;			/* CPUs this backend can trace */
	__u32	caps_size;			/* bytes of capability data */
	__u64	reserved[2];
};

#define TRACEBUF_BACKEND_DESC_SIZE_VER0	48

/*
 * TRACEBUF_IOC_GET_INFO - what this module and machine offer.
 *
 * In: size, backends_max, backend_desc_size, backends_ptr; reserved = 0.
 * Out: everything else. nr_backends is the number present, which may exceed
 * backends_max: then only backends_max entries are written.
 *
 * Errors:
 *  -EFAULT  the struct or the backend array is not accessible
 *  -EINVAL  size < TRACEBUF_INFO_SIZE_VER0, a reserved field is not zero,
 *           or backends_max > 0 with backend_desc_size <
 *           TRACEBUF_BACKEND_DESC_SIZE_VER0 or backends_ptr == 0
 *  -E2BIG   size > what the kernel knows and the extra bytes are not zero
 */
struct tracebuf_info {
	__u32	size;			/* in: sizeof(struct tracebuf_info) */
	__u32	abi_version;		/* out: TRACEBUF_ABI_VERSION */
	__u32	page_size;		/* out: the kernel's PAGE_SIZE */
	__u32	nr_cpu_ids;		/* out: CPU numbers are below this */
	__u32	nr_backends;		/* out: backends present */
	__u32	backends_max;		/* in: entries at backends_ptr */
	__u32	backend_desc_size;	/* in: stride of that array */
	__u32	reserved0;
	__u64	backends_ptr;		/* in: struct tracebuf_backend_desc[] */
	char	module_version[TRACEBUF_VERSION_LEN];	/* out */
	__u64	reserved[4];
};

#define TRACEBUF_INFO_SIZE_VER0		104

#define TRACEBUF_IOC_GET_INFO \
	_IOC(_IOC_READ | _IOC_WRITE, TRACEBUF_IOC_MAGIC, 0x00, TRACEBUF_INFO_SIZE_VER0)

#endif /* _UAPI_TRACEBUF_H */
