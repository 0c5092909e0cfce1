#!/usr/bin/env python3
"""Chart of the powersim figures for docs/corespec.md and docs/benchmarks.md.

usage: plot_powersim.py BUILD/vpk docs/img/powersim_nginx.png [out.json]

Runs `vpk powersim --scenario nginx-openssl-avx512 --json` with several
hop costs and policies, and its --sweep; draws the losses next to the
paper's measurement and the loss against the hand-off rate. The optional
third argument keeps the JSON of every run.
"""
import json
import subprocess
import sys

import matplotlib

matplotlib.use("Agg")
import matplotlib.pyplot as plt  # noqa: E402

SCEN = ["powersim", "--scenario", "nginx-openssl-avx512", "--json"]


def run(vpk, *args):
    out = subprocess.run([vpk, *SCEN, *args], check=True, capture_output=True, text=True).stdout
    return json.loads(out)


def main():
    vpk, dst = sys.argv[1], sys.argv[2]
    runs = {
        "shared\n450 ns (KIT)": run(vpk),
        "shared\n230 ns hops": run(vpk, "--switch-ns", "230"),
        "shared\n36 us (VM mig.)": run(vpk, "--switch-ns", "36000"),
        "dedicated\n450 ns hops": run(vpk, "--dedicated"),
        "sync call\n450 ns hops": run(vpk, "--sync"),
    }
    sweep = run(vpk, "--sweep", "1,2,4,8,16,32,64,128,256")
    labels = ["paper\n(measured)"] + list(runs)
    without = [11.2] + [100 * r["loss_without"] for r in runs.values()]
    withs = [3.2] + [100 * r["loss_with"] for r in runs.values()]

    fig, (ax1, ax2) = plt.subplots(1, 2, figsize=(12, 4.4))
    x = range(len(labels))
    ax1.bar([i - 0.2 for i in x], without, 0.4, label="no specialization", color="#c55a11")
    ax1.bar([i + 0.2 for i in x], withs, 0.4, label="2 of 12 cores wide", color="#4472c4")
    for i, (a, b) in enumerate(zip(without, withs)):
        ax1.text(i - 0.2, a, f"{a:.1f}", ha="center", va="bottom", fontsize=8)
        ax1.text(i + 0.2, b, f"{b:.1f}", ha="center", va="bottom", fontsize=8)
    ax1.set_xticks(list(x))
    ax1.set_xticklabels(labels, fontsize=8)
    ax1.set_ylabel("throughput loss, %")
    ax1.set_title("nginx + OpenSSL AVX-512, Xeon Gold 6130 (model vs paper)", fontsize=10)
    ax1.legend(fontsize=8)

    pts = sweep["sweep"]
    hx = [p["hops_per_s_per_scalar_core"] for p in pts]
    ax2.plot(hx, [100 * p["loss_without"] for p in pts], "o-", color="#c55a11", label="no specialization")
    ax2.plot(hx, [100 * p["loss_with"] for p in pts], "o-", color="#4472c4", label="2 wide cores, 450 ns hops")
    if sweep.get("stops_paying_at_k"):
        k = sweep["stops_paying_at_k"]
        p = next(p for p in pts if p["k"] == k)
        ax2.axvline(p["hops_per_s_per_scalar_core"], color="grey", ls="--", lw=1)
        ax2.text(p["hops_per_s_per_scalar_core"], 2, " stops paying", fontsize=8, color="grey")
    ax2.set_xscale("log")
    ax2.set_xlabel("hand-offs per second per scalar core (request cut k times)")
    ax2.set_ylabel("throughput loss, %")
    ax2.set_title("where specialization stops paying", fontsize=10)
    ax2.legend(fontsize=8)
    fig.tight_layout()
    fig.savefig(dst, dpi=110)
    print(f"wrote {dst}")
    if len(sys.argv) > 3:
        json.dump({"runs": runs, "sweep": sweep}, open(sys.argv[3], "w"), indent=1)


if __name__ == "__main__":
    main()
