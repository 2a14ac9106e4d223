"""``bvtest compare``: is one run significantly more effective, or more stable, than another?"""

from __future__ import annotations

from typing import TYPE_CHECKING

import click

from ...defaults import FORMATS
from ...options import (
    CI,
    COMPARE_CI,
    EVALUATION,
    INPUTS,
    OUTPUT,
    Command,
)
from ...settings import Settings

if TYPE_CHECKING:
    from ...report.model import Report


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
    type=click.Choice(FORMATS),
    default="trec",
    show_default=True,
    help="trec, tsv: a header line and one tab-separated line per comparison; csv: the "
    "same with commas; table: one table per measure; json: the stable schema; html: one "
    "self-contained page.",
)


def run(s: Settings) -> Report:
    """Is one run significantly more effective, or more stable, than another?

    Paired tests of RUN_A − RUN_B over the same topics, per measure: the
    difference in mean, Var, MSE and GeoRisk (at each --alpha), each with a
    paired topic-bootstrap interval (--ci, --bootstrap, --ci-method, --seed)
    and p, the two-sided p-value of the paired randomization test: --bootstrap
    relabellings, each swapping the two runs' scores on a random half of the
    topics (Fisher's test as IR uses it; exact level whatever the field). For
    Var also the Pitman–Morgan test of equal variances for paired samples
    (p_pm; conservative for bounded scores). With exactly two runs they are
    compared; otherwise name pairs with --pair RUN_A RUN_B (repeatable) or
    compare every pair with --pairs all. p_holm (and p_pm_holm) are Holm's
    adjustment over the pairs compared, per field. Every run of the input is
    in the pool: the virtual target, c (MSE) and GeoRisk use them all.

    \b
    JSON: {"measures": {M: {"pairs": [{"a", "b", "field", "diff", "lo", "hi",
           "p", "p_holm"[, "test": "pitman-morgan", "p_pm", "p_pm_holm"]}]}}}
    trec/tsv/csv: one line per row, columns measure a b field diff lo hi p
    p_holm test p_pm p_pm_holm (empty where they do not apply).

    \b
    Examples:
      bvtest compare qrels/qrels.txt sample_runs/sys001 sample_runs/sys002
      bvtest compare --pair sys001 sys002 -f table qrels/qrels.txt sample_runs/
      bvtest scores qrels/qrels.txt sample_runs/ > scores.tsv
      bvtest compare --pairs all --scores scores.tsv -f json
    """
    from .build import build

    return build(s)


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
