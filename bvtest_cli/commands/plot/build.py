"""``bvtest plot``: eval's report drawn as a figure (matplotlib, an extra)."""

from __future__ import annotations

from ...report.model import Report
from ...settings import Settings


def build(s: Settings) -> Report:
    """``bvtest plot``: evaluate, analyse, draw to --output."""
    from ...render.plot import plot_report, plotted
    from ...sections.inputs import analysed
    from ...sections.matrix import eval_report

    return plotted(plot_report, s.output, lambda: analysed(s, eval_report), s.input_paths())
