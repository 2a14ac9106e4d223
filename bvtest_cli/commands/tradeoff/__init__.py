"""``bvtest tradeoff``: bias² vs Var correlation across runs per grouping (Zhang22 Table 9)."""

from __future__ import annotations

from typing import TYPE_CHECKING

from ...options import EVALUATION, INPUTS, OUTPUT, Command
from ...options.kinds import Choice

if TYPE_CHECKING:
    from ...io.sources import Inputs
    from ...report.model import Report
    from .params import TradeoffParams


TRADEOFF_NORMALIZE = dict(
    type=Choice(["minmax", "ratio"]),
    default="minmax",
    show_default=True,
    help="Normalization of the second column group (ratio: Zhang14 Table 2(d)).",
)


def run(inputs: Inputs, p: TradeoffParams) -> Report:
    """Bias² vs Var correlation across runs per grouping (Zhang22 Table 9).

    For every measure, Pearson and Spearman (two-sided p-values) of Bias² and
    Var across runs for {all topics, random:K1, difficulty:K2} × {raw,
    minmax}: each cell is the tradeoff that `bvtest eval --group G
    --normalize N` reports. Strongly negative = effectiveness–stability
    tradeoff. Undefined cells are nan (null in JSON), with the reason on
    stderr.

    \b
    JSON: {"target", "repeats", "seed", "random_size", "difficulty_size",
           "normalize", "measures": {MEASURE: {"n_systems", "n_topics",
             "all" | "random:K1" | "difficulty:K2": {"raw" | "minmax"|"ratio": {
               "pearson", "pearson_p", "spearman", "spearman_p",
               "n_topics", "n_groups" (grouped rows only)}}}}}
    trec: AP.all.raw.pearson<TAB>all<TAB>-0.9068

    \b
    Examples:
      bvtest tradeoff -f table qrels/qrels.txt sample_runs/
      bvtest tradeoff --random-size 10 --difficulty-size 10 -m AP qrels/qrels.txt sample_runs/
      bvtest scores qrels/qrels.txt sample_runs/ > scores.tsv
      bvtest tradeoff --scores scores.tsv -f json
    """
    from .build import build

    return build(inputs, p)


COMMAND = Command(
    "tradeoff",
    (
        *INPUTS,
        *EVALUATION,
        "target",
        "random_size",
        "difficulty_size",
        "normalize",
        "repeats",
        "seed",
        "ddof",
        *OUTPUT,
    ),
    run,
    overrides={"normalize": TRADEOFF_NORMALIZE},
)
