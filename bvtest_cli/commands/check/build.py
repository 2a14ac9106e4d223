"""CI gates of ``bvtest check`` (docs/formats.md): parse, evaluate and print one gate.

A gate is ``MEASURE:FIELD[.END][@ALPHA] OP RIGHT``, for example ``AP:mse<=0.06``,
``nDCG@10:mse<=bm25.run``, ``ERR@20:georisk@5>=bm25.run`` or ``AP:mse.hi<=0.06``:

- MEASURE is a measure of the report (an ir_measures string, which may itself
  contain ``@``, ``(``, ``=`` and ``,``, e.g. ``AP(rel=2)``).
- FIELD is a per-system field of the registry (:mod:`bvtest_cli.report.registry`);
  the alpha-indexed fields need ``@ALPHA`` (e.g. ``5``) and the others forbid it.
- END (``lo`` or ``hi``, with ``--ci``) takes that end of the field's
  bootstrap interval instead of its value; a run bound then takes
  the same end of that run's interval.
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

Parsing and evaluating gates is pure; :func:`check` is the command: it plans
(gates, names, measures: everything checkable before reading a file),
evaluates pool and new runs together and returns the verdicts as a report.
"""

from __future__ import annotations

import math
import re
from dataclasses import dataclass, replace
from typing import Any

import numpy as np

from ...defaults import MAX_ALPHA
from ...errors import InputError
from ...report import registry
from ...report.model import Records, Report, Table, section
from ...report.values import fmt, plain
from ...settings import Settings

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
    end: str | None = None  # "lo" / "hi": an end of the field's --ci interval

    @property
    def lhs(self) -> str:
        """``MEASURE:FIELD[.END][@ALPHA]`` in canonical form."""
        alpha = f"@{self.alpha}" if self.alpha is not None else ""
        end = f".{self.end}" if self.end is not None else ""
        return f"{self.measure}:{self.field}{end}{alpha}"


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
    # Nor '.': FIELD.lo / FIELD.hi is an end of the field's --ci interval.
    field, dot, end_text = field.partition(".")
    field, end_text = field.strip(), end_text.strip()
    if dot and end_text not in ("lo", "hi"):
        raise GateError(
            f"{where}: {field}.{end_text}: expected lo or hi after '.' (an end of the --ci "
            "interval)"
        )
    try:
        declared = registry.system_field(field)
    except KeyError:
        known = ", ".join(f.name for f in registry.SYSTEM_FIELDS)
        raise GateError(f"{where}: unknown field {field!r}; known fields: {known}") from None
    alpha_key: str | None = None
    if not declared.alpha:
        if at:
            raise GateError(f"{where}: field {field!r} takes no @ALPHA (it is not alpha-indexed)")
    else:
        if not at or not alpha:
            raise GateError(f"{where}: field {field!r} needs @ALPHA, e.g. {field}@5")
        number = _parse_number(alpha)
        if number is None or number < 0:
            raise GateError(f"{where}: alpha {alpha!r} is not a non-negative number")
        if number > MAX_ALPHA:
            raise GateError(f"{where}: alpha {alpha!r} is out of range: at most 1e6")
        alpha_key = alpha

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
        end=end_text if dot else None,
    )


def _alpha_key(alphas: tuple[str, ...], alpha: str, where: str) -> str:
    """The computed alpha for ``alpha``: exact text first, then numeric
    equality, so ``@5.0`` finds a result computed with ``--alpha 5``."""
    if alpha in alphas:
        return alpha
    for key in alphas:
        number = _parse_number(key)
        if number is not None and number == float(alpha):
            return key
    available = ", ".join(alphas) or "none"
    raise GateError(f"{where}: alpha {alpha} was not computed (alphas: {available})")


def _lookup(gate: Gate, systems: Table, run: str) -> float | None:
    """The run's value for the gate's field (and alpha), or None if undefined."""
    where = f"gate {gate.text!r}"
    if run not in systems.rows:
        raise GateError(f"{where}: run {run!r} is not in the results for {gate.measure}")
    field = registry.system_field(gate.field)
    if field not in systems.fields:
        hint = " (it needs --baseline)" if field.baseline else ""
        raise GateError(f"{where}: field {gate.field!r} was not computed{hint}")
    alpha = None if gate.alpha is None else _alpha_key(systems.alphas, gate.alpha, where)
    if gate.end is None:
        value = systems.value(run, field, alpha)
    else:
        interval = systems.intervals.get(field.name)
        if interval is None:
            raise GateError(f"{where}: field {gate.field!r} has no interval (it needs --ci LEVEL)")
        cell = np.asarray(interval)[systems.rows.index(run)]
        if alpha is not None:
            cell = cell[systems.alphas.index(alpha)]
        value = float(cell[0 if gate.end == "lo" else 1])
    return value if math.isfinite(value) else None


def _compare(value: float, op: str, bound: float) -> bool:
    if op == "<=":
        return value <= bound
    if op == "<":
        return value < bound
    if op == ">=":
        return value >= bound
    return value > bound


def evaluate_gate(gate: Gate, report: Report, run: str, pool: set[str]) -> Verdict:
    """Evaluate ``gate`` for ``run`` on an ``eval`` report.

    ``pool`` holds the names of the pool runs a RIGHT may name. Raises
    GateError for an unknown measure, an alpha not computed, a field not
    computed, or a RIGHT that is neither a number nor a pool run. A null value
    or bound gives a failing Verdict (see the module docstring).
    """
    where = f"gate {gate.text!r}"
    blocks = dict(report.measure_blocks())
    if gate.measure not in blocks:
        available = ", ".join(blocks) or "none"
        raise GateError(f"{where}: unknown measure {gate.measure!r} (measures: {available})")
    systems = blocks[gate.measure].get("systems")
    assert isinstance(systems, Table)

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
    return "null" if value is None else fmt(value, digits)  # no -0.0000, as in every format


def verdict_fields(verdict: Verdict, digits: int = 4) -> tuple[str, ...]:
    """One line: ``PASS|FAIL<TAB>gate<TAB>run<TAB>value OP bound``, and for
    a FAIL ``value OP bound is false`` (the comparison alone would read as a
    true statement).

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
    if not verdict.passed:
        comparison += " is false"
    return status, gate.text, verdict.run, comparison


def verdict_dict(verdict: Verdict) -> dict[str, Any]:
    """One verdict as the JSON object of ``bvtest check --format json``."""
    return {
        "gate": verdict.gate.text,
        "run": verdict.run,
        "value": plain(verdict.value),
        "bound": plain(verdict.bound),
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


# --------------------------------------------------------------------------- the command


def plan(s: Settings) -> tuple[list[Gate], tuple[str, ...]]:
    """Gates with their measure in canonical form, and the measures to evaluate:
    those the gates name (in order), or -m's, which must then include them.
    Checked before anything is read."""
    from ...measures.names import parse_measures

    try:
        gates = [parse_gate(text) for text in s.gates]
    except GateError as exc:
        raise InputError(str(exc)) from None
    canonical = []
    for gate in gates:
        try:
            specs = parse_measures([gate.measure], s.rel_level)
        except InputError as exc:
            raise InputError(f"gate {gate.text!r}: {exc.message}") from None
        if len(specs) != 1:
            raise InputError(f"gate {gate.text!r}: name one measure before ':'")
        if registry.system_field(gate.field).baseline and s.baseline is None:
            raise InputError(f"gate {gate.text!r}: field {gate.field!r} needs --baseline RUN")
        if gate.end is not None and s.ci is None:
            raise InputError(f"gate {gate.text!r}: {gate.field}.{gate.end} needs --ci LEVEL")
        canonical.append(replace(gate, measure=specs[0].name))
    named = tuple(dict.fromkeys(g.measure for g in canonical))
    if not s.measures:
        return canonical, named
    wanted = tuple(spec.name for spec in parse_measures(s.measures, s.rel_level))
    for gate in canonical:
        if gate.measure not in wanted:
            raise InputError(
                f"gate {gate.text!r}: measure {gate.measure!r} is not among "
                f"-m ({', '.join(wanted)})"
            )
    return canonical, wanted


def build(s: Settings) -> Report:
    """``bvtest check``: evaluate POOL + NEW_RUNs together, then every gate for
    every new run. Gates, names and the baseline are checked before anything
    is evaluated."""
    from ..eval.build import eval_report
    from ..inputs import load

    gates, measures = plan(s)
    if s.scores is not None:
        pool_names, new_list = _scores_names(s)
    else:
        pool_names, new_list = _run_names(s)
    new_names = set(new_list)
    shown = ", ".join(sorted(pool_names)[:8]) + (", ..." if len(pool_names) > 8 else "")
    for gate in gates:
        if isinstance(gate.right, str) and gate.right in new_names:
            raise InputError(
                f"gate {gate.text!r}: {gate.right!r} is a new run, not a pool run; "
                "a bound names a pool run"
            )
        if isinstance(gate.right, str) and gate.right not in pool_names:
            raise InputError(
                f"gate {gate.text!r}: {gate.right!r} is neither a number nor a pool run "
                f"(pool: {shown})"
            )
    if s.baseline is not None and s.baseline not in pool_names:
        raise InputError(f"baseline {s.baseline!r} is not a pool run (pool: {shown})", "--baseline")

    inputs: tuple[str, ...] = ()
    if s.scores is None:
        assert s.qrels is not None and s.pool is not None  # checked by _run_names
        inputs = (s.qrels, s.pool, *s.new_runs)
    settings = replace(
        s,
        inputs=inputs,
        measures=measures,
        alphas=s.alphas + missing_alphas(gates, s.alphas),
    )
    matrices, notes = load(settings)
    report = eval_report(matrices, settings).prefixed(notes)
    try:
        verdicts = [
            evaluate_gate(gate, report, name, set(pool_names))
            for gate in gates
            for name in new_list
        ]
    except GateError as exc:
        raise InputError(str(exc)) from None
    passed = all(v.passed for v in verdicts)
    body = section(
        ("verdicts", Records(tuple(verdicts), verdict_dict, verdict_fields)), ("passed", passed)
    )
    report_notes = report.notes
    if not passed:
        failed = sum(not v.passed for v in verdicts)
        report_notes += (f"{failed} of {len(verdicts)} gate verdict(s) failed",)
    return Report(body, notes=report_notes, status=0 if passed else 1)


def _run_names(s: Settings) -> tuple[dict[str, str], list[str]]:
    """QRELS POOL NEW_RUN...: pool name → label, new run names (in order)."""
    from ...io.sources import expand_sources
    from ...io.trec import tagged_sources

    if s.new_names:
        raise InputError("--new names systems of a scores file; give --scores FILE", "--new")
    if s.qrels is None or s.pool is None or not s.new_runs:
        import click

        raise click.UsageError("expected QRELS POOL NEW_RUN... (or --scores FILE --new NAME...)")
    pool_sources = expand_sources([s.pool])
    new_sources = expand_sources(s.new_runs)
    if s.name == "tag":
        pool_sources, new_sources = tagged_sources(pool_sources), tagged_sources(new_sources)
    pool_names = {src.name: src.label for src in pool_sources}
    for src in new_sources:
        if src.name in pool_names:
            raise InputError(
                f"new run {src.name!r} has the same name as pool run {pool_names[src.name]}; "
                "rename the new run",
                src.label,
            )
    return pool_names, [src.name for src in new_sources]


def _scores_names(s: Settings) -> tuple[dict[str, str], list[str]]:
    """--scores FILE --new NAME...: every system of the file not named by --new
    is the pool. The file is read here once more, only for its system names."""
    import click

    from ...io.sources import STDIN
    from ...measures.scores_file import read_scores

    if s.qrels is not None or s.pool is not None or s.new_runs:
        raise click.UsageError("give either --scores FILE --new NAME... or QRELS POOL NEW_RUN...")
    if not s.new_names:
        raise click.UsageError("with --scores, name the systems to gate with --new NAME")
    assert s.scores is not None  # the caller's choice of this path
    if s.scores == STDIN:
        raise InputError("check --scores needs a file: standard input cannot be read twice")
    systems: list[str] = []
    for m in read_scores(s.scores):
        systems += [name for name in m.systems if name not in systems]
    label = s.scores
    for name in s.new_names:
        if name not in systems:
            shown = ", ".join(systems[:8]) + (", ..." if len(systems) > 8 else "")
            raise InputError(f"--new {name!r} is not a system of the scores file ({shown})", label)
    new_list = list(dict.fromkeys(s.new_names))
    pool = {name: name for name in systems if name not in new_list}
    if not pool:
        raise InputError("every system of the scores file is --new; the pool is empty", label)
    return pool, new_list
