"""Tests of the per-topic simulation (docs/pertopic.md; seed 000 §3.4, §5.3.3).

The oracle is ``naive_ap``: a literal, pure-Python version of the simulation
that draws N documents and sorts them by trec_eval's rule. For tiny rankings
its exact distribution is enumerated, which lets the fast sampler be checked
against exact probabilities rather than against another random sample.
"""

from __future__ import annotations

import itertools
import math
import warnings
from collections import Counter

import numpy as np
import pytest
from permutation_oracle import correlation_p
from scipy import stats

from bvtest_cli.analyses import simulate
from bvtest_cli.analyses.simulate import (
    _nonrel_counts,
    analyse_samples,
    pair_model,
    pair_rng,
    rowwise_pearson,
    sample_pairs,
)
from bvtest_cli.analyses.tradeoff import correlate
from bvtest_cli.commands.pertopic.build import pertopic, simulate_ap

# ------------------------------------------------------------------------------------
# The reference: draw N documents, sort them as trec_eval does, compute AP.


def simulate_pair(run_topic, relevant, k, rng):
    """(ap, r_s) of k simulated collections of one run on one topic, through
    the same two steps the command uses (pair_model, then sample_pairs)."""
    ap, r_s = sample_pairs([pair_model(run_topic, relevant)], [rng], k)
    return ap[0], r_s[0]


def ranked_ap(docs: list[tuple[float, str, bool]], big_r: int) -> float:
    """AP of (score, docno, relevant) documents ranked by score desc, docno desc."""
    if big_r == 0:
        return 0.0
    ranked = sorted(docs, key=lambda x: (x[0], x[1]), reverse=True)
    hits, total = 0, 0.0
    for rank, (_, _, rel) in enumerate(ranked, start=1):
        if rel:
            hits += 1
            total += hits / rank
    return total / big_r


def naive_ap(
    run_topic: dict[str, float], relevant: set[str], rng: np.random.Generator
) -> tuple[float, int]:
    """One simulated collection, literally as docs/pertopic.md words it: (AP, r_s)."""
    big_n = len(run_topic)
    rel = [(s, d, True) for d, s in run_topic.items() if d in relevant]
    non = [(s, d, False) for d, s in run_topic.items() if d not in relevant]
    r_s = min(int(rng.poisson(len(rel))), big_n) if rel else 0
    docs = [rel[rng.integers(len(rel))] for _ in range(r_s)]
    if non:
        docs += [non[rng.integers(len(non))] for _ in range(big_n - r_s)]
    return ranked_ap(docs, r_s + len(relevant) - len(rel)), r_s


def exact_distribution(run_topic: dict[str, float], relevant: set[str]) -> dict[float, float]:
    """P(AP = a) of the naive process, by enumerating every draw (tiny rankings only)."""
    big_n = len(run_topic)
    rel = [(s, d, True) for d, s in run_topic.items() if d in relevant]
    non = [(s, d, False) for d, s in run_topic.items() if d not in relevant]
    r = len(rel)
    dist: Counter[float] = Counter()
    for r_s in range(big_n + 1):
        # r_s ~ Poisson(r) capped at N: the cap takes the whole upper tail.
        p_rs = stats.poisson.sf(big_n - 1, r) if r_s == big_n else stats.poisson.pmf(r_s, r)
        if p_rs == 0:
            continue
        n_non = big_n - r_s if non else 0
        combos = list(itertools.product(rel, repeat=r_s))
        for rel_part in combos:
            for non_part in itertools.product(non, repeat=n_non):
                ap = ranked_ap(list(rel_part) + list(non_part), r_s + len(relevant) - r)
                p = p_rs / (len(combos) * len(non) ** n_non)
                dist[round(ap, 12)] += p
    return dict(dist)


# ------------------------------------------------------------------------------------
# Exact cases


@pytest.mark.parametrize(
    "run_topic",
    [
        # Relevant d1..d3 strictly above non-relevant ones.
        {"d1": 9.0, "d2": 8.0, "d3": 7.5, "n1": 3.0, "n2": 2.0, "n3": 2.0, "n4": 1.0},
        # A relevant document tied with non-relevant ones but winning on docno (desc).
        {"d1": 5.0, "d9": 4.0, "d8": 4.0, "c1": 4.0, "a2": 4.0, "b3": 1.0},
    ],
)
def test_relevant_all_above_gives_rs_over_r_exactly(run_topic: dict[str, float]) -> None:
    relevant = {d for d in run_topic if d[0] == "d"} | {"m1", "m2"}  # two never retrieved
    r = sum(1 for d in run_topic if d in relevant)
    ap, r_s = simulate_pair(run_topic, relevant, 2000, pair_rng(5, 0, 0))
    big_r = r_s + (len(relevant) - r)
    assert np.array_equal(ap, r_s / big_r)
    assert (r_s == 0).any() and (r_s > r).any()  # the Poisson really varied


def test_only_relevant_retrieved_list_holds_rs_copies() -> None:
    # No non-relevant document to draw: the list is the r_s relevant copies.
    run_topic = {"a": 3.0, "b": 2.0, "c": 1.0}
    ap, r_s = simulate_pair(run_topic, {"a", "b", "c", "z"}, 3000, pair_rng(1, 0, 0))
    assert r_s.max() == 3  # capped at N
    assert np.array_equal(ap, r_s / (r_s + 1))


def test_no_relevant_retrieved_gives_zero_ap_and_zero_var() -> None:
    qrels = {"t1": {"r1": 1, "r2": 2, "n1": 0}}
    runs = {
        "good": {"t1": {"r1": 2.0, "n1": 1.0, "x": 0.5}},
        "none": {"t1": {"n1": 3.0, "x": 2.0, "y": 1.0}},
        "other": {"t1": {"x": 3.0, "r2": 1.0}},
    }
    cube, _ = simulate_ap(qrels, runs, ["t1"], k=200, seed=3)
    assert np.all(cube[1] == 0.0)
    res = pertopic(qrels, runs, k=200, seed=3)
    assert res.var[0, 1] == 0.0
    assert res.mean[0, 1] == 0.0
    assert res.var[0, 0] > 0.0


def test_missing_topic_scores_zero_in_every_sample() -> None:
    qrels = {"t1": {"a": 1, "b": 1}, "t2": {"c": 1}}
    runs = {
        "full": {"t1": {"a": 1.0, "x": 0.5}, "t2": {"c": 1.0, "y": 2.0}},
        "half": {"t1": {"b": 1.0, "x": 2.0}},
        "empty_t2": {"t1": {"a": 1.0}, "t2": {}},
    }
    cube, _ = simulate_ap(qrels, runs, ["t1", "t2"], k=50, seed=0)
    assert np.all(cube[1, 1] == 0.0) and np.all(cube[2, 1] == 0.0)
    assert cube[0, 1].max() > 0.0 and cube[1, 0].max() > 0.0
    res = pertopic(qrels, runs, k=50, seed=0)
    assert res.missing == (0, 1, 1)


def test_zero_relevant_in_qrels_scores_zero() -> None:
    # R = r_s + R_q − r = 0 only when nothing is relevant: AP = 0 by definition.
    model = pair_model({"a": 1.0, "b": 0.5}, set())
    (ap,), (r_s,) = sample_pairs([model], [pair_rng(0, 0, 0)], 10)
    assert np.all(ap == 0.0) and np.all(r_s == 0)


# ------------------------------------------------------------------------------------
# Distribution


@pytest.mark.parametrize(("r", "big_n"), [(5, 20), (2, 3), (3, 3), (40, 60)])
def test_mean_rs_matches_capped_poisson(r: int, big_n: int) -> None:
    run_topic = {f"d{i:02d}": float(big_n - i) for i in range(big_n)}
    chosen = np.random.default_rng(r).choice(big_n, r, replace=False)
    relevant = {f"d{i:02d}" for i in chosen} | {"never-retrieved"}
    k = 20000
    _, r_s = simulate_pair(run_topic, relevant, k, pair_rng(11, r, big_n))
    assert r_s.max() <= big_n
    # E[min(X, N)] and its sd for X ~ Poisson(r).
    x = np.arange(big_n + 1)
    pmf = stats.poisson.pmf(x, r)
    pmf[-1] = stats.poisson.sf(big_n - 1, r)
    mean = float((x * pmf).sum())
    sd = math.sqrt(float((x**2 * pmf).sum()) - mean**2)
    assert abs(r_s.mean() - mean) <= 4 * sd / math.sqrt(k)
    if big_n >= r + 5 * math.sqrt(r):  # the cap hardly matters: the mean is r
        assert abs(r_s.mean() - r) <= 4 * math.sqrt(r) / math.sqrt(k)


@pytest.mark.parametrize("margin", [3.0, 0.0])
def test_poissonized_counts_have_the_multinomial_law(
    monkeypatch: pytest.MonkeyPatch, margin: float
) -> None:
    # margin 0 makes half the Poisson totals overshoot, exercising the redraws.
    monkeypatch.setattr(simulate, "_POISSON_MARGIN", margin)
    gaps = np.array([3, 0, 5, 1, 11])
    p = gaps / gaps.sum()
    k, m = 20000, 60
    counts = _nonrel_counts(pair_rng(9, 9, 9), gaps, np.full(k, m))
    assert np.all(counts.sum(axis=1) == m) and np.all(counts[:, 1] == 0)
    se = np.sqrt(m * p * (1 - p) / k)
    assert np.all(np.abs(counts.mean(axis=0) - m * p) <= 4 * se + 1e-12)
    # Negative covariance between cells, as a multinomial has (not independent counts).
    cov = np.cov(counts[:, 0], counts[:, 4])[0, 1]
    assert cov == pytest.approx(-m * p[0] * p[4], rel=0.15)
    observed = np.bincount(counts[:, 2], minlength=m + 1)
    expected = stats.binom.pmf(np.arange(m + 1), m, p[2]) * k
    keep = expected >= 5
    rest = observed[~keep].sum(), expected[~keep].sum()
    chi2 = stats.chisquare(np.append(observed[keep], rest[0]), np.append(expected[keep], rest[1]))
    assert chi2.pvalue > 1e-4


def test_poissonized_counts_small_and_zero_totals() -> None:
    m = np.array([0, 1, 2, 9, 10, 500])
    counts = _nonrel_counts(pair_rng(1, 1, 1), np.array([2, 7]), m)
    assert np.array_equal(counts.sum(axis=1), m)


TIE_CASES = [
    # Ties between relevant and non-relevant documents on both sides of the docno rule.
    ({"b": 2.0, "a": 2.0, "c": 1.0, "d": 1.0}, {"a", "d", "q"}),
    ({"x1": 1.0, "x2": 1.0, "x3": 1.0, "x4": 0.0}, {"x2", "x4"}),
    ({"p": 3.0, "q": 2.0, "r": 2.0, "s": 0.0, "t": -1.0}, {"r", "t", "zz"}),
]


@pytest.mark.parametrize(("run_topic", "relevant"), TIE_CASES)
def test_fast_matches_exact_distribution_of_naive(
    run_topic: dict[str, float], relevant: set[str]
) -> None:
    exact = exact_distribution(run_topic, relevant)
    assert abs(sum(exact.values()) - 1.0) < 1e-9
    k = 40000
    ap, _ = simulate_pair(run_topic, relevant, k, pair_rng(2024, 0, 0))
    values = np.array(sorted(exact))
    probs = np.array([exact[v] for v in values])
    # Every simulated AP is a value the naive process can produce ...
    idx = np.searchsorted(values, np.round(ap, 12))
    assert np.allclose(values[np.minimum(idx, len(values) - 1)], ap, atol=1e-12)
    # ... with the right frequencies (chi-square, rare cells pooled).
    observed = np.bincount(idx, minlength=len(values))
    keep = probs * k >= 5
    obs = np.append(observed[keep], observed[~keep].sum())
    exp = np.append(probs[keep], probs[~keep].sum()) * k
    if exp[-1] == 0:
        obs, exp = obs[:-1], exp[:-1]
    chi2 = stats.chisquare(obs, exp)
    assert chi2.pvalue > 1e-4
    mean = float((values * probs).sum())
    sd = math.sqrt(float((values**2 * probs).sum()) - mean**2)
    assert abs(ap.mean() - mean) <= 4 * sd / math.sqrt(k)


def test_fast_matches_naive_sampler_with_ties() -> None:
    # A mid-size ranking (enumeration is out of reach): compare means and
    # variances with the literal draw-and-sort sampler.
    rng = np.random.default_rng(8)
    scores = np.round(rng.normal(size=40), 1)  # many ties
    run_topic = {f"doc{i:03d}": float(s) for i, s in enumerate(scores)}
    relevant = {f"doc{i:03d}" for i in rng.choice(40, 9, replace=False)} | {"gone1", "gone2"}
    k = 4000
    fast, fast_rs = simulate_pair(run_topic, relevant, k, pair_rng(1, 2, 3))
    naive_rng = np.random.default_rng(99)
    naive = np.array([naive_ap(run_topic, relevant, naive_rng)[0] for _ in range(k)])
    se = math.sqrt((fast.var() + naive.var()) / k)
    assert abs(fast.mean() - naive.mean()) <= 4 * se
    assert abs(fast.std() - naive.std()) <= 0.1 * naive.std()
    assert abs(fast_rs.mean() - 9) <= 4 * 3 / math.sqrt(k)


# ------------------------------------------------------------------------------------
# Reproducibility


def small_track(m: int = 5, n: int = 4, depth: int = 30, seed: int = 0):
    rng = np.random.default_rng(seed)
    qrels = {}
    runs: dict[str, dict[str, dict[str, float]]] = {f"s{i}": {} for i in range(m)}
    for j in range(n):
        docs = [f"D{j}-{x:03d}" for x in range(3 * depth)]
        qrels[f"t{j}"] = {d: int(rng.integers(-1, 3)) for d in docs[: 2 * depth]}
        for i in range(m):
            picked = rng.choice(len(docs), depth - i, replace=False)
            runs[f"s{i}"][f"t{j}"] = {docs[x]: float(np.round(rng.normal(), 1)) for x in picked}
    return qrels, runs


def test_same_seed_same_cube_and_jobs_do_not_matter() -> None:
    qrels, runs = small_track()
    topics = list(qrels)
    a, _ = simulate_ap(qrels, runs, topics, k=30, seed=42)
    b, _ = simulate_ap(qrels, runs, topics, k=30, seed=42)
    c, _ = simulate_ap(qrels, runs, topics, k=30, seed=42, jobs=2)
    assert np.array_equal(c, simulate_ap(qrels, runs, topics, k=30, seed=42, jobs=3)[0])
    d, _ = simulate_ap(qrels, runs, topics, k=30, seed=43)
    assert a.shape == (5, 4, 30)
    assert np.array_equal(a, b)
    assert np.array_equal(a, c)
    assert not np.array_equal(a, d)


def test_pair_streams_do_not_depend_on_other_systems() -> None:
    qrels, runs = small_track()
    topics = list(qrels)
    full, _ = simulate_ap(qrels, runs, topics, k=20, seed=7)
    first_three = dict(list(runs.items())[:3])
    assert np.array_equal(simulate_ap(qrels, first_three, topics, k=20, seed=7)[0], full[:3])


def test_batch_equals_pair_by_pair() -> None:
    qrels, runs = small_track(m=1, n=4)
    run = runs["s0"]
    models = [pair_model(run[t], {d for d, g in qrels[t].items() if g >= 1}) for t in qrels]
    batch, batch_rs = sample_pairs(models, [pair_rng(3, 0, j) for j in range(4)], 25)
    for j, model in enumerate(models):
        (ap,), (r_s,) = sample_pairs([model], [pair_rng(3, 0, j)], 25)
        assert np.array_equal(ap, batch[j]) and np.array_equal(r_s, batch_rs[j])


def test_rel_level_and_negative_grades() -> None:
    run_topic = {"a": 3.0, "b": 2.0, "c": 1.0}
    qrels = {"t": {"a": 2, "b": 1, "c": -1}}
    cube1, _ = simulate_ap(qrels, {"r": {"t": run_topic}}, ["t"], k=500, seed=1, rel_level=1)
    cube2, _ = simulate_ap(qrels, {"r": {"t": run_topic}}, ["t"], k=500, seed=1, rel_level=2)
    m1, m2 = pair_model(run_topic, {"a", "b"}), pair_model(run_topic, {"a"})
    assert (m1.n_rel_ret, m1.n_rel, m2.n_rel_ret, m2.n_rel) == (2, 2, 1, 1)
    # Relevant documents on top, none missed: AP = r_s / r_s = 1, or 0 when r_s = 0.
    assert set(np.unique(cube1)) == {0.0, 1.0}
    assert set(np.unique(cube2)) == {0.0, 1.0}
    assert cube1.mean() > cube2.mean()  # Poisson(2) is 0 less often than Poisson(1)


# ------------------------------------------------------------------------------------
# Analysis (Tables 10–11)


def test_analysis_moments_and_identity() -> None:
    rng = np.random.default_rng(0)
    ap = rng.random((4, 3, 50))  # m = 4 systems, n = 3 topics, k = 50
    res = analyse_samples(ap, ["a", "b", "c", "d"], ["t1", "t2", "t3"])
    target = ap.max(axis=0)  # (n, k)
    c = target.mean(axis=1)
    assert np.allclose(res.c, c)
    assert np.allclose(res.bias2, (ap.mean(axis=2).T - c[:, None]) ** 2)
    assert np.allclose(res.var, ap.var(axis=2).T)
    mse = ((ap - c[None, :, None]) ** 2).mean(axis=2).T
    assert np.allclose(res.bias2 + res.var, mse, atol=1e-12, rtol=0)
    assert np.allclose(res.mean_bias2, res.bias2.mean(axis=0))  # eq. 13
    assert np.allclose(res.mean_var, res.var.mean(axis=0))  # eq. 14
    for j in range(3):
        assert res.topic_pearson[j] == pytest.approx(
            stats.pearsonr(res.bias2[j], res.var[j])[0], abs=1e-12
        )
    p = stats.pearsonr(res.mean_bias2, res.mean_var)
    s = stats.spearmanr(res.mean_bias2, res.mean_var)
    assert res.tradeoff.pearson == pytest.approx(p[0])
    # 4 runs: exact permutation p-values (docs/numbers.md), not the t-test's.
    assert res.tradeoff.pearson_p == pytest.approx(
        correlation_p(res.mean_bias2, res.mean_var, "pearson")
    )
    assert res.tradeoff.spearman == pytest.approx(s[0])
    assert res.tradeoff.spearman_p == pytest.approx(
        correlation_p(res.mean_bias2, res.mean_var, "spearman")
    )
    assert res.m == 4 and res.k == 50


def test_undefined_correlations_are_nan_without_warnings() -> None:
    with warnings.catch_warnings():
        warnings.simplefilter("error")
        assert np.isnan(rowwise_pearson(np.ones((2, 4)), np.arange(8.0).reshape(2, 4))).all()
        assert np.isnan(rowwise_pearson(np.ones((1, 1)), np.ones((1, 1)))).all()
        assert math.isnan(correlate(np.array([1.0, 2.0]), np.array([2.0, 1.0])).pearson)
        assert math.isnan(correlate(np.ones(5), np.arange(5.0)).spearman_p)
        # A topic where every system always scores 0: Bias² = Var = 0 for all.
        ap = np.zeros((3, 2, 10))
        ap[:, 1] = np.random.default_rng(1).random((3, 10))
        res = analyse_samples(ap, ["a", "b", "c"], ["t1", "t2"])
        assert np.isnan(res.topic_pearson[0]) and not np.isnan(res.topic_pearson[1])


def test_pertopic_defaults_drop_topics_without_relevant() -> None:
    qrels, runs = small_track(m=4, n=3)
    qrels["empty"] = {"zz": 0}
    res = pertopic(qrels, runs, k=40, seed=5)
    assert res.topics == ("t0", "t1", "t2")
    assert res.bias2.shape == (3, 4) and res.mean_var.shape == (4,)
    # The system achieving the target in every sample has Bias² = 0 there.
    assert np.all(res.bias2.min(axis=1) >= 0)


@pytest.mark.parametrize("seed", range(8))
def test_column_models_equal_the_dict_models(seed):
    """Pair models made from a run's columns (bytes docnos, rows by topic, a
    file that interleaves topics) equal pair_model on the run as a dict:
    same counts, same "above" groups, with many score ties between relevant
    and non-relevant documents, and topics the run lacks."""
    from bvtest_cli.io.trec import RunColumns

    rng = np.random.default_rng(seed)
    topics = ["1", "2", "3", "10"]
    run: dict[str, dict[str, float]] = {}
    for t in topics[:3]:
        docs = rng.choice(200, size=int(rng.integers(1, 60)), replace=False)
        run[t] = {f"d{d}\xe9": float(rng.choice([0.5, 1.0, 1.5, -2.0])) for d in docs}
    rows = [(t, d, v) for t, docs in run.items() for d, v in docs.items()]
    rows = [rows[i] for i in rng.permutation(len(rows))]  # topics interleaved, as a file may
    interleaved: dict[str, dict[str, float]] = {}
    for t, d, v in rows:
        interleaved.setdefault(t, {})[d] = v
    columns = RunColumns.from_dict(interleaved)
    columns = RunColumns(
        columns.topics,
        np.array([columns.topics.index(t) for t, _, _ in rows], dtype=np.int32),
        np.array([d.encode("latin-1") for _, d, _ in rows]),
        np.array([v for _, _, v in rows]),
    )
    relevant = [frozenset(f"d{d}\xe9" for d in rng.choice(200, 40, replace=False)) for _ in topics]
    as_bytes = [frozenset(d.encode("latin-1") for d in rel) for rel in relevant]
    models, missing = simulate._column_models(columns, topics, as_bytes)
    assert missing == 1
    for t, rel, got in zip(topics, relevant, models, strict=True):
        want = simulate.pair_model(run.get(t), rel)
        assert (got.n_ret, got.n_rel_ret, got.n_rel) == (want.n_ret, want.n_rel_ret, want.n_rel)
        for field in ("above", "group_of_rel", "gaps"):
            assert getattr(got, field).tolist() == getattr(want, field).tolist()
