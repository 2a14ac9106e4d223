"""Huge requests are refused up front, from a process of its own, within
seconds: one stderr line naming the option, the limit and where the limit
comes from (or what would fit), exit 2, nothing on stdout. A budget above
every pool is no huge request: it judges the whole pool."""

from __future__ import annotations

import glob
import json
import subprocess

import pytest
from conftest import SAMPLE_QRELS, SAMPLE_RUNS, assert_one_line_error, bvtest_executable, clean_env

import bvtest

Q, R = str(SAMPLE_QRELS), str(SAMPLE_RUNS)


def run(*args: str, env: dict[str, str] | None = None) -> subprocess.CompletedProcess:
    """The installed command; a hang fails the test (TimeoutExpired) after 60 s."""
    return subprocess.run(
        [bvtest_executable(), *args], capture_output=True, text=True, timeout=60,
        env=clean_env(**(env or {})),
    )  # fmt: skip


@pytest.mark.parametrize(
    ("args", "fragments"),
    [
        # memory: 1e11 resamples' counts, before any is drawn
        (("sensitivity", "-m", "AP", "--bootstrap", "100000000000", Q, R),
         ("--bootstrap 100000000000:", "more than the limit",
          "3/4 of this machine's memory; $BVTEST_MEMORY_MB sets it")),
        (("sensitivity", "-m", "AP", "--bootstrap", "1e11", Q, R), ("--bootstrap", "1e11")),
        # work: the B × B products of Δ, with the B that fits
        (("rankings", "--reference", Q, "--collection", f"x={Q}", "--samples", "100000", R),
         ("--samples 100000:", "more than the limit", "at most --samples ")),
        (("rankings", "--reference", Q, "--collection", f"x={Q}", "--bootstrap", "100000", R),
         ("--bootstrap 100000:", "more than the limit", "at most --bootstrap ")),
        # sizes beyond int64
        (("eval", "-m", "AP", "--group", "random:99999999999999999999", Q, R), ("--group",)),
        (("tradeoff", "-m", "AP", "--random-size", "99999999999999999999", Q, R),
         ("--random-size",)),
        (("tradeoff", "-m", "AP", "--difficulty-size", "99999999999999999999", Q, R),
         ("--difficulty-size",)),
    ],
)  # fmt: skip
def test_a_huge_request_is_refused_up_front(args, fragments):
    proc = run(*args)
    assert_one_line_error(proc, *fragments)
    assert proc.stderr.startswith("bvtest: ")


def test_the_memory_message_names_the_environment_when_it_set_the_limit():
    proc = run("sensitivity", "-m", "AP", "--bootstrap", "1000000", Q, R,
               env={"BVTEST_MEMORY_MB": "100"})  # fmt: skip
    assert_one_line_error(proc, "--bootstrap 1000000:", "limit 100 MiB (set by $BVTEST_MEMORY_MB)")


def test_what_fits_does_fit():
    """The B the refusal offers is accepted by the check (and one more is not)."""
    from bvtest_cli.report.limits import WORK_LIMIT, delta_work, ranking_products

    proc = run("rankings", "--reference", Q, "--collection", f"x={Q}", "--samples", "100000", R)
    most = int(proc.stderr.rsplit("at most --samples ", 1)[1].split()[0])
    products = ranking_products(1)
    assert products == 3  # σ² of X and of G, and Δ(X, G)
    assert delta_work(most, 12, products) <= WORK_LIMIT < delta_work(most + 1, 12, products)
    # by hand: 3 · B² · (2 · 66 / 50 + 40) operations for 12 runs (the dot
    # products inside a matrix product, at a fiftieth of an operation each)
    assert delta_work(1000, 12, 3) == pytest.approx(3 * 1000**2 * (2 * 66 / 50 + 40), rel=1e-15)


def test_the_api_refuses_as_the_cli_does():
    with pytest.raises(bvtest.InputError, match=r"^samples=100000: .*at most samples=\d+ fits"):
        bvtest.run("rankings", runs=R, reference=Q, collections=[f"x={Q}"], samples=100000)
    with pytest.raises(bvtest.InputError, match="random_size="):
        bvtest.run("tradeoff", Q, R, measures="AP", random_size=10**20)


def _pool_size() -> int:
    """Independently: the distinct (topic, docno) of the runs over the topics
    with a relevant document (the topics budget evaluates)."""
    topics = set()
    with open(Q) as f:
        for line in f:
            qid, _, _, grade = line.split()[:4]
            if int(grade) >= 1:
                topics.add(qid)
    pool = set()
    for path in glob.glob(f"{R}/*"):
        with open(path) as f:
            for line in f:
                parts = line.split()
                if parts and parts[0] in topics:
                    pool.add((parts[0], parts[2]))
    return len(pool)


def test_a_budget_above_every_pool_judges_the_whole_pool():
    proc = run("budget", "--budget", "1000000000000", "--bootstrap", "10", "--draws", "2",
               "--methods", "depth,xinfAP", "-f", "json", Q, R)  # fmt: skip
    assert proc.returncode == 0, proc.stderr
    doc = json.loads(proc.stdout)
    cells = [c for c in doc["cells"] if c["topics_scale"] == 1]
    assert cells and all(c["budget"] == 10**12 for c in cells)
    assert {c["assessments"] for c in cells} == {_pool_size()}
