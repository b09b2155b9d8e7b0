"""advisor.vcenter.to_spec on hand-made API values: what a spec cannot state is reported, not guessed.

The values are stand-ins shaped like pyVmomi's (the mapping reads attributes and type names only);
the same mapping runs on real pyVmomi objects from vcsim in tests/test_vcenter.py.
"""

from __future__ import annotations

from types import SimpleNamespace as NS

import pytest

from advisor.vcenter.collect import Inventory, Record
from advisor.vcenter.to_spec import Filters, entity_name, esxi_version, map_host, map_inventory, map_vm


def api(type_name: str, **fields):
    """An object whose class is named like a pyVmomi type (vim.vm.device.VirtualDisk ...)."""
    return type(type_name, (NS,), {})(**fields)


def host_record(sockets=2, cores=24, threads=48, nodes=2, version="8.0.2", **props) -> Record:
    return Record("host-1", {
        "name": "esx01", "runtime.connectionState": "connected", "summary.hardware.cpuModel": "Intel(R) Xeon(R)  Gold",
        "hardware.cpuInfo": NS(numCpuPackages=sockets, numCpuCores=cores, numCpuThreads=threads, hz=2_900_000_000),
        "hardware.numaInfo": NS(numNodes=nodes), "hardware.memorySize": 512 << 30,
        "config.product": NS(version=version, fullName=f"VMware ESXi {version} build-1"),
        "config.powerSystemInfo.currentPolicy": NS(shortName="dynamic"),
        "config.option": [NS(key="Numa.PreferHT", value=1)], **props})


def vm_record(name="vm1", **props) -> Record:
    base = {"name": name, "runtime.host": NS(_moId="host-1"), "runtime.powerState": "poweredOn",
            "config.hardware.numCPU": 8, "config.hardware.numCoresPerSocket": 4, "config.hardware.memoryMB": 32768,
            "config.version": "vmx-19", "config.guestId": "windows2019srv_64Guest"}
    return Record(f"vm-{name}", {**base, **props})


def test_host_maps_shape_policy_and_numa_options():
    host, problem = map_host(host_record(), "esx01")
    assert problem is None
    assert host == {"name": "esx01", "cpu": "Intel(R) Xeon(R) Gold", "sockets": 2, "cores_per_socket": 12,
                    "threads_per_core": 2, "numa_nodes_per_socket": 1, "memory": "512GB", "core_mhz": 2900,
                    "esxi": "8.0 U2", "power_policy": "balanced", "prefer_ht": True}


@pytest.mark.parametrize("shape, reason", [
    ({"nodes": 1}, "1 NUMA node for 2 sockets"),
    ({"nodes": 3}, "do not split"),
    ({"cores": 25}, "do not divide evenly"),
])
def test_hosts_advisor_cannot_model_are_refused_with_the_reason(shape, reason):
    _, problem = map_host(host_record(**shape), "esx01")
    assert problem and reason in problem


def test_snc_host_has_two_nodes_per_socket():
    host, problem = map_host(host_record(nodes=4), "esx01")
    assert problem is None and host["numa_nodes_per_socket"] == 2


@pytest.mark.parametrize("version, spec", [("8.0.2", "8.0 U2"), ("7.0.3", "7.0 U3"), ("7.0.0", "7.0"),
                                           ("6.7.0", "6.7"), ("5.5.0", "5.5")])
def test_esxi_version(version, spec):
    assert esxi_version(NS(version=version)) == (spec, None)


def test_vm_settings_that_have_no_spec_value_are_noted():
    vm, notes = map_vm(vm_record(**{
        "config.latencySensitivity": NS(level="custom"),
        "config.hardware.device": [api("vim.vm.device.VirtualVmxnet3Vrdma", key=4000, macAddress="x")],
        "config.extraConfig": [NS(key="guestinfo.userdata", value="secret"), NS(key="numvcpus", value="2"),
                               NS(key="numa.nodeAffinity", value="0")],
    }))
    assert vm is not None and vm["vcpus"] == 8 and "latency_sensitivity" not in vm
    assert vm["advanced"] == {"numa.nodeAffinity": "0"}  # the guest's data and the API's own fields are not copied
    assert any("latency sensitivity 'custom'" in n for n in notes)
    assert any("VirtualVmxnet3Vrdma" in n for n in notes)


def test_gpus_are_told_apart_by_backing_and_vendor():
    devices = [
        api(
            "vim.vm.device.VirtualPCIPassthrough",
            key=1,
            backing=api("vim.vm.device.VirtualPCIPassthrough.VmiopBackingInfo", vgpu="grid_a100-40c"),
        ),
        api(
            "vim.vm.device.VirtualPCIPassthrough",
            key=2,
            backing=api("vim.vm.device.VirtualPCIPassthrough.DeviceBackingInfo", vendorId=0x10DE),
        ),
        api(
            "vim.vm.device.VirtualPCIPassthrough",
            key=3,
            backing=api("vim.vm.device.VirtualPCIPassthrough.DeviceBackingInfo", vendorId=0x8086),
        ),
    ]
    vm, notes = map_vm(vm_record(**{"config.hardware.device": devices}))
    assert vm["gpu"] == {"profile": "grid_a100-40c", "passthrough": 1}
    assert len(notes) == 1 and "PCI passthrough device 3" in notes[0]


def test_vm_with_unreadable_configuration_is_not_checked():
    vm, notes = map_vm(Record("vm-9", {"name": "ghost"}))
    assert vm is None and "not checked" in notes[0]


def test_inventory_keeps_powered_on_vms_and_names_duplicates():
    inventory = Inventory(
        "vc",
        hosts=[host_record(parent=NS(_moId="domain-c1"))],
        clusters={"domain-c1": "prod"},
        vms=[
            vm_record("db"),
            Record("vm-dup", {**vm_record("db").props}),
            vm_record("off", **{"runtime.powerState": "poweredOff"}),
            vm_record("tpl", **{"config.template": True}),
        ],
    )
    mapping = map_inventory(inventory)
    (spec,) = mapping.specs
    assert [vm["name"] for vm in spec.doc["vms"]] == ["db", "db [vm-dup]"]
    assert "cluster prod" in spec.doc["host"]["description"] and spec.cluster == "prod"
    assert any("another VM" in n for n in spec.notes) and any("1 powered-off VM" in s for s in mapping.skipped)
    assert map_inventory(inventory, Filters(clusters=("test-*",))).specs == []


def test_escaped_names_are_shown_as_typed():
    assert entity_name("web%2f01%5cx%2525") == "web/01\\x%25"


def test_api_device_types_map_into_advisors_vocabulary():
    from advisor.vcenter.devices import CONTROLLERS, NICS
    from advisor.vocab import ADAPTERS
    from advisor.vocab import CONTROLLERS as SPEC_CONTROLLERS

    assert set(CONTROLLERS.values()) <= set(SPEC_CONTROLLERS)
    assert set(NICS.values()) <= set(ADAPTERS)


def test_a_host_whose_vms_are_all_unreadable_writes_no_spec():
    inventory = Inventory(
        "vc",
        hosts=[host_record()],
        vms=[Record("vm-9", {"name": "ghost", "runtime.host": NS(_moId="host-1"), "runtime.powerState": "poweredOn"})],
    )
    mapping = map_inventory(inventory)
    assert mapping.specs == [] and any("ghost" in s and "not checked" in s for s in mapping.skipped)


def test_ft_hot_add_and_reservations():
    vm, notes = map_vm(
        vm_record(
            **{
                "runtime.faultToleranceState": "running",
                "config.memoryHotAddEnabled": True,
                "config.cpuAllocation": NS(reservation=0, limit=4000),
                "config.memoryAllocation": NS(reservation=16384, limit=-1),
                "config.hardware.numCoresPerSocket": 0,
            }
        )
    )
    assert notes == []
    assert vm["fault_tolerance"] is True and vm["memory_hot_add"] is True and "cores_per_socket" not in vm
    assert vm["memory_reservation"] == "16GB" and "cpu_reservation" not in vm
    assert vm["advanced"] == {"sched.cpu.max": "4000"}


def _workload_rules(text: str):
    import yaml

    from advisor.load.configmodel import Config

    return Config.model_validate(yaml.safe_load(text)).workloads


def test_workloads_by_folder_attribute_name_and_guest_os_as_the_rvtools_reader_applies_them():
    """One mapping (advisor.load.estate) for both readers: folder path below the datacenter's VM
    folder, custom attributes by name, guest OS display name; the first rule matching wins, a VM no
    rule matches stays generic and the report counts what each rule chose."""
    rules = _workload_rules("""
workloads:
  - {workload: sql-server, folders: ["prod/sql*"]}
  - {workload: java, attributes: {role: "java-*"}}
  - {workload: web, vms: ["web-*"], guest_os: ["*Linux*"]}
""")
    folders = {"group-v1": ("vm", None), "group-v2": ("prod", "group-v1"), "group-v3": ("sql%2fdb", "group-v2")}
    inventory = Inventory("vc", hosts=[host_record()], folders=folders, fields={101: "role"}, vms=[
        vm_record("db", parent=NS(_moId="group-v3")),
        vm_record("app", parent=NS(_moId="group-v2"),
                  customValue=[NS(key=101, value="java-app"), NS(key=7, value="x")]),
        vm_record("web-1", parent=NS(_moId="group-v1"), **{"config.guestFullName": "Ubuntu Linux (64-bit)"}),
        vm_record("web-2", **{"config.guestFullName": "Microsoft Windows Server 2019 (64-bit)"}),
    ])
    from advisor.vcenter.to_spec import labels

    assert labels(inventory.vms[0], inventory).folder == "prod/sql/db"
    assert labels(inventory.vms[1], inventory).attributes == {"role": "java-app"}
    mapping = map_inventory(inventory, workloads=rules)
    (spec,) = mapping.specs
    assert {vm["name"]: vm.get("workload") for vm in spec.doc["vms"]} == {
        "db": "sql-server", "app": "java", "web-1": "web", "web-2": None}
    assert mapping.notes == ["workloads from the configuration: java 1 VM(s) (rule 2), sql-server 1 VM(s) (rule 1), "
                             "web 1 VM(s) (rule 3)"]
    # unreadable attribute names: said, and the attribute rule matches nothing
    inventory.fields = None
    mapping = map_inventory(inventory, workloads=rules)
    assert "app" not in {vm["name"] for vm in mapping.specs[0].doc["vms"] if vm.get("workload")}
    assert any("custom attribute names could not be read" in n for n in mapping.notes)


def _clustered(name: str, moid: str, cluster: str | None, **shape) -> Record:
    record = host_record(**shape)
    record.moid = moid
    record.props["name"] = name
    record.props["parent"] = NS(_moId=cluster) if cluster else NS(_moId=f"domain-s{moid}")
    return record


def test_cluster_peers_come_from_the_clusters_real_hosts_by_kind_with_counts_whatever_the_selection():
    hosts = [_clustered("a", "host-1", "domain-c1"), _clustered("b", "host-2", "domain-c1"),
             _clustered("c", "host-3", "domain-c1"), _clustered("d", "host-4", "domain-c1", sockets=4, cores=40,
                                                                 threads=80, nodes=4),
             _clustered("e", "host-5", "domain-c1", nodes=1), _clustered("lone", "host-6", None)]
    vms = [vm_record("v1"), vm_record("v2", **{"runtime.host": NS(_moId="host-6")})]
    inventory = Inventory("vc:8443", hosts=hosts, clusters={"domain-c1": "prod%2f1"}, vms=vms)
    mapping = map_inventory(inventory, Filters(hosts=("a", "lone")))
    first, lone = mapping.specs
    peers = [(p["host"]["name"], p["host"]["sockets"], p["count"]) for p in first.doc["cluster"]]
    assert peers == [("b", 2, 2), ("d", 4, 1)]  # b and c alike; d another kind; e cannot be described
    assert any("e cannot be described" in n for n in first.notes)
    assert "cluster" not in lone.doc  # a standalone host has no peers
    # where things are: SERVER/cluster/host/vm with vCenter's escapes kept, so "/" stays a separator
    assert (first.location, first.vms["v1"]) == ("vc:8443/prod%2f1/a", "vc:8443/prod%2f1/a/v1")
    assert lone.vms["v2"] == "vc:8443/lone/lone/v2"  # a standalone host's own compute resource


def test_govc_environment_is_read_as_govc_reads_it(tmp_path):
    from advisor.vcenter.govc import read_env, same_server

    secret = tmp_path / "password"
    secret.write_text("from-a-file\n")
    env = read_env({"GOVC_URL": "https://u%40corp:p%3Ass@vc.example.test:8443/sdk", "GOVC_INSECURE": "True",
                    "GOVC_TLS_CA_CERTS": f"a.pem:{tmp_path}/b.pem"})
    assert (env.server, env.url_user, env.url_password, env.user, env.password) == (
        "vc.example.test:8443", "u@corp", "p:ss", None, None)
    assert env.insecure and env.ca_files == ("a.pem", f"{tmp_path}/b.pem")
    env = read_env({"GOVC_URL": "vc01", "GOVC_USERNAME": "admin", "GOVC_PASSWORD": str(secret), "GOVC_INSECURE": "0"})
    assert (env.server, env.user, env.password, env.insecure) == ("vc01", "admin", "from-a-file", False)
    assert same_server("vc01:443", env) and not same_server("vc02", env)
    # A file too long to be a password, or a value naming no file, is the value itself.
    big = tmp_path / "not-a-password"
    big.write_bytes(b"x" * 5000)
    assert read_env({"GOVC_PASSWORD": str(big)}).password == str(big)
    assert read_env({"GOVC_PASSWORD": str(tmp_path / "missing")}).password == str(tmp_path / "missing")
    assert read_env({"GOVC_URL": "https://[::1]:9443/sdk"}).server == "[::1]:9443"
    assert read_env({}).server is None and read_env({"GOVC_URL": "https://:99999/"}).server is None


def test_check_docs_points_findings_at_vcenter_places_and_fills_the_vm_rows():
    """`check --vcenter` evaluates the mapped specs in memory (advisor.vcenter.core.check_docs): each
    finding goes to its VM's place (no line), and the one-row-per-VM report finds it there, with
    the host's cluster (both through advisor.report.places, as for an RVTools export)."""
    from advisor.commands.scopes import Options, Scopes
    from advisor.load.config import load_config
    from advisor.report.vmrows import rows
    from advisor.vcenter.core import SpecSource, check_docs

    host = {"name": "esx01", "sockets": 2, "cores_per_socket": 10, "threads_per_core": 2,
            "numa_nodes_per_socket": 1, "memory": "256GB", "esxi": "8.0"}
    doc = {"host": host, "vms": [{"name": "big", "vcpus": 32, "memory": "64GB", "cores_per_socket": 1},
                                 {"name": "small", "vcpus": 2, "memory": "4GB"}]}
    label = "vcenter vc:443/prod/esx01"
    scope = Scopes(Options((), (), (), None, None))
    first = scope.of(load_config(None, [], scope.found))
    run = check_docs([SpecSource(label, doc, {"big": f"{label}/big", "small": f"{label}/small"}, "prod")], [],
                     first.catalog, first.policy)
    big = [f for f in run.findings if f.vm == "big"]
    assert big and {(f.file, f.line, f.column) for f in big} == {(f"{label}/big", None, None)}
    table = {row["vm"]: row for row in rows(run)}
    assert table["big"]["verdict"] != "ok" and table["big"]["top_finding"].startswith(big[0].rule[:3])
    assert table["big"]["cluster"] == table["small"]["cluster"] == "prod"
