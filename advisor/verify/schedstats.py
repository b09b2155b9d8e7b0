"""Read `sched-stats -t numa-clients`: each NUMA client of each VM, its home node and its memory.

The columns (Denneman, "vSphere 8 CPU Topology for Large Memory Footprint VMs Exceeding NUMA
Boundaries", 2022-11-03, https://frankdenneman.nl/2022/11/03/vsphere-8-cpu-topology-for-large-memory-footprint-vms-exceeding-numa-boundaries/,
and "vSphere 7 Cores per Socket and Virtual NUMA", 2021-12-02,
https://frankdenneman.nl/2021/12/02/vsphere-7-cores-per-socket-and-virtual-numa/):
`groupName groupID clientID homeNode affinity nWorlds vmmWorlds localMem remoteMem`, one row per
client, memory in KB. vmmWorlds counts the client's vCPUs (the VMM worlds, one per vCPU; KB 1019471
"Interpreting virtual machine monitor and executable failures": a VMM process per virtual CPU).

Columns are found by their header names, so a build that adds or moves a column still reads; rows
that do not fit the header are ignored, not guessed at.
"""

from __future__ import annotations

from dataclasses import dataclass, field

from advisor.errors import InputError

MAX_ROWS = 100_000
_NEEDED = ("groupName", "clientID", "homeNode", "vmmWorlds", "localMem", "remoteMem")


@dataclass
class Client:
    client: int
    home_node: int
    vcpus: int
    local_kb: int
    remote_kb: int


@dataclass
class LoggedClients:
    """One VM's rows (its groupName, e.g. `vm.8855209`)."""

    file: str
    line: int
    group: str
    clients: list[Client] = field(default_factory=list)

    @property
    def vcpus(self) -> int:
        return sum(c.vcpus for c in self.clients)

    @property
    def sizes(self) -> tuple[int, ...]:
        return tuple(c.vcpus for c in sorted(self.clients, key=lambda c: c.client))

    @property
    def home_nodes(self) -> tuple[int, ...]:
        return tuple(c.home_node for c in sorted(self.clients, key=lambda c: c.client))

    @property
    def memory_kb(self) -> int:
        return sum(c.local_kb + c.remote_kb for c in self.clients)

    @property
    def remote_kb(self) -> int:
        return sum(c.remote_kb for c in self.clients)


def looks_like(text: str) -> bool:
    head = text[:4096]
    return all(name in head for name in ("groupName", "homeNode", "localMem"))


def parse_text(text: str, file: str) -> list[LoggedClients]:
    columns: dict[str, int] | None = None
    groups: dict[str, LoggedClients] = {}
    rows = 0
    for number, raw in enumerate(text.split("\n"), 1):
        cells = raw.split()
        if not cells:
            continue
        if "groupName" in cells:
            columns = {name: i for i, name in enumerate(cells)}
            missing = [n for n in _NEEDED if n not in columns]
            if missing:
                raise InputError(f"sched-stats header lacks {', '.join(missing)}", file=file, line=number)
            continue
        if columns is None or len(cells) < len(columns):
            continue
        rows += 1
        if rows > MAX_ROWS:
            raise InputError(f"more than {MAX_ROWS:,} sched-stats rows", file=file, line=number)
        try:
            values = {n: int(cells[columns[n]]) for n in _NEEDED if n != "groupName"}
        except ValueError:
            continue
        name = cells[columns["groupName"]][:200]
        group = groups.setdefault(name, LoggedClients(file, number, name))
        group.clients.append(Client(values["clientID"], values["homeNode"], values["vmmWorlds"],
                                    values["localMem"], values["remoteMem"]))
    if columns is None:
        raise InputError("no sched-stats header (groupName ... homeNode ... localMem)", file=file)
    return list(groups.values())
