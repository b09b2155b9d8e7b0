"""A lossless model of VMware .vmx files: read, query, edit, and write back byte-for-byte.

advisor edits configuration files that people (and ESXi) care about, so the first promise is
that nothing changes unless advisor changed it on purpose. Every line keeps its original bytes
(line ending, spacing, quoting, comments, even lines we cannot parse); only a line whose value
is edited is re-rendered, and then only its value part changes.

Real-world parsers get this format wrong in a handful of known ways (landscape §2 item 13):
dropping every other line, matching keys by prefix, rejecting values that contain ``=``,
treating ``#`` inside quotes as a comment, ignoring ``|XX`` escapes and ``.encoding``, comparing
keys case-sensitively, and silently losing duplicates. This module avoids each of them:

* a line is an entry when it looks like ``key = value``; the value may be quoted or bare;
  ``#`` starts a comment only as the first non-blank character of a line;
* keys are compared case-insensitively and exactly; the last duplicate wins, and duplicates
  are reported because VMware's own behaviour with them is not documented;
* values are unescaped from VMware's ``|XX`` hex scheme (``|22`` is ``"``, ``|0A`` a newline);
* the ``.encoding`` entry chooses the charset; bytes the charset cannot decode survive
  through ``surrogateescape`` so even a broken file round-trips exactly.
"""

from __future__ import annotations

import codecs
import re
import warnings
from bisect import bisect_left
from collections.abc import Iterator, Mapping
from dataclasses import dataclass
from functools import lru_cache, partial
from itertools import accumulate, compress, count, islice, repeat
from operator import add, itemgetter, not_
from pathlib import Path
from typing import NamedTuple

from advisor.errors import InputError

# Key spelling and value escapes live apart (advisor check needs them without the codec); the
# codec's users keep importing them from here.
from advisor.vmx.spelling import KeyMemo, _hex_escape
from advisor.vmx.spelling import canonical_key as canonical_key
from advisor.vmx.spelling import escape as escape
from advisor.vmx.spelling import unescape as unescape
from advisor.vocab import FALSE_WORDS, TRUE_WORDS, vmx_bool

MAX_FILE_BYTES = 16 * 1024 * 1024
DEFAULT_CHARSET = "UTF-8"

_BOM = b"\xef\xbb\xbf"
# Whitespace inside a line. Deliberately not Python's \s: that would also swallow \x1c-\x1f,
# \x85 and U+2028, which can legitimately sit inside values (and inside multibyte text).
_WS = " \t\r\f\v"
_ENTRY_RE = re.compile(
    r"(?P<lead>[ \t\r\f\v]*)"
    r"(?P<key>[^ \t\r\f\v=\"#][^ \t\r\f\v=\"]*)"
    r"(?P<sep>[ \t\r\f\v]*=[ \t\r\f\v]*)"
    r"(?P<rest>.*)\Z",
    re.S,
)
_BARE_VALUE_RE = re.compile(r"[^ \t\r\f\v\"#]+\Z")
_CONTROL_RE = re.compile(r"[\x00-\x08\x0a-\x1f\x7f]")
_ICU_WINDOWS_RE = re.compile(r"(?:windows|ibm|ms|cp)[-_]?(\d+)(?:[-_].*)?\Z", re.I)
# What any charset we accept must encode exactly as ASCII, so that line splitting on b"\n"
# and the key/quote/escape syntax work on the raw bytes the same way they do on text.
_ASCII_PROBE = bytes(range(1, 128))
_ESCAPE_PROBE = b"\\n\\x41\\u0041+A-~{~}"


# --------------------------------------------------------------------------- booleans



def format_bool(value: bool) -> str:
    """Render a boolean the way VMware writes it (``TRUE`` / ``FALSE``, upper case)."""
    return vmx_bool(value)


def parse_bool(value: str, *, field: str | None = None) -> bool:
    """Read a .vmx boolean; VMware and older tools write ``TRUE``, ``true``, ``1`` or ``yes``."""
    word = value.strip(_WS).lower()
    if word in TRUE_WORDS:
        return True
    if word in FALSE_WORDS:
        return False
    raise InputError(f"{value!r} is not a boolean (expected TRUE or FALSE)", field=field)


def values_equal(current: str | None, wanted: str) -> bool:
    """Whether a file value already says what we want.

    Boolean words differ only in case between writers (libvirt wrote ``"true"``), so
    ``true``/``TRUE`` count as equal; everything else is compared exactly, because ``"04"`` and
    ``"4"`` may well be read differently by ESXi.
    """
    if current is None:
        return False
    bools = ("true", "false")
    if current.lower() in bools and wanted.lower() in bools:
        return current.lower() == wanted.lower()
    return current == wanted


# --------------------------------------------------------------------------- volatile keys

# Keys that ESXi, vCenter or VMware Tools write by themselves (at creation, power-on, vMotion
# or while the guest runs). Lints must not flag them and diffs should not be alarmed by them:
# a template that sets them is either copying identity from another VM or fighting the host.
VOLATILE_KEYS = frozenset(
    {
        "numa.autosize.cookie",
        "numa.autosize.vcpu.maxPerVirtualNode",
        "cpuid.coresPerSocket.cookie",
        "uuid.bios",
        "uuid.location",
        "vc.uuid",
        "vm.genid",
        "vm.genidX",
        "vm.createDate",
        "sched.swap.derivedName",
        "checkpoint.vmState",
        "checkpoint.vmState.readOnly",
        "cleanShutdown",
        "softPowerOff",
        "monitor.phys_bits_used",
        "migrate.hostLog",
        "migrate.hostLogState",
        "migrate.migrationId",
        "toolsInstallManager.updateCounter",
        "toolsInstallManager.lastInstallError",
        "tools.remindInstall",
        "svga.guestBackedPrimaryAware",
        "vmxstats.filename",
        "extendedConfigFile",
        "guestOS.detailed.data",
        "guestInfo.detailed.data",
        "viv.moid",
    }
)
_VOLATILE_LOWER = frozenset(k.lower() for k in VOLATILE_KEYS)
_VOLATILE_PATTERNS = (
    re.compile(r"ethernet\d+\.generatedaddress(?:offset)?"),
    re.compile(r"[a-z_]+\d*\.pcislotnumber"),
    re.compile(r"scsi\d+\.saswwid"),
    re.compile(r"nvme\d+\.subnqnuuid"),
    re.compile(r"vmci\d+\.id"),
    re.compile(r"vmotion\..+"),
    re.compile(r"guestinfo\.vmtools\..+"),
    re.compile(r"guestinfo\.appinfo"),
)


def is_volatile(key: str) -> bool:
    """Whether the host rewrites ``key`` itself (see VOLATILE_KEYS), case-insensitively."""
    lower = key.lower()
    return lower in _VOLATILE_LOWER or any(p.fullmatch(lower) for p in _VOLATILE_PATTERNS)


# --------------------------------------------------------------------------- charsets


@lru_cache(maxsize=64)
def _charset_codec(name: str) -> str | None:
    """The Python codec for a .vmx charset name, or None when Python cannot read it safely.

    VMware writes ICU converter names; most are Python aliases too, but the ICU-only forms
    such as ``windows-949-2000`` are mapped to their code page (``cp949``). Codecs that do not
    keep ASCII as ASCII (UTF-16, UTF-7, ISO-2022) are refused: the file syntax is ASCII.
    """
    candidates = [name.strip()]
    match = _ICU_WINDOWS_RE.fullmatch(name.strip())
    if match:
        candidates.append(f"cp{match.group(1)}")
    for candidate in candidates:
        try:
            codec = codecs.lookup(candidate).name
        except (LookupError, ValueError, TypeError):
            continue
        return codec if _keeps_ascii(codec) else None
    return None


def _keeps_ascii(codec: str) -> bool:
    """True for codecs that read and write every ASCII byte as itself.

    Escape-style codecs (unicode_escape) and shift-state ones (UTF-7, HZ, ISO-2022) fail the
    probe, as do UTF-16/32 and the bytes-to-bytes codecs (hex, zlib).
    """
    try:
        with warnings.catch_warnings():
            warnings.simplefilter("ignore")
            return all(_same_as_ascii(probe, codec) for probe in (_ASCII_PROBE, _ESCAPE_PROBE))
    except (UnicodeError, LookupError, ValueError, TypeError):
        return False


def _same_as_ascii(probe: bytes, codec: str) -> bool:
    text = probe.decode(codec)
    return text == probe.decode("ascii") and text.encode(codec) == probe


# --------------------------------------------------------------------------- public records


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
class Change:
    """One edit made by apply(). ``new`` is None for a removal. ``line`` is the line in the
    edited file for sets and in the original file for removals (as a diff shows them)."""

    key: str
    old: str | None
    new: str | None
    line: int


@dataclass(frozen=True)
class ParseWarning:
    """Something odd that was kept as-is; linters may surface it, parsing never fails on it."""

    line: int | None
    message: str


# --------------------------------------------------------------------------- line model


@dataclass(slots=True)
class _Line:
    """One physical line. ``raw`` holds its exact bytes (without the terminator ``eol``);
    for entries, head + raw_value + tail is its decoded text, split so that a value edit
    can leave everything around the value untouched."""

    raw: bytes
    eol: bytes
    kind: str  # "entry", "comment", "blank" or "malformed"
    key: str = ""
    head: str = ""
    raw_value: str = ""
    tail: str = ""
    quoted: bool = False
    closed: bool = True


def _split_lines(data: bytes) -> list[tuple[bytes, bytes]]:
    """Split on b"\\n" only, remembering each terminator (CRLF, LF, or none at EOF).

    Splitting bytes rather than text matters: str.splitlines also breaks on \\x85 and U+2028,
    which occur inside UTF-8 values, and would also make CRLF and LF indistinguishable.
    """
    pieces = data.split(b"\n")
    last = pieces.pop()
    lines = [(p[:-1], b"\r\n") if p.endswith(b"\r") else (p, b"\n") for p in pieces]
    if last:
        lines.append((last, b""))
    return lines


def _parse_text(text: str) -> tuple[_Line, str | None]:
    """Classify one decoded line; returns the line (raw bytes not yet filled) and a warning."""
    stripped = text.strip(_WS)
    if not stripped:
        return _Line(b"", b"", "blank"), None
    if stripped.startswith("#"):
        return _Line(b"", b"", "comment"), None
    match = _ENTRY_RE.match(text)
    if match is None:
        return _Line(b"", b"", "malformed"), "not a `key = \"value\"` line; kept verbatim"
    head = match.group("lead") + match.group("key") + match.group("sep")
    line = _Line(b"", b"", "entry", key=match.group("key"))
    return _split_value(line, head, match.group("rest"))


def _split_value(line: _Line, head: str, rest: str) -> tuple[_Line, str | None]:
    if not rest.startswith('"'):
        line.raw_value = rest.rstrip(_WS)
        line.head, line.tail = head, rest[len(line.raw_value) :]
        return line, None
    line.quoted = True
    line.head = head + '"'
    end = rest.find('"', 1)
    if end < 0:
        line.raw_value, line.closed = rest[1:], False
        return line, "value has no closing quote; read to the end of the line"
    line.raw_value, line.tail = rest[1:end], rest[end:]
    if line.tail[1:].strip(_WS):
        return line, "text after the closing quote is ignored"
    return line, None


def _decode_line(raw: bytes, codec: str) -> tuple[str, bool]:
    """Decode one line; bytes the charset rejects become surrogates so nothing is lost."""
    try:
        return raw.decode(codec), True
    except UnicodeDecodeError:
        return raw.decode(codec, "surrogateescape"), False


def _check_key(key: object) -> str:
    """Refuse a key that would not read back as the same single key.

    Keys advisor writes are printable ASCII without blanks, ``=`` or ``"`` and not starting with
    ``#`` (which would make the line a comment).
    """
    if (isinstance(key, str) and key and not key.startswith("#")
            and all("!" <= ch <= "~" and ch not in '="' for ch in key)):
        return key
    raise InputError(f"{key!r} is not a valid .vmx key", field=str(key))


def _check_value(key: str, value: object) -> str:
    if not isinstance(value, str):
        raise InputError(f"value must be text, not {type(value).__name__}", field=key)
    return value


# --------------------------------------------------------------------------- document


class VmxDocument:
    """A parsed .vmx file that can be queried, edited in place and written back unchanged.

    Build one with :meth:`parse` or :meth:`read`. Queries see the current state after edits;
    ``to_bytes()`` of an unedited document is the input, byte for byte.
    """

    def __init__(
        self,
        lines: list[_Line],
        *,
        bom: bytes,
        charset: str | None,
        encoding: str,
        file: str | None,
        warnings: list[ParseWarning],
    ) -> None:
        self._lines = lines
        self._bom = bom
        self.charset = charset
        self.encoding = encoding
        self.file = file
        self.warnings = warnings
        self._index_cache: dict[str, list[int]] | None = None

    # ------------------------------------------------------------------ construction

    @classmethod
    def parse(cls, data: bytes, *, file: str | None = None) -> VmxDocument:
        """Parse .vmx bytes. Only a file that is not text at all (NUL bytes) or is absurdly
        large raises InputError; every other oddity is kept and reported in ``warnings``."""
        if not isinstance(data, (bytes, bytearray, memoryview)):
            raise TypeError(f"VmxDocument.parse wants bytes, not {type(data).__name__}")
        data = bytes(data)
        _check_size(len(data), file)
        _check_no_nul(data, file)
        bom = _BOM if data.startswith(_BOM) else b""
        split = _split_lines(data[len(bom) :])
        notes: list[ParseWarning] = []
        charset = _declared_charset(split)
        encoding = _resolve_charset(charset, notes)
        lines = [_build_line(i, raw, eol, encoding, notes) for i, (raw, eol) in enumerate(split, 1)]
        return cls(lines, bom=bom, charset=charset, encoding=encoding, file=file, warnings=notes)

    @classmethod
    def read(cls, path: str | Path) -> VmxDocument:
        """Read and parse a .vmx file, refusing anything over MAX_FILE_BYTES before loading it."""
        from advisor.load.yamlfile import read_bytes  # refuses FIFOs and devices, sized by fstat

        try:
            data = read_bytes(path, MAX_FILE_BYTES)
        except InputError as exc:
            message = "is a folder, not a .vmx file" if "directory" in exc.message else f"cannot read: {exc.message}"
            raise InputError(message, file=str(path)) from None
        return cls.parse(data, file=str(path))

    # ------------------------------------------------------------------ output

    def to_bytes(self) -> bytes:
        """The file's bytes: the original ones for every line that was not edited."""
        return self._bom + b"".join(line.raw + line.eol for line in self._lines)

    # ------------------------------------------------------------------ queries

    def entries(self) -> Iterator[VmxEntry]:
        """Every ``key = value`` line in file order, duplicates included."""
        for number, line in enumerate(self._lines, 1):
            if line.kind == "entry":
                yield self._entry(line, number)

    def entry(self, key: str) -> VmxEntry | None:
        """The occurrence of ``key`` that counts (the last), with its spelling and line."""
        positions = self._index().get(key.lower())
        if not positions:
            return None
        return self._entry(self._lines[positions[-1]], positions[-1] + 1)

    def get(self, key: str, default: str | None = None) -> str | None:
        """The unescaped value of ``key`` (case-insensitive, exact); the last duplicate wins."""
        positions = self._index().get(key.lower())
        if not positions:
            return default
        return unescape(self._lines[positions[-1]].raw_value, self.encoding)

    def __contains__(self, key: object) -> bool:
        return isinstance(key, str) and key.lower() in self._index()

    def settings(self) -> dict[str, str]:
        """Lower-cased key -> unescaped value, last duplicate winning, in first-seen order."""
        lines = self._lines
        return {k: unescape(lines[p[-1]].raw_value, self.encoding) for k, p in self._index().items()}

    def lines_of(self) -> dict[str, int]:
        """Lower-cased key -> 1-based line of the occurrence that counts (the last)."""
        return {k: p[-1] + 1 for k, p in self._index().items()}

    @property
    def duplicates(self) -> list[tuple[str, list[int]]]:
        """Keys that occur more than once: (key as first spelled, [1-based lines])."""
        groups = [p for p in self._index().values() if len(p) > 1]
        return [(self._lines[p[0]].key, [i + 1 for i in p]) for p in groups]

    @property
    def malformed(self) -> list[int]:
        """1-based lines that are neither entries, comments nor blank (kept verbatim)."""
        return [i for i, line in enumerate(self._lines, 1) if line.kind == "malformed"]

    @property
    def line_count(self) -> int:
        """Physical lines (a final line without a newline counts; the empty tail after the
        last newline does not)."""
        return len(self._lines)

    # ------------------------------------------------------------------ edits

    def set(self, key: str, value: str) -> bool:
        """Give ``key`` the value ``value``; returns whether the document changed.

        An existing key is edited at its last (effective) occurrence, keeping that line's key
        spelling, spacing and quoting; only the value changes. A new key is appended with
        VMware's canonical spelling (``.encoding`` goes first, where VMware reads it).
        """
        _check_key(key)
        _check_value(key, value)
        lower = key.lower()
        if lower == ".encoding":
            self._check_same_codec(value)
        positions = self._index().get(lower)
        if not positions:
            self._insert_new(canonical_key(key), value, at_top=lower == ".encoding")
            return True
        line = self._lines[positions[-1]]
        if unescape(line.raw_value, self.encoding) == value:
            return False
        self._rewrite_value(line, value)
        return True

    def remove(self, key: str) -> int:
        """Delete every occurrence of ``key``; returns how many lines went."""
        lower = key.lower()
        positions = set(self._index().get(lower, ()))
        if not positions:
            return 0
        if lower == ".encoding":
            self._check_same_codec(DEFAULT_CHARSET)
        self._lines = [line for i, line in enumerate(self._lines) if i not in positions]
        self._index_cache = None
        return len(positions)

    # ------------------------------------------------------------------ internals

    def _entry(self, line: _Line, number: int) -> VmxEntry:
        return VmxEntry(
            key=line.key,
            value=unescape(line.raw_value, self.encoding),
            raw_value=line.raw_value,
            line=number,
            quoted=line.quoted,
        )

    def _index(self) -> dict[str, list[int]]:
        """Lower-cased key -> 0-based positions, rebuilt lazily after each edit."""
        if self._index_cache is None:
            index: dict[str, list[int]] = {}
            for position, line in enumerate(self._lines):
                if line.kind == "entry":
                    index.setdefault(line.key.lower(), []).append(position)
            self._index_cache = index
        return self._index_cache

    def _encode(self, text: str, key: str) -> bytes:
        try:
            return text.encode(self.encoding, "surrogateescape")
        except UnicodeEncodeError:
            raise InputError(
                f"the value cannot be written in the file's charset {self.charset or DEFAULT_CHARSET}",
                file=self.file,
                field=key,
            ) from None

    def _rewrite_value(self, line: _Line, value: str) -> None:
        """Replace only the value part of an entry line (the line is left alone on failure)."""
        raw_value = escape(value)
        head, tail = line.head, line.tail
        quoted, closed = line.quoted, line.closed
        if not quoted and not _BARE_VALUE_RE.match(raw_value):
            head, tail, quoted = head + '"', '"' + tail, True
        elif quoted and not closed:
            tail, closed = '"' + tail, True
        line.raw = self._encode(head + raw_value + tail, line.key)
        line.head, line.raw_value, line.tail = head, raw_value, tail
        line.quoted, line.closed = quoted, closed

    def _insert_new(self, key: str, value: str, *, at_top: bool) -> None:
        raw_value = escape(value)
        head = f'{key} = "'
        eol = self._dominant_eol()
        raw = self._encode(head + raw_value + '"', key)
        new = _Line(raw, eol, "entry", key=key, head=head, raw_value=raw_value, tail='"', quoted=True)
        if at_top:
            self._lines.insert(0, new)
            self._index_cache = None
            return
        if self._lines and not self._lines[-1].eol:
            self._lines[-1].eol = eol
        self._lines.append(new)
        if self._index_cache is not None:  # appending shifts nothing, so extend the index
            self._index_cache.setdefault(key.lower(), []).append(len(self._lines) - 1)

    def _dominant_eol(self) -> bytes:
        """New lines follow the file's own convention so a CRLF file stays CRLF."""
        crlf = sum(1 for line in self._lines if line.eol == b"\r\n")
        lf = sum(1 for line in self._lines if line.eol == b"\n")
        return b"\r\n" if crlf > lf else b"\n"

    def _check_same_codec(self, charset: str) -> None:
        """advisor never transcodes: re-encoding every line would defeat the byte-exact promise."""
        if _charset_codec(charset) != self.encoding:
            raise InputError(
                f"changing the charset from {self.charset or DEFAULT_CHARSET} to {charset} would "
                "re-encode the whole file; advisor does not transcode .vmx files",
                file=self.file,
                field=".encoding",
            )


def _check_size(size: int, file: str | None) -> None:
    if size > MAX_FILE_BYTES:
        raise InputError(
            f"file is larger than {MAX_FILE_BYTES // (1024 * 1024)} MiB; a .vmx is a few KiB",
            file=file,
        )


def _check_no_nul(data: bytes, file: str | None) -> None:
    """NUL never occurs in a .vmx; it means a binary file (or UTF-16, which VMware never writes)."""
    at = data.find(b"\0")
    if at >= 0:
        raise InputError(
            "contains NUL bytes, so it is not a .vmx text file (binary, or UTF-16?)",
            file=file,
            line=data.count(b"\n", 0, at) + 1,
        )


def _declared_charset(split: list[tuple[bytes, bytes]]) -> str | None:
    """The ``.encoding`` value, found before decoding (the last one, matching get()).

    Latin-1 maps bytes one-to-one, so the ASCII syntax reads the same in any accepted charset.
    """
    found = None
    for raw, _eol in split:
        if b".encoding" not in raw.lower():
            continue
        line, _warning = _parse_text(raw.decode("latin-1"))
        if line.kind == "entry" and line.key.lower() == ".encoding":
            found = unescape(line.raw_value, "latin-1").strip(_WS)
    return found


def _resolve_charset(charset: str | None, notes: list[ParseWarning]) -> str:
    """The codec to decode with; an unusable charset name degrades to UTF-8 with a warning,
    which is safe because unchanged lines are written back from their original bytes."""
    if charset is None:
        return "utf-8"
    codec = _charset_codec(charset)
    if codec is None:
        notes.append(ParseWarning(None, f"unknown or unsupported charset {charset!r}; reading as UTF-8"))
        return "utf-8"
    return codec


def _build_line(number: int, raw: bytes, eol: bytes, codec: str, notes: list[ParseWarning]) -> _Line:
    text, clean = _decode_line(raw, codec)
    line, warning = _parse_text(text)
    line.raw, line.eol = raw, eol
    if not clean:
        notes.append(ParseWarning(number, _undecodable_warning(codec)))
    if warning:
        notes.append(ParseWarning(number, warning))
    return line


# --------------------------------------------------------------------------- read-only view


class VmxEntries:
    """What a linter reads from a .vmx: its entries, repeated keys, oddities and codec.

    Lint reads every key's value but the line or spelling of few keys, and a VmxEntry per line
    cost a fifth of reading a file. So the entries are kept as columns made without a Python step
    per line (lists in file order: `keys` as spelled, `lows` lower-cased, `values` unescaped,
    `numbers` the lines), with `lines` (lower-cased key -> the line that counts: the last, in
    first-seen order); one key's VmxEntry is made when asked for (`entry_at`), and `entries` and
    `effective` on first use, for the callers that read them all.
    """

    __slots__ = (
        "_by_line",
        "_effective",
        "_entries",
        "_quotes",
        "_raws",
        "duplicates",
        "encoding",
        "keys",
        "lines",
        "lows",
        "numbers",
        "values",
        "warnings",
    )

    def __init__(self, keys: list[str], values: list[str], numbers: list[int], warnings: list[ParseWarning],
                 encoding: str, *, raws: list[str] | None = None, quotes: list[str] | None = None,
                 entries: list[VmxEntry] | None = None, lows: list[str] | None = None) -> None:
        self.keys, self.values, self.numbers = keys, values, numbers
        self.warnings, self.encoding = warnings, encoding
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
    def of(cls, entries: list[VmxEntry], warnings: list[ParseWarning], encoding: str) -> VmxEntries:
        """The view of entries already made (a file with odd lines, or read by the full parser)."""
        return cls(list(map(_KEY, entries)), list(map(_ENTRY_VALUE, entries)), list(map(_ENTRY_LINE, entries)),
                   warnings, encoding, entries=entries)

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
        return cls(keys, values, numbers, warnings, encoding, raws=raws, quotes=quotes, entries=None,
                   lows=lows if lows is not None else list(map(_LOW.__getitem__, keys)))

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
        return VmxEntries.of(entries, self.warnings, codec)

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
        return ((self.entries, self.effective, self.duplicates, self.warnings, self.encoding)
                == (other.entries, other.effective, other.duplicates, other.warnings, other.encoding))

    __hash__ = None  # type: ignore[assignment]  # compared by value, and changes as entries are made

    def __repr__(self) -> str:
        return (f"VmxEntries(entries={self.entries!r}, duplicates={self.duplicates!r}, "
                f"warnings={self.warnings!r}, encoding={self.encoding!r})")


# Every line of a file the full parser reads without a warning, one match per line: an entry
# `key = "value"` or with a bare value (`rtc.diffFromUTC = 0`), a comment, or a blank line.
# Stray quotes, text after a closing quote and other odd lines match nothing. A bare value may
# not start with a blank or a quote, so backtracking cannot turn a broken quoted value into a
# bare one.
# The runs are possessive (`*+`): what follows each can never match a character it took (a
# key or blank run is followed by `=`, a blank or the line's end; a quoted value by its quote;
# a comment by the line's end), so giving characters back never finds another match, and the
# engine stops keeping the states to try it (this regex reads every line `advisor lint` sees).
_WS_CLASS = r"[ \t\r\f\v]*+"
# A key: what a line's text up to its `=` may be (shared by the line regex and the quote split).
_KEY_TEXT = r'[^ \t\r\f\v\n="#][^ \t\r\f\v\n="]*+'
_REGULAR = (_WS_CLASS + r"(?:(" + _KEY_TEXT + ")" + _WS_CLASS + "=" + _WS_CLASS
            + r'(?:(")|(?![ \t\r\f\v"]))((?(2)[^"\n]*+|[^\n]*?))(?(2)")|#[^\n]*+)?' + _WS_CLASS + r"$")
# Groups: the key, the opening quote (empty for a bare value) and the value, quoted or bare.
_REGULAR_LINE = re.compile(r"^" + _REGULAR, re.M)
# The same, and any other line whole (group 4) for the full parser's line parser: one row per line.
_ANY_LINE = re.compile(r"^(?:" + _REGULAR + r"|([^\n]*)$)", re.M)
# What surrogateescape makes of bytes UTF-8 cannot decode (strict UTF-8 never yields them).
_UNDECODABLE = re.compile("[\udc80-\udcff]")


_new_entry = partial(tuple.__new__, VmxEntry)
_KEY, _QUOTE, _VALUE = itemgetter(0), itemgetter(1), itemgetter(2)  # of a _REGULAR_LINE row (and a VmxEntry's key)
_ENTRY_VALUE, _ENTRY_LINE = itemgetter(1), itemgetter(3)  # of a VmxEntry


def lines_mentioning(data: bytes, needle: bytes) -> list[tuple[int, bytes]]:
    """(1-based number, bytes) of every line (split on b"\\n") that contains ``needle`` in
    any letter case. Searching the whole file beats splitting it when few lines match."""
    lowered, needle = data.lower(), needle.lower()
    found = []
    number, counted = 1, 0  # line number of offset `counted`: each byte is counted once
    at = lowered.find(needle)
    while at >= 0:
        start = data.rfind(b"\n", counted, at) + 1 or counted
        end = data.find(b"\n", at)
        end = len(data) if end < 0 else end
        number += data.count(b"\n", counted, start)
        counted = start
        found.append((number, data[start:end]))
        at = lowered.find(needle, end)
    return found


def read_entries(data: bytes, *, file: str | None = None) -> VmxEntries:
    """The entries of a .vmx, read-only: the same answer as VmxDocument.parse(), faster.

    Linting thousands of files needs no line model for editing. A file whose charset is known
    and that decodes in it (or, in UTF-8, decodes but for some bytes, kept as the full parser
    keeps them) is read here: its regular lines in one pass, and any odd line by the full
    parser's own line parser. Any other file goes through VmxDocument.parse().
    """
    fast = _read_regular(data, file)
    if fast is not None:
        return fast
    doc = VmxDocument.parse(data, file=file)
    entries = list(doc.entries())
    return VmxEntries.of(entries, doc.warnings, doc.encoding)


def _read_regular(data: bytes, file: str | None) -> VmxEntries | None:
    _check_size(len(data), file)
    _check_no_nul(data, file)
    body = data[len(_BOM):] if data.startswith(_BOM) else data
    # Read as UTF-8 first: the syntax is ASCII, so the entry that declares the charset, if
    # any, is found whatever the charset is (then the file is read again in it).
    found = _read_in(body, "utf-8")
    if found is None:
        return None
    declared_line = found.lines.get(".encoding")
    if declared_line is None:
        return found
    declared = found.entry_at(declared_line)
    if declared.raw_value.isascii():  # as _declared_charset reads it (Latin-1 agrees on ASCII)
        charset: str | None = unescape(declared.raw_value, "latin-1").strip(_WS)
    else:
        charset = _declared_charset([(line, b"") for _, line in lines_mentioning(body, b".encoding")])
    notes: list[ParseWarning] = []
    codec = _resolve_charset(charset, notes)
    if notes:
        return None
    if codec == "utf-8":
        return found
    if not body.isascii():
        return _read_in(body, codec)
    # Every charset advisor accepts reads ASCII as ASCII: only `|XX` escapes (bytes in the
    # charset) read differently.
    return found.in_codec(codec, b"|" in body)


def _read_in(body: bytes, codec: str) -> VmxEntries | None:
    undecodable: set[int] = set()
    try:
        text = body.decode(codec)
    except UnicodeDecodeError:
        if codec != "utf-8":  # a multibyte charset's broken character may run up to a newline
            return None
        text = body.decode(codec, "surrogateescape")
        undecodable = _undecodable_lines(text)
    # Decoding the whole file equals decoding line by line when no character swallowed a
    # newline byte (no ASCII-keeping codec does; checked rather than assumed, but for UTF-8,
    # where a newline byte is never part of a character and surrogateescape keeps each
    # undecodable byte as one surrogate).
    if codec != "utf-8" and body.count(b"\n") != text.count("\n"):
        return None
    warnings = [ParseWarning(number, _undecodable_warning(codec)) for number in sorted(undecodable)]
    plain = _plain_columns(text)
    if plain is not None:
        keys, raws, numbers, lows, quotes = plain
        return VmxEntries.of_raws(keys, raws, numbers, warnings, codec, "|" in text, quotes, lows)
    newlines = text.count("\n")
    rows = _REGULAR_LINE.findall(text)
    # One row per line (the text after the last newline counts as a line, as in split()), or
    # some line is odd.
    if len(rows) == newlines + 1:
        return VmxEntries.of_rows(rows, warnings, codec, "|" in text)
    rows = _ANY_LINE.findall(text)
    if len(rows) != newlines + 1:
        return None
    entries, warnings = _entries_line_by_line(rows, codec, undecodable)
    return VmxEntries.of(entries, warnings, codec)


_KEY_SHAPE = re.compile(_KEY_TEXT)  # _REGULAR's key
_KEY_PIECE = re.compile(r"\n(" + _KEY_TEXT + ") = ")  # a newline, a key and ` = `


def _low_key(key: str) -> str:
    """A key lower-cased, or "" when the text is no key _REGULAR_LINE would read."""
    return key.lower() if _KEY_SHAPE.fullmatch(key) else ""


def _piece_key(piece: str) -> str:
    """The key of a _KEY_PIECE, or "" for any other text."""
    match = _KEY_PIECE.fullmatch(piece)
    return match[1] if match else ""


# key as spelled -> _low_key, and newline + key + ` = ` -> _piece_key: a file's keys are looked up,
# one lookup each, and each key and its lower-cased form is one string (hashed once) shared by
# every file that spells the key alike.
_LOW = KeyMemo(_low_key, 8192)
_KEYS = KeyMemo(_piece_key, 8192)


def _plain_columns(text: str) -> _Columns | None:
    """(keys, values as written, line numbers, lower-cased keys, quotes as VmxEntries keeps them)
    of a text whose `key = "value"` lines are written exactly as VMware writes them (CRLF or LF),
    with comments and at most _MOST_OTHER_LINES other lines that _REGULAR_LINE reads (blank
    lines, bare values, comments not starting their line); None for any other text
    (_REGULAR_LINE reads it).

    Nearly every .vmx is written so, and its lines are then cut apart at their quotes by one
    split instead of a regex run over every character: with a newline put first, the pieces
    are a newline, a key and ` = ` (looked up), a value without a newline, and so on, and a
    newline or nothing at the end; other lines sit in the pieces before a key and at the end.
    Only a text that is exactly such lines is taken, and each of them then reads as
    _REGULAR_LINE reads it (a CR before LF is a blank it skips)."""
    if "\r" in text:
        text = text.replace("\r\n", "\n")
    found = _quoted_columns(text)
    if found is not None or "#" not in text:
        return found
    # Comments may hold quotes (a commented-out entry) or be many: read the text again without
    # the lines that start with `#` and the blank ones.
    lines = text.split("\n")
    if not lines[-1]:
        lines.pop()  # the empty text after the last newline
    keep = list(map(_NOT_ENTRY.get, map(_FIRST_CHARACTER, lines), repeat(True)))
    found = _quoted_columns("\n".join(compress(lines, keep)))
    if found is None:
        return None
    kept = list(compress(range(1, len(lines) + 1), keep))  # line -> its line in `text`
    keys, raws, numbers, lows, quotes = found
    return keys, raws, list(map(kept.__getitem__, map(add, numbers, repeat(-1)))), lows, quotes


_Columns = tuple[list[str], list[str], list[int], list[str], list[str] | None]
_FIRST_CHARACTER = itemgetter(slice(0, 1))
_NOT_ENTRY = {"": False, "#": False}  # a line's first character -> whether it may be an entry (else True)


def _quoted_columns(text: str) -> _Columns | None:
    """_plain_columns of a text with LF line ends."""
    # Every line with quotes takes 7 characters or more (`k = ""` and its newline): more quotes
    # than that allows (binary junk) are no such lines, and are counted, not split into pieces
    # (16 MB of quotes would be 16 million of them).
    marks = text.count('"')
    if marks % 2 or marks > len(text) // 3 + 1:
        return None
    parts = ("\n" + text).split('"')
    raws = parts[1::2]
    if "\n" in "".join(raws):
        return None
    keys = list(map(_KEYS.__getitem__, parts[0:-1:2]))
    quotes: list[str] | None = None
    if all(keys) and parts[-1] in _LAST_PIECES:
        numbers = list(range(1, len(keys) + 1))
    else:
        found = _with_other_lines(parts, keys, raws)
        if found is None:
            return None
        numbers, quotes = found
    if not keys:
        return None
    return keys, raws, numbers, list(map(_LOW.__getitem__, keys)), quotes


_LAST_PIECES = ("\n", "")  # after the last value's quote: its newline, or the end of the file
_MOST_OTHER_LINES = 64  # beyond this many, the line regex reads the file (no Python step per line)
_REGULAR_ONE = re.compile(_REGULAR)  # one line, as _REGULAR_LINE reads it


def _with_other_lines(parts: list[str], keys: list[str], raws: list[str]) -> tuple[list[int], list[str] | None] | None:
    """For _plain_columns: the line numbers and quotes of a text cut at its quotes (`parts`)
    whose pieces before a key (those `keys` has no key for) or at the end hold other lines.
    `keys` and `raws` get the key of each such piece, and the bare values found among the other
    lines, in place. None if some piece or line is odd, or there are too many other lines."""
    pieces = list(compress(range(len(keys)), map(not_, keys)))  # the quoted entries with lines before
    before = [0] * len(keys)  # how many other lines come before each quoted entry's line
    found: list[tuple[int, int, str, str]] = []  # (where, line in the piece, key, value) of a bare value
    others = 0
    for at in pieces:
        piece = parts[2 * at]
        cut = piece.rfind("\n")
        key = _KEYS[piece[cut:]]
        if not key or cut <= 0 or not piece.startswith("\n"):
            return None
        keys[at] = key
        lines = piece[1:cut].split("\n")
        before[at] = len(lines)
        others += len(lines)
        if others > _MOST_OTHER_LINES or not _bare_values(lines, at, found):
            return None
    tail = parts[-1]
    if tail:
        if not tail.startswith("\n"):
            return None
        lines = tail[1:].split("\n")
        if not lines[-1]:
            lines.pop()  # the empty text after the last newline
        if others + len(lines) > _MOST_OTHER_LINES or not _bare_values(lines, len(keys), found):
            return None
    numbers = list(accumulate(map(add, before, repeat(1))))
    if not found:
        return numbers, None
    quotes = ['"'] * len(keys)
    for at, offset, key, raw in reversed(found):  # from the end: each goes before quoted entry `at`
        number = (numbers[at - 1] if at else 0) + 1 + offset
        keys.insert(at, key)
        raws.insert(at, raw)
        numbers.insert(at, number)
        quotes.insert(at, "")
    return numbers, quotes


def _bare_values(lines: list[str], at: int, found: list[tuple[int, int, str, str]]) -> bool:
    """Add the bare values of other lines (that come before quoted entry `at`) to `found`;
    False if some line is not one _REGULAR_LINE reads."""
    for offset, line in enumerate(lines):
        match = _REGULAR_ONE.fullmatch(line)
        if match is None:
            return False
        if match[1]:
            found.append((at, offset, match[1], match[3]))
    return True


def _entries_line_by_line(rows: list[tuple[str, str, str, str]], codec: str,
                          undecodable: set[int]) -> tuple[list[VmxEntry], list[ParseWarning]]:
    """The entries and warnings of a file with odd lines (_ANY_LINE's rows): each odd line
    read by the full parser's _parse_text, with the warnings it gives, in line order."""
    entries: list[VmxEntry] = []
    warnings: list[ParseWarning] = []
    last = len(rows)
    for number, (key, quote, value, odd) in enumerate(rows, 1):
        if number in undecodable:
            warnings.append(ParseWarning(number, _undecodable_warning(codec)))
        if odd:
            # The full parser splits off a CR before each LF (not at the end of the file).
            line, warning = _parse_text(odd[:-1] if number < last and odd.endswith("\r") else odd)
            if warning:
                warnings.append(ParseWarning(number, warning))
            if line.kind == "entry":
                entries.append(VmxEntry(line.key, unescape(line.raw_value, codec), line.raw_value, number,
                                        line.quoted))
        elif key:
            entries.append(VmxEntry(key, unescape(value, codec), value, number, bool(quote)))
    return entries, warnings


def _undecodable_lines(text: str) -> set[int]:
    """1-based lines holding bytes the charset could not decode (as surrogates)."""
    numbers: set[int] = set()
    number, counted = 1, 0
    for match in _UNDECODABLE.finditer(text):
        number += text.count("\n", counted, match.start())
        counted = match.start()
        numbers.add(number)
    return numbers


def _undecodable_warning(codec: str) -> str:
    return f"bytes that are not valid {codec}; kept as they are"


# --------------------------------------------------------------------------- helpers for callers


def render_fragment(settings: list[tuple[str, str, str | None]]) -> str:
    """Text to paste into a .vmx: for each (key, value, comment), the comment as ``#`` lines,
    then ``key = "value"`` with canonical key spelling and escaping."""
    out: list[str] = []
    for key, value, comment in settings:
        _check_key(key)
        _check_value(key, value)
        if comment:
            out.extend(_comment_lines(comment))
        out.append(f'{canonical_key(key)} = "{escape(value)}"')
    return "".join(f"{line}\n" for line in out)


def _comment_lines(comment: str) -> list[str]:
    """``#`` lines for a comment; control characters are shown as ``|XX`` so the fragment stays
    plain text (a NUL would make it unreadable as a .vmx, a CR would split the line)."""
    parts = comment.replace("\r\n", "\n").split("\n")
    return [f"# {_CONTROL_RE.sub(_hex_escape, part)}".rstrip(_WS) for part in parts]


def apply(doc: VmxDocument, desired: Mapping[str, str | None]) -> list[Change]:
    """Make ``doc`` say what ``desired`` says, touching only keys whose value differs.

    A value of None removes the key. Keys that differ only in case are one key, so the last of
    them wins, as in the file. Applying the same mapping twice changes nothing the second
    time, which is what makes ``advisor vmx --write`` safe to re-run.
    """
    merged: dict[str, tuple[str, str | None]] = {}
    for key, new in desired.items():
        merged[key.lower()] = (key, new)
    before = doc.lines_of()
    pending: list[tuple[str, str | None, str | None]] = []
    for key, new in merged.values():
        old = doc.get(key)
        if new is None:
            if old is not None:
                pending.append((_spelling(doc, key), old, None))
                doc.remove(key)
        elif not values_equal(old, new):
            doc.set(key, new)
            pending.append((_spelling(doc, key), old, new))
    after = doc.lines_of()
    return [
        Change(key, old, new, (before if new is None else after)[key.lower()])
        for key, old, new in pending
    ]


def _spelling(doc: VmxDocument, key: str) -> str:
    """How the file spells ``key`` at its effective occurrence (canonical if absent)."""
    found = doc.entry(key)
    return found.key if found else canonical_key(key)


def unified_diff(path: str | Path, before: bytes, after: bytes, encoding: str = "utf-8") -> str:
    """A unified diff of two versions of a file, for showing an edit before it is written.

    Lines are split on LF only (as the parser does) and a missing final newline is shown the
    way git shows it, so a diff never hides the one-byte change that adds it.
    """
    import difflib  # only `fix --diff` shows one; a run that only reads .vmx files never needs it

    codec = _charset_codec(encoding) or "utf-8"
    name = str(path)
    diff = difflib.unified_diff(
        _display_lines(before, codec), _display_lines(after, codec), fromfile=f"a/{name}", tofile=f"b/{name}"
    )
    return "".join(diff)


def _display_lines(data: bytes, codec: str) -> list[str]:
    text = data.decode(codec, "replace")
    lines = [piece + "\n" for piece in text.split("\n")]
    last = lines.pop()[:-1]
    if last:
        lines.append(last + "\n\\ No newline at end of file\n")
    return lines


def is_locked(path: str | Path) -> bool:
    """Whether a VM looks powered on (or otherwise held) by the host, so its .vmx must not be
    rewritten: ESXi and Workstation keep a ``<name>.vmx.lck`` folder beside it, other ``*.lck``
    folders guard its disks, and NFS datastores show ``.lck-<id>`` files."""
    path = Path(path)
    if path.with_name(path.name + ".lck").exists():
        return True
    try:
        children = list(path.parent.iterdir())
    except OSError:
        return False
    return any(_is_lock_name(child) for child in children)


def _is_lock_name(child: Path) -> bool:
    if child.name.startswith(".lck-"):
        return True
    return child.name.endswith(".lck") and child.is_dir()
