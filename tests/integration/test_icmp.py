"""ICMP errors and echo replies of the forwarder (ip4/ip6-icmp-error, ip4/ip6-local).

Packets are built with scapy; replies are judged byte by byte: checksums
recomputed here, quoted lengths per RFC 792 / RFC 1812 §4.3.2.3 (IPv4: up to
576 bytes in all) and RFC 4443 §2.4 (c) (IPv6: up to 1280 bytes).
"""
import struct

from scapy.all import ICMP, IP, UDP, Ether, IPv6, Raw  # noqa: E402
from scapy.layers.inet6 import IPv6ExtHdrSegmentRouting

from test_tunnels import MAC0, err
from test_tunnels import run as tunnels_run

A4 = "192.0.2.1"            # eth0 (the receiving interface)
B4 = "198.51.100.1"         # eth1
A6 = "2001:db8:1::1"
SRC4 = "10.1.1.1"
SRC6 = "2001:db8:9::9"
ADDRS = (f"ip address eth0 {A4}/24\nip address eth1 {B4}/24\nip address eth0 {A6}/64\n"
         "route add 10.0.0.0/8 via 1\nroute add 2001:db8:9::/48 via 1\nroute add c1::/16 via 1\n")


def run(run_vpk, tmp_path, conf, frames, name="r"):
    out, errs, _ = tunnels_run(run_vpk, tmp_path, conf, frames, name=name,
                               routes="route add 4.3.2.0/24 via 1\nroute add 2001:db8:4::/48 via 1\n")
    return out, errs


def csum(b):
    if len(b) % 2:
        b += b"\0"
    s = sum(struct.unpack("!%dH" % (len(b) // 2), b))
    while s >> 16:
        s = (s & 0xffff) + (s >> 16)
    return s


def check_ip4_icmp(p, src, dst, type_, code):
    raw = bytes(p)[14:]
    assert raw[0] == 0x45 and raw[9] == 1
    assert csum(raw[:20]) == 0xffff                                  # header checksum
    tlen = struct.unpack("!H", raw[2:4])[0]
    assert tlen == len(raw) and tlen <= 576
    assert raw[6] & 0x40                                            # DF
    assert p[IP].src == src and p[IP].dst == dst
    assert raw[20] == type_ and raw[21] == code
    assert csum(raw[20:]) == 0xffff                                  # ICMP checksum over message + quote
    return raw[28:]                                                  # the quoted datagram


def check_ip6_icmp(p, src, dst, type_, code):
    raw = bytes(p)[14:]
    assert raw[0] >> 4 == 6 and raw[6] == 58
    plen = struct.unpack("!H", raw[4:6])[0]
    assert plen + 40 == len(raw) and len(raw) <= 1280
    assert p[IPv6].src == src and p[IPv6].dst == dst
    assert raw[40] == type_ and raw[41] == code
    pseudo = raw[8:40] + struct.pack("!IxxxB", plen, 58)
    assert csum(pseudo + raw[40:]) == 0xffff
    return raw[48:], raw[44:48]


def pkt4(dst="4.3.2.1", ttl=64, n=50, src=SRC4):
    return Ether(dst=MAC0) / IP(src=src, dst=dst, ttl=ttl, id=7) / UDP(sport=33434, dport=33435) / Raw(b"t" * n)


def test_time_exceeded_and_unreachable_ipv4(run_vpk, tmp_path):
    big = pkt4(ttl=1, n=1400)
    frames = [pkt4(ttl=1), pkt4(dst="5.5.5.5"), big, pkt4(ttl=0)]
    out, errs = run(run_vpk, tmp_path, ADDRS, frames)
    assert len(out) == 4, errs
    # the quoted datagram says which error answers which packet (errors leave in graph order)
    by = {bytes(p)[14 + 28:14 + 28 + 20]: p for p in out}
    o = [by[bytes(f)[14:34]] for f in frames]
    q = check_ip4_icmp(o[0], A4, SRC4, 11, 0)
    assert q == bytes(frames[0])[14:]                               # the whole (short) datagram quoted
    assert o[0][IP].ttl == 63                                       # 64, routed once
    q = check_ip4_icmp(o[1], A4, SRC4, 3, 0)
    assert q == bytes(frames[1])[14:]
    q = check_ip4_icmp(o[2], A4, SRC4, 11, 0)
    assert len(bytes(o[2])) - 14 == 576 and q == bytes(big)[14:14 + 548]
    assert struct.unpack("!H", q[2:4])[0] == len(bytes(big)) - 14   # quoted header keeps its length
    check_ip4_icmp(o[3], A4, SRC4, 11, 0)
    assert err(errs, "ip4-icmp-error", "time exceeded sent") == 3
    assert err(errs, "ip4-icmp-error", "destination unreachable sent") == 1
    assert err(errs, "ip4-input", "time to live") == 3
    assert err(errs, "ip4-lookup", "no route") == 1


def test_icmp_errors_not_sent(run_vpk, tmp_path):
    about_err = Ether(dst=MAC0) / IP(src=SRC4, dst="4.3.2.1", ttl=1) / ICMP(type=3, code=1) / Raw(b"x" * 28)
    echo_ttl = Ether(dst=MAC0) / IP(src=SRC4, dst="4.3.2.1", ttl=1) / ICMP(type=8) / Raw(b"x" * 8)
    frag = Ether(dst=MAC0) / IP(src=SRC4, dst="4.3.2.1", ttl=1, frag=100) / Raw(b"y" * 40)
    mcast_src = pkt4(ttl=1, src="224.0.0.5")
    zero_src = pkt4(ttl=1, src="0.0.0.0")
    to_mcast = Ether(dst=MAC0) / IP(src=SRC4, dst="239.1.1.1", ttl=1) / UDP() / Raw(b"m")
    out, errs = run(run_vpk, tmp_path, ADDRS, [about_err, echo_ttl, frag, mcast_src, zero_src, to_mcast])
    assert len(out) == 1 and out[0][ICMP].type == 11                 # only the echo request's error
    assert err(errs, "ip4-icmp-error", "about an ICMP error") == 1
    assert err(errs, "ip4-icmp-error", "non-first fragment") == 1
    assert err(errs, "ip4-icmp-error", "not unicast") == 3


def test_rate_limit(run_vpk, tmp_path):
    frames = [pkt4(ttl=1) for _ in range(40)]
    out, errs = run(run_vpk, tmp_path, ADDRS + "icmp rate-limit 1 burst 5\n", frames)
    sent = err(errs, "ip4-icmp-error", "time exceeded sent")
    assert 5 <= sent <= 7 and len(out) == sent                     # burst, plus at most a refill or two
    assert err(errs, "ip4-icmp-error", "rate limited") == 40 - sent
    out, errs = run(run_vpk, tmp_path, ADDRS + "icmp rate-limit 0\n", frames[:3], name="zero")
    assert len(out) == 0 and err(errs, "ip4-icmp-error", "rate limited") == 3


def test_echo_reply_and_local_ipv4(run_vpk, tmp_path):
    req = Ether(dst=MAC0) / IP(src=SRC4, dst=A4, id=99) / ICMP(type=8, id=0x1234, seq=7) / Raw(b"ping" * 10)
    req_b = Ether(dst=MAC0) / IP(src=SRC4, dst=B4, ttl=1) / ICMP(type=8, id=1, seq=2) / Raw(b"p")
    bad = bytearray(bytes(req))
    bad[14 + 20 + 2] ^= 0xff                                        # bad ICMP checksum
    udp = Ether(dst=MAC0) / IP(src=SRC4, dst=A4) / UDP(sport=1, dport=53) / Raw(b"q" * 12)
    gre = Ether(dst=MAC0) / IP(src=SRC4, dst=A4, proto=47) / Raw(b"g" * 12)
    out, errs = run(run_vpk, tmp_path, ADDRS, [req, req_b, bytes(bad), udp, gre])
    assert err(errs, "ip4-local", "echo requests answered") == 2
    assert err(errs, "ip4-local", "bad ICMP checksum") == 1
    assert len(out) == 4, errs
    rep = sorted((p for p in out if bytes(p)[14 + 20] == 0), key=lambda p: p[IP].src)
    unr = sorted((p for p in out if bytes(p)[14 + 20] == 3), key=lambda p: -bytes(p)[14 + 21])
    assert len(rep) == 2 and len(unr) == 2
    r = bytes(rep[0])[14:]
    assert rep[0][IP].src == A4 and rep[0][IP].dst == SRC4 and csum(r[:20]) == 0xffff
    assert r[20] == 0 and r[21] == 0 and csum(r[20:]) == 0xffff
    assert r[24:] == bytes(req[ICMP])[4:]                           # identifier, sequence, data
    assert rep[1][IP].src == B4                                     # TTL 1 to an own address: answered
    q = check_ip4_icmp(unr[0], A4, SRC4, 3, 3)                      # port unreachable
    assert q == bytes(udp)[14:]
    check_ip4_icmp(unr[1], A4, SRC4, 3, 2)                          # protocol unreachable


def test_ipv6_errors_and_echo(run_vpk, tmp_path):
    base = Ether(dst=MAC0) / IPv6(src=SRC6, dst="2001:db8:4::1", hlim=1) / UDP(sport=5, dport=6)
    frames = [base / Raw(b"h" * 20),
              Ether(dst=MAC0) / IPv6(src=SRC6, dst="2001:db8:77::1") / UDP() / Raw(b"n" * 8),
              base / Raw(b"H" * 1400),
              Ether(dst=MAC0) / IPv6(src=SRC6, dst=A6, nh=58) / Raw(bytes([128, 0, 0, 0, 0x12, 0x34, 0, 1]) + b"E" * 20)]
    r = bytearray(bytes(frames[3]))
    pl = bytes(r[14 + 40:])
    c = 0xffff - csum(bytes(r[14 + 8:14 + 40]) + struct.pack("!IxxxB", len(pl), 58) + pl)
    r[14 + 42:14 + 44] = struct.pack("!H", c)
    frames[3] = bytes(r)
    out, errs = run(run_vpk, tmp_path, ADDRS, frames)
    assert len(out) == 4, errs
    by = {bytes(p)[14 + 48:14 + 48 + 40]: p for p in out if bytes(p)[14 + 40] != 129}
    o = [by[bytes(f)[14:54]] for f in frames[:3]] + [p for p in out if bytes(p)[14 + 40] == 129]
    q, _ = check_ip6_icmp(o[0], A6, SRC6, 3, 0)
    assert q == bytes(frames[0])[14:]
    q, _ = check_ip6_icmp(o[1], A6, SRC6, 1, 0)
    assert q == bytes(frames[1])[14:]
    q, _ = check_ip6_icmp(o[2], A6, SRC6, 3, 0)
    assert len(bytes(o[2])) - 14 == 1280 and q == bytes(frames[2])[14:14 + 1232]
    e = bytes(o[3])[14:]
    assert o[3][IPv6].src == A6 and o[3][IPv6].dst == SRC6 and e[40] == 129
    assert csum(e[8:40] + struct.pack("!IxxxB", len(e) - 40, 58) + e[40:]) == 0xffff
    assert e[44:] == frames[3][14 + 44:]
    assert err(errs, "ip6-icmp-error", "time exceeded sent") == 2
    assert err(errs, "ip6-local", "echo requests answered") == 1


def test_srv6_segments_left_parameter_problem(run_vpk, tmp_path):
    sid = "d4:0:101:101::2a00:0"
    f = (Ether(dst=MAC0) / IPv6(src="c1::1", dst=sid) /
         IPv6ExtHdrSegmentRouting(addresses=[sid, sid], segleft=1) / IP(dst="1.1.1.1") / UDP())
    conf = ADDRS + "sr localsid end-m-gtp4-e d4::/32 v4src-addr 9.9.9.9\n"
    out, errs = run(run_vpk, tmp_path, conf, [f])
    assert err(errs, "srv6-end-m-gtp4-e", "segments left") == 1
    assert err(errs, "ip6-icmp-error", "parameter problem sent") == 1
    assert len(out) == 1
    q, ptr = check_ip6_icmp(out[0], A6, "c1::1", 4, 0)
    assert struct.unpack("!I", ptr)[0] == 43                        # the SRH's Segments Left
    assert q == bytes(f)[14:]


def test_config_errors(run_vpk, tmp_path):
    for line in ("ip address eth9 1.2.3.4/24", "ip address eth0 1.2.3.4", "ip address eth0 1.2.3.4/33",
                 "icmp rate-limit x", "icmp rate-limit 5 burst 0", "icmp limit 5"):
        cfg = tmp_path / "bad.conf"
        cfg.write_text(f"interface eth0 mac {MAC0} in {tmp_path}/none.pcap\n{line}\n")
        p = run_vpk("fwd", "--config", str(cfg))
        assert p.returncode != 0 and "bad.conf" in p.stderr and ":2" in p.stderr, (line, p.stderr)


def test_ipv6_unknown_next_header_to_router(run_vpk, tmp_path):
    f = Ether(dst=MAC0) / IPv6(src=SRC6, dst=A6, nh=59) / Raw(b"z" * 12)
    out, errs = run(run_vpk, tmp_path, ADDRS, [f])
    assert len(out) == 1 and err(errs, "ip6-local", "parameter problem") == 1
    q, ptr = check_ip6_icmp(out[0], A6, SRC6, 4, 1)
    assert struct.unpack("!I", ptr)[0] == 6 and q == bytes(f)[14:]     # the IPv6 header's Next Header


ACL4 = "@0.0.0.0/0 4.3.2.0/24 0 : 65535 53 : 53 17/0xff\n"
ACL6 = "@::/0 2001:db8:4::/48 0 : 65535 53 : 53 17/0xff\n"


def test_acl_deny_unreachable(run_vpk, tmp_path):
    (tmp_path / "r4").write_text(ACL4)
    (tmp_path / "r6").write_text(ACL6)
    acl = f"acl load {tmp_path / 'r4'}\nacl load {tmp_path / 'r6'} ipv6\n"
    denied = Ether(dst=MAC0) / IP(src=SRC4, dst="4.3.2.1", id=5) / UDP(sport=1000, dport=53) / Raw(b"d" * 30)
    allowed = pkt4()                                                # dport 33435: permitted, forwarded
    denied6 = Ether(dst=MAC0) / IPv6(src=SRC6, dst="2001:db8:4::1") / UDP(sport=1000, dport=53) / Raw(b"6" * 30)
    frames = [denied, allowed, denied6]
    # default: a deny is a silent drop
    out, errs = run(run_vpk, tmp_path, ADDRS + acl, frames, name="drop")
    assert len(out) == 1 and out[0][IP].dst == "4.3.2.1" and bytes(out[0])[14 + 9] == 17
    assert err(errs, "ip4-acl", "denied") == 1 and err(errs, "ip6-acl", "denied") == 1
    assert err(errs, "ip4-icmp-error", "unreachable sent") == 0
    # acl deny icmp-unreachable: type 3 code 13 / ICMPv6 1/1 from the receiving interface's address
    out, errs = run(run_vpk, tmp_path, ADDRS + acl + "acl deny icmp-unreachable\n", frames, name="icmp")
    assert len(out) == 3, errs
    o4 = [p for p in out if p.haslayer(IP) and bytes(p)[14 + 9] == 1]
    o6 = [p for p in out if p.haslayer(IPv6)]
    assert len(o4) == 1 and len(o6) == 1
    q = check_ip4_icmp(o4[0], A4, SRC4, 3, 13)
    assert q == bytes(denied)[14:]                                  # the whole datagram quoted
    assert bytes(o4[0])[14 + 24:14 + 28] == b"\0\0\0\0"             # unused word
    q, unused = check_ip6_icmp(o6[0], A6, SRC6, 1, 1)
    assert q == bytes(denied6)[14:] and unused == b"\0\0\0\0"
    assert err(errs, "ip4-acl", "denied") == 1 and err(errs, "ip6-acl", "denied") == 1
    assert err(errs, "ip4-icmp-error", "destination unreachable sent") == 1
    assert err(errs, "ip6-icmp-error", "destination unreachable sent") == 1
    # rate-limited and counted like every ICMP error
    many = [denied] * 20
    out, errs = run(run_vpk, tmp_path, ADDRS + acl + "acl deny icmp-unreachable\nicmp rate-limit 1 burst 3\n",
                    many, name="rate")
    sent = err(errs, "ip4-icmp-error", "destination unreachable sent")
    assert 3 <= sent <= 5 and len(out) == sent
    assert err(errs, "ip4-icmp-error", "rate limited") == 20 - sent
    assert err(errs, "ip4-acl", "denied") == 20


def test_acl_deny_config_errors(run_vpk, tmp_path):
    cfg = tmp_path / "c.conf"
    cfg.write_text("acl deny reject\n")
    p = run_vpk("fwd", "--config", str(cfg))
    assert p.returncode != 0 and "acl deny drop|icmp-unreachable" in p.stderr and "c.conf" in p.stderr
