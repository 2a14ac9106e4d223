"""``bvtest scores``: per-topic scores as a long TSV: system, topic, measure, value."""

from __future__ import annotations

from typing import TYPE_CHECKING

from ...options import EVALUATION, RUNS, Command

if TYPE_CHECKING:
    from ...io.sources import Inputs
    from ...report.model import Report
    from .params import ScoresParams


def run(inputs: Inputs, p: ScoresParams) -> Report:
    """Per-topic scores as a long TSV: system, topic, measure, value.

    The topic set is the one every analysis uses (qrels topics with a relevant
    document; a run missing one scores 0 there), and values are written in
    full precision, so `bvtest eval --scores` on this file prints the same
    numbers as `bvtest eval` on the runs.

    \b
    Examples:
      bvtest scores qrels/qrels.txt sample_runs/ > scores.tsv
      bvtest scores -m ERR@20 qrels/qrels.txt sample_runs/ | bvtest eval --scores -
    """
    from .build import build

    return build(inputs, p)


COMMAND = Command(
    "scores",
    ("inputs", "name", *EVALUATION),
    run,
    overrides={"inputs": RUNS},
)
