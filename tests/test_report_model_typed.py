"""A report read from Python by name and attribute: the measure blocks, a
table's rows and their fields, compare's pairs — the same numbers as the
JSON document, and hand values where there are any."""

from __future__ import annotations

import math

import pytest
from conftest import SAMPLE_QRELS, SAMPLE_RUNS

import bvtest


@pytest.fixture(scope="module")
def report():
    return bvtest.evaluate(str(SAMPLE_QRELS), str(SAMPLE_RUNS), measures=["AP"], ci=0.9,
                           bootstrap=200)  # fmt: skip


def test_a_rows_fields_are_attributes(report):
    row = report.measures["AP"].systems["sys001"]
    doc = report.to_dict()["measures"]["AP"]["systems"]["sys001"]
    assert row.mse == doc["mse"] and row.bias2 == doc["bias2"]
    assert row.zrisk == doc["zrisk"]  # alpha → value
    assert math.isclose(row.mse, row.bias2 + row.var, rel_tol=1e-12)  # MSE = Bias² + Var
    assert row.interval("mse") == (doc["mse_ci"]["lo"], doc["mse_ci"]["hi"])
    assert round(row.mse, 4) == 0.159  # the README's example
    assert "mse" in dir(row)


def test_blocks_and_tables_by_name(report):
    block = report.measures["AP"]
    assert block.n_topics == 29 and "systems" in block
    assert [r.name for r in block.systems] == list(report.to_dict()["measures"]["AP"]["systems"])
    assert "sys001" in block.systems and len(block.systems) == 12
    with pytest.raises(AttributeError, match="fields: mean"):
        _ = block.systems["sys001"].msee
    with pytest.raises(KeyError):
        block.systems["nope"]
    with pytest.raises(AttributeError, match="there are"):
        _ = block.nope


def test_compares_pairs_are_records():
    report = bvtest.compare(str(SAMPLE_QRELS), str(SAMPLE_RUNS), pair=("sys001", "sys002"),
                            measures=["AP", "P@10"])  # fmt: skip
    pairs = report.pairs
    doc = report.to_dict()["measures"]
    assert [p.measure for p in pairs][:1] == ["AP"] and {p.measure for p in pairs} == {"AP", "P@10"}
    first = pairs[0]
    assert first.p_adj == doc["AP"]["pairs"][0]["p_adj"]
    assert first["diff"] == doc["AP"]["pairs"][0]["diff"]
    assert report.measures["AP"].pairs[0].a == "sys001"
