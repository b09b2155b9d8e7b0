"""A sheet of an RVTools export read by column name, a whole column at a time, and the cell values
as the export writes them (../shared/reference/rvtools.md, "Layout"): numbers as floats or text,
booleans as "True"/"False", text with stray spaces.

Column-wise because a 10,000-VM export is asked about twenty columns of each of tens of thousands
of rows: a column is found by its header once and turned into values in one list comprehension,
instead of a lookup and a call per cell.
"""

from __future__ import annotations

from typing import Any

from advisor.rvtools.workbook import MAX_CELL, Table
from advisor.vocab import read_bool


def text(value: Any) -> str:
    """A cell as one line of text: "4" for 4.0, inner runs of white space as one space."""
    if value is None:
        return ""
    if isinstance(value, float) and value.is_integer():
        return str(int(value))
    return " ".join(str(value).split())


def number(value: Any) -> float | None:
    """A cell as a number ("1,024" and 1024.0 alike), None when it holds none."""
    try:
        return float(text(value).replace(",", ""))
    except ValueError:
        return None


def flag(value: Any) -> bool | None:
    """RVTools writes booleans as "True"/"False" (a workbook may hold real booleans)."""
    return value if isinstance(value, bool) else read_bool(text(value))


class Sheet:
    """One sheet (or none: every column then reads as empty), each column asked for once:
    `sheet.texts("VM")[i]` is row i's VM name whatever position the column has; `names` are a
    column's header variants across RVTools versions, the first the sheet has wins."""

    __slots__ = ("_columns", "size", "table")

    def __init__(self, table: Table | None) -> None:
        self.table = table
        self.size = len(table.rows) if table is not None else 0
        self._columns: dict[tuple[str, tuple[str, ...]], list[Any]] = {}

    def has(self, *names: str) -> bool:
        return self.table is not None and self.table.column(*names) is not None

    def cells(self, *names: str) -> list[Any]:
        """The column's cells, text cut at MAX_CELL characters and stripped; None past a short row
        (a CSV line with fewer fields) and for a column the sheet lacks."""
        key = ("cells", names)
        found = self._columns.get(key)
        if found is None:
            i = self.table.column(*names) if self.table is not None else None
            if i is None or self.table is None:
                found = [None] * self.size
            else:
                found = [(r[i][:MAX_CELL].strip() if isinstance(r[i], str) else r[i]) if i < len(r) else None
                         for r in self.table.rows]
            self._columns[key] = found
        return found

    def texts(self, *names: str) -> list[str]:
        found = self._columns.get(("texts", names))
        if found is None:  # text(v) for each cell; a text cell (nearly all) without the call
            found = self._columns[("texts", names)] = [" ".join(v.split()) if v.__class__ is str else text(v)
                                                       for v in self.cells(*names)]
        return found

    def numbers(self, *names: str) -> list[float | None]:
        found = self._columns.get(("numbers", names))
        if found is None:  # number(v) for each cell; a float cell is its own number (text() writes it exactly)
            found = self._columns[("numbers", names)] = [v if v.__class__ is float else number(v)
                                                         for v in self.cells(*names)]
        return found

    def flags(self, *names: str) -> list[bool | None]:
        found = self._columns.get(("flags", names))
        if found is None:
            found = self._columns[("flags", names)] = [flag(v) for v in self.cells(*names)]
        return found

    def rows(self) -> list[int]:
        """The indices of the rows holding any value (`any(r)` settles nearly all at C speed; a row
        of zeros and False is looked at again)."""
        if self.table is None:
            return []
        return [i for i, r in enumerate(self.table.rows) if any(r) or any(v not in ("", None) for v in r)]

    def where(self, i: int) -> str:
        """`export.xlsx#vInfo:12`, or `RVTools_tabvInfo.csv:12` for the CSV form (a file and its line)."""
        assert self.table is not None
        if self.table.source.lower().endswith(".csv"):
            return f"{self.table.source}:{self.table.first_row + i}"
        return f"{self.table.source}#{self.table.where(i)}"

    def keys(self) -> list[tuple[str, str]]:
        """Each row's VM identity across sheets: (VI SDK UUID, VM UUID) when the export has them,
        else (VI SDK Server, VM name)."""
        found = self._columns.get(("keys", ()))
        if found is None:
            uuids, sdks = self.texts("VM UUID"), self.texts("VI SDK UUID")
            servers, names = self.texts("VI SDK Server"), self.texts("VM")
            found = self._columns[("keys", ())] = [(sdks[i], u) if u else (servers[i], names[i])
                                                   for i, u in enumerate(uuids)]
        return found
