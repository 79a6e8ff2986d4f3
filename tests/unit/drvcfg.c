/* SPDX-License-Identifier: GPL-2.0 */
/*
 * The driver configuration parser (module/drvcfg.c), built natively
 * against the stand-ins in shim/: every valid form of every key type and
 * its canonical form, a table of malformed strings (errno, reason, offset,
 * length, values untouched), tb_cfg_format() into small buffers, then the
 * random fuzz loop of drvcfg_fuzz.c.
 *
 *   drvcfg [fuzz iterations]	(default 1000000)
 */
#include <errno.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "../../module/drvcfg.h"

#include "check.h"

/* drvcfg_fuzz.c: the number of failed checks. */
long drvcfg_fuzz(const struct tb_cfg_key *keys, unsigned int nkeys,
		 size_t max_len, unsigned long iterations, uint64_t seed);

/* A key table like Intel PT's. */
enum {
	K_BRANCH, K_USER, K_KERNEL, K_TSC, K_MTC, K_MTC_PERIOD, K_CYC,
	K_CYC_THRESH, K_PSB_PERIOD, K_NORETCOMP, K_PTW, K_FUP_ON_PTW,
	K_PWR_EVT, K_CR3, K_ADDR0, K_ADDR1, K_PAGES, K_VMCS, NKEYS
};

#define BOOLKEY(n, f, d) { .name = n, .type = TB_CFG_BOOL, .flags = f, \
			   .def = d, .desc = n }

static const struct tb_cfg_key keys[NKEYS] = {
	[K_BRANCH] = BOOLKEY("branch", 0, 1),
	[K_USER] = BOOLKEY("user", 0, 1),
	[K_KERNEL] = BOOLKEY("kernel", TB_CFG_F_PRIV, 0),
	[K_TSC] = BOOLKEY("tsc", 0, 1),
	[K_MTC] = BOOLKEY("mtc", 0, 0),
	[K_MTC_PERIOD] = { .name = "mtc_period", .type = TB_CFG_ENUM,
			   .allowed = 0x249, .def = 3 },
	[K_CYC] = BOOLKEY("cyc", 0, 0),
	/* no threshold 3 on this CPU */
	[K_CYC_THRESH] = { .name = "cyc_thresh", .type = TB_CFG_ENUM,
			   .allowed = 0x3ff7, .def = 0 },
	[K_PSB_PERIOD] = { .name = "psb_period", .type = TB_CFG_ENUM,
			   .allowed = 0x3f, .def = 0 },
	[K_NORETCOMP] = BOOLKEY("noretcomp", 0, 0),
	[K_PTW] = BOOLKEY("ptw", 0, 0),
	[K_FUP_ON_PTW] = BOOLKEY("fup_on_ptw", 0, 0),
	[K_PWR_EVT] = BOOLKEY("pwr_evt", TB_CFG_F_UNSUPPORTED, 0),
	[K_CR3] = { .name = "cr3", .type = TB_CFG_U64,
		    .flags = TB_CFG_F_CURRENT, .def = 0 },
	[K_ADDR0] = { .name = "addr0", .type = TB_CFG_RANGE },
	[K_ADDR1] = { .name = "addr1", .type = TB_CFG_RANGE,
		      .flags = TB_CFG_F_PRIV },
	[K_PAGES] = { .name = "pages", .type = TB_CFG_UINT, .min = 2,
		      .max = 65536, .def = 16 },
	[K_VMCS] = { .name = "vmcs", .type = TB_CFG_U64,
		     .flags = TB_CFG_F_PRIV, .def = 0 },
};

#define MAX_LEN		512

#define DEFAULTS "branch=1,user=1,kernel=0,tsc=1,mtc=0,mtc_period=3,cyc=0," \
	"cyc_thresh=0,psb_period=0,noretcomp=0,ptw=0,fup_on_ptw=0,cr3=off," \
	"addr0=off,addr1=off,pages=16,vmcs=off"

static char fmtbuf[4096];

static const char *fmt(const struct tb_cfg_val *vals)
{
	size_t n = tb_cfg_format(keys, NKEYS, vals, fmtbuf, sizeof(fmtbuf));

	CHECK(n < sizeof(fmtbuf));
	CHECK_EQ(strlen(fmtbuf), n);
	return fmtbuf;
}

static int same_vals(const struct tb_cfg_val *a, const struct tb_cfg_val *b,
		     unsigned int n)
{
	unsigned int i;

	for (i = 0; i < n; i++) {
		if (a[i].v != b[i].v || a[i].end != b[i].end ||
		    a[i].mode != b[i].mode)
			return 0;
	}
	return 1;
}

/* ---- valid strings: the canonical form after, and what changed ---- */

struct good {
	const char *in;
	int priv;
	const char *out;	/* DEFAULTS with these replacements */
	uint64_t changed;
};

#define B(k) (1ULL << (k))

static const struct good goods[] = {
	{ "branch=1", 0, "", 0 },
	{ "branch", 0, "", 0 },
	{ "branch=0", 0, "branch=0", B(K_BRANCH) },
	{ "cyc", 0, "cyc=1", B(K_CYC) },
	{ "cyc=1", 0, "cyc=1", B(K_CYC) },
	{ "cyc=0", 0, "", 0 },
	{ "kernel=0", 0, "", 0 },
	{ "kernel=1", 1, "kernel=1", B(K_KERNEL) },
	{ "kernel", 1, "kernel=1", B(K_KERNEL) },
	{ "mtc_period=0", 0, "mtc_period=0", B(K_MTC_PERIOD) },
	{ "mtc_period=3", 0, "", 0 },
	{ "mtc_period=6", 0, "mtc_period=6", B(K_MTC_PERIOD) },
	{ "mtc_period=9", 0, "mtc_period=9", B(K_MTC_PERIOD) },
	{ "mtc_period=009", 0, "mtc_period=9", B(K_MTC_PERIOD) },
	{ "cyc_thresh=13", 0, "cyc_thresh=13", B(K_CYC_THRESH) },
	{ "psb_period=5", 0, "psb_period=5", B(K_PSB_PERIOD) },
	{ "pages=2", 0, "pages=2", B(K_PAGES) },
	{ "pages=65536", 0, "pages=65536", B(K_PAGES) },
	{ "pages=0x10", 0, "", 0 },
	{ "pages=0x00000000000000000000000000000400", 0, "pages=1024",
	  B(K_PAGES) },
	{ "pages=0xfF", 0, "pages=255", B(K_PAGES) },
	{ "pages=000123", 0, "pages=123", B(K_PAGES) },
	{ "cr3=0x1234abcd", 0, "cr3=0x1234abcd", B(K_CR3) },
	{ "cr3=0xABCDEF", 0, "cr3=0xabcdef", B(K_CR3) },
	{ "cr3=4096", 0, "cr3=0x1000", B(K_CR3) },
	{ "cr3=0", 0, "", 0 },
	{ "cr3=0x0", 0, "", 0 },
	{ "cr3=off", 0, "", 0 },
	{ "cr3=current", 0, "cr3=current", B(K_CR3) },
	{ "cr3=18446744073709551614", 0, "cr3=0xfffffffffffffffe", B(K_CR3) },
	{ "cr3=0xfffffffffffffffe", 0, "cr3=0xfffffffffffffffe", B(K_CR3) },
	{ "vmcs=off", 0, "", 0 },
	{ "vmcs=0", 0, "", 0 },
	{ "vmcs=0xffffffffffffffff", 1, "vmcs=0xffffffffffffffff", B(K_VMCS) },
	{ "vmcs=18446744073709551615", 1, "vmcs=0xffffffffffffffff",
	  B(K_VMCS) },
	{ "addr0=0x1000-0x2000:filter", 0, "addr0=0x1000-0x2000:filter",
	  B(K_ADDR0) },
	{ "addr0=4096-8192:stop", 0, "addr0=0x1000-0x2000:stop", B(K_ADDR0) },
	{ "addr0=5-5:filter", 0, "addr0=0x5-0x5:filter", B(K_ADDR0) },
	{ "addr0=0-0xffffffffffffffff:stop", 0,
	  "addr0=0x0-0xffffffffffffffff:stop", B(K_ADDR0) },
	{ "addr0=0x0-0:filter", 0, "addr0=0x0-0x0:filter", B(K_ADDR0) },
	{ "addr0=off", 0, "", 0 },
	{ "addr1=off", 0, "", 0 },
	{ "addr1=0xA-0xB:stop", 1, "addr1=0xa-0xb:stop", B(K_ADDR1) },
	{ "branch=1,user,cyc=1,cyc_thresh=4,addr0=0x1000-0x2000:filter,"
	  "cr3=current", 0,
	  "cyc=1,cyc_thresh=4,cr3=current,addr0=0x1000-0x2000:filter",
	  B(K_CYC) | B(K_CYC_THRESH) | B(K_CR3) | B(K_ADDR0) },
	{ "vmcs=1,pages=3,addr1=1-2:filter,addr0=3-4:stop,cr3=5,"
	  "fup_on_ptw,ptw,noretcomp=1,psb_period=1,cyc_thresh=1,cyc,"
	  "mtc_period=9,mtc,tsc=0,kernel,user=0,branch=0", 1,
	  "branch=0,user=0,kernel=1,tsc=0,mtc=1,mtc_period=9,cyc=1,"
	  "cyc_thresh=1,psb_period=1,noretcomp=1,ptw=1,fup_on_ptw=1,cr3=0x5,"
	  "addr0=0x3-0x4:stop,addr1=0x1-0x2:filter,pages=3,vmcs=0x1",
	  ((1ULL << NKEYS) - 1) & ~B(K_PWR_EVT) },
};

/* DEFAULTS with each "key=value" of repl replacing that key's entry. */
static void expected(const char *repl, char *out, size_t size)
{
	char def[] = DEFAULTS, r[1024], *tok, *save, *rt, *rsave;
	const char *val;
	size_t pos = 0;
	int n;

	out[0] = '\0';
	for (tok = strtok_r(def, ",", &save); tok;
	     tok = strtok_r(NULL, ",", &save)) {
		size_t klen = strcspn(tok, "=");

		val = tok;
		snprintf(r, sizeof(r), "%s", repl);
		for (rt = strtok_r(r, ",", &rsave); rt;
		     rt = strtok_r(NULL, ",", &rsave)) {
			if (strcspn(rt, "=") == klen && !strncmp(rt, tok, klen))
				val = rt;
		}
		n = snprintf(out + pos, size - pos, "%s%s", pos ? "," : "",
			     val);
		pos += (size_t)n;
	}
}

static void test_good(void)
{
	struct tb_cfg_val vals[NKEYS], before[NKEYS];
	struct tb_cfg_err err;
	char want[1024];
	uint64_t changed;
	size_t i;
	int ret;

	tb_cfg_defaults(keys, NKEYS, vals);
	CHECK(!strcmp(fmt(vals), DEFAULTS));

	for (i = 0; i < sizeof(goods) / sizeof(goods[0]); i++) {
		const struct good *g = &goods[i];

		tb_cfg_defaults(keys, NKEYS, vals);
		memcpy(before, vals, sizeof(vals));
		memset(&err, 0xff, sizeof(err));
		changed = 0xdead;
		ret = tb_cfg_parse(keys, NKEYS, g->in, strlen(g->in), MAX_LEN,
				   g->priv, vals, &changed, &err);
		expected(g->out, want, sizeof(want));
		if (ret || strcmp(fmt(vals), want) || changed != g->changed) {
			check_failures++;
			fprintf(stderr, "good[%zu] \"%s\": ret %d reason %u at %u+%u changed %#llx\n  got  %s\n  want %s\n",
				i, g->in, ret, err.reason, err.offset, err.len,
				(unsigned long long)changed, fmtbuf, want);
		}
		CHECK_EQ(err.reason, TB_CFG_OK);
		/* The same again: nothing changes. */
		memcpy(before, vals, sizeof(vals));
		ret = tb_cfg_parse(keys, NKEYS, g->in, strlen(g->in), MAX_LEN,
				   g->priv, vals, &changed, &err);
		CHECK_EQ(ret, 0);
		CHECK_EQ(changed, 0);
		CHECK(same_vals(before, vals, NKEYS));
	}

	/* A privileged key set to 0 needs no privilege, even if it is not. */
	tb_cfg_defaults(keys, NKEYS, vals);
	vals[K_KERNEL].v = 1;
	vals[K_ADDR1].mode = TB_CFG_RANGE_FILTER;
	vals[K_ADDR1].end = 10;
	ret = tb_cfg_parse(keys, NKEYS, "kernel=0,addr1=off", 18, MAX_LEN,
			   false, vals, &changed, &err);
	CHECK_EQ(ret, 0);
	CHECK_EQ(changed, B(K_KERNEL) | B(K_ADDR1));
	CHECK(!strcmp(fmt(vals), DEFAULTS));

	/* Exactly max_len is fine; NULL changed and err are tolerated. */
	ret = tb_cfg_parse(keys, NKEYS, "user=0", 6, 6, false, vals, NULL,
			   NULL);
	CHECK_EQ(ret, 0);
	CHECK_EQ(vals[K_USER].v, 0);

	/* Values the parser does not touch keep their old value. */
	tb_cfg_defaults(keys, NKEYS, vals);
	vals[K_PAGES].v = 99;
	ret = tb_cfg_parse(keys, NKEYS, "cyc", 3, MAX_LEN, false, vals,
			   &changed, &err);
	CHECK_EQ(ret, 0);
	CHECK_EQ(vals[K_PAGES].v, 99);
	CHECK_EQ(changed, B(K_CYC));
}

/* ---- malformed strings ---- */

struct bad {
	const char *in;
	size_t len;		/* 0: strlen(in) */
	int priv;
	int err;
	unsigned int reason, off, elen;
};

#define EINV(s, r, o, l)	{ s, 0, 0, -EINVAL, TB_CFG_##r, o, l }
#define ERNG(s, r, o, l)	{ s, 0, 0, -ERANGE, TB_CFG_##r, o, l }

static const struct bad bads[] = {
	EINV("", EMPTY, 0, 0),
	EINV(",", EMPTY, 0, 0),
	EINV(",,", EMPTY, 0, 0),
	/* the first offending token: "a" is not a key */
	EINV("a=1,", UNKNOWN_KEY, 0, 3),
	EINV("branch=1,", EMPTY, 9, 0),
	EINV(",a=1", EMPTY, 0, 0),
	EINV(",branch=1", EMPTY, 0, 0),
	EINV("branch,,user", EMPTY, 7, 0),
	EINV("branch,user,", EMPTY, 12, 0),
	EINV("=", SYNTAX, 0, 1),
	EINV("=1", SYNTAX, 0, 2),
	EINV("user,=1", SYNTAX, 5, 2),
	EINV("branch=", SYNTAX, 0, 7),
	EINV("branch==1", SYNTAX, 0, 9),
	EINV("branch=1=", SYNTAX, 0, 9),
	EINV("cr3=1=2", SYNTAX, 0, 7),
	EINV("Branch=1", SYNTAX, 0, 8),
	EINV("bRanch", SYNTAX, 0, 6),
	EINV("1branch", SYNTAX, 0, 7),
	EINV("_branch", SYNTAX, 0, 7),
	EINV("bra-nch", SYNTAX, 0, 7),
	EINV("bra nch", SYNTAX, 0, 7),
	EINV(" branch", SYNTAX, 0, 7),
	EINV("branch ", SYNTAX, 0, 7),
	EINV("branch =1", SYNTAX, 0, 9),
	EINV("branch= 1", SYNTAX, 0, 9),
	EINV("branch=1 ", SYNTAX, 0, 9),
	EINV("user,branch=1 ", SYNTAX, 5, 9),
	EINV("user, branch", SYNTAX, 5, 7),
	EINV("branch=\xc3\xa9", NON_ASCII, 0, 9),
	EINV("\xff" "branch", NON_ASCII, 0, 7),
	EINV("user,\xff" "branch,tsc", NON_ASCII, 5, 7),
	EINV("\xff,unknown", NON_ASCII, 0, 1),
	EINV("branch=1\t", NON_ASCII, 0, 9),
	EINV("bra\x01nch", NON_ASCII, 0, 7),
	EINV("user=1,tsc\x7f", NON_ASCII, 7, 4),
	EINV("user\n", NON_ASCII, 0, 5),
	{ "branch\0", 7, 0, -EINVAL, TB_CFG_NON_ASCII, 0, 7 },
	{ "user,\0", 6, 0, -EINVAL, TB_CFG_NON_ASCII, 5, 1 },
	EINV("unknown=1", UNKNOWN_KEY, 0, 9),
	EINV("unknown", UNKNOWN_KEY, 0, 7),
	EINV("branc", UNKNOWN_KEY, 0, 5),
	EINV("branchx=1", UNKNOWN_KEY, 0, 9),
	EINV("user,unknown=\xff", NON_ASCII, 5, 9),
	EINV("unknown,\xff", UNKNOWN_KEY, 0, 7),
	EINV("abcdefghijklmnopqrstuvwxyz0123456789", UNKNOWN_KEY, 0, 36),
	EINV("pwr_evtx", UNKNOWN_KEY, 0, 8),
	EINV("cyc,cyc=0", DUPLICATE, 4, 5),
	EINV("cyc=1,cyc", DUPLICATE, 6, 3),
	EINV("cyc=1,cyc=1", DUPLICATE, 6, 5),
	EINV("cyc=1,cyc=5", DUPLICATE, 6, 5),
	EINV("user=1,tsc,user=0", DUPLICATE, 11, 6),
	EINV("cyc,cyc,Cyc", DUPLICATE, 4, 3),
	EINV("Cyc,cyc,cyc", SYNTAX, 0, 3),
	ERNG("cr3=18446744073709551616", OUT_OF_RANGE, 0, 24),
	ERNG("cr3=99999999999999999999", OUT_OF_RANGE, 0, 24),
	ERNG("cr3=0x10000000000000000", OUT_OF_RANGE, 0, 23),
	ERNG("cr3=0x1fffffffffffffffff", OUT_OF_RANGE, 0, 24),
	/* the number "current" would read as */
	ERNG("cr3=0xffffffffffffffff", OUT_OF_RANGE, 0, 22),
	ERNG("cr3=18446744073709551615", OUT_OF_RANGE, 0, 24),
	EINV("cr3=99999999999999999999x", BAD_VALUE, 0, 25),
	EINV("cr3=12ab", BAD_VALUE, 0, 8),
	EINV("cr3=0x12ag", BAD_VALUE, 0, 10),
	EINV("cr3=0x", BAD_VALUE, 0, 6),
	EINV("cr3=0X10", BAD_VALUE, 0, 8),
	EINV("cr3=x10", BAD_VALUE, 0, 7),
	EINV("cr3=-1", BAD_VALUE, 0, 6),
	EINV("cr3=+1", BAD_VALUE, 0, 6),
	EINV("cr3=0x-1", BAD_VALUE, 0, 8),
	EINV("cr3=0x+1", BAD_VALUE, 0, 8),
	EINV("cr3=Off", BAD_VALUE, 0, 7),
	EINV("cr3=currentx", BAD_VALUE, 0, 12),
	EINV("cr3", BAD_VALUE, 0, 3),
	EINV("vmcs=current", BAD_VALUE, 0, 12),
	ERNG("cyc_thresh=3", NOT_ALLOWED, 0, 12),
	ERNG("cyc_thresh=99", NOT_ALLOWED, 0, 13),
	ERNG("cyc_thresh=14", NOT_ALLOWED, 0, 13),
	ERNG("cyc_thresh=32", NOT_ALLOWED, 0, 13),
	ERNG("cyc_thresh=4294967296", NOT_ALLOWED, 0, 21),
	ERNG("cyc_thresh=99999999999999999999", OUT_OF_RANGE, 0, 31),
	EINV("cyc_thresh=0x4", BAD_VALUE, 0, 14),
	EINV("cyc_thresh=-1", BAD_VALUE, 0, 13),
	EINV("cyc_thresh", BAD_VALUE, 0, 10),
	ERNG("mtc_period=1", NOT_ALLOWED, 0, 12),
	ERNG("mtc_period=31", NOT_ALLOWED, 0, 13),
	ERNG("psb_period=6", NOT_ALLOWED, 0, 12),
	ERNG("pages=1", OUT_OF_RANGE, 0, 7),
	ERNG("pages=0", OUT_OF_RANGE, 0, 7),
	ERNG("pages=65537", OUT_OF_RANGE, 0, 11),
	ERNG("pages=0x10001", OUT_OF_RANGE, 0, 13),
	ERNG("pages=18446744073709551616", OUT_OF_RANGE, 0, 26),
	EINV("pages=0XfF", BAD_VALUE, 0, 10),
	EINV("pages=x", BAD_VALUE, 0, 7),
	EINV("pages=1k", BAD_VALUE, 0, 8),
	EINV("pages", BAD_VALUE, 0, 5),
	EINV("pages=off", BAD_VALUE, 0, 9),
	{ "pwr_evt=0", 0, 1, -EOPNOTSUPP, TB_CFG_UNSUPPORTED, 0, 9 },
	{ "pwr_evt", 0, 1, -EOPNOTSUPP, TB_CFG_UNSUPPORTED, 0, 7 },
	{ "pwr_evt=junk", 0, 0, -EOPNOTSUPP, TB_CFG_UNSUPPORTED, 0, 12 },
	{ "tsc,pwr_evt=1,pwr_evt", 0, 0, -EOPNOTSUPP, TB_CFG_UNSUPPORTED,
	  4, 9 },
	EINV("pwr_evt==", SYNTAX, 0, 9),
	{ "kernel=1", 0, 0, -EACCES, TB_CFG_PERMISSION, 0, 8 },
	{ "kernel", 0, 0, -EACCES, TB_CFG_PERMISSION, 0, 6 },
	{ "user,kernel,bogus", 0, 0, -EACCES, TB_CFG_PERMISSION, 5, 6 },
	{ "addr1=1-2:stop", 0, 0, -EACCES, TB_CFG_PERMISSION, 0, 14 },
	{ "addr1=0-0:filter", 0, 0, -EACCES, TB_CFG_PERMISSION, 0, 16 },
	{ "vmcs=1", 0, 0, -EACCES, TB_CFG_PERMISSION, 0, 6 },
	EINV("kernel=2", BAD_VALUE, 0, 8),
	EINV("addr0=0x2000-0x1000:filter", BAD_VALUE, 0, 26),
	EINV("addr0=0x1000-0x2000:foo", BAD_VALUE, 0, 23),
	EINV("addr0=0x1000-0x2000:", BAD_VALUE, 0, 20),
	EINV("addr0=0x1000-0x2000:Filter", BAD_VALUE, 0, 26),
	EINV("addr0=0x1000-:filter", BAD_VALUE, 0, 20),
	EINV("addr0=-0x1000:filter", BAD_VALUE, 0, 20),
	EINV("addr0=-:filter", BAD_VALUE, 0, 14),
	EINV("addr0=0x1000-0x2000", BAD_VALUE, 0, 19),
	EINV("addr0=0x1000:filter", BAD_VALUE, 0, 19),
	EINV("addr0=0x1000-0x2000:filter:stop", BAD_VALUE, 0, 31),
	EINV("addr0=1-2-3:stop", BAD_VALUE, 0, 16),
	EINV("addr0=1:2-3:stop", BAD_VALUE, 0, 16),
	ERNG("addr0=0x1-0x10000000000000000:stop", OUT_OF_RANGE, 0, 34),
	ERNG("addr0=18446744073709551616-1:stop", OUT_OF_RANGE, 0, 33),
	EINV("addr0=0x1-0x10000000000000000:bad", BAD_VALUE, 0, 33),
	EINV("addr0=0x1-0x10000000000000000x:stop", BAD_VALUE, 0, 35),
	EINV("addr0", BAD_VALUE, 0, 5),
	EINV("addr0=on", BAD_VALUE, 0, 8),
	EINV("addr0=current", BAD_VALUE, 0, 13),
	EINV("addr1=bogus", BAD_VALUE, 0, 11),
	EINV("branch=2", BAD_VALUE, 0, 8),
	EINV("branch=01", BAD_VALUE, 0, 9),
	EINV("branch=0x1", BAD_VALUE, 0, 10),
	EINV("branch=-1", BAD_VALUE, 0, 9),
	EINV("branch=on", BAD_VALUE, 0, 9),
	EINV("branch=1,cyc_thresh=3x,user=0", BAD_VALUE, 9, 13),
	ERNG("branch=0,cyc_thresh=3,user=0", NOT_ALLOWED, 9, 12),
	/* a bad key at the end of a long valid string */
	{ "vmcs=1,pages=3,addr1=1-2:filter,addr0=3-4:stop,cr3=5,"
	  "fup_on_ptw,ptw,noretcomp=1,psb_period=1,cyc_thresh=1,cyc,"
	  "mtc_period=9,mtc,tsc=0,kernel,user=0,branch=0,bogus", 0, 1,
	  -EINVAL, TB_CFG_UNKNOWN_KEY, 156, 5 },
	{ "vmcs=1,pages=3,addr1=1-2:filter,addr0=3-4:stop,cr3=5,"
	  "fup_on_ptw,ptw,noretcomp=1,psb_period=1,cyc_thresh=1,cyc,"
	  "mtc_period=9,mtc,tsc=0,kernel,user=0,branch=0,", 0, 1,
	  -EINVAL, TB_CFG_EMPTY, 156, 0 },
	{ "vmcs=1,pages=3,addr1=1-2:filter,addr0=3-4:stop,cr3=5,"
	  "fup_on_ptw,ptw,noretcomp=1,psb_period=1,cyc_thresh=1,cyc,"
	  "mtc_period=9,mtc,tsc=0,kernel,user=0,branch=0,cyc", 0, 1,
	  -EINVAL, TB_CFG_DUPLICATE, 156, 3 },
	{ "vmcs=1,pages=3,addr1=1-2:filter,addr0=3-4:stop,cr3=5,"
	  "fup_on_ptw,ptw,noretcomp=1,psb_period=1,cyc_thresh=1,cyc,"
	  "mtc_period=9,mtc,tsc=0,kernel,user=0,branch=0", 0, 0,
	  -EACCES, TB_CFG_PERMISSION, 0, 6 },
};

/* A state unlike the defaults, so that "unchanged" means something. */
static void odd_state(struct tb_cfg_val *vals)
{
	static const char s[] = "branch=0,cyc,cyc_thresh=5,cr3=0x77,pages=9,"
		"addr0=1-2:stop,kernel,addr1=3-4:filter";
	int ret;

	tb_cfg_defaults(keys, NKEYS, vals);
	ret = tb_cfg_parse(keys, NKEYS, s, sizeof(s) - 1, MAX_LEN, true, vals,
			   NULL, NULL);
	CHECK_EQ(ret, 0);
}

static int check_bad(const char *in, size_t len, size_t max_len, bool priv,
		     int want_err, unsigned int reason, unsigned int off,
		     unsigned int elen)
{
	struct tb_cfg_val vals[NKEYS], before[NKEYS];
	struct tb_cfg_err err;
	uint64_t changed = 0xdead;
	char *copy;
	int ret;

	/* An exact-size copy: reading past len is caught under ASan. */
	copy = malloc(len ? len : 1);
	if (!copy)
		abort();
	memcpy(copy, in, len);
	odd_state(vals);
	memcpy(before, vals, sizeof(vals));
	memset(&err, 0xff, sizeof(err));
	ret = tb_cfg_parse(keys, NKEYS, copy, len, max_len, priv, vals,
			   &changed, &err);
	free(copy);
	if (ret != want_err || err.reason != reason || err.offset != off ||
	    err.len != elen || changed != 0 ||
	    !same_vals(before, vals, NKEYS)) {
		check_failures++;
		fprintf(stderr, "bad \"%.*s\": got %d reason %u at %u+%u changed %#llx%s, want %d reason %u at %u+%u\n",
			(int)len, in, ret, err.reason, err.offset, err.len,
			(unsigned long long)changed,
			same_vals(before, vals, NKEYS) ? "" : " VALUES CHANGED",
			want_err, reason, off, elen);
		return 0;
	}
	CHECK_EQ(tb_cfg_errno(err.reason), ret);
	return 1;
}

static void test_bad(void)
{
	char big[MAX_LEN + 2];
	size_t i;

	for (i = 0; i < sizeof(bads) / sizeof(bads[0]); i++) {
		const struct bad *b = &bads[i];

		check_bad(b->in, b->len ? b->len : strlen(b->in), MAX_LEN,
			  b->priv, b->err, b->reason, b->off, b->elen);
		/* Privilege changes nothing else. */
		if (!b->priv && b->reason != TB_CFG_PERMISSION)
			check_bad(b->in, b->len ? b->len : strlen(b->in),
				  MAX_LEN, !b->priv, b->err, b->reason, b->off,
				  b->elen);
	}

	/* Too long: at max_len, the excess; before anything else. */
	memcpy(big, "cr3=", 4);
	memset(big + 4, '0', sizeof(big) - 4);
	check_bad(big, MAX_LEN + 1, MAX_LEN, false, -EINVAL, TB_CFG_TOO_LONG,
		  MAX_LEN, 1);
	check_bad(big, MAX_LEN + 2, MAX_LEN, false, -EINVAL, TB_CFG_TOO_LONG,
		  MAX_LEN, 2);
	check_bad("branch=1,user=1", 15, 14, false, -EINVAL, TB_CFG_TOO_LONG,
		  14, 1);
	check_bad("\xff,,,", 4, 2, false, -EINVAL, TB_CFG_TOO_LONG, 2, 2);
	check_bad("", 0, 0, false, -EINVAL, TB_CFG_EMPTY, 0, 0);
	check_bad("x", 1, 0, false, -EINVAL, TB_CFG_TOO_LONG, 0, 1);
	{
		struct tb_cfg_val vals[NKEYS];
		struct tb_cfg_err err;

		tb_cfg_defaults(keys, NKEYS, vals);
		CHECK_EQ(tb_cfg_parse(keys, NKEYS, big, MAX_LEN, MAX_LEN,
				      false, vals, NULL, &err), 0);
		/* An empty string may come as NULL. */
		CHECK_EQ(tb_cfg_parse(keys, NKEYS, NULL, 0, MAX_LEN, false,
				      vals, NULL, &err), -EINVAL);
		CHECK_EQ(err.reason, TB_CFG_EMPTY);
	}
}

/* ---- a table of TB_CFG_MAX_KEYS keys, and one too many ---- */

static void test_max_keys(void)
{
	static struct tb_cfg_key big[TB_CFG_MAX_KEYS + 1];
	static char names[TB_CFG_MAX_KEYS + 1][8];
	struct tb_cfg_val vals[TB_CFG_MAX_KEYS + 1];
	struct tb_cfg_err err;
	uint64_t changed;
	char buf[1024];
	unsigned int i;
	int ret;

	for (i = 0; i <= TB_CFG_MAX_KEYS; i++) {
		snprintf(names[i], sizeof(names[i]), "k%u", i);
		big[i].name = names[i];
		big[i].type = TB_CFG_BOOL;
	}
	tb_cfg_defaults(big, TB_CFG_MAX_KEYS, vals);
	ret = tb_cfg_parse(big, TB_CFG_MAX_KEYS, "k63,k0,k1=0", 11, 100,
			   false, vals, &changed, &err);
	CHECK_EQ(ret, 0);
	CHECK(changed == ((1ULL << 63) | 1));
	CHECK_EQ(vals[63].v, 1);
	ret = tb_cfg_parse(big, TB_CFG_MAX_KEYS, "k62,k63=0,k63", 13, 100,
			   false, vals, &changed, &err);
	CHECK_EQ(ret, -EINVAL);
	CHECK_EQ(err.reason, TB_CFG_DUPLICATE);
	CHECK_EQ(err.offset, 10);
	CHECK_EQ(vals[62].v, 0);
	CHECK_EQ(vals[63].v, 1);
	ret = tb_cfg_parse(big, TB_CFG_MAX_KEYS, "k64", 3, 100, false, vals,
			   &changed, &err);
	CHECK_EQ(err.reason, TB_CFG_UNKNOWN_KEY);
	/* A caller bug. */
	ret = tb_cfg_parse(big, TB_CFG_MAX_KEYS + 1, "k0", 2, 100, false,
			   vals, &changed, &err);
	CHECK_EQ(ret, -EINVAL);
	CHECK_EQ(vals[0].v, 1);
	/* No keys: nothing is known; the canonical form is empty. */
	ret = tb_cfg_parse(big, 0, "k0", 2, 100, false, vals, &changed, &err);
	CHECK_EQ(ret, -EINVAL);
	CHECK_EQ(err.reason, TB_CFG_UNKNOWN_KEY);
	buf[0] = 'x';
	CHECK_EQ(tb_cfg_format(big, 0, vals, buf, sizeof(buf)), 0);
	CHECK_EQ(buf[0], '\0');
}

/* ---- tb_cfg_format into small buffers ---- */

static void check_small(const struct tb_cfg_val *vals)
{
	char full[1024], buf[1100];
	size_t len, size, n, i;

	len = tb_cfg_format(keys, NKEYS, vals, full, sizeof(full));
	CHECK(len < sizeof(full));
	CHECK_EQ(tb_cfg_format(keys, NKEYS, vals, NULL, 0), len);
	for (size = 0; size <= len + 1; size++) {
		memset(buf, 0xaa, sizeof(buf));
		n = tb_cfg_format(keys, NKEYS, vals, buf, size);
		CHECK_EQ(n, len);
		if (size) {
			n = len < size - 1 ? len : size - 1;
			CHECK(!memcmp(buf, full, n));
			CHECK_EQ(buf[n], '\0');
		}
		for (i = size; i < sizeof(buf); i++) {
			if ((unsigned char)buf[i] != 0xaa) {
				check_failures++;
				fprintf(stderr, "format size %zu wrote at %zu\n",
					size, i);
				break;
			}
		}
	}
}

static void test_format(void)
{
	static const char maxed[] = "cr3=0xfffffffffffffffe,"
		"addr0=0-0xffffffffffffffff:filter,"
		"addr1=0xffffffffffffffff-0xffffffffffffffff:stop,"
		"vmcs=18446744073709551615,pages=65536,mtc_period=9";
	struct tb_cfg_val vals[NKEYS];
	char buf[1024];
	int ret;

	tb_cfg_defaults(keys, NKEYS, vals);
	check_small(vals);
	odd_state(vals);
	check_small(vals);
	ret = tb_cfg_parse(keys, NKEYS, maxed, sizeof(maxed) - 1, MAX_LEN,
			   true, vals, NULL, NULL);
	CHECK_EQ(ret, 0);
	check_small(vals);

	/* Decimal at the edges; 'current' only with TB_CFG_F_CURRENT. */
	tb_cfg_defaults(keys, NKEYS, vals);
	vals[K_PAGES].v = ~0ULL;
	vals[K_VMCS].v = ~0ULL;
	vals[K_CR3].v = ~0ULL;
	tb_cfg_format(keys, NKEYS, vals, buf, sizeof(buf));
	CHECK(strstr(buf, ",pages=18446744073709551615,"));
	CHECK(strstr(buf, ",vmcs=0xffffffffffffffff"));
	CHECK(strstr(buf, ",cr3=current,"));
	vals[K_PAGES].v = 10000000000000000000ULL;
	tb_cfg_format(keys, NKEYS, vals, buf, sizeof(buf));
	CHECK(strstr(buf, ",pages=10000000000000000000,"));
	vals[K_PAGES].v = 9999999999999999999ULL;
	tb_cfg_format(keys, NKEYS, vals, buf, sizeof(buf));
	CHECK(strstr(buf, ",pages=9999999999999999999,"));
	vals[K_PAGES].v = 0;
	vals[K_VMCS].v = 0x10;
	tb_cfg_format(keys, NKEYS, vals, buf, sizeof(buf));
	CHECK(strstr(buf, ",pages=0,vmcs=0x10"));
}

static void test_errno(void)
{
	static const int want[] = {
		0, -EINVAL, -EINVAL, -EINVAL, -EINVAL, -EINVAL, -EINVAL,
		-ERANGE, -ERANGE, -EOPNOTSUPP, -EACCES, -EINVAL, -EINVAL,
	};
	unsigned int r;

	for (r = 0; r < sizeof(want) / sizeof(want[0]); r++)
		CHECK_EQ(tb_cfg_errno(r), want[r]);
	CHECK_EQ(TB_CFG_TOO_LONG, 11);
	CHECK_EQ(TB_CFG_CONFLICT, 12);
	CHECK_EQ(tb_cfg_errno(13), -EINVAL);
	CHECK_EQ(tb_cfg_errno(~0U), -EINVAL);
}

/*
 * The hardware's limits a backend puts in its keys: reserved bits of a
 * U64 (Intel PT's CR3_MATCH bits 4:0) and a hole of addresses a RANGE may
 * not start or end in (non-canonical, 48-bit); and the token of a
 * conflict the backend found after parsing.
 */
static void test_limits(void)
{
	static const struct tb_cfg_key lk[] = {
		{ .name = "user", .type = TB_CFG_BOOL, .def = 1 },
		{ .name = "cr3", .type = TB_CFG_U64, .flags = TB_CFG_F_CURRENT,
		  .rsvd = 0x1f },
		{ .name = "addr0", .type = TB_CFG_RANGE, .hole_lo = 1ULL << 47,
		  .hole_hi = 0xffff7fffffffffffULL },
	};
	static const struct { const char *s; int ret; unsigned int reason, off, len; } c[] = {
		{ "cr3=0x1000", 0, 0, 0, 0 },
		{ "cr3=0x1001", -ERANGE, TB_CFG_OUT_OF_RANGE, 0, 10 },
		{ "user=0,cr3=0x1010", -ERANGE, TB_CFG_OUT_OF_RANGE, 7, 10 },
		{ "cr3=0x1020", 0, 0, 0, 0 },
		{ "cr3=current", 0, 0, 0, 0 },
		{ "addr0=0x400000-0x7fffffffffff:filter", 0, 0, 0, 0 },
		{ "addr0=0xffff800000000000-0xffffffffffffffff:stop", 0, 0, 0, 0 },
		/* spanning the hole is two canonical addresses: the hardware takes it */
		{ "addr0=0x1000-0xffff800000000000:filter", 0, 0, 0, 0 },
		{ "addr0=0x1000-0x800000000000:filter", -ERANGE, TB_CFG_OUT_OF_RANGE, 0, 34 },
		{ "addr0=0xffff7fffffffffff-0xffff800000000000:filter", -ERANGE,
		  TB_CFG_OUT_OF_RANGE, 0, 50 },
	};
	struct tb_cfg_val v[3];
	struct tb_cfg_err err;
	unsigned int i;
	int ret;

	for (i = 0; i < sizeof(c) / sizeof(c[0]); i++) {
		tb_cfg_defaults(lk, 3, v);
		memset(&err, 0, sizeof(err));
		ret = tb_cfg_parse(lk, 3, c[i].s, strlen(c[i].s), MAX_LEN, false, v, NULL, &err);
		CHECK_EQ(ret, c[i].ret);
		if (ret) {
			CHECK_EQ(err.reason, c[i].reason);
			CHECK_EQ(err.offset, c[i].off);
			CHECK_EQ(err.len, c[i].len);
		}
	}
	/* The first token naming a key of the mask, whole. */
	CHECK(tb_cfg_find(lk, 3, "addr0=off,cr3=current,user=1", 28, 0x3, &err));
	CHECK_EQ(err.reason, TB_CFG_CONFLICT);
	CHECK_EQ(err.offset, 10);
	CHECK_EQ(err.len, 11);
	CHECK(tb_cfg_find(lk, 3, "addr0=off,user", 14, 0x3, &err));
	CHECK_EQ(err.offset, 10);
	CHECK_EQ(err.len, 4);
	/* "user" is not a prefix match of "users", nor "cr" of "cr3" */
	CHECK(!tb_cfg_find(lk, 3, "addr0=off", 9, 0x3, &err));
	CHECK_EQ(err.offset, 0);
	CHECK_EQ(err.len, 0);
	CHECK(!tb_cfg_find(lk, 3, "users=1,cr=1", 12, 0x3, &err));
}

int main(int argc, char **argv)
{
	unsigned long iterations = 1000000;

	if (argc > 1)
		iterations = strtoul(argv[1], NULL, 0);
	test_errno();
	test_good();
	test_bad();
	test_max_keys();
	test_format();
	test_limits();
	if (iterations)
		check_failures += (int)drvcfg_fuzz(keys, NKEYS, 300,
						   iterations, 0x5eed);
	return check_done();
}
