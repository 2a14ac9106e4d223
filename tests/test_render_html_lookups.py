"""The renderers read the report by declared names, never by string keys.

A renderer that looks up ``"tradeoff"`` or ``"passed"`` in the report tree
breaks silently (it draws nothing) when the builder renames the key; the
names are declared once in :mod:`bvtest_cli.report.registry` (a Field's
``.name``, or a named string constant such as ``registry.TRADEOFF``), and the
builders and the renderers both use the declarations. The lookups are read
from the source: a string literal as the key of ``x.get("…")`` (``pop``,
``setdefault``), of ``x["…"]`` or of ``"…" in x``, whatever ``x`` is, and a
declared name's spelling compared as ``str(k) == "…"``. Only the containers
in ALLOWED, which are not the report, may be read by a literal.
"""

from __future__ import annotations

import ast
from pathlib import Path

from conftest import REPO

from bvtest_cli.report import registry

RENDER = REPO / "bvtest_cli" / "render"

#: The containers a renderer may read by a literal key, as (file, the name of
#: the variable read): none of them is a node of the report.
ALLOWED = {
    ("html.py", "AXIS"): "the charts' axis labels, a dict of the module",
    ("html.py", "h"): "a rendered line of the page's summary, searched for a tag",
    ("plot.py", "colormaps"): "matplotlib's colour maps",
    ("text.py", "item"): "a piece of a text line, searched for a space",
}

#: Lookups left by string, as (file, key): none. A key whose producer cannot
#: change yet would be listed here, so that its lookup is not forgotten.
PENDING: set[tuple[str, str]] = set()

#: Every section and record name the registry declares as a string constant,
#: by its spelling: a renderer compares keys with the declaration, not a copy.
DECLARED = {
    value: name
    for name, value in vars(registry).items()
    if name.isupper() and isinstance(value, str)
}


def _text(node: ast.expr) -> str | None:
    return node.value if isinstance(node, ast.Constant) and isinstance(node.value, str) else None


def _root(node: ast.expr) -> str:
    """The variable a lookup reads: ``report`` of ``report.settings().get(…)``,
    ``h`` of ``h[4:]``; "" for a literal or an expression of no name."""
    while isinstance(node, ast.Attribute | ast.Subscript | ast.Call):
        node = node.func if isinstance(node, ast.Call) else node.value
    return node.id if isinstance(node, ast.Name) else ""


def lookups(source: str) -> list[tuple[int, str, str]]:
    """(line, variable read, key) of every lookup by a string literal, and of
    every comparison with the spelling of a DECLARED name (variable "==")."""
    found = []
    for node in ast.walk(ast.parse(source)):
        used: list[tuple[ast.expr, str | None]] = []
        if isinstance(node, ast.Call) and isinstance(node.func, ast.Attribute):
            if node.func.attr in ("get", "pop", "setdefault") and node.args:
                used.append((node.func.value, _text(node.args[0])))
        elif isinstance(node, ast.Subscript) and isinstance(node.ctx, ast.Load):
            # a store (``out["notes"] = …``) writes the renderer's own output
            used.append((node.value, _text(node.slice)))
        elif isinstance(node, ast.Compare):
            operands = [node.left, *node.comparators]
            for op, left, right in zip(node.ops, operands[:-1], operands[1:], strict=True):
                if isinstance(op, ast.In | ast.NotIn):
                    used.append((right, _text(left)))
                elif isinstance(op, ast.Eq | ast.NotEq):
                    used += [
                        (ast.Name("=="), k) for k in (_text(left), _text(right)) if k in DECLARED
                    ]
        found += [(node.lineno, _root(x), k) for x, k in used if k is not None]
    return sorted(set(found))


def _found(path: Path) -> list[tuple[int, str, str]]:
    return [
        (line, name, key)
        for line, name, key in lookups(path.read_text(encoding="utf-8"))
        if (path.name, name) not in ALLOWED
    ]


def _renderers() -> list[Path]:
    return sorted(RENDER.glob("*.py"))


def test_the_declared_names_are_distinct():
    spellings = [
        name for name, value in vars(registry).items() if name.isupper() and isinstance(value, str)
    ]
    assert len(spellings) == len(DECLARED)  # two declarations of one spelling merge here


def test_html_reads_nothing_by_a_string_key():
    found = _found(RENDER / "html.py")
    assert not found, "html.py looks up by string: " + ", ".join(
        f"line {line}: "
        + (f"== {key!r}" if name == "==" else f"{name}[{key!r}]")
        + (f" (registry.{DECLARED[key]})" if key in DECLARED else "")
        for line, name, key in found
    )


def test_no_renderer_reads_the_report_by_a_string_key():
    found = {(p.name, key) for p in _renderers() for _, _, key in _found(p)}
    assert found == PENDING, (
        f"new lookups by string: {sorted(found - PENDING)}; "
        f"gone, drop from PENDING: {sorted(PENDING - found)}"
    )


def test_every_allowed_container_is_still_read():
    """ALLOWED stays short: an entry no renderer needs any more goes."""
    read = {(p.name, name) for p in _renderers() for _, name, _ in lookups(p.read_text("utf-8"))}
    assert set(ALLOWED) <= read, f"drop from ALLOWED: {sorted(set(ALLOWED) - read)}"


def test_the_scan_sees_every_kind_of_lookup():
    """The check itself: each form of lookup is found, whatever the key; a
    declared name, a store into the output and a literal that is no lookup (a
    label, a CSS class, an argument) are not."""
    source = (
        'a = block.get("methods")\n'
        'b = pair["diff"]\n'
        'if "baseline" in report.body.keys() or "lo" not in r:\n    pass\n'
        'c = [v for k, v in items if str(k) == "measures"]\n'
        'd = report.settings().get("mode") == "intra"\n'
        'e = node.pop("crossovers"), node.setdefault("topics", ())\n'
        "f = block.get(registry.TRADEOFF), r[registry.COMPARE_A], registry.MEASURES in body\n"
        "g = f'<line class=\"reference\">'\n"
        'h = svg.bars("cells", caption="matrix")\n'
        'out["notes"] = list(report.notes)\n'
        'i = AXIS["var"]\n'
    )
    assert lookups(source) == [
        (1, "block", "methods"), (2, "pair", "diff"), (3, "r", "lo"), (3, "report", "baseline"),
        (5, "==", "measures"), (6, "report", "mode"), (7, "node", "crossovers"),
        (7, "node", "topics"), (12, "AXIS", "var"),
    ]  # fmt: skip
    assert "intra" not in DECLARED  # a value compared, not a key: line 6 has one lookup
