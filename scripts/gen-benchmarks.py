#!/usr/bin/env python3
# SPDX-License-Identifier: BSD-3-Clause
"""Write docs/benchmarks.md (and its PNG charts) from the JSON of one `make bench` run.

    scripts/gen-benchmarks.py --bench build/bench --doc docs/benchmarks.md --img docs/img

Input: BENCH/steps.tsv (written by scripts/run-bench.sh: name, status, seconds,
command) and BENCH/NAME.json for every step that ran. Known steps are rendered
as tables (and charts when matplotlib is importable); any other JSON file is
rendered by a generic table, so a new `step` line in run-bench.sh shows up
without a change here. The claims table compares the figures of the documents
in shared/sources/ with this run's.
"""
import argparse
import datetime
import glob
import json
import os
import platform
import subprocess
import sys

from bench_claims import CLAIMS, acl_sets, cmd_of, fwd_mpps, results_map, short_cmd

# ---------------------------------------------------------------- helpers


def load(bench):
    steps, data = [], {}
    path = os.path.join(bench, "steps.tsv")
    if os.path.exists(path):
        with open(path) as f:
            for line in f.read().splitlines()[1:]:
                parts = line.split("\t", 3)
                if len(parts) == 4:
                    steps.append(dict(name=parts[0], status=parts[1], seconds=int(parts[2]), command=parts[3]))
    for p in sorted(glob.glob(os.path.join(bench, "*.json"))):
        name = os.path.basename(p)[:-5]
        try:
            with open(p) as f:
                data[name] = json.load(f)
        except (OSError, ValueError) as e:
            print(f"gen-benchmarks: {p}: not JSON ({e}); left out", file=sys.stderr)
    return steps, data


def fmt(v, nd=2):
    if v is None:
        return "-"
    if isinstance(v, bool):
        return "yes" if v else "no"
    if isinstance(v, float):
        if abs(v) >= 1000:
            return f"{v:.0f}"
        if abs(v) >= 100:
            return f"{v:.1f}"
        return f"{v:.{nd}f}"
    return str(v)


def table(head, rows):
    out = ["| " + " | ".join(head) + " |", "|" + "---|" * len(head)]
    for r in rows:
        out.append("| " + " | ".join(fmt(c) for c in r) + " |")
    return "\n".join(out) + "\n"


def sh(args):
    try:
        return subprocess.run(args, capture_output=True, text=True, timeout=10).stdout.strip()
    except (OSError, subprocess.SubprocessError):
        return ""


def claims_section(data, steps):
    out = ["## Claims of the reference documents\n",
           "Each row: a figure from a document in `shared/sources/` (the file named), the figure vpk "
           "reaches on this machine in this run, the command that measured it, and a verdict. "
           "\"Not measurable here\" says what this machine lacks.\n"]
    rows = []
    for src, claim, docfig, fn in CLAIMS:
        try:
            r = fn(data, steps)
        except (KeyError, TypeError, ValueError, ZeroDivisionError) as e:
            r = dict(fig=f"(could not compute: {e})", verdict="not measured", cmd="-")
        if r is None:
            r = dict(fig="-", verdict="not measured: the step did not run (see Steps)", cmd="-")
        rows.append([f"{claim} ({src})", docfig, r["fig"], r["cmd"], r["verdict"]])
    out.append(table(["claim (document)", "document", "vpk here", "command", "verdict"], rows))
    return "\n".join(out)


# ---------------------------------------------------------------- charts


def charts_ok():
    try:
        import matplotlib
        matplotlib.use("Agg")
        import matplotlib.pyplot  # noqa: F401
        return True
    except ImportError:
        return False


def bar_chart(path, title, ylabel, groups, series):
    """groups: x labels; series: list of (label, [values per group])."""
    import matplotlib.pyplot as plt
    fig, ax = plt.subplots(figsize=(8, 3.6), dpi=100)
    n = len(series)
    w = 0.8 / max(n, 1)
    for i, (label, vals) in enumerate(series):
        xs = [g + (i - (n - 1) / 2) * w for g in range(len(groups))]
        ax.bar(xs, [v if v is not None else 0 for v in vals], w, label=label)
    ax.set_xticks(range(len(groups)))
    ax.set_xticklabels(groups, fontsize=8)
    ax.set_ylabel(ylabel)
    ax.set_title(title, fontsize=10)
    ax.legend(fontsize=7, ncol=min(n, 6))
    ax.grid(axis="y", alpha=0.3)
    fig.tight_layout()
    fig.savefig(path)
    plt.close(fig)


# ---------------------------------------------------------------- sections


def sec_kernels(d, ctx):
    res = d.get("results", [])
    variants = []
    for r in res:
        if r["variant"] not in variants:
            variants.append(r["variant"])
    keys = []
    for r in res:
        if (r["kernel"], r["burst"]) not in keys:
            keys.append((r["kernel"], r["burst"]))
    m = {(r["kernel"], r["burst"], r["variant"]): r["cycles_per_pkt"] for r in res}
    rows = [[k, b] + [m.get((k, b, v)) for v in variants] for k, b in keys]
    txt = ("Cycles per packet (median of the runs), one frame of 256 packets in 2 KiB slots, variants "
           "interleaved in one process.\n\n" + table(["kernel", "burst"] + variants, rows))
    big = [k for k in keys if k[1] == max(b for _, b in keys)]
    if ctx["charts"] and big:
        p = ctx["img"]("kernels")
        bar_chart(p, "foundation kernels, cycles/packet at the largest burst", "cycles/packet",
                  [k for k, _ in big], [(v, [m.get((k, b, v)) for k, b in big]) for v in variants])
        txt += f"\n![kernels](img/{os.path.basename(p)})\n"
    return txt


def sec_pool(d, ctx):
    rows = [[r["threads"], r["cache"], r["burst"], r["cycles_per_buf"], r["min"], r["max"]]
            for r in d.get("results", [])]
    return ("Cycles per buffer for one alloc + free, median (min-max).\n\n" +
            table(["threads", "cache", "burst", "cycles/buffer", "min", "max"], rows))


NODE_COLS = ["ip4-acl", "ip4-input", "ip4-lookup", "ip4-rewrite", "ethernet-input"]


def fwd_rows(d):
    last = {}
    for r in d.get("runs", []):
        last[r["cap"]] = {n["name"]: n["clocks_per_packet"] for n in r.get("nodes", [])}
    rows = []
    for s in d.get("summary", []):
        rows.append([s["cap"], s["mpps_median"], f"{s['vs_cap64']:.2f}x"] +
                    [last.get(s["cap"], {}).get(n) for n in NODE_COLS])
    return rows


def sec_fwd(d, ctx):
    txt = (f"{d.get('rules')} ACL rules (one in ten denying), {d.get('routes')} routes, {d.get('flows')} "
           f"flows of 64-byte packets, one worker, every cap once per round, {d.get('rounds')} rounds, "
           "medians. Node columns: clocks per packet the node handled, last round.\n\n" +
           table(["cap", "Mpps", "vs cap 64"] + NODE_COLS, fwd_rows(d)))
    noacl = ctx["data"].get("fwd-noacl")
    if noacl:
        m = fwd_mpps(noacl)
        txt += ("\nWithout the ACL (`--rules 0`): " +
                ", ".join(f"cap {c} {v:.1f} Mpps" for c, v in sorted(m.items())) + ".\n")
    if ctx["charts"] and d.get("summary"):
        p = ctx["img"]("fwd")
        caps = [str(s["cap"]) for s in d["summary"]]
        series = [("l3fwd-acl", [s["mpps_median"] for s in d["summary"]])]
        if noacl:
            m = fwd_mpps(noacl)
            series.append(("no ACL", [m.get(s["cap"]) for s in d["summary"]]))
        bar_chart(p, "forwarder Mpps per --max-simd-bitwidth cap (one worker)", "Mpps", caps, series)
        txt += f"\n![forwarder](img/{os.path.basename(p)})\n"
    return txt


def sec_acl(ctx):
    sets = acl_sets(ctx["data"])
    if not sets:
        return None
    txt = ["vpk and rte_acl (DPDK) classify the same generated rules and trace in one process; every "
           "result checked against a brute-force oracle. Cycles per packet, median of the iterations.\n"]
    chart = []
    for name, d in sets:
        s = d["set"]
        vb, db = d.get("vpk_build", {}), d.get("dpdk_build") or {}
        txt.append(f"**{name[4:]}** ({s['profile']}, {s['rules']} rules, {s['packets']} packets; "
                   f"build {fmt(vb.get('seconds'), 3)} s / {fmt(db.get('seconds'), 3)} s, runtime "
                   f"{vb.get('runtime_bytes', 0) / 2**20:.1f} MiB / {db.get('runtime_bytes', 0) / 2**20:.1f} MiB "
                   f"(vpk / rte_acl; rte_acl on hugepages: {fmt(db.get('hugepages'))})):\n")
        bursts = sorted({c["burst"] for c in d["classify"]})
        keys = []
        for c in d["classify"]:
            if (c["lib"], c["variant"]) not in keys:
                keys.append((c["lib"], c["variant"]))
        m = {(c["lib"], c["variant"], c["burst"]): c for c in d["classify"]}
        rows = [[lib, v] + [m[(lib, v, b)]["cycles_per_pkt"] if (lib, v, b) in m else None for b in bursts] +
                [all(m[(lib, v, b)]["verified"] for b in bursts if (lib, v, b) in m)] for lib, v in keys]
        txt.append(table(["library", "variant"] + [f"burst {b}" for b in bursts] + ["verified"], rows))
        best = {}
        for lib in ("vpk", "dpdk"):
            vals = [c["cycles_per_pkt"] for c in d["classify"] if c["lib"] == lib and c["burst"] == bursts[0]]
            best[lib] = min(vals) if vals else None
        if best["vpk"] and best["dpdk"]:
            txt.append(f"Best vpk / best rte_acl at burst {bursts[0]}: {best['vpk'] / best['dpdk']:.2f}.\n")
        chart.append((name[4:], best))
    if ctx["charts"] and chart:
        p = ctx["img"]("acl")
        bar_chart(p, "ACL: best variant, cycles/packet at burst 32", "cycles/packet", [c[0] for c in chart],
                  [("vpk", [c[1]["vpk"] for c in chart]), ("rte_acl", [c[1]["dpdk"] for c in chart])])
        txt.append(f"![acl](img/{os.path.basename(p)})\n")
    return "\n".join(txt)


def sec_fib(d, ctx):
    ents = d.get("lookup", [])
    txt = [f"{d.get('routes')} routes from `{os.path.basename(d.get('routes_file', ''))}`, {d.get('lookups')} "
           f"lookups per pass, {d.get('passes')} passes, median cycles per lookup; DPDK on hugepages: "
           f"{fmt(d.get('dpdk_hugepages'))}.\n"]
    keys = []
    for e in ents:
        if (e["nh_size"], e["impl"], e["variant"]) not in keys:
            keys.append((e["nh_size"], e["impl"], e["variant"]))
    m = {(e["nh_size"], e["impl"], e["variant"], e["keys"]): e["cycles_median"] for e in ents}
    rows = [[n, i, v, m.get((n, i, v, "random")), m.get((n, i, v, "in-table"))] for n, i, v in keys]
    txt.append(table(["next hop bytes", "layout", "variant", "random", "in-table"], rows))
    mem = [[x["nh_size"], x["impl"], x["loaded"], (x.get("dataplane_bytes") or 0) / 2**20, x.get("why_not")]
           for x in d.get("memory", [])]
    if mem:
        txt.append("Memory:\n\n" + table(["next hop bytes", "layout", "loaded", "dataplane MiB", "why not"], mem))
    up = [[u["nh_size"], u["impl"], u["order"], u["add_cycles_per_route"], u["del_cycles_per_route"]]
          for u in d.get("updates", [])]
    if up:
        txt.append("Route updates, cycles per route:\n\n" + table(["next hop bytes", "layout", "order", "add",
                                                                     "delete"], up))
    if ctx["charts"] and ents:
        v6 = d.get("family") == "ipv6"
        p = ctx["img"]("fib6" if v6 else "fib")
        impls = []
        for n, i, v in keys:
            if n == 4 and i not in impls:
                impls.append(i)
        best = lambda i, k: min([c for (n, i2, v, k2), c in m.items() if n == 4 and i2 == i and k2 == k] or [0])
        bar_chart(p, f"IPv{6 if v6 else 4} FIB: best variant per layout, 4-byte next hops", "cycles/lookup", impls,
                  [("random", [best(i, "random") for i in impls]), ("in-table", [best(i, "in-table") for i in impls])])
        txt.append(f"![{'fib6' if v6 else 'fib'}](img/{os.path.basename(p)})\n")
    return "\n".join(txt)


def sec_fib6(d, ctx):
    return sec_fib(d, ctx)


def sec_measures(d, ctx, key, keyname):
    res = d.get("results", [])
    variants, groups = [], []
    for r in res:
        if r["variant"] not in variants:
            variants.append(r["variant"])
        if (r["measure"], r.get(key)) not in groups:
            groups.append((r["measure"], r.get(key)))
    m = {(r["measure"], r.get(key), r["variant"]): r["cycles_per_pkt"] for r in res}
    rows = [[g, k] + [m.get((g, k, v)) for v in variants] for g, k in groups]
    return "Cycles per packet, median of the runs.\n\n" + table(["measure", keyname] + variants, rows)


def sec_vxlan(d, ctx):
    txt = sec_measures(d, ctx, "endpoints", "endpoints")
    if ctx["charts"]:
        m = results_map(d, "endpoint-check", "endpoints")
        eps = sorted({k for _, k in m})
        vs = sorted({v for v, _ in m}, key=lambda v: -("512" in v) * 3 - ("avx2" in v) * 2 - ("sse" in v))
        p = ctx["img"]("vxlan")
        bar_chart(p, "VxLAN endpoint check, cycles/packet", "cycles/packet", [str(e) for e in eps],
                  [(v, [m.get((v, e)) for e in eps]) for v in vs])
        txt += f"\n![vxlan](img/{os.path.basename(p)})\n"
    return txt


def sec_rx(d, ctx):
    rows = []
    vs = []
    for k in d.get("kernels", []):
        for x in k["variants"]:
            if x["variant"] not in vs:
                vs.append(x["variant"])
    for k in d.get("kernels", []):
        v = {x["variant"]: x["cycles_per_packet"] for x in k["variants"]}
        rows.append([k["kernel"]] + [v.get(x) for x in vs] +
                    [f"{v['scalar'] / min(v.values()):.2f}x" if "scalar" in v else None])
    return (f"Ring of {d.get('ring')} descriptors, burst {d.get('burst')}, cycles per packet, median.\n\n" +
            table(["kernel"] + vs + ["best vs scalar"], rows))


def sec_wide(d, ctx):
    rows = [[r["name"], r["iters"], r["cycles_median"], r["ns_median"]] for r in d.get("results", [])]
    return table(["measure", "iterations", "cycles (median)", "ns (median)"], rows)


def sec_fwd_wide(d, ctx):
    rows = []
    for r in d.get("runs", []):
        rows.append([r["cap"], r["mpps"], r.get("workers_n")])
    base = fwd_mpps(ctx["data"].get("fwd", {}))
    txt = ("One worker at the cap, one wide worker running ip4-acl and ip4-lookup with their 512-bit "
           "variants (hand-off by frames).\n\n" + table(["cap", "Mpps", "workers"], rows))
    if base:
        txt += ("\nSingle worker, same caps (above): " +
                ", ".join(f"cap {c} {v:.1f} Mpps" for c, v in sorted(base.items())) +
                ". On a CPU without frequency licences the hand-off can only cost.\n")
    return txt


def sec_powersim(d, ctx):
    return (f"{d.get('title')}: {d.get('cores')} cores, {d.get('wide_cores')} wide. Throughput loss against "
            f"no licence drop: {100 * d['loss_without']:.1f}% without specialization, "
            f"{100 * d['loss_with']:.1f}% with it ({100 * d['loss_reduction']:.0f}% less). A model, "
            "not a measurement (docs/corespec.md).\n")


def sec_scan(d, ctx):
    f = d["files"][0]
    fns = f.get("functions", [])
    by = {}
    for x in fns:
        by.setdefault(x.get("level", 0), []).append(x["name"])
    txt = (f"`{f['path']}`: {len(fns)} functions; by power level: " +
           ", ".join(f"level {k}: {len(v)}" for k, v in sorted(by.items())) + ".\n")
    if by.get(2):
        txt += "\nLevel 2 (AVX-512 heavy): " + ", ".join(f"`{n}`" for n in sorted(by[2])) + ".\n"
    return txt


def sec_info(d, ctx):
    rows = [[k["name"], k["chosen"], ", ".join(v["name"] for v in k["variants"] if v["usable"])]
            for k in d.get("kernels", [])]
    return (f"CPU {d.get('cpu')}, best ISA level {d.get('detected')}, cap {d.get('cap', {}).get('bits')}.\n\n" +
            table(["kernel", "chosen", "usable variants"], rows))


def sec_tune(d, ctx):
    rows = []
    for t in d.get("tune", []):
        v = ", ".join(f"{x['name']} {x['cycles_per_item']:.2f}" for x in t["variants"])
        rows.append([t["kernel"], t["burst"], v, t["default"], t["fastest"],
                     f"{t['fastest_over_default']:.2f}", "**yes**" if t["narrower_wins"] else "no"])
    other = ", ".join(f"{m['kernel']} (`{m['command']}`)" for m in d.get("measured_elsewhere", []))
    return ("Every usable variant at bursts 32 and 256, cycles per item, interleaved; \"narrower wins\" "
            "where a variant narrower than the default (the widest usable) takes at most 95 % of its "
            "cycles. The default does not change (docs/isa-dispatch.md).\n\n" +
            table(["kernel", "burst", "variants", "default", "fastest", "fastest / default", "narrower wins"],
                  rows) + (f"\nMeasured by their own steps above: {other}.\n" if other else ""))


def sec_generic(d, ctx):
    if isinstance(d, dict):
        for k in ("results", "runs", "summary"):
            if isinstance(d.get(k), list) and d[k] and isinstance(d[k][0], dict):
                head = [h for h in d[k][0] if not isinstance(d[k][0][h], (list, dict))]
                return table(head, [[r.get(h) for h in head] for r in d[k]])
        flat = [[k, v] for k, v in d.items() if not isinstance(v, (list, dict))]
        return table(["field", "value"], flat)
    if isinstance(d, list) and d and isinstance(d[0], dict):
        head = [h for h in d[0] if not isinstance(d[0][h], (list, dict))]
        return table(head, [[r.get(h) for h in head] for r in d])
    return "```\n" + json.dumps(d)[:2000] + "\n```\n"


def sec_acl_matrix(d, ctx):
    sets = d.get("sets", [])
    if not sets:
        return "No sets.\n"
    bursts = [b["burst"] for b in sets[0]["bursts"]]
    head = ["set", "rules"]
    for b in bursts:
        head += [f"vpk b{b}", f"rte_acl b{b}", f"vpk / rte_acl b{b}"]
    head += ["best / scalar", "vpk build s", "rte_acl build s", "checked"]
    rows = []
    for x in sets:
        r = [x["set"], x["rules"]]
        for b in x["bursts"]:
            r += [b.get("vpk_cycles_per_pkt"), b.get("dpdk_cycles_per_pkt"), b.get("vpk_over_dpdk")]
        b0 = x["bursts"][0]
        sc = b0.get("vpk_scalar_cycles_per_pkt")
        r += [sc / b0["vpk_cycles_per_pkt"] if sc and b0.get("vpk_cycles_per_pkt") else None,
              x.get("vpk_build", {}).get("seconds"), (x.get("dpdk_build") or {}).get("seconds"), fmt(x.get("verified"))]
        rows.append(r)
    return (f"The ClassBench families (`vpk gen acl --profile ...`, docs/acl-families.md), best vpk variant "
            f"({sets[0].get('vpk_variant')}) against rte_acl's ({sets[0].get('dpdk_variant')}), cycles per packet, "
            f"{d.get('packets')}-packet traces; rte_acl on hugepages: {fmt(d.get('dpdk_hugepages'))}.\n\n"
            + table(head, rows))


def sec_l3fwd(d, ctx):
    if "skipped" in d:
        return f"Skipped: {d['skipped']}\n"
    rows = []
    for m in d.get("modes", []):
        if "error" in m:
            rows.append([m["mode"], None, None, None, "error: " + m["error"]])
        else:
            rows.append([m["mode"], m.get("l3fwd_mpps_median"), m.get("vpk_mpps_median"), m.get("vpk_over_l3fwd"),
                         fmt(m.get("same_packets_out"))])
    return (f"DPDK's l3fwd and `vpk fwd` on the same packets and rules, one pinned core each, Mpps per CPU "
            f"second, medians ({d.get('eal', '')}).\n\n"
            + table(["mode", "l3fwd", "vpk", "vpk / l3fwd", "same packets out"], rows))


def sec_dropin(d, ctx):
    """libvpk_rte_acl / libvpk_rte_fib preloaded into DPDK's own tools against DPDK's libraries."""
    if "skipped" in d:
        return f"Skipped: {d['skipped']}\n"
    measures = [("cycles_per_pkt", "classify cycles/pkt"), ("fib_lookup_cycles", "lookup cycles"),
                ("fib_add_cycles", "add cycles"), ("fib_delete_cycles", "delete cycles"),
                ("wall_s", "wall s"), ("max_rss_mib", "peak MiB")]
    rows = []
    for name, run in d.items():
        if not isinstance(run, dict) or "ratio" not in run:
            continue
        for key, label in measures:
            if key in run["ratio"]:
                rows.append([name, label, run.get("dpdk", {}).get(key), run.get("vpk", {}).get(key),
                             run["ratio"][key]])
            if key == "fib_lookup_cycles" and "floor" in run:
                f = run["floor"][key]
                rows.append([name, f"lookup cycles above the floor ({fmt(f)}; floor / DPDK "
                             f"{fmt(run.get('floor_ratio'))})", round(run["dpdk"][key] - f, 2),
                             round(run["vpk"][key] - f, 2), run.get("ratio_above_floor")])
    return (f"DPDK's own programs (dpdk-test-acl, dpdk-test-fib, dpdk-test's fib_perf_autotest and "
            f"fib6_perf_autotest) with DPDK's libraries and with vpk's drop-in libraries preloaded, "
            f"{d.get('reps')} alternating runs each, medians; ratio = drop-in / DPDK, lower is better "
            f"(EAL: {d.get('eal', '')}; load {fmt(d.get('load_avg'))}). The floor is dpdk-test-fib's "
            f"lookup figure when its lookup does no lookup (bench/dropin/fib_floor.c in DPDK's "
            f"library): what its timed loop costs around any lookup.\n\n"
            + table(["set", "measure", "DPDK", "drop-in", "ratio"], rows))


SECTIONS = [
    ("kernels", "Foundation kernels", sec_kernels),
    ("pool", "Buffer pool", sec_pool),
    ("fwd", "Forwarder", sec_fwd),
    ("l3fwd", "Forwarder against DPDK's l3fwd", sec_l3fwd),
    ("acl", "ACL classifier against rte_acl", None),
    ("acl-matrix", "ACL on the ClassBench families against rte_acl", sec_acl_matrix),
    ("fib", "IPv4 FIB against rte_fib", sec_fib),
    ("fib6", "IPv6 FIB against rte_fib6", sec_fib6),
    ("vxlan", "VxLAN decapsulation", sec_vxlan),
    ("gtp4d", "SRv6 GTP4.D", lambda d, c: sec_measures(d, c, "segments", "segments")),
    ("rx", "Live I/O descriptor kernels (ring of 4096)", sec_rx),
    ("rx-l2", "Live I/O descriptor kernels (ring of 256, in cache)", sec_rx),
    ("wide", "Wide cores: migration against a wide call", sec_wide),
    ("fwd-wide", "Forwarder with a wide core", sec_fwd_wide),
    ("powersim", "Frequency-licence model", sec_powersim),
    ("scan", "Power levels of libvpk's code", sec_scan),
    ("tune", "Where a narrower variant wins (vpk info --tune)", sec_tune),
    ("info", "Variant chosen per kernel", sec_info),
    ("dropin", "DPDK applications with the drop-in libraries", sec_dropin),
]


def header(steps, data, bench):
    info = data.get("info", {})
    commit = sh(["git", "describe", "--always", "--dirty", "--abbrev=10"]) or "unknown"
    cc = sh(["cc", "--version"]).splitlines()
    load = ""
    p = os.path.join(bench, "loadavg")
    if os.path.exists(p):
        with open(p) as f:
            load = f.read().split()
    loaded = len(load) >= 3 and max(float(load[0]), float(load[1])) > 1.5
    total = sum(s["seconds"] for s in steps)
    mtime = max((os.path.getmtime(x) for x in glob.glob(os.path.join(bench, "*.json"))), default=0)
    date = datetime.datetime.fromtimestamp(mtime, datetime.timezone.utc).strftime("%Y-%m-%d %H:%M UTC")
    lines = ["# Benchmarks\n",
             "Generated by `make bench` (scripts/run-bench.sh, then scripts/gen-benchmarks.py) from the JSON "
             "it leaves in `build/bench/`: edit those scripts, not this file.\n",
             f"- Machine: {info.get('cpu', platform.processor())}, {os.cpu_count()} CPUs, best ISA level "
             f"{info.get('detected', '?')}; {cc[0] if cc else 'compiler unknown'}.",
             f"- Run: {date}, commit `{commit}`, {total} s for {len(steps)} steps.",
             "- Load average (1, 5, 15 min) when the run started: " + (" ".join(load[:3]) if load else "unknown") +
             (". **The machine was shared with other work during this run: absolute figures are noisy; "
              "compare ratios within one table.**" if loaded else "."),
             "- Method: TSC cycles (no PMU in this VM), warm-up then many iterations between two TSC reads, "
             "repeated; medians. Variants of one kernel run interleaved in one process, so noise hits them "
             "alike. Ratios within a table are the figures to read.",
             "- DPDK (22.11, Debian's libdpdk) runs in the same process as vpk on the same inputs; its EAL "
             "uses hugepages when at least 1 GiB of them is free (`dpdk-hugepages.py -p 2M --setup 4G` as "
             "root), otherwise `--no-huge` (each ACL and FIB table says which). Reproduce one step by "
             "running its command (table \"Steps of this run\" at the end); `VPK_BENCH_ONLY=\"fwd\" "
             "make bench` reruns a few steps and regenerates this page from all the JSON present.\n"]
    return "\n".join(lines)


def steps_section(steps):
    rows = [[s["name"], s["status"], s["seconds"], short_cmd(s["command"]) if s["status"] != "skipped"
             else s["command"]] for s in steps]
    return "## Steps of this run\n\n" + table(["step", "status", "seconds", "command or reason"], rows)


def main():
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--bench", default="build/bench")
    ap.add_argument("--doc", default="docs/benchmarks.md")
    ap.add_argument("--img", default="docs/img")
    ap.add_argument("--no-charts", action="store_true")
    a = ap.parse_args()
    steps, data = load(a.bench)
    if not data:
        print(f"gen-benchmarks: no JSON in {a.bench}: run scripts/run-bench.sh first", file=sys.stderr)
        return 2
    charts = not a.no_charts and charts_ok()
    if charts:
        os.makedirs(a.img, exist_ok=True)
    ctx = dict(data=data, charts=charts, img=lambda n: os.path.join(a.img, f"bench-{n}.png"))
    out = [header(steps, data, a.bench), claims_section(data, steps)]
    if not charts:
        out.append("(Charts left out: " + ("--no-charts" if a.no_charts else "matplotlib is not installed") +
                   ".)\n")
    done = set()
    for key, title, fn in SECTIONS:
        if key == "acl":
            body = sec_acl(ctx)
            done.update(k for k, _ in acl_sets(data))
        elif key in data:
            body = fn(data[key], ctx)
            done.add(key)
        else:
            continue
        if body:
            out.append(f"## {title}\n\nCommand: {short_cmd(cmd_of(steps, key)) if key != 'acl' else '`vpk bench acl` (one step per rule set, below)'}\n\n{body}")
    for key in sorted(set(data) - done):
        out.append(f"## {key}\n\nCommand: {short_cmd(cmd_of(steps, key))}\n\n{sec_generic(data[key], ctx)}")
    out.append(steps_section(steps))
    with open(a.doc, "w") as f:
        f.write("\n".join(out))
    print(f"gen-benchmarks: wrote {a.doc}" + (" and charts in " + a.img if charts else " (no charts)"))
    return 0


if __name__ == "__main__":
    sys.exit(main())
