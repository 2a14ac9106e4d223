"""``bvtest compare``: paired tests of runs over the same topics (SPEC §11b).

For each measure and each pair (a, b) the difference a − b in mean, Var, MSE
and GeoRisk at every alpha, with a paired topic-bootstrap interval and
p-value (:func:`bvtest_cli.analyses.paired.compare_runs`), Holm's adjustment over
the pairs, and for Var the Pitman–Morgan test. The fields are the registry's
(:func:`bvtest_cli.report.pipeline.registry_statistic` restricted to them), computed
on the whole resampled matrix: every input run is in the pool, so the virtual
target, c and the GeoRisk expectations are those of ``bvtest eval``.

Which pairs: ``--pair A B`` (repeatable, names or paths), ``--pairs all``
(every pair, i < j in input order), or, with neither, the two runs of an
input that has exactly two.
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any

import click
import numpy as np

from ..analyses import risk
from ..analyses.paired import Comparison, compare_runs
from ..errors import InputError
from ..measures.matrix import ScoreMatrix
from ..report import registry
from ..report.model import Records, Report, Section, section
from ..settings import Settings
from .limits import check_request
from .values import as_reported, fmt, plain

#: The registry fields a comparison differences (GeoRisk at every alpha).
COMPARED = (registry.MEAN, registry.VAR, registry.MSE, registry.GEORISK)

#: Columns of the text formats, in order (JSON keys of a row, and the measure).
COLUMNS = (
    "measure",
    "a",
    "b",
    "field",
    "diff",
    "lo",
    "hi",
    "p",
    "p_holm",
    "test",
    "p_pm",
    "p_pm_holm",
)


def pairs_for(systems: Sequence[str], s: Settings) -> list[tuple[str, str]] | None:
    """The pairs to compare among ``systems`` (None: every pair).

    Raises InputError for a run that is not an input, a run paired with
    itself, or no choice with other than two runs.
    """
    if s.pairs == "all":
        if len(systems) < 2:
            raise InputError("--pairs all needs at least two runs")
        return None
    if not s.pair:
        if len(systems) != 2:
            raise click.UsageError(
                f"{len(systems)} runs: name the runs to compare with --pair RUN_A RUN_B, "
                "or use --pairs all"
            )
        return [(systems[0], systems[1])]
    shown = ", ".join(systems[:5]) + (", ..." if len(systems) > 5 else "")
    for a, b in s.pair:
        for name in (a, b):
            if name not in systems:
                raise InputError(f"run {name!r} is not among the runs ({shown})", "--pair")
        if a == b:
            raise InputError(f"run {a!r} is compared with itself", "--pair")
    return list(distinct_pairs(s.pair).values())


def distinct_pairs(pairs: Sequence[tuple[str, str]]) -> dict[frozenset[str], tuple[str, str]]:
    """Each comparison once, in the orientation first given: ``a b`` and
    ``b a`` are one test, and Holm's family counts it once."""
    out: dict[frozenset[str], tuple[str, str]] = {}
    for a, b in pairs:
        out.setdefault(frozenset((a, b)), (a, b))
    return out


def _check_names(s: Settings) -> None:
    """With QRELS RUNS..., the pairs are checked before anything is evaluated."""
    if s.scores is not None or len(s.inputs) < 2:
        return
    from ..io.sources import expand_sources
    from ..io.trec import read_qrels, read_run_columns

    sources = expand_sources(s.inputs[1:])
    try:
        pairs_for([src.name for src in sources], s)
    except (click.UsageError, InputError):
        # A file that cannot be read is the first thing to fix: name it
        # rather than count the runs it was meant to be one of.
        read_qrels(s.inputs[0])
        for source in sources:
            read_run_columns(source)
        raise


def measure_pairs(m: ScoreMatrix, s: Settings) -> tuple[list[Comparison], list[str]]:
    """Every comparison of one measure (pairs in order, fields in COMPARED
    order), and the notes."""
    from ..report.pipeline import bootstrap_statistic

    pairs = pairs_for(m.systems, s)
    check_request(s, len(m.systems), len(m.topics), "compare")
    x = m.values
    if s.normalize != "none":
        from ..analyses.grouping import normalized_topics

        m, _ = normalized_topics(m, s.normalize)
        x = m.values
        if x.shape[1] == 0:
            raise InputError(f"{m.measure}: no topics left after {s.normalize} normalization")
    notes = []
    if s.pair and len(distinct_pairs(s.pair)) < len(s.pair):
        notes.append(
            f"{m.measure}: a pair named twice (in either order) is compared once, "
            "in the order first given"
        )
    if risk.has_negative(x):
        notes.append(f"{m.measure}: negative scores; GeoRisk is undefined (null)")
    statistic = bootstrap_statistic(m, COMPARED, s, None)
    assert s.ci is not None

    def with_georisk(y: np.ndarray, target_row: np.ndarray | None = None) -> dict[str, np.ndarray]:
        out = statistic(y, target_row=target_row)
        if registry.GEORISK.name not in out:  # negative scores: GeoRisk undefined
            out[registry.GEORISK.name] = np.full((*out["mean"].shape, len(s.alphas)), np.nan)
        return out

    rows = compare_runs(
        x,
        m.systems,
        pairs,
        statistic=with_georisk,
        alphas=s.alphas,
        B=s.bootstrap,
        seed=s.seed,
        level=s.ci,
        method=registry.interval_methods(s.ci_method, COMPARED, paired=True),
        budget=s.ci_budget,
        # after normalization the target is 1 on every topic, as in eval
        target_row=np.ones(x.shape[1]) if s.normalize != "none" else None,
    )
    tested = [d for d in (row.as_dict() for row in rows) if d.get("test") == "pitman-morgan"]
    undefined = sum(1 for d in tested if d.get("p_pm") is None or not np.isfinite(d["p_pm"]))
    if undefined:
        n = x.shape[1]
        why = (
            f"the test has n - 2 degrees of freedom and needs at least 3 topics, got {n}"
            if n < 3
            else "the scores leave its statistic undefined"
        )
        notes.append(
            f"{m.measure}: the Pitman–Morgan p of equal variances (p_pm, p_pm_holm) is null "
            f"for {undefined} of {len(tested)} pair(s): {why}"
        )
    return rows, notes


#: The p-value columns: printed in exponent notation below the printed digits.
P_VALUES = ("p", "p_holm", "p_pm", "p_pm_holm")


def _row_json(row: Comparison) -> dict[str, Any]:
    return {k: as_reported(v, k in P_VALUES) for k, v in row.as_dict().items()}


def _row_text(measure: str):
    def text(row: Comparison, digits: int) -> tuple[str, ...]:
        d = row.as_dict()
        cells = [measure]
        for name in COLUMNS[1:]:
            value = as_reported(d.get(name), name in P_VALUES)
            cells.append("" if value is None and name not in d else fmt(plain(value), digits))
        return tuple(cells)

    return text


def compare_report(matrices: Sequence[ScoreMatrix], s: Settings) -> Report:
    """The report of ``bvtest compare``: a Records of comparisons per measure."""
    blocks = []
    notes: list[str] = []
    for m in matrices:
        rows, measure_notes = measure_pairs(m, s)
        notes += measure_notes
        records = Records(tuple(rows), _row_json, _row_text(m.measure), header=COLUMNS)
        blocks.append((m.measure, section(("pairs", records))))
    body = section(
        ("ci", s.ci),
        ("bootstrap", s.bootstrap),
        ("ci_method", s.ci_method),
        ("seed", s.seed),
        ("measures", Section(tuple(blocks))),
    )
    return Report(body, notes=tuple(notes))


def compare(s: Settings) -> Report:
    """``bvtest compare``: check the pairs, evaluate, compare."""
    from ..measures.evaluate import analysed

    _check_names(s)
    return analysed(s, compare_report)
