"""The per-system fields of one score matrix and what they are computed
from (:class:`FieldData`, shapes (..., m, n)), one measure's block of the
report (:func:`analyse`), the fields as one statistic for the bootstrap
(:func:`registry_statistic`, :func:`bootstrap_statistic`) and ``bvtest
eval``'s report (:func:`eval_report`): what eval, scores, instability,
tradeoff, check, plot, compare, conditions and pertopic share.

The path of the data: matrices (one per measure) → the pure analyses
(:mod:`grouping`, :mod:`decompose`, :mod:`risk`, :mod:`tradeoff`) → one
:class:`~bvtest_cli.report.model.Report`. Each per-system field is computed
by the compute function its registry entry names over an :class:`FieldData`.
"""

from __future__ import annotations

from collections.abc import Callable, Mapping, Sequence
from dataclasses import dataclass, fields, replace
from functools import cached_property

import numpy as np

from ..analyses import grouping, risk, uncertainty
from ..analyses.decompose import BiasVariance, decompose
from ..analyses.tradeoff import Tradeoff, correlate, correlations
from ..defaults import (
    DEFAULT_ALPHAS,
    DEFAULT_BOOTSTRAP,
    DEFAULT_CI_MEMORY_MIB,
    DEFAULT_REPEATS,
    DEFAULT_SEED,
)
from ..errors import InputError
from ..io.sources import Inputs
from ..measures.evaluate import Evaluation
from ..measures.matrix import ScoreMatrix, target_constant, virtual_target
from ..report import registry
from ..report.limits import refuse_bootstrap, refuse_groupings
from ..report.model import Node, Records, Report, Section, Table, Value, section
from ..report.registry import Field
from ..report.values import as_reported, fmt
from .inputs import load, topic_rule


@dataclass(frozen=True)
class FieldData:
    """What the per-system fields are computed from (shapes (..., m, n)).

    ``samples`` are the scores the decomposition sees (topics, or topic
    groups), with their ``target``, constant ``c`` and optional ``keep`` mask
    (docs/numbers.md); ``topics`` the per-topic matrix after normalization that
    the risk measures see (docs/numbers.md), with ``alphas`` and the ``baseline`` row.
    """

    samples: np.ndarray | None = None
    target: np.ndarray | None = None
    c: np.ndarray | float = 0.0
    keep: np.ndarray | None = None
    topics: np.ndarray | None = None
    alphas: np.ndarray | None = None
    baseline: int | None = None
    ddof: int = 0  # --ddof: 1 for sample variances and covariance
    fields: Mapping[str, np.ndarray] | None = None  # final values, for basis "fields"

    @cached_property
    def bv(self) -> BiasVariance:
        if self.samples is None and self.fields is not None:
            return BiasVariance(*(np.asarray(self.fields[f]) for f in BiasVariance.FIELDS))
        assert self.samples is not None and self.target is not None
        return decompose(self.samples, self.target, self.c, self.keep, ddof=self.ddof)

    def _base(self) -> np.ndarray:
        assert self.topics is not None and self.baseline is not None
        return self.topics[..., self.baseline, :]

    def _risk_inputs(self) -> tuple[np.ndarray, np.ndarray]:
        assert self.topics is not None and self.alphas is not None
        return self.topics, self.alphas

    @cached_property
    def _zrisk(self) -> np.ndarray:  # shared by zrisk and georisk
        return risk.zrisk(*self._risk_inputs())

    def zrisk(self) -> np.ndarray:
        return self._zrisk

    def georisk(self) -> np.ndarray:
        assert self.topics is not None
        # risk.georisk's own arithmetic, without computing ZRisk a second time
        return risk.georisk_from(self.topics.mean(axis=-1), self._zrisk, self.topics.shape[-1])

    def zrisk_target(self) -> np.ndarray:
        x, alphas = self._risk_inputs()
        return risk.zrisk_pair(x, x.max(axis=-2), alphas)

    def trisk_mean(self) -> np.ndarray:
        return risk.trisk_mean(*self._risk_inputs())

    def urisk(self) -> np.ndarray:
        x, alphas = self._risk_inputs()
        return risk.urisk(x, self._base(), alphas)

    def trisk(self) -> np.ndarray:
        x, alphas = self._risk_inputs()
        return risk.trisk(x, self._base(), alphas)

    def zrisk_baseline(self) -> np.ndarray:
        x, alphas = self._risk_inputs()
        return risk.zrisk_pair(x, self._base(), alphas)


@dataclass(frozen=True)
class Analysis:
    """How a command analyses a score matrix (docs/numbers.md,
    docs/uncertainty.md): the virtual target, topic grouping and its
    repeats, normalization, the risk measures' alphas and baseline, the
    variance's ddof, and ``--ci``'s topic bootstrap. A command that does not
    take one of these options has its default (the option's, which a test
    checks)."""

    target: str | float = "max"
    group: tuple[str, int] | None = None
    normalize: str = "none"
    repeats: int = DEFAULT_REPEATS
    seed: int = DEFAULT_SEED
    alphas: tuple[str, ...] = DEFAULT_ALPHAS
    baseline: str | None = None
    ddof: int = 0
    ci: float | None = None
    bootstrap: int = DEFAULT_BOOTSTRAP
    ci_method: str = "auto"
    ci_memory: int = DEFAULT_CI_MEMORY_MIB

    @classmethod
    def of(cls, params: object, **changes: object) -> Analysis:
        """The analysis options among a command's parameters, with ``changes``."""
        taken = {f.name: getattr(params, f.name) for f in fields(cls) if hasattr(params, f.name)}
        return cls(**{**taken, **changes})  # type: ignore[arg-type]

    @property
    def alpha_values(self) -> tuple[float, ...]:
        return tuple(float(a) for a in self.alphas)

    @property
    def ci_budget(self) -> int:
        """--ci-memory as float64 elements (the bootstrap's replicate budget)."""
        return self.ci_memory * (1 << 20) // 8

    @property
    def group_text(self) -> str | None:
        return None if self.group is None else f"{self.group[0]}:{self.group[1]}"


def sample_statistic(fields: Sequence[Field], ddof: int = 0) -> grouping.Statistic:
    """The samples-basis fields as one function of (x, target, c, keep)."""
    chosen = [f for f in fields if f.basis == "samples"]

    def statistic(x, target, c, keep=None) -> dict[str, np.ndarray]:
        inputs = FieldData(samples=x, target=target, c=c, keep=keep, ddof=ddof)
        return {f.name: f.computed(inputs) for f in chosen}

    return statistic


def topic_fields(
    m: ScoreMatrix, fields: Sequence[Field], alphas: np.ndarray, baseline: int | None
) -> tuple[dict[str, np.ndarray], list[str]]:
    """The topics-basis fields (risk measures, docs/numbers.md) on the per-topic matrix."""
    chosen = [f for f in fields if f.basis == "topics"]
    x = m.values
    nan = np.full((x.shape[0], len(alphas)), np.nan)
    if x.shape[1] == 0:
        return {f.name: nan for f in chosen}, []
    negative = risk.has_negative(x)
    notes = []
    if negative and any(f.nonnegative for f in chosen):
        notes.append(f"{m.measure}: negative scores; ZRisk and GeoRisk are undefined (null)")
    if x.shape[0] == 1 and any(f.name == "trisk_mean" for f in chosen):
        notes.append(
            f"{m.measure}: trisk_mean is null with one run: its baseline, the mean of the "
            "runs, would be the run itself"
        )
    inputs = FieldData(topics=x, alphas=alphas, baseline=baseline)
    with np.errstate(all="ignore"):
        values = {f.name: nan if f.nonnegative and negative else f.computed(inputs) for f in chosen}
    return values, notes


def tradeoff_section(
    t: Tradeoff, intervals: Mapping[str, tuple[float, float]] | None = None
) -> Section:
    fields = registry.TRADEOFF_FIELDS
    items = tuple((f, as_reported(getattr(t, f.name), f.probability)) for f in fields)
    return Section(items, intervals=dict(intervals or {}))


def baseline_index(systems: Sequence[str], baseline: str | None) -> int | None:
    """The row of ``--baseline`` among the systems."""
    from ..io.runnames import resolve_run

    if baseline is None:
        return None
    name, _ = resolve_run(
        baseline, systems, "--baseline", unknown=f"baseline {baseline!r} is not among the runs"
    )
    return list(systems).index(name)


def analyse(m: ScoreMatrix, s: Analysis) -> tuple[Section, list[str]]:
    """docs/numbers.md for one measure: the block of ``bvtest eval``, and its notes.

    With ``--ci`` every numeric per-system field and the tradeoff correlations
    get a topic-bootstrap interval (docs/uncertainty.md, :func:`field_intervals`); with
    ``--group random:K`` the block also holds the distribution of the
    per-repeat tradeoff correlations (``tradeoff_repeats``). A matrix with
    sampling variances (a sampled measure's estimates) adds
    :func:`sampling_fields`.
    """
    if s.group is not None and s.group[0] == "random":
        refuse_groupings(s.repeats, len(m.systems), len(m.topics))
    if s.ci is not None:
        refuse_bootstrap(s.bootstrap, len(m.systems), len(m.topics))
    fields = registry.system_fields(s.baseline is not None)
    base = baseline_index(m.systems, s.baseline)
    try:
        a = grouping.analyse(
            m,
            group=s.group,
            normalize=s.normalize,
            target=s.target,
            repeats=s.repeats,
            seed=s.seed,
            statistic=sample_statistic(fields, s.ddof),
        )
    except ValueError as exc:  # e.g. every topic dropped by normalization: a user error
        raise InputError(str(exc)) from None
    notes = list(a.notes)
    values = dict(a.fields)
    t = correlate(values[registry.BIAS2.name], values[registry.VAR.name])
    if t.reason:
        notes.append(f"{m.measure}: tradeoff correlation undefined: {t.reason}")
    risk_values, risk_notes = topic_fields(a.per_topic, fields, np.array(s.alpha_values), base)
    values.update(risk_values)
    notes += risk_notes
    values.update(derived_fields(fields, values))
    sampling = m.sampling_variance
    if sampling is not None and s.ci is not None:
        if s.normalize != "none":
            notes.append(f"{m.measure}: no sampling standard errors of normalized scores")
        else:
            values.update(sampling_fields(a.per_topic.values, sampling, s.ci))
            fields = (*fields, *registry.SAMPLING_FIELDS)
            note = undefined_sampling_note(m, sampling)
            if note:
                notes.append(note)
    intervals: dict[str, np.ndarray] = {}
    tradeoff_intervals: dict[str, tuple[float, float]] = {}
    if s.ci is not None:
        intervals = field_intervals(a.per_topic, fields, s, base)
        tradeoff_intervals = {
            f.name: (float(intervals[f.name][0]), float(intervals[f.name][1]))
            for f in (registry.PEARSON, registry.SPEARMAN)
        }
        intervals = {
            f.name: intervals.get(f.name, _nan_interval(values[f.name]))
            for f in fields
            if np.asarray(values[f.name]).dtype != bool and f not in registry.SAMPLING_FIELDS
        }
    table = Table(
        rows=m.systems, fields=fields, values=values, alphas=s.alphas, intervals=intervals
    )
    counts = [(registry.N_TOPICS, a.n_topics)]
    if a.n_groups is not None:
        counts.append((registry.N_GROUPS, a.n_groups))
    items: list[tuple[Field | str, Node]] = [
        *counts,
        (registry.C, a.c),
        (registry.SYSTEMS, table),
        (registry.TRADEOFF, tradeoff_section(t, tradeoff_intervals)),
    ]
    if a.repeat_correlations is not None:
        items.append(("tradeoff_repeats", repeats_section(a.repeat_correlations)))
    return section(*items), notes


def sampling_fields(x: np.ndarray, variance: np.ndarray, level: float) -> dict[str, np.ndarray]:
    """The two parts of the uncertainty of a sampled measure's mean, from its
    estimates ``x`` (m, n) and their sampling variances (m, n).

    Each topic's estimate errs by its own sampling error, independent of the
    other topics', so the variance of the mean over random topics is
    σ²_topics/n + Σ_t v_t/n², and the variance of the estimates over topics,
    s², estimates σ²_topics + v̄: the topic bootstrap of the estimates (the
    ``mean`` interval) already holds both parts, and adding Σ v_t/n² to it
    would count the sampling twice. se_sampling = √(Σ v_t)/n is the part
    that remains with the topics fixed: mean ± z·se_sampling (``sampling_lo``,
    ``sampling_hi``, a normal interval [Cochran77] §5.3) is the interval of
    the full-judgment mean over the same topics. se_topics =
    √(max(s² − v̄, 0)/n) is the other part."""
    from scipy.special import ndtri

    n = x.shape[-1]
    mean = x.mean(axis=-1)
    se_sampling = np.sqrt(variance.sum(axis=-1)) / n
    spread = x.var(axis=-1, ddof=1) if n > 1 else np.full(mean.shape, np.nan)
    se_topics = np.sqrt(np.maximum(spread - variance.mean(axis=-1), 0.0) / n)
    z = float(ndtri(0.5 + level / 2))
    return {
        registry.SE_SAMPLING.name: se_sampling,
        registry.SE_TOPICS.name: se_topics,
        registry.SAMPLING_LO.name: mean - z * se_sampling,
        registry.SAMPLING_HI.name: mean + z * se_sampling,
    }


def undefined_sampling_note(m: ScoreMatrix, variance: np.ndarray) -> str | None:
    """Why a run's se_sampling is null, where one is: a topic whose variance
    is undefined (a stratum of several listed documents with one judged:
    no within-stratum spread, docs/measures.md)."""
    lone = np.isnan(variance)
    if not lone.any():
        return None
    runs = int(lone.any(axis=1).sum())
    topics = int(lone.any(axis=0).sum())
    return (
        f"{m.measure}: no sampling variance (se_sampling, se_topics, sampling_lo/hi null) "
        f"for {runs} of {len(m.systems)} run(s): on {topics} of {len(m.topics)} topic(s) a "
        "stratum holds one judged document of several, which leaves no within-stratum "
        "spread; fewer strata per topic (sample --strata) give each stratum two or more"
    )


def derived_fields(fields: Sequence[Field], values: Mapping[str, np.ndarray]) -> dict:
    """The basis-"fields" fields (pareto) from the final values of the others."""
    inputs = FieldData(fields=values)
    return {f.name: f.computed(inputs) for f in fields if f.basis == "fields"}


def bootstrap_statistic(
    m: ScoreMatrix, fields: Sequence[Field], s: Analysis, baseline: int | None
) -> Callable[..., dict[str, np.ndarray]]:
    """:func:`registry_statistic` with the analysis settings of ``s``, for
    resampling the per-topic matrix ``m`` (eval's ``--ci`` and ``compare``)."""
    if s.ci_method != "percentile" and m.values.shape[1] < 2:
        raise InputError(
            f"{m.measure}: --ci-method {s.ci_method} needs at least 2 topics (a jackknife)"
        )
    return registry_statistic(
        fields,
        target=s.target,
        normalized=s.normalize != "none",
        alphas=np.array(s.alpha_values),
        baseline=baseline,
        nonnegative=not risk.has_negative(m.values),
        ddof=s.ddof,
    )


def registry_statistic(
    fields: Sequence[Field],
    *,
    target: str | float,
    normalized: bool,
    alphas: np.ndarray,
    baseline: int | None,
    nonnegative: bool = True,
    ddof: int = 0,
):
    """The topic-bootstrap statistic (docs/uncertainty.md): every field of ``fields`` that
    has a numeric value, and the tradeoff correlations, of scores (..., m, n).

    It is the registry itself: each field's ``compute`` over an :class:`FieldData`
    of the (resampled) per-topic matrix, with the virtual target (1 after
    normalization) and c recomputed on it, as :func:`grouping.analyse` does on
    the matrix without grouping — so on the matrix itself it gives the numbers
    of ``bvtest eval``, and a new registry field gets an interval for free.
    Flags (boolean fields such as pareto) have no interval. ``nonnegative``
    False leaves out the fields that need scores >= 0 (ZRisk, GeoRisk).
    """
    chosen = [f for f in fields if f.compute is not None and (nonnegative or not f.nonnegative)]
    flags: set[str] = set()  # fields found boolean on a first call: skipped after

    def statistic(y: np.ndarray, target_row: np.ndarray | None = None) -> dict[str, np.ndarray]:
        """The fields of scores ``y`` (..., m, n); ``target_row`` (n,), when
        given, is the virtual target to use instead of the one of ``y`` (a
        paired randomization test evaluates two runs with the others folded
        into one row, whose maximum is not the target)."""
        y = np.asarray(y, dtype=float)
        with np.errstate(all="ignore"):
            # after normalization the target is 1 on every topic (grouping.analyse)
            if target_row is not None:
                x_t = np.broadcast_to(
                    np.asarray(target_row, dtype=float), y.shape[:-2] + y.shape[-1:]
                )
            elif normalized:
                x_t = np.ones(y.shape[:-2] + y.shape[-1:])
            else:
                x_t = virtual_target(y)
            if normalized and target in ("max", "ideal"):
                c: np.ndarray | float = 1.0
            else:
                c = target_constant(x_t, target)
            inputs = FieldData(
                samples=y, target=x_t, c=c, topics=y, alphas=alphas, baseline=baseline, ddof=ddof
            )
            out = {}
            for f in chosen:
                if f.name in flags:
                    continue
                value = np.asarray(f.computed(inputs))
                if value.dtype == bool:
                    flags.add(f.name)
                else:
                    out[f.name] = value
            pearson, spearman = correlations(inputs.bv.bias2, inputs.bv.var)
            out[registry.PEARSON.name] = np.asarray(pearson)
            out[registry.SPEARMAN.name] = np.asarray(spearman)
        return out

    return statistic


def field_intervals(
    per_topic: ScoreMatrix, fields: Sequence[Field], s: Analysis, base: int | None
) -> dict[str, np.ndarray]:
    """``--ci``: the topic-bootstrap interval of every per-system field and of
    the tradeoff correlations, name → array (..., 2) of (lo, hi) (docs/uncertainty.md).

    The bootstrap resamples the topics of the per-topic matrix after
    normalization (minmax and ratio are per topic, so normalizing then
    resampling is resampling then normalizing); ``--seed`` seeds it, and the
    resamples depend only on (seed, number of topics, B).
    """
    x = per_topic.values
    statistic = bootstrap_statistic(per_topic, fields, s, base)
    assert s.ci is not None
    got = uncertainty.bootstrap_intervals(
        x,
        statistic,
        B=s.bootstrap,
        seed=s.seed,
        level=s.ci,
        method=registry.interval_methods(s.ci_method, fields),
        budget=s.ci_budget,
    )
    return {name: np.stack([iv.lo, iv.hi], axis=-1) for name, iv in got.items()}


def _nan_interval(values: np.ndarray) -> np.ndarray:
    return np.full((*np.shape(values), 2), np.nan)


def repeats_section(per_repeat: Mapping[str, np.ndarray]) -> Section:
    """``tradeoff_repeats``: per correlation, the mean and 2.5 % / 97.5 %
    quantiles of its per-repeat values over the random groupings, and the
    number of repeats where it is defined."""
    summaries = uncertainty.correlation_distribution(per_repeat)
    return section(
        *(
            (
                name,
                section(("mean", d.mean), ("lo", d.lo), ("hi", d.hi), ("defined", d.defined)),
            )
            for name, d in summaries.items()
        )
    )


@dataclass(frozen=True)
class Listing:
    """eval's ``-q``: trec_eval's per-topic lines after the report's own,
    which are in ``sort`` order with ``digits`` (:func:`per_topic_records`)."""

    sort: str | None = None
    digits: int = 4


def eval_report(
    matrices: Sequence[ScoreMatrix],
    s: Analysis,
    e: Evaluation,
    topic_rule: str,
    per_topic: Listing | None = None,
) -> Report:
    """The report of ``bvtest eval``: every measure's block (with the
    sampling fields where a matrix carries sampling variances), each stating
    its topic set beside its topic count (``topic_rule``: judged or all, the
    rule the matrices were evaluated by; "file": from a scores file, whose
    topics are the ones it holds). With ``per_topic`` (``-q``) the report
    also holds trec_eval's per-topic lines (:func:`per_topic_records`)."""
    from ..measures.names import asked_names

    # each block states the -m spelling that asked for it (map) beside its key (AP)
    asked = asked_names(e.measures, e.rel_level) if e.measures else {}
    blocks, notes = [], []
    for m in matrices:
        block, block_notes = analyse(m, s)
        block = _with_rule(block, topic_rule)
        block = replace(
            block, items=((registry.ASKED, asked.get(m.measure, m.measure)), *block.items)
        )
        blocks.append((m.measure, block))
        notes += block_notes
    trec_eval_flags = (
        *((("max_docs", e.max_docs),) if e.max_docs is not None else ()),
        *((("judged_only", True),) if e.judged_only else ()),
    )
    body = section(
        ("group", s.group_text),
        ("normalize", s.normalize),
        *(((registry.BASELINE, s.baseline),) if s.baseline else ()),
        *trec_eval_flags,
        (registry.MEASURES, Section(tuple(blocks))),
    )
    report = Report(
        body, table_fields=tuple(f for f in registry.SYSTEM_FIELDS if f.table), notes=tuple(notes)
    )
    if per_topic is None:
        return report
    records = per_topic_records(matrices, report, per_topic)
    return replace(report, body=section(*body.items, ("per_topic", records)))


def evaluated(
    inputs: Inputs,
    e: Evaluation,
    a: Analysis,
    sampling_variances: bool = False,
    per_topic: Listing | None = None,
) -> Report:
    """eval's report of ``inputs``: evaluated (or read) by ``e``, analysed by
    ``a`` (:func:`eval_report`), the notes about the inputs first."""
    matrices, notes = load(inputs, e, sampling_variances)
    return eval_report(matrices, a, e, topic_rule(inputs, e), per_topic).prefixed(notes)


def _with_rule(block: Section, rule: str) -> Section:
    """``block`` with ``topic_set`` (the rule) after its topic and group counts."""
    counts = {registry.N_TOPICS.name, registry.N_GROUPS.name}
    at = next(i for i, (k, _) in enumerate(block.items) if str(k) not in counts)
    items = (*block.items[:at], ("topic_set", rule), *block.items[at:])
    return replace(block, items=items)


#: The columns of a per-topic line of ``eval -q`` (trec_eval's three, then the run).
PER_TOPIC_COLUMNS = ("measure", "topic", "value", "run")


def per_topic_records(matrices: Sequence[ScoreMatrix], report: Report, s: Listing) -> Records:
    """``eval -q``: trec_eval -q's lines with the run as a fourth column,
    ``MEASURE<TAB>TOPIC<TAB>VALUE<TAB>RUN``, run by run: its per-topic lines
    (topic by topic, each measure), then its ``all`` lines, the means. No
    padding after the measure (trec_eval pads it to 22 columns), so that
    ``grep -P '^AP\t'`` finds them; every topic of the topic set has a line,
    0 where the run has no ranking, as ``trec_eval -c -q`` prints.

    As records they are the ``per_topic`` list of the JSON document (one
    object per line); in ``-f trec`` the report's own lines come first, as
    the records' first line (they are rendered here, with the report's
    digits and row order), then these."""
    from ..render.text import render as render_text

    items: list[tuple[str, str, float, str]] = []
    for i, run in enumerate(matrices[0].systems if matrices else ()):
        for j, topic in enumerate(matrices[0].topics):
            items += [(m.measure, topic, float(m.values[i, j]), run) for m in matrices]
        items += [(m.measure, "all", float(m.values[i].mean()), run) for m in matrices]
    shown = report.sorted_by(s.sort) if s.sort else report
    own = render_text(shown, "trec", s.digits).rstrip("\n")

    def as_json(item: tuple[str, str, float, str]) -> dict[str, Value]:
        return dict(zip(PER_TOPIC_COLUMNS, item, strict=True))

    def as_text(item: tuple[str, str, float, str], digits: int) -> tuple[str, ...]:
        measure, topic, value, run = item
        return measure, topic, fmt(value, digits), run

    return Records(tuple(items), as_json, as_text, header=(own,) if own else ())
