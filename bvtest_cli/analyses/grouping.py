"""Topic grouping and score normalization (docs/numbers.md; Zhang22 §3.3, §5.3.2; Zhang14 §2.2).

Pure numpy: no I/O, no printing. The CLI calls :func:`analyse` once per
measure and :func:`normalized_topics` for the risk measures (docs/numbers.md), and
prints the returned ``notes`` on stderr.

Pipeline of :func:`analyse` (docs/numbers.md):

1. ``minmax`` normalization (Zhang22 eq. 11), per topic and before any
   grouping: x'[i,j] = (x[i,j] − min_i x[i,j]) / (max_i x[i,j] − min_i x[i,j]).
   Topics with max == min are dropped; the target becomes 1 on every topic.
2. Grouping into samples. ``difficulty:K`` sorts the topics by their *raw*
   virtual-target score x_T[j] ascending (hardest first, ties broken by topic
   id compared as strings) and cuts consecutive groups of K; ``random:K``
   shuffles the topics R times with a seeded generator and cuts groups of K.
   In both the remainder is one smaller last group. x[i,g] is the mean of
   system i over the topics of group g and target[g] is the mean of x_T over
   them (the virtual target's group MAP, Zhang14 eq. 4).
3. ``ratio`` normalization (Zhang14 §2.2.2, MAP^c = MAP(f, Q_S) / MAP(f_T, Q_S)),
   per sample after grouping (per topic without grouping): x[i,g] / target[g],
   so the target becomes 1. Samples whose target is 0 are dropped.
4. Every docs/numbers.md field over the samples (:func:`bvtest_cli.analyses.decompose.decompose`)
   with c = mean_g target[g] for ``--target max`` (c = 1 with either
   normalization), c = 1 for ``ideal``, or an explicit constant.
   For ``random:K`` the fields are computed per repeat and averaged over the
   repeats (:meth:`BiasVariance.average`), so the identities
   MSE = Bias² + Var and Var(ρ) = Var(x_T) + Var(x_i) − 2 Cov still hold.

Decision — ``ratio`` with ``random:K``: a group's target can be 0 (every
system scores 0 on all its topics), and how many groups are dropped depends on
the repeat. Each repeat is then analysed over its own kept groups only, via
masked (weighted) population moments: weight 1/G_r on each of the G_r kept
samples of repeat r, 0 on dropped ones. This is exactly what a per-repeat
loop over the kept samples computes, but stays vectorized over repeats. The
per-repeat fields are then averaged with equal weight per repeat; a repeat in
which every sample was dropped has no fields and is left out of the average
(with a note). When no sample is dropped in any repeat (the usual case) the
plain :func:`decompose` needs no mask. ``n_groups`` for random grouping is the
number of groups formed per repeat, ``ceil(n / K)``; the drops are reported
in ``notes``.

Random stream: ``numpy.random.default_rng(seed).random((R, n))`` and a stable
argsort along each row gives the R permutations; it depends only on
(seed, n, R) — not on the scores, the measure or K — so that equal seeds give
identical output.
"""

from __future__ import annotations

from collections.abc import Callable, Iterator
from dataclasses import dataclass, field
from typing import Any

import numpy as np

from ..analyses.decompose import BiasVariance, decompose
from ..analyses.tradeoff import correlations
from ..defaults import DEFAULT_REPEATS, DEFAULT_SEED
from ..measures.matrix import ScoreMatrix, quiet, target_constant, virtual_target

NORMALIZATIONS = ("none", "minmax", "ratio")
GROUP_KINDS = ("difficulty", "random")

# Upper bound on the number of float64 elements of one (B, n, G) weight block,
# (B, n, m) gathered block or (B, m, G) group-mean block in random grouping;
# repeats are processed in blocks of B to bound memory.
_BLOCK_ELEMENTS = 1 << 22

# Group means use a one-hot product up to this many groups per repeat (cost ∝ G),
# and a gather + reduceat above it (cost independent of G).
_MATMUL_MAX_GROUPS = 32


@dataclass(frozen=True)
class Analysis:
    """Result of :func:`analyse` for one measure (docs/numbers.md).

    ``fields`` holds the statistic's per-system arrays of shape (m,), in the
    order of ``systems`` (for ``random:K`` each is the mean over the repeats). ``c`` is the
    constant Bias² is measured against (the mean over repeats for
    ``random:K``). ``n_topics`` counts the topics used after any drops;
    ``n_groups`` is None without grouping, the number of groups used for
    ``difficulty:K`` and the number of groups per repeat for ``random:K``.
    ``notes`` are one-line human messages for stderr. ``per_topic`` is the
    per-topic matrix after normalization (minmax, or ratio per topic), which
    the risk measures use: they honour normalization but not grouping (docs/numbers.md).
    """

    measure: str
    systems: tuple[str, ...]
    fields: dict[str, np.ndarray]
    c: float
    n_topics: int
    n_groups: int | None
    group: str | None
    normalize: str
    per_topic: ScoreMatrix  # the per-topic matrix after normalization (docs/numbers.md)
    notes: list[str] = field(default_factory=list)
    # random:K only: the tradeoff correlations of each used repeat, name → (R,)
    repeat_correlations: dict[str, np.ndarray] | None = None

    @property
    def bv(self) -> BiasVariance:
        """The docs/numbers.md fields (with the default statistic)."""
        return BiasVariance(*(self.fields[f] for f in BiasVariance.FIELDS))


Statistic = Callable[..., dict[str, np.ndarray]]
"""Per-sample fields: ``statistic(x, target, c, keep)`` with x (..., m, G),
target (..., G), c (...,) and an optional keep mask (..., G) → name → (..., m)."""


def bias_variance(
    x: np.ndarray,
    target: np.ndarray,
    c: np.ndarray | float,
    keep: np.ndarray | None = None,
    ddof: int = 0,
) -> dict[str, np.ndarray]:
    """The default statistic: every docs/numbers.md field of :func:`decompose`
    (``ddof`` 1: sample variances, bind it with functools.partial)."""
    bv = decompose(x, target, c, keep, ddof=ddof)
    return {f: getattr(bv, f) for f in BiasVariance.FIELDS}


# --------------------------------------------------------------------------- parsing


def parse_group(group: str | None) -> tuple[str, int] | None:
    """Parse ``--group``: None (or "none") → None; "difficulty:K" / "random:K" → (kind, K).

    Raises ValueError with a one-line message unless K is a positive integer.
    """
    if group is None:
        return None
    text = group.strip()
    if text.lower() == "none":
        return None
    kind, sep, size = text.partition(":")
    kind = kind.strip().lower()
    size = size.strip()
    if not sep or kind not in GROUP_KINDS:
        raise ValueError(
            f"invalid group {group!r}: expected difficulty:K or random:K (K a positive integer)"
        )
    if not (size.isascii() and size.isdigit()) or int(size) < 1:
        raise ValueError(f"invalid group {group!r}: K must be a positive integer, got {size!r}")
    return kind, int(size)


def _constant(target: np.ndarray, spec: str | float, normalized: bool) -> np.ndarray | float:
    """c for docs/numbers.md: with minmax or ratio, 'max' and 'ideal' both mean c = 1."""
    if normalized and spec in ("max", "ideal"):
        return 1.0
    return target_constant(target, spec)


# --------------------------------------------------------------------------- normalization


@quiet
def minmax_normalize(values: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
    """Per-topic max–min normalization (Zhang22 eq. 11, docs/numbers.md).

    ``values`` has shape (m, n). Returns ``(normalized, keep)``: ``keep`` is the
    boolean (n,) mask of topics with max_i x[i,j] != min_i x[i,j], and
    ``normalized`` (m, keep.sum()) holds (x − min) / (max − min) on those topics,
    so the virtual target is exactly 1 on every kept topic.
    """
    values = np.asarray(values, dtype=float)
    hi = values.max(axis=0)
    lo = values.min(axis=0)
    keep = hi != lo
    kept = values[:, keep]
    return (kept - lo[keep]) / (hi[keep] - lo[keep]), keep


@quiet
def ratio_normalize(x: np.ndarray, target: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
    """Ratio normalization x[..., i, g] / target[..., g] (Zhang14 §2.2.2, docs/numbers.md).

    ``x`` has shape (..., m, G) and ``target`` (..., G). Returns
    ``(normalized, keep)`` with ``keep = target != 0`` of shape (..., G);
    dropped samples (target 0) are set to 0 in ``normalized`` so that they
    stay finite — callers must honour ``keep``. The normalized target is 1 on
    every kept sample.
    """
    x = np.asarray(x, dtype=float)
    target = np.asarray(target, dtype=float)
    keep = target != 0
    safe = np.where(keep, target, 1.0)
    normalized = np.where(keep[..., np.newaxis, :], x / safe[..., np.newaxis, :], 0.0)
    return normalized, keep


@quiet
def normalized_topics(m: ScoreMatrix, normalize: str) -> tuple[ScoreMatrix, list[str]]:
    """The per-topic matrix after normalization, for the risk measures (docs/numbers.md).

    "none": unchanged; "minmax": Zhang22 eq. 11 with tied topics dropped;
    "ratio": x[i,j] / x_T[j] per topic with zero-target topics dropped.
    Returns the matrix and the stderr notes about dropped topics.
    """
    notes: list[str] = []
    if normalize == "none":
        return m, notes
    if normalize == "minmax":
        values, keep = minmax_normalize(m.values)
        reason = "minmax normalization (max == min)"
    else:
        values, keep = ratio_normalize(m.values, virtual_target(m.values))
        values = values[:, keep]
        reason = "ratio normalization (target 0)"
    dropped = int((~keep).sum())
    if dropped:
        notes.append(f"{m.measure}: {dropped} {_plural(dropped, 'topic')} dropped by {reason}")
    topics = tuple(t for t, k in zip(m.topics, keep, strict=True) if k)
    return ScoreMatrix(m.measure, m.systems, topics, values), notes


# --------------------------------------------------------------------------- partitions


def difficulty_order(target: np.ndarray, topics: tuple[str, ...] | list[str]) -> np.ndarray:
    """Topic order for ``difficulty:K`` (docs/numbers.md, Zhang22 §5.3.2, Zhang14 §3.2.2).

    Indices of the topics sorted by raw x_T[j] ascending (hardest first),
    ties broken by topic id compared as strings.
    """
    target = np.asarray(target, dtype=float)
    keys = [str(t) for t in topics]
    return np.array(sorted(range(len(keys)), key=lambda j: (target[j], keys[j])), dtype=np.intp)


def random_orders(n: int, repeats: int, seed: int) -> np.ndarray:
    """R random topic permutations, shape (repeats, n), for ``random:K`` (docs/numbers.md).

    Row r is the stable argsort of ``default_rng(seed).random((repeats, n))[r]``:
    the stream depends only on (seed, n, repeats). All R rows at once: for
    large R use :func:`random_order_blocks`, which yields the same rows.
    """
    return next(random_order_blocks(n, repeats, seed, max(1, repeats)))


def random_order_blocks(n: int, repeats: int, seed: int, block: int) -> Iterator[np.ndarray]:
    """The rows of :func:`random_orders` in consecutive blocks of ``block`` rows.

    ``Generator.random((R, n))`` fills its rows in order from one stream, so
    drawing (b, n) blocks one after another from the same generator gives
    exactly the same numbers, and the same permutations, in O(block × n)
    memory whatever R.
    """
    rng = np.random.default_rng(seed)
    for lo in range(0, repeats, block):
        keys = rng.random((min(block, repeats - lo), n))
        yield np.argsort(keys, axis=1, kind="stable")


def group_sizes(n: int, k: int) -> np.ndarray:
    """Sizes of consecutive groups of k over n topics; the remainder is a smaller last group."""
    starts = np.arange(0, n, k)
    return np.minimum(starts + k, n) - starts


@quiet
def group_means(
    values: np.ndarray, target: np.ndarray, orders: np.ndarray, k: int
) -> tuple[np.ndarray, np.ndarray]:
    """Group means of the systems and of the target for one or many topic orders.

    ``values`` (m, n), ``target`` (n,), ``orders`` (R, n) permutations of
    range(n). Group g of order r is ``orders[r, g*k:(g+1)*k]``. Returns
    ``x`` of shape (R, m, G) with x[r, i, g] = mean of system i over group g
    and ``t`` of shape (R, G) with the mean of the target over the group
    (docs/numbers.md: the virtual target's group MAP).
    """
    values = np.asarray(values, dtype=float)
    target = np.asarray(target, dtype=float)
    orders = np.atleast_2d(orders)
    t = _group_target(target, orders, k)
    # Equal rows must give equal group means, and a run equal to the target
    # must give the target's own group means, exactly: otherwise copies of a
    # run get Bias², Var(ρ) of 1e-33 instead of 0 and untied Spearman ranks.
    # The product below does not promise that (it rounds row by row in its
    # own way), so each distinct row is averaged once and shared.
    distinct, inverse = _distinct_rows(values)
    x = _row_group_means(distinct, orders, k)
    if inverse is not None:
        x = x[:, inverse, :]
    equals_target = np.all(values == target, axis=1)
    if equals_target.any():
        x[:, equals_target, :] = t[:, np.newaxis, :]
    return x, t


def _distinct_rows(values: np.ndarray) -> tuple[np.ndarray, np.ndarray | None]:
    """The distinct rows of ``values`` in order of first appearance and, when
    some row repeats, the index of each row among them (None: all distinct,
    and the first array is ``values`` itself)."""
    first: dict[bytes, int] = {}
    index = np.array([first.setdefault(row.tobytes(), len(first)) for row in values], np.intp)
    if len(first) == len(values):
        return values, None
    _, first_rows = np.unique(index, return_index=True)  # index d first appears at row …
    return values[first_rows], index


def _row_group_means(values: np.ndarray, orders: np.ndarray, k: int) -> np.ndarray:
    """(R, m, G) group means of every row of ``values`` (m, n) for every order."""
    repeats, n = orders.shape
    sizes = group_sizes(n, k)
    if len(sizes) <= _MATMUL_MAX_GROUPS:
        # One-hot weights W[r, g, j] = 1/|g| when topic j is in group g of order r:
        # the group means of every order are one product (m, n) × (R, G, n) over n.
        # An einsum without ``optimize`` sums in numpy's own fixed order, so the
        # means do not depend on the BLAS kernel the CPU selects, as a matmul's do.
        group_of_position = np.arange(n) // k
        inverse_size = 1.0 / sizes
        weights = np.zeros((repeats, len(sizes), n))
        weights[np.arange(repeats)[:, np.newaxis], group_of_position, orders] = inverse_size[
            group_of_position
        ]
        values = np.ascontiguousarray(values)  # the summed axis innermost, as in weights
        x = np.ascontiguousarray(np.einsum("mn,rgn->rmg", values, weights))
    else:
        # Many small groups: gather the permuted topics (R, n, m) and sum runs of k.
        gathered = np.ascontiguousarray(values.T)[orders]
        sums = np.add.reduceat(gathered, np.arange(0, n, k), axis=1) / sizes[:, np.newaxis]
        x = np.ascontiguousarray(np.swapaxes(sums, 1, 2))
    return x


def _group_target(target: np.ndarray, orders: np.ndarray, k: int) -> np.ndarray:
    """(R, G) means of the per-topic target over the groups of each order."""
    n = orders.shape[-1]
    starts = np.arange(0, n, k)
    return np.add.reduceat(target[orders], starts, axis=-1) / group_sizes(n, k)


@quiet
def grouped_fields(
    values: np.ndarray,
    target: np.ndarray,
    orders: np.ndarray,
    k: int,
    *,
    normalize: str,
    target_spec: str | float,
    statistic: Statistic = bias_variance,
) -> tuple[dict[str, np.ndarray], np.ndarray, np.ndarray]:
    """Per-order docs/numbers.md fields after grouping (docs/numbers.md), vectorized over orders.

    ``values`` (m, n) are the (possibly minmax-normalized) per-topic scores,
    ``target`` (n,) their per-topic target, ``orders`` (R, n) topic orders.
    With ``normalize == "ratio"`` each sample is divided by its group target
    and zero-target samples are dropped (masked moments, see the module
    docstring). Returns ``(fields, c, keep)``: the statistic's fields, each of
    shape (R, m), c of shape
    (R,), keep of shape (R, G). Repeats are processed in blocks to bound
    memory; the result does not depend on the block size.
    """
    values = np.asarray(values, dtype=float)
    target = np.asarray(target, dtype=float)
    orders = np.atleast_2d(orders)
    repeats, n = orders.shape
    m = values.shape[0]
    normalized = normalize != "none"
    ratio = normalize == "ratio"
    # The group targets of all repeats are cheap (R, G): decide the path once.
    t_all = _group_target(target, orders, k)
    keep_all = t_all != 0 if ratio else np.ones(t_all.shape, dtype=bool)
    masked = not bool(keep_all.all())
    block = _repeat_block(m, n, k)
    parts: list[dict[str, np.ndarray]] = []
    cs: list[np.ndarray] = []
    for lo in range(0, repeats, block):
        x, t = group_means(values, target, orders[lo : lo + block], k)
        keep = keep_all[lo : lo + block]
        if ratio:
            x, keep = ratio_normalize(x, t)
            t = keep.astype(float)  # the normalized target: 1 on kept samples
        c = np.broadcast_to(np.asarray(_constant(t, target_spec, normalized), float), t.shape[:1])
        parts.append(statistic(x, t, c, keep if masked else None))
        cs.append(np.array(c, dtype=float))
    fields = {f: np.concatenate([p[f] for p in parts]) for f in parts[0]}
    return fields, np.concatenate(cs), keep_all


def _repeat_block(m: int, n: int, k: int) -> int:
    """Repeats per block, so that no (B, n, G) weight, (B, n, m) gathered or
    (B, m, G) group-mean array exceeds _BLOCK_ELEMENTS elements."""
    n_groups = len(group_sizes(n, k))
    per_repeat = n * n_groups if n_groups <= _MATMUL_MAX_GROUPS else n * m
    return max(1, _BLOCK_ELEMENTS // max(1, m * n_groups, per_repeat, n))


@dataclass(frozen=True)
class RepeatAverage:
    """``random:K`` over R repeats (docs/numbers.md): the fields averaged over the
    repeats that kept a sample, and what ratio normalization dropped."""

    fields: dict[str, np.ndarray]  # each (m,), the mean over the ``used`` repeats
    c: float  # the mean of c over those repeats
    used: int  # repeats with at least one kept sample
    repeats: int  # R
    dropped: int  # samples dropped (target 0) over all repeats
    samples: int  # R × G samples formed
    # Pearson and Spearman of Bias² and Var in each used repeat, (used,) each;
    # empty when the statistic has no bias2 and var
    correlations: dict[str, np.ndarray] = field(default_factory=dict)


def _folded(sums: list[np.ndarray] | None, parts: list[np.ndarray]) -> list[np.ndarray]:
    """Running sums over the repeats with one block's per-repeat values (b, ...)
    folded in: ``add.reduce([running sum, block...])``, the row-after-row
    sum numpy computes along the first axis of an (R, m) array, so that the
    mean of :func:`random_fields` equals the one over all repeats held at
    once bit for bit."""
    if sums is None:
        return [np.add.reduce(p, axis=0) for p in parts]
    return [
        np.add.reduce(np.concatenate([s[np.newaxis], p]), axis=0)
        for s, p in zip(sums, parts, strict=True)
    ]


def _keep_correlations(
    per_repeat: dict[str, np.ndarray],
    fields: dict[str, np.ndarray],
    valid: np.ndarray,
    used: int,
    repeats: int,
) -> None:
    """Store the Pearson and Spearman correlations of Bias² and Var across
    systems of a block's used repeats (:func:`tradeoff.correlations`, the
    distribution of the tradeoff over partitions) from position ``used`` on."""
    block_r = correlations(fields["bias2"][valid], fields["var"][valid])
    for name, r in zip(("pearson", "spearman"), block_r, strict=True):
        if name not in per_repeat:
            per_repeat[name] = np.empty(repeats)
        per_repeat[name][used : used + int(valid.sum())] = r


@quiet
def random_fields(
    values: np.ndarray,
    target: np.ndarray,
    k: int,
    repeats: int,
    seed: int,
    *,
    normalize: str,
    target_spec: str | float,
    statistic: Statistic = bias_variance,
) -> RepeatAverage:
    """:func:`grouped_fields` over the R orders of :func:`random_orders`,
    averaged over the repeats in memory bounded whatever R.

    The orders are drawn block by block (:func:`random_order_blocks`, the
    same permutations) and each block's per-repeat values are folded into
    running sums at once: ``add.reduce([running sum, block...])``. For the
    (b, m) fields that is the row-after-row sum numpy computes along the first
    axis of an (R, m) array (m > 1), so the mean equals the mean over all
    repeats held at once bit for bit; for c (numpy sums a 1-D array pairwise)
    it does whenever all R repeats fit in one block (:func:`_repeat_block`;
    the default 1000 repeats do unless m·G, n·G or n·m exceeds ~4000).
    A repeat whose every sample was dropped by ratio normalization is left
    out of the average. When the statistic gives ``bias2`` and ``var``, the
    Pearson and Spearman correlation of the two across systems is kept for
    every used repeat (vectorised per block, :func:`tradeoff.correlations`:
    the distribution of the tradeoff over partitions).
    """
    values = np.asarray(values, dtype=float)
    m, n = values.shape
    block = _repeat_block(m, n, k)
    sums: list[np.ndarray] | None = None  # the statistic's fields, then c
    names: list[str] = []
    c_lo, c_hi = np.inf, -np.inf
    used = dropped = samples = 0
    # the one thing kept per repeat: two floats (exact quantiles need every value)
    per_repeat: dict[str, np.ndarray] = {}
    for orders in random_order_blocks(n, repeats, seed, block):
        fields, c, keep = grouped_fields(
            values, target, orders, k,
            normalize=normalize, target_spec=target_spec, statistic=statistic,
        )  # fmt: skip
        names = list(fields)
        dropped += int(keep.size - np.count_nonzero(keep))
        samples += keep.size
        valid = np.asarray(keep.any(axis=1))
        if not valid.any():
            continue
        c = c[valid]
        c_lo, c_hi = min(c_lo, float(c.min())), max(c_hi, float(c.max()))
        if "bias2" in fields and "var" in fields:
            _keep_correlations(per_repeat, fields, valid, used, repeats)
        used += len(c)
        sums = _folded(sums, [fields[f][valid] for f in names] + [c])
    if sums is None:
        nan = np.full(m, np.nan)
        return RepeatAverage(dict.fromkeys(names, nan), float("nan"), 0, repeats, dropped, samples)
    # A c that is the same in every repeat (a constant target, or 1 after
    # normalization) is that value exactly, not a rounded sum / R.
    c_mean = c_lo if c_lo == c_hi else float(sums[-1] / used)
    means = {f: total / used for f, total in zip(names, sums[:-1], strict=True)}
    repeat_r = {k: v[:used] for k, v in per_repeat.items()}
    return RepeatAverage(means, c_mean, used, repeats, dropped, samples, repeat_r)


# --------------------------------------------------------------------------- entry point


@quiet
def analyse(
    m: ScoreMatrix,
    *,
    group: str | tuple[str, int] | None,
    normalize: str,
    target: str | float,
    repeats: int = DEFAULT_REPEATS,
    seed: int = DEFAULT_SEED,
    statistic: Statistic = bias_variance,
) -> Analysis:
    """Bias–variance analysis of one measure with optional grouping and normalization
    (docs/numbers.md).

    ``group``: None, "difficulty:K" or "random:K" (or parsed, (kind, K));
    ``normalize``: "none", "minmax" or "ratio"; ``target``: "max", "ideal" or
    a constant (docs/inputs.md); the options were validated where they were read.
    ``repeats`` and ``seed`` apply to random grouping only. ``statistic``
    computes the per-sample fields (default: every field of
    :func:`decompose`); with random grouping it is averaged over the repeats.
    Without grouping and with normalize "none" the default result is exactly
    ``decompose(values, virtual_target(values), target_constant(x_T, target))``.
    Raises ValueError (one line) when no topic or sample is left.
    """
    parsed = parse_group(group) if isinstance(group, str) or group is None else group
    if m.values.shape[1] == 0:
        raise ValueError(f"{m.measure}: no topics to analyse")
    if m.values.shape[0] == 0:
        raise ValueError(f"{m.measure}: no systems to analyse")
    # Per-topic normalization: minmax always comes before grouping; ratio is
    # per topic only without grouping (with grouping it is per sample, below).
    topic_norm = normalize if parsed is None or normalize == "minmax" else "none"
    mat, notes = normalized_topics(m, topic_norm)
    if not mat.topics:
        raise ValueError(f"{m.measure}: no topics left after {normalize} normalization")
    values = mat.values
    x_t = np.ones(values.shape[1]) if topic_norm != "none" else virtual_target(values)
    setting = _Setting(m, mat, x_t, normalize, target, statistic, notes)
    if parsed is None:
        return _ungrouped(setting)
    kind, k = parsed
    # The risk measures want ratio per topic, which grouping does per sample.
    per_topic = mat if topic_norm == normalize else normalized_topics(m, normalize)[0]
    grouped = _Grouped(f"{kind}:{k}", k, per_topic)
    if kind == "difficulty":
        return _by_difficulty(setting, grouped)
    return _by_random(setting, grouped, int(repeats), seed)


@dataclass(frozen=True)
class _Setting:
    """One measure as :func:`analyse` analyses it: ``m`` as given, ``mat``
    after the per-topic normalization (minmax, or ratio without grouping),
    the per-topic target ``x_t`` of its scores, the options, and the notes
    so far (appended to)."""

    m: ScoreMatrix
    mat: ScoreMatrix
    x_t: np.ndarray
    normalize: str
    target: str | float
    statistic: Statistic
    notes: list[str]

    def result(self, fields: dict[str, np.ndarray], c: float, **counts: Any) -> Analysis:
        """The analysis of these fields (``counts``: the topics, groups, group
        and per-topic matrix of the grouping, if any)."""
        return Analysis(
            measure=self.m.measure, systems=self.m.systems, fields=fields, c=c,
            normalize=self.normalize, notes=self.notes, **counts,
        )  # fmt: skip


@dataclass(frozen=True)
class _Grouped:
    """A grouping of :func:`analyse`: its label (``difficulty:K``,
    ``random:K``), K and the per-topic matrix the risk measures read
    (normalized per topic, which grouping does per sample)."""

    label: str
    k: int
    per_topic: ScoreMatrix


def _ungrouped(setting: _Setting) -> Analysis:
    """The fields of the per-topic scores themselves (docs/numbers.md): without
    normalization exactly :func:`decompose` of the matrix and its virtual target."""
    c = _constant(setting.x_t, setting.target, setting.normalize != "none")
    fields = setting.statistic(setting.mat.values, setting.x_t, c)
    return setting.result(
        fields, float(c), n_topics=len(setting.mat.topics), n_groups=None, group=None,
        per_topic=setting.mat,
    )  # fmt: skip


def _by_difficulty(setting: _Setting, grouped: _Grouped) -> Analysis:
    """The fields of groups of K topics in the order of their difficulty (the
    raw virtual target, :func:`difficulty_order`), as one order of
    :func:`grouped_fields`; ratio normalization drops the groups whose target is 0."""
    m, topics = setting.m, setting.mat.topics
    raw = m.values[:, np.isin(m.topics, topics)]  # difficulty uses the raw target
    sizes = group_sizes(setting.mat.values.shape[1], grouped.k)
    n_formed = len(sizes)
    orders = difficulty_order(virtual_target(raw), topics)[np.newaxis, :]
    fields, c_r, keep = grouped_fields(
        setting.mat.values, setting.x_t, orders, grouped.k,
        normalize=setting.normalize, target_spec=setting.target, statistic=setting.statistic,
    )  # fmt: skip
    kept = keep[0]
    dropped = int((~kept).sum())
    if dropped:
        setting.notes.append(
            f"{m.measure}: {dropped} of {n_formed} {_plural(n_formed, 'group')} dropped "
            "by ratio normalization (target 0)"
        )
    if not kept.any():
        raise ValueError(f"{m.measure}: no groups left after ratio normalization")
    return setting.result(
        {f: v[0] for f, v in fields.items()}, float(c_r[0]), n_topics=int(sizes[kept].sum()),
        n_groups=int(kept.sum()), group=grouped.label, per_topic=grouped.per_topic,
    )  # fmt: skip


def _by_random(setting: _Setting, grouped: _Grouped, repeats: int, seed: int) -> Analysis:
    """The fields of random groups of K topics averaged over ``repeats``
    random orders (:func:`random_fields`), noting the samples and repeats
    ratio normalization dropped."""
    measure, n = setting.m.measure, setting.mat.values.shape[1]
    n_formed = len(group_sizes(n, grouped.k))
    avg = random_fields(
        setting.mat.values, setting.x_t, grouped.k, repeats, seed,
        normalize=setting.normalize, target_spec=setting.target, statistic=setting.statistic,
    )  # fmt: skip
    if avg.dropped:
        setting.notes.append(
            f"{measure}: ratio normalization dropped {avg.dropped} of {avg.samples} samples "
            f"(target 0) over {avg.repeats} repeats"
        )
    if not avg.used:
        raise ValueError(f"{measure}: no groups left after ratio normalization")
    if avg.used < avg.repeats:
        empty = avg.repeats - avg.used
        setting.notes.append(
            f"{measure}: {empty} {_plural(empty, 'repeat')} with every group dropped "
            "left out of the average"
        )
    return setting.result(
        avg.fields, avg.c, n_topics=n, n_groups=n_formed, group=grouped.label,
        per_topic=grouped.per_topic, repeat_correlations=avg.correlations or None,
    )  # fmt: skip


def _plural(count: int, word: str) -> str:
    return word if count == 1 else word + "s"
