/* SPDX-License-Identifier: GPL-2.0 */
/* Host stand-in for the kernel's <linux/string.h>: memset and friends. */
#ifndef TB_SHIM_LINUX_STRING_H
#define TB_SHIM_LINUX_STRING_H

#include <string.h>

#endif /* TB_SHIM_LINUX_STRING_H */
