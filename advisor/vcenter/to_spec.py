"""What collect.py read, as spec documents `advisor check` reads — and what a spec cannot say.

One spec per host with the powered-on VMs it runs (a spec is one host and the VMs placed on it
together, so a cluster's VMs are not pooled onto one host); the cluster is named in the host's
description and VMs keep their vCenter names. Whatever the spec model cannot state is never approximated: a host
advisor cannot model is left out with its reason, and a VM setting with no spec field is named
in a note beside the spec. Values are duck-typed pyVmomi objects, so this module needs no pyVmomi.
"""

from __future__ import annotations

import re
from collections.abc import Sequence
from dataclasses import dataclass, field
from fnmatch import fnmatchcase
from typing import Any

from advisor.load.estate import VmLabels, WorkloadTally, cluster_peers
from advisor.model.bootdisk import assumed_boot_disks
from advisor.vcenter.collect import Inventory, Record
from advisor.vcenter.core import SCALAR_KEYS, format_mib, read_bool
from advisor.vcenter.devices import map_devices

# HostPowerPolicy.shortName, the non-localised policy id (vSphere Web Services API,
# HostPowerPolicy); the values are those ESXi reports (govmomi simulator/esx/host_config_info.go).
_POWER = {"static": "high-performance", "dynamic": "balanced", "low": "low-power", "custom": "custom"}
_LATENCY = {"low", "normal", "medium", "high"}
# Keys a VM passes to its guest (cloud-init data, tokens): never copied into a spec.
_PRIVATE_KEY = re.compile(r"^guestinfo\.", re.IGNORECASE)
# .vmx keys the API also reports as structured properties (read above); the structured value wins.
_STRUCTURED_KEY = re.compile(r"^(ethernet\d+|scsi\d+)\.virtualdev$|^sched\.mem\.pin$", re.IGNORECASE)
# vCenter escapes these three in ManagedEntity.name (vSphere Web Services API, ManagedEntity.name).
_NAME_ESCAPES = {"%2f": "/", "%5c": "\\", "%25": "%"}
_ESCAPE = re.compile("%2f|%5c|%25", re.IGNORECASE)


@dataclass
class Filters:
    """--cluster/--host/--vm globs (case-sensitive, as vCenter names are); empty keeps all."""

    clusters: tuple[str, ...] = ()
    hosts: tuple[str, ...] = ()
    vms: tuple[str, ...] = ()


def _matches(name: str | None, globs: tuple[str, ...]) -> bool:
    return not globs or (name is not None and any(fnmatchcase(name, g) for g in globs))


@dataclass
class SpecDoc:
    """One spec to write: its file stem, the document, notes about what it leaves out, and where
    the host and each VM sit in vCenter (`SERVER/cluster/host[/vm]`, see `location`)."""

    stem: str
    doc: dict[str, Any]
    notes: list[str] = field(default_factory=list)
    location: str = ""
    vms: dict[str, str] = field(default_factory=dict)  # VM name in the spec -> its location
    uuids: dict[str, str] = field(default_factory=dict)  # VM name in the spec -> its instance UUID
    cluster: str = ""  # the host's cluster ("" for a standalone host)
    # Each VM's boot disk taken by the assumption (advisor.model.bootdisk): written beside the spec,
    # one line per VM, but summed up in one note of the run (most VMs state no boot order, and a
    # line per VM would bury a live estate's report).
    assumed: list[str] = field(default_factory=list)


@dataclass
class Mapping:
    specs: list[SpecDoc] = field(default_factory=list)
    skipped: list[str] = field(default_factory=list)  # hosts and VMs not written, with the reason
    notes: list[str] = field(default_factory=list)  # what the configuration's `workloads:` chose


def entity_name(raw: str) -> str:
    """A name as the user typed it: vCenter's three escapes undone in one pass."""
    return _ESCAPE.sub(lambda m: _NAME_ESCAPES[m[0].lower()], raw)


def location(server: str, *raw_names: str) -> str:
    """Where an object sits: `SERVER/cluster/host/vm`, each name as vCenter holds it, with `/`, `\\`
    and `%` escaped (%2f, %5c, %25), as vSphere inventory paths write them, so the path stays one
    name per step. A standalone host sits in a compute resource of its own name (vSphere Web
    Services API, ComputeResource), which takes the cluster's place."""
    return "/".join((server, *raw_names))


class _Host:
    """A host of the inventory: its spec `host:` mapping (or the reason there is none), its cluster."""

    __slots__ = ("cluster", "doc", "name", "place", "problem", "record", "selected")

    def __init__(self, record: Record, inventory: Inventory, filters: Filters) -> None:
        raw = record.get("name", record.moid)
        parent = record.get("parent")
        moid = getattr(parent, "_moId", None) if parent is not None else None
        raw_cluster = inventory.clusters.get(moid) if isinstance(moid, str) else None
        self.record, self.name = record, entity_name(raw)
        self.cluster = entity_name(raw_cluster) if raw_cluster else None
        self.place = location(inventory.server, raw_cluster or raw, raw)
        self.selected = _matches(self.name, filters.hosts) and _matches(self.cluster, filters.clusters)
        self.doc, self.problem = map_host(record, self.name)


def map_inventory(inventory: Inventory, filters: Filters | None = None, workloads: Sequence[Any] = ()) -> Mapping:
    """One spec per selected host with its powered-on VMs; `workloads` are the configuration's
    `workloads:` rules. Every host of a selected host's cluster, selected or not, is its `cluster:`
    peer: DRS and HA place VMs by cluster, not by what this run selected."""
    filters = filters or Filters()
    out = Mapping()
    hosts = {record.moid: _Host(record, inventory, filters) for record in inventory.hosts}
    for host in hosts.values():
        if host.selected and host.problem:
            out.skipped.append(f"host {host.name}: {host.problem}; its VMs are not checked")
    vms_by_host = _running_vms(inventory, hosts, filters, out)
    peers = {h.name: h.doc for h in hosts.values() if not h.problem}
    cluster_of = {h.name: h.cluster for h in hosts.values() if h.cluster and not h.problem}
    peers_of = cluster_peers(peers, cluster_of)
    tally = WorkloadTally(workloads)
    for moid, host in hosts.items():
        records = vms_by_host.get(moid, [])
        if not records or host.problem or not host.selected:
            continue
        spec = _spec(dict(host.doc), host, records, inventory, tally)
        spec.doc["host"]["description"] += _product_note(host.record.get("config.product"))
        if cluster := peers_of.get(host.name):
            spec.doc["cluster"] = cluster
        left_out = sorted(h.name for h in hosts.values() if h.problem and h.cluster and h.cluster == host.cluster)
        if left_out:
            spec.notes.append(f"cluster {host.cluster}: {', '.join(left_out)} cannot be described, so "
                              f"{'it is' if len(left_out) == 1 else 'they are'} not among the cluster's hosts")
        if spec.doc["vms"]:
            out.specs.append(spec)
        else:  # a spec holds at least one VM
            out.skipped.extend(spec.notes)
    if note := tally.note():
        out.notes.append(note)
    if assumed := sum(len(spec.assumed) for spec in out.specs):
        out.notes.append(assumed_boot_disks(assumed))
    if inventory.fields is None and any(rule.attributes for rule in workloads):
        out.notes.append("custom attribute names could not be read (a field definition the API answer does not "
                         "complete): `workloads:` rules on attributes matched no VM")
    return out


def _running_vms(inventory: Inventory, hosts: dict[str, _Host], filters: Filters,
                 out: Mapping) -> dict[str, list[Record]]:
    """The powered-on VMs of each selected host that can be described, by host moid."""
    vms_by_host: dict[str, list[Record]] = {}
    powered_off = 0
    for vm in inventory.vms:
        host_ref = vm.get("runtime.host")
        host = hosts.get(host_ref._moId) if host_ref is not None else None
        if vm.get("config.template") or host is None or not host.selected or host.problem:
            continue  # templates run nowhere; `advisor lint` reads them as files
        if not _matches(entity_name(vm.get("name", vm.moid)), filters.vms):
            continue
        if vm.get("runtime.powerState") != "poweredOn":
            powered_off += 1  # registered on a host but placing no load on it
            continue
        vms_by_host.setdefault(host_ref._moId, []).append(vm)
    if powered_off:
        out.skipped.append(f"{powered_off} powered-off VM{'s' if powered_off > 1 else ''} not checked: a spec "
                           "states the VMs that run on a host together, and these place no load on it")
    return vms_by_host


def labels(vm: Record, inventory: Inventory) -> VmLabels:
    """What a `workloads:` rule tests: the name, the folder path below the datacenter's VM folder
    (as the vSphere Client's VMs and Templates view shows it), the guest OS display name
    (VirtualMachineConfigInfo.guestFullName, the name RVTools' "OS according to the configuration
    file" shows) and the custom attributes (CustomFieldsManager names, CustomFieldStringValue values).
    vSphere tags live in the vSphere Automation (REST) API, which advisor does not read."""
    names: list[str] = []
    folder = getattr(vm.get("parent"), "_moId", None)
    for _ in range(len(inventory.folders)):  # a folder tree has no cycle; bounded all the same
        name, up = inventory.folders.get(folder, ("", None)) if isinstance(folder, str) else ("", None)
        if up is None:  # the datacenter's VM folder (or not a folder at all: a vApp)
            break
        names.append(entity_name(name))
        folder = up
    fields = inventory.fields or {}
    attributes = {fields[int(v.key)]: str(getattr(v, "value", "") or "")
                  for v in vm.get("customValue") or () if int(v.key) in fields}
    return VmLabels(entity_name(vm.get("name", vm.moid)), "/".join(reversed(names)),
                    str(vm.get("config.guestFullName") or ""), attributes)


def _spec(host: dict[str, Any], place: _Host, vms: list[Record], inventory: Inventory,
          tally: WorkloadTally) -> SpecDoc:
    cluster = place.cluster
    where = f"host {host['name']}" + (f" in cluster {cluster}" if cluster else "")
    host["description"] = f"{where}, read from vCenter {inventory.server}"
    doc: dict[str, Any] = {"host": host, "vms": []}
    spec = SpecDoc(_stem(host["name"]), doc, location=place.place, cluster=cluster or "")
    group = host["name"]
    seen: set[str] = set()
    for record in sorted(vms, key=lambda r: (entity_name(r.get("name", r.moid)), r.moid)):
        assumed: list[str] = []
        vm, notes = map_vm(record, assumed)
        if vm is None:
            spec.notes.extend(notes)
            continue
        if vm["name"] in seen:  # names are unique per folder in vCenter, not per cluster
            notes.append(f"VM {vm['name']} ({record.moid}): another VM of {group} has this name; "
                         f"named '{vm['name']} [{record.moid}]' here")
            vm["name"] = f"{vm['name']} [{record.moid}]"
        seen.add(vm["name"])
        if tally.rules and (chosen := tally.choose(labels(record, inventory))):
            vm["workload"] = chosen
        spec.vms[vm["name"]] = location(place.place, record.get("name", record.moid))
        if uuid := record.get("config.instanceUuid"):
            spec.uuids[vm["name"]] = str(uuid)
        doc["vms"].append(vm)
        spec.notes.extend(notes)
        spec.assumed.extend(assumed)
    return spec


def _product_note(product: Any) -> str:
    full = " ".join(str(getattr(product, "fullName", "") or "").split())
    version = str(getattr(product, "version", "") or "")
    note = f"; {full}" if full else ""
    if version and int(version.split(".")[0] or 0) < 7:
        note += " (before 7.0 the update level is in the build number only; stated as the release)"
    return note


def _stem(name: str) -> str:
    return re.sub(r"[^A-Za-z0-9._-]+", "_", name).strip("._") or "vcenter"


def map_host(record: Record, name: str) -> tuple[dict[str, Any], str | None]:
    """A host as a spec `host:` mapping, or the reason advisor cannot model it."""
    if record.missing:
        return {}, f"properties not readable ({', '.join(sorted(record.missing))})"
    if record.get("runtime.connectionState") not in (None, "connected"):
        return {}, f"not connected ({record.get('runtime.connectionState')})"
    cpu, numa = record.get("hardware.cpuInfo"), record.get("hardware.numaInfo")
    if cpu is None or numa is None or not numa.numNodes or not record.get("hardware.memorySize"):
        return {}, "vCenter reports no CPU, memory or NUMA information for it"
    counts = (cpu.numCpuPackages, cpu.numCpuCores, cpu.numCpuThreads, numa.numNodes)
    sockets, cores, threads, nodes = (int(n) for n in counts)
    if not sockets or cores % sockets or threads % cores:
        return {}, f"{sockets} sockets, {cores} cores, {threads} threads do not divide evenly"
    if nodes < sockets:
        return {}, (
            f"{nodes} NUMA node{'s' if nodes > 1 else ''} for {sockets} sockets (advisor models at least "
            "one node per socket; node interleaving in the BIOS hides the NUMA layout)"
        )
    if nodes % sockets or (cores // sockets) % (nodes // sockets):
        return {}, f"{nodes} NUMA nodes do not split {sockets} sockets of {cores // sockets} cores evenly"
    host: dict[str, Any] = {"name": name}
    if model := record.get("summary.hardware.cpuModel"):
        host["cpu"] = " ".join(str(model).split())
    host.update(
        sockets=sockets,
        cores_per_socket=cores // sockets,
        threads_per_core=threads // cores,
        numa_nodes_per_socket=nodes // sockets,
        memory=format_mib(int(record.get("hardware.memorySize", 0)) // (1 << 20)),
    )
    if cpu.hz:
        host["core_mhz"] = round(cpu.hz / 1e6)
    version, problem = esxi_version(record.get("config.product"))
    if problem:
        return {}, problem
    host["esxi"] = version
    policy = record.get("config.powerSystemInfo.currentPolicy")
    short = getattr(policy, "shortName", None)
    if short is not None and short not in _POWER:
        return {}, f"power policy '{short}' is not one advisor knows"
    if short is not None:
        host["power_policy"] = _POWER[str(short)]
    options = {o.key.lower(): o.value for o in record.get("config.option") or ()}
    for key, field_name in (("numa.preferht", "prefer_ht"), ("numa.followcorespersocket", "follow_cores_per_socket")):
        if key in options:
            host[field_name] = read_bool(str(options[key])) is True
    return host, None


def esxi_version(product: Any) -> tuple[str, str | None]:
    """ESXi's AboutInfo.version as a spec version. From 7.0 the third number is the update
    (Broadcom KB 395110, "Unified VCF Versioning in ESXi Release": 8.0.2 is 8.0 Update 2);
    before 7.0 it is always 0 and the update shows only in the build number, so such a host
    is stated as the release itself and its description says so."""
    return release(getattr(product, "version", None) or "")


def release(text: str) -> tuple[str, str | None]:
    """An ESXi version string (`8.0.3`, as AboutInfo, vmware.log and RVTools' "ESX Version" write
    it) as a spec version (`8.0 U3`), by the rule esxi_version states."""
    match = re.fullmatch(r"(\d+)\.(\d+)(?:\.(\d+))?", text.strip())
    if not match:
        return "", f"ESXi version '{text}' not understood"
    major, minor, third = int(match[1]), int(match[2]), int(match[3] or 0)
    if major >= 7 and third:
        return f"{major}.{minor} U{third}", None
    return f"{major}.{minor}", None


def map_vm(record: Record, assumed: list[str] | None = None) -> tuple[dict[str, Any] | None, list[str]]:
    """A VM as a spec `vms:` entry plus notes on what the spec cannot state; the boot disk's
    assumption, if any, into `assumed` when given (else among the notes)."""
    name = entity_name(record.get("name", record.moid))
    label = f"VM {name}"
    if record.missing or record.get("config.hardware.numCPU") is None:
        reason = ", ".join(sorted(record.missing)) or "no configuration (inaccessible or orphaned)"
        return None, [f"{label}: not checked: properties not readable ({reason})"]
    notes: list[str] = []
    vcpus = int(record.get("config.hardware.numCPU"))
    vm: dict[str, Any] = {"name": name, "vcpus": vcpus}
    cps = int(record.get("config.hardware.numCoresPerSocket") or 0)
    if cps:  # 0 or unset: ESXi chooses at power-on (vSphere 8), which is the spec's default too
        if vcpus % cps:
            return None, [f"{label}: not checked: {cps} cores per socket do not divide {vcpus} vCPUs"]
        vm["cores_per_socket"] = cps
    vm["memory"] = format_mib(int(record.get("config.hardware.memoryMB")))
    if (hw := re.fullmatch(r"vmx-(\d+)", record.get("config.version") or "")) is not None:
        vm["hardware_version"] = int(hw[1])
    if guest := record.get("config.guestId"):
        vm["guest_os"] = str(guest)
    level = getattr(record.get("config.latencySensitivity"), "level", None)
    level = None if level is None else str(level)
    if level in _LATENCY and level != "normal":
        vm["latency_sensitivity"] = level
    elif level not in (None, "normal"):
        notes.append(f"{label}: latency sensitivity '{level}' has no spec value; checked as 'normal'")
    _allocation(vm, record, notes, label)
    if record.get("config.cpuHotAddEnabled"):
        vm["cpu_hot_add"] = True
    if record.get("config.memoryHotAddEnabled"):
        vm["memory_hot_add"] = True
    affinity = getattr(record.get("config.cpuAffinity"), "affinitySet", None)
    if affinity:
        vm["cpu_affinity"] = ",".join(str(int(c)) for c in sorted(affinity))
    if record.get("runtime.faultToleranceState") not in (None, "notConfigured"):
        vm["fault_tolerance"] = True
    boot_order = getattr(record.get("config.bootOptions"), "bootOrder", None) or ()
    notes.extend(map_devices(vm, record.get("config.hardware.device") or (), label, boot_order, assumed))
    advanced = _extra_config(record.get("config.extraConfig") or ())
    if advanced:
        vm["advanced"] = {**advanced, **vm.get("advanced", {})}  # the API's limits win over stale keys
    return vm, notes


def _allocation(vm: dict[str, Any], record: Record, notes: list[str], label: str) -> None:
    """Reservations map to spec fields; limits to their .vmx keys (sched.cpu.max, sched.mem.max)."""
    cpu, mem = record.get("config.cpuAllocation"), record.get("config.memoryAllocation")
    if cpu is not None and (cpu.reservation or 0) > 0:
        vm["cpu_reservation"] = int(cpu.reservation)
    if record.get("config.memoryReservationLockedToMax"):
        vm["memory_reservation"] = "full"
    elif mem is not None and (mem.reservation or 0) > 0:
        vm["memory_reservation"] = format_mib(int(mem.reservation))
    limits = {}
    if cpu is not None and cpu.limit is not None and cpu.limit >= 0:
        limits["sched.cpu.max"] = str(int(cpu.limit))
    if mem is not None and mem.limit is not None and mem.limit >= 0:
        limits["sched.mem.max"] = str(int(mem.limit))
    if limits:
        vm["advanced"] = limits


def _extra_config(options: Any) -> dict[str, str]:
    """extraConfig as `advanced:` keys, minus the guest's private data channel."""
    out: dict[str, str] = {}
    for option in options:
        key, value = str(option.key), option.value
        if _PRIVATE_KEY.match(key) or _STRUCTURED_KEY.match(key) or key.lower() in SCALAR_KEYS or value is None:
            continue
        out[key] = str(value)
    return out
