// SPDX-License-Identifier: GPL-2.0
/*
 * tracebuf - instruction-trace sessions on /dev/tracebuf.
 *
 * This file holds the module's entry points and the file operations of the
 * misc device. Lifetime: the file_operations' .owner pins the module while
 * any file is open, so rmmod fails with -EBUSY until the last close; each
 * open file is one session, freed at release.
 */
#include <linux/fs.h>
#include <linux/miscdevice.h>
#include <linux/module.h>
#include <linux/slab.h>

#include "internal.h"
#include "backend.h"
#include "ring.h"

static int tb_open(struct inode *inode, struct file *file)
{
	struct tb_session *s;

	s = kzalloc(sizeof(*s), GFP_KERNEL);
	if (!s)
		return -ENOMEM;
	if (!zalloc_cpumask_var(&s->cpus, GFP_KERNEL)) {
		kfree(s);
		return -ENOMEM;
	}
	if (!zalloc_cpumask_var(&s->tr_active, GFP_KERNEL)) {
		free_cpumask_var(s->cpus);
		kfree(s);
		return -ENOMEM;
	}
	tb_trace_init(s);
	INIT_LIST_HEAD(&s->list);
	mutex_init(&s->lock);
	mutex_init(&s->read_lock);
	init_waitqueue_head(&s->wq);
	atomic_set(&s->consumer, TB_CONSUMER_NONE);
	s->file = file;
	file->private_data = s;
	return nonseekable_open(inode, file);
}

static int tb_release(struct inode *inode, struct file *file)
{
	struct tb_session *s = file->private_data;

	/* Last reference: no mapping, producer or ioctl can reach s now. */
	tb_session_release(s);
	free_cpumask_var(s->tr_active);
	free_cpumask_var(s->cpus);
	mutex_destroy(&s->read_lock);
	mutex_destroy(&s->lock);
	kfree(s);
	return 0;
}

static int tb_mmap(struct file *file, struct vm_area_struct *vma)
{
	return tb_session_mmap(file->private_data, vma);
}

static ssize_t tb_read(struct file *file, char __user *buf, size_t len,
		       loff_t *ppos)
{
	return tb_session_read(file->private_data, buf, len,
			       file->f_flags & O_NONBLOCK);
}

static __poll_t tb_poll(struct file *file, struct poll_table_struct *wait)
{
	return tb_session_poll(file->private_data, file, wait);
}

static int tb_fasync(int fd, struct file *file, int on)
{
	struct tb_session *s = file->private_data;

	return fasync_helper(fd, file, on, &s->fasync);
}

static long tb_ioctl(struct file *file, unsigned int cmd, unsigned long arg)
{
	struct tb_session *s = file->private_data;
	void __user *uarg = (void __user *)arg;

	switch (cmd) {
	case TRACEBUF_IOC_GET_INFO:
		return tb_ioctl_get_info(s, uarg);
	case TRACEBUF_IOC_SETUP:
		return tb_ioctl_setup(s, uarg);
	case TRACEBUF_IOC_USER_MARKER:
		return tb_ioctl_user_marker(s, uarg);
	case TRACEBUF_IOC_ENABLE:
		return tb_ioctl_enable(s);
	case TRACEBUF_IOC_DISABLE:
		return tb_ioctl_disable(s);
	case TRACEBUF_IOC_SNAPSHOT:
		return tb_ioctl_snapshot(s);
	case TRACEBUF_IOC_GET_CAPS:
		return tb_ioctl_get_caps(s, uarg);
	case TRACEBUF_IOC_SET_DRV_CONFIG:
		return tb_ioctl_set_drv_config(s, uarg);
	case TRACEBUF_IOC_GET_DRV_CONFIG:
		return tb_ioctl_get_drv_config(s, uarg);
	case TRACEBUF_IOC_LIST_DRV_CONFIG:
		return tb_ioctl_list_drv_config(s, uarg);
	default:
		return -ENOTTY;
	}
}

const struct file_operations tb_fops = {
	.owner		= THIS_MODULE,	/* pins the module while a file is open */
	.open		= tb_open,
	.release	= tb_release,
	.read		= tb_read,
	.poll		= tb_poll,
	.mmap		= tb_mmap,
	.fasync		= tb_fasync,
	.unlocked_ioctl	= tb_ioctl,
	.compat_ioctl	= compat_ptr_ioctl,
};

static struct miscdevice tb_miscdev = {
	.minor	= MISC_DYNAMIC_MINOR,
	.name	= TB_NAME,
	.fops	= &tb_fops,
	.mode	= 0600,
};

/* The misc device, for backends that publish sysfs attributes under it. */
struct device *tb_device(void)
{
	return tb_miscdev.this_device;
}

/*
 * The device comes first, so backends can hang their sysfs directories
 * under it; sessions see the backend list under tb_backends_lock, which
 * may grow and shrink at any time (an emulator loading).
 */
static int __init tb_init(void)
{
	int ret;

	ret = tb_pt_init();
	if (ret)
		return ret;
	ret = tb_cs_init();
	if (ret)
		goto out_pt;
	ret = tb_sessions_init();
	if (ret)
		goto out_cs;
	ret = misc_register(&tb_miscdev);
	if (ret)
		goto out_sessions;
	ret = tb_backends_init();
	if (ret)
		goto out_misc;
	pr_info("tracebuf: version %s, ABI %u\n", TRACEBUF_VERSION,
		TRACEBUF_ABI_VERSION);
	return 0;
out_misc:
	misc_deregister(&tb_miscdev);
out_sessions:
	tb_sessions_exit();
out_cs:
	tb_cs_exit();
out_pt:
	tb_pt_exit();
	return ret;
}

static void __exit tb_exit(void)
{
	tb_backends_exit();
	misc_deregister(&tb_miscdev);
	tb_sessions_exit();
	tb_task_exit_module();
	tb_cs_exit();
	tb_pt_exit();
}

module_init(tb_init);
module_exit(tb_exit);

MODULE_DESCRIPTION("Instruction-trace sessions for Intel PT and ARM CoreSight");
MODULE_AUTHOR("The tracebuf developers");
MODULE_LICENSE("GPL");
MODULE_VERSION(TRACEBUF_VERSION);
