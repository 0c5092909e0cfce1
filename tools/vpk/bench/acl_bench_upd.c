/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * vpk bench acl --updates N: single-rule updates applied with
 * vpk_acl_build() after a full build, N of each kind in turn:
 *   add     a new rule (from a second generated set, below every rule),
 *   delete  a random rule of the base set,
 *   change  a random base rule replaced by a copy with another destination
 *           port and userdata (vpk_acl_del_rules + vpk_acl_add_rules),
 * (--update-kinds add,delete,change selects), the first half of each kind with no reader, the second half while another
 * thread classifies the trace in bursts of 256 (the time then includes
 * whatever the build waits for). Wall time per update (del/add + build),
 * and the writer thread's CPU time (all updates of a kind: without the
 * time the writer is descheduled on a busy machine);
 * afterwards every result is checked against the oracle over the rules
 * stored at the end.
 */
#include <pthread.h>
#include <stdatomic.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <x86intrin.h>

#include <vpk/acl.h>
#include <vpk/acl_file.h>
#include "acl/acl_gen.h"
#include "acl/acl_oracle.h"

#include "bench/acl_bench.h"

struct upd_reader {
	struct vpk_acl *acl;
	const uint8_t **ptrs;
	uint32_t np;
	atomic_int stop;
	atomic_ulong calls;
};

static void *
reader(void *arg)
{
	struct upd_reader *u = arg;
	uint32_t res[256];

	for (uint32_t i = 0; !atomic_load(&u->stop); i = (i + 256) % (u->np - 256)) {
		vpk_acl_classify_bulk(u->acl, u->ptrs + i, res, 256, 1);
		atomic_fetch_add(&u->calls, 1);
	}
	return NULL;
}

static double
now_ms(clockid_t clk)
{
	struct timespec ts;

	clock_gettime(clk, &ts);
	return (double)ts.tv_sec * 1e3 + (double)ts.tv_nsec * 1e-6;
}

static int
cmp_dbl(const void *a, const void *b)
{
	double x = *(const double *)a, y = *(const double *)b;

	return x < y ? -1 : x > y;
}

/* xorshift, seeded: the same targets every run. */
static uint64_t
rnd(uint64_t *s)
{
	*s ^= *s << 13;
	*s ^= *s >> 7;
	*s ^= *s << 17;
	return *s;
}

static void
summarise(double *ms, uint32_t n, struct upd_kind *k)
{
	uint32_t h = n / 2;

	qsort(ms, h, sizeof(*ms), cmp_dbl);
	qsort(ms + h, n - h, sizeof(*ms), cmp_dbl);
	k->med_alone = h ? ms[h / 2] : 0;
	k->max_alone = h ? ms[h - 1] : 0;
	k->med_busy = ms[h + (n - h) / 2];
	k->max_busy = ms[n - 1];
}

static int
cmp_u64(const void *a, const void *b)
{
	uint64_t x = *(const uint64_t *)a, y = *(const uint64_t *)b;

	return x < y ? -1 : x > y;
}

/* Median TSC cycles per packet over bursts of 256 (3 passes over @p np packets). */
static double
cycles(struct vpk_acl *acl, const uint8_t **ptrs, uint32_t np, uint32_t *res)
{
	size_t k = 0, calls = 3 * (size_t)(np / 256);
	uint64_t *c = malloc(calls * sizeof(*c));
	double med;

	for (int it = 0; it < 3; it++)
		for (uint32_t i = 0; i + 256 <= np; i += 256) {
			uint64_t t0 = __rdtsc();

			vpk_acl_classify_bulk(acl, ptrs + i, res + i, 256, 1);
			c[k++] = __rdtsc() - t0;
		}
	qsort(c, k, sizeof(*c), cmp_u64);
	med = (double)c[k / 2] / 256.0;
	free(c);
	return med;
}

/*
 * After the updates: every result of the first 64k packets against the oracle
 * over the rules stored now (of @p list, the live ones, userdata @p ud), then
 * the classify cost of this runtime and of a full build of the same rules
 * (base rules as stored in @p cur, added ones in @p xr); returns the failures.
 */
static uint32_t
check_after(struct vpk_acl *acl, const struct bench_data *d, const struct vpk_acl5_pkt *p5, const uint8_t **ptrs,
	    uint32_t np, struct vpk_acl5_rule *list, const uint32_t *ud, const uint8_t *live, uint32_t nl,
	    const uint8_t *cur, const uint8_t *xr, struct upd_result *out)
{
	size_t rs = VPK_ACL_RULE_SIZE(d->nf);
	uint32_t nr = d->nrules, fails = 0;
	struct vpk_acl_stats st;
	uint32_t nc = np < 65536 ? np : 65536, m = 0, bad = 0;
	struct vpk_acl5_pkt *pc = malloc((size_t)nc * sizeof(*pc));
	uint32_t *lud = malloc((size_t)nl * 4), *res = malloc((size_t)nc * 4);

	for (uint32_t i = 0; i < nl; i++)
		if (live[i]) {
			list[m] = list[i];
			lud[m++] = ud[i];
		}
	memcpy(pc, p5, (size_t)nc * sizeof(*pc));
	vpk_acl5_oracle(list, m, pc, nc, d->ipv6);
	vpk_acl_classify_bulk(acl, ptrs, res, nc, 1);
	for (uint32_t i = 0; i < nc; i++)
		bad += res[i] != (pc[i].expected == VPK_ACL5_NO_MATCH ? 0 : lud[pc[i].expected]);
	if (bad) {
		fprintf(stderr, "vpk: bench acl: after the updates %u of %u results differ\n", bad, nc);
		fails++;
	}
	out->checked = nc;
	/* Classify cost of the incremental runtime vs a full build of the same rules. */
	vpk_acl_get_stats(acl, &st);
	out->rules = st.rules;
	out->trees = st.trees;
	out->cyc_incremental = cycles(acl, ptrs, nc, res);
	vpk_acl_reset_rules(acl);
	for (uint32_t i = 0; i < nl; i++)
		if (live[i] && vpk_acl_add_rules(acl, i < nr ? cur + (size_t)i * rs : xr + (size_t)(i - nr) * rs, 1) < 0)
			fails++;
	if (vpk_acl_build(acl) < 0)
		fails++;
	out->cyc_full = cycles(acl, ptrs, nc, res);
	for (uint32_t i = 0; i < nc; i++)
		bad += res[i] != (pc[i].expected == VPK_ACL5_NO_MATCH ? 0 : lud[pc[i].expected]);
	if (bad) {
		fprintf(stderr, "vpk: bench acl: full rebuild after the updates: %u results differ\n", bad);
		fails++;
	}
	free(pc);
	free(lud);
	free(res);
	return fails;
}

int
bench_updates(struct vpk_acl *acl, const struct bench_data *d, const struct vpk_acl5_rule *r5,
	      const struct vpk_acl5_pkt *p5, const uint8_t **ptrs, uint32_t np, const char *profile,
	      uint64_t seed, uint32_t n, unsigned kinds, struct upd_result *out)
{
	size_t rs = VPK_ACL_RULE_SIZE(d->nf);
	uint32_t nr = d->nrules, nl = nr + n, fails = 0;
	struct vpk_acl_gen_conf gc = { .rules = n, .seed = seed + 7, .ipv6 = d->ipv6 };
	struct vpk_acl5_rule *extra = NULL, *list = malloc((size_t)nl * sizeof(*list));
	uint32_t *ud = malloc((size_t)nl * 4);
	uint8_t *live = malloc(nl), *xr = malloc((size_t)n * rs), *tmp = malloc(rs);
	uint8_t *cur = malloc((size_t)nr * rs);        /* the base rules as stored now */
	uint32_t dport = d->ipv6 ? 10 : 4;
	double *ms = malloc((size_t)n * sizeof(*ms)), *cpu = malloc((size_t)n * sizeof(*cpu));
	struct upd_reader u = { .acl = acl, .ptrs = ptrs, .np = np };
	uint64_t rs_state = seed * 2654435761u + 1;
	struct vpk_acl_stats st;
	pthread_t th;

	memset(out, 0, sizeof(*out));
	vpk_acl_gen_profile_from_name(profile, &gc.profile, &gc.ipv6);
	if (!list || !ud || !live || !xr || !tmp || !ms || !cpu || !cur || np <= 256 || vpk_acl_gen_rules(&gc, &extra) < 0) {
		fprintf(stderr, "vpk: bench acl: updates: out of memory or no trace\n");
		fails = 1;
		goto done;
	}
	/* The oracle list: base rules (priority order), then the added ones. */
	memcpy(list, r5, (size_t)nr * sizeof(*list));
	memcpy(list + nr, extra, (size_t)n * sizeof(*list));
	for (uint32_t i = 0; i < nl; i++) {
		ud[i] = i + 1;
		live[i] = i < nr;
	}
	memcpy(cur, d->rules, (size_t)nr * rs);
	vpk_acl5_to_rules(extra, n, d->ipv6, 0xffff, xr);
	for (uint32_t i = 0; i < n; i++) {
		struct vpk_acl_rule *x = (void *)(xr + (size_t)i * rs);

		x->priority = VPK_ACL_MAX_PRIORITY - (nr + i + 1);
		x->userdata = nr + i + 1;
	}
	vpk_acl_select(acl, "auto");
	for (int kind = 0; kind < 3; kind++) {
		struct upd_kind *k = &out->kind[kind];

		if (!(kinds >> kind & 1))
			continue;

		for (uint32_t i = 0; i < n; i++) {
			uint32_t j = 0;
			double t0, c0;
			int rc = 0;

			if (i == n / 2) {
				atomic_store(&u.stop, 0);
				pthread_create(&th, NULL, reader, &u);
			}
			if (kind > 0) {         /* a random live base rule */
				do
					j = (uint32_t)(rnd(&rs_state) % nr);
				while (!live[j]);
				memcpy(tmp, cur + (size_t)j * rs, rs);
			}
			t0 = now_ms(CLOCK_MONOTONIC);
			c0 = now_ms(CLOCK_THREAD_CPUTIME_ID);
			if (kind == 0) {
				rc = vpk_acl_add_rules(acl, xr + (size_t)i * rs, 1);
			} else {
				rc = vpk_acl_del_rules(acl, tmp, 1);
				if (kind == 2 && rc == 0) {
					struct vpk_acl_rule *x = (void *)tmp;

					x->field[dport].value = x->field[dport].mask_range = 80 + i;
					x->userdata = 1000000 + i;
					rc = vpk_acl_add_rules(acl, tmp, 1);
				}
			}
			if (rc == 0)
				rc = vpk_acl_build(acl);
			ms[i] = now_ms(CLOCK_MONOTONIC) - t0;
			cpu[i] = now_ms(CLOCK_THREAD_CPUTIME_ID) - c0;
			if (rc < 0) {
				fprintf(stderr, "vpk: bench acl: update kind %d #%u: %s\n", kind, i,
					vpk_last_error());
				fails++;
			}
			vpk_acl_get_stats(acl, &st);
			k->fallbacks += !st.incremental;
			if (kind == 0)
				live[nr + i] = 1;
			else if (kind == 1)
				live[j] = 0;
			else {
				list[j].dport_lo = list[j].dport_hi = (uint16_t)(80 + i);
				ud[j] = 1000000 + i;
				memcpy(cur + (size_t)j * rs, tmp, rs);
			}
			if (getenv("ACL_BENCH_TRACE_UPDATES"))
				fprintf(stderr, "update %d/%u: %.3f ms, %u in update tree, %u deleted, fallback %u\n",
					kind, i, ms[i], st.update_rules, st.deleted_rules, st.fallback);
		}
		atomic_store(&u.stop, 1);
		pthread_join(th, NULL);
		summarise(ms, n, k);
		qsort(cpu, n, sizeof(*cpu), cmp_dbl);
		k->cpu_med = cpu[n / 2];
		k->cpu_max = cpu[n - 1];
	}
	out->calls = atomic_load(&u.calls);
	fails += check_after(acl, d, p5, ptrs, np, list, ud, live, nl, cur, xr, out);
done:
	free(cur), free(extra), free(list), free(ud), free(live), free(xr), free(tmp), free(ms), free(cpu);
	return fails ? -1 : 0;
}
