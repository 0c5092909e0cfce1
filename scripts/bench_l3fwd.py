#!/usr/bin/env python3
# SPDX-License-Identifier: BSD-3-Clause
"""vpk fwd against DPDK's l3fwd on the same packets and rules, one pinned core each.

l3fwd is DPDK 22.11's example from Debian's dpdk-doc sources, built here at
bench time in a scratch directory (never copied into the tree). Its request
for Rx checksum offload is masked by the device's capabilities (net_pcap has
none): a patch applied in the scratch copy only. It reads from memory
(net_pcap infinite_rx=1, Tx dropped; port 1 is net_null) and its rate is the
port's Rx counter read twice over telemetry. vpk fwd replays the same pcap
from memory (`interface p0 in F loop`) and reports its own TSC rate and
per-node clocks. Rates are packets per CPU second of each process
(l3fwd: its Rx counter over a window against its /proc CPU time; vpk: the
loop thread's CPU time, JSON cpu_ns), which a shared, loaded machine
disturbs far less than wall time; wall-time rates are in the JSON too.
Before the timed runs each mode runs once on both sides
with pcap outputs, and the packets out of every port are compared byte for
byte (MAC addresses included: vpk's interfaces take l3fwd's port MACs).

Modes: ACL with each rte_acl algorithm vs the same vpk classifier variant,
routes only with l3fwd's LPM and FIB against vpk's DIR-24-8. The runs of
both sides alternate; medians are reported. JSON on stdout. With
--vpk-base OTHER, a second vpk binary runs in the same rotation (after each
vpk run): its rates, per-node clocks and the per-run ratios vpk / OTHER.
"""
import argparse
import atexit
import json
import os
import random
import re
import shutil
import signal
import socket
import statistics
import struct
import subprocess
import sys
import time

PREFIX = "speed"
START_SECONDS = 300
EXAMPLES = "/usr/share/dpdk/examples"


def log(*a):
    print(*a, file=sys.stderr, flush=True)


def skip(reason):
    log("bench-l3fwd: skipped:", reason)
    print(json.dumps({"skipped": reason}, indent=1))
    sys.exit(0)


# ---- l3fwd, built at bench time ----

def build_l3fwd(work):
    if not os.path.isdir(EXAMPLES + "/l3fwd"):
        if os.geteuid() == 0 and shutil.which("apt-get"):
            log("bench-l3fwd: installing dpdk-doc (l3fwd's sources)")
            subprocess.run(["apt-get", "install", "-y", "-q", "dpdk-doc"], stdout=subprocess.DEVNULL,
                           stderr=subprocess.DEVNULL, check=False)
        if not os.path.isdir(EXAMPLES + "/l3fwd"):
            skip("no l3fwd sources (%s/l3fwd: install dpdk-doc)" % EXAMPLES)
    if subprocess.run(["pkg-config", "--exists", "libdpdk"]).returncode != 0:
        skip("libdpdk-dev is not installed (pkg-config libdpdk)")
    src = os.path.join(work, "examples")
    shutil.rmtree(src, ignore_errors=True)
    os.makedirs(src)
    for d in ("l3fwd", "common"):
        shutil.copytree(os.path.join(EXAMPLES, d), os.path.join(src, d))
    main = os.path.join(src, "l3fwd", "main.c")
    text = open(main).read()
    # Mask the requested Rx offloads by what the device can do (virtual devices: none).
    a = "\t\tret = config_port_max_pkt_len(&local_port_conf, &dev_info);\n"
    b = "\t\t\trxq_conf.offloads = port_conf.rxmode.offloads;\n"
    if a not in text or b not in text:
        skip("l3fwd main.c does not have the expected lines for the Rx offload patch")
    text = text.replace(a, "\t\tlocal_port_conf.rxmode.offloads &= dev_info.rx_offload_capa;\n" + a)
    text = text.replace(b, "\t\t\trxq_conf.offloads = port_conf.rxmode.offloads & dev_info.rx_offload_capa;\n")
    open(main, "w").write(text)
    r = subprocess.run(["make", "-C", os.path.join(src, "l3fwd"), "-j2"], capture_output=True, text=True)
    binary = os.path.join(src, "l3fwd", "build", "l3fwd")
    if r.returncode != 0 or not os.path.exists(binary):
        skip("l3fwd did not build: " + (r.stderr.strip().splitlines() or ["?"])[-1])
    return binary


class Telemetry:
    def __init__(self, prefix):
        self.path = "/var/run/dpdk/%s/dpdk_telemetry.v2" % prefix
        self.s = None

    def connect(self, timeout=20):
        t_end = time.time() + timeout
        while time.time() < t_end:
            try:
                s = socket.socket(socket.AF_UNIX, socket.SOCK_SEQPACKET)
                s.connect(self.path)
                s.recv(4096)
                self.s = s
                return True
            except OSError:
                time.sleep(0.2)
        return False

    def rx(self, port):
        self.s.send(("/ethdev/stats,%d" % port).encode())
        d = json.loads(self.s.recv(65536).decode())
        return d["/ethdev/stats"]["ipackets"]

    def close(self):
        if self.s:
            self.s.close()


HUGE = {"dir": None}


def hugepages(work, given=None):
    """DPDK's usual memory: 2 MiB pages on a private hugetlbfs mount (nr_hugepages only raised),
    or the mounted hugetlbfs @given."""
    path = "/proc/sys/vm/nr_hugepages"
    if given:
        if not os.path.ismount(given):
            return "%s is not a mount point" % given
        HUGE["dir"] = given
        atexit.register(shutil.rmtree, "/run/dpdk/" + PREFIX, True)
        return None
    try:
        before = int(open(path).read())
        if before < 512:
            open(path, "w").write("512")
            # atexit runs last-registered first: the pages go back after the umount below.
            atexit.register(lambda: open(path, "w").write(str(before)))
        free = int(re.search(r"HugePages_Free:\s+(\d+)", open("/proc/meminfo").read()).group(1))
        if free < 300:
            return "only %d free 2 MiB pages" % free
        d = os.path.join(work, "huge")
        os.makedirs(d, exist_ok=True)
        if not os.path.ismount(d) and subprocess.run(["mount", "-t", "hugetlbfs", "-o", "pagesize=2M", "nodev", d],
                                                     capture_output=True).returncode != 0:
            return "cannot mount hugetlbfs"
        HUGE["dir"] = d
        atexit.register(subprocess.run, ["umount", d], check=False)     # also when a step fails
        # EAL leaves its runtime directory (config, memseg arrays) behind.
        atexit.register(shutil.rmtree, "/run/dpdk/" + PREFIX, True)
        return None
    except OSError as e:
        return str(e)


def l3fwd_cmd(binary, mode, alg, files, ports, cap):
    mem = ["--huge-dir", HUGE["dir"]] if HUGE["dir"] else ["--no-huge"]
    eal = [binary, "-l", "1", "-n", "1"] + mem + ["-m", "512", "--file-prefix", PREFIX, "--no-pci",
           "--force-max-simd-bitwidth=%d" % cap, "--log-level", "lib.eal:error"]
    for i, v in enumerate(ports):
        eal += ["--vdev", v]
    app = ["--", "-p", "0x3", "--config", "(0,0,1),(1,0,1)", "--parse-ptype", "--lookup", mode,
           "--rule_ipv4", files[0], "--rule_ipv6", files[1]]
    if mode == "acl":
        app += ["--alg", alg]
    return eal + app


def run_l3fwd_until(cmd, fn):
    """Start l3fwd, call fn(proc, output_so_far) once it forwards, stop it; return (fn's value, output)."""
    out_path = "/tmp/%s-l3fwd.log" % PREFIX
    with open(out_path, "w") as o:
        p = subprocess.Popen(cmd, stdout=o, stderr=subprocess.STDOUT)
    try:
        # Building 4096 rules' tries takes l3fwd seconds on an idle core, over a minute on a loaded one.
        t_end = time.time() + START_SECONDS
        while time.time() < t_end and p.poll() is None:
            if "entering main loop" in open(out_path).read():
                break
            time.sleep(0.1)
        text = open(out_path).read()
        if p.poll() is not None or "entering main loop" not in text:
            raise RuntimeError("l3fwd did not start within %d s: %s"
                               % (START_SECONDS, " | ".join(text.strip().splitlines()[-3:])))
        val = fn(p, text)
    finally:
        if p.poll() is None:
            p.send_signal(signal.SIGINT)
            try:
                p.wait(20)
            except subprocess.TimeoutExpired:
                p.kill()
                p.wait()
    return val, open(out_path).read()


def l3fwd_macs(text):
    return [m.lower() for m in re.findall(r"Address:([0-9A-Fa-f:]{17})", text)]


# ---- packets and rules ----

def csum(b):
    s = sum(struct.unpack("!%dH" % (len(b) // 2), b))
    s = (s & 0xffff) + (s >> 16)
    s = (s & 0xffff) + (s >> 16)
    return (~s) & 0xffff


def frame(dmac, smac, src, dst, proto, sport, dport):
    """A 64-byte Ethernet frame: IPv4 (TTL 64) with the ports in the first 4 L4 bytes."""
    l4 = struct.pack("!HH", sport, dport) + bytes(26)
    ip = bytearray(struct.pack("!BBHHHBBHII", 0x45, 0, 20 + len(l4), 1, 0, 64, proto, 0, src, dst))
    ip[10:12] = struct.pack("!H", csum(bytes(ip)))
    return dmac + smac + b"\x08\x00" + bytes(ip) + l4


def write_pcap(path, frames):
    with open(path, "wb") as f:
        f.write(struct.pack("<IHHiIII", 0xa1b2c3d4, 2, 4, 0, 0, 65535, 1))
        for i, fr in enumerate(frames):
            f.write(struct.pack("<IIII", i // 1000000, i % 1000000, len(fr), len(fr)))
            f.write(fr)


def read_pcap(path):
    data = open(path, "rb").read()
    out, off = [], 24
    while off + 16 <= len(data):
        incl = struct.unpack("<I", data[off + 8:off + 12])[0]
        out.append(data[off + 16:off + 16 + incl])
        off += 16 + incl
    return out


def mac_bytes(m):
    return bytes(int(x, 16) for x in m.split(":"))


def gen_routes(n, seed):
    """n random IPv4 prefixes of /8../24 (distinct) after 0/1 and 128/1 (LPM has no /0); port = i % 2."""
    rnd = random.Random(seed)
    seen, routes = set(), [(0, 1, 0), (0x80000000, 1, 1)]
    while len(routes) < n + 2:
        plen = rnd.choice([8, 12, 16, 16, 20, 22, 24, 24, 24])
        a = rnd.getrandbits(32) & (0xffffffff << (32 - plen)) & 0xffffffff
        if (a, plen) in seen or a >> 24 in (0, 127) or a >> 28 >= 14:
            continue
        seen.add((a, plen))
        routes.append((a, plen, len(routes) % 2))
    return routes


def ip_str(a):
    return "%d.%d.%d.%d" % (a >> 24, (a >> 16) & 255, (a >> 8) & 255, a & 255)


# ---- vpk ----

def vpk_config(path, macs, in_pcap, outs, loop, routes, packets):
    lines = []
    for i in range(2):
        s = "interface p%d mac %s" % (i, macs[i])
        if i == 0:
            s += " in %s" % in_pcap + (" loop" if loop else "")
        s += " out %s" % outs[i]
        lines.append(s)
    for i in range(2):
        lines.append("neighbor %d 02:00:00:00:00:%02x dev p%d" % (i + 1, i, i))
    for a, plen, port in routes or []:
        lines.append("route add %s/%d via %d" % (ip_str(a), plen, port + 1))
    if loop:
        lines.append("run-limit packets %d" % packets)
    open(path, "w").write("\n".join(lines) + "\n")


def vpk_run(vpk, cap, cfg, acl_file, alg, core):
    cmd = ["taskset", "-c", str(core), vpk, "--json", "--max-simd-bitwidth=%d" % cap, "fwd", "--config", cfg]
    if acl_file:
        cmd += ["--l3fwd-acl", "--rule_ipv4", acl_file, "--alg=" + alg]
    with open(cfg + ".out", "w") as o, open(cfg + ".err", "w") as e:
        p = subprocess.Popen(cmd, stdout=o, stderr=e)
        _, status, ru = os.wait4(p.pid, 0)
        p.returncode = os.waitstatus_to_exitcode(status)
    if p.returncode != 0:
        raise RuntimeError("vpk fwd failed: " + open(cfg + ".err").read().strip())
    return json.loads(open(cfg + ".out").read()), ru.ru_utime + ru.ru_stime


def cpu_seconds(pid):
    f = open("/proc/%d/stat" % pid).read().rsplit(")", 1)[1].split()
    return (int(f[11]) + int(f[12])) / os.sysconf("SC_CLK_TCK")


def vpk_run_stats(j):
    run = j["runs"][0] if "runs" in j else j
    return run


def node_clocks(j, cpp):
    """Per node: its share of the graph's clocks times the CPU-time clocks per packet."""
    total = sum(n["clocks"] for n in j["nodes"]) or 1
    return [{"name": n["name"], "variant": n["variant"], "clocks_per_packet": n["clocks"] / total * cpp}
            for n in j["nodes"] if n["vectors"] > 0]


def bench_mode(a, mode, binary, vpk, w, macs, routes, rec):
    lookup, alg = (mode.split("-", 1) + [None])[:2]
    cap = 512 if alg is None or "avx512" in alg else 256
    pcap = w("acl.pcap") if lookup == "acl" else w("lpm.pcap")
    rules = (w("acl4.rules"), w("acl6.rules")) if lookup == "acl" else (w("lpm4.rules"), w("lpm6.rules"))
    vroutes = None if lookup == "acl" else routes
    acl_file = w("acl4.rules") if lookup == "acl" else None
    rec.update({"l3fwd_lookup": lookup, "alg": alg, "cap": cap})
    log("== %s" % mode)
    # 1. The same packets out: one pass, pcap outputs on both sides.
    outs_d = [w("d-o0.pcap"), w("d-o1.pcap")]
    ports = ["net_pcap0,rx_pcap=%s,tx_pcap=%s" % (pcap, outs_d[0]),
             "net_pcap1,rx_pcap=%s,tx_pcap=%s" % (w("empty.pcap"), outs_d[1])]
    run_l3fwd_until(l3fwd_cmd(binary, lookup, alg, rules, ports, cap), lambda p, t: time.sleep(1.5))
    outs_v = [w("v-o0.pcap"), w("v-o1.pcap")]
    vpk_config(w("check.cfg"), macs, pcap, outs_v, False, vroutes, 0)
    vpk_run(vpk, cap, w("check.cfg"), acl_file, alg or "auto", a.core)
    d = [read_pcap(x) for x in outs_d]
    v = [read_pcap(x) for x in outs_v]
    rec["out_l3fwd"] = [len(x) for x in d]
    rec["out_vpk"] = [len(x) for x in v]
    rec["dropped"] = a.flows - sum(len(x) for x in d)
    rec["same_packets_out"] = d == v
    rec["same_packets_out_any_order"] = [sorted(x) for x in d] == [sorted(x) for x in v]
    log("   out l3fwd %s vpk %s identical %s" % (rec["out_l3fwd"], rec["out_vpk"], rec["same_packets_out"]))
    # 2. Speed: alternate the two sides.
    ports = ["net_pcap0,rx_pcap=%s,infinite_rx=1" % pcap, "net_null0,no-rx=1"]
    vpk_config(w("speed.cfg"), macs, pcap, ["discard", "discard"], True, vroutes, int(a.packets))
    l_wall, l_cpu, v_wall, v_cpu, v_runs, b_runs = [], [], [], [], [], []
    for r in range(a.runs):
        def sample(p, t):
            tm = Telemetry(PREFIX)
            if not tm.connect():
                raise RuntimeError("no telemetry socket " + tm.path)
            time.sleep(0.5)
            n0, t0, c0 = tm.rx(0), time.monotonic(), cpu_seconds(p.pid)
            time.sleep(a.seconds)
            n1_, t1, c1 = tm.rx(0), time.monotonic(), cpu_seconds(p.pid)
            tm.close()
            return (n1_ - n0) / (t1 - t0) / 1e6, (n1_ - n0) / max(c1 - c0, 1e-9) / 1e6
        if not a.vpk_only:
            (mw, mc), _ = run_l3fwd_until(l3fwd_cmd(binary, lookup, alg, rules, ports, cap), sample)
            l_wall.append(mw)
            l_cpu.append(mc)
        j = vpk_run_stats(vpk_run(vpk, cap, w("speed.cfg"), acl_file, alg or "auto", a.core)[0])
        v_wall.append(j["mpps"])
        v_cpu.append(j["packets"] / max(j["cpu_ns"], 1) * 1e3)
        v_runs.append((v_cpu[-1], j))
        log("   run %d: %svpk %.2f Mpps (%.2f per CPU second)"
            % (r, "" if a.vpk_only else "l3fwd %.2f Mpps (%.2f per CPU second), " % (mw, mc), j["mpps"], v_cpu[-1]))
        if a.vpk_base:
            jb = vpk_run_stats(vpk_run(os.path.abspath(a.vpk_base), cap, w("speed.cfg"), acl_file, alg or "auto",
                                       a.core)[0])
            b_runs.append((jb["packets"] / max(jb["cpu_ns"], 1) * 1e3, jb))
            log("          vpk-base %.2f per CPU second" % b_runs[-1][0])
    rec["l3fwd_mpps_wall"] = l_wall
    rec["l3fwd_mpps_cpu"] = l_cpu
    rec["vpk_mpps_wall"] = v_wall
    rec["vpk_mpps_cpu"] = v_cpu
    rec["vpk_mpps_median"] = statistics.median(v_cpu)
    if l_cpu:
        rec["l3fwd_mpps_median"] = statistics.median(l_cpu)
        rec["vpk_over_l3fwd"] = rec["vpk_mpps_median"] / rec["l3fwd_mpps_median"]
        rec["vpk_over_l3fwd_wall"] = statistics.median(v_wall) / statistics.median(l_wall)
    rate, best = sorted(v_runs, key=lambda x: x[0])[len(v_runs) // 2]
    tsc_hz = best["tsc"] / (best["packets"] / (best["mpps"] * 1e6))
    rec["tsc_hz"] = tsc_hz
    rec["vpk_clocks_per_packet"] = tsc_hz / (rate * 1e6)
    rec["vpk_nodes"] = node_clocks(best, rec["vpk_clocks_per_packet"])
    if b_runs:
        brate, bbest = sorted(b_runs, key=lambda x: x[0])[len(b_runs) // 2]
        rec["vpk_base_mpps_cpu"] = [x[0] for x in b_runs]
        rec["vpk_base_mpps_median"] = brate
        rec["vpk_over_vpk_base_per_run"] = [v / b[0] for v, b in zip(v_cpu, b_runs)]
        rec["vpk_over_vpk_base"] = statistics.median(rec["vpk_over_vpk_base_per_run"])
        rec["vpk_base_clocks_per_packet"] = tsc_hz / (brate * 1e6)
        rec["vpk_base_nodes"] = node_clocks(bbest, rec["vpk_base_clocks_per_packet"])


def main():
    global PREFIX
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--vpk", default="build/vpk")
    ap.add_argument("--vpk-base", help="a second vpk binary run in the same rotation (before/after figures)")
    ap.add_argument("--work", default="build/bench/l3fwd")
    ap.add_argument("--rules", type=int, default=4096)
    ap.add_argument("--flows", type=int, default=4096)
    ap.add_argument("--routes", type=int, default=1000)
    ap.add_argument("--deny", type=float, default=0.1)
    ap.add_argument("--seconds", type=float, default=2.0, help="l3fwd's sampling window")
    ap.add_argument("--packets", type=float, default=2e7, help="vpk: packets per run")
    ap.add_argument("--runs", type=int, default=3)
    ap.add_argument("--core", type=int, default=1)
    ap.add_argument("--modes", default="acl-avx512x32,acl-avx512x16,acl-avx2,acl-scalar,lpm,fib")
    ap.add_argument("--huge-dir", help="a mounted hugetlbfs for l3fwd (default: one mounted under --work)")
    ap.add_argument("--file-prefix", default=PREFIX, help="l3fwd's EAL --file-prefix (unique per process)")
    ap.add_argument("--vpk-only", action="store_true",
                    help="with --vpk-base: time only the two vpk binaries, more pairs in the same time "
                         "(l3fwd still runs once per mode for the output check)")
    a = ap.parse_args()
    if a.vpk_only and not a.vpk_base:
        ap.error("--vpk-only compares --vpk with --vpk-base: give both")
    if os.geteuid() != 0:
        skip("DPDK's EAL needs root here")
    if not os.access(a.vpk, os.X_OK):
        skip("no vpk binary at " + a.vpk)
    os.makedirs(a.work, exist_ok=True)
    work = os.path.abspath(a.work)
    vpk = os.path.abspath(a.vpk)
    binary = build_l3fwd(work)
    PREFIX = a.file_prefix
    why_no_huge = hugepages(work, a.huge_dir)
    if why_no_huge:
        log("bench-l3fwd: l3fwd without hugepages (--no-huge): " + why_no_huge)
    w = lambda n: os.path.join(work, n)
    caps = open("/proc/cpuinfo").read()
    modes = [m for m in a.modes.split(",") if m]
    if "avx512bw" not in caps:
        modes = [m for m in modes if "avx512" not in m]

    # Rules, routes, an empty capture for port 1's Rx.
    subprocess.run([vpk, "gen", "acl", "--profile", "acl", "--rules", str(a.rules), "--seed", "1",
                    "--rules-out", w("rules"), "--l3fwd-out", w("acl4.rules"), "--l3fwd-deny", str(a.deny),
                    "--trace", str(a.flows), "--trace-out", w("trace"), "--random-share", "0.1"], check=True)
    open(w("acl6.rules"), "w").write("R0:0:0:0:0:0:0:0/0\t0:0:0:0:0:0:0:0/0\t0 : 65535\t0 : 65535\t0x00/0x00\t0\n")
    routes = gen_routes(a.routes, 7)
    open(w("lpm4.rules"), "w").write("".join("R%s/%d %d\n" % (ip_str(x), p, port) for x, p, port in routes))
    open(w("lpm6.rules"), "w").write("R2001:db8:0:0:0:0:0:0/48 0\n")
    write_pcap(w("empty.pcap"), [])

    # l3fwd's port MACs (vpk's interfaces take them, so the outputs compare byte for byte).
    write_pcap(w("probe.pcap"), [frame(b"\xff" * 6, b"\x02" * 6, 1, 2, 17, 1, 2)])
    probe_ports = ["net_pcap0,rx_pcap=%s,tx_pcap=%s" % (w("probe.pcap"), w("probe-o0.pcap")),
                   "net_pcap1,rx_pcap=%s,tx_pcap=%s" % (w("empty.pcap"), w("probe-o1.pcap"))]
    _, text = run_l3fwd_until(l3fwd_cmd(binary, "lpm", None, (w("lpm4.rules"), w("lpm6.rules")), probe_ports, 256),
                              lambda p, t: None)
    macs = l3fwd_macs(text)
    if len(macs) < 2:
        skip("could not read l3fwd's port MACs")
    dmac, smac = mac_bytes(macs[0]), mac_bytes("02:00:00:00:00:99")

    # Packets: ACL flows from the trace; route flows to random hosts of the routes.
    acl_frames = []
    for line in open(w("trace")):
        f = line.split()
        if len(f) >= 5:
            acl_frames.append(frame(dmac, smac, int(f[0]), int(f[1]), int(f[4]), int(f[2]), int(f[3])))
    rnd = random.Random(11)
    lpm_frames = []
    for i in range(a.flows):
        x, p, _ = routes[2 + rnd.randrange(len(routes) - 2)]
        dst = x | (rnd.getrandbits(32 - p) if p < 32 else 0)
        lpm_frames.append(frame(dmac, smac, rnd.getrandbits(32), dst, 17, rnd.randrange(1024, 65536), 53))
    write_pcap(w("acl.pcap"), acl_frames)
    write_pcap(w("lpm.pcap"), lpm_frames)

    result = {"l3fwd": "DPDK 22.11 examples/l3fwd (dpdk-doc), Rx offloads masked by device capabilities",
              "eal": ("2 MiB hugepages" if HUGE["dir"] else "--no-huge (%s)" % why_no_huge) +
                     " -m 512, net_pcap infinite_rx=1 (port 0) + net_null no-rx=1 (port 1), lcore %d" % a.core,
              "packets": a.flows, "acl_rules": a.rules, "deny_share": a.deny, "routes": len(routes),
              "frame_bytes": 64, "seconds_per_run": a.seconds, "runs": a.runs, "modes": []}
    for mode in modes:
        rec = {"mode": mode}
        try:
            bench_mode(a, mode, binary, vpk, w, macs, routes, rec)
        except (RuntimeError, OSError, ValueError, KeyError) as e:
            rec["error"] = str(e)
            log("   %s: %s" % (mode, e))
        result["modes"].append(rec)
    print(json.dumps(result, indent=1))


if __name__ == "__main__":
    main()
