"""The control socket of `vpk fwd` and its client `vpk ctl`: shows, live changes, refusals."""
import json
import os
import stat
import subprocess
import shutil
import tempfile
import time

import pytest
from scapy.all import IP, UDP, Ether, Raw
from scapy.utils import PcapWriter

CONFIG = """interface a mac 02:00:00:00:00:01 {inp}
interface b mac 02:00:00:00:00:02 out discard
neighbor 1 02:aa:00:00:00:01 dev b
route add 10.1.0.0/16 via 1
route add 2001:db8:1::/48 via 1
"""


class Fwd:
    """A `vpk fwd --cli-socket` in the background; stopped with SIGTERM."""

    def __init__(self, vpk_bin, tmp_path, cfg_extra="", args=(), sock=None):
        self.vpk = vpk_bin
        self.sock = sock or str(tmp_path / "cli.sock")
        cfg = tmp_path / "fwd.cfg"
        cfg.write_text(cfg_extra)
        self.p = subprocess.Popen([vpk_bin, "fwd", "--config", str(cfg), "--cli-socket", self.sock, *args],
                                  stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True)
        deadline = time.time() + 20
        while not os.path.exists(self.sock):
            if self.p.poll() is not None or time.time() > deadline:
                out, err = self.p.communicate(timeout=5)
                raise AssertionError(f"vpk fwd did not open its socket: {err}")
            time.sleep(0.02)

    def ctl(self, *cmd, check=True):
        p = subprocess.run([self.vpk, "ctl", "--socket", self.sock, *cmd], capture_output=True, text=True,
                           timeout=60)
        if check:
            assert p.returncode == 0, f"vpk ctl {' '.join(cmd)}: {p.stderr}"
        return p

    def json(self, *cmd):
        return json.loads(self.ctl(*cmd, "--json").stdout)

    def stop(self):
        self.p.terminate()
        out, err = self.p.communicate(timeout=20)
        return self.p.returncode, out, err


@pytest.fixture
def fwd_idle(vpk_bin, tmp_path):
    f = Fwd(vpk_bin, tmp_path, CONFIG.format(inp=""))
    yield f
    f.stop()


def test_socket_mode_and_cleanup(vpk_bin, tmp_path):
    f = Fwd(vpk_bin, tmp_path, CONFIG.format(inp=""))
    assert stat.S_IMODE(os.stat(f.sock).st_mode) == 0o600
    rc, _, err = f.stop()
    assert rc == 0, err
    assert not os.path.exists(f.sock)


def test_show_with_no_graph(fwd_idle):
    """A forwarder with no input port runs no graph: every show answers, none crashes it."""
    f = fwd_idle
    assert "no trace" in f.ctl("show", "trace").stdout
    assert f.json("show", "trace")["trace"] == []
    for cmd in (("show", "runtime"), ("show", "errors"), ("show", "interface"), ("show", "node")):
        f.ctl(*cmd, check=False)
    assert f.p.poll() is None, "vpk fwd exited on a show command"


def test_fib_json_and_live_routes(fwd_idle):
    f = fwd_idle
    fib = f.json("show", "fib")
    assert [r["prefix"] for r in fib["ipv4"]] == ["10.1.0.0/16"]
    assert [r["prefix"] for r in fib["ipv6"]] == ["2001:db8:1::/48"]
    assert fib["ipv4"][0]["via"] == 1 and fib["ipv4"][0]["interface"] == "b"
    f.ctl("route", "add", "10.2.3.0/24", "via", "1")
    f.ctl("route", "add", "2001:db8:2::/64", "via", "1")
    f.ctl("route", "del", "10.1.0.0/16")
    fib = f.json("show", "fib")
    assert [r["prefix"] for r in fib["ipv4"]] == ["10.2.3.0/24"]
    assert sorted(r["prefix"] for r in fib["ipv6"]) == ["2001:db8:1::/48", "2001:db8:2::/64"]
    assert f.json("show", "fib", "10.2.3.0/24")["ipv4"] == [{"prefix": "10.2.3.0/24", "via": 1, "interface": "b"}]
    assert f.json("show", "fib", "10.2.0.0/16")["ipv4"] == []        # exact prefixes only
    assert f.json("show", "fib", "2001:db8:2::/64")["ipv6"][0]["via"] == 1
    f.ctl("neighbor", "2", "02:bb:00:00:00:02", "dev", "a")
    nb = {n["id"]: n for n in f.json("show", "neighbors")["neighbors"]}
    assert nb[2]["mac"] == "02:bb:00:00:00:02" and nb[2]["interface"] == "a"
    f.ctl("neighbor", "del", "2")
    assert 2 not in {n["id"] for n in f.json("show", "neighbors")["neighbors"]}


def test_bad_commands_one_line_as_the_config_file(fwd_idle, vpk_bin, tmp_path):
    f = fwd_idle
    for line in ("route add 10.0.0/8 via 1", "route add 10.0.0.0/8 via 0", "neighbor 1 zz dev b",
                 "frobnicate", "route del 10.99.0.0/16"):
        p = f.ctl(*line.split(), check=False)
        assert p.returncode == 1 and p.stdout == "", line
        msg = p.stderr.strip()
        assert len(msg.splitlines()) == 1, msg
        # The same reason as `vpk fwd --config` gives for that line.
        cfg = tmp_path / "bad.cfg"
        cfg.write_text(CONFIG.format(inp="") + line + "\n")
        q = subprocess.run([vpk_bin, "fwd", "--config", str(cfg)], capture_output=True, text=True, timeout=30)
        assert q.returncode != 0 and msg in q.stderr, (msg, q.stderr)
    assert f.ctl("show", "bogus", check=False).returncode == 1
    # Configuration that cannot change under running graphs is refused only then; here none runs.
    assert [r["prefix"] for r in f.json("show", "fib")["ipv4"]] == ["10.1.0.0/16"]


def test_unprivileged_peer_refused(vpk_bin, tmp_path):
    if os.geteuid() != 0 or not os.path.exists("/usr/bin/python3"):
        pytest.skip("needs root (to run a client as nobody) and /usr/bin/python3")
    sdir = tempfile.mkdtemp(prefix="vpk-ctl-")       # reachable by nobody, unlike pytest's tmp_path
    os.chmod(sdir, 0o755)
    f = Fwd(vpk_bin, tmp_path, CONFIG.format(inp=""), sock=os.path.join(sdir, "cli.sock"))
    try:
        unprivileged_checks(f)
    finally:
        f.stop()
        shutil.rmtree(sdir, ignore_errors=True)


def unprivileged_checks(f):
    code = ("import socket,sys\n"
            "s=socket.socket(socket.AF_UNIX)\n"
            "try:\n s.connect(sys.argv[1])\nexcept PermissionError:\n print('EACCES'); sys.exit(0)\n"
            "s.sendall(b'route add 10.66.0.0/16 via 1\\n'); s.shutdown(socket.SHUT_WR)\n"
            "print(s.makefile().read())\n")
    # The socket file is 0600: another user cannot even connect.
    p = subprocess.run(["/usr/bin/python3", "-c", code, f.sock], user=65534, group=65534, capture_output=True,
                       text=True, timeout=30)
    assert p.stdout.strip() == "EACCES", p.stdout + p.stderr
    # Widened by mistake: the forwarder still checks the peer's credentials.
    os.chmod(f.sock, 0o666)
    p = subprocess.run(["/usr/bin/python3", "-c", code, f.sock], user=65534, group=65534, capture_output=True,
                       text=True, timeout=30)
    assert p.stdout.startswith("-13\npermission denied"), p.stdout + p.stderr
    assert "10.66.0.0/16" not in [r["prefix"] for r in f.json("show", "fib")["ipv4"]]


def write_pcap(path, n):
    w = PcapWriter(str(path), linktype=1, sync=True)
    for i in range(n):
        dst = "10.1.0.5" if i % 4 else "10.77.0.1"      # one in four has no route
        w.write(bytes(Ether(src="02:00:00:00:00:10", dst="02:00:00:00:00:01") / IP(src="192.168.0.1", dst=dst)
                      / UDP(sport=1000 + i, dport=53) / Raw(b"x" * 18)))
    w.close()


def test_runtime_errors_interface_after_a_run(vpk_bin, tmp_path):
    pcap = tmp_path / "in.pcap"
    write_pcap(pcap, 400)
    f = Fwd(vpk_bin, tmp_path, CONFIG.format(inp=f"in {pcap}"))
    try:
        deadline = time.time() + 20
        while time.time() < deadline:
            rt = f.json("show", "runtime")
            if rt["threads"] and any(n["name"] == "interface-output" for n in rt["threads"][0]["nodes"]):
                break
            time.sleep(0.05)
        nodes = {n["name"]: n for n in rt["threads"][0]["nodes"]}
        assert nodes["ip4-lookup"]["vectors"] == 400
        assert nodes["interface-output"]["vectors"] == 300
        assert nodes["error-drop"]["vectors"] == 100
        text = f.ctl("show", "runtime").stdout
        assert text.startswith("Thread 0 vpk_wk_0\nTime ")
        assert "vector rates in" in text
        assert text.splitlines()[3].split() == ["Name", "State", "Calls", "Vectors", "Suspends", "Clocks",
                                                "Vectors/Call"]
        errs = f.json("show", "errors")["errors"]
        assert {(e["node"], e["count"]) for e in errs} >= {("ip4-lookup", 100)}
        ifs = {i["name"]: i for i in f.json("show", "interface")["interfaces"]}
        assert ifs["a"]["rx"] == 400 and ifs["b"]["tx"] == 300
        assert f.json("show", "node", "ip4-lookup")["vectors"] == 400
        # clear: idle nodes are hidden, `verbose` shows them with zeros.
        f.ctl("clear", "runtime")
        assert f.json("show", "runtime")["threads"][0]["nodes"] == []
        verbose = f.json("show", "runtime", "verbose")["threads"][0]["nodes"]
        assert verbose and all(n["vectors"] == 0 for n in verbose)
        assert f.json("show", "errors")["errors"] == []
        # Graphs exist: routes change live, interfaces do not.
        f.ctl("route", "add", "10.77.0.0/16", "via", "1")
        p = f.ctl("interface", "c", check=False)
        assert p.returncode == 1 and "cannot change while the forwarder runs" in p.stderr
        # Refusals say why, in one line.
        p = f.ctl("run-limit", "5", check=False)
        assert p.returncode == 1 and "cannot change while the forwarder runs (live: " in p.stderr
        assert len(p.stderr.strip().splitlines()) == 1
        # Tunnel lines apply live; their errors are the configuration file's.
        f.ctl("vxlan", "tunnel", "src", "10.0.0.1", "dst", "10.0.0.2", "vni", "5")
        p = f.ctl("vxlan", "tunnel", "src", "10.0.0.1", "dst", "10.0.0.2", "vni", "5", check=False)
        assert p.returncode == 1 and "exists" in p.stderr
        f.ctl("vxlan", "tunnel", "src", "10.0.0.1", "dst", "10.0.0.2", "vni", "5", "del")
        f.ctl("sr", "policy", "bsid", "c1::1", "segments", "c2::1")
        p = f.ctl("sr", "policy", "bsid", "c1::1", "segments", "c2::1", check=False)
        assert p.returncode == 1 and "BSID c1::1 exists" in p.stderr
        # Interface state does change live.
        f.ctl("interface", "b", "down")
        ifs = {i["name"]: i for i in f.json("show", "interface")["interfaces"]}
        assert ifs["b"]["state"] == "down" and ifs["a"]["state"] == "up"
        f.ctl("interface", "b", "up")
        assert {i["name"]: i for i in f.json("show", "interface")["interfaces"]}["b"]["state"] == "up"
        # acl load replaces the (empty) ACL stage live
        rules = tmp_path / "r.acl"
        rules.write_text("@0.0.0.0/0 10.1.0.0/16 0 : 65535 53 : 53 17/0xff\n")
        f.ctl("acl", "load", str(rules))
        assert f.json("show", "acl")["ipv4"]["rules"] == 1
    finally:
        rc, _, err = f.stop()
    assert rc == 0, err


def test_interactive_prompt(fwd_idle, tmp_path):
    """`vpk ctl` alone reads commands line by line (readline) until quit, keeping a history file."""
    f = fwd_idle
    env = dict(os.environ, HOME=str(tmp_path))
    p = subprocess.run([f.vpk, "ctl", "--socket", f.sock], input="route add 10.5.0.0/16 via 1\nshow fib\nbogus\nquit\n",
                       capture_output=True, text=True, timeout=60, env=env)
    assert p.returncode == 0, p.stderr
    assert "10.5.0.0/16" in p.stdout and "unknown command 'bogus'" in p.stderr
    assert "show fib" in (tmp_path / ".vpk_ctl_history").read_text()


def test_runtime_one_section_per_worker(vpk_bin, tmp_path):
    pcap = tmp_path / "in.pcap"
    write_pcap(pcap, 400)
    f = Fwd(vpk_bin, tmp_path, CONFIG.format(inp=f"in {pcap}"), args=("--workers", "2"))
    try:
        deadline = time.time() + 20
        while True:
            threads = f.json("show", "runtime")["threads"]
            total = sum(n["vectors"] for t in threads for n in t["nodes"] if n["name"] == "interface-output")
            if total == 300 or time.time() > deadline:
                break
            time.sleep(0.05)
        assert [t["thread"] for t in threads] == [0, 1]
        assert total == 300
        assert sum(n["vectors"] for t in threads for n in t["nodes"] if n["name"] == "ip4-lookup") == 400
        text = f.ctl("show", "runtime").stdout
        assert "Thread 0 vpk_wk_0" in text and "Thread 1 vpk_wk_1" in text
        errs = {(e["node"], e["reason"]): e["count"] for e in f.json("show", "errors")["errors"]}
        assert sum(c for (node, _), c in errs.items() if node == "ip4-lookup") == 100
    finally:
        rc, _, err = f.stop()
    assert rc == 0, err
