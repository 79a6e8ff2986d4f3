// SPDX-License-Identifier: GPL-2.0
/*
 * Driver configuration strings: see drvcfg.h. Pure logic, shared by the
 * module and the host unit tests (tests/unit/drvcfg.c), so it uses nothing
 * beyond <linux/types.h>, <linux/bits.h>, <linux/errno.h> and
 * <linux/string.h>: numbers are parsed and printed here.
 *
 * Where drvcfg.h leaves a choice:
 *  - Errors name the first offending token, left to right. Within a token
 *    the checks run in this order: bytes (NON_ASCII), syntax (SYNTAX), key
 *    (UNKNOWN_KEY), DUPLICATE, UNSUPPORTED, the value (BAD_VALUE,
 *    OUT_OF_RANGE, NOT_ALLOWED), PERMISSION. So "a=1," is UNKNOWN_KEY at 0
 *    when there is no key "a", and EMPTY at 4 only when "a=1" is valid.
 *  - err->offset and err->len always cover the whole token, KEY or
 *    KEY=VALUE, never the value alone, whatever the reason.
 *  - An empty token (the empty string, a leading or trailing ',', ",,") is
 *    EMPTY, len 0, at the offset where the token would start.
 *  - A string longer than max_len is TOO_LONG, offset max_len, len the
 *    excess (offset + len = the string's length), before any other check.
 *  - Bytes >= 0x80 and control characters (< 0x20, 0x7f) are NON_ASCII;
 *    a space or other printable character out of place is SYNTAX, as are
 *    an empty value ("key=") and a second '=' in a token.
 *  - Numbers: decimal, or "0x" (lowercase x) and hex digits of either case.
 *    Malformed beats overflow: "1x" and "99999999999999999999x" are
 *    BAD_VALUE, "99999999999999999999" is OUT_OF_RANGE.
 *  - BOOL takes exactly "0" or "1" (or nothing): "2", "01" are BAD_VALUE.
 *  - ENUM takes decimal only, as the header says ("0x3" is BAD_VALUE); a
 *    value beyond u64 is OUT_OF_RANGE, any other value whose bit is not
 *    set in 'allowed' (and anything above 31) NOT_ALLOWED.
 *  - U64 with TB_CFG_F_CURRENT: the number TB_CFG_CURRENT itself is
 *    OUT_OF_RANGE, as it would mean "current". "current" on a key
 *    without the flag is BAD_VALUE.
 *  - RANGE with START > END is BAD_VALUE (not a range); START or END
 *    beyond u64 is OUT_OF_RANGE.
 *  - nkeys > TB_CFG_MAX_KEYS is a caller bug: -EINVAL, reason SYNTAX at
 *    offset 0, len 0.
 *  - Keys with TB_CFG_F_UNSUPPORTED cannot be named, so the canonical form
 *    leaves them out (it can then be parsed back).
 *  - A value the string sets is stored whole: v, end = 0 and mode =
 *    TB_CFG_RANGE_OFF for non-RANGE keys. *changed compares v, end, mode.
 *
 * All or nothing without a copy of the values on the stack: a first pass
 * checks every token (duplicates through a u64, a bit per key, hence
 * TB_CFG_MAX_KEYS), a second pass, which cannot fail, applies them.
 */
#include <linux/bits.h>
#include <linux/errno.h>
#include <linux/string.h>
#include <linux/types.h>

#include "drvcfg.h"

#define TB_CFG_U64_MAX		(~0ULL)
#define TB_CFG_U32_MAX		0xffffffffU
#define TB_CFG_DEC_DIGITS	20	/* in TB_CFG_U64_MAX */

enum tb_cfg_num {
	TB_CFG_NUM_OK,
	TB_CFG_NUM_BAD,
	TB_CFG_NUM_OVERFLOW,
};

static bool tb_cfg_is(const char *s, size_t n, const char *lit)
{
	return strlen(lit) == n && !memcmp(s, lit, n);
}

static int tb_cfg_hexdigit(char c)
{
	if (c >= '0' && c <= '9')
		return c - '0';
	if (c >= 'a' && c <= 'f')
		return c - 'a' + 10;
	if (c >= 'A' && c <= 'F')
		return c - 'A' + 10;
	return -1;
}

/* s[0..n): decimal, or 0x-hex when hex is allowed. */
static enum tb_cfg_num tb_cfg_get_num(const char *s, size_t n, bool hex,
				      u64 *out)
{
	bool over = false;
	u64 v = 0;
	size_t i;
	int d;

	if (!n)
		return TB_CFG_NUM_BAD;
	if (hex && n > 2 && s[0] == '0' && s[1] == 'x') {
		for (i = 2; i < n; i++) {
			d = tb_cfg_hexdigit(s[i]);
			if (d < 0)
				return TB_CFG_NUM_BAD;
			if (v >> 60)
				over = true;
			v = v << 4 | (u64)d;
		}
	} else {
		for (i = 0; i < n; i++) {
			if (s[i] < '0' || s[i] > '9')
				return TB_CFG_NUM_BAD;
			d = s[i] - '0';
			if (v > TB_CFG_U64_MAX / 10 ||
			    (v == TB_CFG_U64_MAX / 10 &&
			     (u64)d > TB_CFG_U64_MAX % 10))
				over = true;
			v = v * 10 + (u64)d;
		}
	}
	if (over)
		return TB_CFG_NUM_OVERFLOW;
	*out = v;
	return TB_CFG_NUM_OK;
}

static u32 tb_cfg_num_reason(enum tb_cfg_num r)
{
	return r == TB_CFG_NUM_BAD ? TB_CFG_BAD_VALUE : TB_CFG_OUT_OF_RANGE;
}

/* RANGE value: "off" or START-END:filter|stop. */
static bool tb_cfg_in_hole(const struct tb_cfg_key *k, u64 a)
{
	return k->hole_hi && a >= k->hole_lo && a <= k->hole_hi;
}

static u32 tb_cfg_range(const struct tb_cfg_key *k, const char *s, size_t n,
			struct tb_cfg_val *val)
{
	enum tb_cfg_num r1, r2;
	size_t dash, colon;
	u64 start = 0, end = 0;
	u32 mode;

	if (tb_cfg_is(s, n, "off")) {
		val->v = 0;
		val->end = 0;
		val->mode = TB_CFG_RANGE_OFF;
		return TB_CFG_OK;
	}
	for (dash = 0; dash < n && s[dash] != '-'; dash++)
		;
	for (colon = dash; colon < n && s[colon] != ':'; colon++)
		;
	if (colon >= n)
		return TB_CFG_BAD_VALUE;
	if (tb_cfg_is(s + colon + 1, n - colon - 1, "filter"))
		mode = TB_CFG_RANGE_FILTER;
	else if (tb_cfg_is(s + colon + 1, n - colon - 1, "stop"))
		mode = TB_CFG_RANGE_STOP;
	else
		return TB_CFG_BAD_VALUE;
	r1 = tb_cfg_get_num(s, dash, true, &start);
	r2 = tb_cfg_get_num(s + dash + 1, colon - dash - 1, true, &end);
	if (r1 == TB_CFG_NUM_BAD || r2 == TB_CFG_NUM_BAD)
		return TB_CFG_BAD_VALUE;
	if (r1 != TB_CFG_NUM_OK || r2 != TB_CFG_NUM_OK)
		return TB_CFG_OUT_OF_RANGE;
	if (start > end)
		return TB_CFG_BAD_VALUE;
	if (tb_cfg_in_hole(k, start) || tb_cfg_in_hole(k, end))
		return TB_CFG_OUT_OF_RANGE;
	val->v = start;
	val->end = end;
	val->mode = mode;
	return TB_CFG_OK;
}

/* The value of key k: s is NULL for a bare key. */
static u32 tb_cfg_value(const struct tb_cfg_key *k, const char *s, size_t n,
			struct tb_cfg_val *val)
{
	enum tb_cfg_num r;
	u64 v = 0;

	val->v = 0;
	val->end = 0;
	val->mode = TB_CFG_RANGE_OFF;
	if (!s) {
		if (k->type != TB_CFG_BOOL)
			return TB_CFG_BAD_VALUE;
		val->v = 1;
		return TB_CFG_OK;
	}
	switch (k->type) {
	case TB_CFG_BOOL:
		if (n != 1 || (s[0] != '0' && s[0] != '1'))
			return TB_CFG_BAD_VALUE;
		v = s[0] == '1';
		break;
	case TB_CFG_UINT:
		r = tb_cfg_get_num(s, n, true, &v);
		if (r != TB_CFG_NUM_OK)
			return tb_cfg_num_reason(r);
		if (v < k->min || v > k->max)
			return TB_CFG_OUT_OF_RANGE;
		break;
	case TB_CFG_ENUM:
		r = tb_cfg_get_num(s, n, false, &v);
		if (r != TB_CFG_NUM_OK)
			return tb_cfg_num_reason(r);
		if (v > 31 || !(k->allowed & BIT((unsigned int)v)))
			return TB_CFG_NOT_ALLOWED;
		break;
	case TB_CFG_U64:
		if (tb_cfg_is(s, n, "off"))
			break;
		if (tb_cfg_is(s, n, "current")) {
			if (!(k->flags & TB_CFG_F_CURRENT))
				return TB_CFG_BAD_VALUE;
			v = TB_CFG_CURRENT;
			break;
		}
		r = tb_cfg_get_num(s, n, true, &v);
		if (r != TB_CFG_NUM_OK)
			return tb_cfg_num_reason(r);
		if ((k->flags & TB_CFG_F_CURRENT) && v == TB_CFG_CURRENT)
			return TB_CFG_OUT_OF_RANGE;
		if (v & k->rsvd)
			return TB_CFG_OUT_OF_RANGE;
		break;
	case TB_CFG_RANGE:
		return tb_cfg_range(k, s, n, val);
	default:
		return TB_CFG_BAD_VALUE;
	}
	val->v = v;
	return TB_CFG_OK;
}

static bool tb_cfg_key_char(char c)
{
	return (c >= 'a' && c <= 'z') || (c >= '0' && c <= '9') || c == '_';
}

/*
 * Check one token s[0..n) against keys[nkeys]: on success *idx is its key
 * and *val its value. *seen has a bit per key already named.
 */
static u32 tb_cfg_token(const struct tb_cfg_key *keys, unsigned int nkeys,
			const char *s, size_t n, bool privileged, u64 *seen,
			unsigned int *idx, struct tb_cfg_val *val)
{
	const struct tb_cfg_key *k;
	const char *vs = NULL;
	size_t klen, vlen = 0, i;
	unsigned int ki;
	unsigned char c;
	u32 reason;

	if (!n)
		return TB_CFG_EMPTY;
	for (i = 0; i < n; i++) {
		c = (unsigned char)s[i];
		if (c < 0x20 || c >= 0x7f)
			return TB_CFG_NON_ASCII;
	}
	if (s[0] < 'a' || s[0] > 'z')
		return TB_CFG_SYNTAX;
	for (klen = 1; klen < n && tb_cfg_key_char(s[klen]); klen++)
		;
	if (klen < n) {
		if (s[klen] != '=' || klen + 1 == n)
			return TB_CFG_SYNTAX;
		vs = s + klen + 1;
		vlen = n - klen - 1;
		for (i = 0; i < vlen; i++) {
			/* ',' cannot occur: it ends the token */
			if (vs[i] == ' ' || vs[i] == '=')
				return TB_CFG_SYNTAX;
		}
	}
	for (ki = 0; ki < nkeys; ki++) {
		if (tb_cfg_is(s, klen, keys[ki].name))
			break;
	}
	if (ki == nkeys)
		return TB_CFG_UNKNOWN_KEY;
	k = &keys[ki];
	if (*seen & BIT_ULL(ki))
		return TB_CFG_DUPLICATE;
	if (k->flags & TB_CFG_F_UNSUPPORTED)
		return TB_CFG_UNSUPPORTED;
	reason = tb_cfg_value(k, vs, vlen, val);
	if (reason)
		return reason;
	if ((k->flags & TB_CFG_F_PRIV) && !privileged &&
	    (k->type == TB_CFG_RANGE ? val->mode != TB_CFG_RANGE_OFF : val->v))
		return TB_CFG_PERMISSION;
	*seen |= BIT_ULL(ki);
	*idx = ki;
	return TB_CFG_OK;
}

/*
 * Check (vals NULL) or apply every token of str[0..len). On failure, the
 * reason; *off and *tlen are the offending token.
 */
static u32 tb_cfg_walk(const struct tb_cfg_key *keys, unsigned int nkeys,
		       const char *str, size_t len, bool privileged,
		       struct tb_cfg_val *vals, u64 *changed, size_t *off,
		       size_t *tlen)
{
	struct tb_cfg_val val, *cur;
	size_t pos = 0, end;
	unsigned int idx = 0;
	u64 seen = 0;
	u32 reason;

	for (;;) {
		end = pos;
		while (end < len && str[end] != ',')
			end++;
		reason = tb_cfg_token(keys, nkeys, str + pos, end - pos,
				      privileged, &seen, &idx, &val);
		if (reason) {
			*off = pos;
			*tlen = end - pos;
			return reason;
		}
		if (vals) {
			cur = &vals[idx];
			if (cur->v != val.v || cur->end != val.end ||
			    cur->mode != val.mode)
				*changed |= BIT_ULL(idx);
			*cur = val;
		}
		if (end == len)
			return TB_CFG_OK;
		pos = end + 1;
	}
}

static u32 tb_cfg_u32(size_t n)
{
	return n > TB_CFG_U32_MAX ? TB_CFG_U32_MAX : (u32)n;
}

static int tb_cfg_fail(struct tb_cfg_err *err, size_t off, size_t len,
		       u32 reason)
{
	if (err) {
		err->offset = tb_cfg_u32(off);
		err->len = tb_cfg_u32(len);
		err->reason = reason;
	}
	return tb_cfg_errno(reason);
}

int tb_cfg_parse(const struct tb_cfg_key *keys, unsigned int nkeys,
		 const char *str, size_t len, size_t max_len, bool privileged,
		 struct tb_cfg_val *vals, u64 *changed, struct tb_cfg_err *err)
{
	size_t off = 0, tlen = 0;
	u64 chg = 0;
	u32 reason;

	if (changed)
		*changed = 0;
	if (nkeys > TB_CFG_MAX_KEYS)
		return tb_cfg_fail(err, 0, 0, TB_CFG_SYNTAX);
	if (len > max_len)
		return tb_cfg_fail(err, max_len, len - max_len,
				   TB_CFG_TOO_LONG);
	if (!len)
		return tb_cfg_fail(err, 0, 0, TB_CFG_EMPTY);
	reason = tb_cfg_walk(keys, nkeys, str, len, privileged, NULL, &chg,
			     &off, &tlen);
	if (reason)
		return tb_cfg_fail(err, off, tlen, reason);
	/* Checked: this pass cannot fail. */
	tb_cfg_walk(keys, nkeys, str, len, privileged, vals, &chg, &off,
		    &tlen);
	if (changed)
		*changed = chg;
	tb_cfg_fail(err, 0, 0, TB_CFG_OK);
	return 0;
}

void tb_cfg_defaults(const struct tb_cfg_key *keys, unsigned int nkeys,
		     struct tb_cfg_val *vals)
{
	unsigned int i;

	for (i = 0; i < nkeys; i++) {
		vals[i].v = keys[i].type == TB_CFG_RANGE ? 0 : keys[i].def;
		vals[i].end = 0;
		vals[i].mode = TB_CFG_RANGE_OFF;
	}
}

/* Output of tb_cfg_format: like snprintf, counts what it cannot write. */
struct tb_cfg_out {
	char *buf;
	size_t size;
	size_t pos;
};

static void tb_cfg_putc(struct tb_cfg_out *o, char c)
{
	if (o->pos + 1 < o->size)
		o->buf[o->pos] = c;
	o->pos++;
}

static void tb_cfg_puts(struct tb_cfg_out *o, const char *s)
{
	while (*s)
		tb_cfg_putc(o, *s++);
}

/* Decimal without a 64-bit division (32-bit kernels have none). */
static void tb_cfg_put_dec(struct tb_cfg_out *o, u64 v)
{
	static const u64 pow10[TB_CFG_DEC_DIGITS] = {
		10000000000000000000ULL, 1000000000000000000ULL,
		100000000000000000ULL, 10000000000000000ULL,
		1000000000000000ULL, 100000000000000ULL, 10000000000000ULL,
		1000000000000ULL, 100000000000ULL, 10000000000ULL,
		1000000000ULL, 100000000ULL, 10000000ULL, 1000000ULL,
		100000ULL, 10000ULL, 1000ULL, 100ULL, 10ULL, 1ULL,
	};
	bool lead = true;
	unsigned int i;
	char d;

	for (i = 0; i < TB_CFG_DEC_DIGITS; i++) {
		d = '0';
		while (v >= pow10[i]) {
			v -= pow10[i];
			d++;
		}
		if (d == '0' && lead && pow10[i] != 1)
			continue;
		lead = false;
		tb_cfg_putc(o, d);
	}
}

static void tb_cfg_put_hex(struct tb_cfg_out *o, u64 v)
{
	int shift = 60;

	tb_cfg_puts(o, "0x");
	while (shift && !(v >> shift))
		shift -= 4;
	for (; shift >= 0; shift -= 4)
		tb_cfg_putc(o, "0123456789abcdef"[(v >> shift) & 0xf]);
}

static void tb_cfg_put_val(struct tb_cfg_out *o, const struct tb_cfg_key *k,
			   const struct tb_cfg_val *val)
{
	switch (k->type) {
	case TB_CFG_BOOL:
		tb_cfg_putc(o, val->v ? '1' : '0');
		break;
	case TB_CFG_U64:
		if (!val->v)
			tb_cfg_puts(o, "off");
		else if ((k->flags & TB_CFG_F_CURRENT) &&
			 val->v == TB_CFG_CURRENT)
			tb_cfg_puts(o, "current");
		else
			tb_cfg_put_hex(o, val->v);
		break;
	case TB_CFG_RANGE:
		if (val->mode != TB_CFG_RANGE_FILTER &&
		    val->mode != TB_CFG_RANGE_STOP) {
			tb_cfg_puts(o, "off");
			break;
		}
		tb_cfg_put_hex(o, val->v);
		tb_cfg_putc(o, '-');
		tb_cfg_put_hex(o, val->end);
		tb_cfg_puts(o, val->mode == TB_CFG_RANGE_FILTER ?
			    ":filter" : ":stop");
		break;
	default:	/* UINT, ENUM */
		tb_cfg_put_dec(o, val->v);
		break;
	}
}

size_t tb_cfg_format(const struct tb_cfg_key *keys, unsigned int nkeys,
		     const struct tb_cfg_val *vals, char *buf, size_t size)
{
	struct tb_cfg_out o = { .buf = buf, .size = size, .pos = 0 };
	bool first = true;
	unsigned int i;

	for (i = 0; i < nkeys; i++) {
		if (keys[i].flags & TB_CFG_F_UNSUPPORTED)
			continue;
		if (!first)
			tb_cfg_putc(&o, ',');
		first = false;
		tb_cfg_puts(&o, keys[i].name);
		tb_cfg_putc(&o, '=');
		tb_cfg_put_val(&o, &keys[i], &vals[i]);
	}
	if (size)
		buf[o.pos < size ? o.pos : size - 1] = '\0';
	return o.pos;
}

bool tb_cfg_find(const struct tb_cfg_key *keys, unsigned int nkeys,
		 const char *str, size_t len, u64 mask, struct tb_cfg_err *err)
{
	size_t ts = 0, te, klen;
	unsigned int i;

	err->offset = 0;
	err->len = 0;
	err->reason = TB_CFG_CONFLICT;
	while (ts < len) {
		for (te = ts; te < len && str[te] != ','; te++)
			;
		for (klen = 0; ts + klen < te && str[ts + klen] != '='; klen++)
			;
		for (i = 0; i < nkeys && i < 64; i++) {
			if (!(mask & BIT_ULL(i)) || strlen(keys[i].name) != klen ||
			    memcmp(keys[i].name, str + ts, klen))
				continue;
			err->offset = ts;
			err->len = te - ts;
			return true;
		}
		ts = te + 1;
	}
	return false;
}

int tb_cfg_errno(u32 reason)
{
	switch (reason) {
	case TB_CFG_OK:
		return 0;
	case TB_CFG_OUT_OF_RANGE:
	case TB_CFG_NOT_ALLOWED:
		return -ERANGE;
	case TB_CFG_UNSUPPORTED:
		return -EOPNOTSUPP;
	case TB_CFG_PERMISSION:
		return -EACCES;
	default:
		return -EINVAL;
	}
}
