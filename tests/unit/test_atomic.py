"""Tests for advisor.atomic: the original survives every failure, including SIGKILL."""

from __future__ import annotations

import os
import signal
import stat
import subprocess
import sys
from pathlib import Path

import pytest

from advisor import atomic
from advisor.atomic import write_atomic
from advisor.errors import InputError

REPO = Path(__file__).resolve().parents[2]
ORIGINAL = b'.encoding = "UTF-8"\nnumvcpus = "4"\n'


@pytest.fixture
def vmx(tmp_path: Path) -> Path:
    path = tmp_path / "vm.vmx"
    path.write_bytes(ORIGINAL)
    path.chmod(0o640)
    return path


def _leftovers(folder: Path) -> list[str]:
    return sorted(p.name for p in folder.iterdir() if p.name.endswith(".tmp"))


def test_replaces_content_and_keeps_permission_bits(vmx: Path) -> None:
    assert write_atomic(vmx, b"new\n") == vmx
    assert vmx.read_bytes() == b"new\n"
    assert stat.S_IMODE(vmx.stat().st_mode) == 0o640
    assert _leftovers(vmx.parent) == []


def test_creates_a_missing_file_with_umask_permissions(tmp_path: Path) -> None:
    old_mask = os.umask(0o022)
    try:
        path = write_atomic(tmp_path / "new.vmx", b"x")
    finally:
        os.umask(old_mask)
    assert path.read_bytes() == b"x"
    assert stat.S_IMODE(path.stat().st_mode) == 0o644


def test_backup_holds_the_original_bytes_and_mode(vmx: Path) -> None:
    write_atomic(vmx, b"new", backup=True)
    backup = vmx.with_name("vm.vmx.bak")
    assert backup.read_bytes() == ORIGINAL
    assert stat.S_IMODE(backup.stat().st_mode) == 0o640
    assert vmx.read_bytes() == b"new"


def test_backup_of_a_missing_file_is_skipped(tmp_path: Path) -> None:
    write_atomic(tmp_path / "vm.vmx", b"x", backup=True)
    assert not (tmp_path / "vm.vmx.bak").exists()


def test_failed_rename_leaves_original_and_no_temp(vmx: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    def broken(temp: Path, dest: Path) -> None:
        raise OSError("disk on fire")

    monkeypatch.setattr(atomic, "_replace", broken)
    with pytest.raises(InputError, match="disk on fire"):  # an OS failure is the user's to fix: exit 2
        write_atomic(vmx, b"garbage")
    assert vmx.read_bytes() == ORIGINAL
    assert _leftovers(vmx.parent) == []


def test_failure_after_backup_keeps_original_and_backup(
    vmx: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    real = atomic._replace

    def fail_for_main(temp: Path, dest: Path) -> None:
        if dest.name == "vm.vmx":
            raise KeyboardInterrupt
        real(temp, dest)

    monkeypatch.setattr(atomic, "_replace", fail_for_main)
    with pytest.raises(KeyboardInterrupt):
        write_atomic(vmx, b"garbage", backup=True)
    assert vmx.read_bytes() == ORIGINAL
    assert vmx.with_name("vm.vmx.bak").read_bytes() == ORIGINAL
    assert _leftovers(vmx.parent) == []


def test_failed_write_removes_temp(vmx: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    def no_fsync(fd: int) -> None:
        raise OSError("fsync failed")

    monkeypatch.setattr(atomic.os, "fsync", no_fsync)
    with pytest.raises(InputError, match="fsync failed"):
        write_atomic(vmx, b"garbage")
    assert vmx.read_bytes() == ORIGINAL
    assert _leftovers(vmx.parent) == []


def test_symlink_is_refused_unless_followed(vmx: Path) -> None:
    link = vmx.with_name("link.vmx")
    link.symlink_to(vmx.name)
    with pytest.raises(InputError, match="symlink"):
        write_atomic(link, b"x")
    assert link.is_symlink() and vmx.read_bytes() == ORIGINAL

    assert write_atomic(link, b"through", follow_symlinks=True) == vmx.resolve()
    assert link.is_symlink()
    assert vmx.read_bytes() == b"through"


def test_refuses_folders_and_missing_parents(tmp_path: Path) -> None:
    with pytest.raises(InputError, match="regular file"):
        write_atomic(tmp_path, b"x")
    with pytest.raises(InputError, match="folder does not exist"):
        write_atomic(tmp_path / "missing" / "vm.vmx", b"x")


def test_rejects_text(tmp_path: Path) -> None:
    with pytest.raises(TypeError):
        write_atomic(tmp_path / "vm.vmx", "text")  # type: ignore[arg-type]


def test_chunks_are_written_in_order(tmp_path: Path) -> None:
    target = tmp_path / "report.json"
    write_atomic(target, (part for part in (b"{", b'"a": 1', b"}\n")))
    assert target.read_bytes() == b'{"a": 1}\n'


def test_a_chunk_that_fails_leaves_the_file_as_it_was(vmx: Path) -> None:
    before = vmx.read_bytes()

    def chunks():
        yield b"half a report"
        raise RuntimeError("the renderer broke")

    with pytest.raises(RuntimeError):
        write_atomic(vmx, chunks())
    assert vmx.read_bytes() == before
    assert [p.name for p in vmx.parent.iterdir()] == [vmx.name]  # no temporary file left


def test_folder_fsync_is_best_effort(vmx: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    real_open = os.open

    def no_dirs(path: object, flags: int, *args: object) -> int:
        if Path(str(path)) == vmx.parent:
            raise PermissionError("no folder handles here")
        return real_open(path, flags, *args)  # type: ignore[arg-type]

    monkeypatch.setattr(atomic.os, "open", no_dirs)
    write_atomic(vmx, b"ok")
    assert vmx.read_bytes() == b"ok"


_CHILD = """
import sys, time
from pathlib import Path
from advisor import atomic

def stall(temp, dest):
    print(temp, flush=True)
    time.sleep(60)
    raise SystemExit("parent should have killed us")

atomic._replace = stall
atomic.write_atomic(Path(sys.argv[1]), b"G" * (8 * 1024 * 1024))
"""


@pytest.mark.skipif(not hasattr(signal, "SIGKILL"), reason="needs POSIX SIGKILL")
def test_sigkill_before_rename_leaves_the_original(vmx: Path) -> None:
    env = {**os.environ, "PYTHONPATH": str(REPO) + os.pathsep + os.environ.get("PYTHONPATH", "")}
    child = subprocess.Popen(
        [sys.executable, "-c", _CHILD, str(vmx)], stdout=subprocess.PIPE, env=env, cwd=str(REPO)
    )
    try:
        assert child.stdout is not None
        temp = Path(child.stdout.readline().decode().strip())
        assert temp.parent == vmx.parent and temp.stat().st_size == 8 * 1024 * 1024
    finally:
        child.send_signal(signal.SIGKILL)
        child.wait(timeout=10)
        if child.stdout is not None:
            child.stdout.close()
    assert child.returncode == -signal.SIGKILL
    assert vmx.read_bytes() == ORIGINAL
    assert stat.S_IMODE(vmx.stat().st_mode) == 0o640
    assert {p.name for p in vmx.parent.iterdir()} == {"vm.vmx", temp.name}
