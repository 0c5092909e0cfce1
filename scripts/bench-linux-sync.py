#!/usr/bin/env python3
"""linux-sync figures, as JSON on stdout (needs root: a network namespace).

  dump       a namespace's table holds ROUTES IPv4 routes (ip -batch); `vpk fwd` with
             `linux-sync netns NS` starts: seconds to dump and install them (vpk's own
             measure, show linux-sync: dump_seconds).
  churn      every route is replaced (new gateway) with ip -batch while vpk runs:
             vpk's apply rate (changes / seconds spent from recv() to applied) and the
             end-to-end rate (changes / wall time until vpk had them all; bounded by how
             fast ip and the kernel make them).
  latency    RATE changes per second for SECONDS, paced: per received batch, microseconds
             from recv() returning to the batch's last change being in the FIB (p50, p99;
             histogram buckets are powers of two, the figure is the bucket's upper bound).

usage: bench-linux-sync.py [--vpk build/vpk] [--routes 1000000] [--rate 1000] [--seconds 5]
"""
import argparse
import ipaddress
import json
import os
import subprocess
import sys
import tempfile
import time


def sh(*args, input=None, timeout=600):
    p = subprocess.run(list(args), capture_output=True, text=True, input=input, timeout=timeout)
    if p.returncode != 0:
        raise RuntimeError(f"{' '.join(args)}: {p.stderr.strip()}")
    return p.stdout


def prefix(i):
    return f"{ipaddress.IPv4Address(0x10000000 + (i << 8))}/24"


class Vpk:
    def __init__(self, vpk, ns, tmp):
        self.vpk, self.sock = vpk, os.path.join(tmp, f"cli{time.monotonic_ns()}.sock")
        cfg = os.path.join(tmp, "ls.cfg")
        with open(cfg, "w") as f:
            f.write(f"interface ctlb0\nlinux-sync netns {ns}\n")
        self.p = subprocess.Popen([vpk, "fwd", "--config", cfg, "--cli-socket", self.sock],
                                  stdout=subprocess.DEVNULL, stderr=subprocess.PIPE, text=True)
        while not os.path.exists(self.sock):
            if self.p.poll() is not None:
                raise RuntimeError(self.p.stderr.read())
            time.sleep(0.01)

    def stats(self):
        return json.loads(sh(self.vpk, "ctl", "--socket", self.sock, "show", "linux-sync", "--json"))

    def stop(self):
        self.p.terminate()
        self.p.wait(timeout=60)


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("--vpk", default=os.path.join(os.environ.get("VPK_BUILD", "build"), "vpk"))
    ap.add_argument("--routes", type=int, default=1_000_000)
    ap.add_argument("--rate", type=int, default=1000)
    ap.add_argument("--seconds", type=float, default=5)
    a = ap.parse_args()
    if os.geteuid() != 0:
        print(json.dumps({"bench": "linux-sync", "skipped": "needs root (network namespace)"}))
        return 0
    ns = f"ctlbench{os.getpid()}"
    tmp = tempfile.mkdtemp(prefix="vpk-ls-bench-")
    out = {"bench": "linux-sync", "routes": a.routes}
    sh("ip", "netns", "add", ns)
    try:
        sh("ip", "-n", ns, "link", "add", "ctlb0", "type", "veth", "peer", "name", "ctlb1")
        sh("ip", "-n", ns, "link", "set", "ctlb0", "up")
        sh("ip", "-n", ns, "addr", "add", "10.9.0.1/24", "dev", "ctlb0")
        for gw in ("10.9.0.2", "10.9.0.3"):
            sh("ip", "-n", ns, "neigh", "add", gw, "lladdr", "02:11:00:00:00:02", "dev", "ctlb0", "nud", "permanent")
        t = time.monotonic()
        sh("ip", "-n", ns, "-batch", "-", input="".join(f"route add {prefix(i)} via 10.9.0.2\n"
                                                         for i in range(a.routes)))
        out["kernel_add_seconds"] = round(time.monotonic() - t, 3)
        v = Vpk(a.vpk, ns, tmp)
        st = v.stats()
        out["dump_seconds"] = st["dump_seconds"]
        out["dump_routes"] = st["dump_routes"]
        # churn: replace every route
        base_adds, base_busy = st["route_adds"], st["busy_seconds"]
        t = time.monotonic()
        sh("ip", "-n", ns, "-batch", "-", input="".join(f"route replace {prefix(i)} via 10.9.0.3\n"
                                                         for i in range(a.routes)))
        out["kernel_replace_seconds"] = round(time.monotonic() - t, 3)
        while True:
            st = v.stats()
            if st["route_adds"] - base_adds >= a.routes or st["resyncs"] > 0:
                break
            time.sleep(0.05)
        wall = time.monotonic() - t
        changes = st["route_adds"] - base_adds
        out["churn_changes"] = changes
        out["churn_apply_per_s"] = round(changes / max(st["busy_seconds"] - base_busy, 1e-9))
        out["churn_end_to_end_per_s"] = round(changes / wall)
        out["churn_overflows"] = st["enobufs"]
        v.stop()
        # latency at a paced rate, on a fresh vpk (its histogram holds only these batches)
        v = Vpk(a.vpk, ns, tmp)
        ip = subprocess.Popen(["ip", "-n", ns, "-batch", "-"], stdin=subprocess.PIPE, text=True)
        n = int(a.rate * a.seconds)
        t0 = time.monotonic()
        for i in range(n):
            ip.stdin.write(f"route replace {prefix(i % a.routes)} via 10.9.0.{2 + (i // a.routes) % 2}\n")
            ip.stdin.flush()
            delay = t0 + (i + 1) / a.rate - time.monotonic()
            if delay > 0:
                time.sleep(delay)
        ip.stdin.close()
        ip.wait(timeout=60)
        time.sleep(0.5)
        st = v.stats()
        out["latency_rate_per_s"] = a.rate
        out["latency_batches"] = st["batches"]
        out["latency_us_p50"] = st["batch_latency_us_p50"]
        out["latency_us_p99"] = st["batch_latency_us_p99"]
        v.stop()
    finally:
        subprocess.run(["ip", "netns", "del", ns], capture_output=True)
    print(json.dumps(out, indent=2))
    return 0


if __name__ == "__main__":
    sys.exit(main())
