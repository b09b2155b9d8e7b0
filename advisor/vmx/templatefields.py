"""A template as the data of a VM: the template -> VM direction of advisor.model.vmxkeys's table.

Every reader (.vmx, OVF/OVA, Packer, Terraform) gives `.vmx`-equivalent settings; here they
become what the VM model is built from (advisor.model.template): the structured fields, the
disks and NICs, and every other key carried in `advanced:`. A template has a hundred keys, and
lint reads thousands of templates: the few keys that mean more than themselves are picked out
once per distinct key, and the rest are carried without a Python step per key.
"""

from __future__ import annotations

import re
from collections.abc import Mapping
from typing import TYPE_CHECKING, Any, NamedTuple

from advisor.model.bootdisk import Slot, mark_boot_disk, parse_slots
from advisor.model.vmxkeys import ADVANCED_INDEX, SCALAR_KEYS, advanced_role, vmx_text
from advisor.vmx.nics import nic_role, template_nics
from advisor.vmx.spelling import KeyMemo
from advisor.vocab import NIC_VIRTUALDEV, SCSI_FROM_VIRTUALDEV, TRUE_WORDS

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
    settings = t.settings
    # The .vmx reader's own index of every key's spelling and text, and of its line (see
    # advisor.readers.vmxfile.VmxSettings): its entries are never made here.
    read_index: dict[str, tuple[str, str]] | None = getattr(settings, "index", None)
    texts: dict[str, tuple[Any, Any]]
    if read_index is not None:
        texts, line_of = read_index, settings.lines  # type: ignore[attr-defined]
    else:
        # Other readers' settings: a value may be unknown (None) or a number.
        texts = {low: (None, setting.value) for low, setting in settings.items()}
        line_of = {low: setting.line for low, setting in settings.items()}
    keys = _meaningful_keys(settings)
    if read_index is not None:
        index, advanced = _read_advanced(read_index, keys)
        for field, low in keys.stated:
            lines[field] = line_of[low]
    else:
        index, advanced = _other_advanced(t, texts, unknown, lines)
    data: dict[str, Any] = {"name": t.name, "advanced": advanced, ADVANCED_INDEX: index,
                            RECONCILED: list(filter(index.__contains__, keys.reconciles))}
    _required_fields(data, texts, unknown)
    data["disks"], disk_line = _template_disks(texts, line_of, keys.disks)
    if disk_line is not None:
        lines["disks"] = disk_line
    data["nics"], slots, nic_line = template_nics(t, texts, line_of, unknown, keys.nics)
    if nic_line is not None:
        lines["nics"] = nic_line
    data["_nic_slots"] = tuple(slots)
    return data, unknown, lines


class _Keys(NamedTuple):
    """The few keys that mean more than themselves, in file order, sorted by what they mean."""

    droppable: list[tuple[str, bool]]  # (key, always dropped): pseudo-keys and NIC types
    reconciles: list[str]  # keys the VM model reconciles into fields
    stated: list[tuple[str, str]]  # (field, key) of those that state a field
    disks: list[tuple[str, _DiskKey]]
    nics: list[tuple[int, str]]  # (slot, key) of each NIC's present key


def _meaningful_keys(settings: Any) -> _Keys:
    # The other ninety-odd keys of a template are only carried (roles are worked out once per
    # distinct key, and the keys without one passed over from C).
    keys = _Keys([], [], [], [], [])
    for low in filter(_ROLES.__getitem__, settings):
        always_dropped, nic_type, reconciled, field, disk, nic_slot = _ROLES[low]  # type: ignore[misc]  # a role: filtered
        if always_dropped or nic_type:
            keys.droppable.append((low, always_dropped))
        if reconciled:
            keys.reconciles.append(low)
            if field is not None:
                keys.stated.append((field, low))
        if disk is not None:
            keys.disks.append((low, disk))
        elif nic_slot is not None:
            keys.nics.append((nic_slot, low))
    return keys


def _read_advanced(read_index: dict[str, tuple[str, str]], keys: _Keys) -> tuple[dict[str, Any], dict[str, Any]]:
    """The index and `advanced` of a .vmx reader's settings."""
    # Every key is carried as it is, in file order, except advisor's pseudo-keys and the
    # NIC types read below, slot by slot. The index is shared with the reader's settings
    # (nothing changes it), and copied only to leave a key out.
    index = read_index
    dropped = [low for low, always in keys.droppable if always or _is_nic_type(index[low][1])]
    if dropped:
        index = dict(index)
        for low in dropped:
            del index[low]
    return index, dict(index.values())


def _other_advanced(t: TemplateVM, texts: dict[str, tuple[Any, Any]], unknown: set[str],
                    lines: dict[str, int | None]) -> tuple[dict[str, Any], dict[str, Any]]:
    """The index and `advanced` of another reader's settings; the scalar fields' lines and
    unknowns into `lines` and `unknown`."""
    spelling, settings = t.spelling, t.settings
    # The same keys lower-cased, as normalised_advanced() gives them: handed to the model
    # (ADVANCED_INDEX in the validation context) instead of worked out again from `advanced`.
    index = {low: (spelling.get(low, low), value if value.__class__ is str else vmx_text(value))
             for low, (_, value) in texts.items()
             if value is not None and not _dropped(low, value)}
    # Other readers may give numbers, which `advanced` keeps.
    advanced = {spelled: texts[low][1] for low, (spelled, _) in index.items()}
    # (Valid NIC types are read below, slot by slot; an invalid one stays for the model to refuse.)
    for low, field in _SCALAR_FIELDS:
        setting = settings.get(low)
        if setting is not None:
            if setting.value is None:
                unknown.add(field)
            else:
                lines[field] = setting.line
    return index, advanced


def _required_fields(data: dict[str, Any], texts: dict[str, tuple[Any, Any]], unknown: set[str]) -> None:
    # The two required fields come straight from their keys (the validator reports a bad
    # value at that key's line); the rest is reconciled from `advanced` by the VM model.
    for key, field in (("numvcpus", "vcpus"), ("memsize", "memory")):
        hit = texts.get(key)
        value = None if hit is None else hit[1]
        if value is not None:
            data[field] = value.strip()
        else:
            # A .vmx without numvcpus has one vCPU (VMware's default); without memsize the
            # memory is not stated anywhere, so rules that need it are skipped.
            data[field] = _REQUIRED_DEFAULTS[field]
            if field == "memory":
                unknown.add("memory")


_SCALAR_FIELDS = [(low, field) for low, (field, _) in SCALAR_KEYS.items()]
RECONCILED = "_reconciled"  # template_fields' key for the keys reconcile_advanced reads, in file order


def _dropped(low: str, value: Any) -> bool:
    """Whether a key is left out of `advanced`: advisor's pseudo-keys, and NIC types the VM's
    `nics` states."""
    return low.startswith("advisor.") or (low.startswith("ethernet") and nic_role(low) is not None
                                          and _is_nic_type(value))


def _is_nic_type(value: str) -> bool:
    return value.strip().lower() in NIC_VIRTUALDEV


class _Role(NamedTuple):
    """What a key means to template_fields beyond being carried (a non-empty tuple: true)."""

    always_dropped: bool  # advisor's pseudo-keys, never carried in `advanced`
    nic_type: bool  # an ethernetN key, left out of `advanced` when its value is a NIC type (_dropped)
    reconciles: bool  # reconcile_advanced reads it
    field: str | None  # the structured field the key states (SCALAR_KEYS)
    disk: _DiskKey | None  # a device slot's `.present` or advisor.diskN.size
    nic_present: int | None  # N of ethernetN.present


def _template_role(low: str) -> _Role | None:
    """What a lower-cased key means to template_fields: None for a raw key it only carries,
    else the parts that read it (a field's key, a device slot's, a NIC's or advisor's
    pseudo-key)."""
    nic = nic_role(low)
    scalar = SCALAR_KEYS.get(low)
    role = _Role(low.startswith("advisor."), nic is not None, advanced_role(low) is not None,
                 scalar[0] if scalar else None, _disk_key(low), nic[1] if nic and nic[0] == "present" else None)
    return role if any(part is not None and part is not False for part in role) else None


# lower-cased key -> _template_role (a template's hundred keys: one dict lookup each).
_ROLES = KeyMemo(_template_role, 8192)


class _DiskKey(NamedTuple):
    """A key a disk is read from: a device slot's `.present` (bus kind "scsi", "nvme", "sata"
    or "ide"), or advisor.diskN.size (kind "size", `bus` being N), with the keys read beside it."""

    kind: str
    bus: int
    unit: int  # the disk's unit on its controller (0 for advisor.diskN.size)
    device_type: str  # the slot's deviceType key
    file_name: str  # the slot's fileName key
    controller: str  # scsiN.virtualDev: the type of a SCSI slot's controller


def _disk_key(low: str) -> _DiskKey | None:
    if match := _DISK_KEY.match(low):
        bus = int(match[2])
        return _DiskKey(match[1], bus, int(match[3]), low.replace(".present", ".devicetype"),
                        low.replace(".present", ".filename"), f"scsi{bus}.virtualdev")
    if match := _SIZE_KEY.match(low):
        return _DiskKey("size", int(match[1]), 0, "", "", "")
    return None


def _template_disks(texts: Mapping[str, tuple[Any, Any]], line_of: Mapping[str, int | None],
                    keys: list[tuple[str, _DiskKey]]) -> tuple[list[dict[str, Any]], int | None]:
    """The disks in slot order, and the line a disk finding points at: the controller type of
    the first data disk (what a fix changes), else that disk's own line. `texts`: lower-cased key
    -> (spelling, value); `keys`: the template's keys that may be a disk's, with what they are,
    in file order."""
    disks: list[Any] = []
    where: int | None = None
    sizes: dict[int, str] = {}
    slots: list[tuple[str, _DiskKey]] = []
    for low, role in keys:
        value = texts[low][1]
        if not value:
            continue
        if role.kind == "size":
            sizes[role.bus] = value
        elif value.strip().lower() in TRUE_WORDS:  # present (read_bool)
            slots.append((low, role))
    places: list[Slot] = []
    lines: list[int | None] = []  # where a finding on each disk points
    for low, (bus_kind, bus, unit, device_type, file_name, controller_key) in slots:
        kind = None
        if bus_kind == "scsi":
            hit = texts.get(controller_key)
            kind = None if hit is None or hit[1] is None else hit[1].lower()
            if kind not in SCSI_FROM_VIRTUALDEV:
                continue
            controller = SCSI_FROM_VIRTUALDEV[kind]
        else:
            controller = bus_kind
        # A device slot holds a disk when its deviceType says so (scsi-hardDisk, ata-hardDisk,
        # rawDisk); without one, when its file is a .vmdk. CD-ROMs (cdrom-image, cdrom-raw, a
        # host drive passed through as atapi-cdrom) and generic SCSI passthrough devices are not
        # disks. A slot that names neither (templates state only `.present`) is a disk.
        if (hit := texts.get(device_type)) is not None and hit[1]:
            is_disk = "disk" in hit[1].lower()
        elif (hit := texts.get(file_name)) is not None and hit[1]:
            is_disk = hit[1].strip().lower().endswith(".vmdk")
        else:
            is_disk = True
        if not is_disk:
            continue
        disk: dict[str, Any] = {"controller": controller, "bus": min(bus, 3)}
        size = sizes.get(len(disks))
        if size:
            disk["size"] = int(size)
        places.append(Slot(bus_kind, bus, unit))
        lines.append((line_of.get(controller_key) if kind is not None else None) or line_of.get(low))
        disks.append(disk)
    # The boot disk keeps the role "os": fixes must not move it to a controller the guest may
    # have no driver for (an unbootable VM is worse than a slow one). bios.hddOrder states it
    # (advisor.model.bootdisk); otherwise the assumption there decides.
    hit = texts.get("bios.hddorder")
    mark_boot_disk(disks, places, parse_slots(hit[1]) if hit is not None and isinstance(hit[1], str) else ())
    for disk, line in zip(disks, lines, strict=True):
        if disk.setdefault("role", "data") != "os" and where is None:
            where = line
    return disks, where
