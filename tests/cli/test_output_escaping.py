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

import json
import re
import xml.etree.ElementTree as ET
from pathlib import Path
from urllib.parse import unquote, urlsplit

import pytest
from conftest import CliResult

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
        assert any(NAME in r["message"]["text"] for r in run["results"])
        notes = run["invocations"][0]["toolExecutionNotifications"]
        assert any(BAD_VALUE in n["message"]["text"] for n in notes)
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
