"""`vpk fwd` end to end: scapy builds the input pcaps and judges the output bytes."""
import json
import os

import pytest
from scapy.all import IP, UDP, Dot1Q, Ether, IPv6, Raw, rdpcap, wrpcap  # noqa: E402
from scapy.utils import PcapWriter

MAC_IN = "02:00:00:00:00:10"
NEIGH1 = "02:aa:00:00:00:01"
NEIGH2 = "02:bb:00:00:00:02"
ETH1_MAC = "02:00:00:00:01:01"
ETH2_MAC = "02:00:00:00:02:02"

CONFIG = f"""# test topology
interface eth0 mac 02:00:00:00:00:01 in {{inp}}
interface eth1 mac {ETH1_MAC} out {{out1}}
interface eth2 mac {ETH2_MAC} out {{out2}}
neighbor 1 {NEIGH1} dev eth1
neighbor 2 {NEIGH2} dev eth2
neighbor 3 02:cc:00:00:00:03 dev 1
route add 10.1.0.0/16 via 1
route add 10.2.0.0/16 via 2
route add 10.2.3.0/24 via 1
route add 10.9.0.0/16 via 4
"""


def write_frames(path, frames):
    """Write packets or raw byte strings (even truncated ones) as Ethernet records."""
    w = PcapWriter(path, linktype=1, sync=True)
    for f in frames:
        w.write(f if isinstance(f, bytes) else bytes(f))
    w.close()


def udp4(dst, ttl=64, src="192.168.0.1", payload=b"x" * 18, vlan=None):
    l2 = Ether(src=MAC_IN, dst="02:00:00:00:00:01")
    if vlan is not None:
        l2 = l2 / Dot1Q(vlan=vlan)
    return l2 / IP(src=src, dst=dst, ttl=ttl) / UDP(sport=1234, dport=53) / Raw(payload)


def good_packets():
    return [
        udp4("10.1.0.5"),
        udp4("10.2.0.7"),
        udp4("10.2.3.4"),                         # longer prefix wins: via 1
        udp4("10.1.2.3", vlan=100),               # tag removed on output
        udp4("10.1.2.4", ttl=2),                  # leaves with TTL 1
        udp4("10.1.2.5") / Raw(b"\0" * 0),
    ]


def drop_packets():
    """(packet bytes, node, reason substring)"""
    bad = []
    bad.append((bytes(Ether(src=MAC_IN, dst="02:00:00:00:00:01", type=0x0806) / Raw(b"a" * 28)),
                "ethernet-input", "unknown EtherType"))
    bad.append((bytes(udp4("10.1.0.1"))[:10], "ethernet-input", "shorter than its Ethernet"))
    p = bytearray(bytes(udp4("10.1.0.1")))
    p[14 + 10] ^= 0xff                                                       # checksum
    bad.append((bytes(p), "ip4-input", "bad header checksum"))
    bad.append((bytes(udp4("10.1.0.1", ttl=1)), "ip4-input", "TTL <= 1"))
    p = IP(bytes(IP(dst="10.1.0.1", len=200) / UDP()))
    bad.append((bytes(Ether(src=MAC_IN) / p), "ip4-input", "total length"))
    p = bytearray(bytes(udp4("10.1.0.1")))
    p[14] = 0x44                                                             # IHL 4
    bad.append((bytes(p), "ip4-input", "below 20"))
    p = bytearray(bytes(udp4("10.1.0.1")))
    p[14] = 0x65
    bad.append((bytes(p), "ip4-input", "version is not 4"))
    bad.append((bytes(udp4("10.1.0.1"))[:14 + 12], "ip4-input", "shorter than an IPv4"))
    bad.append((bytes(udp4("172.16.0.1")), "ip4-lookup", "no route"))
    bad.append((bytes(udp4("10.9.0.1")), "ip4-rewrite", "no neighbor"))
    bad.append((bytes(Ether(src=MAC_IN) / IPv6(dst="2001:db8::1") / UDP()), "ip6-lookup", "no IPv6 route"))
    bad.append((bytes(Ether(src=MAC_IN) / IPv6(dst="2001:db8::1", hlim=1) / UDP()), "ip6-input", "hop limit"))
    return bad


@pytest.fixture
def topo(tmp_path):
    paths = {k: str(tmp_path / f"{k}.pcap") for k in ("inp", "out1", "out2")}
    cfg = tmp_path / "fwd.conf"
    cfg.write_text(CONFIG.format(**paths))
    return tmp_path, paths, str(cfg)


def run_fwd(run_vpk, cfg, *extra, env=None):
    p = run_vpk("fwd", "--config", cfg, "--json", *extra, env=env)
    assert p.returncode == 0, p.stderr
    return json.loads(p.stdout)["runs"][0]


def errors(run):
    return {(e["node"], e["reason"]): e["count"] for e in run["errors"]}


def test_forwarding_rewrites_mac_ttl_checksum(run_vpk, topo):
    _, paths, cfg = topo
    pkts = good_packets()
    wrpcap(paths["inp"], pkts)
    run = run_fwd(run_vpk, cfg)
    out1, out2 = rdpcap(paths["out1"]), rdpcap(paths["out2"])
    assert len(out1) == 5 and len(out2) == 1
    assert run["forwarded"] == 6 and run["dropped"] == 0
    by_dst = {o[IP].dst: o for o in list(out1) + list(out2)}
    for sent in pkts:
        got = by_dst[sent[IP].dst]
        want_neigh, want_src = (NEIGH2, ETH2_MAC) if sent[IP].dst == "10.2.0.7" else (NEIGH1, ETH1_MAC)
        assert got[Ether].dst == want_neigh and got[Ether].src == want_src
        assert Dot1Q not in got and got[Ether].type == 0x0800
        assert got[IP].ttl == sent[IP].ttl - 1
        # scapy recomputes the checksum independently
        fixed = got[IP].copy()
        del fixed.chksum
        assert IP(bytes(fixed)).chksum == got[IP].chksum
        assert bytes(got[IP].payload) == bytes(sent[IP].payload)


def test_every_drop_reason_counted(run_vpk, topo):
    _, paths, cfg = topo
    bad = drop_packets()
    write_frames(paths["inp"], [b for b, _, _ in bad])
    run = run_fwd(run_vpk, cfg)
    errs = errors(run)
    assert run["forwarded"] == 0 and run["dropped"] == len(bad)
    for _, node, reason in bad:
        hits = [c for (n, r), c in errs.items() if n == node and reason in r]
        assert hits, f"no counter for {node}: {reason} in {errs}"
    want = {}
    for _, node, reason in bad:
        key = next((n, r) for (n, r) in errs if n == node and reason in r)
        want[key] = want.get(key, 0) + 1
    for key, n in want.items():
        assert errs[key] == n, key
    assert errs[("error-drop", "packets dropped")] == len(bad)


def test_identical_output_under_every_cap(run_vpk, topo):
    _, paths, cfg = topo
    pkts = [bytes(p) for p in good_packets()] * 50 + [b for b, _, _ in drop_packets()] * 5
    write_frames(paths["inp"], pkts)
    outputs = {}
    for cap in (64, 128, 256, 512):
        run = run_fwd(run_vpk, cfg, env={"VPK_MAX_SIMD_BITWIDTH": str(cap)})
        outputs[cap] = ([bytes(p) for p in rdpcap(paths["out1"])], [bytes(p) for p in rdpcap(paths["out2"])],
                        sorted(errors(run).items()))
        assert all(n["width"] <= cap for n in run["nodes"])
    assert outputs[64] == outputs[128] == outputs[256] == outputs[512]
    assert len(outputs[64][0]) == 250


def test_bad_config_names_file_and_line(run_vpk, topo, tmp_path):
    _, paths, _ = topo
    cfg = tmp_path / "bad.conf"
    cfg.write_text("interface eth0 in x.pcap\nneighbor 1 02:00:00:00:00:01 dev eth0\nroute add 10.0.0.0/33 via 1\n")
    p = run_vpk("fwd", "--config", str(cfg))
    assert p.returncode == 2
    assert f"{cfg}:3:" in p.stderr and "bad prefix" in p.stderr
    cfg.write_text("interface eth0\nfrobnicate 1 2\n")
    p = run_vpk("fwd", "--config", str(cfg))
    assert p.returncode == 2 and f"{cfg}:2:" in p.stderr and "unknown command" in p.stderr


def test_missing_and_corrupt_input(run_vpk, topo):
    tmp, paths, cfg = topo
    p = run_vpk("fwd", "--config", cfg)
    assert p.returncode != 0 and "inp.pcap" in p.stderr
    with open(paths["inp"], "wb") as f:
        f.write(b"not a pcap at all, just some bytes")
    p = run_vpk("fwd", "--config", cfg)
    assert p.returncode != 0 and "inp.pcap" in p.stderr


def test_trace_shows_the_path(run_vpk, topo):
    _, paths, cfg = topo
    wrpcap(paths["inp"], good_packets())
    run = run_fwd(run_vpk, cfg, "--trace", "1")
    path = [t["node"] for t in run["trace"] if t["pkt"] == 0]
    assert path == ["pcap-input", "ethernet-input", "ip4-input", "ip4-lookup", "ip4-rewrite", "interface-output"]
    assert all(t["pkt"] == 0 for t in run["trace"])


def test_node_variant_forcing(run_vpk, topo):
    _, paths, cfg = topo
    wrpcap(paths["inp"], good_packets())
    run = run_fwd(run_vpk, cfg, "--node-variant", "ip4-input=scalar")
    variants = {n["name"]: n["variant"] for n in run["nodes"]}
    assert variants["ip4-input"] == "scalar"
    p = run_vpk("fwd", "--config", cfg, "--node-variant", "ip4-input=avx512",
                env={"VPK_MAX_SIMD_BITWIDTH": "128"})
    assert p.returncode == 2 and "ip4-input" in p.stderr and "cannot run" in p.stderr


def test_show_text(run_vpk, topo):
    _, paths, cfg = topo
    wrpcap(paths["inp"], good_packets())
    p = run_vpk("fwd", "--config", cfg, "--show-runtime", "--show-errors", "--show-node", "ip4-lookup")
    assert p.returncode == 0, p.stderr
    assert "Vectors/Call" in p.stdout and "ip4-rewrite" in p.stdout
    assert "node ip4-lookup" in p.stdout and "Priority" in p.stdout


def test_demo_runs_every_cap(run_vpk):
    p = run_vpk("--json", "fwd", "--demo", "--packets", "20000", "--routes", "2000")
    assert p.returncode == 0, p.stderr
    runs = json.loads(p.stdout)["runs"]
    assert [r["cap"] for r in runs] == [64, 128, 256, 512]
    for r in runs:
        assert r["packets"] == 20000 and r["forwarded"] == 20000 and r["mpps"] > 0
