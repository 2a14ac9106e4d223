"""How a golden output is compared with a fresh one (docs/reproducibility.md).

Printed formats (trec, table, tsv, csv, latex, markdown, text) are compared
byte for byte. A record whose stdout is JSON is compared token by token:
strings, punctuation, layout, integers, ``null``/``true``/``false`` exactly,
and floating-point literals within a tolerance. The tolerance covers the
last bits that change from one machine or dependency version to another
(scipy.special's t distribution across scipy versions, a few ulp; rankings'
b² = Δ − σ²_X − σ²_G, which cancels), and nothing a real change of a value
would stay within.
"""

from __future__ import annotations

import json
import math
import re

# |a − b| <= max(REL_TOL · max(|a|, |b|), ABS_TOL). Largest differences measured
# (docs/reproducibility.md): 1.75e-13 relative between the recorded files (BLAS
# sums) and today's fixed-order sums; 6.9e-14 relative, 3.5e-16 absolute in
# rankings' b², bias and rmse between the oldest and newest dependencies; a few
# ulp in p-values. ABS_TOL is for values that cancel to about zero.
REL_TOL = 1e-12
ABS_TOL = 1e-15
# compare's p-values drawn by Monte Carlo: the randomization test sums signed
# differences through BLAS, and across numpy/OpenBLAS builds a relabelling
# whose sum sits at the tie tolerance can count one hit differently, which
# moves that pair's bound (measured: 4.9e-6 relative on one of 66 pairs
# between the oldest and newest dependencies; every decision the same).
P_REL_TOL = 1e-4
P_KEYS = ('"p"', '"p_adj"', '"p_lo"', '"p_hi"')

_TOKEN = re.compile(
    r'(?P<string>"(?:[^"\\]|\\.)*")'
    r"|(?P<number>-?(?:0|[1-9][0-9]*)(?:\.[0-9]+)?(?:[eE][+-]?[0-9]+)?|-?Infinity|NaN)"
    r"|(?P<other>[^\"0-9\-NI]+|.)",
    re.DOTALL,
)


def _tokens(text: str) -> list[tuple[str, str]]:
    return [(m.lastgroup, m.group()) for m in _TOKEN.finditer(text)]


def _is_float(literal: str) -> bool:
    return any(c in literal for c in ".eEIN")


def floats_close(a: float, b: float) -> bool:
    """Equal within the stated tolerance (NaN equals NaN, infinities exactly)."""
    if math.isnan(a) or math.isnan(b):
        return math.isnan(a) and math.isnan(b)
    if math.isinf(a) or math.isinf(b):
        return a == b
    return abs(a - b) <= max(REL_TOL * max(abs(a), abs(b)), ABS_TOL)


def json_mismatch(expected: str, got: str) -> str | None:
    """None when the JSON text ``got`` equals ``expected`` (floats within the
    tolerance, everything else exactly); else where and how they differ."""
    for label, text in (("expected", expected), ("got", got)):
        try:
            json.loads(text)
        except ValueError as err:
            return f"{label} is not JSON: {err}"
    want, have = _tokens(expected), _tokens(got)
    offset = 0
    key = ""
    for (kind_a, a), (kind_b, b) in zip(want, have, strict=False):
        where = f"at character {offset} ({expected[max(0, offset - 40) : offset]!r})"
        if kind_a != kind_b:
            return f"{where}: {a!r} became {b!r}"
        if kind_a == "string":
            key = a
        if kind_a == "number" and _is_float(a) and _is_float(b):
            x, y = float(a), float(b)
            p_value = key in P_KEYS and abs(x - y) <= P_REL_TOL * max(abs(x), abs(y))
            if not (p_value or floats_close(x, y)):
                return f"{where}: {a} became {b} (beyond the tolerance)"
        elif a != b:
            return f"{where}: {a!r} became {b!r}"
        offset += len(a)
    if len(want) != len(have):
        return f"length: {len(want)} tokens became {len(have)}"
    return None


def record_mismatch(expected: str, got: str) -> str | None:
    """Compare two golden records (``exit: N``, ``--- stdout``, ``--- stderr``
    and, for commands that write files, ``--- files``): JSON stdout by
    :func:`json_mismatch`, every other part byte for byte."""
    if expected == got:
        return None
    parts_a, parts_b = _split(expected), _split(got)
    if parts_a is None or parts_b is None:
        return "the records differ (not JSON on stdout)"
    (head_a, out_a, rest_a), (head_b, out_b, rest_b) = parts_a, parts_b
    if head_a != head_b:
        return f"exit status: {head_a!r} became {head_b!r}"
    if rest_a != rest_b:
        return "stderr (or the files written) changed"
    if out_a == out_b:
        return None
    if not out_a.lstrip().startswith(("{", "[")):
        return "stdout changed (not JSON: compared byte for byte)"
    return json_mismatch(out_a, out_b)


def _split(record: str) -> tuple[str, str, str] | None:
    head, sep, tail = record.partition("--- stdout\n")
    if not sep:
        return None
    stdout, sep, rest = tail.rpartition("--- stderr\n")
    if not sep:
        return None
    return head, stdout, rest
