"""The dpdk port backend (tools/vpk/io/io_dpdk.c) on DPDK's virtual devices,
without hugepages or PCI (EAL file prefix "ports..."): net_pcap ports forward
byte-identical frames, net_null ports forward at full speed on one or two
queues (RSS), and the pool is whole at the end."""
import json
import os
import shutil

import pytest
from scapy.all import IP, UDP, Ether, Raw, rdpcap, wrpcap  # noqa: E402


PREFIXES = []


def eal(tag):
    PREFIXES.append(f"ports{tag}{os.getpid()}")
    return f"--no-huge -m 512 --no-pci --no-shconf --log-level=lib.eal:error --file-prefix {PREFIXES[-1]}"


@pytest.fixture(autouse=True, scope="module")
def remove_runtime_dirs():
    """--no-shconf leaves no files, but EAL still makes an empty runtime directory per prefix."""
    yield
    for p in PREFIXES:
        shutil.rmtree(os.path.join("/var/run/dpdk", p), ignore_errors=True)


@pytest.fixture
def dpdk_ok(run_vpk, tmp_path):
    p = run_vpk("iofwd", "--io", "dpdk", "--eal", eal("probe"), "--port", "net_null0", "--count", "1",
                "--duration", "2")
    if p.returncode != 0 and ("without libdpdk" in p.stderr or "EAL init" in p.stderr):
        pytest.skip(f"no DPDK here: {p.stderr.strip()}")
    assert p.returncode == 0, p.stderr


def frames(n, tag):
    return [Ether(src="02:00:00:00:00:10", dst="02:00:00:00:00:01") /
            IP(src="192.168.0.1", dst=f"10.{tag}.{i // 250}.{i % 250}") / UDP(sport=i, dport=53) /
            Raw(bytes([i % 256]) * (i % 300)) for i in range(n)]


def test_pcap_vdev_ports_forward_byte_identical(run_vpk, dpdk_ok, tmp_path):
    ins = [tmp_path / "in0.pcap", tmp_path / "in1.pcap"]
    outs = [tmp_path / "out0.pcap", tmp_path / "out1.pcap"]
    wrpcap(str(ins[0]), frames(500, 1))
    wrpcap(str(ins[1]), frames(300, 2))
    p = run_vpk("--json", "iofwd", "--io", "dpdk", "--eal", eal("pcap"),
                "--port", f"net_pcap0,rx_pcap={ins[0]},tx_pcap={outs[0]}",
                "--port", f"net_pcap1,rx_pcap={ins[1]},tx_pcap={outs[1]}", "--count", "800", "--duration", "10")
    assert p.returncode == 0, p.stderr
    res = json.loads(p.stdout)
    assert res["rx"] == 800 and res["tx"] == 800 and res["buffers_in_use"] == 0
    assert [x["backend"] for x in res["ports"]] == ["dpdk", "dpdk"]
    # The pool memory is registered with DPDK as external memory (what a PCI NIC's DMA mapping needs).
    assert res["ports"][0]["mode"] == "ethdev net_pcap extmem"
    # Ports pair 0<->1: what came in on one leaves on the other, unchanged, in order.
    assert [bytes(x) for x in rdpcap(str(outs[1]))] == [bytes(x) for x in rdpcap(str(ins[0]))]
    assert [bytes(x) for x in rdpcap(str(outs[0]))] == [bytes(x) for x in rdpcap(str(ins[1]))]


@pytest.mark.parametrize("queues", ["1", "2"])
def test_null_vdev_ports_and_rss_queues(run_vpk, dpdk_ok, queues):
    p = run_vpk("--json", "iofwd", "--io", "dpdk", "--eal", eal("null" + queues), "--port", "net_null0",
                "--port", "net_null1", "--queues", queues, "--duration", "1.5")
    assert p.returncode == 0, p.stderr
    res = json.loads(p.stdout)
    assert res["rx"] >= 100000 and res["tx"] == res["rx"] and res["buffers_in_use"] == 0
    qs = res["ports"][0]["queues"]
    assert [q["queue"] for q in qs] == list(range(int(queues)))
    assert all(q["rx"] > 0 for q in qs), qs


def test_dpdk_errors_are_clear(run_vpk, dpdk_ok):
    p = run_vpk("iofwd", "--io", "dpdk", "--eal", eal("bad"), "--port", "net_nosuch0", "--count", "1")
    assert p.returncode == 2 and "net_nosuch0" in p.stderr and "cannot probe" in p.stderr, p.stderr
    p = run_vpk("iofwd", "--io", "dpdk", "--eal", "--no-such-eal-option", "--port", "net_null0")
    assert p.returncode == 2 and "EAL init" in p.stderr, p.stderr


def test_fwd_on_pcap_vdevs_matches_pcap_mode(run_vpk, dpdk_ok, tmp_path):
    pk = frames(300, 3)
    inp = tmp_path / "in.pcap"
    wrpcap(str(inp), pk)
    routes = "neighbor 1 02:aa:00:00:00:01 dev eth1\nroute add 10.0.0.0/8 via 1\n"
    (tmp_path / "p.conf").write_text(f"interface eth0 mac 02:00:00:00:00:01 in {inp}\n"
                                     f"interface eth1 mac 02:00:00:00:01:01 out {tmp_path}/want.pcap\n" + routes)
    (tmp_path / "d.conf").write_text(
        f"interface eth0 mac 02:00:00:00:00:01 dpdk net_pcap0,rx_pcap={inp},tx_pcap={tmp_path}/o0.pcap\n"
        f"interface eth1 mac 02:00:00:00:01:01 dpdk net_pcap1,tx_pcap={tmp_path}/got.pcap\n" + routes)
    p = run_vpk("fwd", "--config", str(tmp_path / "p.conf"))
    assert p.returncode == 0, p.stderr
    # EAL arguments in the configuration this time (vpk fwd --eal does the same).
    (tmp_path / "e.conf").write_text(f"dpdk-eal {eal('fwd')}\n" + (tmp_path / "d.conf").read_text())
    p = run_vpk("fwd", "--config", str(tmp_path / "e.conf"), "--count", "300", "--duration", "10", "--json")
    assert p.returncode == 0, p.stderr
    run = json.loads(p.stdout[p.stdout.index("{"):])["runs"][0]
    ifs = {i["name"]: i for i in run["interfaces"]}
    assert ifs["eth0"]["rx"] == 300 and ifs["eth1"]["tx"] == 300
    assert ifs["eth1"]["queues"][0]["backend"] == "dpdk" and ifs["eth1"]["queues"][0]["tx"] == 300
    want = [bytes(x) for x in rdpcap(str(tmp_path / "want.pcap"))]
    assert len(want) == 300 and [bytes(x) for x in rdpcap(str(tmp_path / "got.pcap"))] == want
    p = run_vpk("fwd", "--config", str(tmp_path / "d.conf"), "--count", "1", "--duration", "1")
    assert p.returncode != 0 and "--eal" in p.stderr, p.stderr
    p = run_vpk("fwd", "--eal", eal("fwd2"), "--config", str(tmp_path / "d.conf"), "--count", "300",
                "--duration", "10")
    assert p.returncode == 0, p.stderr
