"""Docnos are bytes from input to output: `pool` and `permute` write every
docno exactly as its file held it, whatever the encoding (valid UTF-8,
Latin-1, invalid UTF-8), so the written qrels and runs evaluate as the
originals do."""

from __future__ import annotations

from pathlib import Path

from conftest import run_bvtest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

# Any byte but ASCII white space and the other C0 controls can be in a docno.
DOCNO = st.binary(min_size=1, max_size=6).map(
    lambda b: bytes(c if c > 0x20 else c + 0x41 for c in b)
)


@st.composite
def tracks(draw):
    docnos = draw(st.lists(DOCNO, min_size=2, max_size=8, unique=True))
    topics = ["1", "2"]
    # every document is retrieved by run a, so depth-len pooling keeps all judgments
    grades = {t: {d: draw(st.integers(0, 2)) for d in docnos} for t in topics}
    for t in topics:  # a topic needs a relevant document to be evaluated
        grades[t][docnos[0]] = max(1, grades[t][docnos[0]])
    order = {t: draw(st.permutations(docnos)) for t in topics}
    return docnos, topics, grades, order


def _write(tmp: Path, topics, grades, order) -> tuple[Path, Path, Path]:
    qrels = tmp / "qrels"
    qrels.write_bytes(
        b"".join(
            t.encode() + b" 0 " + d + b" %d\n" % grades[t][d] for t in topics for d in grades[t]
        )
    )
    runs = tmp / "runs"
    runs.mkdir(exist_ok=True)
    for name, reverse in (("a", False), ("b", True)):
        lines = []
        for t in topics:
            docs = list(reversed(order[t])) if reverse else order[t]
            for rank, d in enumerate(docs, 1):
                lines.append(t.encode() + b" Q0 " + d + b" %d %d.0 %s\n" % (rank, 100 - rank,
                             name.encode()))  # fmt: skip
        (runs / name).write_bytes(b"".join(lines))
    return qrels, runs, runs / "a"


@settings(
    max_examples=25, deadline=None, suppress_health_check=[HealthCheck.function_scoped_fixture]
)
@given(track=tracks())
def test_pool_and_permute_write_the_docnos_bytes(tmp_path_factory, track):
    docnos, topics, grades, order = track
    tmp = tmp_path_factory.mktemp("bytes")
    qrels, runs, _ = _write(tmp, topics, grades, order)

    pooled = run_bvtest("pool", "--depth", len(docnos), qrels, runs, binary=True)
    assert pooled.returncode == 0, pooled.stderr
    expected = b"".join(
        t.encode() + b" 0 " + d + b" %d\n" % grades[t][d] for t in topics for d in sorted(docnos)
    )
    assert pooled.stdout == expected

    # evaluated with the written qrels, the runs score as with the originals
    (tmp / "pooled").write_bytes(pooled.stdout)
    original = run_bvtest("scores", "-m", "AP,P@2", qrels, runs)
    again = run_bvtest("scores", "-m", "AP,P@2", tmp / "pooled", runs)
    assert original.returncode == 0 and again.stdout == original.stdout

    # engineered runs hold the same docno bytes per topic and the same scores
    out = tmp / "eng"
    proc = run_bvtest("permute", "--out", out, qrels, runs)
    assert proc.returncode == 0, proc.stderr
    for name in ("a", "b"):
        lines = (out / f"{name}.perm").read_bytes().splitlines()
        for t in topics:
            got = sorted(line.split(b" ")[2] for line in lines if line.split(b" ")[0] == t.encode())
            assert got == sorted(docnos)
    eng = run_bvtest("scores", "-m", "AP,P@2", qrels, out)
    assert eng.returncode == 0, eng.stderr
    strip = lambda text: text.replace(".perm\t", "\t")  # noqa: E731
    assert strip(eng.stdout) == original.stdout
