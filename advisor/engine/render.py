"""A finding's text and fix with the observed values filled in.

A rule's message and fix are templates over fact names (`{vm.vcpus}`); device keys may name
every legacy NIC or SCSI controller of the VM (`ethernet{each.legacy_nic}.virtualDev`).
"""

from __future__ import annotations

import re
from collections.abc import Callable
from functools import lru_cache
from typing import Any, NamedTuple

from advisor.engine.catalog import PLACEHOLDER, Rule
from advisor.engine.undecided import needed_noun
from advisor.model.spec import VM

REMOVE = "REMOVE"  # a fix's .vmx value that deletes the key


def _text(value: Any) -> str:
    if value is None:
        return "unknown"
    if isinstance(value, bool):
        return "yes" if value else "no"
    if isinstance(value, float):
        return f"{value:.2f}".rstrip("0").rstrip(".")
    if isinstance(value, (list, tuple)):
        return ", ".join(map(str, value)) or "none"
    return str(value)


# A placeholder and the unit written after it ("{vm.full_cpu_reservation_mhz} MHz").
_WITH_UNIT = re.compile(PLACEHOLDER.pattern + r"(?: (?:MHz|MiB|GB|cores|vCPUs))?")


def fill(template: str, facts: dict[str, Any]) -> str:
    """The template with the facts' values; an unknown one (a fact a finding decided without)
    says what it needs instead of a number: "unknown: it needs the host's nominal core clock
    (host.core_mhz)", so no text reads "unknown MHz"."""
    head, pieces = _pieces(template) if len(template) <= _CACHED_TEMPLATE else _pieces.__wrapped__(template)
    if not pieces:
        return template
    out = [head]
    for name, unit, tail in pieces:
        known = facts.get(name)
        out.append(f"unknown: it needs {needed_noun(name)}" if known is None else _text(known) + unit)
        out.append(tail)
    return "".join(out)


# Templates are the catalog's few hundred texts, split once each (long ones are not kept).
_CACHED_TEMPLATE = 1024


@lru_cache(maxsize=4096)
def _pieces(template: str) -> tuple[str, tuple[tuple[str, str, str], ...]]:
    """The text before the first placeholder, then (fact, unit written after it, text up to the
    next placeholder) for each placeholder."""
    matches = list(_WITH_UNIT.finditer(template))
    if not matches:
        return template, ()
    pieces = []
    for i, m in enumerate(matches):
        end = matches[i + 1].start() if i + 1 < len(matches) else len(template)
        pieces.append((m.group(1), m.group(0)[m.group(0).index("}") + 1:], template[m.end():end]))
    return template[:matches[0].start()], tuple(pieces)


def unknown_in(template: str, facts: dict[str, Any]) -> bool:
    """Whether the template reads a fact that is not known."""
    return any(facts.get(name) is None for name in PLACEHOLDER.findall(template))


def located_path(locate: str, facts: dict[str, Any], line_of: Callable[[str], int | None]) -> str:
    """The field path a finding points at. A rule whose evidence is a list of `.vmx` keys names
    that fact (`advanced.{vm.host_bound_keys}`): the finding points at the first of those keys in
    the file, and at the VM (`advanced`) when the list is empty."""
    match = PLACEHOLDER.search(locate)
    if match is None:
        return locate
    value = facts.get(match[1])
    items = value if isinstance(value, list | tuple) else [] if value is None else [value]
    paths = [f"{locate[:match.start()]}{item}{locate[match.end():]}" for item in items]
    if not paths:
        return locate[:match.start()].rstrip(".") or locate
    return min(paths, key=lambda p: line_of(p) or 1 << 62) if len(paths) > 1 else paths[0]


_NIC_INDEX = "{each.legacy_nic}"
_SCSI_INDEX = "{each.legacy_scsi}"


def _device_indexes(vm: VM, marker: str) -> list[int]:
    if marker == _NIC_INDEX:
        slots = vm._nic_slots or range(len(vm.nics))  # a template's ethernetN numbers
        return [slots[i] for i, n in enumerate(vm.nics) if n.adapter in ("e1000", "e1000e", "vlance", "vmxnet")]
    # A controller that also carries the boot disk is left alone: switching it to PVSCSI can
    # leave a guest without the driver unbootable. Its data disks need moving instead (fix text).
    boot = {d.bus for d in vm.disks if d.role == "os" and d.controller in ("lsilogic", "lsisas", "buslogic")}
    return sorted({d.bus for d in vm.disks
                   if d.controller in ("lsilogic", "lsisas", "buslogic") and d.role != "os" and d.bus not in boot})


def _unsupported_scsi(vm: VM, facts: dict[str, Any]) -> list[str]:
    """PVSCSI controllers of a VM whose hardware version lacks PVSCSI and whose host cannot run
    the version that has it (HYG003: then the controller changes, not the version)."""
    if facts.get("vm.devices_min_hw") is not None or facts.get("vm.hw_supports_pvscsi") is not False:
        return []
    return [str(bus) for bus in sorted({d.bus for d in vm.disks if d.controller == "pvscsi"})]


def _host_drives(vm: VM, facts: dict[str, Any]) -> list[str]:
    """CD/DVD and floppy drives on the host's own hardware, connected at power-on (HOST006)."""
    from advisor.facts.devices import host_bound
    from advisor.model.vmxkeys import normalised_advanced

    return [d for d in host_bound(normalised_advanced(vm))[0] if d.startswith(("ide", "sata", "scsi", "floppy"))]


def _filtered_disks(vm: VM, facts: dict[str, Any]) -> list[str]:
    """Disks with an I/O filter (`<disk>.filters`, STO004), spelled as the VM spells them."""
    return sorted(key[: -len(".filters")] for key, value in vm.advanced.items()
                  if key.lower().endswith(".filters") and str(value).strip())


# Markers naming each device of a kind: the fix sets a key per device ("{each.host_drive}.startConnected").
_NAMED = {"{each.host_drive}": _host_drives, "{each.filtered_disk}": _filtered_disks,
          "{each.unsupported_scsi}": _unsupported_scsi}


def render_fix(rule: Rule, facts: dict[str, Any], vm: VM | None) -> dict[str, Any]:
    fix: dict[str, Any] = {}
    vmx: dict[str, str] = {}
    for key, value in rule.d.fix.vmx.items():
        markers = [m for m in (_NIC_INDEX, _SCSI_INDEX, *_NAMED) if m in key] if "{each." in key else []
        if markers and vm is not None and markers[0] in _NAMED:
            for name in _NAMED[markers[0]](vm, facts):
                vmx[key.replace(markers[0], name)] = fill(str(value), facts)
        elif markers and vm is not None:
            for index in _device_indexes(vm, markers[0]):
                vmx[key.replace(markers[0], str(index))] = fill(str(value), facts)
        elif not markers:
            if value == REMOVE and vm is not None and vm.setting(fill(key, facts)) is None:
                continue  # nothing to remove: the VM does not set the key
            if unknown_in(str(value), facts):
                continue  # never write a value advisor does not know; the text says what it needs
            vmx[fill(key, facts)] = fill(str(value), facts)
    if vmx:
        fix["vmx"] = vmx
    for part in ("guest", "host", "resize"):
        values = getattr(rule.d.fix, part)
        if values:
            known = {k: (fill(v, facts) if isinstance(v, str) else v) for k, v in values.items()
                     if not (isinstance(v, str) and unknown_in(v, facts))}
            if known:
                fix[part] = known
    fix["text"] = fill(rule.d.fix.text, facts)
    fix["kind"] = rule.d.fix.kind
    if rule.d.fix.condition:
        fix["condition"] = fill(rule.d.fix.condition, facts)
    return fix


class FindingShape(NamedTuple):
    """What every finding of a rule shares, worked out once per rule rather than per finding: the
    message template on one line, the facts shown as evidence, the references' text.
    (A NamedTuple: see CONTRIBUTING.md, "Add a class on `check`'s path".)"""

    message: str
    evidence: tuple[str, ...]
    references: tuple[str, ...]

    @classmethod
    def of(cls, rule: Rule) -> FindingShape:
        names = sorted(rule.facts | {n for n in rule.template_facts() if not n.startswith("each.")})
        return cls(" ".join(rule.d.message.split()), tuple(names), rule.reference_texts())

