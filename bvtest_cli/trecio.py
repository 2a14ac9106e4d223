"""Readers and writers for TREC runs, qrels and long-format score files (SPEC §1).

Every reader raises :class:`~bvtest_cli.errors.InputError` carrying the file
and line of the first malformed line; the CLI turns it into one line on stderr
and exit status 2.

Runs are parsed with a vectorized fast path (the whole file is split at once
and every line is checked to have exactly six fields with numpy); anything the
fast path does not accept is re-read line by line, which either builds the
same result (e.g. extra columns, non-ASCII docnos) or names the bad line.
"""

from __future__ import annotations

import gzip
import itertools
import os
import sys
import zlib
from collections.abc import Callable, Iterable, Iterator
from dataclasses import dataclass
from pathlib import Path

import numpy as np

from .errors import InputError
from .matrix import ScoreMatrix

Run = dict[str, dict[str, float]]  # topic → docno → score (ir_measures' dict format)
Qrels = dict[str, dict[str, int]]  # topic → docno → grade
Note = Callable[[str], None]

STDIN = "-"
SCORES_HEADER = ("system", "topic", "measure", "value")

# str.split() splits on these ASCII code points; the fast tokenizer must agree.
_SPLIT_WS = np.zeros(256, dtype=bool)
_SPLIT_WS[[9, 10, 11, 12, 13, 28, 29, 30, 31, 32]] = True


def _ignore(_: str) -> None:
    pass


# ---------------------------------------------------------------------------
# Files and names


@dataclass(frozen=True)
class Source:
    """One input file: where to read it and the system name it stands for."""

    path: str  # a filesystem path, or "-" for standard input
    name: str  # system name: file name without directory and without ".gz"

    @property
    def label(self) -> str:
        """How the file is named in messages."""
        return "<stdin>" if self.path == STDIN else self.path


def system_name(path: str) -> str:
    """SPEC §1: the file name without directory and without a trailing ``.gz``."""
    if path == STDIN:
        return "stdin"
    name = os.path.basename(os.path.normpath(path))
    return name[:-3] if name.endswith(".gz") else name


def expand_sources(paths: Iterable[str]) -> list[Source]:
    """Run arguments → sources: a directory means its regular, non-hidden files
    sorted by name; ``-`` means standard input. Names must be unique."""
    sources: list[Source] = []
    for path in paths:
        if path == STDIN:
            sources.append(Source(STDIN, system_name(STDIN)))
            continue
        p = Path(path)
        if p.is_dir():
            try:
                entries = sorted(
                    e for e in os.listdir(p) if not e.startswith(".") and (p / e).is_file()
                )
            except OSError as exc:
                raise InputError(f"cannot read directory: {exc.strerror}", path) from None
            if not entries:
                raise InputError("directory holds no run files", path)
            sources.extend(Source(str(p / e), system_name(e)) for e in entries)
        elif p.exists():
            sources.append(Source(path, system_name(path)))
        else:
            raise InputError("no such file or directory", path)
    seen: dict[str, str] = {}
    for s in sources:
        if s.name in seen:
            raise InputError(
                f"system name {s.name!r} also comes from {seen[s.name]}; run names must be unique",
                s.label,
            )
        seen[s.name] = s.label
    return sources


def read_bytes(path: str) -> bytes:
    """The file's bytes, gunzipped when the name ends in ``.gz``; ``-`` is stdin."""
    label = "<stdin>" if path == STDIN else path
    try:
        if path == STDIN:
            data = sys.stdin.buffer.read()
        elif os.path.isdir(path):
            raise InputError("is a directory, expected a file", label)
        else:
            with open(path, "rb") as fh:
                data = fh.read()
        if path.endswith(".gz") or data[:2] == b"\x1f\x8b":
            data = gzip.decompress(data)
    except OSError as exc:  # includes gzip.BadGzipFile
        msg = exc.strerror or str(exc) or "cannot read file"
        raise InputError(f"cannot read: {msg}", label) from None
    except (EOFError, zlib.error):
        raise InputError("cannot read: truncated or corrupt gzip data", label) from None
    return data


def _lines(data: bytes, label: str) -> Iterator[tuple[int, list[str]]]:
    """(line number, fields) of every non-blank line, decoding line by line so
    that a bad byte is reported with its line."""
    for lineno, raw in enumerate(data.split(b"\n"), 1):
        if b"\x00" in raw:
            raise InputError("binary data (NUL byte); not a text file", label, lineno)
        try:
            fields = raw.decode("utf-8").split()
        except UnicodeDecodeError:
            raise InputError("not UTF-8 text", label, lineno) from None
        if fields:
            yield lineno, fields


def _fast_tokens(data: bytes, ncols: int) -> list[str] | None:
    """All fields of an ASCII file in which every non-blank line has exactly
    ``ncols`` fields, or None when that does not hold (the caller then reads
    line by line). Vectorized: one split and a few numpy passes over the bytes."""
    if not data.isascii() or b"\x00" in data:
        return None
    buf = np.frombuffer(data, dtype=np.uint8)
    ws = _SPLIT_WS[buf]
    starts = ~ws
    starts[1:] &= ws[:-1]  # a field starts where non-space follows space
    line_of_start = np.cumsum(buf == 10)[starts]
    per_line = np.bincount(line_of_start)
    if per_line.size and not np.all((per_line == 0) | (per_line == ncols)):
        return None
    return data.decode("ascii").split()


def _check_nonempty(data: bytes, label: str) -> None:
    if not data.strip():
        raise InputError("empty file", label)


# ---------------------------------------------------------------------------
# Runs


def read_run(source: Source) -> Run:
    """Parse a TREC run ``qid Q0 docno rank score tag`` (SPEC §1)."""
    data = read_bytes(source.path)
    _check_nonempty(data, source.label)
    run = _parse_run_fast(data)
    return run if run is not None else _parse_run_slow(data, source.label)


def _parse_run_fast(data: bytes) -> Run | None:
    tokens = _fast_tokens(data, 6)
    if tokens is None:
        return None
    try:
        scores = list(map(float, tokens[4::6]))
        for rank in tokens[3::6]:  # the value is ignored; a non-integer means a shifted line
            int(rank)
    except ValueError:
        return None
    if not np.all(np.isfinite(scores)):
        return None
    qids, docnos = tokens[0::6], tokens[2::6]
    run: Run = {}
    pos = 0
    for qid, group in itertools.groupby(qids):
        size = sum(1 for _ in group)
        ranking = run.setdefault(qid, {})
        before = len(ranking)
        ranking.update(zip(docnos[pos : pos + size], scores[pos : pos + size], strict=True))
        if len(ranking) - before != size:
            return None  # a duplicate docno: the slow path names its line
        pos += size
    return run


def _parse_run_slow(data: bytes, label: str) -> Run:
    run: Run = {}
    for lineno, fields in _lines(data, label):
        if len(fields) < 6:
            raise InputError(
                f"expected 6 fields 'qid Q0 docno rank score tag', found {len(fields)}",
                label,
                lineno,
            )
        qid, _, docno, rank, score = fields[:5]
        try:
            int(rank)
        except ValueError:
            raise InputError(
                f"rank {rank!r} is not an integer (shifted or broken line?)", label, lineno
            ) from None
        try:
            value = float(score)
        except ValueError:
            raise InputError(f"score {score!r} is not a number", label, lineno) from None
        if not np.isfinite(value):
            raise InputError(f"score {score!r} is not a finite number", label, lineno)
        ranking = run.setdefault(qid, {})
        if docno in ranking:
            raise InputError(f"duplicate docno {docno!r} for topic {qid!r}", label, lineno)
        ranking[docno] = value
    return run


# ---------------------------------------------------------------------------
# Qrels


@dataclass(frozen=True)
class QrelsFile:
    """Parsed qrels and the line of each grade's first use (for error messages)."""

    label: str
    qrels: Qrels
    first_line_of_grade: dict[int, int]

    def relevant_topics(self, rel_level: int) -> list[str]:
        """Topics with at least one document of grade >= rel_level (SPEC §3)."""
        return [t for t, docs in self.qrels.items() if any(g >= rel_level for g in docs.values())]


def read_qrels(path: str) -> QrelsFile:
    """Parse qrels ``qid iter docno rel`` with integer (graded) rel (SPEC §1)."""
    label = "<stdin>" if path == STDIN else path
    data = read_bytes(path)
    _check_nonempty(data, label)
    tokens = _fast_tokens(data, 4)
    n_lines = data.count(b"\n") + (0 if data.endswith(b"\n") else 1)
    if tokens is not None and len(tokens) == 4 * n_lines:
        # No blank lines, so the k-th group of four fields is line k.
        lines: Iterable[tuple[int, list[str]]] = enumerate(
            (tokens[i : i + 4] for i in range(0, len(tokens), 4)), 1
        )
    else:
        lines = _lines(data, label)
    qrels: Qrels = {}
    first_line: dict[int, int] = {}
    for lineno, fields in lines:
        _add_qrel(qrels, first_line, fields, label, lineno)
    return QrelsFile(label, qrels, first_line)


def _add_qrel(
    qrels: Qrels, first_line: dict[int, int], fields: list[str], label: str, lineno: int
) -> None:
    if len(fields) < 4:
        raise InputError(
            f"expected 4 fields 'qid iter docno rel', found {len(fields)}", label, lineno
        )
    qid, _, docno, rel = fields[:4]
    try:
        grade = int(rel)
    except ValueError:
        raise InputError(f"relevance {rel!r} is not an integer", label, lineno) from None
    docs = qrels.setdefault(qid, {})
    old = docs.get(docno)
    if old is not None and old != grade:
        raise InputError(
            f"topic {qid!r} docno {docno!r} judged twice with different grades ({old}, {grade})",
            label,
            lineno,
        )
    docs[docno] = grade
    first_line.setdefault(grade, lineno)


# ---------------------------------------------------------------------------
# Long-format score files


def read_scores(path: str, note: Note = _ignore) -> list[ScoreMatrix]:
    """Parse ``system topic measure value`` lines into one matrix per measure,
    measures in order of first appearance (SPEC §1). A missing cell scores 0
    (with a note), as a run missing a topic does."""
    label = "<stdin>" if path == STDIN else path
    data = read_bytes(path)
    _check_nonempty(data, label)
    cells: dict[str, dict[tuple[str, str], float]] = {}
    for lineno, raw in enumerate(data.split(b"\n"), 1):
        try:
            line = raw.decode("utf-8").rstrip("\r")
        except UnicodeDecodeError:
            raise InputError("not UTF-8 text", label, lineno) from None
        if not line.strip() or line.lstrip().startswith("#"):
            continue
        fields = line.split("\t") if "\t" in line else line.split()
        fields = [f.strip() for f in fields]
        if tuple(fields) == SCORES_HEADER:
            continue
        if len(fields) != 4 or not all(fields):
            raise InputError(
                f"expected 4 fields 'system topic measure value', found {len(fields)}",
                label,
                lineno,
            )
        system, topic, measure, value = fields
        try:
            score = float(value)
        except ValueError:
            raise InputError(f"value {value!r} is not a number", label, lineno) from None
        if not np.isfinite(score):
            raise InputError(f"value {value!r} is not a finite number", label, lineno)
        table = cells.setdefault(measure, {})
        if (system, topic) in table:
            raise InputError(
                f"duplicate score for system {system!r} topic {topic!r} measure {measure!r}",
                label,
                lineno,
            )
        table[(system, topic)] = score
    if not cells:
        raise InputError("no scores found", label)
    return [_matrix_from_cells(measure, table, note) for measure, table in cells.items()]


def _matrix_from_cells(
    measure: str, table: dict[tuple[str, str], float], note: Note
) -> ScoreMatrix:
    systems = list(dict.fromkeys(s for s, _ in table))
    topics = sort_topics({t for _, t in table})
    s_index = {s: i for i, s in enumerate(systems)}
    t_index = {t: j for j, t in enumerate(topics)}
    values = np.zeros((len(systems), len(topics)))
    missing = np.ones_like(values, dtype=bool)
    for (s, t), v in table.items():
        values[s_index[s], t_index[t]] = v
        missing[s_index[s], t_index[t]] = False
    for s, count in zip(systems, missing.sum(axis=1), strict=True):
        if count:
            note(f"{measure}: {s} has no score for {count} topic(s); they score 0")
    return ScoreMatrix(measure, tuple(systems), tuple(topics), values)


def write_scores(matrices: Iterable[ScoreMatrix]) -> str:
    """The long-format scores file for these matrices, header first; values are
    written with repr so that reading them back gives the same floats."""
    out = ["\t".join(SCORES_HEADER)]
    for m in matrices:
        for i, system in enumerate(m.systems):
            row = m.values[i].tolist()
            out.extend(
                f"{system}\t{topic}\t{m.measure}\t{value!r}"
                for topic, value in zip(m.topics, row, strict=True)
            )
    return "\n".join(out) + "\n"


def sort_topics(topics: Iterable[str]) -> list[str]:
    """Topics in the order a TREC user expects: numeric ids numerically, and
    ids such as ``106_1`` by their numeric parts, others as strings."""

    def key(topic: str) -> tuple:
        parts = topic.replace("-", "_").split("_")
        if all(p.isdigit() for p in parts):
            return (0, tuple(int(p) for p in parts), topic)
        return (1, (), topic)

    return sorted(topics, key=key)
