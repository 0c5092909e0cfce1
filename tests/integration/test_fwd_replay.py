"""`vpk fwd` with replayed inputs (`interface NAME in FILE loop [N]`, `--in IF=F --loop[=N]`):
the capture is read once and replayed from memory, packet for packet as a plain run forwards it."""
import json

from scapy.all import IP, UDP, Ether, Raw, rdpcap, wrpcap

CONFIG = """interface eth0 mac 02:00:00:00:00:01 in {inp}{loop}
interface eth1 mac 02:00:00:00:01:01 out {out1}
neighbor 1 02:aa:00:00:00:01 dev eth1
route add 10.1.0.0/16 via 1
{extra}"""


def packets():
    return [Ether(src="02:00:00:00:00:10", dst="02:00:00:00:00:01") /
            IP(src="192.168.0.1", dst=f"10.1.{i}.{i + 1}", ttl=64) / UDP(sport=1000 + i, dport=53) /
            Raw(bytes([i]) * (18 + i)) for i in range(7)] + \
           [Ether() / IP(dst="172.16.0.1") / UDP()]       # no route: dropped on every pass


def setup(tmp_path, loop="", extra=""):
    inp, out1 = tmp_path / "in.pcap", tmp_path / "out1.pcap"
    wrpcap(str(inp), packets())
    cfg = tmp_path / "fwd.conf"
    cfg.write_text(CONFIG.format(inp=inp, out1=out1, loop=loop, extra=extra))
    return str(cfg), str(inp), str(out1)


def run(run_vpk, *args):
    p = run_vpk("--json", "fwd", *args)
    assert p.returncode == 0, p.stderr
    return json.loads(p.stdout)["runs"][0]


def test_loop_n_replays_the_capture_n_times(run_vpk, tmp_path):
    cfg, _, out1 = setup(tmp_path)
    once = run(run_vpk, "--config", cfg)
    one_pass = [bytes(p) for p in rdpcap(out1)]
    assert once["packets"] == 8 and len(one_pass) == 7
    cfg, _, out1 = setup(tmp_path, loop=" loop 3")
    r = run(run_vpk, "--config", cfg)
    assert r["packets"] == 24 and r["forwarded"] == 21 and r["dropped"] == 3
    assert [bytes(p) for p in rdpcap(out1)] == one_pass * 3


def test_cli_loop_option(run_vpk, tmp_path):
    cfg, inp, out1 = setup(tmp_path)
    one = [bytes(p) for p in (run(run_vpk, "--config", cfg), rdpcap(out1))[1]]
    r = run(run_vpk, "--in", f"eth0={inp}", "--out", f"eth1={out1}", "--loop=2",
            "--config", str(tmp_path / "fwd.conf"))
    assert r["packets"] == 16
    assert [bytes(p) for p in rdpcap(out1)] == one * 2


def test_endless_loop_stops_at_run_limit(run_vpk, tmp_path):
    cfg, _, out1 = setup(tmp_path, loop=" loop", extra="run-limit packets 1000\n")
    r = run(run_vpk, "--config", cfg)
    assert r["packets"] == 1000
    assert len(rdpcap(out1)) == 1000 - 1000 // 8
    cfg, inp, _ = setup(tmp_path)
    r = run(run_vpk, "--config", cfg, "--in", f"eth0={inp}", "--loop", "--count", "500")
    assert r["packets"] == 500


def test_loop_refused_with_a_reason(run_vpk, tmp_path):
    for line, why in (("interface eth1 mac 02:00:00:00:01:01 loop", "'loop' replays an input"),
                      ("interface eth0 in x.pcap loop 0", "want a count"),
                      ("interface eth0 in x.pcap loop 12x", "want a count"),
                      ("interface eth0 live lo loop", "'loop' replays an input")):
        cfg = tmp_path / "bad.conf"
        cfg.write_text(line + "\n")
        p = run_vpk("fwd", "--config", str(cfg))
        assert p.returncode == 2, (line, p.stderr)
        assert "bad.conf:1" in p.stderr and why in p.stderr, (line, p.stderr)


def test_poll_size_doubles_in_a_graph_that_classifies(run_vpk, tmp_path):
    """64 packets a poll (a NIC's rx burst); 128 when the graph has the ACL stage."""
    rules = tmp_path / "rules.txt"
    rules.write_text("@192.0.2.1/32\t198.51.100.1/32\t0 : 65535\t0 : 65535\t0x00/0x00\n")
    for extra, want in (("", 64), (f"acl load {rules}\n", 128)):
        cfg, _, _ = setup(tmp_path, loop=" loop", extra="run-limit packets 1280\n" + extra)
        r = run(run_vpk, "--config", cfg)
        eth = [n for n in r["nodes"] if n["name"] == "ethernet-input"][0]
        assert r["packets"] == 1280 and eth["vectors_per_call"] == want, (extra, eth)
