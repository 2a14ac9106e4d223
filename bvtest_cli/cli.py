"""The command line: one declaration per command and one runner.

Every command names its options (declared once in :mod:`bvtest_cli.options`)
and is a function Settings → Report; the runner renders the report, writes
notes to stderr (unless ``--quiet``) and results to stdout, all at once after
everything is computed. A user mistake is one line ``bvtest: FILE:LINE:
message`` and exit status 2, never a traceback.
"""

from __future__ import annotations

import errno
import os
import sys
import warnings
from collections.abc import Callable
from typing import Any, NoReturn

import click

from . import __version__
from .errors import InputError
from .options import (
    ANALYSIS,
    CHECK_FORMAT,
    CHECK_NEW_RUNS,
    CHECK_POOL,
    CHECK_QRELS,
    CI,
    COMPARE_CI,
    COMPARE_FORMAT,
    CONDITIONS_PLOT,
    EVALUATION,
    INPUTS,
    OUTPUT,
    PERMUTE_OUT,
    RANKINGS_MEASURE,
    RANKINGS_SAMPLES,
    RUNS,
    TRADEOFF_NORMALIZE,
    VARIATIONS_ALPHAS,
    Settings,
    declare,
)
from .report import Report


@click.group(context_settings={"help_option_names": ["-h", "--help"]})
@click.version_option(__version__, prog_name="bvtest")
def cli() -> None:
    """Bias–variance, instability and risk analysis of TREC runs.

    \b
    bvtest eval qrels.txt runs/            decomposition, Var(ρ), risk, tradeoff
    bvtest scores qrels.txt runs/ > s.tsv  per-topic scores (cache, pipe)
    bvtest eval --scores s.tsv             analyse a scores file
    """


# --- python-api (issue 17) -----------------------------------------------------
#: Each command's function Settings → Report, by command name: the Python API
#: (bvtest_cli.api) calls the very function the command runs.
REPORTS: dict[str, Callable[[Settings], Report]] = {}
# --- end python-api --------------------------------------------------------------


def command(name: str, options: tuple[str, ...], **overrides: Any) -> Callable:
    """Declare command ``name`` taking ``options``; the function returns a Report."""

    def decorate(f: Callable[[Settings], Report]) -> Callable:
        REPORTS[name] = f  # python-api (issue 17): the same function, for bvtest_cli.api

        @cli.command(name, help=f.__doc__)
        @declare(options, overrides)
        def run(s: Settings) -> None:
            report = f(s)
            text = "" if s.output is not None else render_report(report, s)
            emit(text, () if s.quiet else report.notes)
            if report.status:
                sys.exit(report.status)

        return run

    return decorate


def render_report(report: Report, s: Settings) -> str:
    from .render import render

    return render(report, s.fmt, s.digits, s.caption)


def emit(text: str, notes: tuple[str, ...]) -> None:
    """Write the notes to stderr, then all results at once.

    A reader that stopped reading (``| head``, a broken pipe) is not an
    error: exit 0, silently. Any other failure to write (a full disk,
    ``> /dev/full``, standard output closed) is: one line on stderr and exit
    status 2, like every error that stops a command (1 is reserved for a
    failing ``check`` gate)."""
    for note in notes:
        click.echo(f"bvtest: note: {note}", err=True)
    if sys.stdout is None:  # started with standard output closed (``>&-``)
        output_failed("standard output is closed")
    try:
        sys.stdout.write(text)
        sys.stdout.flush()
    except BrokenPipeError:
        _quiet_broken_pipe()
    except OSError as exc:
        output_failed(exc.strerror or str(exc))


# What writing a full disk, /dev/full, a closed descriptor or a failing device gives.
_WRITE_ERRORS = frozenset(
    getattr(errno, name)
    for name in ("ENOSPC", "EDQUOT", "EFBIG", "EIO", "EBADF")
    if hasattr(errno, name)
)


def _quiet_broken_pipe() -> NoReturn:
    sys.stderr.close()  # silence the interpreter's own message at exit
    sys.exit(0)


def output_failed(reason: str) -> NoReturn:
    """Writing standard output failed: say so in one line, exit status 2."""
    click.echo(f"bvtest: cannot write output: {reason}", err=True)
    if sys.stdout is not None:
        # What is still buffered would fail again when the interpreter flushes
        # it at exit (a second message and exit status 120): send it nowhere.
        try:
            devnull = os.open(os.devnull, os.O_WRONLY)
            os.dup2(devnull, sys.stdout.fileno())
        except (OSError, ValueError):
            pass
    sys.exit(2)


# --------------------------------------------------------------------------- commands


@command("eval", (*INPUTS, *EVALUATION, *ANALYSIS, *CI, *OUTPUT))
def eval_cmd(s: Settings) -> Report:
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
      bvtest eval -m AP -m nDCG@10 --format table qrels.txt runs/
      bvtest eval --target ideal --baseline bm25.run qrels.txt runs/*.run
      bvtest scores qrels.txt runs/ | bvtest eval --scores -
      bvtest eval -f json qrels.txt runs/ | jq '.measures.AP.tradeoff'
      bvtest eval --ci 0.95 --bootstrap 2000 -f table qrels.txt runs/
    """
    from .evaluate import load
    from .pipeline import eval_report

    matrices, notes = load(s)
    return eval_report(matrices, s).prefixed(notes)


@command("scores", ("inputs", "name", *EVALUATION), inputs=RUNS)
def scores_cmd(s: Settings) -> Report:
    """Per-topic scores as a long TSV: system, topic, measure, value.

    The topic set is the one every analysis uses (qrels topics with a relevant
    document; a run missing one scores 0 there), and values are written in
    full precision, so `bvtest eval --scores` on this file prints the same
    numbers as `bvtest eval` on the runs.

    \b
    Examples:
      bvtest scores qrels.txt runs/ > scores.tsv
      bvtest scores -m ERR@20 qrels.txt runs/ | bvtest eval --scores -
    """
    from .evaluate import load
    from .pipeline import scores_report

    matrices, notes = load(s)
    return scores_report(matrices, notes)


@command("instability", (*INPUTS, *EVALUATION, "target", "normalize", "ddof", "seed", *CI, *OUTPUT))
def instability_cmd(s: Settings) -> Report:
    """Where instability comes from (Zhang22 Table 8), runs sorted by mean.

    Per run: |ZRisk| against the virtual target at alpha 0, Var(ρ) and its
    decomposition Var(ρ) = Var(x_T) + Var(x_i) − 2 Cov(x_T, x_i). ZRisk only
    says that a run is unstable; a large Var(x_i) says the run's own scores
    swing, a small Cov(x_T, x_i) says it fails where the best runs succeed.
    With --ci, topic-bootstrap intervals as in eval (|ZRisk|'s is the image
    of ZRisk's interval under |.|).

    \b
    Examples:
      bvtest instability -m ERR@20 --format table qrels.txt runs/
      bvtest instability --scores scores.tsv -f json
    """
    from dataclasses import replace

    from .evaluate import load
    from .pipeline import eval_report, instability_view

    matrices, notes = load(s)
    full = eval_report(matrices, replace(s, alphas=("0",)))
    return instability_view(full).prefixed(notes)


@command(
    "tradeoff",
    (*INPUTS, *EVALUATION, "target", "random_size", "difficulty_size", "normalize", "repeats",
     "seed", "ddof", *OUTPUT),
    normalize=TRADEOFF_NORMALIZE,
)  # fmt: skip
def tradeoff_cmd(s: Settings) -> Report:
    """Bias² vs Var correlation across runs per grouping (Zhang22 Table 9).

    For every measure, Pearson and Spearman (two-sided p-values) of Bias² and
    Var across runs for {all topics, random:K1, difficulty:K2} × {raw,
    minmax}: each cell is the tradeoff that `bvtest eval --group G
    --normalize N` reports. Strongly negative = effectiveness–stability
    tradeoff. Undefined cells are nan (null in JSON), with the reason on
    stderr.

    \b
    JSON: {"target", "repeats", "seed", "random_size", "difficulty_size",
           "normalize", "measures": {MEASURE: {"n_systems", "n_topics",
             "all" | "random:K1" | "difficulty:K2": {"raw" | "minmax"|"ratio": {
               "pearson", "pearson_p", "spearman", "spearman_p",
               "n_topics", "n_groups" (grouped rows only)}}}}}
    trec: AP.all.raw.pearson<TAB>all<TAB>-0.9068

    \b
    Examples:
      bvtest tradeoff -f table qrels.txt runs/
      bvtest tradeoff --random-size 10 --difficulty-size 10 -m AP qrels.txt runs/
      bvtest tradeoff --scores s.tsv -f json | jq '.measures.AP["difficulty:5"]'
    """
    from .evaluate import load
    from .tradeoff_table import tradeoff_report

    matrices, notes = load(s)
    return tradeoff_report(matrices, s).prefixed(notes)


@command(
    "check",
    ("qrels", "pool", "new_runs", "scores", "new_names", "name", "gates", *EVALUATION,
     *ANALYSIS, *CI, *OUTPUT),
    fmt=CHECK_FORMAT,
    qrels=CHECK_QRELS,
    pool=CHECK_POOL,
    new_runs=CHECK_NEW_RUNS,
)  # fmt: skip
def check_cmd(s: Settings) -> Report:
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
      bvtest check qrels.txt runs/ new.run --gate 'AP:mse<=0.06'
      bvtest check qrels.txt runs/ new/*.run --gate 'AP:mse<=bm25.run' \\
          --gate 'nDCG@10:georisk@5>=bm25.run'
      bvtest check -f json qrels.txt runs/ new.run -g 'ERR@20:mean>=0.3'
      bvtest check --scores s.tsv --new mine -g 'AP:mse<=bm25'
    """
    from .gate import check

    return check(s)


@command("plot", (*INPUTS, *EVALUATION, *ANALYSIS, *CI, "output"))
def plot_cmd(s: Settings) -> Report:
    """Draw Bias²/Var/MSE per run, the Bias²–Var tradeoff and GeoRisk vs alpha.

    One row of three panels per measure, from the same analysis as eval (same
    options). The Bias²–Var scatter marks the Pareto front (runs no other run
    beats on both), and with --ci shows each run's intervals as error bars.
    Needs matplotlib: pip install 'bvtest[plot]'. Writes only FILE,
    nothing on stdout; exit 2 when matplotlib is missing, the extension is not
    png/svg/pdf or FILE cannot be written.

    \b
    Examples:
      bvtest plot -o bv.png qrels/qrels.txt sample_runs/
      bvtest plot -m ERR@20 --normalize minmax -o err.pdf qrels.txt runs/
      bvtest plot --scores scores.tsv -o bv.svg
    """
    from .evaluate import load
    from .pipeline import eval_report
    from .plot import check_output, plot_report

    check_output(s.output)  # everything that can fail before evaluating
    matrices, notes = load(s)
    report = eval_report(matrices, s).prefixed(notes)
    try:
        plot_report(report, s.output)
    except ValueError as exc:
        raise InputError(str(exc)) from None
    except OSError as exc:
        raise InputError(f"cannot write the plot: {exc.strerror or exc}", s.output) from None
    return report


@command(
    "pertopic",
    ("inputs", "samples", "seed", "rel_level", "per_topic", "jobs", "quiet", *OUTPUT),
    inputs=RUNS,
)
def pertopic_cmd(s: Settings) -> Report:
    """Per-topic Bias² and Var of AP from simulated collections (Zhang22 §3.4).

    For every run and topic, k collections are simulated from the run's own
    retrieved documents (after Robertson & Kanoulas, SIGIR 2012): the number
    of relevant documents r_s ~ Poisson(r), documents drawn with replacement
    from the run's relevant and non-relevant ones, ranked by their scores.
    Bias² and Var of each run are taken across the k samples against the
    per-sample best run, then averaged over topics (Zhang22 eqs. 13–14,
    Table 10); per topic, the Pearson correlation of Bias² and Var across runs
    (Table 11). Needs runs with scores, not a scores file.

    \b
    Examples:
      bvtest pertopic qrels/qrels.txt sample_runs/
      bvtest pertopic -k 200 --seed 7 -f table qrels.txt runs/
      bvtest pertopic -q -f json qrels.txt runs/ > pertopic.json
    """
    from .pipeline import pertopic_report
    from .simulate import simulate_files

    measure = "AP" if s.rel_level == 1 else f"AP(rel={s.rel_level})"
    result, notes = simulate_files(s)
    return pertopic_report(result, measure, s).prefixed(notes)


def _numpy_quiet() -> Any:
    """np.errstate(all="ignore"), without importing numpy for --help and
    --version (start-up, issue 16); RuntimeWarnings are filtered anyway."""
    import contextlib

    if any(a in ("--help", "-h", "--version") for a in sys.argv[1:]) or len(sys.argv) < 2:
        return contextlib.nullcontext()
    import numpy as np

    return np.errstate(all="ignore")


# --------------------------------------------------------------------------- issue 15
# (paper-output)


@command(
    "conditions",
    (*INPUTS, "condition_map", "condition_pattern", *EVALUATION, "target", "group", "normalize",
     "repeats", "seed", "ddof", "plot", *OUTPUT),
    plot=CONDITIONS_PLOT,
)  # fmt: skip
def conditions_cmd(s: Settings) -> Report:
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
      bvtest conditions --map conditions.txt qrels.txt runs/
      bvtest conditions --pattern '(?P<system>.+)\\.(?P<condition>RL[0-9])' qrels.txt runs/
      bvtest conditions --scores s.tsv --map map.txt -f latex --caption 'Table 12'
      bvtest conditions --map conditions.txt --plot conditions.png qrels.txt runs/
    """
    from .conditions import conditions_report
    from .evaluate import load
    from .plot import check_output, draw, plot_conditions

    if s.plot is not None:
        check_output(s.plot)  # everything that can fail before evaluating
    matrices, notes = load(s)
    report = conditions_report(matrices, s).prefixed(notes)
    if s.plot is not None:
        draw(plot_conditions, report, s.plot)
    return report


# ======================================================================================
# rankings, pool, permute (issue #12; Cormack & Grossman 2019)


@command(
    "rankings",
    ("reference", "collections", "runs", "measures", "samples", "topics", "seed", "rel_level",
     "jobs", "err_impl", "impl", "quiet", *OUTPUT),
    measures=RANKINGS_MEASURE,
    samples=RANKINGS_SAMPLES,
)  # fmt: skip
def rankings_cmd(s: Settings) -> Report:
    """Bias and variance of the system ranking of test collections (Cormack & Grossman 2019).

    How accurately does a test collection X (qrels) rank the runs, compared
    with a reference collection G? The distance between two rankings is
    delta = 1 - tau_b on the runs' mean scores (-m). B bootstrap samples of
    topics (--samples, --topics, --seed), independent for each collection
    and role, give Delta(X, G) = E delta^2 over all B x B pairs, sigma^2(X) =
    Delta(X, X')/2, b^2 = Delta(X, G) - sigma^2(X) - sigma^2(G) and RMSE =
    sqrt(b^2 + sigma^2(X)). Per test collection: bias (|b|; -sqrt(-b^2) when
    the estimate is negative), sigma, rmse, b2, delta and batch-means
    standard errors (se_*); sigma_reference. With two or more collections,
    matrix (the paper's Table 3): every collection measured against every
    other one as the reference, RMSE with sigma on the diagonal.

    Topics: the reference's topics with a relevant document; a topic a test
    collection does not judge scores 0 there (a note). NAME=F1,F2,... gives a
    collection as several qrels samples (a statistical method): each drawn
    topic takes one of them at random.

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
      bvtest pool --depth 5 qrels.txt runs/ > depth5.qrels
      bvtest rankings --reference qrels.txt --collection depth5.qrels runs/
      bvtest rankings --reference G=qrels.txt --collection d5=depth5.qrels \\
          --collection d20=depth20.qrels -f table runs/
      bvtest rankings -m infAP --reference qrels.txt \\
          --collection sampled=s1.qrels,s2.qrels,s3.qrels --topics 200 runs/
    """
    from .rankings_report import rankings_report

    return rankings_report(s)


@command("pool", ("depth", "inputs", "jobs", "quiet"), inputs=RUNS)
def pool_cmd(s: Settings) -> Report:
    """Depth-K pooled qrels: the judgments of QRELS on the top K of any run.

    A document is pooled for a topic when some run ranks it in its top K
    (score descending, ties by docno descending, as trec_eval). The output is
    TREC qrels (qid 0 docno rel) on stdout, topics in bvtest's order, docnos
    sorted; pooled documents that QRELS does not judge are left out (they
    are counted in a note), and so is a topic whose pool holds no judged
    document. Compare the pool with the full qrels by `bvtest rankings`.

    \b
    Examples:
      bvtest pool --depth 10 qrels.txt runs/ > depth10.qrels
      bvtest rankings --reference qrels.txt --collection depth10.qrels runs/
    """
    from .rankings_report import pool_report

    return pool_report(s)


@command("permute", ("output", "inputs", "seed", "jobs", "quiet"), inputs=RUNS, output=PERMUTE_OUT)
def permute_cmd(s: Settings) -> Report:
    """Engineered runs (Cormack & Grossman 2019 §4.2) written to --out DIR.

    For every run and topic, the relevant documents (under QRELS) are
    shuffled among the positions they occupy, within each grade (seeded by
    --seed, the run's name and the topic). Each engineered run DIR/NAME.perm
    (run tag NAME.perm) has exactly its source's per-topic AP, nDCG, P@k...
    under QRELS, but other documents at the top: ranked with the real runs,
    they expose the bias of a shallow pool. Nothing is printed on stdout.

    \b
    Examples:
      bvtest permute --out eng/ qrels.txt runs/
      bvtest pool --depth 5 qrels.txt runs/ > depth5.qrels   # the real runs' pool
      bvtest rankings --reference qrels.txt --collection depth5.qrels runs/ eng/
    """
    from .rankings_report import permute_files

    return permute_files(s)


# ======================================================================================


# =========================================================================== variations


@command(
    "variations",
    (*INPUTS, "variation_map", "split", "mode", "weights", "alphas", "per_topic", *EVALUATION,
     "plot", *OUTPUT),
    alphas=VARIATIONS_ALPHAS,
)  # fmt: skip
def variations_cmd(s: Settings) -> Report:
    """Mean–variance evaluation over query variations (Zuccon16).

    Runs answer query variations (query ids such as 201-4); the map says the
    topic (and user) of each, the qrels are keyed by topic. Per measure and
    run: the mean mu, the variance var and O = mu − alpha var for every alpha
    (alpha > 0 rewards stable runs, alpha < 0 unstable ones); per alpha,
    Kendall's tau and tau_AP between the ranking by O and the ranking by mu;
    and the crossovers: every pair of runs that swaps places within the
    alpha range, at the exact alpha where it does.

    \b
    Modes: general  mu, var over user slots of the topic-weighted score
                    (the map names a user on every line; every user, every topic)
           intra    each topic over its variations, runs ranked per topic;
                    tau, tau_ap per topic and their mean (-q: per-topic mu, var, o)
           inter    one query per topic, over topics (plain TREC data)

    \b
    JSON: {"mode", "alphas": [...], "measures": {MEASURE: {"n_topics",
           "n_variations", "n_users" (general), "systems": {RUN: {"mu", "var",
           "o": {ALPHA: ..}}}, "tau": {ALPHA: ..}, "tau_ap": {ALPHA: ..},
           "topics" (intra): {TOPIC: {"tau", "tau_ap"}},
           "crossovers": [{"a", "b", "alpha"} (+ "topic" in intra)]}}}
    trec: AP.o(alpha=-2)<TAB>run<TAB>v, AP.tau(alpha=5)<TAB>all<TAB>v,
          AP.crossover<TAB>runA:runB<TAB>0.8136 (runA leads below that alpha)

    \b
    Examples:
      bvtest variations --map uqv.map qrels.txt runs/
      bvtest variations --split - --mode intra -m P@10 -f table qrels.txt runs/
      bvtest variations --alpha=-1000:1000:10 --plot tau.png qrels.txt runs/
      bvtest variations --scores s.tsv --map uqv.map --weights w.txt -f json
    """
    from .variations_report import variations_report

    return variations_report(s)


# ======================================================================= end variations


@command(
    "compare",
    (*INPUTS, *EVALUATION, "pair", "pairs", "target", "normalize", "ddof", "alphas", "seed",
     *CI, *OUTPUT),
    ci=COMPARE_CI,
    fmt=COMPARE_FORMAT,
)  # fmt: skip
def compare_cmd(s: Settings) -> Report:
    """Is one run significantly more effective, or more stable, than another?

    Paired tests of RUN_A − RUN_B over the same topics, per measure: the
    difference in mean, Var, MSE and GeoRisk (at each --alpha), each with a
    paired topic-bootstrap interval (--ci, --bootstrap, --ci-method, --seed)
    and a two-sided bootstrap p-value; for Var also the Pitman–Morgan test of
    equal variances for paired samples (p_pm). With exactly two runs they are
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
      bvtest compare qrels.txt runs/bm25.run runs/new.run
      bvtest compare --pair bm25.run new.run -f table qrels.txt runs/
      bvtest compare --pairs all --scores scores.tsv -f json
    """
    from .compare import compare

    return compare(s)


def main() -> None:
    """Entry point: click's usage errors become one line too (exit 2).

    Numpy's floating-point warnings never reach stderr: the analyses return
    inf or NaN (printed nan, null in JSON) where a value overflows or is
    undefined, and say why in a note where it matters; a RuntimeWarning
    would only be noise around the one-line diagnostics.
    """
    # One BLAS thread (before numpy is imported): the analyses' matrices are
    # small, an idle thread pool spins on the cores the evaluating workers
    # need, and a threaded reduction could change the last bits of a result
    # with the machine's number of cores. A user's own setting is kept.
    for variable in ("OPENBLAS_NUM_THREADS", "OMP_NUM_THREADS", "MKL_NUM_THREADS"):
        os.environ.setdefault(variable, "1")
    try:
        with _numpy_quiet(), warnings.catch_warnings():
            warnings.simplefilter("ignore", RuntimeWarning)
            code = cli.main(prog_name="bvtest", standalone_mode=False)
    except BrokenPipeError:  # e.g. `bvtest --help | head -1`
        _quiet_broken_pipe()
    except OSError as exc:
        # Files are read through InputError, and results are written by emit;
        # what arrives here with a write error is click writing the help or
        # the version to a failing standard output. Anything else (a process
        # that cannot be started, say) is still one line, not a traceback.
        if exc.errno in _WRITE_ERRORS:
            output_failed(exc.strerror or str(exc))
        click.echo(f"bvtest: {exc.strerror or exc}", err=True)
        sys.exit(2)
    except InputError as exc:
        click.echo(f"bvtest: {exc}", err=True)
        sys.exit(2)
    except click.UsageError as exc:
        no_args = getattr(click.exceptions, "NoArgsIsHelpError", ())
        if no_args and isinstance(exc, no_args):  # bare `bvtest`: the help, as click prints it
            click.echo(exc.format_message(), err=True)
            sys.exit(2)
        hint = f" (see '{exc.ctx.command_path} --help')" if exc.ctx is not None else ""
        click.echo(f"bvtest: {exc.format_message()}{hint}", err=True)
        sys.exit(2)
    except click.ClickException as exc:
        click.echo(f"bvtest: {exc.format_message()}", err=True)
        sys.exit(exc.exit_code)
    except click.Abort:
        click.echo("bvtest: aborted", err=True)
        sys.exit(130)
    sys.exit(code if isinstance(code, int) else 0)


if __name__ == "__main__":
    main()
