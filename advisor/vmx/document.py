"""The .vmx editor: a parsed file that can be queried, edited in place and written back byte for byte.

advisor edits configuration files that people (and ESXi) care about, so the first promise is
that nothing changes unless advisor changed it on purpose. Every line keeps its original bytes
(line ending, spacing, quoting, comments, even lines we cannot parse); only a line whose value
is edited is re-rendered, and then only its value part changes.

The file is read by advisor.vmx.reader, the one .vmx reader (its docstring lists the format's
traps and how they are read); this module adds the bytes of every line and the edits.
"""

from __future__ import annotations

import re
from collections.abc import Iterator, Mapping
from dataclasses import dataclass
from pathlib import Path

from advisor.errors import InputError
from advisor.vmx.charset import DEFAULT_CHARSET, charset_codec
from advisor.vmx.entries import ParseWarning, VmxEntry
from advisor.vmx.reader import BOM, MAX_FILE_BYTES, WS, decode_line, parse_line, read_entries, split_lines

# Key spelling and value escapes live apart (advisor check needs them without the codec); the
# codec's users keep importing them from here.
from advisor.vmx.spelling import _hex_escape
from advisor.vmx.spelling import canonical_key as canonical_key
from advisor.vmx.spelling import escape as escape
from advisor.vmx.spelling import unescape as unescape
from advisor.vmx.values import values_equal

_BARE_VALUE_RE = re.compile(r"[^ \t\r\f\v\"#]+\Z")
_CONTROL_RE = re.compile(r"[\x00-\x08\x0a-\x1f\x7f]")


@dataclass(frozen=True)
class Change:
    """One edit made by apply(). ``new`` is None for a removal. ``line`` is the line in the
    edited file for sets and in the original file for removals (as a diff shows them)."""

    key: str
    old: str | None
    new: str | None
    line: int



@dataclass(slots=True)
class _Line:
    """One physical line. ``raw`` holds its exact bytes (without the terminator ``eol``). An
    entry's key, value as written and quoting come from the reader; ``head`` + raw_value +
    ``tail`` is its decoded text, cut when the line is first edited (advisor.vmx.reader.parse_line)
    so that a value edit can leave everything around the value untouched."""

    raw: bytes
    eol: bytes
    kind: str = "other"  # "entry", "other" (a comment or a blank line) or "malformed"
    key: str = ""
    raw_value: str = ""
    quoted: bool = False
    head: str = ""  # "" until the line is cut (an entry's head always holds its key and `=`)
    tail: str = ""
    closed: bool = True


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
        view = read_entries(data, file=file)
        bom = BOM if data.startswith(BOM) else b""
        lines = [_Line(raw, eol) for raw, eol in split_lines(data[len(bom):])]
        for entry in view.entries:
            line = lines[entry.line - 1]
            line.kind, line.key, line.raw_value, line.quoted = "entry", entry.key, entry.raw_value, entry.quoted
        for number in view.malformed:
            lines[number - 1].kind = "malformed"
        return cls(lines, bom=bom, charset=view.charset, encoding=view.encoding, file=file, warnings=view.warnings)

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
        if not line.head:  # first edit of this line: cut it around its value
            parts, _ = parse_line(decode_line(line.raw, self.encoding)[0])
            line.head, line.tail, line.closed = parts.head, parts.tail, parts.closed
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
        if charset_codec(charset) != self.encoding:
            raise InputError(
                f"changing the charset from {self.charset or DEFAULT_CHARSET} to {charset} would "
                "re-encode the whole file; advisor does not transcode .vmx files",
                file=self.file,
                field=".encoding",
            )


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
    return [f"# {_CONTROL_RE.sub(_hex_escape, part)}".rstrip(WS) for part in parts]


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

    codec = charset_codec(encoding) or "utf-8"
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
