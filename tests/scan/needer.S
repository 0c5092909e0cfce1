/* SPDX-License-Identifier: BSD-3-Clause */
/* A library whose only purpose is DT_NEEDED libscan_golden.so with DT_RUNPATH $ORIGIN (vpk scan --deps test). */
	.text
	.globl needer_fn
	.type needer_fn, @function
needer_fn:
	.cfi_startproc
	ret
	.cfi_endproc
	.size needer_fn, . - needer_fn
	.section .note.GNU-stack, "", @progbits
