"""end to end: the commands, formats, JSON schema and pipes."""

from __future__ import annotations

import csv
import io
import json

import pytest
from conftest import SAMPLE_QRELS, SAMPLE_RUNS

SYSTEM_KEYS = {
    "mean",
    "bias2",
    "var",
    "mse",
    "var_rho",
    "var_target",
    "cov_target",
    "zrisk",
    "georisk",
    "zrisk_target",
    "trisk_mean",
    "pareto",
}
TRADEOFF_KEYS = {"pearson", "pearson_p", "spearman", "spearman_p"}


@pytest.fixture(scope="module")
def sample_json():
    from conftest import run_bvtest

    proc = run_bvtest("eval", "-f", "json", SAMPLE_QRELS, SAMPLE_RUNS)
    assert proc.returncode == 0, proc.stderr
    return proc


def test_json_schema(sample_json):
    doc = json.loads(sample_json.stdout)
    assert set(doc) == {"group", "normalize", "measures", "notes"}
    assert doc["group"] is None and doc["normalize"] == "none"
    assert list(doc["measures"]) == ["AP", "nDCG@10", "ERR@20"]
    for block in doc["measures"].values():
        assert set(block) == {"asked", "n_topics", "topic_set", "c", "systems", "tradeoff"}
        assert block["topic_set"] == "judged"
        assert block["n_topics"] == 29  # 30 topics, one without relevant documents
        assert set(block["tradeoff"]) == TRADEOFF_KEYS
        assert list(block["systems"]) == [f"sys{i:03d}" for i in range(1, 13)]
        for fields in block["systems"].values():
            assert set(fields) == SYSTEM_KEYS
            assert list(fields["zrisk"]) == ["0", "1", "5", "10"]
            assert fields["mse"] == pytest.approx(fields["bias2"] + fields["var"], abs=1e-12)
            assert isinstance(fields["pareto"], bool)


def test_notes_on_stderr_and_in_the_json_document(sample_json):
    assert "1 qrels topic(s) have no relevant document" in sample_json.stderr
    assert "sys004: no ranking for 2 of 29 topics" in sample_json.stderr
    notes = json.loads(sample_json.stdout)["notes"]
    assert [f"bvtest: note: {n}" for n in notes] == sample_json.stderr.strip().splitlines()


def test_baseline_adds_fields(bvtest):
    proc = bvtest(
        "eval", "-m", "AP", "--baseline", "sys002", "-f", "json", SAMPLE_QRELS, SAMPLE_RUNS
    )
    fields = json.loads(proc.stdout)["measures"]["AP"]["systems"]["sys001"]
    assert {"urisk", "trisk", "zrisk_baseline"} <= set(fields)


def test_scores_pipe_gives_same_numbers(bvtest):
    direct = bvtest("eval", SAMPLE_QRELS, SAMPLE_RUNS, "--quiet")
    scores = bvtest("scores", SAMPLE_QRELS, SAMPLE_RUNS, "--quiet")
    assert scores.returncode == 0
    header, *rows = scores.stdout.splitlines()
    assert header == "system\ttopic\tmeasure\tvalue"
    assert len(rows) == 12 * 29 * 3
    piped = bvtest("eval", "--scores", "-", "--quiet", stdin=scores.stdout.encode())
    assert piped.returncode == 0, piped.stderr
    # every number the same; the topic set is the file's, as its line says
    import re

    as_file = re.sub(r"(\.topic_set *\tall\t)judged", r"\1file", direct.stdout)
    assert as_file != direct.stdout and piped.stdout == as_file


def test_trec_format_lines(bvtest):
    proc = bvtest("eval", "-m", "AP", SAMPLE_QRELS, SAMPLE_RUNS, "--quiet")
    lines = proc.stdout.splitlines()
    assert all(len(line.split("\t")) == 3 for line in lines)
    # the name column padded as trec_eval's "%-22s\t%s\t%s"
    assert f"{'AP.n_topics':<22}\tall\t29" in lines
    names = {line.split("\t")[0].rstrip() for line in lines}
    assert {
        "AP.bias2",
        "AP.var",
        "AP.mse",
        "AP.var_rho",
        "AP.cov_target",
        "AP.zrisk@5",
        "AP.georisk@10",
        "AP.tradeoff.pearson",
    } <= names
    value = next(line for line in lines if line.startswith(f"{'AP.bias2':<22}\tsys001\t"))
    value = value.split("\t")[2]
    assert len(value.split(".")[1]) == 4  # 4 decimals by default


def test_digits(bvtest):
    proc = bvtest("eval", "-m", "AP", "--digits", "6", SAMPLE_QRELS, SAMPLE_RUNS, "--quiet")
    value = proc.stdout.splitlines()[2].split("\t")[2]
    assert len(value.split(".")[1]) == 6


@pytest.mark.parametrize("fmt,delim", [("tsv", "\t"), ("csv", ",")])
def test_tsv_csv(bvtest, fmt, delim):
    proc = bvtest("eval", "-m", "AP,nDCG@10", "-f", fmt, SAMPLE_QRELS, SAMPLE_RUNS, "--quiet")
    rows = list(csv.reader(io.StringIO(proc.stdout), delimiter=delim))
    assert rows[0] == ["measure", "name", "system", "value"]
    assert ["nDCG@10", "n_topics", "all", "29"] in rows


def test_table_format(bvtest):
    proc = bvtest("eval", "-f", "table", SAMPLE_QRELS, SAMPLE_RUNS, "--quiet")
    # a title per measure (a long one continues on a line "#   ...")
    titles = [line for line in proc.stdout.splitlines() if line.startswith("# ")]
    assert [line.split()[1] for line in titles if not line.startswith("#   ")] == [
        "AP",
        "nDCG@10",
        "ERR@20",
    ]
    assert "georisk@5" in proc.stdout and "tradeoff: pearson=" in proc.stdout


def test_deterministic(bvtest):
    a = bvtest("eval", "-f", "json", SAMPLE_QRELS, SAMPLE_RUNS)
    b = bvtest("eval", "-f", "json", SAMPLE_QRELS, SAMPLE_RUNS)
    assert a.stdout == b.stdout


def test_rel_level_changes_ap(bvtest):
    one = json.loads(
        bvtest("eval", "-m", "AP", "-f", "json", SAMPLE_QRELS, SAMPLE_RUNS, "--quiet").stdout
    )
    two = json.loads(
        bvtest(
            "eval", "-m", "AP", "-l", "2", "-f", "json", SAMPLE_QRELS, SAMPLE_RUNS, "--quiet"
        ).stdout
    )
    assert one["measures"]["AP"]["c"] != two["measures"]["AP"]["c"]


def test_measure_syntax(bvtest):
    proc = bvtest(
        "eval",
        "-m",
        "AP(rel=2),P@10",
        "-m",
        "RR",
        "-f",
        "json",
        SAMPLE_QRELS,
        SAMPLE_RUNS,
        "--quiet",
    )
    assert proc.returncode == 0, proc.stderr
    assert list(json.loads(proc.stdout)["measures"]) == ["AP(rel=2)", "P@10", "RR"]


def test_target_options(bvtest):
    ideal = json.loads(
        bvtest(
            "eval",
            "-m",
            "AP",
            "--target",
            "ideal",
            "-f",
            "json",
            SAMPLE_QRELS,
            SAMPLE_RUNS,
            "--quiet",
        ).stdout
    )
    const = json.loads(
        bvtest(
            "eval",
            "-m",
            "AP",
            "--target",
            "0.5",
            "-f",
            "json",
            SAMPLE_QRELS,
            SAMPLE_RUNS,
            "--quiet",
        ).stdout
    )
    assert ideal["measures"]["AP"]["c"] == 1.0 and const["measures"]["AP"]["c"] == 0.5
    s = ideal["measures"]["AP"]["systems"]["sys001"]
    assert s["bias2"] == pytest.approx((1 - s["mean"]) ** 2, abs=1e-12)


@pytest.mark.parametrize("command", ["eval", "scores", "instability"])
def test_help_has_example(bvtest, command):
    proc = bvtest(command, "--help")
    assert proc.returncode == 0 and "Example" in proc.stdout


def test_version(bvtest):
    proc = bvtest("--version")
    assert proc.returncode == 0 and proc.stdout.startswith("bvtest, version ")


def test_broken_pipe_is_quiet(tmp_path):
    import subprocess

    from conftest import bvtest_executable

    cmd = f"'{bvtest_executable()}' eval --quiet {SAMPLE_QRELS} {SAMPLE_RUNS} | head -1"
    proc = subprocess.run(["bash", "-c", cmd], capture_output=True, text=True)
    assert proc.stdout.count("\n") == 1 and "Traceback" not in proc.stderr
