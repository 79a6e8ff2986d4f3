// SPDX-License-Identifier: GPL-2.0
/*
 * Driver configuration: SET_DRV_CONFIG, GET_DRV_CONFIG and
 * LIST_DRV_CONFIG.
 *
 * A backend describes its keys (struct tb_cfg_key, per CPU because they
 * depend on its capabilities); drvcfg.c checks a whole string against them
 * before anything changes; the backend turns the values into its own
 * session configuration (s->bcfg). Applying a new one while tracing is
 * done under the session's lock, as the 2018 review of SET_DRV_CONFIG
 * suggested: on each traced CPU, with interrupts off and s->trace_lock
 * held, stop the hardware, publish, write the CONFIG record, restart
 * (trace.c: tb_trace_reconfigure; a session of several CPUs stops them all
 * first). No generation tracking is needed. Privileged keys need
 * CAP_PERFMON of the opener, kernel mode of a task session less (acct.c).
 *
 * Lifetime: s->cfg_* are created at SETUP (tb_config_init), replaced
 * under s->lock, and freed at release.
 */
#include <linux/cpu.h>
#include <linux/slab.h>
#include <linux/string.h>
#include <linux/uaccess.h>

#include "internal.h"
#include "backend.h"
#include "drvcfg.h"
#include "ring.h"

void tb_config_free(struct tb_session *s)
{
	kfree(s->cfg_keys);
	kfree(s->cfg_vals);
	kfree(s->bcfg);
	s->cfg_keys = NULL;
	s->cfg_vals = NULL;
	s->bcfg = NULL;
	s->cfg_nkeys = 0;
}

/* Under s->lock, at SETUP: the backend's keys for cpu, all at default. */
int tb_config_init(struct tb_session *s, unsigned int cpu)
{
	const struct tb_backend *b = s->backend;
	struct tb_cfg_key *keys;
	struct tb_cfg_val *vals;
	void *bcfg;
	u64 conflict = 0;
	int n, ret = -ENOMEM;

	tb_config_free(s);
	s->cfg_gen = 0;
	if (!b || !b->cfg_keys)
		return 0;
	keys = kcalloc(TB_CFG_MAX_KEYS, sizeof(*keys), GFP_KERNEL);
	vals = kcalloc(TB_CFG_MAX_KEYS, sizeof(*vals), GFP_KERNEL);
	bcfg = kzalloc(b->cfg_size, GFP_KERNEL);
	if (!keys || !vals || !bcfg)
		goto fail;
	n = b->cfg_keys(b, cpu, keys, TB_CFG_MAX_KEYS);
	ret = n;
	if (n < 0)
		goto fail;
	tb_cfg_defaults(keys, n, vals);
	ret = b->cfg_apply(s, vals, bcfg, &conflict);	/* defaults never conflict */
	if (ret)
		goto fail;
	s->cfg_keys = keys;
	s->cfg_vals = vals;
	s->cfg_nkeys = n;
	s->bcfg = bcfg;
	return 0;
fail:
	kfree(keys);
	kfree(vals);
	kfree(bcfg);
	return ret;
}

/* The canonical text of vals into text (TRACEBUF_DRV_CONFIG_MAX bytes); its length + NUL. */
static size_t tb_config_text(const struct tb_session *s, const struct tb_cfg_val *vals,
			     char *text)
{
	size_t n = tb_cfg_format(s->cfg_keys, s->cfg_nkeys, vals, text,
				 TRACEBUF_DRV_CONFIG_MAX);

	return min_t(size_t, n, TRACEBUF_DRV_CONFIG_MAX - 1) + 1;
}

struct tb_config_rec {
	const char *text;
	size_t len;			/* NUL included */
	u64 gen;
	u32 changed;
};

/* Write the CONFIG record: in any context (an IPI between stop and start). */
static void tb_config_write_rec(struct tb_session *s, void *arg)
{
	struct tb_config_rec *c = arg;
	struct tracebuf_rec_config *r;
	struct tracebuf_wr wr;

	if (!s->ring)
		return;
	/* A full ring counts the record as lost (LOST record), as any other. */
	if (tracebuf_reserve(s->ring, TRACEBUF_REC_CONFIG, sizeof(*r) + c->len, &wr))
		return;
	r = (struct tracebuf_rec_config *)wr.rec;
	r->generation = c->gen;
	r->changed = c->changed;
	r->len = c->len;
	memcpy(r + 1, c->text, c->len);
	tracebuf_commit(s->ring, &wr);
}

static u32 tb_config_changed(const struct tb_session *s, const struct tb_cfg_val *vals)
{
	u32 changed = 0;
	unsigned int i;

	for (i = 0; i < s->cfg_nkeys; i++)
		if (memcmp(&vals[i], &s->cfg_vals[i], sizeof(vals[i])))
			changed |= BIT(min(i, 31U));
	return changed;
}

/*
 * Parse under the opener's rights: privileged keys need CAP_PERFMON, but
 * a task session may set the kernel-mode ones where tb_perm_kernel() says
 * so (paranoid <= 1, as perf allows kernel mode for a per-task event).
 */
static int tb_config_parse(struct tb_session *s, const char *str, struct tb_cfg_val *vals,
			   struct tb_cfg_err *err)
{
	const struct tb_cfg_key *keys = s->cfg_keys;
	bool perfmon = tb_perm_perfmon(s);
	struct tb_cfg_key *copy = NULL;
	unsigned int i;
	u64 ignored;
	int ret;

	if (!perfmon && tb_perm_kernel(s)) {
		copy = kmemdup(keys, s->cfg_nkeys * sizeof(*keys), GFP_KERNEL);
		if (!copy)
			return -ENOMEM;
		for (i = 0; i < s->cfg_nkeys; i++)
			if (copy[i].flags & TB_CFG_F_KERNEL)
				copy[i].flags &= ~TB_CFG_F_PRIV;
		keys = copy;
	}
	ret = tb_cfg_parse(keys, s->cfg_nkeys, str, strlen(str),
			   TRACEBUF_DRV_CONFIG_MAX - 1, perfmon, vals, &ignored, err);
	kfree(copy);
	return ret;
}

static int tb_config_copy_out(void __user *arg, struct tracebuf_drv_config *dc,
			      u32 usize)
{
	return copy_to_user(arg, dc, min_t(u32, usize, sizeof(*dc))) ? -EFAULT : 0;
}

static int tb_config_in(struct tracebuf_drv_config *dc, void __user *arg)
{
	int ret = tb_copy_struct_in(dc, sizeof(*dc), TRACEBUF_DRV_CONFIG_SIZE_VER0, arg);

	if (ret)
		return ret;
	if (memchr_inv(dc->reserved, 0, sizeof(dc->reserved)))
		return -EINVAL;
	dc->err_offset = 0;
	dc->err_len = 0;
	dc->err_reason = TRACEBUF_CFG_OK;
	return 0;
}

long tb_ioctl_set_drv_config(struct tb_session *s, void __user *arg)
{
	struct tracebuf_drv_config dc;
	struct tb_config_rec rec = { };
	struct tb_cfg_val *vals = NULL;
	struct tb_cfg_err err = { };
	const struct tb_backend *b;
	char *str, *text = NULL;
	void *bcfg = NULL;
	u64 conflict;
	u32 usize;
	int ret;

	ret = tb_config_in(&dc, arg);
	if (ret)
		return ret;
	usize = dc.size;
	if (dc.flags & ~TRACEBUF_DRV_CONFIG_F_RESET || !dc.config_len)
		return -EINVAL;
	if (dc.config_len > TRACEBUF_DRV_CONFIG_MAX) {
		/* Say where the limit cut the text, as for any bad token. */
		dc.err_offset = TRACEBUF_DRV_CONFIG_MAX - 1;
		dc.err_len = dc.config_len - dc.err_offset;
		dc.err_reason = TRACEBUF_CFG_TOO_LONG;
		return tb_config_copy_out(arg, &dc, usize) ?: -EINVAL;
	}
	str = memdup_user(u64_to_user_ptr(dc.config_ptr), dc.config_len);
	if (IS_ERR(str))
		return PTR_ERR(str);
	if (!memchr(str, 0, dc.config_len)) {
		kfree(str);
		return -EINVAL;
	}

	cpus_read_lock();	/* the restart's IPI loop (trace.c) */
	mutex_lock(&s->lock);
	b = s->backend;
	ret = -EINVAL;
	if (!s->setup_done)
		goto out;
	ret = -ENODEV;
	if (!b || !s->cfg_keys)
		goto out;
	ret = -ENOMEM;
	vals = kcalloc(TB_CFG_MAX_KEYS, sizeof(*vals), GFP_KERNEL);
	bcfg = kzalloc(b->cfg_size, GFP_KERNEL);
	text = kmalloc(TRACEBUF_DRV_CONFIG_MAX, GFP_KERNEL);
	if (!vals || !bcfg || !text)
		goto out;
	if (dc.flags & TRACEBUF_DRV_CONFIG_F_RESET)
		tb_cfg_defaults(s->cfg_keys, s->cfg_nkeys, vals);
	else
		memcpy(vals, s->cfg_vals, s->cfg_nkeys * sizeof(*vals));
	ret = tb_config_parse(s, str, vals, &err);
	if (ret == -ENOMEM)
		goto out;
	if (ret) {
		dc.err_offset = err.offset;
		dc.err_len = err.len;
		dc.err_reason = err.reason;
		goto out;
	}
	conflict = 0;
	ret = b->cfg_apply(s, vals, bcfg, &conflict);
	if (ret) {
		/*
		 * The accepted string gave values the backend cannot have
		 * together: point at its first token naming one of the keys.
		 */
		if (ret == -EINVAL && conflict) {
			tb_cfg_find(s->cfg_keys, s->cfg_nkeys, str, strlen(str), conflict, &err);
			dc.err_offset = err.offset;
			dc.err_len = err.len;
			dc.err_reason = err.reason;
		}
		goto out;
	}

	rec.changed = tb_config_changed(s, vals);
	rec.gen = ++s->cfg_gen;
	rec.len = tb_config_text(s, vals, text);
	rec.text = text;
	memcpy(s->cfg_vals, vals, s->cfg_nkeys * sizeof(*vals));
	/* Installs bcfg, restarts the traced CPUs, writes the CONFIG record. */
	ret = tb_trace_reconfigure(s, bcfg, b->cfg_size, tb_config_write_rec, &rec);
out:
	dc.generation = s->cfg_gen;
	mutex_unlock(&s->lock);
	cpus_read_unlock();
	kfree(str);
	kfree(text);
	kfree(bcfg);
	kfree(vals);
	if (tb_config_copy_out(arg, &dc, usize))
		return -EFAULT;
	return ret;
}

long tb_ioctl_get_drv_config(struct tb_session *s, void __user *arg)
{
	struct tracebuf_drv_config dc;
	char *text;
	size_t len;
	u32 usize;
	int ret;

	ret = tb_config_in(&dc, arg);
	if (ret)
		return ret;
	usize = dc.size;
	if (dc.flags || (dc.config_len && !dc.config_ptr))
		return -EINVAL;
	text = kmalloc(TRACEBUF_DRV_CONFIG_MAX, GFP_KERNEL);
	if (!text)
		return -ENOMEM;
	mutex_lock(&s->lock);
	ret = -EINVAL;
	if (!s->setup_done)
		goto out;
	ret = -ENODEV;
	if (!s->cfg_keys)
		goto out;
	len = tb_config_text(s, s->cfg_vals, text);
	dc.generation = s->cfg_gen;
	ret = 0;
out:
	mutex_unlock(&s->lock);
	if (!ret) {
		if (len > dc.config_len)
			ret = -ENOSPC;
		else if (copy_to_user(u64_to_user_ptr(dc.config_ptr), text, len))
			ret = -EFAULT;
		dc.config_len = len;
	}
	kfree(text);
	if (ret != -EFAULT && tb_config_copy_out(arg, &dc, usize))
		ret = -EFAULT;
	return ret;
}

static void tb_config_desc(const struct tb_cfg_key *k, struct tracebuf_cfg_key_desc *d)
{
	memset(d, 0, sizeof(*d));
	strscpy(d->name, k->name, sizeof(d->name));
	strscpy(d->desc, k->desc ? k->desc : "", sizeof(d->desc));
	d->type = k->type;
	d->flags = (k->flags & TB_CFG_F_PRIV ? TRACEBUF_CFG_KEY_PRIV : 0) |
		   (k->flags & TB_CFG_F_CURRENT ? TRACEBUF_CFG_KEY_CURRENT : 0) |
		   (k->flags & TB_CFG_F_UNSUPPORTED ? TRACEBUF_CFG_KEY_UNSUPPORTED : 0);
	d->min = k->min;
	d->max = k->max;
	d->def = k->def;
	d->allowed = k->allowed;
}

long tb_ioctl_list_drv_config(struct tb_session *s, void __user *arg)
{
	struct tracebuf_cfg_key_desc d;
	struct tracebuf_cfg_keys q;
	const struct tb_backend *b;
	struct tb_cfg_key *keys;
	unsigned int i;
	int n, ret;

	ret = tb_copy_struct_in(&q, sizeof(q), TRACEBUF_CFG_KEYS_SIZE_VER0, arg);
	if (ret)
		return ret;
	if (q.reserved0 || memchr_inv(q.reserved, 0, sizeof(q.reserved)) ||
	    !memchr(q.backend, 0, sizeof(q.backend)) || q.cpu >= nr_cpu_ids ||
	    !cpu_possible(q.cpu) ||
	    (q.keys_max && (q.key_size < TRACEBUF_CFG_KEY_DESC_SIZE_VER0 ||
			    q.key_size > PAGE_SIZE || !q.keys_ptr)))
		return -EINVAL;
	keys = kcalloc(TB_CFG_MAX_KEYS, sizeof(*keys), GFP_KERNEL);
	if (!keys)
		return -ENOMEM;
	mutex_lock(&tb_backends_lock);
	b = tb_backend_find(q.backend);
	n = b && b->cfg_keys ? b->cfg_keys(b, q.cpu, keys, TB_CFG_MAX_KEYS) : -ENODEV;
	mutex_unlock(&tb_backends_lock);
	ret = n < 0 ? n : 0;
	for (i = 0; !ret && i < n && i < q.keys_max; i++) {
		void __user *dst = u64_to_user_ptr(q.keys_ptr + (u64)i * q.key_size);
		size_t c = min_t(size_t, q.key_size, sizeof(d));

		tb_config_desc(&keys[i], &d);
		if (copy_to_user(dst, &d, c) ||
		    (q.key_size > c && clear_user(dst + c, q.key_size - c)))
			ret = -EFAULT;
	}
	kfree(keys);
	if (ret)
		return ret;
	q.nr_keys = n;
	if (copy_to_user(arg, &q, min_t(u32, q.size, sizeof(q))))
		return -EFAULT;
	return 0;
}
