"""How one value of a report reads: printed at a number of digits (:func:`fmt`)
or as a plain Python value for JSON (:func:`plain`). Shared by the
renderers and by the reports whose records carry their own text lines."""

from __future__ import annotations

import math
from collections.abc import Callable
from typing import Any

import numpy as np

from .model import Records, Value


class PValue(float):
    """A probability (a p-value). Printed like any number, except below the
    printed precision, where it is printed in exponent notation with two
    significant digits (3.2e-05, never 0.0000: a p-value is never 0). JSON
    gets the full float, as for every number."""

    __slots__ = ()


def as_reported(value: Any, probability: bool) -> Any:
    """``value`` as a report holds it: a :class:`PValue` when it is a finite
    probability, otherwise unchanged."""
    if probability and isinstance(value, (float, np.floating)) and math.isfinite(value):
        return PValue(value)
    return value


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
    if isinstance(value, (bool, int, np.integer)):
        return str(int(value))
    if isinstance(value, (float, np.floating)):
        if math.isnan(value):
            return "nan"
        if isinstance(value, PValue) and 0 < abs(value) < 0.5 * 10.0**-digits:
            return f"{value:.1e}"
        text = f"{value:.{digits}e}" if abs(float(value)) >= _FIXED_MAX else f"{value:.{digits}f}"
        if text.startswith("-") and float(text) == 0.0:
            return text[1:]
        return text
    return str(value)


def plain(value: Any) -> Value:
    """A cell as a plain Python value: float, int, str, bool, or None for NaN/inf."""
    if isinstance(value, (bool, np.bool_)):
        return bool(value)
    if isinstance(value, (int, np.integer)):
        return int(value)
    if isinstance(value, PValue):
        return value
    if isinstance(value, (float, np.floating)):
        v = float(value)
        return v + 0.0 if math.isfinite(v) else None  # + 0.0: no negative zero
    return value


def line_records(rows: list[dict[str, Any]], kind: str, key: Callable[[dict], str]) -> Records:
    """Records of dicts: the JSON objects as given; in the line formats a line
    each, ``KIND<TAB>KEY<TAB>field=value ...`` (one line holds a whole record)."""

    def as_json(row: dict[str, Any]) -> dict[str, Any]:
        return row

    def as_text(row: dict[str, Any], digits: int) -> tuple[str, str, str]:
        shown = " ".join(f"{k}={fmt(plain(v), digits)}" for k, v in row.items())
        return kind, key(row), shown

    return Records(tuple(rows), as_json, as_text, header=tuple(rows[0]) if rows else ())
