// SPDX-License-Identifier: GPL-2.0
/*
 * followprog - a small known program for the follow-mode tests
 * (task_follow.c, under tests/guest/ptfollow.c): recursion, a loop,
 * calls through a function pointer, and a second thread. Not a test
 * itself. Prints "sum S".
 *
 *   followprog N          the loop over fib(0..N-1) on the main thread
 *                         and on a second one
 *   followprog signal N   one thread: a SIGUSR1 handler installed with
 *                         sigaction() and raised (raise(): glibc blocks
 *                         every signal around its tgkill, so the handler
 *                         runs at the exit of the rt_sigprocmask that
 *                         unblocks them), which calls fib() and one of
 *                         ops[] and returns through the libc restorer
 *                         (rt_sigreturn); then the loop. Prints
 *                         "handled H sum S"
 *   followprog fork N     fork(); the child execs this program (argv[0])
 *                         with N, the parent waits for it. Prints
 *                         "child C" (the child's pid) after the child's
 *                         own line
 */
#include <pthread.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/syscall.h>
#include <sys/wait.h>
#include <unistd.h>

static unsigned long fib(unsigned int n)
{
	return n < 2 ? n : fib(n - 1) + fib(n - 2);
}

static unsigned long twice(unsigned long x)
{
	return 2 * x;
}

static unsigned long thrice(unsigned long x)
{
	return 3 * x;
}

static unsigned long (*const ops[2])(unsigned long) = { twice, thrice };

static unsigned int n_arg;
static unsigned long results[2];
static unsigned long handled;	/* raise() returns after the handler ran */

static unsigned long work(void)
{
	unsigned long s = 0;
	unsigned int i;

	for (i = 0; i < n_arg; i++)
		s += ops[i & 1](fib(i));
	return s;
}

static void *thread_fn(void *arg)
{
	results[1] = work();
	return arg;
}

static void on_usr1(int sig)
{
	if (sig == SIGUSR1)
		handled += ops[handled & 1](fib(4));
}

static int signal_mode(const char *n)
{
	struct sigaction sa;

	memset(&sa, 0, sizeof(sa));
	sa.sa_handler = on_usr1;
	sigemptyset(&sa.sa_mask);
	n_arg = (unsigned int)atoi(n);
	if (sigaction(SIGUSR1, &sa, NULL) || raise(SIGUSR1) || !handled)
		return 1;
	results[0] = work();
	printf("handled %lu sum %lu\n", handled, results[0]);
	return 0;
}

static int fork_mode(char **argv)
{
	pid_t c;
	int st;

	fflush(stdout);
	c = fork();
	if (c == 0) {
		execl(argv[0], argv[0], argv[2], (char *)NULL);
		_exit(127);
	}
	if (c < 0 || waitpid(c, &st, 0) != c || !WIFEXITED(st) || WEXITSTATUS(st))
		return 1;
	printf("child %d\n", (int)c);
	return 0;
}

int main(int argc, char **argv)
{
	pthread_t th;

	if (argc > 2 && !strcmp(argv[1], "signal"))
		return signal_mode(argv[2]);
	if (argc > 2 && !strcmp(argv[1], "fork"))
		return fork_mode(argv);
	n_arg = argc > 1 ? (unsigned int)atoi(argv[1]) : 8;
	if (pthread_create(&th, NULL, thread_fn, NULL))
		return 1;
	results[0] = work();
	pthread_join(th, NULL);
	printf("sum %lu\n", results[0] + results[1]);
	return results[0] == results[1] ? 0 : 1;
}
