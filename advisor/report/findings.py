"""The results advisor produces: findings, per-VM and per-host results, and a whole run.

Every output format (text, JSON, SARIF, JUnit, GitHub, Markdown) renders these objects and
nothing else, so the formats cannot disagree about what was found.
"""

from __future__ import annotations

from collections.abc import Iterator
from dataclasses import dataclass, field
from typing import Any, NamedTuple

from advisor.model.recommendation import NO_RECOMMENDATION, RecommendedVM
from advisor.vocab import SEVERITIES, SEVERITY_RANK

JSON_SCHEMA_ID = "advisor/v1"


@dataclass(slots=True)
class Suppressed:
    """Why a finding is not counted: where the suppression came from and its reason."""

    kind: str  # "spec" | "inline" | "config" | "baseline"
    reason: str
    until: str | None = None
    file: str | None = None
    line: int | None = None


@dataclass(slots=True)
class Finding:
    """One rule that fired on one subject (a VM, a host, a device): the message, its location,
    the evidence and the fix."""

    rule: str
    name: str
    severity: str
    subject: str  # "vm sql01", "host hp-dl580-g7", "vm sql01 disk 1"
    message: str
    vm: str | None = None
    file: str | None = None
    line: int | None = None
    evidence: dict[str, Any] = field(default_factory=dict)
    # Keys: "vmx" {key: value}, "guest" {setting: value}, "host" {setting: value},
    # "resize" {field: value}, "text" one-line instruction.
    fix: dict[str, Any] = field(default_factory=dict)
    references: list[str] = field(default_factory=list)
    suppressed: Suppressed | None = None
    column: int | None = None  # 1-based, where the template format has columns (HCL)

    def sort_key(self) -> tuple[Any, ...]:
        return (self.file or "", self.vm or "", -SEVERITY_RANK[self.severity], self.rule, self.subject, self.line or 0)

    def as_dict(self) -> dict[str, Any]:
        out = {
            "rule": self.rule,
            "name": self.name,
            "severity": self.severity,
            "subject": self.subject,
            "vm": self.vm,
            "file": self.file,
            "line": self.line,
            "message": self.message,
            "evidence": self.evidence,
            "fix": self.fix,
            "references": self.references,
            "suppressed": None,
        }
        if self.suppressed:
            s = self.suppressed
            out["suppressed"] = {"kind": s.kind, "reason": s.reason, "until": s.until, "file": s.file, "line": s.line}
        if self.column is not None:
            out["column"] = self.column
        return out


class Layout(NamedTuple):
    """One layout of a VM pictured on its host: a title ("as specified", or the variant's setting), the
    topology (Topology.as_dict()) and the physical node each NUMA client is homed on when the VM is
    alone on the host. Not part of the JSON report: the pictures use it.
    (A NamedTuple: see CONTRIBUTING.md, "Add a class on `check`'s path".)"""

    title: str
    topology: dict[str, Any]
    client_nodes: tuple[int, ...]
    pinned: tuple[tuple[int, int], ...] = ()  # sched.cpu.affinity's (first, last) logical CPUs


@dataclass(slots=True)
class VmResult:
    """One VM as evaluated: its predicted topology and the recommendation written for it."""

    name: str
    file: str
    host: str | None
    count: int
    line: int | None
    topology: dict[str, Any] | None  # Topology.as_dict(), None without a host
    # The recommendation every command writes (advisor.engine.recommend), and its .vmx keys.
    recommendation: RecommendedVM = NO_RECOMMENDATION
    recommended_vmx: dict[str, str] = field(default_factory=dict)
    recommended_guest: dict[str, Any] = field(default_factory=dict)
    # .vmx key -> (rule id, one-line reason) for each recommended key that a rule asked for.
    vmx_reasons: dict[str, tuple[str, str]] = field(default_factory=dict)
    # Fixes advisor shows but does not write (advisor.engine.recommend.Suggestion.as_dict()).
    suggested_vmx: list[dict[str, Any]] = field(default_factory=list)
    # Rules the known facts cannot settle, each "RULE needs <facts>": one tuple shared by the
    # VMs with the same undecided rules, not copied (a run may hold ten thousand VMs).
    skipped: tuple[str, ...] = ()
    # The VM's own layout, then the one numa.vcpu.preferHT would give when that balances it.
    layouts: tuple[Layout, ...] = ()


@dataclass(slots=True)
class HostResult:
    """One host of a run: its capacity and how the VMs' NUMA clients load its nodes."""

    name: str
    file: str
    summary: str  # one-line capacity summary
    capacity: dict[str, Any] = field(default_factory=dict)
    recommended_host: dict[str, str] = field(default_factory=dict)
    node_load: list[int] = field(default_factory=list)  # vCPUs homed per physical node
    # Per physical node, the NUMA clients homed there as (VM label, vCPUs); `name#2` is the second
    # of a VM with a count. Not part of the JSON report: the pictures use it.
    residents: list[list[tuple[str, int, int]]] = field(default_factory=list)  # (VM, client vCPUs, instances)
    # Host rules the known facts cannot settle, each "RULE needs <facts>" (as VmResult.skipped).
    skipped: tuple[str, ...] = ()


class VmSource(NamedTuple):
    """Where a VM of a generated spec (one host of an RVTools export) really is: the sheet and row its
    findings point at, and the cluster its host is in (a spec names no cluster, only its peers).
    (A NamedTuple: see CONTRIBUTING.md, "Add a class on `check`'s path".)"""

    file: str
    line: int | None
    cluster: str = ""


class EstateRead(NamedTuple):
    """A running estate the run read: an RVTools export or a vCenter, one source split into a spec
    per host. The reports count it as one source with its hosts and VMs, not as the specs it became,
    and the text report prints its VMs' topologies only on demand (advisor.output.text).
    (A NamedTuple: see CONTRIBUTING.md, "Add a class on `check`'s path".)"""

    kind: str  # RVTOOLS_EXPORT or VCENTER
    specs: tuple[str, ...]  # the labels of its hosts' specs (entries of Run.files)


RVTOOLS_EXPORT = "RVTools export"
VCENTER = "vCenter"


@dataclass(slots=True)
class InputProblem:
    """An input error in a multi-file run: reported, counted, and the run goes on."""

    file: str
    line: int | None
    field: str | None
    message: str

    def __str__(self) -> str:
        where = self.file + (f":{self.line}" if self.line else "")
        return f"{where}:{' ' + self.field + ':' if self.field else ''} {self.message}"


@dataclass(slots=True)
class Run:
    """Everything one advisor invocation found, across all its input files."""

    vms: list[VmResult] = field(default_factory=list)
    hosts: list[HostResult] = field(default_factory=list)
    findings: list[Finding] = field(default_factory=list)
    errors: list[InputProblem] = field(default_factory=list)
    notes: list[str] = field(default_factory=list)  # e.g. unused or expired suppressions
    # Values a template leaves unknown (a variable, a data source), as (file, "VM: what"): the
    # text report condenses them to a line per file, JSON and the CI formats list them as notes.
    unknowns: list[tuple[str, str]] = field(default_factory=list)
    files: list[str] = field(default_factory=list)
    # Metadata of every rule that was evaluated, for formats that describe rules (SARIF, JUnit):
    # id -> {"name", "severity", "summary", "rationale", "references": [str], "fix_text"}.
    rules: dict[str, dict[str, Any]] = field(default_factory=dict)
    # Every (rule ids, subject, file) the engine evaluated, failing or passing: JUnit reports
    # passes. One entry per subject, not per rule: a large estate keeps one small tuple per VM.
    evaluated: list[tuple[tuple[str, ...], str, str]] = field(default_factory=list)
    # The command that produced the run ("check", "lint"): SARIF keeps their analyses apart.
    command: str = ""
    # (spec file, VM name) -> where the VM really is, for specs built from an estate's inventory
    # (advisor.rvtools): its findings were pointed there, so the one-row-per-VM view joins on it.
    sources: dict[tuple[str, str], VmSource] = field(default_factory=dict)
    # The running estates read (RVTools exports, vCenters), each with the specs it was split into.
    estates: list[EstateRead] = field(default_factory=list)

    def evaluated_cases(self) -> Iterator[tuple[str, str, str]]:
        """Every (rule id, subject, file) evaluated, in evaluation order."""
        for ids, subject, file in self.evaluated:
            for rule in ids:
                yield rule, subject, file

    def all_notes(self) -> list[str]:
        """The notes, then each unknown template value as `file: VM: what`, for the formats that
        list every note (JSON, SARIF, JUnit, HTML)."""
        return [*self.notes, *(f"{file}: {what}" for file, what in self.unknowns)]

    def estate_specs(self) -> frozenset[str]:
        """The specs (entries of `files`) that stand for hosts of a running estate, not files: what
        the reports treat as an estate is decided here and nowhere else."""
        return frozenset(label for estate in self.estates for label in estate.specs)

    def counts(self) -> dict[str, int]:
        out: dict[str, int] = {s: 0 for s in SEVERITIES}
        for f in self.findings:
            if f.suppressed is None:
                out[f.severity] += 1
        return out

    def absorb(self, other: Run) -> None:
        """Take in another run's results (a worker's, or another configuration's group)."""
        self.vms.extend(other.vms)
        self.hosts.extend(other.hosts)
        self.findings.extend(other.findings)
        self.errors.extend(other.errors)
        self.notes.extend(other.notes)
        self.unknowns.extend(other.unknowns)
        self.files.extend(other.files)
        self.evaluated.extend(other.evaluated)
        self.rules.update(other.rules)
        self.sources.update(other.sources)
        self.estates.extend(other.estates)

    def sort(self) -> None:
        self.findings.sort(key=Finding.sort_key)
