"""``bvtest check``: gate new runs against a pool (CI): exit 0 if every gate passes, 1 if not."""

from __future__ import annotations

from typing import TYPE_CHECKING

import click

from ...defaults import FORMATS
from ...options import (
    ANALYSIS,
    CI,
    EVALUATION,
    OUTPUT,
    Command,
)
from ...settings import Settings

if TYPE_CHECKING:
    from ...report.model import Report


CHECK_FORMAT = dict(
    type=click.Choice(["text", *FORMATS]),
    default="text",
    show_default=True,
    help="text (= trec): PASS|FAIL<TAB>gate<TAB>run<TAB>value OP bound [is false] lines; "
    'json: {"verdicts": [...], "passed": bool}; table, tsv, csv, latex, markdown: the '
    "verdicts as a table; html: a page with the verdicts' table.",
)


CHECK_QRELS = dict(metavar="[QRELS", required=False)


CHECK_POOL = dict(metavar="POOL", required=False)


CHECK_NEW_RUNS = dict(nargs=-1, required=False, metavar="NEW_RUN...]")


def run(s: Settings) -> Report:
    """Gate new runs against a pool (CI): exit 0 if every gate passes, 1 if not.

    The new runs are evaluated together with the POOL (a directory of runs or
    one run file), so the virtual target and the multiple-baseline risk
    measures include them. Every gate is checked for every new run; one line
    per gate and new run: PASS|FAIL, the gate, the run, value OP bound (a
    FAIL line ends with "is false"). With --scores FILE --new NAME... the
    runs are systems of a scores file: the --new ones are gated, every other
    one is the pool. A null value (undefined, e.g. TRisk with a zero standard error) fails.

    FIELD: any per-system field of `bvtest eval` (mean, bias2, var, mse,
    var_rho, var_target, cov_target; with @ALPHA zrisk, georisk,
    zrisk_target, trisk_mean; with --baseline urisk, trisk, zrisk_baseline).
    Alphas the gates name are computed even if --alpha omits them.
    FIELD.lo / FIELD.hi (e.g. AP:mse.hi<=0.06, nDCG@10:georisk.lo@5>=bm25.run)
    gate on an end of the field's bootstrap interval: they need --ci LEVEL.

    Exit status: 0 all gates pass; 1 a gate fails; 2 bad usage or input, a
    malformed gate, a RIGHT that is not a pool run, or a new run named like a
    pool run. Gates are checked before anything is evaluated.

    \b
    Examples:
      bvtest check qrels/qrels.txt sample_runs/ docs/examples/new.run --gate 'AP:mse<=0.3'
      bvtest check qrels/qrels.txt sample_runs/ docs/examples/new.run --gate 'AP:mse<=sys012' \\
          --gate 'nDCG@10:georisk@5>=sys012'
      bvtest check -f json qrels/qrels.txt sample_runs/ docs/examples/new.run -g 'ERR@20:mean>=0.3'
      bvtest scores qrels/qrels.txt sample_runs/ > scores.tsv
      bvtest check --scores scores.tsv --new sys007 -g 'AP:mse<=sys012'
    """
    from .build import build

    return build(s)


COMMAND = Command(
    "check",
    (
        "qrels",
        "pool",
        "new_runs",
        "scores",
        "new_names",
        "name",
        "gates",
        *EVALUATION,
        *ANALYSIS,
        *CI,
        *OUTPUT,
    ),
    run,
    overrides={
        "fmt": CHECK_FORMAT,
        "qrels": CHECK_QRELS,
        "pool": CHECK_POOL,
        "new_runs": CHECK_NEW_RUNS,
    },
)
