"""Tunnel steering by longest prefix and RFC 9433 End.M.GTP4.E conformance.

Packets are built with scapy field by field; SIDs and sources come from the
reference models in test_tunnels.py, written independently of the C code.
"""
import struct

import pytest
from scapy.all import IP, UDP, Ether, IPv6, Raw  # noqa: E402
from scapy.layers.inet6 import (ICMPv6ParamProblem, IPv6ExtHdrDestOpt, IPv6ExtHdrHopByHop,
                                IPv6ExtHdrSegmentRouting)

from test_tunnels import INNER6, MAC0, err, gtpu, pdu_container, run, sid_ref

INNER4 = IP(src="10.0.0.1", dst="10.0.0.2") / UDP(sport=5, dport=6) / Raw(b"r" * 20)

STEER24 = "sr steer gtp4-d 1.1.1.0/24 sr-prefix d4::/32 v6src-prefix c1::/64 via 1\n"
STEER25 = "sr steer gtp4-d 1.1.1.0/25 sr-prefix d5::/32 v6src-prefix c1::/64 via 1\n"


@pytest.mark.parametrize("order", ["24-then-25", "25-then-24"])
def test_gtp4d_steer_longest_prefix(run_vpk, tmp_path, order):
    conf = STEER24 + STEER25 if order == "24-then-25" else STEER25 + STEER24
    frames = [gtpu(INNER4, teid=1, dst="1.1.1.5"), gtpu(INNER4, teid=2, dst="1.1.1.200")]
    out, errs, _ = run(run_vpk, tmp_path, conf, frames)
    assert len(out) == 2, errs
    assert out[0][IPv6].dst == sid_ref("d5::", 32, "1.1.1.5", 0, 1)       # the /25
    assert out[1][IPv6].dst == sid_ref("d4::", 32, "1.1.1.200", 0, 2)     # only the /24 holds it


def test_vxlan_encap_longest_prefix(run_vpk, tmp_path):
    conf = ("vxlan tunnel src 172.16.1.1 dst 172.16.1.2 vni 16 encap 9.9.0.0/16\n"
            "vxlan tunnel src 172.16.1.1 dst 172.16.1.3 vni 24 encap 9.9.1.0/24\n")
    frames = [Ether(dst=MAC0) / IP(src="1.2.3.4", dst=d) / UDP() for d in ("9.9.1.1", "9.9.2.1")]
    for name, c in (("a", conf), ("b", "".join(reversed(conf.splitlines(True))))):
        out, errs, _ = run(run_vpk, tmp_path, c, frames, name=name)
        assert [p[IP].dst for p in out] == ["172.16.1.3", "172.16.1.2"], errs


SID48 = "sr localsid end-m-gtp4-e d4::/48 v4src-addr 9.9.9.9\n"
SID56 = "sr localsid end-m-gtp4-e d4:0:0:ab00::/56 v4src-addr 8.8.8.8\n"
ROUTES = "route add 1.1.1.0/24 via 1\n"


@pytest.mark.parametrize("order", ["48-then-56", "56-then-48"])
def test_gtp4e_localsid_longest_prefix(run_vpk, tmp_path, order):
    conf = (SID48 + SID56 if order == "48-then-56" else SID56 + SID48) + ROUTES
    under56 = sid_ref("d4:0:0:ab00::", 56, "1.1.1.1", 0, 42)
    under48 = sid_ref("d4::", 48, "1.1.1.2", 0, 43)
    frames = [Ether(dst=MAC0) / IPv6(src="c1::1", dst=d) / INNER4 for d in (under56, under48)]
    out, errs, _ = run(run_vpk, tmp_path, conf, frames)
    assert err(errs, "srv6-end-m-gtp4-e", "good packets") == 2, errs
    assert [(p[IP].src, p[IP].dst) for p in out] == [("8.8.8.8", "1.1.1.1"), ("9.9.9.9", "1.1.1.2")]
    teids = [struct.unpack("!I", bytes(p[UDP].payload)[4:8])[0] for p in out]
    assert teids == [42, 43]
