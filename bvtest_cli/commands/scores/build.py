"""``bvtest scores``: every per-topic score, as a long table."""

from __future__ import annotations

from collections.abc import Sequence
from typing import TYPE_CHECKING

from ...io.sources import SCORES_HEADER, Inputs
from ...measures.matrix import ScoreMatrix
from ...report.model import Records, Report, section

if TYPE_CHECKING:
    from .params import ScoresParams


def scores_report(matrices: Sequence[ScoreMatrix], notes: Sequence[str]) -> Report:
    """The report of ``bvtest scores``: every per-topic score, full precision
    (``repr``, so that reading the file back gives the same floats)."""
    cells = tuple(
        (system, topic, m.measure, value)
        for m in matrices
        for i, system in enumerate(m.systems)
        for topic, value in zip(m.topics, m.values[i].tolist(), strict=True)
    )
    names = SCORES_HEADER
    records = Records(
        cells,
        as_json=lambda cell: dict(zip(names, cell, strict=True)),
        as_text=lambda cell, digits: (*cell[:3], repr(cell[3])),
        header=names,
        full_precision=True,
    )
    return Report(section(("scores", records)), notes=tuple(notes))


def build(inputs: Inputs, p: ScoresParams) -> Report:
    """``bvtest scores``: evaluate, then every score."""
    from ...measures.evaluate import Evaluation
    from ...sections.inputs import load

    matrices, notes = load(inputs, Evaluation.of(p))
    return scores_report(matrices, notes)
