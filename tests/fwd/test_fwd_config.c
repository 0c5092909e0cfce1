/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * vpk_fwd_exec_file() is all or nothing for routes and neighbors: a file
 * whose every line is valid but that runs out of tbl8 groups half-way
 * leaves the FIB and the neighbor table exactly as they were (routes it
 * added are gone, routes it replaced or deleted are back, neighbors it
 * changed are restored, interfaces it declared are removed), and the error
 * names the file and line.
 */
#include <errno.h>
#include <stdio.h>
#include <string.h>

#include <vpk/fib.h>
#include "fwd/fwd.h"

#include "fwd/fwd_priv.h"
#include "lib/check.h"
#include "fwd/fwd_text.h"

static uint64_t
route_nh(struct vpk_fwd *f, const char *pfx, uint8_t len)
{
	uint32_t a, b, c, d;
	uint64_t nh = 0;

	sscanf(pfx, "%u.%u.%u.%u", &a, &b, &c, &d);
	return vpk_fib_get(f->fib4, a << 24 | b << 16 | c << 8 | d, len, &nh) == 0 ? nh : 0;
}

/* fwd_parse_prefix(): the one "ADDR/LEN" parser of routes and tunnel commands. */
static void
test_prefixes(void)
{
	static const char *const bad[] = {
		"10.0.0.0", "10.0.0.0/", "10.0.0.0/33", "10.0.0.0/8x", "10.0.0.0/-1", "/8", "10.0.0.256/8",
		"10.0.0/8", "::/129", "2001:db8::g/32", "2001:db8::/ 32", "",
		"0123456789012345678901234567890123456789012345678901234567890123456789/8",
	};
	uint8_t a[16], len;

	for (size_t i = 0; i < sizeof(bad) / sizeof(bad[0]); i++)
		CHECK(fwd_parse_prefix(bad[i], a, &len) == -EINVAL, "'%s' accepted", bad[i]);
	CHECK(fwd_parse_prefix("10.1.2.3/12", a, &len) == 4 && len == 12 && a[0] == 10 && a[1] == 0 &&
	      a[2] == 0 && a[3] == 0, "10.1.2.3/12: host bits not cleared");
	CHECK(fwd_parse_prefix("0.0.0.0/0", a, &len) == 4 && len == 0, "0.0.0.0/0");
	CHECK(fwd_parse_prefix("255.255.255.255/0x20", a, &len) == 4 && len == 32 && a[3] == 255, "/0x20");
	CHECK(fwd_parse_prefix("2001:db8:ffff::1/36", a, &len) == 6 && len == 36 && a[0] == 0x20 &&
	      a[3] == 0xb8 && a[4] == 0xf0 && a[5] == 0 && a[15] == 0, "2001:db8:ffff::1/36");
	CHECK(fwd_parse_prefix("::1/128", a, &len) == 6 && len == 128 && a[15] == 1, "::1/128");
}

int
main(void)
{
	struct vpk_fwd_conf conf = { .num_tbl8 = 64, .n_bufs = 1024 };
	struct vpk_fib_stats st0, st1;
	struct vpk_adj adj1;
	struct vpk_fwd *f;
	uint32_t lookup[4] = { 0x0a000105, 0x0b000001, 0x0c000001, 0x0a000205 }, n_ifs;
	uint64_t before[4], after[4];
	char err[512], text[4096];
	int rc, pos;

	check_init("fwd.config");
	test_prefixes();
	CHECK(vpk_fwd_create(&conf, &f) == 0, "create");
	rc = exec_text(f,
		       "interface eth0\n"
		       "interface eth1\n"
		       "neighbor 1 02:00:00:00:00:01 dev eth0\n"
		       "neighbor 2 02:00:00:00:00:02 dev eth1\n"
		       "route add 11.0.0.0/8 via 1\n"
		       "route add 12.0.0.0/8 via 2\n"
		       "route add 10.0.1.0/25 via 2\n", err, sizeof(err));
	CHECK(rc == 0, "base config: %s", err);
	vpk_fib_get_stats(f->fib4, &st0);
	vpk_fib_lookup_bulk(f->fib4, lookup, before, 4);
	adj1 = f->adj[1];
	n_ifs = (uint32_t)f->n_ifs;

	/* Valid lines, but /25s in 64 new /24s need 64 more groups (64 in all, 1 used). */
	pos = snprintf(text, sizeof(text),
		       "interface eth2\n"
		       "neighbor 1 02:00:00:00:00:99 dev eth2\n"
		       "route add 11.0.0.0/8 via 2\n"          /* replaces */
		       "route del 12.0.0.0/8\n"                /* deletes */
		       "route add 10.0.0.0/8 via 1\n");        /* adds */
	for (int i = 2; i < 66; i++)                            /* line 6 + 63 = 69 fails */
		pos += snprintf(text + pos, sizeof(text) - (size_t)pos, "route add 10.0.%d.0/25 via 2\n", i);
	rc = exec_text(f, text, err, sizeof(err));
	CHECK(rc == -ENOSPC, "want -ENOSPC, got %d (%s)", rc, err);
	CHECK(strstr(err, "test.conf:69:") != NULL && strstr(err, "undone") != NULL, "error text: %s", err);
	vpk_fib_get_stats(f->fib4, &st1);
	vpk_fib_lookup_bulk(f->fib4, lookup, after, 4);
	CHECK(memcmp(before, after, sizeof(before)) == 0, "lookups changed by a failed file");
	CHECK(route_nh(f, "11.0.0.0", 8) == 1, "replaced route not restored");
	CHECK(route_nh(f, "12.0.0.0", 8) == 2, "deleted route not restored");
	CHECK(route_nh(f, "10.0.0.0", 8) == 0, "added route not removed");
	CHECK(route_nh(f, "10.0.2.0", 25) == 0, "added /25 not removed");
	CHECK(st1.routes == st0.routes && st1.tbl8_used == st0.tbl8_used,
	      "routes %u->%u, groups %u->%u", st0.routes, st1.routes, st0.tbl8_used, st1.tbl8_used);
	CHECK(memcmp(&f->adj[1], &adj1, sizeof(adj1)) == 0, "neighbor 1 not restored");
	CHECK(f->n_ifs == n_ifs, "interface eth2 not removed");

	/* The same file without the line that does not fit applies completely. */
	rc = exec_text(f,
		       "route add 11.0.0.0/8 via 2\n"
		       "route del 12.0.0.0/8\n"
		       "route add 10.0.2.0/25 via 1\n"
		       "route add 10.0.0.0/8 via 1\n", err, sizeof(err));
	CHECK(rc == 0, "second file: %s", err);
	CHECK(route_nh(f, "11.0.0.0", 8) == 2 && route_nh(f, "12.0.0.0", 8) == 0 &&
	      route_nh(f, "10.0.2.0", 25) == 1 && route_nh(f, "10.0.0.0", 8) == 1, "second file not applied");
	/* Numbers: decimal or 0x-hex (one parser for every command); junk refused with the line. */
	CHECK(vpk_fwd_exec(f, "route add 13.0.0.0/8 via 0x2", err, sizeof(err)) == 0 &&
	      route_nh(f, "13.0.0.0", 8) == 2, "hex next hop: %s", err);
	rc = exec_text(f, "route add 14.0.0.0/8 via 1\nroute add 15.0.0.0/8 via 0xg\n", err, sizeof(err));
	CHECK(rc == -EINVAL && strstr(err, "test.conf:2:") != NULL && route_nh(f, "14.0.0.0", 8) == 0,
	      "bad number: rc %d (%s)", rc, err);
	CHECK(vpk_fwd_exec(f, "route add 2001:db8::/32 via 2", err, sizeof(err)) == 0, "IPv6 route: %s", err);
	CHECK(vpk_fwd_exec(f, "route del 2001:db9::/32", err, sizeof(err)) == -ENOENT &&
	      strstr(err, "no such route") != NULL, "IPv6 del of a missing route: %s", err);
	vpk_fwd_destroy(f);
	return check_finish();
}
