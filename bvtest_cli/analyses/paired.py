"""Paired tests of two runs over the same topics (``bvtest compare``).

For each pair: the difference of every compared field (mean, Var, MSE,
GeoRisk at each α) with a paired topic-bootstrap interval, a two-sided
paired randomization (sign-flip) p-value, Pitman–Morgan's test of equal
variances for paired samples (Pitman 1939, Morgan 1939), and Holm's
adjustment over the pairs (Holm 1979).
The resampling and interval machinery is :mod:`bvtest_cli.analyses.uncertainty`'s.
Pure numpy (scipy.special only), no I/O.
"""

from __future__ import annotations

from collections.abc import Callable, Mapping, Sequence
from dataclasses import dataclass

import numpy as np

from ..measures.matrix import virtual_target
from .significance import adjust
from .tradeoff import constant
from .uncertainty import (
    BLOCK_ELEMENTS,
    REPLICATE_ELEMENTS,
    Statistic,
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


#: The seed-sequence key of the randomization test's flips: a stream of its own,
#: apart from the bootstrap's resamples (which ``seed`` alone keys).
FLIP_STREAM = 1


def flips(n: int, B: int, seed: int) -> np.ndarray:
    """(B, n) booleans: which topics swap the two runs in each of the B
    random relabellings (each topic independently with probability ½)."""
    rng = np.random.default_rng(np.random.SeedSequence(seed, spawn_key=(FLIP_STREAM,)))
    return rng.random((B, n)) < 0.5


def randomization_p(
    x: np.ndarray,
    ia: np.ndarray,
    ib: np.ndarray,
    fields: Callable[[np.ndarray, np.ndarray], list[np.ndarray]],
    target_row: np.ndarray,
    observed: Sequence[np.ndarray],
    *,
    B: int,
    seed: int,
    block: int = BLOCK_ELEMENTS,
) -> list[np.ndarray]:
    """Two-sided paired randomization p-values, one array (pairs,) per field.

    The test of Fisher (1935) as IR uses it (Smucker, Allan & Carterette
    2007): under H0 the two runs are exchangeable on every topic, so swapping
    their scores on any set of topics leaves the distribution of the data
    unchanged. Each of B relabellings (:func:`flips`, seeded) swaps runs a and
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
    swap = flips(n, B, seed)
    total = x.sum(axis=0)
    rows = max(2, block // max(1, n))  # rows of one evaluated matrix
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
    interval, ``p`` the bootstrap p-value and ``p_holm`` its Holm adjustment
    over the pairs compared. Rows of ``var`` also carry the Pitman–Morgan
    test (``test = "pitman-morgan"``, ``p_pm`` and its Holm adjustment
    ``p_pm_holm``); on other rows these are None.
    """

    a: str
    b: str
    field: str
    diff: float
    lo: float
    hi: float
    p: float
    p_holm: float
    test: str | None = None
    p_pm: float | None = None
    p_pm_holm: float | None = None

    def as_dict(self) -> dict[str, object]:
        row: dict[str, object] = {
            "a": self.a,
            "b": self.b,
            "field": self.field,
            "diff": self.diff,
            "lo": self.lo,
            "hi": self.hi,
            "p": self.p,
            "p_holm": self.p_holm,
        }
        if self.test is not None:
            row.update(test=self.test, p_pm=self.p_pm, p_pm_holm=self.p_pm_holm)
        return row


COMPARED_FIELDS = ("mean", "var", "mse")


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


def compare_runs(
    x: np.ndarray,
    systems: Sequence[str],
    pairs: Sequence[tuple[str, str]] | None = None,
    *,
    statistic: Statistic,
    alphas: Sequence[str | float] = ("0", "1", "5", "10"),
    B: int = 1000,
    seed: int = 0,
    level: float = 0.95,
    method: str | Mapping[str, str] = "percentile",
    block: int | None = None,
    budget: int = REPLICATE_ELEMENTS,
    target_row: np.ndarray | None = None,
) -> list[Comparison]:
    """Paired comparisons of runs over the same topics (SPEC §11b): a − b in mean,
    var, mse and georisk@alpha, each with a paired topic-bootstrap interval,
    a paired randomization p-value (:func:`randomization_p`, B relabellings
    seeded by ``seed``) and its Holm adjustment (Holm 1979, family = the
    pairs, per field and alpha); var rows add the Pitman–Morgan test (Pitman
    1939; Morgan 1939) on the per-topic scores. ``statistic`` takes a
    ``target_row`` keyword (the virtual target, (n,)); ``target_row``
    defaults to the per-topic maximum of ``x``.

    ``x`` (m, n) is the whole score matrix: each resample draws the same topics
    for every run, and the fields that depend on all runs (c, the GeoRisk
    expectations) are recomputed on the whole resample by ``statistic``,
    which maps scores (..., m, n) to at least ``mean``, ``var``, ``mse``
    (..., m) and ``georisk`` (..., m, k) at the k ``alphas`` (the labels of
    its columns). ``pairs`` defaults to every pair (i < j) in the order of
    ``systems``. Rows come pair by pair, fields in the order above. The
    fields' replicates are kept while they fit ``budget`` elements; beyond,
    the differences are streamed (:func:`streamed_intervals`), with the same
    results bit for bit.
    """
    x = np.asarray(x, dtype=float)
    if x.ndim != 2 or x.shape[0] != len(systems):
        raise ValueError(f"scores of shape {x.shape} do not match {len(systems)} systems")
    ia, ib = _pair_indices(systems, pairs)
    labels, _ = _alpha_labels(alphas)
    names = [*COMPARED_FIELDS, *(f"georisk@{label}" for label in labels)]
    methods = [method_of(method, name.split("@")[0]) for name in names]

    def compared(values: Mapping[str, np.ndarray]) -> list[np.ndarray]:
        """The compared fields' columns (..., m), in the order of ``names``."""
        georisk = values["georisk"]
        return [values[f] for f in COMPARED_FIELDS] + [georisk[..., j] for j in range(len(labels))]

    def columns(y: np.ndarray) -> dict[str, np.ndarray]:
        return dict(zip(names, compared(statistic(y)), strict=True))

    intervals = bootstrap_intervals(
        x,
        contrasts(columns, ia, ib),
        B=B,
        seed=seed,
        level=level,
        method=dict(zip(names, methods, strict=True)),
        block=block,
        budget=budget,
    )
    diffs = [intervals[name].estimate for name in names]
    ends = [(intervals[name].lo, intervals[name].hi) for name in names]
    n_pairs = len(ia)
    if target_row is None:
        target_row = virtual_target(x)
    tests = randomization_p(
        x,
        ia,
        ib,
        lambda y, t: compared(statistic(y, target_row=t)),
        target_row,
        diffs,
        B=B,
        seed=seed,
    )
    with_p = [(lo, hi, p) for (lo, hi), p in zip(ends, tests, strict=True)]
    results: dict[str, tuple[np.ndarray, ...]] = {}
    for name, diff, (lo, hi, p) in zip(names, diffs, with_p, strict=True):
        lo, hi, p = (np.where(np.isfinite(diff), v, np.nan) for v in (lo, hi, p))
        results[name] = (diff, lo, hi, p, holm(p))

    _, _, p_pm = pitman_morgan(x[ia], x[ib])
    p_pm_holm = holm(p_pm)
    rows: list[Comparison] = []
    for k in range(n_pairs):
        a, b = systems[ia[k]], systems[ib[k]]
        for name, (diff, lo, hi, p, ph) in results.items():
            extra = {}
            if name == "var":
                extra = {
                    "test": "pitman-morgan",
                    "p_pm": float(p_pm[k]),
                    "p_pm_holm": float(p_pm_holm[k]),
                }
            rows.append(
                Comparison(
                    a,
                    b,
                    name,
                    float(diff[k]),
                    float(lo[k]),
                    float(hi[k]),
                    float(p[k]),
                    float(ph[k]),
                    **extra,
                )
            )
    return rows
