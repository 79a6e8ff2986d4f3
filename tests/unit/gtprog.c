// SPDX-License-Identifier: GPL-2.0
/*
 * gtprog - a small known program for the decoder's ground-truth tests
 * (tests/unit/gtrace.sh, under tests/unit/gtgen.c): what followprog
 * (tests/guest/followprog.c: threads, recursion, a loop, calls through a
 * function pointer) does not have. Not a test itself.
 *
 *   gtprog          a signal handler (raise(SIGUSR1)), a call through the
 *                   PLT into a shared library (gt_lib_mix() in
 *                   libgtlib.so), an indirect call through a function
 *                   pointer, recursion, a second thread that moves between
 *                   CPUs 0 and 1 (sched_setaffinity, where there are two),
 *                   and fork + exec of "gtprog child"
 *   gtprog child    recursion and the library, then exit 3
 * Prints "sum S" (and the child "child S"); exits 0 when the child
 * exited 3.
 */
#include <pthread.h>
#include <sched.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/wait.h>
#include <unistd.h>

int gt_lib_mix(int x);

static volatile sig_atomic_t handled;

static void on_usr1(int sig)
{
	handled += sig;
}

static int depth(int n)
{
	return n <= 0 ? 0 : 1 + depth(n - 1);
}

static int add1(int x)
{
	return x + 1;
}

static int dbl(int x)
{
	return 2 * x;
}

static int (*volatile op[2])(int) = { add1, dbl };

static void move_to(int cpu)
{
	cpu_set_t set;

	CPU_ZERO(&set);
	CPU_SET(cpu, &set);
	sched_setaffinity(0, sizeof(set), &set);	/* fails quietly on one CPU */
}

static void *mover(void *arg)
{
	long s = (long)arg;
	int i;

	for (i = 0; i < 3; i++) {
		move_to(i & 1);
		s += op[i & 1](depth(3));
	}
	return (void *)s;
}

int main(int argc, char **argv)
{
	struct sigaction sa;
	pthread_t th;
	void *ret;
	int s, st;
	pid_t c;

	if (argc > 1 && !strcmp(argv[1], "child")) {
		s = depth(4) + gt_lib_mix(5);
		printf("child %d\n", s);
		return 3;
	}
	memset(&sa, 0, sizeof(sa));
	sa.sa_handler = on_usr1;
	sigaction(SIGUSR1, &sa, NULL);
	raise(SIGUSR1);
	s = handled + gt_lib_mix(depth(5)) + op[0](op[1](3));
	if (pthread_create(&th, NULL, mover, NULL))
		return 1;
	pthread_join(th, &ret);
	s += (int)(long)ret;
	fflush(stdout);
	c = fork();
	if (c == 0) {
		execl("/proc/self/exe", argv[0], "child", (char *)NULL);
		_exit(127);
	}
	if (c < 0 || waitpid(c, &st, 0) != c)
		return 1;
	printf("sum %d\n", s);
	return WIFEXITED(st) && WEXITSTATUS(st) == 3 ? 0 : 1;
}
