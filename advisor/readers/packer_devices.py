"""Packer builders' devices: controllers, disks and network adapters as `.vmx` keys.

vsphere-iso lists controllers (`disk_controller_type`), disks (`storage`) and adapters
(`network_adapters`); vmware-iso has one disk adapter type for every disk and one adapter, with
the builder's documented defaults (an E1000 adapter, an LSI Logic SCSI disk: packer-plugin-vmware
HWConfig / DiskConfig docs and DefaultDiskAndCDROMTypes). Cloning builders add devices to a
source whose layout this file cannot show, so their new disks and adapters get notes, not slots.
"""

from __future__ import annotations

from advisor.readers.base import TemplateVM
from advisor.readers.hclview import Block, Expr, Variables, as_int, resolved_value, set_nic_type, unknown_adapter

# Controller names -> (bus, SCSI model or None). "scsi" is lsilogic in both plugins (govmomi's
# first SCSI type; the vmware plugin's documented meaning).
_CONTROLLERS = {
    "pvscsi": ("scsi", "pvscsi"),
    "lsilogic": ("scsi", "lsilogic"),
    "lsilogic-sas": ("scsi", "lsisas1068"),
    "lsisas1068": ("scsi", "lsisas1068"),
    "buslogic": ("scsi", "buslogic"),
    "scsi": ("scsi", "lsilogic"),
    "nvme": ("nvme", None),
    "sata": ("sata", None),
}
_NIC_TYPES = {"vmxnet3": "vmxnet3", "e1000": "e1000", "e1000e": "e1000e", "vmxnet2": "vmxnet",
              "vmxnet": "vmxnet", "pcnet32": "vlance", "vlance": "vlance", "sriov": "sriov"}
_SCSI_CONTROLLER_UNIT = 7  # a SCSI controller occupies unit 7 of its own bus
_MAX_CONTROLLERS = 4


# --------------------------------------------------------------------------------------------
# Devices: vsphere-iso / vsphere-clone
# --------------------------------------------------------------------------------------------


class _Controllers:
    """Controllers in the order the template lists them, numbered per bus as vSphere does."""

    def __init__(self) -> None:
        self.slots: list[tuple[str, int] | None] = []  # None: an entry we cannot use (unknown/IDE)
        self.next_unit: dict[tuple[str, int], int] = {}

    def add(self, vm: TemplateVM, bus: str, model: str | None, line: int | None, raw: str | None = None,
            model_known: bool = True) -> None:
        number = sum(1 for slot in self.slots if slot is not None and slot[0] == bus)
        if number >= _MAX_CONTROLLERS:
            self.slots.append(None)
            return
        self.slots.append((bus, number))
        vm.set(f"{bus}{number}.present", "TRUE", line)
        if bus == "scsi" and (model is not None or not model_known):
            vm.set(f"scsi{number}.virtualDev", model, line, raw=raw)

    def attach(self, vm: TemplateVM, index: int, line: int | None) -> bool:
        """Put the next disk on controller `index`; False when there is no such controller."""
        if not 0 <= index < len(self.slots) or self.slots[index] is None:
            return False
        slot = self.slots[index]
        assert slot is not None  # checked above
        bus, number = slot
        unit = self.next_unit.get((bus, number), 0)
        if bus == "scsi" and unit == _SCSI_CONTROLLER_UNIT:
            unit += 1
        self.next_unit[(bus, number)] = unit + 1
        vm.set(f"{bus}{number}:{unit}.present", "TRUE", line)
        return True


def _controller_list(vm: TemplateVM, option: str, expr: Expr, variables: Variables) -> _Controllers:
    """`disk_controller_type` (a string or a list) as controllers; unknown entries noted."""
    controllers = _Controllers()
    expr = resolved_value(vm, option, expr, variables)
    entries = expr.elems if expr.elems is not None else [expr]
    for entry in entries:
        entry = resolved_value(vm, option, entry, variables) if entry is not expr else entry
        if not entry.known or entry.value is None:
            controllers.slots.append(None)
            continue
        name = str(entry.value).lower()
        if name not in _CONTROLLERS:
            vm.notes.append(f"{option} {name!r}: not a controller advisor models")
            controllers.slots.append(None)
            continue
        bus, model = _CONTROLLERS[name]
        controllers.add(vm, bus, model, entry.line or expr.line)
    return controllers


def vsphere_devices(builder: str, block: Block, vm: TemplateVM, variables: Variables) -> None:
    storage = block.children("storage")
    if builder == "vsphere-clone":
        _clone_disks(vm, storage, block, variables)
        if block.children("network_adapters"):
            vm.notes.append("network_adapters on vsphere-clone are added after the source's adapters: "
                            "their numbers are unknown")
        return
    if "disk_controller_type" in block.attrs:
        controllers = _controller_list(vm, "disk_controller_type", block.attrs["disk_controller_type"], variables)
    elif storage or "disk_size" in block.attrs:
        # The builder's default controller is a SCSI one: the bus is certain, its model a default.
        controllers = _Controllers()
        controllers.slots.append(("scsi", 0))
        vm.set("scsi0.present", "TRUE", (storage[0].line if storage else block.attrs["disk_size"].line))
    else:
        controllers = _Controllers()
    if storage:
        for index, disk in enumerate(storage):
            _storage_disk(vm, index, disk, controllers, variables)
    elif "disk_size" in block.attrs:  # the single-disk form of early plugin versions
        _sized_disk(vm, 0, "disk_size", block.attrs["disk_size"], variables)
        controllers.attach(vm, 0, block.attrs["disk_size"].line)
    _vsphere_nics(block, vm, variables)


def _storage_disk(vm: TemplateVM, index: int, disk: Block, controllers: _Controllers,
                  variables: Variables) -> None:
    if "disk_size" in disk.attrs:
        _sized_disk(vm, index, f"storage {index} disk_size", disk.attrs["disk_size"], variables)
    where = disk.attrs.get("disk_controller_index")
    controller: int | None = 0
    if where is not None:
        where = resolved_value(vm, f"storage {index} disk_controller_index", where, variables)
        controller = as_int(where.value) if where.known else None
    if controller is None:
        return
    if not controllers.attach(vm, controller, disk.line):
        vm.notes.append(f"storage {index} (line {disk.line}): controller {controller} is unknown or not modelled")


def _sized_disk(vm: TemplateVM, index: int, option: str, expr: Expr, variables: Variables) -> None:
    """Packer sizes disks in MB, which is what advisor.diskN.size holds."""
    expr = resolved_value(vm, option, expr, variables)
    size = as_int(expr.value) if expr.known else None
    if size is not None:
        vm.set(f"advisor.disk{index}.size", str(size), expr.line, raw=expr.raw)


def _clone_disks(vm: TemplateVM, storage: list[Block], block: Block, variables: Variables) -> None:
    """A clone keeps the source's disks; `disk_size` resizes the first, `storage` adds more."""
    if "disk_size" in block.attrs:
        _sized_disk(vm, 0, "disk_size", block.attrs["disk_size"], variables)
    if storage:
        vm.notes.append("storage on vsphere-clone adds disks after the source's disks: their slots are unknown")


def _vsphere_nics(block: Block, vm: TemplateVM, variables: Variables) -> None:
    adapters = block.children("network_adapters")
    if not adapters and "network_card" in block.attrs:
        # Early plugin versions took one adapter's settings at the top level.
        _nic(vm, 0, block.attrs["network_card"].line, block.attrs["network_card"], variables, "network_card")
        return
    for number, adapter in enumerate(adapters):
        _nic(vm, number, adapter.line, adapter.attrs.get("network_card"), variables,
             f"network_adapters {number} network_card")
    dynamic = next((b for b in block.children("dynamic") if b.labels[:1] == ["network_adapters"]), None)
    if dynamic is not None:  # adapters exist, of types this file cannot show: `nics` is unknown
        unknown_adapter(vm, len(adapters), dynamic.line, 'dynamic "network_adapters"')
        vm.notes.append(f'dynamic "network_adapters" block (line {dynamic.line}): how many there are and '
                        "their settings are unknown")


def _nic(vm: TemplateVM, number: int, line: int | None, card: Expr | None, variables: Variables,
         option: str) -> None:
    vm.set(f"ethernet{number}.present", "TRUE", line)
    if card is not None:
        set_nic_type(vm, number, card, variables, option, _NIC_TYPES)


# --------------------------------------------------------------------------------------------
# Devices: vmware-iso / vmware-vmx
# --------------------------------------------------------------------------------------------


def vmware_devices(builder: str, block: Block, vm: TemplateVM, variables: Variables) -> None:
    """vmware-iso always writes ethernet0 (E1000 unless `network_adapter_type` says otherwise)
    and a primary disk; vmware-vmx keeps the source's devices except the adapter type it sets."""
    expr = block.attrs.get("network_adapter_type")
    if builder == "vmware-iso":
        _vmware_disks(block, vm, variables)
        if expr is None:
            # "By default the e1000 network adapter type will be used by Packer" (HWConfig docs).
            vm.set("ethernet0.present", "TRUE", block.line, column=block.column)
            vm.set("ethernet0.virtualDev", "e1000", block.line, column=block.column)
            vm.notes.append("network_adapter_type not set: vmware-iso's default adapter is e1000")
            return
    if expr is not None:
        _nic(vm, 0, expr.line, expr, variables, "network_adapter_type")


def _vmware_disks(block: Block, vm: TemplateVM, variables: Variables) -> None:
    primary = block.attrs.get("disk_size")
    additional: list[Expr] = []
    if "disk_additional_size" in block.attrs:
        extra = resolved_value(vm, "disk_additional_size", block.attrs["disk_additional_size"], variables)
        additional = list(extra.elems or [])
    adapter = block.attrs.get("disk_adapter_type")
    # The primary disk exists whether or not its size is written (40000 MB by default); the others
    # follow it on the same adapter.
    disks = [("disk_size", primary)] + [(f"disk_additional_size[{i}]", e) for i, e in enumerate(additional)]
    first_line = next((e.line for _, e in disks if e is not None), adapter.line if adapter else block.line)
    if adapter is None:
        # DefaultDiskAndCDROMTypes: the disk goes on scsi0, an LSI Logic controller.
        controllers = _Controllers()
        controllers.add(vm, "scsi", "lsilogic", first_line)
    else:
        controllers = _controller_list(vm, "disk_adapter_type", adapter, variables)
    for index, (option, expr) in enumerate(disks):
        controllers.attach(vm, 0, expr.line if expr is not None else first_line)
        if expr is not None:
            _sized_disk(vm, index, option, expr, variables)
