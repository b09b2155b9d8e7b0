"""What a folder walk skips because git ignores it: `.gitignore` files and `.git/info/exclude`.

Git's rules (gitignore(5)), matched by advisor.readers.globs (linear in the path; pathspec's
regular expressions backtracked without bound on patterns like `*a*a*a*...c`): each
`.gitignore` applies to its own folder and below, with paths relative to that folder; a deeper
file overrides a shallower one, and within a file the last matching pattern wins, so `!keep.tf`
re-includes. `.git/info/exclude` ranks below every `.gitignore`. As in git, none of this applies
outside a repository (a folder holding `.git`), and the `.gitignore` files above the folder
walked are read only up to the repository's root. A `.gitignore` that is a symlink is not
followed (git refuses those too); one that cannot be read is skipped with a note. The user's
global `core.excludesFile` is not read: it is per person, and CI would not see it.
"""

from __future__ import annotations

from dataclasses import dataclass
from pathlib import Path
from typing import TYPE_CHECKING

from advisor.readers.globs import COUNT

if TYPE_CHECKING:
    from advisor.readers.globs import Glob, PatternSet

GITIGNORE = ".gitignore"
# A .gitignore is a few dozen lines; each pattern becomes a regular expression.
MAX_IGNORE_BYTES = 1 << 20


@dataclass(frozen=True, slots=True)
class IgnoreFile:
    """One file's patterns, placed in the walk's coordinates: a path `p` relative to the folder
    walked is tested as `lead + p[len(strip):]` when it starts with `strip`. `base` is added to
    a pattern's index to rank it against the other files' (a deeper file ranks higher)."""

    spec: PatternSet
    strip: str = ""
    lead: str = ""
    base: int = 0

    def verdict_of(self, core: str, name: str, folder: bool) -> Glob | None:
        """The last of this file's patterns beyond literal names and suffixes matching a path
        already split (PatternSet.verdict_of), or None."""
        if self.spec.anchored:
            if not core.startswith(self.strip):
                return None
            core = self.lead + core[len(self.strip):]
        return self.spec.verdict_of(core, name, folder, simple=False)


class Layers:
    """The ignore files that apply in one folder of a walk. Their literal names and `*suffix`
    patterns, by far the most common, are merged into two dictionaries keyed by name (or
    suffix) to the highest-ranked pattern, so a path costs a few lookups however many
    `.gitignore` files lie above it (a tree 1,500 folders deep, each with its own, was cubic in
    the depth before). The files holding other patterns are tried deepest first, and only while
    one could outrank what was found."""
    __slots__ = ("lengths", "names", "next_base", "others", "suffixes")

    def __init__(self) -> None:
        self.names: dict[tuple[str, bool], tuple[int, bool]] = {}
        self.suffixes: dict[tuple[str, bool], tuple[int, bool]] = {}
        self.lengths: tuple[int, ...] = ()
        self.others: tuple[IgnoreFile, ...] = ()
        self.next_base = 0

    def with_file(self, spec: PatternSet, strip: str = "", lead: str = "") -> Layers:
        """These layers with one deeper file's patterns on top."""
        layers = Layers()
        base = self.next_base
        layers.next_base = base + spec.top + 1
        layers.names, layers.suffixes, layers.others = self.names, self.suffixes, self.others
        if spec.names:
            layers.names = {**self.names, **{key: (base + g.order, g.ignore) for key, g in spec.names.items()}}
        if spec.suffixes:
            layers.suffixes = {**self.suffixes,
                               **{key: (base + g.order, g.ignore) for key, g in spec.suffixes.items()}}
        layers.lengths = tuple(sorted({*self.lengths, *(len(key) for key, _ in spec.suffixes)}))
        if spec.beyond_simple:
            layers.others = (IgnoreFile(spec, strip, lead, base), *self.others)
        return layers

    def verdict(self, path: str) -> bool | None:
        """True: ignored; False: re-included by a `!` pattern; None: no pattern matches."""
        folder = path.endswith("/")
        core = path[:-1] if folder else path
        name = core[core.rfind("/") + 1:]
        count = COUNT
        count.lookups += 1
        best = self.names.get((name, folder), (-1, False))
        for length in self.lengths:
            if length > len(name):
                break
            count.lookups += 1
            found = self.suffixes.get((name[len(name) - length:], folder))
            if found is not None and found[0] > best[0]:
                best = found
        for rules in self.others:
            if rules.base + rules.spec.top <= best[0]:
                break  # this file and the shallower ones cannot outrank it
            glob = rules.verdict_of(core, name, folder)
            if glob is not None and rules.base + glob.order > best[0]:
                best = (rules.base + glob.order, glob.ignore)
        return None if best[0] < 0 else best[1]

    def ignored(self, path: str) -> bool:
        """Whether git ignores `path` (relative to the folder walked; folders end in "/")."""
        return bool(self.verdict(path))


def repository_root(folder: Path) -> Path | None:
    """The nearest folder at or above `folder` holding `.git` (a folder, or a worktree's file)."""
    for candidate in (folder, *folder.parents):
        if (candidate / ".git").exists():
            return candidate
    return None


def above(root: Path, notes: list[str]) -> Layers:
    """The ignore files that apply to a walk of `root` from above it: `.git/info/exclude`, then
    the `.gitignore` files of its parents from the repository's root down. None outside a
    repository, or when those files ignore `root` or a folder between it and the repository's
    root (naming an ignored folder is asking for it, as naming an ignored file is)."""
    layers = Layers()
    try:
        start = root.resolve()
    except (OSError, RuntimeError):
        return layers
    repo = repository_root(start)
    if repo is None:
        return layers
    found: list[tuple[Path, PatternSet]] = []  # (folder, its patterns), deepest first
    for folder in start.parents:
        if repo != folder and repo not in folder.parents:
            break
        spec = read(folder / GITIGNORE, notes)
        if spec is not None:
            found.append((folder, spec))
    exclude = read(repo / ".git" / "info" / "exclude", notes)
    if exclude is not None:
        found.append((repo, exclude))
    if _ignored_on_the_way(start, repo, found):
        return layers
    for folder, spec in reversed(found):
        layers = layers.with_file(spec, "", start.relative_to(folder).as_posix() + "/" if start != folder else "")
    return layers


def _ignored_on_the_way(start: Path, repo: Path, found: list[tuple[Path, PatternSet]]) -> bool:
    """Whether git, walking down from `repo`, ignores `start` or a folder on the way to it; each
    folder is judged by the ignore files of the folders above it, deepest first."""
    for folder in reversed((start, *start.parents)):
        if folder == repo or repo not in folder.parents:
            continue
        for owner, spec in found:
            if owner == folder or owner not in folder.parents:
                continue  # a folder's own .gitignore speaks of what is inside it
            glob = spec.verdict(folder.relative_to(owner).as_posix() + "/")
            if glob is not None:
                if glob.ignore:
                    return True
                break
    return False


def inside(root: Path) -> bool:
    """Whether a walk of `root` reads the `.gitignore` files it meets (it is in a repository)."""
    try:
        return repository_root(root.resolve()) is not None
    except (OSError, RuntimeError):
        return False


def read(path: Path | str, notes: list[str]) -> PatternSet | None:
    """The patterns of one ignore file, or None when it is absent, a symlink or unreadable.
    (A walk passes a string: a Path of a path thousands of characters long costs its length.)"""
    import os

    from advisor.errors import InputError
    from advisor.load.yamlfile import read_bytes
    from advisor.readers.globs import PatternSet

    if os.path.islink(path):
        notes.append(f"{path}: a symlink; git does not follow it and neither does advisor")
        return None
    if not os.path.isfile(path):
        return None
    try:
        lines = read_bytes(path, MAX_IGNORE_BYTES).decode("utf-8", "replace").splitlines()
    except InputError as exc:
        notes.append(f"{path}: not read ({exc.message}); its patterns are not applied")
        return None
    return PatternSet.from_lines(lines)  # a line git would refuse is skipped, as git skips it


def compile_patterns(patterns: list[str], file: str | None = None) -> PatternSet:
    """`exclude:` / --exclude patterns as one set; a pattern git would refuse is an input error
    naming it (and the configuration that states it)."""
    from advisor.errors import InputError
    from advisor.readers.globs import PatternSet

    try:
        return PatternSet.from_lines(patterns, strict=True)
    except ValueError as exc:
        raise InputError(str(exc), file=file, field="exclude") from None
