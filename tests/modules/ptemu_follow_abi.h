/* SPDX-License-Identifier: GPL-2.0 */
/*
 * ptemu_follow_abi.h - what the follow helper (tests/guest/ptfollow.c)
 * writes to an emulator's debugfs file in follow mode: tb_ptemu/follow on
 * x86_64 (Intel PT, ptemu_follow.h), tb_csemu/follow on arm64 (ETMv4,
 * csemu_follow.h): one struct ptemu_follow_step per instruction a
 * followed thread retired, right after it retired. The emulator turns
 * them into the packets silicon would have written for them. Tests-only,
 * not ABI of tracebuf.
 *
 * The kinds are Intel PT's classes; an A64 instruction gets the same
 * ones (B.cond, CBZ/CBNZ, TBZ/TBNZ: COND; BR, BLR and their PAC forms:
 * IND; RET, RETAA/RETAB: RET; SVC: FAR; BL: CALL; B: OTHER), and on arm64
 * the taken field also says what ETMv4 needs: PTEMU_FS_P0 marks a P0
 * instruction (IHI0064, "P0 instructions": every branch, direct or not,
 * and ISB), which is an atom in the trace, E if PTEMU_FS_TAKEN (it went
 * anywhere but the next instruction), N if not.
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
	__u64	to;		/* the next one executed (FAR: where user mode resumed) */
	__u32	taken;		/* COND: PTEMU_FS_TAKEN if taken; arm64: flags below */
	__u32	len;		/* the instruction's length in bytes */
};

/* taken: bit 0 (x86_64: COND only), bit 1 on arm64 only. */
#define PTEMU_FS_TAKEN	0x1	/* the branch was taken */
#define PTEMU_FS_P0	0x2	/* arm64: a P0 instruction, an ETMv4 atom */

#endif /* TB_PTEMU_FOLLOW_ABI_H */
