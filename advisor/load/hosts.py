"""Host profiles: the bundled ones in hosts/, a path to a host file, or a host written inline."""

from __future__ import annotations

from collections.abc import Iterable
from pathlib import Path
from typing import Any

from pydantic import ValidationError

from advisor.errors import InputError, one_or_all
from advisor.load.validation import close_matches, path_text, to_input_errors
from advisor.load.yamlfile import load
from advisor.load.yamlloc import LocDict, line_of
from advisor.model.spec import Host
from advisor.resources import data_path


class HostProfiles:
    """Where host profiles are looked up: the user's own folders (configuration
    `host_profiles:`), searched first, then the bundled hosts/. A value passed to whatever
    resolves a `host:` name, so two runs with different folders never see each other's.
    (A plain slotted class: see CONTRIBUTING.md, "Add a class on `check`'s path".)"""

    __slots__ = ("_found", "_loaded", "folders")

    def __init__(self, folders: tuple[Path, ...] = ()) -> None:
        self.folders = folders
        self._loaded: dict[Path, Host] = {}
        # Where each name was found: a check of many specs naming one host looks it up once, not
        # with a stat per folder for every spec (what a found file holds is kept in _loaded anyway).
        self._found: dict[str, Path] = {}

    @classmethod
    def with_folders(cls, folders: Iterable[str | Path]) -> HostProfiles:
        paths = tuple(dict.fromkeys(Path(f) for f in folders))
        for path in paths:
            if not path.is_dir():
                raise InputError("host profile folder not found", file=str(path), field="host_profiles")
        return cls(paths)

    def search_path(self) -> tuple[Path, ...]:
        return (*self.folders, data_path("hosts"))

    def names(self) -> list[str]:
        return sorted({p.stem for folder in self.search_path() for p in folder.glob("*.yaml")})

    def load(self, name: str) -> Host:
        """The profile called ``name`` (a file stem in one of the folders)."""
        path = self._found.get(name)
        if path is None and "/" not in name and "\\" not in name:
            path = next((f / f"{name}.yaml" for f in self.search_path() if (f / f"{name}.yaml").is_file()), None)
            if path is not None:
                self._found[name] = path
        if path is None:
            close = close_matches(name, self.names(), n=1, cutoff=0.5)
            hint = f"; did you mean '{close[0]}'?" if close else " (run 'advisor hosts' to list them)"
            raise InputError(f"unknown host profile '{name}'{hint}", field="host")
        if path not in self._loaded:
            self._loaded[path] = load_host_file(path)
        return self._loaded[path]

    def resolve(self, ref: str, relative_to: Path | None, file: str, line: int | None) -> Host:
        """A host named by profile id or by path (relative to the spec that names it)."""
        looks_like_path = ref.endswith((".yaml", ".yml")) or "/" in ref or "\\" in ref
        if looks_like_path:
            path = Path(ref)
            if not path.is_absolute() and relative_to is not None:
                path = relative_to / path
            try:
                return load_host_file(path)
            except InputError as exc:
                if exc.message == "no such file":
                    raise InputError(f"host file '{ref}' not found", file=file, line=line, field="host") from None
                raise
        try:
            return self.load(ref)
        except InputError as exc:
            if exc.file is None:
                exc.file, exc.line = file, line
            raise


# Only the bundled profiles: what a run without `host_profiles:` configured sees.
BUNDLED = HostProfiles()


def host_from_data(data: Any, file: str, prefix: tuple[Any, ...] = (), root: Any = None) -> Host:
    if not isinstance(data, dict):
        line = getattr(root, "line", None) if root is not None else None
        raise InputError(
            "a host must be a mapping of fields", file=file, line=line, field=".".join(map(str, prefix)) or None
        )
    try:
        return Host.model_validate(data)
    except ValidationError as exc:
        errors = to_input_errors(exc, Host, root if root is not None else data, file, prefix)
        raise one_or_all(errors) from None


def load_host_file(path: Path) -> Host:
    data = load(path)
    return host_from_data(data, str(path), root=data)


def inline_or_named(value: Any, spec_file: str, root: dict[Any, Any] | None, profiles: HostProfiles = BUNDLED,
                    loc: tuple[Any, ...] = ("host",)) -> Host:
    """The host a spec names at `loc` (`host`, or an entry of `cluster`), errors located there."""
    if isinstance(value, Host):
        return value
    if isinstance(value, str):
        # Only a name needs its line and the spec's folder (a host file is found relative to
        # it): an estate's specs carry their hosts inline, validated already, one per cluster entry.
        line = line_of(root, loc) if isinstance(root, LocDict) else None
        base = Path(spec_file).parent if spec_file else None
        try:
            return profiles.resolve(value, base, spec_file, line)
        except InputError as exc:
            if loc != ("host",) and exc.file == spec_file:
                exc.field, exc.line = path_text(loc), line
            raise
    return host_from_data(value, spec_file, loc, root)


def load_profile(name: str) -> Host:
    """A bundled profile by name (commands that read no configuration, and tests)."""
    return BUNDLED.load(name)


def profile_names() -> list[str]:
    """The bundled profiles' names."""
    return BUNDLED.names()
