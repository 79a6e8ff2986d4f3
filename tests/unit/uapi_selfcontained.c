/* SPDX-License-Identifier: GPL-2.0 */
/*
 * The UAPI header compiles on its own, in C and C++, with no warnings under
 * -pedantic. Compiled, not run.
 */
#include <tracebuf.h>

unsigned long uapi_use(const struct tracebuf_info *info,
		       const struct tracebuf_backend_desc *desc);

unsigned long uapi_use(const struct tracebuf_info *info,
		       const struct tracebuf_backend_desc *desc)
{
	enum tracebuf_backend_id id = TRACEBUF_BACKEND_INTEL_PT;

	return TRACEBUF_IOC_GET_INFO + info->abi_version + desc->id + id +
	       TRACEBUF_ABI_VERSION + TRACEBUF_BACKEND_F_EMULATED +
	       sizeof(TRACEBUF_DEVICE);
}
