"""The input format: hosts, VMs and the spec file that holds them, as Pydantic v2 models.

These models are the single definition of what advisor accepts; `advisor schema` prints the
JSON Schema generated from them for editor completion. Sizes are normalised to MiB, versions to
Version; raw `.vmx` keys under `advanced:` are reconciled with the structured fields they
overlap (see advisor.model.vmxkeys) so that a spec and a linted template mean the same thing.
"""

from __future__ import annotations

import datetime as _dt
import math
from typing import Annotated, Any, ClassVar, Literal

from pydantic import (
    Discriminator,
    Field,
    PrivateAttr,
    Tag,
    ValidationInfo,
    field_validator,
    model_validator,
)

from advisor.model.base import Disk as Disk
from advisor.model.base import (
    FieldValueError,
    LatencySensitivity,
    PowerPolicy,
    ReservationMiB,
    SizeMiB,
    Strict,
    VersionField,
    Workload,
    empty_dict,
    empty_list,
)
from advisor.model.base import Nic as Nic
from advisor.model.reconcile import reconcile_advanced
from advisor.model.vmxkeys import ADVANCED_CACHE, ADVANCED_INDEX, SCALAR_KEYS, advanced_value

# --- host -----------------------------------------------------------------------------------

# The largest host advisor models (see Host._nodes_divide_cores for the source).
MAX_HOST_NODES = 128
MAX_HOST_LOGICAL_CPUS = 32768


class Host(Strict):
    """An ESXi host: its CPU packages, NUMA layout, memory and power settings."""

    also_called: ClassVar[dict[str, str]] = {
        "cores": "cores_per_socket", "cores_per_cpu": "cores_per_socket", "cpu_cores": "cores_per_socket",
        "cpus": "sockets", "cpu_sockets": "sockets", "packages": "sockets", "socket": "sockets",
        "threads": "threads_per_core", "hyperthreading": "threads_per_core", "ht": "threads_per_core",
        "smt": "threads_per_core", "numa_nodes": "numa_nodes_per_socket", "nodes": "numa_nodes_per_socket",
        "nps": "numa_nodes_per_socket", "snc": "numa_nodes_per_socket", "ram": "memory", "mem": "memory",
        "memory_gb": "memory", "version": "esxi", "esx": "esxi", "esxi_version": "esxi", "vsphere": "esxi",
        "mhz": "core_mhz", "clock": "core_mhz", "frequency": "core_mhz", "cpu_model": "cpu", "model": "cpu",
        "power": "power_policy", "cpu_policy": "power_policy", "gpu": "gpus", "edition": "license",
    }

    name: str = Field(min_length=1, max_length=120, description="The host's name in reports.")
    description: str | None = Field(None, description="Free text about the host.")
    cpu: str | None = Field(None, description="CPU model, e.g. 'Intel Xeon E7-4870'.")
    sockets: int = Field(ge=1, le=32, description="CPU packages (sockets).")
    cores_per_socket: int = Field(ge=1, le=512, description="Physical cores of each socket (not threads).")
    threads_per_core: int = Field(1, ge=1, le=4, description="2 with hyper-threading / SMT on.")
    numa_nodes_per_socket: int = Field(
        1, ge=1, le=16, description="NUMA nodes each socket presents: AMD NPS2/NPS4, Intel SNC2/SNC4 or COD."
    )
    numa_mode: str | None = Field(None, description="Free text: NPS4, SNC2, COD ...")
    memory: SizeMiB
    core_mhz: int | None = Field(None, ge=100, le=10000, description="Nominal core clock (MHz).")
    esxi: VersionField = Field(description="ESXi version the host runs.")
    power_policy: PowerPolicy | None = Field(
        None, description="Power.CpuPolicy; unset: not stated (ESXi's default, Balanced since 5.0, named as assumed)."
    )
    max_freq_pct: int | None = Field(None, ge=1, le=100, description="Power.MaxFreqPct (Custom policy).")
    cstate_residency_coef: int | None = Field(None, ge=0, description="Power.CStateResidencyCoef (Custom policy).")
    bios_power: Literal["os-controlled", "max-performance", "balanced", "power-saving", "custom"] | None = Field(
        None, description="BIOS power management mode."
    )
    turbo: bool | None = Field(None, description="Whether Turbo Boost / Core Performance Boost is on.")
    deep_cstates: bool | None = Field(None, description="Whether deep C-states (C3/C6) are enabled in the BIOS.")
    prefer_ht: bool = Field(False, description="Host advanced setting Numa.PreferHT = 1.")
    follow_cores_per_socket: bool = Field(False, description="Host advanced setting Numa.FollowCoresPerSocket = 1.")
    memory_tiering: bool = Field(
        False, description="NVMe memory tiering is on (vSphere 9; `memory` is then the DRAM). Off unless stated: the "
        "feature is opt-in (an NVMe device claimed as a tier, then a reboot).")
    gpus: list[HostGpu] = Field(default_factory=empty_list, description="GPUs installed in the host.")
    license: Literal["standard", "enterprise", "enterprise-plus"] | None = Field(
        None, description="vSphere licence edition; sets the Fault Tolerance vCPU limit (unset: Enterprise Plus)."
    )
    source: str | None = Field(None, description="Where the profile's figures come from.")

    @model_validator(mode="after")
    def _nodes_divide_cores(self) -> Host:
        if self.cores_per_socket % self.numa_nodes_per_socket:
            raise FieldValueError(
                f"numa_nodes_per_socket ({self.numa_nodes_per_socket}) must divide "
                f"cores_per_socket ({self.cores_per_socket})",
                "numa_nodes_per_socket",
            )
        # What an ESXi host can be: the vSphere Web Services API numbers a host's NUMA nodes
        # with an xsd:byte (HostNumaNode.typeId, 0-127) and its logical CPUs with an xsd:short
        # (HostNumaNode.cpuID, HostCpuIdInfo; 0-32,767). A profile beyond either describes no
        # host ESXi can report, and would only make `advisor size` simulate it for minutes.
        if self.sockets * self.numa_nodes_per_socket > MAX_HOST_NODES:
            raise FieldValueError(
                f"{self.sockets} sockets × {self.numa_nodes_per_socket} NUMA nodes per socket is "
                f"{self.sockets * self.numa_nodes_per_socket} nodes; an ESXi host has at most {MAX_HOST_NODES} "
                "(the vSphere API numbers them 0-127)", "numa_nodes_per_socket")
        logical = self.sockets * self.cores_per_socket * self.threads_per_core
        if logical > MAX_HOST_LOGICAL_CPUS:
            raise FieldValueError(
                f"{self.sockets} sockets × {self.cores_per_socket} cores × {self.threads_per_core} threads is "
                f"{logical:,} logical CPUs; an ESXi host has at most {MAX_HOST_LOGICAL_CPUS:,} (the vSphere API "
                "numbers them 0-32,767)", "cores_per_socket")
        return self

    @property
    def nodes(self) -> int:
        return self.sockets * self.numa_nodes_per_socket

    @property
    def cores_per_node(self) -> int:
        return self.cores_per_socket // self.numa_nodes_per_socket

    @property
    def threads_per_node(self) -> int:
        return self.cores_per_node * self.threads_per_core

    @property
    def cores(self) -> int:
        return self.sockets * self.cores_per_socket

    @property
    def logical_cpus(self) -> int:
        return self.cores * self.threads_per_core

    @property
    def memory_per_node(self) -> int:
        return self.memory // self.nodes


class HostGpu(Strict):
    model: str = Field(description="GPU model, e.g. 'M60' or 'A100'.")
    count: int = Field(1, ge=1, le=64, description="How many of this GPU the host has.")


# --- VM parts -------------------------------------------------------------------------------


class Gpu(Strict):
    profile: str | None = Field(None, description="vGPU profile, e.g. 'grid_m60-8q'.")
    passthrough: int = Field(0, ge=0, le=16, description="GPUs given to the VM with DirectPath I/O.")
    purpose: Literal["ml-training", "ml-inference", "graphics", "mixed"] | None = Field(
        None, description="What the GPU is used for.")


class Sql(Strict):
    """SQL Server instance settings; unset fields are SQL Server's own defaults."""

    version: str | None = Field(None, description="e.g. '2019'.")
    edition: Literal["enterprise", "standard", "developer", "express", "web"] = Field(
        "enterprise", description="SQL Server edition (its edition caps sockets, cores and memory).")
    licensing: Literal["per-core", "server-cal"] = Field("per-core", description="SQL Server licensing model.")
    maxdop: int = Field(0, ge=0, le=32767, description="max degree of parallelism (0 = all).")
    cost_threshold: int = Field(5, ge=0, le=32767, description="cost threshold for parallelism.")
    trace_flags: list[int] = Field(default_factory=empty_list, description="Startup trace flags (-T).")
    lock_pages_in_memory: bool = Field(False, description="The service account holds Lock Pages in Memory.")
    affinity_mask: int = Field(0, ge=0, description="sp_configure 'affinity mask' (0 = automatic).")
    priority_boost: bool = Field(False, description="sp_configure 'priority boost'.")
    lightweight_pooling: bool = Field(False, description="sp_configure 'lightweight pooling' (fiber mode).")
    max_server_memory: SizeMiB | None = None


class Guest(Strict):
    power_plan: Literal["high-performance", "balanced", "power-saver"] | None = Field(
        None, description="The guest OS's power plan.")
    large_pages: bool | None = Field(None, description="Large pages used by the application.")
    tools: bool = Field(True, description="VMware Tools (paravirtual drivers) installed.")


class Java(Strict):
    jvms: int = Field(1, ge=1, le=1000, description="JVMs running in this VM.")
    heap: SizeMiB | None = None
    large_pages: bool = Field(False, description="The JVMs use large pages (-XX:+UseLargePages).")


class Hpc(Strict):
    memory_bound: bool = Field(False, description="Bandwidth/latency bound (Stream-like), not compute bound.")


class Containers(Strict):
    networking: Literal["bridge", "host", "macvlan", "sriov"] = Field(
        "bridge", description="How the containers reach the network.")
    latency_critical: bool = Field(False, description="The containers' traffic is latency-critical.")


class Suppression(Strict):
    also_called: ClassVar[dict[str, str]] = {"id": "rule", "rules": "rule", "why": "reason", "comment": "reason",
                                             "expires": "until", "expiry": "until"}

    rule: str = Field(min_length=1, description="Rule id (e.g. NUMA001) or prefix (NUMA).")
    reason: str = Field(min_length=3, description="Why the finding does not apply; required.")
    until: _dt.date | None = Field(None, description="Expiry date; afterwards the finding returns.")


# --- VM -------------------------------------------------------------------------------------


class VM(Strict):
    """A proposed VM (or `count` identical ones)."""

    also_called: ClassVar[dict[str, str]] = {
        "cpus": "vcpus", "cpu": "vcpus", "vcpu": "vcpus", "num_cpus": "vcpus", "ram": "memory", "mem": "memory",
        "memory_gb": "memory", "memory_mb": "memory", "hw": "hardware_version", "hw_version": "hardware_version",
        "hardware": "hardware_version", "vm_version": "hardware_version", "compatibility": "hardware_version",
        "os": "guest_os", "guest_id": "guest_os", "guestid": "guest_os", "operating_system": "guest_os",
        "disk": "disks", "storage": "disks", "volumes": "disks", "nic": "nics", "network": "nics",
        "networks": "nics", "network_adapters": "nics", "adapters": "nics", "hot_add": "cpu_hot_add",
        "cpu_hotadd": "cpu_hot_add", "vcpu_hotadd": "cpu_hot_add", "mem_hotadd": "memory_hot_add",
        "memory_hotadd": "memory_hot_add", "ft": "fault_tolerance", "vmx": "advanced", "settings": "advanced",
        "extra_config": "advanced", "extraconfig": "advanced", "suppress": "ignore", "suppressions": "ignore",
        "exemptions": "ignore", "latency": "latency_sensitivity", "affinity": "cpu_affinity",
        "instances": "count", "replicas": "count", "quantity": "count",
        # The .vmx keys a spec states as fields (advisor.model.vmxkeys.SCALAR_KEYS), written at the top.
        **{key: field for key, (field, _) in SCALAR_KEYS.items()},
    }

    name: str = Field(min_length=1, max_length=200, description="The VM's name (unique in the spec).")
    count: int = Field(1, ge=1, le=100_000, description="Number of identical VMs on the host.")
    vcpus: int = Field(ge=1, le=4096, description="Virtual CPUs (numvcpus).")
    cores_per_socket: int | None = Field(None, ge=1, le=4096, description="cpuid.coresPerSocket.")
    memory: SizeMiB
    hardware_version: int | None = Field(None, ge=3, le=30, description="virtualHW.version.")
    guest_os: str | None = Field(None, description="guestOS id, e.g. windows2019srv-64.")
    workload: Workload = Field("generic", description="What the VM runs; selects the workload's rules.")
    production: bool = Field(True, description="A production VM (reservations and power matter).")
    latency_sensitivity: LatencySensitivity = Field(
        "normal", description="sched.cpu.latencySensitivity ('high-ht': High with hyper-threading, vSphere 8).")
    cpu_reservation: int | Literal["full"] | None = Field(None, description="MHz, or 'full'.")
    memory_reservation: ReservationMiB | Literal["full"] | None = None
    active_memory: SizeMiB | None = Field(
        None, description="Active memory measured in the VM (vCenter 'Active' / RVTools), for memory tiering.")
    cpu_hot_add: bool = Field(False, description="vcpu.hotadd (CPU hot add enabled).")
    memory_hot_add: bool = Field(False, description="mem.hotadd (memory hot add enabled).")
    cpu_affinity: str | None = Field(None, description="sched.cpu.affinity: 'all' or a list of pCPUs.")
    disks: list[Disk] = Field(default_factory=empty_list, description="Virtual disks and the controllers they hang on.")
    nics: list[Nic] = Field(default_factory=empty_list, description="Network adapters.")
    gpu: Gpu | None = Field(None, description="A vGPU profile or passthrough GPUs.")
    fault_tolerance: bool = Field(False, description="vSphere Fault Tolerance protects the VM.")
    advanced: dict[str, str | int | bool | float] = Field(
        default_factory=empty_dict, description="Raw .vmx keys; overlapping structured fields must agree."
    )
    sql: Sql | None = Field(None, description="SQL Server instance settings (workload: sql-server).")
    # Every Guest field has a default; mypy reads pydantic's constructor without its plugin.
    guest: Guest = Field(default_factory=Guest, description="Guest OS settings.")  # type: ignore[arg-type]
    java: Java | None = Field(None, description="JVM settings (workload: java).")
    hpc: Hpc | None = Field(None, description="HPC settings (workload: hpc).")
    memory_bound: bool = Field(
        False, description="The workload is bound by memory bandwidth, latency or cache rather than CPU (measured): "
        "advisor then suggests numa.vcpu.preferHT where that keeps the VM on one node.")
    containers: Containers | None = Field(None, description="Container host settings (workload: container-host).")
    ignore: list[Suppression] = Field(default_factory=empty_list,
                                      description="Findings to suppress, each with a reason.")

    # Fields a template left unknown (unresolved variables): rules needing them are skipped.
    _unknown: frozenset[str] = PrivateAttr(default=frozenset())
    # A template's NIC slot numbers (ethernetN) in the order of `nics`, when they are not 0..n-1.
    _nic_slots: tuple[int, ...] | None = PrivateAttr(default=None)

    @field_validator("cpu_reservation", mode="before")
    @classmethod
    def _mhz(cls, value: Any) -> Any:
        if isinstance(value, str) and value.lower() != "full":
            text = value.strip().lower()
            for unit, factor in (("ghz", 1000), ("mhz", 1)):
                if text.endswith(unit):
                    mhz = float(text[: -len(unit)]) * factor
                    if not math.isfinite(mhz):
                        raise ValueError(f"'{value}' is not a finite number of MHz")
                    return round(mhz)
            raise ValueError("a CPU reservation is MHz (e.g. 24000, '24GHz') or 'full'")
        if isinstance(value, int) and not isinstance(value, bool) and value < 0:
            raise ValueError("a reservation cannot be negative")
        return value

    @model_validator(mode="after")
    def _reconcile(self, info: ValidationInfo) -> VM:
        context = info.context or {}
        if context.get(ADVANCED_INDEX) is not None:  # a template's keys, already lower-cased by its reader
            self.__pydantic_private__[ADVANCED_CACHE] = context[ADVANCED_INDEX]  # type: ignore[index]
        reconcile_advanced(self)
        strict_shape = not context.get("lenient_shape", False)
        if strict_shape and self.cores_per_socket and self.vcpus % self.cores_per_socket:
            raise FieldValueError(
                f"cores_per_socket ({self.cores_per_socket}) must divide vcpus ({self.vcpus}): "
                "a VM's sockets all have the same number of cores",
                "cores_per_socket",
            )
        return self

    @property
    def unknown(self) -> frozenset[str]:
        return self._unknown

    def setting(self, key: str) -> str | None:
        """A raw .vmx value from `advanced:` (case-insensitive key), as a string."""
        return advanced_value(self, key)


# A host named by profile or path, or written inline.
HostRef = Annotated[
    Annotated[str, Tag("Profile")] | Annotated[Host, Tag("Inline")],
    Discriminator(lambda v: "Profile" if isinstance(v, str) else "Inline"),
]


class ClusterMember(Strict):
    """Hosts of one kind in the cluster: a host (profile, file or inline) and how many of it."""

    host: HostRef = Field(description="A profile name from hosts/, a path to a host file, or a host inline.")
    count: int = Field(1, ge=1, le=10_000, description="How many hosts of this kind the cluster has.")


def _cluster_entry(value: Any) -> str:
    if isinstance(value, str):
        return "Profile"
    # A host has no `host` or `count` key: either one makes the entry a {host, count} member.
    if isinstance(value, ClusterMember) or (isinstance(value, dict) and ("host" in value or "count" in value)):
        return "Member"
    return "Inline"


class Spec(Strict):
    """A spec file: one host and the VMs proposed for it."""

    also_called: ClassVar[dict[str, str]] = {
        "hosts": "host", "esxi_host": "host", "vm": "vms", "virtual_machines": "vms", "machines": "vms",
        "version": "vsphere", "esxi": "vsphere", "vsphere_version": "vsphere", "cluster_hosts": "cluster",
    }

    vsphere: VersionField | None = Field(None, description="vSphere version; default: the host's ESXi.")
    host: HostRef = Field(description="A profile name from hosts/, a path to a host file, or a host inline.")
    vms: list[VM] = Field(min_length=1, description="The VMs proposed for the host (at least one).")
    cluster: list[
        Annotated[
            Annotated[str, Tag("Profile")] | Annotated[Host, Tag("Inline")]
            | Annotated[ClusterMember, Tag("Member")],
            Discriminator(_cluster_entry),
        ]
    ] = Field(default_factory=empty_list, description=(
        "Other hosts of the cluster the VMs may run on (vMotion, DRS, HA): profile names, host files, "
        "inline hosts, or {host: ..., count: N} for N hosts of one kind. The VMs first power on on "
        "`host`, which fixes their vNUMA layout; each kind of host is checked once."))

    @model_validator(mode="after")
    def _unique_names(self) -> Spec:
        seen: set[str] = set()
        for index, vm in enumerate(self.vms):
            if vm.name in seen:
                raise FieldValueError(
                    f"two VMs are named '{vm.name}'; names identify findings, make them unique",
                    "vms", index, "name",
                )
            seen.add(vm.name)
        return self


Host.model_rebuild()
