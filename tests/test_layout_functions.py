"""The analyses keep their functions readable: every function in
bvtest_cli/analyses (methods and nested functions included) has at most
MAX_LINES lines, from its ``def`` line to its last line with the docstring,
and at most MAX_PARAMETERS parameters, a leading self or cls not counted and
``*args`` and ``**kwargs`` one each. Parameters that travel together belong
in a frozen dataclass, and a long body in helpers named for what they compute.
"""

from __future__ import annotations

import ast
from pathlib import Path

from conftest import REPO

ANALYSES = REPO / "bvtest_cli" / "analyses"
MAX_LINES = 80
MAX_PARAMETERS = 8


def parameter_count(node: ast.FunctionDef | ast.AsyncFunctionDef) -> int:
    """Positional-only, ordinary and keyword-only parameters, ``*args`` and
    ``**kwargs``, less a leading self or cls."""
    args = node.args
    positional = [*args.posonlyargs, *args.args]
    count = len(positional) + len(args.kwonlyargs)
    count += (args.vararg is not None) + (args.kwarg is not None)
    if positional and positional[0].arg in ("self", "cls"):
        count -= 1
    return count


def offenders(path: Path) -> list[str]:
    """``file:line name: what is too much`` for every function of the file over a limit."""
    tree = ast.parse(path.read_text(encoding="utf-8"), filename=str(path))
    where = path.relative_to(REPO).as_posix()
    found = []
    for node in ast.walk(tree):
        if not isinstance(node, ast.FunctionDef | ast.AsyncFunctionDef):
            continue
        assert node.end_lineno is not None
        lines = node.end_lineno - node.lineno + 1
        params = parameter_count(node)
        if lines > MAX_LINES:
            found.append(f"{where}:{node.lineno} {node.name}: {lines} lines > {MAX_LINES}")
        if params > MAX_PARAMETERS:
            found.append(
                f"{where}:{node.lineno} {node.name}: {params} parameters > {MAX_PARAMETERS}"
            )
    return found


def test_the_analyses_have_files():
    assert sorted(ANALYSES.rglob("*.py"))


def test_analyses_functions_are_short_and_take_few_parameters():
    found = [o for path in sorted(ANALYSES.rglob("*.py")) for o in offenders(path)]
    assert not found, "functions over the layout limits:\n" + "\n".join(found)


def test_the_counts_follow_the_rule():
    source = (
        "def f(a, b, /, c, *args, d, **kwargs):\n    pass\n"
        "class C:\n    def m(self, a):\n        def inner(x, y):\n            return x\n"
        "        return inner\n"
        "    @classmethod\n    def k(cls):\n        pass\n"
        "async def g(*, e):\n    pass\n"
    )
    nodes = {
        n.name: n
        for n in ast.walk(ast.parse(source))
        if isinstance(n, ast.FunctionDef | ast.AsyncFunctionDef)
    }
    counts = {name: parameter_count(node) for name, node in nodes.items()}
    assert counts == {"f": 6, "m": 1, "inner": 2, "k": 0, "g": 1}
    assert nodes["m"].end_lineno - nodes["m"].lineno + 1 == 4
