// SPDX-License-Identifier: GPL-2.0
/*
 * SET_DRV_CONFIG, GET_DRV_CONFIG and LIST_DRV_CONFIG against the Intel PT
 * emulator: every key valid and invalid, all-or-nothing, error offsets for
 * malformed strings, -EOPNOTSUPP for what the emulated CPU lacks, -EACCES
 * for kernel tracing without CAP_PERFMON, changes while tracing at a high
 * rate (nothing lost; the CONFIG record sits where the hardware restarted;
 * the host decodes the capture and checks every key took effect), and a
 * fuzz loop of random strings.
 *
 * Without a backend (arm64, or x86_64 before the emulator) it checks the
 * errors: -ENODEV, -EINVAL before SETUP.
 */
#include "ptcap.h"

#define DEFAULT_CONFIG							\
	"branch=1,user=1,kernel=0,tsc=1,mtc=0,mtc_period=3,cyc=0,cyc_thresh=0,"	\
	"psb_period=0,noretcomp=0,ptw=1,fup_on_ptw=0,pwr_evt=0,cr3=off,"	\
	"addr0=off,addr1=off"	/* addr2, addr3: the emulated CPU has 2 ranges */

struct res {
	int ret;		/* 0 or -errno */
	struct tracebuf_drv_config dc;
};

static struct res set_cfg(int fd, const char *str, unsigned int flags)
{
	struct res r;

	memset(&r, 0, sizeof(r));
	r.dc.size = sizeof(r.dc);
	r.dc.flags = flags;
	r.dc.config_ptr = (uintptr_t)str;
	r.dc.config_len = strlen(str) + 1;
	r.ret = ioctl(fd, TRACEBUF_IOC_SET_DRV_CONFIG, &r.dc) ? -errno : 0;
	return r;
}

static int get_cfg(int fd, char *buf, size_t len)
{
	struct tracebuf_drv_config dc = { .size = sizeof(dc), .config_ptr = (uintptr_t)buf,
					  .config_len = len };

	return ioctl(fd, TRACEBUF_IOC_GET_DRV_CONFIG, &dc) ? -errno : (int)dc.config_len;
}

static int list_keys(int fd, struct tracebuf_cfg_key_desc *k, unsigned int max)
{
	struct tracebuf_cfg_keys q = { .size = sizeof(q), .cpu = CPU, .keys_max = max,
				       .key_size = sizeof(*k), .keys_ptr = (uintptr_t)k };

	strcpy(q.backend, "intel_pt");
	return ioctl(fd, TRACEBUF_IOC_LIST_DRV_CONFIG, &q) ? -errno : (int)q.nr_keys;
}

/* The value of key in a canonical string, or "" */
static const char *cfg_value(const char *cfg, const char *key, char *out, size_t len)
{
	size_t kl = strlen(key);
	const char *p = cfg;

	out[0] = 0;
	while (p && *p) {
		if (!strncmp(p, key, kl) && p[kl] == '=') {
			size_t n = strcspn(p + kl + 1, ",");

			if (n >= len)
				n = len - 1;
			memcpy(out, p + kl + 1, n);
			out[n] = 0;
			break;
		}
		p = strchr(p, ',');
		if (p)
			p++;
	}
	return out;
}

static void expect(int fd, const char *str, int err, unsigned int reason,
		   int off, int len)
{
	char before[TRACEBUF_DRV_CONFIG_MAX], after[TRACEBUF_DRV_CONFIG_MAX];
	struct res r;

	get_cfg(fd, before, sizeof(before));
	r = set_cfg(fd, str, 0);
	TBT_CHECK(r.ret == err, "'%s': got %d (%s), want %d", str, r.ret, strerror(-r.ret), err);
	if (err) {
		TBT_CHECK(r.dc.err_reason == reason, "'%s': reason %u, want %u", str,
			  r.dc.err_reason, reason);
		if (off >= 0)
			TBT_CHECK((int)r.dc.err_offset == off && (int)r.dc.err_len == len,
				  "'%s': token at %u+%u, want %d+%d", str, r.dc.err_offset,
				  r.dc.err_len, off, len);
		get_cfg(fd, after, sizeof(after));
		TBT_CHECK(!strcmp(before, after), "'%s' changed the configuration", str);
	}
}

static void no_backend(void)
{
	struct tracebuf_session s;
	struct res r;

	TBT_CHECK(tracebuf_open(&s, 0) == 0, "open");
	r = set_cfg(s.fd, "cyc=1", 0);
	TBT_CHECK(r.ret == -EINVAL, "before SETUP: %d", r.ret);
	tracebuf_close(&s);
	TBT_CHECK(setup(&s, "none", 0, 0) == 0, "setup none");
	r = set_cfg(s.fd, "cyc=1", 0);
	TBT_CHECK(r.ret == -ENODEV, "no backend: %d", r.ret);
	{
		struct tracebuf_cfg_key_desc k[4];

		TBT_CHECK(list_keys(s.fd, k, 4) == -ENODEV || HAVE_PT, "list without intel_pt");
	}
	tracebuf_close(&s);
}

/* Every key: its valid values are taken, its invalid ones refused. */
static void every_key(int fd)
{
	struct tracebuf_cfg_key_desc k[64];
	char buf[256], cfg[TRACEBUF_DRV_CONFIG_MAX], v[64];
	int n, i;
	unsigned int val;

	n = list_keys(fd, k, 64);
	TBT_CHECK(n == 18, "intel_pt has %d keys", n);
	for (i = 0; i < n && i < 64; i++) {
		const char *name = k[i].name;

		TBT_CHECK(k[i].desc[0], "%s: no description", name);
		if (k[i].flags & TRACEBUF_CFG_KEY_UNSUPPORTED) {
			snprintf(buf, sizeof(buf), "%.23s=%s", name,
				 k[i].type == TRACEBUF_CFG_RANGE ? "0x1000-0x2000:filter" : "1");
			expect(fd, buf, -EOPNOTSUPP, TRACEBUF_CFG_UNSUPPORTED, 0, strlen(buf));
			continue;
		}
		switch (k[i].type) {
		case TRACEBUF_CFG_BOOL:
			snprintf(buf, sizeof(buf), "%.23s=0", name);
			expect(fd, buf, 0, 0, -1, 0);
			snprintf(buf, sizeof(buf), "%.23s", name);
			expect(fd, buf, 0, 0, -1, 0);
			get_cfg(fd, cfg, sizeof(cfg));
			TBT_CHECK(!strcmp(cfg_value(cfg, name, v, sizeof(v)), "1"), "%s bare: %s", name, v);
			snprintf(buf, sizeof(buf), "%.23s=2", name);
			expect(fd, buf, -EINVAL, TRACEBUF_CFG_BAD_VALUE, 0, strlen(buf));
			snprintf(buf, sizeof(buf), "%.23s=yes", name);
			expect(fd, buf, -EINVAL, TRACEBUF_CFG_BAD_VALUE, 0, strlen(buf));
			break;
		case TRACEBUF_CFG_ENUM:
			for (val = 0; val < 32; val++) {
				snprintf(buf, sizeof(buf), "%.23s=%u", name, val);
				if (k[i].allowed & (1U << val)) {
					expect(fd, buf, 0, 0, -1, 0);
					get_cfg(fd, cfg, sizeof(cfg));
					TBT_CHECK((unsigned int)atoi(cfg_value(cfg, name, v, sizeof(v))) == val,
						  "%.23s=%u took %s", name, val, v);
				} else {
					expect(fd, buf, -ERANGE, TRACEBUF_CFG_NOT_ALLOWED, 0,
					       strlen(buf));
				}
			}
			snprintf(buf, sizeof(buf), "%.23s=99", name);
			expect(fd, buf, -ERANGE, TRACEBUF_CFG_NOT_ALLOWED, -1, 0);
			break;
		case TRACEBUF_CFG_U64:
			snprintf(buf, sizeof(buf), "%.23s=0x1000", name);
			expect(fd, buf, 0, 0, -1, 0);
			get_cfg(fd, cfg, sizeof(cfg));
			TBT_CHECK(!strcmp(cfg_value(cfg, name, v, sizeof(v)), "0x1000"), "%s: %s", name, v);
			/* One mode: under PTI, user and kernel together conflict. */
			snprintf(buf, sizeof(buf), "kernel=0,%.23s=current", name);
			expect(fd, buf, 0, 0, -1, 0);
			get_cfg(fd, cfg, sizeof(cfg));
			cfg_value(cfg, name, v, sizeof(v));
			TBT_CHECK(strncmp(v, "0x", 2) == 0 && strtoull(v, NULL, 16) != 0,
				  "%.23s=current resolved to '%s'", name, v);
			snprintf(buf, sizeof(buf), "%.23s=off", name);
			expect(fd, buf, 0, 0, -1, 0);
			snprintf(buf, sizeof(buf), "%.23s=0x10000000000000000", name);
			expect(fd, buf, -ERANGE, TRACEBUF_CFG_OUT_OF_RANGE, 0, strlen(buf));
			snprintf(buf, sizeof(buf), "%.23s=12ab", name);
			expect(fd, buf, -EINVAL, TRACEBUF_CFG_BAD_VALUE, 0, strlen(buf));
			break;
		case TRACEBUF_CFG_RANGE:
			snprintf(buf, sizeof(buf), "%.23s=0x1000-0x2000:filter", name);
			expect(fd, buf, 0, 0, -1, 0);
			get_cfg(fd, cfg, sizeof(cfg));
			TBT_CHECK(!strcmp(cfg_value(cfg, name, v, sizeof(v)), "0x1000-0x2000:filter"),
				  "%s: %s", name, v);
			snprintf(buf, sizeof(buf), "%.23s=0x400000-0x400fff:stop", name);
			expect(fd, buf, 0, 0, -1, 0);
			snprintf(buf, sizeof(buf), "%.23s=0x1000-0x2000:foo", name);
			expect(fd, buf, -EINVAL, TRACEBUF_CFG_BAD_VALUE, 0, strlen(buf));
			snprintf(buf, sizeof(buf), "%.23s=0x1000-:filter", name);
			expect(fd, buf, -EINVAL, TRACEBUF_CFG_BAD_VALUE, 0, strlen(buf));
			snprintf(buf, sizeof(buf), "%.23s=off", name);
			expect(fd, buf, 0, 0, -1, 0);
			break;
		default:
			TBT_CHECK(0, "%s: unknown type %u", name, k[i].type);
		}
	}
	/* Back to the defaults. */
	{
		struct res r = set_cfg(fd, "branch", TRACEBUF_DRV_CONFIG_F_RESET);

		TBT_CHECK(r.ret == 0, "reset");
		get_cfg(fd, cfg, sizeof(cfg));
		TBT_CHECK(!strcmp(cfg, DEFAULT_CONFIG), "after reset: %s", cfg);
	}
}

static void malformed(int fd)
{
	char longstr[TRACEBUF_DRV_CONFIG_MAX + 16];
	struct res r;

	expect(fd, "", -EINVAL, TRACEBUF_CFG_EMPTY, 0, 0);
	expect(fd, "cyc=1,", -EINVAL, TRACEBUF_CFG_EMPTY, 6, 0);
	expect(fd, ",cyc=1", -EINVAL, TRACEBUF_CFG_EMPTY, 0, 0);
	expect(fd, "cyc,,mtc", -EINVAL, TRACEBUF_CFG_EMPTY, 4, 0);
	expect(fd, "=", -EINVAL, TRACEBUF_CFG_SYNTAX, 0, 1);
	expect(fd, "cyc=1,=1", -EINVAL, TRACEBUF_CFG_SYNTAX, 6, 2);
	expect(fd, "cyc==1", -EINVAL, TRACEBUF_CFG_SYNTAX, 0, 6);
	expect(fd, "Cyc=1", -EINVAL, TRACEBUF_CFG_SYNTAX, 0, 5);
	expect(fd, "cyc=1,bogus=1", -EINVAL, TRACEBUF_CFG_UNKNOWN_KEY, 6, 7);
	expect(fd, "cyc=1,mtc=1,tsc,cyc=0", -EINVAL, TRACEBUF_CFG_DUPLICATE, 16, 5);
	expect(fd, "cyc=1,tsc=\xc3\xa9", -EINVAL, TRACEBUF_CFG_NON_ASCII, 6, 6);
	expect(fd, "cyc_thresh=99", -ERANGE, TRACEBUF_CFG_NOT_ALLOWED, 0, 13);
	expect(fd, "cr3=99999999999999999999", -ERANGE, TRACEBUF_CFG_OUT_OF_RANGE, 0, 24);
	expect(fd, "addr2=0x1000-0x2000:filter", -EOPNOTSUPP, TRACEBUF_CFG_UNSUPPORTED, 0, 26);
	/* A bad key at the end of an otherwise valid string: nothing changes. */
	expect(fd, "cyc=1,cyc_thresh=2,mtc=1,tsc=0,branch=0,nonsense", -EINVAL,
	       TRACEBUF_CFG_UNKNOWN_KEY, 40, 8);
	/* Overlong: config_len over the limit is refused before parsing. */
	memset(longstr, 'a', sizeof(longstr) - 1);
	longstr[sizeof(longstr) - 1] = 0;
	r = set_cfg(fd, longstr, 0);
	TBT_CHECK(r.ret == -EINVAL && r.dc.err_reason == TRACEBUF_CFG_TOO_LONG &&
		  r.dc.err_offset == TRACEBUF_DRV_CONFIG_MAX - 1, "overlong: %d reason %u at %u",
		  r.ret, r.dc.err_reason, r.dc.err_offset);
	/* An overlong key is just an unknown one, pointed at whole. */
	memset(longstr, 'k', 100);
	strcpy(longstr + 100, "=1");
	expect(fd, longstr, -EINVAL, TRACEBUF_CFG_UNKNOWN_KEY, 0, 102);
	/* The string must be NUL-terminated within config_len. */
	r.dc.size = sizeof(r.dc);
	r.dc.config_ptr = (uintptr_t)"cyc=1";
	r.dc.config_len = 3;
	TBT_ERRNO(ioctl(fd, TRACEBUF_IOC_SET_DRV_CONFIG, &r.dc), EINVAL);
	r.dc.config_len = 6;
	r.dc.flags = 0x80;
	TBT_ERRNO(ioctl(fd, TRACEBUF_IOC_SET_DRV_CONFIG, &r.dc), EINVAL);
	r.dc.flags = 0;
	r.dc.reserved[1] = 1;
	TBT_ERRNO(ioctl(fd, TRACEBUF_IOC_SET_DRV_CONFIG, &r.dc), EINVAL);
	r.dc.reserved[1] = 0;
	r.dc.config_ptr = 8;
	TBT_ERRNO(ioctl(fd, TRACEBUF_IOC_SET_DRV_CONFIG, &r.dc), EFAULT);
	{
		char small[8];

		TBT_CHECK(get_cfg(fd, small, sizeof(small)) == -ENOSPC, "GET into a small buffer");
	}
	{
		char buf[64];
		struct tracebuf_drv_config dc = { .size = sizeof(dc), .flags = 1,
						  .config_ptr = (uintptr_t)buf, .config_len = 64 };

		TBT_ERRNO(ioctl(fd, TRACEBUF_IOC_GET_DRV_CONFIG, &dc), EINVAL);
		dc.flags = 0;
		dc.size = TRACEBUF_DRV_CONFIG_SIZE_VER0 - 8;
		TBT_ERRNO(ioctl(fd, TRACEBUF_IOC_GET_DRV_CONFIG, &dc), EINVAL);
	}
	{
		struct tracebuf_cfg_key_desc k[2];
		struct tracebuf_cfg_keys q = { .size = sizeof(q), .cpu = CPU, .keys_max = 2,
					       .key_size = sizeof(k[0]), .keys_ptr = (uintptr_t)k };

		strcpy(q.backend, "intel_pt");
		q.key_size = TRACEBUF_CFG_KEY_DESC_SIZE_VER0 - 8;
		TBT_ERRNO(ioctl(fd, TRACEBUF_IOC_LIST_DRV_CONFIG, &q), EINVAL);
		q.key_size = sizeof(k[0]);
		q.keys_ptr = 0;
		TBT_ERRNO(ioctl(fd, TRACEBUF_IOC_LIST_DRV_CONFIG, &q), EINVAL);
		q.keys_ptr = 8;
		TBT_ERRNO(ioctl(fd, TRACEBUF_IOC_LIST_DRV_CONFIG, &q), EFAULT);
		q.keys_ptr = (uintptr_t)k;
		q.reserved[0] = 1;
		TBT_ERRNO(ioctl(fd, TRACEBUF_IOC_LIST_DRV_CONFIG, &q), EINVAL);
		q.reserved[0] = 0;
		q.cpu = 100000;
		TBT_ERRNO(ioctl(fd, TRACEBUF_IOC_LIST_DRV_CONFIG, &q), EINVAL);
		q.cpu = CPU;
		memset(q.backend, 'x', sizeof(q.backend));
		TBT_ERRNO(ioctl(fd, TRACEBUF_IOC_LIST_DRV_CONFIG, &q), EINVAL);
		strcpy(q.backend, "coresight");
		TBT_ERRNO(ioctl(fd, TRACEBUF_IOC_LIST_DRV_CONFIG, &q), ENODEV);
		strcpy(q.backend, "intel_pt");
		TBT_CHECK(ioctl(fd, TRACEBUF_IOC_LIST_DRV_CONFIG, &q) == 0 && q.nr_keys == 18,
			  "LIST into 2 entries: %u keys", q.nr_keys);
	}
}

/* Drop every capability (effective, permitted, inheritable); stay uid 0. */
static int drop_caps(void)
{
	struct { unsigned int version; int pid; } h = { 0x20080522, 0 };
	struct { unsigned int eff, perm, inh; } d[2];

	memset(d, 0, sizeof(d));
	return syscall(SYS_capset, &h, d);
}

/*
 * Kernel tracing needs CAP_PERFMON of the opener (the credentials the file
 * was opened with): a file opened without it is refused, whoever uses it;
 * the file opened with it (fd) still works after its user dropped it.
 */
/*
 * Values the hardware would refuse are refused at SET_DRV_CONFIG, with the
 * token (not -EIO at ENABLE): CR3_MATCH bits 4:0 are reserved, ADDRn_A/B
 * #GP on a non-canonical address. And cr3=current resolves to the CR3 of
 * the mode traced: under page-table isolation, user mode runs on the other
 * half of the PGD (bit 12) with the user PCID bit (11) when PCID is on.
 */
static int pti_seen;

static void hardware_limits(int fd)
{
	static const char *const noncanon = "addr0=0x1000-0x8000000000000000:filter";
	char buf[TRACEBUF_DRV_CONFIG_MAX], v[64], line[4096];
	unsigned long long ucr3, kcr3;
	int pti = 0, pcid = 0;
	FILE *f;

	expect(fd, "cr3=0x1001", -ERANGE, TRACEBUF_CFG_OUT_OF_RANGE, 0, 10);
	expect(fd, "tsc=1,cr3=0x1010", -ERANGE, TRACEBUF_CFG_OUT_OF_RANGE, 6, 10);
	expect(fd, noncanon, -ERANGE, TRACEBUF_CFG_OUT_OF_RANGE, 0, (int)strlen(noncanon));
	expect(fd, "addr0=0x8000000000000000-0xffffffffff600000:stop", -ERANGE,
	       TRACEBUF_CFG_OUT_OF_RANGE, 0, 48);
	/* Canonical in both halves (and for 48- and 57-bit addresses): fine. */
	expect(fd, "addr0=0x400000-0xffffffffff600000:filter", 0, 0, -1, 0);
	expect(fd, "addr0=off,cr3=0x1020", 0, 0, -1, 0);
	expect(fd, "cr3=off", 0, 0, -1, 0);

	/* The kernel's own flags (pti=on forces PTI on a CPU not affected). */
	f = fopen("/proc/cpuinfo", "r");
	while (f && fgets(line, sizeof(line), f)) {
		if (strncmp(line, "flags", 5))
			continue;
		pti = strstr(line, " pti ") || strstr(line, " pti\n");
		pcid = strstr(line, " pcid ") || strstr(line, " pcid\n");
		break;
	}
	if (f)
		fclose(f);
	printf("page-table isolation: %s, pcid: %s\n", pti ? "on" : "off", pcid ? "on" : "off");
	pti_seen = pti;
	expect(fd, "kernel=0,user=1,cr3=current", 0, 0, -1, 0);
	get_cfg(fd, buf, sizeof(buf));
	ucr3 = strtoull(cfg_value(buf, "cr3", v, sizeof(v)), NULL, 0);
	expect(fd, "user=0,kernel=1,cr3=current", 0, 0, -1, 0);
	get_cfg(fd, buf, sizeof(buf));
	kcr3 = strtoull(cfg_value(buf, "cr3", v, sizeof(v)), NULL, 0);
	TBT_CHECK(ucr3 && kcr3 && !(ucr3 & 0x1f) && !(kcr3 & 0x7ff),
		  "cr3=current: user %#llx kernel %#llx", ucr3, kcr3);
	if (pti) {
		/* The user half: bit 12, and the user PCID bit 11 when PCID is on. */
		TBT_CHECK(ucr3 == (kcr3 | 0x1000 | (pcid ? 0x800 : 0)) && !(kcr3 & 0x1000),
			  "PTI: user CR3 %#llx is not kernel CR3 %#llx's user half", ucr3, kcr3);
		expect(fd, "user=1,kernel=1,cr3=current", -EINVAL, TRACEBUF_CFG_CONFLICT, 0, 6);
		expect(fd, "cr3=current,kernel=1,user=1", -EINVAL, TRACEBUF_CFG_CONFLICT, 0, 11);
	} else {
		TBT_CHECK(ucr3 == kcr3, "no PTI: user CR3 %#llx != kernel CR3 %#llx", ucr3, kcr3);
		expect(fd, "user=1,kernel=1,cr3=current", 0, 0, -1, 0);
	}
	expect(fd, "user=1,kernel=0,cr3=off", 0, 0, -1, 0);
}

static void unprivileged(int fd)
{
	pid_t pid = fork();
	int st;

	if (pid == 0) {
		struct tracebuf_session u;
		struct res r;

		if (drop_caps())
			_exit(3);
		/* fd was opened with CAP_PERFMON: still allowed. */
		r = set_cfg(fd, "kernel=1", 0);
		if (r.ret)
			_exit(4);
		r = set_cfg(fd, "kernel=0", 0);
		if (r.ret)
			_exit(5);
		if (setup(&u, "intel_pt", CPU, 0))
			_exit(6);
		r = set_cfg(u.fd, "kernel=1", 0);
		if (r.ret != -EACCES || r.dc.err_reason != TRACEBUF_CFG_PERMISSION)
			_exit(1);
		r = set_cfg(u.fd, "cr3=current", 0);
		if (r.ret != -EACCES || r.dc.err_reason != TRACEBUF_CFG_PERMISSION)
			_exit(7);
		r = set_cfg(u.fd, "kernel=0,user=1", 0);
		_exit(r.ret ? 2 : 0);
	}
	TBT_CHECK(waitpid(pid, &st, 0) == pid && WIFEXITED(st) && WEXITSTATUS(st) == 0,
		  "unprivileged kernel=1: child status %#x", st);
	expect(fd, "kernel=1", 0, 0, -1, 0);
	expect(fd, "kernel=0", 0, 0, -1, 0);
}

/*
 * Change the configuration while tracing at a high rate; the host checks
 * each region of the capture against its CONFIG record.
 */
static void while_tracing(void)
{
	static const char *const steps[] = {
		"cyc=1,cyc_thresh=2",
		"mtc=1,mtc_period=0",
		"tsc=0,cyc=0",
		"branch=0",
		"branch=1,fup_on_ptw=1",
		"psb_period=2,fup_on_ptw=0",
		"noretcomp=1,mtc=0,tsc=1",
		"ptw=0",
		"ptw=1,cyc=1",
	};
	unsigned long long w0, w1, p0, p1, d0, d1;
	struct sess x;
	unsigned int i, t;

	if (sess_open(&x, CPU, 256 * 1024, 64 * PAGE, 0, 16384)) {
		TBT_CHECK(0, "session");
		return;
	}
	cap_open(&x, "config");
	w0 = emu_stat(CPU, "bytes_written");
	p0 = emu_stat(CPU, "ptw_seq");
	d0 = emu_stat(CPU, "ptw_dropped");
	TBT_CHECK(ioctl(x.s.fd, TRACEBUF_IOC_ENABLE) == 0, "enable");
	for (i = 0; i < sizeof(steps) / sizeof(steps[0]); i++) {
		struct res r;

		for (t = 0; t < 8; t++) {
			msleep(5);
			consume(&x);
		}
		r = set_cfg(x.s.fd, steps[i], 0);
		TBT_CHECK(r.ret == 0, "'%s' while tracing: %s", steps[i], strerror(-r.ret));
		TBT_CHECK(r.dc.generation == i + 1, "generation %llu",
			  (unsigned long long)r.dc.generation);
		/* Stalled on a full ring is still tracing: TraceEn clear, F_ENABLED set. */
		TBT_CHECK(x.s.ctl->flags & TRACEBUF_CTL_F_ENABLED,
			  "tracing stopped after '%s'", steps[i]);
	}
	for (t = 0; t < 8; t++) {
		msleep(5);
		consume(&x);
	}
	TBT_CHECK(ioctl(x.s.fd, TRACEBUF_IOC_DISABLE) == 0, "disable");
	consume(&x);
	w1 = emu_stat(CPU, "bytes_written");
	p1 = emu_stat(CPU, "ptw_seq");
	d1 = emu_stat(CPU, "ptw_dropped");
	cap_emu("config", p0, p1, d1 - d0, 0);
	printf("config: %llu spans, %llu CONFIG records, %llu bytes, written %llu, lost records %llu\n",
	       (unsigned long long)x.spans, (unsigned long long)x.configs,
	       (unsigned long long)x.published, w1 - w0, (unsigned long long)x.lost);
	TBT_CHECK(x.configs == sizeof(steps) / sizeof(steps[0]), "CONFIG records: %llu",
		  (unsigned long long)x.configs);
	TBT_CHECK(x.published == w1 - w0, "published %llu, written %llu",
		  (unsigned long long)x.published, w1 - w0);
	TBT_CHECK(x.lost == 0, "records lost");
	sess_close(&x);
}

/* Random strings: never a splat, only the documented errors. */
static void fuzz(int fd, unsigned int n)
{
	static const char *const words[] = {
		"branch", "user", "kernel", "tsc", "mtc", "mtc_period", "cyc", "cyc_thresh",
		"psb_period", "noretcomp", "ptw", "fup_on_ptw", "pwr_evt", "cr3", "addr0",
		"addr1", "addr2", "0", "1", "2", "3", "99", "0x1000", "current", "off",
		"-", ":", "filter", "stop", "=", ",", "0x", "18446744073709551616", "\xff",
		" ", "A", "",
	};
	char before[TRACEBUF_DRV_CONFIG_MAX], after[TRACEBUF_DRV_CONFIG_MAX];
	unsigned int seed = 12345, i, j, bad = 0, ok = 0;
	char str[600];

	get_cfg(fd, before, sizeof(before));
	for (i = 0; i < n; i++) {
		unsigned int len = 0, parts = rand_r(&seed) % 12;
		struct res r;

		if (rand_r(&seed) % 4 == 0) {
			unsigned int l = rand_r(&seed) % 64;

			for (j = 0; j < l; j++)
				str[len++] = (char)(rand_r(&seed) % 255 + 1);
		} else {
			for (j = 0; j < parts; j++) {
				const char *w = words[rand_r(&seed) % (sizeof(words) / sizeof(words[0]))];
				size_t wl = strlen(w);

				if (len + wl + 2 >= sizeof(str))
					break;
				memcpy(str + len, w, wl);
				len += wl;
				if (rand_r(&seed) % 3 == 0)
					str[len++] = rand_r(&seed) % 2 ? '=' : ',';
			}
		}
		str[len] = 0;
		r = set_cfg(fd, str, rand_r(&seed) % 8 == 0 ? TRACEBUF_DRV_CONFIG_F_RESET : 0);
		if (r.ret == 0) {
			ok++;
			continue;
		}
		if (r.ret != -EINVAL && r.ret != -ERANGE && r.ret != -EOPNOTSUPP &&
		    r.ret != -EACCES)
			bad++;
		else if (r.dc.err_reason == TRACEBUF_CFG_OK ||
			 r.dc.err_offset + r.dc.err_len > len)
			bad++;
		if (bad && bad < 5)
			printf("fuzz: '%s' -> %d reason %u at %u+%u\n", str, r.ret,
			       r.dc.err_reason, r.dc.err_offset, r.dc.err_len);
		if (i % 1000 == 0) {
			/* A refused string never changes anything. */
			get_cfg(fd, after, sizeof(after));
			set_cfg(fd, before, TRACEBUF_DRV_CONFIG_F_RESET);
			get_cfg(fd, after, sizeof(after));
			TBT_CHECK(!strcmp(before, after), "restore after fuzz");
		}
	}
	printf("fuzz: %u strings, %u accepted, %u bad results\n", n, ok, bad);
	TBT_CHECK(bad == 0, "fuzz: %u bad results", bad);
}

int main(int argc, char **argv)
{
	struct tracebuf_session s;
	char cfg[TRACEBUF_DRV_CONFIG_MAX];
	int pti_only = argc > 1 && !strcmp(argv[1], "pti");
	unsigned int nfuzz = argc > 1 && !pti_only ? (unsigned int)atoi(argv[1]) : 100000;

	setvbuf(stdout, NULL, _IONBF, 0);
	if (tbt_modprobe("tracebuf"))
		return 1;
	no_backend();
	if (!HAVE_PT)
		return tbt_done();
	if (tbt_modprobe("tb_ptemu"))
		return 1;
	TBT_CHECK(write_file(EMU "/rate", "8192") == 0, "emulator rate");

	TBT_CHECK(setup(&s, "intel_pt", CPU, 0) == 0, "setup");
	TBT_CHECK(get_cfg(s.fd, cfg, sizeof(cfg)) == (int)strlen(DEFAULT_CONFIG) + 1,
		  "GET length");
	TBT_CHECK(!strcmp(cfg, DEFAULT_CONFIG), "default: %s", cfg);
	if (pti_only) {
		/*
		 * "drv_config pti": the run tests/run.sh boots with pti=on (the
		 * guest CPU is not affected by Meltdown, so PTI is otherwise
		 * off); the rest is too slow there.
		 */
		hardware_limits(s.fd);
		TBT_CHECK(pti_seen, "page-table isolation is off: boot with pti=on");
		tracebuf_close(&s);
		return tbt_done();
	}
	every_key(s.fd);
	malformed(s.fd);
	hardware_limits(s.fd);
	unprivileged(s.fd);
	fuzz(s.fd, nfuzz);
	tracebuf_close(&s);

	while_tracing();

	/* A CPU without PTWRITE and power events: those keys are refused. */
	TBT_CHECK(tbt_rmmod("tb_ptemu") == 0, "rmmod");
	{
		const char *av[] = { "modprobe", "tb_ptemu", "ptwrite=0", "power_events=0",
				     "mtc=0", NULL };

		TBT_CHECK(tbt_run(av) == 0, "modprobe tb_ptemu ptwrite=0");
	}
	TBT_CHECK(setup(&s, "intel_pt", CPU, 0) == 0, "setup");
	expect(s.fd, "ptw=1", -EOPNOTSUPP, TRACEBUF_CFG_UNSUPPORTED, 0, 5);
	expect(s.fd, "fup_on_ptw", -EOPNOTSUPP, TRACEBUF_CFG_UNSUPPORTED, 0, 10);
	expect(s.fd, "mtc=1", -EOPNOTSUPP, TRACEBUF_CFG_UNSUPPORTED, 0, 5);
	expect(s.fd, "cyc=1,pwr_evt=1", -EOPNOTSUPP, TRACEBUF_CFG_UNSUPPORTED, 6, 9);
	get_cfg(s.fd, cfg, sizeof(cfg));
	/* Keys the CPU lacks are not part of the canonical form. */
	TBT_CHECK(!strstr(cfg, ",ptw=") && !strstr(cfg, "pwr_evt") && !strstr(cfg, "mtc"),
		  "unsupported keys listed: %s", cfg);
	tracebuf_close(&s);
	TBT_CHECK(tbt_rmmod("tb_ptemu") == 0, "rmmod");
	return tbt_done();
}
