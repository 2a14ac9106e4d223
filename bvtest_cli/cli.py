"""Command line: parse options, call the pipeline, render (SPEC §12).

Every command prints results only on stdout, and only once everything has
been computed; notes and errors go to stderr. A user mistake is one line
``bvtest: FILE:LINE: message`` and exit status 2, never a traceback.
"""

from __future__ import annotations

import sys
from collections.abc import Callable, Sequence
from typing import Any

import click

from . import __version__, grouping
from .errors import InputError
from .evaluate import DEFAULT_MEASURES, default_jobs, evaluate_runs, parse_measures
from .matrix import ScoreMatrix
from .pipeline import DEFAULT_ALPHAS, Options, parse_alphas, report
from .render import FORMATS, render
from .trecio import Note, expand_sources, read_qrels, read_scores, write_scores


class Group(click.Group):
    """Turns InputError into one stderr line and exit status 2."""

    def invoke(self, ctx: click.Context) -> Any:
        try:
            return super().invoke(ctx)
        except InputError as exc:
            click.echo(f"bvtest: {exc}", err=True)
            ctx.exit(2)


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
            click.echo(f"bvtest: note: {text}", err=True)

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


def input_options(f: Callable) -> Callable:
    """QRELS RUNS... or --scores FILE, and how to evaluate."""
    decorators = [
        click.argument("inputs", nargs=-1, metavar="[QRELS RUNS...]"),
        click.option(
            "--scores",
            "scores_file",
            metavar="FILE",
            help="Analyse a long-format scores file (from `bvtest scores`; - for stdin) "
            "instead of QRELS and RUNS.",
        ),
        click.option(
            "-m",
            "--measure",
            "measures",
            multiple=True,
            metavar="MEASURE",
            help="ir_measures measure string, repeatable or comma-separated "
            f"[default: {','.join(DEFAULT_MEASURES)}; with --scores: every measure in the file].",
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
    for d in reversed(decorators):
        f = d(f)
    return f


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
            type=int,
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
            help="A run name among the inputs: adds urisk, trisk and zrisk_baseline.",
        ),
    ]
    for d in reversed(decorators):
        f = d(f)
    return f


def load_matrices(
    inputs: Sequence[str],
    scores_file: str | None,
    measures: Sequence[str],
    rel_level: int,
    jobs: int | None,
    err_impl: str,
    quiet: bool,
) -> list[ScoreMatrix]:
    """Per-topic score matrices from QRELS + RUNS or from a scores file."""
    note = _notes(quiet)
    if scores_file is not None:
        if inputs:
            raise click.UsageError("give either --scores FILE or QRELS RUNS..., not both")
        matrices = read_scores(scores_file, note)
        if measures:
            wanted = [s.name for s in parse_measures(measures, rel_level)]
            by_name = {m.measure: m for m in matrices}
            missing = [w for w in wanted if w not in by_name]
            if missing:
                raise InputError(
                    f"measure {missing[0]!r} is not in the scores file "
                    f"(it has {', '.join(by_name)})",
                    "<stdin>" if scores_file == "-" else scores_file,
                )
            matrices = [by_name[w] for w in wanted]
        return matrices
    if len(inputs) < 2:
        raise click.UsageError("expected QRELS and at least one RUN (or --scores FILE)")
    specs = parse_measures(measures or DEFAULT_MEASURES, rel_level)
    sources = expand_sources(inputs[1:])
    qrels = read_qrels(inputs[0])
    return evaluate_runs(
        qrels,
        sources,
        specs,
        rel_level=rel_level,
        jobs=jobs or default_jobs(),
        err_impl=err_impl,
        note=note,
        tick=_progress(len(sources), quiet),
    )


def emit(text: str) -> None:
    """Write all results at once; a closed pipe (``| head``) is not an error."""
    try:
        sys.stdout.write(text)
        sys.stdout.flush()
    except BrokenPipeError:
        sys.stderr.close()  # silence the interpreter's own message at exit
        sys.exit(0)


# ---------------------------------------------------------------------------
# Commands


@cli.command("eval")
@input_options
@analysis_options
@output_options
def eval_cmd(
    inputs: tuple[str, ...],
    scores_file: str | None,
    measures: tuple[str, ...],
    rel_level: int,
    jobs: int | None,
    err_impl: str,
    quiet: bool,
    target: str | float,
    group: str | None,
    normalize: str,
    repeats: int,
    seed: int,
    alphas: tuple[str, ...],
    baseline: str | None,
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
    matrices = load_matrices(inputs, scores_file, measures, rel_level, jobs, err_impl, quiet)
    opts = Options(target, group, normalize, repeats, seed, alphas, baseline)
    emit(render(report(matrices, opts, _notes(quiet)), fmt_name, digits))


@cli.command("scores")
@click.argument("qrels", metavar="QRELS")
@click.argument("runs", nargs=-1, required=True, metavar="RUNS...")
@click.option("-m", "--measure", "measures", multiple=True, metavar="MEASURE",
              help=f"As for eval [default: {','.join(DEFAULT_MEASURES)}].")
@click.option("-l", "--rel-level", type=int, default=1, show_default=True,
              help="A document is relevant when its grade >= L.")
@click.option("-j", "--jobs", type=click.IntRange(min=1), default=None,
              help="Runs evaluated in parallel [default: all cores].")
@click.option("--err-impl", type=click.Choice(["fast", "perl"]), default="fast",
              show_default=True, help="As for eval.")
@click.option("-q", "--quiet", is_flag=True, help="No notes on stderr.")
def scores_cmd(
    qrels: str,
    runs: tuple[str, ...],
    measures: tuple[str, ...],
    rel_level: int,
    jobs: int | None,
    err_impl: str,
    quiet: bool,
) -> None:
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
    matrices = load_matrices((qrels, *runs), None, measures, rel_level, jobs, err_impl, quiet)
    emit(write_scores(matrices))


def main() -> None:
    cli(prog_name="bvtest")


if __name__ == "__main__":
    main()
