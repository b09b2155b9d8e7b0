"""Facts about the other hosts of a cluster a VM may run on (vMotion, DRS, HA restarts).

ESXi fixes a VM's virtual NUMA layout at its first power-on and keeps it (numa.autosize.once is
TRUE by default); on a host with smaller NUMA nodes the same virtual nodes no longer fit, and
ESXi rebuilds only the NUMA clients behind the guest's back (Denneman, "Solving vNUMA Topology
Mismatch When Migrating between Dual Socket Servers and Quad Socket Servers", 2022). The spec's
`host` is where the VM first powers on; `cluster:` lists the others, as hosts or as a host with a
count. A cluster is a few kinds of host repeated, so each kind (its NUMA shape) is checked once.
"""

from __future__ import annotations

from typing import Any

from advisor.facts.topology import layout_key
from advisor.model.cluster import ClusterHost, host_shape
from advisor.model.spec import VM, Host
from advisor.model.versions import Version, max_hw_for
from advisor.numa.controls import flag
from advisor.numa.topology import Topology, layout_text, predict


class _Kinds:
    """What cluster_facts reads of the cluster alone, the same for every VM of a host: each other
    kind of host with its shape, whether it could build another layout, its newest hardware
    version and label, and the cluster-wide figures."""

    __slots__ = ("checked", "fewest_logical_cpus", "hosts", "oldest_max_hw", "others", "smallest")

    def __init__(self, host: Host, version: Version, others: tuple[ClusterHost, ...]) -> None:
        first = host_shape(host)
        self.others = others  # held, so that its id is not reused while this is kept
        # (kind, its host's shape, the version the VM's layout is built with there) for the kinds
        # of another shape or an older release; the same shape builds the same layout.
        self.checked = tuple((o, host_shape(o.host), min(version, o.host.esxi)) for o in others
                             if not (host_shape(o.host) == first and o.host.esxi >= version))
        self.smallest = min([host.cores_per_node, *(o.host.cores_per_node for o in others)])
        self.fewest_logical_cpus = min(o.host.logical_cpus for o in others)
        self.oldest_max_hw = min(max_hw_for(o.host.esxi) for o in others)
        self.hosts = 1 + sum(o.count for o in others)


def _kinds(host: Host, version: Version, others: tuple[ClusterHost, ...],
           cache: dict[tuple[Any, ...], Any] | None) -> _Kinds:
    """The cluster's _Kinds, built once for the VMs of one host that ask in a row (`cache` may be
    shared by hosts of one kind with other clusters: the entry is the cluster's own, by identity)."""
    if cache is None:
        return _Kinds(host, version, others)
    kept = cache.get(_KINDS)
    if kept is None or kept.others is not others:
        kept = cache[_KINDS] = _Kinds(host, version, others)
    return kept


_KINDS = ("cluster kinds",)


def cluster_facts(host: Host, vm: VM, version: Version, topo: Topology, others: tuple[ClusterHost, ...],
                  cache: dict[tuple[Any, ...], Any] | None = None) -> dict[str, Any]:
    """Where the VM's first-power-on vNUMA layout does not match another host's own layout."""
    kinds = _kinds(host, version, others, cache)
    mine = _exposed(topo)
    mismatched: list[str] = []
    mismatched_hosts = 0
    key = layout_key(vm) if kinds.checked else None
    for other, shape, built_with in kinds.checked:
        there = _layout_on(other.host, vm, built_with, cache, key, shape)
        if there != mine:
            mismatched.append(f"{other.label} [{layout_text(there) or 'no vNUMA'}]")
            mismatched_hosts += other.count
    smallest = kinds.smallest
    # A host runs virtual hardware up to its ESXi release's newest (KB 1003746): a VM of a newer
    # version cannot be moved or restarted there.
    hw = vm.hardware_version or 0
    too_old = [o for o in others if hw > max_hw_for(o.host.esxi)] if hw > kinds.oldest_max_hw else []
    # ESXi powers on no VM with more vCPUs than the host has logical processors (HOST003).
    too_small = [o for o in others if vm.vcpus > o.host.logical_cpus] if vm.vcpus > kinds.fewest_logical_cpus else []
    return {
        "cluster.too_small_hosts": sum(o.count for o in too_small),
        "cluster.too_small_text": "; ".join(f"{o.label} ({o.host.logical_cpus} logical processors)"
                                            for o in too_small),
        "cluster.fewest_logical_cpus": kinds.fewest_logical_cpus,
        "cluster.hw_unsupported_hosts": sum(o.count for o in too_old),
        "cluster.hw_unsupported_text": "; ".join(
            f"{o.label} (ESXi {o.host.esxi}: hardware up to {max_hw_for(o.host.esxi)})" for o in too_old),
        "cluster.oldest_max_hw": kinds.oldest_max_hw,
        "cluster.hosts": kinds.hosts,
        "cluster.mismatched_hosts": mismatched_hosts,
        "cluster.mismatch_text": "; ".join(mismatched),
        "cluster.smallest_node_cores": smallest,
        # numa.autosize.once = FALSE rebuilds the layout at every power-on, on the host the VM
        # then runs on (Denneman 2022: with vmx.reboot.PowerCycle the next reboot does it).
        "cluster.layout_kept": flag(vm, "numa.autosize.once") is not False,
        "cluster.fits_smallest_node": vm.vcpus <= smallest or (
            bool(topo.vnuma_exposed) and max(topo.vnuma_nodes) <= smallest),
    }


def _layout_on(host: Host, vm: VM, version: Version, cache: dict[tuple[Any, ...], Any] | None,
               key: tuple[Any, ...] | None = None, shape: tuple[Any, ...] | None = None) -> tuple[int, ...]:
    """The vNUMA nodes the guest would see if the VM first powered on on `host` (cached per VM
    shape and host shape: the cluster repeats for every VM of the spec). `key`, `shape`: the VM's
    layout_key and the host's host_shape, when the caller has them."""
    key = ("cluster", key or layout_key(vm), shape or host_shape(host), version)
    if cache is not None and key in cache:
        return tuple(cache[key])
    layout = _exposed(predict(host, vm, version))
    if cache is not None:
        cache[key] = layout
    return layout


def _exposed(topo: Topology) -> tuple[int, ...]:
    return tuple(topo.vnuma_nodes) if topo.vnuma_exposed else ()
