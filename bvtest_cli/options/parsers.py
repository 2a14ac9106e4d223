"""The values of options: each parser turns what was typed into a Settings
value, or a one-line usage error (:class:`~bvtest_cli.errors.BadValue`).
Imports only the foundation and the kinds; analyses and io inside parsers."""

from __future__ import annotations

import re
from collections.abc import Sequence
from typing import Any

from ..defaults import (
    BUDGET_METHODS,
    MAX_ALPHA,
)
from ..errors import BadValue
from .kinds import (  # noqa: F401 (re-exported: the option table's kinds)
    MAX_DOCS,
    DocCount,
    Parsed,
    Real,
    bad,
    parsed_by,
    range_text,
    real,
)

#: A probability strictly between 0 and 1: a level, α, β, a reliability.
PROBABILITY = Real(0.0, 1.0, min_open=True, max_open=True)


def parse_target(value: str | float) -> str | float:
    if value in ("max", "ideal"):
        return value
    try:
        return real(value, 0.0, 1.0)
    except BadValue as exc:
        if "is not a number" in exc.message:
            raise bad(f"{value!r}: expected max, ideal or a number in [0, 1]") from None
        raise


MAX_GROUP_SIZE = 2**31 - 1


def parse_group(value: str | None) -> tuple[str, int] | None:
    """``difficulty:K`` / ``random:K`` → (kind, K); None or ``none`` → None."""
    from ..analyses.grouping import parse_group as parse

    try:
        group = parse(value)
    except ValueError as exc:
        raise bad(str(exc)) from None
    if group is not None and group[1] > MAX_GROUP_SIZE:
        # numpy's integers end at 2**63 − 1; no topic set comes near it
        raise bad(f"invalid group {value!r}: K must be at most {MAX_GROUP_SIZE}, got {group[1]}")
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
        raise bad(
            f"unknown field {unknown[0] if unknown else text!r} (choose from "
            f"{', '.join(COMPARE_FIELDS)})"
        )
    return tuple(f for f in COMPARE_FIELDS if f in names)


def parse_alphas(text: str, *, negative: bool = False) -> tuple[str, ...]:
    """``0,1,5,10`` → ("0", "1", "5", "10"): keys stay as written (docs/formats.md).
    Two alphas that are the same number are an error, however written."""
    alphas = tuple(a.strip() for a in text.split(","))
    if not any(alphas):
        raise bad("empty alpha list")
    if not all(alphas):
        raise bad(f"empty item in the alpha list {text!r}")
    seen: dict[float, str] = {}
    for a in alphas:
        value = real(a, -MAX_ALPHA if negative else 0.0, MAX_ALPHA, what="alpha")
        if value in seen:
            raise bad(f"alpha {a!r} is listed twice (as {seen[value]!r})")
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
        raise bad(str(exc)) from None


def parse_baseline(value: str | None) -> str | None:
    """A run name, or the path of a run file as typed (``sample_runs/sys003``,
    ``runs/x.run.gz``): both name the system by the rule of docs/inputs.md."""
    if value is None:
        return None
    if not value.strip():
        raise bad("expected a run name or the path of a run file")
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
        raise bad(f"not a regular expression: {exc}") from None
    missing = [g for g in ("system", "condition") if g not in compiled.groupindex]
    if missing:
        raise bad(f"needs the named group(s) {', '.join(f'(?P<{g}>...)' for g in missing)}")
    return value


def parse_collection(value: str) -> tuple[str, tuple[str, ...]]:
    """``NAME=FILE[,FILE...]`` → (NAME, files); a bare ``FILE`` → (its file
    name, (FILE,)). The text is NAME=... when it has a ``=`` and no ``/``
    before it, so ``./a=b.qrels`` is the file ``a=b.qrels``."""
    from ..io.sources import system_name

    name, sep, rest = value.partition("=")
    if not sep or "/" in name:
        if not value.strip():
            raise bad("expected [NAME=]FILE[,FILE...], got an empty value")
        return system_name(value), (value,)
    name = name.strip()
    if not name:
        raise bad(f"{value!r}: no collection name before '=' (expected NAME=FILE[,FILE...])")
    files = tuple(f.strip() for f in rest.split(","))
    if not rest.strip() or not all(files):
        raise bad(f"{value!r}: a qrels file is missing after '=' (expected NAME=FILE[,FILE...])")
    return name, files


def _named_once(parsed: tuple[tuple[str, Any], ...], what: str) -> tuple[tuple[str, Any], ...]:
    """(NAME, ...) items of a repeatable NAME=FILE option, each name once."""
    seen: set[str] = set()
    for name, _ in parsed:
        if name in seen:
            raise bad(f"{what} name {name!r} is given twice; name them: NAME=FILE")
        seen.add(name)
    return parsed


def parse_collections(values: tuple[str, ...]) -> tuple[tuple[str, tuple[str, ...]], ...]:
    return _named_once(tuple(parse_collection(v) for v in values), "collection")


def parse_reference(value: str) -> tuple[str, tuple[str, ...]]:
    name, files = parse_collection(value)
    if len(files) != 1:
        raise bad(f"{value!r}: the reference is one qrels file")
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
        raise bad(f"{value!r}: expected positive integers, comma-separated") from None
    if not numbers or min(numbers) < 1:
        raise bad(f"{value!r}: expected positive integers, comma-separated")
    if len(set(numbers)) != len(numbers):
        raise bad(f"{value!r}: a value is given twice")
    return numbers


def parse_positive_floats(value: str | tuple[float, ...] | None) -> tuple[float, ...]:
    """``0.05,0.1`` → (0.05, 0.1): finite positive numbers, each once, in order."""
    parts: Sequence[Any] = value if isinstance(value, (list, tuple)) else str(value).split(",")
    if not any(str(v).strip() for v in parts):
        raise bad(f"{value!r}: expected positive numbers, comma-separated")
    numbers = tuple(real(v, 0.0, low_open=True) for v in parts)
    if len(set(numbers)) != len(numbers):
        raise bad(f"{value!r}: a value is given twice")
    return numbers


def parse_methods(value: str | tuple[str, ...]) -> tuple[str, ...]:
    """``depth,hedge`` → ("depth", "hedge"), each one of :data:`BUDGET_METHODS`."""
    parts = value if isinstance(value, (list, tuple)) else str(value).split(",")
    names = tuple(str(v).strip() for v in parts)
    unknown = [n for n in names if n not in BUDGET_METHODS]
    if unknown or not names:
        raise bad(
            f"unknown method {unknown[0] if unknown else ''!r}; known: {', '.join(BUDGET_METHODS)}"
        )
    if len(set(names)) != len(names):
        raise bad(f"{value!r}: a method is given twice")
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
            raise bad("expected NAME=FILE (or NAME=sim:CONFUSION.json), got an empty value")
        return system_name(value.removeprefix("sim:")), value
    name, rest = name.strip(), rest.strip()
    if not name:
        raise bad(f"{value!r}: no judge name before '=' (expected NAME=FILE)")
    if not rest or rest == "sim:":
        raise bad(f"{value!r}: a judgments file is missing after '=' (expected NAME=FILE)")
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
            raise bad(
                f"{item.strip()!r}: expected GRADE=GRADE (integers), e.g. 0=0,1=0,2=1"
            ) from None
        if pair[0] in dict(pairs):
            raise bad(f"grade {pair[0]} is mapped twice")
        pairs.append(pair)
    return tuple(pairs)
