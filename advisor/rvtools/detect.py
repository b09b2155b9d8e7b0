"""Is a path an RVTools export? Asked of every `advisor check` input, so this module holds nothing
else (the readers, with their classes, load only when an export is given)."""

from __future__ import annotations

import os
from pathlib import Path

CSV_PREFIX = "RVTools_tab"  # "Export all to csv" writes RVTools_tab<sheet>.csv
_VINFO = f"{CSV_PREFIX}vInfo.csv".lower()


def is_export(path: str) -> bool:
    """An .xlsx workbook (or an .xls, to be told why it is not read), a folder holding
    RVTools_tabvInfo.csv, or that file itself; file names in any case (a copy through a case-blind
    file system or an archive tool may write them in lower case)."""
    p = Path(path)
    if p.suffix.lower() in (".xlsx", ".xls") or p.name.lower() == _VINFO:
        return True
    if (p / f"{CSV_PREFIX}vInfo.csv").is_file():
        return True
    return p.is_dir() and _VINFO in csv_files(p)


def csv_files(folder: Path) -> dict[str, Path]:
    """The folder's files by lower-case name (the first in sorted order where two differ only in case)."""
    try:
        names = sorted(os.listdir(folder))
    except OSError:
        return {}
    found: dict[str, Path] = {}
    for name in names:
        if name.lower().endswith(".csv"):
            found.setdefault(name.lower(), folder / name)
    return found
