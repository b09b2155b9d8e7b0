"""An RVTools export as specs: one per host, holding its powered-on VMs, and the notes that say
what the export could not tell (../shared/reference/rvtools.md lists the columns and what is
missing from every export).

Read by header name, never by position (custom attributes insert columns after "Annotation"), a
column at a time (advisor.rvtools.columns); -1 means unlimited. What an export
never holds stays unknown and is said once per host or per export:
- NUMA nodes per socket and memory per node: nodes = sockets is an assumption, named on every
  host; for a CPU that can split a socket the node count is called uncertain (advisor.rvtools.vhost
  reads the hosts and names what each assumes).
- host advanced settings (Numa.PreferHT, ...), every VM advanced key, vGPU profiles, guest settings.
- disk roles (OS or data) and the controller a disk hangs on: storage rules are not evaluated
  on an export, and the report says so.

The vDisk sheet is not parsed (its absence is named), nor mapped to the spec's `disks:`. STO001
and STO002 look at data disks only, and which disk is the boot disk is decided in one place
(advisor.model.bootdisk): by the boot order, which an export does not carry, else by an assumption
(the first disk by controller bus and unit) that needs each disk's controller. vDisk's
"Controller" is not settled by a document: it is read as the controller's type in
../shared/reference/rvtools.md, while exports seen write its label
("SCSI controller 0"), which names the bus but not the type.
"""

from __future__ import annotations

import re
from collections.abc import Mapping, Sequence
from dataclasses import dataclass, field
from typing import Any

from advisor.errors import InputError
from advisor.load.estate import VmLabels, WorkloadTally, cluster_peers
from advisor.model.units import format_mib
from advisor.rvtools.columns import Sheet
from advisor.rvtools.vhost import (
    FOUR_NODES,
    HT_ASSUMED_OFF,
    HT_FROM_VMS,
    ONE_NODE,
    TIERED_MEMORY,
    UNCERTAIN_NODES,
    read_hosts,
    threads_from_running_vms,
)
from advisor.rvtools.workbook import Export

_LATENCY = {"low", "normal", "medium", "high"}
# vInfo "Connection state" is the VM's runtime.connectionState (vSphere API VirtualMachineConnectionState):
# orphaned (no longer registered on its host), inaccessible (configuration files unreachable: the
# configuration "may be incomplete") and invalid (configuration format invalid) leave its values
# unreliable; connected and disconnected (its host disconnected) keep the last configuration read.
_UNREADABLE = {"orphaned", "inaccessible", "invalid"}
_NICS = {"vmxnet3": "vmxnet3", "vmxnet2": "vmxnet", "vmxnet": "vmxnet", "e1000": "e1000", "e1000e": "e1000e",
         "pcnet32": "vlance", "flexible": "vlance", "sriovethernetcard": "sriov", "sr-iov": "sriov"}
NOT_IN_EXPORT = ("disk roles and controller buses, VM advanced keys (numa.*, preferHT, affinity), host NUMA "
                 "settings, vGPU profiles and guest settings are not in an RVTools export: the rules that need "
                 "them are not evaluated")


@dataclass
class Origin:
    """Where a host and its VMs sit in the export, to point findings back at a sheet and row."""

    host: str  # "<file>#vHost:<row>"
    vms: dict[str, str] = field(default_factory=dict)  # VM name in the spec -> "<file>#vInfo:<row>"
    keys: dict[str, str] = field(default_factory=dict)  # VM name in the spec -> "<VI SDK UUID>/<VM UUID>"
    unkeyed: set[str] = field(default_factory=set)  # VM names whose row has no VM UUID (keyed by server/name)
    cluster: str = ""  # the host's cluster (vHost "Cluster"): a spec names its peers, not the cluster


@dataclass
class EstateSpec:
    label: str
    doc: dict[str, Any]
    assumptions: list[str]  # what the host's spec rests on that the export does not state
    origin: Origin
    notes: list[str] = field(default_factory=list)  # VMs left out or partly stated


@dataclass
class Estate:
    specs: list[EstateSpec] = field(default_factory=list)
    notes: list[str] = field(default_factory=list)
    problems: list[tuple[str, str | None, str]] = field(default_factory=list)  # (row, spec field, message)


def _labels(info: Sheet, i: int, attributes: Sequence[str]) -> VmLabels:
    """What a `workloads:` rule tests, from vInfo (custom attributes are columns named after them)."""
    guest = info.texts("OS according to the configuration file")[i]
    attributes_of = {name: info.texts(name)[i] for name in attributes}
    return VmLabels(info.texts("VM")[i], info.texts("Folder")[i], guest, attributes_of)


def build(export: Export, workloads: Sequence[Any] = (), host_rules: Sequence[Any] = ()) -> Estate:
    """The export's hosts as specs; `workloads` are the configuration's `workloads:` rules,
    `host_rules` its `estate_hosts:` rules (advisor.rvtools.hostrules)."""
    from advisor.rvtools import hostrules

    out = Estate()
    info = _vinfo(export)
    hosts = read_hosts(export, out.notes, out.problems)
    hostrules.apply(host_rules, hosts, (ONE_NODE, FOUR_NODES, UNCERTAIN_NODES), out.notes)
    clusters = _clusters(export)
    sheets = {name: Sheet(export.tables.get(name)) for name in ("vCPU", "vMemory", "vNetwork")}
    identity = _identity(info, sheets, out)
    details = {name: _index(rows, identity, info.keys(identity)) for name, rows in sheets.items()}
    per_host = _rows_by_host(info, hosts, out)
    tally = WorkloadTally(workloads)
    attributes = sorted({name for rule in workloads for name in rule.attributes})
    threads_from_running_vms(hosts, info, per_host)
    peers_of = cluster_peers({name: doc for name, (doc, _, _) in hosts.items()}, clusters)
    for name, (host_doc, where, notes) in hosts.items():
        rows = per_host.get(name)
        if not rows:
            continue
        spec = EstateSpec(f"{export.path} (host {name})", {"host": host_doc, "vms": []}, list(notes),
                          Origin(where, cluster=clusters.get(name, "")))
        if peers_of.get(name):
            spec.doc["cluster"] = peers_of[name]
        _add_vms(spec, info, rows, sheets, details, (tally, attributes))
        if spec.doc["vms"]:
            out.specs.append(spec)
        else:  # every VM of the host left out: why is said all the same
            out.notes.extend(spec.notes)
    _close_notes(out, export, tally)
    return out


def _vinfo(export: Export) -> Sheet:
    """The vInfo sheet, refused when it is missing or lacks the columns a VM cannot do without."""
    info = Sheet(export.tables.get("vInfo"))
    if info.table is None:
        raise InputError("no vInfo sheet: not an RVTools export (or the vInfo CSV file is missing)", file=export.path)
    if not info.has("VM") or not info.has("CPUs"):
        raise InputError("the vInfo sheet has no 'VM' or 'CPUs' column", file=export.path)
    return info


def _rows_by_host(info: Sheet, hosts: Mapping[str, Any], out: Estate) -> dict[str, list[int]]:
    """The powered-on, non-template VM rows of each host in vHost; what is left out is counted in a note."""
    per_host: dict[str, list[int]] = {}
    skipped = {"powered off": 0, "suspended": 0, "templates": 0, "on hosts not in vHost": 0}
    templates, states, on = info.flags("Template"), info.texts("Powerstate"), info.texts("Host")
    connections = info.texts("Connection state")
    unreadable = 0
    for i in info.rows():
        if templates[i]:
            skipped["templates"] += 1
            continue
        if connections[i].lower() in _UNREADABLE:
            unreadable += 1
            continue
        state = states[i].lower()
        if state not in ("poweredon", ""):
            skipped["suspended" if state == "suspended" else "powered off"] += 1
            continue
        host = on[i]
        if host not in hosts:
            skipped["on hosts not in vHost"] += 1
            continue
        per_host.setdefault(host, []).append(i)
    for what, count in skipped.items():
        if count:
            out.notes.append(f"{count} VM(s) {what} not checked (a spec holds the VMs that run on a host)")
    if unreadable:
        out.notes.append(f"{unreadable} VM(s) orphaned, inaccessible or invalid ('Connection state') not checked: "
                         "vCenter does not hold their configuration whole")
    return per_host


def _add_vms(spec: EstateSpec, info: Sheet, rows: list[int], sheets: dict[str, Sheet],
             details: dict[str, Any], mapping: tuple[WorkloadTally, list[str]]) -> None:
    """One host's VMs into its spec, each with its workload (counted in `mapping`'s tally) and its row."""
    tally, attributes = mapping
    seen: set[str] = set()
    keys, uuids = info.keys(), info.texts("VM UUID")
    for i in rows:
        vm, vm_notes = _vm(info, i, sheets, details)
        spec.notes.extend(vm_notes)
        if vm is None:
            continue
        if tally.rules and (chosen := tally.choose(_labels(info, i, attributes))):
            vm["workload"] = chosen
        if vm["name"] in seen:
            vm["name"] = f"{vm['name']} [{info.where(i)}]"
        seen.add(vm["name"])
        spec.origin.vms[vm["name"]] = info.where(i)
        spec.origin.keys[vm["name"]] = "/".join(keys[i])
        if not uuids[i]:
            spec.origin.unkeyed.add(vm["name"])
        spec.doc["vms"].append(vm)


def _close_notes(out: Estate, export: Export, tally: WorkloadTally) -> None:
    """The estate's closing notes: workloads chosen, each assumption with its hosts, what the export lacks."""
    if note := tally.note():
        out.notes.append(note)
    for assumption in (ONE_NODE, FOUR_NODES, UNCERTAIN_NODES, HT_ASSUMED_OFF, HT_FROM_VMS, TIERED_MEMORY):
        names = [s.doc["host"]["name"] for s in out.specs if assumption in s.assumptions]
        if names:
            shown = ", ".join(names[:8]) + (f" and {len(names) - 8} more" if len(names) > 8 else "")
            out.notes.append(f"{assumption}: {len(names)} host(s): {shown}")
    if export.missing:
        out.notes.append(f"sheets not in the export: {', '.join(export.missing)}")
    out.notes.append(NOT_IN_EXPORT)


def _clusters(export: Export) -> dict[str, str]:
    """Host name -> its cluster (vHost "Cluster"), for the hosts that are in one."""
    table = Sheet(export.tables.get("vHost"))
    names, clusters = table.texts("Host"), table.texts("Cluster")
    return {names[i]: clusters[i] for i in table.rows() if clusters[i]}


def _identity(info: Sheet, sheets: Mapping[str, Sheet], out: Estate) -> str:
    """How a VM's rows in vCPU, vMemory and vNetwork are found from its vInfo row: by the strongest
    identity (advisor.rvtools.columns.Sheet.keys) that vInfo and every one of those sheets present
    carry. An export whose sheets disagree (headers written as RVTools' database names name the
    vCenter on vInfo only; CSV files from different exports) is joined by the VM name, and said so."""
    present = [info, *(s for s in sheets.values() if s.table is not None)]
    if all(s.has("VM UUID") and s.has("VI SDK UUID") for s in present):
        return "uuid"
    if all(s.has("VI SDK Server") for s in present):
        return "server"
    if info.has("VI SDK Server") or info.has("VM UUID"):
        lacking = ", ".join(name for name, s in {"vInfo": info, **sheets}.items()
                            if s.table is not None and not s.has("VI SDK Server"))
        out.notes.append(f"{lacking} name no vCenter or VM UUID: their rows are matched to vInfo's by VM name alone "
                         "(equal names from two vCenters would be confused)")
    return "name"


def _index(rows: Sheet, identity: str, joins: list[tuple[str, str]]) -> dict[int, list[int]]:
    """Each vInfo row's rows in a per-VM sheet (vCPU, vMemory: one; vNetwork: one per NIC), by the
    VM identity of `joins` (vInfo's keys)."""
    by_key: dict[tuple[str, str], list[int]] = {}
    keys = rows.keys(identity)
    for i in rows.rows():
        by_key.setdefault(keys[i], []).append(i)
    return {i: by_key[key] for i, key in enumerate(joins) if key in by_key}


def _vm(info: Sheet, i: int, sheets: dict[str, Sheet],
        details: dict[str, dict[int, list[int]]]) -> tuple[dict[str, Any] | None, list[str]]:
    name = info.texts("VM")[i][:200]
    label = f"VM {name or '?'} ({info.where(i)})"
    vcpus = info.numbers("CPUs")[i]
    if not name or not vcpus or vcpus < 1:
        return None, [f"{label}: no name or CPUs value; not checked"]
    cpu = details["vCPU"].get(i, [None])[0]
    mem = details["vMemory"].get(i, [None])[0]
    vm: dict[str, Any] = {"name": name, "vcpus": int(vcpus)}
    notes: list[str] = []
    memory = info.numbers("Memory")[i]
    if memory is None and mem is not None:
        memory = sheets["vMemory"].numbers("Size MiB", "Size MB")[mem]
    if not memory:
        return None, [f"{label}: no memory value; not checked"]
    vm["memory"] = format_mib(int(memory))
    active = info.numbers("Active Memory")[i]  # MiB, as vCenter's quick stats give it
    if active and 0 < active <= memory:
        vm["active_memory"] = format_mib(int(active))
    hw = re.search(r"(\d+)", info.texts("HW version")[i])
    if hw and 3 <= int(hw[1]) <= 30:
        vm["hardware_version"] = int(hw[1])
    latency = info.texts("Latency Sensitivity")[i].lower()
    if latency in _LATENCY and latency != "normal":
        vm["latency_sensitivity"] = latency
    elif latency and latency not in _LATENCY:
        notes.append(f"{label}: latency sensitivity '{latency[:40]}' is not one advisor knows: not stated")
    ft = info.texts("FT State")[i]
    if ft and ft.lower() not in ("notconfigured", "not configured"):
        vm["fault_tolerance"] = True
    if cpu is not None:
        _cpu(vm, sheets["vCPU"], cpu, notes, label)
    if mem is not None:
        _memory(vm, sheets["vMemory"], mem)
    adapters = sheets["vNetwork"].texts("Adapter")
    nics = [{"adapter": adapter} for nic in details["vNetwork"].get(i, ())
            if (adapter := _NICS.get(adapters[nic].lower().replace(" ", "")))]
    if nics:
        vm["nics"] = nics[:10]
    return vm, notes


def _cpu(vm: dict[str, Any], rows: Sheet, i: int, notes: list[str], label: str) -> None:
    cps = rows.numbers("Cores p/s")[i]
    sockets, cpus = rows.numbers("Sockets")[i], rows.numbers("CPUs")[i]
    if cps and cps >= 1 and ((sockets and sockets * cps != vm["vcpus"]) or (cpus and cpus != vm["vcpus"])):
        # The vCPU sheet and vInfo disagree (a row edited, or sheets of two moments): which is right
        # is not known, so vInfo's count stands and the shape is left unstated.
        notes.append(f"{label}: the vCPU sheet's {int(cpus or 0)} CPUs, {int(sockets or 0)} sockets x {int(cps)} "
                     f"cores disagree with vInfo's {vm['vcpus']} CPUs; cores per socket not stated")
    elif cps and cps >= 1:
        if vm["vcpus"] % int(cps):
            notes.append(f"{label}: {int(cps)} cores per socket do not divide {vm['vcpus']} vCPUs; not stated")
        else:
            vm["cores_per_socket"] = int(cps)
    reservation = rows.numbers("Reservation")[i]
    if reservation and reservation > 0:
        vm["cpu_reservation"] = int(reservation)
    limit = rows.numbers("Limit")[i]
    if limit is not None and limit >= 0:
        vm.setdefault("advanced", {})["sched.cpu.max"] = str(int(limit))
    if rows.flags("Hot Add")[i]:
        vm["cpu_hot_add"] = True
        # vCPU "Numa Hotadd Exposed" is the VM's virtualNuma.exposeVnumaOnCpuHotadd (vSphere API
        # 8.0.0.1), the API's form of numa.allowHotadd: hot-add keeps vNUMA on vSphere 8 with hardware
        # version 20 (../shared/reference/vsphere-facts.md 1.4, 1.6; rvtools.md names the column).
        if rows.flags("Numa Hotadd Exposed")[i]:
            vm.setdefault("advanced", {})["numa.allowHotadd"] = "TRUE"


def _memory(vm: dict[str, Any], rows: Sheet, i: int) -> None:
    if rows.flags("Memory Reservation Locked To Max")[i]:
        vm["memory_reservation"] = "full"
    else:
        reservation = rows.numbers("Reservation")[i]
        if reservation and reservation > 0:
            vm["memory_reservation"] = format_mib(int(reservation))
    limit = rows.numbers("Limit")[i]
    if limit is not None and limit >= 0:
        vm.setdefault("advanced", {})["sched.mem.max"] = str(int(limit))
    if rows.flags("Hot Add")[i]:
        vm["memory_hot_add"] = True
