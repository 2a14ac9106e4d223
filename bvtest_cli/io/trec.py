"""Readers and writers for TREC runs, qrels and long-format score files (docs/inputs.md).

Every reader raises :class:`~bvtest_cli.errors.InputError` carrying the file
and line of the first malformed line; the CLI turns it into one line on stderr
and exit status 2.

Runs and qrels are parsed with a vectorized fast path: numpy finds the field
boundaries of the whole file at once, checks that every non-blank line has
exactly the expected number of fields, validates the rank / grade column and
converts plain decimal scores without per-token Python work; Python strings
are made only for the docnos (one ``str.split`` of the gathered docno bytes)
and for one qid per block of consecutive lines. Anything the fast path does
not accept is re-read line by line, which either builds the same result (e.g.
extra columns, non-ASCII docnos, ``1e-3`` scores) or names the bad line.

Text rules (trec_eval's, where it has one):

* Fields are separated by ASCII white space only (space, tab, CR, VT, FF):
  C's ``isspace``, not Python's ``str.split``, which also splits on
  U+00A0, U+2028, ``\x1c``... A UTF-8 byte-order mark is dropped, and CR-only
  (old Mac) line ends are read as line ends, so such files read exactly as
  the plain file does.
* Numbers are ASCII: ``[+-]?[0-9]+`` for ranks and grades, decimal or
  exponent notation for scores. Python's ``int()``/``float()`` also accept
  ``1_0``, full-width digits, ``inf``, surrounding Unicode spaces; a TREC
  file does not.
* Docnos are opaque bytes (trec_eval compares them with ``strcmp``): they are
  decoded as Latin-1, a bijection between bytes and code points 0-255, so any
  byte is data, equality and order are byte equality and byte order, and
  :func:`docno_bytes` gives the original bytes back for output. Topic ids
  are UTF-8 text (they are printed), numbers ASCII.
"""

from __future__ import annotations

import mmap
import os
from collections.abc import Callable, Iterable
from dataclasses import dataclass

import numpy as np

from ..errors import InputError, printable
from .fields import (
    Fields,
    check_nonempty,
    find_fields,
    matrix_integer_values,
    matrix_integers_ok,
    nested_by_name,
)
from .hashing import (
    HASH_BLOCK,
    any_same_pair,
    docno_digest,
    docno_hash,
    has_duplicate_pairs,
    joined_column,
    pair_key,
    same_bytes,
    sort_keys,
)
from .sources import (
    INT64_MAX,
    INT64_MIN,
    STDIN,
    UTF8_BOM,
    InMemory,
    Qrels,
    Run,
    Source,
    docno_bytes,
    docno_field,
    docno_text,
    integer_field,
    read_bytes,
    score_field,
    shown_docno,
    shown_field,
    split_lines,
    topic_field,
    unique_names,
)

# ---------------------------------------------------------------------------
# Runs


def read_run(source: Source) -> Run:
    """Parse a TREC run ``qid Q0 docno rank score tag`` (docs/inputs.md)."""
    columns = _direct_columns(source)
    if columns is not None:
        return columns.as_dict()
    data = read_bytes(source.path)
    check_nonempty(data, source.label)
    run = _parse_run_fast(data)
    return run if run is not None else _parse_run_slow(data, source.label)


def _direct_columns(source: Source) -> RunColumns | None:
    """A run given from Python as a DataFrame, as columns without text (None:
    read its text)."""
    path = source.path
    if isinstance(path, InMemory) and path.columns is not None:
        columns = path.columns()
        assert columns is None or isinstance(columns, RunColumns)
        return columns
    return None


def _parse_run_fast(data: bytes) -> Run | None:
    """The run of a well-formed file by the columnar parser, or None when
    anything needs a closer look (the slow path then decides)."""
    columns = _parse_run_columns(data)
    return None if columns is None else columns.as_dict()


def _parse_run_slow(data: bytes, label: str) -> Run:
    run: Run = {}
    for lineno, fields in split_lines(data, label):
        if len(fields) < 6:
            raise InputError(
                f"expected 6 fields 'qid Q0 docno rank score tag', found {len(fields)}",
                label,
                lineno,
            )
        # the value is ignored; a non-integer means a shifted line
        if integer_field(fields[3]) is None:
            raise InputError(
                f"rank {shown_field(fields[3])} is not an integer (shifted or broken line?)",
                label,
                lineno,
            )
        value = score_field(fields[4], "score", label, lineno)
        qid, docno = topic_field(fields[0], label, lineno), docno_field(fields[2])
        ranking = run.setdefault(qid, {})
        if docno in ranking:
            raise InputError(
                f"duplicate docno {shown_docno(docno)} for topic {qid!r}", label, lineno
            )
        ranking[docno] = value
    return run


def run_tag(source: Source) -> str:
    """The run tag (column 6) shared by every line of a run file (``--name tag``).

    A run whose lines carry more than one tag is an error at the first line
    whose tag differs from the first line's; so is a line without a tag.
    Reads the file once more, apart from the scores: the fast path compares
    the tag column as one byte matrix, so it costs little next to evaluation.
    """
    if source.path == STDIN:
        raise InputError("--name tag needs run files; standard input cannot be read twice")
    if isinstance(source.path, InMemory) and source.path.name:
        return source.path.name  # a run given from Python: its name is its tag
    data = read_bytes(source.path)
    check_nonempty(data, source.label)
    fields = find_fields(data, 6)
    segments = fields.segments(5) if fields is not None else None
    if fields is not None and segments is not None:
        if len(segments) > 1:
            first, (other, lo, _) = segments[0][0], segments[1]
            raise InputError(
                f"a second run tag {other!r} (the first line has {first!r}); "
                "--name tag needs one tag per run",
                source.label,
                int(fields.lines[lo]) + 1,
            )
        return segments[0][0]
    tag = None
    for lineno, row in split_lines(data, source.label):
        if len(row) < 6:
            raise InputError(
                f"expected 6 fields 'qid Q0 docno rank score tag', found {len(row)}",
                source.label,
                lineno,
            )
        this = row[5].decode("utf-8", "replace")
        if tag is None:
            tag = this
        elif this != tag:
            raise InputError(
                f"a second run tag {printable(this)!r} (the first line has {printable(tag)!r}); "
                "--name tag needs one tag per run",
                source.label,
                lineno,
            )
    assert tag is not None  # the file is not empty
    return tag


def tagged_sources(sources: Iterable[Source]) -> list[Source]:
    """The sources named by their run tags (``--name tag``), names unique."""
    return unique_names([Source(source.path, run_tag(source)) for source in sources], "run tag")


def named_sources(sources: list[Source], how: str, note: Callable[[str], None]) -> list[Source]:
    """The sources under ``--name``: ``file`` as they are, ``tag`` by their run
    tags, ``auto`` by their tags when every file is named TREC's way,
    ``input.TAG`` (the tag is the run's name there), else by their files."""
    if how == "tag" or (
        how == "auto" and sources and all(src.name.startswith("input.") for src in sources)
    ):
        named = tagged_sources(sources)
        if how == "auto":
            note(f"--name auto: every run file is named input.*; the runs take their tags "
                 f"({named[0].name}, ...)")  # fmt: skip
        return named
    return sources


# ---------------------------------------------------------------------------
# Qrels


class QrelsFile:
    """Parsed qrels and the line of each grade's first use (for error messages).

    Held as a :class:`QrelsTable` (arrays) or as a dict, whichever it was
    built from; the other view is made on first use, so evaluating large
    qrels never builds the dict of dicts."""

    def __init__(
        self,
        label: str,
        qrels: Qrels | None = None,
        first_line_of_grade: dict[int, int] | None = None,
        *,
        table: QrelsTable | None = None,
        strata: dict[str, dict[str, str]] | None = None,
    ) -> None:
        if qrels is None and table is None:
            raise ValueError("QrelsFile needs qrels or a table")
        self.label = label
        self._qrels = qrels
        self._table = table
        self._strata = strata  # topic → docno → stratum of a sampled (5-column) file
        self.first_line_of_grade = first_line_of_grade or {}

    @property
    def qrels(self) -> Qrels:
        """topic → docno → grade, in file order."""
        if self._qrels is None:
            assert self._table is not None
            self._qrels = self._table.as_dict()
        return self._qrels

    @property
    def table(self) -> QrelsTable:
        if self._table is None:
            assert self._qrels is not None
            self._table = QrelsTable.from_dict(self._qrels, self._strata)
        return self._table

    @property
    def stratified(self) -> bool:
        """Read from sample_eval.pl's layout ``qid iter docno stratum rel``."""
        return self.table.stratum is not None

    def topics(self) -> list[str]:
        """Every qrels topic, in file order."""
        return list(self._qrels) if self._qrels is not None else list(self.table.topics)

    def relevant_topics(self, rel_level: int) -> list[str]:
        """Topics with at least one document of grade >= rel_level (docs/inputs.md)."""
        if self._qrels is not None:
            return [
                t for t, docs in self._qrels.items() if any(g >= rel_level for g in docs.values())
            ]
        table = self.table
        has = table.num_rel(rel_level) > 0
        return [t for t, keep in zip(table.topics, has.tolist(), strict=True) if keep]


def read_qrels(path: str) -> QrelsFile:
    """Parse qrels ``qid iter docno rel`` with integer (graded) rel (docs/inputs.md),
    or a sampled collection in NIST sample_eval.pl's layout ``qid iter docno
    stratum rel`` (rel −1: pooled, not judged). The first line decides the
    layout; every line must then have its number of fields."""
    label = "<stdin>" if path == STDIN else path
    mapped = _mapped(path)
    if path == STDIN:
        data = read_bytes(path)
        ncols = _layout(data)
        fast = _parse_qrels_table(data, ncols)
    else:
        # The parser drops the file's bytes (or mapping) once it has split them,
        # before it builds the table (the peak memory of a large qrels file);
        # the line-by-line path then reads the file again.
        box: list = [read_bytes(path) if mapped is None else mapped]
        del mapped
        ncols = _layout(box[0])
        fast = _parse_qrels_table(box, ncols)
        data = b"" if fast is not None else read_bytes(path)
    if fast is not None:
        table, first_line = fast
        if len(table) > _TRIM_ROWS:
            _release_freed_memory()
        return QrelsFile(label, None, first_line, table=table)
    check_nonempty(data, label)
    qrels: Qrels = {}
    first_line = {}
    strata: dict[str, dict[str, str]] | None = {} if ncols == SAMPLED_FIELDS else None
    for lineno, fields in split_lines(data, label):
        _add_qrel(qrels, first_line, fields, label, lineno, strata)
    return QrelsFile(label, qrels, first_line, strata=strata)


SAMPLED_FIELDS = 5  # qid iter docno stratum rel (sample_eval.pl)


def _layout(data: bytes | mmap.mmap) -> int:
    """The number of fields of the first non-blank line when it is 5 (a
    sampled collection), else 4 (anything else is named by the line reader)."""
    start = 0
    while start < len(data):
        end = data.find(b"\n", start)
        end = len(data) if end < 0 else end
        fields = bytes(data[start:end]).split()
        if fields:
            return SAMPLED_FIELDS if len(fields) == SAMPLED_FIELDS else 4
        start = end + 1
    return 4


_TRIM_ROWS = 1 << 20  # qrels lines from which the parse's freed memory is handed back
_MAP_BYTES = 1 << 26  # files from this size (64 MiB) are mapped rather than read


def _mapped(path: str) -> mmap.mmap | None:
    """A large plain file mapped read-only, its pages taken from the page cache
    at once (MAP_POPULATE): no copy of hundreds of MB into fresh memory, which
    the kernel would first have to zero. None for standard input, a small or
    gzipped file, a file that read_bytes would change (byte-order mark, CR
    line ends), or where mapping is not available."""
    if path == STDIN or isinstance(path, InMemory) or path.endswith(".gz"):
        return None
    if not os.path.isfile(path):
        return None
    try:
        with open(path, "rb") as fh:
            if os.fstat(fh.fileno()).st_size < _MAP_BYTES:
                return None
            flags = mmap.MAP_SHARED | getattr(mmap, "MAP_POPULATE", 0)
            mapped = mmap.mmap(fh.fileno(), 0, flags=flags, prot=mmap.PROT_READ)
    except (OSError, ValueError, AttributeError):
        return None  # read_bytes meets the error again and reports it
    head = mapped[:3]
    changed = head == UTF8_BOM or mapped.find(b"\r") >= 0  # as read_bytes would
    if head[:2] in (b"\x1f\x8b", b"\xff\xfe", b"\xfe\xff") or changed:
        mapped.close()
        return None
    return mapped


def _release_freed_memory() -> None:
    """Give the heap pages freed by a large parse back to the OS (glibc's
    malloc_trim; nothing elsewhere). The parse allocates and frees hundreds of
    MB in pieces below glibc's mmap threshold; kept, they would stay resident
    in this process and in every worker forked after it."""
    try:
        import ctypes

        ctypes.CDLL("libc.so.6").malloc_trim(0)
    except (OSError, AttributeError):
        pass


def _add_qrel(
    qrels: Qrels,
    first_line: dict[int, int],
    fields: list[bytes],
    label: str,
    lineno: int,
    strata: dict[str, dict[str, str]] | None = None,
) -> None:
    wanted = 4 if strata is None else SAMPLED_FIELDS
    if len(fields) != wanted:
        # trec_eval rejects a qrels line with more fields too (a run is not qrels)
        hint = "; is this a run file?" if len(fields) == 6 else ""
        if strata is None:
            layout = "'qid iter docno rel'"
        else:
            layout = "'qid iter docno stratum rel' (the first line has 5)"
        raise InputError(
            f"expected {wanted} fields {layout}, found {len(fields)}{hint}", label, lineno
        )
    rel = fields[wanted - 1]
    grade = integer_field(rel)
    if grade is None:
        raise InputError(f"relevance {shown_field(rel)} is not an integer", label, lineno)
    if not INT64_MIN <= grade <= INT64_MAX:
        raise InputError(f"relevance {shown_field(rel)} is beyond 64-bit integers", label, lineno)
    qid, docno = topic_field(fields[0], label, lineno), docno_field(fields[2])
    if strata is not None:
        stratum = topic_field(fields[3], label, lineno)
        old_stratum = strata.setdefault(qid, {}).setdefault(docno, stratum)
        if old_stratum != stratum:
            raise InputError(
                f"topic {qid!r} docno {shown_docno(docno)} listed in two strata "
                f"({old_stratum}, {stratum})",
                label,
                lineno,
            )
    docs = qrels.setdefault(qid, {})
    old = docs.get(docno)
    if old is not None and old != grade:
        raise InputError(
            f"topic {qid!r} docno {shown_docno(docno)} judged twice with different grades "
            f"({old}, {grade})",
            label,
            lineno,
        )
    docs[docno] = grade
    first_line.setdefault(grade, lineno)


# ---------------------------------------------------------------------------
# Long-format score files


def sort_topics(topics: Iterable[str]) -> list[str]:
    """Topics in the order a TREC user expects: numeric ids numerically, and
    ids such as ``106_1`` by their numeric parts, others as strings."""

    def key(topic: str) -> tuple:
        parts = topic.replace("-", "_").split("_")
        if all(p.isdigit() for p in parts):
            return (0, tuple(int(p) for p in parts), topic)
        return (1, (), topic)

    return sorted(topics, key=key)


@dataclass(frozen=True)
class RunColumns:
    """A run as columns: one row per line, ``topic[i]`` indexes ``topics``."""

    topics: list[str]  # distinct topic ids, in order of first appearance
    topic: np.ndarray  # (rows,) int32
    docno: np.ndarray  # (rows,) bytes_ (``S`` width), the docnos' bytes
    score: np.ndarray  # (rows,) float64
    digest: np.ndarray | None = None  # (rows,) docno_digest(docno), when the parser made it

    @classmethod
    def from_dict(cls, run: Run) -> RunColumns:
        topics = list(run)
        sizes = [len(d) for d in run.values()]
        docnos = [docno_bytes(d) for docs in run.values() for d in docs]
        return cls(
            topics,
            np.repeat(np.arange(len(topics), dtype=np.int32), sizes),
            np.array(docnos, dtype=bytes) if docnos else np.zeros(0, "S1"),
            np.fromiter(
                (v for docs in run.values() for v in docs.values()), float, count=sum(sizes)
            ),
        )

    def as_dict(self) -> Run:
        """topic → docno → score, topics and docnos in file order."""
        return nested_by_name(self.topics, self.topic, self.docno, self.score)


def read_run_columns(source: Source) -> RunColumns:
    """Parse a TREC run (docs/inputs.md) into columns; the same checks and errors as
    :func:`read_run`."""
    columns = _direct_columns(source)
    if columns is not None:
        return columns
    data = read_bytes(source.path)
    check_nonempty(data, source.label)
    columns = _parse_run_columns(data)
    if columns is None:
        columns = RunColumns.from_dict(_parse_run_slow(data, source.label))
    return columns


def _parse_run_columns(data: bytes) -> RunColumns | None:
    fields = find_fields(data, 6)
    if fields is None:
        return None
    if not fields.integers_ok(3):
        return None
    scores = fields.floats(4)
    if scores is None or not np.isfinite(scores).all():
        return None
    segments = fields.segments(0)
    if segments is None:
        return None
    topics: dict[str, int] = {}
    topic = np.empty(scores.size, dtype=np.int32)
    for name, lo, hi in segments:
        topic[lo:hi] = topics.setdefault(name, len(topics))
    docno = _docno_column(fields)
    digest = docno_digest(docno)
    if has_duplicate_pairs(topic, docno, digest):
        return None  # the line-by-line path names the line
    return RunColumns(list(topics), topic, docno, scores, digest)


def _docno_column(fields: Fields) -> np.ndarray:
    """The docno column (the third field) as an ``S`` array."""
    words = fields.words(2)
    if words is None:  # wide docnos: through Python strings (ASCII here)
        return np.array(fields.strings(2), dtype=bytes)
    # The words' bytes are the docno's, NUL-padded to a multiple of 8 (which
    # an ``S`` array drops): no copy, and 8-byte words for hashing and compares.
    return words.view(f"S{8 * words.shape[1]}").ravel()


class QrelsTable:
    """Qrels as arrays in file order (``topic``, ``docno``, ``grade``) and their
    (topic, docno) hashes sorted (``key``, with ``row``, the file row of each
    key), for vectorized lookups. The columns are not reordered: sorting the
    docnos too would cost a random gather of the widest column and a second
    copy of it at the peak, for one gather (``row``) saved per lookup."""

    def __init__(
        self,
        topics: list[str],
        topic: np.ndarray | list[np.ndarray],
        docno: np.ndarray | list[np.ndarray],
        grade: np.ndarray | list[np.ndarray],
        stratum: list[str] | None = None,
    ) -> None:
        """Columns as arrays, or as lists of parts (a chunked parse): the parts
        are joined one column at a time, the grades once the keys are sorted,
        which bounds the peak memory of a large qrels file. ``stratum``, for a
        sampled collection, is each row's stratum label."""
        self.topics = topics
        # Stratum labels in string order (sample_eval.pl visits them in Perl's
        # `sort keys` order) and each row's index into them; None: one stratum.
        self.strata: tuple[str, ...] = ("1",)
        self.stratum: np.ndarray | None = None
        if stratum is not None:
            labels, codes = np.unique(np.array(stratum, dtype=str), return_inverse=True)
            self.strata = tuple(labels.tolist())
            self.stratum = codes.astype(np.int32).ravel()
        self.topic_index = {t: i for i, t in enumerate(topics)}
        topic, docno = joined_column(topic), joined_column(docno)
        n = topic.size
        self.has_duplicates = False
        for seed in range(8):  # a new seed if two different pairs share a hash
            key = docno_hash(topic, docno, seed)
            order, key = sort_keys(key)
            same = np.flatnonzero(key[1:] == key[:-1])
            if same.size == 0:
                break
            if any_same_pair(topic, docno, order[same], order[same + 1]):
                self.has_duplicates = True  # a pair judged twice: the caller decides
                break
        else:  # pragma: no cover - eight collisions in a row
            raise InputError("cannot index the qrels (hash collisions)")
        self.seed = seed
        self.key = key
        # Directory of the sorted keys by their top bits: bucket b starts at
        # key[first[b]] (an empty one where the next starts), a quarter of a
        # key on average (at most 2**22 buckets, 16 MB, for 12 M qrels: a few
        # keys), so a lookup reads its bucket's first key and rarely another,
        # instead of a binary search or a sort of the looked-up keys.
        self._bits = min(max(1, (n - 1).bit_length()) + 2, 22)
        buckets = 1 << self._bits
        self._first = np.empty(buckets, dtype=np.int32 if n < 2**31 else np.int64)
        for lo in range(0, buckets, HASH_BLOCK):  # in blocks: no large temporaries
            smallest = np.arange(lo, min(lo + HASH_BLOCK, buckets), dtype=np.uint64)
            smallest <<= np.uint64(64 - self._bits)
            self._first[lo : lo + smallest.size] = np.searchsorted(key, smallest)
        self.row = order.astype(np.int32 if n < 2**31 else np.int64)
        del order
        self.docno, self.topic = docno, topic
        grade = joined_column(grade)
        small = grade.size == 0 or (grade.min() >= -(2**31) and grade.max() < 2**31)
        self.grade: np.ndarray = grade.astype(np.int32 if small else np.int64, copy=False)
        self._num_rel: dict[int, np.ndarray] = {}

    @classmethod
    def from_dict(cls, qrels: Qrels, strata: dict[str, dict[str, str]] | None = None) -> QrelsTable:
        sizes = [len(d) for d in qrels.values()]
        docnos = [docno_bytes(d) for docs in qrels.values() for d in docs]
        grades = (g for docs in qrels.values() for g in docs.values())
        labels = None
        if strata is not None:
            labels = [strata[t][d] for t, docs in qrels.items() for d in docs]
        return cls(
            list(qrels),
            np.repeat(np.arange(len(qrels), dtype=np.int32), sizes),
            np.array(docnos, dtype=bytes) if docnos else np.zeros(0, "S1"),
            np.fromiter(grades, np.int64, count=sum(sizes)),
            labels,
        )

    def __len__(self) -> int:
        return self.key.size

    def grades_of(
        self, topic: np.ndarray, docno: np.ndarray, digest: np.ndarray | None = None
    ) -> tuple[np.ndarray, np.ndarray]:
        """(judged, grade) of each (qrels topic index, docno) row; grade 0
        where unjudged. ``digest``, if given, is docno_digest(docno)."""
        row = self.rows_of(topic, docno, digest)
        return row >= 0, self.grades_at(row)

    def grades_at(self, row: np.ndarray) -> np.ndarray:
        """The grade of each qrels row (:meth:`rows_of`), 0 where it is −1."""
        if not self.grade.size:
            return np.zeros(row.size, np.int64)
        return np.where(row >= 0, self.grade[row], 0)

    def rows_of(
        self, topic: np.ndarray, docno: np.ndarray, digest: np.ndarray | None = None
    ) -> np.ndarray:
        """The qrels row of each (qrels topic index, docno) row, −1 where the
        qrels do not list it."""
        if digest is None or self.seed:
            digest = docno_digest(docno, self.seed)
        key = pair_key(topic, digest)
        n = self.key.size
        if n == 0:
            return np.full(key.size, -1, dtype=np.intp)
        bucket = (key >> np.uint64(64 - self._bits)).astype(np.intp)
        pos = self._first[bucket].astype(np.intp)
        np.minimum(pos, n - 1, out=pos)  # an empty last bucket starts at n
        found = self.key[pos]
        # Walk the few rows whose bucket holds smaller keys before theirs to
        # the first key >= theirs. The keys are sorted, so the walk needs no
        # bucket end: a key of the next bucket is larger, and stops it.
        walked = rows = np.flatnonzero(found < key)
        while rows.size:
            pos[rows] += 1
            rows = rows[pos[rows] < n]
            rows = rows[self.key[pos[rows]] < key[rows]]
        if walked.size:
            np.minimum(pos, n - 1, out=pos)
            found[walked] = self.key[pos[walked]]
        # Equal keys are checked against the docno itself: a collision never
        # counts. (Equal docnos have equal digests, and for one digest the
        # key is a bijection of the topic: equal keys then mean equal topics.)
        judged = found == key
        row = self.row[pos].astype(np.intp)  # an intp index: the fast gather
        judged &= same_bytes(self.docno[row], docno)
        row[~judged] = -1
        return row

    def num_rel(self, rel: int) -> np.ndarray:
        """Per qrels topic, the documents with grade >= rel."""
        if rel not in self._num_rel:
            self._num_rel[rel] = np.bincount(
                self.topic[self.grade >= rel], minlength=len(self.topics)
            )
        return self._num_rel[rel]

    def as_dict(self) -> Qrels:
        """topic → docno → grade in file order."""
        return nested_by_name(self.topics, self.topic, self.docno, self.grade)


_QRELS_CHUNK = 1 << 24  # bytes parsed at a time: bounds the parser's temporary arrays


def _parse_qrels_table(
    data: bytes | list[bytes], ncols: int = 4
) -> tuple[QrelsTable, dict[int, int]] | None:
    """Qrels table and first line of each grade for a well-formed file with
    ``ncols`` fields on every line (4, or 5 with a stratum before the grade)
    and no (qid, docno) judged twice; None otherwise
    (the line-by-line path then accepts repeated equal judgments or names the
    line). The file is parsed in chunks of whole lines, so the temporary
    arrays stay small whatever the size of the file. Given a one-element list,
    the parser takes the bytes out of it and frees them after the last chunk."""
    if isinstance(data, list):
        data = data.pop()
    topics: dict[str, int] = {}
    parts: list[tuple[np.ndarray, np.ndarray, np.ndarray]] = []
    labels: list[str] = []
    first: dict[int, int] = {}
    start, line_offset = 0, 0
    chunk = b""
    while start < len(data):
        end = data.find(b"\n", min(start + _QRELS_CHUNK, len(data)) - 1)
        end = len(data) if end < 0 else end + 1
        chunk = data[start:end]
        start = end
        if not chunk.strip():
            line_offset += chunk.count(b"\n")
            continue
        fields = find_fields(chunk, ncols)
        if fields is None:
            return None
        grades_matrix = fields.column(ncols - 1)
        if grades_matrix is None or grades_matrix.shape[1] > 18:
            return None  # wider than 18 characters might not fit an int64
        if not matrix_integers_ok(grades_matrix):
            return None
        grades = matrix_integer_values(grades_matrix)
        segments = fields.segments(0)
        if segments is None:
            return None
        topic = np.empty(grades.size, dtype=np.int32)
        for name, lo, hi in segments:
            topic[lo:hi] = topics.setdefault(name, len(topics))
        values, first_rows = np.unique(grades, return_index=True)
        for value, row in zip(values.tolist(), first_rows.tolist(), strict=True):
            if value not in first:
                first[value] = int(fields.lines[row]) + 1 + line_offset
        line_offset += chunk.count(b"\n")
        if grades.min() >= -(2**31) and grades.max() < 2**31:
            grades = grades.astype(np.int32)  # the table keeps int32 grades when all fit
        parts.append((topic, _docno_column(fields), grades))
        if ncols == SAMPLED_FIELDS:
            labels.extend(fields.strings(3))
        del fields, grades_matrix
    del data, chunk  # the caller passed a list: these were the last references
    if not parts:
        return None
    # Handed over as lists of parts: the table joins and frees them column by column.
    topic_parts, docno_parts, grade_parts = (list(c) for c in zip(*parts, strict=True))
    del parts
    if line_offset > _TRIM_ROWS:
        _release_freed_memory()  # the chunks' temporaries, before the table's peak
    table = QrelsTable(
        list(topics),
        topic_parts,
        docno_parts,
        grade_parts,
        labels if ncols == SAMPLED_FIELDS else None,
    )
    if table.has_duplicates:
        return None
    first_line = dict(sorted(first.items(), key=lambda item: item[1]))
    return table, first_line


# --------------------------------------------------------------------------------------
# Writers: the one place TREC qrels and runs are written (as text: write it
# with :func:`~bvtest_cli.io.sources.output_bytes`, each docno is its file's bytes)


def qrels_line(topic: str, docno: str, grade: int, stratum: str | None = None) -> str:
    """One qrels line: ``qid 0 docno rel``, or sample_eval.pl's ``qid 0 docno
    stratum rel`` with a stratum (rel −1: pooled, not judged); ``docno`` as
    :func:`~bvtest_cli.io.sources.docno_text` gives it."""
    if stratum is None:
        return f"{topic} 0 {docno} {grade}\n"
    return f"{topic} 0 {docno} {stratum} {grade}\n"


def format_qrels(qrels: Qrels) -> str:
    """TREC qrels ``qid 0 docno rel``: topics in :func:`sort_topics` order,
    docnos sorted (by their bytes)."""
    return "".join(
        qrels_line(topic, docno_text(docno), qrels[topic][docno])
        for topic in sort_topics(qrels)
        for docno in sorted(qrels[topic])
    )


def format_run(ranking: Iterable[tuple[str, Iterable[tuple[str, float]]]], tag: str) -> str:
    """TREC run ``qid Q0 docno rank score tag`` of (topic, documents in rank
    order) pairs, ranks 1, 2, …; scores with ``repr`` (the shortest text that
    reads back as the same double)."""
    if not tag or any(c.isspace() for c in tag):
        raise ValueError(f"run tag {tag!r} must be non-empty without white space")
    return "".join(
        f"{topic} Q0 {docno_text(docno)} {rank} {score!r} {tag}\n"
        for topic, docs in ranking
        for rank, (docno, score) in enumerate(docs, 1)
    )
