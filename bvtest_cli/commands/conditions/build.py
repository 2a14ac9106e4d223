"""Per-condition analysis (Zhang22 §5.4, Table 12, Figs. 2–3).

Session track participants submitted one run per experimental condition
(RL1–RL4). Each condition is analysed as its own pool of runs, with its own
virtual target, c, Bias², Var and MSE, and its own tradeoff correlation
(Table 12's rows), by :func:`bvtest_cli.sections.matrix.analyse` on the sub-matrix
of the condition's runs. Per system: Bias², Var and MSE = Bias² + Var under
each condition, and the condition with the lowest MSE ("19 of 27 systems
perform best on RL2"), counted per condition.

Which run is which (system, condition) comes from a map file (lines ``run
system condition``) or from a regular expression with named groups
``system`` and ``condition`` matched against run names.
"""

from __future__ import annotations

import re
from collections.abc import Sequence
from typing import TYPE_CHECKING

import numpy as np

from ...errors import InputError, UsageError, printable
from ...io.maps import Assignment, check_names, read_conditions
from ...io.sources import Inputs
from ...measures.matrix import ScoreMatrix
from ...options import input_paths
from ...report import registry
from ...report.model import Report, Section, Table, section
from ...sections.matrix import Analysis, analyse

if TYPE_CHECKING:
    from .params import ConditionsParams


def match_pattern(pattern: str, runs: Sequence[str]) -> Assignment:
    """Each run name, matched as a whole, gives its system and condition."""
    compiled = re.compile(pattern)
    out: Assignment = {}
    seen: dict[tuple[str, str], str] = {}
    for run in runs:
        found = compiled.fullmatch(run)
        if found is None:
            raise InputError(f"run {printable(run)!r} does not match the pattern", "--pattern")
        key = (found.group("system") or "", found.group("condition") or "")
        try:
            check_names(*key, "--pattern")
        except InputError as exc:
            raise InputError(f"run {printable(run)!r}: {exc.message}", "--pattern") from None
        if key in seen:
            raise InputError(
                f"runs {printable(seen[key])!r} and {printable(run)!r} are both system "
                f"{printable(key[0])!r} under condition {printable(key[1])!r}",
                "--pattern",
            )
        out[run] = key
        seen[key] = run
    return out


def assignment(
    map_file: str | None, pattern: str | None, runs: Sequence[str], notes: list[str]
) -> Assignment:
    """The (system, condition) of every run, from --map or --pattern."""

    if (map_file is None) == (pattern is None):
        raise UsageError("give one of --map FILE and --pattern REGEX")
    if pattern is not None:
        return match_pattern(pattern, runs)
    assert map_file is not None  # one of the two, checked above
    mapped = read_conditions(map_file)
    unmapped = [r for r in runs if r not in mapped]
    if unmapped:
        raise InputError(
            f"run {printable(unmapped[0])!r} is not in the map"
            + (f" (nor {len(unmapped) - 1} more)" if len(unmapped) > 1 else ""),
            map_file,
        )
    unused = [r for r in mapped if r not in runs]
    if unused:
        notes.append(f"{len(unused)} run(s) of the map are not among the inputs; ignored")
    return {r: mapped[r] for r in runs}


def best_conditions(mse: np.ndarray) -> np.ndarray:
    """Index of the lowest MSE per system (rows) over conditions (columns);
    ties go to the first condition, -1 where every MSE is undefined."""
    filled = np.where(np.isnan(mse), np.inf, mse)
    best = np.argmin(filled, axis=1)
    return np.where(np.isinf(filled.min(axis=1, initial=np.inf)), -1, best)


def measure_block(m: ScoreMatrix, a: Assignment, analysis: Analysis) -> tuple[Section, list[str]]:
    """One measure: each condition's pool analysed alone, then per system."""
    conditions = sorted({c for _, c in a.values()})
    systems = sorted({sy for sy, _ in a.values()})
    fields = (registry.BIAS2, registry.VAR, registry.MSE)
    cube = np.full((len(fields), len(systems), len(conditions)), np.nan)
    notes: list[str] = []
    cond_rows, cond_children = [], []
    for j, cond in enumerate(conditions):
        rows = [i for i, run in enumerate(m.systems) if a[run][1] == cond]
        sub = ScoreMatrix(m.measure, tuple(m.systems[i] for i in rows), m.topics, m.values[rows])
        block, block_notes = analyse(sub, analysis)
        notes += [f"{cond}: {n}" for n in block_notes]
        table = block.get(registry.SYSTEMS)
        assert isinstance(table, Table)
        for run in sub.systems:
            i = systems.index(a[run][0])
            for k, f in enumerate(fields):
                cube[k, i, j] = table.value(run, f)
        cond_rows.append(len(rows))
        cond_children.append(section((registry.TRADEOFF, block.get(registry.TRADEOFF))))
    best = best_conditions(cube[2])
    condition_table = Table(
        rows=tuple(conditions),
        fields=(registry.N_SYSTEMS,),
        values={registry.N_SYSTEMS.name: np.array(cond_rows)},
        children=tuple(cond_children),
    )
    per_system = tuple(
        section(
            (
                registry.CONDITIONS,
                Table(
                    rows=tuple(c for j, c in enumerate(conditions) if not np.isnan(cube[2, i, j])),
                    fields=fields,
                    values={
                        f.name: cube[k, i][~np.isnan(cube[2, i])] for k, f in enumerate(fields)
                    },
                ),
            )
        )
        for i in range(len(systems))
    )
    system_table = Table(
        rows=tuple(systems),
        fields=(registry.BEST_CONDITION,),
        values={
            registry.BEST_CONDITION.name: np.array(
                [conditions[b] if b >= 0 else None for b in best], dtype=object
            )
        },
        children=per_system,
    )
    counts = section(*((c, int((best == j).sum())) for j, c in enumerate(conditions)))
    out = section(
        (registry.N_TOPICS, len(m.topics)),
        (registry.SYSTEMS, system_table),
        (registry.CONDITIONS, condition_table),
        (registry.BEST_COUNTS, counts),
    )
    return out, notes


def conditions_report(matrices: Sequence[ScoreMatrix], p: ConditionsParams) -> Report:
    """The report of ``bvtest conditions``."""
    notes: list[str] = []
    a = assignment(p.map, p.condition_pattern, matrices[0].systems if matrices else (), notes)
    # every condition's pool is analysed alone: no baseline run among them
    analysis = Analysis.of(p, baseline=None)
    blocks = []
    for m in matrices:
        block, block_notes = measure_block(m, a, analysis)
        blocks.append((m.measure, block))
        notes += block_notes
    body = section(
        ("target", analysis.target),
        ("group", analysis.group_text),
        ("normalize", analysis.normalize),
        ("ddof", analysis.ddof),
        (registry.MEASURES, Section(tuple(blocks))),
    )
    table_fields = (registry.BEST_CONDITION, registry.BIAS2, registry.VAR, registry.MSE,
                    registry.N_SYSTEMS, *registry.TRADEOFF_FIELDS)  # fmt: skip
    return Report(body, table_fields=table_fields, notes=tuple(notes))


def build(inputs: Inputs, p: ConditionsParams) -> Report:
    """``bvtest conditions``: evaluate, analyse per condition, and the figure with --plot."""
    from ...render.plot import plot_conditions, plotted
    from ...sections.inputs import analysed

    return plotted(
        plot_conditions,
        p.plot,
        lambda: analysed(inputs, p, conditions_report),
        input_paths(inputs, p),
    )
