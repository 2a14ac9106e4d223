"""The renderers find a report's sections by declared names, not by string keys.

A renderer that looks up ``"tradeoff"`` or ``"passed"`` in the result tree
breaks silently (it draws nothing) when the builder renames the key; the
names are declared once in :mod:`bvtest_cli.report.registry`, and the
builders and the renderers both use the declarations. The lookups are read
from the source: ``x.get("…")``, ``x["…"]``, ``"…" in x`` and ``str(k) == "…"``.
"""

from __future__ import annotations

import ast
from collections.abc import Collection
from pathlib import Path

from conftest import REPO

from bvtest_cli.report import registry

RENDER = REPO / "bvtest_cli" / "render"

#: The section and record names the renderers must not spell themselves.
DECLARED = {
    registry.BUDGET_CELLS: "BUDGET_CELLS",
    registry.BUDGET_REFERENCE: "BUDGET_REFERENCE",
    registry.CHECK_PASSED: "CHECK_PASSED",
    registry.CHECK_VERDICTS: "CHECK_VERDICTS",
    registry.TRADEOFF: "TRADEOFF",
    registry.RANK_MATRIX: "RANK_MATRIX",
}

#: Lookups left in renderers, as (file, key): none.
PENDING: set[tuple[str, str]] = set()


def _text(node: ast.expr) -> str | None:
    return node.value if isinstance(node, ast.Constant) and isinstance(node.value, str) else None


def lookups(source: str, keys: Collection[str]) -> list[tuple[int, str]]:
    """(line, key) of every lookup of one of ``keys`` by a string literal."""
    found = []
    for node in ast.walk(ast.parse(source)):
        used: list[str | None] = []
        if isinstance(node, ast.Call) and isinstance(node.func, ast.Attribute):
            if node.func.attr in ("get", "pop", "setdefault") and node.args:
                used.append(_text(node.args[0]))
        elif isinstance(node, ast.Subscript):
            used.append(_text(node.slice))
        elif isinstance(node, ast.Compare):
            operands = [node.left, *node.comparators]
            for op, left, right in zip(node.ops, operands[:-1], operands[1:], strict=True):
                if isinstance(op, ast.In | ast.NotIn):
                    used.append(_text(left))
                elif isinstance(op, ast.Eq | ast.NotEq):
                    used += [_text(left), _text(right)]
        found += [(node.lineno, k) for k in used if k is not None and k in keys]
    return sorted(set(found))


def _found(path: Path) -> list[tuple[int, str]]:
    return lookups(path.read_text(encoding="utf-8"), DECLARED)


def test_the_names_are_declared_once_and_distinct():
    assert len(DECLARED) == 6  # two declarations of one spelling would merge here


def test_html_reads_no_section_by_a_string_key():
    found = _found(RENDER / "html.py")
    assert not found, "html.py looks up by string: " + ", ".join(
        f"line {line}: {key!r} (registry.{DECLARED[key]})" for line, key in found
    )


def test_no_renderer_reads_a_section_by_a_string_key():
    found = {(p.name, key) for p in sorted(RENDER.glob("*.py")) for _, key in _found(p)}
    assert found == PENDING, (
        f"new lookups by string: {sorted(found - PENDING)}; "
        f"gone, drop from PENDING: {sorted(PENDING - found)}"
    )


def test_the_scan_sees_every_kind_of_lookup():
    """The check itself: each form of lookup is found, a declared name and
    a literal that is no lookup (a label, a CSS class) are not."""
    source = (
        'a = body.get("cells")\n'
        'b = body["verdicts"]\n'
        'if "tradeoff" in keys or "matrix" not in block:\n    pass\n'
        'c = [v for k, v in items if str(k) == "reference"]\n'
        'd = row.get("passed") is False\n'
        "e = body.get(registry.TRADEOFF)\n"
        "f = f'<line class=\"reference\">'\n"
        'g = svg.bars("cells", caption="matrix")\n'
    )
    assert lookups(source, DECLARED) == [
        (1, "cells"), (2, "verdicts"), (3, "matrix"), (3, "tradeoff"), (5, "reference"),
        (6, "passed"),
    ]  # fmt: skip
