"""Predict the virtual NUMA topology ESXi builds for a VM on a host, per vSphere version.

The model follows VMware's documented behaviour (sources in shared/reference/vsphere-facts.md
§1 and §9, and 001_a02093f92473a34b.txt for the 5.5 layouts). Where ESXi's behaviour is not
documented, the prediction says so in `uncertain` rather than pretending to know.

Vocabulary: a *virtual node* (VPD) is what the guest sees as a NUMA node; a *NUMA client* (PPD)
is the group of vCPUs the NUMA scheduler homes on one physical node.
"""

from __future__ import annotations

import math
from collections.abc import Iterable
from dataclasses import dataclass, field, replace

from advisor.model.spec import VM, Host
from advisor.model.versions import Version
from advisor.vocab import read_bool

V65 = Version(6, 5)
V8 = Version(8, 0)
DEFAULT_VCPU_MIN = 9


@dataclass(frozen=True, slots=True)
class Topology:
    """What the guest sees and where ESXi homes the VM's vCPUs and memory."""

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
    reasons: tuple[str, ...] = field(default=())
    uncertain: tuple[str, ...] = field(default=())
    # vNUMA nodes follow virtual sockets: before 6.5, or numa.vcpu.followcorespersocket /
    # Numa.FollowCoresPerSocket (facts read this, so the fact and the layout cannot disagree).
    follows_cores_per_socket: bool = False

    @property
    def balanced(self) -> bool:
        return len(set(self.vnuma_nodes)) <= 1 and len(set(self.numa_clients)) <= 1

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


def layout_text(sizes: Iterable[int]) -> str:
    """[10,10,10,10,10,10,4] -> '10×6, 4': a vNUMA or client layout as people write it."""
    sizes = tuple(sizes)
    parts: list[str] = []
    i = 0
    while i < len(sizes):
        j = i
        while j < len(sizes) and sizes[j] == sizes[i]:
            j += 1
        parts.append(f"{sizes[i]}×{j - i}" if j - i > 1 else str(sizes[i]))
        i = j
    return ", ".join(parts)


def _flag(vm: VM, key: str) -> bool | None:
    """None when the VM does not set ``key``; otherwise whether it sets it to a true word."""
    text = vm.setting(key)
    return None if text is None else read_bool(text) is True


def _int_setting(vm: VM, key: str) -> int | None:
    text = vm.setting(key)
    if text is None:
        return None
    try:
        value = int(text.strip())
    except ValueError:
        return None
    return value if value > 0 else None


def split_fill(vcpus: int, node_size: int) -> tuple[int, ...]:
    """Nodes = ceil(v / size); each node ceil(v / nodes); the last takes the remainder.

    This reproduces every layout 001_a02093f92473a34b.txt states for vSphere 5.5 on 10-core
    nodes (16 → 8+8, 32 → 4×8, 64 → 6×10+4, 64 with preferHT → 4×16).
    """
    count = math.ceil(vcpus / node_size)
    size = math.ceil(vcpus / count)
    last = vcpus - size * (count - 1)
    if last <= 0:
        return split_even(vcpus, count)
    return tuple([size] * (count - 1) + [last])


def split_even(vcpus: int, count: int) -> tuple[int, ...]:
    base, extra = divmod(vcpus, count)
    return tuple(base + 1 if i < extra else base for i in range(count))


def _pack_sockets(vcpus: int, cps: int, clients: int) -> tuple[int, ...]:
    """Clients when whole virtual sockets must stay together (6.5+): 30 vCPU, CPS 2, 2 clients → 16+14."""
    sockets = vcpus // cps
    return tuple(s * cps for s in split_even(sockets, clients))


def predict(host: Host, vm: VM, version: Version) -> Topology:
    v = vm.vcpus
    reasons: list[str] = []
    uncertain: list[str] = []
    cores, threads = host.cores_per_node, host.threads_per_node
    hw = vm.hardware_version

    vm_pref = _flag(vm, "numa.vcpu.preferHT")
    prefer_ht = bool(vm_pref) if vm_pref is not None else host.prefer_ht
    cap = threads if prefer_ht else cores
    if prefer_ht:
        reasons.append(
            f"preferHT: NUMA clients may hold a node's {threads} threads, not just its {cores} cores"
            + (" (host Numa.PreferHT)" if vm_pref is None else "")
        )
    for key in ("numa.vcpu.maxPerMachineNode", "numa.vcpu.maxPerClient"):
        limit = _int_setting(vm, key)
        if limit and limit < cap:
            cap = limit
            reasons.append(f"{key} = {limit} limits each NUMA client to {limit} vCPUs")
    vcpu_min = _int_setting(vm, "numa.vcpu.min") or DEFAULT_VCPU_MIN

    follow_cps = version < V65 or bool(_flag(vm, "numa.vcpu.followcorespersocket")) or host.follow_cores_per_socket
    vtopology = version >= V8 and (hw is None or hw >= 20)
    cps_explicit = vm.cores_per_socket

    affinity = (vm.cpu_affinity or "").strip().lower()
    numa_managed = affinity in ("", "all")

    hot_add_blocks = vm.cpu_hot_add and not (version >= V8 and _flag(vm, "numa.allowHotadd"))
    # An unstated hardware version is taken to be a current one, as a newly built VM gets.
    exposed_possible = version >= Version(5, 0) and (hw is None or hw >= 8)

    memory_interleaved = False
    manual_why = ""
    node_size_override = _int_setting(vm, "numa.vcpu.maxPerVirtualNode")
    persisted = _int_setting(vm, "numa.autosize.vcpu.maxPerVirtualNode")
    cores_per_node_v8 = _int_setting(vm, "numa.vcpu.coresPerNode") if version >= V8 else None

    manual_size = None
    if exposed_possible and cores_per_node_v8 and vtopology and cores_per_node_v8 < v:
        manual_size = cores_per_node_v8
        manual_why = f"numa.vcpu.coresPerNode = {cores_per_node_v8} (vSphere 8 manual vNUMA) sets the node size"
    elif exposed_possible and node_size_override and node_size_override < v and v >= vcpu_min:
        manual_size = node_size_override
        manual_why = f"numa.vcpu.maxPerVirtualNode = {node_size_override} sets the node size"

    if not exposed_possible or (manual_size is None and (v < vcpu_min or v <= cap)):
        vnodes: tuple[int, ...] = (v,)
        clients = (v,) if v <= cap else split_even(v, math.ceil(v / cap))
        exposed = False
        if not exposed_possible:
            reasons.append("virtual hardware below version 8 (or ESX before 5.0) cannot expose vNUMA")
        elif v <= cap:
            reasons.append(f"{v} vCPU fit one NUMA node ({cap} {'threads' if prefer_ht else 'cores'}): no vNUMA needed")
        else:
            reasons.append(
                f"{v} vCPU is below numa.vcpu.min ({vcpu_min}): the guest sees one node, "
                f"though ESXi splits it into {len(clients)} NUMA clients"
            )
        if vm.cpu_hot_add and len(clients) > 1:
            memory_interleaved = True
    elif hot_add_blocks:
        vnodes = (v,)
        clients = split_even(v, math.ceil(v / cap))
        exposed = False
        memory_interleaved = len(clients) > 1
        reasons.append(
            "CPU hot-add disables vNUMA: the guest sees one node and memory is interleaved across "
            f"{len(clients)} NUMA clients (KB 2040375)"
            + ("; on vSphere 8 add numa.allowHotadd to keep vNUMA" if version >= V8 else "")
        )
    else:
        exposed = True
        if manual_size:
            vnodes = split_fill(v, manual_size)
            reasons.append(manual_why)
        elif persisted:
            vnodes = split_fill(v, persisted)
            reasons.append(
                f"numa.autosize.vcpu.maxPerVirtualNode = {persisted} was recorded at an earlier power-on; "
                "ESXi keeps that layout until the vCPU count changes (numa.autosize.once)"
            )
        elif follow_cps and cps_explicit and cps_explicit > 1:
            vnodes = tuple([cps_explicit] * (v // cps_explicit))
            why = (
                "before vSphere 6.5" if version < V65 else "numa.vcpu.followcorespersocket / Numa.FollowCoresPerSocket"
            )
            reasons.append(f"{why}, cores per socket ({cps_explicit}) sets the vNUMA node size")
        else:
            vnodes = split_fill(v, cap)
            reasons.append(
                f"{v} vCPU exceed a node's {cap} {'threads' if prefer_ht else 'cores'}: "
                f"{len(vnodes)} nodes of at most {max(vnodes)} (fewest nodes that fit)"
            )
            if version >= V65 and len(set(vnodes)) > 1:
                uncertain.append(
                    f"{v} is not divisible over {len(vnodes)} nodes; VMware does not document how 6.5+ "
                    "spreads the remainder (shown: fill each node, last takes the rest)"
                )
        clients = _clients_for(vnodes, v, cap, cores, host, version, follow_cps, cps_explicit, uncertain, reasons)

    # Presented sockets x cores.
    if cps_explicit:
        cps, cps_source = cps_explicit, "explicit"
    elif vtopology:
        cps = vnodes[0] if len(set(vnodes)) == 1 else 1
        cps_source = "assigned at power-on"
        uncertain.append(
            "vSphere 8 picks cores per socket at power-on; VMware does not document the choice "
            f"(shown: one socket per vNUMA node, {cps} cores)"
        )
    else:
        cps, cps_source = 1, "default"
    if v % cps:
        cps = 1
    sockets = v // cps

    if not numa_managed:
        spanned = _affinity_nodes(affinity, host, uncertain)
        client_nodes: tuple[int, ...] = ()
        reasons.append("CPU affinity takes the VM out of NUMA management: ESXi no longer chooses its nodes")
        uses_ht = v > cores * max(spanned, 1)
        clients_out: tuple[int, ...] = ()
    else:
        client_nodes = place_clients(clients, host.nodes)
        spanned = len(set(client_nodes))
        load = [0] * host.nodes
        for size, node in zip(clients, client_nodes, strict=False):
            load[node] += size
        uses_ht = max(load) > cores
        clients_out = clients

    local, remote = _memory(vm.memory, clients_out or (v,), client_nodes or (0,), host, v, memory_interleaved)
    if remote:
        reasons.append(_memory_reason(vm.memory, host, remote))
    return Topology(
        vcpus=v,
        sockets=sockets,
        cores_per_socket=cps,
        cores_per_socket_source=cps_source,
        vnuma_exposed=exposed,
        vnuma_nodes=vnodes,
        numa_clients=clients_out,
        client_nodes=client_nodes,
        physical_nodes_spanned=spanned,
        uses_hyperthreads=uses_ht,
        numa_managed=numa_managed,
        client_capacity=cap,
        prefer_ht=prefer_ht,
        memory_per_node_mib=host.memory_per_node,
        memory_local_mib=local,
        memory_remote_mib=remote,
        memory_interleaved=memory_interleaved,
        reasons=tuple(reasons),
        uncertain=tuple(uncertain),
        follows_cores_per_socket=follow_cps,
    )


def _clients_for(
    vnodes: tuple[int, ...], v: int, cap: int, cores: int, host: Host, version: Version,
    follow_cps: bool, cps: int | None, uncertain: list[str], reasons: list[str],
) -> tuple[int, ...]:
    """NUMA clients of an exposed topology: one per virtual node unless a node is too big."""
    clients: list[int] = []
    for size in vnodes:
        if size > cap:
            # A client never spans a package: an oversized virtual node is split (6.0 CPS 20 case).
            clients.extend(split_even(size, math.ceil(size / cap)))
        else:
            clients.append(size)
    if len(clients) > len(vnodes):
        reasons.append(
            f"virtual nodes of {max(vnodes)} vCPUs exceed a physical node ({cap}): "
            f"each spans {math.ceil(max(vnodes) / cap)} physical nodes"
        )
    if not follow_cps and cps and cps > 1 and version >= V65 and v % cps == 0:
        packed = _pack_sockets(v, cps, len(clients))
        if max(packed) <= cap and sorted(packed) != sorted(clients):
            reasons.append(
                f"cores per socket {cps} keeps sockets whole inside NUMA clients: "
                f"clients of {layout_text(packed)} vCPUs"
            )
            return packed
        if max(packed) > cap:
            uncertain.append(
                f"a {cps}-core virtual socket does not fit a {cap}-vCPU NUMA client; placement undocumented"
            )
    return tuple(clients)


def place_clients(clients: tuple[int, ...], nodes: int, load: list[int] | None = None) -> tuple[int, ...]:
    """Home each client on the least-loaded node, spreading one VM's clients over distinct nodes.

    This is the initial placement the NUMA scheduler aims for; its later load balancing is not
    modelled. `load` (vCPUs already homed per node) is updated in place when given.
    """
    load = load if load is not None else [0] * nodes
    chosen: list[int] = [0] * len(clients)
    used: set[int] = set()
    for index in sorted(range(len(clients)), key=lambda i: -clients[i]):
        free = [n for n in range(nodes) if n not in used] or list(range(nodes))
        node = min(free, key=lambda n: (load[n], n))
        chosen[index] = node
        used.add(node)
        if len(used) == nodes:
            used.clear()
        load[node] += clients[index]
    return tuple(chosen)


_MEMORY_REASON = "exceeds what its nodes hold locally"


def _memory_reason(memory: int, host: Host, remote: int) -> str:
    return (f"memory {memory // 1024} GB {_MEMORY_REASON} "
            f"({host.memory_per_node // 1024} GB per node): ~{remote // 1024} GB remote")


def with_memory(topo: Topology, host: Host, memory: int) -> Topology:
    """The same layout for a VM with another amount of memory (only the memory split differs).

    Estates repeat a vCPU shape with many memory sizes; this spares a full predict() each.
    """
    local, remote = _memory(memory, topo.numa_clients or (topo.vcpus,), topo.client_nodes or (0,), host,
                            topo.vcpus, topo.memory_interleaved)
    reasons = tuple(r for r in topo.reasons if _MEMORY_REASON not in r)
    if remote:
        reasons += (_memory_reason(memory, host, remote),)
    return replace(topo, memory_local_mib=local, memory_remote_mib=remote, reasons=reasons)


def _memory(
    memory: int, clients: tuple[int, ...], nodes: tuple[int, ...], host: Host, v: int, interleaved: bool
) -> tuple[int, int]:
    """Local and remote memory (MiB): each client gets memory in proportion to its vCPUs."""
    if interleaved:
        spanned = len(set(nodes))
        local = memory // spanned
        return local, memory - local
    per_node: dict[int, int] = {}
    for size, node in zip(clients, nodes, strict=False):
        per_node[node] = per_node.get(node, 0) + memory * size // v
    remote = sum(max(0, amount - host.memory_per_node) for amount in per_node.values())
    return memory - remote, remote


def _affinity_nodes(affinity: str, host: Host, uncertain: list[str]) -> int:
    """Physical nodes an affinity list touches, numbering logical CPUs node by node."""
    from advisor.numa.affinity import nodes_touched, parse

    ranges = parse(affinity)
    if ranges is None:
        uncertain.append(f"could not read CPU affinity '{affinity[:80]}'")
        return host.nodes
    uncertain.append("logical CPUs are assumed numbered node by node (ESXi's usual order)")
    return nodes_touched(ranges, host.logical_cpus, host.threads_per_node)
