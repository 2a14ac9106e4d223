"""Automatic assessors' judgments (``bvtest judges``): a qrels file with its
grades mapped (``--grade-map``), and the confusion block of a simulated judge
(``--judge NAME=sim:FILE.json``), each checked against the human scale with
the file and line of what is wrong."""

from __future__ import annotations

import json
import math
from collections.abc import Iterable, Mapping
from dataclasses import dataclass

from ..errors import InputError
from .sources import STDIN, read_bytes
from .trec import QrelsFile


def mapped(qrels: QrelsFile, grade_map: Mapping[int, int]) -> QrelsFile:
    """``qrels`` with every grade g as ``grade_map.get(g, g)``; the first line
    of each new grade is the first line of any grade mapped to it."""
    if not grade_map:
        return qrels
    table: dict[str, dict[str, int]] = {
        topic: {docno: grade_map.get(g, g) for docno, g in docs.items()}
        for topic, docs in qrels.qrels.items()
    }
    first: dict[int, int] = {}
    for grade, line in qrels.first_line_of_grade.items():
        new = grade_map.get(grade, grade)
        first[new] = min(first.get(new, line), line)
    return QrelsFile(qrels.label, table, first)


def check_scale(judge: QrelsFile, scale: Iterable[int], grade_map: Mapping[int, int]) -> None:
    """A judge's grade the human qrels do not use is bad input (its file and
    first line), unless ``--grade-map`` maps it onto the scale."""
    allowed = set(scale)
    inverse: dict[int, list[int]] = {}
    for old, new in grade_map.items():
        inverse.setdefault(new, []).append(old)
    for grade in sorted(judge.first_line_of_grade):
        if grade in allowed:
            continue
        line = judge.first_line_of_grade[grade]
        shown = ", ".join(map(str, sorted(allowed)))
        was = inverse.get(grade)
        told = f" (mapped from {', '.join(map(str, sorted(was)))})" if was else ""
        raise InputError(
            f"grade {grade}{told} is not on the human judgments' scale ({shown}); map it "
            f"with --grade-map, e.g. --grade-map {grade}={max(allowed)}",
            judge.label,
            line,
        )


@dataclass(frozen=True)
class ConfusionBlock:
    """P(judge grade | human grade): ``rows`` the human grades, ``columns`` the
    judge's, ``p[r][c]`` each row summing to 1."""

    rows: tuple[int, ...]
    columns: tuple[int, ...]
    p: tuple[tuple[float, ...], ...]


def read_confusion(path: str) -> ConfusionBlock:
    """A confusion block as ``bvtest judges -f json`` writes it: the object
    ``{"human_grades", "judge_grades", "counts", "p"}``, an object holding it
    under ``"confusion"``, or a whole ``judges`` document with one judge."""
    label = "<stdin>" if path == STDIN else path
    try:
        doc = json.loads(read_bytes(path).decode("utf-8"))
    except (UnicodeDecodeError, json.JSONDecodeError) as exc:
        line = getattr(exc, "lineno", None)
        raise InputError(f"not a JSON confusion block: {exc}", label, line) from None
    block = _block_of(doc, label)
    try:
        rows = tuple(_grade(g) for g in block["human_grades"])
        columns = tuple(_grade(g) for g in block["judge_grades"])
        p = tuple(tuple(float(v) for v in row) for row in block["p"])
    except (KeyError, TypeError, ValueError):
        raise InputError(
            'expected a confusion block {"human_grades", "judge_grades", "p"} (integer '
            "grades, a row of probabilities per human grade)",
            label,
        ) from None
    if len(p) != len(rows) or any(len(row) != len(columns) for row in p):
        raise InputError(
            f"p has {len(p)} row(s) for {len(rows)} human grade(s) and rows of "
            f"{sorted({len(r) for r in p})} value(s) for {len(columns)} judge grade(s)",
            label,
        )
    if len(set(rows)) != len(rows) or len(set(columns)) != len(columns):
        raise InputError("a grade is listed twice in human_grades or judge_grades", label)
    for grade, row in zip(rows, p, strict=True):
        if not all(math.isfinite(v) and 0 <= v <= 1 for v in row):
            raise InputError(f"the row of human grade {grade} holds a value outside [0, 1]", label)
        if abs(sum(row) - 1.0) > 1e-6:
            raise InputError(f"the row of human grade {grade} sums to {sum(row):.6g}, not 1", label)
    order = sorted(range(len(rows)), key=rows.__getitem__)
    return ConfusionBlock(tuple(rows[i] for i in order), columns, tuple(p[i] for i in order))


def _grade(value: object) -> int:
    if isinstance(value, bool) or not isinstance(value, (int, float)) or value != int(value):
        raise ValueError(value)
    return int(value)


def _block_of(doc: object, label: str) -> Mapping:
    if isinstance(doc, Mapping) and "p" in doc:
        return doc
    if isinstance(doc, Mapping) and isinstance(doc.get("confusion"), Mapping):
        return doc["confusion"]
    judges = doc.get("judges") if isinstance(doc, Mapping) else None
    if isinstance(judges, Mapping):
        if len(judges) != 1:
            raise InputError(
                f"a judges document of {len(judges)} judges ({', '.join(judges)}): write the "
                "confusion block of one to a file of its own",
                label,
            )
        (only,) = judges.values()
        if isinstance(only, Mapping):
            agreement = only.get("agreement")
            if isinstance(agreement, Mapping) and isinstance(agreement.get("confusion"), Mapping):
                return agreement["confusion"]
    raise InputError(
        'not a confusion block: expected {"human_grades", "judge_grades", "p"} '
        "(as `bvtest judges -f json` writes it)",
        label,
    )


def check_rows(block: ConfusionBlock, scale: Iterable[int], label: str) -> None:
    """Every grade of the human qrels needs its row in a simulated judge's block."""
    missing = sorted(set(scale) - set(block.rows))
    if missing:
        raise InputError(
            f"the confusion block has no row for human grade(s) {', '.join(map(str, missing))} "
            f"(it has {', '.join(map(str, block.rows))}); --grade-map can map the scales",
            label,
        )
