"""Packer reader: each VMware builder (`vsphere-iso`, `vsphere-clone`, `vmware-iso`, `vmware-vmx`)
as the `.vmx` keys the VM it builds would carry.

Three syntaxes: HCL2 (`source "vsphere-iso" "name" { ... }` in `.pkr.hcl`), HCL2's JSON form
(`.pkr.json`, a `source` object) and the legacy JSON template (a `builders` list). Values are
taken when literal, or when they are a bare variable reference with a literal value (`var.x`
with a `variable` default; `{{user `x`}}` with an entry in `variables`); anything else is
recorded as unknown with its source text.

As in the Terraform reader, a builder default is never filled in: an absent option leaves its key
absent for the model to default. Devices are recorded only where the template says something
about them, and cloning builders add devices to a source whose layout this file cannot show, so
their new disks and adapters get sizes and notes but no slots.
"""

from __future__ import annotations

import re
from collections.abc import Iterable
from pathlib import Path

from advisor.errors import InputError
from advisor.readers.base import TemplateVM
from advisor.readers.hclsupport import (
    Block,
    Expr,
    Variables,
    as_int,
    assigned_values,
    attach_suppressions,
    comment_suppressions,
    decode_text,
    expr_from_json,
    json_block,
    json_blocks,
    json_line,
    json_suppressions,
    parse_hcl,
    parse_json,
    resolve,
    resolved_value,
    set_from_expr,
    short,
    variable_defaults,
    vmx_value,
)

KIND = "packer"
VSPHERE = ("vsphere-iso", "vsphere-clone")
VMWARE = ("vmware-iso", "vmware-vmx")
CLONES = ("vsphere-clone", "vmware-vmx")
BUILDERS = VSPHERE + VMWARE

_VSPHERE_SCALARS: dict[str, tuple[str, str]] = {
    "CPUs": ("numvcpus", "int"),
    "cpu_cores": ("cpuid.coresPerSocket", "int"),
    "RAM": ("memsize", "int"),
    "RAM_reserve_all": ("sched.mem.pin", "bool"),
    "CPU_reservation": ("sched.cpu.min", "int"),
    "CPU_limit": ("sched.cpu.max", "int"),
    "RAM_reservation": ("sched.mem.min", "int"),
    "CPU_hot_plug": ("vcpu.hotadd", "bool"),
    "RAM_hot_plug": ("mem.hotadd", "bool"),
    "NestedHV": ("vhv.enable", "bool"),
    "vm_version": ("virtualHW.version", "int"),
    "guest_os_type": ("guestOS", "str"),
}
_VMWARE_SCALARS: dict[str, tuple[str, str]] = {
    "cpus": ("numvcpus", "int"),
    "cores": ("cpuid.coresPerSocket", "int"),
    "memory": ("memsize", "int"),
    "version": ("virtualHW.version", "int"),
    "guest_os_type": ("guestOS", "str"),
}
# Options whose map entries are .vmx keys already, in the order the builder applies them.
_PASSTHROUGH = {"vsphere": ("configuration_parameters",), "vmware": ("vmx_data", "vmx_data_post")}

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

_JSON_BLOCKS = {"storage": 0, "network_adapters": 0, "content_library_destination": 0, "export": 0,
                "location": 0, "dynamic": 1, "content": 0}
_SNIFF_SOURCE = re.compile(r'source\s+"(?:vsphere-iso|vsphere-clone|vmware-iso|vmware-vmx)"')


def sniff(path: Path, head: bytes) -> bool:
    """`.pkr.hcl` / `.pkr.json`, a JSON template with `builders`, or HCL declaring a VMware source."""
    name = path.name.lower()
    if name.endswith((".pkr.hcl", ".pkr.json")):
        return True
    text = head.decode("utf-8", "ignore")
    if name.endswith(".json"):
        return bool(re.search(r'"builders"\s*:', text))
    return bool(_SNIFF_SOURCE.search(text))


def read(path: Path, data: bytes, siblings: Iterable[tuple[Path, bytes]] | None = None) -> list[TemplateVM]:
    """Every VMware builder in the template, as a TemplateVM ([] when it has none).

    `siblings` (HCL2 only) are the other files of the folder: `variable` defaults in `*.pkr.hcl`
    and assignments in `*.auto.pkrvars.hcl` resolve `var.x`.
    """
    text = decode_text(data, path)
    name = path.name.lower()
    if name.endswith(".json"):
        document = parse_json(text, path)
        if not isinstance(document, dict):
            raise InputError("a Packer JSON template must hold an object", file=str(path), line=1)
        if name.endswith(".pkr.json") or "builders" not in document:
            sources, variables = _hcl_json_sources(document)
            variables = _with_siblings(variables, path, siblings)
        else:
            sources, variables = _legacy_sources(document, path)
        suppressions = json_suppressions(document, ("//", "_comment"))
    else:
        root = parse_hcl(text, path)
        sources = [(b.labels[0], b.labels[1], b) for b in root.children("source") if len(b.labels) == 2]
        variables = _with_siblings(variable_defaults(root), path, siblings)
        suppressions = comment_suppressions(text)
    found = []
    for builder, label, block in sources:
        if builder in BUILDERS:
            found.append((_read_source(builder, label, block, path, variables), block.line, block.end_line))
    attach_suppressions(found, suppressions)
    return [vm for vm, _, _ in found]


# --------------------------------------------------------------------------------------------
# Sources and variables per syntax
# --------------------------------------------------------------------------------------------


def _hcl_json_sources(document: dict) -> tuple[list[tuple[str, str, Block]], Variables]:
    """`.pkr.json`: `{"source": {"TYPE": {"NAME": {...}}}, "variable": {...}}`."""
    lines = getattr(document, "lines", {})
    blocks = json_blocks(document.get("source"), "source", 2, _JSON_BLOCKS, "hcl", lines.get("source"))
    sources = [(b.labels[0], b.labels[1], b) for b in blocks]
    root = Block(type="", labels=[])
    root.blocks = json_blocks(document.get("variable"), "variable", 1, {}, "hcl", lines.get("variable"))
    return sources, variable_defaults(root)


def _legacy_sources(document: dict, path: Path) -> tuple[list[tuple[str, str, Block]], Variables]:
    """Legacy JSON: `{"variables": {...}, "builders": [{"type": ..., ...}]}`."""
    builders = document["builders"]
    if not isinstance(builders, list):
        raise InputError('"builders" must be a list', file=str(path), line=json_line(document, "builders"))
    variables: Variables = {}
    declared = document.get("variables")
    if isinstance(declared, dict):
        for name, value in declared.items():
            expr = expr_from_json(value, json_line(declared, name), "packer")
            if expr.known and expr.value is not None:
                variables[name] = (expr, "the template's variables")
    sources = []
    for index, item in enumerate(builders):
        if not isinstance(item, dict) or not isinstance(item.get("type"), str):
            continue
        block = json_block(item, "builder", [], _JSON_BLOCKS, "packer", json_line(builders, index))
        label = item["type"]
        if "name" in block.attrs:  # the builder's name, used when vm_name is not known
            name, _ = resolve(block.attrs["name"], variables)
            if name.known and isinstance(name.value, str) and name.value:
                label = name.value
        sources.append((item["type"], label, block))
    return sources, variables


_SIBLING_CACHE: dict[tuple[str, bytes], tuple[Variables, Variables] | None] = {}


def _sibling_values(path: Path, data: bytes) -> tuple[Variables, Variables] | None:
    """(variable defaults, assignments) of another file of the folder, parsed once per run."""
    key = (str(path), data)
    if key not in _SIBLING_CACHE:
        if len(_SIBLING_CACHE) > 512:
            _SIBLING_CACHE.clear()
        try:
            root = parse_hcl(decode_text(data, path), path)
            _SIBLING_CACHE[key] = (variable_defaults(root), assigned_values(root, path.name))
        except InputError:
            _SIBLING_CACHE[key] = None
    return _SIBLING_CACHE[key]


def _with_siblings(variables: Variables, path: Path, siblings: Iterable[tuple[Path, bytes]] | None) -> Variables:
    """Defaults from the folder's other `*.pkr.hcl`, this file's own, then `*.auto.pkrvars.hcl`."""
    defaults: Variables = {}
    assigned: Variables = {}
    for sibling, data in siblings or ():
        name = sibling.name.lower()
        if sibling == path or not name.endswith((".pkr.hcl", ".pkrvars.hcl")):
            continue
        parsed = _sibling_values(sibling, data)
        if parsed is None:
            continue  # reported when that file is read itself
        if name.endswith(".auto.pkrvars.hcl"):
            assigned.update(parsed[1])
        else:
            defaults.update(parsed[0])
    defaults.update(variables)
    defaults.update(assigned)
    return defaults


# --------------------------------------------------------------------------------------------
# One builder
# --------------------------------------------------------------------------------------------


def _read_source(builder: str, label: str, block: Block, path: Path, variables: Variables) -> TemplateVM:
    vm = TemplateVM(name=_vm_name(block, label, variables), file=str(path), kind=KIND, line=block.line)
    family = "vsphere" if builder in VSPHERE else "vmware"
    scalars = _VSPHERE_SCALARS if family == "vsphere" else _VMWARE_SCALARS
    for option, (key, kind) in scalars.items():
        if option in block.attrs:
            set_from_expr(vm, key, option, block.attrs[option], kind, variables)
    if "firmware" in block.attrs:
        _firmware(vm, block.attrs["firmware"], variables)
    if builder in CLONES:
        source = block.attrs.get("template") or block.attrs.get("source_path")
        what = f" {short(source.raw, 60)}" if source is not None else ""
        vm.notes.append(f"{builder} clones{what}: settings not written here come from the source")
    if family == "vsphere":
        _vsphere_devices(builder, block, vm, variables)
    else:
        _vmware_devices(builder, block, vm, variables)
    for option in _PASSTHROUGH[family]:
        if option in block.attrs:
            _passthrough(vm, option, block.attrs[option], variables)
    return vm


def _vm_name(block: Block, label: str, variables: Variables) -> str:
    expr = block.attrs.get("vm_name")
    if expr is not None:
        expr, _ = resolve(expr, variables)
        if expr.known and isinstance(expr.value, str | int) and str(expr.value):
            return str(expr.value)
    return label


def _firmware(vm: TemplateVM, expr: Expr, variables: Variables) -> None:
    """bios / efi / efi-secure; the last is EFI with secure boot on."""
    value = set_from_expr(vm, "firmware", "firmware", expr, "lower", variables)
    if isinstance(value, str) and value.lower() == "efi-secure":
        vm.set("firmware", "efi", expr.line, raw=expr.raw)
        vm.set("uefi.secureBoot.enabled", "TRUE", expr.line)


def _passthrough(vm: TemplateVM, option: str, expr: Expr, variables: Variables) -> None:
    expr, origin = resolve(expr, variables)
    if expr.known and expr.value is None:
        return
    if expr.items is None:
        vm.notes.append(f"{option} = {short(expr.raw)}: unknown")
        return
    if origin:
        vm.notes.append(f"{option} = {short(expr.raw)}: using the map from {origin}")
    for key in expr.dynamic_keys:
        vm.notes.append(f"{option} key {short(key)}: unknown")
    for key, item in expr.items.items():
        line = expr.line if origin else item.line
        if item.known and item.value is None:
            continue
        if item.known:
            vm.set(key, vmx_value(item.value, "str"), line)
        else:
            vm.set(key, None, line, raw=item.raw)
            vm.notes.append(f"{option} {key} = {short(item.raw)}: unknown")


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


def _vsphere_devices(builder: str, block: Block, vm: TemplateVM, variables: Variables) -> None:
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


def _nic(vm: TemplateVM, number: int, line: int | None, card: Expr | None, variables: Variables,
         option: str) -> None:
    vm.set(f"ethernet{number}.present", "TRUE", line)
    if card is None:
        return
    card = resolved_value(vm, option, card, variables)
    if card.known and card.value is None:
        return  # null: the builder's default applies
    name = vmx_value(card.value, "lower") if card.known else None
    if name is None:
        vm.set(f"ethernet{number}.virtualDev", None, card.line, raw=card.raw)
        if card.known:  # a list or map where one type name belongs
            vm.notes.append(f"{option} = {short(card.raw)}: not a single adapter type, unknown")
        return
    vm.set(f"ethernet{number}.virtualDev", _NIC_TYPES.get(name, name), card.line)


# --------------------------------------------------------------------------------------------
# Devices: vmware-iso / vmware-vmx
# --------------------------------------------------------------------------------------------


def _vmware_devices(builder: str, block: Block, vm: TemplateVM, variables: Variables) -> None:
    """vmware-iso: one adapter type for every disk (primary first, then the additional ones)."""
    if builder == "vmware-iso":
        _vmware_disks(block, vm, variables)
    if "network_adapter_type" in block.attrs:
        expr = block.attrs["network_adapter_type"]
        _nic(vm, 0, expr.line, expr, variables, "network_adapter_type")


def _vmware_disks(block: Block, vm: TemplateVM, variables: Variables) -> None:
    primary = block.attrs.get("disk_size")
    additional: list[Expr] = []
    if "disk_additional_size" in block.attrs:
        extra = resolved_value(vm, "disk_additional_size", block.attrs["disk_additional_size"], variables)
        additional = list(extra.elems or [])
    adapter = block.attrs.get("disk_adapter_type")
    if adapter is None and primary is None and not additional:
        return
    # The primary disk exists whether or not its size is written; the others follow it.
    disks = [("disk_size", primary)] + [(f"disk_additional_size[{i}]", e) for i, e in enumerate(additional)]
    first_line = next((e.line for _, e in disks if e is not None), adapter.line if adapter else block.line)
    if adapter is None:
        controllers = _Controllers()
        controllers.slots.append(("scsi", 0))  # the builder's default adapter is a SCSI one
        vm.set("scsi0.present", "TRUE", first_line)
    else:
        controllers = _controller_list(vm, "disk_adapter_type", adapter, variables)
    for index, (option, expr) in enumerate(disks):
        controllers.attach(vm, 0, expr.line if expr is not None else first_line)
        if expr is not None:
            _sized_disk(vm, index, option, expr, variables)
