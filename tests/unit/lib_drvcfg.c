/* SPDX-License-Identifier: GPL-2.0 */
/*
 * Driver configuration in libtracebuf: tracebuf_list_drv_config(),
 * tracebuf_get_drv_config() and tracebuf_set_drv_config() build the
 * requests the module expects, and explain refused strings, against the
 * fake ioctls (and intel_pt-like key table) of fake_ioctl.c.
 */
#include <errno.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include <libtracebuf.h>

#include "check.h"
#include "fake_ioctl.h"

static void open_setup(struct tracebuf_session *s, const char *backend, unsigned int cpu)
{
	struct tracebuf_setup setup;

	memset(&setup, 0, sizeof(setup));
	setup.target = TRACEBUF_TARGET_CPU;
	setup.cpu = cpu;
	strcpy(setup.backend, backend);
	CHECK_EQ(tracebuf_open(s, 0), 0);
	CHECK_EQ(tracebuf_setup(s, &setup), 0);
}

static void check_list(void)
{
	const struct tracebuf_cfg_keys *q = &fake_tb.last_list;
	struct tracebuf_cfg_key_desc keys[20];
	struct tracebuf_session s;
	unsigned int calls;

	CHECK_EQ(tracebuf_open(&s, 0), 0);
	calls = fake_tb.list_calls;
	CHECK_EQ(tracebuf_list_drv_config(NULL, "intel_pt", 0, keys, 20), -EINVAL);
	CHECK_EQ(tracebuf_list_drv_config(&s, "intel_pt", 0, NULL, 1), -EINVAL);
	CHECK_EQ(tracebuf_list_drv_config(&s, "0123456789abcdef", 0, keys, 20), -EINVAL);
	CHECK_EQ(fake_tb.list_calls, calls);

	memset(keys, 0xaa, sizeof(keys));
	CHECK_EQ(tracebuf_list_drv_config(&s, "intel_pt", 5, keys, 20), FAKE_TB_NR_KEYS);
	CHECK_EQ(q->size, sizeof(*q));
	CHECK_EQ(q->cpu, 5);
	CHECK(strcmp(q->backend, "intel_pt") == 0);
	CHECK_EQ(q->keys_max, 20);
	CHECK_EQ(q->key_size, sizeof(keys[0]));
	CHECK(q->keys_ptr == (uint64_t)(uintptr_t)keys);
	CHECK_EQ(q->nr_keys, 0);
	CHECK_EQ(q->reserved0, 0);
	CHECK(q->reserved[0] == 0 && q->reserved[1] == 0);
	CHECK(memcmp(keys, fake_tb_keys, sizeof(fake_tb_keys)) == 0);
	CHECK_EQ(keys[FAKE_TB_NR_KEYS].name[0], (char)0xaa);

	/* Fewer slots than keys: the count says how many there are. */
	memset(keys, 0xaa, sizeof(keys));
	CHECK_EQ(tracebuf_list_drv_config(&s, NULL, 0, keys, 2), FAKE_TB_NR_KEYS);
	CHECK(strcmp(q->backend, "auto") == 0);
	CHECK(strcmp(keys[1].name, "user") == 0);
	CHECK_EQ(keys[2].name[0], (char)0xaa);
	CHECK_EQ(tracebuf_list_drv_config(&s, "", 0, NULL, 0), FAKE_TB_NR_KEYS);
	CHECK(q->keys_ptr == 0);

	CHECK_EQ(tracebuf_list_drv_config(&s, "nope", 0, keys, 20), -ENODEV);
	CHECK_EQ(tracebuf_list_drv_config(&s, "intel_pt", 8, keys, 20), -EINVAL);
	tracebuf_close(&s);
	CHECK_EQ(tracebuf_list_drv_config(&s, "intel_pt", 0, keys, 20), -EBADF);
}

static void check_get(void)
{
	const struct tracebuf_drv_config *q = &fake_tb.last_get;
	struct tracebuf_session s;
	char buf[TRACEBUF_DRV_CONFIG_MAX], small[16];
	uint64_t gen = 77;
	int need;

	fake_tb_cfg_reset();
	CHECK_EQ(tracebuf_open(&s, 0), 0);
	CHECK_EQ(tracebuf_get_drv_config(NULL, buf, sizeof(buf), &gen), -EINVAL);
	CHECK_EQ(tracebuf_get_drv_config(&s, NULL, 1, &gen), -EINVAL);

	need = tracebuf_get_drv_config(&s, buf, sizeof(buf), &gen);
	CHECK(need > 0);
	CHECK_EQ((size_t)need, strlen(buf) + 1);
	CHECK(strncmp(buf, "branch=1,user=1,kernel=0,", 25) == 0);
	CHECK_EQ(gen, 0);
	CHECK_EQ(q->size, sizeof(*q));
	CHECK_EQ(q->flags, 0);
	CHECK(q->config_ptr == (uint64_t)(uintptr_t)buf);
	CHECK_EQ(q->config_len, sizeof(buf));

	/* Too small: -ENOSPC as the kernel says it, nothing written. */
	memset(small, 'x', sizeof(small));
	CHECK_EQ(tracebuf_get_drv_config(&s, small, sizeof(small), NULL), -ENOSPC);
	CHECK_EQ(small[0], 'x');
	/* len 0: the length needed, NUL included. */
	CHECK_EQ(tracebuf_get_drv_config(&s, NULL, 0, NULL), need);
	CHECK_EQ(q->config_len, 1);
	CHECK(q->config_ptr != 0);
	CHECK_EQ(tracebuf_get_drv_config(&s, buf, (size_t)need, NULL), need);

	fake_tb.err = ENODEV;
	CHECK_EQ(tracebuf_get_drv_config(&s, NULL, 0, NULL), -ENODEV);
	fake_tb.err = 0;
	tracebuf_close(&s);
	CHECK_EQ(tracebuf_get_drv_config(&s, buf, sizeof(buf), NULL), -EBADF);
}

static void check_set_args(void)
{
	struct tracebuf_cfg_error err;
	struct tracebuf_session s;
	unsigned int calls;
	char *big;

	CHECK_EQ(tracebuf_open(&s, 0), 0);
	calls = fake_tb.set_calls;
	memset(&err, 0x55, sizeof(err));
	CHECK_EQ(tracebuf_set_drv_config(NULL, "branch", 0, &err), -EINVAL);
	CHECK_EQ(err.reason, 0);
	CHECK_EQ(err.message[0], 0);
	CHECK_EQ(tracebuf_set_drv_config(&s, NULL, 0, &err), -EINVAL);
	CHECK_EQ(tracebuf_set_drv_config(&s, "branch", 1U << 1, &err), -EINVAL);
	CHECK_EQ(tracebuf_set_drv_config(&s, "branch", ~0U, NULL), -EINVAL);

	/* Longer than the kernel reads: refused here, with the kernel's reason. */
	big = malloc(TRACEBUF_DRV_CONFIG_MAX + 10);
	CHECK(big != NULL);
	if (big) {
		memset(big, 'a', TRACEBUF_DRV_CONFIG_MAX + 9);
		big[TRACEBUF_DRV_CONFIG_MAX + 9] = 0;
		CHECK_EQ(tracebuf_set_drv_config(&s, big, 0, &err), -EINVAL);
		CHECK_EQ(err.reason, TRACEBUF_CFG_TOO_LONG);
		CHECK_EQ(err.offset, TRACEBUF_DRV_CONFIG_MAX - 1);
		CHECK_EQ(err.len, 10);
		CHECK(strstr(err.message, "too long") != NULL);
		/* Exactly the maximum, NUL included, goes to the kernel. */
		big[TRACEBUF_DRV_CONFIG_MAX - 1] = 0;
		tracebuf_set_drv_config(&s, big, 0, NULL);
		CHECK_EQ(fake_tb.set_calls, calls + 1);
		CHECK_EQ(fake_tb.last_set.config_len, TRACEBUF_DRV_CONFIG_MAX);
		free(big);
	}
	calls = fake_tb.set_calls;
	tracebuf_close(&s);
	CHECK_EQ(tracebuf_set_drv_config(&s, "branch", 0, &err), -EBADF);
	CHECK_EQ(fake_tb.set_calls, calls);
}

static void check_set_ok(void)
{
	const struct tracebuf_drv_config *q = &fake_tb.last_set;
	struct tracebuf_cfg_error err;
	struct tracebuf_session s;
	const char *cfg = "branch,mtc_period=6,user=0";
	char buf[TRACEBUF_DRV_CONFIG_MAX];
	uint64_t gen = 0;

	fake_tb_cfg_reset();
	open_setup(&s, "intel_pt", 1);
	memset(&err, 0x55, sizeof(err));
	CHECK_EQ(tracebuf_set_drv_config(&s, cfg, 0, &err), 0);
	CHECK_EQ(q->size, sizeof(*q));
	CHECK_EQ(q->flags, 0);
	CHECK(q->config_ptr == (uint64_t)(uintptr_t)cfg);
	CHECK_EQ(q->config_len, strlen(cfg) + 1);
	CHECK(q->reserved[0] == 0 && q->reserved[1] == 0);
	CHECK_EQ(q->err_offset, 0);
	CHECK_EQ(q->err_reason, 0);
	CHECK_EQ(err.reason, TRACEBUF_CFG_OK);
	CHECK_EQ(err.offset, 0);
	CHECK_EQ(err.len, 0);
	CHECK_EQ(err.generation, 1);
	CHECK_EQ(err.message[0], 0);
	CHECK(tracebuf_get_drv_config(&s, buf, sizeof(buf), &gen) > 0);
	CHECK_EQ(gen, 1);
	CHECK(strstr(buf, "mtc_period=6") != NULL);
	CHECK(strstr(buf, "user=0") != NULL);

	CHECK_EQ(tracebuf_set_drv_config(&s, "tsc=0", TRACEBUF_DRV_CONFIG_F_RESET, NULL), 0);
	CHECK_EQ(q->flags, TRACEBUF_DRV_CONFIG_F_RESET);
	CHECK(tracebuf_get_drv_config(&s, buf, sizeof(buf), &gen) > 0);
	CHECK_EQ(gen, 2);
	CHECK(strstr(buf, "mtc_period=3") != NULL);
	CHECK(strstr(buf, "tsc=0") != NULL);
	tracebuf_close(&s);
}

/* Refused: the return value, the kernel's span, and the message. */
static void expect(struct tracebuf_session *s, const char *cfg, int ret, unsigned int reason,
		   uint32_t off, uint32_t len, const char *message)
{
	struct tracebuf_cfg_error err;
	int got;

	memset(&err, 0x55, sizeof(err));
	got = tracebuf_set_drv_config(s, cfg, 0, &err);
	if (got != ret || err.reason != reason || err.offset != off || err.len != len ||
	    strcmp(err.message, message)) {
		fprintf(stderr, "'%s': %d, reason %u, %u+%u, message '%s'\n"
			"   expected %d, reason %u, %u+%u, message '%s'\n",
			cfg, got, err.reason, err.offset, err.len, err.message,
			ret, reason, off, len, message);
		check_failures++;
	}
}

static void check_set_errors(void)
{
	struct tracebuf_session s;
	unsigned int lists;

	fake_tb_cfg_reset();
	open_setup(&s, "auto", 3);
	lists = fake_tb.list_calls;
	expect(&s, "branch,cyc_thresh=99", -ERANGE, TRACEBUF_CFG_NOT_ALLOWED, 18, 2,
	       "cyc_thresh=99: not a supported value (supported: 0,1,2,3,4,5)");
	/* The key table of the session's backend and CPU. */
	CHECK_EQ(fake_tb.list_calls, lists + 1);
	CHECK(strcmp(fake_tb.last_list.backend, "auto") == 0);
	CHECK_EQ(fake_tb.last_list.cpu, 3);
	CHECK_EQ(fake_tb.last_list.keys_max, 64);
	expect(&s, "mtc_period=4,user", -ERANGE, TRACEBUF_CFG_NOT_ALLOWED, 11, 1,
	       "mtc_period=4: not a supported value (supported: 0,3,6,9)");
	expect(&s, "drain_ms=5000", -ERANGE, TRACEBUF_CFG_OUT_OF_RANGE, 9, 4,
	       "drain_ms=5000: out of range (supported: 1..1000)");
	expect(&s, "branch=2", -EINVAL, TRACEBUF_CFG_BAD_VALUE, 7, 1,
	       "branch=2: not a valid value (supported: 0,1)");
	expect(&s, "pwr_evt=1", -EOPNOTSUPP, TRACEBUF_CFG_UNSUPPORTED, 0, 9,
	       "pwr_evt=1: not supported by this CPU");
	expect(&s, "user,foo=1", -EINVAL, TRACEBUF_CFG_UNKNOWN_KEY, 5, 3,
	       "foo=1: unknown key (keys: branch, user, kernel, tsc, mtc, mtc_period, cyc, "
	       "cyc_thresh, psb_period, pwr_evt, drain_ms, ptw, cr3, addr0)");
	expect(&s, "user,,tsc", -EINVAL, TRACEBUF_CFG_EMPTY, 5, 0,
	       "empty string or token at offset 5");
	expect(&s, "", -EINVAL, TRACEBUF_CFG_EMPTY, 0, 0, "empty string or token at offset 0");
	expect(&s, "tsc,tsc=0", -EINVAL, TRACEBUF_CFG_DUPLICATE, 4, 5, "tsc=0: key given twice");
	expect(&s, "Tsc", -EINVAL, TRACEBUF_CFG_SYNTAX, 0, 3, "Tsc: malformed token");
	expect(&s, "tsc,user=\t\x80", -EINVAL, TRACEBUF_CFG_NON_ASCII, 10, 1,
	       "user=??: not ASCII");
	fake_tb.unprivileged = 1;
	expect(&s, "user,kernel=1", -EACCES, TRACEBUF_CFG_PERMISSION, 5, 8,
	       "kernel=1: needs CAP_PERFMON or CAP_SYS_ADMIN");
	fake_tb.unprivileged = 0;
	/* Nothing changed. */
	CHECK_EQ(fake_tb.generation, 0);
	/* Refused as a whole: the errno's text, no span. */
	fake_tb.err = ENODEV;
	expect(&s, "tsc", -ENODEV, TRACEBUF_CFG_OK, 0, 0, tracebuf_strerror(-ENODEV));
	fake_tb.err = 0;
	tracebuf_close(&s);

	/* A key list that would not fit: cut with "...)". */
	{
		struct tracebuf_cfg_error err;
		char cfg[300];
		size_t n;

		open_setup(&s, "intel_pt", 0);
		memset(cfg, 'z', sizeof(cfg));
		cfg[sizeof(cfg) - 1] = 0;
		CHECK_EQ(tracebuf_set_drv_config(&s, cfg, 0, &err), -EINVAL);
		n = strlen(err.message);
		CHECK(n < sizeof(err.message));
		CHECK(strncmp(err.message, "zzzz", 4) == 0);
		CHECK(strstr(err.message, "...: unknown key (keys: branch,") != NULL);
		CHECK(n > 5 && strcmp(err.message + n - 1, ")") == 0);
		CHECK(n > 5 && (strstr(err.message, "...)") || strstr(err.message, "addr0)")));
		tracebuf_close(&s);
	}

	/* Backend "none", or one the library cannot name: no key list. */
	open_setup(&s, "none", 0);
	lists = fake_tb.list_calls;
	expect(&s, "foo", -EINVAL, TRACEBUF_CFG_UNKNOWN_KEY, 0, 3, "foo: unknown key");
	CHECK_EQ(fake_tb.list_calls, lists);
	tracebuf_close(&s);
	/* A key table that cannot be had: no list either. */
	open_setup(&s, "intel_pt", 0);
	fake_tb.nr_backends = 0;
	expect(&s, "foo", -ENODEV, TRACEBUF_CFG_OK, 0, 0, tracebuf_strerror(-ENODEV));
	fake_tb.nr_backends = 1;
	tracebuf_close(&s);
}

/* A CPU set: the key table of its first CPU. */
static void check_cpuset(void)
{
	struct tracebuf_setup setup;
	struct tracebuf_session s;
	uint64_t set[2] = { 0, 1ULL << 5 };

	memset(&setup, 0, sizeof(setup));
	setup.target = TRACEBUF_TARGET_CPUSET;
	setup.cpuset_ptr = (uint64_t)(uintptr_t)set;
	setup.cpuset_size = sizeof(set);
	strcpy(setup.backend, "intel_pt");
	CHECK_EQ(tracebuf_open(&s, 0), 0);
	CHECK_EQ(tracebuf_setup(&s, &setup), 0);
	CHECK_EQ(s.setup_cpu, 69);
	/* 69 >= the fake's 8 CPUs: LIST fails, the message has no list. */
	expect(&s, "x=1", -EINVAL, TRACEBUF_CFG_UNKNOWN_KEY, 0, 1, "x=1: unknown key");
	CHECK_EQ(fake_tb.last_list.cpu, 69);
	tracebuf_close(&s);
}

static void check_reason_names(void)
{
	static const char *const names[] = {
		"ok", "empty string or token", "malformed token", "not ASCII", "unknown key",
		"key given twice", "not a valid value", "out of range", "not a supported value",
		"not supported by this CPU", "needs CAP_PERFMON or CAP_SYS_ADMIN", "too long",
		"cannot go with the other values",
	};
	unsigned int i;

	for (i = 0; i < sizeof(names) / sizeof(names[0]); i++)
		CHECK(strcmp(tracebuf_cfg_reason_name(i), names[i]) == 0);
	CHECK(strcmp(tracebuf_cfg_reason_name(13), "unknown reason") == 0);
	CHECK(strcmp(tracebuf_cfg_reason_name(~0U), "unknown reason") == 0);
}

int main(void)
{
	setenv("TRACEBUF_DEVICE", "/dev/null", 1);
	fake_tb.nr_backends = 1;
	check_list();
	check_get();
	check_set_args();
	check_set_ok();
	check_set_errors();
	check_cpuset();
	check_reason_names();
	return check_done();
}
