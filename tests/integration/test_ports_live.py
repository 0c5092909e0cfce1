"""Ports on live interfaces in network namespaces (names start with "ports", all
deleted afterwards, also on failure): L2 input on a live port (its device's
MAC, other hosts' frames dropped and counted, VLAN sub-interfaces both ways),
and multi-queue veths fully served.

    ns G: g0 <-> f0 :ns F: f1 <-> s0 :ns S
    sender          vpk fwd / iofwd   capture (tcpdump)
"""
import json
import os
import struct
import subprocess
import sys
import time

import pytest
from scapy.all import IP, UDP, Dot1Q, Ether, Raw, rdpcap  # noqa: E402

import test_live

NEIGH = "02:aa:00:00:00:01"
SRC = "02:00:00:00:00:10"


def sh(*args, check=True):
    return test_live.sh(*args, check=check)


class Topo(test_live.Topo):
    """test_live's three namespaces and two veth pairs, named "ports...", @queues rx/tx queues each."""

    def __init__(self, queues=1):
        super().__init__(prefix="ports", queues=queues)

    def mac(self, ns, ifname):
        return sh("ip", "netns", "exec", ns, "cat", f"/sys/class/net/{ifname}/address").stdout.strip()


@pytest.fixture
def topo(live_ok):
    t = Topo()
    yield t
    t.close()


live_ok = test_live.live_ok


def run_fwd(topo, vpk_bin, tmp_path, conf, pkts, want, io="af_packet", extra=()):
    (tmp_path / "f.conf").write_text(conf)
    got = tmp_path / "got.pcap"
    cap = test_live.start_capture(topo, got)
    fwd = topo.start(topo.f, vpk_bin, "fwd", "--config", str(tmp_path / "f.conf"), "--count", str(len(pkts)),
                     "--duration", "15", "--json", *extra, stdout=subprocess.PIPE, stderr=subprocess.PIPE,
                     text=True)
    try:
        test_live.wait_ready(topo, io)
    except AssertionError:
        out, err = fwd.communicate(timeout=20)
        raise AssertionError(f"forwarder did not start: {err}")
    test_live.send(topo, pkts)
    out, err = fwd.communicate(timeout=25)
    assert fwd.returncode == 0, err
    test_live.stop_capture(topo, cap, want)
    run = json.loads(out)["runs"][0]
    return run, [bytes(p) for p in rdpcap(str(got))] if want else []


def udp(dst_mac, ip, tags=()):
    l2 = Ether(src=SRC, dst=dst_mac)
    for t in tags:
        l2 = l2 / t
    return bytes(l2 / IP(src="192.168.0.1", dst=ip) / UDP(sport=9, dport=53) / Raw(b"l" * 20))


@pytest.mark.parametrize("io", ["af_packet", "af_xdp"])
def test_live_port_takes_only_its_frames(vpk_bin, topo, tmp_path, io):
    mac_f0, mac_f1 = topo.mac(topo.f, topo.f0), topo.mac(topo.f, topo.f1)
    conf = (f"interface eth0 live {topo.f0} io {io}\ninterface eth0.100\n"
            f"interface eth1 live {topo.f1} io {io}\ninterface eth1.7\n"
            f"neighbor 1 {NEIGH} dev eth1\nneighbor 2 {NEIGH} dev eth1.7\n"
            "route add 10.1.0.0/16 via 1\nroute add 10.7.0.0/16 via 2\n")
    pkts = ([udp(mac_f0, f"10.1.0.{i}") for i in range(1, 6)] +                  # ours: forwarded
            [udp("02:00:00:00:77:77", f"10.1.1.{i}") for i in range(1, 11)] +    # another host's
            [udp("ff:ff:ff:ff:ff:ff", "10.1.2.1")] +                             # broadcast
            [udp(mac_f0, f"10.7.0.{i}", [Dot1Q(vlan=100)]) for i in range(1, 4)] +   # eth0.100 -> eth1.7
            [udp(mac_f0, f"10.1.3.{i}", [Dot1Q(vlan=5)]) for i in range(1, 5)])      # no sub-interface
    try:
        run, got = run_fwd(topo, vpk_bin, tmp_path, conf, pkts, 9, io)
    except AssertionError as e:
        if io == "af_xdp" and "not permitted" in str(e):
            pytest.skip(f"AF_XDP refused here: {e}")
        raise
    errs = {(e["node"], e["reason"]): e["count"] for e in run["errors"]}
    ifs = {i["name"]: i for i in run["interfaces"]}
    assert ifs["eth0"]["rx"] == len(pkts)
    assert sum(c for (n, r), c in errs.items() if n == "ethernet-input" and "another host" in r) == 10
    assert sum(c for (n, r), c in errs.items() if n == "ethernet-input" and "no sub-interface" in r) == 4
    assert ifs["eth1"]["tx"] == 6 and ifs["eth1.7"]["tx"] == 3
    assert len(got) == 9
    for g in got:
        e = Ether(g)
        assert e.src == mac_f1 and e.dst == NEIGH             # the device's MAC: no `mac` given
        if e[IP].dst.startswith("10.7."):
            assert e.type == 0x8100 and e[Dot1Q].vlan == 7
        else:
            assert e.type == 0x0800


def send_split(topo, pkts):
    """Send from two processes pinned to CPUs 0 and 1: AF_PACKET picks the veth queue by CPU,
    so both receive queues of the peer get frames."""
    halves = [pkts[0::2], pkts[1::2]]
    procs = []
    for cpu, part in enumerate(halves):
        blob = b"".join(struct.pack("!H", len(p)) + p for p in part)
        procs.append((subprocess.Popen(["ip", "netns", "exec", topo.g, "taskset", "-c", str(cpu % os.cpu_count()),
                                        sys.executable, "-c", test_live.SENDER, topo.g0, "2000"],
                                       stdin=subprocess.PIPE, stdout=subprocess.PIPE, stderr=subprocess.PIPE), blob))
    for p, blob in procs:
        _, err = p.communicate(blob, timeout=30)
        assert p.returncode == 0, err.decode()


@pytest.fixture
def topo2(live_ok):
    t = Topo(queues=2)
    yield t
    t.close()


def test_iofwd_af_xdp_serves_every_queue(vpk_bin, topo2, tmp_path):
    topo = topo2
    # One queue served of two: refused at start, never a silent leak.
    p = subprocess.run(["ip", "netns", "exec", topo.f, vpk_bin, "iofwd", "--port", topo.f0, "--port", topo.f1,
                        "--io", "af_xdp", "--duration", "1"], capture_output=True, text=True, timeout=20)
    assert p.returncode == 2 and "has 2 receive queues and vpk would serve 1" in p.stderr, p.stderr
    pkts = [udp("02:00:00:00:00:01", f"10.{i // 250}.{i % 250}.1") for i in range(400)]
    got = tmp_path / "q.pcap"
    cap = test_live.start_capture(topo, got)
    fwd = topo.start(topo.f, vpk_bin, "iofwd", "--port", topo.f0, "--port", topo.f1, "--io", "af_xdp",
                     "--queues", "all", "--count", str(len(pkts)), "--duration", "10", "--json",
                     stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True)
    for _ in range(200):
        if sh("ip", "-n", topo.f, "link", "show").stdout.count("xdp") >= 2:
            break
        if fwd.poll() is not None:
            break
        time.sleep(0.05)
    time.sleep(0.3)
    if fwd.poll() is not None:
        out, err = fwd.communicate()
        if "not permitted" in err:
            pytest.skip(f"AF_XDP refused here: {err.strip()}")
        raise AssertionError(err)
    send_split(topo, pkts)
    out, err = fwd.communicate(timeout=25)
    assert fwd.returncode == 0, err
    test_live.stop_capture(topo, cap, len(pkts))
    res = json.loads(out)
    assert res["rx"] == len(pkts) and res["tx"] == len(pkts) and res["buffers_in_use"] == 0
    q = res["ports"][0]["queues"]
    assert [x["queue"] for x in q] == [0, 1]
    assert all(x["rx"] > 0 for x in q), q                      # both queues carried traffic
    assert all(x["mode"].startswith(("copy", "zerocopy")) for x in q), q
    assert sorted(bytes(p) for p in rdpcap(str(got))) == sorted(pkts)


def test_fwd_af_xdp_serves_every_queue(vpk_bin, topo2, tmp_path):
    topo = topo2
    mac = topo.mac(topo.f, topo.f0)
    conf = (f"interface eth0 live {topo.f0} io af_xdp{{q}}\ninterface eth1 live {topo.f1} io af_xdp{{q}}\n"
            f"neighbor 1 {NEIGH} dev eth1\nroute add 10.0.0.0/8 via 1\n")
    (tmp_path / "one.conf").write_text(conf.format(q=""))
    p = subprocess.run(["ip", "netns", "exec", topo.f, vpk_bin, "fwd", "--config", str(tmp_path / "one.conf"),
                        "--duration", "1"], capture_output=True, text=True, timeout=20)
    assert p.returncode != 0 and "has 2 receive queues and vpk would serve 1" in p.stderr, p.stderr
    pkts = [udp(mac, f"10.{i // 250}.{i % 250}.1") for i in range(400)]
    (tmp_path / "f.conf").write_text(conf.format(q=" queues all xdp-mode auto"))
    got = tmp_path / "got.pcap"
    cap = test_live.start_capture(topo, got)
    fwd = topo.start(topo.f, vpk_bin, "fwd", "--config", str(tmp_path / "f.conf"), "--count", str(len(pkts)),
                     "--duration", "15", "--json", "--stats-period", "0.2", stdout=subprocess.PIPE,
                     stderr=subprocess.PIPE, text=True)
    try:
        test_live.wait_ready(topo, "af_xdp")
    except AssertionError:
        out, err = fwd.communicate(timeout=20)
        if "not permitted" in err:
            pytest.skip(f"AF_XDP refused here: {err.strip()}")
        raise AssertionError(err)
    send_split(topo, pkts)
    out, err = fwd.communicate(timeout=25)
    assert fwd.returncode == 0, err
    test_live.stop_capture(topo, cap, len(pkts))
    run = json.loads(out)["runs"][0]
    ifs = {i["name"]: i for i in run["interfaces"]}
    assert ifs["eth0"]["rx"] == len(pkts) and ifs["eth1"]["tx"] == len(pkts)
    assert len(rdpcap(str(got))) == len(pkts)
    # Per queue counters: both receive queues carried traffic, nothing dropped, nothing held after close.
    q0, q1 = ifs["eth0"]["queues"], ifs["eth1"]["queues"]
    assert [q["queue"] for q in q0] == [0, 1] and all(q["rx"] > 0 for q in q0), q0
    assert sum(q["rx"] for q in q0) == len(pkts) and sum(q["tx"] for q in q1) == len(pkts)
    assert ifs["eth0"]["rx_drop"] == 0 and ifs["eth1"]["tx_drop"] == 0
    assert all(q["mode"].startswith(("copy", "zerocopy")) and q["backend"] == "af_xdp" for q in q0 + q1)
    assert all(q["bufs_held"] > 0 for q in q0)           # the fill rings, at the last snapshot
    assert "fwd: " in err and "af_xdp q1" in err and "rx-drop" in err, err
