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
  A name that is no run's is resolved by :func:`bvtest_cli.io.runnames.resolve_run`
  (``pircRBa1`` for ``input.pircRBa1``, or a run tag), with a note.

Two gates on the mean are decided by a one-sided paired test over the topics
(``--test`` randomization or t, at α = ``--significance``) instead of by the
two means alone, so that noise neither passes nor fails a run:

- ``MEASURE:mean>=RUN~DELTA`` (non-inferiority) passes when the test rejects
  "the new run is worse than RUN by DELTA or more" (H0: mean difference ≤ −DELTA);
- ``MEASURE:mean>>RUN`` (superiority) passes when it rejects "the new run is
  no better" (H0: mean difference ≤ 0).

Each prints the test's one-sided (1 − α) lower confidence bound of the mean
difference, which passes exactly when it is above −DELTA (or 0), the
difference and the one-sided p. Differences that do not vary (a copy of RUN,
or a constant shift) have the bound the difference itself: a copy passes
``~DELTA`` for any DELTA > 0 and fails ``>>``.

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
from typing import TYPE_CHECKING, Any

import numpy as np

from ...defaults import MAX_ALPHA
from ...errors import InputError, UsageError
from ...io.sources import Inputs
from ...measures.matrix import ScoreMatrix
from ...report import registry
from ...report.model import Records, Report, Table, section
from ...report.values import fmt, plain

if TYPE_CHECKING:
    from .params import CheckParams

OPERATORS: tuple[str, ...] = ("<=", "<", ">=", ">")

#: The tests a test gate (RUN~DELTA, >> RUN) can be decided by: those with a
#: one-sided version and a lower confidence bound that agrees with it.
GATE_TESTS: tuple[str, ...] = ("randomization", "t")

#: How a test gate reads, by its operator.
TEST_GATES = {">=": "non-inferiority", ">>": "superiority"}

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
    # a test gate: DELTA of RUN~DELTA (0 for >> RUN), and DELTA as written
    margin: float | None = None
    margin_text: str | None = None

    @property
    def tested(self) -> bool:
        """Whether a paired test decides the gate (RUN~DELTA or >> RUN)."""
        return self.margin is not None

    @property
    def threshold_text(self) -> str:
        """What a test gate's bound must exceed: −DELTA, or 0."""
        if self.margin is None or self.margin == 0 or self.margin_text is None:
            return "0"
        return f"-{self.margin_text}"

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
    # a test gate: the mean difference, its one-sided p, the test, the pool
    # run's mean and the topics tested; ``bound`` is the test's lower bound
    diff: float | None = None
    p: float | None = None
    test: str | None = None
    reference: float | None = None
    topics: int | None = None
    alpha: float | None = None

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
    if shown[start : start + 2] == ">>":
        op = ">>"
    else:
        op = shown[start : start + 2] if shown[start + 1 : start + 2] == "=" else shown[start]
    lhs = shown[:start].strip()
    right_text = shown[start + len(op) :].strip()
    # Catch '=<', '==', '!=', '<<', '<>', '<==' and the like rather than letting
    # the stray character end up in the field or the run name.
    if lhs.endswith(("=", "!")) or right_text.startswith(("=", "<", ">", "!")):
        raise GateError(
            f"{where}: bad operator; use one of {', '.join(OPERATORS)} (or >=RUN~DELTA, >>RUN)"
        )
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

    margin, margin_text, right_text = _margin(where, op, right_text)
    number = _parse_number(right_text)
    if margin is not None:
        form = "RUN~DELTA" if op == ">=" else ">> RUN"
        if number is not None:
            raise GateError(
                f"{where}: {form} tests against a pool run, not a number; "
                f"write {lhs}{'>=' if op == '>>' else '>'}{right_text} to compare with a number"
            )
        if field != "mean" or dot or at:
            raise GateError(f"{where}: a test gate ({form}) is on the mean: {measure}:mean")
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
        margin=margin,
        margin_text=margin_text,
    )


def _margin(where: str, op: str, right_text: str) -> tuple[float | None, str | None, str]:
    """A test gate's DELTA (``RUN~DELTA`` after ``>=``; 0 for ``>> RUN``), DELTA
    as written, and RIGHT without it."""
    if "~" not in right_text:
        return (0.0, None, right_text) if op == ">>" else (None, None, right_text)
    if op == ">>":
        raise GateError(
            f"{where}: '>>' (superiority) takes no ~DELTA; for a margin use >=RUN~DELTA"
        )
    if op != ">=":
        raise GateError(f"{where}: ~DELTA (non-inferiority) goes with '>=', not {op!r}")
    run, _, text = right_text.rpartition("~")
    run, text = run.strip(), text.strip()
    if not run:
        raise GateError(f"{where}: missing pool run before '~'")
    if not text:
        raise GateError(f"{where}: '~' needs the margin DELTA after it, e.g. {run}~0.01")
    try:
        value = float(text)
    except ValueError:
        raise GateError(f"{where}: margin {text!r} is not a number") from None
    if not math.isfinite(value):
        raise GateError(f"{where}: margin {text!r} is not a finite number")
    if value < 0:
        raise GateError(
            f"{where}: margin {text!r} is negative; DELTA ≥ 0 is how much worse than {run} "
            "the new run may be"
        )
    return value + 0.0, text, run  # + 0.0: -0 is 0


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
    systems = blocks[gate.measure].get(registry.SYSTEMS)
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
    if gate.tested:
        return _tested_fields(verdict, digits)
    if verdict.bound_run is None:
        bound = gate.right_text
    else:
        bound = f"{_fmt(verdict.bound, digits)} ({verdict.bound_run})"
    status = "PASS" if verdict.passed else "FAIL"
    comparison = f"{_fmt(verdict.value, digits)} {gate.op} {bound}"
    if not verdict.passed:
        comparison += " is false"
    return status, gate.text, verdict.run, comparison


def _tested_fields(verdict: Verdict, digits: int) -> tuple[str, ...]:
    """A test gate's line: ``bound > -DELTA (…)``, the bound the one-sided
    (1 − α) lower confidence bound of the mean difference, then the
    difference, the pool run, p and the test."""
    gate = verdict.gate
    status = "PASS" if verdict.passed else "FAIL"
    level = f"{100 * (1 - (verdict.alpha or 0.0)):g}%"
    comparison = (
        f"{_fmt(verdict.bound, digits)} > {gate.threshold_text} ({level} lower bound of "
        f"diff {_fmt(verdict.diff, digits)} vs {verdict.bound_run}, one-sided p "
        f"{_fmt(verdict.p, digits)}, {verdict.test} test, {verdict.topics} topics)"
    )
    if not verdict.passed:
        comparison += " is false"
    return status, gate.text, verdict.run, comparison


def verdict_dict(verdict: Verdict) -> dict[str, Any]:
    """One verdict as the JSON object of ``bvtest check --format json``; a
    test gate's also has the difference, p, the test, the margin, the pool
    run's mean (``reference``) and the topics."""
    out = {
        "gate": verdict.gate.text,
        "run": verdict.run,
        "value": plain(verdict.value),
        "bound": plain(verdict.bound),
        "bound_run": verdict.bound_run,
        registry.CHECK_PASSED: verdict.passed,
    }
    if verdict.gate.tested:
        out.update(
            kind=TEST_GATES[verdict.gate.op],
            diff=plain(verdict.diff),
            p=plain(verdict.p),
            test=verdict.test,
            significance=verdict.alpha,
            margin=verdict.gate.margin,
            reference=plain(verdict.reference),
            topics=verdict.topics,
        )
    return out


def evaluate_test_gate(
    gate: Gate, m: ScoreMatrix, run: str, test: str, alpha: float, seed: int
) -> tuple[Verdict, list[str]]:
    """A test gate (RUN~DELTA or >> RUN) for ``run`` on the matrix of its
    measure: the one-sided paired ``test`` of H0: mean(run − RUN) ≤ −DELTA
    over the topics where both have a finite score, and notes on what left
    the gate undecidable."""
    from ...analyses.significance import one_sided_randomization, one_sided_t

    assert isinstance(gate.right, str) and gate.margin is not None
    where = f"gate {gate.text!r}"
    a = m.values[m.systems.index(run)]
    b = m.values[m.systems.index(gate.right)]
    shared = np.isfinite(a) & np.isfinite(b)
    notes = []
    if not shared.all():
        notes.append(
            f"{where}: {run}: {int((~shared).sum())} topic(s) without a finite score in both "
            f"runs left out of the test"
        )
    d = a[shared] - b[shared]
    n = len(d)
    margin = -gate.margin
    if test == "t":
        result = one_sided_t(d, margin, alpha)
    else:
        result = one_sided_randomization(d, margin, alpha, seed=seed)
    bound = result.bound if math.isfinite(result.bound) else None
    if n < 2 and test == "t":
        notes.append(f"{where}: {run}: the t test needs at least 2 topics, got {n}: it fails")
    elif bound is None and test == "randomization":
        notes.append(
            f"{where}: {run}: on {n} topic(s) the randomization test's smallest p, 1/{1 << n}, "
            f"is above --significance {alpha:g}: no run can pass (bound null)"
        )
    verdict = Verdict(
        gate=gate,
        run=run,
        value=float(a[shared].mean()) if n else None,
        bound=bound,
        passed=bool(result.rejected) and bound is not None,
        diff=result.diff if math.isfinite(result.diff) else None,
        p=result.p if math.isfinite(result.p) else None,
        test=test,
        reference=float(b[shared].mean()) if n else None,
        topics=n,
        alpha=alpha,
    )
    return verdict, notes


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


def plan(p: CheckParams) -> tuple[list[Gate], tuple[str, ...]]:
    """Gates with their measure in canonical form, and the measures to evaluate:
    those the gates name (in order), or -m's, which must then include them.
    Checked before anything is read."""
    from ...measures.names import parse_measures

    try:
        gates = [parse_gate(text) for text in p.gates]
    except GateError as exc:
        raise InputError(str(exc)) from None
    canonical = []
    for gate in gates:
        try:
            specs = parse_measures([gate.measure], p.rel_level)
        except InputError as exc:
            raise InputError(f"gate {gate.text!r}: {exc.message}") from None
        if len(specs) != 1:
            raise InputError(f"gate {gate.text!r}: name one measure before ':'")
        if registry.system_field(gate.field).baseline and p.baseline is None:
            raise InputError(f"gate {gate.text!r}: field {gate.field!r} needs --baseline RUN")
        if gate.end is not None and p.ci is None:
            raise InputError(f"gate {gate.text!r}: {gate.field}.{gate.end} needs --ci LEVEL")
        if gate.tested:
            _check_test_gate(gate, specs[0].name, p)
        canonical.append(replace(gate, measure=specs[0].name))
    if not any(g.tested for g in canonical):
        # --test and --significance decide test gates alone; elsewhere they would be ignored
        defaults = type(p)  # the options' defaults: what was not typed
        for flag, value, default in (
            ("--test", p.test, defaults.test),
            ("--significance", p.significance, defaults.significance),
        ):
            if value != default:
                raise InputError(
                    f"{flag} decides test gates (>=RUN~DELTA, >>RUN) only; no gate is one"
                )
    named = tuple(dict.fromkeys(g.measure for g in canonical))
    if not p.measures:
        return canonical, named
    wanted = tuple(spec.name for spec in parse_measures(p.measures, p.rel_level))
    for gate in canonical:
        if gate.measure not in wanted:
            raise InputError(
                f"gate {gate.text!r}: measure {gate.measure!r} is not among "
                f"-m ({', '.join(wanted)})"
            )
    return canonical, wanted


def _check_test_gate(gate: Gate, measure: str, p: CheckParams) -> None:
    """What a test gate needs beyond its syntax: a test with a one-sided
    version, scores as eval's mean averages them, a margin a difference of
    the measure can reach."""
    from ...measures.names import unit_range

    where = f"gate {gate.text!r}"
    if p.test not in GATE_TESTS:
        raise InputError(
            f"{where}: --test {p.test} has no one-sided bound here; use {' or '.join(GATE_TESTS)}"
        )
    if p.group is not None or p.normalize != "none":
        flag = "--group" if p.group is not None else "--normalize"
        raise InputError(f"{where}: a test gate tests the per-topic scores; not with {flag}")
    if gate.margin is not None and gate.margin >= 1 and unit_range(measure):
        raise InputError(
            f"{where}: margin {gate.margin_text} admits every run: a difference of {measure} "
            "lies in [-1, 1], so DELTA must be below 1"
        )


def build(inputs: Inputs, p: CheckParams) -> Report:
    """``bvtest check``: evaluate POOL + NEW_RUNs together, then every gate for
    every new run. Gates, names and the baseline are checked before anything
    is evaluated."""
    from ...measures.evaluate import Evaluation
    from ...sections.inputs import load, topic_rule
    from ...sections.matrix import Analysis, eval_report

    gates, measures = plan(p)
    if inputs.scores is not None:
        pool_names, new_list = _scores_names(inputs, p)
    else:
        pool_names, new_list = _run_names(inputs, p)
    new_names = set(new_list)
    shown = ", ".join(sorted(pool_names)[:8]) + (", ..." if len(pool_names) > 8 else "")
    gates, p, name_notes = _resolved(gates, inputs, p, pool_names, new_list)
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
    if p.baseline is not None and p.baseline not in pool_names:
        raise InputError(f"baseline {p.baseline!r} is not a pool run (pool: {shown})", "--baseline")

    # pool and new runs evaluated together, as one eval of them all
    if inputs.scores is None:
        assert inputs.qrels is not None and inputs.pool is not None  # checked by _run_names
        together = Inputs(qrels=inputs.qrels, runs=(inputs.pool, *inputs.new_runs))
    else:
        together = Inputs(scores=inputs.scores)
    e = replace(Evaluation.of(p), measures=measures)
    a = Analysis.of(p, alphas=p.alphas + missing_alphas(gates, p.alphas))
    matrices, notes = load(together, e)
    report = eval_report(matrices, a, e, topic_rule(together, e)).prefixed([*name_notes, *notes])
    by_measure = {m.measure: m for m in matrices}
    verdicts = []
    test_notes: list[str] = []
    try:
        for gate in gates:
            for name in new_list:
                if gate.tested:
                    if gate.measure not in by_measure:
                        raise GateError(f"gate {gate.text!r}: unknown measure {gate.measure!r}")
                    verdict, more = evaluate_test_gate(
                        gate, by_measure[gate.measure], name, p.test, p.significance, p.seed
                    )
                    verdicts.append(verdict)
                    test_notes += more
                else:
                    verdicts.append(evaluate_gate(gate, report, name, set(pool_names)))
    except GateError as exc:
        raise InputError(str(exc)) from None
    passed = all(v.passed for v in verdicts)
    body = section(
        (registry.CHECK_VERDICTS, Records(tuple(verdicts), verdict_dict, verdict_fields)),
        (registry.CHECK_PASSED, passed),
    )
    report_notes = (*report.notes, *test_notes)
    if not passed:
        failed = sum(not v.passed for v in verdicts)
        report_notes += (f"{failed} of {len(verdicts)} gate verdict(s) failed",)
    return Report(body, notes=report_notes, status=0 if passed else 1)


def _resolved(
    gates: list[Gate],
    inputs: Inputs,
    p: CheckParams,
    pool_names: dict[str, str],
    new_list: list[str],
) -> tuple[list[Gate], CheckParams, list[str]]:
    """The gates and --baseline with every run name that is no run's resolved
    (:func:`~bvtest_cli.io.runnames.resolve_run`: without TREC's ``input.``
    prefix, or a run tag), and a note for each name taken as another."""
    from ...io.runnames import file_tags, resolve_run

    systems = [*pool_names, *new_list]
    tags = None
    if inputs.scores is None and inputs.pool is not None:
        tags = file_tags([inputs.pool, *inputs.new_runs])
    notes: list[str] = []
    out = []
    for gate in gates:
        if isinstance(gate.right, str) and gate.right not in systems:
            name, note = resolve_run(
                gate.right,
                systems,
                None,
                tags,
                unknown=f"gate {gate.text!r}: {gate.right!r} is neither a number nor a pool run",
                context=f"gate {gate.text!r}",
            )
            if note is not None and note not in notes:
                notes.append(note)
            gate = replace(gate, right=name)
        out.append(gate)
    if p.baseline is not None and p.baseline not in systems:
        name, note = resolve_run(
            p.baseline,
            systems,
            "--baseline",
            tags,
            unknown=f"baseline {p.baseline!r} is not a pool run",
        )
        if note is not None and note not in notes:
            notes.append(note)
        p = p.changed(baseline=name)
    return out, p, notes


def _run_names(inputs: Inputs, p: CheckParams) -> tuple[dict[str, str], list[str]]:
    """QRELS POOL NEW_RUN...: pool name → label, new run names (in order)."""
    from ...io.sources import expand_sources
    from ...io.trec import tagged_sources

    if p.new_names:
        raise InputError("--new names systems of a scores file; give --scores FILE", "--new")
    if inputs.qrels is None or inputs.pool is None or not inputs.new_runs:
        raise UsageError("expected QRELS POOL NEW_RUN... (or --scores FILE --new NAME...)")
    pool_sources = expand_sources([inputs.pool])
    new_sources = expand_sources(inputs.new_runs)
    if p.name != "file":
        auto = p.name == "auto" and all(
            src.name.startswith("input.") for src in (*pool_sources, *new_sources)
        )
        if p.name == "tag" or auto:
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


def _scores_names(inputs: Inputs, p: CheckParams) -> tuple[dict[str, str], list[str]]:
    """--scores FILE --new NAME...: every system of the file not named by --new
    is the pool. The file is read here once more, only for its system names."""

    from ...io.sources import STDIN
    from ...measures.scores_file import read_scores

    if inputs.qrels is not None or inputs.pool is not None or inputs.new_runs:
        raise UsageError("give either --scores FILE --new NAME... or QRELS POOL NEW_RUN...")
    if not p.new_names:
        raise UsageError("with --scores, name the systems to gate with --new NAME")
    assert inputs.scores is not None  # the caller's choice of this path
    if inputs.scores == STDIN:
        raise InputError("check --scores needs a file: standard input cannot be read twice")
    systems: list[str] = []
    for m in read_scores(inputs.scores):
        systems += [name for name in m.systems if name not in systems]
    label = inputs.scores
    for name in p.new_names:
        if name not in systems:
            shown = ", ".join(systems[:8]) + (", ..." if len(systems) > 8 else "")
            raise InputError(f"--new {name!r} is not a system of the scores file ({shown})", label)
    new_list = list(dict.fromkeys(p.new_names))
    pool = {name: name for name in systems if name not in new_list}
    if not pool:
        raise InputError("every system of the scores file is --new; the pool is empty", label)
    return pool, new_list
