"""Run names the user types, resolved to the runs' names (bvtest_cli.io.runnames):
TREC's distributed runs are files ``input.TAG.gz``, so their runs are called
``input.TAG`` while people write TAG."""

from __future__ import annotations

import gzip
import json
import shutil
from pathlib import Path

import pytest
from conftest import SAMPLE_QRELS, SAMPLE_RUNS, assert_one_line_error, run_bvtest

import bvtest
from bvtest_cli.errors import InputError
from bvtest_cli.io.runnames import resolve_run

TWELVE = [f"input.sys{i:03d}" for i in range(1, 13)]


def retagged(source: Path, target: Path, tag: str) -> Path:
    """``source``'s lines with column 6 (the run tag) set to ``tag``."""
    lines = [" ".join([*line.split()[:5], tag]) for line in source.read_text().splitlines()]
    target.write_text("\n".join(lines) + "\n")
    return target


@pytest.fixture
def trec_pool(tmp_path: Path) -> Path:
    """sys001, sys002, sys003 as TREC names them (input.X; one gzipped) and sys012."""
    pool = tmp_path / "pool"
    pool.mkdir()
    for name in ("sys001", "sys002", "sys012"):
        shutil.copy(SAMPLE_RUNS / name, pool / f"input.{name}")
    with gzip.open(pool / "input.sys003.gz", "wb") as out:
        out.write((SAMPLE_RUNS / "sys003").read_bytes())
    return pool


# --------------------------------------------------------------------------- the function


def test_exact_name_is_taken_as_is():
    assert resolve_run("input.sys002", TWELVE, "--pair") == ("input.sys002", None)


def test_name_without_the_prefix_with_a_note():
    assert resolve_run("sys007", TWELVE, "--pair") == (
        "input.sys007",
        "sys007: taken as input.sys007 (its name without the 'input.' prefix)",
    )


def test_prefixed_name_of_a_bare_run():
    assert resolve_run("input.bm25", ["bm25", "dph"], None)[0] == "bm25"


def test_run_tag():
    def tags():
        return {"a.run": "bm25", "b.run": "dph"}

    name, note = resolve_run("dph", ["a.run", "b.run"], None, tags)
    assert (name, note) == ("b.run", "dph: taken as b.run (its run tag)")


def test_tags_are_read_only_when_the_name_is_not_a_run():
    def tags():
        raise AssertionError("tags read for an exact name")

    assert resolve_run("a.run", ["a.run"], None, tags) == ("a.run", None)


def test_two_matches_are_an_error_naming_both():
    with pytest.raises(InputError) as info:
        resolve_run("bm25", ["input.bm25", "mine.run"], "--pair", lambda: {"mine.run": "bm25"})
    assert "'input.bm25'" in info.value.message and "'mine.run'" in info.value.message
    assert info.value.file == "--pair"


def test_did_you_mean_lists_the_closest_not_the_first():
    with pytest.raises(InputError) as info:
        resolve_run("sys0122", TWELVE, "--pair")
    message = info.value.message
    assert "is not among the runs" in message
    suggested = message.split("did you mean ", 1)[1].rstrip("?").split(", ")
    # sys0122 is one deleted character from sys012, and from nothing of the first five
    assert suggested[0] == "input.sys012"
    assert suggested != TWELVE[:5]
    assert len(suggested) == 5


def test_no_runs_at_all():
    with pytest.raises(InputError, match="there are none"):
        resolve_run("x", [], None)


# --------------------------------------------------------------------------- compare


def test_compare_pair_by_tag_name(bvtest, trec_pool):
    proc = bvtest("compare", "-f", "json", "-m", "AP", "--fields", "mean", "--bootstrap", "100",
                  SAMPLE_QRELS, trec_pool, "--pair", "sys001", "sys003")  # fmt: skip
    assert proc.returncode == 0, proc.stderr
    pair = json.loads(proc.stdout)["measures"]["AP"]["pairs"][0]
    assert (pair["a"], pair["b"]) == ("input.sys001", "input.sys003")


def test_compare_same_run_twice_through_its_two_names(bvtest, trec_pool):
    proc = bvtest("compare", "-m", "AP", SAMPLE_QRELS, trec_pool,
                  "--pair", "sys001", "input.sys001")  # fmt: skip
    assert_one_line_error(proc, "compared with itself")


def test_compare_ambiguous_name(bvtest, trec_pool):
    shutil.copy(SAMPLE_RUNS / "sys001", trec_pool / "other.run")  # its run tag is sys001
    proc = bvtest("compare", "-m", "AP", SAMPLE_QRELS, trec_pool, "--pair", "sys001", "sys002")
    assert_one_line_error(proc, "--pair", "'input.sys001'", "'other.run'")


def test_compare_did_you_mean(bvtest, trec_pool):
    proc = bvtest("compare", "-m", "AP", SAMPLE_QRELS, trec_pool, "--pair", "sys0122", "sys002")
    assert_one_line_error(proc, "--pair", "'sys0122'", "did you mean input.sys012,")


def test_compare_api_raises_input_error(trec_pool):
    with pytest.raises(bvtest.InputError, match=r"did you mean input\.sys012"):
        bvtest.compare(SAMPLE_QRELS, trec_pool, measures="AP", pair=("sys0122", "sys001"))


# --------------------------------------------------------------------------- check


def test_check_gate_reference_without_prefix(bvtest, trec_pool, tmp_path):
    new = retagged(SAMPLE_RUNS / "sys002", tmp_path / "cand.run", "cand")
    proc = bvtest("check", "-f", "json", SAMPLE_QRELS, trec_pool, new,
                  "-g", "AP:mean>=sys002", "-g", "AP:mean>=sys002~0.01")  # fmt: skip
    assert proc.returncode == 0, proc.stderr
    verdicts = json.loads(proc.stdout)["verdicts"]
    assert [v["bound_run"] for v in verdicts] == ["input.sys002", "input.sys002"]
    assert all(v["passed"] for v in verdicts)
    assert "sys002: taken as input.sys002" in proc.stderr


def test_check_baseline_without_prefix(bvtest, trec_pool, tmp_path):
    new = retagged(SAMPLE_RUNS / "sys002", tmp_path / "cand.run", "cand")
    proc = bvtest("check", "--quiet", SAMPLE_QRELS, trec_pool, new, "--baseline", "sys001",
                  "-g", "AP:urisk@1>=-1")  # fmt: skip
    assert proc.returncode == 0, proc.stderr


def test_check_reference_naming_a_new_run(bvtest, trec_pool, tmp_path):
    new = tmp_path / "input.cand"
    shutil.copy(SAMPLE_RUNS / "sys005", new)
    proc = bvtest("check", SAMPLE_QRELS, trec_pool, new, "-g", "AP:mean>=cand~0.01")
    assert_one_line_error(proc, "'input.cand' is a new run")


def test_check_ambiguous_reference(bvtest, trec_pool, tmp_path):
    new = tmp_path / "cand.run"
    shutil.copy(SAMPLE_RUNS / "sys002", new)  # its run tag is sys002, as input.sys002's
    proc = bvtest("check", SAMPLE_QRELS, trec_pool, new, "-g", "AP:mean>>sys002")
    assert_one_line_error(proc, "gate 'AP:mean>>sys002'", "'input.sys002'", "'cand.run'")


def test_check_did_you_mean(bvtest, trec_pool, tmp_path):
    new = retagged(SAMPLE_RUNS / "sys002", tmp_path / "cand.run", "cand")
    proc = bvtest("check", SAMPLE_QRELS, trec_pool, new, "-g", "AP:mean>=sys0122")
    assert_one_line_error(proc, "neither a number nor a pool run", "did you mean input.sys012,")


def test_check_api_raises_input_error(trec_pool, tmp_path):
    new = retagged(SAMPLE_RUNS / "sys002", tmp_path / "cand.run", "cand")
    with pytest.raises(bvtest.InputError, match=r"did you mean input\.sys001, input\.sys002"):
        bvtest.check(SAMPLE_QRELS, trec_pool, [str(new)], gates=["AP:mean>=sys00"])


def test_name_auto_takes_the_tags_of_trec_named_files(tmp_path):
    runs = tmp_path / "runs"
    runs.mkdir()
    for k in (1, 2, 3):
        text = (SAMPLE_RUNS / f"sys00{k}").read_text().replace(f"sys00{k}", f"tag{k}")
        (runs / f"input.tag{k}").write_text(text)
    proc = run_bvtest("eval", "--name", "auto", "-m", "AP", SAMPLE_QRELS, runs)
    assert proc.returncode == 0, proc.stderr
    assert "AP.mean" in proc.stdout and "\ttag1\t" in proc.stdout
    assert "--name auto" in proc.stderr
    # a directory not named TREC's way keeps its file names, without a note
    plain = run_bvtest("eval", "--name", "auto", "-m", "AP", SAMPLE_QRELS, SAMPLE_RUNS)
    assert "\tsys001\t" in plain.stdout and "--name auto" not in plain.stderr


def test_name_auto_cannot_act_on_a_scores_file(tmp_path):
    scores = tmp_path / "s.tsv"
    scores.write_text("a\t1\tAP\t0.5\nb\t1\tAP\t0.25\n")
    proc = run_bvtest("eval", "--scores", scores, "--name", "auto")
    assert_one_line_error(proc, "--name")
