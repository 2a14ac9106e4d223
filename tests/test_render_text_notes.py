"""Notes travel with the results: every ``-f json`` document ends with
``"notes"``, exactly the lines stderr prints after ``bvtest: note: ``, in the
same order; ``--quiet`` silences stderr, not the document; the HTML page
lists them and embeds the same document."""

from __future__ import annotations

import json

import pytest
from conftest import SAMPLE_QRELS, SAMPLE_RUNS, run_bvtest

PREFIX = "bvtest: note: "


def stderr_notes(proc) -> list[str]:
    lines = proc.stderr.splitlines()
    assert all(line.startswith(PREFIX) for line in lines), proc.stderr
    return [line[len(PREFIX) :] for line in lines]


def json_and_notes(*args: object) -> tuple[dict, list[str]]:
    proc = run_bvtest(*args, "-f", "json")
    assert proc.returncode == 0, proc.stderr
    return json.loads(proc.stdout), stderr_notes(proc)


def sample_track_facts() -> tuple[list[str], dict[str, int], int]:
    """By hand from the files: qrels topics without a relevant document, per
    run the number of topics with one that it has no line for, and how many
    topics have one."""
    relevant: dict[str, bool] = {}
    for line in SAMPLE_QRELS.read_text().splitlines():
        topic, _, _, grade = line.split()
        relevant[topic] = relevant.get(topic, False) or int(grade) >= 1
    kept = {t for t, has in relevant.items() if has}
    missing = {}
    for run in sorted(SAMPLE_RUNS.iterdir()):
        topics = {line.split()[0] for line in run.read_text().splitlines() if line.strip()}
        missing[run.name] = len(kept - topics)
    return sorted(t for t, has in relevant.items() if not has), missing, len(kept)


def test_eval_json_notes_are_the_stderr_notes():
    doc, notes = json_and_notes("eval", SAMPLE_QRELS, SAMPLE_RUNS)
    assert list(doc)[-1] == "notes"
    assert doc["notes"] == notes
    # the sample track's two notes, as the files say
    dropped, missing, n_topics = sample_track_facts()
    assert dropped == ["430"]
    assert [run for run, n in missing.items() if n] == ["sys004"]
    assert len(notes) == 2
    assert notes[0].endswith(f"dropped: {dropped[0]}")
    assert notes[1] == (
        f"sys004: no ranking for {missing['sys004']} of {n_topics} topics; they score 0"
    )


def test_quiet_silences_stderr_not_the_document():
    loud, notes = json_and_notes("eval", "-m", "AP", SAMPLE_QRELS, SAMPLE_RUNS)
    proc = run_bvtest("eval", "-m", "AP", "--quiet", "-f", "json", SAMPLE_QRELS, SAMPLE_RUNS)
    assert proc.returncode == 0 and proc.stderr == ""
    assert json.loads(proc.stdout)["notes"] == notes == loud["notes"]
    assert len(notes) == 2


@pytest.fixture(scope="module")
def pools(tmp_path_factory):
    from bvtest_cli.analyses.budgets.pooling import pool
    from bvtest_cli.io.sources import expand_sources
    from bvtest_cli.io.trec import format_qrels, read_qrels, read_run

    directory = tmp_path_factory.mktemp("pools")
    qrels = read_qrels(str(SAMPLE_QRELS)).qrels
    runs = [read_run(s) for s in expand_sources([str(SAMPLE_RUNS)])]
    (directory / "d5.qrels").write_text(format_qrels(pool(qrels, runs, 5).qrels))
    return directory


def test_rankings_json_notes_are_the_stderr_notes(pools):
    doc, notes = json_and_notes(
        "rankings", "--reference", SAMPLE_QRELS, "--collection", f"d5={pools / 'd5.qrels'}",
        "--collection", f"full={SAMPLE_QRELS}", "--bootstrap", "100", SAMPLE_RUNS,
    )  # fmt: skip
    assert doc["notes"] == notes
    assert any("sys004" in n for n in notes)  # the runs' notes reach it too
    assert list(doc)[-1] == "notes"


def test_compare_json_notes_are_the_stderr_notes():
    doc, notes = json_and_notes(
        "compare", "--pair", "sys001", "sys004", "-m", "AP", "--bootstrap", "100",
        SAMPLE_QRELS, SAMPLE_RUNS,
    )  # fmt: skip
    assert doc["notes"] == notes and len(notes) == 2


def test_no_notes_is_an_empty_list(tmp_path):
    """A scores file with every score: nothing to say, and the key is there."""
    rows = ["system\ttopic\tmeasure\tvalue"]
    grid = [[0.1, 0.5, 0.3, 0.9], [0.2, 0.2, 0.6, 0.4], [0.7, 0.1, 0.0, 0.3]]
    rows += [f"s{i}\tt{j}\tAP\t{v}" for i, row in enumerate(grid) for j, v in enumerate(row)]
    scores = tmp_path / "scores.tsv"
    scores.write_text("\n".join(rows) + "\n")
    doc, notes = json_and_notes("eval", "--scores", scores)
    assert notes == [] and doc["notes"] == []


def test_html_page_lists_the_notes_and_embeds_them():
    proc = run_bvtest("eval", "-m", "AP", "-f", "html", SAMPLE_QRELS, SAMPLE_RUNS)
    assert proc.returncode == 0
    notes = stderr_notes(proc)
    page = proc.stdout
    start = page.index('id="bvtest-data">') + len('id="bvtest-data">')
    data = json.loads(page[start : page.index("</script>", start)])
    assert data["notes"] == notes
    for note in notes:  # the Notes box: each note as stderr prints it
        assert f"<li>bvtest: note: {note.replace('>', '&gt;')}</li>" in page
