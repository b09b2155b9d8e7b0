"""Findings that rest on what an RVTools export cannot state (issue 37, item 2).

An export gives no NUMA node count, and some leave 'HT Active' blank; advisor.rvtools.vhost then
assumes one node per socket (four on AMD EPYC 7001, its default) and hyper-threading off, and names
each assumption. An assumption must never raise a finding above what the known facts support. So
a host whose spec rests on one is checked again under each setting the hardware documents as
possible, and a finding that does not fire under every one of them holds only under the
assumption: it is kept, capped at info and worded "uncertain" (no document settles which setting
the host runs).

The settings tried:
- nodes per socket on a CPU that can split its sockets: 1 and 2 on Intel (Cluster-on-Die on Xeon
  E5/E7 v3/v4, Sub-NUMA Clustering on Xeon Scalable: a two-socket host shows 4 nodes); 1, 2 and 4 on
  AMD EPYC (the BIOS's NPS1/NPS2/NPS4; ../shared/reference/vsphere-facts.md 1.9, from Denneman's
  NUMA deep dive part 5 and SNC post, and Broadcom KB 432801). A count that does not divide the
  socket's cores is left out. EPYC's CCX-as-NUMA is left out: Broadcom advises against it on ESXi 8
  and 9, and HOST007 is the finding for a host that runs it.
- threads per core 1 and 2 when 'HT Active' is blank (whether ESXi uses the hyper-threads is then
  not stated).
Every combination of the two is tried: a finding stands only when it fires in all of them.

Only findings of rules that read a fact the settings can change are checked again (DEPENDS): the
rest (a NIC type, a hardware version, a reservation) fire alike under every setting.

A finding is matched across the runs by its rule (or its FAMILY) and subject ("vm sql01"), and holds
when every run has it at its severity or above; its message keeps the assumed figures (a node's
cores, its memory), which the note on the assumption names. A VM whose finding is capped gets its
recommendation built again without that finding's fix: what advisor recommends follows what it
finally finds.

Not done here: cluster peers with another CPU (or another host's blank 'HT Active') keep their own
assumption in every run; a finding that would fire only under another setting is not reported (the
host's note says its node count is uncertain).
"""

from __future__ import annotations

import copy
import itertools
from collections.abc import Iterable
from typing import Any, NamedTuple

from advisor.vocab import SEVERITY_RANK

_EPYC = "epyc"
UNCERTAIN = "uncertain, holds only if {what} (the export does not say): "
_WHAT = {"nodes": "each socket is {nodes}", "ht": "hyper-threading is off",
         "both": "each socket is {nodes} and hyper-threading is off"}
_NODES = {1: "one NUMA node", 4: "four NUMA nodes"}  # the counts advisor.rvtools.vhost assumes
# Facts whose value can change with the nodes per socket or the threads per core: the predicted
# topology, its placement on the host's nodes, the cluster's layouts and smallest hosts, SQL Server's
# view of the guest's nodes, and the host and VM facts computed from nodes or threads. A rule reading
# none of them fires alike under every setting. (Listing too much only costs time; too little would
# let a finding through unchecked, so every family computed from the topology is listed whole.)
_DEPENDS_PREFIXES = ("topo.", "place.", "cluster.", "sql.")
_NOT_DEPENDS = frozenset({"cluster.hw_unsupported_hosts", "cluster.hw_unsupported_text", "cluster.oldest_max_hw",
                          "sql.present"})
_DEPENDS = frozenset({"host.logical_cpus", "host.ht", "host.nodes", "host.nps", "host.sub_numa", "host.ccx_as_numa",
                      "host.cores_per_node", "host.threads_per_node", "host.memory_per_node_mib",
                      "vm.aligned_vcpus", "vm.aligned_vcpus_text", "vm.effective_cores_per_socket",
                      "vm.fitting_cores_per_socket", "vm.exclusive_cores", "vm.high_ht_supported",
                      "vm.sockets", "vm.guest_socket_cores_per_socket", "vm.latency_max_vcpus"})


# Rules that say one thing in two forms on one subject: either fires, by how the setting splits it
# (HOST001 uneven and HOST005 even overload of the nodes; NUMA007 and NUMA014 remote memory of a VM
# that fits a node's cores or not; HOST008 and HOST009 vCPUs per logical processor above 1 and 2).
FAMILY = {"HOST001": "HOST005", "NUMA007": "NUMA014", "HOST009": "HOST008"}


def depends(facts: frozenset[str]) -> bool:
    """Whether a rule reading `facts` may fire under one setting and not another."""
    return any(f in _DEPENDS or (f.startswith(_DEPENDS_PREFIXES) and f not in _NOT_DEPENDS) for f in facts)


def settings(doc: dict[str, Any], split: bool, ht_unknown: bool) -> list[tuple[int, int]]:
    """The (nodes per socket, threads per core) a host may run besides the assumed ones (its spec's):
    empty when nothing is assumed."""
    host = doc["host"]
    cores = host["cores_per_socket"]
    nodes = [1]
    if split:
        nodes += [n for n in ((2, 4) if _EPYC in str(host.get("cpu", "")).lower() else (2,)) if cores % n == 0]
    threads = [1, 2] if ht_unknown else [host["threads_per_core"]]
    assumed = (host["numa_nodes_per_socket"], host["threads_per_core"])
    return [s for s in itertools.product(nodes, threads) if s != assumed]


def _variant(doc: dict[str, Any], nodes: int, threads: int, vms: set[str] | None) -> dict[str, Any]:
    """The spec with its host (and the cluster peers of the same CPU, which split alike) at `nodes`
    per socket and `threads` per core; only the VMs named in `vms` unless it is None."""
    out = copy.copy(doc)
    if vms is not None:
        out["vms"] = [vm for vm in doc["vms"] if vm["name"] in vms]
    host = out["host"] = {**doc["host"], "numa_nodes_per_socket": nodes, "threads_per_core": threads}
    if doc.get("cluster"):
        out["cluster"] = [
            {**peer, "host": {**peer["host"], "numa_nodes_per_socket": nodes}}
            if peer["host"].get("cpu") == host.get("cpu") and peer["host"]["cores_per_socket"] % nodes == 0
            else peer for peer in doc["cluster"]]
    return out


class _Job(NamedTuple):
    """One host to check again: its spec's label and document, its findings in question, the
    settings to try and what they vary (a key of _WHAT)."""

    label: str
    doc: dict[str, Any]
    found: list[Any]
    tried: list[tuple[int, int]]
    what: str


def settle(run: Any, specs: Iterable[tuple[str, dict[str, Any], bool, bool]], catalog: Any, policy: Any) -> None:
    """Cap at info, worded uncertain, every finding of `run` on a spec (label, doc, node count
    uncertain, HT unknown) that does not fire under each setting the host may run instead."""
    jobs = _jobs(run, specs, catalog)
    if not jobs:
        return
    fired: dict[str, dict[tuple[str, str], int]] = {}
    for f in _rerun(jobs, catalog, policy):
        if f.suppressed is None:
            worst = fired.setdefault(f.file or "", {})
            key = (FAMILY.get(f.rule, f.rule), f.subject)
            worst[key] = max(worst.get(key, 0), SEVERITY_RANK[f.severity])
    capped: dict[str, tuple[dict[str, Any], dict[str, set[str]]]] = {}
    for job in jobs:
        runs = [fired.get(f"{job.label}\0{k}", {}) for k in range(len(job.tried))]
        for f in job.found:
            key = (FAMILY.get(f.rule, f.rule), f.subject)
            if any(worst.get(key, 0) < SEVERITY_RANK[f.severity] for worst in runs):
                f.severity = "info"
                count = _NODES.get(job.doc["host"]["numa_nodes_per_socket"], "as assumed")
                f.message = UNCERTAIN.format(what=_WHAT[job.what].format(nodes=count)) + f.message
                if f.vm is not None:
                    capped.setdefault(job.label, (job.doc, {}))[1].setdefault(f.vm, set()).add(f.rule)
                else:
                    capped.setdefault(job.label, (job.doc, {}))
    if capped:
        _recommend_again(run, capped, catalog, policy)
        run.sort()


def _recommend_again(run: Any, capped: dict[str, tuple[dict[str, Any], dict[str, set[str]]]], catalog: Any,
                     policy: Any) -> None:
    """What advisor recommends for a VM must be justified by what it finally finds: a VM's
    recommendation (its shape, .vmx keys and suggestions) is built again without the fixes of its
    findings that now hold only under an assumption, as if those findings were suppressed. The
    host's spec is placed whole, as assumed, so every fact (the host's load among them) is as in
    the first run; only those VMs are evaluated, and only their recommendations are taken."""
    import glob
    from dataclasses import replace

    from advisor.engine.engine import Evaluator
    from advisor.engine.policy import Exemption
    from advisor.engine.specs import evaluate_spec
    from advisor.load.specfile import spec_from_root

    uncertain = [Exemption(rule, "holds only under an assumption", "config", vms=(glob.escape(vm),))
                 for _, by_vm in capped.values() for vm, rules in by_vm.items() for rule in sorted(rules)]
    if not uncertain:
        return
    names = frozenset(vm for _, by_vm in capped.values() for vm in by_vm)
    evaluator = Evaluator(catalog, replace(policy, exemptions=[*policy.exemptions, *uncertain]), vms=names)
    for label, (doc, by_vm) in capped.items():
        if by_vm:
            evaluate_spec(spec_from_root(doc, f"{label}\0again"), evaluator)
    # A host's VM names are its own (advisor.rvtools.estate makes equal names distinct).
    again = {(vm.file.removesuffix("\0again"), vm.name): vm for vm in evaluator.finish().vms}
    for old in run.vms:
        new = again.get((old.file, old.name))
        if new is not None and old.name in capped[old.file][1]:
            old.recommendation, old.recommended_vmx = new.recommendation, new.recommended_vmx
            old.recommended_guest, old.vmx_reasons = new.recommended_guest, new.vmx_reasons
            old.suggested_vmx = new.suggested_vmx


def _jobs(run: Any, specs: Iterable[tuple[str, dict[str, Any], bool, bool]], catalog: Any) -> list[_Job]:
    """The hosts with findings a setting could change, each with those findings and its settings."""
    open_rules = {rule.d.id for rule in catalog.rules if depends(rule.facts)}
    by_file: dict[str, list[Any]] = {}
    for f in run.findings:
        if f.suppressed is None and f.rule in open_rules:
            by_file.setdefault(f.file or "", []).append(f)
    jobs = []
    for label, doc, split, ht_unknown in specs:
        found = by_file.get(label, [])
        if not ht_unknown:
            # HOST005 (every node loaded beyond its threads) means more vCPUs than logical processors;
            # however the sockets split, some node then holds more vCPUs than its threads, so HOST001
            # or HOST005 (its FAMILY, at info or above) fires: it holds without checking again.
            found = [f for f in found if f.rule != "HOST005"]
        tried = settings(doc, split, ht_unknown) if found else []
        if found and tried:
            nodes_vary = any(n != doc["host"]["numa_nodes_per_socket"] for n, _ in tried)
            threads_vary = any(t != doc["host"]["threads_per_core"] for _, t in tried)
            what = "both" if nodes_vary and threads_vary else ("nodes" if nodes_vary else "ht")
            jobs.append(_Job(label, doc, found, tried, what))
    return jobs


def _rerun(jobs: list[_Job], catalog: Any, policy: Any) -> list[Any]:
    """The findings of every job's host under each of its settings, each run labelled
    "<label>\\0<setting's index>". Only the rules in question run again. A VM rule reads its VM, its
    host and the cluster's peers, and not the host's other VMs unless it reads the host's load: the
    VMs with findings in question are enough, under those VM rules. A host rule (and a VM rule
    reading the load) reads every VM's placement: all the VMs, under those rules only. Suppressed
    findings are left as they are, so no exemption is needed here."""
    from advisor.engine.engine import Evaluator
    from advisor.engine.policy import Policy
    from advisor.engine.specs import evaluate_spec
    from advisor.load.specfile import spec_from_root

    # A VM rule that reads the host's load (place.*: STO004 reads place.vcpu_per_core) needs every
    # VM of the host, as a host rule does; a host rule needs their placement only (Evaluator's vms).
    loaded = {rule.d.id for rule in catalog.rules if any(f.startswith("place.") for f in rule.facts)}

    def kind(f: Any) -> str:
        return "host" if f.vm is None else ("loaded" if f.rule in loaded else "vm")

    out: list[Any] = []
    for of_kind in ("vm", "loaded", "host"):
        rules = tuple(sorted({f.rule for job in jobs for f in job.found if kind(f) == of_kind}))
        if not rules:
            continue
        evaluator = Evaluator(catalog, Policy(select=rules, severity=policy.severity), keep_recommendations=False,
                              vms=of_kind != "host")
        for job in jobs:
            if not any(kind(f) == of_kind for f in job.found):
                continue
            vms = {f.vm for f in job.found if kind(f) == "vm"} if of_kind == "vm" else None
            for k, (nodes, threads) in enumerate(job.tried):
                evaluate_spec(spec_from_root(_variant(job.doc, nodes, threads, vms), f"{job.label}\0{k}"), evaluator)
        out += evaluator.finish().findings
    return out
