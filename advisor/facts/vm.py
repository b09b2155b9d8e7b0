"""Facts about a VM alone: its shape, devices, reservations and advanced keys (no host needed).

`advisor lint` without a host has only these (plus the version's); a template value left to a
variable makes the facts that depend on it unknown (_FIELD_FACTS).
"""

from __future__ import annotations

import re
from functools import lru_cache
from typing import Any

from advisor.facts.devices import device_facts
from advisor.facts.sql import sql_facts
from advisor.model.spec import VM
from advisor.model.versions import hw_feature, hw_max_vcpus
from advisor.vmx.mapping import normalised_advanced
from advisor.vocab import read_bool

_LEGACY_SCSI = {"lsilogic", "lsisas", "buslogic"}
_LEGACY_NICS = {"e1000", "e1000e", "vlance", "vmxnet"}
_PROFILE_GB = re.compile(r"-(\d+)[a-z]$", re.IGNORECASE)
_INTRMODE_KEY = re.compile(r"ethernet\d+\.intrmode")
_FILTERS_KEY = re.compile(r"(scsi|sata|nvme|ide)\d+:\d+\.filters")


@lru_cache(maxsize=8192)
def _key_kind(low: str) -> str | None:
    """The advanced keys vm_facts counts, classified once per distinct key (templates repeat
    the same hundred keys file after file)."""
    if _INTRMODE_KEY.fullmatch(low):
        return "intrmode"
    if _FILTERS_KEY.fullmatch(low):
        return "filters"
    return None


@lru_cache(maxsize=64)
def _hardware(hw: int | None) -> tuple[int | None, bool | None, bool | None, bool | None, bool | None]:
    """The most vCPUs and the devices of a hardware version (None for each when not stated)."""
    if not hw:
        return None, None, None, None, None
    return (hw_max_vcpus(hw), hw_feature(hw, "vnuma"), hw_feature(hw, "vmxnet3"), hw_feature(hw, "nvme"),
            hw_feature(hw, "pvscsi"))


def vm_facts(vm: VM, unknown: frozenset[str] = frozenset()) -> dict[str, Any]:
    """Facts about the VM alone (no host). `unknown` names spec fields a template left unresolved."""
    hw = vm.hardware_version
    disks = vm.disks
    # One pass over the disks and one over the NICs for every fact that counts them.
    data_disks = legacy_data = shallow = 0
    legacy_controllers: set[str] = set()
    buses: set[tuple[str, int]] = set()
    uses_nvme = uses_pvscsi = False
    for d in disks:
        controller = d.controller
        if d.role != "os":
            data_disks += 1
            if controller in _LEGACY_SCSI:
                legacy_data += 1
                legacy_controllers.add(controller)
        buses.add((controller if controller in ("nvme", "sata", "ide") else "scsi", d.bus))
        if controller == "pvscsi":
            uses_pvscsi = True
            if d.heavy_io and (d.queue_depth or 64) < 254:
                shallow += 1
        elif controller == "nvme":
            uses_nvme = True
    legacy_nics = 0
    legacy_nic_types: set[str] = set()
    sriov = False
    for n in vm.nics:
        adapter = n.adapter
        if adapter in _LEGACY_NICS:
            legacy_nics += 1
            legacy_nic_types.add(adapter)
        elif adapter in ("sriov", "passthrough"):
            sriov = True
    adv = normalised_advanced(vm)  # lower-cased key -> (spelling, text)
    prefer = adv["numa.vcpu.preferht"][1] if "numa.vcpu.preferht" in adv else None
    # Both kinds of key are rare: one substring search over all keys usually rules them out (and
    # host_bound finds its few keys in the same text).
    joined = "\n".join(adv) if adv else ""
    kinds = [_key_kind(k) for k in adv] if ".intrmode" in joined or ".filters" in joined else []
    filters = [spelling for kind, (spelling, text) in zip(kinds, adv.values(), strict=False)
               if kind == "filters" and text.strip()] if kinds else []
    profile = (vm.gpu.profile or "") if vm.gpu else ""
    m = _PROFILE_GB.search(profile) if profile else None
    cpr = vm.cpu_reservation
    hw_max, vnuma, vmxnet3, nvme, pvscsi = _hardware(hw)
    facts: dict[str, Any] = {
        "vm.name": vm.name,
        "vm.workload": vm.workload,
        "vm.guest_os": vm.guest_os,
        "vm.latency_sensitivity": vm.latency_sensitivity,
        "vm.guest_power_plan": vm.guest.power_plan,
        "vm.gpu_profile": profile,
        "vm.gpu_purpose": (vm.gpu.purpose or "") if vm.gpu else "",
        "vm.legacy_controllers": sorted(legacy_controllers),
        "vm.legacy_nic_types": sorted(legacy_nic_types),
        "vm.containers_networking": vm.containers.networking if vm.containers else "",
        "vm.count": vm.count,
        "vm.vcpus": vm.vcpus,
        "vm.cores_per_socket": vm.cores_per_socket or 0,
        "vm.memory_mib": vm.memory,
        "vm.active_memory_mib": vm.active_memory,
        "vm.hardware_version": hw,
        "vm.hw_max_vcpus": hw_max,
        "vm.cpu_reservation_mhz": cpr if isinstance(cpr, int) else 0,
        "vm.memory_reservation_mib": (vm.memory if vm.memory_reservation == "full" else vm.memory_reservation or 0),
        "vm.disks": len(vm.disks),
        "vm.data_disks": data_disks,
        "vm.data_disks_legacy": legacy_data,
        "vm.scsi_controllers_used": len(buses),
        "vm.heavy_io_shallow_queue": shallow,
        "vm.nics": len(vm.nics),
        "vm.legacy_nics": legacy_nics,
        "vm.intrmode_keys": kinds.count("intrmode") if kinds else 0,
        "vm.intrmode_key_names": [spelling for kind, (spelling, _) in zip(kinds, adv.values(), strict=False)
                                  if kind == "intrmode"] if kinds else [],
        # An I/O filter (VAIO) attached to a disk appears in the .vmx as <disk>.filters.
        "vm.io_filter_keys": filters,
        "vm.io_filter_disks": len(filters),
        "vm.gpu_passthrough": vm.gpu.passthrough if vm.gpu else 0,
        "vm.gpu_profile_gb": int(m.group(1)) if m else 0,
        "vm.java_jvms": vm.java.jvms if vm.java else 0,
        "vm.production": vm.production,
        "vm.cores_per_socket_set": vm.cores_per_socket is not None,
        "vm.cores_per_socket_divides": not vm.cores_per_socket or vm.vcpus % vm.cores_per_socket == 0,
        "vm.cpu_hot_add": vm.cpu_hot_add,
        "vm.memory_hot_add": vm.memory_hot_add,
        "vm.cpu_affinity": (vm.cpu_affinity or "all").strip().lower() != "all",
        "vm.full_memory_reservation": vm.memory_reservation == "full"
        or (isinstance(vm.memory_reservation, int) and vm.memory_reservation >= vm.memory),
        "vm.fault_tolerance": vm.fault_tolerance,
        "vm.tools": vm.guest.tools,
        "vm.windows": vm.guest_os.lower().startswith("win") if vm.guest_os else None,
        "vm.large_pages": _large_pages(vm),
        "vm.gpu_vgpu": bool(profile),
        "vm.hpc_memory_bound": bool(vm.hpc and vm.hpc.memory_bound),
        "vm.memory_bound": bool(vm.memory_bound) or bool(vm.hpc and vm.hpc.memory_bound),
        "vm.containers_latency_critical": bool(vm.containers and vm.containers.latency_critical),
        "vm.prefer_ht": prefer is not None and bool(read_bool(prefer)),
        "vm.sriov_or_passthrough_nic": sriov,
        "vm.hw_supports_vnuma": vnuma,
        "vm.hw_supports_vmxnet3": vmxnet3,
        "vm.hw_supports_nvme": nvme,
        "vm.uses_nvme": uses_nvme,
        "vm.hw_supports_pvscsi": pvscsi,
        "vm.uses_pvscsi": uses_pvscsi,
        "vm.vmxnet3_possible": True if vmxnet3 is None else vmxnet3,
        "vm.pvscsi_possible": True if pvscsi is None else pvscsi,
    }
    facts.update(device_facts(vm, joined))
    facts.update(sql_facts(vm))
    for field in unknown:
        for name in _FIELD_FACTS.get(field, ()):
            facts[name] = None
    return facts


# Which facts become unknown when a template leaves a spec field unresolved.
_FIELD_FACTS: dict[str, tuple[str, ...]] = {
    "count": ("vm.count",),
    "vcpus": ("vm.vcpus", "vm.cores_per_socket_divides", "vm.sockets"),
    "cores_per_socket": ("vm.cores_per_socket", "vm.cores_per_socket_set", "vm.cores_per_socket_divides"),
    "memory": ("vm.memory_mib",),
    "hardware_version": ("vm.hardware_version", "vm.hw_max_vcpus", "vm.hw_supports_vnuma",
                         "vm.hw_supports_vmxnet3", "vm.hw_supports_nvme", "vm.hw_supports_pvscsi"),
    "latency_sensitivity": ("vm.latency_sensitivity",),
    "cpu_hot_add": ("vm.cpu_hot_add",),
    "memory_hot_add": ("vm.memory_hot_add",),
    "cpu_reservation": ("vm.cpu_reservation_mhz", "vm.full_cpu_reservation"),
    "memory_reservation": ("vm.memory_reservation_mib", "vm.full_memory_reservation"),
    "cpu_affinity": ("vm.cpu_affinity",),
    "guest_os": ("vm.guest_os", "vm.windows"),
    "disks": ("vm.disks", "vm.data_disks", "vm.data_disks_legacy", "vm.scsi_controllers_used",
              "vm.legacy_controllers", "vm.heavy_io_shallow_queue", "vm.data_disks_emulated",
              "vm.emulated_disk_buses"),
    "nics": ("vm.nics", "vm.legacy_nics", "vm.legacy_nic_types", "vm.sriov_or_passthrough_nic"),
}
# Topology facts depend on these fields; unknown shape → no topology.
_TOPOLOGY_FIELDS = {"vcpus", "cores_per_socket", "memory", "hardware_version", "cpu_hot_add", "cpu_affinity"}


def _large_pages(vm: VM) -> bool | None:
    """Whether the application uses large pages: True when any place says so, False only when one
    states it off, None (unknown) when the spec says nothing; an unset field is not a "no"."""
    java, sql = vm.java, vm.sql
    if vm.guest.large_pages or (java and java.large_pages) or (sql and sql.lock_pages_in_memory):
        return True
    if (vm.guest.large_pages is False or (java is not None and "large_pages" in java.model_fields_set)
            or (sql is not None and "lock_pages_in_memory" in sql.model_fields_set)):
        return False
    return None
