/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * vpk scan FILE... [--deps] [--json] [--sort ratio|count|level] [--min-ratio R]
 *                  [--all] [--allow-suffix SUFFIX]...
 *
 * Lists, per ELF file, the functions that hold 256-bit, 512-bit or AVX-512
 * code, with their share of wide instructions and the power-licence level
 * they can request (library: include/vpk/scan.h; reading guide:
 * docs/scan.md). This is the static analysis step of Gottschlag and
 * Bellosa's workflow (KIT, "Mechanism to Mitigate AVX-Induced Frequency
 * Reduction", §3.3): rank functions by the ratio of wide instructions.
 *
 * --allow-suffix turns it into a policy check: every function holding
 * AVX-512 instructions must be named after an allowed suffix
 * (vpk_scan_name_allowed()), else it is listed and the exit code is 1.
 *
 * Exit: 0 fine; 1 policy violations; 2 bad usage or a file that could not
 * be scanned (each such file gets one line on stderr; the others are still
 * scanned).
 */
#include <errno.h>
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <vpk/scan.h>

#include "common/json.h"
#include "scan/scan_deps.h"
#include "common/tool.h"

enum sort_key { SORT_RATIO, SORT_COUNT, SORT_LEVEL };

struct scan_opts {
	bool deps, all;
	enum sort_key sort;
	double min_ratio;
	const char *suffix[32];
	size_t nsuffix;
};

struct item {                   /* one scanned file */
	char *path;
	const char *needed_by;  /* NULL for files from the command line */
	struct vpk_scan_report *r;
	int err;
};

static double
wide_ratio(const struct vpk_scan_counts *c)
{
	return c->insns ? (double)(c->w256 + c->w512) / (double)c->insns : 0.0;
}

static double
pct(uint64_t n, uint64_t d)
{
	return d ? 100.0 * (double)n / (double)d : 0.0;
}

static enum sort_key g_sort;

static int
cmp_func(const void *pa, const void *pb)
{
	const struct vpk_scan_func *a = *(const struct vpk_scan_func *const *)pa;
	const struct vpk_scan_func *b = *(const struct vpk_scan_func *const *)pb;
	double ra = wide_ratio(&a->c), rb = wide_ratio(&b->c);
	uint64_t ca = a->c.w256 + a->c.w512, cb = b->c.w256 + b->c.w512;

	if (g_sort == SORT_LEVEL && a->c.level != b->c.level)
		return a->c.level > b->c.level ? -1 : 1;
	if (g_sort == SORT_COUNT && ca != cb)
		return ca > cb ? -1 : 1;
	if (ra != rb)
		return ra > rb ? -1 : 1;
	if (ca != cb)
		return ca > cb ? -1 : 1;
	return a->addr < b->addr ? -1 : a->addr > b->addr;
}

static bool
listed(const struct scan_opts *o, const struct vpk_scan_func *f)
{
	if (o->all)
		return true;
	if (f->c.bad_bytes > 0)         /* undecodable bytes may hide vector code: always shown */
		return true;
	if (f->c.w256 + f->c.w512 + f->c.avx512 + f->c.amx == 0)
		return false;
	return wide_ratio(&f->c) >= o->min_ratio;
}

static void
subsets_str(uint32_t bits, char *buf, size_t len)
{
	size_t o = 0;

	buf[0] = '\0';
	for (unsigned i = 0; i < VPK_SCAN_SUBSET_COUNT && o + 1 < len; i++)
		if (bits & (1u << i))
			o += (size_t)snprintf(buf + o, len - o, "%s%s", o ? "," : "", vpk_scan_subset_name(i));
}

static const char *const src_name[VPK_SCAN_SRC_COUNT] = { "symtab", "dynsym", "debug", "eh_frame", "gap" };
static const char *const src_short[VPK_SCAN_SRC_COUNT] = { "sym", "dyn", "dbg", "eh", "gap" };

static bool
violates(const struct scan_opts *o, const struct vpk_scan_func *f)
{
	return o->nsuffix > 0 && f->c.avx512 > 0 && !vpk_scan_name_allowed(f->name, o->suffix, o->nsuffix);
}

static void
print_table(const struct scan_opts *o, const struct item *it, const struct vpk_scan_func **v, size_t nv)
{
	const struct vpk_scan_report *r = it->r;
	const struct vpk_scan_counts *t = &r->total;
	char sub[160];

	printf("== %s%s%s%s\n", it->path, it->needed_by ? "  (needed by " : "",
	       it->needed_by ? it->needed_by : "", it->needed_by ? ")" : "");
	printf("   functions %zu (symtab %zu, dynsym %zu, debug file %zu, eh_frame only %zu, gaps %zu)%s%s\n",
	       r->nfuncs, r->nsrc[0], r->nsrc[1], r->nsrc[2], r->nsrc[3], r->nsrc[4],
	       r->debug_file ? "  names from " : "", r->debug_file ? r->debug_file : "");
	subsets_str(t->subsets, sub, sizeof(sub));
	printf("   insns %llu  128-bit %llu (%.1f%%)  256-bit %llu (%.1f%%)  512-bit %llu (%.1f%%)  AVX-512 %llu"
	       "  opmask %llu  heavy 256/512 %llu/%llu  undecodable bytes %llu  level %u%s%s%s\n",
	       (unsigned long long)t->insns, (unsigned long long)t->w128, pct(t->w128, t->insns),
	       (unsigned long long)t->w256, pct(t->w256, t->insns), (unsigned long long)t->w512,
	       pct(t->w512, t->insns), (unsigned long long)t->avx512, (unsigned long long)t->opmask,
	       (unsigned long long)t->heavy256, (unsigned long long)t->heavy512,
	       (unsigned long long)t->bad_bytes, t->level, sub[0] ? "  AVX-512 subsets " : "", sub,
	       t->amx ? "  AMX" : "");
	if (nv == 0) {
		printf("   (no function with 256-bit, 512-bit or AVX-512 code%s)\n", o->min_ratio > 0 ? " above --min-ratio" : "");
		return;
	}
	printf("   lvl  %%512  %%256  %%128   insns  h512  h256 hloop%%  kops  bad vz src  function [AVX-512 subsets]\n");
	for (size_t i = 0; i < nv; i++) {
		const struct vpk_scan_counts *c = &v[i]->c;

		subsets_str(c->subsets, sub, sizeof(sub));
		if (c->amx)
			snprintf(sub + strlen(sub), sizeof(sub) - strlen(sub), "%sAMX", sub[0] ? "," : "");
		printf("   %u%c  %5.1f %5.1f %5.1f %7llu %5llu %5llu %6.1f %5llu %4llu %s  %-3s  %s%s%s%s%s\n", c->level,
		       c->heavy_assumed ? '?' : ' ', pct(c->w512, c->insns), pct(c->w256, c->insns),
		       pct(c->w128, c->insns), (unsigned long long)c->insns, (unsigned long long)c->heavy512,
		       (unsigned long long)c->heavy256, c->loop_heavy_pm / 10.0, (unsigned long long)c->opmask,
		       (unsigned long long)c->bad_bytes, c->vzeroupper ? "y" : "-", src_short[v[i]->src],
		       v[i]->name, sub[0] ? " [" : "", sub, sub[0] ? "]" : "", violates(o, v[i]) ? "  <- policy" : "");
	}
}

static void
json_counts(struct json *j, const struct vpk_scan_counts *c)
{
	char sub[160];

	json_fields(j, JU("insns", c->insns), JU("bytes", c->bytes), JU("bad_bytes", c->bad_bytes),
		       JU("w128", c->w128), JU("w256", c->w256), JU("w512", c->w512),
		       JD("wide_ratio", wide_ratio(c)), JU("heavy256", c->heavy256),
		       JU("heavy512", c->heavy512), JU("heavy_assumed", c->heavy_assumed),
		       JU("opmask", c->opmask), JU("avx512", c->avx512), JU("amx", c->amx),
		       JU("vzeroupper", c->vzeroupper), JU("level", c->level), JU("loops", c->loops),
		       JU("heavy_in_loops", c->heavy_in_loops),
		       JD("loop_heavy_share", c->loop_heavy_pm / 1000.0));
	json_arr(j, "subsets");
	for (unsigned i = 0; i < VPK_SCAN_SUBSET_COUNT; i++)
		if (c->subsets & (1u << i))
			json_str(j, NULL, vpk_scan_subset_name(i));
	json_end(j);
	(void)sub;
}

static void
json_file(struct json *j, const struct scan_opts *o, const struct item *it,
	  const struct vpk_scan_func **v, size_t nv)
{
	const struct vpk_scan_report *r = it->r;
	char addr[32];

	json_obj(j, NULL);
	json_str(j, "path", it->path);
	if (it->needed_by)
		json_str(j, "needed_by", it->needed_by);
	json_obj(j, "functions_by_source");
	for (unsigned s = 0; s < VPK_SCAN_SRC_COUNT; s++)
		json_u64(j, src_name[s], r->nsrc[s]);
	json_end(j);
	if (r->debug_file)
		json_str(j, "debug_file", r->debug_file);
	json_arr(j, "needed");
	for (size_t i = 0; i < r->nneeded; i++)
		json_str(j, NULL, r->needed[i]);
	json_end(j);
	json_obj(j, "total");
	json_counts(j, &r->total);
	json_end(j);
	json_arr(j, "functions");
	for (size_t i = 0; i < nv; i++) {
		json_obj(j, NULL);
		json_str(j, "name", v[i]->name);
		snprintf(addr, sizeof(addr), "0x%llx", (unsigned long long)v[i]->addr);
		json_fields(j, JS("addr", addr), JU("size", v[i]->size), JS("section", v[i]->section),
			       JS("source", src_name[v[i]->src]));
		json_counts(j, &v[i]->c);
		if (o->nsuffix)
			json_bool(j, "policy_violation", violates(o, v[i]));
		json_end(j);
	}
	json_end(j);
	json_end(j);
}

static int
parse(int argc, char **argv, struct scan_opts *o, char ***files, size_t *nfiles)
{
	*files = calloc((size_t)argc + 1, sizeof(char *));
	if (*files == NULL)
		return vpk_fail(VPK_EXIT_FAIL, "out of memory");
	for (int i = 1; i < argc; i++) {
		const char *a = argv[i], *val = NULL;

		if (strcmp(a, "--deps") == 0) {
			o->deps = true;
			continue;
		}
		if (strcmp(a, "--all") == 0) {
			o->all = true;
			continue;
		}
		if (strncmp(a, "--", 2) != 0) {
			(*files)[(*nfiles)++] = argv[i];
			continue;
		}
		val = strchr(a, '=');
		if (val != NULL)
			val++;
		else if (i + 1 < argc)
			val = argv[++i];
		else
			return vpk_fail(VPK_EXIT_USAGE, "scan: %s needs a value", a);
		if (strncmp(a, "--sort", 6) == 0 && (a[6] == '=' || a[6] == '\0')) {
			if (strcmp(val, "ratio") == 0)
				o->sort = SORT_RATIO;
			else if (strcmp(val, "count") == 0)
				o->sort = SORT_COUNT;
			else if (strcmp(val, "level") == 0)
				o->sort = SORT_LEVEL;
			else
				return vpk_fail(VPK_EXIT_USAGE, "scan: --sort %s: must be ratio, count or level", val);
		} else if (strncmp(a, "--min-ratio", 11) == 0 && (a[11] == '=' || a[11] == '\0')) {
			if (!vpk_opt_f64("scan: --min-ratio", val, 0, 1, &o->min_ratio))
				return VPK_EXIT_USAGE;
		} else if (strncmp(a, "--allow-suffix", 14) == 0 && (a[14] == '=' || a[14] == '\0')) {
			if (val[0] == '\0' || o->nsuffix == sizeof(o->suffix) / sizeof(o->suffix[0]))
				return vpk_fail(VPK_EXIT_USAGE, "scan: --allow-suffix: empty or too many");
			o->suffix[o->nsuffix++] = val;
		} else {
			return vpk_fail(VPK_EXIT_USAGE, "scan: unknown option %s", a);
		}
	}
	if (*nfiles == 0)
		return vpk_fail(VPK_EXIT_USAGE,
				"usage: vpk scan FILE... [--deps] [--json] [--sort ratio|count|level] [--min-ratio R] "
				"[--all] [--allow-suffix SUFFIX]...");
	return 0;
}

static int
cmd_scan(int argc, char **argv)
{
	struct scan_opts o = { .sort = SORT_RATIO };
	char **files = NULL;
	size_t nfiles = 0, n = 0, cap = 0, nerr = 0, nviol = 0;
	struct item *it = NULL;
	const char *root_rpath = NULL;
	int rc = parse(argc, argv, &o, &files, &nfiles);
	struct json j;

	if (rc != 0)
		goto out;
	g_sort = o.sort;
	/* Breadth-first: command-line files, then (with --deps) what they need. */
	cap = nfiles + 16;
	it = calloc(cap, sizeof(*it));
	if (it == NULL) {
		rc = vpk_fail(VPK_EXIT_FAIL, "out of memory");
		goto out;
	}
	for (; n < nfiles; n++)
		it[n].path = strdup(files[n]);
	for (size_t i = 0; i < n; i++) {
		if (it[i].path == NULL) {
			rc = vpk_fail(VPK_EXIT_FAIL, "out of memory");
			goto out;
		}
		it[i].err = vpk_scan_file(it[i].path, 0, &it[i].r);
		if (it[i].err != 0) {
			nerr++;
			fprintf(stderr, "vpk scan: %s: %s\n", it[i].path, vpk_scan_strerror(it[i].err));
			continue;
		}
		if (i == 0)
			root_rpath = it[i].r->rpath;
		for (size_t k = 0; o.deps && k < it[i].r->nneeded; k++) {
			char found[PATH_MAX], real[PATH_MAX];
			bool seen = false;

			if (deps_resolve(it[i].r->needed[k], it[i].r, it[i].path, root_rpath, found, sizeof(found)) != 0) {
				nerr++;
				fprintf(stderr, "vpk scan: %s: needed library %s not found\n", it[i].path,
					it[i].r->needed[k]);
				continue;
			}
			if (realpath(found, real) == NULL)
				snprintf(real, sizeof(real), "%s", found);
			for (size_t m = 0; m < n && !seen; m++) {
				char other[PATH_MAX];

				seen = realpath(it[m].path, other) != NULL && strcmp(other, real) == 0;
			}
			if (seen)
				continue;
			if (n == cap) {
				struct item *p;

				cap = cap ? 2 * cap : 16;
				p = realloc(it, cap * sizeof(*it));
				if (p == NULL) {
					rc = vpk_fail(VPK_EXIT_FAIL, "out of memory");
					goto out;
				}
				it = p;
			}
			it[n++] = (struct item){ .path = strdup(found), .needed_by = it[i].path };
		}
	}

	if (vpk_opts.json) {
		json_init(&j, stdout);
		json_obj(&j, NULL);
		json_arr(&j, "files");
	}
	for (size_t i = 0; i < n; i++) {
		const struct vpk_scan_func **v;
		size_t nv = 0;

		if (it[i].r == NULL)
			continue;
		v = calloc(it[i].r->nfuncs + 1, sizeof(*v));
		if (v == NULL) {
			rc = vpk_fail(VPK_EXIT_FAIL, "out of memory");
			goto out;
		}
		for (size_t k = 0; k < it[i].r->nfuncs; k++) {
			if (listed(&o, &it[i].r->funcs[k]) || violates(&o, &it[i].r->funcs[k]))
				v[nv++] = &it[i].r->funcs[k];
			nviol += violates(&o, &it[i].r->funcs[k]);
		}
		if (nv > 1)
			qsort(v, nv, sizeof(*v), cmp_func);
		if (vpk_opts.json)
			json_file(&j, &o, &it[i], v, nv);
		else
			print_table(&o, &it[i], v, nv);
		free(v);
	}
	if (vpk_opts.json) {
		json_end(&j);
		json_arr(&j, "errors");
		for (size_t i = 0; i < n; i++)
			if (it[i].err != 0) {
				json_obj(&j, NULL);
				json_str(&j, "path", it[i].path);
				json_str(&j, "error", vpk_scan_strerror(it[i].err));
				json_end(&j);
			}
		json_end(&j);
		if (o.nsuffix) {
			json_obj(&j, "policy");
			json_arr(&j, "allowed_suffixes");
			for (size_t s = 0; s < o.nsuffix; s++)
				json_str(&j, NULL, o.suffix[s]);
			json_end(&j);
			json_u64(&j, "violations", nviol);
			json_end(&j);
		}
		json_end(&j);
		json_done(&j);
	}
	if (o.nsuffix) {
		for (size_t i = 0; i < n; i++)
			for (size_t k = 0; it[i].r != NULL && k < it[i].r->nfuncs; k++) {
				const struct vpk_scan_func *f = &it[i].r->funcs[k];
				char sub[160];

				if (!violates(&o, f))
					continue;
				subsets_str(f->c.subsets, sub, sizeof(sub));
				fprintf(stderr, "vpk scan: policy: %s: %s (0x%llx, %s) holds %llu AVX-512 instructions [%s]\n",
					it[i].path, f->name, (unsigned long long)f->addr, src_name[f->src],
					(unsigned long long)f->c.avx512, sub);
			}
		if (nviol == 0 && !vpk_opts.json)
			printf("policy: no AVX-512 instruction outside functions named *%s*%s\n", o.suffix[0],
			       o.nsuffix > 1 ? " (or the other allowed suffixes)" : "");
	}
	rc = nerr ? VPK_EXIT_USAGE : nviol ? VPK_EXIT_FAIL : VPK_EXIT_OK;
out:
	for (size_t i = 0; i < n; i++) {
		vpk_scan_report_destroy(it[i].r);
		free(it[i].path);
	}
	free(it);
	free(files);
	deps_free_cache();
	return rc;
}

VPK_CMD(scan, "scan", "find 256/512-bit and AVX-512 code in ELF files and the power level it demands", cmd_scan);
