"""The field registry drives every output: a field registered here,
in the test, appears in every format and is accepted by `check`, without any
other module knowing about it."""

from __future__ import annotations

import csv
import io
import json

import pytest
from click.testing import CliRunner
from conftest import SAMPLE_QRELS, SAMPLE_RUNS

from bvtest_cli.cli import cli
from bvtest_cli.report import registry
from bvtest_cli.report.registry import Field

TOY = Field(
    "toy",
    "twice the MSE (a field that exists only in this test)",
    "test",
    table=True,
    compute=lambda inputs: 2.0 * inputs.bv.mse,
)


@pytest.fixture
def toy_registered(monkeypatch):
    monkeypatch.setattr(registry, "SYSTEM_FIELDS", (*registry.SYSTEM_FIELDS, TOY))


def run(*args: str) -> str:
    result = CliRunner().invoke(cli, [*args], catch_exceptions=False)
    assert result.exit_code in (0, 1), result.output
    return result.stdout


ARGS = ("-m", "AP", "-j", "1", "--quiet", str(SAMPLE_QRELS), str(SAMPLE_RUNS))


def test_toy_field_in_every_format(toy_registered):
    doc = json.loads(run("eval", "-f", "json", *ARGS))
    systems = doc["measures"]["AP"]["systems"]
    for fields in systems.values():
        assert fields["toy"] == pytest.approx(2 * fields["mse"], abs=1e-15)
    trec = run("eval", *ARGS)
    assert sum(line.startswith(f"{'AP.toy':<22}\t") for line in trec.splitlines()) == len(systems)
    for fmt, delimiter in (("tsv", "\t"), ("csv", ",")):
        rows = list(csv.reader(io.StringIO(run("eval", "-f", fmt, *ARGS)), delimiter=delimiter))
        assert sum(row[1] == "toy" for row in rows) == len(systems)
    table = run("eval", "-f", "table", *ARGS)
    # a header line of the table (a wide table is cut into parts, each with its header)
    assert any(" toy" in line for line in table.splitlines() if line.startswith("system"))


def test_toy_field_is_a_gate(toy_registered, tmp_path):
    new = tmp_path / "new.run"
    new.write_bytes((SAMPLE_RUNS / "sys001").read_bytes())
    args = ("check", "-j", "1", "--quiet", str(SAMPLE_QRELS), str(SAMPLE_RUNS), str(new))
    assert run(*args, "-g", "AP:toy>=0").startswith("PASS\tAP:toy>=0\tnew.run\t")
    assert run(*args, "-g", "AP:toy<0").startswith("FAIL\tAP:toy<0\tnew.run\t")


def test_without_registration_the_field_is_unknown():
    result = CliRunner().invoke(cli, ["eval", "-f", "json", *ARGS])
    assert "toy" not in result.stdout
