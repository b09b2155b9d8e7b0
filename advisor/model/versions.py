"""vSphere / ESXi versions ("5.5", "6.7 U2", "8.0U3") and the maxima that depend on them.

The maxima themselves are data (rules/limits/vsphere.yaml), each row with its source.
"""

from __future__ import annotations

import re
from dataclasses import dataclass
from functools import lru_cache
from typing import Any

_VERSION = re.compile(r"^\s*(\d+)(?:\.(\d+))?(?:\.(\d+))?\s*(?:u(?:pdate)?\s*(\d+)([a-z])?)?\s*$", re.IGNORECASE)


@dataclass(frozen=True, order=True, slots=True)
class Version:
    major: int
    minor: int = 0
    update: int = 0

    @classmethod
    def parse(cls, text: object) -> Version:
        if isinstance(text, (int, float)) and not isinstance(text, bool):
            text = str(text)
        if not isinstance(text, str):
            raise ValueError("a version is written like \"6.7\" or \"8.0 U2\"")
        match = _VERSION.match(text)
        if not match:
            raise ValueError(f"'{text}' is not a vSphere version (e.g. \"6.7\", \"7.0 U3\", \"8.0\")")
        major, minor, _patch, update = (int(g) if g else 0 for g in match.groups()[:4])
        if not 3 <= major <= 9:
            raise ValueError(f"vSphere {text} is outside the versions advisor knows (3.5 to 9.0)")
        return cls(major, minor, update)

    def __str__(self) -> str:
        return f"{self.major}.{self.minor}" + (f" U{self.update}" if self.update else "")

    def at_least(self, other: str) -> bool:
        return self >= Version.parse(other)


@dataclass(frozen=True, slots=True)
class Limits:
    """Per-version maxima for one VM."""

    since: Version
    max_hw: int
    max_vcpus: int
    max_memory_mib: int
    max_cores_per_socket: int
    ft_max_vcpus: int | None
    ft_max_memory_mib: int | None
    source: str


@lru_cache(maxsize=1)
def _table() -> tuple[list[Limits], list[dict[str, Any]], str]:
    from advisor.load.yamlfile import load
    from advisor.model.units import parse_size_mib
    from advisor.resources import data_path

    doc = load(data_path("rules") / "limits" / "vsphere.yaml")
    rows = []
    for row in doc["versions"]:
        rows.append(
            Limits(
                since=Version.parse(row["version"]),
                max_hw=row["max_hw"],
                max_vcpus=row["max_vcpus"],
                max_memory_mib=parse_size_mib(row["max_memory"]),
                max_cores_per_socket=row["max_cores_per_socket"],
                ft_max_vcpus=row.get("ft_max_vcpus"),
                ft_max_memory_mib=parse_size_mib(row["ft_max_memory"]) if row.get("ft_max_memory") else None,
                source=row["source"],
            )
        )
    rows.sort(key=lambda r: r.since)
    return rows, doc["hardware"], doc["hardware_source"]


def limits_for(version: Version) -> Limits:
    """The maxima of the newest table row not newer than `version`."""
    rows, _, _ = _table()
    best = rows[0]
    for row in rows:
        if row.since <= version:
            best = row
    return best


def hw_max_vcpus(hw: int) -> int:
    """Largest vCPU count a virtual hardware version allows."""
    _, table, _ = _table()
    allowed = 1
    for row in table:
        if hw >= row["since_hw"]:
            allowed = row["max_vcpus"]
    return allowed


def hw_feature(hw: int, feature: str) -> bool:
    """Whether virtual hardware `hw` supports a feature named in the hardware table."""
    _, table, _ = _table()
    for row in table:
        if feature in row.get("features", []):
            return bool(hw >= row["since_hw"])
    raise KeyError(feature)


def hardware_source() -> str:
    return _table()[2]
