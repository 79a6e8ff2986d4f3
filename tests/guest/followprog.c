// SPDX-License-Identifier: GPL-2.0
/*
 * followprog - a small known program for the follow-mode tests
 * (task_follow.c, under tests/guest/ptfollow.c): recursion, a loop,
 * calls through a function pointer, and a second thread. Not a test
 * itself. Prints "tid T" per thread and "sum S".
 *
 *   followprog N    fib(N) on the main thread and on a second one
 */
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <sys/syscall.h>
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

int main(int argc, char **argv)
{
	pthread_t th;

	n_arg = argc > 1 ? (unsigned int)atoi(argv[1]) : 8;
	if (pthread_create(&th, NULL, thread_fn, NULL))
		return 1;
	results[0] = work();
	pthread_join(th, NULL);
	printf("sum %lu\n", results[0] + results[1]);
	return results[0] == results[1] ? 0 : 1;
}
