"""vpk fwd --workers N on live ports: each worker reads its own queues (an
af_packet socket in a PACKET_FANOUT hash group per worker, or an af_xdp queue)
and sends on its own queue of the output port, so both workers receive and
send, per-queue counters show it, and no frame is lost. Network namespaces
and veths are named "hports..." and deleted afterwards, also on failure.

    ns G: g0 <-> f0 :ns F (vpk fwd --workers 2): f1 <-> s0 :ns S (tcpdump)
"""
import json
import subprocess
import time

import pytest
from scapy.all import IP, UDP, Ether, Raw, rdpcap  # noqa: E402

import test_live
from test_ports_dpdk_vdevs import Topo, live_ok, topo  # noqa: F401  (fixtures)

NEIGH = "02:aa:00:00:00:01"


@pytest.fixture
def topo2(live_ok):  # noqa: F811
    t = Topo(queues=2)
    yield t
    t.close()


def run_workers(vpk_bin, topo, tmp_path, io, sockets, send):
    mac = test_live.sh("ip", "netns", "exec", topo.f, "cat", f"/sys/class/net/{topo.f0}/address").stdout.strip()
    pkts = [bytes(Ether(src="02:00:00:00:00:10", dst=mac) / IP(src=f"192.168.{i % 7}.1", dst=f"10.{i % 250}.0.1") /
                  UDP(sport=1000 + i, dport=53) / Raw(b"w" * 30)) for i in range(400)]
    q = " queues all" if io == "af_xdp" else ""
    (tmp_path / "f.conf").write_text(f"interface eth0 live {topo.f0} io {io}{q}\n"
                                     f"interface eth1 live {topo.f1} io {io}{q}\n"
                                     f"neighbor 1 {NEIGH} dev eth1\nroute add 10.0.0.0/8 via 1\n")
    got = tmp_path / "got.pcap"
    cap = test_live.start_capture(topo, got)
    fwd = topo.start(topo.f, vpk_bin, "fwd", "--config", str(tmp_path / "f.conf"), "--workers", "2",
                     "--count", str(len(pkts)), "--duration", "15", "--json", stdout=subprocess.PIPE,
                     stderr=subprocess.PIPE, text=True)
    for _ in range(200):
        if sockets() or fwd.poll() is not None:
            break
        time.sleep(0.05)
    time.sleep(0.3)
    if fwd.poll() is not None:
        out, err = fwd.communicate()
        if io == "af_xdp" and "not permitted" in err:
            pytest.skip(f"AF_XDP refused here: {err.strip()}")
        raise AssertionError(err)
    send(topo, pkts)
    out, err = fwd.communicate(timeout=25)
    assert fwd.returncode == 0, err
    test_live.stop_capture(topo, cap, len(pkts))
    run = json.loads(out)["runs"][0]
    ifs = {i["name"]: i for i in run["interfaces"]}
    assert ifs["eth0"]["rx"] == len(pkts) and ifs["eth1"]["tx"] == len(pkts)
    q0 = ifs["eth0"]["queues"]
    assert [q["queue"] for q in q0] == [0, 1], q0             # one socket (queue) per worker
    assert all(q["rx"] > 0 for q in q0) and sum(q["rx"] for q in q0) == len(pkts), q0
    q1 = ifs["eth1"]["queues"]                                # each worker sends on its own queue
    assert all(q["tx"] > 0 for q in q1) and sum(q["tx"] for q in q1) == len(pkts), q1
    assert ifs["eth0"]["rx_drop"] == 0 and ifs["eth1"]["tx_drop"] == 0
    # Routed (MACs rewritten): every frame arrived once; workers may reorder flows.
    assert len(rdpcap(str(got))) == len(pkts)
    want = sorted(bytes(IP(p[14:]))[20:] for p in pkts)
    assert sorted(bytes(IP(bytes(p)[14:]))[20:] for p in rdpcap(str(got))) == want


def test_fwd_workers_each_read_their_fanout_socket(vpk_bin, topo, tmp_path):  # noqa: F811
    def sockets():                           # 2 workers x 2 ports = 4 packet sockets
        out = test_live.sh("ip", "netns", "exec", topo.f, "cat", "/proc/net/packet").stdout
        return len(out.strip().splitlines()) >= 5
    run_workers(vpk_bin, topo, tmp_path, "af_packet", sockets, test_live.send)


def test_fwd_workers_each_read_their_af_xdp_queue(vpk_bin, topo2, tmp_path):
    import test_ports_live

    def sockets():                           # an XDP program on both ports
        return test_live.sh("ip", "-n", topo2.f, "link", "show").stdout.count("xdp") >= 2
    run_workers(vpk_bin, topo2, tmp_path, "af_xdp", sockets, test_ports_live.send_split)
