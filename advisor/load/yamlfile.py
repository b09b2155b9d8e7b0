"""Safe YAML loading that remembers where every key and item came from, within fixed limits.

Every value advisor reports on must point at a line, so mappings and sequences are loaded as
LocDict / LocList (advisor.load.yamlloc) carrying the line of each key or item. Only safe loaders are used; aliases,
depth and size are bounded so a hostile file is refused quickly instead of exhausting memory.
"""

from __future__ import annotations

import os
import re
import stat
import sys
from pathlib import Path
from typing import Any, BinaryIO

from advisor.collector import gc_paused
from advisor.errors import InputError
from advisor.load.yamlloc import MAX_DEPTH, MAX_SEQUENCE_ITEMS, LocDict, LocList, line_of, too_many_items
from advisor.overwrites import note_read

MAX_FILE_BYTES = 16 * 1024 * 1024
MAX_ALIAS_EXPANSION = 10_000


def long_number_line(text: str) -> int | None:
    """The line of the first integer too long for int() (Python refuses over 4300 digits)."""
    limit = sys.get_int_max_str_digits()
    match = re.search(rf"\d{{{limit + 1},}}", text) if limit else None
    return text.count("\n", 0, match.start()) + 1 if match else None


def _check_shape(root: Any, file: str) -> None:
    """Refuse alias bombs and absurd nesting without expanding them.

    The loader builds each anchored node once and shares it, so the tree in memory stays
    small; it is walking it (validation, output) that would explode. So compute, memoised per
    container, how many nodes a full walk would visit, and refuse when sharing multiplies it.
    (Nesting is also checked while the tree is built, but a shared node is built only once,
    at its first place, so only this walk sees the depth that aliases add.)
    """
    expanded: dict[int, int] = {}
    unique = 0
    stack: list[tuple[Any, int, bool]] = [(root, 1, False)]
    while stack:
        obj, depth, done = stack.pop()
        if not isinstance(obj, (dict, list)):
            continue
        children = list(obj.values()) if isinstance(obj, dict) else obj
        if done:
            expanded[id(obj)] = 1 + sum(expanded.get(id(c), 1) for c in children)
            continue
        if id(obj) in expanded:
            continue
        if depth > MAX_DEPTH:
            raise InputError(f"nesting deeper than {MAX_DEPTH} levels", file=file)
        # The container and its scalars: both are counted in `expanded`, so both are its size.
        unique += 1 + sum(1 for c in children if not isinstance(c, (dict, list)))
        expanded[id(obj)] = 1  # provisional: also breaks self-referencing anchors
        stack.append((obj, depth, True))
        stack.extend((child, depth + 1, False) for child in children if isinstance(child, (dict, list)))
    total = expanded.get(id(root), 1)
    if total - unique > MAX_ALIAS_EXPANSION:
        raise InputError(
            f"aliases expand this document to {total:,} nodes (limit {MAX_ALIAS_EXPANSION:,} "
            "beyond its own size): a YAML alias bomb?",
            file=file,
        )


_OPEN_FLAGS = os.O_RDONLY | getattr(os, "O_NONBLOCK", 0) | getattr(os, "O_NOCTTY", 0) | getattr(os, "O_CLOEXEC", 0)
_KINDS = ((stat.S_ISFIFO, "a named pipe (FIFO)"), (stat.S_ISCHR, "a character device"),
          (stat.S_ISBLK, "a block device"), (stat.S_ISSOCK, "a socket"))


def open_regular(path: str | os.PathLike[str]) -> BinaryIO:
    """Open a file for reading only if it is a regular file.

    Opening a FIFO blocks until a writer comes, and a device can be read forever, so the file is
    opened without blocking and checked with fstat before a byte is read; anything else is an
    InputError (a folder raises IsADirectoryError, as open() would). O_NONBLOCK changes nothing
    for a regular file.
    """
    fd, _ = _open_regular_fd(path)
    try:
        return os.fdopen(fd, "rb")
    except BaseException:
        os.close(fd)
        raise


def _open_regular_fd(path: str | os.PathLike[str]) -> tuple[int, os.stat_result]:
    """A descriptor of `path` and its fstat, if it is a regular file (see open_regular)."""
    fd = os.open(path, _OPEN_FLAGS)
    try:
        info = os.fstat(fd)
        if stat.S_ISDIR(info.st_mode):
            raise IsADirectoryError(str(path))
        if not stat.S_ISREG(info.st_mode):
            kind = next((text for test, text in _KINDS if test(info.st_mode)), "a special file")
            raise InputError(f"is {kind}, not a regular file; not read", file=str(path))
        note_read(info, str(path))
        return fd, info
    except BaseException:
        os.close(fd)
        raise


def read_bytes(path: str | os.PathLike[str], limit: int = MAX_FILE_BYTES) -> bytes:
    """Read an input file, turning every OS-level failure into an InputError naming it."""
    name = str(path)
    try:
        data = _read_regular_fd(path, limit, name)
    except InputError:
        raise
    except IsADirectoryError:
        raise InputError("is a directory, not a file", file=name) from None
    except FileNotFoundError:
        dangling = " (dangling symlink)" if Path(path).is_symlink() else ""
        raise InputError("no such file" + dangling, file=name) from None
    except PermissionError:
        if Path(path).is_dir():  # Windows refuses to open a folder with "permission denied"
            raise InputError("is a directory, not a file", file=name) from None
        raise InputError("permission denied", file=name) from None
    except OSError as exc:
        raise InputError(exc.strerror or str(exc), file=name) from None
    if len(data) > limit:
        raise InputError(f"file is larger than the {limit // (1024 * 1024)} MiB limit", file=name)
    return data


def _read_regular_fd(path: str | os.PathLike[str], limit: int, name: str) -> bytes:
    """At most limit + 1 bytes of a regular file, as open_regular checks it: one open, one
    fstat and unbuffered reads on the descriptor (lint reads thousands of files, and a
    buffered file object costs more than the read itself)."""
    fd, info = _open_regular_fd(path)
    try:
        if info.st_size > limit:
            raise InputError(
                f"file is {info.st_size // (1024 * 1024)} MiB; the limit is {limit // (1024 * 1024)} MiB", file=name
            )
        # Sized by fstat (reading limit + 1 would allocate the whole limit for every file); a
        # file that grew since is read on, up to the limit and one byte more.
        want = min(limit, info.st_size) + 1
        chunks, size = [], 0
        while True:
            chunk = os.read(fd, want - size)
            chunks.append(chunk)
            size += len(chunk)
            if not chunk or size > limit:
                break
            if size == want:  # grew since fstat (or no size): read on up to the limit
                want = limit + 1
            elif size == info.st_size:
                # Stopped at exactly the fstat size: that is the whole file as fstat saw it, so
                # the read that would only confirm the end (a syscall per file) is skipped.
                # Growth after fstat is a race that no number of reads closes.
                break
        return chunks[0] if len(chunks) == 1 else b"".join(chunks)
    finally:
        os.close(fd)


# libyaml's scanner (in PyYAML 6.0.4's wheels) refuses flow collections nested 1,000 deep before
# the tree builder reaches MAX_DEPTH: it tokenizes a flow collection ahead of the parser's events.
_LIBYAML_TOO_DEEP = "exceeded maximum nesting depth"

def loads(data: bytes | str, file: str) -> Any:
    """Parse YAML text safely; errors carry the file and line."""
    if isinstance(data, bytes):
        if b"\x00" in data:
            raise InputError("binary file (contains NUL bytes), not YAML", file=file)
        try:
            text = data.decode("utf-8-sig")
        except UnicodeDecodeError as exc:
            line: int | None = data[: exc.start].count(b"\n") + 1
            raise InputError("not valid UTF-8 text", file=file, line=line) from None
    else:
        text = data
    import yaml  # here, not at the top: reading a file or a LocDict's lines needs no PyYAML (7 ms)

    try:
        with gc_paused(kept=True):
            root = _build(text)
    except InputError as exc:
        raise exc.located(file) from None
    except yaml.reader.ReaderError as exc:
        line = text[: exc.position].count("\n") + 1 if isinstance(exc.position, int) else None
        raise InputError(
            f"not a YAML text file: character {exc.character!r} is not allowed", file=file, line=line
        ) from None
    except yaml.MarkedYAMLError as exc:
        mark = exc.problem_mark or exc.context_mark
        line = mark.line + 1 if mark else None
        reason = exc.problem or exc.context or "invalid YAML"
        if reason == _LIBYAML_TOO_DEEP:  # one wording for one refusal, whichever layer refuses first
            raise InputError(f"nesting deeper than {MAX_DEPTH} levels", file=file, line=line) from None
        raise InputError(f"invalid YAML: {reason}", file=file, line=line) from None
    except yaml.YAMLError as exc:
        raise InputError(f"invalid YAML: {exc}", file=file) from None
    except RecursionError:
        raise InputError(f"nesting deeper than {MAX_DEPTH} levels", file=file) from None
    # An alias needs an anchor, and an anchor needs a '&': without one the tree has no shared
    # nodes, its size is the text's and its depth was checked while it was built.
    if "&" in text:
        _check_shape(root, file)
    return root


def _build(text: str) -> Any:
    """The document's tree, built straight from the parser's events (advisor.load.yamltree):
    PyYAML's node graph of a 100,000-VM spec was a gigabyte beside a tree a fifth of that. The
    node-based loader takes over for what the builder leaves to it: tags beyond the core
    schema's, and every malformed construct, which it then words as it always has."""
    import yaml

    from advisor.load.yamlnodes import Loader
    from advisor.load.yamltree import NeedsNodes, build

    try:
        return build(text)
    except NeedsNodes:
        _count_items(text)  # the node graph would hold every item before anything counts them
        return yaml.load(text, Loader=Loader)  # Loader derives from SafeLoader


def _count_items(text: str) -> None:
    """Refuse a list of more than MAX_SEQUENCE_ITEMS items from the parser's events alone (no
    tree is built)."""
    import yaml

    base = getattr(yaml, "CSafeLoader", yaml.SafeLoader)
    counts: list[int] = []  # items so far of each open list (-1: a mapping)
    for event in yaml.parse(text, Loader=base):
        kind = type(event)
        if kind in (yaml.SequenceEndEvent, yaml.MappingEndEvent):
            counts.pop()
            continue
        if counts and counts[-1] >= 0:
            counts[-1] += 1
            if counts[-1] > MAX_SEQUENCE_ITEMS:
                mark = event.start_mark
                raise InputError(too_many_items(), line=mark.line + 1 if mark is not None else None)
        if kind is yaml.SequenceStartEvent:
            counts.append(0)
        elif kind is yaml.MappingStartEvent:
            counts.append(-1)


def load(path: str | os.PathLike[str]) -> Any:
    return loads(read_bytes(path), str(path))


# Where values came from is advisor.load.yamlloc's; named here too for the callers that read a
# file and its lines through this module.
__all__ = ["MAX_ALIAS_EXPANSION", "MAX_DEPTH", "MAX_FILE_BYTES", "MAX_SEQUENCE_ITEMS", "LocDict", "LocList",
           "line_of", "load", "loads", "long_number_line", "open_regular", "read_bytes"]
