"""Live packet I/O (include/vpk/io.h) over real network namespaces and veth pairs.

As root, every test builds its own topology with unique names

    ns G: g0 <-> f0 :ns F: f1 <-> s0 :ns S
    sender          vpk fwd / iofwd   capture (tcpdump)

sends scapy-built frames at a bounded rate from G, captures what leaves F on
S, and compares bytes with what the pcap-mode forwarder makes of the same
input. Nothing has an IP address or a route, IPv6 is off in the namespaces,
so no traffic leaves them; everything is deleted afterwards, also on failure.
Where namespaces are not permitted the tests print the reason and skip.
"""
import itertools
import json
import os
import shutil
import signal
import struct
import subprocess
import sys
import time

import pytest
from scapy.all import IP, UDP, Dot1Q, Ether, IPv6, Raw, rdpcap, wrpcap  # noqa: E402

IN_MAC = "02:00:00:00:00:01"
OUT_MAC = "02:00:00:00:01:01"
NEIGH = "02:aa:00:00:00:01"
SRC = "02:00:00:00:00:10"
PREFIX = "vpkl"
_seq = itertools.count()


def sh(*args, check=True, timeout=20):
    p = subprocess.run(list(args), capture_output=True, text=True, timeout=timeout)
    if check and p.returncode != 0:
        raise RuntimeError(f"{' '.join(args)}: {p.stderr.strip()}")
    return p


def live_skip_reason():
    if os.geteuid() != 0:
        return f"live-traffic tests need root (uid {os.geteuid()})"
    for tool in ("ip", "tcpdump"):
        if shutil.which(tool) is None:
            return f"{tool} not installed"
    name = f"{PREFIX}probe{os.getpid() % 100000}"
    p = sh("ip", "netns", "add", name, check=False)
    if p.returncode != 0:
        return f"cannot create network namespace: {p.stderr.strip()}"
    try:
        p = sh("ip", "link", "add", f"{name}a", "netns", name, "type", "veth", "peer", "name", f"{name}b",
               "netns", name, check=False)
        if p.returncode != 0:
            return f"cannot create veth pair: {p.stderr.strip()}"
    finally:
        sh("ip", "netns", "del", name, check=False)
    return None


_REASON = None


@pytest.fixture(scope="module")
def live_ok():
    global _REASON
    _REASON = live_skip_reason()
    if _REASON:
        print(f"SKIP: {_REASON}")
        pytest.skip(_REASON)


class Topo:
    """Three namespaces and two veth pairs with per-test unique names; close() removes all.

    prefix starts every namespace and veth name; each veth has @queues rx and tx queues;
    op_timeout bounds each `ip` call (namespace operations wait for the kernel's locks on a loaded
    machine); run_limit bounds start()'s commands.
    """

    def __init__(self, prefix=PREFIX, queues=1, op_timeout=20, run_limit=30):
        sfx = f"{os.getpid() % 10000}{next(_seq)}"
        self.op_timeout, self.run_limit = op_timeout, run_limit
        self.g, self.f, self.s = (f"{prefix}_{x}{sfx}" for x in "gfs")
        self.g0, self.f0, self.f1, self.s0 = (f"{prefix}{x}{sfx}" for x in ("g0", "f0", "f1", "s0"))
        self.procs = []
        t = op_timeout
        q = ["numrxqueues", str(queues), "numtxqueues", str(queues)] if queues > 1 else []
        try:
            for n in (self.g, self.f, self.s):
                sh("ip", "netns", "add", n, timeout=t)
                sh("ip", "netns", "exec", n, "sysctl", "-qw", "net.ipv6.conf.all.disable_ipv6=1",
                   "net.ipv6.conf.default.disable_ipv6=1", timeout=t)
                sh("ip", "-n", n, "link", "set", "lo", "up", timeout=t)
            sh("ip", "link", "add", self.g0, "netns", self.g, *q, "type", "veth", "peer", "name", self.f0,
               "netns", self.f, *q, timeout=t)
            sh("ip", "link", "add", self.f1, "netns", self.f, *q, "type", "veth", "peer", "name", self.s0,
               "netns", self.s, *q, timeout=t)
            for n, i in ((self.g, self.g0), (self.f, self.f0), (self.f, self.f1), (self.s, self.s0)):
                sh("ip", "-n", n, "link", "set", i, "up", timeout=t)
        except Exception:
            self.close()
            raise

    def start(self, ns, *cmd, **kw):
        p = subprocess.Popen(["ip", "netns", "exec", ns, "timeout", str(self.run_limit), *cmd], **kw)
        self.procs.append(p)
        return p

    def counter(self, ns, ifname, what):
        return int(sh("ip", "netns", "exec", ns, "cat", f"/sys/class/net/{ifname}/statistics/{what}").stdout)

    def close(self):
        for p in self.procs:
            # timeout(1) leads a process group holding the command: end both, not timeout alone
            try:
                os.killpg(p.pid, signal.SIGKILL)
            except (ProcessLookupError, PermissionError):
                pass
            try:
                p.wait(timeout=5)
            except subprocess.TimeoutExpired:
                pass
        for n in (self.g, self.f, self.s):
            sh("ip", "netns", "del", n, check=False, timeout=self.op_timeout)


@pytest.fixture
def topo(live_ok):
    t = Topo()
    yield t
    t.close()


def frames():
    """IPv4, IPv6 (dropped: the configs route no IPv6 prefix), VxLAN and GTP-U as plain UDP,
    one VLAN-tagged (dropped: no sub-interface has its tag)."""
    out = []
    for i in range(40):
        out.append(Ether(src=SRC, dst=IN_MAC) / IP(src="192.168.0.1", dst=f"10.1.{i}.{i + 1}") /
                   UDP(sport=1000 + i, dport=53) / Raw(bytes([i]) * (18 + i * 7)))
    for i in range(10):
        out.append(Ether(src=SRC, dst=IN_MAC) / IPv6(src="2001:db8::1", dst=f"2001:db8:1::{i + 1}") /
                   UDP(sport=2000 + i, dport=53) / Raw(b"6" * 30))
    for i in range(10):
        inner = Ether(src="02:11:11:11:11:11", dst="02:22:22:22:22:22") / IP(dst="172.16.0.1") / UDP() / Raw(b"i" * i)
        vxlan = struct.pack("!BxxxI", 0x08, (100 + i) << 8)
        out.append(Ether(src=SRC, dst=IN_MAC) / IP(src="192.168.0.2", dst="10.1.200.1") /
                   UDP(sport=40000 + i, dport=4789) / Raw(vxlan + bytes(inner)))
    for i in range(10):
        gtp = struct.pack("!BBHI", 0x30, 0xFF, 28 + i, 0x1000 + i)
        inner = bytes(IP(src="10.200.0.1", dst="8.8.8.8") / UDP(sport=5, dport=6) / Raw(b"g" * i))
        out.append(Ether(src=SRC, dst=IN_MAC) / IP(src="192.168.0.3", dst="10.1.201.1") /
                   UDP(sport=2152, dport=2152) / Raw(gtp + inner))
    out.append(Ether(src=SRC, dst=IN_MAC) / Dot1Q(vlan=100) / IP(src="192.168.0.1", dst="10.1.7.7") /
               UDP(sport=7, dport=53) / Raw(b"v" * 20))
    return [bytes(f) for f in out]


# Sends length-prefixed frames from stdin on an AF_PACKET socket, paced (bounded rate).
SENDER = r"""
import socket, struct, sys, time
iface, pps = sys.argv[1], float(sys.argv[2])
data = sys.stdin.buffer.read()
s = socket.socket(socket.AF_PACKET, socket.SOCK_RAW)
s.bind((iface, 0))
off = 0
while off < len(data):
    (n,) = struct.unpack_from("!H", data, off)
    s.send(data[off + 2:off + 2 + n])
    off += 2 + n
    time.sleep(1.0 / pps)
"""


def send(topo, pkts, pps=2000):
    blob = b"".join(struct.pack("!H", len(p)) + p for p in pkts)
    p = subprocess.run(["ip", "netns", "exec", topo.g, sys.executable, "-c", SENDER, topo.g0, str(pps)],
                       input=blob, capture_output=True, timeout=30)
    assert p.returncode == 0, p.stderr.decode()


def start_capture(topo, path):
    err = open(str(path) + ".err", "w+")
    cap = topo.start(topo.s, "tcpdump", "-i", topo.s0, "-w", str(path), "-U", "-n", "--immediate-mode",
                     "-Z", "root", stdout=subprocess.DEVNULL, stderr=err)
    for _ in range(100):
        err.seek(0)
        if "listening on" in err.read():
            return cap
        time.sleep(0.05)
    raise AssertionError("tcpdump did not start")


def stop_capture(topo, cap, want):
    deadline = time.time() + 5
    while topo.counter(topo.s, topo.s0, "rx_packets") < want and time.time() < deadline:
        time.sleep(0.05)
    time.sleep(0.3)
    cap.send_signal(signal.SIGINT)
    cap.wait(timeout=10)


def wait_ready(topo, io):
    """The forwarder's sockets exist: packet sockets listed, or an XDP program attached on both."""
    for _ in range(200):
        if io == "af_xdp":
            links = sh("ip", "-n", topo.f, "link", "show").stdout
            if links.count("xdp") >= 2:
                time.sleep(0.2)
                return
        else:
            lines = sh("ip", "netns", "exec", topo.f, "cat", "/proc/net/packet").stdout.strip().splitlines()
            if len(lines) >= 3:
                time.sleep(0.1)
                return
        time.sleep(0.05)
    raise AssertionError("forwarder did not open its ports")


CONFIG_LIVE = """interface eth0 mac {in_mac} live {f0} io {io}
interface eth1 mac {out_mac} live {f1} io {io}
neighbor 1 {neigh} dev eth1
route add 10.1.0.0/16 via 1
"""
CONFIG_PCAP = """interface eth0 mac {in_mac} in {inp}
interface eth1 mac {out_mac} out {out}
neighbor 1 {neigh} dev eth1
route add 10.1.0.0/16 via 1
"""


@pytest.mark.parametrize("io", ["af_packet", "af_xdp"])
def test_live_fwd_matches_pcap_mode(run_vpk, vpk_bin, topo, tmp_path, io):
    pkts = frames()
    inp, exp, got = tmp_path / "in.pcap", tmp_path / "expected.pcap", tmp_path / "live.pcap"
    wrpcap(str(inp), [Ether(p) for p in pkts])
    (tmp_path / "pcap.conf").write_text(CONFIG_PCAP.format(in_mac=IN_MAC, out_mac=OUT_MAC, neigh=NEIGH,
                                                           inp=inp, out=exp))
    ref = run_vpk("fwd", "--config", str(tmp_path / "pcap.conf"), "--json")
    assert ref.returncode == 0, ref.stderr
    want = [bytes(p) for p in rdpcap(str(exp))]
    assert len(want) == 60                   # 40 IPv4 + 10 VxLAN + 10 GTP-U; IPv6 and VLAN dropped

    (tmp_path / "live.conf").write_text(CONFIG_LIVE.format(in_mac=IN_MAC, out_mac=OUT_MAC, neigh=NEIGH,
                                                           f0=topo.f0, f1=topo.f1, io=io))
    cap = start_capture(topo, got)
    fwd = topo.start(topo.f, vpk_bin, "fwd", "--config", str(tmp_path / "live.conf"), "--count", str(len(pkts)),
                     "--duration", "15", "--json", stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True)
    try:
        wait_ready(topo, io)
    except AssertionError:
        out, err = fwd.communicate(timeout=20)
        if io == "af_xdp" and "not permitted" in err:
            pytest.skip(f"AF_XDP refused here: {err.strip()}")
        raise AssertionError(f"forwarder did not start: {err}")
    send(topo, pkts)
    out, err = fwd.communicate(timeout=25)
    assert fwd.returncode == 0, err
    stop_capture(topo, cap, len(want))
    run = json.loads(out)["runs"][0]
    ifs = {i["name"]: i for i in run["interfaces"]}
    assert ifs["eth0"]["rx"] == len(pkts)
    assert ifs["eth1"]["tx"] == len(want)
    live = [bytes(p) for p in rdpcap(str(got))]
    assert len(live) == len(want)
    for i, (a, b) in enumerate(zip(live, want)):
        assert a == b, f"packet {i} differs: live {a.hex()} pcap-mode {b.hex()}"


@pytest.mark.parametrize("io", ["af_packet", "af_xdp"])
def test_iofwd_forwards_unchanged_and_survives_peer_loss(vpk_bin, topo, tmp_path, io):
    pkts = frames()
    got = tmp_path / "io.pcap"
    cap = start_capture(topo, got)
    fwd = topo.start(topo.f, vpk_bin, "iofwd", "--port", topo.f0, "--port", topo.f1, "--io", io,
                     "--duration", "2.5", "--json", stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True)
    try:
        wait_ready(topo, io)
    except AssertionError:
        out, err = fwd.communicate(timeout=20)
        if io == "af_xdp" and "not permitted" in err:
            pytest.skip(f"AF_XDP refused here: {err.strip()}")
        raise AssertionError(f"iofwd did not start: {err}")
    send(topo, pkts)
    stop_capture(topo, cap, len(pkts))
    assert [bytes(p) for p in rdpcap(str(got))] == pkts      # io mode: every frame unchanged
    # The peer goes away with buffers possibly in flight: the sender's namespace and
    # with it both ends of the g0/f0 pair disappear while iofwd runs.
    sh("ip", "netns", "del", topo.g)
    out, err = fwd.communicate(timeout=25)
    assert fwd.returncode == 0, err
    res = json.loads(out)
    assert res["rx"] == len(pkts) and res["tx"] == len(pkts)
    assert res["ports"][0]["rx"] == len(pkts) and res["ports"][1]["tx"] == len(pkts)
    assert res["ports"][0]["link_gone"] is True
    assert res["buffers_in_use"] == 0


def test_missing_interface_is_a_clear_error(run_vpk, topo):
    p = run_vpk("fwd", "--iface", "vpknosuch0", "--count", "1")
    assert p.returncode == 2
    assert "vpknosuch0: no such interface" in p.stderr
    p = run_vpk("iofwd", "--port", "vpknosuch0", "--io", "af_xdp")
    assert p.returncode == 2 and "no such interface" in p.stderr


def test_not_permitted_is_a_clear_error(vpk_bin, topo):
    if shutil.which("setpriv") is None:
        pytest.skip("setpriv not installed")
    # As user nobody inside the forwarder's namespace: neither socket type is allowed.
    p = subprocess.run(["ip", "netns", "exec", topo.f, "setpriv", "--reuid=65534", "--regid=65534",
                        "--clear-groups", vpk_bin, "iofwd", "--port", topo.f0, "--io", "af_xdp", "--duration", "1"],
                       capture_output=True, text=True, timeout=20)
    assert p.returncode == 1, p.stderr
    assert "af_xdp" in p.stderr and "not permitted" in p.stderr and "using af_packet instead" in p.stderr
    assert "af_packet" in p.stderr and "needs CAP_NET_RAW" in p.stderr


def test_iofwd_fanout_workers_share_the_traffic(vpk_bin, topo, tmp_path):
    pkts = frames()
    got = tmp_path / "fanout.pcap"
    cap = start_capture(topo, got)
    fwd = topo.start(topo.f, vpk_bin, "iofwd", "--port", topo.f0, "--port", topo.f1, "--io", "af_packet",
                     "--workers", "2", "--count", str(len(pkts)), "--duration", "10", "--json",
                     stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True)
    for _ in range(200):                     # 2 workers x 2 ports = 4 packet sockets
        if len(sh("ip", "netns", "exec", topo.f, "cat", "/proc/net/packet").stdout.strip().splitlines()) >= 5:
            break
        time.sleep(0.05)
    time.sleep(0.1)
    send(topo, pkts)
    out, err = fwd.communicate(timeout=25)
    assert fwd.returncode == 0, err
    stop_capture(topo, cap, len(pkts))
    res = json.loads(out)
    assert res["rx"] == len(pkts) and res["tx"] == len(pkts) and res["buffers_in_use"] == 0
    per = [w["rx"] for w in res["workers"]]
    assert sum(per) == len(pkts) and min(per) > 0, per          # PACKET_FANOUT_HASH spread the flows
    # Workers may reorder packets of different flows: compare as multisets.
    assert sorted(bytes(p) for p in rdpcap(str(got))) == sorted(pkts)


def test_iofwd_workers_need_af_packet(run_vpk):
    p = run_vpk("iofwd", "--port", "x0", "--io", "af_xdp", "--workers", "2")
    assert p.returncode == 2 and "--workers needs --io af_packet" in p.stderr
