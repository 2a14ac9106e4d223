"""Tests of the budgeted test collections (pooling and sampling).

Oracles: judgment orders of move-to-front and Hedge and the AP-prior worked
out by hand, pools computed here with plain set operations, identities of
the sampling design (budgets, inclusion probabilities), and simulation with a
known truth: the Horvitz–Thompson count of relevant documents must be right
on average for the random designs and wrong for a sampler that favours the
top of each stratum. The real-data test uses ../shared/data/robust2003 and is
skipped without it.
"""

from __future__ import annotations

import math
from fractions import Fraction
from pathlib import Path

import numpy as np
import pytest

from bvtest_cli.analyses.budgets import sampling as S
from bvtest_cli.analyses.budgets.pooling import pool, ranked
from bvtest_cli.io.sources import expand_sources
from bvtest_cli.io.trec import read_qrels, read_run

REPO = Path(__file__).resolve().parents[1]
ROBUST = REPO.parent / "shared" / "data" / "robust2003"


# The test's own oracles: the inclusion probabilities of a drawn sample and the
# Horvitz–Thompson estimate of its relevant documents, written from their definitions.


def inclusion_probabilities(sample: S.Sample, topic: str) -> dict[str, float]:
    """π_d of every judged document of the topic: judged / listed in its
    stratum (within a stratum the judged documents are a simple random
    sample of the listed ones)."""
    docs = sample.topics.get(topic, {})
    listed: dict[int, int] = {}
    judged: dict[int, int] = {}
    for stratum, grade in docs.values():
        listed[stratum] = listed.get(stratum, 0) + 1
        if grade >= 0:
            judged[stratum] = judged.get(stratum, 0) + 1
    return {d: judged[h] / listed[h] for d, (h, grade) in docs.items() if grade >= 0}


def horvitz_thompson_relevant(sample: S.Sample, topic: str, rel_level: int = 1) -> float:
    """R̂ = Σ 1/π_d over the topic's judged relevant documents: an unbiased
    estimate of the number of relevant documents in its pool."""
    pi = inclusion_probabilities(sample, topic)
    docs = sample.topics.get(topic, {})
    return float(sum(1.0 / p for d, p in pi.items() if docs[d][1] >= rel_level))


def load(qrels_path: Path, runs_dir: Path):
    qrels = read_qrels(str(qrels_path)).qrels
    runs = [read_run(s) for s in expand_sources([str(runs_dir)])]
    topics = set().union(*(r.keys() for r in runs))
    rankings = {
        t: [tuple(d for d, _ in ranked(r[t])) if t in r else () for r in runs] for t in topics
    }
    return rankings, qrels, runs


@pytest.fixture(scope="module")
def repo_data():
    return load(REPO / "qrels" / "qrels.txt", REPO / "sample_runs")


def synthetic(seed: int, topics: int = 3, runs: int = 3, depth: int = 200, universe: int = 300):
    """Runs that rank a topic's documents by a noisy version of one hidden
    order, with the relevant documents concentrated at its top."""
    rng = np.random.default_rng(seed)
    rankings, qrels = {}, {}
    for t in range(topics):
        topic = str(100 + t)
        names = [f"t{t}-d{i:04d}" for i in range(universe)]
        relevant = rng.random(universe) < np.where(np.arange(universe) < 40, 0.7, 0.05)
        qrels[topic] = {n: int(r) for n, r in zip(names, relevant, strict=True) if r or t % 2}
        lists = []
        for _ in range(runs):
            noisy = np.arange(universe) + rng.normal(0, 25, universe)
            lists.append(tuple(names[i] for i in np.argsort(noisy)[:depth]))
        rankings[topic] = lists
    return rankings, qrels


def pool_set(runs, depth=None) -> set[str]:
    return {d for run in runs for d in run[:depth]}


def grade(qrels_topic, d) -> int:
    return max(0, qrels_topic.get(d, 0))


# ---------------------------------------------------------------------------
# Budgets and pools


@pytest.mark.parametrize("method", ["mtf", "hedge", "uniform", "pps"])
@pytest.mark.parametrize("budget", [1, 7, 60, 10**6])
def test_budget_is_exact(repo_data, method, budget):
    rankings, qrels, _ = repo_data
    smp = S.sample(method, rankings, qrels, budget=budget, seed=3)
    expected_topics = [t for t in qrels if t in rankings and pool_set(rankings[t])]
    assert sorted(smp.topics) == sorted(expected_topics)
    for topic, docs in smp.topics.items():
        pooled = pool_set(rankings[topic])
        assert smp.judged(topic) == min(budget, len(pooled))
        assert list(docs) == sorted(docs)
        assert set(docs) <= pooled
        if method in S.RANDOM_METHODS:
            assert set(docs) == pooled
        else:
            assert smp.listed(topic) == smp.judged(topic)
        for d, (_, g) in docs.items():
            assert g in (-1, grade(qrels[topic], d))
    assert smp.judged() == sum(min(budget, len(pool_set(rankings[t]))) for t in expected_topics)


def test_topics_outside_qrels_or_without_pool_are_left_out():
    rankings = {"1": [("a", "b")], "2": [("c",)], "3": [(), ()]}
    qrels = {"1": {"a": 1}, "3": {"x": 1}, "4": {"y": 1}}
    for method in S.METHODS:
        smp = S.sample(method, rankings, qrels, budget=5, options=S.MethodOptions(depth=1))
        assert list(smp.topics) == ["1"]


@pytest.mark.parametrize("depth", [1, 5, 20, 5000])
def test_depth_sample_is_the_depth_pool(repo_data, depth):
    rankings, qrels, runs = repo_data
    smp = S.depth_sample(rankings, qrels, depth)
    relevant = set()
    for topic in qrels:
        pooled = pool_set(rankings.get(topic, []), depth)
        if not pooled:
            assert topic not in smp.topics
            continue
        docs = smp.topics[topic]
        assert list(docs) == sorted(pooled)
        assert all(docs[d] == (1, grade(qrels[topic], d)) for d in pooled)
        relevant |= {(topic, d) for d in pooled if qrels[topic].get(d, 0) >= 1}
    found = {(t, d) for t, docs in smp.topics.items() for d, (_, g) in docs.items() if g >= 1}
    assert found == relevant
    # bvtest's depth pool keeps only judged documents; its relevant ones agree
    old = pool(qrels, runs, depth).qrels
    assert found == {(t, d) for t, docs in old.items() for d, g in docs.items() if g >= 1}


def test_depth_for_budget():
    rankings = {"1": [("a", "b", "c"), ("b", "d", "e")], "2": [("x", "y")], "3": [("q",)]}
    # depth-K pools: topic 1: 2, 4, 5 documents; topic 2: 1, 2, 2
    assert S.depth_for_budget(rankings, ["1", "2"], 1) == 1  # depth 1 already 1.5
    assert S.depth_for_budget(rankings, ["1", "2"], 2) == 1
    assert S.depth_for_budget(rankings, ["1", "2"], 3) == 2  # (4 + 2) / 2
    assert S.depth_for_budget(rankings, ["1", "2"], 4) == 3  # 3.5: everything
    assert S.depth_for_budget(rankings, ["1", "2", "9"], 3) == 2  # 9 has no pool
    assert S.depth_for_budget(rankings, ["2", "3"], 1) == 1


def test_depth_for_budget_matches_set_pools(repo_data):
    rankings, qrels, _ = repo_data
    topics = [t for t in qrels if pool_set(rankings.get(t, []))]
    for budget in (10, 100, 400):
        k = S.depth_for_budget(rankings, qrels, budget)

        def mean_pool(depth):
            return sum(len(pool_set(rankings[t], depth)) for t in topics) / len(topics)

        assert k == 1 or mean_pool(k) <= budget
        assert mean_pool(k + 1) > budget or mean_pool(k + 1) == mean_pool(10**6)


# ---------------------------------------------------------------------------
# Move-to-front and Hedge by hand


def judgment_order(method, rankings, qrels, seed):
    """The order of judgments, read off the judged sets at budgets 1, 2, …"""
    order = []
    for budget in range(1, 6):
        smp = S.sample(method, rankings, qrels, budget=budget, seed=seed)
        new = set(smp.topics["1"]) - set(order)
        assert len(new) == 1
        order.append(new.pop())
    return order


def test_mtf_by_hand():
    rankings = {"1": [("a", "b", "c"), ("d", "e", "b")]}
    qrels = {"1": {"a": 1, "b": 0, "c": 2, "e": 1}}  # d absent: non-relevant
    # A first: a (rel, A stays at 0), b (non-rel, A → −1), B: d (non-rel,
    # B → −1), both at −1 and A first: c (rel), A exhausted, B: e.
    a_first = ["a", "b", "d", "c", "e"]
    # B first: d (non-rel, B → −1), A: a (rel), b (non-rel, A → −1), B at
    # −1 ahead of A: e (rel), then b is judged so B is exhausted, A: c.
    b_first = ["d", "a", "b", "e", "c"]
    seen = set()
    for seed in range(12):
        order = judgment_order("mtf", rankings, qrels, seed)
        assert order in (a_first, b_first)
        seen.add(tuple(order))
    assert len(seen) == 2  # the tie between the runs is broken at random
    # at rel_level 2, a (grade 1) is non-relevant: whichever run goes first
    # drops after one judgment, and the other judges its top document
    for seed in range(4):
        smp = S.mtf_sample(rankings, qrels, 2, seed=seed, rel_level=2)
        assert set(smp.topics["1"]) == {"a", "d"}


def test_hedge_by_hand():
    # Z = 4: ℓ(1) = ln 2 = .6931, ℓ(2) = ½ ln 2 = .3466, ℓ(3) = ½ ln(4/3) =
    # .1438, ℓ(4) = 0; M = ln 2.
    rankings = {"1": [("a", "b", "d"), ("b", "d", "a", "c"), ("e", "d", "a")]}
    # Step 1 (all weights 1): a .6931 + .1438 + .1438 = .9808, b .3466 +
    # .6931 = 1.0397, c 0, d .1438 + .3466 + .3466 = .8370, e .6931 → b.
    # b relevant: losses (−ℓ + M)/2M: A .25, B 0, C .5 → weights 0.1^L =
    # .5623, 1, .3162: a .3898 + .1438 + .0455 = .5791, d .0809 + .3466 +
    # .1096 = .5371, e .2192, c 0 → a; then d, e, c.
    relevant_b = {"1": {"b": 1, "a": 0}}
    assert judgment_order("hedge", rankings, relevant_b, 0) == ["b", "a", "d", "e", "c"]
    # b non-relevant: losses (ℓ + M)/2M: A .75, B 1, C .5 → weights .1778,
    # .1, .3162: a .1232 + .0144 + .0455 = .1831, d .0256 + .0347 + .1096 =
    # .1699, e .2192 → e (C gains its weight back); then a, d, c.
    nothing = {"1": {"z": 1}}
    assert judgment_order("hedge", rankings, nothing, 0) == ["b", "e", "a", "d", "c"]
    for seed in (1, 2):  # no ties: the seed does not matter
        assert judgment_order("hedge", rankings, nothing, seed) == ["b", "e", "a", "d", "c"]


# ---------------------------------------------------------------------------
# AP-prior and strata by hand


def test_ap_prior_by_hand():
    # Z = 3, H = 0, 1, 3/2, 11/6: w(1) = (1 + 11/6)/6 = 17/36,
    # w(2) = (1 + 11/6 − 1)/6 = 11/36, w(3) = (1 + 11/6 − 3/2)/6 = 8/36
    prior = S.ap_prior([("a", "b", "c"), ("b", "d")])
    expected = {
        "a": Fraction(17, 36),
        "b": Fraction(11, 36) + Fraction(17, 36),
        "c": Fraction(8, 36),
        "d": Fraction(11, 36),
    }
    assert list(prior) == ["a", "b", "c", "d"]
    for d, value in expected.items():
        assert prior[d] == pytest.approx(float(value), rel=1e-12)
    # a run of Z documents spreads a mass of exactly 1
    runs = [tuple(f"x{i}" for i in range(50)), tuple(f"x{i}" for i in range(49, -1, -1))]
    assert sum(S.ap_prior(runs).values()) == pytest.approx(2.0, rel=1e-12)
    assert S.pool_of([("b", "a"), ("c", "a")]) == ["a", "b", "c"]


def test_strata_by_hand():
    # M = 8, order a b c d (c, d tie: docno order), C = 0 4 6 7,
    # 4C/M = 0 2 3 3.5 → strata 1 3 4 4 (2 is empty: a weighs M/2)
    assert S.strata_of({"d": 1.0, "a": 4.0, "c": 1.0, "b": 2.0}, 4) == {
        "a": 1,
        "b": 3,
        "c": 4,
        "d": 4,
    }
    # M = 12, C = 0 10 11, 3C/M = 0 2.5 2.75
    assert S.strata_of({"x": 10.0, "y": 1.0, "z": 1.0}, 3) == {"x": 1, "y": 3, "z": 3}
    # the priors of test_ap_prior_by_hand: b 28, a 17, d 11, c 8 (/36),
    # M = 64, 2C/M = 0, .875, 1.406, 1.75 → b a | d c
    rankings = {"1": [("a", "b", "c"), ("b", "d")]}
    qrels = {"1": {"a": 1, "b": 1, "c": 1, "d": 1}}
    design = S.pps_design(rankings, 2)
    smp = S.pps_sample(rankings, qrels, 3, strata=2, seed=0, design=design)
    assert {d: h for d, (h, _) in smp.topics["1"].items()} == {"a": 1, "b": 1, "c": 2, "d": 2}
    judged = [h for h, g in smp.topics["1"].values() if g >= 0]
    assert sorted(judged) == [1, 1, 2]  # 3 draws over 2 strata: 2, then 1
    smp = S.pps_sample(rankings, qrels, 1, strata=2, seed=0)
    assert [h for h, g in smp.topics["1"].values() if g >= 0] == [1]


def test_allocation_water_filling():
    assert S.allocate([5, 5, 5, 5], 10) == [3, 3, 2, 2]
    # 9 over 3: 3 each, the first takes 1 and the last 2; 3 left go to the second
    assert S.allocate([1, 10, 2], 9) == [1, 6, 2]
    # 7 over 4: 2 2 2 1 capped to 1 1 2 1; 2 left split over the two with room
    assert S.allocate([1, 1, 4, 4], 7) == [1, 1, 3, 2]
    assert S.allocate([2, 3], 100) == [2, 3]
    assert S.allocate([4, 4, 4], 2) == [1, 1, 0]


def test_pps_allocation_with_small_strata():
    # d000 (top of 12 runs) holds a quarter of the prior mass, so stratum 2
    # is empty; d001 (8 % of it) fills stratum 3 alone; then a long tail
    runs = [tuple(f"d{i:03d}" for i in range(100))] + [("d000",)] * 8 + [("d001", "d000")] * 3
    rankings = {"1": runs}
    qrels = {"1": {}}
    design = S.pps_design(rankings, 10)
    sizes: dict[int, int] = {}
    for h in design.topics["1"].listed.values():
        sizes[h[0]] = sizes.get(h[0], 0) + 1
    numbers = sorted(sizes)
    assert 2 not in sizes and sizes[1] == sizes[3] == 1 and numbers[-1] == 10
    for budget in (5, 20, 60, 100, 150):
        smp = S.pps_sample(rankings, qrels, budget, strata=10, seed=1, design=design)
        judged = dict.fromkeys(numbers, 0)
        for h, g in smp.topics["1"].values():
            judged[h] += g >= 0
        expected = S.allocate([sizes[h] for h in numbers], budget)
        assert [judged[h] for h in numbers] == expected
        assert sum(expected) == min(budget, 100)


# ---------------------------------------------------------------------------
# Inclusion probabilities and Horvitz–Thompson


def test_inclusion_probability_identities():
    rankings, qrels = synthetic(4)
    smp = S.pps_sample(rankings, qrels, 37, strata=7, seed=2)
    for topic, docs in smp.topics.items():
        pi = inclusion_probabilities(smp, topic)
        assert set(pi) == {d for d, (_, g) in docs.items() if g >= 0}
        for h in {h for h, _ in docs.values()}:
            listed = [d for d, (k, _) in docs.items() if k == h]
            judged = [d for d in listed if docs[d][1] >= 0]
            # Σ over the stratum's documents of π is the number judged there
            assert sum(pi[judged[0]] for _ in listed) == pytest.approx(len(judged))
            # and Σ 1/π over the judged ones counts the stratum exactly
            assert sum(1 / pi[d] for d in judged) == pytest.approx(len(listed))
    # pooling judges every listed document: π = 1, R̂ = relevant judged
    mtf = S.mtf_sample(rankings, qrels, 30, seed=0)
    for topic, docs in mtf.topics.items():
        assert set(inclusion_probabilities(mtf, topic).values()) == {1.0}
        found = sum(1 for _, g in docs.values() if g >= 1)
        assert horvitz_thompson_relevant(mtf, topic) == found


def top_of_strata(smp: S.Sample, rankings, qrels, rng) -> S.Sample:
    """A broken sampler: keeps the allocation of ``smp`` but draws each
    stratum's documents among the highest-prior twice as many."""
    topics = {}
    for topic, docs in smp.topics.items():
        prior = S.ap_prior(rankings[topic])
        out = {d: (h, -1) for d, (h, _) in docs.items()}
        for h in {h for h, _ in docs.values()}:
            members = sorted((d for d in docs if docs[d][0] == h), key=lambda d: -prior[d])
            k = sum(1 for d in members if docs[d][1] >= 0)
            for d in rng.choice(members[: 2 * k], size=k, replace=False):
                out[d] = (h, grade(qrels[topic], d))
        topics[topic] = out
    return S.Sample("broken", topics)


def within_3_se(estimates, truth) -> bool:
    estimates = np.asarray(estimates, dtype=float)
    se = estimates.std(ddof=1) / math.sqrt(len(estimates))
    return abs(estimates.mean() - truth) <= 3 * se


def test_horvitz_thompson_is_unbiased_and_detects_bias():
    rankings, qrels = synthetic(7)
    truth = sum(
        1 for t in qrels for d in pool_set(rankings[t]) if qrels[t].get(d, 0) >= 1
    )  # relevant pooled documents
    design = S.pps_design(rankings, 10)
    rng = np.random.default_rng(11)
    pps, uniform, broken = [], [], []
    for r in range(400):
        smp = S.pps_sample(rankings, qrels, 40, strata=10, seed=5, repeat=r, design=design)
        pps.append(sum(horvitz_thompson_relevant(smp, t) for t in smp.topics))
        bad = top_of_strata(smp, rankings, qrels, rng)
        broken.append(sum(horvitz_thompson_relevant(bad, t) for t in bad.topics))
        smp = S.uniform_sample(rankings, qrels, 40, seed=5, repeat=r)
        uniform.append(sum(horvitz_thompson_relevant(smp, t) for t in smp.topics))
    assert within_3_se(pps, truth)
    assert within_3_se(uniform, truth)
    assert not within_3_se(broken, truth)
    # the prior strata are the point of pps: less variance than uniform
    assert np.var(pps) < np.var(uniform)


# ---------------------------------------------------------------------------
# Pooling finds relevant documents


def depth_pool_relevant(rankings, qrels, budget) -> int:
    """Relevant documents in each topic's deepest depth pool of at most
    ``budget`` documents (at least depth 1)."""
    found = 0
    for topic in qrels:
        runs = rankings.get(topic, [])
        longest = max((len(r) for r in runs), default=0)
        k = 1
        while k < longest and len(pool_set(runs, k + 1)) <= budget:
            k += 1
        found += sum(1 for d in pool_set(runs, k) if qrels[topic].get(d, 0) >= 1)
    return found


def relevant_found(smp: S.Sample) -> int:
    return sum(1 for docs in smp.topics.values() for _, g in docs.values() if g >= 1)


def test_adaptive_pools_find_more_relevant_synthetic():
    rankings, qrels = synthetic(8, topics=4, runs=5)
    for budget in (20, 50, 100):
        depth = depth_pool_relevant(rankings, qrels, budget)
        for method in ("mtf", "hedge"):
            smp = S.sample(method, rankings, qrels, budget=budget, seed=1)
            assert relevant_found(smp) >= depth, (method, budget)


def test_adaptive_pools_find_more_relevant_sample_data(repo_data):
    rankings, qrels, _ = repo_data
    for budget in (20, 50, 100):
        depth = depth_pool_relevant(rankings, qrels, budget)
        for method in ("mtf", "hedge"):
            smp = S.sample(method, rankings, qrels, budget=budget, seed=1)
            assert relevant_found(smp) >= depth, (method, budget)


# ---------------------------------------------------------------------------
# Random streams


@pytest.mark.parametrize("method", S.METHODS)
def test_streams(method):
    rankings, qrels = synthetic(9, topics=4)
    one = S.sample(method, rankings, qrels, budget=25, seed=4)
    assert S.sample(method, rankings, qrels, budget=25, seed=4) == one
    if method in S.RANDOM_METHODS:
        assert S.sample(method, rankings, qrels, budget=25, seed=4, repeat=1) != one
        assert S.sample(method, rankings, qrels, budget=25, seed=5) != one
    # a topic's sample depends on nothing but its own stream
    kept = {t: qrels[t] for t in ("101", "103")}
    part = S.sample(method, rankings, dict(reversed(kept.items())), budget=25, seed=4)
    assert part.topics == {t: one.topics[t] for t in kept}
    assert list(part.topics) == ["101", "103"]


def test_sample_counts():
    smp = S.Sample("x", {"1": {"a": (1, 0), "b": (1, -1)}, "2": {"c": (2, 3)}})
    assert (smp.judged(), smp.listed(), smp.judged("1"), smp.listed("1")) == (2, 3, 1, 2)
    assert smp.judged("9") == smp.listed("9") == 0


def test_negative_grades_are_zero():
    rankings = {"1": [("a", "b")]}
    smp = S.depth_sample(rankings, {"1": {"a": -1, "b": 2}}, 1)
    assert smp.topics["1"] == {"a": (1, 0)}


def test_errors():
    rankings, qrels = {"1": [("a",)]}, {"1": {"a": 1}}
    with pytest.raises(ValueError, match="budget"):
        S.sample("uniform", rankings, qrels, budget=0)
    for method in ("mtf", "hedge", "pps"):
        with pytest.raises(ValueError, match="budget"):
            S.sample(method, rankings, qrels, budget=0)
    with pytest.raises(ValueError, match="depth"):
        S.sample("depth", rankings, qrels, budget=5, options=S.MethodOptions(depth=0))
    with pytest.raises(ValueError, match="strata"):
        S.sample("pps", rankings, qrels, budget=5, options=S.MethodOptions(strata=0))
    with pytest.raises(ValueError, match="strata"):
        S.pps_design(rankings, 0)
    with pytest.raises(ValueError, match="unknown sampling method"):
        S.sample("bogus", rankings, qrels, budget=5)
    with pytest.raises(ValueError, match="budget"):
        S.depth_for_budget(rankings, qrels, 0)
    with pytest.raises(ValueError, match="design"):
        S.pps_sample(rankings, qrels, 5, strata=3, seed=0, design=S.pps_design(rankings, 2))


# ---------------------------------------------------------------------------
# Real data


@pytest.fixture(scope="module")
def robust():
    if not (ROBUST / "qrels.txt").is_file() or not (ROBUST / "runs").is_dir():
        pytest.skip(f"{ROBUST} is absent")
    return load(ROBUST / "qrels.txt", ROBUST / "runs")


def test_pps_on_robust2003(robust):
    rankings, qrels, _ = robust
    truth = sum(1 for t in qrels for d in pool_set(rankings.get(t, [])) if qrels[t].get(d, 0) >= 1)
    design = S.pps_design(rankings, 20, topics=qrels)
    totals = []
    for r in range(20):
        smp = S.pps_sample(rankings, qrels, 100, strata=20, seed=1, repeat=r, design=design)
        for topic in smp.topics:
            assert smp.judged(topic) == min(100, len(pool_set(rankings[topic])))
        totals.append(sum(horvitz_thompson_relevant(smp, t) for t in smp.topics))
    assert abs(np.mean(totals) - truth) <= 0.05 * truth
