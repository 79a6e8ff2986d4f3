/* SPDX-License-Identifier: GPL-2.0 */
/* Host stand-in for the kernel's <linux/bits.h>. */
#ifndef TB_SHIM_LINUX_BITS_H
#define TB_SHIM_LINUX_BITS_H

#define BIT(nr)			(1UL << (nr))
#define BIT_ULL(nr)		(1ULL << (nr))
#define GENMASK(h, l)		((~0UL << (l)) & (~0UL >> (8 * sizeof(long) - 1 - (h))))
#define GENMASK_ULL(h, l)	((~0ULL << (l)) & (~0ULL >> (63 - (h))))

#endif /* TB_SHIM_LINUX_BITS_H */
