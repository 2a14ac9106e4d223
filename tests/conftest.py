"""Shared fixtures: the installed `bvtest` command and the optional ../shared data."""

from __future__ import annotations

import os
import shutil
import subprocess
import sys
from pathlib import Path

import pytest

# Every command the suite starts runs as a user's or CI's would: without the
# PYTHON* variables of a developer's shell. PYTHONUNBUFFERED, for one, hides a
# failed flush of stderr at exit (exit status 120 with `2>/dev/full`) that a
# plain environment shows; removing them here, before any test starts a
# process, covers every subprocess, the pool workers of the CLI included.
for _name in [name for name in os.environ if name.startswith("PYTHON")]:
    del os.environ[_name]

REPO = Path(__file__).resolve().parents[1]
SHARED = REPO.parent / "shared"
SAMPLE_QRELS = REPO / "qrels" / "qrels.txt"
SAMPLE_RUNS = REPO / "sample_runs"


def bvtest_executable() -> str:
    """The console script installed next to this interpreter (the venv's bvtest)."""
    candidate = Path(sys.executable).parent / "bvtest"
    if candidate.exists():
        return str(candidate)
    found = shutil.which("bvtest")
    if found is None:
        pytest.fail("the bvtest command is not installed (pip install -e .)")
    return found


def clean_env(**extra: str) -> dict[str, str]:
    """The environment of a started command: this one's without pytest's
    variables and COLUMNS (-f table's width; the PYTHON* ones are gone
    already), plus ``extra``."""
    env = {k: v for k, v in os.environ.items() if not k.startswith("PYTEST") and k != "COLUMNS"}
    env.update(extra)
    return env


def run_bvtest(
    *args: object, stdin: bytes | None = None, cwd: Path | None = None, binary: bool = False
):
    """Run the installed command; returns CompletedProcess with text stdout/stderr
    (stdout as bytes with ``binary``)."""
    proc = subprocess.run(
        [bvtest_executable(), *map(str, args)],
        input=stdin,
        capture_output=True,
        cwd=cwd,
        env=clean_env(),
        timeout=300,
    )
    if not binary:
        proc.stdout = proc.stdout.decode()
    proc.stderr = proc.stderr.decode()
    return proc


@pytest.fixture
def bvtest():
    return run_bvtest


@pytest.fixture
def shared_data() -> Path:
    """../shared/data, or skip the test when the shared folder is absent."""
    data = SHARED / "data"
    if not data.is_dir():
        pytest.skip("../shared/data is not present")
    return data


def assert_one_line_error(proc, *fragments: str) -> None:
    """Bad input: exit 2, nothing on stdout, one stderr line holding every fragment."""
    assert proc.returncode == 2, (proc.returncode, proc.stdout, proc.stderr)
    assert proc.stdout == ""
    assert "Traceback" not in proc.stderr
    lines = proc.stderr.strip().splitlines()
    assert len(lines) == 1, proc.stderr
    for fragment in fragments:
        assert fragment in lines[0], lines[0]
