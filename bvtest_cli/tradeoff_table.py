"""The effectiveness–stability tradeoff table (SPEC §6–§7; seed 000 Table 9,
seed 001 Table 2).

For every measure, the Pearson and Spearman correlation (with two-sided
p-values) of Bias² and Var across runs in six settings: the topic groupings
{all topics, ``random:K1``, ``difficulty:K2``} × {raw scores, normalized
scores}. Each setting is one :func:`bvtest_cli.grouping.analyse` call followed
by :func:`bvtest_cli.tradeoff.correlate`, so every number equals what
``bvtest eval --group G --normalize N`` prints as ``tradeoff``.

Pure: no I/O. :func:`tradeoff_table` returns the report and the stderr notes
(identical notes of one measure collapsed into one); :func:`render_tradeoff_table`
prints ``--format table``; the other formats use :func:`bvtest_cli.render.render`.

Report (the JSON document of ``bvtest tradeoff``)::

    {"target": "max", "repeats": 1000, "seed": 20220101,
     "random_size": 10, "difficulty_size": 5, "normalize": "minmax",
     "measures": {"AP": {"n_systems": 12, "n_topics": 29,
        "all":          {"raw": CELL, "minmax": CELL},
        "random:10":    {"raw": CELL, "minmax": CELL},
        "difficulty:5": {"raw": CELL, "minmax": CELL}}}}

    CELL = {"pearson", "pearson_p", "spearman", "spearman_p",
            "n_topics", "n_groups" (grouped settings only)}

Undefined correlations are NaN (null in JSON) and the reason is a note.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from dataclasses import asdict, dataclass
from typing import Any

from tabulate import tabulate

from . import grouping
from .matrix import ScoreMatrix
from .render import fmt
from .tradeoff import Tradeoff, correlate

RAW = "raw"


@dataclass(frozen=True)
class TableSettings:
    """The options of ``bvtest tradeoff`` (they are also the report's header)."""

    target: str | float = "max"
    repeats: int = grouping.DEFAULT_REPEATS
    seed: int = grouping.DEFAULT_SEED
    random_size: int = 10
    difficulty_size: int = 5
    normalize: str = "minmax"


ALL_TOPICS = "all"
NAN = float("nan")


def settings(random_size: int, difficulty_size: int) -> list[tuple[str, str | None]]:
    """(row name, --group value) of the three groupings, in table order."""
    return [
        (ALL_TOPICS, None),
        (f"random:{random_size}", f"random:{random_size}"),
        (f"difficulty:{difficulty_size}", f"difficulty:{difficulty_size}"),
    ]


def measure_table(m: ScoreMatrix, ts: TableSettings) -> tuple[dict[str, Any], list[str]]:
    """The six settings of one measure: (block, notes), notes deduplicated."""
    block: dict[str, Any] = {"n_systems": len(m.systems), "n_topics": len(m.topics)}
    notes: list[str] = []
    undefined: dict[str, list[str]] = {}  # reason → settings where the correlation is NaN
    for row, group in settings(ts.random_size, ts.difficulty_size):
        block[row] = {}
        for column, norm in ((RAW, "none"), (ts.normalize, ts.normalize)):
            where = f"{row}/{column}"
            try:
                a = grouping.analyse(
                    m,
                    group=group,
                    normalize=norm,
                    target=ts.target,
                    repeats=ts.repeats,
                    seed=ts.seed,
                )
            except ValueError as exc:
                # e.g. every topic tied under minmax: this cell only is undefined
                reason = str(exc).removeprefix(f"{m.measure}: ")
                undefined.setdefault(reason, []).append(where)
                block[row][column] = cell(Tradeoff(NAN, NAN, NAN, NAN), 0, 0, group)
                continue
            notes.extend(a.notes)
            t = correlate(a.bv.bias2, a.bv.var)
            if t.reason:
                undefined.setdefault(t.reason, []).append(where)
            block[row][column] = cell(t, a.n_topics, a.n_groups, group)
    for reason, where in undefined.items():
        scope = "every setting" if len(where) == 6 else ", ".join(where)
        notes.append(f"{m.measure}: tradeoff correlation undefined ({scope}): {reason}")
    return block, list(dict.fromkeys(notes))


def cell(t: Tradeoff, n_topics: int, n_groups: int | None, group: str | None) -> dict[str, Any]:
    out: dict[str, Any] = {f: getattr(t, f) for f in Tradeoff.FIELDS}
    out["n_topics"] = n_topics
    if group is not None:
        out["n_groups"] = n_groups
    return out


def tradeoff_table(
    matrices: Sequence[ScoreMatrix], ts: TableSettings = TableSettings()
) -> tuple[dict[str, Any], list[str]]:
    """The report of ``bvtest tradeoff`` (schema in the module docstring) and
    its notes, each distinct note of a measure once."""
    if ts.random_size < 1 or ts.difficulty_size < 1:
        raise ValueError("group sizes must be positive integers")
    if ts.normalize not in ("minmax", "ratio"):
        raise ValueError(f"invalid normalization {ts.normalize!r}: expected minmax or ratio")
    report: dict[str, Any] = {**asdict(ts), "measures": {}}
    notes: list[str] = []
    for m in matrices:
        block, measure_notes = measure_table(m, ts)
        report["measures"][m.measure] = block
        notes.extend(measure_notes)
    return report, notes


def render_tradeoff_table(report: Mapping[str, Any], digits: int) -> str:
    """``--format table``: per measure a title line and a table in the layout of
    seed 000 Table 9 / seed 001 Table 2, a row per grouping and a column per
    (normalization, statistic)."""
    norm = report["normalize"]
    columns = [(c, f) for c in (RAW, norm) for f in Tradeoff.FIELDS]
    headers = ["grouping"] + [f"{c} p" if f.endswith("_p") else f"{c} {f}" for c, f in columns]
    settings_line = "  ".join(
        f"{k}={report[k]}" for k in ("target", "repeats", "seed") if k in report
    )
    out: list[str] = []
    for measure, block in report["measures"].items():
        scalars = [f"{k}={fmt(v, digits)}" for k, v in block.items() if not isinstance(v, Mapping)]
        out.append(f"# {measure}  " + "  ".join([*scalars, settings_line]))
        rows = [
            [row] + [fmt(value.get(c, {}).get(f), digits) for c, f in columns]
            for row, value in block.items()
            if isinstance(value, Mapping)
        ]
        out.append(
            tabulate(
                rows,
                headers=headers,
                disable_numparse=True,
                colalign=("left",) + ("right",) * len(columns),
            )
        )
        out.append("")
    return "\n".join(out)
