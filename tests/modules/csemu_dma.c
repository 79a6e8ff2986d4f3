// SPDX-License-Identifier: GPL-2.0
/*
 * tb_csemu: the sinks' DMA master as a platform would put it (dma=):
 *
 *  direct       bus address = physical address, caches coherent (the
 *               default; the device's own DMA ops are the kernel's).
 *  iommu        the sink's device gets DMA ops of ours (set_dma_ops()):
 *               dma_map_page() hands out I/O virtual addresses, and the
 *               TMC reaches only what is mapped for its own device, in
 *               the mapped direction; anything else is a fault (an SMMU
 *               in front of Juno's ETR): STS.MemErr and a violation.
 *  noncoherent  as iommu, and the device and the CPU do not share
 *               caches: the device reads and writes memory (a buffer of
 *               ours per mapping), the CPU its cached view (the pages).
 *               dma_map_page() and dma_sync_single_for_device() write
 *               the CPU's view back (arm64's arch_sync_dma_for_device()
 *               cleans to the point of coherency whatever the
 *               direction); dma_sync_single_for_cpu() and
 *               dma_unmap_page() of a FROM_DEVICE or BIDIRECTIONAL
 *               mapping make the device's writes visible
 *               (arch_sync_dma_for_cpu() invalidates). Stricter than a
 *               cache: a write-back copies the whole range, not only
 *               dirty lines, so a sync_for_device over bytes the device
 *               wrote and the CPU never synced loses them.
 *
 * The DMA API calls come from tracebuf (process context for map and
 * unmap, any context for syncs); the device's accesses from the TMC
 * model under csemu_lock. csemu_dma_lock (raw, IRQs off) protects the
 * mappings and the copies, and nests inside csemu_lock.
 */
#include <linux/dma-map-ops.h>
#include <linux/list.h>

#include "csemu.h"

#define CSEMU_IOVA_BASE		BIT_ULL(39)	/* below the ETR's 40-bit AXI width */

struct csemu_map {
	struct list_head node;
	struct device *dev;
	u64 iova, size;
	phys_addr_t pa;
	enum dma_data_direction dir;
	u8 *mem;			/* noncoherent: what the device sees */
};

static LIST_HEAD(csemu_maps);
static DEFINE_RAW_SPINLOCK(csemu_dma_lock);
static u64 csemu_iova_next = CSEMU_IOVA_BASE;

/* Under csemu_dma_lock: the mapping holding [iova, iova + len) for dev. */
static struct csemu_map *csemu_map_find(struct device *dev, u64 iova, u64 len)
{
	struct csemu_map *m;

	list_for_each_entry(m, &csemu_maps, node)
		if (m->dev == dev && iova >= m->iova && len <= m->size &&
		    iova - m->iova <= m->size - len)
			return m;
	return NULL;
}

static dma_addr_t csemu_map_page(struct device *dev, struct page *page,
				 unsigned long offset, size_t size,
				 enum dma_data_direction dir, unsigned long attrs)
{
	phys_addr_t pa = page_to_phys(page) + offset;
	struct csemu_map *m;
	unsigned long flags;

	m = kzalloc(sizeof(*m), GFP_KERNEL);
	if (!m)
		return DMA_MAPPING_ERROR;
	if (csemu_dma_mode == CSEMU_DMA_NONCOHERENT) {
		m->mem = kvmalloc(size, GFP_KERNEL);
		if (!m->mem) {
			kfree(m);
			return DMA_MAPPING_ERROR;
		}
		memcpy(m->mem, phys_to_virt(pa), size);	/* cleaned to memory */
	}
	m->dev = dev;
	m->pa = pa;
	m->size = size;
	m->dir = dir;
	raw_spin_lock_irqsave(&csemu_dma_lock, flags);
	m->iova = csemu_iova_next + offset_in_page(pa);
	csemu_iova_next += PAGE_ALIGN(offset_in_page(pa) + size) + PAGE_SIZE;	/* a guard page */
	list_add(&m->node, &csemu_maps);
	raw_spin_unlock_irqrestore(&csemu_dma_lock, flags);
	return m->iova;
}

/* The device's writes to the CPU's view (invalidate), under the lock. */
static void csemu_to_cpu(struct csemu_map *m, u64 off, u64 len)
{
	if (m->mem && (m->dir == DMA_FROM_DEVICE || m->dir == DMA_BIDIRECTIONAL))
		memcpy(phys_to_virt(m->pa) + off, m->mem + off, len);
}

static void csemu_unmap_page(struct device *dev, dma_addr_t addr, size_t size,
			     enum dma_data_direction dir, unsigned long attrs)
{
	struct csemu_map *m;
	unsigned long flags;

	raw_spin_lock_irqsave(&csemu_dma_lock, flags);
	m = csemu_map_find(dev, addr, size);
	if (m && m->iova == addr) {
		csemu_to_cpu(m, 0, m->size);
		list_del(&m->node);
	} else {
		m = NULL;
	}
	raw_spin_unlock_irqrestore(&csemu_dma_lock, flags);
	if (!m) {
		pr_warn_ratelimited("tb_csemu: dma_unmap_page of %pad (%zu bytes): not mapped\n",
				    &addr, size);
		atomic64_inc(&csemu.violations);
		return;
	}
	kvfree(m->mem);
	kfree(m);
}

static void csemu_sync_for_cpu(struct device *dev, dma_addr_t addr, size_t size,
			       enum dma_data_direction dir)
{
	struct csemu_map *m;
	unsigned long flags;

	raw_spin_lock_irqsave(&csemu_dma_lock, flags);
	m = csemu_map_find(dev, addr, size);
	if (m)
		csemu_to_cpu(m, addr - m->iova, size);
	raw_spin_unlock_irqrestore(&csemu_dma_lock, flags);
}

static void csemu_sync_for_device(struct device *dev, dma_addr_t addr, size_t size,
				  enum dma_data_direction dir)
{
	struct csemu_map *m;
	unsigned long flags;

	raw_spin_lock_irqsave(&csemu_dma_lock, flags);
	m = csemu_map_find(dev, addr, size);
	if (m && m->mem)	/* cleaned: the CPU's view reaches memory */
		memcpy(m->mem + (addr - m->iova), phys_to_virt(m->pa) + (addr - m->iova), size);
	raw_spin_unlock_irqrestore(&csemu_dma_lock, flags);
}

static const struct dma_map_ops csemu_dma_ops = {
	.map_page		= csemu_map_page,
	.unmap_page		= csemu_unmap_page,
	.sync_single_for_cpu	= csemu_sync_for_cpu,
	.sync_single_for_device	= csemu_sync_for_device,
};

/*
 * The sink's platform device: our ops unless dma=direct. A kernel
 * without DMA ops (CONFIG_DMA_OPS on 6.1, CONFIG_ARCH_HAS_DMA_OPS on
 * 6.12; arm64 selects it with IOMMU_DMA) cannot give a device ops of
 * ours: -EOPNOTSUPP, rather than faults that only look like tracebuf's.
 */
int csemu_dma_attach(struct device *dev)
{
	if (csemu_dma_mode == CSEMU_DMA_DIRECT)
		return 0;
	set_dma_ops(dev, &csemu_dma_ops);
	if (get_dma_ops(dev) != &csemu_dma_ops) {
		pr_err("tb_csemu: dma=iommu and dma=noncoherent need a kernel with DMA ops (CONFIG_IOMMU_DMA on arm64)\n");
		return -EOPNOTSUPP;
	}
	return 0;
}

/*
 * The TMC's access to [addr, addr + len) (within one page of its bus
 * address): where the bytes are, or NULL for a fault (STS.MemErr).
 * Under csemu_lock. write: the device writes (trace), else reads (a
 * table entry).
 */
void *csemu_dma_ptr(struct csemu_sink *k, u64 addr, u64 len, bool write)
{
	enum csemu_viol v = CV_NR;
	phys_addr_t pa = 0;
	struct csemu_map *m;
	void *p = NULL;

	if (csemu_dma_mode == CSEMU_DMA_DIRECT) {
		if (!csemu_pa_ok(addr) || !csemu_pa_ok(addr + len - 1) || csemu_pa_freed(k, addr))
			return NULL;
		return phys_to_virt(addr);
	}
	raw_spin_lock(&csemu_dma_lock);
	m = csemu_map_find(k->dev, addr, len);
	if (!m) {
		v = CV_DMA_UNMAPPED;
	} else if (write ? m->dir == DMA_TO_DEVICE : m->dir == DMA_FROM_DEVICE) {
		v = CV_DMA_DIR;
	} else {
		pa = m->pa + (addr - m->iova);
		p = m->mem ? m->mem + (addr - m->iova) : phys_to_virt(pa);
	}
	raw_spin_unlock(&csemu_dma_lock);
	if (v != CV_NR)
		csemu_violation(&k->c, v);
	else if (!m->mem && csemu_pa_freed(k, pa))
		p = NULL;	/* mapped, but the page was freed under it */
	return p;
}

/* At exit: mappings left (tracebuf unmaps everything it mapped first). */
void csemu_dma_exit(void)
{
	struct csemu_map *m, *t;
	unsigned int left = 0;

	list_for_each_entry_safe(m, t, &csemu_maps, node) {
		list_del(&m->node);
		kvfree(m->mem);
		kfree(m);
		left++;
	}
	if (left)
		pr_warn("tb_csemu: %u DMA mappings never unmapped\n", left);
}
