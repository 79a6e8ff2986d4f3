/* SPDX-License-Identifier: GPL-2.0 */
/*
 * Helpers for the guest test programs. Each guest test is one static
 * program: exit 0 = pass, 77 = skip, anything else = fail. Diagnostics go
 * to stdout (the console); the guest's /init reports the verdict on the
 * private result channel.
 */
#ifndef TBTEST_H
#define TBTEST_H

#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/syscall.h>
#include <sys/wait.h>
#include <unistd.h>

static int tbt_failures;

#define TBT_CHECK(cond, ...) do {					\
	if (!(cond)) {							\
		tbt_failures++;						\
		printf("not ok: %s:%d: %s: ", __FILE__, __LINE__, #cond); \
		printf(__VA_ARGS__);					\
		printf("\n");						\
	}								\
} while (0)

/* Expect a libc call to fail (-1) with errno e. */
#define TBT_ERRNO(call, e) do {						\
	errno = 0;							\
	long _r = (long)(call);						\
	TBT_CHECK(_r == -1 && errno == (e),				\
		  "got %ld errno %d (%s), want errno %d (%s)", _r,	\
		  errno, strerror(errno), (e), strerror(e));		\
} while (0)

static inline int tbt_done(void)
{
	printf("%s\n", tbt_failures ? "result: failed" : "result: ok");
	return tbt_failures ? 1 : 0;
}

/* Run a command, return its exit status (or -1). */
static inline int tbt_run(const char *const argv[])
{
	int st;
	pid_t pid = fork();

	if (pid == 0) {
		execvp(argv[0], (char *const *)argv);
		_exit(127);
	}
	if (pid < 0 || waitpid(pid, &st, 0) < 0)
		return -1;
	return WIFEXITED(st) ? WEXITSTATUS(st) : -1;
}

static inline int tbt_modprobe(const char *name)
{
	const char *argv[] = { "modprobe", name, NULL };

	return tbt_run(argv);
}

/* delete_module(2) without waiting; returns 0 or -errno. */
static inline int tbt_rmmod(const char *name)
{
	if (syscall(SYS_delete_module, name, O_NONBLOCK) == 0)
		return 0;
	return -errno;
}

static inline int tbt_module_loaded(const char *name)
{
	char path[128];

	snprintf(path, sizeof(path), "/sys/module/%s/initstate", name);
	return access(path, F_OK) == 0;
}

#endif /* TBTEST_H */
