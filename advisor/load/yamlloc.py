"""Where a YAML value came from: the located mapping and list (LocDict / LocList) the loaders
build, the lookup of a line by path, and the loaders' shared bounds and wordings.

A leaf module (it imports nothing of advisor's), so the loader's modules (advisor.load.yamlfile,
yamltree, yamlnodes) and everything that reads lines (the spec loader, the engine) depend on it
and not on one another, and reading a line never imports PyYAML.
"""

from __future__ import annotations

from typing import Any

MAX_DEPTH = 64
# Items in one YAML list. A spec's `vms:` is the long one: a 16 MiB file holds 392,000 one-line
# VMs, which took 105 s and 1.5 GB to check (a MemoryError under a 1.2 GB address-space limit).
# The bound is advisor's own: the largest spec its benchmarks check (100,000 VMs, checked in
# about 600 MB); `count:` states many alike in one item. It is checked as the list is read, so
# a longer one is refused after 100,000 items (about 100 MB), not after the whole file.
MAX_SEQUENCE_ITEMS = 100_000


class LocDict(dict[Any, Any]):
    """A dict that knows the line of its own start and of each key (1-based)."""

    __slots__ = ("line", "lines")

    def __init__(self, *args: Any, **kwargs: Any) -> None:
        super().__init__(*args, **kwargs)
        self.line: int | None = None
        self.lines: dict[Any, int] = {}


class LocList(list[Any]):
    """A list that knows the line of its own start and of each item (1-based)."""

    __slots__ = ("line", "lines")

    def __init__(self, *args: Any) -> None:
        super().__init__(*args)
        self.line: int | None = None
        self.lines: list[int] = []


def line_of(root: Any, loc: tuple[Any, ...], start: int | None = None) -> int | None:
    """The line of the deepest element of `loc` (a pydantic error location) we can find;
    `start` is the line given when not even its first step is found (default: root's own)."""
    best = getattr(root, "line", None) if start is None else start
    node = root
    for part in loc:
        if isinstance(node, LocDict) and part in node:
            best = node.lines.get(part, best)
            node = node[part]
        elif isinstance(node, LocList) and isinstance(part, int) and 0 <= part < len(node):
            best = node.lines[part]
            node = node[part]
        else:
            break
    return best


def value_problem(exc: Exception) -> str:
    """A scalar constructor's ValueError in the user's terms (both builders word it alike)."""
    text = str(exc)
    return "the number has more digits than advisor reads" if "integer string conversion" in text else text


def too_many_items() -> str:
    return (f"a list of more than {MAX_SEQUENCE_ITEMS:,} items; a spec holds at most {MAX_SEQUENCE_ITEMS:,} VMs "
            "(`count:` states many alike in one item)")
