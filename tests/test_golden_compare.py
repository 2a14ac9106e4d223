"""The golden comparison fails on a real change of any value.

tests/golden_compare.py lets JSON floats move within a tolerance that covers
last-bit differences between machines and dependency versions
(docs/reproducibility.md). These tests take a recorded golden output, change
one thing in it, and check that the comparison reports it: a float moved by
1e-9 (relative or absolute), a key, a string, an integer, the order of keys,
the layout; and that a printed format is still compared byte for byte.
"""

from __future__ import annotations

import json
import math
import re

import pytest
from conftest import REPO
from golden_compare import ABS_TOL, REL_TOL, floats_close, record_mismatch

GOLDEN = REPO / "tests" / "golden"


@pytest.fixture(scope="module")
def record() -> str:
    return (GOLDEN / "eval-json.out").read_text()


def _replace_value(record: str, key: str, change) -> str:
    """The record with the first ``"key": number`` replaced by change(number)."""
    pattern = re.compile(rf'("{re.escape(key)}": )(-?[0-9][0-9.eE+-]*)')
    match = pattern.search(record)
    assert match is not None, key
    new = change(float(match.group(2)))
    return record[: match.start(2)] + repr(new) + record[match.end(2) :]


def test_a_record_equals_itself_and_a_last_bit_change(record):
    assert record_mismatch(record, record) is None
    ulp = _replace_value(record, "c", lambda x: math.nextafter(x, 2.0))
    assert ulp != record
    assert record_mismatch(record, ulp) is None


@pytest.mark.parametrize("key", ["c", "mean", "bias2", "var", "var_target"])
def test_a_float_moved_by_1e9_relative_fails(record, key):
    moved = _replace_value(record, key, lambda x: x * (1.0 + 1e-9))
    mismatch = record_mismatch(record, moved)
    assert mismatch is not None and "beyond the tolerance" in mismatch


@pytest.mark.parametrize("key", ["c", "var", "cov_target"])
def test_a_float_moved_by_1e9_absolute_fails(record, key):
    moved = _replace_value(record, key, lambda x: x + 1e-9)
    assert record_mismatch(record, moved) is not None


def test_a_zero_moved_by_1e9_fails():
    zero = 'exit: 0\n--- stdout\n{"bias2": 0.0}\n--- stderr\n'
    assert record_mismatch(zero, zero.replace("0.0", "1e-09")) is not None
    assert record_mismatch(zero, zero.replace("0.0", "-1e-09")) is not None


def test_a_changed_key_string_integer_or_order_fails(record):
    assert record_mismatch(record, record.replace('"bias2"', '"bias_2"', 1)) is not None
    assert record_mismatch(record, record.replace('"normalize": "none"', '"normalize": "nonE"'))
    assert record_mismatch(record, record.replace('"n_topics": 29', '"n_topics": 28', 1))
    assert record_mismatch(record, record.replace('"group": null', '"group": 0', 1))
    # A float literal that became an integer literal is a change of type.
    one = 'exit: 0\n--- stdout\n{"r": 1.0}\n--- stderr\n'
    assert record_mismatch(one, one.replace("1.0", "1")) is not None
    first, second = '"group": null', '"normalize": "none"'
    swapped = record.replace(f"{first},\n  {second}", f"{second},\n  {first}")
    assert swapped != record
    assert json.loads(swapped.split("--- stdout\n")[1].split("--- stderr")[0])
    assert record_mismatch(record, swapped) is not None


def test_layout_exit_status_and_stderr_are_exact(record):
    assert record_mismatch(record, record.replace("\n  ", "\n   ", 1)) is not None
    assert record_mismatch(record, record.replace("exit: 0", "exit: 1", 1)) is not None
    assert record_mismatch(record, record + "bvtest: a note\n") is not None


def test_printed_formats_are_compared_byte_for_byte():
    table = (GOLDEN / "eval-trec.out").read_text()
    digit = re.search(r"0\.\d{4}", table)
    assert digit is not None
    last = digit.group()[-1]
    changed = table[: digit.end() - 1] + str((int(last) + 1) % 10) + table[digit.end() :]
    assert record_mismatch(table, changed) is not None


def test_the_tolerance_is_far_below_1e9():
    x = 0.7505021407460357
    assert floats_close(x, x * (1 + 10 * 2.0**-52))
    assert not floats_close(x, x * (1 + 1e-9))
    assert not floats_close(0.0, 1e-9)
    assert floats_close(float("nan"), float("nan")) and not floats_close(float("nan"), 0.0)
    assert 100 * max(REL_TOL, ABS_TOL) <= 1e-10
