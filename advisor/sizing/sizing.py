"""`advisor size`: VM shapes that fit a host's NUMA nodes, for a workload.

The shape kinds and their order per workload come from rules/shapes.yaml (the papers' evidence);
this module turns them into concrete vCPU counts for one host, finds how many VMs keep every
node equally loaded, sizes memory from the node-local share, and then asks the rule catalog:
a proposal is kept only when the spec it would emit gets no warning and no error from
`advisor check`. Rejected candidates are kept with the rules that rejected them, so the output
can say why an obvious shape is missing.
"""


from __future__ import annotations

import json
import math
from typing import Any

from advisor.errors import InputError
from advisor.model.base import WORKLOADS
from advisor.model.spec import VM, Host
from advisor.model.units import format_mib
from advisor.model.versions import hw_max_vcpus, limits_for
from advisor.numa.topology import Topology, layout_text, predict
from advisor.sizing.candidates import (
    Candidate,
    Geometry,
    Proposal,
    Rejected,
    Request,
    Sizing,
    candidates,
    smallest,
)
from advisor.sizing.possible import cap_text, check_possible, gpus
from advisor.sizing.shapes import KIND_NAMES, MIN_MEMORY_MIB, load_shapes
from advisor.sizing.vmsettings import cores_per_socket, devices_for_hardware, fill, merge
from advisor.vocab import BLOCKING

__all__ = ["Geometry", "Proposal", "Request", "Sizing", "load_shapes", "size"]


class Sizer:
    def __init__(self, hosts: list[Host], req: Request, host_refs: dict[str, str] | None = None) -> None:
        from advisor.engine.catalog import builtin_catalog

        self.table = load_shapes()
        if req.workload not in self.table.workloads:
            raise InputError(f"unknown workload '{req.workload}'; known: {', '.join(WORKLOADS)}", field="workload")
        self.req = req
        self.wl = self.table.workloads[req.workload]
        self.hosts = hosts
        self.host = smallest(hosts)
        self.host_refs = host_refs or {}
        self.version = req.version or min(h.esxi for h in hosts)
        limits = limits_for(self.version)
        self.hw = limits.max_hw
        self.max_vcpus = min(limits.max_vcpus, hw_max_vcpus(self.hw))
        self.max_memory = limits.max_memory_mib
        self.hyper = self.table.hypervisor
        self.geo = Geometry.of(self.host, self.wl, req.headroom_pct, self.hyper.reserve)
        self.catalog = builtin_catalog()
        self.notes: list[str] = []
        self.rejected: list[Rejected] = []
        self.fits_tried = 0  # placements simulated by _count (bounded by construction; tests count them)

    # -- sizing --------------------------------------------------------------------------------
    def run(self) -> Sizing:
        check_possible(self.req, self.host, self.geo, self.wl, self.hyper, self.version, self.hw, self.max_vcpus,
                       self.max_memory)
        seen: set[tuple[int, bool, int]] = set()
        proposals: list[Proposal] = []
        for cand in candidates(self.geo, self.wl, self.req):
            label = f"{cand.vcpus} vCPU" + (" (preferHT)" if cand.prefer_ht else "")
            if cand.vcpus > self.max_vcpus:
                self.rejected.append(
                    Rejected(label, [f"more than the {self.max_vcpus} vCPUs vSphere {self.version} allows"])
                )
                continue
            proposal = self._build(cand, label)
            if proposal is None:
                continue
            key = (proposal.vcpus, proposal.prefer_ht, proposal.count)
            if key in seen:
                continue
            seen.add(key)
            proposals.append(proposal)
        proposals.sort(key=lambda p: p.sort_key)
        if len(self.hosts) > 1:
            self.notes.append(
                f"sized for {self.host.name}, the host with the smallest NUMA nodes "
                f"({self.host.cores_per_node} cores / {format_mib(self.host.memory_per_node)}), so a vMotion to any "
                "other host of the cluster keeps each VM within a node boundary")
            for p in proposals:
                p.other_hosts = [self._fit_other(h, p) for h in self.hosts if h is not self.host]
        return Sizing(self.req, self.wl, self.host, self.hosts, self.version, self.hw, proposals, self.rejected,
                      self.notes, self._capacity())

    def _capacity(self) -> dict[str, Any]:
        h, g = self.host, self.geo
        return {"nodes": h.nodes, "cores_per_node": h.cores_per_node, "threads_per_node": h.threads_per_node,
                "vcpus_per_node": g.node_cap, "vcpus": g.host_cap, "memory_for_vms_mib": g.usable_mib,
                "memory_per_node_mib": g.usable_mib // h.nodes, "esxi_reserve_mib": self.hyper.reserve,
                "vcpu_per_core": str(self.wl.vcpu_per_core), "max_vcpus_per_vm": self.max_vcpus}

    def _vm(self, cand: Candidate, memory: int, count: int, cps: int | None) -> dict[str, Any]:
        vm = merge(self.table.base_vm, self.wl.vm)
        name = f"{self.req.workload}-{cand.vcpus}vcpu" + ("-ht" if cand.prefer_ht else "")
        head: dict[str, Any] = {"name": name, "count": count, "vcpus": cand.vcpus}
        if cps:
            head["cores_per_socket"] = cps
        head.update({"memory": format_mib(memory), "workload": self.req.workload, "hardware_version": self.hw})
        vm = {**head, **vm}
        if cand.prefer_ht:
            vm.setdefault("advanced", {})["numa.vcpu.preferHT"] = "TRUE"
        devices_for_hardware(vm, self.hw)
        # Plain dicts and lists (the YAML loader's carry line numbers).
        plain: dict[str, Any] = json.loads(json.dumps(vm))
        return plain

    def _topology(self, cand: Candidate, host: Host, cps: int | None = None) -> Topology:
        advanced = {"numa.vcpu.preferHT": "TRUE"} if cand.prefer_ht else {}
        vm = VM.model_validate({"name": "probe", "vcpus": cand.vcpus, "memory": 1024, "cores_per_socket": cps,
                                "hardware_version": self.hw, "workload": self.req.workload, "advanced": advanced},
                               context={"lenient_shape": True})
        return predict(host, vm, self.version)

    def _count(self, cand: Candidate, topo: Topology, geo: Geometry, memory: int | None,
               vms: int | None = None, total: int | None = None) -> tuple[int, Any, bool]:
        """How many VMs of this shape the host takes with every node equally loaded (exactly
        `vms`, or the fewest that reach `total` vCPUs, when asked)."""
        from advisor.numa.placement import place

        host = geo.host
        kmax = geo.host_cap // cand.vcpus
        if memory is not None:
            kmax = min(kmax, geo.usable_mib // (memory + self.hyper.overhead(cand.vcpus, memory)))
        if self.wl.gpu_per_vm:
            kmax = min(kmax, gpus(host) // self.wl.gpu_per_vm)

        def fits(k: int, need_balance: bool) -> tuple[bool, Any, bool]:
            self.fits_tried += 1
            placement = place(host, [("vm", k, topo)])
            per_node = placement.clients_per_node
            if max(placement.load) > geo.node_cap:
                return False, placement, False
            if cand.per_node and max(per_node) > cand.per_node:
                return False, placement, False
            even = max(per_node) - min(per_node) == 0 or max(per_node) <= 1
            return (even or not need_balance), placement, even

        if vms:
            k = vms
            if k > kmax:
                return 0, None, False
            ok, placement, even = fits(k, need_balance=False)
            return (k if ok else 0), placement, even
        # Bounded by construction, not by a walk over every count (a 32-socket x 512-core
        # profile took 100 s one count at a time):
        # - capacity is monotone: k VMs are placed one after another, so the placement of k - 1
        #   is the first k - 1 of them and no node's load or client count shrinks as k grows;
        #   the largest count that fits is found by bisection;
        # - every node holds the same number of clients only when k x clients is a multiple of
        #   the nodes, or each node holds at most one (k x clients <= nodes): only those counts
        #   are tried for a balanced placement.
        clients = max(1, len(topo.numa_clients))
        # a VM ESXi's NUMA scheduler does not manage has no clients on the nodes: any count is even
        step = host.nodes // math.gcd(host.nodes, clients) if topo.numa_managed else 1
        fit_max = self._largest_fit(kmax, fits)
        if total:
            low = math.ceil(total / cand.vcpus)
            for k in _balanced_counts(low, fit_max, clients, host.nodes, step, ascending=True):
                ok, placement, even = fits(k, need_balance=True)
                if ok:
                    return k, placement, even
            return 0, None, False
        for k in _balanced_counts(1, fit_max, clients, host.nodes, step, ascending=False):
            ok, placement, even = fits(k, need_balance=True)
            if ok:
                return k, placement, even
        if fit_max:  # uneven placements come back only when nothing balances; they rank last
            ok, placement, even = fits(fit_max, need_balance=False)
            if ok:
                return fit_max, placement, even
        return 0, None, False

    @staticmethod
    def _largest_fit(kmax: int, fits: Any) -> int:
        """The largest k <= kmax whose placement fits the nodes (0 when none): bisection, since
        fitting is monotone in k (see _count)."""
        if kmax < 1 or fits(kmax, False)[0]:  # the usual case: the capacity bound kmax fits
            return max(kmax, 0)
        low, high = 0, kmax - 1  # fits(low) holds (0 VMs always fit); find the last k that fits
        while low < high:
            middle = (low + high + 1) // 2
            if fits(middle, False)[0]:
                low = middle
            else:
                high = middle - 1
        return low

    def _memory_for(self, cand: Candidate, count: int, topo: Topology, placement: Any) -> int:
        if self.req.memory_mib:
            return self.req.memory_mib
        hyper, geo = self.hyper, self.geo
        per_vm = geo.usable_mib / count
        # Node-local share: the nodes this VM spans, divided among the VMs homed there.
        node_share = geo.usable_mib / self.host.nodes
        crowd = max(placement.clients_per_node) if placement else 1
        local = node_share * topo.physical_nodes_spanned / max(1, crowd)
        budget = min(per_vm, local)
        memory = (budget - hyper.overhead_base_mib - hyper.overhead_per_vcpu_mib * cand.vcpus) / (
            1 + hyper.overhead_per_gib_mib / 1024)
        memory = int(memory // 1024 * 1024) if memory >= 2048 else int(memory // 256 * 256)
        return min(memory, self.max_memory)

    def _build(self, cand: Candidate, label: str) -> Proposal | None:
        topo = self._topology(cand, self.host)
        count, placement, even = self._count(cand, topo, self.geo, self.req.memory_mib, self.req.vms,
                                             self.req.total_vcpus)
        if count == 0:
            self.rejected.append(Rejected(label, [self._no_fit(cand)]))
            return None
        memory = self._memory_for(cand, count, topo, placement)
        if memory < MIN_MEMORY_MIB:
            self.rejected.append(Rejected(label, [f"{count} VMs leave each less than {format_mib(MIN_MEMORY_MIB)}"]))
            return None
        cps: int | None = cores_per_socket(topo)
        shaped = self._topology(cand, self.host, cps)
        if (shaped.vnuma_nodes, shaped.numa_clients) != (topo.vnuma_nodes, topo.numa_clients):
            cps, shaped = None, topo
        vm = self._vm(cand, memory, count, cps)
        host_data, changes = self._host_data(self.host)
        run, vm = self._evaluate(vm, host_data)
        label = f"{count} × {label}"
        blocking = [f for f in run.findings if f.suppressed is None and f.severity in BLOCKING]
        if run.errors:
            self.rejected.append(Rejected(label, [e.message for e in run.errors]))
            return None
        if blocking:
            self.rejected.append(Rejected(label, [f"{f.rule}: {f.message}" for f in blocking]))
            return None
        result = run.vms[0]
        spec = {"vsphere": str(self.version), "host": self._host_ref(self.host, host_data, changes), "vms": [vm]}
        proposal = Proposal(
            kind=cand.kind, vcpus=cand.vcpus, count=count, prefer_ht=cand.prefer_ht,
            cores_per_socket=cps or 1, memory_mib=memory, topology=shaped,
            node_load=list(placement.load), clients_per_node=list(placement.clients_per_node), balanced=even,
            explanation=self._explain(cand, count, memory, shaped, placement, even), spec=spec,
            host_changes=changes, recommendation=result.recommendation,
            recommended_guest=dict(result.recommended_guest),
            info=[f"{f.rule}: {f.message}" for f in run.findings if f.suppressed is None],
        )
        crowd = max(placement.clients_per_node) if placement.clients_per_node else 1
        local = self.geo.usable_mib / self.host.nodes * shaped.physical_nodes_spanned / max(1, crowd)
        proposal.memory_local = memory + self.hyper.overhead(cand.vcpus, memory) <= local
        proposal.sort_key = self._rank(cand, proposal)
        return proposal

    def _no_fit(self, cand: Candidate) -> str:
        if self.req.vms:
            return (f"{self.req.vms} VMs of {cand.vcpus} vCPU do not fit {self.host.name}'s nodes "
                    f"({cap_text(self.wl, self.req)})")
        if self.req.total_vcpus:
            return (f"no count of {cand.vcpus}-vCPU VMs reaching {self.req.total_vcpus} vCPUs loads "
                    f"{self.host.name}'s nodes evenly")
        return f"no count of {cand.vcpus}-vCPU VMs fits {self.host.name}'s nodes ({cap_text(self.wl, self.req)})"

    def _rank(self, cand: Candidate, p: Proposal) -> tuple[Any, ...]:
        return (not p.memory_local, *self._rank_shape(cand, p))

    def _rank_shape(self, cand: Candidate, p: Proposal) -> tuple[Any, ...]:
        used = p.count * p.vcpus
        if self.req.vcpus:
            return (not p.balanced, cand.kind != "requested", abs(p.vcpus - self.req.vcpus), cand.index, -used)
        if self.req.total_vcpus:
            return (not p.balanced, used - self.req.total_vcpus, cand.index, -p.vcpus)
        if self.req.vms:
            return (not p.balanced, -used, cand.index, p.prefer_ht)
        return (not p.balanced, cand.index, -used, p.vcpus)

    def _host_data(self, host: Host) -> tuple[dict[str, Any], dict[str, tuple[Any, Any]]]:
        data = host.model_dump(mode="json", exclude_none=True)
        changes = {}
        for key, value in self.wl.host.items():
            if data.get(key) != value:
                changes[key] = (data.get(key), value)
                data[key] = value
        return data, changes

    def _host_ref(self, host: Host, data: dict[str, Any], changes: dict[str, Any]) -> Any:
        ref = self.host_refs.get(host.name)
        return ref if ref is not None and not changes else data

    def _evaluate(self, vm: dict[str, Any], host_data: dict[str, Any]) -> tuple[Any, dict[str, Any]]:
        from advisor.engine.engine import Evaluator
        from advisor.engine.specs import evaluate_spec
        from advisor.facts.facts import facts_for
        from advisor.load.specfile import spec_from_root

        plain = {k: v for k, v in vm.items() if k != "sql"}
        if "sql" in vm:
            probe = VM.model_validate({**plain, "sql": {}})
            host = Host.model_validate(host_data)
            facts, _ = facts_for(host, probe, self.version)
            vm = {**vm, "sql": fill(vm["sql"], facts)}
        loaded = spec_from_root({"vsphere": str(self.version), "host": host_data, "vms": [vm]}, "<advisor size>")
        evaluator = Evaluator(self.catalog)
        evaluate_spec(loaded, evaluator)
        return evaluator.finish(), vm

    def _explain(self, cand: Candidate, count: int, memory: int, topo: Topology, placement: Any,
                 even: bool) -> list[str]:
        host, geo = self.host, self.geo
        spanned = topo.physical_nodes_spanned
        layout_words = (f"vNUMA {layout_text(topo.vnuma_nodes)} over {spanned} node{'s' if spanned != 1 else ''}"
                        if topo.vnuma_exposed else f"no vNUMA, {len(topo.numa_clients)} NUMA client(s) on "
                        f"{spanned} node{'s' if spanned != 1 else ''}")
        values = {"vcpus": cand.vcpus, "cores_per_node": host.cores_per_node, "threads_per_node": host.threads_per_node,
                  "layout": layout_text(topo.vnuma_nodes), "layout_words": layout_words,
                  "prefer_ht_words": (", balanced by numa.vcpu.preferHT (clients may use a node's "
                                      f"{host.threads_per_node} threads)") if cand.prefer_ht else "",
                  **cand.params}
        try:
            first = self.table.kinds[cand.kind].format(**values)
        except (KeyError, IndexError):
            first = f"{cand.vcpus} vCPU"
        if cand.kind == "fit":
            first = (f"{cand.vcpus} vCPU per VM: {count} VMs share {host.name}'s {host.nodes} NUMA nodes"
                     + (f" and give the {self.req.total_vcpus} vCPUs asked for" if self.req.total_vcpus else ""))
        used = count * cand.vcpus
        ht = used > host.cores
        per_node = sorted(set(placement.clients_per_node))
        spread = (f"{per_node[0]} per node" if len(per_node) == 1 else
                  f"{'–'.join(map(str, (per_node[0], per_node[-1])))} per node" + ("" if even else " (uneven)"))
        second = (
            f"{count} VM{'s' if count != 1 else ''} × {cand.vcpus} = {used} vCPUs on {host.cores} cores / "
            f"{host.logical_cpus} threads ({used / host.cores:.2f}:1{', relies on hyper-threads' if ht else ''}), "
            f"{spread}; {format_mib(memory)} each, from {format_mib(geo.usable_mib // host.nodes)} per node "
            f"after {format_mib(self.hyper.reserve)} kept for ESXi"
        )
        return [first, second]

    def _fit_other(self, host: Host, p: Proposal) -> dict[str, Any]:
        cand = Candidate(p.kind, p.vcpus, p.prefer_ht, -1)
        geo = Geometry.of(host, self.wl, self.req.headroom_pct, self.hyper.reserve)
        topo = self._topology(cand, host, p.cores_per_socket if p.cores_per_socket > 1 else None)
        count, placement, even = self._count(cand, topo, geo, p.memory_mib)
        return {"host": host.name, "count": count, "balanced": topo.balanced and even,
                "topology": topo.summary(), "node_load": list(placement.load) if placement else []}


def size(hosts: list[Host], req: Request, host_refs: dict[str, str] | None = None) -> Sizing:
    return Sizer(hosts, req, host_refs).run()


__all__ = ["KIND_NAMES", "Proposal", "Request", "Sizing", "load_shapes", "size", "smallest"]


def _balanced_counts(low: int, high: int, clients: int, nodes: int, step: int, ascending: bool) -> list[int]:
    """The counts in [low, high] that can place the same number of clients on every node: each
    node at most one client (k x clients <= nodes), or k a multiple of `step` (nodes over their
    greatest common divisor with clients). At most high / step + nodes / clients of them."""
    if high < low:
        return []
    few = range(low, min(high, nodes // clients) + 1)
    first = -(-max(low, 1) // step) * step
    counts = sorted({*few, *range(first, high + 1, step)}, reverse=not ascending)
    return counts
