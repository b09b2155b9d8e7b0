"""Step 1 of the topology prediction: the settings that shape a VM's NUMA layout.

A VM's `numa.*` advanced keys override the host's NUMA settings; the vSphere version and the
VM's hardware version decide which of them ESXi honours. Each control cites the document that
states it (../shared/reference/vsphere-facts.md §1 and sources.md):

- `numa.vcpu.preferHT` / host `Numa.PreferHT`: NUMA clients count a node's threads, not its
  cores (Denneman, NUMA Deep Dive part 5; KB 2003582).
- `numa.vcpu.maxPerMachineNode`, `numa.vcpu.maxPerClient`: smaller clients (vSphere 6.0
  "Advanced Virtual NUMA Attributes", GUID-89C52376).
- `numa.vcpu.min` (default 9): fewer vCPUs never get vNUMA (same table; part 5).
- `numa.vcpu.maxPerVirtualNode`, vSphere 8 `numa.vcpu.coresPerNode`: the node size, set by hand
  (GUID-3E956FB5; Denneman 2022-11-03).
- `numa.autosize.vcpu.maxPerVirtualNode`: the node size ESXi recorded at the first power-on,
  kept while `numa.autosize.once` is TRUE (part 5; Denneman 2022-03-11).
- `numa.vcpu.followcorespersocket` / host `Numa.FollowCoresPerSocket`, and every version before
  6.5: cores per socket sets the vNUMA node size (vSphere 5.0–6.0 "Virtual NUMA", GUID-17B629DE).
- `numa.consolidate = FALSE`: more, smaller clients for a VM whose memory does not fit a node
  (Denneman 2017-10-05).
- `numa.nodeAffinity`: NUMA-managed, but only on the listed nodes; `sched.cpu.affinity`: not
  NUMA-managed at all (vSphere "Specifying NUMA Controls", GUID-68817061).
- CPU hot-add turns vNUMA off (KB 2040375); on vSphere 8 `numa.allowHotadd` keeps it for
  hardware version 20 (vSphere 8 "virtual topology", GUID-34D6F6A7).
"""

from __future__ import annotations

from typing import NamedTuple

from advisor.model.spec import VM, Host
from advisor.model.versions import Version
from advisor.vocab import read_bool

V65 = Version(6, 5)
V8 = Version(8, 0)
DEFAULT_VCPU_MIN = 9
HW_VNUMA = 8  # the first hardware version that can expose vNUMA
HW_VTOPOLOGY = 20  # vSphere 8's virtual topology and numa.allowHotadd
# The first versions with the automatic vNUMA client sizer for AMD EPYC (Denneman 2019-10-14).
EPYC_SIZER = (Version(6, 5, 3), Version(6, 7, 2))


def flag(vm: VM, key: str) -> bool | None:
    """None when the VM does not set ``key``; otherwise whether it sets it to a true word."""
    text = vm.setting(key)
    return None if text is None else read_bool(text) is True


def int_setting(vm: VM, key: str) -> int | None:
    text = vm.setting(key)
    if text is None:
        return None
    try:
        value = int(text.strip())
    except ValueError:
        return None
    return value if value > 0 else None


def _node_list(text: str | None, nodes: int) -> tuple[int, ...] | None:
    """`numa.nodeAffinity = "0,1"` -> (0, 1); None when unset or not a list of this host's nodes."""
    if not text:
        return None
    try:
        chosen = tuple(sorted({int(part) for part in text.replace(" ", "").split(",") if part}))
    except ValueError:
        return None
    return chosen if chosen and all(0 <= n < nodes for n in chosen) else None


class NumaControls(NamedTuple):
    """What shapes the layout: the VM's keys over the host's defaults, for one vSphere version.
    (A NamedTuple: see CONTRIBUTING.md, "Add a class on `check`'s path".)"""

    prefer_ht: bool
    prefer_ht_from_host: bool
    capacity: int  # the largest NUMA client: a node's cores, its threads with preferHT, or a cap
    capacity_reasons: tuple[str, ...]
    vcpu_min: int
    follow_cps: bool
    vtopology: bool  # vSphere 8 with hardware version 20+: cores per socket set at power-on
    manual_size: int | None  # node size set by hand (coresPerNode, maxPerVirtualNode)
    manual_why: str
    persisted: int | None  # numa.autosize.vcpu.maxPerVirtualNode, honoured (autosize.once)
    consolidate: bool
    node_affinity: tuple[int, ...] | None
    affinity: str  # sched.cpu.affinity, lower case ("" or "all": none)
    hot_add_blocks: bool  # CPU hot-add keeps vNUMA from the guest
    hot_add_uncertain: str  # why the hot-add behaviour is not documented for this VM, or ""
    exposed_possible: bool  # the version and hardware can expose vNUMA at all
    epyc_sizer: bool  # the host may use the undocumented EPYC client sizer

    @property
    def numa_managed(self) -> bool:
        return self.affinity in ("", "all")


def hardware_class(hw: int | None) -> int | None:
    """All read_controls reads of a hardware version: unstated, or which of its thresholds it
    reaches (layouts are shared between VMs of one class)."""
    return None if hw is None else (hw >= HW_VNUMA) + (hw >= HW_VTOPOLOGY)


def read_controls(host: Host, vm: VM, version: Version) -> NumaControls:
    """The NUMA controls in effect for `vm` on `host` under `version`."""
    v, hw = vm.vcpus, vm.hardware_version
    cores, threads = host.cores_per_node, host.threads_per_node
    vm_pref = flag(vm, "numa.vcpu.preferHT")
    prefer_ht = bool(vm_pref) if vm_pref is not None else host.prefer_ht
    cap = threads if prefer_ht else cores
    reasons: list[str] = []
    for key in ("numa.vcpu.maxPerMachineNode", "numa.vcpu.maxPerClient"):
        limit = int_setting(vm, key)
        if limit and limit < cap:
            cap = limit
            reasons.append(f"{key} = {limit} limits each NUMA client to {limit} vCPUs")
    vcpu_min = int_setting(vm, "numa.vcpu.min") or DEFAULT_VCPU_MIN
    vtopology = version >= V8 and (hw is None or hw >= HW_VTOPOLOGY)
    # An unstated hardware version is taken to be a current one, as a newly built VM gets.
    exposed_possible = version >= Version(5, 0) and (hw is None or hw >= HW_VNUMA)

    manual_size, manual_why = _manual_size(vm, version, vtopology, vcpu_min)

    persisted = int_setting(vm, "numa.autosize.vcpu.maxPerVirtualNode")
    if flag(vm, "numa.autosize.once") is False or (persisted is not None and persisted >= v):
        persisted = None  # re-sized at every power-on, or a record of one node (nothing kept)

    hot_add_blocks, hot_add_uncertain = _hot_add(vm, version)

    cpu = (host.cpu or "").lower()
    epyc_sizer = "epyc" in cpu and (version >= EPYC_SIZER[1] or ((version.major, version.minor) == (6, 5)
                                    and version >= EPYC_SIZER[0]))
    return NumaControls(
        prefer_ht=prefer_ht,
        prefer_ht_from_host=vm_pref is None,
        capacity=cap,
        capacity_reasons=tuple(reasons),
        vcpu_min=vcpu_min,
        follow_cps=version < V65 or bool(flag(vm, "numa.vcpu.followcorespersocket")) or host.follow_cores_per_socket,
        vtopology=vtopology,
        manual_size=manual_size if exposed_possible else None,
        manual_why=manual_why,
        persisted=persisted,
        consolidate=flag(vm, "numa.consolidate") is not False,
        node_affinity=_node_list(vm.setting("numa.nodeAffinity"), host.nodes),
        affinity=(vm.cpu_affinity or "").strip().lower(),
        hot_add_blocks=hot_add_blocks,
        hot_add_uncertain=hot_add_uncertain,
        exposed_possible=exposed_possible,
        epyc_sizer=epyc_sizer,
    )


def _manual_size(vm: VM, version: Version, vtopology: bool, vcpu_min: int) -> tuple[int | None, str]:
    """The vNUMA node size a key sets by hand, and why (None, "": none)."""
    v = vm.vcpus
    per_node_v8 = int_setting(vm, "numa.vcpu.coresPerNode") if version >= V8 else None
    per_vnode = int_setting(vm, "numa.vcpu.maxPerVirtualNode")
    if per_node_v8 and vtopology and per_node_v8 < v:
        return per_node_v8, f"numa.vcpu.coresPerNode = {per_node_v8} (vSphere 8 manual vNUMA) sets the node size"
    if per_vnode and per_vnode < v and v >= vcpu_min:
        return per_vnode, f"numa.vcpu.maxPerVirtualNode = {per_vnode} sets the node size"
    return None, ""


def _hot_add(vm: VM, version: Version) -> tuple[bool, str]:
    """Whether CPU hot add turns vNUMA off, and what about it no document settles ("": nothing)."""
    hw = vm.hardware_version
    if not (vm.cpu_hot_add and version >= V8 and flag(vm, "numa.allowHotadd")):
        return vm.cpu_hot_add, ""
    blocks = hw is not None and hw < HW_VTOPOLOGY
    if hw is None:
        return blocks, "numa.allowHotadd needs hardware version 20; the VM's is not stated (shown: vNUMA kept)"
    if not blocks:
        return blocks, ("vSphere 8 numa.allowHotadd keeps vNUMA, but how hot-added vCPUs join its "
                        "nodes is not documented")
    return blocks, ""
