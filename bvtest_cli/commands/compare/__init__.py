"""``bvtest compare``: is one run significantly more effective, or more stable, than another?"""

from __future__ import annotations

from typing import TYPE_CHECKING

from ...defaults import FORMATS
from ...options import (
    CI,
    COMPARE_CI,
    EVALUATION,
    INPUTS,
    OUTPUT,
    Command,
)
from ...options.kinds import Choice

if TYPE_CHECKING:
    from ...io.sources import Inputs
    from ...report.model import Report
    from .params import CompareParams


#: compare's --ci-method: the same choices; auto differs for the difference of Var.
COMPARE_CI_METHOD = dict(
    help="Interval method of the differences. auto: studentized (bootstrap-t with jackknife "
    "standard errors) for mean, mse and georisk, percentile for var (a difference of two "
    "exchangeable runs' variances is symmetric about 0: percentile covers 0.94 there, "
    "bootstrap-t and bca 0.90; docs/uncertainty.md). Or one method for all: studentized, "
    "bca or percentile. The p-values do not depend on it.",
)


#: compare's --format: its results are records, one line per comparison.
COMPARE_FORMAT = dict(
    type=Choice(FORMATS),
    default="trec",
    show_default=True,
    help="trec, tsv: a header line and one tab-separated line per comparison; csv: the "
    "same with commas; table: one table per measure; json: the stable schema; html: one "
    "self-contained page.",
)


def run(inputs: Inputs, p: CompareParams) -> Report:
    """Which runs differ significantly: paired tests of runs over the same topics.

    Per measure and pair RUN_A − RUN_B: the difference in mean, Var, MSE and
    GeoRisk (at each --alpha; --fields chooses; with --pairs all the mean
    only), each with a paired topic-bootstrap interval (--ci, --bootstrap,
    --ci-method, --seed) and p, its two-sided p-value, corrected over the pairs
    compared (--correction, default holm) into p_adj. The mean's test is
    --test: randomization (default: paired sign flips, exact by enumeration up
    to 16 topics, else p estimated from the pair's own --bootstrap flips, with
    the interval p_lo, p_hi that settles the decision at --significance: no
    1/(B+1) floor on the decision), t, wilcoxon, sign, bootstrap
    (Sakai's studentized), tukey (Tukey's HSD on the two-way ANOVA,
    simultaneous intervals) or randomised-tukey. Var and MSE: the exact sign-flip
    test of their per-topic contrasts; Var also Pitman–Morgan's (p_pm). Mean
    rows add significant (after the correction), effect_size (d/√V_E) and,
    with --baseline, glass_delta. A runs × runs significance matrix follows in
    -f table, json and html. Every run of the input is in the pool: the
    virtual target, c (MSE) and GeoRisk use them all.

    \b
    JSON: {"test", "correction", "significance", ..., "measures": {M: {"pairs":
           [{"a", "b", "field", "diff", "lo", "hi", "p", "p_adj", "test"
           [, "p_lo", "p_hi"]
           [, "significant", "effect_size", "glass_delta", "q"]
           [, "p_pm", "p_pm_adj"]}], "significance_matrix": [{"rank", "run",
           "mean", "above", "below"}]}}}
    trec/tsv/csv: one line per row, columns measure a b field diff lo hi p
    p_adj p_lo p_hi test significant effect_size [glass_delta] [q] p_pm
    p_pm_adj.

    \b
    Examples:
      bvtest compare qrels/qrels.txt sample_runs/sys001 sample_runs/sys002
      bvtest compare --pair sys001 sys002 -f table qrels/qrels.txt sample_runs/
      bvtest compare --pairs all -m AP -f table qrels/qrels.txt sample_runs/
      bvtest compare --pairs all --test tukey -m AP qrels/qrels.txt sample_runs/
    """
    from .build import build

    return build(inputs, p)


COMMAND = Command(
    "compare",
    (
        *INPUTS,
        *EVALUATION,
        "pair",
        "pairs",
        "test",
        "correction",
        "compare_fields",
        "significance",
        "baseline",
        "target",
        "normalize",
        "ddof",
        "alphas",
        "seed",
        *CI,
        *OUTPUT,
    ),
    run,
    overrides={"ci": COMPARE_CI, "ci_method": COMPARE_CI_METHOD, "fmt": COMPARE_FORMAT},
)
