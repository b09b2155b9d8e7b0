"""Facts about the shape a fix gives the VM: the values a rule's `resize:` sets.

A fix must state its change in terms a user (and the convergence test, tests/rules) can apply,
and the change must not trade one finding for another of the same weight. These facts compute
such values from the limits, the topology and the SQL Server facts together, so they run after
every other family (facts.facts_for):

- the lowest virtual hardware version the VM's devices need (VMXNET3 and PVSCSI 7, NVMe 13: the
  hardware table in rules/limits/vsphere.yaml);
- cores per socket within every limit: one virtual socket per vNUMA node (VMware's rightsizing
  rule, NUMA002) when that is allowed, else the divisor of the vCPUs nearest below the
  version's cores-per-socket limit that keeps the sockets within 128 and the SQL Server
  edition's socket cap;
- the vCPUs SQL Server's licence lets it use (Server + CAL: 20 cores; the edition's cap), with
  the cores per socket and Microsoft's MAXDOP for the VM resized to that count, so the resize
  brings no NUMA011/SQL005/SQL003 finding of its own;
- how many vCPUs a latency-sensitive VM may have and still leave the VMkernel a core;
- one VM per JVM (seed 002: one JVM per 2-vCPU VM matched native performance).
"""

from __future__ import annotations

from functools import lru_cache
from typing import Any

from advisor.facts.limits import smt_of
from advisor.model.spec import VM, Host
from advisor.model.versions import Version, hw_feature

_SERVER_CAL_CORES = 20  # Server + CAL licensing: 20 cores per instance (rule SQL004)
_NEWEST_HW = 22


def _devices_min_hw(vm: VM, facts: dict[str, Any]) -> int | None:
    return _lowest_hw(vm.hardware_version or 1, (facts.get("vm.nics") or 0) > (facts.get("vm.legacy_nics") or 0),
                      bool(facts.get("vm.uses_pvscsi")), bool(facts.get("vm.uses_nvme")))


@lru_cache(maxsize=256)
def _lowest_hw(start: int, vmxnet3: bool, pvscsi: bool, nvme: bool) -> int | None:
    """The lowest hardware version from `start` on with each device in use."""
    needed = [feature for feature, used in (("vmxnet3", vmxnet3), ("pvscsi", pvscsi), ("nvme", nvme)) if used]
    for hw in range(start, _NEWEST_HW + 1):
        if all(hw_feature(hw, feature) for feature in needed):
            return hw
    return None


@lru_cache(maxsize=4096)  # a pure function of small integers, asked for every VM
def fitting_cores_per_socket(vcpus: int, preferred: tuple[int | None, ...], node_cores: int, max_cps: int | None,
                             max_sockets: int, edition_sockets: int = 0) -> int | None:
    """Cores per socket within the limits: the first of `preferred` (one socket per vNUMA node of
    the layout the VM gets) that is allowed, else the allowed divisor of the vCPUs nearest a
    physical node's cores (sockets the size of the host's nodes, none wider than a node where one fits)."""
    sockets_cap = min(max_sockets, edition_sockets) if edition_sockets > 0 else max_sockets

    def allowed(cps: int) -> bool:
        return vcpus % cps == 0 and (max_cps is None or cps <= max_cps) and vcpus // cps <= sockets_cap

    for cps in preferred:
        if cps and allowed(cps):
            return cps
    # A socket no wider than a node first: a wider one spans nodes (NUMA010).
    return min((d for d in range(1, vcpus + 1) if allowed(d)), key=lambda d: (d > node_cores, abs(d - node_cores), -d),
               default=None)


def _preferred_cps(host: Host, vm: VM, version: Version | None, facts: dict[str, Any],
                   cache: dict[tuple[Any, ...], Any] | None) -> tuple[int | None, ...]:
    """One socket per vNUMA node of the layout the VM gets once advisor's fixes are applied:
    the preferHT layout where NUMA001 writes preferHT (its condition, advisor/facts/topology.py),
    else the default layout."""
    from advisor.facts.topology import _with_advanced, _without_autosize, shared_predict, socket_per_vnode

    aligned = facts.get("topo.aligned_cores_per_socket")
    numa001 = (facts.get("topo.wide") and facts.get("topo.vnuma_balanced") is False
               and facts.get("topo.prefer_ht_balances") and facts.get("topo.prefer_ht_memory_fits")
               and vm.vcpus > host.cores)
    if not numa001 or version is None:
        return (aligned,)
    fresh = _with_advanced(_without_autosize(vm), "numa.vcpu.preferHT", "TRUE", cores_per_socket=None)
    nodes = shared_predict(host, fresh, version, cache).vnuma_nodes
    return (socket_per_vnode(tuple(nodes), vm.vcpus), aligned)


def _licensed(host: Host, vm: VM, version: Version, facts: dict[str, Any],
              cache: dict[tuple[Any, ...], Any] | None) -> dict[str, Any]:
    """The VM resized to the vCPUs its SQL Server licence uses, and that shape's settings."""
    from advisor.facts.sql import recommended_maxdop, sql_year
    from advisor.facts.topology import layout_key, shared_predict, socket_per_vnode

    assert vm.sql is not None
    caps = [c for c in (_SERVER_CAL_CORES if facts.get("sql.server_cal") else 0,
                        facts.get("sql.edition_max_cores") or 0) if c > 0]
    vcpus = min([vm.vcpus, *caps])
    # The resized VM's layout reads nothing of the VM but its layout_key's fields and the new count.
    key = ("licensed", layout_key(vm), vcpus)
    nodes = cache.get(key) if cache is not None else None
    if nodes is None:
        resized = shared_predict(host, vm.model_copy(update={"vcpus": vcpus, "cores_per_socket": None}), version,
                                 cache)
        nodes = tuple(resized.vnuma_nodes) if resized.vnuma_exposed else (vcpus,)
        if cache is not None:
            cache[key] = nodes
    cps = fitting_cores_per_socket(vcpus, (socket_per_vnode(nodes, vcpus),), host.cores_per_node,
                                   facts.get("vm.max_cores_per_socket"), facts.get("vm.max_sockets") or 128,
                                   facts.get("sql.edition_max_sockets") or 0)
    threads = 2 if vm.latency_sensitivity == "high-ht" else 1
    recommended, _ = recommended_maxdop(sql_year(vm.sql.version), nodes, threads)
    configured = vm.sql.maxdop
    return {
        "sql.licensed_vcpus": vcpus,
        "sql.licensed_cores_per_socket": cps,
        # The configured MAXDOP stays where it is within the table; 0 (all processors) or a
        # larger value becomes the table's.
        "sql.licensed_maxdop": configured if 0 < configured <= recommended else recommended,
    }


def reshape_facts(host: Host | None, vm: VM, version: Version | None, facts: dict[str, Any],
                  cache: dict[tuple[Any, ...], Any] | None = None) -> dict[str, Any]:
    """The values the fixes' resizes set, from the facts of every other family (`cache`:
    shared_predict's, for the what-if layouts)."""
    needed = _devices_min_hw(vm, facts)
    runs = facts.get("host.max_hw")
    # A version the host cannot run is no fix: the device changes instead (HYG003).
    out: dict[str, Any] = {"vm.devices_min_hw": needed if runs is None or needed is None or needed <= runs else None}
    if vm.java and vm.java.jvms > 1 and facts.get("vm.memory_mib") is not None:
        out["vm.jvm_vms"] = vm.count * vm.java.jvms
        out["vm.memory_per_jvm_mib"] = vm.memory // vm.java.jvms // 4 * 4  # memsize: a multiple of 4 MB
    if host is not None and facts.get("topo.aligned_cores_per_socket") is not None:
        limits = (facts.get("vm.max_cores_per_socket"), facts.get("vm.max_sockets") or 128,
                  facts.get("sql.edition_max_sockets") or 0)
        aligned = fitting_cores_per_socket(vm.vcpus, (facts["topo.aligned_cores_per_socket"],), host.cores_per_node,
                                           *limits)
        # Only a VM whose own alignment breaks a limit needs the what-if layout (LIM001/002, SQL005).
        out["vm.fitting_cores_per_socket"] = aligned if aligned == facts["topo.aligned_cores_per_socket"] else (
            fitting_cores_per_socket(vm.vcpus, _preferred_cps(host, vm, version, facts, cache), host.cores_per_node,
                                     *limits))
    if host is not None:
        # One core left to the VMkernel, rounded down so the vNUMA nodes stay equal (NUMA003).
        cores = host.cores - 1
        cores -= cores % -(-cores // host.cores_per_node)
        out["vm.latency_max_vcpus"] = cores * smt_of(vm, host)
        if vm.sql is not None and version is not None and facts.get("vm.vcpus") is not None:
            out.update(_licensed(host, vm, version, facts, cache))
    return out
