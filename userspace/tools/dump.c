// SPDX-License-Identifier: GPL-2.0
/*
 * tracebuf dump: the records of a capture directory (capture.h), one per
 * line, merged across CPUs by time; --json for NDJSON. Also the small
 * JSON reader and writer helpers of tool.h.
 */
#include <errno.h>
#include <fcntl.h>
#include <getopt.h>
#include <inttypes.h>
#include <limits.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include <libtracebuf.h>

#include "capture.h"
#include "tool.h"

/* ---- JSON helpers -------------------------------------------------------- */

void tb_json_str(FILE *f, const char *s, size_t len)
{
	size_t i;

	fputc('"', f);
	for (i = 0; i < len; i++) {
		unsigned char c = (unsigned char)s[i];

		if (c == '"' || c == '\\')
			fprintf(f, "\\%c", c);
		else if (c < 0x20 || c >= 0x7f)
			fprintf(f, "\\u%04x", c);
		else
			fputc(c, f);
	}
	fputc('"', f);
}

static const char *json_ws(const char *p, const char *end)
{
	while (p < end && (*p == ' ' || *p == '\t' || *p == '\n' || *p == '\r'))
		p++;
	return p;
}

/* The end of the value at p (after whitespace), or NULL if malformed. */
static const char *json_skip(const char *p, const char *end, int depth)
{
	p = json_ws(p, end);
	if (p >= end || depth > 64)
		return NULL;
	if (*p == '"') {
		for (p++; p < end; p++) {
			if (*p == '\\')
				p++;
			else if (*p == '"')
				return p + 1;
		}
		return NULL;
	}
	if (*p == '{' || *p == '[') {
		char close = *p == '{' ? '}' : ']';

		p = json_ws(p + 1, end);
		if (p < end && *p == close)
			return p + 1;
		for (;;) {
			if (close == '}') {
				p = json_skip(p, end, depth + 1);	/* key */
				if (!p)
					return NULL;
				p = json_ws(p, end);
				if (p >= end || *p != ':')
					return NULL;
				p++;
			}
			p = json_skip(p, end, depth + 1);
			if (!p)
				return NULL;
			p = json_ws(p, end);
			if (p >= end)
				return NULL;
			if (*p == close)
				return p + 1;
			if (*p != ',')
				return NULL;
			p++;
		}
	}
	if (!((*p >= '0' && *p <= '9') || *p == '-' || (*p >= 'a' && *p <= 'z')))
		return NULL;
	while (p < end && ((*p >= '0' && *p <= '9') || *p == '-' || *p == '+' || *p == '.' ||
			   (*p >= 'a' && *p <= 'z') || *p == 'E'))
		p++;
	return p;
}

int tb_json_object(const char *text, size_t len)
{
	const char *end = text + len, *p = json_ws(text, end);

	if (p >= end || *p != '{')
		return -1;
	p = json_skip(p, end, 0);
	return p && json_ws(p, end) == end ? 0 : -1;
}

int tb_json_member(const char *obj, size_t objlen, const char *key,
		   const char **val, size_t *vallen)
{
	const char *p = obj, *end = obj + objlen, *k, *ke;
	size_t klen = strlen(key);

	p = json_ws(p, end);
	if (p >= end || *p != '{')
		return -1;
	p = json_ws(p + 1, end);
	if (p < end && *p == '}')
		return -1;
	for (;;) {
		k = json_ws(p, end);
		ke = json_skip(k, end, 0);
		if (!ke || *k != '"')
			return -1;
		p = json_ws(ke, end);
		if (p >= end || *p != ':')
			return -1;
		p = json_ws(p + 1, end);
		ke = json_skip(p, end, 0);
		if (!ke)
			return -1;
		/* Keys with escapes are not ours: compared raw. */
		if ((size_t)(json_skip(k, end, 0) - k) == klen + 2 && !memcmp(k + 1, key, klen)) {
			*val = p;
			*vallen = (size_t)(ke - p);
			return 0;
		}
		p = json_ws(ke, end);
		if (p >= end || *p != ',')
			return -1;
		p++;
	}
}

int tb_json_u64(const char *val, size_t len, uint64_t *out)
{
	uint64_t v = 0;
	size_t i;

	if (!len)
		return -1;
	for (i = 0; i < len; i++) {
		unsigned int d;

		if (val[i] == '.' && i)		/* 12.5 -> 12 */
			break;
		if (val[i] < '0' || val[i] > '9')
			return -1;
		d = (unsigned int)(val[i] - '0');
		if (v > (UINT64_MAX - d) / 10)
			return -1;
		v = v * 10 + d;
	}
	*out = v;
	return 0;
}

int tb_json_bool(const char *val, size_t len, int *out)
{
	if (len == 4 && !memcmp(val, "true", 4))
		*out = 1;
	else if (len == 5 && !memcmp(val, "false", 5))
		*out = 0;
	else
		return -1;
	return 0;
}

static int hexval(char c)
{
	if (c >= '0' && c <= '9')
		return c - '0';
	if (c >= 'a' && c <= 'f')
		return c - 'a' + 10;
	if (c >= 'A' && c <= 'F')
		return c - 'A' + 10;
	return -1;
}

int tb_json_string(const char *val, size_t len, char *buf, size_t size)
{
	size_t i, n = 0;

	if (len < 2 || val[0] != '"' || val[len - 1] != '"' || !size)
		return -1;
	for (i = 1; i < len - 1; i++) {
		char c = val[i];

		if (c == '\\') {
			if (++i >= len - 1)
				return -1;
			switch (val[i]) {
			case 'n': c = '\n'; break;
			case 't': c = '\t'; break;
			case 'r': c = '\r'; break;
			case 'b': c = '\b'; break;
			case 'f': c = '\f'; break;
			case 'u': {
				int h[4], k;
				unsigned int u = 0;

				if (i + 4 > len - 2)
					return -1;
				for (k = 0; k < 4; k++) {
					h[k] = hexval(val[i + 1 + k]);
					if (h[k] < 0)
						return -1;
					u = u << 4 | (unsigned int)h[k];
				}
				i += 4;
				c = (char)(u > 0xff ? '?' : u);
				break;
			}
			default:
				c = val[i];	/* " \ / */
				break;
			}
		}
		if (n + 1 >= size)
			return -1;
		buf[n++] = c;
	}
	buf[n] = 0;
	return 0;
}

int tb_json_index(const char *val, size_t len, size_t n, const char **elem, size_t *elemlen)
{
	const char *p = val, *end = val + len, *e;
	size_t i = 0;

	p = json_ws(p, end);
	if (p >= end || *p != '[')
		return -1;
	p = json_ws(p + 1, end);
	if (p < end && *p == ']')
		return -1;
	for (;;) {
		p = json_ws(p, end);
		e = json_skip(p, end, 0);
		if (!e)
			return -1;
		if (i++ == n) {
			*elem = p;
			*elemlen = (size_t)(e - p);
			return 0;
		}
		p = json_ws(e, end);
		if (p >= end || *p != ',')
			return -1;
		p++;
	}
}

int tb_read_file(const char *path, unsigned char **buf, size_t *len)
{
	unsigned char *b = NULL, *nb;
	size_t n = 0, cap = 0;
	struct stat st;
	int fd, err;

	fd = open(path, O_RDONLY | O_CLOEXEC);
	if (fd < 0)
		return -errno;
	if (fstat(fd, &st) == 0 && S_ISDIR(st.st_mode)) {
		close(fd);
		return -EISDIR;
	}
	if (fstat(fd, &st) == 0 && S_ISREG(st.st_mode) && st.st_size > 0)
		cap = (size_t)st.st_size + 1;
	for (;;) {
		ssize_t r;

		if (!b || n + 1 >= cap) {
			cap = !cap ? 65536 : b ? cap * 2 : cap;
			nb = realloc(b, cap);
			if (!nb) {
				err = -ENOMEM;
				goto fail;
			}
			b = nb;
		}
		r = read(fd, b + n, cap - n - 1);
		if (r < 0 && errno == EINTR)
			continue;
		if (r < 0) {
			err = -errno;
			goto fail;
		}
		if (r == 0)
			break;
		n += (size_t)r;
	}
	close(fd);
	if (!b) {
		b = malloc(1);
		if (!b)
			return -ENOMEM;
	}
	b[n] = 0;
	*buf = b;
	*len = n;
	return 0;
fail:
	close(fd);
	free(b);
	return err;
}

/* ---- dump --------------------------------------------------------------- */

static const char dump_usage[] =
	"Usage: tracebuf dump DIR [--json] [--cpu N]\n"
	"\n"
	"  --json      one JSON object per line (the first describes the capture)\n"
	"  --cpu N     only the records of CPU N's file\n";

struct dcpu {
	unsigned int cpu;
	char path[PATH_MAX];
	unsigned char *buf;
	size_t len;		/* bytes of valid records */
	size_t off;		/* next record */
	size_t bad_off;		/* where the file stops making sense */
	const char *bad_why;	/* NULL: the whole file is fine */
	uint64_t aux_off;	/* cpuN.aux offset of the next AUX span */
	uint64_t aux_file;	/* size of cpuN.aux, or UINT64_MAX if missing */
	uint64_t records;
};

static const char *lost_reason(uint32_t reason)
{
	switch (reason) {
	case TRACEBUF_LOST_RING_FULL:
		return "ring_full";
	case TRACEBUF_LOST_AUX_OVERRUN:
		return "aux_overrun";
	default:
		return "unknown";
	}
}

/* struct tracebuf_rec_lost.flags: "AT_LEAST", "-" for none; JSON array. */
static void print_lost_flags(uint32_t flags, int json)
{
	const char *sep = "";

	if (json)
		putchar('[');
	if (flags & TRACEBUF_LOST_F_AT_LEAST) {
		printf(json ? "\"AT_LEAST\"" : "AT_LEAST");
		sep = json ? "," : "|";
	}
	if (flags & ~TRACEBUF_LOST_F_AT_LEAST)
		printf(json ? "%s\"0x%x\"" : "%s0x%x", sep, flags & ~TRACEBUF_LOST_F_AT_LEAST);
	else if (!flags && !json)
		putchar('-');
	if (json)
		putchar(']');
}

static const struct {
	uint64_t flag;
	const char *name;
} aux_flags[] = {
	{ TRACEBUF_AUX_F_TRUNCATED, "TRUNCATED" },
	{ TRACEBUF_AUX_F_OVERWRITE, "OVERWRITE" },
	{ TRACEBUF_AUX_F_PARTIAL, "PARTIAL" },
	{ TRACEBUF_AUX_F_COLLISION, "COLLISION" },
};

static void print_aux_flags(uint64_t flags, int json)
{
	const char *sep = "";
	uint64_t known = 0;
	size_t i;

	if (json)
		putchar('[');
	for (i = 0; i < sizeof(aux_flags) / sizeof(aux_flags[0]); i++) {
		known |= aux_flags[i].flag;
		if (flags & aux_flags[i].flag) {
			printf(json ? "%s\"%s\"" : "%s%s", sep, aux_flags[i].name);
			sep = json ? "," : "|";
		}
	}
	if (flags & ~known)
		printf(json ? "%s\"0x%" PRIx64 "\"" : "%s0x%" PRIx64, sep, flags & ~known);
	else if (!flags && !json)
		putchar('-');
	if (json)
		putchar(']');
}

/* Text of a record payload: printable ASCII as is, the rest \xHH. */
static void print_escaped(const unsigned char *s, size_t len)
{
	size_t i;

	putchar('"');
	for (i = 0; i < len; i++) {
		if (s[i] == '"' || s[i] == '\\')
			printf("\\%c", s[i]);
		else if (s[i] >= 0x20 && s[i] < 0x7f)
			putchar(s[i]);
		else
			printf("\\x%02x", s[i]);
	}
	putchar('"');
}

/* A record whose type-specific part does not fit its size: why, or NULL. */
static const char *check_record(const struct tracebuf_record *r)
{
	size_t size = r->hdr.size;

	switch (r->hdr.type) {
	case TRACEBUF_REC_LOST:
		return size < sizeof(struct tracebuf_rec_lost) ? "LOST record too short" : NULL;
	case TRACEBUF_REC_AUX:
		return size < sizeof(struct tracebuf_rec_aux) ? "AUX record too short" : NULL;
	case TRACEBUF_REC_ETM:
		return size < sizeof(struct tracebuf_rec_etm) ? "ETM record too short" : NULL;
	case TRACEBUF_REC_ITRACE_START:
		return size < sizeof(struct tracebuf_rec_itrace_start) ?
		       "ITRACE_START record too short" : NULL;
	case TRACEBUF_REC_CONFIG: {
		const struct tracebuf_rec_config *c = (const void *)r;

		if (size < sizeof(*c))
			return "CONFIG record too short";
		if (c->len > size - sizeof(*c))
			return "CONFIG text longer than the record";
		return NULL;
	}
	case TRACEBUF_REC_USER: {
		const struct tracebuf_rec_user *u = (const void *)r;

		if (size < sizeof(*u))
			return "USER record too short";
		if (u->len > size - sizeof(*u))
			return "USER data longer than the record";
		return NULL;
	}
	default:
		return NULL;
	}
}

/* Find the valid prefix of a cpuN.data image. */
static void scan(struct dcpu *d)
{
	struct tb_rec_iter it = { d->buf, d->len, 0 };
	const struct tracebuf_record *r;
	int bad;

	for (;;) {
		size_t off = it.off;

		r = tb_rec_next(&it, &bad);
		if (!r) {
			if (bad)
				d->bad_why = "bad record size";
			else if (it.off != it.len)
				d->bad_why = "truncated record";
			if (d->bad_why) {
				d->bad_off = off;
				d->len = off;
			}
			return;
		}
		d->bad_why = check_record(r);
		if (d->bad_why) {
			d->bad_off = off;
			d->len = off;
			return;
		}
	}
}

static void print_record(struct dcpu *d, const struct tracebuf_record *r, uint64_t t0,
			 size_t off, int json)
{
	char name[32];
	const char *tn = tracebuf_rec_type_name(r->hdr.type);
	int64_t rel = (int64_t)(r->time - t0);
	size_t i;

	if (json) {
		printf("{\"time\":%" PRId64 ",\"abs_time\":%" PRIu64 ",\"cpu\":%u,\"file_cpu\":%u,"
		       "\"offset\":%zu,\"size\":%u,\"type\":\"%s\",\"type_id\":%u", rel,
		       (uint64_t)r->time, r->cpu, d->cpu, off, r->hdr.size, tn, r->hdr.type);
	} else {
		for (i = 0; tn[i] && i < sizeof(name) - 1; i++)
			name[i] = (char)(tn[i] >= 'a' && tn[i] <= 'z' ? tn[i] - 'a' + 'A' : tn[i]);
		name[i] = 0;
		printf("%15" PRId64 " cpu %-3u %-12s", rel, r->cpu, name);
	}

	switch (r->hdr.type) {
	case TRACEBUF_REC_AUX: {
		const struct tracebuf_rec_aux *a = (const void *)r;

		if (json) {
			printf(",\"aux_offset\":%" PRIu64 ",\"aux_size\":%" PRIu64
			       ",\"flags\":", (uint64_t)a->aux_offset, (uint64_t)a->aux_size);
			print_aux_flags(a->flags, 1);
			printf(",\"file_offset\":%" PRIu64, d->aux_off);
		} else {
			printf(" offset=0x%" PRIx64 " size=%" PRIu64 " flags=",
			       (uint64_t)a->aux_offset, (uint64_t)a->aux_size);
			print_aux_flags(a->flags, 0);
			printf(" file_offset=%" PRIu64, d->aux_off);
		}
		d->aux_off += a->aux_size;
		break;
	}
	case TRACEBUF_REC_LOST: {
		const struct tracebuf_rec_lost *l = (const void *)r;

		printf(json ? ",\"count\":%" PRIu64 ",\"reason\":\"%s\",\"flags\":" :
		       " count=%" PRIu64 " reason=%s flags=", (uint64_t)l->count,
		       lost_reason(l->reason));
		print_lost_flags(l->flags, json);
		break;
	}
	case TRACEBUF_REC_ETM: {
		const struct tracebuf_rec_etm *e = (const void *)r;

		printf(json ? ",\"etm_cpu\":%u,\"trace_id\":%u,\"trcconfigr\":%u,"
		       "\"trctraceidr\":%u,\"trcauthstatus\":%u,\"trcidr\":[" :
		       " etm_cpu=%u trace_id=0x%x trcconfigr=0x%x trctraceidr=0x%x"
		       " trcauthstatus=0x%x trcidr=", e->etm_cpu, e->trace_id, e->trcconfigr,
		       e->trctraceidr, e->trcauthstatus);
		for (i = 0; i < 14; i++)
			printf(json ? "%s%u" : "%s0x%x", i ? "," : "", e->trcidr[i]);
		if (json)
			putchar(']');
		break;
	}
	case TRACEBUF_REC_CONFIG: {
		const struct tracebuf_rec_config *c = (const void *)r;
		const char *text = (const char *)(c + 1);
		size_t tl = strnlen(text, c->len);

		printf(json ? ",\"generation\":%" PRIu64 ",\"changed\":%u,\"text\":" :
		       " generation=%" PRIu64 " changed=0x%x text=", (uint64_t)c->generation,
		       c->changed);
		if (json)
			tb_json_str(stdout, text, tl);
		else
			print_escaped((const unsigned char *)text, tl);
		break;
	}
	case TRACEBUF_REC_USER: {
		const struct tracebuf_rec_user *u = (const void *)r;

		printf(json ? ",\"cookie\":%" PRIu64 ",\"len\":%u,\"data\":" :
		       " cookie=0x%" PRIx64 " len=%u data=", (uint64_t)u->cookie, u->len);
		if (json)
			tb_json_str(stdout, (const char *)(u + 1), u->len);
		else
			print_escaped((const unsigned char *)(u + 1), u->len);
		break;
	}
	case TRACEBUF_REC_ITRACE_START: {
		const struct tracebuf_rec_itrace_start *s = (const void *)r;

		printf(json ? ",\"pid\":%u,\"tid\":%u" : " pid=%u tid=%u", s->pid, s->tid);
		break;
	}
	default:
		if (!json)
			printf(" type=0x%x size=%u", r->hdr.type, r->hdr.size);
		break;
	}
	/*
	 * Written by another CPU into this CPU's session (a CONFIG record from
	 * the CPU that called SET_DRV_CONFIG): say whose stream it is in.
	 */
	if (!json && r->cpu != d->cpu)
		printf(" file=cpu%u.data", d->cpu);
	if (json)
		putchar('}');
	putchar('\n');
}

/* meta.json, parsed just enough for the header and the CPU list. */
struct meta {
	char *text;
	size_t len;
	unsigned int *cpus;
	unsigned int nr_cpus;
};

static int member_u64(const char *obj, size_t len, const char *key, uint64_t *v)
{
	const char *val;
	size_t vl;

	return tb_json_member(obj, len, key, &val, &vl) ? -1 : tb_json_u64(val, vl, v);
}

static int member_bool(const char *obj, size_t len, const char *key, int *v)
{
	const char *val;
	size_t vl;

	return tb_json_member(obj, len, key, &val, &vl) ? -1 : tb_json_bool(val, vl, v);
}

static void member_str(const char *obj, size_t len, const char *key, char *buf, size_t size)
{
	const char *val;
	size_t vl;

	if (tb_json_member(obj, len, key, &val, &vl) || tb_json_string(val, vl, buf, size))
		snprintf(buf, size, "?");
}

static int read_meta(const char *dir, struct meta *m)
{
	char path[PATH_MAX];
	const char *val, *e;
	size_t vl, el, n;
	uint64_t v;
	int ret;

	snprintf(path, sizeof(path), "%s/%s", dir, TB_CAPTURE_META);
	ret = tb_read_file(path, (unsigned char **)&m->text, &m->len);
	if (ret < 0) {
		struct stat st;

		if (stat(dir, &st))
			fprintf(stderr, "tracebuf: cannot open capture %s: %s\n", dir,
				strerror(errno));
		else if (!S_ISDIR(st.st_mode))
			fprintf(stderr, "tracebuf: %s is not a directory\n", dir);
		else
			fprintf(stderr, "tracebuf: %s: cannot read %s: %s (not a tracebuf "
				"capture?)\n", dir, TB_CAPTURE_META, strerror(-ret));
		return -1;
	}
	if (!json_skip(m->text, m->text + m->len, 0) ||
	    tb_json_member(m->text, m->len, "cpus", &val, &vl)) {
		fprintf(stderr, "tracebuf: %s: not a valid capture description\n", path);
		return -1;
	}
	if (member_u64(m->text, m->len, "format", &v) || v != TB_CAPTURE_FORMAT) {
		fprintf(stderr, "tracebuf: %s: unknown capture format (this tool reads "
			"format %d)\n", path, TB_CAPTURE_FORMAT);
		return -1;
	}
	for (n = 0; !tb_json_index(val, vl, n, &e, &el); n++)
		;
	m->cpus = calloc(n ? n : 1, sizeof(*m->cpus));
	if (!m->cpus)
		return -1;
	for (m->nr_cpus = 0; m->nr_cpus < n; m->nr_cpus++) {
		tb_json_index(val, vl, m->nr_cpus, &e, &el);
		if (tb_json_u64(e, el, &v) || v > UINT32_MAX) {
			fprintf(stderr, "tracebuf: %s: bad CPU number in \"cpus\"\n", path);
			return -1;
		}
		m->cpus[m->nr_cpus] = (unsigned int)v;
	}
	return 0;
}

static void print_header_text(const char *dir, const struct meta *m, struct dcpu *d,
			      unsigned int n)
{
	char backend[64], mod[64], tool[64], arg[256];
	const char *val, *e, *pc;
	size_t vl, el, pcl, k;
	uint64_t ds = 0, as = 0, s0 = 0, s1 = 0;
	int emu = 0, snap = 0, complete = 0, lost = 0;
	unsigned int i;

	member_str(m->text, m->len, "backend", backend, sizeof(backend));
	member_str(m->text, m->len, "module_version", mod, sizeof(mod));
	member_str(m->text, m->len, "tool_version", tool, sizeof(tool));
	member_u64(m->text, m->len, "data_size", &ds);
	member_u64(m->text, m->len, "aux_size", &as);
	member_u64(m->text, m->len, "start_ns", &s0);
	member_u64(m->text, m->len, "end_ns", &s1);
	member_bool(m->text, m->len, "emulated", &emu);
	member_bool(m->text, m->len, "snapshot", &snap);
	member_bool(m->text, m->len, "complete", &complete);
	member_bool(m->text, m->len, "lost", &lost);

	printf("# capture %s: format %d, backend %s%s, module %s, tool %s\n", dir,
	       TB_CAPTURE_FORMAT, backend, emu ? " (emulated)" : "", mod, tool);
	printf("# data_size %" PRIu64 ", aux_size %" PRIu64 ", %s mode, %s, %s, "
	       "duration %.3f s\n", ds, as, snap ? "snapshot" : "full-trace",
	       complete ? "complete" : "INCOMPLETE", lost ? "trace LOST" : "nothing lost",
	       s1 > s0 ? (double)(s1 - s0) / 1e9 : 0.0);
	if (!tb_json_member(m->text, m->len, "command", &val, &vl) && *val == '[') {
		printf("# command:");
		for (k = 0; !tb_json_index(val, vl, k, &e, &el); k++) {
			if (tb_json_string(e, el, arg, sizeof(arg)))
				snprintf(arg, sizeof(arg), "?");
			printf(" %s", arg);
		}
		putchar('\n');
	}
	for (i = 0; i < n; i++) {
		char key[16], cfg[TRACEBUF_DRV_CONFIG_MAX];
		uint64_t ab = 0, sp = 0, rl = 0, al = 0;
		int atl = 0;

		printf("# cpu %u: %" PRIu64 " records", d[i].cpu, d[i].records);
		snprintf(key, sizeof(key), "%u", d[i].cpu);
		if (!tb_json_member(m->text, m->len, "per_cpu", &val, &vl) &&
		    !tb_json_member(val, vl, key, &pc, &pcl)) {
			member_u64(pc, pcl, "aux_bytes", &ab);
			member_u64(pc, pcl, "aux_spans", &sp);
			member_u64(pc, pcl, "records_lost", &rl);
			printf(", %" PRIu64 " AUX bytes in %" PRIu64 " spans, %" PRIu64
			       " records lost", ab, sp, rl);
			/* CoreSight: trace bytes the AUX ring had no room for. */
			if (!member_u64(pc, pcl, "aux_lost_bytes", &al) && al) {
				member_bool(pc, pcl, "aux_lost_at_least", &atl);
				printf(", %s%" PRIu64 " trace bytes lost", atl ? "at least " : "", al);
			}
			member_str(pc, pcl, "config", cfg, sizeof(cfg));
			printf(", config %s", cfg);
		}
		putchar('\n');
	}
}

static void print_header_json(const struct meta *m)
{
	size_t i;

	/* Whitespace outside strings only: newlines can go. */
	printf("{\"type\":\"meta\",\"meta\":");
	for (i = 0; i < m->len; i++) {
		char c = m->text[i];

		putchar(c == '\n' || c == '\r' ? ' ' : c);
	}
	printf("}\n");
}

int cmd_dump(int argc, char **argv)
{
	static const struct option opts[] = {
		{ "json", no_argument, NULL, 'j' },
		{ "cpu", required_argument, NULL, 'C' },
		{ "help", no_argument, NULL, 'h' },
		{ NULL, 0, NULL, 0 }
	};
	struct meta m = { 0 };
	struct dcpu *d = NULL;
	const char *dir;
	unsigned long only = 0;
	int json = 0, have_only = 0, c, status = TB_EXIT_FAIL, problems, incomplete;
	unsigned int i, n = 0;
	uint64_t t0 = UINT64_MAX;
	char *end;

	tb_getopt_reset();
	while ((c = getopt_long(argc, argv, ":hj", opts, NULL)) != -1) {
		switch (c) {
		case 'j':
			json = 1;
			break;
		case 'C':
			errno = 0;
			only = strtoul(optarg, &end, 10);
			if (!*optarg || *end || errno || *optarg == '-' || only > UINT32_MAX)
				return tb_usage_error("invalid CPU number", optarg);
			have_only = 1;
			break;
		case 'h':
			fputs(dump_usage, stdout);
			return TB_EXIT_OK;
		default:
			return tb_bad_option(argv, c);
		}
	}
	if (optind >= argc) {
		fprintf(stderr, "tracebuf: dump needs a capture directory\n");
		fputs("Try 'tracebuf help' for more information.\n", stderr);
		return TB_EXIT_USAGE;
	}
	if (optind + 1 < argc)
		return tb_usage_error("unexpected argument", argv[optind + 1]);
	dir = argv[optind];

	if (read_meta(dir, &m))
		goto out;
	problems = tb_capture_check("dump", dir, have_only ? (long)only : -1, &incomplete);
	if (problems) {
		fprintf(stderr, "tracebuf: dump: %s: the capture does not add up (%d "
			"problem%s above): not read\n", dir, problems, problems > 1 ? "s" : "");
		goto out;
	}
	d = calloc(m.nr_cpus ? m.nr_cpus : 1, sizeof(*d));
	if (!d)
		goto out;
	for (i = 0; i < m.nr_cpus; i++) {
		struct stat st;
		char aux[PATH_MAX];
		int ret;

		if (have_only && m.cpus[i] != only)
			continue;
		d[n].cpu = m.cpus[i];
		snprintf(d[n].path, sizeof(d[n].path), "%s/cpu%u.data", dir, m.cpus[i]);
		ret = tb_read_file(d[n].path, &d[n].buf, &d[n].len);
		if (ret < 0) {
			fprintf(stderr, "tracebuf: cannot read %s: %s\n", d[n].path, strerror(-ret));
			n++;
			goto out;
		}
		snprintf(aux, sizeof(aux), "%s/cpu%u.aux", dir, m.cpus[i]);
		d[n].aux_file = stat(aux, &st) ? UINT64_MAX : (uint64_t)st.st_size;
		scan(&d[n]);
		n++;
	}
	if (have_only && !n) {
		fprintf(stderr, "tracebuf: %s has no CPU %lu\n", dir, only);
		goto out;
	}

	/* Counts and the time origin: the first record of any CPU. */
	for (i = 0; i < n; i++) {
		struct tb_rec_iter it = { d[i].buf, d[i].len, 0 };
		const struct tracebuf_record *r;
		int bad;

		while ((r = tb_rec_next(&it, &bad)) != NULL) {
			d[i].records++;
			if (r->time < t0)
				t0 = r->time;
		}
	}
	if (json)
		print_header_json(&m);
	else
		print_header_text(dir, &m, d, n);

	/* Merge by time; ties to the lower CPU. */
	for (;;) {
		const struct tracebuf_record *best = NULL;
		struct dcpu *bd = NULL;

		for (i = 0; i < n; i++) {
			const struct tracebuf_record *r;

			if (d[i].off >= d[i].len)
				continue;
			r = (const void *)(d[i].buf + d[i].off);
			if (!best || r->time < best->time) {
				best = r;
				bd = &d[i];
			}
		}
		if (!best)
			break;
		print_record(bd, best, t0, bd->off, json);
		bd->off += best->hdr.size;
	}

	status = TB_EXIT_OK;
	if (incomplete) {
		fprintf(stderr, "tracebuf: dump: %s: the capture is incomplete (\"complete\": "
			"false, the recording was interrupted): its counts were not checked\n",
			dir);
		status = TB_EXIT_FAIL;
	}
	for (i = 0; i < n; i++) {
		if (d[i].bad_why) {
			fprintf(stderr, "tracebuf: %s: corrupt at byte offset %zu: %s\n",
				d[i].path, d[i].bad_off, d[i].bad_why);
			status = TB_EXIT_FAIL;
		} else if (d[i].aux_file != d[i].aux_off) {
			if (d[i].aux_file == UINT64_MAX)
				fprintf(stderr, "tracebuf: warning: %s/cpu%u.aux is missing\n", dir,
					d[i].cpu);
			else
				fprintf(stderr, "tracebuf: warning: %s/cpu%u.aux has %" PRIu64
					" bytes, its AUX records describe %" PRIu64 "\n", dir,
					d[i].cpu, d[i].aux_file, d[i].aux_off);
		}
	}
out:
	for (i = 0; d && i < n; i++)
		free(d[i].buf);
	free(d);
	free(m.cpus);
	free(m.text);
	return status;
}
