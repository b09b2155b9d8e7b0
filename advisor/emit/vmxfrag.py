""".vmx output: a fragment to paste into an existing file, or a complete file for a new VM.

The fragment is just the recommended keys, each after a ``# RULE: reason`` comment when advisor
has one. The complete file is what ESXi itself writes for a new VM of that shape: the header
keys, the PCI bridges a VM of hardware version 7 or later carries (pciBridge0 plus the four
PCIe root ports pciBridge4-7 with eight functions each), one controller and disk per SCSI bus,
the NICs on "VM Network", and then every remaining recommended key. Quoting and ``|XX``
escaping come from advisor.vmx.document, so a name like ``SQL "prod"`` survives as ``SQL |22prod|22``.

Both are the recommendation written through advisor.vmx.recommendation (the one key <-> field
table). Disk sizes become comments next to the disk they describe, since a .vmx does not hold a
disk's size (the .vmdk does).
"""

from __future__ import annotations

import re
from collections.abc import Callable

from advisor.model.recommendation import RecommendedVM
from advisor.vmx.document import render_fragment
from advisor.vmx.recommendation import to_vmx

DEFAULT_HW_VERSION = "19"
DEFAULT_GUEST_OS = "other-64"  # ESXi's .vmx spelling of the API id otherGuest64
_FILE_UNSAFE = re.compile(r'[\x00-\x1f\x7f/\\:"*?<>|]')
# Keys render_full writes itself (lower case); they are skipped when the rest are appended.
_HEADER = (".encoding", "config.version", "virtualhw.version", "displayname", "guestos",
           "numvcpus", "cpuid.corespersocket", "memsize")


Put = Callable[..., None]


def render(rec: RecommendedVM) -> str:
    """The recommended keys as lines to paste into a .vmx, each after its reason."""
    return render_fragment([(key, value, rec.reason(key)) for key, value in to_vmx(rec).items()])


def render_full(rec: RecommendedVM, hardware_version: int | None = None) -> str:
    """A complete .vmx for a new VM with the recommended settings.

    ``hardware_version`` is the newest the target host runs (advisor.model.versions.max_hw_for),
    used when the VM states none; the fixed default is only for callers without a target.
    """
    name = rec.name
    keys = {key.lower(): (key, value) for key, value in to_vmx(rec).items()}
    rows: list[tuple[str, str, str | None]] = []
    written: set[str] = set()

    def put(key: str, value: str, comment: str | None = None) -> None:
        low = key.lower()
        rows.append((key, value, comment if comment is not None else rec.reason(low)))
        written.add(low)

    def get(key: str) -> str | None:
        return keys[key.lower()][1] if key.lower() in keys else None

    put(".encoding", "UTF-8", "")  # advisor writes UTF-8, whatever the input said
    put("config.version", get("config.version") or "8")
    put("virtualHW.version", get("virtualHW.version") or str(hardware_version or DEFAULT_HW_VERSION))
    _pci_bridges(put)
    put("displayName", name)
    put("guestOS", get("guestOS") or DEFAULT_GUEST_OS)
    for key in ("numvcpus", "cpuid.coresPerSocket", "memsize"):
        if get(key) is not None:
            put(key, get(key) or "")
    _disks(rec, get, put)
    _nics(rec, get, put)
    if get("sched.cpu.min") is not None and get("sched.cpu.units") is None:
        put("sched.cpu.units", "mhz", "sched.cpu.min is in MHz")
    for low, (key, value) in keys.items():
        if low not in written and low not in _HEADER:
            put(key, value)
    return render_fragment(rows)


def _pci_bridges(put: Put) -> None:
    """The bridges ESXi adds to every VM of hardware version 7+; devices are placed behind them."""
    put("pciBridge0.present", "TRUE", "")
    for number in range(4, 8):
        put(f"pciBridge{number}.present", "TRUE", "")
        put(f"pciBridge{number}.virtualDev", "pcieRootPort", "")
        put(f"pciBridge{number}.functions", "8", "")
    put("vmci0.present", "TRUE", "")
    put("hpet0.present", "TRUE", "")


def _disks(rec: RecommendedVM, get: Callable[[str], str | None], put: Put) -> None:
    """scsiN controllers, each with one disk at unit 0 named the way ESXi names them."""
    stem = _FILE_UNSAFE.sub("_", rec.name).strip() or "disk"
    sizes = {disk.index: disk.size_mib for disk in rec.disks}
    for index, (bus, kind) in enumerate(rec.scsi_types().items()):
        put(f"scsi{bus}.present", get(f"scsi{bus}.present") or "TRUE")
        put(f"scsi{bus}.virtualDev", kind)
        size = sizes.get(index)
        comment = f"disk {index}: {size} MB (create the .vmdk with: vmkfstools -c {size}M)" if size else None
        filename = f"{stem}.vmdk" if index == 0 else f"{stem}_{index}.vmdk"
        put(f"scsi{bus}:0.present", get(f"scsi{bus}:0.present") or "TRUE", comment)
        put(f"scsi{bus}:0.fileName", get(f"scsi{bus}:0.fileName") or filename)
        put(f"scsi{bus}:0.deviceType", get(f"scsi{bus}:0.deviceType") or "scsi-hardDisk")


def _nics(rec: RecommendedVM, get: Callable[[str], str | None], put: Put) -> None:
    for nic in rec.nics:
        index = nic.index
        put(f"ethernet{index}.present", get(f"ethernet{index}.present") or "TRUE")
        put(f"ethernet{index}.virtualDev", nic.adapter)
        put(f"ethernet{index}.networkName", get(f"ethernet{index}.networkName") or "VM Network")
        put(f"ethernet{index}.addressType", get(f"ethernet{index}.addressType") or "generated")
