"""Hostile names through every report format, end to end (`advisor check` / `advisor lint`).

The VM is named with an ANSI colour escape, an OSC title sequence (ESC ] ... BEL), a line break
followed by a forged GitHub `::error::` command, and the XML / Markdown / percent specials
`<`, `&`, `"`, `]]>`, `|`, `%`, `,`, `:`. The spec file's own name carries `,`, `:` and `%`, which
GitHub annotation properties must escape. A second spec is broken with a value of the same kind,
so the input-error path is rendered too.

What each format must do:
* text: no raw control characters but \\n and \\t, and no line a CI runner would take for a
  workflow command (GitHub Actions runs any line that starts with `::` after leading spaces);
* json / sarif: valid JSON in which the name round-trips exactly;
* junit: valid XML in which the name round-trips, with the control characters XML 1.0 cannot
  hold shown as \\xNN text;
* github: one `::command::` per line, data escaped (%25 %0D %0A), properties escaped too
  (%3A %2C), and unescaping gives the text back;
* markdown: every table row has exactly the header's columns (pipes escaped), no raw HTML.
"""

from __future__ import annotations

import io
import json
import os
import re
import xml.etree.ElementTree as ET
from html.parser import HTMLParser
from pathlib import Path
from urllib.parse import unquote, urlsplit

import pytest
import yaml
from conftest import CliResult
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from advisor.output.describe import visible
from advisor.vmx.document import escape as vmx_escape

NAME = 'evil\x1b[31mred\x1b]0;title\x07\n::error file=x,line=1::forged <b>&amp;"q"]]> | pipe %25 ,:'
BAD_VALUE = '\x1b[31m7.0\n::error::forged-too'
HOST = "host: {name: lab, sockets: 2, cores_per_socket: 10, threads_per_core: 2, memory: 256GB, esxi: '7.0'}\n"
SPEC_NAME = "spec,a:b%.yaml"
FORMATS = ("text", "json", "sarif", "junit", "github", "markdown")
_CONTROL = re.compile(r"[\x00-\x08\x0b-\x1f\x7f-\x9f]")
_ANSI = re.compile(r"\x1b\[[0-9;]*m")


def _check(tmp: Path, cli, fmt: str, *extra: str) -> CliResult:
    spec = tmp / SPEC_NAME
    spec.write_text(HOST + "vms:\n  - name: " + json.dumps(NAME) + "\n    vcpus: 4\n    memory: 8GB\n"
                    "    workload: sql-server\n    nics: [{adapter: e1000}]\n"
                    "    guest: {large_pages: false}\n", encoding="utf-8")  # MEM002 names the VM
    bad = tmp / "bad.yaml"
    bad.write_text("vsphere: " + json.dumps(BAD_VALUE) + "\n" + HOST + "vms: [{name: a, vcpus: 4, memory: 8GB}]\n")
    report = cli("check", "--fail-on", "never", "--format", fmt, *extra, spec, bad)
    report.spec, report.bad = spec, bad
    return report


def _lint(tmp: Path, cli, fmt: str) -> CliResult:
    vmx = tmp / "vm,x:y%.vmx"
    vmx.write_bytes(('.encoding = "UTF-8"\nconfig.version = "8"\ndisplayName = "' + vmx_escape(NAME) + '"\n'
                     'numvcpus = "4"\nmemsize = "8192"\nethernet0.present = "TRUE"\n'
                     'ethernet0.virtualDev = "e1000"\n').encode())
    report = cli("lint", "--fail-on", "never", "--format", fmt, vmx)
    report.spec = vmx
    return report


SOURCES = {"check": _check, "lint": _lint}


def _no_forged_command_lines(text: str) -> None:
    for line in text.splitlines():
        assert not _ANSI.sub("", line).lstrip().startswith("::"), line


def _common(report: CliResult, fmt: str, source: str) -> None:
    assert report.code == (2 if source == "check" else 0), report.err  # check has a broken spec beside
    assert "Traceback" not in report.out + report.err
    assert not _CONTROL.search(report.out + report.err), repr(report.out)
    if fmt != "github":
        _no_forged_command_lines(report.out)
    _no_forged_command_lines(report.err)
    if source == "check":
        assert report.err.count("\n") == 1 and str(report.bad) in report.err


@pytest.mark.parametrize("source", sorted(SOURCES))
def test_text(tmp_path: Path, cli, source: str) -> None:
    report = SOURCES[source](tmp_path, cli, "text")
    _common(report, "text", source)
    assert "evil\\x1b[31mred\\x1b]0;title\\x07" in report.out  # the escapes are shown, not obeyed
    assert "<b>&amp;\"q\"]]> | pipe %25 ,:" in report.out  # text needs no other escaping


def test_text_with_color_keeps_user_escapes_visible(tmp_path: Path, cli) -> None:
    report = _check(tmp_path, cli, "text", "--color")
    assert "\x1b[" in report.out  # advisor's own colours
    assert "\x1b]" not in report.out and "\x07" not in report.out  # the name's OSC sequence is not
    assert "\\x1b[31mred" in report.out and "\x1b[31mred" not in report.out
    _no_forged_command_lines(report.out)


def test_text_never_starts_a_line_with_a_command_even_when_wrapped(tmp_path: Path, cli) -> None:
    """However a long name wraps at 100 columns, no line may begin with `::`."""
    for pad in range(0, 100, 7):
        name = "x" * pad + " ::error::wrapped"
        spec = tmp_path / f"pad{pad}.yaml"
        spec.write_text(HOST + f"vms:\n  - {{name: {json.dumps(name)}, vcpus: 4, memory: 8GB, workload: sql-server}}\n")
        report = cli("check", "--fail-on", "never", spec)
        assert report.code == 0, report.err
        assert "::error::wrapped" in report.out.replace("\\x3a:", "::").replace("\n", "")
        _no_forged_command_lines(report.out)


@pytest.mark.parametrize("source", sorted(SOURCES))
def test_json(tmp_path: Path, cli, source: str) -> None:
    report = SOURCES[source](tmp_path, cli, "json")
    _common(report, "json", source)
    doc = json.loads(report.out)
    assert [vm["name"] for vm in doc["vms"]] == [NAME]
    assert doc["findings"] and all(f["vm"] == NAME for f in doc["findings"] if f["vm"])
    assert report.out.isascii()
    assert str(report.spec) in doc["files"]
    if source == "check":
        assert any(NAME in f["message"] for f in doc["findings"])  # MEM002 names the VM
        assert [e["file"] for e in doc["errors"]] == [str(report.bad)]
        assert BAD_VALUE in doc["errors"][0]["message"]


@pytest.mark.parametrize("source", sorted(SOURCES))
def test_sarif(tmp_path: Path, cli, source: str) -> None:
    report = SOURCES[source](tmp_path, cli, "sarif")
    _common(report, "sarif", source)
    run = json.loads(report.out)["runs"][0]
    assert run["results"] and {r["properties"]["subject"] for r in run["results"]} >= {f"vm {NAME}"}
    if source == "check":
        # Message text is shown to a reader (code scanning's page): controls shown, not obeyed; the
        # subject in the properties is data and round-trips.
        assert any(visible(NAME) in r["message"]["text"] for r in run["results"])
        notes = run["invocations"][0]["toolExecutionNotifications"]
        assert any(visible(BAD_VALUE) in n["message"]["text"] for n in notes)
    uris = [a["location"]["uri"] for a in run["artifacts"]]
    assert str(report.spec) in [unquote(urlsplit(u).path) for u in uris]  # `,` `:` `%` percent-encoded
    assert all(re.fullmatch(r"[A-Za-z0-9/._~%:-]+", u) for u in uris), uris


@pytest.mark.parametrize("source", sorted(SOURCES))
def test_junit(tmp_path: Path, cli, source: str) -> None:
    report = SOURCES[source](tmp_path, cli, "junit")
    _common(report, "junit", source)
    root = ET.fromstring(report.out)  # would raise on a raw ESC or BEL: XML 1.0 cannot hold them
    names = {case.get("name") for case in root.iter("testcase")}
    # What XML can carry round-trips exactly (the line break, <, &, ", ]]>); ESC and BEL are \xNN.
    assert f"vm {visible(NAME)}" in names
    assert f"vm {visible(NAME)}" == "vm " + NAME.replace("\x1b", "\\x1b").replace("\x07", "\\x07")
    suites = {suite.get("name") for suite in root.iter("testsuite")}
    assert str(report.spec) in suites
    if source == "check":
        errors = list(root.iter("error"))
        assert len(errors) == 1 and visible(BAD_VALUE) in errors[0].get("message")  # an attribute: &#10;
        assert "7.0 ::error::forged-too" in errors[0].text  # element text: one line, no forged line


def _unescape_data(text: str) -> str:
    return text.replace("%0D", "\r").replace("%0A", "\n").replace("%25", "%")


def _unescape_property(text: str) -> str:
    return text.replace("%3A", ":").replace("%2C", ",").replace("%0D", "\r").replace("%0A", "\n").replace("%25", "%")


def _parse_command(line: str) -> tuple[str, dict[str, str], str]:
    """A workflow command the way the GitHub runner splits it: up to the second `::` is the
    command and its properties (split on `,`, then the first `=`), the rest is the data."""
    assert line.startswith("::"), line
    end = line.index("::", 2)
    head, data = line[2:end], line[end + 2:]
    name, _, props = head.partition(" ")
    properties = dict(p.split("=", 1) for p in props.split(",")) if props else {}
    return name, {k: _unescape_property(v) for k, v in properties.items()}, _unescape_data(data)


@pytest.mark.parametrize("source", sorted(SOURCES))
def test_github(tmp_path: Path, cli, source: str) -> None:
    report = SOURCES[source](tmp_path, cli, "github")
    _common(report, "github", source)
    # Findings and input errors are commands; the run's summary is at most three plain lines of
    # advisor's own words, which start with "advisor: ", never with "::".
    summary = [line for line in report.out.splitlines() if line.startswith("advisor: ")]
    assert 1 <= len(summary) <= 3
    lines = [line for line in report.out.splitlines() if line not in summary]
    assert lines and all(re.match(r"::(error|warning|notice)[ :]", line) for line in lines), report.out
    commands = [_parse_command(line) for line in lines]
    files = {props.get("file") for _, props, _ in commands}
    assert str(report.spec) in files  # `,` `:` `%` of the file name survive the property escaping
    assert f"file={str(report.spec).replace('%', '%25').replace(':', '%3A').replace(',', '%2C')}" in report.out
    if source == "check":
        shown = visible(NAME, keep="\r\n")
        assert any(shown in data for _, _, data in commands)  # MEM002 names the VM: round-trips
        assert "%0A::error file=x,line=1::forged" in report.out and "%2525" in report.out
        errors = [(props, data) for name, props, data in commands if name == "error"]
        assert [props["file"] for props, _ in errors] == [str(report.bad)]
        assert visible(BAD_VALUE, keep="\r\n") in errors[0][1]


@pytest.mark.parametrize("source", sorted(SOURCES))
def test_markdown(tmp_path: Path, cli, source: str) -> None:
    report = SOURCES[source](tmp_path, cli, "markdown")
    _common(report, "markdown", source)
    text = report.out
    body = re.sub(r"```.*?```", "", text, flags=re.S)  # fenced blocks are literal by definition
    assert "<b>" not in body and "\\<b\\>" in body  # no raw HTML from the name
    assert "&amp;amp;" in body  # the name's own "&amp;" is shown, not decoded
    tables = re.findall(r"(?:^\|.*\n)+", text, flags=re.M)
    assert tables
    for table in tables:
        rows = table.splitlines()
        columns = {len(re.findall(r"(?<!\\)\|", re.sub(r"\\\\", "", row))) for row in rows}
        assert len(columns) == 1, table
    vm_rows = [row for row in text.splitlines() if row.startswith("| ") and "evil" in row]
    assert vm_rows and all("\\| pipe" in row and "<br>::error" in row for row in vm_rows)


@pytest.mark.parametrize("color", [False, True])
def test_a_report_block_without_escapes_is_written_as_is_and_one_with_them_as_before(monkeypatch, capsys, color):
    """Blocks with no escape character skip click's stripping (nothing to strip); a block with
    one is still stripped unless colour was asked for."""
    from types import SimpleNamespace

    import click.utils

    import advisor.output
    from advisor.commands.common import emit
    from advisor.report.findings import Run

    plain, coloured = "x" * (1 << 20) + "\n", "\x1b[31mred\x1b[0m\n"  # one block each
    monkeypatch.setattr(advisor.output, "render_pieces", lambda *args, **kwargs: iter([plain, coloured]))
    searched = []
    strip = click.utils.strip_ansi
    monkeypatch.setattr(click.utils, "strip_ansi", lambda text: searched.append(text) or strip(text))
    s = SimpleNamespace(pairs=[("json", None)], color=color, quiet=False, fail_on="error", scopes=None,
                        display=advisor.output.Display())
    assert emit(Run(), s) == 0
    assert capsys.readouterr().out == plain + (coloured if color else "red\n")
    assert searched == ([] if color else [coloured])


# --- The property test of issue 39: generated hostile names through every report format -------

_PIECES = ("\x00", "\x07", "\x08", "\t", "\x0b", "\x1b[31m", "\x1b]0;title\x07", "\x1b]8;;http://e\x1b\\", "\x1bP",
           "\x7f", "\x85", "\x9b31m", "\u061c", "\u200e", "\u2028", "\u202e", "\u2066", "\u2069", "\ufffe", "\uffff",
           "\r", "\n", "\r\n", "::error::forged", "::warning file=a,line=1::x", "  ::notice::", "@user", "@org/team",
           "{{ 7*7 }}", "{% if x %}", "${var.x}", "<b>", "</svg>", "&amp;", "&#27;", "]]>", "<!--", "|", "%", "%0A",
           ",", ":", "=", "`", "```", "[l](http://e)", "<http://e>", "www.e.com", "https://e/x", "a@b.com", "#1", "'",
           '"', "\\", "*_~", "é", "名", "\u00a0", "-->", "x" * 40)
# File names hold anything but `/` and NUL; an undecodable byte (\udce9: the byte 0xE9, `café`
# in Latin-1) arrives from the file system as a surrogate escape.
_FILE_PIECES = (*(p.replace("\x00", "") for p in _PIECES if "/" not in p and p.replace("\x00", "")), "\udce9")
_OUTPUTS = {"text": "t.txt", "json": "r.json", "sarif": "r.sarif", "junit": "r.xml", "github": "r.gh",
            "markdown": "r.md", "html": "r.html", "svg": "r.svg", "table": "r.table", "csv": "r.csv"}
_RAW = re.compile("[\x00-\x09\x0b-\x1f\x7f-\x9f\u061c\u200e\u200f\u2028-\u202e\u2066-\u2069\ud800-\udfff\ufffe\uffff]")
_WORKFLOW_COMMAND = re.compile(r"::(error|warning|notice)( [a-zA-Z]+=[^,:\r\n]*(,[a-zA-Z]+=[^,:\r\n]*)*)?::[^\r\n]*")
_VOID = {"meta", "br", "hr", "img", "input", "link"}


def _hostile(pieces: tuple[str, ...], max_size: int) -> st.SearchStrategy[str]:
    return st.lists(st.sampled_from(pieces) | st.characters(codec="utf-8", exclude_characters="/"),
                    min_size=1, max_size=max_size).map("".join)


def _no_raw(text: str, fmt: str) -> None:
    found = _RAW.search(text)
    assert found is None, f"{fmt}: raw {found.group()!r} in {text[max(found.start() - 60, 0):found.end() + 20]!r}"
    for line in text.splitlines():
        assert not line.lstrip(" \t").startswith("::"), f"{fmt}: a line a CI runner would run: {line[:120]!r}"


class _Html(HTMLParser):
    """The page through Python's HTML tokenizer: every tag closed in order (void elements aside)."""

    def __init__(self) -> None:
        super().__init__(convert_charrefs=True)
        self.open: list[str] = []
        self.values: list[str] = []

    def handle_starttag(self, tag: str, attrs: list[tuple[str, str | None]]) -> None:
        self.values += [v for _, v in attrs if v]
        if tag not in _VOID:
            self.open.append(tag)

    def handle_endtag(self, tag: str) -> None:
        assert self.open and self.open.pop() == tag, (tag, self.open[-3:])

    def handle_data(self, data: str) -> None:
        self.values.append(data)


def _check_reports(folder: Path, names: list[str], files: list[str], sarif_schema: dict) -> None:
    import defusedxml.ElementTree as DET
    import jsonschema

    texts = {fmt: (folder / name).read_bytes().decode("utf-8") for fmt, name in _OUTPUTS.items()}
    for fmt, text in texts.items():
        if fmt != "github":
            _no_raw(text, fmt)
    import csv

    cells = [cell for row in csv.reader(io.StringIO(texts["csv"])) for cell in row]
    assert sum(1 for cell in cells if cell.startswith(("=", "+", "-", "@", "::"))) == 0  # no formula, no command
    doc = json.loads(texts["json"])
    assert texts["json"].isascii()
    assert sorted(vm["name"] for vm in doc["vms"]) == sorted(names)  # the data round-trips exactly
    assert set(doc["files"]) >= set(files)
    sarif = json.loads(texts["sarif"])
    jsonschema.validate(sarif, sarif_schema)
    for result in sarif["runs"][0]["results"]:
        assert _RAW.search(result["message"]["text"]) is None
    for fmt in ("junit", "svg"):
        root = DET.fromstring(texts[fmt])
        for element in root.iter():
            for value in [element.text or "", element.tail or "", *element.attrib.values()]:
                assert _RAW.search(value) is None, (fmt, value)
    page = _Html()
    page.feed(texts["html"])
    page.close()
    assert page.open == []
    for value in page.values:
        assert _RAW.search(value) is None, value
    for picture in re.findall(r"<svg .*?</svg>", texts["html"], flags=re.S):
        DET.fromstring(picture)
    for line in texts["github"].splitlines():  # the runner's view: a command of ours, or a plain summary line
        assert _WORKFLOW_COMMAND.fullmatch(line) or line.startswith("advisor: "), line
        assert _RAW.search(line) is None, line
    markdown_text = re.sub(r"`{3,}.*?`{3,}", "", texts["markdown"], flags=re.S)
    assert re.search(r"@[A-Za-z0-9]", markdown_text) is None  # no mention GitHub would notify
    assert re.search(r"[A-Za-z]://|\bwww\.", markdown_text) is None  # no bare link GitHub would make


@pytest.mark.slow
def test_generated_hostile_names_through_every_format(tmp_path: Path, cli) -> None:
    """At least 2,000 generated VM names (and a file name per run, and a broken spec's value) through
    every report format of `check` (table and csv too), `topology` text and JSON, each parsed by a real parser."""
    sarif_schema = json.loads((Path(__file__).resolve().parents[1] / "schemas" / "sarif-schema-2.1.0.json").read_text())
    seen: list[str] = []
    runs = [0]

    @settings(max_examples=60, derandomize=True, database=None, deadline=None,
              suppress_health_check=list(HealthCheck))
    @given(st.lists(_hostile(_PIECES, 12), min_size=40, max_size=40, unique_by=str.strip),
           _hostile(_FILE_PIECES, 6), _hostile(_PIECES, 6))
    def run(names: list[str], file_name: str, bad_value: str) -> None:
        runs[0] += 1
        folder = tmp_path / f"run{runs[0]}"
        folder.mkdir()
        kept = [n for n in names if n.strip() and len(n) <= 200]
        file_bytes = os.fsencode(file_name)[:200] + b".yaml"
        spec_path = Path(os.fsdecode(os.path.join(os.fsencode(folder), file_bytes)))
        spec_path.write_text(HOST + yaml.safe_dump({"vms": [{"name": n, "vcpus": 24, "memory": "8GB",
                                                             "workload": "sql-server"} for n in kept]}),
                             encoding="utf-8")
        bad = folder / "bad.yaml"
        bad.write_text(yaml.safe_dump({"vsphere": bad_value}) + HOST + "vms: [{name: a, vcpus: 4, memory: 8GB}]\n")
        args: list[object] = ["check", "--fail-on", "never"]
        for fmt, out in _OUTPUTS.items():
            args += ["--format", fmt, "-o", folder / out]
        report = cli(*args, spec_path, bad)
        assert report.code == 2 and "Traceback" not in report.err, report.err
        _no_raw(report.err, "stderr")
        loaded = yaml.safe_load(spec_path.read_text(encoding="utf-8"))
        vm_names = [vm["name"] for vm in loaded["vms"]]  # as YAML reads them back (the spec's own view)
        _check_reports(folder, vm_names, [str(spec_path)], sarif_schema)
        topo = cli("topology", spec_path)
        assert topo.code == 0, topo.err
        _no_raw(topo.out, "topology text")
        topo_json = cli("topology", "--format", "json", spec_path)
        assert topo_json.code == 0, topo_json.err
        _no_raw(topo_json.out, "topology json")
        assert [vm["name"] for vm in json.loads(topo_json.out)["files"][0]["vms"]] == vm_names
        seen.extend(vm_names)

    run()
    assert len(seen) >= 2000, len(seen)
