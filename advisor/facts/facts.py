"""The facts documents rule conditions read: every number a rule compares, computed once.

A rule condition is one line of CEL over these names (`topo.wide && !topo.balanced`). All the
arithmetic - vNUMA layouts, what preferHT would change, node over-subscription, version maxima,
Microsoft's MAXDOP table - happens here, in Python, where it is tested; conditions only compare.

Facts are flat, dotted names with a declared CEL type. A value of None means "unknown" (no host
given to `advisor lint`, a template value that came from a variable, a setting the user did not
state): a rule that reads an unknown fact is skipped with a note, never guessed.
"""

from __future__ import annotations

import math
import re
from collections.abc import Callable
from dataclasses import dataclass
from functools import lru_cache
from typing import Any

from advisor.facts.devices import device_facts
from advisor.model.spec import VM, Host
from advisor.model.versions import Version, hw_feature, hw_max_vcpus, limits_for
from advisor.numa.topology import Topology, predict, with_memory
from advisor.vmx.mapping import normalised_advanced
from advisor.vocab import read_bool

# CEL type names used in declarations; mapped to cel.Type in advisor.engine.catalog.
INT, DOUBLE, BOOL, STRING, LIST_STRING, LIST_INT = "int", "double", "bool", "string", "list<string>", "list<int>"


@dataclass(frozen=True, slots=True)
class FactDef:
    name: str
    type: str
    doc: str


FACTS: dict[str, FactDef] = {}


def _declare(type_: str, *entries: tuple[str, str]) -> None:
    for name, doc in entries:
        FACTS[name] = FactDef(name, type_, doc)


# --- the vocabulary -----------------------------------------------------------------------
_declare(STRING,
    ("vm.name", "VM name"),
    ("vm.workload", "workload kind (sql-server, hadoop, java, ...)"),
    ("vm.guest_os", "guestOS identifier"),
    ("vm.latency_sensitivity", "sched.cpu.latencySensitivity: low, normal, medium, high, high-ht"),
    ("vm.guest_power_plan", "guest OS power plan (high-performance, balanced, power-saver)"),
    ("vm.gpu_profile", "vGPU profile, e.g. grid_m60-8q"),
    ("vm.gpu_purpose", "what the GPU is for: ml-training, ml-inference, graphics, mixed"),
    ("vm.gpu_max_profile", "the largest vGPU profile of the host's GPU model, e.g. grid_m60-8q"),
    ("vm.legacy_controllers", "legacy SCSI controller types carrying data disks"),
    ("vm.legacy_nic_types", "emulated NIC types in use (e1000, e1000e, vlance, vmxnet)"),
    ("vm.emulated_disk_buses", "emulated buses (sata, ide) carrying data disks"),
    ("vm.host_bound_devices", "devices on the host's own hardware: host CD/floppy drives connected at power-on, "
                              "serial/parallel ports on host devices, PCI passthrough"),
    ("vm.containers_networking", "container networking mode: bridge, host, macvlan, sriov"),
    ("vm.aligned_vcpus_text", "vCPU counts near the requested one that balance over whole nodes"),
    ("vm.max_vcpus_why", "which limit sets vm.max_vcpus"),
    ("topo.layout", "vNUMA node sizes, e.g. '10×6, 4'"),
    ("topo.clients_layout", "NUMA client sizes ESXi schedules, e.g. '24×2, 12' (empty when affinity pins the VM)"),
    ("topo.summary", "one-line topology summary"),
    ("topo.prefer_ht_layout", "vNUMA layout with numa.vcpu.preferHT=TRUE"),
    ("topo.cps_layout_default", "vNUMA layout the VM would get with the default cores per socket"),
    ("host.name", "host profile name"),
    ("host.power_policy", "Power.CpuPolicy: high-performance, balanced, low-power, custom"),
    ("host.bios_power", "BIOS power management mode"),
    ("host.gpu_model", "GPU model installed in the host"),
    ("place.node_load_text", "vCPUs homed on each physical node, e.g. '24, 16, 16, 16'"),
    ("place.suggestion", "an aligned alternative packing, e.g. '8 × 10 vCPU'"),
    ("version.text", "vSphere version, e.g. 6.7 U2"),
)
_declare(
    INT,
    ("vm.count", "identical VMs of this shape"),
    ("vm.vcpus", "vCPUs"),
    ("vm.cores_per_socket", "cpuid.coresPerSocket as configured (0 when not set)"),
    ("vm.sockets", "virtual sockets the guest sees"),
    ("vm.memory_mib", "memory (MiB)"),
    ("vm.hardware_version", "virtualHW.version"),
    ("vm.hw_max_vcpus", "most vCPUs the VM's hardware version allows"),
    ("vm.cpu_reservation_mhz", "CPU reservation (MHz, 0 none)"),
    ("vm.full_cpu_reservation_mhz", "vCPUs × the host's core clock"),
    ("vm.memory_reservation_mib", "memory reservation (MiB, 0 none)"),
    ("vm.disks", "virtual disks"),
    ("vm.data_disks", "disks whose role is not os"),
    ("vm.data_disks_legacy", "data disks on LSI Logic / LSI SAS / BusLogic controllers"),
    ("vm.scsi_controllers_used", "distinct SCSI/NVMe controllers carrying disks"),
    ("vm.heavy_io_shallow_queue", "heavy-I/O PVSCSI disks left at the default queue depth"),
    ("vm.nics", "network adapters"),
    ("vm.legacy_nics", "emulated network adapters (e1000, e1000e, vlance, flexible)"),
    ("vm.intrmode_keys", "ethernetN.intrMode workaround keys present"),
    ("vm.io_filter_disks", "disks with an I/O filter (VAIO) attached"),
    ("vm.gpu_passthrough", "GPUs given with DirectPath I/O"),
    ("vm.gpu_profile_gb", "frame buffer of the vGPU profile (GB)"),
    ("vm.gpu_max_profile_gb", "frame buffer of the largest profile for that GPU (GB)"),
    ("vm.java_jvms", "JVMs running in the VM"),
    ("vm.aligned_vcpus", "nearest vCPU count at or below the VM's that balances over whole nodes"),
    ("vm.max_vcpus", "most vCPUs this VM may have: the vSphere version's and the hardware version's limit"),
    ("topo.vnuma_nodes", "virtual NUMA nodes the guest sees"),
    ("topo.clients", "NUMA clients ESXi schedules"),
    ("topo.physical_nodes", "physical nodes the VM spans"),
    ("topo.smallest_vnode", "vCPUs in the smallest virtual node"),
    ("topo.largest_vnode", "vCPUs in the largest virtual node"),
    ("topo.memory_remote_mib", "memory that cannot be node-local (MiB)"),
    ("topo.default_cps_vnuma_nodes", "virtual nodes with the default cores per socket"),
    (
        "topo.aligned_cores_per_socket",
        "cores per socket making each virtual socket one vNUMA node of the default layout (1 if nodes differ)",
    ),
    ("host.sockets", "CPU sockets"),
    ("host.cores", "physical cores"),
    ("host.logical_cpus", "logical processors (hardware threads)"),
    ("host.nodes", "physical NUMA nodes"),
    ("host.cores_per_node", "cores per NUMA node"),
    ("host.threads_per_node", "hardware threads per NUMA node"),
    ("host.memory_mib", "memory (MiB)"),
    ("host.memory_per_node_mib", "memory per NUMA node (MiB)"),
    ("host.core_mhz", "nominal core clock (MHz)"),
    ("host.max_freq_pct", "Power.MaxFreqPct (100 when not set)"),
    ("host.gpus", "GPUs installed"),
    ("version.max_vcpus", "most vCPUs a VM may have on this vSphere version"),
    ("version.max_hw", "newest virtual hardware version this vSphere version runs"),
    ("vm.data_disks_emulated", "data disks on an emulated SATA (AHCI) or IDE controller"),
    ("vm.cpu_limit_mhz", "sched.cpu.max: CPU limit in MHz (0 when unlimited)"),
    ("vm.memory_limit_mib", "sched.mem.max: memory limit in MiB (0 when unlimited)"),
    ("vm.host_bound_count", "how many devices are on the host's own hardware (vm.host_bound_devices)"),
    ("version.max_memory_mib", "most memory a VM may have on this vSphere version (MiB)"),
    ("version.ft_max_vcpus", "most vCPUs of a Fault Tolerance VM (0: FT unsupported)"),
    ("version.ft_max_memory_mib", "most memory of a Fault Tolerance VM (MiB)"),
    ("place.vms", "VMs on the host (counting every instance)"),
    ("place.total_vcpus", "vCPUs of all VMs on the host"),
    ("place.oversubscribed_nodes", "nodes with more vCPUs homed than hardware threads"),
    ("place.ht_reliant_nodes", "nodes with more vCPUs homed than physical cores"),
    ("place.max_node_load", "most vCPUs homed on one node"),
    ("place.min_node_load", "fewest vCPUs homed on one node"),
    ("place.max_clients_per_node", "most NUMA clients on one node"),
    ("place.vms_per_node_x100", "VMs per physical node × 100 (for scale-out rules)"),
    ("place.vms_of_workload", "VMs of the host's dominant workload"),
    ("sql.maxdop", "max degree of parallelism (0 = all)"),
    ("sql.recommended_maxdop", "MAXDOP from Microsoft's table for this vNUMA layout"),
    ("sql.cost_threshold", "cost threshold for parallelism"),
    ("sql.affinity_mask", "affinity mask (0 = automatic)"),
    ("sql.edition_max_sockets", "sockets the SQL Server edition uses (0 = unlimited)"),
    ("sql.edition_max_cores", "cores the SQL Server edition uses (0 = unlimited)"),
)
_declare(DOUBLE,
    ("place.vcpu_per_core", "vCPUs on the host per physical core"),
    ("place.vcpu_per_thread", "vCPUs on the host per logical processor"),
    ("version.number", "vSphere major.minor as a number, e.g. 6.7"),
)
_declare(BOOL,
    ("vm.production", "a production VM"),
    ("vm.cores_per_socket_set", "cpuid.coresPerSocket stated explicitly"),
    ("vm.cores_per_socket_divides", "cores per socket divides the vCPU count"),
    ("vm.cpu_hot_add", "CPU hot-add enabled"),
    ("vm.memory_hot_add", "memory hot-add enabled"),
    ("vm.cpu_affinity", "sched.cpu.affinity pins the VM to physical CPUs"),
    ("vm.full_cpu_reservation", "CPU reservation covers vCPUs × core clock"),
    ("vm.full_memory_reservation", "all memory reserved"),
    ("vm.fault_tolerance", "Fault Tolerance on"),
    ("vm.tools", "VMware Tools installed"),
    ("vm.windows", "a Windows guest"),
    ("vm.large_pages", "the application uses large pages"),
    ("vm.gpu_vgpu", "a vGPU profile is attached"),
    ("vm.hpc_memory_bound", "HPC job bound by memory bandwidth/latency"),
    ("vm.memory_bound", "the user marked the workload memory- or cache-bound (memory_bound, or hpc.memory_bound)"),
    ("vm.containers_latency_critical", "containers need the lowest network latency"),
    ("vm.prefer_ht", "numa.vcpu.preferHT set on the VM (or host Numa.PreferHT)"),
    ("vm.sriov_or_passthrough_nic", "an SR-IOV or passthrough NIC is attached"),
    ("vm.hw_supports_vnuma", "hardware version can expose vNUMA (8+)"),
    ("vm.hw_supports_vmxnet3", "hardware version supports VMXNET3 (7+)"),
    ("vm.hw_supports_nvme", "hardware version supports NVMe controllers (13+)"),
    ("vm.uses_nvme", "an NVMe controller is used"),
    ("vm.hw_supports_pvscsi", "hardware version supports PVSCSI (7+)"),
    ("vm.uses_pvscsi", "a PVSCSI controller is used"),
    ("vm.vmxnet3_possible", "VMXNET3 is available: hardware version 7+ or unstated (a new VM gets the current one)"),
    ("vm.pvscsi_possible", "PVSCSI is available: hardware version 7+ or unstated (a new VM gets the current one)"),
    ("topo.exposed", "vNUMA is exposed to the guest"),
    ("topo.wide", "more than one NUMA client"),
    ("topo.balanced", "every virtual node and client the same size"),
    ("topo.vnuma_balanced", "every virtual node the guest sees has the same number of vCPUs (certain even where the 6.5+ remainder spread is not)"),
    ("topo.prefer_ht_memory_fits", "with numa.vcpu.preferHT=TRUE the VM's memory fits the nodes its clients land on"),
    ("topo.persisted_layout_differs", "numa.autosize.vcpu.maxPerVirtualNode, recorded at an earlier power-on, keeps a layout other than the one this host builds"),
    ("topo.uses_hyperthreads", "NUMA clients count hyper-threads"),
    ("topo.numa_managed", "ESXi's NUMA scheduler manages the VM"),
    ("topo.uncertain", "the prediction depends on behaviour VMware has not documented"),
    ("topo.fits_node_cores", "vCPUs fit one node's cores"),
    ("topo.fits_node_threads", "vCPUs fit one node's threads"),
    ("topo.memory_fits_node", "memory fits one node's memory"),
    ("topo.prefer_ht_balances", "numa.vcpu.preferHT=TRUE would give a balanced layout"),
    ("topo.prefer_ht_fewer_nodes", "numa.vcpu.preferHT=TRUE would span fewer physical nodes"),
    ("topo.vnode_below_physical", "virtual nodes are smaller than the VM needs: cores per socket split them"),
    ("topo.cps_unbalances", "the configured cores per socket gives a less balanced layout than the default"),
    ("topo.spans_needlessly", "the VM spans nodes though it fits one node's cores and memory"),
    ("topo.follows_cps", "vNUMA follows cores per socket (ESXi before 6.5 or FollowCoresPerSocket)"),
    ("host.ht", "hyper-threading / SMT enabled"),
    ("host.deep_cstates", "deep C-states enabled in the BIOS"),
    ("host.turbo", "Turbo Boost enabled"),
    ("place.balanced", "every node carries the same vCPU load"),
    ("sql.present", "SQL Server settings given"),
    ("sql.server_cal", "Server + CAL licensing"),
    ("sql.standard", "Standard edition"),
    ("sql.trace_834", "trace flag 834 (large-page buffer pool) on"),
    ("sql.priority_boost", "priority boost on"),
    ("sql.lightweight_pooling", "lightweight pooling (fibers) on"),
    ("sql.lock_pages", "lock pages in memory granted"),
    ("version.intrmode_fixed", "the VMXNET3 interrupt-mode bug is fixed in this version"),
)


# --- helpers ------------------------------------------------------------------------------
_LEGACY_SCSI = {"lsilogic", "lsisas", "buslogic"}
_LEGACY_NICS = {"e1000", "e1000e", "vlance", "vmxnet"}
_PROFILE_GB = re.compile(r"-(\d+)[a-z]$", re.IGNORECASE)
# Largest vGPU profile per GPU model (frame buffer per GPU in GB) - NVIDIA GRID profile tables.
_MAX_PROFILE = {"m60": ("grid_m60-8q", 8), "m10": ("grid_m10-8q", 8), "p40": ("grid_p40-24q", 24),
                "t4": ("grid_t4-16q", 16), "v100": ("grid_v100-16q", 16), "a100": ("grid_a100-40c", 40),
                "a40": ("nvidia_a40-48q", 48), "l40": ("nvidia_l40-48q", 48)}


def socket_per_vnode(vnodes: tuple[int, ...], vcpus: int) -> int:
    """Cores per socket that make each virtual socket exactly one vNUMA node.

    VMware's sizing guidance (and Denneman's 6.5+ advice) aligns sockets with vNUMA nodes; when
    the nodes differ in size no single value does that, and the default of 1 is the safe choice.
    """
    size = vnodes[0] if vnodes else 1
    return size if len(set(vnodes)) == 1 and vcpus % size == 0 else 1


def runs(sizes: tuple[int, ...] | list[int]) -> str:
    from advisor.numa.topology import layout_text

    return layout_text(sizes)


def _with_advanced(vm: VM, key: str, value: str | None, **fields: Any) -> VM:
    """A copy of the VM with one advanced key set (or removed) - for what-if layouts."""
    adv = {k: v for k, v in vm.advanced.items() if k.lower() != key.lower()}
    if value is not None:
        adv[key] = value
    # Shallow: what-if variants only read the VM; the copy gets its own private dict.
    variant = vm.model_copy(update={**fields, "advanced": adv})
    variant.__pydantic_private__.pop("_adv", None)  # type: ignore[union-attr]  # set: VM has private attributes
    return variant


_AUTOSIZE = ("numa.autosize.vcpu.maxPerVirtualNode", "numa.autosize.cookie")


def _without_autosize(vm: VM) -> VM:
    """The VM without the layout ESXi recorded at an earlier power-on (the VM itself if none)."""
    if all(vm.setting(key) is None for key in _AUTOSIZE):
        return vm
    for key in _AUTOSIZE:
        vm = _with_advanced(vm, key, None)
    return vm


def aligned_vcpus(vcpus: int, host: Host, prefer_ht: bool) -> tuple[int, list[int]]:
    """The largest count ≤ vcpus that fills whole nodes evenly, and nearby balanced choices."""
    per = host.threads_per_node if prefer_ht else host.cores_per_node
    options = sorted({per * n for n in range(1, host.nodes + 1)} |
                     {n * k for n in range(1, host.nodes + 1) for k in range(2, per + 1, 2)})
    below = [o for o in options if o <= vcpus and (o <= per or o % 2 == 0)]
    best = max(below) if below else min(options)
    near = [o for o in options if abs(o - vcpus) <= max(4, vcpus // 4) and o != vcpus]
    return best, near[:4]


def microsoft_maxdop(vnodes: tuple[int, ...]) -> int:
    """MAXDOP per Microsoft's 'Configure the max degree of parallelism' table (SQL 2016+).

    One NUMA node: ≤ 8 logical processors → that number, else 8. Several nodes: ≤ 16 per node
    → that number, else half of it, at most 16.
    """
    per_node = max(vnodes) if vnodes else 1
    if len(vnodes) <= 1:
        return min(per_node, 8)
    return per_node if per_node <= 16 else min(16, max(1, per_node // 2))


_EDITION_LIMITS = {"standard": (4, 24), "web": (4, 16), "express": (1, 4)}


@lru_cache(maxsize=4096)
def version_facts(version: Version) -> dict[str, Any]:
    lim = limits_for(version)
    return {
        "version.text": str(version),
        "version.number": version.major + version.minor / 10,
        "version.max_vcpus": lim.max_vcpus,
        "version.max_hw": lim.max_hw,
        "version.max_memory_mib": lim.max_memory_mib,
        "version.ft_max_vcpus": lim.ft_max_vcpus or 0,
        "version.ft_max_memory_mib": lim.ft_max_memory_mib or 0,
        # VMXNET3 interrupt-mode problems on Windows were fixed in ESXi 5.0 / Tools of that era:
        # the ethernetN.intrMode workaround has no purpose on 5.0 and later.
        "version.intrmode_fixed": version >= Version(5, 0),
    }


def host_facts(host: Host) -> dict[str, Any]:
    gpu = host.gpus[0].model if host.gpus else None
    return {
        "host.name": host.name,
        "host.sockets": host.sockets,
        "host.cores": host.cores,
        "host.logical_cpus": host.logical_cpus,
        "host.nodes": host.nodes,
        "host.cores_per_node": host.cores_per_node,
        "host.threads_per_node": host.threads_per_node,
        "host.memory_mib": host.memory,
        "host.memory_per_node_mib": host.memory_per_node,
        "host.core_mhz": host.core_mhz,
        "host.power_policy": host.power_policy,
        "host.max_freq_pct": host.max_freq_pct if host.max_freq_pct is not None else 100,
        "host.bios_power": host.bios_power,
        "host.ht": host.threads_per_core > 1,
        "host.deep_cstates": host.deep_cstates,
        "host.turbo": host.turbo,
        "host.gpu_model": gpu,
        "host.gpus": sum(g.count for g in host.gpus),
    }


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


def vm_facts(vm: VM, unknown: frozenset[str] = frozenset()) -> dict[str, Any]:
    """Facts about the VM alone (no host). `unknown` names spec fields a template left unresolved."""
    hw = vm.hardware_version
    data_disks = [d for d in vm.disks if d.role != "os"]
    legacy_data = [d for d in data_disks if d.controller in _LEGACY_SCSI]
    controllers = {(d.controller if d.controller in ("nvme", "sata", "ide") else "scsi", d.bus) for d in vm.disks}
    adv = normalised_advanced(vm)  # lower-cased key -> (spelling, text)
    prefer = adv["numa.vcpu.preferht"][1] if "numa.vcpu.preferht" in adv else None
    # Both kinds of key are rare: one substring search over all keys usually rules them out.
    joined = "\n".join(adv)
    kinds = [_key_kind(k) for k in adv] if ".intrmode" in joined or ".filters" in joined else []
    profile = (vm.gpu.profile or "") if vm.gpu else ""
    m = _PROFILE_GB.search(profile)
    cpr = vm.cpu_reservation
    facts: dict[str, Any] = {
        "vm.name": vm.name,
        "vm.workload": vm.workload,
        "vm.guest_os": vm.guest_os,
        "vm.latency_sensitivity": vm.latency_sensitivity,
        "vm.guest_power_plan": vm.guest.power_plan,
        "vm.gpu_profile": profile,
        "vm.gpu_purpose": (vm.gpu.purpose or "") if vm.gpu else "",
        "vm.legacy_controllers": sorted({d.controller for d in legacy_data}),
        "vm.legacy_nic_types": sorted({n.adapter for n in vm.nics if n.adapter in _LEGACY_NICS}),
        "vm.containers_networking": vm.containers.networking if vm.containers else "",
        "vm.count": vm.count,
        "vm.vcpus": vm.vcpus,
        "vm.cores_per_socket": vm.cores_per_socket or 0,
        "vm.memory_mib": vm.memory,
        "vm.hardware_version": hw,
        "vm.hw_max_vcpus": hw_max_vcpus(hw) if hw else None,
        "vm.cpu_reservation_mhz": cpr if isinstance(cpr, int) else 0,
        "vm.memory_reservation_mib": (vm.memory if vm.memory_reservation == "full" else vm.memory_reservation or 0),
        "vm.disks": len(vm.disks),
        "vm.data_disks": len(data_disks),
        "vm.data_disks_legacy": len(legacy_data),
        "vm.scsi_controllers_used": len(controllers),
        "vm.heavy_io_shallow_queue": sum(
            1 for d in vm.disks if d.heavy_io and d.controller == "pvscsi" and (d.queue_depth or 64) < 254
        ),
        "vm.nics": len(vm.nics),
        "vm.legacy_nics": sum(1 for n in vm.nics if n.adapter in _LEGACY_NICS),
        "vm.intrmode_keys": kinds.count("intrmode"),
        # An I/O filter (VAIO) attached to a disk appears in the .vmx as <disk>.filters.
        "vm.io_filter_disks": sum(
            1 for kind, (_, text) in zip(kinds, adv.values(), strict=False) if kind == "filters" and text.strip()
        ),
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
        "vm.large_pages": bool(vm.guest.large_pages)
        or bool(vm.java and vm.java.large_pages)
        or bool(vm.sql and vm.sql.lock_pages_in_memory),
        "vm.gpu_vgpu": bool(profile),
        "vm.hpc_memory_bound": bool(vm.hpc and vm.hpc.memory_bound),
        "vm.memory_bound": bool(vm.memory_bound) or bool(vm.hpc and vm.hpc.memory_bound),
        "vm.containers_latency_critical": bool(vm.containers and vm.containers.latency_critical),
        "vm.prefer_ht": bool(read_bool(prefer)),
        "vm.sriov_or_passthrough_nic": any(n.adapter in ("sriov", "passthrough") for n in vm.nics),
        "vm.hw_supports_vnuma": hw_feature(hw, "vnuma") if hw else None,
        "vm.hw_supports_vmxnet3": hw_feature(hw, "vmxnet3") if hw else None,
        "vm.hw_supports_nvme": hw_feature(hw, "nvme") if hw else None,
        "vm.uses_nvme": any(d.controller == "nvme" for d in vm.disks),
        "vm.hw_supports_pvscsi": hw_feature(hw, "pvscsi") if hw else None,
        "vm.uses_pvscsi": any(d.controller == "pvscsi" for d in vm.disks),
        "vm.vmxnet3_possible": hw_feature(hw, "vmxnet3") if hw else True,
        "vm.pvscsi_possible": hw_feature(hw, "pvscsi") if hw else True,
    }
    facts.update(device_facts(vm))
    if vm.sql:
        s = vm.sql
        sockets, cores = _EDITION_LIMITS.get(s.edition, (0, 0))
        facts.update({
            "sql.present": True,
            "sql.maxdop": s.maxdop,
            "sql.cost_threshold": s.cost_threshold,
            "sql.affinity_mask": s.affinity_mask,
            "sql.server_cal": s.licensing == "server-cal",
            "sql.standard": s.edition == "standard",
            "sql.edition_max_sockets": sockets,
            "sql.edition_max_cores": cores,
            "sql.trace_834": 834 in s.trace_flags,
            "sql.priority_boost": s.priority_boost,
            "sql.lightweight_pooling": s.lightweight_pooling,
            "sql.lock_pages": s.lock_pages_in_memory,
        })
    else:
        facts["sql.present"] = False
    for field in unknown:
        for name in _FIELD_FACTS.get(field, ()):
            facts[name] = None
    return facts


# Which facts become unknown when a template leaves a spec field unresolved.
_FIELD_FACTS: dict[str, tuple[str, ...]] = {
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


def topology_facts(host: Host, vm: VM, version: Version, topo: Topology) -> dict[str, Any]:
    """Facts comparing the VM's predicted topology with the host and with what-if variants."""
    v = vm.vcpus
    out: dict[str, Any] = {
        "topo.layout": runs(topo.vnuma_nodes),
        "topo.clients_layout": runs(topo.numa_clients),
        "topo.summary": topo.summary(),
        "topo.vnuma_nodes": len(topo.vnuma_nodes) if topo.vnuma_exposed else 1,
        "topo.clients": len(topo.numa_clients),
        "topo.physical_nodes": topo.physical_nodes_spanned,
        "topo.smallest_vnode": min(topo.vnuma_nodes),
        "topo.largest_vnode": max(topo.vnuma_nodes),
        "topo.memory_remote_mib": topo.memory_remote_mib,
        "topo.exposed": topo.vnuma_exposed,
        "topo.wide": topo.wide,
        "topo.balanced": topo.balanced,
        "topo.vnuma_balanced": topo.vnuma_balanced,
        "topo.uses_hyperthreads": topo.uses_hyperthreads,
        "topo.numa_managed": topo.numa_managed,
        "topo.uncertain": bool(topo.uncertain),
        "topo.fits_node_cores": v <= host.cores_per_node,
        "topo.fits_node_threads": v <= host.threads_per_node,
        "topo.memory_fits_node": vm.memory <= host.memory_per_node,
        "topo.follows_cps": topo.follows_cores_per_socket,
        "vm.sockets": topo.sockets,
    }
    # preferHT what-if: only meaningful when the VM does not already prefer HT and HT exists.
    # A VM that powered on before keeps its recorded layout: the what-ifs drop that record, as
    # the fixes that change the layout do (NUMA001, NUMA012).
    fresh = _without_autosize(vm)
    alt = None
    if not topo.prefer_ht and host.threads_per_core > 1:
        alt = predict(host, _with_advanced(fresh, "numa.vcpu.preferHT", "TRUE"), version)
    out["topo.prefer_ht_layout"] = runs(alt.vnuma_nodes) if alt else out["topo.layout"]
    out["topo.prefer_ht_balances"] = bool(alt and alt.balanced and not topo.balanced)
    out["topo.prefer_ht_fewer_nodes"] = bool(alt and alt.physical_nodes_spanned < topo.physical_nodes_spanned)
    out["topo.prefer_ht_memory_fits"] = bool(alt and alt.memory_remote_mib == 0)
    out["topo.persisted_layout_differs"] = fresh is not vm and any(
        "numa.autosize.vcpu.maxPerVirtualNode" in r for r in topo.reasons) and (
        predict(host, fresh, version).vnuma_nodes != topo.vnuma_nodes)
    # Cores-per-socket what-if: the same VM with ESXi's default cores per socket.
    if vm.cores_per_socket and vm.cores_per_socket > 1:
        default = predict(host, vm.model_copy(update={"cores_per_socket": None}), version)
        out["topo.cps_layout_default"] = runs(default.vnuma_nodes)
        out["topo.default_cps_vnuma_nodes"] = len(default.vnuma_nodes)
        out["topo.aligned_cores_per_socket"] = socket_per_vnode(default.vnuma_nodes, v)
        out["topo.vnode_below_physical"] = (topo.vnuma_exposed and len(topo.vnuma_nodes) > len(default.vnuma_nodes))
        out["topo.cps_unbalances"] = (default.balanced and not topo.balanced) or (
            len(set(default.numa_clients)) < len(set(topo.numa_clients)))
    else:
        out["topo.cps_layout_default"] = out["topo.layout"]
        out["topo.default_cps_vnuma_nodes"] = out["topo.vnuma_nodes"]
        out["topo.aligned_cores_per_socket"] = socket_per_vnode(topo.vnuma_nodes, v)
        out["topo.vnode_below_physical"] = False
        out["topo.cps_unbalances"] = False
    out["topo.spans_needlessly"] = (
        topo.numa_managed and topo.physical_nodes_spanned > 1 and v <= host.cores_per_node
        and vm.memory <= host.memory_per_node
    )
    best, near = aligned_vcpus(v, host, topo.prefer_ht)
    out["vm.aligned_vcpus"] = best
    out["vm.aligned_vcpus_text"] = ", ".join(str(n) for n in sorted({best, *near}))
    core_mhz = host.core_mhz
    out["vm.full_cpu_reservation_mhz"] = v * core_mhz if core_mhz else None
    cpr = vm.cpu_reservation
    if cpr == "full":
        out["vm.full_cpu_reservation"] = True
        out["vm.cpu_reservation_mhz"] = v * core_mhz if core_mhz else None
    elif core_mhz:
        out["vm.full_cpu_reservation"] = isinstance(cpr, int) and cpr >= v * core_mhz
    else:
        out["vm.full_cpu_reservation"] = None
    gpu = host.gpus[0].model.lower() if host.gpus else None
    if gpu and gpu in _MAX_PROFILE:
        out["vm.gpu_max_profile"], out["vm.gpu_max_profile_gb"] = _MAX_PROFILE[gpu]
    else:
        out["vm.gpu_max_profile"], out["vm.gpu_max_profile_gb"] = None, None
    if vm.sql:
        out["sql.recommended_maxdop"] = microsoft_maxdop(topo.vnuma_nodes if topo.vnuma_exposed else (v,))
    return out


def placement_facts(host: Host, items: list[tuple[VM, Topology]]) -> tuple[dict[str, Any], Any]:
    """Facts about all VMs on the host together, and the Placement they were computed from."""
    from advisor.numa.placement import place

    placement = place(host, [(vm.name, vm.count, t) for vm, t in items])
    total = sum(vm.vcpus * vm.count for vm, _ in items)
    vms = sum(vm.count for vm, _ in items)
    kinds: dict[str, int] = {}
    for vm, _ in items:
        kinds[vm.workload] = kinds.get(vm.workload, 0) + vm.count
    load = placement.load
    facts = {
        "place.vms": vms,
        "place.total_vcpus": total,
        "place.vcpu_per_core": total / host.cores,
        "place.vcpu_per_thread": total / host.logical_cpus,
        "place.oversubscribed_nodes": len(placement.oversubscribed),
        "place.ht_reliant_nodes": len(placement.ht_reliant),
        "place.max_node_load": max(load) if load else 0,
        "place.min_node_load": min(load) if load else 0,
        "place.max_clients_per_node": max(placement.clients_per_node) if load else 0,
        "place.vms_per_node_x100": vms * 100 // host.nodes,
        "place.vms_of_workload": max(kinds.values()) if kinds else 0,
        "place.balanced": placement.balanced,
        "place.node_load_text": ", ".join(str(n) for n in load),
        "place.suggestion": packing_suggestion(host, items),
    }
    return facts, placement


def packing_suggestion(host: Host, items: list[tuple[VM, Topology]]) -> str:
    """VMs sized so every node carries the same load, for about the same total vCPUs.

    The 001 paper's 9 × 8 vCPU case on 10-core nodes: 10-vCPU VMs split a node evenly, and
    8 of them (two per node) give every node the same 20 vCPUs - "8 × 10" in the paper.
    """
    total = sum(vm.vcpus * vm.count for vm, _ in items)
    largest = max((vm.vcpus for vm, _ in items), default=1)
    per = host.cores_per_node
    sizes = {d for d in range(1, per + 1) if per % d == 0} | {per * k for k in range(1, host.nodes + 1)}
    if host.threads_per_core > 1:
        sizes.add(host.threads_per_node)
    size = min((d for d in sizes if d >= largest), default=max(sizes))
    nodes_per_vm = max(1, math.ceil(size / host.threads_per_node))
    step = max(1, host.nodes // nodes_per_vm)  # VMs per "round" that covers every node once
    count = max(step, math.ceil(total / size / step) * step)
    while count > step and count * size > host.logical_cpus:
        count -= step
    return f"{count} × {size} vCPU"


def _shape_key(vm: VM) -> tuple[Any, ...]:
    """What predict() reads from a VM apart from memory: equal keys give equal layouts."""
    # numa.consolidate = FALSE lays the VM out by its memory too (advisor.numa.layout).
    return (vm.vcpus, vm.cores_per_socket, vm.hardware_version, vm.cpu_hot_add, vm.cpu_affinity,
            vm.cpu_reservation, vm.sql is not None, tuple(sorted((k, str(v)) for k, v in vm.advanced.items())),
            vm.memory if vm.setting("numa.consolidate") is not None else None)


def _memory_facts(host: Host, vm: VM, topo: Topology) -> dict[str, Any]:
    return {
        "topo.memory_remote_mib": topo.memory_remote_mib,
        "topo.memory_fits_node": vm.memory <= host.memory_per_node,
        "topo.spans_needlessly": (topo.numa_managed and topo.physical_nodes_spanned > 1
                                  and vm.vcpus <= host.cores_per_node and vm.memory <= host.memory_per_node),
    }


_CONTEXT = ("host and version facts",)


def facts_for(host: Host | None, vm: VM, version: Version | None,
              unknown: frozenset[str] = frozenset(),
              cache: dict[tuple[Any, ...], Any] | None = None,
              ) -> tuple[dict[str, Any], Topology | None]:
    """The VM's facts (and its topology when a host is known).

    `cache` (one per host and version) shares the topology work between VMs of the same vCPU
    shape; estates are mostly a few shapes repeated with varied memory, and predict() plus its
    what-if variants dominate the cost. Memory-dependent facts are redone per VM. It also keeps
    the host and version facts, which every VM of the call shares.
    """
    facts = vm_facts(vm, unknown)
    topo = None
    # Host and version facts are the same for every VM of the call's host: built once.
    context = cache.get(_CONTEXT) if cache is not None else None
    if context is None:
        context = {}
        if version is not None:
            context.update(version_facts(version))
            if host is not None:
                context.update(host_facts(host))
        if cache is not None:
            cache[_CONTEXT] = context
    facts.update(context)
    if version is not None:
        limit, why = facts["version.max_vcpus"], f"vSphere {version}"
        hw_limit = facts.get("vm.hw_max_vcpus")
        if hw_limit is not None and hw_limit < limit:
            limit, why = hw_limit, f"hardware version {vm.hardware_version}"
        facts["vm.max_vcpus"], facts["vm.max_vcpus_why"] = limit, why
    if host is not None and version is not None and not (unknown & _TOPOLOGY_FIELDS):
        key = _shape_key(vm) if cache is not None else ()
        hit = cache.get(key) if cache is not None else None
        if hit is None:
            topo = predict(host, vm, version)
            hit = (topo, topology_facts(host, vm, version, topo), vm.memory)
            if cache is not None:
                cache[key] = hit
        else:
            topo = hit[0] if hit[2] == vm.memory else with_memory(hit[0], host, vm.memory)
        facts.update(hit[1])
        topo = topo or hit[0]
        facts.update(_memory_facts(host, vm, topo))
    return facts, topo


def known(names: frozenset[str], facts: dict[str, Any]) -> list[str]:
    """The names among `names` that are missing or None in facts (why a rule cannot run)."""
    return [n for n in sorted(names) if facts.get(n) is None]


FactFn = Callable[..., dict[str, Any]]
