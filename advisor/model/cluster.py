"""A cluster as the spec describes it: the kinds of host a VM may run on, each with a count.

A cluster is a few kinds of host repeated; hosts of one NUMA shape build the same vNUMA layout
for a VM, so advisor groups them and checks each kind once (advisor.facts.cluster).
"""

from __future__ import annotations

from collections.abc import Iterable
from dataclasses import dataclass
from typing import Any

from advisor.model.spec import Host


@dataclass(frozen=True)
class ClusterHost:
    """One kind of host in the cluster: the first host of that shape, how many hosts have it,
    and their names."""

    host: Host
    count: int
    names: tuple[str, ...]

    @property
    def label(self) -> str:
        names = ", ".join(self.names)
        return names if self.count == len(self.names) == 1 else f"{names} ({self.count} hosts)"


def host_shape(host: Host) -> tuple[Any, ...]:
    """What the vNUMA prediction reads from a host: hosts with equal shapes give equal layouts."""
    return (host.sockets, host.cores_per_socket, host.threads_per_core, host.numa_nodes_per_socket,
            host.memory, host.esxi, host.prefer_ht, host.follow_cores_per_socket, host.cpu)


def distinct_hosts(members: Iterable[tuple[Host, int]]) -> tuple[ClusterHost, ...]:
    """The cluster's hosts grouped by shape, in the order they are first named."""
    groups: dict[tuple[Any, ...], tuple[Host, int, list[str]]] = {}
    for host, count in members:
        key = host_shape(host)
        first, total, names = groups.get(key, (host, 0, []))
        if host.name not in names:
            names.append(host.name)
        groups[key] = (first, total + count, names)
    return tuple(ClusterHost(h, n, tuple(names)) for h, n, names in groups.values())
