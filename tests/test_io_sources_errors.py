"""A qrels file that shares no topic with what it is compared to is a wrong
input, named in one line with exit status 2 — never a table of zeros or NaN."""

from __future__ import annotations

import pytest
from conftest import SAMPLE_QRELS, SAMPLE_RUNS, run_bvtest


def _one_line_error(proc, name: str) -> str:
    assert proc.returncode == 2
    assert proc.stdout == ""
    lines = proc.stderr.strip().splitlines()
    assert len(lines) == 1 and lines[0].startswith("bvtest: ")
    assert name in lines[0]
    return lines[0]


@pytest.mark.parametrize(
    ("role", "words"),
    [("reference", "wrong qrels file"), ("collection", "'x' judges none")],
)
def test_rankings_qrels_sharing_no_topic(tmp_path, role, words):
    """A reference no run ranks a topic of, or a collection that judges no
    reference topic: an error naming the file."""
    other = tmp_path / "other.qrels"
    other.write_text("999 0 d1 1\n998 0 d2 0\n")
    reference, collection = (other, SAMPLE_QRELS) if role == "reference" else (SAMPLE_QRELS, other)
    proc = run_bvtest(
        "rankings", "--reference", reference, "--collection", f"x={collection}", SAMPLE_RUNS
    )
    assert words in _one_line_error(proc, "other.qrels")


def test_rankings_collection_judging_some_topics_is_a_note(tmp_path):
    """One judged topic is a (small) collection: a note for the rest, exit 0."""
    judged = tmp_path / "one.qrels"
    judged.write_text("401 0 d1 1\n")
    proc = run_bvtest(
        "rankings", "--bootstrap", "20", "--reference", SAMPLE_QRELS, "--collection",
        f"x={judged}", SAMPLE_RUNS,
    )  # fmt: skip
    assert proc.returncode == 0, proc.stderr
    assert "have no judgments" in proc.stderr


def test_rankings_note_names_the_dropped_reference_topics():
    proc = run_bvtest(
        "rankings", "--bootstrap", "20", "--reference", SAMPLE_QRELS, "--collection",
        f"x={SAMPLE_QRELS}", SAMPLE_RUNS,
    )  # fmt: skip
    assert proc.returncode == 0
    assert "dropped: 430" in proc.stderr


def test_compare_names_the_unreadable_run_before_counting_runs(tmp_path):
    bad = tmp_path / "bad.run"
    bad.write_text("401 Q0 d1 x 1.0 t\n")
    runs = [SAMPLE_RUNS / f"sys00{i}" for i in (1, 2, 3)]
    line = _one_line_error(run_bvtest("compare", SAMPLE_QRELS, *runs, bad), "bad.run:1")
    assert "rank" in line
    # readable runs: the usage error, before anything is evaluated
    line = _one_line_error(run_bvtest("compare", SAMPLE_QRELS, *runs), "3 runs")
    assert "--pair" in line


def test_a_file_named_dash_in_a_run_directory_is_a_file_not_stdin(tmp_path):
    runs = tmp_path / "runs"
    runs.mkdir()
    (runs / "-").write_bytes((SAMPLE_RUNS / "sys001").read_bytes())
    (runs / "b").write_bytes((SAMPLE_RUNS / "sys002").read_bytes())
    proc = run_bvtest("eval", "-m", "AP", "-f", "json", SAMPLE_QRELS, runs, stdin=b"")
    assert proc.returncode == 0, proc.stderr
    import json

    systems = json.loads(proc.stdout)["measures"]["AP"]["systems"]
    assert list(systems) == ["-", "b"]
    # its numbers are sys001's, read from the file (stdin is empty)
    direct = run_bvtest("eval", "-m", "AP", "-f", "json", SAMPLE_QRELS, SAMPLE_RUNS / "sys001",
                        SAMPLE_RUNS / "sys002")  # fmt: skip
    assert (
        systems["-"]["mean"]
        == json.loads(direct.stdout)["measures"]["AP"]["systems"]["sys001"]["mean"]
    )


def test_empty_or_unprintable_system_and_condition_names_are_refused(tmp_path):
    two = (SAMPLE_RUNS / "sys001", SAMPLE_RUNS / "sys002")
    proc = run_bvtest(
        "conditions", "--pattern", "(?P<system>.*)(?P<condition>sys00[12])", SAMPLE_QRELS, *two
    )
    assert "is empty" in _one_line_error(proc, "--pattern")
    proc = run_bvtest(
        "conditions", "--pattern", "(?P<system>sys)(?P<condition>.*)", SAMPLE_QRELS, *two
    )
    assert proc.returncode == 0, proc.stderr  # "001" and "002" are conditions
    bad = tmp_path / "map.txt"
    bad.write_bytes(b"sys001 a\x01b c1\nsys002 a c2\n")
    proc = run_bvtest("conditions", "--map", bad, SAMPLE_QRELS, *two)
    assert "control character" in _one_line_error(proc, "map.txt:1")


def test_a_symbolic_link_loop_is_called_so(tmp_path):
    (tmp_path / "a").symlink_to(tmp_path / "b")
    (tmp_path / "b").symlink_to(tmp_path / "a")
    line = _one_line_error(run_bvtest("eval", SAMPLE_QRELS, tmp_path / "a"), "a")
    assert "symbolic link loop" in line and "dangling" not in line
    (tmp_path / "gone").symlink_to(tmp_path / "nothing")
    proc = run_bvtest("eval", SAMPLE_QRELS, tmp_path / "gone")
    assert "dangling" in _one_line_error(proc, "gone")


def test_a_run_read_from_a_pipe_is_named_for_its_descriptor():
    from bvtest_cli.io.sources import system_name

    assert system_name("/dev/fd/63") == "fd63"
    assert system_name("/proc/self/fd/5") == "fd5"
    assert system_name("runs/63") == "63"  # a real file keeps its name
