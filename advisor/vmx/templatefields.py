"""A template as the data of a VM: the template -> VM direction of advisor.vmx.mapping's table.

Every reader (.vmx, OVF/OVA, Packer, Terraform) gives `.vmx`-equivalent settings; here they
become what the VM model is built from (advisor.model.template): the structured fields, the
disks and NICs, and every other key carried in `advanced:`. A template has a hundred keys, and
lint reads thousands of templates: the few keys that mean more than themselves are picked out
once per distinct key, and the rest are carried without a Python step per key.
"""

from __future__ import annotations

import re
from collections.abc import Iterable
from functools import lru_cache
from itertools import compress
from operator import attrgetter
from typing import TYPE_CHECKING, Any, NamedTuple

from advisor.vmx.mapping import ADVANCED_INDEX, SCALAR_KEYS, advanced_role, vmx_text
from advisor.vmx.nics import nic_role, template_nics
from advisor.vmx.spelling import KeyMemo
from advisor.vocab import NIC_VIRTUALDEV, SCSI_FROM_VIRTUALDEV, read_bool

if TYPE_CHECKING:
    from advisor.readers.base import TemplateVM

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
    # file order, each with what it means; the other ninety-odd keys of a template are only
    # carried (roles are worked out once per distinct key).
    roles = list(map(_ROLES.__getitem__, settings))
    special = list(compress(settings, roles))
    meaning = list(filter(None, roles))  # the special keys' roles, in the same order
    # The .vmx reader's own index of every key's spelling and text, and of its line (see
    # advisor.readers.vmxfile.VmxSettings): its entries are made only for the keys read below.
    read_index: dict[str, tuple[str, str]] | None = getattr(settings, "index", None)
    read_lines: dict[str, int] = getattr(settings, "lines", {})
    if read_index is not None:
        # Every key is carried as it is, in file order, except advisor's pseudo-keys and the
        # NIC types read below, slot by slot. The index is shared with the reader's settings
        # (nothing changes it), and copied only to leave a key out.
        index = read_index
        dropped = [low for low in compress(special, map(_DROPPABLE, meaning)) if _dropped(low, index[low][1])]
        if dropped:
            index = dict(index)
            for low in dropped:
                del index[low]
        advanced: dict[str, Any] = dict(index.values())
        lines.update((field, line) for low, field in _SCALAR_FIELDS if (line := read_lines.get(low)) is not None)
    else:
        values = list(map(_VALUE, settings.values()))
        # The same keys lower-cased, as normalised_advanced() gives them: handed to the model
        # (ADVANCED_INDEX in the validation context) instead of worked out again from `advanced`.
        index = {low: (spelling.get(low, low), value if value.__class__ is str else vmx_text(value))
                 for low, value in zip(settings, values, strict=True)
                 if value is not None and not _dropped(low, value)}
        # Other readers may give numbers, which `advanced` keeps.
        advanced = {spelled: settings[low].value for low, (spelled, _) in index.items()}
        # (Valid NIC types are read below, slot by slot; an invalid one stays for the model to refuse.)
        for low, field in _SCALAR_FIELDS:
            setting = settings.get(low)
            if setting is not None:
                if setting.value is None:
                    unknown.add(field)
                else:
                    lines[field] = setting.line
    data: dict[str, Any] = {"name": t.name, "advanced": advanced, ADVANCED_INDEX: index,
                            RECONCILED: list(filter(index.__contains__, compress(special, map(_RECONCILES, meaning))))}
    # The two required fields come straight from their keys (the validator reports a bad
    # value at that key's line); the rest is reconciled from `advanced` by the VM model.
    for key, field in (("numvcpus", "vcpus"), ("memsize", "memory")):
        value = read_index[key][1] if read_index is not None and key in read_index else _value(settings.get(key))
        if value is not None:
            data[field] = value.strip()
        else:
            # A .vmx without numvcpus has one vCPU (VMware's default); without memsize the
            # memory is not stated anywhere, so rules that need it are skipped.
            data[field] = _REQUIRED_DEFAULTS[field]
            if field == "memory":
                unknown.add("memory")
    data["disks"], disk_line = _template_disks(t, compress(special, map(_DISK, meaning)))
    if disk_line is not None:
        lines["disks"] = disk_line
    data["nics"], slots, nic_line = template_nics(t, unknown, compress(special, map(_NIC, meaning)))
    if nic_line is not None:
        lines["nics"] = nic_line
    data["_nic_slots"] = tuple(slots)
    return data, unknown, lines


_VALUE = attrgetter("value")
_SCALAR_FIELDS = [(low, field) for low, (field, _) in SCALAR_KEYS.items()]


def _value(setting: Any) -> str | None:
    return None if setting is None else setting.value
RECONCILED = "_reconciled"  # template_fields' key for the keys reconcile_advanced reads, in file order


def _dropped(low: str, value: Any) -> bool:
    """Whether a key is left out of `advanced`: advisor's pseudo-keys, and NIC types the VM's
    `nics` states."""
    return low.startswith("advisor.") or (
        low.startswith("ethernet") and nic_role(low) is not None and value.strip().lower() in NIC_VIRTUALDEV)


class _Role(NamedTuple):
    """What a key means to template_fields beyond being carried (a non-empty tuple: true)."""

    droppable: bool  # _dropped may leave it out of `advanced` (which its value decides)
    reconciles: bool  # reconcile_advanced reads it
    disk: bool  # a device slot's `.present` or advisor.diskN.size
    nic: bool  # ethernetN.present or ethernetN.virtualDev


_DROPPABLE, _RECONCILES, _DISK, _NIC = (attrgetter(name) for name in _Role._fields)


def _template_role(low: str) -> _Role | None:
    """What a lower-cased key means to template_fields: None for a raw key it only carries,
    else the parts that read it (a field's key, a device slot's, a NIC's or advisor's
    pseudo-key)."""
    nic = nic_role(low) is not None
    role = _Role(low.startswith("advisor.") or nic,
                 advanced_role(low) is not None, _disk_role(low) is not None, nic)
    return role if any(role) else None


# lower-cased key -> _template_role (a template's hundred keys: one dict lookup each).
_ROLES = KeyMemo(_template_role, 8192)


def _template_disks(t: TemplateVM, keys: Iterable[str]) -> tuple[list[dict[str, Any]], int | None]:
    """The disks in slot order, and the line a disk finding points at: the controller type of
    the first data disk (what a fix changes), else that disk's own line. `keys`: the template's
    keys that may be a disk's (device slots' `.present` keys, advisor.diskN.size), in file order."""
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
        if read_bool(setting.value) is not True:
            continue
        bus = int(bus_text)
        kind = None
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

