"""`bvtest sensitivity` end to end: every format, the JSON document's shape,
its discriminative power against counts made here from the analyses' p-values
on the matrix of `bvtest scores` and from scipy's paired t test, swap rates
of two runs far apart, seeds, wide CSV matrices, and bad input."""

from __future__ import annotations

import csv
import json
import math
from itertools import combinations

import numpy as np
import pytest
from conftest import SAMPLE_QRELS, SAMPLE_RUNS, assert_one_line_error, run_bvtest
from scipy import stats

from bvtest_cli.analyses.sensitivity import delta_needed
from bvtest_cli.analyses.significance import adjust, randomization_test
from bvtest_cli.options import FORMATS

INPUTS = (str(SAMPLE_QRELS), str(SAMPLE_RUNS))
SEED = 5
B = 200  # bootstrap resamples (each analysis is redone here)
LEVELS = (0.01, 0.05, 0.1)


def cli_out(*args: object) -> str:
    """stdout of the command (stderr apart whatever click's version)."""
    result = run_bvtest(*args)
    assert result.returncode == 0, result.stderr
    return result.stdout


def as_json(*args: object) -> dict:
    return json.loads(cli_out("sensitivity", "-f", "json", "--quiet", *args))


@pytest.fixture(scope="module")
def ap_matrix() -> np.ndarray:
    """AP of the sample track from `bvtest scores`: systems and topics in file
    order (the order the evaluation gives them, which the sign flips follow)."""
    text = cli_out("scores", "-m", "AP", "--quiet", "-j", "1", *INPUTS)
    rows = [line.split("\t") for line in text.splitlines()[1:]]
    systems = list(dict.fromkeys(r[0] for r in rows))
    topics = list(dict.fromkeys(r[1] for r in rows))
    x = np.zeros((len(systems), len(topics)))
    for system, topic, _, value in rows:
        x[systems.index(system), topics.index(topic)] = float(value)
    return x


@pytest.fixture(scope="module")
def ap_doc() -> dict:
    return as_json("-m", "AP", "--bootstrap", B, "--seed", SEED, "-j", "1", *INPUTS)


def pairs_of(x: np.ndarray) -> list[tuple[int, int]]:
    return list(combinations(range(len(x)), 2))


def share_below(p, level: float) -> float:
    """Sakai's count: pairs whose p-value is below the level, over all pairs."""
    return sum(1 for v in p if v < level) / len(p)


# --------------------------------------------------------------------------- formats


@pytest.mark.parametrize("fmt", FORMATS)
def test_every_format_renders(fmt):
    out = cli_out("sensitivity", "-m", "AP", "--bootstrap", 50, "--subset-sizes", "10", "-f",
                  fmt, "--quiet", *INPUTS)  # fmt: skip
    assert out.strip()
    if fmt == "html":
        assert out.startswith("<!DOCTYPE html>") and "discriminative_power" in out
    elif fmt == "trec":
        lines = out.splitlines()
        assert all(len(line.split("\t")) == 3 for line in lines)
        assert "AP.discriminative_power@0.05" in {line.split("\t")[0] for line in lines}
    elif fmt == "table":
        assert max(len(line) for line in out.splitlines()) <= 160


def test_json_shape(ap_doc):
    assert ap_doc["levels"] == [0.01, 0.05, 0.1]
    assert ap_doc["bootstrap"] == B and ap_doc["seed"] == SEED and ap_doc["draws"] == 50
    block = ap_doc["measures"]["AP"]
    m, n = block["n_systems"], block["n_topics"]
    assert (m, n) == (12, 29)
    assert block["pairs"] == 66 == m * (m - 1) // 2
    assert block["test"] == "randomization" and block["correction"] == "holm"
    for key in ("discriminative_power", "discriminative_power_corrected",
                "bootstrap_discriminative_power"):  # fmt: skip
        assert list(block[key]) == ["0.01", "0.05", "0.1"]
        shares = list(block[key].values())
        assert shares == sorted(shares)  # a larger α never counts fewer pairs
    for key in ("asl", "bootstrap_asl"):
        assert len(block[key]) == 66 and block[key] == sorted(block[key])
    assert block["delta_needed"] > 0
    # c = 5, 10 (up to 29 // 2 = 14); each size's bins hold 50 draws × 66 pairs
    assert sorted({row["c"] for row in block["swap_rates"]}) == [5, 10]
    for c in (5, 10):
        rows = [row for row in block["swap_rates"] if row["c"] == c]
        assert sum(row["pairs"] for row in rows) == 50 * 66
        for row in rows:
            assert set(row) == {"c", "bin_lo", "bin_hi", "pairs", "swaps", "swap_rate"}
            assert row["swap_rate"] == row["swaps"] / row["pairs"]
            assert math.isclose(row["bin_hi"] - row["bin_lo"], 0.01)
    fit = block["extrapolation"]
    assert [row["bin_lo"] for row in fit] == sorted({row["bin_lo"] for row in block["swap_rates"]})
    assert all(row["topics"] == 29 for row in fit)


def test_significance_adds_a_level():
    doc = as_json("-m", "AP", "--test", "t", "--bootstrap", 50, "--significance", 0.2,
                  "--subset-sizes", "5", *INPUTS)  # fmt: skip
    assert doc["levels"] == [0.01, 0.05, 0.1, 0.2]
    assert list(doc["measures"]["AP"]["discriminative_power"]) == ["0.01", "0.05", "0.1", "0.2"]


# --------------------------------------------------------------------------- the numbers


def test_discriminative_power_counts_the_analyses_p_values(ap_doc, ap_matrix):
    """The randomization test's p-values without correction and with Holm's,
    and the bootstrap test's ASLs, of every pair of the `bvtest scores` matrix,
    counted here. One test under Holm settles both decisions at each level:
    its uncorrected ones are those of a test run without a correction (which
    stops on other draws)."""
    x = ap_matrix
    block = ap_doc["measures"]["AP"]
    d = np.array([x[i] - x[j] for i, j in pairs_of(x)])
    raw = randomization_test(d, levels=LEVELS, correction="none", seed=SEED, draws=B)
    holm = randomization_test(d, levels=LEVELS, correction="holm", seed=SEED, draws=B)
    assert raw.resolved.all() and holm.resolved.all()
    boot = delta_needed(x, 0.05, B, SEED)
    for level in LEVELS:
        key = repr(level)
        assert block["discriminative_power"][key] == share_below(raw.p, level)
        assert block["discriminative_power"][key] == share_below(holm.p, level)
        assert block["discriminative_power_corrected"][key] == share_below(holm.p_adjusted, level)
        assert block["bootstrap_discriminative_power"][key] == share_below(boot.p, level)
    assert block["asl"] == sorted(holm.p.tolist())
    assert block["bootstrap_asl"] == sorted(boot.p.tolist())
    assert block["delta_needed"] == boot.delta


def test_t_test_discriminative_power_is_scipys(ap_matrix):
    """--test t: scipy.stats.ttest_rel on every pair, counted below each α, and
    Bonferroni's correction done by hand (k·p)."""
    x = ap_matrix
    block = as_json("-m", "AP", "--test", "t", "--correction", "bonferroni", "--bootstrap", 50,
                    "--subset-sizes", "5", *INPUTS)["measures"]["AP"]  # fmt: skip
    p = [stats.ttest_rel(x[i], x[j]).pvalue for i, j in pairs_of(x)]
    k = len(p)
    for level in LEVELS:
        key = repr(level)
        assert block["discriminative_power"][key] == share_below(p, level)
        assert block["discriminative_power_corrected"][key] == share_below(
            [min(1.0, k * v) for v in p], level
        )
    np.testing.assert_allclose(block["asl"], sorted(p), rtol=1e-10)


def test_tukey_is_the_studentized_range_of_the_two_way_anova(ap_matrix):
    """--test tukey: q = |x̄_i − x̄_j| / √(MS_residual / n), the residual mean
    square of the two-way ANOVA written out here, and scipy's studentized
    range with m means and (m − 1)(n − 1) degrees of freedom. The test holds
    the family-wise error itself: --correction leaves it alone, and says so."""
    x = ap_matrix
    m, n = x.shape
    residual = x - x.mean(axis=1, keepdims=True) - x.mean(axis=0) + x.mean()
    df = (m - 1) * (n - 1)
    ms_residual = (residual**2).sum() / df
    means = x.mean(axis=1)
    q = [abs(means[i] - means[j]) / math.sqrt(ms_residual / n) for i, j in pairs_of(x)]
    p = stats.studentized_range.sf(q, m, df)
    args = ("-m", "AP", "--test", "tukey", "--bootstrap", 50, "--subset-sizes", 5, *INPUTS)
    doc = json.loads(cli_out("sensitivity", "-f", "json", *args))
    block = doc["measures"]["AP"]
    assert block["correction"] == "none"
    assert any("holds the family-wise error itself" in note for note in doc["notes"])
    for level in LEVELS:
        key = repr(level)
        assert block["discriminative_power"][key] == share_below(p, level)
        assert block["discriminative_power_corrected"][key] == share_below(p, level)


def test_corrections_never_count_more_pairs(ap_doc):
    block = ap_doc["measures"]["AP"]
    for key, share in block["discriminative_power"].items():
        assert block["discriminative_power_corrected"][key] <= share


def test_correction_none_is_the_raw_count():
    block = as_json("-m", "AP", "--test", "wilcoxon", "--correction", "none", "--bootstrap", 50,
                    "--subset-sizes", "5", *INPUTS)["measures"]["AP"]  # fmt: skip
    assert block["discriminative_power_corrected"] == block["discriminative_power"]


def test_adjust_of_the_listed_p_values_gives_the_corrected_share():
    """For the classical tests the corrected share is the correction applied to
    the very p-values the curve lists (BH, step-up)."""
    block = as_json("-m", "AP", "--test", "sign", "--correction", "bh", "--bootstrap", 50,
                    "--subset-sizes", "5", *INPUTS)["measures"]["AP"]  # fmt: skip
    adjusted = adjust(np.array(block["asl"]), "bh")
    for key, share in block["discriminative_power_corrected"].items():
        assert share == share_below(adjusted, float(key))


def test_two_runs_far_apart_never_swap(tmp_path):
    """Run a scores about 0.8 above run b on every topic: every pair of topic
    subsets orders them alike, so no bin has a swap and no rate can be fitted."""
    rng = np.random.default_rng(np.random.SeedSequence(3))
    n = 30
    a = 0.85 + rng.uniform(-0.05, 0.05, n)
    b = 0.05 + rng.uniform(-0.05, 0.05, n)
    path = tmp_path / "far.tsv"
    path.write_text("".join(f"{s}\t{t}\tAP\t{v!r}\n" for s, col in (("a", a), ("b", b))
                            for t, v in enumerate(col.tolist())))  # fmt: skip
    block = as_json("--scores", path, "--bootstrap", 100)["measures"]["AP"]
    assert {row["c"] for row in block["swap_rates"]} == {5, 10, 15}
    assert all(row["swaps"] == 0 and row["swap_rate"] == 0 for row in block["swap_rates"])
    assert all(row["bin_lo"] >= 0.7 for row in block["swap_rates"])
    assert all(row["predicted"] is None for row in block["extrapolation"])
    # one pair, a difference with every sign the same: significant at every level
    assert set(block["discriminative_power"].values()) == {1.0}


def test_same_seed_same_bytes(bvtest):
    args = ("sensitivity", "-m", "AP", "--bootstrap", 100, "-f", "json", "--quiet", *INPUTS)
    first = bvtest(*args, "--seed", 9, binary=True)
    assert first.returncode == 0, first.stderr
    assert bvtest(*args, "--seed", 9, binary=True).stdout == first.stdout
    other = json.loads(bvtest(*args, "--seed", 10).stdout)["measures"]["AP"]
    assert other["bootstrap_asl"] != json.loads(first.stdout)["measures"]["AP"]["bootstrap_asl"]


# --------------------------------------------------------------------------- wide CSV


def test_wide_csv_matrix_t_test(shared_data):
    """Robust 2004's AP matrix (a header of runs, a row per topic): --test t's
    discriminative power is the count of scipy's paired t tests over all pairs."""
    path = shared_data / "matrices" / "robust2004_ap.csv"
    if not path.exists():
        pytest.skip(f"{path} is not present")
    with path.open(newline="") as f:
        rows = list(csv.reader(f))
    x = np.array([[float(v) for v in row] for row in rows[1:]]).T  # systems × topics
    doc = as_json("--scores", path, "-m", "AP", "--test", "t", "--bootstrap", 100,
                  "--subset-sizes", "10,25")  # fmt: skip
    block = doc["measures"]["AP"]
    m, n = x.shape
    assert (block["n_systems"], block["n_topics"]) == (m, n)
    i, j = np.triu_indices(m, k=1)
    p = stats.ttest_rel(x[i], x[j], axis=1).pvalue
    for level in LEVELS:
        assert block["discriminative_power"][repr(level)] == share_below(p, level)


# --------------------------------------------------------------------------- bad input


def test_one_system(bvtest, tmp_path):
    path = tmp_path / "one.tsv"
    path.write_text("a\t1\tAP\t0.5\na\t2\tAP\t0.25\n")
    assert_one_line_error(bvtest("sensitivity", "--scores", path), "2 systems", "1 × 2")


def test_subset_larger_than_half_the_topics(bvtest):
    proc = bvtest("sensitivity", "-m", "AP", "--subset-sizes", "5,15", *INPUTS)
    assert_one_line_error(proc, "--subset-sizes 15", "29 topics")


@pytest.mark.parametrize(
    ("args", "fragment"),
    [
        (("--test", "z"), "--test"),
        (("--bin-width", "0"), "--bin-width"),
        (("--subset-sizes", "0"), "--subset-sizes"),
        (("--significance", "1"), "--significance"),
    ],
)
def test_bad_options(bvtest, args, fragment):
    assert_one_line_error(bvtest("sensitivity", "-m", "AP", *args, *INPUTS), fragment)


def test_missing_qrels(bvtest):
    assert_one_line_error(bvtest("sensitivity", "no-such-qrels", str(SAMPLE_RUNS)), "no-such-qrels")


def test_the_page_draws_the_asl_curves():
    """-f html draws both ASL curves: one line per curve, named, with as many
    points as pairs (up to the drawing's cap)."""
    import html
    import re

    proc = run_bvtest("sensitivity", "-m", "AP", "-f", "html", "--bootstrap", "100",
                      SAMPLE_QRELS, SAMPLE_RUNS)  # fmt: skip
    assert proc.returncode == 0, proc.stderr
    assert "ASL curves" in proc.stdout
    names = {html.unescape(t) for t in re.findall(r"<title>([^<]*)</title>", proc.stdout)}
    assert {"the test's ASL", "bootstrap ASL"} <= names


def test_the_manuals_example_output_is_what_the_tool_prints():
    """docs/sensitivity.md shows the head of the second example's output: it
    must be the tool's, line for line (it once printed repeats= for draws=)."""
    from pathlib import Path

    text = (Path(__file__).resolve().parents[1] / "docs" / "sensitivity.md").read_text()
    block = text.split("the second example prints, for AP:\n\n```text\n", 1)[1]
    shown = block.split("\n...\n", 1)[0].splitlines()
    proc = run_bvtest("sensitivity", "-m", "AP,nDCG@10,ERR@20", "-f", "table", *INPUTS)
    assert proc.returncode == 0, proc.stderr
    assert proc.stdout.splitlines()[: len(shown)] == shown
