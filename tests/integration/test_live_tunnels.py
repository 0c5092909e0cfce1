"""Tunnel lines and interface state through `vpk ctl` while live traffic flows, in namespaces:

    ns G: g0 <-> f0 :ns F (vpk fwd --cli-socket): f1 <-> s0 :ns S (raw socket capture)

A sender in G loops over VxLAN frames to the router's VTEP, plain IPv4 for a
tunnel's encap prefix, GTP-U for a GTP4.D steering prefix and SRv6 for an
End.M.GTP4.E localsid, at a bounded rate, for the whole test. The forwarder
starts without any tunnel; `vpk ctl` adds them, then deletes them, and after
each step the node counters (deltas over a second) and the frames leaving
on s0 say what happened to each kind. Every name starts with "live"; all of
it is deleted afterwards, also on failure. Without root or namespaces the
tests skip and say why.
"""
import json
import os
import socket
import struct
import subprocess
import sys
import time

import pytest
from scapy.all import IP, UDP, Ether, IPv6, Raw  # noqa: E402
from scapy.layers.vxlan import VXLAN

from test_live import Topo, live_skip_reason, sh
from test_tunnels import INNER6, sid_ref

IN_MAC = "02:00:00:00:00:01"
OUT_MAC = "02:00:00:00:01:01"
NEIGH = "02:aa:00:00:00:01"
SRC = "02:00:00:00:00:10"
VTEP = "10.9.0.1"


@pytest.fixture(scope="module")
def live_ok():
    reason = live_skip_reason()
    if reason:
        print(f"SKIP: {reason}")
        pytest.skip(reason)


@pytest.fixture
def topo(live_ok):
    # every name starts with "live"; generous timeouts for a loaded machine
    t = Topo(prefix="live", op_timeout=90, run_limit=600)
    try:
        yield t
    finally:
        t.close()


# Sends the length-prefixed frames of stdin again and again at a bounded rate until killed.
SENDER = r"""
import socket, struct, sys, time
iface, pps = sys.argv[1], float(sys.argv[2])
data = sys.stdin.buffer.read()
frames, off = [], 0
while off < len(data):
    (n,) = struct.unpack_from("!H", data, off)
    frames.append(data[off + 2:off + 2 + n])
    off += 2 + n
s = socket.socket(socket.AF_PACKET, socket.SOCK_RAW)
s.bind((iface, 0))
while True:
    for f in frames:
        s.send(f)
        time.sleep(1.0 / pps)
"""

# Prints the frames arriving on an interface for a while, one hex line each.
SNIFFER = r"""
import socket, sys, time
iface, secs = sys.argv[1], float(sys.argv[2])
s = socket.socket(socket.AF_PACKET, socket.SOCK_RAW, socket.htons(3))
s.bind((iface, 0))
s.settimeout(0.1)
end = time.time() + secs
while time.time() < end:
    try:
        print(s.recv(65535).hex(), flush=True)
    except socket.timeout:
        pass
"""


def start_sender(topo, frames, pps=800):
    p = topo.start(topo.g, sys.executable, "-c", SENDER, topo.g0, str(pps), stdin=subprocess.PIPE,
                   stdout=subprocess.DEVNULL, stderr=subprocess.PIPE)
    p.stdin.write(b"".join(struct.pack("!H", len(f)) + f for f in frames))
    p.stdin.close()
    return p


def sniff(topo, secs=1.0):
    # a generous timeout: the forwarder's busy-polling threads and the sender share the cores
    p = sh("ip", "netns", "exec", topo.s, sys.executable, "-c", SNIFFER, topo.s0, str(secs), timeout=120)
    return [Ether(bytes.fromhex(x)) for x in p.stdout.split()]


def rx_quiet(topo, secs=1.0):
    """Frames arriving on s0 during @secs (its kernel counter; nothing should leave F)."""
    def rx():
        return int(sh("ip", "netns", "exec", topo.s, "cat", f"/sys/class/net/{topo.s0}/statistics/rx_packets",
                      timeout=60).stdout)
    a = rx()
    time.sleep(secs)
    return rx() - a


class Fwd:
    def __init__(self, vpk_bin, topo, tmp_path, conf, args=()):
        self.vpk, self.sock = vpk_bin, str(tmp_path / "cli.sock")
        cfg = tmp_path / "f.conf"
        cfg.write_text(conf)
        self.p = topo.start(topo.f, vpk_bin, "fwd", "--config", str(cfg), "--cli-socket", self.sock, *args,
                            stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True)
        deadline = time.time() + 60
        while not os.path.exists(self.sock):
            if self.p.poll() is not None or time.time() > deadline:
                self.p.kill()
                raise AssertionError(f"vpk fwd did not start: {self.p.communicate(timeout=5)[1]}")
            time.sleep(0.05)

    def ctl(self, line):
        p = subprocess.run([self.vpk, "ctl", "--socket", self.sock, *line.split()], capture_output=True, text=True,
                           timeout=30)
        assert p.returncode == 0, f"vpk ctl {line}: {p.stderr}"
        return p.stdout

    def errors(self):
        p = subprocess.run([self.vpk, "ctl", "--socket", self.sock, "show", "errors", "--json"],
                           capture_output=True, text=True, timeout=30)
        assert p.returncode == 0, p.stderr
        return {(e["node"], e["reason"]): e["count"] for e in json.loads(p.stdout)["errors"]}

    def delta(self, secs=1.0):
        """Counter increments over @secs of traffic, after the last change settled."""
        time.sleep(0.3)
        a = self.errors()
        time.sleep(secs)
        b = self.errors()
        return {k: v - a.get(k, 0) for k, v in b.items() if v != a.get(k, 0)}


def count(d, node, sub):
    return sum(v for (n, r), v in d.items() if n == node and sub in r)


BASE = """interface eth0 mac {in_mac} live {f0}
interface eth1 mac {out_mac} live {f1}
neighbor 1 {neigh} dev eth1
route add 10.1.0.0/16 via 1
route add 192.168.0.0/24 via 1
"""

ADD = ["vxlan tunnel src 10.9.0.1 dst 192.168.0.2 vni 100 decap-next ip4",
       "vxlan tunnel src 10.9.0.1 dst 192.168.0.2 vni 99 decap-next ip4",
       "vxlan tunnel src 10.9.0.1 dst 192.168.0.7 vni 7 encap 10.7.0.0/16",
       "sr steer gtp4-d 10.8.0.0/16 sr-prefix d4::/32 v6src-prefix c1::/64 via 1",
       "sr localsid end-m-gtp4-e d5::/32 v4src-position 64"]
DEL = ["vxlan tunnel src 10.9.0.1 dst 192.168.0.2 vni 100 del",
       "vxlan tunnel src 10.9.0.1 dst 192.168.0.7 vni 7 del",
       "sr steer gtp4-d 10.8.0.0/16 del",
       "sr localsid end-m-gtp4-e d5::/32 del"]
SID = sid_ref("d5::", 32, "10.1.0.9", 0, 42)


def tunnel_frames():
    inner = (Ether(src="02:11:11:11:11:11", dst="02:22:22:22:22:22") / IP(src="1.2.3.4", dst="10.1.0.5") /
             UDP(sport=7000, dport=7777) / Raw(b"d" * 30))
    gtp_inner = bytes(IP(src="10.200.0.1", dst="10.1.0.8") / UDP(sport=5, dport=6) / Raw(b"g" * 20))
    return [bytes(f) for f in (
        Ether(src=SRC, dst=IN_MAC) / IP(src="192.168.0.2", dst=VTEP) / UDP(sport=40000, dport=4789, chksum=0) /
        VXLAN(vni=100, flags=0x08) / inner,
        Ether(src=SRC, dst=IN_MAC) / IP(src="192.168.0.1", dst="10.7.0.1") / UDP(sport=1234, dport=53) /
        Raw(b"e" * 30),
        Ether(src=SRC, dst=IN_MAC) / IP(src="192.168.0.3", dst="10.8.0.1") / UDP(sport=2152, dport=2152) /
        Raw(struct.pack("!BBHI", 0x30, 0xFF, len(gtp_inner), 0x1234) + gtp_inner),
        Ether(src=SRC, dst=IN_MAC) / IPv6(src="c1::1", dst=SID) / INNER6,
    )]


def kinds(frames):
    """What left on s0: decapsulated inner frames, VxLAN encapsulations, SRv6 translations, GTP-U from SRv6."""
    k = {"decap": 0, "encap": 0, "srv6": 0, "gtp4e": 0}
    for f in frames:
        if IP in f and f[IP].dst == "10.1.0.5" and UDP in f and f[UDP].dport == 7777:
            k["decap"] += 1
        elif IP in f and f[IP].dst == "192.168.0.7" and UDP in f and f[UDP].dport == 4789:
            assert bytes(f[UDP].payload)[4:7] == b"\x00\x00\x07"           # VNI 7
            k["encap"] += 1
        elif IPv6 in f and f[IPv6].dst.startswith("d4:"):
            k["srv6"] += 1
        elif IP in f and f[IP].dst == "10.1.0.9" and UDP in f and f[UDP].dport == 2152:
            k["gtp4e"] += 1
    return k


@pytest.mark.parametrize("args", [(), ("--workers", "2")], ids=["one", "workers2"])
def test_tunnels_added_and_deleted_live_under_traffic(vpk_bin, topo, tmp_path, args):
    fwd = Fwd(vpk_bin, topo, tmp_path, BASE.format(in_mac=IN_MAC, out_mac=OUT_MAC, neigh=NEIGH, f0=topo.f0,
                                                    f1=topo.f1), args)
    start_sender(topo, tunnel_frames())
    # No tunnel yet: the VTEP address is not local, the prefixes have no route.
    d = fwd.delta()
    assert count(d, "vxlan4-input", "not for a local VTEP") > 0
    assert count(d, "vxlan4-input", "good packets") == 0
    assert count(d, "ip4-lookup", "") > 0 and count(d, "ip6-lookup", "") > 0
    assert rx_quiet(topo) == 0

    for line in ADD:
        fwd.ctl(line)
    d = fwd.delta()
    assert count(d, "vxlan4-input", "good packets decapsulated") > 0
    assert count(d, "vxlan4-input", "no such tunnel") == 0
    assert count(d, "vxlan4-encap", "good packets encapsulated") > 0
    assert count(d, "srv6-gtp4-d", "good packets translated") > 0
    assert count(d, "srv6-end-m-gtp4-e", "good packets translated") > 0
    assert count(d, "ip4-lookup", "") == 0 and count(d, "ip6-lookup", "") == 0
    k = kinds(sniff(topo))
    assert all(v > 0 for v in k.values()), k

    for line in DEL:
        fwd.ctl(line)
    d = fwd.delta()
    # vni 100 is gone but the VTEP still has vni 99: its frames are dropped as no such tunnel.
    assert count(d, "vxlan4-input", "no such tunnel (endpoints + VNI)") > 0
    assert count(d, "vxlan4-input", "good packets") == 0
    assert count(d, "vxlan4-encap", "") == 0 and count(d, "srv6-gtp4-d", "") == 0
    assert count(d, "srv6-end-m-gtp4-e", "") == 0
    assert count(d, "ip4-lookup", "") > 0 and count(d, "ip6-lookup", "") > 0      # back to no route
    assert rx_quiet(topo) == 0
    st = json.loads(fwd.ctl("show errors --json"))
    assert st["errors"]


def test_interface_down_in_the_configuration(vpk_bin, topo, tmp_path):
    conf = BASE.format(in_mac=IN_MAC, out_mac=OUT_MAC, neigh=NEIGH, f0=topo.f0, f1=topo.f1) + "interface eth0 down\n"
    fwd = Fwd(vpk_bin, topo, tmp_path, conf)
    plain = bytes(Ether(src=SRC, dst=IN_MAC) / IP(src="192.168.0.1", dst="10.1.0.5") / UDP(sport=1, dport=7777) /
                  Raw(b"p" * 30))
    start_sender(topo, [plain], pps=400)
    d = fwd.delta()
    assert count(d, "ethernet-input", "port is administratively down") > 0
    assert count(d, "interface-output", "") == 0
    assert rx_quiet(topo) == 0
    ifs = {i["name"]: i for i in json.loads(fwd.ctl("show interface --json"))["interfaces"]}
    assert ifs["eth0"]["state"] == "down" and ifs["eth1"]["state"] == "up"
    fwd.ctl("interface eth0 up")
    d = fwd.delta()
    assert count(d, "ethernet-input", "administratively down") == 0
    assert [f for f in sniff(topo) if IP in f and f[IP].dst == "10.1.0.5"]


def test_sr_del_forms_in_a_file(run_vpk, tmp_path):
    """Delete forms in a configuration file (no namespaces): a policy goes while the steering entry
    using another one keeps its segments; deleted steering entries and localsids translate nothing."""
    from scapy.layers.inet6 import IPv6ExtHdrSegmentRouting
    from test_tunnels import GTP_CONF, err, gtpu, run

    conf = ("sr policy bsid d9:: segments d7:: via 1\n" + GTP_CONF + "sr policy bsid d9:: del\n"
            "sr steer gtp4-d 1.1.2.0/24 sr-prefix d4::/32 v6src-prefix c1::/64 via 1\n"
            "sr steer gtp4-d 1.1.2.0/24 del\n"
            "sr localsid end-m-gtp4-e d5::/32 v4src-position 64\nsr localsid end-m-gtp4-e d5::/32 del\n")
    out, errs, _ = run(run_vpk, tmp_path, conf, [gtpu(INNER6), gtpu(INNER6, dst="1.1.2.1")])
    assert err(errs, "srv6-gtp4-d", "good packets") == 1
    assert len(out) == 1
    assert out[0][IPv6ExtHdrSegmentRouting].addresses[1:] == ["d3::", "d2::"]     # policy d4::, not d9::
    bad = tmp_path / "bad.conf"
    bad.write_text(GTP_CONF + "sr policy bsid d4:: del\n")
    p = run_vpk("fwd", "--config", str(bad))
    assert p.returncode != 0 and "sr policy del: BSID d4:: is used by a steering entry" in p.stderr
    bad.write_text("sr steer gtp4-d 1.1.9.0/24 del\n")
    p = run_vpk("fwd", "--config", str(bad))
    assert p.returncode != 0 and "bad.conf:1: sr steer del: no such prefix" in p.stderr
