// SPDX-License-Identifier: GPL-2.0
/*
 * demo-prog - the small program 'make demo' records as an ordinary user
 * ('tracebuf record -- /tests/demo-prog') and whose call trace it prints:
 * a recursion, calls through a function pointer (qsort's comparison), a
 * loop, and output through stdio.
 *
 *   demo-prog [N]    the Fibonacci number N (default 10) and a sorted list
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

struct fruit {
	const char *name;
	unsigned int grams;
};

static unsigned long fib(unsigned int n)
{
	return n < 2 ? n : fib(n - 1) + fib(n - 2);
}

static int by_weight(const void *a, const void *b)
{
	const struct fruit *x = a, *y = b;

	return (x->grams > y->grams) - (x->grams < y->grams);
}

static unsigned int total(const struct fruit *f, size_t n)
{
	unsigned int sum = 0;
	size_t i;

	for (i = 0; i < n; i++)
		sum += f[i].grams;
	return sum;
}

int main(int argc, char **argv)
{
	struct fruit basket[] = {
		{ "plum", 70 }, { "apple", 180 }, { "cherry", 8 },
		{ "pear", 160 }, { "fig", 50 },
	};
	size_t n = sizeof(basket) / sizeof(basket[0]), i;
	unsigned int k = argc > 1 ? (unsigned int)atoi(argv[1]) : 10;

	printf("fib(%u) = %lu\n", k, fib(k));
	qsort(basket, n, sizeof(basket[0]), by_weight);
	for (i = 0; i < n; i++)
		printf("%s%s", i ? ", " : "lightest first: ", basket[i].name);
	printf("\ntotal %u g\n", total(basket, n));
	return 0;
}
