// SPDX-License-Identifier: GPL-2.0
/*
 * taskprog - small known programs for the per-task tests (task_trace.c):
 * not a test itself (not in the plan). Each mode prints what the test
 * must find in the trace, one "key value" line each, on stdout.
 *
 *   taskprog spin MS [CPU]    spin MS milliseconds (pinned to CPU if given)
 *   taskprog threads N MS     N threads spinning MS each; "tid T" for each
 *   taskprog migrate MS       one thread moving CPU 0 -> 1 -> 0 with
 *                             sched_setaffinity(), MS on each; "cpu C" for
 *                             each CPU it ran on, "tid T"
 *   taskprog forkexec MS      fork a child that execs "taskprog spin MS";
 *                             spin meanwhile; "child P"; wait for it
 *   taskprog exit MS          spin MS, then _exit(0) from a spinning thread
 *                             while another thread still spins
 *   taskprog sleep MS         sleep MS (a process that does not run)
 *   taskprog exec MS PATH     spin MS, then exec "PATH spin MS"
 */
#include <pthread.h>
#include <sched.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/syscall.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

static int ms_arg;

static uint64_t now_ms(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return ts.tv_sec * 1000ULL + ts.tv_nsec / 1000000;
}

/* Busy for ms milliseconds of wall time, with calls and branches. */
static volatile uint64_t sink;

static void spin(int ms)
{
	uint64_t end = now_ms() + ms, x = 1;
	unsigned int i;

	while (now_ms() < end)
		for (i = 0; i < 1000; i++)
			x = x * 6364136223846793005ULL + (i & 1 ? 1442695040888963407ULL : 1);
	sink = x;
}

static pid_t gettid_(void)
{
	return (pid_t)syscall(SYS_gettid);
}

static void pin(int cpu)
{
	cpu_set_t set;

	CPU_ZERO(&set);
	CPU_SET(cpu, &set);
	if (sched_setaffinity(0, sizeof(set), &set))
		perror("sched_setaffinity");
}

static void *thread_fn(void *arg __attribute__((unused)))
{
	printf("tid %d\n", gettid_());
	fflush(stdout);
	spin(ms_arg);
	return NULL;
}

static void *exit_fn(void *arg __attribute__((unused)))
{
	spin(ms_arg);
	_exit(0);	/* the other thread still spins */
}

int main(int argc, char **argv)
{
	pthread_t th[16];
	int i, n, st;
	pid_t pid;

	if (argc < 3)
		return 2;
	ms_arg = atoi(argv[2]);
	setvbuf(stdout, NULL, _IOLBF, 0);
	if (!strcmp(argv[1], "spin")) {
		if (argc > 3)
			pin(atoi(argv[3]));
		printf("tid %d\n", gettid_());
		spin(ms_arg);
	} else if (!strcmp(argv[1], "threads") && argc > 3) {
		n = atoi(argv[2]);
		ms_arg = atoi(argv[3]);
		if (n < 1 || n > 16)
			return 2;
		for (i = 0; i < n; i++)
			if (pthread_create(&th[i], NULL, thread_fn, NULL))
				return 1;
		for (i = 0; i < n; i++)
			pthread_join(th[i], NULL);
	} else if (!strcmp(argv[1], "migrate")) {
		printf("tid %d\n", gettid_());
		pin(0);
		spin(ms_arg);
		printf("cpu %d\n", sched_getcpu());
		pin(1);
		spin(ms_arg);
		printf("cpu %d\n", sched_getcpu());
		pin(0);
		spin(ms_arg);
		printf("cpu %d\n", sched_getcpu());
	} else if (!strcmp(argv[1], "forkexec")) {
		pid = fork();
		if (pid == 0) {
			execl("/proc/self/exe", "taskprog", "spin", argv[2], (char *)NULL);
			_exit(127);
		}
		printf("child %d\n", pid);
		spin(ms_arg);
		if (waitpid(pid, &st, 0) != pid || !WIFEXITED(st) || WEXITSTATUS(st))
			return 1;
	} else if (!strcmp(argv[1], "exit")) {
		if (pthread_create(&th[0], NULL, exit_fn, NULL))
			return 1;
		spin(10 * ms_arg);	/* ended by the other thread's _exit */
		return 1;
	} else if (!strcmp(argv[1], "exec") && argc > 3) {
		printf("tid %d\n", gettid_());
		spin(ms_arg);
		execl(argv[3], argv[3], "spin", argv[2], (char *)NULL);
		return 127;
	} else if (!strcmp(argv[1], "sleep")) {
		usleep(ms_arg * 1000);
	} else {
		return 2;
	}
	return 0;
}
