"""The one .vmx reader: a file's entries, repeated keys, odd lines and charset, read-only.

Real-world parsers get this format wrong in a handful of known ways (landscape §2 item 13):
dropping every other line, matching keys by prefix, rejecting values that contain ``=``,
treating ``#`` inside quotes as a comment, ignoring ``|XX`` escapes and ``.encoding``, comparing
keys case-sensitively, and silently losing duplicates. This reader avoids each of them:

* a line is an entry when it looks like ``key = value``; the value may be quoted or bare;
  ``#`` starts a comment only as the first non-blank character of a line;
* keys are compared case-insensitively and exactly; the last duplicate wins, and duplicates
  are reported because VMware's own behaviour with them is not documented;
* values are unescaped from VMware's ``|XX`` hex scheme (``|22`` is ``"``, ``|0A`` a newline);
* the ``.encoding`` entry chooses the charset; bytes the charset cannot decode survive
  through ``surrogateescape`` and are reported.

One grammar: `_REGULAR` reads every line VMware and the usual tools write (an entry, a comment,
a blank line); `parse_line` reads one line by it and gives any other line (a stray quote, text
after the closing quote, no ``=``) its meaning and its warning. A file is read in one pass of the
same regex over its whole text, each odd line through `parse_line`; only a file that cannot be
decoded whole (a broken multibyte character in a declared charset) is read line by line. The
editor (advisor.vmx.document) is built on this reader, so there is no second parser to keep equal.
"""

from __future__ import annotations

import re
from typing import NamedTuple

from advisor.errors import InputError
from advisor.vmx.charset import resolve_charset
from advisor.vmx.entries import ParseWarning, VmxEntries, VmxEntry
from advisor.vmx.spelling import unescape

MAX_FILE_BYTES = 16 * 1024 * 1024
BOM = b"\xef\xbb\xbf"
# Whitespace inside a line. Deliberately not Python's \s: that would also swallow \x1c-\x1f,
# \x85 and U+2028, which can legitimately sit inside values (and inside multibyte text).
WS = " \t\r\f\v"


# --------------------------------------------------------------------------- the grammar

# Every line a file VMware writes holds, one match per line: an entry `key = "value"` or with a
# bare value (`rtc.diffFromUTC = 0`), a comment, or a blank line. Stray quotes, text after a
# closing quote and other odd lines match nothing (parse_line reads them). A bare value may not
# start with a blank or a quote, so backtracking cannot turn a broken quoted value into a bare one.
# The runs are possessive (`*+`): what follows each can never match a character it took (a
# key or blank run is followed by `=`, a blank or the line's end; a quoted value by its quote;
# a comment by the line's end), so giving characters back never finds another match, and the
# engine stops keeping the states to try it (this regex reads every line `advisor lint` sees).
_WS_CLASS = r"[ \t\r\f\v]*+"
_KEY_TEXT = r'[^ \t\r\f\v\n="#][^ \t\r\f\v\n="]*+'
_REGULAR = (_WS_CLASS + r"(?:(" + _KEY_TEXT + ")" + _WS_CLASS + "=" + _WS_CLASS
            + r'(?:(")|(?![ \t\r\f\v"]))((?(2)[^"\n]*+|[^\n]*?))(?(2)")|#[^\n]*+)?' + _WS_CLASS + r"$")
# Groups: the key, the opening quote (empty for a bare value) and the value, quoted or bare.
_REGULAR_LINE = re.compile(r"^" + _REGULAR, re.M)
_REGULAR_ONE = re.compile(_REGULAR)
# The same, and any other line whole (group 4): one row per line of a text.
_ANY_LINE = re.compile(r"^(?:" + _REGULAR + r"|([^\n]*)$)", re.M)
# An odd line that still has a key and `=`: its value is read to a closing quote or the end.
_ENTRY_RE = re.compile(
    r"(?P<lead>[ \t\r\f\v]*)"
    r"(?P<key>[^ \t\r\f\v=\"#][^ \t\r\f\v=\"]*)"
    r"(?P<sep>[ \t\r\f\v]*=[ \t\r\f\v]*)"
    r"(?P<rest>.*)\Z",
    re.S,
)
# What surrogateescape makes of bytes UTF-8 cannot decode (strict UTF-8 never yields them).
_UNDECODABLE = re.compile("[\udc80-\udcff]")


class LineParts(NamedTuple):
    """One line's text cut for editing: ``head + raw_value + tail`` is the line; ``kind`` is
    "entry", "other" (a comment or a blank line) or "malformed"; ``closed``: whether a quoted
    value has its closing quote."""

    kind: str
    key: str = ""
    head: str = ""
    raw_value: str = ""
    tail: str = ""
    quoted: bool = False
    closed: bool = True


_OTHER = LineParts("other")


def parse_line(text: str) -> tuple[LineParts, str | None]:
    """One decoded line (without its newline), and the warning it gives, if any."""
    match = _REGULAR_ONE.fullmatch(text)
    if match is not None:
        if not match[1]:
            return _OTHER, None
        start, end = match.span(3)
        return LineParts("entry", match[1], text[:start], match[3], text[end:], bool(match[2])), None
    stripped = text.strip(WS)
    if not stripped or stripped.startswith("#"):
        return _OTHER, None
    found = _ENTRY_RE.match(text)
    if found is None:
        return LineParts("malformed"), "not a `key = \"value\"` line; kept verbatim"
    head, rest = found["lead"] + found["key"] + found["sep"], found["rest"]
    if not rest.startswith('"'):
        value = rest.rstrip(WS)
        return LineParts("entry", found["key"], head, value, rest[len(value):]), None
    end = rest.find('"', 1)
    if end < 0:
        return (LineParts("entry", found["key"], head + '"', rest[1:], "", True, False),
                "value has no closing quote; read to the end of the line")
    parts = LineParts("entry", found["key"], head + '"', rest[1:end], rest[end:], True)
    return parts, ("text after the closing quote is ignored" if rest[end + 1:].strip(WS) else None)


def split_lines(data: bytes) -> list[tuple[bytes, bytes]]:
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


def decode_line(raw: bytes, codec: str) -> tuple[str, bool]:
    """Decode one line; bytes the charset rejects become surrogates so nothing is lost."""
    try:
        return raw.decode(codec), True
    except UnicodeDecodeError:
        return raw.decode(codec, "surrogateescape"), False


def undecodable_warning(codec: str) -> str:
    return f"bytes that are not valid {codec}; kept as they are"


# --------------------------------------------------------------------------- reading


def read_entries(data: bytes, *, file: str | None = None) -> VmxEntries:
    """The entries of a .vmx. Only a file that is not text at all (NUL bytes) or is absurdly
    large raises InputError; every other oddity is kept and reported in ``warnings``."""
    _check_size(len(data), file)
    _check_no_nul(data, file)
    body = data[len(BOM):] if data.startswith(BOM) else data
    # Read as UTF-8 first: the syntax is ASCII, so the entry that declares the charset, if
    # any, is found whatever the charset is (then the file is read again in it).
    found = _read_whole(body, "utf-8") or _read_lines(body, "utf-8")
    charset = _declared(found, body)
    codec, unusable = resolve_charset(charset)
    if unusable:  # read as UTF-8, said before anything else
        found.warnings.insert(0, ParseWarning(None, unusable))
    elif codec != "utf-8":
        if body.isascii():
            # Every charset advisor accepts reads ASCII as ASCII: only `|XX` escapes (bytes in
            # the charset) read differently.
            found = found.in_codec(codec, b"|" in body)
        else:
            found = _read_whole(body, codec) or _read_lines(body, codec)
    found.charset = charset
    return found


def _declared(found: VmxEntries, body: bytes) -> str | None:
    """The ``.encoding`` value (the last one, as for any key), read before the file is decoded
    in it: Latin-1 maps bytes one-to-one, so the ASCII syntax reads the same in any accepted charset."""
    line = found.lines.get(".encoding")
    if line is None:
        return None
    declared = found.entry_at(line).raw_value
    if not declared.isascii():  # UTF-8 decoded it: read its bytes again, as Latin-1
        raw = dict(lines_mentioning(body, b".encoding"))[line]
        declared = parse_line(raw.decode("latin-1"))[0].raw_value
    return unescape(declared, "latin-1").strip(WS)


def _read_whole(body: bytes, codec: str) -> VmxEntries | None:
    """The file decoded whole and read in one pass; None when it cannot be (a charset's broken
    multibyte character may swallow a newline byte)."""
    undecodable: set[int] = set()
    try:
        text = body.decode(codec)
    except UnicodeDecodeError:
        if codec != "utf-8":
            return None
        text = body.decode(codec, "surrogateescape")
        undecodable = _undecodable_lines(text)
    # Decoding the whole file equals decoding line by line when no character swallowed a
    # newline byte (no ASCII-keeping codec does; checked rather than assumed, but for UTF-8,
    # where a newline byte is never part of a character and surrogateescape keeps each
    # undecodable byte as one surrogate).
    newlines = text.count("\n")
    if codec != "utf-8" and body.count(b"\n") != newlines:
        return None
    warnings = [ParseWarning(number, undecodable_warning(codec)) for number in sorted(undecodable)]
    rows = _REGULAR_LINE.findall(text)
    # One row per line (the text after the last newline counts as a line, as in split()), or
    # some line is odd.
    if len(rows) == newlines + 1:
        return VmxEntries.of_rows(rows, warnings, codec, "|" in text)
    entries: list[VmxEntry] = []
    malformed: list[int] = []
    warnings, last = [], newlines + 1
    for number, (key, quote, value, odd) in enumerate(_ANY_LINE.findall(text), 1):
        if number in undecodable:
            warnings.append(ParseWarning(number, undecodable_warning(codec)))
        if odd:
            # split_lines splits off a CR before each LF (not at the end of the file).
            _add_line(odd[:-1] if number < last and odd.endswith("\r") else odd, number, codec, entries, warnings,
                      malformed)
        elif key:
            entries.append(VmxEntry(key, unescape(value, codec), value, number, bool(quote)))
    return VmxEntries.of(entries, warnings, codec, malformed)


def _read_lines(body: bytes, codec: str) -> VmxEntries:
    """The file read line by line, each decoded alone (bytes the charset rejects kept as
    surrogates, and said)."""
    entries: list[VmxEntry] = []
    warnings: list[ParseWarning] = []
    malformed: list[int] = []
    for number, (raw, _eol) in enumerate(split_lines(body), 1):
        text, clean = decode_line(raw, codec)
        if not clean:
            warnings.append(ParseWarning(number, undecodable_warning(codec)))
        _add_line(text, number, codec, entries, warnings, malformed)
    return VmxEntries.of(entries, warnings, codec, malformed)


def _add_line(text: str, number: int, codec: str, entries: list[VmxEntry], warnings: list[ParseWarning],
              malformed: list[int]) -> None:
    """One line read by parse_line into the columns of _read_whole and _read_lines."""
    parts, warning = parse_line(text)
    if warning:
        warnings.append(ParseWarning(number, warning))
    if parts.kind == "entry":
        entries.append(VmxEntry(parts.key, unescape(parts.raw_value, codec), parts.raw_value, number, parts.quoted))
    elif parts.kind == "malformed":
        malformed.append(number)


def _undecodable_lines(text: str) -> set[int]:
    """1-based lines holding bytes the charset could not decode (as surrogates)."""
    numbers: set[int] = set()
    number, counted = 1, 0
    for match in _UNDECODABLE.finditer(text):
        number += text.count("\n", counted, match.start())
        counted = match.start()
        numbers.add(number)
    return numbers


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
