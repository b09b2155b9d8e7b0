"""Where ESXi's NUMA scheduler homes every VM's NUMA clients on one host.

Each instance of each VM (a VM with count 8 is eight VMs) is placed in turn, every client on
the least-loaded physical node, one VM's clients on distinct nodes where possible. The order in
which the VMs power on is not in the spec, and the nodes they land on depend on it; no VMware
document states an order, so advisor assumes one that the spec's listing cannot change: VMs
kept to listed nodes by numa.nodeAffinity first (they have no choice), then the largest NUMA
clients first, ties by shape and name (uncertain: only a total order on what placement reads
is needed, and largest-first is the usual bin-packing order). The same VMs listed in any order
give the same placement, and so the same host findings. A
VM with numa.nodeAffinity is placed on its listed nodes only (vSphere Resource Management,
"Specifying NUMA Controls": the affinity limits the nodes for its vCPUs and memory).
That is the initial placement the scheduler aims for (001_a02093f92473a34b.txt explains its
9×8 result by three VMs landing on one node); later load balancing is not modelled.

The work scales with nodes and distinct VM shapes, not with instances: identical instances
placed one after another repeat a cycle (the choice depends only on the loads relative to the
least-loaded node), so once a relative state recurs the remaining whole cycles are added in one
step. `Placement.steps` counts the instances actually simulated.
"""

from __future__ import annotations

from collections.abc import Sequence

from advisor.model.spec import Host
from advisor.numa.topology import Topology, place_clients


# A plain slotted class: see CONTRIBUTING.md, "Add a class on `check`'s path".
class Placement:
    """The VMs' NUMA clients homed on one host's nodes: the load of each node and who is on it."""

    __slots__ = ("cores_per_node", "load", "nodes", "residents", "steps", "threads_per_node", "unmanaged_vcpus")

    def __init__(self, nodes: int, cores_per_node: int, threads_per_node: int, load: list[int],
                 residents: list[list[tuple[str, int, int]]], unmanaged_vcpus: int = 0, steps: int = 0) -> None:
        self.nodes = nodes
        self.cores_per_node = cores_per_node
        self.threads_per_node = threads_per_node
        self.load = load  # vCPUs homed per node
        # per node: (vm name, client vCPUs, instances of that VM with such a client on the node)
        self.residents = residents
        self.unmanaged_vcpus = unmanaged_vcpus  # vCPUs of VMs with CPU affinity (not NUMA-managed)
        self.steps = steps  # instances simulated one by one (the rest were whole repeated cycles)

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
        return [sum(count for _, _, count in r) for r in self.residents]


def _power_on_order(vm: tuple[str, int, Topology]) -> tuple[object, ...]:
    """The assumed power-on order (see the module's docstring): a total order on what placement
    reads, so that the listing order of the spec cannot matter."""
    name, count, topo = vm
    clients = topo.numa_clients
    return (topo.node_affinity is None, -max(clients, default=0), -topo.vcpus, tuple(-c for c in clients),
            topo.node_affinity or (), name, -count)


def place(host: Host, vms: Sequence[tuple[str, int, Topology]]) -> Placement:
    """vms: (name, count, topology), in any order (placed in the assumed power-on order)."""
    load = [0] * host.nodes
    residents: list[list[tuple[str, int, int]]] = [[] for _ in range(host.nodes)]
    unmanaged = steps = 0
    for name, count, topo in sorted(vms, key=_power_on_order):
        if not topo.numa_managed:
            unmanaged += topo.vcpus * count
            continue
        if count == 1:  # most VMs of an estate: no cycle to look for, only the nodes it lands on
            landed = _place_one(topo.numa_clients, load, topo.node_affinity)
            steps += 1
        else:
            per_node, simulated = _place_identical(topo.numa_clients, count, load, topo.node_affinity)
            landed = dict(enumerate(per_node))
            steps += simulated
        for node, sizes in landed.items():
            residents[node].extend((name, size, n) for size, n in sorted(sizes.items(), reverse=True))
    return Placement(host.nodes, host.cores_per_node, host.threads_per_node, load, residents, unmanaged, steps)


def _place_one(clients: tuple[int, ...], load: list[int], allowed: tuple[int, ...] | None) -> dict[int, dict[int, int]]:
    """_place_identical for one instance: per node it lands on, how many clients of each size."""
    per_node: dict[int, dict[int, int]] = {}
    for size, node in zip(clients, place_clients(clients, len(load), load, allowed), strict=True):
        sizes = per_node.setdefault(node, {})
        sizes[size] = sizes.get(size, 0) + 1
    return per_node


def _place_identical(clients: tuple[int, ...], count: int, load: list[int],
                     allowed: tuple[int, ...] | None = None) -> tuple[list[dict[int, int]], int]:
    """Place `count` identical instances one after another (updating `load`); per node, how
    many clients of each size landed there, and how many instances were simulated. `allowed`:
    the nodes numa.nodeAffinity leaves the VM (None: every node)."""
    nodes = len(load)
    pool = list(allowed) if allowed else list(range(nodes))  # only these nodes' loads change
    per_node: list[dict[int, int]] = [{} for _ in range(nodes)]
    seen: dict[tuple[int, ...], tuple[int, int]] | None = {}  # relative loads -> (instance, lowest load)
    homes: list[tuple[int, ...]] = []  # the nodes of each simulated instance's clients
    done = 0
    while done < count:
        low = min(load[n] for n in pool)
        if seen is not None:
            state = tuple(load[n] - low for n in pool)
            if state in seen:
                first, first_low = seen[state]
                period = done - first
                cycles = (count - done) // period
                for node in pool:
                    load[node] += (low - first_low) * cycles
                for chosen in homes[first:done]:
                    for size, node in zip(clients, chosen, strict=True):
                        per_node[node][size] = per_node[node].get(size, 0) + cycles
                done += period * cycles
                seen = None  # fewer than one cycle is left: simulate it
                continue
            seen[state] = (done, low)
        chosen = place_clients(clients, nodes, load, allowed)
        homes.append(chosen)
        for size, node in zip(clients, chosen, strict=True):
            per_node[node][size] = per_node[node].get(size, 0) + 1
        done += 1
    return per_node, len(homes)
