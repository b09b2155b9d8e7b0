"""The recommendation as one typed patch on the VM (issue 33 item 8), and its application.

A patch is an ordered, frozen set of changes. Each names the `.vmx` key it states (a key with a
spec field holds the field's typed value, advisor.model.vmxkeys.typed; a key of its own holds its
text; None removes the key) or, for a resized spec field that has no key (``gpu.passthrough``),
that field's dotted path; and each carries the rules that justify it and the reason of the rule
that won it. The engine builds it from the rules' fixes (advisor.engine.recommend), applies it to
the model here, and keeps only the entries whose rule still fires on the VM with the rest applied
(advisor.engine.fixpoint.justified). Nothing here writes `.vmx` text: that is the edge's work
(advisor.vmx.mapping, advisor.vmx.recommendation, advisor.emit).
"""

from __future__ import annotations

from collections.abc import Iterable, Mapping
from typing import Any, NamedTuple

from pydantic import ValidationError

from advisor.model.reconcile import reconcile_advanced
from advisor.model.spec import VM
from advisor.model.vmxkeys import ADVANCED_INDEX, SCALAR_KEYS, device_slot, normalised_advanced, parse_bool
from advisor.vocab import NIC_VIRTUALDEV, SCSI_FROM_VIRTUALDEV, SCSI_VIRTUALDEV


class Change(NamedTuple):
    """One entry of a patch. (A NamedTuple: see CONTRIBUTING.md, "Add a class on `check`'s path".)"""

    target: str  # the .vmx key as VMware spells it, or a nested spec field's dotted path
    value: Any  # typed (advisor.model.vmxkeys.typed); None removes the key
    rules: tuple[str, ...] = ()  # every rule asking for this value; () for a key no rule is named for
    reason: tuple[str, str] | None = None  # (rule, one-line summary) of the rule that won the key
    nested: bool = False  # a resized spec field with no .vmx key (gpu.passthrough)


class Patch(NamedTuple):
    """The written recommendation for one VM: its changes, in the order they are written."""

    changes: tuple[Change, ...] = ()

    @classmethod
    def of(cls, keys: Mapping[str, Any], reasons: Mapping[str, tuple[str, str]] | None = None,
           sources: Mapping[str, tuple[str, ...]] | None = None,
           resized: Iterable[tuple[str, Mapping[str, Any]]] = ()) -> Patch:
        """The patch of the engine's working record (advisor.engine.recommend.Recommendation):
        keys -> typed values, the winning rule of each key, the rules behind each lower-case key,
        and (rule, resize) for each written resize (only its nested fields are entries here: a
        plain field's resize is among `keys` as the key it states)."""
        reasons, sources = reasons or {}, sources or {}
        changes = [Change(key, value, tuple(sources.get(key.lower(), ())), reasons.get(key))
                   for key, value in keys.items()]
        changes.extend(Change(path, value, (rule,), None, nested=True) for rule, resize in resized
                       for path, value in resize.items() if "." in path and not path.startswith("data_disks."))
        return cls(tuple(changes))

    def keys(self) -> dict[str, Any]:
        """.vmx key -> typed value (None: removed), in order."""
        return {c.target: c.value for c in self.changes if not c.nested}

    def kept(self, rules: set[str]) -> Patch:
        """The changes some rule of `rules` asks for (and those no rule is named for)."""
        return Patch(tuple(c for c in self.changes if not c.rules or not rules.isdisjoint(c.rules)))

    def apply(self, vm: VM) -> VM | None:
        """The VM with the patch applied by the model, or None when the model refuses it."""
        return applied(vm, self.keys(), [{c.target: c.value} for c in self.changes if c.nested])


def applied(vm: VM, changes: Mapping[str, Any], resized: Iterable[Mapping[str, Any]]) -> VM | None:
    """The VM with the written keys (typed: a key with a field holds the field's value) and
    resized spec fields applied, or None when the model refuses it. A cores per socket that does
    not divide the vCPUs the recommendation sets (one rule's value for another rule's count) is
    left to the next pass, which computes it for them."""
    data = fields_set(vm)
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
            else:  # a field's value as the patch holds it; sched.cpu.affinity's text is read here
                data[name] = parse(value) if value.__class__ is str else value
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
                continue  # fields are in `changes` as their keys; disks do not shape the VM
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
        return rebuilt(vm, data, index)
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


def fields_set(vm: VM) -> dict[str, Any]:
    """model_dump(exclude_unset=True), what rebuilt() takes: `advanced:` copied as it is, not
    serialised key by key (model_dump gives its text, numbers and booleans unchanged)."""
    data = vm.model_dump(exclude_unset=True, exclude={"advanced"})
    if "advanced" in vm.model_fields_set:
        data["advanced"] = dict(vm.advanced)
    return data


def rebuilt(vm: VM, data: dict[str, Any], index: dict[str, tuple[str, str]] | None = None) -> VM:
    """A VM validated from `data` (fields_set(vm), changed) that keeps what model_dump leaves
    out: a template's unresolved fields and its ethernetN numbers. Without them a resized
    template's NICs were written as ethernet0..n-1 (a template with ethernet1..3 got keys adding
    an ethernet0 and dropping ethernet3's type). Raises as model_validate.

    index: data's `advanced:` keys as normalised_advanced would give them, when the caller has
    them (a resize changes a few of a template's hundred keys). The keys' values are then taken
    as they are, as advisor.model.template takes a reader's: model_dump gives them as the model
    keeps them, and a resize writes text. Whatever that quick path refuses is validated in full,
    so an error is the one model_validate raises."""
    if index is None or "advanced" not in data:
        out = type(vm).model_validate(data)
    else:
        out = _validated_with(type(vm), data, index)
    out._unknown, out._nic_slots = vm._unknown, vm._nic_slots
    return out


def _validated_with(model: type[VM], data: dict[str, Any], index: dict[str, tuple[str, str]]) -> VM:
    context = {ADVANCED_INDEX: index}
    try:
        vm = model.model_validate({**data, "advanced": {}}, context=context)
        vm.advanced = dict(data["advanced"])
        reconcile_advanced(vm)
        if vm.cores_per_socket and vm.vcpus % vm.cores_per_socket:
            raise ValueError("the shape check VM._reconcile makes once the keys are read")
        return vm
    except (ValueError, TypeError):
        return model.model_validate(data, context=context)
