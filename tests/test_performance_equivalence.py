"""The fast evaluation paths change no number.

* per-topic scores (``bvtest scores``) are identical whatever the number of
  jobs, on the bundled sample track and on a generated 20-run track;
* ``bvtest eval`` output is byte-identical with ``--jobs`` 1, 2 and 3;
* the vectorized readers build exactly what the line-by-line readers build on
  every file of both tracks;
* a bad run among good ones gives the same one-line error whatever the jobs.

No timing here: speed is measured by ``make bench`` (bench/bench.py) only.
"""

from __future__ import annotations

import struct
import sys
from pathlib import Path

import pytest
from conftest import SAMPLE_QRELS, SAMPLE_RUNS

from bvtest_cli.io.sources import read_bytes, split_lines
from bvtest_cli.io.trec import _add_qrel, _parse_run_fast, _parse_run_slow, read_qrels

ROOT = Path(__file__).resolve().parents[1]


@pytest.fixture(scope="module")
def small_track(tmp_path_factory) -> tuple[Path, Path]:
    """A generated track with 20 runs (one missing topics, one no-relevant topic)."""
    sys.path.insert(0, str(ROOT / "tools"))
    try:
        from gen_track import generate
    finally:
        sys.path.remove(str(ROOT / "tools"))
    out = tmp_path_factory.mktemp("track20")
    generate(out, runs=20, topics=15, min_depth=50, max_depth=400, judged=200, seed=11)
    return out / "qrels.txt", out / "runs"


def tracks(small_track) -> list[tuple[Path, Path]]:
    return [(SAMPLE_QRELS, SAMPLE_RUNS), small_track]


def ok(proc) -> str:
    assert proc.returncode == 0, proc.stderr
    assert "Traceback" not in proc.stderr
    return proc.stdout


@pytest.mark.parametrize("which", ["sample", "generated"])
def test_scores_identical_single_process_and_two_jobs(bvtest, small_track, which):
    qrels, runs = (SAMPLE_QRELS, SAMPLE_RUNS) if which == "sample" else small_track
    single = bvtest("scores", "-j", "1", qrels, runs)
    double = bvtest("scores", "-j", "2", qrels, runs)
    assert single.forks == 0 and double.forks > 0  # in this process: -j 2 forks its workers
    single, double = ok(single), ok(double)
    assert single == double
    n_runs = sum(1 for p in runs.iterdir() if not p.name.startswith("."))
    lines = single.splitlines()
    assert lines[0] == "system\ttopic\tmeasure\tvalue"
    assert len({line.split("\t")[0] for line in lines[1:]}) == n_runs


@pytest.mark.parametrize("which", ["sample", "generated"])
def test_eval_output_byte_identical_whatever_jobs(bvtest, small_track, which):
    qrels, runs = (SAMPLE_QRELS, SAMPLE_RUNS) if which == "sample" else small_track
    procs = {jobs: bvtest("eval", "--jobs", jobs, qrels, runs) for jobs in ("1", "2", "3")}
    # In this process: -j 2 and -j 3 fork their workers.
    assert [procs[jobs].forks > 0 for jobs in "123"] == [False, True, True]
    outputs = {jobs: ok(proc) for jobs, proc in procs.items()}
    assert outputs["1"] == outputs["2"] == outputs["3"]
    assert outputs["1"].count("\n") > 100
    as_json = {jobs: ok(bvtest("eval", "-f", "json", "-j", jobs, qrels, runs)) for jobs in "13"}
    assert as_json["1"] == as_json["3"]


def test_readers_fast_path_equals_line_by_line(small_track):
    for qrels_path, runs in tracks(small_track):
        for path in sorted(runs.iterdir()):
            data = read_bytes(str(path))
            fast = _parse_run_fast(data)
            assert fast is not None, f"{path} should take the fast path"
            slow = _parse_run_slow(data, str(path))
            assert list(fast) == list(slow)
            for qid, ranking in slow.items():
                got = fast[qid]
                assert list(got) == list(ranking)
                assert [struct.pack("<d", v) for v in got.values()] == [
                    struct.pack("<d", v) for v in ranking.values()
                ]
        parsed = read_qrels(str(qrels_path))
        qrels: dict = {}
        first: dict = {}
        for lineno, fields in split_lines(read_bytes(str(qrels_path)), "q"):
            _add_qrel(qrels, first, fields, "q", lineno)
        assert parsed.qrels == qrels and list(parsed.qrels) == list(qrels)
        assert list(parsed.first_line_of_grade.items()) == list(first.items())


@pytest.mark.parametrize("jobs", ["1", "2", "3"])
def test_bad_run_among_good_ones_same_error_whatever_jobs(bvtest, small_track, tmp_path, jobs):
    qrels, runs = small_track
    for path in sorted(runs.iterdir())[:5]:
        (tmp_path / path.name).write_bytes(path.read_bytes())
    good = sorted(runs.iterdir())[5].read_text().splitlines(keepends=True)
    good[7] = good[7].replace(" Q0 ", " Q0 extra ", 1)  # shifted line: rank is a docno
    (tmp_path / "sys003b").write_text("".join(good))
    proc = bvtest("eval", "--quiet", "-j", jobs, qrels, tmp_path)
    assert (proc.forks > 0) == (jobs != "1")  # the error of a worker process, or not
    assert proc.returncode == 2 and proc.stdout == ""
    assert proc.stderr.strip().splitlines() == [
        f"bvtest: {tmp_path / 'sys003b'}:8: rank "
        + repr(good[7].split()[3])
        + " is not an integer (shifted or broken line?)"
    ]
