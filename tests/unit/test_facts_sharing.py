"""The engine's shared facts cache (one per host and version) gives every VM the facts it would
get alone: each cached value is keyed on everything it reads (advisor.facts.topology.layout_key)."""

from __future__ import annotations

from typing import Any

import pytest

from advisor.facts.facts import facts_for, predicted
from advisor.model.spec import VM, Host
from advisor.model.versions import Version

# Two sockets of 12 cores with 128 GB each, on vSphere 8 (vtopology, allowHotadd and the
# preferHT what-if all apply): a 14-vCPU VM spans both nodes, or one node's threads with preferHT.
HOST = Host.model_validate({"name": "two-by-12", "sockets": 2, "cores_per_socket": 12, "threads_per_core": 2,
                            "memory": "256GB", "esxi": "8.0"})
BASE: dict[str, Any] = {"vcpus": 14, "memory": "64GB", "hardware_version": 19, "memory_bound": True}

# Each variant differs from BASE in one field or key the topology prediction or its what-ifs read.
VARIANTS: list[dict[str, Any]] = [
    {}, {"memory": "200GB"}, {"memory": "8GB"}, {"vcpus": 16}, {"vcpus": 28}, {"cores_per_socket": 7},
    {"cores_per_socket": 2}, {"hardware_version": 7}, {"hardware_version": 8}, {"hardware_version": 20},
    {"hardware_version": None}, {"cpu_hot_add": True}, {"cpu_affinity": "0-3"}, {"cpu_affinity": " ALL "},
    {"cpu_hot_add": True, "hardware_version": 20, "advanced": {"numa.allowHotadd": "TRUE"}},
    *({"advanced": {key: value}} for key, value in [
        ("numa.vcpu.preferHT", "TRUE"), ("numa.vcpu.preferHT", "FALSE"), ("numa.vcpu.maxPerClient", "7"),
        ("numa.vcpu.maxPerMachineNode", "8"), ("numa.vcpu.min", "20"), ("numa.vcpu.coresPerNode", "7"),
        ("numa.vcpu.maxPerVirtualNode", "7"), ("numa.autosize.vcpu.maxPerVirtualNode", "7"),
        ("numa.autosize.once", "FALSE"), ("numa.vcpu.followcorespersocket", "TRUE"),
        ("numa.consolidate", "FALSE"), ("numa.nodeAffinity", "1")]),
    {"advanced": {"numa.consolidate": "FALSE"}, "memory": "200GB"},
    {"advanced": {"numa.autosize.vcpu.maxPerVirtualNode": "7"}, "cores_per_socket": 2},
]


def _vms() -> list[VM]:
    return [VM.model_validate({"name": f"vm{i}", **BASE, **variant}) for i, variant in enumerate(VARIANTS)]


@pytest.mark.self_compare
@pytest.mark.parametrize("order", [1, -1], ids=["in-order", "reversed"])
def test_each_vm_gets_its_own_facts_through_the_shared_cache(order: int):
    vms = _vms()[::order]
    version = Version(8, 0)
    cache: dict[tuple[Any, ...], Any] = {}
    for vm in vms:  # the engine's placement pass comes first
        predicted(HOST, vm, version, cache=cache)
    for vm in vms:
        shared, shared_topo = facts_for(HOST, vm, version, cache=cache)
        alone, alone_topo = facts_for(HOST, vm, version)
        assert shared_topo == alone_topo, vm.name
        assert shared == alone, vm.name
        assert list(shared) == list(alone), vm.name  # the same facts in the same order


def test_the_variants_tell_the_cached_facts_apart():
    """The variants above are not all one layout: the test compares facts that differ."""
    version = Version(8, 0)
    keys = ("topo.layout", "topo.clients_layout", "topo.prefer_ht_memory_fits", "topo.exposed", "topo.summary")
    seen = {tuple(facts_for(HOST, vm, version)[0][k] for k in keys) for vm in _vms()}
    assert len(seen) >= 10


def test_prefer_ht_memory_fit_is_each_vms_own():
    """Two VMs of one layout, one whose memory fits one node and one whose memory does not: the
    preferHT what-if (NUMA004's condition) tells them apart whichever comes first."""
    version = Version(8, 0)
    small, big = (VM.model_validate({"name": name, **BASE, "memory": memory})
                  for name, memory in (("small", "64GB"), ("big", "200GB")))
    for first, second in ((small, big), (big, small)):
        cache: dict[tuple[Any, ...], Any] = {}
        fits = {vm.name: facts_for(HOST, vm, version, cache=cache)[0]["topo.prefer_ht_memory_fits"]
                for vm in (first, second)}
        assert fits == {"small": True, "big": False}
