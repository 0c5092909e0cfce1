/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * vpk-fib-ab: old-vs-new A/B of two libvpk.so builds in one process (session
 * 6, bm16). Both libraries are dlopen()ed with RTLD_DEEPBIND, each builds a
 * FIB of the given layout from the same routes, and the timed runs alternate
 * between them round by round, so machine load hits both alike:
 *
 *   vpk-fib-ab A/libvpk.so B/libvpk.so ROUTES [-b bm16|dir] [-e NH_SIZE]
 *              [-v VARIANT] [-l KEYS] [-R ROUNDS] [-U]
 *
 * Per round and library: in-table keys (a random route, random host bits)
 * and uniformly random keys, TSC cycles per lookup over the whole array;
 * unless -U, address-order adds and deletes of every route (cycles per
 * route; the first fill of a fresh object, then a second fill of the same
 * object). Prints JSON: the median of the rounds per library and the ratio
 * B / A. Answers of A and B are compared on every key set (exit 1 if they
 * differ).
 */
#include <dlfcn.h>
#include <errno.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <x86intrin.h>

#include <vpk/fib.h>

#include "bench.h"
#include "core/num.h"
#include "fib/fib_file.h"

struct lib {
	const char *path;
	void *h;
	int (*create)(const struct vpk_fib_conf *, struct vpk_fib **);
	void (*fr)(struct vpk_fib *);
	int (*add)(struct vpk_fib *, uint32_t, uint8_t, uint64_t);
	int (*del)(struct vpk_fib *, uint32_t, uint8_t);
	void (*lookup)(const struct vpk_fib *, const uint32_t *, uint64_t *, size_t);
	int (*select)(struct vpk_fib *, const char *);
	struct vpk_fib *fib;
};

struct route { uint32_t ip; uint8_t depth; uint32_t nh; };

#define MAXR 100

static uint64_t rng = 88172645463325252u;

static uint64_t
rnd(void)
{
	rng ^= rng << 13;
	rng ^= rng >> 7;
	rng ^= rng << 17;
	return rng;
}

static int
by_addr(const void *a, const void *b)
{
	const struct route *x = a, *y = b;

	return x->ip != y->ip ? (x->ip < y->ip ? -1 : 1) : (int)x->depth - (int)y->depth;
}

static int
load_lib(struct lib *l)
{
	l->h = dlopen(l->path, RTLD_NOW | RTLD_LOCAL | RTLD_DEEPBIND);
	if (l->h == NULL) {
		fprintf(stderr, "vpk-fib-ab: %s\n", dlerror());
		return -1;
	}
	*(void **)&l->create = dlsym(l->h, "vpk_fib_create");
	*(void **)&l->fr = dlsym(l->h, "vpk_fib_free");
	*(void **)&l->add = dlsym(l->h, "vpk_fib_add");
	*(void **)&l->del = dlsym(l->h, "vpk_fib_del");
	*(void **)&l->lookup = dlsym(l->h, "vpk_fib_lookup_bulk");
	*(void **)&l->select = dlsym(l->h, "vpk_fib_select");
	if (!l->create || !l->fr || !l->add || !l->del || !l->lookup || !l->select) {
		fprintf(stderr, "vpk-fib-ab: %s: missing vpk_fib_* symbols\n", l->path);
		return -1;
	}
	return 0;
}

/* The route file (dpdk-test-fib format; errors name file:line), in address order. */
static struct route *
load_routes(const char *path, uint64_t max_nh, size_t *n)
{
	struct fib_file_routes fr;
	char err[512];

	if (vpk_fib_file_load_routes(path, 4, &fr, err, sizeof(err)) != 0) {
		fprintf(stderr, "vpk-fib-ab: %s\n", err);
		exit(2);
	}
	struct route *rt = malloc((fr.n + 1) * sizeof(*rt));
	if (rt == NULL)
		exit(2);
	for (size_t k = 0; k < fr.n; k++) {
		const uint8_t *a = fr.r[k].addr;
		rt[k].ip = (uint32_t)a[0] << 24 | (uint32_t)a[1] << 16 | (uint32_t)a[2] << 8 | a[3];
		rt[k].depth = fr.r[k].depth;
		/* as bench fib: next hops that fit every entry width */
		rt[k].nh = (uint32_t)(1 + (fr.r[k].has_nh ? fr.r[k].nh : rnd()) % (max_nh < 127 ? max_nh : 127));
	}
	qsort(rt, fr.n, sizeof(*rt), by_addr);
	*n = fr.n;
	vpk_fib_file_free_routes(&fr);
	return rt;
}

static int
fill(struct lib *l, const struct route *rt, size_t n)
{
	for (size_t i = 0; i < n; i++)
		if (l->add(l->fib, rt[i].ip, rt[i].depth, rt[i].nh) != 0)
			return -1;
	return 0;
}

/*
 * Huge pages (kB) in the mappings of at least 512 MiB (the bm16 arenas, A's
 * first), to stderr: a table on 4 KiB pages is slower, and THP may fail on a
 * fragmented machine.
 */
static void
report_thp(void)
{
	FILE *f = fopen("/proc/self/smaps", "r");
	char line[512];
	unsigned long size = 0;

	if (f == NULL)
		return;
	while (fgets(line, sizeof(line), f)) {
		/* "Size:   2048 kB", "AnonHugePages:  2048 kB" */
		const char *colon = strchr(line, ':'), *p = colon != NULL ? colon + 1 + strspn(colon + 1, " \t") : NULL;
		uint64_t v;

		if (p == NULL || vpk_num_u64n(p, strcspn(p, " \n"), 0, UINT64_MAX, &v, NULL, 0) != 0)
			continue;
		if (strncmp(line, "Size:", 5) == 0)
			size = (unsigned long)v;
		else if (strncmp(line, "AnonHugePages:", 14) == 0 && size >= (512ul << 10))
			fprintf(stderr, "vpk-fib-ab: mapping of %lu MiB: %lu MiB on huge pages\n", size >> 10,
				(unsigned long)v >> 10);
	}
	fclose(f);
}

int
main(int argc, char **argv)
{
	struct lib L[2] = { { .path = NULL }, { .path = NULL } };
	const char *routes = NULL, *variant = "auto";
	enum vpk_fib_type type = VPK_FIB_BM16;
	unsigned nh_size = 2, rounds = 5;
	size_t nk = 4000000, nr;
	bool upd = true;
	int pos = 0, code = 0;

	for (int i = 1; i < argc; i++) {
		if (strcmp(argv[i], "-U") == 0)
			upd = false;
		else if (argv[i][0] == '-' && i + 1 < argc) {
			const char *v = argv[++i];
			switch (argv[i - 1][1]) {
			case 'b':
				if (strcmp(v, "dir") != 0 && strcmp(v, "bm16") != 0)
					goto usage;
				type = strcmp(v, "dir") == 0 ? VPK_FIB_DIR24_8 : VPK_FIB_BM16;
				break;
			case 'e':
				if (vpk_num_uint(v, 1, 8, &nh_size, NULL, 0) != 0 ||
				    (nh_size != 1 && nh_size != 2 && nh_size != 4 && nh_size != 8))
					goto usage;
				break;
			case 'v': variant = v; break;
			case 'l':
				if (vpk_num_size(v, 1, (size_t)1 << 31, &nk, NULL, 0) != 0)
					goto usage;
				break;
			case 'R':
				if (vpk_num_uint(v, 1, MAXR, &rounds, NULL, 0) != 0)
					goto usage;
				break;
			default: goto usage;
			}
		} else if (pos < 2) {
			L[pos++].path = argv[i];
		} else if (routes == NULL) {
			routes = argv[i];
		} else {
			goto usage;
		}
	}
	if (pos < 2 || routes == NULL || rounds == 0 || rounds > MAXR || nk == 0)
		goto usage;
	if (load_lib(&L[0]) != 0 || load_lib(&L[1]) != 0)
		return 2;
	uint64_t max_nh = nh_size >= 4 ? 1000000 : (UINT64_C(1) << (8 * nh_size - 1)) - 1;
	struct route *rt = load_routes(routes, max_nh, &nr);
	if (nr == 0)
		goto usage;
	struct vpk_fib_conf conf = { .type = type, .nh_size = nh_size, .num_tbl8 = nh_size == 1 ? 127 : 16384,
				     .max_routes = (uint32_t)nr };
	for (int j = 0; j < 2; j++) {
		if (L[j].create(&conf, &L[j].fib) != 0 || fill(&L[j], rt, nr) != 0 ||
		    L[j].select(L[j].fib, variant) != 0) {
			fprintf(stderr, "vpk-fib-ab: %s: create/fill/select %s failed\n", L[j].path, variant);
			return 2;
		}
	}
	report_thp();
	uint32_t *keys[2];
	uint64_t *out[2];
	static const char *const kname[2] = { "in-table", "random" };
	for (int k = 0; k < 2; k++) {
		keys[k] = malloc(nk * sizeof(uint32_t));
		out[k] = malloc(nk * 8);
		for (size_t i = 0; i < nk; i++) {
			const struct route *r = &rt[rnd() % nr];
			uint32_t host = r->depth == 32 ? 0 : (uint32_t)rnd() & (~(uint32_t)0 >> r->depth);
			keys[k][i] = k == 0 ? r->ip | host : (uint32_t)rnd();
		}
	}
	uint64_t *o2 = malloc(nk * 8);
	for (int k = 0; k < 2; k++) {
		L[0].lookup(L[0].fib, keys[k], out[k], nk);
		L[1].lookup(L[1].fib, keys[k], o2, nk);
		if (memcmp(out[k], o2, nk * 8) != 0) {
			fprintf(stderr, "vpk-fib-ab: %s keys: the two libraries answer differently\n", kname[k]);
			code = 1;
		}
	}
	static double cyc[2][2][MAXR], ua[2][4][MAXR];
	for (unsigned r = 0; r < rounds; r++)
		for (int j0 = 0; j0 < 2; j0++) {
			int j = (int)(r + (unsigned)j0) % 2;    /* alternate who goes first */
			for (int k = 0; k < 2; k++) {
				uint64_t t0 = __rdtsc();
				L[j].lookup(L[j].fib, keys[k], o2, nk);
				cyc[j][k][r] = (double)(__rdtsc() - t0) / (double)nk;
			}
		}
	for (unsigned r = 0; upd && r < rounds; r++)
		for (int j0 = 0; j0 < 2; j0++) {
			int j = (int)(r + (unsigned)j0) % 2;
			struct vpk_fib *f;
			if (L[j].create(&conf, &f) != 0)
				return 2;
			struct vpk_fib *keep = L[j].fib;
			L[j].fib = f;
			for (int pass = 0; pass < 2; pass++) {          /* fresh, then warm */
				uint64_t t0 = __rdtsc();
				if (fill(&L[j], rt, nr) != 0)
					return 2;
				uint64_t t1 = __rdtsc();
				for (size_t i = 0; i < nr; i++)
					L[j].del(f, rt[i].ip, rt[i].depth);
				uint64_t t2 = __rdtsc();
				ua[j][2 * pass][r] = (double)(t1 - t0) / (double)nr;
				ua[j][2 * pass + 1][r] = (double)(t2 - t1) / (double)nr;
			}
			L[j].fr(f);
			L[j].fib = keep;
		}
	printf("{\"a\": \"%s\", \"b\": \"%s\", \"routes\": %zu, \"type\": \"%s\", \"nh_size\": %u, "
	       "\"variant\": \"%s\", \"keys\": %zu, \"rounds\": %u,\n \"lookup\": [", L[0].path, L[1].path, nr,
	       type == VPK_FIB_BM16 ? "bm16" : "dir24-8", nh_size, variant, nk, rounds);
	for (int k = 0; k < 2; k++) {
		double a = bench_median(cyc[0][k], rounds), b = bench_median(cyc[1][k], rounds);
		printf("%s{\"keys\": \"%s\", \"a_cycles\": %.3f, \"b_cycles\": %.3f, \"b_over_a\": %.3f}", k ? ", " : "",
		       kname[k], a, b, b / a);
	}
	printf("]");
	static const char *const uname[4] = { "add fresh", "delete fresh", "add warm", "delete warm" };
	if (upd) {
		printf(",\n \"updates_address_order\": [");
		for (int u = 0; u < 4; u++) {
			double a = bench_median(ua[0][u], rounds), b = bench_median(ua[1][u], rounds);
			printf("%s{\"op\": \"%s\", \"a_cycles\": %.1f, \"b_cycles\": %.1f, \"b_over_a\": %.3f}",
			       u ? ", " : "", uname[u], a, b, b / a);
		}
		printf("]");
	}
	printf("}\n");
	for (int j = 0; j < 2; j++)
		L[j].fr(L[j].fib);
	return code;
usage:
	fprintf(stderr, "usage: vpk-fib-ab A/libvpk.so B/libvpk.so ROUTES [-b bm16|dir] [-e 1|2|4|8] [-v VARIANT]"
		" [-l KEYS] [-R ROUNDS] [-U]\n");
	return 2;
}
