"""The one table that says which `.vmx` key means which VM field, and how its text reads.

It belongs to the model (issue 36 item 3): a spec's `advanced:` keys are reconciled with its
fields through it (advisor.model.reconcile), a template becomes a VM through it
(advisor.vmx.templatefields), and a VM or a recommendation is written back as `.vmx` keys through
it at the edge (advisor.vmx.mapping.vm_to_vmx, advisor.vmx.recommendation).
"""

from __future__ import annotations

import re
from collections.abc import Callable
from functools import lru_cache
from typing import Any, Protocol

from advisor.vocab import read_bool


class WithAdvanced(Protocol):
    """A model with `advanced:` keys (advisor.model.spec.VM), as this module reads it: the spec
    imports this module, so it is named by what it has rather than imported."""

    @property
    def advanced(self) -> dict[str, str | int | bool | float]: ...

    @property
    def __pydantic_private__(self) -> dict[str, Any] | None: ...


def parse_bool(text: str) -> bool:
    value = read_bool(text)
    if value is None:
        raise ValueError(f"'{text}' is not TRUE or FALSE")
    return value


def vmx_text(value: object) -> str:
    """A spec value as .vmx writes it: booleans TRUE/FALSE, everything else as text."""
    if isinstance(value, bool):
        return "TRUE" if value else "FALSE"
    return str(value)


_WHOLE = re.compile(r"([+-]?)(?:0[xX]([0-9a-fA-F]{1,16})|([0-9]{1,18}))")


def _int(text: str) -> int:
    """ASCII digits (or 0x hex) only: Python's int() would also take `1_6` as 16 and other
    scripts' digits, which no VMware parser reads as a number."""
    if text.isascii() and text.isdigit() and len(text) <= 18:  # nearly every value: what _WHOLE reads as decimal
        return int(text)
    match = _WHOLE.fullmatch(text.strip().strip('"'))
    if not match:
        raise ValueError(f"'{text[:40]}' is not a whole number")
    value = int(match[2], 16) if match[2] else int(match[3])
    return -value if match[1] == "-" else value


def _latency(text: str) -> str:
    low = text.strip().lower()
    if low not in {"low", "normal", "medium", "high", "high-ht"}:
        raise ValueError(f"'{text}' is not a latency sensitivity (low, normal, medium, high)")
    return low


def _affinity(text: str) -> str | None:
    low = text.strip().lower()
    return None if low in {"", "all"} else low


# The one key <-> field table: .vmx key as VMware spells it -> (field, parse .vmx text -> field
# value, which model has the field). "vm": a spec VM and a recommendation
# (advisor.model.recommendation); "spec": only a spec VM (sched.cpu.affinity reads "all" as no
# affinity, so a recommendation keeps that key's text); "recommendation": settings a spec states
# only under `advanced:`, which emitters write as their tool's native arguments. Fields are
# written back with vmx_text.
FIELD_KEYS: dict[str, tuple[str, Callable[[str], Any], str]] = {
    "numvcpus": ("vcpus", _int, "vm"),
    "cpuid.coresPerSocket": ("cores_per_socket", _int, "vm"),
    "memsize": ("memory", _int, "vm"),
    "virtualHW.version": ("hardware_version", _int, "vm"),
    "guestOS": ("guest_os", str.strip, "vm"),
    "vcpu.hotadd": ("cpu_hot_add", parse_bool, "vm"),
    "vcpu.hotremove": ("cpu_hot_remove", parse_bool, "recommendation"),
    "mem.hotadd": ("memory_hot_add", parse_bool, "vm"),
    "sched.cpu.latencySensitivity": ("latency_sensitivity", _latency, "vm"),
    "sched.cpu.min": ("cpu_reservation", _int, "vm"),
    "sched.cpu.max": ("cpu_limit", _int, "recommendation"),
    "sched.mem.min": ("memory_reservation", _int, "vm"),
    "sched.mem.max": ("memory_limit", _int, "recommendation"),
    "sched.mem.pin": ("memory_pinned", parse_bool, "recommendation"),
    "sched.cpu.affinity": ("cpu_affinity", _affinity, "spec"),
    "vhv.enable": ("nested_hv", parse_bool, "recommendation"),
    "disk.EnableUUID": ("disk_uuid", parse_bool, "recommendation"),
}
# .vmx key (lower case) -> (VM field, parse): the keys a spec states as fields.
SCALAR_KEYS: dict[str, tuple[str, Callable[[str], Any]]] = {
    key.lower(): (field, parse) for key, (field, parse, model) in FIELD_KEYS.items() if model != "recommendation"
}
# .vmx key (lower case) -> (spelling, field, parse): the keys a recommendation holds as fields.
RECOMMENDATION_KEYS: dict[str, tuple[str, str, Callable[[str], Any]]] = {
    key.lower(): (key, field, parse) for key, (field, parse, model) in FIELD_KEYS.items() if model != "spec"
}


def typed(low: str, value: Any) -> Any:
    """A key's value as the engine's patch holds it (lower-case key): the spec field's value for
    a key that states one (``numvcpus`` "8" -> 8, ``vcpu.hotadd`` "TRUE" -> True), the text for
    every other key. ``sched.cpu.affinity`` keeps its text: the field reads "all" as no affinity
    (None), and None in a patch removes the key. A value already typed is returned as it is.
    ValueError: text that is no value of its field."""
    entry = SCALAR_KEYS.get(low)
    if entry is None or value.__class__ is not str or low == "sched.cpu.affinity":
        return value
    return entry[1](value)


def typed_or_text(low: str, value: Any) -> Any:
    """typed(), or the text as it is written where it is no value of the key's field (a spelling
    of the VM's own the model did not reconcile; a rule's text the edge then names as invalid,
    advisor.vmx.recommendation.invalid)."""
    try:
        return typed(low, value)
    except ValueError:
        return value

_NIC_KEY = re.compile(r"^ethernet(\d+)\.virtualdev$")
_SCSI_KEY = re.compile(r"^scsi(\d+)\.virtualdev$")


ADVANCED_INDEX = "_advanced_index"  # template_fields' key for the index it built (see VM._reconcile)
ADVANCED_CACHE = "_adv"  # the VM's private attribute holding normalised_advanced()


def normalised_advanced(vm: WithAdvanced) -> dict[str, tuple[str, str]]:
    """advanced: as {lower-case key: (spelling, text value)} — cached on the VM."""
    cache = vm.__pydantic_private__.get(ADVANCED_CACHE) if vm.__pydantic_private__ else None
    if cache is None:
        cache = {k.lower(): (k, v if v.__class__ is str else vmx_text(v)) for k, v in vm.advanced.items()}
        vm.__pydantic_private__[ADVANCED_CACHE] = cache  # type: ignore[index]  # set: VM has private attributes
    return cache


def advanced_value(vm: WithAdvanced, key: str) -> str | None:
    hit = normalised_advanced(vm).get(key.lower())
    return hit[1] if hit else None


@lru_cache(maxsize=8192)
def advanced_role(low: str) -> str | tuple[str, str] | None:
    """What a lower-cased advanced key means to reconcile_advanced. Templates repeat the same
    hundred keys file after file: classified once, not matched against every pattern each time."""
    if low in SCALAR_KEYS:
        return "scalar"
    if low == "sched.mem.pin":
        return "pin"
    slot = device_slot(low)
    return (slot[0], str(slot[1])) if slot else None


@lru_cache(maxsize=8192)
def device_slot(low: str) -> tuple[str, int] | None:
    """("nic", N) for ethernetN.virtualDev, ("scsi", N) for scsiN.virtualDev (lower-case keys),
    else None: the keys that are a device's type rather than a field of their own."""
    if match := _NIC_KEY.match(low):
        return ("nic", int(match[1]))
    if match := _SCSI_KEY.match(low):
        return ("scsi", int(match[1]))
    return None
