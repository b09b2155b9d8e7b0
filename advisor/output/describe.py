"""Plain-text pieces the human-readable formats (text, Markdown, GitHub) share.

Keeping them in one place means the terminal report, a PR comment and an annotation describe a
fix, a topology and the totals in the same words.
"""

from __future__ import annotations

import re
from collections.abc import Iterable
from typing import Any, TypeVar

from advisor.output.escape import one_line, terminal
from advisor.report.findings import EstateRead, Finding, HostResult, Run, VmResult

_Filed = TypeVar("_Filed", HostResult, VmResult, Finding)

# The terminal escaping under the names the formatters have long used (advisor.output.escape).
visible = terminal

REMOVE = "REMOVE"  # a fix's .vmx value that means "delete this key" (advisor.engine.engine.REMOVE)


def vmx_line(key: str, value: object) -> str:
    """``key = "value"`` as it goes in a .vmx, or a removal for the REMOVE marker."""
    from advisor.vmx.spelling import escape

    if value == REMOVE:
        return f"remove {one_line(key)}"
    return f'{one_line(key)} = "{escape(str(value))}"'


def fix_lines(fix: dict[str, Any]) -> list[str]:
    """A finding's fix as short lines: .vmx keys, guest/host settings, resizes, then the advice.
    A suggestion's settings follow the condition they depend on."""
    template = fix.get("template")
    if template:  # a template's fix in its own language (Terraform, Packer, OVF)
        lines = [f"remove {one_line(k)}" if v == REMOVE else f"{one_line(k)} = {one_line(v)}"
                 for k, v in template.items()]
    else:
        lines = [vmx_line(k, v) for k, v in (fix.get("vmx") or {}).items()]
    for part in ("guest", "host", "resize"):
        for key, value in (fix.get(part) or {}).items():
            lines.append(f"{part}: {one_line(key)} = {one_line(value)}")
    if lines and fix.get("kind") == "suggest" and fix.get("condition"):
        lines = [f"if {one_line(fix['condition'])}: {'; '.join(lines)}"]
    if fix.get("text"):
        lines.append(one_line(fix["text"]))
    return lines


def fix_summary(fix: dict[str, Any]) -> str | None:
    """A finding's fix in one line: its settings (with the condition of a suggestion), or, for a
    fix that changes no setting, its instruction. The instruction beside settings is shown by
    `-v`, `advisor explain` and the other formats."""
    lines = fix_lines(fix)
    if fix.get("text") and len(lines) > 1:
        lines = lines[:-1]  # the instruction is always last
    return "; ".join(lines) if lines else None


def rule_link(run: Run, finding: Finding) -> str | None:
    """One address for a finding: its rule's page in the rules reference (built-in rules),
    else the first address among its references, else its first reference as written."""
    page = (run.rules.get(finding.rule) or {}).get("help_uri")
    if page:
        return one_line(page)
    for reference in finding.references:
        found = _URL.search(reference)
        if found:
            return one_line(found.group(0))
    return first_reference(finding)


_URL = re.compile(r"https?://[^\s<>\"]+")


def not_evaluated(run: Run) -> tuple[tuple[set[str], int], tuple[set[str], int, int]]:
    """(rules, VMs) a host would settle, then (rules, VMs, hosts) left for other unknown values,
    from the VMs' and hosts' "not evaluated" lines (advisor.engine.undecided). A VM with a host
    counts only in the second: giving a host is no longer the answer there."""
    from advisor.engine.undecided import needs_host, skipped_rule

    host_rules: set[str] = set()
    other_rules: set[str] = set()
    host_vms = other_vms = 0
    for vm in run.vms:
        if not vm.skipped:
            continue
        wants_host = [needs_host(line) and vm.host is None for line in vm.skipped]
        host_rules.update(skipped_rule(line) for line, host in zip(vm.skipped, wants_host, strict=True) if host)
        other_rules.update(skipped_rule(line) for line, host in zip(vm.skipped, wants_host, strict=True) if not host)
        host_vms += any(wants_host)
        other_vms += not all(wants_host)
    hosts = [h for h in run.hosts if h.skipped]
    other_rules.update(skipped_rule(line) for h in hosts for line in h.skipped)
    return (host_rules, host_vms), (other_rules, other_vms, len(hosts))


SHOW_SKIPPED = " (--show-skipped lists them per VM)"
IN_JSON = " (the JSON report lists them per VM)"  # and per host


def not_evaluated_lines(run: Run, hint: str = SHOW_SKIPPED) -> list[str]:
    """What was not evaluated, in at most two lines: '31 rules need a host for 122 VMs: give
    --host or `host:` in .advisor.yaml', the last ending in `hint` (where to find each VM's)."""
    (host_rules, host_vms), (other_rules, other_vms, other_hosts) = not_evaluated(run)
    out = []
    if host_rules:
        how = "give --host or `host:` in .advisor.yaml" if run.command == "lint" else "give the VMs a host"
        verb = "needs" if len(host_rules) == 1 else "need"
        out.append(f"not evaluated: {_plural(len(host_rules), 'rule')} {verb} a host for {_plural(host_vms, 'VM')}: "
                   f"{how}")
    if other_rules:
        subjects = " and ".join(_plural(n, word) for n, word in ((other_vms, "VM"), (other_hosts, "host")) if n)
        out.append(f"not evaluated: {_plural(len(other_rules), 'rule')} for {subjects}: values they need are unknown")
    if out:
        out[-1] += hint
    return out


def unknowns_by_file(run: Run) -> dict[str, list[str]]:
    """Each file's unknown template values ("VM: what"), files in the run's order."""
    groups: dict[str, list[str]] = {}
    for file, what in run.unknowns:
        groups.setdefault(file, []).append(what)
    return groups


def unknown_file_line(file: str, values: list[str]) -> str:
    """'main.tf: 9 values unknown: web: num_cpus = var.num_cpus: unknown; and 8 more'."""
    more = f"; and {len(values) - 1} more" if len(values) > 1 else ""
    return f"{one_line(file)}: {_plural(len(values), 'value')} unknown: {one_line(values[0])}{more}"


def suggestion_line(suggestion: dict[str, Any]) -> str:
    """`NUMA004, if the workload is memory-bound: numa.vcpu.preferHT = "TRUE"` (not written)."""
    parts = [vmx_line(k, v) for k, v in (suggestion.get("vmx") or {}).items()]
    for part in ("guest", "resize"):
        parts.extend(f"{part}: {one_line(k)} = {one_line(v)}" for k, v in (suggestion.get(part) or {}).items())
    what = "; ".join(parts) or one_line(suggestion.get("text", ""))
    return f"{one_line(suggestion['rule'])}, if {one_line(suggestion['condition'])}: {what}"


def runs(sizes: Iterable[int]) -> str:
    """[10, 10, 10, 4] -> '10×3, 4', exactly as advisor.numa.topology writes layouts."""
    from advisor.numa.topology import layout_text

    return layout_text(sizes)


def topology_summary(topology: dict[str, Any] | None, host: str | None = None) -> str:
    """The topology's own one-line summary, or one built from its fields when it has none."""
    if not topology:
        if host:  # a host was given, but the template leaves the VM's shape unresolved
            return "topology not predicted: the VM's vCPUs or memory are unknown"
        return "no host given: topology not predicted"
    if topology.get("summary"):
        return one_line(topology["summary"])
    vcpus = topology.get("vcpus", "?")
    nodes = list(topology.get("vnuma_nodes") or [])
    spanned = topology.get("physical_nodes_spanned", "?")
    plural = "" if spanned == 1 else "s"
    if topology.get("vnuma_exposed"):
        return f"{vcpus} vCPU → {len(nodes)} vNUMA nodes [{runs(nodes)}] over {spanned} physical node{plural}"
    return f"{vcpus} vCPU → no vNUMA (guest sees 1 node) over {spanned} physical node{plural}"


def _plural(count: int, word: str) -> str:
    return f"{count} {word}{'' if count == 1 else 's'}"


def totals(run: Run) -> str:
    """'2 errors, 1 warning, 3 info (1 suppressed) in 2 files', plus input errors when any; a running
    estate is named as what was read (`in 1 RVTools export (3 hosts, 5 VMs)`), not as its specs."""
    counts = run.counts()
    suppressed = sum(1 for f in run.findings if f.suppressed is not None)
    text = (f"{_plural(counts['error'], 'error')}, {_plural(counts['warning'], 'warning')}, "
            f"{counts['info']} info ({suppressed} suppressed) in {inputs_read(run)}")
    if run.errors:
        text += f"; {_plural(len(run.errors), 'input error')}"
    return text


def inputs_read(run: Run) -> str:
    """'2 files', or for a run over running estates '1 RVTools export (3 hosts, 5 VMs)', each kind
    of estate with the hosts and VMs checked in it, after any spec files read beside them."""
    files, kinds = files_and_estates(run)
    if not kinds:
        return _plural(files or len({f.file for f in run.findings if f.file}), "file")
    parts = [_plural(files, "file")] if files else []
    for kind, estates in kinds.items():
        labels = frozenset(label for estate in estates for label in estate.specs)
        hosts = sum(1 for host in run.hosts if host.file in labels)
        vms = sum(1 for vm in run.vms if vm.file in labels)
        parts.append(f"{_plural(len(estates), kind)} ({_plural(hosts, 'host')}, {_plural(vms, 'VM')})")
    return " and ".join(parts)


def files_and_estates(run: Run) -> tuple[int, dict[str, list[EstateRead]]]:
    """How many of the run's files are files (a running estate's specs are not) and its running
    estates by kind (advisor.report.findings.EstateRead), kinds in the order first read."""
    kinds: dict[str, list[EstateRead]] = {}
    for estate in run.estates:
        kinds.setdefault(estate.kind, []).append(estate)
    specs = run.estate_specs()
    return sum(1 for file in run.files if file not in specs), kinds


def first_reference(finding: Finding) -> str | None:
    return one_line(finding.references[0]) if finding.references else None


def by_file(items: Iterable[_Filed]) -> dict[str | None, list[_Filed]]:
    """Items grouped by their file, each group in the items' order: a report's sections are built
    from these rather than by scanning every list for every file (quadratic on a thousand files;
    an estate read from one export is a file per host)."""
    groups: dict[str | None, list[_Filed]] = {}
    for item in items:
        groups.setdefault(item.file, []).append(item)
    return groups


def report_files(run: Run) -> list[str]:
    """Input files in command-line order, then any file only a result mentions."""
    seen = dict.fromkeys(run.files)
    items: list[Any] = [*run.hosts, *run.vms, *run.findings]
    for item in items:
        if item.file is not None:
            seen.setdefault(item.file)
    return list(seen)
