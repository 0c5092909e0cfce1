#!/usr/bin/env python3
# SPDX-License-Identifier: BSD-3-Clause
"""Markdown table of `vpk --json bench acl --matrix ...` output (one or more files).

    python3 tools/vpk/bench/acl_bench_table.py [--compact] build/bench/acl-matrix.json [more.json]

One row per set and size: vpk (best variant) and rte_acl cycles per packet at
each burst, vpk / rte_acl, vpk best / scalar, build seconds and runtime MB of
both. A '-' where rte_acl was not run (--dpdk-max-rules, --no-dpdk).
--compact: one row per set (docs/acl.md "Current figures"): vpk / rte_acl per
size and burst, **bold** where the goal (<= 0.8 at 1k, <= 0.6 above) is missed,
trees, vpk best / scalar at the last burst and vpk / rte_acl build time.
"""
import json
import sys


GOAL = {1000: 0.8}   # vpk / rte_acl goal per size; 0.6 for the others


def compact(sets):
    sizes = sorted({s["rules"] for s in sets})
    by = {(s["set"], s["rules"]): s for s in sets}
    names = list(dict.fromkeys(s["set"] for s in sets))
    big = [n for n in sizes if n > 1000]
    head = ["set"] + ["%s b%s" % (fmt_size(n), " / b".join(str(b["burst"]) for b in sets[0]["bursts"]))
                      for n in sizes]
    head += ["trees %s" % " / ".join(fmt_size(n) for n in big),
             "best / scalar (b%d, %s)" % (sets[0]["bursts"][-1]["burst"], " / ".join(fmt_size(n) for n in sizes)),
             "build vpk / rte_acl (%s)" % " / ".join(fmt_size(n) for n in big)]
    print("| " + " | ".join(head) + " |")
    print("|" + "---|" * len(head))
    for name in names:
        row = [name]
        for n in sizes:
            s = by.get((name, n))
            if s is None or "vpk_over_dpdk" not in s["bursts"][0]:
                row.append("rte_acl fails (-ENOMEM)" if s is not None and "dpdk_build" not in s else "-")
                continue
            cells = []
            for b in s["bursts"]:
                r = b["vpk_over_dpdk"]
                cells.append("**%.2f**" % r if r > GOAL.get(n, 0.6) else "%.2f" % r)
            row.append(" / ".join(cells))
        row.append(" / ".join(str(by[(name, n)]["vpk_build"]["trees"]) if (name, n) in by else "-" for n in big))
        row.append(" / ".join("%.1f" % (by[(name, n)]["bursts"][-1]["vpk_scalar_cycles_per_pkt"] /
                                         by[(name, n)]["bursts"][-1]["vpk_cycles_per_pkt"])
                              if (name, n) in by else "-" for n in sizes))
        row.append(" / ".join("%.2f" % (by[(name, n)]["vpk_build"]["seconds"] / by[(name, n)]["dpdk_build"]["seconds"])
                              if (name, n) in by and by[(name, n)].get("dpdk_build") else "-" for n in big))
        print("| " + " | ".join(row) + " |")


def fmt_size(n):
    return "%dk" % (n // 1000) if n % 1000 == 0 else str(n)


def main():
    args = sys.argv[1:]
    short = args[:1] == ["--compact"]
    if short:
        args = args[1:]
    sets = []
    for path in args:
        with open(path) as f:
            sets += json.load(f)["sets"]
    if not sets:
        return
    if short:
        compact(sets)
        return
    bursts = [b["burst"] for b in sets[0]["bursts"]]
    head = ["set", "rules"]
    for b in bursts:
        head += ["vpk b%d" % b, "rte_acl b%d" % b, "ratio b%d" % b]
    head += ["best/scalar", "vpk build s", "rte_acl build s", "vpk MB", "rte_acl MB", "trees"]
    print("| " + " | ".join(head) + " |")
    print("|" + "---|" * len(head))
    for s in sets:
        row = [s["set"], str(s["rules"])]
        d = s.get("dpdk_build")
        for b in s["bursts"]:
            row.append("%.1f" % b["vpk_cycles_per_pkt"])
            row.append("%.1f" % b["dpdk_cycles_per_pkt"] if "dpdk_cycles_per_pkt" in b else "-")
            row.append("**%.2f**" % b["vpk_over_dpdk"] if b.get("vpk_over_dpdk", 0) > 1 else
                       "%.2f" % b["vpk_over_dpdk"] if "vpk_over_dpdk" in b else "-")
        last = s["bursts"][-1]
        row.append("%.1f" % (last["vpk_scalar_cycles_per_pkt"] / last["vpk_cycles_per_pkt"]))
        row.append("%.3f" % s["vpk_build"]["seconds"])
        row.append("%.3f" % d["seconds"] if d else "-")
        row.append("%.1f" % (s["vpk_build"]["runtime_bytes"] / 1e6))
        row.append("%.1f" % (d["runtime_bytes"] / 1e6) if d else "-")
        row.append(str(s["vpk_build"]["trees"]))
        if not s["verified"]:
            row[0] += " (MISMATCH)"
        print("| " + " | ".join(row) + " |")


if __name__ == "__main__":
    main()
