/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * Option values of the vpk subcommands through the one number parser
 * (core/num.h): each helper prints "vpk: WHERE: REASON" on a bad value
 * and returns false, so a subcommand says `return VPK_EXIT_USAGE`.
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "common/libvpk_internal.h"
#include "common/tool.h"

/* True on success; else the one-line message and false. */
static bool
said(const char *where, int rc, const char *why)
{
	if (rc >= 0)
		return true;
	vpk_fail(0, "%s: %s", where, why);
	return false;
}

bool
vpk_opt_u64(const char *where, const char *val, uint64_t lo, uint64_t hi, uint64_t *out)
{
	char why[160];

	return said(where, vpk_num_u64(val, lo, hi, out, why, sizeof(why)), why);
}

/* The narrower destinations: the same check, then a store of the checked value. */
#define OPT_NARROW(name, type)                                                                  \
	bool name(const char *where, const char *val, type lo, type hi, type *out)              \
	{                                                                                       \
		uint64_t v;                                                                     \
                                                                                                \
		if (!vpk_opt_u64(where, val, lo, hi, &v))                                       \
			return false;                                                           \
		*out = (type)v;                                                                 \
		return true;                                                                    \
	}
OPT_NARROW(vpk_opt_uint, unsigned)
OPT_NARROW(vpk_opt_size, size_t)

bool
vpk_opt_f64(const char *where, const char *val, double lo, double hi, double *out)
{
	char why[160];

	return said(where, vpk_num_f64(val, lo, hi, out, why, sizeof(why)), why);
}

int
vpk_opt_list(const char *where, const char *val, unsigned lo, unsigned hi, unsigned *out, size_t max)
{
	char why[160];
	int n = vpk_num_list(val, lo, hi, out, max, why, sizeof(why));

	return said(where, n, why) ? n : -1;
}

bool
vpk_opt_distinct(const char *cmd, const char *in_opt, const char *in, const char *out_opt, const char *out)
{
	if (!vpk_same_file(in, out))
		return true;
	vpk_fail(0, "%s: %s %s and %s %s are the same file (the output would overwrite the input)", cmd, in_opt,
		 in, out_opt, out);
	return false;
}

const struct option *
vpk_longopts(struct vpk_longopts *lo, const char *spec)
{
	size_t n = 0;
	char *p = lo->text;

	memset(lo, 0, sizeof(*lo));
	if (strlen(spec) >= sizeof(lo->text))
		abort();
	strcpy(lo->text, spec);
	while (*p != '\0') {
		size_t len = strcspn(p, "/=?");
		char *val = p + len + 1, *end, *num;

		if (p[len] == '\0' || n + 1 >= sizeof(lo->o) / sizeof(lo->o[0]))
			abort();
		end = val + strcspn(val, " ");
		lo->o[n].name = p;
		lo->o[n].has_arg = p[len] == '/' ? no_argument : p[len] == '=' ? required_argument : optional_argument;
		lo->o[n].val = end - val == 1 ? (unsigned char)*val : (int)strtol(val, &num, 0);
		if (end == val || (end - val > 1 && num != end))
			abort();
		p[len] = '\0';
		p = end + strspn(end, " ");
		*end = '\0';
		n++;
	}
	return lo->o;
}

int
vpk_getopt_nums(int argc, char **argv, const char *shortopts, const struct option *lo, int *li,
		const struct vpk_optnum *nums)
{
	for (;;) {
		int c = getopt_long(argc, argv, shortopts, lo, li);
		const struct vpk_optnum *o = nums;
		bool ok;

		while (o->key != 0 && o->key != c)
			o++;
		if (c == -1 || o->key == 0)
			return c;
		if (o->type == 'U')
			ok = vpk_opt_u64(o->where, optarg, o->lo, o->hi, o->out);
		else if (o->type == 'u')
			ok = vpk_opt_uint(o->where, optarg, (unsigned)o->lo, (unsigned)o->hi, o->out);
		else
			ok = (*o->n = vpk_opt_list(o->where, optarg, (unsigned)o->lo, (unsigned)o->hi, o->out,
						   o->max)) > 0;
		if (!ok)
			return VPK_OPT_BAD;
	}
}
