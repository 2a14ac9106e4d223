"""``bvtest judges``: how far automatic (LLM) relevance judgments move each run, and
what a human sample corrects."""

from __future__ import annotations

from typing import TYPE_CHECKING

from ...options import REPORT_OUTPUT, RUNS, Command, Real
from ...options.kinds import IntRange

if TYPE_CHECKING:
    from ...io.sources import Inputs
    from ...report.model import Report
    from .params import JudgesParams


def run(inputs: Inputs, p: JudgesParams) -> Report:
    """Automatic judges beside human ones: agreement, each run's bias and variance, PPI.

    QRELS are the human judgments, the reference; each --judge NAME=FILE an
    automatic assessor's judgments (e.g. an LLM's) in the same four-column
    layout, on the same pool or on more topics, or NAME=sim:CONFUSION.json a
    judge simulated from a confusion block (its grade for every human-judged
    document drawn from that grade's row, seeded by --seed). A judge grade
    the human qrels do not use is an error unless --grade-map maps it;
    --grade-map maps both sides first (0=0,1=0,2=1,3=2; clip: 5=3,10=3).

    Per judge, on the pairs both label: the confusion block (counts and
    P(judge | human)), Cohen's κ on relevance at -l, weighted κ (linear,
    quadratic, on the grade values), Krippendorff's α (ordinal, interval),
    exact agreement, the mean grade difference, per-topic κ. Per measure
    (-m; default AP, nDCG@10, ERR@20) and run, on the topics both judge (the
    human topic rule, --topic-set, at -l): e = x_judge − x_human, bias = mean
    e, var (--ddof), mse = bias² + var; ranks under both, Kendall τ_b, τ_AP
    (the human leaderboard as the truth), τ_AP_b, Spearman, the largest rank
    change, and the ranking's Δ, |b|, σ, RMSE (bvtest rankings, --bootstrap).
    Where the judge covers topics the humans did not judge: each run's mean
    by PPI++ (λ tuned; --lambda 1 plain PPI, 0 human-only) with its interval
    at --ci (--ppi-interval normal, as ppi_py, or t for few human topics),
    beside the human-only interval, and every pair's difference (p, p_adj by
    --correction, resolved at --significance). --human-topics N,...: --draws
    random subsets of N topics stay human, the rest judge-only; per N and
    method (human, judge, ppi, ppi++): RMSE against the all-topic human
    means, coverage, width, Kendall τ_b, wrong claims.

    \b
    JSON: {"judges": {NAME: {"agreement": {"pairs", "grades", "confusion":
           {"human_grades", "judge_grades", "counts", "p"}, "kappa",
           "kappa_linear", "kappa_quadratic", "alpha_ordinal",
           "alpha_interval", "accuracy", "mean_grade_diff", "topic_kappa":
           {"min", "median", "max", "skipped"}}, "measures": {M: {"topics",
           "systems": {RUN: {"human", "judge", "bias", "var", "mse",
           "rank_human", "rank_judge", "ppi", "ppi_lo", "ppi_hi", "lambda",
           "human_lo", "human_hi"}}, "kendall_tau", "tau_ap", "tau_ap_b",
           "spearman", "max_rank_change", "ranking": {"delta", "bias",
           "sigma", "rmse"}, "pairs": [{"a", "b", "diff", "lo", "hi", "p",
           "p_adj", "resolved"}]}}}}, "experiment": [{"judge", "measure",
           "topics", "method", "rmse", "coverage", "width", "kendall_tau",
           "wrong_claims"}]}

    \b
    Examples:
      bvtest judges --judge llm=docs/examples/judge.qrels -m AP qrels/qrels.txt sample_runs/
      bvtest judges --judge llm=docs/examples/judge.qrels --ppi-interval t -f json \\
          docs/examples/human10.qrels sample_runs/ > j.json
      bvtest judges --judge sim=sim:docs/examples/confusion.json --human-topics 5,10,20 \\
          --draws 50 -m AP -f table qrels/qrels.txt sample_runs/
    """
    from .build import build

    return build(inputs, p)


#: judges' --ci: a level always (PPI's intervals are its output).
JUDGES_CI = dict(
    type=Real(0.0, 1.0, min_open=True, max_open=True),
    default=0.95,
    show_default=True,
    metavar="LEVEL",
    help="Confidence level of PPI's and the human-only intervals and of the experiment's.",
)
JUDGES_DRAWS = dict(
    type=IntRange(1),
    default=100,
    show_default=True,
    metavar="R",
    help="Random subsets of topics per --human-topics N.",
)
JUDGES_BOOTSTRAP = dict(
    type=IntRange(2),
    default=1000,
    show_default=True,
    metavar="B",
    help="Bootstrap samples of topics of the ranking's Δ, |b|, σ and RMSE (bvtest rankings).",
)

COMMAND = Command(
    "judges",
    (
        "inputs",
        "name",
        "judges",
        "grade_map",
        "measures",
        "rel_level",
        "topic_set",
        "jobs",
        "err_impl",
        "impl",
        "quiet",
        "ddof",
        "ci",
        "ppi_interval",
        "ppi_lambda",
        "correction",
        "significance",
        "human_topics",
        "draws",
        "bootstrap",
        "seed",
        *REPORT_OUTPUT,
    ),
    run,
    overrides={
        "inputs": RUNS,
        "ci": JUDGES_CI,
        "draws": JUDGES_DRAWS,
        "bootstrap": JUDGES_BOOTSTRAP,
    },
)
