"""Read the sheets advisor needs from an RVTools export: an .xlsx workbook or the CSV folder
("Export all to csv" writes one `RVTools_tab<sheet>.csv` per sheet).

One reader per format. The workbook is read with python-calamine (the `rvtools` extra): a Rust
parser that evaluates no formula (a formula cell gives its cached value) and resolves no XML
entity. The CSV files with the standard library's csv module. Both are bounded before anything is
parsed: the file's size, the zip's member count and total uncompressed size and each member's
compression ratio (a zip bomb is refused from its central directory, never inflated), rows per
sheet and characters per cell. Nothing is extracted to disk.
"""

from __future__ import annotations

import csv
import io
import zipfile
import zlib
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from advisor.errors import InputError
from advisor.rvtools.dbnames import DB_NAMES
from advisor.rvtools.detect import CSV_PREFIX, csv_files

SHEETS = ("vInfo", "vCPU", "vMemory", "vDisk", "vNetwork", "vHost", "vCluster", "vSource", "vMetaData")
# The sheets advisor.rvtools.estate maps, the only ones parsed: calamine builds every cell of a sheet
# it parses, and vDisk (a row per disk) is not mapped (see that module), nor are vCluster (a host's
# cluster is vHost's "Cluster"), vSource and vMetaData. The others are looked for by name, so the
# report still says which are missing.
PARSED = ("vInfo", "vCPU", "vMemory", "vNetwork", "vHost")
MAX_FILE = 128 * 1024 * 1024  # an export's .xlsx, or one CSV file
MAX_MEMBERS = 1_000  # zip entries of an .xlsx (a 27-sheet export has about 60)
MAX_UNCOMPRESSED = 1024 * 1024 * 1024  # all members together, as the zip's directory states them
MAX_RATIO = 200  # uncompressed / compressed for one member; spreadsheet XML compresses ~10-20x
# One parsed sheet's XML, and the shared strings (parsed whatever sheet is read): calamine builds every
# cell before a row can be counted, and a sheet of one-digit cells takes ~5 bytes of memory per byte of
# XML (96 MB of them peaked at 482 MB). A 45,000-VM vCenter's vInfo (the most VMs vSphere 8 registers
# in one) is about 100 MB.
MAX_SHEET = 256 * 1024 * 1024
MAX_ROWS = 300_000  # rows of one sheet (vNetwork holds one per NIC)
MAX_CELL = 4_096  # characters kept of one cell
# Cells of one sheet (rows x columns as parsed): Python holds each as an object, so a CSV file of
# two-digit fields takes ~30 bytes of memory per byte (10 million cells of 30 MB peaked at 913 MB).
# The largest real sheets are well under it: a 45,000-VM vInfo of 93 columns is 4.2 million cells.
MAX_CELLS = 8_000_000
_OLE2 = bytes.fromhex("d0cf11e0a1b11ae1")  # the signature of a Compound File Binary (MS-CFB 2.2)


@dataclass
class Table:
    """One sheet: its header names and data rows, and how to name a row in a message."""

    sheet: str
    source: str  # the file the sheet was read from
    header: list[str]
    rows: list[list[Any]]
    first_row: int = 2  # the spreadsheet/CSV row number of rows[0] (the header is row 1)
    decimal: str = "."  # the decimal mark of numbers written as text (advisor.rvtools.columns.number)
    lines: list[int] | None = None  # each row's first line in a CSV file whose cells span lines, else None
    index: dict[str, int] = field(default_factory=dict)
    found: dict[tuple[str, ...], Any] = field(default_factory=dict)  # column() answers, asked per row

    def __post_init__(self) -> None:
        aliases = DB_NAMES.get(self.sheet, {})
        for i, name in enumerate(self.header):
            key = " ".join(str(name).split()).lower()
            self.index.setdefault(key, i)
        for i, name in enumerate(self.header):  # after the usual names: those win where both are present
            key = "".join(str(name).split()).lower()
            if key in aliases:
                self.index.setdefault(aliases[key], i)

    def column(self, *names: str) -> int | None:
        """The position of the first of `names` the sheet has (header variants across versions)."""
        found = self.found.get(names, -2)
        if found == -2:
            found = self.found[names] = next((self.index[n.lower()] for n in names if n.lower() in self.index), None)
        return found

    def where(self, i: int) -> str:
        return f"{self.sheet}:{self.line(i)}"

    def line(self, i: int) -> int:
        """Row i's number in the sheet, or its first line in the CSV file."""
        return self.lines[i] if self.lines is not None else self.first_row + i


@dataclass
class Export:
    path: str
    tables: dict[str, Table]
    missing: list[str]  # sheets advisor reads that the export does not hold


def read_export(path: str) -> Export:
    p = Path(path)
    if p.is_file() and p.suffix.lower() == ".csv":
        p = p.parent
    if p.is_dir():
        return _read_csv_folder(p, path)
    return _read_xlsx(p, path)


def cell(value: Any) -> Any:
    """A cell's value as read: text cut at MAX_CELL characters (cells are cut when read, not all
    cells of a sheet when it loads: advisor reads a few columns of each)."""
    if isinstance(value, str):
        return value[:MAX_CELL].strip()
    return value


def _check_zip(path: Path, label: str) -> None:
    try:
        size = path.stat().st_size
    except OSError as exc:
        raise InputError(f"cannot read: {exc.strerror}", file=label) from None
    if size > MAX_FILE:
        raise InputError(f"larger than {MAX_FILE >> 20} MiB", file=label)
    try:
        with zipfile.ZipFile(path) as archive:
            _check_members(archive, label)
    except (zipfile.BadZipFile, OSError, ValueError):
        raise InputError(_not_a_zip(path), file=label) from None


def _check_members(archive: zipfile.ZipFile, label: str) -> None:
    members = archive.infolist()
    if len(members) > MAX_MEMBERS:
        raise InputError(f"holds {len(members):,} zip members, more than {MAX_MEMBERS:,}", file=label)
    total = sum(m.file_size for m in members)
    if total > MAX_UNCOMPRESSED:
        raise InputError(f"would inflate to {total >> 20:,} MiB, more than {MAX_UNCOMPRESSED >> 20:,} MiB",
                         file=label)
    for m in members:
        if m.file_size > 1 << 20 and m.file_size > MAX_RATIO * max(m.compress_size, 1):
            raise InputError(f"member {m.filename[:80]!r} inflates {m.file_size // max(m.compress_size, 1):,}-fold "
                             "(a zip bomb?)", file=label)
    sizes = {m.filename: m.file_size for m in members}
    placed = _sheet_members(archive, sizes)
    parts = {sheet: placed.get(sheet.lower(), "") for sheet in PARSED}
    for what, member in [*parts.items(), ("shared strings", "xl/sharedStrings.xml")]:
        if sizes.get(member, 0) > MAX_SHEET:
            sheet = "sheet " if what in PARSED else ""
            raise InputError(f"{sheet}{what} would inflate to {sizes[member] / 2**20:,.1f} MiB of XML, more than "
                             f"{MAX_SHEET / 2**20:,.1f} MiB", file=label)


def _sheet_members(archive: zipfile.ZipFile, sizes: dict[str, int]) -> dict[str, str]:
    """Each sheet's XML member by the sheet's lower-case name, from xl/workbook.xml and its
    relationships, parsed with defusedxml as the OVF reader parses (no entity expanded, no external
    reference followed), and {} where they are missing, oversized or broken (the total size cap
    above still holds, and calamine refuses a broken workbook in its own words)."""
    from xml.etree.ElementTree import ParseError

    from defusedxml import DefusedXmlException
    from defusedxml.ElementTree import fromstring

    book, rels = "xl/workbook.xml", "xl/_rels/workbook.xml.rels"
    if not 0 < sizes.get(book, 0) <= 16 << 20 or not 0 < sizes.get(rels, 0) <= 16 << 20:
        return {}
    try:
        book_root, rels_root = fromstring(archive.read(book)), fromstring(archive.read(rels))
    # zipfile: NotImplementedError for a compression method it lacks, RuntimeError for an encrypted member.
    except (zipfile.BadZipFile, zlib.error, OSError, NotImplementedError, RuntimeError, ParseError,
            DefusedXmlException):
        return {}

    def local(name: str) -> str:  # "{namespace}id" -> "id": transitional and strict OOXML name them apart
        return name.rpartition("}")[2]

    targets = {}
    for rel in rels_root.iter():
        attrs = {local(k): v for k, v in rel.attrib.items()}
        if local(rel.tag) == "Relationship" and "Id" in attrs and "Target" in attrs:
            goes = attrs["Target"]
            targets[attrs["Id"]] = goes.lstrip("/") if goes.startswith("/") else f"xl/{goes}"
    found = {}
    for sheet in book_root.iter():
        attrs = {local(k): v for k, v in sheet.attrib.items()}
        if local(sheet.tag) == "sheet" and attrs.get("id") in targets and "name" in attrs:
            found[attrs["name"].lower()] = targets[attrs["id"]]
    return found


def _not_a_zip(path: Path) -> str:
    """What a file that is not an .xlsx (a zip) is, from its first bytes, and what to do instead."""
    try:
        with open(path, "rb") as handle:
            head = handle.read(64 << 10)
    except OSError:
        head = b""
    if head.startswith(_OLE2):  # the compound file of Excel 97-2003 and of every encrypted OOXML file
        if "EncryptedPackage".encode("utf-16-le") in head:
            return ("a password-protected workbook: advisor cannot decrypt it; save it without a password, "
                    "or give the folder of RVTools' 'Export all to csv'")
        return ("an Excel 97-2003 (.xls) workbook: RVTools writes .xlsx; export again, or save it as .xlsx "
                "or as CSV files")
    text = head.lstrip(b"\xef\xbb\xbf \t\r\n").lower()
    if text.startswith((b"<!doctype html", b"<html", b"<table")):
        return "an HTML file, not an .xlsx workbook (a web page saved under an .xlsx name?)"
    if head and b"\x00" not in head:
        return ("a text file, not an .xlsx workbook: for RVTools' CSV export, give the folder of its "
                "RVTools_tab*.csv files")
    return "not an .xlsx workbook (not a zip archive)"


def _read_xlsx(path: Path, label: str) -> Export:
    _check_zip(path, label)
    try:
        from python_calamine import CalamineWorkbook
    except ImportError:
        raise InputError("reading an .xlsx export needs python-calamine: pip install python-calamine "
                         "(the 'rvtools' extra), or give the folder of RVTools' 'Export all to csv'",
                         file=label) from None
    try:
        workbook = CalamineWorkbook.from_path(str(path))
    except Exception as exc:  # calamine raises its own error types for every broken part of a workbook
        raise InputError(f"not a readable .xlsx workbook ({type(exc).__name__})", file=label) from None
    tables: dict[str, Table] = {}
    names = {str(n).lower(): str(n) for n in workbook.sheet_names}
    missing = []
    for sheet in SHEETS:
        name = names.get(sheet.lower())
        if name is None:
            missing.append(sheet)
            continue
        if sheet not in PARSED:
            continue
        try:
            data = workbook.get_sheet_by_name(name)
            if data.height > MAX_ROWS + 1:
                raise InputError(f"sheet {sheet} has {data.height - 1:,} rows, more than {MAX_ROWS:,}", file=label)
            if data.height * data.width > MAX_CELLS:
                raise InputError(f"sheet {sheet} has {data.height * data.width:,} cells, more than {MAX_CELLS:,}",
                                 file=label)
            rows = data.to_python(skip_empty_area=False)
        except InputError:
            raise
        except Exception as exc:
            raise InputError(f"sheet {sheet} cannot be read ({type(exc).__name__})", file=label) from None
        if not rows:
            missing.append(sheet)
            continue
        header = [str(cell(h) or "") for h in rows[0]]
        tables[sheet] = Table(sheet, label, header, rows[1:])  # empty rows kept: row numbers stay the sheet's
    workbook.close()
    return Export(label, tables, missing)


def _read_csv_folder(folder: Path, label: str) -> Export:
    tables: dict[str, Table] = {}
    missing = []
    files = csv_files(folder)
    for sheet in SHEETS:
        path = files.get(f"{CSV_PREFIX}{sheet}.csv".lower())
        if path is None or not path.is_file():
            missing.append(sheet)
            continue
        if sheet not in PARSED:
            continue
        name = str(path)
        try:
            if path.stat().st_size > MAX_FILE:
                raise InputError(f"larger than {MAX_FILE >> 20} MiB", file=name)
            text = _decode(path.read_bytes(), name)
        except OSError as exc:
            raise InputError(f"cannot read: {exc.strerror}", file=name) from None
        table = _csv_table(sheet, name, text)
        if table is None:  # an empty file is an empty sheet, as in a workbook: missing, not an error
            missing.append(sheet)
        else:
            tables[sheet] = table
    return Export(label, tables, missing)


def _decode(data: bytes, name: str) -> str:
    """The file's text: UTF-8 (with or without its BOM; RVTools writes it), UTF-16 with its BOM
    (Excel's "Unicode Text"), else Windows-1252 (Excel's "CSV" save on Western Windows; another
    ANSI code page reads as its Windows-1252 look-alikes, so names may show wrong letters, never
    wrong numbers)."""
    if data.startswith((b"\xff\xfe", b"\xfe\xff")):
        return data.decode("utf-16", errors="replace")
    if b"\x00" in data:
        raise InputError("binary data, not an RVTools CSV file (UTF-16 needs its byte-order mark)", file=name)
    try:
        return data.decode("utf-8-sig")
    except UnicodeDecodeError:
        return data.decode("cp1252", errors="replace")


def _csv_table(sheet: str, name: str, text: str) -> Table | None:
    """The sheet, or None for a file holding nothing (no header row either). Quoted cells may hold
    any character (line breaks included, up to the file's size: cut at MAX_CELL when read, as a
    workbook's are); a line may end in CR LF, LF or CR alone; an unclosed quote is refused at its line."""
    if not text.strip("\ufeff \t\r\n,;"):
        return None
    first = text.split("\n", 1)[0].split("\r", 1)[0]
    skipped = 0
    if len(first) == 5 and first.lower().startswith("sep=") and first[4] in ",;\t|":  # Excel's separator line
        delimiter, skipped = first[4], 1
        text = text[len(first) + (2 if text[len(first):].startswith("\r\n") else 1):]  # its line end too
    else:
        delimiter = max((",", ";", "\t"), key=first.count)  # RVTools writes the list separator of its locale
    rows: list[list[Any]] = []
    limit = csv.field_size_limit()
    csv.field_size_limit(MAX_FILE)  # process-wide, so put back below: other readers keep the default
    reader = csv.reader(io.StringIO(text, newline=None), delimiter=delimiter, strict=True)
    cells = 0
    starts = []  # each row's first line: a quoted cell may hold line breaks (an annotation often does)
    last = 0
    try:
        for row in reader:
            cells += len(row)
            if len(rows) > MAX_ROWS or cells > MAX_CELLS:
                what = f"{MAX_ROWS:,} rows" if len(rows) > MAX_ROWS else f"{MAX_CELLS:,} cells"
                raise InputError(f"more than {what}", file=name, line=reader.line_num + skipped)
            starts.append(last + 1 + skipped)
            last = reader.line_num
            rows.append(row)
    except csv.Error as exc:
        # at the line where the row it could not read begins (an unclosed quote runs to the file's end)
        raise InputError(f"not a CSV file the way RVTools writes one ({exc})", file=name,
                         line=last + 1 + skipped) from None
    finally:
        csv.field_size_limit(limit)
    if not rows:
        return None
    # Where the list separator is ';', the locale writes decimal commas (Excel's CSV takes both from
    # the Windows regional settings): a number both locales could have written ("1.024") is read so.
    return Table(sheet, name, rows[0], rows[1:], first_row=2 + skipped, decimal="," if delimiter == ";" else ".",
                 lines=starts[1:] if last != len(rows) else None)  # else each row is its own line
