"""The facts documents rule conditions read, put together for one VM: facts_for.

Each fact family lives in its own module (vm, host, topology, placement, sql, limits, cluster);
the vocabulary of names and types is advisor.facts.names. This module combines them for a VM on a
host and version, sharing the work between VMs of the same shape.
"""

from __future__ import annotations

from collections.abc import Callable
from typing import Any, Literal

from advisor.facts.cluster import cluster_facts
from advisor.facts.host import clock_facts, host_facts, tiering_facts, version_facts
from advisor.facts.limits import limit_facts, prefer_aligned_sockets, smt_of
from advisor.facts.names import BOOL, DOUBLE, FACTS, INT, LIST_INT, LIST_STRING, STRING, FactDef
from advisor.facts.placement import packing_suggestion, placement_facts
from advisor.facts.reshape import reshape_facts
from advisor.facts.sql import sql_topology_facts
from advisor.facts.topology import (
    aligned_vcpus,
    layout_key,
    memory_facts,
    prefer_ht_fits,
    shared_predict,
    socket_per_vnode,
    topology_facts,
)
from advisor.facts.vm import _TOPOLOGY_FIELDS, vm_facts
from advisor.model.cluster import ClusterHost
from advisor.model.spec import VM, Host
from advisor.model.versions import Version
from advisor.numa.topology import Topology

__all__ = ["BOOL", "DOUBLE", "FACTS", "INT", "LIST_INT", "LIST_STRING", "STRING", "FactDef", "aligned_vcpus",
           "facts_for", "host_facts", "known", "packing_suggestion", "placement_facts", "predicted",
           "socket_per_vnode", "topology_for", "version_facts"]

_CONTEXT = ("host and version facts",)


def facts_for(host: Host | None, vm: VM, version: Version | None,
              unknown: frozenset[str] = frozenset(),
              cache: dict[tuple[Any, ...], Any] | None = None,
              cluster: tuple[ClusterHost, ...] = (),
              shape: tuple[Topology, dict[str, Any], bool] | Literal[False] | None = False,
              ) -> tuple[dict[str, Any], Topology | None]:
    """The VM's facts (and its topology when a host is known).

    `cache` (one per kind of host and version) shares the topology work between VMs of one layout
    (layout_key); estates are mostly a few shapes repeated with varied memory, and predict() plus
    its what-if variants dominate the cost. Memory-dependent facts are redone per memory size. It also keeps
    the host and version facts, which every VM of the call shares. `cluster` holds the other
    hosts the VM may run on (vMotion, DRS, HA), one entry per kind of host. `shape`: what
    topology_for gave for these same arguments and cache, when the caller already asked it
    (False: not asked).
    """
    facts = vm_facts(vm, unknown)
    topo = None
    # Host and version facts are the same for every VM of the call's host: built once. The cache
    # may be shared by hosts equal in all but their name (advisor.cost.shapes): the name is in
    # these facts, so in their key.
    context_key = (_CONTEXT, host.name if host is not None else None)
    context = cache.get(context_key) if cache is not None else None
    if context is None:
        context = {}
        if version is not None:
            context.update(version_facts(version))
            if host is not None:
                context.update(host_facts(host, version))
        if cache is not None:
            cache[context_key] = context
    facts.update(context)
    facts.update(limit_facts(vm, version, host))
    if version is not None:
        limit, why = facts["version.max_vcpus"], f"vSphere {version}"
        hw_limit = facts.get("vm.hw_max_vcpus")
        if hw_limit is not None and hw_limit < limit:
            limit, why = hw_limit, f"hardware version {vm.hardware_version}"
        facts["vm.max_vcpus"], facts["vm.max_vcpus_why"] = limit, why
    if host is not None and version is not None:
        hit = topology_for(host, vm, version, unknown, cache) if shape is False else shape
        if hit is not None:
            topo, shape_facts, prefer_ht_fits = hit
            facts.update(shape_facts)
            facts.update(memory_facts(host, vm, topo, prefer_ht_fits, version))
            facts.update(_per_vm_topology_facts(host, vm, topo))
            prefer_aligned_sockets(vm, facts, facts.get("topo.aligned_cores_per_socket"))
            if cluster:
                facts.update(cluster_facts(host, vm, version, topo, cluster, cache))
    facts.update(clock_facts(vm, host, facts.get("vm.cpu_limit_mhz"), facts.get("vm.cpu_reservation_mhz")))
    facts.update(tiering_facts(vm, host))
    facts.update(reshape_facts(host, vm, version, facts, cache))
    return facts, topo


def predicted(host: Host, vm: VM, version: Version, unknown: frozenset[str] = frozenset(),
              cache: dict[tuple[Any, ...], Any] | None = None) -> Topology | None:
    """The VM's predicted topology, or None when a field the prediction reads is unknown.

    With `cache`, VMs of one layout share the prediction and VMs of one layout and memory size
    share one Topology (shared_predict): the engine's placement pass and its evaluation pass
    both ask, and the report keeps one topology dict per Topology, not one per VM.
    """
    if unknown & _TOPOLOGY_FIELDS:
        return None
    return shared_predict(host, vm, version, cache)


def topology_for(host: Host, vm: VM, version: Version, unknown: frozenset[str] = frozenset(),
                 cache: dict[tuple[Any, ...], Any] | None = None
                 ) -> tuple[Topology, dict[str, Any], bool] | None:
    """The VM's predicted topology, the facts of its layout (topology_facts; see predicted())
    and whether its memory fits the nodes with preferHT (memory_facts).

    The layout's facts are built on the first VM of the layout that asks for them, with that
    VM's own prediction, and shared from then on; what reads the VM's memory is redone for
    each memory size.
    """
    if cache is None or unknown & _TOPOLOGY_FIELDS:
        topo = predicted(host, vm, version, unknown)
        if topo is None:
            return None
        shape_facts, alt = topology_facts(host, vm, version, topo)
        return topo, shape_facts, prefer_ht_fits(alt, host, vm.memory)
    key = layout_key(vm)
    topo = shared_predict(host, vm, version, cache, key)
    shared = cache.get(("facts", key))
    if shared is None:
        shared = cache[("facts", key)] = topology_facts(host, vm, version, topo, cache)
    fits = cache.get(("fits", key, vm.memory))
    if fits is None:
        fits = cache[("fits", key, vm.memory)] = prefer_ht_fits(shared[1], host, vm.memory)
    return topo, shared[0], fits


def _per_vm_topology_facts(host: Host, vm: VM, topo: Topology) -> dict[str, Any]:
    """Facts that read the topology and a setting the shape cache does not key on (the SQL
    Server version, latency sensitivity): cheap, so computed for every VM."""
    out: dict[str, Any] = {}
    smt = smt_of(vm, host)
    mhz = host.core_mhz
    # High: one core per vCPU; High with Hyperthreading: vCPUs / threads per core (GUID-2B67DC91).
    full = -(-vm.vcpus // smt) * mhz if mhz else None
    out["vm.full_cpu_reservation_mhz"] = full
    cpr = vm.cpu_reservation
    if cpr == "full":
        out["vm.full_cpu_reservation"], out["vm.cpu_reservation_mhz"] = True, full
    elif full is not None:
        out["vm.full_cpu_reservation"] = isinstance(cpr, int) and cpr >= full
    elif not cpr:
        out["vm.full_cpu_reservation"] = False  # nothing reserved: not in full, whatever the clock
    else:
        out["vm.full_cpu_reservation"] = None
    if vm.sql:
        out.update(sql_topology_facts(vm, topo, smt))
    return out


def known(names: frozenset[str], facts: dict[str, Any]) -> list[str]:
    """The names among `names` that are missing or None in facts (why a rule cannot run)."""
    return [n for n in sorted(names) if facts.get(n) is None]


FactFn = Callable[..., dict[str, Any]]
