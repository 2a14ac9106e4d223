"""An automatic assessor (an LLM judge) beside the human one: how far its
judgments move each run, its leaderboard, and what a human sample corrects.

- :func:`judge_error`: seed 000's decomposition applied to the assessor:
  e_t = x_judge,t − x_human,t per run and topic, bias = mean e, var = its
  variance, mse = bias² + var [Zhang22];
- :func:`leaderboards`: each run's rank under both, Kendall's τ_b, τ_AP with
  the human leaderboard as the truth [Yilmaz08], its tie-aware symmetric form
  τ_AP_b [Urbano17], Spearman's ρ and the largest rank change;
- :func:`tau_ap_b`: that τ_AP_b;
- :func:`simulated_grades`: a judge simulated from a confusion block, each
  human-judged document's grade drawn from its grade's row;
- :func:`human_topics_experiment`: how many human topics a judge needs — R
  random subsets of n topics stay human, the rest judge-only, and each
  method's mean (human-only, judge-only, PPI, PPI++) against the truth, the
  human mean over all N topics.

Scores are (m, n) matrices of the same runs on the same topics, higher is
better. Pure numpy (scipy through :mod:`.ppi`), no I/O.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass

import numpy as np

from ..rankings import kendall_tau_b, pair_signs, tie_tolerance
from ..streams import JUDGE_SIMULATION, TOPIC_SUBSETS, generator
from ..variations import tau_ap
from . import ppi

#: The methods of :func:`human_topics_experiment`, in report order.
METHODS = ("human", "judge", "ppi", "ppi++")


@dataclass(frozen=True)
class JudgeError:
    """Per run (m,): the judge's error e = x_judge − x_human over the topics,
    its mean (``bias``), variance (``var``, divisor n − ddof) and ``mse`` =
    bias² + var (the mean of e² exactly when ddof = 0)."""

    human: np.ndarray
    judge: np.ndarray
    bias: np.ndarray
    var: np.ndarray
    mse: np.ndarray


def judge_error(human: np.ndarray, judge: np.ndarray, ddof: int = 0) -> JudgeError:
    """Seed 000's bias–variance decomposition of the assessor's error [Zhang22]."""
    human, judge = np.asarray(human, dtype=float), np.asarray(judge, dtype=float)
    if human.shape != judge.shape or human.ndim != 2:
        raise ValueError(f"human {human.shape} and judge {judge.shape} scores differ in shape")
    n = human.shape[1]
    e = judge - human
    bias = e.mean(axis=1)
    var = e.var(axis=1, ddof=ddof) if n > ddof else np.full(len(e), np.nan)
    return JudgeError(human.mean(axis=1), judge.mean(axis=1), bias, var, bias * bias + var)


def ranks(means: np.ndarray) -> np.ndarray:
    """1 for the best mean; runs tied within the tie tolerance share the best rank
    of their group (competition ranking: 1, 2, 2, 4)."""
    means = np.asarray(means, dtype=float)
    tol = float(tie_tolerance(means)[..., 0]) if means.size else 0.0
    above = (means[np.newaxis, :] > means[:, np.newaxis] + tol).sum(axis=1)
    return above + 1


def _tau_ap_b_one_way(x: np.ndarray, y: np.ndarray) -> float:
    """τ_AP_b with y giving the positions: over the runs with a run strictly
    above them in y, the share of those above them in y that x also puts
    strictly above them, averaged and mapped to [−1, 1] [Urbano17]."""
    sy = pair_signs(y)  # +1 where run i is above run j
    sx = pair_signs(x)
    m = len(x)
    above_y = np.zeros((m, m), dtype=bool)  # above_y[i, j]: j strictly above i in y
    both = np.zeros((m, m), dtype=bool)
    i, j = np.triu_indices(m, 1)
    above_y[j, i] = sy > 0
    above_y[i, j] = sy < 0
    both[j, i] = (sy > 0) & (sx > 0)
    both[i, j] = (sy < 0) & (sx < 0)
    count = above_y.sum(axis=1)
    not_top = count > 0
    if not not_top.any():
        return float("nan")
    share = both.sum(axis=1)[not_top] / count[not_top]
    return float(2.0 * share.mean() - 1.0)


def tau_ap_b(x: np.ndarray, y: np.ndarray) -> float:
    """Urbano & Marrero's τ_AP_b, the AP correlation for ties in both rankings,
    symmetric: the mean of the two one-way coefficients [Urbano17]. Without
    ties it is the mean of τ_AP(x | y) and τ_AP(y | x) [Yilmaz08]; NaN where
    either ranking ties every run."""
    return float(np.mean([_tau_ap_b_one_way(x, y), _tau_ap_b_one_way(y, x)]))


@dataclass(frozen=True)
class Leaderboards:
    """The runs' ranks under the human and the judge's judgments and how the
    two leaderboards agree."""

    rank_human: np.ndarray
    rank_judge: np.ndarray
    kendall_tau: float
    tau_ap: float
    tau_ap_b: float
    spearman: float
    max_rank_change: int


def leaderboards(human: np.ndarray, judge: np.ndarray) -> Leaderboards:
    """Ranks (1 best) by the mean scores ``human`` and ``judge`` (m,), τ_b,
    τ_AP of the judge's ranking with the human one as the truth, τ_AP_b,
    Spearman's ρ of the ranks (mid-ranks for ties; NaN where either is
    constant) and the largest |rank change|."""
    human, judge = np.asarray(human, dtype=float), np.asarray(judge, dtype=float)
    rh, rj = ranks(human), ranks(judge)
    mid_h, mid_j = _mid_ranks(human), _mid_ranks(judge)
    with np.errstate(invalid="ignore", divide="ignore"):
        spearman = float(np.corrcoef(mid_h, mid_j)[0, 1]) if len(human) > 1 else float("nan")
    return Leaderboards(
        rank_human=rh,
        rank_judge=rj,
        kendall_tau=float(kendall_tau_b(human, judge)),
        tau_ap=float(tau_ap(human, judge)),
        tau_ap_b=tau_ap_b(human, judge) if len(human) > 1 else float("nan"),
        spearman=spearman if np.isfinite(spearman) else float("nan"),
        max_rank_change=int(np.abs(rh - rj).max(initial=0)),
    )


def _mid_ranks(values: np.ndarray) -> np.ndarray:
    """Mid-ranks of ``values``, ties within the tie tolerance sharing theirs."""
    tol = float(tie_tolerance(values)[..., 0]) if values.size else 0.0
    below = (values[np.newaxis, :] < values[:, np.newaxis] - tol).sum(axis=1)
    tied = (np.abs(values[np.newaxis, :] - values[:, np.newaxis]) <= tol).sum(axis=1)
    return below + (tied + 1) / 2.0


# --------------------------------------------------------------------------- a simulated judge


def simulated_grades(
    grades: np.ndarray,
    rows: np.ndarray,
    p: np.ndarray,
    columns: np.ndarray,
    seed: int,
    key: tuple[int, ...] = (),
) -> np.ndarray:
    """A judge's grade for every human-judged document: for a document of
    human grade ``rows[r]``, ``columns[c]`` with probability ``p[r, c]`` (a
    confusion block's row), drawn by inversion from one uniform per document
    of stream JUDGE_SIMULATION (with ``key``: the judge's own), so the draws
    depend only on (seed, key, the documents' order). Every grade must be
    one of ``rows``."""
    grades = np.asarray(grades)
    index = np.searchsorted(rows, grades)
    if grades.size and (index.max() >= len(rows) or not (rows[index] == grades).all()):
        raise ValueError("a human grade has no row in the confusion block")
    cumulative = np.cumsum(p, axis=1)
    cumulative[:, -1] = 1.0  # rows sum to 1 within rounding: the last column takes the rest
    u = generator(seed, JUDGE_SIMULATION, *key).random(grades.size)
    drawn = (u[:, np.newaxis] >= cumulative[index]).sum(axis=1)
    return columns[np.minimum(drawn, len(columns) - 1)]


# --------------------------------------------------------------------------- human topics


@dataclass(frozen=True)
class ExperimentRow:
    """One (n, method) of :func:`human_topics_experiment`: over runs and draws,
    RMSE = √mean (θ̂ − θ)², the share of intervals holding θ (coverage) and
    their mean width, the mean Kendall τ_b of the ranking by θ̂ with the
    ranking by θ, and the share of (pair, draw) whose difference the method
    resolves (p_adj ≤ α) in the wrong order."""

    topics: int
    method: str
    rmse: float
    coverage: float
    width: float
    kendall_tau: float
    wrong_claims: float


@dataclass(frozen=True)
class ExperimentSpec:
    """What :func:`human_topics_experiment` is asked: the numbers n of human
    topics, R draws of each, the seed, the interval's level (1 − α) and kind
    (:data:`.ppi.INTERVALS`), the significance level and correction of the
    pairwise claims."""

    sizes: tuple[int, ...]
    draws: int = 100
    seed: int = 0
    level: float = 0.95
    interval: str = "normal"
    significance: float = 0.05
    correction: str = "holm"


def human_topics_experiment(
    human: np.ndarray, judge: np.ndarray, spec: ExperimentSpec
) -> list[ExperimentRow]:
    """How many human topics this judge needs, on a collection humans judged
    whole: ``human``, ``judge`` (m, N) on the same N topics, θ = each run's
    human mean over all N. For each n of ``spec.sizes`` (2 ≤ n < N), R random
    subsets of n topics (stream TOPIC_SUBSETS, keyed by n) stay human and the
    N − n others are judge-only; per method: human-only (the n topics'
    classical interval), judge-only (the judge's mean over all N and its
    classical interval: what trusting the judge costs), PPI (λ = 1) and
    PPI++ (λ tuned) [Angelopoulos23; Angelopoulos24]."""
    human, judge = np.asarray(human, dtype=float), np.asarray(judge, dtype=float)
    total = human.shape[1]
    theta = human.mean(axis=1)
    alpha = 1.0 - spec.level
    rows = []
    for n in spec.sizes:
        if not 2 <= n < total:
            raise ValueError(f"{n} human topics: expected 2 ≤ n < {total}")
        order = np.argsort(generator(spec.seed, TOPIC_SUBSETS, n).random((spec.draws, total)), 1)
        labelled, rest = order[:, :n], order[:, n:]  # (R, n), (R, N − n)
        y = human[:, labelled].transpose(1, 0, 2)  # (R, m, n)
        f = judge[:, labelled].transpose(1, 0, 2)
        f_unlabelled = judge[:, rest].transpose(1, 0, 2)
        estimates = _estimates(y, f, f_unlabelled, alpha, spec.interval)
        pairs = _pairwise_all(y, f, f_unlabelled, spec.significance, spec.interval)
        for method in METHODS:
            wrong = _wrong_claims(theta, pairs[method], spec)
            rows.append(_row(n, method, estimates[method], theta, wrong))
    return rows


def _estimates(
    y: np.ndarray, f: np.ndarray, f_unlabelled: np.ndarray, alpha: float, interval: str
) -> dict[str, ppi.MeanInterval]:
    return {
        "human": ppi.human_mean(y, alpha, interval),
        "judge": ppi.judge_mean(f, f_unlabelled, alpha, interval),
        "ppi": ppi.ppi_mean(y, f, f_unlabelled, alpha, 1.0, interval),
        "ppi++": ppi.ppi_mean(y, f, f_unlabelled, alpha, None, interval),
    }


def _row(
    n: int, method: str, est: ppi.MeanInterval, theta: np.ndarray, wrong: float
) -> ExperimentRow:
    """The summaries of one method's R × m estimates."""
    error = est.estimate - theta[np.newaxis, :]
    covered = (est.lower <= theta) & (theta <= est.upper)
    tau = kendall_tau_b(np.broadcast_to(theta, est.estimate.shape), est.estimate)
    return ExperimentRow(
        topics=n,
        method=method,
        rmse=float(np.sqrt(np.mean(error * error))),
        coverage=float(covered.mean()),
        width=float(np.mean(est.upper - est.lower)),
        kendall_tau=float(np.nanmean(tau)) if np.isfinite(tau).any() else float("nan"),
        wrong_claims=wrong,
    )


def pair_indices(m: int) -> tuple[np.ndarray, np.ndarray]:
    """Every pair of runs i < j."""
    return np.triu_indices(m, 1)


def _pairwise_all(
    y: np.ndarray, f: np.ndarray, f_unlabelled: np.ndarray, alpha: float, interval: str
) -> dict[str, ppi.MeanInterval]:
    """Every method's estimate of every pair's difference a − b (pairs i < j),
    from per-topic differences: (..., pairs) each, computed once for all methods."""
    i, j = pair_indices(y.shape[-2])
    dy, df = y[..., i, :] - y[..., j, :], f[..., i, :] - f[..., j, :]
    du = f_unlabelled[..., i, :] - f_unlabelled[..., j, :]
    return _estimates(dy, df, du, alpha, interval)


def _wrong_claims(theta: np.ndarray, est: ppi.MeanInterval, spec: ExperimentSpec) -> float:
    """The share of (pair, draw) that the method resolves (p_adj ≤ α over the
    pairs of one draw) in the order opposite to θ's; pairs tied in θ count as
    wrong whenever resolved."""
    from ..significance import adjust

    if theta.size < 2:
        return float("nan")
    truth = np.sign(pair_signs(theta))
    draws, pairs = est.estimate.shape
    wrong = 0
    for draw in range(draws):
        resolved = adjust(est.p[draw], spec.correction) <= spec.significance
        wrong += int((resolved & (np.sign(est.estimate[draw]) != truth)).sum())
    return wrong / (draws * pairs)


def sizes_within(sizes: Sequence[int], total: int) -> tuple[int, ...]:
    """``sizes`` checked against the N topics both judge: 2 ≤ n < N."""
    bad = [n for n in sizes if not 2 <= n < total]
    if bad:
        raise ValueError(
            f"--human-topics {bad[0]}: expected 2 ≤ N < {total}, the topics both judges label"
        )
    return tuple(sizes)
