/* SPDX-License-Identifier: GPL-2.0 */
/*
 * Intel PT: holding a CPU's unit against perf's intel_pt (pt_claim.c).
 */
#ifndef _TRACEBUF_PT_CLAIM_H
#define _TRACEBUF_PT_CLAIM_H

#include <linux/types.h>

struct tb_session;

int tb_pt_claim_init(void);
void tb_pt_claim_exit(void);
int tb_pt_claim(struct tb_session *s, unsigned int cpu);
void tb_pt_unclaim(struct tb_session *s, unsigned int cpu);
bool tb_pt_claim_held(const struct tb_session *s, unsigned int cpu);

#endif /* _TRACEBUF_PT_CLAIM_H */
