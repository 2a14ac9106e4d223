"""Tests of the bias and variance of system rankings (docs/rankings.md; Cormack & Grossman 2019).

Oracles: scipy.stats.kendalltau (variant b) for τ_b; a brute-force estimator
written here (a double loop over all B × B pairs of bootstrap rankings with
scipy's τ_b) for Δ, σ, b², RMSE and their batch estimates; gathering drawn
topics for the bootstrap means; hand-made sign vectors; identities (RMSE² =
b² + σ², X = G). The "must show" properties of are checked on the
bundled sample track and on generated score matrices.
"""

from __future__ import annotations

import math
from pathlib import Path

import numpy as np
import pytest
from scipy import stats

from bvtest_cli.analyses import rankings
from bvtest_cli.analyses.budgets.pooling import pool
from bvtest_cli.analyses.rankings import (
    Batching,
    RankingSet,
    bootstrap_means,
    delta,
    draw_samples,
    kendall_tau_b,
    pair_signs,
    ranking_accuracy,
    sample_counts,
    sign_columns,
    signed_sqrt,
    stream,
)
from bvtest_cli.io.sources import expand_sources
from bvtest_cli.io.trec import QrelsFile, read_qrels, read_run
from bvtest_cli.measures.collections import evaluate_collections
from bvtest_cli.measures.evaluate import evaluate_runs
from bvtest_cli.measures.names import parse_measures

REPO = Path(__file__).resolve().parents[1]
SAMPLE_QRELS = str(REPO / "qrels" / "qrels.txt")
SAMPLE_RUNS = str(REPO / "sample_runs")


# ------------------------------------------------------------------------------------
# Brute-force oracle


def scipy_tau(x: np.ndarray, y: np.ndarray) -> float:
    return float(stats.kendalltau(x, y, variant="b").statistic)


def brute_delta(mx: np.ndarray, my: np.ndarray, batches: int) -> tuple[float, np.ndarray]:
    """Δ = mean (1 − τ_b)² over all pairs of rows (defined τ only), and the
    same per batch over batch k of X × batch k of Y."""
    bx = np.arange(len(mx)) * batches // len(mx)
    by = np.arange(len(my)) * batches // len(my)
    total, count = 0.0, 0
    sums, counts = np.zeros(batches), np.zeros(batches)
    for a in range(len(mx)):
        for b in range(len(my)):
            tau = scipy_tau(mx[a], my[b])
            if math.isnan(tau):
                continue
            v = (1 - tau) ** 2
            total += v
            count += 1
            if bx[a] == by[b]:
                sums[bx[a]] += v
                counts[bx[a]] += 1
    with np.errstate(invalid="ignore"):
        return total / count, sums / counts


class BruteForce:
    """b², |b|, σ, RMSE from the streams' bootstrap means by brute force
    (each Δ computed once and kept)."""

    def __init__(self, named: dict, seed: int, samples: int, n_prime: int, batches: int):
        self.named, self.seed, self.samples = named, seed, samples
        self.n_prime, self.batches = n_prime, batches
        self._deltas: dict = {}

    def means(self, name: str, role: str) -> np.ndarray:
        scores = np.asarray(self.named[name], dtype=float)
        rng = stream(self.seed, name, role)
        # Means that differ by rounding only are ties (scipy compares exactly).
        return np.round(bootstrap_means(scores, rng, self.samples, self.n_prime), 9)

    def delta(self, x: tuple[str, str], y: tuple[str, str]) -> tuple[float, np.ndarray]:
        if (x, y) not in self._deltas:
            self._deltas[x, y] = brute_delta(self.means(*x), self.means(*y), self.batches)
        return self._deltas[x, y]

    def accuracy(self, x: str, g: str) -> dict[str, float]:
        d, d_batch = self.delta((x, "a"), (g, "r"))
        sx, sx_batch = (v / 2 for v in self.delta((x, "a"), (x, "b")))
        sg, sg_batch = (v / 2 for v in self.delta((g, "a"), (g, "b")))
        b2 = d - sx - sg
        b2_batch = d_batch - sx_batch - sg_batch
        root_k = math.sqrt(self.batches)

        def root(v: float) -> float:
            return math.copysign(math.sqrt(abs(v)), v)

        def mapped(v: float, batch: np.ndarray) -> float:
            # the ±2 se interval of the square through the signed root: half
            # the larger distance from the root to its ends
            se = batch.std(ddof=1) / root_k
            return max(root(v) - root(v - 2 * se), root(v + 2 * se) - root(v)) / 2

        return {
            "delta": d,
            "b2": b2,
            "bias": root(b2),
            "sigma": math.sqrt(sx),
            # RMSE = √(b² + σ²), b² signed ([Cormack19] Table 1), 0 below 0
            "rmse": math.sqrt(max(b2 + sx, 0.0)),
            "se_b2": b2_batch.std(ddof=1) / root_k,
            "se_bias": mapped(b2, b2_batch),
            "se_sigma": mapped(sx, sx_batch),
            "se_rmse": mapped(max(b2 + sx, 0.0), b2_batch + sx_batch),
        }


# ------------------------------------------------------------------------------------
# τ_b and sign vectors


def test_pair_signs_by_hand():
    # pairs (0,1), (0,2), (0,3), (1,2), (1,3), (2,3)
    signs = pair_signs(np.array([0.3, 0.1, 0.3, 0.5]))
    assert signs.dtype == np.int8
    assert signs.tolist() == [1, 0, -1, -1, -1, -1]
    # 0.1 + 0.2 != 0.3 in binary, but they tie: rounding error is not a ranking.
    assert pair_signs(np.array([0.1 + 0.2, 0.3])).tolist() == [0]
    assert pair_signs(np.array([0.3 + 1e-6, 0.3])).tolist() == [1]
    # Vectorised over leading axes.
    both = pair_signs(np.array([[1.0, 2.0, 3.0], [3.0, 2.0, 2.0]]))
    assert both.tolist() == [[-1, -1, -1], [1, 1, 0]]


# ------------------------------------------------------------------------------------
# Bootstrap draws


def test_bootstrap_means_equal_gathered_means():
    rng = np.random.default_rng(3)
    s, m, n, samples, n_prime = 3, 6, 9, 50, 13
    scores = rng.random((s, m, n))
    topics, picks = draw_samples(stream(5, "X", "a"), n, s, samples, n_prime)
    # Gathering: mean over the n′ drawn (sample, topic) cells of each system.
    expected = scores[picks, :, topics].mean(axis=1)  # (B, n′, m) → (B, m)
    got = bootstrap_means(scores, stream(5, "X", "a"), samples, n_prime)
    np.testing.assert_allclose(got, expected, rtol=0, atol=1e-13)
    counts = sample_counts(topics, picks, n, s)
    assert counts.shape == (samples, s * n) and (counts.sum(axis=1) == n_prime).all()


def test_each_drawn_topic_takes_one_qrels_sample():
    # Sample 0 scores 0 everywhere, sample 1 scores 1: a bootstrap mean is the
    # share of drawn topics that took sample 1, a multiple of 1/n′ near ½ —
    # not the ½ of averaging the samples.
    n, n_prime, samples = 10, 10, 2000
    scores = np.stack([np.zeros((2, n)), np.ones((2, n))])
    means = bootstrap_means(scores, stream(1, "X", "a"), samples, n_prime)
    share = means[:, 0] * n_prime
    np.testing.assert_allclose(share, np.round(share), atol=1e-9)
    assert (means[:, 0] != 0.5).sum() > samples / 2
    # Binomial(n′, ½)/n′: mean ½, sd √(1/(4n′)); averaged over B samples.
    assert abs(means[:, 0].mean() - 0.5) < 4 * math.sqrt(0.25 / n_prime / samples)
    assert abs(means[:, 0].std() - math.sqrt(0.25 / n_prime)) < 0.01


def test_streams_depend_on_seed_name_and_role_only():
    a = stream(9, "X", "a").integers(0, 1 << 30, 8)
    assert (a == stream(9, "X", "a").integers(0, 1 << 30, 8)).all()
    for other in (stream(8, "X", "a"), stream(9, "Y", "a"), stream(9, "X", "b")):
        assert (a != other.integers(0, 1 << 30, 8)).any()
    assert rankings.stream_key("ab", "c") != rankings.stream_key("a", "bc")


# ------------------------------------------------------------------------------------
# Δ and the estimators against the brute-force oracle


def test_delta_equals_brute_force_with_undefined_rankings():
    rng = np.random.default_rng(11)
    mx = rng.integers(0, 3, size=(24, 5)).astype(float)
    my = rng.integers(0, 3, size=(18, 5)).astype(float)
    mx[[2, 9]] = 0.7  # every system ties: τ undefined, left out
    my[17] = 0.1
    x, y = RankingSet(mx, 4), RankingSet(my, 4)
    assert (x.undefined, y.undefined) == (2, 1)
    got = delta(x, y)
    expected, expected_batches = brute_delta(mx, my, 4)
    assert got.value == pytest.approx(expected, rel=1e-12)
    np.testing.assert_allclose(got.batches, expected_batches, rtol=1e-12)
    # The same in small blocks of rows (several steps of the product).
    blocked = delta(x, y, block_rows=5)
    assert blocked.value == pytest.approx(expected, rel=1e-12)
    np.testing.assert_allclose(blocked.batches, expected_batches, rtol=1e-12)


def test_delta_uses_the_tie_rule_of_kendall_tau_b():
    """Near-ties (means within 1e-9 of the ranking's scale, as summing topics
    in another order leaves them) are ties for Δ as for kendall_tau_b, which
    its own tests check against scipy and hand examples; scipy, which sees
    them as orders, gives another Δ."""
    rng = np.random.default_rng(5)
    coarse = rng.integers(0, 4, size=(30, 6)) / 4
    mx = coarse[:16] + rng.choice([-1, 0, 1], size=(16, 6)) * 1e-12
    my = coarse[16:] + rng.choice([-1, 0, 1], size=(14, 6)) * 1e-12
    got = delta(RankingSet(mx, 2), RankingSet(my, 2))
    taus = np.array([[float(kendall_tau_b(a, b)) for b in my] for a in mx])
    defined = ~np.isnan(taus)
    assert defined.sum() > 100
    assert got.value == pytest.approx(np.mean((1 - taus[defined]) ** 2), rel=1e-12)
    assert got.value != pytest.approx(brute_delta(mx, my, 2)[0], rel=1e-6)


def small_track(seed: int = 4, m: int = 6, n: int = 10) -> dict[str, np.ndarray]:
    rng = np.random.default_rng(seed)
    g = np.round(rng.random((m, n)), 1)  # coarse scores: ties between systems
    x = np.clip(g + np.round(rng.normal(0, 0.2, (m, n)), 1), 0, 1)
    y = np.stack([np.clip(g + rng.normal(0.05, 0.2, (m, n)), 0, 1) for _ in range(3)])
    return {"G": g, "X": x, "Y": y}


@pytest.mark.parametrize("n_prime", [None, 4])
def test_ranking_accuracy_equals_brute_force(n_prime):
    named = small_track()
    samples, batches, seed = 24, 3, 17
    res = ranking_accuracy(
        named["G"],
        {"X": named["X"], "Y": named["Y"]},
        reference_name="G",
        samples=samples,
        n_prime=n_prime,
        seed=seed,
        batching=Batching(batches=batches),
    )
    npr = n_prime or 10
    assert (res.samples, res.topics, res.batches) == (samples, npr, batches)
    brute = BruteForce(named, seed, samples, npr, batches)
    for ca in res.collections:
        exp = brute.accuracy(ca.name, "G")
        acc = ca.accuracy
        for field in exp:
            assert getattr(acc, field) == pytest.approx(exp[field], rel=1e-10, abs=1e-14), field
    sg = brute.delta(("G", "a"), ("G", "b"))[0]
    assert res.sigma_reference == pytest.approx(math.sqrt(sg / 2), rel=1e-12)
    # Table 3 layout: every ordered pair, the reference first; σ on the RMSE diagonal.
    t = res.table
    assert t is not None and t.names == ("G", "X", "Y")
    for i, row in enumerate(t.names):
        for j, col in enumerate(t.names):
            exp = brute.accuracy(row, col)
            assert t.b2[i, j] == pytest.approx(exp["b2"], rel=1e-10, abs=1e-14)
            assert t.bias[i, j] == pytest.approx(exp["bias"], rel=1e-10, abs=1e-14)
            want = exp["sigma"] if i == j else exp["rmse"]
            assert t.rmse[i, j] == pytest.approx(want, rel=1e-10, abs=1e-14)
    # The main results are the table's reference column.
    for k, ca in enumerate(res.collections, 1):
        assert t.bias[k, 0] == ca.accuracy.bias and t.rmse[k, 0] == ca.accuracy.rmse


def test_rmse_squared_is_bias_squared_plus_variance():
    named = small_track(seed=8)
    res = ranking_accuracy(named["G"], {"X": named["X"], "Y": named["Y"]}, samples=200, seed=3)
    for ca in res.collections:
        a = ca.accuracy
        assert a.rmse**2 == pytest.approx(max(a.b2 + a.sigma**2, 0.0), abs=1e-12)
        assert a.bias * abs(a.bias) == pytest.approx(a.b2, abs=1e-12)
    t = res.table
    k = len(t.names)
    for i in range(k):
        for j in range(k):
            if i != j:
                sigma_i = t.rmse[i, i]
                assert t.rmse[i, j] ** 2 == pytest.approx(
                    max(t.b2[i, j], 0.0) + sigma_i**2, abs=1e-12
                )


def test_signed_sqrt_is_the_papers_convention():
    assert signed_sqrt(0.0004) == pytest.approx(0.02)
    assert signed_sqrt(-0.0004) == pytest.approx(-0.02)  # Table 2: −√(−b²)


def test_same_seed_same_result_other_seed_differs():
    named = small_track(seed=2)
    cols = {"X": named["X"], "Y": named["Y"]}
    one = ranking_accuracy(named["G"], cols, samples=300, seed=5)
    two = ranking_accuracy(named["G"], cols, samples=300, seed=5)
    assert one.collections == two.collections and one.notes == two.notes
    for field in ("b2", "bias", "rmse", "se_bias", "se_rmse"):
        assert np.array_equal(getattr(one.table, field), getattr(two.table, field))
    other = ranking_accuracy(named["G"], cols, samples=300, seed=6)
    assert other.collections[0].accuracy.b2 != one.collections[0].accuracy.b2


def test_a_collections_result_does_not_depend_on_the_others():
    named = small_track(seed=6)
    alone = ranking_accuracy(named["G"], {"X": named["X"]}, samples=200, seed=1)
    first = ranking_accuracy(named["G"], {"X": named["X"], "Y": named["Y"]}, samples=200, seed=1)
    last = ranking_accuracy(named["G"], {"Y": named["Y"], "X": named["X"]}, samples=200, seed=1)
    x = alone.collections[0]
    assert x.name == "X"
    assert first.collections[0] == x and last.collections[1] == x
    assert alone.sigma_reference == first.sigma_reference == last.sigma_reference
    assert alone.table is None


def test_blocked_product_equals_unblocked_and_float64():
    rng = np.random.default_rng(1)
    g = rng.random((30, 20))
    x = g + rng.normal(0, 0.05, g.shape)
    kwargs = dict(samples=150, seed=4)
    whole = ranking_accuracy(g, {"X": x}, batching=Batching(batches=5), **kwargs)
    blocked = ranking_accuracy(g, {"X": x}, batching=Batching(5, block_rows=7), **kwargs)
    for field in ("delta", "b2", "bias", "sigma", "rmse", "se_b2", "se_bias", "se_sigma"):
        a = getattr(whole.collections[0].accuracy, field)
        b = getattr(blocked.collections[0].accuracy, field)
        assert b == pytest.approx(a, rel=1e-12), field
    # float32 products are exact: the same Δ as in float64 (signs built per
    # block from the means instead of kept).
    sx = RankingSet(bootstrap_means(g, stream(4, "g", "a"), 150), 5)
    sy = RankingSet(bootstrap_means(x, stream(4, "x", "a"), 150), 5)
    assert sx.dtype == np.float32 and sx.rows is not None
    d32 = delta(sx, sy)
    sx.rows = sy.rows = None
    sx.dtype = sy.dtype = np.float64
    d64 = delta(sx, sy, block_rows=40)
    assert d32.value == pytest.approx(d64.value, rel=1e-12)
    np.testing.assert_allclose(d32.batches, d64.batches, rtol=1e-12)


def test_product_of_varying_pairs_is_the_full_product_bit_for_bit():
    """Pairs ordered the same way in every bootstrap ranking of a set are
    kept as one sign, not as rows: Δ must be the very same doubles as the
    product of the full sign vectors, whichever pairs vary in one set, the
    other, both or neither, with undefined (all-tied) rankings among them."""
    rng = np.random.default_rng(7)
    m, n = 24, 15
    spread = np.linspace(0, 3, m)[:, None]  # far apart systems: constant pairs
    g = spread + rng.normal(0, 0.4, (m, n))
    x = spread[::-1] * 0.5 + rng.normal(0, 0.8, (m, n))
    for mx, my in ((g, x), (x, g), (g, g)):
        a = bootstrap_means(mx, stream(3, "a", "a"), 90)
        b = bootstrap_means(my, stream(3, "b", "r"), 70)
        a[5] = 0.25  # a ranking where every system ties: undefined
        sa, sb = RankingSet(a, 4), RankingSet(b, 4)
        assert sa.rows is not None and sb.rows is not None
        assert 0 < sa.varying.sum() < sa.pairs and sa.undefined == 1
        kept = delta(sa, sb, block_rows=16)
        sa.rows = sb.rows = None  # the full sign vectors, built block by block
        full = delta(sa, sb, block_rows=16)
        assert kept.value == full.value
        np.testing.assert_array_equal(kept.batches, full.batches)
        expected, _ = brute_delta(a, b, 4)
        assert kept.value == pytest.approx(expected, rel=1e-12)


def test_sign_columns_are_the_transposed_pair_signs():
    means = np.round(np.random.default_rng(0).random((20, 7)), 1)
    np.testing.assert_array_equal(sign_columns(means), pair_signs(means).T)
    assert sign_columns(means, np.float64).dtype == np.float64


def test_rankings_where_every_system_ties_are_left_out_with_a_note():
    rng = np.random.default_rng(2)
    g = rng.random((4, 6))
    x = np.zeros((4, 6))
    x[:, 0] = [0.1, 0.2, 0.3, 0.4]  # only topic 0 tells systems apart
    res = ranking_accuracy(g, {"X": x}, samples=400, seed=1)
    # A sample without topic 0 ties every system: (5/6)^6 of them, about 134.
    notes = [note for note in res.notes if note.startswith("X:")]
    assert notes and all("tie every system" in note for note in notes)
    assert math.isfinite(res.collections[0].accuracy.b2)
    flat = ranking_accuracy(g, {"Z": np.full((4, 6), 0.5)}, samples=50, seed=1)
    assert math.isnan(flat.collections[0].accuracy.b2)
    assert any("no bootstrap ranking is defined" in note for note in flat.notes)


def test_bad_arguments_are_value_errors():
    g = np.ones((3, 4))
    with pytest.raises(ValueError, match="at least two systems"):
        ranking_accuracy(np.ones((1, 4)), {"X": np.ones((1, 4))})
    with pytest.raises(ValueError, match="systems × topics"):
        ranking_accuracy(g, {"X": np.ones((3, 5))})
    with pytest.raises(ValueError, match="used twice"):
        ranking_accuracy(g, {"reference": g})
    with pytest.raises(ValueError, match="no test collection"):
        ranking_accuracy(g, {})
    with pytest.raises(ValueError, match="finite"):
        ranking_accuracy(g, {"X": np.full((3, 4), np.nan)})
    for kwargs in ({"samples": 0}, {"n_prime": 0}, {"batching": Batching(batches=0)}, {"seed": -1}):
        with pytest.raises(ValueError):
            ranking_accuracy(g, {"X": g}, **kwargs)


def test_batch_standard_errors_shrink_with_more_samples():
    # Monte Carlo error ∝ 1/√B: 16 × the samples, about ¼ the standard error.
    named = small_track(seed=9, m=10, n=15)
    twenty = Batching(batches=20)
    small = ranking_accuracy(named["G"], {"X": named["X"]}, samples=100, seed=2, batching=twenty)
    large = ranking_accuracy(named["G"], {"X": named["X"]}, samples=1600, seed=2, batching=twenty)
    ratio = large.collections[0].accuracy.se_b2 / small.collections[0].accuracy.se_b2
    assert 0.12 < ratio < 0.5


# ------------------------------------------------------------------------------------
# Generated dense track: more topics halve σ, |b| stays put (Cormack & Grossman 2019 §4.1)


def dense_track(m: int = 100, n: int = 50, seed: int = 5) -> tuple[np.ndarray, np.ndarray]:
    rng = np.random.default_rng(seed)
    mu = rng.uniform(0.1, 0.5, m)
    g = np.clip(mu[:, None] + rng.normal(0, 0.1, n)[None] + rng.normal(0, 0.15, (m, n)), 0, 1)
    bias = rng.normal(0, 0.02, m)  # a per-system distortion: X ranks differently
    x = np.clip(g + bias[:, None] + rng.normal(0, 0.05, (m, n)), 0, 1)
    return g, x


def test_four_times_the_topics_halves_sigma_and_keeps_bias():
    g, x = dense_track()
    base = ranking_accuracy(g, {"X": x}, seed=1, samples=500)
    quad = ranking_accuracy(g, {"X": x}, seed=1, samples=500, n_prime=4 * g.shape[1])
    assert quad.sigma_reference / base.sigma_reference == pytest.approx(0.5, rel=0.15)
    for a, b in zip(base.collections, quad.collections, strict=True):
        assert b.accuracy.sigma / a.accuracy.sigma == pytest.approx(0.5, rel=0.15)
    xb, xq = base.collections[0].accuracy, quad.collections[0].accuracy
    assert xb.bias > 5 * xb.sigma / 10  # clearly biased
    assert xq.bias == pytest.approx(xb.bias, rel=0.1)


# ------------------------------------------------------------------------------------
# The sample track


@pytest.fixture(scope="module")
def sample_scores():
    """AP of the sample runs under the full qrels (G), the same qrels again
    (X), and depth-5 / depth-100 pools of them."""
    ref = read_qrels(SAMPLE_QRELS)
    sources = expand_sources([SAMPLE_RUNS])
    runs = [read_run(s) for s in sources]
    pools = {k: pool(ref.qrels, runs, k).qrels for k in (5, 100)}
    collections = {
        "X": [ref],
        "depth5": [QrelsFile("depth5", pools[5], {})],
        "depth100": [QrelsFile("depth100", pools[100], {})],
    }
    notes: list[str] = []
    (scores,) = evaluate_collections(
        ref, collections, sources, parse_measures(["AP"]), note=notes.append
    )
    return scores, notes


def test_evaluate_collections_reference_equals_evaluate_runs(sample_scores):
    scores, notes = sample_scores
    ref = read_qrels(SAMPLE_QRELS)
    sources = expand_sources([SAMPLE_RUNS])
    plain_notes: list[str] = []
    (matrix,) = evaluate_runs(ref, sources, parse_measures(["AP"]), note=plain_notes.append)
    assert scores.systems == matrix.systems and scores.topics == matrix.topics
    assert np.array_equal(scores.reference[0], matrix.values)
    assert np.array_equal(scores.collections["X"][0], matrix.values)
    assert scores.collections["depth5"].shape == (1, 12, 29)
    assert "1 reference topic(s) have no relevant document (rel >= 1); dropped: 430" in notes
    assert any(note.startswith("sys004: no ranking for 2 of 29") for note in notes)
    assert not any("not in the" in n for n in plain_notes + notes)


def test_run_topics_missing_from_the_reference_are_ignored_with_a_note():
    full = read_qrels(SAMPLE_QRELS)
    ref = QrelsFile("ref", {t: d for t, d in full.qrels.items() if t != "401"}, {})
    sources = expand_sources([SAMPLE_RUNS])[:2]
    notes: list[str] = []
    (scores,) = evaluate_collections(
        ref, {"X": [full]}, sources, parse_measures(["AP"]), note=notes.append
    )
    assert "401" not in scores.topics and len(scores.topics) == 28
    assert "1 topic(s) in the runs are not in the reference qrels; ignored" in notes


def test_topic_absent_from_a_test_collection_scores_zero(tmp_path):
    ref = read_qrels(SAMPLE_QRELS)
    sources = expand_sources([SAMPLE_RUNS])[:3]
    partial = {t: d for t, d in ref.qrels.items() if t not in ("401", "405")}
    samples = [QrelsFile("s1", partial, {}), ref]
    notes: list[str] = []
    (scores,) = evaluate_collections(
        ref, {"P": samples}, sources, parse_measures(["AP"]), note=notes.append
    )
    cube = scores.collections["P"]
    assert cube.shape == (2, 3, 29)
    gone = [scores.topics.index("401"), scores.topics.index("405")]
    assert (cube[0][:, gone] == 0).all() and (scores.reference[0][:, gone] > 0).any()
    keep = [j for j in range(29) if j not in gone]
    assert np.array_equal(cube[0][:, keep], scores.reference[0][:, keep])
    assert np.array_equal(cube[1], scores.reference[0])
    assert "P (s1): 2 of 29 topics have no judgments; every run scores 0 there" in notes


def test_same_qrels_twice_has_no_bias_and_a_symmetric_table(sample_scores):
    scores, _ = sample_scores
    x = scores.collections["X"]
    res = ranking_accuracy(scores.reference, {"X": x, "X2": x}, reference_name="G", seed=2024)
    for ca in res.collections:
        assert abs(ca.accuracy.bias) < ca.accuracy.sigma / 3
        assert ca.accuracy.sigma == pytest.approx(res.sigma_reference, rel=0.05)
    t = res.table
    sigma = np.diag(t.rmse)
    assert (np.abs(t.bias) < sigma.min() / 3).all()  # diagonal included
    assert (np.abs(t.bias - t.bias.T) < sigma.min() / 3).all()


def test_depth5_pool_is_more_biased_than_depth100(sample_scores):
    scores, _ = sample_scores
    res = ranking_accuracy(
        scores.reference,
        {"depth5": scores.collections["depth5"], "depth100": scores.collections["depth100"]},
        reference_name="G",
        seed=12,
    )
    d5, d100 = (ca.accuracy for ca in res.collections)
    assert d5.bias > d100.bias + 3 * math.hypot(d5.se_bias, d100.se_bias)
    assert d5.bias > 0.04 and d5.bias > 3 * d5.se_bias
    # Table 3: bias between G and the depth-5 pool is about the same either way.
    t = res.table
    assert t.bias[1, 0] == pytest.approx(
        t.bias[0, 1], abs=3 * math.hypot(t.se_bias[1, 0], t.se_bias[0, 1])
    )
    assert abs(t.bias[1, 1]) < 3 * t.se_bias[1, 1] + 0.01


def test_four_times_the_topics_halves_sigma_on_the_sample_track(sample_scores):
    scores, _ = sample_scores
    x = {"X": scores.collections["X"]}
    base = ranking_accuracy(scores.reference, x, seed=3)
    quad = ranking_accuracy(scores.reference, x, seed=3, n_prime=4 * len(scores.topics))
    assert quad.sigma_reference / base.sigma_reference == pytest.approx(0.5, rel=0.15)
    xb, xq = base.collections[0].accuracy, quad.collections[0].accuracy
    assert xq.sigma / xb.sigma == pytest.approx(0.5, rel=0.15)
    assert abs(xq.bias) < xq.sigma / 3 and abs(xb.bias) < xb.sigma / 3


def test_rmse_of_a_negative_b2_as_cormack_and_grossman_table_1():
    # [Cormack19] Table 1, infAP at 20,000 assessments and 50 topics: |b| = −0.0145
    # (b² < 0, "explained by chance error"), σ = 0.0856, RMSE = 0.0843 = √(b² + σ²)
    from bvtest_cli.analyses.rankings import DeltaEstimate, _accuracy

    b2, s2 = -(0.0145**2), 0.0856**2
    none = np.full(10, np.nan)
    a = _accuracy(
        DeltaEstimate(b2 + 2 * s2, none), DeltaEstimate(s2, none), DeltaEstimate(s2, none)
    )
    assert a.bias == pytest.approx(-0.0145, abs=1e-12)
    assert a.sigma == pytest.approx(0.0856, abs=1e-12)
    # the paper's figures are rounded to 4 decimals: within that, and below σ
    assert a.rmse == pytest.approx(0.0843, abs=1e-4) and a.rmse < a.sigma
    # a sum below 0 is the only case clipped
    a = _accuracy(DeltaEstimate(-0.02 + 2e-4, none), DeltaEstimate(1e-4, none),
                  DeltaEstimate(1e-4, none))  # fmt: skip
    assert a.rmse == 0.0
