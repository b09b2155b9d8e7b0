"""The VM settings of one proposal: shapes.yaml's VM fields merged and filled from the VM's
facts, devices the hardware version has, and one virtual socket per vNUMA node."""

from __future__ import annotations

import copy
from typing import Any

from advisor.model.versions import hw_feature
from advisor.numa.topology import Topology


def merge(base: dict[str, Any], extra: dict[str, Any]) -> dict[str, Any]:
    out = copy.deepcopy(base)
    for key, value in extra.items():
        if isinstance(value, dict) and isinstance(out.get(key), dict):
            out[key] = merge(out[key], value)
        else:
            out[key] = copy.deepcopy(value)
    return out


def fill(value: Any, facts: dict[str, Any]) -> Any:
    """Resolve "{fact.name}" placeholders in shapes.yaml VM settings from the VM's facts."""
    if isinstance(value, dict):
        return {k: fill(v, facts) for k, v in value.items()}
    if isinstance(value, list):
        return [fill(v, facts) for v in value]
    if isinstance(value, str) and value.startswith("{") and value.endswith("}"):
        return facts.get(value[1:-1], value)
    return value


def devices_for_hardware(vm: dict[str, Any], hw: int) -> None:
    """Paravirtual devices only where the hardware version has them (ESX 3.5 has neither)."""
    if not hw_feature(hw, "pvscsi"):
        for disk in vm.get("disks", []):
            if disk.get("controller") == "pvscsi":
                disk["controller"] = "lsilogic"
    if not hw_feature(hw, "vmxnet3"):
        for nic in vm.get("nics", []):
            if nic.get("adapter") == "vmxnet3":
                nic["adapter"] = "vmxnet"


def cores_per_socket(topo: Topology) -> int:
    """One virtual socket per vNUMA node (a single-node VM: one socket)."""
    from advisor.facts.facts import socket_per_vnode

    if not topo.vnuma_exposed:
        return topo.vcpus
    return socket_per_vnode(topo.vnuma_nodes, topo.vcpus)
