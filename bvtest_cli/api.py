"""The Python API: every command as a function returning the command's report.

``import bvtest`` gives these functions. Each one is a thin call of the very
function the command runs (:data:`bvtest_cli.commands.COMMANDS`), with its options
parsed by the command's own click declarations, so the API and the CLI check
the same things and compute the same numbers::

    report = bvtest.evaluate("qrels.txt", "runs/", measures=["AP", "nDCG@10"])
    report.to_dict()      # the JSON document of `bvtest eval -f json`
    report.to_frame()     # a long pandas DataFrame
    report.render("table")

Inputs are paths (as on the command line) or Python objects: qrels as a dict
``topic → docno → grade`` or an iterable of ``ir_measures.Qrel`` /
``(query_id, doc_id, relevance)``; runs as a dict ``run name → run``, a run
being a path, a dict ``topic → docno → score`` or an iterable of
``ir_measures.ScoredDoc`` / ``(query_id, doc_id, score)``; a scores table as
a path, a long pandas DataFrame (columns system, topic, measure, value), an
iterable of such 4-tuples, the report of :func:`scores`, or
:func:`from_ir_measures`' result. Python objects are written to a private
temporary directory in the TREC formats and read by the command's readers,
so every check of a file applies to them; an error names ``<qrels>``,
``<run NAME>`` or ``<scores>`` and the 1-based position of the offending
record as its line.

Options are the Settings names of the command's options (``measures``,
``rel_level``, ``alphas``, ``target``, ``group``, ``normalize``, ``repeats``,
``seed``, ``baseline``, ``jobs``, ``samples``, ...), with the values the
command line takes: ``alphas="0,5"`` or ``alphas=[0, 5]``, ``group="random:5"``
or ``("random", 5)``, ``target="ideal"`` or ``0.5``. Output options
(``--format``, ``--digits``) belong to :meth:`Report.render`. Every mistake
raises :class:`InputError` (``file`` and ``line`` set where there is one),
in the API's words: a keyword (``bootstrap=``, ``measures=``) where the CLI
names a flag (``--bootstrap``, ``-m``).
An empty list or dict (``measures=[]``, ``runs={}``) is an error, not the
default; a score or grade given as a string is an error (files are parsed,
Python values are not).

Keywords whose names differ from their flags: ``map`` (``--map``; also
``condition_map`` and ``variation_map``), ``condition_pattern``
(``--pattern``), ``collections`` (``--collection NAME=F1,F2``: a list of such
strings), ``reference`` (``--reference [NAME=]FILE``), ``runs`` (the RUNS of
``rankings``), ``gates`` (``-g/--gate``: a list of gate strings),
``new_names`` (``--new`` of ``check --scores``), ``pair`` (``--pair A B``: a
tuple or a list of tuples), ``pairs`` (``--pairs all``), ``per_topic``
(``-q``), ``rel_level`` (``-l``), ``err_impl`` (``--err-impl``),
``random_size``/``difficulty_size`` (``--random-size``/``--difficulty-size``),
``ci_method``/``ci_memory`` (``--ci-method``/``--ci-memory``), ``complete``
(``-c``), ``max_docs`` (``-M``), ``judged_only`` (``-J``), ``judges``
(``--judge NAME=FILE``: a list of such strings), ``ppi_lambda``
(``--lambda``), ``output``
(``-o``/``--out``), ``plot`` (``--plot``), ``measures`` (``-m``/``--measure``),
``alphas`` (``--alpha``), ``budgets`` (``--budget``), ``topics_scale``
(``--topics-scale``), ``methods`` (``--methods``), ``samples``
(``-k``/``--samples``), ``jobs`` (``-j``).
"""

from __future__ import annotations

import numbers
import os
import re
import tempfile
import warnings
from collections.abc import Callable, Iterable, Iterator, Mapping
from dataclasses import dataclass, fields, replace
from pathlib import Path
from typing import Any

import click
import numpy as np

from .errors import InputError
from .io.sources import SCORES_HEADER
from .report import model
from .report.model import Records

__all__ = [
    "InputError",
    "Report",
    "Scores",
    "analyse",
    "check",
    "commands",
    "design",
    "evaluate",
    "from_ir_measures",
    "instability",
    "pertopic",
    "plot",
    "run",
    "scores",
    "sensitivity",
    "tradeoff",
]

# Settings attributes the API fills from its input arguments, and output-only
# options that belong to Report.render (or, for quiet, to nobody: notes are in
# report.notes and progress counters never run).
_INPUT_ATTRS = ("inputs", "scores", "qrels", "pool", "new_runs")
_RENDER_ATTRS = ("fmt", "digits", "quiet")
# Keywords that name one option by the command it serves: both are ``--map``.
_KEYWORDS = {"condition_map": "map", "variation_map": "map"}


def commands() -> list[str]:
    """The names of the commands the API can run (those of the CLI).

    >>> "eval" in commands() and "tradeoff" in commands()
    True
    """
    from .commands import COMMANDS

    return sorted(COMMANDS)


class Report(model.Report):
    """A command's report, as the API returns it: the report of
    :mod:`bvtest_cli.report.model` with the ways to read it from Python."""

    @classmethod
    def of(cls, report: model.Report) -> Report:
        return cls(**{f.name: getattr(report, f.name) for f in fields(report)})

    def render(self, fmt: str = "trec", digits: int = 4) -> str:
        """The text the command prints with ``--format fmt --digits digits``
        (trec, table, tsv, csv, json, latex, markdown, html; ``text`` for check)."""
        from .options import FORMATS
        from .render.formats import render

        if fmt not in (*FORMATS, "text"):
            raise InputError(f"format {fmt!r}: expected one of {', '.join(FORMATS)}")
        if isinstance(digits, bool) or not isinstance(digits, int) or not 0 <= digits <= 17:
            raise InputError(f"digits={digits!r}: expected an integer from 0 to 17")

        return render(self, fmt, digits)

    def to_dict(self) -> dict[str, Any]:
        """The JSON document of ``--format json`` as Python objects (NaN and
        infinities are None, as null in JSON)."""
        from .render.text import document

        return document(self)

    def to_frame(self, table: str | None = None) -> Any:
        """A long pandas DataFrame: one row per number, columns measure, field,
        system, alpha, value (the numbers of the trec format, full precision).
        A report whose measure blocks hold record tables (compare's ``pairs``
        and ``significance_matrix``, design's ``dstudy``, ``tssd``, …) gives
        one row per record of ``table`` (default the first; the names:
        :meth:`tables`), its measure in a column, its keys as columns.

        ``field`` is the trec name without the measure (``bias2``,
        ``tradeoff.pearson``, ``zrisk.lo``), ``alpha`` the alpha of an
        alpha-indexed field as a number (NaN otherwise), ``system`` the row (``all`` for
        a measure's own values), ``value`` a float (NaN where undefined). A
        report of records (``scores``, ``check``) gives one row per record
        with the JSON keys as columns. The report's settings are in
        ``frame.attrs["settings"]``. Needs pandas (``pip install
        'bvtest[pandas]'``).

        >>> import bvtest
        >>> frame = bvtest.evaluate("qrels/qrels.txt", "sample_runs/", measures="AP").to_frame()
        >>> list(frame.columns)
        ['measure', 'field', 'system', 'alpha', 'value']
        >>> row = frame.query("field == 'zrisk' and system == 'sys001' and alpha == 5")
        >>> round(float(row.value.iloc[0]), 4)
        -20.6516
        """
        from .render.longform import to_frame

        return to_frame(self, table)

    def tables(self) -> list[str]:
        """The record tables :meth:`to_frame` can give (``[]`` for a report
        that is one long table of numbers)."""
        from .render.longform import record_tables

        return record_tables(self)


# --------------------------------------------------------------------------- the bridge


def run(
    command: str,
    /,
    qrels: Any = None,
    runs: Any = None,
    *,
    scores: Any = None,
    pool: Any = None,
    new_runs: Any = None,
    **options: Any,
) -> Report:
    """Run ``command`` as the CLI does and return its report.

    ``qrels`` and ``runs`` are the command's QRELS RUNS...; ``scores`` its
    ``--scores`` table; ``pool`` and ``new_runs`` check's POOL NEW_RUN...;
    ``options`` the command's options by Settings name. Every API function is
    this call; a command without its own function (one added later) is
    reachable as ``run("name", ...)`` and as ``bvtest.name(...)``.

    >>> report = run("eval", "qrels/qrels.txt", "sample_runs/", measures="AP", alphas=[0, 5])
    >>> report.to_dict()["measures"]["AP"]["systems"]["sys001"]["georisk"]
    {'0': 0.5254088895496986, '5': 0.36167839938425145}
    """
    from .cli import cli
    from .commands import COMMANDS
    from .options import Settings, validate
    from .options import given as set_by_user

    cmd = cli.commands.get(command)
    if cmd is None or command not in COMMANDS:
        raise InputError(f"unknown command {command!r}; commands: {', '.join(commands())}")
    params = {p.name: p for p in cmd.params if p.name is not None}
    given = {"qrels": qrels, "runs": runs, "scores": scores, "pool": pool, "new_runs": new_runs}
    for name, value in (*options.items(), ("runs", runs), ("new_runs", new_runs)):
        if isinstance(value, (list, tuple, dict, set, frozenset)) and not value:
            # an empty list would mean the default (or nothing): say so instead
            raise InputError(f"{name}: an empty {type(value).__name__} names nothing")
    with tempfile.TemporaryDirectory(prefix="bvtest-") as tmp:
        inputs = _Inputs(Path(tmp))
        try:
            argv = _option_argv(command, params, options) + _input_argv(
                command, params, given, inputs
            )
            try:
                ctx = cmd.make_context(f"bvtest {command}", argv)
                settings = validate(Settings(**ctx.params), list(params), set_by_user(ctx))
            except click.UsageError as exc:
                raise InputError(_usage_message(exc, options)) from None
            with np.errstate(all="ignore"), warnings.catch_warnings():
                warnings.simplefilter("ignore", RuntimeWarning)  # as the CLI's main()
                try:
                    report = Report.of(COMMANDS[command].run(settings))
                except click.UsageError as exc:  # a usage check inside the command
                    raise InputError(_usage_message(exc, options)) from None
        except InputError as exc:
            raise _in_keywords(inputs.relabel(exc)) from None
        return replace(report, notes=tuple(inputs.notes) + tuple(map(inputs.text, report.notes)))


#: Options whose command-line value is a comma-separated list: a Python list works too.
_LIST_ATTRS = (
    "alphas", "budgets", "topics_scale", "methods", "topic_counts", "min_diffs", "ci_widths",
    "totals", "subset_sizes", "human_topics", "grade_map",
)  # fmt: skip


def _option_argv(command: str, params: Mapping[str, Any], options: Mapping[str, Any]) -> list[str]:
    """Keyword options → the command line that sets them (``--alpha=0,5``), so
    that click's own types, ranges and callbacks check them."""
    argv: list[str] = []
    if "quiet" in params:
        argv.append("--quiet")
    for attr, value in options.items():
        attr = _KEYWORDS.get(attr, attr)
        param = params.get(attr)
        if param is None or attr in _INPUT_ATTRS or attr in _RENDER_ATTRS:
            known = sorted(a for a in params if a not in _INPUT_ATTRS + _RENDER_ATTRS)
            hint = "; use report.render(fmt, digits)" if attr in ("fmt", "digits") else ""
            raise InputError(
                f"{command} takes no option {attr!r}{hint} (options: {', '.join(known)})"
            )
        if value is None:
            continue  # the default
        flag = max(param.opts, key=len)  # the long name: --alpha
        if getattr(param, "is_flag", False):
            if not isinstance(value, (bool, np.bool_)):
                raise InputError(f"{attr}={value!r}: expected True or False")
            argv += [flag] if value else []
        elif getattr(param, "multiple", False) and (param.nargs or 1) > 1:
            # compare's --pair A B (repeatable): a tuple, or a list of tuples
            tuples = [value] if value and isinstance(value[0], (str, os.PathLike)) else value
            for t in tuples:
                argv += [flag, *map(_text, t)]
        elif getattr(param, "multiple", False):
            values = [value] if isinstance(value, (str, os.PathLike)) else list(value)
            argv += [f"{flag}={_text(v)}" for v in values]
        elif attr in _LIST_ATTRS and isinstance(value, Iterable) and not isinstance(value, str):
            argv.append(f"{flag}={','.join(map(_text, value))}")
        elif attr == "group" and isinstance(value, tuple):
            argv.append(f"{flag}={':'.join(map(_text, value))}")
        else:
            argv.append(f"{flag}={_text(value)}")
    return argv


def _text(value: Any) -> str:
    """A value as typed on the command line. Numbers keep their repr: 3.5
    given to an integer option is an error there, never truncated."""
    if isinstance(value, os.PathLike):
        return os.fspath(value)
    return str(value)


def _input_argv(
    command: str, params: Mapping[str, Any], given: Mapping[str, Any], inputs: _Inputs
) -> list[str]:
    """The input arguments → ``--scores=FILE`` and the positional arguments."""
    used: set[str] = set()
    options: list[str] = []
    positional: list[str] = []
    if "scores" in params and given["scores"] is not None:
        options.append(f"--scores={inputs.scores(given['scores'])}")
        used.add("scores")
    if "inputs" in params and (given["qrels"] is not None or given["runs"] is not None):
        if given["qrels"] is None or given["runs"] is None:
            raise InputError(f"{command} needs both qrels and runs (or a scores table)")
        positional += [inputs.qrels(given["qrels"]), *inputs.runs(given["runs"])]
        used |= {"qrels", "runs"}
    if "qrels" in params and given["qrels"] is not None:
        positional.append(inputs.qrels(given["qrels"]))
        used.add("qrels")
    if "runs" in params and given["runs"] is not None:  # RUNS... alone (rankings)
        positional += inputs.runs(given["runs"])
        used.add("runs")
    if "pool" in params and given["pool"] is not None:
        positional.append(inputs.pool(given["pool"]))
        used.add("pool")
    if "new_runs" in params and given["new_runs"] is not None:
        positional += inputs.runs(given["new_runs"])
        used.add("new_runs")
    unused = [k for k, v in given.items() if v is not None and k not in used]
    if unused:
        raise InputError(f"{command} takes no {unused[0]} argument")
    return [*options, "--", *positional]


def _in_keywords(exc: InputError) -> InputError:
    """An error in the API's words: the keyword (``bootstrap=``) where the CLI
    would name its flag (``--bootstrap``)."""
    from .options import OPTIONS

    # every flag, long and short (-m, -l, -k, -o: the API has no short names)
    words = {d: f"{o.attr}=" for o in OPTIONS.values() for d in o.decls if d.startswith("-")}

    def keyword(text: str) -> str:
        return re.sub(
            r"(?<![\w-])(?:--[a-z][\w-]*|-[a-zA-Z](?![\w-]))",
            lambda m: words.get(m[0], m[0]),
            text,
        )

    file = None if exc.file is None else keyword(exc.file)  # ``-m: …`` → ``measures=: …``
    return InputError(keyword(exc.message), file, exc.line)


def _usage_message(exc: click.UsageError, options: Mapping[str, Any]) -> str:
    """click's message in the API's words: the keyword, not the flag."""
    param = getattr(exc, "param", None)
    if isinstance(exc, click.MissingParameter) and param is not None:
        return f"missing {param.name}"
    if isinstance(exc, click.BadParameter) and param is not None:
        shown = f"={options[param.name]!r}" if param.name in options else ""
        return f"invalid {param.name}{shown}: {exc.message}"
    return exc.format_message()


# --------------------------------------------------------------------------- inputs


_TREC_SPACE = re.compile(r"[ \t\n\r\x0b\x0c]")  # what splits a field of a TREC line
_LINE_BREAK = re.compile(r"[\t\n\r\x0b\x0c\x85\u2028\u2029]")


def _is_path(value: Any) -> bool:
    return isinstance(value, (str, os.PathLike))


def _is_frame(value: Any) -> bool:
    return hasattr(value, "columns") and hasattr(value, "itertuples")


#: PyTerrier's names of ir_measures' columns (its topics, results and qrels frames).
PYTERRIER_COLUMNS = {"query_id": "qid", "doc_id": "docno", "relevance": "label"}


def _frame_rows(frame: Any, columns: tuple[str, ...], label: str) -> Iterator[tuple]:
    """The columns of a DataFrame in ir_measures' names (query_id, doc_id,
    relevance / score) or PyTerrier's (qid, docno, label / score)."""
    pyterrier = tuple(PYTERRIER_COLUMNS.get(c, c) for c in columns)
    for names in (columns, pyterrier):
        if all(c in frame.columns for c in names):
            return zip(*(frame[c].tolist() for c in names), strict=True)
    missing = [c for c in columns if c not in frame.columns]
    raise InputError(
        f"a DataFrame here needs the columns {', '.join(columns)} (ir_measures) or "
        f"{', '.join(pyterrier)} (PyTerrier) (missing: {', '.join(missing)})",
        label,
    )


#: The column that names a frame's runs when one DataFrame holds several.
RUN_COLUMNS = ("name", "run")


def _runs_of_frame(frame: Any) -> dict[Any, Any]:
    """One DataFrame of several runs, named by its ``name`` or ``run`` column,
    as a dict run name → that run's rows (in order of first appearance)."""
    column = next((c for c in RUN_COLUMNS if c in frame.columns), None)
    if column is None:
        raise InputError(
            "runs: a DataFrame of runs needs a run-name column (name or run); one run's "
            "frame goes in a dict {name: frame}"
        )
    return {name: rows for name, rows in frame.groupby(column, sort=False)}


def _records(items: Any, fields: tuple[str, ...], label: str) -> Iterator[tuple]:
    """Records with these named fields (namedtuples such as ir_measures'
    Qrel / ScoredDoc / Metric) or plain tuples of that length, in order."""
    if _is_frame(items):
        yield from _frame_rows(items, fields, label)
        return
    if isinstance(items, (str, bytes)) or not isinstance(items, Iterable):
        raise InputError(
            f"expected records ({', '.join(fields)}), got {type(items).__name__}", label
        )
    for i, item in enumerate(items, 1):
        if all(hasattr(item, f) for f in fields):
            yield tuple(getattr(item, f) for f in fields)
        elif isinstance(item, (tuple, list)) and len(item) == len(fields):
            yield tuple(item)
        else:
            raise InputError(
                f"expected a record ({', '.join(fields)}), got {_short(item)}", label, i
            )


def _short(value: Any) -> str:
    text = repr(value)
    return text if len(text) <= 60 else text[:57] + "..."


def _id(value: Any, what: str, label: str, line: int) -> str:
    """A topic id or docno as written in a TREC line."""
    if isinstance(value, numbers.Integral) and not isinstance(value, (bool, np.bool_)):
        return str(int(value))
    if not isinstance(value, str):
        raise InputError(f"{what} {_short(value)} is not a string", label, line)
    if not value:
        raise InputError(f"empty {what}", label, line)
    if _TREC_SPACE.search(value):
        raise InputError(
            f"{what} {value!r} contains white space, which a TREC line cannot hold", label, line
        )
    return value


def _number(value: Any) -> str:
    """A number in full precision (repr: read back as the same double); anything
    else as text, for the reader to accept as a file would or to refuse (a
    bool, None, 'nan' and inf are refused there)."""
    if isinstance(value, numbers.Real) and not isinstance(value, (bool, np.bool_)):
        return repr(float(value)) if not isinstance(value, numbers.Integral) else str(int(value))
    return str(value)


def _name_field(value: Any, what: str, label: str, line: int) -> str:
    """A field of a scores line: tab-separated, stripped, ``#`` starts a comment."""
    if isinstance(value, numbers.Integral) and not isinstance(value, (bool, np.bool_)):
        return str(int(value))
    if not isinstance(value, str):
        raise InputError(f"{what} {_short(value)} is not a string", label, line)
    if _LINE_BREAK.search(value):
        raise InputError(f"{what} {value!r} contains a tab or a line break", label, line)
    if value != value.strip():
        raise InputError(f"{what} {value!r} begins or ends with white space", label, line)
    return value


class _Inputs:
    """Python inputs written as TREC files in a private directory, and the
    labels that name them in messages instead of their temporary paths."""

    def __init__(self, directory: Path):
        self.dir = directory
        self.labels: dict[str, str] = {}
        self.notes: list[str] = []
        self._count = 0

    def _path(self, stem: str) -> Path:
        self._count += 1
        return self.dir / f"{self._count}-{stem}"

    def _write(self, path: Path, lines: Iterable[str], label: str) -> str:
        self.labels[str(path)] = label
        try:
            path.write_text("".join(line + "\n" for line in lines), encoding="utf-8")
        except UnicodeEncodeError as exc:
            raise InputError(f"text that is not valid Unicode: {exc.reason}", label) from None
        return str(path)

    def qrels(self, qrels: Any) -> str:
        if _is_path(qrels):
            return os.fspath(qrels)
        label = "<qrels>"
        return self._write(self._path("qrels"), self._qrels_lines(qrels, label), label)

    def _qrels_lines(self, qrels: Any, label: str) -> Iterator[str]:
        for _, t, d, grade in _checked_rows(qrels, "qrels", "relevance", label):
            yield f"{t} 0 {d} {grade}"

    def runs(self, runs: Any) -> list[str]:
        """A path (file or directory), a list of paths, or a dict name → run."""
        if _is_path(runs):
            return [os.fspath(runs)]
        if _is_frame(runs):
            runs = _runs_of_frame(runs)
        if isinstance(runs, Mapping):
            directory = self._path("runs")
            directory.mkdir()
            return [self._run(directory, name, r) for name, r in runs.items()]
        if isinstance(runs, (list, tuple)) and runs and all(map(_is_path, runs)):
            return [os.fspath(r) for r in runs]
        raise InputError(
            "runs: expected a path, a list of paths, a dict run name → run, or a DataFrame "
            f"with a name or run column (got {type(runs).__name__})"
        )

    def pool(self, pool: Any) -> str:
        """check's POOL: a path, or a dict name → run (written as a directory)."""
        if _is_path(pool):
            return os.fspath(pool)
        if not isinstance(pool, Mapping):
            raise InputError(f"pool: expected a path or a dict run name → run (got {pool!r})")
        directory = self._path("pool")
        directory.mkdir()
        for name, r in pool.items():
            if isinstance(name, str) and name.startswith("."):  # a directory hides these
                raise InputError(f"run name {name!r} begins with '.'")
            self._run(directory, name, r)
        self.labels[str(directory)] = "<pool>"
        return str(directory)

    def _run(self, directory: Path, name: Any, run: Any) -> str:
        """The file of one run, named so that its system name is ``name``."""
        if not isinstance(name, str) or not name:
            raise InputError(f"run name {name!r} is not a non-empty string")
        if "/" in name or "\0" in name or name in (".", "..") or name.endswith(".gz"):
            raise InputError(
                f"run name {name!r} cannot name a file (a '/', a NUL, '.', '..' or a .gz suffix)"
            )
        path = directory / name
        if _is_path(run):  # the file under this name: a symbolic link, read as the file
            target = os.fspath(run)
            try:
                os.symlink(os.path.abspath(target), path)
            except OSError as exc:
                raise InputError(f"run name {name!r}: {exc.strerror}") from None
            self.labels[str(path)] = target
            return str(path)
        label = f"<run {name}>"
        try:
            return self._write(path, self._run_lines(run, label), label)
        except OSError as exc:  # e.g. a name too long for a file name
            raise InputError(f"run name {name!r}: {exc.strerror}") from None

    def _run_lines(self, run: Any, label: str) -> Iterator[str]:
        for i, t, d, score in _checked_rows(run, "run", "score", label):
            yield f"{t} Q0 {d} {i} {score} api"

    def scores(self, table: Any) -> str:
        """A scores path, Scores, the report of `scores`, a long DataFrame, or
        an iterable of (system, topic, measure, value)."""
        if _is_path(table):
            return os.fspath(table)
        label = "<scores>"
        if isinstance(table, Scores):
            self.notes += table.notes
            rows: Iterable[tuple] = table.rows
        elif isinstance(table, model.Report):
            records = [v for _, v in table.body.items if isinstance(v, Records)]
            if not records or records[0].header != SCORES_HEADER:
                raise InputError("this report is not a scores table (use bvtest.scores)", label)
            rows = records[0].items
        else:
            rows = _records(table, SCORES_HEADER, label)
        return self._write(self._path("scores"), self._scores_lines(rows, label), label)

    def _scores_lines(self, rows: Iterable[tuple], label: str) -> Iterator[str]:
        for i, (system, topic, measure, value) in enumerate(rows, 1):
            s = _name_field(system, "system", label, i)
            if s.startswith("#"):
                raise InputError(f"system {s!r} begins with '#' (a comment line)", label, i)
            t = _name_field(topic, "topic", label, i)
            m = _name_field(measure, "measure", label, i)
            v = _number(value)
            if (s, t, m, v) == SCORES_HEADER:
                raise InputError("a record that reads as the header line", label, i)
            yield f"{s}\t{t}\t{m}\t{v}"

    def text(self, text: str) -> str:
        """``text`` with every temporary path replaced by its label."""
        for path in sorted(self.labels, key=len, reverse=True):
            text = text.replace(path, self.labels[path])
        return text.replace(str(self.dir) + os.sep, "")

    def relabel(self, exc: InputError) -> InputError:
        file = self.labels.get(exc.file, exc.file) if exc.file is not None else None
        return InputError(self.text(exc.message), file and self.text(file), exc.line)


def _nested(mapping: Mapping, what: str, label: str) -> Iterator[tuple]:
    """``topic → docno → value`` → (topic, docno, value) records."""
    for topic, docs in mapping.items():
        if not isinstance(docs, Mapping):
            raise InputError(
                f"{what} as a dict: expected topic → {{docno: value}}, got {_short(docs)} "
                f"for topic {topic!r}",
                label,
            )
        for docno, value in docs.items():
            yield topic, docno, value


# --------------------------------------------------------------------------- scores tables


@dataclass(frozen=True)
class Scores:
    """An in-memory scores table: what a scores file holds, one
    (system, topic, measure, value) record per score, plus notes on how it
    was made. Accepted wherever a scores file is (``scores=``); made by
    :func:`from_ir_measures`."""

    rows: tuple[tuple[Any, Any, Any, Any], ...]
    notes: tuple[str, ...] = ()

    def __len__(self) -> int:
        return len(self.rows)

    def to_frame(self) -> Any:
        """A pandas DataFrame with columns system, topic, measure, value."""
        from .render.longform import import_pandas

        return import_pandas().DataFrame(list(self.rows), columns=list(SCORES_HEADER))


def from_ir_measures(
    metrics: Any, *, name: str | None = None, qrels: Any = None, rel_level: int = 1
) -> Scores:
    """Per-topic scores from ``ir_measures.iter_calc`` as a scores table.

    ``metrics`` is a dict run name → what ``iter_calc`` yielded for that run
    (``Metric(query_id, measure, value)`` carries no run name), or one run's
    metrics with ``name=``. Measures are named as ir_measures prints them
    (``nDCG@10``). With ``qrels`` (any form :func:`evaluate` takes) the topic
    set is bvtest's (docs/inputs.md): qrels topics with a document of grade >=
    ``rel_level``; other topics are dropped and a run's missing topics score
    0, with notes, as :func:`evaluate` does. Without it, the topics are those
    in ``metrics`` and a missing score is 0 (with a note), as in a scores file.

    >>> import ir_measures
    >>> qrels = list(ir_measures.read_trec_qrels("qrels/qrels.txt"))
    >>> runs = {f"sys00{i}": list(ir_measures.read_trec_run(f"sample_runs/sys00{i}"))
    ...         for i in (1, 2, 3)}
    >>> metrics = {n: ir_measures.iter_calc([ir_measures.AP], qrels, r) for n, r in runs.items()}
    >>> table = from_ir_measures(metrics, qrels=qrels)
    >>> report = analyse(table)
    >>> round(report.to_dict()["measures"]["AP"]["systems"]["sys001"]["mean"], 6)
    0.549179
    """
    if isinstance(metrics, Mapping):
        items = list(metrics.items())
    elif name is None:
        raise InputError(
            "Metric records carry no run name: pass a dict run name → metrics, or name="
        )
    else:
        items = [(name, metrics)]
    rows: list[tuple[Any, Any, Any, Any]] = []
    for run_name, run_metrics in items:
        label = f"<metrics {run_name}>"
        for query_id, measure, value in _records(
            run_metrics, ("query_id", "measure", "value"), label
        ):
            rows.append((run_name, query_id, str(measure), value))
    if qrels is None:
        return Scores(tuple(rows))
    return _on_qrels_topics(rows, [n for n, _ in items], qrels, rel_level)


def _on_qrels_topics(
    rows: list[tuple[Any, Any, Any, Any]], names: list[Any], qrels: Any, rel_level: int
) -> Scores:
    """docs/inputs.md's topic set on ir_measures' scores: the qrels topics with a
    relevant document; other topics dropped, missing ones 0 (as evaluate)."""
    from .io.trec import read_qrels, sort_topics
    from .measures.topics import list_topics

    if isinstance(rel_level, (bool, np.bool_)) or not isinstance(rel_level, numbers.Integral):
        raise InputError(f"rel_level={rel_level!r}: expected an integer")
    with tempfile.TemporaryDirectory(prefix="bvtest-") as tmp:
        inputs = _Inputs(Path(tmp))
        try:
            qrels_file = read_qrels(inputs.qrels(qrels))
        except InputError as exc:
            raise inputs.relabel(exc) from None
    topics = sort_topics(qrels_file.relevant_topics(int(rel_level)))
    if not topics:
        raise InputError(f"no topic has a relevant document (rel >= {rel_level})", "<qrels>")
    kept_set = set(topics)
    notes: list[str] = []
    dropped = sort_topics({str(r[1]) for r in rows} - kept_set)
    if dropped:
        notes.append(
            f"{len(dropped)} topic(s) of the metrics have no relevant document in the qrels "
            f"(rel >= {rel_level}); dropped: {list_topics(dropped)}"
        )
    kept = [r for r in rows if str(r[1]) in kept_set]
    have: dict[tuple[str, str], set[str]] = {}
    for system, topic, measure, _ in kept:
        have.setdefault((system, measure), set()).add(str(topic))
    measures = list(dict.fromkeys(m for _, _, m, _ in kept))
    for system in names:
        missing = {len(kept_set - have.get((system, m), set())) for m in measures}
        if max(missing, default=0):
            notes.append(
                f"{system}: no score for {max(missing)} of {len(topics)} topics; they score 0"
            )
        for m in measures:
            kept += [(system, t, m, 0.0) for t in topics if t not in have.get((system, m), ())]
    return Scores(tuple(kept), tuple(notes))


# --------------------------------------------------------------------------- commands


def evaluate(qrels: Any, runs: Any, **options: Any) -> Report:
    """``bvtest eval QRELS RUNS...``: Bias², Var, MSE, Var(ρ), the risk
    measures and the Bias²–Var tradeoff of every run, per measure.

    Options: measures, rel_level, jobs, err_impl, target, group, normalize,
    repeats, seed, alphas, baseline.

    >>> report = evaluate("qrels/qrels.txt", "sample_runs/", measures=["AP", "nDCG@10"])
    >>> list(report.to_dict()["measures"])
    ['AP', 'nDCG@10']
    >>> report.notes[0]
    '1 qrels topic(s) have no relevant document (rel >= 1); dropped: 430'

    Python objects work as well. Run y ranks the relevant a second on topic 1
    (AP 1/2) and misses c on topic 2 (AP 0): mean 0.25.

    >>> qrels = {"1": {"a": 1, "b": 0}, "2": {"c": 2}}
    >>> runs = {"x": {"1": {"a": 2.0, "b": 1.0}, "2": {"c": 1.0}},
    ...         "y": [("1", "b", 2.0), ("1", "a", 1.0), ("2", "d", 1.0)]}
    >>> r = evaluate(qrels, runs, measures="AP", alphas=0)
    >>> r.to_dict()["measures"]["AP"]["systems"]["y"]["mean"]
    0.25
    """
    return run("eval", qrels, runs, **options)


def analyse(scores: Any, **options: Any) -> Report:
    """``bvtest eval --scores``: eval's analysis of a scores table (a path, a
    long DataFrame system/topic/measure/value, 4-tuples, :class:`Scores`,
    or the report of :func:`scores`).

    The virtual target is the best score per topic, (0.5, 1.0), so c = 0.75;
    run a's mean is 0.375 and its Bias² (0.375 − 0.75)² = 0.140625:

    >>> table = [("a", "1", "AP", 0.5), ("a", "2", "AP", 0.25),
    ...          ("b", "1", "AP", 0.0), ("b", "2", "AP", 1.0)]
    >>> report = analyse(table, alphas="0")
    >>> report.to_dict()["measures"]["AP"]["systems"]["a"]["bias2"]
    0.140625
    """
    return run("eval", scores=scores, **options)


def scores(qrels: Any, runs: Any, **options: Any) -> Report:
    """``bvtest scores``: every per-topic score. Its ``to_frame()`` is a long
    scores DataFrame, and the report itself is a scores table.

    sys001 has 5 relevant documents in its top 10 for topic 401:

    >>> table = scores("qrels/qrels.txt", "sample_runs/", measures="P@10")
    >>> table.to_dict()["scores"][0]
    {'system': 'sys001', 'topic': '401', 'measure': 'P@10', 'value': 0.5}
    >>> analyse(table, alphas="1").to_dict()["measures"]["P@10"]["n_topics"]
    29
    """
    return run("scores", qrels, runs, **options)


def instability(qrels: Any = None, runs: Any = None, *, scores: Any = None, **options: Any):
    """``bvtest instability``: |ZRisk| against the target, Var(ρ) and its
    decomposition (Zhang22 Table 8), runs sorted by mean.

    >>> report = instability("qrels/qrels.txt", "sample_runs/", measures="AP")
    >>> rows = report.to_dict()["measures"]["AP"]["systems"]
    >>> means = [r["mean"] for r in rows.values()]
    >>> means == sorted(means, reverse=True)
    True
    >>> r, vt = rows["sys001"], report.to_dict()["measures"]["AP"]["var_target"]
    >>> abs(r["var_rho"] - (vt + r["var"] - 2 * r["cov_target"])) < 1e-12
    True
    """
    return run("instability", qrels, runs, scores=scores, **options)


def tradeoff(qrels: Any = None, runs: Any = None, *, scores: Any = None, **options: Any):
    """``bvtest tradeoff``: Pearson and Spearman of Bias² and Var across runs
    for all topics, random:K1 and difficulty:K2 groupings (Zhang22 Table 9).

    >>> report = tradeoff("qrels/qrels.txt", "sample_runs/", measures="AP", repeats=5)
    >>> round(report.to_dict()["measures"]["AP"]["all"]["raw"]["pearson"], 4)
    -0.9068
    """
    return run("tradeoff", qrels, runs, scores=scores, **options)


def pertopic(qrels: Any, runs: Any, **options: Any) -> Report:
    """``bvtest pertopic``: per-topic Bias² and Var of AP from simulated
    collections (Zhang22 §3.4). Options: samples, seed, rel_level, per_topic, jobs.

    >>> report = pertopic("qrels/qrels.txt", "sample_runs/", samples=4, seed=1)
    >>> report.to_dict()["measures"]["AP"]["k"]
    4
    """
    return run("pertopic", qrels, runs, **options)


def check(qrels: Any, pool: Any, new_runs: Any, **options: Any) -> Report:
    """``bvtest check``: gate new runs against a pool. ``report.status`` is 0
    when every gate passes, 1 when one fails (the CLI's exit status).

    >>> report = check("qrels/qrels.txt", "sample_runs/", {"new": "sample_runs/sys003"},
    ...                gates=["AP:mean>=0.3", "AP:mean>=sys001"], measures="AP")
    >>> report.status
    1
    >>> [line.split()[:3] for line in report.render("text").splitlines()]
    [['PASS', 'AP:mean>=0.3', 'new'], ['FAIL', 'AP:mean>=sys001', 'new']]
    """
    return run("check", qrels, pool=pool, new_runs=new_runs, **options)


def design(qrels: Any = None, runs: Any = None, *, scores: Any = None, **options: Any) -> Report:
    """``bvtest design``: reliability (G- and D-study, topics needed) and
    topic-set sizes of a collection, per measure; with ``budget_report`` (the
    path of a ``bvtest budget -f json`` document) and ``totals``, the
    allocation of judgments against topics.

    Options: measures, drop, topic_counts, reliability, ci, significance,
    beta, min_diffs, ci_widths, systems, variance, budget_report, totals,
    bootstrap, seed (and the evaluation options of ``evaluate``).

    >>> report = design("qrels/qrels.txt", "sample_runs/", measures="AP", topic_counts=[50, 100])
    >>> block = report.to_dict()["measures"]["AP"]
    >>> [row["topics"] for row in block["dstudy"]]
    [50, 100]
    >>> g = block["gstudy"]
    >>> g["var_residual"] == g["ms_residual"]
    True
    """
    return run("design", qrels, runs, scores=scores, **options)


def sensitivity(
    qrels: Any = None, runs: Any = None, *, scores: Any = None, **options: Any
) -> Report:
    """``bvtest sensitivity``: how discriminating each measure is — the
    discriminative power and ASL curve of ``test`` (raw, and after
    ``correction``) and of Sakai's bootstrap test, the estimated difference
    required, and swap rates with their extrapolation to all topics.

    Options: measures, test, correction, significance, bootstrap,
    subset_sizes, bin_width, repeats, seed (and the evaluation options of
    ``evaluate``).

    >>> report = sensitivity("qrels/qrels.txt", "sample_runs/", measures="AP", test="t",
    ...                      bootstrap=100, subset_sizes=[5, 10])
    >>> block = report.to_dict()["measures"]["AP"]
    >>> block["pairs"], len(block["asl"]), sorted({row["c"] for row in block["swap_rates"]})
    (66, 66, [5, 10])
    >>> list(block["discriminative_power"])
    ['0.01', '0.05', '0.1']
    """
    return run("sensitivity", qrels, runs, scores=scores, **options)


def plot(qrels: Any = None, runs: Any = None, *, scores: Any = None, **options: Any) -> Report:
    """``bvtest plot -o FILE``: draws the figures into ``output`` (needs
    matplotlib) and returns eval's report."""
    return run("plot", qrels, runs, scores=scores, **options)


def __getattr__(name: str) -> Callable[..., Report]:
    """A command without a function of its own (added after this module):
    ``bvtest.NAME(qrels, runs, ...)`` is ``run("NAME", qrels, runs, ...)``."""
    from .commands import COMMANDS

    if name in COMMANDS:

        def command(*args: Any, **kwargs: Any) -> Report:
            return run(name, *args, **kwargs)

        command.__name__ = name
        command.__doc__ = f"``bvtest {name}`` (see ``bvtest {name} --help``): run({name!r}, ...)."
        return command
    raise AttributeError(name)


def _checked_rows(data: Any, kind: str, value: str, label: str) -> Iterator[tuple]:
    """(position, topic id, docno, value as text) of qrels or a run given as a
    nested dict or as records, each checked as the file readers would."""
    if isinstance(data, Mapping):
        rows: Iterable[tuple] = _nested(data, kind, label)
    else:
        rows = _records(data, ("query_id", "doc_id", value), label)
    for i, (topic, docno, number) in enumerate(rows, 1):
        t, d = _id(topic, "topic id", label, i), _id(docno, "docno", label, i)
        if isinstance(number, (str, bytes)):  # a file's text is parsed; a Python value is not
            raise InputError(f"{value} {number!r} is a string, not a number", label, i)
        yield i, t, d, _number(number)
