"""`--format csv`: the one-row-per-VM table as RFC 4180 CSV for a spreadsheet.

A cell that a spreadsheet would read as a formula (starting with =, +, -, @, tab or CR) is written
with a leading apostrophe, as OWASP's "CSV Injection" guidance advises: a VM name from vCenter or an
export must not become a formula in the reader's spreadsheet.
"""

from __future__ import annotations

import csv
import io

from advisor.report.findings import Run
from advisor.report.vmrows import COLUMNS, rows

_FORMULA = ("=", "+", "-", "@", "\t", "\r")


def _cell(value: object) -> object:
    if isinstance(value, str) and value.startswith(_FORMULA):
        return "'" + value
    return value


def render(run: Run) -> str:
    out = io.StringIO()
    writer = csv.writer(out, lineterminator="\n")
    writer.writerow(COLUMNS)
    for row in rows(run):
        writer.writerow([_cell(row[c]) for c in COLUMNS])
    return out.getvalue()
