"""B: no silent wrong numbers from rounding, stream keying or memory.

* Differences that are mathematically zero are exactly zero (items 1, 9):
  copies of one run against each other (docs/numbers.md: TRisk of a run against an
  equal baseline is 0; ZRisk of equal rows is 0 since e_ij = x_ij), a run
  that is constant (its Var is 0 by definition), a single system (it is the
  virtual target, so Var(ρ) = 0 and Bias² = 0).
* pertopic's random streams belong to a run's name, not its position (item 2).
* random:K holds a bounded amount of memory whatever R, and gives the same
  numbers as when all R permutations were drawn at once (item 4).

Expected values are identities (0 where the mathematics says 0; equality
between orders/subsets/blocks), or numpy computations written here.
"""

from __future__ import annotations

import json
import shutil
import tracemalloc

import numpy as np
import pytest
from conftest import SAMPLE_QRELS, SAMPLE_RUNS

from bvtest_cli.analyses import grouping
from bvtest_cli.analyses.decompose import BiasVariance, decompose
from bvtest_cli.analyses.grouping import analyse, grouped_fields, random_orders
from bvtest_cli.analyses.risk import trisk_mean, zrisk, zrisk_pair
from bvtest_cli.commands.pertopic.build import pertopic, simulate_ap
from bvtest_cli.measures.matrix import ScoreMatrix

ALPHAS = ("0", "1", "5", "10")


@pytest.fixture(scope="module")
def copies(tmp_path_factory):
    """A directory holding three byte-identical copies of sample run sys001."""
    d = tmp_path_factory.mktemp("copies")
    for name in ("a", "b", "c"):
        shutil.copy(SAMPLE_RUNS / "sys001", d / name)
    return d


@pytest.fixture(scope="module")
def copies_scores(copies):
    """Their per-topic AP as a scores file (evaluated once for several tests)."""
    from conftest import run_bvtest

    proc = run_bvtest("scores", "--quiet", "-m", "AP", SAMPLE_QRELS, copies)
    assert proc.returncode == 0, proc.stderr
    path = copies / "scores.tsv"
    path.write_text(proc.stdout)
    return path


def eval_json(bvtest, *args):
    proc = bvtest("eval", "-f", "json", "--quiet", *args)
    assert proc.returncode == 0, proc.stderr
    return json.loads(proc.stdout)


# --------------------------------------------------------------------------- item 1


def test_copies_of_one_run_get_exact_zeros(bvtest, copies):
    """Three copies: the mean baseline of TRisk* equals each copy, so TRisk* = 0
    (it printed 0.81, 0.33, −0.46 for alphas 0, 1, 5); ZRisk = 0; each copy
    is the virtual target, so Bias² = Var(ρ) = 0 and Var = Var(x_T) = Cov."""
    doc = eval_json(bvtest, "-m", "AP", "-m", "nDCG@10", SAMPLE_QRELS, copies)
    for block in doc["measures"].values():
        for system in block["systems"].values():
            for field in ("trisk_mean", "zrisk", "zrisk_target"):
                assert system[field] == dict.fromkeys(ALPHAS, 0.0), (field, system[field])
            assert system["bias2"] == 0.0 and system["var_rho"] == 0.0
            assert system["var"] == system["var_target"] == system["cov_target"]


@pytest.mark.parametrize(
    "extra",
    [
        ("--group", "random:5", "--repeats", "50"),
        ("--group", "difficulty:5"),
        ("--group", "random:4", "--normalize", "ratio", "--repeats", "50"),
        ("--group", "difficulty:7", "--normalize", "ratio"),
        ("--normalize", "ratio"),
    ],
)
def test_copies_of_one_run_grouped_get_exact_zeros(bvtest, copies_scores, extra):
    """Grouped, every copy's group means are the target's group means, exactly."""
    doc = eval_json(bvtest, *extra, "--scores", copies_scores)
    block = doc["measures"]["AP"]
    for system in block["systems"].values():
        assert system["bias2"] == 0.0 and system["var_rho"] == 0.0
        assert system["var"] == system["var_target"] == system["cov_target"]
        if "ratio" in extra:  # every sample is 1: the run is constant
            assert system["var"] == 0.0 and system["mse"] == 0.0


def test_no_negative_zero_in_any_format(bvtest, copies_scores):
    """ZRisk of copies printed -0.0000; a zero has no sign in any format."""
    for fmt in ("trec", "tsv", "csv", "table", "json"):
        proc = bvtest("eval", "--quiet", "-f", fmt, "--scores", copies_scores)
        assert proc.returncode == 0, proc.stderr
        assert "-0.0000" not in proc.stdout
        assert "-0.0," not in proc.stdout and "-0.0\n" not in proc.stdout


def test_baseline_against_itself_is_exactly_zero(bvtest):
    """The baseline's URisk, TRisk and ZRisk against itself are 0 (docs/numbers.md), also
    after ratio normalization (whose per-topic division used to leave 1e-16)."""
    doc = eval_json(
        bvtest, "-m", "AP", "--normalize", "ratio", "--baseline", "sys005", SAMPLE_QRELS,
        SAMPLE_RUNS,
    )  # fmt: skip
    base = doc["measures"]["AP"]["systems"]["sys005"]
    for field in ("urisk", "trisk", "zrisk_baseline"):
        assert base[field] == dict.fromkeys(ALPHAS, 0.0), (field, base[field])


def test_risk_functions_on_equal_rows():
    rng = np.random.default_rng(0)
    row = np.round(rng.random(17), 3)
    x = np.tile(row, (3, 1))
    assert np.array_equal(trisk_mean(x, [0, 1, 5]), np.zeros((3, 3)))
    assert np.array_equal(zrisk(x, [0, 1, 5]), np.zeros((3, 3)))
    other = np.vstack([row, np.round(rng.random(17), 3)])
    assert np.array_equal(zrisk_pair(other, row, [0, 2])[0], [0.0, 0.0])
    # A topic where all systems agree contributes exactly nothing to TRisk*:
    # only the topics where they differ make it non-zero.
    y = np.array([[0.1, 0.3], [0.1, 0.5], [0.1, 0.7]])
    got = trisk_mean(y, [0])[:, 0]
    # d = delta on topic 2 and exactly 0 on topic 1: t = mean(d) / (s_d / √2),
    # with d = (0, δ): mean δ/2, s_d = |δ|/√2, so TRisk = sign(δ) · 1.
    assert got.tolist() == pytest.approx([-1.0, 0.0, 1.0], abs=1e-12)
    assert got[1] == 0.0


def test_constant_run_has_exact_moments():
    """0.1 three times sums to 0.30000000000000004; the mean must still be 0.1."""
    from bvtest_cli.measures.matrix import exact_mean

    x = np.array([[0.1, 0.1, 0.1]])
    bv = decompose(x, x[0], exact_mean(x[0]))
    assert bv.mean[0] == 0.1
    for field in ("bias2", "var", "mse", "var_rho", "var_target", "cov_target"):
        assert getattr(bv, field)[0] == 0.0, field
    assert exact_mean(np.full(7, 0.7)) == 0.7
    plain = np.array([0.1, 0.2, 0.4])
    assert exact_mean(plain) == plain.mean()  # unequal values: numpy's mean, unchanged


@pytest.mark.parametrize("group", ["random:2", "random:3", "difficulty:2"])
@pytest.mark.parametrize("normalize", ["none", "ratio"])
def test_single_system_is_the_target(group, normalize):
    """One system is its own virtual target: Bias², Var(ρ) are 0, Var = Var(x_T) = Cov."""
    values = np.array([[0.13, 0.71, 0.29, 0.05, 0.93, 0.37, 0.41]])
    m = ScoreMatrix("AP", ("only",), tuple("abcdefg"), values)
    a = analyse(m, group=group, normalize=normalize, target="max", repeats=40, seed=3)
    assert a.bv.bias2[0] == 0.0 and a.bv.var_rho[0] == 0.0
    assert a.bv.var[0] == a.bv.var_target[0] == a.bv.cov_target[0]


def test_duplicated_runs_get_identical_grouped_values():
    """Equal rows give equal group means: otherwise Spearman ranks two copies
    apart, and Bias²/Var differ in the last bits."""
    rng = np.random.default_rng(4)
    values = rng.random((6, 40))
    values[3] = values[1]
    values[5] = values[1]
    m = ScoreMatrix("AP", tuple("abcdef"), tuple(f"t{j}" for j in range(40)), values)
    for group in ("random:3", "random:7", "difficulty:4", "random:1"):
        a = analyse(m, group=group, normalize="none", target="max", repeats=30, seed=1)
        for f in BiasVariance.FIELDS:
            v = getattr(a.bv, f)
            assert v[1] == v[3] == v[5], (group, f)


# --------------------------------------------------------------------------- item 2


def _small_track():
    rng = np.random.default_rng(0)
    qrels: dict = {}
    runs: dict = {f"run{i}": {} for i in range(4)}
    for j in range(5):
        docs = [f"D{j}-{x:03d}" for x in range(60)]
        qrels[f"t{j}"] = {d: int(rng.integers(0, 2)) for d in docs[:40]}
        for i, name in enumerate(runs):
            picked = rng.choice(len(docs), 25 - i, replace=False)
            runs[name][f"t{j}"] = {docs[x]: float(rng.normal()) for x in picked}
    return qrels, runs


def test_pertopic_samples_belong_to_the_run_name():
    """A run's simulated AP (and so its per-topic Var) is the same whatever
    other runs come with it and in which order."""
    qrels, runs = _small_track()
    topics = sorted(qrels)
    names = list(runs)
    full, _ = simulate_ap(qrels, runs, topics, k=25, seed=9)
    reordered = {n: runs[n] for n in reversed(names)}
    rev, _ = simulate_ap(qrels, reordered, topics, k=25, seed=9)
    without = {n: runs[n] for n in names if n != "run1"}
    fewer, _ = simulate_ap(qrels, without, topics, k=25, seed=9)
    for i, name in enumerate(names):
        assert np.array_equal(rev[names[::-1].index(name)], full[i])
        if name != "run1":
            assert np.array_equal(fewer[list(without).index(name)], full[i])
    res_full = pertopic(qrels, runs, topics, k=25, seed=9)
    res_rev = pertopic(qrels, reordered, topics, k=25, seed=9)
    assert np.array_equal(res_rev.var[:, ::-1], res_full.var)
    assert np.array_equal(res_rev.bias2[:, ::-1], res_full.bias2)  # same set of runs


def test_pertopic_cli_var_does_not_depend_on_argument_order(bvtest):
    runs = [SAMPLE_RUNS / f"sys00{i}" for i in (1, 2, 3)]

    def per_run(*paths):
        proc = bvtest("pertopic", "-q", "-q", "-f", "json", "-k", "20", SAMPLE_QRELS, *paths)
        assert proc.returncode == 0, proc.stderr
        block = json.loads(proc.stdout)["measures"]["AP"]
        var = {s: v["var"] for s, v in block["systems"].items()}
        topic_var = {
            (t, s): tb["systems"][s]["var"]
            for t, tb in block["topics"].items()
            for s in tb["systems"]
        }
        return var, topic_var

    forward = per_run(*runs)
    backward = per_run(*runs[::-1])
    pair = per_run(runs[2], runs[0])
    assert forward == backward
    for s in ("sys001", "sys003"):
        assert pair[0][s] == forward[0][s]
    assert {k: v for k, v in forward[1].items() if k[1] != "sys002"} == pair[1]


# --------------------------------------------------------------------------- item 4


def test_order_blocks_are_the_rows_of_one_draw():
    """Generator.random((R, n)) fills row-major from one stream: drawing row
    blocks in sequence gives the same keys, hence the same permutations."""
    from bvtest_cli.analyses.grouping import random_order_blocks

    n, repeats, seed = 9, 103, 20220101
    direct = np.argsort(np.random.default_rng(seed).random((repeats, n)), axis=1, kind="stable")
    assert np.array_equal(random_orders(n, repeats, seed), direct)
    for block in (1, 7, 50, 103, 1000):
        blocks = list(random_order_blocks(n, repeats, seed, block))
        assert [len(b) for b in blocks[:-1]] == [block] * (len(blocks) - 1)
        assert np.array_equal(np.concatenate(blocks), direct)


@pytest.mark.parametrize("normalize", ["none", "minmax", "ratio"])
def test_streamed_average_equals_all_at_once(monkeypatch, normalize):
    """analyse(random:K) in many small blocks = the mean over all R repeats held
    at once (grouped_fields on the whole (R, n) order matrix), bit for bit."""
    rng = np.random.default_rng(5)
    values = np.round(rng.random((5, 23)), 2)
    values[:, 4] = 0.0  # a zero-target topic: ratio drops samples
    m = ScoreMatrix("AP", tuple("abcde"), tuple(f"t{j:02d}" for j in range(23)), values)
    repeats, seed, k = 517, 11, 4
    one_block = analyse(
        m, group=f"random:{k}", normalize=normalize, target="max", repeats=repeats, seed=seed
    )
    monkeypatch.setattr(grouping, "_BLOCK_ELEMENTS", 300)  # blocks of a few repeats
    streamed = analyse(
        m, group=f"random:{k}", normalize=normalize, target="max", repeats=repeats, seed=seed
    )
    # The reference: all R permutations at once, fields per repeat, numpy's mean.
    mat, _ = grouping.normalized_topics(m, "minmax" if normalize == "minmax" else "none")
    target = np.ones(len(mat.topics)) if normalize == "minmax" else mat.values.max(axis=0)
    orders = np.argsort(
        np.random.default_rng(seed).random((repeats, len(mat.topics))), axis=1, kind="stable"
    )
    bv, c, keep = grouped_fields(
        mat.values, target, orders, k, normalize=normalize, target_spec="max"
    )
    valid = keep.any(axis=1)
    for f in BiasVariance.FIELDS:
        expected = bv[f][valid].mean(axis=0)
        assert np.array_equal(getattr(streamed.bv, f), expected), f
        assert np.array_equal(getattr(one_block.bv, f), expected), f
    assert streamed.c == pytest.approx(float(c[valid].mean()), rel=1e-15)
    assert one_block.c == float(c[valid].mean())
    assert streamed.notes == one_block.notes


def _peak_bytes(m: ScoreMatrix, repeats: int) -> int:
    tracemalloc.start()
    try:
        analyse(m, group="random:4", normalize="none", target="max", repeats=repeats, seed=1)
        return tracemalloc.get_traced_memory()[1]
    finally:
        tracemalloc.stop()


def test_random_grouping_memory_does_not_grow_with_repeats(monkeypatch):
    """--repeats 10000000 tried to allocate 12 GiB: the (R, n) keys, the
    permutations and every per-repeat field were held at once. With repeats
    processed block by block the peak stays the same for 10× more repeats
    (time grows linearly). Small blocks make the difference visible at a
    modest R: before, the peak grew 10× from R = 20,000 to 200,000.

    The one thing kept per repeat is the pair of tradeoff correlations of
    that repeat, two
    float64 = 16 bytes per repeat; everything else stays bounded."""
    monkeypatch.setattr(grouping, "_BLOCK_ELEMENTS", 1 << 14)
    values = np.random.default_rng(2).random((3, 12))
    m = ScoreMatrix("AP", ("a", "b", "c"), tuple(f"t{j}" for j in range(12)), values)
    small = _peak_bytes(m, 20_000) - 16 * 20_000
    large = _peak_bytes(m, 200_000) - 16 * 200_000
    assert large < 2 * small, (small, large)
