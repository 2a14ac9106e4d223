"""``bvtest conditions``: each experimental condition as its own pool of runs (Zhang22 §5.4)."""

from __future__ import annotations

from typing import TYPE_CHECKING

from ...options import EVALUATION, INPUTS, OUTPUT, Command

if TYPE_CHECKING:
    from ...io.sources import Inputs
    from ...report.model import Report
    from .params import ConditionsParams


#: conditions --plot FILE: the same attribute as variations' --plot, its own help.
CONDITIONS_MAP = dict(
    help="Lines 'run system condition' (# comments allowed): which system and "
    "condition each run (or scores-file system) stands for."
)


CONDITIONS_PLOT = dict(
    metavar="FILE",
    help="Also draw Bias² and Var per system, one mark per condition (Zhang22 Figs. 2-3), "
    "to FILE (.png, .svg or .pdf; needs matplotlib).",
)


def run(inputs: Inputs, p: ConditionsParams) -> Report:
    """Each experimental condition as its own pool of runs (Zhang22 §5.4, Table 12).

    Runs are one system under one condition (e.g. the Session track's
    RL1–RL4): --map FILE with lines 'run system condition', or --pattern
    REGEX with named groups system and condition matched against whole run
    names (with --scores: the scores file's systems). Each condition's runs
    get their own virtual target, c, Bias², Var, MSE and tradeoff
    correlation; per system Bias², Var and MSE = Bias² + Var under every
    condition and the best (lowest MSE) one; per condition how many systems
    are best under it.

    \b
    JSON: {"measures": {M: {"n_topics", "systems": {SYSTEM: {"best": COND,
             "conditions": {COND: {"bias2", "var", "mse"}}}},
           "conditions": {COND: {"n_systems", "tradeoff": {...}}},
           "best_counts": {COND: k}}}}

    \b
    Examples:
      bvtest conditions --map docs/examples/conditions.txt qrels/qrels.txt sample_runs/
      bvtest conditions --pattern 'sys(?P<system>0[0-9])(?P<condition>[0-9])' \\
          qrels/qrels.txt sample_runs/
      bvtest scores qrels/qrels.txt sample_runs/ > scores.tsv
      bvtest conditions --scores scores.tsv --map docs/examples/conditions.txt \\
          -f latex --caption 'Table 12'
      bvtest conditions --map docs/examples/conditions.txt --plot conditions.png \\
          qrels/qrels.txt sample_runs/
    """
    from .build import build

    return build(inputs, p)


COMMAND = Command(
    "conditions",
    (
        *INPUTS,
        "map",
        "condition_pattern",
        *EVALUATION,
        "target",
        "group",
        "normalize",
        "repeats",
        "seed",
        "ddof",
        "plot",
        *OUTPUT,
    ),
    run,
    overrides={"map": CONDITIONS_MAP, "plot": CONDITIONS_PLOT},
)
