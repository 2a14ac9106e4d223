"""Each comparison is one test: a pair named twice, in either order, is
compared once and counted once in Holm's family."""

from __future__ import annotations

import json

from conftest import SAMPLE_QRELS, SAMPLE_RUNS, run_bvtest

BASE = ("compare", "-m", "AP", "--bootstrap", "200", "-f", "json")


def _pairs(*pairs: tuple[str, str]) -> list[dict]:
    args = [x for a, b in pairs for x in ("--pair", a, b)]
    proc = run_bvtest(*BASE, *args, SAMPLE_QRELS, SAMPLE_RUNS)
    assert proc.returncode == 0, proc.stderr
    return json.loads(proc.stdout)["measures"]["AP"]["pairs"], proc.stderr


def test_a_pair_named_twice_is_one_test():
    once, _ = _pairs(("sys001", "sys002"), ("sys001", "sys003"))
    twice, notes = _pairs(("sys001", "sys002"), ("sys002", "sys001"), ("sys001", "sys003"))
    assert twice == once
    assert "compared once" in notes


def test_holm_family_is_the_distinct_pairs():
    rows, _ = _pairs(("sys001", "sys002"), ("sys002", "sys001"), ("sys001", "sys003"))
    mean = [r for r in rows if r["field"] == "mean"]
    assert len(mean) == 2
    # Holm over m = 2 tests, by hand: the smaller p doubled, the larger
    # max(that, itself), capped at 1.
    low, high = sorted(mean, key=lambda r: r["p"])
    assert low["p_adj"] == min(1.0, 2 * low["p"])
    assert high["p_adj"] == min(1.0, max(2 * low["p"], high["p"]))
