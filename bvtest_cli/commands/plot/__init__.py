"""``bvtest plot``: draw Bias²/Var/MSE per run, the Bias²–Var tradeoff and GeoRisk vs alpha."""

from __future__ import annotations

from typing import TYPE_CHECKING

from ...options import ANALYSIS, CI, EVALUATION, INPUTS, Command

if TYPE_CHECKING:
    from ...io.sources import Inputs
    from ...report.model import Report
    from .params import PlotParams


def run(inputs: Inputs, p: PlotParams) -> Report:
    """Draw Bias²/Var/MSE per run, the Bias²–Var tradeoff and GeoRisk vs alpha.

    One row of three panels per measure, from the same analysis as eval (same
    options). The Bias²–Var scatter marks the Pareto front (runs no other run
    beats on both), and with --ci shows each run's intervals as error bars.
    Needs matplotlib: pip install 'bvtest[plot]'. Writes only FILE,
    nothing on stdout; exit 2 when matplotlib is missing, the extension is not
    png/svg/pdf or FILE cannot be written.

    \b
    Examples:
      bvtest plot -o bv.png qrels/qrels.txt sample_runs/
      bvtest plot -m ERR@20 --normalize minmax -o err.pdf qrels/qrels.txt sample_runs/
      bvtest scores qrels/qrels.txt sample_runs/ > scores.tsv
      bvtest plot --scores scores.tsv -o bv.svg
    """
    from .build import build

    return build(inputs, p)


COMMAND = Command(
    "plot",
    (*INPUTS, *EVALUATION, *ANALYSIS, *CI, "output"),
    run,
)
