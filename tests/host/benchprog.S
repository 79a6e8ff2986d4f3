/* SPDX-License-Identifier: GPL-2.0 */
/*
 * benchprog - the loop whose trace benchcap.c writes for the decoder
 * benchmark (tests/harness/bench-decode.sh). Assembled, never run:
 *   gcc -nostdlib -static -no-pie -Wl,--build-id -o benchprog benchprog.S
 */
	.text
	.globl	_start
_start:
outer:	mov	$8, %ecx
inner:	call	f
	dec	%ecx
	jnz	inner
	call	*fptr(%rip)
	jmp	outer
	.type	f, @function
f:	mov	$16, %eax
1:	dec	%eax
	jnz	1b
	ret
	.size	f, . - f
	.type	g, @function
g:	ret
	.size	g, . - g

	.data
fptr:	.quad	g
	.section .note.GNU-stack, "", @progbits
