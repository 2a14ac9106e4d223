"""The report of ``bvtest design``: per measure, the G-study and D-study
[Brennan01; Urbano13], the topics needed for a reliability, the
topic-set-size designs [Sakai16] with topic-bootstrap intervals, and with a
budget report the allocation of judgments against topics [Cormack19].

Every number comes from :mod:`bvtest_cli.analyses.design`; this module
chooses the inputs (the systems kept by ``--drop``, the variance the designs
start from), draws the topic bootstrap, and lays the results out.
"""

from __future__ import annotations

import math
from collections.abc import Callable, Sequence
from typing import TYPE_CHECKING, Any

import numpy as np

from ...analyses.design import (
    CONSTANT_BIAS,
    FITTED,
    Candidate,
    DStudy,
    TopicsModel,
    TopicsUnreachable,
    allocate_models,
    bootstrap_topics,
    dstudy,
    erho2_undefined,
    fit_topics_model,
    gstudy,
    mean_squares,
    n_anova,
    n_ci,
    n_ttest,
    phi_undefined,
    topics_needed,
    variances,
    zero_tolerance,
)
from ...errors import InputError
from ...io.budget_json import BudgetReport, read_budget_report
from ...io.sources import Inputs
from ...measures.evaluate import Evaluation
from ...measures.matrix import ScoreMatrix
from ...report import registry as r
from ...report.limits import refuse_memory, refuse_work
from ...report.model import Records, Report, Section, section
from ...report.values import line_records
from ...sections.inputs import load_one_measure

if TYPE_CHECKING:
    from .params import DesignParams

#: The bootstrap replicate's columns: the three G-study components, then the
#: three variance estimates of the topic-set-size designs.
BOOTSTRAPPED = ("var_systems", "var_topics", "var_residual", "residual", "pairwise95", "within")


# --------------------------------------------------------------------------- bootstrap


def replicate_statistics(y: np.ndarray) -> np.ndarray:
    """The six quantities of :data:`BOOTSTRAPPED` of one score matrix (m, n).

    The same numbers as :func:`gstudy` and :func:`variances` give, but the
    95th percentile of the paired-difference variances comes from the
    covariance matrix, Var(x_i − x_j) = Var x_i + Var x_j − 2 Cov(x_i, x_j):
    m² products instead of m(m − 1)/2 differences materialised per resample.
    Values within :func:`zero_tolerance` of 0 are 0, as in those functions,
    so that a point estimate of 0 is an end of its own interval.
    """
    m, n = y.shape
    ms_s, ms_q, ms_e = (float(v) for v in mean_squares(y))
    centred = y - y.mean(axis=1, keepdims=True)
    cov = centred @ centred.T / (n - 1)
    i, j = np.triu_indices(m, k=1)
    pair = cov[i, i] + cov[j, j] - 2.0 * cov[i, j]
    values = np.array(
        [
            max((ms_s - ms_e) / n, 0.0),
            max((ms_q - ms_e) / m, 0.0),
            ms_e,
            2.0 * ms_e,
            float(np.percentile(pair, 95)),
            float((centred**2).sum() / (m * (n - 1))),
        ]
    )
    return np.where(values <= zero_tolerance(y), 0.0, values)


#: Bytes a topic-bootstrap resample holds until the percentiles are taken:
#: its drawn topics (n int64), its replicate (an array object of six floats in
#: a list, then a row of the stacked replicates and of their sorted copies:
#: ~400 bytes measured) and the working copies of the m systems' scores.
_REPLICATE_BYTES = 400
#: Elementary operations of one resample beside its arithmetic: the ~0.4 ms
#: (at 10⁹ operations a second) of the Python calls that compute its statistics.
_REPLICATE_WORK = 4e5
_BASE_BYTES = 64 << 20


def check_bootstrap(p: DesignParams, m: int, n: int) -> None:
    """Refuse a --bootstrap whose resamples of m systems × n topics would not
    fit in memory or would take hours (report.limits' limits), before any
    is drawn: :func:`bootstrap_topics` draws every resample's topics at once,
    and the B replicates are kept for their percentiles."""
    b = p.bootstrap
    refuse_memory(
        "--bootstrap", b, float(b) * (8 * n + 8 * m + _REPLICATE_BYTES) + _BASE_BYTES,
        f"{b} topic-bootstrap resamples of {m} systems × {n} topics",
    )  # fmt: skip
    refuse_work(
        "--bootstrap", b, float(b) * (_REPLICATE_WORK + 20.0 * m * n + 2.0 * m * m * n),
        f"{b} topic-bootstrap resamples of {m} systems × {n} topics",
    )  # fmt: skip


def percentile_ends(replicates: np.ndarray, level: float) -> np.ndarray:
    """The percentile interval's ends at ``level`` of each column: order
    statistics (numpy's inverted_cdf, no interpolation), so that a
    non-decreasing function of the replicates has as ends the function of
    these ends. Shape (2, columns)."""
    tail = (1.0 - level) / 2.0
    return np.quantile(replicates, [tail, 1.0 - tail], axis=0, method="inverted_cdf")


def holding(ends: np.ndarray, points: np.ndarray) -> np.ndarray:
    """The interval ends (2, columns) widened to hold each column's point
    estimate. A percentile interval need not: at a low --ci (0.1: the 45th
    and 55th percentiles) the bootstrap distribution's skew can leave the
    point outside, and every interval of the report holds its point (the
    D-study's too). At 0.9 and 0.95 it changed nothing on the sample track
    (five measures) nor on the four public matrices of docs/design.md."""
    return np.vstack([np.minimum(ends[0], points), np.maximum(ends[1], points)])


# --------------------------------------------------------------------------- records


def _count(value: float) -> int | float:
    """A number of topics: an int, inf where unreachable, NaN where undefined
    (both null in JSON)."""
    return int(value) if math.isfinite(value) else value


def dstudy_rows(d: DStudy) -> list[dict[str, Any]]:
    return [
        {
            r.D_TOPICS.name: int(d.topics[k]),
            r.ERHO2.name: float(d.erho2[k]),
            r.ERHO2_LO.name: float(d.erho2_low[k]),
            r.ERHO2_HI.name: float(d.erho2_high[k]),
            r.PHI.name: float(d.phi[k]),
            r.PHI_LO.name: float(d.phi_low[k]),
            r.PHI_HI.name: float(d.phi_high[k]),
        }
        for k in range(d.topics.size)
    ]


def _design_row(
    design: str, p: DesignParams, size_key: str, size: float, systems: int, sizes: Sequence[Any]
) -> dict[str, Any]:
    """One tssd record; ``sizes`` = (exact, approx, low, high), None where
    undefined."""
    exact, approx, low, high = sizes
    return {
        r.TSSD_DESIGN.name: design,
        r.TSSD_ALPHA.name: p.significance,
        r.TSSD_BETA.name: None if design == "ci" else p.beta,
        # both keys in every row, null where they do not apply, so that every
        # record has the same columns in the table formats
        r.TSSD_MIN_DIFF.name: size if size_key == "min_diff" else None,
        r.TSSD_WIDTH.name: size if size_key == "width" else None,
        r.TSSD_SYSTEMS.name: systems,
        r.TSSD_TOPICS.name: exact,
        r.TSSD_TOPICS_APPROX.name: approx,
        r.TSSD_TOPICS_LO.name: low,
        r.TSSD_TOPICS_HI.name: high,
    }


def _sizes(
    compute: Callable[[float], tuple[int, int]], point: float, ends: Sequence[float] | np.ndarray
) -> tuple[Any, ...]:
    """(exact, approx) at the point estimate of the variance and the exact
    number at the two ends of its bootstrap interval; None where the variance
    is 0 (every score equal: no test needs topics to see it) or no number of
    topics up to 10⁹ meets the requirement."""

    def exact_or_none(v: float) -> tuple[Any, Any]:
        if not v > 0:
            return None, None
        try:
            return compute(v)
        except TopicsUnreachable:  # a variance of ~0 in a resample
            return None, None

    exact, approx = exact_or_none(point)
    return exact, approx, exact_or_none(ends[0])[0], exact_or_none(ends[1])[0]


def tssd_rows(
    p: DesignParams, var_d: float, var_within: float, ends_d: np.ndarray, ends_within: np.ndarray,
    m: int,
) -> list[dict[str, Any]]:  # fmt: skip
    """The t-test, ANOVA and CI designs: the exact number of topics at the
    point estimate and at the ends of the variance's bootstrap interval (the
    number grows with the variance, so these are the ends of the number's own
    percentile interval), and the approximation at the point estimate.
    Each row's key is :func:`tssd_key`."""
    a, b = p.significance, p.beta
    rows = []
    for d in p.min_diffs:

        def ttest(v: float, d: float = d) -> tuple[int, int]:
            t = n_ttest(d, v, a, b)
            return t.exact, t.approx

        rows.append(_design_row("ttest", p, "min_diff", d, 2, _sizes(ttest, var_d, ends_d)))
    for d in p.min_diffs:

        def anova(v: float, d: float = d) -> tuple[int, int]:
            t = n_anova(d, v, m, a, b)
            return t.exact, t.approx

        rows.append(
            _design_row("anova", p, "min_diff", d, m, _sizes(anova, var_within, ends_within))
        )
    for w in p.ci_widths:

        def ci(v: float, w: float = w) -> tuple[int, int]:
            c = n_ci(w, v, a)
            return c.expected, c.plugin

        rows.append(_design_row("ci", p, "width", w, 2, _sizes(ci, var_d, ends_d)))
    return rows


def tssd_key(row: dict[str, Any]) -> str:
    """A tssd row's key in the line formats: its design and requirement,
    ``ttest:min_diff=0.05``, ``anova:min_diff=0.1``, ``ci:width=0.1`` (the
    requirement's shortest repr, so distinct values give distinct keys)."""
    name = "width" if row["design"] == "ci" else "min_diff"
    return f"{row['design']}:{name}={row[name]!r}"


# --------------------------------------------------------------------------- allocation


#: A cell of the allocation: (method, judgments per topic, its topics model).
ModelledCell = tuple[str, int, TopicsModel]


def topics_models(budget: BudgetReport) -> list[ModelledCell]:
    """Each (method, budget) of the report with the :class:`TopicsModel`
    fitted to its cells at every topic-set scale K (K·n topics), in the
    report's order: [Cormack19]'s constant |b| where one scale was measured,
    b² and σ² fitted across two or more (:func:`fit_topics_model`)."""
    measured: dict[tuple[str, int], list[tuple[int, float, float]]] = {}
    for c in budget.cells:
        measured.setdefault((c.method, c.budget), []).append(
            (budget.n_topics * c.topics_scale, c.bias, c.sigma)
        )
    models = []
    for (method, per_topic), rows in measured.items():
        topics, bias, sigma = zip(*rows, strict=True)
        try:
            models.append((method, per_topic, fit_topics_model(topics, bias, sigma)))
        except ValueError as exc:  # a scale given twice for one cell
            raise InputError(f"budget report, {method} at {per_topic} judgments: {exc}") from None
    return models


def allocation_records(
    models: Sequence[ModelledCell], totals: Sequence[int]
) -> tuple[Records, Records]:
    """(best per total, every candidate), each with the model that predicted it."""
    result = allocate_models(models, totals)

    def row(c: Candidate) -> dict[str, Any]:
        return {
            r.ALLOC_METHOD.name: c.method,
            r.ALLOC_BUDGET.name: c.budget,
            r.ALLOC_TOPICS.name: c.topics,
            r.ALLOC_TOTAL.name: c.total,
            r.ALLOC_RMSE.name: c.rmse,
            r.ALLOC_MODEL.name: c.model,
        }

    best = [row(c) for c in result.best.values() if c is not None]
    every = [row(c) for c in result.candidates]
    key = lambda row: f"total={row['total']}"  # noqa: E731
    return line_records(best, "allocation", key), line_records(every, "candidates", key)


def _scales(topics: Sequence[int], n: int) -> str:
    """topics_scale K,… (K·n,… topics)."""
    scales = ",".join(str(t // n) for t in topics)
    return f"topics_scale {scales}: {', '.join(map(str, topics))} topics"


def model_notes(models: Sequence[ModelledCell], n: int, source: str) -> list[str]:
    """What the predictions assume: for the cells measured at one topic
    scale, a constant |b| (and what that cost on robust2003, docs/design.md);
    for the others, the exponents p of σ² ∝ (n/n′)^p that were fitted."""
    notes = []
    constant = [m for m in models if m[2].model == CONSTANT_BIAS]
    fitted = [m for m in models if m[2].model == FITTED]
    if constant:
        scales = sorted({m[2].topics for m in constant})
        notes.append(
            f"allocation: {len(constant)} cell(s) of {source} measured at one topic scale "
            f"({'; '.join(_scales(t, n) for t in scales)}): RMSE(n′) = √(b² + σ²·n/n′) assumes "
            f"|b| constant and σ² ∝ 1/n′; {CONSTANT_BIAS_COST}; give `bvtest budget` two or more "
            "--topics-scale to fit both"
        )
    if fitted:
        scales = sorted({m[2].topics for m in fitted})
        exponents = [m[2].exponent for m in fitted]
        notes.append(
            f"allocation: {len(fitted)} cell(s) of {source} fitted across "
            f"{'; '.join(_scales(t, n) for t in scales)}: b² = b²_∞ + c·n/n′, σ² ∝ (n/n′)^p "
            f"with p from {min(exponents):.2f} to {max(exponents):.2f} (1 would be σ² ∝ 1/n′)"
        )
    return [note + "; the same in every measure's block" for note in notes]


#: What the constant-|b| model cost on robust2003 (docs/design.md, measured
#: by tests/test_commands_design.py's setting).
CONSTANT_BIAS_COST = (
    "on robust2003 (100 topics) that overstated the RMSE at 4n by up to .021 "
    "(b² shrinks as topics are added)"
)


# --------------------------------------------------------------------------- one measure


def measure_block(
    m: ScoreMatrix, p: DesignParams, allocation: tuple[Records, Records] | None, notes: list[str]
) -> Section:
    """One measure's block: G-study, D-study, topic-set sizes, and the
    allocation (the budget report's, the same in every measure's block)."""
    x = m.values
    if len(m.systems) < 2 or len(m.topics) < 2:
        raise InputError(
            f"{m.measure}: design needs at least 2 systems and 2 topics, got "
            f"{len(m.systems)} × {len(m.topics)}"
        )
    try:
        g = gstudy(x, drop=p.drop)
    except ValueError as exc:
        raise InputError(f"{m.measure}: {exc}") from None
    if g.systems < len(m.systems):
        notes.append(
            f"{m.measure}: --drop {p.drop} left out {len(m.systems) - g.systems} of "
            f"{len(m.systems)} systems (mean below the {p.drop} quantile of the means; "
            "systems tied at the cut kept); every result is on the other "
            f"{g.systems}"
        )
    if g.clipped:
        notes.append(f"{m.measure}: negative variance estimate(s) set to 0: {', '.join(g.clipped)}")
    if phi_undefined(g):
        notes.append(
            f"{m.measure}: Eρ² and Φ, their intervals and the topics needed for them are "
            "undefined (null): MS_systems, MS_topics and MS_residual are all 0 (every score "
            "is the same, up to rounding)"
        )
    elif erho2_undefined(g):
        notes.append(
            f"{m.measure}: Eρ², its interval and the topics needed for it are undefined "
            "(null): MS_systems and MS_residual are both 0 (every system has the same score "
            "on every topic, up to rounding)"
        )
    kept = x[list(g.kept)]
    n = g.topics
    counts = p.topic_counts or (n, 2 * n, 4 * n)
    assert p.ci is not None  # design's --ci is a level always
    d = dstudy(g, counts, p.ci)
    need = topics_needed(g, p.reliability, p.ci)
    v = variances(kept)
    replicates = bootstrap_topics(kept, replicate_statistics, p.bootstrap, p.seed)
    points = (g.var_systems, g.var_topics, g.var_residual, v.residual, v.pairwise95, v.within)
    ends = holding(percentile_ends(replicates, p.ci), np.asarray(points, dtype=float))
    column = {name: k for k, name in enumerate(BOOTSTRAPPED)}

    def interval(name: str) -> tuple[float, float]:
        return float(ends[0, column[name]]), float(ends[1, column[name]])

    gs = Section(
        (
            (r.G_SYSTEMS, g.systems),
            (r.G_TOPICS, g.topics),
            (r.MS_SYSTEMS, g.ms_systems),
            (r.MS_TOPICS, g.ms_topics),
            (r.MS_RESIDUAL, g.ms_residual),
            (r.VAR_SYSTEMS, g.var_systems),
            (r.VAR_TOPICS, g.var_topics),
            (r.VAR_RESIDUAL, g.var_residual),
        ),
        intervals={f: interval(f) for f in ("var_systems", "var_topics", "var_residual")},
    )
    needed = section(
        (r.NEEDED_ERHO2, section(
            (r.NEEDED_N, _count(need.erho2)), (r.NEEDED_LO, _count(need.erho2_low)),
            (r.NEEDED_HI, _count(need.erho2_high)),
        )),
        (r.NEEDED_PHI, section(
            (r.NEEDED_N, _count(need.phi)), (r.NEEDED_LO, _count(need.phi_low)),
            (r.NEEDED_HI, _count(need.phi_high)),
        )),
    )  # fmt: skip
    variance = Section(
        (
            (r.VARIANCE_RESIDUAL, float(v.residual)),
            (r.VARIANCE_PAIRWISE95, float(v.pairwise95)),
            (r.VARIANCE_WITHIN, float(v.within)),
            (r.VARIANCE_USED, p.variance),
        ),
        intervals={f: interval(f) for f in ("residual", "pairwise95", "within")},
    )
    systems = p.systems or g.systems
    var_d = float(getattr(v, p.variance))
    rows = tssd_rows(
        p, var_d, float(v.within), ends[:, column[p.variance]], ends[:, column["within"]],
        systems,
    )  # fmt: skip
    undefined = [
        tssd_key(row) for row in rows if None in (row["topics"], row["topics_lo"], row["topics_hi"])
    ]
    if undefined:
        notes.append(
            f"{m.measure}: topic-set size or its interval undefined (null) for "
            f"{', '.join(undefined)}: a variance of 0, or no number of topics up to 10⁹"
        )
    items: list[tuple[Any, Any]] = [
        ("gstudy", gs),
        ("dstudy", line_records(dstudy_rows(d), "dstudy", lambda row: str(row["topics"]))),
        ("topics_needed", needed),
        ("variance", variance),
        ("tssd", line_records(rows, "tssd", tssd_key)),
    ]
    if allocation is not None:
        best, every = allocation
        items += [(r.ALLOCATION, best), (r.ALLOC_CANDIDATES, every)]
    return Section(tuple(items))


def design_report(
    matrices: Sequence[ScoreMatrix], p: DesignParams, budget: BudgetReport | None = None
) -> Report:
    """The report of ``bvtest design``."""
    notes: list[str] = []
    allocation = None
    if budget is not None:
        budgets = sorted({c.budget for c in budget.cells})
        totals = p.totals or tuple(dict.fromkeys(budget.n_topics * b for b in budgets))
        models = topics_models(budget)
        allocation = allocation_records(models, totals)
        notes += model_notes(models, budget.n_topics, str(p.budget_report))
        unfit = [t for t in totals if t < min(budgets)]
        if unfit:
            notes.append(
                f"allocation: total(s) {', '.join(map(str, unfit))} below every budget per "
                "topic; no allocation"
            )
    for m in matrices:  # before any resample is drawn
        check_bootstrap(p, len(m.systems), len(m.topics))
    blocks = [(m.measure, measure_block(m, p, allocation, notes)) for m in matrices]
    body = section(
        ("level", p.ci),
        ("reliability", p.reliability),
        ("significance", p.significance),
        ("beta", p.beta),
        ("bootstrap", p.bootstrap),
        ("seed", p.seed),
        ("drop", p.drop),
        (r.MEASURES, Section(tuple(blocks))),
    )
    return Report(body, notes=tuple(notes))


def build(inputs: Inputs, p: DesignParams) -> Report:
    """``bvtest design``: read the budget report (if any), evaluate, then the
    design report per measure."""
    if p.totals and p.budget_report is None:
        # a usage error, in the words of options.NEEDS (whose table its test lists)
        raise InputError("--total means something only with --budget-report FILE")
    budget = read_budget_report(p.budget_report) if p.budget_report is not None else None
    matrices, notes = load_one_measure(inputs, Evaluation.of(p))
    return design_report(matrices, p, budget).prefixed(notes)
