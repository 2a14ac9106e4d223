"""``bvtest instability``: where instability comes from (Zhang22 Table 8), runs sorted by mean."""

from __future__ import annotations

from typing import TYPE_CHECKING

from ...options import CI, EVALUATION, INPUTS, OUTPUT, Command

if TYPE_CHECKING:
    from ...io.sources import Inputs
    from ...report.model import Report
    from .params import InstabilityParams


def run(inputs: Inputs, p: InstabilityParams) -> Report:
    """Where instability comes from (Zhang22 Table 8), runs sorted by mean.

    Per run: |ZRisk| against the virtual target at alpha 0, Var(ρ) and its
    decomposition Var(ρ) = Var(x_T) + Var(x_i) − 2 Cov(x_T, x_i). ZRisk only
    says that a run is unstable; a large Var(x_i) says the run's own scores
    swing, a small Cov(x_T, x_i) says it fails where the best runs succeed.
    With --ci, topic-bootstrap intervals as in eval (|ZRisk|'s is the image
    of ZRisk's interval under |.|).

    \b
    Examples:
      bvtest instability -m ERR@20 --format table qrels/qrels.txt sample_runs/
      bvtest scores qrels/qrels.txt sample_runs/ > scores.tsv
      bvtest instability --scores scores.tsv -f json
    """
    from .build import build

    return build(inputs, p)


COMMAND = Command(
    "instability",
    (*INPUTS, *EVALUATION, "target", "normalize", "ddof", "seed", *CI, *OUTPUT),
    run,
)
