"""``bvtest plot``: eval's report drawn as a figure (matplotlib, an extra)."""

from __future__ import annotations

from typing import TYPE_CHECKING

from ...io.sources import Inputs
from ...options import input_paths
from ...report.model import Report

if TYPE_CHECKING:
    from .params import PlotParams


def build(inputs: Inputs, p: PlotParams) -> Report:
    """``bvtest plot``: evaluate, analyse, draw to --output."""
    from ...measures.evaluate import Evaluation
    from ...render.plot import plot_report, plotted
    from ...sections.inputs import load
    from ...sections.matrix import Analysis, eval_report

    def report() -> Report:
        e = Evaluation.of(p)
        matrices, notes = load(inputs, e)
        rule = "file" if inputs.scores is not None else p.topic_set
        return eval_report(matrices, Analysis.of(p), e, rule).prefixed(notes)

    return plotted(plot_report, p.output, report, input_paths(inputs, p))
