"""``bvtest check``: gate new runs against a pool (CI): exit 0 if every gate passes, 1 if not."""

from __future__ import annotations

from typing import TYPE_CHECKING

from ...defaults import FORMATS
from ...options import (
    ANALYSIS,
    CI,
    EVALUATION,
    OUTPUT,
    Command,
)
from ...options.kinds import Choice

if TYPE_CHECKING:
    from ...io.sources import Inputs
    from ...report.model import Report
    from .params import CheckParams


CHECK_FORMAT = dict(
    type=Choice(["text", *FORMATS]),
    default="text",
    show_default=True,
    help="text (= trec): PASS|FAIL<TAB>gate<TAB>run<TAB>value OP bound [is false] lines; "
    'json: {"verdicts": [...], "passed": bool}; table, tsv, csv, latex, markdown: the '
    "verdicts as a table; html: a page with the verdicts' table.",
)


CHECK_TEST = dict(
    type=Choice(["randomization", "t"]),
    show_default=True,
    help="The one-sided paired test of the test gates (>=RUN~DELTA, >>RUN): randomization "
    "(sign flips of the differences shifted by DELTA; exact up to 16 topics, else 9999 "
    "flips seeded by --seed) or t (paired t).",
)


CHECK_SIGNIFICANCE = dict(
    help="Level α of the test gates' one-sided test: a gate passes when its (1 − α) "
    "lower bound of the mean difference is above −DELTA (or 0).",
)


CHECK_QRELS = dict(metavar="[QRELS", required=False)


CHECK_POOL = dict(metavar="POOL", required=False)


CHECK_NEW_RUNS = dict(nargs=-1, required=False, metavar="NEW_RUN...]")


def run(inputs: Inputs, p: CheckParams) -> Report:
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

    Test gates on the mean, decided by the one-sided paired --test over the
    topics at --significance: MEASURE:mean>=RUN~DELTA (non-inferiority:
    passes when the test rejects "worse than RUN by DELTA or more") and
    MEASURE:mean>>RUN (superiority: passes when it rejects "no better than
    RUN"). Their line is: lower bound > -DELTA (or 0), with the difference and
    p. A RUN that is no run's name is also sought without TREC's "input."
    prefix and among the run tags (with a note).

    Exit status: 0 all gates pass; 1 a gate fails; 2 bad usage or input, a
    malformed gate, a RIGHT that is not a pool run, or a new run named like a
    pool run. Gates are checked before anything is evaluated.

    \b
    Examples:
      bvtest check qrels/qrels.txt sample_runs/ docs/examples/new.run --gate 'AP:mse<=0.3'
      bvtest check qrels/qrels.txt sample_runs/ docs/examples/new.run --gate 'AP:mse<=sys012' \\
          --gate 'nDCG@10:georisk@5>=sys012'
      bvtest check -f json qrels/qrels.txt sample_runs/ docs/examples/new.run -g 'ERR@20:mean>=0.3'
      bvtest check qrels/qrels.txt sample_runs/ docs/examples/new.run -g 'AP:mean>=sys012~0.01' \\
          -g 'AP:mean>>sys001'
      bvtest scores qrels/qrels.txt sample_runs/ > scores.tsv
      bvtest check --scores scores.tsv --new sys007 -g 'AP:mse<=sys012'
    """
    from .build import build

    return build(inputs, p)


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
        "test",
        "significance",
        *EVALUATION,
        *ANALYSIS,
        *CI,
        *OUTPUT,
    ),
    run,
    overrides={
        "test": CHECK_TEST,
        "significance": CHECK_SIGNIFICANCE,
        "fmt": CHECK_FORMAT,
        "qrels": CHECK_QRELS,
        "pool": CHECK_POOL,
        "new_runs": CHECK_NEW_RUNS,
    },
)
