"""One table that says which `.vmx` key means which structured VM field.

Used three ways: to reconcile a spec's `advanced:` keys with its structured fields (they must
agree), to turn any template (.vmx, OVF, Packer, Terraform — all read as .vmx-equivalent keys)
into a VM, and to write a VM back out as .vmx keys.
"""

from __future__ import annotations

import re
from collections.abc import Callable
from functools import lru_cache
from typing import TYPE_CHECKING, Any

from advisor.model.base import FieldValueError, Nic
from advisor.vocab import NIC_VIRTUALDEV, SCSI_FROM_VIRTUALDEV, SCSI_VIRTUALDEV, read_bool

if TYPE_CHECKING:  # annotations only: at run time the spec imports this module, not the reverse
    from advisor.model.spec import VM


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

_NIC_KEY = re.compile(r"^ethernet(\d+)\.virtualdev$")
_SCSI_KEY = re.compile(r"^scsi(\d+)\.virtualdev$")
_MAX_NICS = 10  # network adapters per VM (vSphere configuration maximum)


ADVANCED_INDEX = "_advanced_index"  # template_fields' key for the index it built (see VM._reconcile)
ADVANCED_CACHE = "_adv"  # the VM's private attribute holding normalised_advanced()


def normalised_advanced(vm: VM) -> dict[str, tuple[str, str]]:
    """advanced: as {lower-case key: (spelling, text value)} — cached on the VM."""
    cache = vm.__pydantic_private__.get(ADVANCED_CACHE) if vm.__pydantic_private__ else None
    if cache is None:
        cache = {k.lower(): (k, v if v.__class__ is str else vmx_text(v)) for k, v in vm.advanced.items()}
        vm.__pydantic_private__[ADVANCED_CACHE] = cache  # type: ignore[index]  # set: VM has private attributes
    return cache


def advanced_value(vm: VM, key: str) -> str | None:
    hit = normalised_advanced(vm).get(key.lower())
    return hit[1] if hit else None


def _key_error(spelling: str, message: str) -> ValueError:
    """An error about one `advanced:` key, located at that key (its line in a spec or template)."""
    return FieldValueError(message, "advanced", spelling)


def _bad_value(spelling: str, problem: str) -> ValueError:
    return _key_error(spelling, f"advanced key '{spelling}': {problem}")


def _conflict(spelling: str, text: str, field: str, current: Any) -> ValueError:
    return _key_error(spelling, f"advanced key '{spelling}' = \"{text}\" contradicts {field}: {vmx_text(current)}; "
                                "state it once, or make both agree")


def reconcile_advanced(vm: VM, keys: list[str] | None = None) -> None:
    """Make structured fields and overlapping `advanced:` keys one truth (or raise).

    keys: the lower-cased keys of `advanced` that have a role here, in their order, when the
    caller knows them already (advisor.vmx.templatefields template_fields)."""
    if not vm.advanced:
        return
    explicit = vm.model_fields_set
    adv = normalised_advanced(vm)
    if keys is None:
        # Most of a template's hundred keys have no role: they are passed over in one
        # comprehension, in file order (the first bad key is the one reported).
        keys = [k for k in adv if k in SCALAR_KEYS or k.endswith(".virtualdev") or k == "sched.mem.pin"]
    for low in keys:
        spelling, text = adv[low]
        role = advanced_role(low)
        if role is None:
            continue
        if role == "scalar":
            field, value = _scalar(low, spelling, text)
            if low == "sched.cpu.affinity" and value is None and field not in explicit:
                continue
            current = getattr(vm, field)
            if field in explicit and current != value:
                raise _conflict(spelling, text, field, current)
            setattr(vm, field, value)
        elif role == "pin":
            if _pinned(spelling, text):
                if "memory_reservation" in explicit and vm.memory_reservation not in ("full", vm.memory):
                    raise _conflict(spelling, text, "memory_reservation", vm.memory_reservation)
                vm.memory_reservation = "full"
        else:
            _reconcile_device(vm, role, spelling, text, explicit)


def stated_fields(adv: dict[str, tuple[str, str]], keys: list[str], data: dict[str, Any]
                  ) -> tuple[dict[str, Any], list[tuple[str, Any]], list[str]]:
    """What reconcile_advanced would make of `keys` on the model of `data`, for a caller that
    builds that model afterwards (advisor.model.template): the fields it would set that `data`
    does not state, with their values; the ones `data` states, with the value each must equal;
    and the device keys it would reconcile, in their order. Raises ValueError where only the
    built model can say (a value that is not one, a pinned memory reservation)."""
    fields: dict[str, Any] = {}
    given: list[tuple[str, Any]] = []
    devices: list[str] = []
    for low in keys:
        scalar = SCALAR_KEYS.get(low)
        if scalar is not None:
            field, parse = scalar
            value = parse(adv[low][1])
            if field in data:
                given.append((field, value))
            elif value is not None or low != "sched.cpu.affinity":
                fields[field] = value
        elif low == "sched.mem.pin":
            if parse_bool(adv[low][1]):
                raise ValueError("a pinned reservation is reconciled with the model's memory_reservation")
        elif advanced_role(low) is not None:
            devices.append(low)
    return fields, given, devices


def reconcile_devices(vm: VM, adv: dict[str, tuple[str, str]], keys: list[str]) -> None:
    """reconcile_advanced's part for device keys (stated_fields' third part), on the built model."""
    explicit = vm.model_fields_set
    for low in keys:
        spelling, text = adv[low]
        _reconcile_device(vm, advanced_role(low), spelling, text, explicit)  # type: ignore[arg-type]


def _scalar(low: str, spelling: str, text: str) -> tuple[str, Any]:
    field, parse = SCALAR_KEYS[low]
    try:
        return field, parse(text)
    except ValueError as exc:
        raise _bad_value(spelling, str(exc)) from None


def _pinned(spelling: str, text: str) -> bool:
    try:
        return parse_bool(text)
    except ValueError as exc:
        raise _bad_value(spelling, str(exc)) from None


def _reconcile_device(vm: VM, role: str | tuple[str, str], spelling: str, text: str, explicit: set[str]) -> None:
    if role[0] == "nic":
        _reconcile_nic(vm, int(role[1]), spelling, text.strip().lower(), "nics" in explicit)
    else:
        _reconcile_scsi(vm, int(role[1]), spelling, text.strip().lower())


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


def _reconcile_nic(vm: VM, index: int, spelling: str, adapter: str, explicit: bool) -> None:
    if adapter not in NIC_VIRTUALDEV:
        raise _bad_value(spelling, f"'{adapter}' is not a virtual NIC type")
    if index < len(vm.nics):
        if explicit and vm.nics[index].adapter != adapter:
            raise _conflict(spelling, adapter, f"nics[{index}].adapter", vm.nics[index].adapter)
        vm.nics[index].adapter = adapter  # type: ignore[assignment]
    elif not explicit:
        if index >= _MAX_NICS:
            raise _bad_value(spelling, f"a VM has at most {_MAX_NICS} network adapters "
                                       f"(ethernet0 to ethernet{_MAX_NICS - 1})")
        while len(vm.nics) < index:
            vm.nics.append(Nic(adapter=adapter))  # type: ignore[arg-type]
        vm.nics.append(Nic(adapter=adapter))  # type: ignore[arg-type]
    else:
        raise _key_error(spelling, f"advanced key '{spelling}' names NIC {index}, but nics: lists {len(vm.nics)}")


def _reconcile_scsi(vm: VM, bus: int, spelling: str, kind: str) -> None:
    if kind not in SCSI_FROM_VIRTUALDEV:
        raise _bad_value(spelling, f"'{kind}' is not a SCSI controller type")
    controller = SCSI_FROM_VIRTUALDEV[kind]
    for disk in vm.disks:
        if disk.bus == bus and disk.controller in SCSI_VIRTUALDEV:
            if "controller" in disk.model_fields_set and disk.controller != controller:
                raise _conflict(spelling, kind, "disk controller", disk.controller)
            disk.controller = controller  # type: ignore[assignment]


# --- VM -> .vmx ----------------------------------------------------------------------------


def vm_to_vmx(vm: VM, core_mhz: int | None = None) -> dict[str, str]:
    """The .vmx keys that express the VM as specified (not advisor's recommendations)."""
    out: dict[str, str] = {"numvcpus": str(vm.vcpus), "memsize": str(vm.memory)}
    if vm.cores_per_socket:
        out["cpuid.coresPerSocket"] = str(vm.cores_per_socket)
    if vm.hardware_version:
        out["virtualHW.version"] = str(vm.hardware_version)
    if vm.guest_os:
        out["guestOS"] = vm.guest_os
    out["vcpu.hotadd"] = vmx_text(vm.cpu_hot_add)
    out["mem.hotadd"] = vmx_text(vm.memory_hot_add)
    # High with Hyperthreading is the API's level "high" plus VirtualHardware.simultaneousThreads 2
    # (vSphere API 8.0.0.1); VMware documents no .vmx key for the second part, so advisor writes
    # neither rather than a High the reservation below would not cover.
    if vm.latency_sensitivity not in ("normal", "high-ht"):
        out["sched.cpu.latencySensitivity"] = vm.latency_sensitivity
    if vm.cpu_reservation == "full" and core_mhz:
        # Full reservation: vCPUs x clock, or vCPUs / 2 x clock with vHT (GUID-2B67DC91).
        threads = 2 if vm.latency_sensitivity == "high-ht" else 1
        out["sched.cpu.min"] = str(-(-vm.vcpus // threads) * core_mhz)
    elif isinstance(vm.cpu_reservation, int):
        out["sched.cpu.min"] = str(vm.cpu_reservation)
    if "sched.cpu.min" in out:
        out["sched.cpu.units"] = "mhz"
    if vm.memory_reservation == "full":
        out["sched.mem.min"] = str(vm.memory)
        out["sched.mem.pin"] = "TRUE"
    elif isinstance(vm.memory_reservation, int):
        out["sched.mem.min"] = str(vm.memory_reservation)
    if vm.cpu_affinity:
        out["sched.cpu.affinity"] = vm.cpu_affinity
    if vm.disks:
        # Each SCSI bus once, in bus order, typed by its first disk.
        buses: dict[int, str] = {}
        for d in vm.disks:
            if d.controller in SCSI_VIRTUALDEV:
                buses.setdefault(d.bus, d.controller)
        for bus in sorted(buses):
            out[f"scsi{bus}.present"] = "TRUE"
            out[f"scsi{bus}.virtualDev"] = SCSI_VIRTUALDEV[buses[bus]]
    slots = vm._nic_slots or range(len(vm.nics))
    for index, nic in zip(slots, vm.nics, strict=True):
        out[f"ethernet{index}.present"] = "TRUE"
        out[f"ethernet{index}.virtualDev"] = nic.adapter
    for spelling, text in normalised_advanced(vm).values():
        out.setdefault(spelling, text)
    return out
