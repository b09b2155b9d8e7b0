"""No output of a run replaces one of its inputs or another of its outputs: `-o spec.yaml` over
the spec being checked, `--write-baseline` over a template, two outputs on one file. Files are
compared by device and inode (and resolved path), so another spelling of the same file is caught.
advisor.atomic writes the outputs; this module only says which targets are refused.
"""

from __future__ import annotations

import contextlib
import os
from collections.abc import Iterable
from pathlib import Path

from advisor.errors import InputError


def refuse_inputs(targets: Iterable[str | Path | None], inputs: Iterable[str | Path]) -> None:
    """Refuse an output that is one of the run's input files (`--write-baseline vm.vmx`,
    `-o spec.yaml`): the run would replace what it was asked to read. Compared by device and
    inode, so another spelling of the same file (./a, a symlink to it) is caught too."""
    wanted = {}
    for target in targets:
        if target is not None:
            with contextlib.suppress(OSError):
                info = os.stat(target)
                wanted[(info.st_dev, info.st_ino)] = str(target)
    if not wanted:
        return
    for source in inputs:
        with contextlib.suppress(OSError):
            info = os.stat(source)
            if (info.st_dev, info.st_ino) in wanted:
                raise InputError(f"is also an input of this run ({source}); refusing to overwrite it",
                                 file=wanted[(info.st_dev, info.st_ino)])


# Every file this process has read as an input (advisor.load.yamlfile opens them all), by device
# and inode: the host profile a spec names, a rule file, a discovered .advisor.yaml, a --var-file.
_READ: dict[tuple[int, int], str] = {}


def note_read(info: os.stat_result, name: str) -> None:
    """Remember a file read as an input of this run (its fstat), so no output replaces it."""
    _READ.setdefault((info.st_dev, info.st_ino), name)


def forget_reads() -> None:
    """Start a run with no file read."""
    _READ.clear()


def refuse_read(targets: Iterable[str | Path | None]) -> None:
    """Refuse an output over any file the run has read, directly or through another input (the
    host file a spec names, a --rules file, the discovered configuration, a --var-file)."""
    if not _READ:
        return
    for target in targets:
        if target is None:
            continue
        try:
            info = os.stat(target)
        except OSError:
            continue
        source = _READ.get((info.st_dev, info.st_ino))
        if source is not None:
            raise InputError(f"is an input of this run (read as {source}); refusing to overwrite it", file=str(target))


def refuse_shared(targets: Iterable[str | Path | None]) -> None:
    """Refuse two outputs of one run on one file (`-o x --write-baseline x`): the second would
    replace the first. Compared by the path with symlinks and `..` resolved, and by device and
    inode where the file exists."""
    seen: dict[object, str] = {}
    for target in targets:
        if target is None:
            continue
        keys: list[object] = [os.path.realpath(target)]
        with contextlib.suppress(OSError):
            info = os.stat(target)
            keys.append((info.st_dev, info.st_ino))
        for key in keys:
            if key in seen:
                raise InputError(f"is also the output {seen[key]} of this run; give each output its own file",
                                 file=str(target))
        for key in keys:
            seen[key] = str(target)
