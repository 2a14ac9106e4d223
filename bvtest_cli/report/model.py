"""The one result type every command returns: a :class:`Report`.

A report is a tree whose leaves are numbers, with typed inner nodes:

- :class:`Section` — named children in a fixed order (a JSON object);
- :class:`Table` — rows (runs, topics) × registry fields, each field a numpy
  column of shape (rows,) or, for alpha-indexed fields, (rows, k);
- :class:`Records` — a list of records (``check`` verdicts, paired comparisons).

Notes (what bvtest wants the user to know on stderr) travel inside the report,
and the JSON document carries them too. In a notebook a report shows itself
as the ``-f html`` page's body (``_repr_html_``), its ``repr`` is one line.
:mod:`bvtest_cli.render.text` turns a report into trec / table / tsv / csv / json;
it learns the layout from these types and from the field registry, never from
key names. Views such as ``instability`` select and sort a report's tables.
"""

from __future__ import annotations

from collections.abc import Callable, Iterator, Mapping, Sequence
from dataclasses import dataclass, field, replace
from typing import TYPE_CHECKING, Any, TypeGuard, Union

if TYPE_CHECKING:  # imported where used: `bvtest --help` needs no numpy
    import numpy as np

from ..report import registry
from ..report.registry import Field

Value = Union[float, int, str, bool, None, tuple]  # noqa: UP007 (a runtime alias); a tuple: a list setting
Node = Union[Value, "Section", "Table", "Records"]


@dataclass(frozen=True)
class Section:
    """Named children, in output order. Keys are registry fields or plain strings.
    ``intervals[name]`` (optional) holds the (lo, hi) of a leaf child, e.g. the
    bootstrap interval of a tradeoff correlation (rendered as Table.intervals are)."""

    items: tuple[tuple[Field | str, Node], ...]
    intervals: Mapping[str, tuple[float, float]] = field(default_factory=dict)

    def get(self, key: Field | str) -> Node:
        name = str(key)
        for k, v in self.items:
            if str(k) == name:
                return v
        raise KeyError(name)

    def keys(self) -> list[str]:
        return [str(k) for k, _ in self.items]

    # Typed reading from Python: ``block["AP"]``, ``block.systems``,
    # ``report.measures["AP"].systems["sys001"].mse``.
    def __getitem__(self, key: Field | str) -> Node:
        return self.get(key)

    def __contains__(self, key: object) -> bool:
        return str(key) in self.keys()

    def __getattr__(self, name: str) -> Node:
        if name.startswith("_") or name in ("items", "intervals"):
            raise AttributeError(name)
        try:
            return self.get(name)
        except KeyError:
            shown = ", ".join(self.keys())
            raise AttributeError(f"no {name!r} here (there are: {shown})") from None

    def __dir__(self) -> list[str]:
        return sorted({*super().__dir__(), *(k for k in self.keys() if k.isidentifier())})


@dataclass(frozen=True)
class Table:
    """Rows × fields. ``values[f.name]`` has shape (rows,) or (rows, len(alphas))
    for an alpha-indexed field. ``children`` (optional) holds one Section per
    row, nested under the row in every format (per-topic detail).
    ``intervals[f.name]`` (optional) holds the (lo, hi) of a field's values,
    shape (..., 2)."""

    rows: tuple[str, ...]
    fields: tuple[Field, ...]
    values: Mapping[str, np.ndarray]
    alphas: tuple[str, ...] = ()
    children: tuple[Section, ...] | None = None
    intervals: Mapping[str, np.ndarray] = field(default_factory=dict)

    def column(self, f: Field) -> np.ndarray:
        import numpy as np

        return np.asarray(self.values[f.name], dtype=float)

    def __getitem__(self, row: str) -> Row:
        """One row's values by field (``table["sys001"].mse``)."""
        if row not in self.rows:
            raise KeyError(f"no row {row!r} (rows: {', '.join(self.rows[:5])}, ...)")
        return Row(row, self)

    def __iter__(self) -> Iterator[Row]:
        return (Row(name, self) for name in self.rows)

    def __len__(self) -> int:
        return len(self.rows)

    def __contains__(self, row: object) -> bool:
        return row in self.rows

    def value(self, row: str, f: Field, alpha: str | None = None) -> float:
        """One cell (NaN when undefined); ``alpha`` must be one of ``alphas``."""
        column = self.column(f)[self.rows.index(row)]
        return float(column[self.alphas.index(alpha)] if f.alpha else column)

    def reordered(self, order: Sequence[int]) -> Table:
        """Every field, interval and child, rows in ``order`` (indices)."""
        import numpy as np

        idx = np.asarray(order, dtype=int)
        return Table(
            rows=tuple(self.rows[i] for i in idx),
            fields=self.fields,
            values={k: np.asarray(v)[idx] for k, v in self.values.items()},
            alphas=self.alphas,
            children=None if self.children is None else tuple(self.children[i] for i in idx),
            intervals={k: np.asarray(v)[idx] for k, v in self.intervals.items()},
        )

    def sorted_by(self, key: str) -> Table:
        """Rows by ``key``: ``mean`` highest first, ``mse`` least first, ``name``
        A–Z; ties by name. Only tables of runs (with a mean, MSE or Bias²
        column) are sorted; a table without the key's field keeps its order."""
        import numpy as np

        names = list(range(len(self.rows)))
        if not {"mean", "mse", "bias2"} & set(self.values):
            return self
        if key == "name":
            return self.reordered(sorted(names, key=lambda i: self.rows[i]))
        if key not in self.values or np.asarray(self.values[key]).ndim != 1:
            return self
        v = np.asarray(self.values[key], dtype=float)
        sign = -1.0 if key == "mean" else 1.0
        # undefined values last, whatever the direction
        return self.reordered(
            sorted(names, key=lambda i: (np.isnan(v[i]), sign * v[i], self.rows[i]))
        )

    def select(
        self, fields: tuple[Field, ...], order: Sequence[int] | np.ndarray | None = None
    ) -> Table:
        """A view: some of the fields, rows in ``order`` (indices) or as they are."""
        import numpy as np

        idx = np.arange(len(self.rows)) if order is None else np.asarray(order)
        return Table(
            rows=tuple(self.rows[i] for i in idx),
            fields=fields,
            values={f.name: np.asarray(self.values[f.name])[idx] for f in fields},
            alphas=self.alphas,
            intervals={
                f.name: np.asarray(self.intervals[f.name])[idx]
                for f in fields
                if f.name in self.intervals
            },
        )


@dataclass(frozen=True)
class Row:
    """One row of a :class:`Table`: each field an attribute (``row.mse``), a
    float, or for an alpha-indexed field a dict alpha → float; its interval
    by :meth:`interval`. NaN where the value is undefined."""

    name: str
    table: Table

    def __getattr__(self, name: str) -> Any:
        if name.startswith("_") or name in ("name", "table"):
            raise AttributeError(name)
        f = next((f for f in self.table.fields if f.name == name), None)
        if f is None:
            shown = ", ".join(f.name for f in self.table.fields)
            raise AttributeError(f"no field {name!r} (fields: {shown})")
        if f.alpha:
            return {a: self.table.value(self.name, f, a) for a in self.table.alphas}
        return self.table.value(self.name, f)

    def interval(self, name: str) -> tuple[float, float] | None:
        """The (lo, hi) of the field's interval (``--ci``), or None."""
        values = self.table.intervals.get(name)
        if values is None:
            return None
        lo, hi = values[self.table.rows.index(self.name)]
        return float(lo), float(hi)

    def __dir__(self) -> list[str]:
        return sorted({*super().__dir__(), *(f.name for f in self.table.fields)})

    def __repr__(self) -> str:
        shown = ", ".join(f"{f.name}={getattr(self, f.name)!r}" for f in self.table.fields[:4])
        return f"<Row {self.name}: {shown}, ...>"


@dataclass(frozen=True)
class Record:
    """One record of :class:`Records`: its JSON object's keys as attributes
    (``pair.p_adj``), and as a mapping (``pair["p"]``, ``dict(pair)``)."""

    values: Mapping[str, Value]

    def __getattr__(self, name: str) -> Value:
        if name.startswith("_") or name == "values":
            raise AttributeError(name)
        try:
            return self.values[name]
        except KeyError:
            raise AttributeError(f"no {name!r} (keys: {', '.join(self.values)})") from None

    def __getitem__(self, key: str) -> Value:
        return self.values[key]

    def keys(self) -> list[str]:
        return list(self.values)

    def __dir__(self) -> list[str]:
        return sorted({*super().__dir__(), *(k for k in self.values if k.isidentifier())})

    def __repr__(self) -> str:
        return f"Record({', '.join(f'{k}={v!r}' for k, v in self.values.items())})"


@dataclass(frozen=True)
class Records:
    """A list of records (verdicts, comparisons): ``as_json(item)`` is the
    item's JSON object (also the columns of table/tsv/csv) and
    ``as_text(item, digits)`` the tab-separated fields of its trec line.
    Records inside a measure block (variations' crossovers) are rows like any
    other there: ``as_text`` then gives exactly (name, system, value)."""

    items: tuple[Any, ...]
    as_json: Callable[[Any], Mapping[str, Value]]
    as_text: Callable[[Any, int], tuple[str, ...]]
    header: tuple[str, ...] = ()  # a first line of the trec format, if any
    # numbers in full precision in every format (a scores table is read back)
    full_precision: bool = False
    # a reading aid beside the records of a block (compare's significance
    # matrix), titled by this text: in JSON and the table-like formats, not in
    # the line formats (trec, tsv, csv), whose lines are the block's records
    overview: str = ""
    # what the records are, for a renderer that draws them (``COMPARISONS``:
    # compare's paired differences, the page's grid of runs × runs)
    kind: str = ""
    # how many leading columns say which record a line is (compare's measure,
    # a, b and field): a table cut into blocks of columns repeats them all in
    # every block, or a reader cannot tell which pair a p belongs to. 0: as
    # :meth:`key_count` finds them
    keys: int = 0

    def __iter__(self) -> Iterator[Record]:
        return (Record(self.as_json(item)) for item in self.items)

    def __len__(self) -> int:
        return len(self.items)

    def __getitem__(self, i: int) -> Record:
        return Record(self.as_json(self.items[i]))

    def key_count(self, columns: Sequence[str]) -> int:
        """How many of the leading ``columns`` (the table's headers) name a
        record: ``keys`` when declared, else the first column and the columns
        after it that hold text in every record's JSON object (a pair's runs
        and field, a run's name), up to the first that holds a number."""
        if self.keys:
            return min(self.keys, len(columns))
        rows = [self.as_json(item) for item in self.items]
        k = 1
        while (
            rows
            and k < len(columns) - 1
            and all(isinstance(row.get(columns[k]), str) for row in rows)
        ):
            k += 1
        return k


COMPARISONS = "comparisons"


@dataclass(frozen=True)
class Report:
    """What a command computed: the result tree (``body``), the fields the
    table format shows, and the notes for stderr."""

    body: Section
    table_fields: tuple[Field, ...] = ()
    notes: tuple[str, ...] = ()
    status: int = 0  # the exit status (1: a `check` gate failed)
    # A report on one measure whose body is that measure's block, without a
    # "measures" level (`rankings`): the measure's name, which prefixes the
    # names of the text formats.
    measure: str | None = None
    command: str | None = None  # the command that made it (said by its repr)
    # The blocks the text formats lay out, when the body's tree is not one of
    # measure blocks (`judges`: judge → measure): each block as a measure's
    # (its name prefixes the lines); the JSON document is the body itself.
    blocks: tuple[tuple[str, Section], ...] = ()

    def __repr__(self) -> str:
        """One short line: the command, the measures, how many runs and topics,
        e.g. ``<Report eval: AP, nDCG@10 · 12 runs · 29 topics>``."""
        head = f"Report {self.command}" if self.command else "Report"
        names = [name for name, _ in self._blocks()]
        shown = ", ".join(names) if len(names) <= 3 else f"{', '.join(names[:2])}, … ({len(names)})"
        if len(shown) > 40:
            shown = f"{len(names)} measures"
        parts = [shown] if names else []
        runs, topics = self._counts()
        if runs is not None:
            parts.append(f"{runs} run" + ("" if runs == 1 else "s"))
        if topics is not None:
            parts.append(f"{topics} topic" + ("" if topics == 1 else "s"))
        return f"<{head}: {' · '.join(parts)}>" if parts else f"<{head}>"

    def _repr_html_(self) -> str | None:
        """The body of the ``-f html`` page (without ``<html>``, ``<head>``,
        ``<body>``), which a notebook shows; None (the notebook shows the
        repr) while no HTML renderer is registered (:func:`show_html_with`)."""
        return _HTML[0](self) if _HTML else None

    def _blocks(self) -> list[tuple[str, Section]]:
        if self.blocks:
            return list(self.blocks)
        if self.measure is None and registry.MEASURES not in self.body.keys():  # noqa: SIM118
            return []
        return list(self.measure_blocks())

    def _counts(self) -> tuple[int | None, int | None]:
        """Runs and topics, as the first measure block states them."""
        blocks = self._blocks()
        if not blocks:
            return None, None
        block = blocks[0][1]
        values = leaves(block)
        runs = _count(values.get("n_systems"))
        if runs is None and registry.SYSTEMS in block.keys():  # noqa: SIM118
            systems = block.get(registry.SYSTEMS)
            runs = len(systems.rows) if isinstance(systems, Table) else None
        topics = _count(values.get("n_topics"))
        # a block that states its design in a section of its own (design's gstudy)
        for _, node in block.items:
            if isinstance(node, Section) and (runs is None or topics is None):
                inner = leaves(node)
                runs = runs if runs is not None else _count(inner.get(registry.SYSTEMS))
                topics = topics if topics is not None else _count(inner.get("topics"))
        return runs, topics

    @property
    def measures(self) -> Section:
        node = self.body.get(registry.MEASURES)
        assert isinstance(node, Section)
        return node

    @property
    def pairs(self) -> tuple[Record, ...]:
        """compare's pairs of every measure, each with its ``measure``."""
        out = []
        for measure, block in self.measure_blocks():
            pairs = block.get(registry.PAIRS) if registry.PAIRS in block else None
            if isinstance(pairs, Records):
                out += [Record({"measure": measure, **r.values}) for r in pairs]
        return tuple(out)

    def measure_blocks(self) -> Iterator[tuple[str, Section]]:
        if self.blocks:
            yield from self.blocks
            return
        if self.measure is not None:
            yield self.measure, self.body
            return
        for name, block in self.measures.items:
            assert isinstance(block, Section)
            yield str(name), block

    def sorted_by(self, key: str) -> Report:
        """The report with the rows of every table of runs sorted by ``key``
        (``mean``, ``mse`` or ``name``: :meth:`Table.sorted_by`)."""

        def walk(node: Any) -> Any:
            if isinstance(node, Table):
                return node.sorted_by(key)
            if isinstance(node, Section):
                return replace(node, items=tuple((k, walk(v)) for k, v in node.items))
            return node

        return replace(self, body=walk(self.body))

    def prefixed(self, notes: tuple[str, ...] | list[str]) -> Report:
        """The report with ``notes`` (from reading and evaluating) before its own."""
        return replace(self, notes=tuple(notes) + self.notes)

    def settings(self) -> dict[str, Any]:
        """Top-level scalar keys (the analysis settings), in order; none for a
        one-measure report, whose scalars are its block's."""
        if self.measure is not None:
            return {}
        return {str(k): v for k, v in self.body.items if is_leaf(v)}


#: The HTML renderer of reports: the render layer is above this one, so it
#: cannot be imported here; the commands register it (show_html_with).
_HTML: list[Callable[[Report], str]] = []


def show_html_with(render: Callable[[Report], str]) -> None:
    """Let every report show itself in a notebook as ``render(report)``."""
    _HTML[:] = [render]


def _count(value: Any) -> int | None:
    return int(value) if isinstance(value, (int, float)) and value == value else None


def is_leaf(node: Any) -> TypeGuard[Value]:
    return not isinstance(node, (Section, Table, Records))


def section(*items: tuple[Field | str, Node]) -> Section:
    return Section(tuple(items))


def table_of(block: Section) -> Table:
    """The per-system table of a measure block."""
    node = block.get(registry.SYSTEMS)
    assert isinstance(node, Table)
    return node


def leaves(node: Section) -> Mapping[str, Value]:
    return {str(k): v for k, v in node.items if is_leaf(v)}
