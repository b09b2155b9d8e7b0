"""Unknown stays unknown (issue 33): a host rule the known facts cannot settle is listed with
what it needs, a default the user did not state is named as assumed and never raises a finding
above info, large pages are "off" only when stated off, host fixes make sense for one VM,
SCALE001 counts Hadoop VMs, and a Terraform `count` is the number of VMs it says."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import pytest
import yaml

from advisor.engine.catalog import load_catalog
from advisor.engine.engine import Policy
from advisor.engine.specs import check_files
from advisor.load.hosts import load_profile, profile_names

_SQL = {"name": "db", "vcpus": 8, "memory": "64GB", "workload": "sql-server"}


def _run(spec: dict[str, Any]) -> Any:
    name = "spec.yaml"
    run = check_files([name], load_catalog([]), Policy(), given={name: yaml.safe_dump(spec).encode()})
    assert not run.errors, run.errors
    return run


def _fired(run: Any, rule: str) -> list[Any]:
    return [f for f in run.findings if f.rule == rule]


# -- host rules: not evaluated, with what they need ------------------------------------------

def test_a_host_rule_with_an_unknown_fact_is_listed_with_what_it_needs() -> None:
    """PWR004 reads host.deep_cstates, which this host does not state: neither fired nor silent."""
    host = {"name": "t", "sockets": 2, "cores_per_socket": 16, "threads_per_core": 2, "memory": "256GB",
            "esxi": "7.0", "power_policy": "high-performance"}
    vm = {"name": "trade", "vcpus": 4, "memory": "16GB", "workload": "latency-critical"}
    run = _run({"host": host, "vms": [vm]})
    (result,) = run.hosts
    assert not _fired(run, "PWR004")
    assert any(line.startswith("PWR004 needs") and "host.deep_cstates" in line for line in result.skipped)
    # PWR003 reads host.bios_power (unstated): listed too, and neither counts as evaluated.
    assert any(line.startswith("PWR003 needs") and "host.bios_power" in line for line in result.skipped)
    evaluated = {rule for rule, subject, _ in run.evaluated_cases() if subject == "host t"}
    assert not evaluated & {"PWR003", "PWR004"} and "PWR001" in evaluated
    # Stated, the rule is decided.
    run = _run({"host": {**host, "deep_cstates": True}, "vms": [vm]})
    assert _fired(run, "PWR004") and not any(line.startswith("PWR004") for line in run.hosts[0].skipped)


def test_host_not_evaluated_lines_reach_every_output_that_lists_the_vms_ones(tmp_path: Path, cli) -> None:
    spec = tmp_path / "spec.yaml"
    spec.write_text(yaml.safe_dump({
        "host": {"name": "t", "sockets": 2, "cores_per_socket": 16, "threads_per_core": 2, "memory": "256GB",
                 "esxi": "7.0"},
        "vms": [{"name": "trade", "vcpus": 4, "memory": "16GB", "workload": "latency-critical"}]}))
    text = cli("check", spec)
    assert text.code == 0 and "and 1 host: values they need are unknown" in text.out
    listed = cli("check", "--show-skipped", spec)
    assert "host t: not evaluated" in listed.out and "PWR004 needs" in listed.out
    report = json.loads(cli("check", spec, "--format", "json").out)
    assert any(line.startswith("PWR004 needs") for line in report["hosts"][0]["skipped"])
    sarif = json.loads(cli("check", spec, "--format", "sarif").out)
    notes = [n["message"]["text"] for n in sarif["runs"][0]["invocations"][0]["toolExecutionNotifications"]]
    assert any(n.startswith("not evaluated for 1 host: PWR004 needs") for n in notes)


# -- power policy: a default is named as assumed ---------------------------------------------

_UNSTATED = [name for name in profile_names() if load_profile(name).power_policy is None]


def test_bundled_profiles_without_a_power_policy_exist() -> None:
    assert len(_UNSTATED) >= 5  # 9 of 24 when this was written


@pytest.mark.parametrize("profile", _UNSTATED)
def test_an_unstated_power_policy_is_an_assumption_at_info(profile: str) -> None:
    run = _run({"host": profile, "vms": [_SQL]})
    assert not _fired(run, "PWR001")
    for finding in run.findings:
        if finding.subject.startswith("host ") and finding.rule.startswith("PWR"):
            assert finding.severity == "info", finding
            assert "runs Power.CpuPolicy" not in finding.message
    host = load_profile(profile)
    if host.bios_power in (None, "os-controlled") and host.esxi.major >= 5:
        (assumed,) = _fired(run, "PWR006")
        assert "no power policy given" in assumed.message and "default is Balanced" in assumed.message
        assert any("GUID-4D1A6F4A" in ref for ref in assumed.references)  # the page that states the default


def test_a_stated_balanced_policy_is_still_a_warning() -> None:
    host = {"name": "r", "sockets": 2, "cores_per_socket": 12, "threads_per_core": 2, "memory": "256GB",
            "esxi": "7.0", "power_policy": "balanced"}
    run = _run({"host": host, "vms": [_SQL]})
    (finding,) = _fired(run, "PWR001")
    assert finding.severity == "warning" and "'balanced'" in finding.message and not _fired(run, "PWR006")


def test_the_default_assumed_follows_the_version() -> None:
    """High Performance was ESX 4.1's default, Balanced is 5.0's and later's."""
    from advisor.facts.host import power_facts
    from advisor.model.versions import Version

    host = load_profile(_UNSTATED[0])
    assert power_facts(host, Version(4, 1))["host.power_policy"] == "high-performance"
    assert power_facts(host, Version(8, 0))["host.power_policy"] == "balanced"
    older = power_facts(host, Version(4, 0))
    assert older["host.power_policy"] is None and "no document" in older["host.power_policy_text"]


def test_pwr003_names_the_policy_as_assumed_when_unstated() -> None:
    host = {"name": "r", "sockets": 2, "cores_per_socket": 12, "memory": "256GB", "esxi": "5.5",
            "bios_power": "balanced"}
    (finding,) = _fired(_run({"host": host, "vms": [{"name": "w", "vcpus": 4, "memory": "16GB"}]}), "PWR003")
    assert "not given; ESXi 5.5's default, Balanced, is assumed" in finding.message


# -- large pages: off only when stated off ----------------------------------------------------

@pytest.mark.parametrize(("extra", "fires"), [
    ({}, None),
    ({"sql": {"maxdop": 8}}, None),  # an sql: block that does not mention lock pages says nothing
    ({"guest": {"large_pages": False}}, True),
    ({"sql": {"lock_pages_in_memory": False}}, True),
    ({"guest": {"large_pages": True}}, False),
    ({"sql": {"lock_pages_in_memory": True}}, False),
])
def test_mem002_only_when_large_pages_are_stated_off(extra: dict[str, Any], fires: bool | None) -> None:
    run = _run({"host": "hp-dl580-g7", "vms": [{**_SQL, **extra}]})
    assert bool(_fired(run, "MEM002")) is bool(fires)
    listed = any(line.startswith("MEM002 needs") and "vm.large_pages" in line for line in run.vms[0].skipped)
    assert listed is (fires is None)


# -- host fixes for one VM --------------------------------------------------------------------

def test_host002_cuts_a_lone_vm_wider_than_the_cores() -> None:
    run = _run({"host": "hp-dl580-g7", "vms": [{"name": "big", "vcpus": 64, "memory": "256GB"}]})
    (finding,) = _fired(run, "HOST002")
    assert finding.fix["resize"] == {"vcpus": "40"}
    assert "1 VMs" not in finding.fix["text"] and "at most 40 vCPUs" in finding.fix["text"]


def test_host002_counts_vms_of_the_largest_size_when_they_fit() -> None:
    run = _run({"host": "hp-dl580-g7", "vms": [{"name": "sql", "count": 8, "vcpus": 8, "memory": "64GB"}]})
    (finding,) = _fired(run, "HOST002")
    assert finding.fix["resize"] == {"count": "5"} and "5 VMs of 8 vCPUs fit the 40 cores" in finding.fix["text"]


# -- SCALE001 counts Hadoop VMs ----------------------------------------------------------------

def test_scale001_is_not_silenced_by_small_vms_of_another_workload() -> None:
    hadoop = {"name": "hadoop", "vcpus": 40, "memory": "200GB", "workload": "hadoop"}
    monitor = {"name": "mon", "count": 2, "vcpus": 2, "memory": "4GB"}
    (finding,) = _fired(_run({"host": "dell-r720-e5-2697v2", "vms": [hadoop, monitor]}), "SCALE001")
    assert finding.message.startswith("1 Hadoop VM")
    run = _run({"host": "dell-r720-e5-2697v2", "vms": [{**hadoop, "count": 2, "vcpus": 20}, monitor]})
    assert not _fired(run, "SCALE001")


# -- lint --host and Terraform count ---------------------------------------------------------

_TF = """\
variable "n" {
  type = number
}
resource "vsphere_virtual_machine" "web" {
  count    = COUNT
  name     = "web"
  num_cpus = 8
  memory   = 16384
}
"""


def _lint(tmp_path: Path, cli, count: str) -> dict[str, Any]:
    path = tmp_path / "main.tf"
    path.write_text(_TF.replace("COUNT", count))
    result = cli("lint", "--host", "hp-dl580-g7", "--format", "json", path)
    assert result.code in (0, 1), result.err
    return dict(json.loads(result.out))


def test_lint_host_multiplies_by_a_literal_count(tmp_path: Path, cli) -> None:
    report = _lint(tmp_path, cli, "8")
    (vm,) = report["vms"]
    (host,) = report["hosts"]
    assert vm["count"] == 8 and host["capacity"]["vcpus"] == 64  # eight 8-vCPU VMs, not one
    assert any(f["rule"] == "HOST002" for f in report["findings"])  # 64 vCPUs on 40 cores


def test_lint_host_keeps_the_note_of_an_unknown_count(tmp_path: Path, cli) -> None:
    report = _lint(tmp_path, cli, "var.n")
    assert any("count = var.n: unknown" in note for note in report["notes"])
    (host,) = report["hosts"]
    # How many VMs share the host is not known: the host-wide rules say what they need.
    assert not any(f["subject"].startswith("host ") for f in report["findings"])
    assert any(line.startswith("HOST002 needs") for line in host["skipped"])


def test_lint_count_zero_makes_no_vm(tmp_path: Path, cli) -> None:
    report = _lint(tmp_path, cli, "0")
    assert not report["vms"] and any("count = 0" in note for note in report["notes"])


@pytest.mark.parametrize(("count", "expected", "note"), [
    ("3", 3, None),
    ('"4"', 4, None),
    ("var.n", None, "count = var.n: unknown"),
    ("true", None, "count = true: unknown"),
    ("200000", None, "more than the 100,000"),
])
def test_terraform_reader_counts_the_instances(tmp_path: Path, count: str, expected: int | None,
                                               note: str | None) -> None:
    from advisor.readers import read_template

    path = tmp_path / "main.tf"
    path.write_text(_TF.replace("COUNT", count))
    (vm,) = read_template(str(path), path.read_bytes(), ())
    assert vm.count == expected
    assert any(note in n for n in vm.notes) if note else not any(n.startswith("count") for n in vm.notes)
