"""Tunnel nodes end to end (issue 6): VxLAN decap/encap, SRv6 GTP4.D / End.M.GTP4.E.

scapy builds the input pcaps and judges the output bytes; reference models
of the SID and source layouts are written here independently of the C code.
"""
import ipaddress
import json
import struct

import pytest
from scapy.all import IP, UDP, Ether, IPv6, Raw, rdpcap  # noqa: E402
from scapy.layers.inet6 import IPv6ExtHdrSegmentRouting
from scapy.layers.vxlan import VXLAN
from scapy.utils import PcapWriter

LOCAL = "172.16.1.1"
REMOTE = "172.16.1.2"
MAC0 = "02:00:00:00:00:01"
NEIGH = "02:aa:00:00:00:01"
CAPS = ("64", "128", "256", "512")
VARIANTS = ("scalar", "sse42", "avx2", "avx512")


def inner_frame(dst="4.3.2.1", n=0):
    return (Ether(src="00:00:00:00:00:01", dst="00:00:00:00:00:02") /
            IP(src="1.2.3.4", dst=dst) / UDP(sport=10000 + n, dport=20000) / Raw(b"\xa5" * 100))


def vx4(inner=None, src=REMOTE, dst=LOCAL, vni=0x12345, flags=0x08, dport=4789, reserved=0):
    inner = inner if inner is not None else inner_frame()
    v = bytearray(bytes(VXLAN(vni=vni, flags=flags)))
    v[7] = reserved
    return (Ether(dst=MAC0, src="02:fe:00:00:00:01") / IP(src=src, dst=dst, id=1) /
            UDP(sport=4789, dport=dport, chksum=0) / Raw(bytes(v)) / inner)


ROUTES = "route add 4.3.2.0/24 via 1\nroute add 2.2.2.0/24 via 1\nroute add 172.16.0.0/12 via 1\n"


def run(run_vpk, tmp_path, conf, frames, *extra, env=None, name="r", routes=ROUTES):
    """Forward @frames from a pcap on eth0 with @conf; return (packets out of eth1, errors, their bytes)."""
    inp, out = tmp_path / f"{name}_in.pcap", tmp_path / f"{name}_out.pcap"
    w = PcapWriter(str(inp), linktype=1, sync=True)
    for f in frames:
        w.write(bytes(f))
    w.close()
    cfg = tmp_path / f"{name}.conf"
    cfg.write_text(f"interface eth0 mac {MAC0} in {inp}\n"
                   f"interface eth1 mac 02:00:00:00:01:01 out {out}\n"
                   f"neighbor 1 {NEIGH} dev eth1\n" + routes + conf)
    p = run_vpk("fwd", "--config", str(cfg), "--json", *extra, env=env)
    assert p.returncode == 0, p.stderr
    r = json.loads(p.stdout)["runs"][0]
    errs = {(e["node"], e["reason"]): e["count"] for e in r["errors"]}
    outp = rdpcap(str(out)) if out.exists() and out.stat().st_size > 24 else []
    return outp, errs, tuple(bytes(x) for x in outp)    # packet bytes (pcap timestamps differ)


def err(errs, node, sub):
    return sum(c for (n, r), c in errs.items() if n == node and sub in r)


VX_CONF = f"vxlan tunnel src {LOCAL} dst {REMOTE} vni 0x12345\n"


def test_vxlan4_decap_worked_example(run_vpk, tmp_path):
    out, errs, _ = run(run_vpk, tmp_path, VX_CONF, [vx4()])
    assert len(out) == 1
    sent = inner_frame()
    assert out[0][IP].src == "1.2.3.4" and out[0][IP].dst == "4.3.2.1"
    assert out[0][IP].ttl == sent[IP].ttl - 1
    assert bytes(out[0][UDP]) == bytes(sent[UDP])
    assert err(errs, "vxlan4-input", "decapsulated") == 1


def test_vxlan6_decap(run_vpk, tmp_path):
    conf = "vxlan tunnel src 2001:db8::1 dst 2001:db8::2 vni 77 decap-next l2\n"
    f = (Ether(dst=MAC0) / IPv6(src="2001:db8::2", dst="2001:db8::1") / UDP(sport=5, dport=4789, chksum=0) /
         VXLAN(vni=77, flags=0x08) / inner_frame())
    bad = (Ether(dst=MAC0) / IPv6(src="2001:db8::3", dst="2001:db8::1") / UDP(sport=5, dport=4789, chksum=0) /
           VXLAN(vni=77, flags=0x08) / inner_frame())
    out, errs, _ = run(run_vpk, tmp_path, conf, [f, bad])
    assert len(out) == 1 and bytes(out[0][UDP]) == bytes(inner_frame()[UDP])
    assert err(errs, "vxlan6-input", "decapsulated") == 1
    assert err(errs, "vxlan6-input", "no such tunnel") == 1


def test_vxlan_decap_next_ip4_and_drops(run_vpk, tmp_path):
    conf = (VX_CONF + f"vxlan tunnel src {LOCAL} dst {REMOTE} vni 9 decap-next ip4\n")
    v6inner = Ether(src="00:00:00:00:00:01", dst="00:00:00:00:00:02") / IPv6() / UDP()
    frames = [
        vx4(vni=9),                                  # ip4 decap-next: routed
        vx4(vni=9, inner=v6inner),                   # inner not IPv4
        vx4(flags=0x00),                             # I bit clear
        vx4(flags=0x0C),                             # RFC: reserved bits ignored
        vx4(flags=0x88),                             # RFC: accepted (VPP drops)
        vx4(reserved=7),                             # RFC: reserved byte ignored
        vx4(vni=0x54321),                            # unknown VNI
        vx4(src="172.16.1.9"),                       # right VNI, wrong SA
        vx4(dst="172.16.9.9"),                       # not our VTEP: forwarded untouched
        bytes(vx4())[:14 + 20 + 8 + 4],              # truncated VXLAN header
    ]
    trunc_udp = bytearray(bytes(vx4()))
    trunc_udp[14 + 24:14 + 26] = struct.pack("!H", 400)    # UDP length beyond IP payload
    frames.append(bytes(trunc_udp))
    short_inner = bytes(vx4(inner=Raw(b"\x00" * 10)))       # inner frame below 14 bytes
    frames.append(short_inner)
    fix = []
    for f in frames:
        b = bytearray(bytes(f))
        if len(b) >= 34:                             # keep the IPv4 total length honest
            b[16:18] = struct.pack("!H", len(b) - 14)
            b[24:26] = b"\0\0"
            b[24:26] = struct.pack("!H", ipcsum(bytes(b[14:34])))
        fix.append(bytes(b))
    out, errs, _ = run(run_vpk, tmp_path, conf, fix)
    assert err(errs, "vxlan4-input", "decapsulated") == 4
    assert err(errs, "vxlan4-input", "not the decap-next") == 1
    assert err(errs, "vxlan4-input", "bad VXLAN flags") == 1
    assert err(errs, "vxlan4-input", "no such tunnel") == 2
    assert err(errs, "vxlan4-input", "not for a local VTEP") == 1
    assert err(errs, "vxlan4-input", "too short") == 2
    assert err(errs, "vxlan4-input", "UDP length") == 1
    assert len(out) == 5                              # 4 decapsulated + 1 transit
    # strict (VPP) mode: 0x0C, 0x88 are bad flags, the reserved byte makes the key unknown
    out, errs, _ = run(run_vpk, tmp_path, conf + "vxlan mode strict\n", fix, name="strict")
    assert err(errs, "vxlan4-input", "bad VXLAN flags") == 3
    assert err(errs, "vxlan4-input", "no such tunnel") == 3
    assert err(errs, "vxlan4-input", "decapsulated") == 1


def ipcsum(h):
    s = sum(struct.unpack("!%dH" % (len(h) // 2), h))
    while s >> 16:
        s = (s & 0xffff) + (s >> 16)
    return ~s & 0xffff


def test_vxlan_custom_port(run_vpk, tmp_path):
    out, errs, _ = run(run_vpk, tmp_path, VX_CONF + "vxlan port 1111\n", [vx4(dport=1111), vx4()])
    assert err(errs, "vxlan4-input", "decapsulated") == 1
    assert len(out) == 2                              # port 4789 is plain UDP now: routed as is
    assert any(VXLAN in p or (UDP in p and p[UDP].dport == 4789) for p in out)


@pytest.mark.parametrize("n_ep", [1, 2, 4, 8, 16])
def test_endpoint_cache_interleaved(run_vpk, tmp_path, n_ep):
    conf = "".join(f"vxlan tunnel src {LOCAL} dst 172.16.2.{i + 1} vni {100 + i}\n" for i in range(n_ep))
    frames = []
    for k in range(24 * n_ep if n_ep < 16 else 200):
        i = k % n_ep
        if k % 7 == 3:                                # unknown endpoint to our VTEP
            frames.append(vx4(src=f"172.16.3.{i + 1}", vni=100 + i, inner=inner_frame(n=k)))
        else:
            frames.append(vx4(src=f"172.16.2.{i + 1}", vni=100 + i, inner=inner_frame(n=k)))
    ref = None
    runs = [("cap", c) for c in CAPS] + [("variant", v) for v in VARIANTS]
    for kind, val in runs:
        if kind == "cap":
            out, errs, raw = run(run_vpk, tmp_path, conf, frames, env={"VPK_MAX_SIMD_BITWIDTH": val},
                                 name=f"c{val}")
        else:
            p = run_vpk("info")
            if val not in p.stdout:
                continue
            try:
                out, errs, raw = run(run_vpk, tmp_path, conf, frames, "--node-variant",
                                     f"vxlan4-input={val}", name=f"v{val}")
            except AssertionError as e:
                if "cannot run" in str(e) or "not supported" in str(e) or "ENOTSUP" in str(e):
                    continue
                raise
        got = (raw, err(errs, "vxlan4-input", "decapsulated"), err(errs, "vxlan4-input", "no such tunnel"))
        if ref is None:
            ref = got
            n_bad = sum(1 for k in range(len(frames)) if k % 7 == 3)
            assert got[1] == len(frames) - n_bad and got[2] == n_bad
        assert got == ref, f"{kind}={val} differs"


def test_vxlan_encap_round_trip(run_vpk, tmp_path):
    conf = f"vxlan tunnel src {LOCAL} dst {REMOTE} vni 0x12345 encap 9.9.0.0/16\n"
    sent = Ether(src="02:00:00:00:00:99", dst=MAC0) / IP(src="1.2.3.4", dst="9.9.1.1") / UDP() / Raw(b"q" * 30)
    out, errs, _ = run(run_vpk, tmp_path, conf, [sent])
    assert len(out) == 1 and err(errs, "vxlan4-encap", "encapsulated") == 1
    o = out[0]
    assert o[IP].src == LOCAL and o[IP].dst == REMOTE and o[UDP].dport == 4789
    assert 49152 <= o[UDP].sport <= 65535
    assert o[VXLAN].vni == 0x12345 and o[VXLAN].flags == 0x08
    assert bytes(o[VXLAN].payload) == bytes(sent)
    chk = o[IP].copy()
    del chk.chksum
    assert IP(bytes(chk)).chksum == o[IP].chksum
    # back through a decapsulating forwarder: the original frame, routed
    back = Ether(dst=MAC0) / IP(src=REMOTE, dst=LOCAL) / o[UDP]
    out2, errs2, _ = run(run_vpk, tmp_path, VX_CONF + "route add 9.9.0.0/16 via 1\n", [back], name="back")
    assert err(errs2, "vxlan4-input", "decapsulated") == 1
    assert out2[0][IP].dst == "9.9.1.1" and bytes(out2[0][UDP]) == bytes(sent[UDP])


# ---------------- GTP4.D / GTP4.E ----------------

GTP_CONF = ("sr policy bsid d4:: segments d2:: d3:: via 1\n"
            "sr steer gtp4-d 1.1.1.1/32 sr-prefix d4::/32 v6src-prefix c1::/64 policy d4:: nhtype ipv6 drop-in\n")


def gtpu(inner, teid=200, gtype=255, exts=b"", flags=None, seq=None, sport=2152, dport=2152,
         src="2.2.2.2", dst="1.1.1.1"):
    """IPv4/UDP/GTP-U by hand: exts = raw extension headers (first type given by the first byte pair)."""
    opt = b""
    fl = 0x30
    if exts or seq is not None:
        first, chain = exts[:1], exts[1:]
        fl |= (0x04 if exts else 0) | (0x02 if seq is not None else 0)
        opt = struct.pack("!HB", seq or 0, 0) + (first if exts else b"\0") + chain
    if flags is not None:
        fl = flags
    payload = opt + bytes(inner)
    g = struct.pack("!BBHI", fl, gtype, len(payload), teid) + payload
    return Ether(dst=MAC0) / IP(src=src, dst=dst, id=1) / UDP(sport=sport, dport=dport) / Raw(g)


def gtp_len(f, n):
    b = bytearray(bytes(f))
    b[14 + 20 + 8 + 2:14 + 20 + 8 + 4] = struct.pack("!H", n)
    return bytes(b)


def pdu_container(qfi, ul=False, rqi=0, nxt=0):
    return bytes([1, 0x10 if ul else 0x00, (rqi << 6) | qfi, nxt])


INNER6 = IPv6(src="b::1", dst="a::1") / UDP(sport=1000, dport=23)


def mask(prefix, plen):
    return int(ipaddress.IPv6Address(prefix)) & (((1 << plen) - 1) << (128 - plen))


def sid_ref(prefix, plen, da4, args, teid):
    p = mask(prefix, plen)
    f = (int(ipaddress.IPv4Address(da4)) << 40) | (args << 32) | teid
    return str(ipaddress.IPv6Address(p | (f << (56 - plen))))


def src_ref(prefix, plen, sa4):
    return str(ipaddress.IPv6Address(mask(prefix, plen) |
                                     (int(ipaddress.IPv4Address(sa4)) << (96 - plen))))


def test_gtp4d_worked_example_bytes(run_vpk, tmp_path):
    out, errs, _ = run(run_vpk, tmp_path, GTP_CONF, [gtpu(INNER6)])
    assert len(out) == 1
    want = bytes.fromhex(
        "6000000000682b3f"                       # hop limit 64, 63 after ip6-rewrite
        "00c10000000000000202020200000000"
        "00d20000000000000000000000000000"
        "2906040202000000"
        "00d40000010101010000 0000c8000000".replace(" ", "") +
        "00d30000000000000000000000000000"
        "00d20000000000000000000000000000") + bytes(INNER6)
    assert bytes(out[0])[14:] == want
    srh = out[0][IPv6ExtHdrSegmentRouting]
    assert srh.addresses[0] == "d4:0:101:101::c800:0" and srh.segleft == 2
    assert err(errs, "srv6-gtp4-d", "good packets") == 1


@pytest.mark.parametrize("ext,ul,compat,args", [
    (pdu_container(9), False, False, 9 << 2),
    (pdu_container(9, rqi=1), False, False, (9 << 2) | 2),
    (pdu_container(9, ul=True), True, False, 9 << 2),         # RFC: U = 0
    (pdu_container(9, ul=True), True, True, (9 << 2) | 1),    # VPP: U = PDU type
])
def test_gtp4d_qfi_r_u(run_vpk, tmp_path, ext, ul, compat, args):
    conf = GTP_CONF.replace("drop-in", "drop-in u-pdu-type" if compat else "drop-in")
    f = gtpu(INNER6, teid=0x12345678, exts=b"\x85" + ext)
    out, errs, _ = run(run_vpk, tmp_path, conf, [f])
    assert len(out) == 1, errs
    assert out[0][IPv6ExtHdrSegmentRouting].addresses[0] == sid_ref("d4::", 32, "1.1.1.1", args, 0x12345678)
    if args == 9 << 2 and not ul:
        assert out[0][IPv6ExtHdrSegmentRouting].addresses[0] == "d4:0:101:101:2412:3456:7800:0"
    assert bytes(out[0][IPv6ExtHdrSegmentRouting].payload) == bytes(INNER6)


def test_gtp4d_several_extension_headers(run_vpk, tmp_path):
    # UDP Port ext (0x40, 4 bytes) then a PDU Session Container (0x85), then end
    udp_port_ext = bytes([1, 0x12, 0x34, 0x85])
    f = gtpu(INNER6, teid=7, exts=b"\x40" + udp_port_ext + pdu_container(5))
    # long extension (8 bytes) before the container
    long_ext = bytes([2, 1, 2, 3, 4, 5, 6, 0x85])
    f2 = gtpu(INNER6, teid=8, exts=b"\x81" + long_ext + pdu_container(6))
    zero = gtpu(INNER6, teid=9, exts=b"\x40" + bytes([0, 0, 0, 0]))
    trunc = gtpu(INNER6, teid=9, exts=b"\x40" + bytes([20, 0, 0, 0x85]))   # runs past the GTP payload
    out, errs, _ = run(run_vpk, tmp_path, GTP_CONF, [f, f2, zero, trunc])
    sids = [p[IPv6ExtHdrSegmentRouting].addresses[0] for p in out]
    assert sids == [sid_ref("d4::", 32, "1.1.1.1", 5 << 2, 7), sid_ref("d4::", 32, "1.1.1.1", 6 << 2, 8)]
    assert all(bytes(p[IPv6ExtHdrSegmentRouting].payload) == bytes(INNER6) for p in out)
    assert err(errs, "srv6-gtp4-d", "length 0") == 1
    assert err(errs, "srv6-gtp4-d", "truncated") == 1


def test_gtp4d_message_types_and_drops(run_vpk, tmp_path):
    frames = [
        gtpu(b"", gtype=1, seq=0x1234, teid=0),              # echo request -> answered
        gtpu(b"\x0e\x00", gtype=2, seq=1, teid=0),           # echo response
        gtpu(b"\x10\0\0\0\x01", gtype=26, teid=0, seq=2),    # error indication
        gtpu(b"", gtype=254),                                # end marker
        gtpu(INNER6, gtype=3),                               # something else
        gtpu(INNER6, dport=2153),                            # wrong port
        gtpu(INNER6, flags=0x50),                            # version 2
        gtpu(IP(src="9.9.9.9", dst="8.8.8.8") / UDP()),      # nhtype ipv6: inner IPv4 refused
        Ether(dst=MAC0) / IP(src="2.2.2.2", dst="1.1.1.1") / Raw(b"x" * 40),    # not UDP (proto 0)
        bytes(gtpu(INNER6))[:14 + 20 + 8 + 4],               # cut: UDP length beyond the IP payload
        gtp_len(gtpu(INNER6), 500),                          # GTP length beyond the UDP payload
    ]
    fix = []
    for f in frames:
        b = bytearray(bytes(f))
        b[16:18] = struct.pack("!H", len(b) - 14)
        b[24:26] = b"\0\0"
        b[24:26] = struct.pack("!H", ipcsum(bytes(b[14:34])))
        fix.append(bytes(b))
    out, errs, _ = run(run_vpk, tmp_path, GTP_CONF, fix)
    for sub in ("echo requests answered", "echo response", "error indication", "end marker",
                "unsupported GTP-U message", "not 2152", "version is not 1", "not the nhtype",
                "not UDP", "truncated", "UDP length beyond"):
        assert err(errs, "srv6-gtp4-d", sub) == 1, (sub, errs)
    assert len(out) == 1
    r = out[0]
    assert r[IP].src == "1.1.1.1" and r[IP].dst == "2.2.2.2" and r[UDP].sport == 2152
    g = bytes(r[UDP].payload)
    assert g[0] == 0x32 and g[1] == 2 and g[8:10] == b"\x12\x34" and g[12:14] == b"\x0e\x00"


@pytest.mark.parametrize("srp,srl,v6p,v6l", [("d4::", 32, "c1::", 64), ("d4:8::", 29, "c1::", 61),
                                             ("2001:db8:a000::", 37, "fc00::", 3), ("::", 0, "::", 96)])
def test_gtp4d_prefix_lengths_no_policy(run_vpk, tmp_path, srp, srl, v6p, v6l):
    conf = f"sr steer gtp4-d 1.1.1.0/24 sr-prefix {srp}/{srl} v6src-prefix {v6p}/{v6l} via 1\n"
    inner4 = IP(src="10.0.0.1", dst="10.0.0.2") / UDP() / Raw(b"z" * 10)
    f = gtpu(inner4, teid=0xdeadbeef, exts=b"\x85" + pdu_container(63, rqi=1))
    out, errs, _ = run(run_vpk, tmp_path, conf, [f])
    assert len(out) == 1, errs
    o = out[0][IPv6]
    assert o.nh == 4 and o.plen == len(inner4)                     # no SRH: DA = B
    A = ipaddress.IPv6Address
    assert A(o.dst) == A(sid_ref(srp, srl, "1.1.1.1", (63 << 2) | 2, 0xdeadbeef))
    assert A(o.src) == A(src_ref(v6p, v6l, "2.2.2.2"))
    assert bytes(o.payload) == bytes(inner4)


def test_gtp4d_then_gtp4e_returns_original(run_vpk, tmp_path):
    inner = IP(src="10.0.0.1", dst="10.0.0.2") / UDP(sport=5, dport=6) / Raw(b"r" * 33)
    orig = gtpu(inner, teid=0x01020304, exts=b"\x85" + pdu_container(9))
    conf = GTP_CONF.replace("nhtype ipv6", "nhtype auto")
    out, _, _ = run(run_vpk, tmp_path, conf, [orig, gtpu(inner, teid=77)])
    assert len(out) == 2
    # the SR path S1..Sn ends at B: what End at each segment does (DA = B, SL = 0)
    back = []
    for o in out:
        srh = o[IPv6ExtHdrSegmentRouting]
        o[IPv6].dst = srh.addresses[0]
        srh.segleft = 0
        back.append(Ether(dst=MAC0) / o[IPv6])
    conf_e = "sr localsid end-m-gtp4-e d4::/32 v4src-position 64\nroute add 1.1.1.0/24 via 1\n"
    out2, errs2, _ = run(run_vpk, tmp_path, conf_e, back, name="e")
    assert err(errs2, "srv6-end-m-gtp4-e", "good packets") == 2
    for got, sent in zip(out2, [orig, gtpu(inner, teid=77)]):
        assert got[IP].src == "2.2.2.2" and got[IP].dst == "1.1.1.1"
        assert got[UDP].dport == 2152
        assert bytes(got[UDP].payload) == bytes(sent[UDP].payload)      # GTP-U + container + inner
    # SL != 0 is refused
    bad = Ether(dst=MAC0) / out[0][IPv6]
    bad[IPv6ExtHdrSegmentRouting].segleft = 1
    _, errs3, _ = run(run_vpk, tmp_path, conf_e, [bad], name="sl")
    assert err(errs3, "srv6-end-m-gtp4-e", "segments left") == 1


def test_gtp4d_identical_output_every_variant(run_vpk, tmp_path):
    frames = [gtpu(INNER6, teid=i * 7919, exts=b"\x85" + pdu_container(i % 64), src=f"2.2.{i}.2")
              for i in range(40)]
    ref = None
    for cap in CAPS:
        _, _, raw = run(run_vpk, tmp_path, GTP_CONF, frames, env={"VPK_MAX_SIMD_BITWIDTH": cap}, name=f"g{cap}")
        ref = raw if ref is None else ref
        assert raw == ref, cap
    for v in VARIANTS:
        try:
            _, _, raw = run(run_vpk, tmp_path, GTP_CONF, frames, "--node-variant", f"srv6-gtp4-d={v}",
                            name=f"gv{v}")
        except AssertionError:
            continue                                    # variant not usable on this machine
        assert raw == ref, v


def test_config_errors(run_vpk, tmp_path):
    for line in ("vxlan tunnel src 1.1.1.1 dst 2001:db8::1 vni 1",
                 "vxlan tunnel src 1.1.1.1 dst 2.2.2.2 vni 16777216",
                 "vxlan tunnel src 0.0.0.0 dst 2.2.2.2 vni 1",
                 "vxlan port 0", "vxlan mode loose",
                 "sr steer gtp4-d 1.1.1.1/32 sr-prefix d4::/57 v6src-prefix c1::/64 via 1",
                 "sr steer gtp4-d 1.1.1.1/32 sr-prefix d4::/32 v6src-prefix c1::/64 policy d9::",
                 "sr localsid end-m-gtp4-e d4::/32 v4src-position 97"):
        cfg = tmp_path / "bad.conf"
        cfg.write_text(f"interface eth0 mac {MAC0} in {tmp_path}/none.pcap\n{line}\n")
        p = run_vpk("fwd", "--config", str(cfg))
        assert p.returncode != 0 and "bad.conf" in p.stderr and ":2" in p.stderr, (line, p.stderr)


def test_vxlan_tunnel_del(run_vpk, tmp_path):
    conf = (VX_CONF + f"vxlan tunnel src {LOCAL} dst {REMOTE} vni 5\n"
            f"vxlan tunnel src {LOCAL} dst {REMOTE} vni 0x12345 del\n")
    out, errs, _ = run(run_vpk, tmp_path, conf, [vx4(), vx4(vni=5)])
    assert err(errs, "vxlan4-input", "decapsulated") == 1
    assert err(errs, "vxlan4-input", "no such tunnel") == 1
    cfg = tmp_path / "bad.conf"
    cfg.write_text(f"vxlan tunnel src {LOCAL} dst {REMOTE} vni 7 del\n")
    p = run_vpk("fwd", "--config", str(cfg))
    assert p.returncode != 0 and "no such tunnel" in p.stderr


def test_gtp4e_drops(run_vpk, tmp_path):
    conf_e = "sr localsid end-m-gtp4-e d4::/32 v4src-addr 9.9.9.9\nroute add 1.1.1.0/24 via 1\n"
    sid = sid_ref("d4::", 32, "1.1.1.1", 0, 42)
    good = Ether(dst=MAC0) / IPv6(src="c1::1", dst=sid) / INNER6
    udp = Ether(dst=MAC0) / IPv6(src="c1::1", dst=sid) / UDP() / Raw(b"x" * 8)        # NH 17
    srh_long = bytearray(bytes(Ether(dst=MAC0) / IPv6(src="c1::1", dst=sid) /
                               IPv6ExtHdrSegmentRouting(addresses=[sid], segleft=0) / INNER6))
    srh_long[14 + 41] = 200                                  # SRH longer than the packet
    frames = [good, udp, bytes(srh_long)]
    out, errs, _ = run(run_vpk, tmp_path, conf_e, frames)
    assert err(errs, "srv6-end-m-gtp4-e", "good packets") == 1
    assert err(errs, "srv6-end-m-gtp4-e", "upper-layer header") == 1
    # ip6-input walks the SRH first: one longer than the packet never reaches the node
    assert err(errs, "ip6-input", "extension header beyond the payload") == 1
    assert len(out) == 1 and out[0][IP].src == "9.9.9.9" and out[0][IP].dst == "1.1.1.1"
    g = bytes(out[0][UDP].payload)
    assert g[:8] == bytes([0x30, 255]) + struct.pack("!HI", len(INNER6), 42)   # no container: args 0
    assert g[8:] == bytes(INNER6)


def test_gtp4d_routed_by_ipv6_fib(run_vpk, tmp_path):
    conf = ("route add d2::/16 via 1\nroute add d4::/16 via 1\n"
            "sr policy bsid d4:: segments d2:: d3::\n"
            "sr steer gtp4-d 1.1.1.1/32 sr-prefix d4::/32 v6src-prefix c1::/64 policy d4::\n"
            "sr steer gtp4-d 1.1.1.2/32 sr-prefix d4::/32 v6src-prefix c1::/64\n"
            "sr steer gtp4-d 1.1.1.3/32 sr-prefix d9::/32 v6src-prefix c1::/64\n")
    frames = [gtpu(INNER6), gtpu(INNER6, dst="1.1.1.2"), gtpu(INNER6, dst="1.1.1.3")]
    out, errs, _ = run(run_vpk, tmp_path, conf, frames)
    assert len(out) == 2, errs
    assert out[0][IPv6].dst == "d2::" and out[0][IPv6ExtHdrSegmentRouting].addresses[0] == "d4:0:101:101::c800:0"
    assert out[1][IPv6].dst == "d4:0:101:102::c800:0" and out[1][IPv6].nh == 41
    assert err(errs, "ip6-lookup", "route") == 1                 # d9::/32 has no route


def test_vxlan6_encap_round_trip(run_vpk, tmp_path):
    conf = ("vxlan tunnel src 2001:db8::1 dst 2001:db8::2 vni 99 encap 9.9.0.0/16\n"
            "route add 2001:db8::/32 via 1\n")
    sent = Ether(src="02:00:00:00:00:99", dst=MAC0) / IP(src="1.2.3.4", dst="9.9.1.1") / UDP() / Raw(b"q" * 31)
    transit = vx4(dst="172.16.9.9")          # UDP 4789 over IPv4 with no IPv4 tunnel: routed as is
    out, errs, _ = run(run_vpk, tmp_path, conf, [sent, transit])
    assert err(errs, "vxlan6-encap", "encapsulated") == 1 and len(out) == 2
    o = next(p for p in out if IPv6 in p)
    assert any(IP in p and p[IP].dst == "172.16.9.9" for p in out)
    assert o[IPv6].src == "2001:db8::1" and o[IPv6].dst == "2001:db8::2" and o[IPv6].hlim == 63
    assert o[UDP].dport == 4789 and o[VXLAN].vni == 99 and bytes(o[VXLAN].payload) == bytes(sent)
    chk = o[UDP].copy()
    del chk.chksum
    assert o[UDP].chksum != 0
    assert UDP(bytes(IPv6(src=o[IPv6].src, dst=o[IPv6].dst) / chk)[40:]).chksum == o[UDP].chksum
    back = Ether(dst=MAC0) / IPv6(src="2001:db8::2", dst="2001:db8::1") / o[UDP]
    conf2 = "vxlan tunnel src 2001:db8::1 dst 2001:db8::2 vni 99\nroute add 9.9.0.0/16 via 1\n"
    out2, errs2, _ = run(run_vpk, tmp_path, conf2, [back], name="back6")
    assert err(errs2, "vxlan6-input", "decapsulated") == 1
    assert out2[0][IP].dst == "9.9.1.1" and bytes(out2[0][UDP]) == bytes(sent[UDP])


def test_vxlan_ttl1_to_own_vtep_address(run_vpk, tmp_path):
    """TTL / hop limit 1 is checked for forwarded packets only: VxLAN to a VTEP address that is
    also an `ip address` of the router is decapsulated; other UDP to that address still gets
    port unreachable, and a transit packet with TTL 1 still gets time exceeded."""
    v6 = "2001:db8::1"
    conf = (VX_CONF + f"vxlan tunnel src {v6} dst 2001:db8::2 vni 77 decap-next l2\n"
            f"ip address eth0 {LOCAL}/24\nip address eth0 {v6}/64\n")
    f4 = vx4()
    f4[IP].ttl = 1
    f6 = (Ether(dst=MAC0) / IPv6(src="2001:db8::2", dst=v6, hlim=1) / UDP(sport=5, dport=4789, chksum=0) /
          VXLAN(vni=77, flags=0x08) / inner_frame(n=1))
    other_udp = Ether(dst=MAC0) / IP(src=REMOTE, dst=LOCAL, ttl=1) / UDP(sport=9, dport=53) / Raw(b"q" * 8)
    transit = Ether(dst=MAC0) / IP(src=REMOTE, dst="4.3.2.9", ttl=1) / UDP(sport=9, dport=53) / Raw(b"t" * 8)
    out, errs, raw = run(run_vpk, tmp_path, conf, [f4, f6, other_udp, transit])
    assert err(errs, "vxlan4-input", "decapsulated") == 1
    assert err(errs, "vxlan6-input", "decapsulated") == 1
    inner = sorted(bytes(p[UDP]) for p in out if p.haslayer(UDP) and not p.haslayer("ICMP"))
    assert inner == sorted([bytes(inner_frame()[UDP]), bytes(inner_frame(n=1)[UDP])])
    icmp = sorted((bytes(p)[14 + 20], bytes(p)[14 + 21]) for p in out if p.haslayer("ICMP"))
    assert icmp == [(3, 3), (11, 0)]                     # port unreachable, time exceeded
    assert err(errs, "ip4-local", "port unreachable") == 1
    assert err(errs, "ip4-icmp-error", "own address") == 2
    assert err(errs, "ip6-icmp-error", "own address") == 1
