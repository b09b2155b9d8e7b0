"""The vHost sheet of an RVTools export as spec hosts, and what each rests on that the export does not
state (../shared/reference/rvtools.md lists the columns; "Not in an export at all" what is missing):
- NUMA nodes per socket and memory per node: one node per socket is assumed and named on every
  host; for a CPU that can split a socket (AMD EPYC NPS, Intel Xeon Scalable SNC, Xeon E5 v3/v4
  Cluster-on-Die) the node count is called uncertain (advisor.rvtools.alternatives checks the
  findings again under each setting, advisor.rvtools.hostrules takes the configuration's value);
- hyper-threading when 'HT Active' is blank: off is assumed, unless a running VM proves it on.
"""

from __future__ import annotations

import re
from collections.abc import Mapping
from typing import Any

from advisor.errors import InputError
from advisor.load.hosts import host_from_data
from advisor.model.units import format_mib
from advisor.rvtools.columns import Sheet
from advisor.rvtools.workbook import Export
from advisor.vcenter.to_spec import release

# name -> (spec `host:` mapping, "<file>#vHost:<row>", the assumptions it rests on)
Hosts = dict[str, tuple[dict[str, Any], str, list[str]]]
# vHost "Current CPU power man. policy" as RVTools writes the policy's display name.
_POWER = {"balanced": "balanced", "high performance": "high-performance", "low power": "low-power",
          "custom": "custom"}

# CPU families whose firmware can present more than one NUMA node per socket.
# Xeon 6 and Xeon Max name no tier: "Intel(R) Xeon(R) 6980P", "Intel(R) Xeon(R) CPU Max 9480"; the
# number must follow "Xeon" directly, or "Xeon(R) CPU E7- 4870" (Westmere-EX, one node per socket)
# would be taken for one.
SPLITTABLE = re.compile(r"EPYC|Xeon\(R\)? (?:Platinum|Gold|Silver|Bronze)|Xeon .*(?:Platinum|Gold|Silver|Bronze)"
                        r"|Xeon.*E5-2\d{3} v[34]|Xeon.*E7-\d{4} v[34]"
                        r"|Xeon(?:\(R\))?(?: CPU)? (?:Max )?[69]\d{3}[A-Z+]*\b", re.IGNORECASE)
# AMD EPYC 7001 (Naples: 7251 ... 7601, P for one-socket parts) presents one NUMA node per die, four
# per socket, by default (vsphere-facts.md 1.9, from Denneman's "AMD EPYC Naples vs Rome"); its BIOS
# can interleave memory across the dies and present fewer, so the count stays uncertain.
NAPLES = re.compile(r"EPYC 7\d\d1P?\b", re.IGNORECASE)
ONE_NODE = "one NUMA node per socket assumed (nodes per socket are not in an RVTools export)"
FOUR_NODES = ("four NUMA nodes per socket assumed, AMD EPYC 7001's default of one per die (nodes per socket are "
              "not in an RVTools export)")
UNCERTAIN_NODES = ("node count uncertain: the CPU can present several NUMA nodes per socket (NPS, SNC or "
                   "Cluster-on-Die); state it in .advisor.yaml (estate_hosts:) where it does")
TIERED_MEMORY = ("NVMe memory tiering on: '# Memory' taken as the DRAM (the export does not say whether it "
                 "counts the NVMe tier)")
HT_ASSUMED_OFF = "'HT Active' not given: hyper-threading assumed off"
HT_FROM_VMS = "'HT Active' not given: hyper-threading on, since a running VM has more vCPUs than the host has cores"


def read_hosts(export: Export, notes: list[str], problems: list[tuple[str, str | None, str]]) -> Hosts:
    """The vHost sheet's hosts: name -> (spec `host:` mapping, its row, what it assumes). A host that
    cannot be described is left out with a note (or, for a value out of range, a problem)."""
    table = Sheet(export.tables.get("vHost"))
    hosts: Hosts = {}
    if table.table is None:
        notes.append("no vHost sheet: no host can be described, so no VM is checked")
        return hosts
    for i in table.rows():
        name = table.texts("Host")[i]
        if not name:
            continue
        doc, problem, assumed = _host(table, i, name)
        if problem:
            notes.append(f"host {name} ({table.where(i)}): {problem}; its VMs are not checked")
            continue
        try:  # a value out of a host's range is refused here, so it spoils no cluster peer's spec
            host_from_data(doc, table.where(i))
        except InputError as exc:
            problems.append((table.where(i), exc.field, f"host {name}: {exc.message}; its VMs are not checked"))
            continue
        hosts[name] = (doc, table.where(i), assumed)
    return hosts


def _host(table: Sheet, i: int, name: str) -> tuple[dict[str, Any], str | None, list[str]]:
    sockets = table.numbers("# CPU")[i]
    cores = table.numbers("Cores per CPU")[i]
    memory = table.numbers("# Memory")[i]
    if not sockets or not cores or not memory:
        return {}, "no '# CPU', 'Cores per CPU' or '# Memory' value", []
    ht = table.flags("HT Active")[i]
    if ht is None and table.flags("HT Available")[i] is False:
        ht = False  # no hyper-threads to turn on: off is a fact, not an assumption
    doc: dict[str, Any] = {"name": name[:120]}
    model = table.texts("CPU Model")[i]
    if model:
        doc["cpu"] = model
    naples = bool(model and NAPLES.search(model)) and int(cores) % 4 == 0
    doc.update(sockets=int(sockets), cores_per_socket=int(cores), threads_per_core=2 if ht else 1,
               numa_nodes_per_socket=4 if naples else 1, memory=format_mib(int(memory)))
    notes = [FOUR_NODES if naples else ONE_NODE]
    if model and SPLITTABLE.search(model):
        notes.append(UNCERTAIN_NODES)
    if ht is None:
        notes.append(HT_ASSUMED_OFF)
    _tiering(doc, table.texts("Memory Tiering Type")[i], notes)
    speed = table.numbers("Speed")[i]
    if speed and 100 <= speed <= 10000:
        doc["core_mhz"] = int(speed)
    version_text = table.texts("ESX Version")[i]
    match = re.search(r"(\d+\.\d+(?:\.\d+)?)", version_text)
    if not match:
        return {}, f"ESX Version '{version_text[:60]}' not understood", []
    version, problem = release(match[1])
    if problem:
        return {}, problem, []
    doc["esxi"] = version
    policy = table.texts("Current CPU power man. policy")[i].lower()
    if policy in _POWER:
        doc["power_policy"] = _POWER[policy]
    elif policy:
        notes.append(f"power policy '{policy[:40]}' is not one advisor knows: not stated")
    return doc, None, notes


def threads_from_running_vms(hosts: Hosts, info: Sheet, per_host: Mapping[str, list[int]]) -> None:
    """A host whose export leaves 'HT Active' blank has hyper-threading on when one of its powered-on
    VMs has more vCPUs than the host has cores: a VM cannot have more vCPUs than the host has logical
    processors (vSphere 6.7 Virtual Machine Administration, "CPU Configuration", GUID-13AD347E;
    ../shared/reference/vsphere-facts.md 1.9), so the running VM states it. Assuming it off would
    make the VM's own power-on impossible (HOST003) and shrink every node's threads."""
    cpus = info.numbers("CPUs")
    for name, (doc, _, notes) in hosts.items():
        if HT_ASSUMED_OFF not in notes:
            continue
        cores = doc["sockets"] * doc["cores_per_socket"]
        if any((cpus[i] or 0) > cores for i in per_host.get(name, ())):
            doc["threads_per_core"] = 2
            notes[notes.index(HT_ASSUMED_OFF)] = HT_FROM_VMS


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
