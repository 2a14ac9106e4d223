"""How one value of a report reads: printed at a number of digits (:func:`fmt`)
or as a plain Python value for JSON (:func:`plain`). Shared by the
renderers and by the reports whose records carry their own text lines."""

from __future__ import annotations

import math
from typing import Any

import numpy as np

from .model import Value

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
        text = f"{value:.{digits}e}" if abs(value) >= _FIXED_MAX else f"{value:.{digits}f}"
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
    if isinstance(value, (float, np.floating)):
        v = float(value)
        return v + 0.0 if math.isfinite(v) else None  # + 0.0: no negative zero
    return value
