"""``bvtest compare``: paired tests of runs over the same topics (docs/uncertainty.md).

For each measure and each pair (a, b) the difference a − b in mean, Var, MSE
and GeoRisk at every alpha, with a paired topic-bootstrap interval and
p-value (:func:`bvtest_cli.analyses.paired.compare_runs`), Holm's adjustment over
the pairs, and for Var the Pitman–Morgan test. The fields are the registry's
(:func:`bvtest_cli.sections.matrix.registry_statistic` restricted to them), computed
on the whole resampled matrix: every input run is in the pool, so the virtual
target, c and the GeoRisk expectations are those of ``bvtest eval``.

Which pairs: ``--pair A B`` (repeatable, names or paths), ``--pairs all``
(every pair, i < j in input order), or, with neither, the two runs of an
input that has exactly two.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import replace
from typing import TYPE_CHECKING, Any

import numpy as np

from ...analyses import risk
from ...analyses.paired import (
    GEORISK_TEST_PAIRS,
    CompareSpec,
    Comparison,
    Comparisons,
    compare_runs,
)
from ...analyses.rankings import TIE_RTOL
from ...errors import InputError, UsageError
from ...io.sources import Inputs
from ...measures.matrix import ScoreMatrix
from ...report import registry
from ...report.limits import refuse_bootstrap
from ...report.model import COMPARISONS, Records, Report, Section, section
from ...report.values import as_reported, fmt, plain

#: The registry fields a comparison differences (GeoRisk at every alpha).
COMPARED = (registry.MEAN, registry.VAR, registry.MSE, registry.GEORISK)

#: Columns of the text formats, in order (JSON keys of a row, and the measure);
#: glass_delta (with --baseline) and q (--test tukey) go before p_pm.
COLUMNS = (
    "measure",
    registry.COMPARE_A,
    registry.COMPARE_B,
    registry.COMPARE_FIELD,
    registry.COMPARE_DIFF,
    registry.COMPARE_LO,
    registry.COMPARE_HI,
    "p",
    registry.COMPARE_P_ADJ,
    "p_lo",
    "p_hi",
    "test",
    registry.COMPARE_SIGNIFICANT,
    "effect_size",
    "p_pm",
    "p_pm_adj",
)

if TYPE_CHECKING:
    from .params import CompareParams


def pairs_for(
    systems: Sequence[str],
    p: CompareParams,
    runs: Sequence[str] = (),
    notes: list[str] | None = None,
) -> list[tuple[str, str]] | None:
    """The pairs to compare among ``systems`` (None: every pair); ``notes``
    receives, once per name, how a name that is no run's was taken;
    ``runs``: the run files read (none from a scores file), whose tags name
    runs too.

    Raises InputError for a run that is not an input, a run paired with
    itself, or no choice with other than two runs. A name that is no run's
    is resolved by :func:`~bvtest_cli.io.runnames.resolve_run` (without
    TREC's ``input.`` prefix, or a run tag of the files read).
    """
    from ...io.runnames import file_tags, resolve_run

    if p.pairs == "all":
        if len(systems) < 2:
            raise InputError("--pairs all needs at least two runs")
        return None
    if not p.pair:
        if len(systems) != 2:
            raise UsageError(
                f"{len(systems)} runs: name the runs to compare with --pair RUN_A RUN_B, "
                "or use --pairs all"
            )
        return [(systems[0], systems[1])]
    tags = None
    if runs and p.name != "tag":
        tags = file_tags(runs)
    pairs = []
    for pair in p.pair:
        resolved = [resolve_run(name, systems, "--pair", tags) for name in pair]
        for _, note in resolved:
            if notes is not None and note and note not in notes:
                notes.append(note)
        a, b = (run for run, _ in resolved)
        if a == b:
            raise InputError(f"run {a!r} is compared with itself", "--pair")
        pairs.append((a, b))
    return list(distinct_pairs(pairs).values())


def distinct_pairs(pairs: Sequence[tuple[str, str]]) -> dict[frozenset[str], tuple[str, str]]:
    """Each comparison once, in the orientation first given: ``a b`` and
    ``b a`` are one test, and Holm's family counts it once."""
    out: dict[frozenset[str], tuple[str, str]] = {}
    for a, b in pairs:
        out.setdefault(frozenset((a, b)), (a, b))
    return out


def _check_names(inputs: Inputs, p: CompareParams) -> None:
    """With QRELS RUNS..., the pairs are checked before anything is evaluated."""
    if inputs.scores is not None or inputs.qrels is None or not inputs.runs:
        return
    from ...io.sources import expand_sources
    from ...io.trec import read_qrels, read_run_columns

    sources = expand_sources(inputs.runs)
    try:
        pairs_for([src.name for src in sources], p, inputs.runs)
    except (UsageError, InputError):
        # A file that cannot be read is the first thing to fix: name it
        # rather than count the runs it was meant to be one of.
        read_qrels(inputs.qrels)
        for source in sources:
            read_run_columns(source)
        raise


def measure_pairs(
    m: ScoreMatrix, p: CompareParams, runs: Sequence[str] = ()
) -> tuple[list[Comparison], list[str], Records]:
    """Every comparison of one measure (pairs in order, fields in COMPARED
    order), the notes, and the significance matrix of the mean; ``runs``:
    the run files read (:func:`pairs_for`)."""
    from ...measures.matrix import target_constant, virtual_target
    from ...sections.matrix import Analysis, baseline_index, bootstrap_statistic

    taken: list[str] = []  # a name taken as a run's (input.X for X, a tag), once per name
    pairs = pairs_for(m.systems, p, runs, taken)
    if p.ci is not None:
        refuse_bootstrap(p.bootstrap, len(m.systems), len(m.topics))
    a = Analysis.of(p)
    x = m.values
    if p.normalize != "none":
        from ...analyses.grouping import normalized_topics

        m, _ = normalized_topics(m, p.normalize)
        x = m.values
        if x.shape[1] == 0:
            raise InputError(f"{m.measure}: no topics left after {p.normalize} normalization")
    if p.test in ("tukey", "randomised-tukey") and (x.shape[0] < 2 or x.shape[1] < 2):
        raise InputError(f"{m.measure}: --test {p.test} needs at least 2 runs and 2 topics")
    notes = list(taken)
    if p.pair and len(distinct_pairs(p.pair)) < len(p.pair):
        notes.append(
            f"{m.measure}: a pair named twice (in either order) is compared once, "
            "in the order first given"
        )
    if risk.has_negative(x):
        notes.append(f"{m.measure}: negative scores; GeoRisk is undefined (null)")
    fields = compared_fields(p)
    chosen = [f for f in COMPARED if f.name in fields]
    statistic = bootstrap_statistic(m, chosen, a, None)
    assert p.ci is not None

    def with_georisk(y: np.ndarray, target_row: np.ndarray | None = None) -> dict[str, np.ndarray]:
        out = statistic(y, target_row=target_row)
        if "georisk" in fields and registry.GEORISK.name not in out:  # negative scores
            out[registry.GEORISK.name] = np.full((*out["mean"].shape, len(p.alphas)), np.nan)
        return out

    # after normalization the target is 1 on every topic, as in eval
    normalized = p.normalize != "none"
    target_row = np.ones(x.shape[1]) if normalized else virtual_target(x)
    fixed = normalized and p.target in ("max", "ideal")
    c = 1.0 if fixed else target_constant(target_row, p.target)
    result = compare_runs(
        x,
        m.systems,
        pairs,
        statistic=with_georisk,
        spec=CompareSpec(
            alphas=p.alphas,
            B=p.bootstrap,
            seed=p.seed,
            level=p.ci,
            method=registry.interval_methods(p.ci_method, chosen, paired=True),
            budget=a.ci_budget,
            test=p.test,
            correction=p.correction,
            significance=p.significance,
            fields=fields,
        ),
        target_row=np.ones(x.shape[1]) if normalized else None,
        c=float(c),
        baseline=baseline_index(m.systems, p.baseline),
    )
    rows, cut = within_range(result.rows, m.measure, x.shape[1], p.ddof)
    result = replace(result, rows=rows)
    if cut:
        notes.append(cut)
    notes += comparison_notes(m.measure, result, p)
    undefined_effect = [r for r in rows if r.field == "mean" and r.effect_size is not None
                        and not np.isfinite(r.effect_size) and x.shape[1] > 1]  # fmt: skip
    if undefined_effect:
        notes.append(
            f"{m.measure}: effect_size null for {len(undefined_effect)} pair(s) "
            f"({_named_rows(undefined_effect)}): the residual spread V_E of the runs compared "
            "is 0 (every difference the same on every topic), and d/√V_E is undefined"
        )
    if (
        p.baseline is not None
        and any(r.glass_delta is not None and not np.isfinite(r.glass_delta) for r in rows)
        and x.shape[1] > 1
    ):
        notes.append(
            f"{m.measure}: glass_delta null: the baseline {p.baseline} scores the same on "
            "every topic (its standard deviation is 0)"
        )
    tested = [r for r in result.rows if r.field == "var"]
    undefined = sum(1 for r in tested if r.p_pm is None or not np.isfinite(r.p_pm))
    if undefined:
        n = x.shape[1]
        why = (
            f"the test has n - 2 degrees of freedom and needs at least 3 topics, got {n}"
            if n < 3
            else "the scores leave its statistic undefined"
        )
        notes.append(
            f"{m.measure}: the Pitman–Morgan p of equal variances (p_pm, p_pm_adj) is null "
            f"for {undefined} of {len(tested)} pair(s): {why}"
        )
    return result.rows, notes, significance_matrix(m, result.rows)


def _named_rows(rows: Sequence[Comparison], most: int = 5) -> str:
    shown = ", ".join(f"{r.a}:{r.b} {r.field}" for r in rows[:most])
    return shown + (", ..." if len(rows) > most else "")


def within_range(
    rows: Sequence[Comparison], measure: str, n: int, ddof: int
) -> tuple[list[Comparison], str | None]:
    """Intervals cut to what the difference can be when every score of the
    measure lies in [0, 1] (:func:`~bvtest_cli.measures.names.unit_range`):
    a mean or an MSE in [0, 1], so a difference in [−1, 1]; a Var at most
    n/(4(n − ddof)). A studentized interval on a few topics can reach beyond
    (a jackknife standard error of near 0 divides a resampled difference);
    the cut ones are named in the note returned."""
    from ...measures.names import unit_range

    if not unit_range(measure):
        return list(rows), None
    var_top = 0.25 * n / max(n - ddof, 1)
    limits = {"mean": 1.0, "mse": 1.0, "var": var_top}
    out, cut = [], []
    for r in rows:
        top = limits.get(r.field)
        if top is not None and (r.lo < -top or r.hi > top):
            cut.append(r)
            r = replace(r, lo=max(r.lo, -top), hi=min(r.hi, top))
        out.append(r)
    if not cut:
        return out, None
    return out, (
        f"{measure}: {len(cut)} interval(s) reached beyond what a difference of {measure} can "
        f"be ({_named_rows(cut)}) and were cut to it ([−1, 1] for mean and mse): with {n} "
        "topics a studentized interval is unreliable; --ci-method percentile stays within "
        "the data"
    )


def compared_fields(p: CompareParams) -> tuple[str, ...]:
    """--fields, or its default: every field for named pairs, the mean for all pairs."""
    if p.compare_fields is not None:
        return p.compare_fields
    return ("mean",) if p.pairs == "all" else ("mean", "var", "mse", "georisk")


def comparison_notes(measure: str, result: Comparisons, p: CompareParams) -> list[str]:
    """What a reader of the p-values must know: pairs left unresolved, GeoRisk's
    floor or absence, and intervals that disagree with their test."""
    notes = []
    for field, pairs in result.unresolved.items():
        shown = ", ".join(f"{a}:{b}" for a, b in pairs[:5]) + (", ..." if len(pairs) > 5 else "")
        notes.append(
            f"{measure}: {field}: {len(pairs)} pair(s) not resolved at {p.significance:g} (p "
            f"or p_adj) by the randomization test ({shown}); their p is an "
            f"upper bound; --bootstrap {4 * max(p.bootstrap, 1 << 21)} draws more relabellings"
        )
    n_pairs = len({(r.a, r.b) for r in result.rows})
    georisk = [r for r in result.rows if r.field.startswith("georisk")]
    if georisk and not result.georisk_tested:
        notes.append(
            f"{measure}: GeoRisk differences of {n_pairs} pairs are not tested (p null): a "
            f"relabelling test of GeoRisk is run for at most {GEORISK_TEST_PAIRS} pairs; "
            "name them with --pair"
        )
    elif georisk and p.correction != "none":
        floor = min(1.0, n_pairs / (p.bootstrap + 1)) if p.correction != "bh" else None
        if floor is not None and floor >= p.significance:
            notes.append(
                f"{measure}: GeoRisk p-values come from {p.bootstrap} relabellings (p ≥ "
                f"1/{p.bootstrap + 1}); with {n_pairs} pairs and --correction {p.correction} "
                f"no GeoRisk difference can reach {p.significance:g}: --bootstrap "
                f"{int(np.ceil(20 * n_pairs / p.significance))} can"
            )
    assert p.ci is not None
    disagree = [
        r for r in result.rows
        if r.p is not None and r.p_adj is not None and r.field in ("mean", "var", "mse")
        and np.isfinite(r.lo) and np.isfinite(r.hi) and np.isfinite(r.p)
        and (r.p < 1 - p.ci) == (r.lo <= 0 <= r.hi)
    ]  # fmt: skip
    if disagree:
        fields = {r.field for r in disagree}
        notes.append(
            f"{measure}: {len(disagree)} row(s) ({_named_rows(disagree)}) where the "
            f"{p.ci:g} interval and the "
            f"p-value at {1 - p.ci:g} disagree: the interval is a paired bootstrap, p a "
            f"{p.test} test — different methods, which can differ near the edge"
            + ("; MSE's interval also moves with the pool's target" if "mse" in fields else "")
        )
    return notes


def significance_matrix(m: ScoreMatrix, rows: Sequence[Comparison]) -> Records:
    """Runs × runs, sorted by mean (best first): ▲ where the row's run is
    significantly above the column's after the correction, ▼ below, · not
    significantly different, blank where the pair was not compared."""
    means = m.values.mean(axis=1)
    order = sorted(range(len(m.systems)), key=lambda i: (-means[i], m.systems[i]))
    runs = [m.systems[i] for i in order]
    mark: dict[tuple[str, str], str] = {}
    for r in rows:
        if r.field != "mean" or r.significant is None:
            continue
        up = r.diff > 0
        mark[r.a, r.b] = ("▲" if up else "▼") if r.significant else "·"
        mark[r.b, r.a] = ("▼" if up else "▲") if r.significant else "·"
    cells = tuple(
        (k + 1, run, float(means[order[k]]), tuple(mark.get((run, o), "") for o in runs))
        for k, run in enumerate(runs)
    )

    def as_json(cell: tuple) -> dict[str, Any]:
        rank, run, mean, marks = cell
        return {
            "rank": rank, "run": run, "mean": as_reported(mean, False),
            "above": [o for o, x in zip(runs, marks, strict=True) if x == "▲"],
            "below": [o for o, x in zip(runs, marks, strict=True) if x == "▼"],
        }  # fmt: skip

    def as_text(cell: tuple, digits: int) -> tuple[str, ...]:
        rank, run, mean, marks = cell
        return (str(rank), run, fmt(mean, digits), *(x or " " for x in marks))

    header = ("rank", "run", "mean", *(str(k + 1) for k in range(len(runs))))
    title = "the mean, row − column: ▲ significantly higher, ▼ lower, · no significant difference"
    return Records(cells, as_json, as_text, header=header, overview=title)


#: The p-value columns: printed in exponent notation below the printed digits.
P_VALUES = ("p", "p_adj", "p_lo", "p_hi", "p_pm", "p_pm_adj")


def _row_json(row: Comparison) -> dict[str, Any]:
    return {k: as_reported(v, k in P_VALUES) for k, v in row.as_dict().items()}


def columns_of(p: CompareParams) -> tuple[str, ...]:
    """The text formats' columns: the measure, then the keys of a row (those
    that apply to this run of the command)."""
    extra = (*(("glass_delta",) if p.baseline else ()), *(("q",) if p.test == "tukey" else ()))
    return (*COLUMNS[:-2], *extra, *COLUMNS[-2:])


def _row_text(measure: str, columns: Sequence[str]):
    def text(row: Comparison, digits: int) -> tuple[str, ...]:
        d = row.as_dict()
        cells = [measure]
        for name in columns[1:]:
            value = d.get(name)
            if isinstance(value, bool):
                cells.append("yes" if value else "no")
                continue
            value = as_reported(value, name in P_VALUES)
            cells.append("" if value is None else fmt(plain(value), digits))
        return tuple(cells)

    return text


def compare_report(
    matrices: Sequence[ScoreMatrix], p: CompareParams, runs: Sequence[str] = ()
) -> Report:
    """The report of ``bvtest compare``: a Records of comparisons per measure,
    and the significance matrix of the mean; ``runs``: the run files read
    (:func:`pairs_for`)."""
    blocks = []
    notes: list[str] = []
    columns = columns_of(p)
    for m in matrices:
        rows, measure_notes, matrix = measure_pairs(m, p, runs)
        notes += [n for n in measure_notes if n not in notes]  # a run name's, once
        records = Records(
            tuple(rows), _row_json, _row_text(m.measure, columns), header=columns, kind=COMPARISONS
        )
        blocks.append(
            (m.measure, section((registry.PAIRS, records), ("significance_matrix", matrix)))
        )
    body = section(
        ("test", p.test),
        ("correction", p.correction if p.test not in ("tukey", "randomised-tukey") else "none"),
        ("significance", p.significance),
        ("tie_tolerance", TIE_RTOL),  # differences within it of 0 are 0 (analyses.paired)
        ("ci", p.ci),
        ("bootstrap", p.bootstrap),
        ("ci_method", p.ci_method),
        ("seed", p.seed),
        (registry.MEASURES, Section(tuple(blocks))),
    )
    return Report(body, notes=tuple(notes))


def build(inputs: Inputs, p: CompareParams) -> Report:
    """``bvtest compare``: check the pairs, evaluate, compare."""
    from ...sections.inputs import analysed

    _check_names(inputs, p)

    def report(matrices: list[ScoreMatrix], q: CompareParams) -> Report:
        return compare_report(matrices, q, inputs.runs)

    return analysed(inputs, p, report)
