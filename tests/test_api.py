"""The Python API: the same reports as the CLI, the same checks.

Expected values come from the CLI itself, run through the console script's
``cli.main()`` (the API must give exactly what `bvtest CMD -f json` prints),
from ir_measures' own readers and evaluator, from hand computations written
here, and from click's completion scripts.
"""

from __future__ import annotations

import doctest
import json
import math
import os
import shutil

import ir_measures
import numpy as np
import pytest
from conftest import REPO, SAMPLE_QRELS, SAMPLE_RUNS, run_bvtest

import bvtest
from bvtest_cli import api
from bvtest_cli.commands import COMMANDS
from bvtest_cli.errors import InputError
from bvtest_cli.render import text as render
from bvtest_cli.report import model as report_module

Q, R = "qrels/qrels.txt", "sample_runs/"
SCORES_FILE = "tests/golden/sample-scores.out.tsv"  # the sample track's `bvtest scores`

#: Files this module writes, in a folder of each test process's own (two
#: xdist workers run the module at once; one's clean-up must not pull the
#: other's files away).
SCRATCH = f"tests/api-scratch-{os.environ.get('PYTEST_XDIST_WORKER', 'main')}"
NEW_RUN_PATH = f"{SCRATCH}/api-new.run"

# command → (CLI arguments, API call). The API call gets the same inputs and
# options by keyword; -j 1 where the command draws random numbers per run.
CASES = {
    "eval": (("eval", Q, R), lambda: bvtest.evaluate(Q, R)),
    "eval-options": (
        ("eval", "--group", "random:4", "--repeats", "30", "--seed", "3", "--baseline",
         "sys003", "--alpha", "0,2.5,7", "-m", "AP,P@10", "-m", "AP(rel=2)", "-l", "2", Q, R),
        lambda: bvtest.evaluate(
            Q, R, group=("random", 4), repeats=30, seed=3, baseline="sys003",
            alphas=[0, 2.5, 7], measures=["AP,P@10", "AP(rel=2)"], rel_level=2,
        ),
    ),
    "eval-scores": (
        ("eval", "--scores", SCORES_FILE, "--normalize", "minmax", "--target", "ideal"),
        lambda: bvtest.analyse(SCORES_FILE, normalize="minmax", target="ideal"),
    ),
    "scores": (("scores", "-m", "AP", "-l", "2", Q, R),
               lambda: bvtest.scores(Q, R, measures="AP", rel_level=2)),
    "instability": (("instability", "-m", "ERR@20", Q, R),
                    lambda: bvtest.instability(Q, R, measures="ERR@20")),
    "tradeoff": (("tradeoff", "--repeats", "10", "--normalize", "ratio", Q, R),
                 lambda: bvtest.tradeoff(Q, R, repeats=10, normalize="ratio")),
    "pertopic": (("pertopic", "-k", "6", "-q", "-j", "1", Q, R),
                 lambda: bvtest.pertopic(Q, R, samples=6, per_topic=True, jobs=1)),
    "check": (
        ("check", Q, R, NEW_RUN_PATH, "-g", "AP:mse<=sys001",
         "-g", "nDCG@10:georisk@5>=0.4"),
        lambda: bvtest.check(Q, R, [NEW_RUN_PATH],
                             gates=["AP:mse<=sys001", "nDCG@10:georisk@5>=0.4"]),
    ),
}  # fmt: skip

# rankings (RUNS... with --reference and --collection), pool (no
# --format: TREC qrels), permute (files in --out, nothing on stdout).
PERM_CLI, PERM_API = f"{SCRATCH}/perm-cli", f"{SCRATCH}/perm"
CASES.update(
    {
        "rankings": (
            ("rankings", "--reference", Q, "--collection", f"X={Q}", "--collection", f"Y={Q}",
             "--bootstrap", "50", R),
            lambda: bvtest.rankings(runs=R, reference=Q, collections=[f"X={Q}", f"Y={Q}"],
                                    bootstrap=50),
        ),
        "pool": (("pool", "--depth", "5", Q, R), lambda: bvtest.pool(Q, R, depth=5)),
        "permute": (("permute", "--out", PERM_CLI, Q, R),
                    lambda: bvtest.permute(Q, R, output=PERM_API)),
    }
)  # fmt: skip
# conditions, runs split into (system, condition) by a pattern.
PATTERN = r"(?P<system>sys0\d)(?P<condition>\d)"
CASES["conditions"] = (
    ("conditions", "--pattern", PATTERN, "-m", "AP", Q, R),
    lambda: bvtest.conditions(Q, R, condition_pattern=PATTERN, measures=["AP"]),
)
# variations, plain TREC data in inter mode (each topic one query).
CASES["variations"] = (
    ("variations", "-m", "AP", "--alpha=-2:2:1", Q, R),
    lambda: bvtest.variations(Q, R, measures=["AP"], alphas="-2:2:1"),
)
# compare, every pair with Holm's correction.
CASES["compare"] = (
    ("compare", "-m", "AP", "--pairs", "all", "--bootstrap", "50", Q, R),
    lambda: bvtest.compare(Q, R, measures=["AP"], pairs="all", bootstrap=50),
)
# compare --pair, a tuple per pair (names) in the API.
CASES["compare-pair"] = (
    ("compare", "--pair", "sys001", "sys002", "--pair", "sys005", "sys003", "-m", "AP",
     "--bootstrap", "50", "--alpha", "0,5", Q, R),
    lambda: bvtest.compare(Q, R, pair=[("sys001", "sys002"), ("sys005", "sys003")],
                           measures="AP", bootstrap=50, alphas=[0, 5]),
)  # fmt: skip
# sample (files in --out), budget (Experiment 1, small).
SAMPLE_CLI, SAMPLE_API = f"{SCRATCH}/sample-cli", f"{SCRATCH}/sample"
CASES["sample"] = (
    ("sample", "--budget", "5", "--draws", "2", "--out", SAMPLE_CLI, Q, R),
    lambda: bvtest.sample(Q, R, budgets=5, draws=2, output=SAMPLE_API),
)
CASES["budget"] = (
    ("budget", "--budget", "5,9", "--draws", "3", "--bootstrap", "30", "--methods",
     "statAP,hedge", Q, R),
    lambda: bvtest.budget(Q, R, budgets=[5, 9], draws=3, bootstrap=30,
                          methods=["statAP", "hedge"]),
)  # fmt: skip
CASES["design"] = (
    ("design", "-m", "AP", "--bootstrap", "50", "--topic-counts", "25,50", Q, R),
    lambda: bvtest.design(Q, R, measures="AP", bootstrap=50, topic_counts=[25, 50]),
)
CASES["sensitivity"] = (
    ("sensitivity", "-m", "AP", "--test", "t", "--bootstrap", "100", "--subset-sizes", "5,10",
     Q, R),
    lambda: bvtest.sensitivity(Q, R, measures="AP", test="t", bootstrap=100,
                               subset_sizes=[5, 10]),
)  # fmt: skip
JUDGE = "docs/examples/judge.qrels"
CASES["judges"] = (
    ("judges", "--judge", f"llm={JUDGE}", "-m", "AP", "--human-topics", "5", "--draws", "10",
     "docs/examples/human10.qrels", R),
    lambda: bvtest.judges("docs/examples/human10.qrels", R, judges=[f"llm={JUDGE}"],
                          measures="AP", human_topics=[5], draws=10),
)  # fmt: skip
WITHOUT_FORMAT = {"scores", "pool", "permute", "sample"}

NEW_RUN = REPO / NEW_RUN_PATH


@pytest.fixture(scope="module", autouse=True)
def in_repo():
    """Relative paths as in the doctests and the CLI cases; a new run for check."""
    old = os.getcwd()
    os.chdir(REPO)
    lines = (SAMPLE_RUNS / "sys003").read_text().replace("sys003", "new").splitlines()
    NEW_RUN.parent.mkdir(parents=True, exist_ok=True)
    NEW_RUN.write_text("\n".join(lines[::2]) + "\n")  # every other document: a worse run
    yield
    shutil.rmtree(REPO / SCRATCH, ignore_errors=True)
    os.chdir(old)


_api_reports: dict[str, report_module.Report] = {}


def api_report(case: str) -> report_module.Report:
    if case not in _api_reports:
        _api_reports[case] = CASES[case][1]()
    return _api_reports[case]


def cli_stdout(case: str, fmt: str | None) -> tuple[str, int]:
    """The command's stdout with --format fmt (None: a command without one)."""
    args = CASES[case][0]
    proc = run_bvtest(*args, *(("-f", fmt) if fmt else ()), "--quiet", cwd=REPO)
    assert proc.returncode in (0, 1), proc.stderr
    return proc.stdout, proc.returncode


def test_every_command_has_a_case():
    """A command added to the CLI needs a case here (and gets an API function
    for free through bvtest.NAME); plot is tested on its own below."""
    covered = {args[0] for args, _ in CASES.values()}
    assert set(COMMANDS) - {"plot"} <= covered, "add a case for the new command to CASES"
    for name in COMMANDS:
        assert callable(getattr(bvtest, name if name != "eval" else "evaluate"))


def test_scores_report_is_the_cli_scores_file():
    """`scores` has no --format: its output is the long TSV, which is the
    report's trec rendering and, parsed, its to_dict()."""
    stdout, _ = cli_stdout("scores", None)
    report = api_report("scores")
    assert report.render("trec") == stdout
    header, *lines = [line.split("\t") for line in stdout.splitlines()]
    parsed = [dict(zip(header, (*f[:3], float(f[3])), strict=True)) for f in lines]
    assert report.to_dict() == {"scores": parsed, "notes": list(report.notes)}


def test_pool_report_is_the_cli_qrels():
    stdout, _ = cli_stdout("pool", None)
    assert api_report("pool").render("trec") == stdout
    assert stdout.startswith("401 0 ")


def test_permute_writes_the_cli_files():
    cli_stdout("permute", None)
    assert api_report("permute").notes == (f"wrote 12 engineered run(s) (sys001.perm, ...) to "
                                           f"{PERM_API}",)  # fmt: skip
    cli_files = sorted((REPO / PERM_CLI).iterdir())
    api_files = sorted((REPO / PERM_API).iterdir())
    assert [p.name for p in api_files] == [p.name for p in cli_files]
    assert all(a.read_bytes() == c.read_bytes() for a, c in zip(api_files, cli_files, strict=True))


def test_sample_writes_the_cli_files():
    cli_stdout("sample", None)
    notes = api_report("sample").notes
    assert notes[-1].startswith(f"wrote 2 pps sample(s) to {SAMPLE_API}: 5.0 judgments")
    cli_files = sorted((REPO / SAMPLE_CLI).iterdir())
    api_files = sorted((REPO / SAMPLE_API).iterdir())
    assert (
        [p.name for p in api_files]
        == [p.name for p in cli_files]
        == ["pps.001.qrels", "pps.002.qrels"]
    )
    assert all(a.read_bytes() == c.read_bytes() for a, c in zip(api_files, cli_files, strict=True))


def test_plot_returns_eval_report(tmp_path):
    pytest.importorskip("matplotlib")
    report = bvtest.plot(Q, R, measures="AP", output=tmp_path / "api.png")
    assert (tmp_path / "api.png").read_bytes()[:8] == b"\x89PNG\r\n\x1a\n"
    eval_json = run_bvtest("eval", "-m", "AP", "-f", "json", Q, R, cwd=REPO).stdout
    assert report.to_dict() == json.loads(eval_json)


@pytest.mark.parametrize("case", sorted(set(CASES) - WITHOUT_FORMAT))
def test_to_dict_is_the_cli_json(case):
    stdout, status = cli_stdout(case, "json")
    report = api_report(case)
    assert report.to_dict() == json.loads(stdout)
    assert report.status == status


FORMAT_CASES = [("eval-options", f) for f in ("trec", "table", "tsv", "csv")]
FORMAT_CASES += [("check", f) for f in ("text", "table", "csv")]
FORMAT_CASES += [
    (c, "trec") for c in ("eval", "eval-scores", "instability", "tradeoff", "pertopic")
]
FORMAT_CASES += [("rankings", f) for f in ("trec", "table", "markdown")]
FORMAT_CASES += [("budget", f) for f in ("trec", "table", "csv")]


@pytest.mark.parametrize(("case", "fmt"), FORMAT_CASES)
def test_render_is_the_cli_stdout(case, fmt):
    stdout, _ = cli_stdout(case, fmt)
    assert api_report(case).render(fmt) == stdout


def test_digits():
    proc = run_bvtest("eval", "--scores", SCORES_FILE, "-m", "AP", "--digits", "7", cwd=REPO)
    assert bvtest.analyse(SCORES_FILE, measures="AP").render("trec", digits=7) == proc.stdout


def test_notes_are_the_cli_notes():
    proc = run_bvtest(*CASES["eval"][0], "-m", "AP", cwd=REPO)
    notes = [line.removeprefix("bvtest: note: ") for line in proc.stderr.splitlines()]
    assert list(bvtest.evaluate(Q, R, measures="AP").notes) == notes
    assert notes  # the sample track has a dropped topic and a run missing topics


# --------------------------------------------------------------------------- in-memory inputs


def sample_objects():
    """The sample track as ir_measures reads it: Qrel and ScoredDoc records."""
    qrels = list(ir_measures.read_trec_qrels(str(SAMPLE_QRELS)))
    runs = {p.name: list(ir_measures.read_trec_run(str(p))) for p in sorted(SAMPLE_RUNS.iterdir())}
    return qrels, runs


def test_ir_measures_records_give_the_report_of_the_files():
    qrels, runs = sample_objects()
    from_files = bvtest.evaluate(Q, R, alphas="0,5")
    from_objects = bvtest.evaluate(qrels, runs, alphas="0,5")
    assert from_objects.to_dict() == from_files.to_dict()
    assert from_objects.notes == from_files.notes


def test_dicts_and_dataframes_give_the_report_of_the_files():
    pd = pytest.importorskip("pandas")
    qrels, runs = sample_objects()
    qrels_dict: dict = {}
    for q in qrels:
        qrels_dict.setdefault(q.query_id, {})[q.doc_id] = q.relevance
    as_dicts = {}
    for name, run in runs.items():
        docs: dict = {}
        for d in run:
            docs.setdefault(d.query_id, {})[d.doc_id] = d.score
        as_dicts[name] = docs
    frame_runs = {n: pd.DataFrame(r) for n, r in runs.items()}  # query_id, doc_id, score
    expected = bvtest.evaluate(Q, R, measures="AP,nDCG@10").to_dict()
    assert bvtest.evaluate(qrels_dict, as_dicts, measures="AP,nDCG@10").to_dict() == expected
    assert bvtest.evaluate(pd.DataFrame(qrels), frame_runs, measures="AP,nDCG@10").to_dict() == (
        expected
    )
    # a mapping of names to paths: the names are the keys
    renamed = {f"r{i}": SAMPLE_RUNS / n for i, n in enumerate(runs)}
    got = bvtest.evaluate(Q, renamed, measures="AP").to_dict()["measures"]["AP"]["systems"]
    assert list(got) == [f"r{i}" for i in range(len(runs))]
    assert got["r0"] == expected["measures"]["AP"]["systems"]["sys001"]


def test_from_ir_measures_is_evaluate_on_the_files():
    """ir_measures' own evaluation of the sample track, analysed by bvtest, is
    the report of `bvtest eval` on the files (ERR@20 left out: ir_measures
    serves it through gdeval.pl, which prints rounded values)."""
    qrels, runs = sample_objects()
    measures = [ir_measures.AP, ir_measures.nDCG @ 10, ir_measures.P @ 10]
    metrics = {n: ir_measures.iter_calc(measures, qrels, run) for n, run in runs.items()}
    table = bvtest.from_ir_measures(metrics, qrels=qrels)
    names = ["AP", "nDCG@10", "P@10"]
    analysed, evaluated = (
        {k: v for k, v in report.to_dict().items() if k != "notes"}
        for report in (bvtest.analyse(table, measures=names), bvtest.evaluate(Q, R, measures=names))
    )
    # the same numbers; a scores table states its topics as the file's (no rule is known)
    for block in analysed["measures"].values():
        assert block.pop("topic_set") == "file"
    for block in evaluated["measures"].values():
        assert block.pop("topic_set") == "judged"
    assert analysed == evaluated  # the notes differ: see below
    # ir_measures scores topic 430 (no relevant document): dropped, as evaluate does;
    # it gives sys004's two missing topics a 0 itself
    assert table.notes == (
        "1 topic(s) of the metrics have no relevant document in the qrels (rel >= 1); dropped: 430",
    )


def test_from_ir_measures_without_qrels_keeps_its_topics():
    """Without qrels the topics are ir_measures' own: topic 430 (no relevant
    document) is kept, as in a scores file; its AP is 0 for every run."""
    qrels, runs = sample_objects()
    metrics = {n: ir_measures.iter_calc([ir_measures.AP], qrels, r) for n, r in runs.items()}
    report = bvtest.analyse(bvtest.from_ir_measures(metrics))
    assert report.to_dict()["measures"]["AP"]["n_topics"] == 30
    one = bvtest.from_ir_measures(ir_measures.iter_calc([ir_measures.AP], qrels, runs["sys001"]),
                                  name="sys001")  # fmt: skip
    assert {r[0] for r in one.rows} == {"sys001"}
    with pytest.raises(InputError, match="no run name"):
        bvtest.from_ir_measures(ir_measures.iter_calc([ir_measures.AP], qrels, runs["sys001"]))


def test_scores_tables_in_memory():
    pd = pytest.importorskip("pandas")
    expected = bvtest.analyse(SCORES_FILE).to_dict()
    # The values parsed by Python's float (correctly rounded): pandas' own
    # parser comes out 1 ulp off on some decimals under pandas 1.5, and its
    # float_precision="round_trip" is deprecated from pandas 3.
    frame = pd.read_csv(SCORES_FILE, sep="\t", dtype=str, comment="#")
    frame["value"] = frame["value"].map(float)
    assert bvtest.analyse(frame).to_dict() == expected
    assert bvtest.analyse(list(frame.itertuples(index=False))).to_dict() == expected
    table = bvtest.scores(Q, R)
    assert bvtest.analyse(table).to_dict() == expected  # the scores report is a table
    assert bvtest.analyse(table.to_frame()).to_dict() == expected
    assert list(table.to_frame().columns) == ["system", "topic", "measure", "value"]


def test_hand_computed_example():
    """Two topics, one relevant document each. x ranks both first (AP 1, 1);
    y ranks a second on topic 1 (AP 1/2) and misses c (AP 0). The target is
    (1, 1), c = 1; y: mean 1/4, Bias² (1/4 − 1)² = 9/16, Var of (1/2, 0) = 1/16
    (population variance, docs/numbers.md)."""
    qrels = [ir_measures.Qrel("1", "a", 1), ("1", "b", 0), ("2", "c", 2)]
    runs = {
        "x": {"1": {"a": 2.0, "b": 1.0}, "2": {"c": 1.0}},
        "y": [ir_measures.ScoredDoc("1", "b", 2.0), ("1", "a", 1.0), ("2", "d", 1.0)],
    }
    y = bvtest.evaluate(qrels, runs, measures="AP").to_dict()["measures"]["AP"]["systems"]["y"]
    assert (y["mean"], y["bias2"], y["var"]) == (0.25, 9 / 16, 1 / 16)


# --------------------------------------------------------------------------- to_frame


def test_to_frame_has_the_numbers_of_the_trec_format():
    pd = pytest.importorskip("pandas")
    report = api_report("eval-options")
    frame = report.to_frame()
    assert list(frame.columns) == ["measure", "field", "system", "alpha", "value"]
    # the trec format's numbers: its words (topic_set judged) are no value of the frame
    expected = [row for row in render.flatten(report) if not isinstance(row[3], str)]
    assert len(frame) == len(expected)
    for (m, name, system, value), row in zip(expected, frame.itertuples(index=False), strict=True):
        shown = row.field if pd.isna(row.alpha) else f"{row.field}@{row.alpha:g}"
        assert (m, name, system) == (row.measure, shown, row.system)
        v = render.plain(value)
        assert (math.isnan(row.value) and v is None) or row.value == v
    assert frame.attrs["settings"] == {
        "group": "random:4",
        "normalize": "none",
        "baseline": "sys003",
    }
    zr = frame.query("measure == 'AP' and field == 'zrisk' and system == 'sys001'")
    assert list(zr.alpha) == [0.0, 2.5, 7.0]
    zr_json = report.to_dict()["measures"]["AP"]["systems"]["sys001"]["zrisk"]
    assert list(zr.value) == [zr_json[a] for a in ("0", "2.5", "7")]


def test_to_frame_of_records_and_intervals():
    pytest.importorskip("pandas")
    frame = api_report("check").to_frame()
    assert list(frame.columns) == list(api_report("check").to_dict()["verdicts"][0])
    assert len(frame) == 2
    # intervals: a field with (lo, hi) gives field.lo and field.hi rows, the
    # alpha in its column, where the trec format says zrisk.lo@1
    from bvtest_cli.api import Report
    from bvtest_cli.report.model import Table, section
    from bvtest_cli.report.registry import SYSTEM_FIELDS

    mean, zrisk = (next(f for f in SYSTEM_FIELDS if f.name == n) for n in ("mean", "zrisk"))
    table = Table(
        rows=("a", "b"),
        fields=(mean, zrisk),
        values={"mean": np.array([0.5, 0.25]), "zrisk": np.array([[1.0, 2.0], [3.0, np.nan]])},
        alphas=("0", "1"),
        intervals={"zrisk": np.array([[[0.0, 1.5], [1.0, 3.0]], [[2.0, 4.0], [np.nan, np.nan]]])},
    )
    report = Report(section(("measures", section(("AP", section(("systems", table)))))))
    frame = report.to_frame()
    trec = report.render("trec").splitlines()
    assert len(frame) == len(trec) == 2 + 2 * 2 * 3
    assert f"{'AP.zrisk.lo@1':<22}\tb\tnan" in trec  # trec_eval's %-22s name column
    row = frame.query("field == 'zrisk.lo' and system == 'b' and alpha == 1")
    assert len(row) == 1 and math.isnan(row.value.iloc[0])
    row = frame.query("field == 'zrisk.hi' and system == 'a' and alpha == 0")
    assert list(row.value) == [1.5]


# --------------------------------------------------------------------------- errors


def error(call) -> InputError:
    with pytest.raises(InputError) as info:
        call()
    assert "\n" not in str(info.value)
    return info.value


@pytest.mark.parametrize(
    ("cli_args", "call"),
    [
        (("eval", "-m", "AP", "no-such-qrels", R), lambda: bvtest.evaluate("no-such-qrels", R)),
        (("eval", "-m", "nDCG@", Q, R), lambda: bvtest.evaluate(Q, R, measures="nDCG@")),
        (("eval", "--scores", "sample_runs/sys001"), lambda: bvtest.analyse("sample_runs/sys001")),
        (("eval", "--baseline", "nope", Q, R), lambda: bvtest.evaluate(Q, R, baseline="nope")),
        (("check", Q, R, "sample_runs/sys001", "-g", "AP:mse<=1"),
         lambda: bvtest.check(Q, R, "sample_runs/sys001", gates="AP:mse<=1")),
    ],
)  # fmt: skip
def test_errors_are_the_cli_errors(cli_args, call):
    """A file error is the CLI's line, without the 'bvtest: ' prefix, in the
    API's words: a flag (--baseline) is its keyword (baseline=)."""
    import re

    from bvtest_cli.options import OPTIONS

    proc = run_bvtest(*cli_args, cwd=REPO)
    assert proc.returncode == 2
    cli_line = proc.stderr.strip().removeprefix("bvtest: ")
    words = {d: f"{o.attr}=" for o in OPTIONS.values() for d in o.decls if d.startswith("-")}
    expected = re.sub(r"(?<![\w-])--?[a-z][\w-]*", lambda m: words.get(m[0], m[0]), cli_line)
    assert str(error(call)) == expected
    assert "--" not in str(error(call)).split(":")[0]


def test_in_memory_errors_name_the_record():
    runs = {"x": [("1", "a", 1.0), ("1", "b", 0.5), ("1", "c", float("nan"))]}
    e = error(lambda: bvtest.evaluate({"1": {"a": 1}}, runs, measures="AP"))
    assert (e.file, e.line) == ("<run x>", 3) and "not a finite number" in e.message
    e = error(lambda: bvtest.evaluate([("1", "a", 1), ("1", "b", 1.5)], runs, measures="AP"))
    assert (e.file, e.line) == ("<qrels>", 2) and "'1.5' is not an integer" in e.message
    dup = {"x": [("1", "a", 1.0), ("1", "a", 0.5)]}
    e = error(lambda: bvtest.evaluate({"1": {"a": 1}}, dup, measures="AP"))
    assert (e.file, e.line) == ("<run x>", 2) and "duplicate docno" in e.message
    e = error(lambda: bvtest.evaluate({"1": {"a b": 1}}, runs, measures="AP"))
    assert (e.file, e.line) == ("<qrels>", 1) and "white space" in e.message
    e = error(lambda: bvtest.evaluate({"1": {"a": True}}, {"x": {"1": {"a": 1.0}}}))
    assert (e.file, e.line) == ("<qrels>", 1) and "'True' is not an integer" in e.message
    e = error(lambda: bvtest.evaluate({"1": {"a": 1}}, {"x": [("1", "a", None)]}))
    assert (e.file, e.line) == ("<run x>", 1) and "'None' is not a number" in e.message
    e = error(lambda: bvtest.evaluate({"1": {"a": 1}}, {"x": "no/such/run"}))
    assert e.file == "no/such/run"
    e = error(lambda: bvtest.evaluate({"1": {"a": 1}}, {"a/b": {"1": {"a": 1.0}}}))
    assert "cannot name a file" in e.message
    e = error(lambda: bvtest.evaluate({"1": {"a": 1}}, {"x": [("1", "a")]}))
    assert (e.file, e.line) == ("<run x>", 1) and "expected a record" in e.message


def test_scores_table_errors_name_the_record():
    good = [("a", "1", "AP", 0.5), ("b", "1", "AP", 0.25)]
    for bad, fragment in [
        (("c", "1", "AP", float("inf")), "not a finite number"),
        (("c", "1", "AP", "high"), "'high' is not a number"),
        (("#c", "1", "AP", 0.1), "begins with '#'"),
        ((" c", "1", "AP", 0.1), "white space"),
        (("c", "1\t2", "AP", 0.1), "tab"),
        (("a", "1", "AP", 0.1), "duplicate score"),
    ]:
        e = error(lambda bad=bad: bvtest.analyse([*good, bad]))
        assert (e.file, e.line) == ("<scores>", 3), bad
        assert fragment in e.message, (bad, e.message)


@pytest.mark.parametrize(
    ("options", "fragment"),
    [
        ({"alphas": "x"}, "alpha 'x' is not a number"),
        ({"alphas": [1, 1.0]}, "listed twice"),
        ({"repeats": 3.5}, "repeats=3.5"),  # never truncated to 3
        ({"repeats": 0}, "repeats=0"),
        ({"seed": True}, "seed=True"),
        ({"target": 2}, "[0, 1]"),
        ({"group": "blocks:3"}, "group="),
        ({"normalize": "zscore"}, "normalize='zscore'"),
        ({"jobs": 0}, "jobs=0"),
    ],
)
def test_bad_options_raise_input_error(options, fragment):
    e = error(lambda: bvtest.analyse(SCORES_FILE, **options))
    assert fragment in str(e)


@pytest.mark.parametrize(
    ("options", "fragment"),
    [
        ({"colour": "red"}, "unexpected keyword 'colour'"),
        ({"fmt": "json"}, "report.render"),
        ({"samples": 10}, "unexpected keyword 'samples'"),
    ],
)
def test_an_unknown_keyword_is_a_type_error_naming_the_valid_ones(options, fragment):
    with pytest.raises(TypeError) as info:
        bvtest.analyse(SCORES_FILE, **options)
    assert fragment in str(info.value)
    assert "keywords: alphas, baseline, bootstrap" in str(info.value)


def test_bad_calls():
    assert "needs both qrels and runs" in str(error(lambda: bvtest.tradeoff(Q)))
    assert "expected QRELS" in str(error(lambda: bvtest.tradeoff()))
    assert "either scores=" in str(error(lambda: bvtest.tradeoff(Q, R, scores=SCORES_FILE)))
    assert "missing gates" in str(error(lambda: bvtest.check(Q, R, "sample_runs/sys001")))
    assert "unknown command" in str(error(lambda: bvtest.run("nope", Q, R)))
    with pytest.raises(TypeError, match="unexpected keyword 'scores'"):
        bvtest.pertopic(Q, R, scores=SCORES_FILE)
    assert "runs: expected" in str(error(lambda: bvtest.evaluate(Q, 42)))


def test_generic_command_function(monkeypatch):
    """A command registered after the API was written is bvtest.NAME."""
    monkeypatch.setitem(COMMANDS, "future", COMMANDS["eval"])
    assert bvtest.future.__name__ == "future"
    assert api.future.__name__ == "future"
    with pytest.raises(AttributeError):
        _ = bvtest.no_such_command


def test_same_report_whatever_jobs():
    one = bvtest.evaluate(Q, R, measures="AP", jobs=1).to_dict()
    assert bvtest.evaluate(Q, R, measures="AP", jobs=2).to_dict() == one


def test_api_leaves_numpy_state_alone():
    before = np.geterr()
    bvtest.analyse([("a", "1", "AP", 1e308), ("a", "2", "AP", 1e308), ("b", "1", "AP", 0.0),
                    ("b", "2", "AP", 0.0)])  # fmt: skip
    assert np.geterr() == before


# --------------------------------------------------------------------------- docs and shell


@pytest.mark.parametrize("module", [api, bvtest])
def test_doctests(module):
    """The docstring examples run (paths relative to the repository root);
    the API's include Report.to_frame's, which needs pandas."""
    pytest.importorskip("pandas")
    result = doctest.testmod(module, optionflags=doctest.ELLIPSIS)
    assert result.attempted > 0
    assert result.failed == 0


def test_api_functions_have_examples():
    for name in api.__all__:
        obj = getattr(api, name)
        if callable(obj) and name not in ("InputError", "Report", "Scores", "plot"):
            assert obj.__doc__ and ">>>" in obj.__doc__, name


@pytest.mark.parametrize(
    ("shell", "fragment"),
    [
        ("bash", "complete -o nosort -F _bvtest_completion bvtest"),
        ("zsh", "#compdef bvtest"),
        ("fish", "complete --no-files --command bvtest"),
    ],
)
def test_completion_script(shell, fragment):
    proc = run_bvtest(env={"_BVTEST_COMPLETE": f"{shell}_source"})
    assert proc.returncode == 0 and fragment in proc.stdout, proc.stdout + proc.stderr


def test_completion_completes_commands_choices_and_files():
    def complete(words: str, cword: int) -> list[str]:
        env = {"_BVTEST_COMPLETE": "bash_complete", "COMP_WORDS": words, "COMP_CWORD": str(cword)}
        return run_bvtest(env=env, cwd=REPO).stdout.split()

    assert "plain,eval" in complete("bvtest ev", 1)
    assert complete("bvtest eval --normalize ", 3) == ["plain,none", "plain,minmax", "plain,ratio"]
    assert complete("bvtest eval qrels/", 2) == ["file,qrels/"]
    assert complete("bvtest eval --scores te", 3) == ["file,te"]
    assert complete("bvtest check q p new", 4) == ["file,new"]


def test_to_frame_without_pandas_says_how_to_install(monkeypatch):
    report = bvtest.analyse([("a", "1", "AP", 0.5), ("b", "1", "AP", 0.25)], alphas="0")
    monkeypatch.setitem(__import__("sys").modules, "pandas", None)  # import pandas fails
    with pytest.raises(ImportError, match=r"bvtest\[pandas\]"):
        report.to_frame()
    assert report.to_dict()["measures"]["AP"]["systems"]["b"]["mean"] == 0.25  # no pandas needed
