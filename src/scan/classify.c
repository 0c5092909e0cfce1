/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * Instruction classification for the scanner: decode one x86-64 instruction
 * with Zydis 4.0 and say how wide it is, whether it is heavy, whether it
 * needs AVX-512 (and which subsets), and which power-licence level it asks
 * for.
 *
 * Width is the widest vector register operand (xmm/ymm/zmm), not EVEX.L'L:
 * with embedded rounding ({rn-sae}) the L'L bits encode the rounding mode.
 *
 * "Heavy" follows Intel's rule for the Skylake-SP licences (optimization
 * manual, "heavy = floating point, FMA and integer multiply"); no decoder
 * reports it, so this file holds the table (research/power.md §2.5):
 *   - FMA unit: vfmadd*, vfnmadd*, vfmsub*, vfnmsub*, vfmaddsub*, vfmsubadd*,
 *     vf[c]madd/mulc*, vdpbf16ps, v4f[n]madd*;
 *   - FP arithmetic, when an operand has a floating-point element type:
 *     add/sub/mul/div/sqrt/min/max/hadd/hsub/addsub/dp/rcp/rsqrt/round/
 *     rndscale/getexp/getmant/scalef/range/reduce/fixupimm/exp2/cmp and every
 *     vcvt* that reads or writes floating point;
 *   - the integer multiplier: vpmul*, vpmadd*, vpdp* (VNNI), vpsadbw,
 *     vdbpsadbw, vpclmulqdq, vgf2p8mulb, vpmultishiftqb;
 *   - assumed heavy (undocumented; flagged): vaes*, vgf2p8affine*,
 *     vpclmulqdq, vpmultishiftqb.
 * Everything else (integer add/logic/shift, vpternlog, shuffles, permutes,
 * compress/expand, gathers/scatters, compares, moves, broadcasts, popcnt,
 * conflict, FP moves/logic/blends) is light.
 */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <Zydis/Zydis.h>

#include "scan/scan_int.h"

/* Mnemonic prefixes, matched on the lower-case mnemonic. */
static const char *const fma_prefix[] = {
	"vfmadd", "vfnmadd", "vfmsub", "vfnmsub", "vfmaddsub", "vfmsubadd",
	"vfcmaddc", "vfmaddc", "vfcmulc", "vfmulc", "vdpbf16ps", "v4fmadd", "v4fnmadd", NULL
};
static const char *const fp_arith_prefix[] = {
	"vadd", "vsub", "vmul", "vdiv", "vsqrt", "vmin", "vmax", "vhadd", "vhsub", "vaddsub",
	"vdpp", "vrcp", "vrsqrt", "vround", "vrndscale", "vgetexp", "vgetmant", "vscalef",
	"vrange", "vreduce", "vfixupimm", "vcvt", "vexp2", "vcmp", NULL
};
static const char *const imul_prefix[] = {
	"vpmul", "vpmadd", "vpdp", "vpclmul", "vgf2p8mul", "vpsadbw", "vdbpsadbw",
	"vpmultishift", NULL
};
static const char *const assumed_prefix[] = {
	"vaes", "vgf2p8affine", "vpclmul", "vpmultishift", NULL
};

static bool
has_prefix(const char *s, const char *const *tab)
{
	for (; *tab != NULL; tab++)
		if (strncmp(s, *tab, strlen(*tab)) == 0)
			return true;
	return false;
}

/* Subset from Zydis's ISA-set name: "AVX512F_512" -> F, "AVX512_VBMI2_256" -> VBMI2. */
static const struct { const char *name; enum vpk_scan_subset s; } subset_tab[] = {
	{ "F", VPK_SCAN_F }, { "CD", VPK_SCAN_CD }, { "BW", VPK_SCAN_BW }, { "DQ", VPK_SCAN_DQ },
	{ "IFMA", VPK_SCAN_IFMA }, { "VBMI", VPK_SCAN_VBMI }, { "VBMI2", VPK_SCAN_VBMI2 },
	{ "VNNI", VPK_SCAN_VNNI }, { "BITALG", VPK_SCAN_BITALG }, { "VPOPCNTDQ", VPK_SCAN_VPOPCNTDQ },
	{ "GFNI", VPK_SCAN_GFNI }, { "VAES", VPK_SCAN_VAES }, { "VPCLMULQDQ", VPK_SCAN_VPCLMULQDQ },
	{ "BF16", VPK_SCAN_BF16 }, { "FP16", VPK_SCAN_FP16 }, { "VP2INTERSECT", VPK_SCAN_VP2INTERSECT },
	{ "ER", VPK_SCAN_ER }, { "PF", VPK_SCAN_PF }, { "4FMAPS", VPK_SCAN_4FMAPS },
	{ "4VNNIW", VPK_SCAN_4VNNIW },
};

static const char *const subset_names[VPK_SCAN_SUBSET_COUNT] = {
	"F", "CD", "BW", "DQ", "VL", "IFMA", "VBMI", "VBMI2", "VNNI", "BITALG", "VPOPCNTDQ",
	"GFNI", "VAES", "VPCLMULQDQ", "BF16", "FP16", "VP2INTERSECT", "ER", "PF", "4FMAPS", "4VNNIW"
};

const char *
vpk_scan_subset_name(unsigned subset)
{
	return subset < VPK_SCAN_SUBSET_COUNT ? subset_names[subset] : NULL;
}

static uint32_t
subsets_of(const char *isa_set, bool evex, unsigned width)
{
	const char *p = isa_set + 6;    /* after "AVX512" */
	const char *us;
	char name[16];
	size_t n;
	uint32_t bits = 0;

	if (*p == '_')
		p++;
	us = strrchr(p, '_');
	n = us != NULL ? (size_t)(us - p) : strlen(p);
	if (n >= sizeof(name))
		return 0;
	memcpy(name, p, n);
	name[n] = '\0';
	for (size_t i = 0; i < sizeof(subset_tab) / sizeof(subset_tab[0]); i++)
		if (strcmp(subset_tab[i].name, name) == 0)
			bits |= 1u << subset_tab[i].s;
	/* EVEX at 128/256 bits needs AVX512VL (the "_128N" sets are VL-free forms). */
	if (evex && us != NULL && (strcmp(us, "_128") == 0 || strcmp(us, "_256") == 0) &&
	    (width == 128 || width == 256))
		bits |= 1u << VPK_SCAN_VL;
	return bits;
}

void
vpk_scan_decoder_init(struct vpk_scan_decoder *d)
{
	ZydisDecoderInit((ZydisDecoder *)d->opaque, ZYDIS_MACHINE_MODE_LONG_64, ZYDIS_STACK_WIDTH_64);
}

int
vpk_scan_decode(const struct vpk_scan_decoder *d, const uint8_t *code, size_t len,
		struct vpk_scan_insn *out, int64_t *branch_disp)
{
	ZydisDecodedInstruction insn;
	ZydisDecodedOperand ops[ZYDIS_MAX_OPERAND_COUNT];
	const char *mn, *isa_set;
	bool fp = false;

	_Static_assert(sizeof(ZydisDecoder) <= sizeof(d->opaque), "decoder storage");
	memset(out, 0, sizeof(*out));
	if (!ZYAN_SUCCESS(ZydisDecoderDecodeFull((const ZydisDecoder *)d->opaque, code, len, &insn, ops)))
		return -EILSEQ;
	out->length = insn.length;
	if (branch_disp != NULL) {
		*branch_disp = INT64_MIN;
		if ((insn.meta.category == ZYDIS_CATEGORY_COND_BR || insn.meta.category == ZYDIS_CATEGORY_UNCOND_BR) &&
		    insn.operand_count_visible >= 1 && ops[0].type == ZYDIS_OPERAND_TYPE_IMMEDIATE &&
		    ops[0].imm.is_relative)
			*branch_disp = ops[0].imm.value.s;
	}
	mn = ZydisMnemonicGetString(insn.mnemonic);
	if (mn == NULL)
		mn = "?";
	snprintf(out->mnemonic, sizeof(out->mnemonic), "%s", mn);
	out->evex = insn.encoding == ZYDIS_INSTRUCTION_ENCODING_EVEX;
	for (unsigned i = 0; i < insn.operand_count_visible; i++) {
		const ZydisDecodedOperand *op = &ops[i];

		if (op->element_type == ZYDIS_ELEMENT_TYPE_FLOAT16 ||
		    op->element_type == ZYDIS_ELEMENT_TYPE_FLOAT32 ||
		    op->element_type == ZYDIS_ELEMENT_TYPE_FLOAT64)
			fp = true;
		if (op->type != ZYDIS_OPERAND_TYPE_REGISTER)
			continue;
		switch (ZydisRegisterGetClass(op->reg.value)) {
		case ZYDIS_REGCLASS_XMM:
			if (out->width < 128)
				out->width = 128;
			break;
		case ZYDIS_REGCLASS_YMM:
			if (out->width < 256)
				out->width = 256;
			break;
		case ZYDIS_REGCLASS_ZMM:
			out->width = 512;
			break;
		case ZYDIS_REGCLASS_TMM:
			out->amx = true;
			break;
		case ZYDIS_REGCLASS_MASK:
			/* A k register used as an operand (not as the {k} write mask of a vector op). */
			if (insn.meta.category == ZYDIS_CATEGORY_KMASK)
				out->opmask = true;
			break;
		default:
			break;
		}
	}
	if (insn.meta.category == ZYDIS_CATEGORY_KMASK)
		out->opmask = true;
	isa_set = ZydisISASetGetString(insn.meta.isa_set);
	if (insn.meta.isa_ext == ZYDIS_ISA_EXT_AVX512EVEX || insn.meta.isa_ext == ZYDIS_ISA_EXT_AVX512VEX ||
	    (isa_set != NULL && strncmp(isa_set, "AVX512", 6) == 0)) {
		out->avx512 = true;
		if (isa_set != NULL && strncmp(isa_set, "AVX512", 6) == 0)
			out->subsets = subsets_of(isa_set, out->evex, out->width);
		if (out->subsets == 0)
			out->subsets = 1u << VPK_SCAN_F;
	}
	if (out->width >= 256 || out->amx) {
		bool fma = has_prefix(out->mnemonic, fma_prefix);
		bool imul = has_prefix(out->mnemonic, imul_prefix);
		bool fpa = fp && has_prefix(out->mnemonic, fp_arith_prefix);

		out->heavy_assumed = has_prefix(out->mnemonic, assumed_prefix);
		out->heavy = fma || imul || fpa || out->heavy_assumed ||
			     insn.meta.category == ZYDIS_CATEGORY_VFMA;
	}
	if (out->width == 512)
		out->level = out->heavy ? 2 : 1;
	else if (out->width == 256)
		out->level = out->heavy ? 1 : 0;
	return 0;
}

int
vpk_scan_insn(const void *code, size_t len, struct vpk_scan_insn *out)
{
	struct vpk_scan_decoder d;

	if (code == NULL || out == NULL)
		return -EINVAL;
	vpk_scan_decoder_init(&d);
	return vpk_scan_decode(&d, code, len, out, NULL);
}

void
vpk_scan_count(struct vpk_scan_counts *c, const struct vpk_scan_insn *in)
{
	c->insns++;
	c->bytes += in->length;
	if (in->width == 128)
		c->w128++;
	else if (in->width == 256)
		c->w256++;
	else if (in->width == 512)
		c->w512++;
	if (in->heavy && in->width == 256)
		c->heavy256++;
	if (in->heavy && in->width == 512)
		c->heavy512++;
	if (in->heavy_assumed && in->width >= 256)
		c->heavy_assumed++;
	c->opmask += in->opmask;
	c->avx512 += in->avx512;
	c->amx += in->amx;
	if (strcmp(in->mnemonic, "vzeroupper") == 0 || strcmp(in->mnemonic, "vzeroall") == 0)
		c->vzeroupper++;
	c->subsets |= in->subsets;
	if (in->level > c->level)
		c->level = in->level;
}

/* The counters of struct vpk_scan_counts that add up over functions. */
#define SCAN_SUMS(X) X(insns) X(bytes) X(bad_bytes) X(w128) X(w256) X(w512) X(heavy256) X(heavy512) \
	X(heavy_assumed) X(opmask) X(avx512) X(amx) X(vzeroupper) X(loops) X(heavy_in_loops)

void
vpk_scan_counts_add(struct vpk_scan_counts *to, const struct vpk_scan_counts *c)
{
#define SCAN_ADD(f) to->f += c->f;
	SCAN_SUMS(SCAN_ADD)
#undef SCAN_ADD
	to->subsets |= c->subsets;
	if (c->level > to->level)
		to->level = c->level;
	if (c->loop_heavy_pm > to->loop_heavy_pm)
		to->loop_heavy_pm = c->loop_heavy_pm;
}

/*
 * Heavy density of loops: a relative branch back to an instruction boundary
 * of the same range closes a loop body [target, branch]. The densest body
 * (heavy instructions per 1000 instructions) is what decides whether the
 * heavy licence can be reached (about one heavy instruction per two cycles,
 * sustained); heavy instructions outside every loop run once per call.
 */
struct rec {
	uint32_t off;           /* offset of the instruction */
	uint32_t heavy_before;  /* heavy (>= 256-bit) instructions before it */
	int64_t target;         /* backward-branch target offset, or -1 */
};

static size_t
find_off(const struct rec *r, size_t n, uint64_t off)
{
	size_t lo = 0, hi = n;

	while (lo < hi) {
		size_t mid = lo + (hi - lo) / 2;

		if (r[mid].off < off)
			lo = mid + 1;
		else
			hi = mid;
	}
	return lo < n && r[lo].off == off ? lo : SIZE_MAX;
}

static void
loops(struct rec *r, size_t n, uint32_t heavy_total, struct vpk_scan_counts *c, const bool *heavy)
{
	int32_t *cover = calloc(n + 1, sizeof(*cover));
	int32_t depth = 0;

	if (cover == NULL)
		return;         /* loop figures stay 0; the counts above are unaffected */
	r[n].heavy_before = heavy_total;
	for (size_t i = 0; i < n; i++) {
		size_t j;
		uint64_t body, h, pm;

		if (r[i].target < 0 || (j = find_off(r, n, (uint64_t)r[i].target)) == SIZE_MAX || j > i)
			continue;
		c->loops++;
		body = i - j + 1;
		h = r[i + 1].heavy_before - r[j].heavy_before;
		pm = h * 1000 / body;
		if (pm > c->loop_heavy_pm)
			c->loop_heavy_pm = (uint32_t)pm;
		cover[j]++;
		cover[i + 1]--;
	}
	for (size_t i = 0; i < n; i++) {
		depth += cover[i];
		if (depth > 0 && heavy[i])
			c->heavy_in_loops++;
	}
	free(cover);
}

/*
 * Sweep [code, code+len) linearly; a byte that does not decode is counted
 * and skipped. Returns the number of instructions that are not padding
 * (nop, int3) plus bad bytes, so the caller can tell alignment filler from
 * real code.
 */
size_t
vpk_scan_sweep(const struct vpk_scan_decoder *d, const uint8_t *code, size_t len,
	       struct vpk_scan_counts *c)
{
	struct vpk_scan_insn in;
	size_t off = 0, real = 0, n = 0;
	uint32_t nheavy = 0;
	/* One record per instruction at most one per byte; small functions use the stack. */
	struct rec stack_r[256], *r = len < 255 ? stack_r : malloc((len + 1) * sizeof(*r));
	bool stack_h[256], *heavy = len < 255 ? stack_h : malloc(len + 1);

	if (len >= UINT32_MAX || r == NULL || heavy == NULL) {
		if (r != stack_r)
			free(r);
		if (heavy != stack_h)
			free(heavy);
		r = NULL;
		heavy = NULL;
	}
	while (off < len) {
		int64_t disp;

		if (vpk_scan_decode(d, code + off, len - off, &in, &disp) != 0) {
			c->bad_bytes++;
			c->bytes++;
			off++;
			continue;
		}
		vpk_scan_count(c, &in);
		if (strcmp(in.mnemonic, "nop") != 0 && strcmp(in.mnemonic, "int3") != 0)
			real++;
		if (r != NULL) {
			int64_t t = disp == INT64_MIN ? -1 : (int64_t)(off + in.length) + disp;

			r[n].off = (uint32_t)off;
			r[n].heavy_before = nheavy;
			r[n].target = t >= 0 && (uint64_t)t <= off ? t : -1;
			heavy[n] = in.heavy && in.width >= 256;
			nheavy += heavy[n];
			n++;
		}
		off += in.length;
	}
	if (r != NULL)
		loops(r, n, nheavy, c, heavy);
	if (r != stack_r)
		free(r);
	if (heavy != stack_h)
		free(heavy);
	return real + c->bad_bytes;
}

bool
vpk_scan_name_allowed(const char *name, const char *const *suffixes, size_t n)
{
	size_t base;

	if (name == NULL || suffixes == NULL)
		return false;
	base = strcspn(name, ".");
	for (size_t i = 0; i < n; i++) {
		size_t sl;

		if (suffixes[i] == NULL || (sl = strlen(suffixes[i])) == 0)
			continue;
		for (size_t at = 0; at + sl <= base; at++) {
			size_t k = at + sl;

			if (strncmp(name + at, suffixes[i], sl) != 0)
				continue;
			while (k < base && ((name[k] >= 'a' && name[k] <= 'z') || (name[k] >= '0' && name[k] <= '9')))
				k++;
			if (k == base)
				return true;
		}
	}
	return false;
}
