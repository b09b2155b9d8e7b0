"""Terraform vsphere_virtual_machine devices: controllers, disks and network interfaces as `.vmx` keys.

Provider defaults used where a device certainly exists (terraform-provider-vsphere docs):
`disk.controller_type` scsi and `unit_number` 0 (without them a disk could not be placed), and
`network_interface.adapter_type` vmxnet3 (a clone keeps its template's adapter: unknown).
"""

from __future__ import annotations

from advisor.readers.base import TemplateVM
from advisor.readers.hclview import (
    Block,
    Expr,
    Variables,
    as_int,
    resolved_value,
    set_nic_type,
    short,
    unknown_adapter,
    vmx_value,
)

_SCSI_TYPES = {"pvscsi": "pvscsi", "lsilogic": "lsilogic", "lsilogic-sas": "lsisas1068", "buslogic": "buslogic"}
_NIC_TYPES = {"vmxnet3": "vmxnet3", "e1000": "e1000", "e1000e": "e1000e", "sriov": "sriov",
              "vmxnet2": "vmxnet", "pcnet32": "vlance"}
_CONTROLLER_COUNTS = (("scsi_controller_count", "scsi"), ("sata_controller_count", "sata"),
                      ("nvme_controller_count", "nvme"))
# The provider numbers `unit_number` across all controllers of a bus: this many units per
# controller (SCSI 0-14 on scsi0, 15-29 on scsi1, ...). vSphere allows four controllers per bus.
_UNITS_PER_CONTROLLER = {"scsi": 15, "sata": 30, "nvme": 64}
_MAX_CONTROLLERS = 4
# The SCSI controller itself sits at unit 7; the provider shifts disk units 7-14 up by one.
_SCSI_CONTROLLER_UNIT = 7


# --------------------------------------------------------------------------------------------
# Controllers and disks
# --------------------------------------------------------------------------------------------


def storage(block: Block, vm: TemplateVM, variables: Variables) -> None:
    """Controllers (from the counts and from the disks on them), SCSI type, disks."""
    present: dict[tuple[str, int], int | None] = {}
    for argument, bus in _CONTROLLER_COUNTS:
        if argument in block.attrs:
            _controller_count(vm, argument, bus, block.attrs[argument], variables, present)
    for index, disk in enumerate(block.children("disk")):
        _disk(vm, index, disk, variables, present)
    scsi_type = block.attrs.get("scsi_type")
    if scsi_type is not None and not any(bus == "scsi" for bus, _ in present):
        present[("scsi", 0)] = scsi_type.line  # a SCSI type implies the controller it describes
    for (bus, number), line in sorted(present.items()):
        vm.set(f"{bus}{number}.present", "TRUE", line)
    if scsi_type is not None:
        _scsi_type(vm, scsi_type, variables, sorted(n for bus, n in present if bus == "scsi"))


def _controller_count(vm: TemplateVM, argument: str, bus: str, expr: Expr, variables: Variables,
                      present: dict[tuple[str, int], int | None]) -> None:
    expr = resolved_value(vm, argument, expr, variables)
    count = as_int(expr.value) if expr.known else None
    if count is None:
        return
    if count > _MAX_CONTROLLERS:
        vm.notes.append(f"{argument} = {count}: vSphere allows at most {_MAX_CONTROLLERS}")
    for number in range(min(max(count, 0), _MAX_CONTROLLERS)):
        present.setdefault((bus, number), expr.line)


def _scsi_type(vm: TemplateVM, expr: Expr, variables: Variables, numbers: list[int]) -> None:
    """The provider gives every SCSI controller the one `scsi_type`."""
    expr = resolved_value(vm, "scsi_type", expr, variables)
    if expr.known and expr.value is None:
        return  # null: the provider's default applies
    name = vmx_value(expr.value, "lower") if expr.known else None
    device = _SCSI_TYPES.get(name, name) if name is not None else None
    if expr.known and device is None:
        vm.notes.append(f"scsi_type = {short(expr.raw)}: not a single controller type, unknown")
    for number in numbers:
        vm.set(f"scsi{number}.virtualDev", device, expr.line, raw=None if device else expr.raw, column=expr.column)


def _disk(vm: TemplateVM, index: int, disk: Block, variables: Variables,
          present: dict[tuple[str, int], int | None]) -> None:
    """One `disk` block: its controller slot and its size (GB in Terraform, MB in the side key)."""
    bus = _disk_bus(vm, index, disk, variables)
    unit: int | None
    unit_expr = disk.attrs.get("unit_number")
    if unit_expr is None:
        unit = 0  # provider default: the first disk sits at unit 0
        line = disk.line
    else:
        resolved = resolved_value(vm, f"disk {index} unit_number", unit_expr, variables)
        unit = as_int(resolved.value) if resolved.known else None
        line = unit_expr.line
    if bus is not None and unit is not None and unit >= 0:
        per = _UNITS_PER_CONTROLLER[bus]
        number, slot = divmod(unit, per)
        if bus == "scsi" and slot >= _SCSI_CONTROLLER_UNIT:
            slot += 1
        if number < _MAX_CONTROLLERS:
            vm.set(f"{bus}{number}:{slot}.present", "TRUE", line)
            present.setdefault((bus, number), line)
    size = disk.attrs.get("size")
    if size is not None:
        resolved = resolved_value(vm, f"disk {index} size", size, variables)
        gigabytes = as_int(resolved.value) if resolved.known else None
        if gigabytes is not None:
            vm.set(f"advisor.disk{index}.size", str(gigabytes * 1024), size.line, raw=size.raw)


def _disk_bus(vm: TemplateVM, index: int, disk: Block, variables: Variables) -> str | None:
    """The bus a disk sits on; None when unknown or IDE (IDE is not modelled)."""
    expr = disk.attrs.get("controller_type")
    if expr is None:
        return "scsi"  # provider default, and the only bus older providers knew
    expr = resolved_value(vm, f"disk {index} controller_type", expr, variables)
    if not expr.known:
        return None
    if expr.value is None:
        return "scsi"  # null: the provider default again
    bus = str(expr.value).lower()
    return bus if bus in _UNITS_PER_CONTROLLER else None


# --------------------------------------------------------------------------------------------
# Network adapters
# --------------------------------------------------------------------------------------------


def network(block: Block, vm: TemplateVM, variables: Variables) -> None:
    """`network_interface` blocks in order are ethernet0, ethernet1, ...

    Once a dynamic network_interface block appears, the position of any later adapter is unknown,
    so those are left out (with a note) rather than numbered wrongly.
    """
    number = 0
    after_dynamic = False
    for child in block.blocks:
        if child.type == "dynamic" and child.labels[:1] == ["network_interface"]:
            if not after_dynamic:  # adapters exist, of types this file cannot show: `nics` is unknown
                unknown_adapter(vm, number, child.line, 'dynamic "network_interface"')
            after_dynamic = True
        elif child.type == "network_interface":
            if after_dynamic:
                vm.notes.append(f"network_interface at line {child.line} follows a dynamic block: "
                                "its adapter number is unknown")
                continue
            _nic(vm, number, child, variables, bool(block.children("clone")))
            number += 1


def _nic(vm: TemplateVM, number: int, nic: Block, variables: Variables, cloned: bool) -> None:
    vm.set(f"ethernet{number}.present", "TRUE", nic.line, column=nic.column)
    expr = nic.attrs.get("adapter_type")
    if expr is None:
        # The provider's default is vmxnet3; a clone keeps the template's adapter type (unknown here).
        vm.set(f"ethernet{number}.virtualDev", None if cloned else "vmxnet3", nic.line,
               raw="(the template's adapter)" if cloned else None, column=nic.column)
        return
    set_nic_type(vm, number, expr, variables, f"network_interface {number} adapter_type", _NIC_TYPES)
