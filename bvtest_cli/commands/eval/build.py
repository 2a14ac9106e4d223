"""``bvtest eval``: evaluate, then every analysis of every measure
(:mod:`bvtest_cli.sections.matrix`, which the matrix commands share)."""

from __future__ import annotations

from typing import TYPE_CHECKING

from ...io.sources import Inputs
from ...measures.evaluate import Evaluation
from ...report.model import Report
from ...sections.inputs import load
from ...sections.matrix import Analysis, Listing, eval_report

if TYPE_CHECKING:
    from .params import EvalParams


def build(inputs: Inputs, p: EvalParams) -> Report:
    """``bvtest eval``: evaluate, then every analysis of every measure."""
    e = Evaluation.of(p)
    # --ci on statAP or xinfAP: the estimates' sampling variances, from the
    # same reading of each run (docs/uncertainty.md#sampled-judgments)
    matrices, notes = load(inputs, e, sampling_variances=p.ci is not None)
    rule = "file" if inputs.scores is not None else p.topic_set
    listing = Listing(p.sort, p.digits) if p.per_topic else None
    return eval_report(matrices, Analysis.of(p), e, rule, listing).prefixed(notes)
