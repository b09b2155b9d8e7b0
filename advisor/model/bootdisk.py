"""Which of a VM's disks is its boot disk, decided once for every reader of a configuration.

A disk's `role` (advisor.model.base.Disk: "os" for the boot disk, "data" by default) decides
STO001 and STO002, which look at data disks only. A spec states roles (the user writes them);
`.vmx` files, templates and vCenter do not, so their readers call `mark_boot_disk` and nothing
else decides it.

What the sources state:
- vSphere Web Services API, `VirtualMachineBootOptions.bootOrder` (since API 5.0): the devices
  tried in order; a `VirtualMachineBootOptionsBootableDiskDevice` entry names a disk by its
  `deviceKey`. Once the list is exhausted the firmware's default algorithm picks the device.
- VMware KB 2011654 (Broadcom KB 326326), "Changing the boot order of a virtual machine":
  the `.vmx` keys `bios.bootOrder` and `bios.hddOrder`; `bios.hddOrder` lists disk slots
  ("scsi0:3", "ide1:0"), the first being the disk tried first.
- Neither document says which disk the default algorithm picks when no disk is named. Taking the
  first disk (the lowest controller bus, then the lowest unit; a reader's own order between
  equal slots) as the boot disk is therefore an ASSUMPTION, returned as a sentence for the
  reader to name beside the VM.
"""

from __future__ import annotations

from collections.abc import Iterable, Sequence
from typing import Any, NamedTuple


class Slot(NamedTuple):
    """Where a disk sits: the bus kind ("scsi", "nvme", "sata" or "ide", as `.vmx` keys spell
    it), the controller's bus number and the disk's unit on it."""

    kind: str
    bus: int
    unit: int

    def __str__(self) -> str:
        return f"{self.kind}{self.bus}:{self.unit}"


# advisor's controller names (advisor.vocab.Controller) -> the bus kind of their `.vmx` slots.
BUS_KIND = {"pvscsi": "scsi", "lsilogic": "scsi", "lsisas": "scsi", "buslogic": "scsi",
            "nvme": "nvme", "sata": "sata", "ide": "ide"}


def parse_slots(text: str) -> list[Slot]:
    """The slots of a `bios.hddOrder` value ("scsi0:1,ide1:0"), in order; words that are not a
    slot are skipped (the firmware would not boot from them either)."""
    slots = []
    for word in text.split(","):
        kind, _, rest = word.strip().lower().partition(":")
        bus_kind = kind.rstrip("0123456789")
        bus = kind[len(bus_kind):]
        if bus_kind in ("scsi", "nvme", "sata", "ide") and bus.isdigit() and rest.isdigit():
            slots.append(Slot(bus_kind, int(bus), int(rest)))
    return slots


def assumed_boot_disk(slot: Slot) -> str:
    """The assumption a reader names when the boot order states no disk of the VM."""
    return (f"boot disk not stated (no disk in the boot order): {slot}, the first disk by controller "
            "bus and unit, is assumed to be the boot disk")


def assumed_boot_disks(count: int) -> str:
    """The same assumption for a run's `count` VMs whose boot order states no disk, in one line."""
    vms = "1 VM" if count == 1 else f"{count:,} VMs"
    return (f"boot disk not stated for {vms} (no disk in the boot order): the first disk by controller bus and unit "
            "is assumed to be the boot disk (the spec files `advisor collect vcenter` writes name each VM)")


def boot_disk(slots: Sequence[Slot], stated: Iterable[Slot] = ()) -> tuple[int | None, str | None]:
    """The index in `slots` of the boot disk and, when the boot order (`stated`, in order) names
    none of them, the assumption it rests on. No disks: (None, None)."""
    if not slots:
        return None, None
    where = {slot: i for i, slot in reversed(list(enumerate(slots)))}  # the first of equal slots
    for slot in stated:
        if slot in where:
            return where[slot], None
    first = min(range(len(slots)), key=lambda i: (slots[i].bus, slots[i].unit, i))
    return first, assumed_boot_disk(slots[first])


def mark_boot_disk(disks: list[dict[str, Any]], slots: Sequence[Slot], stated: Iterable[Slot] = ()) -> str | None:
    """Give the boot disk of `disks` (`slots[i]` being where `disks[i]` sits) the role "os";
    return the assumption the choice rests on, if any. The other disks keep their role, which
    the spec defaults to "data"."""
    index, assumption = boot_disk(slots, stated)
    if index is not None:
        disks[index]["role"] = "os"
    return assumption
