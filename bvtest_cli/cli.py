"""Command line: parse options, call the pipeline, render (SPEC §12).

Every command prints results only on stdout, and only once everything has
been computed; notes and errors go to stderr. A user mistake is one line
``bvtest: FILE:LINE: message`` and exit status 2, never a traceback.
"""

from __future__ import annotations

import dataclasses
import errno
import functools
import os
import sys
import warnings
from collections.abc import Callable, Sequence
from dataclasses import dataclass
from typing import Any, NoReturn

import click
import numpy as np

from . import __version__, grouping
from .errors import InputError
from .evaluate import DEFAULT_MEASURES, evaluate_runs, map_runs, parse_measures
from .matrix import ScoreMatrix
from .parallel import default_jobs
from .pipeline import (
    DEFAULT_ALPHAS,
    Options,
    instability_report,
    parse_alphas,
    pertopic_report,
    report,
)
from .render import FORMATS, render
from .tradeoff_table import TableSettings
from .trecio import (
    Note,
    expand_sources,
    read_qrels,
    read_scores,
    sort_topics,
    system_name,
    write_scores,
)

# Notes wait here until the command has succeeded: a command that ends in an
# error prints that one line and nothing else on stderr.
_pending_notes: list[str] = []


def flush_notes() -> None:
    for text in _pending_notes:
        click.echo(f"bvtest: note: {text}", err=True)
    _pending_notes.clear()


class Group(click.Group):
    """Turns InputError into one stderr line and exit status 2; prints the
    notes of a command only when it did not fail."""

    def invoke(self, ctx: click.Context) -> Any:
        try:
            result = super().invoke(ctx)
        except InputError as exc:
            _pending_notes.clear()
            click.echo(f"bvtest: {exc}", err=True)
            ctx.exit(2)
        except click.exceptions.Exit:  # `check` exits 1 when a gate fails
            flush_notes()
            raise
        flush_notes()
        return result


@click.group(cls=Group, context_settings={"help_option_names": ["-h", "--help"]})
@click.version_option(__version__, prog_name="bvtest")
def cli() -> None:
    """Bias–variance, instability and risk analysis of TREC runs.

    \b
    bvtest eval qrels.txt runs/            decomposition, Var(ρ), risk, tradeoff
    bvtest scores qrels.txt runs/ > s.tsv  per-topic scores (cache, pipe)
    bvtest eval --scores s.tsv             analyse a scores file
    """


# ---------------------------------------------------------------------------
# Shared options


def _notes(quiet: bool) -> Note:
    def note(text: str) -> None:
        if not quiet:
            _pending_notes.append(text)

    return note


def _progress(total: int, quiet: bool) -> Callable[[], None]:
    """A counter on stderr while runs are evaluated, only on a terminal."""
    if quiet or total < 2 or not sys.stderr.isatty():
        return lambda: None
    done = 0

    def tick() -> None:
        nonlocal done
        done += 1
        end = "\n" if done == total else ""
        sys.stderr.write(f"\rbvtest: evaluating runs {done}/{total}{end}")
        sys.stderr.flush()

    return tick


def _target(ctx: click.Context, param: click.Parameter, value: str) -> str | float:
    if value in ("max", "ideal"):
        return value
    try:
        c = float(value)
    except ValueError:
        raise click.BadParameter("expected max, ideal or a number in [0, 1]") from None
    if not 0.0 <= c <= 1.0:
        raise click.BadParameter("a constant target must lie in [0, 1]")
    return c


def _group(ctx: click.Context, param: click.Parameter, value: str | None) -> str | None:
    try:
        grouping.parse_group(value)
    except ValueError as exc:
        raise click.BadParameter(str(exc)) from None
    return value


def _alphas(ctx: click.Context, param: click.Parameter, value: str) -> tuple[str, ...]:
    try:
        return parse_alphas(value)
    except ValueError as exc:
        raise click.BadParameter(str(exc)) from None


def _baseline(ctx: click.Context, param: click.Parameter, value: str | None) -> str | None:
    """A run name, or the path of a run file as typed on the command line
    (``sample_runs/sys003``, ``runs/x.run.gz``): both name the system by the
    rule of SPEC §1, the file name without directory and trailing ``.gz``."""
    if value is None:
        return None
    if not value.strip():
        raise click.BadParameter("expected a run name or the path of a run file")
    return system_name(value)


@dataclass(frozen=True)
class Evaluation:
    """How runs are evaluated: the options -m, -l, -j, --err-impl, -q."""

    measures: tuple[str, ...]
    rel_level: int
    jobs: int | None
    err_impl: str
    quiet: bool

    def note(self, text: str) -> None:
        _notes(self.quiet)(text)

    def matrices(self, qrels: str, runs: Sequence[str]) -> list[ScoreMatrix]:
        """Evaluate RUNS against QRELS: one ScoreMatrix per measure."""
        specs = parse_measures(self.measures or DEFAULT_MEASURES, self.rel_level)
        sources = expand_sources(runs)
        qrels_file = read_qrels(qrels)
        return evaluate_runs(
            qrels_file,
            sources,
            specs,
            rel_level=self.rel_level,
            jobs=self.jobs or default_jobs(),
            err_impl=self.err_impl,
            note=self.note,
            tick=_progress(len(sources), self.quiet),
        )


def bundle(cls: type, name: str) -> Callable[[Callable], Callable]:
    """Collect the options named like the fields of dataclass ``cls`` into one
    ``cls`` object passed as ``name``, so commands take a few objects instead
    of a dozen parameters."""
    fields = [f.name for f in dataclasses.fields(cls)]

    def decorate(f: Callable) -> Callable:
        @functools.wraps(f)
        def wrapper(*args: Any, **kwargs: Any) -> Any:
            kwargs[name] = cls(**{k: kwargs.pop(k) for k in fields})
            return f(*args, **kwargs)

        return wrapper

    return decorate


def evaluation_options(
    measure_help: str = "ir_measures measure string, repeatable or comma-separated "
    f"[default: {','.join(DEFAULT_MEASURES)}; with --scores: every measure in the file].",
) -> Callable[[Callable], Callable]:
    """-m, -l, -j, --err-impl, -q, passed to the command as ``ev: Evaluation``."""
    decorators = [
        click.option(
            "-m",
            "--measure",
            "measures",
            multiple=True,
            metavar="MEASURE",
            help=measure_help,
        ),
        click.option(
            "-l",
            "--rel-level",
            type=int,
            default=1,
            show_default=True,
            help="A document is relevant when its grade >= L (topic selection and the "
            "rel parameter of AP, P, R, ...).",
        ),
        click.option(
            "-j",
            "--jobs",
            type=click.IntRange(min=1),
            default=None,
            help="Runs evaluated in parallel [default: all cores]. Output does not depend on it.",
        ),
        click.option(
            "--err-impl",
            type=click.Choice(["fast", "perl"]),
            default="fast",
            show_default=True,
            help="ERR@k by bvtest's gdeval-exact code (fast) or by gdeval.pl through "
            "ir_measures (perl; one process per run).",
        ),
        click.option("-q", "--quiet", is_flag=True, help="No notes on stderr."),
    ]

    def decorate(f: Callable) -> Callable:
        f = bundle(Evaluation, "ev")(f)
        for d in reversed(decorators):
            f = d(f)
        return f

    return decorate


def input_options(f: Callable) -> Callable:
    """QRELS RUNS... or --scores FILE, and how to evaluate (``ev``)."""
    f = evaluation_options()(f)
    f = click.option(
        "--scores",
        "scores_file",
        metavar="FILE",
        help="Analyse a long-format scores file (from `bvtest scores`; - for stdin) "
        "instead of QRELS and RUNS.",
    )(f)
    return click.argument("inputs", nargs=-1, metavar="[QRELS RUNS...]")(f)


def output_options(f: Callable) -> Callable:
    f = click.option(
        "--digits",
        type=click.IntRange(0, 17),
        default=4,
        show_default=True,
        help="Decimals of printed values (not JSON).",
    )(f)
    f = click.option(
        "-f",
        "--format",
        "fmt_name",
        type=click.Choice(FORMATS),
        default="trec",
        show_default=True,
        help="trec: name<TAB>system<TAB>value lines; table: one table per measure; "
        "tsv/csv: measure,name,system,value with a header; json: SPEC schema.",
    )(f)
    return f


def analysis_options(f: Callable) -> Callable:
    decorators = [
        click.option(
            "--target",
            default="max",
            show_default=True,
            callback=_target,
            help="c for Bias²: max = mean of the virtual target (best score per topic), "
            "ideal = 1, or a constant in [0, 1].",
        ),
        click.option(
            "--group",
            metavar="difficulty:K|random:K",
            callback=_group,
            help="Average topics in groups of K (hardest first, or random with --repeats).",
        ),
        click.option(
            "--normalize",
            type=click.Choice(["none", "minmax", "ratio"]),
            default="none",
            show_default=True,
            help="minmax per topic (target becomes 1), or ratio to the target per sample.",
        ),
        click.option(
            "--repeats",
            type=click.IntRange(min=1),
            default=grouping.DEFAULT_REPEATS,
            show_default=True,
            help="Random groupings averaged with --group random:K.",
        ),
        click.option(
            "--seed",
            type=click.IntRange(min=0),
            default=grouping.DEFAULT_SEED,
            show_default=True,
            help="Seed of the random groupings; same seed, same output.",
        ),
        click.option(
            "--alpha",
            "alphas",
            default=",".join(DEFAULT_ALPHAS),
            show_default=True,
            callback=_alphas,
            help="Risk-aversion values (>= 0) for URisk, TRisk, ZRisk and GeoRisk.",
        ),
        click.option(
            "--baseline",
            metavar="RUN",
            callback=_baseline,
            help="A run among the inputs, by name or by path: adds urisk, trisk and "
            "zrisk_baseline.",
        ),
    ]
    f = bundle(Options, "opts")(f)
    for d in reversed(decorators):
        f = d(f)
    return f


def load_matrices(
    inputs: Sequence[str], scores_file: str | None, ev: Evaluation
) -> list[ScoreMatrix]:
    """Per-topic score matrices from QRELS + RUNS or from a scores file."""
    if scores_file is None:
        if len(inputs) < 2:
            raise click.UsageError("expected QRELS and at least one RUN (or --scores FILE)")
        return ev.matrices(inputs[0], inputs[1:])
    if inputs:
        raise click.UsageError("give either --scores FILE or QRELS RUNS..., not both")
    matrices = read_scores(scores_file, ev.note)
    if not ev.measures:
        return matrices
    wanted = [s.name for s in parse_measures(ev.measures, ev.rel_level)]
    by_name = {m.measure: m for m in matrices}
    missing = [w for w in wanted if w not in by_name]
    if missing:
        raise InputError(
            f"measure {missing[0]!r} is not in the scores file (it has {', '.join(by_name)})",
            "<stdin>" if scores_file == "-" else scores_file,
        )
    return [by_name[w] for w in wanted]


def emit(text: str) -> None:
    """Write all results at once, after the notes.

    A reader that stopped reading (``| head``, a broken pipe) is not an
    error: exit 0, silently. Any other failure to write (a full disk,
    ``> /dev/full``, standard output closed) is: one line on stderr and exit
    status 2, like every error that stops a command (1 is reserved for a
    failing ``check`` gate)."""
    flush_notes()
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


# ---------------------------------------------------------------------------
# Commands


@cli.command("eval")
@input_options
@analysis_options
@output_options
def eval_cmd(
    inputs: tuple[str, ...],
    scores_file: str | None,
    ev: Evaluation,
    opts: Options,
    fmt_name: str,
    digits: int,
) -> None:
    """Bias², Var, MSE, Var(ρ), risk measures and the tradeoff of every run.

    For every measure and run: the mean, Bias² = (mean − c)², Var and
    MSE = Bias² + Var against the virtual target (the best score on each
    topic); Var(ρ) with Var(x_T) and Cov(x_T, x_i); ZRisk, GeoRisk, ZRisk
    against the target and TRisk* for every alpha; and per measure the
    Pearson/Spearman correlation of Bias² and Var across runs.

    \b
    Examples:
      bvtest eval qrels/qrels.txt sample_runs/
      bvtest eval -m AP -m nDCG@10 --format table qrels.txt runs/
      bvtest eval --target ideal --baseline bm25.run qrels.txt runs/*.run
      bvtest scores qrels.txt runs/ | bvtest eval --scores -
      bvtest eval -f json qrels.txt runs/ | jq '.measures.AP.tradeoff'
    """
    emit(render(report(load_matrices(inputs, scores_file, ev), opts, ev.note), fmt_name, digits))


@cli.command("scores")
@click.argument("qrels", metavar="QRELS")
@click.argument("runs", nargs=-1, required=True, metavar="RUNS...")
@evaluation_options(f"As for eval [default: {','.join(DEFAULT_MEASURES)}].")
def scores_cmd(qrels: str, runs: tuple[str, ...], ev: Evaluation) -> None:
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
    emit(write_scores(ev.matrices(qrels, runs)))


@cli.command("instability")
@input_options
@click.option("--target", default="max", show_default=True, callback=_target, help="As for eval.")
@click.option(
    "--normalize",
    type=click.Choice(["none", "minmax", "ratio"]),
    default="none",
    show_default=True,
    help="As for eval.",
)
@output_options
def instability_cmd(
    inputs: tuple[str, ...],
    scores_file: str | None,
    ev: Evaluation,
    target: str | float,
    normalize: str,
    fmt_name: str,
    digits: int,
) -> None:
    """Where instability comes from (seed 000 Table 8), runs sorted by mean.

    Per run: |ZRisk| against the virtual target at alpha 0, Var(ρ) and its
    decomposition Var(ρ) = Var(x_T) + Var(x_i) − 2 Cov(x_T, x_i). ZRisk only
    says that a run is unstable; a large Var(x_i) says the run's own scores
    swing, a small Cov(x_T, x_i) says it fails where the best runs succeed.

    \b
    Examples:
      bvtest instability -m ERR@20 --format table qrels.txt runs/
      bvtest instability --scores scores.tsv -f json
    """
    opts = Options(target=target, normalize=normalize, alphas=("0",))
    full = report(load_matrices(inputs, scores_file, ev), opts, ev.note)
    columns = ("mean", "abs_zrisk_target", "var_rho", "var", "cov_target")
    emit(render(instability_report(full), fmt_name, digits, table_fields=columns))


@cli.command("tradeoff")
@input_options
@click.option(
    "--target",
    default="max",
    show_default=True,
    callback=_target,
    help="As for eval (with normalization, max and ideal both mean c = 1).",
)
@click.option(
    "--random-size",
    "random_size",
    type=click.IntRange(min=1),
    default=10,
    show_default=True,
    metavar="K1",
    help="Topics per group of the random:K1 row.",
)
@click.option(
    "--difficulty-size",
    "difficulty_size",
    type=click.IntRange(min=1),
    default=5,
    show_default=True,
    metavar="K2",
    help="Topics per group of the difficulty:K2 row (hardest first).",
)
@click.option(
    "--normalize",
    type=click.Choice(["minmax", "ratio"]),
    default="minmax",
    show_default=True,
    help="Normalization of the second column group (ratio: seed 001 Table 2(d)).",
)
@click.option(
    "--repeats",
    type=click.IntRange(min=1),
    default=grouping.DEFAULT_REPEATS,
    show_default=True,
    help="Random groupings averaged in the random:K1 row.",
)
@click.option(
    "--seed",
    type=click.IntRange(min=0),
    default=grouping.DEFAULT_SEED,
    show_default=True,
    help="Seed of the random groupings; same seed, same output.",
)
@output_options
@bundle(TableSettings, "ts")
def tradeoff_cmd(
    inputs: tuple[str, ...],
    scores_file: str | None,
    ev: Evaluation,
    ts: TableSettings,
    fmt_name: str,
    digits: int,
) -> None:
    """Bias² vs Var correlation across runs per grouping (seed 000 Table 9).

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
    from .tradeoff_table import render_tradeoff_table, tradeoff_table

    result, notes = tradeoff_table(load_matrices(inputs, scores_file, ev), ts)
    for text in notes:
        ev.note(text)
    if fmt_name == "table":
        emit(render_tradeoff_table(result, digits))
    else:
        emit(render(result, fmt_name, digits))


def _gate_measures(
    gates: Sequence[Any], measures: tuple[str, ...], rel_level: int
) -> tuple[list[Any], tuple[str, ...]]:
    """Gates with their measure in canonical form, and the measures to evaluate:
    those the gates name (in order), or -m's, which must then include them."""
    canonical = []
    for gate in gates:
        try:
            specs = parse_measures([gate.measure], rel_level)
        except InputError as exc:
            raise InputError(f"gate {gate.text!r}: {exc.message}") from None
        if len(specs) != 1:
            raise InputError(f"gate {gate.text!r}: name one measure before ':'")
        canonical.append(dataclasses.replace(gate, measure=specs[0].name))
    named = tuple(dict.fromkeys(g.measure for g in canonical))
    if not measures:
        return canonical, named
    wanted = [s.name for s in parse_measures(measures, rel_level)]
    for gate in canonical:
        if gate.measure not in wanted:
            raise InputError(
                f"gate {gate.text!r}: measure {gate.measure!r} is not among "
                f"-m ({', '.join(wanted)})"
            )
    return canonical, tuple(wanted)


@cli.command("check")
@click.argument("qrels", metavar="QRELS")
@click.argument("pool", metavar="POOL")
@click.argument("new_runs", nargs=-1, required=True, metavar="NEW_RUN...")
@click.option(
    "-g",
    "--gate",
    "gate_texts",
    multiple=True,
    required=True,
    metavar="EXPR",
    help="MEASURE:FIELD[@ALPHA] OP RIGHT, OP one of <= < >= >, RIGHT a number or "
    "a pool run name (that run's value); repeatable, all must pass.",
)
@evaluation_options("Measures to evaluate [default: the measures the gates name].")
@analysis_options
@click.option(
    "-f",
    "--format",
    "fmt_name",
    type=click.Choice(["text", "json"]),
    default="text",
    show_default=True,
    help="text: PASS|FAIL<TAB>gate<TAB>run<TAB>value OP bound lines; json: "
    '{"verdicts": [...], "passed": bool}.',
)
@click.option(
    "--digits",
    type=click.IntRange(0, 17),
    default=4,
    show_default=True,
    help="Decimals of printed values (not JSON).",
)
def check_cmd(
    qrels: str,
    pool: str,
    new_runs: tuple[str, ...],
    gate_texts: tuple[str, ...],
    ev: Evaluation,
    opts: Options,
    fmt_name: str,
    digits: int,
) -> None:
    """Gate new runs against a pool (CI): exit 0 if every gate passes, 1 if not.

    The new runs are evaluated together with the POOL (a directory of runs or
    one run file), so the virtual target and the multiple-baseline risk
    measures include them. Every gate is checked for every new run; one line
    per gate and new run: PASS|FAIL, the gate, the run, value OP bound.
    A null value (undefined, e.g. TRisk with a zero standard error) fails.

    FIELD: mean, bias2, var, mse, var_rho, var_target, cov_target, or with
    @ALPHA zrisk, georisk, zrisk_target, trisk_mean, and with --baseline
    urisk, trisk, zrisk_baseline. Alphas the gates name are computed even if
    --alpha omits them.

    Exit status: 0 all gates pass; 1 a gate fails; 2 bad usage or input, a
    malformed gate, a RIGHT that is not a pool run, or a new run named like a
    pool run. Gates are checked before anything is evaluated.

    \b
    Examples:
      bvtest check qrels.txt runs/ new.run --gate 'AP:mse<=0.06'
      bvtest check qrels.txt runs/ new/*.run --gate 'AP:mse<=bm25.run' \\
          --gate 'nDCG@10:georisk@5>=bm25.run'
      bvtest check -f json qrels.txt runs/ new.run -g 'ERR@20:mean>=0.3'
    """
    import json

    from .gate import (
        BASELINE_FIELDS,
        GateError,
        evaluate_gate,
        format_verdict,
        missing_alphas,
        parse_gate,
        verdict_dict,
    )

    # 1. Everything that needs no file: the gates and the measures.
    try:
        gates = [parse_gate(text) for text in gate_texts]
    except GateError as exc:
        raise InputError(str(exc)) from None
    gates, measure_names = _gate_measures(gates, ev.measures, ev.rel_level)
    for gate in gates:
        if gate.field in BASELINE_FIELDS and opts.baseline is None:
            raise InputError(f"gate {gate.text!r}: field {gate.field!r} needs --baseline RUN")

    # 2. Run names: new runs must not clash with the pool, RIGHT must be a pool run.
    pool_sources = expand_sources([pool])
    new_sources = expand_sources(new_runs)
    pool_names = {s.name: s.label for s in pool_sources}
    for s in new_sources:
        if s.name in pool_names:
            raise InputError(
                f"new run {s.name!r} has the same name as pool run {pool_names[s.name]}; "
                "rename the new run",
                s.label,
            )
    shown = ", ".join(sorted(pool_names)[:8]) + (", ..." if len(pool_names) > 8 else "")
    for gate in gates:
        if isinstance(gate.right, str) and gate.right in {s.name for s in new_sources}:
            raise InputError(
                f"gate {gate.text!r}: {gate.right!r} is a new run, not a pool run; "
                "a bound names a pool run"
            )
        if isinstance(gate.right, str) and gate.right not in pool_names:
            raise InputError(
                f"gate {gate.text!r}: {gate.right!r} is neither a number nor a pool run "
                f"(pool: {shown})"
            )
    if opts.baseline is not None and opts.baseline not in pool_names:
        raise InputError(
            f"baseline {opts.baseline!r} is not a pool run (pool: {shown})", "--baseline"
        )

    # 3. Evaluate pool + new runs together, then the gates.
    matrices = dataclasses.replace(ev, measures=measure_names).matrices(qrels, (pool, *new_runs))
    opts = dataclasses.replace(opts, alphas=opts.alphas + missing_alphas(gates, opts.alphas))
    result = report(matrices, opts, ev.note)
    try:
        verdicts = [
            evaluate_gate(gate, result, s.name, set(pool_names))
            for gate in gates
            for s in new_sources
        ]
    except GateError as exc:
        raise InputError(str(exc)) from None
    passed = all(v.passed for v in verdicts)
    if fmt_name == "json":
        doc = {"verdicts": [verdict_dict(v) for v in verdicts], "passed": passed}
        emit(json.dumps(doc, indent=2, allow_nan=False) + "\n")
    else:
        emit("".join(format_verdict(v, digits) + "\n" for v in verdicts))
    if not passed:
        failed = sum(not v.passed for v in verdicts)
        ev.note(f"{failed} of {len(verdicts)} gate verdict(s) failed")
        click.get_current_context().exit(1)


@cli.command("plot")
@input_options
@analysis_options
@click.option(
    "-o",
    "--output",
    required=True,
    metavar="FILE",
    help="The figure; format by extension: .png, .svg or .pdf.",
)
def plot_cmd(
    inputs: tuple[str, ...],
    scores_file: str | None,
    ev: Evaluation,
    opts: Options,
    output: str,
) -> None:
    """Draw Bias²/Var/MSE per run, the Bias²–Var tradeoff and GeoRisk vs alpha.

    One row of three panels per measure, from the same analysis as eval (same
    options). Needs matplotlib: pip install 'bvtest[plot]'. Writes only FILE,
    nothing on stdout; exit 2 when matplotlib is missing, the extension is not
    png/svg/pdf or FILE cannot be written.

    \b
    Examples:
      bvtest plot -o bv.png qrels/qrels.txt sample_runs/
      bvtest plot -m ERR@20 --normalize minmax -o err.pdf qrels.txt runs/
      bvtest plot --scores scores.tsv -o bv.svg
    """
    import os

    from .plot import PlotUnavailable, output_format, plot_result, require_matplotlib

    # Everything that can fail without evaluating is checked first.
    try:
        output_format(output)
        require_matplotlib()
    except (ValueError, PlotUnavailable) as exc:
        raise InputError(str(exc)) from None
    directory = os.path.dirname(os.path.abspath(output))
    if not os.path.isdir(directory):
        raise InputError("cannot write the plot: no such directory", output)
    if os.path.isdir(output):
        raise InputError("cannot write the plot: is a directory", output)
    result = report(load_matrices(inputs, scores_file, ev), opts, ev.note)
    try:
        plot_result(result, output)
    except (ValueError, PlotUnavailable) as exc:
        raise InputError(str(exc)) from None
    except OSError as exc:
        raise InputError(f"cannot write the plot: {exc.strerror or exc}", output) from None


@cli.command("pertopic")
@click.argument("qrels", metavar="QRELS")
@click.argument("runs", nargs=-1, required=True, metavar="RUNS...")
@click.option(
    "-k",
    "--samples",
    type=click.IntRange(min=2),
    default=100,
    show_default=True,
    help="Simulated collections per run and topic.",
)
@click.option(
    "--seed",
    type=click.IntRange(min=0),
    default=grouping.DEFAULT_SEED,
    show_default=True,
    help="Seed of the simulation; same seed, same output.",
)
@click.option(
    "-l",
    "--rel-level",
    type=int,
    default=1,
    show_default=True,
    help="A document is relevant when its grade >= L.",
)
@click.option(
    "-q",
    "--per-topic",
    is_flag=True,
    help="Also print every topic × run Bias² and Var (like trec_eval -q).",
)
@click.option(
    "-j",
    "--jobs",
    type=click.IntRange(min=1),
    default=None,
    help="Processes [default: all cores]. Output does not depend on it.",
)
@click.option("--quiet", is_flag=True, help="No notes on stderr.")
@output_options
def pertopic_cmd(
    qrels: str,
    runs: tuple[str, ...],
    samples: int,
    seed: int,
    rel_level: int,
    per_topic: bool,
    jobs: int | None,
    quiet: bool,
    fmt_name: str,
    digits: int,
) -> None:
    """Per-topic Bias² and Var of AP from simulated collections (seed 000 §3.4).

    For every run and topic, k collections are simulated from the run's own
    retrieved documents (after Robertson & Kanoulas, SIGIR 2012): the number
    of relevant documents r_s ~ Poisson(r), documents drawn with replacement
    from the run's relevant and non-relevant ones, ranked by their scores.
    Bias² and Var of each run are taken across the k samples against the
    per-sample best run, then averaged over topics (seed 000 eqs. 13–14,
    Table 10); per topic, the Pearson correlation of Bias² and Var across runs
    (Table 11). Needs runs with scores, not a scores file.

    \b
    Examples:
      bvtest pertopic qrels/qrels.txt sample_runs/
      bvtest pertopic -k 200 --seed 7 -f table qrels.txt runs/
      bvtest pertopic -q -f json qrels.txt runs/ > pertopic.json
    """
    from .simulate import analyse_samples, system_sampler

    note = _notes(quiet)
    sources = expand_sources(runs)
    qrels_file = read_qrels(qrels)
    topics = sort_topics(qrels_file.relevant_topics(rel_level))
    if not topics:
        raise InputError(f"no topic has a relevant document (rel >= {rel_level})", qrels_file.label)
    names = [s.name for s in sources]  # each run's random streams are keyed by its name
    # Each run is read and simulated in one worker; only (topics × k) AP comes back.
    make_work = functools.partial(
        system_sampler, qrels_file.qrels, topics, samples, seed, rel_level, names=names
    )
    per_run = map_runs(
        sources, make_work, jobs=jobs or default_jobs(), tick=_progress(len(sources), quiet)
    )
    cube = np.stack([ap for ap, _ in per_run])
    result = analyse_samples(cube, names, topics, [missing for _, missing in per_run])
    for name, count in zip(result.systems, result.missing, strict=True):
        if count:
            note(f"{name}: no ranking for {count} of {len(topics)} topics; AP 0 in every sample")
    if result.tradeoff.reason:
        note(f"AP: tradeoff correlation undefined: {result.tradeoff.reason}")
    doc = pertopic_report(
        result, "AP" if rel_level == 1 else f"AP(rel={rel_level})", seed, per_topic
    )
    emit(render(doc, fmt_name, digits, table_fields=("bias2", "var")))


def main() -> None:
    """Entry point: click's usage errors become one line too (exit 2).

    Numpy's floating-point warnings never reach stderr: the analyses return
    inf or NaN (printed nan, null in JSON) where a value overflows or is
    undefined, and say why in a note where it matters; a RuntimeWarning
    would only be noise around the one-line diagnostics.
    """
    try:
        with np.errstate(all="ignore"), warnings.catch_warnings():
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
