"""The rules engine: facts in, findings out.

For each host: every VM's facts (advisor.facts.facts), the host's placement facts, then every rule
that applies (workload, vSphere version, policy) and whose facts are all known. A rule whose
facts are unknown is skipped and the VM result says why; nothing is guessed.

Findings carry the rule's message and fix with the observed values filled in, the source line
of the offending value, and any suppression that covers them. `recommended_vmx` is the VM as
specified plus every unsuppressed fix's .vmx keys, in VMware's spelling.
"""

from __future__ import annotations

import datetime as _dt
import fnmatch
import gc
from collections.abc import Callable, Iterable
from dataclasses import dataclass, field
from typing import Any

from advisor.engine.catalog import PLACEHOLDER, Catalog, Rule
from advisor.facts.facts import facts_for, host_facts, placement_facts, version_facts
from advisor.load.hosts import BUNDLED, HostProfiles
from advisor.load.specfile import LoadedSpec
from advisor.load.yamlfile import gc_paused
from advisor.model.spec import VM, Host
from advisor.model.versions import Version
from advisor.numa.placement import Placement
from advisor.numa.topology import Topology
from advisor.report.findings import Finding, HostResult, Layout, Run, Suppressed, VmResult

REMOVE = "REMOVE"


@dataclass(slots=True)
class Exemption:
    """A suppression: from a spec's `ignore:`, an inline comment, or the configuration."""

    rule: str  # id or id prefix ("NUMA001", "NUMA", "*")
    reason: str
    kind: str  # "spec" | "inline" | "config"
    until: _dt.date | None = None
    file: str | None = None
    line: int | None = None
    vms: tuple[str, ...] = ()  # config exemptions: VM name globs (empty = all)
    paths: tuple[str, ...] = ()  # config exemptions: file globs (empty = all)
    used: bool = False

    def covers(self, rule: str, vm: str | None, file: str | None) -> bool:
        if not (self.rule == "*" or rule == self.rule or (not self.rule[-1:].isdigit() and rule.startswith(self.rule))):
            return False
        if self.vms and not any(fnmatch.fnmatchcase(vm or "", g) for g in self.vms):
            return False
        return not self.paths or any(
            fnmatch.fnmatch(file or "", g) or fnmatch.fnmatch(file or "", "*/" + g) for g in self.paths
        )

    def describe(self) -> str:
        where = f"{self.file}:{self.line}" if self.file and self.line else (self.file or "configuration")
        return f"{where}: ignore {self.rule}"


@dataclass(slots=True)
class Policy:
    """Which rules run and at what severity: configuration plus --select/--ignore."""

    select: tuple[str, ...] = ()  # id prefixes; empty = every rule
    ignore: tuple[str, ...] = ()
    severity: dict[str, str] = field(default_factory=dict)  # id or prefix -> severity
    exemptions: list[Exemption] = field(default_factory=list)
    today: _dt.date = field(default_factory=_dt.date.today)

    def enabled(self, rule_id: str) -> bool:
        def match(prefixes: tuple[str, ...]) -> int:
            return max((len(p) for p in prefixes if p == "ALL" or rule_id.startswith(p)), default=-1)

        chosen = match(self.select) if self.select else 0
        dropped = match(self.ignore)
        # The more specific of select/ignore wins, as in ruff (--select NUMA --ignore NUMA003).
        return chosen >= 0 and chosen >= dropped if dropped >= 0 else chosen >= 0

    def severity_of(self, rule: Rule) -> str:
        best = None
        for key, value in self.severity.items():
            if rule.id.startswith(key) and (best is None or len(key) > len(best[0])):
                best = (key, value)
        return best[1] if best else rule.d.severity


@dataclass(slots=True)
class Subject:
    """One VM to evaluate, wherever it came from (a spec entry or a template)."""

    vm: VM
    file: str
    line: int | None
    locate: Callable[[str], int | None]  # spec field path -> line in the file
    exemptions: list[Exemption] = field(default_factory=list)
    unknown: frozenset[str] = frozenset()
    notes: list[str] = field(default_factory=list)
    column: Callable[[str], int | None] | None = None  # spec field path -> column, where known


def _text(value: Any) -> str:
    if value is None:
        return "unknown"
    if isinstance(value, bool):
        return "yes" if value else "no"
    if isinstance(value, float):
        return f"{value:.2f}".rstrip("0").rstrip(".")
    if isinstance(value, (list, tuple)):
        return ", ".join(map(str, value)) or "none"
    return str(value)


def fill(template: str, facts: dict[str, Any]) -> str:
    return PLACEHOLDER.sub(lambda m: _text(facts.get(m.group(1))), template)


_NIC_INDEX = "{each.legacy_nic}"
_SCSI_INDEX = "{each.legacy_scsi}"


def _device_indexes(vm: VM, marker: str) -> list[int]:
    if marker == _NIC_INDEX:
        slots = vm._nic_slots or range(len(vm.nics))  # a template's ethernetN numbers
        return [slots[i] for i, n in enumerate(vm.nics) if n.adapter in ("e1000", "e1000e", "vlance", "vmxnet")]
    # A controller that also carries the boot disk is left alone: switching it to PVSCSI can
    # leave a guest without the driver unbootable. Its data disks need moving instead (fix text).
    boot = {d.bus for d in vm.disks if d.role == "os" and d.controller in ("lsilogic", "lsisas", "buslogic")}
    return sorted({d.bus for d in vm.disks
                   if d.controller in ("lsilogic", "lsisas", "buslogic") and d.role != "os" and d.bus not in boot})


def render_fix(rule: Rule, facts: dict[str, Any], vm: VM | None) -> dict[str, Any]:
    fix: dict[str, Any] = {}
    vmx: dict[str, str] = {}
    for key, value in rule.d.fix.vmx.items():
        markers = [m for m in (_NIC_INDEX, _SCSI_INDEX) if m in key]
        if markers and vm is not None:
            for index in _device_indexes(vm, markers[0]):
                vmx[key.replace(markers[0], str(index))] = fill(str(value), facts)
        elif not markers:
            vmx[fill(key, facts)] = fill(str(value), facts)
    if vmx:
        fix["vmx"] = vmx
    for part in ("guest", "host", "resize"):
        values = getattr(rule.d.fix, part)
        if values:
            fix[part] = {k: (fill(v, facts) if isinstance(v, str) else v) for k, v in values.items()}
    fix["text"] = fill(rule.d.fix.text, facts)
    return fix


@dataclass(frozen=True, slots=True)
class _FindingShape:
    """What every finding of a rule shares, worked out once per rule rather than per finding:
    the message template on one line, the facts shown as evidence, the references' text."""

    message: str
    evidence: tuple[str, ...]
    references: tuple[str, ...]

    @classmethod
    def of(cls, rule: Rule) -> _FindingShape:
        names = sorted(rule.facts | {n for n in rule.template_facts() if not n.startswith("each.")})
        return cls(" ".join(rule.d.message.split()), tuple(names), tuple(r.text() for r in rule.d.references))


def _activation(facts: dict[str, Any]) -> dict[str, Any]:
    return {k: v for k, v in facts.items() if cel_value_fits(v)}


# Bounds on what a fact may carry into CEL (docs/hardening.md): CEL's int is 64-bit (a larger
# value fails inside the evaluator), and a rule condition may copy a string or list several
# times, so a value beyond these is treated as unknown and the rules reading it are skipped.
MAX_CEL_STRING = 4096
MAX_CEL_LIST = 4096
_INT64 = (-(1 << 63), (1 << 63) - 1)


def cel_value_fits(value: Any) -> bool:
    if value is None:
        return False
    if isinstance(value, int) and not isinstance(value, bool):
        return _INT64[0] <= value <= _INT64[1]
    if isinstance(value, str):
        return len(value) <= MAX_CEL_STRING
    if isinstance(value, (list, tuple)):
        return len(value) <= MAX_CEL_LIST and all(cel_value_fits(v) for v in value)
    return True


# VMs of one group before its rules are combined into one CEL program: compiling costs about
# as much as evaluating the rules one by one on a few dozen VMs, so small runs skip it.
_BATCH_AFTER = 8


@dataclass(slots=True)
class _Group:
    """The rules evaluated on VMs that share a workload, a version and a set of unknown facts."""

    rules: list[Rule]
    ids: tuple[str, ...]
    skipped: tuple[str, ...]  # "ID: why" for the rules whose facts are unknown
    seen: int = 0
    batch: Any = None  # the combined program once compiled; False when it cannot be


def _combined_program(env: Any, rules: list[Rule]) -> Any:
    """One CEL program giving every rule's condition as a list of booleans, or False."""
    # One condition per line: a `//` comment in a condition ends at its line.
    source = "[\n" + ",\n".join(f"({r.d.when}\n)" for r in rules) + "\n]"
    try:
        return env.compile(source)
    except Exception:  # each condition compiled alone at load; keep evaluating them one by one
        return False


class Evaluator:
    """Runs one catalog under one policy; collects findings into a Run."""

    def __init__(self, catalog: Catalog, policy: Policy | None = None, full_vmx: bool = True) -> None:
        """full_vmx: recommend every key of the VM (check, vmx) or only the keys fixes change
        (lint: a template already holds the rest, and a large estate should not be copied
        into memory once more)."""
        from advisor.engine.catalog import cel_env

        self.full_vmx = full_vmx
        self._applicable: dict[tuple[str, Version | None], tuple[list[Rule], tuple[str, ...]]] = {}
        self._groups: dict[tuple[str, Version | None, frozenset[str], bool], _Group] = {}
        self._shapes: dict[str, _FindingShape] = {}
        self.catalog = catalog
        self.policy = policy or Policy()
        self.env = cel_env()
        self.vm_rules = [r for r in catalog.rules if r.d.scope == "vm" and self.policy.enabled(r.id)]
        self.host_rules = [r for r in catalog.rules if r.d.scope == "host" and self.policy.enabled(r.id)]
        self.run = Run()
        for r in self.vm_rules + self.host_rules:
            self.run.rules[r.id] = r.metadata() | {"severity": self.policy.severity_of(r)}

    # -- one rule -----------------------------------------------------------------------
    def _holds(self, rule: Rule, activation: Any) -> bool:
        try:
            result = rule.compiled().eval(activation)
        except RuntimeError as exc:  # e.g. CEL's comprehension iteration budget
            result = " ".join(str(exc).split())
        value = result.plain_value() if hasattr(result, "plain_value") else result
        if not isinstance(value, bool):
            if rule.builtin:
                raise TypeError(f"{rule.id}: condition gave {value!r}, not true/false")
            # A user's rule failing at run time (a division by zero, a comprehension over the
            # iteration budget) is an input error of their rule file, not a crash of advisor.
            from advisor.errors import InputError

            raise InputError(f"{rule.id}: the condition failed: {value}", file=rule.file, line=rule.line, field="when")
        return value

    def _finding(self, rule: Rule, facts: dict[str, Any], subject: str, vm: VM | None, file: str,
                 line: int | None) -> Finding:
        shape = self._shapes.get(rule.id)
        if shape is None:
            shape = self._shapes[rule.id] = _FindingShape.of(rule)
        return Finding(
            rule=rule.id,
            name=rule.d.name,
            severity=self.policy.severity_of(rule),
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
        for ex in exemptions:
            if not ex.covers(finding.rule, finding.vm, finding.file):
                continue
            if ex.until and ex.until < self.policy.today:
                continue  # expired: the finding counts again (reported as a note below)
            ex.used = True
            finding.suppressed = Suppressed(
                ex.kind, ex.reason, ex.until.isoformat() if ex.until else None, ex.file, ex.line
            )
            return

    # -- a host and its VMs -------------------------------------------------------------
    def evaluate(self, subjects: list[Subject], host: Host | None, version: Version | None,
                 host_file: str | None = None, host_line: Callable[[str], int | None] | None = None,
                 cluster: tuple[Host, ...] = ()) -> None:
        """Evaluate VMs that share a host (or no host at all, for lint without --host)."""
        # The spec and catalog live for the whole run: frozen, the collector skips them
        # instead of rescanning them on every collection the evaluation's allocations
        # trigger (about a fifth of the evaluation time for 10,000 VMs).
        gc.freeze()
        try:
            self._evaluate(subjects, host, version, host_file, host_line, cluster)
        finally:
            gc.unfreeze()

    def _evaluate(self, subjects: list[Subject], host: Host | None, version: Version | None,
                  host_file: str | None, host_line: Callable[[str], int | None] | None,
                  cluster: tuple[Host, ...] = ()) -> None:
        computed: list[tuple[Subject, dict[str, Any], Topology | None]] = []
        cache: dict[tuple[Any, ...], Any] = {}
        for s in subjects:
            facts, topo = facts_for(host, s.vm, version, s.unknown, cache, cluster)
            computed.append((s, facts, topo))
        place_facts: dict[str, Any] = {}
        placement = None
        known_topos = [(s.vm, t) for s, _, t in computed if t is not None]
        if host is not None and known_topos:
            place_facts, placement = placement_facts(host, known_topos)

        shown: dict[int, tuple[dict[str, Any], tuple[Layout, ...]]] = {}  # VMs of one shape share a Topology
        for s, facts, topo in computed:
            facts.update(place_facts)
            topo_dict: dict[str, Any] | None = None
            layouts: tuple[Layout, ...] = ()
            if topo is not None:
                if id(topo) not in shown:
                    shown[id(topo)] = vm_layouts(topo, host, s.vm, version)
                topo_dict, layouts = shown[id(topo)]
            self._evaluate_vm(s, facts, topo_dict, host, version, layouts)

        if host is not None and version is not None:
            self._evaluate_host(
                subjects,
                host,
                version,
                place_facts,
                placement,
                host_file or (subjects[0].file if subjects else ""),
                host_line,
            )

    def _rules_for(self, workload: str, version: Version | None) -> tuple[list[Rule], tuple[str, ...]]:
        """The VM rules that apply to a workload and version, and every fact they read."""
        key = (workload, version)
        hit = self._applicable.get(key)
        if hit is None:
            rules = [r for r in self.vm_rules if r.applies_to(workload, version)]
            hit = self._applicable[key] = (rules, tuple(sorted({n for r in rules for n in r.facts})))
        return hit

    def _group(self, workload: str, version: Version | None, unknown: frozenset[str], hosted: bool = False) -> _Group:
        """The rules a VM of this workload, version and set of unknown facts is evaluated on
        (`hosted`: a host was given, so unknown host-side facts are not for want of one)."""
        key = (workload, version, unknown, hosted)
        group = self._groups.get(key)
        if group is None:
            rules, _ = self._rules_for(workload, version)
            runnable, skipped = [], []
            for rule in rules:
                if unknown and not unknown.isdisjoint(rule.facts):
                    missing = sorted(unknown & rule.facts)
                    why = (
                        "no host given"
                        if not hosted and all(n.split(".")[0] in ("host", "topo", "place", "version") for n in missing)
                        else "unknown " + ", ".join(missing)
                    )
                    skipped.append(f"{rule.id}: {why}")
                else:
                    runnable.append(rule)
            group = self._groups[key] = _Group(runnable, tuple(r.id for r in runnable), tuple(skipped))
        return group

    def _fired(self, group: _Group, activation: Any) -> list[Rule]:
        """The group's rules whose condition holds: one CEL call for all of them once the group
        is common enough to repay compiling the combined program, one call per rule otherwise."""
        group.seen += 1
        if group.batch is None and group.seen >= _BATCH_AFTER and group.rules:
            group.batch = _combined_program(self.env, group.rules)
        if group.batch:
            try:
                results = group.batch.eval(activation).plain_value()
            except RuntimeError:
                results = None
            if (
                isinstance(results, list)
                and len(results) == len(group.rules)
                and all(r is True or r is False for r in results)
            ):
                return [rule for rule, holds in zip(group.rules, results, strict=False) if holds]
        # A condition that fails at run time fails the combined list: each rule on its own
        # reports which one and why.
        return [rule for rule in group.rules if self._holds(rule, activation)]

    def _evaluate_vm(self, s: Subject, facts: dict[str, Any], topo: dict[str, Any] | None, host: Host | None,
                     version: Version | None, layouts: tuple[Layout, ...] = ()) -> None:
        vm = s.vm
        result = VmResult(vm.name, s.file, host.name if host else None, vm.count, s.line, topo, layouts=layouts)
        _, needed = self._rules_for(vm.workload, version)
        # Only the facts some applicable rule reads go into CEL: building the activation is
        # the largest fixed cost per VM.
        known = {n: facts[n] for n in needed if cel_value_fits(facts.get(n))}
        unknown = frozenset(needed).difference(known) if len(known) < len(needed) else frozenset()
        group = self._group(vm.workload, version, unknown, host is not None)
        result.skipped = group.skipped
        subject = f"vm {vm.name}"
        self.run.evaluated.append((group.ids, subject, s.file))
        fixes: list[tuple[Rule, dict[str, Any]]] = []
        for rule in self._fired(group, self.env.Activation(known)):
            finding = self._finding(
                rule, facts, subject, vm, s.file, s.locate(rule.d.locate) if rule.d.locate else s.line
            )
            if s.column is not None and rule.d.locate:
                finding.column = s.column(rule.d.locate)
            self._suppress(finding, [*s.exemptions, *self.policy.exemptions])
            self.run.findings.append(finding)
            if finding.suppressed is None:
                fixes.append((rule, finding.fix))
        self._recommend(result, vm, host, fixes)
        self.run.vms.append(result)
        for ex in s.exemptions:
            self._note_exemption(ex, vm.name)

    def _recommend(self, result: VmResult, vm: VM, host: Host | None, fixes: list[tuple[Rule, dict[str, Any]]]) -> None:
        from advisor.vmx.document import canonical_key
        from advisor.vmx.mapping import vm_to_vmx

        settings = vm_to_vmx(vm, host.core_mhz if host else None) if self.full_vmx else {}
        spelled = {k.lower(): k for k in settings}
        # Most severe fix last, so it wins when two rules set the same key.
        for rule, fix in sorted(fixes, key=lambda rf: {"info": 0, "warning": 1, "error": 2}[rf[0].d.severity]):
            for key, value in fix.get("vmx", {}).items():
                key = spelled.get(key.lower(), canonical_key(key))
                if value == REMOVE:
                    settings.pop(key, None)
                    result.vmx_reasons.pop(key, None)
                    continue
                settings[key] = value
                spelled[key.lower()] = key
                result.vmx_reasons[key] = (rule.id, fill(rule.d.summary, {}))
            cps = fix.get("resize", {}).get("cores_per_socket")
            if cps is not None:
                settings["cpuid.coresPerSocket"] = str(cps)
                result.vmx_reasons["cpuid.coresPerSocket"] = (rule.id, rule.d.summary)
            for key, value in fix.get("guest", {}).items():
                result.recommended_guest[key] = value
        result.recommended_vmx = settings

    def _note_exemption(self, ex: Exemption, vm_name: str | None) -> None:
        if ex.until and ex.until < self.policy.today:
            self.run.notes.append(f"{ex.describe()}: expired on {ex.until.isoformat()}; the finding is reported again")
        elif not ex.used:
            self.run.notes.append(f"{ex.describe()}: unused suppression (no {ex.rule} finding"
                                  + (f" for vm {vm_name})" if vm_name else ")"))

    def _evaluate_host(self, subjects: list[Subject], host: Host, version: Version, place_facts: dict[str, Any],
                       placement: Placement | None, file: str, host_line: Callable[[str], int | None] | None) -> None:
        facts = host_facts(host) | version_facts(version) | place_facts
        workloads = {s.vm.workload for s in subjects}
        activation = self.env.Activation(_activation(facts))
        subject = f"host {host.name}"
        recommended: dict[str, str] = {}
        evaluated: list[str] = []
        for rule in self.host_rules:
            if rule.d.workloads and not workloads & set(rule.d.workloads):
                continue
            if not rule.in_versions(version):
                continue
            if not all(cel_value_fits(facts.get(n)) for n in rule.facts):
                continue
            evaluated.append(rule.id)
            if not self._holds(rule, activation):
                continue
            line = host_line(rule.d.locate or "") if host_line else None
            finding = self._finding(rule, facts, subject, None, file, line)
            self._suppress(finding, self.policy.exemptions)
            self.run.findings.append(finding)
            if finding.suppressed is None:
                for key, value in finding.fix.get("host", {}).items():
                    recommended[key] = str(value)
        self.run.evaluated.append((tuple(evaluated), subject, file))
        self.run.hosts.append(host_result(host, version, place_facts, placement, file, recommended))

    def finish(self) -> Run:
        for ex in self.policy.exemptions:
            if ex.until and ex.until < self.policy.today:
                self.run.notes.append(f"{ex.describe()}: expired on {ex.until.isoformat()}")
        self.run.sort()
        return self.run


def host_result(host: Host, version: Version, place_facts: dict[str, Any], placement: Any, file: str,
                recommended: dict[str, str] | None = None) -> HostResult:
    """A host's capacity and where every VM's NUMA clients are homed (also `advisor topology`'s)."""
    return HostResult(
        name=host.name,
        file=file,
        summary=capacity_summary(host, version, place_facts),
        capacity={"sockets": host.sockets, "cores_per_socket": host.cores_per_socket,
                  "threads_per_core": host.threads_per_core, "numa_nodes": host.nodes,
                  "cores_per_node": host.cores_per_node, "memory_per_node_mib": host.memory_per_node,
                  "vsphere": str(version), "vcpus": place_facts.get("place.total_vcpus", 0),
                  "vcpu_per_core": round(place_facts.get("place.vcpu_per_core", 0.0), 3)},
        recommended_host=recommended or {},
        node_load=list(placement.load) if placement else [],
        residents=[list(node) for node in placement.residents] if placement else [],
    )


def vm_layouts(topo: Topology, host: Host | None, vm: VM, version: Version | None, alternatives: bool = True
               ) -> tuple[dict[str, Any], tuple[Layout, ...]]:
    """The topology as a dict, and the layouts the HTML report pictures: the VM's own, then the
    numa.vcpu.preferHT one when that balances it (computed only for unbalanced VMs)."""
    from advisor.numa.variants import PREFER_HT_TITLE, better_prefer_ht

    own = topo.as_dict()
    layouts = [Layout("as specified", own, topo.client_nodes)]
    if alternatives and host is not None and version is not None and not topo.balanced:
        alt = better_prefer_ht(host, vm, version, topo)
        if alt is not None:
            layouts.append(Layout(PREFER_HT_TITLE, alt.as_dict(), alt.client_nodes))
    return own, tuple(layouts)


def capacity_summary(host: Host, version: Version, place_facts: dict[str, Any]) -> str:
    from advisor.model.units import format_mib

    ht = f" × {host.threads_per_core} threads" if host.threads_per_core > 1 else " (no HT)"
    text = (f"{host.name}: {host.sockets} × {host.cores_per_socket} cores{ht}, {host.nodes} NUMA nodes of "
            f"{host.cores_per_node} cores / {format_mib(host.memory_per_node)}, vSphere {version}")
    if place_facts:
        text += (f"; {place_facts['place.total_vcpus']} vCPUs on {host.cores} cores "
                 f"({place_facts['place.vcpu_per_core']:.2f}:1), node load [{place_facts['place.node_load_text']}]")
    return text


# -- specs ---------------------------------------------------------------------------------

def spec_subjects(loaded: LoadedSpec) -> list[Subject]:
    """Subjects for every VM of a loaded spec (advisor.load.specfile.LoadedSpec)."""
    out = []
    vm_lines = getattr(loaded.root.get("vms") if isinstance(loaded.root, dict) else None, "lines", None)
    for index, vm in enumerate(loaded.spec.vms):
        exemptions = [
            Exemption(s.rule, s.reason, "spec", s.until, loaded.file, loaded.line("vms", index, "ignore", i))
            for i, s in enumerate(vm.ignore)
        ] if vm.ignore else []
        line = vm_lines[index] if vm_lines is not None else loaded.vm_line(index)
        out.append(Subject(vm, loaded.file, line, _spec_locator(loaded, index), exemptions))
    return out


def _spec_locator(loaded: LoadedSpec, index: int) -> Callable[[str], int | None]:
    def locate(path: str) -> int | None:
        if path.startswith("advanced."):
            return loaded.vm_field_line(index, path[len("advanced."):])
        if path.startswith("host."):
            return loaded.line("host", path[5:]) or loaded.line("host") or loaded.vm_line(index)
        parts = path.split(".")
        line = loaded.line("vms", index, *parts)
        if line is None and len(parts) > 1:
            line = loaded.line("vms", index, parts[0])
        return line or loaded.vm_field_line(index, parts[0])
    return locate


def evaluate_spec(loaded: LoadedSpec, evaluator: Evaluator) -> None:
    def host_line(path: str) -> int | None:
        if path.startswith("host."):
            return loaded.line("host", path[5:]) or loaded.line("host")
        return loaded.line("host")

    evaluator.run.files.append(loaded.file)
    with gc_paused():  # thousands of small objects that live as long as the run
        subjects = spec_subjects(loaded)
    evaluator.evaluate(subjects, loaded.host, loaded.version, loaded.file, host_line, loaded.cluster)


def check_files(files: Iterable[str], catalog: Catalog, policy: Policy, profiles: HostProfiles = BUNDLED) -> Run:
    """Load and evaluate spec files; a bad file is an input error and the others still run."""
    from advisor.errors import InputError
    from advisor.load.specfile import load_spec
    from advisor.report.findings import InputProblem

    evaluator = Evaluator(catalog, policy)
    for file in files:
        try:
            loaded = load_spec(file, profiles)
        except InputError as exc:
            evaluator.run.errors.append(InputProblem(exc.file or file, exc.line, exc.field, exc.message))
            evaluator.run.files.append(file)
            continue
        evaluate_spec(loaded, evaluator)
    return evaluator.finish()



def run_example(catalog: Catalog, rule: Rule, example: dict[str, Any], label: str) -> Run:
    """Evaluate one of a rule's examples with only that rule enabled (tests, `advisor explain`)."""
    from advisor.load.specfile import spec_from_root

    loaded = spec_from_root(example, label, lenient_shape=True)
    evaluator = Evaluator(catalog, Policy(select=(rule.id,)))
    evaluate_spec(loaded, evaluator)
    return evaluator.finish()
