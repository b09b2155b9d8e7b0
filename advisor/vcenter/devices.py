"""A VM's virtual devices (config.hardware.device) as spec disks, NICs and GPU.

Device classes are matched by their vSphere API type name (vim.vm.device.*), so this module
needs no pyVmomi; a device the spec has no word for is named in a note, never guessed.
"""

from __future__ import annotations

from typing import Any

from advisor.model.bootdisk import BUS_KIND, Slot, mark_boot_disk
from advisor.vcenter.core import format_mib

# vSphere API device types -> spec vocabulary (advisor.spec Controller / Adapter). The .vmx names
# of the same devices are in advisor.vmxmap; these are the API's names for them.
CONTROLLERS = {
    "ParaVirtualSCSIController": "pvscsi",
    "VirtualLsiLogicController": "lsilogic",
    "VirtualLsiLogicSASController": "lsisas",
    "VirtualBusLogicController": "buslogic",
    "VirtualNVMEController": "nvme",
    "VirtualAHCIController": "sata",
    "VirtualIDEController": "ide",
}
NICS = {
    "VirtualVmxnet3": "vmxnet3",
    "VirtualVmxnet": "vmxnet",
    "VirtualE1000": "e1000",
    "VirtualE1000e": "e1000e",
    "VirtualPCNet32": "vlance",
    "VirtualSriovEthernetCard": "sriov",
}
_GPU_VENDORS = {0x10DE: "NVIDIA", 0x1002: "AMD"}  # PCI vendor ids
_MAX_BUS = 3  # scsi0-3, nvme0-3, sata0-3: four controllers of a kind per VM


def kind(device: Any) -> str:
    return type(device).__name__.rsplit(".", 1)[-1]


def map_devices(vm: dict[str, Any], devices: Any, label: str, boot_order: Any = (),
                assumed: list[str] | None = None) -> list[str]:
    """Fill vm['disks'], vm['nics'], vm['gpu']; return notes on devices left out and on the boot
    disk when it is assumed (into `assumed` instead, when given). `boot_order`:
    config.bootOptions.bootOrder (advisor.model.bootdisk)."""
    notes: list[str] = []
    controllers = {d.key: d for d in devices if kind(d) in CONTROLLERS}
    disks, nics, profiles, passthrough = [], [], [], 0
    slots: list[Slot] = []
    slot_of: dict[int, Slot] = {}  # disk device key -> where it sits, for the boot order
    for device in devices:
        name = kind(device)
        if name == "VirtualDisk":
            controller = controllers.get(device.controllerKey)
            if controller is None or controller.busNumber > _MAX_BUS:
                notes.append(f"{label}: disk {device.key} is on a controller advisor does not model; left out")
                continue
            disk: dict[str, Any] = {"controller": CONTROLLERS[kind(controller)], "bus": int(controller.busNumber)}
            if device.capacityInKB:
                disk["size"] = format_mib(int(device.capacityInKB) // 1024)
            slot_of[device.key] = Slot(BUS_KIND[disk["controller"]], disk["bus"], int(device.unitNumber or 0))
            slots.append(slot_of[device.key])
            disks.append(disk)
        elif name in NICS:
            nics.append({"adapter": NICS[name]})
        elif hasattr(device, "macAddress"):  # a VirtualEthernetCard of a type the spec cannot name
            notes.append(f"{label}: network adapter type {name} has no spec value; left out")
        elif name == "VirtualPCIPassthrough":
            backing = kind(device.backing)
            if backing == "VmiopBackingInfo":
                profiles.append(str(device.backing.vgpu))
            elif _vendor(device.backing) in _GPU_VENDORS:
                passthrough += 1
            else:
                notes.append(
                    f"{label}: PCI passthrough device {device.key} is not a GPU advisor can identify; left out"
                )
    if disks:
        # A BootableDiskDevice entry names its disk by device key; other entries (CD-ROM,
        # network, floppy) name no disk.
        stated = [slot_of[e.deviceKey] for e in boot_order or () if getattr(e, "deviceKey", None) in slot_of]
        if assumption := mark_boot_disk(disks, slots, stated):
            (notes if assumed is None else assumed).append(f"{label}: {assumption}")
        vm["disks"] = disks
    if nics:
        vm["nics"] = nics
    if profiles or passthrough:
        gpu: dict[str, Any] = {}
        if profiles:
            gpu["profile"] = profiles[0]
            if len(set(profiles)) > 1 or len(profiles) > 1:
                notes.append(f"{label}: {len(profiles)} vGPUs ({', '.join(profiles)}); the spec states one profile")
        if passthrough:
            gpu["passthrough"] = passthrough
        vm["gpu"] = gpu
    return notes


def _vendor(backing: Any) -> int | None:
    """PCI vendor id of a passthrough backing: DeviceBackingInfo.vendorId, or the allowed device
    of a DynamicBackingInfo (vSphere 7 dynamic DirectPath I/O)."""
    vendor = getattr(backing, "vendorId", None)
    if vendor is None:
        allowed = getattr(backing, "allowedDevice", None) or ()
        vendor = getattr(allowed[0], "vendorId", None) if allowed else None
    return vendor & 0xFFFF if isinstance(vendor, int) else None
