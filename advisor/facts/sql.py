"""SQL Server facts: Microsoft's MAXDOP table over the nodes SQL Server builds, and edition caps.

Microsoft's "Configure the max degree of parallelism Server Configuration Option" gives one table
for SQL Server 2016 and later and another for 2008 through 2014. From 2016 the "NUMA node" of the
table is a soft-NUMA node: SQL Server splits a node with more than eight physical cores into soft
nodes of about eight ("Soft-NUMA (SQL Server)": ideally eight, five to nine). Inside a VM the guest
sees the vNUMA nodes, each vCPU a core (two per core only with latency sensitivity High with
Hyperthreading). The caps per edition come from rules/limits/sqlserver.yaml.
"""

from __future__ import annotations

import math
from functools import lru_cache
from typing import Any

from advisor.facts.limits import fewest_cores_per_socket
from advisor.model.spec import VM
from advisor.numa.topology import Topology

# The first release whose table and soft-NUMA behaviour apply (Microsoft's two tables).
SOFT_NUMA_SINCE = 2016


def sql_year(version: str | None) -> int:
    """'2019', 'SQL Server 2016 SP2', '2008 R2' -> the release year; 0 when not stated."""
    digits = "".join(ch if ch.isdigit() else " " for ch in (version or "")).split()
    years = [int(d) for d in digits if len(d) == 4 and 2000 <= int(d) <= 2099]
    return years[0] if years else 0


def soft_numa_split(cores: int) -> tuple[int, ...]:
    """The soft-NUMA nodes SQL Server 2016+ makes of one node of `cores` physical cores.

    Nodes of more than 8 cores are split into the fewest parts of at most 8, unless that leaves
    parts under 5, in which case parts of up to 9 are used (9 cores: one node). Microsoft states
    the bounds (5 to 9, ideally 8), not the partition; the sizes here spread the cores evenly.
    """
    if cores <= 8:
        return (cores,)
    parts = math.ceil(cores / 8)
    if cores / parts < 5:
        parts = math.ceil(cores / 9)
    base, extra = divmod(cores, parts)
    return tuple(base + 1 if i < extra else base for i in range(parts))


def recommended_maxdop(year: int, guest_nodes: tuple[int, ...], threads_per_core: int = 1) -> tuple[int, str]:
    """MAXDOP from Microsoft's table for the guest's NUMA nodes, and a sentence saying how.

    `guest_nodes` are the vCPUs (logical processors) of each NUMA node the guest sees;
    `threads_per_core` is 2 when the guest sees hyper-threads (vHT), else 1.
    """
    modern = year == 0 or year >= SOFT_NUMA_SINCE
    table = "SQL Server 2016+ table" if modern else "SQL Server 2008-2014 table"
    if modern:
        nodes: list[int] = []
        for lps in guest_nodes:
            cores = max(1, lps // threads_per_core)
            nodes.extend(part * threads_per_core for part in soft_numa_split(cores))
        split = len(nodes) > len(guest_nodes)
    else:
        nodes, split = list(guest_nodes), False
    per = min(nodes)
    if len(nodes) == 1:
        value = min(per, 8)
    elif modern:
        value = per if per <= 16 else min(16, per // 2)
    else:
        value = per if per <= 8 else 8
    kind = "soft-NUMA" if split else "NUMA"
    layout = f"{len(nodes)} {kind} node{'s' if len(nodes) > 1 else ''} of {per}" + (
        " or more" if len(set(nodes)) > 1 else "") + " logical processors"
    why = f"{table}{'' if year else ' (version not stated)'}: {layout}"
    if split:
        why += " (SQL Server splits a node of more than 8 cores into soft-NUMA nodes)"
    return value, why


@lru_cache(maxsize=1)
def _limits() -> dict[str, Any]:
    from advisor.resources import limits_table

    return dict(limits_table("sqlserver"))


def _edition_table() -> list[dict[str, Any]]:
    return list(_limits()["editions"])


def even_node_size(vcpus: int, most: int) -> int:
    """The largest node size of at most `most` vCPUs that splits `vcpus` into equal nodes."""
    return next(vcpus // parts for parts in range(-(-vcpus // most), vcpus + 1) if vcpus % parts == 0)


def sql_topology_facts(vm: VM, topo: Topology, smt: int) -> dict[str, Any]:
    """SQL Server facts that read the guest's NUMA nodes: Microsoft's MAXDOP for them, and the
    largest node against SQL Server's 64 logical processors per node."""
    assert vm.sql is not None
    nodes = tuple(topo.vnuma_nodes) if topo.vnuma_exposed else (vm.vcpus,)
    most = int(_limits()["max_logical_per_numa_node"])
    out: dict[str, Any] = {"sql.largest_guest_node": max(nodes), "sql.max_node_processors": most,
                           "sql.node_size_fix": even_node_size(vm.vcpus, most)}
    out["sql.recommended_maxdop"], out["sql.maxdop_basis"] = recommended_maxdop(sql_year(vm.sql.version), nodes, smt)
    return out


def edition_caps(edition: str, year: int) -> tuple[int, int]:
    """(sockets, cores) one instance of `edition` uses; 0 means the OS maximum."""
    best = (0, 0)
    for row in _edition_table():
        if row["edition"] == edition and (year or 9999) >= row["since"]:
            best = (row.get("max_sockets", 0), row.get("max_cores", 0))
    return best


def sql_facts(vm: VM) -> dict[str, Any]:
    """The VM's SQL Server settings as facts (sql.present False when it states none)."""
    if not vm.sql:
        return {"sql.present": False}
    s = vm.sql
    year = sql_year(s.version)
    sockets, cores = edition_caps(s.edition, year)
    effective = s.maxdop if 0 < s.maxdop <= vm.vcpus else vm.vcpus
    # The edition uses the lesser of its sockets and its cores; in a VM each vCPU counts as a core.
    cps = vm.cores_per_socket or 1
    usable = min(vm.vcpus, sockets * cps if sockets else vm.vcpus, cores or vm.vcpus)
    return {
        "sql.present": True,
        "sql.year": year,
        "sql.maxdop": s.maxdop,
        "sql.effective_maxdop": min(effective, 64),
        "sql.cost_threshold": s.cost_threshold,
        "sql.affinity_mask": s.affinity_mask,
        "sql.server_cal": s.licensing == "server-cal",
        "sql.standard": s.edition == "standard",
        "sql.edition": s.edition,
        "sql.edition_max_sockets": sockets,
        "sql.edition_max_cores": cores,
        "sql.edition_usable_vcpus": usable,
        "sql.edition_socket_cores_per_socket": fewest_cores_per_socket(vm.vcpus, sockets),
        "sql.trace_834": 834 in s.trace_flags,
        "sql.priority_boost": s.priority_boost,
        "sql.lightweight_pooling": s.lightweight_pooling,
        "sql.lock_pages": s.lock_pages_in_memory,
    }
