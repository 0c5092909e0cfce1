#!/usr/bin/env python3
# SPDX-License-Identifier: BSD-3-Clause
"""Markdown table of `vpk --json bench acl --matrix ...` output (one or more files).

    python3 tools/vpk/bench/acl_bench_table.py build/bench/acl-matrix.json [more.json]

One row per set and size: vpk (best variant) and rte_acl cycles per packet at
each burst, vpk / rte_acl, vpk best / scalar, build seconds and runtime MB of
both. A '-' where rte_acl was not run (--dpdk-max-rules, --no-dpdk).
"""
import json
import sys


def main():
    sets = []
    for path in sys.argv[1:]:
        with open(path) as f:
            sets += json.load(f)["sets"]
    if not sets:
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
