"""Facts about the VM's predicted NUMA topology on a host, and the what-if layouts beside it.

predict() (advisor.numa.topology) gives the layout; here it is compared with the host's nodes and
with the layouts preferHT or the default cores per socket would give. These facts depend only on
the VM's layout (facts_for shares them per layout_key); memory-dependent ones are memory_facts.
"""

from __future__ import annotations

from typing import Any

from advisor.model.spec import VM, Host
from advisor.model.versions import Version
from advisor.model.vmxkeys import normalised_advanced
from advisor.numa.controls import DEFAULT_VCPU_MIN, HW_VTOPOLOGY, V8, hardware_class, int_setting, read_controls
from advisor.numa.layout import UNEVEN_SPLIT
from advisor.numa.topology import Topology, predict, remote_mib, with_memory

# Largest vGPU profile per GPU model (frame buffer per GPU in GB) - NVIDIA GRID profile tables.
_MAX_PROFILE = {"m60": ("grid_m60-8q", 8), "m10": ("grid_m10-8q", 8), "p40": ("grid_p40-24q", 24),
                "t4": ("grid_t4-16q", 16), "v100": ("grid_v100-16q", 16), "a100": ("grid_a100-40c", 40),
                "a40": ("nvidia_a40-48q", 48), "l40": ("nvidia_l40-48q", 48)}


def socket_per_vnode(vnodes: tuple[int, ...], vcpus: int) -> int:
    """Cores per socket that make each virtual socket exactly one vNUMA node.

    VMware's sizing guidance (and Denneman's 6.5+ advice) aligns sockets with vNUMA nodes; when
    the nodes differ in size no single value does that, and the default of 1 is the safe choice.
    """
    size = vnodes[0] if vnodes else 1
    return size if len(set(vnodes)) == 1 and vcpus % size == 0 else 1


def runs(sizes: tuple[int, ...] | list[int]) -> str:
    from advisor.numa.topology import layout_text

    return layout_text(sizes)


def _with_advanced(vm: VM, key: str, value: str | None, **fields: Any) -> VM:
    """A copy of the VM with one advanced key set (or removed) - for what-if layouts."""
    adv = {k: v for k, v in vm.advanced.items() if k.lower() != key.lower()}
    if value is not None:
        adv[key] = value
    # Shallow: what-if variants only read the VM; the copy gets its own private dict.
    variant = vm.model_copy(update={**fields, "advanced": adv})
    variant.__pydantic_private__.pop("_adv", None)  # type: ignore[union-attr]  # set: VM has private attributes
    return variant


def aligned_vcpus(vcpus: int, host: Host, prefer_ht: bool) -> tuple[int, list[int]]:
    """The largest count ≤ vcpus that fills whole nodes evenly, and nearby balanced choices."""
    per = host.threads_per_node if prefer_ht else host.cores_per_node
    options = sorted({per * n for n in range(1, host.nodes + 1)} |
                     {n * k for n in range(1, host.nodes + 1) for k in range(2, per + 1, 2)})
    below = [o for o in options if o <= vcpus and (o <= per or o % 2 == 0)]
    best = max(below) if below else min(options)
    near = [o for o in options if abs(o - vcpus) <= max(4, vcpus // 4) and o != vcpus]
    return best, near[:4]


_AUTOSIZE = ("numa.autosize.vcpu.maxPerVirtualNode", "numa.autosize.cookie")


def _without_autosize(vm: VM) -> VM:
    """The VM without the layout ESXi recorded at an earlier power-on (the VM itself if none)."""
    if all(vm.setting(key) is None for key in _AUTOSIZE):
        return vm
    for key in _AUTOSIZE:
        vm = _with_advanced(vm, key, None)
    return vm


def topology_facts(host: Host, vm: VM, version: Version, topo: Topology,
                   cache: dict[tuple[Any, ...], Any] | None = None) -> tuple[dict[str, Any], Topology | None]:
    """Facts comparing the VM's predicted topology with the host and with what-if variants, and
    the preferHT what-if layout (None: no such what-if), from which memory_facts tells whether
    each VM of the layout would fit its memory (`cache`: shared_predict's)."""
    out = _layout_facts(host, vm, topo)
    alt = _prefer_ht_what_if(out, host, vm, version, topo, cache)
    _cores_per_socket_what_if(out, host, vm, version, topo, cache)
    _control_facts(out, host, vm, version, topo)
    best, near = aligned_vcpus(vm.vcpus, host, topo.prefer_ht)
    out["vm.aligned_vcpus"] = best
    out["vm.aligned_vcpus_text"] = ", ".join(str(n) for n in sorted({best, *near}))
    gpu = host.gpus[0].model.lower() if host.gpus else None
    if gpu and gpu in _MAX_PROFILE:
        out["vm.gpu_max_profile"], out["vm.gpu_max_profile_gb"] = _MAX_PROFILE[gpu]
    else:
        out["vm.gpu_max_profile"], out["vm.gpu_max_profile_gb"] = None, None
    return out, alt


def _layout_facts(host: Host, vm: VM, topo: Topology) -> dict[str, Any]:
    """The predicted layout itself, and how it sits on the host's nodes."""
    v = vm.vcpus
    return {
        "topo.layout": runs(topo.vnuma_nodes),
        "topo.layout_note": "; how vSphere 6.5+ spreads the remainder is not documented, so these sizes are a guess"
        if any(UNEVEN_SPLIT in note for note in topo.uncertain) else "",
        "topo.clients_layout": runs(topo.numa_clients),
        "topo.summary": topo.summary(),
        "topo.vnuma_nodes": len(topo.vnuma_nodes) if topo.vnuma_exposed else 1,
        "topo.clients": len(topo.numa_clients),
        "topo.physical_nodes": topo.physical_nodes_spanned,
        "topo.smallest_vnode": min(topo.vnuma_nodes),
        "topo.largest_vnode": max(topo.vnuma_nodes),
        "topo.memory_remote_mib": topo.memory_remote_mib,
        "topo.exposed": topo.vnuma_exposed,
        "topo.wide": topo.wide,
        "topo.balanced": topo.balanced,
        "topo.vnuma_balanced": topo.vnuma_balanced,
        "topo.client_imbalance": max(topo.numa_clients) - min(topo.numa_clients) if topo.numa_clients else 0,
        "topo.uses_hyperthreads": topo.uses_hyperthreads,
        "topo.numa_managed": topo.numa_managed,
        "topo.uncertain": bool(topo.uncertain),
        "topo.fits_node_cores": v <= host.cores_per_node,
        "topo.fits_node_threads": v <= host.threads_per_node,
        "topo.memory_fits_node": vm.memory <= host.memory_per_node,
        "topo.follows_cps": topo.follows_cores_per_socket,
        "vm.sockets": topo.sockets,
    }


def _prefer_ht_what_if(out: dict[str, Any], host: Host, vm: VM, version: Version, topo: Topology,
                       cache: dict[tuple[Any, ...], Any] | None) -> Topology | None:
    """The preferHT what-if facts, into `out`; the what-if's layout (None: no such what-if)."""
    # preferHT what-if: only meaningful when the VM does not already prefer HT and HT exists.
    # A VM that powered on before keeps its recorded layout: the what-ifs drop that record, as
    # the fixes that change the layout do (NUMA001, NUMA012).
    fresh = _without_autosize(vm)
    alt = None
    if not topo.prefer_ht and host.threads_per_core > 1:
        alt = shared_predict(host, _with_advanced(fresh, "numa.vcpu.preferHT", "TRUE"), version, cache)
    out["topo.prefer_ht_layout"] = runs(alt.vnuma_nodes) if alt else out["topo.layout"]
    out["topo.prefer_ht_balances"] = bool(alt and alt.balanced and not topo.balanced)
    out["topo.prefer_ht_fewer_nodes"] = bool(alt and alt.physical_nodes_spanned < topo.physical_nodes_spanned)
    out["topo.prefer_ht_memory_fits"] = prefer_ht_fits(alt, host, vm.memory)
    out["topo.persisted_layout_differs"] = fresh is not vm and any(
        "numa.autosize.vcpu.maxPerVirtualNode" in r for r in topo.reasons) and (
        shared_predict(host, fresh, version, cache).vnuma_nodes != topo.vnuma_nodes)
    return alt


def _cores_per_socket_what_if(out: dict[str, Any], host: Host, vm: VM, version: Version, topo: Topology,
                              cache: dict[tuple[Any, ...], Any] | None) -> None:
    v = vm.vcpus
    # Cores-per-socket what-if: the same VM with ESXi's default cores per socket.
    if vm.cores_per_socket and vm.cores_per_socket > 1:
        default = shared_predict(host, vm.model_copy(update={"cores_per_socket": None}), version, cache)
        out["topo.cps_layout_default"] = runs(default.vnuma_nodes)
        out["topo.default_cps_vnuma_nodes"] = len(default.vnuma_nodes)
        out["topo.aligned_cores_per_socket"] = socket_per_vnode(default.vnuma_nodes, v)
        out["topo.vnode_below_physical"] = (topo.vnuma_exposed and len(topo.vnuma_nodes) > len(default.vnuma_nodes))
        out["topo.cps_unbalances"] = (default.balanced and not topo.balanced) or (
            len(set(default.numa_clients)) < len(set(topo.numa_clients)))
    else:
        out["topo.cps_layout_default"] = out["topo.layout"]
        out["topo.default_cps_vnuma_nodes"] = out["topo.vnuma_nodes"]
        out["topo.aligned_cores_per_socket"] = socket_per_vnode(topo.vnuma_nodes, v)
        out["topo.vnode_below_physical"] = False
        out["topo.cps_unbalances"] = False


def _control_facts(out: dict[str, Any], host: Host, vm: VM, version: Version, topo: Topology) -> None:
    """Sockets split between vNUMA nodes, manual node sizes and node affinity (issue 35's classes)."""
    v = vm.vcpus
    # Class 4 (issue 35): a virtual socket split between two vNUMA nodes is certain from the
    # node sizes alone, whatever ESXi does with the clients (VROOM! rules; Denneman 2021-12-02).
    cps = vm.cores_per_socket or 1
    out["topo.socket_spans_vnodes"] = (topo.vnuma_exposed and not topo.follows_cores_per_socket and cps > 1
                                       and any(size % cps for size in topo.vnuma_nodes))
    # numa.vcpu.maxPerVirtualNode / coresPerNode showing the guest more nodes than the VM's
    # clients have physical nodes: nodes the guest believes remote share one node's memory.
    controls = read_controls(host, vm, version)
    out["topo.manual_vnodes_exceed_physical"] = bool(
        controls.manual_size and topo.vnuma_exposed and topo.numa_managed
        and len(topo.vnuma_nodes) > topo.physical_nodes_spanned)
    out["topo.manual_vnode_key"] = ("numa.vcpu.coresPerNode" if "coresPerNode" in controls.manual_why
                                    else "numa.vcpu.maxPerVirtualNode")
    # Class 6: numa.nodeAffinity leaving the VM fewer cores than vCPUs on the nodes it allows.
    allowed = topo.node_affinity or ()
    out["topo.affinity_cores"] = len(allowed) * host.cores_per_node if allowed else 0
    out["topo.affinity_squeezes"] = bool(allowed) and topo.numa_managed and v > len(allowed) * host.cores_per_node
    out["topo.spans_needlessly"] = (
        topo.numa_managed and topo.physical_nodes_spanned > 1 and v <= host.cores_per_node
        and vm.memory <= host.memory_per_node
    )


def layout_key(vm: VM) -> tuple[Any, ...]:
    """Everything predict() reads from a VM but its memory: equal keys give equal layouts.

    The VM's hardware version, CPU affinity and own keys reach predict() only through
    read_controls(), which tells hardware versions apart by hardware_class, reads the affinity
    stripped and lower-cased, and reads only numa.* keys (the spec reconciles
    sched.cpu.affinity into the cpu_affinity field).
    """
    adv = normalised_advanced(vm)  # lower-cased key -> (spelling, text): what vm.setting() reads
    numa = tuple(sorted((k, text) for k, (_, text) in adv.items() if k.startswith("numa."))) if adv else ()
    # numa.consolidate = FALSE lays the VM out by its memory too (advisor.numa.layout).
    return (vm.vcpus, vm.cores_per_socket, hardware_class(vm.hardware_version), vm.cpu_hot_add,
            (vm.cpu_affinity or "").strip().lower(), numa,
            vm.memory if "numa.consolidate" in adv else None)


def shared_predict(host: Host, vm: VM, version: Version, cache: dict[tuple[Any, ...], Any] | None,
                   key: tuple[Any, ...] | None = None) -> Topology:
    """predict(), shared through `cache` (one per host and version) between VMs of one
    layout_key: a VM with another memory size gets the same layout with its own memory split
    (with_memory), as predict() would give it. The what-if layouts of many shapes are the plain
    layouts of others, so they share it too. `key`: the VM's layout_key, when the caller has it."""
    if cache is None:
        return predict(host, vm, version)
    key = ("layout", key or layout_key(vm))
    first = cache.get(key)
    if first is None:
        first = cache[key] = (predict(host, vm, version), vm.memory)
    if first[1] == vm.memory:
        return first[0]
    sized = cache.get((key, vm.memory))
    if sized is None:
        sized = cache[(key, vm.memory)] = with_memory(first[0], host, vm.memory)
    return sized


def prefer_ht_fits(prefer_ht: Topology | None, host: Host, memory: int) -> bool:
    """Whether `memory` fits the nodes of the preferHT what-if layout of topology_facts (None:
    no such what-if), as it would for a VM of the layout with that much memory."""
    return prefer_ht is not None and remote_mib(prefer_ht, host, memory) == 0


def memory_split(host: Host, vm: VM, topo: Topology, version: Version | None) -> dict[str, Any]:
    """Memory as an input to the layout (issue 35, classes 2 and 3): the fewest nodes whose memory
    holds the VM's, the vCPUs per node that divides the VM evenly over them, and the keys that
    build that layout on this version. Exactly one of the three fixes is known (not None):

    - vSphere 8 with hardware version 20 (or unstated): cores per socket and
      numa.vcpu.coresPerNode (Denneman 2022-11-03: 12 vCPUs / 384 GB -> CPS 6, two NUMA nodes);
    - before that: numa.vcpu.maxPerVirtualNode, with numa.vcpu.min lowered for a VM below it
      (vSphere "Advanced Virtual NUMA Attributes", GUID-89C52376; VROOM! rightsizing rule 3:
      divide the vCPUs evenly over the fewest nodes that hold the memory);
    - where no even split exists: the memory the current layout keeps local.
    """
    v, per_node = vm.vcpus, host.memory_per_node
    needed = max(1, -(-vm.memory // per_node)) if per_node else 1
    nodes = next((n for n in range(max(needed, 2), host.nodes + 1)
                  if v % n == 0 and v // n <= host.cores_per_node), 0)
    size = v // nodes if nodes else 0
    vtopology = version is not None and version >= V8 and (
        vm.hardware_version is None or vm.hardware_version >= HW_VTOPOLOGY)
    vcpu_min = int_setting(vm, "numa.vcpu.min") or DEFAULT_VCPU_MIN
    load: dict[int, int] = {}
    for vcpus, node in zip(topo.numa_clients, topo.client_nodes, strict=False):
        load[node] = load.get(node, 0) + vcpus
    busiest = max(load.values(), default=v) or v
    local_memory = per_node * v // busiest // 1024 * 1024  # the most memory this layout keeps local
    if vtopology:
        text = (f"On vSphere 8, give the VM {nodes} NUMA nodes of {size} vCPUs: cores per socket {size} and "
                f"numa.vcpu.coresPerNode = {size}")
    else:
        text = f"Give the VM {nodes} vNUMA nodes of {size} vCPUs: numa.vcpu.maxPerVirtualNode = {size}" + (
            f" and numa.vcpu.min = {size}" if v < vcpu_min else "")
    if not nodes:
        text = (f"No even split of {v} vCPUs over {needed} or more of the host's {host.nodes} nodes fits their cores: "
                f"reduce memory to {local_memory} MiB, or resize the VM")
    return {
        "topo.memory_nodes_needed": needed,
        "topo.memory_split_nodes": nodes,
        "topo.memory_split_vcpus": size,
        "topo.memory_fix_text": text,
        "topo.memory_fix_cores_per_node": size if nodes and vtopology else None,
        "topo.memory_fix_max_per_vnode": size if nodes and not vtopology else None,
        "topo.memory_fix_vcpu_min": size if nodes and not vtopology and v < vcpu_min else None,
        "topo.memory_fix_memory_mib": None if nodes else local_memory,
        "topo.memory_interleaved": topo.memory_interleaved,
    }


def memory_facts(host: Host, vm: VM, topo: Topology, prefer_ht_memory_fits: bool,
                 version: Version | None = None) -> dict[str, Any]:
    """The topology facts that depend on the VM's own memory size."""
    return {
        **memory_split(host, vm, topo, version),
        "topo.memory_remote_mib": topo.memory_remote_mib,
        "topo.prefer_ht_memory_fits": prefer_ht_memory_fits,
        "topo.memory_fits_node": vm.memory <= host.memory_per_node,
        "topo.spans_needlessly": (topo.numa_managed and topo.physical_nodes_spanned > 1
                                  and vm.vcpus <= host.cores_per_node and vm.memory <= host.memory_per_node),
    }

