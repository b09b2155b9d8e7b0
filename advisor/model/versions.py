"""vSphere / ESXi versions ("5.5", "6.7 U2", "8.0U3") and the maxima that depend on them.

The maxima themselves are data (rules/limits/vsphere.yaml), each row with its source. The tables
are read once per process, so each lookup is a pure function of its arguments: it is memoised
(bounded), as every VM of a spec asks the same few versions the same questions.
"""

from __future__ import annotations

import re
from dataclasses import dataclass
from functools import lru_cache
from typing import Any, NamedTuple

_VERSION = re.compile(r"^\s*(\d+)(?:\.(\d+))?(?:\.(\d+))?\s*(?:u(?:pdate)?\s*(\d+)([a-z])?)?\s*$", re.IGNORECASE)


@dataclass(frozen=True, order=True, slots=True)
class Version:
    major: int
    minor: int = 0
    update: int = 0

    @classmethod
    def parse(cls, text: object) -> Version:
        """A version as written in a spec, host profile, rule or --vsphere; one that is not a
        release advisor knows (rules/limits/vsphere.yaml `releases:`) is a ValueError."""
        if isinstance(text, (int, float)) and not isinstance(text, bool):
            text = str(text)
        if not isinstance(text, str):
            raise ValueError("a version is written like \"6.7\" or \"8.0 U2\"")
        return _parsed(text)

    def __str__(self) -> str:
        return f"{self.major}.{self.minor}" + (f" U{self.update}" if self.update else "")

    def at_least(self, other: str) -> bool:
        return self >= Version.parse(other)


@lru_cache(maxsize=256)
def _parsed(text: str) -> Version:
    match = _VERSION.match(text)
    if not match:
        raise ValueError(f"'{text}' is not a vSphere version (e.g. \"6.7\", \"7.0 U3\", \"8.0\")")
    major, minor, patch, update = (int(g) if g else 0 for g in match.groups()[:4])
    if major >= 7 and patch:
        # From 7.0 the third number is the update: ESXi 8.0.2 is 8.0 Update 2 (Broadcom KB
        # 395110, "Unified VCF Versioning in ESXi Release"); before 7.0 it is a patch release.
        if update and update != patch:
            raise ValueError(f"'{text}' names two updates ({major}.{minor}.{patch} is {major}.{minor} U{patch})")
        update = patch
    version = Version(major, minor, update)
    releases = known_releases()
    last = releases.get(f"{major}.{minor}", -1)
    if last == -1 or (last is not None and update > last):
        raise ValueError(f"vSphere {text} is not a release advisor knows; known: {releases_text()}")
    return version


def known_releases() -> dict[str, int | None]:
    """Each release ("8.0") advisor knows and its last update (None: not settled, any)."""
    return dict(_doc()["releases"])


def releases_text() -> str:
    """The known releases as one line: "..., 7.0 (U1-U3), 8.0 (U1-U3), 9.0"."""
    return ", ".join(name + (f" (U1-U{last})" if last else "") for name, last in known_releases().items())


class Limits(NamedTuple):
    """Per-version maxima for one VM. (A NamedTuple: see CONTRIBUTING.md, "Add a class on
    `check`'s path".)"""

    since: Version
    max_hw: int
    max_vcpus: int
    max_memory_mib: int
    max_cores_per_socket: int
    source: str


@lru_cache(maxsize=4)
def _doc(name: str = "vsphere") -> Any:
    from advisor.resources import limits_table

    return limits_table(name)


def _guest_rows() -> list[dict[str, Any]]:
    return list(_doc("guests")["guests"])


@lru_cache(maxsize=1)
def _table() -> tuple[list[Limits], list[dict[str, Any]], str]:
    from advisor.model.units import parse_size_mib

    doc = _doc()
    rows = []
    for row in doc["versions"]:
        rows.append(
            Limits(
                since=Version.parse(row["version"]),
                max_hw=row["max_hw"],
                max_vcpus=row["max_vcpus"],
                max_memory_mib=parse_size_mib(row["max_memory"]),
                max_cores_per_socket=row["max_cores_per_socket"],
                source=row["source"],
            )
        )
    rows.sort(key=lambda r: r.since)
    return rows, doc["hardware"], doc["hardware_source"]


@lru_cache(maxsize=256)
def limits_for(version: Version) -> Limits:
    """The maxima of the newest table row not newer than `version`."""
    rows, _, _ = _table()
    best = rows[0]
    for row in rows:
        if row.since <= version:
            best = row
    return best


@lru_cache(maxsize=256)
def hw_max_vcpus(hw: int) -> int:
    """Largest vCPU count a virtual hardware version allows."""
    _, table, _ = _table()
    allowed = 1
    for row in table:
        if hw >= row["since_hw"]:
            allowed = row["max_vcpus"]
    return allowed


@lru_cache(maxsize=256)
def hw_feature(hw: int, feature: str) -> bool:
    """Whether virtual hardware `hw` supports a feature named in the hardware table."""
    _, table, _ = _table()
    for row in table:
        if feature in row.get("features", []):
            return bool(hw >= row["since_hw"])
    raise KeyError(feature)


def hardware_source() -> str:
    return _table()[2]


class HwLimits(NamedTuple):
    """What one virtual hardware version allows, and the first ESXi that runs it. (A NamedTuple:
    see CONTRIBUTING.md, "Add a class on `check`'s path".)"""

    since_hw: int
    esxi: Version
    max_vcpus: int
    max_memory_mib: int
    max_cores_per_socket: int


@lru_cache(maxsize=1)
def _hw_rows() -> tuple[HwLimits, ...]:
    from advisor.model.units import parse_size_mib

    _, table, _ = _table()
    return tuple(HwLimits(row["since_hw"], Version.parse(row["esxi"]), row["max_vcpus"],
                          parse_size_mib(row["max_memory"]), row["max_cores_per_socket"]) for row in table)


@lru_cache(maxsize=256)
def hw_limits(hw: int) -> HwLimits:
    """The limits of virtual hardware `hw` (the newest row not newer than it)."""
    rows = _hw_rows()
    best = rows[0]
    for row in rows:
        if hw >= row.since_hw:
            best = row
    return best


@lru_cache(maxsize=256)
def max_hw_for(esxi: Version) -> int:
    """The newest virtual hardware version an ESXi release runs."""
    newest = _hw_rows()[0].since_hw
    for row in _hw_rows():
        if row.esxi <= esxi:
            newest = max(newest, row.since_hw)
    return newest


@lru_cache(maxsize=1)
def _ft_rows() -> tuple[tuple[Version, dict[str, Any]], ...]:
    return tuple((Version.parse(row["version"]), row) for row in _doc()["ft"])


@lru_cache(maxsize=256)
def ft_limits(version: Version, edition: str) -> tuple[int, int]:
    """(vCPUs, memory MiB) of one Fault Tolerance VM on `version` with licence `edition`."""
    from advisor.model.units import parse_size_mib

    best = None
    for since, row in _ft_rows():
        if since <= version:
            best = row
    if best is None:
        return 0, 0
    return int(best.get(edition, best["enterprise-plus"])), parse_size_mib(best["max_memory"])


def _guest_row(guest_os: str | None, key: str) -> dict[str, Any] | None:
    """The first guests.yaml row matching the guestOS id that states `key`."""
    import re

    if not guest_os:
        return None
    return next((row for row in _guest_rows()
                 if key in row and re.search(row["match"], guest_os, re.IGNORECASE)), None)


@lru_cache(maxsize=1024)
def guest_minimum_mib(guest_os: str | None) -> int:
    """The least memory the guest OS is documented to run with (0: no documented minimum)."""
    from advisor.model.units import parse_size_mib

    row = _guest_row(guest_os, "min_memory")
    return parse_size_mib(row["min_memory"]) if row else 0


@lru_cache(maxsize=1024)
def guest_max_sockets(guest_os: str | None) -> int:
    """The most processor sockets the guest OS is documented to use (0: no documented limit)."""
    row = _guest_row(guest_os, "max_sockets")
    return int(row["max_sockets"]) if row else 0


def ft_max_disks() -> int:
    """Most virtual disks of one Fault Tolerance VM."""
    return int(_doc()["ft_max_disks"])


def max_sockets() -> int:
    """Most virtual sockets of one VM."""
    return int(_doc()["max_sockets"])
