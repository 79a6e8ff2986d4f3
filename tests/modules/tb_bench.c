// SPDX-License-Identifier: GPL-2.0
/*
 * tb_bench - tests-only module for make bench: tracebuf's side of the
 * comparison with the BPF ring buffer and the perf buffer. A probe on the
 * sys_enter tracepoint (the one BPF's raw_tracepoint programs attach to)
 * writes 'batch' records per matching system call through the writer API,
 * the way a BPF program calls bpf_ringbuf_reserve()/bpf_ringbuf_submit():
 * one tracebuf_reserve() per record, or for several records per call one
 * tracebuf_reserve_batch() (what a producer with many records does; a BPF
 * program has no such call). The payload is written with 8-byte stores,
 * as the BPF programs do.
 *
 * One run at a time, owned by the file that started it. Tracepoint probes
 * run with preemption disabled (__DO_TRACE in include/linux/tracepoint.h),
 * which is what tracebuf_reserve() asks until the commit.
 */
#include <linux/fs.h>
#include <linux/miscdevice.h>
#include <linux/module.h>
#include <linux/percpu.h>
#include <linux/sched.h>
#include <linux/slab.h>
#include <linux/tracepoint.h>
#include <linux/uaccess.h>

#include "ring.h"
#include "tb_bench.h"

struct tbb_pcpu {
	u64 produced;
	u64 dropped;
};

static struct {
	struct mutex lock;		/* START/STOP/release */
	struct file *owner;
	struct tb_ring *rb;		/* holds the session's file */
	struct tbb_start cfg;
	struct tracepoint *tp;		/* sys_enter */
	struct tbb_pcpu __percpu *pc;
} tbb;

/*
 * The payload: 8-byte stores of a value known only at run time (v, v - 1,
 * ... for the n records), as the BPF programs of bench_ring store their
 * loop counter. A constant would let the compiler make it a memset(),
 * which costs a byte-wise rep stosb under TCG and not what BPF pays.
 * The BPF programs' stores are straight-line code, one per word (each
 * program is generated for its payload size); so are these, for the
 * payloads make bench uses (tbb_probe() below): a loop over the words
 * would cost a branch per word, and under TCG a translation block, which
 * BPF does not pay.
 */
static __always_inline void tbb_fill(struct tracebuf_wr *wr, u32 n, u32 words, u64 v)
{
	u32 i, w;

	for (i = 0; i < n; i++) {
		u64 *p = (void *)wr->rec + i * wr->size + sizeof(struct tracebuf_record);

#pragma GCC unroll 32
		for (w = 0; w < words; w++)
			p[w] = v - i;
	}
}

/* The records of one call, for payloads of 'words' 8-byte words. */
static __always_inline void tbb_write(struct tb_ring *rb, struct tbb_pcpu *pc, u32 words)
{
	struct tracebuf_wr wr;
	u32 k;

	if (tbb.cfg.batch > 1 && !(tbb.cfg.flags & TBB_F_SINGLE)) {
		/* Many records per call: one reservation for all of them. */
		k = tracebuf_reserve_batch(rb, TRACEBUF_REC_TEST, tbb.cfg.size,
					   tbb.cfg.batch, &wr);
		pc->dropped += tbb.cfg.batch - k;
		if (k) {
			tbb_fill(&wr, k, words, k);
			tracebuf_commit(rb, &wr);
		}
		return;
	}
	for (k = 0; k < tbb.cfg.batch; k++) {
		if (tracebuf_reserve(rb, TRACEBUF_REC_TEST, tbb.cfg.size, &wr)) {
			pc->dropped++;
			continue;
		}
		tbb_fill(&wr, 1, words, tbb.cfg.batch - k);
		tracebuf_commit(rb, &wr);
	}
}

static void tbb_probe(void *data, struct pt_regs *regs, long id)
{
	struct tb_ring *rb = tbb.rb;
	struct tbb_pcpu *pc;
	u32 words;

	if (id != tbb.cfg.nr || current->tgid != tbb.cfg.tgid)
		return;
	pc = this_cpu_ptr(tbb.pc);
	words = (tbb.cfg.size - sizeof(struct tracebuf_record)) / 8;
	pc->produced += tbb.cfg.batch;
	if (tbb.cfg.flags & TBB_F_COUNT_ONLY)
		return;
	/* Each payload of make bench with its own straight-line stores. */
	switch (words) {
	case 1:
		tbb_write(rb, pc, 1);
		break;
	case 8:
		tbb_write(rb, pc, 8);
		break;
	case 32:
		tbb_write(rb, pc, 32);
		break;
	default:
		tbb_write(rb, pc, words);
		break;
	}
}

static void tbb_find(struct tracepoint *tp, void *priv)
{
	if (!strcmp(tp->name, "sys_enter"))
		tbb.tp = tp;
}

/* Under tbb.lock: the probe is gone and no CPU is still inside it. */
static void tbb_teardown(void)
{
	if (!tbb.rb)
		return;
	tracepoint_probe_unregister(tbb.tp, tbb_probe, NULL);
	tracepoint_synchronize_unregister();
	tracebuf_ring_put(tbb.rb);
	tbb.rb = NULL;
	tbb.owner = NULL;
}

static long tbb_start(struct file *file, void __user *arg)
{
	struct tbb_start cfg;
	struct tb_ring *rb;
	int cpu, ret;

	if (copy_from_user(&cfg, arg, sizeof(cfg)))
		return -EFAULT;
	if (cfg.flags & ~(TBB_F_COUNT_ONLY | TBB_F_SINGLE) || !cfg.batch || cfg.batch > 10000 ||
	    cfg.size < sizeof(struct tracebuf_record) || cfg.size % 8 || cfg.size > 65536)
		return -EINVAL;
	if (tbb.rb)
		return -EBUSY;
	if (!tbb.tp)
		return -ENODEV;
	rb = tracebuf_ring_get(cfg.fd);
	if (IS_ERR(rb))
		return PTR_ERR(rb);
	for_each_possible_cpu(cpu)
		*per_cpu_ptr(tbb.pc, cpu) = (struct tbb_pcpu){ 0 };
	tbb.cfg = cfg;
	tbb.rb = rb;
	tbb.owner = file;
	/* The probe reads cfg and rb: both set before it can run. */
	ret = tracepoint_probe_register(tbb.tp, tbb_probe, NULL);
	if (ret) {
		tracebuf_ring_put(rb);
		tbb.rb = NULL;
		tbb.owner = NULL;
	}
	return ret;
}

static long tbb_ioctl(struct file *file, unsigned int cmd, unsigned long arg)
{
	void __user *uarg = (void __user *)arg;
	struct tbb_stats st = { 0 };
	long ret = 0;
	int cpu;

	mutex_lock(&tbb.lock);
	switch (cmd) {
	case TBB_IOC_START:
		ret = tbb_start(file, uarg);
		break;
	case TBB_IOC_STOP:
		if (!tbb.rb || tbb.owner != file) {
			ret = -ENXIO;
			break;
		}
		tbb_teardown();
		for_each_possible_cpu(cpu) {
			st.produced += per_cpu_ptr(tbb.pc, cpu)->produced;
			st.dropped += per_cpu_ptr(tbb.pc, cpu)->dropped;
		}
		break;
	default:
		ret = -ENOTTY;
	}
	mutex_unlock(&tbb.lock);
	if (!ret && cmd == TBB_IOC_STOP && copy_to_user(uarg, &st, sizeof(st)))
		ret = -EFAULT;
	return ret;
}

static int tbb_release(struct inode *inode, struct file *file)
{
	mutex_lock(&tbb.lock);
	if (tbb.owner == file)
		tbb_teardown();
	mutex_unlock(&tbb.lock);
	return 0;
}

static const struct file_operations tbb_fops = {
	.owner		= THIS_MODULE,
	.unlocked_ioctl	= tbb_ioctl,
	.release	= tbb_release,
};

static struct miscdevice tbb_dev = {
	.minor	= MISC_DYNAMIC_MINOR,
	.name	= "tb_bench",
	.fops	= &tbb_fops,
};

static int __init tbb_init(void)
{
	int ret;

	mutex_init(&tbb.lock);
	for_each_kernel_tracepoint(tbb_find, NULL);
	tbb.pc = alloc_percpu(struct tbb_pcpu);
	if (!tbb.pc)
		return -ENOMEM;
	ret = misc_register(&tbb_dev);
	if (ret)
		free_percpu(tbb.pc);
	return ret;
}

static void __exit tbb_exit(void)
{
	misc_deregister(&tbb_dev);	/* no file left: release tore down */
	free_percpu(tbb.pc);
}

module_init(tbb_init);
module_exit(tbb_exit);
MODULE_LICENSE("GPL");
MODULE_DESCRIPTION("tracebuf tests-only module: the sys_enter probe of make bench");
