/* SPDX-License-Identifier: GPL-2.0 */
/*
 * A stand-in for the module's TRACEBUF_IOC_GET_INFO, SETUP, USER_MARKER,
 * ENABLE/DISABLE/SNAPSHOT, GET_CAPS and the driver configuration ioctls,
 * so the library's requests and the tool's output can be checked on a
 * host without the module. It replaces ioctl(): linked into a test program, or preloaded
 * into the tool (LD_PRELOAD). Every other ioctl goes to the kernel.
 *
 * Environment (read at load): FAKE_TB_BACKENDS (count, default 0),
 * FAKE_TB_VERSION (module version string, default "9.8.7"), FAKE_TB_UNPRIV
 * (set: privileged configuration keys are refused with -EACCES),
 * FAKE_TB_CS_CAPS (set: GET_CAPS for "coresight" answers on CPUs 0-2),
 * FAKE_TB_SETUP_ERR and FAKE_TB_ENABLE_ERR (an errno number: SETUP,
 * ENABLE fails with it).
 */
#include <errno.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>
#include <sys/syscall.h>
#include <unistd.h>

#include <tracebuf.h>

#include "fake_ioctl.h"

struct fake_tb fake_tb = { .version = "9.8.7" };

__attribute__((constructor)) static void fake_tb_init(void)
{
	const char *v = getenv("FAKE_TB_BACKENDS");

	if (v)
		fake_tb.nr_backends = (unsigned int)strtoul(v, NULL, 0);
	v = getenv("FAKE_TB_VERSION");
	if (v)
		fake_tb.version = v;
	fake_tb.unprivileged = getenv("FAKE_TB_UNPRIV") != NULL;
	fake_tb.cs_caps = getenv("FAKE_TB_CS_CAPS") != NULL;
	v = getenv("FAKE_TB_SETUP_ERR");
	if (v)
		fake_tb.setup_err = atoi(v);
	v = getenv("FAKE_TB_ENABLE_ERR");
	if (v)
		fake_tb.enable_err = atoi(v);
	fake_tb_cfg_reset();
}

static void fake_desc(struct tracebuf_backend_desc *d, unsigned int i)
{
	memset(d, 0, sizeof(*d));
	if (i % 2 == 0) {
		strcpy(d->name, "intel_pt");
		d->id = TRACEBUF_BACKEND_INTEL_PT;
	} else {
		strcpy(d->name, "coresight");
		d->id = TRACEBUF_BACKEND_CORESIGHT;
		d->flags = TRACEBUF_BACKEND_F_EMULATED;
	}
	d->nr_cpus = 4;
	d->caps_size = 64 + i;
}

/* The module's checks, in the module's order. */
static int fake_get_info(struct tracebuf_info *info)
{
	unsigned int i;

	fake_tb.calls++;
	memcpy(&fake_tb.last_in, info, sizeof(*info));
	if (fake_tb.err)
		return -fake_tb.err;
	if (info->size < TRACEBUF_INFO_SIZE_VER0)
		return -EINVAL;
	if (info->reserved0 || info->reserved[0] || info->reserved[1] ||
	    info->reserved[2] || info->reserved[3])
		return -EINVAL;
	if (info->backends_max &&
	    (info->backend_desc_size < TRACEBUF_BACKEND_DESC_SIZE_VER0 ||
	     !info->backends_ptr))
		return -EINVAL;
	for (i = 0; i < fake_tb.nr_backends && i < info->backends_max; i++)
		fake_desc((struct tracebuf_backend_desc *)(uintptr_t)
			  (info->backends_ptr + (uint64_t)i * info->backend_desc_size), i);
	info->abi_version = TRACEBUF_ABI_VERSION;
	info->page_size = 4096;
	info->nr_cpu_ids = 8;
	info->nr_backends = fake_tb.nr_backends;
	strncpy(info->module_version, fake_tb.version, sizeof(info->module_version) - 1);
	return 0;
}

static int all_zero(const void *p, size_t n)
{
	const unsigned char *b = p;

	while (n--)
		if (*b++)
			return 0;
	return 1;
}

/* Records the request; checks only what needs no session state. */
static int fake_setup(const struct tracebuf_setup *setup)
{
	fake_tb.setup_calls++;
	memcpy(&fake_tb.last_setup, setup, sizeof(*setup));
	if (fake_tb.err)
		return -fake_tb.err;
	if (fake_tb.setup_err)
		return -fake_tb.setup_err;
	if (setup->size < TRACEBUF_SETUP_SIZE_VER0)
		return -EINVAL;
	if (!all_zero(setup->reserved, sizeof(setup->reserved)) || setup->reserved0)
		return -EINVAL;
	/* The per-task target: a pid, INHERIT; the other targets neither. */
	if (setup->target == TRACEBUF_TARGET_TASK) {
		if ((setup->flags & ~TRACEBUF_SETUP_F_INHERIT) || setup->pid < 0)
			return -EINVAL;
		fake_tb.task_pid = setup->pid;
	} else if (setup->flags || setup->pid) {
		return -EINVAL;
	}
	return 0;
}

static int fake_user_marker(const struct tracebuf_user_marker *m)
{
	fake_tb.marker_calls++;
	memcpy(&fake_tb.last_marker, m, sizeof(*m));
	memset(fake_tb.marker_data, 0, sizeof(fake_tb.marker_data));
	if (fake_tb.err)
		return -fake_tb.err;
	if (m->size < TRACEBUF_USER_MARKER_SIZE_VER0 || m->flags || m->reserved0 ||
	    !all_zero(m->reserved, sizeof(m->reserved)) || m->len > TRACEBUF_USER_MARKER_MAX)
		return -EINVAL;
	if (m->len && !m->data_ptr)
		return -EFAULT;
	if (m->len)
		memcpy(fake_tb.marker_data, (const void *)(uintptr_t)m->data_ptr, m->len);
	return 0;
}

/*
 * GET_CAPS for "coresight" (FAKE_TB_CS_CAPS): CPUs 0 and 1 ETMv4.2 into a
 * shared scatter-gather ETR, CPU 2 an ETMv4.5 without cycle counting into
 * its own 64 KiB ETF, CPU 3 none.
 */
static int fake_cs_caps(struct tracebuf_caps_query *q)
{
	struct tracebuf_cs_caps c;
	size_t n;

	if (q->cpu > 2)
		return -ENODEV;
	memset(&c, 0, sizeof(c));
	c.trcidr[0] = 0x28000ea1;
	c.trcidr[1] = 0x4100f421;
	c.trcidr[2] = 0x00000488;
	c.trcidr[3] = 0x0d7b0004;
	c.trcidr[4] = 0x11170004;
	c.trcidr[5] = 0x28c7081e;
	c.trcdevarch = 0x47724a13;
	c.trcauthstatus = 0xcc;
	c.trace_id = 0x10 + q->cpu;
	c.sink_type = TRACEBUF_CS_SINK_ETR;
	c.sink_flags = TRACEBUF_CS_SINK_F_SG | TRACEBUF_CS_SINK_F_SHARED;
	c.sink_cpus = 2;
	if (q->cpu == 2) {
		c.trcidr[0] = 0x28000e21;		/* no TRCCCI */
		c.trcidr[1] = 0x4100f451;
		c.trcidr[2] = 0x10000888;		/* VMID 16 bits, CCSIZE 8 */
		c.trcidr[4] = 0x11170008;
		c.trcdevarch = 0x47754a13;
		c.sink = 1;
		c.sink_type = TRACEBUF_CS_SINK_ETF;
		c.sink_flags = 0;
		c.sink_cpus = 1;
		c.sink_size = 65536;
	}
	n = q->caps_size < sizeof(c) ? q->caps_size : sizeof(c);
	if (n)
		memcpy((void *)(uintptr_t)q->caps_ptr, &c, n);
	q->caps_size = sizeof(c);
	return 0;
}

/* GET_CAPS: a Skylake-server-like Intel PT for "intel_pt" (or "auto"). */
static int fake_get_caps(struct tracebuf_caps_query *q)
{
	struct tracebuf_pt_caps c;
	size_t n;

	fake_tb.caps_calls++;
	memcpy(&fake_tb.last_caps, q, sizeof(*q));
	if (fake_tb.err)
		return -fake_tb.err;
	if (q->size < TRACEBUF_CAPS_QUERY_SIZE_VER0 || q->reserved0 ||
	    !all_zero(q->reserved, sizeof(q->reserved)) ||
	    !memchr(q->backend, 0, sizeof(q->backend)) || q->cpu >= 8 ||
	    (q->caps_size && !q->caps_ptr))
		return -EINVAL;
	if (fake_tb.nr_backends > 1 && fake_tb.cs_caps && !strcmp(q->backend, "coresight"))
		return fake_cs_caps(q);
	if (!fake_tb.nr_backends || (q->backend[0] && strcmp(q->backend, "auto") &&
				     strcmp(q->backend, "intel_pt")))
		return -ENODEV;
	memset(&c, 0, sizeof(c));
	c.cpuid_14_0[0] = 1;
	c.cpuid_14_0[1] = 0xf;
	c.cpuid_14_0[2] = 0x7;
	c.cpuid_14_1[0] = 0x224b;	/* 2 address ranges, MTC periods 0x249 */
	c.cpuid_14_1[1] = 0x003f3fff;
	c.cpuid_15[0] = 2;
	c.cpuid_15[1] = 168;
	c.family = 6;
	c.model = 0x55;
	c.stepping = 4;
	c.max_nonturbo_ratio = 21;
	c.nr_addr_ranges = 2;
	c.mtc_periods = 0x249;
	c.cyc_thresholds = 0x3fff;
	c.psb_periods = 0x3f;
	c.flags = TRACEBUF_PT_CAP_CR3_FILTERING | TRACEBUF_PT_CAP_PSB_CYC |
		  TRACEBUF_PT_CAP_IP_FILTERING | TRACEBUF_PT_CAP_MTC |
		  TRACEBUF_PT_CAP_TOPA_OUTPUT | TRACEBUF_PT_CAP_TOPA_MULTI |
		  TRACEBUF_PT_CAP_SINGLE_RANGE;
	n = q->caps_size < sizeof(c) ? q->caps_size : sizeof(c);
	if (n)
		memcpy((void *)(uintptr_t)q->caps_ptr, &c, n);
	q->caps_size = sizeof(c);
	return 0;
}

#define KEY(n, t, f, mn, mx, d, a, ds) \
	{ .name = n, .type = TRACEBUF_CFG_##t, .flags = f, .min = mn, .max = mx, \
	  .def = d, .allowed = a, .desc = ds }

const struct tracebuf_cfg_key_desc fake_tb_keys[FAKE_TB_NR_KEYS] = {
	KEY("branch", BOOL, 0, 0, 1, 1, 0, "trace branches (BranchEn)"),
	KEY("user", BOOL, 0, 0, 1, 1, 0, "trace user space (USR)"),
	KEY("kernel", BOOL, TRACEBUF_CFG_KEY_PRIV, 0, 1, 0, 0, "trace the kernel (OS)"),
	KEY("tsc", BOOL, 0, 0, 1, 1, 0, "TSC packets (TSCEn)"),
	KEY("mtc", BOOL, 0, 0, 1, 0, 0, "MTC packets (MTCEn)"),
	KEY("mtc_period", ENUM, 0, 0, 0, 3, 0x249, "MTC every 2^n crystal clocks"),
	KEY("cyc", BOOL, 0, 0, 1, 0, 0, "cycle-accurate mode (CYCEn)"),
	KEY("cyc_thresh", ENUM, 0, 0, 0, 0, 0x3f, "CYC threshold: 2^(n-1) cycles"),
	KEY("psb_period", ENUM, 0, 0, 0, 0, 0x3f, "PSB every 2^(n+11) bytes"),
	KEY("pwr_evt", BOOL, TRACEBUF_CFG_KEY_UNSUPPORTED, 0, 1, 0, 0, "power events"),
	KEY("drain_ms", UINT, 0, 1, 1000, 10, 0, "drain timer period, ms"),
	KEY("ptw", BOOL, 0, 0, 1, 0, 0, "PTWRITE packets"),
	/* Privileged: "current" would echo a physical address (as the module). */
	KEY("cr3", U64, TRACEBUF_CFG_KEY_PRIV | TRACEBUF_CFG_KEY_CURRENT, 0, 0, 0, 0,
	    "trace only this CR3"),
	KEY("addr0", RANGE, 0, 0, 0, 0, 0, "address range 0"),
};

static char fake_cfg_vals[FAKE_TB_NR_KEYS][48];

static void fake_defaults(char vals[FAKE_TB_NR_KEYS][48])
{
	unsigned int i;

	for (i = 0; i < FAKE_TB_NR_KEYS; i++) {
		const struct tracebuf_cfg_key_desc *k = &fake_tb_keys[i];

		if (k->type == TRACEBUF_CFG_RANGE || (k->type == TRACEBUF_CFG_U64 && !k->def))
			strcpy(vals[i], "off");
		else
			snprintf(vals[i], sizeof(vals[i]), "%llu", (unsigned long long)k->def);
	}
}

void fake_tb_cfg_reset(void)
{
	fake_defaults(fake_cfg_vals);
	fake_tb.generation = 0;
}

static int fake_list(struct tracebuf_cfg_keys *q)
{
	unsigned int i;

	fake_tb.list_calls++;
	memcpy(&fake_tb.last_list, q, sizeof(*q));
	if (fake_tb.err)
		return -fake_tb.err;
	if (q->size < TRACEBUF_CFG_KEYS_SIZE_VER0 || q->reserved0 ||
	    !all_zero(q->reserved, sizeof(q->reserved)) ||
	    !memchr(q->backend, 0, sizeof(q->backend)) || q->cpu >= 8 ||
	    (q->keys_max && (q->key_size < TRACEBUF_CFG_KEY_DESC_SIZE_VER0 || !q->keys_ptr)))
		return -EINVAL;
	if (!fake_tb.nr_backends || (q->backend[0] && strcmp(q->backend, "auto") &&
				     strcmp(q->backend, "intel_pt")))
		return -ENODEV;
	for (i = 0; i < FAKE_TB_NR_KEYS && i < q->keys_max; i++)
		memcpy((void *)(uintptr_t)(q->keys_ptr + (uint64_t)i * q->key_size),
		       &fake_tb_keys[i], sizeof(fake_tb_keys[i]));
	q->nr_keys = FAKE_TB_NR_KEYS;
	return 0;
}

static int fake_cfg_fail(struct tracebuf_drv_config *c, size_t off, size_t len,
			 unsigned int reason)
{
	c->err_offset = (uint32_t)off;
	c->err_len = (uint32_t)len;
	c->err_reason = reason;
	switch (reason) {
	case TRACEBUF_CFG_OUT_OF_RANGE:
	case TRACEBUF_CFG_NOT_ALLOWED:
		return -ERANGE;
	case TRACEBUF_CFG_UNSUPPORTED:
		return -EOPNOTSUPP;
	case TRACEBUF_CFG_PERMISSION:
		return -EACCES;
	default:
		return -EINVAL;
	}
}

static int fake_number(const char *v, size_t n, unsigned long long *out)
{
	char buf[32], *end;

	if (!n || n >= sizeof(buf) || *v == '-' || *v == '+')
		return -1;
	memcpy(buf, v, n);
	buf[n] = 0;
	errno = 0;
	*out = strtoull(buf, &end, 0);
	return *end || errno ? -1 : 0;
}

/* The parser's rules (module/drvcfg.h), enough of them for the tests. */
static int fake_set_config(struct tracebuf_drv_config *c)
{
	char vals[FAKE_TB_NR_KEYS][48];
	const char *str = (const char *)(uintptr_t)c->config_ptr;
	unsigned int seen = 0, i;
	size_t len, ts, te, eq, vs, j;

	fake_tb.set_calls++;
	memcpy(&fake_tb.last_set, c, sizeof(*c));
	if (c->config_ptr && c->config_len && c->config_len <= TRACEBUF_DRV_CONFIG_MAX)
		memcpy(fake_tb.last_set_text, str, c->config_len);
	if (fake_tb.err)
		return -fake_tb.err;
	if (c->size < TRACEBUF_DRV_CONFIG_SIZE_VER0 || (c->flags & ~TRACEBUF_DRV_CONFIG_F_RESET) ||
	    !all_zero(c->reserved, sizeof(c->reserved)) || !c->config_len ||
	    c->config_len > TRACEBUF_DRV_CONFIG_MAX || !memchr(str, 0, c->config_len))
		return -EINVAL;
	if (!fake_tb.nr_backends)
		return -ENODEV;
	memcpy(vals, fake_cfg_vals, sizeof(vals));
	if (c->flags & TRACEBUF_DRV_CONFIG_F_RESET)
		fake_defaults(vals);
	len = strlen(str);
	if (!len)
		return fake_cfg_fail(c, 0, 0, TRACEBUF_CFG_EMPTY);
	for (ts = 0; ts <= len; ts = te + 1) {
		const struct tracebuf_cfg_key_desc *k = NULL;
		unsigned long long n = 1;
		const char *v;
		size_t vn;

		for (te = ts; te < len && str[te] != ','; te++)
			if ((unsigned char)str[te] >= 0x80)
				return fake_cfg_fail(c, te, 1, TRACEBUF_CFG_NON_ASCII);
		if (te == ts)
			return fake_cfg_fail(c, ts, 0, TRACEBUF_CFG_EMPTY);
		for (eq = ts; eq < te && str[eq] != '='; eq++)
			;
		if (str[ts] < 'a' || str[ts] > 'z')
			return fake_cfg_fail(c, ts, te - ts, TRACEBUF_CFG_SYNTAX);
		for (j = ts; j < eq; j++)
			if (!((str[j] >= 'a' && str[j] <= 'z') || (str[j] >= '0' && str[j] <= '9') ||
			      str[j] == '_'))
				return fake_cfg_fail(c, ts, te - ts, TRACEBUF_CFG_SYNTAX);
		for (i = 0; i < FAKE_TB_NR_KEYS; i++)
			if (strlen(fake_tb_keys[i].name) == eq - ts &&
			    !memcmp(fake_tb_keys[i].name, str + ts, eq - ts)) {
				k = &fake_tb_keys[i];
				break;
			}
		if (!k)
			return fake_cfg_fail(c, ts, eq - ts, TRACEBUF_CFG_UNKNOWN_KEY);
		if (seen & (1U << i))
			return fake_cfg_fail(c, ts, te - ts, TRACEBUF_CFG_DUPLICATE);
		seen |= 1U << i;
		vs = eq < te ? eq + 1 : te;
		v = eq < te ? str + vs : "1";
		vn = eq < te ? te - vs : 1;
		if (eq < te && !vn)
			return fake_cfg_fail(c, ts, te - ts, TRACEBUF_CFG_SYNTAX);
		if (eq == te && k->type != TRACEBUF_CFG_BOOL)
			return fake_cfg_fail(c, ts, te - ts, TRACEBUF_CFG_BAD_VALUE);
		switch (k->type) {
		case TRACEBUF_CFG_BOOL:
			if (vn != 1 || (*v != '0' && *v != '1'))
				return fake_cfg_fail(c, vs, vn, TRACEBUF_CFG_BAD_VALUE);
			n = *v == '1';
			break;
		case TRACEBUF_CFG_UINT:
			if (fake_number(v, vn, &n))
				return fake_cfg_fail(c, vs, vn, TRACEBUF_CFG_BAD_VALUE);
			if (n < k->min || n > k->max)
				return fake_cfg_fail(c, vs, vn, TRACEBUF_CFG_OUT_OF_RANGE);
			break;
		case TRACEBUF_CFG_ENUM:
			if (fake_number(v, vn, &n))
				return fake_cfg_fail(c, vs, vn, TRACEBUF_CFG_BAD_VALUE);
			if (n > 31 || !(k->allowed & (1U << n)))
				return fake_cfg_fail(c, vs, vn, TRACEBUF_CFG_NOT_ALLOWED);
			break;
		default:	/* U64, RANGE: taken as written */
			n = !(vn == 3 && !memcmp(v, "off", 3));
			break;
		}
		if (n && (k->flags & TRACEBUF_CFG_KEY_UNSUPPORTED))
			return fake_cfg_fail(c, ts, te - ts, TRACEBUF_CFG_UNSUPPORTED);
		if (n && (k->flags & TRACEBUF_CFG_KEY_PRIV) && fake_tb.unprivileged)
			return fake_cfg_fail(c, ts, te - ts, TRACEBUF_CFG_PERMISSION);
		if (vn >= sizeof(vals[i]))
			vn = sizeof(vals[i]) - 1;
		memcpy(vals[i], v, vn);
		vals[i][vn] = 0;
	}
	memcpy(fake_cfg_vals, vals, sizeof(vals));
	c->generation = ++fake_tb.generation;
	return 0;
}

static int fake_get_config(struct tracebuf_drv_config *c)
{
	char buf[TRACEBUF_DRV_CONFIG_MAX];
	size_t n = 0;
	unsigned int i;

	fake_tb.get_calls++;
	memcpy(&fake_tb.last_get, c, sizeof(*c));
	if (fake_tb.err)
		return -fake_tb.err;
	if (c->size < TRACEBUF_DRV_CONFIG_SIZE_VER0 || c->flags ||
	    !all_zero(c->reserved, sizeof(c->reserved)) || !c->config_len || !c->config_ptr)
		return -EINVAL;
	if (!fake_tb.nr_backends)
		return -ENODEV;
	for (i = 0; i < FAKE_TB_NR_KEYS; i++)
		n += (size_t)snprintf(buf + n, sizeof(buf) - n, "%s%s=%s", i ? "," : "",
				      fake_tb_keys[i].name, fake_cfg_vals[i]);
	c->generation = fake_tb.generation;
	c->config_len = (uint32_t)n + 1;
	if (n + 1 > fake_tb.last_get.config_len)
		return -ENOSPC;
	memcpy((void *)(uintptr_t)c->config_ptr, buf, n + 1);
	return 0;
}

static int fake_trace(unsigned int *calls)
{
	(*calls)++;
	return fake_tb.err ? -fake_tb.err : -fake_tb.trace_err;
}

/* In the same object as fake_mmap_preload.c only. */
void fake_tb_produce(int fd) __attribute__((weak));

int ioctl(int fd, unsigned long req, ...)
{
	va_list ap;
	void *arg;
	int ret;

	va_start(ap, req);
	arg = va_arg(ap, void *);
	va_end(ap);

	switch (req) {
	case TRACEBUF_IOC_GET_INFO:
		ret = fake_get_info(arg);
		break;
	case TRACEBUF_IOC_SETUP:
		ret = fake_setup(arg);
		break;
	case TRACEBUF_IOC_USER_MARKER:
		ret = fake_user_marker(arg);
		break;
	case TRACEBUF_IOC_ENABLE:
		ret = fake_trace(&fake_tb.enable_calls);
		if (!ret && fake_tb.enable_err)
			ret = -fake_tb.enable_err;
		/* The preloaded fake mmap plays the hardware (fake_mmap_preload.c). */
		if (!ret && fake_tb_produce)
			fake_tb_produce(fd);
		break;
	case TRACEBUF_IOC_DISABLE:
		ret = fake_trace(&fake_tb.disable_calls);
		break;
	case TRACEBUF_IOC_SNAPSHOT:
		ret = fake_trace(&fake_tb.snapshot_calls);
		break;
	case TRACEBUF_IOC_GET_CAPS:
		ret = fake_get_caps(arg);
		break;
	case TRACEBUF_IOC_LIST_DRV_CONFIG:
		ret = fake_list(arg);
		break;
	case TRACEBUF_IOC_SET_DRV_CONFIG:
		ret = fake_set_config(arg);
		break;
	case TRACEBUF_IOC_GET_DRV_CONFIG:
		ret = fake_get_config(arg);
		break;
	default:
		return (int)syscall(SYS_ioctl, fd, req, arg);
	}
	if (ret < 0) {
		errno = -ret;
		return -1;
	}
	return 0;
}
