"""The manual says what sample, budget and rankings do.

Oracles: each command's own ``--help`` (the options it has), the commands'
declarations (which take a size option), and the page a command writes.
"""

from __future__ import annotations

import re
from pathlib import Path

from conftest import SAMPLE_QRELS, SAMPLE_RUNS

from bvtest_cli.commands import COMMANDS

DOCS = Path(__file__).resolve().parents[1] / "docs"


def help_of(bvtest, command: str) -> str:
    proc = bvtest(command, "--help")
    assert proc.returncode == 0, proc.stderr
    return " ".join(proc.stdout.split())


def test_the_commands_said_to_take_m_take_it(bvtest):
    text = " ".join((DOCS / "measures.md").read_text().split())
    said = re.search(r"with `-m` wherever a measure goes \(([^)]*)\)", text)
    assert said
    commands = re.findall(r"`(\w+)`", said[1])
    assert commands
    for command in commands:
        assert "-m, --measure" in help_of(bvtest, command), command
    assert "-m, --measure" not in help_of(bvtest, "budget")
    assert "`budget`" not in said[1]


def test_limits_lists_every_command_with_a_size_option():
    text = (DOCS / "limits.md").read_text()
    table = "\n".join(x for x in text.splitlines() if x.startswith("| `"))
    for name in ("sample", "budget"):
        options = COMMANDS[name].options
        assert {"repeats", "strata"} <= set(options)
        assert f"(`{name}`" in table or f"`{name}`," in table, name
    assert "every option that sets the\nsize" not in text


def test_budget_help_says_when_no_depth_fits(bvtest):
    text = help_of(bvtest, "budget")
    assert "when even depth 1 holds more" in text
    # RMSE² = b² + σ² with b² signed, as Cormack & Grossman's Table 1 prints it
    assert "RMSE = sqrt(b^2 + sigma^2) (b^2 signed" in " ".join(text.split())


def test_rankings_help_says_how_rmse_takes_a_negative_b2(bvtest):
    text = " ".join(help_of(bvtest, "rankings").split())
    assert "RMSE = sqrt(b^2 + sigma^2(X))" in text
    assert "below sigma where b^2 < 0" in text and "0 only where the sum is negative" in text


def test_sample_help_describes_only_what_sample_does(bvtest):
    text = help_of(bvtest, "sample")
    rel = text[text.index("-l, --rel-level") : text.index("-j, --jobs")]
    assert "mtf and hedge" in rel and "topic set" not in rel
    jobs = text[text.index("-j, --jobs") : text.index("--quiet")]
    assert "read" in jobs and "evaluated" not in jobs


def test_the_html_header_keeps_the_promise_of_formats_md(bvtest):
    promise = " ".join((DOCS / "formats.md").read_text().split())
    assert "`budget` at its top" in promise
    proc = bvtest("budget", "-f", "html", "--budget", 10, "--methods", "hedge", "--bootstrap", 2,
                  "--topics-scale", 1, SAMPLE_QRELS, SAMPLE_RUNS)  # fmt: skip
    assert proc.returncode == 0, proc.stderr
    header = proc.stdout[proc.stdout.index('<dl class="inputs">') :]
    header = header[: header.index("</dl>")]
    for fact in ("qrels", "runs", "topics", "measures", "bvtest", "command"):
        assert f"<dt>{fact}</dt>" in header, fact
    assert "<dt>runs</dt><dd>12</dd>" in header  # the sample track's twelve run files
