"""`sched.cpu.affinity`: the logical CPUs a VM is pinned to, read without expanding ranges.

The value comes from specs, .vmx files, Packer and Terraform templates alike, so this is the one
place it is read. A range such as "0-9999999999" is kept as its two ends: the work is one step
per comma-separated part, never one per CPU, and the number of parts is bounded.
"""

from __future__ import annotations

import re

MAX_PARTS = 4096  # parts per list: bounds the work; a longer list is reported as unreadable

_PART = re.compile(r"([0-9]{1,18})(?:-([0-9]{1,18}))?")


def parse(text: str) -> list[tuple[int, int]] | None:
    """The (first, last) CPU ranges of an affinity list, or None if it cannot be read."""
    parts = [p for p in text.replace(" ", "").split(",") if p]
    if not parts or len(parts) > MAX_PARTS:
        return None
    ranges = []
    for part in parts:
        match = _PART.fullmatch(part)
        if not match:
            return None
        lo = int(match.group(1))
        hi = int(match.group(2)) if match.group(2) else lo
        if hi < lo:
            return None
        ranges.append((lo, hi))
    return ranges


def nodes_touched(ranges: list[tuple[int, int]], logical_cpus: int, threads_per_node: int) -> int:
    """Physical NUMA nodes the ranges reach, numbering logical CPUs node by node; CPUs past
    the host's last one are ignored. Interval arithmetic: one step per range."""
    touched: set[int] = set()
    for lo, hi in ranges:
        if lo >= logical_cpus:
            continue
        hi = min(hi, logical_cpus - 1)
        touched.update(range(lo // threads_per_node, hi // threads_per_node + 1))
    return len(touched) or 1
