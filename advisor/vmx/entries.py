"""What a .vmx holds, as advisor.vmx.reader reads it: its entries (VmxEntry), the oddities kept
(ParseWarning), and the read-only view lint and the editor start from (VmxEntries)."""

from __future__ import annotations

from bisect import bisect_left
from dataclasses import dataclass
from functools import partial
from itertools import compress, count, islice
from operator import itemgetter
from typing import NamedTuple

from advisor.vmx.spelling import unescape


class VmxEntry(NamedTuple):
    """One ``key = value`` line as read: the key as spelled, the unescaped value, the value as
    written between the quotes (``raw_value``), and its 1-based line number. (A named tuple:
    lint builds one per line of every file, and it is several times cheaper than a frozen
    dataclass.)"""

    key: str
    value: str
    raw_value: str
    line: int
    quoted: bool = True

    @property
    def raw(self) -> str | None:
        """The value as written when escapes make it differ from ``value``, else None: the
        shape of a template reader's Setting, so the .vmx reader can hand its entries on as is."""
        return self.raw_value if self.raw_value != self.value else None


@dataclass(frozen=True)
class ParseWarning:
    """Something odd that was kept as-is; linters may surface it, parsing never fails on it."""

    line: int | None
    message: str


class VmxEntries:
    """What a .vmx holds: its entries, repeated keys, odd lines, oddities and codec.

    Lint reads every key's value but the line or spelling of few keys, and a VmxEntry per line
    cost a fifth of reading a file. So the entries are kept as columns made without a Python step
    per line (lists in file order: `keys` as spelled, `lows` lower-cased, `values` unescaped,
    `numbers` the lines), with `lines` (lower-cased key -> the line that counts: the last, in
    first-seen order); one key's VmxEntry is made when asked for (`entry_at`), and `entries` and
    `effective` on first use, for the callers that read them all. `malformed`: the lines that are
    neither entries, comments nor blank; `charset`: the declared one, as written.
    """

    __slots__ = ("_by_line", "_effective", "_entries", "_quotes", "_raws", "charset", "duplicates", "encoding",
                 "keys", "lines", "lows", "malformed", "numbers", "values", "warnings")

    def __init__(self, keys: list[str], values: list[str], numbers: list[int], warnings: list[ParseWarning],
                 encoding: str, *, raws: list[str] | None = None, quotes: list[str] | None = None,
                 entries: list[VmxEntry] | None = None, lows: list[str] | None = None,
                 malformed: list[int] | None = None) -> None:
        self.keys, self.values, self.numbers = keys, values, numbers
        self.warnings, self.encoding = warnings, encoding
        self.charset: str | None = None  # set by the reader, which finds it after the entries
        self.malformed = malformed or []
        # A regular file's values as written and their opening quotes ("" for a bare value;
        # None: every value is quoted), in the order of `keys`.
        self._raws, self._quotes = raws, quotes
        self._entries = entries
        self._effective: dict[str, VmxEntry] | None = None
        self._by_line: dict[int, VmxEntry] | None = None
        self.lows = list(map(str.lower, keys)) if lows is None else lows
        # A later occurrence replaces the line but keeps the first one's place: last wins, in
        # first-seen order.
        self.lines = dict(zip(self.lows, numbers, strict=True))
        self.duplicates: list[tuple[str, list[int]]] = []
        if len(self.lines) < len(keys):  # some key is set twice: rare, so found only then
            seen: dict[str, list[tuple[str, int]]] = {}
            for key, low, number in zip(keys, self.lows, numbers, strict=True):
                seen.setdefault(low, []).append((key, number))
            self.duplicates = [(group[0][0], [n for _, n in group]) for group in seen.values() if len(group) > 1]

    @classmethod
    def of(cls, entries: list[VmxEntry], warnings: list[ParseWarning], encoding: str,
           malformed: list[int] | None = None) -> VmxEntries:
        """The view of entries already made (a file with odd lines)."""
        return cls(list(map(_KEY, entries)), list(map(_ENTRY_VALUE, entries)), list(map(_ENTRY_LINE, entries)),
                   warnings, encoding, entries=entries, malformed=malformed)

    @classmethod
    def of_rows(cls, rows: list[tuple[str, str, str]], warnings: list[ParseWarning], encoding: str,
                escapes: bool = True) -> VmxEntries:
        """The view of a regular file's _REGULAR_LINE rows (one per line; comment and blank lines
        have no key), built by C-level iterators: no Python frame per line, the hottest loop of
        `advisor lint`. `escapes`: whether the text holds a `|` at all."""
        keys = list(filter(None, map(_KEY, rows)))
        if len(keys) == len(rows) - (not rows[-1][0]):  # every line is an entry but an empty last one
            raws = list(map(_VALUE, islice(rows, len(keys))))
            quotes = list(map(_QUOTE, islice(rows, len(keys))))
            numbers = list(range(1, len(keys) + 1))
        else:
            raws = list(compress(map(_VALUE, rows), map(_KEY, rows)))
            quotes = list(compress(map(_QUOTE, rows), map(_KEY, rows)))
            numbers = list(compress(count(1), map(_KEY, rows)))
        return cls.of_raws(keys, raws, numbers, warnings, encoding, escapes, quotes if "" in quotes else None)

    @classmethod
    def of_raws(cls, keys: list[str], raws: list[str], numbers: list[int], warnings: list[ParseWarning],
                encoding: str, escapes: bool, quotes: list[str] | None = None,
                lows: list[str] | None = None) -> VmxEntries:
        """The view of a regular file's keys and values as written. `escapes`: whether any value
        may hold a `|`; `quotes`: as in __init__."""
        # `|XX` escapes: rare, decoded where they occur.
        values = [unescape(raw, encoding) if "|" in raw else raw for raw in raws] if escapes else raws
        return cls(keys, values, numbers, warnings, encoding, raws=raws, quotes=quotes, lows=lows)

    def in_codec(self, codec: str, escapes: bool) -> VmxEntries:
        """The same ASCII file read in another charset that reads ASCII as ASCII: only `|XX`
        escapes (bytes in the charset) read differently. `escapes`: whether the file holds a `|`.
        Without one, this view itself, now in `codec` (its reader is the only one holding it)."""
        if not escapes:
            self.encoding = codec
            return self
        if self._raws is not None:
            return VmxEntries.of_raws(self.keys, self._raws, self.numbers, self.warnings, codec, True, self._quotes,
                                      self.lows)
        entries = [entry._replace(value=unescape(entry.raw_value, codec)) if "|" in entry.raw_value else entry
                   for entry in self.entries]
        return VmxEntries.of(entries, self.warnings, codec, self.malformed)

    def entry_at(self, line: int) -> VmxEntry:
        """The entry on a line (one of `numbers`)."""
        if self._raws is not None:
            numbers = self.numbers
            at = line - 1  # where it is when every line up to it is an entry
            if at >= len(numbers) or numbers[at] != line:
                at = bisect_left(numbers, line)
            quoted = self._quotes is None or self._quotes[at] != ""
            return _new_entry((self.keys[at], self.values[at], self._raws[at], line, quoted))
        if self._by_line is None:
            self._by_line = dict(zip(self.numbers, self.entries, strict=True))
        return self._by_line[line]

    @property
    def entries(self) -> list[VmxEntry]:
        """Every entry in file order, duplicates included."""
        if self._entries is None:
            raws = self._raws or []
            quoted = [True] * len(raws) if self._quotes is None else list(map(bool, self._quotes))
            fields = zip(self.keys, self.values, raws, self.numbers, quoted, strict=True)
            self._entries = list(map(_new_entry, fields))
        return self._entries

    @property
    def effective(self) -> dict[str, VmxEntry]:
        """lower-cased key -> the occurrence that counts, first-seen order."""
        if self._effective is None:
            self._effective = dict(zip(self.lows, self.entries, strict=True))
        return self._effective

    def __eq__(self, other: object) -> bool:
        if not isinstance(other, VmxEntries):
            return NotImplemented
        return ((self.entries, self.effective, self.duplicates, self.warnings, self.encoding, self.malformed)
                == (other.entries, other.effective, other.duplicates, other.warnings, other.encoding,
                    other.malformed))

    __hash__ = None  # type: ignore[assignment]  # compared by value, and changes as entries are made

    def __repr__(self) -> str:
        return (f"VmxEntries(entries={self.entries!r}, duplicates={self.duplicates!r}, "
                f"warnings={self.warnings!r}, encoding={self.encoding!r})")


_new_entry = partial(tuple.__new__, VmxEntry)
_KEY, _QUOTE, _VALUE = itemgetter(0), itemgetter(1), itemgetter(2)  # of a _REGULAR_LINE row (and a VmxEntry's key)
_ENTRY_VALUE, _ENTRY_LINE = itemgetter(1), itemgetter(3)  # of a VmxEntry
