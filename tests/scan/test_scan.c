/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * Scanner golden test: scans the library built from golden.S (argv[1]), its
 * stripped copy (argv[2]) and its object file (argv[3]); checks every
 * function's counts against the table below; checks that the stripped copy
 * gives identical per-function results through .eh_frame; feeds truncated,
 * corrupted and foreign inputs (errors, no crash); checks the suffix rule;
 * runs the vpk binary (argv[4]) for exit codes and "other files still
 * scanned".
 */
#include <errno.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/wait.h>

#include <vpk/scan.h>

#include "lib/check.h"

#define S(x) (1u << VPK_SCAN_##x)

struct golden {
	const char *name;
	int insns;              /* -1: not checked (resync after bad bytes) */
	uint64_t w128, w256, w512, h256, h512, opmask, avx512, amx;
	unsigned level;
	uint32_t subsets;
	int bad;                /* 0: none; 1: at least one */
	uint64_t assumed;
};

static const struct golden tab[] = {
	{ "g_scalar",        4, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0 },
	{ "g_sse",           4, 3, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0 },
	{ "g_avx2_light",    6, 0, 4, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0 },
	{ "g_avx2_fp",       4, 0, 2, 0, 2, 0, 0, 0, 0, 1, 0, 0, 0 },
	{ "g_avx2_fma",      3, 0, 1, 0, 1, 0, 0, 0, 0, 1, 0, 0, 0 },
	{ "g_avx2_imul",     4, 0, 2, 0, 2, 0, 0, 0, 0, 1, 0, 0, 0 },
	{ "g_avx2_gather",   3, 0, 1, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0 },
	{ "g_avx512_light",  7, 0, 0, 5, 0, 0, 0, 5, 0, 1, S(F) | S(BW), 0, 0 },
	{ "g_avx512_fp",     4, 0, 0, 2, 0, 2, 0, 2, 0, 2, S(F), 0, 0 },
	{ "g_avx512_fma",    3, 0, 0, 1, 0, 1, 0, 1, 0, 2, S(F), 0, 0 },
	{ "g_avx512_imul",   4, 0, 0, 2, 0, 2, 0, 2, 0, 2, S(DQ) | S(BW), 0, 0 },
	{ "g_avx512_cvt",    2, 0, 0, 1, 0, 1, 0, 1, 0, 2, S(F), 0, 0 },
	{ "g_avx512_fpmove", 5, 0, 0, 4, 0, 0, 0, 4, 0, 1, S(F) | S(DQ), 0, 0 },
	{ "g_avx512_round",  3, 1, 0, 1, 0, 1, 0, 2, 0, 2, S(F), 0, 0 },
	{ "g_evex_vl",       3, 1, 1, 0, 0, 0, 0, 2, 0, 0, S(F) | S(VL), 0, 0 },
	{ "g_opmask",        5, 0, 0, 0, 0, 0, 4, 4, 0, 0, S(F) | S(BW), 0, 0 },
	{ "g_disp8",         4, 0, 0, 3, 0, 0, 0, 3, 0, 1, S(F), 0, 0 },
	{ "g_gather512",     4, 0, 0, 2, 0, 0, 1, 3, 0, 1, S(F), 0, 0 },
	{ "g_vbmi",          5, 0, 0, 4, 0, 0, 0, 4, 0, 1, S(VBMI) | S(VBMI2), 0, 0 },
	{ "g_crypto",        3, 0, 0, 2, 0, 2, 0, 2, 0, 2, S(VAES) | S(VPCLMULQDQ), 0, 2 },
	{ "g_imm62",         6, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0 },
	{ "g_apx",          -1, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 1, 0 },
	{ "g_unknown",      -1, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 1, 0 },
	{ "g_amx",           2, 0, 0, 0, 0, 0, 0, 0, 1, 0, 0, 0, 0 },
	{ "g_loop",          7, 0, 0, 3, 0, 3, 0, 3, 0, 2, S(F), 0, 0 },
	{ "g_nocfi_avx512", -1, 0, 0, 1, 0, 0, 0, 1, 0, 1, S(F), 0, 0 },
};
#define NTAB (sizeof(tab) / sizeof(tab[0]))

static const struct vpk_scan_func *
find(const struct vpk_scan_report *r, const char *name)
{
	for (size_t i = 0; i < r->nfuncs; i++)
		if (strcmp(r->funcs[i].name, name) == 0)
			return &r->funcs[i];
	return NULL;
}

static const struct vpk_scan_func *
find_addr(const struct vpk_scan_report *r, uint64_t addr)
{
	for (size_t i = 0; i < r->nfuncs; i++)
		if (r->funcs[i].addr == addr)
			return &r->funcs[i];
	return NULL;
}

static void
check_golden(const struct vpk_scan_report *r, const char *what)
{
	for (size_t i = 0; i < NTAB; i++) {
		const struct golden *g = &tab[i];
		const struct vpk_scan_func *f = find(r, g->name);
		const struct vpk_scan_counts *c;

		CHECK(f != NULL, "%s: %s not found", what, g->name);
		if (f == NULL)
			continue;
		c = &f->c;
		if (g->insns >= 0)
			CHECK(c->insns == (uint64_t)g->insns, "%s: %s insns %llu want %d", what, g->name,
			      (unsigned long long)c->insns, g->insns);
		CHECK(c->w128 == g->w128 && c->w256 == g->w256 && c->w512 == g->w512,
		      "%s: %s widths 128/256/512 %llu/%llu/%llu want %llu/%llu/%llu", what, g->name,
		      (unsigned long long)c->w128, (unsigned long long)c->w256, (unsigned long long)c->w512,
		      (unsigned long long)g->w128, (unsigned long long)g->w256, (unsigned long long)g->w512);
		CHECK(c->heavy256 == g->h256 && c->heavy512 == g->h512, "%s: %s heavy %llu/%llu want %llu/%llu",
		      what, g->name, (unsigned long long)c->heavy256, (unsigned long long)c->heavy512,
		      (unsigned long long)g->h256, (unsigned long long)g->h512);
		CHECK(c->opmask == g->opmask, "%s: %s opmask %llu want %llu", what, g->name,
		      (unsigned long long)c->opmask, (unsigned long long)g->opmask);
		CHECK(c->avx512 == g->avx512, "%s: %s avx512 %llu want %llu", what, g->name,
		      (unsigned long long)c->avx512, (unsigned long long)g->avx512);
		CHECK(c->amx == g->amx, "%s: %s amx %llu", what, g->name, (unsigned long long)c->amx);
		CHECK(c->level == g->level, "%s: %s level %u want %u", what, g->name, c->level, g->level);
		CHECK(c->subsets == g->subsets, "%s: %s subsets 0x%x want 0x%x", what, g->name, c->subsets,
		      g->subsets);
		CHECK(g->bad ? c->bad_bytes > 0 : c->bad_bytes == 0, "%s: %s bad bytes %llu", what, g->name,
		      (unsigned long long)c->bad_bytes);
		CHECK(c->heavy_assumed == g->assumed, "%s: %s heavy_assumed %llu", what, g->name,
		      (unsigned long long)c->heavy_assumed);
		if (strcmp(g->name, "g_loop") == 0)
			CHECK(c->loops == 1 && c->heavy_in_loops == 2 && c->loop_heavy_pm == 500,
			      "%s: g_loop loops %llu heavy_in_loops %llu density %u/1000", what,
			      (unsigned long long)c->loops, (unsigned long long)c->heavy_in_loops, c->loop_heavy_pm);
		else if (g->insns >= 0)
			CHECK(c->loops == 0 && c->loop_heavy_pm == 0, "%s: %s has loops", what, g->name);
		if (strcmp(g->name, "g_nocfi_avx512") == 0)
			CHECK(f->src == VPK_SCAN_SRC_GAP, "%s: %s should be a gap (src %d)", what, g->name, f->src);
		else if (!r->is_rel)
			CHECK(f->src == VPK_SCAN_SRC_SYMTAB, "%s: %s src %d", what, g->name, f->src);
	}
}

/* The stripped copy: same per-function counts, found through .eh_frame (names are sub_<addr>). */
static void
check_stripped(const struct vpk_scan_report *full, const struct vpk_scan_report *st)
{
	CHECK(st->nsrc[VPK_SCAN_SRC_SYMTAB] == 0 && st->nsrc[VPK_SCAN_SRC_DYNSYM] == 0,
	      "stripped copy still has symbols (%zu/%zu)", st->nsrc[0], st->nsrc[1]);
	for (size_t i = 0; i < NTAB; i++) {
		const struct vpk_scan_func *f = find(full, tab[i].name), *s;

		if (f == NULL)
			continue;
		s = find_addr(st, f->addr);
		CHECK(s != NULL, "stripped: nothing at 0x%llx (%s)", (unsigned long long)f->addr, tab[i].name);
		if (s == NULL)
			continue;
		CHECK(s->src == (f->src == VPK_SCAN_SRC_GAP ? VPK_SCAN_SRC_GAP : VPK_SCAN_SRC_EH_FRAME),
		      "stripped: %s src %d", tab[i].name, s->src);
		CHECK(s->size == f->size, "stripped: %s size %llu vs %llu", tab[i].name,
		      (unsigned long long)s->size, (unsigned long long)f->size);
		CHECK(memcmp(&s->c, &f->c, sizeof(s->c)) == 0, "stripped: %s counts differ", tab[i].name);
	}
	CHECK(memcmp(&st->total, &full->total, sizeof(st->total)) == 0, "stripped: totals differ");
}

static uint8_t *
slurp(const char *path, size_t *len)
{
	FILE *f = fopen(path, "rb");
	uint8_t *p = NULL;
	long n;

	if (f == NULL)
		return NULL;
	if (fseek(f, 0, SEEK_END) == 0 && (n = ftell(f)) > 0 && fseek(f, 0, SEEK_SET) == 0 &&
	    (p = malloc((size_t)n)) != NULL && fread(p, 1, (size_t)n, f) != (size_t)n) {
		free(p);
		p = NULL;
	}
	if (p != NULL)
		*len = (size_t)n;
	fclose(f);
	return p;
}

static void
check_malformed(const char *path)
{
	struct vpk_scan_report *r = NULL;
	size_t len = 0;
	uint8_t *img = slurp(path, &len), *cp;
	static const size_t cuts[] = { 0, 1, 4, 16, 63, 64, 65, 200, 1000 };
	int rc;

	CHECK(img != NULL && len > 2000, "cannot read %s", path);
	if (img == NULL)
		return;
	/* Truncations: section headers sit at the end, so every cut must be an error. */
	for (size_t i = 0; i < sizeof(cuts) / sizeof(cuts[0]) + 2; i++) {
		size_t n = i < sizeof(cuts) / sizeof(cuts[0]) ? cuts[i] : i == sizeof(cuts) / sizeof(cuts[0]) ? len / 2 : len - 1;

		rc = vpk_scan_mem(img, n, "cut", 0, &r);
		CHECK(rc == (n < 4 ? -ENOEXEC : -EBADMSG), "truncated at %zu: rc %d", n, rc);
		if (rc == 0)
			vpk_scan_report_destroy(r);
	}
	cp = malloc(len);
	if (cp == NULL)
		return;
	memcpy(cp, img, len);
	cp[18] = 3;     /* e_machine = EM_386 */
	cp[19] = 0;
	CHECK(vpk_scan_mem(cp, len, "i386", 0, &r) == -ENOTSUP, "EM_386 accepted");
	memcpy(cp, img, len);
	cp[4] = 1;      /* ELFCLASS32 */
	CHECK(vpk_scan_mem(cp, len, "class32", 0, &r) == -ENOTSUP, "ELFCLASS32 accepted");
	CHECK(vpk_scan_mem("#!/bin/sh\n", 10, "script", 0, &r) == -ENOEXEC, "script accepted");
	/* Random corruption: any result but no crash (ASan/UBSan build), reports freed. */
	for (int t = 0; t < 300; t++) {
		memcpy(cp, img, len);
		for (int k = 0; k < 8; k++)
			cp[check_rand_range(len)] = (uint8_t)check_rand();
		rc = vpk_scan_mem(cp, len, "flip", 0, &r);
		CHECK(rc == 0 || rc == -EBADMSG || rc == -ENOTSUP || rc == -ENOEXEC, "flip: rc %d", rc);
		if (rc == 0)
			vpk_scan_report_destroy(r);
	}
	CHECK(vpk_scan_file("/nonexistent/x.so", 0, &r) == -ENOENT, "missing file");
	CHECK(vpk_scan_file("/", 0, &r) == -EISDIR, "directory");
	CHECK(vpk_scan_file(path, 1u << 30, &r) == -EINVAL, "unknown flag");
	free(cp);
	free(img);
}

static void
check_suffix_rule(void)
{
	static const char *const allow[] = { "_avx512" };
	static const struct { const char *name; bool ok; } cases[] = {
		{ "ip4_csum_check_bulk_avx512", true }, { "lookup_avx512icl", true },
		{ "classify_avx512x16", true }, { "classify_avx512x32", true }, { "f_avx512.cold", true },
		{ "f_avx512.constprop.0", true }, { "helper_avx512_tail", false }, { "memcpy", false },
		{ "foo_avx2", false }, { "avx512", false }, { "x_AVX512", false }, { "_avx512", true },
		{ "foo_avx512-bar", false }, { "a_avx512_b_avx512", true },
	};

	for (size_t i = 0; i < sizeof(cases) / sizeof(cases[0]); i++)
		CHECK(vpk_scan_name_allowed(cases[i].name, allow, 1) == cases[i].ok, "rule: %s", cases[i].name);
	CHECK(!vpk_scan_name_allowed(NULL, allow, 1), "NULL name");
}

/* Run the vpk binary; return its exit status, output in @out. */
static int
run(const char *cmd, char *out, size_t len)
{
	FILE *p = popen(cmd, "r");
	size_t n = 0;
	int st;

	if (p == NULL)
		return -1;
	while (n + 1 < len && !feof(p)) {
		size_t k = fread(out + n, 1, len - 1 - n, p);

		if (k == 0)
			break;
		n += k;
	}
	out[n] = '\0';
	while (fgetc(p) != EOF)
		;
	st = pclose(p);
	return WIFEXITED(st) ? WEXITSTATUS(st) : -1;
}

static void
check_cli(const char *vpk, const char *golden, const char *needer)
{
	static char out[1 << 16];
	char cmd[4096];
	int rc;

	snprintf(cmd, sizeof(cmd), "%s scan /nonexistent.so %s /etc/hostname 2>/dev/null", vpk, golden);
	rc = run(cmd, out, sizeof(out));
	CHECK(rc == 2, "bad file among good ones: exit %d, want 2", rc);
	CHECK(strstr(out, "g_avx512_fma") != NULL, "the good file was not scanned:\n%s", out);
	snprintf(cmd, sizeof(cmd), "%s --json scan --sort level %s", vpk, golden);
	rc = run(cmd, out, sizeof(out));
	CHECK(rc == 0, "--json: exit %d", rc);
	CHECK(strstr(out, "\"name\": \"g_avx512_fp\"") != NULL || strstr(out, "\"name\":\"g_avx512_fp\"") != NULL,
	      "--json output lacks g_avx512_fp:\n%.2000s", out);
	snprintf(cmd, sizeof(cmd), "%s scan --allow-suffix _avx512 %s 2>&1", vpk, golden);
	rc = run(cmd, out, sizeof(out));
	CHECK(rc == 1, "policy violation: exit %d, want 1", rc);
	CHECK(strstr(out, "policy: ") != NULL && strstr(out, "g_vbmi") != NULL &&
	      strstr(out, "g_opmask") != NULL, "policy lines missing:\n%.3000s", out);
	/* --deps: DT_NEEDED libscan_golden.so through DT_RUNPATH $ORIGIN, from another directory. */
	snprintf(cmd, sizeof(cmd), "cd / && LD_LIBRARY_PATH= %s scan --deps %s", vpk, needer);
	rc = run(cmd, out, sizeof(out));
	CHECK(rc == 0, "--deps: exit %d:\n%s", rc, out);
	CHECK(strstr(out, "libscan_golden.so  (needed by ") != NULL && strstr(out, "g_avx512_fma") != NULL,
	      "--deps did not follow DT_NEEDED via $ORIGIN:\n%.2000s", out);
	snprintf(cmd, sizeof(cmd), "%s scan --min-ratio 2 %s 2>/dev/null", vpk, golden);
	CHECK(run(cmd, out, sizeof(out)) == 2, "--min-ratio 2 accepted");
}

int
main(int argc, char **argv)
{
	struct vpk_scan_report *full = NULL, *st = NULL, *obj = NULL;
	int rc;

	check_init("scan");
	if (argc < 6) {
		fprintf(stderr, "usage: %s golden.so golden_stripped.so golden.o vpk needer.so\n", argv[0]);
		return 2;
	}
	rc = vpk_scan_file(argv[1], VPK_SCAN_NO_DEBUGFILE, &full);
	CHECK(rc == 0, "scan %s: %s", argv[1], vpk_scan_strerror(rc));
	if (rc == 0)
		check_golden(full, "shared");
	rc = vpk_scan_file(argv[3], 0, &obj);
	CHECK(rc == 0, "scan %s: %s", argv[3], vpk_scan_strerror(rc));
	if (rc == 0) {
		CHECK(obj->is_rel, "object not ET_REL");
		check_golden(obj, "object");
	}
	rc = vpk_scan_file(argv[2], VPK_SCAN_NO_DEBUGFILE, &st);
	CHECK(rc == 0, "scan %s: %s", argv[2], vpk_scan_strerror(rc));
	if (rc == 0 && full != NULL)
		check_stripped(full, st);
	check_malformed(argv[1]);
	check_suffix_rule();
	check_cli(argv[4], argv[1], argv[5]);
	vpk_scan_report_destroy(full);
	vpk_scan_report_destroy(st);
	vpk_scan_report_destroy(obj);
	return check_finish();
}
