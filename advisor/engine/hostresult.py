"""What a run reports about a host and how a VM's topology is pictured: the host's capacity and
where every VM's NUMA clients are homed, and the layouts the HTML report draws."""

from __future__ import annotations

from typing import Any

from advisor.model.spec import VM, Host
from advisor.model.versions import Version
from advisor.numa.topology import Topology
from advisor.report.findings import HostResult, Layout


def host_result(host: Host, version: Version, place_facts: dict[str, Any], placement: Any, file: str,
                recommended: dict[str, str] | None = None, skipped: tuple[str, ...] = ()) -> HostResult:
    """A host's capacity and where every VM's NUMA clients are homed (also `advisor topology`'s),
    and the host rules the known facts could not settle (`skipped`, "RULE needs <facts>")."""
    return HostResult(
        name=host.name,
        file=file,
        summary=capacity_summary(host, version, place_facts),
        capacity={"sockets": host.sockets, "cores_per_socket": host.cores_per_socket,
                  "threads_per_core": host.threads_per_core, "numa_nodes": host.nodes,
                  "cores_per_node": host.cores_per_node, "memory_per_node_mib": host.memory_per_node,
                  "vsphere": str(version), "vcpus": place_facts.get("place.total_vcpus", 0),
                  "vcpu_per_core": round(place_facts.get("place.vcpu_per_core", 0.0), 3)},
        recommended_host=recommended or {},
        node_load=list(placement.load) if placement else [],
        residents=[list(node) for node in placement.residents] if placement else [],
        skipped=skipped,
    )


def vm_layouts(topo: Topology, host: Host | None, vm: VM, version: Version | None, alternatives: bool = True
               ) -> tuple[dict[str, Any], tuple[Layout, ...]]:
    """The topology as a dict, and the layouts the HTML report pictures: the VM's own, then the
    numa.vcpu.preferHT one when that balances it (computed only for unbalanced VMs)."""
    from advisor.numa.variants import PREFER_HT_TITLE, better_prefer_ht

    own = topo.as_dict()
    pinned: tuple[tuple[int, int], ...] = ()
    if not topo.numa_managed:  # sched.cpu.affinity: no client is homed, the pictures draw its CPUs
        from advisor.numa.affinity import parse

        pinned = tuple(parse((vm.cpu_affinity or "").strip().lower()) or ())
    layouts = [Layout("as specified", own, topo.client_nodes, pinned)]
    if alternatives and host is not None and version is not None and not topo.balanced:
        alt = better_prefer_ht(host, vm, version, topo)
        if alt is not None:
            layouts.append(Layout(PREFER_HT_TITLE, alt.as_dict(), alt.client_nodes))
    return own, tuple(layouts)


def capacity_summary(host: Host, version: Version, place_facts: dict[str, Any]) -> str:
    from advisor.model.units import format_mib

    ht = f" × {host.threads_per_core} threads" if host.threads_per_core > 1 else " (no HT)"
    text = (f"{host.name}: {host.sockets} × {host.cores_per_socket} cores{ht}, {host.nodes} NUMA nodes of "
            f"{host.cores_per_node} cores / {format_mib(host.memory_per_node)}, vSphere {version}")
    if place_facts:
        text += (f"; {place_facts['place.total_vcpus']} vCPUs on {host.cores} cores "
                 f"({place_facts['place.vcpu_per_core']:.2f}:1), node load [{place_facts['place.node_load_text']}]")
    return text

