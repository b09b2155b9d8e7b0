"""Where ESXi's NUMA scheduler homes every VM's NUMA clients on one host.

Each instance of each VM (a VM with count 8 is eight VMs) is placed in spec order, every
client on the least-loaded physical node, one VM's clients on distinct nodes where possible.
That is the initial placement the scheduler aims for (001_a02093f92473a34b.txt explains its
9×8 result by three VMs landing on one node); later load balancing is not modelled.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass, field

from advisor.model.spec import Host
from advisor.numa.topology import Topology, place_clients


@dataclass(slots=True)
class Placement:
    nodes: int
    cores_per_node: int
    threads_per_node: int
    load: list[int]  # vCPUs homed per node
    residents: list[list[tuple[str, int]]] = field(default_factory=list)  # per node: (vm label, vCPUs)
    unmanaged_vcpus: int = 0  # vCPUs of VMs with CPU affinity (not NUMA-managed)

    @property
    def oversubscribed(self) -> list[int]:
        """Nodes holding more vCPUs than they have hardware threads."""
        return [n for n, vcpus in enumerate(self.load) if vcpus > self.threads_per_node]

    @property
    def ht_reliant(self) -> list[int]:
        """Nodes holding more vCPUs than physical cores (hyper-threads are relied on)."""
        return [n for n, vcpus in enumerate(self.load) if vcpus > self.cores_per_node]

    @property
    def balanced(self) -> bool:
        return max(self.load) - min(self.load) <= 0 if self.load else True

    @property
    def clients_per_node(self) -> list[int]:
        return [len(r) for r in self.residents]


def place(host: Host, vms: Sequence[tuple[str, int, Topology]]) -> Placement:
    """vms: (name, count, topology) in spec order."""
    load = [0] * host.nodes
    residents: list[list[tuple[str, int]]] = [[] for _ in range(host.nodes)]
    unmanaged = 0
    for name, count, topo in vms:
        for instance in range(count):
            label = name if count == 1 else f"{name}#{instance + 1}"
            if not topo.numa_managed:
                unmanaged += topo.vcpus
                continue
            nodes = place_clients(topo.numa_clients, host.nodes, load)
            for size, node in zip(topo.numa_clients, nodes, strict=False):
                residents[node].append((label, size))
    return Placement(host.nodes, host.cores_per_node, host.threads_per_node, load, residents, unmanaged)
