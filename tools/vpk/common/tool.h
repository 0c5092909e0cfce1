/* SPDX-License-Identifier: BSD-3-Clause */
#ifndef VPK_TOOL_H
#define VPK_TOOL_H

/*
 * Shared plumbing of the vpk command: subcommand registration, the global
 * options every subcommand takes, and error reporting.
 *
 * A subcommand is registered from its own file:
 *
 *     static int cmd_info(int argc, char **argv);
 *     VPK_CMD(info, "info", "CPU, ISA levels, cap and chosen variants", cmd_info);
 *
 * Names may be two words ("gen acl", "bench fwd"): `vpk gen acl ...` matches
 * the two-word entry before a one-word one. argv[0] of the handler is the
 * command name; the global options below have already been removed.
 *
 * Global options (anywhere on the line):
 *   --max-simd-bitwidth=N  (or --max-simd-bitwidth N): 64, 128, 256 or 512
 *   --isa=NAME             force a variant level (scalar, sse42, avx2, avx512, avx512icl)
 *   --json                 machine-readable output
 * Exit codes: 0 success, 1 failure at run time, 2 bad usage or input.
 */
#include <getopt.h>
#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <vpk/isa.h>

struct vpk_cmd {
	const char *name;
	const char *summary;
	int (*fn)(int argc, char **argv);
};

#define VPK_CMD(id, cname, csummary, cfn)                                 \
	static const struct vpk_cmd vpk_cmd_##id                          \
	__attribute__((used, section("vpk_cmds"), aligned(8))) = {         \
		.name = (cname), .summary = (csummary), .fn = (cfn) }

struct vpk_tool_opts {
	bool json;              /* --json */
	enum vpk_isa isa;       /* --isa, VPK_ISA_AUTO if not given */
	bool cap_set;           /* --max-simd-bitwidth given */
	unsigned cap;           /* its value */
};

extern struct vpk_tool_opts vpk_opts;

/* Print "vpk: <message>\n" on stderr; return the exit code @code. */
int vpk_fail(int code, const char *fmt, ...) __attribute__((format(printf, 2, 3)));

/*
 * Option values (opt.c), with the rules of the one number parser
 * (src/core/num.h): whole text, no sign on unsigned values, no NaN or
 * infinity, never saturated. On a bad value they print
 * "vpk: WHERE: 'VALUE' is out of range LO..HI" (or the like) and return
 * false (vpk_opt_list: -1); WHERE names the command and option ("fib: -n").
 */
bool vpk_opt_u64(const char *where, const char *val, uint64_t lo, uint64_t hi, uint64_t *out);
bool vpk_opt_uint(const char *where, const char *val, unsigned lo, unsigned hi, unsigned *out);
bool vpk_opt_size(const char *where, const char *val, size_t lo, size_t hi, size_t *out);
bool vpk_opt_f64(const char *where, const char *val, double lo, double hi, double *out);
int vpk_opt_list(const char *where, const char *val, unsigned lo, unsigned hi, unsigned *out, size_t max);
/* False (and a message) when the input and output paths name one file. */
bool vpk_opt_distinct(const char *cmd, const char *in_opt, const char *in, const char *out_opt, const char *out);

/*
 * getopt_long's option table from one line: @spec lists the long options,
 * separated by spaces, each its name, how it takes a value ('/' none, '='
 * required, '?' optional) and what getopt_long returns for it: a letter, or
 * a number in C notation (0x101) for options with no letter. E.g.
 * "burst=b runs=r help/h". Returns lo->o, ended by a zero row, for
 * getopt_long; a spec it cannot read is a programming error (abort).
 * VPK_LONGOPTS(opts, spec) declares the table and `opts` pointing at it.
 */
struct vpk_longopts {
	struct option o[48];
	char text[640];         /* the spec, cut into the names */
};
const struct option *vpk_longopts(struct vpk_longopts *lo, const char *spec);
#define VPK_LONGOPTS(var, spec)             \
	struct vpk_longopts var##_table;     \
	const struct option *var = vpk_longopts(&var##_table, spec)

/*
 * Numeric options from a table: vpk_getopt_nums() is getopt_long() that also
 * checks and stores the value of every option @nums lists (ended by a row
 * with key 0), with the messages of vpk_opt_u64 / vpk_opt_uint / vpk_opt_list.
 * It returns getopt_long's value for the other options, -1 at the end, and
 * VPK_OPT_BAD after a bad value (and its message).
 */
struct vpk_optnum {
	int key;                /* getopt_long's value for the option */
	char type;              /* 'U' uint64_t, 'u' unsigned, 'l' a list of up to @max unsigned */
	const char *where;      /* for the message: "bench pool: --runs" */
	uint64_t lo, hi;        /* the bounds of each value */
	void *out;
	int *n;                 /* 'l': how many values the list has */
	size_t max;
};
/* Rows of the table, with the destination's type checked. */
#define VPK_OPTNUM_U64(key, where, lo, hi, out) { (key), 'U', (where), (lo), (hi), 1 ? (out) : (uint64_t *)0, NULL, 0 }
#define VPK_OPTNUM_UINT(key, where, lo, hi, out) { (key), 'u', (where), (lo), (hi), 1 ? (out) : (unsigned *)0, NULL, 0 }
#define VPK_OPTNUM_LIST(key, where, lo, hi, out, n, max) \
	{ (key), 'l', (where), (lo), (hi), 1 ? (out) : (unsigned *)0, (n), (max) }
#define VPK_OPT_BAD (-2)
int vpk_getopt_nums(int argc, char **argv, const char *shortopts, const struct option *lo, int *li,
		    const struct vpk_optnum *nums);

#define VPK_EXIT_OK    0
#define VPK_EXIT_FAIL  1
#define VPK_EXIT_USAGE 2

#endif /* VPK_TOOL_H */
