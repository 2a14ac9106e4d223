"""``bvtest instability``: where instability comes from (Zhang22 Table 8), from eval's report."""

from __future__ import annotations

from typing import TYPE_CHECKING

import numpy as np

from ...io.sources import Inputs
from ...report import registry
from ...report.model import Report, Section, Table, section

INSTABILITY_FIELDS = (
    registry.MEAN, registry.ABS_ZRISK_TARGET, registry.VAR_RHO, registry.VAR, registry.COV_TARGET,
)  # fmt: skip

if TYPE_CHECKING:
    from .params import InstabilityParams


def instability_view(full: Report) -> Report:
    """Zhang22 Table 8: where instability comes from, runs sorted by mean (best first).

    Per run |ZRisk| against the virtual target at alpha 0 (the paper sets the
    baseline to the target and alpha to 0), Var(ρ) and its parts Var(x_i) and
    Cov(x_T, x_i); Var(x_T), the same for every run, once per measure.
    """
    blocks = []
    for measure, block in full.measure_blocks():
        t = block.get(registry.SYSTEMS)
        assert isinstance(t, Table)
        values = dict(t.values)
        at0 = t.alphas.index("0")
        values[registry.ABS_ZRISK_TARGET.name] = np.abs(t.column(registry.ZRISK_TARGET)[:, at0])
        intervals = dict(t.intervals)
        if registry.ZRISK_TARGET.name in intervals:
            intervals[registry.ABS_ZRISK_TARGET.name] = abs_interval(
                np.asarray(intervals[registry.ZRISK_TARGET.name])[:, at0]
            )
        t = Table(t.rows, (*t.fields, registry.ABS_ZRISK_TARGET), values, t.alphas, None, intervals)
        mean = t.column(registry.MEAN)
        order = sorted(range(len(t.rows)), key=lambda i: (-mean[i], t.rows[i]))
        var_target = float(t.column(registry.VAR_TARGET)[order[0]]) if order else None
        shared = {}
        if order and registry.VAR_TARGET.name in intervals:
            lo, hi = np.asarray(intervals[registry.VAR_TARGET.name])[order[0]]
            shared[registry.VAR_TARGET.name] = (float(lo), float(hi))
        items = (
            (registry.N_TOPICS, block.get(registry.N_TOPICS)),
            (registry.VAR_TARGET, var_target),
            (registry.SYSTEMS, t.select(INSTABILITY_FIELDS, order)),
        )
        blocks.append((measure, Section(items, intervals=shared)))
    body = section(*full.settings().items(), (registry.MEASURES, Section(tuple(blocks))))
    return Report(body, table_fields=INSTABILITY_FIELDS, notes=full.notes)


def abs_interval(interval: np.ndarray) -> np.ndarray:
    """The image of intervals (..., 2) under |·|: [lo, hi] if lo >= 0, [−hi, −lo]
    if hi <= 0, else [0, max(−lo, hi)]. Whenever the interval holds ZRisk, its
    image holds |ZRisk|, so the level is kept (a percentile interval of |ZRisk|
    itself would need the replicates)."""
    iv = np.asarray(interval, dtype=float)
    lo, hi = iv[..., 0], iv[..., 1]
    new_lo = np.where(lo >= 0, lo, np.where(hi <= 0, -hi, 0.0))
    new_hi = np.where(lo >= 0, hi, np.where(hi <= 0, -lo, np.maximum(-lo, hi)))
    undefined = np.isnan(lo) | np.isnan(hi)
    return np.stack([np.where(undefined, np.nan, new_lo), np.where(undefined, np.nan, new_hi)], -1)


def build(inputs: Inputs, p: InstabilityParams) -> Report:
    """``bvtest instability``: eval's report at alpha 0, viewed as Zhang22 Table 8."""
    from ...measures.evaluate import Evaluation
    from ...sections.matrix import Analysis, evaluated

    return instability_view(evaluated(inputs, Evaluation.of(p), Analysis.of(p, alphas=("0",))))
