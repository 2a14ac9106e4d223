"""Inputs held in memory (the Python API's): qrels, runs and scores tables
as Python users hold them, read by the very parsers that read files.

An :class:`InMemory` stands where a path would (it *is* the label that names
it in messages, ``<qrels>``, ``<run NAME>``, ``<scores>``): every reader of
:mod:`bvtest_cli.io` gets its bytes from :func:`~bvtest_cli.io.sources.read_bytes`,
which asks the InMemory instead of the disk, so every check of a file
applies, and an error names the record (its 1-based position) as the line.
Nothing is written anywhere. A run given as a DataFrame is turned into
columns directly (its numbers as they are, no text in between) when every
value is plainly valid; anything else goes through the text and its checks.

Accepted forms (docs/api.md): qrels as ``{qid: {docno: rel}}``, a DataFrame
(``query_id, doc_id, relevance`` or ``qid, docno, label``) or records with
those fields (ir_measures' ``Qrel``, ir_datasets' ``qrels_iter()``); runs as
``{name: run}`` (a run: a path, ``{qid: {docno: score}}``, records
``ScoredDoc(query_id, doc_id, score)`` or a DataFrame ``qid, docno, score``),
one DataFrame with a ``name`` or ``run`` column, or paths; scores as a long
DataFrame or (system, topic, measure, value) records.
"""

from __future__ import annotations

import numbers
import operator
import os
import re
from collections.abc import Callable, Iterable, Iterator, Mapping
from typing import Any

import numpy as np

from ..errors import InputError
from .sources import SCORES_HEADER, InMemory, read_bytes


def is_path(value: Any) -> bool:
    return isinstance(value, (str, os.PathLike))


def is_frame(value: Any) -> bool:
    return hasattr(value, "columns") and hasattr(value, "itertuples")


def _text_of(lines: Callable[[], Iterable[str]], label: str) -> Callable[[], bytes]:
    def make() -> bytes:
        try:
            return "".join(line + "\n" for line in lines()).encode("utf-8")
        except UnicodeEncodeError as exc:
            raise InputError(f"text that is not valid Unicode: {exc.reason}", label) from None

    return make


# --------------------------------------------------------------------------- qrels


def qrels_input(qrels: Any, label: str = "<qrels>") -> str:
    """A path as it is; qrels in memory as an :class:`InMemory` ``<qrels>``
    (or ``label``: a judge's, a collection's)."""
    if is_path(qrels):
        return os.fspath(qrels)
    rows = list(_checked_rows(qrels, "qrels", "relevance", label))  # errors now, not later
    return InMemory(label, _text_of(lambda: (f"{t} 0 {d} {g}" for _, t, d, g in rows), label))


def table_input(table: Any, label: str) -> str:
    """A path as it is; a table of white-space-separated fields in memory (a
    map file's lines, a weights file's: conditions' ``run system condition``,
    variations' ``variation_id topic_id [user]``, ``topic weight``) as an
    :class:`InMemory`, read by the file's own reader. The table is a
    DataFrame (its columns in order), a dict key → value or key → tuple of
    values (one line each), or a list of tuples."""
    if is_path(table):
        return os.fspath(table)
    if isinstance(table, Mapping):
        rows = [(k, *(v if isinstance(v, (tuple, list)) else (v,))) for k, v in table.items()]
    elif is_frame(table):
        rows = [tuple(r) for r in table.itertuples(index=False)]
    elif hasattr(table, "items") and hasattr(table, "index"):  # a pandas Series
        rows = [(k, v) for k, v in table.items()]
    else:
        try:
            rows = [tuple(r) for r in table]
        except TypeError:
            raise InputError(
                f"expected a path, a dict, a DataFrame or a list of tuples, got {_short(table)}",
                label,
            ) from None
    lines = [" ".join(_table_field(v, label, i) for v in row) for i, row in enumerate(rows, 1)]
    return InMemory(label, _text_of(lambda: lines, label))


def _table_field(value: Any, label: str, line: int) -> str:
    if isinstance(value, numbers.Real) and not isinstance(value, (bool, np.bool_)):
        return _number(value)
    if not isinstance(value, str):
        raise InputError(f"{_short(value)} is not a string or a number", label, line)
    if not value or _TREC_SPACE.search(value):
        raise InputError(f"{value!r} is empty or holds white space, which a line's field "
                         "cannot", label, line)  # fmt: skip
    return value


def document_input(document: Any, label: str) -> str:
    """A path as it is; a JSON document in memory (a report, whose JSON is
    what its command's ``-f json`` writes, or a dict) as an :class:`InMemory`."""
    import json

    if is_path(document):
        return os.fspath(document)
    render = getattr(document, "render", None)
    if callable(render):
        text = render("json")
    else:
        try:
            text = json.dumps(document)
        except (TypeError, ValueError) as exc:
            raise InputError(f"not a JSON document: {exc}", label) from None
    data = text.encode("utf-8")
    return InMemory(label, lambda: data)


# --------------------------------------------------------------------------- runs


#: PyTerrier's names of ir_measures' columns (its topics, results and qrels frames).
PYTERRIER_COLUMNS = {"query_id": "qid", "doc_id": "docno", "relevance": "label"}

#: The column that names a frame's runs when one DataFrame holds several.
RUN_COLUMNS = ("name", "run")


def runs_input(runs: Any, what: str = "runs") -> list[str]:
    """A path (file or directory), a list of paths, a dict name → run, or one
    DataFrame with a run-name column → paths and :class:`InMemory` runs."""
    if is_path(runs):
        return [os.fspath(runs)]
    if is_frame(runs):
        runs = _runs_of_frame(runs)
    if isinstance(runs, Mapping):
        return [_run(name, r) for name, r in runs.items()]
    if isinstance(runs, (list, tuple)) and runs and all(map(is_path, runs)):
        return [os.fspath(r) for r in runs]
    raise InputError(
        f"{what}: expected a path, a list of paths, a dict run name → run, or a DataFrame "
        f"with a name or run column (got {type(runs).__name__})"
    )


def pool_input(pool: Any) -> str:
    """check's POOL: a path, or a dict name → run (its runs as members)."""
    if is_path(pool):
        return os.fspath(pool)
    if is_frame(pool):
        pool = _runs_of_frame(pool)
    if not isinstance(pool, Mapping):
        raise InputError(f"pool: expected a path or a dict run name → run (got {_short(pool)})")
    for name in pool:
        if isinstance(name, str) and name.startswith("."):  # a directory hides these
            raise InputError(f"run name {name!r} begins with '.'")
    members = tuple(_run(name, r) for name, r in pool.items())
    return InMemory("<pool>", members=members)


def _run(name: Any, run: Any) -> InMemory:
    """One run under ``name``: a file's bytes, or records turned into a run's text."""
    if not isinstance(name, str) or not name:
        raise InputError(f"run name {name!r} is not a non-empty string")
    if "/" in name or "\0" in name or name in (".", "..") or name.endswith(".gz"):
        raise InputError(
            f"run name {name!r} cannot name a file (a '/', a NUL, '.', '..' or a .gz suffix)"
        )
    if is_path(run):  # the file under this name
        path = os.fspath(run)
        if os.path.isdir(path):
            raise InputError("is a directory, expected a run file", path)
        return InMemory(path, lambda: read_bytes(path), name=name)
    label = f"<run {name}>"
    if is_frame(run) or isinstance(run, Mapping):
        rows: Any = run
        if isinstance(run, Mapping):
            bad = next((t for t, docs in run.items() if not isinstance(docs, Mapping)), None)
            if bad is not None:  # the structure now, where the run is given
                next(iter(_nested({bad: run[bad]}, "run", label)))
    elif isinstance(run, (str, bytes)) or not isinstance(run, Iterable):
        raise InputError(
            f"expected records (query_id, doc_id, score), got {type(run).__name__}", label
        )
    else:
        rows = list(run)  # an iterator is read once; its records are read where evaluated

    # a frame's docnos joined here, before the workers fork: joined in a
    # worker, they would write the reference counts of the frame's strings
    # and copy those pages (five times the time of the join itself)
    blob = _docno_text(rows, label) if is_frame(rows) else None

    def columns() -> Any:
        if is_frame(rows):
            return frame_columns(rows, label, blob)
        if isinstance(rows, Mapping):
            return nested_columns(rows)
        return record_columns(rows, label)

    def lines() -> Iterator[str]:
        for i, t, d, score in _checked_rows(rows, "run", "score", label):
            yield f"{t} Q0 {d} {i} {score} api"

    return InMemory(label, _text_of(lines, label), name=name, columns=columns)


def _runs_of_frame(frame: Any) -> dict[Any, Any]:
    """One DataFrame of several runs, named by its ``name`` or ``run`` column,
    as a dict run name → that run's rows (in order of first appearance; a
    run's rows in one block are a slice, not a copy)."""
    import pandas as pd

    column = next((c for c in RUN_COLUMNS if c in frame.columns), None)
    if column is None:
        raise InputError(
            "runs: a DataFrame of runs needs a run-name column (name or run); one run's "
            "frame goes in a dict {name: frame}"
        )
    values = frame[column].to_numpy()
    blocks = _blocks(values)
    if blocks is not None:  # each run's rows together: slices, no copy
        names, edges = blocks
        bounds = zip(edges[:-1].tolist(), edges[1:].tolist(), strict=True)
        return {name: frame.iloc[lo:hi] for name, (lo, hi) in zip(names, bounds, strict=True)}
    codes, uniques = pd.factorize(values, use_na_sentinel=False)
    order = np.argsort(codes, kind="stable")
    cuts = np.searchsorted(codes[order], np.arange(len(uniques) + 1))
    return {name: frame.take(order[cuts[i] : cuts[i + 1]]) for i, name in enumerate(uniques)}


def _blocks(values: np.ndarray) -> tuple[list[Any], np.ndarray] | None:
    """The run names of a column whose runs each fill one block of rows, in
    order, and the blocks' edges; None when a run's rows are apart. Adjacent
    values compared (a tenth of the time of hashing every one)."""
    if values.size == 0:
        return None
    try:
        change = _changes(values)
    except (TypeError, ValueError):
        return None
    edges = np.r_[0, change, values.size]
    names = values[edges[:-1]].tolist()
    try:
        distinct = len(set(names)) == len(names)
    except TypeError:  # unhashable names: the name check refuses them
        return None
    return (names, edges) if distinct else None


def _changes(values: np.ndarray) -> np.ndarray:
    """The rows whose value differs from the row before. In an object column
    the same object twice is the same value: the objects' addresses are
    compared first (one machine word each, a tenth of the time of comparing
    the objects, none of which is touched), and only rows holding another
    object than the row before are compared by value. A frame's name and
    topic columns hold one object a block (one name per run; a parser's one
    string per topic)."""
    differ = None
    if values.dtype == object and values.ndim == 1 and values.flags.c_contiguous:
        address = np.frombuffer(values.data.cast("B"), dtype=np.uintp)
        differ = address[1:] != address[:-1]
    unequal = np.not_equal(values[1:], values[:-1], out=np.zeros(values.size - 1, dtype=bool),
                           where=True if differ is None else differ)  # fmt: skip
    return np.flatnonzero(unequal) + 1


def _frame_column_names(frame: Any, columns: tuple[str, ...], label: str) -> tuple[str, ...]:
    pyterrier = tuple(PYTERRIER_COLUMNS.get(c, c) for c in columns)
    for names in (columns, pyterrier):
        if all(c in frame.columns for c in names):
            return names
    missing = [c for c in columns if c not in frame.columns]
    raise InputError(
        f"a DataFrame here needs the columns {', '.join(columns)} (ir_measures) or "
        f"{', '.join(pyterrier)} (PyTerrier) (missing: {', '.join(missing)})",
        label,
    )


def _docno_text(frame: Any, label: str) -> str | None:
    """A run frame's docnos as :func:`joined_docnos`, or None where it lacks
    the columns (:func:`frame_columns` names them where the run is read)."""
    try:
        _, docno_name, _ = _frame_column_names(frame, ("query_id", "doc_id", "score"), label)
    except InputError:
        return None
    return joined_docnos(frame[docno_name].to_numpy().tolist())


def joined_docnos(docnos: list[Any]) -> str | None:
    """Docnos as the run parser's column text, one a line (encoded where it
    is read: one object, whose pages a forked worker only reads); None where
    they are not all strings (the run's text then decides)."""
    try:
        return "\n".join(docnos)
    except TypeError:
        return None


def frame_columns(frame: Any, label: str, docno_text: str | None) -> Any:
    """A run's DataFrame as :class:`~bvtest_cli.io.trec.RunColumns` without
    a line of text (:func:`columns_of`), or None. ``docno_text``: its docno
    column joined (:func:`_docno_text`)."""
    qid_name, _, score_name = _frame_column_names(frame, ("query_id", "doc_id", "score"), label)
    scores = frame[score_name]
    if scores.dtype.kind not in "fiu" or len(frame) == 0:
        return None
    return columns_of(frame[qid_name].to_numpy(), docno_text, scores.to_numpy(dtype=np.float64))


def nested_columns(run: Mapping[Any, Mapping[Any, Any]]) -> Any:
    """``{topic: {docno: score}}`` as columns without text, or None."""
    sizes = [len(docs) for docs in run.values()]
    if not sizes or not all(sizes):
        return None
    topics = np.repeat(np.array(list(run), dtype=object), sizes)
    docnos = [d for docs in run.values() for d in docs]
    values = [v for docs in run.values() for v in docs.values()]
    return _typed_columns(topics, docnos, values)


def record_columns(items: list[Any], label: str) -> Any:
    """Records (named tuples of one type, e.g. ``ScoredDoc``, or plain
    tuples) as columns without text, or None. A field at a time: one C loop
    each, no tuple per row."""
    fields = ("query_id", "doc_id", "score")
    first = type(items[0]) if items else tuple
    if items and all(hasattr(first, f) for f in fields) and set(map(type, items)) == {first}:
        topics, docnos, values = (list(map(operator.attrgetter(f), items)) for f in fields)
        return _typed_columns(np.array(topics, dtype=object), docnos, values)
    return rows_columns(list(_records(items, fields, label)))


def rows_columns(rows: list[tuple[Any, Any, Any]]) -> Any:
    """(topic, docno, score) records as columns without text, or None."""
    if not rows:
        return None
    topics, docnos, values = (list(c) for c in zip(*rows, strict=True))
    return _typed_columns(np.array(topics, dtype=object), docnos, values)


def _typed_columns(topics: np.ndarray, docnos: list[Any], values: list[Any]) -> Any:
    kinds = set(map(type, values))
    if not all(issubclass(k, (float, int, np.floating, np.integer)) for k in kinds) or any(
        issubclass(k, (bool, np.bool_)) for k in kinds
    ):
        return None  # a string, a bool, None: the text's rules decide
    return columns_of(topics, joined_docnos(docnos), np.array(values, dtype=np.float64))


def columns_of(topic_ids: np.ndarray, docno_text: str | None, score: np.ndarray) -> Any:
    """A run as :class:`~bvtest_cli.io.trec.RunColumns` straight from its
    three columns (the docnos as :func:`joined_docnos`): topic ids and
    docnos plain words (no white space, no NUL; docnos ASCII), scores finite
    numbers, no (topic, docno) twice — the columns the file parser makes of
    the same run. None when anything is not so (the run's text then decides,
    and names the row)."""
    import pandas as pd

    from .fields import find_lines
    from .hashing import docno_digest, has_duplicate_pairs
    from .trec import RunColumns

    if docno_text is None or not np.isfinite(score).all():
        return None
    blocks = _blocks(np.asarray(topic_ids, dtype=object))
    if blocks is not None:  # a ranking per topic, in one block each (a result frame)
        topics, edges = blocks
        codes = np.repeat(np.arange(len(topics)), np.diff(edges))
    else:
        codes, uniques = pd.factorize(topic_ids, use_na_sentinel=False)
        topics = uniques.tolist()
    plain = [_plain_topic(t) for t in topics]
    names = [t for t in plain if t is not None]
    if len(names) != len(plain):
        return None
    try:
        blob = docno_text.encode("ascii")
    except UnicodeEncodeError:  # not ASCII: the text decides
        return None
    fields = find_lines(blob)  # the run parser's own docno column
    if fields is None or fields.starts.shape[0] != score.size:
        return None  # white space in a docno, an empty one, a NUL
    words = fields.words(0)
    docno = np.array(fields.strings(0), dtype=bytes) if words is None else (
        words.view(f"S{8 * words.shape[1]}").ravel()
    )  # fmt: skip
    topic = codes.astype(np.int32)
    digest = docno_digest(docno)
    if has_duplicate_pairs(topic, docno, digest):
        return None
    return RunColumns(names, topic, docno, score, digest)


def _plain_topic(value: Any) -> str | None:
    """A topic id as a file would hold it, or None when only the text can say."""
    if isinstance(value, numbers.Integral) and not isinstance(value, (bool, np.bool_)):
        return str(int(value))
    if not isinstance(value, str) or not value or not value.isprintable():
        return None
    return None if _TREC_SPACE.search(value) or not value.isascii() else value


# --------------------------------------------------------------------------- scores tables


def scores_input(rows: Iterable[tuple], notes: tuple[str, ...] = ()) -> InMemory:
    """(system, topic, measure, value) records as a scores table ``<scores>``."""
    label = "<scores>"
    lines = list(_scores_lines(rows, label))  # errors now
    return InMemory(label, _text_of(lambda: lines, label), notes=notes)


def score_records(table: Any, label: str = "<scores>") -> Iterator[tuple]:
    return _records(table, SCORES_HEADER, label)


def _scores_lines(rows: Iterable[tuple], label: str) -> Iterator[str]:
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


# --------------------------------------------------------------------------- records


_TREC_SPACE = re.compile(r"[ \t\n\r\x0b\x0c]")  # what splits a field of a TREC line
_LINE_BREAK = re.compile(r"[\t\n\r\x0b\x0c\x85\u2028\u2029]")


def _frame_rows(frame: Any, columns: tuple[str, ...], label: str) -> Iterator[tuple]:
    """The columns of a DataFrame in ir_measures' names (query_id, doc_id,
    relevance / score) or PyTerrier's (qid, docno, label / score)."""
    names = _frame_column_names(frame, columns, label)
    return zip(*(frame[c].tolist() for c in names), strict=True)


def _records(items: Any, fields: tuple[str, ...], label: str) -> Iterator[tuple]:
    """Records with these named fields (namedtuples such as ir_measures'
    Qrel / ScoredDoc / Metric) or plain tuples of that length, in order."""
    if is_frame(items):
        yield from _frame_rows(items, fields, label)
        return
    if isinstance(items, (str, bytes)) or not isinstance(items, Iterable):
        raise InputError(
            f"expected records ({', '.join(fields)}), got {type(items).__name__}", label
        )
    items = list(items)
    first = type(items[0]) if items else tuple
    if all(hasattr(first, f) for f in fields) and set(map(type, items)) == {first}:
        yield from map(operator.attrgetter(*fields), items)  # named tuples of one type
        return
    for i, item in enumerate(items, 1):
        if all(hasattr(item, f) for f in fields):
            yield tuple(getattr(item, f) for f in fields)
        elif isinstance(item, (tuple, list)) and len(item) == len(fields):
            yield tuple(item)
        else:
            raise InputError(
                f"expected a record ({', '.join(fields)}), got {_short(item)}", label, i
            )


def records(items: Any, fields: tuple[str, ...], label: str) -> Iterator[tuple]:
    """Records of ``fields`` from named tuples, plain tuples or a DataFrame."""
    return _records(items, fields, label)


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
        if isinstance(number, (Mapping, list, tuple, set)):
            raise InputError(f"{value} {_short(number)} is not a number", label, i)
        yield i, t, d, _number(number)
