/* SPDX-License-Identifier: GPL-2.0 */
/*
 * ptemu_follow_abi.h - what the follow helper (tests/guest/ptfollow.c)
 * writes to the Intel PT emulator's debugfs file tb_ptemu/follow: one
 * struct ptemu_follow_step per instruction a followed thread retired,
 * right after it retired. The emulator (ptemu_follow.h) turns them into
 * the packets silicon would have written for them. Tests-only, not ABI of
 * tracebuf.
 */
#ifndef TB_PTEMU_FOLLOW_ABI_H
#define TB_PTEMU_FOLLOW_ABI_H

#include <linux/types.h>

/* What the retired instruction was, for Intel PT's packet rules. */
enum ptemu_follow_kind {
	PTEMU_F_OTHER	= 0,	/* not a branch, or a direct jmp/call: no packet */
	PTEMU_F_COND	= 1,	/* conditional branch (Jcc, LOOP, JRCXZ): a TNT bit */
	PTEMU_F_IND	= 2,	/* indirect jmp/call: TIP */
	PTEMU_F_RET	= 3,	/* near return: TIP (or a TNT bit if compressed) */
	PTEMU_F_FAR	= 4,	/* SYSCALL, SYSENTER, INT n: to the kernel */
	PTEMU_F_CALL	= 5,	/* direct near call: no packet (a return target) */
	PTEMU_F_RESET	= 0xff,	/* forget every thread's pending steps */
};

struct ptemu_follow_step {
	__u32	tid;		/* the thread, in the initial pid namespace */
	__u32	kind;		/* enum ptemu_follow_kind */
	__u64	from;		/* the instruction's address */
	__u64	to;		/* the next instruction's address */
	__u32	taken;		/* COND: 1 taken, 0 not */
	__u32	len;		/* the instruction's length in bytes */
};

#endif /* TB_PTEMU_FOLLOW_ABI_H */
