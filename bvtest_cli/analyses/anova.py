"""The two-way ANOVA without replication of a systems × topics matrix.

Every system is run on every topic once, so a score x_ij is modelled as
μ + s_i + q_j + e_ij (systems × topics, one observation per cell). The
mean squares are the basis of Tukey's HSD over all pairs of systems
[Carterette12; Sakai14], of effect sizes standardised by the residual
standard deviation, of Generalizability theory's variance components
[Brennan01; Urbano13] and of topic-set-size design [Sakai16].

Shapes are (..., m, n): m systems, n topics; every result has shape (...).
Pure numpy, no I/O.
"""

from __future__ import annotations

from dataclasses import dataclass

import numpy as np

from .streams import TUKEY_PERMUTATIONS, generator


@dataclass(frozen=True)
class TwoWay:
    """Sums of squares, degrees of freedom and mean squares, each of shape (...).

    ``ms_residual`` is V_E of [Sakai16] (the residual mean square), and
    2·V_E the average variance of a paired difference between two systems.
    """

    systems: int
    topics: int
    ss_systems: np.ndarray
    ss_topics: np.ndarray
    ss_residual: np.ndarray

    @property
    def df_systems(self) -> int:
        return self.systems - 1

    @property
    def df_topics(self) -> int:
        return self.topics - 1

    @property
    def df_residual(self) -> int:
        return (self.systems - 1) * (self.topics - 1)

    @property
    def ms_systems(self) -> np.ndarray:
        return self.ss_systems / self.df_systems

    @property
    def ms_topics(self) -> np.ndarray:
        return self.ss_topics / self.df_topics

    @property
    def ms_residual(self) -> np.ndarray:
        return self.ss_residual / self.df_residual


def two_way(x: np.ndarray) -> TwoWay:
    """The two-way ANOVA without replication of scores x (..., m, n).

    SS_s = n Σ_i (x̄_i· − x̄)², SS_q = m Σ_j (x̄_·j − x̄)²,
    SS_e = Σ_ij (x_ij − x̄_i· − x̄_·j + x̄)², with m − 1, n − 1 and
    (m − 1)(n − 1) degrees of freedom. The residual is summed from its own
    terms (not as SS_total − SS_s − SS_q), so that it is never negative by
    cancellation. Needs m ≥ 2 and n ≥ 2 and finite scores.
    """
    x = np.asarray(x, dtype=float)
    if x.ndim < 2:
        raise ValueError("two_way needs scores of shape (..., m, n)")
    m, n = x.shape[-2], x.shape[-1]
    if m < 2 or n < 2:
        raise ValueError(f"two_way needs at least 2 systems and 2 topics, got {m} × {n}")
    grand = x.mean(axis=(-2, -1), keepdims=True)
    rows = x.mean(axis=-1, keepdims=True)
    cols = x.mean(axis=-2, keepdims=True)
    ss_s = n * ((rows - grand) ** 2).sum(axis=(-2, -1))
    ss_q = m * ((cols - grand) ** 2).sum(axis=(-2, -1))
    ss_e = ((x - rows - cols + grand) ** 2).sum(axis=(-2, -1))
    return TwoWay(systems=m, topics=n, ss_systems=ss_s, ss_topics=ss_q, ss_residual=ss_e)


def system_pairs(m: int) -> tuple[np.ndarray, np.ndarray]:
    """Every pair i < j of m systems, in input order: (0, 1), (0, 2), …, (m − 2, m − 1)."""
    i, j = np.triu_indices(m, k=1)
    return i, j


@dataclass(frozen=True)
class TukeyHSD:
    """Tukey's HSD over all pairs i < j (``pairs``, in input order).

    ``diff`` = x̄_i − x̄_j, ``q`` = |diff| / √(V_E/n), ``p`` the studentized
    range's upper tail at q, and [``lo``, ``hi``] = diff ∓ q_crit √(V_E/n) the
    simultaneous intervals at ``level``; each of shape (..., pairs).
    ``ms_residual`` (V_E, shape (...)) and ``df`` = (m − 1)(n − 1) come from
    the two-way ANOVA without replication.
    """

    pairs: tuple[np.ndarray, np.ndarray]
    diff: np.ndarray
    q: np.ndarray
    p: np.ndarray
    lo: np.ndarray
    hi: np.ndarray
    ms_residual: np.ndarray
    df: int
    q_crit: float
    level: float


def tukey_hsd(x: np.ndarray, level: float = 0.95, *, with_p: bool = True) -> TukeyHSD:
    """Tukey's honestly significant difference test (Tukey 1949) over all pairs of
    systems, as IR uses it [Carterette12; Sakai14].

    The topics are blocks: the error variance is the two-way ANOVA's residual
    mean square V_E (:func:`two_way`), with (m − 1)(n − 1) degrees of
    freedom, so the test statistic of a pair is q_ij = |x̄_i − x̄_j| / √(V_E/n)
    and its p-value ``scipy.stats.studentized_range.sf(q, m, df)``: the chance
    that the range of m system means exceeds the observed difference when all
    systems are equal, which holds the family-wise error rate of all
    m(m − 1)/2 comparisons at 1 − ``level``. The simultaneous intervals are
    d_ij ± q_crit √(V_E/n) with q_crit = ``studentized_range.ppf(level, m, df)``.

    The p-values are :func:`studentized_range_sf`'s (scipy's, or its spline
    when many pairs share one distribution). ``with_p=False`` skips them (NaN)
    and keeps q, the intervals and q_crit, which decide significance at
    ``level`` by q > q_crit alone. Where V_E = 0 (an
    exactly additive matrix) q is ∞ for a nonzero difference and NaN for a
    zero one.
    """
    from scipy.stats import studentized_range  # lazily: scipy.stats is slow to import

    x = np.asarray(x, dtype=float)
    anova = two_way(x)
    m, n, df = anova.systems, anova.topics, anova.df_residual
    if not 0.0 < level < 1.0:
        raise ValueError(f"tukey_hsd needs 0 < level < 1, got {level}")
    i, j = system_pairs(m)
    means = x.mean(axis=-1)
    diff = means[..., i] - means[..., j]
    se = np.sqrt(anova.ms_residual / n)[..., np.newaxis]
    with np.errstate(divide="ignore", invalid="ignore"):
        q = np.abs(diff) / se
    q_crit = float(studentized_range.ppf(level, m, df))
    p = np.full(q.shape, np.nan)
    if with_p:
        p = studentized_range_sf(q, m, df)
    half = q_crit * se
    return TukeyHSD(
        pairs=(i, j),
        diff=diff,
        q=q,
        p=p,
        lo=diff - half,
        hi=diff + half,
        ms_residual=anova.ms_residual,
        df=df,
        q_crit=q_crit,
        level=level,
    )


#: Below this p the studentized range's upper tail is not computed precisely
#: (scipy's integration levels off near 1e-11): smaller p-values are reported
#: as this bound, which a caller states.
TUKEY_P_FLOOR = 1e-9

#: Distinct q values from which :func:`studentized_range_sf` interpolates rather
#: than integrating each one (scipy takes ~13–50 ms per value).
_SPLINE_FROM = 200

#: Nodes of the interpolating spline of log p over [0, q(TUKEY_P_FLOOR)].
_SPLINE_NODES = 80


def studentized_range_sf(q: np.ndarray, m: int, df: float) -> np.ndarray:
    """P(Q ≥ q) for the studentized range of m means with df degrees of freedom.

    With few distinct q, scipy's ``studentized_range.sf`` for each. With many
    (all pairs of 129 systems are 8256), a cubic spline of log p on
    ``_SPLINE_NODES`` exact values over [0, q_floor], q_floor the q whose p is
    :data:`TUKEY_P_FLOOR`: log p is smooth in q, and the spline's relative
    error is below 1e-4 (measured against scipy on random q for m = 4, 12 and
    129; tests/test_analyses_anova_tukey.py checks it). Beyond q_floor, p is reported as
    TUKEY_P_FLOOR, an upper bound. NaN stays NaN, q = ∞ gives 0.
    """
    from scipy.stats import studentized_range  # lazily: scipy.stats is slow to import

    q = np.asarray(q, dtype=float)
    p = np.full(q.shape, np.nan)
    finite = np.isfinite(q)
    p[np.isposinf(q)] = 0.0
    distinct, where = np.unique(q[finite], return_inverse=True)
    if distinct.size == 0:
        return p
    q_floor = float(studentized_range.isf(TUKEY_P_FLOOR, m, df))
    if distinct.size < _SPLINE_FROM:
        values = studentized_range.sf(distinct, m, df)
    else:
        from scipy.interpolate import CubicSpline

        nodes = np.linspace(0.0, q_floor, _SPLINE_NODES)
        spline = CubicSpline(nodes, np.log(studentized_range.sf(nodes, m, df)))
        values = np.exp(spline(np.minimum(distinct, q_floor)))
    values = np.where(distinct >= q_floor, TUKEY_P_FLOOR, np.clip(values, 0.0, 1.0))
    p[finite] = values[where]
    return p


#: Scores permuted at once in :func:`randomised_tukey` (a block of permutations
#: of the whole matrix holds about this many values, 32 MiB of float64).
_PERMUTATION_BLOCK_ELEMENTS = 1 << 22


def randomised_tukey(x: np.ndarray, B: int = 5000, seed: int = 0) -> np.ndarray:
    """The randomised Tukey HSD test's p-value of every pair i < j [Carterette12; Sakai14].

    Under the null hypothesis that all m systems are equal, the scores of a
    topic are exchangeable across systems. Each of B permutations shuffles
    every topic's column of x (m, n) independently and records the range
    max_i x̄*_i − min_i x̄*_i of the permuted system means; the p-value of a
    pair is p_ij = (1 + #{ranges ≥ |x̄_i − x̄_j|}) / (B + 1), never 0 (Phipson
    & Smyth 2010). Because every pair is compared with the distribution of
    the largest difference, the family-wise error rate of all pairs is held,
    without the normality Tukey's HSD assumes. Permutations are drawn in
    blocks from one ``SeedSequence(seed, spawn_key=(TUKEY_PERMUTATIONS,))``
    stream, so the p-values are the same for the same seed. Returns (pairs,).
    """
    x = np.asarray(x, dtype=float)
    if x.ndim != 2 or x.shape[0] < 2 or x.shape[1] < 1:
        raise ValueError(f"randomised_tukey needs scores of shape (m ≥ 2, n ≥ 1), got {x.shape}")
    if B < 1:
        raise ValueError(f"randomised_tukey needs B ≥ 1, got {B}")
    m, n = x.shape
    rng = generator(seed, TUKEY_PERMUTATIONS)
    per_block = max(1, _PERMUTATION_BLOCK_ELEMENTS // (m * n))
    ranges = np.empty(B)
    for b0 in range(0, B, per_block):
        size = min(per_block, B - b0)
        shuffled = rng.permuted(np.broadcast_to(x, (size, m, n)), axis=1)
        means = shuffled.mean(axis=-1)
        ranges[b0 : b0 + size] = means.max(axis=-1) - means.min(axis=-1)
    i, j = system_pairs(m)
    means = x.mean(axis=-1)
    observed = np.abs(means[i] - means[j])
    ranges.sort()
    # Every range at or above an observed difference counts; a relative slack of
    # a few ulps keeps a permutation that reproduces the observed means exactly
    # (summed in another order) from falling just below.
    slack = 8 * np.finfo(float).eps * max(1.0, float(np.abs(x).max()))
    exceed = B - np.searchsorted(ranges, observed - slack, side="left")
    return (1.0 + exceed) / (B + 1.0)


def effect_size_residual(x: np.ndarray) -> np.ndarray:
    """The standardised mean difference of every pair i < j: (x̄_i − x̄_j) / √V_E.

    V_E is the two-way ANOVA's residual mean square, the error variance of
    Tukey's HSD, so this is the effect size [Sakai14] reports beside it
    (ES_E): the difference in units of the residual standard deviation,
    which is pooled over all systems and free of topic difficulty. Shape
    (..., pairs), pairs as :func:`system_pairs`.
    """
    x = np.asarray(x, dtype=float)
    anova = two_way(x)
    i, j = system_pairs(anova.systems)
    means = x.mean(axis=-1)
    with np.errstate(divide="ignore", invalid="ignore"):
        return (means[..., i] - means[..., j]) / np.sqrt(anova.ms_residual)[..., np.newaxis]


def glass_delta(x: np.ndarray, baseline: int) -> np.ndarray:
    """Glass's Δ of every system against one baseline row: (x̄_i − x̄_b) / sd_b.

    sd_b is the baseline's standard deviation over topics (ddof=1): the
    difference is measured in the spread of the baseline alone, which a
    new system cannot inflate (Glass, McGaw & Smith 1981; [Sakai14]).
    Shape (..., m); the baseline's own entry is 0 (NaN if sd_b = 0).
    """
    x = np.asarray(x, dtype=float)
    if x.ndim < 2 or x.shape[-1] < 2:
        raise ValueError("glass_delta needs scores of shape (..., m, n ≥ 2)")
    base = x[..., baseline, :]
    sd = base.std(axis=-1, ddof=1)[..., np.newaxis]
    with np.errstate(divide="ignore", invalid="ignore"):
        return (x.mean(axis=-1) - base.mean(axis=-1)[..., np.newaxis]) / sd
