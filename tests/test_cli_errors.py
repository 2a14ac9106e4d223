"""Bad input: one line on stderr naming the file (and line), exit 2, empty stdout.

Each test feeds one malformed input through the installed `bvtest` command.
"""

from __future__ import annotations

import gzip

import pytest
from conftest import assert_one_line_error

GOOD_QRELS = "1 0 d1 1\n1 0 d2 0\n2 0 d3 2\n"
GOOD_RUN = "1 Q0 d1 1 2.0 r\n1 Q0 d2 2 1.0 r\n2 Q0 d3 1 1.0 r\n"


@pytest.fixture
def files(tmp_path):
    def make(name, text, mode="w"):
        path = tmp_path / name
        if mode == "wb":
            path.write_bytes(text)
        else:
            path.write_text(text)
        return path

    return make


def eval_run(bvtest, files, run_text, name="bad.run", qrels_text=GOOD_QRELS, *extra):
    qrels = files("qrels.txt", qrels_text)
    run = files(name, run_text)
    return bvtest("eval", "-m", "AP", qrels, run, *extra), run


def test_missing_path(bvtest, files, tmp_path):
    qrels = files("qrels.txt", GOOD_QRELS)
    assert_one_line_error(bvtest("eval", qrels, tmp_path / "nope.run"), "nope.run", "no such file")


def test_missing_qrels(bvtest, files, tmp_path):
    run = files("a.run", GOOD_RUN)
    assert_one_line_error(bvtest("eval", tmp_path / "q.txt", run), "q.txt")


def test_qrels_is_directory(bvtest, files, tmp_path):
    run = files("a.run", GOOD_RUN)
    assert_one_line_error(bvtest("eval", tmp_path, run), str(tmp_path), "directory")


def test_empty_run_file(bvtest, files):
    proc, run = eval_run(bvtest, files, "")
    assert_one_line_error(proc, str(run), "empty")


def test_empty_qrels_file(bvtest, files):
    qrels = files("q.txt", "\n\n")
    run = files("a.run", GOOD_RUN)
    assert_one_line_error(bvtest("eval", qrels, run), "q.txt", "empty")


def test_empty_directory(bvtest, files, tmp_path):
    qrels = files("qrels.txt", GOOD_QRELS)
    (tmp_path / "runs").mkdir()
    (tmp_path / "runs" / ".hidden").write_text(GOOD_RUN)
    assert_one_line_error(bvtest("eval", qrels, tmp_path / "runs"), "runs", "no run files")


def test_duplicate_docno(bvtest, files):
    proc, run = eval_run(bvtest, files, GOOD_RUN + "1 Q0 d1 3 0.5 r\n")
    assert_one_line_error(proc, f"{run}:4:", "duplicate docno", "'d1'", "'1'")


def test_non_numeric_score(bvtest, files):
    proc, run = eval_run(bvtest, files, "1 Q0 d1 1 2.0 r\n1 Q0 d2 2 high r\n")
    assert_one_line_error(proc, f"{run}:2:", "score", "'high'")


def test_non_finite_score(bvtest, files):
    proc, run = eval_run(bvtest, files, "1 Q0 d1 1 nan r\n")
    assert_one_line_error(proc, f"{run}:1:", "score")


def test_non_integer_rank(bvtest, files):
    proc, run = eval_run(bvtest, files, "1 Q0 d1 1 2.0 r\n1 Q0 d2 2.5 1.0 r\n")
    assert_one_line_error(proc, f"{run}:2:", "rank")


def test_too_few_columns(bvtest, files):
    proc, run = eval_run(bvtest, files, "1 Q0 d1 1 2.0 r\n\n1 Q0 d2 1.0 r\n")
    assert_one_line_error(proc, f"{run}:3:", "6 fields")


def test_binary_junk(bvtest, files):
    proc, run = eval_run(bvtest, files, "1 Q0 d1 1 2.0 r\n")
    run.write_bytes(b"1 Q0 d1 1 2.0 r\n\x00\x01\x02\xff\xfe\n")
    proc = bvtest("eval", "-m", "AP", run.parent / "qrels.txt", run)
    assert_one_line_error(proc, f"{run}:2:", "binary")


def test_not_utf8(bvtest, files):
    proc, run = eval_run(bvtest, files, "")
    # a topic id must be UTF-8 text (it is printed); docnos are opaque bytes
    run.write_bytes(b"1 Q0 d1 1 2.0 r\n\xff1 Q0 d2 2 1.0 r\n")
    proc = bvtest("eval", "-m", "AP", run.parent / "qrels.txt", run)
    assert_one_line_error(proc, f"{run}:2:", "UTF-8")


def test_corrupt_gzip(bvtest, files):
    qrels = files("qrels.txt", GOOD_QRELS)
    run = files("a.run.gz", gzip.compress(GOOD_RUN.encode())[:20], mode="wb")
    assert_one_line_error(bvtest("eval", qrels, run), "a.run.gz")


def test_two_files_one_system_name(bvtest, files, tmp_path):
    qrels = files("qrels.txt", GOOD_QRELS)
    plain = files("a.run", GOOD_RUN)
    zipped = files("a.run.gz", gzip.compress(GOOD_RUN.encode()), mode="wb")
    assert_one_line_error(bvtest("eval", qrels, plain, zipped), "a.run", "unique")


def test_qrels_conflicting_grades(bvtest, files):
    qrels = files("q.txt", GOOD_QRELS + "1 0 d1 2\n")
    run = files("a.run", GOOD_RUN)
    assert_one_line_error(bvtest("eval", qrels, run), "q.txt:4:", "different grades")


def test_qrels_same_grade_twice_is_fine(bvtest, files):
    qrels = files("q.txt", GOOD_QRELS + "1 0 d1 1\n")
    run = files("a.run", GOOD_RUN)
    proc = bvtest("eval", "-m", "AP", qrels, run)
    assert proc.returncode == 0, proc.stderr


def test_qrels_non_integer_grade(bvtest, files):
    qrels = files("q.txt", "1 0 d1 1\n1 0 d2 0.5\n")
    run = files("a.run", GOOD_RUN)
    assert_one_line_error(bvtest("eval", qrels, run), "q.txt:2:", "'0.5'")


def test_qrels_too_few_columns(bvtest, files):
    qrels = files("q.txt", "1 0 d1 1\n1 d2 0\n")
    run = files("a.run", GOOD_RUN)
    assert_one_line_error(bvtest("eval", qrels, run), "q.txt:2:", "4 fields")


def test_err_grade_above_four(bvtest, files):
    qrels = files("q.txt", "1 0 d1 1\n1 0 d2 7\n")
    run = files("a.run", GOOD_RUN)
    assert_one_line_error(bvtest("eval", "-m", "ERR@20", qrels, run), "q.txt:2:", "grade 7")
    # the same qrels are fine for AP, whose grades are only compared with the rel level
    assert bvtest("eval", "-m", "AP", qrels, run).returncode == 0


def test_no_relevant_topic(bvtest, files):
    qrels = files("q.txt", "1 0 d1 0\n")
    run = files("a.run", GOOD_RUN)
    assert_one_line_error(bvtest("eval", "-m", "AP", qrels, run), "q.txt", "no topic")


def test_unknown_measure(bvtest, files):
    qrels = files("q.txt", GOOD_QRELS)
    run = files("a.run", GOOD_RUN)
    assert_one_line_error(bvtest("eval", "-m", "Foo@3", qrels, run), "Foo@3")


def test_unknown_baseline(bvtest, files):
    qrels = files("q.txt", GOOD_QRELS)
    run = files("a.run", GOOD_RUN)
    assert_one_line_error(bvtest("eval", "-m", "AP", "--baseline", "zz.run", qrels, run), "zz.run")


@pytest.mark.parametrize("alpha", ["-1", "x", "1,,1"])
def test_bad_alpha(bvtest, files, alpha):
    qrels = files("q.txt", GOOD_QRELS)
    run = files("a.run", GOOD_RUN)
    proc = bvtest("eval", "-m", "AP", "--alpha", alpha, qrels, run)
    assert proc.returncode == 2 and proc.stdout == "" and "Traceback" not in proc.stderr


@pytest.mark.parametrize("target", ["2", "best", "-0.1"])
def test_bad_target(bvtest, files, target):
    qrels = files("q.txt", GOOD_QRELS)
    run = files("a.run", GOOD_RUN)
    proc = bvtest("eval", "-m", "AP", "--target", target, qrels, run)
    assert proc.returncode == 2 and proc.stdout == "" and "--target" in proc.stderr


def test_scores_duplicate_cell(bvtest, files):
    scores = files("s.tsv", "a\t1\tAP\t0.5\nb\t1\tAP\t0.2\na\t1\tAP\t0.4\n")
    assert_one_line_error(bvtest("eval", "--scores", scores), "s.tsv:3:", "duplicate")


def test_scores_non_numeric(bvtest, files):
    scores = files("s.tsv", "system\ttopic\tmeasure\tvalue\na\t1\tAP\tgood\n")
    assert_one_line_error(bvtest("eval", "--scores", scores), "s.tsv:2:", "'good'")


def test_scores_wrong_field_count(bvtest, files):
    scores = files("s.tsv", "a\t1\tAP\t0.5\nb\t1\t0.2\n")
    assert_one_line_error(bvtest("eval", "--scores", scores), "s.tsv:2:", "4 fields")


def test_scores_unknown_measure(bvtest, files):
    scores = files("s.tsv", "a\t1\tAP\t0.5\nb\t1\tAP\t0.2\n")
    assert_one_line_error(bvtest("eval", "--scores", scores, "-m", "nDCG@10"), "s.tsv", "nDCG@10")


def test_scores_and_runs_together(bvtest, files):
    scores = files("s.tsv", "a\t1\tAP\t0.5\n")
    proc = bvtest("eval", "--scores", scores, "q.txt", "r.run")
    assert proc.returncode == 2 and proc.stdout == "" and "not both" in proc.stderr


def test_stdin_error_is_named(bvtest, files):
    qrels = files("q.txt", GOOD_QRELS)
    proc = bvtest("eval", "-m", "AP", qrels, "-", stdin=b"1 Q0 d1 x 2.0 r\n")
    assert_one_line_error(proc, "<stdin>:1:", "rank")


def test_error_in_parallel_worker_keeps_line(bvtest, files, tmp_path):
    qrels = files("q.txt", GOOD_QRELS)
    (tmp_path / "runs").mkdir()
    for i in range(4):
        (tmp_path / "runs" / f"r{i}.run").write_text(GOOD_RUN)
    (tmp_path / "runs" / "r2.run").write_text(GOOD_RUN + "2 Q0 d9 1\n")
    proc = bvtest("eval", "-m", "AP", "-j", "2", qrels, tmp_path / "runs")
    assert_one_line_error(proc, "r2.run:4:", "6 fields")
    assert proc.forks > 0  # the error came back from a worker process


def test_error_after_notes_is_still_one_line(bvtest, files):
    # the qrels drop topic 3 (no relevant document): a note on success, but an
    # error later in the same command must stand alone on stderr
    qrels = files("q.txt", GOOD_QRELS + "3 0 z 0\n")
    good = files("a.run", GOOD_RUN)
    bad = files("b.run", "1 Q0 d1 one 2.0 r\n")
    assert "dropped" in bvtest("eval", "-m", "AP", qrels, good).stderr
    assert_one_line_error(bvtest("eval", "-m", "AP", qrels, good, bad), "b.run:1:", "rank")
