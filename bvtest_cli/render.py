"""Reports → text: trec (default), table, tsv, csv, json (SPEC §12).

A report is the JSON document of SPEC §12: ``{"measures": {measure: block}}``
plus top-level settings. Every text format is derived from one flattening of
that document into (measure, name, system, value) rows, so all formats carry
the same numbers in the same stable order.
"""

from __future__ import annotations

import csv
import io
import json
import math
from collections.abc import Iterator, Mapping, Sequence
from typing import Any

from tabulate import tabulate

FORMATS = ("trec", "table", "tsv", "csv", "json")
ALL = "all"  # the system column of results that belong to no single system

Row = tuple[str, str, str, Any]  # measure, name, system, value


def alpha_name(field: str, alpha: str) -> str:
    """``zrisk`` at alpha 5 → ``zrisk(alpha=5)``."""
    return f"{field}(alpha={alpha})"


def flatten(report: Mapping[str, Any]) -> Iterator[Row]:
    """Rows in a stable order: per measure its scalars, then per field every
    system (input order), then the tradeoff; nested per-topic blocks last."""
    for measure, block in report["measures"].items():
        for key, value in block.items():
            if not isinstance(value, Mapping):
                yield measure, key, ALL, value
        systems: Mapping[str, Mapping[str, Any]] = block.get("systems", {})
        yield from _system_rows(measure, "", systems)
        for key, value in block.items():
            if key == "systems" or not isinstance(value, Mapping):
                continue
            if key == "topics":
                for topic, tblock in value.items():
                    for tkey, tvalue in tblock.items():
                        if not isinstance(tvalue, Mapping):
                            yield measure, f"{tkey}", f"{topic}", tvalue
                    yield from _system_rows(measure, f"{topic}.", tblock.get("systems", {}))
            else:
                for sub, v in value.items():
                    yield from _nested(measure, f"{key}.{sub}", v)


def _nested(measure: str, name: str, value: Any) -> Iterator[Row]:
    if isinstance(value, Mapping):
        for sub, v in value.items():
            yield from _nested(measure, f"{name}.{sub}", v)
    else:
        yield measure, name, ALL, value


def _system_rows(
    measure: str, prefix: str, systems: Mapping[str, Mapping[str, Any]]
) -> Iterator[Row]:
    fields: dict[str, None] = {}
    for fields_of_system in systems.values():
        fields.update(dict.fromkeys(fields_of_system))
    for field in fields:
        for system, values in systems.items():
            value = values.get(field)
            if isinstance(value, Mapping):
                continue
            yield measure, f"{prefix}{field}", system, value
        alphas: dict[str, None] = {}
        for values in systems.values():
            if isinstance(values.get(field), Mapping):
                alphas.update(dict.fromkeys(values[field]))
        for alpha in alphas:
            for system, values in systems.items():
                yield measure, f"{prefix}{alpha_name(field, alpha)}", system, values[field][alpha]


# Magnitudes from which fixed-point notation stops being readable (a value of
# 1e300 would print 300 digits): such values are printed in exponent notation.
_FIXED_MAX = 1e15


def fmt(value: Any, digits: int) -> str:
    """Numbers with ``digits`` decimals, integers as integers, undefined as ``nan``.

    A value that rounds to zero prints without a sign (``0.0000``, never
    ``-0.0000``: a minus sign on a zero would claim a loss that is not there);
    a magnitude of 1e15 or more prints in exponent notation (``1.2345e+20``).
    """
    if value is None:
        return "nan"
    if isinstance(value, (bool, int)):
        return str(int(value))
    if isinstance(value, float):
        if math.isnan(value):
            return "nan"
        text = f"{value:.{digits}e}" if abs(value) >= _FIXED_MAX else f"{value:.{digits}f}"
        if text.startswith("-") and float(text) == 0.0:
            return text[1:]
        return text
    return str(value)


def number(value: float | None, digits: int, undefined: str = "nan") -> str:
    """:func:`fmt` for one number, with the text to print for an undefined one."""
    return undefined if value is None or math.isnan(value) else fmt(float(value), digits)


def jsonable(value: Any) -> Any:
    """NaN and infinities → null, −0.0 → 0.0, recursively (strict JSON parsers
    reject NaN; a negative zero is the same number and must print as 0)."""
    if isinstance(value, Mapping):
        return {str(k): jsonable(v) for k, v in value.items()}
    if isinstance(value, (list, tuple)):
        return [jsonable(v) for v in value]
    if isinstance(value, float):
        if not math.isfinite(value):
            return None
        return value + 0.0  # −0.0 + 0.0 is +0.0; every other value is unchanged
    return value


def render(
    report: Mapping[str, Any],
    fmt_name: str,
    digits: int = 4,
    table_fields: Sequence[str] = (),
) -> str:
    """The whole output for one report; ends with a newline. ``table_fields``
    chooses and orders the columns of --format table (default TABLE_FIELDS)."""
    if fmt_name == "json":
        return json.dumps(jsonable(report), indent=2, allow_nan=False) + "\n"
    if fmt_name == "trec":
        return "".join(
            f"{m}.{name}\t{system}\t{fmt(v, digits)}\n" for m, name, system, v in flatten(report)
        )
    if fmt_name in ("tsv", "csv"):
        buf = io.StringIO()
        writer = csv.writer(buf, delimiter="\t" if fmt_name == "tsv" else ",", lineterminator="\n")
        writer.writerow(["measure", "name", "system", "value"])
        writer.writerows((m, n, s, fmt(v, digits)) for m, n, s, v in flatten(report))
        return buf.getvalue()
    if fmt_name == "table":
        return render_table(report, digits, table_fields or TABLE_FIELDS)
    raise ValueError(f"unknown format {fmt_name!r}")


def render_table(report: Mapping[str, Any], digits: int, table_fields: Sequence[str] = ()) -> str:
    """One table per measure: a row per system, a column per scalar field and
    per (field, alpha); scalars and the tradeoff in the title lines."""
    out: list[str] = []
    settings = [f"{k}={v}" for k, v in report.items() if k != "measures" and v is not None]
    for measure, block in report["measures"].items():
        scalars = [f"{k}={fmt(v, digits)}" for k, v in block.items() if not isinstance(v, Mapping)]
        shared = _shared_fields(block, table_fields)
        scalars += [f"{k}={fmt(v, digits)}" for k, v in shared.items()]
        out.append(f"# {measure}  " + "  ".join(scalars + settings))
        systems = block.get("systems", {})
        headers, rows = _wide(systems, digits, table_fields)
        if rows:
            out.append(
                tabulate(
                    rows,
                    headers=headers,
                    disable_numparse=True,
                    colalign=("left",) + ("right",) * (len(headers) - 1),
                )
            )
        for key, value in block.items():
            if key in ("systems", "topics") or not isinstance(value, Mapping):
                continue
            pairs = [
                f"{k}={fmt(v, digits)}" for k, v in value.items() if not isinstance(v, Mapping)
            ]
            out.append(f"{key}: " + "  ".join(pairs))
        if "topics" in block:
            trows = [
                [topic] + [fmt(v, digits) for v in tb.values() if not isinstance(v, Mapping)]
                for topic, tb in block["topics"].items()
            ]
            first = next(iter(block["topics"].values()), {})
            theads = ["topic"] + [k for k, v in first.items() if not isinstance(v, Mapping)]
            out.append(tabulate(trows, headers=theads, disable_numparse=True, stralign="right"))
        out.append("")
    return "\n".join(out)


# Columns of --format table: the decomposition and the headline risk measures.
# Every field is in the other formats; var_target, the same for every system,
# is printed once in the title.
TABLE_FIELDS = (
    "mean",
    "bias2",
    "var",
    "mse",
    "var_rho",
    "cov_target",
    "zrisk",
    "georisk",
    "urisk",
    "trisk",
)


def _shared_fields(block: Mapping[str, Any], table_fields: Sequence[str]) -> dict[str, Any]:
    """Per-system fields outside TABLE_FIELDS that are equal for every system."""
    systems = list(block.get("systems", {}).values())
    if not systems:
        return {}
    return {
        f: v
        for f, v in systems[0].items()
        if f not in table_fields
        and not isinstance(v, Mapping)
        and all(s.get(f) == v for s in systems)
    }


def _wide(
    systems: Mapping[str, Mapping[str, Any]], digits: int, table_fields: Sequence[str]
) -> tuple[list[str], list[list]]:
    present: dict[str, None] = {}
    for values in systems.values():
        present.update(dict.fromkeys(values))
    shown = [f for f in table_fields if f in present] or list(present)
    columns: list[tuple[str, str | None]] = []
    for field in shown:
        for values in systems.values():
            value = values.get(field)
            keys = [(field, a) for a in value] if isinstance(value, Mapping) else [(field, None)]
            columns.extend(k for k in keys if k not in columns)
    headers = ["system"] + [f if a is None else f"{f}@{a}" for f, a in columns]
    rows = []
    for system, values in systems.items():
        row = [system]
        for field, alpha in columns:
            v = values.get(field)
            row.append(fmt(v[alpha] if alpha is not None and v is not None else v, digits))
        rows.append(row)
    return headers, rows
