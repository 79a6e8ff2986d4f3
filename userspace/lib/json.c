/* SPDX-License-Identifier: (LGPL-2.1 OR MIT) */
/*
 * A small, strict JSON reader for meta.json (docs/capture-format.md),
 * library-internal. tb_json_check() validates a whole document against
 * RFC 8259 (the grammar of numbers, strings with their escapes and
 * well-formed UTF-8, nesting at most TB_JSON_DEPTH deep, no key twice in
 * an object, nothing after the value); the accessors then walk text that
 * is known to be valid, so they need no error paths of their own for the
 * grammar. A value is a span of the text: its first character and length.
 *
 * Why not json-c: meta.json is small and written by us, the library has
 * no dependency but the C library, and the tool is linked statically into
 * guest images (cross-built for arm64) where a second library would have
 * to be built too. What the capture reader needs is a few lookups.
 */
#include <errno.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "lib.h"

#define TB_JSON_DEPTH	64

static const char *ws(const char *p, const char *end)
{
	while (p < end && (*p == ' ' || *p == '\t' || *p == '\n' || *p == '\r'))
		p++;
	return p;
}

static int hexval(char c)
{
	if (c >= '0' && c <= '9')
		return c - '0';
	if (c >= 'a' && c <= 'f')
		return c - 'a' + 10;
	if (c >= 'A' && c <= 'F')
		return c - 'A' + 10;
	return -1;
}

/* Four hex digits at p (p + 4 <= end checked by the caller). */
static int hex4(const char *p, unsigned int *u)
{
	int i, h;

	*u = 0;
	for (i = 0; i < 4; i++) {
		h = hexval(p[i]);
		if (h < 0)
			return -1;
		*u = *u << 4 | (unsigned int)h;
	}
	return 0;
}

/* Length of the well-formed UTF-8 sequence at p (RFC 3629), 0 if none. */
static size_t utf8_len(const unsigned char *p, const unsigned char *end)
{
	size_t n, i;
	unsigned int cp;

	if (p[0] < 0x80)
		return 1;
	if (p[0] >= 0xc2 && p[0] <= 0xdf) {
		n = 2;
		cp = p[0] & 0x1f;
	} else if (p[0] >= 0xe0 && p[0] <= 0xef) {
		n = 3;
		cp = p[0] & 0x0f;
	} else if (p[0] >= 0xf0 && p[0] <= 0xf4) {
		n = 4;
		cp = p[0] & 0x07;
	} else {
		return 0;
	}
	if ((size_t)(end - p) < n)
		return 0;
	for (i = 1; i < n; i++) {
		if ((p[i] & 0xc0) != 0x80)
			return 0;
		cp = cp << 6 | (p[i] & 0x3f);
	}
	/* Overlong forms, surrogates, beyond U+10FFFF. */
	if ((n == 3 && cp < 0x800) || (n == 4 && cp < 0x10000) || cp > 0x10ffff ||
	    (cp >= 0xd800 && cp <= 0xdfff))
		return 0;
	return n;
}

/*
 * The string at p (a '"'): the end (past the closing quote), or NULL if
 * malformed. The unescaped bytes go to out (at most max of them; out may
 * be NULL), and their number to *need (if not NULL), whether they fit or
 * not.
 */
static const char *string(const char *p, const char *end, char *out, size_t max,
			  size_t *need)
{
	size_t n = 0;

	if (p >= end || *p != '"')
		return NULL;
	for (p++; p < end; ) {
		unsigned char c = (unsigned char)*p;
		unsigned char buf[4];
		size_t k, blen = 1;
		unsigned int u, lo;

		if (c == '"') {
			if (need)
				*need = n;
			return p + 1;
		}
		if (c < 0x20)
			return NULL;
		if (c != '\\') {
			blen = utf8_len((const unsigned char *)p, (const unsigned char *)end);
			if (!blen)
				return NULL;
			memcpy(buf, p, blen);
			p += blen;
		} else if (end - p < 2) {
			return NULL;
		} else if (p[1] != 'u') {
			switch (p[1]) {
			case '"': case '\\': case '/':
				buf[0] = (unsigned char)p[1];
				break;
			case 'b': buf[0] = '\b'; break;
			case 'f': buf[0] = '\f'; break;
			case 'n': buf[0] = '\n'; break;
			case 'r': buf[0] = '\r'; break;
			case 't': buf[0] = '\t'; break;
			default:
				return NULL;
			}
			p += 2;
		} else {
			if (end - p < 6 || hex4(p + 2, &u))
				return NULL;
			p += 6;
			if (u >= 0xdc00 && u <= 0xdfff)
				return NULL;	/* a lone low surrogate */
			if (u >= 0xd800 && u <= 0xdbff) {
				if (end - p < 6 || p[0] != '\\' || p[1] != 'u' ||
				    hex4(p + 2, &lo) || lo < 0xdc00 || lo > 0xdfff)
					return NULL;
				u = 0x10000 + ((u - 0xd800) << 10) + (lo - 0xdc00);
				p += 6;
			}
			/* u as UTF-8 */
			if (u < 0x80) {
				buf[0] = (unsigned char)u;
			} else if (u < 0x800) {
				buf[0] = (unsigned char)(0xc0 | u >> 6);
				buf[1] = (unsigned char)(0x80 | (u & 0x3f));
				blen = 2;
			} else if (u < 0x10000) {
				buf[0] = (unsigned char)(0xe0 | u >> 12);
				buf[1] = (unsigned char)(0x80 | ((u >> 6) & 0x3f));
				buf[2] = (unsigned char)(0x80 | (u & 0x3f));
				blen = 3;
			} else {
				buf[0] = (unsigned char)(0xf0 | u >> 18);
				buf[1] = (unsigned char)(0x80 | ((u >> 12) & 0x3f));
				buf[2] = (unsigned char)(0x80 | ((u >> 6) & 0x3f));
				buf[3] = (unsigned char)(0x80 | (u & 0x3f));
				blen = 4;
			}
		}
		for (k = 0; k < blen; k++, n++)
			if (out && n < max)
				out[n] = (char)buf[k];
	}
	return NULL;
}

/* -?(0|[1-9][0-9]*)(.[0-9]+)?([eE][+-]?[0-9]+)?: the end, or NULL. */
static const char *number(const char *p, const char *end)
{
	if (p < end && *p == '-')
		p++;
	if (p >= end || *p < '0' || *p > '9')
		return NULL;
	if (*p == '0')
		p++;
	else
		while (p < end && *p >= '0' && *p <= '9')
			p++;
	if (p < end && *p == '.') {
		p++;
		if (p >= end || *p < '0' || *p > '9')
			return NULL;
		while (p < end && *p >= '0' && *p <= '9')
			p++;
	}
	if (p < end && (*p == 'e' || *p == 'E')) {
		p++;
		if (p < end && (*p == '+' || *p == '-'))
			p++;
		if (p >= end || *p < '0' || *p > '9')
			return NULL;
		while (p < end && *p >= '0' && *p <= '9')
			p++;
	}
	return p;
}

static const char *literal(const char *p, const char *end, const char *word)
{
	size_t n = strlen(word);

	return (size_t)(end - p) >= n && !memcmp(p, word, n) ? p + n : NULL;
}

/* Validation state: the keys of the objects being parsed, innermost last. */
struct jcheck {
	const char **keys;	/* each key's opening quote */
	size_t *klen;		/* and its length as written */
	size_t nkeys, cap;
	int nomem;
};

static int push_key(struct jcheck *c, const char *k, size_t len)
{
	if (c->nkeys == c->cap) {
		size_t cap = c->cap ? c->cap * 2 : 64;
		const char **keys = realloc(c->keys, cap * sizeof(*keys));
		size_t *klen;

		if (!keys) {
			c->nomem = 1;
			return -1;
		}
		c->keys = keys;
		klen = realloc(c->klen, cap * sizeof(*klen));
		if (!klen) {
			c->nomem = 1;
			return -1;
		}
		c->klen = klen;
		c->cap = cap;
	}
	c->keys[c->nkeys] = k;
	c->klen[c->nkeys++] = len;
	return 0;
}

/*
 * The value at p (whitespace skipped first): its end, or NULL. With c,
 * the whole grammar is checked (and keys twice in an object refused);
 * without, the text is known to be valid and only walked.
 */
static const char *value(const char *p, const char *end, int depth, struct jcheck *c)
{
	p = ws(p, end);
	if (p >= end)
		return NULL;
	switch (*p) {
	case '"':
		return string(p, end, NULL, 0, NULL);
	case 't':
		return literal(p, end, "true");
	case 'f':
		return literal(p, end, "false");
	case 'n':
		return literal(p, end, "null");
	case '[':
		if (depth >= TB_JSON_DEPTH)
			return NULL;
		p = ws(p + 1, end);
		if (p < end && *p == ']')
			return p + 1;
		for (;;) {
			p = value(p, end, depth + 1, c);
			if (!p)
				return NULL;
			p = ws(p, end);
			if (p >= end)
				return NULL;
			if (*p == ']')
				return p + 1;
			if (*p++ != ',')
				return NULL;
		}
	case '{': {
		size_t first = c ? c->nkeys : 0, i;

		if (depth >= TB_JSON_DEPTH)
			return NULL;
		p = ws(p + 1, end);
		if (p < end && *p == '}')
			return p + 1;
		for (;;) {
			const char *k = ws(p, end), *ke = string(k, end, NULL, 0, NULL);

			if (!ke)
				return NULL;
			if (c) {
				/* The same key earlier in this object: ambiguous, refused. */
				for (i = first; i < c->nkeys; i++)
					if (c->klen[i] == (size_t)(ke - k) &&
					    !memcmp(c->keys[i], k, c->klen[i]))
						return NULL;
				if (push_key(c, k, (size_t)(ke - k)))
					return NULL;
			}
			p = ws(ke, end);
			if (p >= end || *p++ != ':')
				return NULL;
			p = value(p, end, depth + 1, c);
			if (!p)
				return NULL;
			p = ws(p, end);
			if (p >= end)
				return NULL;
			if (*p == '}') {
				if (c)
					c->nkeys = first;
				return p + 1;
			}
			if (*p++ != ',')
				return NULL;
		}
	}
	default:
		return number(p, end);
	}
}

int tb_json_check(const char *text, size_t len)
{
	struct jcheck c = { 0 };
	const char *end = text + len, *p;

	p = value(text, end, 0, &c);
	free(c.keys);
	free(c.klen);
	if (c.nomem)
		return -ENOMEM;
	return p && ws(p, end) == end ? 0 : -EINVAL;
}

/* In a valid document: the end of the value at p (no whitespace before). */
static const char *skip(const char *p, const char *end)
{
	return value(p, end, 0, NULL);
}

int tb_json_member(const char *obj, size_t len, const char *key, size_t keylen,
		   const char **val, size_t *vallen)
{
	const char *p = obj, *end = obj + len;

	p = ws(p, end);
	if (p >= end || *p != '{')
		return -EINVAL;
	p = ws(p + 1, end);
	if (*p == '}')
		return -ENOENT;
	for (;;) {
		char kbuf[256];
		size_t kl;
		const char *ke = string(p, end, kbuf, sizeof(kbuf), &kl), *v, *ve;

		v = ws(ws(ke, end) + 1, end);
		ve = skip(v, end);
		if (kl == keylen && keylen <= sizeof(kbuf) && !memcmp(kbuf, key, keylen)) {
			*val = v;
			*vallen = (size_t)(ve - v);
			return 0;
		}
		p = ws(ve, end);
		if (*p == '}')
			return -ENOENT;
		p = ws(p + 1, end);
	}
}

int tb_json_index(const char *arr, size_t len, size_t n, const char **elem, size_t *elemlen)
{
	const char *p = arr, *end = arr + len, *e;
	size_t i;

	p = ws(p, end);
	if (p >= end || *p != '[')
		return -EINVAL;
	p = ws(p + 1, end);
	if (*p == ']')
		return -ENOENT;
	for (i = 0; ; i++) {
		e = skip(p, end);
		if (i == n) {
			*elem = p;
			*elemlen = (size_t)(e - p);
			return 0;
		}
		p = ws(e, end);
		if (*p == ']')
			return -ENOENT;
		p = ws(p + 1, end);
	}
}

int tb_json_path(const char *text, size_t len, const char *path, const char **val,
		 size_t *vallen)
{
	const char *v = text, *end = text + len;
	size_t vl;
	int ret;

	v = ws(v, end);
	vl = (size_t)(end - v);
	while (*path) {
		const char *dot = strchr(path, '.');
		size_t n = dot ? (size_t)(dot - path) : strlen(path);

		if (!n || (dot && !dot[1]))
			return -EINVAL;
		if (*v == '{') {
			ret = tb_json_member(v, vl, path, n, &v, &vl);
		} else if (*v == '[') {
			size_t idx = 0, i;

			for (i = 0; i < n; i++) {
				if (path[i] < '0' || path[i] > '9' || idx > (SIZE_MAX - 9) / 10)
					return -ENOENT;
				idx = idx * 10 + (size_t)(path[i] - '0');
			}
			ret = tb_json_index(v, vl, idx, &v, &vl);
		} else {
			return -ENOENT;
		}
		if (ret)
			return ret;
		path += n;
		if (*path)
			path++;
	}
	*val = v;
	*vallen = vl;
	return 0;
}

int tb_json_u64(const char *val, size_t len, uint64_t *out)
{
	uint64_t v = 0;
	size_t i;

	if (!len || (val[0] < '0' || val[0] > '9'))
		return -EINVAL;
	for (i = 0; i < len; i++) {
		unsigned int d;

		if (val[i] < '0' || val[i] > '9')
			return -EINVAL;		/* a fraction or an exponent */
		d = (unsigned int)(val[i] - '0');
		if (v > (UINT64_MAX - d) / 10)
			return -ERANGE;
		v = v * 10 + d;
	}
	*out = v;
	return 0;
}

int tb_json_bool(const char *val, size_t len, int *out)
{
	if (len == 4 && !memcmp(val, "true", 4))
		*out = 1;
	else if (len == 5 && !memcmp(val, "false", 5))
		*out = 0;
	else
		return -EINVAL;
	return 0;
}

int tb_json_string(const char *val, size_t len, char *buf, size_t size, size_t *outlen)
{
	size_t n;

	if (!len || val[0] != '"' || !string(val, val + len, buf, size ? size - 1 : 0, &n))
		return -EINVAL;
	if (outlen)
		*outlen = n;
	if (!size)
		return -ENOSPC;
	buf[n < size ? n : size - 1] = 0;
	return n < size ? 0 : -ENOSPC;
}
