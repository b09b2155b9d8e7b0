"""Is every written entry justified? The harness of test_justified.py (issue 33).

An entry of the written recommendation is a .vmx key it sets or removes, with the rules that ask
for it (the typed recommendation's `rules_of`; `vmx_reasons` on a tree that has no such thing).
The recommendation is applied to the spec as a user would (`advisor fix --write`, the guest and
host settings by hand: convergence.py). For each rule with an entry, the rule must fire again
once its entries are gone: deleted from that settled VM, or never written (the recommendation
advisor makes with the rule left out, `--ignore RULE`, applied instead; this keeps a key the
rule refined at the value another rule asked for: NUMA010's cores per socket for SQL008's). A
rule that fires in neither is "unjustified" for the VM: another written fix took its premise
away, and its keys would be written for a VM that no longer needs them.

Run on its own it prints the sweep's count (the figure issue 33 asks for):
    .venv/bin/python tests/rules/justification.py [LIMIT]
"""

from __future__ import annotations

import copy
import sys
from collections.abc import Iterator
from pathlib import Path
from typing import Any, NamedTuple

sys.path.insert(0, str(Path(__file__).resolve().parent))

from convergence import apply_fix, apply_vmx, evaluate

from advisor.load.hosts import BUNDLED
from advisor.model.base import WORKLOADS

HOSTS = sorted(BUNDLED.names())
# Fourteen shapes per host and workload (24 hosts x 15 workloads x 14 = 5,040 VMs): sizes from a
# two-vCPU VM to one wider than most hosts, each with a variant the rules read (latency
# sensitivity, reservations, hot add, an odd cores-per-socket, an older vSphere, a licence cap).
SHAPES: tuple[tuple[int, int, dict[str, Any], dict[str, Any]], ...] = (
    (2, 16, {}, {}),
    (8, 64, {"latency_sensitivity": "high"}, {}),
    (12, 96, {"cpu_hot_add": True}, {}),
    (16, 64, {"latency_sensitivity": "high"}, {}),
    (16, 384, {"memory_reservation": "full"}, {}),
    (24, 128, {"cores_per_socket": 3}, {}),
    (30, 16, {}, {"vsphere": "6.7"}),
    (40, 256, {"latency_sensitivity": "high", "cpu_reservation": "full"}, {}),
    (56, 96, {"cores_per_socket": 1}, {}),
    (64, 384, {}, {"vsphere": "7.0"}),
    (24, 96, {"sql": {"version": "2019", "edition": "standard", "maxdop": 0, "cost_threshold": 50}}, {}),
    (64, 16, {"latency_sensitivity": "high", "memory_hot_add": True}, {}),
    (30, 64, {"sql": {"version": "2019", "edition": "standard", "maxdop": 8, "cost_threshold": 50}}, {}),
    (40, 128, {"cpu_hot_add": True, "sql": {"version": "2016", "edition": "standard"}}, {"vsphere": "6.7"}),
)


def sweep(hosts: list[str] | None = None, workloads: tuple[str, ...] = WORKLOADS) -> Iterator[tuple[str, dict]]:
    """(label, spec root) of every generated VM: host x workload x shape."""
    for host in hosts or HOSTS:
        for workload in workloads:
            for index, (vcpus, gb, vm_extra, root_extra) in enumerate(SHAPES):
                extra = dict(vm_extra)
                if "sql" in extra and workload != "sql-server":
                    extra.pop("sql")
                vm = {"name": "vm", "vcpus": vcpus, "memory": f"{gb}GB", "workload": workload, **extra}
                yield f"{host}/{workload}/{index}", {"host": host, **root_extra, "vms": [vm]}


class Entry(NamedTuple):
    key: str
    value: str | None  # None: the key is removed
    rules: tuple[str, ...]  # the rules the recommendation names for it (() : none)


def entries(root: dict, run: Any) -> list[Entry]:
    """The keys the written recommendation changes on the spec's VM, each with its rules: those
    of the typed recommendation, else the one `vmx_reasons` names."""
    from advisor.load.hosts import load_profile
    from advisor.model.spec import VM
    from advisor.vmx.mapping import vm_to_vmx

    result = run.vms[0]
    written = dict(result.recommended_vmx)
    core_mhz = load_profile(root["host"]).core_mhz
    current = vm_to_vmx(VM.model_validate(copy.deepcopy(root["vms"][0])), core_mhz)
    reasons = {k.lower(): rule for k, (rule, _) in result.vmx_reasons.items()}
    rules_of = getattr(result.recommendation, "rules_of", None)  # the typed recommendation, where it names them

    def named(key: str) -> tuple[str, ...]:
        found = tuple(rules_of(key)) if rules_of else ()
        return found or ((reasons[key.lower()],) if key.lower() in reasons else ())

    out = [Entry(k, v, named(k)) for k, v in written.items() if current.get(k) != v]
    out += [Entry(k, None, named(k)) for k in current if k not in written]
    return out


def applied(root: dict, run: Any, keep: list[Entry]) -> dict:
    """The spec with `keep` applied, and every written guest and host setting."""
    root = copy.deepcopy(root)
    vm = root["vms"][0]
    for entry in keep:
        apply_vmx(vm, entry.key, "REMOVE" if entry.value is None else entry.value)
    host = run.hosts[0].recommended_host if run.hosts else {}
    return apply_fix(root, vm["name"], {"guest": dict(run.vms[0].recommended_guest), "host": dict(host)})


def fires(run: Any, rule: str) -> bool:
    return any(f.rule == rule and f.vm == "vm" and f.suppressed is None for f in run.findings)


class Verdict(NamedTuple):
    unjustified: list[tuple[str, list[str]]]  # (rule, its keys) whose rule does not fire without them
    unnamed: list[str]  # written keys no rule is named for
    culprits: dict[str, list[str]]  # unjustified rule -> the written rules whose entries take its premise away


def settled_without(root: dict, label: str, ignored: tuple[str, ...]) -> dict | None:
    """The spec with the recommendation advisor writes when the rules `ignored` are left out
    (`--ignore`) applied: the settled VM without their entries. Where one of them set a key that
    another rule also asks for (a value it refined), the key keeps that other rule's value."""
    from advisor.engine.policy import Policy

    run = evaluate(root, f"{label}/ignoring-{'+'.join(ignored)}", Policy(ignore=ignored))
    if run.errors or not run.vms:
        return None
    return applied(root, run, entries(root, run))


def judge(label: str, root: dict, find_culprits: bool = False) -> Verdict | None:
    """The written entries of one generated VM judged; None when the spec is refused as input.
    find_culprits: also name, for each unjustified rule, the written rules whose entries alone
    take its premise away (what its `yields_to` must name)."""
    first = evaluate(root, label)
    if first.errors or not first.vms:
        return None
    written = entries(root, first)
    rules = sorted({r for e in written for r in e.rules})
    unjustified = []
    culprits: dict[str, list[str]] = {}
    def needed(rule: str, *others: str) -> bool:
        """Whether `rule` fires once the entries of `rule` (and `others`) are gone: deleted from
        the settled VM, or never written (the recommendation advisor makes without them)."""
        gone = {rule, *others}
        deleted = applied(root, first, [e for e in written if not gone & set(e.rules)])
        if fires(evaluate(deleted, f"{label}/deleting-{'+'.join(sorted(gone))}"), rule):
            return True
        without = settled_without(root, label, tuple(sorted(gone)))
        return without is None or fires(evaluate(without, f"{label}/without-{'+'.join(sorted(gone))}"), rule)

    for rule in rules:
        if needed(rule):
            continue
        unjustified.append((rule, [e.key for e in written if rule in e.rules]))
        if find_culprits:
            culprits[rule] = [other for other in rules if other != rule and needed(rule, other)]
    return Verdict(unjustified, [e.key for e in written if not e.rules], culprits)


def main(limit: int | None, verbose: bool = False) -> None:
    cases = groups = unnamed = 0
    by_rule: dict[str, int] = {}
    pairs: dict[tuple[str, str], str] = {}
    for label, root in sweep():
        if limit is not None and cases >= limit:
            break
        verdict = judge(label, root, find_culprits=True)
        cases += 1
        if verdict is None:
            continue
        groups += len(verdict.unjustified)
        unnamed += bool(verdict.unnamed)
        for rule, _ in verdict.unjustified:
            by_rule[rule] = by_rule.get(rule, 0) + 1
            if verbose:
                print(f"  {label}: {rule}", flush=True)
        for rule, others in verdict.culprits.items():
            for other in others:
                pairs.setdefault((rule, other), label)
    print(f"{cases} generated VMs: {groups} rule/VM groups of unjustified entries "
          f"({', '.join(f'{r} {n}' for r, n in sorted(by_rule.items()))}); "
          f"{unnamed} VMs with a written key no rule is named for")
    for (rule, other), label in sorted(pairs.items()):
        print(f"  {rule} yields to {other} (first: {label})")


if __name__ == "__main__":
    main(int(sys.argv[1]) if len(sys.argv) > 1 and sys.argv[1] != "-v" else None, "-v" in sys.argv)
