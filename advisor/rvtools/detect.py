"""Is a path an RVTools export? Asked of every `advisor check` input, so this module holds nothing
else (the readers, with their classes, load only when an export is given)."""

from __future__ import annotations

from pathlib import Path

CSV_PREFIX = "RVTools_tab"  # "Export all to csv" writes RVTools_tab<sheet>.csv


def is_export(path: str) -> bool:
    """An .xlsx workbook, a folder holding RVTools_tabvInfo.csv, or that file itself."""
    p = Path(path)
    if p.suffix.lower() == ".xlsx" or p.name.lower() == f"{CSV_PREFIX}vinfo.csv".lower():
        return True
    return (p / f"{CSV_PREFIX}vInfo.csv").is_file()
