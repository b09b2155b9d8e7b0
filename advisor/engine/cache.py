"""An on-disk cache for work that depends only on files advisor ships (the parsed rule catalog).

Every run used to parse the same eleven rule files: about a tenth of `advisor check`'s start-up.
The cache keeps the parsed result, keyed by the bytes of the source files and the versions that
shape it, so an entry for other sources or another advisor is never read; it is found again by
key, not by date. The cache is best effort: no writable folder, an entry written by another
Python, or a damaged file cost only the time the cache would have saved, never an error.

Location: $ADVISOR_CACHE_DIR, else $XDG_CACHE_HOME/advisor, else ~/.cache/advisor.
ADVISOR_NO_CACHE=1 turns it off. Entries are pickles, which is as safe as the .pyc files
beside the code: only the user (the folder is created private) can write them.
"""

from __future__ import annotations

import contextlib
import hashlib
import os
import pickle
import sys
from collections.abc import Callable
from pathlib import Path
from typing import TypeVar

T = TypeVar("T")

# Bump when the shape of a cached value changes without the advisor version changing (a
# checkout between releases), so old entries are no longer read.
_FORMAT = 1


def cache_dir() -> Path | None:
    """Where entries live, or None when caching is off or no folder can be named."""
    if os.environ.get("ADVISOR_NO_CACHE", "").strip() not in ("", "0"):
        return None
    if os.environ.get("ADVISOR_CACHE_DIR"):
        return Path(os.environ["ADVISOR_CACHE_DIR"])
    if os.environ.get("XDG_CACHE_HOME"):
        return Path(os.environ["XDG_CACHE_HOME"]) / "advisor"
    try:
        return Path.home() / ".cache" / "advisor"
    except RuntimeError:  # no home directory to name
        return None


def cached(name: str, sources: list[tuple[str, bytes]], build: Callable[[], T]) -> T:
    """build(), or the value it returned last time for exactly these sources.

    `sources` are (name, bytes) of every file the value is derived from; build must depend on
    nothing else (apart from advisor's own code, covered by its version).
    """
    folder = cache_dir()
    if folder is None:
        return build()
    entry = folder / f"{name}-{_key(sources)}.pickle"
    # Missing, unreadable or damaged: build it instead.
    with contextlib.suppress(Exception), open(entry, "rb") as handle:
        value: T = pickle.load(handle)  # written by _store from build()'s result
        return value
    value = build()
    _store(folder, name, entry, value)
    return value


def _key(sources: list[tuple[str, bytes]]) -> str:
    from advisor import __version__

    digest = hashlib.blake2b(digest_size=16)
    digest.update(f"{_FORMAT}|{__version__}|{sys.version}|{len(sources)}".encode())
    for source, data in sources:
        digest.update(f"|{source}|{len(data)}|".encode("utf-8", "surrogateescape"))
        digest.update(data)
    return digest.hexdigest()


def _store(folder: Path, name: str, entry: Path, value: object) -> None:
    """Write the entry atomically and drop the entries it replaces (other keys of `name`)."""
    from advisor.atomic import write_atomic

    try:
        data = pickle.dumps(value, protocol=pickle.HIGHEST_PROTOCOL)
        folder.mkdir(mode=0o700, parents=True, exist_ok=True)
        write_atomic(entry, data)
    except Exception:  # unpicklable, read-only or full: the cache is an optimisation only
        return
    for old in folder.glob(f"{name}-*.pickle"):
        if old != entry:
            with contextlib.suppress(OSError):
                old.unlink()
