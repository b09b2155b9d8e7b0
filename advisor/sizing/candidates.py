"""What `advisor size` is asked and answers (Request, Proposal, Sizing), the host geometry it
works in, and the candidate vCPU counts per shape kind."""

from __future__ import annotations

import math
from dataclasses import dataclass, field
from typing import Any

from advisor.model.recommendation import RecommendedVM
from advisor.model.spec import Host
from advisor.model.versions import Version
from advisor.numa.topology import Topology
from advisor.sizing.shapes import WorkloadSizing
from advisor.vmx.recommendation import to_vmx

# --- the request and what comes back --------------------------------------------------------


@dataclass(frozen=True)
class Request:
    workload: str
    vcpus: int | None = None
    vms: int | None = None
    total_vcpus: int | None = None
    memory_mib: int | None = None
    headroom_pct: int = 0
    version: Version | None = None


@dataclass
class Candidate:
    kind: str
    vcpus: int
    prefer_ht: bool
    index: int  # position of its shape in the workload's list (requested/fit: -1)
    params: dict[str, Any] = field(default_factory=dict)
    per_node: int | None = None


@dataclass
class Proposal:
    kind: str
    vcpus: int
    count: int
    prefer_ht: bool
    cores_per_socket: int
    memory_mib: int
    topology: Topology
    node_load: list[int]
    clients_per_node: list[int]
    balanced: bool
    explanation: list[str]
    spec: dict[str, Any]  # the spec `--emit-spec` writes (host by reference where possible)
    host_changes: dict[str, tuple[Any, Any]]  # field -> (profile value, proposed value)
    recommendation: RecommendedVM  # what `advisor vmx` would write for the proposal's VM
    recommended_guest: dict[str, Any]
    info: list[str]  # info-level findings on the emitted spec: rule id and message
    memory_local: bool = True  # memory fits the nodes the VM spans, shared with the VMs homed there
    other_hosts: list[dict[str, Any]] = field(default_factory=list)
    sort_key: tuple[Any, ...] = ()

    @property
    def recommended_vmx(self) -> dict[str, str]:
        """The recommendation's .vmx keys (the JSON report's `recommended_vmx`)."""
        return to_vmx(self.recommendation)

    @property
    def label(self) -> str:
        return f"{self.count} × {self.vcpus} vCPU" + (" (preferHT)" if self.prefer_ht else "")


@dataclass
class Rejected:
    label: str
    reasons: list[str]  # "NUMA001: message" or a plain sentence


@dataclass
class Sizing:
    request: Request
    workload: WorkloadSizing
    host: Host  # the host the shapes are sized for (the smallest, in a cluster)
    hosts: list[Host]
    version: Version
    hardware_version: int
    proposals: list[Proposal]
    rejected: list[Rejected]
    notes: list[str]
    capacity: dict[str, Any]


# --- geometry -------------------------------------------------------------------------------


@dataclass(frozen=True)
class Geometry:
    """What one host offers a workload: vCPUs per node and memory after ESXi's share."""

    host: Host
    node_cap: int  # vCPUs a node may carry for this workload (after headroom and spare cores)
    usable_mib: int  # host memory for VMs (after headroom and ESXi's reserve)

    @classmethod
    def of(cls, host: Host, wl: WorkloadSizing, headroom_pct: int, reserve_mib: int) -> Geometry:
        if wl.vcpu_per_core == "threads":
            per_node = host.threads_per_node
        elif wl.vcpu_per_core == "cores":
            per_node = host.cores_per_node
        else:
            per_node = int(host.cores_per_node * float(wl.vcpu_per_core))
        per_node -= wl.spare_cores * (per_node // host.cores_per_node if per_node >= host.cores_per_node else 1)
        node_cap = max(0, math.floor(per_node * (100 - headroom_pct) / 100))
        usable = math.floor(host.memory * (100 - headroom_pct) / 100) - reserve_mib
        return cls(host, node_cap, max(0, usable))

    @property
    def host_cap(self) -> int:
        return self.node_cap * self.host.nodes

    @property
    def ratio_text(self) -> str:
        return f"{self.host_cap / self.host.cores:.2f}:1"


def smallest(hosts: list[Host]) -> Host:
    """The host whose NUMA nodes are smallest: shapes that fit it fit every host of the cluster."""
    return min(hosts, key=lambda h: (h.cores_per_node, h.threads_per_node, h.memory_per_node, h.nodes, h.cores))


# --- candidates -----------------------------------------------------------------------------


def _needs_prefer_ht(host: Host, vcpus: int) -> bool:
    """preferHT keeps the VM on fewer nodes (counting threads) than cores alone would."""
    if host.threads_per_core < 2:
        return False
    return math.ceil(vcpus / host.threads_per_node) < math.ceil(vcpus / host.cores_per_node)


def _even(n: int) -> int:
    return n if n <= 1 or n % 2 == 0 else n - 1


def candidates(geo: Geometry, wl: WorkloadSizing, req: Request) -> list[Candidate]:
    host = geo.host
    c, t, n = host.cores_per_node, host.threads_per_node, host.nodes
    ht = host.threads_per_core > 1
    out: list[Candidate] = []
    for index, shape in enumerate(wl.shapes):
        k = shape.kind
        if k == "node":
            out.append(Candidate(k, min(c, geo.node_cap), False, index, per_node=shape.per_node))
        elif k == "node-ht" and ht and geo.node_cap > c:
            out.append(Candidate(k, min(t, geo.node_cap), True, index, per_node=shape.per_node))
        elif k == "split" and shape.by and c // shape.by >= 1:
            out.append(Candidate(k, min(c, geo.node_cap) // shape.by, False, index, {"by": shape.by}, shape.per_node))
        elif k in ("span", "span-ht") and (k == "span" or ht):
            per = c if k == "span" else t
            for m in range(2, n + 1):
                if n % m == 0:
                    out.append(Candidate(k, m * min(per, geo.node_cap), k == "span-ht", index, {"nodes_per_vm": m},
                                         shape.per_node))
        elif k == "per-socket" and shape.vms:
            socket_cap = geo.node_cap * host.numa_nodes_per_socket
            v = _even(socket_cap // shape.vms)
            if v >= 1:
                out.append(Candidate(k, v, _needs_prefer_ht(host, v), index,
                                     {"vms": shape.vms, "socket_capacity": socket_cap}, shape.per_node))
        elif k == "fixed" and shape.vcpus:
            out.append(Candidate(k, shape.vcpus, False, index, per_node=shape.per_node))
    if req.vcpus:
        out.insert(0, Candidate("requested", req.vcpus, False, -1))
        if _needs_prefer_ht(host, req.vcpus):
            out.insert(1, Candidate("requested", req.vcpus, True, -1))
    if req.vms:
        out.extend(_fit_candidates(geo, req.vms))
    if req.total_vcpus:
        out.extend(_total_candidates(geo, req.total_vcpus))
    return [cand for cand in out if cand.vcpus >= 1]


def _fit_candidates(geo: Geometry, vms: int) -> list[Candidate]:
    """Sizes that let exactly `vms` VMs share the host's nodes evenly."""
    host, out = geo.host, []
    n = host.nodes
    if vms >= n and vms % n == 0:
        per_node = vms // n
        v = geo.node_cap // per_node
        v = v if v <= host.cores_per_node else _even(v)
        out.append(Candidate("fit", v, _needs_prefer_ht(host, v), -1, {"vms": vms}))
        if v > host.cores_per_node:
            out.append(Candidate("fit", host.cores_per_node, False, -1, {"vms": vms}))
    elif vms < n and n % vms == 0:
        m = n // vms
        for per, ht in ((min(host.cores_per_node, geo.node_cap), False), (geo.node_cap, True)):
            if per >= 1 and (not ht or geo.node_cap > host.cores_per_node):
                out.append(Candidate("fit", m * per, ht and _needs_prefer_ht(host, m * per), -1, {"vms": vms}))
    return out


def _total_candidates(geo: Geometry, total: int) -> list[Candidate]:
    """Sizes that split a total over a whole number of VMs per node (or of nodes per VM)."""
    host, out = geo.host, []
    n = host.nodes
    counts = sorted({n // d for d in range(1, n + 1) if n % d == 0} | {n * j for j in range(1, 9)})
    for k in counts:
        v = math.ceil(total / k)
        v = v if v <= host.cores_per_node else v + (v % 2)
        if v >= 1 and k * v <= geo.host_cap:
            out.append(Candidate("fit", v, _needs_prefer_ht(host, v), -1, {"vms": k}))
    return out
