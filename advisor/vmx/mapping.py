"""A VM written as `.vmx` keys: the edge where the model becomes `.vmx` text.

The key <-> field table itself belongs to the model (advisor.model.vmxkeys); reconciling a spec's
`advanced:` keys with its fields is the model's too (advisor.model.reconcile).
"""

from __future__ import annotations

from typing import TYPE_CHECKING

from advisor.model.vmxkeys import normalised_advanced, vmx_text
from advisor.vocab import SCSI_VIRTUALDEV

if TYPE_CHECKING:
    from advisor.model.spec import VM


def vm_to_vmx(vm: VM, core_mhz: int | None = None) -> dict[str, str]:
    """The .vmx keys that express the VM as specified (not advisor's recommendations)."""
    out: dict[str, str] = {"numvcpus": str(vm.vcpus), "memsize": str(vm.memory)}
    if vm.cores_per_socket:
        out["cpuid.coresPerSocket"] = str(vm.cores_per_socket)
    if vm.hardware_version:
        out["virtualHW.version"] = str(vm.hardware_version)
    if vm.guest_os:
        out["guestOS"] = vm.guest_os
    out["vcpu.hotadd"] = vmx_text(vm.cpu_hot_add)
    out["mem.hotadd"] = vmx_text(vm.memory_hot_add)
    # High with Hyperthreading is the API's level "high" plus VirtualHardware.simultaneousThreads 2
    # (vSphere API 8.0.0.1); VMware documents no .vmx key for the second part, so advisor writes
    # neither rather than a High the reservation below would not cover.
    if vm.latency_sensitivity not in ("normal", "high-ht"):
        out["sched.cpu.latencySensitivity"] = vm.latency_sensitivity
    if vm.cpu_reservation == "full" and core_mhz:
        # Full reservation: vCPUs x clock, or vCPUs / 2 x clock with vHT (GUID-2B67DC91).
        threads = 2 if vm.latency_sensitivity == "high-ht" else 1
        out["sched.cpu.min"] = str(-(-vm.vcpus // threads) * core_mhz)
    elif isinstance(vm.cpu_reservation, int):
        out["sched.cpu.min"] = str(vm.cpu_reservation)
    if "sched.cpu.min" in out:
        out["sched.cpu.units"] = "mhz"
    if vm.memory_reservation == "full":
        out["sched.mem.min"] = str(vm.memory)
        out["sched.mem.pin"] = "TRUE"
    elif isinstance(vm.memory_reservation, int):
        out["sched.mem.min"] = str(vm.memory_reservation)
    if vm.cpu_affinity:
        out["sched.cpu.affinity"] = vm.cpu_affinity
    if vm.disks:
        # Each SCSI bus once, in bus order, typed by its first disk.
        buses: dict[int, str] = {}
        for d in vm.disks:
            if d.controller in SCSI_VIRTUALDEV:
                buses.setdefault(d.bus, d.controller)
        for bus in sorted(buses):
            out[f"scsi{bus}.present"] = "TRUE"
            out[f"scsi{bus}.virtualDev"] = SCSI_VIRTUALDEV[buses[bus]]
    slots = vm._nic_slots or range(len(vm.nics))
    for index, nic in zip(slots, vm.nics, strict=True):
        out[f"ethernet{index}.present"] = "TRUE"
        out[f"ethernet{index}.virtualDev"] = nic.adapter
    for spelling, text in normalised_advanced(vm).values():
        out.setdefault(spelling, text)
    return out
