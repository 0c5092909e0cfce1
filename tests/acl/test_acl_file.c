/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * Rule and trace files: the dpdk-test-acl / ClassBench and l3fwd formats
 * parse to the expected values; every malformed line gives "name:line:
 * reason" and nothing is returned; write -> parse round trips; the
 * generator is deterministic and the oracle agrees with a plain scan.
 */
#include <errno.h>
#include <stdlib.h>
#include <string.h>

#include <vpk/acl_file.h>
#include "acl/acl_gen.h"
#include "acl/acl_oracle.h"

#include "lib/check.h"

static void
good_rules(void)
{
	const char *txt = "# comment\n\n@192.168.1.0/24\t192.168.2.31/32\t0 : 65535\t1234 : 1234\t0x11/0xFF\t0x0000/0x0000\n"
			  "@0.0.0.0/0 10.1.0.0/16 1024 : 65535 0 : 0x10 6/0xfe\r\n";
	struct vpk_acl5_rule *r = NULL;
	uint32_t n = 0;
	int rc = vpk_acl5_parse_rules(txt, strlen(txt), "t", false, VPK_ACL5_CLASSBENCH, 0, &r, &n);

	CHECK(rc == 0 && n == 2, "two rules: rc %d n %u %s", rc, n, rc ? vpk_last_error() : "");
	if (rc == 0 && n == 2) {
		CHECK(r[0].src[0] == 192 && r[0].src[3] == 0 && r[0].src_len == 24 && r[0].dst_len == 32,
		      "addresses");
		CHECK(r[0].dport_lo == 1234 && r[0].dport_hi == 1234 && r[0].proto == 17 && r[0].proto_mask == 255,
		      "ports/proto");
		CHECK(r[1].src_len == 0 && r[1].sport_lo == 1024 && r[1].dport_hi == 16 && r[1].proto_mask == 0xfe,
		      "second rule");
		CHECK(r[0].port == -1, "no route port");
	}
	free(r);
	txt = "R0.0.0.0/0 192.168.0.36/32 0 : 65535 0 : 65535 6/0xfe 1\n@1.2.3.0/24 192.168.0.36/32 0 : 65535 0 : 65535 6/0xfe\n";
	rc = vpk_acl5_parse_rules(txt, strlen(txt), "l3", false, VPK_ACL5_L3FWD, 0, &r, &n);
	CHECK(rc == 0 && n == 2 && r[0].port == 1 && r[1].port == -1, "l3fwd R and @ lines");
	free(r);
	txt = "@2001:db8::/32 ::/0 0 : 65535 53 : 53 17/0xff\n";
	rc = vpk_acl5_parse_rules(txt, strlen(txt), "v6", true, VPK_ACL5_CLASSBENCH, 0, &r, &n);
	CHECK(rc == 0 && n == 1 && r[0].src[0] == 0x20 && r[0].src[1] == 0x01 && r[0].src_len == 32, "IPv6 rule");
	free(r);
}

static void
bad_rule(const char *txt, enum vpk_acl5_format fmt, bool ipv6, int want, const char *needle)
{
	struct vpk_acl5_rule *r = (void *)0x1;
	uint32_t n = 77;
	int rc = vpk_acl5_parse_rules(txt, strlen(txt), "f.rules", ipv6, fmt, 3, &r, &n);

	CHECK(rc == want && strstr(vpk_last_error(), needle) != NULL && r == (void *)0x1 && n == 77,
	      "'%s': rc %d why '%s' (want %d, '%s')", txt, rc, vpk_last_error(), want, needle);
}

static void
bad_rules(void)
{
	const char *ok = "@1.0.0.0/8 2.0.0.0/8 0 : 65535 0 : 65535 6/0xff\n";
	char buf[512];

	bad_rule("@1.0.0.0/8 2.0.0.0/8 0 : 65535 0 : 65535\n", VPK_ACL5_CLASSBENCH, false, -EINVAL, "f.rules:1: 8 fields");
	snprintf(buf, sizeof(buf), "%s%s", ok, "@1.0.0.0/33 2.0.0.0/8 0 : 65535 0 : 65535 6/0xff\n");
	bad_rule(buf, VPK_ACL5_CLASSBENCH, false, -EINVAL, "f.rules:2: bad source prefix");
	bad_rule("@1.0.0.0/8 2.0.0/8 0 : 65535 0 : 65535 6/0xff\n", VPK_ACL5_CLASSBENCH, false, -EINVAL, "bad destination prefix");
	bad_rule("@1.0.0.0/8 2.0.0.0/8 0:65535 0 : 65535 6/0xff 1 2\n", VPK_ACL5_CLASSBENCH, false, -EINVAL, "own token");
	bad_rule("@1.0.0.0/8 2.0.0.0/8 10 : 5 0 : 65535 6/0xff\n", VPK_ACL5_CLASSBENCH, false, -EINVAL, "source port range 10 > 5");
	bad_rule("@1.0.0.0/8 2.0.0.0/8 0 : 65536 0 : 65535 6/0xff\n", VPK_ACL5_CLASSBENCH, false, -EINVAL, "bad source port range");
	bad_rule("@1.0.0.0/8 2.0.0.0/8 0 : 65535 0 : 65535 6\n", VPK_ACL5_CLASSBENCH, false, -EINVAL, "bad protocol");
	bad_rule("@1.0.0.0/8 2.0.0.0/8 0 : 65535 0 : 65535 256/0xff\n", VPK_ACL5_CLASSBENCH, false, -EINVAL, "0..255");
	bad_rule("X1.0.0.0/8 2.0.0.0/8 0 : 65535 0 : 65535 6/0xff\n", VPK_ACL5_CLASSBENCH, false, -EINVAL, "starts with 'X'");
	bad_rule("R1.0.0.0/8 2.0.0.0/8 0 : 65535 0 : 65535 6/0xff 1\n", VPK_ACL5_CLASSBENCH, false, -EINVAL, "starts with 'R'");
	bad_rule("R1.0.0.0/8 2.0.0.0/8 0 : 65535 0 : 65535 6/0xff\n", VPK_ACL5_L3FWD, false, -EINVAL, "expected 10");
	bad_rule("@1.0.0.0/8 2.0.0.0/8 0 : 65535 0 : 65535 6/0xff\n", VPK_ACL5_L3FWD, false, -EINVAL, "no route");
	bad_rule("@1.0.0.0/8 ::/0 0 : 65535 0 : 65535 6/0xff\n", VPK_ACL5_CLASSBENCH, true, -EINVAL, "bad source prefix");
	snprintf(buf, sizeof(buf), "%s%s%s%s", ok, ok, ok, ok);
	bad_rule(buf, VPK_ACL5_CLASSBENCH, false, -E2BIG, "f.rules:4: more than 3 rules");
}

static void
traces(void)
{
	const char *txt = "3232235777\t3232236063\t1234\t53\t17\t0\n0x0a000001 1 2 3 6\n";
	struct vpk_acl5_pkt *p = NULL;
	uint32_t n = 0;
	int rc = vpk_acl5_parse_trace(txt, strlen(txt), "f.trace", false, 0, &p, &n);

	CHECK(rc == 0 && n == 2 && p[0].src[0] == 192 && p[0].dport == 53 && p[0].has_expected &&
	      p[0].expected == 0 && !p[1].has_expected && p[1].src[0] == 10, "trace parses");
	free(p);
	rc = vpk_acl5_parse_trace(txt, strlen(txt), "f.trace", false, 1, &p, &n);
	CHECK(rc == 0 && n == 1, "tracenum limit");
	free(p);
	p = (void *)0x1;
	rc = vpk_acl5_parse_trace("1 2 3 4 5\n1.2.3.4 2 3 4 5\n", 28, "f.trace", false, 0, &p, &n);
	CHECK(rc == -EINVAL && strstr(vpk_last_error(), "f.trace:2: bad IPv4 source address") && p == (void *)0x1,
	      "dotted quad refused: %s", vpk_last_error());
	rc = vpk_acl5_parse_trace("1 2 3 70000 5\n", 14, "f.trace", false, 0, &p, &n);
	CHECK(rc == -EINVAL && strstr(vpk_last_error(), "bad destination port"), "port range: %s", vpk_last_error());
	rc = vpk_acl5_parse_trace("1 2 3\n", 6, "f.trace", false, 0, &p, &n);
	CHECK(rc == -EINVAL && strstr(vpk_last_error(), "3 fields"), "short line: %s", vpk_last_error());
	rc = vpk_acl5_load_trace("/nonexistent/x", false, 0, &p, &n);
	CHECK(rc == -ENOENT && strstr(vpk_last_error(), "/nonexistent/x"), "missing file: %d %s", rc, vpk_last_error());
}

static void
roundtrip(bool ipv6)
{
	struct vpk_acl_gen_conf gc = { .profile = VPK_ACL_GEN_FW, .ipv6 = ipv6, .rules = 300, .seed = 7 };
	struct vpk_acl5_rule *r, *r2, *r3;
	struct vpk_acl5_pkt *p, *p2;
	char *buf = NULL;
	size_t len = 0;
	uint32_t n, np;
	FILE *f;

	CHECK(vpk_acl_gen_rules(&gc, &r) == 0, "generate");
	CHECK(vpk_acl_gen_rules(&gc, &r2) == 0, "generate again");
	CHECK(memcmp(r, r2, 300 * sizeof(*r)) == 0, "same seed, same rules");
	free(r2);
	f = open_memstream(&buf, &len);
	vpk_acl5_write_rules(f, r, 300, ipv6);
	fclose(f);
	CHECK(vpk_acl5_parse_rules(buf, len, "mem", ipv6, VPK_ACL5_CLASSBENCH, 0, &r3, &n) == 0 &&
	      n == 300 && memcmp(r, r3, 300 * sizeof(*r)) == 0, "rules round trip (ipv6=%d)", ipv6);
	free(buf);
	free(r3);
	CHECK(vpk_acl_gen_trace(r, 300, ipv6, 500, 7, 0.05, &p) == 0 && vpk_acl5_oracle(r, 300, p, 500, ipv6) == 0,
	      "trace + oracle");
	for (uint32_t i = 0; i < 500; i++) {
		uint32_t want = VPK_ACL5_NO_MATCH;

		for (uint32_t k = 0; k < 300 && want == VPK_ACL5_NO_MATCH; k++)
			if (vpk_acl5_match(&r[k], &p[i], ipv6))
				want = k;
		if (p[i].expected != want) {
			CHECK(0, "oracle pkt %u: %u vs scan %u", i, p[i].expected, want);
			break;
		}
	}
	buf = NULL;
	f = open_memstream(&buf, &len);
	vpk_acl5_write_trace(f, p, 500, ipv6);
	fclose(f);
	CHECK(vpk_acl5_parse_trace(buf, len, "mem", ipv6, 0, &p2, &np) == 0 && np == 500 &&
	      memcmp(p, p2, 500 * sizeof(*p)) == 0, "trace round trip (ipv6=%d)", ipv6);
	free(buf);
	free(p);
	free(p2);
	free(r);
}

int
main(void)
{
	check_init("acl_file");
	good_rules();
	bad_rules();
	traces();
	roundtrip(false);
	roundtrip(true);
	return check_finish();
}
