"""Sources of runs and qrels, their names, and the line-by-line field rules (docs/inputs.md).

What a path means (a file, a directory of runs, ``-`` for standard input,
gzip by name or content), how a run is named, and how one field of a line is
read and checked when the vectorised reader hands a line over.
"""

from __future__ import annotations

import errno
import gzip
import math
import os
import re
import sys
import unicodedata
import zlib
from collections.abc import Callable, Iterable, Iterator, Mapping
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from ..errors import InputError, printable

Run = dict[str, dict[str, float]]  # topic → docno → score (ir_measures' dict format)
Qrels = dict[str, dict[str, int]]  # topic → docno → grade
Note = Callable[[str], None]

STDIN = "-"
SCORES_HEADER = ("system", "topic", "measure", "value")

# What C's atof reads as a decimal number (no hex, no inf/nan), ASCII only.
_DECIMAL = re.compile(rb"[+-]?(?:[0-9]+\.?[0-9]*|\.[0-9]+)(?:[eE][+-]?[0-9]+)?")
# The same as text, for the vectorised reader's tokens (bvtest_cli.io.fields).
DECIMAL_TEXT = re.compile(_DECIMAL.pattern.decode(), re.ASCII)
_NON_FINITE = re.compile(rb"[+-]?(?:inf|infinity|nan)", re.IGNORECASE)
INT64_MIN, INT64_MAX = -(2**63), 2**63 - 1
UTF8_BOM = b"\xef\xbb\xbf"


def ignore_note(_: str) -> None:
    """A Note that discards its message: the default where nobody listens."""


def docno_bytes(docno: str) -> bytes:
    """The bytes a docno had in its file (docnos are decoded as Latin-1); any
    output that writes docnos writes these bytes."""
    return docno.encode("latin-1")


def docno_text(docno: str) -> str:
    """A docno as output text: its file's bytes read as UTF-8 with undecodable
    bytes kept as surrogates, so that writing the text as UTF-8 with
    ``surrogateescape`` (:func:`output_bytes`) gives exactly those bytes."""
    return docno_bytes(docno).decode("utf-8", "surrogateescape")


def output_bytes(text: str) -> bytes:
    """The bytes of output text: UTF-8, docnos as their file's bytes."""
    return text.encode("utf-8", "surrogateescape")


def shown_docno(docno: str) -> str:
    """A docno for a message, quoted: its bytes as UTF-8 where they are UTF-8,
    other bytes and control characters escaped (``'\\xe9t\\xe9'``)."""
    return shown_field(docno_bytes(docno))


def shown_field(field: bytes) -> str:
    """A raw field quoted for a message (one line, any bytes)."""
    return "'" + printable(field.decode("utf-8", "backslashreplace")) + "'"


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


class InMemory(str):
    """An input in memory, standing where a path would: the string is its
    label; :meth:`bytes` its content as the file's text (made when first
    read, in the process that reads it); ``members`` the runs of a directory
    (check's POOL); ``name`` the run's name; ``columns`` a direct maker of
    the run's columns (None where the text must decide)."""

    name: str
    members: tuple[InMemory, ...]
    notes: tuple[str, ...]
    columns: Callable[[], object] | None
    _make: Callable[[], bytes] | None

    def __new__(
        cls,
        label: str,
        make: Callable[[], bytes] | None = None,
        *,
        name: str = "",
        members: tuple[InMemory, ...] = (),
        columns: Callable[[], object] | None = None,
        notes: tuple[str, ...] = (),
    ) -> InMemory:
        self = super().__new__(cls, label)
        self._make = make
        self.name = name
        self.members = members
        self.columns = columns
        self.notes = notes
        return self

    def bytes(self) -> bytes:
        if self._make is None:
            raise InputError("holds runs, not one file", str(self))
        return self._make()


def system_name(path: str) -> str:
    """docs/inputs.md: the file name without directory and without a trailing ``.gz``."""
    if path == STDIN:
        return "stdin"
    descriptor = re.fullmatch(r"/(?:dev|proc/(?:self|\d+))/fd/(\d+)", os.path.normpath(path))
    if descriptor:  # a pipe, e.g. bash's <(zcat run.gz): its file name is a number
        return f"fd{descriptor[1]}"
    name = os.path.basename(os.path.normpath(path))
    return name[:-3] if name.endswith(".gz") else name


def expand_sources(
    paths: Iterable[str], note: Note = ignore_note, kind: str = "run"
) -> list[Source]:
    """Run arguments → sources: a directory means its regular, non-hidden files
    sorted by name (anything else in it is skipped with a note); ``-`` means
    standard input. Names must be unique and usable in every output. ``kind``
    names the files in messages ("qrels" for a directory of samples)."""
    sources: list[Source] = []
    for path in paths:
        if isinstance(path, InMemory):  # runs given from Python
            sources += [Source(m, m.name) for m in path.members or (path,)]
            continue
        if path == STDIN:
            sources.append(Source(STDIN, system_name(STDIN)))
            continue
        p = Path(path)
        if p.is_dir():
            try:
                entries = sorted(e for e in os.listdir(p) if not e.startswith("."))
            except OSError as exc:
                raise InputError(f"cannot read directory: {exc.strerror}", path) from None
            files = [e for e in entries if (p / e).is_file()]
            skipped = [e for e in entries if not (p / e).is_file()]
            if skipped:
                note(f"{printable(path)}: skipped {_describe_skipped(p, skipped)}")
            if not files:
                raise InputError(f"directory holds no {kind} files", path)
            # named by the path, never by the bare entry: a file named "-" is not stdin
            sources.extend(Source(str(p / e), system_name(str(p / e))) for e in files)
        elif p.exists():
            sources.append(Source(path, system_name(path)))
        elif p.is_symlink():
            raise InputError(_broken_link(p), path)
        else:
            raise InputError("no such file or directory", path)
    return unique_names(sources, "system name")


def unique_names(sources: list[Source], what: str) -> list[Source]:
    """``sources`` after checking that every name is usable in every output and
    names one input only (``what`` says where the names come from)."""
    seen: dict[str, str] = {}
    for source in sources:
        _check_system_name(source)
        if source.name in seen:
            raise InputError(
                f"{what} {source.name!r} also comes from {seen[source.name]}; "
                "run names must be unique",
                source.label,
            )
        seen[source.name] = source.label
    return sources


def _broken_link(link: Path) -> str:
    """What is wrong with a symbolic link that leads to no file."""
    try:
        os.stat(link)
    except OSError as exc:
        if exc.errno == errno.ELOOP:
            return "symbolic link loop"
    return "dangling symbolic link"


def _describe_skipped(directory: Path, names: list[str], shown: int = 5) -> str:
    """``2 entries that are not regular files: sub (directory), x.run (dangling
    symbolic link)``; only the first few are named."""

    def kind(name: str) -> str:
        entry = directory / name
        if entry.is_dir():
            return "directory"
        if entry.is_symlink() and not entry.exists():
            return _broken_link(entry)
        return "not a regular file"

    listed = ", ".join(f"{printable(n)} ({kind(n)})" for n in names[:shown])
    more = f", and {len(names) - shown} more" if len(names) > shown else ""
    entries = "entry" if len(names) == 1 else "entries"
    return f"{len(names)} {entries} that are not regular files: {listed}{more}"


def has_control(text: str) -> bool:
    """Control characters (C0, DEL, C1) or Unicode line/paragraph separators:
    what would break a line of output or a message."""
    return not text.isprintable() and any(
        unicodedata.category(c) in ("Cc", "Zl", "Zp") for c in text
    )


def name_problem(name: str) -> str | None:
    """Why ``name`` cannot name a system (or a condition) in every output, or
    None: trec lines and the scores file are tab-separated, one record per
    line, ``#`` starts a comment line of a scores file, fields are stripped of
    white space, and output is UTF-8."""
    if not name.strip():
        return "is empty"
    if any("\udc80" <= c <= "\udcff" for c in name):
        return "is not valid UTF-8"
    if "\t" in name:
        return "contains a tab, the field separator of trec lines and scores files"
    if any(c in name for c in "\n\r\x0b\x0c\x85\u2028\u2029"):
        return "contains a line break"
    if has_control(name):
        return "contains a control character"
    if name != name.strip(" "):
        return "begins or ends with a space, which a scores file would strip"
    if name.startswith("#"):
        return "begins with '#', which a scores file reads as a comment"
    return None


def _check_system_name(source: Source) -> None:
    problem = name_problem(source.name)
    if problem is not None:
        raise InputError(f"file name {problem}; rename the file to use it as a run", source.label)


def read_bytes(path: str) -> bytes:
    """The file's bytes, gunzipped when the name ends in ``.gz``; ``-`` is stdin;
    an :class:`InMemory` input's own. A UTF-8 byte-order mark is dropped and
    CR-only line ends become LF, so every reader sees the file as its plain LF
    version."""
    if isinstance(path, InMemory):
        return _plain_text(path.bytes(), path)
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
    return _plain_text(data, label)


def _plain_text(data: bytes, label: str) -> bytes:
    if data[:2] in (b"\xff\xfe", b"\xfe\xff"):
        raise InputError("UTF-16 text (byte-order mark); save the file as UTF-8 or ASCII", label)
    if data.startswith(UTF8_BOM):
        data = data[len(UTF8_BOM) :]
    # CR-only (old Mac) line ends. A CR before LF is white space at the end of
    # a line and stays; the count avoids copying CRLF files.
    if b"\r" in data and data.count(b"\r") != data.count(b"\r\n"):
        data = data.replace(b"\r\n", b"\n").replace(b"\r", b"\n")
    return data


def split_lines(data: bytes, label: str) -> Iterator[tuple[int, list[bytes]]]:
    """(line number, fields) of every non-blank line, fields split on ASCII
    white space as trec_eval does; decoding is left to the field's reader."""
    for lineno, raw in enumerate(data.split(b"\n"), 1):
        if b"\x00" in raw:
            raise InputError("binary data (NUL byte); not a text file", label, lineno)
        fields = raw.split()
        if fields:
            yield lineno, fields


def topic_field(field: bytes, label: str, lineno: int) -> str:
    """A topic id: UTF-8 text, as it is printed."""
    try:
        return field.decode("utf-8")
    except UnicodeDecodeError:
        raise InputError(
            f"topic id {shown_field(field)} is not UTF-8 text", label, lineno
        ) from None


def docno_field(field: bytes) -> str:
    """A docno: its bytes as Latin-1, one code point per byte (any byte is data)."""
    return field.decode("latin-1")


def integer_field(field: bytes) -> int | None:
    """An ASCII ``[+-]?[0-9]+`` field as int, else None."""
    digits = field[1:] if field[:1] in (b"+", b"-") else field
    return int(field) if digits.isdigit() else None  # bytes.isdigit: ASCII digits only


def _parse_score(field: bytes) -> float | None:
    """An ASCII decimal or exponent number as float (None if it is not one);
    may be inf for a number beyond the double range."""
    digits = field[1:] if field[:1] in (b"+", b"-") else field
    if digits.replace(b".", b"", 1).isdigit() or _DECIMAL.fullmatch(field):  # plain decimals first
        return float(field)
    return None


def score_field(field: bytes, what: str, label: str, lineno: int) -> float:
    """A score (or any value) as a finite float; otherwise an error naming the
    field as ``what`` on line ``lineno`` of ``label``."""
    value = _parse_score(field)
    if value is None:
        if _NON_FINITE.fullmatch(field):
            raise InputError(f"{what} {shown_field(field)} is not a finite number", label, lineno)
        raise InputError(f"{what} {shown_field(field)} is not a number", label, lineno)
    if not math.isfinite(value):
        raise InputError(
            f"{what} {shown_field(field)} is not a finite number (beyond the double range)",
            label,
            lineno,
        )
    return value


@dataclass(frozen=True)
class Inputs:
    """What a command reads, each a path (``-``: standard input) or data in
    memory (:class:`InMemory`): the qrels and the runs (QRELS RUNS…, or
    check's QRELS POOL NEW_RUN…: the pool is ``pool``, the new runs
    ``new_runs``), or a scores file instead of both. The doors fill it; the
    readers of this package read it."""

    qrels: str | None = None
    runs: tuple[str, ...] = ()
    scores: str | None = None
    pool: str | None = None
    new_runs: tuple[str, ...] = ()

    @classmethod
    def of(cls, values: Mapping[str, Any], names: Iterable[str]) -> Inputs:
        """The inputs among a command's values by option name (``inputs``:
        QRELS then RUNS…; ``runs``: RUNS… alone), for a command taking ``names``."""
        taken = set(names)
        chosen: dict[str, Any] = {}
        together = values.get("inputs") if "inputs" in taken else None
        if together:
            assert isinstance(together, tuple)
            chosen["qrels"], chosen["runs"] = together[0], tuple(together[1:])
        for name in ("qrels", "runs", "scores", "pool", "new_runs"):
            if name in taken and values.get(name) not in (None, ()):
                chosen[name] = values[name]
        return cls(**chosen)

    def values(self, names: Iterable[str]) -> dict[str, Any]:
        """The inputs as a command's values by option name (:meth:`of`'s inverse)."""
        taken = set(names)
        out: dict[str, Any] = {}
        if "inputs" in taken and self.qrels is not None:
            out["inputs"] = (self.qrels, *self.runs)
        elif "inputs" in taken and self.runs:
            out["inputs"] = self.runs
        for name in ("qrels", "runs", "scores", "pool", "new_runs"):
            if name in taken and not (name in ("qrels", "runs") and "inputs" in taken):
                value = getattr(self, name)
                if value not in (None, ()):
                    out[name] = value
        return out
