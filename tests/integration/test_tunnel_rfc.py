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


# ---------------- End.M.GTP4.E (RFC 9433 §6.6, §6.1) ----------------

E_CONF = "sr localsid end-m-gtp4-e d4::/32 v4src-addr 9.9.9.9\n" + ROUTES


def gtp_of(p):
    return bytes(p[UDP].payload)


def test_gtp4e_pops_extension_headers(run_vpk, tmp_path):
    sid = sid_ref("d4::", 32, "1.1.1.1", 0, 42)
    base = IPv6(src="c1::1", dst=sid)
    srh = IPv6ExtHdrSegmentRouting(addresses=[sid], segleft=0)
    frames = [
        Ether(dst=MAC0) / base / IPv6ExtHdrHopByHop() / srh / INNER4,            # HBH before the SRH
        Ether(dst=MAC0) / base / srh / IPv6ExtHdrDestOpt() / INNER4,             # DOH after it
        Ether(dst=MAC0) / base / IPv6ExtHdrHopByHop() / IPv6ExtHdrDestOpt() / INNER4,   # no SRH
    ]
    out, errs, _ = run(run_vpk, tmp_path, E_CONF, frames)
    assert err(errs, "srv6-end-m-gtp4-e", "good packets") == 3, errs
    for p in out:
        assert p[IP].src == "9.9.9.9" and p[IP].dst == "1.1.1.1" and p[IP].proto == 17
        assert p[IP].len == 20 + 8 + 8 + len(INNER4)
        assert gtp_of(p) == bytes([0x30, 255]) + struct.pack("!HI", len(INNER4), 42) + bytes(INNER4)


@pytest.mark.parametrize("qfi,r,u,container", [
    (5, 1, 1, bytes([1, 0x00, 0x40 | 5, 0])),      # U ignored: DL container, RQI kept
    (0, 0, 1, None),                               # U alone: no container
    (0, 1, 0, bytes([1, 0x00, 0x40, 0])),
    (63, 0, 0, bytes([1, 0x00, 63, 0])),
])
def test_gtp4e_u_bit_ignored(run_vpk, tmp_path, qfi, r, u, container):
    sid = sid_ref("d4::", 32, "1.1.1.1", (qfi << 2) | (r << 1) | u, 0x01020304)
    out, errs, _ = run(run_vpk, tmp_path, E_CONF, [Ether(dst=MAC0) / IPv6(src="c1::1", dst=sid) / INNER4])
    assert len(out) == 1, errs
    g = gtp_of(out[0])
    if container is None:
        assert g == bytes([0x30, 255]) + struct.pack("!HI", len(INNER4), 0x01020304) + bytes(INNER4)
    else:
        assert g[:12] == bytes([0x34, 255]) + struct.pack("!HI", len(INNER4) + 8, 0x01020304) + b"\0\0\0\x85"
        assert g[12:16] == container and g[16:] == bytes(INNER4)


def test_gtp4e_inner_packet_minimum(run_vpk, tmp_path):
    sid = sid_ref("d4::", 32, "1.1.1.1", 0, 42)
    frames = []
    for nh, payload in [(4, b""), (4, b"\x45"), (4, b"\x45\0\0"), (4, bytes(INNER4)[:19]),
                        (41, bytes(INNER6)[:39]), (4, bytes(INNER6)), (41, bytes(INNER4) + b"\0" * 20)]:
        frames.append(Ether(dst=MAC0) / IPv6(src="c1::1", dst=sid, nh=nh) / Raw(payload))
    frames.append(Ether(dst=MAC0) / IPv6(src="c1::1", dst=sid) / INNER6)       # a whole IPv6 header: good
    out, errs, _ = run(run_vpk, tmp_path, E_CONF, frames)
    assert err(errs, "srv6-end-m-gtp4-e", "inner packet shorter") == 7, errs
    assert err(errs, "srv6-end-m-gtp4-e", "good packets") == 1 and len(out) == 1


def test_gtp4e_segments_left_counted(run_vpk, tmp_path):
    sid = sid_ref("d4::", 32, "1.1.1.1", 0, 42)
    f = Ether(dst=MAC0) / IPv6(src="c1::1", dst=sid) / IPv6ExtHdrSegmentRouting(addresses=[sid, sid],
                                                                                 segleft=1) / INNER4
    out, errs, _ = run(run_vpk, tmp_path, E_CONF, [f])
    assert err(errs, "srv6-end-m-gtp4-e", "segments left") == 1 and len(out) == 0


# ---------------- VxLAN (RFC 7348 §5, §6.1) and originated IPv4 ----------------

from scapy.all import TCP, Dot1Q  # noqa: E402
from scapy.layers.vxlan import VXLAN  # noqa: E402

from test_tunnels import vx4  # noqa: E402

ENC = "vxlan tunnel src 172.16.1.1 dst 172.16.1.2 vni 5 encap 9.9.0.0/16\n"


def eth(inner):
    return Ether(src="02:00:00:00:00:99", dst=MAC0) / inner


def test_vxlan_source_port_from_inner_flow(run_vpk, tmp_path):
    flows = [IP(src="1.2.3.4", dst="9.9.1.1") / UDP(sport=1000 + i, dport=53) for i in range(24)]
    flows += [IP(src="1.2.3.4", dst=f"9.9.2.{i + 1}") / TCP(sport=7, dport=80) for i in range(8)]
    frames = []
    for f in flows:      # the same flow with a different length, ID, TTL (and so checksum)
        for k, (ln, ident, ttl) in enumerate([(10, 1, 64), (300, 777, 9), (0, 65535, 200)]):
            g = f.copy()
            g[IP].id, g[IP].ttl = ident, ttl
            frames.append(eth(g / Raw(b"d" * ln)))
    out, errs, _ = run(run_vpk, tmp_path, ENC, frames)
    assert len(out) == len(frames), errs
    ports = [p[UDP].sport for p in out]
    assert all(49152 <= x <= 65535 for x in ports)
    per_flow = [set(ports[3 * i:3 * i + 3]) for i in range(len(flows))]
    assert all(len(s) == 1 for s in per_flow), per_flow               # one port per flow
    assert len({next(iter(s)) for s in per_flow}) >= len(flows) - 4    # flows spread over ports
    for p in out:                                                     # DF set, ID 0 (atomic)
        assert p[IP].flags == "DF" and p[IP].id == 0 and p[IP].frag == 0


def test_vxlan_inner_vlan(run_vpk, tmp_path):
    plain = eth(IP(src="1.2.3.4", dst="9.9.1.1") / UDP(sport=1, dport=2) / Raw(b"v" * 20))
    tagged = Ether(src="02:00:00:00:00:99", dst=MAC0) / Dot1Q(vlan=10) / plain.payload
    qinq = (Ether(src="02:00:00:00:00:99", dst=MAC0, type=0x88a8) / Dot1Q(vlan=20) / Dot1Q(vlan=10) /
            plain.payload)
    # Tagged frames enter through VLAN sub-interfaces (a router drops tags it has no
    # sub-interface for); RFC 7348 6.1: the tunnel carries no inner VLAN tag.
    out, errs, _ = run(run_vpk, tmp_path, ENC + "interface eth0.10\ninterface eth0.20.10\n", [tagged, qinq])
    assert len(out) == 2, errs
    for p in out:                                                     # encapsulated without the tags
        assert bytes(p[VXLAN].payload) == bytes(plain)
    # decapsulation discards inner frames with a tag
    conf = "vxlan tunnel src 172.16.1.1 dst 172.16.1.2 vni 0x12345\nroute add 9.9.0.0/16 via 1\n"
    out, errs, _ = run(run_vpk, tmp_path, conf, [vx4(inner=tagged), vx4(inner=plain)], name="dec")
    assert err(errs, "vxlan4-input", "VLAN tag") == 1
    assert err(errs, "vxlan4-input", "decapsulated") == 1 and len(out) == 1


def test_gtp_echo_reply_df(run_vpk, tmp_path):
    conf = "sr steer gtp4-d 1.1.1.1/32 sr-prefix d4::/32 v6src-prefix c1::/64 via 1\n"
    out, errs, _ = run(run_vpk, tmp_path, conf, [gtpu(b"", gtype=1, seq=5, teid=0)])
    assert len(out) == 1 and out[0][IP].flags == "DF", errs
