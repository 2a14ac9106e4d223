"""A closed or full stderr loses diagnostics, never results or the exit
status: notes and progress are best-effort."""

from __future__ import annotations

import os
import shlex
import subprocess

import pytest
from conftest import SAMPLE_QRELS, SAMPLE_RUNS, bvtest_executable, clean_env

CASES = {
    "eval": (["eval", "-m", "AP", SAMPLE_QRELS, SAMPLE_RUNS], 0),
    "scores": (["scores", "-m", "AP", SAMPLE_QRELS, SAMPLE_RUNS], 0),
    "pool": (["pool", "--depth", "3", SAMPLE_QRELS, SAMPLE_RUNS], 0),
    "check-pass": (["check", "-m", "AP", "-g", "AP:mean>=0", SAMPLE_QRELS, SAMPLE_RUNS, "NEW"], 0),
    "check-fail": (["check", "-m", "AP", "-g", "AP:mean>=1", SAMPLE_QRELS, SAMPLE_RUNS, "NEW"], 1),
}


def _run(args: list, redirect: str, tmp_path) -> tuple[int, bytes]:
    new = tmp_path / "new.run"
    new.write_bytes((SAMPLE_RUNS / "sys001").read_bytes())
    argv = [bvtest_executable(), *(str(new) if a == "NEW" else str(a) for a in args)]
    env = clean_env()
    command = " ".join(map(shlex.quote, argv)) + f" {redirect}"
    proc = subprocess.run(["bash", "-c", command], capture_output=False, stdout=subprocess.PIPE,
                          env=env, timeout=300)  # fmt: skip
    return proc.returncode, proc.stdout


@pytest.mark.parametrize("case", sorted(CASES))
@pytest.mark.parametrize("redirect", ["2>&-", "2>/dev/full"])
def test_results_and_status_survive_a_broken_stderr(case, redirect, tmp_path):
    if redirect == "2>/dev/full" and not os.path.exists("/dev/full"):
        pytest.skip("no /dev/full here")
    args, status = CASES[case]
    code, out = _run(args, redirect, tmp_path)
    ok_code, ok_out = _run(args, "2>/dev/null", tmp_path)
    assert (code, ok_code) == (status, status)
    assert out == ok_out and out


def test_plot_writes_its_file_with_stderr_closed(tmp_path):
    pytest.importorskip("matplotlib")
    target = tmp_path / "p.png"
    args = ["plot", "-m", "AP", "-o", target, SAMPLE_QRELS, SAMPLE_RUNS]
    code, out = _run(args, "2>&-", tmp_path)
    assert code == 0 and out == b"" and target.stat().st_size > 0


def test_the_suite_starts_commands_without_python_variables():
    """What users and CI run: no PYTHONUNBUFFERED (or any PYTHON*) inherited."""
    assert not [k for k in clean_env() if k.startswith("PYTHON")]
    assert not [k for k in os.environ if k.startswith("PYTHON")]
