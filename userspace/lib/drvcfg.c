/* SPDX-License-Identifier: (LGPL-2.1 OR MIT) */
/*
 * Driver configuration: listing a backend's keys, reading the session's
 * canonical configuration, and setting it, with a message for humans when
 * the kernel refuses a string. No allocation: the key table used for the
 * messages lives on the stack.
 */
#include <errno.h>
#include <stdarg.h>
#include <stdint.h>
#include <stdio.h>
#include <string.h>
#include <sys/ioctl.h>

#include "lib.h"

#define TB_DRV_CONFIG_F_ALL	(TRACEBUF_DRV_CONFIG_F_RESET)
#define TB_MSG_KEYS_MAX		64	/* keys fetched to explain an error */
#define TB_MSG_TOKEN_MAX	64	/* bytes of the token quoted in a message */

const char *tracebuf_cfg_reason_name(unsigned int reason)
{
	switch (reason) {
	case TRACEBUF_CFG_OK:
		return "ok";
	case TRACEBUF_CFG_EMPTY:
		return "empty string or token";
	case TRACEBUF_CFG_SYNTAX:
		return "malformed token";
	case TRACEBUF_CFG_NON_ASCII:
		return "not ASCII";
	case TRACEBUF_CFG_UNKNOWN_KEY:
		return "unknown key";
	case TRACEBUF_CFG_DUPLICATE:
		return "key given twice";
	case TRACEBUF_CFG_BAD_VALUE:
		return "not a valid value";
	case TRACEBUF_CFG_OUT_OF_RANGE:
		return "out of range";
	case TRACEBUF_CFG_NOT_ALLOWED:
		return "not a supported value";
	case TRACEBUF_CFG_UNSUPPORTED:
		return "not supported by this CPU";
	case TRACEBUF_CFG_PERMISSION:
		return "needs CAP_PERFMON or CAP_SYS_ADMIN";
	case TRACEBUF_CFG_TOO_LONG:
		return "too long";
	case TRACEBUF_CFG_CONFLICT:
		return "cannot go with the other values";
	default:
		return "unknown reason";
	}
}

static int tb_copy_backend(char dst[TRACEBUF_NAME_LEN], const char *backend)
{
	size_t n;

	if (!backend)
		backend = TRACEBUF_BACKEND_AUTO;
	n = strnlen(backend, TRACEBUF_NAME_LEN);
	if (n >= TRACEBUF_NAME_LEN)
		return -EINVAL;
	memcpy(dst, backend, n);
	return 0;
}

int tracebuf_list_drv_config(struct tracebuf_session *s, const char *backend,
			     unsigned int cpu, struct tracebuf_cfg_key_desc *keys,
			     unsigned int max)
{
	struct tracebuf_cfg_keys q;

	if (!s || (!keys && max))
		return -EINVAL;
	memset(&q, 0, sizeof(q));
	if (tb_copy_backend(q.backend, backend) < 0)
		return -EINVAL;
	if (s->fd < 0)
		return -EBADF;

	q.size = sizeof(q);
	q.cpu = cpu;
	q.keys_max = max;
	q.key_size = sizeof(*keys);
	q.keys_ptr = (uint64_t)(uintptr_t)keys;
	if (ioctl(s->fd, TRACEBUF_IOC_LIST_DRV_CONFIG, &q) < 0)
		return -errno;
	return q.nr_keys > INT32_MAX ? INT32_MAX : (int)q.nr_keys;
}

int tracebuf_get_drv_config(struct tracebuf_session *s, char *buf, size_t len,
			    uint64_t *generation)
{
	struct tracebuf_drv_config req;
	char probe[1];

	if (!s || (!buf && len))
		return -EINVAL;
	if (s->fd < 0)
		return -EBADF;

	memset(&req, 0, sizeof(req));
	req.size = sizeof(req);
	/* len 0 asks for the length: a one-byte buffer the string never fits. */
	req.config_ptr = (uint64_t)(uintptr_t)(len ? buf : probe);
	req.config_len = !len ? 1 : len > UINT32_MAX ? UINT32_MAX : (uint32_t)len;
	if (ioctl(s->fd, TRACEBUF_IOC_GET_DRV_CONFIG, &req) < 0) {
		if (errno != ENOSPC || len)
			return -errno;
	}
	if (generation)
		*generation = req.generation;
	return req.config_len > INT32_MAX ? INT32_MAX : (int)req.config_len;
}

/* A message being built: never overflows, always NUL-terminated. */
struct tb_msg {
	char *p;
	size_t size;
	size_t len;
};

static void tb_msg_add(struct tb_msg *m, const char *fmt, ...)
	__attribute__((format(printf, 2, 3)));

static void tb_msg_add(struct tb_msg *m, const char *fmt, ...)
{
	va_list ap;
	int n;

	if (m->len + 1 >= m->size)
		return;
	va_start(ap, fmt);
	n = vsnprintf(m->p + m->len, m->size - m->len, fmt, ap);
	va_end(ap);
	if (n < 0)
		return;
	m->len += (size_t)n;
	if (m->len >= m->size)
		m->len = m->size - 1;
}

/* Room for item (and the closing "...)" after it)? */
static int tb_msg_fits(const struct tb_msg *m, size_t item)
{
	return m->len + item + sizeof("...)") <= m->size;
}

/* One item of a list in parentheses; "..." and stop when it is full. */
static int tb_msg_item(struct tb_msg *m, const char *sep, const char *item)
{
	if (!tb_msg_fits(m, strlen(sep) + strlen(item))) {
		tb_msg_add(m, "%s...", sep);
		return -1;
	}
	tb_msg_add(m, "%s%s", sep, item);
	return 0;
}

/* Quote bytes of the user's string, printable ASCII only, shortened. */
static void tb_msg_quote(struct tb_msg *m, const char *s, size_t n)
{
	char buf[TB_MSG_TOKEN_MAX + 4];
	size_t i, k = n > TB_MSG_TOKEN_MAX ? TB_MSG_TOKEN_MAX : n;

	for (i = 0; i < k; i++)
		buf[i] = s[i] >= 0x20 && s[i] < 0x7f ? s[i] : '?';
	if (k < n) {
		memcpy(buf + k, "...", 3);
		k += 3;
	}
	buf[k] = 0;
	tb_msg_add(m, "%s", buf);
}

static void tb_msg_enum(struct tb_msg *m, uint32_t allowed)
{
	const char *sep = "";
	char num[12];
	unsigned int v;

	tb_msg_add(m, " (supported: ");
	for (v = 0; v < 32; v++) {
		if (!(allowed & (1U << v)))
			continue;
		snprintf(num, sizeof(num), "%u", v);
		if (tb_msg_item(m, sep, num) < 0)
			break;
		sep = ",";
	}
	tb_msg_add(m, ")");
}

static void tb_msg_key_names(struct tb_msg *m, const struct tracebuf_cfg_key_desc *keys,
			     unsigned int n)
{
	char name[TRACEBUF_CFG_NAME_LEN + 1];
	const char *sep = "";
	unsigned int i;

	tb_msg_add(m, " (keys: ");
	for (i = 0; i < n; i++) {
		snprintf(name, sizeof(name), "%.*s", (int)sizeof(keys[i].name), keys[i].name);
		if (tb_msg_item(m, sep, name) < 0)
			break;
		sep = ", ";
	}
	tb_msg_add(m, ")");
}

/* What the values of a key look like, after a value was refused. */
static void tb_msg_values(struct tb_msg *m, const struct tracebuf_cfg_key_desc *k,
			  unsigned int reason)
{
	switch (k->type) {
	case TRACEBUF_CFG_BOOL:
		if (reason == TRACEBUF_CFG_BAD_VALUE)
			tb_msg_add(m, " (supported: 0,1)");
		break;
	case TRACEBUF_CFG_UINT:
		tb_msg_add(m, " (supported: %llu..%llu)", (unsigned long long)k->min,
			   (unsigned long long)k->max);
		break;
	case TRACEBUF_CFG_ENUM:
		tb_msg_enum(m, k->allowed);
		break;
	case TRACEBUF_CFG_U64:
		if (reason == TRACEBUF_CFG_BAD_VALUE)
			tb_msg_add(m, " (expected: a number, off%s)",
				   k->flags & TRACEBUF_CFG_KEY_CURRENT ? ", current" : "");
		break;
	case TRACEBUF_CFG_RANGE:
		if (reason == TRACEBUF_CFG_BAD_VALUE || reason == TRACEBUF_CFG_OUT_OF_RANGE)
			tb_msg_add(m, " (expected: off, START-END:filter, START-END:stop)");
		break;
	}
}

/* The backend the session traces, as tracebuf_setup() named it. */
static const char *tb_session_backend(const struct tracebuf_session *s)
{
	switch (s->setup_backend) {
	case TB_SETUP_BACKEND_AUTO:
		return TRACEBUF_BACKEND_AUTO;
	case TRACEBUF_BACKEND_INTEL_PT:
	case TRACEBUF_BACKEND_CORESIGHT:
		return tracebuf_backend_name(s->setup_backend);
	default:
		return NULL;
	}
}

/*
 * err->message for a refused string: "<token>: <reason>", and for some
 * reasons what would have been accepted. The kernel's offset and length
 * may point at the value only; the message quotes the whole token.
 */
static void tb_cfg_explain(struct tracebuf_session *s, const char *config, size_t len,
			   int ret, struct tracebuf_cfg_error *err)
{
	struct tracebuf_cfg_key_desc keys[TB_MSG_KEYS_MAX];
	struct tb_msg m = { err->message, sizeof(err->message), 0 };
	const struct tracebuf_cfg_key_desc *key = NULL;
	size_t off = err->offset, elen = err->len, ts, te, klen;
	unsigned int reason = err->reason;
	const char *backend;
	int nkeys = -1, i;

	err->message[0] = 0;
	if (reason == TRACEBUF_CFG_OK) {
		/* Refused as a whole (no backend, no SETUP, ...): the errno says why. */
		tb_msg_add(&m, "%s", tracebuf_strerror(ret));
		return;
	}
	if (off > len)
		off = len;
	if (elen > len - off)
		elen = len - off;
	err->offset = (uint32_t)off;
	err->len = (uint32_t)elen;

	ts = off;
	while (ts > 0 && config[ts - 1] != ',')
		ts--;
	te = off;
	while (te < len && config[te] != ',')
		te++;
	for (klen = 0; ts + klen < te && config[ts + klen] != '='; klen++)
		;

	if (te > ts) {
		tb_msg_quote(&m, config + ts, te - ts);
		tb_msg_add(&m, ": %s", tracebuf_cfg_reason_name(reason));
	} else {
		tb_msg_add(&m, "%s at offset %zu", tracebuf_cfg_reason_name(reason), off);
	}

	switch (reason) {
	case TRACEBUF_CFG_UNKNOWN_KEY:
	case TRACEBUF_CFG_BAD_VALUE:
	case TRACEBUF_CFG_OUT_OF_RANGE:
	case TRACEBUF_CFG_NOT_ALLOWED:
		break;
	default:
		return;
	}
	backend = tb_session_backend(s);
	if (backend)
		nkeys = tracebuf_list_drv_config(s, backend, s->setup_cpu, keys,
						 TB_MSG_KEYS_MAX);
	if (nkeys <= 0)
		return;
	if (nkeys > TB_MSG_KEYS_MAX)
		nkeys = TB_MSG_KEYS_MAX;

	if (reason == TRACEBUF_CFG_UNKNOWN_KEY) {
		tb_msg_key_names(&m, keys, (unsigned int)nkeys);
		return;
	}
	for (i = 0; i < nkeys && !key; i++)
		if (klen && klen < sizeof(keys[i].name) &&
		    !strncmp(keys[i].name, config + ts, klen) && !keys[i].name[klen])
			key = &keys[i];
	if (key)
		tb_msg_values(&m, key, reason);
}

int tracebuf_set_drv_config(struct tracebuf_session *s, const char *config,
			    unsigned int flags, struct tracebuf_cfg_error *err)
{
	struct tracebuf_drv_config req;
	size_t len;
	int ret;

	if (err)
		memset(err, 0, sizeof(*err));
	if (!s || !config || (flags & ~TB_DRV_CONFIG_F_ALL))
		return -EINVAL;
	if (s->fd < 0)
		return -EBADF;

	len = strnlen(config, TRACEBUF_DRV_CONFIG_MAX);
	if (len >= TRACEBUF_DRV_CONFIG_MAX) {
		/* The kernel would not read that far: said here, as it would. */
		if (err) {
			size_t total = strlen(config);

			err->offset = TRACEBUF_DRV_CONFIG_MAX - 1;
			err->len = total - err->offset > UINT32_MAX ? UINT32_MAX :
				   (uint32_t)(total - err->offset);
			err->reason = TRACEBUF_CFG_TOO_LONG;
			snprintf(err->message, sizeof(err->message),
				 "configuration too long: %zu bytes, at most %d", total,
				 TRACEBUF_DRV_CONFIG_MAX - 1);
		}
		return -EINVAL;
	}

	memset(&req, 0, sizeof(req));
	req.size = sizeof(req);
	req.flags = flags;
	req.config_ptr = (uint64_t)(uintptr_t)config;
	req.config_len = (uint32_t)len + 1;
	if (ioctl(s->fd, TRACEBUF_IOC_SET_DRV_CONFIG, &req) < 0) {
		ret = -errno;
		if (err) {
			err->offset = req.err_offset;
			err->len = req.err_len;
			err->reason = req.err_reason;
			err->generation = req.generation;
			tb_cfg_explain(s, config, len, ret, err);
		}
		return ret;
	}
	if (err)
		err->generation = req.generation;
	return 0;
}
