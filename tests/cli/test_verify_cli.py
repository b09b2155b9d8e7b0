"""`advisor verify` end to end: the bundled examples, every format, exit codes, bad and hostile input."""

from __future__ import annotations

import json
import re
from html.parser import HTMLParser
from pathlib import Path

from tests.conftest import REPO

EX = REPO / "examples" / "verify"
WIDE = ["verify", EX / "memory-wide-vm", EX / "sched-stats.txt", "--host", EX / "lab-2x20.yaml"]
ONELINER = ["verify", EX / "vmdumper-lab-2x10.txt", "--host", EX / "lab-2x10.yaml"]


def test_the_examples_agree(cli) -> None:
    for args in (WIDE, ONELINER):
        result = cli(*args)
        assert result.code == 0, result.err
        assert "disagree" not in result.out.splitlines()[0]
        assert re.search(r"2 VM\(s\): 2 agree, 0 disagree", result.out)


def test_json_carries_a_schema_version_and_every_verdict(cli) -> None:
    doc = json.loads(cli(*WIDE, "--format", "json").out)
    assert doc["schema"] == "advisor/verify/v1"
    assert doc["summary"] == {"vms": 2, "agree": 2, "disagree": 0, "notes": 0}
    first = doc["verdicts"][0]
    assert first["logged"]["vnuma_nodes"] == [6, 6] and first["predicted"]["vnuma_nodes"] == [6, 6]
    assert first["vsphere_from"] == "host profile"


def test_sarif_is_valid_against_the_official_schema(cli, tmp_path: Path) -> None:
    import jsonschema

    wrong_host = tmp_path / "small.yaml"
    wrong_host.write_text("name: small\nsockets: 2\ncores_per_socket: 4\nmemory: 64GB\nesxi: '8.0'\n")
    result = cli("verify", EX / "memory-wide-vm", "--host", wrong_host, "--format", "sarif")
    doc = json.loads(result.out)
    schema = json.loads((REPO / "tests" / "schemas" / "sarif-schema-2.1.0.json").read_text())
    jsonschema.Draft4Validator(schema, format_checker=jsonschema.Draft4Validator.FORMAT_CHECKER).validate(doc)
    assert doc["runs"][0]["results"], "a 12-vCPU VM on 4-core nodes is laid out otherwise than logged"


def test_fail_on_turns_a_disagreement_into_exit_1(cli, tmp_path: Path) -> None:
    wrong_host = tmp_path / "small.yaml"
    wrong_host.write_text("name: small\nsockets: 2\ncores_per_socket: 4\nmemory: 64GB\nesxi: '8.0'\n")
    args = ["verify", EX / "memory-wide-vm", "--host", wrong_host]
    assert cli(*args).code == 0
    result = cli(*args, "--fail-on", "disagree")
    assert result.code == 1
    assert "VFY" in result.out and "disagree" in result.out
    assert cli(*WIDE, "--fail-on", "any").code == 0


def test_a_bad_file_is_one_line_and_the_others_are_still_compared(cli, tmp_path: Path) -> None:
    garbage = tmp_path / "core.log"
    garbage.write_bytes(b"\x00\x01binary")
    result = cli("verify", garbage, EX / "memory-wide-vm", "--host", EX / "lab-2x20.yaml")
    assert result.code == 2
    assert "memory-wide-vm  agree" in result.out
    assert sum("core.log" in line for line in result.out.splitlines()) == 1
    assert "Traceback" not in result.err + result.out


def test_the_host_is_required_and_named(cli) -> None:
    result = cli("verify", EX / "memory-wide-vm")
    assert result.code == 2 and "--host" in result.err
    result = cli("verify", EX / "memory-wide-vm", "--host", "no-such-profile")
    assert result.code == 2 and "--host" in result.err and "Traceback" not in result.err


def test_output_file_and_never_over_an_input(cli, tmp_path: Path) -> None:
    out = tmp_path / "report.html"
    assert cli(*WIDE, "--format", "html", "-o", out).code == 0
    assert "<table>" in out.read_text()
    copy = tmp_path / "sched.txt"
    copy.write_text((EX / "sched-stats.txt").read_text())
    result = cli("verify", copy, "--host", EX / "lab-2x20.yaml", "-o", copy)
    assert result.code == 2 and "input" in result.err
    assert copy.read_text() == (EX / "sched-stats.txt").read_text()


HOSTILE = "vm\x1b]8;;http://x\x07\u202e::error::x\r\n<script>\ufffe"


def test_names_from_a_log_reach_no_output_raw(cli, tmp_path: Path) -> None:
    lines = (EX / "memory-wide-vm" / "vmware.log").read_text().splitlines()
    lines.insert(0, 'DICT displayName = "' + HOSTILE.replace("\r\n", " ") + '"')
    log = tmp_path / "vmware.log"
    log.write_text("\n".join(lines) + "\n")
    text = cli("verify", log, "--host", EX / "lab-2x20.yaml").out
    assert "\x1b" not in text and "\u202e" not in text and "\x07" not in text
    assert not any(line.startswith("::") for line in text.splitlines())
    page = cli("verify", log, "--host", EX / "lab-2x20.yaml", "--format", "html").out
    assert "<script>" not in page and "\x1b" not in page and "\ufffe" not in page

    class Cells(HTMLParser):
        def __init__(self) -> None:
            super().__init__()
            self.cells: list[str] = []

        def handle_data(self, data: str) -> None:
            self.cells.append(data)

    parser = Cells()
    parser.feed(page)
    assert any("<script>" in c for c in parser.cells)  # shown as text, not markup
    doc = json.loads(cli("verify", log, "--host", EX / "lab-2x20.yaml", "--format", "json").out)
    assert doc["verdicts"][0]["name"].startswith("vm\x1b")  # JSON keeps the value, escaped by the encoder
