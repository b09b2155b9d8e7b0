""".vmx reader: a VMware configuration file (or a `.vmtx` template) as the TemplateVM it describes.

A .vmx already speaks the language every reader translates into, so this adapter adds no mapping:
it reads the file with advisor.vmx.reader (which keeps quoting, `|XX` escapes, charsets and odd lines
faithfully), records every effective key with the line that sets it, and turns what a linter
should know about into notes — keys set more than once (the last one wins, as in advisor.vmx.reader)
and lines that are not `key = "value"` entries.

Inline suppressions are full-line comments, the only comments a .vmx has:

    # advisor: ignore NET001 -- the appliance vendor only supports e1000e
    # advisor: ignore NET001, STO001 -- vendor appliance

The comment syntax is the one every reader shares (advisor.readers.suppress.parse_suppression).
A suppression must say why: one without a reason is refused (an input error at its line, from
advisor.engine.lint.template_subject, as in every template format), so a bare "ignore" cannot
silently hide a finding.
"""

from __future__ import annotations

import os
import re
from collections.abc import Callable, ItemsView, Iterator, Mapping, ValuesView
from operator import itemgetter
from pathlib import Path
from typing import Any, TypeVar

from advisor.errors import InputError
from advisor.readers.base import TemplateVM
from advisor.readers.suppress import parse_suppression
from advisor.vmx.entries import VmxEntries, VmxEntry
from advisor.vmx.reader import lines_mentioning, read_entries
from advisor.vmx.spelling import canonical_keys

KIND = "vmx"
SUFFIXES = (".vmx", ".vmtx")
# Keys nearly every .vmx carries near its top; one of them in the head marks a .vmx by content.
_MARKER_KEYS = frozenset({"config.version", "virtualhw.version", "numvcpus", "displayname", ".encoding"})
_ENTRY_LINE = re.compile(rb'[ \t]*([^ \t=#"{}\[\]<>]+)[ \t]*=[ \t]*(?:"[^"\n]*"?|[^ \t"\n{}\[]*)[ \t\r]*\Z')
# How many notes one kind of oddity may produce before the rest are summarised in one line:
# a file that is mostly garbage should not bury the findings under thousands of notes.
_MAX_NOTES_PER_KIND = 20
_SUPPRESSION_HINT = re.compile(r"advisor:\s*ignore\b")
_SPELLING = itemgetter(0)  # of a VmxSettings.index value
_V = TypeVar("_V")


def sniff(path: Path, head: bytes) -> bool:
    """`.vmx` / `.vmtx` by name, or text whose lines are all `key = value` entries (or comments)
    and which sets one of the keys every .vmx carries (config.version, displayName, ...).

    The "every line" condition keeps HCL (`resource "x" "y" {`) and YAML out: both have lines
    that look like assignments, but never only such lines.
    """
    if path.suffix.lower() in SUFFIXES:
        return True
    if b"\0" in head:
        return False
    lines = head.lstrip(b"\xef\xbb\xbf").split(b"\n")
    if len(head) >= 4096 and len(lines) > 1:
        lines = lines[:-1]  # the head may end mid-line
    keys = []
    for raw in lines:
        stripped = raw.strip(b" \t\r")
        if not stripped or stripped.startswith(b"#"):
            continue
        match = _ENTRY_LINE.match(raw)
        if match is None:
            return False
        keys.append(match.group(1).decode("latin-1").lower())
    return any(key in _MARKER_KEYS for key in keys)


def read(path: Path, data: bytes) -> list[TemplateVM]:
    """The one VM the file describes, named after displayName (else the file name's stem)."""
    doc = read_entries(data, file=str(path))
    if not doc.lines:
        raise InputError('has no `key = "value"` lines, so it is not a .vmx file', file=str(path))
    settings = VmxSettings(doc)
    display = settings.get("displayname")
    # Without displayName the file's stem; a name's undecodable bytes (surrogate-escaped by
    # os.fsdecode, `café` in Latin-1) shown as \xNN, as a VM name is text.
    name = (display.value.strip() if display is not None and display.value.strip()
            else os.fsencode(path.stem).decode("utf-8", "backslashreplace"))
    vm = TemplateVM(name=name, file=str(path), kind=KIND, line=display.line if display else 1,
                    settings=settings, spelling=_Spellings(settings.index))
    vm.value_column = _value_columns(data, doc.encoding)
    _encrypted(vm, settings)
    if doc.duplicates:
        vm.notes.extend(_duplicate_notes(doc))
    if doc.warnings:
        vm.notes.extend(_parse_notes(doc))
    _suppressions(vm, data, doc.encoding)
    return [vm]


class _Keyed(Mapping[str, _V]):
    """A read-only mapping whose keys, in their order, are those of one dict (`_keys`)."""

    __slots__ = ("_keys",)

    def __init__(self, keys: Mapping[str, Any]) -> None:
        self._keys = keys

    def __contains__(self, low: object) -> bool:
        return low in self._keys

    def __iter__(self) -> Iterator[str]:
        return iter(self._keys)

    def __len__(self) -> int:
        return len(self._keys)


class VmxSettings(_Keyed[VmxEntry]):
    """A .vmx's settings: lower-cased key -> the VmxEntry that counts (the last), in first-seen
    order. An entry is made when looked up: lint reads every key's value but the line of few.
    `index` (lower-cased key -> (VMware's spelling, value)) and `lines` (-> line) hold every key,
    made without a Python step per key; lint builds the VM from them (template_fields).
    TemplateVM.set turns these settings into a dict before changing them."""

    __slots__ = ("_entries", "index", "lines")

    def __init__(self, entries: VmxEntries) -> None:
        super().__init__(entries.lines)
        self._entries = entries
        self.lines = entries.lines
        self.index = dict(zip(entries.lows, zip(canonical_keys(entries.keys), entries.values, strict=True),
                              strict=True))

    def __getitem__(self, low: str) -> VmxEntry:
        return self._entries.entry_at(self.lines[low])

    def get(self, low: str, default: Any = None) -> Any:
        line = self.lines.get(low)
        return default if line is None else self._entries.entry_at(line)

    # Whoever reads every entry gets them made at once, not one lookup per key.
    def items(self) -> ItemsView[str, VmxEntry]:
        return self._entries.effective.items()

    def values(self) -> ValuesView[VmxEntry]:
        return self._entries.effective.values()

    def __repr__(self) -> str:
        return f"VmxSettings({self._entries.effective!r})"


class _Spellings(_Keyed[str]):
    """lower-cased key -> VMware's spelling of it (advisor.vmx.spelling), from a VmxSettings.index."""

    __slots__ = ("_index",)

    def __init__(self, index: dict[str, tuple[str, str]]) -> None:
        super().__init__(index)
        self._index = index

    def __getitem__(self, low: str) -> str:
        return self._index[low][0]

    def get(self, low: str, default: Any = None) -> Any:
        found = self._index.get(low)
        return default if found is None else found[0]

    def __repr__(self) -> str:
        return f"_Spellings({dict(zip(self._index, map(_SPELLING, self._index.values()), strict=True))!r})"


_VALUE_START = re.compile(r"[ \t]*[^=]*=[ \t]*")


def _value_columns(data: bytes, encoding: str) -> Callable[[int], int | None]:
    """line -> the column where the value of that line's `key = "value"` starts (its opening
    quote), in characters. Worked out on demand: only the lines findings point at need it (lines
    split on LF only, as advisor.vmx.reader splits them). The first line asked for is split off
    alone, up to that line, and nothing is kept: most templates with a finding ask for one line,
    and keeping a hundred lines per template cost lint of 10,000 .vmx about 60 ms. A second line
    asked for splits the whole file once, so a template with many findings is not searched from
    the top per finding."""
    body = data[3:] if data.startswith(b"\xef\xbb\xbf") else data
    lines: list[bytes] = []
    first = True

    def column(line: int) -> int | None:
        nonlocal first
        if first:
            first = False
            pieces = body.split(b"\n", line)  # lines 1..line, then the rest of the file in one piece
        else:
            if not lines:
                lines.extend(body.split(b"\n"))
            pieces = lines
        if not 1 <= line <= len(pieces):
            return None
        raw = pieces[line - 1]
        text = raw.decode(encoding, "replace")
        match = _VALUE_START.match(text)
        return len(match[0]) + 1 if match and "=" in match[0] else None

    return column


def _encrypted(vm: TemplateVM, effective: Mapping[str, VmxEntry]) -> None:
    """An encrypted VM keeps its configuration in `encryption.data`, readable only with the key
    (`encryption.keySafe`): what is not in clear text is unknown, never VMware's defaults."""
    data = effective.get("encryption.data")
    if data is None:
        return
    kind = effective.get("vmx.encryptiontype")
    how = "partly encrypted" if kind is not None and kind.value.strip().lower() == "partial" else "encrypted"
    vm.notes.append(f"line {data.line}: the configuration is {how} (encryption.data); settings stored "
                    "there cannot be read, so what is missing below is unknown")
    for key in ("numvcpus", "memsize"):
        if key not in effective:
            vm.set(key, None, data.line, raw="(in encryption.data)")


def _duplicate_notes(doc: VmxEntries) -> list[str]:
    notes = [
        f"{key} is set on lines {', '.join(map(str, numbers))}; the last one (line {numbers[-1]}) counts"
        for key, numbers in doc.duplicates
    ]
    return _capped(notes, "more keys are set more than once")


def _parse_notes(doc: VmxEntries) -> list[str]:
    """advisor.vmx.reader's warnings (malformed lines, unclosed quotes, undecodable bytes, charset)."""
    notes = [f"line {w.line}: {w.message}" if w.line else w.message for w in doc.warnings]
    return _capped(notes, "more lines were odd in the same ways")


def _capped(notes: list[str], rest: str) -> list[str]:
    if len(notes) <= _MAX_NOTES_PER_KIND:
        return notes
    return [*notes[:_MAX_NOTES_PER_KIND], f"... {len(notes) - _MAX_NOTES_PER_KIND} {rest}"]


def _suppressions(vm: TemplateVM, data: bytes, encoding: str) -> None:
    """Collect `# advisor: ignore RULE -- reason` comment lines.

    Lines are split exactly as advisor.vmx.reader splits them (on LF only), so the line numbers agree
    with the settings' lines.
    """
    body = data[3:] if data.startswith(b"\xef\xbb\xbf") else data
    # The hint is case-sensitive, and in UTF-8, or in an ASCII file in any charset advisor reads
    # (each reads ASCII as ASCII), its text comes from these bytes alone: a file without them
    # (nearly every one) is not searched line by line.
    if (encoding == "utf-8" or body.isascii()) and b"advisor" not in body:
        return
    for number, raw in lines_mentioning(body, b"advisor"):
        text = raw.decode(encoding, "replace").strip(" \t\r\f\v")
        if not text.startswith("#") or not _SUPPRESSION_HINT.search(text):
            continue
        found = parse_suppression(text[1:])
        if not found:
            vm.notes.append(f"line {number}: `advisor: ignore` names no rule id; nothing is suppressed")
        # A reasonless one too: the engine refuses it (advisor.engine.lint.template_subject), as
        # for every template format.
        vm.suppressions.extend((rule, reason, number) for rule, reason in found)
