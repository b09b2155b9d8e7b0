"""Every finding points at the line and column of the value that caused it, in every reader.

Rules whose evidence is an advanced (`.vmx`) key - a host-bound device (HOST006), an intrMode
workaround (NET002), a limit (MEM003) - point at that key's value whether it is written in a
.vmx, a Packer template (HCL, HCL-JSON, legacy JSON), Terraform (HCL, JSON) or an OVF
ExtraConfig element; the column is the value's (an OVF element's start), counted in characters.
Also here: `${local.x}` in JSON templates, and which variable files Packer loads by itself.
"""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from advisor.readers import read_template

KEYS = (("serial0.present", "TRUE"), ("serial0.fileType", "device"), ("ethernet0.intrMode", "1"),
        ("sched.mem.max", "100"))


def _hcl_map(indent: str) -> str:
    return "".join(f'{indent}"{key}" = "{value}"\n' for key, value in KEYS)


def _json_map() -> str:
    return ",\n".join(f'      "{key}": "{value}"' for key, value in KEYS)


TEMPLATES = {
    "a.vmx": 'config.version = "8"\nvirtualHW.version = "13"\ndisplayName = "é"\nnumvcpus = "2"\n'
             'memsize = "4096"\nethernet0.present = "TRUE"\nethernet0.virtualDev = "vmxnet3"\n'
             + "".join(f'{key} =   "{value}"\n' for key, value in KEYS),
    "main.tf": 'resource "vsphere_virtual_machine" "vm" {\n  num_cpus = 2\n  memory   = 4096\n'
               '  extra_config = {\n' + _hcl_map("    ") + "  }\n}\n",
    "main.tf.json": '{"resource": {"vsphere_virtual_machine": {"vm": {\n  "num_cpus": 2, "memory": 4096,\n'
                    '  "extra_config": {\n' + _json_map() + "\n}}}}}\n",
    "a.pkr.hcl": 'source "vsphere-iso" "vm" {\n  CPUs = 2\n  RAM  = 4096\n'
                 '  configuration_parameters = {\n' + _hcl_map("    ") + "  }\n}\n",
    "a.pkr.json": '{"source": {"vsphere-iso": {"vm": {\n  "CPUs": 2, "RAM": 4096,\n'
                  '  "configuration_parameters": {\n' + _json_map() + "\n}}}}}\n",
    "legacy.json": '{"builders": [{"type": "vmware-iso", "cpus": 2, "memory": 4096,\n'
                   '  "network_adapter_type": "vmxnet3",\n  "vmx_data": {\n' + _json_map() + "\n}}]}\n",
    "a.ovf": """<?xml version="1.0"?>
<Envelope xmlns="http://schemas.dmtf.org/ovf/envelope/1" xmlns:ovf="http://schemas.dmtf.org/ovf/envelope/1"
  xmlns:vmw="http://www.vmware.com/schema/ovf"
  xmlns:rasd="http://schemas.dmtf.org/wbem/wscim/1/cim-schema/2/CIM_ResourceAllocationSettingData">
  <VirtualSystem ovf:id="vm">
    <VirtualHardwareSection>
      <Item><rasd:InstanceID>1</rasd:InstanceID><rasd:ResourceType>3</rasd:ResourceType><rasd:VirtualQuantity>2</rasd:VirtualQuantity></Item>
      <Item><rasd:AllocationUnits>byte * 2^20</rasd:AllocationUnits><rasd:InstanceID>2</rasd:InstanceID>
        <rasd:ResourceType>4</rasd:ResourceType><rasd:VirtualQuantity>4096</rasd:VirtualQuantity></Item>
""" + "".join(f'      <!-- é --> <vmw:ExtraConfig vmw:key="{key}" vmw:value="{value}"/>\n' for key, value in KEYS)
    + """    </VirtualHardwareSection>
  </VirtualSystem>
</Envelope>
""",
}


def where(text: str, key: str, name: str) -> tuple[int, int]:
    """(line, column) of the value of `key` in the fixture: its opening quote, or the OVF element."""
    for number, line in enumerate(text.split("\n"), 1):
        if f'"{key}"' in line or f"{key} =" in line:
            if name.endswith(".ovf"):
                return number, line.index("<vmw:ExtraConfig") + 1
            after = line.index(key) + len(key) + 1  # past the key and its closing quote, if any
            return number, line.index('"', after) + 1
    raise AssertionError(key)


def lint(cli, *args: object) -> dict:
    result = cli("lint", *args, "--vsphere", "8.0", "--format", "json", "--fail-on", "never")
    assert result.code == 0, result.err
    return json.loads(result.out)


@pytest.mark.parametrize("name", sorted(TEMPLATES))
def test_advanced_key_findings_point_at_the_keys_value(tmp_path, cli, name):
    text = TEMPLATES[name]
    path = tmp_path / name
    path.write_text(text, encoding="utf-8")
    report = lint(cli, path)
    got = {f["rule"]: (f["line"], f.get("column")) for f in report["findings"]}
    assert got["HOST006"] == where(text, "serial0.fileType", name)
    assert got["NET002"] == where(text, "ethernet0.intrMode", name)
    assert got["MEM003"] == where(text, "sched.mem.max", name)
    # The fix edits the key where the template writes it, not the argument that could also set it.
    limit = next(f for f in report["findings"] if f["rule"] == "MEM003")
    assert list(limit["fix"].get("template", {})) == PASSTHROUGH[name]


PASSTHROUGH = {
    "a.vmx": [],
    "main.tf": ['extra_config["sched.mem.max"]'],
    "main.tf.json": ['extra_config["sched.mem.max"]'],
    "a.pkr.hcl": ['configuration_parameters["sched.mem.max"]'],
    "a.pkr.json": ['configuration_parameters["sched.mem.max"]'],
    "legacy.json": ['vmx_data["sched.mem.max"]'],
    "a.ovf": ['vmw:ExtraConfig ovf:key="sched.mem.max"'],
}


def test_a_limit_set_by_its_argument_is_fixed_there(tmp_path, cli):
    path = tmp_path / "main.tf"
    path.write_text('resource "vsphere_virtual_machine" "vm" {\n  num_cpus = 2\n  memory = 4096\n'
                    '  memory_limit = 100\n}\n', encoding="utf-8")
    limit = next(f for f in lint(cli, path)["findings"] if f["rule"] == "MEM003")
    assert (limit["line"], limit["column"], limit["fix"]["template"]) == (4, 18, {"memory_limit": "REMOVE"})


def test_a_list_of_keys_points_at_the_first_in_the_file(tmp_path, cli):
    text = TEMPLATES["a.vmx"] + 'floppy0.present = "TRUE"\nfloppy0.fileType = "device"\n'
    path = tmp_path / "two.vmx"
    path.write_text(text, encoding="utf-8")
    host = next(f for f in lint(cli, path)["findings"] if f["rule"] == "HOST006")
    assert host["evidence"]["vm.host_bound_keys"] == ["floppy0.fileType", "serial0.fileType"]
    assert (host["line"], host["column"]) == where(text, "serial0.fileType", path.name)  # line 9, not 13
    path.write_text(text.replace('serial0.fileType =   "device"', 'serial0.fileType = "file"'), encoding="utf-8")
    host = next(f for f in lint(cli, path)["findings"] if f["rule"] == "HOST006")
    assert (host["line"], host["column"]) == (13, 20)  # floppy0.fileType, the only host-bound device now


def test_columns_reach_every_output(tmp_path, cli):
    text = TEMPLATES["main.tf.json"]
    path = tmp_path / "main.tf.json"
    path.write_text(text, encoding="utf-8")
    line, column = where(text, "serial0.fileType", path.name)
    sarif = json.loads(cli("lint", path, "--vsphere", "8.0", "--format", "sarif", "--fail-on", "never").out)
    regions = [r["locations"][0]["physicalLocation"]["region"] for r in sarif["runs"][0]["results"]
               if r["ruleId"] == "HOST006"]
    assert regions == [{"startLine": line, "startColumn": column}]
    github = cli("lint", path, "--vsphere", "8.0", "--format", "github", "--fail-on", "never").out
    assert f"line={line},col={column}," in next(row for row in github.splitlines() if "HOST006" in row)
    quiet = cli("lint", path, "--vsphere", "8.0", "-q", "--fail-on", "never").out
    assert f"{path}:{line}:{column}: HOST006" in quiet


# ============================================================================================
# Values from locals and variable files
# ============================================================================================


def test_locals_resolve_in_terraform_and_packer_json(tmp_path):
    tf = tmp_path / "tf" / "main.tf.json"
    tf.parent.mkdir()
    tf.write_text('{"locals": {"cpus": 8}, "resource": {"vsphere_virtual_machine": {"vm": {\n'
                  '  "num_cpus": "${local.cpus}", "memory": "${local.missing}"}}}}\n', encoding="utf-8")
    (tf.parent / "other.tf.json").write_text('{"locals": [{"ram": 4096}]}', encoding="utf-8")
    vm = read_template(tf)[0]
    assert vm.get("numvcpus").value == "8"
    assert vm.get("memsize").value is None  # an undefined local stays unknown
    tf.write_text(tf.read_text().replace("local.missing", "local.ram"), encoding="utf-8")
    assert read_template(tf)[0].get("memsize").value == "4096"  # a local of another file of the module
    pk = tmp_path / "pk" / "a.pkr.json"
    pk.parent.mkdir()
    pk.write_text('{"locals": {"ram": 2048}, "source": {"vsphere-iso": {"a": {"RAM": "${local.ram}"}}}}',
                  encoding="utf-8")
    assert read_template(pk)[0].get("memsize").value == "2048"


def _packer_folder(tmp_path: Path) -> Path:
    folder = tmp_path / "build"
    folder.mkdir()
    (folder / "a.pkr.hcl").write_text('source "vsphere-iso" "a" {\n  CPUs = var.cpus\n  RAM = var.ram\n}\n',
                                      encoding="utf-8")
    (folder / "variables.pkr.json").write_text('{"variable": {"cpus": {"default": 2}, "ram": {"default": 1024}}}',
                                               encoding="utf-8")
    (folder / "b.auto.pkrvars.hcl").write_text("cpus = 4\nram = 4096\n", encoding="utf-8")
    (folder / "a.auto.pkrvars.json").write_text('{"cpus": 6, "ram": 8192}', encoding="utf-8")
    (folder / "manual.pkrvars.hcl").write_text("cpus = 16\n", encoding="utf-8")
    return folder / "a.pkr.hcl"


def test_packer_folder_loads_its_auto_variable_files_in_packers_order(tmp_path):
    """hashicorp/packer (read at 856572ec) hcl2template/parser.go, Parser.Parse: the folder's
    *.pkr.hcl and *.pkr.json make one configuration; then the *.auto.pkrvars.hcl files, then the
    *.auto.pkrvars.json files, then -var-file; a var file not named *.auto.* loads only through
    -var-file."""
    vm = read_template(_packer_folder(tmp_path))[0]
    assert (vm.get("numvcpus").value, vm.get("memsize").value) == ("6", "8192")  # JSON after HCL
    manual = tmp_path / "build" / "manual.pkrvars.hcl"
    vm = read_template(tmp_path / "build" / "a.pkr.hcl", var_files=[(manual, manual.read_bytes())])
    assert vm[0].get("numvcpus").value == "16"


def test_a_named_packer_file_loads_no_auto_variable_file(tmp_path):
    """hashicorp/packer hcl2template/utils.go, GetHCL2Files: for a file argument (not a folder)
    it returns that file alone, and Parser.Parse calls it with the *.auto.pkrvars suffixes, so
    `packer build a.pkr.hcl` loads no auto variable file and no sibling's variables."""
    vm = read_template(_packer_folder(tmp_path), named=True)[0]
    assert (vm.get("numvcpus").value, vm.get("memsize").value) == (None, None)


@pytest.mark.parametrize(("name", "text"), [
    ("main.tf", 'resource "vsphere_virtual_machine" "vm" {\n  num_cpus = 2\n  memory = 2048\n'
                '  dynamic "network_interface" {\n    for_each = var.nets\n    content {\n'
                '      network_id = network_interface.value\n    }\n  }\n}\n'),
    ("a.pkr.hcl", 'source "vsphere-iso" "vm" {\n  CPUs = 2\n  RAM = 2048\n'
                  '  dynamic "network_adapters" {\n    for_each = var.nets\n    content {\n'
                  '      network_card = "e1000"\n    }\n  }\n}\n'),
])
def test_adapters_from_a_dynamic_block_are_unknown_not_absent(tmp_path, name, text):
    from advisor.engine.lint import template_subject

    path = tmp_path / name
    path.write_text(text, encoding="utf-8")
    vm = read_template(path)[0]
    subject = template_subject(vm)
    assert subject.vm.nics == [] and "nics" in subject.unknown
    assert sum("dynamic" in note for note in vm.notes) == 1


def test_a_client_device_is_not_the_hosts_hardware(tmp_path, cli):
    """`clientDevice = TRUE`: the CD drive of the machine running the console, not the host's."""
    base = TEMPLATES["a.vmx"].replace('serial0.fileType =   "device"', 'serial0.fileType = "file"')
    path = tmp_path / "cd.vmx"
    path.write_text(base + 'ide1:0.present = "TRUE"\nide1:0.deviceType = "atapi-cdrom"\n', encoding="utf-8")
    assert "HOST006" in [f["rule"] for f in lint(cli, path)["findings"]]
    path.write_text(path.read_text() + 'ide1:0.clientDevice = "TRUE"\n', encoding="utf-8")
    assert "HOST006" not in [f["rule"] for f in lint(cli, path)["findings"]]


def test_a_disk_finding_points_at_the_controller_type_value(tmp_path, cli):
    path = tmp_path / "d.tf"
    path.write_text('resource "vsphere_virtual_machine" "v" {\n  num_cpus = 2\n  memory   = 4096\n'
                    '  scsi_type = "lsilogic"\n  disk {\n    label = "a"\n  }\n  disk {\n    label = "b"\n'
                    '    unit_number = 1\n  }\n}\n', encoding="utf-8")
    disk = next(f for f in lint(cli, path)["findings"] if f["rule"] == "STO001")
    assert (disk["line"], disk["column"]) == (4, 15)


def test_vmx_value_columns_count_lines_as_the_reader_splits_them():
    from advisor.readers.vmxfile import _value_columns

    data = '\ufeffa = "1"\r\n  bb\t= "é"\n# c\nbare = x\n\nlast =  "z"'.encode()
    column = _value_columns(data, "utf-8")
    expected = [None, 5, 8, None, 8, None, 9, None]
    assert [column(n) for n in range(0, 8)] == expected
    # The first line a template is asked for is split off alone: the same answers.
    assert [_value_columns(data, "utf-8")(n) for n in range(0, 8)] == expected
    assert _value_columns(data, "utf-8")(-1) is None
