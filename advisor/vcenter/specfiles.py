"""Spec documents as YAML text, and the folder of spec files `advisor collect vcenter` writes.

Host names come from vCenter and may hold any character, any length, and differ only in case
or in characters a file name cannot carry (`h 1`, `h/1`, `h_1`). Each host gets its own file
name: portable characters only, at most MAX_STEM characters, unique even on a file system
that ignores case; a name that had to be changed, or that would clash, carries a suffix made
from the host name itself (so it stays the same from run to run, whatever the order of hosts).
Which file holds which host is written to MAPPING_FILE in the folder, with the vCenter's instance
UUID and each VM's instance UUID (`uuids`: file -> VM name -> UUID), which identify a VM across
runs and vCenters where names do not.

The folder is written as a whole: every file goes into a new folder beside it, which is then
renamed into place, so a failure (a name the file system refuses, a full disk) leaves the
folder as it was. Files of an earlier run that this run does not write (hosts no longer in
vCenter, or outside this run's selection) are kept and named, never deleted silently.
"""

from __future__ import annotations

import contextlib
import hashlib
import json
import os
import re
import shutil
import tempfile
from pathlib import Path

import yaml

from advisor.errors import InputError, printable
from advisor.vcenter.to_spec import Mapping, SpecDoc

MAPPING_FILE = ".advisor-collect.json"  # a dot file: `advisor check FOLDER` reads only specs
MAPPING_SCHEMA = 1
MAX_STEM = 100  # characters of a host name kept in its file name (then "-" and a 12-digit suffix)
_UNSAFE = re.compile(r"[^A-Za-z0-9._-]+")
# Names Windows refuses for a file, whatever the suffix (Win32 "Naming Files, Paths, and Namespaces").
_RESERVED = frozenset({"con", "prn", "aux", "nul", *(f"com{i}" for i in range(10)), *(f"lpt{i}" for i in range(10))})


def render(spec: SpecDoc, server: str) -> str:
    head = [f"# Read from vCenter {printable(server)} by `advisor collect vcenter`; check it with `advisor check`."]
    head += [f"# Note: {printable(note)}" for note in (*spec.notes, *spec.assumed)]  # what is left out or assumed
    body = yaml.safe_dump(spec.doc, sort_keys=False, allow_unicode=True, width=100, default_flow_style=False)
    return "\n".join(head) + "\n" + body


def _portable(name: str) -> str:
    stem = _UNSAFE.sub("_", name).strip("._")[:MAX_STEM].rstrip("._") or "host"
    return f"_{stem}" if stem.split(".")[0].lower() in _RESERVED else stem


def _suffixed(name: str, stem: str, digits: int) -> str:
    return f"{stem}-{hashlib.sha256(name.encode('utf-8', 'surrogatepass')).hexdigest()[:digits]}"


def file_stems(names: list[str]) -> list[str]:
    """One file stem per host name, unique ignoring case (see the module's docstring); the same
    name always gets the same stem unless another host's stem would clash with it."""
    stems = [_portable(name) for name in names]
    counts: dict[str, int] = {}
    for stem in stems:
        counts[stem.lower()] = counts.get(stem.lower(), 0) + 1
    out = [stem if stem == name and counts[stem.lower()] == 1 else _suffixed(name, stem, 12)
           for name, stem in zip(names, stems, strict=True)]
    # A kept name could equal another's suffixed one, or two suffixes could agree: lengthen
    # the suffixes of whatever still clashes (sha-256 has 64 digits; equal names are one host).
    for digits in (24, 64):
        seen: dict[str, int] = {}
        for stem in out:
            seen[stem.lower()] = seen.get(stem.lower(), 0) + 1
        clashing = [i for i, stem in enumerate(out) if seen[stem.lower()] > 1]
        if not clashing:
            break
        for i in clashing:
            out[i] = _suffixed(names[i], _portable(names[i]), digits)
    return out


def stems(mapping: Mapping) -> list[str]:
    """The file stem of each spec of `mapping`."""
    return file_stems([str(spec.doc["host"]["name"]) for spec in mapping.specs])


class Written:
    """What write_folder did: the files written, and earlier files it left in place."""
    __slots__ = ("files", "kept")

    def __init__(self, files: list[Path], kept: list[str]) -> None:
        self.files = files
        self.kept = kept


def write_folder(mapping: Mapping, folder: Path, server: str, instance: str | None = None) -> Written:
    """Write every spec of `mapping` into `folder` at once (see the module's docstring)."""
    names = [f"{stem}.yaml" for stem in stems(mapping)]
    _check_target(folder, names)
    try:
        parent = folder.parent
        parent.mkdir(parents=True, exist_ok=True)
        staging = Path(tempfile.mkdtemp(prefix=f".{folder.name[:40]}.advisor-", dir=parent))
    except OSError as exc:
        raise InputError(f"cannot create the folder: {exc.strerror}", file=str(folder), field="--output-dir") from None
    try:
        hosts, uuids = {}, {}
        for spec, name in zip(mapping.specs, names, strict=True):
            (staging / name).write_bytes(render(spec, server).encode("utf-8"))
            hosts[name] = str(spec.doc["host"]["name"])
            uuids[name] = spec.uuids
        index = {"schema": MAPPING_SCHEMA, "server": server, "instance": instance, "files": hosts, "uuids": uuids}
        (staging / MAPPING_FILE).write_text(json.dumps(index, indent=2, ensure_ascii=True) + "\n")
        kept = _swap(staging, folder, set(names))
    except OSError as exc:
        shutil.rmtree(staging, ignore_errors=True)
        raise InputError(f"cannot write the spec files, nothing written: {exc.strerror or exc}", file=str(folder),
                         field="--output-dir") from None
    return Written([folder / name for name in names], kept)


def _check_target(folder: Path, names: list[str]) -> None:
    """Refuse, before anything is written, a folder that is a file, or a spec's place taken by
    something other than a file (a folder, a link)."""
    if folder.is_symlink() or (folder.exists() and not folder.is_dir()):
        raise InputError("exists and is not a folder; nothing written", file=str(folder), field="--output-dir")
    for name in names:
        place = folder / name
        if place.is_symlink() or (place.exists() and not place.is_file()):
            raise InputError(f"{name} exists and is not a file; move it away (nothing written)", file=str(folder),
                             field="--output-dir")


def _swap(staging: Path, folder: Path, names: set[str]) -> list[str]:
    """Put the staged folder in place of `folder`; carry over what the old one held beyond the
    files written now. Returns the carried-over names."""
    if not folder.exists():
        umask = os.umask(0)
        os.umask(umask)
        os.chmod(staging, 0o777 & ~umask)  # mkdtemp's folder is private; a folder made here is not
        os.rename(staging, folder)
        return []
    shutil.copymode(folder, staging)
    kept = sorted(e for e in os.listdir(folder) if e not in names and e != MAPPING_FILE)
    for entry in kept:  # the old folder stays whole until the rename below
        source, target = folder / entry, staging / entry
        if source.is_dir() and not source.is_symlink():
            shutil.copytree(source, target, symlinks=True)
        else:
            try:
                os.link(source, target, follow_symlinks=False)
            except OSError:
                shutil.copy2(source, target, follow_symlinks=False)
    old = Path(tempfile.mkdtemp(prefix=f".{folder.name[:40]}.advisor-old-", dir=folder.parent))
    os.rename(folder, old / "previous")
    try:
        os.rename(staging, folder)
    except OSError:
        os.rename(old / "previous", folder)  # put the old folder back
        raise
    with contextlib.suppress(OSError):
        shutil.rmtree(old)
    return kept


MAX_INDEX = 64 * 1024 * 1024  # bytes of a MAPPING_FILE read back (a 100,000-VM vCenter writes a few MiB)


def read_vm_keys(folder: Path) -> dict[str, dict[str, str]] | None:
    """What MAPPING_FILE says identifies each VM of `folder`: file name -> VM name in the spec ->
    "<vCenter instance UUID>/<VM instance UUID>", the same VM across runs whatever its name or host,
    and apart from an equally named VM of another vCenter. None when the folder has no such file,
    or one written before the UUIDs were (no `uuids`), or from a server without an instance UUID
    (an ESXi host): its VMs are then known by host and name only. A file that is not such an
    index is an input error naming it."""
    path = folder / MAPPING_FILE
    if not path.is_file():
        return None
    label = str(path)
    try:
        if path.stat().st_size > MAX_INDEX:
            raise InputError(f"larger than {MAX_INDEX >> 20} MiB; not an index advisor wrote", file=label)
        index = json.loads(path.read_bytes())
    except OSError as exc:
        raise InputError(f"cannot read: {exc.strerror}", file=label) from None
    except (ValueError, RecursionError):
        raise InputError("not JSON; not an index `advisor collect vcenter` wrote", file=label) from None
    if not isinstance(index, dict):
        raise InputError("not an index `advisor collect vcenter` wrote (not a JSON object)", file=label)
    instance, uuids = index.get("instance"), index.get("uuids")
    if instance is None or uuids is None:
        return None
    if not isinstance(instance, str) or not isinstance(uuids, dict) or not all(
            isinstance(vms, dict) and all(isinstance(k, str) and isinstance(v, str) for k, v in vms.items())
            for vms in uuids.values()):
        raise InputError("'instance' is not text or 'uuids' is not file -> VM -> UUID", file=label, field="uuids")
    return {str(file): {vm: f"{instance}/{uuid}" for vm, uuid in vms.items()} for file, vms in uuids.items()}
