/* SPDX-License-Identifier: GPL-2.0 */
/*
 * obuf.h - a buffered writer for the instruction flow's output (flow.c,
 * perfetto.c): hundreds of millions of lines, where printf's formatting
 * would be most of the time. Numbers are converted by hand; the buffer
 * goes to its FILE with fwrite() when it fills and at ob_flush().
 */
#ifndef TRACEBUF_OBUF_H
#define TRACEBUF_OBUF_H

#include <stdint.h>
#include <stdio.h>
#include <string.h>

#define OB_SIZE		(256u << 10)
#define OB_ROOM		1024		/* what one call may write at most, strings aside */

struct obuf {
	FILE *f;
	size_t n;
	int err;			/* a write failed */
	char b[OB_SIZE];
};

static inline void ob_flush(struct obuf *o)
{
	if (o->n && fwrite(o->b, 1, o->n, o->f) != o->n)
		o->err = 1;
	o->n = 0;
}

static inline void ob_room(struct obuf *o, size_t n)
{
	if (o->n + n > OB_SIZE)
		ob_flush(o);
}

static inline void ob_mem(struct obuf *o, const char *s, size_t n)
{
	if (n > OB_SIZE / 2) {
		ob_flush(o);
		if (fwrite(s, 1, n, o->f) != n)
			o->err = 1;
		return;
	}
	ob_room(o, n);
	memcpy(o->b + o->n, s, n);
	o->n += n;
}

static inline void ob_str(struct obuf *o, const char *s)
{
	ob_mem(o, s, strlen(s));
}

static inline void ob_chr(struct obuf *o, char c)
{
	ob_room(o, 1);
	o->b[o->n++] = c;
}

/* Decimal, at least width digits wide (padded with pad on the left). */
static inline void ob_dec_w(struct obuf *o, uint64_t v, unsigned int width, char pad)
{
	char t[24];
	unsigned int k = 0;

	do {
		t[k++] = (char)('0' + v % 10);
		v /= 10;
	} while (v);
	ob_room(o, (width > k ? width : k));
	while (width > k) {
		o->b[o->n++] = pad;
		width--;
	}
	while (k)
		o->b[o->n++] = t[--k];
}

static inline void ob_dec(struct obuf *o, uint64_t v)
{
	ob_dec_w(o, v, 0, ' ');
}

static inline void ob_sdec(struct obuf *o, int64_t v)
{
	if (v < 0) {
		ob_chr(o, '-');
		ob_dec(o, (uint64_t)-(v + 1) + 1);
	} else {
		ob_dec(o, (uint64_t)v);
	}
}

/* Lower-case hexadecimal, at least width digits (padded with pad). */
static inline void ob_hex_w(struct obuf *o, uint64_t v, unsigned int width, char pad)
{
	static const char dig[] = "0123456789abcdef";
	char t[16];
	unsigned int k = 0;

	do {
		t[k++] = dig[v & 15];
		v >>= 4;
	} while (v);
	ob_room(o, (width > k ? width : k));
	while (width > k) {
		o->b[o->n++] = pad;
		width--;
	}
	while (k)
		o->b[o->n++] = t[--k];
}

static inline void ob_hex(struct obuf *o, uint64_t v)
{
	ob_hex_w(o, v, 0, ' ');
}

/* A JSON string, quotes included, as tb_json_str() writes it. */
static inline void ob_json_str(struct obuf *o, const char *s)
{
	static const char dig[] = "0123456789abcdef";

	ob_chr(o, '"');
	for (; *s; s++) {
		unsigned char c = (unsigned char)*s;

		ob_room(o, 6);
		if (c == '"' || c == '\\') {
			o->b[o->n++] = '\\';
			o->b[o->n++] = (char)c;
		} else if (c < 0x20 || c >= 0x7f) {
			memcpy(o->b + o->n, "\\u00", 4);
			o->n += 4;
			o->b[o->n++] = dig[c >> 4];
			o->b[o->n++] = dig[c & 15];
		} else {
			o->b[o->n++] = (char)c;
		}
	}
	ob_chr(o, '"');
}

#endif /* TRACEBUF_OBUF_H */
