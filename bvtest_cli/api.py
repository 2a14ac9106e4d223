"""The Python API: every command as a function returning the command's report.

``import bvtest`` gives these functions. Each one is a thin call of the very
function the command runs (:data:`bvtest_cli.commands.COMMANDS`), its keywords
checked by the kinds and parsers the command's options are declared with (the
declarations the CLI's click parameters are made from; the API imports no
click and parses no command line), so the API and the CLI check the same
things and compute the same numbers::

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
:func:`from_ir_measures`' result. Python objects are read from memory by the
file readers (:mod:`bvtest_cli.io.memory`; nothing is written), so every
check of a file applies to them; an error names ``<qrels>``,
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

import functools
import inspect
import numbers
import os
import re
import warnings
from collections.abc import Callable, Mapping
from dataclasses import dataclass, fields, replace
from typing import Any

import numpy as np

from .errors import InputError
from .io.sources import SCORES_HEADER, Inputs
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
    "keywords",
    "params",
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
    """Run ``command`` on data in memory (or files) and return its report.

    ``qrels`` and ``runs`` are the command's QRELS RUNS...; ``scores`` its
    ``--scores`` table; ``pool`` and ``new_runs`` check's POOL NEW_RUN...;
    ``options`` the command's options by keyword (:func:`keywords`). Every
    API function is this call; a command without its own function is
    reachable as ``run("name", ...)`` and as ``bvtest.name(...)``.

    >>> report = run("eval", "qrels/qrels.txt", "sample_runs/", measures="AP", alphas=[0, 5])
    >>> report.measures["AP"].systems["sys001"].georisk
    {'0': 0.5254088895496986, '5': 0.36167839938425145}
    """
    from .commands import COMMANDS

    if command not in COMMANDS:
        raise InputError(f"unknown command {command!r}; commands: {', '.join(commands())}")
    for name, value in (*options.items(), ("runs", runs), ("new_runs", new_runs)):
        if isinstance(value, (list, tuple, dict, set, frozenset)) and not value:
            # an empty list would mean the default (or nothing): say so instead
            raise InputError(f"{name}: an empty {type(value).__name__} names nothing")
    given = {"qrels": qrels, "runs": runs, "scores": scores, "pool": pool, "new_runs": new_runs}
    try:
        inputs, notes = _inputs(command, given)
        params, chosen = _params(command, options)  # checked before any work
        if "quiet" in COMMANDS[command].options:  # notes are the report's; no counters
            params = params.changed(quiet=True)
        with np.errstate(all="ignore"), warnings.catch_warnings():
            warnings.simplefilter("ignore", RuntimeWarning)  # as the CLI's main()
            named = Inputs.of(inputs, COMMANDS[command].options)
            report = Report.of(COMMANDS[command].build(named, params, chosen))
    except InputError as exc:
        raise _in_keywords(exc) from None
    return replace(report, notes=notes + report.notes)


def keywords(command: str) -> dict[str, Any]:
    """The keywords ``command`` takes and their defaults (None: the
    command's own choice, e.g. every measure of a scores file).

    >>> keywords("eval")["bootstrap"], keywords("eval")["measures"]
    (1000, ())
    """
    return {o.attr: o.default() for o in _keyword_options(command).values()}


def _keyword_options(command: str) -> dict[str, Any]:
    from .commands import COMMANDS
    from .options import keyword_options

    return keyword_options(COMMANDS[command])


def params(command: str, **keywords: Any) -> Any:
    """``command``'s parameters as its frozen dataclass (``EvalParams``, …),
    each checked once; ``bvtest.run(command, ..., **dataclasses.asdict(p))``
    runs on them.

    >>> p = params("eval", alphas=[0, 5], bootstrap=200)
    >>> type(p).__name__, p.alphas, p.bootstrap
    ('EvalParams', ('0', '5'), 200)
    """
    from .commands import COMMANDS

    if command not in COMMANDS:
        raise InputError(f"unknown command {command!r}; commands: {', '.join(commands())}")
    return COMMANDS[command].params(**keywords)


def _params(command: str, options: Mapping[str, Any]) -> tuple[Any, frozenset[str]]:
    """``command``'s parameters from keywords, and the keywords given."""
    from .commands import COMMANDS

    check_keywords(command, options)
    keywords: dict[str, Any] = {}
    spelled: dict[str, str] = {}
    for k, v in options.items():
        if v is None:
            continue
        attr = _KEYWORDS.get(k, k)
        if attr in keywords:  # map= and condition_map=: which would win is arbitrary
            raise InputError(f"{spelled[attr]}= and {k}= name one option; give one")
        keywords[attr], spelled[attr] = v, k
    texts, held = _files_in_memory(keywords)
    params = COMMANDS[command].params(**{**keywords, **texts})
    if held:
        params = params.changed(**{k: _held(getattr(params, k), held) for k in texts})
    return params, frozenset(keywords)


def _files_in_memory(keywords: Mapping[str, Any]) -> tuple[dict[str, Any], dict[str, str]]:
    """The keywords whose options name files (judges, reference, collections,
    map, weights, budget_report) given as data in memory: each datum is an
    :class:`~bvtest_cli.io.sources.InMemory` read by the file's own reader,
    and the keyword is written as the command line would (``NAME=LABEL``)
    so that the option's own parser checks it (names given twice, a missing
    name); :func:`_held` puts the data back where their labels are."""
    from .io import memory

    texts: dict[str, Any] = {}
    held: dict[str, str] = {}

    def keep(value: Any, label: str, make: Callable[[Any, str], str]) -> str:
        if memory.is_path(value):
            return os.fspath(value)
        held[label] = make(value, label)
        return label

    def named(what: str, name: Any) -> str:
        if not isinstance(name, str) or not name or "=" in name or "/" in name:
            raise InputError(f"{what}: a name is a non-empty string without '=' or '/', "
                             f"got {name!r}")  # fmt: skip
        return name

    def collection(name: str, value: Any) -> str:
        items = value if isinstance(value, (list, tuple)) else [value]
        if not items:
            raise InputError(f"collections: collection {name!r} holds no qrels")
        labels = [keep(v, f"<collection {name} {i}>", memory.qrels_input)
                  for i, v in enumerate(items, 1)]  # fmt: skip
        return f"{name}=" + ",".join(labels)

    judges = keywords.get("judges")
    if isinstance(judges, Mapping):
        texts["judges"] = [
            f"{named('judges', n)}=" + keep(v, f"<judge {n}>", memory.qrels_input)
            for n, v in judges.items()
        ]
    reference = keywords.get("reference")
    if reference is not None and not memory.is_path(reference):
        if isinstance(reference, tuple) and len(reference) == 2:
            name, data = named("reference", reference[0]), reference[1]
        else:
            name, data = "reference", reference
        texts["reference"] = f"{name}=" + keep(data, "<reference>", memory.qrels_input)
    collections = keywords.get("collections")
    if isinstance(collections, Mapping):
        texts["collections"] = [
            collection(named("collections", n), v) for n, v in collections.items()
        ]
    for attr, label in (("map", "<map>"), ("weights", "<weights>")):
        if keywords.get(attr) is not None and not memory.is_path(keywords[attr]):
            texts[attr] = keep(keywords[attr], label, memory.table_input)
    report = keywords.get("budget_report")
    if report is not None and not memory.is_path(report):
        texts["budget_report"] = keep(report, "<budget report>", memory.document_input)
    return texts, held


def _held(value: Any, held: Mapping[str, str]) -> Any:
    """``value`` (a parsed option) with every label of ``held`` replaced by its datum."""
    if isinstance(value, tuple):
        return tuple(_held(v, held) for v in value)
    return held.get(value, value) if isinstance(value, str) else value


def check_keywords(command: str, options: Mapping[str, Any], function: str = "") -> None:
    """An unknown keyword is a TypeError naming the valid ones."""
    declared = _keyword_options(command)
    unknown = [k for k in options if _KEYWORDS.get(k, k) not in declared]
    if unknown:
        hint = "; use report.render(fmt, digits)" if unknown[0] in ("fmt", "digits") else ""
        raise TypeError(
            f"{function or command}() got an unexpected keyword {unknown[0]!r}{hint} "
            f"(keywords: {', '.join(sorted(declared))})"
        )


def _inputs(command: str, given: Mapping[str, Any]) -> tuple[dict[str, Any], tuple[str, ...]]:
    """The input arguments as Settings values: paths as they are, Python
    objects as :class:`~bvtest_cli.io.sources.InMemory` inputs (read by the
    file readers, written nowhere), and the notes that came with them."""
    from .commands import COMMANDS
    from .io import memory

    names = COMMANDS[command].options
    out: dict[str, Any] = {}
    notes: tuple[str, ...] = ()
    used: set[str] = set()
    if "scores" in names and given["scores"] is not None:
        out["scores"] = _scores_input(given["scores"])
        notes += out["scores"].notes if isinstance(out["scores"], memory.InMemory) else ()
        used.add("scores")
    if "inputs" in names and (given["qrels"] is not None or given["runs"] is not None):
        if given["qrels"] is None or given["runs"] is None:
            raise InputError(f"{command} needs both qrels and runs (or a scores table)")
        qrels = memory.qrels_input(given["qrels"])
        out["inputs"] = (qrels, *memory.runs_input(given["runs"]))
        used |= {"qrels", "runs"}
    if "qrels" in names and given["qrels"] is not None:
        out["qrels"] = memory.qrels_input(given["qrels"])
        used.add("qrels")
    if "runs" in names and given["runs"] is not None:  # RUNS... alone (rankings)
        out["runs"] = tuple(memory.runs_input(given["runs"]))
        used.add("runs")
    if "pool" in names and given["pool"] is not None:
        out["pool"] = memory.pool_input(given["pool"])
        used.add("pool")
    if "new_runs" in names and given["new_runs"] is not None:
        out["new_runs"] = tuple(memory.runs_input(given["new_runs"], "new_runs"))
        used.add("new_runs")
    unused = [k for k, v in given.items() if v is not None and k not in used]
    if unused:
        raise InputError(f"{command} takes no {unused[0]} argument")
    for attr in ("runs", "new_runs"):
        if attr in names and attr not in out and _keyword_required(attr):
            raise InputError(f"{command} needs {attr}")
    return out, notes


def _keyword_required(attr: str) -> bool:
    from .options import OPTIONS

    return OPTIONS[attr].required


def _scores_input(table: Any) -> Any:
    """A scores path, Scores, the report of `scores`, a long DataFrame, or
    an iterable of (system, topic, measure, value)."""
    from .io import memory

    if memory.is_path(table):
        return os.fspath(table)
    label = "<scores>"
    if isinstance(table, Scores):
        return memory.scores_input(table.rows, table.notes)
    if isinstance(table, model.Report):
        records = [v for _, v in table.body.items if isinstance(v, Records)]
        if not records or records[0].header != SCORES_HEADER:
            raise InputError("this report is not a scores table (use bvtest.scores)", label)
        return memory.scores_input(records[0].items)
    if memory.is_frame(table) and not all(c in table.columns for c in SCORES_HEADER):
        return memory.scores_input(_wide_rows(table, label))
    return memory.scores_input(memory.score_records(table, label))


def _wide_rows(frame: Any, label: str) -> list[tuple[Any, Any, Any, Any]]:
    """A wide scores frame (a column per run, a row per topic, as a wide CSV
    file) as (system, topic, measure, value) records; its measure is
    ``frame.attrs["measure"]`` or the name of its columns."""
    measure = frame.attrs.get("measure") or frame.columns.name
    if not measure:
        raise InputError(
            "a wide scores frame (a column per run, a row per topic) needs its measure: "
            "frame.attrs['measure'] = 'AP' (or frame.columns.name)",
            label,
        )
    topics = [str(t) for t in frame.index.tolist()]
    return [
        (system, topic, measure, value)
        for system in frame.columns
        for topic, value in zip(topics, frame[system].tolist(), strict=True)
    ]


def _in_keywords(exc: InputError) -> InputError:
    """An error in the API's words: the keyword where a message of the
    commands names its flag, with the value the flag is followed by
    (``--bootstrap 1e11: …`` → ``bootstrap=1e11: …``, ``with --ci LEVEL`` →
    ``with ci=LEVEL``, ``--ci-method means …`` → ``ci_method= means …``)."""
    from .options import OPTIONS

    # every flag, long and short (-m, -l, -k, -o: the API has no short names)
    by_flag = {d: o for o in OPTIONS.values() for d in o.decls if d.startswith("-")}
    flags = re.compile(r"(?<![\w-])(--[a-z][\w-]*|-[a-zA-Z](?![\w-]))(?: ([^\s`]+))?")

    def word(m: re.Match[str]) -> str:
        option = by_flag.get(m.group(1))
        if option is None:
            return m.group(0)
        value = m.group(2) or ""
        bare = value.rstrip(".,;:)]")
        if bare and _is_value(option, bare):
            return f"{option.attr}={bare}{value[len(bare) :]}"
        return f"{option.attr}=" + (f" {value}" if value else "")

    def keyword(text: str) -> str:
        # a command line quoted in backticks (`bvtest budget -f json`) stays as written
        parts: list[str] = re.split(r"(`[^`]*`)", text)
        return "".join(p if p.startswith("`") else flags.sub(word, p) for p in parts)

    file = None if exc.file is None else keyword(exc.file)  # ``-m: …`` → ``measures=: …``
    return InputError(keyword(exc.message), file, exc.line)


def _is_value(option: Any, token: str) -> bool:
    """Whether ``token``, after the flag of ``option`` in a message, is the
    flag's value: a placeholder (LEVEL, FILE, RUN_A), a number or a list
    (1e11, 0,5, 5=4, random:K), or one of its choices (intra, all); not the
    next word of the sentence."""
    if option.kwargs.get("is_flag"):
        return False
    if re.fullmatch(r"[A-Z][A-Z0-9_]*(?:\[[^\]]*\])?(?:[:=,][\w\[\].,:=]*)?", token):
        return True
    if re.fullmatch(r"[-+]?\.?\d[\w.,:=+-]*", token) or re.search(r"[:=,]", token):
        return True
    choices = getattr(option.kwargs.get("type"), "choices", ())
    return token in choices


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
    >>> round(report.measures["AP"].systems["sys001"].mean, 6)
    0.549179
    """
    from .io import memory

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
        for query_id, measure, value in memory.records(
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
    from .io.memory import qrels_input

    qrels_file = read_qrels(qrels_input(qrels))
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


# --------------------------------------------------------------------------- signatures


def _annotation(option: Any) -> Any:
    """The type a keyword takes, from its option's kind (for help() and
    inspect.signature; the kind checks the value)."""
    from .options.declarations import COMMA_LISTS
    from .options.kinds import Choice, DocCount, Integer, IntRange, Real

    kind = option.kwargs.get("type")
    if option.kwargs.get("is_flag"):
        return bool
    if option.kwargs.get("multiple") and option.kwargs.get("nargs", 1) > 1:
        return "tuple[str, str] | list[tuple[str, str]]"
    if option.kwargs.get("multiple"):
        return "str | list[str]"
    if option.attr in COMMA_LISTS:
        return "list | str"
    if isinstance(kind, (IntRange, Integer, DocCount)):
        return int
    if isinstance(kind, Real):
        return float
    if isinstance(kind, Choice):
        return " | ".join(repr(c) for c in kind.choices)
    return "str | None" if option.default() is None else str


def _help_line(option: Any) -> str:
    text = " ".join(str(option.kwargs.get("help") or "").split())
    first = text.split(". ")[0].rstrip(".")
    return f"{first}." if first else ""


def signature_of(command: str, positional: tuple[inspect.Parameter, ...]) -> inspect.Signature:
    """The API signature of ``command``: its inputs, then every option it
    takes as a keyword-only parameter with its type and default — made from
    the declarations the CLI's --help is made from."""
    params = list(positional)
    for attr, option in _keyword_options(command).items():
        if option.kwargs.get("hidden"):
            continue  # an old spelling: taken, not shown
        params.append(
            inspect.Parameter(
                attr, inspect.Parameter.KEYWORD_ONLY,
                default=option.default(), annotation=_annotation(option),
            )
        )  # fmt: skip
    return inspect.Signature(params, return_annotation="Report")


def keyword_doc(command: str) -> str:
    """The keywords of ``command`` as the docstring lists them."""
    lines = [f"Keywords (``bvtest.keywords({command!r})``; None or absent: the default):", ""]
    for attr, option in _keyword_options(command).items():
        if option.kwargs.get("hidden"):
            continue
        annotation = _annotation(option)
        shown = annotation.__name__ if isinstance(annotation, type) else annotation
        lines.append(f"- ``{attr}``: {shown} = {option.default()!r}. {_help_line(option)}".rstrip())
    return "\n".join(lines)


#: The API's command functions by name, for :func:`reference` (docs/api.md).
def functions() -> dict[str, Callable[..., Report]]:
    """Every command function of the API: those of its own and one per other
    command (``bvtest.NAME``), by the name users call."""
    from .commands import COMMANDS

    own = {"evaluate": evaluate, "analyse": analyse, "scores": scores,
           "instability": instability, "tradeoff": tradeoff, "pertopic": pertopic,
           "check": check, "design": design, "sensitivity": sensitivity, "plot": plot}  # fmt: skip
    covered = {"eval", *own}
    return own | {name: __getattr__(name) for name in sorted(COMMANDS) if name not in covered}


def reference() -> str:
    """docs/api.md's reference: every function's signature and keywords,
    made from the declarations (tools/gen_docs.py writes it; a test checks it)."""
    parts = []
    for name, function in functions().items():
        sig = inspect.signature(function)
        inputs = [str(p) for p in sig.parameters.values() if p.kind is not p.KEYWORD_ONLY]
        inputs = [i.replace(": 'Any'", "") for i in inputs]
        summary = inspect.cleandoc(function.__doc__ or "").split("\n\n")[0]
        title = f"### `bvtest.{name}({', '.join(inputs)}, **keywords)`"
        keywords = keyword_doc(_command_of(name))
        parts.append(f"{title}\n\n{' '.join(summary.split())}\n\n{keywords}\n")
    return "\n".join(parts)


def _command_of(function: str) -> str:
    return {"evaluate": "eval", "analyse": "eval"}.get(function, function)


def _signed(command: str) -> Callable[[Callable[..., Report]], Callable[..., Report]]:
    """``f`` with the signature of ``command`` (its own inputs, then the
    command's keywords); an unknown keyword is a TypeError naming the valid
    ones, raised before anything is read."""

    def sign(f: Callable[..., Report]) -> Callable[..., Report]:
        own = [
            p for p in inspect.signature(f).parameters.values()
            if p.kind is not inspect.Parameter.VAR_KEYWORD
        ]  # fmt: skip
        sig = signature_of(command, tuple(own))
        inputs = {p.name for p in own}

        @functools.wraps(f)
        def call(*args: Any, **kwargs: Any) -> Report:
            keywords = {k: v for k, v in kwargs.items() if k not in inputs}
            check_keywords(command, keywords, f.__name__)  # before anything is read
            return f(*args, **kwargs)

        call.__signature__ = sig  # type: ignore[attr-defined]
        call.__doc__ = f"{inspect.cleandoc(f.__doc__ or '')}\n\n{keyword_doc(command)}"
        return call

    return sign


# --------------------------------------------------------------------------- commands


@_signed("eval")
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
    >>> r.measures["AP"].systems["y"].mean
    0.25
    """
    return run("eval", qrels, runs, **options)


@_signed("eval")
def analyse(scores: Any, **options: Any) -> Report:
    """``bvtest eval --scores``: eval's analysis of a scores table (a path, a
    long DataFrame system/topic/measure/value, 4-tuples, :class:`Scores`,
    or the report of :func:`scores`).

    The virtual target is the best score per topic, (0.5, 1.0), so c = 0.75;
    run a's mean is 0.375 and its Bias² (0.375 − 0.75)² = 0.140625:

    >>> table = [("a", "1", "AP", 0.5), ("a", "2", "AP", 0.25),
    ...          ("b", "1", "AP", 0.0), ("b", "2", "AP", 1.0)]
    >>> report = analyse(table, alphas="0")
    >>> report.measures["AP"].systems["a"].bias2
    0.140625
    """
    return run("eval", scores=scores, **options)


@_signed("scores")
def scores(qrels: Any, runs: Any, **options: Any) -> Report:
    """``bvtest scores``: every per-topic score. Its ``to_frame()`` is a long
    scores DataFrame, and the report itself is a scores table.

    sys001 has 5 relevant documents in its top 10 for topic 401:

    >>> table = scores("qrels/qrels.txt", "sample_runs/", measures="P@10")
    >>> table.to_dict()["scores"][0]
    {'system': 'sys001', 'topic': '401', 'measure': 'P@10', 'value': 0.5}
    >>> analyse(table, alphas="1").measures["P@10"].n_topics
    29
    """
    return run("scores", qrels, runs, **options)


@_signed("instability")
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


@_signed("tradeoff")
def tradeoff(qrels: Any = None, runs: Any = None, *, scores: Any = None, **options: Any):
    """``bvtest tradeoff``: Pearson and Spearman of Bias² and Var across runs
    for all topics, random:K1 and difficulty:K2 groupings (Zhang22 Table 9).

    >>> report = tradeoff("qrels/qrels.txt", "sample_runs/", measures="AP", repeats=5)
    >>> round(report.to_dict()["measures"]["AP"]["all"]["raw"]["pearson"], 4)
    -0.9068
    """
    return run("tradeoff", qrels, runs, scores=scores, **options)


@_signed("pertopic")
def pertopic(qrels: Any, runs: Any, **options: Any) -> Report:
    """``bvtest pertopic``: per-topic Bias² and Var of AP from simulated
    collections (Zhang22 §3.4). Options: samples, seed, rel_level, per_topic, jobs.

    >>> report = pertopic("qrels/qrels.txt", "sample_runs/", samples=4, seed=1)
    >>> report.to_dict()["measures"]["AP"]["k"]
    4
    """
    return run("pertopic", qrels, runs, **options)


@_signed("check")
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


@_signed("design")
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


@_signed("sensitivity")
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


@_signed("plot")
def plot(qrels: Any = None, runs: Any = None, *, scores: Any = None, **options: Any) -> Report:
    """``bvtest plot -o FILE``: draws the figures into ``output`` (needs
    matplotlib) and returns eval's report."""
    return run("plot", qrels, runs, scores=scores, **options)


def __getattr__(name: str) -> Callable[..., Report]:
    """A command without a function of its own (added after this module):
    ``bvtest.NAME(qrels, runs, ...)`` is ``run("NAME", qrels, runs, ...)``,
    with the command's signature."""
    from .commands import COMMANDS

    if name not in COMMANDS:
        raise AttributeError(name)
    options = COMMANDS[name].options

    def command(
        qrels: Any = None,
        runs: Any = None,
        *,
        scores: Any = None,
        pool: Any = None,
        new_runs: Any = None,
        **keywords: Any,
    ) -> Report:
        return run(name, qrels, runs, scores=scores, pool=pool, new_runs=new_runs, **keywords)

    command.__name__ = name
    command.__doc__ = f"``bvtest {name}`` (see ``bvtest {name} --help``)."
    signed = _signed(name)(command)
    inputs = {"qrels": "inputs" in options or "qrels" in options,
              "runs": "inputs" in options or "runs" in options,
              "scores": "scores" in options, "pool": "pool" in options,
              "new_runs": "new_runs" in options}  # fmt: skip
    sig = inspect.signature(signed)
    signed.__signature__ = sig.replace(  # type: ignore[attr-defined]
        parameters=[p for n, p in sig.parameters.items() if inputs.get(n, True)]
    )
    return signed
