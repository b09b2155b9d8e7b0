"""`--format xlsx`: the one-row-per-VM table (advisor.report.vmrows) as an Excel workbook, with a
second sheet for the run's notes (what the estate's figures rest on).

Written with XlsxWriter (the `xlsx` extra): a maintained writer of the Office Open XML format with no
dependencies; writing the zip and its XML parts by hand would repeat it.

No cell is ever a formula. Every text is written with `write_string` (XlsxWriter's `write` would
turn text starting with `=` into a formula), and a text a spreadsheet would take for a formula when
someone edits or re-saves the cell (starting with =, +, -, @, tab or CR: OWASP, "CSV Injection") is
stored with Excel's quote prefix, the attribute Excel itself sets when a user types a leading
apostrophe: the cell shows its text as written and stays text. Control characters are shown as text,
as in every report (advisor.output.escape).
"""

from __future__ import annotations

import datetime as dt
import io
from typing import Any

from advisor.output.escape import terminal
from advisor.report.findings import Run
from advisor.report.vmrows import COLUMNS, TITLES, rows

_FORMULA = ("=", "+", "-", "@", "\t", "\r")
_WIDTH = {"vm": 24, "host": 18, "cluster": 14, "vnuma": 48, "top_finding": 60, "recommended": 24, "assumptions": 60}
# The workbook's creation time is part of the file: a fixed one makes the same run give the same bytes.
_CREATED = dt.datetime(2000, 1, 1, tzinfo=dt.UTC)
MISSING = "--format xlsx needs XlsxWriter: pip install XlsxWriter (the 'xlsx' extra)"


def available() -> bool:
    """Whether the writer is installed (asked before any work, so a run never ends without its report)."""
    import importlib.util

    return importlib.util.find_spec("xlsxwriter") is not None


def render(run: Run) -> bytes:
    return workbook("VMs", [TITLES[key] for key in COLUMNS], [[row[key] for key in COLUMNS] for row in rows(run)],
                    run.all_notes(), [_WIDTH.get(key, 10) for key in COLUMNS])


def workbook(name: str, header: list[str], table: list[list[object]], notes: list[str],
             widths: list[int] | None = None) -> bytes:
    """A workbook of one table (its header bold and frozen, a filter on it) and a sheet of notes."""
    import xlsxwriter

    out = io.BytesIO()
    # strings_to_*: False, so no text is ever read as a formula, a number or a link.
    book = xlsxwriter.Workbook(out, {"in_memory": True, "strings_to_formulas": False, "strings_to_numbers": False,
                                     "strings_to_urls": False})
    book.set_properties({"title": f"advisor: {name}", "created": _CREATED})
    head = book.add_format({"bold": True})
    quoted = book.add_format({"quote_prefix": True})
    sheet = book.add_worksheet(name)
    for column, title in enumerate(header):
        sheet.write_string(0, column, title, head)
        sheet.set_column(column, column, widths[column] if widths else 16)
    for line, row in enumerate(table, 1):
        for column, value in enumerate(row):
            _write(sheet, line, column, value, quoted)
    sheet.freeze_panes(1, 1)
    sheet.autofilter(0, 0, len(table), len(header) - 1)
    sheet_notes = book.add_worksheet("notes")
    sheet_notes.write_string(0, 0, "note", head)
    sheet_notes.set_column(0, 0, 120)
    for line, note in enumerate(notes, 1):
        _write(sheet_notes, line, 0, note, quoted)
    book.close()
    return out.getvalue()


def _write(sheet: Any, line: int, column: int, value: object, quoted: Any) -> None:
    if value == "" or value is None:
        return
    if isinstance(value, int | float) and not isinstance(value, bool):
        sheet.write_number(line, column, value)
        return
    text = terminal(value, keep="")
    sheet.write_string(line, column, text, quoted if text.startswith(_FORMULA) else None)
