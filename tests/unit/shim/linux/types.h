/* SPDX-License-Identifier: GPL-2.0 */
/*
 * Host stand-in for the kernel's <linux/types.h>, for module code built
 * natively by the unit tests (-Ishim): the UAPI header plus the kernel's
 * short type names.
 */
#ifndef TB_SHIM_LINUX_TYPES_H
#define TB_SHIM_LINUX_TYPES_H

#include_next <linux/types.h>
#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

typedef uint64_t u64;
typedef uint32_t u32;
typedef uint16_t u16;
typedef uint8_t u8;
typedef int64_t s64;
typedef int32_t s32;

#endif /* TB_SHIM_LINUX_TYPES_H */
