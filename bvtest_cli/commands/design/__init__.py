"""``bvtest design``: how reliable the scores are and how many topics (and
judgments) a test collection needs [Brennan01; Urbano13; Sakai16]."""

from __future__ import annotations

from typing import TYPE_CHECKING

from ...options import (
    COMPARE_CI,
    DESIGN_SCORES,
    EVALUATION,
    INPUTS,
    OUTPUT,
    Command,
)

if TYPE_CHECKING:
    from ...io.sources import Inputs
    from ...report.model import Report
    from .params import DesignParams


#: design's --ci (a level always), --bootstrap and --scores (wide CSV matrices too).
DESIGN_CI = {**COMPARE_CI, "help": "Confidence level of every interval (two-sided): the "
             "D-study's, the topics needed, and the topic bootstrap's."}  # fmt: skip


DESIGN_BOOTSTRAP = dict(help="Topic-bootstrap resamples for the intervals of the variance "
                        "estimates and of the topic-set sizes (seeded by --seed); more than "
                        "fit in memory or take hours are refused.")  # fmt: skip


def run(inputs: Inputs, p: DesignParams) -> Report:
    """How many topics does a test collection need? (G-theory, topic-set-size design)

    For every measure, from the systems × topics scores: the G-study
    (variance components of systems, topics and their interaction; negative
    estimates set to 0) and the D-study for other numbers of topics
    (--topic-counts): the generalizability coefficient Eρ² and the index of
    dependability Φ with intervals at --ci, and the fewest topics that reach
    --reliability (Brennan 2001; Urbano et al. 2013). Then Sakai's
    topic-set-size design (2016): the topics a paired t-test and a one-way
    ANOVA need to detect --min-diff with power 1 − --beta at --significance,
    and a paired difference's interval to be no wider than --ci-width, exact
    (noncentral t and F) and by the normal approximation of Sakai's tools,
    with topic-bootstrap intervals (--bootstrap, --seed). With
    --budget-report, each cell's RMSE predicted at the topics a --total of
    judgments buys (b² and σ² fitted across the report's topic scales where it
    has two or more), and the cheapest-error allocation per total.

    \b
    JSON: {"level", "reliability", "significance", "beta", "bootstrap",
           "seed", "drop", "measures": {MEASURE: {
             "gstudy": {"systems", "topics", "ms_systems", "ms_topics",
               "ms_residual", "var_systems", "var_topics", "var_residual"},
             "dstudy": [{"topics", "erho2", "erho2_lo", "erho2_hi", "phi",
               "phi_lo", "phi_hi"}],
             "topics_needed": {"erho2": {"n", "lo", "hi"}, "phi": {...}},
             "variance": {"residual", "pairwise95", "within", "used"},
             "tssd": [{"design", "alpha", "beta", "min_diff" | "width",
               "systems", "topics", "topics_approx", "topics_lo",
               "topics_hi"}],
             "allocation": [{"method", "budget", "topics", "total",
               "rmse_predicted", "model"}], "candidates": [...]}}}
    with X_ci: {"lo", "hi"} beside each variance (topic bootstrap); null
    where a field does not apply (beta and min_diff of ci, width of ttest
    and anova) or is undefined (Eρ² where every system has the same scores,
    with a note); allocation and candidates only with --budget-report. Each
    interval holds its point. In the line formats a tssd row is keyed by
    its design and requirement: ttest:min_diff=0.05, ci:width=0.1.

    \b
    Examples:
      bvtest design -m AP qrels/qrels.txt sample_runs/
      bvtest design -m AP -f table --topic-counts 25,50,100 qrels/qrels.txt sample_runs/
      bvtest design -m AP --min-diff 0.1 --variance pairwise95 -f json qrels/qrels.txt sample_runs/
    """
    from .build import build

    return build(inputs, p)


COMMAND = Command(
    "design",
    (
        *INPUTS,
        *EVALUATION,
        "drop",
        "topic_counts",
        "reliability",
        "ci",
        "significance",
        "beta",
        "min_diffs",
        "ci_widths",
        "systems",
        "variance",
        "budget_report",
        "totals",
        "bootstrap",
        "seed",
        *OUTPUT,
    ),
    run,
    overrides={"ci": DESIGN_CI, "bootstrap": DESIGN_BOOTSTRAP, "scores": DESIGN_SCORES},
)
