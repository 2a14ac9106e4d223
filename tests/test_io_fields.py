"""io/fields.find_lines: a column joined by newlines is read as find_fields
reads it (the oracle: find_fields(data, 1), the run parser's own reader)."""

from __future__ import annotations

from hypothesis import given, settings
from hypothesis import strategies as st

from bvtest_cli.io.fields import find_fields, find_lines

# letters, digits, punctuation, white space of every kind bytes.split() knows,
# the separators str.split() alone knows (0x1c-0x1f), NUL, DEL
ALPHABET = "ab9-._Z \t\r\x0b\x0c\x1c\x1f\x00\x7f"


def same(a, b) -> bool:
    if a is None or b is None:
        return a is None and b is None
    wa, wb = a.words(0), b.words(0)
    return (
        a.starts.shape == b.starts.shape
        and (a.starts == b.starts).all()
        and (a.ends == b.ends).all()
        and (a.lines == b.lines).all()
        and (wa is None) == (wb is None)
        and (wa is None or (wa == wb).all())
    )


@settings(max_examples=400, deadline=None)
@given(st.lists(st.text(ALPHABET, max_size=20), min_size=1, max_size=12))
def test_a_joined_column_is_read_as_find_fields_reads_it(column):
    data = "\n".join(column).encode("ascii")
    assert same(find_lines(data), find_fields(data, 1))


def test_plain_lines_give_one_field_each():
    fields = find_lines(b"doc-1\nd\nclueweb12-0000tw-05-12114")
    assert fields is not None
    assert fields.starts[:, 0].tolist() == [0, 6, 8]
    assert fields.ends[:, 0].tolist() == [5, 7, 33]
    assert fields.lines.tolist() == [0, 1, 2]
    words = fields.words(0)
    assert words is not None
    assert [w.tobytes().rstrip(b"\0") for w in words] == [
        b"doc-1",
        b"d",
        b"clueweb12-0000tw-05-12114",
    ]


def test_what_is_not_one_field_a_line_is_left_to_find_fields():
    for data in (b"a\n\nb", b"a b\nc", b"a\tb", b"\na", b"a\n", b"a\x1cb\nc", b"a\x00b"):
        assert same(find_lines(data), find_fields(data, 1)), data
    assert find_lines(b"") is None
    assert find_lines("d\u00e9".encode()) is None  # not ASCII
