"""What both readers of a running estate (RVTools exports, advisor.rvtools; vCenter, advisor.vcenter)
do alike when they turn it into specs, written once so the two cannot drift apart:
- the configuration's `workloads:` rules (.advisor.yaml) applied to a VM: the first rule whose every
  given test matches names its workload; a VM no rule matches stays generic (nothing is guessed),
  and a rule that matched no VM or a VM that several rules matched is said (WorkloadTally);
- a host's cluster peers as the spec's `cluster:` entries, one per kind of host with its count.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from fnmatch import fnmatchcase
from typing import Any, NamedTuple


class VmLabels(NamedTuple):
    """What a `workloads:` rule can test, as the estate states it."""

    name: str
    folder: str  # folder path below the datacenter's VM folder, "/"-separated ("" at its top)
    guest_os: str  # the guest OS display name ("Microsoft Windows Server 2019 (64-bit)")
    attributes: Mapping[str, str]  # custom attribute name -> value


def passes(tests: Sequence[tuple[Sequence[str], str]]) -> bool:
    """Whether a configuration rule's tests, each (globs, value), all pass: a test with no globs is
    not given, a given test passes when one of its globs matches, and a rule with no test given
    matches nothing (`workloads:` here, `estate_hosts:` in advisor.rvtools.hostrules)."""
    given = [(globs, value) for globs, value in tests if globs]
    return bool(given) and all(any(fnmatchcase(value, g) for g in globs) for globs, value in given)


def _matches(rule: Any, vm: VmLabels) -> bool:
    """Whether `vm` passes every test `rule` gives; an attribute the VM lacks matches as the empty value."""
    tests = [(rule.vms, vm.name), (rule.folders, vm.folder), (rule.guest_os, vm.guest_os)]
    tests += [([glob], vm.attributes.get(attribute, "")) for attribute, glob in rule.attributes.items()]
    return passes(tests)


class WorkloadTally:
    """The configuration's `workloads:` rules applied to an estate's VMs, and what the report says
    about them: how many VMs each rule gave a workload, the rules that matched no VM, and the VMs
    that more than one rule matched (the first rule's workload is taken, as the configuration
    documents; said, so that a rule shadowed by an earlier one does not go unnoticed)."""

    __slots__ = ("chosen", "overlaps", "rules")

    def __init__(self, rules: Sequence[Any]) -> None:
        self.rules = rules
        self.chosen: dict[int, int] = {}  # rule index -> VMs it gave a workload
        self.overlaps: dict[tuple[int, ...], int] = {}  # indices of the rules a VM matched (2+) -> VMs

    def choose(self, vm: VmLabels) -> str | None:
        """The workload of the first rule `vm` matches, or None (the VM stays generic)."""
        matched = tuple(i for i, rule in enumerate(self.rules) if _matches(rule, vm))
        if not matched:
            return None
        self.chosen[matched[0]] = self.chosen.get(matched[0], 0) + 1
        if len(matched) > 1:
            self.overlaps[matched] = self.overlaps.get(matched, 0) + 1
        return str(self.rules[matched[0]].workload)

    def note(self) -> str | None:
        """One report note on the rules, or None when there are none."""
        if not self.rules:
            return None
        parts = [f"{kind} {count} VM(s) (rule {i + 1})" for kind, i, count in
                 sorted((str(self.rules[i].workload), i, count) for i, count in self.chosen.items())]
        parts += [f"rule {i + 1} ({rule.workload}) matched no VM" for i, rule in enumerate(self.rules)
                  if i not in self.chosen]
        parts += [f"{count} VM(s) matched rules {', '.join(str(i + 1) for i in matched)}: rule {matched[0] + 1}'s "
                  f"workload taken" for matched, count in sorted(self.overlaps.items())]
        return "workloads from the configuration: " + ", ".join(parts)


def cluster_peers(hosts: Mapping[str, dict[str, Any]],
                  cluster_of: Mapping[str, str]) -> dict[str, list[dict[str, Any]]]:
    """Each clustered host's peers: the other hosts of its cluster as spec `cluster:` entries, one
    per kind (equal `host:` documents but for the name) with its count, in the order of `hosts`:
    DRS and HA may move the VMs there, so a layout only this host can hold is a finding (LIM012).
    `hosts`: host name -> its spec `host:` mapping. Each host's kind is worked out once and only
    its own cluster is walked for it (an estate of thousands of hosts is not compared all to all)."""
    members: dict[str, list[tuple[str, str, dict[str, Any]]]] = {}
    for name, doc in hosts.items():
        if cluster := cluster_of.get(name):
            shape = repr(sorted((k, v) for k, v in doc.items() if k not in ("name", "description")))
            members.setdefault(cluster, []).append((name, shape, doc))
    out: dict[str, list[dict[str, Any]]] = {}
    for group in members.values():
        for name, _, _ in group:
            kinds: dict[str, list[Any]] = {}
            for other, shape, doc in group:
                if other != name:
                    kinds.setdefault(shape, [doc, 0])[1] += 1
            out[name] = [{"host": doc, "count": count} for doc, count in kinds.values()]
    return out
