/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * Golden input of the scanner test (tests/scan/test_scan.c): one function
 * per instruction class of the power-level table (docs/scan.md), plus the
 * awkward encodings: VEX-encoded opmask instructions, EVEX with compressed
 * displacement (disp8*N), gathers, VBMI/VBMI2 permutes, 0x62 bytes inside
 * immediates and displacements, embedded rounding, an APX EVEX integer
 * instruction and an instruction Zydis 4.0 does not know (raw bytes, since
 * binutils 2.40 cannot assemble them), and code without CFI.
 *
 * Every function has CFI, so a stripped copy (objcopy --strip-all) yields
 * the same boundaries from .eh_frame. The expected counts live in
 * test_scan.c; keep both in step (instruction counts include the ret).
 */
	.intel_syntax noprefix
#define FUNC(n) .globl n; .hidden n; .type n, @function; .p2align 4; n: .cfi_startproc
#define END(n) ret; .cfi_endproc; .size n, . - n

	.text
FUNC(g_scalar)                          /* 4: level 0, nothing vector */
	add rax, rbx
	imul rax, rcx
	lea rdx, [rax + rbx * 4 + 8]
END(g_scalar)

FUNC(g_sse)                             /* 4: 128-bit, level 0 even when "heavy" */
	addps xmm0, xmm1
	mulpd xmm2, xmm3
	pmulld xmm4, xmm5
END(g_sse)

FUNC(g_avx2_light)                      /* 6: 256-bit light, level 0 */
	vpaddd ymm0, ymm1, ymm2
	vpshufb ymm0, ymm0, ymm3
	vpermd ymm1, ymm2, ymm0
	vpand ymm2, ymm1, ymm0
	vzeroupper
END(g_avx2_light)

FUNC(g_avx2_fp)                         /* 4: 256-bit FP arithmetic, level 1 */
	vaddps ymm0, ymm1, ymm2
	vmulpd ymm3, ymm4, ymm5
	vzeroupper
END(g_avx2_fp)

FUNC(g_avx2_fma)                        /* 3: 256-bit FMA, level 1 */
	vfmadd231ps ymm0, ymm1, ymm2
	vzeroupper
END(g_avx2_fma)

FUNC(g_avx2_imul)                       /* 4: 256-bit integer multiply, level 1 */
	vpmulld ymm0, ymm1, ymm2
	vpmaddubsw ymm3, ymm4, ymm5
	vzeroupper
END(g_avx2_imul)

FUNC(g_avx2_gather)                     /* 3: AVX2 gather, 256-bit light */
	vpgatherdd ymm0, [rdi + ymm1 * 4], ymm2
	vzeroupper
END(g_avx2_gather)

FUNC(g_avx512_light)                    /* 7: 512-bit light, level 1; F BW */
	vpaddq zmm0, zmm1, zmm2
	vpternlogd zmm0, zmm1, zmm2, 0x96
	vpshufb zmm3, zmm0, zmm1
	vpcompressd zmm4{k1}{z}, zmm3
	vpcmpeqb k2, zmm0, zmm1
	vzeroupper
END(g_avx512_light)

FUNC(g_avx512_fp)                       /* 4: 512-bit FP, level 2 */
	vaddps zmm0, zmm1, zmm2
	vdivpd zmm3, zmm4, zmm5
	vzeroupper
END(g_avx512_fp)

FUNC(g_avx512_fma)                      /* 3: 512-bit FMA, level 2 */
	vfmadd231pd zmm0, zmm1, zmm2
	vzeroupper
END(g_avx512_fma)

FUNC(g_avx512_imul)                     /* 4: 512-bit integer multiply, level 2; F DQ BW */
	vpmullq zmm0, zmm1, zmm2
	vpmaddwd zmm3, zmm4, zmm5
	vzeroupper
END(g_avx512_imul)

FUNC(g_avx512_cvt)                      /* 2: vcvt* touching FP is heavy, level 2 */
	vcvtdq2ps zmm0, zmm1
END(g_avx512_cvt)

FUNC(g_avx512_fpmove)                   /* 5: FP element type but moves/logic/permute: light, level 1 */
	vmovaps zmm0, zmm1
	vandps zmm2, zmm0, zmm1
	vpermps zmm3, zmm2, zmm0
	vbroadcastss zmm4, xmm0
END(g_avx512_fpmove)

FUNC(g_avx512_round)                    /* 3: embedded rounding: zmm heavy (level 2), scalar xmm stays 128 */
	vaddps zmm0, zmm1, zmm2, {rn-sae}
	vaddsd xmm0, xmm1, xmm2, {rz-sae}
END(g_avx512_round)

FUNC(g_evex_vl)                         /* 3: EVEX on ymm16/xmm17: AVX-512 VL but 256/128-bit, level 0 */
	vpaddd ymm16, ymm17, ymm18
	vpxorq xmm17, xmm17, xmm17
END(g_evex_vl)

FUNC(g_opmask)                          /* 5: VEX-encoded k instructions: AVX-512, no width, level 0 */
	kmovw k1, eax
	kandw k2, k1, k1
	kortestw k1, k2
	kmovq rax, k1
END(g_opmask)

FUNC(g_disp8)                           /* 4: EVEX disp8*N (0x40 = 1*64, 0x100 = 4*64), level 1 */
	vmovdqu64 zmm0, [rdi + 0x40]
	vpaddd zmm1, zmm0, [rsi + 0x100]
	vmovdqu64 [rdi + 0x7fc0], zmm1
END(g_disp8)

FUNC(g_gather512)                       /* 4: 512-bit gather/scatter, light, level 1 */
	kxnorw k1, k1, k1
	vpgatherdd zmm0{k1}, [rdi + zmm1 * 4]
	vpscatterdd [rsi + zmm1 * 4]{k2}, zmm0
END(g_gather512)

FUNC(g_vbmi)                            /* 5: VBMI permutes + VBMI2, light, level 1 */
	vpermb zmm0, zmm1, zmm2
	vpermi2b zmm0, zmm1, zmm2
	vpcompressb zmm3{k1}, zmm0
	vpshldvq zmm4, zmm5, zmm6
END(g_vbmi)

FUNC(g_crypto)                          /* 3: VAES/VPCLMULQDQ zmm: heavy by assumption, level 2 */
	vaesenc zmm0, zmm1, zmm2
	vpclmulqdq zmm3, zmm4, zmm5, 0x11
END(g_crypto)

FUNC(g_imm62)                           /* 6: 0x62 inside immediates and displacements: not vector code */
	mov eax, 0x62626262
	movabs rcx, 0x6262626262626262
	cmp al, 0x62
	mov edx, [rip + 0x62626262]
	lea rsi, [rdi + 0x62]
END(g_imm62)

FUNC(g_apx)                             /* APX {evex} add rbx, rax (62 f4 fc 08 01 c3): not vector */
	.byte 0x62, 0xf4, 0xfc, 0x08, 0x01, 0xc3
	nop
END(g_apx)

FUNC(g_unknown)                         /* vpdpbssd ymm0, ymm1, ymm2 (AVX-VNNI-INT8): unknown to Zydis 4.0 */
	.byte 0xc4, 0xe2, 0x77, 0x50, 0xc2
	nop
	nop
END(g_unknown)

FUNC(g_amx)                             /* 2: AMX */
	tdpbssd tmm0, tmm1, tmm2
END(g_amx)

FUNC(g_loop)                            /* 7: loop body of 4 with 2 heavy zmm FMAs (500 per 1000), 1 FMA outside */
	vfmadd231pd zmm0, zmm1, zmm2
1:	vfmadd231pd zmm3, zmm1, zmm2
	vfmadd231pd zmm4, zmm1, zmm2
	dec ecx
	jnz 1b
	vzeroupper
END(g_loop)

/* No CFI and no size: only a gap covers it (named after its size-0 symbol). */
	.p2align 4
	.globl g_nocfi_avx512
g_nocfi_avx512:
	vpaddq zmm0, zmm0, zmm1
	vzeroupper
	ret
	.p2align 4

	.section .note.GNU-stack, "", @progbits
