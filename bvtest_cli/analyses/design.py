"""Designing a test collection: how reliable a systems × topics score matrix
is, and how many topics (and judgments per topic) a new collection needs.

* Generalizability theory [Brennan01; Urbano13]: :func:`gstudy` estimates the
  variance components of the p × i design (systems × topics) from the mean
  squares of :func:`~bvtest_cli.analyses.anova.two_way`; :func:`dstudy` gives
  the generalizability coefficient Eρ² and the index of dependability Φ for
  other numbers of topics, with Feldt's interval for Eρ² [Feldt65] and Arteaga,
  Jeyaratnam & Franklin's for Φ [Arteaga82], as the R package gt4ireval
  computes them; :func:`topics_needed` the fewest topics that reach a target.
* Topic-set-size design [Sakai16]: :func:`variances` (the variance estimates it
  starts from), :func:`n_ttest` (paired t-test), :func:`n_anova` (one-way
  ANOVA over m systems) and :func:`n_ci` (a cap on a confidence interval's
  width). Each returns Sakai's normal approximation (what his Excel tools
  compute) beside the exact search with the noncentral t and F distributions.
* Judgments against topics: :func:`fit_topics_model` (how a ranking's b² and
  σ² change with the number of topics, from one or more measured topic-set
  sizes), :func:`predict_rmse`, :func:`allocate_models` and :func:`allocate`
  trade the judgments per topic against the number of topics a fixed total
  of judgments buys [Cormack19].
* :func:`bootstrap_topics`: seeded topic-bootstrap replicates of any statistic
  of a score matrix, for percentile intervals where no closed form exists.

The formulas, their sources and the published numbers the tests reproduce are
in docs/design-notes.md. Pure numpy with scipy.special (importing scipy.stats
costs most of a second of start-up), no I/O.
"""

from __future__ import annotations

import math
from collections.abc import Callable, Sequence
from dataclasses import dataclass

import numpy as np

from .anova import two_way
from .rankings import TIE_RTOL, tie_tolerance
from .streams import DESIGN_TOPICS, resample_indices

# Ratios such as target·σ²_e / (σ²_s (1 − target)) that are integers in exact
# arithmetic come out a few ulps above them; the ceiling must not add a topic.
_CEIL_SLACK = 1e-12

# The exact and approximate searches for a number of topics give up here.
_MAX_TOPICS = 10**9


class TopicsUnreachable(ValueError):
    """No number of topics up to 10⁹ meets a topic-set-size requirement."""


def zero_tolerance(x: np.ndarray) -> float | np.ndarray:
    """The largest mean square (or variance) of scores x (..., m, n) that
    counts as 0: (``TIE_RTOL`` · max(1, max |x|))², per matrix of a stack.

    Scores equal in exact arithmetic can differ in their last bits (0.1 + 0.2
    against 0.3), which leaves mean squares of about (2⁻⁵² · max |x|)² instead
    of 0; a ratio of two such remainders is noise, not a reliability. The
    tolerance is the square of the tie rule between system means
    (:func:`~bvtest_cli.analyses.rankings.tie_tolerance`): far above rounding
    error, far below the variance of any real scores.
    """
    x = np.asarray(x, dtype=float)
    scale = np.abs(x).max(axis=(-2, -1)) if x.size else np.zeros(x.shape[:-2])
    tol = (TIE_RTOL * np.maximum(1.0, scale)) ** 2
    return float(tol) if np.ndim(tol) == 0 else tol


def _snapped(v: np.ndarray | float, tol: np.ndarray | float) -> np.ndarray:
    """v, with the values at most ``tol`` (rounding error of a 0) set to 0."""
    v = np.asarray(v, dtype=float)
    return np.where(v <= tol, 0.0, v)


def mean_squares(x: np.ndarray) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
    """MS_s, MS_q, MS_e of the two-way ANOVA of x (..., m, n), each 0 where
    it is within :func:`zero_tolerance` of 0."""
    a = two_way(x)
    tol = zero_tolerance(x)
    return (
        _snapped(a.ms_systems, tol),
        _snapped(a.ms_topics, tol),
        _snapped(a.ms_residual, tol),
    )


# ---------------------------------------------------------------------------
# Generalizability theory


@dataclass(frozen=True)
class GStudy:
    """Variance components of the systems × topics design [Brennan01].

    ``var_*`` are σ²_s, σ²_q, σ²_e after negative estimates were set to 0;
    ``clipped`` names those that were ("systems", "topics", "residual").
    ``kept`` are the row indices of the systems analysed (all of them unless
    ``drop`` removed the worst).
    """

    systems: int
    topics: int
    var_systems: float
    var_topics: float
    var_residual: float
    ms_systems: float
    ms_topics: float
    ms_residual: float
    clipped: tuple[str, ...]
    kept: tuple[int, ...]


def gstudy(x: np.ndarray, drop: float = 0.0) -> GStudy:
    """The G-study of a score matrix x (m systems, n topics) [Brennan01; Urbano13].

    With ``drop`` > 0 the systems whose mean is below the ``drop`` quantile of
    the system means (linear interpolation, R's type 7) are left out first, so
    systems tied at the cut stay, as gt4ireval's ``gstudy(drop=)`` does; tied
    means bvtest's tie rule (within
    :func:`~bvtest_cli.analyses.rankings.tie_tolerance` of the cut), so that
    a mean a rounding error below the cut stays too. Then σ²_s = (MS_s −
    MS_e)/n, σ²_q = (MS_q − MS_e)/m, σ²_e = MS_e, the mean squares taken as 0
    within :func:`zero_tolerance`; a negative estimate is set to 0 and named
    in ``clipped``.
    """
    x = np.asarray(x, dtype=float)
    if x.ndim != 2:
        raise ValueError("gstudy needs scores of shape (m, n)")
    if not 0.0 <= drop < 1.0:
        raise ValueError(f"drop must be in [0, 1), got {drop}")
    if not np.all(np.isfinite(x)):
        raise ValueError("gstudy needs finite scores")
    kept = np.arange(x.shape[0])
    if drop > 0:
        means = x.mean(axis=1)
        cut = np.quantile(means, drop)
        kept = np.flatnonzero(means >= cut - tie_tolerance(means))
        if kept.size < 2:
            raise ValueError(
                f"dropping the worst {drop:g} of {len(means)} systems leaves {kept.size}; "
                "the G-study needs at least 2"
            )
        x = x[kept]
    m, n = x.shape
    ms_s, ms_q, ms_e = (float(v) for v in mean_squares(x))
    raw = {
        "systems": (ms_s - ms_e) / n,
        "topics": (ms_q - ms_e) / m,
        "residual": ms_e,
    }
    clipped = tuple(name for name, v in raw.items() if v < 0)
    return GStudy(
        systems=m,
        topics=n,
        var_systems=max(raw["systems"], 0.0),
        var_topics=max(raw["topics"], 0.0),
        var_residual=max(raw["residual"], 0.0),
        ms_systems=ms_s,
        ms_topics=ms_q,
        ms_residual=ms_e,
        clipped=clipped,
        kept=tuple(int(i) for i in kept),
    )


@dataclass(frozen=True)
class DStudy:
    """Eρ² and Φ for each number of topics in ``topics`` (arrays of that
    length), with the ends of their two-sided intervals at ``level``."""

    topics: np.ndarray
    level: float
    erho2: np.ndarray
    erho2_low: np.ndarray
    erho2_high: np.ndarray
    phi: np.ndarray
    phi_low: np.ndarray
    phi_high: np.ndarray


def _f_quantile(p: float, dfn: float, dfd: float) -> float:
    """The lower-tail p quantile of F(dfn, dfd); dfd = ∞ gives χ²_dfn / dfn."""
    from scipy.special import chdtri, fdtri  # lazily: 0.27 s of start-up

    if math.isinf(dfd):
        return float(chdtri(dfn, 1.0 - p)) / dfn  # chdtri inverts the upper tail
    return float(fdtri(dfn, dfd, p))


def erho2_undefined(g: GStudy) -> bool:
    """Eρ² = σ²_s / (σ²_s + σ²_e/n′) is 0/0: MS_s and MS_e both 0, every system
    the same scores on every topic up to a constant (so the same ones)."""
    return g.ms_systems == 0 and g.ms_residual == 0


def phi_undefined(g: GStudy) -> bool:
    """Φ is 0/0: every score the same (MS_s, MS_q and MS_e all 0)."""
    return erho2_undefined(g) and g.ms_topics == 0


def _signal_to_noise(g: GStudy, p: float) -> float:
    """One end of Feldt's interval for σ²_s / σ²_e [Feldt65]: (MS_s / (MS_e ·
    F_p) − 1) / n with F_p the p quantile of F(m − 1, (m − 1)(n − 1)); the
    lower end at p = 1 − α, the upper at p = α. Never below 0; inf where
    MS_e = 0 < MS_s (the scores are additive: the ratio is unbounded), NaN
    where both are 0."""
    if g.ms_residual == 0:
        return math.nan if g.ms_systems == 0 else math.inf
    df_s, df_q = g.systems - 1, g.topics - 1
    f = _f_quantile(p, df_s, df_s * df_q)
    return max((g.ms_systems / (g.ms_residual * f) - 1.0) / g.topics, 0.0)


def _dependability_one(g: GStudy, p: float) -> float:
    """One end of Arteaga, Jeyaratnam & Franklin's interval for
    σ²_s / (σ²_s + σ²_q + σ²_e), Φ of a single topic [Arteaga82], as
    gt4ireval computes it: with F_∞, F_e, F_q the p quantiles of F(m − 1, ∞),
    F(m − 1, df_e) and F(m − 1, n − 1),

        L = (MS_s² − F_∞ MS_s MS_e + (F_∞ − F_e) F_e MS_e²)
            / ((m − 1) F_∞ MS_s MS_e + F_q MS_s MS_q),

    and Φ₁ = m L / (m L + n). Never below 0; NaN where every score is the same."""
    if phi_undefined(g):
        return math.nan
    m, n = g.systems, g.topics
    df_s, df_q = m - 1, n - 1
    f_inf = _f_quantile(p, df_s, math.inf)
    f_e = _f_quantile(p, df_s, df_s * df_q)
    f_q = _f_quantile(p, df_s, df_q)
    s, q, e = g.ms_systems, g.ms_topics, g.ms_residual
    denominator = (m - 1) * f_inf * s * e + f_q * s * q
    if denominator == 0:
        return 1.0 if s > 0 else 0.0
    ratio = (s * s - f_inf * s * e + (f_inf - f_e) * f_e * e * e) / denominator
    ratio = max(ratio, 0.0)
    return m * ratio / (m * ratio + n)


def _alpha(level: float) -> float:
    if not 0.0 < level < 1.0:
        raise ValueError(f"level must be in (0, 1), got {level}")
    return (1.0 - level) / 2.0


def dstudy(g: GStudy, topics: Sequence[int], level: float = 0.95) -> DStudy:
    """The D-study of ``g`` for n′ topics, each n′ in ``topics`` [Brennan01; Urbano13].

    Eρ² = σ²_s / (σ²_s + σ²_e / n′) and Φ = σ²_s / (σ²_s + (σ²_q + σ²_e) / n′).
    The intervals are two-sided at ``level`` (0.95: α = .025 on each side),
    computed from the mean squares as gt4ireval does: Feldt's for Eρ² mapped to
    n′ topics as n′r / (1 + n′r) with r an end of the interval for σ²_s/σ²_e
    [Feldt65], and Arteaga et al.'s for Φ of one topic stepped up as
    n′Φ₁ / (1 + (n′ − 1)Φ₁) [Arteaga82]. Where an end of either ratio would be
    negative it is taken as 0 (gt4ireval leaves it, which puts the
    coefficient outside [0, 1]).

    Both intervals are built around other estimators than the point (Feldt's
    around the median-unbiased one), and below a level of about 0.5 their ends
    can pass it; each is widened to hold the point, so that lo ≤ point ≤ hi
    always (at 0.5 and above it changed nothing on 6000 simulated matrices of
    2–15 systems × 2–40 topics). Degenerate scores: with
    MS_e = 0 < MS_s (an exactly additive matrix) Eρ² = 1 with interval
    [1, 1]; with MS_s = MS_e = 0 (the systems are the same) Eρ² and its
    interval are NaN, undefined (0/0), and Φ too if MS_q = 0 as well.
    """
    alpha = _alpha(level)
    k = np.asarray(topics, dtype=float)
    if k.ndim != 1 or k.size == 0 or np.any(k < 1):
        raise ValueError("topics must be a non-empty list of numbers of topics ≥ 1")
    s, q, e = g.var_systems, g.var_topics, g.var_residual
    with np.errstate(divide="ignore", invalid="ignore"):
        erho2 = np.where(s > 0, s / (s + e / k), 0.0)
        phi = np.where(s > 0, s / (s + (q + e) / k), 0.0)
    if erho2_undefined(g):
        erho2 = np.full_like(k, math.nan)
    if phi_undefined(g):
        phi = np.full_like(k, math.nan)

    def stepped(r: float) -> np.ndarray:
        if math.isnan(r):
            return np.full_like(k, math.nan)
        return np.ones_like(k) if math.isinf(r) else k * r / (1.0 + k * r)

    def spearman_brown(p1: float) -> np.ndarray:
        return k * p1 / (1.0 + (k - 1.0) * p1)

    # np.minimum and np.maximum keep a NaN: an undefined point, undefined ends
    return DStudy(
        topics=k,
        level=level,
        erho2=erho2,
        erho2_low=np.minimum(stepped(_signal_to_noise(g, 1.0 - alpha)), erho2),
        erho2_high=np.maximum(stepped(_signal_to_noise(g, alpha)), erho2),
        phi=phi,
        phi_low=np.minimum(spearman_brown(_dependability_one(g, 1.0 - alpha)), phi),
        phi_high=np.maximum(spearman_brown(_dependability_one(g, alpha)), phi),
    )


@dataclass(frozen=True)
class TopicsNeeded:
    """The fewest topics with Eρ² ≥ target and with Φ ≥ target, each with the
    ends of an interval at ``level`` (``*_low`` ≤ point ≤ ``*_high``; math.inf
    where the coefficient cannot reach the target, NaN where it is undefined:
    see :func:`dstudy`)."""

    target: float
    level: float
    erho2: float
    erho2_low: float
    erho2_high: float
    phi: float
    phi_low: float
    phi_high: float


def _ceil(v: float) -> float:
    if not math.isfinite(v):
        return math.inf
    return float(max(1, math.ceil(v * (1.0 - _CEIL_SLACK))))


def _around(point: float, low: float, high: float) -> tuple[float, float, float]:
    """(point, low, high) with the ends widened to hold the point (see
    :func:`dstudy`); all NaN where the point is."""
    if math.isnan(point):
        return math.nan, math.nan, math.nan
    return point, min(low, point), max(high, point)


def topics_needed(g: GStudy, target: float = 0.95, level: float = 0.95) -> TopicsNeeded:
    """The smallest n′ with Eρ² ≥ target and with Φ ≥ target [Brennan01; Urbano13].

    n′ = ⌈target · σ²_e / (σ²_s (1 − target))⌉ for Eρ² and
    ⌈target · (σ²_q + σ²_e) / (σ²_s (1 − target))⌉ for Φ. The interval takes
    the same formula at the ends of the intervals of the ratios σ²_s/σ²_e
    (Feldt) and Φ₁ (Arteaga et al.), as gt4ireval does: the upper end of a
    ratio gives the lower end of n′. As in :func:`dstudy`, an interval is
    widened to hold its point, and a coefficient that is undefined gives NaN.
    """
    if not 0.0 < target < 1.0:
        raise ValueError(f"target must be in (0, 1), got {target}")
    alpha = _alpha(level)
    odds = target / (1.0 - target)

    def from_ratio(r: float) -> float:  # r = σ²_s / σ²_e, or an end of it
        return _ceil(odds / r) if r > 0 else math.inf

    def from_phi1(p1: float) -> float:  # Φ of one topic, or an end of it
        return _ceil(odds * (1.0 - p1) / p1) if p1 > 0 else math.inf

    s, q, e = g.var_systems, g.var_topics, g.var_residual
    ratio = s / e if e > 0 else math.inf if s > 0 else 0.0
    erho2 = _around(
        math.nan if erho2_undefined(g) else from_ratio(ratio),
        from_ratio(_signal_to_noise(g, alpha)),
        from_ratio(_signal_to_noise(g, 1.0 - alpha)),
    )
    phi = _around(
        math.nan if phi_undefined(g) else from_phi1(s / (s + q + e)) if s + q + e > 0 else math.inf,
        from_phi1(_dependability_one(g, alpha)),
        from_phi1(_dependability_one(g, 1.0 - alpha)),
    )
    return TopicsNeeded(target, level, *erho2, *phi)


# ---------------------------------------------------------------------------
# Topic-set-size design


@dataclass(frozen=True)
class Variances:
    """Variance estimates of a score matrix for topic-set-size design [Sakai16],
    each a float for one matrix, an array of shape (...) for a stack.

    ``residual`` = 2·V_E, twice the residual mean square of the two-way ANOVA
    (the paired-difference variance averaged over all pairs of systems);
    ``pairwise95`` the 95th percentile (linear interpolation) of the
    m(m − 1)/2 paired-difference variances (ddof = 1), a cautious σ²_d for the
    t-test; ``within`` = V_E1, the within-system variance of the one-way
    ANOVA, σ² for the ANOVA design. Each is 0 within :func:`zero_tolerance`.
    """

    residual: float | np.ndarray
    pairwise95: float | np.ndarray
    within: float | np.ndarray


def variances(x: np.ndarray) -> Variances:
    """The variance estimates of scores x (..., m systems, n topics) [Sakai16]."""
    x = np.asarray(x, dtype=float)
    if x.ndim < 2:
        raise ValueError("variances needs scores of shape (..., m, n)")
    m, n = x.shape[-2:]
    if m < 2 or n < 2:
        raise ValueError(f"variances needs at least 2 systems and 2 topics, got {m} × {n}")
    i, j = np.triu_indices(m, k=1)
    pair = np.var(x[..., i, :] - x[..., j, :], axis=-1, ddof=1)
    centred = x - x.mean(axis=-1, keepdims=True)
    within = (centred**2).sum(axis=(-2, -1)) / (m * (n - 1))
    tol = zero_tolerance(x)

    def plain(v: np.ndarray) -> float | np.ndarray:
        v = _snapped(v, tol)
        return float(v) if np.ndim(v) == 0 else v

    return Variances(
        residual=plain(2.0 * mean_squares(x)[2]),
        pairwise95=plain(np.percentile(pair, 95, axis=-1)),
        within=plain(within),
    )


@dataclass(frozen=True)
class TopicSetSize:
    """Numbers of topics for one requirement [Sakai16].

    ``formula``: the closed-form starting value of Sakai's Excel tool (None
    where the tool has none for these α, β); ``approx``: what the tool
    returns, the normal approximation of the power corrected by stepping n up
    from the formula; ``exact``: the smallest n whose power under the
    noncentral t (or F) distribution is at least 1 − β.
    """

    formula: int | None
    approx: int
    exact: int


def _smallest(
    value: Callable[[int], float], target: float, start: int = 2, below: bool = False
) -> int:
    """The smallest n ≥ start with value(n) ≥ target (≤ target if ``below``),
    for a value that crosses the target once as n grows. A NaN value is a
    ValueError: read as "not there yet" it would send the search to larger n
    and return a wrong number."""

    def ok(k: int) -> bool:
        v = value(k)
        if math.isnan(v):
            raise ValueError(f"the search for a number of topics met NaN at n = {k}")
        return v <= target if below else v >= target

    if ok(start):
        return start
    lo, hi = start, start + 1
    while not ok(hi):
        lo, hi = hi, 2 * hi
        if hi > _MAX_TOPICS:
            raise TopicsUnreachable("no number of topics up to 10⁹ meets the requirement")
    while hi - lo > 1:  # ok(lo) false, ok(hi) true
        mid = (lo + hi) // 2
        if ok(mid):
            hi = mid
        else:
            lo = mid
    return hi


def _z(p: float) -> float:
    """The upper p point of the standard normal."""
    from scipy.special import ndtri

    return float(-ndtri(p))


def _nct_cdf_bracket(df: int, nc: float, t: float) -> tuple[float, float]:
    """Bounds (low, high) of P(T′ ≤ t), T′ noncentral t(df, nc), without
    nctdtr: T′ = (Z + nc)/S with S = √(V/df), V ~ χ²_df, so P(T′ ≤ t) =
    E[Φ(t·S − nc)], and Φ(t·s − nc) is monotone in s: over each bin of a grid
    of s its values at the bin's ends bound it, weighted by the bin's
    probability (chdtr). The grid is geometric (the tails of S for small df)
    and fine around 1 (where S is for large df), so the bounds are a few
    per cent apart where P is far in a tail, the only place they are used."""
    from scipy.special import chdtr, ndtr

    spread = 1.0 / math.sqrt(2.0 * df)  # sd of S for large df
    s = np.unique(
        np.concatenate(
            (
                [0.0],
                np.geomspace(1e-8, 1e4, 1200),
                np.clip(1.0 + spread * np.linspace(-40.0, 40.0, 801), 0.0, None),
            )
        )
    )
    mass = np.diff(np.append(chdtr(df, df * s * s), 1.0))  # bins [s_k, s_k+1), the last open
    f = ndtr(t * s - nc)
    f_end = np.append(f[1:], 1.0 if t > 0 else 0.0 if t < 0 else float(ndtr(-nc)))
    low = float(np.sum(mass * np.minimum(f, f_end)))
    high = float(np.sum(mass * np.maximum(f, f_end)))
    return max(low, 0.0), min(high, 1.0)


def _nct_cdf(df: int, nc: float, t: float, upper: bool) -> float:
    """P(T′ ≤ t) for T′ noncentral t(df, nc), never NaN.

    scipy's nctdtr (boost) returns NaN far in a tail (nctdtr(29, 5.477,
    −3.659), and for large df whole regions). Then the reflection
    1 − nctdtr(df, −nc, −t), P(−T′ ≥ −t) with −T′ noncentral t(df, −nc);
    where that fails too, an end of :func:`_nct_cdf_bracket`: the high end if
    ``upper`` else the low one, the caller's choice being the end that makes
    the power smaller (a design never promises a power it may not have)."""
    from scipy.special import nctdtr

    v = float(nctdtr(df, nc, t))
    if math.isnan(v):
        v = 1.0 - float(nctdtr(df, -nc, -t))
    if math.isnan(v):
        low, high = _nct_cdf_bracket(df, nc, t)
        v = high if upper else low
    return v


def ttest_power(n: int, effect: float, alpha: float = 0.05, exact: bool = True) -> float:
    """Power of the two-sided paired t-test with n topics when the true mean
    difference is ``effect`` standard deviations of a paired difference.

    Exact: P(|t′| ≥ w) with t′ noncentral t with n − 1 degrees of freedom and
    noncentrality √n·effect, w the upper α/2 point of t(n − 1) (each tail by
    :func:`_nct_cdf`, which never gives NaN). Approximate [Sakai16;
    Nagata03]: each tail of t′ by the normal approximation
    P(t′ ≤ c) ≈ Φ((c(1 − 1/(4φ)) − λ) / √(1 + c²/(2φ))), φ = n − 1.
    """
    from scipy.special import ndtr, stdtrit

    df = n - 1
    nc = math.sqrt(n) * effect
    w = float(stdtrit(df, 1.0 - alpha / 2.0))
    if exact:
        return 1.0 - _nct_cdf(df, nc, w, upper=True) + _nct_cdf(df, nc, -w, upper=False)
    scale = math.sqrt(1.0 + w * w / (2.0 * df))
    shrunk = w * (1.0 - 1.0 / (4.0 * df))
    return float(1.0 - ndtr((shrunk - nc) / scale) + ndtr((-shrunk - nc) / scale))


def n_ttest(min_diff: float, var_d: float, alpha: float = 0.05, beta: float = 0.20) -> TopicSetSize:
    """Topics for a two-sided paired t-test to detect a mean difference of
    ``min_diff`` with power 1 − β, σ²_d = ``var_d`` [Sakai16].

    formula: ⌈((z_{α/2} + z_β) / Δ)² + z²_{α/2} / 2⌉ with Δ = min_diff / σ_d
    (Nagata's approximation [Nagata03]); approx: from there n grows until
    :func:`ttest_power` (approximate) ≥ 1 − β, as samplesizeTTEST2 does;
    exact: the smallest n with the noncentral-t power ≥ 1 − β.
    """
    _check_design(alpha, beta)
    if not (min_diff > 0 and var_d > 0):
        raise ValueError("min_diff and var_d must be positive")
    effect = min_diff / math.sqrt(var_d)
    za = _z(alpha / 2.0)
    formula = max(2, math.ceil(((za + _z(beta)) / effect) ** 2 + za * za / 2.0))
    approx = _smallest(lambda k: ttest_power(k, effect, alpha, exact=False), 1 - beta, formula)
    exact = _smallest(lambda k: ttest_power(k, effect, alpha), 1 - beta)
    return TopicSetSize(formula=formula, approx=approx, exact=exact)


def _ncf_cdf(cdf: Callable[[float], float], lam: float) -> float:
    """cdf(λ), the noncentral F's CDF at a point as a function of the
    noncentrality, never NaN.

    scipy's ncfdtr (boost) returns NaN for large λ (above about 1300), where
    the CDF is far below 1e-15. It falls as λ grows (a noncentral χ² grows
    stochastically with λ), so its value at the largest λ′ < λ where ncfdtr
    is finite (bisection from λ′ = 0, the central F) bounds it from above:
    the power 1 − cdf is then understated, never overstated."""
    v = cdf(lam)
    if not math.isnan(v):
        return v
    lo, hi, v = 0.0, lam, cdf(0.0)
    while hi - lo > 1e-12 * hi:
        mid = 0.5 * (lo + hi)
        here = cdf(mid)
        if math.isnan(here):
            hi = mid
        else:
            lo, v = mid, here
    return v


def anova_power(n: int, m: int, delta: float, alpha: float = 0.05, exact: bool = True) -> float:
    """Power of the one-way ANOVA F-test over m systems with n topics each
    when the noncentrality is λ = n·Δ (Δ = minD² / (2σ²) for the least
    favourable means at minimum range minD).

    Exact: P(F′ > w) with F′ noncentral F(φ_A, φ_E, λ), φ_A = m − 1,
    φ_E = m(n − 1), w the upper α point of F(φ_A, φ_E) (by :func:`_ncf_cdf`,
    which never gives NaN). Approximate
    [Sakai16; Nagata03]: the noncentral χ² as c·χ²(φ_A*) with
    c = (φ_A + 2λ)/(φ_A + λ), φ_A* = (φ_A + λ)²/(φ_A + 2λ) [Patnaik49], then
    Fisher's square-root normal approximation of F: power ≈ 1 − Φ(u),

        u = (√(w/φ_E)·√(2φ_E − 1) − √(c/φ_A)·√(2φ_A* − 1)) / √(c/φ_A + w/φ_E).
    """
    from scipy.special import fdtri, ncfdtr, ndtr

    dfa, dfe = m - 1, m * (n - 1)
    lam = n * delta
    w = float(fdtri(dfa, dfe, 1.0 - alpha))
    if exact:
        return 1.0 - _ncf_cdf(lambda nc: float(ncfdtr(dfa, dfe, nc, w)), lam)
    c = (dfa + 2.0 * lam) / (dfa + lam)
    dfa_star = (dfa + lam) ** 2 / (dfa + 2.0 * lam)
    u = (
        math.sqrt(w / dfe) * math.sqrt(2.0 * dfe - 1.0)
        - math.sqrt(c / dfa) * math.sqrt(2.0 * dfa_star - 1.0)
    ) / math.sqrt(c / dfa + w / dfe)
    return float(1.0 - ndtr(u))


def n_anova(
    min_range: float, var_within: float, m: int, alpha: float = 0.05, beta: float = 0.20
) -> TopicSetSize:
    """Topics for a one-way ANOVA over m systems to detect a range of system
    means of at least ``min_range`` (minD) with power 1 − β, σ² = ``var_within``
    [Sakai16].

    λ = n·minD² / (2σ²). formula (α = .05, β = .20 only, None otherwise):
    ⌈λ̂ / Δ⌉ with Nagata's λ̂ = 4.86 + 3.584·√(m − 1); approx: the smallest n
    whose approximate :func:`anova_power` ≥ 1 − β, as samplesizeANOVA2
    returns; exact: the smallest n with the noncentral-F power ≥ 1 − β.
    """
    _check_design(alpha, beta)
    if not (min_range > 0 and var_within > 0):
        raise ValueError("min_range and var_within must be positive")
    if m < 2:
        raise ValueError(f"n_anova needs at least 2 systems, got {m}")
    delta = min_range**2 / (2.0 * var_within)
    formula = None
    if math.isclose(alpha, 0.05) and math.isclose(beta, 0.20):
        formula = max(2, math.ceil((4.86 + 3.584 * math.sqrt(m - 1)) / delta))
    approx = _smallest(lambda k: anova_power(k, m, delta, alpha, exact=False), 1 - beta)
    exact = _smallest(lambda k: anova_power(k, m, delta, alpha), 1 - beta)
    return TopicSetSize(formula=formula, approx=approx, exact=exact)


@dataclass(frozen=True)
class CISize:
    """Topics to cap a confidence interval's width [Sakai16].

    ``plugin``: the smallest n with 2·t_{α/2, n−1}·√(σ²_d / n) ≤ δ (σ_d taken
    as known); ``expected``: the smallest n whose expected width, with
    E[s] = c₄(n)·σ_d, c₄(n) = √(2/(n − 1))·Γ(n/2)/Γ((n − 1)/2), is ≤ δ, the
    form of Nagata's condition [Nagata03].
    """

    plugin: int
    expected: int


def ci_width(n: int, var_d: float, alpha: float = 0.05, expected: bool = False) -> float:
    """The width 2·t_{α/2, n−1}·√(σ²_d / n) of a paired difference's interval,
    times c₄(n) if ``expected`` (see :class:`CISize`)."""
    from scipy.special import gammaln, stdtrit

    width = 2.0 * float(stdtrit(n - 1, 1.0 - alpha / 2.0)) * math.sqrt(var_d / n)
    if expected:
        width *= math.sqrt(2.0 / (n - 1)) * math.exp(gammaln(n / 2.0) - gammaln((n - 1) / 2.0))
    return width


def n_ci(width: float, var_d: float, alpha: float = 0.05) -> CISize:
    """Topics for a 100(1 − α)% interval of a paired difference no wider than
    ``width`` (δ), σ²_d = ``var_d``, as samplesizeCI2 [Sakai16]."""
    _check_design(alpha, 0.5)
    if not (width > 0 and var_d > 0):
        raise ValueError("width and var_d must be positive")
    return CISize(
        plugin=_smallest(lambda k: ci_width(k, var_d, alpha), width, below=True),
        expected=_smallest(lambda k: ci_width(k, var_d, alpha, expected=True), width, below=True),
    )


def _check_design(alpha: float, beta: float) -> None:
    if not 0.0 < alpha < 1.0:
        raise ValueError(f"alpha must be in (0, 1), got {alpha}")
    if not 0.0 < beta < 1.0:
        raise ValueError(f"beta must be in (0, 1), got {beta}")


# ---------------------------------------------------------------------------
# Judgments against topics


def predict_rmse(bias: float, sigma: float, n: int, n_new: float) -> float:
    """The RMSE of an estimator with bias b and standard deviation σ measured
    at n topics, predicted at n′ topics: √(b² + σ²·n / n′) (the bias stays,
    the variance of a mean over topics falls as 1/n′)."""
    if n <= 0 or n_new <= 0:
        raise ValueError("numbers of topics must be positive")
    return math.sqrt(bias * bias + sigma * sigma * n / n_new)


#: One topic scale measured: |b| taken as constant, σ² ∝ 1/n′ [Cormack19].
CONSTANT_BIAS = "constant-bias"
#: Two or more topic scales: b² and σ² fitted across them (:func:`fit_topics_model`).
FITTED = "fitted"


@dataclass(frozen=True)
class TopicsModel:
    """How the squared bias and the variance of a ranking change with the
    number of topics n′, from measurements at ``n`` topics and more:

        b²(n′) = ``bias2_limit`` + ``bias2_slope`` · n/n′,
        σ²(n′) = ``sigma2`` · (n/n′)^``exponent``,

    and RMSE(n′) = √(max(b²(n′), 0) + σ²(n′)). ``model`` is
    :data:`CONSTANT_BIAS` (slope 0, exponent 1: the trade-off of [Cormack19])
    or :data:`FITTED`; ``topics`` are the numbers of topics it was measured at.
    """

    n: int
    bias2_limit: float
    bias2_slope: float
    sigma2: float
    exponent: float
    model: str
    topics: tuple[int, ...]

    def bias2(self, n_new: float) -> float:
        """b² at n′ topics; negative where the fit goes below 0 (no bias
        beyond chance), which :meth:`rmse` counts as 0."""
        if n_new <= 0:
            raise ValueError("numbers of topics must be positive")
        return self.bias2_limit + self.bias2_slope * self.n / n_new

    def variance(self, n_new: float) -> float:
        """σ² at n′ topics."""
        if n_new <= 0:
            raise ValueError("numbers of topics must be positive")
        return self.sigma2 * (self.n / n_new) ** self.exponent

    def rmse(self, n_new: float) -> float:
        """The predicted RMSE of the ranking at n′ topics."""
        return math.sqrt(max(self.bias2(n_new), 0.0) + self.variance(n_new))


def fit_topics_model(
    topics: Sequence[int], bias: Sequence[float], sigma: Sequence[float]
) -> TopicsModel:
    """The :class:`TopicsModel` of one cell (a judging method at a budget)
    measured at each number of topics in ``topics``.

    ``bias`` is the cell's bias as `bvtest budget` reports it: |b|, or
    −√(−b²) where the estimate of b² is negative, so that b² = bias·|bias|;
    ``sigma`` is σ. At one number of topics n the model is [Cormack19]'s: b²
    stays, σ² falls as n/n′ (:data:`CONSTANT_BIAS`). At two or more, with
    n the fewest and x = n/n′ (:data:`FITTED`): b² = b²_∞ + c·x by least
    squares, because the ranking's b² (a distance between the bootstrap's
    expected pair orders, docs/rankings.md) shrinks as near-tied pairs of
    systems settle, and σ² = σ²(n)·x^p by least squares on the logarithms,
    because Kendall's distance between two rankings does not fall as 1/n′
    the way the variance of a mean does (p = 1 is that law). Where a σ is 0
    the exponent cannot be fitted and is taken as 1, σ²(n) by least squares
    through the origin.
    """
    t = np.asarray(topics, dtype=float)
    b = np.asarray(bias, dtype=float)
    s = np.asarray(sigma, dtype=float)
    if t.ndim != 1 or t.size == 0 or t.shape != b.shape or t.shape != s.shape:
        raise ValueError("topics, bias and sigma must be lists of one length, at least 1")
    if np.any(t < 1) or np.unique(t).size != t.size:
        raise ValueError("the numbers of topics must be distinct and positive")
    if not (np.all(np.isfinite(b)) and np.all(np.isfinite(s)) and np.all(s >= 0)):
        raise ValueError("bias must be finite and sigma finite and non-negative")
    order = np.argsort(t)
    t, b2, s2 = t[order], (b * np.abs(b))[order], (s * s)[order]
    n = int(t[0])
    measured = tuple(int(k) for k in t)
    if t.size == 1:
        return TopicsModel(n, float(b2[0]), 0.0, float(s2[0]), 1.0, CONSTANT_BIAS, measured)
    x = n / t
    design = np.column_stack([np.ones_like(x), x])
    (limit, slope), *_ = np.linalg.lstsq(design, b2, rcond=None)
    if np.all(s2 > 0):
        design = np.column_stack([np.ones_like(x), np.log(x)])
        (log_sigma2, exponent), *_ = np.linalg.lstsq(design, np.log(s2), rcond=None)
        sigma2 = math.exp(log_sigma2)
    else:
        exponent, sigma2 = 1.0, float(x @ s2 / (x @ x))
    return TopicsModel(
        n, float(limit), float(slope), float(sigma2), float(exponent), FITTED, measured
    )


@dataclass(frozen=True)
class Candidate:
    """One way to spend ``total`` judgments: ``method`` with ``budget``
    judgments per topic on ``topics`` = total // budget topics, its RMSE
    predicted by a :class:`TopicsModel` of kind ``model``."""

    total: int
    method: str
    budget: int
    topics: int
    rmse: float
    model: str = CONSTANT_BIAS


@dataclass(frozen=True)
class Allocation:
    """Every candidate, and the best for each total (None where no cell's
    budget fits in the total)."""

    candidates: tuple[Candidate, ...]
    best: dict[int, Candidate | None]


def allocate_models(
    cells: Sequence[tuple[str, int, TopicsModel]], totals: Sequence[int]
) -> Allocation:
    """The allocation of each total T of judgments with the least predicted RMSE.

    ``cells`` are rows (method, N judgments per topic, its
    :class:`TopicsModel`). For each T and each cell with N ≤ T the candidate
    has n′ = T // N topics and RMSE ``model.rmse(n′)``. The best has the
    least RMSE; among equal RMSEs the one that spends fewer judgments
    (n′·N), then the earlier cell.
    """
    candidates: list[Candidate] = []
    best: dict[int, Candidate | None] = {}
    for total in totals:
        here = []
        for order, (method, budget, model) in enumerate(cells):
            if budget <= 0:
                raise ValueError(f"budget per topic must be positive, got {budget}")
            topics = total // budget
            if topics < 1:
                continue
            c = Candidate(total, method, budget, topics, model.rmse(topics), model.model)
            here.append((c.rmse, topics * budget, order, c))
        candidates.extend(c for *_, c in here)
        best[total] = min(here, key=lambda row: row[:3])[3] if here else None
    return Allocation(candidates=tuple(candidates), best=best)


def allocate(
    cells: Sequence[tuple[str, int, float, float]], totals: Sequence[int], n: int
) -> Allocation:
    """:func:`allocate_models` for cells (method, N, |b|, σ) measured at n
    topics only: each predicted by :func:`predict_rmse` (|b|, σ, n, n′), a
    negative |b| counting as |b|."""
    if n <= 0:
        raise ValueError("numbers of topics must be positive")
    models = [
        (method, budget, TopicsModel(n, bias * bias, 0.0, sigma * sigma, 1.0, CONSTANT_BIAS, (n,)))
        for method, budget, bias, sigma in cells
    ]
    return allocate_models(models, totals)


# ---------------------------------------------------------------------------
# Topic bootstrap


def bootstrap_topics(
    x: np.ndarray,
    statistic: Callable[[np.ndarray], object],
    B: int,
    seed: int,
    vectorised: bool = False,
) -> np.ndarray:
    """B replicates of ``statistic`` on topic-bootstrap samples of x (m, n).

    Each sample draws n topics (columns) with replacement; the draws come
    from stream ``DESIGN_TOPICS`` (:func:`~.streams.resample_indices`), so the
    same seed gives the same replicates. With ``vectorised`` the statistic is
    called once on the (B, m, n) stack and must return B values (or (B, …));
    otherwise once per sample. Returns an array with B rows.
    """
    x = np.asarray(x, dtype=float)
    if x.ndim != 2:
        raise ValueError("bootstrap_topics needs scores of shape (m, n)")
    if B < 1:
        raise ValueError(f"B must be at least 1, got {B}")
    n = x.shape[1]
    columns = resample_indices(n, B, seed, DESIGN_TOPICS)
    if vectorised:
        out = np.asarray(statistic(np.moveaxis(x[:, columns], 1, 0)), dtype=float)
        if out.shape[:1] != (B,):
            raise ValueError("a vectorised statistic must return one value per sample")
        return out
    return np.asarray([statistic(x[:, c]) for c in columns], dtype=float)
