"""A folder's Packer and Terraform files as one run reads them: listed once, each read once and
parsed once, whether a template of the folder is being read or another one needs its variables.

Terraform reads a module's every `.tf` and auto-loaded `.tfvars` as one configuration, and Packer
a folder's `.pkr.hcl` and `*.auto.pkrvars.hcl` (hashicorp/packer hcl2template/utils.go,
GetHCL2Files): every template of a folder sees the same files. Asking the disk for them again for
each template made a folder of n templates cost n² reads (9,227 reads for the 1,090 files of the
shared corpus copied ten times). A `Folder` holds what it read and what each reader made of it
(`made`), for the run's current folders only (`Folders`), never across runs and never keyed by
content: the same bytes in another folder are another file.

What a template sees beside it is unchanged (`beside`): the sorted files with a variable-file
suffix, itself left out, at most _MAX_SIBLINGS of them; a symlink to a file in another folder is
not read (a `terraform.tfvars` linked to `~/.secrets/prod.tfvars` would pour values from outside
the repository into the report; a file given with --var-file is read wherever it is, the user
named it); an unreadable one is skipped (reading this file should not fail because of another).
"""

from __future__ import annotations

from collections.abc import Callable, Iterable
from pathlib import Path
from typing import TypeVar

from advisor.errors import InputError
from advisor.load.yamlfile import read_bytes

T = TypeVar("T")

# The files beside a Packer/Terraform template that may define or assign its variables.
SIBLING_SUFFIXES = (".tf", ".tf.json", ".tfvars", ".tfvars.json", ".pkr.hcl", ".pkr.json", ".pkrvars.hcl",
                    ".pkrvars.json")
# A folder with more sibling files than this is not read for variable values (bounded work).
_MAX_SIBLINGS = 200
# Folders a run keeps: the one being walked and the module folders its templates call.
_MAX_FOLDERS = 4


class Folder:
    """The variable files of one folder (or the files a caller hands over), each read once and
    turned by each reader function into what it needs once.

    `made(path, make)` is `make(path, data, folder)` for the file's bytes, kept per (file,
    function) with the InputError it raised, so a file that fails to parse fails the same way
    for each template that reads it; a RecursionError is not kept (it is raised again)."""

    __slots__ = ("_candidates", "_checked", "_data", "_folders", "_kept", "_listed", "_made", "_resolved", "path")

    def __init__(self, path: Path | None, folders: Folders | None = None) -> None:
        self.path = path  # None: only the files handed over (`given`)
        self._listed = path is None
        self._resolved: Path | None = None
        self._candidates: list[Path] | None = None  # None: the folder cannot be listed or resolved
        self._kept: frozenset[Path] = frozenset()  # the files some template of the folder may read as a sibling
        self._data: dict[Path, bytes | InputError] = {}
        self._made: dict[tuple[Path, Callable], object] = {}
        self._checked: dict[Path, bool] = {}  # sibling -> whether it is read (_usable)
        self._folders = folders

    @classmethod
    def given(cls, files: Iterable[tuple[Path, bytes]]) -> Folder:
        """The files a caller hands over, in its order, instead of a folder's listing (tests,
        `--var-file` values, a file read alone: no files)."""
        folder = cls(None)
        files = [(Path(p), data) for p, data in files]
        folder._candidates = [p for p, _ in files]
        folder._kept = frozenset(folder._candidates)
        folder._data = dict(files)
        return folder

    def files(self) -> list[Path]:
        """The handed-over files, in the order given (every one, readable or not)."""
        return list(self._candidates or ())

    def beside(self, path: Path) -> list[Path]:
        """The readable variable files a template at `path` sees, in name order."""
        candidates = self._listing()
        if self.path is None:
            return [p for p in candidates if p != path]
        if len(candidates) > _MAX_SIBLINGS:  # else the cap cannot bind, whichever file asks
            candidates = [p for p in candidates if p != path][:_MAX_SIBLINGS]
        return [p for p in candidates if p != path and self._usable(p)]

    def data(self, path: Path) -> bytes:
        """The bytes of a file of this folder (InputError as read_bytes raises it); kept only
        when some template of the folder may read the file as a sibling."""
        found = self._data.get(path)
        if found is None:
            if not path.name.lower().endswith(SIBLING_SUFFIXES) or path not in self._keep():
                return read_bytes(path)
            found = self._read(path)
        if isinstance(found, InputError):
            raise found.with_traceback(None)
        return found

    def made(self, path: Path, make: Callable[[Path, bytes, Folder], T], data: bytes | None = None) -> T:
        """`make(path, data, self)`, once per file and function. `data`: the bytes the caller
        holds; a result is kept only when they are the bytes this folder read (standard input
        named as a file of the folder is not that file)."""
        if data is not None and data is not self._data.get(path):
            return make(path, data, self)  # not this folder's file: standard input under its name
        key = (path, make)
        if key in self._made:
            found = self._made[key]
            if isinstance(found, InputError):
                raise found.with_traceback(None)
            return found  # type: ignore[return-value]  # kept under its own function
        if data is None:
            data = self.data(path)
            if data is not self._data.get(path):
                return make(path, data, self)  # a file no template reads as a sibling is not kept
        try:
            value = make(path, data, self)
        except InputError as exc:
            self._made[key] = exc
            raise
        self._made[key] = value
        return value

    def near(self, path: Path) -> Folder:
        """Another folder of this run (a module's source), read through the run's folders."""
        return self._folders.of(path) if self._folders is not None else Folder(path)

    def _keep(self) -> frozenset[Path]:
        self._listing()
        return self._kept

    def _listing(self) -> list[Path]:
        if not self._listed:
            self._listed = True
            assert self.path is not None
            try:
                entries = sorted(self.path.iterdir())
                self._resolved = self.path.resolve()
            except (OSError, RuntimeError):
                return []
            self._candidates = [p for p in entries if p.name.lower().endswith(SIBLING_SUFFIXES)]
            # Any template sees the first _MAX_SIBLINGS files but itself: one more than that.
            self._kept = frozenset(self._candidates[:_MAX_SIBLINGS + 1])
        return self._candidates or []

    def _usable(self, path: Path) -> bool:
        """Whether a sibling is read: inside the folder (a symlink may lead out) and readable."""
        usable = self._checked.get(path)
        if usable is None:
            usable = self._checked[path] = self._inside(path) and not isinstance(self._read(path), InputError)
        return usable

    def _inside(self, path: Path) -> bool:
        if not path.is_symlink():
            return True
        try:
            return path.resolve().parent == self._resolved
        except (OSError, RuntimeError):
            return False

    def _read(self, path: Path) -> bytes | InputError:
        found = self._data.get(path)
        if found is None:
            try:
                found = read_bytes(path)
            except InputError as exc:
                found = exc
            self._data[path] = found
        return found


class Folders:
    """The folders of one run that templates are being read from, the latest few (a walk reads
    a folder's files one after another; a module folder is read by the templates that call it)."""

    __slots__ = ("_open",)

    def __init__(self) -> None:
        self._open: dict[Path, Folder] = {}

    def of(self, path: Path) -> Folder:
        folder = self._open.pop(path, None)
        if folder is None:
            folder = Folder(path, self)
            if len(self._open) >= _MAX_FOLDERS:
                del self._open[next(iter(self._open))]
        self._open[path] = folder  # the latest last
        return folder
