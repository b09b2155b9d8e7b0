"""Facts about what a VM's devices and resource settings tie it to: emulated disk buses, limits,
host-bound devices. They read the `.vmx` keys every template becomes (the VM's `advanced:`).

Sources: vSphere Resource Management ("Limit" caps what a VM gets even when the host is idle);
vCenter Server and Host Management, "Virtual Machine Conditions and Limitations for vMotion"
(devices backed by a host's own hardware prevent migration); Performance Best Practices for
vSphere (SATA/AHCI and IDE are emulated controllers, PVSCSI/NVMe the paravirtual ones).
"""

from __future__ import annotations

import re
from typing import Any

from advisor.model.spec import VM
from advisor.model.vmxkeys import normalised_advanced
from advisor.vocab import read_bool

_CONNECTED_DEVICE = re.compile(r"^(ide\d+:\d+|sata\d+:\d+|scsi\d+:\d+|floppy\d+)\.(devicetype|filetype)$")
_PORT = re.compile(r"^(serial\d+|parallel\d+)\.filetype$")
_PASSTHROUGH = re.compile(r"^pcipassthru\d+\.present$")
# Device backings that are the host's own hardware (a drive, a port, a SCSI device passed through
# from /vmfs/devices/...), not a file on a datastore.
_HOST_BACKINGS = {"cdrom-raw", "atapi-cdrom", "device", "scsi-passthru"}


def device_facts(vm: VM) -> dict[str, Any]:
    adv = normalised_advanced(vm)
    emulated = [d for d in vm.disks if d.role != "os" and d.controller in ("sata", "ide")] if vm.disks else []
    bound, keys = host_bound(adv) if adv else ([], [])
    return {
        "vm.data_disks_emulated": len(emulated),
        "vm.emulated_disk_buses": sorted({d.controller for d in emulated}) if emulated else [],
        "vm.cpu_limit_mhz": _number(adv, "sched.cpu.max") if adv else 0,
        "vm.memory_limit_mib": _number(adv, "sched.mem.max") if adv else 0,
        "vm.host_bound_devices": bound,
        "vm.host_bound_count": len(bound),
        "vm.host_bound_keys": keys,
    }


def host_bound(adv: dict[str, tuple[str, str]]) -> tuple[list[str], list[str]]:
    """Devices connected to the host's hardware: a physical CD/DVD or floppy drive connected at
    power-on, a serial or parallel port on a host device, a PCI passthrough (DirectPath) device;
    and the keys (as spelled) whose values make them so, which findings point at.
    A VM made for Workstation or Fusion (`virtualHW.productCompatibility = "hosted"`) has no
    vMotion to block."""
    compatibility = adv.get("virtualhw.productcompatibility")
    if compatibility is not None and compatibility[1].strip().lower() == "hosted":
        return [], []
    found: dict[str, str] = {}
    # Each pattern below needs one of these in the key (a device's `...type` key, `pcipassthruN.present`):
    # a few of a template's hundred keys. (Searching the keys' newline-joined text instead was
    # measured slower: 3.7-5.4 against 2.3-3.2 us per VM on the shared corpus's 118 VMs.)
    for low in [low for low in adv if "type" in low or "pcipassthru" in low]:
        spelling, text = adv[low]
        value = text.strip().lower()
        if (match := _CONNECTED_DEVICE.match(low)) and value in _HOST_BACKINGS:
            device = match[1]
            # A client device (`clientDevice`) is a drive of the machine running the vSphere Client
            # or console (a remote backing in the vSphere API), not the host's hardware.
            if _on(adv, f"{device}.present", default=device.startswith("floppy")) and _on(
                    adv, f"{device}.startconnected", default=True) and not _on(adv, f"{device}.clientdevice", False):
                found.setdefault(device, spelling)
        elif (match := _PORT.match(low)) and value == "device" and _on(adv, f"{match[1]}.present", default=False):
            found.setdefault(match[1], spelling)
        elif _PASSTHROUGH.match(low) and value == "true":
            found.setdefault(low.removesuffix(".present"), spelling)
    devices = sorted(found)
    return devices, [found[d] for d in devices]


def _on(adv: dict[str, tuple[str, str]], key: str, default: bool) -> bool:
    hit = adv.get(key)
    return default if hit is None else bool(read_bool(hit[1]))


def _number(adv: dict[str, tuple[str, str]], key: str) -> int:
    """A numeric limit; 0 when absent, -1 (vSphere's "unlimited") or not a number."""
    hit = adv.get(key)
    text = hit[1].strip() if hit else ""
    return int(text) if text.isdigit() and len(text) < 12 else 0
