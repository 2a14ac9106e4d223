"""The API's errors name keywords, never flags; docs/api.md lists every
keyword whose name differs from its flag.

Oracles: the option declarations (each flag and the keyword it sets, read
from bvtest_cli.options.OPTIONS) and the text of docs/api.md.
"""

from __future__ import annotations

import re
from pathlib import Path

import pytest
from conftest import SAMPLE_QRELS, SAMPLE_RUNS

import bvtest
from bvtest_cli.errors import InputError
from bvtest_cli.options import OPTIONS

DOCS = Path(__file__).resolve().parents[1] / "docs" / "api.md"
FLAG = re.compile(r"(?<![\w-])(?:--[a-z][\w-]*|-[a-zA-Z](?![\w-]))")


def error_of(call) -> str:
    with pytest.raises(bvtest.InputError) as info:
        call()
    return str(info.value)


@pytest.mark.parametrize(
    ("call", "keyword"),
    [
        (lambda: bvtest.evaluate(SAMPLE_QRELS, SAMPLE_RUNS, measures="XX"), "measures="),
        (lambda: bvtest.evaluate(SAMPLE_QRELS, SAMPLE_RUNS, measures="AP", bootstrap=50), "ci="),
        (
            lambda: bvtest.run("budget", SAMPLE_QRELS, SAMPLE_RUNS, methods="depth", strata=3),
            "strata=",
        ),
        (
            lambda: bvtest.run(
                "sample",
                SAMPLE_QRELS,
                SAMPLE_RUNS,
                method="pps",
                budgets=5,
                rel_level=2,
                output="never",
            ),
            "rel_level=",
        ),
        (
            lambda: bvtest.run(
                "rankings",
                runs=SAMPLE_RUNS,
                reference=str(SAMPLE_QRELS),
                collections=[f"x={SAMPLE_QRELS}"],
                measures="AP,P@10",
            ),
            "measures=",
        ),
    ],
)
def test_api_errors_name_the_keyword_not_the_flag(call, keyword):
    message = error_of(call)
    assert keyword in message
    assert not FLAG.search(message), message
    assert not Path("never").exists()


def keyword_paragraph() -> str:
    text = DOCS.read_text()
    start = text.index("Keywords whose names differ from their flags")
    end = text.find("\n\n", start)
    return text[start : end if end >= 0 else len(text)]


def test_the_manual_lists_every_keyword_that_differs_from_its_flag():
    listed = set(re.findall(r"`([a-z_]+)`", keyword_paragraph()))
    differ = set()
    for option in OPTIONS.values():
        long = [d[2:].replace("-", "_") for d in option.decls if d.startswith("--")]
        short = [d for d in option.decls if re.fullmatch(r"-[a-zA-Z]", d)]
        if option.decls and (option.attr not in long or short):
            differ.add(option.attr)
    missing = sorted(differ - listed)
    assert not missing, missing


@pytest.mark.parametrize(
    ("cli", "api"),
    [
        ("--bootstrap 1e11: too many", "bootstrap=1e11: too many"),
        (
            "--bootstrap means something only with --ci LEVEL",
            "bootstrap= means something only with ci=LEVEL",
        ),
        ("use --mode intra)", "use mode=intra)"),
        ("give -m MEASURE", "give measures=MEASURE"),
        ("with --group random:K.", "with group=random:K."),
        ("at most --repeats 5000 fits", "at most repeats=5000 fits"),
        ("-q and -c are", "per_topic= and complete= are"),  # flags take no value
        ("--topics-scale two or more", "topics_scale= two or more"),  # a word, not a value
        ("not a `bvtest budget -f json` report", "not a `bvtest budget -f json` report"),
    ],
)
def test_a_message_names_keywords_with_their_values(cli, api):
    from bvtest_cli.api import _in_keywords

    assert str(_in_keywords(InputError(cli))) == api
