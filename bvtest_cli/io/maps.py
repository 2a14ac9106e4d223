"""Map files: small white-space separated text files that name things.

``bvtest conditions --map`` (``run system condition``), ``bvtest variations
--map`` (``variation topic [user]``) and ``--weights`` (``topic weight``)
are read by one set of rules (:func:`records`): UTF-8 text (a byte order
mark and CRLF line ends are accepted; any other byte sequence that is not
UTF-8, or a NUL byte, is an error naming the line); blank lines and lines
whose first field starts with ``#`` are skipped. A ``#`` later in a line is
part of a field, as in trec_eval's ids (TREC RAG docnos contain ``#``), so a
trailing comment is an error (a wrong number of fields), never silently
dropped.
"""

from __future__ import annotations

from collections.abc import Callable, Iterator, Sequence
from dataclasses import dataclass, field

import numpy as np

from ..errors import InputError, printable
from .sources import STDIN, Source, name_problem, read_bytes

_BOM = b"\xef\xbb\xbf"

Note = Callable[[str], None]


def _ignore(_: str) -> None:
    pass


#: run → (system, condition)
Assignment = dict[str, tuple[str, str]]


def label(path: str) -> str:
    """How a map file is named in messages."""
    return "<stdin>" if path == STDIN else path


def records(path: str) -> Iterator[tuple[int, list[str]]]:
    """(line number, fields) of every line of a map file that is not blank or a comment."""
    where = label(path)
    data = read_bytes(path)
    if data.startswith(_BOM):
        data = data[len(_BOM) :]
    for lineno, raw in enumerate(data.split(b"\n"), 1):
        if b"\x00" in raw:
            raise InputError("binary data (NUL byte); not a text file", where, lineno)
        try:
            fields = raw.decode("utf-8").split()  # also drops the \r of CRLF
        except UnicodeDecodeError:
            raise InputError("not UTF-8 text", where, lineno) from None
        if fields and not fields[0].startswith("#"):
            yield lineno, fields


def check_names(system: str, condition: str, where: str, lineno: int | None = None) -> None:
    """A system or condition name must name it in every output (as a run's)."""
    for kind, name in (("system", system), ("condition", condition)):
        problem = name_problem(name)
        if problem is not None:
            raise InputError(f"{kind} name {printable(name)!r} {problem}", where, lineno)


def read_conditions(path: str) -> Assignment:
    """``run system condition`` lines: each run's system and experimental condition."""
    where = label(path)
    out: Assignment = {}
    seen: dict[tuple[str, str], str] = {}
    for lineno, fields in records(path):
        if len(fields) != 3:
            raise InputError(
                f"expected 3 fields 'run system condition', found {len(fields)}", where, lineno
            )
        run, system, condition = fields
        check_names(system, condition, where, lineno)
        if run in out:
            raise InputError(f"run {printable(run)!r} is mapped twice", where, lineno)
        if (system, condition) in seen:
            raise InputError(
                f"system {printable(system)!r} under condition {printable(condition)!r} is "
                f"already run {printable(seen[system, condition])!r}",
                where,
                lineno,
            )
        out[run] = (system, condition)
        seen[system, condition] = run
    if not out:
        raise InputError("the map holds no 'run system condition' line", where)
    return out


# ---------------------------------------------------------------------------
# Query variations


@dataclass(frozen=True)
class VariationMap:
    """variation id → topic id (and user slot), in file order."""

    label: str
    topic: dict[str, str]
    user: dict[str, str] | None = None  # None: the map has no user column
    line: dict[str, int] = field(default_factory=dict)  # where each variation is defined

    def where(self, variation: str) -> tuple[str, int | None]:
        """(file, line) for messages about a variation."""
        return self.label, self.line.get(variation)


def read_variations(path: str) -> VariationMap:
    """Parse ``variation_id topic_id [user]`` lines (docs/variations.md).

    The first line fixes whether there is a user column. A variation listed
    twice with the same topic and user is accepted; with different ones it
    is an error.
    """
    where = label(path)
    topic: dict[str, str] = {}
    user: dict[str, str] = {}
    line: dict[str, int] = {}
    width = first_line = None
    for lineno, fields in records(path):
        if len(fields) not in (2, 3):
            raise InputError(
                f"expected 'variation topic [user]', found {len(fields)} fields", where, lineno
            )
        if width is None:
            width, first_line = len(fields), lineno
        elif len(fields) != width:
            raise InputError(
                f"{len(fields)} fields, but line {first_line} has {width}; "
                "give a user on every line or on none",
                where,
                lineno,
            )
        variation, top = fields[0], fields[1]
        if variation in topic:
            same = topic[variation] == top and (width == 2 or user[variation] == fields[2])
            if not same:
                raise InputError(
                    f"variation {variation!r} is mapped differently on line {line[variation]}",
                    where,
                    lineno,
                )
            continue
        topic[variation] = top
        if width == 3:
            user[variation] = fields[2]
        line[variation] = lineno
    if width is None:
        raise InputError("empty map file", where)
    return VariationMap(where, topic, user if width == 3 else None, line)


def query_ids(sources: Sequence[Source]) -> list[str]:
    """The distinct query ids (first column) of the runs, in first-seen order;
    what ``--split`` needs before the qrels can be expanded."""
    seen: dict[str, None] = {}
    for source in sources:
        data = read_bytes(source.path)
        for lineno, raw in enumerate(data.split(b"\n"), 1):
            first = raw.split(None, 1)[:1]
            if first:
                try:
                    seen.setdefault(first[0].decode("utf-8").removeprefix("\ufeff"))
                except UnicodeDecodeError:
                    raise InputError("not UTF-8 text", source.label, lineno) from None
    return list(seen)


# ---------------------------------------------------------------------------
# Topic weights


@dataclass(frozen=True)
class Weights:
    """Raw topic weights as read (docs/variations.md ``--weights``)."""

    label: str
    weight: dict[str, float]

    def vector(self, topics: Sequence[str], note: Note = _ignore) -> np.ndarray:
        """The weights of ``topics``, normalised to sum 1 over them (N,).
        A topic without a weight is an error; weights of other topics are
        ignored (one note)."""
        lacking = [t for t in topics if t not in self.weight]
        if lacking:
            raise InputError(f"topic {lacking[0]!r} has no weight", self.label)
        unused = len(self.weight.keys() - set(topics))
        if unused:
            note(f"{unused} weighted topic(s) are not analysed; their weights ignored")
        w = np.array([self.weight[t] for t in topics], dtype=float)
        total = w.sum()
        if total > 0 and not np.finfo(float).tiny <= total < np.inf:
            # The sum overflows (weights near 1e308) or the weights are
            # subnormal: relative to the largest, they sum to a usable number.
            w = w / w.max()
            total = w.sum()
        if not total > 0:
            raise InputError("the weights of the analysed topics sum to 0", self.label)
        return w / total


def read_weights(path: str) -> Weights:
    """Parse ``topic weight`` lines: a finite number >= 0, one per topic."""
    where = label(path)
    weight: dict[str, float] = {}
    line: dict[str, int] = {}
    for lineno, fields in records(path):
        if len(fields) != 2:
            raise InputError(
                f"expected 2 fields 'topic weight', found {len(fields)}", where, lineno
            )
        topic, text = fields
        try:
            value = float(text)
        except ValueError:
            raise InputError(f"weight {text!r} is not a number", where, lineno) from None
        if not np.isfinite(value) or value < 0:
            raise InputError(f"weight {text!r} must be a finite number >= 0", where, lineno)
        if topic in weight:
            raise InputError(
                f"topic {topic!r} already has a weight on line {line[topic]}", where, lineno
            )
        weight[topic] = value
        line[topic] = lineno
    if not weight:
        raise InputError("empty weights file", where)
    return Weights(where, weight)
