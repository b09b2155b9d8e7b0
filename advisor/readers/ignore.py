"""What a folder walk skips because git ignores it: `.gitignore` files and `.git/info/exclude`.

Git's rules (gitignore(5)), read with pathspec's `GitIgnoreSpec` rather than by hand: each
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
from typing import Any

GITIGNORE = ".gitignore"
# A .gitignore is a few dozen lines; each pattern becomes a regular expression.
MAX_IGNORE_BYTES = 1 << 20


@dataclass(frozen=True, slots=True)
class IgnoreFile:
    """One file's patterns, placed in the walk's coordinates: a path `p` relative to the folder
    walked is tested as `lead + p[len(strip):]` when it starts with `strip`."""

    spec: Any  # pathspec.GitIgnoreSpec
    strip: str = ""
    lead: str = ""

    def verdict(self, path: str) -> bool | None:
        """True: ignored; False: re-included by a `!` pattern; None: no pattern matches."""
        if not path.startswith(self.strip):
            return None
        return self.spec.check_file(self.lead + path[len(self.strip):]).include


def repository_root(folder: Path) -> Path | None:
    """The nearest folder at or above `folder` holding `.git` (a folder, or a worktree's file)."""
    for candidate in (folder, *folder.parents):
        if (candidate / ".git").exists():
            return candidate
    return None


def ignored(path: str, files: tuple[IgnoreFile, ...]) -> bool:
    """Whether git ignores `path` (relative to the folder walked; folders end in "/"); `files`
    deepest first, so the first one with a verdict decides."""
    for rules in files:
        verdict = rules.verdict(path)
        if verdict is not None:
            return verdict
    return False


def above(root: Path, notes: list[str]) -> tuple[IgnoreFile, ...]:
    """The ignore files that apply to a walk of `root` from above it: the `.gitignore` files of
    its parents up to the repository's root, then `.git/info/exclude`; deepest first. Empty
    outside a repository, or when those files ignore `root` itself (naming an ignored folder is
    asking for it, as naming an ignored file is)."""
    try:
        start = root.resolve()
    except (OSError, RuntimeError):
        return ()
    repo = repository_root(start)
    if repo is None:
        return ()
    found: list[IgnoreFile] = []
    for folder in start.parents:
        if repo != folder and repo not in folder.parents:
            break
        lead = start.relative_to(folder).as_posix() + "/"
        spec = read(folder / GITIGNORE, notes)
        if spec is not None:
            found.append(IgnoreFile(spec, "", lead))
    exclude = read(repo / ".git" / "info" / "exclude", notes)
    if exclude is not None:
        found.append(IgnoreFile(exclude, "", start.relative_to(repo).as_posix() + "/" if start != repo else ""))
    files = tuple(found)
    return () if files and ignored("", files) else files


def inside(root: Path) -> bool:
    """Whether a walk of `root` reads the `.gitignore` files it meets (it is in a repository)."""
    try:
        return repository_root(root.resolve()) is not None
    except (OSError, RuntimeError):
        return False


def read(path: Path, notes: list[str]) -> Any:
    """The patterns of one ignore file, or None when it is absent, a symlink or unreadable."""
    import pathspec

    from advisor.errors import InputError
    from advisor.load.yamlfile import read_bytes

    if path.is_symlink():
        notes.append(f"{path}: a symlink; git does not follow it and neither does advisor")
        return None
    if not path.is_file():
        return None
    try:
        lines = read_bytes(path, MAX_IGNORE_BYTES).decode("utf-8", "replace").splitlines()
    except InputError as exc:
        notes.append(f"{path}: not read ({exc.message}); its patterns are not applied")
        return None
    try:
        return pathspec.GitIgnoreSpec.from_lines(lines)
    except Exception:  # pathspec raises its own errors, or re.error; git skips bad lines
        return pathspec.GitIgnoreSpec.from_lines([line for line in lines if compiles(line)])


def compile_patterns(patterns: list[str], file: str | None = None) -> Any:
    """`exclude:` / --exclude patterns as one spec; a pattern pathspec refuses is an input error
    naming it (and the configuration that states it)."""
    import pathspec

    from advisor.errors import InputError

    try:
        return pathspec.GitIgnoreSpec.from_lines(patterns)
    except Exception as exc:  # pathspec raises its own error or re.error for e.g. "[z-a]"
        bad = next((p for p in patterns if not compiles(p)), "?")
        raise InputError(f"'{bad[:80]}' is not a usable pattern ({' '.join(str(exc).split())[:120]})",
                         file=file, field="exclude") from None


def compiles(line: str) -> bool:
    """Whether one gitignore-style pattern is one pathspec accepts."""
    import pathspec

    try:
        pathspec.GitIgnoreSpec.from_lines([line])
    except Exception:  # as above
        return False
    return True
