"""Reading a ``bvtest budget -f json`` document back: the measured cells
(method, judgments per topic, topic-set scale, |b|, σ) and the number of
topics they were measured at, for ``bvtest design --budget-report``."""

from __future__ import annotations

import json
import math
from dataclasses import dataclass
from typing import TypeGuard

from ..errors import InputError
from .sources import STDIN, read_bytes


@dataclass(frozen=True)
class BudgetCell:
    """One cell of the budget report: ``method`` at ``budget`` judgments per
    topic, measured on bootstrap samples of ``topics_scale`` · n topics."""

    method: str
    budget: int
    topics_scale: int
    bias: float
    sigma: float
    rmse: float
    se_rmse: float | None


@dataclass(frozen=True)
class BudgetReport:
    n_topics: int
    cells: tuple[BudgetCell, ...]


def _number(value: object) -> TypeGuard[int | float]:
    return isinstance(value, (int, float)) and not isinstance(value, bool)


def read_budget_report(path: str) -> BudgetReport:
    """The cells of a budget report; a one-line error naming the file for
    text that is not JSON, a document that is not a budget report, or a cell
    (method, budget, topics_scale) given twice."""
    label = "<stdin>" if path == STDIN else path
    data = read_bytes(path)
    try:
        doc = json.loads(data.decode("utf-8"))
    except UnicodeDecodeError:
        raise InputError("not UTF-8 text", label) from None
    except json.JSONDecodeError as exc:
        raise InputError(f"not JSON: {exc.msg}", label, exc.lineno) from None
    what = "not a `bvtest budget -f json` report"
    if not isinstance(doc, dict) or not isinstance(doc.get("cells"), list):
        raise InputError(f"{what} (no list of cells)", label)
    n = doc.get("n_topics")
    if not (isinstance(n, int) and not isinstance(n, bool) and n >= 1):
        raise InputError(f"{what} (no positive n_topics)", label)
    cells = []
    first: dict[tuple[str, int, int], int] = {}  # (method, budget, scale) → its cell's number
    for k, cell in enumerate(doc["cells"], 1):
        if not isinstance(cell, dict):
            raise InputError(f"{what} (cell {k} is not an object)", label)
        method, budget, scale = cell.get("method"), cell.get("budget"), cell.get("topics_scale")
        if not isinstance(method, str) or not method:
            raise InputError(f"{what} (cell {k} has no method)", label)
        for key, value in (("budget", budget), ("topics_scale", scale)):
            if not (isinstance(value, int) and not isinstance(value, bool) and value >= 1):
                raise InputError(f"{what} (cell {k}: {key} is not a positive integer)", label)
        numbers = {}
        for key in ("bias", "sigma", "rmse"):
            value = cell.get(key)
            if not _number(value) or not math.isfinite(value):
                raise InputError(f"{what} (cell {k}: {key} is not a number)", label)
            numbers[key] = float(value)
        if numbers["sigma"] < 0:
            raise InputError(f"{what} (cell {k}: sigma is negative)", label)
        se = cell.get("se_rmse")
        assert isinstance(budget, int) and isinstance(scale, int)  # checked above
        # Checked here, where the file is known: the fit downstream sees only
        # the cells and could not say which file repeated one.
        seen = first.setdefault((method, budget, scale), k)
        if seen != k:
            raise InputError(
                f"duplicate cell: cell {k} repeats cell {seen} ({method} at {budget} judgments, "
                f"topics_scale {scale}); a report's cells are distinct",
                label,
            )
        cells.append(
            BudgetCell(
                method,
                budget,
                scale,
                numbers["bias"],
                numbers["sigma"],
                numbers["rmse"],
                float(se) if _number(se) else None,
            )
        )
    if not cells:
        raise InputError(f"{what} (no cells)", label)
    return BudgetReport(n, tuple(cells))
