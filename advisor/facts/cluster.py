"""Facts about the other hosts of a cluster a VM may run on (vMotion, DRS, HA restarts).

ESXi fixes a VM's virtual NUMA layout at its first power-on and keeps it (numa.autosize.once is
TRUE by default); on a host with smaller NUMA nodes the same virtual nodes no longer fit, and
ESXi rebuilds only the NUMA clients behind the guest's back (Denneman, "Solving vNUMA Topology
Mismatch When Migrating between Dual Socket Servers and Quad Socket Servers", 2022). The spec's
`host` is where the VM first powers on; `cluster:` lists the others.
"""

from __future__ import annotations

from typing import Any

from advisor.model.spec import VM, Host
from advisor.model.versions import Version
from advisor.numa.topology import Topology, layout_text, predict


def cluster_facts(host: Host, vm: VM, version: Version, topo: Topology, others: tuple[Host, ...]) -> dict[str, Any]:
    """Where the VM's first-power-on vNUMA layout does not match another host's own layout."""
    mismatched: list[str] = []
    for other in others:
        there = predict(other, vm, min(version, other.esxi))
        if _exposed(there) != _exposed(topo):
            mismatched.append(f"{other.name} [{layout_text(_exposed(there)) or 'no vNUMA'}]")
    smallest = min([host.cores_per_node, *(o.cores_per_node for o in others)])
    return {
        "cluster.hosts": len(others) + 1,
        "cluster.mismatched_hosts": len(mismatched),
        "cluster.mismatch_text": "; ".join(mismatched),
        "cluster.smallest_node_cores": smallest,
        "cluster.fits_smallest_node": vm.vcpus <= smallest or (
            bool(topo.vnuma_exposed) and max(topo.vnuma_nodes) <= smallest),
    }


def _exposed(topo: Topology) -> tuple[int, ...]:
    return tuple(topo.vnuma_nodes) if topo.vnuma_exposed else ()
