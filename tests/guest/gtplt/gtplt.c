// SPDX-License-Identifier: GPL-2.0
/*
 * gtplt - a dynamically linked program for tests/guest/tool_gt.c: no libc
 * (every single-stepped instruction costs a ptrace step under TCG), its
 * own _start doing raw system calls, linked against libgtplt.so (found in
 * /tests by its DT_RUNPATH) with lazy binding, the system's dynamic loader
 * as PT_INTERP (tests/harness/build-guest.sh). The first call of
 * gtplt_mix() goes through its PLT into the loader's lazy-binding
 * resolver (_dl_runtime_resolve, then _dl_fixup), which binds the GOT slot
 * and jumps to the function; the second goes through the PLT straight to
 * it. Writes "gtplt R\n" and exits 0 if R is what the library computes.
 */
int gtplt_mix(int x);

#ifdef __x86_64__
/* The System V AMD64 ABI's process entry: %rsp at argc, 16-byte aligned. */
__asm__(".text\n.globl _start\n.type _start, @function\n_start:\n"
	"\txor %ebp, %ebp\n\tmov %rsp, %rdi\n\tand $-16, %rsp\n\tcall gtplt_main\n\thlt\n");
#define NR_WRITE	1
#define NR_EXIT_GROUP	231

static long sys3(long nr, long a, long b, long c)
{
	long r;

	__asm__ volatile("syscall" : "=a"(r) : "a"(nr), "D"(a), "S"(b), "d"(c)
			 : "rcx", "r11", "memory");
	return r;
}
#elif defined(__aarch64__)
/* AAPCS64's process entry: sp at argc, 16-byte aligned. */
__asm__(".text\n.globl _start\n.type _start, %function\n_start:\n"
	"\tmov x29, #0\n\tmov x30, #0\n\tmov x0, sp\n\tbl gtplt_main\n\tb .\n");
#define NR_WRITE	64
#define NR_EXIT_GROUP	94

static long sys3(long nr, long a, long b, long c)
{
	register long x8 __asm__("x8") = nr;
	register long x0 __asm__("x0") = a;
	register long x1 __asm__("x1") = b;
	register long x2 __asm__("x2") = c;

	__asm__ volatile("svc #0" : "+r"(x0) : "r"(x8), "r"(x1), "r"(x2) : "memory");
	return x0;
}
#else
#error "x86_64 and arm64 only"
#endif

__attribute__((noreturn, used)) void gtplt_main(long *sp);

__attribute__((noreturn, used)) void gtplt_main(long *sp)
{
	char buf[32], *p = buf + sizeof(buf);
	int r, v;

	(void)sp;
	r = gtplt_mix(5);		/* lazy binding: through the resolver */
	r += gtplt_mix(12);		/* bound: straight to the function */
	*--p = '\n';
	v = r;
	do
		*--p = (char)('0' + v % 10);
	while (v /= 10);
	p -= 6;
	__builtin_memcpy(p, "gtplt ", 6);
	sys3(NR_WRITE, 1, (long)p, buf + sizeof(buf) - p);
	/* gtplt_mix(5) = 5 -> 16 -> 49 -> 7 -> 1; gtplt_mix(12) = 12 -> 37 -> 112 -> 16 -> 49 */
	sys3(NR_EXIT_GROUP, r == 50 ? 0 : 1, 0, 0);
	for (;;)
		;
}
