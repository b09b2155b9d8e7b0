"""RVTools exports as a running estate: generated workbooks and CSV folders (tests/rvtools_gen.py)
across header variants, what an export cannot say, findings pointed at sheet and row, and hostile files."""

from __future__ import annotations

import io
import json
import zipfile
from pathlib import Path

import pytest
from rvtools_gen import GenHost, GenVM, sheets, write_csv_folder, write_xlsx

from advisor.errors import InputError
from advisor.rvtools import workbook
from advisor.rvtools.estate import build
from advisor.rvtools.workbook import read_export

HOSTS = [
    GenHost("esx01"),  # 2 x 10 cores with HT, ESXi 6.7
    GenHost("esx02", cores=14, ht=False, esx="VMware ESXi 8.0.3 build-24674464",
            cpu_model="AMD EPYC 7453 28-Core Processor"),
    GenHost("esx03", cores=16, esx="VMware ESXi 7.0.3 build-19193900", power="High performance"),
]
VMS = [
    GenVM("sql01", "esx01", cpus=24, memory_mb=131072, nics=["E1000"]),
    GenVM("web01", "esx01", cpus=2, memory_mb=4096),
    GenVM("off01", "esx02", cpus=4, memory_mb=4096, power="poweredOff"),
    GenVM("tmpl01", "esx02", cpus=4, memory_mb=4096, template=True),
    GenVM("app02", "esx02", cpus=16, memory_mb=65536, latency="high"),
    GenVM("db03", "esx03", cpus=12, memory_mb=98304, cps=4, cpu_hot_add=True, memory_locked=True),
]


def _findings(run) -> list[tuple[str, str | None, str]]:
    return sorted((f.rule, f.vm, f.severity) for f in run.findings)


def _check(*paths: Path):
    from advisor.commands.scopes import Options, Scopes
    from advisor.load.config import load_config
    from advisor.rvtools.check import check_exports

    scopes = Scopes(Options((), (), (), None, None))
    first = scopes.of(load_config(None, [str(p) for p in paths], scopes.found))
    return check_exports([str(p) for p in paths], first.catalog, first.policy)


@pytest.fixture
def xlsx(tmp_path: Path) -> Path:
    return write_xlsx(tmp_path / "export.xlsx", sheets(HOSTS, VMS))


@pytest.mark.self_compare
def test_the_workbook_and_its_csv_folder_give_the_same_findings(xlsx: Path, tmp_path: Path) -> None:
    folder = write_csv_folder(tmp_path / "csv", sheets(HOSTS, VMS))
    a, b = _check(xlsx), _check(folder)
    assert not a.errors and not b.errors
    assert _findings(a) == _findings(b)
    assert {"NET001", "LIM010"} <= {f.rule for f in a.findings}


@pytest.mark.self_compare
@pytest.mark.parametrize("variant", [
    {"version": 3},  # 3.x: sizes in MB
    {"custom": ("Owner", "Cost center", "Backup policy")},  # custom attributes shift every later column
    {"drop": ("Numa Hotadd Exposed", "Memory Tiering Type", "HW target", "SRM Placeholder")},  # older exports
])
def test_header_variants_read_the_same(tmp_path: Path, xlsx: Path, variant: dict) -> None:
    other = write_xlsx(tmp_path / "variant.xlsx", sheets(HOSTS, VMS, **variant))
    assert _findings(_check(other)) == _findings(_check(xlsx))


def test_hosts_vms_and_what_the_export_cannot_say(xlsx: Path) -> None:
    estate = build(read_export(str(xlsx)))
    by_host = {s.doc["host"]["name"]: s for s in estate.specs}
    assert sorted(by_host) == ["esx01", "esx02", "esx03"]
    esx01, esx02, esx03 = (by_host[n].doc["host"] for n in ("esx01", "esx02", "esx03"))
    assert (esx01["threads_per_core"], esx01["esxi"], esx01["power_policy"]) == (2, "6.7", "balanced")
    assert (esx02["threads_per_core"], esx02["esxi"]) == (1, "8.0 U3")  # 8.0.3 is 8.0 Update 3 (KB 395110)
    assert (esx03["esxi"], esx03["power_policy"]) == ("7.0 U3", "high-performance")
    assert [vm["name"] for vm in by_host["esx02"].doc["vms"]] == ["app02"]  # powered off and template left out
    db03 = by_host["esx03"].doc["vms"][0]
    assert (db03["cores_per_socket"], db03["cpu_hot_add"], db03["memory_reservation"]) == (4, True, "full")
    assert by_host["esx02"].doc["vms"][0]["latency_sensitivity"] == "high"
    notes = " ".join(estate.notes)
    assert "one NUMA node per socket assumed" in notes and "3 host(s)" in notes
    assert "node count uncertain" in " ".join(by_host["esx02"].assumptions)  # EPYC: NPS can split a socket
    assert "node count uncertain" not in " ".join(by_host["esx01"].assumptions)
    assert "1 VM(s) powered off" in notes and "1 VM(s) templates" in notes
    assert "not in an RVTools export" in notes


def test_findings_point_at_the_sheet_and_row(xlsx: Path, tmp_path: Path) -> None:
    run = _check(xlsx)
    by_vm = {(f.rule, f.vm): f for f in run.findings}
    net = by_vm[("NET001", "sql01")]
    assert (net.file, net.line) == (f"{xlsx}#vInfo", 2)  # sql01 is vInfo's first data row
    host_findings = [f for f in run.findings if f.vm is None]
    assert host_findings and all(f.file == f"{xlsx}#vHost" and f.line in (2, 3, 4) for f in host_findings)
    folder = write_csv_folder(tmp_path / "csv", sheets(HOSTS, VMS))
    net_csv = next(f for f in _check(folder).findings if f.rule == "NET001")
    assert (Path(net_csv.file).name, net_csv.line) == ("RVTools_tabvInfo.csv", 2)


@pytest.mark.self_compare
def test_the_same_estate_as_hand_written_specs_gives_the_same_findings(xlsx: Path, tmp_path: Path) -> None:
    import yaml

    from advisor.engine.specs import check_files

    estate = build(read_export(str(xlsx)))
    files = []
    for i, spec in enumerate(estate.specs):
        path = tmp_path / f"host{i}.yaml"
        path.write_text(yaml.safe_dump(spec.doc, sort_keys=False))
        files.append(str(path))
    from advisor.commands.scopes import Options, Scopes
    from advisor.load.config import load_config

    scopes = Scopes(Options((), (), (), None, None))
    first = scopes.of(load_config(None, files, scopes.found))
    hand = check_files(files, first.catalog, first.policy, first.profiles, None)
    assert _findings(hand) == _findings(_check(xlsx))


# --- hostile workbooks: refused or bounded with one line, counted, never inflated ----------------


def test_a_zip_bomb_is_refused_from_its_directory(tmp_path: Path) -> None:
    bomb = tmp_path / "bomb.xlsx"
    with zipfile.ZipFile(bomb, "w", zipfile.ZIP_DEFLATED) as archive:
        archive.writestr("xl/worksheets/sheet1.xml", b"\0" * (8 << 20))
    assert bomb.stat().st_size < 64 << 10  # 8 MiB of zeros in a few KiB
    with pytest.raises(InputError, match="inflates"):
        read_export(str(bomb))


def test_too_many_members_or_bytes_are_refused(tmp_path: Path, monkeypatch) -> None:
    many = tmp_path / "many.xlsx"
    with zipfile.ZipFile(many, "w") as archive:
        for i in range(30):
            archive.writestr(f"m{i}", b"x")
    monkeypatch.setattr(workbook, "MAX_MEMBERS", 20)
    with pytest.raises(InputError, match="zip members"):
        read_export(str(many))
    monkeypatch.setattr(workbook, "MAX_MEMBERS", 1000)
    monkeypatch.setattr(workbook, "MAX_UNCOMPRESSED", 10)
    with pytest.raises(InputError, match="would inflate"):
        read_export(str(many))


def test_not_a_workbook_and_binary_csv_are_one_line(tmp_path: Path) -> None:
    fake = tmp_path / "fake.xlsx"
    fake.write_text("VM,CPUs\n")
    with pytest.raises(InputError, match=r"not an \.xlsx"):
        read_export(str(fake))
    folder = tmp_path / "csv"
    folder.mkdir()
    (folder / "RVTools_tabvInfo.csv").write_bytes(b"VM,CPUs\x00\n")
    with pytest.raises(InputError, match="binary"):
        read_export(str(folder))


def test_rows_over_the_cap_are_refused(tmp_path: Path, monkeypatch) -> None:
    monkeypatch.setattr(workbook, "MAX_ROWS", 50)
    many = [GenVM(f"vm{i}", "esx01", cpus=2, memory_mb=2048) for i in range(60)]
    data = sheets(HOSTS[:1], many)
    with pytest.raises(InputError, match="more than 50 rows"):
        read_export(str(write_csv_folder(tmp_path / "csv", data)))
    with pytest.raises(InputError, match="rows, more than 50"):
        read_export(str(write_xlsx(tmp_path / "many.xlsx", data)))


def test_formulas_wrong_types_and_huge_strings_are_bounded(tmp_path: Path) -> None:
    data = sheets(HOSTS[:1], [GenVM("ok", "esx01", cpus=2, memory_mb=2048),
                              GenVM("formula", "esx01", cpus=2, memory_mb=2048),
                              GenVM("text", "esx01", cpus=2, memory_mb=2048),
                              GenVM("x" * 100_000, "esx01", cpus=2, memory_mb=2048)])
    cpus = data["vInfo"][0].index("CPUs")
    data["vInfo"][2][cpus] = "=2*8"  # a formula: never evaluated
    data["vInfo"][3][cpus] = "many"
    estate = build(read_export(str(write_xlsx(tmp_path / "odd.xlsx", data))))
    names = [vm["name"] for spec in estate.specs for vm in spec.doc["vms"]]
    assert names[0] == "ok" and len(names) == 2 and len(names[1]) == 200
    notes = " ".join(n for s in estate.specs for n in s.notes)
    assert "VM formula" in notes and "VM text" in notes and "no name or CPUs value" in notes


def test_missing_sheets(tmp_path: Path) -> None:
    data = sheets(HOSTS, VMS)
    no_info = {k: v for k, v in data.items() if k != "vInfo"}
    with pytest.raises(InputError, match="no vInfo"):
        build(read_export(str(write_xlsx(tmp_path / "a.xlsx", no_info))))
    no_host = {k: v for k, v in data.items() if k != "vHost"}
    estate = build(read_export(str(write_xlsx(tmp_path / "b.xlsx", no_host))))
    assert estate.specs == [] and any("no vHost sheet" in n for n in estate.notes)


def test_check_reads_an_export_beside_spec_files(cli, xlsx: Path) -> None:
    from conftest import REPO

    result = cli("check", xlsx, REPO / "examples" / "hpc-node.yaml", "--format", "json")
    assert result.code in (0, 1), result.err
    doc = json.loads(result.out)
    files = {f["file"] for f in doc["findings"]}
    assert any(f.endswith("#vInfo") for f in files) and any(f.endswith("hpc-node.yaml") for f in files)
    bad = xlsx.with_name("bad.xlsx")
    bad.write_bytes(io.BytesIO(b"PK\x03\x04garbage").getvalue())
    result = cli("check", bad)
    assert result.code == 2 and "bad.xlsx" in result.err and "Traceback" not in result.err


# --- advisor diff: two snapshots report exactly the changes made to the second -------------------


def test_diff_of_two_exports_reports_exactly_what_changed(cli, tmp_path: Path) -> None:
    import copy
    import uuid

    old = write_xlsx(tmp_path / "old.xlsx", sheets(HOSTS, VMS))
    changed = copy.deepcopy(VMS)
    changed[0].nics = ["Vmxnet3"]  # sql01: NET001 fixed
    changed[1].cpus = 4  # web01: reshaped and renamed, same UUID
    changed[1].uuid, changed[1].name = str(uuid.uuid5(uuid.NAMESPACE_DNS, "web01")), "web01-renamed"
    changed.append(GenVM("new01", "esx03", cpus=8, memory_mb=8192, nics=["E1000"]))  # added, NET001 new
    del changed[4]  # app02 removed
    new = write_xlsx(tmp_path / "new.xlsx", sheets(HOSTS, changed))
    doc = json.loads(cli("diff", old, new, "--format", "json").out)
    assert doc["schema"] == "advisor/diff/v1" and doc["matched_by"] == "VM UUID"
    assert [vm["name"] for vm in doc["vms"]["added"]] == ["new01"]
    assert [vm["name"] for vm in doc["vms"]["removed"]] == ["app02"]
    assert doc["vms"]["reshaped"] == [{"name": "web01-renamed",
                                       "changes": {"vcpus": [2, 4], "name": ["web01", "web01-renamed"]}}]
    assert [(f["rule"], f["subject"]) for f in doc["findings"]["new"]] == [("NET001", "vm new01")]
    assert [(f["rule"], f["subject"]) for f in doc["findings"]["fixed"]] == [("NET001", "vm sql01")]
    assert doc["findings"]["with_removed_vms"] >= 1
    assert cli("diff", old, new, "--fail-on", "new").code == 1
    assert cli("diff", old, old, "--fail-on", "new").code == 0
    same = json.loads(cli("diff", old, old, "--format", "json").out)
    assert same["vms"] == {"added": [], "removed": [], "reshaped": []} and same["findings"]["new"] == []


def test_diff_in_every_format_read_back_with_its_reader(cli, tmp_path: Path) -> None:
    import csv as stdcsv
    import xml.etree.ElementTree as ET

    import jsonschema
    from openpyxl import load_workbook

    from advisor.vocab import DIFF_FORMATS, FORMATS

    evil = "=new\x1b[2J01"  # a formula to a spreadsheet, a screen clear to a terminal
    # CSV folders: a workbook cannot hold the escape character
    old = write_csv_folder(tmp_path / "old", sheets(HOSTS, VMS))
    new = write_csv_folder(tmp_path / "new", sheets(HOSTS, [*VMS, GenVM(evil, "esx03", cpus=8, memory_mb=8192,
                                                                        nics=["E1000"])]))
    assert set(FORMATS) - set(DIFF_FORMATS) == {"svg"}
    out = {fmt: cli("diff", old, new, "--format", fmt, "-o", tmp_path / f"d.{fmt}") for fmt in DIFF_FORMATS}
    assert {fmt: r.code for fmt, r in out.items()} == dict.fromkeys(DIFF_FORMATS, 0)
    read = {fmt: (tmp_path / f"d.{fmt}").read_bytes() for fmt in DIFF_FORMATS}
    # (the workbook is compressed: any byte may occur; its cells are read below)
    assert all(b"\x1b" not in data for fmt, data in read.items() if fmt != "xlsx"), "shown, never written"
    assert json.loads(read["json"])["findings"]["new"][0]["rule"] == "NET001"
    sarif = json.loads(read["sarif"])
    schema = json.loads((Path(__file__).resolve().parents[1] / "schemas" / "sarif-schema-2.1.0.json").read_text())
    jsonschema.validate(sarif, schema)
    assert [(r["ruleId"], r["baselineState"]) for r in sarif["runs"][0]["results"]] == [("NET001", "new")]
    suite = ET.fromstring(read["junit"]).find("testsuite")
    assert suite is not None and suite.get("failures") == "1" and len(suite) == 1
    github = read["github"].decode().splitlines()
    assert github[0].startswith("::warning file=") and "title=NET001 (new)" in github[0]
    assert github[-1].startswith("advisor diff: 1 added, 0 removed, 0 reshaped; findings: 1 new, 0 fixed, ")
    rows = list(stdcsv.DictReader(io.StringIO(read["csv"].decode())))
    assert [(r["change"], r["rule"]) for r in rows] == [("added", ""), ("new", "NET001")]
    assert rows[0]["subject"].startswith("'=new") or rows[0]["subject"].startswith("vm =new")
    book = load_workbook(tmp_path / "d.xlsx")["changes"]
    assert [c.value for c in book[1]] == ["change", "subject", "rule", "severity", "detail", "file", "line"]
    assert all(c.data_type != "f" for row in book.iter_rows() for c in row)
    assert book["B2"].value == "vm =new\\x1b[2J01"
    for fmt in ("table", "markdown", "html", "text"):
        assert "NET001" in read[fmt].decode() and "\\x1b" in read[fmt].decode(), fmt
    assert cli("diff", old, new, "--format", "svg").code == 2  # click refuses the choice
    assert cli("diff", old, new, "--fail-on", "new", "--format", "sarif").code == 1


def test_diff_between_an_export_and_its_spec_folder_matches_by_name(cli, tmp_path: Path) -> None:
    import yaml

    xlsx = write_xlsx(tmp_path / "export.xlsx", sheets(HOSTS, VMS))
    folder = tmp_path / "specs"
    folder.mkdir()
    for i, spec in enumerate(build(read_export(str(xlsx))).specs):
        (folder / f"h{i}.yaml").write_text(yaml.safe_dump(spec.doc, sort_keys=False))
    doc = json.loads(cli("diff", xlsx, folder, "--format", "json").out)
    assert doc["matched_by"] == "host and VM name"
    assert doc["vms"] == {"added": [], "removed": [], "reshaped": []}
    assert doc["findings"]["new"] == [] and doc["findings"]["fixed"] == []


def test_cluster_peers_come_from_vhost_so_lim012_runs(tmp_path: Path) -> None:
    hosts = [GenHost(f"big{i}", cores=28, esx="VMware ESXi 8.0.2 build-22380479") for i in (1, 2)]
    hosts.append(GenHost("small1", cores=12, esx="VMware ESXi 8.0.2 build-22380479"))
    hosts.append(GenHost("elsewhere", cores=4, esx="VMware ESXi 8.0.2 build-22380479", cluster="other"))
    vms = [GenVM("wide", "big1", cpus=48, memory_mb=262144, hw="vmx-19")]
    xlsx = write_xlsx(tmp_path / "cluster.xlsx", sheets(hosts, vms))
    spec = build(read_export(str(xlsx))).specs[0]
    assert sorted((p["host"]["name"], p["count"]) for p in spec.doc["cluster"]) == [("big2", 1), ("small1", 1)]
    assert [f.rule for f in _check(xlsx).findings] == ["LIM012"]


def test_one_row_per_vm_as_table_and_csv(cli, xlsx: Path) -> None:
    import csv as stdcsv

    table = cli("check", xlsx, "--format", "table").out.splitlines()
    assert table[0].split()[:4] == ["VM", "HOST", "CLUSTER", "vCPU"] and table[-1] == "4 VM(s)"
    rows = list(stdcsv.DictReader(io.StringIO(cli("check", xlsx, "--format", "csv").out)))
    assert [r["vm"] for r in rows] == ["sql01", "web01", "app02", "db03"]
    sql = rows[0]
    assert (sql["host"], sql["vcpus"], sql["verdict"]) == ("esx01", "24", "warning")
    assert "one NUMA node per socket assumed" in sql["assumptions"]


def test_csv_cells_never_become_spreadsheet_formulas(cli, tmp_path: Path) -> None:
    import csv as stdcsv

    vms = [GenVM("=HYPERLINK(\"http://x\")", "esx01", cpus=2, memory_mb=2048), GenVM("@SUM(A1)", "esx01", cpus=2,
                                                                                  memory_mb=2048)]
    # the CSV form: a workbook would store a cell starting with = as a formula (read as its cached value)
    folder = write_csv_folder(tmp_path / "evil", sheets(HOSTS[:1], vms))
    rows = list(stdcsv.reader(io.StringIO(cli("check", folder, "--format", "csv").out)))
    assert all(not cell.startswith(("=", "+", "-", "@")) for row in rows[1:] for cell in row)
    assert {rows[1][0], rows[2][0]} == {"'=HYPERLINK(\"http://x\")", "'@SUM(A1)"}


def test_workloads_come_from_the_configuration_never_guessed(cli, tmp_path: Path, monkeypatch) -> None:
    write_xlsx(tmp_path / "export.xlsx", sheets(HOSTS, VMS, custom=("Owner",)))
    monkeypatch.chdir(tmp_path)
    before = json.loads(cli("check", "export.xlsx", "--format", "json").out)
    assert not [n for n in before["notes"] if "workload" in n]  # without rules every VM stays generic
    (tmp_path / ".advisor.yaml").write_text(
        "workloads:\n"
        "  - {workload: sql-server, vms: ['sql*']}\n"
        "  - {workload: java, attributes: {Owner: 'Owner-*'}, guest_os: ['*']}\n")
    after = json.loads(cli("check", "export.xlsx", "--format", "json").out)
    notes = [n for n in after["notes"] if "workload" in n]
    assert notes == ["workloads from the configuration: java 3 VM(s) (rule 2), sql-server 1 VM(s) (rule 1), "
                     "1 VM(s) matched rules 1, 2: rule 1's workload taken"]  # sql01: both rules match it
    assert {f["rule"] for f in after["findings"]} - {f["rule"] for f in before["findings"]}, "workload rules ran"
    (tmp_path / ".advisor.yaml").write_text("workloads:\n  - {workload: not-a-workload, vms: ['*']}\n")
    bad = cli("check", "export.xlsx")
    assert bad.code == 2 and ".advisor.yaml" in bad.err and "Traceback" not in bad.err


def _read_back(path: Path) -> tuple[list[list[object]], list[list[object]]]:
    """The report's two sheets as a real xlsx reader (openpyxl) sees them: values and quote prefixes."""
    from openpyxl import load_workbook

    book = load_workbook(path)
    vms = book["VMs"]
    values = [[c.value for c in row] for row in vms.iter_rows()]
    quoted = [[c.quotePrefix for c in row] for row in vms.iter_rows()]
    assert all(c.data_type != "f" for row in vms.iter_rows() for c in row), "no cell is a formula"
    return values, quoted


def test_one_row_per_vm_as_xlsx_read_back(cli, xlsx: Path, tmp_path: Path) -> None:
    import csv as stdcsv

    out = tmp_path / "report.xlsx"
    result = cli("check", xlsx, "-o", out)  # the suffix picks the format
    assert result.code == 1 and out.read_bytes()[:4] == b"PK\x03\x04"
    values, _ = _read_back(out)
    rows = list(stdcsv.DictReader(io.StringIO(cli("check", xlsx, "--format", "csv").out)))
    assert values[0][:3] == ["VM", "host", "cluster"] and len(values) == len(rows) + 1 == 5
    for got, want in zip(values[1:], rows, strict=True):  # the same cells as the CSV, numbers as numbers
        assert [("" if v is None else str(v)) for v in got] == list(want.values())
    assert values[1][2] == "prod" and isinstance(values[1][3], int)
    from python_calamine import CalamineWorkbook

    notes = CalamineWorkbook.from_path(str(out)).get_sheet_by_name("notes").to_python()
    assert any("one NUMA node per socket assumed" in str(n[0]) for n in notes[1:])
    assert cli("check", xlsx, "-o", out).out == ""  # nothing on standard output
    again = tmp_path / "again.xlsx"
    cli("check", xlsx, "-o", again)
    assert again.read_bytes() == out.read_bytes(), "the same run gives the same bytes"


def test_xlsx_cells_never_become_formulas_and_names_are_escaped(cli, tmp_path: Path) -> None:
    names = ["=HYPERLINK(\"http://x\")", "@SUM(A1)", "+1", "-2", "red\x1b[31mvm"]
    vms = [GenVM(n, "esx01", cpus=2, memory_mb=2048) for n in names]
    folder = write_csv_folder(tmp_path / "evil", sheets(HOSTS[:1], vms))
    out = tmp_path / "evil.xlsx"
    assert cli("check", folder, "--format", "xlsx", "-o", out).code in (0, 1)
    values, quoted = _read_back(out)
    shown = {row[0]: q[0] for row, q in zip(values[1:], quoted[1:], strict=True)}
    # the text kept as written, stored as text with Excel's quote prefix; the escape character shown
    assert shown == {"=HYPERLINK(\"http://x\")": True, "@SUM(A1)": True, "+1": True, "-2": True,
                     "red\\x1b[31mvm": False}
    with zipfile.ZipFile(out) as archive:
        sheet = archive.read("xl/worksheets/sheet1.xml").decode()
    assert "<f>" not in sheet and "\x1b" not in sheet


def test_xlsx_is_never_written_to_a_terminal(tmp_path: Path, xlsx: Path) -> None:
    import os
    import pty
    import subprocess
    import sys

    parent, child = pty.openpty()
    result = subprocess.run([sys.executable, "-m", "advisor", "check", str(xlsx), "--format", "xlsx"],
                            stdout=child, stderr=subprocess.PIPE, text=True, check=False)
    os.close(child)
    os.close(parent)
    assert result.returncode == 2 and "give --output FILE.xlsx" in result.stderr and "Traceback" not in result.stderr


def test_memory_tiering_from_vhost_and_active_memory_from_vinfo(tmp_path: Path) -> None:
    esx9 = "VMware ESXi 9.0.0 build-24755229"
    hosts = [GenHost("tiered", esx=esx9, memory_mb=524288, tiering="softwareTiering"),
             GenHost("dram", esx=esx9, memory_mb=524288, tiering="noTiering", cluster="other"),
             GenHost("pmem", esx=esx9, memory_mb=524288, tiering="hardwareTiering", cluster="third")]
    vms = [GenVM("trade", "tiered", cpus=8, memory_mb=32768, latency="high", cpu_reservation=17600,
                 memory_locked=True),
           GenVM("db", "tiered", cpus=16, memory_mb=409600, active_mb=307200, hw="vmx-21"),
           GenVM("db-dram", "dram", cpus=16, memory_mb=409600, active_mb=307200, hw="vmx-21"),
           GenVM("db-pmem", "pmem", cpus=16, memory_mb=409600, active_mb=307200, hw="vmx-21")]
    export = build(read_export(str(write_csv_folder(tmp_path / "t", sheets(hosts, vms)))))
    by_host = {s.doc["host"]["name"]: s for s in export.specs}
    assert by_host["tiered"].doc["host"]["memory_tiering"] is True
    assert "memory_tiering" not in by_host["dram"].doc["host"] and "memory_tiering" not in by_host["pmem"].doc["host"]
    assert any("not modelled" in n for n in by_host["pmem"].assumptions)
    assert by_host["tiered"].doc["vms"][1]["active_memory"] == "300GB"
    assert any(n.startswith("NVMe memory tiering on: '# Memory' taken as the DRAM") for n in export.notes)
    found = {(f.rule, f.vm) for f in _check(tmp_path / "t").findings if f.rule.startswith("MEM00")}
    assert {("MEM005", "trade"), ("MEM006", "db")} <= found  # a tiered host's facts, from the export alone
    assert not {vm for rule, vm in found if rule in ("MEM005", "MEM006") and vm in ("db-dram", "db-pmem")}


def test_a_sheet_read_by_column_gives_each_cells_value() -> None:
    """advisor.rvtools.columns turns a column into values in one comprehension, with shortcuts for
    text and float cells: each value is what text(), number() and flag() make of that cell alone,
    a short CSV row and a missing column read as empty, and a long cell is cut."""
    from advisor.rvtools.columns import Sheet, flag, number, text
    from advisor.rvtools.workbook import MAX_CELL, Table

    cells = [4.0, 4.5, 1e16, -1.0, float("inf"), 3, True, False, None, "", " 1,024 ", "  two  words ", "True",
             "x" * (MAX_CELL + 50), "nan", 0.1 + 0.2]
    table = Table("vCPU", "export.xlsx", ["VM", "Cores p/s"], [["vm", c] for c in cells] + [["short"]])
    sheet = Sheet(table)
    column = [c[:MAX_CELL].strip() if isinstance(c, str) else c for c in cells] + [None]
    assert sheet.texts("Cores p/s") == [text(c) for c in column]
    numbers = sheet.numbers("Cores p/s")
    assert [repr(n) for n in numbers] == [repr(number(c)) for c in column]  # repr: nan equals itself
    assert sheet.flags("Cores p/s") == [flag(c) for c in column]
    assert len(sheet.texts("Cores p/s")[13]) == MAX_CELL
    assert sheet.texts("Missing") == [""] * len(table.rows) and not sheet.has("Missing")
    assert sheet.numbers("Sockets", "Cores p/s") is sheet.numbers("Sockets", "Cores p/s")  # one pass per column
    assert Sheet(None).texts("VM") == [] and Sheet(None).rows() == []


def test_sheets_not_mapped_are_looked_for_but_not_parsed(tmp_path: Path, monkeypatch) -> None:
    """vDisk (a row per disk) is not mapped, so it is not parsed: a vDisk over the row cap, or a vDisk
    CSV file of binary data, costs nothing and refuses nothing, and is not called missing."""
    monkeypatch.setattr(workbook, "MAX_ROWS", 50)
    data = sheets(HOSTS[:1], [GenVM("vm", "esx01", cpus=2, memory_mb=2048)])
    data["vDisk"] = [["VM", "Disk", "Capacity MiB"]] + [["vm", f"Hard disk {i}", 1024] for i in range(60)]
    export = read_export(str(write_xlsx(tmp_path / "disks.xlsx", data)))
    assert "vDisk" not in export.tables and "vDisk" not in export.missing and "vInfo" in export.tables
    folder = write_csv_folder(tmp_path / "csv", data)
    (folder / "RVTools_tabvDisk.csv").write_bytes(b"VM,Disk\x00\n")
    export = read_export(str(folder))
    assert "vDisk" not in export.tables and "vDisk" not in export.missing and len(build(export).specs) == 1
    del data["vDisk"]
    assert "vDisk" in read_export(str(write_xlsx(tmp_path / "none.xlsx", data))).missing
