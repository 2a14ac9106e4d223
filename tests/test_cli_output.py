"""B: output and option errors are one clear line, never noise.

* Writing standard output fails (a full disk, ``> /dev/full``, stdout
  closed): one line on stderr, exit status 2; a closed pipe (``| head``) is
  still silent with exit 0 (item 3).
* Extreme but legal inputs print no numpy RuntimeWarning; alpha is bounded
  (item 5).
* Alphas are compared as numbers: a duplicate is a usage error (item 6).
* --baseline accepts the path of a run file, as typed (item 8).
* No format prints a negative zero (item 1).

Expected outputs are the messages and exit statuses the README documents, and
for --baseline the output of the same command given the bare run name.
"""

from __future__ import annotations

import gzip
import json
import math
import os
import subprocess
from pathlib import Path

import numpy as np
import pytest
from conftest import (
    SAMPLE_QRELS,
    SAMPLE_RUNS,
    assert_one_line_error,
    bvtest_executable,
    clean_env,
    unpadded,
)

from bvtest_cli.render.text import fmt, plain, render
from bvtest_cli.report import registry
from bvtest_cli.report.model import Report, Table, section

FULL = Path("/dev/full")


def run_with_stdout(args, stdout, **kwargs):
    env = clean_env()
    return subprocess.run(
        [bvtest_executable(), *map(str, args)],
        stdout=stdout,
        stderr=subprocess.PIPE,
        env=env,
        timeout=300,
        **kwargs,
    )


@pytest.fixture(scope="module")
def sample_scores(tmp_path_factory):
    """The sample track's per-topic AP and nDCG@10, evaluated once."""
    from conftest import run_bvtest

    proc = run_bvtest("scores", "--quiet", "-m", "AP", "-m", "nDCG@10", SAMPLE_QRELS, SAMPLE_RUNS)
    assert proc.returncode == 0, proc.stderr
    path = tmp_path_factory.mktemp("scores") / "sample.tsv"
    path.write_text(proc.stdout)
    return path


# --------------------------------------------------------------------------- item 3


@pytest.mark.skipif(not FULL.exists(), reason="no /dev/full on this system")
@pytest.mark.parametrize("command", ["eval", "instability", "tradeoff"])
def test_full_device_is_one_line_and_exit_2(sample_scores, command):
    with FULL.open("w") as full:
        proc = run_with_stdout([command, "--quiet", "--scores", sample_scores], full)
    stderr = proc.stderr.decode()
    assert proc.returncode == 2, stderr
    assert stderr == "bvtest: cannot write output: No space left on device\n"


@pytest.mark.skipif(not FULL.exists(), reason="no /dev/full on this system")
def test_help_to_full_device_is_one_line(sample_scores):
    with FULL.open("w") as full:
        proc = run_with_stdout(["--help"], full)
    assert proc.returncode == 2
    assert proc.stderr.decode() == "bvtest: cannot write output: No space left on device\n"


def test_closed_stdout_is_one_line_and_exit_2(sample_scores):
    # ``>&-``: the process starts with file descriptor 1 closed.
    proc = run_with_stdout(
        ["eval", "--quiet", "--scores", sample_scores],
        None,
        preexec_fn=lambda: os.close(1),
    )
    assert proc.returncode == 2
    assert proc.stderr.decode() == "bvtest: cannot write output: standard output is closed\n"


def test_broken_pipe_stays_silent(sample_scores):
    """``bvtest eval ... | head -1``: the reader leaves; not an error."""
    env = clean_env()
    proc = subprocess.Popen(
        [bvtest_executable(), "eval", "--quiet", "--scores", str(sample_scores)],
        stdout=subprocess.PIPE,
        stderr=subprocess.PIPE,
        env=env,
    )
    proc.stdout.close()  # the reader is gone before anything is written
    stderr = proc.stderr.read().decode()
    assert proc.wait(timeout=300) == 0, stderr
    assert stderr == ""


# --------------------------------------------------------------------------- item 5


@pytest.mark.parametrize("alpha", ["1e308", "1000001", "inf", "nan", "-1"])
def test_alpha_out_of_range_is_a_usage_error(bvtest, sample_scores, alpha):
    proc = bvtest("eval", "--scores", sample_scores, "--alpha", f"0,{alpha}")
    assert_one_line_error(proc, "--alpha", alpha)


def test_largest_alpha_is_accepted(bvtest, sample_scores):
    proc = bvtest("eval", "--quiet", "-f", "json", "--scores", sample_scores, "--alpha", "0,1e6")
    assert proc.returncode == 0, proc.stderr
    assert proc.stderr == ""
    systems = json.loads(proc.stdout)["measures"]["AP"]["systems"]
    # URisk-like sums stay finite: (1 + 1e6) × a loss of at most 1 per topic.
    assert all(math.isfinite(s["zrisk"]["1e6"]) for s in systems.values())


def test_gate_alpha_is_bounded_too(bvtest):
    """An alpha named by a gate is computed, so it obeys the same bound."""
    proc = bvtest(
        "check", SAMPLE_QRELS, SAMPLE_RUNS / "sys001", SAMPLE_RUNS / "sys002",
        "-m", "AP", "-g", "AP:zrisk@1e308>=0",
    )  # fmt: skip
    assert_one_line_error(proc, "1e308")


# A scores file may hold any float (another tool's output, a typo); these
# made numpy print overflow and invalid-value warnings in every command.
EXTREME = {
    "huge": [1e300, 5e307, 1.7e308, 0.0, 1e-300],
    "mixed": [-1e300, 1e300, -0.0, 0.0, 1.7e308],
}


@pytest.mark.parametrize("kind", sorted(EXTREME))
def test_extreme_scores_print_no_warnings(bvtest, tmp_path, kind):
    """Scores near the float limits overflow inside the moments: the values say
    so (inf, nan / null), stderr holds no RuntimeWarning."""
    values = EXTREME[kind]
    lines = ["system\ttopic\tmeasure\tvalue"]
    for i, s in enumerate("abcd"):
        for j in range(5):
            lines.append(f"{s}\tt{j}\tAP\t{values[(i + j) % 5]!r}")
    path = tmp_path / f"{kind}.tsv"
    path.write_text("\n".join(lines) + "\n")
    runs = [
        ("eval", "--alpha", "0,1e6", "--baseline", "a"),
        ("eval", "--group", "random:2", "--repeats", "20", "--normalize", "ratio"),
        ("eval", "--group", "difficulty:2", "--normalize", "minmax", "-f", "json"),
        ("instability",),
        ("tradeoff", "--random-size", "2", "--difficulty-size", "2", "--repeats", "20"),
        ("eval", "--ci", "0.9", "--bootstrap", "20", "--ci-method", "bca", "-f", "json"),
        ("instability", "--ci", "0.9", "--bootstrap", "20"),
        ("compare", "--pairs", "all", "--bootstrap", "20", "-f", "json"),
    ]
    for args in runs:
        proc = bvtest(*args, "--scores", path)
        assert "Warning" not in proc.stderr, (args, proc.stderr)
        assert "Traceback" not in proc.stderr, (args, proc.stderr)
        assert proc.returncode in (0, 2), (args, proc.stderr)
        if proc.returncode == 0 and "json" in args:
            json.loads(proc.stdout)  # strict JSON: inf and nan became null
        if proc.returncode == 2:  # e.g. every topic tied under minmax
            assert_one_line_error(proc)


def test_huge_values_print_in_exponent_notation():
    assert fmt(1.5e300, 4) == "1.5000e+300"
    assert fmt(123456789.125, 2) == "123456789.12"  # below 1e15: fixed point as before
    assert fmt(-2.5e20, 3) == "-2.500e+20"


# --------------------------------------------------------------------------- item 6


@pytest.mark.parametrize(
    "alphas,fragment",
    [("0.5,0.50", "'0.50' is listed twice (as '0.5')"), ("1,1", "'1' is listed twice")],
)
def test_duplicate_alpha_as_a_number_is_a_usage_error(bvtest, sample_scores, alphas, fragment):
    proc = bvtest("eval", "--scores", sample_scores, "--alpha", alphas)
    assert_one_line_error(proc, "--alpha", fragment)


@pytest.mark.parametrize("alphas", ["5,5.0", "0,0e0", "10,1e1", "0,-0"])
def test_every_numeric_duplicate_is_rejected(bvtest, sample_scores, alphas):
    assert_one_line_error(bvtest("eval", "--scores", sample_scores, "--alpha", alphas), "twice")


# --------------------------------------------------------------------------- item 8


def test_baseline_given_as_a_path(bvtest, tmp_path):
    """--baseline sample_runs/sys003 (tab completion) names run sys003; so does
    runs/x.gz for the run read from x.gz (docs/inputs.md naming)."""
    gz = tmp_path / "sys003.gz"
    gz.write_bytes(gzip.compress((SAMPLE_RUNS / "sys003").read_bytes()))
    runs = [SAMPLE_RUNS / "sys001", SAMPLE_RUNS / "sys002", gz]
    common = ("eval", "--quiet", "-m", "AP", SAMPLE_QRELS, *runs)
    by_name = bvtest(*common, "--baseline", "sys003")
    assert by_name.returncode == 0, by_name.stderr
    assert "AP.trisk@0\tsys003\t0.0000" in unpadded(by_name.stdout)
    for typed in (gz, f"{SAMPLE_RUNS}/sys003", "some/dir/sys003/"):
        by_path = bvtest(*common, "--baseline", typed)
        assert by_path.returncode == 0, (typed, by_path.stderr)
        assert by_path.stdout == by_name.stdout, typed


def test_baseline_path_in_check(bvtest, tmp_path):
    """`check` validates --baseline against the pool before evaluating: a path works."""
    new = tmp_path / "new.run"
    new.write_bytes((SAMPLE_RUNS / "sys001").read_bytes())
    proc = bvtest(
        "check", "--quiet", SAMPLE_QRELS, SAMPLE_RUNS, new, "-m", "AP",
        "-g", "AP:urisk@0>=-1", "--baseline", SAMPLE_RUNS / "sys003",
    )  # fmt: skip
    assert proc.returncode == 0, proc.stderr
    assert proc.stdout.startswith("PASS\tAP:urisk@0>=-1\tnew.run\t")


def test_unknown_baseline_path_is_one_line(bvtest, sample_scores):
    proc = bvtest("eval", "--scores", sample_scores, "--baseline", "runs/nope.run.gz")
    assert_one_line_error(proc, "'nope.run'", "not among the runs")


# --------------------------------------------------------------------------- item 1


def test_render_never_prints_negative_zero():
    assert fmt(-0.0, 4) == "0.0000"
    assert fmt(-4e-17, 4) == "0.0000"
    assert fmt(-0.00004, 4) == "0.0000"
    assert fmt(-0.00005, 4) == "-0.0001"  # a value that rounds away from 0 keeps its sign
    assert fmt(-0.0, 0) == "0"
    assert [plain(v) for v in (-0.0, np.float64(-0.0), -1e-300)] == [0.0, 0.0, -1e-300]
    assert str(plain(-0.0)) == "0.0"
    table = Table(("s",), (registry.MEAN,), {"mean": np.array([-0.0])})
    body = section(("measures", section(("AP", section((registry.C, -0.0), ("systems", table))))))
    report = Report(body)
    for fmt_name in ("trec", "tsv", "csv", "table", "json"):
        text = render(report, fmt_name)
        assert "-0" not in text, (fmt_name, text)
