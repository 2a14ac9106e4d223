"""The values of options: each parser turns what was typed into a Settings
value, or a one-line usage error. Imports only the foundation and click."""

from __future__ import annotations

import math
import re
from collections.abc import Callable, Sequence
from typing import Any

import click

from ..defaults import (
    BUDGET_METHODS,
    MAX_ALPHA,
)


def _bad(message: str) -> click.BadParameter:
    return click.BadParameter(message)


def parsed_by(parse: Callable[[Any], Any]) -> Callable[[click.Context, click.Parameter, Any], Any]:
    def callback(ctx: click.Context, param: click.Parameter, value: Any) -> Any:
        return parse(value)

    callback.parse = parse  # type: ignore[attr-defined]  # which parser: tests find the float ones
    return callback


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
    try:
        x = float(value)
    except (TypeError, ValueError):
        raise _bad(f"{shown} is not a number") from None
    if not math.isfinite(x):
        raise _bad(f"{shown} is not a finite number")
    below = low is not None and (x < low or (low_open and x == low))
    above = high is not None and (x > high or (high_open and x == high))
    if below or above:
        raise _bad(f"{shown} must be {range_text(low, high, low_open, high_open)}")
    return x + 0.0  # -0 is 0


class Real(click.FloatRange):
    """A float option: finite, and in [min, max] (ends open or closed, either
    may be None) by :func:`real`. A FloatRange, so --help shows the range."""

    name = "float"

    def convert(self, value: Any, param: click.Parameter | None, ctx: click.Context | None) -> Any:
        try:
            return real(value, self.min, self.max, low_open=self.min_open,
                        high_open=self.max_open)  # fmt: skip
        except click.BadParameter as exc:
            self.fail(exc.message, param, ctx)

    def __repr__(self) -> str:
        return f"Real({self._describe_range()})"


#: A probability strictly between 0 and 1: a level, α, β, a reliability.
PROBABILITY = Real(0.0, 1.0, min_open=True, max_open=True)


def parse_target(value: str | float) -> str | float:
    if value in ("max", "ideal"):
        return value
    try:
        return real(value, 0.0, 1.0)
    except click.BadParameter as exc:
        if "is not a number" in exc.message:
            raise _bad(f"{value!r}: expected max, ideal or a number in [0, 1]") from None
        raise


MAX_GROUP_SIZE = 2**31 - 1


def parse_group(value: str | None) -> tuple[str, int] | None:
    """``difficulty:K`` / ``random:K`` → (kind, K); None or ``none`` → None."""
    from ..analyses.grouping import parse_group as parse

    try:
        group = parse(value)
    except ValueError as exc:
        raise _bad(str(exc)) from None
    if group is not None and group[1] > MAX_GROUP_SIZE:
        # numpy's integers end at 2**63 − 1; no topic set comes near it
        raise _bad(f"invalid group {value!r}: K must be at most {MAX_GROUP_SIZE}, got {group[1]}")
    return group


#: What `compare --fields` may name, in the order rows print.
COMPARE_FIELDS = ("mean", "var", "mse", "georisk")


def parse_compare_fields(text: str | None) -> tuple[str, ...] | None:
    """``mean,var`` → ("mean", "var") in COMPARE_FIELDS order; None when not given."""
    if text is None:
        return None
    names = [t.strip() for t in text.split(",")]
    unknown = [n for n in names if n not in COMPARE_FIELDS]
    if unknown or not any(names):
        raise _bad(
            f"unknown field {unknown[0] if unknown else text!r} (choose from "
            f"{', '.join(COMPARE_FIELDS)})"
        )
    return tuple(f for f in COMPARE_FIELDS if f in names)


def parse_alphas(text: str, *, negative: bool = False) -> tuple[str, ...]:
    """``0,1,5,10`` → ("0", "1", "5", "10"): keys stay as written (docs/formats.md).
    Two alphas that are the same number are an error, however written."""
    alphas = tuple(a.strip() for a in text.split(","))
    if not any(alphas):
        raise _bad("empty alpha list")
    if not all(alphas):
        raise _bad(f"empty item in the alpha list {text!r}")
    seen: dict[float, str] = {}
    for a in alphas:
        value = real(a, -MAX_ALPHA if negative else 0.0, MAX_ALPHA, what="alpha")
        if value in seen:
            raise _bad(f"alpha {a!r} is listed twice (as {seen[value]!r})")
        seen[value] = a
    return alphas


def parse_variation_alphas(text: str) -> tuple[str, ...]:
    from ..analyses.variations import parse_alphas as parse_grid

    for part in re.split("[,:]", str(text)):
        if part.strip():
            real(part, what="alpha")  # the grid's own checks follow
    try:
        return parse_grid(text)
    except ValueError as exc:
        raise _bad(str(exc)) from None


def parse_baseline(value: str | None) -> str | None:
    """A run name, or the path of a run file as typed (``sample_runs/sys003``,
    ``runs/x.run.gz``): both name the system by the rule of docs/inputs.md."""
    if value is None:
        return None
    if not value.strip():
        raise _bad("expected a run name or the path of a run file")
    from ..io.sources import system_name

    return system_name(value)


def parse_pattern(value: str | None) -> str | None:
    """A regular expression with named groups ``system`` and ``condition``."""
    if value is None:
        return None
    import re

    try:
        compiled = re.compile(value)
    except re.error as exc:
        raise _bad(f"not a regular expression: {exc}") from None
    missing = [g for g in ("system", "condition") if g not in compiled.groupindex]
    if missing:
        raise _bad(f"needs the named group(s) {', '.join(f'(?P<{g}>...)' for g in missing)}")
    return value


def parse_collection(value: str) -> tuple[str, tuple[str, ...]]:
    """``NAME=FILE[,FILE...]`` → (NAME, files); a bare ``FILE`` → (its file
    name, (FILE,)). The text is NAME=... when it has a ``=`` and no ``/``
    before it, so ``./a=b.qrels`` is the file ``a=b.qrels``."""
    from ..io.sources import system_name

    name, sep, rest = value.partition("=")
    if not sep or "/" in name:
        if not value.strip():
            raise _bad("expected [NAME=]FILE[,FILE...], got an empty value")
        return system_name(value), (value,)
    name = name.strip()
    if not name:
        raise _bad(f"{value!r}: no collection name before '=' (expected NAME=FILE[,FILE...])")
    files = tuple(f.strip() for f in rest.split(","))
    if not rest.strip() or not all(files):
        raise _bad(f"{value!r}: a qrels file is missing after '=' (expected NAME=FILE[,FILE...])")
    return name, files


def _named_once(parsed: tuple[tuple[str, Any], ...], what: str) -> tuple[tuple[str, Any], ...]:
    """(NAME, ...) items of a repeatable NAME=FILE option, each name once."""
    seen: set[str] = set()
    for name, _ in parsed:
        if name in seen:
            raise _bad(f"{what} name {name!r} is given twice; name them: NAME=FILE")
        seen.add(name)
    return parsed


def parse_collections(values: tuple[str, ...]) -> tuple[tuple[str, tuple[str, ...]], ...]:
    return _named_once(tuple(parse_collection(v) for v in values), "collection")


def parse_reference(value: str) -> tuple[str, tuple[str, ...]]:
    name, files = parse_collection(value)
    if len(files) != 1:
        raise _bad(f"{value!r}: the reference is one qrels file")
    return name, files


def parse_positive_list(value: str | tuple[int, ...] | None) -> tuple[int, ...]:
    """``100,400`` → (100, 400): positive integers, each once, in the order
    given; () when not given (a command without a default)."""
    if value is None:
        return ()
    parts = value if isinstance(value, (list, tuple)) else str(value).split(",")
    try:
        numbers = tuple(v if isinstance(v, int) else int(str(v).strip()) for v in parts)
    except ValueError:
        raise _bad(f"{value!r}: expected positive integers, comma-separated") from None
    if not numbers or min(numbers) < 1:
        raise _bad(f"{value!r}: expected positive integers, comma-separated")
    if len(set(numbers)) != len(numbers):
        raise _bad(f"{value!r}: a value is given twice")
    return numbers


def parse_positive_floats(value: str | tuple[float, ...] | None) -> tuple[float, ...]:
    """``0.05,0.1`` → (0.05, 0.1): finite positive numbers, each once, in order."""
    parts: Sequence[Any] = value if isinstance(value, (list, tuple)) else str(value).split(",")
    if not any(str(v).strip() for v in parts):
        raise _bad(f"{value!r}: expected positive numbers, comma-separated")
    numbers = tuple(real(v, 0.0, low_open=True) for v in parts)
    if len(set(numbers)) != len(numbers):
        raise _bad(f"{value!r}: a value is given twice")
    return numbers


def parse_methods(value: str | tuple[str, ...]) -> tuple[str, ...]:
    """``depth,hedge`` → ("depth", "hedge"), each one of :data:`BUDGET_METHODS`."""
    parts = value if isinstance(value, (list, tuple)) else str(value).split(",")
    names = tuple(str(v).strip() for v in parts)
    unknown = [n for n in names if n not in BUDGET_METHODS]
    if unknown or not names:
        raise _bad(
            f"unknown method {unknown[0] if unknown else ''!r}; known: {', '.join(BUDGET_METHODS)}"
        )
    if len(set(names)) != len(names):
        raise _bad(f"{value!r}: a method is given twice")
    return names


def parse_pair(value: tuple[tuple[str, str], ...]) -> tuple[tuple[str, str], ...]:
    """``--pair A B`` (repeatable): run names or paths, as ``--baseline``."""
    return tuple((parse_baseline(a) or a, parse_baseline(b) or b) for a, b in value)


# --------------------------------------------------------------------------- judges


def parse_judge(value: str) -> tuple[str, str]:
    """``NAME=FILE`` or ``NAME=sim:FILE.json`` → (NAME, FILE or "sim:FILE");
    a bare ``FILE`` is named after its file name."""
    from ..io.sources import system_name

    name, sep, rest = value.partition("=")
    if not sep or "/" in name:
        if not value.strip():
            raise _bad("expected NAME=FILE (or NAME=sim:CONFUSION.json), got an empty value")
        return system_name(value.removeprefix("sim:")), value
    name, rest = name.strip(), rest.strip()
    if not name:
        raise _bad(f"{value!r}: no judge name before '=' (expected NAME=FILE)")
    if not rest or rest == "sim:":
        raise _bad(f"{value!r}: a judgments file is missing after '=' (expected NAME=FILE)")
    return name, rest


def parse_judges(values: tuple[str, ...]) -> tuple[tuple[str, str], ...]:
    return _named_once(tuple(parse_judge(v) for v in values), "judge")


def parse_grade_map(value: str | None) -> tuple[tuple[int, int], ...]:
    """``0=0,1=0,2=1,3=2`` → ((0, 0), (1, 0), (2, 1), (3, 2)): each grade once."""
    if value is None:
        return ()
    pairs: list[tuple[int, int]] = []
    for item in value.split(","):
        old, sep, new = item.partition("=")
        try:
            if not sep:
                raise ValueError
            pair = (int(old.strip()), int(new.strip()))
        except ValueError:
            raise _bad(
                f"{item.strip()!r}: expected GRADE=GRADE (integers), e.g. 0=0,1=0,2=1"
            ) from None
        if pair[0] in dict(pairs):
            raise _bad(f"grade {pair[0]} is mapped twice")
        pairs.append(pair)
    return tuple(pairs)


# --------------------------------------------------------------------------- counts of documents


#: -M N above this is no cut (no ranking holds 2**62 documents); N is kept
#: below it so that it compares with int64 ranks.
MAX_DOCS = 2**62


class DocCount(click.ParamType):
    """A number of documents: a positive integer, written as one (1000000) or
    in exponent notation (1e12) as long as it is a whole number. Any size is
    taken: a count beyond every ranking cuts nothing, and nothing is
    allocated by it."""

    name = "N"

    def convert(self, value: Any, param: click.Parameter | None, ctx: click.Context | None) -> int:
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
                    self.fail(f"{value!r} is not a whole number of documents", param, ctx)
        if n < 1:
            # no document ranked is not a cut but an empty run: every score 0
            self.fail(f"{n} is not a number of documents to keep: expected 1 or more", param, ctx)
        return min(n, MAX_DOCS)
