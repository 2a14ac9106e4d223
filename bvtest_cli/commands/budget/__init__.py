"""``bvtest budget``: Experiment 1 of Cormack & Grossman 2019, assessment budgets."""

from __future__ import annotations

from typing import TYPE_CHECKING

from ...options import DEPRECATED_ALIAS, RANKINGS_BOOTSTRAP, REPORT_OUTPUT, RUNS, Command

if TYPE_CHECKING:
    from ...io.sources import Inputs
    from ...report.model import Report
    from .params import BudgetParams


BUDGET_DRAWS = dict(help="pps samples per budget (Cormack & Grossman 2019: 100).", default=100)


def run(inputs: Inputs, p: BudgetParams) -> Report:
    """How should a budget of assessments be spent? (Cormack & Grossman 2019, Experiment 1)

    QRELS is the truth and plays the assessor. For each budget N (judgments
    per topic) the collections of each method are built from the runs:
    xinfAP and statAP on R pps samples (--draws; --strata S AP-prior
    strata, at most N), depth-k pooling with the largest k whose pool holds
    at most N documents per topic on average (when even depth 1 holds more,
    depth-1 at its own, larger cost: a note says so), hedge and mtf with N
    judgments per topic. Cells of unequal cost are named in a note; the
    assessments column gives each cell's. --draws and --strata need a pps
    method (xinfAP, statAP). QRELS and the runs must share a topic. For each
    topic-set size K·n (--topics-scale), the accuracy of each collection's
    ranking of the runs by mean AP against QRELS' (bvtest rankings): |b|,
    sigma, RMSE = sqrt(b^2 + sigma^2) (b^2 signed, as Cormack & Grossman's
    Table 1: a negative estimate, chance error, puts RMSE below sigma and
    bias at -sqrt(-b^2); 0 only where the sum is negative) and their
    standard errors, with the assessments each method used; and sigma of
    QRELS itself (the paper's Reference row). With --engineered, the runs
    and their engineered permutations are ranked (Table 2); the collections
    are still built from the runs.

    \b
    JSON: {"samples", "seed", "measure", "n_topics", "n_systems", "repeats",
           "strata", "cells": [{"budget", "topics_scale", "method", "bias",
           "sigma", "rmse", "se_bias", "se_sigma", "se_rmse", "assessments"}],
           "reference": [{"topics_scale", "sigma", "se_sigma", "assessments"}]}

    \b
    Examples:
      bvtest budget --budget 10,40 --draws 20 --bootstrap 200 qrels/qrels.txt sample_runs/
      bvtest budget --engineered -f table qrels/qrels.txt sample_runs/
    """
    from .build import build

    return build(inputs, p)


BUDGET_JOBS = dict(
    help="Processes that read the runs and draw and evaluate the samples [default: all "
    "cores]. Output does not depend on it."
)

COMMAND = Command(
    "budget",
    ("inputs", "budgets", "topics_scale", "methods", "engineered", "draws", "strata",
     "bootstrap", "seed", "rel_level", "jobs", "quiet", "repeats", "samples", *REPORT_OUTPUT),
    run,
    overrides={
        "inputs": RUNS, "draws": BUDGET_DRAWS, "bootstrap": RANKINGS_BOOTSTRAP, "jobs": BUDGET_JOBS,
        "repeats": DEPRECATED_ALIAS, "samples": DEPRECATED_ALIAS,
    },
)  # fmt: skip
