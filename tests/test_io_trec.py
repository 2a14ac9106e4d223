"""docs/inputs.md readers: formats trec_eval accepts, names, and the fast/slow paths agreeing."""

from __future__ import annotations

import gzip
import os

import pytest

from bvtest_cli.errors import InputError
from bvtest_cli.io.sources import Source, expand_sources, system_name
from bvtest_cli.io.trec import _parse_run_slow, read_qrels, read_run, sort_topics
from bvtest_cli.measures.scores_file import read_scores

RUN = "1 Q0 d1 1 2.0 r\n1 Q0 d2 2 1.5 r\n2 Q0 d#3 1 0.5 r\n"


def src(path):
    return Source(str(path), system_name(str(path)))


def test_system_names():
    assert system_name("runs/org_convdr.run") == "org_convdr.run"
    assert system_name("x/input.uogTrA44xu.gz") == "input.uogTrA44xu"
    assert system_name("-") == "stdin"


def test_crlf_extra_columns_hash_blank_lines(tmp_path):
    path = tmp_path / "a.run"
    path.write_bytes(
        b"1 Q0 d1 1 2.0 r junk here\r\n\r\n1\tQ0\td2\t2\t1.5\tr\r\n2 Q0 d#3 1 0.5 r # x\r\n"
    )
    assert read_run(src(path)) == {"1": {"d1": 2.0, "d2": 1.5}, "2": {"d#3": 0.5}}


def test_gz_is_transparent(tmp_path):
    plain, zipped = tmp_path / "a.run", tmp_path / "b.run.gz"
    plain.write_text(RUN)
    zipped.write_bytes(gzip.compress(RUN.encode()))
    assert read_run(src(plain)) == read_run(src(zipped))
    assert system_name(str(zipped)) == "b.run"


def test_fast_and_slow_paths_agree(tmp_path):
    lines = [
        f"{q} Q0 doc{d}#{q} {d + 1} {1.0 / (d + 1)!r} tag\n" for q in (3, 1, 2) for d in range(50)
    ]
    data = "".join(lines).encode()
    path = tmp_path / "r.run"
    path.write_bytes(data)
    assert read_run(src(path)) == _parse_run_slow(data, "r.run")


def test_interleaved_topics(tmp_path):
    path = tmp_path / "r.run"
    path.write_text("1 Q0 a 1 3 t\n2 Q0 b 1 3 t\n1 Q0 c 2 2 t\n2 Q0 d 2 2 t\n")
    assert read_run(src(path)) == {"1": {"a": 3.0, "c": 2.0}, "2": {"b": 3.0, "d": 2.0}}


def test_duplicate_after_interleaving_is_found(tmp_path):
    path = tmp_path / "r.run"
    path.write_text("1 Q0 a 1 3 t\n2 Q0 b 1 3 t\n1 Q0 a 2 2 t\n")
    with pytest.raises(InputError) as err:
        read_run(src(path))
    assert err.value.line == 3


def test_directory_sorted_non_hidden(tmp_path):
    for name in ("b.run", "a.run", ".hidden"):
        (tmp_path / name).write_text(RUN)
    (tmp_path / "sub").mkdir()
    assert [s.name for s in expand_sources([str(tmp_path)])] == ["a.run", "b.run"]


def test_qrels_graded_negative_and_duplicates(tmp_path):
    path = tmp_path / "q"
    path.write_text("1 0 a 2\n1 0 b -1\n1 0 a 2\n2 0 c 0\n\n")
    q = read_qrels(str(path))
    assert q.qrels == {"1": {"a": 2, "b": -1}, "2": {"c": 0}}
    assert q.relevant_topics(1) == ["1"] and q.relevant_topics(3) == []


def test_qrels_line_numbers_with_blank_lines(tmp_path):
    path = tmp_path / "q"
    path.write_text("1 0 a 2\n\n1 0 b x\n")
    with pytest.raises(InputError) as err:
        read_qrels(str(path))
    assert err.value.line == 3


def test_scores_file_comments_header_whitespace(tmp_path):
    path = tmp_path / "s"
    path.write_text(
        "# made by hand\nsystem\ttopic\tmeasure\tvalue\na 1 AP 0.5\nb\t1\tAP\t0.25\na\t2\tAP\t1\n"
    )
    notes = []
    (m,) = read_scores(str(path), notes.append)
    assert m.systems == ("a", "b") and m.topics == ("1", "2")
    assert m.values.tolist() == [[0.5, 1.0], [0.25, 0.0]]
    assert notes == ["AP: b has no score for 1 topic(s); they score 0"]


def test_topic_order():
    assert sort_topics(["10", "9", "106_2", "106_10", "abc"]) == [
        "9",
        "10",
        "106_2",
        "106_10",
        "abc",
    ]


@pytest.mark.parametrize("name", ["results.trunc", "results.comment.test", "results.test"])
def test_trec_eval_torture_files(shared_data, name):
    run = read_run(src(shared_data / "trec_eval_tests" / name))
    with open(shared_data / "trec_eval_tests" / name) as fh:
        lines = [line.split() for line in fh if line.strip()]
    assert sum(map(len, run.values())) == len(lines)
    for fields in lines[:50]:
        assert run[fields[0]][fields[2]] == float(fields[4])
    if name == "results.comment.test":
        assert any("#" in d for docs in run.values() for d in docs)


def test_unreadable_file(tmp_path):
    path = tmp_path / "r.run"
    path.write_text(RUN)
    os.chmod(path, 0)
    if os.access(path, os.R_OK):
        pytest.skip("running as root: permissions do not stop reading")
    with pytest.raises(InputError):
        read_run(src(path))


@pytest.mark.parametrize(
    "text",
    [
        b"1 0 a 1\n1 0 b 0\n2 0 a 2\n",
        b"\n\n1 0 a 1\n\n2 0 b 3",  # blank lines, no final newline
        b"1 0 a 1\r\n2 0 b 1\r\n",  # CRLF: white space at the ends of lines
        b"1 0 a 1\r2 0 b 1\r",  # CR only: read_bytes turns it into LF, so no mapping
        b"\xef\xbb\xbf1 0 a 1\n",  # a byte-order mark: dropped by read_bytes
        b"1 0 a 1\n1 0 a 1\n",  # judged twice, equally: the line-by-line path
    ],
)
def test_mapped_qrels_read_as_read_qrels(tmp_path, monkeypatch, text):
    """A qrels file above the mapping size is parsed from a read-only mapping:
    the same qrels and first lines as when it is read, whatever the file."""
    import bvtest_cli.io.trec as trecio

    path = tmp_path / "q"
    path.write_bytes(text)
    read = read_qrels(str(path))
    monkeypatch.setattr(trecio, "_MAP_BYTES", 0)
    changed_by_reading = b"\r" in text or text.startswith(b"\xef\xbb\xbf")
    assert (trecio._mapped(str(path)) is None) == changed_by_reading
    mapped = read_qrels(str(path))
    assert mapped.qrels == read.qrels and list(mapped.qrels) == list(read.qrels)
    assert list(mapped.first_line_of_grade.items()) == list(read.first_line_of_grade.items())


def test_mapped_qrels_errors_name_the_line(tmp_path, monkeypatch):
    import bvtest_cli.io.trec as trecio

    monkeypatch.setattr(trecio, "_MAP_BYTES", 0)
    path = tmp_path / "q"
    path.write_bytes(b"1 0 a 1\n1 0 b x\n")
    with pytest.raises(InputError) as err:
        read_qrels(str(path))
    assert err.value.line == 2 and err.value.file == str(path)
    path.write_bytes(b"  \n\n")
    with pytest.raises(InputError, match="empty file"):
        read_qrels(str(path))
    with pytest.raises(InputError, match="cannot read"):
        read_qrels(str(tmp_path / "missing"))


def test_gzipped_qrels_are_not_mapped(tmp_path, monkeypatch):
    """Gzipped qrels (by name or by content) are read and unpacked, never
    parsed from a mapping of the packed bytes."""
    import bvtest_cli.io.trec as trecio

    monkeypatch.setattr(trecio, "_MAP_BYTES", 0)
    packed = gzip.compress(b"1 0 a 1\n2 0 b 2\n")
    for name in ("q.gz", "q"):
        path = tmp_path / name
        path.write_bytes(packed)
        assert trecio._mapped(str(path)) is None
        assert read_qrels(str(path)).qrels == {"1": {"a": 1}, "2": {"b": 2}}
