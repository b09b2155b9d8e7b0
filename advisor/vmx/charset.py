"""The charset a .vmx declares (`.encoding`), as the Python codec that reads it.

VMware writes ICU converter names; most are Python aliases too, and the ICU-only forms such as
``windows-949-2000`` are read as their code page (``cp949``). Only codecs that read and write
every ASCII byte as itself are accepted: the file's syntax (keys, ``=``, quotes, ``|XX``
escapes, newlines) is ASCII, and both the reader and the editor work on it in raw bytes.
"""

from __future__ import annotations

import codecs
import re
import warnings
from functools import lru_cache

DEFAULT_CHARSET = "UTF-8"  # what VMware reads a file without `.encoding` as

_ICU_WINDOWS_RE = re.compile(r"(?:windows|ibm|ms|cp)[-_]?(\d+)(?:[-_].*)?\Z", re.I)
# What any charset we accept must encode exactly as ASCII, so that line splitting on b"\n"
# and the key/quote/escape syntax work on the raw bytes the same way they do on text.
_ASCII_PROBE = bytes(range(1, 128))
_ESCAPE_PROBE = b"\\n\\x41\\u0041+A-~{~}"


@lru_cache(maxsize=64)
def charset_codec(name: str) -> str | None:
    """The Python codec for a .vmx charset name, or None when Python cannot read it safely.

    Codecs that do not keep ASCII as ASCII (UTF-16, UTF-7, ISO-2022) are refused.
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


def resolve_charset(charset: str | None) -> tuple[str, str | None]:
    """The codec to decode with, and a warning when the declared name is unusable: it then
    degrades to UTF-8, which is safe because unchanged lines are written back from their bytes."""
    if charset is None:
        return "utf-8", None
    codec = charset_codec(charset)
    if codec is None:
        return "utf-8", f"unknown or unsupported charset {charset!r}; reading as UTF-8"
    return codec, None


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
