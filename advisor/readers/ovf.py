"""OVF / OVA reader: each VirtualSystem of a descriptor as the `.vmx` keys it would deploy with.

Handles OVF 0.9 (VMware's `Section xsi:type=...` form), 1.x and 2.x, with or without VMware's
`vmw` extensions, single VMs and VirtualSystemCollections (one TemplateVM per VirtualSystem).
Elements are matched by local name, so the rasd/sasd/epasd and envelope namespaces of the
different versions all read the same way.

The XML and the OVA archive are read safely by advisor.readers.ovfxml (defusedxml, no
extraction, size-bounded); the hardware items are read by advisor.readers.ovf_items.

Deployment options: when a DeploymentOptionSection exists, items tagged with
`ovf:configuration` are kept only for the default configuration, which is what a deployment
without choices gets.
"""

from __future__ import annotations

import re
from dataclasses import dataclass
from pathlib import Path

from advisor.errors import InputError
from advisor.readers.base import TemplateVM
from advisor.readers.ovf_items import read_items, small_int
from advisor.readers.ovfxml import MAX_DESCRIPTOR_BYTES, Node, ova_descriptor, parse_xml, to_unit
from advisor.readers.suppress import attach_suppressions, parse_suppression

KIND = "ovf"
MAX_DEPTH = 64  # VirtualSystemCollection nesting deeper than this is not a real appliance


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
        data = ova_descriptor(data, path)
    elif len(data) > MAX_DESCRIPTOR_BYTES:
        raise InputError("OVF descriptor is larger than 32 MiB", file=str(path))
    root, comments = parse_xml(data, path)
    if root.tag != "Envelope":
        raise InputError(f"not an OVF descriptor: the root element is <{root.tag}>", file=str(path), line=root.line)
    context = _Envelope.of(root)
    found = [(_read_system(node, index, context, path), node.line, node.end_line)
             for index, node in enumerate(_virtual_systems(root, 0, path))]
    suppressions = [(rule, reason, line) for text, line in comments for rule, reason in parse_suppression(text)]
    attach_suppressions(found, suppressions)
    return [vm for vm, _, _ in found]


# --------------------------------------------------------------------------------------------
# Envelope-wide facts
# --------------------------------------------------------------------------------------------


@dataclass(slots=True)
class _Envelope:
    """What VirtualSystems refer to: disk capacities and the default deployment option."""

    disks_mb: dict[str, int | None]
    configuration: str | None

    @classmethod
    def of(cls, root: Node) -> _Envelope:
        disks: dict[str, int | None] = {}
        for section in root.find_all("DiskSection"):
            for disk in section.find_all("Disk"):
                if "diskId" in disk.attrs:
                    units = disk.attrs.get("capacityAllocationUnits", "byte")
                    disks[disk.attrs["diskId"]] = to_unit(disk.attrs.get("capacity", ""), units, "byte", 2**20)
        return cls(disks, _default_configuration(root))

    def selected(self, node: Node) -> bool:
        """Is this item part of the default deployment option (or of every option)?"""
        wanted = node.attrs.get("configuration")
        return wanted is None or self.configuration is None or self.configuration in wanted.split()


def _default_configuration(root: Node) -> str | None:
    section = root.find("DeploymentOptionSection")
    if section is None:
        return None
    options = section.find_all("Configuration")
    chosen = next((c for c in options if c.attrs.get("default", "").lower() == "true"), options[0] if options else None)
    return chosen.attrs.get("id") if chosen is not None else None


def _virtual_systems(node: Node, depth: int, path: Path) -> list[Node]:
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
# One VirtualSystem
# --------------------------------------------------------------------------------------------


def _read_system(node: Node, index: int, envelope: _Envelope, path: Path) -> TemplateVM:
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
    read_items(items, vm, envelope)
    _configs(hardware, vm, envelope)
    return vm


def _operating_system(node: Node, vm: TemplateVM) -> None:
    section = node.find("OperatingSystemSection")
    if section is None:
        return
    if section.attrs.get("osType"):
        vm.set("guestOS", section.attrs["osType"], section.line, column=section.column)
        return
    description = section.find("Description")
    shown = description.text if description is not None and description.text else section.attrs.get("id", "?")
    vm.notes.append(f"guest OS given only as {shown!r} (no vmw:osType): guestOS is unknown")


def _hardware_section(node: Node, vm: TemplateVM) -> Node | None:
    """The VMware hardware section when there are several (one per virtualization platform)."""
    sections = node.find_all("VirtualHardwareSection")
    for section in sections:
        if "vmx-" in _family(section):
            return section
    return sections[0] if sections else None


def _family(section: Node) -> str:
    system = section.find("System")
    family = system.find("VirtualSystemType") if system is not None else None
    return family.text if family is not None else ""


def _system_type(section: Node, vm: TemplateVM) -> None:
    """`vmx-13` -> virtualHW.version 13; a list of families means "any of these": take the newest."""
    system = section.find("System")
    family = system.find("VirtualSystemType") if system is not None else None
    if family is None:
        return
    versions = [int(v) for v in re.findall(r"vmx-0*(\d{1,3})\b", family.text)]
    if versions:
        vm.set("virtualHW.version", str(max(versions)), family.line, raw=family.text, column=family.column)
        if len(versions) > 1:
            vm.notes.append(f"VirtualSystemType {family.text!r} allows several versions: the newest is read")
    else:
        vm.notes.append(f"VirtualSystemType {family.text!r} is not a VMware hardware version")


# --------------------------------------------------------------------------------------------
# vmw:Config and vmw:ExtraConfig
# --------------------------------------------------------------------------------------------


def _configs(section: Node, vm: TemplateVM, envelope: _Envelope) -> None:
    """Known vmw:Config keys mapped to .vmx keys, then vmw:ExtraConfig keys as-is (they win)."""
    configs = [c for c in section.find_all("Config") if "key" in c.attrs and envelope.selected(c)]
    shares: dict[str, dict[str, Node]] = {}
    for config in configs:
        key = config.attrs["key"]
        if key in _CONFIG_KEYS:
            vmx_key, kind = _CONFIG_KEYS[key]
            vm.set(vmx_key, _config_value(config.attrs.get("value", ""), kind), config.line, column=config.column)
        elif key.rsplit(".", 1)[0] in _SHARE_CONFIGS:
            shares.setdefault(key.rsplit(".", 1)[0], {})[key.rsplit(".", 1)[1]] = config
    for prefix, parts in shares.items():
        _share_config(vm, _SHARE_CONFIGS[prefix], parts)
    for extra in section.find_all("ExtraConfig"):
        if "key" in extra.attrs and envelope.selected(extra):
            vm.set(extra.attrs["key"], extra.attrs.get("value", ""), extra.line, column=extra.column)
            vm.passthrough.add(extra.attrs["key"].lower())


def _config_value(value: str, kind: str) -> str:
    if kind == "bool" and value.strip().lower() in ("true", "false"):
        return "TRUE" if value.strip().lower() == "true" else "FALSE"
    return value.lower() if kind == "lower" else value


def _share_config(vm: TemplateVM, key: str, parts: dict[str, Node]) -> None:
    level = parts.get("level")
    count = parts.get("shares")
    if level is not None and level.attrs.get("value", "").lower() != "custom":
        vm.set(key, level.attrs.get("value", "").lower(), level.line, column=level.column)
    elif count is not None and small_int(count.attrs.get("value", "")) is not None:
        vm.set(key, count.attrs["value"], count.line, column=count.column)
