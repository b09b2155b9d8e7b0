""".vmx output: a fragment to paste into an existing file, or a complete file for a new VM.

The fragment is just the recommended keys, each after a ``# RULE: reason`` comment when advisor
has one. The complete file is what ESXi itself writes for a new VM of that shape: the header
keys, the PCI bridges a VM of hardware version 7 or later carries (pciBridge0 plus the four
PCIe root ports pciBridge4-7 with eight functions each), one controller and disk per SCSI bus,
the NICs on "VM Network", and then every remaining recommended key. Quoting and ``|XX``
escaping come from advisor.vmx.document, so a name like ``SQL "prod"`` survives as ``SQL |22prod|22``.

Keys starting with ``advisor.`` are advisor's own annotations (disk sizes) and are never written
as .vmx keys; disk sizes become comments next to the disk they describe, since a .vmx does not
hold a disk's size (the .vmdk does).
"""

from __future__ import annotations

import re

from advisor.emit.recommended import Recommended
from advisor.vmx.document import render_fragment

DEFAULT_HW_VERSION = "19"
DEFAULT_GUEST_OS = "other-64"  # ESXi's .vmx spelling of the API id otherGuest64
_FILE_UNSAFE = re.compile(r'[\x00-\x1f\x7f/\\:"*?<>|]')
# Keys render_full writes itself (lower case); they are skipped when the rest are appended.
_HEADER = (".encoding", "config.version", "virtualhw.version", "displayname", "guestos",
           "numvcpus", "cpuid.corespersocket", "memsize")


def render(name: str, settings: dict[str, str], reasons: dict[str, tuple[str, str]] | None = None) -> str:
    """The recommended keys as lines to paste into a .vmx, each after its reason."""
    rec = Recommended.of(name, settings, reasons)
    return render_fragment([(rec.spelling[low], value, rec.reason(low)) for low, value in rec.values.items()])


def render_full(name: str, settings: dict[str, str], reasons: dict[str, tuple[str, str]] | None = None,
                hardware_version: int | None = None) -> str:
    """A complete .vmx for a new VM named ``name`` with the recommended settings.

    ``hardware_version`` is the newest the target host runs (advisor.model.versions.max_hw_for),
    used when the VM states none; the fixed default is only for callers without a target.
    """
    rec = Recommended.of(name, settings, reasons)
    rows: list[tuple[str, str, str | None]] = []
    written: set[str] = set()

    def put(key: str, value: str, comment: str | None = None) -> None:
        low = key.lower()
        rows.append((key, value, comment if comment is not None else rec.reason(low)))
        written.add(low)

    put(".encoding", "UTF-8", "")  # advisor writes UTF-8, whatever the input said
    put("config.version", rec.get("config.version") or "8")
    put("virtualHW.version", rec.get("virtualHW.version") or str(hardware_version or DEFAULT_HW_VERSION))
    _pci_bridges(put)
    put("displayName", name)
    put("guestOS", rec.get("guestOS") or DEFAULT_GUEST_OS)
    for key in ("numvcpus", "cpuid.coresPerSocket", "memsize"):
        if rec.get(key) is not None:
            put(key, rec.get(key) or "")
    _disks(rec, name, put)
    _nics(rec, put)
    if rec.get("sched.cpu.min") is not None and rec.get("sched.cpu.units") is None:
        put("sched.cpu.units", "mhz", "sched.cpu.min is in MHz")
    for low, value in rec.values.items():
        if low not in written and low not in _HEADER:
            put(rec.spelling[low], value)
    return render_fragment(rows)


def _pci_bridges(put) -> None:
    """The bridges ESXi adds to every VM of hardware version 7+; devices are placed behind them."""
    put("pciBridge0.present", "TRUE", "")
    for number in range(4, 8):
        put(f"pciBridge{number}.present", "TRUE", "")
        put(f"pciBridge{number}.virtualDev", "pcieRootPort", "")
        put(f"pciBridge{number}.functions", "8", "")
    put("vmci0.present", "TRUE", "")
    put("hpet0.present", "TRUE", "")


def _disks(rec: Recommended, name: str, put) -> None:
    """scsiN controllers, each with one disk at unit 0 named the way ESXi names them."""
    stem = _FILE_UNSAFE.sub("_", name).strip() or "disk"
    for index, (bus, kind) in enumerate(rec.scsi_controllers().items()):
        put(f"scsi{bus}.present", rec.get(f"scsi{bus}.present") or "TRUE")
        put(f"scsi{bus}.virtualDev", kind)
        size = rec.disk_sizes.get(index)
        comment = f"disk {index}: {size} MB (create the .vmdk with: vmkfstools -c {size}M)" if size else None
        filename = f"{stem}.vmdk" if index == 0 else f"{stem}_{index}.vmdk"
        put(f"scsi{bus}:0.present", rec.get(f"scsi{bus}:0.present") or "TRUE", comment)
        put(f"scsi{bus}:0.fileName", rec.get(f"scsi{bus}:0.fileName") or filename)
        put(f"scsi{bus}:0.deviceType", rec.get(f"scsi{bus}:0.deviceType") or "scsi-hardDisk")


def _nics(rec: Recommended, put) -> None:
    for index, kind in rec.nics().items():
        put(f"ethernet{index}.present", rec.get(f"ethernet{index}.present") or "TRUE")
        put(f"ethernet{index}.virtualDev", kind)
        put(f"ethernet{index}.networkName", rec.get(f"ethernet{index}.networkName") or "VM Network")
        put(f"ethernet{index}.addressType", rec.get(f"ethernet{index}.addressType") or "generated")
