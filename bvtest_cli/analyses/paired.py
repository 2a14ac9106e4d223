"""Paired comparisons of runs over the same topics (``bvtest compare``).

For each pair: the difference of every compared field (mean, Var, MSE,
GeoRisk at each α) with a paired topic-bootstrap interval
(:mod:`bvtest_cli.analyses.uncertainty`'s engine in its paired mode), a
two-sided p-value and its correction over the pairs; for the mean the test
chosen (:mod:`bvtest_cli.analyses.significance`: randomization, t,
Wilcoxon, sign, bootstrap; :mod:`bvtest_cli.analyses.anova`: Tukey's HSD and
its randomised version), the effect size d/√V_E [Sakai14] and, against a
baseline, Glass's Δ; for Var Pitman–Morgan's test of equal variances for
paired samples (Pitman 1939, Morgan 1939).

A relabelling of the randomization test swaps two runs' scores on some
topics; the virtual target (the per-topic maximum over every run), c and
the column totals do not change. So for the mean, Var and MSE the
relabelled difference is the mean of sign-flipped per-topic values, and the
no-floor sign-flip test (:func:`~bvtest_cli.analyses.significance.randomization_test`)
is their exact randomization test:

- mean: d_j = a_j − b_j;
- Var: Var(a*) − Var(b*) = mean(ε_j v_j) with v_j = d_j (a_j + b_j − ā − b̄),
  since a* + b* = a + b on every topic (up to the constant n/(n − ddof));
- MSE: mean((a*_j − c)² − (b*_j − c)²) = mean(ε_j d_j (a_j + b_j − 2c)).

GeoRisk is not linear in the relabelling: its p-value comes from B
relabellings of the whole decomposition (:func:`randomization_p`), whose
floor 1/(B + 1) the caller states.
Pure numpy (scipy through the tests), no I/O.
"""

from __future__ import annotations

from collections.abc import Callable, Mapping, Sequence
from dataclasses import dataclass
from typing import Any

import numpy as np

from ..measures.matrix import virtual_target
from .significance import RandomizationTest, adjust
from .streams import GEORISK_RELABELLINGS, generator
from .tradeoff import constant
from .uncertainty import (
    BLOCK_ELEMENTS,
    REPLICATE_ELEMENTS,
    bootstrap_intervals,
    contrasts,
    method_of,
)


def pitman_morgan(a: np.ndarray, b: np.ndarray) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
    """Pitman–Morgan test of equal variances for paired samples (Pitman 1939; Morgan 1939).

    ``a`` and ``b`` (..., n) are two runs' scores on the same topics. Since
    Var(a) − Var(b) = Cov(a + b, a − b), equal variances means no correlation
    r between the sums and the differences; t = r √((n − 2)/(1 − r²)) has
    n − 2 degrees of freedom under H0. Returns (r, t, two-sided p), each (...).
    When the sums or the differences are constant the variances are equal
    exactly: r = 0, p = 1. With n < 3 everything is NaN.
    """
    a = np.asarray(a, dtype=float)
    b = np.asarray(b, dtype=float)
    n = a.shape[-1]
    s, d = a + b, a - b
    if n < 3:
        nan = np.full(s.shape[:-1], np.nan)
        return nan, nan.copy(), nan.copy()
    sc = s - s.mean(axis=-1, keepdims=True)
    dc = d - d.mean(axis=-1, keepdims=True)
    degenerate = constant(s) | constant(d)
    with np.errstate(invalid="ignore", divide="ignore"):
        r = (sc * dc).sum(axis=-1) / np.sqrt((sc * sc).sum(axis=-1) * (dc * dc).sum(axis=-1))
        r = np.where(degenerate, 0.0, np.clip(r, -1.0, 1.0))
        t = r * np.sqrt((n - 2) / (1.0 - r * r))
    from scipy.special import stdtr  # lazily

    p = np.where(np.abs(r) >= 1.0, 0.0, 2.0 * stdtr(n - 2, -np.abs(t)))
    return r, t, p


def holm(p: np.ndarray) -> np.ndarray:
    """Holm's step-down adjusted p-values (Holm 1979) of a 1-D array:
    :func:`~bvtest_cli.analyses.significance.adjust` with ``"holm"`` (NaN stays
    NaN and is not counted)."""
    return adjust(p, "holm")


def flips(n: int, B: int, seed: int) -> np.ndarray:
    """(B, n) booleans: which topics swap the two runs in each of the B
    random relabellings (each topic independently with probability ½)."""
    rng = generator(seed, GEORISK_RELABELLINGS)
    return rng.random((B, n)) < 0.5


@dataclass(frozen=True)
class Relabellings:
    """How :func:`randomization_p` relabels: B random relabellings drawn from
    ``seed`` (:func:`flips`), evaluated in matrices of about ``block``
    elements so that memory stays bounded whatever the number of pairs."""

    B: int
    seed: int
    block: int = BLOCK_ELEMENTS


def randomization_p(
    x: np.ndarray,
    ia: np.ndarray,
    ib: np.ndarray,
    fields: Callable[[np.ndarray, np.ndarray], list[np.ndarray]],
    target_row: np.ndarray,
    observed: Sequence[np.ndarray],
    draws: Relabellings,
) -> list[np.ndarray]:
    """Two-sided paired randomization p-values, one array (pairs,) per field.

    The test of Fisher (1935) as IR uses it (Smucker, Allan & Carterette
    2007): under H0 the two runs are exchangeable on every topic, so swapping
    their scores on any set of topics leaves the distribution of the data
    unchanged. Each of B relabellings (:func:`flips`, seeded by ``draws``) swaps runs a and
    b on a random half of the topics; p = (1 + #{|d*| ≥ |d|}) / (1 + B′) over
    the B′ relabellings whose difference d* is defined (Phipson & Smyth 2010:
    a Monte-Carlo p-value is never 0), NaN where the observed difference d
    (``observed``, one array (pairs,) per field) is undefined or fewer than
    half of the d* are defined. Its null distribution is uniform (up to the
    Monte-Carlo "+1") whatever n and whatever the field, in the tail Holm
    uses too.

    ``fields(y, target_row)`` gives the compared fields' values, one array
    (rows,) per field, of scores y (rows, n) with the virtual target
    ``target_row`` (n,). A field of a run depends on the other runs only
    through the virtual target, c and, for ZRisk/GeoRisk, the topics' totals
    and the grand total (Dincer16 eq. 5); a relabelling keeps all of them. So
    the relabelled rows of many pairs are evaluated as one matrix, with one
    last row that restores every topic's total: each relabelled run gets the
    fields it would have in the whole relabelled matrix.
    """
    x = np.asarray(x, dtype=float)
    n = x.shape[-1]
    B = draws.B
    swap = flips(n, B, draws.seed)
    total = x.sum(axis=0)
    rows = max(2, draws.block // max(1, n))  # rows of one evaluated matrix
    per_pair = min(B, max(1, rows // 2))  # relabellings of one pair in a block
    pairs_per_block = max(1, rows // (2 * per_pair))
    hits = [np.zeros(len(ia)) for _ in observed]
    defined = [np.zeros(len(ia)) for _ in observed]
    for p0 in range(0, len(ia), pairs_per_block):
        ks = slice(p0, p0 + pairs_per_block)
        a, b = x[ia[ks]][:, np.newaxis, :], x[ib[ks]][:, np.newaxis, :]  # (pg, 1, n)
        for r0 in range(0, B, per_pair):
            f = swap[r0 : r0 + per_pair]  # (rc, n)
            half = a.shape[0] * f.shape[0]
            relabelled = np.concatenate(
                [np.where(f, b, a).reshape(half, n), np.where(f, a, b).reshape(half, n)]
            )
            y = np.concatenate([relabelled, (total - relabelled.sum(axis=0))[np.newaxis]])
            for q, v in enumerate(fields(y, target_row)):
                d = (v[:half] - v[half : 2 * half]).reshape(a.shape[0], f.shape[0])
                obs = np.abs(observed[q][ks])[:, np.newaxis]
                finite = np.isfinite(d)
                defined[q][ks] += finite.sum(axis=1)
                # a relative tolerance: the same |d| recomputed may differ in its last bits
                hits[q][ks] += (finite & (np.abs(d) >= obs * (1 - 1e-9))).sum(axis=1)
    out = []
    for q, d_obs in enumerate(observed):
        ok = np.isfinite(d_obs) & (defined[q] >= B / 2)
        out.append(np.where(ok, (1 + hits[q]) / (1 + defined[q]), np.nan))
    return out


@dataclass(frozen=True)
class Comparison:
    """One paired comparison row: ``field`` of run ``a`` minus that of run ``b``.

    ``diff`` is the difference on the data, [lo, hi] its paired topic-bootstrap
    interval (Tukey's simultaneous interval with ``test`` tukey), ``p`` the
    two-sided p-value of ``test`` and ``p_adj`` its correction over the pairs
    compared; a randomization test's p is its estimate, and [``p_lo``,
    ``p_hi``] the interval around the exact p that settles the decision. Mean
    rows carry ``significant`` (p_adj ≤ the significance level),
    ``effect_size`` (d/√V_E), ``glass_delta`` with a baseline and ``q`` with
    Tukey's HSD; Var rows the Pitman–Morgan test (``p_pm``, ``p_pm_adj``).
    Keys that do not apply are left out of :meth:`as_dict`.
    """

    a: str
    b: str
    field: str
    diff: float
    lo: float
    hi: float
    p: float | None
    p_adj: float | None
    test: str | None
    significant: bool | None = None
    effect_size: float | None = None
    glass_delta: float | None = None
    q: float | None = None
    p_lo: float | None = None
    p_hi: float | None = None
    p_pm: float | None = None
    p_pm_adj: float | None = None

    OPTIONAL = (
        "p_lo", "p_hi", "significant", "effect_size", "glass_delta", "q", "p_pm", "p_pm_adj",
    )  # fmt: skip

    def as_dict(self) -> dict[str, object]:
        row: dict[str, object] = {
            "a": self.a,
            "b": self.b,
            "field": self.field,
            "diff": self.diff,
            "lo": self.lo,
            "hi": self.hi,
            "p": self.p,
            "p_adj": self.p_adj,
            "test": self.test,
        }
        row.update({k: getattr(self, k) for k in self.OPTIONAL if getattr(self, k) is not None})
        return row


COMPARED_FIELDS = ("mean", "var", "mse")

#: GeoRisk differences are tested by relabelling the whole decomposition, B
#: times per pair; beyond this many pairs that would dominate the run, so
#: their p-values are left out (the caller says so).
GEORISK_TEST_PAIRS = 300


@dataclass(frozen=True)
class Comparisons:
    """Every row of a comparison, and what the caller needs to say about it:
    the pairs a randomization test could not resolve against the corrected
    threshold (by field), and whether GeoRisk was tested."""

    rows: list[Comparison]
    unresolved: dict[str, list[tuple[str, str]]]
    georisk_tested: bool


def _alpha_labels(alphas: Sequence[str | float]) -> tuple[list[str], np.ndarray]:
    """Alphas as written (strings kept, numbers formatted with %g) and as floats."""
    labels = [a if isinstance(a, str) else format(float(a), "g") for a in alphas]
    return labels, np.array([float(a) for a in alphas], dtype=float)


def _pair_indices(
    systems: Sequence[str], pairs: Sequence[tuple[str, str]] | None
) -> tuple[np.ndarray, np.ndarray]:
    index = {s: i for i, s in enumerate(systems)}
    if len(index) != len(systems):
        raise ValueError("system names must be unique")
    if pairs is None:
        ia, ib = np.triu_indices(len(systems), k=1)
        return ia, ib
    rows = []
    for a, b in pairs:
        for name in (a, b):
            if name not in index:
                raise ValueError(f"run {name!r} is not among the runs compared")
        if a == b:
            raise ValueError(f"run {a!r} is compared with itself")
        rows.append((index[a], index[b]))
    if not rows:
        raise ValueError("no pair of runs to compare")
    ia, ib = (np.array(c, dtype=np.intp) for c in zip(*rows, strict=True))
    return ia, ib


def sign_flip_test(
    values: np.ndarray, *, correction: str, significance: float, B: int, seed: int
) -> RandomizationTest:
    """The no-floor randomization test of mean(values) = 0 per row, corrected
    over the rows: p estimated from B relabellings (exact where enumerated),
    decided by the interval the resolution narrows (drawing at least B where it draws)."""
    from .significance import default_max_resamples, randomization_test

    return randomization_test(
        values, levels=(significance,), correction=correction, seed=seed,
        max_resamples=max(B, default_max_resamples(len(values), significance)), draws=B,
    )  # fmt: skip


@dataclass(frozen=True)
class MeanTest:
    """The chosen test of the mean difference of pairs (ia, ib): p, p_adj,
    significant, and Tukey's q and simultaneous interval where it applies."""

    p: np.ndarray
    p_adj: np.ndarray
    significant: np.ndarray
    q: np.ndarray | None = None
    lo: np.ndarray | None = None
    hi: np.ndarray | None = None
    unresolved: tuple[int, ...] = ()
    p_lo: np.ndarray | None = None  # the randomization test's interval that settles p
    p_hi: np.ndarray | None = None


def _all_pairs_order(m: int, ia: np.ndarray, ib: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
    """Where each pair (ia, ib) sits among all pairs i < j, and +1/−1 for its orientation."""
    lo, hi = np.minimum(ia, ib), np.maximum(ia, ib)
    index = lo * m - lo * (lo + 1) // 2 + (hi - lo - 1)
    return index, np.where(ia < ib, 1.0, -1.0)


@dataclass(frozen=True)
class TestSpec:
    """What a test of mean differences is asked: the test (one of
    :data:`~bvtest_cli.defaults.TESTS`), the correction over the pairs, the
    levels its decisions are taken at (the first is the one of
    ``significant``), B (relabellings, permutations or resamples, as the
    test draws them), the seed, and the confidence level of Tukey's
    simultaneous intervals."""

    test: str = "randomization"
    correction: str = "holm"
    levels: tuple[float, ...] = (0.05,)
    B: int = 1000
    seed: int = 0
    ci: float = 0.95


def mean_test(x: np.ndarray, ia: np.ndarray, ib: np.ndarray, spec: TestSpec) -> MeanTest:
    """The test of a − b in mean over the topics for each pair (ia, ib) of rows
    of x (m, n), corrected over the pairs: the one dispatch of every --test
    (compare and sensitivity call it alike, so a test draws the same counts
    in both).

    Differences within the tie tolerance of the scores' scale
    (:data:`~.rankings.TIE_RTOL` · max(1, max |x|): 0.3 − (0.1 + 0.2)) are 0
    for every test: the sign test drops them as ties, Wilcoxon as zeros.
    ``significant`` is p_adj ≤ the first level, for every test."""
    from . import anova
    from . import significance as sig
    from .rankings import TIE_RTOL

    test, alpha, B, seed = spec.test, spec.levels[0], spec.B, spec.seed
    d = x[ia] - x[ib]
    d = np.where(np.abs(d) <= TIE_RTOL * max(1.0, float(np.abs(x).max(initial=0.0))), 0.0, d)
    if test in ("tukey", "randomised-tukey"):
        index, sign = _all_pairs_order(x.shape[0], ia, ib)
        if test == "tukey":
            t = anova.tukey_hsd(x, level=spec.ci)
            p = t.p[index]
            lo = np.where(sign > 0, t.lo[index], -t.hi[index])
            hi = np.where(sign > 0, t.hi[index], -t.lo[index])
            return MeanTest(p, p, p <= alpha, t.q[index], lo, hi)
        p = anova.randomised_tukey(x, B=B, seed=seed)[index]
        return MeanTest(p, p, p <= alpha)
    if test == "randomization":
        r = sig.randomization_test(
            d, levels=spec.levels, correction=spec.correction, seed=seed, draws=B,
            max_resamples=max(B, sig.default_max_resamples(len(d), min(spec.levels))),
        )  # fmt: skip
        return MeanTest(
            r.p, r.p_adjusted, r.significant[:, 0], unresolved=tuple(r.unresolved),
            p_lo=r.p_lower, p_hi=r.p_upper,
        )  # fmt: skip
    if test == "bootstrap":
        p = sig.bootstrap_test(d, B=B, seed=seed).p
    else:
        paired_tests: dict[str, Callable[[np.ndarray], Any]] = {
            "t": sig.t_test,
            "wilcoxon": sig.wilcoxon_test,
            "sign": lambda v: sig.sign_test(v, tol=0.0),  # ties made 0 above
        }
        p = paired_tests[test](d).p
    p_adj = adjust(p, spec.correction)
    return MeanTest(p, p_adj, p_adj <= alpha)


def zero_spread(spread: np.ndarray | float, x: np.ndarray) -> np.ndarray:
    """Whether a standard deviation of scores ``x`` is 0 in exact arithmetic:
    at most the tie tolerance of their scale (:func:`~.rankings.tie_tolerance`),
    where rounding noise (1e-17 for a run that scores 0.3 everywhere) lies."""
    from .rankings import TIE_RTOL

    scale = max(1.0, float(np.abs(x).max(initial=0.0)))
    return np.asarray(spread) <= TIE_RTOL * scale


def effect_sizes(
    x: np.ndarray, ia: np.ndarray, ib: np.ndarray, *, all_pairs: bool, baseline: int | None
) -> tuple[np.ndarray, np.ndarray | None]:
    """d/√V_E per pair [Sakai14] and, with a baseline row, Glass's Δ = d / sd(baseline).

    V_E is the residual mean square of the two-way ANOVA (systems × topics) of
    the runs compared: all of them for every pair (``all_pairs``), else each
    pair alone, V_E = s²(a − b)/2, so that a named pair's effect size does not
    depend on which other runs were read. A spread that is 0 in exact
    arithmetic (:func:`zero_spread`: an exactly additive matrix, a constant
    baseline) leaves the ratio undefined: NaN, not d/1e-17."""
    from . import anova

    m, n = x.shape
    d = x[ia].mean(axis=1) - x[ib].mean(axis=1)
    nan = np.full(len(ia), np.nan)
    if n < 2:
        return nan, (None if baseline is None else nan)
    if all_pairs:
        v_e = np.full(len(ia), float(anova.two_way(x).ms_residual) if m > 1 else np.nan)
    else:
        v_e = (x[ia] - x[ib]).var(axis=1, ddof=1) / 2
    sd_e = np.sqrt(np.maximum(v_e, 0.0))
    with np.errstate(divide="ignore", invalid="ignore"):
        effect = np.where(zero_spread(sd_e, x), np.nan, d / sd_e)
        glass = None
        if baseline is not None:
            sd_b = float(x[baseline].std(ddof=1))
            glass = nan if zero_spread(sd_b, x) else d / sd_b
    return effect, glass


@dataclass(frozen=True)
class CompareSpec:
    """What :func:`compare_runs` is asked beside the scores and the runs.

    ``alphas`` are GeoRisk's (labels kept as written); B and the seed are
    shared by the paired topic bootstrap and every test, each drawing from
    its own stream (:mod:`~bvtest_cli.analyses.streams`); ``level`` is the
    confidence level of the intervals (Tukey's simultaneous ones included)
    and ``method`` their method, one or one per field; ``block`` and
    ``budget`` bound the bootstrap's memory (elements); ``test`` is the test
    of the mean (one of :data:`~bvtest_cli.defaults.TESTS`), ``correction``
    the correction over the pairs and ``significance`` the level of the
    decisions; ``fields`` the compared fields (of mean, var, mse, georisk)."""

    alphas: Sequence[str | float] = ("0", "1", "5", "10")
    B: int = 1000
    seed: int = 0
    level: float = 0.95
    method: str | Mapping[str, str] = "percentile"
    block: int | None = None
    budget: int = REPLICATE_ELEMENTS
    test: str = "randomization"
    correction: str = "holm"
    significance: float = 0.05
    fields: Sequence[str] = ("mean", "var", "mse", "georisk")

    def mean_spec(self) -> TestSpec:
        """The test of the mean difference, as :func:`mean_test` takes it
        (compare decides at the one significance level)."""
        return TestSpec(
            self.test, self.correction, (self.significance,), self.B, self.seed, self.level
        )


@dataclass(frozen=True)
class _Compared:
    """The compared fields in row order: the plain ones asked for (mean, Var,
    MSE, in :data:`COMPARED_FIELDS` order), then GeoRisk at each alpha
    label, named ``georisk@<label>``."""

    plain: tuple[str, ...]
    georisk_labels: tuple[str, ...]

    @classmethod
    def of(cls, spec: CompareSpec) -> _Compared:
        labels, _ = _alpha_labels(spec.alphas)
        plain = tuple(f for f in COMPARED_FIELDS if f in spec.fields)
        return cls(plain, tuple(labels) if "georisk" in spec.fields else ())

    @property
    def georisk_names(self) -> list[str]:
        return [f"georisk@{label}" for label in self.georisk_labels]

    @property
    def names(self) -> list[str]:
        return [*self.plain, *self.georisk_names]

    def select(self, values: Mapping[str, np.ndarray]) -> list[np.ndarray]:
        """The compared fields' columns (..., m) of a statistic's values, in
        the order of :attr:`names`."""
        out = [values[f] for f in self.plain]
        if self.georisk_labels:
            out += [values["georisk"][..., j] for j in range(len(self.georisk_labels))]
        return out


def _paired_intervals(
    x: np.ndarray,
    ia: np.ndarray,
    ib: np.ndarray,
    statistic: Callable[..., dict[str, np.ndarray]],
    compared: _Compared,
    spec: CompareSpec,
) -> dict[str, Any]:
    """Every compared field's a − b with its paired topic-bootstrap interval:
    :func:`~.uncertainty.bootstrap_intervals` on the pairs' contrasts, so
    each resample draws the same topics for every run and the fields that
    depend on all runs (c, the GeoRisk expectations) are recomputed on the
    whole resample."""
    names = compared.names
    methods = [method_of(spec.method, name.split("@")[0]) for name in names]

    def columns(y: np.ndarray) -> dict[str, np.ndarray]:
        return dict(zip(names, compared.select(statistic(y)), strict=True))

    return bootstrap_intervals(
        x,
        contrasts(columns, ia, ib),
        B=spec.B,
        seed=spec.seed,
        level=spec.level,
        method=dict(zip(names, methods, strict=True)),
        block=spec.block,
        budget=spec.budget,
    )


#: A field's test of the pairs: (p, p_adj, the test used), None where untested.
FieldTest = tuple[np.ndarray | None, np.ndarray | None, str | None]


@dataclass(frozen=True)
class _Tested:
    """The compared fields' tests: by field, the p-values (:data:`FieldTest`);
    the randomization tests' [p_lo, p_hi] that settle a decision; the pairs
    they could not resolve (by field); and the test of the mean itself."""

    tests: dict[str, FieldTest]
    settled: dict[str, tuple[np.ndarray, np.ndarray]]
    unresolved: dict[str, list[tuple[str, str]]]
    mean: MeanTest


def _named_pairs(
    systems: Sequence[str], ia: np.ndarray, ib: np.ndarray, ks: Sequence[int]
) -> list[tuple[str, str]]:
    return [(systems[ia[k]], systems[ib[k]]) for k in ks]


def _linear_tests(
    x: np.ndarray,
    ia: np.ndarray,
    ib: np.ndarray,
    systems: Sequence[str],
    names: Sequence[str],
    spec: CompareSpec,
    c: float,
) -> _Tested:
    """The tests of the fields linear in the relabelling (module docstring):
    the chosen test of the mean (:func:`mean_test`), and the exact sign-flip
    randomization tests of Var and MSE on their per-topic values
    d_j (a_j + b_j − ā − b̄) and d_j (a_j + b_j − 2c)."""
    a, b = x[ia], x[ib]
    d = a - b
    unresolved: dict[str, list[tuple[str, str]]] = {}
    mean = mean_test(x, ia, ib, spec.mean_spec())
    if mean.unresolved and "mean" in names:
        unresolved["mean"] = _named_pairs(systems, ia, ib, mean.unresolved)
    tests: dict[str, FieldTest] = {"mean": (mean.p, mean.p_adj, spec.test)}
    settled: dict[str, tuple[np.ndarray, np.ndarray]] = {}
    if mean.p_lo is not None and mean.p_hi is not None:
        settled["mean"] = (mean.p_lo, mean.p_hi)
    centred = a + b - (a.mean(axis=1, keepdims=True) + b.mean(axis=1, keepdims=True))
    for name, values in (("var", d * centred), ("mse", d * (a + b - 2.0 * c))):
        if name not in names:
            continue
        r = sign_flip_test(
            values, correction=spec.correction, significance=spec.significance, B=spec.B,
            seed=spec.seed,
        )  # fmt: skip
        tests[name] = (r.p, r.p_adjusted, "randomization")
        settled[name] = (r.p_lower, r.p_upper)
        if len(r.unresolved):
            unresolved[name] = _named_pairs(systems, ia, ib, r.unresolved.tolist())
    return _Tested(tests, settled, unresolved, mean)


def _p_at(v: np.ndarray | None, k: int, defined: bool) -> float | None:
    """Pair k's p-value: None where the field is not tested, NaN where its
    difference is undefined."""
    return None if v is None else float(v[k]) if defined else float("nan")


@dataclass(frozen=True)
class _Rows:
    """What the rows of a comparison are made of: the pairs (ia, ib) of
    ``systems``, the fields' intervals and tests, the mean's effect sizes
    (d/√V_E [Sakai14], Glass's Δ) and Var's Pitman–Morgan p-values."""

    systems: Sequence[str]
    ia: np.ndarray
    ib: np.ndarray
    intervals: Mapping[str, Any]
    tested: _Tested
    effect: np.ndarray
    glass: np.ndarray | None
    p_pm: np.ndarray
    p_pm_adj: np.ndarray

    def row(self, k: int, name: str) -> Comparison:
        """Pair k's row of field ``name``."""
        iv = self.intervals[name]
        diff, lo, hi = float(iv.estimate[k]), float(iv.lo[k]), float(iv.hi[k])
        p, p_adj, used = self.tested.tests[name]
        defined = bool(np.isfinite(diff))
        mean = self.tested.mean
        if name == "mean" and mean.lo is not None and mean.hi is not None:
            lo, hi = float(mean.lo[k]), float(mean.hi[k])  # Tukey's simultaneous interval
        return Comparison(
            self.systems[self.ia[k]], self.systems[self.ib[k]], name, diff, lo, hi,
            _p_at(p, k, defined), _p_at(p_adj, k, defined), used,
            **self.extra(k, name, defined),  # type: ignore[arg-type]
        )  # fmt: skip

    def extra(self, k: int, name: str, defined: bool) -> dict[str, object]:
        """Pair k's optional keys of field ``name`` (:attr:`Comparison.OPTIONAL`)."""
        mean = self.tested.mean
        extra: dict[str, object] = {}
        if name == "mean":
            extra["significant"] = bool(mean.significant[k]) and defined
            extra["effect_size"] = float(self.effect[k])
            if self.glass is not None:
                extra["glass_delta"] = float(self.glass[k])
        if name in self.tested.settled and defined:
            extra["p_lo"], extra["p_hi"] = (float(v[k]) for v in self.tested.settled[name])
            if mean.q is not None:
                extra["q"] = float(mean.q[k])
        if name == "var":
            extra.update(p_pm=float(self.p_pm[k]), p_pm_adj=float(self.p_pm_adj[k]))
        return extra


def compare_runs(
    x: np.ndarray,
    systems: Sequence[str],
    pairs: Sequence[tuple[str, str]] | None = None,
    *,
    statistic: Callable[..., dict[str, np.ndarray]],  # (y, target_row=None)
    spec: CompareSpec,
    target_row: np.ndarray | None = None,
    c: float | None = None,
    baseline: int | None = None,
) -> Comparisons:
    """Paired comparisons of runs over the same topics (docs/compare.md).

    a − b in mean, var, mse and georisk@alpha, each with a paired
    topic-bootstrap interval and a p-value corrected over the pairs (per field
    and alpha) as the module docstring says, as ``spec`` asks
    (:class:`CompareSpec`); ``c`` is the target constant of
    MSE (default: the mean of ``target_row``). ``statistic``
    takes a ``target_row`` keyword (the virtual target, (n,)); ``target_row``
    defaults to the per-topic maximum of ``x``.

    ``x`` (m, n) is the whole score matrix: each resample draws the same topics
    for every run, and the fields that depend on all runs (c, the GeoRisk
    expectations) are recomputed on the whole resample by ``statistic``,
    which maps scores (..., m, n) to at least ``mean``, ``var``, ``mse``
    (..., m) and ``georisk`` (..., m, k) at the k ``alphas`` (the labels of
    its columns). ``pairs`` defaults to every pair (i < j) in the order of
    ``systems``. Rows come pair by pair, fields in the order above. With a
    ``baseline`` row the mean rows carry Glass's Δ.
    """
    x = np.asarray(x, dtype=float)
    if x.ndim != 2 or x.shape[0] != len(systems):
        raise ValueError(f"scores of shape {x.shape} do not match {len(systems)} systems")
    ia, ib = _pair_indices(systems, pairs)
    compared = _Compared.of(spec)
    names = compared.names
    if not names:
        raise ValueError("no field to compare")
    intervals = _paired_intervals(x, ia, ib, statistic, compared, spec)
    if target_row is None:
        target_row = virtual_target(x)
    if c is None:
        c = float(np.mean(target_row))
    tested = _linear_tests(x, ia, ib, systems, names, spec, c)
    georisk_tested = len(ia) <= GEORISK_TEST_PAIRS
    georisk_names = compared.georisk_names
    if georisk_tested and georisk_names:
        georisk_p = randomization_p(
            x, ia, ib,
            lambda y, t: compared.select(statistic(y, target_row=t))[len(compared.plain) :],
            target_row,
            [intervals[n].estimate for n in georisk_names],
            Relabellings(spec.B, spec.seed),
        )  # fmt: skip
        for name, p in zip(georisk_names, georisk_p, strict=True):
            tested.tests[name] = (p, adjust(p, spec.correction), "randomization")
    else:
        for name in georisk_names:
            tested.tests[name] = (None, None, None)
    effect, glass = effect_sizes(x, ia, ib, all_pairs=pairs is None, baseline=baseline)
    _, _, p_pm = pitman_morgan(x[ia], x[ib])
    table = _Rows(
        systems, ia, ib, intervals, tested, effect, glass, p_pm, adjust(p_pm, spec.correction)
    )
    rows = [table.row(k, name) for k in range(len(ia)) for name in names]
    return Comparisons(rows, tested.unresolved, georisk_tested)
