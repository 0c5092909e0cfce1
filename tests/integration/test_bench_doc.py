"""make bench's two halves on tiny sizes: scripts/run-bench.sh writes one JSON file per step
and steps.tsv, scripts/gen-benchmarks.py renders them (claims table, known benchmarks, and
any other JSON through the generic table); and the tool's --help / --version contract."""
import json
import os
import subprocess
import sys

import pytest

from conftest import ROOT


def run_bench(tmp_path, only):
    build = os.path.dirname(os.environ.get("VPK_BUILD", str(ROOT / "build")) + "/")
    env = dict(os.environ, VPK_BENCH_QUICK="1", VPK_BENCH_OUT=str(tmp_path / "bench"),
               VPK_BENCH_DOC=str(tmp_path / "benchmarks.md"), VPK_BENCH_ONLY=only)
    p = subprocess.run(["bash", str(ROOT / "scripts/run-bench.sh"), build], env=env, cwd=ROOT,
                       capture_output=True, text=True, timeout=300)
    assert p.returncode == 0, p.stdout + p.stderr
    return tmp_path / "bench", (tmp_path / "benchmarks.md").read_text()


def test_steps_json_and_document(tmp_path):
    out, doc = run_bench(tmp_path, "info kernels vxlan fwd scan")
    steps = (out / "steps.tsv").read_text().splitlines()
    assert steps[0] == "name\tstatus\tseconds\tcommand"
    names = {line.split("\t")[0]: line.split("\t")[1] for line in steps[1:]}
    assert names == {"info": "ok", "scan": "ok", "kernels": "ok", "fwd": "ok", "vxlan": "ok"}
    for n in names:
        json.loads((out / f"{n}.json").read_text())
    assert "## Claims of the reference documents" in doc
    # The l3fwd-acl claim is computed from the fwd step; the ACL one did not run.
    row = next(line for line in doc.splitlines() if line.startswith("| l3fwd-acl: AVX-512"))
    assert "Mpps at cap 512" in row and ("reproduced" in row)
    row = next(line for line in doc.splitlines() if line.startswith("| DPDK ACL"))
    assert "not measured: the step did not run" in row
    assert "## Foundation kernels" in doc and "## VxLAN decapsulation" in doc
    assert "commit `" in doc and "Load average" in doc


def test_unknown_json_is_rendered_and_failures_listed(tmp_path):
    out, _ = run_bench(tmp_path, "info")
    (out / "newbench.json").write_text(json.dumps(
        {"bench": "newbench", "results": [{"variant": "avx512", "cycles": 1.5},
                                          {"variant": "scalar", "cycles": 4.25}]}))
    with open(out / "steps.tsv", "a") as f:
        f.write("newbench\tok\t1\tvpk bench newbench --json\n")
        f.write("broken\tfailed\t2\tvpk bench broken --json\n")
        f.write("nohw\tskipped\t0\tno such device here\n")
    doc = tmp_path / "regen.md"
    p = subprocess.run([sys.executable, str(ROOT / "scripts/gen-benchmarks.py"), "--bench", str(out),
                        "--doc", str(doc), "--no-charts"], capture_output=True, text=True, cwd=ROOT)
    assert p.returncode == 0, p.stderr
    text = doc.read_text()
    assert "## newbench" in text and "| avx512 | 1.50 |" in text and "| scalar | 4.25 |" in text
    assert "| broken | failed | 2 |" in text and "| nohw | skipped | 0 | no such device here |" in text


def test_generator_refuses_an_empty_directory(tmp_path):
    p = subprocess.run([sys.executable, str(ROOT / "scripts/gen-benchmarks.py"), "--bench", str(tmp_path),
                        "--doc", str(tmp_path / "x.md")], capture_output=True, text=True)
    assert p.returncode == 2 and "no JSON" in p.stderr


COMMANDS = ["acl", "bench", "bench acl", "bench fib", "bench fwd", "bench kernels", "bench pool",
            "bench rx", "bench gtp4d", "bench vxlan", "bench wide", "fib", "fwd", "gen acl",
            "gen routes", "info", "iofwd", "power", "powersim", "scan"]


@pytest.mark.parametrize("cmd", COMMANDS)
def test_help_exits_zero(run_vpk, cmd):
    p = run_vpk(*cmd.split(), "--help")
    assert p.returncode == 0, p.stderr
    assert p.stdout.strip(), "no help text on stdout"
    assert "'--help'" not in p.stdout


def test_version_and_top_level_help(run_vpk):
    p = run_vpk("--version", check=True)
    assert p.stdout.startswith("vpk ") and p.stdout.split()[1][0].isdigit()
    p = run_vpk("--help", check=True)
    assert "commands:" in p.stdout and "--version" in p.stdout
    assert run_vpk().returncode == 2                    # no command: usage on stderr, exit 2
    assert run_vpk("no-such-command").returncode == 2
