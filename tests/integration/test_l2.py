"""L2 input as routers do it (`vpk fwd` on pcap files): the destination MAC
check, promisc, VLAN sub-interfaces (802.1Q, 802.1ad, Q-in-Q) on input and
output, and the counters of every frame dropped. scapy builds the frames and
judges the output bytes."""
import json

from scapy.all import IP, UDP, Dot1AD, Dot1Q, Ether, Raw, rdpcap, wrpcap  # noqa: E402

MAC0 = "02:00:00:00:00:01"
MAC1 = "02:00:00:00:01:01"
SRC = "02:00:00:00:00:10"
N1 = "02:aa:00:00:00:01"
N7 = "02:aa:00:00:00:07"

CONFIG = """interface eth0 mac {mac0} in {inp}{opt}
interface eth0.100
interface eth0.200.300
interface eth0.400.500 tpid 0x8100
interface eth1 mac {mac1} out {out}
interface eth1.7
interface eth1.8.9
neighbor 1 {n1} dev eth1
neighbor 2 {n7} dev eth1.7
neighbor 3 {n7} dev eth1.8.9
route add 10.1.0.0/16 via 1
route add 10.7.0.0/16 via 2
route add 10.8.0.0/16 via 3
"""


def udp(dst_ip, dst=MAC0, tags=()):
    l2 = Ether(src=SRC, dst=dst)
    for t in tags:
        l2 = l2 / t
    return l2 / IP(src="192.168.0.1", dst=dst_ip) / UDP(sport=1, dport=53) / Raw(b"p" * 20)


def run(run_vpk, tmp_path, frames, opt=""):
    inp, out = tmp_path / "in.pcap", tmp_path / "out.pcap"
    wrpcap(str(inp), frames)
    cfg = tmp_path / "l2.conf"
    cfg.write_text(CONFIG.format(mac0=MAC0, mac1=MAC1, n1=N1, n7=N7, inp=inp, out=out, opt=opt))
    p = run_vpk("fwd", "--config", str(cfg), "--json")
    assert p.returncode == 0, p.stderr
    r = json.loads(p.stdout)["runs"][0]
    errs = {(e["node"], e["reason"]): e["count"] for e in r["errors"]}
    ifs = {i["name"]: i for i in r["interfaces"]}
    return r, errs, ifs, [bytes(x) for x in rdpcap(str(out))] if out.exists() else []


def count(errs, node, part):
    return sum(c for (n, r), c in errs.items() if n == node and part in r)


def test_only_our_frames_are_taken(run_vpk, tmp_path):
    frames = [
        udp("10.1.0.1"),                                     # ours
        udp("10.1.0.2", dst="ff:ff:ff:ff:ff:ff"),            # broadcast
        udp("10.1.0.3", dst="01:00:5e:00:00:01"),            # all-hosts group: subscribed
        udp("10.1.0.4", dst="02:00:00:00:00:99"),            # another host's
        udp("10.1.0.5", dst="02:00:00:00:00:02"),            # another host's
        udp("10.1.0.6", dst="01:00:5e:01:02:03"),            # a group not subscribed
    ]
    r, errs, _, out = run(run_vpk, tmp_path, frames)
    assert r["forwarded"] == 3 and r["dropped"] == 3
    assert count(errs, "ethernet-input", "another host") == 3
    assert sorted(IP(o[14:]).dst for o in out) == ["10.1.0.1", "10.1.0.2", "10.1.0.3"]


def test_promisc_and_multicast_options(run_vpk, tmp_path):
    frames = [udp("10.1.0.4", dst="02:00:00:00:00:99"), udp("10.1.0.6", dst="01:00:5e:01:02:03")]
    r, errs, _, _ = run(run_vpk, tmp_path, frames, opt=" promisc on")
    assert r["forwarded"] == 2 and count(errs, "ethernet-input", "another host") == 0
    r, errs, _, _ = run(run_vpk, tmp_path, frames, opt=" multicast 01:00:5e:01:02:03")
    assert r["forwarded"] == 1 and count(errs, "ethernet-input", "another host") == 1


def test_vlan_sub_interfaces_in_and_out(run_vpk, tmp_path):
    frames = [
        udp("10.1.1.1", tags=[Dot1Q(vlan=100)]),                       # eth0.100
        udp("10.1.1.2", tags=[Dot1AD(vlan=200), Dot1Q(vlan=300)]),     # eth0.200.300 (802.1ad)
        udp("10.1.1.3", tags=[Dot1Q(vlan=400), Dot1Q(vlan=500)]),      # eth0.400.500 (Q-in-Q)
        udp("10.1.1.4", tags=[Dot1Q(vlan=0)]),                         # priority tag: the port
        udp("10.1.1.5", tags=[Dot1Q(vlan=101)]),                       # no sub-interface
        udp("10.1.1.6", tags=[Dot1Q(vlan=200), Dot1Q(vlan=300)]),      # wrong outer TPID
        udp("10.1.1.7", tags=[Dot1AD(vlan=200), Dot1Q(vlan=301)]),     # wrong inner VID
        udp("10.1.1.8", tags=[Dot1AD(vlan=200)]),                      # outer tag alone
        udp("10.7.0.1"),                                               # out on eth1.7
        udp("10.8.0.1", tags=[Dot1Q(vlan=100)]),                       # eth0.100 -> eth1.8.9
    ]
    r, errs, ifs, out = run(run_vpk, tmp_path, frames)
    assert count(errs, "ethernet-input", "no sub-interface") == 4
    assert r["forwarded"] == 6 and r["dropped"] == 4
    assert ifs["eth1"]["tx"] == 4 and ifs["eth1.7"]["tx"] == 1 and ifs["eth1.8.9"]["tx"] == 1
    by_dst = {}
    for o in out:
        e = Ether(o)
        by_dst[e[IP].dst] = e
    for ip in ("10.1.1.1", "10.1.1.2", "10.1.1.3", "10.1.1.4"):
        e = by_dst[ip]
        assert Dot1Q not in e and Dot1AD not in e and e.type == 0x0800 and e.dst == N1 and e.src == MAC1
    e = by_dst["10.7.0.1"]
    assert e.dst == N7 and e.src == MAC1 and e.type == 0x8100 and e[Dot1Q].vlan == 7
    assert e[Dot1Q].type == 0x0800 and e[IP].ttl == 63
    raw = bytes(by_dst["10.8.0.1"])
    assert raw[12:22].hex() == "88a80008810000090800"            # 802.1ad 8, 802.1Q 9, IPv4
    assert IP(raw[22:]).ttl == 63 and len(raw) == len(bytes(udp("10.8.0.1"))) + 8


def test_sub_interface_config_errors(run_vpk, tmp_path):
    for line, why in (("interface eth0.5000", "1..4094"), ("interface eth0.0", "1..4094"),
                      ("interface eth0.100 mac 02:00:00:00:00:05", "takes only"),
                      ("interface eth0.100 tpid 0x9100", "takes only"),
                      ("interface eth0 promisc maybe", "promisc"),
                      ("interface eth0 multicast 02:00:00:00:00:01", "group MAC")):
        cfg = tmp_path / "bad.conf"
        cfg.write_text(f"interface eth0 in {tmp_path}/x.pcap\n{line}\n")
        p = run_vpk("fwd", "--config", str(cfg))
        assert p.returncode != 0 and why in p.stderr and "bad.conf:2" in p.stderr, (line, p.stderr)
    cfg.write_text(f"interface eth0 in {tmp_path}/x.pcap\ninterface eth0.7\ninterface eth0.7 tpid 0x88a8\n"
                   f"interface eth0.07\ninterface eth0.007 tpid 0x88a8\n")
    p = run_vpk("fwd", "--config", str(cfg))
    assert p.returncode != 0 and "bad.conf:5" in p.stderr and "same tags" in p.stderr, p.stderr
