/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * show / clear of the control socket. Every show takes --json. Counters
 * are summed over the worker threads (show runtime keeps one section per
 * thread: fwd_cli_runtime.c). Called with the control lock held, so the
 * tables do not change under a walk.
 */
#include <arpa/inet.h>
#include <errno.h>
#include <stdarg.h>
#include <string.h>

#include <vpk/icmp.h>
#include "common/json.h"
#include "fwd/fwd_cli.h"
#include "fwd/fwd_priv.h"

static const char *const show_usage =
	"usage: show runtime [verbose] | errors | interface | node NAME | trace | fib [PREFIX] | acl | neighbors"
	" | linux-sync [--json]";

/* A table's start: the JSON document {"@key": [ ..., or the text header line @fmt. */
static void __attribute__((format(printf, 5, 6)))
table_begin(struct json *j, bool json, FILE *out, const char *key, const char *fmt, ...)
{
	va_list ap;

	if (json) {
		json_doc_arr(j, out, key);
		return;
	}
	va_start(ap, fmt);
	vfprintf(out, fmt, ap);
	va_end(ap);
}

static void
show_errors(struct vpk_fwd *f, bool json, FILE *out)
{
	unsigned n = vpk_fwd_n_workers(f);
	const struct vpk_graph *g0 = vpk_fwd_graph(f);
	struct json j;
	bool any = false;

	table_begin(&j, json, out, "errors", "%12s  %-24s %s\n", "Count", "Node", "Reason");
	for (size_t i = 0; g0 != NULL && i < vpk_graph_n_nodes(g0); i++) {
		struct vpk_node_stats s;

		vpk_graph_get_node_stats(g0, i, &s);
		for (uint16_t k = 0; k < vpk_graph_node_n_errors(g0, i); k++) {
			const char *why = NULL;
			uint64_t c = 0, cw;

			for (unsigned w = 0; w < n; w++)
				if (vpk_graph_node_error(vpk_fwd_worker_graph(f, w), i, k, &why, &cw) == 0)
					c += cw;
			if (c == 0)
				continue;
			any = true;
			if (json) {
				json_record(&j, NULL, JS("node", s.name), JS("reason", why), JU("count", c));
			} else {
				fprintf(out, "%12llu  %-24s %s\n", (unsigned long long)c, s.name, why);
			}
		}
	}
	if (json) {
		json_close(&j);
	} else if (!any) {
		fprintf(out, "%12s  (no counters)\n", "");
	}
}

static void
show_interface(struct vpk_fwd *f, bool json, FILE *out)
{
	struct json j;

	table_begin(&j, json, out, "interfaces", "%-16s %5s %-5s %-17s %-12s %14s %14s %12s\n", "Name", "Idx",
		    "State", "MAC", "Device", "rx packets", "tx packets", "drops");
	for (size_t i = 0; i < f->n_ifs; i++) {
		const struct fwd_if *x = &f->ifs[i];
		char mac[18];
		uint64_t down_drops;
		bool down = fwd_if_down(f, i, &down_drops);

		snprintf(mac, sizeof(mac), "%02x:%02x:%02x:%02x:%02x:%02x", x->mac[0], x->mac[1], x->mac[2],
			 x->mac[3], x->mac[4], x->mac[5]);
		if (json) {
			json_record(&j, NULL, JS("name", x->name), JU("index", i), JS("mac", mac),
					      JS("device", x->live != NULL ? x->live : ""), JU("rx", x->rx),
					      JU("tx", x->tx), JU("rx_drop", x->rx_drop),
					      JU("tx_drop", x->tx_drop + x->tx_no_output),
					      JS("state", down ? "down" : "up"),
					      JU("tx_admin_down", down_drops));
		} else {
			fprintf(out, "%-16s %5zu %-5s %-17s %-12s %14llu %14llu %12llu\n", x->name, i, down ? "down" : "up",
				mac, x->live != NULL ? x->live : x->in_path != NULL ? "pcap" : "-",
				(unsigned long long)x->rx, (unsigned long long)x->tx,
				(unsigned long long)(x->rx_drop + x->tx_drop + x->tx_no_output + down_drops));
		}
	}
	if (json)
		json_close(&j);
}

static int
show_node(struct vpk_fwd *f, const char *name, bool json, FILE *out)
{
	const struct vpk_node_reg *r = vpk_node_find(name);
	unsigned n = vpk_fwd_n_workers(f);
	struct vpk_node_stats sum = { .name = name, .variant = "-" };
	struct json j;

	if (r == NULL) {
		fprintf(out, "show node: no node '%s'\n", name);
		return -ENOENT;
	}
	for (unsigned w = 0; w < n; w++) {
		const struct vpk_graph *g = vpk_fwd_worker_graph(f, w);
		int i = vpk_graph_node_index(g, name);
		struct vpk_node_stats s;

		if (i < 0 || vpk_graph_get_node_stats(g, (size_t)i, &s) != 0)
			continue;
		sum.variant = s.variant;
		sum.calls += s.calls;
		sum.vectors += s.vectors;
		sum.clocks += s.clocks;
	}
	if (json) {
		json_init(&j, out);
		json_obj(&j, NULL);
		json_fields(&j, JS("name", name),
				JS("type", r->type == VPK_NODE_INPUT ? "input" : "internal"),
				JS("variant", sum.variant), JU("calls", sum.calls),
				JU("vectors", sum.vectors), JU("clocks", sum.clocks));
		json_arr(&j, "next");
		for (uint16_t a = 0; a < r->n_next; a++)
			json_str(&j, NULL, r->next_names[a]);
		json_end(&j);
		json_end(&j);
		json_done(&j);
		return 0;
	}
	fprintf(out, "node %s, type %s, variant %s\n  calls %llu, vectors %llu, clocks %llu\n  next nodes:", name,
		r->type == VPK_NODE_INPUT ? "input" : "internal", sum.variant, (unsigned long long)sum.calls,
		(unsigned long long)sum.vectors, (unsigned long long)sum.clocks);
	for (uint16_t a = 0; a < r->n_next; a++)
		fprintf(out, " [%u] %s", a, r->next_names[a]);
	fputc('\n', out);
	return 0;
}

static void
show_trace(struct vpk_fwd *f, bool json, FILE *out)
{
	const struct vpk_trace_rec *tr;
	const struct vpk_graph *g = vpk_fwd_graph(f);
	size_t n = g != NULL ? vpk_graph_trace(g, &tr) : 0; /* no graph: control plane only */
	struct json j;

	if (json) {
		json_doc_arr(&j, out, "trace");
	} else if (n == 0) {
		fputs("no trace (vpk fwd --trace N records the first N packets)\n", out);
	}
	for (size_t i = 0; i < n; i++) {
		if (json) {
			json_record(&j, NULL, JU("packet", tr[i].pkt), JS("node", tr[i].node),
					      JS("next", tr[i].next), JS("detail", tr[i].detail));
		} else {
			fprintf(out, "  pkt %-4u %-18s -> %-18s %s\n", tr[i].pkt, tr[i].node,
				tr[i].next[0] ? tr[i].next : "(end)", tr[i].detail);
		}
	}
	if (json)
		json_close(&j);
}

struct fib_out {
	struct vpk_fwd *f;
	struct json *j;
	FILE *out;
	uint64_t n;
};

/* The paths of an ECMP group linux-sync made: a "paths" array, or " ecmp N: GW dev D, ..." */
static void
fib_paths(struct fib_out *o, uint32_t nh)
{
	char gw[64], dev[32];
	unsigned n = fwd_linux_path(o->f, nh, 0, gw, sizeof(gw), dev, sizeof(dev));

	if (n == 0)
		return;
	if (o->j != NULL)
		json_arr(o->j, "paths");
	else
		fprintf(o->out, " ecmp %u:", n);
	for (unsigned i = 0; i < n && fwd_linux_path(o->f, nh, i, gw, sizeof(gw), dev, sizeof(dev)) != 0; i++) {
		if (o->j != NULL) {
			json_obj(o->j, NULL);
			json_str(o->j, "gateway", gw);
			json_str(o->j, "dev", dev);
			json_end(o->j);
		} else {
			fprintf(o->out, "%s %s dev %s", i ? "," : "", gw, dev);
		}
	}
	if (o->j != NULL)
		json_end(o->j);
}

static void
fib_entry(struct fib_out *o, const char *prefix, uint64_t nh)
{
	char gw[64] = "", dev[32] = "";
	bool ls = nh != 0 && fwd_linux_nh(o->f, (uint32_t)nh, gw, sizeof(gw), dev, sizeof(dev));
	const char *ifname = "";
	char host[80];
	bool is_host;

	/* linux-sync's route to an on-link host: ADDR/32 (/128) through the host itself */
	snprintf(host, sizeof(host), "%s/%u", gw, strchr(gw, ':') != NULL ? 128 : 32);
	is_host = ls && gw[0] != '\0' && strcmp(host, prefix) == 0;

	if (!ls && nh != 0 && nh <= o->f->conf.max_neighbors && o->f->adj[nh].valid)
		ifname = o->f->ifs[o->f->adj_if[nh]].name;
	o->n++;
	if (o->j != NULL) {
		json_obj(o->j, NULL);
		json_str(o->j, "prefix", prefix);
		json_u64(o->j, "via", nh);
		if (nh == VPK_NH_LOCAL) {
			json_bool(o->j, "local", true);
		} else if (ls) {
			json_str(o->j, "gateway", gw);
			json_str(o->j, "dev", dev);
			if (is_host)
				json_bool(o->j, "host", true);
			fib_paths(o, (uint32_t)nh);
		} else if (ifname[0] != '\0') {
			json_str(o->j, "interface", ifname);
		}
		json_end(o->j);
		return;
	}
	if (nh == 0)
		fprintf(o->out, "%-44s drop\n", prefix);
	else if (nh == VPK_NH_LOCAL)
		fprintf(o->out, "%-44s local\n", prefix);
	else if (ls)
		fprintf(o->out, "%-44s via %llu%s%s dev %s%s", prefix, (unsigned long long)nh, gw[0] ? " gateway " : "",
			gw, dev, is_host ? " (neighbour)" : ""), fib_paths(o, (uint32_t)nh), fputc('\n', o->out);
	else
		fprintf(o->out, "%-44s via %llu%s%s\n", prefix, (unsigned long long)nh, ifname[0] ? " interface " : "",
			ifname);
}

static int
fib4_cb(void *arg, uint32_t ip, uint8_t depth, uint64_t nh)
{
	char p[48];

	snprintf(p, sizeof(p), "%u.%u.%u.%u/%u", ip >> 24, (ip >> 16) & 255, (ip >> 8) & 255, ip & 255, depth);
	fib_entry(arg, p, nh);
	return 0;
}

static int
fib6_cb(void *arg, const uint8_t ip[16], uint8_t depth, uint64_t nh)
{
	char a[INET6_ADDRSTRLEN], p[INET6_ADDRSTRLEN + 8];

	inet_ntop(AF_INET6, ip, a, sizeof(a));
	snprintf(p, sizeof(p), "%s/%u", a, depth);
	fib_entry(arg, p, nh);
	return 0;
}

static void
show_fib(struct vpk_fwd *f, bool json, FILE *out)
{
	struct json j;
	struct fib_out o = { f, json ? &j : NULL, out, 0 };

	if (json) {
		json_doc_arr(&j, out, "ipv4");
	} else {
		fputs("ipv4:\n", out);
	}
	vpk_fib_walk(f->fib4, fib4_cb, &o);
	if (json)
		json_end(&j), json_arr(&j, "ipv6");
	else
		fprintf(out, "%llu routes\nipv6:\n", (unsigned long long)o.n);
	o.n = 0;
	vpk_fib6_walk(f->fib6, fib6_cb, &o);
	if (json) {
		json_close(&j);
	} else {
		fprintf(out, "%llu routes\n", (unsigned long long)o.n);
	}
}

/* show fib PREFIX: the route of exactly that prefix, if any. */
static int
show_fib_prefix(struct vpk_fwd *f, const char *pfx, bool json, FILE *out)
{
	struct json j;
	struct fib_out o = { f, json ? &j : NULL, out, 0 };
	uint8_t ip[16], len;
	uint64_t nh = 0;
	int fam = fwd_parse_prefix(pfx, ip, &len), rc;

	if (fam < 0) {
		fprintf(out, "show fib: bad prefix '%s' (want a.b.c.d/len or an IPv6 address/len)\n", pfx);
		return -EINVAL;
	}
	rc = fam == 4 ? vpk_fib_get(f->fib4, (uint32_t)ip[0] << 24 | (uint32_t)ip[1] << 16 | (uint32_t)ip[2] << 8 | ip[3],
				    len, &nh)
		      : vpk_fib6_get(f->fib6, ip, len, &nh);
	if (json) {
		json_init(&j, out);
		json_obj(&j, NULL);
		json_arr(&j, fam == 4 ? "ipv4" : "ipv6");
	}
	if (rc == 0 && fam == 4)
		fib4_cb(&o, (uint32_t)ip[0] << 24 | (uint32_t)ip[1] << 16 | (uint32_t)ip[2] << 8 | ip[3], len, nh);
	else if (rc == 0)
		fib6_cb(&o, ip, len, nh);
	if (json) {
		json_close(&j);
	} else if (rc != 0) {
		fprintf(out, "%s: no such route\n", pfx);
	}
	return 0;
}

static void
show_acl(struct vpk_fwd *f, bool json, FILE *out)
{
	struct json j;

	if (json) {
		json_init(&j, out);
		json_obj(&j, NULL);
	}
	for (int v6 = 0; v6 < 2; v6++) {
		const struct fwd_acl *a = v6 ? &f->acl6 : &f->acl4;
		struct vpk_acl_stats st = { 0 };

		if (a->acl != NULL)
			vpk_acl_get_stats(a->acl, &st);
		if (json) {
			json_obj(&j, v6 ? "ipv6" : "ipv4");
			json_fields(&j, JB("loaded", a->acl != NULL),
					JU("rules", a->acl != NULL ? a->nc.n_action - 1 : 0),
					JS("variant", a->acl != NULL ? vpk_acl_impl_name(a->acl) : "-"),
					JU("fragment_rules", a->acl_frag != NULL ? 1 : 0));
			json_end(&j);
		} else if (a->acl == NULL) {
			fprintf(out, "%s: no rules\n", v6 ? "ipv6" : "ipv4");
		} else {
			fprintf(out, "%s: %u rules, variant %s, %u trees, %zu bytes\n", v6 ? "ipv6" : "ipv4",
				a->nc.n_action - 1, vpk_acl_impl_name(a->acl), st.trees, st.runtime_bytes);
		}
	}
	if (json) {
		json_str(&j, "fragments", f->acl_frag_policy == VPK_ACL_FRAG_DROP ? "drop" : "portless");
		json_end(&j);
		json_done(&j);
	} else {
		fprintf(out, "fragments: %s\n", f->acl_frag_policy == VPK_ACL_FRAG_DROP ? "drop" : "portless");
	}
}

static void
show_neighbors(struct vpk_fwd *f, bool json, FILE *out)
{
	struct json j;

	table_begin(&j, json, out, "neighbors", "%8s %-17s %-16s %s\n", "ID", "MAC", "Interface", "Gateway");
	for (uint32_t id = 1; id <= f->conf.max_neighbors; id++) {
		const struct vpk_adj *a = &f->adj[id];
		char mac[18], gw[64] = "", dev[32] = "";
		bool ls = fwd_linux_nh(f, id, gw, sizeof(gw), dev, sizeof(dev));

		if (!a->valid && !ls)
			continue;
		snprintf(mac, sizeof(mac), "%02x:%02x:%02x:%02x:%02x:%02x", a->dst_mac[0], a->dst_mac[1],
			 a->dst_mac[2], a->dst_mac[3], a->dst_mac[4], a->dst_mac[5]);
		if (json) {
			json_obj(&j, NULL);
			json_fields(&j, JU("id", id), JB("valid", a->valid), JS("mac", mac),
					JS("interface", a->valid ? f->ifs[f->adj_if[id]].name : ""));
			if (ls)
				json_str(&j, "gateway", gw), json_str(&j, "dev", dev);
			json_end(&j);
		} else {
			fprintf(out, "%8u %-17s %-16s %s%s%s\n", id, a->valid ? mac : "(incomplete)",
				a->valid ? f->ifs[f->adj_if[id]].name : "-", ls ? (gw[0] ? gw : "(on link)") : "",
				ls ? " dev " : "", dev);
		}
	}
	if (json)
		json_close(&j);
}

int
fwd_cli_show(struct vpk_fwd *f, int argc, char **argv, FILE *out)
{
	bool json = argc > 1 && strcmp(argv[argc - 1], "--json") == 0;
	int n = json ? argc - 1 : argc;
	const char *what = n > 1 ? argv[1] : "";

	if (n == 2 && strcmp(what, "runtime") == 0)
		fwd_cli_show_runtime(f, false, json, out);
	else if (n == 3 && strcmp(what, "runtime") == 0 && strcmp(argv[2], "verbose") == 0)
		fwd_cli_show_runtime(f, true, json, out);
	else if (n == 2 && strcmp(what, "errors") == 0)
		show_errors(f, json, out);
	else if (n == 2 && (strcmp(what, "interface") == 0 || strcmp(what, "interfaces") == 0))
		show_interface(f, json, out);
	else if (n == 3 && strcmp(what, "node") == 0)
		return show_node(f, argv[2], json, out);
	else if (n == 2 && strcmp(what, "trace") == 0)
		show_trace(f, json, out);
	else if (n == 2 && strcmp(what, "fib") == 0)
		show_fib(f, json, out);
	else if (n == 3 && strcmp(what, "fib") == 0)
		return show_fib_prefix(f, argv[2], json, out);
	else if (n == 2 && strcmp(what, "acl") == 0)
		show_acl(f, json, out);
	else if (n == 2 && (strcmp(what, "neighbors") == 0 || strcmp(what, "neighbours") == 0))
		show_neighbors(f, json, out);
	else if (n == 2 && strcmp(what, "linux-sync") == 0) {
		if (fwd_linux_show(f, json, out) != 0) {
			fputs("show linux-sync: linux-sync is not configured\n", out);
			return -ENOENT;
		}
	} else {
		fprintf(out, "%s\n", show_usage);
		return -EINVAL;
	}
	return 0;
}

int
fwd_cli_clear(struct vpk_fwd *f, int argc, char **argv, FILE *out)
{
	/* Node counters and error counters live together: both clear together, as in VPP. */
	if (argc != 2 || (strcmp(argv[1], "runtime") != 0 && strcmp(argv[1], "errors") != 0)) {
		fputs("usage: clear runtime | clear errors\n", out);
		return -EINVAL;
	}
	if (f->ctl != NULL)
		fwd_ctl_clear(f);
	return 0;
}
