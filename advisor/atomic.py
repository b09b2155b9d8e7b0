"""Replace a file so that a reader (or a crash) sees either the old bytes or the new ones.

advisor rewrites .vmx files that a hypervisor will boot from. Writing in place would leave a
truncated file if the process died half-way, so the new content goes to a temporary file in
the same folder (same filesystem, so the rename is atomic), is flushed to disk, takes over the
original's permission bits, and only then is renamed over the original. Any failure before the
rename removes the temporary file and leaves the original exactly as it was.
"""

from __future__ import annotations

import contextlib
import os
import stat
import tempfile
from collections.abc import Iterable
from pathlib import Path

from advisor.errors import InputError


def write_atomic(
    path: str | Path,
    data: bytes | Iterable[bytes],
    *,
    backup: bool = False,
    follow_symlinks: bool = False,
) -> Path:
    """Atomically replace (or create) ``path`` with ``data``; returns the path written.

    ``data`` is bytes, or an iterable of bytes chunks written as they come (a large report
    need not be held whole); if producing a chunk fails, ``path`` is left as it was.
    ``backup`` first saves the current bytes as ``<name>.bak`` (itself written atomically), so
    the user keeps a copy even if the new content turns out to be wrong. A symlink is refused
    unless ``follow_symlinks``: replacing the link with a regular file would silently detach it
    from whatever it pointed at, so the caller must choose to write through it instead.
    """
    if isinstance(data, str) or not isinstance(data, (bytes, bytearray, memoryview, Iterable)):
        raise TypeError(f"write_atomic wants bytes, not {type(data).__name__}")
    target = _target(Path(path), follow_symlinks)
    original = _stat_or_none(target)
    if original is not None and not stat.S_ISREG(original.st_mode):
        raise InputError("is not a regular file; refusing to replace it", file=str(target))
    if backup and original is not None:
        _commit(target.with_name(target.name + ".bak"), target.read_bytes(), original)
    _commit(target, bytes(data) if isinstance(data, (bytearray, memoryview)) else data, original)
    return target


def check_target(path: str | Path, *, follow_symlinks: bool = False) -> Path:
    """Refuse up front what write_atomic would refuse (a symlink, something that is not a
    regular file, a folder that does not exist), so a command can fail before doing its work
    rather than after writing some of its outputs. Returns the path that would be written."""
    target = _target(Path(path), follow_symlinks)
    original = _stat_or_none(target)
    if original is not None and not stat.S_ISREG(original.st_mode):
        raise InputError("is not a regular file; refusing to replace it", file=str(target))
    if original is None and not target.parent.is_dir():
        raise InputError("the folder does not exist", file=str(target))
    return target


def _target(path: Path, follow_symlinks: bool) -> Path:
    try:
        link = path.is_symlink()
    except OSError as exc:  # a name too long for the filesystem, ...
        raise InputError(f"cannot write here: {exc.strerror or exc}", file=str(path)) from None
    if not link:
        return path
    if not follow_symlinks:
        raise InputError(
            "is a symlink; refusing to replace it with a regular file "
            "(write to its target instead, or allow following symlinks)",
            file=str(path),
        )
    return Path(os.path.realpath(path))


def _stat_or_none(path: Path) -> os.stat_result | None:
    try:
        return path.stat()
    except FileNotFoundError:
        return None
    except OSError as exc:  # a file where a folder should be, a name too long, ...
        raise InputError(f"cannot write here: {exc.strerror or exc}", file=str(path)) from None


def _commit(dest: Path, data: bytes | Iterable[bytes], like: os.stat_result | None) -> None:
    """Write ``data`` beside ``dest`` and rename it over ``dest``; clean up on any failure."""
    temp = _write_temp(dest, data, like)
    try:
        _replace(temp, dest)
    except BaseException:
        _discard(temp)
        raise
    _fsync_folder(dest.parent)


def _write_temp(dest: Path, data: bytes | Iterable[bytes], like: os.stat_result | None) -> Path:
    """A fully written, fsynced temporary file in dest's folder with the final permissions."""
    try:
        fd, name = tempfile.mkstemp(dir=dest.parent, prefix=f".{dest.name}.", suffix=".tmp")
    except FileNotFoundError:
        raise InputError("the folder does not exist", file=str(dest)) from None
    except OSError as exc:  # no permission, a read-only filesystem, ...
        raise InputError(f"cannot write here: {exc.strerror or exc}", file=str(dest)) from None
    temp = Path(name)
    try:
        with os.fdopen(fd, "wb") as handle:
            if isinstance(data, bytes):
                handle.write(data)
            else:
                for chunk in data:
                    handle.write(chunk)
            handle.flush()
            _match_metadata(temp, handle.fileno(), like)
            os.fsync(handle.fileno())
    except BaseException:
        _discard(temp)
        raise
    return temp


def _match_metadata(temp: Path, fd: int, like: os.stat_result | None) -> None:
    """Give the new file the original's mode (mkstemp creates 0600), or the umask default.

    Ownership is copied when we are allowed to (running as root on a host); otherwise the
    file simply belongs to whoever runs advisor, as any editor would leave it. chmod goes by
    path because Windows' Python has no fchmod.
    """
    if like is None:
        os.chmod(temp, 0o666 & ~_current_umask())
        return
    os.chmod(temp, stat.S_IMODE(like.st_mode))
    if hasattr(os, "fchown"):
        # Keeping the owner needs privileges a normal user lacks; the mode above still holds.
        with contextlib.suppress(OSError):
            os.fchown(fd, like.st_uid, like.st_gid)


def _current_umask() -> int:
    """The process umask; Python can only read it by setting it, so it is put straight back."""
    mask = os.umask(0)
    os.umask(mask)
    return mask


def _replace(temp: Path, dest: Path) -> None:
    """The single step that makes the new content visible; separate so tests can break it."""
    os.replace(temp, dest)


def _discard(temp: Path) -> None:
    with contextlib.suppress(FileNotFoundError):
        temp.unlink()


def _fsync_folder(folder: Path) -> None:
    """Persist the rename itself. Best effort: some platforms cannot open a folder for fsync."""
    flags = os.O_RDONLY | getattr(os, "O_DIRECTORY", 0)
    try:
        fd = os.open(folder, flags)
    except OSError:
        return
    with contextlib.suppress(OSError):
        try:
            os.fsync(fd)
        finally:
            os.close(fd)
