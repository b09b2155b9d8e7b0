"""OVF descriptors as a light element tree with line numbers: the OVA archive, safe XML, units.

Security: the XML is parsed only through defusedxml, which refuses entity declarations (the
"billion laughs" expansion and external-entity file reads both need one) and external
references. A plain DOCTYPE without entities is harmless and accepted. An `.ova` is read from
memory with tarfile, never extracted: only the first `.ovf` member is read, members with absolute
or `..` paths are ignored, and a descriptor over 32 MiB is refused.
"""

from __future__ import annotations

import io
import re
import tarfile
from dataclasses import dataclass, field
from pathlib import Path, PurePosixPath, PureWindowsPath
from typing import Any

from advisor.errors import InputError

MAX_DESCRIPTOR_BYTES = 32 * 1024 * 1024

# --------------------------------------------------------------------------------------------
# OVA
# --------------------------------------------------------------------------------------------


def ova_descriptor(data: bytes, path: Path) -> bytes:
    """The first `.ovf` member's bytes, read in memory; unsafe member names are skipped."""
    try:
        with tarfile.open(fileobj=io.BytesIO(data), mode="r:") as archive:
            for member in archive:
                if not member.isfile() or not member.name.lower().endswith(".ovf") or _unsafe(member.name):
                    continue
                if member.size > MAX_DESCRIPTOR_BYTES:
                    raise InputError(f"OVF descriptor {member.name} is larger than 32 MiB", file=str(path))
                handle = archive.extractfile(member)
                if handle is None:
                    continue
                return handle.read(MAX_DESCRIPTOR_BYTES + 1)
    except (tarfile.TarError, EOFError, OSError, ValueError) as exc:
        raise InputError(f"not a readable OVA (tar) archive: {exc}", file=str(path)) from None
    except OverflowError:  # a member size (base-256 header field) too large for tarfile to seek past
        raise InputError("not a readable OVA (tar) archive: a member's size is impossibly large",
                         file=str(path)) from None
    raise InputError("the OVA holds no .ovf descriptor", file=str(path))


def _unsafe(name: str) -> bool:
    """Absolute paths and `..` steps: never meaningful inside an OVA, a classic traversal trick."""
    posix, windows = PurePosixPath(name), PureWindowsPath(name)
    return (posix.is_absolute() or windows.is_absolute() or bool(windows.drive)
            or ".." in posix.parts or ".." in windows.parts)


# --------------------------------------------------------------------------------------------
# XML with line numbers
# --------------------------------------------------------------------------------------------


@dataclass(slots=True)
class Node:
    """An element reduced to what the reader needs: local name, attributes by local name, and
    where it starts (expat's line, and its column counted in characters from 1) and ends."""

    tag: str
    attrs: dict[str, str]
    line: int
    column: int | None = None
    end_line: int | None = None
    text: str = ""
    children: list[Node] = field(default_factory=list)

    def kind(self) -> str:
        """The element's meaning: its local name, or for OVF 0.9's generic `Section`/`Content`
        elements the `xsi:type` they carry (`ovf:VirtualHardwareSection_Type`)."""
        if self.tag in ("Section", "Content") and "type" in self.attrs:
            return self.attrs["type"].rsplit(":", 1)[-1].removesuffix("_Type")
        return self.tag

    def find(self, kind: str) -> Node | None:
        return next((c for c in self.children if c.kind() == kind), None)

    def find_all(self, kind: str) -> list[Node]:
        return [c for c in self.children if c.kind() == kind]


def _local(name: str) -> str:
    return name.rsplit("}", 1)[-1]


class _TreeTarget:
    """Parser target that builds _Nodes and records the expat line of every start, end, comment."""

    def __init__(self) -> None:
        self.parser: Any = None  # the XMLParser feeding this target, set by it
        self.stack: list[Node] = []
        self.root: Node | None = None
        self.comments: list[tuple[str, int]] = []

    def _line(self) -> int:
        return self.parser.parser.CurrentLineNumber

    def start(self, tag: str, attrib: dict[str, str]) -> None:
        node = Node(_local(tag), {_local(k): v for k, v in attrib.items()}, self._line(),
                    self.parser.parser.CurrentColumnNumber + 1)
        if self.stack:
            self.stack[-1].children.append(node)
        elif self.root is None:
            self.root = node
        self.stack.append(node)

    def end(self, tag: str) -> None:
        node = self.stack.pop()
        node.end_line = self._line()
        node.text = node.text.strip()

    def data(self, text: str) -> None:
        if self.stack:
            self.stack[-1].text += text

    def comment(self, text: str) -> None:
        self.comments.append((text, self._line()))

    def close(self) -> Node | None:
        return self.root


def parse_xml(data: bytes, path: Path) -> tuple[Node, list[tuple[str, int]]]:
    from xml.etree.ElementTree import ParseError

    from defusedxml import DefusedXmlException, EntitiesForbidden, ExternalReferenceForbidden
    from defusedxml.ElementTree import DefusedXMLParser

    target = _TreeTarget()
    # forbid_dtd stays off so a harmless DOCTYPE passes; entities and external references,
    # the actual attacks, are refused.
    parser = DefusedXMLParser(target=target, forbid_dtd=False, forbid_entities=True, forbid_external=True)
    target.parser = parser
    try:
        parser.feed(data)
        root = parser.close()
    except EntitiesForbidden:
        raise InputError("entity declarations are not allowed", file=str(path), line=_safe_line(parser)) from None
    except ExternalReferenceForbidden:
        raise InputError("external references are not allowed", file=str(path), line=_safe_line(parser)) from None
    except DefusedXmlException as exc:
        raise InputError(f"XML construct not allowed: {exc}", file=str(path), line=_safe_line(parser)) from None
    except ParseError as exc:
        message = re.sub(r":\s*line \d+, column \d+$", "", str(exc))
        raise InputError(f"XML syntax error: {message}", file=str(path), line=exc.position[0]) from None
    except (ValueError, LookupError) as exc:  # e.g. an encoding expat cannot decode
        raise InputError(f"XML cannot be read: {exc}", file=str(path), line=_safe_line(parser)) from None
    if root is None:
        raise InputError("XML has no root element", file=str(path))
    return root, target.comments


def _safe_line(parser) -> int | None:
    try:
        return parser.parser.CurrentLineNumber
    except AttributeError:
        return None


# --------------------------------------------------------------------------------------------
# Units
# --------------------------------------------------------------------------------------------

# Unit names some exporters write instead of DSP0004 programmatic units, per base unit.
_NAMED_UNITS = {
    "byte": {"byte": 1, "bytes": 1, "kilobytes": 2**10, "kb": 2**10, "megabytes": 2**20, "mb": 2**20,
             "gigabytes": 2**30, "gb": 2**30, "terabytes": 2**40, "tb": 2**40},
    "hertz": {"hertz": 1, "hz": 1, "megahertz": 10**6, "mhz": 10**6, "gigahertz": 10**9, "ghz": 10**9},
}


def _unit_factor(units: str, base: str) -> int | None:
    """`byte * 2^20` (DSP0004 programmatic units) or a named unit, in `base` units; else None."""
    text = units.replace(" ", "").lower()
    if text in _NAMED_UNITS[base]:
        return _NAMED_UNITS[base][text]
    terms = text.split("*")
    if terms[0] not in (base, base + "s"):
        return None
    factor = 1
    for term in terms[1:]:
        match = re.fullmatch(r"(\d{1,4})(?:\^(\d{1,3}))?", term)
        if not match:
            return None
        factor *= int(match.group(1)) ** int(match.group(2) or 1)
        if factor > 2**80:  # past any real unit (yottabytes); products of many terms grow unbounded
            return None
    return factor


def to_unit(quantity: str, units: str | None, base: str, target: int) -> int | None:
    """A quantity in `units` converted to `target` base units (MB = 2^20 bytes, MHz = 10^6 Hz)."""
    if units is None or not re.fullmatch(r"\s*\d{1,20}\s*", quantity or ""):
        return None
    factor = _unit_factor(units, base)
    if factor is None:
        return None
    return int(quantity) * factor // target
