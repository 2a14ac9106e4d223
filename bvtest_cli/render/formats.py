"""The one entry point from a report to the text of a ``--format``: the
HTML page (:mod:`bvtest_cli.render.html`) or one of the text formats
(:mod:`bvtest_cli.render.text`).

May import: render (text, html) and what they import.
"""

from __future__ import annotations

from ..report.model import Report
from .html import Page, render_html
from .text import TABLE_WIDTH
from .text import render as render_text


def render(
    report: Report,
    fmt_name: str,
    digits: int = 4,
    caption: str | None = None,
    page: Page | None = None,
    width: int | None = TABLE_WIDTH,
    sort: str | None = None,
) -> str:
    """The whole output of one report in ``fmt_name``; ends with a newline.
    ``page`` says how the report was made (the HTML page's header);
    ``width`` the columns a line of ``-f table`` may take (None: no limit);
    ``sort`` the order of the runs in the tables of runs (mean, mse, name;
    None: best first by mean on the page, as computed elsewhere)."""
    key = sort or ("mean" if fmt_name == "html" else None)  # a reader's page: best first
    report = report.sorted_by(key) if key else report
    if fmt_name == "html":
        return render_html(report, digits, page or Page())
    return render_text(report, fmt_name, digits, caption, width)
