"""Output files are written whole or not at all, through links, never over an
input (bvtest_cli.io.files, used by permute --out, plot -o and --plot)."""

from __future__ import annotations

import errno
import os

import pytest
from conftest import SAMPLE_QRELS, SAMPLE_RUNS, assert_one_line_error, run_bvtest

from bvtest_cli.errors import InputError
from bvtest_cli.io.files import checked_target, new_directory, replacing


def _leftovers(directory) -> list[str]:
    return [p.name for p in directory.iterdir() if ".bvtest-" in p.name]


@pytest.mark.parametrize("failure", [OSError(errno.ENOSPC, "No space left on device"),
                                     KeyboardInterrupt()])  # fmt: skip
def test_a_failed_file_leaves_the_target_as_it_was(tmp_path, failure):
    target = tmp_path / "out.txt"
    target.write_text("earlier")
    with pytest.raises(type(failure)), replacing(str(target)) as tmp:
        with open(tmp, "w") as fh:
            fh.write("half")
        raise failure
    assert target.read_text() == "earlier" and not _leftovers(tmp_path)


@pytest.mark.parametrize("failure", [OSError(errno.ENOSPC, "No space left on device"),
                                     KeyboardInterrupt()])  # fmt: skip
def test_a_failed_directory_is_not_there(tmp_path, failure):
    target = tmp_path / "eng"
    with pytest.raises(type(failure)), new_directory(str(target)) as tmp:
        (tmp / "a.perm").write_text("one of two")
        raise failure
    assert not target.exists() and not _leftovers(tmp_path)


def test_writing_through_a_link_keeps_the_link(tmp_path):
    real = tmp_path / "real.txt"
    real.write_text("old")
    link = tmp_path / "link.txt"
    link.symlink_to(real)
    with replacing(str(link)) as tmp, open(tmp, "w") as fh:
        fh.write("new")
    assert link.is_symlink() and real.read_text() == "new"


def test_inputs_and_empty_paths_are_refused(tmp_path):
    runs = tmp_path / "runs"
    runs.mkdir()
    (runs / "a").write_text("x")
    for bad in ("", " ", str(runs), str(runs / "a"), str(runs / "new.png")):
        with pytest.raises(InputError):
            checked_target(bad, [str(runs)], "--out")
    link = tmp_path / "link"
    link.symlink_to(runs / "a")
    with pytest.raises(InputError):  # a link to an input is that input
        checked_target(str(link), [str(runs)], "--out")
    assert checked_target(str(tmp_path / "ok"), [str(runs)], "--out")


def test_permute_writes_all_runs_or_none(tmp_path):
    runs = tmp_path / "runs"
    runs.mkdir()
    for name in ("sys001", "sys002"):
        (runs / name).write_bytes((SAMPLE_RUNS / name).read_bytes())
    (runs / "zbad").write_text("401 Q0 d1 x 1.0 t\n")  # read last: after two runs are written
    out = tmp_path / "eng"
    assert_one_line_error(run_bvtest("permute", "--out", out, SAMPLE_QRELS, runs), "zbad:1")
    assert not out.exists() and not _leftovers(tmp_path)


def test_permute_keeps_earlier_output_and_refuses_inputs(tmp_path):
    out = tmp_path / "eng"
    proc = run_bvtest("permute", "--out", out, SAMPLE_QRELS, SAMPLE_RUNS)
    assert proc.returncode == 0, proc.stderr
    before = {p.name: p.read_bytes() for p in out.iterdir()}
    assert len(before) == 12
    assert_one_line_error(run_bvtest("permute", "--out", out, SAMPLE_QRELS, SAMPLE_RUNS),
                          "already holds files")  # fmt: skip
    assert {p.name: p.read_bytes() for p in out.iterdir()} == before
    assert_one_line_error(run_bvtest("permute", "--out", "", SAMPLE_QRELS, SAMPLE_RUNS), "empty")
    assert_one_line_error(run_bvtest("permute", "--out", SAMPLE_RUNS, SAMPLE_QRELS, SAMPLE_RUNS),
                          "would overwrite the input")  # fmt: skip
    empty = tmp_path / "empty"
    empty.mkdir()  # an existing empty directory is fine
    assert run_bvtest("permute", "--out", empty, SAMPLE_QRELS, SAMPLE_RUNS).returncode == 0
    assert len(os.listdir(empty)) == 12


@pytest.mark.parametrize(
    "command",
    [
        ("plot", "-m", "AP", "-o"),
        ("conditions", "-m", "AP", "--map", "docs/examples/conditions.txt", "--plot"),
        ("variations", "-m", "AP", "--mode", "inter", "--plot"),
    ],
)
def test_figures_write_through_links_and_never_over_inputs(command, tmp_path):
    pytest.importorskip("matplotlib")
    from conftest import REPO

    real = tmp_path / "real.png"
    real.write_bytes(b"old")
    link = tmp_path / "fig.png"
    link.symlink_to(real)
    proc = run_bvtest(*command, link, SAMPLE_QRELS, SAMPLE_RUNS, cwd=REPO)
    assert proc.returncode == 0, proc.stderr
    assert link.is_symlink() and real.read_bytes()[:4] == b"\x89PNG"
    qrels_copy = tmp_path / "q.png"  # an input with a figure's name
    qrels_copy.write_bytes(SAMPLE_QRELS.read_bytes())
    proc = run_bvtest(*command, qrels_copy, qrels_copy, SAMPLE_RUNS, cwd=REPO)
    assert_one_line_error(proc, "would overwrite the input")
    assert qrels_copy.read_bytes() == SAMPLE_QRELS.read_bytes()
