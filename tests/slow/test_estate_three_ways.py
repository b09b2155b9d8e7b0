"""The same estate three ways (issue 37, "Done when"): a generated RVTools export, the same VMs built
in vCenter (govmomi's vcsim) with govc and read back by `advisor check --vcenter`, and specs written
by hand give the same findings and vNUMA layouts, apart from what an export cannot carry, which the
export's report names.

The estate: one cluster of two HP DL580 G7 (4 x 10 cores, HT, 4 NUMA nodes, 1 TB) and one
two-socket host (2 x 8 cores, HT, 2 nodes, 256 GB), so a VM sized for the large hosts gets LIM012;
VMs given workloads by folder, by custom attribute and by name through `.advisor.yaml`; one VM
with an advanced key (numa.vcpu.preferHT), which an export does not hold.

govc and advisor run in one environment set up as a govc user sets it (GOVC_URL, GOVC_USERNAME,
GOVC_PASSWORD, GOVC_TLS_CA_CERTS): advisor is given no credentials of its own.
"""

from __future__ import annotations

import json
import subprocess
import sys
from pathlib import Path

import pytest
from conftest import REPO

sys.path.insert(0, str(REPO / "tests" / "vcsim"))
sys.path.insert(0, str(REPO / "tests"))
import launch
from rvtools_gen import SDK_UUID, GenHost, GenVM, sheets, write_xlsx

pytestmark = [pytest.mark.slow, pytest.mark.filterwarnings("ignore::DeprecationWarning")]

BIG = {"cpu": "Intel(R) Xeon(R) CPU E7- 4870 @ 2.40GHz", "sockets": 4, "cores_per_socket": 10, "memory": "1TB"}
SMALL = {"cpu": "Intel(R) Xeon(R) CPU E5-2650 0 @ 2.00GHz", "sockets": 2, "cores_per_socket": 8, "memory": "256GB"}
HOSTS = {"DC0_C0_H0": BIG, "DC0_C0_H1": BIG, "DC0_C0_H2": SMALL}  # vcsim -host 3 -small-hosts 1
# name, host, vCPUs, MiB, folder, custom attribute "role", advanced keys
VMS = [
    ("sql-01", "DC0_C0_H0", 20, 131072, "sql", "", {}),
    ("app-01", "DC0_C0_H0", 8, 32768, "", "java-app", {}),
    ("web-01", "DC0_C0_H1", 4, 8192, "", "", {}),
    ("big-01", "DC0_C0_H1", 48, 524288, "", "", {}),
    ("ht-01", "DC0_C0_H2", 12, 65536, "", "", {"numa.vcpu.preferHT": "TRUE"}),
]
# Each by another test of `workloads:`; latency-critical, because SCHED003 and NET004 fire on it
# with nothing more stated (the SQL Server rules need the guest's settings, which vCenter does not hold).
WORKLOADS = {"sql-01": "latency-critical", "app-01": "latency-critical", "web-01": "latency-critical"}
CONFIG = """\
workloads:
  - {workload: latency-critical, folders: [sql]}
  - {workload: latency-critical, attributes: {role: "java-*"}}
  - {workload: latency-critical, vms: ["web-*"]}
"""
GUEST = "windows9Server64Guest"


def _host_doc(name: str) -> dict:
    return {"name": name, **HOSTS[name], "threads_per_core": 2, "numa_nodes_per_socket": 1, "core_mhz": 2400,
            "esxi": "5.5", "power_policy": "high-performance"}


@pytest.fixture(scope="module")
def estate(tmp_path_factory):
    """vcsim shaped by govc, and the environment both govc and advisor run in."""
    go = launch.require_go()
    out = tmp_path_factory.mktemp("three-ways")
    binary, govc = launch.build(go, out), launch.build_govc(go, out)
    sim = launch.start(binary, "-cluster", "1", "-host", "3", "-small-hosts", "1", "-standalone-host", "0",
                       "-instance-uuid", SDK_UUID)
    env = {"GOVC_URL": sim.url, "GOVC_USERNAME": launch.USER, "GOVC_PASSWORD": launch.PASSWORD,
           "GOVC_TLS_CA_CERTS": sim.cert}
    try:
        def run(*args: str) -> None:
            import os

            subprocess.run([str(govc), *args], env={**os.environ, **env}, check=True, capture_output=True,
                           timeout=300)

        run("folder.create", "/DC0/vm/sql")
        run("fields.add", "-type", "VirtualMachine", "role")
        for name, host, vcpus, mib, folder, role, advanced in VMS:
            run("vm.create", "-c", str(vcpus), "-m", str(mib), "-g", GUEST, "-version", "5.5", "-host", host,
                "-net", "VM Network", "-net.adapter", "vmxnet3", *(("-folder", folder) if folder else ()), name)
            if role:
                run("fields.set", "role", role, f"/DC0/vm/{name}")
            if advanced:
                run("vm.change", "-vm", name, *(a for k, v in advanced.items() for a in ("-e", f"{k}={v}")))
        yield sim, env
    finally:
        sim.stop()


def _export(tmp_path: Path) -> Path:
    hosts = [GenHost(name, sockets=shape["sockets"], cores=shape["cores_per_socket"], ht=True,
                     memory_mb=1048576 if shape is BIG else 262144, cpu_model=shape["cpu"],
                     esx="VMware ESXi 5.5.0 build-1623387", power="High Performance", cluster="DC0_C0")
             for name, shape in HOSTS.items()]
    vms = [GenVM(name, host, vcpus, mib, hw="vmx-10") for name, host, vcpus, mib, *_ in VMS]
    data = sheets(hosts, vms, custom=("role",))
    # What the generator writes alike for every row, set per VM and host as vCenter holds it.
    folders = {name: folder for name, _, _, _, folder, _, _ in VMS}
    roles = {name: role for name, _, _, _, _, role, _ in VMS}
    for sheet in ("vInfo", "vCPU", "vMemory", "vNetwork"):
        head = data[sheet][0]
        for row in data[sheet][1:]:
            name = row[head.index("VM")]
            row[head.index("role")] = roles[name]
            row[head.index("Cluster")] = "DC0_C0"
            if "Folder" in head:
                row[head.index("Folder")] = folders[name]
    head = data["vHost"][0]
    for row in data["vHost"][1:]:
        row[head.index("Speed")] = 2400.0
    return write_xlsx(tmp_path / "RVTools_export_all.xlsx", data)


def _hand_written(tmp_path: Path) -> list[Path]:
    import yaml

    paths = []
    for host in HOSTS:
        peers: dict[str, list] = {}
        for other in HOSTS:
            if other != host:
                peers.setdefault(json.dumps(HOSTS[other], sort_keys=True), [other, 0])[1] += 1
        vms = []
        for name, on, vcpus, mib, _, _, advanced in VMS:
            if on != host:
                continue
            vm = {"name": name, "vcpus": vcpus, "cores_per_socket": 1, "memory": f"{mib // 1024}GB",
                  "hardware_version": 10, "guest_os": GUEST, "nics": [{"adapter": "vmxnet3"}]}
            if name in WORKLOADS:
                vm["workload"] = WORKLOADS[name]
            if advanced:
                vm["advanced"] = advanced
            vms.append(vm)
        doc = {"host": _host_doc(host), "vms": vms,
               "cluster": [{"host": _host_doc(first), "count": count} for first, count in peers.values()]}
        paths.append(tmp_path / f"{host}.yaml")
        paths[-1].write_text(yaml.safe_dump(doc, sort_keys=False))
    return paths


def _check(cli, *args: object) -> dict:
    result = cli("check", *args, "--format", "json", "--fail-on", "never")
    assert result.code == 0, result.err
    return json.loads(result.out)


def _by_vm(doc: dict) -> tuple[dict[str, set], dict[str, str]]:
    """Each VM's findings (rule, severity) and vNUMA layout; host findings under the host's name."""
    found: dict[str, set] = {}
    for f in doc["findings"]:
        found.setdefault(f["vm"] or f["subject"], set()).add((f["rule"], f["severity"]))
    layouts = {vm["name"]: json.dumps(vm["topology"], sort_keys=True) for vm in doc["vms"]}
    return found, layouts


@pytest.mark.self_compare  # three of advisor's readers against each other (LIM012 and SCHED003 aside)
def test_export_vcenter_and_hand_written_specs_agree(cli, estate, tmp_path, monkeypatch):
    sim, env = estate
    for key in ("ADVISOR_VCENTER_USER", "ADVISOR_VCENTER_PASSWORD"):
        monkeypatch.delenv(key, raising=False)
    for key, value in env.items():
        monkeypatch.setenv(key, value)
    (tmp_path / ".advisor.yaml").write_text(CONFIG)
    monkeypatch.chdir(tmp_path)
    live = _check(cli, "--vcenter", sim.server)
    exported = _check(cli, _export(tmp_path))
    by_hand = _check(cli, *_hand_written(tmp_path))

    # vCenter and the hand-written specs: the same findings and layouts, VM by VM
    assert _by_vm(live) == _by_vm(by_hand)
    rules = {vm: {r for r, _ in found} for vm, found in _by_vm(live)[0].items()}
    assert "LIM012" in rules["sql-01"]  # sized for the DL580s' nodes; the two-socket host has 8-core nodes
    # the workloads the folder, the custom attribute and the name gave, and no other VM
    assert {vm for vm, found in rules.items() if "SCHED003" in found} == set(WORKLOADS)
    # the export: the same but for the VMs whose settings it cannot hold, which its report names
    uncarried = {name for name, *_, advanced in VMS if advanced}
    (live_found, live_layouts), (export_found, export_layouts) = _by_vm(live), _by_vm(exported)
    differs = {vm for vm in live_found.keys() | export_found.keys() if live_found.get(vm) != export_found.get(vm)}
    differs |= {vm for vm in live_layouts if live_layouts[vm] != export_layouts.get(vm)}
    assert differs == uncarried
    assert any("VM advanced keys" in note and "not in an RVTools export" in note for note in exported["notes"])
    # every finding points at what it is about: a vCenter place or the export's sheet and row
    assert all(f["file"].startswith(f"vcenter {sim.server}/DC0_C0/") for f in live["findings"])
    assert all(f["file"].endswith(("#vInfo", "#vHost")) and f["line"] > 1 for f in exported["findings"])
    notes = " ".join(live["notes"])
    assert "workloads from the configuration" in notes
    assert launch.PASSWORD not in json.dumps(live)
