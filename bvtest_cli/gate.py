"""CI gates of ``bvtest check`` (SPEC §12): parse, evaluate and print one gate.

A gate is ``MEASURE:FIELD[@ALPHA] OP RIGHT``, for example ``AP:mse<=0.06``,
``nDCG@10:mse<=bm25.run`` or ``ERR@20:georisk@5>=bm25.run``:

- MEASURE is a key of the result's ``"measures"`` (an ir_measures string, which
  may itself contain ``@``, ``(``, ``=`` and ``,``, e.g. ``AP(rel=2)``).
- FIELD is a per-system key of the result; the alpha-indexed fields need
  ``@ALPHA`` (an alpha key as computed, e.g. ``5``) and the scalar ones forbid it.
- OP is one of ``<=``, ``<``, ``>=``, ``>`` (white space around it is allowed).
- RIGHT is a number, or the name of a pool run: the gate then compares with
  that run's value of the same measure, field and alpha. A RIGHT that parses as
  a finite number is always a number, even if a run happens to have that name.

Undefined values: a gate whose value (or whose pool run's bound) is ``null``
FAILS (it is never an error). A gate asserts that the run *is shown* to meet
the bound; an undefined value shows nothing, so CI must not go green on it.
It is not an error either, because errors (exit 2) mean the gate or the input
is wrong, whereas ``null`` is a legitimate outcome of the data (e.g. TRisk with
a zero standard error). The value is printed as ``null``.

This module is pure: no I/O and no click, so the CLI decides how to report.
"""

from __future__ import annotations

import math
import re
from dataclasses import dataclass
from typing import Any

from .decompose import BiasVariance
from .render import number

#: Per-system fields holding one number (SPEC §4–§5).
SCALAR_FIELDS: tuple[str, ...] = BiasVariance.FIELDS
#: Per-system fields holding one number per alpha (SPEC §8).
ALPHA_FIELDS: tuple[str, ...] = (
    "zrisk",
    "georisk",
    "zrisk_target",
    "trisk_mean",
    "urisk",
    "trisk",
    "zrisk_baseline",
)
#: Fields present only when the analysis was run with ``--baseline``.
BASELINE_FIELDS: frozenset[str] = frozenset({"urisk", "trisk", "zrisk_baseline"})

OPERATORS: tuple[str, ...] = ("<=", "<", ">=", ">")

# The LHS never contains '<' or '>' (ir_measures syntax has neither), so the
# first of them starts the operator; '=' cannot be used because measures such as
# AP(rel=2) contain it.
_OP_START = re.compile(r"[<>]")


class GateError(ValueError):
    """A malformed gate, or one that cannot be evaluated on this result.

    The message is one line, meant to be printed after ``bvtest: `` with exit
    status 2.
    """


@dataclass(frozen=True)
class Gate:
    """One parsed gate.

    ``right`` is the bound as a float, or the name of a pool run (a str).
    ``right_text`` is RIGHT exactly as written, so a numeric bound is printed
    as given (``0.06``, not ``0.0600``).
    """

    text: str
    measure: str
    field: str
    alpha: str | None
    op: str
    right: float | str
    right_text: str

    @property
    def lhs(self) -> str:
        """``MEASURE:FIELD[@ALPHA]`` in canonical form."""
        alpha = f"@{self.alpha}" if self.alpha is not None else ""
        return f"{self.measure}:{self.field}{alpha}"


@dataclass(frozen=True)
class Verdict:
    """The outcome of one gate for one run.

    ``value`` is the run's value and ``bound`` the number it is compared with
    (the pool run's value when RIGHT is a run name); either may be ``None``
    (undefined), in which case ``passed`` is False.
    """

    gate: Gate
    run: str
    value: float | None
    bound: float | None
    passed: bool

    @property
    def bound_run(self) -> str | None:
        """The pool run RIGHT names, or None for a numeric bound."""
        return self.gate.right if isinstance(self.gate.right, str) else None


def _parse_number(text: str) -> float | None:
    """A finite float, or None (so 'nan'/'inf' stay possible run names)."""
    try:
        value = float(text)
    except ValueError:
        return None
    return value if math.isfinite(value) else None


def parse_gate(text: str) -> Gate:
    """Parse ``MEASURE:FIELD[@ALPHA] OP RIGHT``; raise GateError if malformed."""
    shown = text.strip()
    if not shown:
        raise GateError("empty gate; expected MEASURE:FIELD[@ALPHA] OP RIGHT, e.g. AP:mse<=0.06")
    where = f"gate {shown!r}"

    match = _OP_START.search(shown)
    if match is None:
        raise GateError(f"{where}: no comparison operator; use one of {', '.join(OPERATORS)}")
    start = match.start()
    op = shown[start : start + 2] if shown[start + 1 : start + 2] == "=" else shown[start]
    lhs = shown[:start].strip()
    right_text = shown[start + len(op) :].strip()
    # Catch '=<', '==', '!=', '<<', '<>', '<==' and the like rather than letting
    # the stray character end up in the field or the run name.
    if lhs.endswith(("=", "!")) or right_text.startswith(("=", "<", ">", "!")):
        raise GateError(f"{where}: bad operator; use one of {', '.join(OPERATORS)}")
    if not lhs:
        raise GateError(f"{where}: missing MEASURE:FIELD before {op!r}")
    if not right_text:
        raise GateError(f"{where}: missing number or run name after {op!r}")

    # Fields never contain ':' but measures might, so split at the last one.
    measure, colon, field_part = lhs.rpartition(":")
    measure, field_part = measure.strip(), field_part.strip()
    if not colon:
        raise GateError(f"{where}: expected MEASURE:FIELD before {op!r} (e.g. AP:mse)")
    if not measure:
        raise GateError(f"{where}: missing measure before ':'")
    if not field_part:
        raise GateError(f"{where}: missing field after '{measure}:'")

    # Fields never contain '@', so the first '@' after the colon starts ALPHA.
    field, at, alpha = field_part.partition("@")
    field, alpha = field.strip(), alpha.strip()
    if field in SCALAR_FIELDS:
        if at:
            raise GateError(f"{where}: field {field!r} takes no @ALPHA (it is not alpha-indexed)")
        alpha_key: str | None = None
    elif field in ALPHA_FIELDS:
        if not at or not alpha:
            raise GateError(f"{where}: field {field!r} needs @ALPHA, e.g. {field}@5")
        number = _parse_number(alpha)
        if number is None or number < 0:
            raise GateError(f"{where}: alpha {alpha!r} is not a non-negative number")
        alpha_key = alpha
    else:
        known = ", ".join(SCALAR_FIELDS + ALPHA_FIELDS)
        raise GateError(f"{where}: unknown field {field!r}; known fields: {known}")

    number = _parse_number(right_text)
    right: float | str = number if number is not None else right_text
    return Gate(
        text=shown,
        measure=measure,
        field=field,
        alpha=alpha_key,
        op=op,
        right=right,
        right_text=right_text,
    )


def _alpha_key(values: dict[str, Any], alpha: str, where: str) -> str:
    """The key of ``values`` for ``alpha``: exact text first, then numeric
    equality, so ``@5.0`` finds a result computed with ``-a 5``."""
    if alpha in values:
        return alpha
    wanted = float(alpha)
    for key in values:
        number = _parse_number(str(key))
        if number is not None and number == wanted:
            return key
    available = ", ".join(str(k) for k in values) or "none"
    raise GateError(f"{where}: alpha {alpha} was not computed (alphas: {available})")


def _lookup(gate: Gate, systems: dict[str, Any], run: str) -> float | None:
    """The run's value for the gate's field (and alpha), or None if null."""
    where = f"gate {gate.text!r}"
    if run not in systems:
        raise GateError(f"{where}: run {run!r} is not in the results for {gate.measure}")
    fields = systems[run]
    if gate.field not in fields:
        hint = " (it needs --baseline)" if gate.field in BASELINE_FIELDS else ""
        raise GateError(f"{where}: field {gate.field!r} was not computed{hint}")
    value = fields[gate.field]
    if gate.alpha is not None:
        if value is None:
            return None
        if not isinstance(value, dict):
            raise GateError(f"{where}: field {gate.field!r} is not alpha-indexed in the result")
        value = value[_alpha_key(value, gate.alpha, where)]
    if value is None:
        return None
    value = float(value)
    # An in-memory result may carry NaN where the JSON would carry null.
    return value if math.isfinite(value) else None


def _compare(value: float, op: str, bound: float) -> bool:
    if op == "<=":
        return value <= bound
    if op == "<":
        return value < bound
    if op == ">=":
        return value >= bound
    return value > bound


def evaluate_gate(gate: Gate, result: dict[str, Any], run: str, pool: set[str]) -> Verdict:
    """Evaluate ``gate`` for ``run`` on a SPEC §12 result dict.

    ``pool`` holds the names of the pool runs a RIGHT may name. Raises
    GateError for an unknown measure, an alpha not computed, a field not
    computed, or a RIGHT that is neither a number nor a pool run. A null value
    or bound gives a failing Verdict (see the module docstring).
    """
    where = f"gate {gate.text!r}"
    measures = result.get("measures") or {}
    if gate.measure not in measures:
        available = ", ".join(measures) or "none"
        raise GateError(f"{where}: unknown measure {gate.measure!r} (measures: {available})")
    systems = measures[gate.measure].get("systems") or {}

    if isinstance(gate.right, str):
        if gate.right not in pool:
            pool_names = ", ".join(sorted(pool)) or "none"
            raise GateError(
                f"{where}: {gate.right!r} is neither a number nor a pool run (pool: {pool_names})"
            )
        bound = _lookup(gate, systems, gate.right)
    else:
        bound = gate.right
    value = _lookup(gate, systems, run)

    passed = value is not None and bound is not None and _compare(value, gate.op, bound)
    return Verdict(gate=gate, run=run, value=value, bound=bound, passed=passed)


def _fmt(value: float | None, digits: int) -> str:
    return number(value, digits, undefined="null")  # no -0.0000, as in every format


def format_verdict(verdict: Verdict, digits: int = 4) -> str:
    """One line: ``PASS|FAIL<TAB>gate<TAB>run<TAB>value OP bound``.

    A numeric bound is printed as written; a run bound as its value followed
    by the run's name, e.g. ``0.0712 <= 0.0650 (bm25.run)``.
    """
    gate = verdict.gate
    if verdict.bound_run is None:
        bound = gate.right_text
    else:
        bound = f"{_fmt(verdict.bound, digits)} ({verdict.bound_run})"
    status = "PASS" if verdict.passed else "FAIL"
    comparison = f"{_fmt(verdict.value, digits)} {gate.op} {bound}"
    return f"{status}\t{gate.text}\t{verdict.run}\t{comparison}"


def verdict_dict(verdict: Verdict) -> dict[str, Any]:
    """One verdict as the JSON object of ``bvtest check --format json``."""
    return {
        "gate": verdict.gate.text,
        "run": verdict.run,
        "value": None if verdict.value is None else verdict.value + 0.0,  # never -0.0
        "bound": None if verdict.bound is None else verdict.bound + 0.0,
        "bound_run": verdict.bound_run,
        "passed": verdict.passed,
    }


def missing_alphas(gates: list[Gate], alphas: tuple[str, ...]) -> tuple[str, ...]:
    """The gates' alphas that ``alphas`` lacks (compared as numbers), in gate
    order, so the CLI can compute them too."""
    have = {float(a) for a in alphas}
    extra: dict[str, None] = {}
    for gate in gates:
        if gate.alpha is not None and float(gate.alpha) not in have:
            have.add(float(gate.alpha))
            extra[gate.alpha] = None
    return tuple(extra)
