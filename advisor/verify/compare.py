"""Hold what ESXi logged against advisor's prediction for the same VM on the same host.

The VM is rebuilt from the settings ESXi echoed (DICT lines): vCPUs, memory, cores per socket and
the numa.*, affinity and hot-add keys that shape a layout (advisor.numa.controls lists them). The
`numa.autosize.*` keys are left out on purpose: ESXi writes them itself at the first power-on
(Denneman, NUMA Deep Dive part 5), so feeding them back would make the check circular; where one is
present and explains a difference, the verdict says so.

What is compared, and why only that:
- vNUMA nodes (VPDs) and NUMA clients (PPDs): their count and their sizes as multisets. The order
  in which ESXi numbers nodes of unequal size is not documented, so only the sizes are held.
- Cores per socket only where the log states what the guest saw independently of the VM's own
  setting (the 6.0 form's "S virtual sockets"); from 6.5 on the log echoes cpuid.coresPerSocket,
  which is an input, not an outcome.
- Placement (from sched-stats) as a note: advisor places each VM alone, while ESXi's balancer homes
  clients by the load of every VM on the host and moves them as load changes (vSphere Resource
  Management, "How ESXi NUMA Scheduling Works",
  https://docs.vmware.com/en/VMware-vSphere/8.0/vsphere-resource-management/GUID-3846A67A-5C21-48D1-9760-A606F534B85A.html),
  so a different home node is information, not a model error.
"""

from __future__ import annotations

import contextlib
import math
from dataclasses import dataclass, field

from pydantic import ValidationError

from advisor.errors import InputError
from advisor.model.spec import VM, Host
from advisor.model.versions import Version
from advisor.numa.topology import Topology, layout_text, predict
from advisor.verify.esxilog import LoggedVM
from advisor.verify.schedstats import LoggedClients

# Stable codes (like rule ids, they never change meaning); "disagree" is a model error,
# "note" is information about the run (placement, settings the host differs in).
CODES: dict[str, tuple[str, str]] = {
    "VFY001": ("disagree", "vNUMA node count differs"),
    "VFY002": ("disagree", "vNUMA node sizes differ"),
    "VFY003": ("disagree", "NUMA client layout differs"),
    "VFY004": ("disagree", "cores per socket differs"),
    "VFY005": ("note", "NUMA client placement differs"),
    "VFY006": ("note", "ESXi logged a NUMA setting the prediction did not assume"),
    "VFY007": ("note", "NUMA clients compared without the VM's settings"),
}

_FED = ("cpuid.corespersocket", "sched.cpu.affinity", "vcpu.hotadd", "virtualhw.version")


@dataclass
class Difference:
    code: str
    logged: str
    predicted: str
    why: list[str] = field(default_factory=list)

    @property
    def level(self) -> str:
        return CODES[self.code][0]

    @property
    def title(self) -> str:
        return CODES[self.code][1]


@dataclass
class Verdict:
    name: str
    file: str
    line: int
    host: str
    version: str
    version_from: str  # "--vsphere", "log", "host profile"
    logged: dict[str, object]
    predicted: dict[str, object]
    differences: list[Difference] = field(default_factory=list)
    assumptions: list[str] = field(default_factory=list)
    uncertain: list[str] = field(default_factory=list)

    @property
    def agrees(self) -> bool:
        return not any(d.level == "disagree" for d in self.differences)


def choose_version(logged_esxi: str | None, host: Host, override: Version | None) -> tuple[Version, str]:
    if override is not None:
        return override, "--vsphere"
    if logged_esxi:
        from advisor.vcenter.to_spec import release  # x.y.z -> x.y Uz from 7.0 on (KB 395110)

        text, problem = release(logged_esxi)
        with contextlib.suppress(ValueError):  # a release advisor does not know: the host's version stands
            if not problem:
                return Version.parse(text), "log"
    return host.esxi, "host profile"


def vm_from_log(logged: LoggedVM, host: Host, assumptions: list[str]) -> VM:
    vcpus = logged.vcpus
    if not vcpus:
        raise InputError("the log names no vCPU count (numvcpus or a VCPUs summary line)",
                         file=logged.file, line=logged.line)
    memory = logged.memory_mib
    if memory is None:
        memory = host.memory_per_node
        assumptions.append(f"memSize not logged: memory assumed to fit one node ({memory} MiB)")
    advanced: dict[str, str | int | bool | float] = {}
    for key, value in logged.settings.items():
        low = key.lower()
        if (low.startswith("numa.") and not low.startswith("numa.autosize.")) or low in _FED:
            advanced[key] = value
    try:
        return VM.model_validate({"name": logged.name[:200] or "vm", "vcpus": vcpus, "memory": memory,
                                  "advanced": advanced})
    except ValidationError as exc:
        first = exc.errors()[0]
        raise InputError(f"the logged settings do not form a VM advisor can model: {first['msg']}",
                         file=logged.file, line=logged.line) from None


def _vnodes(topo: Topology) -> tuple[int, ...]:
    return topo.vnuma_nodes if topo.vnuma_exposed else (topo.vcpus,)


def _text(sizes: tuple[int, ...]) -> str:
    return f"{len(sizes)} [{layout_text(sizes)}]" if sizes else "none"


def _why(logged: LoggedVM, topo: Topology) -> list[str]:
    """What the logged settings say about a difference."""
    out: list[str] = []
    persisted = logged.setting("numa.autosize.vcpu.maxPerVirtualNode")
    if persisted:
        out.append(f"ESXi persisted numa.autosize.vcpu.maxPerVirtualNode = {persisted} at an earlier power-on "
                   "(kept while numa.autosize.once is TRUE), possibly on another host")
    if logged.manual:
        out.append("ESXi logged 'Not autosizing': a manual numa.vcpu.maxPerVirtualNode or coresPerNode won")
    if logged.consolidation == 0:
        out.append("ESXi logged consolidation = 0 (numa.consolidate = FALSE)")
    out += [f"the prediction marked this uncertain: {u}" for u in topo.uncertain]
    return out


def compare(logged: LoggedVM, host: Host, override: Version | None = None) -> Verdict:
    version, version_from = choose_version(logged.esxi, host, override)
    assumptions: list[str] = []
    vm = vm_from_log(logged, host, assumptions)
    topo = predict(host, vm, version)
    why = _why(logged, topo)
    logged_view: dict[str, object] = {
        "vcpus": vm.vcpus, "memory_mib": logged.memory_mib, "form": logged.form,
        "vnuma_nodes": list(logged.vnodes), "vnuma_node_count": logged.vnode_count,
        "numa_clients": list(logged.clients), "numa_client_count": logged.client_count,
        "cores_per_socket": logged.cores_per_socket, "complete": logged.complete,
        "settings": dict(logged.settings), "esxi": logged.esxi, "build": logged.build,
    }
    verdict = Verdict(vm.name, logged.file, logged.line, host.name, str(version), version_from, logged_view,
                      topo.as_dict(), assumptions=assumptions, uncertain=list(topo.uncertain))
    diffs = verdict.differences
    want_nodes = _vnodes(topo)
    if logged.vnode_count is not None and logged.vnode_count != len(want_nodes):
        diffs.append(Difference("VFY001", _text(logged.vnodes) if logged.complete else str(logged.vnode_count),
                                _text(want_nodes), why))
    elif logged.complete and sorted(logged.vnodes) != sorted(want_nodes):
        diffs.append(Difference("VFY002", _text(logged.vnodes), _text(want_nodes), why))
    if topo.numa_managed:
        want_clients = topo.numa_clients
        count = logged.client_count
        if count is not None and (count != len(want_clients)
                                  or (logged.complete and sorted(logged.clients) != sorted(want_clients))):
            shown = _text(logged.clients) if logged.complete else str(count)
            diffs.append(Difference("VFY003", shown, _text(want_clients), why))
    if logged.form == "6.0" and logged.cores_per_socket and logged.cores_per_socket != topo.cores_per_socket:
        diffs.append(Difference("VFY004", str(logged.cores_per_socket), str(topo.cores_per_socket), why))
    if logged.prefer_ht is not None and bool(logged.prefer_ht) != topo.prefer_ht:
        diffs.append(Difference("VFY006", f"preferHT= {logged.prefer_ht}", f"preferHT {topo.prefer_ht}",
                                ["the host may set Numa.PreferHT, which the host profile does not say"]))
    if logged.consolidation is not None and logged.consolidation == 0 and vm.setting("numa.consolidate") is None:
        diffs.append(Difference("VFY006", "consolidation= 0", "numa.consolidate not set",
                                ["the one-liner did not capture numa.consolidate, or the host sets it"]))
    return verdict


def compare_clients(group: LoggedClients, host: Host, version: Version,
                    logged: LoggedVM | None = None) -> Verdict:
    """sched-stats rows of one VM: placement always; the client layout against the paired log's VM,
    or (without one) against a VM of the same vCPUs, as a note."""
    assumptions: list[str] = []
    memory_mib = max(1, math.ceil(group.memory_kb / 1024))
    if logged is not None:
        vm = vm_from_log(logged, host, assumptions)
        name = f"{vm.name} ({group.group})"
    else:
        assumptions.append("no vmware.log paired with these rows: the VM's numa.* settings are unknown; memory "
                           f"taken as the clients' touched memory ({memory_mib} MiB)")
        vm = VM.model_validate({"name": group.group, "vcpus": max(group.vcpus, 1), "memory": memory_mib})
        name = group.group
    topo = predict(host, vm, version)
    logged_view: dict[str, object] = {
        "vcpus": group.vcpus, "numa_clients": list(group.sizes), "home_nodes": list(group.home_nodes),
        "local_kb": group.memory_kb - group.remote_kb, "remote_kb": group.remote_kb,
    }
    verdict = Verdict(name, group.file, group.line, host.name, str(version), "given", logged_view, topo.as_dict(),
                      assumptions=assumptions, uncertain=list(topo.uncertain))
    if sorted(group.sizes) != sorted(topo.numa_clients):
        code = "VFY003" if logged is not None else "VFY007"
        verdict.differences.append(Difference(code, _text(group.sizes), _text(topo.numa_clients),
                                              _why(logged, topo) if logged is not None else []))
    spanned = len(set(group.home_nodes))
    if topo.numa_managed and spanned != topo.physical_nodes_spanned:
        verdict.differences.append(Difference(
            "VFY005", f"{spanned} node(s) {list(group.home_nodes)}", f"{topo.physical_nodes_spanned} node(s)",
            ["advisor places the VM alone; ESXi homes clients by the load of every VM on the host"]))
    return verdict


def pair(groups: list[LoggedClients], vms: list[LoggedVM]) -> dict[int, LoggedVM]:
    """sched-stats groups matched to logged VMs: a group goes with the one VM of the same vCPU count and
    client count, when exactly one such VM was logged (names are not in sched-stats output)."""
    out: dict[int, LoggedVM] = {}
    for i, group in enumerate(groups):
        fits = [vm for vm in vms if vm.vcpus == group.vcpus and vm.client_count == len(group.clients)]
        if len(fits) == 1:
            out[i] = fits[0]
    return out
