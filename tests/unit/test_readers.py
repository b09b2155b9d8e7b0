"""Tests for the OVF/OVA, Packer and Terraform readers and the reader dispatcher.

Each reader promises `.vmx`-equivalent keys with the line they came from, and "unknown" (value
None, source text kept, a note) for anything computed; these tests pin concrete values and
lines on small fixtures, the hostile-input refusals, and that the real-world corpus reads.
"""

from __future__ import annotations

import io
import os
import subprocess
import sys
import tarfile
from collections import Counter
from pathlib import Path

import pytest
from conftest import require_shared

from advisor.errors import InputError
from advisor.readers import READERS, UNKNOWN_FORMAT, detect, find_templates, read_template
from advisor.readers.base import TemplateVM

FIXTURES = Path(__file__).resolve().parents[1] / "fixtures" / "templates"


def values(vm: TemplateVM) -> dict[str, str | None]:
    return {key: setting.value for key, setting in vm.settings.items()}


def line(vm: TemplateVM, key: str) -> int | None:
    setting = vm.get(key)
    assert setting is not None, f"{key} not read"
    return setting.line


def by_name(vms: list[TemplateVM]) -> dict[str, TemplateVM]:
    return {vm.name: vm for vm in vms}


def read_text(tmp_path: Path, name: str, text: str | bytes) -> list[TemplateVM]:
    """Write `text` to tmp_path/name and read it on its own (no sibling files)."""
    path = tmp_path / name
    path.write_bytes(text.encode() if isinstance(text, str) else text)
    return read_template(path, siblings=())


def assert_unknown(vm: TemplateVM, key: str, raw_part: str) -> None:
    """The key is present, unknown, keeps its source text, and a note says so."""
    setting = vm.get(key)
    assert setting is not None, f"{key} not recorded"
    assert setting.value is None
    assert setting.raw is not None and raw_part in setting.raw
    assert any(raw_part in note and "unknown" in note for note in vm.notes), vm.notes


# ============================================================================================
# OVF / OVA
# ============================================================================================


def test_ovf1_with_vmware_extensions():
    (vm,) = read_template(FIXTURES / "ovf" / "ovf1-vmw.ovf")
    assert (vm.name, vm.kind, vm.line) == ("app01", "ovf", 15)
    got = values(vm)
    assert got["guestos"] == "ubuntu64Guest"
    assert got["virtualhw.version"] == "13"
    assert (got["numvcpus"], line(vm, "numvcpus")) == ("8", 33)
    assert (got["cpuid.corespersocket"], line(vm, "cpuid.coresPerSocket")) == ("4", 34)
    assert (got["memsize"], line(vm, "memsize")) == ("16384", 41)
    assert got["sched.cpu.min"] == "2000" and got["sched.mem.min"] == "4096"
    assert got["scsi0.virtualdev"] == "pvscsi"
    assert got["scsi0:0.present"] == "TRUE"
    assert got["advisor.disk0.size"] == "40960"  # 40 GiB from the DiskSection, in MB
    assert got["ethernet0.virtualdev"] == "e1000"
    # vmw:Config keys become .vmx keys; vmw:ExtraConfig keys pass through as written.
    assert got["vcpu.hotadd"] == "TRUE" and got["mem.hotadd"] == "FALSE"
    assert got["firmware"] == "efi" and got["sched.cpu.shares"] == "high"
    assert (got["numa.vcpu.preferht"], line(vm, "numa.vcpu.preferHT")) == ("TRUE", 80)
    assert vm.spelling["numa.vcpu.preferht"] == "numa.vcpu.preferHT"
    assert vm.suppressions == [("NET001", "appliance vendor ships e1000", 2)]


def test_ovf2_without_vmware_namespace():
    (vm,) = read_template(FIXTURES / "ovf" / "ovf2-plain.ovf")
    got = values(vm)
    assert vm.name == "plain"
    assert got["virtualhw.version"] == "19"  # "vmx-17 vmx-19": the newest
    assert got["memsize"] == "8192"  # 8 in units of byte * 2^30
    assert got["scsi0.virtualdev"] == "lsisas1068"
    assert (got["scsi0:1.present"], line(vm, "scsi0:1.present")) == ("TRUE", 40)  # sasd StorageItem
    assert got["advisor.disk0.size"] == "20480"
    assert got["ethernet0.virtualdev"] == "vmxnet3" and got["ethernet1.virtualdev"] == "vlance"
    assert "guestos" not in got
    assert any("guest OS given only as 'Ubuntu 64-bit'" in note for note in vm.notes)


def test_ovf_0_9_generic_sections_and_instanceid_spelling():
    (vm,) = read_template(FIXTURES / "ovf" / "ovf09-vmw.ovf")
    got = values(vm)
    assert vm.name == "legacy09"
    assert got["virtualhw.version"] == "4"
    assert got["numvcpus"] == "2"
    assert got["memsize"] == "1024"  # "MegaBytes"
    # OVF 0.9 writes rasd:InstanceId: the disk still finds its controller.
    assert got["scsi0.virtualdev"] == "buslogic"
    assert (got["scsi0:0.present"], line(vm, "scsi0:0.present")) == ("TRUE", 40)
    assert got["advisor.disk0.size"] == "8192"
    assert got["ethernet0.virtualdev"] == "vmxnet"


def test_ovf_collection_placeholder_and_deployment_option():
    vms = by_name(read_template(FIXTURES / "ovf" / "collection.ovf"))
    assert list(vms) == ["web", "db"]  # nested collections flattened in document order
    web, db = vms["web"], vms["db"]
    assert values(web)["numvcpus"] == "6"
    assert any("deployment option 'large'" in note for note in web.notes)
    assert web.suppressions == [("CPU004", "sized by the vendor", 15)]
    assert_unknown(db, "memsize", "${memory_mb}")
    assert line(db, "memsize") == 42


def test_ovf_deployment_option_default_is_read(tmp_path):
    ovf = """<?xml version="1.0"?>
<Envelope xmlns="http://schemas.dmtf.org/ovf/envelope/1" xmlns:ovf="http://schemas.dmtf.org/ovf/envelope/1"
  xmlns:rasd="http://schemas.dmtf.org/wbem/wscim/1/cim-schema/2/CIM_ResourceAllocationSettingData">
  <DeploymentOptionSection>
    <Configuration ovf:id="big"/>
    <Configuration ovf:id="small" ovf:default="true"/>
  </DeploymentOptionSection>
  <VirtualSystem ovf:id="vm">
    <VirtualHardwareSection>
      <Item ovf:configuration="big">
        <rasd:InstanceID>1</rasd:InstanceID><rasd:ResourceType>3</rasd:ResourceType>
        <rasd:VirtualQuantity>16</rasd:VirtualQuantity>
      </Item>
      <Item ovf:configuration="small">
        <rasd:InstanceID>1</rasd:InstanceID><rasd:ResourceType>3</rasd:ResourceType>
        <rasd:VirtualQuantity>2</rasd:VirtualQuantity>
      </Item>
      <Item ovf:bound="max">
        <rasd:InstanceID>2</rasd:InstanceID><rasd:ResourceType>4</rasd:ResourceType>
        <rasd:AllocationUnits>byte * 2^20</rasd:AllocationUnits><rasd:VirtualQuantity>99999</rasd:VirtualQuantity>
      </Item>
    </VirtualHardwareSection>
  </VirtualSystem>
</Envelope>
"""
    (vm,) = read_text(tmp_path, "opts.ovf", ovf)
    assert (values(vm)["numvcpus"], line(vm, "numvcpus")) == ("2", 16)
    assert "memsize" not in values(vm)  # a bound="max" range item is not the value


def _tar(members: list[tuple[str, bytes]]) -> bytes:
    buffer = io.BytesIO()
    with tarfile.open(fileobj=buffer, mode="w") as archive:
        for name, data in members:
            info = tarfile.TarInfo(name)
            info.size = len(data)
            archive.addfile(info, io.BytesIO(data))
    return buffer.getvalue()


EVIL_OVF = (b'<Envelope xmlns="http://schemas.dmtf.org/ovf/envelope/1" '
            b'xmlns:ovf="http://schemas.dmtf.org/ovf/envelope/1"><VirtualSystem ovf:id="evil"/></Envelope>')


def test_ova_skips_traversal_members_and_reads_the_descriptor(tmp_path):
    good = (FIXTURES / "ovf" / "ovf2-plain.ovf").read_bytes()
    ova = tmp_path / "appliance.ova"
    ova.write_bytes(_tar([("../evil.ovf", EVIL_OVF), ("/abs/evil.ovf", EVIL_OVF),
                          ("appliance.ovf", good), ("disk1.vmdk", b"\0" * 1024)]))
    (vm,) = read_template(ova)
    assert vm.name == "plain"
    assert values(vm)["numvcpus"] == "4"
    assert not (tmp_path.parent / "evil.ovf").exists()  # read in memory, never extracted


def test_ova_with_only_unsafe_members_is_refused(tmp_path):
    ova = tmp_path / "bad.ova"
    ova.write_bytes(_tar([("../evil.ovf", EVIL_OVF)]))
    with pytest.raises(InputError, match=r"holds no \.ovf descriptor") as info:
        read_template(ova)
    assert "bad.ova" in str(info.value)


def test_ova_that_is_not_a_tar_is_refused(tmp_path):
    with pytest.raises(InputError, match="not a readable OVA"):
        read_text(tmp_path, "junk.ova", b"this is not a tar archive")


def test_ovf_billion_laughs_is_refused_without_expansion(tmp_path):
    entities = "".join(f'<!ENTITY l{i} "{f"&l{i - 1};" * 10}">\n' for i in range(1, 10))
    bomb = f'<?xml version="1.0"?>\n<!DOCTYPE Envelope [\n<!ENTITY l0 "lol">\n{entities}]>\n<Envelope>&l9;</Envelope>'
    import tracemalloc

    tracemalloc.start()
    try:
        with pytest.raises(InputError, match="entity declarations are not allowed") as info:
            read_text(tmp_path, "bomb.ovf", bomb)
        peak = tracemalloc.get_traced_memory()[1]
    finally:
        tracemalloc.stop()
    assert peak < 16 * 1024 * 1024  # the expansion would be 3 GB: refused before any of it is built
    assert info.value.line == 3 and "bomb.ovf" in str(info.value)


def test_ovf_external_entity_is_refused(tmp_path):
    xxe = '<?xml version="1.0"?>\n<!DOCTYPE x [<!ENTITY e SYSTEM "file:///etc/passwd">]>\n<Envelope>&e;</Envelope>'
    with pytest.raises(InputError, match="not allowed"):
        read_text(tmp_path, "xxe.ovf", xxe)


@pytest.mark.parametrize(("text", "message", "line_no"), [
    ("<Envelope>\n  <VirtualSystem>\n</Envelope>", "XML syntax error", 3),
    ("<html/>", "root element is <html>", 1),
    ("", "XML syntax error", 1),
])
def test_ovf_bad_xml_is_an_input_error_with_line(tmp_path, text, message, line_no):
    with pytest.raises(InputError, match=message) as info:
        read_text(tmp_path, "bad.ovf", text)
    assert info.value.line == line_no


# ============================================================================================
# Packer
# ============================================================================================


def test_packer_legacy_json_builders():
    vms = read_template(FIXTURES / "packer" / "legacy.json", siblings=())
    assert [vm.name for vm in vms] == ["base", "vmware-iso"]  # the docker builder is not a VM
    base, desktop = vms
    got = values(base)
    assert (got["numvcpus"], line(base, "numvcpus")) == ("4", 14)  # {{user `cpus`}} -> "4"
    assert base.get("numvcpus").raw == "{{user `cpus`}}"
    assert any("using 4 from the template's variables" in note for note in base.notes)
    assert got["cpuid.corespersocket"] == "2" and got["memsize"] == "8192"
    assert got["sched.mem.pin"] == "TRUE"
    assert_unknown(base, "vcpu.hotadd", "{{user `hotplug`}}")  # no such variable
    assert got["firmware"] == "efi" and got["uefi.secureboot.enabled"] == "TRUE"  # efi-secure
    assert got["scsi0.virtualdev"] == "pvscsi" and got["nvme0.present"] == "TRUE"
    assert got["scsi0:0.present"] == "TRUE" and got["nvme0:0.present"] == "TRUE"
    assert got["advisor.disk0.size"] == "40960" and got["advisor.disk1.size"] == "102400"
    assert got["ethernet0.virtualdev"] == "vmxnet3" and got["ethernet1.virtualdev"] == "e1000e"
    assert (got["numa.nodeaffinity"], line(base, "numa.nodeAffinity")) == ("0", 31)
    # A variable whose own value is a template ({{env}}) is not a literal: unknown.
    assert_unknown(base, "guestinfo.token", "{{user `token`}}")
    assert base.suppressions == [("MEM002", "build VM only", 2)]

    got = values(desktop)
    # vmx_data is applied last, so it overrides memory and network_adapter_type.
    assert (got["memsize"], line(desktop, "memsize")) == ("6144", 50)
    assert (got["ethernet0.virtualdev"], line(desktop, "ethernet0.virtualDev")) == ("vmxnet3", 51)
    assert got["scsi0.virtualdev"] == "lsisas1068"
    assert [got[f"scsi0:{u}.present"] for u in range(3)] == ["TRUE"] * 3
    assert got["advisor.disk2.size"] == "10240"


def test_packer_hcl2_sources():
    vms = by_name(read_template(FIXTURES / "packer" / "vsphere.pkr.hcl", siblings=()))
    assert list(vms) == ["tpl-linux", "from-template"]  # the null source is skipped
    tpl, clone = vms["tpl-linux"], vms["from-template"]
    got = values(tpl)
    assert (got["numvcpus"], line(tpl, "numvcpus")) == ("4", 17)  # the variable's default
    assert_unknown(tpl, "memsize", "var.ram")  # declared without a default
    assert got["sched.cpu.min"] == "1000" and got["mem.hotadd"] == "TRUE"
    assert got["scsi0.virtualdev"] == "pvscsi"
    assert got["scsi0:0.present"] == "TRUE" and got["scsi0:1.present"] == "TRUE"
    assert got["advisor.disk0.size"] == "40960"  # local.disk_mb = 40 * 1024: literal arithmetic
    assert any("using 40960 from local.disk_mb" in note for note in tpl.notes)
    assert got["advisor.disk1.size"] == "8192"
    assert got["ethernet0.virtualdev"] == "vmxnet3"
    # configuration_parameters: quoted keys, values as .vmx strings.
    assert (got["tools.synctime"], line(tpl, "tools.syncTime")) == ("FALSE", 35)
    assert got["disk.enableuuid"] == "TRUE"
    assert ("CPU001", "template only", 38) in tpl.suppressions
    assert ("HW001", "pinned by the platform team", 1) in tpl.suppressions
    # RAM is not written: the clone keeps its source's memory, which this file cannot show.
    assert values(clone) == {"numvcpus": "2", "memsize": None, "advisor.disk0.size": "61440"}
    assert any("vsphere-clone clones" in note for note in clone.notes)


def test_packer_hcl_json_form():
    (vm,) = read_template(FIXTURES / "packer" / "source.pkr.json", siblings=())
    assert vm.name == "desk"
    got = values(vm)
    assert got["numvcpus"] == "2"
    assert (got["memsize"], line(vm, "memsize")) == ("2048", 9)
    assert_unknown(vm, "virtualHW.version", "${local.hw}")
    assert got["vhv.enable"] == "TRUE"


def test_packer_template_without_vmware_builders_has_no_vms():
    assert read_template(FIXTURES / "packer" / "docker-only.json", siblings=()) == []


def test_packer_variables_from_sibling_files():
    # variables.pkr.hcl gives defaults; site.auto.pkrvars.hcl overrides vm_mem.
    (vm,) = read_template(FIXTURES / "packer" / "withvars" / "build.pkr.hcl")
    got = values(vm)
    assert got["numvcpus"] == "2" and got["memsize"] == "8192"
    assert line(vm, "memsize") == 3  # the reference's line, in the file read
    assert any("using 8192 from site.auto.pkrvars.hcl" in note for note in vm.notes)
    assert got["sched.mem.min"] == "1024"
    # Read alone, the same references are unknown.
    (alone,) = read_template(FIXTURES / "packer" / "withvars" / "build.pkr.hcl", siblings=())
    assert_unknown(alone, "memsize", "var.vm_mem")


def test_packer_hcl_quoting_escapes_and_heredoc(tmp_path):
    text = r'''source "vsphere-iso" "q" {
  vm_name = "quote\"d"
  configuration_parameters = {
    "guestinfo.a"    = "tab\there"
    "guestinfo.b"    = "$${not_interpolated}"
    "guestinfo.c"    = "\u00e9\\"
    guestinfo_d      = 1e3
    "guestinfo.e"    = "x-${var.suffix}"
    "guestinfo.f"    = <<-EOT
      heredoc text
    EOT
  }
}
'''
    (vm,) = read_text(tmp_path, "q.pkr.hcl", text)
    got = values(vm)
    assert vm.name == 'quote"d'
    assert got["guestinfo.a"] == "tab\there"
    assert got["guestinfo.b"] == "${not_interpolated}"
    assert got["guestinfo.c"] == "\u00e9\\"
    assert got["guestinfo_d"] == "1000"
    assert_unknown(vm, "guestinfo.e", "${var.suffix}")
    assert line(vm, "guestinfo.e") == 8
    assert got["guestinfo.f"] == "heredoc text\n"  # HCL keeps the last newline of a heredoc


def test_packer_legacy_duplicate_json_keys_last_wins(tmp_path):
    # JSON itself allows this; Packer (Go's encoding/json) and json.loads keep the last value.
    text = '{"builders": [{"type": "vmware-iso",\n "cpus": 1,\n "cpus": 3}]}'
    (vm,) = read_text(tmp_path, "dup.json", text)
    assert (values(vm)["numvcpus"], line(vm, "numvcpus")) == ("3", 3)


def test_packer_non_scalar_adapter_type_is_unknown(tmp_path):
    text = '{"builders": [{"type": "vmware-iso", "network_adapter_type": ["e1000"]}]}'
    (vm,) = read_text(tmp_path, "t.json", text)
    assert_unknown(vm, "ethernet0.virtualDev", "e1000")


@pytest.mark.parametrize(("name", "text", "message", "line_no"), [
    ("dup.pkr.hcl", 'source "vsphere-iso" "a" {\n  CPUs = 1\n  CPUs = 2\n}\n', "set twice", 3),
    ("dupkey.pkr.hcl", 'source "vsphere-iso" "a" {\n  configuration_parameters = {\n'
                       '    "a.b" = "1"\n    "a.b" = "2"\n  }\n}\n', "appears twice", 4),
    ("syntax.pkr.hcl", 'source "vsphere-iso" "a" {\n  CPUs = \n}\n', "HCL syntax error", 2),
    ("syntax.json", '{"builders": [\n  {"type": "vmware-iso",}\n]}', "JSON syntax error", 2),
    ("list.pkr.json", '[{"builders": []}]', "must hold an object", 1),
    ("builders.json", '{"builders": {"type": "vmware-iso"}}', "must be a list", 1),
    ("latin1.pkr.hcl", b'source "vsphere-iso" "a" {\n  vm_name = "\xe9"\n}\n', "not UTF-8", 2),
])
def test_packer_bad_input_is_an_input_error_with_line(tmp_path, name, text, message, line_no):
    with pytest.raises(InputError, match=message) as info:
        read_text(tmp_path, name, text)
    assert info.value.line == line_no
    assert name in str(info.value)


# ============================================================================================
# Terraform
# ============================================================================================


def test_terraform_literal_and_variable_values():
    vms = by_name(read_template(FIXTURES / "terraform" / "literal.tf", siblings=()))
    assert list(vms) == ["db", "web"]  # the vsphere_folder resource is not a VM
    db = vms["db"]
    got = values(db)
    assert (got["numvcpus"], line(db, "numvcpus")) == ("8", 17)  # var.cpus default
    assert got["cpuid.corespersocket"] == "4"
    assert (got["memsize"], line(db, "memsize")) == ("32768", 19)
    assert got["sched.mem.pin"] == "TRUE" and got["vcpu.hotadd"] == "FALSE"
    assert got["sched.cpu.latencysensitivity"] == "high"
    assert got["virtualhw.version"] == "19" and got["guestos"] == "rhel9_64Guest"
    assert got["sched.cpu.shares"] == "4000"  # custom level: the count is the value
    # scsi_controller_count = 2 and one scsi_type for both.
    assert got["scsi0.virtualdev"] == got["scsi1.virtualdev"] == "pvscsi"
    # unit_number 22 = controller 1, unit 7, shifted past the controller's own unit 7.
    assert (got["scsi1:8.present"], line(db, "scsi1:8.present")) == ("TRUE", 48)
    assert got["advisor.disk0.size"] == "40960"  # var.disks[0] = 40 GB
    assert got["advisor.disk1.size"] == "512000"
    assert got["ethernet0.virtualdev"] == "vmxnet3" and got["ethernet1.virtualdev"] == "sriov"
    assert got["numa.vcpu.preferht"] == "TRUE"
    assert_unknown(db, "guestinfo.userdata", "base64encode")
    assert db.suppressions == [("NET001", "file-wide: lab network", 14),
                               ("MEM003", "database needs pinned memory", 55)]

    web = vms["web"]
    assert_unknown(web, "numvcpus", "local.cpus * 2")
    assert_unknown(web, "memsize", "${var.memory}")
    assert web.count == 3 and not any(note.startswith("count") for note in web.notes)  # a literal count: 3 VMs
    assert any('dynamic "disk"' in note for note in web.notes)
    # The dynamic block's adapters exist with unknown types; the static adapter after it has no
    # knowable number, so it is left out.
    assert values(web)["ethernet0.virtualdev"] is None
    assert "ethernet1.present" not in values(web)
    assert any("follows a dynamic block" in note for note in web.notes)


def test_terraform_json_form():
    (vm,) = read_template(FIXTURES / "terraform" / "vm.tf.json", siblings=())
    got = values(vm)
    assert vm.name == "app"
    assert got["numvcpus"] == "2"
    assert (got["memsize"], line(vm, "memsize")) == ("4096", 10)
    assert_unknown(vm, "guestOS", "${data.x.guest_id}")
    assert got["ethernet1.virtualdev"] == "e1000e"
    assert got["scsi0:0.present"] == "TRUE" and got["advisor.disk0.size"] == "20480"
    assert got["a.b"] == "1"
    assert vm.suppressions == [("CPU001", "json comment", 8)]


def test_terraform_tfvars_siblings_and_for_each():
    (vm,) = read_template(FIXTURES / "terraform" / "withvars" / "main.tf")
    got = values(vm)
    # variables.tf default 2 < terraform.tfvars 8 < zz.auto.tfvars 16
    assert (got["numvcpus"], line(vm, "numvcpus")) == ("16", 4)
    assert any("using 16 from zz.auto.tfvars" in note for note in vm.notes)
    assert got["memsize"] == "4096"
    assert got["ethernet0.virtualdev"] == "vmxnet3"
    assert got["advisor.disk0.size"] == "61440"  # os_gb only in terraform.tfvars
    assert (got["numa.vcpu.maxpervirtualnode"], line(vm, "numa.vcpu.maxPerVirtualNode")) == ("4", 13)
    assert any(note.startswith("for_each = ") for note in vm.notes)


def test_terraform_tfvars_json_and_load_order(tmp_path):
    (tmp_path / "main.tf").write_text('resource "vsphere_virtual_machine" "v" {\n'
                                      "  num_cpus = var.a\n  memory = var.b\n  num_cores_per_socket = var.c\n}\n")
    (tmp_path / "terraform.tfvars").write_text("a = 1\nb = 1024\nc = 1\n")
    (tmp_path / "terraform.tfvars.json").write_text('{"a": 2, "b": 2048}')
    (tmp_path / "a.auto.tfvars").write_text("a = 4\n")
    (tmp_path / "other.tfvars").write_text("c = 99\n")  # not auto-loaded by Terraform
    (vm,) = read_template(tmp_path / "main.tf")
    got = values(vm)
    assert (got["numvcpus"], got["memsize"], got["cpuid.corespersocket"]) == ("4", "2048", "1")


def test_terraform_dynamic_blocks_and_null_arguments(tmp_path):
    text = '''resource "vsphere_virtual_machine" "v" {
  count        = var.n
  scsi_type    = null
  network_interface {
    adapter_type = ["vmxnet3"]
  }
  disk {
    label           = "a"
    size            = 10
    controller_type = null
  }
  dynamic "disk" {
    for_each = var.disks
    content {
      size = disk.value
    }
  }
  extra_config = {
    "${var.prefix}.x" = "1"
    "plain.key"        = "2"
  }
}
'''
    (vm,) = read_text(tmp_path, "main.tf", text)
    got = values(vm)
    assert "scsi0.virtualdev" not in got  # null: the provider's default, not filled in
    assert got["scsi0:0.present"] == "TRUE"  # controller_type null means scsi
    assert got["advisor.disk0.size"] == "10240"
    assert_unknown(vm, "ethernet0.virtualDev", "vmxnet3")
    assert got["plain.key"] == "2"
    assert any("extra_config key" in note and "${var.prefix}" in note for note in vm.notes)
    assert any(note.startswith("count = var.n") for note in vm.notes)
    assert any('dynamic "disk" block (line 12)' in note for note in vm.notes)


@pytest.mark.parametrize(("name", "text", "message", "line_no"), [
    ("s.tf", 'resource "vsphere_virtual_machine" "a" {\n  num_cpus = \n}\n', "HCL syntax error", 2),
    ("u.tf", 'resource "vsphere_virtual_machine" "a" {\n  num_cpus = 2\n', "unexpected end of file", 3),
    ("d.tf", 'resource "vsphere_virtual_machine" "a" {\n  memory = 1\n  memory = 2\n}\n', "set twice", 3),
    ("j.tf.json", '{"resource": {\n "a": }\n', "JSON syntax error", 2),
])
def test_terraform_bad_input_is_an_input_error_with_line(tmp_path, name, text, message, line_no):
    with pytest.raises(InputError, match=message) as info:
        read_text(tmp_path, name, text)
    assert info.value.line == line_no
    assert name in str(info.value)


def test_deeply_nested_input_is_refused(tmp_path):
    with pytest.raises(InputError, match="nested too deeply"):
        read_text(tmp_path, "deep.tf", "x = " + "[" * 3000 + "]" * 3000 + "\n")
    with pytest.raises(InputError, match="nested too deeply"):
        read_text(tmp_path, "deep.tf.json", '{"x": ' + "[" * 3000 + "]" * 3000 + "}")


# ============================================================================================
# Dispatcher
# ============================================================================================


@pytest.mark.parametrize(("name", "head", "expected"), [
    ("a.vmx", b"", "vmxfile"),
    ("A.VMTX", b"", "vmxfile"),
    ("a.ovf", b"", "ovf"),
    ("a.ova", b"", "ovf"),
    ("a.pkr.hcl", b"", "packer"),
    ("a.pkr.json", b"", "packer"),
    ("a.tf", b"", "terraform"),
    ("a.tf.json", b"", "terraform"),
    ("a.hcl", b"", "packer"),
    ("a.json", b'{"variables": {}, "builders": []}', "packer"),
    ("a.json", b'{"source": {"vsphere-iso": {}}}', "packer"),
    ("a.json", b'{"build": {}}', "packer"),
    ("a.json", b'{"resource": {"vsphere_virtual_machine": {"x": {}}}}', "terraform"),
    ("a.json", b'{"resource": {"aws_instance": {}}}', None),
    ("package.json", b'{"name": "x", "scripts": {"build": "tsc"}}', None),  # nested "build" is not top-level
    ("a.json", b"[1, 2]", None),
    ("terraform.tfvars", b"a = 1", None),
    ("x.auto.pkrvars.hcl", b"a = 1", None),
    ("README", b"hello", None),
])
def test_detect_by_name(name, head, expected):
    assert detect(Path(name), head) == expected


@pytest.mark.parametrize(("head", "expected"), [
    (b'<?xml version="1.0"?>\n<Envelope xmlns="http://schemas.dmtf.org/ovf/envelope/1">', "ovf"),
    (_tar([("x.ovf", b"<Envelope/>")])[:1024], "ovf"),
    (b'resource "vsphere_virtual_machine" "a" {\n}\n', "terraform"),
    (b'source "vsphere-iso" "a" {\n}\n', "packer"),
    (b'config.version = "8"\nnumvcpus = "2"\n', "vmxfile"),
    (b"just some text\n", None),
])
def test_detect_by_content(head, expected):
    assert detect(Path("download"), head) == expected


def test_readers_listed_in_order():
    assert READERS == ("vmxfile", "ovf", "packer", "terraform")


def test_unknown_format_is_an_input_error_naming_the_file(tmp_path):
    with pytest.raises(InputError) as info:
        read_text(tmp_path, "notes.txt", "hello\n")
    assert info.value.message == UNKNOWN_FORMAT
    assert info.value.file == str(tmp_path / "notes.txt")


def test_missing_file_and_directory_are_input_errors(tmp_path):
    with pytest.raises(InputError, match="no such file"):
        read_template(tmp_path / "absent.tf")
    (tmp_path / "folder.tf").mkdir()
    with pytest.raises(InputError, match="directory"):
        read_template(tmp_path / "folder.tf")


def test_data_given_is_not_read_from_disk(tmp_path):
    vms = read_template(tmp_path / "never-written.tf", b'resource "vsphere_virtual_machine" "m" {\n  memory = 512\n}\n',
                        siblings=())
    assert values(vms[0]) == {"memsize": "512"}


def test_importing_the_dispatcher_loads_no_reader():
    code = (
        "import sys, advisor.readers; "
        "print(sorted(m for m in sys.modules"
        " if m.startswith(('advisor.readers.', 'tree_sitter', 'pathspec', 'defusedxml'))))"
    )
    out = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, check=True).stdout
    # base (what readers return) and folder (a folder's files read once): neither reads a format
    assert out.strip() == "['advisor.readers.base', 'advisor.readers.folder']"


def _tree(root: Path, files: dict[str, str]) -> None:
    for name, text in files.items():
        path = root / name
        path.parent.mkdir(parents=True, exist_ok=True)
        path.write_text(text)


def test_find_templates_walks_sorted_and_skips(tmp_path):
    _tree(tmp_path, {
        "b/vm.vmx": 'config.version = "8"\n',
        "a/main.tf": "",
        "a/terraform.tfvars": "",
        "a/.terraform/modules/x/main.tf": "",
        ".git/hooks/x.ovf": "",
        "node_modules/pkg/x.ova": "",
        "c/package.json": '{"name": "x"}',
        "c/build.json": '{"builders": []}',
        "c/vault.hcl": 'storage "file" {}\n',
        "c/vm.pkr.hcl": "",
        "c/win.hcl": 'source "vsphere-iso" "w" {}\n',
        "c/readme.md": "",
        "d/appliance.OVF": "",
        "old/legacy.tf": "",
        "keep/x.bak.tf": "",
    })
    found = find_templates([tmp_path], excludes=["old/", "*.bak.tf"])
    assert [p.relative_to(tmp_path).as_posix() for p in found] == [
        "a/main.tf", "b/vm.vmx", "c/build.json", "c/vm.pkr.hcl", "c/win.hcl", "d/appliance.OVF",
    ]
    assert find_templates([tmp_path], excludes=["old/", "*.bak.tf"]) == found  # deterministic


def test_find_templates_returns_named_files_as_given(tmp_path):
    _tree(tmp_path, {"x/notes.txt": "", "x/main.tf": "", "x/skip.tf": ""})
    named = tmp_path / "x" / "notes.txt"
    found = find_templates([named, tmp_path / "x", named], excludes=["skip.tf", "notes.txt"])
    assert found == [named, tmp_path / "x" / "main.tf"]  # named files always kept, once each


@pytest.mark.parametrize("root", [".", "./", "x", "./x/", "x/../x", "ABS"])
def test_template_files_spell_each_file_as_its_path_does(tmp_path, monkeypatch, root):
    """Walks join names as text: the same files, in the same order, spelled as str(Path) spells
    them (no "./" lead, one separator), and a file named beside its folder comes once."""
    from advisor.readers import template_files

    _tree(tmp_path, {"x/b.vmx": "", "x/a.tf": "", "x/sub/c.ovf": "", "x/sub/deeper/d.vmx": "", "x/e.txt": ""})
    monkeypatch.chdir(tmp_path / "x" if root in (".", "./") else tmp_path)
    given = str(tmp_path / "x") if root == "ABS" else root
    named = Path(given) / "sub" / "c.ovf"
    files = template_files([named, Path(given), Path(given, ".", "b.vmx")], [])
    paths = find_templates([named, Path(given), Path(given, ".", "b.vmx")], [])
    assert files == [str(p) for p in paths]
    assert all(f == str(Path(f)) for f in files)
    top = "" if root in (".", "./") else os.path.join(str(Path(given)), "")
    assert files == [top + rel.replace("/", os.sep) for rel in
                     ("sub/c.ovf", "a.tf", "b.vmx", "sub/deeper/d.vmx")]


# ============================================================================================
# Corpus (third-party files, read in place)
# ============================================================================================


@pytest.mark.parametrize("folder", ["ovf", "packer", "terraform", "vmx"])
def test_corpus_reads_or_refuses_cleanly(shared_dir, folder):
    root = require_shared("corpus", folder)
    counts: Counter[str] = Counter()
    refusals: Counter[str] = Counter()
    for path in sorted(p for p in root.rglob("*") if p.is_file()):
        data = path.read_bytes()
        if detect(path, data[:65536]) is None:
            continue
        counts["recognised"] += 1
        try:
            read_template(path, data, siblings=())
        except InputError as exc:
            assert path.name in str(exc)
            counts["refused"] += 1
            refusals[exc.message] += 1
        else:
            counts["read"] += 1
    print(f"\ncorpus/{folder}: {counts['recognised']} recognised, {counts['read']} read, "
          f"{counts['refused']} refused {refusals.most_common(3)}")
    assert counts["recognised"] > 0
    assert counts["read"] >= 0.8 * counts["recognised"]


@pytest.mark.parametrize("spelled", ["advisor", "\\u0061dvisor", "adv\\u0069sor"])
def test_json_suppressions_are_found_however_the_word_is_escaped(tmp_path, spelled):
    """A JSON template whose text never spells "advisor" holds no suppression and is not walked
    for one (advisor.readers.suppress); a `\\u` escape can spell it, and is then read."""
    doc = ('{"builders": [{"type": "vsphere-iso", "CPUs": 2, "RAM": 2048,\n'
           f'  "_comment": "{spelled}: ignore NET001 -- lab only"}}]}}\n')
    (tmp_path / "t.json").write_text(doc)
    (tmp_path / "u.json").write_text(doc.replace(spelled, "someone"))
    (vm,) = read_template(tmp_path / "t.json", siblings=())
    assert vm.suppressions == [("NET001", "lab only", 2)]
    (plain,) = read_template(tmp_path / "u.json", siblings=())
    assert plain.suppressions == []
