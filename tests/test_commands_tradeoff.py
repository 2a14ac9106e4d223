"""`bvtest tradeoff` (seed 000 Table 9 layout) and --group/--normalize end to end.

Expected correlations are computed here independently: Bias² and Var by hand,
the correlations with scipy.stats.
"""

from __future__ import annotations

import csv
import io
import json
import math

import numpy as np
import pytest
from conftest import SAMPLE_QRELS, SAMPLE_RUNS, unpadded
from permutation_oracle import correlation_p
from scipy import stats

from bvtest_cli.commands.tradeoff.build import tradeoff_report
from bvtest_cli.commands.tradeoff.params import TradeoffParams
from bvtest_cli.measures.matrix import ScoreMatrix
from bvtest_cli.render.text import render

CELL_KEYS = {"pearson", "pearson_p", "spearman", "spearman_p", "n_topics"}

# 4 systems × 4 topics. Virtual target x_T = (t1 .8, t2 .6, t3 .8, t4 .6), c = 0.7.
HAND = {
    "A": {"t1": 0.8, "t2": 0.6, "t3": 0.6, "t4": 0.0},  # mean .5
    "B": {"t1": 0.6, "t2": 0.6, "t3": 0.6, "t4": 0.6},  # mean .6
    "C": {"t1": 0.2, "t2": 0.2, "t3": 0.8, "t4": 0.4},  # mean .4
    "D": {"t1": 0.5, "t2": 0.1, "t3": 0.0, "t4": 0.2},  # mean .2
}
# Bias² = (mean − 0.7)²: A .04, B .01, C .09, D .25 (every setting below: with
# equal group sizes the group means average to the topic means and c stays .7).
BIAS2 = [0.04, 0.01, 0.09, 0.25]
# Var over topics (1/n): A (.09+.01+.01+.25)/4 = .09; B 0;
# C (.04+.04+.16+0)/4 = .06; D (.09+.01+.04+0)/4 = .035.
VAR_ALL = [0.09, 0.0, 0.06, 0.035]
# difficulty:2: topics by x_T ascending, ties by id: t2 (.6), t4 (.6), t1 (.8), t3 (.8)
# → groups {t2,t4}, {t1,t3}. Group means: A .3/.7, B .6/.6, C .3/.5, D .15/.25;
# targets .6/.8 (c = .7). Var (1/2): A .04, B 0, C .01, D .0025.
VAR_DIFF2 = [0.04, 0.0, 0.01, 0.0025]
# difficulty:3: same order → groups {t2,t4,t1}, {t3} (the smaller remainder last).
DIFF3_GROUPS = [["t2", "t4", "t1"], ["t3"]]


def scores_text(table: dict[str, dict[str, float]], measure: str = "AP") -> str:
    lines = ["system\ttopic\tmeasure\tvalue"]
    for system, row in table.items():
        lines += [f"{system}\t{topic}\t{measure}\t{value!r}" for topic, value in row.items()]
    return "\n".join(lines) + "\n"


@pytest.fixture
def hand_scores(tmp_path):
    path = tmp_path / "hand.tsv"
    path.write_text(scores_text(HAND))
    return path


def tradeoff_json(bvtest, *args):
    proc = bvtest("tradeoff", "-f", "json", *args)
    assert proc.returncode == 0, proc.stderr
    return json.loads(proc.stdout)


def assert_cell(cell, bias2, var):
    p, s = stats.pearsonr(bias2, var), stats.spearmanr(bias2, var)
    assert cell["pearson"] == pytest.approx(p.statistic, abs=1e-9)
    # exact permutation p-values for <= 10 runs, scipy's t-test above (docs/numbers.md)
    assert cell["pearson_p"] == pytest.approx(correlation_p(bias2, var, "pearson"), rel=1e-6)
    assert cell["spearman"] == pytest.approx(s.statistic, abs=1e-9)
    assert cell["spearman_p"] == pytest.approx(correlation_p(bias2, var, "spearman"), rel=1e-6)


# --------------------------------------------------------------------------- hand-made values


def test_all_raw_against_hand_computed(bvtest, hand_scores):
    doc = tradeoff_json(bvtest, "--scores", hand_scores, "--difficulty-size", "2")
    block = doc["measures"]["AP"]
    assert block["n_systems"] == 4 and block["n_topics"] == 4
    assert_cell(block["all"]["raw"], BIAS2, VAR_ALL)
    assert block["all"]["raw"]["n_topics"] == 4


def test_difficulty_groups_by_hand(bvtest, hand_scores):
    doc = tradeoff_json(bvtest, "--scores", hand_scores, "--difficulty-size", "2")
    cell = doc["measures"]["AP"]["difficulty:2"]["raw"]
    assert cell["n_groups"] == 2 and cell["n_topics"] == 4
    assert_cell(cell, BIAS2, VAR_DIFF2)


def test_difficulty_remainder_group_by_hand(bvtest, hand_scores):
    doc = tradeoff_json(bvtest, "--scores", hand_scores, "--difficulty-size", "3")
    cell = doc["measures"]["AP"]["difficulty:3"]["raw"]
    assert cell["n_groups"] == 2
    x = np.array([[np.mean([HAND[s][t] for t in g]) for g in DIFF3_GROUPS] for s in HAND])
    target = np.array([np.mean([max(HAND[s][t] for s in HAND) for t in g]) for g in DIFF3_GROUPS])
    c = target.mean()  # (.6+.6+.8)/3 and .8 → c = (2/3 + .8)/2
    assert c == pytest.approx((2 / 3 + 0.8) / 2)
    bias2 = (x.mean(axis=1) - c) ** 2
    var = x.var(axis=1)  # population variance over the 2 groups
    assert_cell(cell, bias2, var)


def test_all_minmax_independent(bvtest, hand_scores):
    doc = tradeoff_json(bvtest, "--scores", hand_scores)
    values = np.array([[HAND[s][t] for t in ("t1", "t2", "t3", "t4")] for s in HAND])
    lo, hi = values.min(axis=0), values.max(axis=0)
    norm = (values - lo) / (hi - lo)  # target 1 on every topic → c = 1
    assert_cell(doc["measures"]["AP"]["all"]["minmax"], (norm.mean(axis=1) - 1) ** 2, norm.var(1))


def test_pure_function_matches_command(bvtest, hand_scores):
    systems = tuple(HAND)
    topics = ("t1", "t2", "t3", "t4")
    m = ScoreMatrix("AP", systems, topics, np.array([[HAND[s][t] for t in topics] for s in HAND]))
    settings = TradeoffParams(random_size=2, difficulty_size=2, repeats=20, seed=3)
    report = tradeoff_report([m], settings)
    assert report.notes == ()
    doc = tradeoff_json(
        bvtest,
        "--scores",
        hand_scores,
        "--random-size",
        "2",
        "--difficulty-size",
        "2",
        "--repeats",
        "20",
        "--seed",
        "3",
    )
    assert doc == json.loads(render(report, "json"))


def test_cells_equal_eval_tradeoff(bvtest, tmp_path):
    """Every cell is the tradeoff `bvtest eval --group G --normalize N` reports."""
    scores = tmp_path / "s.tsv"
    proc = bvtest("scores", "-m", "AP", SAMPLE_QRELS, SAMPLE_RUNS)
    assert proc.returncode == 0, proc.stderr
    scores.write_text(proc.stdout)
    doc = tradeoff_json(bvtest, "--scores", scores, "--repeats", "50", "--seed", "7")
    for row, group in (("all", None), ("random:10", "random:10"), ("difficulty:5", "difficulty:5")):
        for column in ("raw", "minmax"):
            args = ["--normalize", "none" if column == "raw" else column]
            if group:
                args += ["--group", group, "--seed", "7"]
                args += ["--repeats", "50"] if group.startswith("random") else []
            proc = bvtest("eval", "--scores", scores, "-f", "json", "--quiet", *args)
            assert proc.returncode == 0, proc.stderr
            expected = json.loads(proc.stdout)["measures"]["AP"]["tradeoff"]
            cell = doc["measures"]["AP"][row][column]
            for key, value in expected.items():
                assert cell[key] == pytest.approx(value, abs=1e-12), (row, column, key)


# --------------------------------------------------------------------------- determinism


@pytest.mark.parametrize(
    "command", [["eval", "--group", "random:2"], ["tradeoff", "--random-size", "2"]]
)
def test_seed_determinism(bvtest, command):
    def run(seed):
        proc = bvtest(
            *command,
            "-m",
            "AP",
            "--repeats",
            "50",
            "--seed",
            seed,
            "--quiet",
            SAMPLE_QRELS,
            SAMPLE_RUNS,
        )
        assert proc.returncode == 0, proc.stderr
        return proc.stdout

    first = run(1)
    assert run(1) == first  # byte-identical
    assert run(2) != first


# --------------------------------------------------------------------------- normalization


@pytest.fixture
def with_target(tmp_path):
    """HAND plus a system that is the per-topic max (the virtual target), two measures."""
    table = dict(HAND)
    table["T"] = {t: max(HAND[s][t] for s in HAND) for t in ("t1", "t2", "t3", "t4")}
    second = {s: {t: v / 2 for t, v in row.items()} for s, row in table.items()}
    path = tmp_path / "target.tsv"
    path.write_text(scores_text(table, "AP") + scores_text(second, "nDCG@10").split("\n", 1)[1])
    return path


@pytest.mark.parametrize("normalize", ["minmax", "ratio"])
@pytest.mark.parametrize("group", [None, "difficulty:2", "random:3"])
def test_virtual_target_is_perfect(bvtest, with_target, normalize, group):
    args = ["--group", group] if group else []
    args += ["--repeats", "20"] if group and group.startswith("random") else []
    proc = bvtest("eval", "--scores", with_target, "--normalize", normalize, "-f", "json", *args)
    assert proc.returncode == 0, proc.stderr
    doc = json.loads(proc.stdout)
    assert doc["normalize"] == normalize and doc["group"] == group
    assert list(doc["measures"]) == ["AP", "nDCG@10"]
    for block in doc["measures"].values():
        assert block["c"] == 1
        target = block["systems"]["T"]
        assert target["bias2"] == pytest.approx(0, abs=1e-15)
        assert target["var"] == pytest.approx(0, abs=1e-15)
        assert target["mean"] == pytest.approx(1, abs=1e-15)
        for fields in block["systems"].values():
            assert fields["mse"] == pytest.approx(fields["bias2"] + fields["var"], abs=1e-12)


def test_eval_json_group_and_normalize_keys(bvtest):
    proc = bvtest(
        "eval",
        "-f",
        "json",
        "--group",
        "difficulty:3",
        "--normalize",
        "minmax",
        SAMPLE_QRELS,
        SAMPLE_RUNS,
    )
    assert proc.returncode == 0, proc.stderr
    doc = json.loads(proc.stdout)
    assert doc["group"] == "difficulty:3" and doc["normalize"] == "minmax"
    for block in doc["measures"].values():
        assert block["n_groups"] == math.ceil(block["n_topics"] / 3)
        assert block["c"] == 1
        assert set(block["tradeoff"]) == {"pearson", "pearson_p", "spearman", "spearman_p"}


def test_eval_every_analysis_honours_options(bvtest, tmp_path):
    """Grouping changes the decomposition, Var(ρ) and the tradeoff but not risk
    (docs/numbers.md); normalization changes all of them."""
    scores = tmp_path / "s.tsv"
    scores.write_text(bvtest("scores", "-m", "AP", SAMPLE_QRELS, SAMPLE_RUNS).stdout)

    def run(*args):
        proc = bvtest("eval", "--scores", scores, "-f", "json", "--quiet", *args)
        assert proc.returncode == 0, proc.stderr
        return json.loads(proc.stdout)["measures"]["AP"]

    plain, grouped = run(), run("--group", "difficulty:5")
    normalized = run("--normalize", "minmax")
    s = "sys001"
    for field in ("var", "var_rho", "cov_target"):
        assert grouped["systems"][s][field] != pytest.approx(plain["systems"][s][field])
        assert normalized["systems"][s][field] != pytest.approx(plain["systems"][s][field])
    assert grouped["tradeoff"]["pearson"] != pytest.approx(plain["tradeoff"]["pearson"])
    assert normalized["tradeoff"]["pearson"] != pytest.approx(plain["tradeoff"]["pearson"])
    for field in ("zrisk", "georisk", "zrisk_target", "trisk_mean"):
        assert grouped["systems"][s][field] == plain["systems"][s][field]
        assert normalized["systems"][s][field] != plain["systems"][s][field]


# --------------------------------------------------------------------------- formats and notes


@pytest.fixture(scope="module")
def sample_scores(tmp_path_factory):
    from conftest import run_bvtest

    path = tmp_path_factory.mktemp("tr") / "s.tsv"
    proc = run_bvtest("scores", "-m", "AP", "-m", "nDCG@10", SAMPLE_QRELS, SAMPLE_RUNS)
    assert proc.returncode == 0, proc.stderr
    path.write_text(proc.stdout)
    return path


@pytest.mark.parametrize("fmt", ["trec", "table", "tsv", "csv", "json"])
def test_formats(bvtest, sample_scores, fmt):
    wide = ["--width", "200"] if fmt == "table" else []  # one block per table
    proc = bvtest("tradeoff", "--scores", sample_scores, "--repeats", "20", "-f", fmt, *wide)
    assert proc.returncode == 0, proc.stderr
    out = proc.stdout
    assert out.endswith("\n") and "Traceback" not in proc.stderr
    rows = ("all", "random:10", "difficulty:5")
    if fmt == "json":
        doc = json.loads(out)
        assert set(doc) == {
            "target",
            "repeats",
            "seed",
            "random_size",
            "difficulty_size",
            "normalize",
            "measures",
            "notes",
        }
        assert doc["repeats"] == 20 and doc["random_size"] == 10 and doc["difficulty_size"] == 5
        assert list(doc["measures"]) == ["AP", "nDCG@10"]
        for block in doc["measures"].values():
            assert list(block) == ["n_systems", "n_topics", *rows]
            for row in rows:
                assert list(block[row]) == ["raw", "minmax"]
                for cell in block[row].values():
                    keys = CELL_KEYS | ({"n_groups"} if row != "all" else set())
                    if row.startswith("random"):  # the per-repeat distribution
                        keys |= {"repeats"}
                        for r in cell["repeats"].values():
                            assert set(r) == {"mean", "lo", "hi", "defined"}
                            assert -1 <= r["lo"] <= r["mean"] <= r["hi"] <= 1
                            assert r["defined"] == 20
                    assert set(cell) == keys
                    assert -1 <= cell["pearson"] <= 1 and 0 <= cell["pearson_p"] <= 1
    elif fmt == "trec":
        lines = [line.split("\t") for line in out.splitlines()]
        assert all(len(parts) == 3 and parts[1] == "all" for parts in lines)
        names = [parts[0].rstrip() for parts in lines]
        assert "AP.all.raw.pearson" in names and "nDCG@10.difficulty:5.minmax.spearman_p" in names
        float(dict((p[0].rstrip(), p[2]) for p in lines)["AP.all.raw.pearson"])
    elif fmt in ("tsv", "csv"):
        table = list(csv.reader(io.StringIO(out), delimiter="\t" if fmt == "tsv" else ","))
        assert table[0] == ["measure", "name", "system", "value"]
        assert all(len(r) == 4 and r[2] == "all" for r in table[1:])
        assert ["AP", "random:10.minmax.pearson"] in [r[:2] for r in table]
        float(next(r[3] for r in table if r[:2] == ["AP", "all.raw.pearson"]))
    else:
        assert out.count("# ") == 2
        assert "raw pearson" in out and "minmax spearman" in out
        body = [line.split()[0] for line in out.splitlines() if line[:1].isalpha()]
        assert [r for r in body if r in rows] == list(rows) * 2


def test_notes_once_per_measure(bvtest, tmp_path):
    """A tied topic is dropped by minmax in three settings: one note, not three."""
    table = {s: dict(row, t5=0.3) for s, row in HAND.items()}
    path = tmp_path / "tied.tsv"
    path.write_text(scores_text(table))
    proc = bvtest("tradeoff", "--scores", path, "--difficulty-size", "2", "--repeats", "5")
    assert proc.returncode == 0, proc.stderr
    dropped = [line for line in proc.stderr.splitlines() if "dropped" in line]
    assert len(dropped) == 1 and "1 topic" in dropped[0]
    assert "AP.all.minmax.n_topics\tall\t4" in unpadded(proc.stdout)
    assert "AP.all.raw.n_topics\tall\t5" in unpadded(proc.stdout)


def test_undefined_cells_are_null(bvtest, tmp_path):
    path = tmp_path / "two.tsv"
    path.write_text(scores_text({"A": HAND["A"], "B": HAND["B"]}))
    proc = bvtest("tradeoff", "--scores", path, "-f", "json", "--repeats", "5")
    assert proc.returncode == 0, proc.stderr
    block = json.loads(proc.stdout)["measures"]["AP"]
    assert all(
        c["pearson"] is None
        for row in ("all", "random:10", "difficulty:5")
        for c in block[row].values()
    )
    undefined = [line for line in proc.stderr.splitlines() if "undefined" in line]
    assert len(undefined) == 1 and "every setting" in undefined[0]


# --------------------------------------------------------------------------- errors


def check_error(proc, fragment):
    assert proc.returncode == 2, (proc.returncode, proc.stderr)
    assert proc.stdout == ""
    lines = proc.stderr.strip().splitlines()
    assert len(lines) == 1, proc.stderr
    assert fragment in lines[0] and "Traceback" not in proc.stderr


@pytest.mark.parametrize("group", ["foo:3", "random:0", "difficulty:x", "random"])
def test_bad_group(bvtest, hand_scores, group):
    check_error(bvtest("eval", "--scores", hand_scores, "--group", group), "--group")


@pytest.mark.parametrize("option", ["--random-size", "--difficulty-size"])
def test_bad_group_size(bvtest, hand_scores, option):
    check_error(bvtest("tradeoff", "--scores", hand_scores, option, "0"), option)


def test_eval_no_topic_left_is_one_line(bvtest, tmp_path):
    path = tmp_path / "tied.tsv"
    path.write_text("a\t1\tAP\t0.5\nb\t1\tAP\t0.5\nc\t1\tAP\t0.5\n")
    check_error(bvtest("eval", "--scores", path, "--normalize", "minmax"), "no topics left")
