"""Sizes refused before work in sample and budget, and the memory limit's
variable checked. Oracles: the clock (a refusal is fast), the file system
(nothing written), and the peak resident memory of the process measured by
the kernel (getrusage), which the refused request's own estimate must bound.
"""

from __future__ import annotations

import os
import re
import subprocess
import sys
import time

import pytest
from conftest import SAMPLE_QRELS, SAMPLE_RUNS, assert_one_line_error, bvtest_executable

Q, R = SAMPLE_QRELS, SAMPLE_RUNS


def test_sample_refuses_a_billion_repeats_before_writing(bvtest, tmp_path):
    start = time.monotonic()
    proc = bvtest("sample", "--draws", 10**9, "--budget", 10, "--out", tmp_path / "o", Q, R)
    assert_one_line_error(proc, "--draws 1000000000", "more than the limit")
    assert time.monotonic() - start < 30
    assert list(tmp_path.iterdir()) == []


def test_budget_huge_strata_is_no_traceback(bvtest):
    proc = bvtest("budget", "--strata", 10**12, "--budget", 5, "--methods", "statAP",
                  "--draws", 2, "--bootstrap", 2, "--topics-scale", 1, Q, R)  # fmt: skip
    assert proc.returncode == 0, proc.stderr
    assert "--strata 1000000000000" in proc.stderr and "budget 5: 5" in proc.stderr


def test_budget_blames_samples_for_the_bootstrap(bvtest):
    proc = bvtest("budget", "--bootstrap", 10**9, "--budget", 10, "--draws", 2, Q, R)
    assert_one_line_error(proc, "--bootstrap 1000000000")


def environment(**variables: str) -> dict[str, str]:
    env = {k: v for k, v in os.environ.items() if not k.startswith("PYTEST")}
    return {**env, **variables}


@pytest.mark.parametrize("value", ["0", "-5", "nan", "lots"])
def test_a_memory_limit_that_is_no_positive_number_is_an_error(value):
    proc = subprocess.run(
        [bvtest_executable(), "budget", "--budget", "10", "--draws", "2", "--bootstrap", "2",
         str(Q), str(R)],
        capture_output=True, text=True, env=environment(BVTEST_MEMORY_MB=value),
    )  # fmt: skip
    # the variable is what is wrong, not a request beyond it
    assert_one_line_error(proc, f"BVTEST_MEMORY_MB={value!r}")
    assert "more than the limit" not in proc.stderr


def peak_of(args: list, limit_mb: float) -> tuple[subprocess.CompletedProcess, int]:
    """Run bvtest in a fresh child of a fresh interpreter: its peak RSS (bytes)."""
    probe = (
        "import resource, subprocess, sys\n"
        "p = subprocess.run(sys.argv[1:], capture_output=True, text=True)\n"
        "sys.stderr.write(p.stderr)\n"
        "sys.stdout.write(p.stdout)\n"
        "print(p.returncode, resource.getrusage(resource.RUSAGE_CHILDREN).ru_maxrss)\n"
    )
    proc = subprocess.run(
        [sys.executable, "-c", probe, bvtest_executable(), *map(str, args)],
        capture_output=True, text=True, env=environment(BVTEST_MEMORY_MB=str(limit_mb)),
    )  # fmt: skip
    *output, last = proc.stdout.splitlines()
    code, kib = last.split()
    proc.returncode, proc.stdout = int(code), "\n".join(output)
    return proc, int(kib) * 1024


def test_the_topics_scale_estimate_bounds_the_peak():
    args = ["budget", "--quiet", "--budget", 10, "--draws", 2, "--bootstrap", 10,
            "--topics-scale", 10000, "--methods", "statAP", Q, R]  # fmt: skip
    refused, _ = peak_of(args, 100)
    assert_one_line_error(refused, "--topics-scale 10000", "set by $BVTEST_MEMORY_MB")
    assert "3/4 of this machine" not in refused.stderr
    size, unit = re.search(r"needs about ([\d.]+) (MiB|GiB)", refused.stderr).groups()
    estimate = float(size) * (1 << (20 if unit == "MiB" else 30))
    # just above the estimate it runs, and stays below it
    ran, peak = peak_of(args, estimate / (1 << 20) * 1.01)
    assert ran.returncode == 0, ran.stderr
    assert peak <= estimate, (peak, estimate)


def test_group_size_beyond_int64_is_a_usage_error(bvtest):
    proc = bvtest("eval", "-m", "AP", "--group", "random:" + "1" * 24, Q, R)
    assert_one_line_error(proc, "--group", "K must be at most")
