"""Shared fixtures: where the vpk binary of the build under test is."""
import os
import pathlib
import subprocess

import pytest

ROOT = pathlib.Path(__file__).resolve().parents[2]


@pytest.fixture(scope="session")
def vpk_bin():
    build = pathlib.Path(os.environ.get("VPK_BUILD", ROOT / "build"))
    exe = build / "vpk"
    if not exe.exists():
        pytest.fail(f"{exe} not found: build first (make test sets VPK_BUILD)")
    return str(exe)


@pytest.fixture
def run_vpk(vpk_bin):
    """Run vpk with extra environment; returns CompletedProcess (text)."""
    def run(*args, env=None, check=False, timeout=120):
        e = {k: v for k, v in os.environ.items()
             if k not in ("VPK_MAX_SIMD_BITWIDTH", "VPK_CPU_DISABLE")}
        e.update(env or {})
        p = subprocess.run([vpk_bin, *args], env=e, capture_output=True, text=True, timeout=timeout)
        if check and p.returncode != 0:
            raise AssertionError(f"vpk {' '.join(args)} failed ({p.returncode}): {p.stderr}")
        return p
    return run
