"""Facts about the host and the vSphere version: capacity, power settings, per-version maxima."""

from __future__ import annotations

import re
from functools import lru_cache
from typing import Any

from advisor.model.spec import VM, Host
from advisor.model.versions import Version, ft_limits, limits_for
from advisor.resources import limits_table


@lru_cache(maxsize=4096)
def version_facts(version: Version) -> dict[str, Any]:
    lim = limits_for(version)
    return {
        "version.text": str(version),
        "version.number": version.major + version.minor / 10,
        "version.max_vcpus": lim.max_vcpus,
        "version.max_hw": lim.max_hw,
        "version.max_memory_mib": lim.max_memory_mib,
        # The Enterprise Plus figures; vm.ft_max_vcpus applies the host's licence edition.
        "version.ft_max_vcpus": ft_limits(version, "enterprise-plus")[0],
        "version.ft_max_memory_mib": ft_limits(version, "enterprise-plus")[1],
        # VMXNET3 interrupt-mode problems on Windows were fixed in ESXi 5.0 / Tools of that era:
        # the ethernetN.intrMode workaround has no purpose on 5.0 and later.
        "version.intrmode_fixed": version >= Version(5, 0),
    }


_NPS = re.compile(r"\bnps\s*-?\s*([124])\b")
_SNC = re.compile(r"\bsnc\s*-?\s*([1-4])\b")
_CCX = re.compile(r"\b(ccx|llc|l3)\b[\s_-]*(as[\s_-]*numa|numa)")


@lru_cache(maxsize=256)
def numa_mode_facts(mode: str | None) -> tuple[bool, int, int]:
    """The BIOS NUMA mode the host's `numa_mode` text names (issue 35, class 5): CCX-as-NUMA
    (AMD's "L3 as NUMA"; Broadcom KB 432801), NPS 1/2/4 (the same KB), and the sub-NUMA factor
    of Intel SNC-n or Cluster-on-Die (2). Unstated: the factors 0, and CCX-as-NUMA off, taken
    as the BIOS default (an assumption: AMD ships the option disabled; the `numa_mode` field
    says otherwise where it is on)."""
    if not mode:
        return False, 0, 0
    text = mode.strip().lower()
    nps = _NPS.search(text)
    snc = _SNC.search(text)
    sub = int(snc.group(1)) if snc else 2 if re.search(r"\bcod\b|cluster[\s-]*on[\s-]*die", text) else 0
    return bool(_CCX.search(text)), int(nps.group(1)) if nps else 0, sub


# Power.CpuPolicy when the host does not state it: Balanced since ESX(i) 5.0, High Performance
# on ESX 4.1 (vSphere Resource Management, "CPU Power Management Policies", the 8.0, 5.0 and 4.1
# editions). No edition before 4.1 is at hand: there the default stays unknown.
_DEFAULT_POLICY = ((Version(5, 0), "balanced"), (Version(4, 1), "high-performance"))
_POLICY_NAMES = {"balanced": "Balanced", "high-performance": "High Performance"}


def default_power_policy(version: Version) -> str | None:
    """ESXi's Power.CpuPolicy when nobody changed it, where a document states it."""
    return next((policy for since, policy in _DEFAULT_POLICY if version >= since), None)


def power_facts(host: Host, version: Version) -> dict[str, Any]:
    """The host's power policy: as stated, or ESXi's default named as assumed (never as a fact
    about the host: `host.power_policy_stated` tells the rules which)."""
    stated = host.power_policy
    policy = stated or default_power_policy(version)
    if stated is not None:
        text = f"'{stated}'"
    elif policy is not None:
        text = f"not given; ESXi {version}'s default, {_POLICY_NAMES[policy]}, is assumed"
    else:
        text = f"not given, and no document at hand states ESXi {version}'s default"
    return {
        "host.power_policy": policy,
        "host.power_policy_stated": stated is not None,
        "host.power_policy_text": text,
    }


def host_facts(host: Host, version: Version) -> dict[str, Any]:
    gpu = host.gpus[0].model if host.gpus else None
    ccx, nps, sub_numa = numa_mode_facts(host.numa_mode)
    return {
        **power_facts(host, version),
        "host.memory_tiering": host.memory_tiering,
        "host.ccx_as_numa": ccx,
        "host.nps": nps,
        "host.sub_numa": sub_numa,
        "host.name": host.name,
        "host.sockets": host.sockets,
        "host.cores": host.cores,
        "host.logical_cpus": host.logical_cpus,
        "host.nodes": host.nodes,
        "host.cores_per_node": host.cores_per_node,
        "host.threads_per_node": host.threads_per_node,
        "host.memory_mib": host.memory,
        "host.memory_per_node_mib": host.memory_per_node,
        "host.core_mhz": host.core_mhz,
        "host.max_freq_pct": host.max_freq_pct if host.max_freq_pct is not None else 100,
        "host.bios_power": host.bios_power,
        # With the BIOS in charge ESXi shows only "Not Supported" (or High Performance) and its
        # policy and Power.* settings cannot act (vSphere Resource Management, "Select a CPU
        # Power Management Policy"); unset means not stated, taken as OS-controlled.
        "host.bios_owns_power": host.bios_power not in (None, "os-controlled"),
        "host.ht": host.threads_per_core > 1,
        "host.deep_cstates": host.deep_cstates,
        "host.turbo": host.turbo,
        "host.gpu_model": gpu,
        "host.gpus": sum(g.count for g in host.gpus),
    }


@lru_cache(maxsize=1)
def clock_bounds() -> tuple[int, int]:
    """The nominal core clock every server core lies within (rules/limits/hardware.yaml)."""
    row = limits_table("hardware")["core_clock_mhz"]
    return int(row["min"]), int(row["max"])


def clock_facts(vm: VM, host: Host | None, limit: int | None, reserved: int | None) -> dict[str, Any]:
    """A CPU limit or reservation judged against the core clock, decided without a host where
    the outcome is the same for every clock in clock_bounds() (issue 35, class 8): a limit of
    276 MHz per vCPU is below any server core, 17.7 GHz on one vCPU above any. None (unknown)
    where the clock is unknown and the outcome depends on it, or the setting is unknown."""
    mhz = host.core_mhz if host is not None else None
    low, high = (mhz, mhz) if mhz else clock_bounds()
    v = vm.vcpus
    below: bool | None = None
    if limit is not None:
        below = False if limit <= 0 else True if limit < v * low else False if limit >= v * high else None
    above: bool | None = None
    if reserved is not None:
        above = True if reserved > v * high else False if reserved <= v * low else None
    return {
        "vm.cpu_limit_below_vcpus": below,
        "vm.cpu_reservation_above_vcpus": above,
        "vm.core_clock_text": f"{mhz} MHz" if mhz else f"any server core's {low}-{high} MHz",
        # The fix writes a full reservation only where the clock is known (it is vCPUs x clock).
        "vm.cpu_reservation_fix": "full" if mhz else None,
    }


def tiering_facts(vm: VM, host: Host | None) -> dict[str, Any]:
    """Memory tiering and the VM's active memory (issue 35, class 9). Broadcom sizes memory
    tiering so that active memory fits half the DRAM (the default 1:1 DRAM:NVMe ratio puts the
    other half on NVMe): a VM whose own active memory exceeds half the host's DRAM breaks that
    whatever else runs there. Decided False on a host without tiering; unknown on a tiering host
    when the VM's active memory is not stated."""
    if host is None:
        return {"vm.active_memory_over_tier": None}
    if not host.memory_tiering:
        return {"vm.active_memory_over_tier": False}
    active = vm.active_memory
    return {"vm.active_memory_over_tier": None if active is None else active * 2 > host.memory}
