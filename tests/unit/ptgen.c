// SPDX-License-Identifier: GPL-2.0
/*
 * The PT emulator's packet generator (tests/modules/ptemu_gen.h), checked
 * against libipt's packet decoder: for many configurations, long streams
 * with stops, restarts and overflows decode without a single error, carry
 * exactly the configured packet kinds, and consecutive PTW payloads; a
 * stream cut at any byte and restarted resynchronizes at the new PSB.
 */
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <intel-pt.h>

#include "ptemu_gen.h"
#include "check.h"

struct stats {
	unsigned long pkts, errors;
	unsigned long count[64];	/* by enum pt_packet_type */
	uint64_t first_type;
	uint64_t ptw_first, ptw_last, ptw_n;
	unsigned long ptw_nonconsec;
	unsigned long ptw_without_fup;	/* PTW with IP bit not followed by FUP */
	unsigned long ptw_ip_bit;
	unsigned long bad_ip;		/* reconstructed IP outside the program */
	uint64_t err_offset;
	int err;
};

struct buf {
	uint8_t *p;
	size_t len, cap;
};

static void buf_reserve(struct buf *b, size_t n)
{
	if (b->len + n <= b->cap)
		return;
	b->cap = (b->len + n) * 2;
	b->p = realloc(b->p, b->cap);
	if (!b->p) {
		perror("realloc");
		exit(2);
	}
}

static void gen_start(struct ptgen *g, struct buf *b)
{
	buf_reserve(b, PTGEN_MAX_GROUP);
	b->len += ptgen_start(g, b->p + b->len);
}

static void gen_stop(struct ptgen *g, struct buf *b)
{
	buf_reserve(b, PTGEN_MAX_GROUP);
	b->len += ptgen_stop(g, b->p + b->len);
}

static unsigned long gen_steps(struct ptgen *g, struct buf *b, unsigned int n)
{
	unsigned long ptws = 0;
	unsigned int i, nr, len;

	for (i = 0; i < n; i++) {
		buf_reserve(b, PTGEN_MAX_GROUP);
		len = ptgen_step(g, b->p + b->len, &nr);
		CHECK(len <= PTGEN_MAX_GROUP);
		CHECK(nr <= 1);
		if (nr) {
			/* last_ptw_end points just past this group's PTW */
			const uint8_t *e = b->p + b->len + g->last_ptw_end;
			uint64_t pl = 0;
			int k;

			CHECK(g->last_ptw_end >= PTGEN_PTW_SIZE && g->last_ptw_end <= len);
			CHECK(e[-10] == 0x02 && (e[-9] & 0x7f) == 0x32);
			for (k = 1; k <= 8; k++)
				pl = pl << 8 | e[-k];
			CHECK_EQ(pl, g->ptw_seq - 1);
		} else {
			CHECK_EQ(g->last_ptw_end, 0);
		}
		b->len += len;
		ptws += nr;
	}
	return ptws;
}

/* Reconstruct an IP packet's IP the way a decoder does (SDM IP compression). */
static uint64_t ip_of(const struct pt_packet_ip *ip, uint64_t last)
{
	switch (ip->ipc) {
	case pt_ipc_update_16:
		return (last & ~0xffffULL) | (ip->ip & 0xffffULL);
	case pt_ipc_update_32:
		return (last & ~0xffffffffULL) | (ip->ip & 0xffffffffULL);
	case pt_ipc_update_48:
		return (last & ~0xffffffffffffULL) | (ip->ip & 0xffffffffffffULL);
	case pt_ipc_sext_48:
		return (uint64_t)((int64_t)(ip->ip << 16) >> 16);
	case pt_ipc_full:
		return ip->ip;
	default:
		return last;
	}
}

static int ip_in_program(uint64_t ip)
{
	return (ip >= PTGEN_USER_BASE && ip < PTGEN_USER_BASE + 0x200000) ||
	       (ip >= PTGEN_USER_LIB && ip < PTGEN_USER_LIB + 0x800000) ||
	       (ip >= PTGEN_KERN_BASE && ip < PTGEN_KERN_BASE + 0x2000000) ||
	       (ip >= PTGEN_KERN_MOD && ip < PTGEN_KERN_MOD + 0x100000);
}

/* Decode [from, end) of buf, from a PSB at 'from'; fill *s. */
static void decode(const uint8_t *p, size_t len, size_t from, struct stats *s)
{
	struct pt_config config;
	struct pt_packet_decoder *dec;
	struct pt_packet pkt;
	uint64_t off, last_ip = 0;
	int rc, want_fup = 0;

	memset(s, 0, sizeof(*s));
	pt_config_init(&config);
	config.begin = (uint8_t *)p;
	config.end = (uint8_t *)p + len;
	dec = pt_pkt_alloc_decoder(&config);
	if (!dec) {
		s->errors++;
		return;
	}
	rc = pt_pkt_sync_set(dec, from);
	if (rc < 0) {
		s->errors++;
		s->err = rc;
		goto out;
	}
	for (;;) {
		if (pt_pkt_get_offset(dec, &off) < 0)
			off = 0;
		rc = pt_pkt_next(dec, &pkt, sizeof(pkt));
		if (rc == -pte_eos)
			break;
		if (rc < 0) {
			s->errors++;
			s->err = rc;
			s->err_offset = off;
			break;
		}
		if (!s->pkts)
			s->first_type = pkt.type;
		s->pkts++;
		if ((unsigned int)pkt.type < 64)
			s->count[pkt.type]++;
		if (want_fup && pkt.type != ppt_fup)
			s->ptw_without_fup++;
		want_fup = 0;
		switch (pkt.type) {
		case ppt_psb:
		case ppt_ovf:
			last_ip = 0;
			break;
		case ppt_fup:
		case ppt_tip:
		case ppt_tip_pge:
		case ppt_tip_pgd:
			last_ip = ip_of(&pkt.payload.ip, last_ip);
			if (!ip_in_program(last_ip))
				s->bad_ip++;
			break;
		default:
			break;
		}
		if (pkt.type == ppt_ptw) {
			if (s->ptw_n && pkt.payload.ptw.payload != s->ptw_last + 1)
				s->ptw_nonconsec++;
			if (!s->ptw_n)
				s->ptw_first = pkt.payload.ptw.payload;
			s->ptw_last = pkt.payload.ptw.payload;
			s->ptw_n++;
			CHECK_EQ(pkt.payload.ptw.plc, 1);	/* 8-byte payload */
			if (pkt.payload.ptw.ip) {
				s->ptw_ip_bit++;
				want_fup = 1;
			}
		}
	}
	if (want_fup)
		s->ptw_without_fup++;
out:
	pt_pkt_free_decoder(dec);
}

static void check_cfg(const struct ptgen_cfg *cfg, const char *name)
{
	struct buf b = { 0 };
	struct ptgen g;
	struct stats s;
	unsigned long ptws = 0;
	int fails = check_failures;
	int round;

	ptgen_init(&g, cfg, 1000, 0x123456789ULL);
	for (round = 0; round < 3; round++) {
		gen_start(&g, &b);
		ptws += gen_steps(&g, &b, 3000);
		if (round == 1) {
			/* an internal overflow, then more execution */
			buf_reserve(&b, PTGEN_MAX_GROUP);
			b.len += ptgen_ovf(&g, b.p + b.len);
			ptws += gen_steps(&g, &b, 500);
		}
		gen_stop(&g, &b);
	}
	decode(b.p, b.len, 0, &s);

	CHECK_EQ(s.errors, 0);
	CHECK_EQ(s.first_type, ppt_psb);
	CHECK(s.count[ppt_psb] >= 3);
	CHECK_EQ(s.count[ppt_psb], s.count[ppt_psbend]);
	CHECK_EQ(s.count[ppt_tip_pge], 3);
	CHECK_EQ(s.count[ppt_tip_pgd], 3);
	CHECK_EQ(s.count[ppt_ovf], 1);
	CHECK_EQ(s.count[ppt_mode], s.count[ppt_psb]);
	CHECK_EQ(s.count[ppt_cbr], s.count[ppt_psb]);
	CHECK_EQ(s.count[ppt_unknown], 0);
	CHECK_EQ(s.count[ppt_ptw], ptws);
	CHECK_EQ(s.ptw_nonconsec, 0);
	CHECK_EQ(g.ptw_seq, 1000 + ptws);
	if (cfg->ptw) {
		CHECK_EQ(s.ptw_n, 3 * 3000 + 500);
		CHECK_EQ(s.ptw_first, 1000);
		CHECK_EQ(s.ptw_last, 1000 + s.ptw_n - 1);
	} else {
		CHECK_EQ(s.ptw_n, 0);
	}
	CHECK_EQ(s.ptw_without_fup, 0);
	CHECK_EQ(s.bad_ip, 0);
	CHECK_EQ(s.ptw_ip_bit, cfg->fup_on_ptw ? s.ptw_n : 0);
	CHECK_EQ(!!s.count[ppt_cyc], cfg->cyc);
	CHECK_EQ(!!s.count[ppt_mtc], cfg->mtc);
	CHECK_EQ(!!s.count[ppt_tma], cfg->mtc && cfg->tsc);
	CHECK_EQ(!!s.count[ppt_tsc], cfg->tsc);
	if (cfg->tsc)
		CHECK(s.count[ppt_tsc] > s.count[ppt_psb]);
	CHECK_EQ(!!s.count[ppt_tnt_8], cfg->branch);
	CHECK_EQ(!!s.count[ppt_tnt_64], cfg->branch);
	CHECK_EQ(!!s.count[ppt_tip], cfg->branch);
	CHECK_EQ(!!s.count[ppt_mwait], cfg->pwr_evt);
	CHECK_EQ(!!s.count[ppt_pwre], cfg->pwr_evt);
	CHECK_EQ(!!s.count[ppt_pwrx], cfg->pwr_evt);
	CHECK_EQ(!!s.count[ppt_exstop], cfg->pwr_evt);
	/* PSB period: 2K << psb_freq bytes, within one group. */
	CHECK(s.count[ppt_psb] >= b.len / ((2048UL << cfg->psb_freq) + PTGEN_MAX_GROUP));
	CHECK(s.count[ppt_psb] <= 3 + b.len / (2048UL << cfg->psb_freq));

	if (check_failures != fails)
		fprintf(stderr, "  ... in configuration %s (%zu bytes, %lu packets, err %d at %llu)\n",
			name, b.len, s.pkts, s.err, (unsigned long long)s.err_offset);
	free(b.p);
}

/*
 * Cut a stream at byte 'cut' (the hardware stopped there, mid-packet or
 * not), drop what the program did while stopped, restart: the decoder
 * resynchronizes at the new PSB, and from there every packet decodes and
 * the PTW sequence resumes after exactly the dropped ones.
 */
static void check_cut(const struct ptgen_cfg *cfg, size_t cut, unsigned int dropped_steps)
{
	struct buf b = { 0 }, junk = { 0 };
	struct pt_config config;
	struct pt_packet_decoder *dec;
	struct pt_packet pkt;
	struct ptgen g;
	struct stats s;
	uint64_t off = 0, sync;
	uint64_t seq_at_cut;
	int fails = check_failures;
	int rc = 0;

	ptgen_init(&g, cfg, 7, 0x1000);
	gen_start(&g, &b);
	while (b.len < cut)
		gen_steps(&g, &b, 1);
	b.len = cut;
	seq_at_cut = g.ptw_seq;
	gen_steps(&g, &junk, dropped_steps);	/* discarded: "Stopped" */
	gen_stop(&g, &junk);
	gen_start(&g, &b);
	gen_steps(&g, &b, 1000);
	gen_stop(&g, &b);

	pt_config_init(&config);
	config.begin = b.p;
	config.end = b.p + b.len;
	dec = pt_pkt_alloc_decoder(&config);
	CHECK(dec);
	if (!dec)
		return;
	CHECK_EQ(pt_pkt_sync_forward(dec), 0);
	CHECK_EQ(pt_pkt_get_sync_offset(dec, &sync), 0);
	/* A cut inside the first PSB leaves the restart's PSB the first one. */
	CHECK_EQ(sync, cut > PTGEN_PSB_SIZE ? 0 : cut);
	/* Decode the first part up to the cut: no error before it. */
	for (;;) {
		CHECK_EQ(pt_pkt_get_offset(dec, &off), 0);
		if (off >= cut)
			break;
		rc = pt_pkt_next(dec, &pkt, sizeof(pkt));
		if (rc < 0)
			break;
	}
	/* The garbled packet, if any, straddles the cut. */
	CHECK(off <= cut || (rc >= 0 && off - pkt.size < cut));
	/* Resync from just before the cut: lands on the restart's PSB. */
	CHECK_EQ(pt_pkt_sync_set(dec, cut > 0 ? cut - 1 : 0), 0);
	rc = pt_pkt_sync_forward(dec);
	if (cut == 0) {
		/* already at the PSB: sync_forward goes to the next one */
		CHECK(rc == 0 || rc == -pte_eos);
	} else {
		CHECK_EQ(rc, 0);
		CHECK_EQ(pt_pkt_get_sync_offset(dec, &sync), 0);
		CHECK_EQ(sync, cut);
	}
	pt_pkt_free_decoder(dec);

	decode(b.p, b.len, cut, &s);
	CHECK_EQ(s.errors, 0);
	CHECK_EQ(s.first_type, ppt_psb);
	CHECK_EQ(s.ptw_nonconsec, 0);
	CHECK_EQ(s.bad_ip, 0);
	if (cfg->ptw) {
		CHECK_EQ(s.ptw_first, seq_at_cut + dropped_steps);
		CHECK_EQ(s.ptw_n, 1000);
	}
	if (check_failures != fails)
		fprintf(stderr, "  ... in cut at %zu\n", cut);
	free(b.p);
	free(junk.p);
}

/* Every group stays within PTGEN_MAX_GROUP, in the densest configuration. */
static void check_group_bound(void)
{
	struct ptgen_cfg cfg = {
		.branch = true, .tsc = true, .mtc = true, .cyc = true,
		.ptw = true, .fup_on_ptw = true, .pwr_evt = true,
		.user = true, .os = true,
	};
	uint8_t buf[PTGEN_MAX_GROUP + 64];
	struct ptgen g;
	unsigned int i, nr, len, max = 0;

	ptgen_init(&g, &cfg, 0, 0);
	len = ptgen_start(&g, buf);
	CHECK(len <= PTGEN_MAX_GROUP);
	for (i = 0; i < 200000; i++) {
		memset(buf + PTGEN_MAX_GROUP, 0xa5, 64);
		len = ptgen_step(&g, buf, &nr);
		if (len > max)
			max = len;
		CHECK(buf[PTGEN_MAX_GROUP] == 0xa5);
		if (i % 50 == 0)
			ptgen_ovf(&g, buf);
	}
	CHECK(max <= PTGEN_MAX_GROUP);
	CHECK(max > 64);
}

/* Encoders against known byte patterns (Intel SDM packet formats). */
static void check_encodings(void)
{
	uint8_t b[32];
	static const uint8_t psb[16] = { 2, 0x82, 2, 0x82, 2, 0x82, 2, 0x82,
					 2, 0x82, 2, 0x82, 2, 0x82, 2, 0x82 };
	static const uint8_t ptw[10] = { 2, 0xb2, 0x88, 0x77, 0x66, 0x55, 0x44, 0x33, 0x22, 0x11 };

	CHECK_EQ(ptgen_enc_psb(b), 16);
	CHECK(!memcmp(b, psb, 16));
	CHECK_EQ(ptgen_enc_psbend(b), 2);
	CHECK(b[0] == 2 && b[1] == 0x23);
	CHECK_EQ(ptgen_enc_ovf(b), 2);
	CHECK(b[0] == 2 && b[1] == 0xf3);
	CHECK_EQ(ptgen_enc_ptw64(b, 0x1122334455667788ULL, true), 10);
	CHECK(!memcmp(b, ptw, 10));
	CHECK_EQ(ptgen_enc_ptw64(b, 1, false), 10);
	CHECK_EQ(b[1], 0x32);
	CHECK_EQ(ptgen_enc_tnt8(b, 0x5, 3), 1);
	CHECK_EQ(b[0], 0x1a);	/* 0b0001_1010: stop, 1 0 1, 0 */
	CHECK_EQ(ptgen_enc_mode_exec64(b), 2);
	CHECK(b[0] == 0x99 && b[1] == 0x01);
	CHECK_EQ(ptgen_enc_ip(b, PTGEN_OPC_TIP_PGE, PTGEN_IPC_FULL, 0xffffffff81000010ULL), 9);
	CHECK_EQ(b[0], 0xd1);
	CHECK_EQ(ptgen_enc_ip(b, PTGEN_OPC_FUP, PTGEN_IPC_UPD16, 0x1234), 3);
	CHECK(b[0] == 0x3d && b[1] == 0x34 && b[2] == 0x12);
	CHECK_EQ(ptgen_enc_cyc(b, 3), 1);
	CHECK_EQ(b[0], 0x1b);
	CHECK_EQ(ptgen_enc_cyc(b, 0x20), 2);
	CHECK(b[0] == 0x07 && b[1] == 0x02);
	CHECK_EQ(ptgen_ipc_best(0xffffffff81000010ULL, 0), PTGEN_IPC_SEXT48);
	CHECK_EQ(ptgen_ipc_best(0x555555554010ULL, 0), PTGEN_IPC_UPD48);
	CHECK_EQ(ptgen_ipc_best(0x555555554010ULL, 0x555555550000ULL), PTGEN_IPC_UPD16);
}

int main(void)
{
	static const struct {
		const char *name;
		struct ptgen_cfg cfg;
	} cfgs[] = {
		{ "ptw-only", { .ptw = true, .user = true } },
		{ "ptw-fup", { .ptw = true, .fup_on_ptw = true, .user = true } },
		{ "branch-user", { .branch = true, .user = true } },
		{ "branch-os-tsc", { .branch = true, .tsc = true, .os = true, .psb_freq = 1 } },
		{ "all-timing", { .branch = true, .tsc = true, .mtc = true, .mtc_freq = 3,
				  .cyc = true, .cyc_thresh = 2, .ptw = true, .fup_on_ptw = true,
				  .user = true, .os = true } },
		{ "mtc-no-tsc", { .mtc = true, .mtc_freq = 9, .ptw = true, .user = true } },
		{ "cyc-no-branch", { .cyc = true, .ptw = true, .tsc = true, .os = true } },
		{ "pwr", { .branch = true, .pwr_evt = true, .ptw = true, .fup_on_ptw = true,
			   .noretcomp = true, .user = true, .os = true, .psb_freq = 3 } },
		{ "nothing", { .user = true } },
		{ "everything", { .branch = true, .tsc = true, .mtc = true, .cyc = true,
				  .ptw = true, .fup_on_ptw = true, .pwr_evt = true,
				  .user = true, .os = true } },
	};
	static const struct ptgen_cfg cutcfg = {
		.branch = true, .tsc = true, .mtc = true, .cyc = true, .ptw = true,
		.fup_on_ptw = true, .pwr_evt = true, .user = true, .os = true,
	};
	size_t i, cut;

	check_encodings();
	check_group_bound();
	for (i = 0; i < sizeof(cfgs) / sizeof(cfgs[0]); i++)
		check_cfg(&cfgs[i].cfg, cfgs[i].name);
	/* Every byte position over a few groups, then spread out. */
	for (cut = 0; cut < 600; cut++)
		check_cut(&cutcfg, cut, (unsigned int)(cut % 7));
	for (cut = 600; cut < 20000; cut += 997)
		check_cut(&cutcfg, cut, 3);
	return check_done();
}
