"""What the engine evaluates: a Subject (one VM, wherever it came from, with how to point at its
lines) and what the placement pass leaves for every VM's turn (Placed)."""

from __future__ import annotations

from collections.abc import Callable
from typing import TYPE_CHECKING, Any

if TYPE_CHECKING:
    from advisor.engine.policy import Exemption
    from advisor.model.cluster import ClusterHost
    from advisor.model.spec import VM, Host
    from advisor.model.versions import Version
    from advisor.numa.placement import Placement
    from advisor.numa.topology import Topology


# Plain slotted classes: see CONTRIBUTING.md, "Add a class on `check`'s path".
class Subject:
    """One VM to evaluate, wherever it came from (a spec entry or a template)."""

    __slots__ = ("column", "exemptions", "file", "line", "locate", "notes", "unknown", "vm")

    def __init__(self, vm: VM, file: str, line: int | None, locate: Callable[[str], int | None],
                 exemptions: list[Exemption] | None = None, unknown: frozenset[str] = frozenset(),
                 notes: list[str] | None = None, column: Callable[[str], int | None] | None = None) -> None:
        self.vm = vm
        self.file = file
        self.line = line
        self.locate = locate  # spec field path -> line in the file
        self.exemptions = [] if exemptions is None else exemptions
        self.unknown = unknown
        self.notes = [] if notes is None else notes
        self.column = column  # spec field path -> column, where known


class Placed:
    """What pass 1 (Evaluator.place) leaves for every VM's turn: the host, the topologies
    predicted (by shape and memory size), and the host-wide placement facts."""

    __slots__ = ("cache", "cluster", "facts", "host", "placement", "shapes", "version", "workloads")

    def __init__(self, host: Host | None, version: Version | None, cluster: tuple[ClusterHost, ...] = (),
                 workloads: set[str] | None = None) -> None:
        self.host = host
        self.version = version
        self.cluster = cluster
        self.cache: dict[tuple[Any, ...], Any] = {}
        self.facts: dict[str, Any] = {}
        self.placement: Placement | None = None
        self.workloads = set() if workloads is None else workloads
        # Each subject's VM and its topology_for answer, last subject first: pass 2 would ask the
        # same of the same cache. Popped as pass 2 goes, so a large spec's answers are freed as its
        # VMs are; an answer is used only for the very VM it was asked for (else pass 2 asks again).
        self.shapes: list[tuple[VM, tuple[Topology, dict[str, Any], bool] | None]] = []
