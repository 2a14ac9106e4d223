"""The kinds of value an option takes, without click: a whole number in a
range, one of a few words, a finite real number in a range, a number of
documents, a value read by a parser. Each ``convert``s what was typed (or
given from Python) into the Settings value, or raises :class:`BadValue`.

One declaration serves both doors: the CLI turns a kind into its click type
(:mod:`~bvtest_cli.options.clicktypes`, so ``--help`` shows ranges and
choices as click does), the API converts keywords with ``convert`` itself.
Imports only the foundation.
"""

from __future__ import annotations

import math
import re
from collections.abc import Callable, Sequence
from dataclasses import dataclass
from typing import Any

from ..errors import BadValue


def bad(message: str) -> BadValue:
    return BadValue(message)


# --------------------------------------------------------------------------- real numbers
# One rule for every number an option takes: finite (NaN passes every
# comparison, so a range check alone lets it through), then in range.


def _bound(value: float) -> str:
    """A range's end as it would be typed: 0, 1, 1e6."""
    return re.sub(r"e\+?(-?)0*(\d)", r"e\1\2", f"{value:g}")


def range_text(
    low: float | None, high: float | None, low_open: bool = False, high_open: bool = False
) -> str:
    """``in (0, 1)``, ``in [0, 1e6]``, ``> 0``, ``>= 0``: where a value must lie."""
    if low is not None and high is not None:
        return (f"in {'(' if low_open else '['}{_bound(low)}, "
                f"{_bound(high)}{')' if high_open else ']'}")  # fmt: skip
    if low is not None:
        return f"{'>' if low_open else '>='} {_bound(low)}"
    if high is not None:
        return f"{'<' if high_open else '<='} {_bound(high)}"
    return "a finite number"


def real(
    value: Any,
    low: float | None = None,
    high: float | None = None,
    *,
    low_open: bool = False,
    high_open: bool = False,
    what: str = "",
) -> float:
    """``value`` (text, or a number from the API) as a finite float in the
    range, or a usage error naming it (``what`` before it: "alpha")."""
    shown = f"{what} {str(value).strip()!r}" if what else repr(str(value).strip())
    if isinstance(value, bool):
        raise bad(f"{shown} is not a number")
    try:
        x = float(value)
    except (TypeError, ValueError):
        raise bad(f"{shown} is not a number") from None
    if not math.isfinite(x):
        raise bad(f"{shown} is not a finite number")
    below = low is not None and (x < low or (low_open and x == low))
    above = high is not None and (x > high or (high_open and x == high))
    if below or above:
        raise bad(f"{shown} must be {range_text(low, high, low_open, high_open)}")
    return x + 0.0  # -0 is 0


@dataclass(frozen=True)
class Real:
    """A float option: finite, and in [min, max] (ends open or closed, either
    may be None) by :func:`real`."""

    min: float | None = None
    max: float | None = None
    min_open: bool = False
    max_open: bool = False

    name = "float"

    def convert(self, value: Any) -> float:
        return real(value, self.min, self.max, low_open=self.min_open, high_open=self.max_open)

    def __repr__(self) -> str:
        return f"Real({range_text(self.min, self.max, self.min_open, self.max_open)})"


@dataclass(frozen=True)
class IntRange:
    """A whole number, at least ``min`` and at most ``max`` (None: no bound)."""

    min: int | None = None
    max: int | None = None

    name = "integer"

    def convert(self, value: Any) -> int:
        if isinstance(value, bool):
            raise bad(f"{value!r} is not a valid integer.")
        if isinstance(value, int):
            n = value
        else:
            try:
                n = int(str(value).strip())
            except ValueError:
                raise bad(f"{str(value)!r} is not a valid integer.") from None
        if (self.min is not None and n < self.min) or (self.max is not None and n > self.max):
            raise bad(f"{n} is not in the range {self.range()}.")
        return n

    def range(self) -> str:
        low = "" if self.min is None else f"{self.min}<="
        high = "" if self.max is None else f"<={self.max}"
        return f"{low}x{high}"


@dataclass(frozen=True)
class Choice:
    """One of a few words."""

    choices: tuple[str, ...]

    name = "choice"

    def __init__(self, choices: Sequence[str]):
        object.__setattr__(self, "choices", tuple(choices))

    def convert(self, value: Any) -> str:
        if not isinstance(value, str) or value not in self.choices:
            shown = ", ".join(map(repr, self.choices))
            raise bad(f"{value!r} is not one of {shown}.")
        return value


#: -M N above this is no cut (no ranking holds 2**62 documents); N is kept
#: below it so that it compares with int64 ranks.
MAX_DOCS = 2**62


@dataclass(frozen=True)
class DocCount:
    """A number of documents: a positive integer, written as one (1000000) or
    in exponent notation (1e12) as long as it is a whole number. Any size is
    taken: a count beyond every ranking cuts nothing, and nothing is
    allocated by it."""

    name = "N"

    def convert(self, value: Any) -> int:
        if isinstance(value, int) and not isinstance(value, bool):
            n = value
        else:
            text = str(value).strip()
            try:
                n = int(text)
            except ValueError:
                try:
                    from decimal import Decimal, InvalidOperation

                    d = Decimal(text)
                    if not d.is_finite() or d != d.to_integral_value():
                        raise InvalidOperation
                    # a count beyond every ranking cuts nothing: no need to
                    # build a thousand-digit integer from 1e1000
                    n = int(d) if d < MAX_DOCS else MAX_DOCS
                except (InvalidOperation, ValueError):
                    raise bad(f"{value!r} is not a whole number of documents") from None
        if n < 1:
            # no document ranked is not a cut but an empty run: every score 0
            raise bad(f"{n} is not a number of documents to keep: expected 1 or more")
        return min(n, MAX_DOCS)


@dataclass(frozen=True)
class Integer:
    """Any whole number (click's INT)."""

    name = "integer"

    def convert(self, value: Any) -> int:
        return IntRange().convert(value)


@dataclass(frozen=True)
class Parsed:
    """A value read by ``parse`` (the text as typed, or the tuple of a
    repeatable option), after the option's kind if it has one."""

    parse: Callable[[Any], Any]

    def __call__(self, value: Any) -> Any:
        return self.parse(value)


def parsed_by(parse: Callable[[Any], Any]) -> Parsed:
    return Parsed(parse)
