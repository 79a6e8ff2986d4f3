/* SPDX-License-Identifier: GPL-2.0 */
/*
 * Driver configuration as text: "key=value,key,key=value". A backend
 * describes its keys in a table of struct tb_cfg_key; this parser checks a
 * whole string against the table before anything changes (all or
 * nothing), reports the offending token's offset, length and reason, and
 * prints the canonical form (every supported key, in table order).
 *
 * Pure logic: it compiles in the kernel and natively (tests/unit/drvcfg.c,
 * with the shim headers in tests/unit/shim), so it uses only <linux/types.h>,
 * <linux/errno.h>, <linux/string.h> and <linux/kernel.h>-free code.
 *
 * Syntax. Tokens are separated by ','. A token is KEY or KEY=VALUE. KEY is
 * [a-z][a-z0-9_]*. VALUE is one or more printable ASCII characters other
 * than ',', '=' and space. A bare KEY means KEY=1 and is allowed for BOOL
 * keys only. The string must not be empty, must not start or end with ','
 * or contain ",,", must be ASCII, and may not name a key twice.
 *
 * Values by type:
 *   BOOL   0 or 1 (bare key: 1)
 *   UINT   decimal or 0x-hex, min..max
 *   ENUM   decimal, one of the values whose bit is set in 'allowed' (0..31)
 *   U64    decimal or 0x-hex u64; "off" (0); "current" when TB_CFG_F_CURRENT
 *          (the value is then TB_CFG_CURRENT, for the backend to resolve)
 *   RANGE  "off", or START-END:filter or START-END:stop, START <= END,
 *          each decimal or 0x-hex u64
 * A U64 value with a bit of the key's rsvd set, and a RANGE whose START or
 * END lies in the key's hole (for example non-canonical addresses), are
 * OUT_OF_RANGE: values the hardware would refuse are refused here, with
 * the token, not later at ENABLE.
 */
#ifndef _TRACEBUF_DRVCFG_H
#define _TRACEBUF_DRVCFG_H

#include <linux/bits.h>
#include <linux/types.h>

enum tb_cfg_type {
	TB_CFG_BOOL	= 1,
	TB_CFG_UINT	= 2,
	TB_CFG_ENUM	= 3,
	TB_CFG_U64	= 4,
	TB_CFG_RANGE	= 5,
};

/* struct tb_cfg_key.flags */
#define TB_CFG_F_PRIV		BIT(0)	/* non-zero needs privilege: -EACCES */
#define TB_CFG_F_CURRENT	BIT(1)	/* U64 accepts "current" */
#define TB_CFG_F_UNSUPPORTED	BIT(2)	/* this CPU lacks it: -EOPNOTSUPP */
/* A PRIV key that turns on kernel-mode tracing: acct.c, tb_perm_kernel(). */
#define TB_CFG_F_KERNEL		BIT(3)

#define TB_CFG_CURRENT		(~0ULL)		/* U64 "current" */

/* RANGE modes (struct tb_cfg_val.mode) */
#define TB_CFG_RANGE_OFF	0
#define TB_CFG_RANGE_FILTER	1
#define TB_CFG_RANGE_STOP	2

struct tb_cfg_key {
	const char *name;	/* at most TB_CFG_NAME_MAX - 1 characters */
	u32 type;		/* enum tb_cfg_type */
	u32 flags;		/* TB_CFG_F_* */
	u64 min, max;		/* UINT */
	u32 allowed;		/* ENUM: bit n set = value n allowed */
	u64 def;		/* default value (RANGE: off) */
	const char *desc;	/* one line */
	/* The hardware's own limits (OUT_OF_RANGE), filled in by the backend: */
	u64 rsvd;		/* U64: bits that must be zero */
	u64 hole_lo, hole_hi;	/* RANGE: no address in [hole_lo, hole_hi] (hole_hi 0: none) */
};

#define TB_CFG_NAME_MAX		24
#define TB_CFG_MAX_KEYS		64

/* One key's value. */
struct tb_cfg_val {
	u64 v;			/* BOOL/UINT/ENUM/U64 value; RANGE start */
	u64 end;		/* RANGE end */
	u32 mode;		/* RANGE: TB_CFG_RANGE_* */
};

/* Reasons: the same numbers as enum tracebuf_cfg_reason in the UAPI. */
enum tb_cfg_reason {
	TB_CFG_OK		= 0,
	TB_CFG_EMPTY		= 1,	/* -EINVAL: empty string or empty token */
	TB_CFG_SYNTAX		= 2,	/* -EINVAL: malformed token */
	TB_CFG_NON_ASCII	= 3,	/* -EINVAL */
	TB_CFG_UNKNOWN_KEY	= 4,	/* -EINVAL */
	TB_CFG_DUPLICATE	= 5,	/* -EINVAL: key given twice */
	TB_CFG_BAD_VALUE	= 6,	/* -EINVAL: not a value of the key's type */
	TB_CFG_OUT_OF_RANGE	= 7,	/* -ERANGE: outside min..max, or overflow */
	TB_CFG_NOT_ALLOWED	= 8,	/* -ERANGE: not among the allowed values */
	TB_CFG_UNSUPPORTED	= 9,	/* -EOPNOTSUPP */
	TB_CFG_PERMISSION	= 10,	/* -EACCES */
	TB_CFG_TOO_LONG		= 11,	/* -EINVAL: longer than the limit */
	TB_CFG_CONFLICT		= 12,	/* -EINVAL: the backend cannot have these values together */
};

struct tb_cfg_err {
	u32 offset;		/* byte offset of the offending token (KEY or KEY=VALUE) */
	u32 len;		/* its length */
	u32 reason;		/* enum tb_cfg_reason */
};

/*
 * Parse str (len bytes, no NUL needed; at most max_len) against keys[nkeys]
 * and apply it on top of vals[nkeys] (the current values): only when the
 * whole string is valid are vals updated; returns 0, or -EINVAL / -ERANGE /
 * -EOPNOTSUPP / -EACCES with *err filled. privileged: the caller may set
 * TB_CFG_F_PRIV keys to a non-zero value. *changed gets a bit per key
 * (bit i = keys[i]) whose value the string changed.
 */
int tb_cfg_parse(const struct tb_cfg_key *keys, unsigned int nkeys,
		 const char *str, size_t len, size_t max_len, bool privileged,
		 struct tb_cfg_val *vals, u64 *changed, struct tb_cfg_err *err);

/* Every key at its default. */
void tb_cfg_defaults(const struct tb_cfg_key *keys, unsigned int nkeys,
		     struct tb_cfg_val *vals);

/*
 * The canonical form: every key in table order but TB_CFG_F_UNSUPPORTED
 * ones (they cannot be named), "key=value" joined by ','
 * (BOOL 0/1, UINT/ENUM decimal, U64 0x-hex or "current" or "off" for 0,
 * RANGE "off" or 0xSTART-0xEND:filter|stop). Writes at most size bytes
 * including the NUL; returns the length it needs without the NUL (like
 * snprintf).
 */
size_t tb_cfg_format(const struct tb_cfg_key *keys, unsigned int nkeys,
		     const struct tb_cfg_val *vals, char *buf, size_t size);

/*
 * The first token of str[0..len) (a string tb_cfg_parse() accepted) that
 * names a key whose bit is set in mask: its offset and length into *err,
 * reason CONFLICT. Returns false (err: offset 0, length 0) if there is none.
 */
bool tb_cfg_find(const struct tb_cfg_key *keys, unsigned int nkeys,
		 const char *str, size_t len, u64 mask, struct tb_cfg_err *err);

/* The errno for a reason. */
int tb_cfg_errno(u32 reason);

#endif /* _TRACEBUF_DRVCFG_H */
