"""`advisor check` end to end: exit codes, formats, configuration, suppressions, user rules."""

from __future__ import annotations

import json
import os
import re
import subprocess
import sys
from pathlib import Path

import pytest
from conftest import REPO

EXAMPLES = sorted((REPO / "examples").glob("*.yaml"))
SQL64 = REPO / "examples" / "sql-server-64vcpu.yaml"
SPEC_64 = """host: hp-dl580-g7
vms:
  - name: sql
    vcpus: 64
    memory: 256GB
    workload: sql-server
"""


def advisor(*args: str, cwd: Path | None = None) -> subprocess.CompletedProcess[str]:
    return subprocess.run([sys.executable, "-m", "advisor", *args], capture_output=True, text=True, cwd=cwd,
                          env={"PATH": "/usr/bin:/bin", "NO_COLOR": "1", "HOME": str(cwd or REPO),
                               "ADVISOR_CACHE_DIR": os.environ["ADVISOR_CACHE_DIR"]}, timeout=120)


def findings(result: subprocess.CompletedProcess[str]) -> list[dict]:
    return json.loads(result.stdout)["findings"]


def test_every_example_runs_without_traceback():
    result = advisor("check", *map(str, EXAMPLES))
    assert result.returncode in (0, 1), result.stderr
    assert "Traceback" not in result.stderr + result.stdout
    for example in EXAMPLES:
        assert example.name in result.stdout or str(example) in result.stdout


@pytest.mark.parametrize("example", EXAMPLES, ids=lambda p: p.stem)
def test_example_json_is_valid(example):
    import jsonschema

    result = advisor("check", str(example), "--format", "json", "--fail-on", "never")
    assert result.returncode == 0, result.stderr
    doc = json.loads(result.stdout)
    schema = json.loads((REPO / "advisor" / "schemas" / "report-v1.schema.json").read_text())
    jsonschema.validate(doc, schema)
    assert doc["schema"] == "advisor/v1"
    assert all(vm["topology"] for vm in doc["vms"])


def test_text_report_of_the_64_vcpu_example_is_short():
    """Issue 34: the VM's topology, then each finding in one line with its fix and its rule's
    page, then the totals: at most 30 lines, no seed file names, no source listed twice."""
    result = advisor("check", str(SQL64), "--fail-on", "warning")
    assert result.returncode == 1  # the example is meant to have findings
    lines = result.stdout.splitlines()
    assert len(lines) <= 30, result.stdout
    assert "7 vNUMA nodes [10×6, 4]" in lines[0]
    assert "numa.vcpu.preferHT" in result.stdout
    findings = [line for line in lines if re.match(r"\S+:\d+  [A-Z]+\d+ ", line)]
    assert len(findings) == 8  # MEM002 is not evaluated: the example does not state large pages
    assert not re.search(r"\d{3}_[0-9a-f]{16}\.txt", result.stdout)
    assert "\x1b[" not in result.stdout


def test_exit_codes(tmp_path):
    spec = tmp_path / "vm.yaml"
    spec.write_text(SPEC_64)
    assert advisor("check", str(spec)).returncode == 0  # NUMA001 is a warning; default --fail-on error
    assert advisor("check", str(spec), "--fail-on", "warning").returncode == 1
    assert advisor("check", str(spec), "--fail-on", "never").returncode == 0
    bad = tmp_path / "bad.yaml"
    bad.write_text("host: hp-dl580-g7\nvms: [{name: a, vcpus: lots, memory: 1GB}]\n")
    result = advisor("check", str(bad))
    assert result.returncode == 2
    assert f"{bad}:2: vms[0].vcpus:" in result.stderr
    assert advisor("check", str(spec), "--format", "nonsense").returncode == 2
    assert advisor("check", str(spec), "--select", "NOPE").returncode == 2


def test_multi_file_run_reports_bad_file_and_checks_the_good_one(tmp_path):
    good, bad = tmp_path / "good.yaml", tmp_path / "bad.yaml"
    good.write_text(SPEC_64)
    bad.write_text("host: hp-dl580-g7\nvms: [{name: a, vcpus: 4}]\n")
    result = advisor("check", str(bad), str(good), "--format", "json")
    assert result.returncode == 2
    doc = json.loads(result.stdout)
    assert [vm["name"] for vm in doc["vms"]] == ["sql"]
    assert doc["errors"][0]["file"] == str(bad)
    assert "memory" in result.stderr


def test_yaml_merge_keys_give_vms_a_shared_base(tmp_path):
    """`<<: *base` then a key of the VM's own: the VM's value wins (YAML merge-key semantics),
    and a finding on that key points at the VM's line, not the base's."""
    spec = tmp_path / "vm.yaml"
    spec.write_text("host: hp-dl580-g7\n"
                    "vms:\n"
                    "  - &sql\n"
                    "    {name: small, vcpus: 8, memory: 64GB, workload: sql-server}\n"
                    "  - <<: *sql\n"
                    "    name: wide\n"
                    "    vcpus: 64\n")
    result = advisor("check", str(spec), "--format", "json")
    assert result.returncode in (0, 1), result.stderr
    doc = json.loads(result.stdout)
    assert [(vm["name"], vm["topology"]["vnuma_nodes"]) for vm in doc["vms"]] == [
        ("small", [8]), ("wide", [10, 10, 10, 10, 10, 10, 4])]
    numa = [f for f in doc["findings"] if f["rule"] == "NUMA001"]
    assert [(f["vm"], f["line"]) for f in numa] == [("wide", 7)]


def test_select_and_ignore(tmp_path):
    spec = tmp_path / "vm.yaml"
    spec.write_text(SPEC_64)
    assert "NUMA001" in {f["rule"] for f in findings(advisor("check", str(spec), "--format", "json"))}
    assert "NUMA001" not in {
        f["rule"] for f in findings(advisor("check", str(spec), "--format", "json", "--ignore", "NUMA001"))
    }
    selected = findings(advisor("check", str(spec), "--format", "json", "--select", "NUMA"))
    assert selected and all(f["rule"].startswith("NUMA") for f in selected)
    # the more specific prefix wins, as in ruff
    both = findings(advisor("check", str(spec), "--format", "json", "--select", "NUMA", "--ignore", "NUMA001"))
    assert "NUMA001" not in {f["rule"] for f in both}


def test_several_format_output_pairs(tmp_path):
    spec = tmp_path / "vm.yaml"
    spec.write_text(SPEC_64)
    out_json, out_sarif = tmp_path / "r.json", tmp_path / "r.sarif"
    result = advisor("check", str(spec), "--format", "json", "-o", str(out_json), "--format", "sarif",
                     "-o", str(out_sarif), "--format", "text")
    assert result.returncode == 0, result.stderr
    assert json.loads(out_json.read_text())["schema"] == "advisor/v1"
    assert json.loads(out_sarif.read_text())["version"] == "2.1.0"
    assert "NUMA001" in result.stdout


def test_config_discovery_walks_up(tmp_path):
    project = tmp_path / "project"
    (project / "vms" / "db").mkdir(parents=True)
    spec = project / "vms" / "db" / "vm.yaml"
    spec.write_text(SPEC_64)
    (project / ".git").mkdir()  # a repository: discovery walks up to its root (outside one it does not climb)
    (project / ".advisor.yaml").write_text("ignore: [NUMA001]\n")
    assert "NUMA001" not in {f["rule"] for f in findings(advisor("check", str(spec), "--format", "json"))}
    # pyproject.toml [tool.advisor] in a nearer folder wins over the .advisor.yaml further up
    (project / "vms" / "pyproject.toml").write_text('[tool.advisor]\nseverity = {NUMA001 = "error"}\n')
    result = advisor("check", str(spec), "--format", "json")
    assert result.returncode == 1
    assert {f["severity"] for f in findings(result) if f["rule"] == "NUMA001"} == {"error"}
    # an explicit --config wins over discovery
    explicit = tmp_path / "other.yaml"
    explicit.write_text("fail_on: never\nignore: [NUMA]\n")
    result = advisor("check", str(spec), "--format", "json", "--config", str(explicit))
    assert result.returncode == 0 and not [f for f in findings(result) if f["rule"].startswith("NUMA")]


def test_bad_config_is_an_input_error(tmp_path):
    (tmp_path / ".advisor.yaml").write_text("ignor: [NUMA001]\n")
    spec = tmp_path / "vm.yaml"
    spec.write_text(SPEC_64)
    result = advisor("check", str(spec))
    assert result.returncode == 2
    assert ".advisor.yaml:1" in result.stderr and "ignor" in result.stderr and "did you mean 'ignore'" in result.stderr


def test_spec_suppressions(tmp_path):
    spec = tmp_path / "vm.yaml"
    spec.write_text(SPEC_64 + "    ignore:\n"
                    "      - {rule: NUMA001, reason: vendor sizing, until: 2999-01-01}\n"
                    "      - {rule: NET001, reason: not applicable here}\n")
    result = advisor("check", str(spec), "--format", "json", "--fail-on", "warning")
    doc = json.loads(result.stdout)
    numa = [f for f in doc["findings"] if f["rule"] == "NUMA001"]
    assert numa and numa[0]["suppressed"]["reason"] == "vendor sizing"
    assert numa[0]["suppressed"]["kind"] == "spec"
    assert any("unused suppression" in n and "NET001" in n for n in doc["notes"])
    sarif = json.loads(advisor("check", str(spec), "--format", "sarif").stdout)
    suppressed = [r for r in sarif["runs"][0]["results"] if r["ruleId"] == "NUMA001"]
    assert suppressed[0]["suppressions"][0]["justification"] == "vendor sizing"


def test_expired_suppression_counts_again(tmp_path):
    spec = tmp_path / "vm.yaml"
    spec.write_text(SPEC_64 + "    ignore: [{rule: NUMA001, reason: until the refresh, until: 2020-01-01}]\n")
    result = advisor("check", str(spec), "--format", "json", "--fail-on", "warning")
    doc = json.loads(result.stdout)
    assert result.returncode == 1
    assert next(f for f in doc["findings"] if f["rule"] == "NUMA001")["suppressed"] is None
    assert any("expired" in n for n in doc["notes"])


def test_suppression_needs_a_reason(tmp_path):
    spec = tmp_path / "vm.yaml"
    spec.write_text(SPEC_64 + "    ignore: [{rule: NUMA001}]\n")
    result = advisor("check", str(spec))
    assert result.returncode == 2 and "reason" in result.stderr and ":7:" in result.stderr


USER_RULE = """rules:
  - id: ORG001
    name: memory-over-policy
    severity: error
    summary: VM memory above the organisation's 128 GB limit
    when: vm.memory_mib > 131072
    locate: memory
    message: "{vm.name} asks for {vm.memory_mib} MiB; the policy allows 131072"
    rationale: Our capacity team caps VMs at 128 GB so that any VM can be restarted on any host.
    references:
      - {doc: "Internal capacity policy", url: "https://example.com/policy"}
    fix: {resize: {memory: 128GB}, text: Reduce memory to 128 GB or request an exception.}
    examples:
      fail: [{host: hp-dl580-g7, vms: [{name: a, vcpus: 4, memory: 256GB}]}]
      pass: [{host: hp-dl580-g7, vms: [{name: a, vcpus: 4, memory: 64GB}]}]
"""


def test_user_rule_folder_end_to_end(tmp_path):
    folder = tmp_path / "policies"
    folder.mkdir()
    (folder / "org.yaml").write_text(USER_RULE)
    spec = tmp_path / "vm.yaml"
    spec.write_text(SPEC_64)
    result = advisor("check", str(spec), "--rules", str(folder), "--format", "json")
    assert result.returncode == 1
    org = [f for f in findings(result) if f["rule"] == "ORG001"]
    assert org and org[0]["line"] == 5 and "262144 MiB" in org[0]["message"]
    assert "ORG001" in advisor("explain", "ORG001", "--rules", str(folder)).stdout


@pytest.mark.parametrize(
    ("change", "expected"),
    [
        (("when: vm.memory_mib > 131072", "when: vm.memory_mib >"), "condition does not compile"),
        (
            ("when: vm.memory_mib > 131072", "when: vm.memroy_mib > 131072"),
            "unknown fact 'vm.memroy_mib'; did you mean 'vm.memory_mib'",
        ),
        (("    rationale: Our", "    rationalee: Our"), "rationale"),
        (("{vm.memory_mib} MiB", "{vm.nope} MiB"), "unknown fact '{vm.nope}'"),
    ],
)
def test_malformed_user_rule_is_rejected_before_evaluation(tmp_path, change, expected):
    folder = tmp_path / "policies"
    folder.mkdir()
    (folder / "org.yaml").write_text(USER_RULE.replace(*change))
    spec = tmp_path / "vm.yaml"
    spec.write_text(SPEC_64)
    result = advisor("check", str(spec), "--rules", str(folder))
    assert result.returncode == 2
    assert "org.yaml:" in result.stderr and expected in result.stderr, result.stderr
    assert "Traceback" not in result.stderr and not result.stdout


def test_no_color_and_quiet(tmp_path):
    spec = tmp_path / "vm.yaml"
    spec.write_text(SPEC_64)
    quiet = advisor("check", str(spec), "--quiet")
    assert "NUMA001" in quiet.stdout and "64 vCPU →" not in quiet.stdout
    forced = advisor("check", str(spec), "--color")
    assert "\x1b[" in forced.stdout
