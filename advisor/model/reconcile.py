"""A spec's `advanced:` keys and its structured fields made one truth (or a located error).

A key that means a field (advisor.model.vmxkeys.FIELD_KEYS) must agree with the field when both
are given and sets it when only the key is; ethernetN.virtualDev and scsiN.virtualDev set the
listed NIC's and controller's type. Run by the VM model's own validator (advisor.model.spec).
"""

from __future__ import annotations

from typing import Any, Protocol

from advisor.model.base import Disk, FieldValueError, Nic
from advisor.model.vmxkeys import SCALAR_KEYS, WithAdvanced, advanced_role, normalised_advanced, parse_bool, vmx_text
from advisor.vocab import NIC_VIRTUALDEV, SCSI_FROM_VIRTUALDEV, SCSI_VIRTUALDEV


class VM(WithAdvanced, Protocol):
    """The spec's VM (advisor.model.spec.VM) as reconciling reads and sets it: the spec imports
    this module, so it is named by what it has rather than imported."""

    nics: list[Nic]
    disks: list[Disk]
    memory: Any
    memory_reservation: Any

    @property
    def model_fields_set(self) -> set[str]: ...

_MAX_NICS = 10  # network adapters per VM (vSphere configuration maximum)


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
