"""Step 3 of the topology prediction: where the VM's NUMA clients and memory land.

Clients are homed the way the NUMA scheduler places them initially (its later load balancing
is not modelled): each on the least-loaded allowed node, one VM's clients on distinct nodes.
Memory follows the vCPUs: each client gets memory in proportion to its vCPUs, and what exceeds
a node's memory is remote. With CPU hot-add the memory is interleaved over the nodes instead
(Denneman, NUMA Deep Dive part 5).
"""

from __future__ import annotations

from advisor.model.spec import Host


def place_clients(clients: tuple[int, ...], nodes: int, load: list[int] | None = None,
                  allowed: tuple[int, ...] | None = None) -> tuple[int, ...]:
    """Home each client on the least-loaded node, spreading one VM's clients over distinct nodes.

    `load` (vCPUs already homed per node) is updated in place when given. `allowed` limits the
    nodes (numa.nodeAffinity: the VM stays NUMA-managed on those nodes only).
    """
    load = load if load is not None else [0] * nodes
    if len(clients) == 1 and not allowed:  # most VMs: the first of the least-loaded nodes
        node = min(range(nodes), key=load.__getitem__)
        load[node] += clients[0]
        return (node,)
    pool = list(allowed) if allowed else list(range(nodes))
    chosen: list[int] = [0] * len(clients)
    used: set[int] = set()
    for index in sorted(range(len(clients)), key=lambda i: -clients[i]):
        free = [n for n in pool if n not in used] or pool
        node = min(free, key=lambda n: (load[n], n))
        chosen[index] = node
        used.add(node)
        if len(used) == len(pool):
            used.clear()
        load[node] += clients[index]
    return tuple(chosen)


MEMORY_REASON = "exceeds what its nodes hold locally"


def memory_reason(memory: int, host: Host, remote: int) -> str:
    return (f"memory {memory // 1024} GB {MEMORY_REASON} "
            f"({host.memory_per_node // 1024} GB per node): ~{remote // 1024} GB remote")


def memory_split(
    memory: int, clients: tuple[int, ...], nodes: tuple[int, ...], host: Host, v: int, interleaved: bool
) -> tuple[int, int]:
    """Local and remote memory (MiB): each client gets memory in proportion to its vCPUs."""
    if interleaved:
        spanned = len(set(nodes))
        local = memory // spanned
        return local, memory - local
    per_node: dict[int, int] = {}
    for size, node in zip(clients, nodes, strict=True):
        per_node[node] = per_node.get(node, 0) + memory * size // v
    remote = sum(max(0, amount - host.memory_per_node) for amount in per_node.values())
    return memory - remote, remote


def affinity_nodes(affinity: str, host: Host, uncertain: list[str]) -> int:
    """Physical nodes an affinity list touches, numbering logical CPUs node by node."""
    from advisor.numa.affinity import nodes_touched, parse

    ranges = parse(affinity)
    if ranges is None:
        uncertain.append(f"could not read CPU affinity '{affinity[:80]}'")
        return host.nodes
    uncertain.append("logical CPUs are assumed numbered node by node (ESXi's usual order)")
    return nodes_touched(ranges, host.logical_cpus, host.threads_per_node)
