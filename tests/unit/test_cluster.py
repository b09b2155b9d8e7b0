"""Clusters in a spec: other hosts, or kinds of host with a count (issue 17, item 5).

ESXi fixes a VM's vNUMA layout at its first power-on (numa.autosize.once TRUE by default) and
keeps it when the VM moves: Denneman, "Solving vNUMA Topology Mismatch When Migrating between Dual
Socket Servers and Quad Socket Servers" (2022),
https://frankdenneman.nl/2022/03/11/solving-vnuma-topology-mismatch-when-migrating-between-dual-socket-servers-and-quad-socket-servers/
So each VM is checked against each kind of host it may move to; a kind is checked once, however
many hosts have it.
"""

from __future__ import annotations

from pathlib import Path

import pytest

import advisor.facts.cluster as cluster_module
from advisor.engine.engine import Evaluator, Policy
from advisor.engine.specs import evaluate_spec
from advisor.errors import InputError
from advisor.load.specfile import parse_spec

MIX = """\
host: intel-xeon-8480plus-2s
cluster:
  - {host: intel-xeon-8480plus-2s, count: 5}
  - {host: intel-xeon-6248r-2s, count: 2}
  - intel-xeon-6248r-2s
  - {name: four-by-14, sockets: 4, cores_per_socket: 14, threads_per_core: 2, memory: 1TB, esxi: "8.0"}
vms:
  - {name: wide, vcpus: 48, memory: 256GB, hardware_version: 19}
  - {name: fits, vcpus: 12, memory: 64GB, hardware_version: 19}
"""


def _findings(text: str) -> dict[str, list]:
    from advisor.engine.catalog import builtin_catalog

    evaluator = Evaluator(builtin_catalog(), Policy())
    evaluate_spec(parse_spec(text, "mix.yaml"), evaluator)
    run = evaluator.finish()
    out: dict[str, list] = {}
    for finding in run.findings:
        out.setdefault(finding.rule, []).append(finding)
    return out


def test_kinds_of_host_are_grouped_with_their_counts():
    loaded = parse_spec(MIX, "mix.yaml")
    kinds = {c.host.name: (c.count, c.names) for c in loaded.cluster}
    # The same profile named twice (with a count, then alone) is one kind of 3 hosts.
    assert kinds == {"intel-xeon-8480plus-2s": (5, ("intel-xeon-8480plus-2s",)),
                     "intel-xeon-6248r-2s": (3, ("intel-xeon-6248r-2s",)),
                     "four-by-14": (1, ("four-by-14",))}


def test_each_kind_of_host_is_predicted_once_per_vm_shape(monkeypatch: pytest.MonkeyPatch):
    calls: list[str] = []
    real = cluster_module.predict

    def counting(host, vm, version):
        calls.append(host.name)
        return real(host, vm, version)

    monkeypatch.setattr(cluster_module, "predict", counting)
    text = MIX.replace("count: 5", "count: 10000").replace(
        "  - {name: fits, vcpus: 12, memory: 64GB, hardware_version: 19}\n",
        "".join(f"  - {{name: wide{i}, vcpus: 48, memory: {64 + i}GB, hardware_version: 19}}\n" for i in range(20)))
    found = _findings(text)
    # Two kinds differ from the first host (the third is its own shape): 2 predictions for the one
    # VM shape, whatever the counts and however many VMs share the shape.
    assert sorted(calls) == ["four-by-14", "intel-xeon-6248r-2s"]
    assert len(found["LIM012"]) == 21


def test_mismatch_names_the_kinds_and_counts_their_hosts():
    found = _findings(MIX)
    wide = [f for f in found["LIM012"] if f.vm == "wide"]
    assert len(wide) == 1 and not [f for f in found["LIM012"] if f.vm == "fits"]
    message = wide[0].message
    assert "intel-xeon-6248r-2s (3 hosts) [24×2]" in message
    assert "four-by-14 [" in message and "intel-xeon-8480plus-2s (" not in message
    assert "smallest node has 14 cores" in message


@pytest.mark.parametrize(("entry", "line", "field"), [
    ("{host: intel-xeon-6348-2s, count: 0}", 4, "cluster[1].count"),
    ("{host: no-such-profile, count: 2}", 4, "cluster[1].host"),
    ("no-such-profile", 4, "cluster[1]"),
    ("{host: intel-xeon-6348-2s, count: 2, colour: red}", 4, "cluster[1].colour"),
    ("{host: {name: x, sockets: 0, cores_per_socket: 4, memory: 1GB, esxi: '8.0'}}", 4, "cluster[1].host.sockets"),
    ("{host: ./missing-host.yaml}", 4, "cluster[1].host"),
    ("{count: 3}", 4, "cluster[1].host"),
])
def test_a_bad_cluster_entry_is_located(entry: str, line: int, field: str):
    text = (f"host: intel-xeon-6348-2s\ncluster:\n  - intel-xeon-6348-2s\n  - {entry}\n"
            "vms: [{name: a, vcpus: 4, memory: 8GB}]\n")
    with pytest.raises(InputError) as caught:
        parse_spec(text, "spec.yaml")
    assert (caught.value.file, caught.value.line, caught.value.field) == ("spec.yaml", line, field)


def test_a_bad_cluster_entry_exits_2_with_one_line(cli, tmp_path: Path):
    spec = tmp_path / "spec.yaml"
    spec.write_text("host: intel-xeon-6348-2s\ncluster:\n  - {host: nope, count: 2}\n"
                    "vms: [{name: a, vcpus: 4, memory: 8GB}]\n")
    out = tmp_path / "report.json"
    result = cli("check", spec, "--format", "json", "-o", out)
    assert result.code == 2 and "Traceback" not in result.err
    assert [line for line in result.err.splitlines() if line.strip()] == [
        f"advisor: {spec}:3: cluster[0].host: unknown host profile 'nope' (run 'advisor hosts' to list them)"]
    assert not out.exists()


def test_hardware_newer_than_an_older_kind_of_host_is_flagged():
    """VMware KB 1003746: an ESXi release runs virtual hardware up to its own version (6.5: 13,
    8.0: 20, 8.0 U2: 21), so a hardware-19 VM cannot be placed on the cluster's 6.5 hosts."""
    text = ("host: intel-xeon-8480plus-2s\n"
            "cluster: [{host: intel-xeon-6348-2s, count: 4}, {host: dell-r730-e5-2680v4, count: 2}]\n"
            "vms:\n  - {name: new, vcpus: 8, memory: 32GB, hardware_version: 19}\n"
            "  - {name: old, vcpus: 8, memory: 32GB, hardware_version: 13}\n"
            "  - {name: unset, vcpus: 8, memory: 32GB}\n")
    found = _findings(text)
    flagged = {f.vm: f for f in found["LIM014"]}
    assert set(flagged) == {"new"}
    assert "dell-r730-e5-2680v4 (2 hosts) (ESXi 6.5: hardware up to 13)" in flagged["new"].message
    assert flagged["new"].evidence["cluster.oldest_max_hw"] == 13


def test_full_vmx_picks_hardware_every_host_of_the_cluster_runs(cli, tmp_path: Path):
    """KB 1003746: ESXi 6.5 runs hardware up to 13, so a new VM for a cluster with 6.5 hosts gets
    13, not the 8.0 host's 20 (which LIM014 would flag)."""
    from advisor.vmx.document import VmxDocument

    spec = tmp_path / "vm.yaml"
    spec.write_text("host: intel-xeon-8480plus-2s\ncluster: [{host: dell-r730-e5-2680v4, count: 2}]\n"
                    "vms: [{name: app, vcpus: 8, memory: 32GB}]\n")
    result = cli("vmx", spec, "--full")
    assert result.code == 0, result.err
    assert VmxDocument.parse(result.out.encode()).get("virtualHW.version") == "13"


def test_more_vcpus_than_a_smaller_kind_of_host_has_threads():
    """ESXi powers on no VM with more vCPUs than the host's logical processors ("Virtual CPU
    Limitations"): a 64-vCPU VM cannot move to the cluster's 48-thread hosts (2 x 12 cores x 2)."""
    text = ("host: intel-xeon-8480plus-2s\n"
            "cluster: [{host: intel-xeon-6348-2s, count: 4}, {host: dell-r720-e5-2697v2, count: 2}]\n"
            "vms:\n  - {name: wide, vcpus: 64, cores_per_socket: 32, memory: 256GB, hardware_version: 10}\n"
            "  - {name: fits, vcpus: 48, cores_per_socket: 24, memory: 256GB, hardware_version: 10}\n")
    found = _findings(text)
    flagged = {f.vm: f for f in found.get("LIM017", [])}
    assert set(flagged) == {"wide"}
    assert "dell-r720-e5-2697v2 (2 hosts) (48 logical processors)" in flagged["wide"].message
    assert "intel-xeon-6348-2s" not in flagged["wide"].message
