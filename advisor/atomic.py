"""Replace a file so that a reader (or a crash) sees either the old bytes or the new ones.

advisor rewrites .vmx files that a hypervisor will boot from. Writing in place would leave a
truncated file if the process died half-way, so the new content goes to a temporary file in
the same folder (same filesystem, so the rename is atomic), is flushed to disk, takes over the
original's permission bits, and only then is renamed over the original. Any failure before the
rename removes the temporary file and leaves the original exactly as it was.
"""

from __future__ import annotations

import contextlib
import errno
import os
import re
import stat
from collections.abc import Iterable, Iterator
from pathlib import Path

from advisor.errors import InputError
from advisor.overwrites import refuse_read


def write_atomic(
    path: str | Path,
    data: bytes | Iterable[bytes],
    *,
    backup: bool = False,
    follow_symlinks: bool = False,
    expect: bytes | None = None,
) -> Path:
    """Atomically replace (or create) ``path`` with ``data``; returns the path written.

    ``data`` is bytes, or an iterable of bytes chunks written as they come (a large report
    need not be held whole); if producing a chunk fails, ``path`` is left as it was.
    ``backup`` first saves the current bytes as ``<name>.bak`` (itself written atomically), so
    the user keeps a copy even if the new content turns out to be wrong. A symlink is refused
    unless ``follow_symlinks``: replacing the link with a regular file would silently detach it
    from whatever it pointed at, so the caller must choose to write through it instead.
    ``expect`` (compare-and-swap): the bytes the caller read; if the file now holds anything
    else, nothing is written. A full disk or any other OS failure is an InputError naming the
    file and the reason, and the original is left as it was.
    """
    if isinstance(data, str) or not isinstance(data, (bytes, bytearray, memoryview, Iterable)):
        raise TypeError(f"write_atomic wants bytes, not {type(data).__name__}")
    target = _target(Path(path), follow_symlinks)
    original = _stat_or_none(target)
    if original is not None and not stat.S_ISREG(original.st_mode):
        raise InputError("is not a regular file; refusing to replace it", file=str(target))
    if expect is None:  # a read-modify-write (advisor fix --write) replaces the file it read on purpose
        refuse_read([target])
    current = None
    if expect is not None or (backup and original is not None):
        current = _read_current(target) if original is not None else None
        if expect is not None and current != expect:
            raise InputError("changed while advisor was working on it (another run or an editor); "
                             "nothing written: run advisor again", file=str(target))
    if expect is not None and original is not None and original.st_nlink > 1:
        raise InputError(f"has {original.st_nlink} hard links; advisor writes a new file and renames it over this "
                         "one, which would leave the other names with the old content: nothing written "
                         "(copy it to break the links, or edit it by hand)", file=str(target))
    if backup and current is not None:
        bak = target.with_name(target.name + ".bak")
        check_target(bak)
        _commit(bak, current, original)
    content = bytes(data) if isinstance(data, (bytearray, memoryview)) else data
    if expect is not None and original is not None:
        _commit_unless_changed(target, content, original, expect)
    else:
        _commit(target, content, original)
    return target


_CHANGED = ("changed while advisor was working on it (another run or an editor); nothing written, the "
            "file holds that other version: run advisor again")


def _commit_unless_changed(dest: Path, data: bytes | Iterable[bytes], like: os.stat_result, expect: bytes) -> None:
    """Replace ``dest`` only if, at the instant of the replacement, it still holds ``expect``.

    Comparing and then renaming leaves a window in which an editor's save is overwritten. On
    Linux the new file is swapped in with renameat2(RENAME_EXCHANGE), which leaves the replaced
    file at the temporary name: it is compared there, and if it is not what the fixes were
    computed on (a save landed in between), the two are swapped back, so the user's version is
    in place again. Elsewhere the file is held open across the rename: a save written into it
    is seen after the rename and written back (a save by rename in that instant is the
    remaining window)."""
    temp = _write_temp(dest, data, like, keep_xattrs_of=dest)
    with _replacing(temp, dest):
        if _exchange(temp, dest):
            replaced = _read_current(temp)
            if replaced != expect:
                _exchange(temp, dest)
                raise InputError(_CHANGED, file=str(dest))
            _discard(temp)
        else:
            with open(dest, "rb") as held:
                _replace(temp, dest)
                replaced = held.read()
            if replaced != expect:
                _commit(dest, replaced, like)
                raise InputError(_CHANGED, file=str(dest))


_RENAME_EXCHANGE = 2  # linux/fs.h
_AT_FDCWD = -100


def _exchange(first: Path, second: Path) -> bool:
    """Atomically swap two names (Linux renameat2 RENAME_EXCHANGE, glibc 2.28+); False when the
    platform or the file system cannot, so the caller falls back to a rename."""
    import sys

    if not sys.platform.startswith("linux"):
        return False
    import ctypes

    try:
        libc = ctypes.CDLL(None, use_errno=True)
        renameat2 = libc.renameat2
    except (OSError, AttributeError):
        return False
    if renameat2(_AT_FDCWD, os.fsencode(first), _AT_FDCWD, os.fsencode(second), _RENAME_EXCHANGE) == 0:
        return True
    code = ctypes.get_errno()
    if code in (errno.EINVAL, errno.ENOSYS, errno.ENOTSUP):  # a file system without the exchange
        return False
    raise OSError(code, os.strerror(code), str(second))


@contextlib.contextmanager
def locked(path: str | Path) -> Iterator[None]:
    """Hold an exclusive lock for read-modify-write of ``path`` by advisor.

    The lock is flock() on the file's folder, which outlives the rename that replaces the file
    (a lock on the file itself would stay on the old inode) and leaves no lock file behind. A
    second `advisor fix --write` on the same file waits, then reads the first one's result, so
    no change is lost. Holding it also makes it safe to delete temporary files that a killed
    run left for this file. Where flock is unavailable (Windows) write_atomic's `expect`
    check still refuses to overwrite a file that changed.
    """
    target = Path(path)
    try:
        import fcntl
    except ImportError:  # Windows
        yield
        return
    try:
        fd = os.open(target.parent if str(target.parent) else ".", os.O_RDONLY)
    except OSError as exc:
        raise InputError(f"cannot open its folder: {exc.strerror or exc}", file=str(target)) from None
    try:
        fcntl.flock(fd, fcntl.LOCK_EX)
        _remove_leftovers(target)
        yield
    finally:
        os.close(fd)  # closing releases the lock


def _remove_leftovers(target: Path) -> None:
    """Temporary files of an earlier run of this target (and its .bak) that was killed."""
    pattern = re.compile(rf"\.{re.escape(target.name)}(?:\.bak)?\.[a-z0-9_]{{8}}\.tmp")
    try:
        names = os.listdir(target.parent if str(target.parent) else ".")
    except OSError:
        return
    for name in names:
        if pattern.fullmatch(name):
            with contextlib.suppress(OSError):
                (target.parent / name).unlink()


def _read_current(target: Path) -> bytes:
    try:
        with open(target, "rb") as handle:
            return handle.read()
    except OSError as exc:
        raise InputError(f"cannot read: {exc.strerror or exc}", file=str(target)) from None


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
    with _replacing(temp, dest):
        _replace(temp, dest)


@contextlib.contextmanager
def _replacing(temp: Path, dest: Path) -> Iterator[None]:
    """The step that puts `temp` in `dest`'s place: on any failure the temporary file is removed
    (an OS failure is an InputError naming `dest`); on success the rename is made durable."""
    try:
        yield
    except OSError as exc:
        _discard(temp)
        raise InputError(f"cannot replace it: {exc.strerror or exc}", file=str(dest)) from None
    except BaseException:
        _discard(temp)
        raise
    _fsync_folder(dest.parent)


def _write_temp(dest: Path, data: bytes | Iterable[bytes], like: os.stat_result | None,
                keep_xattrs_of: Path | None = None) -> Path:
    """A fully written, fsynced temporary file in dest's folder with the final permissions (and
    the extended attributes of `keep_xattrs_of`, or an InputError when one cannot be kept)."""
    import tempfile  # only a run that writes pays for it (with shutil and random)

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
            if keep_xattrs_of is not None:
                _copy_xattrs(keep_xattrs_of, handle.fileno(), dest)
            os.fsync(handle.fileno())
    except OSError as exc:  # the disk is full, a quota, an I/O error: the user's to fix
        _discard(temp)
        raise InputError(f"cannot write: {exc.strerror or exc}; the file was left as it was", file=str(dest)) from None
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


def _copy_xattrs(source: Path, fd: int, dest: Path) -> None:
    """Every extended attribute of `source` (labels, ACLs as system.posix_acl_*, a user's tags)
    set on the new file, which a rename would otherwise drop; one that cannot be set refuses
    the write rather than losing it silently. Nothing to do where the OS has no xattr calls."""
    if not hasattr(os, "listxattr"):
        return
    try:
        names = os.listxattr(source)
    except OSError:  # a file system without extended attributes
        return
    for name in names:
        try:
            value = os.getxattr(source, name)
            if name in os.listxattr(fd) and os.getxattr(fd, name) == value:
                continue  # given to the new file already (an inherited ACL, a security label)
            os.setxattr(fd, name, value)
        except OSError as exc:
            raise InputError(f"cannot keep its extended attribute {name}: {exc.strerror or exc}; nothing written",
                             file=str(dest)) from None


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
