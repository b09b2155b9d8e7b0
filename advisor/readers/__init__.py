"""Which reader handles a file, and finding template files under folders.

Each reader module (vmxfile, ovf, packer, terraform) exposes KIND, sniff(path, head) and
read(path, data[, folder, var_files]) (advisor.readers.folder: a folder's files, read once). This
package picks one by file name first and by content second, and imports it only when needed so
`advisor` starts fast when no template is read.
"""

from __future__ import annotations

import importlib
import os
import re
import sys
from collections.abc import Callable, Iterable, Iterator
from operator import attrgetter
from pathlib import Path
from types import ModuleType
from typing import TYPE_CHECKING

from advisor.errors import InputError
from advisor.load.yamlfile import open_regular, read_bytes
from advisor.readers.base import TemplateVM
from advisor.readers.folder import SIBLING_SUFFIXES, Folder, Folders

if TYPE_CHECKING:
    from advisor.readers.ignore import Layers

READERS = ("vmxfile", "ovf", "packer", "terraform")

# Readers whose values may come from other files of the same folder (variable definitions).
_FOLDER_READERS = {"packer", "terraform"}

# Suffixes that name a format outright, longest first so `.pkr.json` wins over `.json`.
_BY_SUFFIX = (
    (".pkr.json", "packer"),
    (".pkr.hcl", "packer"),
    (".tf.json", "terraform"),
    (".vmx", "vmxfile"),
    (".vmtx", "vmxfile"),
    (".ovf", "ovf"),
    (".ova", "ovf"),
    (".tf", "terraform"),
)
_SUFFIXES = tuple(suffix for suffix, _ in _BY_SUFFIX)
# Variable-value files: they hold no VM, only inputs for the templates beside them.
_VARIABLE_FILES = (".pkrvars.hcl", ".pkrvars.json", ".tfvars", ".tfvars.json")

# Enough of a file to recognise it by content (JSON top-level keys, an XML root, a tar header).
HEAD_BYTES = 64 * 1024
# An OVA carries its disks too; the descriptor must be its first member, so a prefix is enough.
_OVA_PREFIX_BYTES = 40 * 1024 * 1024

# Folders that hold tool state or dependencies, never templates someone wants linted.
SKIPPED_DIRS = frozenset({".git", ".terraform", "node_modules"})

UNKNOWN_FORMAT = "not a template advisor can read (.vmx, .ovf/.ova, Packer, Terraform)"


def _module(name: str) -> ModuleType:
    # Once imported, a reader is looked up, not imported again (read_template asks for one per file).
    return sys.modules.get(f"advisor.readers.{name}") or importlib.import_module(f"advisor.readers.{name}")


def detect(path: Path, head: bytes) -> str | None:
    """The reader module name for a file, from its name or else its first bytes; None if none fits."""
    name = path.name.lower()
    if name.endswith(_VARIABLE_FILES):
        return None
    for suffix, reader in _BY_SUFFIX:
        if name.endswith(suffix):
            return reader
    if name.endswith(".json"):
        return _json_kind(head)
    if name.endswith(".hcl"):
        return (_json_kind(head) or "packer") if head.lstrip(b"\xef\xbb\xbf \t\r\n").startswith(b"{") else "packer"
    for reader in READERS:
        if _module(reader).sniff(path, head):
            return reader
    return None


def _json_kind(head: bytes) -> str | None:
    """A plain `.json` file: a Packer template (legacy `builders`, or HCL-JSON `source`/`build`)
    or Terraform JSON declaring a vSphere VM; anything else (package.json, ...) is not a template."""
    keys = _top_level_keys(head)
    if "resource" in keys and b'"vsphere_virtual_machine"' in head:
        return "terraform"
    if keys & {"builders", "source", "build"}:
        return "packer"
    return None


def _top_level_keys(head: bytes) -> set[str]:
    """The keys of a JSON document's outermost object, scanning at most `head`.

    A scanner rather than json.loads because `head` may be a truncated prefix of the file. One
    regex step per string or bracket, not one Python step per character: a 64 KiB head of a
    Packer template took 7 ms character by character, a tenth of linting the whole file.
    """
    text = head.decode("utf-8", "ignore").lstrip("\ufeff \t\r\n")
    if not text.startswith("{"):
        return set()
    keys: set[str] = set()
    depth = 0
    expect_key = False
    for token in _JSON_TOKEN.finditer(text):
        char = token[0][0]
        if char == '"':
            if depth == 1 and expect_key:
                keys.add(token[1])
                expect_key = False
        elif char in "{[":
            depth += 1
            expect_key = char == "{" and depth == 1
        elif char in "}]":
            depth -= 1
        elif depth == 1:  # a comma
            expect_key = True
    return keys


# A string (group 1: its text; a backslash takes the character after it, and an unclosed one runs
# to the end of the head) or one of the brackets and commas that _top_level_keys counts.
_JSON_TOKEN = re.compile(r'"((?:[^"\\]|\\.|\\\Z)*)"?|[{}\[\],]', re.S)


def read_template(path: str | os.PathLike[str], data: bytes | None = None,
                  siblings: Iterable[tuple[Path, bytes]] | None = None, named: bool = False,
                  var_files: Iterable[tuple[Path, bytes]] | Folder = (),
                  folders: Folders | None = None) -> list[TemplateVM]:
    """Every VM the file describes, read by the reader `detect` picks.

    `siblings` (other files of the folder, as (path, bytes)) let Packer and Terraform resolve
    variables; when None they are read from the file's folder. Pass () to read the file alone.
    `named`: the user named this file rather than its folder. Packer then reads that file alone
    (`packer build file.pkr.hcl`), while Terraform always reads the whole folder (a module).
    `var_files`: `--var-file` values, applied after every file the tools load by themselves.
    `folders`: the folders this run has read (lint's), so that a folder's files are read and
    parsed once for all its templates (advisor.readers.folder).
    """
    path = Path(path)
    folder = None
    if siblings is None and path.name.lower().endswith(SIBLING_SUFFIXES):  # one its siblings read too
        folder = (folders or Folders()).of(path.parent)
    if data is None:
        data = folder.data(path) if folder is not None else _read_file(path)
    kind = detect(path, data[:HEAD_BYTES])
    if kind is None:
        from advisor.load.kinds import for_template_command  # which command reads it, if another does

        raise InputError(for_template_command(str(path), data[:HEAD_BYTES]) or UNKNOWN_FORMAT, file=str(path))
    module = _module(kind)
    try:
        if kind in _FOLDER_READERS:
            if named and kind == "packer":
                folder = Folder.given(())
            elif siblings is not None:
                folder = Folder.given(siblings)
            elif folder is None:
                folder = (folders or Folders()).of(path.parent)
            if not isinstance(var_files, Folder):
                var_files = Folder.given(var_files)
            return module.read(path, data, folder, var_files)
        return module.read(path, data)
    except InputError as exc:
        raise exc.located(str(path)) from None
    except RecursionError:
        raise InputError("nested too deeply to read", file=str(path)) from None


def _read_file(path: Path) -> bytes:
    if path.name.lower().endswith(".ova"):
        return _read_prefix(path, _OVA_PREFIX_BYTES)
    return read_bytes(path)


def _read_prefix(path: Path, size: int) -> bytes:
    """The first `size` bytes of a file, with the same OS-error messages as read_bytes."""
    if not path.is_file():
        return read_bytes(path)  # a directory, a FIFO or a missing file: let read_bytes say which
    try:
        with open_regular(path) as handle:
            return handle.read(size)
    except PermissionError:
        raise InputError("permission denied", file=str(path)) from None
    except OSError as exc:
        raise InputError(exc.strerror or str(exc), file=str(path)) from None


def variable_siblings(files: Iterable[str | os.PathLike[str]]) -> list[Path]:
    """Every file a folder reader may read beside the given templates (for the output guard)."""
    folders = {Path(f).parent for f in files if str(f).lower().endswith((*SIBLING_SUFFIXES, ".json", ".hcl"))}
    found: list[Path] = []
    for folder in sorted(folders):
        try:
            found += [p for p in folder.iterdir() if p.name.lower().endswith(SIBLING_SUFFIXES)]
        except OSError:
            continue
    return found


def find_templates(paths: Iterable[str | os.PathLike[str]], excludes: list[str], gitignore: bool = False,
                   notes: list[str] | None = None) -> list[Path]:
    """The template files named by `paths`: files as given, folders walked in sorted order.

    A folder walk keeps only files whose name (or, for `.json` / plain `.hcl`, whose first bytes)
    says they are a template, skips tool-state folders, and applies gitignore-style `excludes`
    relative to the folder walked and, with `gitignore`, what git ignores (advisor.readers.ignore;
    an unreadable ignore file is a line in `notes`). Explicitly named files are always returned,
    even if excluded or ignored: naming a file is a stronger statement than a pattern.
    """
    return [Path(file) for file in template_files(paths, excludes, gitignore, notes)]


def template_files(paths: Iterable[str | os.PathLike[str]], excludes: list[str], gitignore: bool = False,
                   notes: list[str] | None = None, keep: Callable[[str, str], bool] | None = None) -> list[str]:
    """find_templates' files, each as the text of its Path (what lint passes on): a walk of ten
    thousand templates then makes no Path per file (two thirds of the walk's time).
    `keep(lower-cased name, path)`: which files a walk keeps, when not templates (check's specs)."""
    from advisor.readers import ignore  # only folder walks need it

    spec = ignore.compile_patterns(excludes)
    found: list[str] = []
    seen: set[str] = set()
    notes = notes if notes is not None else []
    for given in paths:
        root = Path(given)
        git = (ignore.above(root, notes) if gitignore and ignore.inside(root) else None)
        candidates = _walk(root, spec, git, notes, keep) if root.is_dir() else [str(root)]
        normcase = os.path.normcase  # as Paths compare: case-blind on Windows
        for candidate in candidates:
            key = normcase(candidate)
            if key not in seen:
                seen.add(key)
                found.append(candidate)
    return found


def _walk(root: Path, spec, git: Layers | None = None, notes: list[str] | None = None,
          keep: Callable[[str, str], bool] | None = None) -> Iterator[str]:
    """Template files under `root`, folders and files in sorted order, each spelled as
    str(root / relative path) would spell it.

    An explicit stack rather than os.walk, which recurses on Python 3.11 and dies on a tree a
    thousand folders deep. Only regular files are kept: a FIFO, socket or device is never
    opened (opening a FIFO blocks until something writes to it). Symlinked folders are not
    entered, as os.walk does not; a folder that cannot be listed is skipped.
    Names are matched as strings and joined as strings: a folder of ten thousand templates is
    walked in a fraction of the time.
    `git`: the ignore files above `root` (advisor.readers.ignore), deepest first, when git's
    rules apply; each folder's own `.gitignore` joins them for its subtree.
    """
    from advisor.readers.ignore import GITIGNORE, read

    match = spec.excludes if spec.size else None  # the path itself: its folders were judged first
    stack = [(str(root), "", git)]
    while stack:
        folder, prefix, rules = stack.pop()
        try:
            with os.scandir(folder) as listing:
                entries = sorted(listing, key=_NAME)
        except OSError:
            continue
        dirs, files = [], []
        for entry in entries:
            if entry.is_symlink():  # a link to a folder is not entered; a dangling or looping one is reported when read
                if not _is_dir(entry):
                    files.append(entry.name)
                continue
            try:
                if entry.is_dir(follow_symlinks=False):
                    dirs.append(entry.name)
                elif entry.is_file(follow_symlinks=False):
                    files.append(entry.name)
            except OSError:
                continue
        # Path(".") / name is spelled name, not ./name
        lead = "" if folder == "." else os.path.join(folder, "")
        if rules is not None and GITIGNORE in files:
            own = read(os.path.join(folder, GITIGNORE), notes if notes is not None else [])
            rules = rules.with_file(own, prefix, "") if own is not None else rules
        for name in files:
            if keep is not None:
                if not ((match and match(prefix + name)) or (rules and rules.ignored(prefix + name))) \
                        and keep(name.lower(), lead + name):
                    yield lead + name
                continue
            by_name = _template_by_name(name.lower())  # first: most names are no template at all
            if by_name is False:
                continue
            if (match and match(prefix + name)) or (rules and rules.ignored(prefix + name)):
                continue
            if by_name or _looks_like_template(Path(lead + name)):
                yield lead + name
        kept = [d for d in dirs if d not in SKIPPED_DIRS and not (match and match(f"{prefix}{d}/"))
                and not (rules and rules.ignored(f"{prefix}{d}/"))]
        stack.extend((lead + d, f"{prefix}{d}/", rules) for d in reversed(kept))


_NAME = attrgetter("name")


def _is_dir(entry: os.DirEntry) -> bool:
    try:
        return entry.is_dir()
    except OSError:
        return False


def _template_by_name(name: str) -> bool | None:
    """Whether a lower-cased file name says template (True) or not (False); None when only
    its content can tell (`.json` and `.hcl` are too common to trust by name)."""
    if name.endswith(_VARIABLE_FILES):
        return False
    if name.endswith(_SUFFIXES):
        return True
    return None if name.endswith((".json", ".hcl")) else False


def _looks_like_template(file: Path) -> bool:
    """A `.json` or `.hcl` file whose first bytes show a Packer or Terraform template."""
    name = file.name.lower()
    head = _head(file)
    if head is None:
        return False
    if name.endswith(".json") or head.lstrip(b"\xef\xbb\xbf \t\r\n").startswith(b"{"):
        return _json_kind(head) is not None  # JSON named .hcl too: read, and the reader says so
    return _module("packer").sniff(file, head)


def _head(file: Path) -> bytes | None:
    try:
        with open_regular(file) as handle:
            return handle.read(HEAD_BYTES)
    except (OSError, InputError):
        return None
