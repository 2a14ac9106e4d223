"""The report of ``bvtest sensitivity``: per measure, the discriminative power
and ASL curve of a significance test and of Sakai's paired bootstrap test,
the estimated difference required [Sakai06], and swap rates with their
extrapolation to the whole topic set [Voorhees02].

Every number comes from :mod:`bvtest_cli.analyses.sensitivity`,
:mod:`bvtest_cli.analyses.significance` and :mod:`bvtest_cli.analyses.anova`;
this module chooses the test's p-values, checks the request against the
inputs' size, and lays the results out.
"""

from __future__ import annotations

import math
from collections.abc import Sequence
from dataclasses import dataclass
from typing import TYPE_CHECKING

import numpy as np

from ...analyses.anova import system_pairs
from ...analyses.paired import TestSpec, mean_test
from ...analyses.sensitivity import (
    DeltaNeeded,
    asl_curve,
    delta_needed,
    delta_needed_bytes,
    discriminative_power,
    fit_swap_extrapolation,
    swap_rates,
)
from ...analyses.significance import adjust
from ...errors import InputError
from ...io.sources import Inputs
from ...measures.evaluate import Evaluation
from ...measures.matrix import ScoreMatrix
from ...report import registry as r
from ...report.limits import BASE_BYTES, refuse_memory, refuse_work
from ...report.model import Records, Report, Section, section
from ...report.values import as_reported, line_records

if TYPE_CHECKING:
    from .params import SensitivityParams

#: The levels of discriminative power always reported, besides --significance.
LEVELS = (0.01, 0.05, 0.10)

#: Tests that hold the family-wise error rate of all pairs themselves: their
#: p-values are not adjusted again by --correction.
FAMILY_WISE = ("tukey", "randomised-tukey")

#: Subset sizes of the swap rates by default: 5, 10, … up to n // 2.
SIZE_STEP = 5


def levels_of(p: SensitivityParams) -> tuple[float, ...]:
    """.01, .05, .10 and --significance, ascending, each once."""
    return tuple(sorted({*LEVELS, float(p.significance)}))


def level_key(level: float) -> str:
    """A level as a JSON key: ``0.05``, ``0.1`` (the shortest repr)."""
    return repr(float(level))


def subset_sizes(p: SensitivityParams, n: int) -> tuple[int, ...]:
    """--subset-sizes, or 5, 10, … up to n // 2 (none below 10 topics)."""
    if p.subset_sizes:
        return tuple(p.subset_sizes)
    return tuple(range(SIZE_STEP, n // 2 + 1, SIZE_STEP))


# --------------------------------------------------------------------------- p-values


@dataclass(frozen=True)
class PairPValues:
    """The p-value of every pair i < j under one test, raw and adjusted by the
    correction (``adjusted`` is ``p`` for a test that needs none), and the
    number of pairs whose randomization-test decision at some level (raw or
    corrected) its resamples left unsettled."""

    p: np.ndarray
    adjusted: np.ndarray
    unresolved: int = 0


def pair_p_values(
    x: np.ndarray, p: SensitivityParams, levels: Sequence[float], bootstrap: DeltaNeeded
) -> PairPValues:
    """The p-values of --test for every pair i < j of the rows of x (m, n).

    ``bootstrap`` is the paired bootstrap test already run (Sakai's, by
    :func:`delta_needed`): ``--test bootstrap`` is that test, on the same
    resamples. The randomization test is decided at ``levels`` with and
    without the correction (its p-values are narrowed only until both
    decisions are settled).
    """
    i, j = system_pairs(x.shape[0])
    # one test settles both decisions at every level: p ≤ α and p_adj ≤ α
    spec = TestSpec(p.test, p.correction, tuple(levels), p.bootstrap, p.seed)
    if p.test == "bootstrap":
        # the ASL of delta_needed is this very test (the same resamples, the same rule)
        return PairPValues(bootstrap.p, adjust(bootstrap.p, p.correction))
    t = mean_test(x, i, j, spec)
    return PairPValues(t.p, t.p_adj, len(t.unresolved))


# --------------------------------------------------------------------------- records


def _edge(value: float) -> float:
    """A bin's end as the decimal it stands for (k · 0.01 is 0.07000000000000001)."""
    return float(f"{value:.12g}")


def swap_records(
    x: np.ndarray, p: SensitivityParams, sizes: Sequence[int]
) -> tuple[Records, Records]:
    """The swap rates by size and bin, and their extrapolation to n topics."""
    n = x.shape[1]
    rows = swap_rates(x, sizes, p.bin_width, p.draws, p.seed)
    swaps = [
        {
            r.SWAP_C.name: int(row["c"]),
            r.SWAP_BIN_LO.name: _edge(row["bin_lo"]),
            r.SWAP_BIN_HI.name: _edge(row["bin_hi"]),
            r.SWAP_PAIRS.name: int(row["pairs"]),
            r.SWAP_SWAPS.name: int(row["swaps"]),
            r.SWAP_RATE.name: float(row["swap_rate"]),
        }
        for row in rows
    ]
    fit: np.ndarray | list = fit_swap_extrapolation(rows, n) if len(rows) else []
    extrapolation = [
        {
            r.SWAP_BIN_LO.name: _edge(row["bin_lo"]),
            r.SWAP_BIN_HI.name: _edge(row["bin_hi"]),
            r.FIT_SIZES.name: int(row["sizes"]),
            r.FIT_A.name: float(row["a"]),
            r.FIT_INTERCEPT.name: float(row["intercept"]),
            r.FIT_TOPICS.name: n,
            r.FIT_PREDICTED.name: float(row["predicted"]),
        }
        for row in fit
    ]
    return (
        line_records(swaps, "swap_rates", lambda row: f"c={row['c']}:{row['bin_lo']:g}"),
        line_records(extrapolation, "extrapolation", lambda row: f"{row['bin_lo']:g}"),
    )


# --------------------------------------------------------------------------- one measure


def _shares(levels: Sequence[float], shares: np.ndarray) -> Section:
    """{level: share} (a Section keyed by an alpha-indexed field prints as
    ``field@LEVEL`` in the text formats)."""
    return Section(tuple((level_key(a), float(v)) for a, v in zip(levels, shares, strict=True)))


class AslCurve(tuple):
    """The ASL curve: every pair's p-value, ascending (NaN last). A list in
    JSON (and in the HTML page's table); one line in the text formats, where
    thousands of numbers in one cell would not read: how many, the least and
    the largest."""

    __slots__ = ()

    def __str__(self) -> str:
        finite = [v for v in self if math.isfinite(v)]
        if not finite:
            return f"{len(self)} p-values, none defined"
        return f"{len(self)} p-values from {finite[0]:.2g} to {finite[-1]:.2g} (every one: -f json)"


def _curve(p: np.ndarray) -> AslCurve:
    """The ASL curve of p-values (NaN is null in JSON)."""
    return AslCurve(as_reported(float(v), True) for v in asl_curve(p))


def check_request(p: SensitivityParams, m: int, n: int, sizes: Sequence[int]) -> None:
    """Refuse a request too big for the machine before any array is built."""
    pairs = m * (m - 1) // 2
    refuse_memory(
        "--bootstrap", p.bootstrap, delta_needed_bytes(n, p.bootstrap) + BASE_BYTES,
        f"the paired bootstrap test's {p.bootstrap} resamples of {n} topics",
    )  # fmt: skip
    refuse_work(
        "--bootstrap", p.bootstrap, 4.0 * p.bootstrap * pairs * n,
        f"the paired bootstrap test of {pairs} pairs × {n} topics",
    )  # fmt: skip
    # swap_rates holds two (repeats, pairs) differences and their products per size
    refuse_memory(
        "--draws", p.draws, 8.0 * 4 * p.draws * pairs,
        f"{p.draws} draws of topic subsets for {pairs} pairs",
    )  # fmt: skip
    refuse_work(
        "--draws", p.draws, float(p.draws) * len(sizes) * (pairs + m * n),
        f"{p.draws} draws of topic subsets of {len(sizes)} size(s)",
    )  # fmt: skip


def measure_block(m: ScoreMatrix, p: SensitivityParams, notes: list[str]) -> Section:
    x = np.asarray(m.values, dtype=float)
    systems, topics = x.shape
    if systems < 2 or topics < 2:
        raise InputError(
            f"{m.measure}: sensitivity needs at least 2 systems and 2 topics, got "
            f"{systems} × {topics}"
        )
    sizes = subset_sizes(p, topics)
    too_big = [c for c in sizes if c > topics // 2]
    if too_big:
        raise InputError(
            f"{m.measure}: --subset-sizes {too_big[0]} is more than half of the {topics} "
            "topics: two disjoint subsets need c ≤ n/2",
        )
    if not sizes:
        notes.append(
            f"{m.measure}: {topics} topics: no subset size c = 5, 10, … up to n/2; no swap "
            "rates (--subset-sizes chooses them)"
        )
    check_request(p, systems, topics, sizes)
    levels = levels_of(p)
    bootstrap = delta_needed(x, p.significance, p.bootstrap, p.seed)
    result = pair_p_values(x, p, levels, bootstrap)
    if result.unresolved:
        notes.append(
            f"{m.measure}: the randomization test's resamples left the decision of "
            f"{result.unresolved} pair(s) at some level unsettled; counted there as not "
            "significant (the conservative decision)"
        )
    if p.test in FAMILY_WISE and p.correction != "none":
        notes.append(
            f"{m.measure}: --test {p.test} holds the family-wise error itself; "
            f"discriminative_power_corrected is its p-values without --correction {p.correction}"
        )
    swaps, extrapolation = swap_records(x, p, sizes)
    return section(
        (r.N_SYSTEMS, systems),
        (r.N_TOPICS, topics),
        (r.SENS_PAIRS, systems * (systems - 1) // 2),
        (r.SENS_TEST, p.test),
        (r.SENS_CORRECTION, "none" if p.test in FAMILY_WISE else p.correction),
        (r.DISCRIMINATIVE_POWER, _shares(levels, discriminative_power(result.p, levels))),
        (
            r.DISCRIMINATIVE_POWER_CORRECTED,
            _shares(levels, discriminative_power(result.adjusted, levels)),
        ),
        (
            r.BOOTSTRAP_DISCRIMINATIVE_POWER,
            _shares(levels, discriminative_power(bootstrap.p, levels)),
        ),
        (r.DELTA_NEEDED, bootstrap.delta),
        (r.DELTA_NEEDED_OBSERVED_SD, bootstrap.delta_observed_sd),
        (r.SENS_ASL, _curve(result.p)),
        (r.BOOTSTRAP_ASL, _curve(bootstrap.p)),
        ("swap_rates", swaps),
        ("extrapolation", extrapolation),
    )


def sensitivity_report(matrices: Sequence[ScoreMatrix], p: SensitivityParams) -> Report:
    """The report of ``bvtest sensitivity``."""
    notes: list[str] = []
    blocks = [(m.measure, measure_block(m, p, notes)) for m in matrices]
    body = section(
        ("significance", p.significance),
        ("levels", levels_of(p)),
        ("bootstrap", p.bootstrap),
        ("seed", p.seed),
        ("draws", p.draws),
        ("bin_width", p.bin_width),
        (r.MEASURES, Section(tuple(blocks))),
    )
    return Report(body, notes=tuple(notes))


def build(inputs: Inputs, p: SensitivityParams) -> Report:
    """``bvtest sensitivity``: evaluate (or read the scores, a wide CSV matrix
    too), then the sensitivity of every measure."""
    from ...sections.inputs import load_one_measure as load

    matrices, notes = load(inputs, Evaluation.of(p))
    return sensitivity_report(matrices, p).prefixed(notes)
