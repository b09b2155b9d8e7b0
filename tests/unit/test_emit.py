"""Tests for advisor.emit: every format parses in its own tool's syntax and says what was asked.

Where advisor has a reader for the format (Terraform, Packer), the output is read back with it and
must give the same .vmx keys: that checks argument names and value formats against the same
mapping lint uses, not against a copy of it.
"""

from __future__ import annotations

import json
import re
import subprocess
from pathlib import Path

import hcl2
import pytest
import yaml
from conftest import require_tool, which
from forms import powershell_value

from advisor import emit
from advisor.emit import FORMATS, packer, powercli, vmxfrag
from advisor.emit import govc as govc_emit
from advisor.emit.guestid import api_guest_id
from advisor.errors import InputError, UsageError
from advisor.model.recommendation import DiskSize, RecommendedVM
from advisor.readers import packer as packer_reader
from advisor.readers import terraform as terraform_reader
from advisor.vmx.document import VmxDocument
from advisor.vmx.recommendation import from_vmx

SQL = {
    "numvcpus": "64", "cpuid.coresPerSocket": "1", "memsize": "262144", "numa.vcpu.preferHT": "TRUE",
    "scsi0.virtualDev": "pvscsi", "ethernet0.virtualDev": "vmxnet3", "sched.cpu.latencySensitivity": "normal",
    "sched.mem.min": "262144", "sched.mem.pin": "TRUE", "sched.cpu.min": "150000", "vcpu.hotadd": "FALSE",
    "mem.hotadd": "FALSE", "virtualHW.version": "19", "guestOS": "windows2019srv-64",
    "advisor.disk0.size": "102400",
}
MIXED = {
    "numvcpus": "6", "cpuid.coresPerSocket": "3", "memsize": "6000", "guestOS": "rhel9-64",
    "scsi0.virtualDev": "pvscsi", "scsi1.virtualDev": "lsisas1068", "ethernet0.virtualDev": "vmxnet3",
    "ethernet1.virtualDev": "e1000e", "sched.cpu.latencySensitivity": "high", "sched.mem.min": "4096",
    "ethernet0.coalescingScheme": "disabled", "annotation": 'has "quotes", ${braces} and = signs',
    "advisor.disk0.size": "40960", "advisor.disk1.size": "1000",
}
MINIMAL = {"numvcpus": "2", "memsize": "2048"}
SETTINGS = {"sql": SQL, "mixed": MIXED, "minimal": MINIMAL}
REASONS = {
    "numvcpus": ("CPU001", "fits one NUMA node"),
    "numa.vcpu.preferHT": ("NUMA002", "keep the VM on one socket\nwith its memory"),
    "scsi0.virtualDev": ("STO001", "PVSCSI for high I/O"),
}
NAMES = ["sql01", 'SQL "prod" 01', "O'Brien\u2019s VM", "web 01 [blue] *", "two\nlines; rm -rf /"]

_DISK_SIZE = re.compile(r"advisor\.disk(\d+)\.size")


def typed(name: str, settings: dict[str, str], reasons: dict[str, tuple[str, str]]) -> RecommendedVM:
    """The recommendation these .vmx keys state; the tables give disk N's size (MiB) as
    ``advisor.diskN.size``, which is no .vmx key, so it becomes a DiskSize."""
    disks = [DiskSize(int(m[1]), int(v)) for k, v in settings.items() if (m := _DISK_SIZE.fullmatch(k))]
    return from_vmx(name, {k: v for k, v in settings.items() if not _DISK_SIZE.fullmatch(k)}, reasons, disks)


def render(fmt: str, name: str, settings: dict[str, str], reasons: dict[str, tuple[str, str]]) -> str:
    return emit.render(fmt, typed(name, settings, reasons))


def render_json(name: str, settings: dict[str, str], reasons: dict[str, tuple[str, str]]) -> str:
    return packer.render_json(typed(name, settings, reasons))


def render_full(name: str, settings: dict[str, str], reasons: dict[str, tuple[str, str]]) -> str:
    return vmxfrag.render_full(typed(name, settings, reasons))


cases = pytest.mark.parametrize("settings", list(SETTINGS.values()), ids=list(SETTINGS))
names = pytest.mark.parametrize("name", NAMES)


def vmx_keys(settings: dict[str, str]) -> dict[str, str]:
    return {k.lower(): v for k, v in settings.items() if not k.lower().startswith("advisor.")}


def same_value(got: str | None, want: str) -> bool:
    if got is None:
        return False
    if want.upper() in ("TRUE", "FALSE"):
        return got.upper() == want.upper()
    return got == want


# ------------------------------------------------------------------------------- dispatch


def test_every_format_renders_and_unknown_is_refused():
    for fmt in FORMATS:
        assert render(fmt, "vm1", SQL, REASONS).strip()
    with pytest.raises(UsageError):
        render("xml", "vm1", SQL, REASONS)


def test_bad_numbers_are_input_errors():
    with pytest.raises(InputError):
        render("terraform", "vm1", {"numvcpus": "many"}, {})


@pytest.mark.parametrize(("vmx", "api"), [
    ("windows2019srv-64", "windows2019srv_64Guest"), ("rhel9-64", "rhel9_64Guest"),
    ("ubuntu-64", "ubuntu64Guest"), ("windows9srv-64", "windows9Server64Guest"),
    ("other-64", "otherGuest64"), ("ubuntu", "ubuntuGuest"), ("debian12_64Guest", "debian12_64Guest"),
])
def test_guest_ids(vmx, api):
    assert api_guest_id(vmx)[0] == api


# ------------------------------------------------------------------------------- .vmx


@cases
@names
def test_full_vmx_parses_and_holds_every_setting(settings, name):
    doc = VmxDocument.parse(render_full(name, settings, REASONS).encode())
    assert not doc.warnings and not doc.duplicates
    assert doc.get("displayName") == name
    assert doc.get(".encoding") == "UTF-8" and doc.get("config.version") == "8"
    assert doc.get("virtualHW.version") == settings.get("virtualHW.version", "19")
    assert doc.get("guestOS") == settings.get("guestOS", "other-64")
    for key, value in vmx_keys(settings).items():
        assert doc.get(key) == value, key
    assert not any(e.key.lower().startswith("advisor.") for e in doc.entries())
    for bus in range(2):
        if f"scsi{bus}.virtualDev" in settings:
            assert doc.get(f"scsi{bus}:0.deviceType") == "scsi-hardDisk"
            assert doc.get(f"scsi{bus}:0.fileName", "").endswith(".vmdk")
    for number in (0, 4, 5, 6, 7):
        assert doc.get(f"pciBridge{number}.present") == "TRUE"


@cases
def test_vmx_fragment_has_reasons_and_settings(settings):
    text = render("vmx", "vm1", settings, REASONS)
    doc = VmxDocument.parse(text.encode())
    assert {e.key.lower(): e.value for e in doc.entries()} == vmx_keys(settings)
    assert "# CPU001: fits one NUMA node\nnumvcpus" in text
    if "numa.vcpu.preferHT" in settings:
        assert "# NUMA002: keep the VM on one socket with its memory\nnuma.vcpu.preferHT" in text


# ------------------------------------------------------------------------------- Terraform


@cases
@names
def test_terraform_parses_and_reads_back(settings, name):
    text = render("terraform", name, settings, REASONS)
    parsed = hcl2.loads(text)
    assert "vsphere_virtual_machine" in json.dumps(parsed)
    resource = parsed["resource"][0]['"vsphere_virtual_machine"']
    (body,) = resource.values()
    assert json.loads(body["name"]).replace("$${", "${") == name
    vm = terraform_reader.read(Path("main.tf"), text.encode())[0]
    for key, value in vmx_keys(settings).items():
        if key == "guestos":
            assert vm.get("guestOS").value == api_guest_id(value)[0]
        elif key == "scsi1.virtualdev":
            continue  # the provider has one scsi_type for all controllers (a comment says so)
        else:
            assert same_value(vm.get(key).value if vm.get(key) else None, value), key
    assert "# CPU001: fits one NUMA node\n  num_cpus = " in text
    assert "var.resource_pool_id" in text and "var.datastore_id" in text


# ------------------------------------------------------------------------------- Packer


@cases
@names
def test_packer_hcl_parses_and_reads_back(settings, name):
    text = render("packer", name, settings, REASONS)
    hcl2.loads(text)
    vm = packer_reader.read(Path("vm.pkr.hcl"), text.encode())[0]
    _check_packer(vm, settings)
    assert "# CPU001: fits one NUMA node\n  CPUs = " in text


@cases
@names
def test_packer_json_loads_and_reads_back(settings, name):
    text = render_json(name, settings, REASONS)
    template = json.loads(text)
    builder = template["builders"][0]
    assert builder["type"] == "vsphere-iso"
    assert builder["vm_name"] == name
    assert builder["CPUs"] == int(settings["numvcpus"])
    vm = packer_reader.read(Path("legacy.json"), text.encode())[0]
    _check_packer(vm, settings, legacy=True)


def _check_packer(vm, settings, legacy=False):
    pinned = settings.get("sched.mem.pin") == "TRUE"
    for key, value in vmx_keys(settings).items():
        if key == "guestos":
            assert vm.get("guestOS").value == api_guest_id(value)[0]
        elif key == "sched.mem.min" and pinned:
            continue  # RAM_reserve_all reserves it all; the builder refuses both options together
        elif legacy and "${" in value:
            # The reader treats ${ as an expression even in legacy JSON (which only templates
            # {{ }}), so it reports the value as unknown; its source text must still be exact.
            assert vm.get(key).raw == value, key
        else:
            assert same_value(vm.get(key).value if vm.get(key) else None, value), key


# ------------------------------------------------------------------------------- Ansible


@cases
@names
def test_ansible_yaml_loads_with_module_options(settings, name):
    text = render("ansible", name, settings, REASONS)
    tasks = yaml.load(text, Loader=_AnsibleLoader)
    assert isinstance(tasks, list) and len(tasks) == 1
    params = tasks[0]["community.vmware.vmware_guest"]
    assert params["name"] == name
    hardware = params["hardware"]
    assert hardware["num_cpus"] == int(settings["numvcpus"])
    assert hardware["memory_mb"] == int(settings["memsize"])
    assert set(hardware) <= {"num_cpus", "num_cpu_cores_per_socket", "memory_mb", "hotadd_cpu", "hotremove_cpu",
                             "hotadd_memory", "cpu_reservation", "mem_reservation", "memory_reservation_lock",
                             "cpu_limit", "mem_limit", "scsi", "version", "nested_virt"}
    advanced = {item["key"]: item["value"] for item in params.get("advanced_settings", [])}
    for item in params.get("advanced_settings", []):
        assert set(item) == {"key", "value"}
    if "numa.vcpu.preferHT" in settings:
        assert advanced["numa.vcpu.preferHT"] == "TRUE"
    if settings is SQL:
        assert hardware["scsi"] == "paravirtual" and hardware["memory_reservation_lock"] is True
        assert params["networks"][0]["device_type"] == "vmxnet3"
    assert "customvalues" not in params


class _Unsafe(str):
    """A value Ansible reads as `!unsafe`: never templated."""


class _AnsibleLoader(yaml.SafeLoader):
    pass


_AnsibleLoader.add_constructor("!unsafe", lambda loader, node: _Unsafe(loader.construct_scalar(node)))


def test_ansible_keeps_jinja_in_names_literal():
    params = yaml.load(render("ansible", "{{ lookup('pipe', 'id') }}", MINIMAL, {}), Loader=_AnsibleLoader)[0]
    name = params["community.vmware.vmware_guest"]["name"]
    assert isinstance(name, _Unsafe) and name == "{{ lookup('pipe', 'id') }}"
    assert isinstance(params["name"], _Unsafe)


# ------------------------------------------------------------------------------- PowerCLI

# Documented parameters per cmdlet (PowerCLI VMware.VimAutomation.Core and PowerShell core).
POWERCLI_PARAMETERS = {
    "Get-VM": {"Name"},
    "Set-VM": {"VM", "NumCpu", "CoresPerSocket", "MemoryGB", "MemoryMB", "GuestId", "HardwareVersion", "Confirm"},
    "New-AdvancedSetting": {"Entity", "Name", "Value", "Confirm", "Force"},
    "Get-ScsiController": {"VM"},
    "Set-ScsiController": {"Type", "Confirm"},
    "Get-NetworkAdapter": {"VM"},
    "Set-NetworkAdapter": {"Type", "Confirm"},
    "Get-VMResourceConfiguration": {"VM"},
    "Set-VMResourceConfiguration": {"CpuReservationMhz", "MemReservationMB", "CpuLimitMhz", "MemLimitMB"},
    "New-Object": {"TypeName"},
    "Where-Object": set(),
    "Select-Object": {"Index"},
    "Out-Null": set(),
}
_PS_STRING = re.compile("'(?:[^'\u2018\u2019\u201a\u201b]|['\u2018\u2019\u201a\u201b]{2})*'")


@cases
@names
def test_powercli_uses_documented_parameters_and_safe_quotes(settings, name):
    text = render("powercli", name, settings, REASONS)
    lines = [line for line in text.splitlines() if line and not line.startswith("#")]
    for line in lines:
        code = _PS_STRING.sub("''", line)  # strings cannot smuggle in code or parameters
        for segment in re.split(r"\|", re.sub(r"\{[^}]*\}", "{}", code)):
            words = segment.split()
            if not words or not re.fullmatch(r"[A-Z][a-z]+-[A-Za-z]+", words[0]):
                continue
            assert words[0] in POWERCLI_PARAMETERS, line
            used = {w[1:].split(":")[0] for w in words[1:] if re.match(r"-[A-Za-z]", w)}
            assert used <= POWERCLI_PARAMETERS[words[0]], (words[0], used - POWERCLI_PARAMETERS[words[0]])
    # A name that does not print whole is a concatenation with [char] codes (no raw newline).
    assert powercli.quote(name) in text and powershell_value(powercli.quote(name)) == name
    assert f"-NumCpu {settings['numvcpus']}" in text
    if "numa.vcpu.preferHT" in settings:
        assert "New-AdvancedSetting -Entity $vm -Name 'numa.vcpu.preferHT' -Value 'TRUE' -Confirm:$false -Force" in text
    memory = int(settings["memsize"])
    assert (f"-MemoryGB {memory // 1024}" if memory % 1024 == 0 else f"-MemoryMB {memory}") in text


# ------------------------------------------------------------------------------- govc


@cases
@names
def test_govc_lines_split_back_into_the_intended_arguments(settings, name):
    text = render("govc", name, settings, REASONS)
    runs, _comments = govc_emit.commands(typed(name, settings, REASONS))
    assert _bash_words(text) == runs  # what the shell passes to govc, word for word
    change = runs[0]
    assert change[:4] == ["govc", "vm.change", "-vm", name]
    assert change[change.index("-c") + 1] == settings["numvcpus"]
    assert change[change.index("-m") + 1] == settings["memsize"]
    extras = [change[i + 1] for i, arg in enumerate(change) if arg == "-e"]
    if "numa.vcpu.preferHT" in settings:
        assert "numa.vcpu.preferHT=TRUE" in extras
    assert not any(e.lower().startswith(("virtualhw.version=", "scsi0.virtualdev=", "guestos=")) for e in extras)


def _bash_words(text: str) -> list[list[str]]:
    """The argument lists bash gives `govc` running `text` (govc a function printing them)."""
    bash = require_tool("bash", which("bash"), "apt-get install bash")
    shim = "govc() { printf '%s\\0' \"$#\" govc \"$@\"; }\n"
    words = subprocess.run([bash, "-s"], input=(shim + text).encode(), capture_output=True, check=True,
                           timeout=60).stdout.decode().split("\0")[:-1]
    runs = []
    while words:
        count = int(words[0]) + 1
        runs.append(words[1:1 + count])
        words = words[1 + count:]
    return runs
