"""OVF VirtualHardwareSection items (CIM RASD) as `.vmx` keys: CPU, memory, controllers, disks, NICs.

Controllers are SCSI (ResourceType 6), IDE (5) and SATA/NVMe (20, by subtype); a disk (17)
sits on the controller its Parent names, at AddressOnParent. CD/DVD drives (15, 16) are not disks.
"""

from __future__ import annotations

import re

from advisor.readers.base import TemplateVM
from advisor.readers.ovfxml import Node, to_unit

# ResourceType values (CIM_ResourceAllocationSettingData) advisor reads.
_CPU, _MEMORY, _IDE, _SCSI, _NIC, _OTHER_STORAGE, _DISK = 3, 4, 5, 6, 10, 20, 17
_SCSI_MODELS = {"virtualscsi": "pvscsi", "lsilogic": "lsilogic", "lsilogicsas": "lsisas1068",
                "buslogic": "buslogic"}
_NIC_MODELS = {"vmxnet3": "vmxnet3", "e1000": "e1000", "e1000e": "e1000e", "pcnet32": "vlance",
               "vmxnet2": "vmxnet", "vmxnet": "vmxnet"}
_SCSI_CONTROLLER_UNIT = 7
_UNITS = {"scsi": 16, "sata": 30, "nvme": 64, "ide": 2}


# --------------------------------------------------------------------------------------------
# Items
# --------------------------------------------------------------------------------------------


def _field(item: Node, name: str) -> Node | None:
    """A child element by local name; OVF 0.9 spells some differently (`InstanceId`)."""
    found = item.find(name)
    if found is None:
        lowered = name.lower()
        found = next((c for c in item.children if c.tag.lower() == lowered), None)
    return found


def small_int(text: str, digits: int = 18) -> int | None:
    """`text` as an int when it is ASCII digits, at most `digits` of them; else None.

    str.isdigit() alone is not enough: it accepts superscripts ("²") that int() refuses, and a
    number of thousands of digits would reach int()'s limit.
    """
    return int(text) if text.isascii() and text.isdigit() and len(text) <= digits else None


def _resource_type(item: Node) -> int | None:
    node = _field(item, "ResourceType")
    return small_int(node.text, 5) if node is not None else None


def _subtype(item: Node) -> str:
    node = _field(item, "ResourceSubType")
    return node.text.split()[0].lower() if node is not None and node.text.split() else ""


def read_items(items: list[Node], vm: TemplateVM, envelope) -> None:
    controllers: dict[str, tuple[str, int] | None] = {}  # InstanceID -> (bus, number); None: IDE etc.
    counts: dict[str, int] = {}
    for item in items:
        kind = _resource_type(item)
        if kind == _CPU:
            _cpu(item, vm)
        elif kind == _MEMORY:
            _memory(item, vm)
        elif kind in (_SCSI, _OTHER_STORAGE, _IDE):
            _controller(item, kind, vm, controllers, counts)
    disk_index = 0
    nic_index = 0
    used: dict[tuple[str, int], set[int]] = {}
    for item in items:
        kind = _resource_type(item)
        if kind == _DISK:
            if _disk(item, disk_index, vm, envelope, controllers, used):
                disk_index += 1
        elif kind == _NIC:
            _nic(item, nic_index, vm)
            nic_index += 1


def _quantity(item: Node, vm: TemplateVM, key: str, what: str) -> str | None:
    """An item's VirtualQuantity as digits, or unknown (a placeholder, say) with a note."""
    node = _field(item, "VirtualQuantity")
    if node is None:
        return None
    if small_int(node.text) is not None:
        return node.text
    vm.set(key, None, node.line, raw=node.text, column=node.column)
    vm.notes.append(f"{what} VirtualQuantity {node.text!r}: unknown")
    return None


def _cpu(item: Node, vm: TemplateVM) -> None:
    quantity = _quantity(item, vm, "numvcpus", "CPU")
    if quantity is not None:
        node = _field(item, "VirtualQuantity")
        assert node is not None  # _quantity read it
        vm.set("numvcpus", str(int(quantity)), node.line, column=node.column)
    cores = _field(item, "CoresPerSocket")
    if cores is not None and small_int(cores.text) is not None:
        vm.set("cpuid.coresPerSocket", str(int(cores.text)), cores.line, column=cores.column)
    elif small_int(item.attrs.get("CoresPerSocket", "")) is not None:
        vm.set("cpuid.coresPerSocket", str(int(item.attrs["CoresPerSocket"])), item.line, column=item.column)
    _allocation(item, vm, "hertz", 10**6, "sched.cpu")


def _memory(item: Node, vm: TemplateVM) -> None:
    quantity = _quantity(item, vm, "memsize", "memory")
    if quantity is not None:
        node = _field(item, "VirtualQuantity")
        assert node is not None  # _quantity read it
        units = _field(item, "AllocationUnits")
        megabytes = to_unit(quantity, units.text if units is not None else None, "byte", 2**20)
        if megabytes is None:
            vm.set("memsize", None, node.line, raw=node.text, column=node.column)
            vm.notes.append("memory VirtualQuantity has no usable AllocationUnits: memsize is unknown")
        else:
            vm.set("memsize", str(megabytes), node.line, column=node.column)
    _allocation(item, vm, "byte", 2**20, "sched.mem")


def _allocation(item: Node, vm: TemplateVM, base: str, target: int, prefix: str) -> None:
    """Reservation / Limit (in the item's AllocationUnits) and Weight (shares) of CPU or memory."""
    units = _field(item, "AllocationUnits")
    for name, suffix in (("Reservation", "min"), ("Limit", "max")):
        node = _field(item, name)
        if node is None or not node.text:
            continue
        value = to_unit(node.text, units.text if units is not None else None, base, target)
        vm.set(f"{prefix}.{suffix}", str(value) if value is not None else None, node.line,
               raw=None if value is not None else node.text, column=node.column)
    weight = _field(item, "Weight")
    if weight is not None and small_int(weight.text) is not None:
        vm.set(f"{prefix}.shares", str(int(weight.text)), weight.line, column=weight.column)


def _controller(item: Node, kind: int, vm: TemplateVM, controllers: dict, counts: dict[str, int]) -> None:
    instance = _field(item, "InstanceID")
    if instance is None:
        return
    bus, model = _controller_bus(kind, _subtype(item))
    if bus is None:
        controllers[instance.text] = None  # a controller of a kind advisor does not model
        return
    address = _field(item, "Address")
    number = small_int(address.text, 2) if address is not None else None
    number = counts.get(bus, 0) if number is None else number
    counts[bus] = max(counts.get(bus, 0), number + 1)
    controllers[instance.text] = (bus, number)
    vm.set(f"{bus}{number}.present", "TRUE", item.line, column=item.column)
    if bus == "scsi":
        subtype = _field(item, "ResourceSubType")
        where = subtype if subtype is not None else item
        unread = None if model else (subtype.text if subtype is not None else None)
        vm.set(f"scsi{number}.virtualDev", model, where.line, raw=unread, column=where.column)
        if model is None:
            vm.notes.append(f"SCSI controller {number}: model {_subtype(item)!r} is unknown")


def _controller_bus(kind: int, subtype: str) -> tuple[str | None, str | None]:
    if kind == _SCSI:
        return "scsi", _SCSI_MODELS.get(subtype)
    if kind == _IDE:
        return "ide", None
    if kind == _OTHER_STORAGE and ("ahci" in subtype or "sata" in subtype):
        return "sata", None
    if kind == _OTHER_STORAGE and "nvme" in subtype:
        return "nvme", None
    return None, None


def _disk(item: Node, index: int, vm: TemplateVM, envelope, controllers: dict,
          used: dict[tuple[str, int], set[int]]) -> bool:
    """A disk on its controller (Parent) at its unit (AddressOnParent); False if not modelled."""
    parent = _field(item, "Parent")
    slot = controllers.get(parent.text) if parent is not None else None
    if slot is None:
        return False  # on a controller the descriptor does not define
    units = used.setdefault(slot, set())
    address = _field(item, "AddressOnParent")
    unit = small_int(address.text, 3) if address is not None else None
    if unit is None:
        # No address: vCenter takes the first free unit (skipping a SCSI controller's own 7).
        unit = next(u for u in range(_UNITS[slot[0]] + len(units) + 1)
                    if u not in units and not (slot[0] == "scsi" and u == _SCSI_CONTROLLER_UNIT))
    units.add(unit)
    bus, number = slot
    vm.set(f"{bus}{number}:{unit}.present", "TRUE", (address or item).line, column=(address or item).column)
    size = _disk_size(item, envelope)
    host = _field(item, "HostResource")
    if size is not None:
        vm.set(f"advisor.disk{index}.size", str(size), (host or item).line, column=(host or item).column)
    return True


def _disk_size(item: Node, envelope) -> int | None:
    """Capacity in MB from the DiskSection entry the item points at (`ovf:/disk/ID`)."""
    host = _field(item, "HostResource")
    if host is not None:
        match = re.fullmatch(r"(?:ovf:)?/disk/(.+)", host.text)
        if match:
            return envelope.disks_mb.get(match.group(1))
    quantity = _field(item, "VirtualQuantity")
    units = _field(item, "AllocationUnits") or _field(item, "VirtualQuantityUnits")
    if quantity is not None:
        return to_unit(quantity.text, units.text if units is not None else None, "byte", 2**20)
    return None


def _nic(item: Node, index: int, vm: TemplateVM) -> None:
    vm.set(f"ethernet{index}.present", "TRUE", item.line, column=item.column)
    subtype = _subtype(item)
    if not subtype:
        return
    node = _field(item, "ResourceSubType")
    assert node is not None  # _subtype read it
    model = _NIC_MODELS.get(subtype)
    vm.set(f"ethernet{index}.virtualDev", model, node.line, raw=None if model else node.text, column=node.column)
    if model is None:
        vm.notes.append(f"network adapter {index}: model {node.text!r} is unknown")
