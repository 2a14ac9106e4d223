"""Agreement of two graders on the same items, and Krippendorff's α for any number.

An item is a (topic, document) pair; ``h`` (the human) and ``j`` (the judge,
e.g. an LLM) are equal-length 1-D arrays of integer grades on the same items,
``topics`` the topic id of each item (any hashable values in a numpy array).

- :func:`confusion`: counts and P(judge grade | human grade);
- :func:`cohen_kappa` (any labels, [Cohen60]), :func:`kappa_at` (relevance
  at a level L: both graders' grades binarised as grade ≥ L by
  :func:`binarise`), :func:`weighted_kappa` (linear or quadratic weights on
  the grade *values*, [Cohen68]);
- :func:`krippendorff_alpha`: nominal, ordinal and interval α of a coders ×
  units array with missing values [Krippendorff11];
- :func:`accuracy` (exact agreement), :func:`mean_difference` (judge − human),
  :func:`topic_kappa` (κ per topic and its min, median and max) and
  :func:`agreement` (all of them at once).

Edges, the same everywhere: an empty input or arrays of unequal length or a
non-finite grade raise ValueError; a κ or α whose expected disagreement is 0
(both graders give every item one and the same grade; a single value among
α's pairable values) is undefined and returned as NaN, never as 0 or 1.
Pure numpy, no I/O.
"""

from __future__ import annotations

from dataclasses import dataclass

import numpy as np

#: The weightings of :func:`weighted_kappa`: disagreement |a − b| or (a − b)².
WEIGHTS = ("linear", "quadratic")

#: The levels of measurement of :func:`krippendorff_alpha`.
LEVELS = ("nominal", "ordinal", "interval")


@dataclass(frozen=True)
class Confusion:
    """Cross-tabulation of two graders' grades.

    ``human`` (rows) and ``judge`` (columns) are the grades each grader gives
    at least once, sorted ascending; ``counts[r, c]`` the items the human
    graded ``human[r]`` and the judge ``judge[c]`` (int); ``p[r, c]`` =
    P(judge grade = judge[c] | human grade = human[r]), each row summing to 1.
    """

    human: np.ndarray
    judge: np.ndarray
    counts: np.ndarray
    p: np.ndarray


@dataclass(frozen=True)
class TopicKappa:
    """κ per topic and its summary over the topics where it is defined.

    ``topics`` (sorted unique ids) and ``kappa`` (NaN where undefined) are
    aligned; ``minimum``, ``median`` and ``maximum`` are taken over the
    ``defined`` topics (NaN when none is); ``skipped`` counts the topics
    where κ is undefined (zero expected disagreement).
    """

    topics: np.ndarray
    kappa: np.ndarray
    minimum: float
    median: float
    maximum: float
    defined: int
    skipped: int


@dataclass(frozen=True)
class Agreement:
    """Every summary of :func:`agreement` for one human–judge pair of gradings.

    ``kappa_at`` maps each relevance level L to Cohen's κ on grade ≥ L;
    ``alpha_ordinal`` / ``alpha_interval`` are Krippendorff's α of the two
    graders as two coders; ``per_topic`` is the unweighted κ per topic.
    """

    items: int
    accuracy: float
    mean_difference: float
    kappa: float
    kappa_linear: float
    kappa_quadratic: float
    kappa_at: dict[int, float]
    alpha_ordinal: float
    alpha_interval: float
    per_topic: TopicKappa


def _pair(h: np.ndarray, j: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
    """``h`` and ``j`` as 1-D float arrays, checked non-empty, aligned and finite."""
    h = np.asarray(h, dtype=float)
    j = np.asarray(j, dtype=float)
    if h.ndim != 1 or j.ndim != 1:
        raise ValueError("grades must be 1-D arrays")
    if h.size != j.size:
        raise ValueError(f"{h.size} human grades but {j.size} judge grades")
    if h.size == 0:
        raise ValueError("no items to compare")
    if not (np.isfinite(h).all() and np.isfinite(j).all()):
        raise ValueError("grades must be finite")
    return h, j


def _table(
    h: np.ndarray, j: np.ndarray, groups: np.ndarray | None = None
) -> tuple[np.ndarray, np.ndarray]:
    """Square counts over the union of both graders' labels (sorted), per group.

    Returns ``(labels, counts)``: counts of shape (L, L), or (G, L, L) with
    ``groups`` (integer codes 0..G−1 of each item), rows the human's label.
    """
    labels, codes = np.unique(np.concatenate([h, j]), return_inverse=True)
    size = labels.size
    cell = codes[: h.size] * size + codes[h.size :]
    if groups is None:
        return labels, np.bincount(cell, minlength=size * size).reshape(size, size)
    count = int(groups.max()) + 1
    flat = np.bincount(groups * size * size + cell, minlength=count * size * size)
    return labels, flat.reshape(count, size, size)


def _kappa(counts: np.ndarray, weights: np.ndarray) -> np.ndarray:
    """κ = 1 − Σ w·o / Σ w·e of (..., L, L) counts, NaN where Σ w·e = 0.

    o are the observed proportions, e = (row marginal) ⊗ (column marginal)
    the proportions expected by chance [Cohen68]; with w = 1 − I this is
    Cohen's (p_o − p_e)/(1 − p_e) [Cohen60].
    """
    total = counts.sum(axis=(-2, -1), keepdims=True).astype(float)
    observed = counts / total
    expected = observed.sum(axis=-1, keepdims=True) * observed.sum(axis=-2, keepdims=True)
    disagree = (weights * observed).sum(axis=(-2, -1))
    chance = (weights * expected).sum(axis=(-2, -1))
    # Zero chance disagreement (one grade for everything): 0/0, undefined.
    with np.errstate(divide="ignore", invalid="ignore"):
        kappa = 1.0 - disagree / chance
    return np.where(chance > 0, kappa, np.nan)


def _weights(labels: np.ndarray, weights: str | None) -> np.ndarray:
    """Disagreement weights on the label values: 1 − I, |a − b| or (a − b)²."""
    if weights is None:
        return 1.0 - np.eye(labels.size)
    if weights not in WEIGHTS:
        raise ValueError(f"weights must be one of {WEIGHTS}, not {weights!r}")
    gap = np.abs(labels[:, None] - labels[None, :])
    return gap if weights == "linear" else gap**2


def confusion(h: np.ndarray, j: np.ndarray) -> Confusion:
    """Counts and row proportions of the human's grades (rows) by the judge's (columns)."""
    h, j = _pair(h, j)
    human, rows = np.unique(h, return_inverse=True)
    judge, cols = np.unique(j, return_inverse=True)
    counts = np.bincount(rows * judge.size + cols, minlength=human.size * judge.size)
    counts = counts.reshape(human.size, judge.size)
    # Every row label occurs at least once, so no row sum is 0.
    p = counts / counts.sum(axis=1, keepdims=True)
    return Confusion(human=human, judge=judge, counts=counts, p=p)


def cohen_kappa(h: np.ndarray, j: np.ndarray) -> float:
    """Cohen's κ = (p_o − p_e)/(1 − p_e) on any labels [Cohen60].

    p_o is the proportion of items with the same label, p_e = Σ_k p_h(k)·p_j(k)
    the agreement expected from the two marginals. NaN when p_e = 1 (both
    graders give every item the same single label). If only one grader uses
    a single label, p_o = p_e and κ = 0 exactly.
    """
    h, j = _pair(h, j)
    labels, counts = _table(h, j)
    return float(_kappa(counts, _weights(labels, None)))


def binarise(grades: np.ndarray, level: float) -> np.ndarray:
    """Relevance at ``level``: 1 where grade ≥ level, else 0 (int array)."""
    return (np.asarray(grades) >= level).astype(int)


def kappa_at(h: np.ndarray, j: np.ndarray, level: float) -> float:
    """Cohen's κ [Cohen60] of relevant / not relevant, relevant meaning grade ≥ ``level``."""
    h, j = _pair(h, j)
    return cohen_kappa(binarise(h, level), binarise(j, level))


def weighted_kappa(h: np.ndarray, j: np.ndarray, weights: str = "linear") -> float:
    """Weighted κ_w = 1 − Σ w_ab o_ab / Σ w_ab e_ab [Cohen68].

    o_ab is the proportion of items the human graded a and the judge b,
    e_ab = p_h(a)·p_j(b), and the disagreement weight w_ab = |a − b|
    (``linear``) or (a − b)² (``quadratic``) on the grade *values*.
    scikit-learn's ``cohen_kappa_score(weights=...)`` weights label *indices*
    in the sorted union of labels instead; the two agree whenever that union
    is a run of consecutive integers (a common scale does not change κ_w),
    e.g. grades 0–3 with every grade used by one grader or the other.
    NaN when the expected disagreement is 0 (one grade for every item).
    """
    h, j = _pair(h, j)
    labels, counts = _table(h, j)
    return float(_kappa(counts, _weights(labels, weights)))


def accuracy(h: np.ndarray, j: np.ndarray) -> float:
    """Exact agreement: the proportion of items with the same grade."""
    h, j = _pair(h, j)
    return float(np.mean(h == j))


def mean_difference(h: np.ndarray, j: np.ndarray) -> float:
    """Mean of judge − human grades: > 0 when the judge grades more leniently."""
    h, j = _pair(h, j)
    return float(np.mean(j - h))


def topic_kappa(
    h: np.ndarray,
    j: np.ndarray,
    topics: np.ndarray,
    level: float | None = None,
    weights: str | None = None,
) -> TopicKappa:
    """κ of each topic's items, and its min, median and max over the topics.

    Unweighted Cohen's κ [Cohen60] by default; with ``level``, κ of grade ≥
    level; with ``weights``, the weighted κ of :func:`weighted_kappa`
    [Cohen68]. A topic whose κ is undefined (zero expected disagreement: both
    graders give all its items one grade) is NaN in ``kappa`` and counted in
    ``skipped``; a topic where only one grader uses one grade has κ = 0 and
    counts as defined.
    """
    h, j = _pair(h, j)
    topics = np.asarray(topics)
    if topics.shape != h.shape:
        raise ValueError(f"{topics.size} topic ids for {h.size} items")
    if level is not None:
        h, j = binarise(h, level).astype(float), binarise(j, level).astype(float)
    ids, groups = np.unique(topics, return_inverse=True)
    labels, counts = _table(h, j, groups.ravel())
    kappa = _kappa(counts, _weights(labels, weights))
    defined = kappa[np.isfinite(kappa)]
    if defined.size:
        low, mid, high = float(defined.min()), float(np.median(defined)), float(defined.max())
    else:
        low = mid = high = float("nan")
    return TopicKappa(
        topics=ids,
        kappa=kappa,
        minimum=low,
        median=mid,
        maximum=high,
        defined=int(defined.size),
        skipped=int(kappa.size - defined.size),
    )


def _coincidences(data: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
    """Values and coincidence matrix o_ck of a coders × units array [Krippendorff11].

    o_ck = Σ_u (number of c–k pairs of values in unit u)/(m_u − 1), over the
    units with m_u ≥ 2 values (the pairable ones); the values of units coded
    once count nowhere.
    """
    values = np.unique(data[~np.isnan(data)])
    present = ~np.isnan(data)
    codes = np.searchsorted(values, np.where(present, data, values[0]))
    units = np.broadcast_to(np.arange(data.shape[1]), data.shape)
    per_unit = np.bincount(
        (units * values.size + codes)[present], minlength=data.shape[1] * values.size
    ).reshape(data.shape[1], values.size)
    m = per_unit.sum(axis=1)
    kept = per_unit[m >= 2].astype(float)
    pairs = kept[:, :, None] * kept[:, None, :]
    # A value is not paired with itself: n_uc·n_uk pairs off the diagonal,
    # n_uc·(n_uc − 1) on it.
    pairs -= kept[:, :, None] * np.eye(values.size)
    return values, (pairs / (m[m >= 2] - 1.0)[:, None, None]).sum(axis=0)


def krippendorff_alpha(data: np.ndarray, level: str = "nominal") -> float:
    """Krippendorff's α = 1 − D_o/D_e of a coders × units array [Krippendorff11].

    ``data[i, u]`` is coder i's value for unit u, NaN where missing. From the
    coincidence matrix o_ck (see :func:`_coincidences`), n_c = Σ_k o_ck and
    n = Σ_c n_c:

        α = 1 − (n − 1)·Σ_ck o_ck δ²_ck / Σ_ck n_c n_k δ²_ck,

    with δ²_ck = [c ≠ k] (``nominal``), (c − k)² (``interval``) or, for
    ``ordinal``, (Σ_{g=c}^{k} n_g − (n_c + n_k)/2)², the ranks given by the
    marginal frequencies of the values between c and k (Krippendorff 2011,
    section E). Any number of coders; units with fewer than two values are
    left out. NaN when α is undefined: no pairable unit, or a single value
    among the pairable ones (D_e = 0). ValueError on an empty array.
    """
    if level not in LEVELS:
        raise ValueError(f"level must be one of {LEVELS}, not {level!r}")
    data = np.asarray(data, dtype=float)
    if data.ndim != 2:
        raise ValueError("reliability data must be a coders × units array")
    if data.size == 0 or np.isnan(data).all():
        raise ValueError("no values to compare")
    if np.isinf(data).any():
        raise ValueError("values must be finite or NaN (missing)")
    values, o = _coincidences(data)
    n_c = o.sum(axis=1)
    n = n_c.sum()
    if level == "nominal":
        delta = 1.0 - np.eye(values.size)
    elif level == "interval":
        delta = (values[:, None] - values[None, :]) ** 2
    else:
        # Σ_{g=c}^{k} n_g for c ≤ k from the cumulative sums; symmetric.
        cum = np.concatenate([[0.0], np.cumsum(n_c)])
        low = np.minimum.outer(np.arange(values.size), np.arange(values.size))
        high = np.maximum.outer(np.arange(values.size), np.arange(values.size))
        between = cum[high + 1] - cum[low]
        delta = (between - (n_c[:, None] + n_c[None, :]) / 2.0) ** 2
    expected = (np.outer(n_c, n_c) * delta).sum()
    if n == 0 or expected == 0:
        return float("nan")
    return float(1.0 - (n - 1.0) * (o * delta).sum() / expected)


def agreement(
    h: np.ndarray,
    j: np.ndarray,
    topics: np.ndarray,
    levels: tuple[int, ...] = (1, 2),
    topic_level: float | None = None,
) -> Agreement:
    """Every summary of this module for one human (``h``) and judge (``j``) grading.

    ``levels`` are the relevance levels L of :func:`kappa_at`; ``topic_level``
    that of the per-topic κ (None: κ on the grades). α treats the two graders
    as two coders of each item with no missing values.
    """
    h, j = _pair(h, j)
    both = np.vstack([h, j])
    return Agreement(
        items=int(h.size),
        accuracy=accuracy(h, j),
        mean_difference=mean_difference(h, j),
        kappa=cohen_kappa(h, j),
        kappa_linear=weighted_kappa(h, j, "linear"),
        kappa_quadratic=weighted_kappa(h, j, "quadratic"),
        kappa_at={level: kappa_at(h, j, level) for level in levels},
        alpha_ordinal=krippendorff_alpha(both, "ordinal"),
        alpha_interval=krippendorff_alpha(both, "interval"),
        per_topic=topic_kappa(h, j, topics, level=topic_level),
    )
