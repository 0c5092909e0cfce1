"""The ACL cannot be evaded by header tricks: IPv6 extension headers, IPv4 options and fragments.

A port rule must deny the same TCP/22 packet however its header chain is dressed, under every ACL
variant and SIMD cap; non-first fragments (no ports) meet only rules without port constraints, or
are dropped under `acl fragments drop`; malformed chains and tuples that cannot be read honestly are
dropped with their own counter. scapy builds every packet.
"""
import json

import pytest
from scapy.all import (IP, TCP, UDP, Ether, IPv6, IPv6ExtHdrDestOpt, IPv6ExtHdrFragment,
                       IPv6ExtHdrHopByHop, IPv6ExtHdrRouting, IPv6ExtHdrSegmentRouting, Raw, rdpcap)
from scapy.layers.ipsec import AH
from scapy.utils import PcapWriter

MAC0 = "02:00:00:00:00:01"
DST6 = "2001:db8:9::5"
DST4 = "10.1.0.5"
BAD6 = "2001:db8:bad::1"          # source a port-less rule denies
BAD4 = "192.168.66.1"

CONFIG = f"""interface eth0 mac {MAC0} in {{inp}}
interface eth1 mac 02:00:00:00:01:01 out {{out}}
neighbor 1 02:aa:00:00:00:01 dev eth1
route add 10.1.0.0/16 via 1
route add 2001:db8:9::/48 via 1
acl load {{rules4}}
acl load {{rules6}} ipv6
"""
RULES4 = ("@0.0.0.0/0 10.1.0.0/16 0 : 65535 22 : 22 6/0xff\n"
          "@192.168.66.0/24 10.1.0.0/16 0 : 65535 0 : 65535 6/0xff\n")
RULES6 = ("@::/0 2001:db8:9::/48 0 : 65535 22 : 22 6/0xff\n"
          "@2001:db8:bad::/48 2001:db8:9::/48 0 : 65535 0 : 65535 6/0xff\n")
ALGS = ("scalar", "sse", "avx2", "avx512x16", "avx512x32")


def e6(*ext, src="2001:db8:1::1", dport=22, payload=b"ssh"):
    p = IPv6(src=src, dst=DST6)
    for h in ext:
        p = p / h
    return Ether(dst=MAC0) / p / TCP(sport=40000, dport=dport) / Raw(payload)


def e4(dport=22, src="192.168.0.1", **ip):
    return Ether(dst=MAC0) / IP(src=src, dst=DST4, **ip) / TCP(sport=40000, dport=dport) / Raw(b"ssh")


def frag6(offset, m, nh=6, src="2001:db8:1::1", payload=b"\x9c\x40\x00\x16" + b"x" * 20):
    """A raw IPv6 fragment: Fragment header (offset in 8-byte units), then payload bytes."""
    return Ether(dst=MAC0) / IPv6(src=src, dst=DST6) / IPv6ExtHdrFragment(nh=nh, offset=offset, m=m, id=7) / \
        Raw(payload)


def frag4(offset, mf, src="192.168.0.1", payload=b"\x9c\x40\x00\x16" + b"x" * 20):
    return Ether(dst=MAC0) / IP(src=src, dst=DST4, proto=6, frag=offset, flags="MF" if mf else 0) / Raw(payload)


def ext_chain(n):
    return [IPv6ExtHdrDestOpt() for _ in range(n)]


# (name, frame, node, counter substring) for every packet that must not be forwarded
DENIED = [
    ("v6 plain", e6(), "ip6-acl", "denied by rule"),
    ("v6 dest-opts", e6(IPv6ExtHdrDestOpt()), "ip6-acl", "denied by rule"),
    ("v6 hop-by-hop", e6(IPv6ExtHdrHopByHop()), "ip6-acl", "denied by rule"),
    ("v6 routing type 0", e6(IPv6ExtHdrRouting(addresses=[], segleft=0)), "ip6-acl", "denied by rule"),
    ("v6 srh", e6(IPv6ExtHdrSegmentRouting(addresses=[DST6], segleft=0)), "ip6-acl", "denied by rule"),
    ("v6 atomic fragment", e6(IPv6ExtHdrFragment(offset=0, m=0)), "ip6-acl", "denied by rule"),
    ("v6 first fragment", e6(IPv6ExtHdrFragment(offset=0, m=1)), "ip6-acl", "denied by rule"),
    ("v6 ah", e6(AH(nh=6, payloadlen=4, spi=1, seq=1, icv=b"\0" * 12)), "ip6-acl", "denied by rule"),
    ("v6 full chain", e6(IPv6ExtHdrHopByHop(), IPv6ExtHdrDestOpt(),
                         IPv6ExtHdrRouting(addresses=[], segleft=0), IPv6ExtHdrFragment(offset=0, m=0),
                         AH(nh=60, payloadlen=4, spi=1, seq=1, icv=b"\0" * 12), IPv6ExtHdrDestOpt()),
     "ip6-acl", "denied by rule"),
    ("v6 eight headers", e6(*ext_chain(8)), "ip6-acl", "denied by rule"),
    ("v6 nine headers", e6(*ext_chain(9)), "ip6-input", "more than 8 extension headers"),
    ("v6 hop-by-hop second", e6(IPv6ExtHdrDestOpt(), IPv6ExtHdrHopByHop()), "ip6-input",
     "hop-by-hop options header not first"),
    ("v6 non-first fragment from a denied source", frag6(3, 0, src=BAD6), "ip6-acl", "denied by rule"),
    ("v6 tcp fragment at offset 8", frag6(1, 1), "ip6-acl", "offset 8 overlaps"),
    ("v6 tiny first fragment", frag6(0, 1, payload=b"\x9c"), "ip6-acl", "shorter than its 4 bytes"),
    ("v6 truncated tcp", Ether(dst=MAC0) / IPv6(src="2001:db8:1::1", dst=DST6, nh=6) / Raw(b"\0"), "ip6-acl",
     "shorter than its 4 bytes"),
    ("v4 plain", e4(), "ip4-acl", "denied by rule"),
    ("v4 options", Ether(dst=MAC0) / IP(src="192.168.0.1", dst=DST4, options=b"\x01\x01\x01\x00") /
     TCP(sport=40000, dport=22), "ip4-acl", "denied by rule"),
    ("v4 first fragment", frag4(0, True), "ip4-acl", "denied by rule"),
    ("v4 non-first fragment from a denied source", frag4(4, False, src=BAD4), "ip4-acl", "denied by rule"),
    ("v4 tcp fragment at offset 8", frag4(1, True), "ip4-acl", "offset 8 overlaps"),
    ("v4 tiny first fragment", frag4(0, True, payload=b"\x9c\x40\x00"), "ip4-acl", "shorter than its 4 bytes"),
]

# frames that must be forwarded unchanged but for the hop limit / TTL
PERMITTED = [
    ("v6 dest-opts to port 80", e6(IPv6ExtHdrDestOpt(), dport=80)),
    ("v6 full chain to port 80", e6(IPv6ExtHdrHopByHop(), IPv6ExtHdrDestOpt(),
                                    IPv6ExtHdrFragment(offset=0, m=0), dport=80)),
    # a later fragment has no ports: its payload bytes (here "port 22") are not read as ports
    ("v6 non-first fragment", frag6(3, 0)),
    ("v4 non-first fragment", frag4(4, False)),
    ("v4 options to port 80", Ether(dst=MAC0) / IP(src="192.168.0.1", dst=DST4, options=b"\x01\x01\x01\x00") /
     TCP(sport=40000, dport=80)),
]


def write_frames(path, frames):
    w = PcapWriter(str(path), linktype=1, sync=True)
    for f in frames:
        w.write(bytes(f))
    w.close()


@pytest.fixture
def setup(tmp_path):
    paths = {"inp": tmp_path / "in.pcap", "out": tmp_path / "out.pcap",
             "rules4": tmp_path / "r4.rules", "rules6": tmp_path / "r6.rules"}
    paths["rules4"].write_text(RULES4)
    paths["rules6"].write_text(RULES6)
    cfg = tmp_path / "fwd.conf"
    cfg.write_text(CONFIG.format(**{k: str(v) for k, v in paths.items()}))
    return paths, cfg


def run(run_vpk, cfg, *extra, env=None):
    p = run_vpk("fwd", "--config", str(cfg), "--json", *extra, env=env)
    return p, (json.loads(p.stdout)["runs"][0] if p.returncode == 0 else None)


def errors(r):
    return {(e["node"], e["reason"]): e["count"] for e in r["errors"]}


def count(errs, node, sub):
    return sum(c for (n, why), c in errs.items() if n == node and sub in why)


def test_every_trick_denied_under_every_variant_and_cap(run_vpk, setup):
    paths, cfg = setup
    frames = [f for _, f, _, _ in DENIED] + [f for _, f in PERMITTED]
    write_frames(paths["inp"], frames)
    want = {}
    for _, _, node, sub in DENIED:
        want[(node, sub)] = want.get((node, sub), 0) + 1
    ran = set()
    for cap in ("64", "128", "256", "512"):
        for alg in ALGS:
            p, r = run(run_vpk, cfg, f"--alg={alg}", env={"VPK_MAX_SIMD_BITWIDTH": cap})
            if p.returncode != 0:
                assert "cannot run here" in p.stderr, p.stderr       # above the cap
                continue
            ran.add(alg)
            errs = errors(r)
            for (node, sub), n in want.items():
                assert count(errs, node, sub) == n, (cap, alg, node, sub, errs)
            assert r["forwarded"] == len(PERMITTED), (cap, alg, errs)
            out = rdpcap(str(paths["out"]))
            assert len(out) == len(PERMITTED)
            for got, (name, sent) in zip(out, PERMITTED):
                l3 = IPv6 if IPv6 in sent else IP
                assert bytes(got[l3].payload) == bytes(sent[l3].payload), name
    info = run_vpk("info").stdout
    usable = next(ln for ln in info.splitlines() if ln.startswith("acl-classify")).replace(",", " ").split()
    assert {a for a in ALGS if {"sse": "sse42"}.get(a, a) in usable} == ran, (ran, usable)


def test_fragment_policy_drop(run_vpk, setup):
    paths, cfg = setup
    with open(cfg, "a") as f:
        f.write("acl fragments drop\n")
    write_frames(paths["inp"], [frag6(3, 0), frag4(4, False), e6(IPv6ExtHdrFragment(offset=0, m=0), dport=80),
                                frag4(0, True, payload=b"\x9c\x40\x00\x50" + b"x" * 20)])
    p, r = run(run_vpk, cfg)
    assert p.returncode == 0, p.stderr
    errs = errors(r)
    assert count(errs, "ip6-acl", "fragment policy drop") == 1
    assert count(errs, "ip4-acl", "fragment policy drop") == 1
    assert r["forwarded"] == 2          # an atomic fragment is a whole packet; a first fragment has ports


@pytest.mark.parametrize("mutate,reason", [
    (lambda b: b[:14 + 40 + 4], "extension header beyond the payload"),       # dest-opts cut short
    (lambda b: b[:14 + 4] + bytes([0, 12]) + b[14 + 6:14 + 40 + 12], "extension header beyond the payload"),
])
def test_truncated_chain_dropped(run_vpk, setup, mutate, reason):
    paths, cfg = setup
    frame = bytearray(mutate(bytes(e6(IPv6ExtHdrDestOpt(len=1, options=[])))))
    frame[14 + 4:14 + 6] = (len(frame) - 54).to_bytes(2, "big")             # payload length = what is there
    write_frames(paths["inp"], [bytes(frame)])
    p, r = run(run_vpk, cfg)
    assert p.returncode == 0, p.stderr
    assert count(errors(r), "ip6-input", reason) == 1 and r["forwarded"] == 0


def test_trace_names_the_upper_layer(run_vpk, setup):
    paths, cfg = setup
    write_frames(paths["inp"], [e6(IPv6ExtHdrHopByHop(), IPv6ExtHdrDestOpt(), dport=80)])
    p, r = run(run_vpk, cfg, "--trace", "1")
    assert p.returncode == 0, p.stderr
    detail = [t["detail"] for t in r["trace"] if t["node"] == "ip6-input"][0]
    assert "l4 6 after 2 ext" in detail, detail
