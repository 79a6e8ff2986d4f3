// SPDX-License-Identifier: GPL-2.0
/*
 * OpenCSD trace snapshots (opencsd.h): the .ini files of ARM's "Trace and
 * Debug Snapshot" format as OpenCSD's snapshot reader parses them
 * (decoder/tests/snapshot_parser_lib), and the trace buffer.
 *
 *   snapshot.ini   [snapshot] version, [device_list] (the cores, then the
 *                  ETMs), [trace] metadata=trace.ini
 *   cpu_I.ini      [device] name=cpu_CPU class=core type=<core profile>
 *   device_I.ini   [device] name=ETM_CPU class=trace_source type=ETM4,
 *                  [regs] with the names OpenCSD looks up (TRCCONFIGR,
 *                  TRCTRACEIDR, TRCIDRn, TRCAUTHSTATUS; the "(0xOFF)"
 *                  register offset suffix is informative)
 *   trace.ini      [trace_buffers] buffers=buffer0, [buffer0] name=ETB_0
 *                  file=cstrace.bin format=coresight, [source_buffers]
 *                  ETM_CPU=ETB_0, [core_trace_sources] cpu_CPU=ETM_CPU
 *   cstrace.bin    the frames
 *
 * The decoder needs a core for each ETM: its [device] type sets the
 * architecture and profile (A-profile ARMv8) the instruction decoder
 * assumes. Memory images, when given, are [dumpK] sections of the first
 * core (file, address, length, offset: OpenCSD's snapshot parser keys);
 * without them a full decode stops at the first address it would have to
 * read code at.
 */
#include <errno.h>
#include <fcntl.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "opencsd.h"

/* The core type of cpu_I.ini: OpenCSD's name for any A-profile ARMv8 core. */
#define OCSD_CORE_TYPE	"ARMv8-A"

#define OCSD_BUFFER	"ETB_0"
#define OCSD_TRACE_BIN	"cstrace.bin"

static int fail(char *msg, size_t msglen, int err, const char *fmt, ...)
	__attribute__((format(printf, 4, 5)));

static int fail(char *msg, size_t msglen, int err, const char *fmt, ...)
{
	va_list ap;

	if (msglen) {
		va_start(ap, fmt);
		vsnprintf(msg, msglen, fmt, ap);
		va_end(ap);
	}
	return -err;
}

/* Write len bytes to dir/name (created or truncated). 0 or -errno. */
static int write_file(const char *dir, const char *name, const void *buf,
		      size_t len, char *msg, size_t msglen)
{
	const unsigned char *p = buf;
	char path[4096];
	int fd, err;

	if ((size_t)snprintf(path, sizeof(path), "%s/%s", dir, name) >=
	    sizeof(path))
		return fail(msg, msglen, ENAMETOOLONG, "%s/%s: %s", dir, name,
			    strerror(ENAMETOOLONG));
	fd = open(path, O_WRONLY | O_CREAT | O_TRUNC | O_CLOEXEC, 0666);
	if (fd < 0) {
		err = errno;
		return fail(msg, msglen, err, "cannot create %s: %s", path,
			    strerror(err));
	}
	while (len) {
		ssize_t n = write(fd, p, len);

		if (n < 0 && errno == EINTR)
			continue;
		if (n <= 0) {
			err = n < 0 ? errno : EIO;
			close(fd);
			return fail(msg, msglen, err, "cannot write %s: %s",
				    path, strerror(err));
		}
		p += n;
		len -= (size_t)n;
	}
	if (close(fd) < 0) {
		err = errno;
		return fail(msg, msglen, err, "cannot write %s: %s", path,
			    strerror(err));
	}
	return 0;
}

/*
 * A text file built with open_memstream, then written: 0 or -errno.
 * The builder's own failure (ENOMEM) is reported as such.
 */
struct text {
	FILE *f;
	char *buf;
	size_t len;
};

static int text_open(struct text *t, char *msg, size_t msglen)
{
	t->buf = NULL;
	t->len = 0;
	t->f = open_memstream(&t->buf, &t->len);
	if (!t->f)
		return fail(msg, msglen, errno ? errno : ENOMEM,
			    "cannot build the snapshot files: %s",
			    strerror(errno ? errno : ENOMEM));
	return 0;
}

static int text_write(struct text *t, const char *dir, const char *name,
		      char *msg, size_t msglen)
{
	int err = ferror(t->f);

	if (fclose(t->f) != 0 || err) {
		free(t->buf);
		return fail(msg, msglen, ENOMEM, "cannot build %s/%s: %s", dir,
			    name, strerror(ENOMEM));
	}
	err = write_file(dir, name, t->buf, t->len, msg, msglen);
	free(t->buf);
	return err;
}

/* ETMv4 register offsets, for the informative "(0xOFF)" name suffix. */
static const unsigned int trcidr_off[14] = {
	0x1e0, 0x1e4, 0x1e8, 0x1ec, 0x1f0, 0x1f4, 0x1f8, 0x1fc,
	0x180, 0x184, 0x188, 0x18c, 0x190, 0x194,
};

static int check_args(const struct ocsd_etm_regs *etms, unsigned int nr,
		      const void *trace, size_t len, char *msg, size_t msglen)
{
	unsigned int i, j;

	if (!etms || nr == 0)
		return fail(msg, msglen, EINVAL, "no ETM to describe");
	if (!trace && len)
		return fail(msg, msglen, EINVAL, "no trace buffer for %zu bytes",
			    len);
	if (len % OCSD_FRAME_SIZE)
		return fail(msg, msglen, EINVAL,
			    "%zu bytes of trace is not a whole number of %d-byte TMC frames",
			    len, OCSD_FRAME_SIZE);
	for (i = 0; i < nr; i++) {
		const struct ocsd_etm_regs *e = &etms[i];

		if (e->trace_id < 0x01 || e->trace_id > 0x6f)
			return fail(msg, msglen, EINVAL,
				    "CPU %u: trace ID 0x%x is not one of 0x01..0x6f",
				    e->cpu, e->trace_id);
		if ((e->trctraceidr & 0x7f) != e->trace_id)
			return fail(msg, msglen, EINVAL,
				    "CPU %u: trace ID 0x%x but TRCTRACEIDR 0x%x",
				    e->cpu, e->trace_id, e->trctraceidr);
		for (j = 0; j < i; j++) {
			if (etms[j].cpu == e->cpu)
				return fail(msg, msglen, EINVAL,
					    "two ETMs for CPU %u", e->cpu);
			if (etms[j].trace_id == e->trace_id)
				return fail(msg, msglen, EINVAL,
					    "CPUs %u and %u share trace ID 0x%x",
					    etms[j].cpu, e->cpu, e->trace_id);
		}
	}
	return 0;
}

static int make_dir(const char *dir, char *msg, size_t msglen)
{
	struct stat st;
	int err;

	if (mkdir(dir, 0777) == 0)
		return 0;
	err = errno;
	if (err != EEXIST)
		return fail(msg, msglen, err, "cannot create %s: %s", dir,
			    strerror(err));
	if (stat(dir, &st) < 0) {
		err = errno;
		return fail(msg, msglen, err, "%s: %s", dir, strerror(err));
	}
	if (!S_ISDIR(st.st_mode))
		return fail(msg, msglen, ENOTDIR, "%s: %s", dir,
			    strerror(ENOTDIR));
	return 0;
}

static int write_snapshot_ini(const char *dir, unsigned int nr, char *msg,
			      size_t msglen)
{
	struct text t;
	unsigned int i, n = 0;
	int err = text_open(&t, msg, msglen);

	if (err)
		return err;
	fprintf(t.f, "[snapshot]\nversion=1.0\ndescription=tracebuf export\n\n"
		"[device_list]\n");
	for (i = 0; i < nr; i++)
		fprintf(t.f, "device%u=cpu_%u.ini\n", n++, i);
	for (i = 0; i < nr; i++)
		fprintf(t.f, "device%u=device_%u.ini\n", n++, i);
	fprintf(t.f, "\n[trace]\nmetadata=trace.ini\n");
	return text_write(&t, dir, "snapshot.ini", msg, msglen);
}

static int write_core_ini(const char *dir, unsigned int idx,
			  const struct ocsd_etm_regs *e,
			  const struct ocsd_dump *dumps, unsigned int ndumps,
			  char *msg, size_t msglen)
{
	char name[32];
	struct text t;
	unsigned int i;
	int err = text_open(&t, msg, msglen);

	if (err)
		return err;
	fprintf(t.f, "[device]\nname=cpu_%u\nclass=core\ntype=%s\n",
		e->cpu, OCSD_CORE_TYPE);
	for (i = 0; i < ndumps; i++)
		fprintf(t.f, "\n[dump%u]\nfile=%s\naddress=0x%llx\nlength=0x%llx\n"
			"offset=0x%llx\n", i + 1, dumps[i].file,
			(unsigned long long)dumps[i].address,
			(unsigned long long)dumps[i].length,
			(unsigned long long)dumps[i].offset);
	snprintf(name, sizeof(name), "cpu_%u.ini", idx);
	return text_write(&t, dir, name, msg, msglen);
}

static int write_etm_ini(const char *dir, unsigned int idx,
			 const struct ocsd_etm_regs *e, char *msg,
			 size_t msglen)
{
	char name[32];
	struct text t;
	unsigned int i;
	int err = text_open(&t, msg, msglen);

	if (err)
		return err;
	fprintf(t.f, "[device]\nname=ETM_%u\nclass=trace_source\ntype=ETM4\n\n"
		"[regs]\n", e->cpu);
	fprintf(t.f, "TRCCONFIGR(0x010)=0x%08x\n", e->trcconfigr);
	fprintf(t.f, "TRCTRACEIDR(0x040)=0x%08x\n", e->trctraceidr);
	for (i = 0; i < 14; i++)
		fprintf(t.f, "TRCIDR%u(0x%03x)=0x%08x\n", i, trcidr_off[i],
			e->trcidr[i]);
	fprintf(t.f, "TRCAUTHSTATUS(0xfb8)=0x%08x\n", e->trcauthstatus);
	snprintf(name, sizeof(name), "device_%u.ini", idx);
	return text_write(&t, dir, name, msg, msglen);
}

static int write_trace_ini(const char *dir, const struct ocsd_etm_regs *etms,
			   unsigned int nr, char *msg, size_t msglen)
{
	struct text t;
	unsigned int i;
	int err = text_open(&t, msg, msglen);

	if (err)
		return err;
	fprintf(t.f, "[trace_buffers]\nbuffers=buffer0\n\n"
		"[buffer0]\nname=%s\nfile=%s\nformat=coresight\n\n"
		"[source_buffers]\n", OCSD_BUFFER, OCSD_TRACE_BIN);
	for (i = 0; i < nr; i++)
		fprintf(t.f, "ETM_%u=%s\n", etms[i].cpu, OCSD_BUFFER);
	fprintf(t.f, "\n[core_trace_sources]\n");
	for (i = 0; i < nr; i++)
		fprintf(t.f, "cpu_%u=ETM_%u\n", etms[i].cpu, etms[i].cpu);
	return text_write(&t, dir, "trace.ini", msg, msglen);
}

int ocsd_write_snapshot(const char *dir, const struct ocsd_etm_regs *etms,
			unsigned int nr, const void *trace, size_t len,
			char *msg, size_t msglen)
{
	return ocsd_write_snapshot_dumps(dir, etms, nr, NULL, 0, trace, len,
					 msg, msglen);
}

int ocsd_write_snapshot_dumps(const char *dir, const struct ocsd_etm_regs *etms,
			      unsigned int nr, const struct ocsd_dump *dumps,
			      unsigned int ndumps, const void *trace, size_t len,
			      char *msg, size_t msglen)
{
	unsigned int i;
	int err;

	if (msglen)
		msg[0] = '\0';
	if (!dir || !*dir)
		return fail(msg, msglen, EINVAL, "no snapshot directory");
	err = check_args(etms, nr, trace, len, msg, msglen);
	if (!err)
		err = make_dir(dir, msg, msglen);
	for (i = 0; !err && i < nr; i++) {
		err = write_core_ini(dir, i, &etms[i], dumps,
				     i ? 0 : ndumps, msg, msglen);
		if (!err)
			err = write_etm_ini(dir, i, &etms[i], msg, msglen);
	}
	if (!err)
		err = write_trace_ini(dir, etms, nr, msg, msglen);
	if (!err)
		err = write_file(dir, OCSD_TRACE_BIN, trace ? trace : "", len,
				 msg, msglen);
	/* Last: a snapshot.ini means the rest is there. */
	if (!err)
		err = write_snapshot_ini(dir, nr, msg, msglen);
	return err;
}
