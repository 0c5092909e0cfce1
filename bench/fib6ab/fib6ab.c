/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * vpk-fib6-ab: in-process A/B of the bm6 lookup kernel's test hooks on one
 * FIB and one key set, passes alternating A, B, A, B, ... so both sides see
 * the same machine load (docs/fib.md, "bm6, session 6").
 *
 *   vpk-fib6-ab -f routes [-l lookups(2M)] [-R passes per side(15)]
 *               [-k in-table|random|hot] [-v variant(avx512icl)] [-e 2|4|8(4)] [-a A] [-b B]
 *
 * A and B name hook settings (set_side()), each side on its own FIB built
 * from the same routes. Keys: in-table = random host bits
 * under a random route of the file, hot = the same over its first 64 routes
 * (their nodes stay in L1/L2: the walk's own work), random = uniform. Every
 * pass's answers must equal the scalar variant's (exit 1 otherwise).
 * Prints JSON: median and best ns and TSC cycles per lookup of each side,
 * and the median of the per-round B/A ratios.
 */
#include <errno.h>
#include <getopt.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <x86intrin.h>

#include <vpk/fib6.h>

#include "core/num.h"
#include "bench.h"
#include "fib/bm6.h"
#include "fib/fib_file.h"

#define MAXP 101

struct route {
	uint8_t ip[16];
	uint8_t depth;
};

static uint64_t
rng(uint64_t *s)
{
	uint64_t z = (*s += 0x9e3779b97f4a7c15ull);

	z = (z ^ (z >> 30)) * 0xbf58476d1ce4e5b9ull;
	z = (z ^ (z >> 27)) * 0x94d049bb133111ebull;
	return z ^ (z >> 31);
}

static double
thread_ns(void)
{
	struct timespec t;

	clock_gettime(CLOCK_THREAD_CPUTIME_ID, &t);
	return (double)t.tv_sec * 1e9 + (double)t.tv_nsec;
}

/* The route file (dpdk-test-fib format; errors name file:line). */
static struct route *
load(const char *path, size_t *n)
{
	struct fib_file_routes fr;
	char err[512];

	if (vpk_fib_file_load_routes(path, 6, &fr, err, sizeof(err)) != 0) {
		fprintf(stderr, "vpk-fib6-ab: %s\n", err);
		exit(2);
	}
	struct route *r = malloc((fr.n + 1) * sizeof(*r));
	if (r == NULL)
		exit(1);
	for (size_t k = 0; k < fr.n; k++) {
		memcpy(r[k].ip, fr.r[k].addr, 16);
		r[k].depth = fr.r[k].depth;
	}
	*n = fr.n;
	vpk_fib_file_free_routes(&fr);
	return r;
}

/*
 * A side: comma-separated settings applied to its own FIB before the routes
 * are added: "new" (defaults),
 * "dir=N" (vpk_fib6_bm6_dir_runs: slice nodes of >= N runs direct),
 * "dirB=N" (vpk_fib6_bm6_dir_runs_at: the same for the nodes at byte B),
 * "tail=LV:N" (vpk_fib6_bm6_tail), "tq=LV" (vpk_fib6_bm6_tail_queue),
 * "pipe=0|1|2" (vpk_fib6_bm6_pipe: avx512 4-byte lock step, or the pipelined
 * walk with its deep-lane queue walked 16 or 32 lanes at a time),
 * "v=VARIANT" (this side's lookup variant instead of -v's).
 */
/* A setting's number: the text [s, s + n), whole (core/num.h rules). */
static bool
setn(const char *s, size_t n, unsigned *out)
{
	uint64_t v;

	if (vpk_num_u64n(s, n, 0, UINT32_MAX, &v, NULL, 0) != 0)
		return false;
	*out = (unsigned)v;
	return true;
}

static int
set_side(struct vpk_fib6 *fib, const char *side, const char **var)
{
	char buf[128], *save = NULL;

	snprintf(buf, sizeof(buf), "%s", side);
	for (char *t = strtok_r(buf, ",", &save); t != NULL; t = strtok_r(NULL, ",", &save)) {
		const char *colon = strchr(t, ':'), *eq = strchr(t, '=');
		unsigned a = 0, b = 0;
		int rc = 0;
		if (strncmp(t, "dir=", 4) == 0)
			rc = setn(t + 4, strlen(t + 4), &a) ? vpk_fib6_bm6_dir_runs(fib, a) : -EINVAL;
		else if (strncmp(t, "tail=", 5) == 0 && colon != NULL)
			rc = setn(t + 5, (size_t)(colon - t - 5), &a) && setn(colon + 1, strlen(colon + 1), &b)
				     ? vpk_fib6_bm6_tail(fib, a, b) : -EINVAL;
		else if (strncmp(t, "v=", 2) == 0)
			*var = side + (t - buf) + 2;      /* up to the next comma: the variant names have none */
		else if (strncmp(t, "pipe=", 5) == 0)
			rc = setn(t + 5, strlen(t + 5), &a) ? vpk_fib6_bm6_pipe(fib, a) : -EINVAL;
		else if (strncmp(t, "tq=", 3) == 0)
			rc = setn(t + 3, strlen(t + 3), &a) ? vpk_fib6_bm6_tail_queue(fib, a) : -EINVAL;
		else if (strncmp(t, "dir", 3) == 0 && eq != NULL)  /* dirB=N: nodes at byte B */
			rc = setn(t + 3, (size_t)(eq - t - 3), &a) && setn(eq + 1, strlen(eq + 1), &b)
				     ? vpk_fib6_bm6_dir_runs_at(fib, a, b) : -EINVAL;
		else if (strcmp(t, "new") != 0)
			rc = -EINVAL;
		if (rc != 0)
			return rc;
	}
	return 0;
}

int
main(int argc, char **argv)
{
	const char *path = NULL, *kind = "in-table", *var = "avx512icl", *side[2] = { "new", "new" };
	size_t nl = 2000000, nrt;
	unsigned passes = 15, esz = 4;
	int c;

	while ((c = getopt(argc, argv, "f:l:R:k:v:a:b:e:")) != -1) {
		switch (c) {
		case 'f': path = optarg; break;
		case 'l':
			if (vpk_num_size(optarg, 64, (size_t)1 << 31, &nl, NULL, 0) != 0)
				nl = 0;         /* refused below with the usage */
			break;
		case 'R':
			if (vpk_num_uint(optarg, 1, MAXP, &passes, NULL, 0) != 0)
				passes = 0;
			break;
		case 'k': kind = optarg; break;
		case 'v': var = optarg; break;
		case 'a': side[0] = optarg; break;
		case 'b': side[1] = optarg; break;
		case 'e':
			if (vpk_num_uint(optarg, 2, 8, &esz, NULL, 0) != 0)
				esz = 0;        /* refused by the FIB's create with the entry sizes */
			break;
		default: return 2;
		}
	}
	if (path == NULL || nl < 64 || passes == 0 || passes > MAXP) {
		fprintf(stderr, "usage: vpk-fib6-ab -f routes [-l n] [-R passes<=%d] [-k in-table|random|hot] [-v variant] [-e 2|4|8] [-a side] [-b side]\n",
			MAXP);
		return 2;
	}
	struct route *rt = load(path, &nrt);
	struct vpk_fib6_conf conf = { .type = VPK_FIB6_BM6, .nh_size = esz, .num_tbl8 = esz == 2 ? 30000 : 100000, .max_routes = (uint32_t)nrt };
	struct vpk_fib6 *fib[2];
	for (int sd = 0; sd < 2; sd++) {
		if (nrt == 0 || vpk_fib6_create(&conf, &fib[sd]) != 0)
			return 1;
		const char *v = var;
		if (set_side(fib[sd], side[sd], &v) != 0) {
			fprintf(stderr, "vpk-fib6-ab: bad side %s (new, dir=N, dirB=N, tail=LV:N, tq=LV, pipe=0|1|2; comma-separated)\n", side[sd]);
			return 2;
		}
		for (size_t i = 0; i < nrt; i++)
			if (vpk_fib6_add(fib[sd], rt[i].ip, rt[i].depth, 1 + i % 1000) != 0)
				return 1;
		char vn[32];
		snprintf(vn, sizeof(vn), "%.*s", (int)strcspn(v, ","), v);
		if (vpk_fib6_select(fib[sd], vn) != 0) {
			fprintf(stderr, "vpk-fib6-ab: variant %s not usable here\n", vn);
			return 77;
		}
	}
	uint8_t (*ips)[16] = malloc(nl * 16);
	uint64_t *out = malloc(nl * 8), *ref = malloc(nl * 8), s = 7;
	if (ips == NULL || out == NULL || ref == NULL)
		return 1;
	size_t span = strcmp(kind, "hot") == 0 ? (nrt < 64 ? nrt : 64) : nrt;
	for (size_t i = 0; i < nl; i++) {
		uint64_t a = rng(&s), b = rng(&s);
		memcpy(ips[i], &a, 8);
		memcpy(ips[i] + 8, &b, 8);
		if (strcmp(kind, "random") == 0)
			continue;
		const struct route *r = &rt[rng(&s) % span];
		for (unsigned bit = 0; bit < r->depth; bit++) {
			uint8_t m = (uint8_t)(0x80 >> (bit % 8));
			ips[i][bit / 8] = (uint8_t)((ips[i][bit / 8] & ~m) | (r->ip[bit / 8] & m));
		}
	}
	struct vpk_fib6 *sfib;
	if (vpk_fib6_create(&conf, &sfib) != 0 || vpk_fib6_select(sfib, "scalar") != 0)
		return 1;
	for (size_t i = 0; i < nrt; i++)
		if (vpk_fib6_add(sfib, rt[i].ip, rt[i].depth, 1 + i % 1000) != 0)
			return 1;
	vpk_fib6_lookup_bulk(sfib, (const uint8_t (*)[16])ips, ref, nl);
	vpk_fib6_free(sfib);
	double ns[2][MAXP], cy[2][MAXP], ratio[MAXP];
	for (unsigned p = 0; p < passes; p++)
		for (int sd = 0; sd < 2; sd++) {
			memset(out, 0xa5, nl * 8);
			double t0 = thread_ns();
			uint64_t c0 = __rdtsc();
			vpk_fib6_lookup_bulk(fib[sd], (const uint8_t (*)[16])ips, out, nl);
			cy[sd][p] = (double)(__rdtsc() - c0) / (double)nl;
			ns[sd][p] = (thread_ns() - t0) / (double)nl;
			if (memcmp(out, ref, nl * 8) != 0) {
				size_t x = 0, bad = 0;
				for (size_t q = 0; q < nl; q++)
					if (out[q] != ref[q] && bad++ == 0)
						x = q;
				fprintf(stderr, "vpk-fib6-ab: side %s: %zu answers differ from scalar's, first at %zu: %#llx, want %#llx\n",
					side[sd], bad, x, (unsigned long long)out[x], (unsigned long long)ref[x]);
				return 1;
			}
			if (sd == 1)
				ratio[p] = ns[1][p] / ns[0][p];
		}
	printf("{\"routes\": %zu, \"lookups\": %zu, \"entry_bytes\": %u, \"keys\": \"%s\", \"variants\": [\"%s\", \"%s\"], \"passes\": %u",
	       nrt, nl, esz, kind, vpk_fib6_impl_name(fib[0]), vpk_fib6_impl_name(fib[1]), passes);
	for (int sd = 0; sd < 2; sd++) {
		double bc = cy[sd][0], bn = ns[sd][0];
		for (unsigned p = 1; p < passes; p++) {
			bc = cy[sd][p] < bc ? cy[sd][p] : bc;
			bn = ns[sd][p] < bn ? ns[sd][p] : bn;
		}
		printf(",\n \"%s\": {\"side\": \"%s\", \"ns\": %.3f, \"best_ns\": %.3f, \"tsc_cycles\": %.2f, \"best_tsc_cycles\": %.2f}",
		       sd ? "B" : "A", side[sd], bench_median(ns[sd], passes), bn, bench_median(cy[sd], passes), bc);
	}
	printf(",\n \"B_over_A\": %.3f,\n", bench_median(ratio, passes));
	for (int sd = 0; sd < 2; sd++) {
		struct vpk_fib6_stats st;
		vpk_fib6_get_stats(fib[sd], &st);
		printf("%s\"%s_dataplane_bytes\": %zu", sd ? ", " : " ", sd ? "B" : "A", (size_t)st.dataplane_bytes);
		vpk_fib6_free(fib[sd]);
	}
	printf("}\n");
	free(rt);
	free(ips);
	free(out);
	free(ref);
	return 0;
}
