"""The configuration's `estate_hosts:` rules (.advisor.yaml) applied to an RVTools export's hosts:
what the export cannot state about a host, its NUMA nodes per socket, as the user states it by CPU
model or host name. A host takes the first rule whose every given test it matches, and its node
count is then stated, not assumed: the assumption notes (one node per socket, node count
uncertain) are dropped for it. A rule that matches no host, or whose count does not divide a
host's cores, is said in a note; nothing is guessed.
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any

from advisor.load.estate import passes


def _first(rules: Sequence[Any], name: str, cpu: str) -> int | None:
    return next((i for i, rule in enumerate(rules) if passes([(rule.cpu, cpu), (rule.hosts, name)])), None)


def apply(rules: Sequence[Any], hosts: dict[str, tuple[dict[str, Any], str, list[str]]],
          assumed: Sequence[str], notes: list[str]) -> None:
    """Set each matched host's `numa_nodes_per_socket` and drop the `assumed` notes it answers;
    what went unused or could not apply goes into `notes` (the estate's)."""
    if not rules:
        return
    used = [0] * len(rules)
    for name, (doc, _, host_notes) in hosts.items():
        index = _first(rules, name, str(doc.get("cpu", "")))
        if index is None:
            continue
        nodes = rules[index].numa_nodes_per_socket
        if doc["cores_per_socket"] % nodes:
            notes.append(f"estate_hosts rule {index + 1}: {nodes} NUMA nodes per socket do not divide the "
                         f"{doc['cores_per_socket']} cores per socket of host {name}: not applied")
            continue
        used[index] += 1
        doc["numa_nodes_per_socket"] = nodes
        host_notes[:] = [n for n in host_notes if n not in assumed]
    notes.append("NUMA nodes per socket from the configuration: " + ", ".join(
        f"rule {i + 1} ({rules[i].numa_nodes_per_socket} per socket) {count} host(s)" if count
        else f"rule {i + 1} matched no host" for i, count in enumerate(used)))
