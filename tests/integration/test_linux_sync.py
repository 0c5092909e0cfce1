"""linux-sync: vpk's FIB follows the kernel's routing table of a network namespace.

Each test makes its own namespace (names start with "ctl"), changes routes
with `ip -batch` (add, replace, delete; 100k routes) and, after each step,
waits until `vpk ctl show fib --json` lists exactly the prefixes and
gateways of `ip -j route show table main`. Everything is deleted afterwards,
also on failure. Without root or namespaces the tests skip.
"""
import ipaddress
import itertools
import json
import os
import shutil
import signal
import subprocess
import time

import pytest

_seq = itertools.count()
N_ROUTES = 100_000


def sh(*args, check=True, timeout=120, input=None):
    p = subprocess.run(list(args), capture_output=True, text=True, timeout=timeout, input=input)
    if check and p.returncode != 0:
        raise RuntimeError(f"{' '.join(args)}: {p.stderr.strip()}")
    return p


@pytest.fixture
def netns():
    if os.geteuid() != 0:
        pytest.skip("linux-sync tests need root (network namespaces)")
    name = f"ctlls{os.getpid() % 10000}{next(_seq)}"
    if sh("ip", "netns", "add", name, check=False).returncode != 0:
        pytest.skip("cannot create a network namespace here")
    try:
        sh("ip", "-n", name, "link", "add", "ctlv0", "type", "veth", "peer", "name", "ctlv1")
        for dev in ("lo", "ctlv0", "ctlv1"):
            sh("ip", "-n", name, "link", "set", dev, "up")
        sh("ip", "-n", name, "addr", "add", "10.9.0.1/24", "dev", "ctlv0")
        sh("ip", "-n", name, "-6", "addr", "add", "2001:db8:9::1/64", "dev", "ctlv0", "nodad")
        for gw, mac in (("10.9.0.2", "02:11:00:00:00:02"), ("10.9.0.3", "02:11:00:00:00:03")):
            sh("ip", "-n", name, "neigh", "add", gw, "lladdr", mac, "dev", "ctlv0", "nud", "permanent")
        yield name
    finally:
        sh("ip", "netns", "del", name, check=False)


class Vpk:
    def __init__(self, vpk_bin, tmp_path, ns, extra=""):
        self.vpk = vpk_bin
        self.sock = str(tmp_path / "cli.sock")
        cfg = tmp_path / "ls.cfg"
        cfg.write_text(f"interface ctlv0\nlinux-sync netns {ns} {extra}\n")
        self.p = subprocess.Popen([vpk_bin, "fwd", "--config", str(cfg), "--cli-socket", self.sock],
                                  stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True)
        deadline = time.time() + 30
        while not os.path.exists(self.sock):
            if self.p.poll() is not None or time.time() > deadline:
                raise AssertionError(f"vpk fwd did not start: {self.p.communicate(timeout=5)[1]}")
            time.sleep(0.02)

    def json(self, *cmd):
        p = subprocess.run([self.vpk, "ctl", "--socket", self.sock, *cmd, "--json"], capture_output=True,
                           text=True, timeout=120)
        assert p.returncode == 0, p.stderr
        return json.loads(p.stdout)

    def ctl_text(self, *cmd):
        p = subprocess.run([self.vpk, "ctl", "--socket", self.sock, *cmd], capture_output=True, text=True,
                           timeout=120)
        assert p.returncode == 0, p.stderr
        return p.stdout

    def fib(self):
        out = {}
        for fam in ("ipv4", "ipv6"):
            for r in self.json("show", "fib")[fam]:
                # The interfaces' own addresses (the kernel's local table) and on-link hosts (its
                # neighbour table) are not in the kernel's main table.
                if not r.get("local") and not r.get("host"):
                    gw = tuple(sorted(p["gateway"] for p in r["paths"])) if "paths" in r else r.get("gateway", "?")
                    out[str(ipaddress.ip_network(r["prefix"]))] = gw
        return out

    def stop(self):
        self.p.terminate()
        _, err = self.p.communicate(timeout=30)
        assert self.p.returncode == 0, err


def kernel_fib(ns):
    """prefix -> gateway ("" on link, "drop" for blackhole-like), None when a prefix is there twice."""
    out = {}
    for fam in ("-4", "-6"):
        for r in json.loads(sh("ip", "-j", fam, "-n", ns, "route", "show", "table", "main").stdout or "[]"):
            dst = r["dst"]
            if dst == "default":
                dst = "0.0.0.0/0" if fam == "-4" else "::/0"
            net = str(ipaddress.ip_network(dst, strict=False))
            if r.get("type") in ("blackhole", "unreachable", "prohibit"):
                gw = "drop"
            elif len(r.get("nexthops", [])) > 1:      # ECMP: the set of paths
                gw = tuple(sorted(h.get("gateway", "") for h in r["nexthops"]))
            else:
                gw = r.get("gateway") or (r["nexthops"][0].get("gateway", "") if "nexthops" in r else "")
            out[net] = None if net in out else gw
    return out


def same(vpk_fib, kern):
    if set(vpk_fib) != set(kern):
        return False
    return all(g is None or vpk_fib[p] == g for p, g in kern.items())


def wait_equal(v, ns, timeout=90):
    deadline = time.time() + timeout
    while True:
        kern, mine = kernel_fib(ns), v.fib()
        if same(mine, kern):
            return kern
        if time.time() > deadline:
            missing = sorted(set(kern) - set(mine))[:5]
            extra = sorted(set(mine) - set(kern))[:5]
            wrong = [(p, g, mine.get(p)) for p, g in kern.items() if g is not None and p in mine
                     and mine[p] != g][:5]
            raise AssertionError(f"vpk FIB != kernel: {len(kern)} vs {len(mine)} prefixes; missing {missing}, "
                                 f"extra {extra}, wrong gateway {wrong}")
        time.sleep(0.2)


def v4_prefix(i):
    return f"{ipaddress.IPv4Address(0x10000000 + (i << 8))}/24"


def batch(ns, lines):
    sh("ip", "-n", ns, "-batch", "-", input="\n".join(lines) + "\n", timeout=300)


def test_start_dump_and_small_changes(vpk_bin, tmp_path, netns):
    sh("ip", "-n", netns, "route", "add", "10.50.0.0/16", "via", "10.9.0.2")
    v = Vpk(vpk_bin, tmp_path, netns)
    try:
        k = wait_equal(v, netns)
        assert k["10.50.0.0/16"] == "10.9.0.2" and k["10.9.0.0/24"] == ""
        # The gateway's neighbour makes a complete adjacency on vpk's interface of that name.
        nb = [n for n in v.json("show", "neighbors")["neighbors"] if n.get("gateway") == "10.9.0.2"]
        assert nb and nb[0]["valid"] and nb[0]["mac"] == "02:11:00:00:00:02" and nb[0]["interface"] == "ctlv0"
        batch(netns, ["route add blackhole 10.70.0.0/16", "route add 0.0.0.0/0 via 10.9.0.3",
                      "route add 2001:db8:77::/48 via 2001:db8:9::5", "route del 10.50.0.0/16"])
        k = wait_equal(v, netns)
        assert k["10.70.0.0/16"] == "drop" and "10.50.0.0/16" not in k and k["0.0.0.0/0"] == "10.9.0.3"
        # ECMP: every path, in the kernel's order; the first is the route's gateway.
        sh("ip", "-n", netns, "route", "add", "10.90.0.0/16", "nexthop", "via", "10.9.0.2", "nexthop", "via",
           "10.9.0.3")
        wait_equal(v, netns)
        r = v.json("show", "fib", "10.90.0.0/16")["ipv4"][0]
        assert [p["gateway"] for p in r["paths"]] == ["10.9.0.2", "10.9.0.3"] and r["gateway"] == "10.9.0.2"
        assert "ecmp 2: 10.9.0.2 dev ctlv0, 10.9.0.3 dev ctlv0" in v.ctl_text("show", "fib", "10.90.0.0/16")
        sh("ip", "-n", netns, "route", "replace", "10.90.0.0/16", "via", "10.9.0.3")
        wait_equal(v, netns)
        assert "paths" not in v.json("show", "fib", "10.90.0.0/16")["ipv4"][0]
        sh("ip", "-n", netns, "route", "del", "10.90.0.0/16")
        # IPv6 keeps multipath routes as siblings: a path is added and deleted on its own.
        sh("ip", "-n", netns, "-6", "route", "add", "2001:db8:90::/48", "nexthop", "via", "2001:db8:9::2",
           "nexthop", "via", "2001:db8:9::3")
        sh("ip", "-n", netns, "-6", "route", "append", "2001:db8:90::/48", "via", "2001:db8:9::4")
        k = wait_equal(v, netns)
        assert k["2001:db8:90::/48"] == ("2001:db8:9::2", "2001:db8:9::3", "2001:db8:9::4")
        sh("ip", "-n", netns, "-6", "route", "del", "2001:db8:90::/48", "via", "2001:db8:9::2")
        k = wait_equal(v, netns)
        assert k["2001:db8:90::/48"] == ("2001:db8:9::3", "2001:db8:9::4")
        sh("ip", "-n", netns, "-6", "route", "del", "2001:db8:90::/48", "via", "2001:db8:9::3")
        k = wait_equal(v, netns)
        assert k["2001:db8:90::/48"] == "2001:db8:9::4"
        assert "paths" not in v.json("show", "fib", "2001:db8:90::/48")["ipv6"][0]
        sh("ip", "-n", netns, "-6", "route", "del", "2001:db8:90::/48")
        # A route of another table is not ours.
        sh("ip", "-n", netns, "route", "add", "10.80.0.0/16", "via", "10.9.0.2", "table", "100")
        time.sleep(0.3)
        assert "10.80.0.0/16" not in v.fib()
        st = v.json("show", "linux-sync")
        assert st["route_adds"] >= 4 and st["route_dels"] >= 1
        assert any(a["address"] == "10.9.0.1/24" and a["dev"] == "ctlv0" and a["local"] for a in st["addresses"])
        # The interface's addresses are the router's own: host routes to "local".
        assert v.json("show", "fib", "10.9.0.1/32")["ipv4"][0]["local"]
        assert v.json("show", "fib", "2001:db8:9::1/128")["ipv6"][0]["local"]
        sh("ip", "-n", netns, "addr", "del", "10.9.0.1/24", "dev", "ctlv0")
        deadline = time.time() + 10
        while v.json("show", "fib", "10.9.0.1/32")["ipv4"] and time.time() < deadline:
            time.sleep(0.1)
        assert not v.json("show", "fib", "10.9.0.1/32")["ipv4"]
        assert not any(a["address"] == "10.9.0.1/24" for a in v.json("show", "linux-sync")["addresses"])
    finally:
        v.stop()


def test_100k_routes_add_replace_delete(vpk_bin, tmp_path, netns):
    v = Vpk(vpk_bin, tmp_path, netns)
    try:
        wait_equal(v, netns)
        hops = v.json("show", "linux-sync")["next_hops"]
        batch(netns, [f"route add {v4_prefix(i)} via 10.9.0.2" for i in range(N_ROUTES)]
              + [f"route add 2001:db8:100:{i:x}::/64 via 2001:db8:9::2" for i in range(1000)])
        k = wait_equal(v, netns)
        assert len(k) > N_ROUTES
        batch(netns, [f"route replace {v4_prefix(i)} via 10.9.0.3" for i in range(0, N_ROUTES, 3)])
        k = wait_equal(v, netns)
        assert k[v4_prefix(3)] == "10.9.0.3" and k[v4_prefix(4)] == "10.9.0.2"
        batch(netns, [f"route del {v4_prefix(i)}" for i in range(N_ROUTES)]
              + [f"route del 2001:db8:100:{i:x}::/64" for i in range(1000)])
        k = wait_equal(v, netns)
        assert len(k) < 10
        # Next hops no route uses any more are given back.
        assert v.json("show", "linux-sync")["next_hops"] == hops
    finally:
        v.stop()


def gw_neighbor(v, gw):
    nb = [n for n in v.json("show", "neighbors")["neighbors"] if n.get("gateway") == gw]
    assert len(nb) == 1, nb
    return nb[0]


def test_overflow_resync(vpk_bin, tmp_path, netns):
    """Notifications lost while vpk does not read (stopped; a small receive buffer): vpk dumps again."""
    v = Vpk(vpk_bin, tmp_path, netns, extra="rcvbuf 65536")
    try:
        sh("ip", "-n", netns, "route", "add", "10.60.0.0/16", "via", "10.9.0.3")
        wait_equal(v, netns)
        assert gw_neighbor(v, "10.9.0.3")["valid"]
        v.p.send_signal(signal.SIGSTOP)
        try:
            batch(netns, [f"route add {v4_prefix(i)} via 10.9.0.2" for i in range(20000)])
            # Lost with the overflow: the resync must notice the neighbour is gone.
            sh("ip", "-n", netns, "neigh", "del", "10.9.0.3", "dev", "ctlv0")
        finally:
            v.p.send_signal(signal.SIGCONT)
        batch(netns, [f"route add {v4_prefix(i)} via 10.9.0.2" for i in range(20000, N_ROUTES)])
        wait_equal(v, netns)
        batch(netns, [f"route del {v4_prefix(i)}" for i in range(0, N_ROUTES, 2)])
        wait_equal(v, netns)
        st = v.json("show", "linux-sync")
        assert st["enobufs"] >= 1 and st["resyncs"] >= 1, st
        assert not gw_neighbor(v, "10.9.0.3")["valid"]
    finally:
        v.stop()


# SO_NO_CHECK (11): UDP checksum 0. A veth leaves the checksum to offload
# (CHECKSUM_PARTIAL), which a packet socket reading the frame does not fill
# in, so a frame vpk forwards would otherwise reach the far end unchecksummed.
ECHO_SERVER = """
import socket, sys
s = socket.socket(socket.AF_INET, socket.SOCK_DGRAM)
s.setsockopt(socket.SOL_SOCKET, 11, 1)
s.bind((sys.argv[1], 5000))
print("ready", flush=True)
while True:
    data, peer = s.recvfrom(2048)
    s.sendto(data, peer)
"""

ECHO_CLIENT = """
import socket, sys
s = socket.socket(socket.AF_INET, socket.SOCK_DGRAM)
s.setsockopt(socket.SOL_SOCKET, 11, 1)
s.bind((sys.argv[1], 0))
s.settimeout(0.5)
got = 0
for i in range(10):
    s.sendto(b"vpk%d" % i, (sys.argv[2], 5000))
    try:
        got += s.recv(2048) == b"vpk%d" % i
    except socket.timeout:
        pass
print(got)
"""


class Routed:
    """h1 (10.10.0.1 behind 10.1.0.2) -- r (vpk, kernel forwarding off) -- h2 (10.20.0.1 behind 10.2.0.2)."""

    def __init__(self):
        sfx = f"{os.getpid() % 10000}{next(_seq)}"
        self.r, self.h1, self.h2 = (f"ctl{x}{sfx}" for x in ("r", "a", "b"))
        self.procs = []
        for ns in (self.r, self.h1, self.h2):
            sh("ip", "netns", "add", ns)
        for i, h in ((1, self.h1), (2, self.h2)):
            sh("ip", "-n", self.r, "link", "add", f"ctlr{i}", "type", "veth", "peer", "name", f"ctlh{i}",
               "netns", h)
            sh("ip", "-n", self.r, "addr", "add", f"10.{i}.0.1/24", "dev", f"ctlr{i}")
            sh("ip", "-n", h, "addr", "add", f"10.{i}.0.2/24", "dev", f"ctlh{i}")
            sh("ip", "-n", h, "addr", "add", f"10.{i}0.0.1/32", "dev", "lo")
            for ns, dev in ((self.r, f"ctlr{i}"), (h, f"ctlh{i}"), (h, "lo")):
                sh("ip", "-n", ns, "link", "set", dev, "up")
            sh("ip", "-n", h, "route", "add", "default", "via", f"10.{i}.0.1")
            sh("ip", "-n", self.r, "neigh", "add", f"10.{i}.0.2", "lladdr", self.mac(h, f"ctlh{i}"), "dev",
               f"ctlr{i}", "nud", "permanent")
        sh("ip", "netns", "exec", self.r, "sysctl", "-qw", "net.ipv4.ip_forward=0")

    @staticmethod
    def mac(ns, dev):
        return json.loads(sh("ip", "-j", "-n", ns, "link", "show", dev).stdout)[0]["address"]

    def spawn(self, ns, *args):
        p = subprocess.Popen(["ip", "netns", "exec", ns, *args], stdout=subprocess.PIPE,
                             stderr=subprocess.PIPE, text=True)
        self.procs.append(p)
        return p

    def start_vpk(self, vpk_bin, tmp_path):
        """vpk fwd in r on both veths with linux-sync and a control socket, once that socket is up."""
        cfg = tmp_path / "r.cfg"
        cfg.write_text(f"interface ctlr1 mac {self.mac(self.r, 'ctlr1')} live ctlr1\n"
                       f"interface ctlr2 mac {self.mac(self.r, 'ctlr2')} live ctlr2\nlinux-sync\n")
        sock = str(tmp_path / "cli.sock")
        fwd = self.spawn(self.r, vpk_bin, "fwd", "--config", str(cfg), "--cli-socket", sock)
        deadline = time.time() + 30
        while not os.path.exists(sock):
            assert fwd.poll() is None and time.time() < deadline, fwd.stderr.read() if fwd.poll() is not None else ""
            time.sleep(0.05)

        class V(Vpk):
            def __init__(self):
                self.vpk, self.sock, self.p = vpk_bin, sock, fwd
        return V()

    def echo_ok(self):
        out = sh("ip", "netns", "exec", self.h1, "python3", "-c", ECHO_CLIENT, "10.10.0.1", "10.20.0.1").stdout
        return int(out.strip() or 0)

    def close(self):
        for p in self.procs:
            if p.poll() is None:
                p.terminate()
                try:
                    p.wait(timeout=10)
                except subprocess.TimeoutExpired:
                    p.kill()
        for ns in (self.r, self.h1, self.h2):
            sh("ip", "netns", "del", ns, check=False)


def kernel_has(ns, cond, timeout=120):
    """Wait until BIRD brought the kernel's table to @cond."""
    deadline = time.time() + timeout
    while not cond(kernel_fib(ns)):
        assert time.time() < deadline, "BIRD did not change the kernel's table in time"
        time.sleep(0.3)


def test_bird_fed_forwarding(vpk_bin, tmp_path):
    """BIRD exports static routes (2 that carry traffic, 100k more) to the kernel; vpk learns them and
    forwards h1 <-> h2 on live interfaces while the kernel does not forward; BIRD withdraws them."""
    if os.geteuid() != 0:
        pytest.skip("needs root (network namespaces)")
    if not shutil.which("bird") or not shutil.which("birdc"):
        pytest.skip("bird2 is not installed (scripts/install-deps.sh installs it)")
    t = Routed()
    try:
        routes = "".join(f"route {v4_prefix(i)} via 10.2.0.2;\n" for i in range(N_ROUTES))
        bird_conf = tmp_path / "bird.conf"
        bird_conf.write_text(f"""router id 10.1.0.1;
protocol device {{ }}
protocol kernel {{ ipv4 {{ export all; }}; }}
protocol static flows {{ ipv4; route 10.10.0.0/16 via 10.1.0.2; route 10.20.0.0/16 via 10.2.0.2; }}
protocol static bulk {{ ipv4;
{routes}}}
""")
        echo = t.spawn(t.h2, "python3", "-c", ECHO_SERVER, "10.20.0.1")
        assert echo.stdout.readline().strip() == "ready"
        v = t.start_vpk(vpk_bin, tmp_path)
        assert t.echo_ok() == 0             # no route yet: neither vpk nor the kernel forwards
        bsock = str(tmp_path / "bird.ctl")
        sh("ip", "netns", "exec", t.r, "bird", "-c", str(bird_conf), "-s", bsock, "-P", str(tmp_path / "bird.pid"))
        try:
            kernel_has(t.r, lambda k: len(k) > N_ROUTES + 1)
            k = wait_equal(v, t.r, timeout=120)
            assert k["10.20.0.0/16"] == "10.2.0.2" and len(k) > N_ROUTES
            assert t.echo_ok() >= 8, "vpk did not forward with the routes BIRD gave the kernel"
            rt = {n["name"]: n for n in v.json("show", "runtime")["threads"][0]["nodes"]}
            assert rt["ip4-lookup"]["vectors"] >= 16
            sh("ip", "netns", "exec", t.r, "birdc", "-s", bsock, "disable", "bulk")
            kernel_has(t.r, lambda k: len(k) < 10)
            k = wait_equal(v, t.r, timeout=120)
            assert len(k) < 10 and "10.20.0.0/16" in k
            sh("ip", "netns", "exec", t.r, "birdc", "-s", bsock, "disable", "flows")
            kernel_has(t.r, lambda k: "10.20.0.0/16" not in k)
            k = wait_equal(v, t.r, timeout=60)
            assert "10.20.0.0/16" not in k
            assert t.echo_ok() == 0
            # The kernel learnt the hosts behind h1 and h2 from their ARP requests (sent from their
            # loopback addresses): not on a link of r, so no host routes for them.
            assert not v.json("show", "fib", "10.20.0.1/32")["ipv4"]
        finally:
            sh("ip", "netns", "exec", t.r, "birdc", "-s", bsock, "down", check=False)
    finally:
        t.close()


PING = """
import socket, struct, sys, time
def csum(b):
    s = sum(struct.unpack("!%dH" % (len(b) // 2), b))
    while s >> 16:
        s = (s & 0xffff) + (s >> 16)
    return ~s & 0xffff
s = socket.socket(socket.AF_INET, socket.SOCK_RAW, socket.IPPROTO_ICMP)
s.bind((sys.argv[1], 0))
s.settimeout(0.3)
got = 0
for i in range(10):
    m = struct.pack("!BBHHH", 8, 0, 0, 0x7670, i) + b"vpkping!"
    s.sendto(m[:2] + struct.pack("!H", csum(m)) + m[4:], (sys.argv[2], 0))
    end = time.time() + 0.3
    while time.time() < end:
        try:
            d, peer = s.recvfrom(2048)
        except socket.timeout:
            break
        h = (d[0] & 15) * 4
        if peer[0] == sys.argv[2] and d[h] == 0 and struct.unpack("!HH", d[h + 4:h + 8]) == (0x7670, i):
            got += 1
            break
print(got)
"""


def test_kernel_address_is_local(vpk_bin, tmp_path):
    """An address the kernel adds to one of vpk's interfaces is the router's own: vpk answers pings to it
    (the kernel is told to ignore them), and stops when the kernel deletes it."""
    if os.geteuid() != 0:
        pytest.skip("needs root (network namespaces)")
    t = Routed()
    try:
        sh("ip", "-n", t.r, "route", "add", "10.10.0.0/16", "via", "10.1.0.2")
        sh("ip", "netns", "exec", t.r, "sysctl", "-qw", "net.ipv4.icmp_echo_ignore_all=1")
        v = t.start_vpk(vpk_bin, tmp_path)
        wait_equal(v, t.r)

        def ping(src="10.10.0.1", dst="10.99.0.1"):
            return int(sh("ip", "netns", "exec", t.h1, "python3", "-c", PING, src, dst).stdout)

        def local():
            return [r for r in v.json("show", "fib", "10.99.0.1/32")["ipv4"] if r.get("local")]

        def answered():
            return sum(e["count"] for e in v.json("show", "errors")["errors"]
                       if e["node"] == "ip4-local" and "echo" in e["reason"])

        assert ping() == 0 and not local()
        sh("ip", "-n", t.r, "addr", "add", "10.99.0.1/32", "dev", "ctlr2")
        deadline = time.time() + 10
        while not local():
            assert time.time() < deadline, "the kernel's new address did not become local"
            time.sleep(0.1)
        before = answered()
        assert ping() >= 8, "vpk did not answer pings to the kernel's address"
        assert answered() - before >= 8
        sh("ip", "-n", t.r, "addr", "del", "10.99.0.1/32", "dev", "ctlr2")
        deadline = time.time() + 10
        while local():
            assert time.time() < deadline, "the deleted address stayed local"
            time.sleep(0.1)
        assert ping() == 0
        # On the link: the interface's own address answers a host of the link, reached through the
        # host route vpk made from the kernel's neighbour entry (10.1.0.2, permanent).
        assert v.json("show", "fib", "10.1.0.2/32")["ipv4"][0]["host"]
        assert ping("10.1.0.2", "10.1.0.1") >= 8
    finally:
        t.close()


def test_interface_down_up_live(vpk_bin, tmp_path):
    """`vpk ctl interface NAME down` stops vpk receiving and sending on it while it forwards; `up` brings
    it back. Routes come from the kernel (linux-sync), which does not forward itself."""
    if os.geteuid() != 0:
        pytest.skip("needs root (network namespaces)")
    t = Routed()
    try:
        sh("ip", "-n", t.r, "route", "add", "10.10.0.0/16", "via", "10.1.0.2")
        sh("ip", "-n", t.r, "route", "add", "10.20.0.0/16", "via", "10.2.0.2")
        echo = t.spawn(t.h2, "python3", "-c", ECHO_SERVER, "10.20.0.1")
        assert echo.stdout.readline().strip() == "ready"
        v = t.start_vpk(vpk_bin, tmp_path)
        wait_equal(v, t.r)

        def state():
            return {i["name"]: i for i in v.json("show", "interface")["interfaces"]}

        def ctl(*cmd):
            p = subprocess.run([vpk_bin, "ctl", "--socket", v.sock, *cmd], capture_output=True, text=True, timeout=30)
            assert p.returncode == 0, p.stderr

        assert t.echo_ok() >= 8
        ctl("interface", "ctlr2", "down")
        assert state()["ctlr2"]["state"] == "down"
        assert t.echo_ok() == 0                 # requests are not sent out of ctlr2
        assert state()["ctlr2"]["tx_admin_down"] >= 10
        ctl("interface", "ctlr1", "down")
        ctl("interface", "ctlr2", "up")
        assert t.echo_ok() == 0                 # requests are not taken in on ctlr1
        errs = v.json("show", "errors")["errors"]
        assert sum(e["count"] for e in errs if "administratively down" in e["reason"]) >= 10
        ctl("interface", "ctlr1", "up")
        assert t.echo_ok() >= 8
        assert state()["ctlr1"]["state"] == "up" and state()["ctlr2"]["state"] == "up"
    finally:
        t.close()


CAPTURE = """
import json, socket, struct, sys, time
s = socket.socket(socket.AF_PACKET, socket.SOCK_RAW, socket.htons(0x0800))
s.bind((sys.argv[1], 0))
s.settimeout(0.2)
print("ready", flush=True)
seen, end = {}, time.time() + float(sys.argv[2])
while time.time() < end:
    try:
        f = s.recv(2048)
    except socket.timeout:
        continue
    if len(f) >= 42 and f[30:34] == socket.inet_aton("10.30.0.1") and f[23] == 17:
        sport = struct.unpack("!H", f[34:36])[0]
        seen.setdefault(sport, set()).add(f[0:6].hex(":"))
print(json.dumps({k: sorted(v) for k, v in seen.items()}))
"""

SEND_FLOWS = """
import socket
for rep in range(3):
    for i in range(64):
        s = socket.socket(socket.AF_INET, socket.SOCK_DGRAM)
        s.setsockopt(socket.SOL_SOCKET, socket.SO_REUSEADDR, 1)
        s.setsockopt(socket.SOL_SOCKET, 11, 1)
        s.bind(("10.10.0.1", 40000 + i))
        s.sendto(b"ecmp", ("10.30.0.1", 5000))
        s.close()
"""


def test_ecmp_flows_spread_and_stick(vpk_bin, tmp_path):
    """A multipath kernel route: vpk sends each flow always to the same path and uses both paths."""
    if os.geteuid() != 0:
        pytest.skip("needs root (network namespaces)")
    t = Routed()
    try:
        other = "02:ec:00:00:00:03"
        sh("ip", "-n", t.r, "neigh", "add", "10.2.0.3", "lladdr", other, "dev", "ctlr2", "nud", "permanent")
        sh("ip", "-n", t.r, "route", "add", "10.30.0.0/16", "nexthop", "via", "10.2.0.2", "nexthop", "via", "10.2.0.3")
        v = t.start_vpk(vpk_bin, tmp_path)
        wait_equal(v, t.r)
        assert len(v.json("show", "fib", "10.30.0.0/16")["ipv4"][0]["paths"]) == 2
        cap = t.spawn(t.h2, "python3", "-c", CAPTURE, "ctlh2", "4")
        assert cap.stdout.readline().strip() == "ready"
        sh("ip", "netns", "exec", t.h1, "python3", "-c", SEND_FLOWS)
        seen = json.loads(cap.communicate(timeout=30)[0])
        assert len(seen) >= 60, f"only {len(seen)} of 64 flows came through"
        assert all(len(macs) == 1 for macs in seen.values()), "a flow changed paths"
        used = {macs[0] for macs in seen.values()}
        assert used == {t.mac(t.h2, "ctlh2"), other}, used
    finally:
        t.close()
