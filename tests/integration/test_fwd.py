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

CONFIG = f"""# test topology (eth0 promisc: scapy picks the destination MAC of Ether()/IP() frames from the host's routes)
interface eth0 mac 02:00:00:00:00:01 in {{inp}} promisc on
interface eth1 mac {ETH1_MAC} out {{out1}}
interface eth2 mac {ETH2_MAC} out {{out2}}
interface eth0.100
neighbor 1 {NEIGH1} dev eth1
neighbor 2 {NEIGH2} dev eth2
neighbor 3 02:cc:00:00:00:03 dev 1
route add 10.1.0.0/16 via 1
route add 10.2.0.0/16 via 2
route add 10.2.3.0/24 via 1
route add 10.9.0.0/16 via 4
route add 2001:db8:1::/48 via 2
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
        udp4("10.1.2.3", vlan=100),               # in on eth0.100, out untagged
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
    bad.append((bytes(Ether(src=MAC_IN) / IPv6(dst="2001:db8::1") / UDP()), "ip6-lookup", "no route"))
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


def test_identical_output_with_either_ipv4_fib(run_vpk, topo):
    """--fib4 dir|bm16 changes the IPv4 FIB layout, never the bytes or the counters."""
    _, paths, cfg = topo
    pkts = [bytes(p) for p in good_packets()] * 50 + [b for b, _, _ in drop_packets()] * 5
    write_frames(paths["inp"], pkts)
    outputs = {}
    for layout in ("dir", "bm16"):
        run = run_fwd(run_vpk, cfg, "--fib4", layout)
        assert run["fib4"] == {"dir": "dir24-8", "bm16": "bm16"}[layout]
        outputs[layout] = ([bytes(p) for p in rdpcap(paths["out1"])], [bytes(p) for p in rdpcap(paths["out2"])],
                           sorted(errors(run).items()))
    assert outputs["dir"] == outputs["bm16"]
    assert len(outputs["dir"][0]) == 250
    p = run_vpk("fwd", "--config", cfg, "--fib4", "poptrie")
    assert p.returncode == 2 and "--fib4 poptrie: 'dir' or 'bm16'" in p.stderr


def test_demo_routes_file(run_vpk, tmp_path):
    """--routes-file loads a real-format table; both IPv4 layouts forward the same packets."""
    routes = tmp_path / "routes.txt"
    p = run_vpk("gen", "routes", "-n", "3000", "--seed", "5", "-o", str(routes))
    assert p.returncode == 0, p.stderr
    counts = {}
    for layout in ("dir", "bm16"):
        p = run_vpk("--json", "fwd", "--demo", "--packets", "20000", "--flows", "512", "--rules", "64",
                    "--runs", "1", "--routes-file", str(routes), "--fib4", layout,
                    env={"VPK_MAX_SIMD_BITWIDTH": "512"})
        assert p.returncode == 0, p.stderr
        d = json.loads(p.stdout)
        assert d["routes"] == 3000
        run = d["runs"][0]
        assert run["fib4"] == {"dir": "dir24-8", "bm16": "bm16"}[layout]
        assert run["forwarded"] + run["dropped"] == 20000 and run["forwarded"] > 0
        counts[layout] = (run["forwarded"], sorted(errors(run).items()))
    assert counts["dir"] == counts["bm16"]
    bad = tmp_path / "bad.txt"
    bad.write_text("10.0.0.0/8 1\n10.1.0.0/33 2\n")
    p = run_vpk("fwd", "--demo", "--routes-file", str(bad))
    assert p.returncode == 2 and "bad.txt:2: prefix length" in p.stderr
    p = run_vpk("fwd", "--demo", "--routes", "100", "--routes-file", str(routes))
    assert p.returncode == 2 and "exclude each other" in p.stderr


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
    p = run_vpk("--json", "fwd", "--demo", "--packets", "20000", "--routes", "2000", "--rules", "500")
    assert p.returncode == 0, p.stderr
    runs = json.loads(p.stdout)["runs"]
    assert [r["cap"] for r in runs] == [64, 128, 256, 512]
    for r in runs:
        assert r["packets"] == 20000 and r["forwarded"] + r["dropped"] == 20000 and r["mpps"] > 0
        errs = {(e["node"], e["reason"]): e["count"] for e in r["errors"]}
        # one rule in ten denies: some traffic is dropped by the ACL, the rest forwarded
        assert errs.get(("ip4-acl", "denied by rule"), 0) > 0 and r["forwarded"] > 10000
        assert r["dropped"] == errs[("error-drop", "packets dropped")]
    # same traffic, same decisions under every cap
    assert len({(r["forwarded"], r["dropped"]) for r in runs}) == 1


def test_acl_permit_deny(run_vpk, topo):
    tmp, paths, cfg = topo
    rules = tmp / "rules.txt"
    # ClassBench format: deny UDP to port 53 in 10.1.0.0/16; everything else is permitted
    rules.write_text("@0.0.0.0/0 10.1.0.0/16 0 : 65535 53 : 53 17/0xff\n")
    with open(cfg, "a") as f:
        f.write(f"acl load {rules}\n")
    pkts = [udp4("10.1.0.5"), udp4("10.2.0.7"),
            Ether(src=MAC_IN) / IP(dst="10.1.0.6") / UDP(dport=54), Ether(src=MAC_IN) / IP(dst="10.1.0.6", proto=6) / Raw(b"\0\x35\0\x35")]
    wrpcap(paths["inp"], pkts)
    run = run_fwd(run_vpk, cfg, "--trace", "1")
    errs = errors(run)
    assert errs[("ip4-acl", "denied by rule")] == 1 and errs[("ip4-acl", "permitted")] == 3
    assert run["forwarded"] == 3
    assert [t["node"] for t in run["trace"]][:4] == ["pcap-input", "ethernet-input", "ip4-input", "ip4-acl"]
    assert "rule 0" in [t for t in run["trace"] if t["node"] == "ip4-acl"][0]["detail"]


def test_l3fwd_acl_mode(run_vpk, tmp_path):
    rules = tmp_path / "l3fwd.rules"
    rules.write_text("# l3fwd-acl rules\n"
                     "@0.0.0.0/0 10.2.0.0/16 0 : 65535 0 : 65535 0x00/0x00\n"
                     "R0.0.0.0/0 10.0.0.0/8 0 : 65535 0 : 65535 0x00/0x00 1\n")
    inp, out0, out1 = (str(tmp_path / n) for n in ("in.pcap", "out0.pcap", "out1.pcap"))
    wrpcap(inp, [udp4("10.1.0.5"), udp4("10.2.0.7"), udp4("172.16.0.1"), udp4("10.3.3.3", ttl=9)])
    p = run_vpk("fwd", "--l3fwd-acl", "--rule_ipv4", str(rules), "--in", f"p0={inp}", "--out", f"p0={out0}",
                "--out", f"p1={out1}", "--json")
    assert p.returncode == 0, p.stderr
    run = json.loads(p.stdout)["runs"][0]
    errs = errors(run)
    assert errs[("ip4-acl", "forwarded by rule (l3fwd-acl)")] == 2
    assert errs[("ip4-acl", "denied by rule")] == 1
    assert errs[("ip4-acl", "no rule matched (dropped)")] == 1
    out = rdpcap(out1)
    assert len(out) == 2 and len(rdpcap(out0)) == 0
    assert all(o[Ether].dst == "02:00:00:00:00:01" for o in out)   # l3fwd's default MAC for port 1
    assert sorted(o[IP].ttl for o in out) == [8, 63]
    assert "ip4-lookup" not in [n["name"] for n in run["nodes"] if n["vectors"] > 0]


def test_acl_bad_rule_file(run_vpk, topo):
    tmp, paths, cfg = topo
    rules = tmp / "bad.rules"
    rules.write_text("@0.0.0.0/0 10.1.0.0/16 0 : 65535 53 : 53 17/0xff\n@1.2.3.4/40 0.0.0.0/0 0 : 65535 0 : 65535 0/0\n")
    with open(cfg, "a") as f:
        f.write(f"acl load {rules}\n")
    wrpcap(paths["inp"], [udp4("10.1.0.5")])
    p = run_vpk("fwd", "--config", cfg)
    assert p.returncode == 2 and f"{rules}:2" in p.stderr, p.stderr
    assert not os.path.exists(paths["out1"])          # nothing ran


def test_l3fwd_bad_alg(run_vpk, tmp_path):
    p = run_vpk("fwd", "--l3fwd-acl", "--alg=avx9000", "--rule_ipv4", "x")
    assert p.returncode == 2 and "--alg=avx9000" in p.stderr


def test_workers_same_packets_as_one(run_vpk, topo):
    """Two workers (RSS by Toeplitz hash) forward the same packets as one, and count the same drops."""
    _, paths, cfg = topo
    pkts = []
    for i in range(400):
        pkts.append(bytes(udp4(f"10.1.{i % 7}.{i % 250 + 1}", src=f"192.168.{i % 13}.{i % 200 + 1}")))
    pkts += [b for b, _, _ in drop_packets()] * 3
    write_frames(paths["inp"], pkts)
    results = {}
    for w in (1, 2):
        run = run_fwd(run_vpk, cfg, "--workers", str(w))
        results[w] = (sorted(bytes(p) for p in rdpcap(paths["out1"])), sorted(errors(run).items()),
                      run["forwarded"], run["dropped"])
        assert run["workers_n"] == w
        if w == 2:
            per = [sum(n["vectors"] for n in wk["nodes"] if n["name"] == "ethernet-input") for wk in run["workers"]]
            assert all(v > 0 for v in per), per     # RSS spread the flows over both workers
    assert results[1] == results[2]
    assert results[1][2] == 400


def test_ipv6_forwarding(run_vpk, topo):
    _, paths, cfg = topo
    sent = Ether(src=MAC_IN) / IPv6(dst="2001:db8:1::42", hlim=9) / UDP(dport=53) / Raw(b"v6" * 9)
    wrpcap(paths["inp"], [sent])
    run = run_fwd(run_vpk, cfg)
    assert run["forwarded"] == 1
    out = rdpcap(paths["out2"])
    assert len(out) == 1
    got = out[0]
    assert got[Ether].dst == NEIGH2 and got[Ether].src == ETH2_MAC and got[IPv6].hlim == 8
    assert bytes(got[IPv6].payload) == bytes(sent[IPv6].payload)


@pytest.mark.parametrize("ring", ["64", "1"])
def test_wide_cores_same_output(run_vpk, topo, tmp_path, ring):
    """Core specialization: ACL and lookups run on a wide worker, the rest at cap 256; same packets out."""
    tmp, paths, cfg = topo
    rules = tmp / "rules.txt"
    rules.write_text("@0.0.0.0/0 10.1.0.0/16 0 : 65535 53 : 53 17/0xff\n")
    with open(cfg, "a") as f:
        f.write(f"acl load {rules}\n")
    pkts = [bytes(udp4(f"10.{1 + i % 2}.{i % 7}.{i % 250 + 1}", src=f"192.168.{i % 13}.{i % 200 + 1}"))
            for i in range(3000)]
    pkts += [b for b, _, _ in drop_packets()] * 3
    write_frames(paths["inp"], pkts)
    base = run_fwd(run_vpk, cfg)
    want = (sorted(bytes(p) for p in rdpcap(paths["out1"])), sorted(bytes(p) for p in rdpcap(paths["out2"])),
            sorted(errors(base).items()))
    run = run_fwd(run_vpk, cfg, "--wide-cores", "1", "--wide-ring", ring)
    got = (sorted(bytes(p) for p in rdpcap(paths["out1"])), sorted(bytes(p) for p in rdpcap(paths["out2"])),
           sorted(errors(run).items()))
    assert got == want
    assert run["workers_n"] == 2
    normal, wide = run["workers"]
    remote = {n["name"] for n in normal["nodes"] if n["variant"] == "remote"}
    assert {"ip4-acl", "ip4-lookup"} <= remote
    ran_wide = {n["name"] for n in wide["nodes"] if n["vectors"] > 0 and n["variant"] != "remote"}
    assert "ip4-acl" in ran_wide and "ip4-input" not in ran_wide
    if ring == "1":
        # a one-frame ring fills up: frames wait, none is lost
        assert any(n.get("remote_full", 0) > 0 for w in run["workers"] for n in w["nodes"])
