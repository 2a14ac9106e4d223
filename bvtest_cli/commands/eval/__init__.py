"""``bvtest eval``: bias², Var, MSE, Var(ρ), risk measures and the tradeoff of every run."""

from __future__ import annotations

from typing import TYPE_CHECKING

from ...options import ANALYSIS, CI, EVALUATION, INPUTS, OUTPUT, TREC_EVAL, Command

if TYPE_CHECKING:
    from ...io.sources import Inputs
    from ...report.model import Report
    from .params import EvalParams


def run(inputs: Inputs, p: EvalParams) -> Report:
    """Bias², Var, MSE, Var(ρ), risk measures and the tradeoff of every run.

    For every measure and run: the mean, Bias² = (mean − c)², Var and
    MSE = Bias² + Var against the virtual target (the best score on each
    topic); Var(ρ) with Var(x_T) and Cov(x_T, x_i); ZRisk, GeoRisk, ZRisk
    against the target and TRisk* for every alpha; pareto: whether the run is
    on the Pareto front of (Bias², Var); and per measure the Pearson/Spearman
    correlation of Bias² and Var across runs (with --group random:K also the
    distribution of the per-repeat correlations, tradeoff_repeats).

    --ci LEVEL adds a topic-bootstrap interval to every field and to the
    tradeoff correlations: FIELD.lo / FIELD.hi lines, "FIELD_ci": {"lo",
    "hi"} in JSON, "value [lo, hi]" in the table.

    \b
    Examples:
      bvtest eval qrels/qrels.txt sample_runs/
      bvtest eval -m AP -m nDCG@10 --format table qrels/qrels.txt sample_runs/
      bvtest eval --target ideal --baseline sys003 qrels/qrels.txt sample_runs/
      bvtest scores qrels/qrels.txt sample_runs/ | bvtest eval --scores -
      bvtest eval -f json qrels/qrels.txt sample_runs/ > eval.json
      bvtest eval --ci 0.95 --bootstrap 2000 -f table qrels/qrels.txt sample_runs/
      bvtest eval --ci 0.95 -f html qrels/qrels.txt sample_runs/ > report.html
      bvtest eval -c -l 2 -m AP -q qrels/qrels.txt sample_runs/ | grep -P '^AP\\t'
    """
    from .build import build

    return build(inputs, p)


#: eval's -q: trec_eval's per-topic lines (docs/eval.md#per-topic-lines).
PER_TOPIC = dict(
    help="Also print per-topic values, as trec_eval -q: in -f trec a line "
    "MEASURE<TAB>TOPIC<TAB>VALUE<TAB>RUN per run, topic and measure, then the run's "
    "MEASURE<TAB>all<TAB>MEAN lines, after the report's own lines (grep -P '^AP\\t'); in "
    "-f json a per_topic list of {measure, topic, value, run}."
)

COMMAND = Command(
    "eval",
    (*INPUTS, *EVALUATION, *TREC_EVAL, *ANALYSIS, *CI, *OUTPUT, "per_topic"),
    run,
    overrides={"per_topic": PER_TOPIC},
)
