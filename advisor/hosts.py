"""Host profiles: the bundled ones in hosts/, a path to a host file, or a host written inline."""

from __future__ import annotations

import difflib
from functools import lru_cache
from pathlib import Path
from typing import Any

from pydantic import ValidationError

from advisor.errors import InputError
from advisor.resources import data_path
from advisor.spec import Host
from advisor.validation import to_input_errors
from advisor.yamlfile import LocDict, load


# Folders of the user's own host profiles (configuration `host_profiles:`), searched first.
_EXTRA_FOLDERS: list[Path] = []


def add_profile_folder(folder: str | Path) -> None:
    path = Path(folder)
    if not path.is_dir():
        raise InputError("host profile folder not found", file=str(path), field="host_profiles")
    if path not in _EXTRA_FOLDERS:
        _EXTRA_FOLDERS.append(path)
        load_profile.cache_clear()


def _folders() -> list[Path]:
    return [*_EXTRA_FOLDERS, data_path("hosts")]


def profile_names() -> list[str]:
    return sorted({p.stem for folder in _folders() for p in folder.glob("*.yaml")})


def host_from_data(data: Any, file: str, prefix: tuple[Any, ...] = (), root: Any = None) -> Host:
    if not isinstance(data, dict):
        line = getattr(root, "line", None) if root is not None else None
        raise InputError("a host must be a mapping of fields", file=file, line=line, field=".".join(map(str, prefix)) or None)
    try:
        return Host.model_validate(data)
    except ValidationError as exc:
        errors = to_input_errors(exc, Host, root if root is not None else data, file, prefix)
        raise errors[0] from None


def load_host_file(path: Path) -> Host:
    data = load(path)
    return host_from_data(data, str(path), root=data)


@lru_cache(maxsize=None)
def load_profile(name: str) -> Host:
    path = next((f / f"{name}.yaml" for f in _folders() if (f / f"{name}.yaml").is_file()), None)
    if path is None or "/" in name or "\\" in name:
        close = difflib.get_close_matches(name, profile_names(), n=1, cutoff=0.5)
        hint = f"; did you mean '{close[0]}'?" if close else " (run 'advisor hosts' to list them)"
        raise InputError(f"unknown host profile '{name}'{hint}", field="host")
    return load_host_file(path)


def resolve_host(ref: str, relative_to: Path | None, file: str, line: int | None) -> Host:
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
        return load_profile(ref)
    except InputError as exc:
        if exc.file is None:
            exc.file, exc.line = file, line
        raise


def inline_or_named(value: Any, spec_file: str, root: LocDict | None) -> Host:
    line = root.lines.get("host") if isinstance(root, LocDict) else None
    base = Path(spec_file).parent if spec_file else None
    if isinstance(value, Host):
        return value
    if isinstance(value, str):
        return resolve_host(value, base, spec_file, line)
    return host_from_data(value, spec_file, ("host",), root)
