"""Score matrices → the report of SPEC §12 (every analysis of ``bvtest eval``).

The report is a plain nested dict, exactly the JSON document of SPEC §12;
every output format and ``bvtest check`` read it.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass
from typing import Any

import numpy as np

from . import grouping, risk
from .errors import InputError
from .matrix import ScoreMatrix
from .tradeoff import Tradeoff, correlate
from .trecio import Note

DEFAULT_ALPHAS = ("0", "1", "5", "10")

MAX_ALPHA = 1e6  # the messages say 1e6
"""Largest accepted alpha. The papers use 0–20 (seed 004: 0, 1, 5, 10); beyond
1e6 the wins no longer count at all, and (1 + alpha) × a loss would overflow
to inf for alphas near 1e308."""


@dataclass(frozen=True)
class Options:
    """How the analyses are run (the options of ``bvtest eval``)."""

    target: str | float = "max"
    group: str | None = None
    normalize: str = "none"
    repeats: int = grouping.DEFAULT_REPEATS
    seed: int = grouping.DEFAULT_SEED
    alphas: tuple[str, ...] = DEFAULT_ALPHAS
    baseline: str | None = None


def parse_alphas(text: str) -> tuple[str, ...]:
    """``0,1,5,10`` → ("0", "1", "5", "10"); keys stay as written (SPEC §12)."""
    alphas = tuple(a.strip() for a in text.split(",") if a.strip())
    if not alphas:
        raise ValueError("empty alpha list")
    check_alphas(alphas)
    return alphas


def check_alphas(alphas: Sequence[str]) -> None:
    """Every alpha a number in [0, MAX_ALPHA], none listed twice *as a number*
    (``0.5,0.50`` is one alpha written twice, as ``1,1`` is): ValueError if not."""
    seen: dict[float, str] = {}
    for a in alphas:
        try:
            value = float(a)
        except ValueError:
            raise ValueError(f"alpha {a!r} is not a number") from None
        if not 0 <= value <= MAX_ALPHA:  # also rejects nan and inf
            raise ValueError(f"alpha {a!r} is out of range: expected a number in [0, 1e6]")
        if value in seen:
            same = "" if seen[value] == a else f" (as {seen[value]!r})"
            raise ValueError(f"alpha {a!r} is listed twice{same}")
        seen[value] = a


def report(matrices: Sequence[ScoreMatrix], opts: Options, note: Note) -> dict[str, Any]:
    """Run every analysis on every measure's matrix."""
    try:  # alphas may also come from elsewhere than --alpha (a gate's @ALPHA)
        check_alphas(opts.alphas)
    except ValueError as exc:
        raise InputError(str(exc)) from None
    if opts.baseline is not None:
        for m in matrices:
            if opts.baseline not in m.systems:
                raise InputError(
                    f"baseline {opts.baseline!r} is not among the runs "
                    f"({', '.join(m.systems[:5])}{', ...' if len(m.systems) > 5 else ''})",
                    "--baseline",
                )
    return {
        "group": opts.group,
        "normalize": opts.normalize,
        "measures": {m.measure: measure_block(m, opts, note) for m in matrices},
    }


def measure_block(m: ScoreMatrix, opts: Options, note: Note) -> dict[str, Any]:
    """SPEC §4–§8 for one measure: per-system fields and the tradeoff."""
    try:
        analysis = grouping.analyse(
            m,
            group=opts.group,
            normalize=opts.normalize,
            target=opts.target,
            repeats=opts.repeats,
            seed=opts.seed,
        )
    except ValueError as exc:  # e.g. every topic dropped by normalization: a user error
        raise InputError(str(exc)) from None
    for text in analysis.notes:
        note(text)
    bv = analysis.bv
    tradeoff = correlate(bv.bias2, bv.var)
    if tradeoff.reason:
        note(f"{m.measure}: tradeoff correlation undefined: {tradeoff.reason}")

    systems: dict[str, dict[str, Any]] = {
        s: {f: _number(getattr(bv, f)[i]) for f in bv.FIELDS} for i, s in enumerate(m.systems)
    }
    for field, values in risk_fields(analysis.per_topic, opts, note).items():
        for i, s in enumerate(m.systems):
            systems[s][field] = dict(zip(opts.alphas, map(_number, values[i]), strict=True))

    block: dict[str, Any] = {"n_topics": analysis.n_topics}
    if analysis.n_groups is not None:
        block["n_groups"] = analysis.n_groups
    block["c"] = _number(analysis.c)
    block["systems"] = systems
    block["tradeoff"] = tradeoff_dict(tradeoff)
    return block


def _number(value: Any) -> float:
    """A report value: a Python float, never −0.0 (which every format would
    print with a minus sign, as if a zero had a direction)."""
    return float(value) + 0.0


def tradeoff_dict(t: Tradeoff) -> dict[str, float]:
    return {f: _number(getattr(t, f)) for f in t.FIELDS}


def risk_fields(m: ScoreMatrix, opts: Options, note: Note) -> dict[str, np.ndarray]:
    """SPEC §8 on ``m``, the per-topic matrix after any normalization (risk
    measures honour normalization but not grouping): field → array (m, n_alphas)."""
    x = m.values
    alphas = np.array([float(a) for a in opts.alphas])
    nan = np.full((x.shape[0], len(alphas)), np.nan)
    if x.shape[1] == 0:
        return {f: nan for f in ("zrisk", "georisk", "zrisk_target", "trisk_mean")}
    fields: dict[str, np.ndarray] = {}
    if risk.has_negative(x):
        note(f"{m.measure}: negative scores; ZRisk and GeoRisk are undefined (null)")
        fields.update(zrisk=nan, georisk=nan, zrisk_target=nan)
    else:
        fields["zrisk"] = risk.zrisk(x, alphas)
        fields["georisk"] = risk.georisk(x, alphas)
        fields["zrisk_target"] = risk.zrisk_pair(x, x.max(axis=0), alphas)
    fields["trisk_mean"] = risk.trisk_mean(x, alphas)
    if opts.baseline is not None:
        base = x[m.systems.index(opts.baseline)]
        fields["urisk"] = risk.urisk(x, base, alphas)
        fields["trisk"] = risk.trisk(x, base, alphas)
        fields["zrisk_baseline"] = nan if risk.has_negative(x) else risk.zrisk_pair(x, base, alphas)
    return fields


def instability_report(full: dict[str, Any]) -> dict[str, Any]:
    """Seed 000 Table 8: where instability comes from, runs sorted by mean (best first).

    Per run |ZRisk| against the virtual target at alpha 0 (seed 000 sets the
    baseline to the target and alpha to 0), Var(ρ) and its parts Var(x_i) and
    Cov(x_T, x_i); Var(x_T), the same for every run, once per measure. A run
    with a large Var(ρ) is unstable because of its own variance when Var(x_i)
    is large, or because it does not follow the target when Cov is small.
    """
    measures: dict[str, Any] = {}
    for measure, block in full["measures"].items():
        systems = block["systems"]
        order = sorted(systems, key=lambda s: (-systems[s]["mean"], s))
        first = systems[order[0]] if order else {}
        measures[measure] = {
            "n_topics": block["n_topics"],
            "var_target": first.get("var_target"),
            "systems": {
                s: {
                    "mean": systems[s]["mean"],
                    "abs_zrisk_target": abs(systems[s]["zrisk_target"]["0"]),
                    "var_rho": systems[s]["var_rho"],
                    "var": systems[s]["var"],
                    "cov_target": systems[s]["cov_target"],
                }
                for s in order
            },
        }
    return {"group": full["group"], "normalize": full["normalize"], "measures": measures}


def pertopic_report(result: Any, measure: str, seed: int, per_topic: bool) -> dict[str, Any]:
    """The report of ``bvtest pertopic`` (SPEC §9; seed 000 Tables 10–11).

    Per run the topic-averaged Bias² and Var (eqs. 13–14) and their tradeoff
    correlation; per topic the Pearson correlation of Bias² and Var across
    runs, and with ``per_topic`` every topic × run Bias² and Var.
    """
    systems = result.systems
    topics: dict[str, Any] = {}
    for j, topic in enumerate(result.topics):
        entry: dict[str, Any] = {"pearson": _number(result.topic_pearson[j])}
        if per_topic:
            entry["systems"] = {
                s: {"bias2": _number(result.bias2[j, i]), "var": _number(result.var[j, i])}
                for i, s in enumerate(systems)
            }
        topics[topic] = entry
    block = {
        "k": result.k,
        "n_topics": len(result.topics),
        "n_systems": len(systems),
        "systems": {
            s: {"bias2": _number(result.mean_bias2[i]), "var": _number(result.mean_var[i])}
            for i, s in enumerate(systems)
        },
        "tradeoff": tradeoff_dict(result.tradeoff),
        "topics": topics,
    }
    return {"seed": seed, "measures": {measure: block}}
