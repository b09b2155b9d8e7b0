"""A fix's `.vmx` keys said in the template's own language: Terraform arguments, Packer options,
OVF elements. A `.vmx` needs no translation. Keys with no argument of their own go where the
format passes raw `.vmx` keys through (`extra_config`, `configuration_parameters`, `vmx_data`,
`vmw:ExtraConfig`), which is what the builder would write.
"""

from __future__ import annotations

import re

from advisor.emit import hcl
from advisor.readers.base import TemplateVM

REMOVE = "REMOVE"
_NIC = re.compile(r"^ethernet(\d+)\.virtualdev$")
_SCSI = re.compile(r"^scsi(\d+)\.virtualdev$")

# .vmx key (lower case) -> option, per format (the readers' tables read the other way).
_TERRAFORM = {
    "numvcpus": "num_cpus",
    "cpuid.corespersocket": "num_cores_per_socket",
    "memsize": "memory",
    "vcpu.hotadd": "cpu_hot_add_enabled",
    "vcpu.hotremove": "cpu_hot_remove_enabled",
    "mem.hotadd": "memory_hot_add_enabled",
    "sched.cpu.latencysensitivity": "latency_sensitivity",
    "sched.cpu.min": "cpu_reservation",
    "sched.cpu.max": "cpu_limit",
    "sched.mem.min": "memory_reservation",
    "sched.mem.max": "memory_limit",
    "sched.mem.pin": "memory_reservation_locked_to_max",
    "virtualhw.version": "hardware_version",
    "guestos": "guest_id",
    "firmware": "firmware",
    "vhv.enable": "nested_hv_enabled",
    "vpmc.enable": "cpu_performance_counters_enabled",
    "uefi.secureboot.enabled": "efi_secure_boot_enabled",
    "disk.enableuuid": "enable_disk_uuid",
}
_VSPHERE = {
    "numvcpus": "CPUs",
    "cpuid.corespersocket": "cpu_cores",
    "memsize": "RAM",
    "sched.mem.pin": "RAM_reserve_all",
    "sched.cpu.min": "CPU_reservation",
    "sched.cpu.max": "CPU_limit",
    "sched.mem.min": "RAM_reservation",
    "vcpu.hotadd": "CPU_hot_plug",
    "mem.hotadd": "RAM_hot_plug",
    "vhv.enable": "NestedHV",
    "virtualhw.version": "vm_version",
    "guestos": "guest_os_type",
    "firmware": "firmware",
}
_VMWARE = {
    "numvcpus": "cpus",
    "cpuid.corespersocket": "cores",
    "memsize": "memory",
    "virtualhw.version": "version",
    "guestos": "guest_os_type",
    "firmware": "firmware",
}
_OVF_ITEMS = {
    "numvcpus": "Item ResourceType 3 (CPU): rasd:VirtualQuantity",
    "memsize": "Item ResourceType 4 (memory, MB): rasd:VirtualQuantity",
    "sched.cpu.min": "Item ResourceType 3: rasd:Reservation",
    "sched.cpu.max": "Item ResourceType 3: rasd:Limit",
    "sched.mem.min": "Item ResourceType 4: rasd:Reservation",
    "sched.mem.max": "Item ResourceType 4: rasd:Limit",
    "virtualhw.version": "System: vssd:VirtualSystemType (vmx-NN)",
    "guestos": "OperatingSystemSection: vmw:osType",
}
_OVF_CONFIG = {
    "vcpu.hotadd": "cpuHotAddEnabled",
    "vcpu.hotremove": "cpuHotRemoveEnabled",
    "mem.hotadd": "memoryHotAddEnabled",
    "firmware": "firmware",
    "vhv.enable": "nestedHVEnabled",
    "vpmc.enable": "vPMCEnabled",
    "uefi.secureboot.enabled": "bootOptions.efiSecureBootEnabled",
    "sched.cpu.latencysensitivity": "latencySensitivity.level",
    "sched.mem.pin": "memoryReservationLockedToMax",
}
_OVF_SCSI = {"pvscsi": "VirtualSCSI", "lsilogic": "lsilogic", "lsisas1068": "lsilogicsas", "buslogic": "buslogic"}
_OVF_NIC = {"vmxnet3": "VmxNet3", "e1000": "E1000", "e1000e": "E1000e"}  # as VMware's exports spell them
_PACKER_SCSI = {"lsisas1068": "lsilogic-sas"}
_PASSTHROUGH_OVF = 'vmw:ExtraConfig ovf:key="{key}"'
_TERRAFORM_SCSI = {"lsisas1068": "lsilogic-sas"}


def template_fix(t: TemplateVM, vmx: dict[str, str]) -> dict[str, str]:
    """{option or element: value} for the template `t` was read from; {} for a .vmx."""
    if t.kind == "vmx":
        return {}
    out: dict[str, str] = {}
    for key, value in vmx.items():
        option, text = _translate(t, key, value)
        out[option] = text
    return out


def _translate(t: TemplateVM, key: str, value: str) -> tuple[str, str]:
    low = key.lower()
    if low in t.passthrough:  # the template writes this key raw: the fix edits it where it is
        return _passthrough(t, key), (value if t.kind == "ovf" else _quoted(value))
    nic, scsi = _NIC.match(low), _SCSI.match(low)
    if t.kind == "ovf":
        return _ovf(low, key, value, nic, scsi)
    text = value if value == REMOVE else _hcl_value(value)
    if t.kind == "terraform":
        if nic:
            return f"network_interface[{nic[1]}].adapter_type", text
        if scsi:
            return "scsi_type", _hcl_value(_TERRAFORM_SCSI.get(value, value))
        return (_TERRAFORM[low], text) if low in _TERRAFORM else (_passthrough(t, key), _quoted(value))
    if (t.builder or "").startswith("vsphere"):
        if nic:
            return f"network_adapters[{nic[1]}].network_card", text
        if scsi:
            return f"disk_controller_type[{scsi[1]}]", _hcl_value(_PACKER_SCSI.get(value, value))
        return (_VSPHERE[low], text) if low in _VSPHERE else (_passthrough(t, key), _quoted(value))
    if nic and nic[1] == "0":
        return "network_adapter_type", text
    if scsi:
        return "disk_adapter_type", _hcl_value(value)
    return (_VMWARE[low], text) if low in _VMWARE else (_passthrough(t, key), _quoted(value))


def _passthrough(t: TemplateVM, key: str) -> str:
    """Where the format takes a raw `.vmx` key."""
    if t.kind == "ovf":
        return _PASSTHROUGH_OVF.format(key=key)
    if t.kind == "terraform":
        return f"extra_config[{hcl.string(key)}]"
    return f"configuration_parameters[{hcl.string(key)}]" if (t.builder or "").startswith("vsphere") \
        else f"vmx_data[{hcl.string(key)}]"


def _ovf(low: str, key: str, value: str, nic: re.Match | None, scsi: re.Match | None) -> tuple[str, str]:
    if nic:
        return f"Item ResourceType 10 (network adapter {nic[1]}): rasd:ResourceSubType", _OVF_NIC.get(value, value)
    if scsi:
        return f"Item ResourceType 6 (SCSI controller {scsi[1]}): rasd:ResourceSubType", _OVF_SCSI.get(value, value)
    if low in _OVF_ITEMS:
        return _OVF_ITEMS[low], value
    if low in _OVF_CONFIG:
        return f'vmw:Config ovf:key="{_OVF_CONFIG[low]}"', value.lower() if value in ("TRUE", "FALSE") else value
    return _PASSTHROUGH_OVF.format(key=key), value


def _hcl_value(value: str) -> str:
    """A literal as HCL writes it: numbers and booleans bare, anything else quoted."""
    if value in ("TRUE", "FALSE"):
        return value.lower()
    if re.fullmatch(r"-?\d{1,18}", value):
        return value
    return _quoted(value)


def _quoted(value: str) -> str:
    """A value written into a Terraform or Packer file: an HCL quoted string, every control
    character, quote, backslash and template sequence escaped (advisor.emit.hcl.string), so a
    value from a template can neither end the string nor start an interpolation."""
    if value == REMOVE:
        return value
    return hcl.string(value)
