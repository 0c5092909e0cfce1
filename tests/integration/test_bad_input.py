"""Bad input through every door of `vpk`: options, configuration lines, rule,
route and JSON files. Each case must end with a clean one-line error (the
option or FILE:LINE and the reason) and the usage exit code, never a
sanitizer report, a hang or a default silently put in the bad value's place.

A case is (id, argv, files, exit code, regex). In argv, "{d}" is the case's
temporary directory; files maps a name in it to its bytes (or a callable
that makes the file). The same table runs under the ASan+UBSan build
(`make asan`), where a memory error would show in stderr.
"""
import os
import re
import subprocess
import sys

import pytest

USAGE = 2
REASON = r"(empty value|is not a number|is not a finite number|is negative|is out of range|after the number" \
         r"|more than \d+ values)"

# Values every integer option must refuse, and what each must say.
INT_JUNK = ["", "abc", "nan", "-1", "99999999999999999999999", "12x", " 5", "0x"]
REAL_JUNK = ["", "abc", "nan", "inf", "-inf", "1e400", "5x", "0x10"]

# (command words, option, kind): every numeric option of every subcommand.
# kind "int" / "real"; the option is given as a separate word.
OPTIONS = [
    (["fib"], "-n", "int"), (["fib"], "-l", "int"), (["fib"], "-r", "int"), (["fib"], "-e", "int"),
    (["fib"], "-g", "int"), (["fib"], "-R", "int"), (["fib"], "--seed", "int"), (["fib"], "--nh-max", "int"),
    (["gen", "routes"], "-n", "int"), (["gen", "routes"], "-l", "int"), (["gen", "routes"], "-r", "int"),
    (["gen", "routes"], "--seed", "int"), (["gen", "routes"], "--nh-max", "int"),
    (["gen", "acl"], "--rules", "int"), (["gen", "acl"], "--seed", "int"), (["gen", "acl"], "--trace", "int"),
    (["gen", "acl"], "--random-share", "real"),
    (["acl"], "--rulenum", "int"), (["acl"], "--tracenum", "int"), (["acl"], "--tracestep", "int"),
    (["acl"], "--bldcat", "int"), (["acl"], "--runcat", "int"), (["acl"], "--maxsize", "int"),
    (["acl"], "--iter", "int"), (["acl"], "--verbose", "int"),
    (["fwd"], "--trace", "int"), (["fwd"], "--wide-ring", "int"), (["fwd"], "--workers", "int"),
    (["fwd", "--demo"], "--packets", "int"), (["fwd", "--demo"], "--routes", "int"),
    (["fwd", "--demo"], "--flows", "int"), (["fwd", "--demo"], "--rules", "int"),
    (["fwd", "--demo"], "--runs", "int"), (["fwd", "--demo"], "--workers", "int"),
    (["powersim", "--scenario", "nginx-openssl-avx512"], "--cores", "int"),
    (["powersim", "--scenario", "nginx-openssl-avx512"], "--wide-cores", "int"),
    (["powersim", "--scenario", "nginx-openssl-avx512"], "--tasks", "int"),
    (["powersim", "--scenario", "nginx-openssl-avx512"], "--frame", "int"),
    (["powersim", "--scenario", "nginx-openssl-avx512"], "--confine", "int"),
    (["powersim", "--scenario", "nginx-openssl-avx512"], "--sweep", "int"),
    (["powersim", "--scenario", "nginx-openssl-avx512"], "--rate", "real"),
    (["powersim", "--scenario", "nginx-openssl-avx512"], "--switch-ns", "real"),
    (["powersim", "--scenario", "nginx-openssl-avx512"], "--duration-ms", "real"),
    (["powersim", "--scenario", "nginx-openssl-avx512"], "--ramp-us", "real"),
    (["powersim", "--scenario", "nginx-openssl-avx512"], "--throttle", "real"),
    (["powersim", "--scenario", "nginx-openssl-avx512"], "--halt-us", "real"),
    (["powersim", "--scenario", "nginx-openssl-avx512"], "--hyst-us", "real"),
    (["bench", "fib"], "-B", "int"), (["bench", "fib"], "-l", "int"), (["bench", "fib"], "-R", "int"),
    (["bench", "fib"], "--seed", "int"), (["bench", "fib"], "-e", "int"),
    (["bench", "fib", "--ipv6"], "-l", "int"), (["bench", "fib", "--ipv6"], "-R", "int"),
    (["bench", "fib", "--ipv6"], "-e", "int"),
    (["bench", "kernels"], "--burst", "int"), (["bench", "kernels"], "--packets", "int"),
    (["bench", "kernels"], "--runs", "int"), (["bench", "kernels"], "--working-set", "int"),
    (["bench", "pool"], "--burst", "int"), (["bench", "pool"], "--buffers", "int"),
    (["bench", "pool"], "--runs", "int"), (["bench", "pool"], "--threads", "int"),
    (["bench", "rx"], "--burst", "int"), (["bench", "rx"], "--ring", "int"),
    (["bench", "rx"], "--runs", "int"), (["bench", "rx"], "--passes", "int"),
    (["bench", "vxlan"], "--runs", "int"), (["bench", "vxlan"], "--frames", "int"),
    (["bench", "vxlan"], "--tunnels", "int"), (["bench", "gtp4d"], "--runs", "int"),
    (["bench", "wide"], "--scalar-cpu", "int"), (["bench", "wide"], "--iters", "int"),
    (["bench", "wide"], "--runs", "int"),
    (["iofwd", "--port", "pcap:/nonexistent.pcap"], "--stats-period", "real"),
    (["iofwd", "--port", "pcap:/nonexistent.pcap"], "--duration", "real"),
    (["iofwd", "--port", "pcap:/nonexistent.pcap"], "--count", "int"),
    (["iofwd", "--port", "pcap:/nonexistent.pcap"], "--burst", "int"),
    (["iofwd", "--port", "pcap:/nonexistent.pcap"], "--rx-ring", "int"),
    (["iofwd", "--port", "pcap:/nonexistent.pcap"], "--bufs", "int"),
    (["iofwd", "--port", "pcap:/nonexistent.pcap"], "--workers", "int"),
    (["power"], "--runs", "int"), (["scan"], "--min-ratio", "real"),
]


def option_cases():
    cases = []
    for words, opt, kind in OPTIONS:
        junk = INT_JUNK if kind == "int" else REAL_JUNK
        # "--confine" and "--ghz" have their own words for some values; the
        # number parser's reasons are enough for all of these.
        for v in junk:
            name = " ".join(words[:2] if words[0] != "powersim" else words[:1])
            if words[2:3] == ["--ipv6"]:
                name += " --ipv6"
            cases.append((f"{name} {opt} {v!r}", [*words, opt, v], {}, USAGE,
                          re.escape(opt) + r"\b.*" + REASON))
    return cases


def sparse(size):
    def make(path):
        with open(path, "wb") as f:
            f.truncate(size)
    return make


RULE = b"@1.2.3.0/24 0.0.0.0/0 0 : 65535 0 : 65535 0x06/0xff\n"
PCAP_HDR = bytes.fromhex("d4c3b2a1020004000000000000000000ffff000001000000")
RUNTIME_OK = ('{"workers": 4, "frame_size": 256, "nodes": [{"name": "ip4-lookup", "width": 512, '
              '"clocks_per_packet": 9.5, "packets": 1000}]}')


def runtime(**over):
    import json
    j = json.loads(RUNTIME_OK)
    j.update(over)
    return json.dumps(j).encode()


# The numbered defects and the other known holes, then bad files and lines.
SPECIAL = [
    # A NaN route count sized the route array: (size_t)NaN wrapped the allocation.
    ("fib -d 24:nan", ["fib", "-n", "1000", "-d", "24:nan", "-l", "100", "-v", "scalar"], {}, USAGE,
     r"-d 24:nan: /24 count 'nan' is not a number"),
    ("fib -d 24:nan%", ["fib", "-n", "1000", "-d", "24:nan%", "-l", "100"], {}, USAGE, r"'nan' is not a finite number"),
    ("gen routes -d 24:nan", ["gen", "routes", "-d", "24:nan"], {}, USAGE, r"-d 24:nan: .*'nan'"),
    ("gen routes -d 24:nan%", ["gen", "routes", "-d", "24:nan%"], {}, USAGE, r"'nan' is not a finite number"),
    ("gen routes -d 24:inf%", ["gen", "routes", "-d", "24:inf%"], {}, USAGE, r"'inf' is not a finite number"),
    ("gen routes -d 24:200%", ["gen", "routes", "-n", "1000", "-d", "24:200%"], {}, USAGE,
     r"'200' is out of range 0\.\.100"),
    ("fib -d 24:200%", ["fib", "-n", "1000", "-d", "24:200%"], {}, USAGE, r"'200' is out of range"),
    ("fib -6 -b dir", ["fib", "-6", "-b", "dir"], {}, USAGE, r"-6 -b dir: 'trie' or 'bm6'"),
    ("fib -b bm6", ["fib", "-b", "bm6"], {}, USAGE, r"-b bm6: 'dir' or 'bm16' \('trie' and 'bm6' with -6\)"),
    ("fib -6 -e 1", ["fib", "-6", "-e", "1"], {}, USAGE, r"-6 -e 1: IPv6 entries are 2, 4 or 8 bytes"),
    ("bench fib --ipv6 -b dir", ["bench", "fib", "--ipv6", "-f", "x", "-b", "dir"], {}, USAGE,
     r"bench fib --ipv6: -b dir: 'trie', 'bm6' or 'all'"),
    ("gen routes -d sum>100%", ["gen", "routes", "-n", "1000", "-d", "24:60%,22:60%"], {}, USAGE,
     r"add up to 1200 routes, more than the 1000 of -n"),
    ("gen routes -d count>n", ["gen", "routes", "-n", "10", "-d", "24:11"], {}, USAGE, r"'11' is out of range 0\.\.10"),
    ("gen routes -d -5", ["gen", "routes", "-d", "24:-5"], {}, USAGE, r"'-5' is negative"),
    ("gen routes -d 1e400", ["gen", "routes", "-d", "24:1e400%"], {}, USAGE, r"'1e400' is out of range"),
    ("gen routes -d depth 33", ["gen", "routes", "-d", "33:1"], {}, USAGE, r"depth '33' is out of range 0\.\.32"),
    ("gen routes -d /8 too many", ["gen", "routes", "-n", "1000", "-d", "8:300"], {}, USAGE,
     r"only 256 prefixes"),
    ("gen routes -d no colon", ["gen", "routes", "-d", "24"], {}, USAGE, r"expected depth:count"),
    ("gen routes -d trailing comma", ["gen", "routes", "-d", "24:10,"], {}, USAGE, r"trailing ','"),
    ("gen routes -d junk", ["gen", "routes", "-d", "24:10x"], {}, USAGE, r"'10x' has 'x' after the number"),
    # Silent acceptances: now errors naming the value.
    ("powersim --cores -1", ["powersim", "--scenario", "nginx-openssl-avx512", "--cores", "-1"], {}, USAGE,
     r"--cores: '-1' is negative"),
    ("powersim --duration-ms -5", ["powersim", "--scenario", "nginx-openssl-avx512", "--duration-ms", "-5"], {},
     USAGE, r"--duration-ms: '-5' is out of range"),
    ("powersim --rate nan", ["powersim", "--scenario", "nginx-openssl-avx512", "--rate", "nan"], {}, USAGE,
     r"--rate: 'nan' is not a finite number"),
    ("powersim --ghz nan", ["powersim", "--scenario", "nginx-openssl-avx512", "--ghz", "2,nan,1"], {}, USAGE,
     r"--ghz 2,nan,1: 'nan' is not a finite number"),
    ("powersim --ghz two", ["powersim", "--scenario", "nginx-openssl-avx512", "--ghz", "2,1"], {}, USAGE,
     r"three frequencies"),
    ("powersim --confine 300", ["powersim", "--scenario", "nginx-openssl-avx512", "--confine", "300"], {}, USAGE,
     r"--confine takes 256 or 512"),
    ("powersim --sweep 0", ["powersim", "--scenario", "nginx-openssl-avx512", "--sweep", "2,0"], {}, USAGE,
     r"--sweep: '0' is out of range"),
    ("powersim json workers -4", ["powersim", "--from-runtime", "{d}/rt.json"], {"rt.json": runtime(workers=-4)},
     USAGE, r"rt\.json:1: \"workers\": -4 is not a whole number in 1\.\.1024"),
    ("powersim json workers 1e12", ["powersim", "--from-runtime", "{d}/rt.json"],
     {"rt.json": runtime(workers=1e12)}, USAGE, r"\"workers\": 1000000000000 is not a whole number"),
    ("powersim json workers 2.5", ["powersim", "--from-runtime", "{d}/rt.json"], {"rt.json": runtime(workers=2.5)},
     USAGE, r"\"workers\": 2\.5 is not a whole number"),
    ("powersim json workers string", ["powersim", "--from-runtime", "{d}/rt.json"],
     {"rt.json": runtime(workers="4")}, USAGE, r"\"workers\" must be a whole number"),
    ("powersim json frame_size 0", ["powersim", "--from-runtime", "{d}/rt.json"],
     {"rt.json": runtime(frame_size=0)}, USAGE, r"\"frame_size\": 0 is not a whole number in 1\.\.65536"),
    ("powersim json handoff -1", ["powersim", "--from-runtime", "{d}/rt.json"],
     {"rt.json": runtime(handoff_ns_per_frame=-1)}, USAGE, r"handoff_ns_per_frame"),
    ("powersim json 1e999", ["powersim", "--from-runtime", "{d}/rt.json"],
     {"rt.json": RUNTIME_OK.replace('"workers": 4', '"workers": 1e999').encode()}, USAGE,
     r"rt\.json:1: '1e999' is out of range"),
    ("powersim json 1.2.3", ["powersim", "--from-runtime", "{d}/rt.json"],
     {"rt.json": RUNTIME_OK.replace('"workers": 4', '"workers": 1.2.3').encode()}, USAGE,
     r"'1\.2\.3' has '\.3' after the number"),
    ("powersim json lone minus", ["powersim", "--from-runtime", "{d}/rt.json"],
     {"rt.json": RUNTIME_OK.replace('"workers": 4', '"workers": -').encode()}, USAGE, r"'-' is not a number"),
    ("powersim json NUL", ["powersim", "--from-runtime", "{d}/rt.json"],
     {"rt.json": RUNTIME_OK.encode()[:10] + b"\0" + RUNTIME_OK.encode()[10:]}, USAGE, r"rt\.json:1: NUL byte"),
    ("powersim json packets huge", ["powersim", "--from-runtime", "{d}/rt.json"],
     {"rt.json": RUNTIME_OK.replace('"packets": 1000', '"packets": 1e300').encode()}, USAGE,
     r"\"packets\" must be a number in 0\.\.1e18"),
    ("powersim json empty", ["powersim", "--from-runtime", "{d}/rt.json"], {"rt.json": b""}, USAGE, r"rt\.json"),
    ("powersim json missing", ["powersim", "--from-runtime", "{d}/none.json"], {}, USAGE, r"none\.json: cannot open"),
    ("powersim json sparse 1G", ["powersim", "--from-runtime", "{d}/big.json"], {"big.json": sparse(1 << 30)},
     USAGE, r"big\.json: larger than the 64 MiB cap on runtime files"),
    # Rule files: NUL bytes, over-long lines, bad numbers, huge files.
    ("acl rules NUL", ["acl", "--rulesf={d}/r.txt"], {"r.txt": RULE + b"\0" + RULE}, USAGE,
     r"r\.txt:2: NUL byte at column 1"),
    ("acl rules NUL mid-line", ["acl", "--rulesf={d}/r.txt"], {"r.txt": RULE[:20] + b"\0" + RULE[20:]}, USAGE,
     r"r\.txt:1: NUL byte at column 21"),
    ("acl rules long line", ["acl", "--rulesf={d}/r.txt"], {"r.txt": RULE + b"#" + b"x" * 5000 + b"\n"}, USAGE,
     r"r\.txt:2: line longer than 4096 bytes"),
    ("acl rules sparse 1G", ["acl", "--rulesf={d}/r.txt"], {"r.txt": sparse(1 << 30)}, USAGE,
     r"r\.txt: larger than the 256 MiB cap on rule files"),
    ("acl rules port 65536", ["acl", "--rulesf={d}/r.txt"],
     {"r.txt": RULE.replace(b"0 : 65535 0x06", b"0 : 65536 0x06")}, USAGE, r"r\.txt:1: bad destination port range"),
    ("acl rules port -1", ["acl", "--rulesf={d}/r.txt"], {"r.txt": RULE.replace(b"0 : 65535 0 :", b"-1 : 65535 0 :")},
     USAGE, r"r\.txt:1: bad source port range"),
    ("acl rules proto nan", ["acl", "--rulesf={d}/r.txt"], {"r.txt": RULE.replace(b"0x06/0xff", b"nan/0xff")},
     USAGE, r"r\.txt:1: bad protocol"),
    ("acl rules plen 33", ["acl", "--rulesf={d}/r.txt"], {"r.txt": RULE.replace(b"/24", b"/33")}, USAGE,
     r"r\.txt:1: bad source prefix"),
    ("acl rules plen junk", ["acl", "--rulesf={d}/r.txt"], {"r.txt": RULE.replace(b"/24", b"/24x")}, USAGE,
     r"r\.txt:1: bad source prefix"),
    ("acl rules binary", ["acl", "--rulesf={d}/r.txt"], {"r.txt": bytes(range(1, 256))}, USAGE, r"r\.txt:1: "),
    ("acl rules missing", ["acl", "--rulesf={d}/none.txt"], {}, USAGE, r"none\.txt: cannot open"),
    ("acl trace NUL", ["acl", "--rulesf={d}/r.txt", "--tracef={d}/t.txt"],
     {"r.txt": RULE, "t.txt": b"1 2 3 4 6\n\0\n"}, USAGE, r"t\.txt:2: NUL byte"),
    ("acl trace port overflow", ["acl", "--rulesf={d}/r.txt", "--tracef={d}/t.txt"],
     {"r.txt": RULE, "t.txt": b"1 2 3 99999999999999999999999 6\n"}, USAGE, r"t\.txt:1: bad destination port"),
    ("acl trace sparse 2G", ["acl", "--rulesf={d}/r.txt", "--tracef={d}/t.txt"],
     {"r.txt": RULE, "t.txt": sparse(2 << 30)}, USAGE, r"t\.txt: larger than the 1 GiB cap on trace files"),
    # Route files.
    ("fib routes NUL", ["fib", "-f", "{d}/r.txt"], {"r.txt": b"10.0.0.0/8 1\n1\0.0.0.0/8 2\n"}, USAGE,
     r"r\.txt:2: NUL byte at column 2"),
    ("fib routes long line", ["fib", "-f", "{d}/r.txt"], {"r.txt": b"10.0.0.0/8 1" + b" " * 2000 + b"\n"}, USAGE,
     r"r\.txt:1: line longer than 1024 bytes"),
    ("fib routes sparse 1G", ["fib", "-f", "{d}/r.txt"], {"r.txt": sparse(1 << 30)}, USAGE,
     r"r\.txt: larger than the 256 MiB cap on route files"),
    ("fib routes nh overflow", ["fib", "-f", "{d}/r.txt"], {"r.txt": b"10.0.0.0/8 99999999999999999999999\n"},
     USAGE, r"r\.txt:1: next hop: '99999999999999999999999' is out of range"),
    ("fib routes nh negative", ["fib", "-f", "{d}/r.txt"], {"r.txt": b"10.0.0.0/8 -1\n"}, USAGE,
     r"r\.txt:1: next hop: '-1' is negative"),
    ("fib routes nh junk", ["fib", "-f", "{d}/r.txt"], {"r.txt": b"10.0.0.0/8 7x\n"}, USAGE,
     r"r\.txt:1: next hop: '7x' has 'x' after the number"),
    ("fib routes plen nan", ["fib", "-f", "{d}/r.txt"], {"r.txt": b"10.0.0.0/nan 1\n"}, USAGE,
     r"r\.txt:1: prefix length: 'nan' is not a number"),
    ("fib routes plen 33", ["fib", "-f", "{d}/r.txt"], {"r.txt": b"10.0.0.0/33 1\n"}, USAGE,
     r"r\.txt:1: prefix length: '33' is out of range 0\.\.32"),
    ("fib routes plen empty", ["fib", "-f", "{d}/r.txt"], {"r.txt": b"10.0.0.0/ 1\n"}, USAGE,
     r"r\.txt:1: prefix length: empty value"),
    ("fib lookups NUL", ["fib", "-f", "{d}/r.txt", "-t", "{d}/t.txt"],
     {"r.txt": b"10.0.0.0/8 1\n", "t.txt": b"10.0.0.1\n\0"}, USAGE, r"t\.txt:2: NUL byte"),
    ("fib6 routes NUL", ["fib", "-6", "-f", "{d}/r.txt"], {"r.txt": b"2001:db8::/32 1\n\0\n"}, USAGE,
     r"r\.txt:2: NUL byte"),
    ("fib6 routes plen 129", ["fib", "-6", "-f", "{d}/r.txt"], {"r.txt": b"2001:db8::/129 1\n"}, USAGE,
     r"r\.txt:1: prefix length: '129' is out of range 0\.\.128"),
    ("bench fib routes sparse", ["bench", "fib", "-f", "{d}/r.txt"], {"r.txt": sparse(1 << 30)}, USAGE,
     r"larger than the 256 MiB cap on route files"),
    # Configuration files and lines.
    ("fwd run-limit packets overflow", ["fwd", "-c", "{d}/c"], {"c": b"run-limit packets 99999999999999999999999\n"},
     USAGE, r"c:1: run-limit: packets '99999999999999999999999' is out of range"),
    ("fwd run-limit packets -1", ["fwd", "-c", "{d}/c"], {"c": b"run-limit packets -1\n"}, USAGE,
     r"c:1: run-limit: packets '-1' is negative"),
    ("fwd run-limit packets 1e3", ["fwd", "-c", "{d}/c"], {"c": b"run-limit packets 1e3\n"}, USAGE,
     r"c:1: run-limit: packets '1e3' has 'e3' after the number"),
    ("fwd run-limit seconds nan", ["fwd", "-c", "{d}/c"], {"c": b"run-limit seconds nan\n"}, USAGE,
     r"c:1: run-limit: seconds 'nan' is not a finite number"),
    ("fwd run-limit seconds inf", ["fwd", "-c", "{d}/c"], {"c": b"run-limit seconds inf\n"}, USAGE,
     r"c:1: run-limit: seconds 'inf' is not a finite number"),
    ("fwd run-limit seconds -1", ["fwd", "-c", "{d}/c"], {"c": b"run-limit seconds -1\n"}, USAGE,
     r"c:1: run-limit: seconds '-1' is out of range"),
    ("fwd run-limit seconds 1e8", ["fwd", "-c", "{d}/c"], {"c": b"run-limit seconds 1e8\n"}, USAGE,
     r"c:1: run-limit: seconds '1e8' is out of range"),
    ("fwd --count overflow", ["fwd", "--iface", "lo", "--count", "99999999999999999999999"], {}, USAGE,
     r"run-limit: packets '99999999999999999999999' is out of range"),
    ("fwd --duration nan", ["fwd", "--iface", "lo", "--duration", "nan"], {}, USAGE,
     r"run-limit: seconds 'nan' is not a finite number"),
    ("fwd config NUL", ["fwd", "-c", "{d}/c"], {"c": b"interface eth0\n\0route add 10.0.0.0/8 via 1\n"}, USAGE,
     r"c:2: NUL byte at column 1"),
    ("fwd config NUL mid-line", ["fwd", "-c", "{d}/c"], {"c": b"interface eth0 in a\0b.pcap\n"}, USAGE,
     r"c:1: NUL byte at column 20"),
    ("fwd config long line", ["fwd", "-c", "{d}/c"], {"c": b"# " + b"x" * 2000 + b"\n"}, USAGE,
     r"c:1: line longer than 1023 bytes"),
    ("fwd config sparse 1G", ["fwd", "-c", "{d}/c"], {"c": sparse(1 << 30)}, USAGE,
     r"c: larger than the 64 MiB cap on configuration files"),
    ("fwd neighbor id 0", ["fwd", "-c", "{d}/c"], {"c": b"interface eth0\nneighbor 0 02:00:00:00:00:01 dev eth0\n"},
     USAGE, r"c:2: neighbor: ID '0'"),
    ("fwd neighbor id -1", ["fwd", "-c", "{d}/c"], {"c": b"interface eth0\nneighbor -1 02:00:00:00:00:01 dev eth0\n"},
     USAGE, r"c:2: neighbor: ID '-1'"),
    ("fwd neighbor id overflow", ["fwd", "-c", "{d}/c"],
     {"c": b"interface eth0\nneighbor 99999999999999999999 02:00:00:00:00:01 dev eth0\n"}, USAGE, r"c:2: neighbor: ID"),
    ("fwd neighbor bad mac", ["fwd", "-c", "{d}/c"], {"c": b"interface eth0\nneighbor 1 02:00:00:00:00:zz dev eth0\n"},
     USAGE, r"c:2: neighbor: bad MAC"),
    ("fwd neighbor short mac", ["fwd", "-c", "{d}/c"], {"c": b"interface eth0\nneighbor 1 2:0:0:0:0:1 dev eth0\n"},
     USAGE, r"c:2: neighbor: bad MAC"),
    ("fwd interface bad mac", ["fwd", "-c", "{d}/c"], {"c": b"interface eth0 mac 02-00-00-00-00-01\n"}, USAGE,
     r"c:1: interface: bad MAC"),
    ("fwd route plen 33", ["fwd", "-c", "{d}/c"], {"c": b"route add 10.0.0.0/33 via 1\n"}, USAGE, r"c:1: route"),
    ("fwd route plen junk", ["fwd", "-c", "{d}/c"], {"c": b"route add 10.0.0.0/8x via 1\n"}, USAGE, r"c:1: route"),
    ("fwd route via nan", ["fwd", "-c", "{d}/c"], {"c": b"route add 10.0.0.0/8 via nan\n"}, USAGE, r"c:1: route"),
    ("fwd route via -1", ["fwd", "-c", "{d}/c"], {"c": b"route add 10.0.0.0/8 via -1\n"}, USAGE, r"c:1: route"),
    ("fwd --wide-cores junk", ["fwd", "--wide-cores", "1-x", "--in", "eth0={d}/X.pcap"], {"X.pcap": PCAP_HDR},
     USAGE, r"--wide-cores=1-x: 'x' is not a number"),
    ("fwd --wide-cores reversed", ["fwd", "--wide-cores", "3-1", "--in", "eth0={d}/X.pcap"], {"X.pcap": PCAP_HDR},
     USAGE, r"--wide-cores=3-1: '1' is out of range 3\.\.1023"),
    ("fwd acl load NUL", ["fwd", "-c", "{d}/c"], {"c": b"acl load {d}/r.txt\n", "r.txt": RULE + b"\0"}, USAGE,
     r"r\.txt:2: NUL byte"),
    ("fwd acl load sparse", ["fwd", "-c", "{d}/c"], {"c": b"acl load {d}/r.txt\n", "r.txt": sparse(1 << 30)},
     USAGE, r"r\.txt: larger than the 256 MiB cap on rule files"),
    ("fwd demo routes-file sparse", ["fwd", "--demo", "--routes-file", "{d}/r.txt"], {"r.txt": sparse(1 << 30)},
     USAGE, r"larger than the 256 MiB cap on route files"),
    # A run's inputs and outputs must differ (opening an output truncates it).
    ("fwd in X out X", ["fwd", "-c", "{d}/c"], {"c": b"interface eth0 in {d}/X.pcap out {d}/X.pcap\n",
                                                "X.pcap": PCAP_HDR}, USAGE,
     r"interface eth0: out .*X\.pcap is the same file as in .*X\.pcap of interface eth0"),
    ("fwd in X out ./X", ["fwd", "-c", "{d}/c"], {"c": b"interface eth0 in {d}/X.pcap out {d}/./X.pcap\n",
                                                  "X.pcap": PCAP_HDR}, USAGE, r"is the same file as in"),
    ("fwd in X out symlink", ["fwd", "-c", "{d}/c"],
     {"c": b"interface eth0 in {d}/X.pcap out {d}/L.pcap\n", "X.pcap": PCAP_HDR, "L.pcap": ("symlink", "X.pcap")},
     USAGE, r"L\.pcap is the same file as in .*X\.pcap"),
    ("fwd in X out hardlink", ["fwd", "-c", "{d}/c"],
     {"c": b"interface eth0 in {d}/X.pcap out {d}/H.pcap\n", "X.pcap": PCAP_HDR, "H.pcap": ("link", "X.pcap")},
     USAGE, r"H\.pcap is the same file as in .*X\.pcap"),
    ("fwd out of another interface", ["fwd", "-c", "{d}/c"],
     {"c": b"interface eth0 in {d}/X.pcap out {d}/o.pcap\ninterface eth1 out {d}/X.pcap\n", "X.pcap": PCAP_HDR},
     USAGE, r"interface eth1: out .*X\.pcap is the same file as in .*X\.pcap of interface eth0"),
    ("fwd two outs one file", ["fwd", "-c", "{d}/c"],
     {"c": b"interface eth0 in {d}/X.pcap out {d}/o.pcap\ninterface eth1 out {d}/o.pcap\n", "X.pcap": PCAP_HDR},
     USAGE, r"interface eth1: out .*o\.pcap is the same file as out .*o\.pcap of interface eth0"),
    ("fwd --in/--out same", ["fwd", "--in", "eth0={d}/X.pcap", "--out", "eth0={d}/X.pcap"], {"X.pcap": PCAP_HDR},
     USAGE, r"is the same file as in"),
    ("fwd --in/--out symlink", ["fwd", "--in", "eth0={d}/X.pcap", "--out", "eth1={d}/L.pcap"],
     {"X.pcap": PCAP_HDR, "L.pcap": ("symlink", "X.pcap")}, USAGE, r"interface eth1: out .*L\.pcap is the same file"),
    ("fwd l3fwd in X out X", ["fwd", "--l3fwd-acl", "--rule_ipv4", "{d}/r.txt", "--in", "p0={d}/X.pcap",
                              "--out", "p0={d}/X.pcap"],
     {"X.pcap": PCAP_HDR, "r.txt": b"R0.0.0.0/0 0.0.0.0/0 0 : 65535 0 : 65535 0x00/0x00 0\n"}, USAGE,
     r"is the same file as in"),
    ("iofwd pcap in X out X", ["iofwd", "--port", "pcap:{d}/X.pcap:{d}/X.pcap"], {"X.pcap": PCAP_HDR}, USAGE,
     r"iofwd: --port input .*X\.pcap and --port output .*X\.pcap are the same file"),
    ("iofwd pcap across ports", ["iofwd", "--port", "pcap:{d}/X.pcap:{d}/o.pcap", "--port", "pcap::{d}/H.pcap"],
     {"X.pcap": PCAP_HDR, "H.pcap": ("link", "X.pcap")}, USAGE, r"are the same file"),
    ("fib -f R -w R", ["fib", "-f", "{d}/r.txt", "-w", "{d}/r.txt"], {"r.txt": b"10.0.0.0/8 1\n"}, USAGE,
     r"fib: -f .*r\.txt and -w .*r\.txt are the same file"),
    ("fib -t T -u T", ["fib", "-t", "{d}/t.txt", "-u", "{d}/L.txt"],
     {"t.txt": b"10.0.0.1\n", "L.txt": ("symlink", "t.txt")}, USAGE, r"fib: -t .*t\.txt and -u .*L\.txt"),
    ("gen routes -o = --lookups-out", ["gen", "routes", "-n", "10", "-o", "{d}/r.txt", "--lookups-out", "{d}/r.txt"],
     {"r.txt": b"keep\n"}, USAGE, r"gen routes: -o .*r\.txt and --lookups-out .*r\.txt are the same file"),
    ("gen acl rules-out = trace-out", ["gen", "acl", "--rules", "10", "--rules-out", "{d}/r.txt", "--trace", "10",
                                        "--trace-out", "{d}/r.txt"], {"r.txt": b"keep\n"}, USAGE,
     r"gen acl: --rules-out .*r\.txt and --trace-out .*r\.txt are the same file"),
    # Global options and environment.
    ("--max-simd-bitwidth nan", ["--max-simd-bitwidth=nan", "info"], {}, USAGE, r"--max-simd-bitwidth=nan"),
    ("--max-simd-bitwidth 0x200", ["--max-simd-bitwidth=0x200", "info"], {}, USAGE, r"--max-simd-bitwidth=0x200"),
    ("--max-simd-bitwidth -512", ["--max-simd-bitwidth", "-512", "info"], {}, USAGE, r"--max-simd-bitwidth=-512"),
    ("--max-simd-bitwidth 512x", ["--max-simd-bitwidth=512x", "info"], {}, USAGE, r"--max-simd-bitwidth=512x"),
    ("powersim --request nan", ["powersim", "--request", "scalar:nan"], {}, USAGE, r"--request: bad item"),
    ("powersim --request inf", ["powersim", "--request", "512h:inf"], {}, USAGE, r"--request: bad item"),
    ("powersim --request -5", ["powersim", "--request", "512h:-5k"], {}, USAGE, r"--request: bad item"),
    ("bench wide --wide-cpus junk", ["bench", "wide", "--wide-cpus", "1,x"], {}, None, r"wide"),
    ("acl --ipv6=16B", ["acl", "--rulesf=/dev/null", "--ipv6=16B"], {}, USAGE, r"--ipv6 takes no value, 4B"),
    ("acl --runcat 3", ["acl", "--rulesf=/dev/null", "--runcat=3"], {}, USAGE, r"--runcat must be 1 or a multiple"),
    ("acl no rules", ["acl"], {}, USAGE, r"--rulesf is required"),
]


CASES = option_cases() + SPECIAL


def make_files(d, files):
    for name, content in files.items():
        path = os.path.join(d, name)
        if callable(content):
            content(path)
        elif isinstance(content, tuple):
            kind, target = content
            (os.symlink if kind == "symlink" else os.link)(os.path.join(d, target) if kind == "link" else target,
                                                         path)
        else:
            with open(path, "wb") as f:
                f.write(content.replace(b"{d}", d.encode()))


def test_corpus_size():
    assert len(CASES) >= 200
    assert len({c[0] for c in CASES}) == len(CASES), "case ids must be unique"


@pytest.mark.parametrize("case", CASES, ids=[c[0] for c in CASES])
def test_bad_input(vpk_bin, tmp_path, case):
    _, argv, files, code, regex = case
    d = str(tmp_path)
    make_files(d, files)
    before = {n: open(os.path.join(d, n), "rb").read() for n, c in files.items() if isinstance(c, bytes)}
    env = {k: v for k, v in os.environ.items() if k not in ("VPK_MAX_SIMD_BITWIDTH", "VPK_CPU_DISABLE")}
    p = subprocess.run([vpk_bin, *[a.replace("{d}", d) for a in argv]], env=env, capture_output=True,
                       timeout=60, stdin=subprocess.DEVNULL)
    err = p.stderr.decode(errors="replace")
    assert "AddressSanitizer" not in err and "runtime error:" not in err and "LeakSanitizer" not in err, err
    if code is None:
        assert p.returncode != 0, err
    else:
        assert p.returncode == code, f"exit {p.returncode}, stderr: {err}"
    assert err.endswith("\n") and err.count("\n") == 1, f"want one line, got: {err!r}"
    assert err.startswith("vpk"), err
    assert re.search(regex, err), f"{regex!r} not in {err!r}"
    # A refused run leaves its inputs as they were.
    for n, data in before.items():
        assert open(os.path.join(d, n), "rb").read() == data, f"{n} changed"


RSS_PROBE = ("import resource, subprocess, sys; p = subprocess.run(sys.argv[1:], capture_output=True); "
             "print(p.returncode, resource.getrusage(resource.RUSAGE_CHILDREN).ru_maxrss)")


@pytest.mark.parametrize("argv,name", [
    (["acl", "--rulesf={f}"], "rule files"),
    (["fib", "-f", "{f}"], "route files"),
    (["fwd", "-c", "{f}"], "configuration files"),
])
def test_huge_sparse_file_refused_in_small_memory(vpk_bin, tmp_path, argv, name):
    """A 1 GiB sparse file is refused before it is read: max RSS stays small."""
    f = str(tmp_path / "big.txt")
    sparse(1 << 30)(f)
    out = subprocess.run([sys.executable, "-c", RSS_PROBE, vpk_bin, *[a.replace("{f}", f) for a in argv]],
                         capture_output=True, text=True, timeout=120, check=True).stdout.split()
    rc, rss_kib = int(out[0]), int(out[1])
    assert rc == USAGE
    # Far below the file's 1 GiB (an ASan build's own overhead stays well under this).
    assert rss_kib < 128 * 1024, f"max RSS {rss_kib} KiB for a 1 GiB {name[:-1]}"


def test_huge_file_from_a_pipe_stops_at_the_cap(vpk_bin, tmp_path):
    """Without a size to look at (a pipe), reading stops at the cap, one line in memory at a time."""
    # 300 MiB of valid-looking comment lines through stdin: refused at 256 MiB.
    script = (f"import sys\nline = '#' + 'x' * 4000 + '\\n'\n"
              f"for _ in range(300 * 1024 * 1024 // len(line)):\n    sys.stdout.write(line)\n")
    gen = subprocess.Popen([sys.executable, "-c", script], stdout=subprocess.PIPE)
    p = subprocess.run([sys.executable, "-c", RSS_PROBE, vpk_bin, "acl", "--rulesf=-"], stdin=gen.stdout,
                       capture_output=True, text=True, timeout=300)
    gen.stdout.close()
    gen.kill()
    gen.wait()
    rc, rss_kib = (int(x) for x in p.stdout.split())
    assert rc == USAGE and rss_kib < 128 * 1024, (rc, rss_kib)
