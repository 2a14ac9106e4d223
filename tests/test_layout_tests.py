"""Test modules are named after what they test, not after the history of the work.

Every ``tests/test_*.py`` is one of:

- a cross-cutting suite with a plain name from :data:`CROSS_CUTTING`;
- a test of one of the two doors: ``test_cli[_<aspect>].py``,
  ``test_api[_<aspect>].py``;
- ``test_<layer>_<module>[_<aspect>].py``, where ``<layer>_<module>`` is the
  path of a real module with ``/`` as ``_``: ``bvtest_cli/<a>/<b>.py``,
  ``bvtest_cli/<a>/<b>/<c>.py`` or a command's package
  ``bvtest_cli/commands/<name>/`` (its end-to-end tests); a layer package
  whose ``__init__.py`` holds code of its own (``options``) is a module too.
  ``tools/<script>.py`` counts as ``tools_<script>``, for the tests of the
  repository's own tools.

The module is matched against the package tree on disk, word by word (a
prefix of the name split at ``_``), so a name from a pass of the work
(``inputs4``, ``more``) or a module that was renamed away is an offender.
"""

from __future__ import annotations

import ast
from pathlib import Path

from conftest import REPO

PACKAGE = REPO / "bvtest_cli"
TESTS = Path(__file__).resolve().parent

#: Suites that check the whole tool rather than one module.
CROSS_CUTTING = frozenset(
    {
        "test_layout.py",
        "test_layout_functions.py",
        "test_docs.py",
        "test_golden.py",
        "test_golden_compare.py",
        "test_calibration.py",
        "test_paper_output.py",
        "test_exactness.py",
        "test_fuzz_input.py",
        "test_performance_equivalence.py",
        "test_entry_point.py",
        "test_layout_tests.py",  # this file: the layout of tests/
    }
)
DOORS = ("cli", "api")


def _defines_code(init: Path) -> bool:
    """Whether a package's ``__init__.py`` defines functions or classes."""
    tree = ast.parse(init.read_text(encoding="utf-8"))
    return any(isinstance(n, ast.FunctionDef | ast.ClassDef) for n in tree.body)


def module_names() -> set[str]:
    """``<layer>_<module>`` of every module a test may be named after."""
    names = set()
    for path in PACKAGE.glob("*/*.py"):
        if path.stem != "__init__":
            names.add(f"{path.parent.name}_{path.stem}")
        elif path.parent.name != "commands" and _defines_code(path):
            names.add(path.parent.name)  # commands: its modules are the command packages
    for path in PACKAGE.glob("*/*/*.py"):
        if path.stem != "__init__":
            names.add(f"{path.parent.parent.name}_{path.parent.name}_{path.stem}")
    for path in (PACKAGE / "commands").iterdir():
        if path.is_dir() and (path / "__init__.py").is_file():
            names.add(f"commands_{path.name}")
    names |= {f"tools_{p.stem}" for p in (REPO / "tools").glob("*.py")}
    return names


def names_a_module(filename: str, modules: set[str]) -> bool:
    """Whether ``test_<rest>.py`` is named by the rule (see the module docstring)."""
    if filename in CROSS_CUTTING:
        return True
    words = filename.removeprefix("test_").removesuffix(".py").split("_")
    if words[0] in DOORS:
        return True
    return any("_".join(words[:k]) in modules for k in range(1, len(words) + 1))


def test_every_test_module_is_named_after_what_it_tests():
    modules = module_names()
    offenders = sorted(
        p.name for p in TESTS.glob("test_*.py") if not names_a_module(p.name, modules)
    )
    assert not offenders, (
        "test modules not named test_<layer>_<module>[_<aspect>].py (a module path of "
        f"bvtest_cli with / as _), test_commands_<name>, test_cli*, test_api* or a "
        f"cross-cutting suite: {', '.join(offenders)}"
    )


def test_the_rule_tells_modules_from_history():
    """The check itself: real module paths pass, names of passes and of no module fail."""
    modules = module_names()
    good = [
        "test_io_trec.py",
        "test_io_trec_fastpath.py",
        "test_io_wide_scores.py",
        "test_measures_sampled_variance.py",
        "test_analyses_budgets_sampling.py",
        "test_analyses_assessors_ppi.py",
        "test_options_parsers_floats.py",
        "test_commands_rankings.py",
        "test_commands_compare_pairs.py",
        "test_cli_errors.py",
        "test_api_frames.py",
        "test_golden.py",
    ]
    bad = [
        "test_inputs4_api.py",
        "test_sampled_more.py",
        "test_trecio.py",
        "test_io.py",
        "test_io_nothing.py",
        "test_analyses_budgets.py",
        "test_commands.py",
        "test_commands_nothing.py",
        "test_render_htmlx.py",
        "test_golden_more.py",
    ]
    assert [n for n in good if not names_a_module(n, modules)] == []
    assert [n for n in bad if names_a_module(n, modules)] == []
