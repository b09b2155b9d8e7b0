"""Packer output: a ``vsphere-iso`` source (HCL2) or builder (legacy JSON) with the recommendation.

Option names are the vsphere-iso builder's
(https://developer.hashicorp.com/packer/integrations/hashicorp/vsphere/latest/components/builder/vsphere-iso,
also https://vmware.github.io/packer-plugin-vsphere/ for the 2.x plugin): CPUs, cpu_cores, RAM,
CPU_reservation, RAM_reservation / RAM_reserve_all (the two exclude each other), CPU_hot_plug,
RAM_hot_plug, NestedHV, disk_controller_type (a list, one entry per controller), storage blocks,
network_adapters, guest_os_type, vm_version; every other key goes into
``configuration_parameters``, which the builder writes to the VM's ExtraConfig unchanged.
Names and values map back onto what advisor.readers.packer reads.

Connection and placement settings (vCenter, credentials, cluster, datastore, network) are
variables the user fills in: advisor cannot know them. The legacy JSON form has no comments, so
reasons go into a root-level ``_comment`` list (Packer ignores root keys starting with ``_``).
"""

from __future__ import annotations

import json
from typing import Any

from advisor.emit import hcl
from advisor.emit.guestid import api_guest_id
from advisor.emit.recommended import NIC_NAMES, SCSI_NAMES, Recommended

# (option, .vmx key, kind)
_SCALARS = (
    ("CPUs", "numvcpus", "int"),
    ("cpu_cores", "cpuid.coresPerSocket", "int"),
    ("CPU_reservation", "sched.cpu.min", "int"),
    ("CPU_limit", "sched.cpu.max", "int"),
    ("CPU_hot_plug", "vcpu.hotadd", "bool"),
    ("RAM", "memsize", "int"),
    ("RAM_hot_plug", "mem.hotadd", "bool"),
    ("NestedHV", "vhv.enable", "bool"),
    ("vm_version", "virtualHW.version", "int"),
)
_VARIABLES = ("vcenter_server", "username", "password", "cluster", "datastore", "network")
_IND = "  "


def _options(rec: Recommended) -> tuple[list[tuple[str, Any, list[str]]], set[str]]:
    """(option, Python value, the .vmx keys behind it) in output order, and the keys consumed.

    Values are Python data so the HCL and JSON renderers share one decision about every key.
    """
    out: list[tuple[str, Any, list[str]]] = []
    consumed: set[str] = set()

    def add(option: str, value: Any, *keys: str) -> None:
        out.append((option, value, list(keys)))
        consumed.update(k.lower() for k in keys)

    add("vm_name", rec.name)
    guest = rec.get("guestOS")
    if guest is not None:
        add("guest_os_type", api_guest_id(guest)[0], "guestOS")
    for option, key, kind in _SCALARS:
        if rec.get(key) is not None:
            add(option, rec.int(key) if kind == "int" else rec.bool(key), key)
    if rec.bool("sched.mem.pin"):
        # RAM_reserve_all reserves all memory and cannot be combined with RAM_reservation.
        add("RAM_reserve_all", True, "sched.mem.pin", "sched.mem.min")
    elif rec.get("sched.mem.min") is not None:
        add("RAM_reservation", rec.int("sched.mem.min"), "sched.mem.min")
        if rec.get("sched.mem.pin") is not None:
            consumed.add("sched.mem.pin")  # FALSE is the builder's default
    controllers = rec.scsi_controllers()
    known = {bus: kind for bus, kind in controllers.items() if kind in SCSI_NAMES}
    if known and len(known) == len(controllers) and list(controllers) == list(range(len(controllers))):
        add("disk_controller_type", [SCSI_NAMES[k]["packer"] for k in controllers.values()],
            *(f"scsi{bus}.virtualDev" for bus in controllers))
    return out, consumed


def _storage(rec: Recommended) -> list[dict[str, Any]]:
    """One storage entry per known disk size (MB), on the Nth controller when there are several."""
    controllers = len(rec.scsi_controllers())
    blocks = []
    for index, size in sorted(rec.disk_sizes.items()):
        if not size.strip().isdigit():
            continue
        block: dict[str, Any] = {"disk_size": int(size), "disk_thin_provisioned": True}
        if controllers > 1:
            block["disk_controller_index"] = min(index, controllers - 1)
        blocks.append(block)
    return blocks


def _adapters(rec: Recommended, consumed: set[str]) -> list[tuple[dict[str, str], str]]:
    """(network_adapters entry, .vmx key) for each NIC whose type the builder knows."""
    adapters = []
    for index, kind in rec.nics().items():
        if kind in NIC_NAMES:
            key = f"ethernet{index}.virtualDev"
            adapters.append(({"network_card": NIC_NAMES[kind]["packer"]}, key))
            consumed.add(key.lower())
    return adapters


# --------------------------------------------------------------------------------------------
# HCL2
# --------------------------------------------------------------------------------------------


def render(name: str, settings: dict[str, str], reasons: dict[str, tuple[str, str]] | None = None) -> str:
    """An HCL2 ``source "vsphere-iso"`` block (with the variables it references)."""
    rec = Recommended.of(name, settings, reasons)
    options, consumed = _options(rec)
    lines: list[str] = [f"# Generated by advisor for VM {hcl.string(name)}.\n"]
    for variable in _VARIABLES:
        sensitive = f"\n{_IND}sensitive = true" if variable == "password" else ""
        lines.append(f'variable "{variable}" {{\n{_IND}type = string{sensitive}\n}}\n')
    lines.append(f'\nsource "vsphere-iso" {hcl.string(hcl.identifier(name))} {{\n')
    lines.append(hcl.comment("Connection and placement: advisor cannot know these; set the variables.", _IND))
    for variable in ("vcenter_server", "username", "password", "cluster", "datastore"):
        lines.append(f"{_IND}{variable} = var.{variable}\n")
    for option, value, keys in options:
        for text in rec.reasons_for(keys):
            lines.append(hcl.comment(text, _IND))
        lines.append(f"{_IND}{option} = {_hcl_value(value)}\n")
    for block in _storage(rec):
        lines.append(f"{_IND}storage {{\n")
        lines.extend(f"{_IND * 2}{k} = {_hcl_value(v)}\n" for k, v in block.items())
        lines.append(f"{_IND}}}\n")
    for adapter, key in _adapters(rec, consumed):
        for text in rec.reasons_for([key]):
            lines.append(hcl.comment(text, _IND))
        lines.append(f"{_IND}network_adapters {{\n{_IND * 2}network      = var.network\n")
        lines.extend(f"{_IND * 2}{k} = {_hcl_value(v)}\n" for k, v in adapter.items())
        lines.append(f"{_IND}}}\n")
    extras = rec.extras(consumed)
    if extras:
        lines.append(f"{_IND}configuration_parameters = {{\n")
        for key, value in extras:
            reason = rec.reason(key)
            if reason:
                lines.append(hcl.comment(reason, _IND * 2))
            lines.append(f"{_IND * 2}{hcl.string(key)} = {hcl.string(value)}\n")
        lines.append(f"{_IND}}}\n")
    lines.append("}\n")
    return "".join(lines)


def _hcl_value(value: Any) -> str:
    if isinstance(value, bool):
        return hcl.boolean(value)
    if isinstance(value, int):
        return str(value)
    if isinstance(value, list):
        return "[" + ", ".join(_hcl_value(v) for v in value) + "]"
    return hcl.string(str(value))


# --------------------------------------------------------------------------------------------
# Legacy JSON
# --------------------------------------------------------------------------------------------


def render_json(name: str, settings: dict[str, str], reasons: dict[str, tuple[str, str]] | None = None) -> str:
    """The same builder as a legacy JSON template (``{"builders": [...]}``)."""
    rec = Recommended.of(name, settings, reasons)
    options, consumed = _options(rec)
    builder: dict[str, Any] = {"type": "vsphere-iso"}
    notes: list[str] = [f"Generated by advisor for VM {name!r}."]
    for variable in ("vcenter_server", "username", "password", "cluster", "datastore"):
        builder[variable] = f"{{{{user `{variable}`}}}}"
    for option, value, keys in options:
        builder[option] = _go_literal(value)
        notes.extend(f"{option}: {text}" for text in rec.reasons_for(keys))
    storage = _storage(rec)
    if storage:
        builder["storage"] = _go_literal(storage)
    adapters = []
    for adapter, key in _adapters(rec, consumed):
        adapters.append({"network": "{{user `network`}}", **_go_literal(adapter)})
        notes.extend(f"network_adapters: {text}" for text in rec.reasons_for([key]))
    if adapters:
        builder["network_adapters"] = adapters
    extras = rec.extras(consumed)
    if extras:
        builder["configuration_parameters"] = _go_literal(dict(extras))
        notes.extend(f"{key}: {text}" for key, _ in extras if (text := rec.reason(key)))
    template = {
        "_comment": notes,
        "variables": {variable: "" for variable in _VARIABLES},
        "sensitive-variables": ["password"],
        "builders": [builder],
    }
    return json.dumps(template, indent=2, ensure_ascii=False) + "\n"


def _go_literal(value: Any) -> Any:
    """Strings as literal text for Packer's JSON templates, which run every string through Go's
    text/template: each ``{{`` becomes the action ``{{"{{"}}``, which prints it. A lone ``}}``
    is already plain text there."""
    if isinstance(value, str):
        return value.replace("{{", '{{"{{"}}')
    if isinstance(value, dict):
        return {k: _go_literal(v) for k, v in value.items()}
    if isinstance(value, list):
        return [_go_literal(v) for v in value]
    return value
