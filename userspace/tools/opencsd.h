/* SPDX-License-Identifier: GPL-2.0 */
/*
 * OpenCSD trace snapshots: the directory layout that OpenCSD's snapshot
 * reader (trc_pkt_lister -ss_dir DIR) decodes, for ETMv4 sources whose
 * trace reached one TMC with the formatter on. See docs/capture-format.md
 * ("OpenCSD snapshots") for the files written.
 */
#ifndef TRACEBUF_OPENCSD_H
#define TRACEBUF_OPENCSD_H

#include <stddef.h>
#include <stdint.h>

/* The programming of one ETM, as in struct tracebuf_rec_etm. */
struct ocsd_etm_regs {
	unsigned int cpu;		/* names the devices: cpu_CPU, ETM_CPU */
	uint32_t trace_id;		/* 0x01..0x6f; == TRCTRACEIDR[6:0] */
	uint32_t trcconfigr;
	uint32_t trctraceidr;
	uint32_t trcidr[14];		/* TRCIDR0..TRCIDR13 */
	uint32_t trcauthstatus;
};

/* The TMC formatter's frame size: trace lengths are multiples of it. */
#define OCSD_FRAME_SIZE 16

/*
 * Write the snapshot of nr ETMs (distinct CPUs and trace IDs) and len
 * bytes of TMC-formatted frames (trace may be NULL if len is 0) into dir,
 * which is created (one level, mode 0777 & ~umask) if missing:
 * dir/snapshot.ini, dir/cpu_I.ini and dir/device_I.ini for the I-th ETM
 * (I from 0), dir/trace.ini and dir/cstrace.bin. Existing files of those
 * names are replaced; other files are left alone.
 *
 * Returns 0, or -errno with a message in msg (msglen bytes, may be 0):
 * -EINVAL for bad arguments (no ETM, a duplicate CPU or trace ID, a trace
 * ID outside 0x01..0x6f or different from TRCTRACEIDR[6:0], len not a
 * multiple of OCSD_FRAME_SIZE), -ENOTDIR if dir is not a directory, or
 * the error of mkdir/open/write/close.
 */
int ocsd_write_snapshot(const char *dir, const struct ocsd_etm_regs *etms,
			unsigned int nr, const void *trace, size_t len,
			char *msg, size_t msglen);

/* A memory image: length bytes of file (relative to the snapshot directory) from offset. */
struct ocsd_dump {
	const char *file;
	uint64_t address, length, offset;
};

/*
 * The same with memory images: a [dumpK] section (file, address, length,
 * offset) per dump in the first core's cpu_0.ini, which OpenCSD's
 * snapshot reader turns into the code its full decoder reads.
 */
int ocsd_write_snapshot_dumps(const char *dir, const struct ocsd_etm_regs *etms,
			      unsigned int nr, const struct ocsd_dump *dumps,
			      unsigned int ndumps, const void *trace, size_t len,
			      char *msg, size_t msglen);

#endif /* TRACEBUF_OPENCSD_H */
