/* SPDX-License-Identifier: BSD-3-Clause */
#ifndef VPK_TOOL_FIB_FAMILY_H
#define VPK_TOOL_FIB_FAMILY_H
/*
 * An address family as `vpk fib` and `vpk bench fib` drive it: its routes and
 * keys, vpk's two layouts and DPDK's rte_fib / rte_fib6 (fib_dpdk.h), behind
 * one table of calls so that both tools have one code path for IPv4 and IPv6.
 * Routes are arrays of the family's records (struct gen_route4 / gen_route6),
 * keys arrays of uint32_t / uint8_t[16]; FIB objects are passed as void *.
 */
#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include <vpk/isa.h>

#include "fib/fib_gen.h"

/* A vpk layout of the family. */
struct fib_layout {
	const char *name;       /* row name: "vpk-dir24-8" */
	const char *opt;        /* its -b word: "dir" */
	int type;               /* enum vpk_fib_type / vpk_fib6_type */
};

/* An rte_fib lookup type. */
struct fib_dtype {
	int type;               /* enum dpdk_fib_lookup, or rte_fib6's 1 scalar / 2 avx512 */
	const char *name;       /* bench row: "s1-macro" */
	const char *cli;        /* vpk fib row, as dpdk-test-fib's -v: "dpdk-s1" */
};

struct fib_family {
	const char *family;             /* "ipv4", "ipv6" */
	int af;                         /* 4, 6 */
	const char *dpdk_name;          /* "rte_fib", "rte_fib6" */
	size_t route_size, key_size;
	struct fib_layout layouts[2];
	struct fib_dtype dtypes[4];
	unsigned ndtypes;
	/* Entry width: the largest next hop (0: not a width of this family). */
	uint64_t (*max_nh)(unsigned nh_size);
	/* tbl8 groups vpk's layout @type / rte_fib can index at this width (0: none). */
	uint32_t (*max_tbl8)(int type, unsigned nh_size);
	uint32_t (*dpdk_max_tbl8)(unsigned nh_size);

	/* Routes of a file; a next hop the file lacks is drawn from 1..nh_max,
	 * and with @nh_mod > 0 every next hop is taken modulo nh_mod. NULL + err. */
	void *(*load)(const char *path, uint64_t seed, uint64_t nh_max, uint64_t nh_mod, size_t *n, char *err,
		      size_t len);
	/* Generated routes (-d spec or the Tier-1 histogram). NULL + err. */
	void *(*generate)(size_t n, const char *spec, uint64_t nh_max, uint64_t seed, size_t *out_n, char *err,
			  size_t len);
	int (*cmp)(const void *a, const void *b);       /* address order, then length */
	void (*keys)(const void *rt, size_t n, enum gen_lookup_kind kind, unsigned pct_random, uint64_t seed,
		     void *keys, size_t nl);
	void (*route_str)(const void *rt, size_t i, char *buf, size_t len);     /* "a.b.c.d/len" */
	int (*write_routes)(const char *path, const void *rt, size_t n);        /* 0 or -errno */
	int (*write_keys)(const char *path, const void *keys, size_t n);

	/* vpk. create: 0 or negative errno. */
	int (*create)(int type, unsigned nh_size, uint32_t num_tbl8, size_t max_routes, enum vpk_isa isa,
		      void **f);
	int (*add)(void *f, const void *rt, size_t i);
	int (*del)(void *f, const void *rt, size_t i);
	void (*select)(void *f, const char *variant);
	void (*lookup)(void *f, const void *keys, uint64_t *out, size_t n);
	uint64_t (*lookup_rib)(void *f, const void *keys, size_t i);    /* the RIB's own answer */
	void (*stats)(void *f, size_t *dataplane, size_t *rib, uint32_t *tbl8_used, uint32_t *tbl8_total);
	const char *(*type_name)(void *f);
	int (*type_of)(void *f);
	const struct vpk_impl *const *(*impls)(int type);
	void (*destroy)(void *f);

	/* DPDK, loaded with dlopen (fib_dpdk.h). */
	void *(*dcreate)(unsigned nh_size, uint32_t num_tbl8, size_t max_routes, const char **why);
	int (*dadd)(void *d, const void *rt, size_t i);
	int (*ddel)(void *d, const void *rt, size_t i);
	int (*dselect)(void *d, int type);
	void (*dlookup)(void *d, const void *keys, uint64_t *out, size_t n);
	void (*dfree)(void *d);
};

extern const struct fib_family fib_family4;
extern const struct fib_family fib_family6;

#endif
