"""trec_eval's habits in `eval`: the topic set by its name (--topic-set
judged|all, -c), -l, -M, -J and -q, each against the trec_eval binary built
from ../shared/tools (tests/trec_ref.py; skipped when it cannot be built) or
against values computed by hand, and the hostile cases of each option."""

from __future__ import annotations

import gzip
import json
import subprocess
from pathlib import Path

import pytest
from conftest import SAMPLE_QRELS, SAMPLE_RUNS, SHARED, assert_one_line_error, unpadded
from trec_ref import trec_eval_binary

import bvtest

ROBUST = SHARED / "data" / "robust2003"
#: bvtest's name of each trec_eval measure compared
NAMES = {"map": "AP", "P_10": "P@10", "ndcg_cut_10": "nDCG@10", "recip_rank": "RR"}
TREC_MEASURES = ("map", "P.10", "ndcg_cut.10", "recip_rank")


def _binary() -> Path:
    binary = trec_eval_binary()
    if binary is None:
        pytest.skip("trec_eval cannot be built here")
    return binary


def _trec_eval(*args: object) -> dict[tuple[str, str], float]:
    """(bvtest measure, topic or 'all') → value of `trec_eval ARGS`."""
    measures = [a for m in TREC_MEASURES for a in ("-m", m)]
    proc = subprocess.run(
        [str(_binary()), *measures, *map(str, args)], capture_output=True, timeout=300, check=True
    )
    out = {}
    for line in proc.stdout.decode().splitlines():
        name, topic, value = line.split()
        if name in NAMES:
            out[(NAMES[name], topic)] = float(value)
    return out


def _judged_qrels(qrels: Path, level: int, into: Path) -> Path:
    """The qrels of the topics with a document of grade >= level: trec_eval -c
    on it averages over the `judged` topic set."""
    lines = qrels.read_text().splitlines(keepends=True)
    judged = {line.split()[0] for line in lines if line.strip() and int(line.split()[3]) >= level}
    into.write_text("".join(line for line in lines if line.split() and line.split()[0] in judged))
    return into


def _per_topic(stdout: str) -> dict[str, dict[tuple[str, str], float]]:
    """run → (measure, topic or 'all') → value, from `eval -q -f json`."""
    out: dict[str, dict[tuple[str, str], float]] = {}
    for row in json.loads(stdout)["per_topic"]:
        out.setdefault(row["run"], {})[(row["measure"], row["topic"])] = row["value"]
    return out


def _agree(ours: dict[tuple[str, str], float], theirs: dict[tuple[str, str], float]) -> None:
    """Every value trec_eval prints (4 decimals) is ours rounded."""
    assert theirs
    for key, value in theirs.items():
        assert ours[key] == pytest.approx(value, abs=5.01e-5), key


# --------------------------------------------------------------------------- TREC 2003 Robust


@pytest.fixture(scope="module")
def robust(tmp_path_factory) -> Path:
    """The Robust 2003 qrels and runs/, the runs uncompressed (trec_eval reads
    plain files; bvtest names a run by its file name without .gz either way)."""
    if not (ROBUST / "qrels.txt").is_file() or not list((ROBUST / "runs").glob("input.*.gz")):
        pytest.skip("../shared/data/robust2003 is not present")
    _binary()
    here = tmp_path_factory.mktemp("robust2003")
    (here / "qrels.txt").write_bytes((ROBUST / "qrels.txt").read_bytes())
    (here / "runs").mkdir()
    for run in (ROBUST / "runs").glob("input.*.gz"):
        (here / "runs" / run.name[: -len(".gz")]).write_bytes(gzip.decompress(run.read_bytes()))
    return here


@pytest.mark.parametrize("level", [1, 2])
def test_robust_both_topic_sets_against_trec_eval(bvtest, robust, level, tmp_path):
    """Every run, both rules, every measure's mean and per-topic value:
    `all` is trec_eval -c on the qrels; `judged` is trec_eval -c on the
    qrels of the topics with a document of grade >= level."""
    qrels = robust / "qrels.txt"
    runs = sorted((robust / "runs").glob("input.*"))
    assert len(runs) == 17
    judged_qrels = _judged_qrels(qrels, level, tmp_path / "judged.qrels")
    measures = ",".join(NAMES.values())
    for rule, reference in (("all", qrels), ("judged", judged_qrels)):
        proc = bvtest(
            "eval", "-q", "-f", "json", "-j", "2", "-l", level, "--topic-set", rule,
            "-m", measures, qrels, robust / "runs",
        )  # fmt: skip
        assert proc.returncode == 0, proc.stderr
        doc = json.loads(proc.stdout)
        ours = _per_topic(proc.stdout)
        n_topics = len({line.split()[0] for line in reference.read_text().splitlines()})
        for measure in NAMES.values():
            block = doc["measures"][measure]
            assert (block["topic_set"], block["n_topics"]) == (rule, n_topics)
        for run in runs:
            name = run.name
            theirs = _trec_eval("-q", "-c", "-l", level, reference, run)
            _agree(ours[name], theirs)
            for measure in NAMES.values():
                mean = doc["measures"][measure]["systems"][name]["mean"]
                assert mean == pytest.approx(theirs[(measure, "all")], abs=5.01e-5)


def test_robust_cut_and_judged_only_against_trec_eval(bvtest, robust):
    """-M and -J (and both: the cut first, as trec_eval) on three Robust runs."""
    qrels = robust / "qrels.txt"
    runs = sorted((robust / "runs").glob("input.*"))[:3]
    for flags in (("-M", "20"), ("-J",), ("-M", "100", "-J")):
        proc = bvtest(
            "eval", "-c", "-q", "-f", "json", "-j", "1", *flags,
            "-m", ",".join(NAMES.values()), qrels, *runs,
        )  # fmt: skip
        assert proc.returncode == 0, proc.stderr
        ours = _per_topic(proc.stdout)
        for run in runs:
            _agree(ours[run.name], _trec_eval("-q", "-c", *flags, qrels, run))


# --------------------------------------------------------------------------- the sample track


@pytest.mark.parametrize(
    "flags",
    [(), ("-M", "5"), ("-M", "1"), ("-J",), ("-M", "3", "-J"), ("-l", "2"), ("-l", "2", "-J")],
)
def test_sample_flags_against_trec_eval(bvtest, flags):
    proc = bvtest(
        "eval", "-c", "-q", "-f", "json", "-j", "1", *flags,
        "-m", ",".join(NAMES.values()), SAMPLE_QRELS, SAMPLE_RUNS,
    )  # fmt: skip
    assert proc.returncode == 0, proc.stderr
    ours = _per_topic(proc.stdout)
    for run in sorted(SAMPLE_RUNS.iterdir()):
        _agree(ours[run.name], _trec_eval("-q", "-c", *flags, SAMPLE_QRELS, run))


def test_cut_and_judged_only_reach_measures_outside_the_fast_path(bvtest):
    """Rprec goes through ir_measures: -M and -J must reach it as well."""
    run = SAMPLE_RUNS / "sys004"
    for flags in (("-M", "5"), ("-J",)):
        proc = bvtest("eval", "-c", "-q", "-m", "Rprec", *flags, SAMPLE_QRELS, run)
        assert proc.returncode == 0, proc.stderr
        mean = [line for line in proc.stdout.splitlines() if line.startswith("Rprec\tall\t")]
        binary = _binary()
        out = subprocess.run(
            [str(binary), "-c", "-m", "Rprec", *flags, str(SAMPLE_QRELS), str(run)],
            capture_output=True, check=True,
        ).stdout.decode()  # fmt: skip
        assert mean and float(mean[0].split("\t")[2]) == pytest.approx(
            float(out.split()[2]), abs=5.01e-5
        )


def test_per_topic_lines_grep_as_trec_eval(bvtest):
    """-q -f trec: MEASURE<TAB>TOPIC<TAB>VALUE<TAB>RUN, run by run, per-topic
    lines then the all lines; their first three columns are trec_eval -c
    -q's lines (without its padding), in its order."""
    proc = bvtest("eval", "-c", "-q", "-m", "AP,P@10", SAMPLE_QRELS, SAMPLE_RUNS)
    assert proc.returncode == 0, proc.stderr
    lines = [line.split("\t") for line in proc.stdout.splitlines()]
    ap = [line for line in lines if line[0] == "AP"]
    assert ap and all(len(line) == 4 for line in ap)
    # the report's own lines are all there too, before the per-topic ones
    assert proc.stdout.startswith("AP.n_topics")
    assert "AP.topic_set\tall\tall\n" in unpadded(proc.stdout)
    for run in ("sys001", "sys004"):
        mine = [tuple(line[:3]) for line in lines if len(line) == 4 and line[3] == run]
        binary = _binary()
        out = subprocess.run(
            [str(binary), "-c", "-q", "-m", "map", "-m", "P.10", str(SAMPLE_QRELS),
             str(SAMPLE_RUNS / run)],
            capture_output=True, check=True,
        ).stdout.decode()  # fmt: skip
        names = {"map": "AP", "P_10": "P@10"}
        theirs = [
            (names[name], topic, value)
            for name, topic, value in (line.split("\t") for line in unpadded(out).splitlines())
            if name in names
        ]
        assert sorted(mine) == sorted(theirs)
        assert [t for t in mine if t[1] == "all"] == mine[-2:]  # the all lines last


# --------------------------------------------------------------------------- by hand


@pytest.fixture
def graded(tmp_path: Path) -> tuple[Path, Path]:
    """Topic 1: a grade 2, b grade 1; topic 2: c grade 1; topic 3: d judged
    non-relevant. The run ranks b, a on 1, c on 2, d on 3."""
    qrels = tmp_path / "qrels"
    qrels.write_text("1 0 a 2\n1 0 b 1\n2 0 c 1\n3 0 d 0\n")
    run = tmp_path / "r"
    run.write_text("1 Q0 b 1 2 r\n1 Q0 a 2 1 r\n2 Q0 c 1 1 r\n3 Q0 d 1 1 r\n")
    return qrels, run


def _mean(proc, measure: str = "AP", run: str = "r") -> tuple[float, int, str]:
    assert proc.returncode == 0, proc.stderr
    block = json.loads(proc.stdout)["measures"][measure]
    return block["systems"][run]["mean"], block["n_topics"], block["topic_set"]


def test_level_and_rel_differ_by_the_topic_set(bvtest, graded):
    """-l 2 -m AP: AP(rel=2) over topic 1 alone (1/2); -m 'AP(rel=2)' at -l 1:
    over topics 1 and 2 (1/2, 0); under all both over 1, 2, 3 (1/2, 0, 0)."""
    qrels, run = graded
    level = bvtest("eval", "-f", "json", "-l", "2", "-m", "AP", qrels, run)
    assert _mean(level) == (0.5, 1, "judged")
    rel = bvtest("eval", "-f", "json", "-m", "AP(rel=2)", qrels, run)
    assert _mean(rel, "AP(rel=2)") == (0.25, 2, "judged")
    for args in (("-l", "2", "-m", "AP"), ("-m", "AP(rel=2)")):
        proc = bvtest("eval", "-f", "json", "--topic-set", "all", *args, qrels, run)
        mean = _mean(proc, args[-1])
        assert mean == (pytest.approx(1 / 6), 3, "all")
        assert "topic set all" in proc.stderr and "they score 0" in proc.stderr


def test_level_help_says_how_they_differ(bvtest):
    text = " ".join(bvtest("eval", "--help").stdout.split())
    assert "-m 'AP(rel=2)'" in text and "trec_eval -c -l 2 -m map" in text
    assert "--topic-set [judged|all]" in text and "--sampled-topics" not in text
    for flag in ("-c, --complete", "-M, --max-docs", "-J, --judged-only", "-q, --per-topic"):
        assert flag in text


def test_topic_set_all_scores_a_topic_without_relevant_documents_0(bvtest, graded):
    qrels, run = graded
    proc = bvtest("eval", "-q", "-f", "json", "-m", "AP", "--topic-set", "all", qrels, run)
    rows = _per_topic(proc.stdout)["r"]
    assert (rows[("AP", "1")], rows[("AP", "2")], rows[("AP", "3")]) == (1.0, 1.0, 0.0)
    assert rows[("AP", "all")] == pytest.approx(2 / 3)
    assert "1 of 3 qrels topic(s) have no relevant document (rel >= 1); they score 0: 3" in (
        proc.stderr
    )
    judged = bvtest("eval", "-f", "json", "-m", "AP", qrels, run)
    assert _mean(judged) == (1.0, 2, "judged")


def test_c_is_topic_set_all(bvtest, graded):
    qrels, run = graded
    c = bvtest("eval", "-c", "-m", "AP", qrels, run)
    all_ = bvtest("eval", "--topic-set", "all", "-m", "AP", qrels, run)
    assert c.returncode == 0 and c.stdout == all_.stdout
    assert "AP.topic_set" in c.stdout and "\tall\tall" in unpadded(c.stdout)
    assert_one_line_error(
        bvtest("eval", "-c", "--topic-set", "judged", qrels, run), "--topic-set judged", "-c"
    )


def test_old_spelling_kept_with_a_note(bvtest, graded):
    qrels, run = graded
    old = bvtest("eval", "--sampled-topics", "all", "-m", "AP", qrels, run)
    new = bvtest("eval", "--topic-set", "all", "-m", "AP", qrels, run)
    assert old.returncode == 0 and old.stdout == new.stdout
    assert "--sampled-topics is the old spelling of --topic-set: use --topic-set" in old.stderr
    both = bvtest("eval", "--sampled-topics", "all", "--topic-set", "all", qrels, run)
    assert_one_line_error(both, "--sampled-topics", "--topic-set")


def test_judged_only_condenses_the_ranking(bvtest, tmp_path):
    """x is unjudged: AP of x, a, b is 1/2; with -J the list is a, b: AP 1."""
    qrels = tmp_path / "q"
    qrels.write_text("1 0 a 1\n1 0 b 0\n")
    run = tmp_path / "r"
    run.write_text("1 Q0 x 1 3 r\n1 Q0 a 2 2 r\n1 Q0 b 3 1 r\n")
    assert _mean(bvtest("eval", "-f", "json", "-m", "AP", qrels, run))[0] == 0.5
    assert _mean(bvtest("eval", "-f", "json", "-m", "AP", "-J", qrels, run))[0] == 1.0
    # the cut comes first: -M 1 keeps x alone, and -J then leaves nothing
    assert _mean(bvtest("eval", "-f", "json", "-m", "AP", "-M", "1", "-J", qrels, run))[0] == 0


def test_cut_breaks_ties_by_docno_descending(bvtest, tmp_path):
    """a and z tie: trec_eval ranks z first, so -M 1 keeps z: AP 0; -M 2: 1/2."""
    qrels = tmp_path / "q"
    qrels.write_text("1 0 a 1\n")
    run = tmp_path / "r"
    run.write_text("1 Q0 a 1 5 r\n1 Q0 z 2 5 r\n")
    assert _mean(bvtest("eval", "-f", "json", "-m", "AP,RR", "-M", "1", qrels, run))[0] == 0
    proc = bvtest("eval", "-f", "json", "-m", "RR", "-M", "2", qrels, run)
    assert _mean(proc, "RR")[0] == 0.5
    assert json.loads(proc.stdout)["max_docs"] == 2


# --------------------------------------------------------------------------- hostile


@pytest.mark.parametrize("value", ["0", "-1", "abc", "nan", "inf", "2.5"])
def test_cut_refuses_what_is_no_count(bvtest, value):
    proc = bvtest("eval", "-M", value, SAMPLE_QRELS, SAMPLE_RUNS)
    assert_one_line_error(proc, "-M")


def test_huge_cut_is_no_cut(bvtest):
    plain = bvtest("eval", "-m", "AP", SAMPLE_QRELS, SAMPLE_RUNS)
    for value in ("1e12", "1000000000000", "1e400", "9" * 5000):
        huge = bvtest("eval", "-m", "AP", "-M", value, SAMPLE_QRELS, SAMPLE_RUNS)
        assert huge.returncode == 0, huge.stderr
        assert huge.stdout == plain.stdout


@pytest.mark.parametrize("flags", [("-M", "5"), ("-J",), ("-c",), ("--topic-set", "all")])
def test_scores_file_refuses_what_needs_rankings(bvtest, tmp_path, flags):
    scores = tmp_path / "s.tsv"
    scores.write_text(bvtest("scores", "-m", "AP", SAMPLE_QRELS, SAMPLE_RUNS).stdout)
    assert_one_line_error(bvtest("eval", *flags, "--scores", scores), flags[0], "scores file")


@pytest.mark.parametrize("fmt", ["table", "tsv", "csv", "latex", "markdown", "html"])
def test_per_topic_refused_where_it_cannot_act(bvtest, fmt):
    assert_one_line_error(
        bvtest("eval", "-q", "-f", fmt, SAMPLE_QRELS, SAMPLE_RUNS), "--per-topic", "-f trec"
    )


def test_per_topic_in_json_and_from_a_scores_file(bvtest, tmp_path):
    proc = bvtest("eval", "-q", "-f", "json", "-m", "AP", SAMPLE_QRELS, SAMPLE_RUNS)
    doc = json.loads(proc.stdout)
    rows = doc["per_topic"]
    assert rows[0].keys() == {"measure", "topic", "value", "run"}
    assert len(rows) == 12 * (29 + 1)  # runs × (topics + the all line)
    scores = tmp_path / "s.tsv"
    scores.write_text(bvtest("scores", "-m", "AP", SAMPLE_QRELS, SAMPLE_RUNS).stdout)
    from_file = bvtest("eval", "-q", "-f", "json", "--scores", scores)
    assert [r["topic"] for r in json.loads(from_file.stdout)["per_topic"]] == [
        r["topic"] for r in rows
    ]
    assert json.loads(from_file.stdout)["measures"]["AP"]["topic_set"] == "file"


def test_api_keywords_pass_through_the_options(graded):
    qrels, run = graded
    runs = {"r": str(run)}
    r = bvtest.evaluate(str(qrels), runs, measures="AP", topic_set="all")
    assert r.to_dict()["measures"]["AP"]["n_topics"] == 3
    r = bvtest.evaluate(str(qrels), runs, measures="AP", complete=True, max_docs=10**12)
    assert r.to_dict()["measures"]["AP"]["topic_set"] == "all"
    # -M 1 keeps b alone on topic 1: 1 of its 2 relevant, AP 1/2 (1 uncut)
    r = bvtest.evaluate(str(qrels), runs, measures="AP", max_docs=1, per_topic=True)
    assert [row["value"] for row in r.to_dict()["per_topic"]] == [0.5, 1.0, 0.75]
    old = bvtest.evaluate(str(qrels), runs, measures="AP", sampled_topics="all")
    assert any("--sampled-topics" in n for n in old.notes)
    with pytest.raises(bvtest.InputError, match="topic_set"):
        bvtest.evaluate(str(qrels), runs, topic_set="every")
    with pytest.raises(bvtest.InputError):
        bvtest.evaluate(str(qrels), runs, max_docs=0)
