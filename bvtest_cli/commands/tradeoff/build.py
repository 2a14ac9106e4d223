"""The effectiveness–stability tradeoff table (docs/numbers.md; Zhang22 Table 9,
Zhang14 Table 2).

For every measure, the Pearson and Spearman correlation (with two-sided
p-values) of Bias² and Var across runs in six settings: the topic groupings
{all topics, ``random:K1``, ``difficulty:K2``} × {raw scores, normalized
scores}. Each setting is one :func:`bvtest_cli.analyses.grouping.analyse` call followed
by :func:`bvtest_cli.analyses.tradeoff.correlate`, so every number equals what
``bvtest eval --group G --normalize N`` reports as ``tradeoff``.
"""

from __future__ import annotations

from collections.abc import Sequence
from functools import partial
from typing import TYPE_CHECKING, Any

import numpy as np

from ...analyses import grouping
from ...analyses.tradeoff import Tradeoff, correlate
from ...io.sources import Inputs
from ...measures.matrix import ScoreMatrix
from ...report import registry
from ...report.limits import refuse_groupings
from ...report.model import Report, Section, section
from ...report.values import as_reported

if TYPE_CHECKING:
    from .params import TradeoffParams

RAW = "raw"
NAN = float("nan")


def groupings(s: TradeoffParams) -> list[tuple[str, tuple[str, int] | None]]:
    """(row name, grouping) of the three rows, in table order."""
    return [
        ("all", None),
        (f"random:{s.random_size}", ("random", s.random_size)),
        (f"difficulty:{s.difficulty_size}", ("difficulty", s.difficulty_size)),
    ]


def _cell(
    t: Tradeoff,
    n_topics: int,
    n_groups: int | None,
    grouped: bool,
    repeats: dict[str, np.ndarray] | None = None,
) -> Section:
    items: list[tuple[Any, Any]] = [
        (f, as_reported(getattr(t, f.name), f.probability)) for f in registry.TRADEOFF_FIELDS
    ]
    items.append((registry.N_TOPICS, n_topics))
    if grouped:
        items.append((registry.N_GROUPS, n_groups))
    if repeats is not None:  # random:K: the distribution over the repeats
        from ...sections.matrix import repeats_section

        items.append(("repeats", repeats_section(repeats)))
    return section(*items)


def measure_table(m: ScoreMatrix, s: TradeoffParams) -> tuple[Section, list[str]]:
    """The six settings of one measure: (block, notes), notes deduplicated."""
    refuse_groupings(s.repeats, len(m.systems), len(m.topics))
    rows = []
    notes: list[str] = []
    undefined: dict[str, list[str]] = {}  # reason → settings where the correlation is NaN
    for row, group in groupings(s):
        cells = []
        for column, norm in ((RAW, "none"), (s.normalize, s.normalize)):
            where = f"{row}/{column}"
            try:
                a = grouping.analyse(
                    m,
                    group=group,
                    normalize=norm,
                    target=s.target,
                    repeats=s.repeats,
                    seed=s.seed,
                    statistic=partial(grouping.bias_variance, ddof=s.ddof),
                )
            except ValueError as exc:
                # e.g. every topic tied under minmax: this cell only is undefined
                reason = str(exc).removeprefix(f"{m.measure}: ")
                undefined.setdefault(reason, []).append(where)
                cells.append((column, _cell(Tradeoff(NAN, NAN, NAN, NAN), 0, 0, group is not None)))
                continue
            notes.extend(a.notes)
            t = correlate(a.fields["bias2"], a.fields["var"])
            if t.reason:
                undefined.setdefault(t.reason, []).append(where)
            cell = _cell(t, a.n_topics, a.n_groups, group is not None, a.repeat_correlations)
            cells.append((column, cell))
        rows.append((row, section(*cells)))
    for reason, places in undefined.items():
        scope = "every setting" if len(places) == 6 else ", ".join(places)
        notes.append(f"{m.measure}: tradeoff correlation undefined ({scope}): {reason}")
    block = section((registry.N_SYSTEMS, len(m.systems)), (registry.N_TOPICS, len(m.topics)), *rows)
    return block, list(dict.fromkeys(notes))


def tradeoff_report(matrices: Sequence[ScoreMatrix], s: TradeoffParams) -> Report:
    """The report of ``bvtest tradeoff``."""
    blocks, notes = [], []
    for m in matrices:
        block, measure_notes = measure_table(m, s)
        blocks.append((m.measure, block))
        notes.extend(measure_notes)
    body = section(
        ("target", s.target),
        ("repeats", s.repeats),
        ("seed", s.seed),
        ("random_size", s.random_size),
        ("difficulty_size", s.difficulty_size),
        ("normalize", s.normalize),
        (registry.MEASURES, Section(tuple(blocks))),
    )
    return Report(body, table_fields=registry.TRADEOFF_FIELDS, notes=tuple(notes))


def build(inputs: Inputs, p: TradeoffParams) -> Report:
    """``bvtest tradeoff``: evaluate, then the tradeoff table per measure."""
    from ...sections.inputs import analysed

    return analysed(inputs, p, tradeoff_report)
