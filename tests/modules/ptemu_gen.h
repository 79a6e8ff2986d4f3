/* SPDX-License-Identifier: GPL-2.0 */
/*
 * ptemu_gen.h - Intel PT packet encoder and synthetic "program" generator.
 *
 * Freestanding: usable in the PT emulator module (tests/modules/tb_ptemu.c)
 * and natively in userspace (tests/unit/ptgen.c, tests/host/ptgen_capture.c).
 * Only <linux/types.h> (and, outside the kernel, the compiler's own
 * <stdbool.h>); everything static inline; no floating point, no division.
 *
 * Packet layouts follow the Intel SDM, Vol. 3C, "Intel Processor Trace",
 * packet definitions (opcodes as in libipt's pt_opcodes.h):
 *
 *   PAD      00
 *   TNT.8    1 byte, bit0 = 0, stop bit above 1..6 taken/not-taken bits
 *   TNT.64   02 a3 + 6 bytes (stop bit above 1..47 bits)
 *   TIP      (IPBytes << 5) | 0x0d + IP payload
 *   TIP.PGE  (IPBytes << 5) | 0x11 + IP payload
 *   TIP.PGD  (IPBytes << 5) | 0x01 + IP payload
 *   FUP      (IPBytes << 5) | 0x1d + IP payload
 *            IPBytes: 1 upd16 (2 B), 2 upd32 (4 B), 3 sext48 (6 B),
 *                     4 upd48 (6 B), 6 full (8 B)
 *   MODE     99 + (leaf << 5 | bits); MODE.Exec 64-bit: 99 01 (CS.L = 1)
 *   TSC      19 + 7 bytes
 *   MTC      59 + 1 byte (CTC[N+7:N], N from MTCFreq)
 *   CYC      bits[1:0] = 11, bit2 = Exp, bits[7:3] = count[4:0];
 *            then while Exp: bit0 = Exp, bits[7:1] = next 7 count bits
 *   PSB      (02 82) x 8
 *   PSBEND   02 23
 *   CBR      02 03 + ratio + 00
 *   TMA      02 73 + CTC[15:0] + 00 + FastCounter[8:0] (2 bytes)
 *   OVF      02 f3
 *   PTW      02 (IP << 7 | PayloadBytes << 5 | 0x12) + 4 or 8 bytes
 *   MWAIT    02 c2 + hints(4) + ext(4)
 *   PWRE     02 22 + 2 bytes
 *   EXSTOP   02 62 (IP bit 0x80 clear)
 *   PWRX     02 a2 + 5 bytes
 *
 * IP compression is against the last IP, which is cleared by PSB and OVF.
 *
 * What the generator emits:
 *   ptgen_start  PSB, [TSC, [TMA if MTCEn]], CBR, MODE.Exec, PSBEND, TIP.PGE
 *   ptgen_step   [PSB+ with FUP, when 2K << PSBFreq bytes have passed]
 *                [full FUP, first IP packet after OVF]
 *                [TSC] [MTC] [CYC PTW [FUP if FUPonPTW]] [MWAIT PWRE EXSTOP PWRX]
 *                [[CYC] TNT.8 | TNT.64 | TIP | FUP+TIP] x 1..4 if BranchEn
 *   ptgen_stop   TIP.PGD
 *   ptgen_ovf    OVF
 * TIP.PGE/TIP.PGD, the FUP of a periodic PSB+ and the FUP after OVF are
 * emitted whatever BranchEn says (they come from PacketEn transitions);
 * TNT and TIP only with BranchEn. PTW payloads are 64-bit, IP bit set
 * exactly when FUPonPTW. The random choices come from a xorshift32
 * seeded by ptgen_init's arguments: the same calls give the same bytes.
 */
#ifndef TB_PTEMU_GEN_H
#define TB_PTEMU_GEN_H

#include <linux/types.h>
#ifndef __KERNEL__
#include <stdbool.h>
#endif

#define PTGEN_MAX_GROUP 128	/* max bytes one ptgen_step/start/stop call writes */

/* Packet sizes. */
#define PTGEN_PSB_SIZE		16
#define PTGEN_PSBEND_SIZE	2
#define PTGEN_TSC_SIZE		8
#define PTGEN_TMA_SIZE		7
#define PTGEN_CBR_SIZE		4
#define PTGEN_MODE_SIZE		2
#define PTGEN_MTC_SIZE		2
#define PTGEN_OVF_SIZE		2
#define PTGEN_PTW_SIZE		10	/* 64-bit payload */
#define PTGEN_IP_MAX_SIZE	9	/* opcode + full 64-bit IP */
#define PTGEN_CYC_MAX_SIZE	3	/* as this generator emits them */
#define PTGEN_TNT64_SIZE	8
/* PSB+ as emitted here: PSB, TSC, TMA, CBR, MODE.Exec, FUP, PSBEND. */
#define PTGEN_PSBPLUS_MAX	(PTGEN_PSB_SIZE + PTGEN_TSC_SIZE + PTGEN_TMA_SIZE + \
				 PTGEN_CBR_SIZE + PTGEN_MODE_SIZE + PTGEN_IP_MAX_SIZE + \
				 PTGEN_PSBEND_SIZE)
/* MWAIT + PWRE + EXSTOP + PWRX */
#define PTGEN_PWR_SIZE		(10 + 4 + 2 + 7)

/* Opcodes. */
#define PTGEN_OPC_EXT		0x02
#define PTGEN_OPC_TIP		0x0d
#define PTGEN_OPC_TIP_PGE	0x11
#define PTGEN_OPC_TIP_PGD	0x01
#define PTGEN_OPC_FUP		0x1d
#define PTGEN_OPC_MODE		0x99
#define PTGEN_OPC_TSC		0x19
#define PTGEN_OPC_MTC		0x59
#define PTGEN_OPC_CYC		0x03
#define PTGEN_EXT_PSB		0x82
#define PTGEN_EXT_PSBEND	0x23
#define PTGEN_EXT_TNT64		0xa3
#define PTGEN_EXT_CBR		0x03
#define PTGEN_EXT_TMA		0x73
#define PTGEN_EXT_OVF		0xf3
#define PTGEN_EXT_PTW		0x12
#define PTGEN_EXT_MWAIT		0xc2
#define PTGEN_EXT_PWRE		0x22
#define PTGEN_EXT_EXSTOP	0x62
#define PTGEN_EXT_PWRX		0xa2

/* IPBytes (IP compression) values. */
#define PTGEN_IPC_SUPPRESSED	0
#define PTGEN_IPC_UPD16		1
#define PTGEN_IPC_UPD32		2
#define PTGEN_IPC_SEXT48	3
#define PTGEN_IPC_UPD48		4
#define PTGEN_IPC_FULL		6

/* Where the synthetic program lives. */
#define PTGEN_USER_BASE		0x0000555555554000ULL
#define PTGEN_USER_LIB		0x00007f3a12400000ULL
#define PTGEN_KERN_BASE		0xffffffff81000000ULL
#define PTGEN_KERN_MOD		0xffffffffc0a00000ULL

#define PTGEN_CBR_RATIO		24	/* core:bus ratio reported in CBR */
#define PTGEN_CTC_SHIFT		4	/* TSC ticks per crystal clock: 16 */

struct ptgen_cfg {
	bool branch;		/* BranchEn: TNT/TIP/FUP emitted */
	bool tsc;		/* TSCEn: TSC packets in PSB+ and periodically */
	bool mtc;		/* MTCEn */
	unsigned int mtc_freq;	/* CTL.MTCFreq encoding 0..15 */
	bool cyc;		/* CYCEn: CYC packets */
	unsigned int cyc_thresh; /* 0..15 */
	unsigned int psb_freq;	/* CTL.PSBFreq 0..15: PSB every 2K << psb_freq bytes */
	bool ptw;		/* PTWEn: PTW packets carrying the sequence number */
	bool fup_on_ptw;	/* FUPonPTW: FUP after each PTW */
	bool pwr_evt;		/* PwrEvtEn: occasional MWAIT/PWRE/EXSTOP/PWRX */
	bool noretcomp;		/* DisRETC: nothing visible */
	bool user, os;		/* privilege of the synthetic code */
};

struct ptgen {
	struct ptgen_cfg cfg;
	__u64 last_ip;		/* IP compression state */
	__u64 ip;		/* current synthetic IP */
	__u64 tsc;		/* synthetic TSC, advances per step */
	__u64 ptw_seq;		/* next sequence number to put in a PTW */
	__u64 since_psb;	/* bytes since the last PSB */
	__u32 rng;		/* xorshift state, deterministic */
	/*
	 * Offset in the last ptgen_step's output just past its PTW packet,
	 * 0 if it had none. If the output stops (ToPA STOP, buffer full)
	 * before that offset, the PTW was not written: count it as dropped.
	 */
	unsigned int last_ptw_end;
	/* private */
	__u64 psb_period;	/* 2K << psb_freq */
	__u64 last_tsc_pkt;	/* TSC of the last TSC packet */
	__u64 last_mtc;		/* CTC >> mtc_freq at the last MTC (or PSB+) */
	__u64 steps;		/* ptgen_step calls since init */
	bool need_fup;		/* after OVF: the next IP packet is a full FUP */
	bool enabled;		/* between ptgen_start and ptgen_stop */
};

static inline __u32 ptgen_rand(struct ptgen *g)
{
	__u32 x = g->rng;

	x ^= x << 13;
	x ^= x >> 17;
	x ^= x << 5;
	g->rng = x;
	return x;
}

/* ---- packet encoders: each returns the number of bytes written ---- */

static inline unsigned int ptgen_put_le(__u8 *buf, __u64 v, unsigned int n)
{
	unsigned int i;

	for (i = 0; i < n; i++) {
		buf[i] = (__u8)v;
		v >>= 8;
	}
	return n;
}

static inline unsigned int ptgen_enc_pad(__u8 *buf)
{
	buf[0] = 0;
	return 1;
}

static inline unsigned int ptgen_enc_psb(__u8 *buf)
{
	unsigned int i;

	for (i = 0; i < PTGEN_PSB_SIZE; i += 2) {
		buf[i] = PTGEN_OPC_EXT;
		buf[i + 1] = PTGEN_EXT_PSB;
	}
	return PTGEN_PSB_SIZE;
}

static inline unsigned int ptgen_enc_ext(__u8 *buf, __u8 ext)
{
	buf[0] = PTGEN_OPC_EXT;
	buf[1] = ext;
	return 2;
}

static inline unsigned int ptgen_enc_psbend(__u8 *buf)
{
	return ptgen_enc_ext(buf, PTGEN_EXT_PSBEND);
}

static inline unsigned int ptgen_enc_ovf(__u8 *buf)
{
	return ptgen_enc_ext(buf, PTGEN_EXT_OVF);
}

/* TNT.8: 1..6 branch bits, oldest in the highest position below the stop bit. */
static inline unsigned int ptgen_enc_tnt8(__u8 *buf, __u32 bits, unsigned int n)
{
	if (n < 1)
		n = 1;
	if (n > 6)
		n = 6;
	buf[0] = (__u8)(((1u << n) | (bits & ((1u << n) - 1))) << 1);
	return 1;
}

/* TNT.64: 1..47 branch bits. */
static inline unsigned int ptgen_enc_tnt64(__u8 *buf, __u64 bits, unsigned int n)
{
	__u64 pl;

	if (n < 1)
		n = 1;
	if (n > 47)
		n = 47;
	pl = (1ULL << n) | (bits & ((1ULL << n) - 1));
	ptgen_enc_ext(buf, PTGEN_EXT_TNT64);
	ptgen_put_le(buf + 2, pl, 6);
	return PTGEN_TNT64_SIZE;
}

static inline unsigned int ptgen_ipc_size(unsigned int ipc)
{
	switch (ipc) {
	case PTGEN_IPC_UPD16:
		return 2;
	case PTGEN_IPC_UPD32:
		return 4;
	case PTGEN_IPC_SEXT48:
	case PTGEN_IPC_UPD48:
		return 6;
	case PTGEN_IPC_FULL:
		return 8;
	default:
		return 0;
	}
}

/* The most compact IPBytes that reconstructs ip from last. */
static inline unsigned int ptgen_ipc_best(__u64 ip, __u64 last)
{
	__u64 sext = ip & 0x0000ffffffffffffULL;

	if (sext & 0x0000800000000000ULL)
		sext |= 0xffff000000000000ULL;
	if ((ip >> 16) == (last >> 16))
		return PTGEN_IPC_UPD16;
	if ((ip >> 32) == (last >> 32))
		return PTGEN_IPC_UPD32;
	if ((ip >> 48) == (last >> 48))
		return PTGEN_IPC_UPD48;
	if (sext == ip)
		return PTGEN_IPC_SEXT48;
	return PTGEN_IPC_FULL;
}

/* Raw IP packet (TIP/TIP.PGE/TIP.PGD/FUP opcode) with explicit IPBytes. */
static inline unsigned int ptgen_enc_ip(__u8 *buf, __u8 opc, unsigned int ipc,
					__u64 ip)
{
	buf[0] = (__u8)(opc | (ipc << 5));
	return 1 + ptgen_put_le(buf + 1, ip, ptgen_ipc_size(ipc));
}

static inline unsigned int ptgen_enc_mode_exec64(__u8 *buf)
{
	buf[0] = PTGEN_OPC_MODE;
	buf[1] = 0x01;	/* leaf 0 (Exec), CS.L = 1, CS.D = 0, IF = 0 */
	return PTGEN_MODE_SIZE;
}

static inline unsigned int ptgen_enc_tsc(__u8 *buf, __u64 tsc)
{
	buf[0] = PTGEN_OPC_TSC;
	return 1 + ptgen_put_le(buf + 1, tsc, 7);
}

static inline unsigned int ptgen_enc_mtc(__u8 *buf, __u8 ctc)
{
	buf[0] = PTGEN_OPC_MTC;
	buf[1] = ctc;
	return PTGEN_MTC_SIZE;
}

static inline unsigned int ptgen_enc_cbr(__u8 *buf, __u8 ratio)
{
	ptgen_enc_ext(buf, PTGEN_EXT_CBR);
	buf[2] = ratio;
	buf[3] = 0;
	return PTGEN_CBR_SIZE;
}

static inline unsigned int ptgen_enc_tma(__u8 *buf, __u16 ctc, __u16 fc)
{
	ptgen_enc_ext(buf, PTGEN_EXT_TMA);
	buf[2] = (__u8)ctc;
	buf[3] = (__u8)(ctc >> 8);
	buf[4] = 0;
	buf[5] = (__u8)fc;
	buf[6] = (__u8)((fc >> 8) & 1);
	return PTGEN_TMA_SIZE;
}

/* CYC: up to 5 + 7 * 2 = 19 bits here (at most 3 bytes). */
static inline unsigned int ptgen_enc_cyc(__u8 *buf, __u32 cyc)
{
	unsigned int n = 1;

	cyc &= (1u << 19) - 1;
	buf[0] = (__u8)(PTGEN_OPC_CYC | ((cyc & 0x1f) << 3));
	cyc >>= 5;
	if (!cyc)
		return 1;
	buf[0] |= 0x04;
	while (cyc) {
		buf[n] = (__u8)((cyc & 0x7f) << 1);
		cyc >>= 7;
		if (cyc)
			buf[n] |= 1;
		n++;
	}
	return n;
}

static inline unsigned int ptgen_enc_ptw64(__u8 *buf, __u64 payload, bool ip)
{
	buf[0] = PTGEN_OPC_EXT;
	buf[1] = (__u8)((ip ? 0x80 : 0) | (1 << 5) | PTGEN_EXT_PTW);
	return 2 + ptgen_put_le(buf + 2, payload, 8);
}

static inline unsigned int ptgen_enc_ptw32(__u8 *buf, __u32 payload, bool ip)
{
	buf[0] = PTGEN_OPC_EXT;
	buf[1] = (__u8)((ip ? 0x80 : 0) | PTGEN_EXT_PTW);
	return 2 + ptgen_put_le(buf + 2, payload, 4);
}

static inline unsigned int ptgen_enc_mwait(__u8 *buf, __u32 hints, __u32 ext)
{
	ptgen_enc_ext(buf, PTGEN_EXT_MWAIT);
	ptgen_put_le(buf + 2, hints, 4);
	ptgen_put_le(buf + 6, ext, 4);
	return 10;
}

static inline unsigned int ptgen_enc_pwre(__u8 *buf, unsigned int state,
					  unsigned int sub, bool hw)
{
	ptgen_enc_ext(buf, PTGEN_EXT_PWRE);
	buf[2] = hw ? 0x80 : 0;	/* payload bit 7: HW */
	buf[3] = (__u8)(((state & 0xf) << 4) | (sub & 0xf));
	return 4;
}

static inline unsigned int ptgen_enc_exstop(__u8 *buf)
{
	return ptgen_enc_ext(buf, PTGEN_EXT_EXSTOP);
}

static inline unsigned int ptgen_enc_pwrx(__u8 *buf, unsigned int last,
					  unsigned int deepest, unsigned int wr)
{
	ptgen_enc_ext(buf, PTGEN_EXT_PWRX);
	buf[2] = (__u8)(((last & 0xf) << 4) | (deepest & 0xf));
	buf[3] = (__u8)(wr & 0xf);
	buf[4] = 0;
	buf[5] = 0;
	buf[6] = 0;
	return 7;
}

/* ---- the synthetic program ---- */

/* An IP packet for ip, compressed against (and updating) the last IP. */
static inline unsigned int ptgen_ip_pkt(struct ptgen *g, __u8 *buf, __u8 opc,
					__u64 ip, bool full)
{
	unsigned int ipc = PTGEN_IPC_FULL;

	/* Now and then a less compact form than needed, as hardware may. */
	if (!full && (ptgen_rand(g) & 7))
		ipc = ptgen_ipc_best(ip, g->last_ip);
	g->last_ip = ip;
	return ptgen_enc_ip(buf, opc, ipc, ip);
}

/* A plausible branch target in the current privilege. */
static inline __u64 ptgen_next_ip(struct ptgen *g)
{
	__u32 r = ptgen_rand(g);
	bool kern = !g->cfg.user || (g->cfg.os && (r & 0x300) == 0);

	if (kern) {
		if ((r & 0x1c00) == 0)
			return PTGEN_KERN_MOD + (ptgen_rand(g) & 0xffff);
		return PTGEN_KERN_BASE + (ptgen_rand(g) & 0xffffff);
	}
	if ((r & 0x1c00) == 0)
		return PTGEN_USER_LIB + (ptgen_rand(g) & 0x3fffff);
	return PTGEN_USER_BASE + (ptgen_rand(g) & 0xfffff);
}

/* Straight-line execution: the IP moves forward a little. */
static inline void ptgen_advance(struct ptgen *g)
{
	g->ip += 1 + (ptgen_rand(g) & 0x3f);
}

static inline __u64 ptgen_ctc(const struct ptgen *g)
{
	return g->tsc >> PTGEN_CTC_SHIFT;
}

/* PSB+; with_fup when tracing is on (periodic PSB), not at TraceEn 0->1. */
static inline unsigned int ptgen_psbplus(struct ptgen *g, __u8 *buf, bool with_fup)
{
	unsigned int n = 0;

	n += ptgen_enc_psb(buf + n);
	g->last_ip = 0;
	if (g->cfg.tsc) {
		n += ptgen_enc_tsc(buf + n, g->tsc);
		g->last_tsc_pkt = g->tsc;
		if (g->cfg.mtc)
			n += ptgen_enc_tma(buf + n, (__u16)ptgen_ctc(g),
					   (__u16)(g->tsc & ((1u << PTGEN_CTC_SHIFT) - 1)));
	}
	g->last_mtc = ptgen_ctc(g) >> (g->cfg.mtc_freq & 15);
	n += ptgen_enc_cbr(buf + n, PTGEN_CBR_RATIO);
	n += ptgen_enc_mode_exec64(buf + n);
	if (with_fup) {
		n += ptgen_ip_pkt(g, buf + n, PTGEN_OPC_FUP, g->ip, g->need_fup);
		g->need_fup = false;
	}
	n += ptgen_enc_psbend(buf + n);
	g->since_psb = 0;
	return n;
}

static inline void ptgen_init(struct ptgen *g, const struct ptgen_cfg *cfg,
			      __u64 ptw_seq, __u64 tsc)
{
	__u8 *p = (__u8 *)g;
	unsigned int i;

	for (i = 0; i < sizeof(*g); i++)
		p[i] = 0;
	g->cfg = *cfg;
	g->cfg.mtc_freq &= 15;
	g->cfg.cyc_thresh &= 15;
	g->cfg.psb_freq &= 15;
	if (!g->cfg.user && !g->cfg.os)
		g->cfg.user = true;
	g->ptw_seq = ptw_seq;
	g->tsc = tsc;
	g->rng = 0x9e3779b9u ^ (__u32)ptw_seq ^ (__u32)(tsc >> 7) ^
		 (cfg->branch | cfg->tsc << 1 | cfg->mtc << 2 | cfg->cyc << 3 |
		  cfg->ptw << 4 | cfg->fup_on_ptw << 5 | cfg->pwr_evt << 6 |
		  cfg->user << 7 | cfg->os << 8 | cfg->psb_freq << 9 |
		  cfg->mtc_freq << 13 | cfg->cyc_thresh << 17);
	if (!g->rng)
		g->rng = 1;
	g->psb_period = 2048ULL << g->cfg.psb_freq;
	g->ip = ptgen_next_ip(g);
}

/* TraceEn 0->1: PSB+ (no FUP), then TIP.PGE. */
static inline unsigned int ptgen_start(struct ptgen *g, __u8 *buf)
{
	unsigned int n;

	n = ptgen_psbplus(g, buf, false);
	g->need_fup = false;
	n += ptgen_ip_pkt(g, buf + n, PTGEN_OPC_TIP_PGE, g->ip, false);
	g->enabled = true;
	g->since_psb += n;
	return n;
}

/* TraceEn 1->0: TIP.PGD with the IP where tracing stopped. */
static inline unsigned int ptgen_stop(struct ptgen *g, __u8 *buf)
{
	unsigned int n;

	n = ptgen_ip_pkt(g, buf, PTGEN_OPC_TIP_PGD, g->ip, false);
	g->enabled = false;
	g->since_psb += n;
	return n;
}

/* Internal buffer overflow: OVF; the next IP packet is a full FUP. */
static inline unsigned int ptgen_ovf(struct ptgen *g, __u8 *buf)
{
	unsigned int n = ptgen_enc_ovf(buf);

	g->last_ip = 0;
	g->need_fup = true;
	g->since_psb += n;
	return n;
}

/* One branch event: TNT, TIP, or an asynchronous FUP + TIP. */
static inline unsigned int ptgen_branch(struct ptgen *g, __u8 *buf)
{
	__u32 r = ptgen_rand(g);
	unsigned int n = 0;

	ptgen_advance(g);
	switch (r & 7) {
	case 0: case 1: case 2:
		return ptgen_enc_tnt8(buf, r >> 8, 1 + ((r >> 3) % 6));
	case 3:
		return ptgen_enc_tnt64(buf, ((__u64)ptgen_rand(g) << 32) | r,
				       1 + ((r >> 3) & 31) + ((r >> 8) & 15));
	case 4: case 5: case 6:
		g->ip = ptgen_next_ip(g);
		return ptgen_ip_pkt(g, buf, PTGEN_OPC_TIP, g->ip, false);
	default:
		/* interrupt or exception: FUP of the source, TIP of the handler */
		n = ptgen_ip_pkt(g, buf, PTGEN_OPC_FUP, g->ip, false);
		g->ip = ptgen_next_ip(g);
		return n + ptgen_ip_pkt(g, buf + n, PTGEN_OPC_TIP, g->ip, false);
	}
}

static inline unsigned int ptgen_step(struct ptgen *g, __u8 *buf,
				      unsigned int *nr_ptw)
{
	unsigned int n = 0, left, k, nbr;
	bool psb = false;
	__u32 r;
	__u64 m;

	*nr_ptw = 0;
	g->last_ptw_end = 0;
	g->steps++;
	g->tsc += 64 + (ptgen_rand(g) & 0x3ff);

	if (g->since_psb >= g->psb_period) {
		n += ptgen_psbplus(g, buf + n, true);
		psb = true;
	}
	if (g->need_fup) {
		n += ptgen_ip_pkt(g, buf + n, PTGEN_OPC_FUP, g->ip, true);
		g->need_fup = false;
	}
	if (g->cfg.tsc && !psb && g->tsc - g->last_tsc_pkt >= 4096) {
		n += ptgen_enc_tsc(buf + n, g->tsc);
		g->last_tsc_pkt = g->tsc;
	}
	m = ptgen_ctc(g) >> g->cfg.mtc_freq;
	if (g->cfg.mtc && m != g->last_mtc) {
		n += ptgen_enc_mtc(buf + n, (__u8)m);
		g->last_mtc = m;
	}
	if (g->cfg.ptw) {
		ptgen_advance(g);
		if (g->cfg.cyc)
			n += ptgen_enc_cyc(buf + n, ptgen_rand(g) & 0xff);
		n += ptgen_enc_ptw64(buf + n, g->ptw_seq++, g->cfg.fup_on_ptw);
		g->last_ptw_end = n;
		if (g->cfg.fup_on_ptw)
			n += ptgen_ip_pkt(g, buf + n, PTGEN_OPC_FUP, g->ip, false);
		*nr_ptw = 1;
	}
	r = ptgen_rand(g);
	if (g->cfg.pwr_evt && !psb && (r & 31) == 0) {
		n += ptgen_enc_mwait(buf + n, 0x20 | ((r >> 8) & 0xf), 1);
		n += ptgen_enc_pwre(buf + n, 2, (r >> 12) & 3, false);
		n += ptgen_enc_exstop(buf + n);
		n += ptgen_enc_pwrx(buf + n, 2, 2, 1);
	}
	if (g->cfg.branch) {
		nbr = 1 + ((r >> 5) & 3);
		for (k = 0; k < nbr; k++) {
			left = PTGEN_MAX_GROUP - n;
			if (left < PTGEN_CYC_MAX_SIZE + 2 * PTGEN_IP_MAX_SIZE)
				break;
			if (g->cfg.cyc)
				n += ptgen_enc_cyc(buf + n,
						   ptgen_rand(g) & ((1u << (1 + (r & 15))) - 1));
			n += ptgen_branch(g, buf + n);
		}
	} else {
		ptgen_advance(g);
		if (g->cfg.cyc && !g->cfg.ptw)
			n += ptgen_enc_cyc(buf + n, ptgen_rand(g) & 0x7ff);
	}
	g->since_psb += n;
	return n;
}

#endif /* TB_PTEMU_GEN_H */
