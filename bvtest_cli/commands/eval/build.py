"""``bvtest eval``: evaluate, then every analysis of every measure
(:mod:`bvtest_cli.sections.matrix`, which the matrix commands share)."""

from __future__ import annotations

from typing import TYPE_CHECKING

from ...io.sources import Inputs
from ...measures.evaluate import Evaluation
from ...report.model import Report
from ...sections.matrix import Analysis, Listing, evaluated

if TYPE_CHECKING:
    from .params import EvalParams


def build(inputs: Inputs, p: EvalParams) -> Report:
    """``bvtest eval``: evaluate, then every analysis of every measure."""
    listing = Listing(p.sort, p.digits) if p.per_topic else None
    # --ci on statAP or xinfAP: the estimates' sampling variances, from the
    # same reading of each run (docs/uncertainty.md#sampled-judgments)
    return evaluated(inputs, Evaluation.of(p), Analysis.of(p), p.ci is not None, listing)
