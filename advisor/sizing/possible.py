"""Requests no VM shape can meet, refused before any shape is tried, each saying which limit it
crosses: vSphere's per-VM maxima, the host's threads, memory and GPUs, the workload's share of
the host after headroom (`advisor size` exits 2).
"""

from __future__ import annotations

from typing import TYPE_CHECKING

from advisor.errors import InputError
from advisor.model.units import format_mib
from advisor.sizing.shapes import MIN_MEMORY_MIB

if TYPE_CHECKING:
    from advisor.model.spec import Host
    from advisor.model.versions import Version
    from advisor.sizing.candidates import Geometry, Request
    from advisor.sizing.shapes import Hypervisor, WorkloadSizing


def check_possible(req: Request, host: Host, geo: Geometry, wl: WorkloadSizing, hyper: Hypervisor, version: Version,
                   hw: int, max_vcpus: int, max_memory: int) -> None:
    """Refuse requests no shape can meet, saying which limit they cross (exit 2)."""
    name = host.name
    if req.vcpus and req.vcpus > max_vcpus:
        raise InputError(f"{req.vcpus} vCPUs: vSphere {version} allows at most {max_vcpus} per VM "
                         f"(hardware version {hw})", field="--vcpus")
    if req.vcpus and req.vcpus > host.logical_cpus:
        raise InputError(f"{req.vcpus} vCPUs: {name} has {host.logical_cpus} logical CPUs "
                         f"({host.sockets} × {host.cores_per_socket} cores × {host.threads_per_core} threads); "
                         "a VM cannot have more vCPUs than that", field="--vcpus")
    if geo.host_cap < 1:
        raise InputError(f"no capacity left on {name} for {req.workload} after {req.headroom_pct}% headroom",
                         field="--headroom")
    if req.vcpus and req.vcpus > geo.host_cap:
        raise InputError(f"{req.vcpus} vCPUs: {req.workload} VMs may use at most {geo.host_cap} vCPUs on {name} "
                         f"({cap_text(wl, req)})", field="--vcpus")
    if req.total_vcpus and req.total_vcpus > geo.host_cap:
        raise InputError(f"{req.total_vcpus} vCPUs in total: {name} holds at most {geo.host_cap} vCPUs of "
                         f"{req.workload} ({cap_text(wl, req)})", field="--total-vcpus")
    if req.vms and req.vms > geo.host_cap:
        raise InputError(f"{req.vms} VMs: {name} holds at most {geo.host_cap} vCPUs of {req.workload}, "
                         "fewer than one per VM", field="--vms")
    if req.memory_mib:
        if req.memory_mib > max_memory:
            raise InputError(f"{format_mib(req.memory_mib)} per VM: vSphere {version} allows at most "
                             f"{format_mib(max_memory)}", field="--memory")
        need = req.memory_mib + hyper.overhead(1, req.memory_mib)
        if need > geo.usable_mib:
            raise InputError(
                f"{format_mib(req.memory_mib)} per VM: {name} has {format_mib(geo.usable_mib)} for VMs "
                f"({format_mib(host.memory)} less {format_mib(hyper.reserve)} kept for ESXi"
                + (f" and {req.headroom_pct}% headroom" if req.headroom_pct else "")
                + ")",
                field="--memory",
            )
        if req.vms and req.vms * need > geo.usable_mib:
            raise InputError(f"{req.vms} VMs × {format_mib(req.memory_mib)} need more than the "
                             f"{format_mib(geo.usable_mib)} {name} has for VMs", field="--memory")
    if req.vms and req.vms * (MIN_MEMORY_MIB + hyper.overhead(1, MIN_MEMORY_MIB)) > geo.usable_mib:
        raise InputError(f"{req.vms} VMs: {name}'s {format_mib(geo.usable_mib)} for VMs does not give each "
                         f"{format_mib(MIN_MEMORY_MIB)}", field="--vms")
    if wl.gpu_per_vm and not gpus(host):
        raise InputError(f"{req.workload} sizing gives each VM a GPU, and {name} lists none "
                         "(add `gpus:` to the host profile)", field="--workload")
    if wl.gpu_per_vm and req.vms and req.vms * wl.gpu_per_vm > gpus(host):
        raise InputError(f"{req.vms} VMs need {req.vms * wl.gpu_per_vm} GPUs; {name} has {gpus(host)}",
                         field="--vms")


def cap_text(wl: WorkloadSizing, req: Request) -> str:
    """How the workload's vCPUs per node are counted, as a request refused for them says it."""
    per = {"threads": "one per hardware thread", "cores": "one per physical core"}.get(
        str(wl.vcpu_per_core), f"{wl.vcpu_per_core} per core")
    extra = f", {wl.spare_cores} core(s) per node left to ESXi" if wl.spare_cores else ""
    head = f", {req.headroom_pct}% headroom" if req.headroom_pct else ""
    return f"{per}{extra}{head}"


def gpus(host: Host) -> int:
    return sum(g.count for g in host.gpus)
