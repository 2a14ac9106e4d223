"""``bvtest rankings``: bias and variance of the system rankings of test collections."""

from __future__ import annotations

from typing import TYPE_CHECKING

from ...options import DEPRECATED_ALIAS, RANKINGS_BOOTSTRAP, REPORT_OUTPUT, Command

if TYPE_CHECKING:
    from ...io.sources import Inputs
    from ...report.model import Report
    from .params import RankingsParams


RANKINGS_MEASURE = dict(
    multiple=True,
    default=("AP",),
    show_default=True,
    metavar="MEASURE",
    help="The one measure whose mean scores rank the systems: any ir_measures measure "
    "(AP, infAP, nDCG@10, P@10, ...) or trec_eval name.",
)


def run(inputs: Inputs, p: RankingsParams) -> Report:
    """Bias and variance of the system ranking of test collections (Cormack & Grossman 2019).

    How accurately does a test collection X (qrels) rank the runs, compared
    with a reference collection G? The distance between two rankings is
    delta = 1 - tau_b on the runs' mean scores (-m). B bootstrap samples of
    topics (--bootstrap, --topics, --seed), independent for each collection
    and role, give Delta(X, G) = E delta^2 over all B x B pairs, sigma^2(X) =
    Delta(X, X')/2, b^2 = Delta(X, G) - sigma^2(X) - sigma^2(G) and RMSE =
    sqrt(b^2 + sigma^2(X)). Per test collection: bias (|b|; -sqrt(-b^2) when
    the estimate is negative, a note says so), sigma, rmse (sqrt(b^2 +
    sigma^2) with b^2 signed: below sigma where b^2 < 0, as in Cormack &
    Grossman's Table 1; 0 only where the sum is negative), b2, delta and
    batch-means standard errors (se_*); sigma_reference. With two or more collections,
    matrix (the paper's Table 3): every collection measured against every
    other one as the reference, RMSE with sigma on the diagonal.

    Topics: the reference's topics with a relevant document; a topic a test
    collection does not judge scores 0 there (a note). NAME=F1,F2,... or
    NAME=DIR (every file in DIR) gives a collection as several qrels samples
    (a statistical method, e.g. from bvtest sample): each drawn topic takes one
    of them at random. On sampled qrels, rank by an estimator: -m statAP or
    -m xinfAP (a note says so for another measure, and for infAP on a sample
    of several strata).

    \b
    JSON: {"reference", "samples", "topics", "seed", "measure", "n_topics",
           "n_systems", "batches", "sigma_reference", "se_sigma_reference",
           "collections": {NAME: {"bias", "sigma", "rmse", "b2", "delta",
                                  "se_bias", "se_sigma", "se_rmse", "se_b2"}},
           "matrix": {"bias" | "rmse" | "b2" | "se_bias" | "se_rmse":
                      {G: {X: value}}}}       (two or more collections)
    trec: AP.bias<TAB>depth5<TAB>0.0812, AP.matrix.bias.G.X<TAB>all<TAB>...

    \b
    Examples:
      bvtest pool --depth 5 qrels/qrels.txt sample_runs/ > depth5.qrels
      bvtest pool --depth 20 qrels/qrels.txt sample_runs/ > depth20.qrels
      bvtest rankings --reference qrels/qrels.txt --collection depth5.qrels sample_runs/
      bvtest rankings --reference G=qrels/qrels.txt --collection d5=depth5.qrels \\
          --collection d20=depth20.qrels -f table sample_runs/
      bvtest rankings -m P@10 --reference qrels/qrels.txt \\
          --collection pooled=depth5.qrels,depth20.qrels --topics 50 sample_runs/
      bvtest sample --method pps --budget 20 --draws 10 --out pps qrels/qrels.txt sample_runs/
      bvtest rankings -m statAP --reference qrels/qrels.txt --collection pps=pps sample_runs/
    """
    from .build import build

    return build(inputs, p)


COMMAND = Command(
    "rankings",
    (
        "reference",
        "collections",
        "runs",
        "measures",
        "bootstrap",
        "samples",
        "topics",
        "seed",
        "rel_level",
        "jobs",
        "err_impl",
        "impl",
        "quiet",
        *REPORT_OUTPUT,
    ),
    run,
    overrides={
        "measures": RANKINGS_MEASURE,
        "bootstrap": RANKINGS_BOOTSTRAP,
        "samples": DEPRECATED_ALIAS,
    },
)
