"""end to end: `bvtest rankings`, `bvtest pool`, `bvtest permute`
(docs/rankings.md; Cormack & Grossman 2019).

The estimators themselves are checked against a brute-force oracle in
tests/test_analyses_rankings.py and the pools and engineered runs in
tests/test_analyses_budgets_pooling.py; these tests run the installed command. Oracles:
identities of the estimators (X = G has b = 0; RMSE² = b² + σ²; the matrix
holds the per-collection estimates; quadrupling n′ halves σ), pools worked
out by hand and the qrels restricted to retrieved documents computed here by
plain set operations on the files, `bvtest scores` of the source runs (the
engineered runs must score exactly the same), per-topic AP from ir_measures
called here, and the same command run with other `--jobs`.
"""

from __future__ import annotations

import csv
import hashlib
import io
import json
import math
from pathlib import Path

import ir_measures
import numpy as np
import pytest
from conftest import SAMPLE_QRELS, SAMPLE_RUNS, assert_one_line_error

from bvtest_cli.analyses.rankings import ranking_accuracy

REF = ("--reference", SAMPLE_QRELS)


def f4(v: float) -> str:
    """A value as the text formats print it (4 decimals, no sign on a zero)."""
    text = f"{v:.4f}"
    return text[1:] if text == "-0.0000" else text


def ok(proc):
    assert proc.returncode == 0, proc.stderr
    return proc


def rankings_json(bvtest, *args):
    proc = ok(bvtest("rankings", "-f", "json", *args))
    return json.loads(proc.stdout), proc


def parse_qrels(text: str) -> dict[tuple[str, str], int]:
    out = {}
    for line in text.splitlines():
        topic, _, docno, rel = line.split()
        out[topic, docno] = int(rel)
    return out


def retrieved(runs_dir: Path, depth: int | None = None) -> set[tuple[str, str]]:
    """(topic, docno) of every run line, or of the top ``depth`` by the rank
    column (the sample runs' ranks follow their scores, without ties)."""
    pairs = set()
    for path in runs_dir.iterdir():
        for line in path.read_text().splitlines():
            topic, _, docno, rank, _, _ = line.split()
            if depth is None or int(rank) <= depth:
                pairs.add((topic, docno))
    return pairs


@pytest.fixture(scope="module")
def pools(tmp_path_factory):
    """Depth-5 and depth-100 pools of the sample track, made by `bvtest pool`."""
    from conftest import run_bvtest

    out = tmp_path_factory.mktemp("pools")
    for depth in (5, 100):
        proc = ok(run_bvtest("pool", "--depth", depth, SAMPLE_QRELS, SAMPLE_RUNS))
        (out / f"d{depth}.qrels").write_text(proc.stdout)
    return out


# ------------------------------------------------------------------------------------
# rankings


def test_same_qrels_as_reference_has_no_bias_and_a_symmetric_matrix(bvtest):
    """X = G: b = 0 by definition, so |b| must be within chance (< σ/3), and
    the Table 3 matrix symmetric with a near-zero diagonal."""
    doc, _ = rankings_json(
        bvtest, *REF, "--collection", f"X={SAMPLE_QRELS}", "--collection", f"Y={SAMPLE_QRELS}",
        SAMPLE_RUNS,
    )  # fmt: skip
    for name in ("X", "Y"):
        c = doc["collections"][name]
        assert abs(c["bias"]) < c["sigma"] / 3
        assert c["sigma"] == pytest.approx(doc["sigma_reference"], rel=0.05)
    names = ["qrels.txt", "X", "Y"]
    bias = np.array([[doc["matrix"]["bias"][g][x] for x in names] for g in names])
    sigma = np.array([doc["matrix"]["rmse"][x][x] for x in names])
    assert (np.abs(bias) < sigma.min() / 3).all()  # the diagonal included
    assert (np.abs(bias - bias.T) < sigma.min() / 3).all()


def test_json_schema_and_identities(bvtest, pools):
    doc, _ = rankings_json(
        bvtest, *REF, "--collection", f"depth5={pools / 'd5.qrels'}",
        "--collection", str(pools / "d100.qrels"), "--seed", "5", SAMPLE_RUNS,
    )  # fmt: skip
    assert list(doc)[:5] == ["reference", "samples", "topics", "seed", "measure"]
    assert doc["reference"] == "qrels.txt" and doc["measure"] == "AP"
    assert (doc["samples"], doc["topics"], doc["seed"]) == (1000, 29, 5)
    assert (doc["n_topics"], doc["n_systems"]) == (29, 12)
    assert list(doc["collections"]) == ["depth5", "d100.qrels"]  # a bare FILE: its file name
    keys = {"bias", "sigma", "rmse", "b2", "delta", "se_bias", "se_sigma", "se_rmse", "se_b2"}
    for c in doc["collections"].values():
        assert set(c) == keys
        # Cormack & Grossman 2019 §2: RMSE² = b² + σ² (a negative b² estimate
        # adds nothing: RMSE is never negative); |b| = √b² or −√(−b²).
        assert c["rmse"] >= 0 and c["rmse"] ** 2 == pytest.approx(
            max(c["b2"], 0.0) + c["sigma"] ** 2, abs=1e-12
        )
        assert c["bias"] == pytest.approx(math.copysign(math.sqrt(abs(c["b2"])), c["b2"]), 1e-12)
        assert c["b2"] == pytest.approx(
            c["delta"] - c["sigma"] ** 2 - doc["sigma_reference"] ** 2, abs=1e-12
        )
        assert all(c[k] > 0 for k in ("se_bias", "se_sigma", "se_rmse", "se_b2"))
    m = doc["matrix"]
    assert list(m) == ["bias", "rmse", "b2", "se_bias", "se_rmse"]
    names = ["qrels.txt", "depth5", "d100.qrels"]
    for panel in m.values():
        assert list(panel) == names and all(list(row) == names for row in panel.values())
    # The matrix row of the reference holds the per-collection estimates
    # (the same bootstrap sets); its diagonal holds every σ.
    for x, c in doc["collections"].items():
        assert m["bias"]["qrels.txt"][x] == c["bias"]
        assert m["rmse"]["qrels.txt"][x] == c["rmse"]
        assert m["se_bias"]["qrels.txt"][x] == c["se_bias"]
        assert m["rmse"][x][x] == c["sigma"]
    assert m["rmse"]["qrels.txt"]["qrels.txt"] == doc["sigma_reference"]
    # Shallow pooling is biased (Cormack & Grossman 2019 Table 1): depth 5 ≫ depth 100
    # (compared on b², whose batch standard error does not blow up near 0 as |b|'s does).
    d5, d100 = doc["collections"]["depth5"], doc["collections"]["d100.qrels"]
    assert d5["b2"] > d100["b2"] + 3 * math.hypot(d5["se_b2"], d100["se_b2"])
    assert d5["bias"] > 0.04 and d5["bias"] > 3 * d5["se_bias"]


def test_one_collection_has_no_matrix_and_negative_b2_is_signed_with_a_note(bvtest):
    doc, proc = rankings_json(bvtest, *REF, "--collection", f"X={SAMPLE_QRELS}", SAMPLE_RUNS)
    assert "matrix" not in doc
    c = doc["collections"]["X"]
    # The default seed gives b² < 0 for X = G (its expectation is 0).
    assert c["b2"] < 0 and c["bias"] == -math.sqrt(-c["b2"])
    assert "X: the bootstrap estimate b2 =" in proc.stderr
    assert "reported as -sqrt(-b2)" in proc.stderr


def test_four_times_the_topics_halves_sigma(bvtest):
    """σ of a mean over n′ topics scales as 1/√n′ (Cormack & Grossman 2019 §3
    project 4n topics this way); with X = G, |b| stays indistinguishable from 0."""
    args = (*REF, "--collection", f"X={SAMPLE_QRELS}", "--seed", "11", SAMPLE_RUNS)
    base, _ = rankings_json(bvtest, *args)
    quad, _ = rankings_json(bvtest, *args, "--topics", "116")
    assert quad["topics"] == 116 and quad["n_topics"] == 29
    assert quad["sigma_reference"] / base["sigma_reference"] == pytest.approx(0.5, rel=0.15)
    b, q = base["collections"]["X"], quad["collections"]["X"]
    assert q["sigma"] / b["sigma"] == pytest.approx(0.5, rel=0.15)
    assert abs(b["bias"]) < b["sigma"] / 3 and abs(q["bias"]) < q["sigma"] / 3


def test_a_collection_of_qrels_samples_is_wired_to_the_estimator(bvtest, pools):
    """NAME=F1,F2: the per-topic AP under each file (ir_measures, called
    here, over the reference's topics with a relevant document, 0 where a run
    has no ranking) as samples (s, m, n), in the order given."""
    d5 = pools / "d5.qrels"
    doc, _ = rankings_json(
        bvtest, *REF, "--collection", f"S={d5},{SAMPLE_QRELS}", "--bootstrap", "300", "--seed", "9",
        SAMPLE_RUNS,
    )  # fmt: skip

    def read_qrels(path):
        q: dict[str, dict[str, int]] = {}
        for t, _, d, rel in (line.split() for line in Path(path).read_text().splitlines()):
            q.setdefault(t, {})[d] = int(rel)
        return q

    full, pooled = read_qrels(SAMPLE_QRELS), read_qrels(d5)
    topics = sorted((t for t, docs in full.items() if max(docs.values()) >= 1), key=int)
    runs = sorted(Path(SAMPLE_RUNS).iterdir())

    def ap(qrels):
        out = np.zeros((len(runs), len(topics)))
        for i, path in enumerate(runs):
            run = list(ir_measures.read_trec_run(str(path)))
            for mt in ir_measures.iter_calc([ir_measures.AP], qrels, run):
                if mt.query_id in topics:
                    out[i, topics.index(mt.query_id)] = mt.value
        return out

    g = ap(full)
    res = ranking_accuracy(
        g, {"S": np.stack([ap(pooled), g])}, reference_name="qrels.txt", samples=300, seed=9
    )
    got = doc["collections"]["S"]
    want = res.collections[0].accuracy
    for key in ("bias", "sigma", "rmse", "b2", "delta", "se_bias"):
        assert got[key] == pytest.approx(getattr(want, key), rel=1e-9, abs=1e-12)
    assert doc["sigma_reference"] == pytest.approx(res.sigma_reference, rel=1e-9)


def test_topic_absent_from_a_collection_scores_zero_with_a_note(bvtest, tmp_path):
    lines = Path(SAMPLE_QRELS).read_text().splitlines(keepends=True)
    partial = tmp_path / "partial.qrels"
    partial.write_text("".join(x for x in lines if x.split()[0] not in ("401", "405")))
    proc = ok(bvtest("rankings", *REF, "--collection", partial, "--bootstrap", "50", SAMPLE_RUNS))
    assert f"partial.qrels ({partial}): 2 of 29 topics have no judgments" in proc.stderr


def test_every_format_carries_the_json_numbers(bvtest, pools):
    args = (
        *REF, "--collection", f"d5={pools / 'd5.qrels'}", "--collection", f"X={SAMPLE_QRELS}",
        "--bootstrap", "200", "-j", "1", SAMPLE_RUNS,
    )  # fmt: skip
    doc, _ = rankings_json(bvtest, *args)
    out = {
        f: ok(bvtest("rankings", "-f", f, *args)).stdout for f in ("trec", "tsv", "csv", "table")
    }
    trec = [
        (name.rstrip(), *rest)
        for name, *rest in (line.split("\t") for line in out["trec"].splitlines())
    ]
    expected = {("AP.reference", "all", "qrels.txt"), ("AP.samples", "all", "200")}
    for x, c in doc["collections"].items():
        for key, v in c.items():
            expected.add((f"AP.{key}", x, f4(v)))
    for key, panel in doc["matrix"].items():
        for g, row in panel.items():
            for x, v in row.items():
                expected.add((f"AP.matrix.{key}.{g}.{x}", "all", f4(v)))
    assert expected <= set(trec)
    assert len(trec) == 10 + 9 * 2 + 5 * 9  # settings, collections × fields, matrices
    for fmt, sep in (("tsv", "\t"), ("csv", ",")):
        rows = list(csv.reader(io.StringIO(out[fmt]), delimiter=sep))
        assert rows[0] == ["measure", "name", "system", "value"]
        assert [(f"{m}.{n}", s, v) for m, n, s, v in rows[1:]] == trec
    table = ok(bvtest("rankings", "-f", "table", "--width", "200", *args)).stdout.splitlines()
    assert table[0].startswith("# AP  reference=qrels.txt  samples=200")
    assert table[1].split() == [
        "collection",
        "bias",
        "se_bias",
        "sigma",
        "se_sigma",
        "rmse",
        "se_rmse",
    ]
    d5 = doc["collections"]["d5"]
    assert table[3].split() == ["d5"] + [
        f4(d5[k]) for k in ("bias", "se_bias", "sigma", "se_sigma", "rmse", "se_rmse")
    ]
    at = table.index("matrix.bias: |b| of X (column) with G (row) as the reference")
    assert table[at + 1].split() == ["qrels.txt", "d5", "X"]
    row = doc["matrix"]["bias"]["d5"]
    assert table[at + 4].split() == ["d5"] + [f4(row[x]) for x in ("qrels.txt", "d5", "X")]


def test_markdown_and_latex_carry_the_matrix(bvtest, pools):
    args = (
        *REF, "--collection", f"d5={pools / 'd5.qrels'}", "--collection", f"X={SAMPLE_QRELS}",
        "--bootstrap", "100", SAMPLE_RUNS,
    )  # fmt: skip
    doc, _ = rankings_json(bvtest, *args)
    names = ["qrels.txt", "d5", "X"]
    md = ok(bvtest("rankings", "-f", "markdown", *args)).stdout.splitlines()
    at = md.index("matrix.rmse: RMSE of X (column) against G (row); σ(X) on the diagonal")
    table = [line for line in md[at + 1 :] if line.startswith("|")][:5]
    assert [c.strip() for c in table[0].strip("|").split("|")] == ["", *names]
    for line, g in zip(table[2:], names, strict=True):
        cells = [c.strip() for c in line.strip("|").split("|")]
        assert cells == [g] + [f4(doc["matrix"]["rmse"][g][x]) for x in names]
    tex = ok(bvtest("rankings", "-f", "latex", *args)).stdout
    assert tex.count("\\begin{tabular}") == 6  # the collections and five matrices
    assert "% matrix.bias: |b| of X (column) with G (row) as the reference" in tex
    row = doc["matrix"]["bias"]["d5"]
    assert "d5 & " + " & ".join(f4(row[x]) for x in names) + " \\\\" in tex


def test_same_seed_same_bytes_whatever_jobs_other_seed_differs(bvtest, pools):
    args = (*REF, "--collection", f"d5={pools / 'd5.qrels'}", "--bootstrap", "300", SAMPLE_RUNS)
    one = ok(bvtest("rankings", "-j", "1", *args))
    two = ok(bvtest("rankings", "-j", "2", *args))
    assert one.stdout == two.stdout and one.stderr == two.stderr
    assert one.forks == 0 and two.forks > 0  # in this process: -j 2 forks its workers
    other = ok(bvtest("rankings", "-j", "2", "--seed", "1", *args))
    assert other.stdout != one.stdout


@pytest.mark.parametrize(
    "args, fragments",
    [
        (("--collection", "X=", SAMPLE_RUNS), ("--collection", "'X='", "missing after '='")),
        (("--collection", "=q", SAMPLE_RUNS), ("--collection", "no collection name")),
        (("--collection", "nosuch.qrels", SAMPLE_RUNS), ("nosuch.qrels", "No such file")),
        (("--collection", "X=a.qrels,nosuch.qrels", SAMPLE_RUNS), ("a.qrels", "No such file")),
        ((SAMPLE_RUNS,), ("Missing option '--collection'",)),
        (("--collection", SAMPLE_QRELS, SAMPLE_RUNS), ("'qrels.txt' is also the reference's",)),
        (
            ("--collection", f"X={SAMPLE_QRELS}", "--collection", f"X={SAMPLE_QRELS}", SAMPLE_RUNS),
            ("'X' is given twice",),
        ),
        (
            ("--collection", f"X={SAMPLE_QRELS}", "-m", "AP,P@10", SAMPLE_RUNS),
            ("-m", "one measure, got 2"),
        ),
        (
            ("--collection", f"X={SAMPLE_QRELS}", f"{SAMPLE_RUNS}/sys001"),
            ("at least two runs, got 1",),
        ),
        (("--collection", f"X={SAMPLE_QRELS}"), ("Missing argument 'RUNS...'",)),
        (("--collection", f"X={SAMPLE_QRELS}", "--samples", "0", SAMPLE_RUNS), ("--samples",)),
    ],
)
def test_rankings_bad_input_is_one_line(bvtest, args, fragments):
    assert_one_line_error(bvtest("rankings", *REF, *args), *fragments)


def test_rankings_without_reference_is_one_line(bvtest):
    proc = bvtest("rankings", "--collection", SAMPLE_QRELS, SAMPLE_RUNS)
    assert_one_line_error(proc, "Missing option '--reference'")


# ------------------------------------------------------------------------------------
# pool


SMALL_QRELS = "9 0 a 1\n9 0 b 0\n9 0 c 2\n9 0 z 1\n10 0 a 1\n10 0 d 0\n11 0 q 1\n"
SMALL_RUNS = {
    # topic 9: b and x tie at 2.0; the docno tie-break (descending) ranks x first
    "r1": "9 Q0 a 1 3.0 r1\n9 Q0 b 2 2.0 r1\n9 Q0 x 3 2.0 r1\n9 Q0 c 4 1.0 r1\n"
    "10 Q0 d 1 5 r1\n10 Q0 a 2 1 r1\n10 Q0 e 3 0.5 r1\n77 Q0 a 1 1 r1\n",
    # topic 9: z and c tie; z ranks first
    "r2": "9 Q0 c 1 1.0 r2\n9 Q0 z 2 1.0 r2\n9 Q0 b 3 0.5 r2\n",
}


def test_pool_by_hand(bvtest, tmp_path):
    (tmp_path / "q").write_text(SMALL_QRELS)
    runs = tmp_path / "runs"
    runs.mkdir()
    for name, text in SMALL_RUNS.items():
        (runs / name).write_text(text)
    proc = ok(bvtest("pool", "--depth", "2", tmp_path / "q", runs))
    # Topic 9: r1's top 2 = {a, x}, r2's = {z, c}; x is unjudged. Topic 10:
    # {d, a}. Topic 11: nothing pooled. Topics in numeric order, docnos sorted.
    assert proc.stdout == "9 0 a 1\n9 0 c 2\n9 0 z 1\n10 0 a 1\n10 0 d 0\n"
    notes = proc.stderr.splitlines()
    assert notes == [
        f"bvtest: note: depth-2 pool of 2 run(s): 6 documents over 3 qrels topics; 1 of them "
        f"are not judged in {tmp_path / 'q'} and are left out (trec_eval counts them "
        "non-relevant)",
        "bvtest: note: 1 qrels topic(s) have no judged document in the pool; they are not in "
        "the pooled qrels",
        "bvtest: note: 1 topic(s) in the runs are not in the qrels; not pooled",
    ]


def test_pool_at_full_depth_is_the_qrels_restricted_to_retrieved_documents(bvtest):
    proc = ok(bvtest("pool", "--depth", "100000", SAMPLE_QRELS, SAMPLE_RUNS))
    got = parse_qrels(proc.stdout)
    qrels = parse_qrels(Path(SAMPLE_QRELS).read_text())
    pairs = retrieved(Path(SAMPLE_RUNS))
    assert got == {k: rel for k, rel in qrels.items() if k in pairs}
    # Deterministic order: topics numerically, then docnos.
    keys = [tuple(line.split()[::2]) for line in proc.stdout.splitlines()]
    assert keys == sorted(keys, key=lambda k: (int(k[0]), k[1]))
    qrels_topics = {t for t, _ in qrels}
    unjudged = len({p for p in pairs if p[0] in qrels_topics} - qrels.keys())
    assert f"; {unjudged} of them are not judged" in proc.stderr


def test_pool_at_depth_5_holds_the_judged_top_5(bvtest, pools):
    got = parse_qrels((pools / "d5.qrels").read_text())
    qrels = parse_qrels(Path(SAMPLE_QRELS).read_text())
    top5 = retrieved(Path(SAMPLE_RUNS), depth=5)
    assert got == {k: rel for k, rel in qrels.items() if k in top5}


def test_pool_same_bytes_whatever_jobs(bvtest):
    one = ok(bvtest("pool", "--depth", "7", "-j", "1", SAMPLE_QRELS, SAMPLE_RUNS))
    two = ok(bvtest("pool", "--depth", "7", "-j", "2", SAMPLE_QRELS, SAMPLE_RUNS))
    assert (one.stdout, one.stderr) == (two.stdout, two.stderr)
    assert one.forks == 0 and two.forks > 0  # in this process: -j 2 forks its workers


@pytest.mark.parametrize(
    "args, fragments",
    [
        ((SAMPLE_QRELS, SAMPLE_RUNS), ("Missing option '--depth'",)),
        (("--depth", "0", SAMPLE_QRELS, SAMPLE_RUNS), ("--depth", "0")),
        (("--depth", "5", SAMPLE_QRELS), ("QRELS and at least one RUN",)),
        (("--depth", "5", "nosuch.qrels", SAMPLE_RUNS), ("nosuch.qrels", "No such file")),
    ],
)
def test_pool_bad_input_is_one_line(bvtest, args, fragments):
    assert_one_line_error(bvtest("pool", *args), *fragments)


# ------------------------------------------------------------------------------------
# permute


def scores_by_run(bvtest, qrels, runs, suffix=""):
    proc = ok(bvtest("scores", "-m", "AP", "-m", "nDCG@10", "--quiet", qrels, runs))
    rows = [line.split("\t") for line in proc.stdout.splitlines()[1:]]
    return {(s.removesuffix(suffix), t, m): v for s, t, m, v in rows}


def digests(directory: Path) -> dict[str, str]:
    return {p.name: hashlib.sha256(p.read_bytes()).hexdigest() for p in directory.iterdir()}


def test_engineered_runs_score_exactly_as_their_sources(bvtest, tmp_path, pools):
    out = tmp_path / "eng"
    proc = ok(bvtest("permute", "--out", out, SAMPLE_QRELS, SAMPLE_RUNS))
    assert proc.stdout == ""
    assert "wrote 12 engineered run(s) (sys001.perm, ...)" in proc.stderr
    sources = sorted(p.name for p in Path(SAMPLE_RUNS).iterdir())
    assert sorted(p.name for p in out.iterdir()) == [f"{n}.perm" for n in sources]
    # Same per-topic AP and nDCG@10 under the full qrels, to the last bit.
    src = scores_by_run(bvtest, SAMPLE_QRELS, SAMPLE_RUNS)
    assert scores_by_run(bvtest, SAMPLE_QRELS, out, ".perm") == src
    # Under a depth-5 pool, documents the pool never judged reached the top.
    pooled_src = scores_by_run(bvtest, pools / "d5.qrels", SAMPLE_RUNS)
    pooled_eng = scores_by_run(bvtest, pools / "d5.qrels", out, ".perm")
    assert sum(pooled_eng[k] != pooled_src[k] for k in pooled_src) > 50
    for name in sources:
        src_lines = (Path(SAMPLE_RUNS) / name).read_text().split("\n")
        eng_lines = (out / f"{name}.perm").read_text().split("\n")
        assert {tuple(x.split()[0:3:2]) for x in eng_lines if x} == {
            tuple(x.split()[0:3:2]) for x in src_lines if x
        }  # the same (topic, docno) pairs
        assert {x.split()[5] for x in eng_lines if x} == {f"{name}.perm"}  # the run tag


def test_permute_same_seed_same_files_whatever_jobs(bvtest, tmp_path):
    for name, jobs, seed in (("a", "1", "3"), ("b", "2", "3"), ("c", "2", "4")):
        proc = ok(bvtest("permute", "-j", jobs, "--seed", seed, "-o", tmp_path / name,
                         SAMPLE_QRELS, SAMPLE_RUNS))  # fmt: skip
        assert (proc.forks > 0) == (jobs == "2")  # in this process: -j 2 forks its workers
    a, b, c = (digests(tmp_path / n) for n in "abc")
    assert a == b
    assert all(a[k] != c[k] for k in a)


def test_permute_bad_input_is_one_line(bvtest, tmp_path):
    a_file = tmp_path / "file"
    a_file.write_text("x")
    assert_one_line_error(
        bvtest("permute", "--out", a_file, SAMPLE_QRELS, SAMPLE_RUNS),
        str(a_file),
        "not a directory",
    )
    assert_one_line_error(bvtest("permute", SAMPLE_QRELS, SAMPLE_RUNS), "Missing option")
    runs = tmp_path / "runs"
    runs.mkdir()
    (runs / "r").write_text("401 Q0 d 1 1.0 r\n")
    (runs / "r.perm").write_text("401 Q0 d 1 1.0 r\n")
    proc = bvtest("permute", "--out", runs, SAMPLE_QRELS, runs)
    assert_one_line_error(proc, str(runs), "would overwrite the input")
    assert (runs / "r.perm").read_text() == "401 Q0 d 1 1.0 r\n"


def test_cast2021_depth10_pool_by_the_trec_eval_ranking_rule(bvtest, shared_data):
    """Real runs with tied scores (CAsT 2021): the pool holds the judgments of
    the documents ranked in the top 10 by score descending, ties by docno
    descending (trec_eval's rule, written here on the raw lines)."""
    root = shared_data / "cast2021"
    proc = ok(bvtest("pool", "--depth", "10", root / "qrels.txt", root / "runs"))
    top: set[tuple[str, str]] = set()
    for path in (root / "runs").iterdir():
        by_topic: dict[str, list[tuple[float, str]]] = {}
        for line in path.read_text().splitlines():
            topic, _, docno, _, score = line.split()[:5]
            by_topic.setdefault(topic, []).append((float(score), docno))
        for topic, docs in by_topic.items():
            top |= {(topic, d) for _, d in sorted(docs, reverse=True)[:10]}
    qrels = parse_qrels((root / "qrels.txt").read_text())
    assert parse_qrels(proc.stdout) == {k: v for k, v in qrels.items() if k in top}
