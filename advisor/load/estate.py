"""What both readers of a running estate (RVTools exports, advisor.rvtools; vCenter, advisor.vcenter)
do alike when they turn it into specs, written once so the two cannot drift apart:
- the configuration's `workloads:` rules (.advisor.yaml) applied to a VM: the first rule whose every
  given test matches names its workload; a VM no rule matches stays generic (nothing is guessed);
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


def choose_workload(rules: Sequence[Any], vm: VmLabels) -> tuple[str, int] | None:
    """The workload of the first rule `vm` matches and that rule's index (0-based), or None.
    A rule with no test matches nothing; an attribute the VM lacks matches as the empty value."""
    for index, rule in enumerate(rules):
        tests = [(rule.vms, vm.name), (rule.folders, vm.folder), (rule.guest_os, vm.guest_os)]
        tests += [([glob], vm.attributes.get(attribute, "")) for attribute, glob in rule.attributes.items()]
        given = [(globs, value) for globs, value in tests if globs]
        if given and all(any(fnmatchcase(value, g) for g in globs) for globs, value in given):
            return str(rule.workload), index
    return None


def workloads_note(chosen_by: Mapping[tuple[str, int], int]) -> str | None:
    """One report note saying how many VMs each rule gave a workload, or None when none did."""
    if not chosen_by:
        return None
    return "workloads from the configuration: " + ", ".join(
        f"{kind} {count} VM(s) (rule {index + 1})" for (kind, index), count in sorted(chosen_by.items()))


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
