#!/usr/bin/env python3
"""Charts for docs/tunnels.md from `vpk --json bench vxlan` and `vpk --json bench gtp4d` output.

usage: scripts/plot-tunnels.py vxlan.json gtp4d.json OUTDIR
writes OUTDIR/tunnels-vxlan.png and OUTDIR/tunnels-gtp4d.png (matplotlib, Agg backend).
"""
import json
import sys

import matplotlib

matplotlib.use("Agg")
import matplotlib.pyplot as plt  # noqa: E402


def series(res, measure, key):
    out = {}
    for r in res:
        if r["measure"] == measure:
            out.setdefault(r["variant"], []).append((r[key], r["cycles_per_pkt"]))
    return out


def panel(ax, data, title, xlabel):
    for v, pts in sorted(data.items()):
        pts.sort()
        ax.plot([str(p[0]) for p in pts], [p[1] for p in pts], marker="o", label=v)
    ax.set_title(title)
    ax.set_xlabel(xlabel)
    ax.set_ylabel("TSC cycles / packet (median)")
    ax.grid(alpha=0.3)
    ax.legend()


def main():
    if len(sys.argv) != 4:
        sys.exit(__doc__)
    vx, gd = (json.load(open(p)) for p in sys.argv[1:3])
    out = sys.argv[3]
    fig, axs = plt.subplots(1, 2, figsize=(11, 4))
    panel(axs[0], series(vx["results"], "endpoint-check", "endpoints"), "VxLAN endpoint check", "interleaved endpoints")
    panel(axs[1], series(vx["results"], "vxlan4-input-node", "endpoints"), "vxlan4-input node", "interleaved endpoints")
    fig.suptitle(f"{vx['cpu']}, cap {vx['cap']}")
    fig.tight_layout()
    fig.savefig(f"{out}/tunnels-vxlan.png", dpi=100)
    fig, axs = plt.subplots(1, 2, figsize=(11, 4))
    panel(axs[0], series(gd["results"], "header-build", "segments"), "GTP4.D header build", "policy segments")
    panel(axs[1], series(gd["results"], "srv6-gtp4-d-node", "segments"), "srv6-gtp4-d node", "policy segments")
    fig.suptitle(f"{gd['cpu']}, cap {gd['cap']}")
    fig.tight_layout()
    fig.savefig(f"{out}/tunnels-gtp4d.png", dpi=100)


if __name__ == "__main__":
    main()
