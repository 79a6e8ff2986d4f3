/* SPDX-License-Identifier: GPL-2.0 */
/*
 * The UAPI header compiles on its own, in C and C++, with no warnings under
 * -pedantic. Compiled, not run.
 */
#include <tracebuf.h>

unsigned long uapi_use(const struct tracebuf_info *info,
		       const struct tracebuf_backend_desc *desc);
unsigned long uapi_ring(const struct tracebuf_ctl *ctl, const struct tracebuf_setup *setup,
			const struct tracebuf_rec_user *rec,
			const struct tracebuf_user_marker *m);

unsigned long uapi_use(const struct tracebuf_info *info,
		       const struct tracebuf_backend_desc *desc)
{
	enum tracebuf_backend_id id = TRACEBUF_BACKEND_INTEL_PT;

	return TRACEBUF_IOC_GET_INFO + info->abi_version + desc->id + id +
	       TRACEBUF_ABI_VERSION + TRACEBUF_BACKEND_F_EMULATED +
	       sizeof(TRACEBUF_DEVICE);
}

unsigned long uapi_ring(const struct tracebuf_ctl *ctl, const struct tracebuf_setup *setup,
			const struct tracebuf_rec_user *rec,
			const struct tracebuf_user_marker *m)
{
	enum tracebuf_target target = TRACEBUF_TARGET_CPU;
	enum tracebuf_rec_type type = TRACEBUF_REC_TEST;
	enum tracebuf_test_context ctx = TRACEBUF_CTX_NMI;
	enum tracebuf_lost_reason reason = TRACEBUF_LOST_RING_FULL;

	return TRACEBUF_IOC_SETUP + TRACEBUF_IOC_USER_MARKER + ctl->data_head +
	       setup->data_size + rec->cookie + m->len + target + type + ctx + reason +
	       tracebuf_commit_tag(ctl->data_tail) + TRACEBUF_DATA_SIZE_MAX +
	       TRACEBUF_REC_F_DISCARD + TRACEBUF_CTL_F_READONLY + TRACEBUF_AUX_F_COLLISION +
	       sizeof(struct tracebuf_rec_lost) + sizeof(struct tracebuf_rec_aux) +
	       sizeof(struct tracebuf_rec_itrace_start) + sizeof(struct tracebuf_rec_config) +
	       sizeof(struct tracebuf_rec_test) + sizeof(TRACEBUF_BACKEND_AUTO) +
	       sizeof(TRACEBUF_BACKEND_DATA);
}
