"""The written recommendation as a fixed point (issue 16, "fixes converge").

Each rule computes its fix against the VM as specified. When several written fixes reshape one
VM (a licence cap's vCPUs, a host's cores, the cores per socket of a layout) they were computed
for different shapes, so the VM with all of them applied may draw another recommendation. Here
the written part (the .vmx keys and the resized spec fields, what `advisor fix` and `advisor vmx`
write) is applied to the VM, the VM is evaluated again, and what that evaluation writes is folded
in — until it writes nothing new, at most MAX_PASSES times. Only a recommendation with a written
resize takes a second pass: .vmx keys alone are computed on the shape they leave as it is.

The findings reported stay those of the VM as specified; only what is written changes. A
recommendation still moving after MAX_PASSES is kept as the last pass left it, with a note.
"""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

from pydantic import ValidationError

from advisor.engine.recommend import Fixed, Recommendation
from advisor.model.spec import VM
from advisor.vmx.mapping import SCALAR_KEYS, device_slot, normalised_advanced, parse_bool, vm_to_vmx
from advisor.vocab import NIC_VIRTUALDEV, SCSI_FROM_VIRTUALDEV, SCSI_VIRTUALDEV, SEVERITY_RANK

# Evaluations after the first, so the work per VM is bounded by construction: a resize's values
# move toward a limit (a licence's cores, the host's cores, a node's size), and the sweep's cases
# (tests/rules/test_convergence.py) settle within it; a cycle between two rules stops here.
MAX_PASSES = 4


def resizes(fixes: list[Fixed], explicit: frozenset[str]) -> list[dict[str, Any]]:
    """The resizes of the written fixes, least severe first (the order recommend() applies them)."""
    written = [f for f in fixes if f.fix.get("resize") and (f.writes_by_default() or f.rule in explicit)]
    return [dict(f.fix["resize"]) for f in sorted(written, key=lambda f: SEVERITY_RANK[f.severity])]


def applied(vm: VM, changes: dict[str, str | None], resized: list[dict[str, Any]]) -> VM | None:
    """The VM with the written .vmx keys and resized spec fields applied, or None when the model
    refuses it. A cores per socket that does not divide the vCPUs the recommendation sets (one
    rule's value for another rule's count) is left to the next pass, which computes it for them."""
    data = vm.fields_set()
    advanced = dict(data.get("advanced") or {})
    # The VM's lower-cased keys kept in step with `advanced`: the model need not work them out
    # again from a hundred keys (VM.rebuilt).
    index = dict(normalised_advanced(vm))
    for key, value in changes.items():
        low = key.lower()
        if len(index) == len(advanced):  # no two keys differ only in case: the index spells the one there is
            hit = index.pop(low, None)
            if hit is not None:
                del advanced[hit[0]]
        else:
            for existing in [k for k in advanced if k.lower() == low]:
                del advanced[existing]
            index.pop(low, None)
        if low in SCALAR_KEYS:
            name, parse = SCALAR_KEYS[low]
            if value is None:
                data.pop(name, None)
            else:
                data[name] = parse(value)
        elif low == "sched.mem.pin" and value is not None and parse_bool(value):
            data["memory_reservation"] = "full"
        elif value is not None and _set_device_type(vm, data, low, value):
            continue
        elif value is not None:
            advanced[key] = value
            index[low] = (key, value)
    for resize in resized:
        for path, value in resize.items():
            if "." not in path or path.startswith("data_disks."):
                continue  # fields are in `changes` as their .vmx keys; disks do not shape the VM
            *parents, name = path.split(".")
            target = data
            for parent in parents:
                target = target.setdefault(parent, {}) if isinstance(target, dict) else {}
            target[name] = int(value) if isinstance(value, str) and value.isdigit() else value
    data["advanced"] = advanced
    cps = data.get("cores_per_socket")
    if cps and data.get("vcpus") and int(data["vcpus"]) % int(cps):
        data.pop("cores_per_socket")
    try:
        return vm.rebuilt(data, index)
    except (ValidationError, ValueError):
        return None


def _set_device_type(vm: VM, data: dict[str, Any], low: str, value: str) -> bool:
    """Apply an ethernetN.virtualDev or scsiN.virtualDev change to the device the VM lists,
    whose type the structured field states (`nics[].adapter`, a disk's `controller`): as an
    `advanced:` key beside it, the key would contradict the field and the model would refuse
    the VM (an E1000 NIC's recommended VMXNET3 stopped every further pass). False when the key
    names no listed device or no known type: the key stays in `advanced:` for the model."""
    slot = device_slot(low)
    kind = value.strip().lower()
    if slot is None:
        return False
    if slot[0] == "nic":
        slots = list(vm._nic_slots or range(len(vm.nics)))
        position = slots.index(slot[1]) if slot[1] in slots else None
        nics = data.get("nics")
        if kind not in NIC_VIRTUALDEV or position is None or not isinstance(nics, list) or position >= len(nics):
            return False
        nics[position]["adapter"] = kind
        return True
    controller = SCSI_FROM_VIRTUALDEV.get(kind)
    disks = [d for d in data.get("disks") or []
             if d.get("bus", 0) == slot[1] and d.get("controller") in SCSI_VIRTUALDEV]
    if controller is None or not disks:
        return False
    for disk in disks:
        disk["controller"] = controller
    return True


def _new(rec: Recommendation, current: dict[str, str]) -> dict[str, str | None]:
    """The changes a pass's recommendation makes to the VM it was built for (`current`: that
    VM's .vmx keys, lower-cased)."""
    return {k: v for k, v in rec.changes.items() if current.get(k.lower()) != v}


def _same(following: VM, current: VM) -> bool:
    """Whether evaluating `following` is evaluating `current`: the same fields, private
    attributes (a template's unknowns and ethernetN numbers, the lower-cased keys with their
    text) and fields set (what a resize validates anew)."""
    return following == current and following.model_fields_set == current.model_fields_set


def settle(vm: VM, first: Recommendation, base: dict[str, str] | None, core_mhz: int | None,
           again: Callable[[VM], tuple[Recommendation, list[dict[str, Any]]]],
           resized: list[dict[str, Any]]) -> tuple[Recommendation, bool]:
    """Fold into `first` what evaluating the VM with it applied writes, until nothing changes.

    again(vm): that VM's recommendation (only the keys its written fixes change) and the
    resizes of its written fixes; `first` is what evaluating `vm` itself writes (its keys may be
    spelled after `base`). resized: those of `first`. Returns the recommendation (its
    `vm` and `vmx` left for the caller to build, as recommend(typed=False) leaves them) and
    whether it settled within MAX_PASSES.
    """
    spelled = {k.lower(): k for k in (base or {})} | {k.lower(): k for k in first.changes}
    changes, reasons = dict(first.changes), dict(first.reasons)
    guest, host = dict(first.guest), dict(first.host)
    current, step = vm, dict(first.changes)
    settled = False
    for _ in range(MAX_PASSES):
        following = applied(current, step, resized)
        if following is None:
            break
        if not step and _same(following, current):
            # Nothing written reshapes the VM (a resize the model refused, one of disks only):
            # it is the VM evaluated last (`vm`, for `first`), and that evaluation wrote nothing new.
            settled = True
            break
        # A field applied() left to the next pass (cores per socket) is written as it leaves it.
        shape = {k.lower(): v for k, v in vm_to_vmx(following, core_mhz).items()}
        for key in [k for k in changes if k.lower() in SCALAR_KEYS and shape.get(k.lower()) != changes[k]]:
            changes[key] = shape.get(key.lower())
            if changes[key] is None:
                reasons.pop(key, None)
        rec, resized = again(following)
        step = _new(rec, shape)
        new_guest = {k: v for k, v in rec.guest.items() if guest.get(k) != v}
        if not step and not new_guest:
            settled = True
            break
        for key, value in step.items():
            key = spelled.setdefault(key.lower(), key)
            changes[key] = value
            if value is None:
                reasons.pop(key, None)
            elif key.lower() in {k.lower() for k in rec.reasons}:
                reasons[key] = next(r for k, r in rec.reasons.items() if k.lower() == key.lower())
        guest.update(new_guest)
        host.update(rec.host)
        current = following
    if changes == first.changes and guest == first.guest and host == first.host:
        return first, settled
    settings = {k: v for k, v in {**(base or {}), **changes}.items() if v is not None}
    return Recommendation(settings=settings, changes=changes, reasons=reasons, guest=guest, host=host,
                          suggestions=first.suggestions), settled
