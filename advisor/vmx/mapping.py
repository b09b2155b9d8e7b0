"""One table that says which `.vmx` key means which structured VM field.

Used three ways: to reconcile a spec's `advanced:` keys with its structured fields (they must
agree), to turn any template (.vmx, OVF, Packer, Terraform — all read as .vmx-equivalent keys)
into a VM, and to write a VM back out as .vmx keys.
"""

from __future__ import annotations

import re
from collections.abc import Callable, Iterable
from functools import lru_cache
from itertools import compress
from operator import attrgetter
from typing import TYPE_CHECKING, Any

from advisor.model.base import FieldValueError, Nic
from advisor.vmx.nics import nic_role, template_nics
from advisor.vocab import NIC_VIRTUALDEV, SCSI_FROM_VIRTUALDEV, SCSI_VIRTUALDEV, read_bool

if TYPE_CHECKING:  # annotations only: at run time the spec imports this module, not the reverse
    from advisor.model.spec import VM
    from advisor.readers.base import TemplateVM


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
    caller knows them already (advisor.vmx.mapping template_fields)."""
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
        role = _advanced_role(low)
        if role is None:
            continue
        if role == "scalar":
            field, parse = SCALAR_KEYS[low]
            try:
                value = parse(text)
            except ValueError as exc:
                raise _bad_value(spelling, str(exc)) from None
            if low == "sched.cpu.affinity" and value is None and field not in explicit:
                continue
            current = getattr(vm, field)
            if field in explicit and current != value:
                raise _conflict(spelling, text, field, current)
            setattr(vm, field, value)
        elif role == "pin":
            try:
                pinned = parse_bool(text)
            except ValueError as exc:
                raise _bad_value(spelling, str(exc)) from None
            if pinned:
                if "memory_reservation" in explicit and vm.memory_reservation not in ("full", vm.memory):
                    raise _conflict(spelling, text, "memory_reservation", vm.memory_reservation)
                vm.memory_reservation = "full"
        elif role[0] == "nic":
            _reconcile_nic(vm, int(role[1]), spelling, text.strip().lower(), "nics" in explicit)
        else:
            _reconcile_scsi(vm, int(role[1]), spelling, text.strip().lower())


@lru_cache(maxsize=8192)
def _advanced_role(low: str) -> str | tuple[str, str] | None:
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
    for bus in sorted({d.bus for d in vm.disks if d.controller in SCSI_VIRTUALDEV}):
        kind = next(d.controller for d in vm.disks if d.bus == bus and d.controller in SCSI_VIRTUALDEV)
        out[f"scsi{bus}.present"] = "TRUE"
        out[f"scsi{bus}.virtualDev"] = SCSI_VIRTUALDEV[kind]
    slots = vm._nic_slots or range(len(vm.nics))
    for index, nic in zip(slots, vm.nics, strict=True):
        out[f"ethernet{index}.present"] = "TRUE"
        out[f"ethernet{index}.virtualDev"] = nic.adapter
    for spelling, text in normalised_advanced(vm).values():
        out.setdefault(spelling, text)
    return out


# --- template -> VM ------------------------------------------------------------------------

_DISK_KEY = re.compile(r"^(scsi|nvme|sata|ide)(\d+):(\d+)\.present$")
_SIZE_KEY = re.compile(r"^advisor\.disk(\d+)\.size$")
_REQUIRED_DEFAULTS = {"vcpus": 1, "memory": 1024}


def template_fields(t: TemplateVM) -> tuple[dict[str, Any], set[str], dict[str, int | None]]:
    """Data for VM.model_validate from a template, the fields left unknown, and the lines of
    the structured fields (a raw key's line is its setting's)."""
    unknown: set[str] = set()
    lines: dict[str, int | None] = {}
    settings, spelling = t.settings, t.spelling
    # The few keys that mean more than themselves (fields, devices, advisor's pseudo-keys), in
    # file order; the other ninety-odd keys of a template are only carried (roles are worked
    # out once per distinct key).
    special = list(compress(settings, map(_template_role, settings)))
    values = list(map(_VALUE, settings.values()))
    if t.kind == "vmx" and None not in values:
        # A .vmx reader's values are all text: every key is carried as it is, in file order,
        # except advisor's pseudo-keys and the NIC types read below, slot by slot.
        index = dict(zip(settings, zip(map(spelling.get, settings, settings), values, strict=True), strict=True))
        for low in special:
            if _dropped(low, settings[low].value):
                del index[low]
        advanced = dict(index.values())
    else:
        # The same keys lower-cased, as normalised_advanced() gives them: handed to the model
        # (ADVANCED_INDEX in the validation context) instead of worked out again from `advanced`.
        index = {low: (spelling.get(low, low), value if value.__class__ is str else vmx_text(value))
                 for low, value in zip(settings, values, strict=True)
                 if value is not None and not (low in special and _dropped(low, value))}
        # Other readers may give numbers, which `advanced` keeps.
        advanced = {spelled: settings[low].value for low, (spelled, _) in index.items()}
    # (Valid NIC types are read below, slot by slot; an invalid one stays for the model to refuse.)
    for low, (field, _) in SCALAR_KEYS.items():
        setting = settings.get(low)
        if setting is not None:
            if setting.value is None:
                unknown.add(field)
            else:
                lines[field] = setting.line
    data: dict[str, Any] = {"name": t.name, "advanced": advanced, ADVANCED_INDEX: index,
                            RECONCILED: [low for low in special if low in index and _advanced_role(low)]}
    # The two required fields come straight from their keys (the validator reports a bad
    # value at that key's line); the rest is reconciled from `advanced` by the VM model.
    for key, field in (("numvcpus", "vcpus"), ("memsize", "memory")):
        setting = settings.get(key)
        if setting is not None and setting.value is not None:
            data[field] = setting.value.strip()
        else:
            # A .vmx without numvcpus has one vCPU (VMware's default); without memsize the
            # memory is not stated anywhere, so rules that need it are skipped.
            data[field] = _REQUIRED_DEFAULTS[field]
            if field == "memory":
                unknown.add("memory")
    data["disks"], disk_line = _template_disks(t, special)
    if disk_line is not None:
        lines["disks"] = disk_line
    data["nics"], slots, nic_line = template_nics(t, unknown, special)
    if nic_line is not None:
        lines["nics"] = nic_line
    data["_nic_slots"] = tuple(slots)
    return data, unknown, lines


_VALUE = attrgetter("value")
RECONCILED = "_reconciled"  # template_fields' key for the keys reconcile_advanced reads, in file order


def _dropped(low: str, value: Any) -> bool:
    """Whether a key is left out of `advanced`: advisor's pseudo-keys, and NIC types the VM's
    `nics` states."""
    return low.startswith("advisor.") or (
        low.startswith("ethernet") and nic_role(low) is not None and value.strip().lower() in NIC_VIRTUALDEV)


@lru_cache(maxsize=8192)
def _template_role(low: str) -> bool:
    """Whether a lower-cased key means more to template_fields than a raw key it carries:
    a field's key, a device slot's, a NIC's or advisor's pseudo-key (once per distinct key)."""
    return (low.startswith("advisor.") or nic_role(low) is not None or _disk_role(low) is not None
            or _advanced_role(low) is not None)


def _template_disks(t: TemplateVM, keys: Iterable[str]) -> tuple[list[dict[str, Any]], int | None]:
    """The disks in slot order, and the line a disk finding points at: the controller type of
    the first data disk (what a fix changes), else that disk's own line. `keys`: the template's
    keys that may be a disk's (template_fields' special keys), in file order."""
    disks: list[Any] = []
    where: int | None = None
    sizes: dict[int, str] = {}
    slots: list[tuple[str, str, str, Any]] = []
    for low in keys:
        role = _disk_role(low)
        setting = t.settings[low]
        if role is None or not setting.value:
            continue
        if role[0] == "size":
            sizes[int(role[1])] = setting.value
        else:
            slots.append((low, role[0], role[1], setting))
    for low, bus_kind, bus_text, setting in slots:
        if not _truthy(setting.value):
            continue
        bus = int(bus_text)
        if bus_kind == "scsi":
            kind = t.settings.get(f"scsi{bus}.virtualdev")
            if kind is None or kind.value is None or kind.value.lower() not in SCSI_FROM_VIRTUALDEV:
                continue
            controller = SCSI_FROM_VIRTUALDEV[kind.value.lower()]
        else:
            controller = bus_kind
        if not _is_disk(t, low):
            continue
        # The first disk is taken to be the boot disk: fixes must not move it to a controller
        # the guest may have no driver for (an unbootable VM is worse than a slow one).
        disk: dict[str, Any] = {"controller": controller, "bus": min(bus, 3), "role": "os" if not disks else "data"}
        size = sizes.get(len(disks))
        if size:
            disk["size"] = int(size)
        if where is None and disk["role"] == "data":
            kind = t.settings.get(f"scsi{bus}.virtualdev") if bus_kind == "scsi" else None
            where = (kind.line if kind is not None else None) or setting.line
        disks.append(disk)
    return disks, where


@lru_cache(maxsize=8192)
def _disk_role(low: str) -> tuple[str, str] | None:
    """("scsi"|"nvme"|"sata"|"ide", bus) for a device slot's `.present` key, ("size", n) for
    advisor.diskN.size, None for every other key (classified once per distinct key)."""
    if match := _DISK_KEY.match(low):
        return (match[1], match[2])
    if match := _SIZE_KEY.match(low):
        return ("size", match[1])
    return None


def _is_disk(t: TemplateVM, present_key: str) -> bool:
    """A device slot holds a disk when its deviceType says so (scsi-hardDisk, ata-hardDisk,
    rawDisk); without one, when its file is a .vmdk. CD-ROMs (cdrom-image, cdrom-raw, a host
    drive passed through as atapi-cdrom) and generic SCSI passthrough devices are not disks. A slot
    that names neither (templates state only `.present`) is a disk."""
    device = t.settings.get(present_key.replace(".present", ".devicetype"))
    if device is not None and device.value:
        return "disk" in device.value.lower()
    name = t.settings.get(present_key.replace(".present", ".filename"))
    if name is not None and name.value:
        return name.value.strip().lower().endswith(".vmdk")
    return True


def _truthy(text: str) -> bool:
    try:
        return parse_bool(text)
    except ValueError:
        return False
