"""Facts about all VMs of a host together: how their NUMA clients pack onto its nodes."""

from __future__ import annotations

import math
from typing import Any

from advisor.model.spec import VM, Host
from advisor.numa.topology import Topology

# Workloads a host rule counts the VMs of (place.vms_of_<workload>): SCALE001's Hadoop workers.
COUNTED_WORKLOADS = ("hadoop",)


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
        # Per workload, so that a rule about one workload counts its VMs, not the largest group's.
        **{f"place.vms_of_{kind.replace('-', '_')}": kinds.get(kind, 0) for kind in COUNTED_WORKLOADS},
        "place.balanced": placement.balanced,
        "place.node_load_text": ", ".join(str(n) for n in load),
        "place.suggestion": packing_suggestion(host, items),
        **_resized_host(host, items),
    }
    return facts, placement


def _resized_host(host: Host, items: list[tuple[VM, Topology]]) -> dict[str, Any]:
    """The host's VMs as one group resized by a host finding's fix (its `resize:`): the aligned
    packing, as many of the largest VM as fit the cores, or a scale-out to 2-4 VMs of at most a
    node each (seed 002's Hadoop runs)."""
    largest = max((vm.vcpus for vm, _ in items), default=1)
    total = sum(vm.vcpus * vm.count for vm, _ in items)
    memory = sum(vm.memory * vm.count for vm, _ in items)
    count, size = packing(host, items)
    scale = min(4, max(2, math.ceil(total / host.cores_per_node)))
    fit = host.cores // largest  # VMs of the largest size within the cores: 0 when one alone is wider
    return {
        "place.suggested_count": count,
        "place.suggested_vcpus": size,
        "place.count_within_cores": max(1, fit),
        # A resize that fits the cores: as many VMs of the largest size as fit, or, when one VM
        # alone has more vCPUs than the host has cores, that VM cut to the cores (a count of one
        # "VMs of this size" would change nothing). Exactly one of the two is known.
        "place.fit_count": fit or None,
        "place.fit_vcpus": None if fit else host.cores,
        "place.fit_text": (f"{fit} VM{'s' if fit > 1 else ''} of {largest} vCPUs fit{'' if fit > 1 else 's'} "
                           f"the {host.cores} cores" if fit else
                           f"a {largest}-vCPU VM has more vCPUs than the {host.cores} cores: "
                           f"at most {host.cores} vCPUs fit them"),
        "place.scaleout_vms": scale,
        "place.scaleout_vcpus": min(host.cores_per_node, max(1, total // scale)),
        "place.scaleout_memory_mib": memory // scale // 4 * 4,
    }


def packing_suggestion(host: Host, items: list[tuple[VM, Topology]]) -> str:
    count, size = packing(host, items)
    return f"{count} × {size} vCPU"


def packing(host: Host, items: list[tuple[VM, Topology]]) -> tuple[int, int]:
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
    return count, size

