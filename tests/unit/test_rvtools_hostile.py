"""RVTools exports as real people have them and as an attacker writes them (issue 37): locale
numbers, RVTools' database column names, CSV files re-saved by Excel in other encodings and cases,
empty sheets, values no host or VM can have, files that only look like workbooks. Each is read as
it means or refused in one line at its file, row and field; none gives an internal error."""

from __future__ import annotations

import csv
import io
from pathlib import Path

import pytest
from rvtools_gen import GenHost, GenVM, sheets, write_csv_folder, write_xlsx

from advisor.errors import InputError
from advisor.rvtools import dbnames
from advisor.rvtools.columns import number
from advisor.rvtools.estate import build
from advisor.rvtools.workbook import MAX_CELL, read_export

HOSTS = [GenHost("esx01"), GenHost("esx02", cores=14, esx="VMware ESXi 8.0.3 build-24674464")]
VMS = [GenVM("sql01", "esx01", cpus=24, memory_mb=131072, nics=["E1000"], cps=4, cpu_reservation=1000),
       GenVM("web01", "esx01", cpus=2, memory_mb=4096),
       GenVM("app02", "esx02", cpus=16, memory_mb=65536, latency="high", memory_locked=True)]


def _vms(path: Path) -> list[dict]:
    """Every VM of the export as its spec states it, in order."""
    return [vm for spec in build(read_export(str(path))).specs for vm in spec.doc["vms"]]


def _rewrite(folder: Path, rows_of, delimiter: str = ",", encoding: str = "utf-8-sig", newline: str = "\r\n") -> Path:
    """Each CSV file of the folder written again: rows through `rows_of`, in another dialect or encoding."""
    for path in folder.iterdir():
        rows = [rows_of(r) for r in csv.reader(io.StringIO(path.read_text(encoding="utf-8-sig")))]
        out = io.StringIO()
        csv.writer(out, delimiter=delimiter, lineterminator=newline).writerows(rows)
        path.write_bytes(out.getvalue().encode(encoding))
    return folder


@pytest.fixture
def expected(tmp_path: Path) -> list[dict]:
    return _vms(write_csv_folder(tmp_path / "plain", sheets(HOSTS, VMS)))


@pytest.mark.parametrize(("text", "decimal", "value"), [
    ("4096", ".", 4096.0), ("4096.0", ",", 4096.0), ("-1", ",", -1.0), ("1e3", ".", 1000.0),
    ("1,024", ".", 1024.0), ("1,024", ",", 1.024),  # the one shape two locales read apart: the file's mark
    ("1.024", ",", 1024.0), ("1.024", ".", 1.024),
    ("1.024,5", ".", 1024.5), ("1,024.5", ",", 1024.5), ("1.024.000", ".", 1024000.0),  # both marks: one reading
    ("131072,00", ".", 131072.0), ("131072,00", ",", 131072.0), ("1 024,5", ",", 1024.5), ("1'024.5", ".", 1024.5),
    ("12,34,5", ".", None), ("1,2,3", ",", None), ("inf", ".", None), ("nan", ".", None), ("1e400", ".", None),
    ("#N/A", ".", None), ("", ".", None), ("1_000", ".", None), ("\u0663", ".", None),  # an Arabic-Indic 3
    (float("inf"), ".", None), (float("nan"), ".", None), (True, ".", None),
])
def test_a_number_has_the_reading_its_locale_gives_it_or_none(text, decimal: str, value) -> None:
    from advisor.rvtools.columns import Sheet
    from advisor.rvtools.workbook import Table

    assert number(text, decimal) == value
    # a sheet's column (its own shortcut for plain cells) reads each cell as number() does
    assert Sheet(Table("vInfo", "x.csv", ["n"], [[text]], decimal=decimal)).numbers("n") == [value]


def test_a_european_csv_export_reads_as_the_plain_one(tmp_path: Path, expected: list[dict]) -> None:
    """Excel in a decimal-comma locale re-saves with ';' and writes "131.072,00": the old reader
    took the comma for a thousands separator, ten times every size (or a host refused)."""
    def european(row: list[str]) -> list[str]:
        out = []
        for cell in row:
            try:
                value = float(cell)
            except ValueError:
                out.append(cell)
                continue
            out.append(f"{value:,.2f}".replace(",", " ").replace(".", ",").replace(" ", "."))
        return out

    folder = _rewrite(write_csv_folder(tmp_path / "eu", sheets(HOSTS, VMS)), european, delimiter=";")
    assert "131.072,00" in (folder / "RVTools_tabvInfo.csv").read_text(encoding="utf-8-sig")
    assert _vms(folder) == expected


def test_numbers_no_host_or_vm_can_have_are_unknown_or_refused_at_their_row(cli, tmp_path: Path) -> None:
    """inf, nan and 1e400 were an internal error (exit 3); a value out of a spec's range refused
    the whole host's spec without a row, and a bad host spoilt its cluster peers' specs."""
    data = sheets([*HOSTS, GenHost("esx03")], [*VMS, GenVM("big01", "esx03", cpus=4, memory_mb=4096)])
    info, host, cpu = data["vInfo"], data["vHost"], data["vCPU"]
    info[2][info[0].index("CPUs")] = "inf"  # web01: unknown, said so
    info[1][info[0].index("CPUs")] = "1e9"  # sql01: out of a VM's range, refused at its row
    host[3][host[0].index("# CPU")] = "1e30"  # esx03: out of a host's range
    host[2][host[0].index("# Memory")] = "nan"  # esx02: unknown
    cpu[1][cpu[0].index("Limit")] = "1e400"
    folder = write_csv_folder(tmp_path / "odd", data)
    result = cli("check", folder, "--format", "json")
    assert result.code == 2, result.err
    host, vm = result.err.splitlines()  # one line each, the host's first (it is read first)
    assert "internal error" not in result.err
    assert vm.endswith("RVTools_tabvInfo.csv:2: vcpus: VM sql01: Input should be less than or equal to 4096")
    assert "RVTools_tabvHost.csv:4: sockets: host esx03: " in host and host.endswith("its VMs are not checked")
    import json

    doc = json.loads(result.out)
    assert doc["vms"] == []  # web01 unknown, app02 on an unknown host, big01 on a refused one
    notes = " ".join(doc["notes"])
    assert "VM web01" in notes and "no name or CPUs value" in notes and "host esx02" in notes


def test_rvtools_database_column_names_read_as_the_usual_ones(tmp_path: Path, expected: list[dict]) -> None:
    """`RVTools -DBColumnNames` writes "vInfoVMName" for "VM": the old reader refused every such export."""
    data = sheets(HOSTS, VMS)
    for sheet, names in dbnames.DB_NAMES.items():
        usual = {v: k for k, v in names.items()}  # the database name of each usual header it maps
        header = data[sheet][0]
        data[sheet][0] = [f"{sheet}{usual[h.lower()][len(sheet):]}" if h.lower() in usual else h for h in header]
    assert "vInfoVMName".lower() in [h.lower() for h in data["vInfo"][0]]
    assert _vms(write_xlsx(tmp_path / "db.xlsx", data)) == expected


def test_per_vm_sheets_are_joined_by_what_every_sheet_carries(tmp_path: Path, expected: list[dict]) -> None:
    """vCPU without the vCenter's columns (a database-named export names the vCenter on vInfo only):
    vInfo's (vCenter, UUID) key found no vCPU row, and cores per socket and reservations were lost
    without a word."""
    data = sheets(HOSTS, VMS)
    gone = [data["vCPU"][0].index(c) for c in ("VM UUID", "VI SDK Server", "VI SDK UUID")]
    data["vCPU"] = [[c for i, c in enumerate(row) if i not in gone] for row in data["vCPU"]]
    export = read_export(str(write_csv_folder(tmp_path / "mixed", data)))
    estate = build(export)
    assert [vm for spec in estate.specs for vm in spec.doc["vms"]] == expected
    assert expected[0]["cores_per_socket"] == 4 and expected[0]["cpu_reservation"] == 1000
    assert any(n.startswith("vCPU name no vCenter or VM UUID: their rows are matched to vInfo's by VM name")
               for n in estate.notes)


@pytest.mark.parametrize("variant", ["lower-case names", "utf-16", "cp1252", "cr line ends", "long cell", "sep= line"])
def test_csv_files_as_other_tools_save_them_read_the_same(tmp_path: Path, expected: list[dict], variant: str) -> None:
    folder = write_csv_folder(tmp_path / "csv", sheets(HOSTS, VMS))
    if variant == "lower-case names":
        for path in list(folder.iterdir()):
            path.rename(folder / path.name.lower())
    elif variant == "utf-16":  # Excel's "Unicode Text"
        _rewrite(folder, list, delimiter="\t", encoding="utf-16")
    elif variant == "cp1252":  # Excel's "CSV" on Western Windows: not UTF-8 (the old reader wrote U+FFFD)
        _rewrite(folder, lambda r: [c.replace("web01", "wéb01") for c in r], encoding="cp1252")
        expected[1]["name"] = "wéb01"
    elif variant == "cr line ends":  # classic Mac Excel
        _rewrite(folder, list, newline="\r")
    elif variant == "sep= line":  # Excel's first line naming the separator; rows keep their file line numbers
        _rewrite(folder, list, delimiter=";")
        for path in folder.iterdir():
            path.write_bytes(b"\xef\xbb\xbfsep=;\r\n" + path.read_bytes().removeprefix(b"\xef\xbb\xbf"))
        assert read_export(str(folder)).tables["vInfo"].first_row == 3
    else:  # a cell past the csv module's default field limit (131,072): read and cut as a workbook's
        _rewrite(folder, lambda r: [("y" * 200_000 if c == "" else c) if r[0] == "web01" else c for c in r])
    from advisor.rvtools.detect import is_export

    assert is_export(str(folder))
    assert _vms(folder) == expected
    if variant == "long cell":
        table = read_export(str(folder)).tables["vInfo"]
        assert len(table.rows[1][table.header.index("Annotation")]) == 200_000
        from advisor.rvtools.columns import Sheet

        assert len(Sheet(table).cells("Annotation")[1]) == MAX_CELL


def test_an_empty_csv_file_is_a_missing_sheet_as_in_a_workbook(tmp_path: Path) -> None:
    folder = write_csv_folder(tmp_path / "csv", sheets(HOSTS, VMS))
    (folder / "RVTools_tabvNetwork.csv").write_bytes(b"\xef\xbb\xbf\r\n")
    estate = build(read_export(str(folder)))
    assert len([vm for s in estate.specs for vm in s.doc["vms"]]) == 3
    assert "sheets not in the export: vDisk, vNetwork" in estate.notes
    (folder / "RVTools_tabvInfo.csv").write_bytes(b"")
    with pytest.raises(InputError, match="no vInfo sheet"):
        build(read_export(str(folder)))


def test_an_unclosed_quote_is_refused_at_its_line(tmp_path: Path) -> None:
    """A truncated copy: the old reader took the rest of the file as one cell of a made-up row."""
    folder = write_csv_folder(tmp_path / "csv", sheets(HOSTS, VMS))
    path = folder / "RVTools_tabvInfo.csv"
    path.write_bytes(path.read_bytes() + b'"cut01,poweredOn\r\nmore,lines\r\nto,the,end\r\n')
    with pytest.raises(InputError, match="unexpected end of data") as info:
        read_export(str(folder))
    assert (info.value.file, info.value.line) == (str(path), 5)  # where the quote opens


def test_the_same_export_given_twice_is_read_once(cli, tmp_path: Path) -> None:
    folder = write_csv_folder(tmp_path / "csv", sheets(HOSTS, VMS))
    once = cli("check", folder, "--format", "json")
    twice = cli("check", folder, folder / "RVTools_tabvInfo.csv", tmp_path / "csv" / ".." / "csv", "--format", "json")
    import json

    a, b = json.loads(once.out), json.loads(twice.out)
    assert len(a["vms"]) == 3 and a["vms"] == b["vms"] and a["findings"] == b["findings"]
    assert sum("again, read once" in n for n in b["notes"]) == 2


@pytest.mark.parametrize(("head", "says"), [
    (bytes.fromhex("d0cf11e0a1b11ae1") + b"\0" * 512 + "EncryptedPackage".encode("utf-16-le"), "password-protected"),
    (bytes.fromhex("d0cf11e0a1b11ae1") + b"\0" * 512, r"Excel 97-2003 \(\.xls\)"),
    (b"<!DOCTYPE html><html><table><tr><td>VM</td></tr></table></html>", "an HTML file"),
    (b"\xef\xbb\xbfVM,CPUs\r\nweb01,2\r\n", "a text file"),
    (b"\x00\x01\x02binary", r"not an \.xlsx workbook \(not a zip archive\)"),
])
def test_a_file_that_is_not_an_xlsx_says_what_it_is(cli, tmp_path: Path, head: bytes, says: str) -> None:
    for name in ("export.xlsx", "export.xls"):
        path = tmp_path / name
        path.write_bytes(head)
        with pytest.raises(InputError, match=says):
            read_export(str(path))
    result = cli("check", tmp_path / "export.xls", tmp_path / "export.xlsx")
    assert result.code == 2 and len(result.err.splitlines()) == 2 and "internal error" not in result.err


def test_why_a_vm_is_left_out_is_said_when_none_of_its_host_is_left(tmp_path: Path) -> None:
    """Formulas without a cached value read as empty: each such VM was left out with a note, but
    the notes of a host none of whose VMs remained went with its empty spec, unsaid."""
    data = sheets(HOSTS, VMS)
    info = data["vInfo"]
    info[1][info[0].index("CPUs")] = "=NA()"
    info[2][info[0].index("VM")] = "=1/0"
    estate = build(read_export(str(write_xlsx(tmp_path / "formulas.xlsx", data))))
    assert [s.doc["host"]["name"] for s in estate.specs] == ["esx02"]
    left = [n for n in estate.notes if n.endswith("no name or CPUs value; not checked")]
    assert [n.split(" (")[0] for n in left] == ["VM sql01", "VM ?"] and "formulas.xlsx#vInfo:3" in left[1]


def test_a_sheet_too_large_to_hold_is_refused_before_it_is_parsed(tmp_path: Path, monkeypatch) -> None:
    """calamine builds every cell of a sheet before its rows can be counted: a sheet of tiny cells
    under the total size cap could take gigabytes. Its XML size, from the zip's directory, is the bound."""
    import sys

    from advisor.rvtools import workbook

    path = write_xlsx(tmp_path / "wide.xlsx", sheets(HOSTS, VMS))
    monkeypatch.setitem(sys.modules, "python_calamine", None)  # reached, the message would be another
    monkeypatch.setattr(workbook, "MAX_SHEET", 2_000)
    with pytest.raises(InputError, match=r"wide\.xlsx: sheet vInfo would inflate to [\d.]+ MiB of XML, more than"):
        read_export(str(path))
    monkeypatch.setattr(workbook, "MAX_SHEET", 1 << 20)
    with pytest.raises(InputError, match="needs python-calamine"):  # under the cap: on to the parser
        read_export(str(path))


def test_a_sheet_of_too_many_cells_is_refused_at_the_row_that_passes_the_bound(tmp_path: Path, monkeypatch) -> None:
    """A CSV file of short fields took ~30 bytes of memory per byte of file: the cells are counted as read."""
    from advisor.rvtools import workbook

    monkeypatch.setattr(workbook, "MAX_CELLS", 3 * len(sheets(HOSTS, VMS)["vInfo"][0]))  # the header and two rows
    folder = write_csv_folder(tmp_path / "csv", sheets(HOSTS, VMS))
    with pytest.raises(InputError, match=r"more than [0-9,]+ cells") as info:
        read_export(str(folder))
    assert (Path(info.value.file or "").name, info.value.line) == ("RVTools_tabvInfo.csv", 4)
    with pytest.raises(InputError, match=r"sheet vInfo has [0-9,]+ cells, more than"):
        read_export(str(write_xlsx(tmp_path / "x.xlsx", sheets(HOSTS, VMS))))


def test_a_finding_points_at_its_line_when_a_cell_above_spans_lines(tmp_path: Path) -> None:
    """An annotation with line breaks (quoted, as RVTools writes it) made every later row's line
    number the row's position, off by the breaks above it."""
    data = sheets(HOSTS, VMS)
    data["vInfo"][1][data["vInfo"][0].index("Annotation")] = "owner: dba\nticket: 42\nno reboot"
    folder = write_csv_folder(tmp_path / "csv", data)
    estate = build(read_export(str(folder)))
    lines = (folder / "RVTools_tabvInfo.csv").read_text(encoding="utf-8-sig").splitlines()
    for spec in estate.specs:
        for vm, where in spec.origin.vms.items():
            assert lines[int(where.rpartition(":")[2]) - 1].startswith(f"{vm},"), (vm, where)
    assert {vm: w.rpartition(":")[2] for s in estate.specs for vm, w in s.origin.vms.items()} == {
        "sql01": "2", "web01": "5", "app02": "6"}
