"""`vpk info` and the global options, as a user runs them."""
import json

import pytest


def info_json(run_vpk, *args, env=None):
    p = run_vpk("info", "--json", *args, env=env, check=True)
    return json.loads(p.stdout)


def test_info_table_runs(run_vpk):
    p = run_vpk("info", check=True)
    assert "ISA level" in p.stdout and "Cap:" in p.stdout
    assert "ip4-csum-check" in p.stdout and "buf-idx-ptr" in p.stdout


def test_default_cap_follows_detection(run_vpk):
    j = info_json(run_vpk)
    levels = {l["name"]: l for l in j["levels"]}
    icl = levels["avx512icl"]["cpu"] and levels["avx512icl"]["os"]
    assert j["cap"]["source"] == "default"
    assert j["cap"]["bits"] == (512 if icl else 256)
    assert j["cap"]["default_reason"]


@pytest.mark.parametrize("cap,want", [(64, "scalar"), (128, "sse42"), (256, "avx2")])
def test_env_cap_chooses_level(run_vpk, cap, want):
    j = info_json(run_vpk, env={"VPK_MAX_SIMD_BITWIDTH": str(cap)})
    assert j["cap"]["bits"] == cap and j["cap"]["source"] == "env"
    levels = {l["name"]: l for l in j["levels"]}
    if not levels[want]["usable"]:
        pytest.skip(f"{want} not usable on this machine")
    for k in j["kernels"]:
        widths = {v["name"]: v["width"] for v in k["variants"]}
        usable = [v for v in k["variants"] if v["usable"]]
        # every kernel runs its best variant within the cap; for the common
        # scalar/sse42/avx2/avx512 tables that is exactly the level of the cap
        assert k["chosen"] == usable[0]["name"]
        assert widths[k["chosen"]] <= cap
        # the level named by the cap wins unless a higher level fits the cap too
        # (an AVX-512VL variant on 256-bit registers is usable at cap 256)
        order = ["scalar", "sse42", "avx2", "avx512", "avx512icl"]
        higher = [v for v in usable if order.index(v["isa"]) > order.index(want)]
        if want in widths and not higher:
            assert k["chosen"] == want, (k["name"], k["chosen"])
        if higher:
            assert k["chosen"] == higher[0]["name"] and higher[0]["width"] <= cap


def test_cli_cap_same_as_env(run_vpk):
    a = info_json(run_vpk, "--max-simd-bitwidth=128")
    b = info_json(run_vpk, env={"VPK_MAX_SIMD_BITWIDTH": "128"})
    assert [k["chosen"] for k in a["kernels"]] == [k["chosen"] for k in b["kernels"]]
    assert a["cap"]["source"] == "cli"


@pytest.mark.parametrize("bad", ["100", "0", "abc", "1024", ""])
def test_bad_env_cap_refused(run_vpk, bad):
    p = run_vpk("info", env={"VPK_MAX_SIMD_BITWIDTH": bad})
    assert p.returncode == 2
    lines = p.stderr.strip().splitlines()
    assert len(lines) == 1 and "VPK_MAX_SIMD_BITWIDTH" in lines[0] and "64, 128, 256, 512" in lines[0]


@pytest.mark.parametrize("arg", ["--max-simd-bitwidth=100", "--max-simd-bitwidth=", "--isa=avx1024", "--isa"])
def test_bad_cli_refused(run_vpk, arg):
    p = run_vpk(arg, "info")
    assert p.returncode == 2 and p.stderr.startswith("vpk: ") and len(p.stderr.strip().splitlines()) == 1


def test_cli_conflicting_with_env(run_vpk):
    p = run_vpk("--max-simd-bitwidth=256", "info", env={"VPK_MAX_SIMD_BITWIDTH": "128"})
    assert p.returncode == 2 and "conflicts" in p.stderr


def test_forced_isa_without_cpu_support_refused(run_vpk):
    # VPK_CPU_DISABLE hides the feature, as on a CPU without AVX-512.
    p = run_vpk("info", "--isa", "avx512", env={"VPK_CPU_DISABLE": "avx512f"})
    assert p.returncode == 2
    assert "avx512" in p.stderr and "CPU lacks avx512f" in p.stderr


def test_forced_isa_shows_that_variant(run_vpk):
    j = info_json(run_vpk, "--isa=sse42")
    assert j["forced_isa"] == "sse42"
    for k in j["kernels"]:
        if any(v["name"] == "sse42" for v in k["variants"]):
            assert k["chosen"] == "sse42"


def test_forced_isa_above_cap_gives_enotsup(run_vpk):
    p = run_vpk("info", "--isa=avx2", env={"VPK_MAX_SIMD_BITWIDTH": "128"})
    if "CPU lacks" in p.stderr:
        pytest.skip("no AVX2 here")
    assert "-ENOTSUP" in p.stdout and "above cap 128" in p.stdout


def test_without_avx512_default_is_256(run_vpk):
    j = info_json(run_vpk, env={"VPK_CPU_DISABLE": "avx512f"})
    assert j["cap"]["bits"] == 256
    assert all(v["usable"] is False for k in j["kernels"] for v in k["variants"] if v["isa"].startswith("avx512"))


def test_unknown_command(run_vpk):
    p = run_vpk("frobnicate")
    assert p.returncode == 2 and "unknown command" in p.stderr


def test_help_lists_commands(run_vpk):
    p = run_vpk("help", check=True)
    assert "info" in p.stdout
