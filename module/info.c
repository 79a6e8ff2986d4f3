// SPDX-License-Identifier: GPL-2.0
/*
 * TRACEBUF_IOC_GET_INFO: the module's version and ABI, and the trace
 * backends present on this machine.
 */
#include <linux/kernel.h>
#include <linux/mm.h>
#include <linux/mutex.h>
#include <linux/slab.h>
#include <linux/string.h>
#include <linux/uaccess.h>

#include "internal.h"
#include "backend.h"

/* Under tb_backends_lock: one backend's description. */
static void tb_backend_desc(const struct tb_backend *b,
			    struct tracebuf_backend_desc *d)
{
	memset(d, 0, sizeof(*d));
	strscpy(d->name, b->name, sizeof(d->name));
	d->id = b->id;
	d->flags = b->flags;
	d->nr_cpus = b->nr_cpus;
	d->caps_size = b->caps_size;
}

/* Copy one backend description out with the caller's stride. */
static int tb_put_backend_desc(const struct tracebuf_backend_desc *d,
			       void __user *dst, u32 stride)
{
	size_t n = min_t(size_t, stride, sizeof(*d));

	if (copy_to_user(dst, d, n))
		return -EFAULT;
	if (stride > n && clear_user(dst + n, stride - n))
		return -EFAULT;
	return 0;
}

long tb_ioctl_get_info(struct tb_session *s, void __user *arg)
{
	struct tracebuf_backend_desc *descs;
	struct tracebuf_info info;
	unsigned int i, nr, n;
	u32 usize;
	int ret = 0;

	ret = tb_copy_struct_in(&info, sizeof(info), TRACEBUF_INFO_SIZE_VER0, arg);
	if (ret)
		return ret;
	usize = info.size;
	if (info.reserved0 || memchr_inv(info.reserved, 0, sizeof(info.reserved)))
		return -EINVAL;
	if (info.backends_max &&
	    (info.backend_desc_size < TRACEBUF_BACKEND_DESC_SIZE_VER0 ||
	     info.backend_desc_size > PAGE_SIZE || !info.backends_ptr))
		return -EINVAL;

	/*
	 * A snapshot under the lock (the list may change: an emulator
	 * loading), copied out after it: no user page fault, which may wait
	 * on anything (userfaultfd, FUSE), is taken with the lock held.
	 */
	descs = kcalloc(TB_BACKENDS_MAX, sizeof(*descs), GFP_KERNEL);
	if (!descs)
		return -ENOMEM;
	mutex_lock(&tb_backends_lock);
	nr = tb_backend_count();
	n = min_t(unsigned int, nr, TB_BACKENDS_MAX);
	for (i = 0; i < n; i++)
		tb_backend_desc(tb_backend_get(i), &descs[i]);
	mutex_unlock(&tb_backends_lock);

	for (i = 0; !ret && i < n && i < info.backends_max; i++)
		ret = tb_put_backend_desc(&descs[i],
					  u64_to_user_ptr(info.backends_ptr +
							  (u64)i * info.backend_desc_size),
					  info.backend_desc_size);
	kfree(descs);
	if (ret)
		return ret;

	info.size = min_t(u32, usize, sizeof(info));
	info.abi_version = TRACEBUF_ABI_VERSION;
	info.page_size = PAGE_SIZE;
	info.nr_cpu_ids = nr_cpu_ids;
	info.nr_backends = nr;
	strscpy(info.module_version, TRACEBUF_VERSION,
		sizeof(info.module_version));

	if (copy_to_user(arg, &info, info.size))
		return -EFAULT;
	return 0;
}

long tb_ioctl_get_caps(struct tb_session *s, void __user *arg)
{
	struct tracebuf_caps_query q;
	const struct tb_backend *b;
	void *buf;
	int ret;

	ret = tb_copy_struct_in(&q, sizeof(q), TRACEBUF_CAPS_QUERY_SIZE_VER0, arg);
	if (ret)
		return ret;
	if (q.reserved0 || memchr_inv(q.reserved, 0, sizeof(q.reserved)) ||
	    !memchr(q.backend, 0, sizeof(q.backend)) || q.cpu >= nr_cpu_ids ||
	    !cpu_possible(q.cpu) || (q.caps_size && !q.caps_ptr))
		return -EINVAL;
	buf = kzalloc(PAGE_SIZE, GFP_KERNEL);
	if (!buf)
		return -ENOMEM;
	mutex_lock(&tb_backends_lock);
	b = tb_backend_find(q.backend);
	ret = b && b->caps ? b->caps(b, q.cpu, buf, PAGE_SIZE) : -ENODEV;
	mutex_unlock(&tb_backends_lock);
	if (ret >= 0) {
		size_t n = min_t(size_t, ret, q.caps_size);

		q.caps_size = ret;
		ret = 0;
		if (copy_to_user(u64_to_user_ptr(q.caps_ptr), buf, n) ||
		    copy_to_user(arg, &q, min_t(u32, q.size, sizeof(q))))
			ret = -EFAULT;
	}
	kfree(buf);
	return ret;
}
