"""A report in a notebook: ``repr`` is one short line (command, measures,
runs, topics) and ``_repr_html_`` the body of the ``-f html`` page, without
the document around it."""

from __future__ import annotations

import re
from html.parser import HTMLParser

import pytest
from conftest import SAMPLE_QRELS, SAMPLE_RUNS

import bvtest
from bvtest_cli.render.formats import render


def sample_counts() -> tuple[int, int]:
    """Runs and analysed topics of the sample track, from the files: a run
    per file, a topic per qrels topic with a document of grade >= 1."""
    runs = len([p for p in SAMPLE_RUNS.iterdir() if p.is_file()])
    topics = {
        line.split()[0]
        for line in SAMPLE_QRELS.read_text().splitlines()
        if line.strip() and int(line.split()[3]) >= 1
    }
    return runs, len(topics)


@pytest.fixture(scope="module")
def report():
    return bvtest.evaluate(str(SAMPLE_QRELS), str(SAMPLE_RUNS), measures=["AP", "nDCG@10"])


def test_repr_is_one_short_line(report):
    runs, topics = sample_counts()
    assert (runs, topics) == (12, 29)
    assert repr(report) == f"<Report eval: AP, nDCG@10 · {runs} runs · {topics} topics>"


def test_repr_of_other_commands():
    compared = bvtest.run(
        "compare", str(SAMPLE_QRELS), str(SAMPLE_RUNS), pair=[("sys001", "sys002")],
        measures="AP", bootstrap=50,
    )  # fmt: skip
    assert repr(compared) == "<Report compare: AP>"
    many = bvtest.evaluate(
        str(SAMPLE_QRELS), str(SAMPLE_RUNS), measures=["AP", "nDCG@10", "P@10", "ERR@20", "RR"]
    )
    text = repr(many)
    assert "\n" not in text and len(text) <= 80
    assert text.startswith("<Report eval: AP, nDCG@10, … (5)") and text.endswith("29 topics>")


def test_repr_html_is_the_page_body_without_the_document(report):
    fragment = report._repr_html_()
    assert not re.search(r"<(!DOCTYPE|html|head|body|style)\b", fragment, re.I)
    page = render(report, "html")
    body = page[page.index("<body>\n") + len("<body>\n") : page.index("</body>")]
    assert fragment == body
    assert "<table" in fragment and "<svg" in fragment
    assert 'id="bvtest-data"' in fragment


def test_repr_html_is_well_nested(report):
    """Every element the fragment opens it closes: it can sit in a notebook cell."""
    stack: list[str] = []
    void = {"meta", "br", "img", "input", "hr", "link"}

    class Nesting(HTMLParser):
        def handle_starttag(self, tag, attrs):
            if tag not in void:
                stack.append(tag)

        def handle_endtag(self, tag):
            assert stack and stack.pop() == tag, (tag, stack[-3:])

    Nesting().feed(report._repr_html_())
    assert stack == []
