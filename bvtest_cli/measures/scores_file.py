"""Long-format scores files (system, topic, measure, value): a cache of the
measures, read straight into score matrices (docs/inputs.md)."""

from __future__ import annotations

import re
from pathlib import Path

import numpy as np

from ..errors import InputError
from ..io.fields import check_nonempty
from ..io.sources import (
    SCORES_HEADER,
    STDIN,
    Note,
    has_control,
    ignore_note,
    read_bytes,
    score_field,
)
from ..io.trec import sort_topics
from ..io.wide_scores import is_wide, read_wide
from .matrix import ScoreMatrix


def read_scores(
    path: str, note: Note = ignore_note, measure: str | None = None
) -> list[ScoreMatrix]:
    """Parse ``system topic measure value`` lines into one matrix per measure,
    measures in order of first appearance (docs/inputs.md). A missing cell scores 0
    (with a note), as a run missing a topic does.

    A wide CSV matrix (:mod:`bvtest_cli.io.wide_scores`: a header of run
    names, a row per topic) is one matrix of ``measure``, or of the measure
    the file's name says (``robust2004_ap.csv`` → ``robust2004_ap``)."""
    label = "<stdin>" if path == STDIN else path
    data = read_bytes(path)
    check_nonempty(data, label)
    if is_wide(data, label):
        return [_wide_matrix(data, label, measure)]
    cells: dict[str, dict[tuple[str, str], float]] = {}
    for lineno, raw in enumerate(data.split(b"\n"), 1):
        line = raw.lstrip()  # ASCII white space, as the fields below
        if not line.strip() or line.startswith(b"#"):
            continue
        parts = raw.split(b"\t") if b"\t" in raw else raw.split()
        try:
            fields = tuple(part.strip().decode("utf-8") for part in parts)
        except UnicodeDecodeError:
            raise InputError("not UTF-8 text", label, lineno) from None
        if fields == SCORES_HEADER:
            continue
        if len(fields) != 4:
            raise InputError(
                f"expected 4 fields 'system topic measure value', found {len(fields)}",
                label,
                lineno,
            )
        for i, field in enumerate(fields):
            if not field:
                raise InputError(
                    f"empty field {i + 1} ({SCORES_HEADER[i]}) in "
                    "'system<TAB>topic<TAB>measure<TAB>value'",
                    label,
                    lineno,
                )
            if i in (0, 2) and has_control(field):  # names are printed in notes and tables
                raise InputError(
                    f"field {i + 1} ({SCORES_HEADER[i]}) {field!r} contains a control character",
                    label,
                    lineno,
                )
        system, topic, measure, _ = fields
        score = score_field(parts[3].strip(), "value", label, lineno)
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
    n_cells = sum(len(table) for table in cells.values())
    if len(cells) > 10 and len(cells) * 2 > n_cells:
        # A real scores file repeats each measure over systems × topics; a qrels
        # or run file read as one has a "measure" (its docno column) per line.
        raise InputError(
            f"{len(cells)} different measures in {n_cells} lines: not a scores file "
            "'system topic measure value' (a qrels or run file?)",
            label,
        )
    return [_matrix_from_cells(measure, table, note) for measure, table in cells.items()]


def _wide_matrix(data: bytes, label: str, measure: str | None) -> ScoreMatrix:
    if measure is None:
        if label == "<stdin>":
            raise InputError("a wide CSV matrix on stdin needs its measure: give -m MEASURE", label)
        name = Path(label).name
        measure = re.sub(r"(\.csv)?(\.gz)?$", "", name, flags=re.IGNORECASE) or name
    wide = read_wide(data, label)
    return ScoreMatrix(measure, wide.systems, wide.topics, wide.values)


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
