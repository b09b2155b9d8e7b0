"""The layouts shown beside a VM's own: what numa.vcpu.preferHT = TRUE would build instead.

ESXi sizes NUMA clients by a node's cores unless numa.vcpu.preferHT (per VM) or
Numa.PreferHT (per host) lets them count hyper-threads; for a VM wider than a node's cores
that can turn unequal vNUMA nodes into equal ones (001_a02093f92473a34b.txt, "1 VM x 64 vCPU
Configuration": [10×6, 4] by default, [16×4] with preferHT on the DL580 G7). `advisor topology`
draws the two side by side and the HTML report pictures them.
"""

from __future__ import annotations

from advisor.model.spec import VM, Host
from advisor.model.versions import Version
from advisor.numa.topology import Topology, predict

PREFER_HT_TITLE = "with numa.vcpu.preferHT = TRUE"


def prefer_ht_variant(host: Host, vm: VM, version: Version, current: Topology | None = None) -> Topology | None:
    """The same VM with numa.vcpu.preferHT = TRUE, when that changes its layout; None when the
    setting is already decided (by the VM or the host), the host has no hyper-threads, or the
    layout would not change."""
    if vm.setting("numa.vcpu.preferHT") is not None or host.prefer_ht or host.threads_per_core < 2:
        return None
    current = current or predict(host, vm, version)
    # Shallow: predict() only reads the VM (a deep copy of every field cost more than the
    # prediction); the copy gets its own private dict, without the VM's cached advanced keys.
    variant = vm.model_copy(update={"advanced": {**vm.advanced, "numa.vcpu.preferHT": "TRUE"}})
    if variant.__pydantic_private__ is not None:
        variant.__pydantic_private__.pop("_adv", None)
    alt = predict(host, variant, version)
    if alt.vnuma_nodes == current.vnuma_nodes and alt.numa_clients == current.numa_clients:
        return None
    return alt


def better_prefer_ht(host: Host, vm: VM, version: Version, current: Topology) -> Topology | None:
    """The preferHT layout when it balances an unbalanced one: the layout to recommend."""
    if current.balanced:
        return None
    alt = prefer_ht_variant(host, vm, version, current)
    return alt if alt is not None and alt.balanced else None
