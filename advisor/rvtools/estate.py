"""An RVTools export as specs: one per host, holding its powered-on VMs, and the notes that say
what the export could not tell (../shared/reference/rvtools.md lists the columns and what is
missing from every export).

Read by header name, never by position (custom attributes insert columns after "Annotation").
Numbers arrive as floats or text, booleans as "True"/"False", -1 means unlimited. What an export
never holds stays unknown and is said once per host or per export:
- NUMA nodes per socket and memory per node: nodes = sockets is an assumption, named on every
  host; for a CPU that can split a socket (AMD EPYC NPS, Intel Xeon Scalable SNC, Xeon E5 v3/v4
  Cluster-on-Die) the node count is called uncertain.
- host advanced settings (Numa.PreferHT, ...), every VM advanced key, vGPU profiles, guest settings.
- disk roles (OS or data) and the controller a disk hangs on: storage rules are not evaluated
  on an export, and the report says so.
"""

from __future__ import annotations

import re
from collections.abc import Mapping, Sequence
from dataclasses import dataclass, field
from typing import Any

from advisor.load.estate import VmLabels, choose_workload, cluster_peers, workloads_note
from advisor.model.units import format_mib
from advisor.rvtools.workbook import MAX_CELL, Export, Table
from advisor.vcenter.to_spec import release
from advisor.vocab import read_bool

# vHost "Current CPU power man. policy" as RVTools writes the policy's display name.
_POWER = {"balanced": "balanced", "high performance": "high-performance", "low power": "low-power",
          "custom": "custom"}
_LATENCY = {"low", "normal", "medium", "high"}
_NICS = {"vmxnet3": "vmxnet3", "vmxnet2": "vmxnet", "vmxnet": "vmxnet", "e1000": "e1000", "e1000e": "e1000e",
         "pcnet32": "vlance", "flexible": "vlance", "sriovethernetcard": "sriov", "sr-iov": "sriov"}
# CPU families whose firmware can present more than one NUMA node per socket.
_SPLITTABLE = re.compile(r"EPYC|Xeon\(R\)? (?:Platinum|Gold|Silver|Bronze)|Xeon .*(?:Platinum|Gold|Silver|Bronze)"
                         r"|Xeon.*E5-2\d{3} v[34]|Xeon.*E7-\d{4} v[34]|Xeon.* [4-9]\d{3}[A-Z+]*\b", re.IGNORECASE)
ONE_NODE = "one NUMA node per socket assumed (nodes per socket are not in an RVTools export)"
UNCERTAIN_NODES = ("node count uncertain: the CPU can present several NUMA nodes per socket (NPS, SNC or "
                   "Cluster-on-Die); map the host to a profile where it does")
TIERED_MEMORY = ("NVMe memory tiering on: '# Memory' taken as the DRAM (the export does not say whether it "
                 "counts the NVMe tier)")
NOT_IN_EXPORT = ("disk roles and controller buses, VM advanced keys (numa.*, preferHT, affinity), host NUMA "
                 "settings, vGPU profiles and guest settings are not in an RVTools export: the rules that need "
                 "them are not evaluated")


@dataclass
class Origin:
    """Where a host and its VMs sit in the export, to point findings back at a sheet and row."""

    host: str  # "<file>#vHost:<row>"
    vms: dict[str, str] = field(default_factory=dict)  # VM name in the spec -> "<file>#vInfo:<row>"
    keys: dict[str, str] = field(default_factory=dict)  # VM name in the spec -> "<VI SDK UUID>/<VM UUID>"
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


def _text(value: Any) -> str:
    if value is None:
        return ""
    if isinstance(value, float) and value.is_integer():
        return str(int(value))
    return " ".join(str(value).split())


def _number(value: Any) -> float | None:
    text = _text(value).replace(",", "")
    try:
        return float(text)
    except ValueError:
        return None


def _flag(value: Any) -> bool | None:
    """RVTools writes booleans as "True"/"False" (a workbook may hold real booleans)."""
    return value if isinstance(value, bool) else read_bool(_text(value))


class _Rows:
    """A sheet read by column name: `get(row, "CPUs")` whatever position the column has. Asked about
    ten times per row of sheets of tens of thousands of rows, so a column's position is looked up
    once per sheet and a cell is read inline."""

    def __init__(self, table: Table | None) -> None:
        self.table = table
        self.columns: dict[tuple[str, ...], int | None] = {}

    def get(self, row: list[Any], *names: str) -> Any:
        i = self.columns.get(names, -1)
        if i == -1:
            i = self.columns[names] = self.table.column(*names) if self.table is not None else None
        if i is None or i >= len(row):
            return None
        value = row[i]
        return value[:MAX_CELL].strip() if isinstance(value, str) else value

    def rows(self) -> list[tuple[int, list[Any]]]:
        """The rows holding any value (`any(r)` settles nearly all at C speed; a row of zeros and
        False is looked at again)."""
        if self.table is None:
            return []
        return [(i, r) for i, r in enumerate(self.table.rows) if any(r) or any(v not in ("", None) for v in r)]

    def where(self, i: int) -> str:
        """`export.xlsx#vInfo:12`, or `RVTools_tabvInfo.csv:12` for the CSV form (a file and its line)."""
        assert self.table is not None
        if self.table.source.lower().endswith(".csv"):
            return f"{self.table.source}:{self.table.first_row + i}"
        return f"{self.table.source}#{self.table.where(i)}"


def _key(rows: _Rows, row: list[Any]) -> tuple[str, str]:
    """A VM's identity across sheets: (VI SDK UUID, VM UUID) when the export has them, else (server, name)."""
    uuid = _text(rows.get(row, "VM UUID"))
    if uuid:
        return _text(rows.get(row, "VI SDK UUID")), uuid
    return _text(rows.get(row, "VI SDK Server")), _text(rows.get(row, "VM"))


def _labels(info: _Rows, row: list[Any], attributes: Sequence[str]) -> VmLabels:
    """What a `workloads:` rule tests, from vInfo (custom attributes are columns named after them)."""
    return VmLabels(_text(info.get(row, "VM")), _text(info.get(row, "Folder")),
                    _text(info.get(row, "OS according to the configuration file")),
                    {name: _text(info.get(row, name)) for name in attributes})


def build(export: Export, workloads: Sequence[Any] = ()) -> Estate:
    """The export's hosts as specs; `workloads` are the configuration's `workloads:` rules."""
    out = Estate()
    info = _vinfo(export)
    hosts = _hosts(export, out)
    clusters = _clusters(export)
    sheets = {name: _Rows(export.tables.get(name)) for name in ("vCPU", "vMemory", "vNetwork")}
    details = {name: _index(rows) for name, rows in sheets.items()}
    per_host = _rows_by_host(info, hosts, out)
    chosen_by: dict[tuple[str, int], int] = {}
    attributes = sorted({name for rule in workloads for name in rule.attributes})
    host_docs = {name: doc for name, (doc, _, _) in hosts.items()}
    for name, (host_doc, where, notes) in hosts.items():
        rows = per_host.get(name)
        if not rows:
            continue
        spec = EstateSpec(f"{export.path} (host {name})", {"host": host_doc, "vms": []}, list(notes),
                          Origin(where, cluster=clusters.get(name, "")))
        peers = cluster_peers(name, host_docs, clusters)
        if peers:
            spec.doc["cluster"] = peers
        _add_vms(spec, info, rows, sheets, details, (workloads, attributes, chosen_by))
        if spec.doc["vms"]:
            out.specs.append(spec)
    _close_notes(out, export, chosen_by)
    return out


def _vinfo(export: Export) -> _Rows:
    """The vInfo sheet, refused when it is missing or lacks the columns a VM cannot do without."""
    from advisor.errors import InputError

    info = _Rows(export.tables.get("vInfo"))
    if info.table is None:
        raise InputError("no vInfo sheet: not an RVTools export (or the vInfo CSV file is missing)", file=export.path)
    if info.table.column("VM") is None or info.table.column("CPUs") is None:
        raise InputError("the vInfo sheet has no 'VM' or 'CPUs' column", file=export.path)
    return info


def _rows_by_host(info: _Rows, hosts: Mapping[str, Any], out: Estate) -> dict[str, list[tuple[int, list[Any]]]]:
    """The powered-on, non-template VM rows of each host in vHost; what is left out is counted in a note."""
    per_host: dict[str, list[tuple[int, list[Any]]]] = {}
    skipped = {"powered off": 0, "templates": 0, "on hosts not in vHost": 0}
    for i, row in info.rows():
        if _flag(info.get(row, "Template")):
            skipped["templates"] += 1
            continue
        if _text(info.get(row, "Powerstate")).lower() not in ("poweredon", ""):
            skipped["powered off"] += 1
            continue
        host = _text(info.get(row, "Host"))
        if host not in hosts:
            skipped["on hosts not in vHost"] += 1
            continue
        per_host.setdefault(host, []).append((i, row))
    for what, count in skipped.items():
        if count:
            out.notes.append(f"{count} VM(s) {what} not checked (a spec holds the VMs that run on a host)")
    return per_host


def _add_vms(spec: EstateSpec, info: _Rows, rows: list[tuple[int, list[Any]]], sheets: dict[str, _Rows],
             details: dict[str, Any], mapping: tuple[Sequence[Any], list[str], dict[tuple[str, int], int]]) -> None:
    """One host's VMs into its spec, each with its workload (counted in `mapping`'s tally) and its row."""
    workloads, attributes, chosen_by = mapping
    seen: set[str] = set()
    for i, row in rows:
        vm, vm_notes = _vm(info, i, row, sheets, details)
        spec.notes.extend(vm_notes)
        if vm is None:
            continue
        chosen = choose_workload(workloads, _labels(info, row, attributes))
        if chosen:
            vm["workload"] = chosen[0]
            chosen_by[chosen] = chosen_by.get(chosen, 0) + 1
        if vm["name"] in seen:
            vm["name"] = f"{vm['name']} [{info.where(i)}]"
        seen.add(vm["name"])
        spec.origin.vms[vm["name"]] = info.where(i)
        spec.origin.keys[vm["name"]] = "/".join(_key(info, row))
        spec.doc["vms"].append(vm)


def _close_notes(out: Estate, export: Export, chosen_by: dict[tuple[str, int], int]) -> None:
    """The estate's closing notes: workloads chosen, each assumption with its hosts, what the export lacks."""
    if note := workloads_note(chosen_by):
        out.notes.append(note)
    for assumption in (ONE_NODE, UNCERTAIN_NODES, TIERED_MEMORY):
        names = [s.doc["host"]["name"] for s in out.specs if assumption in s.assumptions]
        if names:
            shown = ", ".join(names[:8]) + (f" and {len(names) - 8} more" if len(names) > 8 else "")
            out.notes.append(f"{assumption}: {len(names)} host(s): {shown}")
    if export.missing:
        out.notes.append(f"sheets not in the export: {', '.join(export.missing)}")
    out.notes.append(NOT_IN_EXPORT)


def _clusters(export: Export) -> dict[str, str]:
    """Host name -> its cluster (vHost "Cluster"), for the hosts that are in one."""
    table = _Rows(export.tables.get("vHost"))
    return {_text(table.get(r, "Host")): c for _, r in table.rows() if (c := _text(table.get(r, "Cluster")))}


def _index(rows: _Rows) -> dict[tuple[str, str], list[list[Any]]]:
    out: dict[tuple[str, str], list[list[Any]]] = {}
    for _, row in rows.rows():
        out.setdefault(_key(rows, row), []).append(row)
    return out


def _hosts(export: Export, out: Estate) -> dict[str, tuple[dict[str, Any], str, list[str]]]:
    table = _Rows(export.tables.get("vHost"))
    hosts: dict[str, tuple[dict[str, Any], str, list[str]]] = {}
    if table.table is None:
        out.notes.append("no vHost sheet: no host can be described, so no VM is checked")
        return hosts
    for i, row in table.rows():
        name = _text(table.get(row, "Host"))
        if not name:
            continue
        doc, problem, notes = _host(table, row, name)
        if problem:
            out.notes.append(f"host {name} ({table.where(i)}): {problem}; its VMs are not checked")
            continue
        hosts[name] = (doc, table.where(i), notes)
    return hosts


def _host(table: _Rows, row: list[Any], name: str) -> tuple[dict[str, Any], str | None, list[str]]:
    sockets = _number(table.get(row, "# CPU"))
    cores = _number(table.get(row, "Cores per CPU"))
    memory = _number(table.get(row, "# Memory"))
    if not sockets or not cores or not memory:
        return {}, "no '# CPU', 'Cores per CPU' or '# Memory' value", []
    ht = _flag(table.get(row, "HT Active"))
    doc: dict[str, Any] = {"name": name[:120]}
    model = _text(table.get(row, "CPU Model"))
    if model:
        doc["cpu"] = model
    doc.update(sockets=int(sockets), cores_per_socket=int(cores), threads_per_core=2 if ht else 1,
               numa_nodes_per_socket=1, memory=format_mib(int(memory)))
    notes = [ONE_NODE]
    if model and _SPLITTABLE.search(model):
        notes.append(UNCERTAIN_NODES)
    if ht is None:
        notes.append("'HT Active' not given: hyper-threading assumed off")
    _tiering(doc, _text(table.get(row, "Memory Tiering Type")), notes)
    speed = _number(table.get(row, "Speed"))
    if speed and 100 <= speed <= 10000:
        doc["core_mhz"] = int(speed)
    version_text = _text(table.get(row, "ESX Version"))
    match = re.search(r"(\d+\.\d+(?:\.\d+)?)", version_text)
    if not match:
        return {}, f"ESX Version '{version_text[:60]}' not understood", []
    version, problem = release(match[1])
    if problem:
        return {}, problem, []
    doc["esxi"] = version
    policy = _text(table.get(row, "Current CPU power man. policy")).lower()
    if policy in _POWER:
        doc["power_policy"] = _POWER[policy]
    elif policy:
        notes.append(f"power policy '{policy[:40]}' is not one advisor knows: not stated")
    return doc, None, notes


def _tiering(doc: dict[str, Any], kind: str, notes: list[str]) -> None:
    """vHost "Memory Tiering Type" (vSphere 8.0 U3 and later exports), in the words of the vSphere API's
    HostMemoryTieringType: noTiering, hardwareTiering (memory tiered by the hardware, such as Intel
    Optane PMem in Memory Mode), softwareTiering (ESXi's NVMe memory tiering). Only the last is the
    spec's `memory_tiering`; the column absent (older RVTools) leaves the spec's default, off, as
    every spec without the field has it."""
    word = kind.lower()
    if word == "softwaretiering":
        doc["memory_tiering"] = True
        # Whether "# Memory" counts the NVMe tier is not stated: taken as DRAM, MEM006 (active memory
        # over half the DRAM) can only fire later than it should, never sooner.
        notes.append(TIERED_MEMORY)
    elif word == "hardwaretiering":
        notes.append("hardware memory tiering (such as PMem in Memory Mode) is not modelled: the host's "
                     "memory is taken as stated")
    elif word and word != "notiering":
        notes.append(f"memory tiering type '{kind[:40]}' is not one advisor knows: not stated")


def _vm(info: _Rows, i: int, row: list[Any], sheets: dict[str, _Rows],
        details: dict[str, dict[tuple[str, str], list[list[Any]]]]) -> tuple[dict[str, Any] | None, list[str]]:
    name = _text(info.get(row, "VM"))[:200]
    label = f"VM {name or '?'} ({info.where(i)})"
    vcpus = _number(info.get(row, "CPUs"))
    if not name or not vcpus or vcpus < 1:
        return None, [f"{label}: no name or CPUs value; not checked"]
    key = _key(info, row)
    cpu = details["vCPU"].get(key, [None])[0]
    mem = details["vMemory"].get(key, [None])[0]
    vm: dict[str, Any] = {"name": name, "vcpus": int(vcpus)}
    notes: list[str] = []
    memory = _number(info.get(row, "Memory"))
    if memory is None and mem is not None:
        memory = _number(sheets["vMemory"].get(mem, "Size MiB", "Size MB"))
    if not memory:
        return None, [f"{label}: no memory value; not checked"]
    vm["memory"] = format_mib(int(memory))
    active = _number(info.get(row, "Active Memory"))  # MiB, as vCenter's quick stats give it
    if active and 0 < active <= memory:
        vm["active_memory"] = format_mib(int(active))
    hw = re.search(r"(\d+)", _text(info.get(row, "HW version")))
    if hw and 3 <= int(hw[1]) <= 30:
        vm["hardware_version"] = int(hw[1])
    latency = _text(info.get(row, "Latency Sensitivity")).lower()
    if latency in _LATENCY and latency != "normal":
        vm["latency_sensitivity"] = latency
    ft = _text(info.get(row, "FT State"))
    if ft and ft.lower() not in ("notconfigured", "not configured"):
        vm["fault_tolerance"] = True
    if cpu is not None:
        _cpu(vm, sheets["vCPU"], cpu, notes, label)
    if mem is not None:
        _memory(vm, sheets["vMemory"], mem)
    nics = [{"adapter": adapter} for nic in details["vNetwork"].get(key, [])
            if (adapter := _NICS.get(_text(sheets["vNetwork"].get(nic, "Adapter")).lower().replace(" ", "")))]
    if nics:
        vm["nics"] = nics[:10]
    return vm, notes


def _cpu(vm: dict[str, Any], rows: _Rows, row: list[Any], notes: list[str], label: str) -> None:
    cps = _number(rows.get(row, "Cores p/s"))
    if cps and cps >= 1:
        if vm["vcpus"] % int(cps):
            notes.append(f"{label}: {int(cps)} cores per socket do not divide {vm['vcpus']} vCPUs; not stated")
        else:
            vm["cores_per_socket"] = int(cps)
    reservation = _number(rows.get(row, "Reservation"))
    if reservation and reservation > 0:
        vm["cpu_reservation"] = int(reservation)
    limit = _number(rows.get(row, "Limit"))
    if limit is not None and limit >= 0:
        vm.setdefault("advanced", {})["sched.cpu.max"] = str(int(limit))
    if _flag(rows.get(row, "Hot Add")):
        vm["cpu_hot_add"] = True


def _memory(vm: dict[str, Any], rows: _Rows, row: list[Any]) -> None:
    if _flag(rows.get(row, "Memory Reservation Locked To Max")):
        vm["memory_reservation"] = "full"
    else:
        reservation = _number(rows.get(row, "Reservation"))
        if reservation and reservation > 0:
            vm["memory_reservation"] = format_mib(int(reservation))
    limit = _number(rows.get(row, "Limit"))
    if limit is not None and limit >= 0:
        vm.setdefault("advanced", {})["sched.mem.max"] = str(int(limit))
    if _flag(rows.get(row, "Hot Add")):
        vm["memory_hot_add"] = True
