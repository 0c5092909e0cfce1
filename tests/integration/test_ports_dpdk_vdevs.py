"""The dpdk port backend (tools/vpk/io/io_dpdk.c) on DPDK's net_ring and
net_af_packet virtual devices, without hugepages or PCI (EAL file prefix
"hports..."): frames come out byte-identical, the pool is whole at the end,
and vpk's pool memory is registered with DPDK as external memory (what a PCI
NIC's DMA mapping builds on).

    net_ring:       in.pcap -> net_pcap0 -> net_ring0 (a loop: what it sends it receives)
                            -> net_ring0 -> net_pcap0 -> out.pcap
    net_af_packet:  ns G: g0 <-> f0 :ns F (vpk iofwd, net_af_packet on f0 and f1): f1 <-> s0 :ns S
"""
import json
import subprocess
import time

import pytest
from scapy.all import IP, UDP, Ether, Raw, rdpcap, wrpcap  # noqa: E402

import test_live
from test_ports_dpdk import dpdk_ok, eal, remove_runtime_dirs  # noqa: F401 (fixtures)



def frames(n):
    return [Ether(src="02:00:00:00:00:10", dst="02:00:00:00:00:01") /
            IP(src="192.168.0.1", dst=f"10.9.{i // 250}.{i % 250}") / UDP(sport=i, dport=53) /
            Raw(bytes([i % 256]) * (i * 7 % 1200)) for i in range(n)]


def test_ring_vdev_loops_frames_back_unchanged(run_vpk, dpdk_ok, tmp_path):
    inp, out = tmp_path / "in.pcap", tmp_path / "out.pcap"
    pk = frames(400)
    wrpcap(str(inp), pk)
    # Every frame is received twice: from the pcap file, then back from the ring.
    p = run_vpk("--json", "iofwd", "--io", "dpdk", "--eal", eal("ring"),
                "--port", f"net_pcap0,rx_pcap={inp},tx_pcap={out}", "--port", "net_ring0",
                "--count", str(2 * len(pk)), "--duration", "10")
    assert p.returncode == 0, p.stderr
    res = json.loads(p.stdout)
    assert res["rx"] == 2 * len(pk) and res["tx"] == 2 * len(pk) and res["buffers_in_use"] == 0
    ring = res["ports"][1]
    assert ring["mode"] == "ethdev net_ring extmem", ring
    assert ring["rx"] == len(pk) and ring["tx"] == len(pk) and ring["tx_drop"] == 0
    assert [bytes(x) for x in rdpcap(str(out))] == [bytes(x) for x in pk]


class Topo(test_live.Topo):
    """test_live's three namespaces and two veth pairs, named "hports...", @queues rx/tx queues each."""

    def __init__(self, queues=1):
        super().__init__(prefix="hports", queues=queues)


live_ok = test_live.live_ok


@pytest.fixture
def topo(live_ok):
    t = Topo()
    yield t
    t.close()


def test_af_packet_vdev_on_veths_forwards_unchanged(vpk_bin, dpdk_ok, topo, tmp_path):
    pkts = [bytes(x) for x in frames(300)]
    # net_af_packet counts a frame sent once it is in the socket's mmap ring and only asks
    # the kernel to send the ring on the next transmit (a refused kick leaves frames there):
    # 20 trailing frames push the 300 out; the run ends after all 320 are received.
    tail = [bytes(Ether(src="02:00:00:00:00:10", dst="02:00:00:00:00:01") / IP(dst="10.99.0.1") /
                  UDP(sport=7, dport=7) / Raw(b"tail")) for _ in range(20)]
    got = tmp_path / "got.pcap"
    cap = test_live.start_capture(topo, got)
    fwd = topo.start(topo.f, vpk_bin, "--json", "iofwd", "--io", "dpdk", "--eal", eal("afp"),
                     "--port", f"net_af_packet0,iface={topo.f0}", "--port", f"net_af_packet1,iface={topo.f1}",
                     "--count", str(len(pkts) + len(tail)), "--duration", "15",
                     stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True)
    try:
        test_live.wait_ready(topo, "af_packet")
    except AssertionError:
        out, err = fwd.communicate(timeout=20)
        raise AssertionError(f"iofwd did not start: {err}")
    test_live.send(topo, pkts)
    time.sleep(0.3)
    test_live.send(topo, tail)
    out, err = fwd.communicate(timeout=25)
    test_live.stop_capture(topo, cap, len(pkts))
    assert fwd.returncode == 0, err
    res = json.loads(out)
    n = len(pkts) + len(tail)
    assert res["rx"] == n and res["tx"] == n and res["buffers_in_use"] == 0
    assert [x["mode"] for x in res["ports"]] == ["ethdev net_af_packet extmem"] * 2
    assert res["ports"][0]["rx"] == n and res["ports"][1]["tx"] == n
    live = [bytes(p) for p in rdpcap(str(got))][:len(pkts)]
    assert len(live) == len(pkts), [i for i, p in enumerate(pkts) if p not in live]
    for i, (a, b) in enumerate(zip(live, pkts)):
        assert a == b, f"frame {i} differs: got {len(a)} bytes {a[:48].hex()}, sent {len(b)} bytes {b[:48].hex()}"
