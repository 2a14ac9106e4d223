"""no silent wrong numbers while reading (items 2, 4–13).

Each test feeds a small input through the installed command (or the reader)
and checks the result against a hand computation, an identity with the plain
version of the same input, or the one-line error rule.
"""

from __future__ import annotations

import gzip
import os
import re

import pytest
from conftest import SAMPLE_QRELS, SAMPLE_RUNS, assert_one_line_error, unpadded

from bvtest_cli.errors import InputError
from bvtest_cli.io.sources import Source, docno_bytes, expand_sources, system_name
from bvtest_cli.io.trec import read_qrels, read_run
from bvtest_cli.measures.scores_file import read_scores

QRELS = "1 0 a 1\n1 0 b 0\n2 0 c 2\n2 0 d 1\n"
RUN = "1 Q0 a 1 2.0 r\n1 Q0 b 2 1.0 r\n2 Q0 d 1 3.0 r\n2 Q0 c 2 2.5 r\n"
# By hand: topic 1, a relevant at rank 1: AP 1. Topic 2, d and c both relevant: AP 1.
# ERR@20 topic 2 (gdeval, grades 1 then 2): r1 = 1/16, r2 = 3/16:
# 1/16 + (15/16)(3/16)/2 = 0.150390625 → %.5f → 0.15039.


@pytest.fixture
def files(tmp_path):
    def make(name: str, data: str | bytes):
        path = tmp_path / name
        path.parent.mkdir(parents=True, exist_ok=True)
        path.write_bytes(data.encode() if isinstance(data, str) else data)
        return path

    return make


def ok(proc) -> str:
    assert proc.returncode == 0, proc.stderr
    assert "Traceback" not in proc.stderr
    return proc.stdout


def proc_of(bvtest, files, run):
    return bvtest("eval", "-m", "AP", files("q", QRELS), run)


def src(path) -> Source:
    return Source(str(path), system_name(str(path)))


# ---------------------------------------------------------------------------
# Item 2: a run file is not qrels


def test_run_file_given_as_qrels(bvtest, files):
    runs = [files(f"run{i}", RUN) for i in (1, 2, 3)]
    proc = bvtest("eval", *runs)  # the first run taken as the qrels
    assert_one_line_error(
        proc, f"{runs[0]}:1:", "expected 4 fields", "found 6", "is this a run file?"
    )


@pytest.mark.parametrize("line,count", [("1 0 e 1 extra", 5), ("1 0 e", 3), ("1 0 e 1 x y", 6)])
def test_qrels_line_needs_exactly_four_fields(bvtest, files, line, count):
    qrels = files("q", QRELS + line + "\n")
    proc = bvtest("eval", "-m", "AP", qrels, files("r", RUN))
    assert_one_line_error(proc, "q:5:", "'qid iter docno rel'", f"found {count}")


# ---------------------------------------------------------------------------
# Item 4: CR-only line ends and a UTF-8 byte-order mark read as the plain file


def mac(text: str, bom: bool) -> bytes:
    data = text.replace("\n", "\r").encode()
    return b"\xef\xbb\xbf" + data if bom else data


@pytest.mark.parametrize("bom,cr", [(True, False), (False, True), (True, True)])
def test_bom_and_cr_line_ends_read_as_plain(bvtest, files, bom, cr):
    plain = ok(bvtest("scores", "-m", "AP,ERR@20", files("q", QRELS), files("plain/r", RUN)))
    odd = mac if cr else (lambda text, bom: (b"\xef\xbb\xbf" if bom else b"") + text.encode())
    qrels = files("q2", odd(QRELS, bom))
    run = files("odd/r", odd(RUN, bom))
    assert ok(bvtest("scores", "-m", "AP,ERR@20", qrels, run)) == plain
    assert "r\t2\tERR@20\t0.15039" in plain  # by hand, above
    scores = files("s.tsv", odd(plain, bom))
    plain_scores = files("plain.tsv", plain)
    assert ok(bvtest("eval", "--scores", scores)) == ok(bvtest("eval", "--scores", plain_scores))


def test_bom_and_cr_in_gzip_and_line_numbers(files):
    run = files("r.gz", gzip.compress(mac(RUN + "1 Q0 e x 1.0 r\n", bom=True)))
    with pytest.raises(InputError) as err:
        read_run(src(run))
    assert err.value.line == 5 and "rank 'x'" in err.value.message


def test_first_topic_id_has_no_bom(files):
    qrels = read_qrels(str(files("q", b"\xef\xbb\xbf" + QRELS.encode())))
    assert list(qrels.qrels) == ["1", "2"]
    run = read_run(src(files("r", b"\xef\xbb\xbf" + RUN.encode())))
    assert list(run) == ["1", "2"]


def test_utf16_is_named(bvtest, files):
    run = files("r", "\ufeff".encode("utf-16-le") + RUN.encode("utf-16-le"))
    assert_one_line_error(bvtest("eval", files("q", QRELS), run), "UTF-16 text")


# ---------------------------------------------------------------------------
# Item 5: runs that share no topic with the qrels


def test_wrong_qrels_file_is_an_error(bvtest, files):
    qrels = files("other-qrels", "7 0 a 1\n8 0 b 1\n")
    runs = [files(f"r{i}", RUN) for i in (1, 2)]
    proc = bvtest("eval", qrels, *runs)
    assert_one_line_error(
        proc,
        "other-qrels:",
        "none of the 2 runs (r1, r2)",
        "any of the 2 qrels topics",
        "run topics: 1, 2;",
        "qrels topics: 7, 8",
    )


def test_one_run_without_shared_topics_is_a_note(bvtest, files):
    qrels = files("q", QRELS)
    good = files("good", RUN)
    stray = files("stray", "9 Q0 a 1 1 r\n10 Q0 a 1 1 r\n")
    proc = bvtest("eval", "-m", "AP", qrels, good, stray)
    ok(proc)
    assert "stray: no ranking for any of the 2 topics (its topics: 9, 10)" in proc.stderr
    out = unpadded(proc.stdout)
    assert "AP.mean\tstray\t0.0000" in out and "AP.mean\tgood\t1.0000" in out


def test_pertopic_wrong_qrels_is_an_error(bvtest, files):
    qrels = files("other-qrels", "7 0 a 1\n8 0 b 1\n")
    proc = bvtest("pertopic", "-k", "2", qrels, files("r1", RUN))
    assert_one_line_error(proc, "other-qrels:", "run r1 has no ranking")


# ---------------------------------------------------------------------------
# Item 6: grades beyond 64-bit integers, huge grades, score overflow


@pytest.mark.parametrize("grade", ["9223372036854775808", "-9223372036854775809", "1" * 30])
def test_grade_beyond_int64(bvtest, files, grade):
    qrels = files("q", QRELS + f"2 0 e {grade}\n")
    proc = bvtest("eval", "-m", "AP", qrels, files("r", RUN))
    assert_one_line_error(proc, "q:5:", "64-bit")


def test_largest_int64_grades_for_threshold_measures(bvtest, files):
    # pytrec_eval alone returns 0 for grades >= 2**32 (its allocation fails).
    # By hand, topic 1: a (grade 2**63-1) relevant at rank 1, b (grade
    # -2**63) not relevant: AP 1, P@2 1/2.
    qrels = files("q", "1 0 a 9223372036854775807\n1 0 b -9223372036854775808\n")
    run = files("r", "1 Q0 a 1 2 t\n1 Q0 b 2 1 t\n")
    out = ok(bvtest("scores", "-m", "AP,P@2", qrels, run))
    assert out == "system\ttopic\tmeasure\tvalue\nr\t1\tAP\t1.0\nr\t1\tP@2\t0.5\n"


def test_huge_grade_for_graded_measure_is_an_error(bvtest, files):
    qrels = files("q", QRELS + "2 0 e 4294967297\n")
    proc = bvtest("eval", "-m", "nDCG@10", qrels, files("r", RUN))
    assert_one_line_error(proc, "q:5:", "grade 4294967297", "nDCG@10")


@pytest.mark.parametrize("score", ["1e400", "-1e309", "1" * 400])
def test_score_overflow(bvtest, files, score):
    run = files("r", RUN + f"2 Q0 e 3 {score} r\n")
    assert_one_line_error(bvtest("eval", "-m", "AP", files("q", QRELS), run), "r:5:", "finite")


# ---------------------------------------------------------------------------
# Item 7: numbers are ASCII TREC numbers, not whatever int()/float() accept

NOT_INTEGERS = ["1_0", "１", "٣", "1.0", "1e3", "0x10", "--1", ""]
NOT_SCORES = ["1_0", "２.5", "0x1p3", "1.5\u00a0", "\u00a01.5", "1.2.3", "e5", "½"]


@pytest.mark.parametrize("rank", [r for r in NOT_INTEGERS if r])
def test_rank_must_be_ascii_integer(bvtest, files, rank):
    run = files("r", RUN + f"2 Q0 e {rank} 1.0 r\n")
    assert_one_line_error(proc_of(bvtest, files, run), "r:5:", "is not an integer")


@pytest.mark.parametrize("score", NOT_SCORES)
def test_score_must_be_ascii_number(bvtest, files, score):
    run = files("r", RUN + f"2 Q0 e 3 {score} r\n")
    assert_one_line_error(proc_of(bvtest, files, run), "r:5:", "is not a number")


@pytest.mark.parametrize("score", ["inf", "-Infinity", "nan", "NaN"])
def test_non_finite_scores(bvtest, files, score):
    run = files("r", RUN + f"2 Q0 e 3 {score} r\n")
    proc = bvtest("eval", "-m", "AP", files("q", QRELS), run)
    assert_one_line_error(proc, "r:5:", "not a finite number")


@pytest.mark.parametrize("grade", [g for g in NOT_INTEGERS if g])
def test_grade_must_be_ascii_integer(bvtest, files, grade):
    qrels = files("q", QRELS + f"2 0 e {grade}\n")
    proc = bvtest("eval", "-m", "AP", qrels, files("r", RUN))
    assert_one_line_error(proc, "q:5:", "is not an integer")


@pytest.mark.parametrize("value", ["1_0", "０.5", "0x1p-1"])
def test_scores_file_value_must_be_ascii_number(bvtest, files, value):
    scores = files("s.tsv", f"a\t1\tAP\t0.5\nb\t1\tAP\t{value}\n")
    assert_one_line_error(bvtest("eval", "--scores", scores), "s.tsv:2:", "is not a number")


def test_valid_spellings_still_read(files):
    # Signs, leading dots, exponents and trailing dots are numbers in C too.
    run = files("r", "1 Q0 a +1 .5 t\n1 Q0 b 2 5. t\n1 Q0 c 3 -2.5E-1 t\n1 Q0 d 4 +1e2 t\n")
    assert read_run(src(run)) == {"1": {"a": 0.5, "b": 5.0, "c": -0.25, "d": 100.0}}
    qrels = files("q", "1 0 a +2\n1 0 b -0\n")
    assert read_qrels(str(qrels)).qrels == {"1": {"a": 2, "b": 0}}


def test_fields_split_on_ascii_white_space_only(files):
    # trec_eval splits on C's isspace: a no-break space or \x1c is part of a docno.
    run = files("r", b"1 Q0 d\xc2\xa0x 1 2 t\n1 Q0 d\x1cy 2 1 t\n")
    assert [docno_bytes(d) for d in read_run(src(run))["1"]] == [b"d\xc2\xa0x", b"d\x1cy"]


# ---------------------------------------------------------------------------
# Item 8: docnos are opaque bytes


def test_latin1_docnos_are_data(bvtest, files):
    # By hand as for QRELS/RUN: AP 1 on both topics, whatever the docno bytes.
    qrels = files("q", b"1 0 \xe9t\xe9 1\n1 0 b 0\n2 0 c 2\n2 0 d\xff 1\n")
    run = files(
        "r", b"1 Q0 \xe9t\xe9 1 2.0 r\n1 Q0 b 2 1.0 r\n2 Q0 d\xff 1 3.0 r\n2 Q0 c 2 2.5 r\n"
    )
    out = ok(bvtest("scores", "-m", "AP,ERR@20", qrels, run))
    assert "r\t1\tAP\t1.0\n" in out and "r\t2\tAP\t1.0\n" in out and "r\t2\tERR@20\t0.15039" in out


def test_docnos_round_trip_to_their_bytes(files):
    raw = [b"\xe9t\xe9", b"d\xc3\xa9", b"plain", b"\xff\xfe#1"]
    run = files("r", b"".join(b"1 Q0 " + d + b" %d 1.0 t\n" % (i + 1) for i, d in enumerate(raw)))
    assert [docno_bytes(d) for d in read_run(src(run))["1"]] == raw


def test_ties_between_latin1_and_utf8_docnos_break_by_bytes(bvtest, files):
    # trec_eval's strcmp: b"d\xe9" > b"d\xc3\xa9", so on a tie d\xe9 (grade 0)
    # is ranked first and the relevant UTF-8 é second. By hand: AP = 1/2;
    # ERR@20 (gdeval, same order) = (1/16) · 1 / 2 = 0.03125.
    qrels = files("q", b"1 0 d\xc3\xa9 1\n1 0 d\xe9 0\n")
    run = files("r", b"1 Q0 d\xc3\xa9 1 1.0 t\n1 Q0 d\xe9 2 1.0 t\n")
    out = ok(bvtest("scores", "-m", "AP,ERR@20", qrels, run))
    assert "r\t1\tAP\t0.5\n" in out and "r\t1\tERR@20\t0.03125\n" in out


def test_non_utf8_topic_id_is_an_error(bvtest, files):
    run = files("r", RUN.encode() + b"\xe9 Q0 a 1 1.0 r\n")
    assert_one_line_error(bvtest("eval", files("q", QRELS), run), "r:5:", "topic id", "UTF-8")


def test_latin1_docno_in_a_message(bvtest, files):
    run = files("r", RUN.encode() + b"2 Q0 \xe9 3 1 r\n2 Q0 \xe9 4 1 r\n")
    assert_one_line_error(bvtest("eval", files("q", QRELS), run), "r:6:", "'\\xe9'")


# ---------------------------------------------------------------------------
# Item 9: run names must survive the scores file (and every output)


def test_tab_in_run_file_name_is_refused(bvtest, files):
    bad = files("runs/a\tb.run", RUN)
    proc = bvtest("scores", files("q", QRELS), bad)
    assert_one_line_error(proc, "a\\tb.run", "contains a tab")


@pytest.mark.parametrize(
    "name,problem",
    [
        ("#x.run", "begins with '#'"),
        (" lead.run", "begins or ends with a space"),
        ("nl\n.run", "contains a line break"),
        ("bell\a", "contains a control character"),
    ],
)
def test_unusable_run_names(bvtest, files, name, problem):
    proc = bvtest("eval", files("q", QRELS), files(f"runs/{name}", RUN))
    assert_one_line_error(proc, problem)


def test_scores_round_trip_with_unusual_names(bvtest, files, tmp_path):
    """`bvtest scores … | bvtest eval --scores -` equals `bvtest eval …`."""
    runs = tmp_path / "runs"
    for name in ("a b.run", "x#1.run", "é.run", "nbsp\u00a0end.run", "q,\"'.run"):
        files(f"runs/{name}", RUN)
    qrels = files("q", QRELS)
    direct = ok(bvtest("eval", "--quiet", qrels, runs))
    scores = ok(bvtest("scores", "--quiet", qrels, runs))
    piped = ok(bvtest("eval", "--quiet", "--scores", "-", stdin=scores.encode()))
    # the same lines but the topic set's, which a scores file states as its own
    assert piped == re.sub(r"(\.topic_set *\tall\t)judged", r"\1file", direct)
    assert "nbsp\u00a0end.run" in direct


def test_non_utf8_file_name_is_refused(bvtest, files, tmp_path):
    (tmp_path / "runs").mkdir()
    try:
        with open(os.path.join(os.fsencode(tmp_path / "runs"), b"r\xff.run"), "wb") as fh:
            fh.write(RUN.encode())
    except OSError:
        pytest.skip("the file system refuses non-UTF-8 names")
    proc = bvtest("eval", files("q", QRELS), tmp_path / "runs")
    assert_one_line_error(proc, "is not valid UTF-8")


# ---------------------------------------------------------------------------
# Item 10: what a run directory skips is said


def test_skipped_directory_entries_are_noted(bvtest, files, tmp_path):
    runs = tmp_path / "runs"
    files("runs/a.run", RUN)
    files("runs/.hidden", "junk")
    (runs / "sub").mkdir()
    (runs / "gone.run").symlink_to(tmp_path / "nowhere")
    proc = bvtest("eval", "-m", "AP", files("q", QRELS), runs)
    ok(proc)
    assert (
        f"bvtest: note: {runs}: skipped 2 entries that are not regular files: "
        "gone.run (dangling symbolic link), sub (directory)\n"
    ) in proc.stderr
    assert ".hidden" not in proc.stderr
    quiet = bvtest("eval", "--quiet", "-m", "AP", files("q", QRELS), runs)
    assert ok(quiet) == proc.stdout and quiet.stderr == ""


def test_expand_sources_note_callable(files, tmp_path):
    files("runs/a.run", RUN)
    (tmp_path / "runs" / "sub").mkdir()
    notes: list[str] = []
    assert [s.name for s in expand_sources([str(tmp_path / "runs")], notes.append)] == ["a.run"]
    assert len(notes) == 1 and "sub (directory)" in notes[0]


def test_dangling_symlink_argument(bvtest, files, tmp_path):
    (tmp_path / "gone.run").symlink_to(tmp_path / "nowhere")
    proc = bvtest("eval", files("q", QRELS), tmp_path / "gone.run")
    assert_one_line_error(proc, "gone.run: dangling symbolic link")


# ---------------------------------------------------------------------------
# Item 11: the scores file says which field is empty


@pytest.mark.parametrize(
    "line,message",
    [
        ("a\t1\tAP\t", "empty field 4 (value)"),
        ("\t1\tAP\t0.5", "empty field 1 (system)"),
        ("a\t\tAP\t1", "empty field 2 (topic)"),
    ],
)
def test_scores_file_empty_field(bvtest, files, line, message):
    scores = files("s.tsv", "a\t2\tAP\t0.5\n" + line + "\n")
    proc = bvtest("eval", "--scores", scores)
    assert_one_line_error(proc, "s.tsv:2:", message)
    assert "found 4" not in proc.stderr


def test_scores_file_field_count(files):
    scores = files("s.tsv", "a\t2\tAP\t0.5\textra\n")
    with pytest.raises(InputError) as err:
        read_scores(str(scores))
    assert "found 5" in err.value.message and err.value.line == 1


# ---------------------------------------------------------------------------
# Item 12: trec_eval measure names


def test_trec_eval_names_are_ir_measures_names(bvtest):
    trec_names = "map,ndcg_cut.10,P.5,10,recip_rank,bpref"
    trec = ok(bvtest("scores", "--quiet", "-m", trec_names, SAMPLE_QRELS, SAMPLE_RUNS))
    ir = ok(
        bvtest("scores", "--quiet", "-m", "AP,nDCG@10,P@5,P@10,RR,Bpref", SAMPLE_QRELS, SAMPLE_RUNS)
    )
    assert trec == ir and "\tP@5\t" in ir and "\tBpref\t" in ir


def test_trec_eval_name_and_ir_measures_name_are_one_measure(bvtest, files):
    out = ok(bvtest("scores", "-m", "AP,map,MAP", files("q", QRELS), files("r", RUN)))
    assert out.count("\tAP\t") == 2 and "map" not in out and "MAP" not in out


@pytest.mark.parametrize(
    "name,hint",
    [
        ("app", "did you mean AP?"),
        ("nDGC@10", "did you mean nDCG@10?"),
        ("errr", "did you mean ERR?"),
    ],
)
def test_near_miss_hint(bvtest, files, name, hint):
    proc = bvtest("eval", "-m", name, files("q", QRELS), files("r", RUN))
    assert_one_line_error(proc, repr(name), hint)


@pytest.mark.parametrize("name", ["all_trec", "official"])
def test_trec_eval_measure_sets_are_refused_without_stdout(bvtest, files, name):
    proc = bvtest("scores", "-m", name, files("q", QRELS), files("r", RUN))
    assert_one_line_error(proc, repr(name))


# ---------------------------------------------------------------------------
# Item 13: notes name the ignored topics


def test_notes_name_ignored_and_dropped_topics(bvtest, files):
    qrels = files("q", QRELS + "5 0 x 0\n3 0 y 0\n")
    run = files("r", RUN + "12 Q0 a 1 1 r\n7 Q0 a 1 1 r\n40 Q0 a 1 1 r\n")
    proc = bvtest("eval", "-m", "AP", qrels, run)
    ok(proc)
    assert "3 topic(s) in the runs are not in the qrels; ignored: 7, 12, 40\n" in proc.stderr
    assert "2 qrels topic(s) have no relevant document (rel >= 1); dropped: 3, 5\n" in proc.stderr


def test_long_topic_lists_are_cut(bvtest, files):
    run = files("r", RUN + "".join(f"{t} Q0 a 1 1 r\n" for t in range(100, 112)))
    proc = bvtest("eval", "-m", "AP", files("q", QRELS), run)
    ok(proc)
    assert (
        "12 topic(s) in the runs are not in the qrels; "
        "ignored: 100, 101, 102, 103, 104, ... (12 in all)\n"
    ) in proc.stderr


@pytest.mark.parametrize(
    "name,message",
    [
        ("nDCG@0", "nDCG@0: the cutoff must be a positive integer"),  # pytrec_eval aborted
        ("ERR@0", "ERR@0: the cutoff must be a positive integer"),  # was a traceback
        ("alpha_nDCG@10", "alpha_nDCG@10 cannot be computed"),  # no provider installed
    ],
)
def test_measures_that_cannot_be_computed(bvtest, files, name, message):
    proc = bvtest("scores", "-m", name, files("q", QRELS), files("r", RUN))
    assert_one_line_error(proc, "-m:", message)


def test_scores_file_measure_names_need_no_provider(bvtest, files):
    # analysing a scores file computes nothing: any measure name is fine
    scores = files("s.tsv", "a\t1\tRBP\t0.5\nb\t1\tRBP\t0.25\n")
    assert "RBP.mean\ta\t0.5000" in unpadded(
        ok(bvtest("eval", "--quiet", "--scores", scores, "-m", "RBP"))
    )


@pytest.mark.parametrize("line", ["a\t1\tA\x1cP\t0.5", "a\x85b\t1\tAP\t0.5"])
def test_scores_file_names_without_control_characters(bvtest, files, line):
    # \x1c and \x85 end a line for str.splitlines(): a note naming them would
    # not be one line
    scores = files("s.tsv", ("a\t2\tAP\t0.5\n" + line + "\n").encode())
    assert_one_line_error(bvtest("eval", "--scores", scores), "s.tsv:2:", "control character")


def test_qrels_file_given_as_scores_is_an_error(bvtest):
    """A qrels line has four white-space separated fields, like a scores line;
    read as one, every docno would become a measure (: no silent wrong
    number)."""
    from conftest import SAMPLE_QRELS

    proc = bvtest("eval", "--scores", SAMPLE_QRELS)
    assert_one_line_error(proc, "qrels.txt", "not a scores file")
