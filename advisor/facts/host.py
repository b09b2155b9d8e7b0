"""Facts about the host and the vSphere version: capacity, power settings, per-version maxima."""

from __future__ import annotations

from functools import lru_cache
from typing import Any

from advisor.model.spec import Host
from advisor.model.versions import Version, ft_limits, limits_for


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
    return {
        **power_facts(host, version),
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

