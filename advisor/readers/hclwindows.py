"""Parsing a large HCL file a window of top-level items at a time, with tree-sitter.

One tree for 14 MB of HCL took a gigabyte in tree-sitter and as much again in Python node
objects, all alive at once. A file over `WINDOW` bytes is parsed from windows instead: each
window is parsed with an included range, so every node keeps its position in the whole file, and
only its complete items are handed on before the next window is parsed. A window with a syntax
error stops the scheme: a file of at most MAX_PARSE bytes is then parsed whole (`Unsplit`), so
its message is the one a whole-file parse gives; a larger one gets the error as the window shows
it (`WindowError`).
"""

from __future__ import annotations

import re
from collections.abc import Iterator
from functools import lru_cache
from typing import Any

WINDOW = 1 << 18
# The most bytes tree-sitter is given at once in a file larger than that. Its tree takes up to
# about 230 bytes per byte of input (measured: `[1,1,...]`, a long string), so this bounds the
# tree at about 120 MB; a top-level item larger than this is refused. The largest real file in the
# corpus is 29 KB, and its largest block a few KB.
MAX_PARSE = 1 << 19

_EXPONENT = re.compile(rb"[eE][-+]?[0-9]")


@lru_cache(maxsize=2)
def parser(purpose: str) -> Any:
    """A tree-sitter parser for HCL; "window" gets its own, whose included ranges change."""
    import tree_sitter
    import tree_sitter_hcl

    return tree_sitter.Parser(tree_sitter.Language(tree_sitter_hcl.language()))


class Unsplit(Exception):
    """A window held a syntax error in a file small enough to parse whole: it is parsed at once,
    for the exact report a whole-file parse gives."""


class WindowError(Exception):
    """A syntax error in a window of a file too large to parse whole (`root` holds it)."""

    def __init__(self, root: Any) -> None:
        super().__init__("syntax error")
        self.root = root


class TooLarge(Exception):
    """A top-level item (from `row`, 0-based) larger than MAX_PARSE, or one never closed."""

    def __init__(self, row: int) -> None:
        super().__init__("item too large")
        self.row = row


def windows(source: bytes) -> Iterator[list[Any]]:
    """The top-level items of `source` in order, in batches parsed from windows of the file.

    Only complete, error-free items that are followed by another item are taken (the cut can fall
    inside the last one); the next window starts after them. A window with no such item is
    doubled up to MAX_PARSE bytes, so a file is parsed at most about twice over and never more
    than MAX_PARSE bytes at once.
    """
    import tree_sitter

    window_parser = parser("window")
    start, row, size = 0, 0, WINDOW
    try:
        while start < len(source):
            line_end = source.find(b"\n", start + size) + 1
            end = min(line_end if line_end > 0 else len(source), start + MAX_PARSE, len(source))
            window_parser.included_ranges = [tree_sitter.Range(
                (row, start - source.rfind(b"\n", 0, start) - 1),
                (row + source.count(b"\n", start, end), end - source.rfind(b"\n", 0, end) - 1), start, end)]
            root = window_parser.parse(source).root_node
            body = next((c for c in root.children if c.type == "body"), None)
            items = body.children if body is not None else []
            if end == len(source):
                if root.has_error:
                    _refuse(root, source)
                yield items
                return
            taken = 0
            while taken < len(items) - 1 and not items[taken].has_error:
                taken += 1
            if taken < len(items) - 1 or any(c.has_error and c.start_byte < items[taken - 1].end_byte
                                             for c in root.children if c is not body and taken):
                _refuse(root, source)  # an error before the cut: a real one
            if taken == 0:
                if end - start >= MAX_PARSE:
                    raise TooLarge(next((i.start_point[0] for i in items if i.type != "comment"), row))
                size *= 2
                continue
            yield items[:taken]
            row += source.count(b"\n", start, items[taken - 1].end_byte)
            start, size = items[taken - 1].end_byte, WINDOW
    finally:
        window_parser.included_ranges = []


def _refuse(root: Any, source: bytes) -> None:
    raise Unsplit if len(source) <= MAX_PARSE else WindowError(root)


def with_fractions(root: Any, source: bytes) -> tuple[bytes, list[int]]:
    """`1e3` is an HCL number, but the grammar wants a fraction before an exponent: such numbers
    get `.0` (same value) and the file is parsed again; `inserted` (sorted) lets columns be given
    back."""
    points: list[int] = []
    stack = [root]
    while stack:
        node = stack.pop()
        if node.type == "numeric_lit":
            if _EXPONENT.match(source, node.end_byte) and b"." not in source[node.start_byte:node.end_byte]:
                points.append(node.end_byte)
        else:
            stack.extend(node.children)
    points.sort()
    pieces, last = [], 0
    for point in points:  # one join, not one insertion (a copy of the file) per number
        pieces += [source[last:point], b".0"]
        last = point
    pieces.append(source[last:])
    return b"".join(pieces), [point + 2 * shift for shift, point in enumerate(points)]


def first_error(node: Any) -> Any:
    """The first ERROR or MISSING node in document order (iterative: trees can be deep)."""
    stack = [node]
    while stack:
        current = stack.pop()
        if current.type == "ERROR" or current.is_missing:
            return current
        if current.has_error:
            stack.extend(reversed(current.children))
    return None
