"""A sheet of an RVTools export read by column name, a whole column at a time, and the cell values
as the export writes them (../shared/reference/rvtools.md, "Layout"): numbers as floats or text,
booleans as "True"/"False", text with stray spaces.

Column-wise because a 10,000-VM export is asked about twenty columns of each of tens of thousands
of rows: a column is found by its header once and turned into values in one list comprehension,
instead of a lookup and a call per cell.
"""

from __future__ import annotations

import re
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


# A number as Python and RVTools' own CSV write it: digits, one decimal point, an exponent.
_PLAIN = re.compile(r"[+-]?\d+(?:\.\d+)?(?:[eE][+-]?\d+)?", re.ASCII)
_INTEGER = re.compile(r"[+-]?\d+", re.ASCII)
# "1.024": a thousands dot where the decimal mark is ','.
_DOT_GROUPS = re.compile(r"[+-]?\d{1,3}(?:\.\d{3})+", re.ASCII)
# The whole part as a locale groups it: in threes by one mark (comma, dot, apostrophe or space), or not at all.
_WHOLE = re.compile(r"\d+|\d{1,3}([,.' ])\d{3}(?:\1\d{3})*", re.ASCII)


def number(value: Any, decimal: str = ".") -> float | None:
    """A cell as a finite number, None when it holds none. Text is read as the export's locale
    wrote it: "1,024", "1.024,5", "1 024,5" and "131072,00" each have one reading; only a value
    with a single mark before exactly three digits ("1,024", "1.024") has two, and `decimal` (the
    file's decimal mark) settles it. A value with no reading ("12,34,5", "inf", "#N/A") is None:
    unknown, never a number made up from its digits."""
    if value.__class__ is float:
        return value if value - value == 0 else None  # inf and nan are not sizes
    s = text(value)
    if _PLAIN.fullmatch(s) and (decimal == "." or not _DOT_GROUPS.fullmatch(s)):
        found = float(s)
        return found if found - found == 0 else None
    return _localized(s, decimal)


def _localized(s: str, decimal: str) -> float | None:
    sign = s[:1] if s[:1] in "+-" else ""
    whole, fraction = s[len(sign):], "0"
    last = max(whole.rfind("."), whole.rfind(","))
    if last >= 0:
        mark, before, after = whole[last], whole[:last], whole[last + 1:]
        other = "," if mark == "." else "."
        # The last mark is the decimal one unless it also groups the digits before it ("1.024.000"),
        # or it stands before three digits with no other mark while the file's decimal mark is the other.
        if mark not in before and (other in before or len(after) != 3 or mark == decimal):
            whole, fraction = before, after
    if not fraction.isdigit() or not fraction.isascii() or _WHOLE.fullmatch(whole) is None:
        return None
    found = float(f"{sign}{re.sub('[^0-9]', '', whole)}.{fraction}")
    return found if found - found == 0 else None


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
        if found is None:
            # number(v) for each cell, without the call where the reading is plain: a finite float cell
            # is its own number (text() writes it exactly), and so is a text cell of plain digits.
            mark = self.table.decimal if self.table is not None else "."
            plain = (_PLAIN if mark == "." else _INTEGER).fullmatch
            found = self._columns[("numbers", names)] = [
                v if v.__class__ is float and v - v == 0
                else (f if (f := float(v)) - f == 0 else None) if v.__class__ is str and plain(v)
                else number(v, mark) for v in self.cells(*names)]
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
            return f"{self.table.source}:{self.table.line(i)}"
        return f"{self.table.source}#{self.table.where(i)}"

    def keys(self, identity: str = "uuid") -> list[tuple[str, str]]:
        """Each row's VM identity across sheets. "uuid": (VI SDK UUID, VM UUID) where the row has a
        VM UUID, else (VI SDK Server, VM name); "server": (VI SDK Server, VM name); "name": ("", VM
        name), for sheets that do not all carry the vCenter's columns (advisor.rvtools.estate)."""
        found = self._columns.get(("keys", (identity,)))
        if found is None:
            names = self.texts("VM")
            servers = self.texts("VI SDK Server") if identity != "name" else [""] * self.size
            if identity == "uuid":
                uuids, sdks = self.texts("VM UUID"), self.texts("VI SDK UUID")
                found = [(sdks[i], u) if u else (servers[i], names[i]) for i, u in enumerate(uuids)]
            else:
                found = list(zip(servers, names, strict=True))
            self._columns[("keys", (identity,))] = found
        return found
