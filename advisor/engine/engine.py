"""The rules engine: facts in, findings out.

For each host: every VM's facts (advisor.facts.facts), the host's placement facts, then every rule
that applies (workload, vSphere version, policy). Conditions are evaluated with CEL's
three-valued logic: a fact that is not known (no host given, a template variable) is left out
of the activation, and CEL's `&&` and `||` still decide a condition that the known facts settle
(`false && unknown` is false, `true || unknown` is true; cel-spec, langdef.md "Logical
Operators"). A rule that the known facts cannot settle is not guessed: the VM result lists it
with the facts it needs.

Findings carry the rule's message and fix with the observed values filled in, the source line
of the offending value, and any suppression that covers them. What advisor recommends from the
fixes is built by advisor.engine.recommend, the one place that decides what is written.
"""

from __future__ import annotations

from collections.abc import Callable, Iterable, Set
from typing import Any

from advisor.collector import gc_frozen
from advisor.cost.decider import Decider
from advisor.cost.shapes import Shapes
from advisor.engine.catalog import Catalog, Rule
from advisor.engine.conditions import (
    MAX_CEL_LIST,
    MAX_CEL_STRING,
    activation_of,
    cel_value_fits,
    known_values,
)
from advisor.engine.fixpoint import MAX_PASSES, justified, resizes, settle
from advisor.engine.group import Group as _Group
from advisor.engine.group import decide
from advisor.engine.hostresult import capacity_summary, host_result, vm_layouts
from advisor.engine.policy import Exemption, Policy
from advisor.engine.recommend import Fixed, Recommendation, recommend
from advisor.engine.render import REMOVE, FindingShape, fill, located_path, render_fix
from advisor.engine.subject import Placed, Subject
from advisor.engine.undecided import applies_without, needs_text
from advisor.facts.facts import facts_for, host_facts, placement_facts, topology_for, version_facts
from advisor.model.cluster import ClusterHost
from advisor.model.keyview import vm_values
from advisor.model.spec import VM, Host
from advisor.model.versions import Version
from advisor.numa.placement import Placement
from advisor.numa.topology import Topology
from advisor.report.findings import Finding, Layout, Run, Suppressed, VmResult
from advisor.vmx.mapping import keys_text
from advisor.vmx.recommendation import read_keys, written_keys

__all__ = ["MAX_CEL_LIST", "MAX_CEL_STRING", "REMOVE", "Evaluator", "Exemption", "Policy", "Subject",
           "capacity_summary", "cel_value_fits", "fill", "host_result", "vm_layouts"]



class Evaluator:
    """Runs one catalog under one policy; collects findings into a Run."""

    def __init__(self, catalog: Catalog, policy: Policy | None = None, full_vmx: bool = True,
                 keep_recommendations: bool = True, typed: bool = True,
                 vms: bool | frozenset[str] = True) -> None:
        """full_vmx: recommend every key of the VM (check, vmx) or only the keys fixes change
        (lint: a template already holds the rest, and a large estate should not be copied
        into memory once more). keep_recommendations: keep each VM's Recommendation for the
        caller (advisor fix); the report needs only what its VmResult holds. typed: each
        VmResult holds the typed recommendation the emitters write (check, vmx, size), not only
        its .vmx keys (lint reports those alone: VmResult.recommendation stays NO_RECOMMENDATION).
        vms: which VMs are evaluated (their facts, rules, findings and recommendation): all, none
        (False: the host rules run on the placement alone, which is all they read), or those
        named; every VM is placed on its host all the same, so the host's load is the whole
        host's (advisor.rvtools.alternatives checks a few VMs again so)."""
        from advisor.engine.conditions import cel_env

        self.full_vmx = full_vmx
        self.typed = typed
        self.vms = vms
        self._applicable: dict[tuple[str, Version | None], tuple[list[Rule], tuple[str, ...], frozenset[str]]] = {}
        self._groups: dict[tuple[str, Version | None, frozenset[str], bool], _Group] = {}
        self._last_groups: dict[tuple[str, Version | None, bool], _Group] = {}  # (workload, version, hosted)
        self._shapes: dict[str, tuple[FindingShape, str]] = {}
        self.catalog = catalog
        self._yields = catalog.yields()  # rule -> the rules whose written fix can undo its premise
        self.policy = policy or Policy()
        self.env = cel_env()
        self.decider = Decider(self.env)  # which rules fire, at the least cost (advisor.cost)
        self.shapes = Shapes()  # the topology work of each kind of host, once per run (advisor.cost)
        self.vm_rules = [r for r in catalog.rules if r.d.scope == "vm" and self.policy.enabled(r.id)]
        self.host_rules = [r for r in catalog.rules if r.d.scope == "host" and self.policy.enabled(r.id)]
        self.run = Run()
        # Rules named one by one in --select: their suggestions are written too (advisor fix).
        self.explicit = frozenset(s for s in self.policy.select if s in catalog.ids())
        # id(VmResult) -> the VM's Recommendation (advisor fix reads the changes it makes).
        self.recommendations: dict[int, Recommendation] = {}
        self.keep_recommendations = keep_recommendations
        for r in self.vm_rules + self.host_rules:
            self.run.rules[r.id] = r.metadata() | {"severity": self.policy.severity_of(r)}

    # -- one rule -----------------------------------------------------------------------
    def _shape(self, rule: Rule) -> tuple[FindingShape, str]:
        hit = self._shapes.get(rule.id)
        if hit is None:  # the policy's severity of a rule does not change during a run either
            hit = self._shapes[rule.id] = (FindingShape.of(rule), self.policy.severity_of(rule))
        return hit

    def _finding(self, rule: Rule, facts: dict[str, Any], subject: str, vm: VM | None, file: str,
                 line: int | None) -> Finding:
        shape, severity = self._shape(rule)
        return Finding(
            rule=rule.id,
            name=rule.d.name,
            severity=severity,
            subject=subject,
            message=fill(shape.message, facts),
            vm=vm.name if vm else None,
            file=file,
            line=line,
            evidence={n: facts.get(n) for n in shape.evidence},
            fix=render_fix(rule, facts, vm),
            references=list(shape.references),
        )

    def _suppress(self, finding: Finding, exemptions: Iterable[Exemption]) -> None:
        ex = self._covering(finding.rule, finding.vm, finding.file, exemptions)
        if ex is not None:
            ex.used = True
            finding.suppressed = Suppressed(
                ex.kind, ex.reason, ex.until.isoformat() if ex.until else None, ex.file, ex.line
            )

    def _covering(self, rule: str, vm: str | None, file: str | None, exemptions: Iterable[Exemption]
                  ) -> Exemption | None:
        """The first exemption that suppresses a finding of `rule` for `vm` in `file`."""
        for ex in exemptions:
            if not ex.covers(rule, vm, file):
                continue
            if ex.until and ex.until < self.policy.today:
                continue  # expired: the finding counts again (reported as a note below)
            return ex
        return None

    # -- a host and its VMs -------------------------------------------------------------
    def evaluate(self, subjects: list[Subject], host: Host | None, version: Version | None,
                 host_file: str | None = None, host_line: Callable[[str], int | None] | None = None,
                 cluster: tuple[ClusterHost, ...] = (), release: bool = False) -> None:
        """Evaluate VMs that share a host (or no host at all, for lint without --host).

        release: the caller holds the subjects nowhere else and does not read them afterwards:
        each is dropped from the list after its turn, so a large spec's VMs give their memory
        back while the results grow (advisor.engine.specs.check_files)."""
        # The spec and catalog live for the whole run: frozen, the collector skips them
        # instead of rescanning them on every collection the evaluation's allocations
        # trigger (about a fifth of the evaluation time for 10,000 VMs).
        with gc_frozen():
            file = host_file or (subjects[0].file if subjects else "")
            placed = self.place(subjects, host, version, cluster)
            if self.vms is not False:
                self.evaluate_placed(subjects, placed, release)
            if host is not None and version is not None:
                self._evaluate_host(placed.workloads, host, version, placed.facts, placed.placement, file, host_line)

    # Two passes, so that no VM's facts outlive its own turn: placement needs every VM's
    # topology first (shared through `cache`, which keeps them alive for `shown`'s ids), then each
    # VM's facts are built, evaluated and dropped.
    def place(self, subjects: list[Subject], host: Host | None, version: Version | None,
              cluster: tuple[ClusterHost, ...] = ()) -> Placed:
        """Pass 1: every VM's predicted topology, and the host-wide placement facts."""
        placed = Placed(host, version, cluster, workloads={s.vm.workload for s in subjects})
        placed.cache = self.shapes.cache_for(host, version)  # shared by the hosts of one kind (advisor.cost)
        if host is not None and version is not None:
            known_topos: list[tuple[VM, Topology]] = []
            shapes = placed.shapes
            for s in subjects:
                # With its layout's facts: built once per layout whichever pass asks first.
                hit = topology_for(host, s.vm, version, s.unknown, placed.cache)
                shapes.append((s.vm, hit))
                if hit is not None:
                    known_topos.append((s.vm, hit[0]))
            shapes.reverse()
            # A VM whose number of instances is not known (a template's `count = var.n`) leaves
            # every host-wide figure unknown: the host rules reading them are "not evaluated".
            if known_topos and not any("count" in s.unknown for s in subjects):
                placed.facts, placed.placement = placement_facts(host, known_topos)
        return placed

    def evaluate_placed(self, subjects: list[Subject], placed: Placed, release: bool = False) -> None:
        """Pass 2: each VM's facts, rules, findings and recommendation."""
        host, version, cache, cluster, place_facts = (placed.host, placed.version, placed.cache, placed.cluster,
                                                      placed.facts)
        shown: dict[int, tuple[dict[str, Any], tuple[Layout, ...]]] = {}  # VMs of one shape share a Topology
        self._context = (host, version, cache, cluster, place_facts)  # a resized VM's next pass (_again)
        shapes = placed.shapes
        self.decider.start(len(subjects))
        only = self.vms if isinstance(self.vms, frozenset) else None  # evaluate() runs this pass for True or a set
        for index, s in enumerate(subjects):
            asked = shapes.pop() if shapes else None
            if only is not None and s.vm.name not in only:
                continue
            facts, topo = facts_for(host, s.vm, version, s.unknown, cache, cluster,
                                    asked[1] if asked is not None and asked[0] is s.vm else False)
            facts.update(place_facts)
            topo_dict: dict[str, Any] | None = None
            layouts: tuple[Layout, ...] = ()
            if topo is not None:
                if id(topo) not in shown:
                    shown[id(topo)] = vm_layouts(topo, host, s.vm, version)
                topo_dict, layouts = shown[id(topo)]
            self._evaluate_vm(s, facts, topo_dict, host, version, layouts)
            if release:  # the caller keeps nothing else of the VM: its model and lines go now
                subjects[index] = None  # type: ignore[call-overload]

    def _rules_for(self, workload: str, version: Version | None
                   ) -> tuple[list[Rule], tuple[str, ...], frozenset[str]]:
        """The VM rules that apply to a workload and version, and every fact they read (in order,
        and as a set: each VM's unknown facts are those of the set its facts leave out)."""
        key = (workload, version)
        hit = self._applicable.get(key)
        if hit is None:
            rules = [r for r in self.vm_rules if r.applies_to(workload, version)]
            names = frozenset(n for r in rules for n in r.facts)
            hit = self._applicable[key] = (rules, tuple(sorted(names)), names)
        return hit

    def _group(self, workload: str, version: Version | None, unknown: frozenset[str], hosted: bool = False) -> _Group:
        """The rules a VM of this workload, version and set of unknown facts is evaluated on
        (`hosted`: a host was given, so unknown host-side facts are not for want of one)."""
        key = (workload, version, unknown, hosted)
        group = self._groups.get(key)
        if group is None:
            rules, _, needed = self._rules_for(workload, version)
            known = [r for r in rules if unknown.isdisjoint(r.facts)]
            partial = [r for r in rules if not unknown.isdisjoint(r.facts) and applies_without(r.facts & unknown)]
            group = self._groups[key] = _Group(rules, tuple(r.id for r in rules), unknown, known, partial, hosted,
                                               likely=tuple(partial), knows=needed - unknown)
        return group

    def _group_of(self, workload: str, version: Version | None, known: dict[str, Any], hosted: bool) -> _Group:
        """The group of a VM whose facts `known` holds: its unknown facts are those of its rules
        that `known` leaves out, the same as the VM before it more often than not."""
        last = self._last_groups.get((workload, version, hosted))
        if last is not None and len(known) == len(last.knows) and last.knows.issuperset(known):
            return last
        _, needed, needed_set = self._rules_for(workload, version)
        unknown = needed_set.difference(known) if len(known) < len(needed) else frozenset()
        group = self._last_groups[(workload, version, hosted)] = self._group(workload, version, unknown, hosted)
        return group

    def _evaluate_vm(self, s: Subject, facts: dict[str, Any], topo: dict[str, Any] | None, host: Host | None,
                     version: Version | None, layouts: tuple[Layout, ...] = ()) -> None:
        vm = s.vm
        # Only the facts some applicable rule reads go into CEL: building the activation is
        # the largest fixed cost per VM.
        known = known_values(facts, self._rules_for(vm.workload, version)[1])
        group = self._group_of(vm.workload, version, known, host is not None)
        subject = f"vm {vm.name}"
        self.run.evaluated.append((group.ids, subject, s.file))
        fired, skipped = self.decider.fired(group, known)
        fixes = self._fixes(s, vm, facts, fired, record=True)
        rec = self._recommend(s, vm, host, fixes)
        result = VmResult(vm.name, s.file, host.name if host else None, vm.count, s.line, topo,
                          recommendation=rec.vm, recommended_vmx=rec.vmx, recommended_guest=rec.guest,
                          vmx_reasons=rec.reasons, suggested_vmx=[item.as_dict() for item in rec.suggestions],
                          skipped=skipped, layouts=layouts)
        if self.keep_recommendations:
            self.recommendations[id(result)] = rec
        self.run.vms.append(result)
        for ex in s.exemptions:
            self._note_exemption(ex, vm.name)

    def _fixes(self, s: Subject, vm: VM, facts: dict[str, Any], fired: list[Rule], record: bool) -> list[Fixed]:
        """The unsuppressed fixes of the fired rules; record: report the findings (the VM as
        specified), not for a pass of advisor.engine.fixpoint."""
        fixes: list[Fixed] = []
        if not record:  # a pass of advisor.engine.fixpoint reads only the fixes: no finding is built
            exemptions = [*s.exemptions, *self.policy.exemptions]
            for rule in fired:
                if not exemptions or self._covering(rule.id, vm.name, s.file, exemptions) is None:
                    fixes.append(Fixed(rule.id, self._shape(rule)[1], rule.d.summary, render_fix(rule, facts, vm)))
            return fixes
        subject = f"vm {vm.name}"
        for rule in fired:
            path = located_path(rule.d.locate, facts, s.locate) if rule.d.locate else None
            finding = self._finding(rule, facts, subject, vm, s.file, s.locate(path) if path else s.line)
            if s.column is not None and path:
                finding.column = s.column(path)
            if s.exemptions or self.policy.exemptions:
                self._suppress(finding, [*s.exemptions, *self.policy.exemptions])
            self.run.findings.append(finding)
            if finding.suppressed is None:
                fixes.append(Fixed(rule.id, finding.severity, rule.d.summary, finding.fix))
        return fixes

    def _again(self, s: Subject, vm: VM) -> tuple[Recommendation, list[dict[str, Any]], frozenset[str]]:
        """The keys the written fixes of `vm` (a pass of advisor.engine.fixpoint) change, their
        resizes, and the rules that fire on it unsuppressed."""
        host, version, cache, cluster, place_facts = self._context
        facts, _ = facts_for(host, vm, version, s.unknown, cache, cluster)
        facts.update(place_facts)
        known = known_values(facts, self._rules_for(vm.workload, version)[1])
        group = self._group_of(vm.workload, version, known, host is not None)
        fixes = self._fixes(s, vm, facts, self.decider.fired(group, known)[0], record=False)
        core_mhz = host.core_mhz if host else None
        return (recommend(fixes, None, self.explicit, vm, core_mhz), resizes(fixes, self.explicit),
                frozenset(f.rule for f in fixes))

    def _recommend(self, s: Subject, vm: VM, host: Host | None, fixes: list[Fixed]) -> Recommendation:
        core_mhz = host.core_mhz if host else None
        base = vm_values(vm, core_mhz) if self.full_vmx else None
        rec = recommend(fixes, base, self.explicit, vm, core_mhz)
        resized = resizes(fixes, self.explicit) if fixes else []
        if resized:  # fixes computed on the VM as specified may disagree on its new shape
            rec, settled = settle(vm, rec, base, core_mhz, lambda again: self._again(s, again), resized)
            if not settled:
                self.run.notes.append(f"vm {vm.name}: the written recommendation did not settle within "
                                      f"{MAX_PASSES} passes; checking the VM with it applied may recommend more")
        if self._yields and len(fixes) > 1:
            rec = self._justified(s, vm, rec, base, core_mhz)
        # The edge: the settled keys written as .vmx text, once, whether or not the passes above
        # changed them (issue 33 item 8: the engine holds typed values until here).
        keys = keys_text({**(base or {}), **rec.changes})
        if self.typed:
            rec.vm, rec.vmx = read_keys(vm.name, keys, rec.reasons, sources=rec.sources)
        else:
            rec.vmx = written_keys(keys) if keys else {}  # a quarter of templates: no fix writes a key
        return rec

    def _justified(self, s: Subject, vm: VM, rec: Recommendation, base: dict[str, Any] | None,
                   core_mhz: int | None) -> Recommendation:
        """The recommendation without the entries whose premise another written fix took away
        (advisor.engine.fixpoint.justified), settled again on the VM they leave: a value computed
        with a dropped entry applied (NUMA002's cores per socket for NUMA001's preferHT layout)
        is computed anew."""
        again = lambda following: self._again(s, following)  # noqa: E731  (the same callback twice)
        for _ in range(MAX_PASSES):
            pruned = justified(vm, rec, base, again, self._yields)
            if pruned is rec:
                break
            rec, _ = settle(vm, pruned, base, core_mhz, again, [r for _, r in pruned.resized])
        return rec

    def _note_exemption(self, ex: Exemption, vm_name: str | None) -> None:
        if ex.until and ex.until < self.policy.today:
            self.run.notes.append(f"{ex.describe()}: expired on {ex.until.isoformat()}; the finding is reported again")
        elif not ex.used:
            self.run.notes.append(f"{ex.describe()}: unused suppression (no {ex.rule} finding"
                                  + (f" for vm {vm_name})" if vm_name else ")"))

    def _evaluate_host(self, workloads: Set[str], host: Host, version: Version, place_facts: dict[str, Any],
                       placement: Placement | None, file: str, host_line: Callable[[str], int | None] | None) -> None:
        """The host rules, decided as the VM rules are: a fact that is not known (the spec does
        not state it, or no VM's topology is known) is left out of the activation, and a rule it
        leaves undecided is listed with the facts it needs, never passed over in silence."""
        facts = host_facts(host, version) | version_facts(version) | place_facts
        known = activation_of(facts)
        activation = self.env.Activation(known)
        subject = f"host {host.name}"
        recommended: dict[str, str] = {}
        evaluated: list[str] = []
        skipped: list[str] = []
        for rule in self.host_rules:
            if rule.d.workloads and not workloads & set(rule.d.workloads):
                continue
            if not rule.in_versions(version):
                continue
            unknown = frozenset(n for n in rule.facts if n not in known)
            if unknown and not applies_without(unknown):
                continue  # only facts of a part of the spec that is not there (a `cluster:` list)
            holds = decide(rule, activation, unknown)
            if holds is None:
                skipped.append(needs_text(rule.id, unknown, hosted=True))
                continue
            evaluated.append(rule.id)
            if not holds:
                continue
            line = host_line(rule.d.locate or "") if host_line else None
            finding = self._finding(rule, facts, subject, None, file, line)
            self._suppress(finding, self.policy.exemptions)
            self.run.findings.append(finding)
            if finding.suppressed is None:
                for key, value in finding.fix.get("host", {}).items():
                    recommended[key] = str(value)
        self.run.evaluated.append((tuple(evaluated), subject, file))
        self.run.hosts.append(host_result(host, version, place_facts, placement, file, recommended, tuple(skipped)))

    def finish(self) -> Run:
        for ex in self.policy.exemptions:
            if ex.until and ex.until < self.policy.today:
                self.run.notes.append(f"{ex.describe()}: expired on {ex.until.isoformat()}")
        # The sort's key tuples would otherwise set off a full collection over every result of
        # the run, none of it garbage (most of the sort's time for 10,000 VMs).
        with gc_frozen():
            self.run.sort()
        return self.run
