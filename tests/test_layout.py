"""The package's layout keeps its promises: layers import only lower layers,
no import circle, modules and folders of a readable size, no comment that
names an issue, every option declared once.

The import graph is read from the source (every ``import`` and ``from …
import`` statement, including those inside functions), not from what Python
happens to load, so a lazy import cannot hide a circle.
"""

from __future__ import annotations

import ast
import re
from pathlib import Path

import pytest
from conftest import REPO

PACKAGE = REPO / "bvtest_cli"

#: Layer of each subpackage or top-level module: a module may import only
#: modules of a layer no higher than its own (its own subpackage included).
LAYERS = {
    "errors": 0,
    "defaults": 0,
    "settings": 0,
    "process": 0,
    "io": 1,
    "measures": 2,
    "analyses": 3,
    "report": 4,
    "render": 5,
    "sections": 5,
    "options": 6,
    "commands": 7,
    "cli": 8,
    "api": 9,
    "__init__": 9,
}


def _modules() -> dict[str, Path]:
    out = {}
    for path in sorted(PACKAGE.rglob("*.py")):
        parts = path.relative_to(PACKAGE).with_suffix("").parts
        out[".".join(parts)] = path
    return out


def _resolve(module: str, node: ast.ImportFrom | ast.Import, modules: dict[str, Path]) -> list[str]:
    """The package modules an import statement of ``module`` names."""
    found = []
    if isinstance(node, ast.Import):
        for alias in node.names:
            if alias.name.startswith("bvtest_cli."):
                found.append(alias.name[len("bvtest_cli.") :])
        return [m for m in found if m in modules]
    if node.level == 0:
        if not (node.module or "").startswith("bvtest_cli"):
            return []
        base = (node.module or "")[len("bvtest_cli") :].lstrip(".")
    else:
        here = module.split(".")
        is_package = modules[module].name == "__init__.py"
        package = here if is_package else here[:-1]
        if is_package:
            package = here[:-1]  # "x.__init__" → package x
        up = node.level - 1
        package = package[: len(package) - up] if up else package
        base = ".".join([*package, *(node.module.split(".") if node.module else [])])
    for alias in node.names:
        candidate = f"{base}.{alias.name}" if base else alias.name
        if candidate in modules or f"{candidate}.__init__" in modules:
            found.append(candidate if candidate in modules else f"{candidate}.__init__")
        elif base in modules:
            found.append(base)
        elif f"{base}.__init__" in modules:
            found.append(f"{base}.__init__")
    return sorted(set(found))


def _type_only(tree: ast.Module) -> set[int]:
    """The ids of the imports under ``if TYPE_CHECKING:`` (annotations only:
    they never run)."""
    found = set()
    for node in ast.walk(tree):
        if isinstance(node, ast.If) and ast.unparse(node.test) in (
            "TYPE_CHECKING",
            "typing.TYPE_CHECKING",
        ):
            found |= {id(n) for stmt in node.body for n in ast.walk(stmt)}
    return found


def import_graph(run_time_only: bool = False) -> dict[str, set[str]]:
    """Module → the package modules it imports; ``run_time_only``: without
    the imports only the type checker makes."""
    modules = _modules()
    graph: dict[str, set[str]] = {}
    for name, path in modules.items():
        tree = ast.parse(path.read_text(), str(path))
        skipped = _type_only(tree) if run_time_only else set()
        targets: set[str] = set()
        for node in ast.walk(tree):
            if isinstance(node, (ast.Import, ast.ImportFrom)) and id(node) not in skipped:
                targets.update(_resolve(name, node, modules))
        targets.discard(name)
        graph[name] = targets
    return graph


def _layer(module: str) -> int:
    return LAYERS[module.split(".")[0]]


def test_graph_sees_the_known_edges():
    """The resolver is not blind: edges that must exist are found."""
    graph = import_graph()
    assert "report.model" in graph["render.text"]
    assert "measures.fastmeasures" in graph["measures.bridge"]
    assert "commands.__init__" in graph["cli"] or "commands" in {
        m.split(".")[0] for m in graph["cli"]
    }


def test_no_import_circle():
    # a command's build names its parameters' class for the type checker
    # only; the class finds the command's declarations when it checks values
    graph = import_graph(run_time_only=True)
    state: dict[str, int] = {}
    stack: list[str] = []

    def visit(node: str) -> None:
        state[node] = 1
        stack.append(node)
        for nxt in sorted(graph[node]):
            if state.get(nxt) == 1:
                cycle = [*stack[stack.index(nxt) :], nxt]
                pytest.fail("import circle: " + " → ".join(cycle))
            if nxt not in state:
                visit(nxt)
        stack.pop()
        state[node] = 2

    for module in sorted(graph):
        if module not in state:
            visit(module)


def test_layers_import_only_lower_layers():
    bad = [
        f"{a} (layer {_layer(a)}) imports {b} (layer {_layer(b)})"
        for a, targets in import_graph().items()
        for b in targets
        if _layer(b) > _layer(a)
    ]
    assert not bad, "\n".join(bad)


def test_sizes():
    """No module over 1000 lines, a short cli.py, and no folder with more than
    16 modules; in commands/ the cap counts commands (a command's home is one
    module or one small package), not the files of their homes."""
    for path in PACKAGE.rglob("*.py"):
        assert len(path.read_text().splitlines()) <= 1000, path
    commands = PACKAGE / "commands"
    for folder in [PACKAGE, *(p for p in PACKAGE.rglob("*") if p.is_dir())]:
        if folder.name == "__pycache__":
            continue
        if folder == commands:
            homes = [
                p for p in folder.iterdir() if p.suffix == ".py" or (p / "__init__.py").is_file()
            ]
            assert len(homes) <= 40, folder
            continue
        assert len(list(folder.glob("*.py"))) <= 16, folder
    assert len((PACKAGE / "cli.py").read_text().splitlines()) <= 250


def _is_private(name: str) -> bool:
    """``_name`` (one leading underscore), not a dunder such as ``__version__``."""
    return name.startswith("_") and not (name.startswith("__") and name.endswith("__"))


def private_imports(source: str, filename: str = "<source>") -> list[str]:
    """Every private name a module's source imports from a module of the
    package: ``from .x import _y``, ``from bvtest_cli.x import _y`` (at any
    depth, inside functions too), and ``import bvtest_cli._x``."""
    found = []
    for node in ast.walk(ast.parse(source, filename)):
        if isinstance(node, ast.ImportFrom):
            module = node.module or ""
            if node.level == 0 and module.split(".")[0] != "bvtest_cli":
                continue  # another package's names are its own business
            where = "." * node.level + module
            if any(_is_private(part) for part in module.split(".") if part):
                found.append(f"{filename}:{node.lineno}: from {where} import ...")
            found.extend(
                f"{filename}:{node.lineno}: from {where} import {alias.name}"
                for alias in node.names
                if _is_private(alias.name)
            )
        elif isinstance(node, ast.Import):
            found.extend(
                f"{filename}:{node.lineno}: import {alias.name}"
                for alias in node.names
                if alias.name.split(".")[0] == "bvtest_cli"
                and any(_is_private(part) for part in alias.name.split("."))
            )
    return found


def test_private_imports_are_found():
    """The rule below is not blind: each form of a private import is caught,
    public names, dunders and other packages' names are not."""
    caught = private_imports(
        "from .text import _row_header, by_alpha\n"
        "def f():\n"
        "    from ..io.sources import (\n"
        "        STDIN,\n"
        "        _score,\n"
        "    )\n"
        "from bvtest_cli.io.hashing import _sort_keys\n"
        "from ._private import x\n"
        "import bvtest_cli.io._private\n"
    )
    assert {line.split(": ", 1)[1] for line in caught} == {
        "from .text import _row_header",
        "from ..io.sources import _score",
        "from bvtest_cli.io.hashing import _sort_keys",
        "from ._private import ...",
        "import bvtest_cli.io._private",
    }
    assert not private_imports(
        "from . import __version__\n"
        "from .sources import STDIN, read_bytes\n"
        "from numpy import _NoValue\n"
        "from __future__ import annotations\n"
        "import bvtest_cli.io.trec\n"
    )


def test_no_private_name_imported_across_modules():
    """A name with a leading underscore belongs to its module: another module
    that needs it gets a public name (with a docstring), or the code moves."""
    hits = [
        hit
        for path in sorted(PACKAGE.rglob("*.py"))
        for hit in private_imports(path.read_text(), str(path.relative_to(REPO)))
    ]
    assert not hits, "\n".join(hits)


def test_evaluate_stays_small():
    """measures/evaluate.py evaluates many runs; measure names, the bridge to
    ir_measures and the topic policy have their own modules."""
    lines = (PACKAGE / "measures" / "evaluate.py").read_text().splitlines()
    assert len(lines) < 400, len(lines)


def test_a_command_has_one_home():
    """Every command is declared in commands/NAME (a module, or a package whose
    __init__ declares it and whose build.py holds its build), and nothing
    below the command layer knows about click."""
    from bvtest_cli.commands import COMMANDS

    commands = PACKAGE / "commands"
    for name, command in COMMANDS.items():
        module = command.run.__module__
        assert module.startswith("bvtest_cli.commands."), (name, module)
        home = module.split(".")[2]
        assert (commands / f"{home}.py").exists() or (commands / home / "__init__.py").exists()
        build = commands / home / "build.py"
        if build.exists():
            tree = ast.parse(build.read_text())
            names = {n.name for n in tree.body if isinstance(n, ast.FunctionDef)}
            assert "build" in names, f"{build} has no build(inputs, p) -> Report"
    for layer in ("io", "measures", "analyses", "report", "render"):
        for path in (PACKAGE / layer).rglob("*.py"):
            source = path.read_text()
            assert "import click" not in source and "from click" not in source, path


def test_a_command_is_a_function_of_its_inputs_and_its_own_parameters():
    """Each build is ``build(inputs: Inputs, p: <Name>Params) -> Report``: the
    command's inputs and its own parameters' dataclass; no module below the
    doors (cli.py, api.py, and the options table that checks the parameters
    together) knows the Settings of every option."""
    from bvtest_cli.commands import COMMANDS
    from bvtest_cli.options.params import class_name

    for name in COMMANDS:
        build = PACKAGE / "commands" / name / "build.py"
        tree = ast.parse(build.read_text())
        (fn,) = [n for n in tree.body if isinstance(n, ast.FunctionDef) and n.name == "build"]
        args = [(a.arg, ast.unparse(a.annotation) if a.annotation else None) for a in fn.args.args]
        assert args == [("inputs", "Inputs"), ("p", class_name(name))], (name, args)
    found = []
    for path in sorted(PACKAGE.rglob("*.py")):
        layer = path.relative_to(PACKAGE).parts[0].removesuffix(".py")
        if layer in ("cli", "api", "options", "settings", "__init__"):
            continue
        for node in ast.walk(ast.parse(path.read_text(), str(path))):
            if isinstance(node, ast.Name) and node.id == "Settings":
                found.append(f"{path.relative_to(REPO)}:{node.lineno}")
            if isinstance(node, ast.ImportFrom) and (node.module or "").endswith("settings"):
                found.append(f"{path.relative_to(REPO)}:{node.lineno} imports settings")
    assert not found, found


def test_only_the_command_line_imports_click():
    """click is the CLI's: only cli.py and the click types made from the
    option kinds (options/clicktypes.py) import it, so that ``import bvtest``
    and every command run from Python need no click (tests/test_api_inputs.py
    runs that import in a process of its own)."""
    allowed = {PACKAGE / "cli.py", PACKAGE / "options" / "clicktypes.py"}
    found = []
    for path in sorted(PACKAGE.rglob("*.py")):
        for node in ast.walk(ast.parse(path.read_text(), str(path))):
            names = []
            if isinstance(node, ast.Import):
                names = [a.name for a in node.names]
            elif isinstance(node, ast.ImportFrom) and node.level == 0:
                names = [node.module or ""]
            if any(n == "click" or n.startswith("click.") for n in names) and path not in allowed:
                found.append(f"{path.relative_to(REPO)}:{node.lineno}")
    assert not found, found
    api = (PACKAGE / "api.py").read_text()
    assert "tempfile" not in api and "make_context" not in api  # no files, no argv


def test_no_command_imports_another_commands_home():
    """What the matrix commands share lives below them (bvtest_cli.sections);
    a command's modules import only their own package and lower layers
    (commands/__init__.py, which lists every command, excepted)."""
    modules = _modules()
    found = []
    for module, path in modules.items():
        parts = module.split(".")
        if parts[0] != "commands" or len(parts) < 3:
            continue
        for node in ast.walk(ast.parse(path.read_text(), str(path))):
            if isinstance(node, (ast.Import, ast.ImportFrom)):
                for target in _resolve(module, node, modules):
                    other = target.split(".")
                    if other[0] == "commands" and len(other) > 2 and other[1] != parts[1]:
                        found.append(f"{module} imports {target}")
    assert not found, found


def test_a_field_names_its_compute_function():
    """Every per-system field's compute is a named module-level function of
    the registry (``compute=mse``), never a string looked up with getattr."""
    import inspect

    from bvtest_cli.report import registry

    for f in registry.SYSTEM_FIELDS:
        if f.compute is None:
            continue
        assert f.compute.__name__ in (f.name, f"_{f.name}"), (f.name, f.compute)
        assert inspect.getmodule(f.compute) is registry, f.name
    assert "getattr(inputs" not in (PACKAGE / "report" / "registry.py").read_text()


def test_every_subpackage_says_what_it_holds_and_may_import():
    for init in PACKAGE.glob("*/__init__.py"):
        doc = ast.get_docstring(ast.parse(init.read_text()))
        assert doc and "import" in doc, init


def test_no_comment_names_an_issue():
    pattern = re.compile(r"\bissue\s*#?\d+", re.IGNORECASE)
    hits = []
    for root in ("bvtest_cli", "bvtest", "tests", "tools", "bench"):
        for path in (REPO / root).rglob("*.py"):
            for i, line in enumerate(path.read_text().splitlines(), 1):
                if pattern.search(line) and "pattern = re.compile" not in line:
                    hits.append(f"{path.relative_to(REPO)}:{i}: {line.strip()}")
    assert not hits, "\n".join(hits)


def test_each_option_declared_once():
    """Options are declared in one table; a command changes keywords of a
    declaration by name, never declares the flag again."""
    from bvtest_cli.commands import COMMANDS
    from bvtest_cli.options import OPTIONS

    flags: dict[str, str] = {}
    for name, option in OPTIONS.items():
        for decl in option.decls:
            assert decl not in flags, f"{decl} declared for {flags[decl]} and {name}"
            flags[decl] = name
    for command in COMMANDS.values():
        assert set(command.overrides) <= set(command.options), command.name
        for changes in command.overrides.values():
            assert "decls" not in changes and "param_decls" not in changes
    source = "".join(
        (PACKAGE / "options" / name).read_text() for name in ("__init__.py", "design_options.py")
    )
    made = ("_opt(", "_count(", "_arg(", "_level(")  # the table's constructors
    assert sum(source.count(m) for m in made) >= len(OPTIONS)


def test_every_subpackage_is_packaged():
    """A wheel holds every subpackage: pyproject's package discovery finds them all."""
    tomllib = pytest.importorskip("tomllib")  # Python 3.11+
    from setuptools import find_namespace_packages

    config = tomllib.loads((REPO / "pyproject.toml").read_text())
    include = config["tool"]["setuptools"]["packages"]["find"]["include"]
    found = set(find_namespace_packages(str(REPO), include=include))
    wanted = {".".join(p.parent.relative_to(REPO).parts) for p in PACKAGE.rglob("__init__.py")}
    assert wanted <= found


def test_references_resolve():
    """A reader of the package can follow every reference: a section is cited
    by its page in docs/ (or a paper by its short name in docs/bibliography.md),
    never as "NAME §n" of a document outside the repository; and every
    docs/PAGE.md named exists."""
    outside = re.compile(r"\b[A-Z]{3,} §\d")  # an upper-case document name and a section
    stale, missing = [], []
    for path in PACKAGE.rglob("*.py"):
        text = path.read_text()
        if outside.search(text):
            stale.append(str(path.relative_to(REPO)))
        for page in re.findall(r"docs/([\w-]+\.md)", text):
            if not (REPO / "docs" / page).is_file():
                missing.append(f"{path.relative_to(REPO)}: docs/{page}")
    assert not stale and not missing, (stale, missing)


def test_analyses_are_pure():
    """analyses/ holds pure functions of arrays: nothing there opens a file,
    starts a process or reads the command line."""
    banned = re.compile(
        r"\bopen\(|\bsubprocess\b|\bmultiprocessing\b|ProcessPool|parallel_map|map_runs"
        r"|\bread_(run|qrels|bytes|scores)\w*\(|import click|from click"
    )
    hits = [
        f"{path.relative_to(REPO)}:{i}: {line.strip()}"
        for path in (PACKAGE / "analyses").rglob("*.py")
        for i, line in enumerate(path.read_text().splitlines(), 1)
        if banned.search(line)
    ]
    assert not hits, "\n".join(hits)
