/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * Fuzz the forwarder's configuration interpreter (vpk_fwd_exec_file(), the
 * code behind `vpk fwd -c FILE` and the control socket) against one
 * forwarder that lives across inputs: creating one per input costs
 * milliseconds (FIB tables, pool), which held this target near 200
 * inputs/s; resetting it costs microseconds.
 *
 * The forwarder starts from a fixed configuration (two interfaces, a
 * neighbor, IPv4 and IPv6 routes) so inputs can update existing state, not
 * only create it. Per input:
 *   - any text either applies (0) or is refused with "fuzz.conf:LINE: ...";
 *   - a refused file changes nothing (the documented contract): interfaces,
 *     show commands, neighbors, IPv4 and IPv6 routes are compared with a
 *     digest taken before (ACLs are not: an `acl load` applied before a
 *     line that fails while applying stays, as documented);
 *   - every route the file left is deleted again through the interpreter
 *     (`route del`, so deletion is exercised too), the rest of the state is
 *     reset with the forwarder's own cleanup functions, the base
 *     configuration re-applied, and the digest must equal the base one.
 * `acl load` names files: the setup writes small ClassBench and l3fwd rule
 * files under /tmp/vpk-fuzz-fwd-config/ (the seeds use them).
 */
// fuzz-libs: vpk_tool_fwd
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "fwd/fwd.h"

#include "fwd/fwd_priv.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

#define RULE_DIR "/tmp/vpk-fuzz-fwd-config"

static struct vpk_fwd *fwd;
static uint64_t base_digest;

static const char *const base_cfg[] = {
	"interface eth0 mac 02:00:00:00:00:01",
	"interface eth1 out discard",
	"neighbor 1 02:aa:00:00:00:01 dev eth1",
	"route add 10.1.0.0/24 via 1",
	"route add 2001:db8::/48 via 1",
};

static const char *const rule_files[][2] = {
	{ RULE_DIR "/acl4.rules",
	  "@10.0.0.0/8 192.168.0.0/16 0 : 65535 53 : 53 0x11/0xff\n"
	  "@0.0.0.0/0 0.0.0.0/0 0 : 65535 0 : 65535 0x00/0x00\n" },
	{ RULE_DIR "/l3fwd4.rules",
	  "@10.0.0.0/8 192.168.0.0/16 0 : 65535 22 : 22 0x06/0xff\n"
	  "R0.0.0.0/0 10.1.0.0/16 0 : 65535 0 : 65535 0x00/0x00 1\n" },
	{ RULE_DIR "/acl6.rules",
	  "@2001:db8::/32 2001:db8:9::/48 0 : 65535 22 : 22 0x06/0xff\n" },
};

/* FNV-1a over @n bytes, chained. */
static uint64_t
mix(uint64_t h, const void *p, size_t n)
{
	const uint8_t *b = p;

	for (size_t i = 0; i < n; i++)
		h = (h ^ b[i]) * UINT64_C(0x100000001b3);
	return h;
}

static int
walk4(void *arg, uint32_t ip, uint8_t depth, uint64_t nh)
{
	uint64_t *h = arg;

	*h = mix(*h, &ip, 4);
	*h = mix(*h, &depth, 1);
	*h = mix(*h, &nh, 8);
	return 0;
}

static int
walk6(void *arg, const uint8_t ip[16], uint8_t depth, uint64_t nh)
{
	uint64_t *h = arg;

	*h = mix(*h, ip, 16);
	*h = mix(*h, &depth, 1);
	*h = mix(*h, &nh, 8);
	return 0;
}

static uint64_t
mix_str(uint64_t h, const char *s)
{
	return s != NULL ? mix(h, s, strlen(s) + 1) : mix(h, "\xff", 1);
}

/*
 * Everything a configuration can change that the contract says a refused
 * file leaves alone; @acl: the ACLs too (an `acl load` that applied before
 * a later line failed while applying stays, as docs/forwarder.md says).
 */
static uint64_t
digest(const struct vpk_fwd *f, bool acl)
{
	uint64_t h = UINT64_C(0xcbf29ce484222325);

	h = mix(h, &f->n_ifs, sizeof(f->n_ifs));
	for (size_t i = 0; i < f->n_ifs; i++) {
		const struct fwd_if *x = &f->ifs[i];

		h = mix_str(h, x->name);
		h = mix(h, x->mac, 6);
		h = mix_str(mix_str(mix_str(h, x->in_path), x->out_path), x->live);
		h = mix(h, &x->live_type, sizeof(x->live_type));
		h = mix(h, &x->discard, 1);
	}
	h = mix(h, &f->n_shows, sizeof(f->n_shows));
	for (size_t i = 0; i < f->n_shows; i++)
		h = mix_str(h, f->shows[i]);
	h = mix(h, f->adj, (f->conf.max_neighbors + 1) * sizeof(f->adj[0]));
	h = mix(h, f->adj_if, (f->conf.max_neighbors + 1) * sizeof(f->adj_if[0]));
	vpk_fib_walk(f->fib4, walk4, &h);
	vpk_fib6_walk(f->fib6, walk6, &h);
	if (acl) {
		h = mix(h, &f->acl4.acl, sizeof(f->acl4.acl));
		h = mix(h, &f->acl6.acl, sizeof(f->acl6.acl));
	}
	return h;
}

static void
exec_or_die(const char *line)
{
	char err[512];

	if (vpk_fwd_exec(fwd, line, err, sizeof(err)) != 0) {
		fprintf(stderr, "fuzz: '%s' failed: %s\n", line, err);
		abort();
	}
}

struct dels {
	char line[64][80];
	size_t n;
};

static int
del4(void *arg, uint32_t ip, uint8_t depth, uint64_t nh)
{
	struct dels *d = arg;

	(void)nh;
	if (d->n < 64)
		snprintf(d->line[d->n++], sizeof(d->line[0]), "route del %u.%u.%u.%u/%u", ip >> 24,
			 ip >> 16 & 255, ip >> 8 & 255, ip & 255, depth);
	return 0;
}

static int
del6(void *arg, const uint8_t ip[16], uint8_t depth, uint64_t nh)
{
	struct dels *d = arg;
	char a[64] = "::";

	(void)nh;
	if (d->n < 64) {
		size_t k = 0;

		for (int i = 0; i < 16; i += 2)
			k += (size_t)snprintf(a + k, sizeof(a) - k, "%s%x", i ? ":" : "", ip[i] << 8 | ip[i + 1]);
		snprintf(d->line[d->n++], sizeof(d->line[0]), "route del %s/%u", a, depth);
	}
	return 0;
}

/* Back to the base configuration; routes go through the interpreter. */
static void
reset(void)
{
	struct dels d;

	do {
		d.n = 0;
		vpk_fib_walk(fwd->fib4, del4, &d);
		vpk_fib6_walk(fwd->fib6, del6, &d);
		for (size_t i = 0; i < d.n; i++)
			exec_or_die(d.line[i]);
	} while (d.n > 0);
	fwd_live_free(fwd);
	fwd_tunnel_free(fwd);
	fwd_acl_free(&fwd->acl4);
	fwd_acl_free(&fwd->acl6);
	for (size_t i = 0; i < fwd->n_ifs; i++) {
		free(fwd->ifs[i].in_path);
		free(fwd->ifs[i].out_path);
	}
	fwd->n_ifs = 0;
	while (fwd->n_shows > 0)
		free(fwd->shows[--fwd->n_shows]);
	memset(fwd->adj, 0, (fwd->conf.max_neighbors + 1) * sizeof(fwd->adj[0]));
	memset(fwd->adj_if, 0, (fwd->conf.max_neighbors + 1) * sizeof(fwd->adj_if[0]));
	for (size_t i = 0; i < sizeof(base_cfg) / sizeof(base_cfg[0]); i++)
		exec_or_die(base_cfg[i]);
}

static void
setup(void)
{
	/* BM16 (--fib4 bm16): a short prefix rewrites at most its 2^16-entry
	 * direct table, where DIR-24-8 rewrites up to 2^24 entries (a /0 took
	 * a tenth of a second instrumented); fuzz/fib_routes.c covers DIR-24-8. */
	struct vpk_fwd_conf conf = { .n_bufs = 64, .max_routes = 64, .num_tbl8 = 64, .max_neighbors = 64,
				     .fib4_type = VPK_FIB_BM16 };

	mkdir(RULE_DIR, 0777);
	for (size_t i = 0; i < sizeof(rule_files) / sizeof(rule_files[0]); i++) {
		char tmp[256];
		FILE *o;

		/* Written aside and renamed: several fuzzers may share the directory. */
		snprintf(tmp, sizeof(tmp), "%s.%d", rule_files[i][0], (int)getpid());
		o = fopen(tmp, "w");
		if (o == NULL || fputs(rule_files[i][1], o) < 0 || fclose(o) != 0 || rename(tmp, rule_files[i][0]) != 0)
			abort();
	}
	if (vpk_fwd_create(&conf, &fwd) != 0)
		abort();
	reset();
	base_digest = digest(fwd, true);
}

int
LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	char err[512];
	uint64_t before;
	FILE *in;
	int rc;

	if (fwd == NULL)
		setup();
	if (size == 0)
		return 0;       /* fmemopen() refuses empty buffers on older glibc */
	in = fmemopen((void *)(uintptr_t)data, size, "r");
	if (in == NULL)
		abort();
	before = digest(fwd, false);
	err[0] = '\0';
	rc = vpk_fwd_exec_file(fwd, in, "fuzz.conf", err, sizeof(err));
	fclose(in);
	if (rc != 0 && strncmp(err, "fuzz.conf:", 10) != 0) {
		fprintf(stderr, "fuzz: error without file name: %s\n", err);
		abort();
	}
	if (rc != 0 && digest(fwd, false) != before) {
		fprintf(stderr, "fuzz: refused file changed the forwarder (%s)\n", err);
		abort();
	}
	reset();
	if (digest(fwd, true) != base_digest)
		abort();
	return 0;
}
