"""Hand-made results for tests: a nested dict (the JSON shape of `bvtest eval`)
turned into the typed report the commands return."""

from __future__ import annotations

import numpy as np

from bvtest_cli.report import registry
from bvtest_cli.report.model import Report, Section, Table, section


def report_from_dict(result: dict) -> Report:
    """A field is in a measure's table when every run has it; null is NaN;
    other keys of a measure block are scalars or sections of scalars."""
    blocks = []
    for measure, block in result["measures"].items():
        systems = block["systems"]
        rows = tuple(systems)
        fields = tuple(
            f for f in registry.SYSTEM_FIELDS if all(f.name in v for v in systems.values())
        )
        alphas: tuple[str, ...] = ()
        values = {}
        for f in fields:
            cells = [systems[r][f.name] for r in rows]
            if f.alpha:
                alphas = tuple(cells[0])
                cells = [[np.nan if v is None else v for v in c.values()] for c in cells]
            values[f.name] = np.array([np.nan if c is None else c for c in cells], dtype=float)
        items = []
        for key, value in block.items():
            if key == "systems":
                items.append(("systems", Table(rows, fields, values, alphas)))
            elif isinstance(value, dict):
                items.append((key, section(*value.items())))
            else:
                items.append((key, value))
        blocks.append((measure, section(*items)))
    settings = [(k, v) for k, v in result.items() if k != "measures"]
    return Report(section(*settings, ("measures", Section(tuple(blocks)))))
