/* SPDX-License-Identifier: GPL-2.0 */
/*
 * Random strings against tb_cfg_parse() (module/drvcfg.c), for any key
 * table: random bytes, random printable ASCII, random tokens built from the
 * table's names and plausible values, and mutated canonical strings. Each
 * result is checked against invariants rather than an expected answer:
 *
 *  - the return is 0 or one of -EINVAL, -ERANGE, -EOPNOTSUPP, -EACCES, and
 *    is tb_cfg_errno() of the reason;
 *  - on failure nothing changed, *changed is 0, and the error names one
 *    whole token (bounded by ',' or the ends of the string) that is empty
 *    exactly when the reason is EMPTY and holds a non-ASCII or control byte
 *    exactly when it is NON_ASCII, and everything before it parses; a
 *    string over max_len is TOO_LONG at max_len for the excess;
 *  - on success, *changed is exactly the keys whose value differs, every
 *    value is valid for its key, privileged keys only became non-zero with
 *    privilege, and the canonical form parses back (privileged, from the
 *    defaults) to the same values and prints the same again.
 */
#include <errno.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "../../module/drvcfg.h"

#include "check.h"

long drvcfg_fuzz(const struct tb_cfg_key *keys, unsigned int nkeys,
		 size_t max_len, unsigned long iterations, uint64_t seed);

#define FMT_MAX		8192
#define STR_MAX		4096

static uint64_t rng;

static uint64_t rnd(void)
{
	rng ^= rng >> 12;
	rng ^= rng << 25;
	rng ^= rng >> 27;
	return rng * 0x2545f4914f6cdd1dULL;
}

static unsigned int below(unsigned int n)
{
	return (unsigned int)((rnd() >> 32) % n);
}

struct str {
	char s[STR_MAX];
	size_t len;
};

static void add(struct str *o, const char *s, size_t n)
{
	if (o->len + n > sizeof(o->s))
		n = sizeof(o->s) - o->len;
	memcpy(o->s + o->len, s, n);
	o->len += n;
}

static void adds(struct str *o, const char *s)
{
	add(o, s, strlen(s));
}

static void addc(struct str *o, char c)
{
	add(o, &c, 1);
}

static void add_u64(struct str *o, uint64_t v, int hex)
{
	char b[40];

	snprintf(b, sizeof(b), hex ? (below(2) ? "0x%llx" : "0x%llX") : "%llu",
		 (unsigned long long)v);
	adds(o, b);
}

/* A number, mostly near something interesting. */
static uint64_t num(const struct tb_cfg_key *k)
{
	switch (below(8)) {
	case 0:
		return rnd();
	case 1:
		return rnd() >> below(64);
	case 2:
		return k->min + below(3) - 1;
	case 3:
		return k->max + below(3) - 1;
	case 4:
		return ~0ULL - below(3);
	default:
		return below(40);
	}
}

static void add_number(struct str *o, const struct tb_cfg_key *k)
{
	static const char *const odd[] = {
		"18446744073709551616", "99999999999999999999999",
		"0x10000000000000000", "0x", "0X10", "-1", "+1", "1k", "",
		"00", "0x0", "0xffffffffffffffff", "18446744073709551615",
	};

	if (!below(10))
		adds(o, odd[below(sizeof(odd) / sizeof(odd[0]))]);
	else
		add_u64(o, num(k), k->type != TB_CFG_ENUM ? (int)below(2) :
			!below(10));
}

static void add_value(struct str *o, const struct tb_cfg_key *k)
{
	static const char *const words[] = {
		"off", "current", "filter", "stop", "on", "1-2", ":stop",
	};
	uint64_t a, b;

	if (!below(20)) {
		adds(o, words[below(sizeof(words) / sizeof(words[0]))]);
		return;
	}
	switch (k->type) {
	case TB_CFG_BOOL:
		addc(o, below(8) ? (char)('0' + below(2)) : '2');
		break;
	case TB_CFG_U64:
		if (!below(4)) {
			adds(o, below(2) ? "off" : "current");
			break;
		}
		add_number(o, k);
		break;
	case TB_CFG_RANGE:
		if (!below(4)) {
			adds(o, "off");
			break;
		}
		a = num(k);
		b = num(k);
		if (a > b && below(8)) {
			uint64_t t = a;

			a = b;
			b = t;
		}
		if (below(20)) {
			add_u64(o, a, (int)below(2));
			addc(o, '-');
			add_u64(o, b, (int)below(2));
		} else {
			add_number(o, k);
			addc(o, '-');
			add_number(o, k);
		}
		adds(o, below(20) ? (below(2) ? ":filter" : ":stop") : ":x");
		break;
	default:
		add_number(o, k);
		break;
	}
}

/* Tokens from the table's names. */
static void gen_tokens(struct str *o, const struct tb_cfg_key *keys,
		       unsigned int nkeys)
{
	unsigned int n = below(4) ? 1 + below(5) : below(20), i, j, t;
	const struct tb_cfg_key *k;
	uint64_t used = 0;
	char junk[8];

	if (!below(50))
		addc(o, ',');
	for (i = 0; i < n; i++) {
		if (i)
			adds(o, below(100) ? "," : ",,");
		/* Mostly no duplicates. */
		for (t = 0; t < 4; t++) {
			k = &keys[below(nkeys)];
			if (!(used >> (k - keys) & 1) || !below(10))
				break;
		}
		used |= 1ULL << (k - keys);
		if (!below(30)) {
			for (j = 0; j < 1 + below(6); j++)
				junk[j] = "abcxyz_019A -="[below(14)];
			add(o, junk, j);
		} else {
			adds(o, k->name);
		}
		if (k->type == TB_CFG_BOOL ? below(3) : below(20)) {
			addc(o, '=');
			add_value(o, k);
		}
	}
	if (!below(50))
		addc(o, ',');
}

static void gen_bytes(struct str *o, size_t max_len, int ascii)
{
	static const char alpha[] = "abcdefghijklmnopqrstuvwxyz0123456789"
		"_=,-:x ABCXZ\t\x7f\x01\x80\xff";
	size_t n = below((unsigned int)max_len + 17), i;

	for (i = 0; i < n; i++)
		addc(o, ascii ? alpha[below(sizeof(alpha) - 1)] :
		     (char)below(256));
}

static void mutate(struct str *o)
{
	static const char alpha[] = "abcdefghijklmnopqrstuvwxyz0123456789"
		"_=,-: xX\xc3";
	unsigned int n = 1 + below(3), i;
	size_t at, m;

	for (i = 0; i < n; i++) {
		at = o->len ? below((unsigned int)o->len + 1) : 0;
		switch (below(5)) {
		case 0:		/* replace */
			if (at < o->len)
				o->s[at] = alpha[below(sizeof(alpha) - 1)];
			break;
		case 1:		/* insert */
			if (o->len < sizeof(o->s)) {
				memmove(o->s + at + 1, o->s + at, o->len - at);
				o->s[at] = alpha[below(sizeof(alpha) - 1)];
				o->len++;
			}
			break;
		case 2:		/* delete a few */
			m = below(4);
			if (at + m > o->len)
				m = o->len - at;
			memmove(o->s + at, o->s + at + m, o->len - at - m);
			o->len -= m;
			break;
		case 3:		/* truncate */
			o->len = at;
			break;
		default:	/* repeat a piece at the end */
			m = below(16);
			if (at + m > o->len)
				m = o->len - at;
			if (o->len + 1 + m <= sizeof(o->s)) {
				o->s[o->len++] = ',';
				memmove(o->s + o->len, o->s + at, m);
				o->len += m;
			}
			break;
		}
	}
}

static int bad_byte(unsigned char c)
{
	return c < 0x20 || c >= 0x7f;
}

static int same(const struct tb_cfg_val *a, const struct tb_cfg_val *b)
{
	return a->v == b->v && a->end == b->end && a->mode == b->mode;
}

static int nonzero(const struct tb_cfg_key *k, const struct tb_cfg_val *v)
{
	return k->type == TB_CFG_RANGE ? v->mode != TB_CFG_RANGE_OFF :
		v->v != 0;
}

static int valid(const struct tb_cfg_key *k, const struct tb_cfg_val *v)
{
	if (k->type != TB_CFG_RANGE && (v->end || v->mode))
		return 0;
	switch (k->type) {
	case TB_CFG_BOOL:
		return v->v <= 1;
	case TB_CFG_UINT:
		return v->v >= k->min && v->v <= k->max;
	case TB_CFG_ENUM:
		return v->v < 32 && (k->allowed >> v->v & 1);
	case TB_CFG_U64:
		return 1;
	case TB_CFG_RANGE:
		if (v->mode == TB_CFG_RANGE_OFF)
			return !v->v && !v->end;
		return (v->mode == TB_CFG_RANGE_FILTER ||
			v->mode == TB_CFG_RANGE_STOP) && v->v <= v->end;
	}
	return 0;
}

static unsigned long seen[TB_CFG_TOO_LONG + 1];
static unsigned long ok_by_gen[4], runs_by_gen[4];

static void report(const char *what, const struct str *in, int priv)
{
	check_failures++;
	if (check_failures > 20)
		return;
	fprintf(stderr, "fuzz: %s (privileged %d): \"", what, priv);
	for (size_t i = 0; i < in->len; i++) {
		unsigned char c = (unsigned char)in->s[i];

		if (bad_byte(c) || c == '"' || c == '\\')
			fprintf(stderr, "\\x%02x", c);
		else
			fputc(c, stderr);
	}
	fprintf(stderr, "\"\n");
}

static void one(const struct tb_cfg_key *keys, unsigned int nkeys,
		size_t max_len, const struct str *in, int priv,
		struct tb_cfg_val *cur, int gen)
{
	struct tb_cfg_val vals[TB_CFG_MAX_KEYS], back[TB_CFG_MAX_KEYS];
	static char f1[FMT_MAX], f2[FMT_MAX];
	struct tb_cfg_err err, err2;
	uint64_t changed = 0xdead, ch2;
	size_t n1, n2, off, end, i;
	char *copy;
	int ret, r2;

	/* An exact-size copy: reading past len is caught under ASan. */
	copy = malloc(in->len ? in->len : 1);
	if (!copy)
		abort();
	memcpy(copy, in->s, in->len);
	memcpy(vals, cur, nkeys * sizeof(*vals));
	memset(&err, 0xaa, sizeof(err));
	ret = tb_cfg_parse(keys, nkeys, copy, in->len, max_len, priv, vals,
			   &changed, &err);
	runs_by_gen[gen]++;

	if (ret != 0 && ret != -EINVAL && ret != -ERANGE &&
	    ret != -EOPNOTSUPP && ret != -EACCES)
		report("bad return", in, priv);
	if (err.reason > TB_CFG_TOO_LONG || tb_cfg_errno(err.reason) != ret) {
		report("return is not the reason's errno", in, priv);
		goto out;
	}
	seen[err.reason]++;

	if (ret) {
		for (i = 0; i < nkeys; i++) {
			if (!same(&vals[i], &cur[i]))
				changed |= 1;
		}
		if (changed)
			report("failed, but changed", in, priv);
		if (in->len > max_len) {
			if (err.reason != TB_CFG_TOO_LONG ||
			    err.offset != max_len ||
			    err.len != in->len - max_len)
				report("too long, not TOO_LONG", in, priv);
			goto out;
		}
		off = err.offset;
		end = off + err.len;
		if (err.reason == TB_CFG_TOO_LONG || off > in->len ||
		    end > in->len) {
			report("error outside the string", in, priv);
			goto out;
		}
		if ((off && in->s[off - 1] != ',') ||
		    (end < in->len && in->s[end] != ','))
			report("error not on a whole token", in, priv);
		if ((err.reason == TB_CFG_EMPTY) != (err.len == 0))
			report("EMPTY <=> len 0", in, priv);
		for (i = off; i < end; i++) {
			if (in->s[i] == ',')
				report("error over several tokens", in, priv);
			if (bad_byte((unsigned char)in->s[i]))
				break;
		}
		if ((err.reason == TB_CFG_NON_ASCII) != (i < end))
			report("NON_ASCII <=> a bad byte", in, priv);
		/* Everything before the offending token is fine. */
		if (off) {
			memcpy(back, cur, nkeys * sizeof(*back));
			r2 = tb_cfg_parse(keys, nkeys, copy, off - 1, max_len,
					  priv, back, &ch2, &err2);
			if (r2)
				report("the tokens before the error fail", in,
				       priv);
		}
		goto out;
	}

	ok_by_gen[gen]++;
	for (i = 0; i < nkeys; i++) {
		if (!!(changed >> i & 1) != !same(&vals[i], &cur[i]))
			report("changed is wrong", in, priv);
		if (!valid(&keys[i], &vals[i]) && !same(&vals[i], &cur[i]))
			report("invalid value", in, priv);
		if ((keys[i].flags & TB_CFG_F_UNSUPPORTED) &&
		    !same(&vals[i], &cur[i]))
			report("unsupported key changed", in, priv);
		if ((keys[i].flags & TB_CFG_F_PRIV) && !priv &&
		    !same(&vals[i], &cur[i]) && nonzero(&keys[i], &vals[i]))
			report("privileged key set", in, priv);
	}

	/* Round trip through the canonical form. */
	n1 = tb_cfg_format(keys, nkeys, vals, f1, sizeof(f1));
	if (n1 >= sizeof(f1) || strlen(f1) != n1) {
		report("format length", in, priv);
		goto out;
	}
	tb_cfg_defaults(keys, nkeys, back);
	r2 = tb_cfg_parse(keys, nkeys, f1, n1, FMT_MAX, true, back, &ch2,
			  &err2);
	for (i = 0; i < nkeys && !r2; i++) {
		if (!same(&back[i], &vals[i]))
			r2 = 1;
	}
	if (r2) {
		report("canonical form does not parse back", in, priv);
		fprintf(stderr, "  %s: %d reason %u at %u\n", f1, r2,
			err2.reason, err2.offset);
		goto out;
	}
	n2 = tb_cfg_format(keys, nkeys, back, f2, sizeof(f2));
	if (n2 != n1 || strcmp(f1, f2))
		report("canonical form is not a fixed point", in, priv);
	memcpy(cur, vals, nkeys * sizeof(*vals));
out:
	free(copy);
}

long drvcfg_fuzz(const struct tb_cfg_key *keys, unsigned int nkeys,
		 size_t max_len, unsigned long iterations, uint64_t seed)
{
	struct tb_cfg_val cur[TB_CFG_MAX_KEYS];
	static char f[FMT_MAX];
	unsigned long it;
	struct str in;
	unsigned int r;
	int gen, priv;
	size_t n;

	rng = seed ? seed : 1;
	if (nkeys > TB_CFG_MAX_KEYS)
		return 1;
	tb_cfg_defaults(keys, nkeys, cur);
	for (it = 0; it < iterations; it++) {
		in.len = 0;
		priv = (int)below(2);
		if (!below(100))
			tb_cfg_defaults(keys, nkeys, cur);
		gen = (int)below(4);
		switch (gen) {
		case 0:
			gen_bytes(&in, max_len, 0);
			break;
		case 1:
			gen_bytes(&in, max_len, 1);
			break;
		case 2:
			gen_tokens(&in, keys, nkeys);
			if (!below(4))
				mutate(&in);
			break;
		default:
			/* The canonical form of this state, or of tokens. */
			if (below(2)) {
				n = tb_cfg_format(keys, nkeys, cur, f,
						  sizeof(f));
				add(&in, f, n);
			} else {
				gen_tokens(&in, keys, nkeys);
			}
			if (below(4))
				mutate(&in);
			break;
		}
		one(keys, nkeys, max_len, &in, priv, cur, gen);
	}

	printf("fuzz: %lu strings; parsed: bytes %lu/%lu, ascii %lu/%lu, tokens %lu/%lu, mutated %lu/%lu\n",
	       iterations, ok_by_gen[0], runs_by_gen[0], ok_by_gen[1],
	       runs_by_gen[1], ok_by_gen[2], runs_by_gen[2], ok_by_gen[3],
	       runs_by_gen[3]);
	printf("fuzz: by reason:");
	for (r = 0; r <= TB_CFG_TOO_LONG; r++)
		printf(" %u:%lu", r, seen[r]);
	printf("\n");
	/* A fuzz that never gets anywhere proves nothing. */
	if (iterations >= 100000) {
		for (r = 0; r <= TB_CFG_TOO_LONG; r++) {
			if (!seen[r]) {
				check_failures++;
				fprintf(stderr, "fuzz: reason %u never seen\n",
					r);
			}
		}
		if (ok_by_gen[2] + ok_by_gen[3] < iterations / 20) {
			check_failures++;
			fprintf(stderr, "fuzz: too few valid strings\n");
		}
	}
	return check_failures;
}
