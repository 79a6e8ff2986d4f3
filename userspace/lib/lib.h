/* SPDX-License-Identifier: (LGPL-2.1 OR MIT) */
/*
 * Internal header of libtracebuf. The library is built with
 * -fvisibility=hidden: only what the public header declares gets default
 * visibility, and libtracebuf.map then picks the exported set from that.
 */
#ifndef LIBTRACEBUF_LIB_H
#define LIBTRACEBUF_LIB_H

#pragma GCC visibility push(default)
#include "libtracebuf.h"
#pragma GCC visibility pop

/*
 * struct tracebuf_session.setup_backend: the backend tracebuf_setup()
 * named, for the key table behind tracebuf_set_drv_config()'s messages.
 * An enum tracebuf_backend_id, or one of these.
 */
#define TB_SETUP_BACKEND_UNKNOWN	0	/* not set up, "none", or a name we do not know */
#define TB_SETUP_BACKEND_AUTO		0xffff	/* "auto" or "": the kernel's first backend */

/* Clear the AUX fields of a session (after munmap, or never mapped). */
void tb_clear_aux(struct tracebuf_session *s);

/*
 * json.c: a strict JSON reader for meta.json. tb_json_check() validates a
 * whole document (0, -EINVAL, -ENOMEM); the others walk a document that
 * passed it. A value is a span of the text. 0, or -ENOENT (no such member
 * or element), -EINVAL (not of that type), -ERANGE, -ENOSPC.
 */
int tb_json_check(const char *text, size_t len);
int tb_json_member(const char *obj, size_t len, const char *key, size_t keylen,
		   const char **val, size_t *vallen);
int tb_json_index(const char *arr, size_t len, size_t n, const char **elem,
		  size_t *elemlen);
/* "per_cpu.0.caps.cpuid_15.1": object keys and array indices, dot-separated. */
int tb_json_path(const char *text, size_t len, const char *path, const char **val,
		 size_t *vallen);
int tb_json_u64(const char *val, size_t len, uint64_t *out);	/* integers only */
int tb_json_bool(const char *val, size_t len, int *out);
/* Unescaped into buf (NUL-terminated); *outlen: its length, even when -ENOSPC. */
int tb_json_string(const char *val, size_t len, char *buf, size_t size, size_t *outlen);

/*
 * A size-prefixed options struct from the caller (its first member is
 * size_t sz): 0 when it is NULL or fits, -EINVAL when sz is too small to
 * hold sz, -E2BIG when bytes past what this library knows are not zero.
 */
int tb_opts_check(const void *opts, size_t known);
/* The member of a size-prefixed struct, or def when the caller's is older. */
#define TB_OPT(opts, member, def) \
	((opts) && (opts)->sz >= offsetof(__typeof__(*(opts)), member) + \
	 sizeof((opts)->member) ? (opts)->member : (def))

#endif /* LIBTRACEBUF_LIB_H */
