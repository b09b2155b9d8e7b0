"""What advisor recommends for one VM's configuration, as typed values: the value every emitter,
`advisor check`'s `recommended_vmx`, `advisor vmx`, `advisor fix` and `advisor size` share.

advisor.engine.recommend builds it once per VM; advisor.vmx.recommendation reads and writes it
as .vmx keys through the one key <-> field table (advisor.model.vmxkeys.FIELD_KEYS). A field is
None when the recommendation does not state its key. Keys without a field of their own keep
their .vmx text in ``advanced``; ``order`` keeps every key's place, so the .vmx written is the
VM's own keys first and the keys its fixes add after them.
"""

from __future__ import annotations

from collections.abc import Iterable, Mapping
from dataclasses import dataclass, field

from advisor.vocab import SCSI_VIRTUALDEV, Adapter, Controller


@dataclass(frozen=True, slots=True)
class ScsiController:
    """A SCSI controller: its bus (scsiN) and type by advisor's name (vocab.Controller)."""

    bus: int
    kind: Controller

    @property
    def virtual_dev(self) -> str:
        """The type as .vmx writes it (scsiN.virtualDev): lsisas is lsisas1068."""
        return SCSI_VIRTUALDEV[self.kind]


@dataclass(frozen=True, slots=True)
class NicSlot:
    """A network adapter: its slot (ethernetN) and type (vocab.Adapter)."""

    index: int
    adapter: Adapter


@dataclass(frozen=True, slots=True)
class DiskSize:
    """The size of the VM's Nth disk in MiB (a .vmx does not hold it: the .vmdk does)."""

    index: int
    size_mib: int


@dataclass(frozen=True, slots=True)
class RecommendedVM:
    """The recommended configuration of one VM."""

    name: str
    vcpus: int | None = None
    cores_per_socket: int | None = None
    memory: int | None = None  # MiB
    hardware_version: int | None = None
    guest_os: str | None = None  # .vmx spelling (windows2019srv-64)
    cpu_hot_add: bool | None = None
    cpu_hot_remove: bool | None = None
    memory_hot_add: bool | None = None
    latency_sensitivity: str | None = None  # low, normal, medium, high
    cpu_reservation: int | None = None  # MHz
    cpu_limit: int | None = None  # MHz
    memory_reservation: int | None = None  # MiB
    memory_limit: int | None = None  # MiB
    memory_pinned: bool | None = None  # sched.mem.pin: the reservation locked to the memory size
    nested_hv: bool | None = None
    disk_uuid: bool | None = None
    controllers: tuple[ScsiController, ...] = ()  # in bus order
    nics: tuple[NicSlot, ...] = ()  # in slot order
    disks: tuple[DiskSize, ...] = ()  # in disk order, those whose size is known
    # Every other key: lower-case key -> .vmx text (also a typed key whose text is no valid
    # value, kept as written; advisor.vmx.recommendation.invalid names it).
    advanced: Mapping[str, str] = field(default_factory=dict)
    # Every key in .vmx order, as VMware spells it; a key in `removed` is one the fixes delete.
    order: tuple[str, ...] = ()
    removed: frozenset[str] = frozenset()  # lower-case keys
    # lower-case key -> (rule id, one-line reason) for each key a rule set or removed.
    reasons: Mapping[str, tuple[str, str]] = field(default_factory=dict)
    # lower-case key -> every rule that justifies the key's value or its removal (issue 33): each
    # still fires on the VM with the rest of the recommendation applied.
    sources: Mapping[str, tuple[str, ...]] = field(default_factory=dict)

    def scsi_types(self) -> dict[int, str]:
        """Bus -> scsiN.virtualDev, in bus order."""
        return {c.bus: c.virtual_dev for c in self.controllers}

    def nic_types(self) -> dict[int, str]:
        """Slot -> ethernetN.virtualDev, in slot order."""
        return {n.index: n.adapter for n in self.nics}

    def controller(self, bus: int) -> ScsiController | None:
        return next((c for c in self.controllers if c.bus == bus), None)

    def nic(self, index: int) -> NicSlot | None:
        return next((n for n in self.nics if n.index == index), None)

    def spelling(self, key: str) -> str:
        """VMware's spelling of a key the recommendation holds (``key`` itself otherwise)."""
        low = key.lower()
        return next((k for k in self.order if k.lower() == low), key)

    def reason(self, *keys: str) -> str | None:
        """``RULE: reason`` for the first of ``keys`` a rule set (for a comment line)."""
        for key in keys:
            hit = self.reasons.get(key.lower())
            if hit:
                return one_line(f"{hit[0]}: {hit[1]}")
        return None

    def rules_of(self, key: str) -> tuple[str, ...]:
        """The rules behind a key the recommendation sets or removes (() for the VM's own keys)."""
        low = key.lower()
        named = self.sources.get(low)
        if named:
            return tuple(named)
        hit = self.reasons.get(low)
        return (hit[0],) if hit else ()

    def reasons_for(self, keys: Iterable[str]) -> list[str]:
        """Every distinct ``RULE: reason`` among ``keys``, in order."""
        out: list[str] = []
        for key in keys:
            text = self.reason(key)
            if text and text not in out:
                out.append(text)
        return out

    def all_reasons(self) -> list[str]:
        """Every distinct ``RULE: reason`` of the recommendation, in key order."""
        return self.reasons_for(k for k in self.order if k.lower() not in self.removed)


# The default of a result not yet given its recommendation, built once: a frozen value that
# every result can share (each VM's own is built with its keys, advisor.engine.recommend).
NO_RECOMMENDATION = RecommendedVM(name="")


def one_line(text: str) -> str:
    """A reason flattened to one line, so it stays inside a single comment."""
    return " ".join(str(text).split())
