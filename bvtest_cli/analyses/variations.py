"""Mean–variance evaluation over query variations (docs/variations.md).

Zuccon, Palotti & Hanbury, "Query variations and their effect on comparing
information retrieval systems" (CIKM 2016; cited below as Zuccon et al.
2016) value a system like a portfolio of topics: r[k, i] is its score on the
query that user k issued for topic i, w_i the weight of topic i, and

    μ  = Σ_i w_i mean_k r[k, i]                       (eq. 2)
    σ² = var_k Σ_i w_i r[k, i]                        (eqs. 1, 3; = eq. 4)
    O  = μ − α σ²                                     (eq. 5)

α > 0 prefers stable systems, α < 0 unstable ones. Three modes (docs/variations.md):

* ``general`` (§4.1): user slots k shared by every topic, as above;
* ``intra`` (§4.2, eq. 8): each topic on its own, mean and variance over
  that topic's variations, systems ranked per topic;
* ``inter`` (§4.3, eq. 9, the "modified inter-topics evaluation"): one query
  per topic, mean and variance over topics.

Variances are sample (n − 1) estimators, as the paper's pilot study uses
(σ²(S2) = 0.1778 for {0.8}×5 ∪ {0}×5).

Every function is pure numpy. Scores come as (..., m, n) arrays — m systems,
n columns (topics or variations) — with optional leading axes, so the same
code serves one matrix, per-topic stacks and bootstrap samples. Values of O
gain a trailing α axis: (..., m, n_alpha).

Ties. Two values of one ranking (two means, two variances, or two values of
O at one α) tie when they differ by at most the tolerance of that ranking,
bvtest's one rule (:func:`~.rankings.tie_tolerance`, docs/rankings.md#ties):
a mean computed in a different summation order can differ in the last bit
from an equal one (the paper's CUNI_EN_Run.6 and KISTI_EN_RUN.1 tie at
0.3761), and that noise must not rank one above the other nor invent a
crossover at α ≈ 1e−15. Differences of tied means (variances) count as 0 in
α* = Δμ/Δσ², so tied means cross at exactly α* = 0 and tied variances never
cross; by O, two systems tie at a grid α where their values of O are within
the tolerance, which a crossover α* on the grid is (O_a − O_b is rounding
noise there).
"""

from __future__ import annotations

import functools
from collections.abc import Sequence
from dataclasses import dataclass
from decimal import Decimal, InvalidOperation

import numpy as np

from ..defaults import VARIATION_ALPHAS, VARIATION_MODES
from ..errors import InputError
from ..measures.matrix import ScoreMatrix
from .rankings import pair_signs, tau_b_of_signs

__all__ = [
    "DEFAULT_ALPHAS",
    "MODES",
    "Crossover",
    "Design",
    "VariationsResult",
    "alpha_values",
    "analyse",
    "crossovers",
    "general_moments",
    "inter_moments",
    "intra_moments",
    "parse_alphas",
    "portfolio_value",
    "rank_correlations",
    "tau_ap",
    "to_grid",
]

MODES = VARIATION_MODES
DEFAULT_ALPHAS = VARIATION_ALPHAS  # the paper's small range (Zuccon et al. 2016, §5.1)
MAX_ALPHAS = 100_001  # the paper's −1000..1000 step 0.1 has 20 001 points
_PAIR_CELLS = 1 << 22  # pairwise work is done in chunks of about this many cells


# ---------------------------------------------------------------------------
# The α grid


def _decimal(text: str) -> Decimal:
    try:
        value = Decimal(text)
    except InvalidOperation:
        raise ValueError(f"alpha {text!r} is not a number") from None
    if not value.is_finite() or not np.isfinite(float(value)):
        raise ValueError(f"alpha {text!r} is not a finite number")
    return value


def _key(value: Decimal) -> str:
    """A generated α as the shortest exact decimal: ``-0.5``, ``2``, ``0`` (never ``-0``)."""
    if value == 0:
        return "0"
    return format(value.normalize(), "f")


def parse_alphas(text: str) -> tuple[str, ...]:
    """``-1,0,0.5`` (keys as written) or ``START:STOP:STEP`` (STOP included when
    reached) → α keys. Grid points are computed in exact decimal arithmetic, so
    ``0:1:0.1`` gives "0.3", never "0.30000000000000004". α may be negative
    (Zuccon et al. 2016, §3 footnote 3). Raises ValueError on bad text."""
    text = text.strip()
    if not text:
        raise ValueError("empty alpha list")
    if ":" in text:
        parts = [p.strip() for p in text.split(":")]
        if len(parts) != 3 or not all(parts):
            raise ValueError(f"alpha grid {text!r} is not START:STOP:STEP")
        start, stop, step = map(_decimal, parts)
        if step <= 0:
            raise ValueError(f"alpha grid step {parts[2]!r} must be > 0")
        if stop < start:
            raise ValueError(f"alpha grid {text!r} needs START <= STOP")
        count = int((stop - start) // step) + 1
        if count > MAX_ALPHAS:
            raise ValueError(f"alpha grid {text!r} has {count} points; at most {MAX_ALPHAS}")
        return tuple(_key(start + k * step) for k in range(count))
    keys = tuple(a.strip() for a in text.split(","))
    if not all(keys):
        raise ValueError(f"alpha list {text!r} has an empty item")
    values = [_decimal(k) for k in keys]
    if len(set(values)) != len(values):
        raise ValueError(f"alpha list {text!r} names one alpha twice")
    return keys


def alpha_values(keys: Sequence[str]) -> np.ndarray:
    """The α keys as floats (1-D)."""
    return np.array([float(k) for k in keys], dtype=float).reshape(len(keys))


# ---------------------------------------------------------------------------
# Where each variation belongs


@dataclass(frozen=True)
class Design:
    """How the columns (variations) of a per-variation matrix map to topics.

    ``slot_of`` is the user slot k of each variation in general mode (users
    named by ``users``), and its position among its topic's variations
    otherwise. Topic and slot indices are 0-based.
    """

    variations: tuple[str, ...]
    topics: tuple[str, ...]
    topic_of: np.ndarray  # (V,) int
    slot_of: np.ndarray  # (V,) int
    n_slots: int
    users: tuple[str, ...] | None = None

    @classmethod
    def one_per_topic(cls, topics: Sequence[str]) -> Design:
        """Plain TREC data: every column is a topic with its single query."""
        n = len(topics)
        return cls(tuple(topics), tuple(topics), np.arange(n), np.zeros(n, dtype=int), 1)

    def counts(self) -> np.ndarray:
        """Number of variations of each topic: (N,)."""
        return np.bincount(self.topic_of, minlength=len(self.topics))


def to_grid(x: np.ndarray, design: Design) -> tuple[np.ndarray, np.ndarray]:
    """Scores (..., m, V) → grid (..., m, N, S) with r[k, i] at [..., i, k], and
    the (N, S) mask of cells that hold a variation (absent cells are 0)."""
    x = np.asarray(x, dtype=float)
    n = len(design.topics)
    grid = np.zeros((*x.shape[:-1], n, design.n_slots))
    grid[..., design.topic_of, design.slot_of] = x
    mask = np.zeros((n, design.n_slots), dtype=bool)
    mask[design.topic_of, design.slot_of] = True
    return grid, mask


# ---------------------------------------------------------------------------
# Moments and portfolio value


def general_moments(
    r: np.ndarray, weights: np.ndarray | None = None
) -> tuple[np.ndarray, np.ndarray]:
    """μ and σ² of the general framework (Zuccon et al. 2016, §4.1).

    ``r`` has shape (..., m, N, K): system, topic i, user slot k, every cell
    filled; ``weights`` (N,) sum to 1 (None: 1/N each). The portfolio return
    of user k is R_P[k] = Σ_i w_i r[k, i] (eq. 1); μ = mean_k R_P[k], which
    is Σ_i w_i mean_k r[k, i] (eq. 2), and σ² is the sample (K − 1) variance
    of R_P over k, which equals Σ_i Σ_j w_i w_j cov(r_i, r_j) (eqs. 3–4)
    with sample covariances. Returns two (..., m) arrays.
    """
    r = np.asarray(r, dtype=float)
    if r.shape[-1] < 2:
        raise ValueError("general mode needs at least 2 user slots")
    if weights is None:
        port = r.mean(axis=-2)
    else:
        port = (r * np.asarray(weights, dtype=float)[:, np.newaxis]).sum(axis=-2)
    return port.mean(axis=-1), port.var(axis=-1, ddof=1)


def intra_moments(grid: np.ndarray, mask: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
    """Per-topic mean and sample variance over that topic's variations
    (Zuccon et al. 2016, §4.2, eq. 8; a single-topic portfolio has w = 1).

    ``grid`` (..., m, N, S) and ``mask`` (N, S) as :func:`to_grid` makes them;
    topics may have different numbers of variations. Returns two (..., m, N)
    arrays; the variance is NaN for a topic with fewer than 2 variations.
    """
    grid = np.asarray(grid, dtype=float)
    count = mask.sum(axis=-1).astype(float)
    with np.errstate(invalid="ignore", divide="ignore"):
        mu = np.where(mask, grid, 0.0).sum(axis=-1) / count
        dev2 = np.where(mask, (grid - mu[..., np.newaxis]) ** 2, 0.0)
        var = dev2.sum(axis=-1) / (count - 1)
    return mu, np.where(count >= 2, var, np.nan)


def inter_moments(
    x: np.ndarray, weights: np.ndarray | None = None
) -> tuple[np.ndarray, np.ndarray]:
    """Mean and variance over topics, one query each (Zuccon et al. 2016, §4.3,
    eq. 9, the modified inter-topics evaluation).

    x (..., m, N). With equal weights (None) these are the plain mean and the
    sample (N − 1) variance. With weights w (summing to 1): μ = Σ_i w_i x_i
    and σ² = Σ_i w_i (x_i − μ)² / (1 − Σ_i w_i²), the unbiased estimator for
    such weights, which reduces to the sample variance when w_i = 1/N.
    Returns two (..., m) arrays.
    """
    x = np.asarray(x, dtype=float)
    if x.shape[-1] < 2:
        raise ValueError("inter mode needs at least 2 topics")
    if weights is None:
        return x.mean(axis=-1), x.var(axis=-1, ddof=1)
    w = np.asarray(weights, dtype=float)
    mu = (x * w).sum(axis=-1)
    denom = 1.0 - (w**2).sum()
    with np.errstate(invalid="ignore", divide="ignore"):
        var = (w * (x - mu[..., np.newaxis]) ** 2).sum(axis=-1) / denom
    return mu, var


def portfolio_value(mu: np.ndarray, var: np.ndarray, alphas: np.ndarray) -> np.ndarray:
    """O = μ − α σ² (Zuccon et al. 2016, eq. 5) for every α: (...) → (..., n_alpha)."""
    a = np.asarray(alphas, dtype=float)
    return np.asarray(mu, dtype=float)[..., np.newaxis] - a * np.asarray(var)[..., np.newaxis]


# ---------------------------------------------------------------------------
# Rank correlations between two rankings of the same m systems
#
# Every tie between two values of a ranking (means, variances, or O at one α)
# is decided by the rule of analyses.rankings (:func:`~.rankings.tie_tolerance`):
# rankings are their sign vectors over the pairs i < j (:func:`~.rankings.pair_signs`),
# and τ_b is :func:`~.rankings.kendall_tau_b`. τ_AP is computed from
# per-system counts: for system b, how many systems are above it in the
# evaluated ranking (split by how the reference orders them) and how many tie
# with it.


@functools.lru_cache(maxsize=8)
def _pair_layout(m: int) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
    """For the pairs (i, j), i < j, of m ≥ 2 systems in ``numpy.triu_indices``
    order: where each i's pairs start (i = 0..m−2, consecutive), the order
    that sorts the pairs by j (stable), and where each j's pairs start in it
    (j = 1..m−1)."""
    order = np.argsort(np.triu_indices(m, 1)[1], kind="stable")
    sizes = np.arange(m - 1)  # i = 0..m−2 has m − 1 − i pairs; j = 1..m−1 has j
    by_i = np.concatenate([[0], np.cumsum(m - 1 - sizes)[:-1]])
    by_j = np.concatenate([[0], np.cumsum(sizes + 1)[:-1]])
    return by_i, order, by_j


@dataclass(frozen=True)
class _Counts:
    """Per system b (last axis), over the other systems a: a above b in the
    evaluated ranking (``above``), and of those above b (``above_pos``) or
    tied with b (``above_tie``) in the reference; a tied with b in the
    evaluated ranking (``tied``), and of those not below b in the reference
    (``tied_not_below``)."""

    above: np.ndarray
    above_pos: np.ndarray
    above_tie: np.ndarray
    tied: np.ndarray
    tied_not_below: np.ndarray
    ref_pairs: np.ndarray  # pairs not tied in the reference: (...)


def _counts_from_signs(sr: np.ndarray, se: np.ndarray, m: int) -> _Counts:
    """Counts from reference and evaluated sign vectors (..., P) of m systems
    (:func:`~.rankings.pair_signs`; they broadcast against each other).

    Pair (i, j) with sign s: s > 0 puts i above j, a count of system j;
    s < 0 puts j above i, a count of system i (with the reference's sign
    read from i's side, negated). System j's counts sum over its pairs
    sorted by j, system i's over its own (consecutive in pair order), each
    a ``numpy.add.reduceat`` over the pair axis.
    """
    sr, se = np.asarray(sr), np.asarray(se)
    lead = np.broadcast_shapes(sr.shape, se.shape)[:-1]
    out = {k: np.zeros((*lead, m), dtype=np.int64) for k in _COUNT_NAMES}
    if m >= 2:
        by_i, order, by_j = _pair_layout(m)
        # a count is at most m − 1: int16 sums are exact and about 3× faster
        small = np.int16 if m <= np.iinfo(np.int16).max else np.int64
        ev_j, ref_j = se[..., order], sr[..., order]
        sides = (
            # system j of each pair: above it when s > 0; the reference's sign as is
            (slice(1, m), by_j, ev_j > 0, ev_j == 0, ref_j > 0, ref_j == 0, ref_j >= 0),
            # system i: above it when s < 0; the reference's sign negated
            (slice(0, m - 1), by_i, se < 0, se == 0, sr < 0, sr == 0, sr <= 0),
        )
        for cols, starts, up, tied, ref_up, ref_tied, ref_not_below in sides:
            masks = (up, up & ref_up, up & ref_tied, tied, tied & ref_not_below)
            for name, mask in zip(_COUNT_NAMES, masks, strict=True):
                mask = np.broadcast_to(mask, (*lead, mask.shape[-1]))
                out[name][..., cols] += np.add.reduceat(mask, starts, axis=-1, dtype=small)
    ref_pairs = np.broadcast_to(np.count_nonzero(sr, axis=-1), lead)
    return _Counts(**out, ref_pairs=ref_pairs)


_COUNT_NAMES = ("above", "above_pos", "above_tie", "tied", "tied_not_below")


def _tau_ap_from(c: _Counts) -> np.ndarray:
    """τ_AP from the counts; see :func:`tau_ap` for the formula."""
    m = c.above.shape[-1]
    if m < 2:
        return np.full(c.above.shape[:-1], np.nan)
    s = c.above  # systems strictly above b
    t = 1 + c.tied  # b's tie group, b included
    a_both, t_ref, g = c.above_pos, c.above_tie, c.tied_not_below
    harmonic = np.concatenate([[0.0], np.cumsum(1.0 / np.arange(1, m + 1))])
    # S0 = Σ_k 1/(s+k), S2 = Σ_k k/(s+k), S1 = Σ_k (k+1)/(s+k) = S2 + S0 over
    # k = 0..t−1; for s = 0 only k >= 1 contributes (rank 1 has nothing above
    # it), and then A = T = 0.
    s0 = np.where(s > 0, harmonic[s + t - 1] - harmonic[np.maximum(s - 1, 0)], 0.0)
    s2 = np.where(s > 0, t - s * s0, t - 1)
    s1 = s2 + s0
    within = np.where(t > 1, g * s2 / np.maximum(t - 1, 1), 0.0)
    expected = (a_both * s0 + t_ref * s1 / (t + 1) + within) / t
    value = 2.0 / (m - 1) * expected.sum(axis=-1) - 1.0
    return np.where(c.ref_pairs > 0, value, np.nan)


def tau_ap(reference: np.ndarray, evaluated: np.ndarray) -> np.ndarray:
    """AP rank correlation (Yilmaz et al. 2008) of the ranking by ``evaluated``
    against the ranking by ``reference``, over the last axis: (..., m) → (...).

    Without ties this is Yilmaz et al. 2008's definition,
    τ_AP = 2/(m − 1) Σ_{i=2..m} C(i)/(i − 1) − 1, with C(i) the number of
    systems above rank i of the evaluated ranking that the reference ranking
    also puts above the system at rank i.

    With ties (which that definition excludes): ties are broken by one
    uniformly random order of the systems, the same in both rankings, and
    τ_AP is the expected value of the definition above over that order. It is
    computed exactly: for a system b with s systems strictly above it and
    t − 1 others tied with it in the evaluated ranking, its position is s + k
    + 1 with k uniform on 0..t−1, and

        E[C(b)/(s + k)] = (1/t) Σ_k [A + T (k+1)/(t+1) + g k/(t−1)] / (s + k)

    with A the systems above b in both rankings, T those above b in the
    evaluated ranking but tied with b in the reference (above b in the
    reference with probability (k+1)/(t+1) given k), and g the systems tied
    with b in the evaluated ranking and not below it in the reference. This
    equals Urbano & Marrero's (ICTIR 2017) τ_AP,a when the reference has no
    ties, and gives 1 for identical rankings, ties included. τ_AP is NaN when
    the reference ranking ties every system (nothing to agree with) or m < 2.
    """
    ref, ev = np.broadcast_arrays(
        np.asarray(reference, dtype=float), np.asarray(evaluated, dtype=float)
    )
    return _tau_ap_from(_counts_from_signs(pair_signs(ref), pair_signs(ev), ref.shape[-1]))


def rank_correlations(
    mu: np.ndarray, var: np.ndarray, alphas: np.ndarray
) -> tuple[np.ndarray, np.ndarray]:
    """Kendall's τ_b and τ_AP between the ranking by O = μ − α σ² at every α
    and the ranking by μ (Zuccon et al. 2016, §5.1): mu, var (..., m) → two
    (..., A).

    τ_AP takes the ranking by μ as the reference (the current practice) and
    evaluates the ranking by O. Each ranking's ties follow the rule of
    :func:`~.rankings.tie_tolerance` on its own values (the means, or the
    values of O at one α), so two systems tie by O at their crossover α*
    (see :func:`crossovers`) and everywhere when their means and variances
    are equal. The rankings are built for a block of α at a time, about
    ``_PAIR_CELLS`` sign cells each.
    """
    mu = np.asarray(mu, dtype=float)
    var = np.asarray(var, dtype=float)
    a = np.asarray(alphas, dtype=float).reshape(-1)
    lead, m = mu.shape[:-1], mu.shape[-1]
    flat_mu = mu.reshape(-1, m)
    flat_var = var.reshape(-1, m)
    tau = np.empty((flat_mu.shape[0], a.size))
    tap = np.empty_like(tau)
    step = max(1, _PAIR_CELLS // max(1, m * (m - 1) // 2))
    for row in range(flat_mu.shape[0]):
        reference = pair_signs(flat_mu[row])
        for lo in range(0, a.size, step):
            hi = min(a.size, lo + step)
            o = pair_signs(portfolio_value(flat_mu[row], flat_var[row], a[lo:hi]).T)  # (block, P)
            tau[row, lo:hi] = tau_b_of_signs(reference, o)
            counts = _counts_from_signs(reference, o, m)
            tap[row, lo:hi] = _tau_ap_from(counts)
    return tau.reshape(*lead, a.size), tap.reshape(*lead, a.size)


# ---------------------------------------------------------------------------
# Crossovers


def crossovers(
    mu: np.ndarray, var: np.ndarray, lo: float, hi: float
) -> tuple[np.ndarray, np.ndarray, np.ndarray, np.ndarray]:
    """Pairs of systems whose order by O flips at some α in [lo, hi].

    O_a − O_b = (μ_a − μ_b) − α (σ²_a − σ²_b) changes sign at
    α* = (μ_a − μ_b) / (σ²_a − σ²_b) (Zuccon et al. 2016, §4.1: A with a
    lower mean beats B once α(σ²_A − σ²_B) exceeds μ_A − μ_B). ``a`` is the
    system with the larger variance, ahead for α < α*; ``b`` is ahead for
    α > α*. Means and variances tie by the rule of
    :func:`~.rankings.tie_tolerance`, each over the m systems: pairs with
    tied variances never flip; tied means give α* = 0 exactly.

    mu, var: (..., m). Returns flat arrays (where, a, b, alpha): ``where`` the
    flat index over the leading axes (0 without them), sorted by where, α*,
    a, b.
    """
    mu = np.asarray(mu, dtype=float)
    mu = mu.reshape(-1, mu.shape[-1])
    var = np.asarray(var, dtype=float).reshape(mu.shape)
    i, j = np.triu_indices(mu.shape[-1], 1)
    # differences of the pairs i < j, 0 where they tie
    dmu = np.where(pair_signs(mu) == 0, 0.0, mu[:, i] - mu[:, j])
    dvar = np.where(pair_signs(var) == 0, 0.0, var[:, i] - var[:, j])
    with np.errstate(invalid="ignore", divide="ignore"):
        alpha = np.where(dvar != 0, dmu / np.where(dvar != 0, dvar, 1.0), np.nan)
    alpha[dmu == 0] = 0.0  # tied means: +0, never the −0 of 0 / (negative Δσ²)
    where, p = np.nonzero((dvar != 0) & (alpha >= lo) & (alpha <= hi))
    alpha = alpha[where, p]
    wide = dvar[where, p] > 0  # i has the larger variance
    a, b = np.where(wide, i[p], j[p]), np.where(wide, j[p], i[p])
    order = np.lexsort((b, a, alpha, where))
    return where[order], a[order], b[order], alpha[order]


# ---------------------------------------------------------------------------
# One measure, one mode


@dataclass(frozen=True)
class Crossover:
    """Systems a and b swap places at α = alpha: a is ahead below it, b above
    (a has the larger variance). ``topic`` is set in intra mode."""

    a: str
    b: str
    alpha: float
    topic: str | None = None


@dataclass(frozen=True)
class VariationsResult:
    """Mean–variance evaluation of one measure (docs/variations.md).

    general / inter: ``mu``, ``var`` (m,), ``o`` (m, A), ``tau``, ``tau_ap``
    (A,), ``topic_tau`` and ``topic_tau_ap`` None. intra: ``mu``, ``var``
    (m, N), ``o`` (m, N, A), ``topic_tau`` and ``topic_tau_ap`` (N, A), and
    ``tau``, ``tau_ap`` their means over the topics where they are defined.
    ``topics`` are the topics analysed; undefined values are NaN.
    """

    measure: str
    mode: str
    systems: tuple[str, ...]
    topics: tuple[str, ...]
    alphas: tuple[str, ...]
    mu: np.ndarray
    var: np.ndarray
    o: np.ndarray
    tau: np.ndarray
    tau_ap: np.ndarray
    topic_tau: np.ndarray | None
    topic_tau_ap: np.ndarray | None
    crossovers: tuple[Crossover, ...]
    notes: tuple[str, ...]


def _inter_moments_of(
    x: np.ndarray, design: Design, weights: np.ndarray | None
) -> tuple[np.ndarray, np.ndarray]:
    """Inter mode: each topic's one variation, the moments taken across the
    topics (a portfolio of topics, Zuccon et al. 2016)."""
    if (design.counts() != 1).any():
        raise ValueError("inter mode needs exactly one variation per topic")
    if len(design.topics) < 2:
        raise InputError("inter mode needs at least 2 topics")
    xt = np.empty_like(x)
    xt[:, design.topic_of] = x
    if weights is not None and 1.0 - float((np.asarray(weights) ** 2).sum()) <= 0:
        raise InputError("the weights put everything on one topic: no variance across topics")
    return inter_moments(xt, weights)


def _intra_moments_of(
    x: np.ndarray, design: Design, weights: np.ndarray | None, notes: list[str]
) -> tuple[np.ndarray, np.ndarray, tuple[str, ...]]:
    """Intra mode: per topic, the moments over its variations (each topic its
    own portfolio, Zuccon et al. 2016 eq. 8); a topic with a single
    variation has no variance and is left out. Returns (mu, var, the topics kept)."""
    if weights is not None:
        notes.append("topic weights are not used in intra mode (each topic is its own portfolio)")
    grid, mask = to_grid(x, design)
    keep = mask.sum(axis=1) >= 2
    if not keep.any():
        raise InputError("intra mode needs a topic with at least 2 variations")
    if not keep.all():
        notes.append(
            f"{int((~keep).sum())} topic(s) have a single variation (no variance); "
            "left out of the intra-topic evaluation"
        )
    mu, var = intra_moments(grid[:, keep], mask[keep])
    return mu, var, tuple(t for t, k in zip(design.topics, keep, strict=True) if k)


def _mode_moments(
    x: np.ndarray, design: Design, mode: str, weights: np.ndarray | None, notes: list[str]
) -> tuple[np.ndarray, np.ndarray, tuple[str, ...]]:
    """(mu, var, the topics analysed) of the scores x in ``mode``: general
    (every (topic, user) cell), inter or intra."""
    if mode == "general":
        grid, mask = to_grid(x, design)
        if not mask.all():
            raise ValueError("general mode needs every (topic, user) cell")
        return (*general_moments(grid, weights), tuple(design.topics))
    if mode == "inter":
        return (*_inter_moments_of(x, design, weights), tuple(design.topics))
    return _intra_moments_of(x, design, weights, notes)


def _topic_correlations(
    mu: np.ndarray, var: np.ndarray, a: np.ndarray, notes: list[str]
) -> tuple[np.ndarray, np.ndarray, np.ndarray, np.ndarray]:
    """Intra mode's rank correlations: per topic, (N, m) moments → (N, A)
    correlations, and their plain mean over the topics where they are
    defined. Returns (tau, tau_ap, topic_tau, topic_tau_ap)."""
    topic_tau, topic_tau_ap = rank_correlations(mu.T, var.T, a)
    undefined = int(np.isnan(topic_tau_ap).all(axis=-1).sum())
    if undefined:
        notes.append(
            f"{undefined} topic(s) where every system has the same mean: no rank correlation there"
        )
    return _mean_defined(topic_tau), _mean_defined(topic_tau_ap), topic_tau, topic_tau_ap


def _crossovers_of(
    systems: Sequence[str],
    mu: np.ndarray,
    var: np.ndarray,
    a: np.ndarray,
    topics: Sequence[str] | None,
) -> tuple[Crossover, ...]:
    """The crossovers with α* within [min α, max α] of the grid: per topic
    (intra mode, ``topics`` the topics of mu's columns) or of the whole
    moments (``topics`` None)."""
    lo, hi = (float(a.min()), float(a.max())) if a.size else (0.0, 0.0)
    if topics is not None:
        where, ia, ib, al = crossovers(mu.T, var.T, lo, hi)
        return tuple(
            Crossover(systems[i], systems[j], float(v), topics[w])
            for w, i, j, v in zip(
                where.tolist(), ia.tolist(), ib.tolist(), al.tolist(), strict=True
            )
        )
    _, ia, ib, al = crossovers(mu, var, lo, hi)
    return tuple(
        Crossover(systems[i], systems[j], float(v))
        for i, j, v in zip(ia.tolist(), ib.tolist(), al.tolist(), strict=True)
    )


def analyse(
    matrix: ScoreMatrix,
    design: Design,
    mode: str,
    alphas: Sequence[str],
    weights: np.ndarray | None = None,
) -> VariationsResult:
    """Mean–variance evaluation of one per-variation score matrix.

    ``matrix.topics`` are the variation ids, in the order of
    ``design.variations``; ``design`` fits ``mode`` (see
    variations_io.build_design); ``weights`` (N,) follow ``design.topics`` and
    sum to 1, None meaning equal weights; intra mode does not use them (a
    one-topic portfolio has weight 1, Zuccon et al. 2016 eq. 8), and its
    ``tau`` / ``tau_ap`` are the unweighted means of the per-topic values.
    Crossovers are those with α* within [min α, max α] of the grid.
    """
    if mode not in MODES:
        raise ValueError(f"unknown mode {mode!r}")
    if tuple(matrix.topics) != tuple(design.variations):
        raise ValueError("matrix columns and design variations differ")
    a = alpha_values(alphas)
    notes: list[str] = []
    if weights is not None and np.shape(weights) != (len(design.topics),):
        raise ValueError("weights must have one value per topic of the design")
    mu, var, topics = _mode_moments(matrix.values, design, mode, weights, notes)
    o = portfolio_value(mu, var, a)
    topic_tau = topic_tau_ap = None
    if mode == "intra":
        tau, tap, topic_tau, topic_tau_ap = _topic_correlations(mu, var, a, notes)
        cross = _crossovers_of(matrix.systems, mu, var, a, topics)
    else:
        tau, tap = rank_correlations(mu, var, a)
        cross = _crossovers_of(matrix.systems, mu, var, a, None)
    return VariationsResult(
        measure=matrix.measure,
        mode=mode,
        systems=tuple(matrix.systems),
        topics=tuple(topics),
        alphas=tuple(alphas),
        mu=mu,
        var=var,
        o=o,
        tau=tau,
        tau_ap=tap,
        topic_tau=topic_tau,
        topic_tau_ap=topic_tau_ap,
        crossovers=cross,
        notes=tuple(notes),
    )


def _mean_defined(values: np.ndarray) -> np.ndarray:
    """Mean over the first axis of the values that are not NaN; NaN if none is."""
    defined = ~np.isnan(values)
    count = defined.sum(axis=0)
    total = np.where(defined, values, 0.0).sum(axis=0)
    with np.errstate(invalid="ignore", divide="ignore"):
        return np.where(count > 0, total / count, np.nan)
