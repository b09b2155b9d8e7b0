"""Facts about what vSphere and the guest allow: the hard limits a VM must stay within.

The numbers are data (rules/limits/vsphere.yaml, each row with its document): the most vCPUs,
memory, cores per socket and virtual sockets a VM may have for its vSphere version and virtual
hardware version, the newest hardware version the host's ESXi runs, the Fault Tolerance limits
per version and licence edition, and the guest minimums (rules/limits/guests.yaml).
"""

from __future__ import annotations

import math
from functools import lru_cache
from typing import Any

from advisor.model.spec import VM, Host
from advisor.model.versions import (
    Version,
    ft_limits,
    ft_max_disks,
    guest_max_sockets,
    guest_minimum_mib,
    hw_feature,
    hw_limits,
    limits_for,
    max_hw_for,
    max_sockets,
)

_V8 = Version(8, 0)
_DISK_FT_MAX_MIB = 2 * 1024 * 1024  # an FT VM's disks must each be smaller than 2 TB


def _lowest(*pairs: tuple[int | None, str]) -> tuple[int | None, str]:
    known = [(value, why) for value, why in pairs if value is not None]
    return min(known, key=lambda p: p[0]) if known else (None, "")


def fewest_cores_per_socket(vcpus: int, max_sockets: int) -> int:
    """The smallest cores per socket (a divisor of vCPUs, as vSphere requires) that keeps the VM
    within max_sockets sockets (0: no limit, 1 core per socket)."""
    if max_sockets <= 0:
        return 1
    return next(cps for cps in range(-(-vcpus // max_sockets), vcpus + 1) if vcpus % cps == 0)


# (socket limit fact, cores-per-socket fix fact) pairs whose fix prefers one socket per vNUMA node.
_SOCKET_FIXES = (("vm.guest_max_sockets", "vm.guest_socket_cores_per_socket"),
                 ("sql.edition_max_sockets", "sql.edition_socket_cores_per_socket"))


def prefer_aligned_sockets(vm: VM, facts: dict[str, Any], aligned_cps: int | None) -> None:
    """A socket-limit fix uses one socket per vNUMA node when that also keeps within the limit
    (VMware's rightsizing rules align sockets with vNUMA nodes)."""
    if not aligned_cps or aligned_cps <= 1:
        return
    for limit_key, fix_key in _SOCKET_FIXES:
        limit = facts.get(limit_key) or 0
        if limit and fix_key in facts and -(-vm.vcpus // aligned_cps) <= limit:
            facts[fix_key] = aligned_cps


def smt_of(vm: VM, host: Host | None) -> int:
    """Threads per core the VM's vCPUs share with latency sensitivity High with Hyperthreading
    (vHT supports at most 2 per core, vSphere 8 Resource Management GUID-A74E34FF)."""
    if vm.latency_sensitivity != "high-ht":
        return 1
    return min(2, host.threads_per_core) if host else 2


def limit_facts(vm: VM, version: Version | None, host: Host | None) -> dict[str, Any]:
    """The limits that apply to this VM and whether it stays within them."""
    cps = vm.cores_per_socket or 1
    guest_sockets = guest_max_sockets(vm.guest_os)
    out: dict[str, Any] = {
        "vm.virtual_sockets": -(-vm.vcpus // cps),
        "vm.effective_cores_per_socket": cps,
        "vm.max_sockets": max_sockets(),
        "vm.large_disks": sum(1 for d in vm.disks if d.size is not None and d.size >= _DISK_FT_MAX_MIB)
        if vm.disks else 0,
        "vm.reservation_exceeds_memory": isinstance(vm.memory_reservation, int) and vm.memory_reservation > vm.memory,
        "vm.guest_min_memory_mib": guest_minimum_mib(vm.guest_os),
        "vm.guest_max_sockets": guest_sockets,
        "vm.guest_socket_cores_per_socket": fewest_cores_per_socket(vm.vcpus, guest_sockets),
    }
    # The spec's `vsphere:` states what the host runs when given (it defaults to host.esxi).
    runs = None if host is None else version if version is not None else host.esxi
    out.update(_version_limits(vm.hardware_version, version, host.license if host else None, runs))
    if host is not None:
        smt = smt_of(vm, host)
        out["vm.exclusive_cores"] = (math.ceil(vm.vcpus / smt)
                                     if vm.latency_sensitivity in ("high", "high-ht") else 0)
    return out


@lru_cache(maxsize=1024)
def _version_limits(hw: int | None, version: Version | None, license: str | None,
                    runs: Version | None) -> dict[str, Any]:
    """The limits of a hardware version on a vSphere version and licence, the same for every VM
    that shares them (`runs`: what the host runs, None without a host). Callers copy it."""
    hw_row = hw_limits(hw) if hw else None
    ver = limits_for(version) if version is not None else None
    out: dict[str, Any] = {}
    out["vm.max_memory_mib"], out["vm.max_memory_why"] = _lowest(
        (ver.max_memory_mib if ver else None, f"vSphere {version}"),
        (hw_row.max_memory_mib if hw_row else None, f"hardware version {hw}"))
    out["vm.max_cores_per_socket"], out["vm.max_cores_per_socket_why"] = _lowest(
        (ver.max_cores_per_socket if ver else None, f"vSphere {version}"),
        (hw_row.max_cores_per_socket if hw_row else None, f"hardware version {hw}"))
    if version is not None:
        # Without a host the licence edition is unknown: Enterprise Plus, the largest limit.
        edition = license or "enterprise-plus"
        out["vm.ft_max_vcpus"], out["vm.ft_max_memory_mib"] = ft_limits(version, edition)
        out["vm.ft_max_disks"] = ft_max_disks()
        out["vm.high_ht_supported"] = version >= _V8 and (hw is None or hw_feature(hw, "latency_high_ht"))
    if runs is not None:
        newest = max_hw_for(runs)
        out["host.max_hw"] = newest
        out["vm.hw_newer_than_host"] = bool(hw and hw > newest)
        out["host.esxi_text"] = str(runs)
        out["host.license"] = license or "enterprise-plus"
    return out
