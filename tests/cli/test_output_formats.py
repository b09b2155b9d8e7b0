"""Every report format renders the same hand-built Run: schema-valid, escaped, counted right."""

from __future__ import annotations

import json
import os
import re
import subprocess
import sys
import xml.etree.ElementTree as ET

import pytest
from conftest import REPO

from advisor.load.hosts import load_profile
from advisor.model.spec import VM
from advisor.numa.topology import predict
from advisor.output import FORMATS, Display, render, render_binary
from advisor.report.findings import Finding, HostResult, InputProblem, Run, Suppressed, VmResult
from advisor.vocab import BINARY_FORMATS

GOLDEN_TEXT = REPO / "tests" / "golden" / "output_text.txt"
DB, WEB, BROKEN = "specs/db.yaml", "specs/web.yaml", "specs/broken.yaml"


def _rule(name: str, severity: str, summary: str, ref: str) -> dict:
    return {"name": name, "severity": severity, "summary": summary,
            "rationale": f"Why {name} matters, in a sentence or two.", "references": [ref],
            "fix_text": f"Fix {name} like this."}


def sample_run() -> Run:
    host = load_profile("hp-dl580-g7")
    sql_topology = predict(host, VM(name="sql01", vcpus=64, memory="256GB"), host.esxi).as_dict()
    web_topology = predict(host, VM(name="web", vcpus=8, memory="16GB"), host.esxi).as_dict()
    del web_topology["summary"]  # the text format must build a summary from the fields
    run = Run(files=[DB, WEB, BROKEN])
    run.hosts.append(HostResult(
        name="hp-dl580-g7", file=DB,
        summary="hp-dl580-g7: 4 × 10 cores × 2 threads, 4 NUMA nodes of 10 cores / 256GB, vSphere 5.5 U1; "
                "100 vCPUs on 40 cores (2.50:1), node load [30, 30, 20, 20]",
        capacity={"sockets": 4, "cores_per_socket": 10, "numa_nodes": 4, "vsphere": "5.5 U1"},
        recommended_host={"Power.CpuPolicy": "High Performance"}, node_load=[30, 30, 20, 20]))
    run.vms.append(VmResult("sql01", DB, "hp-dl580-g7", 1, 4, sql_topology,
                            recommended_vmx={"numvcpus": "64", "numa.vcpu.preferHT": "TRUE"}))
    run.vms.append(VmResult("web", WEB, "hp-dl580-g7", 3, 2, web_topology,
                            recommended_vmx={"numvcpus": "8", "ethernet0.virtualDev": "vmxnet3"},
                            recommended_guest={"rss": "enabled"},
                            skipped=("DISK001 needs the VM's virtual disks (vm.disks)",)))
    run.findings += [
        Finding("NUMA001", "unbalanced-vnuma-prefer-ht", "warning", "vm sql01",
                "64 vCPUs become vNUMA nodes [10×6, 4] on 10-core nodes; with numa.vcpu.preferHT they would "
                "be [16×4], which keeps every node the same size", vm="sql01", file=DB, line=6,
                evidence={"vm.vcpus": 64}, fix={"vmx": {"numa.vcpu.preferHT": "TRUE"},
                                                 "text": 'Set numa.vcpu.preferHT = "TRUE".'},
                references=["VMware KB 2003582 <https://kb.vmware.com/s/article/2003582>"]),
        Finding("HOST001", "power-policy-balanced", "error", "host hp-dl580-g7",
                "the host power policy is Balanced; latency-sensitive VMs need High Performance",
                vm=None, file=DB, line=None, fix={"host": {"Power.CpuPolicy": "High Performance"},
                                                   "text": "Set the power policy to High Performance."},
                references=["Performance Best Practices for vSphere 5.5, p. 17"]),
        Finding("MEM001", "memory-exceeds-node", "error", "vm sql01", "memory spans nodes",
                vm="sql01", file=DB, line=5, fix={"text": "Reduce memory."}, references=["KB 1"],
                suppressed=Suppressed("spec", "sized by the vendor", None, DB, 9)),
        Finding("NET001", "legacy-nic", "info", "vm web", "ethernet0 uses e1000; vmxnet3 is lighter on the CPU",
                vm="web", file=WEB, line=7,
                fix={"vmx": {"ethernet0.virtualDev": "vmxnet3", "ethernet0.oldKey": "REMOVE"},
                     "guest": {"rss": "enabled"}, "text": "Switch the adapter to vmxnet3."},
                references=["VMware KB 1001805"]),
        Finding("CPU002", "cores-per-socket", "warning", "vm web", "8 sockets × 1 core", vm="web", file=WEB, line=3,
                fix={"resize": {"cores_per_socket": 8}, "text": "Present one socket."}, references=["KB 2"],
                suppressed=Suppressed("config", "legacy licence, until the refresh", "2999-01-01", ".advisor.yaml", 4)),
    ]
    run.errors.append(InputProblem(BROKEN, 3, "vms[0].vcpus", "must be a whole number, not 'many'"))
    run.notes.append(".advisor.yaml:7: ignore NET002 for web: unused suppression (no NET002 finding for vm web)")
    run.rules = {
        "NUMA001": _rule("unbalanced-vnuma-prefer-ht", "warning", "Unequal vNUMA nodes",
                         "VMware KB 2003582 <https://kb.vmware.com/s/article/2003582>"),
        "HOST001": _rule("power-policy-balanced", "error", "Balanced power policy", "Best Practices p. 17"),
        "MEM001": _rule("memory-exceeds-node", "error", "Memory larger than a node", "KB 1"),
        "NET001": _rule("legacy-nic", "info", "Legacy network adapter", "VMware KB 1001805"),
        "CPU002": _rule("cores-per-socket", "warning", "Many single-core sockets", "KB 2"),
        "VM007": _rule("hot-add", "warning", "CPU hot-add disables vNUMA", "KB 2040375"),
    }
    run.evaluated = [
        (("NUMA001", "MEM001", "VM007"), "vm sql01", DB),
        (("HOST001",), "host hp-dl580-g7", DB),
        (("NET001", "CPU002", "VM007", "NUMA001"), "vm web", WEB),
    ]
    run.sort()
    return run


def hostile_run() -> Run:
    """User-controlled text full of markup, escapes, separators and line breaks."""
    name = "[bold]evil[/bold]\x1b[31m|x%y\nz:w,v"
    run = Run(files=["a|b%.yaml"])
    run.vms.append(VmResult(name, "a|b%.yaml", "h", 1, 1, None))
    run.findings.append(Finding("ORG001", "org-rule", "error", f"vm {name}", f"VM {name} is bad | really\r\nyes",
                                vm=name, file="a|b%.yaml", line=2, fix={"vmx": {"annotation": 'say "hi"|'},
                                                                        "text": "[red]do[/red] it"}))
    run.rules = {"ORG001": _rule("org-rule", "error", "Org rule", "policy")}
    run.evaluated = [(("ORG001",), f"vm {name}", "a|b%.yaml")]
    return run


# -- dispatch ---------------------------------------------------------------------------


def test_every_format_renders_and_unknown_format_is_refused():
    run = sample_run()
    for fmt in FORMATS:
        if fmt in BINARY_FORMATS:  # a workbook: bytes, a zip archive
            assert render_binary(fmt, run).startswith(b"PK\x03\x04")
            with pytest.raises(ValueError, match="binary"):
                render(fmt, run)
        else:
            assert render(fmt, run).endswith("\n")
    with pytest.raises(ValueError, match="unknown output format"):
        render("yaml", run)


def test_importing_the_package_loads_no_renderer():
    code = "import sys, advisor.output; print(sorted(m for m in ('rich', 'xml.etree.ElementTree') if m in sys.modules))"
    result = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, check=True)
    assert result.stdout.strip() == "[]"


# -- JSON -------------------------------------------------------------------------------


def test_json_validates_against_the_report_schema():
    import jsonschema

    schema = json.loads((REPO / "advisor" / "schemas" / "report-v1.schema.json").read_text())
    jsonschema.Draft202012Validator.check_schema(schema)
    text = render("json", sample_run())
    doc = json.loads(text)
    jsonschema.Draft202012Validator(schema).validate(doc)
    assert doc["schema"] == "advisor/v1" and doc["tool"]["name"] == "advisor"
    assert doc["summary"] == {"error": 1, "warning": 1, "info": 1, "suppressed": 2, "input_errors": 1}
    assert doc["errors"] == [{"file": BROKEN, "line": 3, "field": "vms[0].vcpus",
                              "message": "must be a whole number, not 'many'"}]
    assert [vm["name"] for vm in doc["vms"]] == ["sql01", "web"]
    assert doc["vms"][0]["topology"]["vnuma_nodes"] == [10, 10, 10, 10, 10, 10, 4]
    assert text == render("json", sample_run())  # deterministic, byte for byte
    assert text.endswith("}\n") and text.startswith('{\n  "schema"')


@pytest.mark.self_compare
def test_json_streamed_is_the_document_one_item_per_line():
    """render_pieces() writes the report item by item; read back it is document(), and each VM,
    finding and file is one line of it (empty lists included)."""
    from advisor.output import render_pieces
    from advisor.output.json import document

    for run in (sample_run(), Run()):
        pieces = list(render_pieces("json", run))
        assert json.loads("".join(pieces)) == json.loads(json.dumps(document(run), default=str))
        assert all(piece.endswith("\n") and piece.count("\n") == 1 for piece in pieces)
    assert len(pieces) == 1 + 9 + 1  # an empty run: every key on one line


def test_json_schema_rejects_a_broken_document():
    import jsonschema

    schema = json.loads((REPO / "advisor" / "schemas" / "report-v1.schema.json").read_text())
    doc = json.loads(render("json", sample_run()))
    doc["findings"][0]["severity"] = "fatal"
    with pytest.raises(jsonschema.ValidationError):
        jsonschema.validate(doc, schema)
    doc = json.loads(render("json", sample_run()))
    del doc["vms"][0]["topology"]["vnuma_nodes"]
    with pytest.raises(jsonschema.ValidationError):
        jsonschema.validate(doc, schema)


# -- SARIF ------------------------------------------------------------------------------


def _sarif(run: Run) -> dict:
    import jsonschema

    doc = json.loads(render("sarif", run))
    schema = json.loads((REPO / "tests" / "schemas" / "sarif-schema-2.1.0.json").read_text())
    jsonschema.Draft4Validator(schema, format_checker=jsonschema.Draft4Validator.FORMAT_CHECKER).validate(doc)
    return doc


def test_sarif_is_valid_against_the_official_schema():
    doc = _sarif(sample_run())
    assert doc["version"] == "2.1.0"
    (run,) = doc["runs"]
    driver = run["tool"]["driver"]
    assert driver["name"] == "advisor" and driver["informationUri"].startswith("https://")
    rules = driver["rules"]
    assert [r["id"] for r in rules] == ["NUMA001", "HOST001", "MEM001", "NET001", "CPU002", "VM007"]
    assert rules[0]["name"] == "UnbalancedVnumaPreferHt"
    assert rules[0]["helpUri"] == "https://kb.vmware.com/s/article/2003582"
    assert {r["id"]: r["defaultConfiguration"]["level"] for r in rules}["NET001"] == "note"
    for result in run["results"]:
        assert rules[result["ruleIndex"]]["id"] == result["ruleId"]
    by_rule = {r["ruleId"]: r for r in run["results"]}
    assert {k: r["level"] for k, r in by_rule.items()} == {
        "HOST001": "error", "MEM001": "error", "NUMA001": "warning", "CPU002": "warning", "NET001": "note"}
    assert "region" not in by_rule["HOST001"]["locations"][0]["physicalLocation"]
    location = by_rule["NUMA001"]["locations"][0]["physicalLocation"]
    assert location == {"artifactLocation": {"uri": DB}, "region": {"startLine": 6}}
    assert "suppressions" not in by_rule["NUMA001"]
    assert by_rule["MEM001"]["suppressions"] == [{"kind": "inSource", "status": "accepted",
                                                 "justification": "sized by the vendor"}]
    assert by_rule["CPU002"]["suppressions"][0]["kind"] == "external"


def test_sarif_reports_input_errors_as_notifications():
    run = sample_run()
    (invocation,) = _sarif(run)["runs"][0]["invocations"]
    assert invocation["executionSuccessful"] is False
    error = invocation["toolExecutionNotifications"][0]
    assert error["level"] == "error" and "whole number" in error["message"]["text"]
    assert error["locations"][0]["physicalLocation"]["region"] == {"startLine": 3}
    run.errors.clear()
    assert _sarif(run)["runs"][0]["invocations"][0]["executionSuccessful"] is True


def test_sarif_uris_of_awkward_paths():
    from advisor.output.sarif import artifact_uri

    assert artifact_uri("specs/my vm#1.yaml") == "specs/my%20vm%231.yaml"
    assert artifact_uri("specs\\db.yaml") == "specs/db.yaml"
    assert artifact_uri("/srv/specs/db.yaml") == "file:///srv/specs/db.yaml"
    assert artifact_uri("C:\\specs\\db.yaml") == "file:///C:/specs/db.yaml"


# -- JUnit ------------------------------------------------------------------------------


def test_junit_counts_and_outcomes():
    root = ET.fromstring(render("junit", sample_run()))
    assert root.tag == "testsuites"
    assert {k: root.get(k) for k in ("tests", "failures", "errors", "skipped")} == {
        "tests": "10", "failures": "2", "errors": "1", "skipped": "3"}
    suites = {s.get("name"): s for s in root.findall("testsuite")}
    assert list(suites) == [DB, WEB, BROKEN]
    assert {k: suites[DB].get(k) for k in ("tests", "failures", "errors", "skipped")} == {
        "tests": "4", "failures": "2", "errors": "0", "skipped": "1"}
    cases = {(c.get("classname"), c.get("name"), s.get("name")): c for s in root for c in s.findall("testcase")}
    numa = cases[("NUMA001", "vm sql01", DB)].find("failure")
    assert numa.get("type") == "warning" and numa.get("message").startswith("64 vCPUs become")
    assert 'fix: numa.vcpu.preferHT = "TRUE"' in numa.text
    assert cases[("HOST001", "host hp-dl580-g7", DB)].find("failure").get("type") == "error"
    assert cases[("MEM001", "vm sql01", DB)].find("skipped").get("message") == "suppressed: sized by the vendor"
    info = cases[("NET001", "vm web", WEB)]
    assert info.find("failure") is None and "vmxnet3" in info.find("system-out").text
    assert list(cases[("VM007", "vm web", WEB)]) == []  # a plain pass
    error = cases[("input", "vms[0].vcpus", BROKEN)].find("error")
    assert error.get("message") == "must be a whole number, not 'many'"
    assert "unused suppression" in suites[DB].find("system-out").text
    # A rule the known facts could not settle is skipped, with what it needs, not passed.
    assert cases[("DISK001", "vm web", WEB)].find("skipped").get("message") == \
        "not evaluated: DISK001 needs the VM's virtual disks (vm.disks)"


def test_junit_survives_control_characters_and_markup():
    text = render("junit", hostile_run())
    root = ET.fromstring(text)  # would raise on a raw ESC: XML 1.0 cannot hold it
    case = root.find("testsuite/testcase")
    assert case.get("name") == "vm [bold]evil[/bold]\\x1b[31m|x%y\nz:w,v"
    assert "\x1b" not in text


# -- GitHub -----------------------------------------------------------------------------


def test_github_lines_are_exact():
    assert render("github", sample_run()).splitlines() == [
        "::error file=specs/broken.yaml,line=3,title=advisor input error::"
        "vms[0].vcpus: must be a whole number, not 'many'",
        "::error file=specs/db.yaml,title=HOST001 power-policy-balanced::the host power policy is Balanced; "
        "latency-sensitive VMs need High Performance%0AFix: Set the power policy to High Performance.",
        "::warning file=specs/db.yaml,line=6,title=NUMA001 unbalanced-vnuma-prefer-ht::64 vCPUs become vNUMA nodes "
        "[10×6, 4] on 10-core nodes; with numa.vcpu.preferHT they would be [16×4], which keeps every node the same "
        'size%0AFix: Set numa.vcpu.preferHT = "TRUE".',
        "::notice file=specs/web.yaml,line=7,title=NET001 legacy-nic::ethernet0 uses e1000; vmxnet3 is lighter on "
        "the CPU%0AFix: Switch the adapter to vmxnet3.",
        # The summary: plain lines of advisor's own words (notes are in the step summary).
        "advisor: 1 error, 1 warning, 1 info (2 suppressed) in 3 files; 1 input error",
        "advisor: not evaluated: 1 rule for 1 VM: values they need are unknown (the JSON report lists them per VM)",
    ]


def test_github_appends_the_markdown_report_to_the_step_summary(tmp_path):
    summary = tmp_path / "summary.md"
    summary.write_text("earlier step\n")
    env = {k: v for k, v in os.environ.items() if k != "CI"}
    sample = str(REPO / "examples" / "sql-server-64vcpu.yaml")
    result = subprocess.run([sys.executable, "-m", "advisor", "check", sample, "--format", "github"],
                            capture_output=True, text=True,
                            env={**env, "GITHUB_STEP_SUMMARY": str(summary)})
    assert result.returncode == 0, result.stderr
    text = summary.read_text()
    assert text.startswith("earlier step\n## advisor report\n") and "#### Warnings (7)" in text
    assert [line for line in result.stdout.splitlines() if not line.startswith("::")] == [
        "advisor: 0 errors, 7 warnings, 1 info (0 suppressed) in 1 file",
        "advisor: not evaluated: 1 rule for 1 VM: values they need are unknown (the JSON report lists them per VM)"]


def test_github_escaping_rules():
    from advisor.output.github import command

    assert command("error", "100% done\r\nnext", file="a:b,c.yaml", line=1, title="T, with: colon") == (
        "::error file=a%3Ab%2Cc.yaml,line=1,title=T%2C with%3A colon::100%25 done%0D%0Anext")
    assert command("notice", "plain") == "::notice::plain"


# -- Markdown ---------------------------------------------------------------------------


def test_markdown_tables():
    text = render("markdown", sample_run())
    assert text.startswith("## advisor report\n")
    assert "**1 error, 1 warning, 1 info (2 suppressed) in 3 files; 1 input error**" in text
    assert "- not evaluated: 1 rule for 1 VM: values they need are unknown (the JSON report lists them per VM)" in text
    assert (
        "| sql01 | 1 | hp-dl580-g7 | specs/db.yaml | 64 vCPU → 7 vNUMA nodes \\[10×6, 4\\] over 4 physical nodes;"
        in text
    )
    # The findings by severity, the most severe first.
    assert text.index("#### Errors (1)") < text.index("#### Warnings (1)") < text.index("#### Info (1)")
    assert ("| HOST001 | specs/db.yaml | host hp-dl580-g7 | the host power policy is Balanced; "
            "latency-sensitive VMs need High Performance | host: Power.CpuPolicy = High Performance<br>"
            "Set the power policy to High Performance. |") in text
    assert "| specs/broken.yaml:3 | vms\\[0\\].vcpus | must be a whole number, not 'many' |" in text
    assert "MEM001" not in text and "CPU002" not in text  # suppressed: counted, not listed
    details = text[text.index("<details>"):text.index("</details>")]
    assert 'numa.vcpu.preferHT = "TRUE"' in details and "remove ethernet0.oldKey" in details


def test_markdown_stays_within_the_comment_limit_and_counts_the_rest():
    """GitHub refuses a comment over 65,536 characters: a run of 5,000 findings keeps the most
    severe ones that fit, counts the others, and leaves the VM table out with a line saying so."""
    from advisor.output.markdown import LIMIT

    run = Run(files=["big.yaml"])
    for i in range(5_000):
        run.vms.append(VmResult(f"vm-{i:05d}", "big.yaml", "esx", 1, i + 1, {"summary": "8 vCPU → one node " * 3}))
        run.findings.append(Finding("NET001", "nic", ("error", "warning", "info")[i % 3], f"vm vm-{i:05d}",
                                    "1 NIC(s) of type e1000 " * 4, vm=f"vm-{i:05d}", file="big.yaml", line=i + 1,
                                    fix={"vmx": {"ethernet0.virtualDev": "vmxnet3"}, "text": "Use VMXNET3."}))
    text = render("markdown", run)
    assert len(text) <= LIMIT
    shown = len(re.findall(r"^\| NET001 ", text, flags=re.M))
    errors = text[text.index("#### Errors"):]
    more = re.search(r"^(\d+) more findings: see the SARIF/JSON artifact\.$", errors, flags=re.M)
    assert more and shown + int(more.group(1)) == 1667  # every error is either a row or counted
    assert "#### Warnings" not in text or text.index("#### Warnings") > text.index(more.group(0))
    assert "Predicted topologies: see the SARIF/JSON artifact." in text


# -- text -------------------------------------------------------------------------------


def test_text_matches_the_golden_file():
    """The report as `advisor check` prints it (VM topologies shown)."""
    text = render("text", sample_run(), display=Display(topology=True))
    if os.environ.get("ADVISOR_UPDATE_GOLDEN") == "1":
        GOLDEN_TEXT.write_text(text, encoding="utf-8")
    assert text == GOLDEN_TEXT.read_text(encoding="utf-8")


def test_text_layout():
    text = render("text", sample_run(), display=Display(topology=True))
    lines = text.splitlines()
    assert "\x1b" not in text
    assert lines[0] == "specs/broken.yaml:3: vms[0].vcpus: must be a whole number, not 'many'"
    assert "specs/web.yaml:2: vm web ×3 on hp-dl580-g7: 8 vCPU → no vNUMA (guest sees 1 node) over 1 physical node" \
        in lines
    assert lines[-1] == "1 error, 1 warning, 1 info (2 suppressed) in 3 files; 1 input error"
    assert "MEM001" not in text and "sized by the vendor" not in text
    # One line per finding, then its fix and one link; the fix's instruction only with -v.
    at = lines.index("specs/db.yaml:6  NUMA001  warning  vm sql01: 64 vCPUs become vNUMA nodes [10×6, 4] on 10-core "
                     "nodes; with numa.vcpu.preferHT they would be [16×4], which keeps every node the same size")
    assert lines[at + 1:at + 3] == ['    fix: numa.vcpu.preferHT = "TRUE"',
                                    "    see: https://kb.vmware.com/s/article/2003582"]
    assert "Set numa.vcpu.preferHT" not in text
    assert "    source: VMware KB 2003582 <https://kb.vmware.com/s/article/2003582>" in \
        render("text", sample_run(), display=Display(sources=True))
    assert '         Set numa.vcpu.preferHT = "TRUE".' in render("text", sample_run(), display=Display(verbose=True))
    assert "not evaluated: 1 rule for 1 VM: values they need are unknown (--show-skipped lists them per VM)" in lines
    listed = render("text", sample_run(), display=Display(skipped=True)).splitlines()
    assert "specs/web.yaml:2: vm web: not evaluated" in listed
    assert "    - DISK001 needs the VM's virtual disks (vm.disks)" in listed


def test_text_color_and_quiet():
    run = sample_run()
    assert "\x1b[" in render("text", run, color=True)
    quiet = render("text", run, quiet=True).splitlines()
    assert quiet[0] == "specs/broken.yaml:3: vms[0].vcpus: must be a whole number, not 'many'"
    assert quiet[1] == ("specs/db.yaml: HOST001 error   host hp-dl580-g7: the host power policy is Balanced; "
                        "latency-sensitive VMs need High Performance")  # one line per finding, never wrapped
    assert len(quiet) == 4 and not any(line.startswith(("  ", "note:")) or line == DB for line in quiet)
    assert "suppressed" not in "\n".join(quiet) and "fix:" not in "\n".join(quiet)
    assert sum(1 for line in quiet if re.match(r"specs/\w+\.yaml(:\d+)?: [A-Z]+\d+ ", line)) == 3


# -- hostile input ----------------------------------------------------------------------


def test_hostile_strings_do_not_inject_markup_or_escapes():
    run = hostile_run()
    text = render("text", run)
    assert "\x1b" not in text and "\r" not in text
    assert "[bold]evil[/bold]\\x1b[31m|x%y z:w,v" in text  # header: markup literal, ESC visible
    assert "[red]do[/red] it" in render("text", run, display=Display(verbose=True))  # the fix's instruction
    coloured = render("text", run, color=True)
    assert "evil[/bold]\\x1b[31m" in coloured and "\x1b[31m|x" not in coloured

    markdown = render("markdown", run)
    assert "\x1b" not in markdown
    for table in re.findall(r"(?:^\|.*\n)+", markdown, flags=re.M):
        rows = table.splitlines()
        columns = {re.sub(r"\\.", "", row).count("|") for row in rows}  # unescaped pipes per row
        assert len(rows) == 3 and columns == {rows[0].count("|")}, table
    assert r"| ORG001 | a\|b%.yaml:2 | vm \[bold\]evil\[/bold\]\\x1b\[31m\|x%y<br>z:w,v | VM " in markdown

    github = render("github", run)
    assert github.count("\n") == 2 and "\x1b" not in github  # the finding, then the totals
    assert github.startswith("::error file=a|b%25.yaml,line=2,title=ORG001 org-rule::")
    assert "really%0D%0Ayes" in github and "x%25y%0Az:w,v" in github


def test_host_rules_not_evaluated_are_counted_skipped_and_condensed():
    """A host rule the known facts cannot settle counts in the summary line, is a <skipped>
    JUnit case and one SARIF notification, as a VM's."""
    run = sample_run()
    run.hosts[0].skipped = ("PWR003 needs the host's power policy (host.power_policy)",)
    text = render("text", run)
    assert "not evaluated: 2 rules for 1 VM and 1 host: values they need are unknown" in text
    root = ET.fromstring(render("junit", run))
    assert root.get("skipped") == "4"
    cases = {(c.get("classname"), c.get("name")): c for c in root.iter("testcase")}
    assert cases[("PWR003", "host hp-dl580-g7")].find("skipped").get("message").startswith("not evaluated: PWR003")
    notes = json.loads(render("sarif", run))["runs"][0]["invocations"][0]["toolExecutionNotifications"]
    assert any(n["message"]["text"].startswith("not evaluated for 1 host: PWR003") for n in notes)
    listed = render("text", run, display=Display(skipped=True))
    assert "specs/db.yaml: host hp-dl580-g7: not evaluated" in listed
