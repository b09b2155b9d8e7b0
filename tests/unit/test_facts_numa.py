"""Facts added for the NUMA / cores-per-socket rules: client layout and the aligned cores per socket."""

from __future__ import annotations

from pathlib import Path

import pytest

from advisor.facts.facts import facts_for, socket_per_vnode
from advisor.load.hosts import BUNDLED
from advisor.model.spec import VM, Host
from advisor.model.versions import Version

# Two 20-core sockets on 7.0: the host of Denneman's 30-vCPU cores-per-socket example.
TWO_BY_20 = Host.model_validate({"name": "two-by-20", "sockets": 2, "cores_per_socket": 20,
                                 "threads_per_core": 2, "memory": "512GB", "esxi": "7.0"})


def facts(host: Host, version: Version | None = None, **vm: object) -> dict:
    model = VM.model_validate({"name": "vm", "memory": "64GB", **vm})
    out, _ = facts_for(host, model, version or host.esxi)
    return out


@pytest.mark.parametrize(("vnodes", "vcpus", "expected"), [
    ((8, 8, 8, 8), 32, 8),      # equal nodes: one socket per node
    ((15, 15), 30, 15),
    ((10,) * 6 + (4,), 64, 1),  # unequal nodes: no single socket size fits, keep the default
    ((12,), 12, 12),            # one node: one socket
    ((), 4, 1),
])
def test_socket_per_vnode(vnodes, vcpus, expected):
    assert socket_per_vnode(vnodes, vcpus) == expected


@pytest.mark.parametrize(("cps", "clients", "unbalances"), [
    (2, "16, 14", True),   # 15 two-core sockets cannot split evenly over two clients
    (6, "18, 12", True),   # five six-core sockets: 3 + 2
    (15, "15×2", False),   # one socket per node
])
def test_cores_per_socket_shapes_clients_on_7_0(cps, clients, unbalances):
    f = facts(TWO_BY_20, vcpus=30, cores_per_socket=cps)
    assert f["topo.clients_layout"] == clients
    assert f["topo.cps_unbalances"] is unbalances
    assert f["topo.aligned_cores_per_socket"] == 15
    assert f["topo.cps_layout_default"] == "15×2"


def test_aligned_cores_per_socket_without_an_explicit_value():
    dl580 = BUNDLED.resolve("hp-dl580-g7", Path.cwd(), "host", None)
    assert facts(dl580, vcpus=32)["topo.aligned_cores_per_socket"] == 8    # 4 vNUMA nodes of 8
    assert facts(dl580, vcpus=64)["topo.aligned_cores_per_socket"] == 1    # [10×6, 4]
    assert facts(dl580, vcpus=8)["topo.aligned_cores_per_socket"] == 8     # fits a node: one socket
    assert facts(dl580, vcpus=64)["topo.clients_layout"] == "10×6, 4"


def test_client_layout_is_empty_when_affinity_pins_the_vm():
    dl580 = BUNDLED.resolve("hp-dl580-g7", Path.cwd(), "host", None)
    assert facts(dl580, vcpus=4, cpu_affinity="0-3")["topo.clients_layout"] == ""
