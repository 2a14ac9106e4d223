"""``bvtest eval``: evaluate, then every analysis of every measure
(:mod:`bvtest_cli.sections.matrix`, which the matrix commands share)."""

from __future__ import annotations

from ...report.model import Report
from ...sections.inputs import load
from ...sections.matrix import eval_report
from ...settings import Settings


def build(s: Settings) -> Report:
    """``bvtest eval``: evaluate, then every analysis of every measure."""
    # --ci on statAP or xinfAP: the estimates' sampling variances, from the
    # same reading of each run (docs/uncertainty.md#sampled-judgments)
    matrices, notes = load(s, sampling_variances=s.ci is not None)
    rule = None if s.scores is not None else s.topic_set
    return eval_report(matrices, s, rule).prefixed(notes)
