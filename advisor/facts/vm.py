"""Facts about a VM alone: its shape, devices, reservations and advanced keys (no host needed).

`advisor lint` without a host has only these (plus the version's); a template value left to a
variable makes the facts that depend on it unknown (_FIELD_FACTS).
"""

from __future__ import annotations

import re
from functools import lru_cache
from typing import Any, NamedTuple

from advisor.facts.devices import device_facts
from advisor.facts.sql import sql_facts
from advisor.model.spec import VM
from advisor.model.versions import hw_feature, hw_max_vcpus
from advisor.model.vmxkeys import normalised_advanced
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


class _Disks(NamedTuple):
    """What the facts count over a VM's disks, in one pass."""

    data: int  # disks other than the OS disk
    legacy_data: int  # data disks on a legacy SCSI controller
    legacy_controllers: list[str]
    shallow: int  # heavy-I/O disks on PVSCSI with a queue shallower than 254
    buses: int  # controllers in use, by kind and bus number
    uses_nvme: bool
    uses_pvscsi: bool


def _disks(vm: VM) -> _Disks:
    data = legacy_data = shallow = 0
    legacy_controllers: set[str] = set()
    buses: set[tuple[str, int]] = set()
    uses_nvme = uses_pvscsi = False
    for d in vm.disks:
        controller = d.controller
        if d.role != "os":
            data += 1
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
    return _Disks(data, legacy_data, sorted(legacy_controllers), shallow, len(buses), uses_nvme, uses_pvscsi)


def _nics(vm: VM) -> tuple[int, list[str], bool]:
    """The legacy NICs, their adapter types, and whether any NIC is SR-IOV or passthrough."""
    legacy = 0
    types: set[str] = set()
    sriov = False
    for n in vm.nics:
        adapter = n.adapter
        if adapter in _LEGACY_NICS:
            legacy += 1
            types.add(adapter)
        elif adapter in ("sriov", "passthrough"):
            sriov = True
    return legacy, sorted(types), sriov


def _counted_keys(adv: dict[str, tuple[str, str]]) -> tuple[list[str], list[str]]:
    """The spellings of the interrupt-mode keys and of the set I/O filter keys."""
    # Both kinds of key are rare: one substring search over all keys usually rules them out.
    joined = "\n".join(adv) if adv else ""
    if ".intrmode" not in joined and ".filters" not in joined:
        return [], []
    kinds = [(_key_kind(k), spelling, text) for k, (spelling, text) in adv.items()]
    return ([spelling for kind, spelling, _ in kinds if kind == "intrmode"],
            [spelling for kind, spelling, text in kinds if kind == "filters" and text.strip()])


def vm_facts(vm: VM, unknown: frozenset[str] = frozenset()) -> dict[str, Any]:
    """Facts about the VM alone (no host). `unknown` names spec fields a template left unresolved."""
    adv = normalised_advanced(vm)  # lower-cased key -> (spelling, text)
    intrmode, filters = _counted_keys(adv)
    disks = _disks(vm)
    legacy_nics, legacy_nic_types, sriov = _nics(vm)
    profile = (vm.gpu.profile or "") if vm.gpu else ""
    facts = _shape_facts(vm, profile, disks.legacy_controllers, legacy_nic_types)
    facts.update({
        "vm.disks": len(vm.disks),
        "vm.data_disks": disks.data,
        "vm.data_disks_legacy": disks.legacy_data,
        "vm.scsi_controllers_used": disks.buses,
        "vm.heavy_io_shallow_queue": disks.shallow,
        "vm.nics": len(vm.nics),
        "vm.legacy_nics": legacy_nics,
        "vm.intrmode_keys": len(intrmode),
        "vm.intrmode_key_names": intrmode,
        # An I/O filter (VAIO) attached to a disk appears in the .vmx as <disk>.filters.
        "vm.io_filter_keys": filters,
        "vm.io_filter_disks": len(filters),
    })
    facts.update(_setting_facts(vm, adv, profile))
    facts["vm.sriov_or_passthrough_nic"] = sriov
    facts.update(_hardware_facts(vm.hardware_version, disks))
    facts.update(device_facts(vm))
    facts.update(sql_facts(vm))
    for field in unknown:
        for name in _FIELD_FACTS.get(field, ()):
            facts[name] = None
    return facts


def _shape_facts(vm: VM, profile: str, legacy_controllers: list[str], legacy_nic_types: list[str]) -> dict[str, Any]:
    """What the VM is and its size: name, workload, guest, vCPUs, memory, reservations."""
    cpr = vm.cpu_reservation
    return {
        "vm.name": vm.name,
        "vm.workload": vm.workload,
        "vm.guest_os": vm.guest_os,
        "vm.latency_sensitivity": vm.latency_sensitivity,
        "vm.guest_power_plan": vm.guest.power_plan,
        "vm.gpu_profile": profile,
        "vm.gpu_purpose": (vm.gpu.purpose or "") if vm.gpu else "",
        "vm.legacy_controllers": legacy_controllers,
        "vm.legacy_nic_types": legacy_nic_types,
        "vm.containers_networking": vm.containers.networking if vm.containers else "",
        "vm.count": vm.count,
        "vm.vcpus": vm.vcpus,
        "vm.cores_per_socket": vm.cores_per_socket or 0,
        "vm.memory_mib": vm.memory,
        "vm.active_memory_mib": vm.active_memory,
        "vm.hardware_version": vm.hardware_version,
        "vm.hw_max_vcpus": _hardware(vm.hardware_version)[0],
        "vm.cpu_reservation_mhz": cpr if isinstance(cpr, int) else 0,
        "vm.memory_reservation_mib": (vm.memory if vm.memory_reservation == "full" else vm.memory_reservation or 0),
    }


def _setting_facts(vm: VM, adv: dict[str, tuple[str, str]], profile: str) -> dict[str, Any]:
    """The VM's settings and workload traits as yes/no facts (and the GPU's)."""
    prefer = adv["numa.vcpu.preferht"][1] if "numa.vcpu.preferht" in adv else None
    m = _PROFILE_GB.search(profile) if profile else None
    return {
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
    }


def _hardware_facts(hw: int | None, disks: _Disks) -> dict[str, Any]:
    """What the hardware version supports, beside what the VM uses."""
    _, vnuma, vmxnet3, nvme, pvscsi = _hardware(hw)
    return {
        "vm.hw_supports_vnuma": vnuma,
        "vm.hw_supports_vmxnet3": vmxnet3,
        "vm.hw_supports_nvme": nvme,
        "vm.uses_nvme": disks.uses_nvme,
        "vm.hw_supports_pvscsi": pvscsi,
        "vm.uses_pvscsi": disks.uses_pvscsi,
        "vm.vmxnet3_possible": True if vmxnet3 is None else vmxnet3,
        "vm.pvscsi_possible": True if pvscsi is None else pvscsi,
    }


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
