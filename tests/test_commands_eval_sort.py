"""--sort orders the tables of runs in every format; a --baseline is named in
the page's charts even among many runs."""

from __future__ import annotations

import json
import re

import numpy as np
import pytest
from conftest import SAMPLE_QRELS, SAMPLE_RUNS, run_bvtest


def systems_of(*args: str) -> dict:
    proc = run_bvtest("eval", "-m", "AP", "-f", "json", "--quiet", *args, SAMPLE_QRELS, SAMPLE_RUNS)
    assert proc.returncode == 0, proc.stderr
    return json.loads(proc.stdout)["measures"]["AP"]["systems"]


@pytest.mark.parametrize(
    ("key", "order"),
    [
        ("mean", lambda s: sorted(s, key=lambda r: (-s[r]["mean"], r))),
        ("mse", lambda s: sorted(s, key=lambda r: (s[r]["mse"], r))),
        ("name", sorted),
    ],
)
def test_sort_orders_the_runs(key, order):
    unsorted = systems_of()
    assert list(unsorted) == [f"sys{i:03d}" for i in range(1, 13)]  # input order by default
    got = systems_of("--sort", key)
    assert list(got) == order(unsorted)
    assert got == unsorted  # the same numbers, only in another order


def test_the_page_lists_runs_best_first_by_default():
    proc = run_bvtest("eval", "-m", "AP", "-f", "html", "--quiet", SAMPLE_QRELS, SAMPLE_RUNS)
    data = re.search(r'<script type="application/json" id="bvtest-data">(.*?)</script>',
                     proc.stdout, re.S).group(1)  # fmt: skip
    systems = json.loads(data)["measures"]["AP"]["systems"]
    assert list(systems) == sorted(systems, key=lambda r: (-systems[r]["mean"], r))


def test_a_baseline_is_named_among_many_runs(tmp_path):
    """25 runs: only the highlighted are labelled; the baseline, a middling
    run, is one of them."""
    rng = np.random.default_rng(4)
    x = np.clip(rng.beta(2, 5, (25, 1)) + rng.normal(0, 0.1, (25, 30)), 0, 1)
    path = tmp_path / "scores.tsv"
    lines = ["system\ttopic\tmeasure\tvalue"]
    lines += [f"run{i:02d}\t{j}\tAP\t{float(x[i, j])!r}" for i in range(25) for j in range(30)]
    path.write_text("\n".join(lines) + "\n")
    means = x.mean(axis=1)
    middling = f"run{int(np.argsort(means)[12]):02d}"
    page = run_bvtest("eval", "-f", "html", "--scores", path, "--baseline", middling).stdout
    labels = set(re.findall(r"<text[^>]*>([^<]*)</text>", page))
    assert middling in labels or middling.removeprefix("run") in labels
    without = run_bvtest("eval", "-f", "html", "--scores", path).stdout
    assert middling not in set(re.findall(r"<text[^>]*>([^<]*)</text>", without))
