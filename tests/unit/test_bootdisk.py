"""Which disk is the boot disk (advisor.model.bootdisk), decided the same way by every reader:
stated by the boot order (vSphere bootOrder, .vmx bios.hddOrder) or, failing that, the first disk
by controller bus and unit, named as an assumption. STO001/STO002 count the other disks only."""

from __future__ import annotations

import json
from types import SimpleNamespace as NS

import pytest

from advisor.model.bootdisk import Slot, boot_disk, mark_boot_disk, parse_slots
from advisor.readers import read_template
from advisor.vcenter.collect import Inventory, Record
from advisor.vcenter.specfiles import render
from advisor.vcenter.to_spec import map_inventory, map_vm
from advisor.vmx.templatefields import template_fields


def api(type_name: str, **fields):
    """An object whose class is named like a pyVmomi type (vim.vm.device.VirtualDisk ...)."""
    return type(type_name, (NS,), {})(**fields)


def test_the_boot_order_states_the_boot_disk():
    slots = [Slot("scsi", 0, 0), Slot("scsi", 1, 0)]
    assert boot_disk(slots, [Slot("scsi", 1, 0)]) == (1, None)
    # a stated slot the VM has no disk at is passed over, as the firmware passes it over
    assert boot_disk(slots, [Slot("ide", 0, 0), Slot("scsi", 1, 0)]) == (1, None)


def test_without_a_stated_disk_the_first_by_bus_then_unit_is_assumed():
    index, assumption = boot_disk([Slot("scsi", 1, 0), Slot("scsi", 0, 2), Slot("scsi", 0, 1)])
    assert index == 2
    assert assumption is not None and "scsi0:1" in assumption and "assumed" in assumption
    # equal places: the reader's own order decides
    assert boot_disk([Slot("ide", 0, 0), Slot("scsi", 0, 0)])[0] == 0
    assert boot_disk([]) == (None, None)


def test_mark_boot_disk_gives_only_the_boot_disk_a_role():
    disks = [{"controller": "pvscsi", "bus": 1}, {"controller": "lsisas", "bus": 0}]
    assert mark_boot_disk(disks, [Slot("scsi", 1, 0), Slot("scsi", 0, 0)], [Slot("scsi", 1, 0)]) is None
    assert disks == [{"controller": "pvscsi", "bus": 1, "role": "os"}, {"controller": "lsisas", "bus": 0}]


@pytest.mark.parametrize(("text", "slots"), [
    ("scsi0:1", [Slot("scsi", 0, 1)]),
    (" SCSI2:2, ide1:0 ,nvme0:3", [Slot("scsi", 2, 2), Slot("ide", 1, 0), Slot("nvme", 0, 3)]),
    ("hdd,cdrom,scsi:1,scsix:0,sata0:", []),
])
def test_hdd_order_values(text, slots):
    assert parse_slots(text) == slots


# --- vCenter: config.bootOptions.bootOrder -----------------------------------------------------

def _vm(devices, boot_order=None):
    props = {"name": "vm1", "runtime.host": NS(_moId="host-1"), "runtime.powerState": "poweredOn",
             "config.hardware.numCPU": 8, "config.hardware.numCoresPerSocket": 4, "config.hardware.memoryMB": 32768,
             "config.version": "vmx-19", "config.guestId": "windows2019srv_64Guest",
             "config.hardware.device": devices}
    if boot_order is not None:
        props["config.bootOptions"] = api("vim.vm.BootOptions", bootOrder=boot_order)
    return map_vm(Record("vm-1", props))


def _devices(*disks: tuple[str, int, int, int]):
    """(controller type, bus, unit, device key) per disk; controller keys 1000 + bus."""
    out, buses = [], sorted({(kind, bus) for kind, bus, _, _ in disks})
    out += [api(f"vim.vm.device.{kind}", key=1000 + bus, busNumber=bus) for kind, bus in buses]
    out += [api("vim.vm.device.VirtualDisk", key=key, controllerKey=1000 + bus, unitNumber=unit,
                capacityInKB=100 << 20) for _, bus, unit, key in disks]
    return out


def test_a_vms_only_disk_is_its_boot_disk_and_the_assumption_is_noted():
    vm, notes = _vm(_devices(("VirtualLsiLogicSASController", 0, 0, 2000)))
    assert vm["disks"] == [{"controller": "lsisas", "bus": 0, "size": "100GB", "role": "os"}]
    assert notes == ["VM vm1: boot disk not stated (no disk in the boot order): scsi0:0, the first disk by "
                     "controller bus and unit, is assumed to be the boot disk"]


def test_a_boot_order_naming_the_second_disk_makes_it_the_boot_disk_with_no_note():
    devices = _devices(("VirtualLsiLogicSASController", 0, 0, 2000), ("ParaVirtualSCSIController", 1, 0, 2001))
    order = [api("vim.vm.BootOptions.BootableCdromDevice"),
             api("vim.vm.BootOptions.BootableDiskDevice", deviceKey=2001)]
    vm, notes = _vm(devices, order)
    assert [d.get("role") for d in vm["disks"]] == [None, "os"] and notes == []
    # a boot order without a disk (network, then CD-ROM) leaves the disk to the assumption
    vm, notes = _vm(devices, [api("vim.vm.BootOptions.BootableEthernetDevice", deviceIndex=0)])
    assert [d.get("role") for d in vm["disks"]] == ["os", None] and len(notes) == 1 and "scsi0:0" in notes[0]


def test_a_live_estate_says_the_assumption_once_and_each_spec_file_names_its_vms():
    # Most VMs state no boot order: a line per VM in the run's notes would bury the report (200 VMs,
    # 200 lines); the run says it once with the count, the written spec file per VM.
    host = Record("host-1", {
        "name": "esx01", "runtime.connectionState": "connected", "summary.hardware.cpuModel": "Intel(R) Xeon(R) Gold",
        "hardware.cpuInfo": NS(numCpuPackages=2, numCpuCores=24, numCpuThreads=48, hz=2_900_000_000),
        "hardware.numaInfo": NS(numNodes=2), "hardware.memorySize": 512 << 30,
        "config.product": NS(version="8.0.2", fullName="VMware ESXi 8.0.2 build-1"),
        "config.powerSystemInfo.currentPolicy": NS(shortName="dynamic")})
    disks = _devices(("VirtualLsiLogicSASController", 0, 0, 2000))
    vms = []
    for i in range(200):
        props = {"name": f"vm{i:03d}", "runtime.host": NS(_moId="host-1"), "runtime.powerState": "poweredOn",
                 "config.hardware.numCPU": 4, "config.hardware.numCoresPerSocket": 4,
                 "config.hardware.memoryMB": 8192, "config.version": "vmx-19", "config.hardware.device": disks}
        vms.append(Record(f"vm-{i}", props))
    mapping = map_inventory(Inventory("vc", hosts=[host], vms=vms))
    (spec,) = mapping.specs
    boot_notes = [n for n in (*mapping.skipped, *spec.notes, *mapping.notes) if "boot disk" in n]
    assert boot_notes == ["boot disk not stated for 200 VMs (no disk in the boot order): the first disk by controller "
                          "bus and unit is assumed to be the boot disk (the spec files `advisor collect vcenter` "
                          "writes name each VM)"]
    written = [line for line in render(spec, "vc").splitlines() if "boot disk" in line]
    assert len(written) == 200 and written[0].startswith("# Note: VM vm000: boot disk not stated")


def _spec(vm: dict) -> str:
    return json.dumps({"host": "hp-dl580-g7", "vms": [vm]})


def _rules(cli, path) -> list[str]:
    result = cli("check", path, "--format", "json", "--fail-on", "never")
    assert result.code == 0, result.err
    return sorted(f["rule"] for f in json.loads(result.out)["findings"])


def test_the_live_path_does_not_call_a_boot_disk_on_lsi_sas_a_data_disk(cli, tmp_path):
    one = tmp_path / "one.yaml"
    one.write_text(_spec(_vm(_devices(("VirtualLsiLogicSASController", 0, 0, 2000)))[0]))
    assert "STO001" not in _rules(cli, one)
    # the second disk on LSI SAS is a data disk, so STO001 stays for it
    two = tmp_path / "two.yaml"
    two.write_text(_spec(_vm(_devices(("VirtualLsiLogicSASController", 0, 0, 2000),
                                      ("VirtualLsiLogicSASController", 0, 1, 2001)))[0]))
    assert "STO001" in _rules(cli, two)


# --- templates: .vmx bios.hddOrder -------------------------------------------------------------

_VMX = """\
.encoding = "UTF-8"
config.version = "8"
virtualHW.version = "19"
guestOS = "windows2019srv-64"
numvcpus = "4"
memsize = "16384"
scsi0.present = "TRUE"
scsi0.virtualDev = "lsisas1068"
scsi0:0.present = "TRUE"
scsi0:0.fileName = "data.vmdk"
scsi1.present = "TRUE"
scsi1.virtualDev = "pvscsi"
scsi1:0.present = "TRUE"
scsi1:0.fileName = "boot.vmdk"
"""


def _template_disks(tmp_path, text: str) -> list[dict]:
    path = tmp_path / "vm.vmx"
    path.write_text(text)
    [template] = read_template(path)
    return template_fields(template)[0]["disks"]


def test_a_templates_hdd_order_states_the_boot_disk(tmp_path):
    assert [d["role"] for d in _template_disks(tmp_path, _VMX)] == ["os", "data"]
    stated = _VMX + 'bios.bootOrder = "hdd"\nbios.hddOrder = "scsi1:0"\n'
    assert [d["role"] for d in _template_disks(tmp_path, stated)] == ["data", "os"]


def test_the_template_assumption_is_the_lowest_bus_not_the_file_order(tmp_path):
    # scsi1:0 written before scsi0:0: the first disk by bus is scsi0:0
    text = _VMX.replace("scsi0", "scsiX").replace("scsi1", "scsi0").replace("scsiX", "scsi1")
    assert [(d["controller"], d["role"]) for d in _template_disks(tmp_path, text)] == [
        ("lsisas", "data"), ("pvscsi", "os")]


def test_lint_warns_sto001_only_for_the_disk_the_boot_order_leaves_as_data(cli, tmp_path):
    path = tmp_path / "vm.vmx"
    for text, warned in ((_VMX, False), (_VMX + 'bios.hddOrder = "scsi1:0"\n', True)):
        path.write_text(text)
        result = cli("lint", path, "--format", "json", "--fail-on", "never")
        assert result.code == 0, result.err
        rules = {f["rule"] for f in json.loads(result.out)["findings"]}
        assert ("STO001" in rules) is warned, text
