"""Two snapshots of an estate side by side: VMs added, removed and reshaped, findings new, fixed and
unchanged.

A snapshot is an RVTools export (VMs keyed by VI SDK UUID and VM UUID, so a renamed VM is the same
VM and two vCenters' equal names stay apart) or a folder of spec files. A spec carries no UUID, but
the folder `advisor collect vcenter` writes names each VM's instance UUID and its vCenter's
(advisor.vcenter.specfiles.read_vm_keys): two such folders are matched by those. Two exports are
matched by UUID; anything else (an export and a folder: whether RVTools' "VM UUID" is the instance
UUID is not documented; a folder of hand-written specs) by host and name, which the report says.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Any

SCHEMA = "advisor/diff/v1"
SHAPE = ("host", "vcpus", "cores_per_socket", "memory")
# One row per change, for the tabular formats (advisor.output.diffs).
COLUMNS = ("change", "subject", "rule", "severity", "detail", "file", "line")


@dataclass
class Snapshot:
    label: str
    by_uuid: bool
    ids: str = ""  # what the UUID keys are ("rvtools", "vcenter"): two snapshots match by them only when equal
    vms: dict[str, dict[str, Any]] = field(default_factory=dict)  # key -> shape (name, host, vcpus, ...)
    findings: dict[tuple[str, str], dict[str, Any]] = field(default_factory=dict)  # (vm key or host, rule) -> finding
    # UUID keys several VMs of this snapshot hold (a copied VM keeps its UUID): those VMs are keyed
    # shared_key(uuid, name), here and in the snapshot compared with it.
    shared: set[str] = field(default_factory=set)
    unkeyed: set[str] = field(default_factory=set)  # keys of VMs the export gives no UUID (server/name)


@dataclass
class Diff:
    old: str
    new: str
    matched_by: str
    added: list[dict[str, Any]]
    removed: list[dict[str, Any]]
    reshaped: list[dict[str, Any]]
    new_findings: list[dict[str, Any]]
    fixed: list[dict[str, Any]]
    unchanged: int
    gone: int  # findings of removed VMs: not fixed, gone with their VM

    def as_dict(self) -> dict[str, Any]:
        return {"schema": SCHEMA, "old": self.old, "new": self.new, "matched_by": self.matched_by,
                "vms": {"added": self.added, "removed": self.removed, "reshaped": self.reshaped},
                "findings": {"new": self.new_findings, "fixed": self.fixed, "unchanged": self.unchanged,
                             "with_removed_vms": self.gone}}


def shared_key(key: str, name: str) -> str:
    """The key of a VM whose UUID another VM holds too: the UUID and the VM's name."""
    return f"{key}|{name}"


def _rekey(snapshot: Snapshot, by_uuid: bool, shared: set[str]) -> tuple[dict[str, dict[str, Any]],
                                                                          dict[tuple[str, str], Any]]:
    if by_uuid:
        if not shared & snapshot.vms.keys():
            return snapshot.vms, snapshot.findings
        # A UUID this snapshot gives one VM but the other several: keyed with the name here too.
        moved = {k: shared_key(k, vm["name"]) for k, vm in snapshot.vms.items() if k in shared}
        return ({moved.get(k, k): vm for k, vm in snapshot.vms.items()},
                {(moved.get(k, k), rule): f for (k, rule), f in snapshot.findings.items()})
    names = {key: f"{vm['host']}/{vm['name']}" for key, vm in snapshot.vms.items()}
    return ({names[k]: vm for k, vm in snapshot.vms.items()},
            {(names.get(k, k), rule): f for (k, rule), f in snapshot.findings.items()})


def compare(old: Snapshot, new: Snapshot) -> Diff:
    by_uuid = old.by_uuid and new.by_uuid and old.ids == new.ids
    shared = old.shared | new.shared
    old_vms, old_findings = _rekey(old, by_uuid, shared)
    new_vms, new_findings = _rekey(new, by_uuid, shared)
    by_name = _pair_unkeyed(old, new, old_vms, new_vms, new_findings) if by_uuid else 0
    added = [new_vms[k] for k in sorted(new_vms.keys() - old_vms.keys())]
    removed = [old_vms[k] for k in sorted(old_vms.keys() - new_vms.keys())]
    reshaped = []
    for key in sorted(old_vms.keys() & new_vms.keys()):
        before, after = old_vms[key], new_vms[key]
        changes = {f: [before.get(f), after.get(f)] for f in SHAPE if before.get(f) != after.get(f)}
        if before["name"] != after["name"]:
            changes["name"] = [before["name"], after["name"]]
        if changes:
            reshaped.append({"name": after["name"], "changes": changes})
    gone_vms = old_vms.keys() - new_vms.keys()
    vanished = sorted(old_findings.keys() - new_findings.keys())
    matched_by = ("VM instance UUID" if old.ids == "vcenter" else "VM UUID") if by_uuid else "host and VM name"
    if by_uuid and shared:
        matched_by += f"; {len(shared)} UUID(s) held by several VMs: those VMs by UUID and name"
    if by_name:
        matched_by += f"; {by_name} VM(s) without a UUID in one snapshot by name"
    return Diff(old.label, new.label, matched_by, added, removed, reshaped,
                [new_findings[k] for k in sorted(new_findings.keys() - old_findings.keys())],
                [old_findings[k] for k in vanished if k[0] not in gone_vms],
                len(old_findings.keys() & new_findings.keys()),
                sum(1 for k in vanished if k[0] in gone_vms))


def _pair_unkeyed(old: Snapshot, new: Snapshot, old_vms: dict[str, dict[str, Any]], new_vms: dict[str, dict[str, Any]],
                  new_findings: dict[tuple[str, str], Any]) -> int:
    """A VM the export gives no UUID (its row's "VM UUID" blank) in one snapshot is keyed by server
    and name, so it cannot meet its UUID-keyed self in the other: it is paired by name with the one
    unmatched VM of that name there, if there is exactly one, and the pair keyed alike (`new_vms`
    and `new_findings` re-keyed in place). Returns the number of pairs."""
    gone = {k: vm for k, vm in old_vms.items() if k not in new_vms}
    came = {k: vm for k, vm in new_vms.items() if k not in old_vms}
    if not (old.unkeyed & gone.keys() or new.unkeyed & came.keys()):
        return 0

    def by_name(vms: dict[str, dict[str, Any]]) -> dict[str, list[str]]:
        out: dict[str, list[str]] = {}
        for k, vm in vms.items():
            out.setdefault(vm["name"], []).append(k)
        return out

    before, after = by_name(gone), by_name(came)
    pairs = {}
    for name, olds in before.items():
        news = after.get(name, [])
        if len(olds) == 1 and len(news) == 1 and (olds[0] in old.unkeyed or news[0] in new.unkeyed):
            pairs[news[0]] = olds[0]
    for new_key, old_key in pairs.items():
        new_vms[old_key] = new_vms.pop(new_key)
    for (k, rule) in [key for key in new_findings if key[0] in pairs]:
        new_findings[(pairs[k], rule)] = new_findings.pop((k, rule))
    return len(pairs)


def changes(diff: Diff) -> list[dict[str, Any]]:
    """Every change as a row keyed by COLUMNS: VMs added, removed, reshaped, then findings new and fixed."""
    def row(change: str, subject: str, detail: str = "", finding: dict[str, Any] | None = None) -> dict[str, Any]:
        f = finding or {}
        return {"change": change, "subject": subject, "rule": f.get("rule", ""), "severity": f.get("severity", ""),
                "detail": detail, "file": f.get("file") or "", "line": f.get("line") or ""}

    out = [row("added", f"vm {vm['name']}", f"on {vm['host']}: {vm['vcpus']} vCPUs, {vm['memory']}")
           for vm in diff.added]
    out += [row("removed", f"vm {vm['name']}", f"on {vm['host']}") for vm in diff.removed]
    out += [row("reshaped", f"vm {vm['name']}", ", ".join(f"{f} {a} -> {b}" for f, (a, b) in vm["changes"].items()))
            for vm in diff.reshaped]
    out += [row("new", f["subject"], f["message"], f) for f in diff.new_findings]
    out += [row("fixed", f["subject"], f["message"], f) for f in diff.fixed]
    return out


def summary(diff: Diff) -> str:
    """The counts in one line (advisor's words and numbers only: safe on any CI log line)."""
    return (f"{len(diff.added)} added, {len(diff.removed)} removed, {len(diff.reshaped)} reshaped; "
            f"findings: {len(diff.new_findings)} new, {len(diff.fixed)} fixed, {diff.unchanged} unchanged"
            + (f", {diff.gone} with removed VMs" if diff.gone else ""))


def text(diff: Diff) -> str:
    from advisor.errors import printable

    p = printable
    lines = [f"{p(diff.old)} -> {p(diff.new)} (VMs matched by {diff.matched_by})"]
    lines += [f"  + vm {p(vm['name'])} on {p(str(vm['host']))}: {vm['vcpus']} vCPUs, {vm['memory']}"
              for vm in diff.added]
    lines += [f"  - vm {p(vm['name'])} on {p(str(vm['host']))}" for vm in diff.removed]
    for vm in diff.reshaped:
        changes = ", ".join(f"{f} {p(str(a))} -> {p(str(b))}" for f, (a, b) in vm["changes"].items())
        lines.append(f"  ~ vm {p(vm['name'])}: {changes}")
    lines += [f"  new    {f['rule']}  {f['severity']}  {p(f['subject'])}: {p(f['message'])}" for f in diff.new_findings]
    lines += [f"  fixed  {f['rule']}  {f['severity']}  {p(f['subject'])}: {p(f['message'])}" for f in diff.fixed]
    lines.append(summary(diff))
    return "\n".join(lines) + "\n"
