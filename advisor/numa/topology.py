"""Predict the virtual NUMA topology ESXi builds for a VM on a host, per vSphere version.

The model follows VMware's documented behaviour (sources in shared/reference/vsphere-facts.md
§1 and sources.md, and 001_a02093f92473a34b.txt for the 5.5 layouts). Where ESXi's behaviour is
not documented, the prediction says so in `uncertain` rather than pretending to know, and no
rule warns from an uncertain detail.

The prediction runs in named steps, each in its own module:

1. controls (advisor.numa.controls): the VM's numa.* keys over the host's settings;
2. layout (advisor.numa.layout): the virtual nodes the guest sees and the NUMA clients;
3. presentation (here): the sockets × cores the guest sees;
4. placement and memory (advisor.numa.memory): the nodes the clients land on, local memory.

Vocabulary: a *virtual node* (VPD) is what the guest sees as a NUMA node; a *NUMA client* (PPD)
is the group of vCPUs the NUMA scheduler homes on one physical node.
"""

from __future__ import annotations

from typing import NamedTuple

from advisor.model.spec import VM, Host
from advisor.model.versions import Version
from advisor.numa.controls import DEFAULT_VCPU_MIN, V8, V65, NumaControls, read_controls
from advisor.numa.layout import Layout, layout_text, split_even, split_fill, virtual_layout
from advisor.numa.memory import MEMORY_REASON, affinity_nodes, memory_reason, memory_split, place_clients

__all__ = [
    "DEFAULT_VCPU_MIN",
    "V8",
    "V65",
    "Topology",
    "layout_text",
    "place_clients",
    "predict",
    "remote_mib",
    "split_even",
    "split_fill",
    "with_memory",
]


class Topology(NamedTuple):
    """What the guest sees and where ESXi homes the VM's vCPUs and memory.
    (A NamedTuple: see CONTRIBUTING.md, "Add a class on `check`'s path"; with_memory copies one with _replace.)"""

    vcpus: int
    sockets: int
    cores_per_socket: int
    cores_per_socket_source: str  # "explicit" | "default" | "assigned at power-on"
    vnuma_exposed: bool
    vnuma_nodes: tuple[int, ...]  # vCPUs per virtual node
    numa_clients: tuple[int, ...]  # vCPUs per NUMA client
    client_nodes: tuple[int, ...]  # physical node chosen for each client (this VM alone)
    physical_nodes_spanned: int
    uses_hyperthreads: bool
    numa_managed: bool
    client_capacity: int  # largest client ESXi builds (cores, or threads with preferHT)
    prefer_ht: bool
    memory_per_node_mib: int
    memory_local_mib: int
    memory_remote_mib: int
    memory_interleaved: bool
    reasons: tuple[str, ...] = ()
    uncertain: tuple[str, ...] = ()
    # vNUMA nodes follow virtual sockets: before 6.5, or numa.vcpu.followcorespersocket /
    # Numa.FollowCoresPerSocket (facts read this, so the fact and the layout cannot disagree).
    follows_cores_per_socket: bool = False
    # numa.nodeAffinity: the only physical nodes ESXi may home the VM's clients on, for CPU and
    # memory (vSphere Resource Management, "Specifying NUMA Controls", GUID-68817061); None: any.
    node_affinity: tuple[int, ...] | None = None

    @property
    def balanced(self) -> bool:
        return self.vnuma_balanced and len(set(self.numa_clients)) <= 1

    @property
    def vnuma_balanced(self) -> bool:
        """Every virtual node the guest sees holds the same number of vCPUs. Certain even where
        the 6.5+ spread of a remainder is not documented: a count that does not divide over the
        nodes leaves them unequal however it is spread."""
        return not self.vnuma_exposed or len(set(self.vnuma_nodes)) <= 1

    @property
    def wide(self) -> bool:
        return len(self.numa_clients) > 1

    def summary(self) -> str:
        """`64 vCPU → 7 vNUMA nodes [10×6, 4] over 4 physical nodes`."""
        if self.vnuma_exposed:
            head = f"{self.vcpus} vCPU → {len(self.vnuma_nodes)} vNUMA nodes [{layout_text(self.vnuma_nodes)}]"
        else:
            head = f"{self.vcpus} vCPU → no vNUMA (guest sees 1 node)"
        if not self.numa_managed:
            return head + ", not NUMA-managed (CPU affinity)"
        clients = f"{len(self.numa_clients)} NUMA client{'s' if len(self.numa_clients) != 1 else ''}"
        nodes = f"{self.physical_nodes_spanned} physical node{'s' if self.physical_nodes_spanned != 1 else ''}"
        tail = (
            f" over {nodes}"
            if len(self.numa_clients) == len(self.vnuma_nodes) and self.vnuma_exposed
            else f", {clients} over {nodes}"
        )
        return (
            head
            + tail
            + f"; {self.sockets} socket{'s' if self.sockets != 1 else ''}"
            + f" × {self.cores_per_socket} core{'s' if self.cores_per_socket != 1 else ''}"
        )

    def as_dict(self) -> dict[str, object]:
        return {
            "vcpus": self.vcpus,
            "sockets": self.sockets,
            "cores_per_socket": self.cores_per_socket,
            "cores_per_socket_source": self.cores_per_socket_source,
            "vnuma_exposed": self.vnuma_exposed,
            "vnuma_nodes": list(self.vnuma_nodes),
            "numa_clients": list(self.numa_clients),
            "physical_nodes_spanned": self.physical_nodes_spanned,
            "uses_hyperthreads": self.uses_hyperthreads,
            "numa_managed": self.numa_managed,
            "prefer_ht": self.prefer_ht,
            "balanced": self.balanced,
            "memory_local_mib": self.memory_local_mib,
            "memory_remote_mib": self.memory_remote_mib,
            "memory_interleaved": self.memory_interleaved,
            "summary": self.summary(),
            "reasons": list(self.reasons),
            "uncertain": list(self.uncertain),
        }


def _presentation(vm: VM, lay: Layout, c: NumaControls) -> tuple[int, int, str, str | None]:
    """Step 3: cores per socket and sockets the guest sees, where the value came from, and an
    uncertainty when vSphere 8 picks the value at power-on (its rule is not documented)."""
    v, note = vm.vcpus, None
    if vm.cores_per_socket:
        cps, source = vm.cores_per_socket, "explicit"
    elif c.vtopology:
        cps = lay.vnodes[0] if len(set(lay.vnodes)) == 1 else 1
        source = "assigned at power-on"
        note = ("vSphere 8 picks cores per socket at power-on; VMware does not document the choice "
                f"(shown: one socket per vNUMA node, {cps} cores)")
    else:
        cps, source = 1, "default"
    if v % cps:
        cps = 1
    return cps, v // cps, source, note


def predict(host: Host, vm: VM, version: Version) -> Topology:
    """The topology ESXi builds for `vm` on `host` under `version` (steps 1-4 above)."""
    v = vm.vcpus
    c = read_controls(host, vm, version)
    lay = virtual_layout(host, v, vm.memory, vm.cores_per_socket, c, version)
    reasons: list[str] = []
    if c.prefer_ht:
        reasons.append(f"preferHT: NUMA clients may hold a node's {host.threads_per_node} threads, not just its "
                       f"{host.cores_per_node} cores" + (" (host Numa.PreferHT)" if c.prefer_ht_from_host else ""))
    reasons += [*c.capacity_reasons, *lay.reasons]
    uncertain = list(lay.uncertain)
    cps, sockets, cps_source, note = _presentation(vm, lay, c)
    if note:
        uncertain.append(note)

    if not c.numa_managed:
        spanned = affinity_nodes(c.affinity, host, uncertain)
        client_nodes: tuple[int, ...] = ()
        reasons.append("CPU affinity takes the VM out of NUMA management: ESXi no longer chooses its nodes")
        uses_ht = v > host.cores_per_node * max(spanned, 1)
        clients: tuple[int, ...] = ()
    else:
        clients = lay.clients
        client_nodes = place_clients(clients, host.nodes, allowed=c.node_affinity)
        if c.node_affinity:
            reasons.append(f"numa.nodeAffinity keeps the VM on node{'s' if len(c.node_affinity) > 1 else ''} "
                           + ", ".join(map(str, c.node_affinity)))
        spanned = len(set(client_nodes))
        load = [0] * host.nodes
        for size, node in zip(clients, client_nodes, strict=True):
            load[node] += size
        uses_ht = max(load) > host.cores_per_node

    local, remote = memory_split(vm.memory, clients or (v,), client_nodes or (0,), host, v, lay.interleaved)
    if remote:
        reasons.append(memory_reason(vm.memory, host, remote))
    return Topology(
        vcpus=v,
        sockets=sockets,
        cores_per_socket=cps,
        cores_per_socket_source=cps_source,
        vnuma_exposed=lay.exposed,
        vnuma_nodes=lay.vnodes,
        numa_clients=clients,
        client_nodes=client_nodes,
        physical_nodes_spanned=spanned,
        uses_hyperthreads=uses_ht,
        numa_managed=c.numa_managed,
        client_capacity=c.capacity,
        prefer_ht=c.prefer_ht,
        memory_per_node_mib=host.memory_per_node,
        memory_local_mib=local,
        memory_remote_mib=remote,
        memory_interleaved=lay.interleaved,
        reasons=tuple(reasons),
        uncertain=tuple(uncertain),
        follows_cores_per_socket=c.follow_cps,
        node_affinity=c.node_affinity if c.numa_managed else None,
    )


def with_memory(topo: Topology, host: Host, memory: int) -> Topology:
    """The same layout for a VM with another amount of memory (only the memory split differs).

    Estates repeat a vCPU shape with many memory sizes; this spares a full predict() each.
    (A VM with numa.consolidate = FALSE is laid out by its memory: facts never reuse its shape.)
    """
    local, remote = _split(topo, host, memory)
    reasons = tuple(r for r in topo.reasons if MEMORY_REASON not in r)
    if remote:
        reasons += (memory_reason(memory, host, remote),)
    return topo._replace(memory_local_mib=local, memory_remote_mib=remote, reasons=reasons)


def remote_mib(topo: Topology, host: Host, memory: int) -> int:
    """The remote memory of the same layout with another amount of memory (see with_memory)."""
    return _split(topo, host, memory)[1]


def _split(topo: Topology, host: Host, memory: int) -> tuple[int, int]:
    return memory_split(memory, topo.numa_clients or (topo.vcpus,), topo.client_nodes or (0,), host,
                        topo.vcpus, topo.memory_interleaved)
