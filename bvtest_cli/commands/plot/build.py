"""``bvtest plot``: eval's report drawn as a figure (matplotlib, an extra)."""

from __future__ import annotations

from typing import TYPE_CHECKING

from ...io.sources import Inputs
from ...options import as_settings
from ...report.model import Report

if TYPE_CHECKING:
    from ..params import PlotParams


def build(inputs: Inputs, p: PlotParams) -> Report:
    """``bvtest plot``: evaluate, analyse, draw to --output."""
    s = as_settings(inputs, p)
    from ...render.plot import plot_report, plotted
    from ...sections.inputs import analysed
    from ...sections.matrix import eval_report

    return plotted(plot_report, s.output, lambda: analysed(s, eval_report), s.input_paths())
