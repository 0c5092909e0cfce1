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
  visible    RATE route adds per second for SECONDS, each sent over rtnetlink with an ACK
             request from inside the namespace; from the kernel's ACK, `show fib PREFIX` is
             asked on the control socket until vpk has the route: microseconds p50/p99/max
             (an upper bound: it includes one control-socket round trip).

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


ACK_TO_VISIBLE = r"""
import json, socket, struct, sys, time
sockpath, n, rate = sys.argv[1], int(sys.argv[2]), float(sys.argv[3])
nl = socket.socket(socket.AF_NETLINK, socket.SOCK_RAW, socket.NETLINK_ROUTE)
nl.bind((0, 0))
def rta(t, data):
    return struct.pack("HH", 4 + len(data), t) + data + b"\0" * ((4 - len(data) % 4) % 4)
def add(dst, gw, seq):
    # rtmsg: AF_INET, /24, table main, proto static, scope universe, unicast; RTA_DST, RTA_GATEWAY
    body = struct.pack("BBBBBBBBI", 2, 24, 0, 0, 254, 4, 0, 1, 0) + rta(1, dst) + rta(5, gw)
    nl.send(struct.pack("IHHII", 16 + len(body), 24, 0x1 | 0x4 | 0x400 | 0x100, seq, 0) + body)
    while True:
        d = nl.recv(65536)
        if struct.unpack("H", d[4:6])[0] == 2 and struct.unpack("I", d[8:12])[0] == seq:
            err = struct.unpack("i", d[16:20])[0]
            if err:
                raise OSError(-err, "route add")
            return
def has(prefix):
    c = socket.socket(socket.AF_UNIX)
    c.connect(sockpath)
    c.sendall(("show fib %s --json\n" % prefix).encode())
    c.shutdown(socket.SHUT_WR)
    buf = b""
    while True:
        d = c.recv(65536)
        if not d:
            break
        buf += d
    c.close()
    return bool(json.loads(buf.split(b"\n", 1)[1])["ipv4"])
lat, t0 = [], time.monotonic()
for i in range(n):
    a = 0x30000000 + (i << 8)
    add(struct.pack(">I", a), socket.inet_aton("10.9.0.2"), i + 1)
    t = time.monotonic()
    while not has("%d.%d.%d.0/24" % (a >> 24, (a >> 16) & 255, (a >> 8) & 255)):
        pass
    lat.append(time.monotonic() - t)
    delay = t0 + (i + 1) / rate - time.monotonic()
    if delay > 0:
        time.sleep(delay)
lat.sort()
print(json.dumps({"n": n, "p50_us": round(lat[n // 2] * 1e6), "p99_us": round(lat[int(n * 0.99)] * 1e6),
                  "max_us": round(lat[-1] * 1e6)}))
"""


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
        r = json.loads(sh("ip", "netns", "exec", ns, sys.executable, "-c", ACK_TO_VISIBLE, v.sock,
                          str(int(a.rate * a.seconds)), str(a.rate)))
        out["ack_to_visible_us_p50"] = r["p50_us"]
        out["ack_to_visible_us_p99"] = r["p99_us"]
        out["ack_to_visible_us_max"] = r["max_us"]
        v.stop()
    finally:
        subprocess.run(["ip", "netns", "del", ns], capture_output=True)
    print(json.dumps(out, indent=2))
    return 0


if __name__ == "__main__":
    sys.exit(main())
