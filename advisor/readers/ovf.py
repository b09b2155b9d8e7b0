"""OVF / OVA reader: each VirtualSystem of a descriptor as the `.vmx` keys it would deploy with.

Handles OVF 0.9 (VMware's `Section xsi:type=...` form), 1.x and 2.x, with or without VMware's
`vmw` extensions, single VMs and VirtualSystemCollections (one TemplateVM per VirtualSystem).
Elements are matched by local name, so the rasd/sasd/epasd and envelope namespaces of the
different versions all read the same way.

Security: the XML is parsed only through defusedxml, which refuses entity declarations (the
"billion laughs" expansion and external-entity file reads both need one) and external
references. A plain DOCTYPE without entities is harmless and accepted. An `.ova` is read from
memory with tarfile, never extracted: only the first `.ovf` member is read, members with absolute
or `..` paths are ignored, and a descriptor over 32 MiB is refused.

Deployment options: when a DeploymentOptionSection exists, items tagged with
`ovf:configuration` are kept only for the default configuration, which is what a deployment
without choices gets.
"""

from __future__ import annotations

import io
import re
import tarfile
from dataclasses import dataclass, field
from pathlib import Path, PurePosixPath, PureWindowsPath
from typing import Any

from advisor.errors import InputError
from advisor.readers.base import TemplateVM
from advisor.readers.hclsupport import attach_suppressions, parse_suppression

KIND = "ovf"
MAX_DESCRIPTOR_BYTES = 32 * 1024 * 1024
MAX_DEPTH = 64  # VirtualSystemCollection nesting deeper than this is not a real appliance

# ResourceType values (CIM_ResourceAllocationSettingData) advisor reads.
_CPU, _MEMORY, _IDE, _SCSI, _NIC, _OTHER_STORAGE, _DISK = 3, 4, 5, 6, 10, 20, 17
_SCSI_MODELS = {"virtualscsi": "pvscsi", "lsilogic": "lsilogic", "lsilogicsas": "lsisas1068",
                "buslogic": "buslogic"}
_NIC_MODELS = {"vmxnet3": "vmxnet3", "e1000": "e1000", "e1000e": "e1000e", "pcnet32": "vlance",
               "vmxnet2": "vmxnet", "vmxnet": "vmxnet"}
_SCSI_CONTROLLER_UNIT = 7
_UNITS = {"scsi": 16, "sata": 30, "nvme": 64}

# vmw:Config keys (vSphere API property paths) -> (.vmx key, kind). Unlisted keys are device or
# deployment details with no .vmx meaning advisor uses, and are skipped.
_CONFIG_KEYS: dict[str, tuple[str, str]] = {
    "cpuHotAddEnabled": ("vcpu.hotadd", "bool"),
    "cpuHotRemoveEnabled": ("vcpu.hotremove", "bool"),
    "memoryHotAddEnabled": ("mem.hotadd", "bool"),
    "firmware": ("firmware", "lower"),
    "nestedHVEnabled": ("vhv.enable", "bool"),
    "vPMCEnabled": ("vpmc.enable", "bool"),
    "virtualICH7MPresent": ("ich7m.present", "bool"),
    "virtualSMCPresent": ("smc.present", "bool"),
    "bootOptions.efiSecureBootEnabled": ("uefi.secureBoot.enabled", "bool"),
    "flags.vbsEnabled": ("vbs.enable", "bool"),
    "flags.vvtdEnabled": ("vvtd.enable", "bool"),
    "latencySensitivity.level": ("sched.cpu.latencySensitivity", "lower"),
    "memoryReservationLockedToMax": ("sched.mem.pin", "bool"),
    "tools.syncTimeWithHost": ("tools.syncTime", "bool"),
    "tools.toolsUpgradePolicy": ("tools.upgrade.policy", "str"),
    "tools.afterPowerOn": ("toolScripts.afterPowerOn", "bool"),
    "tools.afterResume": ("toolScripts.afterResume", "bool"),
    "tools.beforeGuestShutdown": ("toolScripts.beforePowerOff", "bool"),
    "tools.beforeGuestStandby": ("toolScripts.beforeSuspend", "bool"),
    "powerOpInfo.powerOffType": ("powerType.powerOff", "str"),
    "powerOpInfo.resetType": ("powerType.reset", "str"),
    "powerOpInfo.suspendType": ("powerType.suspend", "str"),
}
# Share settings come as a level plus a count used only when the level is "custom".
_SHARE_CONFIGS = {"cpuAllocation.shares": "sched.cpu.shares", "memoryAllocation.shares": "sched.mem.shares"}


def sniff(path: Path, head: bytes) -> bool:
    """`.ovf` / `.ova` by name, an XML Envelope mentioning OVF, or a tar whose first member is .ovf."""
    if path.suffix.lower() in (".ovf", ".ova"):
        return True
    if head[257:262] == b"ustar":
        return head[:100].rstrip(b"\0").lower().endswith(b".ovf")
    text = head.lstrip(b"\xef\xbb\xbf \t\r\n")
    return text.startswith(b"<") and b"Envelope" in text and b"ovf" in text.lower()


def read(path: Path, data: bytes) -> list[TemplateVM]:
    """Every VirtualSystem in the descriptor (or the .ova's descriptor), as a TemplateVM."""
    if path.suffix.lower() == ".ova" or (data[257:262] == b"ustar" and not data.lstrip().startswith(b"<")):
        data = _ova_descriptor(data, path)
    elif len(data) > MAX_DESCRIPTOR_BYTES:
        raise InputError("OVF descriptor is larger than 32 MiB", file=str(path))
    root, comments = _parse_xml(data, path)
    if root.tag != "Envelope":
        raise InputError(f"not an OVF descriptor: the root element is <{root.tag}>", file=str(path), line=root.line)
    context = _Envelope.of(root)
    found = [(_read_system(node, index, context, path), node.line, node.end_line)
             for index, node in enumerate(_virtual_systems(root, 0, path))]
    suppressions = [(rule, reason, line) for text, line in comments for rule, reason in parse_suppression(text)]
    attach_suppressions(found, suppressions)
    return [vm for vm, _, _ in found]


# --------------------------------------------------------------------------------------------
# OVA
# --------------------------------------------------------------------------------------------


def _ova_descriptor(data: bytes, path: Path) -> bytes:
    """The first `.ovf` member's bytes, read in memory; unsafe member names are skipped."""
    try:
        with tarfile.open(fileobj=io.BytesIO(data), mode="r:") as archive:
            for member in archive:
                if not member.isfile() or not member.name.lower().endswith(".ovf") or _unsafe(member.name):
                    continue
                if member.size > MAX_DESCRIPTOR_BYTES:
                    raise InputError(f"OVF descriptor {member.name} is larger than 32 MiB", file=str(path))
                handle = archive.extractfile(member)
                if handle is None:
                    continue
                return handle.read(MAX_DESCRIPTOR_BYTES + 1)
    except (tarfile.TarError, EOFError, OSError, ValueError) as exc:
        raise InputError(f"not a readable OVA (tar) archive: {exc}", file=str(path)) from None
    except OverflowError:  # a member size (base-256 header field) too large for tarfile to seek past
        raise InputError("not a readable OVA (tar) archive: a member's size is impossibly large",
                         file=str(path)) from None
    raise InputError("the OVA holds no .ovf descriptor", file=str(path))


def _unsafe(name: str) -> bool:
    """Absolute paths and `..` steps: never meaningful inside an OVA, a classic traversal trick."""
    posix, windows = PurePosixPath(name), PureWindowsPath(name)
    return (posix.is_absolute() or windows.is_absolute() or bool(windows.drive)
            or ".." in posix.parts or ".." in windows.parts)


# --------------------------------------------------------------------------------------------
# XML with line numbers
# --------------------------------------------------------------------------------------------


@dataclass(slots=True)
class _Node:
    """An element reduced to what the reader needs: local name, attributes by local name, lines."""

    tag: str
    attrs: dict[str, str]
    line: int
    end_line: int | None = None
    text: str = ""
    children: list[_Node] = field(default_factory=list)

    def kind(self) -> str:
        """The element's meaning: its local name, or for OVF 0.9's generic `Section`/`Content`
        elements the `xsi:type` they carry (`ovf:VirtualHardwareSection_Type`)."""
        if self.tag in ("Section", "Content") and "type" in self.attrs:
            return self.attrs["type"].rsplit(":", 1)[-1].removesuffix("_Type")
        return self.tag

    def find(self, kind: str) -> _Node | None:
        return next((c for c in self.children if c.kind() == kind), None)

    def find_all(self, kind: str) -> list[_Node]:
        return [c for c in self.children if c.kind() == kind]


def _local(name: str) -> str:
    return name.rsplit("}", 1)[-1]


class _TreeTarget:
    """Parser target that builds _Nodes and records the expat line of every start, end, comment."""

    def __init__(self) -> None:
        self.parser: Any = None  # the XMLParser feeding this target, set by it
        self.stack: list[_Node] = []
        self.root: _Node | None = None
        self.comments: list[tuple[str, int]] = []

    def _line(self) -> int:
        return self.parser.parser.CurrentLineNumber

    def start(self, tag: str, attrib: dict[str, str]) -> None:
        node = _Node(_local(tag), {_local(k): v for k, v in attrib.items()}, self._line())
        if self.stack:
            self.stack[-1].children.append(node)
        elif self.root is None:
            self.root = node
        self.stack.append(node)

    def end(self, tag: str) -> None:
        node = self.stack.pop()
        node.end_line = self._line()
        node.text = node.text.strip()

    def data(self, text: str) -> None:
        if self.stack:
            self.stack[-1].text += text

    def comment(self, text: str) -> None:
        self.comments.append((text, self._line()))

    def close(self) -> _Node | None:
        return self.root


def _parse_xml(data: bytes, path: Path) -> tuple[_Node, list[tuple[str, int]]]:
    from xml.etree.ElementTree import ParseError

    from defusedxml import DefusedXmlException, EntitiesForbidden, ExternalReferenceForbidden
    from defusedxml.ElementTree import DefusedXMLParser

    target = _TreeTarget()
    # forbid_dtd stays off so a harmless DOCTYPE passes; entities and external references,
    # the actual attacks, are refused.
    parser = DefusedXMLParser(target=target, forbid_dtd=False, forbid_entities=True, forbid_external=True)
    target.parser = parser
    try:
        parser.feed(data)
        root = parser.close()
    except EntitiesForbidden:
        raise InputError("entity declarations are not allowed", file=str(path), line=_safe_line(parser)) from None
    except ExternalReferenceForbidden:
        raise InputError("external references are not allowed", file=str(path), line=_safe_line(parser)) from None
    except DefusedXmlException as exc:
        raise InputError(f"XML construct not allowed: {exc}", file=str(path), line=_safe_line(parser)) from None
    except ParseError as exc:
        message = re.sub(r":\s*line \d+, column \d+$", "", str(exc))
        raise InputError(f"XML syntax error: {message}", file=str(path), line=exc.position[0]) from None
    except (ValueError, LookupError) as exc:  # e.g. an encoding expat cannot decode
        raise InputError(f"XML cannot be read: {exc}", file=str(path), line=_safe_line(parser)) from None
    if root is None:
        raise InputError("XML has no root element", file=str(path))
    return root, target.comments


def _safe_line(parser) -> int | None:
    try:
        return parser.parser.CurrentLineNumber
    except AttributeError:
        return None


# --------------------------------------------------------------------------------------------
# Envelope-wide facts
# --------------------------------------------------------------------------------------------


@dataclass(slots=True)
class _Envelope:
    """What VirtualSystems refer to: disk capacities and the default deployment option."""

    disks_mb: dict[str, int | None]
    configuration: str | None

    @classmethod
    def of(cls, root: _Node) -> _Envelope:
        disks: dict[str, int | None] = {}
        for section in root.find_all("DiskSection"):
            for disk in section.find_all("Disk"):
                if "diskId" in disk.attrs:
                    units = disk.attrs.get("capacityAllocationUnits", "byte")
                    disks[disk.attrs["diskId"]] = _to_unit(disk.attrs.get("capacity", ""), units, "byte", 2**20)
        return cls(disks, _default_configuration(root))

    def selected(self, node: _Node) -> bool:
        """Is this item part of the default deployment option (or of every option)?"""
        wanted = node.attrs.get("configuration")
        return wanted is None or self.configuration is None or self.configuration in wanted.split()


def _default_configuration(root: _Node) -> str | None:
    section = root.find("DeploymentOptionSection")
    if section is None:
        return None
    options = section.find_all("Configuration")
    chosen = next((c for c in options if c.attrs.get("default", "").lower() == "true"), options[0] if options else None)
    return chosen.attrs.get("id") if chosen is not None else None


def _virtual_systems(node: _Node, depth: int, path: Path) -> list[_Node]:
    """VirtualSystems in document order, through any nesting of collections."""
    if depth > MAX_DEPTH:
        raise InputError("VirtualSystemCollection is nested too deeply", file=str(path), line=node.line)
    found = []
    for child in node.children:
        if child.kind() == "VirtualSystem":
            found.append(child)
        elif child.kind() == "VirtualSystemCollection":
            found.extend(_virtual_systems(child, depth + 1, path))
    return found


# --------------------------------------------------------------------------------------------
# Units
# --------------------------------------------------------------------------------------------

# Unit names some exporters write instead of DSP0004 programmatic units, per base unit.
_NAMED_UNITS = {
    "byte": {"byte": 1, "bytes": 1, "kilobytes": 2**10, "kb": 2**10, "megabytes": 2**20, "mb": 2**20,
             "gigabytes": 2**30, "gb": 2**30, "terabytes": 2**40, "tb": 2**40},
    "hertz": {"hertz": 1, "hz": 1, "megahertz": 10**6, "mhz": 10**6, "gigahertz": 10**9, "ghz": 10**9},
}


def _unit_factor(units: str, base: str) -> int | None:
    """`byte * 2^20` (DSP0004 programmatic units) or a named unit, in `base` units; else None."""
    text = units.replace(" ", "").lower()
    if text in _NAMED_UNITS[base]:
        return _NAMED_UNITS[base][text]
    terms = text.split("*")
    if terms[0] not in (base, base + "s"):
        return None
    factor = 1
    for term in terms[1:]:
        match = re.fullmatch(r"(\d{1,4})(?:\^(\d{1,3}))?", term)
        if not match:
            return None
        factor *= int(match.group(1)) ** int(match.group(2) or 1)
        if factor > 2**80:  # past any real unit (yottabytes); products of many terms grow unbounded
            return None
    return factor


def _to_unit(quantity: str, units: str | None, base: str, target: int) -> int | None:
    """A quantity in `units` converted to `target` base units (MB = 2^20 bytes, MHz = 10^6 Hz)."""
    if units is None or not re.fullmatch(r"\s*\d{1,20}\s*", quantity or ""):
        return None
    factor = _unit_factor(units, base)
    if factor is None:
        return None
    return int(quantity) * factor // target


# --------------------------------------------------------------------------------------------
# One VirtualSystem
# --------------------------------------------------------------------------------------------


def _read_system(node: _Node, index: int, envelope: _Envelope, path: Path) -> TemplateVM:
    name_node = node.find("Name")
    name = node.attrs.get("id") or (name_node.text if name_node is not None else "") or f"vm{index}"
    vm = TemplateVM(name=name, file=str(path), kind=KIND, line=node.line)
    _operating_system(node, vm)
    hardware = _hardware_section(node, vm)
    if hardware is None:
        vm.notes.append("no VirtualHardwareSection: the hardware is not described")
        return vm
    _system_type(hardware, vm)
    items = [i for i in hardware.children if i.tag.endswith("Item") and envelope.selected(i)
             and i.attrs.get("bound", "normal") == "normal"]
    if envelope.configuration is not None and any("configuration" in c.attrs for c in hardware.children):
        vm.notes.append(f"deployment option {envelope.configuration!r} (the default) is the one read")
    _items(items, vm, envelope)
    _configs(hardware, vm, envelope)
    return vm


def _operating_system(node: _Node, vm: TemplateVM) -> None:
    section = node.find("OperatingSystemSection")
    if section is None:
        return
    if section.attrs.get("osType"):
        vm.set("guestOS", section.attrs["osType"], section.line)
        return
    description = section.find("Description")
    shown = description.text if description is not None and description.text else section.attrs.get("id", "?")
    vm.notes.append(f"guest OS given only as {shown!r} (no vmw:osType): guestOS is unknown")


def _hardware_section(node: _Node, vm: TemplateVM) -> _Node | None:
    """The VMware hardware section when there are several (one per virtualization platform)."""
    sections = node.find_all("VirtualHardwareSection")
    for section in sections:
        if "vmx-" in _family(section):
            return section
    return sections[0] if sections else None


def _family(section: _Node) -> str:
    system = section.find("System")
    family = system.find("VirtualSystemType") if system is not None else None
    return family.text if family is not None else ""


def _system_type(section: _Node, vm: TemplateVM) -> None:
    """`vmx-13` -> virtualHW.version 13; a list of families means "any of these": take the newest."""
    system = section.find("System")
    family = system.find("VirtualSystemType") if system is not None else None
    if family is None:
        return
    versions = [int(v) for v in re.findall(r"vmx-0*(\d{1,3})\b", family.text)]
    if versions:
        vm.set("virtualHW.version", str(max(versions)), family.line, raw=family.text)
        if len(versions) > 1:
            vm.notes.append(f"VirtualSystemType {family.text!r} allows several versions: the newest is read")
    else:
        vm.notes.append(f"VirtualSystemType {family.text!r} is not a VMware hardware version")


# --------------------------------------------------------------------------------------------
# Items
# --------------------------------------------------------------------------------------------


def _field(item: _Node, name: str) -> _Node | None:
    """A child element by local name; OVF 0.9 spells some differently (`InstanceId`)."""
    found = item.find(name)
    if found is None:
        lowered = name.lower()
        found = next((c for c in item.children if c.tag.lower() == lowered), None)
    return found


def _small_int(text: str, digits: int = 18) -> int | None:
    """`text` as an int when it is ASCII digits, at most `digits` of them; else None.

    str.isdigit() alone is not enough: it accepts superscripts ("²") that int() refuses, and a
    number of thousands of digits would reach int()'s limit.
    """
    return int(text) if text.isascii() and text.isdigit() and len(text) <= digits else None


def _resource_type(item: _Node) -> int | None:
    node = _field(item, "ResourceType")
    return _small_int(node.text, 5) if node is not None else None


def _subtype(item: _Node) -> str:
    node = _field(item, "ResourceSubType")
    return node.text.split()[0].lower() if node is not None and node.text.split() else ""


def _items(items: list[_Node], vm: TemplateVM, envelope: _Envelope) -> None:
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


def _quantity(item: _Node, vm: TemplateVM, key: str, what: str) -> str | None:
    """An item's VirtualQuantity as digits, or unknown (a placeholder, say) with a note."""
    node = _field(item, "VirtualQuantity")
    if node is None:
        return None
    if _small_int(node.text) is not None:
        return node.text
    vm.set(key, None, node.line, raw=node.text)
    vm.notes.append(f"{what} VirtualQuantity {node.text!r}: unknown")
    return None


def _cpu(item: _Node, vm: TemplateVM) -> None:
    quantity = _quantity(item, vm, "numvcpus", "CPU")
    if quantity is not None:
        node = _field(item, "VirtualQuantity")
        assert node is not None  # _quantity read it
        vm.set("numvcpus", str(int(quantity)), node.line)
    cores = _field(item, "CoresPerSocket")
    if cores is not None and _small_int(cores.text) is not None:
        vm.set("cpuid.coresPerSocket", str(int(cores.text)), cores.line)
    elif _small_int(item.attrs.get("CoresPerSocket", "")) is not None:
        vm.set("cpuid.coresPerSocket", str(int(item.attrs["CoresPerSocket"])), item.line)
    _allocation(item, vm, "hertz", 10**6, "sched.cpu")


def _memory(item: _Node, vm: TemplateVM) -> None:
    quantity = _quantity(item, vm, "memsize", "memory")
    if quantity is not None:
        node = _field(item, "VirtualQuantity")
        assert node is not None  # _quantity read it
        units = _field(item, "AllocationUnits")
        megabytes = _to_unit(quantity, units.text if units is not None else None, "byte", 2**20)
        if megabytes is None:
            vm.set("memsize", None, node.line, raw=node.text)
            vm.notes.append("memory VirtualQuantity has no usable AllocationUnits: memsize is unknown")
        else:
            vm.set("memsize", str(megabytes), node.line)
    _allocation(item, vm, "byte", 2**20, "sched.mem")


def _allocation(item: _Node, vm: TemplateVM, base: str, target: int, prefix: str) -> None:
    """Reservation / Limit (in the item's AllocationUnits) and Weight (shares) of CPU or memory."""
    units = _field(item, "AllocationUnits")
    for name, suffix in (("Reservation", "min"), ("Limit", "max")):
        node = _field(item, name)
        if node is None or not node.text:
            continue
        value = _to_unit(node.text, units.text if units is not None else None, base, target)
        vm.set(f"{prefix}.{suffix}", str(value) if value is not None else None, node.line,
               raw=None if value is not None else node.text)
    weight = _field(item, "Weight")
    if weight is not None and _small_int(weight.text) is not None:
        vm.set(f"{prefix}.shares", str(int(weight.text)), weight.line)


def _controller(item: _Node, kind: int, vm: TemplateVM, controllers: dict, counts: dict[str, int]) -> None:
    instance = _field(item, "InstanceID")
    if instance is None:
        return
    bus, model = _controller_bus(kind, _subtype(item))
    if bus is None:
        controllers[instance.text] = None  # IDE and unknown controllers are not modelled
        return
    address = _field(item, "Address")
    number = _small_int(address.text, 2) if address is not None else None
    number = counts.get(bus, 0) if number is None else number
    counts[bus] = max(counts.get(bus, 0), number + 1)
    controllers[instance.text] = (bus, number)
    vm.set(f"{bus}{number}.present", "TRUE", item.line)
    if bus == "scsi":
        subtype = _field(item, "ResourceSubType")
        vm.set(f"scsi{number}.virtualDev", model, subtype.line if subtype is not None else item.line,
               raw=None if model else (subtype.text if subtype is not None else None))
        if model is None:
            vm.notes.append(f"SCSI controller {number}: model {_subtype(item)!r} is unknown")


def _controller_bus(kind: int, subtype: str) -> tuple[str | None, str | None]:
    if kind == _SCSI:
        return "scsi", _SCSI_MODELS.get(subtype)
    if kind == _OTHER_STORAGE and ("ahci" in subtype or "sata" in subtype):
        return "sata", None
    if kind == _OTHER_STORAGE and "nvme" in subtype:
        return "nvme", None
    return None, None


def _disk(item: _Node, index: int, vm: TemplateVM, envelope: _Envelope, controllers: dict,
          used: dict[tuple[str, int], set[int]]) -> bool:
    """A disk on its controller (Parent) at its unit (AddressOnParent); False if not modelled."""
    parent = _field(item, "Parent")
    slot = controllers.get(parent.text) if parent is not None else None
    if slot is None:
        return False  # on IDE, or on a controller the descriptor does not define
    units = used.setdefault(slot, set())
    address = _field(item, "AddressOnParent")
    unit = _small_int(address.text, 3) if address is not None else None
    if unit is None:
        # No address: vCenter takes the first free unit (skipping a SCSI controller's own 7).
        unit = next(u for u in range(_UNITS[slot[0]] + len(units) + 1)
                    if u not in units and not (slot[0] == "scsi" and u == _SCSI_CONTROLLER_UNIT))
    units.add(unit)
    bus, number = slot
    vm.set(f"{bus}{number}:{unit}.present", "TRUE", (address or item).line)
    size = _disk_size(item, envelope)
    host = _field(item, "HostResource")
    if size is not None:
        vm.set(f"advisor.disk{index}.size", str(size), (host or item).line)
    return True


def _disk_size(item: _Node, envelope: _Envelope) -> int | None:
    """Capacity in MB from the DiskSection entry the item points at (`ovf:/disk/ID`)."""
    host = _field(item, "HostResource")
    if host is not None:
        match = re.fullmatch(r"(?:ovf:)?/disk/(.+)", host.text)
        if match:
            return envelope.disks_mb.get(match.group(1))
    quantity = _field(item, "VirtualQuantity")
    units = _field(item, "AllocationUnits") or _field(item, "VirtualQuantityUnits")
    if quantity is not None:
        return _to_unit(quantity.text, units.text if units is not None else None, "byte", 2**20)
    return None


def _nic(item: _Node, index: int, vm: TemplateVM) -> None:
    vm.set(f"ethernet{index}.present", "TRUE", item.line)
    subtype = _subtype(item)
    if not subtype:
        return
    node = _field(item, "ResourceSubType")
    assert node is not None  # _subtype read it
    model = _NIC_MODELS.get(subtype)
    vm.set(f"ethernet{index}.virtualDev", model, node.line, raw=None if model else node.text)
    if model is None:
        vm.notes.append(f"network adapter {index}: model {node.text!r} is unknown")


# --------------------------------------------------------------------------------------------
# vmw:Config and vmw:ExtraConfig
# --------------------------------------------------------------------------------------------


def _configs(section: _Node, vm: TemplateVM, envelope: _Envelope) -> None:
    """Known vmw:Config keys mapped to .vmx keys, then vmw:ExtraConfig keys as-is (they win)."""
    configs = [c for c in section.find_all("Config") if "key" in c.attrs and envelope.selected(c)]
    shares: dict[str, dict[str, _Node]] = {}
    for config in configs:
        key = config.attrs["key"]
        if key in _CONFIG_KEYS:
            vmx_key, kind = _CONFIG_KEYS[key]
            vm.set(vmx_key, _config_value(config.attrs.get("value", ""), kind), config.line)
        elif key.rsplit(".", 1)[0] in _SHARE_CONFIGS:
            shares.setdefault(key.rsplit(".", 1)[0], {})[key.rsplit(".", 1)[1]] = config
    for prefix, parts in shares.items():
        _share_config(vm, _SHARE_CONFIGS[prefix], parts)
    for extra in section.find_all("ExtraConfig"):
        if "key" in extra.attrs and envelope.selected(extra):
            vm.set(extra.attrs["key"], extra.attrs.get("value", ""), extra.line)


def _config_value(value: str, kind: str) -> str:
    if kind == "bool" and value.strip().lower() in ("true", "false"):
        return "TRUE" if value.strip().lower() == "true" else "FALSE"
    return value.lower() if kind == "lower" else value


def _share_config(vm: TemplateVM, key: str, parts: dict[str, _Node]) -> None:
    level = parts.get("level")
    count = parts.get("shares")
    if level is not None and level.attrs.get("value", "").lower() != "custom":
        vm.set(key, level.attrs.get("value", "").lower(), level.line)
    elif count is not None and _small_int(count.attrs.get("value", "")) is not None:
        vm.set(key, count.attrs["value"], count.line)
