"""A VM in the `.vmx` key space, with typed values: what each key would state, before any text.

The engine compares and patches VMs key by key (a rule's fix names `.vmx` keys), but it does so
with the model's values: a key that states a spec field holds that field's value (``numvcpus``
-> 8, ``vcpu.hotadd`` -> False), every other key its text. Only the edge writes text
(advisor.vmx.mapping.vm_to_vmx, advisor.vmx.recommendation), through vmx_text (issue 33 item 8:
no round trip through `.vmx` text inside the engine).
"""

from __future__ import annotations

from typing import Any

from advisor.model.spec import VM
from advisor.model.vmxkeys import normalised_advanced, typed_or_text
from advisor.vocab import SCSI_VIRTUALDEV


def vm_values(vm: VM, core_mhz: int | None = None) -> dict[str, Any]:
    """The keys that express the VM as specified (not advisor's recommendations), in the order a
    .vmx lists them, each with its typed value (advisor.model.vmxkeys.typed)."""
    out: dict[str, Any] = {"numvcpus": vm.vcpus, "memsize": vm.memory}
    if vm.cores_per_socket:
        out["cpuid.coresPerSocket"] = vm.cores_per_socket
    if vm.hardware_version:
        out["virtualHW.version"] = vm.hardware_version
    if vm.guest_os:
        out["guestOS"] = vm.guest_os
    out["vcpu.hotadd"] = vm.cpu_hot_add
    out["mem.hotadd"] = vm.memory_hot_add
    # High with Hyperthreading is the API's level "high" plus VirtualHardware.simultaneousThreads 2
    # (vSphere API 8.0.0.1); VMware documents no .vmx key for the second part, so advisor writes
    # neither rather than a High the reservation below would not cover.
    if vm.latency_sensitivity not in ("normal", "high-ht"):
        out["sched.cpu.latencySensitivity"] = vm.latency_sensitivity
    if vm.cpu_reservation == "full" and core_mhz:
        # Full reservation: vCPUs x clock, or vCPUs / 2 x clock with vHT (GUID-2B67DC91).
        threads = 2 if vm.latency_sensitivity == "high-ht" else 1
        out["sched.cpu.min"] = -(-vm.vcpus // threads) * core_mhz
    elif isinstance(vm.cpu_reservation, int):
        out["sched.cpu.min"] = vm.cpu_reservation
    if "sched.cpu.min" in out:
        out["sched.cpu.units"] = "mhz"
    if vm.memory_reservation == "full":
        out["sched.mem.min"] = vm.memory
        out["sched.mem.pin"] = "TRUE"  # a key without a spec field: its text
    elif isinstance(vm.memory_reservation, int):
        out["sched.mem.min"] = vm.memory_reservation
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
    for low, (spelling, text) in normalised_advanced(vm).items():
        if spelling not in out:
            out[spelling] = typed_or_text(low, text)
    return out

