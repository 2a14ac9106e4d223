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
    from ...sections.matrix import Analysis, evaluated

    def report() -> Report:
        return evaluated(inputs, Evaluation.of(p), Analysis.of(p))

    return plotted(plot_report, p.output, report, input_paths(inputs, p))
