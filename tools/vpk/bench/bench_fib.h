/* SPDX-License-Identifier: BSD-3-Clause */
#ifndef VPK_TOOL_BENCH_FIB_H
#define VPK_TOOL_BENCH_FIB_H
/*
 * vpk bench fib [--ipv6]: one benchmark for both address families.
 * bench_fib_opts.c parses the options, bench_fib_fam.c describes each family
 * (its routes, keys, vpk layouts and rte_fib/rte_fib6 calls) behind struct
 * bench_fib_family, cmd_bench_fib.c runs and reports.
 */
#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include <vpk/isa.h>

struct bench_fib_opts {
	const char *path;       /* -f ROUTES (required) */
	unsigned sizes[4], nsizes; /* -e: next-hop entry sizes in bytes */
	unsigned passes;        /* -R: timed passes, 1..100 */
	size_t nl;              /* -l: lookups per key set */
	size_t burst;           /* -B: keys per lookup_bulk call; the whole array by default */
	bool use_dpdk;          /* --vs-dpdk (default) / --no-dpdk */
	bool updates;           /* time updates unless -U */
	bool cpu_time;          /* --cpu-time: cycles = thread CPU time x TSC rate */
	bool want[2];           /* -b: the family's two vpk layouts */
	uint64_t seed;          /* --seed */
};

/*
 * Parse argv of `bench fib` (@p v6 false) or `bench fib --ipv6` (true, with
 * the --ipv6 word taken out). @return 0 to run, -1 after --help (exit 0),
 * or an exit code after a message.
 */
int bench_fib_parse(int argc, char **argv, bool v6, struct bench_fib_opts *o);

/* A vpk layout of the family: its row name and its enum vpk_fib_type / vpk_fib6_type. */
struct bench_fib_layout {
	const char *name;       /* "vpk-dir24-8" */
	const char *opt;        /* its -b word: "dir" */
	int type;
};

/* An rte_fib lookup type the family times: enum value and row name. */
struct bench_fib_dtype {
	int type;
	const char *name;
};

/*
 * One address family. Routes and keys are arrays of the family's own
 * records (struct gen_route4 / uint32_t, struct gen_route6 / uint8_t[16]);
 * FIB objects are passed as void *.
 */
struct bench_fib_family {
	const char *cmd;                /* "bench fib" */
	const char *family;             /* "ipv4" */
	const char *dpdk_name;          /* "rte_fib" */
	size_t route_size, key_size;
	struct bench_fib_layout layouts[2];
	struct bench_fib_dtype dtypes[4];
	unsigned ndtypes;
	/* Routes of a file, next hops that fit every entry width; NULL with err. */
	void *(*load)(const char *path, uint64_t seed, size_t *n, char *err, size_t len);
	int (*cmp)(const void *a, const void *b);       /* address order, then length */
	void (*keys)(const void *rt, size_t n, bool in_table, uint64_t seed, void *keys, size_t nl);
	/* vpk: NULL when the layout cannot be made at this width. */
	void *(*create)(int type, unsigned nh_size, size_t max_routes);
	int (*add)(void *f, const void *rt, size_t i);
	int (*del)(void *f, const void *rt, size_t i);
	void (*select)(void *f, const char *variant);
	void (*lookup)(void *f, const void *keys, uint64_t *out, size_t n);
	void (*mem)(void *f, size_t *dataplane, size_t *rib);
	const struct vpk_impl *const *(*impls)(int type);
	void (*destroy)(void *f);
	/* DPDK, loaded with dlopen (fib/fib_dpdk.h). */
	void *(*dcreate)(unsigned nh_size, size_t max_routes, const char **why);
	int (*dadd)(void *d, const void *rt, size_t i);
	int (*ddel)(void *d, const void *rt, size_t i);
	int (*dselect)(void *d, int type);
	void (*dlookup)(void *d, const void *keys, uint64_t *out, size_t n);
	void (*dfree)(void *d);
};

extern const struct bench_fib_family bench_fib4_family;
extern const struct bench_fib_family bench_fib6_family;

#endif
