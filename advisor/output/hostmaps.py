"""What a NUMA map shows, before it is drawn (advisor.output.numamap draws it): for one host,
which NUMA clients of which VMs are homed on each physical node, with their vCPUs and memory,
from the host and VM results of a run (the placement advisor predicted).
"""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import TYPE_CHECKING

if TYPE_CHECKING:
    from collections.abc import Iterator

    from advisor.report.findings import HostResult, Layout, VmResult


@dataclass(slots=True)
class Resident:
    """One NUMA client homed on a node: the VM it belongs to, its vCPUs and memory."""

    vm: str  # the VM's name (colour key)
    label: str  # as shown: the VM, or `name×4` for four instances of a counted VM's client
    vcpus: int
    memory_mib: int
    vnuma: tuple[int, ...] = ()  # the guest's vNUMA node of each of these vCPUs, when drawn
    instance: int | None = None  # which instance of a counted VM, on a VM's own map
    other: bool = False  # another VM of the host, drawn grey on a VM's own map


@dataclass(slots=True)
class HostMap:
    """Everything the picture shows about one host layout."""

    host: str
    sockets: int
    nodes: int
    cores_per_node: int
    threads_per_core: int
    memory_per_node_mib: int
    residents: list[list[Resident]] = field(default_factory=list)  # per physical node
    pinned: dict[tuple[int, int], list[str]] = field(default_factory=dict)  # (node, thread slot) -> VMs

    @property
    def nodes_per_socket(self) -> int:
        return max(1, self.nodes // max(1, self.sockets))


def host_caption(host: HostResult) -> str:
    """A host map's title: the spec file it comes from, so maps of several files tell apart."""
    return f"{host.file}: host {host.name}, every VM as placed"


def host_map(host: HostResult, vms: list[VmResult]) -> HostMap:
    """Every VM of the host where the placement homed its NUMA clients, and every pinned VM on
    the logical CPUs it is pinned to."""
    by_name = {v.name: v for v in vms}
    # The placement keeps identical instances of a counted VM together: (name, client vCPUs,
    # instances), so a node shows `name×N` with N times the client's vCPUs and memory.
    residents = [[Resident(name, f"{name}×{count}" if count > 1 else name, size * count,
                           _share(by_name.get(name), size) * count)
                  for name, size, count in node] for node in host.residents]
    return _pin(_map(host, residents), vms)


def layout_map(host: HostResult, vm: VmResult, layout: Layout, vms: list[VmResult] | None = None) -> HostMap:
    """One VM on the host in one of its layouts. The layout as specified is drawn where the host's
    placement homes it, each instance of a counted VM apart, with the host's other VMs in grey so
    every cell matches the host map; another layout (a what-if) is drawn alone on the host."""
    placed = layout.title == "as specified" and any(name == vm.name for node in host.residents for name, _, _ in node)
    if not placed:
        return _pin(_alone(host, vm, layout), [vm])
    by_name = {v.name: v for v in vms or []}
    clients = [int(c) for c in layout.topology.get("numa_clients", [])]
    # Per client size, the (instance, client) pairs not drawn yet, in order: one step per pick,
    # never a search, since a counted VM can have thousands of instances.
    pool: dict[int, Iterator[tuple[int, int]]] = {
        size: iter([(i, c) for i in range(max(1, vm.count)) for c in range(len(clients)) if clients[c] == size])
        for size in set(clients)}
    vnuma = _vnuma_of_clients(layout.topology, clients)
    residents: list[list[Resident]] = []
    for node in host.residents:
        here: list[Resident] = []
        for name, size, count in node:
            if name != vm.name:
                here.append(Resident(name, f"{name}×{count}" if count > 1 else name, size * count,
                                     _share(by_name.get(name), size) * count, other=True))
                continue
            for _ in range(count):
                # Which of the VM's equal-sized clients (and instances) sits on which node is the
                # placement's order, not something ESXi documents: the first free one is drawn.
                instance, index = next(pool.get(size, iter(())), (0, -1))
                here.append(Resident(vm.name, f"{vm.name} #{instance + 1}" if vm.count > 1 else vm.name,
                                     size, _share(vm, size, layout.topology),
                                     vnuma[index] if index >= 0 else (),
                                     instance if vm.count > 1 else None))
        residents.append(here)
    return _pin(_map(host, residents), [vm])


def _alone(host: HostResult, vm: VmResult, layout: Layout) -> HostMap:
    residents: list[list[Resident]] = [[] for _ in range(int(host.capacity.get("numa_nodes", 1)))]
    clients = [int(c) for c in layout.topology.get("numa_clients", [])]
    vnuma = _vnuma_of_clients(layout.topology, clients)
    for index, (size, node) in enumerate(zip(clients, layout.client_nodes, strict=False)):
        if 0 <= node < len(residents):
            residents[node].append(Resident(vm.name, vm.name, size, _share(vm, size, layout.topology), vnuma[index]))
    return _map(host, residents)


def _vnuma_of_clients(topology: dict, clients: list[int]) -> list[tuple[int, ...]]:
    """For each NUMA client, the guest's vNUMA node of each of its vCPUs: vCPUs are numbered
    across the clients in order and across the vNUMA nodes in order (empty when the guest sees no
    vNUMA split or the two do not add up to the same vCPUs)."""
    nodes = [int(n) for n in topology.get("vnuma_nodes", [])]
    if len(nodes) < 2 or sum(nodes) != sum(clients):
        return [()] * len(clients)
    of_vcpu = [index for index, size in enumerate(nodes) for _ in range(size)]
    out, start = [], 0
    for size in clients:
        out.append(tuple(of_vcpu[start:start + size]))
        start += size
    return out


def _pin(layout: HostMap, vms: list[VmResult]) -> HostMap:
    """Mark the logical CPUs each pinned VM (sched.cpu.affinity) may run on. Logical CPUs are
    taken as numbered node by node (advisor.numa.memory.affinity_nodes names this assumption),
    and a core's hyper-threads as consecutive numbers: vSphere Resource Management, "Hyperthreading
    and ESXi Hosts" (GUID-3362A2E9-AB03-4C10-B9A1-3E6CA78D399B: CPUs 0 and 1 are the first core's two
    logical processors, 2 and 3 the second's)."""
    per_node = layout.cores_per_node * layout.threads_per_core
    logical = per_node * layout.nodes
    for vm in vms:
        for lo, hi in (vm.layouts[0].pinned if vm.layouts else ()):
            for cpu in range(lo, min(hi, logical - 1) + 1):  # bounded by the host's CPUs
                node, local = divmod(cpu, per_node)
                core, thread = divmod(local, layout.threads_per_core)
                names = layout.pinned.setdefault((node, core * layout.threads_per_core + thread), [])
                if vm.name not in names:
                    names.append(vm.name)
    return layout


def _map(host: HostResult, residents: list[list[Resident]]) -> HostMap:
    cap = host.capacity
    return HostMap(host.name, int(cap.get("sockets", 1)), int(cap.get("numa_nodes", 1)),
                   int(cap.get("cores_per_node", 1)), int(cap.get("threads_per_core", 1)),
                   int(cap.get("memory_per_node_mib", 0)), residents)


def _share(vm: VmResult | None, vcpus: int, topology: dict | None = None) -> int:
    """A NUMA client's memory: the VM's memory in proportion to the client's vCPUs (ESXi homes a
    client's memory on its node; how it splits a VM's memory between clients is not documented
    beyond that, so the picture assumes in proportion)."""
    topo = topology or ((vm.topology or {}) if vm else {})
    total = int(topo.get("vcpus", 0))
    memory = int(topo.get("memory_local_mib", 0)) + int(topo.get("memory_remote_mib", 0))
    return memory * vcpus // total if total else 0
