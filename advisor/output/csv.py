"""`--format csv`: the one-row-per-VM table as RFC 4180 CSV for a spreadsheet.

A cell that a spreadsheet would read as a formula (starting with =, +, -, @, tab or CR) is written
with a leading apostrophe, as OWASP's "CSV Injection" guidance advises: a VM name from vCenter or an
export must not become a formula in the reader's spreadsheet.
"""

from __future__ import annotations

import csv
import io
from collections.abc import Iterable, Mapping, Sequence

from advisor.output.escape import terminal
from advisor.report.findings import Run
from advisor.report.vmrows import COLUMNS, rows

_FORMULA = ("=", "+", "-", "@", "\t", "\r")


def cell(value: object) -> object:
    """A cell as written: control characters shown, formula-like text behind an apostrophe."""
    if not isinstance(value, str):
        return value
    # Control characters (and a line break, which would start a physical line with outside text)
    # shown as for a terminal (advisor.output.escape): a CSV is often printed, not only opened;
    # a leading `::` would be a workflow command in a CI log.
    value = terminal(value, keep="")
    if value.startswith(_FORMULA) or value.lstrip().startswith("::"):  # a runner reads `  ::cmd` too
        return "'" + value
    return value


def render(run: Run) -> str:
    return table(COLUMNS, rows(run))


def table(columns: Sequence[str], records: Iterable[Mapping[str, object]]) -> str:
    """A header of `columns`, then each record's cells in that order (also `advisor diff --format csv`)."""
    out = io.StringIO()
    writer = csv.writer(out, lineterminator="\n")
    writer.writerow(columns)
    for record in records:
        writer.writerow([cell(record[c]) for c in columns])
    return out.getvalue()
