"""Step 2 of the topology prediction: the virtual nodes the guest sees and the NUMA clients
ESXi schedules, from the controls of step 1 (advisor.numa.controls).

The branches are tried in the order ESXi's documented behaviour gives them precedence; each
says in `reasons` why it applied, and in `uncertain` what no document settles.
"""

from __future__ import annotations

import math
from collections.abc import Iterable

from advisor.model.spec import Host
from advisor.model.versions import Version
from advisor.numa.controls import V8, V65, NumaControls


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


# A plain slotted class: see CONTRIBUTING.md, "Add a class on `check`'s path".
class Layout:
    """How ESXi lays a VM out: its vCPUs per virtual NUMA node and per NUMA client, and why."""

    __slots__ = ("clients", "exposed", "interleaved", "reasons", "uncertain", "vnodes")

    def __init__(self, vnodes: tuple[int, ...], clients: tuple[int, ...], exposed: bool,
                 interleaved: bool = False) -> None:
        self.vnodes = vnodes  # vCPUs per virtual node
        self.clients = clients  # vCPUs per NUMA client
        self.exposed = exposed
        self.interleaved = interleaved  # memory interleaved over the clients' nodes (hot-add)
        self.reasons: list[str] = []
        self.uncertain: list[str] = []


def _by_capacity(v: int, cap: int) -> tuple[int, ...]:
    """Clients when nothing else groups the vCPUs: as few as fit, evenly filled (part 5)."""
    return (v,) if v <= cap else split_even(v, math.ceil(v / cap))


def _unit(what: NumaControls) -> str:
    return "threads" if what.prefer_ht else "cores"


def virtual_layout(host: Host, v: int, memory: int, cps: int | None, c: NumaControls, version: Version) -> Layout:
    """The first branch that applies, in ESXi's order of precedence."""
    cap = c.capacity
    if not c.exposed_possible:
        out = Layout((v,), _by_capacity(v, cap), False)
        out.reasons.append("virtual hardware below version 8 (or ESX before 5.0) cannot expose vNUMA")
        out.interleaved = c.hot_add_blocks and len(out.clients) > 1
        return out
    if c.hot_add_blocks and (v > cap or c.manual_size):
        clients = _by_capacity(v, cap)
        out = Layout((v,), clients, False, interleaved=len(clients) > 1)
        out.reasons.append(
            "CPU hot-add disables vNUMA: the guest sees one node and memory is interleaved across "
            f"{len(clients)} NUMA clients (KB 2040375)"
            + ("; on vSphere 8 add numa.allowHotadd to keep vNUMA" if version >= V8 else ""))
        return out
    out = (_manual(v, c) or _persisted(v, cap, c) or _sockets(v, cap, cps, c, version)
           or _spread_memory(host, v, memory, c, version) or _by_default(v, c, version))
    if c.hot_add_uncertain:
        out.uncertain.append(c.hot_add_uncertain)
    if out.exposed:
        out.clients = clients_for(out.vnodes, v, cap, c, cps, version, out)
    if c.epyc_sizer and v > host.cores_per_node:
        out.uncertain.append("ESXi 6.5 U3 / 6.7 U2 and later size NUMA clients on AMD EPYC with an automatic "
                             "sizer whose rule is not documented (shown: the core-count rule)")
    return out


def _manual(v: int, c: NumaControls) -> Layout | None:
    if not c.manual_size:
        return None
    out = Layout(split_fill(v, c.manual_size), (), True)
    out.reasons.append(c.manual_why)
    return out


def _persisted(v: int, cap: int, c: NumaControls) -> Layout | None:
    """A VM that powered on before keeps the node size ESXi recorded (numa.autosize.once)."""
    if not c.persisted or v < c.vcpu_min:
        return None
    out = Layout(split_fill(v, c.persisted), (), True)
    out.reasons.append(
        f"numa.autosize.vcpu.maxPerVirtualNode = {c.persisted} was recorded at an earlier power-on; "
        "ESXi keeps that layout until the vCPU count changes (numa.autosize.once)")
    return out


def _sockets(v: int, cap: int, cps: int | None, c: NumaControls, version: Version) -> Layout | None:
    """Before 6.5 (or with followcorespersocket) each virtual socket of a VM of at least
    numa.vcpu.min vCPUs is a vNUMA node, even when the VM fits one physical node (vSphere
    5.0-6.0 "Virtual NUMA"; Denneman part 5: 10 vCPUs at 5 cores per socket -> two nodes)."""
    if not (c.follow_cps and cps and cps > 1 and v >= c.vcpu_min and v % cps == 0):
        return None
    if v // cps == 1 and v <= cap:
        return None  # one socket that fits a node: one node, nothing to expose
    out = Layout(tuple([cps] * (v // cps)), (), True)
    why = "before vSphere 6.5" if version < V65 else "numa.vcpu.followcorespersocket / Numa.FollowCoresPerSocket"
    out.reasons.append(f"{why}, cores per socket ({cps}) sets the vNUMA node size")
    return out


def _spread_memory(host: Host, v: int, memory: int, c: NumaControls, version: Version) -> Layout | None:
    """numa.consolidate = FALSE: a VM whose memory exceeds a node gets more, smaller clients so
    its memory is spread; the guest sees them only when numa.vcpu.min allows (Denneman
    2017-10-05: 8 vCPUs and 96 GB on 64 GB nodes -> 2 clients of 4, one virtual node)."""
    if c.consolidate or memory <= host.memory_per_node or v > c.capacity or v < 2:
        return None
    count = min(host.nodes, math.ceil(memory / host.memory_per_node), v)
    clients = split_even(v, count)
    exposed = v >= c.vcpu_min
    out = Layout(clients if exposed else (v,), clients, exposed)
    out.reasons.append(f"numa.consolidate = FALSE spreads the VM's memory over {count} NUMA clients"
                       + ("" if exposed else f"; below numa.vcpu.min ({c.vcpu_min}) the guest still sees one node"))
    if count > 2 or version >= V8:
        out.uncertain.append("numa.consolidate = FALSE is documented for two clients on vSphere 6.5-7 only "
                             f"(shown: {count} clients)")
    return out


# The uncertainty note of an uneven 6.5+ split (facts read it: a message shows the sizes as a guess).
UNEVEN_SPLIT = "is not divisible over"


def _by_default(v: int, c: NumaControls, version: Version) -> Layout:
    cap = c.capacity
    if v < c.vcpu_min or v <= cap:
        out = Layout((v,), _by_capacity(v, cap), False)
        if v <= cap:
            out.reasons.append(f"{v} vCPU fit one NUMA node ({cap} {_unit(c)}): no vNUMA needed")
        else:
            out.reasons.append(f"{v} vCPU is below numa.vcpu.min ({c.vcpu_min}): the guest sees one node, "
                               f"though ESXi splits it into {len(out.clients)} NUMA clients")
        return out
    out = Layout(split_fill(v, cap), (), True)
    out.reasons.append(f"{v} vCPU exceed a node's {cap} {_unit(c)}: "
                       f"{len(out.vnodes)} nodes of at most {max(out.vnodes)} (fewest nodes that fit)")
    if version >= V65 and len(set(out.vnodes)) > 1:
        out.uncertain.append(f"{v} {UNEVEN_SPLIT} {len(out.vnodes)} nodes; VMware does not document how "
                             "6.5+ spreads the remainder (shown: fill each node, last takes the rest)")
    return out


def _pack_sockets(vcpus: int, cps: int, clients: int) -> tuple[int, ...]:
    """Clients when whole virtual sockets must stay together (6.5+): 30 vCPU, CPS 2, 2 clients → 16+14."""
    return tuple(s * cps for s in split_even(vcpus // cps, clients))


def clients_for(vnodes: tuple[int, ...], v: int, cap: int, c: NumaControls, cps: int | None,
                version: Version, out: Layout) -> tuple[int, ...]:
    """NUMA clients of an exposed topology: one per virtual node unless a node is too big."""
    if out.clients:
        return out.clients  # the branch chose them (numa.consolidate)
    if c.persisted and any(size > cap for size in vnodes):
        # Kept virtual nodes larger than this host's nodes: the clients are rebuilt for the host
        # (Denneman 2022-03-11: 2 virtual nodes of 18 on 14-core nodes -> 3 clients).
        return _by_capacity(v, cap)
    clients: list[int] = []
    for size in vnodes:
        # A client never spans a package: an oversized virtual node is split (6.0 CPS 20 case).
        clients.extend(_by_capacity(size, cap))
    if len(clients) > len(vnodes):
        out.reasons.append(f"virtual nodes of {max(vnodes)} vCPUs exceed a physical node ({cap}): "
                           f"each spans {math.ceil(max(vnodes) / cap)} physical nodes")
    if not c.follow_cps and cps and cps > 1 and version >= V65 and v % cps == 0:
        packed = _pack_sockets(v, cps, len(clients))
        if max(packed) <= cap and sorted(packed) != sorted(clients):
            out.reasons.append(f"cores per socket {cps} keeps sockets whole inside NUMA clients: "
                               f"clients of {layout_text(packed)} vCPUs")
            return packed
        if max(packed) > cap:
            out.uncertain.append(f"a {cps}-core virtual socket does not fit a {cap}-vCPU NUMA client; "
                                 "placement undocumented")
    return tuple(clients)
