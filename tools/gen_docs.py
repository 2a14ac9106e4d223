"""Write each command's ``--help`` into its page of the manual (docs/CMD.md),
the API's signatures into docs/api.md's reference, and each command's
parameters' dataclass into bvtest_cli/commands/NAME/params.py.

The block between ``<!-- help: CMD -->`` and ``<!-- /help -->`` is the exact
output of ``bvtest CMD --help`` at 80 columns, so the manual's options cannot
drift from the code (tests/test_docs.py checks it). Run after changing an
option or a command's help::

    python tools/gen_docs.py
"""

from __future__ import annotations

import os
import re
import subprocess
import sys
from pathlib import Path

REPO = Path(__file__).resolve().parents[1]
BLOCK = re.compile(r"(<!-- help: (\w+) -->\n)(.*?)(<!-- /help -->)", re.S)
API_BLOCK = re.compile(r"(<!-- api-reference -->\n)(.*?)(<!-- /api-reference -->)", re.S)


def api_reference() -> str:
    """docs/api.md's reference, from the API's signatures (bvtest_cli.api.reference)."""
    sys.path.insert(0, str(REPO))
    from bvtest_cli.api import reference

    return reference()


def help_text(command: str) -> str:
    env = {**os.environ, "COLUMNS": "80"}
    exe = Path(sys.executable).with_name("bvtest")
    out = subprocess.run(
        [str(exe), command, "--help"], capture_output=True, text=True, env=env, check=True
    )
    return out.stdout


def block(command: str) -> str:
    return f"```text\n{help_text(command)}```\n"


def params_sources() -> dict[Path, str]:
    """bvtest_cli/commands/NAME/params.py of every command, from the option declarations."""
    sys.path.insert(0, str(REPO))
    from bvtest_cli.commands import COMMANDS
    from bvtest_cli.options.params import params_module

    commands = REPO / "bvtest_cli" / "commands"
    return {commands / n / "params.py": params_module(n, c) for n, c in COMMANDS.items()}


def main() -> None:
    for path, source in params_sources().items():
        if not path.is_file() or path.read_text() != source:
            path.write_text(source)
            print(f"updated {path.relative_to(REPO)}")
    for page in sorted((REPO / "docs").glob("*.md")):
        text = page.read_text()
        new = BLOCK.sub(lambda m: m[1] + block(m[2]) + m[4], text)
        new = API_BLOCK.sub(lambda m: m[1] + api_reference() + m[3], new)
        if new != text:
            page.write_text(new)
            print(f"updated {page.relative_to(REPO)}")


if __name__ == "__main__":
    main()
