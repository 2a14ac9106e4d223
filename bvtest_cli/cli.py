"""The command line: one declaration per command and one runner.

Every command names its options (declared once in :mod:`bvtest_cli.options`)
and is a function (inputs, parameters) → Report; the runner renders the report, writes
notes to stderr (unless ``--quiet``) and results to stdout, all at once after
everything is computed. A user mistake is one line ``bvtest: FILE:LINE:
message`` and exit status 2, never a traceback.
"""

from __future__ import annotations

import errno
import os
import signal
import sys
import warnings
from typing import Any, NoReturn

import click

from . import __version__
from .commands import COMMANDS
from .errors import InputError, say
from .io.sources import Inputs
from .options import Command, Settings, declare
from .report.model import Report


@click.group(context_settings={"help_option_names": ["-h", "--help"]})
@click.version_option(__version__, prog_name="bvtest")
def cli() -> None:
    """Bias–variance, instability and risk analysis of TREC runs.

    \b
    bvtest eval qrels.txt runs/            decomposition, Var(ρ), risk, tradeoff
    bvtest scores qrels.txt runs/ > s.tsv  per-topic scores (cache, pipe)
    bvtest eval --scores s.tsv             analyse a scores file
    """


def _click_command(command: Command) -> click.Command:
    """The click command of ``command``: its options parsed into one Settings,
    its report rendered and written by the runner."""

    @cli.command(command.name, help=command.run.__doc__, short_help=summary(command))
    @declare(command.options, command.overrides)
    def run(s: Settings, given: frozenset[str]) -> None:
        inputs, params = Inputs.of(vars(s), command.options), command.params.parsed(vars(s))
        report = command.build(inputs, params, given)
        text = "" if s.output is not None else render_report(report, s, command.name, inputs)
        emit(text, () if s.quiet else report.notes)
        if report.status:
            sys.exit(report.status)

    return run


def summary(command: Command) -> str:
    """The command's line in ``bvtest --help``: its help's first paragraph,
    whole (click would cut it at 45 characters with "...")."""
    return " ".join((command.run.__doc__ or "").strip().split("\n\n")[0].split())


for _command in COMMANDS.values():
    _click_command(_command)


def render_report(report: Report, s: Settings, name: str = "", inputs: Inputs | None = None) -> str:
    from .render.formats import TABLE_WIDTH, render

    page = page_of(name, inputs or Inputs(), s) if s.fmt == "html" else None
    return render(report, s.fmt, s.digits, s.caption, page, table_width(s) or TABLE_WIDTH, s.sort)


def table_width(s: Settings) -> int | None:
    """The columns of ``-f table``: ``--width N``, else $COLUMNS, else the
    terminal's width when standard output is a terminal; None when none of
    them says (then 80, the renderer's default, as for a pipe or a file)."""
    if s.width is not None:
        return s.width
    columns = os.environ.get("COLUMNS", "").strip()
    if columns.isdigit() and int(columns) > 0:
        return int(columns)
    if sys.stdout is not None and sys.stdout.isatty():
        import shutil

        return shutil.get_terminal_size().columns
    return None


def page_of(name: str, inputs: Inputs, s: Settings) -> Any:
    """The HTML page's header: the command, its line as typed, the inputs."""
    import shlex

    from .options import input_paths
    from .render.html import Page

    files = []
    qrels = ",".join(s.reference[1]) if s.reference else inputs.qrels
    if qrels:
        files.append(("qrels", qrels))
    files.append(("inputs", " ".join(input_paths(inputs, s))))
    line = shlex.join(["bvtest", *sys.argv[1:]])
    return Page(f"bvtest {name}".strip(), line, __version__, tuple(files))


def emit(text: str, notes: tuple[str, ...]) -> None:
    """Write the notes to stderr, then all results at once.

    A reader that stopped reading (``| head``, a broken pipe) is not an
    error: exit 0, silently. Any other failure to write (a full disk,
    ``> /dev/full``, standard output closed) is: one line on stderr and exit
    status 2, like every error that stops a command (1 is reserved for a
    failing ``check`` gate)."""
    for note in notes:
        say(f"bvtest: note: {note}")
    if sys.stdout is None:  # started with standard output closed (``>&-``)
        output_failed("standard output is closed")
    try:
        from .io.sources import output_bytes  # docnos as their files' bytes

        out = getattr(sys.stdout, "buffer", None)
        if out is None:  # a text-only stream (tests, embedding)
            sys.stdout.write(text)
        else:
            sys.stdout.flush()
            out.write(output_bytes(text))
            out.flush()
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
    if sys.stderr is not None:
        sys.stderr.close()  # silence the interpreter's own message at exit
    sys.exit(0)


def output_failed(reason: str) -> NoReturn:
    """Writing standard output failed: say so in one line, exit status 2."""
    say(f"bvtest: cannot write output: {reason}")
    if sys.stdout is not None:
        # What is still buffered would fail again when the interpreter flushes
        # it at exit (a second message and exit status 120): send it nowhere.
        try:
            devnull = os.open(os.devnull, os.O_WRONLY)
            os.dup2(devnull, sys.stdout.fileno())
        except (OSError, ValueError):
            pass
    sys.exit(2)


def _numpy_quiet() -> Any:
    """np.errstate(all="ignore"), without importing numpy for --help and
    --version (start-up); RuntimeWarnings are filtered anyway."""
    import contextlib

    if any(a in ("--help", "-h", "--version") for a in sys.argv[1:]) or len(sys.argv) < 2:
        return contextlib.nullcontext()
    import numpy as np

    return np.errstate(all="ignore")


class Terminated(BaseException):
    """SIGTERM, raised where the command is: what it was writing is removed on
    the way out (io.files cleans up on any BaseException), as after SIGINT."""


def _on_sigterm(signum: int, _frame: object) -> None:
    if os.getpid() != _MAIN_PID:
        # a forked worker: die as SIGTERM says, the main process cleans up
        signal.signal(signum, signal.SIG_DFL)
        os.kill(os.getpid(), signum)
        return
    raise Terminated


_MAIN_PID = os.getpid()


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
    global _MAIN_PID
    _MAIN_PID = os.getpid()
    signal.signal(signal.SIGTERM, _on_sigterm)
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
        say(f"bvtest: {exc.strerror or exc}")
        sys.exit(2)
    except InputError as exc:
        say(f"bvtest: {exc}")
        sys.exit(2)
    except click.UsageError as exc:
        no_args = getattr(click.exceptions, "NoArgsIsHelpError", ())
        if no_args and isinstance(exc, no_args):  # bare `bvtest`: the help, as click prints it
            say(exc.format_message())
            sys.exit(2)
        hint = f" (see '{exc.ctx.command_path} --help')" if exc.ctx is not None else ""
        say(f"bvtest: {exc.format_message()}{hint}")
        sys.exit(2)
    except click.ClickException as exc:
        say(f"bvtest: {exc.format_message()}")
        sys.exit(exc.exit_code)
    except click.Abort:
        say("bvtest: aborted")
        sys.exit(130)
    except Terminated:
        say("bvtest: terminated")
        sys.exit(128 + signal.SIGTERM)
    sys.exit(code if isinstance(code, int) else 0)


if __name__ == "__main__":
    main()
