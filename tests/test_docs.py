"""The manual cannot drift from the code.

- Every ``bvtest …`` example in README.md, docs/*.md (fenced ``sh`` blocks)
  and every command's ``--help`` runs on the bundled sample track and exits 0
  (``check`` examples: 0 or 1, its documented gate statuses).
- Each command page holds the command's ``--help`` exactly as it prints.
- Every relative link between the pages resolves, anchors included.

Examples of one page (or one command's help) run in order in one scratch
directory holding qrels/, sample_runs/ and docs/examples/, so an example may
use a file an earlier one wrote (``> scores.tsv``). An example that is only
bvtest commands piped into each other, the last one's output maybe sent to a
file, runs in this process (tests/test_entry_point.py starts the installed
script itself); any other shell syntax runs in bash with the installed script.
"""

from __future__ import annotations

import os
import re
import shlex
import shutil
import subprocess
from pathlib import Path

import pytest
from conftest import REPO, bvtest_executable, clean_env, run_bvtest

DOCS = REPO / "docs"
PAGES = [REPO / "README.md", *sorted(DOCS.glob("*.md"))]
FENCE = re.compile(r"^```(\w*)\n(.*?)^```", re.M | re.S)


def _commands() -> list[str]:
    from bvtest_cli.commands import COMMANDS

    return sorted(COMMANDS)


def _joined(lines: list[str]) -> list[str]:
    """Shell lines with their backslash continuations joined."""
    out, current = [], ""
    for line in lines:
        if line.rstrip().endswith("\\"):
            current += line.rstrip()[:-1] + " "
            continue
        out.append((current + line).strip())
        current = ""
    return [line for line in out if line]


def page_examples(page: Path) -> list[str]:
    examples = []
    for lang, body in FENCE.findall(page.read_text()):
        if lang not in ("sh", "bash", "shell"):
            continue
        for line in _joined(body.splitlines()):
            if re.match(r"^bvtest\b", line) or re.search(r"\|\s*bvtest\b", line):
                examples.append(line)
    return examples


def _help(command: str) -> str:
    proc = run_bvtest(command, "--help", env={"COLUMNS": "80"})
    assert proc.returncode == 0, proc.stderr
    return proc.stdout


def help_examples(command: str) -> list[str]:
    text = _help(command)
    block = text.split("Examples:\n", 1)[1].split("\n\n", 1)[0]
    return [line for line in _joined(block.splitlines()) if line.startswith("bvtest")]


def _scratch(tmp_path: Path) -> Path:
    for name in ("qrels", "sample_runs"):
        shutil.copytree(REPO / name, tmp_path / name)
    shutil.copytree(DOCS / "examples", tmp_path / "docs" / "examples")
    return tmp_path


# Outside quotes and the trailing comment, what a line of bvtest commands may
# hold besides words: " | " between commands and one " > FILE" at the end.
OTHER_SHELL = re.compile(r"[$`*?~\\;&()<\[\]{}!]|>>|>&|\S>|>\S|\S\||\|\S")


def bvtest_pipeline(example: str) -> tuple[list[list[str]], str | None] | None:
    """``bvtest A | bvtest B > FILE`` as ([A, B], FILE); None when the
    example needs more of the shell than that."""
    unquoted = re.sub(r"'[^']*'|\"[^\"]*\"", "''", example)
    unquoted = re.sub(r"\s#.*$", "", unquoted)
    if OTHER_SHELL.search(unquoted):
        return None
    words = shlex.split(example, comments=True)
    target = None
    if ">" in words:
        if words.index(">") != len(words) - 2:
            return None
        words, target = words[:-2], words[-1]
    commands: list[list[str]] = [[]]
    for word in words:
        if word == "|":
            commands.append([])
        else:
            commands[-1].append(word)
    if not all(command and command[0] == "bvtest" for command in commands):
        return None
    return [command[1:] for command in commands], target


def _run(example: str, cwd: Path, env: dict[str, str]) -> tuple[int, str]:
    """Run ``example`` as ``bash -o pipefail`` would: its status and stderr."""
    pipeline = bvtest_pipeline(example)
    if pipeline is None:
        proc = subprocess.run(
            ["bash", "-o", "pipefail", "-c", example],
            cwd=cwd, env=env, capture_output=True, text=True, timeout=600,
        )  # fmt: skip
        return proc.returncode, proc.stderr
    commands, target = pipeline
    status, stderr, data = 0, "", b""
    for args in commands:
        proc = run_bvtest(*args, stdin=data, cwd=cwd, binary=True)
        status = proc.returncode or status
        stderr += proc.stderr
        data = proc.stdout
    if target is not None:
        (cwd / target).write_bytes(data)
    return status, stderr


def test_pipelines_are_recognised():
    assert bvtest_pipeline("bvtest eval q r/ > e.json  # a comment") == (
        [["eval", "q", "r/"]],
        "e.json",
    )
    assert bvtest_pipeline("bvtest scores q r | bvtest eval --scores - -g 'A:m<=0.3'") == (
        [["scores", "q", "r"], ["eval", "--scores", "-", "-g", "A:m<=0.3"]],
        None,
    )
    shell_lines = [
        "bvtest eval q r | grep AP",
        "bvtest eval q r/* > x",
        "bvtest eval q r 2>/dev/null",
        "bvtest eval $Q r",
        "bvtest eval q r > a > b",
        "bvtest eval q r >> x",
        "bvtest eval q r>x",
    ]
    for shell in shell_lines:
        assert bvtest_pipeline(shell) is None, shell


def _run_all(examples: list[str], cwd: Path) -> None:
    assert examples
    env = clean_env()
    env["PATH"] = str(Path(bvtest_executable()).parent) + os.pathsep + env.get("PATH", "")
    for example in examples:
        status, stderr = _run(example, cwd, env)
        allowed = (0, 1) if example.startswith("bvtest check") else (0,)
        assert status in allowed, f"{example!r} → {status}: {stderr}"
        assert "Traceback" not in stderr, example


@pytest.mark.parametrize("page", [p.name for p in PAGES if page_examples(p)])
def test_page_examples_run(page, tmp_path):
    path = REPO / page if page == "README.md" else DOCS / page
    _run_all(page_examples(path), _scratch(tmp_path))


@pytest.mark.parametrize("command", _commands())
def test_help_examples_run(command, tmp_path):
    _run_all(help_examples(command), _scratch(tmp_path))


@pytest.mark.parametrize("command", _commands())
def test_command_page_holds_its_help(command):
    page = DOCS / f"{command}.md"
    assert page.exists(), f"no manual page for {command}"
    found = re.search(rf"<!-- help: {command} -->\n```text\n(.*?)```\n<!-- /help -->",
                      page.read_text(), re.S)  # fmt: skip
    assert found, f"{page.name} has no help block (python tools/gen_docs.py)"
    assert found[1] == _help(command), f"{page.name} is stale: python tools/gen_docs.py"


def _slug(heading: str) -> str:
    text = re.sub(r"[^\w\- ]", "", heading.strip().lower())
    return text.replace(" ", "-")


def test_relative_links_resolve():
    bad = []
    for page in PAGES:
        text = FENCE.sub("", page.read_text())
        for target in re.findall(r"\]\(([^)\s]+)\)", text):
            if re.match(r"^[a-z]+:", target):
                continue
            path, _, anchor = target.partition("#")
            dest = (page.parent / path).resolve() if path else page
            if not dest.exists():
                bad.append(f"{page.name}: {target}")
                continue
            if anchor and dest.suffix == ".md":
                headings = re.findall(r"^#+ (.*)$", dest.read_text(), re.M)
                if anchor not in {_slug(h) for h in headings}:
                    bad.append(f"{page.name}: {target} (no such heading)")
    assert not bad, "\n".join(bad)


def test_every_command_has_a_page_linked_from_the_index():
    index = (DOCS / "README.md").read_text()
    for command in _commands():
        assert f"({command}.md)" in index


def test_readme_is_a_door():
    assert len((REPO / "README.md").read_text().splitlines()) <= 400
