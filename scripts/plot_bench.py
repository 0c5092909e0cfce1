#!/usr/bin/env python3
"""Charts for docs/benchmarks.md from the JSON that `vpk --json bench fwd` prints.

usage: plot_bench.py fwd.json docs/img/fwd_per_cap.png
"""
import json
import sys

import matplotlib

matplotlib.use("Agg")
import matplotlib.pyplot as plt  # noqa: E402


def main():
    src, dst = sys.argv[1], sys.argv[2]
    data = json.load(open(src))
    summary = data["summary"]
    caps = [str(s["cap"]) for s in summary]
    mpps = [s["mpps_median"] for s in summary]
    # per-node clocks/packet of the last round of each cap
    last = {}
    for r in data["runs"]:
        last[str(r["cap"])] = r
    nodes = [n["name"] for n in data["runs"][0]["nodes"] if n["vectors"] > 0]
    fig, (ax1, ax2) = plt.subplots(1, 2, figsize=(11, 4.2))
    bars = ax1.bar(caps, mpps, color="#4472c4")
    for b, v in zip(bars, mpps):
        ax1.text(b.get_x() + b.get_width() / 2, v, f"{v:.2f}", ha="center", va="bottom", fontsize=9)
    ax1.set_xlabel("max SIMD bitwidth (cap)")
    ax1.set_ylabel("Mpps, one core (median)")
    ax1.set_title("vpk fwd: l3fwd-acl path per cap")
    bottom = [0.0] * len(caps)
    for name in nodes:
        vals = []
        for c in caps:
            n = next((x for x in last[c]["nodes"] if x["name"] == name), None)
            vals.append(n["clocks_per_packet"] * n["vectors"] / max(1, last[c]["packets"]) if n else 0)
        ax2.bar(caps, vals, bottom=bottom, label=name)
        bottom = [b + v for b, v in zip(bottom, vals)]
    ax2.set_xlabel("max SIMD bitwidth (cap)")
    ax2.set_ylabel("clocks per input packet")
    ax2.set_title("where the clocks go (per node)")
    ax2.legend(fontsize=7, loc="upper right")
    fig.suptitle(f"{data.get('cpu', '')}: {data['rules'] if 'rules' in data else ''}".strip(": "), fontsize=9)
    fig.tight_layout()
    fig.savefig(dst, dpi=110)
    print(f"wrote {dst}")


if __name__ == "__main__":
    main()
