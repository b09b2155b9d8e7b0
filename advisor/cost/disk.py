"""An on-disk cache for work that depends only on files advisor ships (the parsed rule catalog,
the limits tables of advisor.resources).

Every run used to parse the same eleven rule files: about a tenth of `advisor check`'s start-up.
The cache keeps the parsed result, keyed by the bytes of the source files, by every source file
of the advisor package (size and modification time: a checkout that changes the YAML loader
changes the key although `__version__` stays), by the PyYAML and CEL libraries installed and by
the interpreter, so an entry for other sources or another advisor is never read; it is found
again by key, not by date. Each entry carries a checksum of its value: a damaged entry, even
one that is still valid JSON (a flipped bit in a compiled program, a missing key, a NaN), is
rebuilt, and so is one whose value the caller cannot use (`use` raising). The cache is best
effort: no usable folder or a damaged entry cost only the time the cache would have saved,
never an error.

Trust: entries are JSON, which describes data and cannot run code, so even a planted entry can at
worst be a wrong catalog. On top of that an entry is read only from a folder that belongs to the
user running advisor and that no one else can write (mode without group/other write), and only if
the entry itself is a regular file of that user; otherwise the cache is not used at all.

Location: $ADVISOR_CACHE_DIR, else the platform's user cache folder (platformdirs:
$XDG_CACHE_HOME/advisor or ~/.cache/advisor on Linux). ADVISOR_NO_CACHE=1 turns it off. Each
installation of advisor (by the path of its package) keeps its own entry, so two installs do not
evict each other's.
"""

from __future__ import annotations

import contextlib
import functools
import hashlib
import os
import stat
import sys
from collections.abc import Callable
from pathlib import Path
from typing import Any, TypeVar

from advisor.cost import off

T = TypeVar("T")

# Bump when the shape of an entry changes, so old entries are no longer read (the package's
# source files are part of the key too, so this is a second line of defence).
_FORMAT = 4  # 3: reference texts without seed file names (issue 34); 4: entries carry a checksum
# Bytes of an entry's checksum (blake2b; written in hex, see _sealed).
_SUM_SIZE = 16
# Libraries whose version changes what an entry holds: the YAML parser (the trees parsed from the
# rule files) and the CEL runtime (the serialised programs). Found on sys.path as an import would
# find them, by a file that changes with every release, without importing them (a cache hit
# needs no PyYAML).
_LIBRARIES = (("yaml", "__init__.py"), ("cel_expr_python", "cel.pyi"))


def cache_dir() -> Path | None:
    """Where entries live, or None when caching is off or no folder can be named."""
    if os.environ.get("ADVISOR_NO_CACHE", "").strip() not in ("", "0") or off("disk"):
        return None
    if os.environ.get("ADVISOR_CACHE_DIR"):
        return Path(os.environ["ADVISOR_CACHE_DIR"])
    try:
        import platformdirs

        return Path(platformdirs.user_cache_dir("advisor", appauthor=False))
    except Exception:  # no home directory to name
        return None


def cached(name: str, sources: list[tuple[str, bytes]], build: Callable[[], Any], plain: bool = False,
           use: Callable[[Any], T] | None = None) -> T:
    """use(build()), or use() of the value build returned last time for exactly these sources.

    `sources` are (name, bytes) of every file the value is derived from; build must depend on
    nothing else (apart from advisor's own code and the libraries in _LIBRARIES, which are part
    of every key). The value must be made of JSON types and the YAML loader's LocDict/LocList;
    anything else is not cached. `plain`: the value is JSON as it is (string keys, lists, no
    LocDict), stored and read without the wrapping that keeps those apart, so reading it is the
    JSON decoder's work only. `use` (default: the value itself) turns the value into what the
    caller needs; when it fails on a value read from an entry, the entry is rebuilt.
    """
    use_ = use if use is not None else (lambda value: value)
    folder = cache_dir()
    if folder is None:
        return use_(build())
    prefix = f"{name}-{_installation()}-"
    entry = folder / f"{prefix}{_key(sources)}.json"
    if _private(folder):
        with contextlib.suppress(Exception):  # missing, foreign or damaged: build it instead
            data = _checked(_read_own(entry))  # written by _store from build()'s result
            return use_(_plain_json(data) if plain else decode(data))
    value = build()
    _store(folder, prefix, entry, value, plain)
    return use_(value)


def _checksum(data: bytes) -> bytes:
    return hashlib.blake2b(data, digest_size=_SUM_SIZE).hexdigest().encode("ascii")


def _sealed(data: bytes) -> bytes:
    """An entry: the JSON array ["<checksum of the value's JSON>", <the value's JSON>], so the
    file stays JSON (data, never code) and the value's bytes are found without parsing."""
    return b'["' + _checksum(data) + b'",' + data + b"]"


def _checked(entry: bytes) -> bytes:
    """The value's JSON of an entry whose checksum matches; ValueError for any other bytes."""
    start = 2 + 2 * _SUM_SIZE
    data = entry[start + 2:-1]
    if entry[:2] != b'["' or entry[start:start + 2] != b'",' or entry[-1:] != b"]" \
            or entry[2:start] != _checksum(data):
        raise ValueError("damaged cache entry")
    return data


def _plain_json(data: bytes) -> Any:
    """A plain entry's value. pydantic-core's JSON parser reads it: loaded already (the spec
    models are pydantic), where importing the json module would be a millisecond of every
    start-up; entries are written by the json module, and what that parser refuses (a lone
    surrogate) is rebuilt like a damaged entry."""
    from pydantic_core import from_json

    return from_json(data)


def _private(folder: Path) -> bool:
    """The folder is ours and no one else can add or replace files in it."""
    try:
        info = folder.lstat()
    except OSError:
        return False
    if not stat.S_ISDIR(info.st_mode) or info.st_mode & 0o022:
        return False
    return not hasattr(os, "geteuid") or info.st_uid == os.geteuid()


def _read_own(entry: Path) -> bytes:
    fd = os.open(entry, os.O_RDONLY | getattr(os, "O_NOFOLLOW", 0) | getattr(os, "O_NONBLOCK", 0))
    with os.fdopen(fd, "rb") as handle:
        info = os.fstat(handle.fileno())
        if not stat.S_ISREG(info.st_mode) or (hasattr(os, "geteuid") and info.st_uid != os.geteuid()):
            raise PermissionError("not our entry")
        return handle.read()


def _installation() -> str:
    here = str(Path(__file__).resolve().parent)
    return hashlib.blake2b(here.encode("utf-8", "surrogateescape"), digest_size=4).hexdigest()


@functools.cache
def _code() -> bytes:
    """What identifies the code that builds an entry: every source file of the advisor package
    and the libraries of _LIBRARIES, by path, size and modification time (stat, not contents:
    reading the package's ~150 files on every start-up would cost more than the cache saves)."""
    return code_identity(Path(__file__).resolve().parents[1])


def code_identity(package: Path) -> bytes:
    """_code for the package folder `package`."""
    parts: list[str] = []
    folders = [str(package)]
    while folders:
        with os.scandir(folders.pop()) as entries:
            for item in entries:
                if item.is_dir(follow_symlinks=False):
                    if item.name != "__pycache__":
                        folders.append(item.path)
                elif item.name.endswith(".py"):
                    info = item.stat()
                    parts.append(f"{item.path}|{info.st_size}|{info.st_mtime_ns}")
    for library, marker in _LIBRARIES:
        parts.append(f"{library}:{_library(library, marker)}")
    return "\n".join(sorted(parts)).encode("utf-8", "surrogateescape")


def _library(package: str, marker: str) -> str:
    """The first `package/marker` on sys.path, by path, size and time ("" when not found)."""
    for folder in sys.path:
        path = os.path.join(folder or ".", package, marker)
        with contextlib.suppress(OSError):
            info = os.stat(path)
            return f"{path}|{info.st_size}|{info.st_mtime_ns}"
    return ""


def _key(sources: list[tuple[str, bytes]]) -> str:
    from advisor import __version__

    digest = hashlib.blake2b(digest_size=16)
    digest.update(f"{_FORMAT}|{__version__}|{sys.version}|{len(sources)}|".encode())
    digest.update(_code())
    for source, data in sources:
        digest.update(f"|{source}|{len(data)}|".encode("utf-8", "surrogateescape"))
        digest.update(data)
    return digest.hexdigest()


def _store(folder: Path, prefix: str, entry: Path, value: object, plain: bool) -> None:
    """Write the entry atomically and drop the entries it replaces (this installation's other
    keys of the same name)."""
    import json

    from advisor.atomic import write_atomic

    try:
        data = json.dumps(value if plain else encode(value), separators=(",", ":"), allow_nan=False).encode()
        data = _sealed(data)
        folder.mkdir(mode=0o700, parents=True, exist_ok=True)
        if not _private(folder):
            return
        write_atomic(entry, data)
    except Exception:  # not JSON data, read-only or full: the cache is an optimisation only
        return
    for old in folder.glob(f"{prefix}*.json"):
        if old != entry:
            with contextlib.suppress(OSError):
                old.unlink()


# JSON cannot tell a LocDict from a dict, keep non-string keys, or carry line numbers: values
# are wrapped as {"d": [[key, value], ...], "l": line, "k": [[key, line], ...]} (LocDict),
# {"L": [...], "l": line, "k": [...]} (LocList), {"m": [[key, value], ...]} (dict), {"s": [...]}
# (list) and {"t": [...]} (tuple); scalars stay as they are.
def encode(value: Any) -> Any:
    from advisor.load.yamlfile import LocDict, LocList

    if value is None or isinstance(value, (str, bool, int, float)):
        return value
    if isinstance(value, LocDict):
        return {"d": [[encode(k), encode(v)] for k, v in value.items()], "l": value.line,
                "k": [[encode(k), line] for k, line in value.lines.items()]}
    if isinstance(value, LocList):
        return {"L": [encode(v) for v in value], "l": value.line, "k": list(value.lines)}
    if isinstance(value, dict):
        return {"m": [[encode(k), encode(v)] for k, v in value.items()]}
    if isinstance(value, list):
        return {"s": [encode(v) for v in value]}
    if isinstance(value, tuple):
        return {"t": [encode(v) for v in value]}
    raise TypeError(f"{type(value).__name__} is not cached")


def _decode_value(value: Any) -> Any:
    from advisor.load.yamlfile import LocDict, LocList

    if not isinstance(value, dict):
        return value
    if "d" in value:
        out = LocDict((_decode_value(k), _decode_value(v)) for k, v in value["d"])
        out.line, out.lines = value["l"], {_decode_value(k): line for k, line in value["k"]}
        return out
    if "L" in value:
        items = LocList(_decode_value(v) for v in value["L"])
        items.line, items.lines = value["l"], list(value["k"])
        return items
    if "m" in value:
        return {_decode_value(k): _decode_value(v) for k, v in value["m"]}
    if "s" in value:
        return [_decode_value(v) for v in value["s"]]
    return tuple(_decode_value(v) for v in value["t"])


def decode(data: bytes) -> Any:
    import json

    return _decode_value(json.loads(data))
